package org.apache.storm.testing;

import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import org.apache.storm.utils.RegisteredGlobalState;

/**
 * Remembers which message ids were acked and which failed, in {@link RegisteredGlobalState}
 * (so serialized copies in the same JVM share the sets).
 */
public class AckFailMapTracker implements AckFailDelegate {
    private static final long serialVersionUID = 1L;

    private final String acked;
    private final String failed;

    public AckFailMapTracker() {
        acked = RegisteredGlobalState.registerState(Collections.synchronizedSet(new HashSet<>()));
        failed = RegisteredGlobalState.registerState(Collections.synchronizedSet(new HashSet<>()));
    }

    public boolean isAcked(Object id) {
        return set(acked).contains(id);
    }

    public boolean isFailed(Object id) {
        return set(failed).contains(id);
    }

    @Override
    public void ack(Object id) {
        set(acked).add(id);
    }

    @Override
    public void fail(Object id) {
        set(failed).add(id);
    }

    @SuppressWarnings("unchecked")
    private static Set<Object> set(String stateId) {
        Object state = RegisteredGlobalState.getState(stateId);
        if (state == null) {
            throw new IllegalStateException("the tracker's state " + stateId + " is not in this JVM");
        }
        return (Set<Object>) state;
    }
}
