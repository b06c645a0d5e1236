package org.apache.storm.spout;

/** A spout whose messages are turned into tuples by a {@link MultiScheme} the user sets. */
public interface IMultiSchemableSpout {
    MultiScheme getScheme();

    void setScheme(MultiScheme scheme);
}
