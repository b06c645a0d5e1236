//! Backpressure end to end, with `SlowBoltTopology`: a spout as fast as it can
//! go (acking on, no `topology.max.spout.pending`) feeding, by shuffle, a bolt
//! that sleeps 10 ms per tuple (about 100 tuples/s per task, two tasks in two
//! containers, so the spout's container sends half its tuples over the mesh
//! and a congested bolt in the other container can only throttle the spout
//! through a `BackpressureNotice`). Small watermarks (1 MiB high, 512 KiB low)
//! make backpressure engage within a second.
//!
//! - `slow_bolt_bounds_memory_and_paces_the_spout`: a bounded slow run. Every
//!   stream manager's and instance JVM's peak RSS (sampled, and the kernel's
//!   `VmHWM`) stays under a bound derived from the watermarks; the largest
//!   queue stays within high watermark + one batch; the spout's ack rate
//!   equals the bolt's own execute rate within 10%; the metrics show
//!   backpressure engaging and lifting; after a recovery and a drain nothing is
//!   lost (every id emitted is acked once, the bolt saw every (key, seq)).
//!   Also with the JNI bridge, where a stream manager's bound adds its embedded
//!   JVM (its executors' heaps and one JVM's overhead).
//! - `slow_bolt_recovering_lifts_backpressure`: the bolt stops sleeping mid-run
//!   (marker file); throughput rises above 5× the slow rate, and backpressure
//!   lifts (`egret.backpressure.active` back to 0 once the spout stops).
//!
//! Every rate is a ratio within one run, never an absolute figure, so a loaded
//! machine slows both sides alike. Figures are printed (`--nocapture`).

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use egret_e2e::{
    Bridge, Cluster, HarnessError, MetricsSnapshot, QUIET_TIMEOUT, instance_processes,
    numbered_files, parent_pid, process_memory, read_metrics, role_processes, task_files,
    wait_until,
};
use egret_state_manager::TopologyDir;

const CLASS: &str = "SlowBoltTopology";
const HIGH_WATERMARK: u64 = 1 << 20;
const LOW_WATERMARK: u64 = 1 << 19;
/// Payload bytes per tuple (the topology's `payload` option). Big enough that
/// the queues' hard cap alone (1024 batches) would allow hundreds of MiB, so
/// the memory bounds below can only hold if the watermarks work.
const PAYLOAD: u64 = 1024;
/// Upper bound on one encoded tuple: the payload plus key, seq, Kryo tags, the
/// message id's root, edge id, destination task and protobuf framing (measured
/// about 1070 bytes; `egret.queue.bytes.peak` divided by the tuples queued).
const TUPLE_BYTES: u64 = PAYLOAD + 128;
/// More tuples than one batch of this test's tuples holds: a batch is sealed
/// at `egret.batch.size` entries (default 1024) or at its bytes cap (a
/// quarter of `egret.instance.outbound.bytes`: 64 KiB, about 60 of these
/// 1 KiB tuples), whichever comes first. A busy bolt still sends its acks
/// every 5 ms (the flush timer runs in the instance's writer thread).
const BATCH_TUPLES: u64 = 256;
/// One batch cap: the most bytes one batch from an instance adds to a queue.
const BATCH_BYTES: u64 = BATCH_TUPLES * TUPLE_BYTES;
const SLEEP_MS: u64 = 10;
const SLOW_TASKS: u64 = 2;
/// `topology.message.timeout.secs`, Storm's default. No tree may time out:
/// what is queued toward a slow bolt task (its stream manager's queue, about
/// the high watermark, plus the instance's bounded input,
/// `egret.instance.inbound.bytes`, 256 KiB, plus one frame) is well under 30 s
/// of its work.
const TIMEOUT_SECS: u64 = 30;

/// Baseline RSS of an idle stream manager (debug build; measured 11-17 MiB
/// with nothing queued), with margin for allocator slack.
const SM_BASE_KIB: u64 = 24 * 1024;
/// Per destination (local instance or peer), memory a stream manager may hold
/// for one queue: up to high watermark + one batch queued, the batch its writer
/// is encoding, and the batch its reader is decoding; 4 × the high watermark
/// covers that with room for allocator fragmentation. Without watermarks a
/// queue toward the slow bolt fills to its hard cap, 1024 batches of up to
/// 256 tuples (about 280 MiB here), far over this bound.
const SM_PER_DESTINATION_KIB: u64 = 4 * HIGH_WATERMARK / 1024;

