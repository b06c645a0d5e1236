package org.apache.storm.state;

import java.util.Iterator;
import java.util.Map;
import java.util.TreeSet;

/** A {@link BaseStateIterator} over byte-array keys and values (keys told apart by their bytes, unsigned). */
public abstract class BaseBinaryStateIterator<K, V> extends BaseStateIterator<K, V, byte[], byte[]> {
    public BaseBinaryStateIterator(Iterator<Map.Entry<byte[], byte[]>> pendingPrepareIterator,
                                   Iterator<Map.Entry<byte[], byte[]>> pendingCommitIterator) {
        super(pendingPrepareIterator, pendingCommitIterator, new TreeSet<>(BaseBinaryStateIterator::compareUnsigned));
    }

    private static int compareUnsigned(byte[] a, byte[] b) {
        return java.util.Arrays.compareUnsigned(a, b);
    }

    @Override
    protected abstract Iterator<Map.Entry<byte[], byte[]>> loadChunkFromStateStorage();

    @Override
    protected abstract boolean isEndOfDataFromStorage();

    @Override
    protected abstract K decodeKey(byte[] key);

    @Override
    protected abstract V decodeValue(byte[] value);

    @Override
    protected abstract boolean isTombstoneValue(byte[] value);
}
