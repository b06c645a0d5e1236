package org.apache.storm.grouping;

/** A grouping that adapts to how loaded its target tasks are; {@link #refreshLoad} is called with fresh loads. */
public interface LoadAwareCustomStreamGrouping extends CustomStreamGrouping {
    void refreshLoad(LoadMapping loadMapping);
}
