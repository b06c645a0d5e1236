package org.apache.storm.windowing;

import org.apache.storm.tuple.Tuple;

/** A window of tuples. */
public interface TupleWindow extends Window<Tuple> {
}
