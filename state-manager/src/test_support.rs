//! A real ZooKeeper server for tests (this crate's and other crates', through
//! the `test-support` feature): Debian's `zookeeper` package (`.ci/run`
//! installs it), standalone, on a given address (loopback by default; a test
//! bridge's address so that network-namespace "hosts" reach it) and a free
//! port, with its data and log in a temporary directory.
//!
//! Invariants:
//! - [`ZkServer::start_at`] returns only a server that answers ZooKeeper's
//!   `srvr` command as serving, or an error within [`START_TIMEOUT`]; an error
//!   of a server that was started carries the server's log;
//! - the server never outlives its value: `Drop` kills and reaps it (also when
//!   the test panics), and it gets SIGKILL when the thread that started it
//!   dies.

use std::fmt;
use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Debian's ZooKeeper jar; its manifest's Class-Path names its dependencies.
pub const ZOOKEEPER_JAR: &str = "/usr/share/java/zookeeper.jar";
/// slf4j's simple binding (Debian's libslf4j-java, which ZooKeeper needs), so
/// that the server's log says something when it fails; left out when missing.
const SLF4J_SIMPLE: &str = "/usr/share/java/slf4j-simple.jar";
/// How long a server may take to serve: a JVM start on a loaded two-core
/// machine takes a few seconds; this bound is generous on purpose.
pub const START_TIMEOUT: Duration = Duration::from_secs(60);
/// A short tick so that sessions may be short (the minimum is 2 ticks).
const TICK_MS: u32 = 100;
/// Bound of one readiness probe (connect, then the answer).
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// Why a test server could not be started.
///
/// `Debug` prints the same text as `Display`, so that a test's `unwrap()`
/// shows the server's log readably.
#[derive(thiserror::Error)]
pub enum ZkServerError {
    #[error(
        "ZooKeeper is not installed ({ZOOKEEPER_JAR} is missing): these tests need a real \
         server; install Debian's package: apt-get install -y --no-install-recommends \
         zookeeper (.ci/run does)"
    )]
    NotInstalled,
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no free port on {ip}: {source}")]
    NoPort { ip: IpAddr, source: std::io::Error },
    #[error("cannot start java ({java}) for ZooKeeper: {source}")]
    Spawn {
        java: PathBuf,
        source: std::io::Error,
    },
    #[error("ZooKeeper exited ({status}) before serving on {addr}; its log:\n{log}")]
    Exited {
        status: ExitStatus,
        addr: SocketAddr,
        log: String,
    },
    #[error(
        "ZooKeeper did not serve on {addr} within {:?} (last probe: {last}); its log:\n{log}",
        START_TIMEOUT
    )]
    NotServing {
        addr: SocketAddr,
        last: String,
        log: String,
    },
}

