package org.apache.storm.topology.base;

import java.util.Map;
import org.apache.storm.topology.IComponent;

/** A component with no component-level configuration. */
public abstract class BaseComponent implements IComponent {
    public BaseComponent() {
    }

    @Override
    public Map<String, Object> getComponentConfiguration() {
        return null;
    }
}
