package org.apache.storm.serialization.types;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.serializers.CollectionSerializer;
import java.util.ArrayList;

/** ArrayList serializer that pre-sizes the list it reads. */
public class ArrayListSerializer extends CollectionSerializer<ArrayList> {
    public ArrayListSerializer() {
    }

    @Override
    public ArrayList create(Kryo kryo, Input input, Class<? extends ArrayList> type, int size) {
        return new ArrayList(size);
    }
}
