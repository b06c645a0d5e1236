package org.apache.storm.topology;

import org.apache.storm.generated.SharedMemory;

/** Resource requests of a component (per executor). */
public interface ResourceDeclarer<T extends ResourceDeclarer> {
    /** On-heap memory in MB. */
    T setMemoryLoad(Number onHeap);

    /** On-heap and off-heap memory in MB. */
    T setMemoryLoad(Number onHeap, Number offHeap);

    /** CPU in percent of a core (100 = one core). */
    T setCPULoad(Number amount);

    T addSharedMemory(SharedMemory request);
}
