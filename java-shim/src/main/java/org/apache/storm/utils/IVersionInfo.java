package org.apache.storm.utils;

/** The build facts of one Storm API implementation (version, revision, branch, date, checksum). */
public interface IVersionInfo {
    String getVersion();

    String getRevision();

    String getBranch();

    String getDate();

    String getSrcChecksum();

    String getBuildVersion();
}
