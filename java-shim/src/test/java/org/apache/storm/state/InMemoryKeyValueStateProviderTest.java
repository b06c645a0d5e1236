package org.apache.storm.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InMemoryKeyValueStateProviderTest {
    @Test
    @SuppressWarnings("unchecked")
    void everyCallMakesANewEmptyStateEvenForTheSameNamespace() {
        Map<String, Object> conf = new HashMap<>();
        KeyValueState<String, Long> first = (KeyValueState<String, Long>) StateFactory.getState("bolt-1", conf, null);
        first.put("k", 1L);
        first.prepareCommit(0);
        first.commit(0);

        KeyValueState<String, Long> second = (KeyValueState<String, Long>) StateFactory.getState("bolt-1", conf, null);
        assertNotSame(first, second);
        assertNull(second.get("k"), "nothing is shared between callers");
        assertEquals(1L, first.get("k"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void theHolderOfAStateRollsBackToItsLastCommit() {
        KeyValueState<String, Long> state = (KeyValueState<String, Long>)
                new InMemoryKeyValueStateProvider().newState("bolt-2", new HashMap<>(), null);
        state.put("k", 1L);
        state.prepareCommit(0);
        state.commit(0);
        state.put("k", 2L);
        state.prepareCommit(1);
        state.rollback();
        assertEquals(1L, state.get("k"));
    }
}
