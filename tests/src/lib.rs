//! End-to-end test harness: runs real jars on a real local cluster.
//!
//! Every test builds one [`Cluster`]: a fresh `EGRET_HOME` in a temporary
//! directory, so local clusters of different tests never see each other, and a
//! process-wide lock, so tests run one at a time (a topology is a dozen JVMs;
//! two cores do not run two of them well). The cluster drives the real `egret`
//! binary as a user would (`egret jar|local|kill`) and reads what the example
//! sinks wrote under [`Cluster::out_dir`].
//!
//! Invariants the harness keeps:
//! - every process a test caused to start has `EGRET_HOME`'s path in its command
//!   line (topology dir, user jar copy, ...), which is how leftovers are found;
//! - nothing outlives a `Cluster`: its `Drop` SIGKILLs, by pid, any process still
//!   carrying its path, so a failed test cannot poison the next one;
//! - on a failed test the `EGRET_HOME` is kept and the tail of every log is printed.
//!
//! Artifacts are found from the environment first (`EGRET_BIN`,
//! `EGRET_EXAMPLES_JAR`, `EGRET_STORM_STARTER_JAR`, `EGRET_SHIM_JAR`), then at
//! the places `./egret-dev build` leaves them.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use tempfile::TempDir;

pub mod connectors;
pub mod faults;
pub mod hosts;
pub mod jars;
pub mod kube;
pub mod sequence;
pub mod servers;
pub mod ui;
pub mod word_count;

/// Package of the example topologies in the examples jar.
pub const EXAMPLES_PACKAGE: &str = "dev.egret.examples";

/// Default bound for one `egret` command that is expected to return promptly.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(45);

/// The period of [`Cluster::wait_quiescent`]'s reports: the stream managers'
/// metrics tick (1 s; a changed snapshot is written at most every 5 s).
pub const QUIET_REPORT: Duration = Duration::from_secs(1);

/// The prefix of the instance JVMs' heap and GC metrics in a stream
/// manager's snapshot, which [`Cluster::wait_quiescent`] does not compare.
const JVM_METRICS: &str = "egret.jvm.";

/// Default bound of [`Cluster::wait_quiescent`]: a drained topology settles in
/// a few reports; a stream manager snapshot is at most 5 s behind.
pub const QUIET_TIMEOUT: Duration = Duration::from_secs(30);

/// How long processes may take to disappear after `egret kill`.
pub const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(15);

/// Errors of the harness itself (a missing artifact, a command that hung, ...).
///
/// `Debug` prints the same text as `Display`, because a test returning `Err`
/// shows the `Debug` form and it should be readable.
#[derive(thiserror::Error)]
pub enum HarnessError {
    #[error("{what} not found at {path} ({hint})")]
    MissingArtifact {
        what: &'static str,
        path: PathBuf,
        hint: &'static str,
    },
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("timed out after {secs:.1} s waiting for {what}{detail}")]
    Timeout {
        what: String,
        secs: f64,
        detail: String,
    },
    #[error("{0}")]
    Failed(String),
}

impl fmt::Debug for HarnessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Result of the harness.
pub type Result<T, E = HarnessError> = std::result::Result<T, E>;

fn io_err(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> HarnessError {
    let path = path.to_path_buf();
    move |source| HarnessError::Io {
        action,
        path,
        source,
    }
}

/// The repository root (the workspace this crate lives in).
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

fn env_path(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn existing(what: &'static str, path: PathBuf, hint: &'static str) -> Result<PathBuf> {
    if path.is_file() {
        Ok(path)
    } else {
        Err(HarnessError::MissingArtifact { what, path, hint })
    }
}

/// The files a test needs: the binary under test and the jars it runs.
#[derive(Debug, Clone)]
pub struct Artifacts {
    pub egret: PathBuf,
    pub shim_jar: PathBuf,
    pub examples_jar: PathBuf,
    pub storm_starter_jar: PathBuf,
}

const BUILD_HINT: &str = "run ./egret-dev build first";

impl Artifacts {
    /// Finds every artifact, failing with a hint when one is missing.
    pub fn locate() -> Result<Self> {
        let root = workspace_root();
        let target = env_path("CARGO_TARGET_DIR").unwrap_or_else(|| root.join("target"));
        let egret = env_path("EGRET_BIN").unwrap_or_else(|| target.join("debug").join("egret"));
        // `egret` finds the shim itself (beside the binary, or
        // java-shim/target/ up from it); checking here turns a missing build
        // into one clear message instead of a failing JVM in every test.
        let shim = env_path("EGRET_SHIM_JAR")
            .unwrap_or_else(|| root.join("java-shim/target/egret-shim.jar"));
        let examples = env_path("EGRET_EXAMPLES_JAR")
            .unwrap_or_else(|| root.join("examples-storm/target/egret-examples-storm.jar"));
        let starter = env_path("EGRET_STORM_STARTER_JAR").unwrap_or_else(|| {
            env_path("HOME")
                .unwrap_or_else(|| PathBuf::from("/root"))
                .join(".m2/repository/org/apache/storm/storm-starter/1.2.2/storm-starter-1.2.2.jar")
        });
        Ok(Self {
            egret: existing("egret binary", egret, "run cargo build or set EGRET_BIN")?,
            shim_jar: existing("shim jar", shim, BUILD_HINT)?,
            examples_jar: existing("examples jar", examples, BUILD_HINT)?,
            storm_starter_jar: existing("storm-starter 1.2.2 jar", starter, BUILD_HINT)?,
        })
    }
}

/// What a finished command printed.
#[derive(Debug)]
pub struct Output {
    /// `None` when the harness killed it at its timeout.
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Output {
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// stdout then stderr, for assertions that do not care which.
    pub fn combined(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    /// A printable account of the run, for assertion messages.
    pub fn describe(&self) -> String {
        let status = match self.status {
            Some(s) => s.to_string(),
            None => "killed at timeout".to_owned(),
        };
        format!(
            "{status} after {:.1} s\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.elapsed.as_secs_f64(),
            tail(&self.stdout, 60),
            tail(&self.stderr, 60)
        )
    }
}

/// The last `n` lines of `text`.
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

fn spawn_reader(
    mut pipe: impl Read + Send + 'static,
) -> (Arc<Mutex<Vec<u8>>>, thread::JoinHandle<()>) {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&buf);
    let handle = thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => sink
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend_from_slice(&chunk[..n]),
            }
        }
    });
    (buf, handle)
}

