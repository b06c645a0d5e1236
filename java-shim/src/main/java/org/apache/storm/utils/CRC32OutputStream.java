package org.apache.storm.utils;

import java.io.OutputStream;
import java.util.zip.CRC32;

/** An output stream that keeps only the CRC-32 of what is written to it. */
public class CRC32OutputStream extends OutputStream {
    private final CRC32 crc = new CRC32();

    public CRC32OutputStream() {
    }

    /** The CRC-32 of every byte written so far. */
    public long getValue() {
        return crc.getValue();
    }

    @Override
    public void write(int b) {
        crc.update(b);
    }

    @Override
    public void write(byte[] bytes, int off, int len) {
        crc.update(bytes, off, len);
    }
}
