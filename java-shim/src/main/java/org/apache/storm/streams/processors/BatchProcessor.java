package org.apache.storm.streams.processors;

/** Marks a processor that aggregates over a window (a batch) before forwarding. */
public interface BatchProcessor {
}
