package org.apache.storm.hooks;

import java.io.Serializable;
import java.util.Map;
import org.apache.storm.task.WorkerTopologyContext;

/** A worker hook that does nothing: override what is needed. */
public class BaseWorkerHook implements IWorkerHook, Serializable {
    private static final long serialVersionUID = 2589466485198339529L;

    @Override
    public void start(Map<String, Object> topoConf, WorkerTopologyContext context) {
    }

    @Override
    public void shutdown() {
    }
}
