package dev.egret.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.storm.spout.CheckPointState.Action;
import org.junit.jupiter.api.Test;

/** A bolt task's alignment of PREPARE markers from its input tasks 1 and 2, tuple by tuple. */
class MarkerAlignmentTest {
    private static final int TASK = 7;

    @Test
    void theInputThatIsAheadIsHeldUntilTheLastMarkerThenReleasedInOrder() {
        MarkerAlignment<String> a = new MarkerAlignment<>("count:7", TASK, 2, 1000);
        assertFalse(a.hold("before", 1, () -> 10), "no marker yet: runs");
        assertEquals(List.of(), a.beforeMarker(Action.PREPARE, 5, 1));
        assertEquals(List.of(), a.afterMarker(Action.PREPARE), "one input of two: not aligned yet");
        assertTrue(a.hold("a1", 1, () -> 10), "input 1 is ahead: held");
        assertFalse(a.hold("b1", 2, () -> 10), "input 2 is behind the cut: runs");
        assertTrue(a.hold("a2", 1, () -> 10));
        assertEquals(20, a.heldBytes());
        a.beforeMarker(Action.PREPARE, 5, 2);
        assertEquals(List.of(), a.takeReleased());
        assertEquals(List.of("a1", "a2"), a.afterMarker(Action.PREPARE));
        assertEquals(0, a.heldBytes());
        assertFalse(a.hold("a3", 1, () -> 10), "aligned: runs");
        assertFalse(StateChannel.abandoned(TASK, 5));
    }

    @Test
    void passingTheBoundReleasesWhatWasHeldAndMakesThePrepareFail() {
        MarkerAlignment<String> a = new MarkerAlignment<>("count:7", TASK, 2, 25);
        a.beforeMarker(Action.PREPARE, 9, 2);
        a.afterMarker(Action.PREPARE);
        assertTrue(a.hold("b1", 2, () -> 10));
        assertTrue(a.hold("b2", 2, () -> 10));
        assertFalse(a.hold("b3", 2, () -> 10), "30 bytes would pass the bound of 25");
        assertEquals(List.of("b1", "b2"), a.takeReleased(), "what was held runs first, in order");
        assertFalse(a.hold("b4", 2, () -> 10), "given up: nothing more is held");
        a.beforeMarker(Action.PREPARE, 9, 1);
        assertEquals(List.of(), a.afterMarker(Action.PREPARE));
        assertTrue(StateChannel.abandoned(TASK, 9), "the bolt fails this PREPARE");
        assertFalse(StateChannel.abandoned(TASK, 9), "asked once");
        // The next checkpoint aligns again.
        a.beforeMarker(Action.PREPARE, 10, 1);
        assertTrue(a.hold("a1", 1, () -> 10));
    }

    @Test
    void aRollbackFailsWhatWasHeld() {
        MarkerAlignment<String> a = new MarkerAlignment<>("count:7", TASK, 2, 1000);
        a.beforeMarker(Action.PREPARE, 3, 1);
        assertTrue(a.hold("a1", 1, () -> 10));
        assertEquals(List.of("a1"), a.beforeMarker(Action.ROLLBACK, 3, 2));
        assertFalse(a.hold("a2", 1, () -> 10), "no alignment after the rollback");
        assertEquals(List.of(), a.beforeMarker(Action.INITSTATE, 2, 1));
    }

    @Test
    void aPrepareOfAnotherCheckpointEndsTheAlignmentAndRunsWhatWasHeld() {
        MarkerAlignment<String> a = new MarkerAlignment<>("count:7", TASK, 2, 1000);
        a.beforeMarker(Action.PREPARE, 3, 1);
        assertTrue(a.hold("a1", 1, () -> 10));
        a.beforeMarker(Action.PREPARE, 4, 2);
        assertEquals(List.of("a1"), a.takeReleased());
        assertTrue(a.hold("b1", 2, () -> 10), "now input 2 is ahead, for checkpoint 4");
        assertFalse(a.hold("a2", 1, () -> 10));
    }
}
