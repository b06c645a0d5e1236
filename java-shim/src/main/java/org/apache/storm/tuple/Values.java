package org.apache.storm.tuple;

import java.util.ArrayList;

/** A convenience list for emitting tuple values: {@code collector.emit(new Values("a", 1))}. */
public class Values extends ArrayList<Object> {
    public Values() {
    }

    /** The values given; {@code new Values((Object[]) null)} holds one null value, as in Storm. */
    public Values(Object... vals) {
        super(vals == null ? 1 : vals.length);
        if (vals == null) {
            add(null);
            return;
        }
        for (Object o : vals) {
            add(o);
        }
    }
}
