package dev.egret.instance;

import com.google.protobuf.ByteString;
import dev.egret.proto.Component;
import dev.egret.proto.ComponentKind;
import dev.egret.proto.Empty;
import dev.egret.proto.FieldList;
import dev.egret.proto.Grouping;
import dev.egret.proto.InputDef;
import dev.egret.proto.StreamDef;
import dev.egret.serialization.JavaSerialization;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Arrays;

/** Builders for small logical plans used by the tests. */
final class Plans {
    private Plans() {
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
