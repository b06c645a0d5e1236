package org.apache.storm.tuple;

import java.util.ArrayList;

/** A convenience list for emitting tuple values: {@code collector.emit(new Values("a", 1))}. */
public class Values extends ArrayList<Object> {
    public Values() {
    }

    public Values(Object... vals) {
        super(vals.length);
        for (Object o : vals) {
            add(o);
        }
    }
}
