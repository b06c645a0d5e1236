//! Kafka for `egret bench --workload kafka` and the connector tests
//! (`tests/src/servers/kafka.rs` builds its test server on this module):
//! Apache Kafka's own server (`org.apache.kafka:kafka_2.13` 4.1.0, whose class
//! path `./egret-dev build` writes to
//! `examples-connectors/kafka-broker/target/kafka-broker.classpath`), one node
//! in KRaft mode (broker and controller) on 127.0.0.1, its
//! `server.properties` generated here and its storage formatted with Kafka's
//! `StorageTool`; `KafkaTool` (`egret-kafka-tool.jar`, on kafka-clients) is the
//! producer, consumer, offset reader and end-offset watcher run beside it.
//!
//! - the command lines and files (config, cluster id, readiness) are here once,
//!   as functions; [`Broker`] is the bench's running broker;
//! - [`records_rate`] turns the watcher's `<unix ms> <sum of end offsets>`
//!   samples into records per second over a window.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The broker's class path file, relative to the workspace root.
pub const CLASSPATH_FILE: &str = "examples-connectors/kafka-broker/target/kafka-broker.classpath";
/// KafkaTool's jar, relative to the workspace root.
pub const TOOL_JAR: &str = "examples-connectors/kafka-broker/target/egret-kafka-tool.jar";
/// KafkaTool's main class.
pub const TOOL_MAIN: &str = "dev.egret.kafkatool.KafkaTool";
/// The line Kafka logs once it serves.
const STARTED_LINE: &str = "Kafka Server started";

#[derive(Debug, thiserror::Error)]
pub enum KafkaError {
    #[error("{what} not found: {path} (run ./egret-dev build first)")]
    NotBuilt { what: &'static str, path: PathBuf },
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("Kafka did not serve on {addr} within {timeout:?} (last probe: {last}); its log {log}")]
    NotServing {
        addr: SocketAddr,
        timeout: Duration,
        last: String,
        log: PathBuf,
    },
    #[error("Kafka exited ({status}) before serving on {addr}; its log {log}")]
    Exited {
        addr: SocketAddr,
        status: String,
        log: PathBuf,
    },
    #[error("Kafka: {0}")]
    Tool(String),
}

fn io_err(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> KafkaError {
    let path = path.to_path_buf();
    move |source| KafkaError::Io {
        action,
        path,
        source,
    }
}

/// The broker's class path (one line of `:`-separated jars) from `file`.
pub fn read_classpath(file: &Path) -> Result<String, KafkaError> {
    if !file.is_file() {
        return Err(KafkaError::NotBuilt {
            what: "Kafka's class path",
            path: file.to_owned(),
        });
    }
    let text = std::fs::read_to_string(file).map_err(io_err("read", file))?;
    Ok(text.trim().to_owned())
}

/// A port of 127.0.0.1 that was free a moment ago.
pub fn free_port() -> std::io::Result<u16> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
}

/// A KRaft cluster id: 16 bytes in URL-safe base64 without padding (22 chars).
pub fn cluster_id() -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let seed = nanos ^ (u128::from(std::process::id()) << 64);
    // 22 digits of 6 bits: 132 bits; the top 4 bits stay 0, as a UUID's encoding has.
    (0..22)
        .map(|i| {
            let shift = 6 * (21 - i);
            let digit = if shift >= 128 {
                0
            } else {
                (seed >> shift) & 63
            };
            char::from(ALPHABET[usize::try_from(digit).unwrap_or(0)])
        })
        .collect()
}