/// `-Xmx` of every instance: `topology.component.resources.onheap.memory.mb`'s
/// default, 128 MiB (contracts: packing).
const INSTANCE_HEAP_KIB: u64 = 128 * 1024;
/// What a JVM holds outside its heap: code, metaspace, the CDS archive, thread
/// stacks, GC structures, the shim's socket buffers. An instance that has just
/// opened uses 95-105 MiB in all with a few MiB of heap touched, so its
/// overhead is under 100 MiB; 128 MiB leaves a margin. An instance that leaked
/// off-heap (direct buffers, native memory) or ignored its heap cap would fail.
const JVM_OVERHEAD_KIB: u64 = 128 * 1024;

/// Sampling period of the RSS sampler.
const SAMPLE_EVERY: Duration = Duration::from_millis(200);

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn fail_with<T>(cluster: &Cluster, e: &HarnessError) -> T {
    panic!("{e}\n{}", cluster.describe_logs(30))
}

fn submit(cluster: &Cluster, name: &str) {
    let high = format!("egret.backpressure.high.watermark.bytes={HIGH_WATERMARK}");
    let low = format!("egret.backpressure.low.watermark.bytes={LOW_WATERMARK}");
    let payload = format!("payload={PAYLOAD}");
    let sleep = format!("sleepms={SLEEP_MS}");
    let slow = format!("slow={SLOW_TASKS}");
    let timeout = format!("timeout={TIMEOUT_SECS}");
    let args = [
        "-c",
        &high,
        "-c",
        &low,
        &payload,
        &sleep,
        &slow,
        "workers=2",
        "spouts=1",
        &timeout,
    ];
    eprintln!("submitting {CLASS} {name} {}", args.join(" "));
    cluster
        .submit_example_with(CLASS, name, &args)
        .unwrap_or_else(|e| fail_with(cluster, &e));
}

/// One line of a progress file: time and running counters.
#[derive(Debug, Clone, Copy)]
struct Point {
    ms: u64,
    /// Spout: emitted, acked, failed, pending. Bolt: executed, recovered.
    values: [u64; 4],
}

fn parse_progress(lines: &[String]) -> Vec<Point> {
    lines
        .iter()
        .filter_map(|l| {
            let mut it = l.split(' ').map(str::parse::<u64>);
            let ms = it.next()?.ok()?;
            let mut values = [0; 4];
            for (slot, v) in values.iter_mut().zip(it) {
                *slot = v.ok()?;
            }
            Some(Point { ms, values })
        })
        .collect()
}

/// Counter `i` at time `ms`, interpolated between the samples around it.
fn value_at(points: &[Point], i: usize, ms: u64) -> Option<f64> {
    let after = points.iter().position(|p| p.ms >= ms)?;
    let b = points[after];
    if after == 0 {
        return (b.ms == ms).then_some(b.values[i] as f64);
    }
    let a = points[after - 1];
    let f = (ms - a.ms) as f64 / (b.ms - a.ms).max(1) as f64;
    Some(a.values[i] as f64 + f * (b.values[i] as f64 - a.values[i] as f64))
}

/// Everything the topology's files say, read at one moment.
#[derive(Debug, Default)]
struct Observed {
    /// Spout task index → progress.
    spout: BTreeMap<i32, Vec<Point>>,
    /// Bolt task id → progress.
    bolt: BTreeMap<i32, Vec<Point>>,
    /// Message id (key, seq) → acks received.
    acked: BTreeMap<(u32, u64), usize>,
    /// Key → next seq: every seq below it was emitted.
    next: BTreeMap<u32, u64>,
    fails: usize,
    unexpected: Vec<String>,
    /// (key, seq) → times the slow bolt executed it.
    seen: BTreeMap<(u32, u64), usize>,
    malformed: Vec<String>,
}

fn parse_pair(line: &str, sep: char) -> Option<(u32, u64)> {
    let (k, s) = line.split_once(sep)?;
    Some((k.parse().ok()?, s.parse().ok()?))
}

impl Observed {
    fn progress(out: &Path) -> Self {
        Self {
            spout: numbered_files(out, "spout-progress", ".txt")
                .into_iter()
                .map(|(t, l)| (t, parse_progress(&l)))
                .collect(),
            bolt: numbered_files(out, "slow-progress", ".txt")
                .into_iter()
                .map(|(t, l)| (t, parse_progress(&l)))
                .collect(),
            ..Self::default()
        }
    }

