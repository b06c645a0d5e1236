package org.apache.storm.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.google.protobuf.ByteString;
import dev.egret.instance.StateChannel;
import dev.egret.instance.StateStore;
import dev.egret.proto.StateReply;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * egret.checkpoint.full.every: which staged copies are stored as deltas, what a delta holds,
 * and that a state restored from a whole copy and its deltas is the state that was staged;
 * and what a state restored with a staged copy newer than its committed one holds after a
 * COMMIT or a ROLLBACK of it.
 */
class InMemoryKeyValueStateDeltaTest {
    /** One stored file: whole ({@code base} null) or a delta on {@code base}. */
    private record Saved(Long base, byte[] bytes) { }

    /** The stream manager's store as the task sees it, in memory: each txid's files, and chains on load. */
    private static final class MemoryStore implements StateStore {
        final TreeMap<Long, Saved> prepared = new TreeMap<>();
        final TreeMap<Long, Saved> committed = new TreeMap<>();

        @Override
        public void savePrepared(int task, String namespace, long txid, Long base, byte[] data) {
            prepared.put(txid, new Saved(base, data));
        }

        @Override
        public void saveCommitted(int task, String namespace, long txid, Long base, byte[] data) {
            committed.put(txid, new Saved(base, data));
        }

        @Override
        public void saveLocal(int task, String namespace, byte[] data) {
            throw new AssertionError("no local saves here");
        }

        /** The whole file, then the deltas, back from {@code last} through the bases. */
        private List<byte[]> chain(Saved last) {
            List<byte[]> out = new ArrayList<>();
            Saved at = last;
            while (true) {
                out.add(0, at.bytes());
                if (at.base() == null) {
                    return out;
                }
                at = committed.get(at.base());
            }
        }

        @Override
        public StateChannel.Loaded load(int task, String namespace, boolean local) {
            StateReply.Builder r = StateReply.newBuilder();
            if (!local && !committed.isEmpty()) {
                List<byte[]> chain = chain(committed.lastEntry().getValue());
                r.setHasCommitted(true).setCommittedTxid(committed.lastKey())
                        .setCommitted(ByteString.copyFrom(chain.get(0)));
                chain.subList(1, chain.size()).forEach(b -> r.addCommittedDeltas(ByteString.copyFrom(b)));
            }
            if (!local && !prepared.isEmpty() && (committed.isEmpty() || prepared.lastKey() > committed.lastKey())) {
                List<byte[]> chain = chain(prepared.lastEntry().getValue());
                r.setHasPrepared(true).setPreparedTxid(prepared.lastKey())
                        .setPrepared(ByteString.copyFrom(chain.get(0)));
                chain.subList(1, chain.size()).forEach(b -> r.addPreparedDeltas(ByteString.copyFrom(b)));
            }
            return new StateChannel.Loaded(r.build());
        }
    }

    private static DurableBacking backing(MemoryStore store) {
        return new DurableBacking(store, 3, "count-3", new HashMap<>(), null);
    }

