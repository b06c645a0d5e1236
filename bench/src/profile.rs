//! `egret bench --profile`: during each Egret run's measured window, Linux
//! `perf record` samples the stream managers (a flame graph of them is
//! written beside the run's log), and a JDK Flight Recorder recording is
//! taken of the busiest instance JVM (`jcmd JFR.start` at the window's
//! start, `JFR.stop` with a file name at its end). With the JNI bridge the
//! executors run in a JVM inside each stream manager and there are no
//! instance JVMs: the busiest stream manager hosting one is recorded.
//!
//! Invariants:
//! - nothing is profiled outside the window, and every recorder started is
//!   stopped when the window ends, also when the run fails (drop);
//! - a tool that is missing or refused (no `perf`, `perf_event_paranoid`, no
//!   `jcmd`) costs the run nothing: the run is measured as without
//!   `--profile`, and the reason is reported in [`Profile::notes`];
//! - the flame graph is made by the `inferno` crate from `perf script`'s
//!   text (collapsed stacks, then SVG), the same way `cargo flamegraph` does;
//! - a JVM's first flight recording throws away much of its JIT-compiled
//!   code (measured: 2 370 compiled methods down to 1 407 in a loaded
//!   embedded JVM, and several seconds of mostly interpreted executors while
//!   it recompiled), so every JVM that may be recorded starts and stops a
//!   throwaway recording when the warm-up starts ([`prime_flight_recorders`]):
//!   the window's recording, its second, finds the code compiled again;
//! - a stream manager hosting a JVM (the JNI bridge) is asked for a perf map
//!   of its JIT-compiled code at the window's end (`jcmd Compiler.perfmap`,
//!   `/tmp/perf-PID.map`, where `perf script` looks), so the flame graph
//!   names its Java frames instead of showing bare addresses; the map is
//!   moved beside the perf data afterwards.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use inferno::collapse::Collapse as _;

use crate::procs::{ProcStat, all_processes};

/// What a stream manager's command line has (`egret stmgr ...`).
const STMGR_ARG: &str = "stmgr";
/// The instance JVMs' main class.
const INSTANCE_MAIN: &str = "dev.egret.instance.InstanceMain";
/// What a process that hosts a JVM has mapped (`/proc/PID/maps`).
const LIBJVM: &str = "/libjvm.so";
/// perf's sampling frequency (Hz): low enough for DWARF stacks of a 2-core run.
const PERF_FREQUENCY: &str = "199";
/// The JFR recording's name in the JVM.
const JFR_NAME: &str = "egret-bench";
/// The throwaway recording of the warm-up ([`prime_flight_recorders`]).
const JFR_WARMUP_NAME: &str = "egret-bench-warmup";
/// Where a JVM's `Compiler.perfmap` writes, and `perf script` reads, the
/// symbols of process PID's JIT-compiled code (`perf-PID.map`).
const PERF_MAP_DIR: &str = "/tmp";

/// One process of the run, as the profiler needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub pid: i32,
    /// `/proc/PID/cmdline`, arguments joined by spaces.
    pub cmdline: String,
    /// utime + stime so far (ticks).
    pub cpu_ticks: u64,
    /// Whether it has a JVM loaded (libjvm.so mapped): a stream manager with
    /// the JNI bridge.
    pub hosts_jvm: bool,
}

/// The processes a profile targets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Targets {
    pub stream_managers: Vec<i32>,
    /// The stream managers hosting a JVM (JNI bridge): their JIT-compiled
    /// frames need a perf map.
    pub jit_hosts: Vec<i32>,
    /// The instance JVM with the most CPU so far; with the JNI bridge (no
    /// instance JVMs), the stream manager hosting a JVM with the most.
    pub instance: Option<i32>,
}

impl Member {
    /// A stream manager (`egret stmgr ...`).
    fn is_stream_manager(&self) -> bool {
        self.cmdline.split(' ').any(|a| a == STMGR_ARG)
    }

    /// A stream manager hosting a JVM (the JNI bridge).
    fn is_jit_host(&self) -> bool {
        self.hosts_jvm && self.is_stream_manager()
    }