    fn read(out: &Path) -> Self {
        let mut o = Self::progress(out);
        for (task, lines) in numbered_files(out, "spout-acked", ".log") {
            for line in lines {
                match parse_pair(&line, ':') {
                    Some(m) => *o.acked.entry(m).or_insert(0) += 1,
                    None => o
                        .malformed
                        .push(format!("spout-acked-{task}.log: {line:?}")),
                }
            }
        }
        o.fails = numbered_files(out, "spout-fails", ".log")
            .values()
            .map(Vec::len)
            .sum();
        for (task, lines) in numbered_files(out, "spout-unexpected", ".log") {
            o.unexpected
                .extend(lines.into_iter().map(|l| format!("spout {task}: {l}")));
        }
        for (task, lines) in numbered_files(out, "spout-next", ".txt") {
            for line in lines {
                match parse_pair(&line, ' ') {
                    Some((k, n)) => {
                        o.next.insert(k, n);
                    }
                    None => o.malformed.push(format!("spout-next-{task}.txt: {line:?}")),
                }
            }
        }
        for (task, lines) in task_files(out, "slow") {
            for line in lines {
                match parse_pair(&line, ' ') {
                    Some(m) => *o.seen.entry(m).or_insert(0) += 1,
                    None => o.malformed.push(format!("slow-{task}.txt: {line:?}")),
                }
            }
        }
        o
    }

    /// The progress files once a second, for failure messages.
    fn timeline(&self) -> String {
        let mut s = String::new();
        let series = self
            .spout
            .iter()
            .map(|(t, p)| (format!("spout {t} (ms emitted acked failed pending)"), p))
            .chain(
                self.bolt
                    .iter()
                    .map(|(t, p)| (format!("slow task {t} (ms executed recovered)"), p)),
            );
        for (label, points) in series {
            let _ = writeln!(s, "{label}:");
            for p in points.iter().step_by(5) {
                let _ = writeln!(s, "  {} {:?}", p.ms, p.values);
            }
        }
        s
    }

    fn last_spout(&self) -> Option<Point> {
        self.spout
            .values()
            .filter_map(|p| p.last().copied())
            .reduce(|a, b| Point {
                ms: a.ms.min(b.ms),
                values: [
                    a.values[0] + b.values[0],
                    a.values[1] + b.values[1],
                    a.values[2] + b.values[2],
                    a.values[3] + b.values[3],
                ],
            })
    }

    fn acked_total(&self) -> u64 {
        self.last_spout().map_or(0, |p| p.values[1])
    }

    /// The window between the first and the last time, after `after`, that
    /// the spout resumed emitting (a progress sample whose emitted count grew).
    ///
    /// Only there is the spout's ack count current: a throttled spout whose
    /// last batch the stream manager no longer reads is blocked in that write,
    /// and runs no ack callback until its throttle lifts (reported as a shim
    /// defect); the tree events wait and are handled at the resume.
    ///
    /// The window ends no later than the last sample every series has: the
    /// files are read at one moment, and a bolt task's last sample can be
    /// older than the spout's (each writes its own file on its own clock).
    fn resume_window(&self, after: u64) -> Option<(u64, u64)> {
        let points = self.spout.values().next()?;
        let covered = self
            .spout
            .values()
            .chain(self.bolt.values())
            .map(|p| p.last().map_or(0, |p| p.ms))
            .min()?;
        let resumes: Vec<u64> = points
            .windows(2)
            .filter(|w| w[0].ms >= after && w[1].values[0] > w[0].values[0])
            .filter(|w| w[1].ms <= covered)
            .map(|w| w[1].ms)
            .collect();
        let (first, last) = (*resumes.first()?, *resumes.last()?);
        (last >= first + 5_000).then_some((first, last))
    }

    /// Acks per second at the spouts over `[from, to]` (epoch ms).
    fn spout_rate(&self, from: u64, to: u64) -> Option<f64> {
        rate(self.spout.values(), 1, from, to)
    }

    /// Executes per second of all slow bolt tasks over `[from, to]`.
    fn bolt_rate(&self, from: u64, to: u64) -> Option<f64> {
        rate(self.bolt.values(), 0, from, to)
    }

    /// Whether every bolt task reports it has recovered.
    fn all_recovered(&self) -> bool {
        !self.bolt.is_empty()
            && self
                .bolt
                .values()
                .all(|p| p.last().is_some_and(|p| p.values[1] == 1))
    }

    fn emitted(&self) -> BTreeSet<(u32, u64)> {
        self.next
            .iter()
            .flat_map(|(k, n)| (0..*n).map(move |s| (*k, s)))
            .collect()
    }
}

