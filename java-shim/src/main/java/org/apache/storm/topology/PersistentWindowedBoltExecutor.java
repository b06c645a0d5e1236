package org.apache.storm.topology;

import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.storm.Config;
import org.apache.storm.state.KeyValueState;
import org.apache.storm.state.State;
import org.apache.storm.state.StateFactory;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.base.BaseWindowedBolt.Count;
import org.apache.storm.topology.base.BaseWindowedBolt.Duration;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.windowing.DefaultEvictionContext;
import org.apache.storm.windowing.EventImpl;
import org.apache.storm.windowing.WindowLifecycleListener;
import org.apache.storm.windowing.persistence.WindowState;
import org.apache.storm.windowing.persistence.WindowState.WindowPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an {@link IStatefulWindowedBolt} whose window is kept in state
 * ({@code withPersistence()}), inside a {@link StatefulBoltExecutor}: the window's tuples
 * live in a {@link WindowState} (key-value states {@code <component>-<task>-window},
 * {@code -window-partitions} and {@code -window-systemstate}), checkpointed with the bolt's
 * own state, so a restart resumes the window instead of replaying it.
 *
 * <p>Each tuple is acked as it is added (the enclosing executor holds the ack until the
 * checkpoint that stores it commits); expiry acks nothing. Windows reach the bolt as
 * iterators ({@code TupleWindow.getIter()}); emits are not anchored, since the checkpoint
 * covers them. Tuples are refused until the state is initialized.
 */