/// `server.properties` of a single node (broker and controller) on 127.0.0.1:
/// clients on `port`, the controller on `controller`, data in `data`, topics
/// created explicitly only.
pub fn server_properties(port: u16, controller: u16, data: &Path) -> String {
    format!(
        "process.roles=broker,controller\n\
         node.id=1\n\
         controller.quorum.voters=1@127.0.0.1:{controller}\n\
         listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller}\n\
         advertised.listeners=PLAINTEXT://127.0.0.1:{port}\n\
         controller.listener.names=CONTROLLER\n\
         inter.broker.listener.name=PLAINTEXT\n\
         listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT\n\
         log.dirs={}\n\
         num.partitions=4\n\
         auto.create.topics.enable=false\n\
         offsets.topic.replication.factor=1\n\
         offsets.topic.num.partitions=4\n\
         transaction.state.log.replication.factor=1\n\
         transaction.state.log.min.isr=1\n\
         share.coordinator.state.topic.replication.factor=1\n\
         share.coordinator.state.topic.min.isr=1\n\
         group.initial.rebalance.delay.ms=0\n\
         log.flush.interval.messages=1000000\n",
        data.display()
    )
}

/// `StorageTool format` of the storage `config` names, with a new cluster id.
pub fn format_command(java: &Path, classpath: &str, config: &Path) -> Command {
    let mut cmd = Command::new(java);
    cmd.args([
        "-Xmx256m",
        "-cp",
        classpath,
        "kafka.tools.StorageTool",
        "format",
    ])
    .args(["-t", &cluster_id(), "-c"])
    .arg(config);
    cmd
}

/// The broker JVM.
pub fn broker_command(java: &Path, classpath: &str, config: &Path) -> Command {
    let mut cmd = Command::new(java);
    cmd.args([
        "-Xmx512m",
        "-XX:+UseSerialGC",
        "-cp",
        classpath,
        "kafka.Kafka",
    ])
    .arg(config);
    cmd
}

/// `KafkaTool <command> <bootstrap> <args..>`.
pub fn tool_command(
    java: &Path,
    tool_jar: &Path,
    classpath: &str,
    command: &str,
    bootstrap: &str,
    args: &[&str],
) -> Command {
    let mut cmd = Command::new(java);
    cmd.args(["-Xmx256m", "-cp"])
        .arg(format!("{}:{classpath}", tool_jar.display()))
        .args([TOOL_MAIN, command, bootstrap])
        .args(args);
    cmd
}

/// How many times the broker's log says it started (a restart appends one more).
pub fn started_count(log: &str) -> usize {
    log.matches(STARTED_LINE).count()
}

/// Whether the broker started more than `seen` times and accepts connections.
pub fn probe_started(log: &Path, addr: SocketAddr, seen: usize) -> Result<usize, String> {
    let started = started_count(&std::fs::read_to_string(log).unwrap_or_default());
    if started <= seen {
        return Err("not started yet".into());
    }
    TcpStream::connect_timeout(&addr, Duration::from_secs(2))
        .map(|_| started)
        .map_err(|e| e.to_string())
}

/// Parses `(partition, committed or -1, end)` lines of `KafkaTool offsets`.
pub fn parse_offsets(stdout: &str) -> Result<Vec<(u32, i64, i64)>, String> {
    stdout
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match (
                f.first().and_then(|v| v.parse().ok()),
                f.get(1).and_then(|v| v.parse().ok()),
                f.get(2).and_then(|v| v.parse().ok()),
            ) {
                (Some(p), Some(c), Some(e)) => Ok((p, c, e)),
                _ => Err(format!("bad offsets line {l:?}")),
            }
        })
        .collect()
}

/// The samples of `KafkaTool watch`: `<unix ms> <sum of end offsets>` per
/// line; a torn last line (being written) is skipped.
pub fn parse_watch(text: &str) -> Vec<(u64, u64)> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let t = f.next()?.parse().ok()?;
            let n = f.next()?.parse().ok()?;
            f.next().is_none().then_some((t, n))
        })
        .collect()
}

/// The total at `at_ms`, linearly interpolated between the samples around it;
/// `None` outside the samples' span.
fn total_at(samples: &[(u64, u64)], at_ms: u64) -> Option<f64> {
    let after = samples.iter().position(|(t, _)| *t >= at_ms)?;
    let (t1, n1) = samples[after];
    if t1 == at_ms || after == 0 {
        return (t1 == at_ms).then_some(n1 as f64);
    }
    let (t0, n0) = samples[after - 1];
    let f = (at_ms - t0) as f64 / (t1 - t0) as f64;
    Some(n0 as f64 + f * (n1 as f64 - n0 as f64))
}