fn rate<'a>(
    series: impl Iterator<Item = &'a Vec<Point>>,
    i: usize,
    from: u64,
    to: u64,
) -> Option<f64> {
    let mut sum = 0.0;
    for points in series {
        sum += value_at(points, i, to)? - value_at(points, i, from)?;
    }
    Some(sum * 1000.0 / (to - from) as f64)
}

/// Peak memory per process of the topology, by label (`stmgr-N` or an instance id).
#[derive(Debug, Default)]
struct Peaks {
    /// label → (container index, peak VmRSS sampled, peak VmHWM).
    by_process: BTreeMap<String, (Option<u32>, u64, u64)>,
    samples: usize,
}

impl Peaks {
    fn record(&mut self, label: String, container: Option<u32>, pid: i32) {
        let Some(m) = process_memory(pid) else {
            return;
        };
        let e = self.by_process.entry(label).or_insert((container, 0, 0));
        e.0 = e.0.or(container);
        e.1 = e.1.max(m.rss_kib);
        e.2 = e.2.max(m.hwm_kib);
    }

    fn sample(&mut self, home: &Path) {
        self.samples += 1;
        let containers: BTreeMap<i32, u32> = role_processes(home, "container")
            .into_iter()
            .filter_map(|p| Some((p.pid, p.index?)))
            .collect();
        for sm in role_processes(home, "stmgr") {
            self.record(format!("stmgr-{}", sm.index.unwrap_or(0)), sm.index, sm.pid);
        }
        for (pid, id) in instance_processes(home) {
            let container = parent_pid(pid).and_then(|p| containers.get(&p).copied());
            self.record(id, container, pid);
        }
    }

    /// The peak of a process: the larger of the sampled RSS and the kernel's high-water mark.
    fn peak_kib(entry: &(Option<u32>, u64, u64)) -> u64 {
        entry.1.max(entry.2)
    }

    fn stream_managers(&self) -> impl Iterator<Item = (&String, &(Option<u32>, u64, u64))> {
        self.by_process
            .iter()
            .filter(|(l, _)| l.starts_with("stmgr-"))
    }

    fn instances(&self) -> impl Iterator<Item = (&String, &(Option<u32>, u64, u64))> {
        self.by_process
            .iter()
            .filter(|(l, _)| !l.starts_with("stmgr-"))
    }

    /// Outbound queues of a stream manager with `local` instances: one per
    /// local instance, one per peer stream manager.
    fn destinations(&self, local: u64) -> u64 {
        let peers = self.stream_managers().count() as u64 - 1;
        local + peers
    }

    fn report(&self) -> String {
        let mut s = format!("peak memory over {} samples:\n", self.samples);
        for (label, e) in &self.by_process {
            let _ = writeln!(
                s,
                "  {label:<10} container {:?}: sampled VmRSS {:.1} MiB, VmHWM {:.1} MiB",
                e.0,
                mib(e.1),
                mib(e.2)
            );
        }
        s
    }
}

/// Samples memory every [`SAMPLE_EVERY`] for `duration`.
fn sample_for(home: &Path, peaks: &mut Peaks, duration: Duration) {
    let end = Instant::now() + duration;
    while Instant::now() < end {
        peaks.sample(home);
        thread::sleep(SAMPLE_EVERY);
    }
}

/// Waits for the spout's first ack: the topology is up and tuples flow.
fn wait_first_ack(cluster: &Cluster) -> u64 {
    let out = cluster.out_dir();
    wait_until(
        "the spout's first ack",
        Duration::from_secs(60),
        || (Observed::progress(&out).acked_total() > 0).then(now_ms),
        || format!("{:?}", Observed::progress(&out).last_spout()),
    )
    .unwrap_or_else(|e| fail_with(cluster, &e))
}

fn recover(cluster: &Cluster) -> u64 {
    let out = cluster.out_dir();
    fs::write(out.join("recover"), b"").expect("write the recover marker");
    let at = now_ms();
    wait_until(
        "every slow bolt task to recover",
        Duration::from_secs(20),
        || Observed::progress(&out).all_recovered().then_some(()),
        || format!("{:?}", Observed::progress(&out).bolt.keys()),
    )
    .unwrap_or_else(|e| fail_with(cluster, &e));
    at
}

