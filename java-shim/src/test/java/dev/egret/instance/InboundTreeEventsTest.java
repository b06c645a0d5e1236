package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.egret.proto.RootId;
import dev.egret.proto.StreamManagerToInstance;
import dev.egret.proto.TreeEvent;
import dev.egret.proto.TreeEvents;
import dev.egret.proto.TreeOutcome;
import dev.egret.proto.TupleBatch;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Tree events read in place from an inbound frame, against protobuf's generated parser. */
class InboundTreeEventsTest {
    private static byte[] frameOf(TreeEvents events) {
        return StreamManagerToInstance.newBuilder().setTreeEvents(events).build().toByteArray();
    }

    @Test
    void eventsReadAsTheGeneratedParserReadsThem() throws Exception {
        Random random = new Random(11);
        InboundTreeEvents events = new InboundTreeEvents();
        TreeOutcome[] outcomes = {TreeOutcome.TREE_OUTCOME_COMPLETED, TreeOutcome.TREE_OUTCOME_FAILED,
            TreeOutcome.TREE_OUTCOME_TIMEOUT_RESET, TreeOutcome.TREE_OUTCOME_UNSPECIFIED};
        for (int round = 0; round < 30; round++) {
            TreeEvents.Builder b = TreeEvents.newBuilder();
            int n = random.nextInt(200);
            for (int i = 0; i < n; i++) {
                TreeEvent.Builder e = TreeEvent.newBuilder().setOutcome(outcomes[random.nextInt(outcomes.length)])
                        .setCompleteLatencyUs(random.nextInt(100_000));
                if (random.nextInt(10) > 0) {
                    e.setRoot(RootId.newBuilder().setSpoutTask(random.nextInt(50) - 3).setKey(random.nextLong()));
                }
                b.addEvents(e);
            }
            byte[] frame = frameOf(b.build());
            assertTrue(InboundTreeEvents.carriesTreeEvents(frame));
            events.read(frame);
            List<TreeEvent> expected = StreamManagerToInstance.parseFrom(frame).getTreeEvents().getEventsList();
            assertEquals(expected.size(), events.size());
            for (int i = 0; i < expected.size(); i++) {
                TreeEvent e = expected.get(i);
                assertEquals(e.getOutcomeValue(), events.outcome(i));
                assertEquals(e.getRoot().getSpoutTask(), events.spoutTask(i));
                assertEquals(e.getRoot().getKey(), events.key(i));
            }
        }
    }

    @Test
    void otherFramesAreNotTreeEventsAndAMalformedOneIsRefusedWhole() {
        assertFalse(InboundTreeEvents.carriesTreeEvents(new byte[0]));
        assertFalse(InboundTreeEvents.carriesTreeEvents(
                StreamManagerToInstance.newBuilder().setTuples(TupleBatch.getDefaultInstance()).build().toByteArray()));
        byte[] whole = frameOf(TreeEvents.newBuilder()
                .addEvents(TreeEvent.newBuilder().setOutcome(TreeOutcome.TREE_OUTCOME_COMPLETED)
                        .setRoot(RootId.newBuilder().setSpoutTask(3).setKey(77)))
                .addEvents(TreeEvent.newBuilder().setOutcome(TreeOutcome.TREE_OUTCOME_FAILED)
                        .setRoot(RootId.newBuilder().setSpoutTask(3).setKey(78)))
                .build());
        InboundTreeEvents events = new InboundTreeEvents();
        for (int cut = 1; cut < whole.length; cut++) {
            byte[] part = Arrays.copyOf(whole, cut);
            assertThrows(InvalidProtocolBufferException.class, () -> events.read(part), "cut at " + cut);
            assertEquals(0, events.size());
        }
    }
}
