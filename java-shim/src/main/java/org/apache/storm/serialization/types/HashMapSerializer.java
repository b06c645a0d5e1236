package org.apache.storm.serialization.types;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.serializers.MapSerializer;
import java.util.HashMap;

/** HashMap serializer that pre-sizes the map it reads. */
public class HashMapSerializer extends MapSerializer<HashMap> {
    public HashMapSerializer() {
    }

    @Override
    protected HashMap<String, Object> create(Kryo kryo, Input input, Class<? extends HashMap> type, int size) {
        return new HashMap<>(Math.max(16, (int) (size / 0.75f) + 1));
    }
}