/// Deactivates the topology (the spout stops emitting) and waits until no
/// tree is pending any more, then until the files stop changing.
fn drain(cluster: &Cluster, name: &str) -> Observed {
    let out = cluster.run(["deactivate", name]).expect("egret deactivate");
    assert!(out.success(), "egret deactivate: {}", out.describe());
    let dir = cluster.out_dir();
    wait_until(
        "no pending tree at the spout",
        Duration::from_secs(60),
        || {
            let p = Observed::progress(&dir).last_spout()?;
            (p.values[3] == 0).then_some(())
        },
        || format!("{:?}", Observed::progress(&dir).last_spout()),
    )
    .unwrap_or_else(|e| fail_with(cluster, &e));
    // The next-seq files and last ack lines are written by the progress
    // thread: wait until they, and the ledgers, have settled.
    cluster
        .wait_quiescent(name, QUIET_TIMEOUT, || {
            let o = Observed::read(&dir);
            (o.next, o.acked.len(), o.seen.len(), o.fails)
        })
        .unwrap_or_else(|e| fail_with(cluster, &e));
    Observed::read(&dir)
}

/// Nothing lost: every id emitted acked exactly once; the bolt saw every (key, seq).
fn assert_nothing_lost(o: &Observed) {
    assert!(o.malformed.is_empty(), "malformed lines: {:?}", o.malformed);
    assert!(
        o.unexpected.is_empty(),
        "acks/fails for ids that were not pending: {:?}",
        o.unexpected
    );
    assert_eq!(o.fails, 0, "trees failed although nothing was killed");
    let emitted = o.emitted();
    assert!(!emitted.is_empty(), "the spout recorded no emit");
    let not_acked: Vec<_> = emitted
        .iter()
        .filter(|m| !o.acked.contains_key(m))
        .take(20)
        .collect();
    assert!(
        not_acked.is_empty(),
        "of {} ids emitted, {} never acked, e.g. {not_acked:?}",
        emitted.len(),
        emitted.iter().filter(|m| !o.acked.contains_key(m)).count()
    );
    let stray: Vec<_> = o
        .acked
        .keys()
        .filter(|m| !emitted.contains(m))
        .take(20)
        .collect();
    assert!(stray.is_empty(), "acks for ids never emitted: {stray:?}");
    let twice: Vec<_> = o.acked.iter().filter(|(_, n)| **n > 1).take(20).collect();
    assert!(twice.is_empty(), "ids acked more than once: {twice:?}");
    let unseen: Vec<_> = emitted
        .iter()
        .filter(|m| !o.seen.contains_key(m))
        .take(20)
        .collect();
    assert!(unseen.is_empty(), "the slow bolt never saw {unseen:?}");
    let seen_twice = o.seen.values().filter(|n| **n > 1).count();
    assert_eq!(
        seen_twice, 0,
        "the bolt saw (key, seq) twice although nothing failed or was replayed"
    );
}

/// Metric `name` of `component` in every stream manager's snapshot.
fn metric(
    snaps: &BTreeMap<String, MetricsSnapshot>,
    name: &str,
    component: &str,
) -> BTreeMap<String, f64> {
    snaps
        .iter()
        .filter(|(p, _)| p.starts_with("stmgr-"))
        .filter_map(|(p, s)| Some((p.clone(), s.value(name, component)?)))
        .collect()
}

/// Container index → how many instances (executors) the packing plan gives it.
fn planned_instances(cluster: &Cluster, name: &str) -> BTreeMap<u32, u64> {
    let plan = TopologyDir::new(cluster.topology_dir(name))
        .read_packing_plan()
        .expect("packing plan");
    plan.containers
        .iter()
        .filter_map(|c| Some((u32::try_from(c.index).ok()?, c.instances.len() as u64)))
        .collect()
}

#[test]
fn slow_bolt_bounds_memory_and_paces_the_spout() {
    slow_bolt_bounds(&Cluster::new("bp-slow").expect("cluster"));
}

/// With the JNI bridge the executors' memory is the stream managers' (their embedded
/// JVMs): each one's bound adds its executors' heaps and one JVM's overhead.
#[test]
fn slow_bolt_bounds_memory_and_paces_the_spout_with_the_jni_bridge() {
    slow_bolt_bounds(&Cluster::with_bridge("bp-slow-jni", Bridge::Jni).expect("cluster"));
}

