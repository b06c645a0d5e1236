package dev.egret.instance;

import dev.egret.proto.RootId;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.apache.storm.tuple.MessageId;

/**
 * The {@link MessageId} of a received tracked tuple: the roots of the tuple trees it belongs
 * to and its edge id. User code sees Storm's view ({@code getAnchorsToIds()}: root key to
 * edge id); the collectors use the full roots (spout task and key) to address the ledger.
 *
 * <p>A tuple is acked or failed at most once: {@link #complete()} flips a flag shared by
 * every copy of the tuple (copies made with {@code new TupleImpl(tuple)} share the id), so a
 * second ack or fail is ignored instead of XORing the edge into the ledger twice.
 */
final class TreeMessageId extends MessageId {
    private static final AtomicIntegerFieldUpdater<TreeMessageId> COMPLETED =
            AtomicIntegerFieldUpdater.newUpdater(TreeMessageId.class, "completed");

    private final List<RootId> roots;
    private final long edgeId;
    /** 1 once acked or failed: a field, not an object, as one id is made per received tuple. */
    private volatile int completed;
    /**
     * Storm's view, made when user code first asks (most tuples are acked without it). Racing
     * threads may each make one; they are equal and immutable.
     */
    private Map<Long, Long> anchorsToIds;

    private TreeMessageId(List<RootId> roots, long edgeId) {
        super(null);
        this.roots = roots;
        this.edgeId = edgeId;
    }

    /**
     * The id of a received tuple with these roots (an immutable list, which the id keeps) and
     * edge id: Storm's unanchored id when it carries no roots.
     */
    static MessageId of(List<RootId> roots, long edgeId) {
        if (roots.isEmpty()) {
            return MessageId.makeUnanchored();
        }
        return new TreeMessageId(roots, edgeId);
    }

    @Override
    public Map<Long, Long> getAnchorsToIds() {
        Map<Long, Long> ids = anchorsToIds;
        if (ids == null) {
            if (roots.size() == 1) {
                ids = Collections.singletonMap(roots.get(0).getKey(), edgeId);
            } else {
                Map<Long, Long> map = new HashMap<>(roots.size() * 2);
                for (RootId r : roots) {
                    map.put(r.getKey(), edgeId);
                }
                ids = Collections.unmodifiableMap(map);
            }
            anchorsToIds = ids;
        }
        return ids;
    }

    List<RootId> roots() {
        return roots;
    }

    long edgeId() {
        return edgeId;
    }

    /** Marks the tuple acked or failed; false when it already was. */
    boolean complete() {
        return COMPLETED.compareAndSet(this, 0, 1);
    }

    boolean isCompleted() {
        return completed != 0;
    }
}