    private static Map<String, Long> contents(KeyValueState<String, Long> state) {
        Map<String, Long> out = new HashMap<>();
        for (Iterator<Map.Entry<String, Long>> it = state.iterator(); it.hasNext(); ) {
            Map.Entry<String, Long> e = it.next();
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    private static void checkpoint(InMemoryKeyValueState<String, Long> state, long txid) {
        state.prepareCommit(txid);
        state.commit(txid);
    }

    /** The keys a delta holds, with their values (null: deleted). */
    private static Map<Object, Object> delta(byte[] bytes) {
        Map<Object, Object> applied = new HashMap<>();
        Map<Object, Object> marked = new HashMap<>();
        marked.put("a", 0L);
        marked.put("b", 0L);
        marked.put("c", 0L);
        marked.put("d", 0L);
        marked.put("e", 0L);
        DurableBacking.applyDelta(DurableBacking.serializer(new HashMap<>(), null), bytes, applied, "t");
        Map<Object, Object> out = new HashMap<>(applied);
        Map<Object, Object> deletedProbe = new HashMap<>(marked);
        DurableBacking.applyDelta(DurableBacking.serializer(new HashMap<>(), null), bytes, deletedProbe, "t");
        for (Object k : marked.keySet()) {
            if (!deletedProbe.containsKey(k)) {
                out.put(k, null);
            }
        }
        return out;
    }

    @Test
    void oneCheckpointInNIsWholeTheOthersAreDeltasAndTheChainRestoresTheState() {
        MemoryStore store = new MemoryStore();
        InMemoryKeyValueState<String, Long> state = new InMemoryKeyValueState<>(backing(store), 3);
        state.put("a", 1L);
        state.put("b", 2L);
        checkpoint(state, 1);
        state.put("a", 10L);
        state.delete("b");
        state.put("c", 3L);
        checkpoint(state, 2);
        state.put("d", 4L);
        checkpoint(state, 3);

        assertNull(store.committed.get(1L).base());
        assertEquals(1L, store.committed.get(2L).base());
        assertEquals(2L, store.committed.get(3L).base());
        Map<Object, Object> two = new HashMap<>();
        two.put("a", 10L);
        two.put("b", null);
        two.put("c", 3L);
        assertEquals(two, delta(store.committed.get(2L).bytes()));
        assertEquals(Map.of("d", 4L), delta(store.committed.get(3L).bytes()));
        // What COMMIT stores is what PREPARE staged.
        assertEquals(store.prepared.get(3L).base(), store.committed.get(3L).base());

        Map<String, Long> expected = Map.of("a", 10L, "c", 3L, "d", 4L);
        assertEquals(expected, contents(new InMemoryKeyValueState<>(backing(store), 3)));

        // The third checkpoint after a whole one is whole again.
        state.put("e", 5L);
        checkpoint(state, 4);
        assertNull(store.committed.get(4L).base());
        assertEquals(Map.of("a", 10L, "c", 3L, "d", 4L, "e", 5L),
                contents(new InMemoryKeyValueState<>(backing(store), 3)));
    }

    @Test
    void afterARollbackARestoreOrAStagingAgainTheCopyIsWhole() {
        MemoryStore store = new MemoryStore();
        InMemoryKeyValueState<String, Long> state = new InMemoryKeyValueState<>(backing(store), 10);
        state.put("a", 1L);
        checkpoint(state, 1);
        state.put("b", 2L);
        state.prepareCommit(2);
        assertEquals(1L, store.prepared.get(2L).base());
        state.rollback();
        state.put("c", 3L);
        checkpoint(state, 3);
        assertNull(store.committed.get(3L).base(), "the first copy after a rollback is whole");
        assertEquals(Map.of("a", 1L, "c", 3L), contents(new InMemoryKeyValueState<>(backing(store), 10)));

        state.put("d", 4L);
        state.prepareCommit(4);
        assertEquals(3L, store.prepared.get(4L).base());
        state.put("e", 5L);
        state.prepareCommit(4);
        assertNull(store.prepared.get(4L).base(), "staged again: whole");
        state.commit(4);
        assertEquals(Map.of("a", 1L, "c", 3L, "d", 4L, "e", 5L),
                contents(new InMemoryKeyValueState<>(backing(store), 10)));

        InMemoryKeyValueState<String, Long> restored = new InMemoryKeyValueState<>(backing(store), 10);
        restored.put("f", 6L);
        checkpoint(restored, 5);
        assertNull(store.committed.get(5L).base(), "the first copy after a restore is whole");
        restored.put("g", 7L);
        checkpoint(restored, 6);
        assertEquals(5L, store.committed.get(6L).base());
        assertEquals(Map.of("g", 7L), delta(store.committed.get(6L).bytes()));
    }

    @Test
    void withOneEveryCopyIsWhole() {
        MemoryStore store = new MemoryStore();
        InMemoryKeyValueState<String, Long> state = new InMemoryKeyValueState<>(backing(store), 1);
        for (long txid = 1; txid <= 3; txid++) {
            state.put("k" + txid, txid);
            checkpoint(state, txid);
            assertNull(store.committed.get(txid).base());
        }
    }

    /** A JVM killed between PREPARE 2 and COMMIT 2: its store has committed 1 and staged 2. */
    private static MemoryStore killedBetweenPrepareAndCommit(int fullEvery) {
        MemoryStore store = new MemoryStore();
        InMemoryKeyValueState<String, Long> before = new InMemoryKeyValueState<>(backing(store), fullEvery);
        before.put("sum", 100L);
        checkpoint(before, 1);
        before.put("sum", 250L);
        before.put("n", 2L);
        before.prepareCommit(2);
        before.put("sum", 999L);
        return store;
    }

    @Test
    void aRestoredStagedCopyIsWhatTheStateHoldsOnceItsCommitComes() {
        for (int fullEvery : new int[] {1, 3}) {
            MemoryStore store = killedBetweenPrepareAndCommit(fullEvery);
            InMemoryKeyValueState<String, Long> restored = new InMemoryKeyValueState<>(backing(store), fullEvery);
            // The checkpoint spout's recovery: COMMIT 2, then INITSTATE (the bolt reads its state).
            restored.commit(2);
            assertEquals(Map.of("sum", 250L, "n", 2L), contents(restored), "full every " + fullEvery);
            assertEquals(250L, restored.get("sum"));
            restored.put("sum", 300L);
            checkpoint(restored, 3);
            assertNull(store.committed.get(3L).base(), "the first copy after a restore is whole");
            assertEquals(Map.of("sum", 300L, "n", 2L),
                    contents(new InMemoryKeyValueState<>(backing(store), fullEvery)));
        }
    }

    @Test
    void aRestoredStagedCopyIsDroppedByARollbackAndNotCommittedOverLaterWrites() {
        MemoryStore store = killedBetweenPrepareAndCommit(3);
        InMemoryKeyValueState<String, Long> rolledBack = new InMemoryKeyValueState<>(backing(store), 3);
        rolledBack.rollback();
        assertEquals(Map.of("sum", 100L), contents(rolledBack));

        // Read before the COMMIT (no recovery sends that), then written: the COMMIT stores the
        // staged copy but leaves the working map as the bolt made it.
        InMemoryKeyValueState<String, Long> written = new InMemoryKeyValueState<>(backing(store), 3);
        assertEquals(100L, written.get("sum"));
        written.put("sum", 101L);
        written.commit(2);
        assertEquals(Map.of("sum", 101L), contents(written));
        assertEquals(Map.of("sum", 250L, "n", 2L), contents(new InMemoryKeyValueState<>(backing(store), 3)));
    }
}
