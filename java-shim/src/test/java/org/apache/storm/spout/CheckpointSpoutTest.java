package org.apache.storm.spout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.storm.state.InMemoryKeyValueState;
import org.apache.storm.state.KeyValueState;
import org.junit.jupiter.api.Test;

class CheckpointSpoutTest {
    /** Records the spout's emits as "txid ACTION" with their message ids. */
    static final class Out implements ISpoutOutputCollector {
        final List<String> emitted = new ArrayList<>();
        Object lastMsgId;

        @Override
        public List<Integer> emit(String streamId, List<Object> tuple, Object messageId) {
            assertEquals(CheckpointSpout.CHECKPOINT_STREAM_ID, streamId);
            emitted.add(tuple.get(0) + " " + tuple.get(1));
            lastMsgId = messageId;
            return List.of();
        }

        @Override
        public void emitDirect(int taskId, String streamId, List<Object> tuple, Object messageId) {
        }

        @Override
        public long getPendingCount() {
            return 0;
        }

        @Override
        public void flush() {
        }

        @Override
        public void reportError(Throwable error) {
        }
    }

    private static String step(CheckpointSpout spout, Out out) {
        int before = out.emitted.size();
        spout.nextTuple();
        spout.nextTuple();
        assertEquals(before + 1, out.emitted.size(), "one action in flight at a time: " + out.emitted);
        return out.emitted.get(before);
    }

    @Test
    void recoversThenPreparesAndCommitsAndRecoversFromFailures() {
        CheckpointSpout spout = new CheckpointSpout();
        Out out = new Out();
        KeyValueState<String, CheckPointState> state = new InMemoryKeyValueState<>();
        spout.open(null, new SpoutOutputCollector(out), 1, state);

        // Storm's numbering: a topology that never checkpointed starts from txid -1
        assertEquals("-1 INITSTATE", step(spout, out));
        assertEquals(-1L, out.lastMsgId, "the message id is the txid");
        spout.ack(out.lastMsgId);
        assertEquals("0 PREPARE", step(spout, out));
        spout.ack(out.lastMsgId);
        assertEquals("0 COMMIT", step(spout, out));
        spout.fail(out.lastMsgId);
        assertEquals("0 COMMIT", step(spout, out), "a committing transaction is committed again");
        spout.ack(out.lastMsgId);
        assertEquals("0 INITSTATE", step(spout, out));
        spout.ack(out.lastMsgId);
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assertEquals("1 PREPARE", step(spout, out));
        spout.fail(out.lastMsgId);
        assertEquals("1 ROLLBACK", step(spout, out), "a failed prepare is rolled back");
        spout.ack(0L);
        spout.nextTuple();
        assertEquals("1 ROLLBACK", out.emitted.get(out.emitted.size() - 1), "a stale ack (another txid) is ignored");
        assertEquals(1, out.emitted.stream().filter("1 ROLLBACK"::equals).count());
        spout.ack(out.lastMsgId);
        assertEquals("0 INITSTATE", step(spout, out), "the state goes back to the last commit");
        assertTrue(state.get("__state").getState() == CheckPointState.State.COMMITTED);

        // A new spout (same JVM, same state) resumes from the saved transaction.
        CheckpointSpout again = new CheckpointSpout();
        Out out2 = new Out();
        again.open(null, new SpoutOutputCollector(out2), 1, state);
        assertEquals("0 INITSTATE", step(again, out2));
    }
}
