//! Helpers for running published, unchanged topology jars (storm-starter,
//! storm-perf) whose `main()` may block for a long time: a command kept in the
//! background while the test watches it, and an incremental reader of the
//! topology logs, so a test can stop as soon as the jar's own output shows what
//! it must show instead of sleeping for a fixed time.
//!
//! Invariants:
//! - a [`Background`] command never outlives its value: `Drop` SIGKILLs it when
//!   it is still running (its topologies are then the [`Cluster`]'s to clean up);
//! - [`LogScanner`] hands every complete log line to the watcher exactly once,
//!   in file order, and never a partial last line (it is kept until its newline).

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::{Cluster, HarnessError, Output, Result, tail};

/// storm-perf 2.6.0 (the newest published), fetched by `./egret-dev build`:
/// `EGRET_STORM_PERF_JAR`, else the local Maven repository.
pub fn storm_perf_jar() -> Result<PathBuf> {
    let path = std::env::var_os("EGRET_STORM_PERF_JAR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("/root"))
                .join(".m2/repository/org/apache/storm/storm-perf/2.6.0/storm-perf-2.6.0.jar")
        });
    if path.is_file() {
        Ok(path)
    } else {
        Err(HarnessError::MissingArtifact {
            what: "storm-perf 2.6.0 jar",
            path,
            hint: "run ./egret-dev build first",
        })
    }
}

type Buffer = Arc<Mutex<Vec<u8>>>;

fn reader(mut pipe: impl Read + Send + 'static) -> (Buffer, thread::JoinHandle<()>) {
    let buf: Buffer = Arc::default();
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

fn text(buf: &Buffer) -> String {
    String::from_utf8_lossy(&buf.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
}

/// A command running in the background, its output collected as it comes.
pub struct Background {
    child: Child,
    stdout: Buffer,
    stderr: Buffer,
    readers: Vec<thread::JoinHandle<()>>,
    started: Instant,
}

impl Background {
    /// Starts `cmd` with its output piped to this value.
    pub fn spawn(cmd: &mut Command) -> Result<Self> {
        let program = PathBuf::from(cmd.get_program());
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| HarnessError::Io {
                action: "run",
                path: program,
                source,
            })?;
        let (Some(out), Some(err)) = (child.stdout.take(), child.stderr.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(HarnessError::Failed("child has no output pipes".into()));
        };
        let (stdout, out_reader) = reader(out);
        let (stderr, err_reader) = reader(err);
        Ok(Self {
            child,
            stdout,
            stderr,
            readers: vec![out_reader, err_reader],
            started: Instant::now(),
        })
    }

    /// What it printed on stdout so far.
    pub fn stdout(&self) -> String {
        text(&self.stdout)
    }

    /// stdout then stderr so far.
    pub fn combined(&self) -> String {
        format!("{}{}", text(&self.stdout), text(&self.stderr))
    }

    /// Whether it is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Sends `signal` (e.g. SIGTERM, which `egret local` answers by killing its topologies).
    pub fn signal(&self, signal: Signal) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // It may have exited since: nothing to signal then.
            let _ = kill(Pid::from_raw(pid), signal);
        }
    }

    /// Waits for it to exit, SIGKILLing it after `timeout`.
    pub fn wait(mut self, timeout: Duration) -> Result<Output> {
        let deadline = Instant::now() + timeout;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() >= deadline => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break None;
                }
                Ok(None) => thread::sleep(Duration::from_millis(50)),
                Err(e) => return Err(HarnessError::Failed(format!("cannot wait: {e}"))),
            }
        };
        // A detached grandchild may hold the pipes open: a short grace, then
        // whatever was read so far.
        let grace = Instant::now() + Duration::from_secs(2);
        while !self.readers.iter().all(thread::JoinHandle::is_finished) && Instant::now() < grace {
            thread::sleep(Duration::from_millis(20));
        }
        Ok(Output {
            status,
            stdout: text(&self.stdout),
            stderr: text(&self.stderr),
            elapsed: self.started.elapsed(),
        })
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// What a test looks for in the topology logs.
pub trait LogWatch {
    /// One complete line of the log of process `log` (file stem, e.g. `count-3`).
    fn line(&mut self, log: &str, line: &str);
    /// Whether everything the test waits for has been seen.
    fn done(&self) -> bool;
    /// What was seen so far, for a timeout message.
    fn describe(&self) -> String;
}

