package org.apache.storm.topology;

import dev.egret.instance.StateChannel;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.storm.spout.CheckPointState.Action;
import org.apache.storm.spout.CheckpointSpout;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits a bolt's input into checkpoint tuples and others, and lines the checkpoint tuples
 * up: an action for a transaction is handled once it arrived from every task upstream on
 * {@code $checkpoint} (the others are acked as they come); actions for a transaction
 * older than the last handled one are acked and ignored.
 */
public abstract class BaseStatefulBoltExecutor implements IRichBolt {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(BaseStatefulBoltExecutor.class);

    protected OutputCollector collector;
    private transient int checkpointInputTaskCount;
    private transient int taskId;
    private transient long lastTxid;
    /** Effectively once: the connection epoch of the last ROLLBACK handled (0: none). */
    private transient long cleanEpoch;
    private transient Map<TransactionRequest, Integer> transactionRequestCount;
    /**
     * Effectively once: the input tasks each action has come from, in place of Storm's count.
     * A checkpoint spout that recovers sends an action again with the same txid; a count would
     * add a copy left from the earlier round (its other copies lost with a killed process) to
     * the new round's, and the action would run before the last input's copy: tuples that input
     * sent before it (replayed after a ROLLBACK) would then run after it, counted twice.
     */
    private transient Map<TransactionRequest, Set<Integer>> arrivals;

    /** Sets up the checkpoint alignment for this task. */
    protected void init(TopologyContext context, OutputCollector collector) {
        this.collector = collector;
        this.checkpointInputTaskCount = StateChannel.checkpointInputTasks(context);
        this.taskId = context.getThisTaskId();
        this.transactionRequestCount = new HashMap<>();
        this.arrivals = new HashMap<>();
        this.lastTxid = Long.MIN_VALUE;
    }

    @Override
    public void execute(Tuple input) {
        if (CheckpointSpout.isCheckpoint(input)) {
            processCheckpoint(input);
        } else {
            handleTuple(input);
        }
    }

    private void processCheckpoint(Tuple input) {
        Action action = (Action) input.getValueByField(CheckpointSpout.CHECKPOINT_FIELD_ACTION);
        long txid = input.getLongByField(CheckpointSpout.CHECKPOINT_FIELD_TXID);
        if (!allInputsArrived(action, txid, input.getSourceTask())) {
            LOG.debug("Waiting for action {}, txid {} from all {} input tasks", action, txid,
                    checkpointInputTaskCount);
            collector.ack(input);
            return;
        }
        if (txid < lastTxid) {
            LOG.debug("Ignoring old transaction. Action {}, txid {}", action, txid);
            collector.ack(input);
            return;
        }
        long epoch = StateChannel.connectionEpoch();
        if (action == Action.PREPARE && StateChannel.effectivelyOnce() && cleanEpoch != epoch) {
            // Egret, effectively once: this JVM started or lost its stream manager since its
            // last ROLLBACK, so tuples ahead of this marker may be lost; the checkpoint must
            // not complete without them: fail it, and the checkpoint spout rolls back.
            LOG.info("Failing PREPARE {}: no rollback since this instance (re)connected", txid);
            collector.fail(input);
            return;
        }
        if (action == Action.PREPARE && StateChannel.effectivelyOnce() && StateChannel.abandoned(taskId, txid)) {
            // Egret, effectively once: this task gave up aligning the checkpoint (its inputs that
            // were ahead passed egret.checkpoint.alignment.bytes), so its state has tuples from
            // after the cut: the checkpoint must not complete.
            LOG.info("Failing PREPARE {}: its alignment passed egret.checkpoint.alignment.bytes", txid);
            collector.fail(input);
            return;
        }
        try {
            handleCheckpoint(input, action, txid);
            if (action == Action.ROLLBACK) {
                cleanEpoch = epoch;
            }
            lastTxid = action == Action.ROLLBACK ? txid - 1 : txid;
        } catch (Throwable th) {
            LOG.error("Got error while processing checkpoint tuple", th);
            collector.fail(input);
            collector.reportError(th);
        }
    }

    private boolean allInputsArrived(Action action, long txid, int sourceTask) {
        TransactionRequest request = new TransactionRequest(action, txid);
        if (StateChannel.effectivelyOnce()) {
            Set<Integer> from = arrivals.computeIfAbsent(request, r -> new HashSet<>());
            from.add(sourceTask);
            if (from.size() < checkpointInputTaskCount) {
                return false;
            }
            arrivals.remove(request);
            if (action == Action.ROLLBACK) {
                // Every input delivered the ROLLBACK after everything it sent before: what is
                // left here is from rounds the rollback ended, and must not count in the next.
                arrivals.clear();
            }
            return true;
        }
        int count = transactionRequestCount.merge(request, 1, Integer::sum);
        if (count >= checkpointInputTaskCount) {
            transactionRequestCount.remove(request);
            return true;
        }
        return false;
    }

    /** Declares the checkpoint stream this bolt forwards on. */
    protected void declareCheckpointStream(OutputFieldsDeclarer declarer) {
        declarer.declareStream(CheckpointSpout.CHECKPOINT_STREAM_ID,
                new Fields(CheckpointSpout.CHECKPOINT_FIELD_TXID, CheckpointSpout.CHECKPOINT_FIELD_ACTION));
    }

    /** Handles a checkpoint action, forwards it (anchored) and acks it, or fails it. */
    protected abstract void handleCheckpoint(Tuple checkpointTuple, Action action, long txid);

    protected abstract void handleTuple(Tuple input);

    private static final class TransactionRequest {
        private final Action action;
        private final long txid;

        TransactionRequest(Action action, long txid) {
            this.action = action;
            this.txid = txid;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof TransactionRequest)) {
                return false;
            }
            TransactionRequest that = (TransactionRequest) o;
            return txid == that.txid && action == that.action;
        }

        @Override
        public int hashCode() {
            return Objects.hash(action, txid);
        }
    }
}