    /// An instance JVM.
    fn is_instance(&self) -> bool {
        self.cmdline.contains(INSTANCE_MAIN)
    }
}

/// Picks the stream managers and the busiest instance JVM among `members`
/// (the busiest stream manager hosting a JVM when there is none).
pub fn targets(members: &[Member]) -> Targets {
    let pids = |keep: fn(&Member) -> bool| -> Vec<i32> {
        members.iter().filter(|m| keep(m)).map(|m| m.pid).collect()
    };
    let instance = busiest(members.iter().filter(|m| m.is_instance()))
        .or_else(|| busiest(members.iter().filter(|m| m.is_jit_host())));
    Targets {
        stream_managers: pids(Member::is_stream_manager),
        jit_hosts: pids(Member::is_jit_host),
        instance,
    }
}

/// The JVMs among `members` that a window may record: the instance JVMs, and
/// the stream managers hosting a JVM (the JNI bridge).
pub fn recordable_jvms(members: &[Member]) -> Vec<i32> {
    members
        .iter()
        .filter(|m| m.is_instance() || m.is_jit_host())
        .map(|m| m.pid)
        .collect()
}

/// What [`prime_flight_recorders`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Primed {
    /// The JVMs whose flight recorder was readied.
    pub jvms: Vec<i32>,
    /// What failed, one note per JVM.
    pub notes: Vec<String>,
}

/// Starts and at once stops a throwaway flight recording in every JVM among
/// `live` that a window may record (all at once, a thread each), so that the
/// JIT code the first recording discards is compiled again by the window's
/// start (call it when the warm-up starts). A failure costs the run nothing
/// but a window that starts with that JVM's code being recompiled.
pub fn prime_flight_recorders(jcmd: &Path, live: &[i32]) -> Primed {
    prime_flight_recorders_of(jcmd, &recordable_jvms(&members(live)))
}

/// [`prime_flight_recorders`] of the JVMs `pids`.
fn prime_flight_recorders_of(jcmd: &Path, pids: &[i32]) -> Primed {
    let name = format!("name={JFR_WARMUP_NAME}");
    let outcomes: Vec<(i32, Result<(), String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = pids
            .iter()
            .map(|&pid| {
                let name = &name;
                let handle = scope.spawn(move || {
                    jfr_command(jcmd, pid, "JFR.start", &[name, "settings=profile"])
                        .and_then(|()| jfr_command(jcmd, pid, "JFR.stop", &[name]))
                });
                (pid, handle)
            })
            .collect();
        handles
            .into_iter()
            .map(|(pid, handle)| {
                let outcome = handle.join().unwrap_or_else(|_| {
                    Err(format!("readying JVM {pid}'s flight recorder panicked"))
                });
                (pid, outcome)
            })
            .collect()
    });
    let mut primed = Primed::default();
    for (pid, outcome) in outcomes {
        match outcome {
            Ok(()) => primed.jvms.push(pid),
            Err(e) => primed.notes.push(e),
        }
    }
    primed
}

/// What the JVM answers a flight recorder command with when it did it; None
/// for a command this module does not check that way.
fn jfr_done(command: &str) -> Option<&'static str> {
    match command {
        "JFR.start" => Some("Started recording"),
        "JFR.stop" => Some("Stopped recording"),
        _ => None,
    }
}

/// `jcmd PID COMMAND ARGS...` for `JFR.start` or `JFR.stop`; an error naming
/// what failed, with jcmd's answer and its error output. jcmd exits 0 when
/// the JVM refuses a command (a recording it does not have, a bad setting):
/// its answer tells.
fn jfr_command(jcmd: &Path, pid: i32, command: &str, args: &[&str]) -> Result<(), String> {
    let out = Command::new(jcmd)
        .arg(pid.to_string())
        .arg(command)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{} could not run: {e}", jcmd.display()))?;
    let answer = String::from_utf8_lossy(&out.stdout);
    let done = jfr_done(command).is_none_or(|done| answer.contains(done));
    if out.status.success() && done {
        Ok(())
    } else {
        // Its error output's first line (an attach failure prints a stack trace).
        let errors = String::from_utf8_lossy(&out.stderr);
        let error = errors.lines().map(str::trim).find(|l| !l.is_empty());
        Err(format!(
            "jcmd {pid} {command} {} failed: {} {}",
            args.join(" "),
            answer.trim(),
            error.unwrap_or_default()
        )
        .trim_end()
        .to_owned())
    }
}

