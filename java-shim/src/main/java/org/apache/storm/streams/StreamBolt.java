package org.apache.storm.streams;

/** A bolt that runs a group of a stream's processors. */
interface StreamBolt {
    String getId();

    /** The tuple field carrying the event time, added to every emitted tuple. */
    void setTimestampField(String fieldName);
}
