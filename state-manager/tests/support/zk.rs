//! A real ZooKeeper server for a test: Debian's `zookeeper` package
//! (`.ci/run` installs it), standalone, on a free loopback port, with its data
//! and log in a temporary directory. Killed (and reaped) on drop, also when
//! the test panics; it gets SIGKILL when the test's thread dies.

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Debian's ZooKeeper jar; its manifest's Class-Path names its dependencies.
pub const ZOOKEEPER_JAR: &str = "/usr/share/java/zookeeper.jar";
/// slf4j's simple binding (Debian's libslf4j-java, which ZooKeeper needs), so
/// that the server's log says something when it fails; left out when missing.
const SLF4J_SIMPLE: &str = "/usr/share/java/slf4j-simple.jar";
/// How long a server may take to answer.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// A short tick so that sessions may be short (the minimum is 2 ticks).
const TICK_MS: u32 = 100;

pub struct ZkServer {
    child: Child,
    port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("no free loopback port")
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

impl ZkServer {
    /// Starts a server and waits (bounded) until a client gets a session.
    /// Panics with the server's log when it does not come up, and with the
    /// install command when ZooKeeper is not installed.
    pub async fn start() -> ZkServer {
        assert!(
            Path::new(ZOOKEEPER_JAR).is_file(),
            "ZooKeeper is not installed ({ZOOKEEPER_JAR} is missing): these tests need a real \
             server; install Debian's package: apt-get install -y --no-install-recommends \
             zookeeper (.ci/run does)"
        );
        let dir = tempfile::tempdir().expect("temp dir");
        let data = dir.path().join("data");
        std::fs::create_dir_all(&data).expect("data dir");
        let port = free_port();
        let cfg = dir.path().join("zoo.cfg");
        let mut file = std::fs::File::create(&cfg).expect("zoo.cfg");
        write!(
            file,
            "tickTime={TICK_MS}\ndataDir={}\nclientPort={port}\nclientPortAddress=127.0.0.1\n\
             maxClientCnxns=0\nadmin.enableServer=false\n4lw.commands.whitelist=ruok,srvr\n",
            data.display()
        )
        .expect("write zoo.cfg");
        drop(file);
        let log = dir.path().join("zookeeper.log");
        let (out, err) = egret_supervisor::open_log(&log).expect("log file");
        let mut cmd = Command::new(java());
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
        let child = cmd.spawn().expect("cannot start java for ZooKeeper");
        let mut server = ZkServer {
            child,
            port,
            log,
            _dir: dir,
        };
        server.wait_until_serving().await;
        server
    }

    async fn wait_until_serving(&mut self) {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "ZooKeeper exited ({status}) before serving on port {}; its log:\n{}",
                    self.port,
                    self.log()
                );
            }
            let servers = self.servers();
            let connecting = zookeeper_client::Client::connector()
                .with_fail_eagerly()
                .with_session_timeout(Duration::from_secs(2))
                .connect(&servers);
            if let Ok(Ok(_client)) = tokio::time::timeout(Duration::from_secs(2), connecting).await
            {
                return;
            }
            if Instant::now() > deadline {
                panic!(
                    "ZooKeeper did not serve on port {} within {START_TIMEOUT:?}; its log:\n{}",
                    self.port,
                    self.log()
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The connect string: `127.0.0.1:<port>`.
    pub fn servers(&self) -> String {
        format!("127.0.0.1:{}", self.port)
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
