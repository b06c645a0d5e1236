package org.apache.storm.testing;

import java.io.File;
import java.io.IOException;
import org.apache.storm.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A path under the temp directory (a new random name by default), deleted with its contents on {@link #close()}. */
public class TmpPath implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TmpPath.class);
    private final File path;

    public TmpPath() {
        this(localTempPath());
    }

    public TmpPath(String path) {
        this.path = new File(path);
    }

    /** A new path (not created) under {@code java.io.tmpdir}. */
    public static String localTempPath() {
        String dir = System.getProperty("java.io.tmpdir");
        String sep = Utils.isOnWindows() ? "\\" : "/";
        return (dir.endsWith(sep) ? dir : dir + sep) + Utils.uuid();
    }

    public String getPath() {
        return path.getAbsolutePath();
    }

    public File getFile() {
        return path;
    }

    @Override
    public void close() {
        if (path.exists()) {
            try {
                Utils.forceDelete(path.getPath());
            } catch (IOException e) {
                LOG.info(e.getMessage());
            }
        }
    }
}
