package org.apache.storm.serialization.types;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.serializers.CollectionSerializer;
import org.apache.storm.utils.ListDelegate;

/** Kryo's collection format for a {@link ListDelegate} (Storm's default {@code topology.tuple.serializer}). */
public class ListDelegateSerializer extends CollectionSerializer<ListDelegate> {
    public ListDelegateSerializer() {
    }

    @Override
    public ListDelegate create(Kryo kryo, Input input, Class<? extends ListDelegate> type, int size) {
        return new ListDelegate();
    }
}
