package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.storm.spout.CheckPointState.Action;
import org.apache.storm.state.InMemoryKeyValueState;
import org.apache.storm.state.KeyValueState;
import org.junit.jupiter.api.Test;

/** The data spout's effectively-once bookkeeping, action by action. */
class EffectivelyOnceSpoutTest {
    private static SpoutCollector.Pending pending(long key, Object msgId) {
        return new SpoutCollector.Pending(key, msgId, "default", System.nanoTime());
    }

    private static List<Object> ids(Iterable<SpoutCollector.Pending> ps) {
        List<Object> out = new ArrayList<>();
        ps.forEach(p -> out.add(p.messageId));
        return out;
    }

    @Test
    void emitsOnlyAfterInitstateAndPausesFromPrepareToCommit() {
        EffectivelyOnceSpout eo = new EffectivelyOnceSpout("s:1", new InMemoryKeyValueState<>(), true);
        assertFalse(eo.mayEmit());
        assertEquals(EffectivelyOnceSpout.Outcome.FAIL, eo.onAction(Action.PREPARE, 0));
        assertEquals(EffectivelyOnceSpout.Outcome.FORWARD, eo.onAction(Action.INITSTATE, -1));
        assertTrue(eo.mayEmit());
        eo.emitted(1L);
        assertEquals(EffectivelyOnceSpout.Outcome.FORWARD, eo.onAction(Action.PREPARE, 0));
        assertFalse(eo.mayEmit());
        eo.onAction(Action.COMMIT, 0);
        assertTrue(eo.mayEmit());
    }

    @Test
    void acksWaitForACompleteCheckpointAndCoveredEmitsAreDropped() {
        KeyValueState<Long, ArrayList<Object>> state = new InMemoryKeyValueState<>();
        EffectivelyOnceSpout eo = new EffectivelyOnceSpout("s:1", state, true);
        eo.onAction(Action.INITSTATE, -1);
        eo.emitted(1L);
        eo.onAction(Action.PREPARE, 0);
        eo.onAction(Action.COMMIT, 0);
        eo.completed(pending(11, 1L));
        // Checkpoint 0 is committed by this task but not known complete: the ack waits.
        assertTrue(eo.toAck.isEmpty());
        assertFalse(eo.covered(1L));
        eo.onAction(Action.PREPARE, 1);
        assertEquals(List.of(1L), ids(eo.toAck));
        assertTrue(eo.covered(1L));

        // A restarted task restores the windows and drops the replay of a covered message.
        EffectivelyOnceSpout restarted = new EffectivelyOnceSpout("s:1", state, true);
        restarted.onAction(Action.ROLLBACK, 1);
        restarted.onAction(Action.INITSTATE, 0);
        assertTrue(restarted.covered(1L));
        assertFalse(restarted.covered(2L));
    }

    @Test
    void aFailedTreeFailsTheNextPrepareAndIsReplayedAfterTheRollback() {
        EffectivelyOnceSpout eo = new EffectivelyOnceSpout("s:1", new InMemoryKeyValueState<>(), true);
        eo.onAction(Action.INITSTATE, -1);
        eo.emitted(1L);
        eo.emitted(2L);
        eo.onAction(Action.PREPARE, 0);
        eo.onAction(Action.COMMIT, 0);
        eo.emitted(3L);
        eo.failed(pending(13, 3L));
        assertTrue(eo.toFail.isEmpty());
        assertEquals(EffectivelyOnceSpout.Outcome.FAIL, eo.onAction(Action.PREPARE, 1));
        eo.onAction(Action.ROLLBACK, 1);
        // Paused until the INITSTATE after the rollback.
        assertFalse(eo.mayEmit());
        // 1 was in checkpoint 0 (complete): acked, not replayed; 3 was not: failed.
        eo.rolledBack(List.of(pending(11, 1L)));
        assertEquals(List.of(3L), ids(eo.toFail));
        assertEquals(List.of(1L), ids(eo.toAck));
        eo.onAction(Action.INITSTATE, 0);
        assertTrue(eo.mayEmit());
        assertFalse(eo.covered(3L));
    }

