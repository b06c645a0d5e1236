package org.apache.storm.topology;

import org.apache.storm.generated.SharedMemory;
import org.apache.storm.utils.Utils;

/**
 * On-heap memory (MB) shared by every executor of a worker that declares it under the same
 * name: counted once per worker that holds at least one of those executors. A null name gets
 * a random one (a region of its own).
 */
public class SharedOnHeap extends SharedMemory {
    private static final long serialVersionUID = 1L;

    public SharedOnHeap(double amount, String name) {
        super(name == null ? Utils.uuid() : name);
        set_on_heap(amount);
    }
}
