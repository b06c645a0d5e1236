package org.apache.storm.topology;

import org.apache.storm.spout.ISpout;

/** A spout usable with {@link TopologyBuilder}. */
public interface IRichSpout extends ISpout, IComponent {
}