    @Test
    void withBufferedAlignmentOnlyTheFirstCheckpointAfterARollbackPauses() {
        EffectivelyOnceSpout eo = new EffectivelyOnceSpout("s:1", new InMemoryKeyValueState<>(), false);
        eo.onAction(Action.ROLLBACK, 0);
        eo.onAction(Action.INITSTATE, -1);
        assertTrue(eo.mayEmit());
        eo.onAction(Action.PREPARE, 0);
        assertFalse(eo.mayEmit(), "the first PREPARE after a rollback pauses");
        eo.onAction(Action.COMMIT, 0);
        assertTrue(eo.mayEmit());
        eo.emitted(1L);
        eo.onAction(Action.PREPARE, 1);
        assertTrue(eo.mayEmit(), "later PREPAREs do not pause: the bolts buffer");
        eo.emitted(2L);
        eo.onAction(Action.COMMIT, 1);
        eo.onAction(Action.PREPARE, 2);
        // 1 came before PREPARE 1, 2 after it: checkpoint 1 (complete at PREPARE 2) holds 1 only.
        assertTrue(eo.covered(1L));
        assertFalse(eo.covered(2L));
        eo.onAction(Action.ROLLBACK, 3);
        eo.onAction(Action.INITSTATE, 2);
        eo.onAction(Action.PREPARE, 3);
        assertFalse(eo.mayEmit(), "a rollback makes the next PREPARE pause again");
    }

    @Test
    void whatTheSpoutKnowsIsWhatARestartFromItsStateKnowsCheckpointAfterCheckpoint() {
        KeyValueState<Long, ArrayList<Object>> state = new InMemoryKeyValueState<>();
        EffectivelyOnceSpout eo = new EffectivelyOnceSpout("s:1", state, false);
        eo.onAction(Action.INITSTATE, -1);
        int checkpoints = EffectivelyOnceSpout.KEPT_WINDOWS + 5;
        for (long txid = 0; txid < checkpoints; txid++) {
            eo.emitted(txid * 10);
            eo.emitted(txid * 10 + 1);
            eo.onAction(Action.PREPARE, txid);
            eo.onAction(Action.COMMIT, txid);
        }
        // The same checkpoint prepared again (its COMMIT lost): its new window replaces the old.
        eo.emitted(7_000L);
        eo.onAction(Action.PREPARE, checkpoints);
        eo.emitted(7_001L);
        eo.onAction(Action.PREPARE, checkpoints);
        eo.onAction(Action.COMMIT, checkpoints);
        eo.onAction(Action.PREPARE, checkpoints + 1);
        eo.onAction(Action.COMMIT, checkpoints + 1);

        // A restart reads the windows from the state; checkpoint `checkpoints` is complete for both.
        EffectivelyOnceSpout restarted = new EffectivelyOnceSpout("s:1", state, false);
        restarted.onAction(Action.INITSTATE, checkpoints);
        List<Long> keys = new ArrayList<>();
        state.forEach(e -> keys.add(e.getKey()));
        assertEquals(EffectivelyOnceSpout.KEPT_WINDOWS, keys.size(), "windows kept: " + keys);
        for (long id = 0; id < checkpoints * 10L; id++) {
            boolean kept = id % 10 < 2 && id / 10 >= checkpoints + 2 - EffectivelyOnceSpout.KEPT_WINDOWS;
            assertEquals(kept, eo.covered(id), "message " + id);
            assertEquals(kept, restarted.covered(id), "message " + id + " after a restart");
        }
        assertFalse(eo.covered(7_000L));
        assertFalse(restarted.covered(7_000L));
        assertTrue(eo.covered(7_001L));
        assertTrue(restarted.covered(7_001L));
    }

    @Test
    void theSpoutsWindowsAreStoredAsDeltasBetweenWholeCopies() {
        int topologys = StateChannel.fullEvery();
        try {
            StateChannel.fullEvery(1);
            assertEquals(1, StateChannel.fullEvery("spout-9"));
            StateChannel.fullEvery("spout-9", EffectivelyOnceSpout.KEPT_WINDOWS);
            assertEquals(EffectivelyOnceSpout.KEPT_WINDOWS, StateChannel.fullEvery("spout-9"));
            assertEquals(1, StateChannel.fullEvery("count-3"), "other states keep the topology's");
            StateChannel.fullEvery(40);
            assertEquals(40, StateChannel.fullEvery("spout-9"), "never whole more often than the topology says");
        } finally {
            StateChannel.fullEvery(topologys);
        }
    }
}
