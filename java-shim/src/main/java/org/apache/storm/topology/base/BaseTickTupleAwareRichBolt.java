package org.apache.storm.topology.base;

import org.apache.storm.tuple.Tuple;
import org.apache.storm.utils.TupleUtils;

/** Routes tick tuples to {@link #onTickTuple} and every other tuple to {@link #process}. */
public abstract class BaseTickTupleAwareRichBolt extends BaseRichBolt {
    public BaseTickTupleAwareRichBolt() {
    }

    @Override
    public void execute(final Tuple tuple) {
        if (TupleUtils.isTick(tuple)) {
            onTickTuple(tuple);
        } else {
            process(tuple);
        }
    }

    /** Called for each tick tuple; does nothing by default. */
    protected void onTickTuple(final Tuple tuple) {
    }

    protected abstract void process(Tuple tuple);
}
