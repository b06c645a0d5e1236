package org.apache.storm.topology.base;

import org.apache.storm.topology.IRichBolt;

/** A bolt with an empty cleanup. */
public abstract class BaseRichBolt extends BaseComponent implements IRichBolt {
    public BaseRichBolt() {
    }

    @Override
    public void cleanup() {
    }
}
