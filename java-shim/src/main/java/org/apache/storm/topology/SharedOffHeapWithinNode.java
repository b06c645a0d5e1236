package org.apache.storm.topology;

import org.apache.storm.generated.SharedMemory;
import org.apache.storm.utils.Utils;

/** Off-heap memory (MB) shared by the executors on one node that declare it under the same name. */
public class SharedOffHeapWithinNode extends SharedMemory {
    private static final long serialVersionUID = 1L;

    public SharedOffHeapWithinNode(double amount, String name) {
        super(name == null ? Utils.uuid() : name);
        set_off_heap_node(amount);
    }
}
