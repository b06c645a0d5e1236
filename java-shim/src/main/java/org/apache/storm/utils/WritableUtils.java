package org.apache.storm.utils;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Hadoop's {@code WritableUtils} encodings, as Storm carries them: zero-compressed variable
 * length ints and longs (one byte for -112..127, else a length byte and big-endian bytes),
 * strings as an int length (-1 for null) and UTF-8 bytes, and gzip-compressed byte arrays.
 */
public final class WritableUtils {

    public WritableUtils() {
    }

    /** A gzip-compressed array written by {@link #writeCompressedByteArray}, or null. */
    public static byte[] readCompressedByteArray(DataInput in) throws IOException {
        int length = in.readInt();
        if (length == -1) {
            return null;
        }
        if (length < 0) {
            throw new IOException("invalid compressed byte array length " + length);
        }
        byte[] buffer = new byte[length];
        in.readFully(buffer);
        try (GZIPInputStream gzi = new GZIPInputStream(new ByteArrayInputStream(buffer))) {
            return gzi.readAllBytes();
        }
    }

    public static void skipCompressedByteArray(DataInput in) throws IOException {
        int length = in.readInt();
        if (length != -1) {
            skipFully(in, length);
        }
    }

    /** Writes {@code bytes} gzip-compressed; returns the compressed size in percent of the original (-1 for null). */
    public static int writeCompressedByteArray(DataOutput out, byte[] bytes) throws IOException {
        if (bytes == null) {
            out.writeInt(-1);
            return -1;
        }
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (GZIPOutputStream gzout = new GZIPOutputStream(bos)) {
            gzout.write(bytes, 0, bytes.length);
        }
        byte[] buffer = bos.toByteArray();
        out.writeInt(buffer.length);
        out.write(buffer, 0, buffer.length);
        return bytes.length != 0 ? (100 * buffer.length) / bytes.length : 0;
    }

    public static String readCompressedString(DataInput in) throws IOException {
        byte[] bytes = readCompressedByteArray(in);
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    public static int writeCompressedString(DataOutput out, String s) throws IOException {
        return writeCompressedByteArray(out, s != null ? s.getBytes(StandardCharsets.UTF_8) : null);
    }

    public static void writeString(DataOutput out, String s) throws IOException {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        byte[] buffer = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(buffer.length);
        out.write(buffer, 0, buffer.length);
    }

    public static String readString(DataInput in) throws IOException {
        int length = in.readInt();
        if (length == -1) {
            return null;
        }
        if (length < 0) {
            throw new IOException("invalid string length " + length);
        }
        byte[] buffer = new byte[length];
        in.readFully(buffer);
        return new String(buffer, StandardCharsets.UTF_8);
    }

    public static void writeStringArray(DataOutput out, String[] s) throws IOException {
        out.writeInt(s.length);
        for (String e : s) {
            writeString(out, e);
        }
    }

    public static void writeCompressedStringArray(DataOutput out, String[] s) throws IOException {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(s.length);
        for (String e : s) {
            writeCompressedString(out, e);
        }
    }

    public static String[] readStringArray(DataInput in) throws IOException {
        int len = in.readInt();
        if (len == -1) {
            return null;
        }
        String[] s = new String[len];
        for (int i = 0; i < len; i++) {
            s[i] = readString(in);
        }
        return s;
    }

    public static String[] readCompressedStringArray(DataInput in) throws IOException {
        int len = in.readInt();
        if (len == -1) {
            return null;
        }
        String[] s = new String[len];
        for (int i = 0; i < len; i++) {
            s[i] = readCompressedString(in);
        }
        return s;
    }

    /** Prints {@code record} as hex, 16 bytes a line, to standard output. */
    public static void displayByteArray(byte[] record) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < record.length; i++) {
            if (i % 16 == 0 && i > 0) {
                System.out.println(line);
                line.setLength(0);
            }
            line.append(String.format("%02x", record[i] & 0xff)).append(i % 16 == 15 ? "" : ",");
        }
        if (line.length() > 0) {
            System.out.println(line);
        }
    }

    public static void writeVInt(DataOutput stream, int i) throws IOException {
        writeVLong(stream, i);
    }

    /** One byte for -112..127; else a length byte (-113..-120 positive, -121..-128 negative) and the bytes. */
    public static void writeVLong(DataOutput stream, long i) throws IOException {
        if (i >= -112 && i <= 127) {
            stream.writeByte((byte) i);
            return;
        }
        int len = -112;
        if (i < 0) {
            i ^= -1L; // one's complement
            len = -120;
        }
        for (long tmp = i; tmp != 0; tmp >>= 8) {
            len--;
        }
        stream.writeByte((byte) len);
        int bytes = len < -120 ? -(len + 120) : -(len + 112);
        for (int idx = bytes; idx != 0; idx--) {
            int shift = (idx - 1) * 8;
            stream.writeByte((byte) ((i >> shift) & 0xFF));
        }
    }

    public static long readVLong(DataInput stream) throws IOException {
        byte first = stream.readByte();
        int len = decodeVIntSize(first);
        if (len == 1) {
            return first;
        }
        long i = 0;
        for (int idx = 0; idx < len - 1; idx++) {
            i = (i << 8) | (stream.readByte() & 0xFF);
        }
        return isNegativeVInt(first) ? (i ^ -1L) : i;
    }

    public static int readVInt(DataInput stream) throws IOException {
        long n = readVLong(stream);
        if (n > Integer.MAX_VALUE || n < Integer.MIN_VALUE) {
            throw new IOException("value too long to fit in integer");
        }
        return (int) n;
    }

    /** Whether a first byte of a variable length number starts a negative one. */
    public static boolean isNegativeVInt(byte value) {
        return value < -120 || (value >= -112 && value < 0);
    }

    /** The total size in bytes of the variable length number that starts with {@code value}. */
    public static int decodeVIntSize(byte value) {
        if (value >= -112) {
            return 1;
        } else if (value < -120) {
            return -119 - value;
        }
        return -111 - value;
    }

    /** The size in bytes {@link #writeVLong} writes for {@code i}. */
    public static int getVIntSize(long i) {
        if (i >= -112 && i <= 127) {
            return 1;
        }
        if (i < 0) {
            i ^= -1L;
        }
        int dataBits = Long.SIZE - Long.numberOfLeadingZeros(i);
        return (dataBits + 7) / 8 + 1;
    }

    public static void skipFully(DataInput in, int len) throws IOException {
        int total = 0;
        int cur;
        while (total < len && (cur = in.skipBytes(len - total)) > 0) {
            total += cur;
        }
        if (total < len) {
            throw new IOException("Not able to skip " + len + " bytes, possibly due to end of input.");
        }
    }
}
