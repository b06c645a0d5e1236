//! `egret-supervisor`: local child processes: how every egret parent (scheduler,
//! container supervisor, `egret jar`) starts, watches, restarts and stops its children.
//!
//! Invariants (contracts.md, "Processes"):
//! - every supervised child runs in its own process group (its pgid is its pid)
//!   with `PR_SET_PDEATHSIG=SIGKILL`, so nothing outlives its parent;
//! - the parent-death signal fires when the *thread* that forked the child
//!   exits, so supervisors must spawn from a thread that lives as long as the
//!   process: run them on a current-thread runtime on the main thread;
//! - a child's stdout and stderr are appended to its log file; stdin is null;
//! - a child that exits while its supervisor is not stopping is restarted after
//!   a backoff (doubling from [`RestartPolicy::initial_backoff`], reset when the
//!   child had run for [`RestartPolicy::stable_after`]); every restart is logged
//!   and counted, in the child's summary and in the supervisor's metrics
//!   registry as `egret.restarts` (component: the child's name, task 0);
//! - a child whose spec names a [`ChildSpec::final_exit_code`] and that exits
//!   with it has finished its work: it is not restarted, and the supervisor
//!   reports it ([`Supervisor::finished`]) so its owner can act (the scheduler
//!   stops the topology when its topology master exits "topology killed");
//! - stopping sends SIGTERM to the child's process group, SIGKILL after the
//!   grace period, and always reaps the child.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use egret_metrics::{MetricKey, Registry, SnapshotWriter};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

/// How long a stopped child gets between SIGTERM and SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_secs(5);

/// What to run, and where its output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildSpec {
    /// Unique among a supervisor's children, e.g. `container-1`, `word-0`.
    pub name: String,
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// Added to the inherited environment.
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
    /// stdout and stderr are appended here.
    pub log_file: PathBuf,
    /// An exit with this code means the child is done: it is not restarted and
    /// is reported by [`Supervisor::finished`]. `None`: always restarted.
    pub final_exit_code: Option<i32>,
    /// The `cgroup.procs` files of the cgroups the child runs in
    /// (`egret_isolation::Group::procs_files`): it joins them between fork
    /// and exec, so it never runs outside its limits. Empty: it stays in
    /// the supervisor's cgroups.
    pub cgroup_procs: Vec<PathBuf>,
    /// The child runs under `SCHED_BATCH` (set between fork and exec, so that
    /// every thread it starts inherits it): its threads, when they wake, do
    /// not preempt a running thread (`egret.sched.policy`).
    pub batch_scheduling: bool,
}