/// Runs `cmd` to completion or until `timeout`, when it is SIGKILLed.
///
/// Output is read on threads so a chatty child never blocks on a full pipe. A
/// detached grandchild may keep the pipes open after the child exited: the
/// readers then get a short grace period and the output read so far is kept.
pub fn run_with_timeout(cmd: &mut Command, timeout: Duration) -> Result<Output> {
    let start = Instant::now();
    let program = PathBuf::from(cmd.get_program());
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(io_err("run", &program))?;
    let (out_buf, out_thread) = match child.stdout.take() {
        Some(p) => spawn_reader(p),
        None => return Err(HarnessError::Failed("child has no stdout pipe".into())),
    };
    let (err_buf, err_thread) = match child.stderr.take() {
        Some(p) => spawn_reader(p),
        None => return Err(HarnessError::Failed("child has no stderr pipe".into())),
    };
    let status = loop {
        match child.try_wait().map_err(io_err("wait for", &program))? {
            Some(status) => break Some(status),
            None if start.elapsed() >= timeout => {
                // Already exited between the two calls is fine: ignore errors.
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            None => thread::sleep(Duration::from_millis(50)),
        }
    };
    let grace = Instant::now() + Duration::from_secs(2);
    while !(out_thread.is_finished() && err_thread.is_finished()) && Instant::now() < grace {
        thread::sleep(Duration::from_millis(20));
    }
    let take = |buf: &Arc<Mutex<Vec<u8>>>| {
        String::from_utf8_lossy(&buf.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    };
    Ok(Output {
        status,
        stdout: take(&out_buf),
        stderr: take(&err_buf),
        elapsed: start.elapsed(),
    })
}

/// Polls `probe` every 100 ms until it returns `Some`, or fails after `timeout`.
///
/// `describe` is called once on timeout to say what was seen last.
pub fn wait_until<T>(
    what: &str,
    timeout: Duration,
    mut probe: impl FnMut() -> Option<T>,
    describe: impl FnOnce() -> String,
) -> Result<T> {
    let start = Instant::now();
    loop {
        if let Some(v) = probe() {
            return Ok(v);
        }
        if start.elapsed() >= timeout {
            let seen = describe();
            return Err(HarnessError::Timeout {
                what: what.to_owned(),
                secs: start.elapsed().as_secs_f64(),
                detail: if seen.is_empty() {
                    String::new()
                } else {
                    format!("; last seen:\n{seen}")
                },
            });
        }
        thread::sleep(Duration::from_millis(100));
    }
}

/// The complete lines of a file (a last line without its newline is still
/// being written and is left out); empty when the file does not exist yet.
pub fn complete_lines(path: &Path) -> Vec<String> {
    let Ok(text) = fs::read_to_string(path) else {
        return Vec::new();
    };
    let complete = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    complete.lines().map(str::to_owned).collect()
}

/// Files `<dir>/<prefix>-<task id>.txt`, as task id → complete lines.
pub fn task_files(dir: &Path, prefix: &str) -> BTreeMap<i32, Vec<String>> {
    numbered_files(dir, prefix, ".txt")
}

/// Files `<dir>/<prefix>-<number><suffix>`, as number → complete lines.
pub fn numbered_files(dir: &Path, prefix: &str, suffix: &str) -> BTreeMap<i32, Vec<String>> {
    let mut found = BTreeMap::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(task) = name
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix('-'))
            .and_then(|rest| rest.strip_suffix(suffix))
            .and_then(|id| id.parse::<i32>().ok())
        else {
            continue;
        };
        found.insert(task, complete_lines(&entry.path()));
    }
    found
}

/// Processes (pid, command line) whose command line contains `needle`.
pub fn processes_mentioning(needle: &str) -> Vec<(i32, String)> {
    let me = std::process::id();
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if u32::try_from(pid).is_ok_and(|p| p == me) {
            continue;
        }
        // Processes come and go while we scan: unreadable ones are skipped.
        let Ok(raw) = fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&raw).replace('\0', " ");
        if cmdline.contains(needle) {
            found.push((pid, cmdline.trim_end().to_owned()));
        }
    }
    found
}

