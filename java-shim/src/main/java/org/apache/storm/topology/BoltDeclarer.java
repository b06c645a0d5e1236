package org.apache.storm.topology;

/** What {@link TopologyBuilder#setBolt} returns: subscriptions plus configuration. */
public interface BoltDeclarer extends InputDeclarer<BoltDeclarer>, ComponentConfigurationDeclarer<BoltDeclarer> {
}
