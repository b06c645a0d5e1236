package org.apache.storm.topology;

import org.apache.storm.task.IBolt;

/** A bolt usable with {@link TopologyBuilder}. */
public interface IRichBolt extends IBolt, IComponent {
}
