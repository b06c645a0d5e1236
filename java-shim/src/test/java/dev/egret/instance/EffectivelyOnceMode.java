package dev.egret.instance;

/** Tests in other packages switch the JVM's effectively-once flag (set by the executor in a real JVM). */
public final class EffectivelyOnceMode {
    private EffectivelyOnceMode() {
    }

    public static void set(boolean on) {
        StateChannel.effectivelyOnce(on);
    }
}
