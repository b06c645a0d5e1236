package dev.egret.logging;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * Egret's SLF4J binding: one line per event on stdout,
 * {@code yyyy-MM-dd HH:mm:ss.SSS [thread] LEVEL logger - message}. The level comes from
 * the system property {@code egret.log.level} (TRACE, DEBUG, INFO, WARN, ERROR, OFF;
 * default INFO). stdout is the instance's log file (the container redirects it).
 */
public final class EgretServiceProvider implements SLF4JServiceProvider {
    /** The slf4j API version this provider is written against. */
    public static final String REQUESTED_API_VERSION = "2.0.99";

    private ILoggerFactory loggerFactory;
    private IMarkerFactory markerFactory;
    private MDCAdapter mdcAdapter;

    public EgretServiceProvider() {
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return loggerFactory;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markerFactory;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdcAdapter;
    }

    @Override
    public String getRequestedApiVersion() {
        return REQUESTED_API_VERSION;
    }

    @Override
    public void initialize() {
        loggerFactory = new EgretLoggerFactory(EgretLogger.parseLevel(System.getProperty("egret.log.level")));
        markerFactory = new BasicMarkerFactory();
        mdcAdapter = new NOPMDCAdapter();
    }
}