/// The pid of the member with the most CPU so far (the lowest pid on a tie).
fn busiest<'a>(members: impl Iterator<Item = &'a Member>) -> Option<i32> {
    members.max_by_key(|m| (m.cpu_ticks, -m.pid)).map(|m| m.pid)
}

/// The members among `pids`, read from `/proc`.
pub fn members(pids: &[i32]) -> Vec<Member> {
    let stats: Vec<ProcStat> = all_processes(Path::new("/proc"));
    pids.iter()
        .filter_map(|&pid| {
            let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&raw)
                .split('\0')
                .filter(|a| !a.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            let cpu_ticks = stats
                .iter()
                .find(|s| s.pid == pid)
                .map_or(0, |s| s.utime + s.stime);
            let hosts_jvm = std::fs::read_to_string(format!("/proc/{pid}/maps"))
                .is_ok_and(|maps| maps.contains(LIBJVM));
            Some(Member {
                pid,
                cmdline,
                cpu_ticks,
                hosts_jvm,
            })
        })
        .collect()
}

/// The flame graph (SVG) of `perf script` output.
pub fn flamegraph(perf_script: &[u8], title: &str) -> std::io::Result<String> {
    let mut folded = Vec::new();
    inferno::collapse::perf::Folder::from(inferno::collapse::perf::Options::default())
        .collapse(BufReader::new(perf_script), &mut folded)?;
    if folded.is_empty() {
        return Err(std::io::Error::other("perf recorded no samples"));
    }
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_owned();
    let mut svg = Vec::new();
    inferno::flamegraph::from_reader(&mut options, folded.as_slice(), &mut svg)?;
    Ok(String::from_utf8_lossy(&svg).into_owned())
}

/// What one run's profile produced.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub flamegraph: Option<PathBuf>,
    pub jfr: Option<PathBuf>,
    /// Why a part is missing, or, prefixed `warm-up:`, what readying the
    /// flight recorders could not do.
    pub notes: Vec<String>,
}

/// The recorders of one window; [`Recorders::finish`] stops them and writes
/// the files (dropping stops them without files).
pub struct Recorders {
    dir: PathBuf,
    jcmd: PathBuf,
    perf: Option<(Child, PathBuf)>,
    jit_hosts: Vec<i32>,
    jfr: Option<(i32, PathBuf)>,
    notes: Vec<String>,
}

/// Asks the JVM in process `pid` to write the perf map of its JIT-compiled
/// code (`jcmd PID Compiler.perfmap`, JDK 17 on); returns where it is.
pub fn write_perf_map(jcmd: &Path, pid: i32) -> Result<PathBuf, String> {
    let map = Path::new(PERF_MAP_DIR).join(format!("perf-{pid}.map"));
    let out = Command::new(jcmd)
        .arg(pid.to_string())
        .arg("Compiler.perfmap")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{} could not run: {e}", jcmd.display()))?;
    if out.status.success() && map.is_file() {
        Ok(map)
    } else {
        Err(format!(
            "jcmd {pid} Compiler.perfmap failed: {}",
            String::from_utf8_lossy(&out.stdout).trim()
        ))
    }
}

/// `jcmd` beside `java` (an absolute path), else from `PATH`.
pub fn jcmd_beside(java: &Path) -> PathBuf {
    match java.parent() {
        Some(dir) if java.is_absolute() && dir.join("jcmd").is_file() => dir.join("jcmd"),
        _ => PathBuf::from("jcmd"),
    }
}

