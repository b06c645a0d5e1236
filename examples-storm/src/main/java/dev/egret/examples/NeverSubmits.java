package dev.egret.examples;

/**
 * A main that returns without submitting any topology: {@code egret jar} must say so
 * and exit non-zero.
 */
public final class NeverSubmits {
    private NeverSubmits() {}

    public static void main(String[] args) {
        System.out.println("NeverSubmits: returning without submitting a topology");
    }
}
