package org.apache.storm.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.storm.spout.ISpoutOutputCollector;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Values;
import org.junit.jupiter.api.Test;

/** The spout as an instance JVM gets it (serialized), fed from the JVM that made it. */
class FeederSpoutTest {
    static final List<Object> ACKED = new CopyOnWriteArrayList<>();
    static final List<Object> FAILED = new CopyOnWriteArrayList<>();

    static final class Delegate implements AckFailDelegate {
        @Override
        public void ack(Object id) {
            ACKED.add(id);
        }

        @Override
        public void fail(Object id) {
            FAILED.add(id);
        }
    }

    @Test
    void fedTuplesReachTheDeserializedSpoutAndAcksComeBack() throws Exception {
        FeederSpout made = new FeederSpout(new Fields("id", "name"));
        made.setAckFailDelegate(new Delegate());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(made);
        }
        FeederSpout task;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            task = (FeederSpout) in.readObject();
        }
        List<List<Object>> emitted = new CopyOnWriteArrayList<>();
        List<Object> ids = new CopyOnWriteArrayList<>();
        ISpoutOutputCollector sink = (ISpoutOutputCollector) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ISpoutOutputCollector.class}, (proxy, method, args) -> {
                    if (method.getName().equals("emit")) {
                        @SuppressWarnings("unchecked")
                        List<Object> tuple = (List<Object>) args[1];
                        emitted.add(tuple);
                        ids.add(args[2]);
                        return new ArrayList<Integer>();
                    }
                    return method.getReturnType() == long.class ? 0L : null;
                });
        task.open(Map.of(), null, new SpoutOutputCollector(sink));
        try {
            made.feed(new Values(1, "a"), "m1"); // waits for the task's connection
            made.feedNoWait(new Values(2, "b"), "m2");
            long deadline = System.currentTimeMillis() + 5000;
            while (emitted.size() < 2 && System.currentTimeMillis() < deadline) {
                task.nextTuple();
                Thread.sleep(5);
            }
            assertEquals(List.of(List.of(1, "a"), List.of(2, "b")), emitted);
            assertEquals(List.of("m1", "m2"), ids);
            task.ack("m1");
            task.fail("m2");
            while ((ACKED.isEmpty() || FAILED.isEmpty()) && System.currentTimeMillis() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(ACKED.contains("m1"), "ack reached the feeding side's delegate");
            assertTrue(FAILED.contains("m2"), "fail reached the feeding side's delegate");
        } finally {
            task.close();
        }
    }
}
