package dev.egret.instance;

import com.google.protobuf.ByteString;
import dev.egret.proto.Component;
import dev.egret.proto.ComponentKind;
import dev.egret.proto.Empty;
import dev.egret.proto.FieldList;
import dev.egret.proto.Grouping;
import dev.egret.proto.InputDef;
import dev.egret.proto.StreamDef;
import dev.egret.proto.Topology;
import dev.egret.proto.TopologySettings;
import dev.egret.runtime.ConfigJson;
import dev.egret.runtime.TopologyModel;
import dev.egret.serialization.JavaSerialization;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Map;

/** Builders for small logical plans used by the tests. */
final class Plans {
    private Plans() {
    }

    /**
     * The topology as the stream manager hands it over: with resolved settings. The values are
     * the tests' own explicit ones; a key in the test's config_json stands for what Rust would
     * have resolved from it (the tests write numbers only).
     */
    static Topology withSettings(Topology t) {
        if (t.hasSettings()) {
            return t;
        }
        Map<String, Object> c = ConfigJson.parse(t.getConfigJson());
        TopologySettings s = TopologySettings.newBuilder()
                .setFrameMaxBytes((int) num(c, "egret.frame.max.bytes", 64 << 20))
                .setBatchSize((int) num(c, "egret.batch.size", 256))
                .setBatchFlushMs((int) num(c, "egret.batch.flush.ms", 5))
                .setBatchFlushIdle(!"false".equals(String.valueOf(c.get("egret.batch.flush.idle"))))
                .setInstanceInboundBytes(num(c, "egret.instance.inbound.bytes", 256 << 10))
                .setInstanceOutboundBytes(num(c, "egret.instance.outbound.bytes", 256 << 10))
                .setHighWatermarkBytes(512 << 10)
                .setLowWatermarkBytes(256 << 10)
                .setAcking(num(c, "topology.acker.executors", 1) != 0)
                .setMessageTimeoutSecs((int) num(c, "topology.message.timeout.secs", 30))
                .setMessageTimeouts(!Boolean.FALSE.equals(c.get("topology.enable.message.timeouts")))
                .build();
        return t.toBuilder().setSettings(s).build();
    }

    /** The task-to-component map the stream manager puts in an assignment (Storm's numbering). */
    static Map<Integer, String> taskComponent(Topology t) {
        return TopologyModel.of(t).taskToComponent();
    }

    private static long num(Map<String, Object> c, String key, long dflt) {
        Object v = c.get(key);
        return v instanceof Number ? ((Number) v).longValue() : dflt;
    }

    static Component.Builder spout(String id, int tasks, Serializable obj) {
        return Component.newBuilder().setId(id).setKind(ComponentKind.COMPONENT_KIND_SPOUT)
                .setParallelism(1).setNumTasks(tasks).setSerializedJava(java(obj)).setConfigJson("{}");
    }

    static Component.Builder bolt(String id, int tasks, Serializable obj) {
        return Component.newBuilder().setId(id).setKind(ComponentKind.COMPONENT_KIND_BOLT)
                .setParallelism(1).setNumTasks(tasks).setSerializedJava(java(obj)).setConfigJson("{}");
    }

    static StreamDef stream(String id, String... fields) {
        return StreamDef.newBuilder().setId(id).addAllFields(Arrays.asList(fields)).build();
    }

    static StreamDef directStream(String id, String... fields) {
        return StreamDef.newBuilder().setId(id).addAllFields(Arrays.asList(fields)).setDirect(true).build();
    }

    static InputDef input(String component, String stream, Grouping g) {
        return InputDef.newBuilder().setComponent(component).setStream(stream).setGrouping(g).build();
    }

    static Grouping shuffle() {
        return Grouping.newBuilder().setShuffle(Empty.getDefaultInstance()).build();
    }

    static Grouping fields(String... f) {
        return Grouping.newBuilder().setFields(FieldList.newBuilder().addAllFields(Arrays.asList(f))).build();
    }

    static Grouping all() {
        return Grouping.newBuilder().setAll(Empty.getDefaultInstance()).build();
    }

    static Grouping none() {
        return Grouping.newBuilder().setNone(Empty.getDefaultInstance()).build();
    }

    static Grouping direct() {
        return Grouping.newBuilder().setDirect(Empty.getDefaultInstance()).build();
    }

    static Grouping localOrShuffle() {
        return Grouping.newBuilder().setLocalOrShuffle(Empty.getDefaultInstance()).build();
    }

    static Grouping custom(Serializable g) {
        return Grouping.newBuilder().setCustomSerialized(java(g)).build();
    }

    static ByteString java(Serializable o) {
        try {
            return ByteString.copyFrom(JavaSerialization.serialize(o));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
