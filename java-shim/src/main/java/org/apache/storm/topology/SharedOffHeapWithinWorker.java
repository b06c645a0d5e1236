package org.apache.storm.topology;

import org.apache.storm.generated.SharedMemory;
import org.apache.storm.utils.Utils;

/** Off-heap memory (MB) shared by the executors of a worker that declare it under the same name. */
public class SharedOffHeapWithinWorker extends SharedMemory {
    public SharedOffHeapWithinWorker(double amount, String name) {
        super(name == null ? Utils.uuid() : name);
        set_off_heap_worker(amount);
    }
}
