package dev.egret.instance;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntSupplier;
import org.apache.storm.spout.CheckPointState.Action;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Effectively once with {@code egret.checkpoint.alignment.bytes} above 0 (docs/reliability.md,
 * "Effectively once"): one bolt task's alignment of a checkpoint's PREPARE markers.
 *
 * <p>The data spouts keep emitting after they forward a PREPARE, so a task with several input
 * tasks gets the marker from some of them first. From then until the marker has come from every
 * input task, the tuples of the inputs that are ahead (their marker arrived) are held here, and
 * the others run: the task's snapshot at the last marker holds exactly the tuples before the cut
 * on every input. Then the held tuples run, in the order they came.
 *
 * <p>The held tuples are bounded by their size on the wire. When one more would pass the bound,
 * the task gives up aligning this checkpoint: it runs what it held and everything after it as it
 * comes, and fails the PREPARE when its last copy arrives (through {@link StateChannel#abandon}),
 * so the checkpoint never completes; the checkpoint spout rolls every task back to the last
 * complete one and the spouts replay, pausing at the next PREPARE (so that one completes without
 * buffering). A ROLLBACK arriving while a checkpoint is aligned fails the held tuples (their
 * trees are replayed after it) and ends the alignment.
 *
 * <p>{@code T} is the tuple type (the instance's {@code TupleImpl}). Runs on the executor
 * thread only.
 */
final class MarkerAlignment<T> {
    private static final Logger LOG = LoggerFactory.getLogger(MarkerAlignment.class);

    private final String name;
    private final int taskId;
    private final int inputs;
    private final long maxBytes;
    /** The PREPARE being aligned; meaningful while {@link #arrived} is not empty. */
    private long txid;
    private final Set<Integer> arrived = new HashSet<>();
    private List<T> held = new ArrayList<>();
    private long heldBytes;
    /** This checkpoint's alignment passed the bound: nothing more is held for it. */
    private boolean abandoned;
    /** The most bytes held at once in this alignment, and the tuples then. */
    private long peakBytes;
    private int peakTuples;
    /** The most bytes held at once in any alignment so far (logged when an alignment passes it). */
    private long mostHeldBytes;
    /** Held tuples to run before the tuple or marker at hand (see {@link #takeReleased()}). */
    private List<T> released = List.of();

    /**
     * @param inputs the task's input tasks on {@code $checkpoint}
     * @param maxBytes the bound on the held tuples' bytes on the wire
     */
    MarkerAlignment(String name, int taskId, int inputs, long maxBytes) {
        this.name = name;
        this.taskId = taskId;
        this.inputs = inputs;
        this.maxBytes = maxBytes;
    }

    /**
     * A data tuple from {@code sourceTask} of {@code sizeOnWire} bytes (asked only when the
     * tuple's input is ahead): true when it is held (its input is ahead of the
     * marker being aligned). False: run what {@link #takeReleased()} returns (the held tuples,
     * when holding this one would have passed the bound), then this one.
     */
    boolean hold(T tuple, int sourceTask, IntSupplier sizeOnWire) {
        if (arrived.isEmpty() || abandoned || !arrived.contains(sourceTask)) {
            return false;
        }
        int bytes = sizeOnWire.getAsInt();
        if (heldBytes + bytes > maxBytes) {
            LOG.warn("Effectively once: {} gives up aligning checkpoint {}: its inputs that are ahead "
                            + "would hold more than egret.checkpoint.alignment.bytes ({} bytes; {} tuples held); "
                            + "the checkpoint fails and the topology rolls back to the last complete one",
                    name, txid, maxBytes, held.size());
            abandoned = true;
            StateChannel.abandon(taskId, txid);
            released = held;
            held = new ArrayList<>();
            heldBytes = 0;
            return false;
        }
        held.add(tuple);
        heldBytes += bytes;
        if (heldBytes > peakBytes) {
            peakBytes = heldBytes;
            peakTuples = held.size();
        }
        return true;
    }

    /**
     * A checkpoint action from {@code sourceTask}, before the bolt sees it. Returns the tuples
     * to fail now (a ROLLBACK ends an alignment: what it held is replayed); then run what
     * {@link #takeReleased()} returns, then the marker.
     */
    List<T> beforeMarker(Action action, long markerTxid, int sourceTask) {
        if (action == Action.ROLLBACK && !arrived.isEmpty()) {
            List<T> failed = held;
            reset();
            return failed;
        }
        if (action != Action.PREPARE) {
            return List.of();
        }
        if (!arrived.isEmpty() && markerTxid != txid) {
            // A PREPARE of another checkpoint: the one aligned was given up upstream.
            LOG.info("Effectively once: {} stops aligning checkpoint {} at a PREPARE of {}", name, txid,
                    markerTxid);
            released = held;
            reset();
        }
        if (arrived.isEmpty()) {
            txid = markerTxid;
        }
        arrived.add(sourceTask);
        return List.of();
    }

    /** Held tuples that run now, before the tuple or marker just given (usually none). */
    List<T> takeReleased() {
        List<T> out = released;
        released = List.of();
        return out;
    }

    /**
     * After the bolt ran a PREPARE: when it was the last input's, the alignment is over and the
     * held tuples are returned, to run in order.
     */
    List<T> afterMarker(Action action) {
        if (action != Action.PREPARE || arrived.size() < inputs) {
            return List.of();
        }
        List<T> released = held;
        reset();
        return released;
    }

    private void reset() {
        if (peakBytes > mostHeldBytes) {
            mostHeldBytes = peakBytes;
            LOG.info("Effectively once: {} held at most {} bytes ({} tuples) aligning checkpoint {}, "
                    + "the most so far (egret.checkpoint.alignment.bytes {})", name, peakBytes, peakTuples, txid,
                    maxBytes);
        }
        peakBytes = 0;
        peakTuples = 0;
        arrived.clear();
        held = new ArrayList<>();
        heldBytes = 0;
        abandoned = false;
    }

    /** Bytes held now (tests). */
    long heldBytes() {
        return heldBytes;
    }
}
