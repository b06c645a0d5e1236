package org.apache.storm.generated;

/** Storm's profiling actions; Egret does not profile workers (see {@link Nimbus.Client}). */
public enum ProfileAction {
    JPROFILE_STOP(0), JPROFILE_START(1), JPROFILE_DUMP(2), JMAP_DUMP(3), JSTACK_DUMP(4), JVM_RESTART(5);

    private final int value;

    ProfileAction(int value) {
        this.value = value;
    }

    public int getValue() {
        return value;
    }

    public static ProfileAction findByValue(int value) {
        for (ProfileAction a : values()) {
            if (a.value == value) {
                return a;
            }
        }
        return null;
    }
}
