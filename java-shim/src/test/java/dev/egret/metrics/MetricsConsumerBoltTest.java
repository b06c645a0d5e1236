package dev.egret.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.storm.metric.api.IMetricsConsumer;
import org.apache.storm.task.IErrorReporter;
import org.apache.storm.task.TopologyContext;
import org.junit.jupiter.api.Test;

/** The consumer bolt's own logic: class loading, filters and map expansion. */
class MetricsConsumerBoltTest {
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    /** A consumer nested in a class: registered by its canonical name, as Config does. */
    public static final class Nested implements IMetricsConsumer {
        @Override
        public void prepare(Map<String, Object> conf, Object arg, TopologyContext context, IErrorReporter r) {
            SEEN.add("prepare " + arg);
        }

        @Override
        public void handleDataPoints(TaskInfo taskInfo, Collection<DataPoint> dataPoints) {
            for (DataPoint p : dataPoints) {
                SEEN.add(p.name + "=" + p.value);
            }
        }

        @Override
        public void cleanup() {
        }
    }

    @Test
    void loadsNestedClassesByTheirCanonicalName() throws Exception {
        assertEquals(Nested.class, MetricsConsumerBolt.loadClass(Nested.class.getCanonicalName()));
        assertEquals(Nested.class, MetricsConsumerBolt.loadClass(Nested.class.getName()));
        assertThrows(ClassNotFoundException.class, () -> MetricsConsumerBolt.loadClass("no.such.Consumer"));
    }

    @Test
    void whitelistAndBlacklistAreExclusive() {
        assertThrows(IllegalArgumentException.class, () -> new MetricsConsumerBolt("x", null, List.of("a"),
                List.of("b"), false, "."));
    }

    @Test
    void selectFiltersAndExpands() throws Exception {
        java.lang.reflect.Method select = MetricsConsumerBolt.class.getDeclaredMethod("select", Collection.class);
        select.setAccessible(true);
        MetricsConsumerBolt white = new MetricsConsumerBolt("x", null, List.of("^__ack"), null, true, "/");
        java.lang.reflect.Field patterns = MetricsConsumerBolt.class.getDeclaredField("patterns");
        patterns.setAccessible(true);
        patterns.set(white, new ArrayList<>(List.of(java.util.regex.Pattern.compile("^__ack"))));
        List<IMetricsConsumer.DataPoint> in = List.of(
                new IMetricsConsumer.DataPoint("__ack-count", Map.of("s:d", 2L)),
                new IMetricsConsumer.DataPoint("mine", 1));
        @SuppressWarnings("unchecked")
        Collection<IMetricsConsumer.DataPoint> out = (Collection<IMetricsConsumer.DataPoint>) select.invoke(white, in);
        assertEquals(List.of(new IMetricsConsumer.DataPoint("__ack-count/s:d", 2L)), new ArrayList<>(out));

        MetricsConsumerBolt black = new MetricsConsumerBolt("x", null, null, List.of("^__"), false, null);
        patterns.set(black, new ArrayList<>(List.of(java.util.regex.Pattern.compile("^__"))));
        @SuppressWarnings("unchecked")
        Collection<IMetricsConsumer.DataPoint> out2 = (Collection<IMetricsConsumer.DataPoint>) select.invoke(black, in);
        assertEquals(List.of(new IMetricsConsumer.DataPoint("mine", 1)), new ArrayList<>(out2));
    }
}
