package dev.egret.examples;

/** Deliberately not {@link java.io.Serializable}: see {@link NotSerializableBoltTopology}. */
public final class NotSerializableThing {
    private final String label;

    public NotSerializableThing(String label) {
        this.label = label;
    }

    @Override
    public String toString() {
        return label;
    }
}
