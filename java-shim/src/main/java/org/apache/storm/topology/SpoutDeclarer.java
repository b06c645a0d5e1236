package org.apache.storm.topology;

/** What {@link TopologyBuilder#setSpout} returns: configuration. */
public interface SpoutDeclarer extends ComponentConfigurationDeclarer<SpoutDeclarer> {
}