impl Recorders {
    /// Starts perf on the stream managers and JFR in the busiest instance
    /// JVM among `live` (the run's processes); files go to `dir`.
    pub fn start(dir: &Path, jcmd: &Path, live: &[i32]) -> Recorders {
        let mut notes = Vec::new();
        let targets = targets(&members(live));
        let perf = if targets.stream_managers.is_empty() {
            notes.push("no stream manager found to profile".to_owned());
            None
        } else {
            let data = dir.join("stmgr.perf.data");
            let pids: Vec<String> = targets
                .stream_managers
                .iter()
                .map(ToString::to_string)
                .collect();
            match Command::new("perf")
                .args([
                    "record",
                    "-q",
                    "-F",
                    PERF_FREQUENCY,
                    "--call-graph",
                    "dwarf",
                ])
                .arg("-o")
                .arg(&data)
                .arg("-p")
                .arg(pids.join(","))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
            {
                Ok(child) => Some((child, data)),
                Err(e) => {
                    notes.push(format!("perf record could not start: {e}"));
                    None
                }
            }
        };
        let jfr = match targets.instance {
            None => {
                notes.push("no instance JVM found to record".to_owned());
                None
            }
            Some(pid) => {
                let name = format!("name={JFR_NAME}");
                match jfr_command(jcmd, pid, "JFR.start", &[&name, "settings=profile"]) {
                    Ok(()) => Some((pid, dir.join(format!("instance-{pid}.jfr")))),
                    Err(e) => {
                        notes.push(e);
                        None
                    }
                }
            }
        };
        Recorders {
            dir: dir.to_owned(),
            jcmd: jcmd.to_owned(),
            jit_hosts: if perf.is_some() {
                targets.jit_hosts
            } else {
                Vec::new()
            },
            perf,
            jfr,
            notes,
        }
    }

    /// The JVM whose flight recorder records the window, if one does.
    pub fn recorded_jvm(&self) -> Option<i32> {
        self.jfr.as_ref().map(|(pid, _)| *pid)
    }

    /// Stops the recorders and writes `stmgr-flamegraph.svg` and the JFR file.
    pub fn finish(mut self, title: &str) -> Profile {
        let mut profile = Profile {
            notes: std::mem::take(&mut self.notes),
            ..Profile::default()
        };
        if let Some((pid, path)) = self.jfr.take() {
            let name = format!("name={JFR_NAME}");
            let file = format!("filename={}", path.display());
            match jfr_command(&self.jcmd, pid, "JFR.stop", &[&name, &file]) {
                Ok(()) if path.is_file() => profile.jfr = Some(path),
                Ok(()) => profile
                    .notes
                    .push(format!("jcmd {pid} JFR.stop wrote no {}", path.display())),
                Err(e) => profile.notes.push(e),
            }
        }
        if let Some((child, data)) = self.perf.take() {
            // While the JVMs still run: their code is where the samples saw it.
            let mut maps = Vec::new();
            for &pid in &self.jit_hosts {
                match write_perf_map(&self.jcmd, pid) {
                    Ok(map) => maps.push(map),
                    Err(e) => profile.notes.push(e),
                }
            }
            let graph = stop_perf(child).and_then(|()| {
                // --no-inline: addr2line per inlined frame takes minutes.
                let script = Command::new("perf")
                    .args(["script", "--no-inline"])
                    .arg("-i")
                    .arg(&data)
                    .stdin(Stdio::null())
                    .stderr(Stdio::null())
                    .output()?;
                if !script.status.success() {
                    return Err(std::io::Error::other(format!(
                        "perf script exited with {}",
                        script.status
                    )));
                }
                flamegraph(&script.stdout, title)
            });
            // Kept with the run (`perf report` wants it back in /tmp), not left in /tmp.
            for map in maps {
                if let Some(name) = map.file_name() {
                    let kept = self.dir.join(name);
                    if let Err(e) =
                        std::fs::copy(&map, &kept).and_then(|_| std::fs::remove_file(&map))
                    {
                        profile.notes.push(format!("{}: {e}", map.display()));
                    }
                }
            }
            match graph {
                Ok(svg) => {
                    let path = self.dir.join("stmgr-flamegraph.svg");
                    match std::fs::write(&path, svg) {
                        Ok(()) => profile.flamegraph = Some(path),
                        Err(e) => profile.notes.push(format!("{}: {e}", path.display())),
                    }
                }
                Err(e) => profile
                    .notes
                    .push(format!("stream manager flame graph: {e}")),
            }
        }
        profile
    }
}

