package org.apache.storm.utils;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A major.minor version, ordered numerically. Anything after the minor number ("-SNAPSHOT",
 * ".3") is ignored; a version without a minor number has minor -1, one that does not start
 * with a number has major -1.
 */
public class SimpleVersion implements Comparable<SimpleVersion> {
    private static final Pattern MAJOR_MINOR = Pattern.compile("^(\\d+)[.\\-_]+(\\d+).*$");
    private static final Pattern MAJOR_ONLY = Pattern.compile("^(\\d+).*$");

    private final int major;
    private final int minor;

    public SimpleVersion(String version) {
        Matcher m = version == null ? null : MAJOR_MINOR.matcher(version);
        if (m != null && m.matches()) {
            major = Integer.parseInt(m.group(1));
            minor = Integer.parseInt(m.group(2));
            return;
        }
        Matcher only = version == null ? null : MAJOR_ONLY.matcher(version);
        if (only != null && only.matches()) {
            major = Integer.parseInt(only.group(1));
            minor = -1;
        } else {
            major = -1;
            minor = -1;
        }
    }

    public int getMajor() {
        return major;
    }

    public int getMinor() {
        return minor;
    }

    @Override
    public int hashCode() {
        return (Integer.hashCode(major) * 17) & Integer.hashCode(minor);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof SimpleVersion)) {
            return false;
        }
        return compareTo((SimpleVersion) o) == 0;
    }

    @Override
    public int compareTo(SimpleVersion o) {
        int c = Integer.compare(major, o.major);
        return c != 0 ? c : Integer.compare(minor, o.minor);
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
