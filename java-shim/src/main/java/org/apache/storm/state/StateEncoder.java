package org.apache.storm.state;

/** How a key-value state's keys and values are encoded for its storage, and how a deletion is marked. */
public interface StateEncoder<K, V, KENCODEDT, VENCODEDT> {
    KENCODEDT encodeKey(K key);

    VENCODEDT encodeValue(V value);

    K decodeKey(KENCODEDT encodedKey);

    V decodeValue(VENCODEDT encodedValue);

    /** The stored value that marks a key as deleted. */
    VENCODEDT getTombstoneValue();
}
