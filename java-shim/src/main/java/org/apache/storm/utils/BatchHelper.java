package org.apache.storm.utils;

import java.util.LinkedList;
import java.util.List;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.tuple.Tuple;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batches a bolt's input tuples until the batch is full ({@code batchSize}, default 15000) or
 * a tick tuple arrives, then acks or fails them together (the connectors' bolts write in
 * batches this way).
 */
public class BatchHelper {
    private static final Logger LOG = LoggerFactory.getLogger(BatchHelper.class);
    private static final int DEFAULT_BATCH_SIZE = 15000;

    private final int batchSize;
    private final OutputCollector collector;
    private final LinkedList<Tuple> tupleBatch = new LinkedList<>();
    private boolean forceFlush = false;

    /** {@code batchSize} of 0 or less means the default, 15000. */
    public BatchHelper(int batchSize, OutputCollector collector) {
        this.batchSize = batchSize > 0 ? batchSize : DEFAULT_BATCH_SIZE;
        this.collector = collector;
    }

    /** Reports {@code e} and fails every tuple of the batch; the batch starts over. */
    public void fail(Exception e) {
        collector.reportError(e);
        for (Tuple t : tupleBatch) {
            collector.fail(t);
        }
        tupleBatch.clear();
        forceFlush = false;
    }

    /** Acks every tuple of the batch; the batch starts over. */
    public void ack() {
        for (Tuple t : tupleBatch) {
            collector.ack(t);
        }
        tupleBatch.clear();
        forceFlush = false;
    }

    /** False for a tick tuple (which asks for a flush), true for a tuple to handle. */
    public boolean shouldHandle(Tuple tuple) {
        if (TupleUtils.isTick(tuple)) {
            LOG.debug("TICK received! current batch status [{}/{}]", tupleBatch.size(), batchSize);
            forceFlush = true;
            return false;
        }
        return true;
    }

    /** Adds {@code tuple} to the batch; a full batch asks for a flush. */
    public void addBatch(Tuple tuple) {
        tupleBatch.add(tuple);
        if (tupleBatch.size() >= batchSize) {
            forceFlush = true;
        }
    }

    public List<Tuple> getBatchTuples() {
        return tupleBatch;
    }

    public int getBatchSize() {
        return batchSize;
    }

    /** Whether a flush was asked for (full batch or tick) and the batch is not empty. */
    public boolean shouldFlush() {
        return forceFlush && !tupleBatch.isEmpty();
    }
}
