package org.apache.storm.state;

import java.util.AbstractMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * Iterates a key-value state's entries as its storage-backed implementations see them: first
 * the changes pending prepare, then those pending commit, then the committed data the storage
 * hands out in chunks ({@link #loadChunkFromStateStorage} until {@link #isEndOfDataFromStorage}).
 * A key appears once, from the first source that has it; a tombstone hides the key from the
 * later sources and is not returned. Not thread-safe; {@link #remove} is not supported.
 */
public abstract class BaseStateIterator<K, V, KENCODEDT, VENCODEDT> implements Iterator<Map.Entry<K, V>> {
    private final Iterator<Map.Entry<KENCODEDT, VENCODEDT>> pendingPrepareIterator;
    private final Iterator<Map.Entry<KENCODEDT, VENCODEDT>> pendingCommitIterator;
    private final Set<KENCODEDT> providedKeys;
    private Iterator<Map.Entry<KENCODEDT, VENCODEDT>> chunk;
    private int source;
    private Map.Entry<K, V> nextEntry;

    /**
     * @param providedKeys an empty set that tells encoded keys apart by content (for byte arrays,
     *     a set ordered by their bytes)
     */
    public BaseStateIterator(Iterator<Map.Entry<KENCODEDT, VENCODEDT>> pendingPrepareIterator,
                             Iterator<Map.Entry<KENCODEDT, VENCODEDT>> pendingCommitIterator,
                             Set<KENCODEDT> providedKeys) {
        this.pendingPrepareIterator = pendingPrepareIterator;
        this.pendingCommitIterator = pendingCommitIterator;
        this.providedKeys = providedKeys;
    }

    @Override
    public boolean hasNext() {
        while (nextEntry == null) {
            Iterator<Map.Entry<KENCODEDT, VENCODEDT>> it = currentSource();
            if (it == null) {
                return false;
            }
            if (!it.hasNext()) {
                advanceSource();
                continue;
            }
            Map.Entry<KENCODEDT, VENCODEDT> e = it.next();
            if (!providedKeys.add(e.getKey())) {
                continue;
            }
            if (isTombstoneValue(e.getValue())) {
                continue;
            }
            nextEntry = new AbstractMap.SimpleImmutableEntry<>(decodeKey(e.getKey()), decodeValue(e.getValue()));
        }
        return true;
    }

    private Iterator<Map.Entry<KENCODEDT, VENCODEDT>> currentSource() {
        switch (source) {
            case 0:
                return pendingPrepareIterator;
            case 1:
                return pendingCommitIterator;
            default:
                while (chunk == null || !chunk.hasNext()) {
                    if (isEndOfDataFromStorage()) {
                        return null;
                    }
                    chunk = loadChunkFromStateStorage();
                }
                return chunk;
        }
    }

    private void advanceSource() {
        if (source < 2) {
            source++;
        }
    }

    @Override
    public Map.Entry<K, V> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Map.Entry<K, V> ret = nextEntry;
        nextEntry = null;
        return ret;
    }

    @Override
    public void remove() {
        throw new UnsupportedOperationException("A state iterator is read-only");
    }

    /** The next chunk of committed entries from the storage (null or empty when none now). */
    protected abstract Iterator<Map.Entry<KENCODEDT, VENCODEDT>> loadChunkFromStateStorage();

    /** Whether the storage has no more chunks. */
    protected abstract boolean isEndOfDataFromStorage();

    protected abstract K decodeKey(KENCODEDT key);

    protected abstract V decodeValue(VENCODEDT value);

    protected abstract boolean isTombstoneValue(VENCODEDT value);
}