/// Processes of the cluster at `home`, as (pid, what it is): every process whose
/// command line mentions `home` (the roles `egret scheduler|tmaster|container|stmgr`
/// name their topology dir; an instance JVM has the topology's jar copy on its
/// class path) or whose working directory is under it (a stream manager runs in
/// its topology dir, an instance JVM in `work/<instance id>`, even one whose
/// command line was rewritten or names no path of the cluster). Zombies have no
/// command line and no working directory: they are gone already.
pub fn processes_of(home: &Path) -> Vec<(i32, String)> {
    let me = std::process::id();
    let home_str = home.to_string_lossy();
    let mut found = Vec::new();
    for pid in all_pids() {
        if u32::try_from(pid).is_ok_and(|p| p == me) {
            continue;
        }
        let Some(args) = process_args(pid) else {
            continue;
        };
        let cmdline = args.join(" ");
        let cwd = fs::read_link(format!("/proc/{pid}/cwd")).ok();
        let in_home = cwd.as_deref().is_some_and(|c| c.starts_with(home));
        if in_home || cmdline.contains(home_str.as_ref()) {
            let role = ["scheduler", "tmaster", "container", "stmgr"]
                .into_iter()
                .find(|r| match_role(&args, &home_str, r).is_some())
                .map(str::to_owned)
                .or_else(|| instance_of(pid, home).map(|id| format!("instance {id}")))
                .unwrap_or_else(|| "process".to_owned());
            found.push((pid, format!("[{role}] {cmdline}")));
        }
    }
    found.sort();
    found
}

/// The arguments of process `pid` (argv), or `None` when it is gone or unreadable.
pub fn process_args(pid: i32) -> Option<Vec<String>> {
    let raw = fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    if raw.is_empty() {
        // A zombie or a kernel thread: nothing to match against.
        return None;
    }
    Some(
        raw.split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect(),
    )
}

/// The parent pid of process `pid` (`PPid:` of `/proc/<pid>/status`).
pub fn parent_pid(pid: i32) -> Option<i32> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("PPid:"))
        .and_then(|v| v.trim().parse().ok())
}

fn all_pids() -> Vec<i32> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .collect()
}

/// A running internal `egret` process (`egret <role> --topology-dir DIR [--index N]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleProcess {
    pub pid: i32,
    /// `--index N` when the role has one (container, stmgr).
    pub index: Option<u32>,
}

/// Whether `args` is `<egret> <role> ..` with an argument under `home`, and its `--index`.
fn match_role(args: &[String], home: &str, role: &str) -> Option<Option<u32>> {
    if args.get(1).map(String::as_str) != Some(role)
        || !args.iter().any(|a| a.starts_with(home))
        || !args.first().is_some_and(|a| a.ends_with("egret"))
    {
        return None;
    }
    let index = args
        .iter()
        .position(|a| a == "--index")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok());
    Some(index)
}

/// The running `egret <role>` processes of the cluster at `home` (e.g. role
/// `stmgr`, `tmaster`, `container`, `scheduler`), by pid order.
pub fn role_processes(home: &Path, role: &str) -> Vec<RoleProcess> {
    let home = home.to_string_lossy();
    let mut found: Vec<RoleProcess> = all_pids()
        .into_iter()
        .filter_map(|pid| {
            let args = process_args(pid)?;
            let index = match_role(&args, &home, role)?;
            Some(RoleProcess { pid, index })
        })
        .collect();
    found.sort_by_key(|p| p.pid);
    found
}

/// The instance id of a process whose working directory is `<under home>/work/<id>`.
fn instance_of(pid: i32, home: &Path) -> Option<String> {
    let cwd = fs::read_link(format!("/proc/{pid}/cwd")).ok()?;
    if !cwd.starts_with(home) {
        return None;
    }
    let parent = cwd.parent()?;
    if parent.file_name()? != "work" {
        return None;
    }
    Some(cwd.file_name()?.to_string_lossy().into_owned())
}

/// Running instance JVMs of the cluster at `home`: (pid, instance id), found by
/// their working directory `work/<instance_id>` (set by the container).
pub fn instance_processes(home: &Path) -> Vec<(i32, String)> {
    let mut found: Vec<(i32, String)> = all_pids()
        .into_iter()
        .filter_map(|pid| Some((pid, instance_of(pid, home)?)))
        .collect();
    found.sort();
    found
}

/// Pids of the running JVMs of instance `instance_id` under `home`.
pub fn instance_pids(home: &Path, instance_id: &str) -> Vec<i32> {
    instance_processes(home)
        .into_iter()
        .filter(|(_, id)| id == instance_id)
        .map(|(pid, _)| pid)
        .collect()
}

/// Resident memory of process `pid` from `/proc/<pid>/status`, in KiB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Memory {
    /// `VmRSS`: resident now.
    pub rss_kib: u64,
    /// `VmHWM`: the most it has been resident since it started (the kernel's
    /// own peak, which catches spikes between two samples).
    pub hwm_kib: u64,
}

/// The memory of process `pid`, or `None` when it is gone, a zombie or unreadable.
pub fn process_memory(pid: i32) -> Option<Memory> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    };
    Some(Memory {
        rss_kib: field("VmRSS:")?,
        hwm_kib: field("VmHWM:")?,
    })
}

