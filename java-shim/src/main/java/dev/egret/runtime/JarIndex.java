package dev.egret.runtime;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.jar.Attributes;
import java.util.jar.Manifest;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import java.util.zip.ZipException;

/**
 * One jar of a topology's class path, read through a compact index of its central directory.
 *
 * <p>The JDK's {@code ZipFile} keeps a jar's whole central directory on the heap for as long as
 * the jar is open: for a fat jar of 126 000 entries (storm-perf's) that is about 15 MiB in
 * every JVM that has it on its class path. This index reads the central directory once, in
 * 1 MiB chunks, and keeps 20 bytes per entry: a hash of the name, where the entry's local
 * header is, its compression method and its two sizes, sorted by hash. A lookup is a binary
 * search; a hit is confirmed by the name in the entry's local header, which is read anyway to
 * find the data (so two names with one hash are told apart). Reads seek and read a {@link
 * RandomAccessFile} under its lock, from any thread: not a {@code FileChannel}, which an
 * interrupted reader closes for every thread after it (as the JDK's {@code ZipFile} does not).
 *
 * <p>What {@code JarFile} does that matters to class loading is kept: names are UTF-8; the last
 * of two entries with one name wins; ZIP64 jars (more than 65 535 entries, or offsets past
 * 4 GiB) are read; entries that carry their sizes in a data descriptor are read from the
 * central directory's sizes; a {@code Multi-Release: true} manifest makes {@code
 * META-INF/versions/N/} entries, N up to the running Java's feature version, win over the base
 * entry. Signatures are not verified (as Storm's workers, which do not check them either).
 */
final class JarIndex implements AutoCloseable {
    private static final int LOC_SIG = 0x04034b50;
    private static final int CEN_SIG = 0x02014b50;
    private static final int END_SIG = 0x06054b50;
    private static final int ZIP64_END_SIG = 0x06064b50;
    private static final int ZIP64_LOC_SIG = 0x07064b50;
    private static final int LOC_HEADER = 30;
    private static final int CEN_HEADER = 46;
    private static final int END_HEADER = 22;
    private static final int ZIP64_LOC_SIZE = 20;
    private static final int CHUNK = 1 << 20;
    private static final int STORED = 0;
    private static final int DEFLATED = 8;
    private static final String VERSIONS = "META-INF/versions/";
    private static final String MANIFEST = "META-INF/MANIFEST.MF";

    private final Path path;
    private final RandomAccessFile file;
    private final long fileSize;
    private final URL url;
    /** Name hashes, sorted; equal hashes keep the central directory's order. */
    private final int[] hashes;
    /** Per entry: the local header's offset (low 56 bits) and the method (high 8). */
    private final long[] where;
    /** Per entry: the compressed size (high 32 bits) and the size (low 32), unsigned. */
    private final long[] sizes;
    private final Manifest manifest;
    /** Versions of Multi-Release entries present, highest first (empty when not one). */
    private final int[] versions;
    private java.util.jar.JarFile jarFile;

    private JarIndex(Path path, RandomAccessFile file, long fileSize, int[] hashes, long[] where, long[] sizes,
            java.util.BitSet versioned) throws IOException {
        this.path = path;
        this.file = file;
        this.fileSize = fileSize;
        this.url = path.toUri().toURL();
        this.hashes = hashes;
        this.where = where;
        this.sizes = sizes;
        byte[] mf = readIfPresent(MANIFEST);
        this.manifest = mf == null ? null : new Manifest(new ByteArrayInputStream(mf));
        this.versions = multiRelease(manifest) ? presentVersions(versioned) : new int[0];
    }