/// SIGINT (perf then writes its file), and waits for it.
fn stop_perf(mut child: Child) -> std::io::Result<()> {
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).map_err(std::io::Error::from)?;
    let status = child.wait()?;
    // perf exits 0, or by the signal it was sent, after writing its data.
    if status.success() || status.code().is_none() || status.code() == Some(130) {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "perf record exited with {status}"
        )))
    }
}

impl Drop for Recorders {
    fn drop(&mut self) {
        if let Some((mut child, _)) = self.perf.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some((pid, _)) = self.jfr.take() {
            // Best effort: the run is failing already.
            let _ = jfr_command(&self.jcmd, pid, "JFR.stop", &[&format!("name={JFR_NAME}")]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pid: i32, cmdline: &str, cpu: u64) -> Member {
        Member {
            pid,
            cmdline: cmdline.into(),
            cpu_ticks: cpu,
            hosts_jvm: cmdline.starts_with("java "),
        }
    }

    fn jni_stmgr(pid: i32, cpu: u64) -> Member {
        Member {
            hosts_jvm: true,
            ..m(pid, "/bin/egret stmgr --topology t --container 1", cpu)
        }
    }

    #[test]
    fn targets_are_the_stream_managers_and_the_busiest_instance() {
        let members = [
            m(10, "/bin/egret local --local-ttl 86400 app.jar com.M", 50),
            m(11, "/bin/egret scheduler --topology t", 1),
            m(12, "/bin/egret stmgr --topology t --container 1", 300),
            m(
                13,
                "java -cp x dev.egret.instance.InstanceMain --instance spout-0",
                900,
            ),
            m(
                14,
                "java -cp x dev.egret.instance.InstanceMain --instance bolt-1",
                1200,
            ),
            m(15, "/bin/egret stmgr --topology t --container 2", 10),
            m(16, "/bin/egret tmaster --topology stmgr-ish", 10),
        ];
        let t = targets(&members);
        assert_eq!(t.stream_managers, vec![12, 15]);
        assert!(t.jit_hosts.is_empty());
        assert_eq!(t.instance, Some(14));
        assert_eq!(targets(&[]), Targets::default());
    }

    #[test]
    fn with_the_jni_bridge_the_busiest_stream_manager_hosting_a_jvm_is_recorded() {
        let members = [
            m(10, "/bin/egret local app.jar com.M", 50),
            jni_stmgr(12, 300),
            jni_stmgr(15, 700),
            // Busier, but with no JVM in it (a socket-bridge stream manager).
            m(16, "/bin/egret stmgr --topology t --container 3", 900),
        ];
        let t = targets(&members);
        assert_eq!(t.stream_managers, vec![12, 15, 16]);
        // Both JNI stream managers' JIT frames get a perf map; the socket one has none.
        assert_eq!(t.jit_hosts, vec![12, 15]);
        assert_eq!(t.instance, Some(15));
        // Instance JVMs, when there are any, come first.
        let mut mixed = members.to_vec();
        mixed.push(m(
            20,
            "java dev.egret.instance.InstanceMain --instance b-1",
            5,
        ));
        assert_eq!(targets(&mixed).instance, Some(20));
    }

    /// A real JVM (the source launcher compiles `Wait.java` first, so its JIT
    /// has compiled code to name) sleeping for a minute; killed on drop.
    struct WaitingJvm {
        _dir: tempfile::TempDir,
        child: Child,
    }

    impl WaitingJvm {
        fn start() -> WaitingJvm {
            let dir = tempfile::tempdir().unwrap();
            let source = dir.path().join("Wait.java");
            std::fs::write(
                &source,
                "class Wait { public static void main(String[] a) throws Exception { Thread.sleep(60_000); } }",
            )
            .unwrap();
            let child = Command::new("java").arg(&source).spawn().unwrap();
            WaitingJvm { _dir: dir, child }
        }

        fn pid(&self) -> i32 {
            i32::try_from(self.child.id()).unwrap()
        }
    }

    impl Drop for WaitingJvm {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    #[test]
    fn a_jvm_writes_the_perf_map_of_its_compiled_code_when_asked() {
        let jvm = WaitingJvm::start();
        let pid = jvm.pid();
        // jcmd attaches once the JVM is up; until then it fails.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        // Asked again until a JDK method has been compiled (early in any JVM's life).
        let (map, text) = loop {
            match write_perf_map(Path::new("jcmd"), pid) {
                Ok(map) => {
                    let text = std::fs::read_to_string(&map).unwrap();
                    let _ = std::fs::remove_file(&map);
                    if text.contains("java.lang.") || std::time::Instant::now() > deadline {
                        break (map, text);
                    }
                }
                Err(e) if std::time::Instant::now() > deadline => panic!("{e}"),
                Err(_) => {}
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        };
        assert_eq!(map, Path::new("/tmp").join(format!("perf-{pid}.map")));
        // perf's format: start address, size (both hex), the symbol.
        let first = text.lines().next().unwrap_or_default();
        let fields: Vec<&str> = first.splitn(3, ' ').collect();
        assert_eq!(fields.len(), 3, "{first}");
        assert!(
            fields[0].starts_with("0x") && fields[1].starts_with("0x"),
            "{first}"
        );
        assert!(
            text.contains("java.lang."),
            "no compiled JDK method in the map"
        );
        // No jcmd: an error naming it, not a panic. (Never point jcmd at a process
        // without a JVM: its attach mechanism sends that process SIGQUIT.)
        let e = write_perf_map(Path::new("/nonexistent/jcmd"), pid).unwrap_err();
        assert!(e.contains("/nonexistent/jcmd could not run"), "{e}");
    }

    #[test]
    fn the_jvms_a_window_may_record_are_the_instances_and_the_stream_managers_hosting_one() {
        let members = [
            m(10, "/bin/egret local app.jar com.M", 50),
            m(12, "/bin/egret stmgr --topology t --container 1", 300),
            m(
                13,
                "java -cp x dev.egret.instance.InstanceMain --instance spout-0",
                900,
            ),
            jni_stmgr(15, 10),
            m(16, "java -cp x dev.egret.client.SubmitterMain com.M", 10),
        ];
        assert_eq!(recordable_jvms(&members), vec![13, 15]);
    }

    /// `jcmd PID COMMAND`'s answer, retried until the JVM attaches (30 s).
    fn jcmd_answer(pid: i32, command: &str) -> String {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let out = Command::new("jcmd")
                .arg(pid.to_string())
                .arg(command)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            if out.status.success() && text.contains("Repository path") {
                return text;
            }
            assert!(std::time::Instant::now() < deadline, "{text}");
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }

    #[test]
    fn the_warm_up_starts_and_stops_a_flight_recording_in_each_recordable_jvm() {
        let jvm = WaitingJvm::start();
        let pid = jvm.pid();
        // Once it answers, its flight recorder has never run.
        assert!(
            jcmd_answer(pid, "JFR.configure").contains("Repository path: N/A"),
            "a fresh JVM's flight recorder has a repository"
        );
        let me = i32::try_from(std::process::id()).unwrap();
        // Only the JVMs a window may record: the waiting JVM's command line is
        // not an instance's, so here nothing is primed.
        assert_eq!(
            prime_flight_recorders(Path::new("jcmd"), &[me, pid]),
            Primed::default()
        );
        assert!(jcmd_answer(pid, "JFR.configure").contains("Repository path: N/A"));
        // As an instance JVM it is: the recorder ran (its repository exists)
        // and no recording is left running.
        let primed = prime_flight_recorders_of(Path::new("jcmd"), &[pid]);
        assert_eq!(
            primed,
            Primed {
                jvms: vec![pid],
                notes: vec![]
            }
        );
        let config = jcmd_answer(pid, "JFR.configure");
        assert!(!config.contains("Repository path: N/A"), "{config}");
        let out = Command::new("jcmd")
            .arg(pid.to_string())
            .arg("JFR.check")
            .output()
            .unwrap();
        let check = String::from_utf8_lossy(&out.stdout);
        assert!(check.contains("No available recordings"), "{check}");
        // A command the JVM refuses is an error with its answer, though jcmd exits 0.
        let e = jfr_command(Path::new("jcmd"), pid, "JFR.stop", &["name=none"]).unwrap_err();
        assert!(e.contains("JFR.stop name=none failed"), "{e}");
        assert!(e.contains("Could not stop recording"), "{e}");
        let e = jfr_command(
            Path::new("jcmd"),
            pid,
            "JFR.start",
            &["settings=no-such-settings"],
        )
        .unwrap_err();
        assert!(e.contains("Could not parse settings"), "{e}");
        // The window's recording: started, then stopped into its file.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("w.jfr");
        jfr_command(Path::new("jcmd"), pid, "JFR.start", &["name=w"]).unwrap();
        jfr_command(
            Path::new("jcmd"),
            pid,
            "JFR.stop",
            &["name=w", &format!("filename={}", file.display())],
        )
        .unwrap();
        assert!(file.is_file());
        // A JVM that is gone: jcmd's error output names why.
        let mut gone = Command::new("true").spawn().unwrap();
        let gone_pid = i32::try_from(gone.id()).unwrap();
        gone.wait().unwrap();
        let e = jfr_command(Path::new("jcmd"), gone_pid, "JFR.start", &[]).unwrap_err();
        assert!(e.contains("No such process"), "{e}");
        // No jcmd: a note naming it, not a panic.
        let primed = prime_flight_recorders_of(Path::new("/nonexistent/jcmd"), &[pid]);
        assert!(primed.jvms.is_empty(), "{primed:?}");
        assert_eq!(primed.notes.len(), 1, "{primed:?}");
        assert!(
            primed.notes[0].contains("/nonexistent/jcmd could not run"),
            "{primed:?}"
        );
    }

    #[test]
    fn a_process_hosting_a_jvm_is_told_by_its_maps() {
        // This test process has no JVM loaded; a java process has.
        let me = members(&[i32::try_from(std::process::id()).unwrap()]);
        assert_eq!(me.len(), 1);
        assert!(!me[0].hosts_jvm);
        let jvm = WaitingJvm::start();
        let pid = jvm.pid();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let mut seen = false;
        while !seen && std::time::Instant::now() < deadline {
            seen = members(&[pid]).first().is_some_and(|m| m.hosts_jvm);
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        drop(jvm);
        assert!(seen, "the java process never showed libjvm.so in its maps");
    }

    #[test]
    fn a_flame_graph_from_perf_script_text() {
        let script = b"egret 1234 100.000001: 5050505 cpu-clock:\n\
\t    55d1 egret_stream_manager::route+0x10 (/bin/egret)\n\
\t    55a0 tokio::runtime::park+0x20 (/bin/egret)\n\
\n\
egret 1234 100.005000: 5050505 cpu-clock:\n\
\t    55f0 egret_stream_manager::ledger::ack+0x4 (/bin/egret)\n\
\t    55a0 tokio::runtime::park+0x20 (/bin/egret)\n\
\n";
        let svg = flamegraph(script, "stream manager").unwrap();
        assert!(svg.contains("<svg"), "{svg}");
        assert!(svg.contains("egret_stream_manager::route"), "{svg}");
        assert!(svg.contains("egret_stream_manager::ledger::ack"), "{svg}");
        assert!(svg.contains("stream manager"), "{svg}");
        assert!(flamegraph(b"", "x").is_err());
    }

    #[test]
    fn jcmd_is_found_beside_an_absolute_java() {
        let tmp = tempfile::tempdir().unwrap();
        let java = tmp.path().join("java");
        std::fs::write(&java, "").unwrap();
        assert_eq!(jcmd_beside(&java), PathBuf::from("jcmd"));
        std::fs::write(tmp.path().join("jcmd"), "").unwrap();
        assert_eq!(jcmd_beside(&java), tmp.path().join("jcmd"));
        assert_eq!(jcmd_beside(Path::new("java")), PathBuf::from("jcmd"));
    }
}
