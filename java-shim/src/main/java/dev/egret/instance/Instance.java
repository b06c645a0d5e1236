package dev.egret.instance;

import dev.egret.proto.InstanceAssignment;
import dev.egret.proto.InstanceToStreamManager;
import dev.egret.proto.PeerRole;
import dev.egret.proto.StreamManagerToInstance;
import dev.egret.wire.FrameBuffer;
import dev.egret.wire.FrameChannel;
import dev.egret.wire.Handshake;
import dev.egret.wire.HandshakeException;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of one instance: connect to the stream manager, hello, wait for the assignment,
 * start the tasks, send ready, then run the executor. When the connection drops (the stream
 * manager died and its container restarts it) the instance keeps its tasks (no new
 * open/prepare), reconnects with backoff for up to the reconnect window (hello, the
 * assignment again, which must name the same instance and tasks, ready), fails the spout
 * trees pending before (the new ledger does not know them) and resumes; entries buffered
 * but not written are lost. It exits when it cannot reconnect in time. Returns an exit code
 * instead of exiting so it can run in tests.
 *
 * <p>Threads: the calling thread is the executor thread and also does the reconnecting, so
 * no user callback runs while disconnected; one reader thread per connection feeds the
 * executor's inbound queue (bounded in bytes: it blocks when full, so the socket pushes
 * back) and ends with {@link InstanceExecutor#END}. The executor only reconnects after
 * consuming that END, so a new reader never races an old one. The {@link OutboundSink}'s
 * writer thread does every write. User threads that emit while disconnected are not
 * blocked: the sink discards their entries.
 */
public final class Instance {
    private static final Logger LOG = LoggerFactory.getLogger(Instance.class);

    /** The stream manager could not be reached within the reconnect window (the container restarts the instance). */
    public static final int EXIT_CONNECTION_LOST = 2;
    /** A task failed to start or user code threw. */
    public static final int EXIT_TASK_FAILED = 1;
    /** The handshake or the assignment was refused or malformed. */
    public static final int EXIT_BAD_SETUP = 3;

    /** How long an instance tries to reconnect to its stream manager before exiting. */
    public static final long RECONNECT_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** How long an instance that failed waits for its error report to be written. */
    private static final long ERROR_FLUSH_NANOS = TimeUnit.SECONDS.toNanos(5);
    /**
     * Inbound frame buffers a connection keeps for reuse, and the largest array kept: enough
     * for the frames its bounded input queue holds at a time under load; a rare larger frame's
     * array is let go after use.
     */
    private static final int POOLED_FRAMES = 8;
    private static final int POOLED_FRAME_BYTES = 256 * 1024;
    private static final int FIRST_FRAME_BYTES = 4 * 1024;

    /** Opens a new connection to the stream manager. */
    @FunctionalInterface
    public interface Connector {
        FrameChannel connect() throws IOException;
    }

    /** The resolved frame cap the container gives the instance JVM (contracts.md, "Instance JVMs"). */
    public static final String FRAME_MAX_BYTES_ENV = "EGRET_FRAME_MAX_BYTES";

    private Instance() {
    }

    /** Runs on an already open connection, without reconnecting (tests). */
    public static int run(FrameChannel channel, byte[] token, String instanceId) {
        AtomicBoolean used = new AtomicBoolean();
        return run(() -> {
            if (used.getAndSet(true)) {
                throw new IOException("no reconnect");
            }
            return channel;
        }, token, instanceId, 0L);
    }

    /**
     * Runs the instance, connecting with {@code connector}; the first connection and every
     * reconnect are retried for up to {@code reconnectWindowNanos}. A null {@code token}
     * means the connector's channels need no hello: they are made in-process for this
     * executor (the JNI bridge, {@link JniHost}).
     */
    public static int run(Connector connector, byte[] token, String instanceId, long reconnectWindowNanos) {
        Session first;
        try {
            first = connect(connector, token, instanceId, System.nanoTime() + reconnectWindowNanos, false);
        } catch (HandshakeException e) {
            LOG.error("The stream manager refused instance {}: {}; exiting", instanceId, e.getMessage());
            return EXIT_BAD_SETUP;
        }
        if (first == null) {
            LOG.error("Could not connect instance {} to its stream manager; exiting", instanceId);
            return EXIT_CONNECTION_LOST;
        }
        FrameChannel channel = first.channel;
        InstanceAssignment assignment = first.assignment;
        CodeDir.prepare(assignment.getWorkDir()); // the jar's resources/ for multilang, in the background
        applyLogLevels(assignment.getLogLevelsList());

        TopologyView view;
        InstanceExecutor executor;
        try {
            view = new TopologyView(assignment);
            applyFrameCap(channel, assignment);
            executor = new InstanceExecutor(view, assignment, writerOf(channel));
            LOG.info("Resolved settings: {}", executor.describeSettings(channel.maxFrameBytes()));
        } catch (RuntimeException e) {
            LOG.error("Instance {} received an unusable assignment; exiting", instanceId, e);
            closeQuietly(channel);
            return EXIT_BAD_SETUP;
        }
        Thread.currentThread().setName(executor.component() + "-executor"
                + assignment.getInstance().getTaskIdsList());
        LOG.info("Instance {} of topology {} runs tasks {} of {} in container {}", instanceId, view.stormId(),
                assignment.getInstance().getTaskIdsList(), executor.component(), assignment.getContainerIndex());

        StateChannel state = new StateChannel(executor.sink(), executor.inbound());
        StateChannel.install(state);
        Thread reader = startInput(channel, executor, state, instanceId);
        try {
            executor.start();
            while (true) {
                executor.run();
                // The reader saw the end of the connection (or a failed write closed it).
                closeQuietly(channel);
                if (reader != null) {
                    reader.join(TimeUnit.SECONDS.toMillis(5));
                }
                long dropped = executor.sink().disconnect();
                LOG.warn("Instance {} lost its connection to the stream manager ({} outgoing tuples and acks"
                        + " dropped); reconnecting for up to {} s", instanceId, dropped,
                        TimeUnit.NANOSECONDS.toSeconds(reconnectWindowNanos));
                Session s;
                try {
                    s = connect(connector, token, instanceId, System.nanoTime() + reconnectWindowNanos, true);
                } catch (HandshakeException e) {
                    // connect() retries refusals; this is not reached, but fail closed.
                    s = null;
                }
                if (s == null) {
                    LOG.error("Instance {} could not reconnect to the stream manager within {} s; exiting",
                            instanceId, TimeUnit.NANOSECONDS.toSeconds(reconnectWindowNanos));
                    return EXIT_CONNECTION_LOST;
                }
                channel = s.channel;
                String mismatch = mismatch(assignment, s.assignment);
                if (mismatch != null) {
                    LOG.error("Instance {} reconnected but the stream manager assigned {}; exiting so the"
                            + " container restarts it", instanceId, mismatch);
                    closeQuietly(channel);
                    return EXIT_BAD_SETUP;
                }
                applyFrameCap(channel, s.assignment);
                long lost = executor.sink().disconnect();
                executor.sink().connect(writerOf(channel));
                reader = startInput(channel, executor, state, instanceId);
                LOG.info("Instance {} reconnected to the stream manager ({} outgoing entries lost in all)",
                        instanceId, lost);
                executor.onReconnected(s.assignment.getState());
                executor.setEventSampling(s.assignment.getEventSamplingPct());
                applyLogLevels(s.assignment.getLogLevelsList());
            }
        } catch (InstanceExecutor.TaskFailure e) {
            LOG.error("{}; instance {} exits", e.getMessage(), instanceId, e.getCause());
            executor.errors().report(e.taskId, executor.component(),
                    e.getCause() != null ? e.getCause() : e, true);
            try {
                // The writer thread sends the error; give it a moment before the connection closes.
                if (!executor.sink().awaitWritten(ERROR_FLUSH_NANOS)) {
                    LOG.warn("Instance {} could not send its error to the stream manager in time", instanceId);
                }
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
            return EXIT_TASK_FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.error("Instance {} was interrupted; exiting", instanceId);
            return EXIT_CONNECTION_LOST;
        } finally {
            executor.shutdown();
            if (reader != null) {
                reader.interrupt();
            }
            closeQuietly(channel);
        }
    }

    /** An open connection that has been through the hello and received its assignment. */
    private static final class Session {
        final FrameChannel channel;
        final InstanceAssignment assignment;

        Session(FrameChannel channel, InstanceAssignment assignment) {
            this.channel = channel;
            this.assignment = assignment;
        }
    }

    /** Storm's dynamic log levels: the topology's entries replace this JVM's previous ones. */
    private static void applyLogLevels(java.util.List<dev.egret.proto.LoggerLevel> entries) {
        java.util.Map<String, String> levels = new java.util.TreeMap<>();
        for (dev.egret.proto.LoggerLevel e : entries) {
            levels.put(e.getLogger(), e.getLevel());
        }
        dev.egret.logging.LogLevels.apply(levels);
    }

    private static ScheduledExecutorService watchdogs;

    private static synchronized ScheduledExecutorService watchdogs() {
        if (watchdogs == null) {
            watchdogs = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "sm-connect-watchdog");
                t.setDaemon(true);
                return t;
            });
        }
        return watchdogs;
    }

    /**
     * Connects, says hello and waits for the assignment, retrying with backoff until
     * {@code deadline}. With {@code bounded}, a stream manager that accepts but does not
     * answer in time is given up on at the deadline (the connection is closed under the
     * blocked read); the first connection waits for its assignment as long as it takes
     * (the stream manager waits for the physical plan). Returns null when out of time.
     *
     * @throws HandshakeException when the first connection's hello is refused (the token
     *     is wrong: retrying cannot help); refusals while reconnecting are retried
     */
    private static Session connect(Connector connector, byte[] token, String instanceId, long deadline,
                                   boolean bounded) throws HandshakeException {
        long backoff = FIRST_BACKOFF_NANOS;
        int attempt = 0;
        while (true) {
            attempt++;
            FrameChannel ch = null;
            ScheduledFuture<?> watchdog = null;
            try {
                ch = connector.connect();
                if (bounded) {
                    FrameChannel toClose = ch;
                    long left = Math.max(1, deadline - System.nanoTime());
                    watchdog = watchdogs().schedule(() -> closeQuietly(toClose), left, TimeUnit.NANOSECONDS);
                }
                if (token != null) {
                    Handshake.connect(ch, token, PeerRole.PEER_ROLE_INSTANCE, instanceId);
                }
                InstanceAssignment assignment = awaitAssignment(ch);
                if (watchdog != null && !watchdog.cancel(false)) {
                    throw new IOException("timed out waiting for the assignment");
                }
                if (attempt > 1 || bounded) {
                    LOG.info("Instance {} connected to the stream manager (attempt {})", instanceId, attempt);
                }
                return new Session(ch, assignment);
            } catch (HandshakeException e) {
                closeQuietly(ch);
                if (!bounded) {
                    throw e;
                }
                LOG.warn("The stream manager refused instance {}: {}; retrying", instanceId, e.getMessage());
            } catch (IOException e) {
                closeQuietly(ch);
                String why = e instanceof EOFException ? "the stream manager closed the connection" : e.getMessage();
                if (attempt == 1 || attempt % 10 == 0) {
                    LOG.info("Instance {} could not connect to the stream manager: {}; retrying", instanceId, why);
                }
            } finally {
                if (watchdog != null) {
                    watchdog.cancel(false);
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            try {
                TimeUnit.NANOSECONDS.sleep(Math.min(backoff, left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
            backoff = Math.min(backoff * 2, MAX_BACKOFF_NANOS);
        }
    }

    /** Null when {@code now} gives this instance the same work as {@code first}, else what differs. */
    static String mismatch(InstanceAssignment first, InstanceAssignment now) {
        if (!first.getTopology().getId().equals(now.getTopology().getId())) {
            return "topology " + now.getTopology().getId() + " instead of " + first.getTopology().getId();
        }
        if (!first.getInstance().getInstanceId().equals(now.getInstance().getInstanceId())
                || !first.getInstance().getComponent().equals(now.getInstance().getComponent())) {
            return "instance " + now.getInstance().getInstanceId() + " of " + now.getInstance().getComponent();
        }
        List<Integer> a = new ArrayList<>(first.getInstance().getTaskIdsList());
        List<Integer> b = new ArrayList<>(now.getInstance().getTaskIdsList());
        Collections.sort(a);
        Collections.sort(b);
        if (!a.equals(b)) {
            return "tasks " + b + " instead of " + a;
        }
        return null;
    }

    /**
     * The assignment's resolved frame cap ({@code egret.frame.max.bytes}); the same value the
     * container gave in {@code EGRET_FRAME_MAX_BYTES}, in force until now.
     */
    private static void applyFrameCap(FrameChannel channel, InstanceAssignment assignment) {
        int cap = InstanceExecutor.settingsOf(assignment).getFrameMaxBytes();
        if (cap < FrameChannel.HELLO_MAX_BYTES) {
            throw new IllegalArgumentException("the assignment's frame cap " + Integer.toUnsignedString(cap)
                    + " is not from 4096 to 2147483647");
        }
        if (cap != channel.maxFrameBytes()) {
            LOG.warn("The assignment's frame cap {} differs from {}={}; using the assignment's", cap,
                    FRAME_MAX_BYTES_ENV, channel.maxFrameBytes());
        }
        channel.setMaxFrameBytes(cap);
    }

    private static OutboundSink.FrameWriter writerOf(FrameChannel channel) {
        return new OutboundSink.FrameWriter() {
            @Override
            public void write(InstanceToStreamManager message) throws IOException {
                channel.write(message);
            }

            @Override
            public void writeEncoded(byte[] frame, int bodyOffset, int bodyLength) throws IOException {
                channel.writeEncoded(frame, bodyOffset, bodyLength);
            }

            @Override
            public boolean tryWriteEncoded(byte[] frame, int bodyOffset, int bodyLength) throws IOException {
                return channel.tryWriteEncoded(frame, bodyOffset, bodyLength);
            }

            @Override
            public void close() {
                closeQuietly(channel);
            }
        };
    }

    private static void closeQuietly(FrameChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // Already gone.
        }
    }

    private static InstanceAssignment awaitAssignment(FrameChannel channel) throws IOException {
        while (true) {
            StreamManagerToInstance m = channel.read(StreamManagerToInstance.parser());
            if (m.getMessageCase() == StreamManagerToInstance.MessageCase.ASSIGNMENT) {
                return m.getAssignment();
            }
            LOG.warn("Ignoring a {} message received before the assignment", m.getMessageCase());
        }
    }

    /**
     * Starts the executor's input on a new connection: with the JNI bridge the executor reads
     * its own frames ({@link DirectInbound}; null returned), over a socket a reader thread
     * queues them (returned).
     */
    private static Thread startInput(FrameChannel channel, InstanceExecutor executor, StateChannel state,
            String instanceId) {
        if (channel instanceof JniFrameChannel) {
            DirectInbound direct = new DirectInbound((JniFrameChannel) channel, executor.inbound(), state, instanceId,
                    new FrameBuffer.Pool(POOLED_FRAMES, POOLED_FRAME_BYTES, FIRST_FRAME_BYTES));
            state.readsWith(direct);
            executor.readDirectly(direct);
            return null;
        }
        state.readsWith(null);
        executor.readDirectly(null);
        return startReader(channel, executor.inbound(), instanceId);
    }

    /**
     * What a frame read from the stream manager is for the executor: the frame itself when it
     * carries tuples or tree events (they stay bytes until the executor handles them, which
     * gives the buffer back: a queued frame is one reused array, not an object per tuple, event
     * and field), else the parsed message; null when it was handled here: log levels (applied
     * at once, not behind tuples: a busy executor still gets them) and a state reply (handed to
     * the call waiting for it on {@code state}, never queued behind what its thread is not
     * reading). An {@link IOException} naming the problem when the frame is malformed.
     */
    static Object route(FrameBuffer frame, StateChannel state) throws IOException {
        byte[] bytes = frame.array();
        int length = frame.length();
        if (InboundBatch.carriesTuples(bytes, length) || InboundTreeEvents.carriesTreeEvents(bytes, length)) {
            return frame;
        }
        StreamManagerToInstance m;
        try {
            m = StreamManagerToInstance.parseFrom(java.nio.ByteBuffer.wrap(bytes, 0, length));
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IOException("malformed frame of " + length + " bytes: " + e.getMessage(), e);
        } finally {
            frame.release();
        }
        if (m.getMessageCase() == StreamManagerToInstance.MessageCase.LOG_LEVELS) {
            applyLogLevels(m.getLogLevels().getLevelsList());
            return null;
        }
        if (m.getMessageCase() == StreamManagerToInstance.MessageCase.STATE_REPLY) {
            if (state != null) {
                state.deliver(m.getStateReply());
            }
            return null;
        }
        return m;
    }

    /**
     * Reads frames into the bounded queue, each counted by its frame size; blocks when the
     * queue is full, so the socket pushes back on the stream manager.
     */
    private static Thread startReader(FrameChannel channel, InboundQueue queue, String instanceId) {
        Thread t = new Thread(() -> {
            try {
                FrameBuffer.Pool buffers = new FrameBuffer.Pool(POOLED_FRAMES, POOLED_FRAME_BYTES, FIRST_FRAME_BYTES);
                while (true) {
                    FrameBuffer frame = buffers.take();
                    channel.readFrame(frame);
                    int length = frame.length();
                    Object m = route(frame, StateChannel.current());
                    if (m != null) {
                        queue.put(m, length + FrameChannel.LENGTH_BYTES);
                    }
                }
            } catch (EOFException e) {
                LOG.info("The stream manager closed the connection of instance {}", instanceId);
            } catch (IOException e) {
                if (channel.isOpen()) {
                    LOG.error("Reading from the stream manager failed for instance {}: {}", instanceId, e.getMessage());
                }
            } catch (InterruptedException e) {
                return;
            }
            StateChannel lostState = StateChannel.current();
            if (lostState != null) {
                lostState.connectionLost();
            }
            try {
                queue.put(InstanceExecutor.END, 0);
            } catch (InterruptedException ignored) {
                // Shutting down anyway.
            }
        }, "sm-reader");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