impl ChildSpec {
    /// The command line as text, for logs.
    pub fn display_command(&self) -> String {
        std::iter::once(self.program.as_os_str())
            .chain(self.args.iter().map(OsString::as_os_str))
            .map(|s| s.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Opens (creating, appending) a log file for a child's stdout and stderr.
pub fn open_log(path: &Path) -> io::Result<(Stdio, Stdio)> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let file = OpenOptions::new().create(true).append(true).open(path)?;
    let err = file.try_clone()?;
    Ok((Stdio::from(file), Stdio::from(err)))
}

/// Hands the memory glibc's allocator keeps after a burst of frees back to the
/// system: reading a fat jar's central directory (tens of thousands of entries)
/// leaves tens of MiB of freed small blocks that the allocator would otherwise
/// keep resident for the rest of the process's life.
#[allow(unsafe_code)]
pub fn release_freed_memory() {
    // SAFETY: malloc_trim(3) takes no pointers and only walks the allocator's own
    // free lists, under the allocator's locks.
    unsafe {
        nix::libc::malloc_trim(0);
    }
}

/// Makes the child die with SIGKILL when the thread that forks it exits.
#[allow(unsafe_code)]
pub fn set_parent_death_signal(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let parent = nix::unistd::getpid();
    // SAFETY: the closure runs in the forked child between fork and exec; it
    // calls only prctl(2) and getppid(2), which are async-signal-safe, and
    // neither allocates nor takes locks (the error is built from a raw errno).
    unsafe {
        cmd.pre_exec(move || {
            nix::sys::prctl::set_pdeathsig(Some(Signal::SIGKILL))
                .map_err(|e| io::Error::from_raw_os_error(e as i32))?;
            // The parent died between fork and prctl: the signal will never come.
            if nix::unistd::getppid() != parent {
                return Err(io::Error::from_raw_os_error(nix::libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// Starts the child in a new session (detached from the caller's terminal and
/// process group), so that it outlives the caller.
#[allow(unsafe_code)]
pub fn set_new_session(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: runs in the forked child before exec; setsid(2) is
    // async-signal-safe and the closure neither allocates nor takes locks.
    unsafe {
        cmd.pre_exec(|| {
            nix::unistd::setsid().map_err(|e| io::Error::from_raw_os_error(e as i32))?;
            Ok(())
        });
    }
}

/// The command of a supervised child: own process group, parent-death
/// signal, output appended to its log, stdin null.
pub fn supervised_command(spec: &ChildSpec) -> io::Result<Command> {
    use std::os::unix::process::CommandExt;
    let (out, err) = open_log(&spec.log_file)?;
    let mut cmd = std::process::Command::new(&spec.program);
    cmd.args(&spec.args)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0);
    if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
    set_parent_death_signal(&mut cmd);
    join_cgroups(&mut cmd, &spec.cgroup_procs)?;
    if spec.batch_scheduling {
        set_batch_scheduling(&mut cmd);
    }
    Ok(Command::from(cmd))
}

/// Makes the child run under `SCHED_BATCH` (see [`ChildSpec::batch_scheduling`]).
/// A non-real-time policy: no privilege is needed, and a refusal fails the
/// spawn with the errno.
#[allow(unsafe_code)]
fn set_batch_scheduling(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: runs in the forked child before exec; sched_setscheduler(2) is a
    // plain system call on this process, given a parameter on the stack; the
    // closure neither allocates nor takes locks.
    unsafe {
        cmd.pre_exec(|| {
            let param = nix::libc::sched_param { sched_priority: 0 };
            if nix::libc::sched_setscheduler(0, nix::libc::SCHED_BATCH, &param) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Makes the child join the cgroups whose `cgroup.procs` files are `procs`
/// before it execs: the files are opened now (a missing one fails the spawn,
/// naming it) and the child writes `0` ("this process") to each.
#[allow(unsafe_code)]
fn join_cgroups(cmd: &mut std::process::Command, procs: &[PathBuf]) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::process::CommandExt;
    if procs.is_empty() {
        return Ok(());
    }
    let files = procs
        .iter()
        .map(|path| {
            OpenOptions::new()
                .write(true)
                .custom_flags(nix::libc::O_CLOEXEC)
                .open(path)
                .map_err(|e| {
                    io::Error::new(e.kind(), format!("cannot open {}: {e}", path.display()))
                })
        })
        .collect::<io::Result<Vec<std::fs::File>>>()?;
    // SAFETY: the closure runs in the forked child before exec; it only
    // calls write(2) (async-signal-safe) on descriptors opened before the
    // fork, and reads errno; it neither allocates nor takes locks.
    unsafe {
        cmd.pre_exec(move || {
            for file in &files {
                use std::os::fd::AsRawFd;
                let written = nix::libc::write(file.as_raw_fd(), b"0".as_ptr().cast(), 1);
                if written != 1 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    Ok(())
}

/// Sends `signal` to the process group led by `pid` (ignoring a group that is
/// already gone).
pub fn signal_group(pid: u32, signal: Signal) {
    let Ok(pid) = i32::try_from(pid) else { return };
    if pid <= 0 {
        return;
    }
    if let Err(e) = killpg(Pid::from_raw(pid), signal)
        && e != nix::errno::Errno::ESRCH
    {
        tracing::warn!(pid, ?signal, error = %e, "Could not signal a process group.");
    }
}

/// Stops a child: SIGTERM to its group, SIGKILL after `grace`, then reaps it.
pub async fn terminate(child: &mut Child, grace: Duration) -> io::Result<std::process::ExitStatus> {
    if let Some(status) = child.try_wait()? {
        return Ok(status);
    }
    let Some(pid) = child.id() else {
        return child.wait().await;
    };
    signal_group(pid, Signal::SIGTERM);
    match tokio::time::timeout(grace, child.wait()).await {
        Ok(status) => status,
        Err(_) => {
            tracing::warn!(
                pid,
                grace_secs = grace.as_secs(),
                "Child ignored SIGTERM; sending SIGKILL."
            );
            signal_group(pid, Signal::SIGKILL);
            child.wait().await
        }
    }
}

/// When and how fast to restart children that die.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestartPolicy {
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// A child that ran this long before dying is restarted after the initial backoff again.
    pub stable_after: Duration,
    pub stop_grace: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        Self {
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(10),
            stable_after: Duration::from_secs(30),
            stop_grace: STOP_GRACE,
        }
    }
}

/// What happened to a child over its supervisor's life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildSummary {
    pub name: String,
    /// Restarts after the child died on its own or was restarted on request.
    pub restarts: u32,
}

/// A child that exited with its [`ChildSpec::final_exit_code`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    pub name: String,
    pub code: i32,
}

/// Finished children waiting to be taken by [`Supervisor::finished`]; each
/// child reports at most once per spawn, so this bound is never reached in
/// practice (a report beyond it is logged and dropped).
const FINISHED_QUEUE: usize = 64;

struct Watched {
    restart: mpsc::Sender<()>,
    task: JoinHandle<ChildSummary>,
}

/// The metric counting a supervised child's restarts.
pub const RESTARTS_METRIC: &str = "egret.restarts";

/// How often a supervisor's metrics snapshot is considered for writing (the
/// writer itself throttles to one write per 5 s, and writes only on change).
pub const METRICS_TICK: Duration = Duration::from_secs(1);

fn restarts_key(child: &str) -> MetricKey {
    MetricKey::new(RESTARTS_METRIC, child, 0)
}

/// Runs children, restarts them when they die, stops them all on request.
pub struct Supervisor {
    policy: RestartPolicy,
    stopping: watch::Sender<bool>,
    children: BTreeMap<String, Watched>,
    metrics: Registry,
    finished_tx: mpsc::Sender<Finished>,
    finished_rx: mpsc::Receiver<Finished>,
}

impl Supervisor {
    pub fn new(policy: RestartPolicy) -> Self {
        let (stopping, _) = watch::channel(false);
        let (finished_tx, finished_rx) = mpsc::channel(FINISHED_QUEUE);
        Self {
            policy,
            stopping,
            children: BTreeMap::new(),
            metrics: Registry::new(),
            finished_tx,
            finished_rx,
        }
    }

    /// Resolves when a child exits with its [`ChildSpec::final_exit_code`]
    /// (it is not restarted); pending forever when none does.
    pub async fn finished(&mut self) -> Finished {
        match self.finished_rx.recv().await {
            Some(finished) => finished,
            // Unreachable: the supervisor holds a sender.
            None => std::future::pending().await,
        }
    }

    /// The registry holding `egret.restarts` of every child.
    pub fn metrics(&self) -> &Registry {
        &self.metrics
    }

    /// Starts a child and keeps it running. A child of the same name is
    /// replaced (the old one is stopped first by its own watcher).
    pub fn spawn(&mut self, spec: ChildSpec) {
        let (restart_tx, restart_rx) = mpsc::channel(1);
        let name = spec.name.clone();
        if self.metrics.get(&restarts_key(&name)).is_none() {
            self.metrics.set(restarts_key(&name), 0.0);
        }
        let task = tokio::spawn(watch_child(
            spec,
            self.policy,
            self.stopping.subscribe(),
            restart_rx,
            self.metrics.clone(),
            self.finished_tx.clone(),
        ));
        if let Some(old) = self.children.insert(
            name,
            Watched {
                restart: restart_tx,
                task,
            },
        ) {
            // Dropping its restart sender tells the old watcher to stop its child.
            drop(old.restart);
        }
    }

    /// Names of the supervised children.
    pub fn names(&self) -> Vec<String> {
        self.children.keys().cloned().collect()
    }

    /// Stops and starts one child again. `false` when there is no such child.
    pub fn restart(&self, name: &str) -> bool {
        match self.children.get(name) {
            Some(watched) => {
                // A full channel means a restart is already pending.
                let _ = watched.restart.try_send(());
                true
            }
            None => false,
        }
    }

    /// Stops every child (SIGTERM, SIGKILL after the grace period), reaps them,
    /// and returns what happened to each.
    pub async fn stop(self) -> Vec<ChildSummary> {
        let _ = self.stopping.send(true);
        let mut out = Vec::with_capacity(self.children.len());
        for (name, watched) in self.children {
            match watched.task.await {
                Ok(summary) => out.push(summary),
                Err(e) => {
                    tracing::error!(child = %name, error = %e, "Child watcher failed.");
                    out.push(ChildSummary { name, restarts: 0 });
                }
            }
        }
        out
    }
}

enum Wake {
    Exited(io::Result<std::process::ExitStatus>),
    RestartRequested,
    Stop,
}

async fn watch_child(
    spec: ChildSpec,
    policy: RestartPolicy,
    mut stopping: watch::Receiver<bool>,
    mut restart_rx: mpsc::Receiver<()>,
    metrics: Registry,
    finished: mpsc::Sender<Finished>,
) -> ChildSummary {
    let mut restarts = 0u32;
    let mut backoff = policy.initial_backoff;
    loop {
        if *stopping.borrow() {
            break;
        }
        let spawned = supervised_command(&spec).and_then(|mut cmd| cmd.spawn());
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => {
                tracing::error!(child = %spec.name, command = %spec.display_command(), error = %e, backoff_ms = backoff.as_millis() as u64, "Could not start child; retrying.");
                if sleep_or_stop(backoff, &mut stopping).await {
                    break;
                }
                backoff = (backoff * 2).min(policy.max_backoff);
                continue;
            }
        };
        let started = Instant::now();
        tracing::info!(child = %spec.name, pid = child.id(), log = %spec.log_file.display(), "Started child.");
        let wake = tokio::select! {
            status = child.wait() => Wake::Exited(status),
            r = restart_rx.recv() => match r {
                Some(()) => Wake::RestartRequested,
                None => Wake::Stop,
            },
            _ = async { let _ = stopping.wait_for(|s| *s).await; } => Wake::Stop,
        };
        match wake {
            Wake::Stop => {
                match terminate(&mut child, policy.stop_grace).await {
                    Ok(status) => tracing::info!(child = %spec.name, %status, "Stopped child."),
                    Err(e) => {
                        tracing::warn!(child = %spec.name, error = %e, "Could not reap child.")
                    }
                }
                break;
            }
            Wake::RestartRequested => {
                let _ = terminate(&mut child, policy.stop_grace).await;
                restarts += 1;
                metrics.add(restarts_key(&spec.name), 1.0);
                backoff = policy.initial_backoff;
                tracing::info!(child = %spec.name, restarts, "Restarting child on request.");
            }
            Wake::Exited(status) => {
                if *stopping.borrow() {
                    break;
                }
                let code = status
                    .as_ref()
                    .ok()
                    .and_then(std::process::ExitStatus::code);
                if let Some(code) = code.filter(|c| Some(*c) == spec.final_exit_code) {
                    tracing::info!(child = %spec.name, code, "Child finished; not restarting it.");
                    let report = Finished {
                        name: spec.name.clone(),
                        code,
                    };
                    if let Err(e) = finished.try_send(report) {
                        tracing::warn!(child = %spec.name, error = %e, "Could not report a finished child.");
                    }
                    break;
                }
                restarts += 1;
                metrics.add(restarts_key(&spec.name), 1.0);
                if started.elapsed() >= policy.stable_after {
                    backoff = policy.initial_backoff;
                }
                let status = match status {
                    Ok(s) => s.to_string(),
                    Err(e) => format!("unknown ({e})"),
                };
                tracing::warn!(child = %spec.name, %status, restarts, backoff_ms = backoff.as_millis() as u64, log = %spec.log_file.display(), "Child exited unexpectedly; restarting.");
                if sleep_or_stop(backoff, &mut stopping).await {
                    break;
                }
                backoff = (backoff * 2).min(policy.max_backoff);
            }
        }
    }
    ChildSummary {
        name: spec.name,
        restarts,
    }
}

/// Keeps `DIR/metrics/<process>.json` current with `registry` until the
/// returned task is aborted; call [`write_metrics_now`] for the last word.
pub fn spawn_metrics_writer(
    registry: Registry,
    topology_dir: &Path,
    process: &str,
) -> JoinHandle<()> {
    let mut writer = SnapshotWriter::new(topology_dir, process);
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(METRICS_TICK);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut failing = false;
        loop {
            ticks.tick().await;
            match writer.write_if_due(&registry, Instant::now()) {
                Ok(_) => failing = false,
                Err(e) => {
                    if !failing {
                        tracing::warn!(error = %e, "Writing the metrics snapshot failed.");
                    }
                    failing = true;
                }
            }
        }
    })
}

/// Writes the snapshot now (at shutdown), logging a failure.
pub fn write_metrics_now(registry: &Registry, topology_dir: &Path, process: &str) {
    if let Err(e) = SnapshotWriter::new(topology_dir, process).write_now(registry, Instant::now()) {
        tracing::warn!(error = %e, "Writing the last metrics snapshot failed.");
    }
}

/// Sleeps; `true` when the supervisor started stopping meanwhile.
async fn sleep_or_stop(duration: Duration, stopping: &mut watch::Receiver<bool>) -> bool {
    let stopped = tokio::select! {
        _ = tokio::time::sleep(duration) => false,
        _ = async { let _ = stopping.wait_for(|s| *s).await; } => true,
    };
    stopped || *stopping.borrow()
}

/// Registers for SIGTERM and SIGINT now (so a signal that arrives from here
/// on is not lost) and returns a future that resolves with the first one's name.
pub fn termination_signal() -> io::Result<impl Future<Output = &'static str> + Send + 'static> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anonymous_kib() -> u64 {
        std::fs::read_to_string("/proc/self/status")
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("RssAnon:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }

    #[test]
    fn freed_small_blocks_go_back_to_the_system() {
        // As a jar's central directory: many small blocks, all freed, a few kept between them.
        let mut kept = Vec::new();
        let blocks: Vec<Box<[u8; 200]>> = (0..300_000)
            .map(|i| {
                if i % 1000 == 0 {
                    kept.push(Box::new([1u8; 200]));
                }
                Box::new([i as u8; 200])
            })
            .collect();
        let full = anonymous_kib();
        drop(blocks);
        release_freed_memory();
        let trimmed = anonymous_kib();
        assert!(
            full > trimmed + 30_000,
            "RssAnon {full} kB with 60 MB of blocks, {trimmed} kB once freed and trimmed"
        );
        assert_eq!(kept.len(), 300);
    }

    fn sh(name: &str, script: &str, log: &Path) -> ChildSpec {
        ChildSpec {
            name: name.into(),
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            env: vec![("EGRET_TEST_VAR".into(), "hello".into())],
            cwd: None,
            log_file: log.to_owned(),
            final_exit_code: None,
            cgroup_procs: Vec::new(),
            batch_scheduling: false,
        }
    }

    /// The scheduling policy of a process `spec`'s shell starts (field 41 of
    /// `/proc/PID/stat`: 0 SCHED_OTHER, 3 SCHED_BATCH), as the child logs it.
    async fn policy_of_a_grandchild(spec: ChildSpec) -> String {
        let log = spec.log_file.clone();
        let status = supervised_command(&spec).unwrap().status().await.unwrap();
        assert!(status.success(), "{status:?}");
        std::fs::read_to_string(log).unwrap().trim().to_owned()
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_child_with_batch_scheduling_runs_under_sched_batch_and_so_does_what_it_starts() {
        let tmp = tempfile::tempdir().unwrap();
        let script = "awk '{print $41}' /proc/self/stat";
        let batch = ChildSpec {
            batch_scheduling: true,
            ..sh("batch", script, &tmp.path().join("b.log"))
        };
        assert_eq!(policy_of_a_grandchild(batch).await, "3");
        let other = sh("other", script, &tmp.path().join("o.log"));
        assert_eq!(policy_of_a_grandchild(other).await, "0");
    }

    /// Waits up to 10 s for `cond`, looking every 10 ms (the supervisor's tasks run meanwhile).
    async fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !cond() {
            assert!(
                std::time::Instant::now() < deadline,
                "not within 10 s: {what}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn lines_equal(path: &Path, line: &str) -> usize {
        std::fs::read_to_string(path)
            .map(|text| text.lines().filter(|l| *l == line).count())
            .unwrap_or(0)
    }

    fn fast() -> RestartPolicy {
        RestartPolicy {
            initial_backoff: Duration::from_millis(20),
            max_backoff: Duration::from_millis(50),
            stable_after: Duration::from_secs(30),
            stop_grace: Duration::from_millis(500),
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn restarts_a_child_that_dies_and_appends_its_output() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("logs").join("c.log");
        let mut sup = Supervisor::new(fast());
        sup.spawn(sh("c", "echo run $EGRET_TEST_VAR; exit 3", &log));
        let metrics = sup.metrics().clone();
        eventually("2 restarts", || {
            metrics.get(&restarts_key("c")).unwrap_or(0.0) >= 2.0
        })
        .await;
        let summary = sup.stop().await;
        assert_eq!(summary.len(), 1);
        assert!(summary[0].restarts >= 2, "{summary:?}");
        assert_eq!(
            metrics.get(&restarts_key("c")),
            Some(f64::from(summary[0].restarts)),
            "every restart is counted in the metrics"
        );
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(
            text.lines().filter(|l| *l == "run hello").count() >= 2,
            "{text}"
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn stop_escalates_to_sigkill_and_reaps() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("t.log");
        let pid_file = tmp.path().join("pid");
        let mut sup = Supervisor::new(fast());
        let script = format!(
            "trap '' TERM; echo $$ > {}; while true; do sleep 0.05; done",
            pid_file.display()
        );
        sup.spawn(sh("stubborn", &script, &log));
        let deadline = Instant::now() + Duration::from_secs(5);
        while !pid_file.exists() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let pid: i32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let started = Instant::now();
        let summary = sup.stop().await;
        assert_eq!(summary[0].restarts, 0);
        assert!(started.elapsed() >= Duration::from_millis(400));
        // Reaped: the pid no longer exists.
        assert!(nix::sys::signal::kill(Pid::from_raw(pid), None).is_err());
    }

    #[tokio::test(flavor = "current_thread")]
    async fn restart_on_request_and_unknown_name() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("r.log");
        let mut sup = Supervisor::new(fast());
        sup.spawn(sh("r", "echo up; exec sleep 30", &log));
        eventually("the first run's line", || lines_equal(&log, "up") == 1).await;
        assert!(sup.restart("r"));
        assert!(!sup.restart("nope"));
        eventually("the second run's line", || lines_equal(&log, "up") == 2).await;
        assert_eq!(sup.names(), vec!["r".to_string()]);
        assert_eq!(sup.metrics().get(&restarts_key("r")), Some(1.0));
        let summary = sup.stop().await;
        assert_eq!(summary[0].restarts, 1);
        let text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(text.lines().filter(|l| *l == "up").count(), 2, "{text}");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_restart_counts_reach_the_snapshot_file() {
        let tmp = tempfile::tempdir().unwrap();
        let mut sup = Supervisor::new(fast());
        sup.spawn(sh("quiet", "exec sleep 30", &tmp.path().join("q.log")));
        sup.spawn(sh("dying", "exit 1", &tmp.path().join("d.log")));
        let writer = spawn_metrics_writer(sup.metrics().clone(), tmp.path(), "scheduler");
        let metrics = sup.metrics().clone();
        eventually("a restart of the dying child", || {
            metrics.get(&restarts_key("dying")).unwrap_or(0.0) >= 1.0
        })
        .await;
        sup.stop().await;
        writer.abort();
        write_metrics_now(&metrics, tmp.path(), "scheduler");
        let snapshot = &egret_metrics::read_snapshots(tmp.path()).unwrap()[0];
        assert_eq!(snapshot.process, "scheduler");
        let value = |child: &str| {
            snapshot
                .metrics
                .iter()
                .find(|m| m.name == RESTARTS_METRIC && m.component == child && m.task == 0)
                .map(|m| m.value)
        };
        assert_eq!(value("quiet"), Some(0.0));
        assert!(value("dying").unwrap() >= 1.0, "{snapshot:?}");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_child_exiting_with_its_final_code_is_reported_not_restarted() {
        let tmp = tempfile::tempdir().unwrap();
        let log = tmp.path().join("f.log");
        let mut sup = Supervisor::new(fast());
        sup.spawn(ChildSpec {
            final_exit_code: Some(3),
            cgroup_procs: Vec::new(),
            ..sh("done", "echo once; exit 3", &log)
        });
        // Another code is an ordinary death: restarted.
        sup.spawn(ChildSpec {
            final_exit_code: Some(3),
            cgroup_procs: Vec::new(),
            ..sh("other", "exit 4", &tmp.path().join("o.log"))
        });
        let finished = tokio::time::timeout(Duration::from_secs(5), sup.finished())
            .await
            .unwrap();
        assert_eq!(
            finished,
            Finished {
                name: "done".into(),
                code: 3
            }
        );
        let metrics = sup.metrics().clone();
        eventually("a restart of the other child", || {
            metrics.get(&restarts_key("other")).unwrap_or(0.0) >= 1.0
        })
        .await;
        assert_eq!(sup.metrics().get(&restarts_key("done")), Some(0.0));
        let summary = sup.stop().await;
        assert_eq!(summary[0].name, "done");
        assert_eq!(summary[0].restarts, 0);
        let text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(text.lines().filter(|l| *l == "once").count(), 1, "{text}");
    }

    #[test]
    fn display_command_joins_program_and_args() {
        let spec = sh("x", "true", Path::new("/tmp/x.log"));
        assert_eq!(spec.display_command(), "/bin/sh -c true");
    }
}
