package org.apache.storm.utils;

import java.util.List;

/** A scheduling strategy class that {@code nimbus.scheduler.strategy.class.whitelist} does not allow. */
public class DisallowedStrategyException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String attemptedClass;
    private final List<String> allowedStrategies;

    public DisallowedStrategyException(String attemptedClass, List<String> allowedStrategies) {
        super(attemptedClass + " is not an allowed strategy. Please make sure your "
                + org.apache.storm.Config.TOPOLOGY_SCHEDULER_STRATEGY
                + " config is one of the allowed strategies: " + allowedStrategies);
        this.attemptedClass = attemptedClass;
        this.allowedStrategies = allowedStrategies;
    }

    public String getAttemptedClass() {
        return attemptedClass;
    }

    public List<String> getAllowedStrategies() {
        return allowedStrategies;
    }
}
