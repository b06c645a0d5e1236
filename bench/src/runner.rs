//! One measured run of one system: spawn its process tree, wait for the first
//! task to report through the hook, warm up, measure, stop everything.
//!
//! Invariants:
//! - the root is spawned in its own process group with a parent-death signal,
//!   output to a log file; the whole tree (every member [`TreeAccount`] saw,
//!   and the root's group) is SIGKILLed once the root has had `stop_grace` to
//!   end after SIGTERM, on every path out of [`run_measured`], error or not;
//! - the warm-up starts once tuples go through (a spout task's first ack or a
//!   sink task's first execute, [`Snapshot::flowing`]), or, when tasks have
//!   reported but none has yet, `startup_timeout` after the spawn; the window
//!   starts `warmup` later and lasts `duration`. (A spout that takes long to
//!   open, such as a Kafka consumer joining its group on a loaded machine,
//!   would otherwise have a window with nothing in it.) Throughput and
//!   latency are differences of the hook files between those two moments, CPU
//!   the difference of the tree's CPU;
//! - when no task reports within `startup_timeout` (a system without auto task
//!   hooks), the run goes on unmeasured by the hook: the window then starts
//!   `warmup` after that timeout, and only processes are measured.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

use crate::BenchError;
use crate::cumulative::{Snapshot, Window};
use crate::procs::{SAMPLE_PERIOD, TreeAccount};

/// How to start one system.
#[derive(Debug, Clone)]
pub struct Launch {
    /// "storm", "egret" or "ceiling".
    pub system: String,
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
    pub cwd: PathBuf,
    /// Where the tree's stdout and stderr go.
    pub log: PathBuf,
    /// The directory the hook writes to (`egret.bench.output.dir`).
    pub output_dir: PathBuf,
    /// How long the root may take to end after SIGTERM before everything is killed.
    pub stop_grace: Duration,
}

/// The time rules of a run.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub warmup: Duration,
    pub duration: Duration,
    pub startup_timeout: Duration,
}

/// Which count the throughput is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Spout acks (acking on).
    Acked,
    /// Executes at the sink bolts (acking off).
    SinkExecuted,
    /// Nothing counted.
    None,
}

impl Metric {
    pub fn label(self) -> &'static str {
        match self {
            Metric::Acked => "acked",
            Metric::SinkExecuted => "sink executes",
            Metric::None => "-",
        }
    }
}

/// What one run measured.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub system: String,
    pub round: u32,
    /// Whether any task reported through the hook.
    pub hook_reported: bool,
    /// Seconds the window spanned.
    pub window_secs: f64,
    pub acked: u64,
    pub failed: u64,
    pub sink_executed: u64,
    pub metric: Metric,
    /// Tuples per second (None without hook figures).
    pub throughput: Option<f64>,
    pub p50_ms: Option<u64>,
    pub p99_ms: Option<u64>,
    pub p999_ms: Option<u64>,
    /// The same quantiles in µs from the spouts' own measurement (`hist_us`), when
    /// they made one (the rate workload); None otherwise.
    pub p50_us: Option<u64>,
    pub p99_us: Option<u64>,
    pub p999_us: Option<u64>,
    /// CPU seconds of the tree during the window.
    pub cpu_secs: f64,
    /// CPU seconds of the tree over the whole run (startup included).
    pub cpu_total_secs: f64,
    pub peak_rss_bytes: u64,
    pub peak_processes: usize,
    pub log: PathBuf,
}

impl RunResult {
    /// Figures from the hook window and the process accounting.
    pub fn from_window(
        system: &str,
        round: u32,
        window: Option<&Window>,
        wall_secs: f64,
        cpu_secs: f64,
        account: &TreeAccount,
        log: &Path,
    ) -> RunResult {
        let hook_reported = window.is_some();
        let w = window.cloned().unwrap_or_default();
        let secs = w.seconds.unwrap_or(wall_secs).max(f64::MIN_POSITIVE);
        let (metric, count) = if w.acked > 0 {
            (Metric::Acked, w.acked)
        } else if w.sink_executed > 0 {
            (Metric::SinkExecuted, w.sink_executed)
        } else {
            (Metric::None, 0)
        };
        RunResult {
            system: system.to_owned(),
            round,
            hook_reported,
            window_secs: secs,
            acked: w.acked,
            failed: w.failed,
            sink_executed: w.sink_executed,
            metric,
            throughput: hook_reported.then(|| count as f64 / secs),
            p50_ms: w.latencies.quantile(0.50),
            p99_ms: w.latencies.quantile(0.99),
            p999_ms: w.latencies.quantile(0.999),
            p50_us: w.latencies_us.quantile(0.50),
            p99_us: w.latencies_us.quantile(0.99),
            p999_us: w.latencies_us.quantile(0.999),
            cpu_secs,
            cpu_total_secs: account.cpu_seconds(),
            peak_rss_bytes: account.peak_rss_bytes(),
            peak_processes: account.peak_processes(),
            log: log.to_owned(),
        }
    }
}