fn slow_bolt_bounds(cluster: &Cluster) {
    let name = cluster.topology_name();
    submit(cluster, &name);
    let home = cluster.home().to_path_buf();
    let mut peaks = Peaks::default();

    // The slow phase: 25 s from the first ack (longer if needed, below). Throughput is compared over
    // the part of it after the first 5 s (queues filled, backpressure in its
    // engage/lift cycle), between two resumes of the spout (see resume_window).
    let first_ack = wait_first_ack(cluster);
    sample_for(&home, &mut peaks, Duration::from_secs(25));
    let mut slow_obs = Observed::progress(&cluster.out_dir());
    // The window runs between two resumes of the spout, 5 s apart at least
    // (a throttled spout still gets its acks, so its ack count is current).
    let mut window = slow_obs.resume_window(first_ack + 5_000);
    // On a loaded machine one engage/lift cycle may take longer than 5 s (a CI
    // run saw resumes 9 s and then 4.999 s apart): the phase goes on, 5 s at a
    // time and 20 s at most, until two resumes 5 s apart are seen.
    for _ in 0..4 {
        if window.is_some() {
            break;
        }
        sample_for(&home, &mut peaks, Duration::from_secs(5));
        slow_obs = Observed::progress(&cluster.out_dir());
        window = slow_obs.resume_window(first_ack + 5_000);
    }
    let (snaps, errors) = read_metrics(&cluster.topology_dir(&name));
    assert!(errors.is_empty(), "unreadable metrics: {errors:?}");

    let (spout_rate, bolt_rate) = window
        .and_then(|(a, b)| Some((slow_obs.spout_rate(a, b)?, slow_obs.bolt_rate(a, b)?)))
        .unwrap_or((f64::NAN, f64::NAN));
    let window_secs = window.map_or(0.0, |(a, b)| (b - a) as f64 / 1000.0);
    let pending_peak = slow_obs
        .spout
        .values()
        .flatten()
        .map(|p| p.values[3])
        .max()
        .unwrap_or(0);

    let engaged = metric(&snaps, "egret.backpressure.engaged", "slow");
    let spout_time = metric(&snaps, "egret.backpressure.time-ms", "spout");
    let any_time = metric(&snaps, "egret.backpressure.time-ms", "__backpressure");
    let queue_peak = metric(&snaps, "egret.queue.bytes.peak", "__backpressure");
    eprintln!("{}", peaks.report());
    eprintln!(
        "slow phase ({window_secs:.1} s window): spout acks {spout_rate:.1}/s, slow bolt \
         executes {bolt_rate:.1}/s (ratio {:.3}; sleep-bound ceiling {}/s); spout in-flight \
         peak {pending_peak} trees",
        spout_rate / bolt_rate,
        SLOW_TASKS * 1000 / SLEEP_MS
    );
    eprintln!(
        "backpressure: engaged {engaged:?}, spout throttled ms {spout_time:?}, any cause ms \
         {any_time:?}, queue peak bytes {queue_peak:?} (high watermark {HIGH_WATERMARK}, one \
         batch cap {BATCH_BYTES})"
    );

    // Memory: fails if a queue grows past its watermark (see SM_PER_DESTINATION_KIB)
    // or if an instance holds more than its heap allows.
    cluster.check_bridge(&name).expect("the cluster's bridge");
    let planned = planned_instances(cluster, &name);
    assert_eq!(
        planned.values().sum::<u64>(),
        3,
        "spout-0, slow-0, slow-1 planned: {planned:?}"
    );
    let jni = cluster.bridge() == Bridge::Jni;
    let sms: Vec<_> = peaks.stream_managers().collect();
    assert_eq!(
        sms.len(),
        2,
        "expected 2 stream managers: {}",
        peaks.report()
    );
    for (label, e) in &sms {
        let index = e.0.expect("a stream manager has an index");
        let local = planned.get(&index).copied().unwrap_or(0);
        let dests = peaks.destinations(local);
        let queues = SM_BASE_KIB + SM_PER_DESTINATION_KIB * dests;
        // jni: the embedded JVM, heap capped at its executors' heaps.
        let embedded = if jni {
            local * INSTANCE_HEAP_KIB + JVM_OVERHEAD_KIB
        } else {
            0
        };
        let bound = queues + embedded;
        assert!(
            Peaks::peak_kib(e) <= bound,
            "{label} peaked at {:.1} MiB, above {:.1} MiB (baseline + 4 × high watermark × \
             {dests} destinations, + {:.1} MiB for an embedded JVM of {local} executors)\n{}",
            mib(Peaks::peak_kib(e)),
            mib(bound),
            mib(embedded),
            peaks.report()
        );
    }
    let instances: Vec<_> = peaks.instances().collect();
    assert_eq!(
        instances.len(),
        if jni { 0 } else { 3 },
        "instance JVMs (spout-0, slow-0, slow-1 with the socket bridge; none with jni): {}",
        peaks.report()
    );
    for (label, e) in &instances {
        let bound = INSTANCE_HEAP_KIB + JVM_OVERHEAD_KIB;
        assert!(
            Peaks::peak_kib(e) <= bound,
            "instance {label} peaked at {:.1} MiB, above heap + JVM overhead {:.1} MiB\n{}",
            mib(Peaks::peak_kib(e)),
            mib(bound),
            peaks.report()
        );
    }

    // Queues: the stream manager hosting the spout stops reading it before the
    // next frame once a queue crosses the high watermark, so a queue it feeds
    // overshoots by at most one batch from the spout. The other one is fed over
    // the mesh, one peer frame at a time, and a peer's writer sends all its
    // queue holds as one frame: up to that queue's own bound, high watermark +
    // one batch (measured overshoot there: 190-260 KB). Fails if a queue kept
    // growing after crossing the high watermark (it would reach its hard cap).
    assert_eq!(
        queue_peak.len(),
        2,
        "queue peak metric of both stream managers"
    );
    for (sm, peak) in &queue_peak {
        let hosts_spout = spout_time.contains_key(sm);
        let bound = if hosts_spout {
            HIGH_WATERMARK + BATCH_BYTES
        } else {
            HIGH_WATERMARK + HIGH_WATERMARK + BATCH_BYTES
        };
        assert!(
            *peak <= bound as f64,
            "{sm}: a queue held {peak} bytes, above high watermark + batch cap ({bound})"
        );
    }

    // Throughput follows the slow bolt: the spout's ack rate matches the
    // bolt's measured execute rate within 10%. Fails if trees are lost or
    // stuck (acks fall behind executes) or if acks were counted that no
    // bolt execute caused. The bolt itself cannot beat its sleep.
    //
    // Why 10%: both rates come from the same run over the same window of at
    // least 5 s (about 1000 trees), so machine load slows both alike; what
    // separates them is the acks still in flight at the window's ends (a
    // batch of up to 256 per 5 ms flush, interpolated between 200 ms progress
    // samples), a few percent at most. One tree in ten lost or stuck would
    // cross it. How close the two are on a quiet machine, or how fast either
    // is, is a benchmark's question (egret bench), not this test's.
    assert!(
        window.is_some(),
        "the spout did not resume twice 5 s apart after the first 5 s\n{}",
        slow_obs.timeline()
    );
    let ratio = spout_rate / bolt_rate;
    assert!(
        (0.9..=1.1).contains(&ratio),
        "spout ack rate {spout_rate:.1}/s is not within 10% of the bolt's {bolt_rate:.1}/s \
         over {window:?}\n{}",
        slow_obs.timeline()
    );
    // The bolt's own rate against what its sleep allows (2 tasks × 100/s).
    // Above 1.05 × the ceiling is impossible for a bolt that really sleeps
    // 10 ms per tuple (5% covers the interpolation between samples): it would
    // mean executes counted that did not happen. Below 0.3 × it means the
    // bolt mostly idled: the spout stayed throttled long after the queue
    // drained (a lift that comes late or never). The bound is that wide
    // because on two shared cores a 10 ms sleep can take much longer; the
    // bolt's real utilisation under backpressure belongs in a benchmark.
    let ceiling = (SLOW_TASKS * 1000 / SLEEP_MS) as f64;
    assert!(
        bolt_rate <= ceiling * 1.05 && bolt_rate >= ceiling * 0.3,
        "slow bolt executed {bolt_rate:.1}/s; its sleep allows at most {ceiling}/s, and it \
         should be kept busy"
    );

    // Engaged and lifted: more than one engagement means it lifted in between.
    let engaged_total: f64 = engaged.values().sum();
    assert!(engaged_total >= 2.0, "backpressure engaged {engaged:?}");
    assert!(
        spout_time.values().sum::<f64>() > 0.0,
        "the spout was never throttled: {spout_time:?}"
    );
    assert_eq!(
        any_time.len(),
        2,
        "both stream managers knew a cause at some point (the other through a notice): \
         {any_time:?}"
    );
    assert!(any_time.values().all(|t| *t > 0.0), "{any_time:?}");

    // Recover, stop the spout, let every tree finish: nothing may be missing.
    recover(cluster);
    let drained = drain(cluster, &name);
    eprintln!(
        "drained: {} ids emitted, {} acked, {} seen by the bolt, {} fails",
        drained.emitted().len(),
        drained.acked.len(),
        drained.seen.len(),
        drained.fails
    );
    assert_nothing_lost(&drained);
    wait_backpressure_lifted(cluster, &name);
    cluster.kill_and_check_clean(&name).expect("clean kill");
}