impl fmt::Debug for ZkServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A running standalone ZooKeeper server.
pub struct ZkServer {
    child: Child,
    addr: SocketAddr,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

fn io_err(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> ZkServerError {
    let path = path.to_path_buf();
    move |source| ZkServerError::Io {
        action,
        path,
        source,
    }
}

fn free_port(ip: IpAddr) -> Result<u16, ZkServerError> {
    TcpListener::bind((ip, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|source| ZkServerError::NoPort { ip, source })
}

fn classpath() -> String {
    if Path::new(SLF4J_SIMPLE).is_file() {
        format!("{ZOOKEEPER_JAR}:{SLF4J_SIMPLE}")
    } else {
        ZOOKEEPER_JAR.to_owned()
    }
}

fn java() -> PathBuf {
    match std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        Some(home) => Path::new(&home).join("bin").join("java"),
        None => PathBuf::from("java"),
    }
}

/// Sends one of ZooKeeper's four-letter commands (the server whitelists `ruok`
/// and `srvr`) and returns the answer.
pub fn four_letter_word(addr: SocketAddr, word: &str) -> std::io::Result<String> {
    let mut stream = TcpStream::connect_timeout(&addr, PROBE_TIMEOUT)?;
    stream.set_read_timeout(Some(PROBE_TIMEOUT))?;
    stream.set_write_timeout(Some(PROBE_TIMEOUT))?;
    stream.write_all(word.as_bytes())?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    Ok(answer)
}

impl ZkServer {
    /// Starts a server on 127.0.0.1 and a free port; see [`ZkServer::start_at`].
    pub fn start() -> Result<ZkServer, ZkServerError> {
        Self::start_on(IpAddr::V4(Ipv4Addr::LOCALHOST))
    }

    /// Starts a server on `ip` and a free port; see [`ZkServer::start_at`].
    pub fn start_on(ip: IpAddr) -> Result<ZkServer, ZkServerError> {
        Self::start_at(SocketAddr::new(ip, 0))
    }

    /// Starts a server listening on `addr` only (port 0: a free port) and waits,
    /// at most [`START_TIMEOUT`], until it answers `srvr` as serving. Blocks the
    /// calling thread meanwhile (a few seconds: a JVM start).
    pub fn start_at(addr: SocketAddr) -> Result<ZkServer, ZkServerError> {
        if !Path::new(ZOOKEEPER_JAR).is_file() {
            return Err(ZkServerError::NotInstalled);
        }
        let port = match addr.port() {
            0 => free_port(addr.ip())?,
            port => port,
        };
        let addr = SocketAddr::new(addr.ip(), port);
        let dir = tempfile::tempdir().map_err(io_err("create", &std::env::temp_dir()))?;
        let data = dir.path().join("data");
        std::fs::create_dir_all(&data).map_err(io_err("create", &data))?;
        let cfg = dir.path().join("zoo.cfg");
        let text = format!(
            "tickTime={TICK_MS}\ndataDir={}\nclientPort={port}\nclientPortAddress={}\n\
             maxClientCnxns=0\nadmin.enableServer=false\n4lw.commands.whitelist=ruok,srvr\n",
            data.display(),
            addr.ip()
        );
        std::fs::write(&cfg, text).map_err(io_err("write", &cfg))?;
        let log = dir.path().join("zookeeper.log");
        let (out, err) = egret_supervisor::open_log(&log).map_err(io_err("open", &log))?;
        let java = java();
        let mut cmd = Command::new(&java);
        cmd.arg("-Xmx256m")
            .arg("-XX:+UseSerialGC")
            .arg("-Dzookeeper.admin.enableServer=false")
            .arg("-Dzookeeper.jmx.log4j.disable=true")
            .arg("-cp")
            .arg(classpath())
            .arg("org.apache.zookeeper.server.ZooKeeperServerMain")
            .arg(&cfg)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        egret_supervisor::set_parent_death_signal(&mut cmd);
        let child = cmd
            .spawn()
            .map_err(|source| ZkServerError::Spawn { java, source })?;
        let mut server = ZkServer {
            child,
            addr,
            log,
            _dir: dir,
        };
        // On an error the server is dropped, hence killed.
        server.wait_until_serving()?;
        Ok(server)
    }

    fn wait_until_serving(&mut self) -> Result<(), ZkServerError> {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(ZkServerError::Exited {
                    status,
                    addr: self.addr,
                    log: self.log(),
                });
            }
            // A serving standalone server's answer has its mode; one that is
            // still starting says it is "not currently serving requests".
            let last = match four_letter_word(self.addr, "srvr") {
                Ok(answer) if answer.contains("Mode: ") => return Ok(()),
                Ok(answer) => format!("answered {:?}", answer.trim()),
                Err(e) => e.to_string(),
            };
            if Instant::now() > deadline {
                return Err(ZkServerError::NotServing {
                    addr: self.addr,
                    last,
                    log: self.log(),
                });
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The connect string: `<ip>:<port>`.
    pub fn servers(&self) -> String {
        self.addr.to_string()
    }

    /// The server's output so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_else(|e| format!("(no log: {e})"))
    }

    /// Kills the server now (a crash, not a clean stop).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ZkServer {
    fn drop(&mut self) {
        self.kill();
    }
}
