package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.egret.proto.TupleData;
import java.util.Map;
import java.util.Set;
import org.apache.storm.tuple.MessageId;
import org.junit.jupiter.api.Test;

/** The id of a received tracked tuple, as user code sees it (Storm's {@link MessageId}). */
class TreeMessageIdTest {
    private static MessageId idOf(long edge, long... keys) {
        TupleData.Builder b = TupleData.newBuilder().setEdgeId(edge);
        for (long k : keys) {
            b.addRoots(FakeSm.root(3, k));
        }
        TupleData td = b.build();
        return TreeMessageId.of(td.getRootsList(), td.getEdgeId());
    }

    @Test
    void storms_view_maps_each_root_key_to_the_edge_id() throws Exception {
        MessageId one = idOf(42, 7);
        assertEquals(Map.of(7L, 42L), one.getAnchorsToIds());
        assertSame(one.getAnchorsToIds(), one.getAnchorsToIds(), "made once");
        assertEquals(Set.of(7L), one.getAnchors());
        assertThrows(UnsupportedOperationException.class, () -> one.getAnchorsToIds().put(1L, 1L));

        MessageId two = idOf(-5, 7, Long.MIN_VALUE);
        assertEquals(Map.of(7L, -5L, Long.MIN_VALUE, -5L), two.getAnchorsToIds());
        assertThrows(UnsupportedOperationException.class, () -> two.getAnchorsToIds().clear());

        // Equal to Storm's own id of the same anchors, both ways, with its hash and text.
        MessageId storms = MessageId.makeRootId(7, 42);
        assertEquals(storms, one);
        assertEquals(one, storms);
        assertEquals(storms.hashCode(), one.hashCode());
        assertEquals(storms.toString(), one.toString());

        // Serialized as Storm serializes an id: it reads back as Storm's.
        Output out = new Output(64, -1);
        two.serialize(out);
        MessageId back = MessageId.deserialize(new Input(out.toBytes()));
        assertEquals(two.getAnchorsToIds(), back.getAnchorsToIds());
    }

    @Test
    void an_untracked_tuple_gets_storms_unanchored_id() {
        MessageId id = idOf(9);
        assertSame(MessageId.makeUnanchored(), id);
        assertTrue(id.getAnchorsToIds().isEmpty());
    }

    @Test
    void a_tuple_is_completed_once() {
        TreeMessageId id = (TreeMessageId) idOf(1, 2);
        assertFalse(id.isCompleted());
        assertTrue(id.complete());
        assertTrue(id.isCompleted());
        assertFalse(id.complete(), "a second ack or fail is refused");
    }
}
