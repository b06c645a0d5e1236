package org.apache.storm.topology;

import org.apache.storm.state.IStateSpout;

/** A state spout that declares its outputs (see {@link IStateSpout}: no executor runs it). */
public interface IRichStateSpout extends IStateSpout, IComponent {
}
