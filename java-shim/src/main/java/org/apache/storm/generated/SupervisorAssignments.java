package org.apache.storm.generated;

/**
 * Placeholder of Storm's Thrift struct of the same name, so that {@link Nimbus.Iface} has
 * every method of Storm's with the same descriptors. Egret does not serve the calls that use
 * it; it has no fields yet.
 */
public class SupervisorAssignments implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    public SupervisorAssignments() {
    }
}
