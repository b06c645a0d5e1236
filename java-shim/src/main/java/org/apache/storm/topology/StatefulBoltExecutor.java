package org.apache.storm.topology;

import dev.egret.instance.StateChannel;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.storm.spout.CheckPointState.Action;
import org.apache.storm.spout.CheckpointSpout;
import org.apache.storm.state.State;
import org.apache.storm.state.StateFactory;
import org.apache.storm.task.IOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an {@link IStatefulBolt}: its state comes from {@link StateFactory} (namespace
 * {@code component-taskId}) and follows the checkpoint stream: INITSTATE hands it to the
 * bolt (tuples arriving before are held, then executed), PREPARE stages it, COMMIT commits
 * it, ROLLBACK returns to the last commit.
 *
 * <p>Acks are at least once with the state: the bolt's acks are held and sent when the
 * checkpoint that covers them commits; a rollback fails them instead, so the spouts replay.
 * A PREPARE reaching a bolt not yet initialized fails, which makes the checkpoint spout
 * recover.
 */
public class StatefulBoltExecutor<T extends State> extends BaseStatefulBoltExecutor {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(StatefulBoltExecutor.class);

    private final IStatefulBolt<T> bolt;
    private transient State state;
    private transient boolean boltInitialized;
    private transient List<Tuple> pendingTuples;
    private transient List<Tuple> preparedTuples;
    private transient AckTrackingOutputCollector trackingCollector;
    private transient Object monitor;
    /** The txid of this task's last COMMIT (effectively once: a repeated COMMIT is not carried out twice). */
    private transient long lastCommitted;

    public StatefulBoltExecutor(IStatefulBolt<T> bolt) {
        this.bolt = bolt;
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        String namespace = context.getThisComponentId() + "-" + context.getThisTaskId();
        prepare(topoConf, context, collector, StateFactory.getState(namespace, topoConf, context));
    }

    void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector, State state) {
        init(context, collector);
        this.trackingCollector = new AckTrackingOutputCollector(collector);
        bolt.prepare(topoConf, context, trackingCollector);
        this.state = state;
        this.boltInitialized = false;
        this.pendingTuples = new ArrayList<>();
        this.preparedTuples = new ArrayList<>();
        this.lastCommitted = Long.MIN_VALUE;
        // A windowed bolt also runs on its timer thread: checkpoints take the same lock.
        this.monitor = bolt instanceof WindowedBoltExecutor ? ((WindowedBoltExecutor) bolt).lock : new Object();
    }

    @Override
    public void cleanup() {
        bolt.cleanup();
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        bolt.declareOutputFields(declarer);
        declareCheckpointStream(declarer);
    }

    @Override
    public Map<String, Object> getComponentConfiguration() {
        return bolt.getComponentConfiguration();
    }

    @Override
    @SuppressWarnings("unchecked")
    protected void handleCheckpoint(Tuple checkpointTuple, Action action, long txid) {
        synchronized (monitor) {
            LOG.debug("handleCheckPoint with tuple {}, action {}, txid {}", checkpointTuple, action, txid);
            switch (action) {
                case PREPARE:
                    if (!boltInitialized) {
                        LOG.debug("Failing checkpointTuple, PREPARE received when bolt state is not initialized.");
                        collector.fail(checkpointTuple);
                        return;
                    }
                    bolt.prePrepare(txid);
                    state.prepareCommit(txid);
                    preparedTuples.addAll(trackingCollector.takeAcked());
                    break;
                case COMMIT:
                    if (txid == lastCommitted && StateChannel.effectivelyOnce()) {
                        // A recovering checkpoint spout repeats a COMMIT this task carried out.
                        // Committing again would label the tuples run since (the spouts resumed
                        // at the first COMMIT) with this txid: they belong to the next one.
                        LOG.debug("COMMIT {} again: already committed", txid);
                        break;
                    }
                    bolt.preCommit(txid);
                    state.commit(txid);
                    lastCommitted = txid;
                    for (Tuple t : preparedTuples) {
                        collector.ack(t);
                    }
                    preparedTuples.clear();
                    break;
                case ROLLBACK:
                    if (!boltInitialized && StateChannel.effectivelyOnce()) {
                        // Effectively once: the spouts emit nothing between their ROLLBACK and
                        // the INITSTATE after it, so every tuple held here came before the
                        // rollback; its tree is replayed, so it must not run after INITSTATE.
                        for (Tuple t : pendingTuples) {
                            collector.fail(t);
                        }
                        pendingTuples.clear();
                    }
                    bolt.preRollback();
                    state.rollback();
                    for (Tuple t : preparedTuples) {
                        collector.fail(t);
                    }
                    preparedTuples.clear();
                    for (Tuple t : trackingCollector.takeAcked()) {
                        collector.fail(t);
                    }
                    break;
                case INITSTATE:
                default:
                    if (!boltInitialized) {
                        bolt.initState((T) state);
                        boltInitialized = true;
                        LOG.debug("{} pending tuples to process", pendingTuples.size());
                        for (Tuple t : pendingTuples) {
                            bolt.execute(t);
                        }
                        pendingTuples.clear();
                    } else {
                        LOG.debug("Bolt state is already initialized, ignoring tuple {}, action {}, txid {}",
                                checkpointTuple, action, txid);
                    }
                    break;
            }
            collector.emit(CheckpointSpout.CHECKPOINT_STREAM_ID, checkpointTuple, new Values(txid, action));
            collector.ack(checkpointTuple);
        }
    }

    @Override
    protected void handleTuple(Tuple input) {
        if (boltInitialized) {
            bolt.execute(input);
        } else {
            LOG.debug("Bolt state not initialized, adding tuple {} to pending tuples", input);
            pendingTuples.add(input);
        }
    }

    /** Holds the bolt's acks until a checkpoint commits them; everything else passes through. */
    static final class AckTrackingOutputCollector extends OutputCollector {
        private final List<Tuple> acked = new ArrayList<>();

        AckTrackingOutputCollector(IOutputCollector delegate) {
            super(delegate);
        }

        synchronized List<Tuple> takeAcked() {
            List<Tuple> out = new ArrayList<>(acked);
            acked.clear();
            return out;
        }

        @Override
        public synchronized void ack(Tuple input) {
            acked.add(input);
        }
    }
}
