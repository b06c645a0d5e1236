package org.apache.storm.spout;

/** A spout whose messages are turned into tuples by a {@link Scheme} the user sets. */
public interface ISchemableSpout {
    Scheme getScheme();

    void setScheme(Scheme scheme);
}
