package dev.egret.instance;

import dev.egret.proto.InstanceAssignment;
import dev.egret.proto.PeerRole;
import dev.egret.proto.StreamManagerToInstance;
import dev.egret.wire.FrameChannel;
import dev.egret.wire.Handshake;
import java.io.EOFException;
import java.io.IOException;
import java.util.concurrent.BlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of one instance on an open connection to its stream manager: hello, wait for
 * the assignment, start the tasks, send ready, then run the executor until the
 * connection ends. Returns an exit code instead of exiting so it can run in tests.
 */
public final class Instance {
    private static final Logger LOG = LoggerFactory.getLogger(Instance.class);

    /** The connection to the stream manager ended (the instance must exit; the container restarts it). */
    public static final int EXIT_CONNECTION_LOST = 2;
    /** A task failed to start or user code threw. */
    public static final int EXIT_TASK_FAILED = 1;
    /** The handshake or the assignment was refused or malformed. */
    public static final int EXIT_BAD_SETUP = 3;

    private Instance() {
    }

    public static int run(FrameChannel channel, byte[] token, String instanceId) {
        InstanceAssignment assignment;
        try {
            Handshake.connect(channel, token, PeerRole.PEER_ROLE_INSTANCE, instanceId);
            assignment = awaitAssignment(channel);
        } catch (EOFException e) {
            LOG.error("The stream manager closed the connection before assigning instance {}; exiting", instanceId);
            return EXIT_CONNECTION_LOST;
        } catch (IOException e) {
            LOG.error("Could not set up instance {} with the stream manager: {}; exiting", instanceId, e.getMessage());
            return EXIT_BAD_SETUP;
        }

        TopologyView view;
        InstanceExecutor executor;
        try {
            view = new TopologyView(assignment.getTopology());
            Object maxFrame = view.topologyConf().get("egret.frame.max.bytes");
            if (maxFrame instanceof Number && ((Number) maxFrame).longValue() > 0) {
                channel.setMaxFrameBytes((int) Math.min(Integer.MAX_VALUE, ((Number) maxFrame).longValue()));
            }
            executor = new InstanceExecutor(view, assignment, channel::write);
        } catch (RuntimeException e) {
            LOG.error("Instance {} received an unusable assignment; exiting", instanceId, e);
            return EXIT_BAD_SETUP;
        }
        Thread.currentThread().setName(executor.component() + "-executor"
                + assignment.getInstance().getTaskIdsList());
        LOG.info("Instance {} of topology {} runs tasks {} of {} in container {}", instanceId, view.stormId(),
                assignment.getInstance().getTaskIdsList(), executor.component(), assignment.getContainerIndex());

        Thread reader = startReader(channel, executor.inbound(), instanceId);
        try {
            executor.start();
            executor.run();
            LOG.error("Connection to the stream manager closed; instance {} exits", instanceId);
            return EXIT_CONNECTION_LOST;
        } catch (InstanceExecutor.TaskFailure e) {
            LOG.error("{}; instance {} exits", e.getMessage(), instanceId, e.getCause());
            executor.errors().report(e.taskId, executor.component(),
                    e.getCause() != null ? e.getCause() : e, true);
            return EXIT_TASK_FAILED;
        } catch (OutboundSink.ConnectionLostException e) {
            LOG.error("{}; instance {} exits", e.getMessage(), instanceId);
            return EXIT_CONNECTION_LOST;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.error("Instance {} was interrupted; exiting", instanceId);
            return EXIT_CONNECTION_LOST;
        } finally {
            executor.shutdown();
            reader.interrupt();
            try {
                channel.close();
            } catch (IOException ignored) {
                // Already gone.
            }
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

    /** Reads frames into the bounded queue; blocks when it is full, so the socket pushes back on the SM. */
    private static Thread startReader(FrameChannel channel, BlockingQueue<Object> queue,
                                      String instanceId) {
        Thread t = new Thread(() -> {
            try {
                while (true) {
                    queue.put(channel.read(StreamManagerToInstance.parser()));
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
            try {
                queue.put(InstanceExecutor.END);
            } catch (InterruptedException ignored) {
                // Shutting down anyway.
            }
        }, "sm-reader");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
