//! PostgreSQL for the connector tests: Debian's `postgresql` package (its
//! `initdb`, `postgres`, `pg_isready` and `psql` under
//! `/usr/lib/postgresql/<major>/bin`), a cluster made with `initdb` in a
//! temporary directory (user `egret`, trust authentication on loopback only),
//! served on 127.0.0.1 and a free port. PostgreSQL refuses to run as root: as
//! root, the cluster belongs to and runs as the `postgres` user the package
//! creates.

use std::net::{Ipv4Addr, SocketAddr};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Process, Result, ServerError, free_port, io_err};

/// The database user the cluster is made with.
pub const USER: &str = "egret";
/// The database the tests use.
pub const DATABASE: &str = "egret";

/// A running PostgreSQL cluster.
pub struct PostgresServer {
    process: Process,
    addr: SocketAddr,
    bin: PathBuf,
    _dir: tempfile::TempDir,
}

/// The newest `/usr/lib/postgresql/<major>/bin` with an `initdb`.
fn bin_dir() -> Result<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let major = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((major, bin))
        })
        .collect();
    found.sort();
    found
        .pop()
        .map(|(_, bin)| bin)
        .ok_or(ServerError::NotInstalled {
            server: "PostgreSQL",
            path: "/usr/lib/postgresql/<major>/bin/initdb".into(),
            package: "postgresql",
        })
}

/// As root: the `postgres` user's (uid, gid), which the cluster runs as.
fn run_as() -> Result<Option<(u32, u32)>> {
    if !nix::unistd::geteuid().is_root() {
        return Ok(None);
    }
    match nix::unistd::User::from_name("postgres") {
        Ok(Some(user)) => Ok(Some((user.uid.as_raw(), user.gid.as_raw()))),
        _ => Err(ServerError::Missing(
            "user postgres",
            "PostgreSQL does not run as root, and Debian's postgresql package creates that user"
                .into(),
        )),
    }
}

fn command(bin: &Path, program: &str, user: Option<(u32, u32)>) -> Command {
    let mut cmd = Command::new(bin.join(program));
    if let Some((uid, gid)) = user {
        cmd.uid(uid).gid(gid);
    }
    // Messages in English whatever the machine's locale.
    cmd.env("LC_ALL", "C");
    cmd
}

impl PostgresServer {
    /// Makes a cluster with `initdb`, starts `postgres` on 127.0.0.1 and a
    /// free port, waits until `pg_isready` says it accepts connections, then
    /// creates database [`DATABASE`].
    pub fn start() -> Result<Self> {
        let bin = bin_dir()?;
        let user = run_as()?;
        let dir = tempfile::Builder::new()
            .prefix("egret-postgres-")
            .tempdir()
            .map_err(io_err("create", &std::env::temp_dir()))?;
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid))
                .map_err(io_err("chown", dir.path()))?;
        }
        let data = dir.path().join("data");
        let initdb_log = dir.path().join("initdb.log");
        let out = crate::run_with_timeout(
            command(&bin, "initdb", user).arg("-D").arg(&data).args([
                "-U",
                USER,
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ]),
            super::START_TIMEOUT,
        )
        .map_err(|e| ServerError::Missing("initdb", e.to_string()))?;
        if !out.success() {
            let _ = std::fs::write(&initdb_log, out.combined());
            return Err(ServerError::Protocol {
                server: "PostgreSQL",
                message: format!("initdb failed: {}", out.describe()),
            });
        }
        let port = free_port()?;
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let mut cmd = command(&bin, "postgres", user);
        cmd.arg("-D")
            .arg(&data)
            .arg("-p")
            .arg(port.to_string())
            .arg("-k")
            .arg(dir.path())
            .args([
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",
                "-c",
                "max_connections=50",
            ]);
        let log = dir.path().join("postgres.log");
        let mut process = Process::spawn("PostgreSQL", cmd, addr, &log)?;
        let ready = bin.join("pg_isready");
        process.wait_ready(|| {
            let out = Command::new(&ready)
                .args([
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &port.to_string(),
                    "-U",
                    USER,
                    "-d",
                    "postgres",
                ])
                .output()
                .map_err(|e| format!("{}: {e}", ready.display()))?;
            if out.status.success() {
                Ok(())
            } else {
                Err(String::from_utf8_lossy(&out.stdout).trim().to_owned())
            }
        })?;
        let server = Self {
            process,
            addr,
            bin,
            _dir: dir,
        };
        server.psql_on("postgres", &format!("CREATE DATABASE {DATABASE}"))?;
        Ok(server)
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// The JDBC URL of [`DATABASE`].
    pub fn jdbc_url(&self) -> String {
        format!("jdbc:postgresql://127.0.0.1:{}/{DATABASE}", self.port())
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        self.process.log()
    }

    fn psql_on(&self, database: &str, sql: &str) -> Result<String> {
        let out = Command::new(self.bin.join("psql"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port().to_string(),
                "-U",
                USER,
                "-d",
                database,
            ])
            .args([
                "-X",
                "-q",
                "-A",
                "-t",
                "-F",
                "\t",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                sql,
            ])
            .env("LC_ALL", "C")
            .output()
            .map_err(io_err("run", &self.bin.join("psql")))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(ServerError::Protocol {
                server: "PostgreSQL",
                message: format!(
                    "psql -c {sql:?} failed: {}{}",
                    String::from_utf8_lossy(&out.stderr),
                    self.log()
                ),
            })
        }
    }

    /// Runs `sql` in [`DATABASE`] with `psql`; returns its rows, one a line,
    /// fields separated by tabs.
    pub fn psql(&self, sql: &str) -> Result<Vec<Vec<String>>> {
        Ok(self
            .psql_on(DATABASE, sql)?
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| l.split('\t').map(str::to_owned).collect())
            .collect())
    }
}
