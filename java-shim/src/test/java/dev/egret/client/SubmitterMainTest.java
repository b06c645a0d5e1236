package dev.egret.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SubmitterMainTest {
    static String[] seen;

    public static class Ok {
        public static void main(String[] args) {
            seen = args;
        }
    }

    public static class Throws {
        public static void main(String[] args) {
            throw new IllegalStateException("boom");
        }
    }

    @Test
    void exitCodes() {
        assertEquals(0, SubmitterMain.run(new String[] {Ok.class.getName(), "a", "b"}));
        assertEquals(2, seen.length);
        assertEquals("b", seen[1]);
        assertEquals(1, SubmitterMain.run(new String[] {Throws.class.getName()}));
        assertEquals(2, SubmitterMain.run(new String[] {"com.example.Missing"}));
    }
}
