package dev.egret.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.apache.storm.ISubmitterHook;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.TopologyInfo;
import org.apache.storm.hooks.SubmitterHookException;
import org.junit.jupiter.api.Test;

/** storm.topology.submission.notifier.plugin.class: created, notified once, failures as Storm's. */
class SubmitterHooksTest {
    static final String KEY = "storm.topology.submission.notifier.plugin.class";

    public static final class Recording implements ISubmitterHook {
        static TopologyInfo info;
        static Map<String, Object> conf;
        static StormTopology topology;
        static int calls;

        @Override
        public void notify(TopologyInfo topologyInfo, Map<String, Object> topoConf, StormTopology t) {
            info = topologyInfo;
            conf = topoConf;
            topology = t;
            calls++;
        }
    }

    public static final class Throwing implements ISubmitterHook {
        @Override
        public void notify(TopologyInfo topologyInfo, Map<String, Object> topoConf, StormTopology t)
                throws IllegalAccessException {
            throw new IllegalAccessException("refused by the hook");
        }
    }

    @Test
    void theHookIsNotifiedWithTheTopologysInfoConfAndTopology() {
        Map<String, Object> conf = new HashMap<>();
        conf.put(KEY, Recording.class.getName());
        StormTopology topology = new StormTopology();
        Recording.calls = 0;
        SubmitterHooks.notifyHook("words", "words-3-1700000000", conf, topology);
        assertEquals(1, Recording.calls);
        assertEquals("words", Recording.info.get_name());
        assertEquals("words-3-1700000000", Recording.info.get_id());
        assertEquals("ACTIVE", Recording.info.get_status());
        assertEquals(0, Recording.info.get_executors_size());
        assertSame(conf, Recording.conf);
        assertSame(topology, Recording.topology);
    }

    @Test
    void noKeyNoHook() {
        Recording.calls = 0;
        SubmitterHooks.notifyHook("words", "id", new HashMap<>(), new StormTopology());
        assertEquals(0, Recording.calls);
    }

    @Test
    void aThrowingHookFailsWithSubmitterHookException() {
        SubmitterHookException e = assertThrows(SubmitterHookException.class,
                () -> SubmitterHooks.notifyHook("w", "id", Map.of(KEY, Throwing.class.getName()), new StormTopology()));
        assertInstanceOf(IllegalAccessException.class, e.getCause());
    }

    @Test
    void aBadClassNameFailsWithSubmitterHookExceptionNamingIt() {
        SubmitterHookException missing = assertThrows(SubmitterHookException.class,
                () -> SubmitterHooks.notifyHook("w", "id", Map.of(KEY, "no.such.Hook"), new StormTopology()));
        assertInstanceOf(ClassNotFoundException.class, missing.getCause());
        SubmitterHookException empty = assertThrows(SubmitterHookException.class,
                () -> SubmitterHooks.notifyHook("w", "id", Map.of(KEY, ""), new StormTopology()));
        assertTrue(empty.getMessage().contains("must be a non empty string"), empty.getMessage());
        SubmitterHookException notAHook = assertThrows(SubmitterHookException.class,
                () -> SubmitterHooks.notifyHook("w", "id", Map.of(KEY, String.class.getName()), new StormTopology()));
        assertTrue(notAHook.getMessage().contains("java.lang.String"), notAHook.getMessage());
    }
}
