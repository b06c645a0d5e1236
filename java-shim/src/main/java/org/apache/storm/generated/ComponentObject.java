package org.apache.storm.generated;

import java.nio.ByteBuffer;

/** A component's implementation: Java-serialized bytes, a shell command, or a JavaObject. */
public class ComponentObject implements java.io.Serializable, Cloneable {
    private static final long serialVersionUID = 1L;

    private byte[] serializedJava;
    private ShellComponent shell;
    private JavaObject javaObject;

    public ComponentObject() {
    }

    public ComponentObject(ComponentObject other) {
        this.serializedJava = other.serializedJava == null ? null : other.serializedJava.clone();
        this.shell = other.shell;
        this.javaObject = other.javaObject;
    }

    public ComponentObject deepCopy() {
        return new ComponentObject(this);
    }

    public static ComponentObject serialized_java(ByteBuffer value) {
        ComponentObject o = new ComponentObject();
        o.set_serialized_java(value);
        return o;
    }

    public static ComponentObject serialized_java(byte[] value) {
        ComponentObject o = new ComponentObject();
        o.set_serialized_java(value);
        return o;
    }

    public static ComponentObject shell(ShellComponent value) {
        ComponentObject o = new ComponentObject();
        o.set_shell(value);
        return o;
    }

    public static ComponentObject java_object(JavaObject value) {
        ComponentObject o = new ComponentObject();
        o.set_java_object(value);
        return o;
    }

    private void clearAll() {
        serializedJava = null;
        shell = null;
        javaObject = null;
    }

    public byte[] get_serialized_java() {
        if (serializedJava == null) {
            throw new RuntimeException("Cannot get field 'serialized_java' because union is set to another member");
        }
        return serializedJava;
    }

    public ByteBuffer buffer_for_serialized_java() {
        return ByteBuffer.wrap(get_serialized_java());
    }

    public void set_serialized_java(byte[] value) {
        clearAll();
        this.serializedJava = value;
    }

    public void set_serialized_java(ByteBuffer value) {
        ByteBuffer dup = value.duplicate();
        byte[] bytes = new byte[dup.remaining()];
        dup.get(bytes);
        set_serialized_java(bytes);
    }

    public ShellComponent get_shell() {
        return shell;
    }

    public void set_shell(ShellComponent value) {
        clearAll();
        this.shell = value;
    }

    public JavaObject get_java_object() {
        return javaObject;
    }

    public void set_java_object(JavaObject value) {
        clearAll();
        this.javaObject = value;
    }

    public boolean is_set_serialized_java() {
        return serializedJava != null;
    }

    public boolean is_set_shell() {
        return shell != null;
    }

    public boolean is_set_java_object() {
        return javaObject != null;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof ComponentObject)) {
            return false;
        }
        ComponentObject o = (ComponentObject) other;
        return java.util.Arrays.equals(serializedJava, o.serializedJava) && java.util.Objects.equals(shell, o.shell)
                && java.util.Objects.equals(javaObject, o.javaObject);
    }

    public boolean equals(ComponentObject other) {
        return equals((Object) other);
    }

    @Override
    public int hashCode() {
        return 31 * java.util.Arrays.hashCode(serializedJava) + java.util.Objects.hash(shell, javaObject);
    }
}
