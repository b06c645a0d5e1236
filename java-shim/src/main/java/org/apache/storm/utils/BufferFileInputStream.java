package org.apache.storm.utils;

import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Arrays;

/**
 * Reads a file in chunks of up to {@code bufferSize} bytes (default 15 KiB); {@link #read()}
 * returns an empty array at the end of the file.
 */
public class BufferFileInputStream {
    private final byte[] buffer;
    private final FileInputStream stream;

    public BufferFileInputStream(String file, int bufferSize) throws FileNotFoundException {
        if (bufferSize <= 0) {
            throw new IllegalArgumentException("bufferSize must be positive, was " + bufferSize);
        }
        this.stream = new FileInputStream(file);
        this.buffer = new byte[bufferSize];
    }

    public BufferFileInputStream(String file) throws FileNotFoundException {
        this(file, 15 * 1024);
    }

    /** The next chunk, or an empty array at the end of the file. */
    public byte[] read() throws IOException {
        int n = stream.read(buffer);
        if (n <= 0) {
            return new byte[0];
        }
        return n == buffer.length ? buffer.clone() : Arrays.copyOf(buffer, n);
    }

    public void close() throws IOException {
        stream.close();
    }
}
