package dev.egret.instance;

import dev.egret.proto.RootId;
import dev.egret.proto.TupleData;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
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
    private final List<RootId> roots;
    private final long edgeId;
    private final AtomicBoolean completed = new AtomicBoolean();

    private TreeMessageId(Map<Long, Long> anchorsToIds, List<RootId> roots, long edgeId) {
        super(anchorsToIds);
        this.roots = roots;
        this.edgeId = edgeId;
    }

    /** The id of a received tuple: Storm's unanchored id when it carries no roots. */
    static MessageId of(TupleData td) {
        if (td.getRootsCount() == 0) {
            return MessageId.makeUnanchored();
        }
        List<RootId> roots = td.getRootsList();
        if (roots.size() == 1) {
            // The common case (one tree): no HashMap per received tuple.
            return new TreeMessageId(Collections.singletonMap(roots.get(0).getKey(), td.getEdgeId()), roots,
                    td.getEdgeId());
        }
        Map<Long, Long> anchorsToIds = new HashMap<>(roots.size() * 2);
        for (RootId r : roots) {
            anchorsToIds.put(r.getKey(), td.getEdgeId());
        }
        return new TreeMessageId(Collections.unmodifiableMap(anchorsToIds), roots, td.getEdgeId());
    }

    List<RootId> roots() {
        return roots;
    }

    long edgeId() {
        return edgeId;
    }

    /** Marks the tuple acked or failed; false when it already was. */
    boolean complete() {
        return completed.compareAndSet(false, true);
    }

    boolean isCompleted() {
        return completed.get();
    }
}