/// One counter of a metrics snapshot (contracts: "Metrics snapshots (local)").
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Metric {
    pub name: String,
    #[serde(default)]
    pub component: String,
    #[serde(default)]
    pub task: i64,
    pub value: f64,
}

/// `DIR/metrics/<process>.json`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct MetricsSnapshot {
    pub process: String,
    #[serde(default)]
    pub updated_ms: u64,
    #[serde(default)]
    pub metrics: Vec<Metric>,
}

impl MetricsSnapshot {
    /// The value of `name` for `component`, if the snapshot has it (summed over tasks).
    pub fn value(&self, name: &str, component: &str) -> Option<f64> {
        let mut found = None;
        for m in &self.metrics {
            if m.name == name && m.component == component {
                *found.get_or_insert(0.0) += m.value;
            }
        }
        found
    }
}

/// Every readable snapshot in `<topology dir>/metrics/`, by file stem. A file
/// that does not parse is reported in the error list rather than dropped, so a
/// malformed snapshot shows up in a failing test's message.
pub fn read_metrics(topology_dir: &Path) -> (BTreeMap<String, MetricsSnapshot>, Vec<String>) {
    let mut snapshots = BTreeMap::new();
    let mut errors = Vec::new();
    let Ok(entries) = fs::read_dir(topology_dir.join("metrics")) else {
        return (snapshots, errors);
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(OsStr::to_str) != Some("json") {
            continue;
        }
        let Some(stem) = path.file_stem().and_then(OsStr::to_str) else {
            continue;
        };
        match fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice::<MetricsSnapshot>(&bytes) {
                Ok(s) => {
                    snapshots.insert(stem.to_owned(), s);
                }
                Err(e) => errors.push(format!("{}: {e}", path.display())),
            },
            // Replaced by rename between the listing and the read: next poll.
            Err(_) => continue,
        }
    }
    (snapshots, errors)
}

/// Now, in ms since the epoch (the snapshots' `updated_ms` clock).
fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

static SERIAL: Mutex<()> = Mutex::new(());
static NAMES: AtomicU32 = AtomicU32::new(0);

/// How a test's topologies reach their JVMs (`egret.instance.bridge`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bridge {
    /// One JVM per executor over a Unix socket (Egret's default).
    Socket,
    /// One JVM embedded in each container's stream manager process.
    Jni,
}

/// The environment variable that picks the bridge of every [`Cluster::new`]
/// (`socket` or `jni`; unset: socket).
pub const BRIDGE_ENV: &str = "EGRET_E2E_BRIDGE";

impl Bridge {
    /// The config value.
    pub fn name(self) -> &'static str {
        match self {
            Self::Socket => "socket",
            Self::Jni => "jni",
        }
    }

    /// The bridge [`BRIDGE_ENV`] names; an error naming anything else.
    pub fn from_env() -> Result<Self> {
        match std::env::var(BRIDGE_ENV).ok().as_deref().map(str::trim) {
            None | Some("" | "socket") => Ok(Self::Socket),
            Some("jni") => Ok(Self::Jni),
            Some(other) => Err(HarnessError::Failed(format!(
                "{BRIDGE_ENV} must be socket or jni, found {other:?}"
            ))),
        }
    }
}

/// One test's private local cluster (see the module docs).
pub struct Cluster {
    pub artifacts: Artifacts,
    home: TempDir,
    home_str: String,
    test: String,
    bridge: Bridge,
    // Dropped last: the next test starts only once this one is cleaned up.
    _serial: MutexGuard<'static, ()>,
}

impl Cluster {
    /// A fresh `EGRET_HOME` for test `test`; waits for the previous test to
    /// end. Its topologies use the bridge [`BRIDGE_ENV`] names.
    pub fn new(test: &str) -> Result<Self> {
        Self::with_bridge(test, Bridge::from_env()?)
    }

    /// [`Cluster::new`] whose topologies use `bridge` (written to
    /// `$EGRET_HOME/egret.yaml`, the config layer every submission reads).
    pub fn with_bridge(test: &str, bridge: Bridge) -> Result<Self> {
        let serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let artifacts = Artifacts::locate()?;
        let home = tempfile::Builder::new()
            .prefix(&format!("egret-e2e-{test}-"))
            .tempdir()
            .map_err(io_err(
                "create a temporary EGRET_HOME in",
                &std::env::temp_dir(),
            ))?;
        let home_str = home.path().to_string_lossy().into_owned();
        let cluster = Self {
            artifacts,
            home,
            home_str,
            test: test.to_owned(),
            bridge,
            _serial: serial,
        };
        fs::create_dir_all(cluster.out_dir()).map_err(io_err("create", &cluster.out_dir()))?;
        if bridge != Bridge::Socket {
            let file = cluster.home().join("egret.yaml");
            fs::write(&file, format!("egret.instance.bridge: {}\n", bridge.name()))
                .map_err(io_err("write", &file))?;
        }
        Ok(cluster)
    }

    /// The bridge this cluster's topologies use.
    pub fn bridge(&self) -> Bridge {
        self.bridge
    }

