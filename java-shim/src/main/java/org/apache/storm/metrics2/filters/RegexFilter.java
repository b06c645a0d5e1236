package org.apache.storm.metrics2.filters;

import com.codahale.metrics.Metric;
import java.util.Map;
import java.util.regex.Pattern;

/** Accepts the metrics whose full name matches the regular expression {@code expression} (whole name). */
public class RegexFilter implements StormMetricsFilter {
    private Pattern pattern;

    public RegexFilter() {
    }

    @Override
    public void prepare(Map<String, Object> config) {
        Object expression = config == null ? null : config.get("expression");
        if (expression == null) {
            throw new IllegalStateException("RegexFilter requires an 'expression' parameter.");
        }
        pattern = Pattern.compile(expression.toString());
    }

    @Override
    public boolean matches(String name, Metric metric) {
        if (pattern == null) {
            throw new IllegalStateException("RegexFilter used before prepare (it requires an 'expression' parameter)");
        }
        return pattern.matcher(name).matches();
    }
}
