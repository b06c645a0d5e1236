package org.apache.storm.topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.storm.Config;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.state.KeyValueState;
import org.apache.storm.state.State;
import org.apache.storm.state.StateFactory;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.windowing.WindowLifecycleListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an {@link IStatefulWindowedBolt} whose windows live in memory, inside a
 * {@link StatefulBoltExecutor} (which holds acks until the checkpoint that covers them
 * commits). Tuples carry a message id (the long field named by
 * {@code topology.bolts.message.id.field.name}, {@code withMessageIdField}); for each source
 * task and stream, a key-value state ({@code <component>-<task>-window}) keeps the newest
 * id that expired and the newest that was evaluated, updated at each activation.
 *
 * <p>After a restart, that state says where the replay stands: a replayed tuple whose id
 * expired before is acked and dropped, one that was evaluated before goes back into the
 * window without an activation being due, and the first newer tuple on a task stream ends
 * its recovery (it and later ones wait until every task stream has recovered; the window's
 * policies start then). An activation during recovery is an error, as in Storm.
 */
public class StatefulWindowedBoltExecutor<T extends State> extends WindowedBoltExecutor implements IStatefulBolt<T> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(StatefulWindowedBoltExecutor.class);

    private final IStatefulWindowedBolt<T> statefulWindowedBolt;
    private transient String msgIdFieldName;
    private transient TopologyContext topologyContext;
    private transient OutputCollector outputCollector;
    private transient KeyValueState<TaskStream, WindowState> streamState;
    private transient List<Tuple> pendingTuples;
    private transient Map<TaskStream, WindowState> recoveryStates;
    private transient boolean stateInitialized;
    private transient boolean prePrepared;

    public StatefulWindowedBoltExecutor(IStatefulWindowedBolt<T> bolt) {
        super(bolt);
        this.statefulWindowedBolt = bolt;
    }

    @Override
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        prepare(topoConf, context, collector, getWindowState(topoConf, context));
    }

    void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector,
            KeyValueState<TaskStream, WindowState> windowState) {
        init(topoConf, context, collector, windowState);
        super.prepare(topoConf, context, collector);
    }

    private void init(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector,
            KeyValueState<TaskStream, WindowState> windowState) {
        Object field = topoConf.get(Config.TOPOLOGY_BOLTS_MESSAGE_ID_FIELD_NAME);
        if (field == null) {
            throw new IllegalArgumentException(Config.TOPOLOGY_BOLTS_MESSAGE_ID_FIELD_NAME + " is not set");
        }
        this.msgIdFieldName = field.toString();
        this.topologyContext = context;
        this.outputCollector = collector;
        this.streamState = windowState;
        this.pendingTuples = new ArrayList<>();
        this.recoveryStates = new HashMap<>();
        this.stateInitialized = false;
        this.prePrepared = false;
    }

    @Override
    public void execute(Tuple input) {
        if (!stateInitialized) {
            throw new IllegalStateException("execute invoked before initState with input tuple " + input);
        }
        if (isRecovering()) {
            handleRecovery(input);
        } else {
            super.execute(input);
        }
    }

    /** The policies start once the state is initialized and the replay has caught up. */
    @Override
    protected void start() {
        if (stateInitialized && !isRecovering()) {
            super.start();
        } else {
            LOG.debug("The window starts when the recovery is complete");
        }
    }

    private void handleRecovery(Tuple input) {
        long msgId = getMsgId(input);
        TaskStream taskStream = TaskStream.fromTuple(input);
        WindowState state = recoveryStates.get(taskStream);
        if (state == null) {
            pendingTuples.add(input);
        } else if (msgId <= state.lastExpired) {
            LOG.debug("Replayed tuple {} expired before the restart (last expired {}): acked", msgId,
                    state.lastExpired);
            outputCollector.ack(input);
        } else if (msgId <= state.lastEvaluated) {
            super.execute(input);
        } else {
            pendingTuples.add(input);
            clearRecoveryState(taskStream);
        }
    }

    private void clearRecoveryState(TaskStream stream) {
        recoveryStates.remove(stream);
        if (!isRecovering()) {
            super.start();
            LOG.debug("Recovery complete, processing {} pending tuples", pendingTuples.size());
            for (Tuple t : pendingTuples) {
                super.execute(t);
            }
            pendingTuples.clear();
        }
    }

    private boolean isRecovering() {
        return !recoveryStates.isEmpty();
    }

    @Override
    public void initState(T state) {
        if (stateInitialized) {
            LOG.warn("State is already initialized. Ignoring initState");
            return;
        }
        synchronized (lock) {
            statefulWindowedBolt.initState(state);
            for (GlobalStreamId streamId : topologyContext.getThisSources().keySet()) {
                for (int taskId : topologyContext.getComponentTasks(streamId.get_componentId())) {
                    TaskStream ts = new TaskStream(taskId, streamId);
                    WindowState saved = streamState.get(ts);
                    if (saved != null) {
                        recoveryStates.put(ts, saved);
                    }
                }
            }
            LOG.debug("Recovery states {}", recoveryStates);
            stateInitialized = true;
        }
        start();
    }

    @Override
    public void preCommit(long txid) {
        statefulWindowedBolt.preCommit(txid);
        if (!stateInitialized || (!isRecovering() && prePrepared)) {
            streamState.commit(txid);
        } else {
            LOG.debug("Still recovering: the window state of txid {} is not committed", txid);
        }
    }

    @Override
    public void prePrepare(long txid) {
        if (!stateInitialized) {
            LOG.warn("Cannot prepare before initState");
        } else if (!isRecovering()) {
            statefulWindowedBolt.prePrepare(txid);
            streamState.prepareCommit(txid);
            prePrepared = true;
        } else {
            statefulWindowedBolt.prePrepare(txid);
            LOG.debug("Still recovering: the window state of txid {} is not prepared", txid);
        }
    }

    @Override
    public void preRollback() {
        statefulWindowedBolt.preRollback();
        streamState.rollback();
    }

    @Override
    protected WindowLifecycleListener<Tuple> newWindowLifecycleListener() {
        WindowLifecycleListener<Tuple> parent = super.newWindowLifecycleListener();
        return new WindowLifecycleListener<Tuple>() {
            @Override
            public void onExpiry(List<Tuple> events) {
                parent.onExpiry(events);
            }

            @Override
            public void onActivation(List<Tuple> events, List<Tuple> newEvents, List<Tuple> expired,
                    Long timestamp) {
                if (isRecovering()) {
                    String msg = String.format("Unexpected activation with events %s, newEvents %s, expired %s in"
                            + " recovering state. recoveryStates %s ", events, newEvents, expired, recoveryStates);
                    LOG.error(msg);
                    throw new IllegalStateException(msg);
                }
                parent.onActivation(events, newEvents, expired, timestamp);
                updateWindowState(expired, newEvents);
            }
        };
    }

    private void updateWindowState(List<Tuple> expiredTuples, List<Tuple> newTuples) {
        Map<TaskStream, WindowState> update = new HashMap<>();
        for (Tuple t : expiredTuples) {
            update.merge(TaskStream.fromTuple(t), new WindowState(getMsgId(t), Long.MIN_VALUE), WindowState::max);
        }
        for (Tuple t : newTuples) {
            update.merge(TaskStream.fromTuple(t), new WindowState(Long.MIN_VALUE, getMsgId(t)), WindowState::max);
        }
        for (Map.Entry<TaskStream, WindowState> e : update.entrySet()) {
            WindowState current = streamState.get(e.getKey());
            streamState.put(e.getKey(), current == null ? e.getValue() : WindowState.max(current, e.getValue()));
        }
    }

    private long getMsgId(Tuple input) {
        return input.getLongByField(msgIdFieldName);
    }

    @SuppressWarnings("unchecked")
    private KeyValueState<TaskStream, WindowState> getWindowState(Map<String, Object> topoConf,
            TopologyContext context) {
        String namespace = context.getThisComponentId() + "-" + context.getThisTaskId() + "-window";
        return (KeyValueState<TaskStream, WindowState>) StateFactory.getState(namespace, topoConf, context);
    }

    /** The newest message ids of a task stream that expired and that were evaluated. */
    static class WindowState {
        private long lastExpired;
        private long lastEvaluated;

        WindowState() {
        }

        WindowState(long lastExpired, long lastEvaluated) {
            this.lastExpired = lastExpired;
            this.lastEvaluated = lastEvaluated;
        }

        static WindowState max(WindowState a, WindowState b) {
            return new WindowState(Math.max(a.lastExpired, b.lastExpired), Math.max(a.lastEvaluated, b.lastEvaluated));
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof WindowState)) {
                return false;
            }
            WindowState that = (WindowState) o;
            return lastExpired == that.lastExpired && lastEvaluated == that.lastEvaluated;
        }

        @Override
        public int hashCode() {
            return Objects.hash(lastExpired, lastEvaluated);
        }

        @Override
        public String toString() {
            return "WindowState{lastExpired=" + lastExpired + ", lastEvaluated=" + lastEvaluated + "}";
        }
    }

    /** A source task and the stream its tuples came on. */
    static class TaskStream {
        private int sourceTask;
        private GlobalStreamId streamId;

        TaskStream() {
        }

        TaskStream(int sourceTask, GlobalStreamId streamId) {
            this.sourceTask = sourceTask;
            this.streamId = streamId;
        }

        static TaskStream fromTuple(Tuple tuple) {
            return new TaskStream(tuple.getSourceTask(), tuple.getSourceGlobalStreamId());
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof TaskStream)) {
                return false;
            }
            TaskStream that = (TaskStream) o;
            return sourceTask == that.sourceTask && Objects.equals(streamId, that.streamId);
        }

        @Override
        public int hashCode() {
            return Objects.hash(sourceTask, streamId);
        }

        @Override
        public String toString() {
            return "TaskStream{sourceTask=" + sourceTask + ", streamId=" + streamId + "}";
        }
    }
}