public class PersistentWindowedBoltExecutor<T extends State> extends WindowedBoltExecutor implements IStatefulBolt<T> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(PersistentWindowedBoltExecutor.class);

    private final IStatefulWindowedBolt<T> statefulWindowedBolt;
    private transient OutputCollector outputCollector;
    private transient WindowState<Tuple> state;
    private transient boolean stateInitialized;
    private transient boolean prePrepared;
    private transient KeyValueState<String, Optional<?>> windowSystemState;

    public PersistentWindowedBoltExecutor(IStatefulWindowedBolt<T> bolt) {
        super(bolt);
        this.statefulWindowedBolt = bolt;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector) {
        Object registered = topoConf.get(Config.TOPOLOGY_STATE_KRYO_REGISTER);
        List<Object> registrations = registered instanceof List ? new ArrayList<>((List<Object>) registered)
                : new ArrayList<>();
        registrations.add(ConcurrentLinkedQueue.class.getName());
        registrations.add(LinkedList.class.getName());
        registrations.add(AtomicInteger.class.getName());
        registrations.add(EventImpl.class.getName());
        registrations.add(WindowPartition.class.getName());
        registrations.add(DefaultEvictionContext.class.getName());
        topoConf.put(Config.TOPOLOGY_STATE_KRYO_REGISTER, registrations);
        prepare(topoConf, context, collector, getWindowState(topoConf, context), getPartitionState(topoConf, context),
                getWindowSystemState(topoConf, context));
    }

    void prepare(Map<String, Object> topoConf, TopologyContext context, OutputCollector collector,
            KeyValueState<Long, WindowPartition<Tuple>> windowState, KeyValueState<String, Deque<Long>> partitionState,
            KeyValueState<String, Optional<?>> windowSystemState) {
        this.outputCollector = collector;
        this.windowSystemState = windowSystemState;
        this.state = new WindowState<>(windowState, partitionState, windowSystemState, this::getState,
                statefulWindowedBolt.maxEventsInMemory());
        doPrepare(topoConf, context, new NoAckOutputCollector(collector), state, true);
        restoreWindowSystemState();
    }

    private void restoreWindowSystemState() {
        Map<String, Optional<?>> map = new HashMap<>();
        for (Iterator<Map.Entry<String, Optional<?>>> it = windowSystemState.iterator(); it.hasNext(); ) {
            Map.Entry<String, Optional<?>> e = it.next();
            map.put(e.getKey(), e.getValue());
        }
        restoreState(map);
    }

    /** A persistent window is bounded by the checkpoint interval, not by the message timeout or pending count. */
    @Override
    protected void validate(Map<String, Object> topoConf, Count windowLengthCount, Duration windowLengthDuration,
            Count slidingIntervalCount, Duration slidingIntervalDuration) {
        if (windowLengthCount == null && windowLengthDuration == null) {
            throw new IllegalArgumentException("Window length is not specified");
        }
        int interval = getCheckpointIntervalMillis(topoConf);
        int timeout = getTopologyTimeoutMillis(topoConf);
        if (interval > timeout) {
            throw new IllegalArgumentException(Config.TOPOLOGY_STATE_CHECKPOINT_INTERVAL + interval
                    + " is more than " + Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS + " value " + timeout);
        }
    }

    private int getCheckpointIntervalMillis(Map<String, Object> topoConf) {
        Integer interval = intOrNull(topoConf, Config.TOPOLOGY_STATE_CHECKPOINT_INTERVAL);
        return interval == null ? Integer.MAX_VALUE : interval;
    }

    /** The policies start once the state is initialized. */
    @Override
    protected void start() {
        if (stateInitialized) {
            super.start();
        } else {
            LOG.debug("The window starts when the state is initialized");
        }
    }

    @Override
    public void execute(Tuple input) {
        if (!stateInitialized) {
            throw new IllegalStateException("execute invoked before initState with input tuple " + input);
        }
        super.execute(input);
        // The enclosing StatefulBoltExecutor sends the ack when the state that holds it commits.
        outputCollector.ack(input);
    }

    @Override
    public void initState(T state) {
        if (stateInitialized) {
            LOG.warn("State is already initialized. Ignoring initState");
            return;
        }
        synchronized (lock) {
            statefulWindowedBolt.initState(state);
            stateInitialized = true;
        }
        start();
    }

    @Override
    public void prePrepare(long txid) {
        if (stateInitialized) {
            synchronized (lock) {
                statefulWindowedBolt.prePrepare(txid);
                state.prepareCommit(txid);
                prePrepared = true;
            }
        } else {
            LOG.warn("Cannot prepare before initState");
        }
    }

    @Override
    public void preCommit(long txid) {
        // A commit can arrive during recovery, before the state is initialized.
        if (prePrepared || !stateInitialized) {
            synchronized (lock) {
                statefulWindowedBolt.preCommit(txid);
                state.commit(txid);
            }
        } else {
            LOG.debug("Ignoring a commit of txid {} that was not prepared", txid);
        }
    }

    @Override
    public void preRollback() {
        synchronized (lock) {
            statefulWindowedBolt.preRollback();
            state.rollback(stateInitialized);
            if (stateInitialized) {
                // The policies return to the committed window too.
                restoreWindowSystemState();
            }
        }
    }

    @Override
    protected WindowLifecycleListener<Tuple> newWindowLifecycleListener() {
        return new WindowLifecycleListener<Tuple>() {
            @Override
            public void onExpiry(List<Tuple> events) {
                // acked when added
            }

            @Override
            public void onActivation(Supplier<Iterator<Tuple>> eventsIt, Supplier<Iterator<Tuple>> newEventsIt,
                    Supplier<Iterator<Tuple>> expiredIt, Long timestamp) {
                // Unanchored: the next checkpoint covers what the bolt emits.
                boltExecute(eventsIt, newEventsIt, expiredIt, timestamp);
                state.clearIteratorPins();
            }
        };
    }

    @SuppressWarnings("unchecked")
    private KeyValueState<Long, WindowPartition<Tuple>> getWindowState(Map<String, Object> topoConf,
            TopologyContext context) {
        String namespace = context.getThisComponentId() + "-" + context.getThisTaskId() + "-window";
        return (KeyValueState<Long, WindowPartition<Tuple>>) StateFactory.getState(namespace, topoConf, context);
    }

    @SuppressWarnings("unchecked")
    private KeyValueState<String, Deque<Long>> getPartitionState(Map<String, Object> topoConf,
            TopologyContext context) {
        String namespace = context.getThisComponentId() + "-" + context.getThisTaskId() + "-window-partitions";
        return (KeyValueState<String, Deque<Long>>) StateFactory.getState(namespace, topoConf, context);
    }

    @SuppressWarnings("unchecked")
    private KeyValueState<String, Optional<?>> getWindowSystemState(Map<String, Object> topoConf,
            TopologyContext context) {
        String namespace = context.getThisComponentId() + "-" + context.getThisTaskId() + "-window-systemstate";
        return (KeyValueState<String, Optional<?>>) StateFactory.getState(namespace, topoConf, context);
    }

    /** Drops the window's acks of expired tuples: each tuple was acked when it was added. */
    private static final class NoAckOutputCollector extends OutputCollector {
        NoAckOutputCollector(OutputCollector delegate) {
            super(delegate);
        }

        @Override
        public void ack(Tuple input) {
            // acked in execute
        }
    }
}
