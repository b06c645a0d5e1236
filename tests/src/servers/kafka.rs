//! A Kafka broker for the connector tests: Apache Kafka's own server
//! (`org.apache.kafka:kafka_2.13` 4.1.0 from Maven Central, whose class path
//! `./egret-dev build` writes to
//! `examples-connectors/kafka-broker/target/kafka-broker.classpath`), one node
//! in KRaft mode (broker and controller) on 127.0.0.1 and two free ports,
//! its `server.properties` generated here and its storage formatted with
//! Kafka's `StorageTool`. [`KafkaTool`] runs the tests' own producer,
//! consumer and offset reader (`egret-kafka-tool.jar`, on kafka-clients).

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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
    let file = built(
        "EGRET_KAFKA_CLASSPATH_FILE",
        "examples-connectors/kafka-broker/target/kafka-broker.classpath",
    )?;
    let text = std::fs::read_to_string(&file).map_err(io_err("read", &file))?;
    Ok(text.trim().to_owned())
}

/// A KRaft cluster id: 16 bytes in URL-safe base64 without padding (22 chars).
fn cluster_id() -> String {
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

/// A running single-node Kafka broker (KRaft).
pub struct KafkaBroker {
    process: Process,
    addr: SocketAddr,
    classpath: String,
    config: PathBuf,
    dir: tempfile::TempDir,
}

impl KafkaBroker {
    /// Formats the storage and starts the broker; returns once it logged that
    /// it started and accepts connections on its port.
    pub fn start() -> Result<Self> {
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
        let text = format!(
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
        );
        std::fs::write(&config, text).map_err(io_err("write", &config))?;
        let format_log = dir.path().join("format.log");
        let out = run_with_timeout(
            Command::new(java())
                .args([
                    "-Xmx256m",
                    "-cp",
                    &classpath,
                    "kafka.tools.StorageTool",
                    "format",
                ])
                .args(["-t", &cluster_id(), "-c"])
                .arg(&config),
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
        };
        broker.wait_started()?;
        Ok(broker)
    }

    fn spawn(classpath: &str, config: &Path, addr: SocketAddr, log: &Path) -> Result<Process> {
        let mut cmd = Command::new(java());
        cmd.args([
            "-Xmx512m",
            "-XX:+UseSerialGC",
            "-cp",
            classpath,
            "kafka.Kafka",
        ])
        .arg(config);
        Process::spawn("Kafka", cmd, addr, log)
    }

    fn wait_started(&mut self) -> Result<()> {
        let addr = self.addr;
        let log = self.dir.path().join("kafka.log");
        let mut seen = 0;
        self.process.wait_ready(|| {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let started = text.matches("Kafka Server started").count();
            if started <= seen {
                return Err("not started yet".into());
            }
            TcpStream::connect_timeout(&addr, Duration::from_secs(2))
                .map(|_| seen = started)
                .map_err(|e| e.to_string())
        })
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
        let jar = built(
            "EGRET_KAFKA_TOOL_JAR",
            "examples-connectors/kafka-broker/target/egret-kafka-tool.jar",
        )?;
        let cp = format!("{}:{}", jar.display(), self.classpath);
        let out = run_with_timeout(
            Command::new(java())
                .args([
                    "-Xmx256m",
                    "-cp",
                    &cp,
                    "dev.egret.kafkatool.KafkaTool",
                    command,
                ])
                .arg(self.bootstrap())
                .args(args),
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
        out.stdout
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                match (
                    f.first().and_then(|v| v.parse().ok()),
                    f.get(1).and_then(|v| v.parse().ok()),
                    f.get(2).and_then(|v| v.parse().ok()),
                ) {
                    (Some(p), Some(c), Some(e)) => Ok((p, c, e)),
                    _ => Err(ServerError::Protocol {
                        server: "Kafka",
                        message: format!("bad offsets line {l:?}"),
                    }),
                }
            })
            .collect()
    }
}