/// Reads the logs of every topology of a local cluster incrementally.
///
/// A topology's logs move from `topologies/<name>/` to `killed/<name>/` when it
/// is killed; a scanner used across a kill sees them again under the new path.
#[derive(Debug, Default)]
pub struct LogScanner {
    offsets: BTreeMap<PathBuf, u64>,
    partial: BTreeMap<PathBuf, Vec<u8>>,
}

impl LogScanner {
    /// Feeds every new complete line under `<local dir>/{topologies,killed}/*/logs/`.
    pub fn poll(&mut self, local_dir: &Path, watch: &mut dyn LogWatch) {
        for parent in ["topologies", "killed"] {
            let Ok(topologies) = fs::read_dir(local_dir.join(parent)) else {
                continue;
            };
            for topology in topologies.flatten() {
                let Ok(files) = fs::read_dir(topology.path().join("logs")) else {
                    continue;
                };
                let mut paths: Vec<PathBuf> = files.flatten().map(|f| f.path()).collect();
                paths.sort();
                for path in paths {
                    self.read_new(&path, watch);
                }
            }
        }
    }

    fn read_new(&mut self, path: &Path, watch: &mut dyn LogWatch) {
        let Ok(mut file) = File::open(path) else {
            return;
        };
        let mut offset = self.offsets.get(path).copied().unwrap_or(0);
        if file.metadata().is_ok_and(|m| m.len() < offset) {
            // Truncated and rewritten: read it again from the start.
            offset = 0;
            self.partial.remove(path);
        }
        if file.seek(SeekFrom::Start(offset)).is_err() {
            return;
        }
        let mut fresh = Vec::new();
        if file.read_to_end(&mut fresh).is_err() || fresh.is_empty() {
            return;
        }
        self.offsets
            .insert(path.to_path_buf(), offset + fresh.len() as u64);
        let pending = self.partial.entry(path.to_path_buf()).or_default();
        pending.extend_from_slice(&fresh);
        let Some(last_newline) = pending.iter().rposition(|b| *b == b'\n') else {
            return;
        };
        let rest = pending.split_off(last_newline + 1);
        let complete = std::mem::replace(pending, rest);
        let stem = path
            .file_stem()
            .and_then(OsStr::to_str)
            .unwrap_or_default()
            .to_owned();
        for line in String::from_utf8_lossy(&complete).lines() {
            watch.line(&stem, line);
        }
    }
}

impl Cluster {
    /// `egret <args>` with this cluster's `EGRET_HOME`, in the background.
    pub fn spawn_egret<I, S>(&self, args: I) -> Result<Background>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        Background::spawn(&mut self.egret(args))
    }

    /// Polls the logs of this cluster's topologies every 250 ms until `watch`
    /// is done, or fails after `timeout` with what it saw and the logs' tails.
    ///
    /// A linkage error in any log (an unchanged jar calling what the shim
    /// lacks) fails at once, naming the line: it is the precise cause, and the
    /// topology would only restart into it again.
    pub fn watch_logs(
        &self,
        what: &str,
        timeout: Duration,
        watch: &mut dyn LogWatch,
    ) -> Result<Duration> {
        self.watch_logs_of(what, timeout, watch, None)
    }

    /// [`Cluster::watch_logs`] that also fails as soon as `process` (the
    /// `egret local` or `egret jar` running the main) has exited.
    pub fn watch_logs_of(
        &self,
        what: &str,
        timeout: Duration,
        watch: &mut dyn LogWatch,
        mut process: Option<&mut Background>,
    ) -> Result<Duration> {
        let start = Instant::now();
        let mut scanner = LogScanner::default();
        let mut linkage = Linkage {
            inner: watch,
            error: None,
        };
        loop {
            let exited = process.as_deref_mut().is_some_and(|p| !p.running());
            scanner.poll(&self.local_dir(), &mut linkage);
            if linkage.inner.done() {
                return Ok(start.elapsed());
            }
            let why = if let Some((log, line)) = &linkage.error {
                Some(format!("a linkage error in {log}.log: {line}"))
            } else if exited {
                Some("the main's process exited".to_owned())
            } else if start.elapsed() >= timeout {
                Some(format!(
                    "timed out after {:.1} s",
                    start.elapsed().as_secs_f64()
                ))
            } else {
                None
            };
            if let Some(why) = why {
                return Err(HarnessError::Failed(format!(
                    "waiting for {what}: {why}; seen: {}\nlogs:\n{}",
                    linkage.inner.describe(),
                    self.describe_logs(12)
                )));
            }
            thread::sleep(Duration::from_millis(250));
        }
    }
}

