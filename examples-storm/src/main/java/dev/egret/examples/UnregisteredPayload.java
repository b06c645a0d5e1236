package dev.egret.examples;

/**
 * A tuple value of a class that no one registers with Kryo: see
 * {@link UnregisteredClassTopology}.
 */
public final class UnregisteredPayload {
    private int x;
    private int y;

    public UnregisteredPayload() {}

    public UnregisteredPayload(int x, int y) {
        this.x = x;
        this.y = y;
    }

    @Override
    public String toString() {
        return "(" + x + ", " + y + ")";
    }
}
