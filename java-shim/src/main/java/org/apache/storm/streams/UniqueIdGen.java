package org.apache.storm.streams;

/**
 * The ids a {@link StreamBuilder} gives to what it creates, counted per JVM as in Storm:
 * streams {@code s1, s2, ...}, spouts {@code spout1, ...}, bolts {@code bolt1, ...}.
 */
class UniqueIdGen {
    private static final UniqueIdGen instance = new UniqueIdGen();

    private int streamCounter;
    private int spoutCounter;
    private int boltCounter;

    private UniqueIdGen() {
    }

    static UniqueIdGen getInstance() {
        return instance;
    }

    synchronized String getUniqueStreamId() {
        return "s" + (++streamCounter);
    }

    synchronized String getUniqueBoltId() {
        return "bolt" + (++boltCounter);
    }

    synchronized String getUniqueSpoutId() {
        return "spout" + (++spoutCounter);
    }

    /** Starts every count again from 1. */
    synchronized void reset() {
        streamCounter = 0;
        spoutCounter = 0;
        boltCounter = 0;
    }
}