/// Records per second written between `start_ms` and `end_ms` (unix ms), from
/// the watcher's samples (ordered by time), each end interpolated between the
/// two samples around it. `None` when the samples do not span the window.
pub fn records_rate(samples: &[(u64, u64)], start_ms: u64, end_ms: u64) -> Option<f64> {
    if end_ms <= start_ms {
        return None;
    }
    let a = total_at(samples, start_ms)?;
    let b = total_at(samples, end_ms)?;
    Some((b - a) / ((end_ms - start_ms) as f64 / 1000.0))
}

/// How long `finish_run` waits for the watcher's sample past the window's end.
const WATCH_END_TIMEOUT: Duration = Duration::from_secs(30);

/// Whether the watch file holds a sample taken at or after `at_ms` (unix ms)
/// within `timeout`.
fn wait_for_sample(file: &Path, at_ms: u64, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        if parse_watch(&text).iter().any(|(t, _)| *t >= at_ms) {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The bench's broker: started in `dir`, killed on drop.
pub struct Broker {
    child: Option<Child>,
    addr: SocketAddr,
    java: PathBuf,
    classpath: String,
    tool_jar: PathBuf,
    log: PathBuf,
}

/// How long the broker may take to serve, and a tool to finish.
pub const START_TIMEOUT: Duration = Duration::from_secs(90);

impl Broker {
    /// Formats a storage in `dir` and starts the broker; returns once it serves.
    pub fn start(
        java: &Path,
        classpath_file: &Path,
        tool_jar: &Path,
        dir: &Path,
    ) -> Result<Self, KafkaError> {
        if !tool_jar.is_file() {
            return Err(KafkaError::NotBuilt {
                what: "KafkaTool's jar",
                path: tool_jar.to_owned(),
            });
        }
        let classpath = read_classpath(classpath_file)?;
        let no_port = |e| KafkaError::Io {
            action: "find a free port on",
            path: PathBuf::from("127.0.0.1"),
            source: e,
        };
        let port = free_port().map_err(no_port)?;
        let controller = free_port().map_err(no_port)?;
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        std::fs::create_dir_all(dir).map_err(io_err("create", dir))?;
        let config = dir.join("server.properties");
        std::fs::write(
            &config,
            server_properties(port, controller, &dir.join("data")),
        )
        .map_err(io_err("write", &config))?;
        let format_log = dir.join("format.log");
        let mut format = format_command(java, &classpath, &config);
        let status = run_logged(&mut format, &format_log, START_TIMEOUT)?;
        if !status {
            return Err(KafkaError::Tool(format!(
                "formatting the storage failed; see {}",
                format_log.display()
            )));
        }
        let log = dir.join("kafka.log");
        let mut cmd = broker_command(java, &classpath, &config);
        let child = spawn_logged(&mut cmd, &log)?;
        let mut broker = Self {
            child: Some(child),
            addr,
            java: java.to_owned(),
            classpath,
            tool_jar: tool_jar.to_owned(),
            log,
        };
        broker.wait_started()?;
        Ok(broker)
    }

    fn wait_started(&mut self) -> Result<(), KafkaError> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                return Err(KafkaError::Exited {
                    addr: self.addr,
                    status: status.to_string(),
                    log: self.log.clone(),
                });
            }
            let last = match probe_started(&self.log, self.addr, 0) {
                Ok(_) => return Ok(()),
                Err(e) => e,
            };
            if Instant::now() > deadline {
                return Err(KafkaError::NotServing {
                    addr: self.addr,
                    timeout: START_TIMEOUT,
                    last,
                    log: self.log.clone(),
                });
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// `host:port` for clients.
    pub fn bootstrap(&self) -> String {
        self.addr.to_string()
    }

    /// KafkaTool's command line for `command` (to run it, or keep it running).
    pub fn tool_command(&self, command: &str, args: &[&str]) -> Command {
        tool_command(
            &self.java,
            &self.tool_jar,
            &self.classpath,
            command,
            &self.bootstrap(),
            args,
        )
    }

    /// Runs KafkaTool `command`, which must succeed within `timeout`; its
    /// output goes to `log`.
    pub fn tool(
        &self,
        command: &str,
        args: &[&str],
        log: &Path,
        timeout: Duration,
    ) -> Result<(), KafkaError> {
        let mut cmd = self.tool_command(command, args);
        if run_logged(&mut cmd, log, timeout)? {
            Ok(())
        } else {
            Err(KafkaError::Tool(format!(
                "KafkaTool {command} {args:?} failed; see {}",
                log.display()
            )))
        }
    }

    /// Spawns KafkaTool `command` in the background, output to `log`.
    pub fn spawn_tool(
        &self,
        command: &str,
        args: &[&str],
        log: &Path,
    ) -> Result<BackgroundTool, KafkaError> {
        let mut cmd = self.tool_command(command, args);
        Ok(BackgroundTool(spawn_logged(&mut cmd, log)?))
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A KafkaTool process killed and reaped on drop.
pub struct BackgroundTool(Child);

impl Drop for BackgroundTool {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_logged(cmd: &mut Command, log: &Path) -> Result<Child, KafkaError> {
    let (out, err) = egret_supervisor::open_log(log).map_err(io_err("open", log))?;
    cmd.stdin(Stdio::null()).stdout(out).stderr(err);
    egret_supervisor::set_parent_death_signal(cmd);
    let program = PathBuf::from(cmd.get_program());
    cmd.spawn().map_err(io_err("run", &program))
}

/// Runs `cmd` to its end (killed after `timeout`), output to `log`; whether it succeeded.
fn run_logged(cmd: &mut Command, log: &Path, timeout: Duration) -> Result<bool, KafkaError> {
    let mut child = spawn_logged(cmd, log)?;
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().map_err(io_err("wait for", log))? {
            return Ok(status.success());
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `--workload kafka`'s topology: Kafka in, split, count, Kafka out
/// (`examples-connectors`, storm-kafka-client shaded in).
pub const WORDCOUNT_MAIN: &str = "dev.egret.connectors.KafkaWordCountTopology";
/// The connector topologies' jar, relative to the workspace root.
pub const CONNECTORS_JAR: &str = "examples-connectors/target/egret-examples-connectors.jar";
/// The input topic every run reads from its start.
pub const INPUT_TOPIC: &str = "sentences";
/// Partitions of the input and output topics.
pub const PARTITIONS: &str = "4";
/// How long filling the input may take.
const FILL_TIMEOUT: Duration = Duration::from_secs(900);
/// How long a short KafkaTool command (create, offsets) may take.
const TOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// `relative` in the first directory above the executable's that has it (a
/// workspace checkout: where the bench finds its other built parts).
pub fn find_above(executable: &Path, relative: &str) -> Option<PathBuf> {
    executable
        .parent()?
        .ancestors()
        .map(|dir| dir.join(relative))
        .find(|p| p.is_file())
}

/// The consumer group and output topic of one run: each run reads the whole
/// input from its start and writes to its own topic.
pub fn run_names(system: &str, round: u32) -> (String, String) {
    (
        format!("bench-{system}-{round}"),
        format!("counts-{system}-{round}"),
    )
}

/// The main arguments of one run (topology name first, then
/// `KafkaWordCountTopology`'s options), `extra` (the user's, after `--`) last.
pub fn run_args(bootstrap: &str, system: &str, round: u32, extra: &[String]) -> Vec<String> {
    let (group, out) = run_names(system, round);
    let mut args = vec![
        "kafka-wordcount".to_owned(),
        format!("kafka.bootstrap={bootstrap}"),
        format!("kafka.topic={INPUT_TOPIC}"),
        format!("kafka.out={out}"),
        format!("kafka.group={group}"),
    ];
    args.extend_from_slice(extra);
    args
}

/// The broker of `--workload kafka`, its input filled once for all runs.
pub struct Session {
    broker: Broker,
    dir: PathBuf,
}

/// One run's Kafka side: its main arguments and the watcher of its output topic.
pub struct RunKafka {
    pub args: Vec<String>,
    group: String,
    watch_file: PathBuf,
    watcher: BackgroundTool,
}

/// What one run's output topic and input offsets show.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunFigures {
    /// Records per second written to the output topic over the window.
    pub records_per_sec: Option<f64>,
    /// Whether the run's group had consumed the whole input by its end (the
    /// window then measured an idle topology at its end: more records needed).
    pub input_exhausted: bool,
}

impl Session {
    /// Starts a broker in `dir` and fills [`INPUT_TOPIC`] with `records` sentences.
    pub fn prepare(
        java: &Path,
        classpath_file: &Path,
        tool_jar: &Path,
        dir: &Path,
        records: u64,
    ) -> Result<Self, KafkaError> {
        let broker = Broker::start(java, classpath_file, tool_jar, &dir.join("broker"))?;
        broker.tool(
            "create",
            &[INPUT_TOPIC, PARTITIONS],
            &dir.join("create-input.log"),
            TOOL_TIMEOUT,
        )?;
        broker.tool(
            "sentences",
            &[INPUT_TOPIC, &records.to_string()],
            &dir.join("fill-input.log"),
            FILL_TIMEOUT,
        )?;
        Ok(Self {
            broker,
            dir: dir.to_owned(),
        })
    }

    pub fn bootstrap(&self) -> String {
        self.broker.bootstrap()
    }

    /// Creates the run's output topic and starts watching its end offsets.
    pub fn begin_run(
        &self,
        system: &str,
        round: u32,
        extra: &[String],
    ) -> Result<RunKafka, KafkaError> {
        let (group, out) = run_names(system, round);
        self.broker.tool(
            "create",
            &[&out, PARTITIONS],
            &self.dir.join(format!("create-{out}.log")),
            TOOL_TIMEOUT,
        )?;
        let watch_file = self.dir.join(format!("{out}.offsets"));
        let watch_arg = watch_file.display().to_string();
        let watch_log = self.dir.join(format!("watch-{out}.log"));
        let watcher = self
            .broker
            .spawn_tool("watch", &[&out, &watch_arg], &watch_log)?;
        // A watcher JVM slow to start (a loaded machine) would leave the window's
        // start unsampled: the run starts once the first sample is written.
        if !wait_for_sample(&watch_file, 0, TOOL_TIMEOUT) {
            return Err(KafkaError::Tool(format!(
                "the offsets watcher wrote no sample in {} s; see {}",
                TOOL_TIMEOUT.as_secs(),
                watch_log.display()
            )));
        }
        Ok(RunKafka {
            args: run_args(&self.bootstrap(), system, round, extra),
            group,
            watch_file,
            watcher,
        })
    }

    /// The run's figures over the window `[start_ms, end_ms]`; stops its watcher.
    pub fn finish_run(
        &self,
        run: RunKafka,
        start_ms: u64,
        end_ms: u64,
    ) -> Result<RunFigures, KafkaError> {
        // The window's end needs a sample at or after it; the watcher samples every
        // 500 ms, slower on a loaded machine. Without one the rate is `None`.
        wait_for_sample(&run.watch_file, end_ms, WATCH_END_TIMEOUT);
        drop(run.watcher);
        let text = std::fs::read_to_string(&run.watch_file).unwrap_or_default();
        let records_per_sec = records_rate(&parse_watch(&text), start_ms, end_ms);
        let log = self.dir.join(format!("offsets-{}.log", run.group));
        self.broker
            .tool("offsets", &[&run.group, INPUT_TOPIC], &log, TOOL_TIMEOUT)?;
        let text = std::fs::read_to_string(&log).map_err(io_err("read", &log))?;
        // The log has the tool's stderr too (a logger's notices): keep offset lines.
        let offsets: Vec<(u32, i64, i64)> = text
            .lines()
            .filter_map(|l| parse_offsets(l).ok())
            .flatten()
            .collect();
        Ok(RunFigures {
            records_per_sec,
            input_exhausted: !offsets.is_empty() && offsets.iter().all(|(_, c, e)| c == e),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_interpolates_both_ends_of_the_window() {
        // 1000 records/s, sampled every 500 ms from t = 10 000 ms.
        let samples: Vec<(u64, u64)> = (0..20).map(|i| (10_000 + i * 500, i * 500)).collect();
        let r = records_rate(&samples, 10_250, 18_250).unwrap();
        assert!((r - 1000.0).abs() < 1e-9, "{r}");
        // A burst inside one sample interval counts in proportion.
        let burst = [(0, 0), (1000, 0), (2000, 4000), (3000, 4000)];
        assert_eq!(records_rate(&burst, 1500, 3000), Some(2000.0 / 1.5));
        assert_eq!(records_rate(&burst, 1000, 2000), Some(4000.0));
    }

    #[test]
    fn a_window_the_samples_do_not_span_has_no_rate() {
        let samples = [(1000, 10), (1500, 20)];
        assert_eq!(records_rate(&samples, 900, 1500), None);
        assert_eq!(records_rate(&samples, 1000, 1600), None);
        assert_eq!(records_rate(&samples, 1500, 1000), None);
        assert_eq!(records_rate(&[], 0, 10), None);
    }

    #[test]
    fn waiting_for_a_sample_needs_one_at_or_after_the_time() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("out.offsets");
        let short = Duration::from_millis(200);
        assert!(!wait_for_sample(&file, 0, short), "no file yet");
        std::fs::write(&file, "1000 5\n1500 12\n").unwrap();
        assert!(wait_for_sample(&file, 0, short));
        assert!(wait_for_sample(&file, 1500, short));
        assert!(
            !wait_for_sample(&file, 1501, short),
            "every sample is earlier"
        );
    }

    #[test]
    fn watch_lines_parse_and_a_torn_line_is_skipped() {
        let text = "1000 5\n1500 12\n2000 1";
        assert_eq!(parse_watch(text), [(1000, 5), (1500, 12), (2000, 1)]);
        assert_eq!(parse_watch("1000 5\n15x0 12\n2000\n"), [(1000, 5)]);
    }

    #[test]
    fn offsets_lines_parse_and_a_bad_line_is_an_error() {
        assert_eq!(
            parse_offsets("0 10 12\n1 -1 3\n").unwrap(),
            [(0, 10, 12), (1, -1, 3)]
        );
        assert!(
            parse_offsets("0 x 1\n")
                .unwrap_err()
                .contains("bad offsets line")
        );
    }

    #[test]
    fn each_run_reads_the_input_with_its_own_group_into_its_own_topic() {
        let args = run_args("127.0.0.1:9", "egret", 2, &["spouts=2".to_owned()]);
        assert_eq!(
            args,
            [
                "kafka-wordcount",
                "kafka.bootstrap=127.0.0.1:9",
                "kafka.topic=sentences",
                "kafka.out=counts-egret-2",
                "kafka.group=bench-egret-2",
                "spouts=2",
            ]
        );
        assert_ne!(run_names("storm", 1), run_names("egret", 1));
        assert_ne!(run_names("storm", 1), run_names("storm", 2));
    }

    #[test]
    fn the_config_is_one_local_kraft_node() {
        let text = server_properties(9092, 9093, Path::new("/d/data"));
        assert!(
            text.contains("listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093\n")
        );
        assert!(text.contains("controller.quorum.voters=1@127.0.0.1:9093\n"));
        assert!(text.contains("log.dirs=/d/data\n"));
        assert!(text.contains("auto.create.topics.enable=false\n"));
        let id = cluster_id();
        assert_eq!(id.len(), 22);
        assert_eq!(
            started_count("x Kafka Server started\ny Kafka Server started"),
            2
        );
    }
}