/// Java's linkage errors: what an unchanged jar gets when the shim lacks a
/// class or member it was compiled against.
const LINKAGE_ERRORS: [&str; 5] = [
    "java.lang.NoClassDefFoundError",
    "java.lang.NoSuchMethodError",
    "java.lang.NoSuchFieldError",
    "java.lang.AbstractMethodError",
    "java.lang.IncompatibleClassChangeError",
];

/// Forwards lines to the test's watcher, keeping the first linkage error.
struct Linkage<'a> {
    inner: &'a mut dyn LogWatch,
    error: Option<(String, String)>,
}

impl LogWatch for Linkage<'_> {
    fn line(&mut self, log: &str, line: &str) {
        if self.error.is_none() && LINKAGE_ERRORS.iter().any(|e| line.contains(e)) {
            self.error = Some((log.to_owned(), line.trim().to_owned()));
        }
        self.inner.line(log, line);
    }

    fn done(&self) -> bool {
        self.inner.done()
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }
}

/// The first `n` lines of `text` matching `keep`, for the run report.
pub fn first_lines(text: &str, n: usize, keep: impl Fn(&str) -> bool) -> String {
    text.lines()
        .filter(|l| keep(l))
        .take(n)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The last `n` lines of `text` matching `keep`.
pub fn last_lines(text: &str, n: usize, keep: impl Fn(&str) -> bool) -> String {
    let kept: Vec<&str> = text.lines().filter(|l| keep(l)).collect();
    tail(&kept.join("\n"), n)
}

/// The part of a log line after the shim's logger prefix (`... - `).
pub fn message(line: &str) -> &str {
    line.split_once(" - ").map_or(line, |(_, m)| m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[derive(Default)]
    struct Collect(Vec<(String, String)>);

    impl LogWatch for Collect {
        fn line(&mut self, log: &str, line: &str) {
            self.0.push((log.to_owned(), line.to_owned()));
        }
        fn done(&self) -> bool {
            false
        }
        fn describe(&self) -> String {
            format!("{} lines", self.0.len())
        }
    }

    #[test]
    fn the_scanner_hands_each_complete_line_once() {
        let local = tempfile::tempdir().unwrap();
        let logs = local.path().join("topologies/t/logs");
        fs::create_dir_all(&logs).unwrap();
        let path = logs.join("count-3.log");
        let mut file = File::create(&path).unwrap();
        file.write_all(b"one\ntw").unwrap();
        let mut scanner = LogScanner::default();
        let mut seen = Collect::default();
        scanner.poll(local.path(), &mut seen);
        assert_eq!(seen.0, vec![("count-3".to_owned(), "one".to_owned())]);
        scanner.poll(local.path(), &mut seen);
        assert_eq!(seen.0.len(), 1, "nothing new, nothing handed");
        file.write_all(b"o\nthree\n").unwrap();
        scanner.poll(local.path(), &mut seen);
        let lines: Vec<&str> = seen.0.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(lines, vec!["one", "two", "three"]);
    }

    #[test]
    fn background_output_is_readable_while_running_and_after() {
        let mut bg =
            Background::spawn(Command::new("sh").args(["-c", "echo started; exec sleep 30"]))
                .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !bg.stdout().contains("started") && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
        }
        assert!(bg.stdout().contains("started"));
        assert!(bg.running());
        bg.signal(Signal::SIGTERM);
        let out = bg.wait(Duration::from_secs(10)).unwrap();
        assert!(!out.success());
        assert_eq!(out.stdout, "started\n");
    }

    #[test]
    fn message_strips_the_logger_prefix() {
        assert_eq!(
            message("2026 [t] INFO a.B - Emitting: count default [the, 1]"),
            "Emitting: count default [the, 1]"
        );
        assert_eq!(message("plain"), "plain");
        assert_eq!(
            first_lines("a1\nb\na2\na3", 2, |l| l.starts_with('a')),
            "a1\na2"
        );
        assert_eq!(
            last_lines("a1\nb\na2\na3", 2, |l| l.starts_with('a')),
            "a2\na3"
        );
    }
}
