package dev.egret.examples;

/**
 * A main class that links only with {@link MissingDependencyBase}, its superclass. The
 * bad-inputs e2e test submits a copy of the examples jar without that class: the main
 * class is in the jar but cannot be loaded, and {@code egret jar} must name the missing
 * class, once.
 */
public final class MissingDependencyMain extends MissingDependencyBase {
    private MissingDependencyMain() {}

    public static void main(String[] args) {
        System.out.println("MissingDependencyMain: " + new MissingDependencyMain().describe());
    }
}
