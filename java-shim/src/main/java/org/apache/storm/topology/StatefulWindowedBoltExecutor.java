package org.apache.storm.topology;

import java.util.List;
import java.util.Map;
import org.apache.storm.state.State;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Tuple;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an {@link IStatefulWindowedBolt} (inside a {@link StatefulBoltExecutor}, which
 * holds tuples until the state is initialized and holds acks until commit). The windows
 * live in memory: a rollback drops them and fails their tuples, which the spouts replay.
 */
public class StatefulWindowedBoltExecutor<T extends State> extends WindowedBoltExecutor implements IStatefulBolt<T> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(StatefulWindowedBoltExecutor.class);

    private final IStatefulWindowedBolt<T> statefulBolt;
    private transient OutputCollector outputCollector;

    public StatefulWindowedBoltExecutor(IStatefulWindowedBolt<T> bolt) {
        super(bolt);
        this.statefulBolt = bolt;
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        this.outputCollector = collector;
        if (statefulBolt.isPersistent()) {
            LOG.warn("Windowed bolt {} asks for persistent windows; Egret keeps its windows in memory",
                    context.getThisComponentId());
        }
        super.prepare(topoConf, context, collector);
    }

    @Override
    public void initState(T state) {
        synchronized (lock) {
            statefulBolt.initState(state);
        }
    }

    @Override
    public void preCommit(long txid) {
        statefulBolt.preCommit(txid);
    }

    @Override
    public void prePrepare(long txid) {
        statefulBolt.prePrepare(txid);
    }

    @Override
    public void preRollback() {
        statefulBolt.preRollback();
        List<Tuple> dropped = clearWindows();
        LOG.info("Rollback: failing the {} tuples of the windows", dropped.size());
        for (Tuple t : dropped) {
            outputCollector.fail(t);
        }
    }
}