/// The last `max` bytes of `path`, for an error message.
pub fn log_tail(path: &Path, max: usize) -> String {
    let Ok(bytes) = std::fs::read(path) else {
        return String::new();
    };
    let start = bytes.len().saturating_sub(max);
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

/// A running tree that is always stopped: explicitly through [`Running::stop`], or on drop.
struct Running {
    child: Child,
    account: TreeAccount,
    grace: Duration,
    stopped: bool,
}

impl Running {
    fn root(&self) -> Pid {
        Pid::from_raw(self.child.id() as i32)
    }

    /// SIGTERM to the root, up to `grace` for it to end (sampling meanwhile), then
    /// SIGKILL to every member and the root's group, and reap the root.
    fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        let root = self.root();
        if self.child.try_wait().ok().flatten().is_none() && !self.grace.is_zero() {
            let _ = kill(root, Signal::SIGTERM);
            let deadline = Instant::now() + self.grace;
            while Instant::now() < deadline {
                self.account.sample();
                if self.child.try_wait().ok().flatten().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        self.account.sample();
        for pid in self.account.live_pids() {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
        let _ = killpg(root, Signal::SIGKILL);
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Members that were children of the root are reparented and reaped by init.
        self.account.sample();
        for pid in self.account.live_pids() {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Runs `launch` once under `timing`.
pub fn run_measured(launch: &Launch, timing: &Timing, round: u32) -> Result<RunResult, BenchError> {
    run_measured_window(launch, timing, round).map(|(result, _)| result)
}

/// When a run's window began and ended, in Unix milliseconds (for figures
/// measured outside the hook over the same window, such as a Kafka topic's
/// end offsets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowTimes {
    pub start_unix_ms: u64,
    pub end_unix_ms: u64,
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Told when a run's warm-up starts, when its measured window starts (each
/// with the run's live processes) and when the window ends, before the run is
/// stopped (`--profile` records then, and readies its recorders in the
/// warm-up).
pub trait WindowObserver {
    /// The warm-up starts (the first tuple went through, or the start-up
    /// timed out); the warm-up's length is counted from when this returns.
    fn warmup_started(&mut self, _live_pids: &[i32]) {}
    fn window_started(&mut self, live_pids: &[i32]);
    fn window_ended(&mut self);
}

struct Unobserved;

impl WindowObserver for Unobserved {
    fn window_started(&mut self, _: &[i32]) {}
    fn window_ended(&mut self) {}
}

/// [`run_measured`], also returning the window's wall-clock times.
pub fn run_measured_window(
    launch: &Launch,
    timing: &Timing,
    round: u32,
) -> Result<(RunResult, WindowTimes), BenchError> {
    run_observed(launch, timing, round, &mut Unobserved)
}

/// [`run_measured_window`], telling `observer` when the window starts and ends.
pub fn run_observed(
    launch: &Launch,
    timing: &Timing,
    round: u32,
    observer: &mut dyn WindowObserver,
) -> Result<(RunResult, WindowTimes), BenchError> {
    if launch.output_dir.exists() {
        std::fs::remove_dir_all(&launch.output_dir)
            .map_err(|e| BenchError::io(&launch.output_dir, e))?;
    }
    std::fs::create_dir_all(&launch.output_dir)
        .map_err(|e| BenchError::io(&launch.output_dir, e))?;
    // A log of an earlier run under the same work dir is replaced, not appended to.
    match std::fs::remove_file(&launch.log) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(BenchError::io(&launch.log, e));
        }
        _ => {}
    }
    let (out, err) =
        egret_supervisor::open_log(&launch.log).map_err(|e| BenchError::io(&launch.log, e))?;
    let mut cmd = Command::new(&launch.program);
    cmd.args(&launch.args)
        .envs(launch.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&launch.cwd)
        .stdin(std::process::Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0);
    egret_supervisor::set_parent_death_signal(&mut cmd);
    let child = cmd.spawn().map_err(|source| BenchError::Spawn {
        program: launch.program.display().to_string(),
        source,
    })?;
    tracing::info!(system = %launch.system, round, pid = child.id(), log = %launch.log.display(), "Started a run.");
    let root = child.id() as i32;
    let mut running = Running {
        child,
        account: TreeAccount::new(root),
        grace: launch.stop_grace,
        stopped: false,
    };

    let spawned = Instant::now();
    let spawned_unix_ms = unix_ms();
    // When the warm-up started: tuples flowing, or the startup timeout.
    let mut warming: Option<Instant> = None;
    let mut hook_seen = false;
    let mut start: Option<(Instant, Snapshot, f64)> = None;
    let mut times = WindowTimes {
        start_unix_ms: 0,
        end_unix_ms: 0,
    };
    let (window, wall_secs, cpu_secs) = loop {
        let tick = Instant::now();
        let sample = running.account.sample();
        if let Ok(Some(status)) = running.child.try_wait() {
            return Err(BenchError::EndedEarly {
                system: launch.system.clone(),
                status: status.to_string(),
                log: launch.log.clone(),
                tail: log_tail(&launch.log, 2000),
            });
        }
        let now = Instant::now();
        if warming.is_none() {
            let snap = Snapshot::read(&launch.output_dir)?;
            if !hook_seen && !snap.is_empty() {
                hook_seen = true;
                // The hook writes its file as the task is prepared, with its own clock: the
                // earliest time there is when the first task started, to the millisecond
                // (this loop only looks every SAMPLE_PERIOD).
                let prepared = snap
                    .first_written_ms()
                    .map(|ms| Duration::from_millis(ms.saturating_sub(spawned_unix_ms)));
                tracing::info!(system = %launch.system, after = ?now - spawned, prepared_after = ?prepared, "The first task reported.");
            }
            if snap.flowing() {
                observer.warmup_started(&running.account.live_pids());
                // The warm-up is counted from when the observer is done (it may take seconds).
                warming = Some(Instant::now());
                let first = snap
                    .first_tuple_ms()
                    .map(|ms| Duration::from_millis(ms.saturating_sub(spawned_unix_ms)));
                tracing::info!(system = %launch.system, after = ?now - spawned, first_tuple_after = ?first, "The first tuple went through; warming up.");
            } else if now - spawned >= timing.startup_timeout {
                observer.warmup_started(&running.account.live_pids());
                warming = Some(Instant::now());
                if hook_seen {
                    tracing::warn!(
                        system = %launch.system,
                        timeout = ?timing.startup_timeout,
                        "Tasks reported but no tuple was acked at a spout or executed at a sink; warming up anyway."
                    );
                } else {
                    tracing::warn!(
                        system = %launch.system,
                        timeout = ?timing.startup_timeout,
                        "No task reported through the hook (topology.auto.task.hooks); measuring the processes only."
                    );
                }
            }
        }
        if let Some(first) = warming {
            match &start {
                None if now - first >= timing.warmup => {
                    times.start_unix_ms = unix_ms();
                    let snap = Snapshot::read(&launch.output_dir)?;
                    hook_seen |= !snap.is_empty();
                    start = Some((now, snap, sample.cpu_seconds));
                    observer.window_started(&running.account.live_pids());
                }
                Some((began, snap, cpu)) if now - *began >= timing.duration => {
                    times.end_unix_ms = unix_ms();
                    let end = Snapshot::read(&launch.output_dir)?;
                    hook_seen |= !end.is_empty();
                    let window = hook_seen.then(|| Window::between(snap, &end));
                    observer.window_ended();
                    break (
                        window,
                        (now - *began).as_secs_f64(),
                        sample.cpu_seconds - cpu,
                    );
                }
                _ => {}
            }
        }
        std::thread::sleep(SAMPLE_PERIOD.saturating_sub(tick.elapsed()));
    };
    running.stop();
    let result = RunResult::from_window(
        &launch.system,
        round,
        window.as_ref(),
        wall_secs,
        cpu_secs,
        &running.account,
        &launch.log,
    );
    Ok((result, times))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(dir: &Path, script: &str) -> Launch {
        Launch {
            system: "sh".into(),
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            env: vec![],
            cwd: dir.to_owned(),
            log: dir.join("log.txt"),
            output_dir: dir.join("out"),
            stop_grace: Duration::from_millis(300),
        }
    }

    fn hook_file(acked: u64, hist: &str) -> String {
        format!(
            "version 1\\ncomponent s\\ntask 1\\nspout true\\nsink false\\ntime_ms $(date +%s%3N)\\n\
             acked {acked}\\nfailed 0\\nexecuted 0\\nlatency_count {acked}\\nhist {hist}\\n"
        )
    }

    /// A hook file whose counts are the shell variable `$n`.
    fn counting_hook_file() -> String {
        hook_file(0, "3:0")
            .replace("acked 0", "acked $n")
            .replace("latency_count 0", "latency_count $n")
            .replace("3:0", "3:$n")
    }

    /// Shell that replaces the task's hook file with `text` at once (as the hook does).
    fn write_hook(text: &str) -> String {
        format!("printf \"{text}\" > out/s-1.tmp && mv out/s-1.tmp out/s-1.txt")
    }

    #[test]
    fn measures_a_fake_system_through_its_files_and_stops_the_tree() {
        let tmp = tempfile::tempdir().unwrap();
        // A "system" whose task reports 1000 acks more every 100 ms, with a grandchild.
        let script = format!(
            "sleep 97.25 & n=0; while true; do n=$((n+1000)); {}; sleep 0.1; done",
            write_hook(&counting_hook_file())
        );
        let l = launch(tmp.path(), &script);
        let timing = Timing {
            warmup: Duration::from_millis(400),
            // Long against the fake's 100 ms steps: each forks, which a loaded machine slows.
            duration: Duration::from_secs(2),
            startup_timeout: Duration::from_secs(10),
        };
        let r = run_measured(&l, &timing, 1).unwrap();
        assert!(r.hook_reported);
        assert_eq!(r.metric, Metric::Acked);
        assert!(r.acked >= 3000, "{r:?}");
        assert!(r.throughput.unwrap() > 1000.0, "{r:?}");
        assert_eq!(r.p50_ms, Some(3));
        assert!(r.peak_processes >= 2, "{r:?}");
        assert!(r.peak_rss_bytes > 0);
        // Nothing of the tree is left.
        std::thread::sleep(Duration::from_millis(200));
        let left = crate::procs::all_processes(Path::new("/proc"))
            .into_iter()
            .filter(|p| p.state != 'Z')
            .filter(|p| {
                std::fs::read_to_string(format!("/proc/{}/cmdline", p.pid))
                    .is_ok_and(|c| c == "sleep\u{0}97.25\u{0}")
            })
            .count();
        assert_eq!(left, 0, "the grandchild survived");
    }

    #[derive(Default)]
    struct Seen {
        warming: Vec<i32>,
        started: Vec<i32>,
        ended: bool,
    }

    impl WindowObserver for Seen {
        fn warmup_started(&mut self, live_pids: &[i32]) {
            assert!(self.warming.is_empty(), "a second warm-up");
            assert!(self.started.is_empty(), "warming up after the start");
            self.warming = live_pids.to_vec();
        }
        fn window_started(&mut self, live_pids: &[i32]) {
            assert!(!self.ended, "started after the end");
            assert!(!self.warming.is_empty(), "started without a warm-up");
            self.started = live_pids.to_vec();
        }
        fn window_ended(&mut self) {
            assert!(!self.started.is_empty(), "ended before the start");
            self.ended = true;
        }
    }

    #[test]
    fn the_observer_is_told_when_the_warm_up_and_the_window_start_and_when_it_ends() {
        let tmp = tempfile::tempdir().unwrap();
        // The sleep is forked before the hook reports, so it is alive when the warm-up starts.
        let script = format!("sleep 30 & {}; wait", write_hook(&hook_file(5, "1:5")));
        let l = launch(tmp.path(), &script);
        let timing = Timing {
            warmup: Duration::from_millis(200),
            duration: Duration::from_millis(400),
            startup_timeout: Duration::from_secs(10),
        };
        let mut seen = Seen::default();
        let (r, _) = run_observed(&l, &timing, 1, &mut seen).unwrap();
        assert!(r.hook_reported);
        assert!(seen.ended);
        // The run's shell and its sleep were alive at the warm-up's and the window's start.
        assert!(seen.warming.len() >= 2, "{:?}", seen.warming);
        assert!(seen.started.len() >= 2, "{:?}", seen.started);
    }

    #[test]
    fn a_start_up_that_times_out_still_tells_the_observer_of_the_warm_up_first() {
        let tmp = tempfile::tempdir().unwrap();
        // No hook ever reports: the start-up times out and the processes alone are measured.
        let l = launch(tmp.path(), "sleep 30");
        let timing = Timing {
            warmup: Duration::from_millis(200),
            duration: Duration::from_millis(400),
            startup_timeout: Duration::from_millis(300),
        };
        let mut seen = Seen::default();
        let (r, _) = run_observed(&l, &timing, 1, &mut seen).unwrap();
        assert!(!r.hook_reported);
        assert!(!seen.warming.is_empty(), "no warm-up was told");
        assert!(seen.ended);
    }

    #[test]
    fn the_warm_up_waits_for_the_first_tuple_not_the_first_report() {
        let tmp = tempfile::tempdir().unwrap();
        // The task reports 0 acks for 3 s (a spout still opening), then 1000
        // more every 100 ms. A window started from the first report (0.2 s
        // warm-up, 1.2 s long) would end before the first ack.
        let script = format!(
            "{}; sleep 3; n=0; while true; do n=$((n+1000)); {}; sleep 0.1; done",
            write_hook(&hook_file(0, "3:0")),
            write_hook(&counting_hook_file())
        );
        let l = launch(tmp.path(), &script);
        let timing = Timing {
            warmup: Duration::from_millis(200),
            duration: Duration::from_millis(1200),
            startup_timeout: Duration::from_secs(20),
        };
        let r = run_measured(&l, &timing, 1).unwrap();
        assert!(r.hook_reported);
        assert_eq!(r.metric, Metric::Acked, "{r:?}");
        assert!(r.acked >= 2000, "{r:?}");
    }

    #[test]
    fn a_report_with_nothing_flowing_warms_up_at_the_startup_timeout() {
        let tmp = tempfile::tempdir().unwrap();
        let script = format!("{}; sleep 30", write_hook(&hook_file(0, "3:0")));
        let l = launch(tmp.path(), &script);
        let timing = Timing {
            warmup: Duration::from_millis(100),
            duration: Duration::from_millis(300),
            startup_timeout: Duration::from_millis(500),
        };
        let started = Instant::now();
        let r = run_measured(&l, &timing, 1).unwrap();
        assert!(r.hook_reported);
        assert_eq!(r.metric, Metric::None, "{r:?}");
        assert!(
            started.elapsed() >= Duration::from_millis(900),
            "did not wait for the timeout"
        );
    }

    #[test]
    fn a_system_without_the_hook_is_measured_by_processes_only() {
        let tmp = tempfile::tempdir().unwrap();
        let l = launch(tmp.path(), "sleep 30");
        let timing = Timing {
            warmup: Duration::from_millis(100),
            duration: Duration::from_millis(300),
            startup_timeout: Duration::from_millis(300),
        };
        let r = run_measured(&l, &timing, 2).unwrap();
        assert!(!r.hook_reported);
        assert_eq!(r.throughput, None);
        assert_eq!(r.metric, Metric::None);
        assert!(r.window_secs >= 0.3);
    }

    #[test]
    fn an_early_exit_is_an_error_with_the_log() {
        let tmp = tempfile::tempdir().unwrap();
        let l = launch(tmp.path(), "echo boom; exit 3");
        let timing = Timing {
            warmup: Duration::from_secs(1),
            duration: Duration::from_secs(1),
            startup_timeout: Duration::from_secs(5),
        };
        let err = run_measured(&l, &timing, 1).unwrap_err().to_string();
        assert!(
            err.contains("boom") && err.contains("exit status: 3"),
            "{err}"
        );
    }
}
