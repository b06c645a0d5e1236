package org.apache.storm.serialization.types;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.serializers.CollectionSerializer;
import java.util.HashSet;

/** HashSet serializer that pre-sizes the set it reads. */
public class HashSetSerializer extends CollectionSerializer<HashSet> {
    public HashSetSerializer() {
    }

    @Override
    protected HashSet create(Kryo kryo, Input input, Class<? extends HashSet> type, int size) {
        return new HashSet(Math.max(16, (int) (size / 0.75f) + 1));
    }
}
