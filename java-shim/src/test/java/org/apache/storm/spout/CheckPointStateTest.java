package org.apache.storm.spout;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.storm.spout.CheckPointState.State;
import org.junit.jupiter.api.Test;

/** Storm's checkpoint state machine: what {@code nextState} returns from each state. */
class CheckPointStateTest {

    @Test
    void aCommittedCheckpointPreparesTheNextTxidUnlessRecovering() {
        CheckPointState committed = new CheckPointState(4, State.COMMITTED);
        assertEquals(new CheckPointState(5, State.PREPARING), committed.nextState(false));
        assertEquals(committed, committed.nextState(true));
    }

    @Test
    void aPreparingCheckpointCommitsOrRollsBackToThePreviousTxid() {
        CheckPointState preparing = new CheckPointState(5, State.PREPARING);
        assertEquals(new CheckPointState(5, State.COMMITTING), preparing.nextState(false));
        assertEquals(new CheckPointState(4, State.COMMITTED), preparing.nextState(true));
    }

    @Test
    void aCommittingCheckpointIsCommittedEitherWay() {
        CheckPointState committing = new CheckPointState(5, State.COMMITTING);
        assertEquals(new CheckPointState(5, State.COMMITTED), committing.nextState(false));
        assertEquals(new CheckPointState(5, State.COMMITTED), committing.nextState(true));
    }
}
