package org.apache.storm.utils;

/** A holder of one object, read and written under its lock. */
public class MutableObject {
    private Object object;

    public MutableObject() {
        this(null);
    }

    public MutableObject(Object object) {
        this.object = object;
    }

    public synchronized Object getObject() {
        return object;
    }

    public synchronized void setObject(Object object) {
        this.object = object;
    }
}
