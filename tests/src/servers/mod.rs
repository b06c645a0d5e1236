//! Real servers for the connector tests (`tests/tests/connectors_*.rs`), started
//! by the tests and stopped afterwards: Redis (Debian's `redis-server`),
//! PostgreSQL (Debian's `postgresql`, a cluster made with `initdb` in a
//! temporary directory) and a Kafka broker (Apache Kafka's own server from
//! Maven Central, in KRaft mode, as its own JVM). Nothing is mocked.
//!
//! Invariants every server here keeps:
//! - it listens on 127.0.0.1 and a port that was free when it started, with
//!   its data, config and log in its own temporary directory;
//! - `start` returns only a server that answers its protocol, or an error
//!   within [`START_TIMEOUT`]; the error of a server that was started carries
//!   its log, and a missing package is an error with the install command;
//! - it never outlives its value: `Drop` kills and reaps it (also when the
//!   test panics), and it gets SIGKILL when the thread that started it dies;
//! - secrets (the Redis password) are written to the server's config file,
//!   never passed on a command line.

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub mod kafka;
pub mod postgres;
pub mod redis;

/// How long a server may take to answer: a JVM start (Kafka) or `initdb` on a
/// loaded two-core machine takes seconds; generous on purpose.
pub const START_TIMEOUT: Duration = Duration::from_secs(90);

/// Why a test server could not be started or used.
///
/// `Debug` prints the same text as `Display`, so that a test's `expect()`
/// shows the server's log readably.
#[derive(thiserror::Error)]
pub enum ServerError {
    #[error(
        "{server} is not installed ({path} is missing): these tests need a real server; \
         install Debian's package: apt-get install -y --no-install-recommends {package} \
         (.ci/run does)"
    )]
    NotInstalled {
        server: &'static str,
        path: PathBuf,
        package: &'static str,
    },
    #[error("{0} not found: {1}")]
    Missing(&'static str, String),
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no free port on 127.0.0.1: {0}")]
    NoPort(std::io::Error),
    #[error("{server} exited ({status}) before serving on {addr}; its log:\n{log}")]
    Exited {
        server: &'static str,
        status: ExitStatus,
        addr: SocketAddr,
        log: String,
    },
    #[error(
        "{server} did not serve on {addr} within {:?} (last probe: {last}); its log:\n{log}",
        START_TIMEOUT
    )]
    NotServing {
        server: &'static str,
        addr: SocketAddr,
        last: String,
        log: String,
    },
    #[error("{server}: {message}")]
    Protocol {
        server: &'static str,
        message: String,
    },
}

impl fmt::Debug for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Result of the server helpers.
pub type Result<T, E = ServerError> = std::result::Result<T, E>;

pub(crate) fn io_err(
    action: &'static str,
    path: &Path,
) -> impl FnOnce(std::io::Error) -> ServerError {
    let path = path.to_path_buf();
    move |source| ServerError::Io {
        action,
        path,
        source,
    }
}

/// A port of 127.0.0.1 that was free a moment ago.
pub fn free_port() -> Result<u16> {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(ServerError::NoPort)
}

/// `$JAVA_HOME/bin/java`, else `java` on the PATH.
pub fn java() -> PathBuf {
    match std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        Some(home) => Path::new(&home).join("bin").join("java"),
        None => PathBuf::from("java"),
    }
}

/// One server process with its output appended to a log file.
pub(crate) struct Process {
    server: &'static str,
    child: Option<Child>,
    addr: SocketAddr,
    log: PathBuf,
}

impl Process {
    /// Spawns `cmd` with stdin closed, stdout and stderr to `log`, and SIGKILL
    /// when this thread dies.
    pub(crate) fn spawn(
        server: &'static str,
        mut cmd: Command,
        addr: SocketAddr,
        log: &Path,
    ) -> Result<Self> {
        let (out, err) = egret_supervisor::open_log(log).map_err(io_err("open", log))?;
        cmd.stdin(Stdio::null()).stdout(out).stderr(err);
        egret_supervisor::set_parent_death_signal(&mut cmd);
        let program = PathBuf::from(cmd.get_program());
        let child = cmd.spawn().map_err(io_err("run", &program))?;
        Ok(Self {
            server,
            child: Some(child),
            addr,
            log: log.to_path_buf(),
        })
    }

    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_else(|e| format!("(no log: {e})"))
    }

    /// Polls `probe` every 100 ms until it returns `Ok`, failing when the
    /// process exits or after [`START_TIMEOUT`], with the log.
    pub(crate) fn wait_ready(
        &mut self,
        mut probe: impl FnMut() -> std::result::Result<(), String>,
    ) -> Result<()> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                return Err(ServerError::Exited {
                    server: self.server,
                    status,
                    addr: self.addr,
                    log: self.log(),
                });
            }
            let last = match probe() {
                Ok(()) => return Ok(()),
                Err(e) => e,
            };
            if Instant::now() > deadline {
                return Err(ServerError::NotServing {
                    server: self.server,
                    addr: self.addr,
                    last,
                    log: self.log(),
                });
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Kills the process now (a crash, not a clean stop) and reaps it.
    pub(crate) fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}
