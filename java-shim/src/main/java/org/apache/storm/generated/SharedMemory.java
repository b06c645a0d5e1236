package org.apache.storm.generated;

/** A named shared-memory request (RAS). Accepted and recorded; Egret's packer does not use it. */
public class SharedMemory implements java.io.Serializable, Cloneable {
    private static final long serialVersionUID = 1L;

    private String name;
    private double onHeap;
    private double offHeapWorker;
    private double offHeapNode;

    public SharedMemory() {
    }

    public SharedMemory(String name) {
        this.name = name;
    }

    public SharedMemory(SharedMemory other) {
        this.name = other.name;
        this.onHeap = other.onHeap;
        this.offHeapWorker = other.offHeapWorker;
        this.offHeapNode = other.offHeapNode;
    }

    public void clear() {
        name = null;
        onHeap = 0;
        offHeapWorker = 0;
        offHeapNode = 0;
    }

    public String get_name() {
        return name;
    }

    public void set_name(String name) {
        this.name = name;
    }

    public void set_name_isSet(boolean value) {
        if (!value) {
            name = null;
        }
    }

    public double get_on_heap() {
        return onHeap;
    }

    public void set_on_heap(double onHeap) {
        this.onHeap = onHeap;
    }

    public void set_on_heap_isSet(boolean value) {
    }

    public double get_off_heap_worker() {
        return offHeapWorker;
    }

    public void set_off_heap_worker(double offHeapWorker) {
        this.offHeapWorker = offHeapWorker;
    }

    public void set_off_heap_worker_isSet(boolean value) {
    }

    public double get_off_heap_node() {
        return offHeapNode;
    }

    public void set_off_heap_node(double offHeapNode) {
        this.offHeapNode = offHeapNode;
    }

    public void set_off_heap_node_isSet(boolean value) {
    }

    @Override
    public String toString() {
        return "SharedMemory(name:" + name + ", on_heap:" + onHeap + ", off_heap_worker:" + offHeapWorker
                + ", off_heap_node:" + offHeapNode + ")";
    }
}
