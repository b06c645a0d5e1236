package org.apache.storm.windowing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.storm.topology.FailedException;
import org.junit.jupiter.api.Test;

/** Policy combinations Storm's own tests leave out, on the shim's window manager. */
class WindowPoliciesTest {
    private static final class Recorder implements WindowLifecycleListener<Integer> {
        final List<List<Integer>> windows = new ArrayList<>();
        final List<Integer> expired = new ArrayList<>();

        @Override
        public void onExpiry(List<Integer> events) {
            expired.addAll(events);
        }

        @Override
        public void onActivation(List<Integer> events, List<Integer> newEvents, List<Integer> expiredEvents,
                Long referenceTime) {
            windows.add(new ArrayList<>(events));
        }
    }

    @Test
    void eventTimeCountWindowsSlideByCountUpToTheWatermark() {
        Recorder r = new Recorder();
        WindowManager<Integer> wm = new WindowManager<>(r);
        WatermarkCountEvictionPolicy<Integer> evict = new WatermarkCountEvictionPolicy<>(5);
        WatermarkCountTriggerPolicy<Integer> trigger = new WatermarkCountTriggerPolicy<>(2, wm, evict, wm);
        wm.setEvictionPolicy(evict);
        wm.setTriggerPolicy(trigger);
        trigger.start();
        for (int i = 1; i <= 10; i++) {
            wm.add(i, i);
        }
        assertTrue(r.windows.isEmpty(), "nothing before a watermark");
        wm.add(new WaterMarkEvent<>(8));
        // Windows end at every second event up to ts 8, holding the last 5 of them.
        assertEquals(List.of(List.of(1, 2), List.of(1, 2, 3, 4), List.of(2, 3, 4, 5, 6), List.of(4, 5, 6, 7, 8)),
                r.windows);
        assertEquals(List.of(1, 2, 3), r.expired);
        wm.add(new WaterMarkEvent<>(10));
        assertEquals(List.of(6, 7, 8, 9, 10), r.windows.get(4));
    }

    @Test
    void aFailedTimerTriggerIsRethrownWhenTheNextEventIsTracked() throws Exception {
        CountDownLatch fired = new CountDownLatch(1);
        TimeTriggerPolicy<Integer> policy = new TimeTriggerPolicy<>(10, () -> {
            fired.countDown();
            throw new IllegalStateException("bolt failed");
        });
        policy.start();
        assertTrue(fired.await(5, TimeUnit.SECONDS));
        // The timer thread logs the failure and completes its future after the handler threw:
        // track() passes until then, and throws from then on.
        FailedException e = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (e == null) {
            try {
                policy.track(new EventImpl<>(1, 1));
                assertTrue(System.nanoTime() < deadline, "track() never rethrew the timer's failure");
                Thread.sleep(10);
            } catch (FailedException thrown) {
                e = thrown;
            }
        }
        assertEquals("bolt failed", e.getCause().getMessage());
        FailedException again = assertThrows(FailedException.class, () -> policy.track(new EventImpl<>(2, 2)));
        assertEquals("bolt failed", again.getCause().getMessage());
        policy.shutdown();
    }

    @Test
    void processingTimeWindowsFollowTheTimerAndExpireByAge() throws Exception {
        Recorder r = new Recorder();
        WindowManager<Integer> wm = new WindowManager<>(r);
        TimeEvictionPolicy<Integer> evict = new TimeEvictionPolicy<>(100);
        wm.setEvictionPolicy(evict);
        wm.setTriggerPolicy(new CountTriggerPolicy<>(1000, wm, evict));
        long now = System.currentTimeMillis();
        wm.add(1, now - 500);
        wm.add(2, now - 50);
        wm.add(3, now + 10_000);
        evict.setContext(new DefaultEvictionContext(now));
        wm.onTrigger();
        assertEquals(List.of(List.of(2)), r.windows, "too old expires, the future is kept for later");
        assertEquals(List.of(1), r.expired);
    }
}
