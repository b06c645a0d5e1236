// How late a sleeping thread wakes up on this machine: sleeps SLEEP_NS in a
// loop for SECONDS and counts the wake-ups that came more than 1, 2 and 4 ms
// after the sleep should have ended (docs/performance.md, "What the tail at
// 35 000/s is made of").
//
//   gcc -O2 -o /tmp/sleep-jitter tools/diag/sleep-jitter.c
//   /tmp/sleep-jitter 10 500000
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s SECONDS SLEEP_NS\n", argv[0]);
        return 2;
    }
    long seconds = atol(argv[1]);
    long sleep_ns = atol(argv[2]);
    if (seconds <= 0 || sleep_ns <= 0 || sleep_ns >= 1000000000L) {
        fprintf(stderr, "SECONDS must be positive and SLEEP_NS within (0, 1e9)\n");
        return 2;
    }
    struct timespec request = {0, sleep_ns};
    long end = now_ns() + seconds * 1000000000L;
    long sleeps = 0, over1 = 0, over2 = 0, over4 = 0, worst = 0;
    while (now_ns() < end) {
        long before = now_ns();
        nanosleep(&request, NULL);
        long late = now_ns() - before - sleep_ns;
        sleeps++;
        over1 += late > 1000000L;
        over2 += late > 2000000L;
        over4 += late > 4000000L;
        if (late > worst) {
            worst = late;
        }
    }
    printf("sleeps %ld late>1ms %ld >2ms %ld >4ms %ld max %.2f ms\n", sleeps, over1, over2, over4, worst / 1e6);
    return 0;
}