    /// Checks that running topology `name` uses this cluster's bridge: with
    /// jni no instance JVM runs and every stream manager logged that its
    /// embedded JVM runs its executors; with socket, instance JVMs run.
    pub fn check_bridge(&self, name: &str) -> Result<()> {
        let instances = instance_processes(self.home());
        let logs = self.topology_dir(name).join("logs");
        let embedded: Vec<String> = fs::read_dir(&logs)
            .map_err(io_err("list", &logs))?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with("stmgr-"))
            .filter(|e| {
                fs::read_to_string(e.path())
                    .is_ok_and(|t| t.contains("The embedded JVM runs the container's executors"))
            })
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        match self.bridge {
            Bridge::Jni if !instances.is_empty() => Err(HarnessError::Failed(format!(
                "bridge jni, but instance JVMs run: {instances:?}"
            ))),
            Bridge::Jni if embedded.is_empty() => Err(HarnessError::Failed(
                "bridge jni, but no stream manager logged its embedded JVM".to_owned(),
            )),
            Bridge::Jni => self.check_executor_logs(name, &logs),
            Bridge::Socket if instances.is_empty() || !embedded.is_empty() => {
                Err(HarnessError::Failed(format!(
                    "bridge socket, but instance JVMs {instances:?} and embedded JVMs in {embedded:?}"
                )))
            }
            _ => Ok(()),
        }
    }

    /// With the JNI bridge every executor writes its own `logs/<instance>.log`
    /// (not the stream manager's log), as an instance JVM would.
    fn check_executor_logs(&self, name: &str, logs: &Path) -> Result<()> {
        let dir = egret_state_manager::TopologyDir::new(self.topology_dir(name));
        let plan = dir
            .read_packing_plan()
            .map_err(|e| HarnessError::Failed(format!("the packing plan of {name}: {e}")))?;
        let silent: Vec<&str> = plan
            .containers
            .iter()
            .flat_map(|c| &c.instances)
            .map(|i| i.instance_id.as_str())
            .filter(|id| {
                fs::metadata(logs.join(format!("{id}.log"))).map_or(true, |m| m.len() == 0)
            })
            .collect();
        if silent.is_empty() {
            Ok(())
        } else {
            Err(HarnessError::Failed(format!(
                "bridge jni, but executors without a log of their own in {}: {silent:?}",
                logs.display()
            )))
        }
    }

    /// This test's `EGRET_HOME`.
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// Where example sinks write (passed to them as their output directory).
    pub fn out_dir(&self) -> PathBuf {
        self.home().join("out")
    }

    /// The local cluster directory (`egret.local.dir` default).
    pub fn local_dir(&self) -> PathBuf {
        self.home().join("local")
    }

    /// A topology name unique on this machine.
    pub fn topology_name(&self) -> String {
        let n = NAMES.fetch_add(1, Ordering::Relaxed);
        format!("e2e-{}-{}-{n}", self.test, std::process::id())
    }

    /// An `egret` command with this cluster's `EGRET_HOME`.
    pub fn egret<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = Command::new(&self.artifacts.egret);
        cmd.args(args)
            .env("EGRET_HOME", self.home())
            .env_remove("EGRET_SUBMIT_SOCKET")
            .env_remove("EGRET_SUBMIT_TOKEN")
            .env_remove("EGRET_CLUSTER_CONFIG");
        cmd
    }

    /// Runs `egret <args>` with the default timeout.
    pub fn run<I, S>(&self, args: I) -> Result<Output>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        run_with_timeout(&mut self.egret(args), COMMAND_TIMEOUT)
    }

    /// The topology dir of running topology `name`.
    pub fn topology_dir(&self, name: &str) -> PathBuf {
        self.local_dir().join("topologies").join(name)
    }

    /// `egret jar <examples jar> dev.egret.examples.<class> <name> <out dir>`.
    pub fn jar_example(&self, class: &str, name: &str) -> Result<Output> {
        self.jar_example_with(class, name, &[])
    }

    /// `egret jar <examples jar> dev.egret.examples.<class> <name> <out dir> <extra..>`.
    pub fn jar_example_with(&self, class: &str, name: &str, extra: &[&str]) -> Result<Output> {
        let main = format!("{EXAMPLES_PACKAGE}.{class}");
        let out = self.out_dir();
        let mut args = vec![
            OsStr::new("jar"),
            self.artifacts.examples_jar.as_os_str(),
            OsStr::new(&main),
            OsStr::new(name),
            out.as_os_str(),
        ];
        args.extend(extra.iter().map(OsStr::new));
        self.run(args)
    }

    /// Submits an example that must start; fails with egret's output otherwise.
    pub fn submit_example(&self, class: &str, name: &str) -> Result<Output> {
        self.submit_example_with(class, name, &[])
    }

    /// [`Cluster::submit_example`] with extra arguments after the output dir.
    pub fn submit_example_with(&self, class: &str, name: &str, extra: &[&str]) -> Result<Output> {
        let out = self.jar_example_with(class, name, extra)?;
        if out.success() {
            Ok(out)
        } else {
            Err(HarnessError::Failed(format!(
                "egret jar {class} {name} failed: {}",
                out.describe()
            )))
        }
    }

    /// `egret kill NAME -w 0`, which must succeed.
    pub fn kill(&self, name: &str) -> Result<Output> {
        let out = self.run(["kill", name, "-w", "0"])?;
        if out.success() {
            Ok(out)
        } else {
            Err(HarnessError::Failed(format!(
                "egret kill {name} failed: {}",
                out.describe()
            )))
        }
    }

    /// Kills `name` and checks that every process of this cluster is gone.
    pub fn kill_and_check_clean(&self, name: &str) -> Result<()> {
        self.kill(name)?;
        self.assert_no_leftovers()
    }

    /// Processes still running that belong to this cluster (see [`processes_of`]).
    pub fn leftovers(&self) -> Vec<(i32, String)> {
        processes_of(self.home())
    }

    /// Waits up to [`SHUTDOWN_TIMEOUT`] for every process of this cluster to
    /// end: the scheduler, the topology master, the containers, the stream
    /// managers and the instance JVMs of every topology it ran, found by their
    /// command line or their working directory ([`processes_of`]), and
    /// anything else a test started under its `EGRET_HOME`.
    pub fn assert_no_leftovers(&self) -> Result<()> {
        wait_until(
            "every process of the topology to exit",
            SHUTDOWN_TIMEOUT,
            || self.leftovers().is_empty().then_some(()),
            || {
                self.leftovers()
                    .iter()
                    .map(|(pid, cmd)| format!("  pid {pid}: {cmd}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            },
        )
    }

    /// Waits until topology `name` is quiescent, then returns what `observe`
    /// saw last: no tree is pending in any stream manager's ledger
    /// (`egret.ledger.pending` is 0 in every `DIR/metrics/stmgr-N.json`, and
    /// there is at least one) and `observe` (the counts a test is about to
    /// assert) plus those snapshots' counters (all but their time stamp and the
    /// instance JVMs' heap and GC figures) were
    /// unchanged over two consecutive reports, [`QUIET_REPORT`] apart, with
    /// every stream manager's snapshot written after `observe` last changed
    /// (a stream manager writes its snapshot at most every 5 s: one written
    /// before the last tuples were emitted still shows an empty ledger), or,
    /// for a stream manager with nothing new to write, `observe` unchanged for
    /// longer than that interval.
    ///
    /// This replaces sleeping before exact counts: a late duplicate or a
    /// replay either changes the counts or is still pending in a ledger. Fails
    /// after `timeout` with the last counts and ledgers seen.
    pub fn wait_quiescent<T: PartialEq + fmt::Debug>(
        &self,
        name: &str,
        timeout: Duration,
        mut observe: impl FnMut() -> T,
    ) -> Result<T> {
        let dir = self.topology_dir(name);
        // The state compared between reports, and when each stream manager wrote the
        // snapshot it was read from (ms since the epoch): one reading for both.
        let state = |observe: &mut dyn FnMut() -> T| {
            let (snapshots, errors) = read_metrics(&dir);
            let mut written = Vec::new();
            let stmgrs: BTreeMap<String, Vec<Metric>> = snapshots
                .into_iter()
                .filter(|(process, _)| process.starts_with("stmgr-"))
                .map(|(process, s)| {
                    written.push(s.updated_ms);
                    // An idle JVM's heap and GC figures move on their own:
                    // they say nothing of tuples.
                    let metrics = s
                        .metrics
                        .into_iter()
                        .filter(|m| !m.name.starts_with(JVM_METRICS))
                        .collect();
                    (process, metrics)
                })
                .collect();
            ((observe(), stmgrs, errors), written)
        };
        let pending = |stmgrs: &BTreeMap<String, Vec<Metric>>| -> BTreeMap<String, Option<f64>> {
            stmgrs
                .iter()
                .map(|(process, metrics)| {
                    let value = metrics
                        .iter()
                        .find(|m| m.name == "egret.ledger.pending")
                        .map(|m| m.value);
                    (process.clone(), value)
                })
                .collect()
        };
        let start = Instant::now();
        let mut previous = state(&mut observe).0;
        // When `observe` last changed, on the monotonic clock and the snapshots' clock.
        let mut settled = (Instant::now(), unix_ms());
        loop {
            thread::sleep(QUIET_REPORT);
            let (current, written) = state(&mut observe);
            if current.0 != previous.0 {
                settled = (Instant::now(), unix_ms());
            }
            let ledgers = pending(&current.1);
            let drained = !ledgers.is_empty() && ledgers.values().all(|v| *v == Some(0.0));
            let fresh = written.iter().all(|ms| *ms >= settled.1)
                || settled.0.elapsed() > egret_metrics::SNAPSHOT_INTERVAL + QUIET_REPORT;
            if drained && fresh && current.2.is_empty() && current == previous {
                return Ok(current.0);
            }
            if start.elapsed() >= timeout {
                return Err(HarnessError::Timeout {
                    what: format!(
                        "topology {name} to be quiescent (no pending tree, counts unchanged)"
                    ),
                    secs: start.elapsed().as_secs_f64(),
                    detail: format!(
                        "; last seen:\n  counts {:?}\n  before {:?}\n  egret.ledger.pending {ledgers:?}\n  unreadable snapshots {:?}",
                        current.0, previous.0, current.2
                    ),
                });
            }
            previous = current;
        }
    }

    /// Every log file of the cluster (running and killed topologies), path → content.
    pub fn logs(&self) -> BTreeMap<PathBuf, String> {
        let mut logs = BTreeMap::new();
        for parent in [
            self.local_dir().join("topologies"),
            self.local_dir().join("killed"),
        ] {
            let Ok(topologies) = fs::read_dir(&parent) else {
                continue;
            };
            for topology in topologies.flatten() {
                let Ok(files) = fs::read_dir(topology.path().join("logs")) else {
                    continue;
                };
                for file in files.flatten() {
                    if let Ok(text) = fs::read(file.path()) {
                        logs.insert(file.path(), String::from_utf8_lossy(&text).into_owned());
                    }
                }
            }
        }
        logs
    }

    /// Waits until some log file contains `needle`; returns that file's path.
    pub fn wait_for_log(&self, needle: &str, timeout: Duration) -> Result<PathBuf> {
        wait_until(
            &format!("a log line containing {needle:?}"),
            timeout,
            || {
                self.logs()
                    .into_iter()
                    .find(|(_, text)| text.contains(needle))
                    .map(|(path, _)| path)
            },
            || self.describe_logs(15),
        )
    }

    /// The last `lines` lines of every log, for failure messages.
    pub fn describe_logs(&self, lines: usize) -> String {
        self.logs()
            .iter()
            .map(|(path, text)| format!("=== {} ===\n{}", path.display(), tail(text, lines)))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let failed = thread::panicking();
        if failed {
            eprintln!(
                "e2e test {} failed; EGRET_HOME kept at {}\n{}",
                self.test,
                self.home_str,
                self.describe_logs(40)
            );
            self.home.disable_cleanup(true);
        }
        // Only processes this test started carry its private path.
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let left = self.leftovers();
            if left.is_empty() || Instant::now() >= deadline {
                break;
            }
            for (pid, cmdline) in left {
                if !failed {
                    eprintln!(
                        "e2e test {}: killing leftover pid {pid}: {cmdline}",
                        self.test
                    );
                }
                // The process may have exited since the scan.
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
            thread::sleep(Duration::from_millis(100));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_lines_drops_a_partial_last_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "a 1\nb 2\nc").unwrap();
        assert_eq!(complete_lines(&path), vec!["a 1", "b 2"]);
        assert!(complete_lines(&dir.path().join("missing")).is_empty());
    }

    #[test]
    fn task_files_parses_task_ids_and_ignores_others() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("count-3.txt"), "x 1\n").unwrap();
        fs::write(dir.path().join("count-12.txt"), "y 2\n").unwrap();
        fs::write(dir.path().join("count-x.txt"), "z 1\n").unwrap();
        fs::write(dir.path().join("countless-1.txt"), "z 1\n").unwrap();
        let files = task_files(dir.path(), "count");
        assert_eq!(files.keys().copied().collect::<Vec<_>>(), vec![3, 12]);
        assert_eq!(files[&12], vec!["y 2"]);
    }

    #[test]
    fn numbered_files_uses_the_suffix() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("spout-acked-0.log"), "1:0\n1:1\n").unwrap();
        fs::write(dir.path().join("spout-acked-1.txt"), "2:0\n").unwrap();
        let files = numbered_files(dir.path(), "spout-acked", ".log");
        assert_eq!(files.keys().copied().collect::<Vec<_>>(), vec![0]);
        assert_eq!(files[&0], vec!["1:0", "1:1"]);
    }

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn match_role_needs_the_role_the_home_and_the_egret_binary() {
        let home = "/tmp/egret-e2e-x";
        let stmgr = args(&[
            "/w/target/debug/egret",
            "stmgr",
            "--topology-dir",
            "/tmp/egret-e2e-x/local/topologies/t",
            "--index",
            "2",
        ]);
        assert_eq!(match_role(&stmgr, home, "stmgr"), Some(Some(2)));
        assert_eq!(match_role(&stmgr, home, "container"), None);
        assert_eq!(match_role(&stmgr, "/tmp/other", "stmgr"), None);
        let tmaster = args(&[
            "/w/target/debug/egret",
            "tmaster",
            "--topology-dir",
            "/tmp/egret-e2e-x/local/topologies/t",
        ]);
        assert_eq!(match_role(&tmaster, home, "tmaster"), Some(None));
        // A JVM whose class path mentions the home is no egret role.
        let java = args(&["java", "stmgr", "-cp", "/tmp/egret-e2e-x/t.jar"]);
        assert_eq!(match_role(&java, home, "stmgr"), None);
    }

    #[test]
    fn metrics_snapshots_parse_and_sum_per_component() {
        let dir = tempfile::tempdir().unwrap();
        let metrics = dir.path().join("metrics");
        fs::create_dir(&metrics).unwrap();
        fs::write(
            metrics.join("container-1.json"),
            r#"{"process": "container-1", "updated_ms": 1764400000000,
                "metrics": [{"name": "egret.restarts", "component": "stmgr-1", "task": 0, "value": 2},
                            {"name": "egret.restarts", "component": "sink-0", "task": 0, "value": 1},
                            {"name": "__ack-count", "component": "spout", "task": 5, "value": 3},
                            {"name": "__ack-count", "component": "spout", "task": 6, "value": 4.5}]}"#,
        )
        .unwrap();
        fs::write(metrics.join("stmgr-1.json"), "{not json").unwrap();
        fs::write(metrics.join("notes.txt"), "ignored").unwrap();
        let (snapshots, errors) = read_metrics(dir.path());
        assert_eq!(snapshots.keys().collect::<Vec<_>>(), vec!["container-1"]);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("stmgr-1.json"), "{errors:?}");
        let c = &snapshots["container-1"];
        assert_eq!(c.process, "container-1");
        assert_eq!(c.value("egret.restarts", "stmgr-1"), Some(2.0));
        assert_eq!(c.value("egret.restarts", "sink-0"), Some(1.0));
        assert_eq!(c.value("__ack-count", "spout"), Some(7.5));
        assert_eq!(c.value("egret.restarts", "relay-0"), None);
        assert!(read_metrics(&dir.path().join("missing")).0.is_empty());
    }

    #[test]
    fn instance_processes_are_found_by_working_directory_and_parent() {
        let home = tempfile::tempdir().unwrap();
        let work = home.path().join("local/topologies/t/work/sink-1");
        fs::create_dir_all(&work).unwrap();
        let mut child = Command::new("sh")
            .args(["-c", "read -r line"])
            .current_dir(&work)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        let found = wait_until(
            "the child in work/sink-1",
            Duration::from_secs(5),
            || {
                let pids = instance_pids(home.path(), "sink-1");
                (!pids.is_empty()).then_some(pids)
            },
            String::new,
        );
        let listed = instance_processes(home.path());
        let parent = parent_pid(pid);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(found.unwrap(), vec![pid]);
        assert_eq!(listed, vec![(pid, "sink-1".to_owned())]);
        assert_eq!(parent, i32::try_from(std::process::id()).ok());
        assert!(instance_pids(home.path(), "sink-0").is_empty());
        assert!(process_args(pid).is_none_or(|a| a[0] == "sh"));
    }

    #[test]
    fn processes_of_finds_children_by_command_line_and_by_working_directory() {
        let home = tempfile::tempdir().unwrap();
        let work = home.path().join("local/topologies/t/work/count-0");
        fs::create_dir_all(&work).unwrap();
        let topology_dir = home.path().join("local/topologies/t");
        // One child names the home only in its arguments, one only by its
        // working directory (as an instance JVM whose class path is elsewhere).
        let mut by_args = Command::new("sh")
            .args(["-c", "read -r line", "sh"])
            .arg(&topology_dir)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let mut by_cwd = Command::new("sh")
            .args(["-c", "read -r line"])
            .current_dir(&work)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let pids: Vec<i32> = [&by_args, &by_cwd]
            .iter()
            .map(|c| i32::try_from(c.id()).unwrap())
            .collect();
        let found = wait_until(
            "both children",
            Duration::from_secs(5),
            || {
                let found = processes_of(home.path());
                pids.iter()
                    .all(|p| found.iter().any(|(q, _)| q == p))
                    .then_some(found)
            },
            || format!("{:?}", processes_of(home.path())),
        );
        by_args.kill().unwrap();
        by_args.wait().unwrap();
        by_cwd.kill().unwrap();
        by_cwd.wait().unwrap();
        let found = found.unwrap();
        let mut want = pids.clone();
        want.sort_unstable();
        assert_eq!(
            found.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
            want,
            "{found:?}"
        );
        let by_cwd_entry = found.iter().find(|(p, _)| *p == pids[1]).unwrap();
        assert!(
            by_cwd_entry.1.starts_with("[instance count-0] "),
            "{found:?}"
        );
        assert!(
            processes_of(home.path()).is_empty(),
            "{:?}",
            processes_of(home.path())
        );
        assert!(processes_of(&home.path().join("elsewhere")).is_empty());
    }

    #[test]
    fn process_memory_reads_this_process_and_not_a_missing_one() {
        let me = i32::try_from(std::process::id()).unwrap();
        let m = process_memory(me).unwrap();
        assert!(m.rss_kib > 0 && m.hwm_kib >= m.rss_kib, "{m:?}");
        assert_eq!(process_memory(i32::MAX), None);
    }

    #[test]
    fn run_with_timeout_captures_output_and_kills_on_timeout() {
        let out = run_with_timeout(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(out.status.and_then(|s| s.code()), Some(3));
        assert_eq!(out.stdout, "out\n");
        assert_eq!(out.stderr, "err\n");

        let out = run_with_timeout(
            Command::new("sh").args(["-c", "exec sleep 30"]),
            Duration::from_millis(300),
        )
        .unwrap();
        assert!(out.status.is_none());
        assert!(out.elapsed < Duration::from_secs(10));
    }

    #[test]
    fn wait_until_reports_what_it_waited_for() {
        let err = wait_until(
            "nothing",
            Duration::from_millis(150),
            || None::<()>,
            || "seen".into(),
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("nothing") && text.contains("seen"), "{text}");
        assert_eq!(
            wait_until("one", Duration::from_secs(1), || Some(1), String::new).unwrap(),
            1
        );
    }

    #[test]
    fn processes_mentioning_finds_a_child_by_its_arguments() {
        let marker = format!("egret-e2e-marker-{}", std::process::id());
        let mut child = Command::new("sh")
            // `read` blocks on the open pipe: the shell itself stays, with no child.
            .args(["-c", "read -r line", &marker])
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let found = wait_until(
            "the marked child",
            Duration::from_secs(5),
            || {
                let found = processes_mentioning(&marker);
                (!found.is_empty()).then_some(found)
            },
            String::new,
        );
        child.kill().unwrap();
        child.wait().unwrap();
        let found = found.unwrap();
        assert!(
            found
                .iter()
                .any(|(pid, _)| u32::try_from(*pid).ok() == Some(child.id()))
        );
    }
}