/// Waits until every stream manager's snapshot says no cause is known.
fn wait_backpressure_lifted(cluster: &Cluster, name: &str) {
    let dir = cluster.topology_dir(name);
    wait_until(
        "egret.backpressure.active to be 0 on every stream manager",
        Duration::from_secs(20),
        || {
            let active = metric(
                &read_metrics(&dir).0,
                "egret.backpressure.active",
                "__backpressure",
            );
            (active.len() == 2 && active.values().all(|v| *v == 0.0)).then_some(())
        },
        || {
            format!(
                "{:?}",
                metric(
                    &read_metrics(&dir).0,
                    "egret.backpressure.active",
                    "__backpressure"
                )
            )
        },
    )
    .unwrap_or_else(|e| fail_with(cluster, &e));
}

#[test]
fn slow_bolt_recovering_lifts_backpressure() {
    slow_bolt_recovering("bp-recover", Bridge::from_env().expect("bridge"));
}

/// As above, each container's executors in its stream manager's embedded JVM:
/// the throttle reaches the spout through the bridge's bounded queues.
#[test]
fn slow_bolt_recovering_lifts_backpressure_with_the_jni_bridge() {
    slow_bolt_recovering("bp-recover-jni", Bridge::Jni);
}

fn slow_bolt_recovering(test: &str, bridge: Bridge) {
    let cluster = Cluster::with_bridge(test, bridge).expect("cluster");
    let name = cluster.topology_name();
    submit(&cluster, &name);
    let home = cluster.home().to_path_buf();
    let mut peaks = Peaks::default();

    let first_ack = wait_first_ack(&cluster);
    sample_for(&home, &mut peaks, Duration::from_secs(14));
    let slow_window = (first_ack + 6_000, now_ms() - 500);
    let active_before = metric(
        &read_metrics(&cluster.topology_dir(&name)).0,
        "egret.backpressure.active",
        "__backpressure",
    );

    let recovered_at = recover(&cluster);
    // The backlog queued during the slow phase drains first; measure after it.
    sample_for(&home, &mut peaks, Duration::from_secs(12));
    let fast_window = (recovered_at + 4_000, now_ms() - 500);
    let o = Observed::progress(&cluster.out_dir());
    // The slow rate is the bolt's own execute rate: the spout's ack count
    // can stall for seconds while it is throttled (see resume_window).
    let slow_rate = o
        .bolt_rate(slow_window.0, slow_window.1)
        .expect("slow window");
    let fast_rate = o
        .spout_rate(fast_window.0, fast_window.1)
        .expect("fast window");
    let bolt_fast = o
        .bolt_rate(fast_window.0, fast_window.1)
        .expect("bolt fast window");
    eprintln!("{}", peaks.report());
    eprintln!(
        "recovery: slow bolt executes {slow_rate:.1}/s slow; spout acks {fast_rate:.1}/s after recovery (× {:.1}); \
         bolt executes {bolt_fast:.1}/s after recovery; active before recovery {active_before:?}",
        fast_rate / slow_rate
    );
    assert!(
        active_before.values().any(|v| *v == 1.0),
        "backpressure was not active during the slow phase: {active_before:?}"
    );
    // Fails if the spout stays throttled (a throttle that never lifts) or the
    // bolt keeps its slow pace. Why 5×: the slow rate is capped by the bolt's
    // sleep (200/s at most), while an unthrottled spout feeding a bolt that no
    // longer sleeps is limited only by the machine, so a real lift clears 5×
    // with a wide margin and a throttle that lifted only in
    // part, or only now and then, does not. The rate after recovery itself is
    // a benchmark figure.
    assert!(
        fast_rate > 5.0 * slow_rate,
        "after recovery the spout acks {fast_rate:.1}/s, not above 5 × the slow rate {slow_rate:.1}/s"
    );

    let drained = drain(&cluster, &name);
    assert_nothing_lost(&drained);
    wait_backpressure_lifted(&cluster, &name);
    cluster.check_bridge(&name).expect("the bridge asked for");
    cluster.kill_and_check_clean(&name).expect("clean kill");
}