    /** Opens {@code jar} and reads its central directory into the index. */
    static JarIndex open(Path jar) throws IOException {
        RandomAccessFile file = new RandomAccessFile(jar.toFile(), "r");
        try {
            return read(jar.toAbsolutePath(), file);
        } catch (ZipException e) {
            file.close();
            throw new ZipException(jar + ": " + e.getMessage());
        } catch (IOException e) {
            file.close();
            throw new IOException(jar + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /** The jar's file. */
    Path path() {
        return path;
    }

    /** The jar's {@code file:} URL (its classes' code source). */
    URL url() {
        return url;
    }

    /** The jar's manifest, or null. */
    Manifest manifest() {
        return manifest;
    }

    /** How many entries the index holds. */
    int size() {
        return hashes.length;
    }

    /** An entry found by name: its place in the index, where its data starts, its full name. */
    record Entry(int index, long data, String name) {}

    /**
     * The entry a class loader reads for {@code name}: with Multi-Release the highest versioned
     * entry up to the running Java's ({@code META-INF/versions/N/name}), else the base entry;
     * null if none.
     */
    Entry find(String name) throws IOException {
        if (versions.length > 0 && !name.startsWith("META-INF/")) {
            for (int v : versions) {
                Entry e = findExact(VERSIONS + v + "/" + name);
                if (e != null) {
                    return e;
                }
            }
        }
        return findExact(name);
    }

    /** The entry named exactly {@code name} (the last of equal names), or null. */
    Entry findExact(String name) throws IOException {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        int h = hash(bytes, 0, bytes.length);
        int lo = 0;
        int hi = hashes.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (hashes[mid] < h) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        // lo: the first entry with hash h, if any. The last with a matching name wins.
        int end = lo;
        while (end < hashes.length && hashes[end] == h) {
            end++;
        }
        for (int i = end - 1; i >= lo; i--) {
            long data = dataIfNamed(i, bytes);
            if (data >= 0) {
                return new Entry(i, data, name);
            }
        }
        return null;
    }

    /** The uncompressed size of {@code entry}. */
    long sizeOf(Entry entry) {
        return sizes[entry.index()] & 0xffffffffL;
    }

    /** The whole of {@code entry}. */
    byte[] read(Entry entry) throws IOException {
        int e = entry.index();
        long size = sizes[e] & 0xffffffffL;
        long csize = sizes[e] >>> 32;
        if (size > Integer.MAX_VALUE - 8 || csize > Integer.MAX_VALUE - 8) {
            throw new ZipException(path + ": an entry of " + size + " bytes is too large to read whole");
        }
        long data = entry.data();
        int method = (int) (where[e] >>> 56);
        if (method == STORED) {
            byte[] out = new byte[(int) size];
            readFully(data, out, 0, out.length);
            return out;
        }
        // One byte more than the data: an Inflater without a zlib wrapper may want it.
        byte[] in = new byte[(int) csize + 1];
        readFully(data, in, 0, (int) csize);
        byte[] out = new byte[(int) size];
        Inflater inflater = new Inflater(true);
        try {
            inflater.setInput(in);
            int n = 0;
            while (n < out.length) {
                int got = inflater.inflate(out, n, out.length - n);
                if (got == 0 && (inflater.finished() || inflater.needsInput() || inflater.needsDictionary())) {
                    break;
                }
                n += got;
            }
            if (n != out.length) {
                throw new ZipException(path + ": a deflated entry ends after " + n + " of its " + size + " bytes");
            }
            return out;
        } catch (DataFormatException ex) {
            throw new ZipException(path + ": a deflated entry is corrupt: " + ex.getMessage());
        } finally {
            inflater.end();
        }
    }

    /** A stream over {@code entry}. */
    InputStream open(Entry entry) throws IOException {
        return new ByteArrayInputStream(read(entry));
    }

    /**
     * The jar opened the JDK's way (its whole central directory on the heap), once, for
     * callers that ask a {@code jar:} connection for its {@link java.util.jar.JarFile}.
     */
    synchronized java.util.jar.JarFile jarFile() throws IOException {
        if (jarFile == null) {
            jarFile = new java.util.jar.JarFile(path.toFile(), true, java.util.zip.ZipFile.OPEN_READ,
                    java.util.jar.JarFile.runtimeVersion());
        }
        return jarFile;
    }

    @Override
    public synchronized void close() throws IOException {
        try {
            file.close();
        } finally {
            if (jarFile != null) {
                jarFile.close();
            }
        }
    }

    /** A {@code jar:} URL of {@code name} in this jar, encoded as the JDK's own class loaders do. */
    URL entryUrl(String name, java.net.URLStreamHandler handler) throws MalformedURLException {
        return new URL("jar", "", -1, url.toExternalForm() + "!/" + encodePath(name), handler);
    }

    // ---- reading the central directory --------------------------------------------------

    private static JarIndex read(Path path, RandomAccessFile file) throws IOException {
        long fileSize = file.length();
        if (fileSize < END_HEADER) {
            throw new ZipException("not a zip file (" + fileSize + " bytes)");
        }
        // The end record: the last END_SIG within the last 64 KiB + 22 bytes (its comment).
        int tailLen = (int) Math.min(fileSize, END_HEADER + 0xffff);
        ByteBuffer tail = ByteBuffer.allocate(tailLen).order(ByteOrder.LITTLE_ENDIAN);
        readFully(file, fileSize - tailLen, tail.array(), 0, tailLen);
        int endAt = -1;
        for (int i = tailLen - END_HEADER; i >= 0; i--) {
            if (tail.getInt(i) == END_SIG && i + END_HEADER + (tail.getShort(i + 20) & 0xffff) <= tailLen) {
                endAt = i;
                break;
            }
        }
        if (endAt < 0) {
            throw new ZipException("not a zip file (no end of central directory record)");
        }
        long endPos = fileSize - tailLen + endAt;
        long classicEnd = endPos;
        long total = tail.getShort(endAt + 10) & 0xffff;
        long cenSize = tail.getInt(endAt + 12) & 0xffffffffL;
        long cenOffset = tail.getInt(endAt + 16) & 0xffffffffL;
        // ZIP64: the locator just before the end record points at the ZIP64 end record.
        if (endPos >= ZIP64_LOC_SIZE) {
            ByteBuffer loc = ByteBuffer.allocate(ZIP64_LOC_SIZE).order(ByteOrder.LITTLE_ENDIAN);
            readFully(file, classicEnd - ZIP64_LOC_SIZE, loc.array(), 0, ZIP64_LOC_SIZE);
            if (loc.getInt(0) == ZIP64_LOC_SIG) {
                long z64 = loc.getLong(8);
                ByteBuffer rec = ByteBuffer.allocate(56).order(ByteOrder.LITTLE_ENDIAN);
                if (z64 >= 0 && z64 + 56 <= classicEnd) {
                    readFully(file, z64, rec.array(), 0, 56);
                    if (rec.getInt(0) == ZIP64_END_SIG) {
                        total = rec.getLong(32);
                        cenSize = rec.getLong(40);
                        cenOffset = rec.getLong(48);
                        // The central directory ends where the ZIP64 end record starts.
                        endPos = z64;
                    }
                }
            }
        }
        if (cenOffset < 0 || cenSize < 0 || cenOffset + cenSize > endPos || total < 0
                || total > cenSize / CEN_HEADER) {
            throw new ZipException("the central directory's bounds are invalid");
        }
        // Jars with a prefix (a launcher script before the zip) shift every offset by it.
        long shift = endPos - cenSize - cenOffset;
        int n = (int) total;
        long[] keys = new long[n];
        long[] where = new long[n];
        long[] sizes = new long[n];
        java.util.BitSet versioned = new java.util.BitSet();
        ChunkReader in = new ChunkReader(file, cenOffset + shift, cenSize);
        // Plain array reads (not ByteBuffer getters): this runs as a JVM starts, interpreted.
        for (int i = 0; i < n; i++) {
            in.need(CEN_HEADER);
            byte[] b = in.buf;
            int p = in.pos;
            if (u32(b, p) != (CEN_SIG & 0xffffffffL)) {
                throw new ZipException("entry " + i + " of the central directory has a bad signature");
            }
            int method = u16(b, p + 10);
            long csize = u32(b, p + 20);
            long size = u32(b, p + 24);
            int nameLen = u16(b, p + 28);
            int extraLen = u16(b, p + 30);
            int commentLen = u16(b, p + 32);
            long locOffset = u32(b, p + 42);
            in.pos = p + CEN_HEADER;
            in.need(nameLen + extraLen + commentLen);
            b = in.buf;
            p = in.pos;
            int h = hash(b, p, nameLen);
            if (nameLen > VERSIONS_BYTES.length && b[p] == 'M') {
                noteVersion(b, p, nameLen, versioned);
            }
            if (size == 0xffffffffL || csize == 0xffffffffL || locOffset == 0xffffffffL) {
                // The ZIP64 extra field holds, in this order, those of the three that overflow.
                int x = p + nameLen;
                int xEnd = x + extraLen;
                while (x + 4 <= xEnd) {
                    int tag = u16(b, x);
                    int len = u16(b, x + 2);
                    if (tag == 0x0001) {
                        int f = x + 4;
                        int fEnd = Math.min(f + len, xEnd);
                        if (size == 0xffffffffL && f + 8 <= fEnd) {
                            size = u64(b, f);
                            f += 8;
                        }
                        if (csize == 0xffffffffL && f + 8 <= fEnd) {
                            csize = u64(b, f);
                            f += 8;
                        }
                        if (locOffset == 0xffffffffL && f + 8 <= fEnd) {
                            locOffset = u64(b, f);
                        }
                        break;
                    }
                    x += 4 + len;
                }
            }
            in.pos = p + nameLen + extraLen + commentLen;
            if (method != STORED && method != DEFLATED) {
                // Neither the JDK's class loaders nor this one can read it: left out of the index.
                method = 0xff;
            }
            // Sizes past 4 GiB cannot be read whole into an array anyway: capped, read refused.
            long capped = (Math.min(csize, 0xffffffffL) << 32) | Math.min(size, 0xffffffffL);
            keys[i] = ((long) h << 32) | i;
            where[i] = ((long) method << 56) | ((locOffset + shift) & 0x00ffffffffffffffL);
            sizes[i] = capped;
        }
        // Sorted by hash, then by position in the central directory.
        Arrays.sort(keys);
        int[] hashes = new int[n];
        long[] sortedWhere = new long[n];
        long[] sortedSizes = new long[n];
        int kept = 0;
        for (int i = 0; i < n; i++) {
            int at = (int) keys[i];
            if ((where[at] >>> 56) == 0xff) {
                continue;
            }
            hashes[kept] = (int) (keys[i] >> 32);
            sortedWhere[kept] = where[at];
            sortedSizes[kept] = sizes[at];
            kept++;
        }
        if (kept < n) {
            hashes = Arrays.copyOf(hashes, kept);
            sortedWhere = Arrays.copyOf(sortedWhere, kept);
            sortedSizes = Arrays.copyOf(sortedSizes, kept);
        }
        return new JarIndex(path, file, fileSize, hashes, sortedWhere, sortedSizes, versioned);
    }

    /** Reads a region of the file in chunks, with a header and its variable part always whole. */
    private static final class ChunkReader {
        private final RandomAccessFile file;
        private long next;
        private final long end;
        /** The chunk; {@link #pos} is the next unread byte, {@link #limit} the end of what was read. */
        byte[] buf = new byte[CHUNK];
        int pos;
        int limit;

        ChunkReader(RandomAccessFile file, long start, long length) {
            this.file = file;
            this.next = start;
            this.end = start + length;
        }

        /** Makes at least {@code n} bytes readable from {@link #pos}. */
        void need(int n) throws IOException {
            if (limit - pos >= n) {
                return;
            }
            int kept = limit - pos;
            byte[] into = n > buf.length ? new byte[n] : buf;
            System.arraycopy(buf, pos, into, 0, kept);
            buf = into;
            pos = 0;
            limit = kept;
            while (limit < n) {
                int want = (int) Math.min(buf.length - limit, end - next);
                if (want <= 0) {
                    throw new ZipException("the central directory ends inside an entry");
                }
                readFully(file, next, buf, limit, want);
                next += want;
                limit += want;
            }
        }
    }

    private static int u16(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8;
    }

    private static long u32(byte[] b, int at) {
        return ((b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (long) (b[at + 3] & 0xff) << 24)
                & 0xffffffffL;
    }

    private static long u64(byte[] b, int at) {
        return u32(b, at) | u32(b, at + 4) << 32;
    }

    // ---- entries ----------------------------------------------------------------------------

    /**
     * Where entry {@code e}'s data starts when its local header names it {@code name}, else -1:
     * one read of the header and the name.
     */
    private long dataIfNamed(int e, byte[] name) throws IOException {
        byte[] head = new byte[LOC_HEADER + name.length];
        long at = where[e] & 0x00ffffffffffffffL;
        if (at + head.length > fileSize) {
            return -1;
        }
        readFully(at, head, 0, head.length);
        ByteBuffer b = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(0) != LOC_SIG || (b.getShort(26) & 0xffff) != name.length
                || !Arrays.equals(head, LOC_HEADER, head.length, name, 0, name.length)) {
            return -1;
        }
        return at + LOC_HEADER + name.length + (b.getShort(28) & 0xffff);
    }

    private byte[] readIfPresent(String name) throws IOException {
        Entry e = findExact(name);
        return e == null ? null : read(e);
    }

    private void readFully(long position, byte[] into, int off, int len) throws IOException {
        readFully(file, position, into, off, len);
    }

    private static void readFully(RandomAccessFile f, long position, byte[] into, int off, int len)
            throws IOException {
        synchronized (f) {
            f.seek(position);
            f.readFully(into, off, len);
        }
    }

    private static boolean multiRelease(Manifest m) {
        if (m == null || Runtime.version().feature() < 9) {
            return false;
        }
        return "true".equalsIgnoreCase(m.getMainAttributes().getValue(Attributes.Name.MULTI_RELEASE));
    }

    private static final byte[] VERSIONS_BYTES = VERSIONS.getBytes(StandardCharsets.US_ASCII);

    /** Sets N in {@code versioned} for a name {@code META-INF/versions/N/...}. */
    private static void noteVersion(byte[] b, int off, int len, java.util.BitSet versioned) {
        int prefix = VERSIONS_BYTES.length;
        if (len <= prefix || !Arrays.equals(b, off, off + prefix, VERSIONS_BYTES, 0, prefix)) {
            return;
        }
        int v = 0;
        int i = off + prefix;
        for (; i < off + len && b[i] >= '0' && b[i] <= '9' && v < 10_000; i++) {
            v = v * 10 + (b[i] - '0');
        }
        if (i > off + prefix && i < off + len && b[i] == '/') {
            versioned.set(v);
        }
    }

    /** The versions N (9 up to this Java's) of META-INF/versions/N/ entries present, highest first. */
    private static int[] presentVersions(java.util.BitSet versioned) {
        int runtime = Runtime.version().feature();
        return versioned.stream().filter(v -> v >= 9 && v <= runtime).map(v -> -v).sorted().map(v -> -v).toArray();
    }

    /** FNV-1a over the bytes, then a finalizing mix (names share long prefixes). */
    static int hash(byte[] b, int off, int len) {
        int h = 0x811c9dc5;
        for (int i = off; i < off + len; i++) {
            h ^= b[i] & 0xff;
            h *= 0x01000193;
        }
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /**
     * {@code name} as a URL path: the characters a URL path cannot hold raw are %-escaped (as
     * UTF-8 bytes), as the JDK's class loaders escape resource names in their URLs.
     */
    static String encodePath(String name) {
        StringBuilder out = null;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean plain = c > 0x20 && c < 0x7f && "\"#%<>?[\\]^`{|}".indexOf(c) < 0;
            if (plain) {
                if (out != null) {
                    out.append(c);
                }
                continue;
            }
            if (out == null) {
                out = new StringBuilder(name.length() + 16).append(name, 0, i);
            }
            int end = i + 1;
            if (Character.isHighSurrogate(c) && end < name.length()) {
                end++;
            }
            for (byte x : name.substring(i, end).getBytes(StandardCharsets.UTF_8)) {
                out.append('%').append(HEX[(x >> 4) & 0xf]).append(HEX[x & 0xf]);
            }
            i = end - 1;
        }
        return out == null ? name : out.toString();
    }

    /** Undoes {@link #encodePath} (and any other %-escapes). */
    static String decodePath(String path) {
        if (path.indexOf('%') < 0) {
            return path;
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '%' && i + 2 < path.length()) {
                int hi = Character.digit(path.charAt(i + 1), 16);
                int lo = Character.digit(path.charAt(i + 2), 16);
                if (hi >= 0 && lo >= 0) {
                    out.write((hi << 4) | lo);
                    i += 2;
                    continue;
                }
            }
            byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
            out.write(b, 0, b.length);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
