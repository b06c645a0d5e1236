package org.apache.storm.generated;

/** Options of a submission: the initial status (credentials are not supported by Egret). */
public class SubmitOptions implements java.io.Serializable, Cloneable {
    private static final long serialVersionUID = 1L;

    private TopologyInitialStatus initialStatus;

    public SubmitOptions() {
    }

    public SubmitOptions(TopologyInitialStatus initialStatus) {
        this.initialStatus = initialStatus;
    }

    public SubmitOptions(SubmitOptions other) {
        this.initialStatus = other.initialStatus;
    }

    public TopologyInitialStatus get_initial_status() {
        return initialStatus;
    }

    public void set_initial_status(TopologyInitialStatus initialStatus) {
        this.initialStatus = initialStatus;
    }

    public boolean is_set_initial_status() {
        return initialStatus != null;
    }

    @Override
    public String toString() {
        return "SubmitOptions(initial_status:" + initialStatus + ")";
    }
}
