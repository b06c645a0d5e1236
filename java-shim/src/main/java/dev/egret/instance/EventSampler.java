package dev.egret.instance;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The event logging of one executor (Storm's debug options of its component, as the stream
 * manager hands them: in the assignment, then {@code event_logging} changes): the percentage of
 * emitted tuples also sent to the event logger on {@code __eventlog}. Read on every emit, from
 * whatever thread emits; set by the executor thread.
 */
final class EventSampler {
    private volatile double pct;

    EventSampler(double pct) {
        set(pct);
    }

    /** 0 (or less, or not a number): none; 100 (or more): every tuple. */
    void set(double pct) {
        this.pct = Double.isNaN(pct) ? 0.0 : pct;
    }

    double pct() {
        return pct;
    }

    /** True for about {@code pct} percent of calls, as Storm draws it (uniform in [0, 100)). */
    boolean sample() {
        double p = pct;
        return p > 0 && ThreadLocalRandom.current().nextDouble() * 100 < p;
    }
}
