package org.apache.storm.generated;

/** Whether a submitted topology starts active (spouts running) or inactive. */
public enum TopologyInitialStatus {
    ACTIVE(1),
    INACTIVE(2);

    private final int value;

    TopologyInitialStatus(int value) {
        this.value = value;
    }

    public int getValue() {
        return value;
    }

    public static TopologyInitialStatus findByValue(int value) {
        switch (value) {
            case 1:
                return ACTIVE;
            case 2:
                return INACTIVE;
            default:
                return null;
        }
    }
}
