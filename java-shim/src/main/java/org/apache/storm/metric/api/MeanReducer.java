package org.apache.storm.metric.api;

/**
 * The arithmetic mean of the numbers given in a bucket (as a Double), or null when none was
 * given. Accepts any {@link Number}; anything else is an error.
 */
public class MeanReducer implements IReducer<MeanReducerState> {
    public MeanReducer() {
    }

    @Override
    public MeanReducerState init() {
        return new MeanReducerState();
    }

    @Override
    public MeanReducerState reduce(MeanReducerState acc, Object input) {
        if (!(input instanceof Number)) {
            throw new RuntimeException("MeanReducer cannot reduce a " + (input == null ? "null"
                    : input.getClass().getName()) + ": it only reduces numbers");
        }
        acc.count++;
        acc.sum += ((Number) input).doubleValue();
        return acc;
    }

    @Override
    public Object extractResult(MeanReducerState acc) {
        return acc.count > 0 ? Double.valueOf(acc.sum / acc.count) : null;
    }
}
