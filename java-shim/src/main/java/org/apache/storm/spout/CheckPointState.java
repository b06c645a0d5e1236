package org.apache.storm.spout;

import java.io.Serializable;

/**
 * The checkpoint spout's transaction: its id and phase. The next action follows from the
 * phase and whether the spout is recovering (after start or a failed checkpoint):
 *
 * <pre>
 * COMMITTED  : recovering ? INITSTATE(txid) : PREPARE(txid + 1)
 * PREPARING  : recovering ? ROLLBACK(txid)  : PREPARE(txid)
 * COMMITTING : COMMIT(txid)
 * </pre>
 *
 * and an acked action moves the phase on: PREPARE to COMMITTING, COMMIT to COMMITTED,
 * ROLLBACK to COMMITTED at txid - 1 (the prepared transaction is abandoned), INITSTATE ends
 * the recovery.
 */
public class CheckPointState implements Serializable {
    private static final long serialVersionUID = 1L;

    private long txid;
    private State state;

    /** The phases of a transaction. */
    public enum State {
        COMMITTED,
        PREPARING,
        COMMITTING
    }

    /** The actions sent on the checkpoint stream. */
    public enum Action {
        /** Stage the state for the transaction. */
        PREPARE,
        /** Commit the staged state. */
        COMMIT,
        /** Drop the staged state and return to the last committed one. */
        ROLLBACK,
        /** Hand the (last committed) state to the bolt. */
        INITSTATE
    }

    /** An empty state for serializers that fill the fields in (Kryo's FieldSerializer); txid 0, no phase. */
    public CheckPointState() {
    }

    public CheckPointState(long txid, State state) {
        this.txid = txid;
        this.state = state;
    }

    public long getTxid() {
        return txid;
    }

    public State getState() {
        return state;
    }

    /** The action to emit next and the transaction id it carries. */
    public Action nextAction(boolean recovering) {
        switch (state) {
            case PREPARING:
                return recovering ? Action.ROLLBACK : Action.PREPARE;
            case COMMITTING:
                return Action.COMMIT;
            case COMMITTED:
            default:
                return recovering ? Action.INITSTATE : Action.PREPARE;
        }
    }

    /**
     * The state the checkpoint moves to when the action of {@link #nextAction} completes, as
     * Storm's state machine defines it: a commit that was preparing rolls back to the previous
     * txid when recovering, else it moves on to committing; a committing one is committed; a
     * committed one stays when recovering, else the next txid starts preparing.
     */
    public CheckPointState nextState(boolean recovering) {
        switch (state) {
            case PREPARING:
                return recovering
                        ? new CheckPointState(txid - 1, State.COMMITTED)
                        : new CheckPointState(txid, State.COMMITTING);
            case COMMITTING:
                return new CheckPointState(txid, State.COMMITTED);
            case COMMITTED:
                return recovering ? this : new CheckPointState(txid + 1, State.PREPARING);
            default:
                throw new IllegalStateException("Unknown state " + state);
        }
    }

    /** The txid carried by {@link #nextAction}. */
    public long nextTxid(boolean recovering) {
        return state == State.COMMITTED && !recovering ? txid + 1 : txid;
    }

    /** The state once {@code action} (emitted from this state) is acked. */
    public CheckPointState afterAck(Action action) {
        switch (action) {
            case PREPARE:
                return new CheckPointState(nextTxid(false), State.COMMITTING);
            case COMMIT:
                return new CheckPointState(txid, State.COMMITTED);
            case ROLLBACK:
                return new CheckPointState(txid - 1, State.COMMITTED);
            case INITSTATE:
            default:
                return this;
        }
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof CheckPointState)) {
            return false;
        }
        CheckPointState other = (CheckPointState) o;
        return txid == other.txid && state == other.state;
    }

    @Override
    public int hashCode() {
        return 31 * Long.hashCode(txid) + (state == null ? 0 : state.hashCode());
    }

    @Override
    public String toString() {
        return "CheckPointState{txid=" + txid + ", state=" + state + '}';
    }
}
