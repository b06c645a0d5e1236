package org.apache.storm.generated;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/** An object described by class name and constructor arguments (Storm's JavaObject struct). */
public class JavaObject implements java.io.Serializable, Cloneable {
    private static final long serialVersionUID = 1L;

    private String fullClassName;
    private List<JavaObjectArg> argsList;

    public JavaObject() {
    }

    public JavaObject(String fullClassName, List<JavaObjectArg> argsList) {
        this.fullClassName = fullClassName;
        this.argsList = argsList;
    }

    public JavaObject(JavaObject other) {
        this.fullClassName = other.fullClassName;
        this.argsList = other.argsList == null ? null : new ArrayList<>(other.argsList);
    }

    public JavaObject deepCopy() {
        return new JavaObject(this);
    }

    public String get_full_class_name() {
        return fullClassName;
    }

    public void set_full_class_name(String fullClassName) {
        this.fullClassName = fullClassName;
    }

    public int get_args_list_size() {
        return argsList == null ? 0 : argsList.size();
    }

    public Iterator<JavaObjectArg> get_args_list_iterator() {
        return argsList == null ? null : argsList.iterator();
    }

    public void add_to_args_list(JavaObjectArg arg) {
        if (argsList == null) {
            argsList = new ArrayList<>();
        }
        argsList.add(arg);
    }

    public List<JavaObjectArg> get_args_list() {
        return argsList;
    }

    public void set_args_list(List<JavaObjectArg> argsList) {
        this.argsList = argsList;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JavaObject && Objects.equals(fullClassName, ((JavaObject) o).fullClassName)
                && Objects.equals(argsList, ((JavaObject) o).argsList);
    }

    @Override
    public int hashCode() {
        return Objects.hash(fullClassName, argsList);
    }

    @Override
    public String toString() {
        return "JavaObject(full_class_name:" + fullClassName + ", args_list:" + argsList + ")";
    }
}
