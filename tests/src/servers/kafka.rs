//! A Kafka broker for the connector tests: Apache Kafka's own server
//! (`org.apache.kafka:kafka_2.13` 4.1.0 from Maven Central, whose class path
//! `./egret-dev build` writes to
//! `examples-connectors/kafka-broker/target/kafka-broker.classpath`), one node
//! in KRaft mode (broker and controller) on 127.0.0.1 and two free ports,
//! its `server.properties` generated here and its storage formatted with
//! Kafka's `StorageTool`. [`KafkaTool`] runs the tests' own producer,
//! consumer and offset reader (`egret-kafka-tool.jar`, on kafka-clients).
//! The command lines, config and readiness rule are `egret_bench::kafka`'s
//! (the bench runs the same broker); the process handling is this crate's.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use egret_bench::kafka;

use super::{Process, Result, ServerError, free_port, io_err, java};
use crate::{Output, run_with_timeout, workspace_root};

const TOOL_TIMEOUT: Duration = Duration::from_secs(180);

fn built(var: &str, relative: &str) -> Result<PathBuf> {
    let path = std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join(relative));
    if path.is_file() {
        Ok(path)
    } else {
        Err(ServerError::Missing(
            "Kafka's class path",
            format!("{} (run ./egret-dev build first)", path.display()),
        ))
    }
}

/// The broker's class path (one line of `:`-separated jars).
fn classpath() -> Result<String> {
    let file = built("EGRET_KAFKA_CLASSPATH_FILE", kafka::CLASSPATH_FILE)?;
    kafka::read_classpath(&file)
        .map_err(|e| ServerError::Missing("Kafka's class path", e.to_string()))
}

/// Starts of a broker on freshly picked ports before giving up.
const PORT_ATTEMPTS: usize = 3;

/// A running single-node Kafka broker (KRaft).
pub struct KafkaBroker {
    process: Process,
    addr: SocketAddr,
    classpath: String,
    config: PathBuf,
    dir: tempfile::TempDir,
    /// How many starts the log shows so far (a restart waits for one more).
    started: usize,
}

impl KafkaBroker {
    /// Formats the storage and starts the broker; returns once it logged that
    /// it started and accepts connections on its port. Its two ports are
    /// picked free just before it binds them; when another process took one
    /// meanwhile (the suite runs tests side by side), it starts again on new
    /// ones, at most [`PORT_ATTEMPTS`] times.
    pub fn start() -> Result<Self> {
        let mut attempt = 1;
        loop {
            match Self::start_once() {
                Err(ServerError::Exited { log, .. })
                    if attempt < PORT_ATTEMPTS && log.contains("Address already in use") =>
                {
                    eprintln!(
                        "Kafka: a port was taken before the broker bound it; starting again on new ports"
                    );
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    fn start_once() -> Result<Self> {
        let classpath = classpath()?;
        let port = free_port()?;
        let controller = free_port()?;
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let dir = tempfile::Builder::new()
            .prefix("egret-kafka-")
            .tempdir()
            .map_err(io_err("create", &std::env::temp_dir()))?;
        let config = dir.path().join("server.properties");
        let data = dir.path().join("data");
        let text = kafka::server_properties(port, controller, &data);
        std::fs::write(&config, text).map_err(io_err("write", &config))?;
        let format_log = dir.path().join("format.log");
        let out = run_with_timeout(
            &mut kafka::format_command(&java(), &classpath, &config),
            super::START_TIMEOUT,
        )
        .map_err(|e| ServerError::Missing("java", e.to_string()))?;
        let _ = std::fs::write(&format_log, out.combined());
        if !out.success() {
            return Err(ServerError::Protocol {
                server: "Kafka",
                message: format!("formatting the storage failed: {}", out.describe()),
            });
        }
        let log = dir.path().join("kafka.log");
        let mut broker = Self {
            process: Self::spawn(&classpath, &config, addr, &log)?,
            addr,
            classpath,
            config,
            dir,
            started: 0,
        };
        broker.wait_started()?;
        Ok(broker)
    }

    fn spawn(classpath: &str, config: &Path, addr: SocketAddr, log: &Path) -> Result<Process> {
        Process::spawn(
            "Kafka",
            kafka::broker_command(&java(), classpath, config),
            addr,
            log,
        )
    }

    fn wait_started(&mut self) -> Result<()> {
        let addr = self.addr;
        let log = self.dir.path().join("kafka.log");
        let seen = self.started;
        let mut now = seen;
        self.process
            .wait_ready(|| kafka::probe_started(&log, addr, seen).map(|started| now = started))?;
        self.started = now;
        Ok(())
    }

    /// `host:port` for clients.
    pub fn bootstrap(&self) -> String {
        self.addr.to_string()
    }

    /// The broker's log so far.
    pub fn log(&self) -> String {
        self.process.log()
    }

    /// Stops the broker abruptly (SIGKILL): clients see it gone.
    pub fn kill(&mut self) {
        self.process.kill();
    }

    /// Starts the broker again on the same ports and data, after [`KafkaBroker::kill`].
    pub fn restart(&mut self) -> Result<()> {
        self.process.kill();
        let log = self.dir.path().join("kafka.log");
        self.process = Self::spawn(&self.classpath, &self.config, self.addr, &log)?;
        self.wait_started()
    }

    /// Runs the tests' Kafka tool (`KafkaTool <command> <bootstrap> <args..>`), which must succeed.
    pub fn tool(&self, command: &str, args: &[&str]) -> Result<Output> {
        let jar = built("EGRET_KAFKA_TOOL_JAR", kafka::TOOL_JAR)?;
        let out = run_with_timeout(
            &mut kafka::tool_command(
                &java(),
                &jar,
                &self.classpath,
                command,
                &self.bootstrap(),
                args,
            ),
            TOOL_TIMEOUT,
        )
        .map_err(|e| ServerError::Missing("java", e.to_string()))?;
        if out.success() {
            Ok(out)
        } else {
            Err(ServerError::Protocol {
                server: "Kafka",
                message: format!("KafkaTool {command} {args:?} failed: {}", out.describe()),
            })
        }
    }

    /// (partition, committed offset of `group` or -1, end offset) of `topic`.
    pub fn offsets(&self, group: &str, topic: &str) -> Result<Vec<(u32, i64, i64)>> {
        let out = self.tool("offsets", &[group, topic])?;
        kafka::parse_offsets(&out.stdout).map_err(|message| ServerError::Protocol {
            server: "Kafka",
            message,
        })
    }
}
