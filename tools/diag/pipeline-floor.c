// The latency floor of a pipeline of plain threads at a fixed rate on this
// machine: thread 0 emits an item when it is due (sleeping until then), each
// of the other K-1 threads takes items from its bounded queue (a mutex and
// two conditions) and hands them to the next; the last records how long
// after its due time each item arrived. Prints p50, p99 and p99.9 of the
// items after the first 2 s (docs/performance.md, "What the tail at
// 35 000/s is made of").
//
//   gcc -O2 -pthread -o /tmp/pipeline-floor tools/diag/pipeline-floor.c
//   /tmp/pipeline-floor 5 35000 12     # K threads, items per second, seconds
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define QUEUE_ITEMS 65536
#define MAX_STAGES 64
#define MAX_SAMPLES 40000000L
#define END_OF_STREAM (-1L)

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t not_empty;
    pthread_cond_t not_full;
    long items[QUEUE_ITEMS];
    long head, tail;
} queue;

static queue *queues;
static int stages;
static long warm_until;
static long *samples;
static long sample_count;

static long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void put(queue *q, long item) {
    pthread_mutex_lock(&q->lock);
    while (q->tail - q->head == QUEUE_ITEMS) {
        pthread_cond_wait(&q->not_full, &q->lock);
    }
    q->items[q->tail++ % QUEUE_ITEMS] = item;
    pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->lock);
}

static int take(queue *q, long *out, int max) {
    pthread_mutex_lock(&q->lock);
    while (q->head == q->tail) {
        pthread_cond_wait(&q->not_empty, &q->lock);
    }
    int n = 0;
    while (q->head < q->tail && n < max) {
        out[n++] = q->items[q->head++ % QUEUE_ITEMS];
    }
    pthread_cond_signal(&q->not_full);
    pthread_mutex_unlock(&q->lock);
    return n;
}

static void *stage(void *arg) {
    long index = (long)arg;
    long batch[1024];
    for (;;) {
        int n = take(&queues[index], batch, 1024);
        for (int i = 0; i < n; i++) {
            long item = batch[i];
            if (index + 1 < stages) {
                put(&queues[index + 1], item);
                if (item == END_OF_STREAM) {
                    return NULL;
                }
            } else if (item == END_OF_STREAM) {
                return NULL;
            } else if (item > warm_until && sample_count < MAX_SAMPLES) {
                samples[sample_count++] = now_ns() - item;
            }
        }
    }
}

static int by_value(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s THREADS ITEMS_PER_SECOND SECONDS\n", argv[0]);
        return 2;
    }
    stages = atoi(argv[1]);
    long rate = atol(argv[2]);
    long seconds = atol(argv[3]);
    if (stages < 2 || stages > MAX_STAGES || rate <= 0 || rate > 1000000000L || seconds <= 2) {
        fprintf(stderr, "THREADS within [2, %d], a positive rate, more than 2 seconds\n", MAX_STAGES);
        return 2;
    }
    queues = calloc((size_t)stages, sizeof(queue));
    samples = malloc(sizeof(long) * MAX_SAMPLES);
    if (queues == NULL || samples == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < stages; i++) {
        pthread_mutex_init(&queues[i].lock, NULL);
        pthread_cond_init(&queues[i].not_empty, NULL);
        pthread_cond_init(&queues[i].not_full, NULL);
    }
    pthread_t threads[MAX_STAGES];
    for (long i = 1; i < stages; i++) {
        pthread_create(&threads[i], NULL, stage, (void *)i);
    }
    long start = now_ns();
    long period = 1000000000L / rate;
    long end = start + seconds * 1000000000L;
    warm_until = start + 2000000000L;
    long next = start;
    while (next < end) {
        long now = now_ns();
        if (now < next) {
            struct timespec wait = {0, next - now};
            nanosleep(&wait, NULL);
            continue;
        }
        while (next <= now) {
            put(&queues[1], next);
            next += period;
        }
    }
    put(&queues[1], END_OF_STREAM);
    for (int i = 1; i < stages; i++) {
        pthread_join(threads[i], NULL);
    }
    if (sample_count == 0) {
        fprintf(stderr, "no items after the warm-up\n");
        return 1;
    }
    qsort(samples, (size_t)sample_count, sizeof(long), by_value);
    printf("threads %d rate %ld items %ld p50 %.3f p99 %.3f p99.9 %.3f ms\n", stages, rate, sample_count,
           samples[sample_count / 2] / 1e6, samples[sample_count * 99 / 100] / 1e6,
           samples[sample_count * 999 / 1000] / 1e6);
    return 0;
}
