package org.apache.storm.state;

import java.util.Optional;

/**
 * Encodes keys with the key serializer, and values as an {@link Optional} of the value
 * serializer's bytes (itself serialized with {@link #INTERNAL_VALUE_SERIALIZER}), so that a
 * deletion, {@link #TOMBSTONE}, is the empty Optional and never a value's bytes.
 */
public class DefaultStateEncoder<K, V> implements StateEncoder<K, V, byte[], byte[]> {
    public static final Serializer<Optional<byte[]>> INTERNAL_VALUE_SERIALIZER = new DefaultStateSerializer<>();
    public static final byte[] TOMBSTONE = INTERNAL_VALUE_SERIALIZER.serialize(Optional.empty());

    private final Serializer<K> keySerializer;
    private final Serializer<V> valueSerializer;

    public DefaultStateEncoder(Serializer<K> keySerializer, Serializer<V> valueSerializer) {
        this.keySerializer = keySerializer;
        this.valueSerializer = valueSerializer;
    }

    public Serializer<K> getKeySerializer() {
        return keySerializer;
    }

    public Serializer<V> getValueSerializer() {
        return valueSerializer;
    }

    @Override
    public byte[] encodeKey(K key) {
        return keySerializer.serialize(key);
    }

    @Override
    public byte[] encodeValue(V value) {
        return INTERNAL_VALUE_SERIALIZER.serialize(Optional.of(valueSerializer.serialize(value)));
    }

    @Override
    public K decodeKey(byte[] encodedKey) {
        return keySerializer.deserialize(encodedKey);
    }

    /** The value, or null for a tombstone. */
    @Override
    public V decodeValue(byte[] encodedValue) {
        Optional<byte[]> internal = INTERNAL_VALUE_SERIALIZER.deserialize(encodedValue);
        return internal.isPresent() ? valueSerializer.deserialize(internal.get()) : null;
    }

    @Override
    public byte[] getTombstoneValue() {
        return TOMBSTONE.clone();
    }
}
