package org.apache.storm.spout;

import dev.egret.instance.StateChannel;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.state.KeyValueState;
import org.apache.storm.state.StateFactory;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives the checkpoints of a topology with stateful bolts (added by
 * {@link org.apache.storm.topology.TopologyBuilder} as {@code $checkpointspout}): it emits
 * one action at a time on {@code $checkpoint} (fields txid, action), tracked, and moves
 * on when the whole topology acked it. After start and after any failed checkpoint it
 * recovers (ROLLBACK of a prepared transaction or COMMIT of a committing one, then
 * INITSTATE); otherwise, every {@code topology.state.checkpoint.interval.ms} (default 1 s),
 * a PREPARE then a COMMIT. As in Storm, each action's message id is its txid (a {@code Long}),
 * and a topology that never checkpointed starts from txid -1 (its first INITSTATE carries -1,
 * its first PREPARE 0). Its own transaction is kept in a state of namespace
 * {@code $checkpointspout}.
 */
public class CheckpointSpout extends BaseRichSpout {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointSpout.class);

    public static final String CHECKPOINT_STREAM_ID = "$checkpoint";
    public static final String CHECKPOINT_COMPONENT_ID = "$checkpointspout";
    public static final String CHECKPOINT_FIELD_TXID = "txid";
    public static final String CHECKPOINT_FIELD_ACTION = "action";
    private static final String TX_STATE_KEY = "__state";
    private static final int DEFAULT_CHECKPOINT_INTERVAL_MS = 1000;

    private transient SpoutOutputCollector collector;
    private transient KeyValueState<String, CheckPointState> checkpointState;
    private transient CheckPointState curTxState;
    private transient long checkpointIntervalMs;
    private transient long lastCheckpointMs;
    private transient boolean recovering;
    private transient boolean inProgress;
    /** The action in flight; acks and fails of another txid are stale. */
    private transient CheckPointState.Action pendingAction;
    private transient long pendingTxid;

    public CheckpointSpout() {
    }

    public static boolean isCheckpoint(Tuple input) {
        return CHECKPOINT_STREAM_ID.equals(input.getSourceStreamId());
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
        Object interval = conf.get(Config.TOPOLOGY_STATE_CHECKPOINT_INTERVAL);
        int ms = interval instanceof Number ? ((Number) interval).intValue() : DEFAULT_CHECKPOINT_INTERVAL_MS;
        open(context, collector, ms,
                (KeyValueState<String, CheckPointState>) StateFactory.getState(CHECKPOINT_COMPONENT_ID, conf, context));
    }

    void open(TopologyContext context, SpoutOutputCollector collector, int checkpointIntervalMs,
            KeyValueState<String, CheckPointState> checkpointState) {
        this.collector = collector;
        this.checkpointIntervalMs = Math.max(1, checkpointIntervalMs);
        this.checkpointState = checkpointState;
        this.curTxState = checkpointState.get(TX_STATE_KEY, new CheckPointState(-1, CheckPointState.State.COMMITTED));
        this.recovering = true;
        this.inProgress = false;
        this.lastCheckpointMs = 0;
        LOG.info("Checkpoint spout: interval {} ms, starting from {}", this.checkpointIntervalMs, curTxState);
    }

    @Override
    public void nextTuple() {
        if (inProgress) {
            return;
        }
        long now = System.currentTimeMillis();
        if (!recovering && curTxState.getState() == CheckPointState.State.COMMITTED
                && now - lastCheckpointMs < checkpointIntervalMs) {
            return;
        }
        CheckPointState.Action action = curTxState.nextAction(recovering);
        long txid = curTxState.nextTxid(recovering);
        if (action == CheckPointState.Action.PREPARE && curTxState.getState() == CheckPointState.State.COMMITTED) {
            // Record the transaction as preparing before any bolt prepares it.
            saveTxState(new CheckPointState(txid, CheckPointState.State.PREPARING));
            lastCheckpointMs = now;
        }
        pendingAction = action;
        pendingTxid = txid;
        inProgress = true;
        LOG.debug("Emitting checkpoint action {}, txid {}", action, txid);
        collector.emit(CHECKPOINT_STREAM_ID, new Values(txid, action), txid);
    }

    @Override
    public void ack(Object msgId) {
        if (!isPending(msgId)) {
            LOG.debug("Ignoring a stale checkpoint ack {}", msgId);
            return;
        }
        LOG.debug("Checkpoint action {} acked, txid {}", pendingAction, pendingTxid);
        if (pendingAction == CheckPointState.Action.INITSTATE) {
            recovering = false;
        } else if (pendingAction == CheckPointState.Action.PREPARE
                && curTxState.getState() == CheckPointState.State.PREPARING) {
            saveTxState(new CheckPointState(pendingTxid, CheckPointState.State.COMMITTING));
        } else {
            if (pendingAction == CheckPointState.Action.COMMIT) {
                // Egret: every task has committed pendingTxid (its COMMIT tree is acked): the
                // checkpoint is complete in the store, before the spout records it committed.
                StateChannel channel = StateChannel.current();
                if (channel != null) {
                    channel.complete(pendingTxid);
                }
            }
            saveTxState(curTxState.afterAck(pendingAction));
        }
        inProgress = false;
    }

    @Override
    public void fail(Object msgId) {
        if (!isPending(msgId)) {
            LOG.debug("Ignoring a stale checkpoint fail {}", msgId);
            return;
        }
        LOG.info("Checkpoint action {} failed, txid {}; recovering", pendingAction, pendingTxid);
        recovering = true;
        inProgress = false;
    }

    /** Whether {@code msgId} is the txid of the action in flight. */
    private boolean isPending(Object msgId) {
        return inProgress && msgId instanceof Number && ((Number) msgId).longValue() == pendingTxid;
    }

    private void saveTxState(CheckPointState state) {
        curTxState = state;
        checkpointState.put(TX_STATE_KEY, state);
        checkpointState.commit();
    }

    @Override
    public void declareOutputFields(OutputFieldsDeclarer declarer) {
        declarer.declareStream(CHECKPOINT_STREAM_ID, new Fields(CHECKPOINT_FIELD_TXID, CHECKPOINT_FIELD_ACTION));
    }
}
