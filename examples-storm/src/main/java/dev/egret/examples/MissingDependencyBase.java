package dev.egret.examples;

/** The superclass of {@link MissingDependencyMain}, removed from the jar by a test. */
public class MissingDependencyBase {
    /** Something for the subclass to call. */
    public String describe() {
        return "linked";
    }
}
