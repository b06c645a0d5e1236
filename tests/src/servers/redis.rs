//! Redis for the connector tests: Debian's `redis-server`, configured by a file
//! in a temporary directory (port, loopback only, no persistence, an optional
//! `requirepass`), and a minimal RESP client ([`RedisClient`]) for the tests to
//! read what the topologies wrote.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::{Process, Result, ServerError, free_port, io_err};

/// Debian's server binary (package `redis-server`).
pub const REDIS_SERVER: &str = "/usr/bin/redis-server";
const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// A running `redis-server`.
pub struct RedisServer {
    process: Process,
    addr: SocketAddr,
    password: Option<String>,
    _dir: tempfile::TempDir,
}

impl RedisServer {
    /// Starts a server without a password.
    pub fn start() -> Result<Self> {
        Self::start_with(None)
    }

    /// Starts a server on 127.0.0.1 and a free port; with `password`, clients
    /// must `AUTH` with it (`requirepass`, written to the config file only).
    /// Returns once it answers `PING` with `PONG`.
    pub fn start_with(password: Option<&str>) -> Result<Self> {
        if !Path::new(REDIS_SERVER).is_file() {
            return Err(ServerError::NotInstalled {
                server: "Redis",
                path: REDIS_SERVER.into(),
                package: "redis-server",
            });
        }
        let port = free_port()?;
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let dir = tempfile::Builder::new()
            .prefix("egret-redis-")
            .tempdir()
            .map_err(io_err("create", &std::env::temp_dir()))?;
        let conf = dir.path().join("redis.conf");
        let mut text = format!(
            "bind 127.0.0.1\nport {port}\ndir {}\nsave \"\"\nappendonly no\n\
             daemonize no\nprotected-mode yes\nlogfile \"\"\n",
            dir.path().display()
        );
        if let Some(p) = password {
            text.push_str(&format!("requirepass \"{p}\"\n"));
        }
        std::fs::write(&conf, text).map_err(io_err("write", &conf))?;
        let mut cmd = Command::new(REDIS_SERVER);
        cmd.arg(&conf);
        let log = dir.path().join("redis.log");
        let mut process = Process::spawn("Redis", cmd, addr, &log)?;
        let password = password.map(str::to_owned);
        process.wait_ready(|| {
            let mut client =
                RedisClient::connect(addr, password.as_deref()).map_err(|e| e.to_string())?;
            match client.command(&["PING"]) {
                Ok(Reply::Status(s)) if s == "PONG" => Ok(()),
                other => Err(format!("PING answered {other:?}")),
            }
        })?;
        Ok(Self {
            process,
            addr,
            password,
            _dir: dir,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// A new client, authenticated when the server has a password.
    pub fn client(&self) -> Result<RedisClient> {
        RedisClient::connect(self.addr, self.password.as_deref())
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        self.process.log()
    }

    /// `FLUSHALL`: an empty database for the next test.
    pub fn flush(&self) -> Result<()> {
        self.client()?.command(&["FLUSHALL"]).map(drop)
    }
}

/// One RESP reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    Status(String),
    Error(String),
    Int(i64),
    Bulk(Option<Vec<u8>>),
    Array(Option<Vec<Reply>>),
}

impl Reply {
    /// A bulk or status reply as text.
    pub fn text(&self) -> Option<String> {
        match self {
            Reply::Status(s) => Some(s.clone()),
            Reply::Bulk(Some(b)) => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        }
    }
}

/// A blocking RESP2 client: enough for the tests' reads (`HGETALL`, `KEYS`,
/// `HGET`, ...).
pub struct RedisClient {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

fn protocol(message: impl Into<String>) -> ServerError {
    ServerError::Protocol {
        server: "Redis",
        message: message.into(),
    }
}

impl RedisClient {
    /// Connects (and `AUTH`s with `password` when given).
    pub fn connect(addr: SocketAddr, password: Option<&str>) -> Result<Self> {
        let stream = TcpStream::connect_timeout(&addr, IO_TIMEOUT)
            .map_err(|e| protocol(format!("cannot connect to {addr}: {e}")))?;
        let io = |e: std::io::Error| protocol(format!("{addr}: {e}"));
        stream.set_read_timeout(Some(IO_TIMEOUT)).map_err(io)?;
        stream.set_write_timeout(Some(IO_TIMEOUT)).map_err(io)?;
        let writer = stream.try_clone().map_err(io)?;
        let mut client = Self {
            reader: BufReader::new(stream),
            writer,
        };
        if let Some(p) = password {
            match client.command(&["AUTH", p])? {
                Reply::Status(_) => {}
                other => return Err(protocol(format!("AUTH answered {other:?}"))),
            }
        }
        Ok(client)
    }

    /// Sends one command and reads its reply (an error reply is `Ok(Reply::Error)`).
    pub fn command(&mut self, args: &[&str]) -> Result<Reply> {
        let mut frame = format!("*{}\r\n", args.len()).into_bytes();
        for a in args {
            frame.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
            frame.extend_from_slice(a.as_bytes());
            frame.extend_from_slice(b"\r\n");
        }
        self.writer
            .write_all(&frame)
            .map_err(|e| protocol(format!("write: {e}")))?;
        self.read_reply()
    }

    fn line(&mut self) -> Result<String> {
        let mut line = String::new();
        let n = self
            .reader
            .read_line(&mut line)
            .map_err(|e| protocol(format!("read: {e}")))?;
        if n == 0 {
            return Err(protocol("connection closed"));
        }
        Ok(line.trim_end_matches(['\r', '\n']).to_owned())
    }

    fn read_reply(&mut self) -> Result<Reply> {
        let line = self.line()?;
        let (kind, rest) = line
            .split_at_checked(1)
            .ok_or_else(|| protocol("empty reply"))?;
        let number = |s: &str| {
            s.parse::<i64>()
                .map_err(|_| protocol(format!("bad length or integer {s:?}")))
        };
        match kind {
            "+" => Ok(Reply::Status(rest.to_owned())),
            "-" => Ok(Reply::Error(rest.to_owned())),
            ":" => Ok(Reply::Int(number(rest)?)),
            "$" => {
                let len = number(rest)?;
                let Ok(len) = usize::try_from(len) else {
                    return Ok(Reply::Bulk(None));
                };
                let mut buf = vec![0u8; len + 2];
                self.reader
                    .read_exact(&mut buf)
                    .map_err(|e| protocol(format!("read: {e}")))?;
                buf.truncate(len);
                Ok(Reply::Bulk(Some(buf)))
            }
            "*" => {
                let len = number(rest)?;
                let Ok(len) = usize::try_from(len) else {
                    return Ok(Reply::Array(None));
                };
                let mut items = Vec::with_capacity(len);
                for _ in 0..len {
                    items.push(self.read_reply()?);
                }
                Ok(Reply::Array(Some(items)))
            }
            _ => Err(protocol(format!("unknown reply {line:?}"))),
        }
    }

    /// `HGETALL key` as field → value (raw bytes).
    pub fn hgetall_bytes(&mut self, key: &str) -> Result<BTreeMap<Vec<u8>, Vec<u8>>> {
        match self.command(&["HGETALL", key])? {
            Reply::Array(Some(items)) => {
                let mut map = BTreeMap::new();
                let mut it = items.into_iter();
                while let (Some(Reply::Bulk(Some(f))), Some(Reply::Bulk(Some(v)))) =
                    (it.next(), it.next())
                {
                    map.insert(f, v);
                }
                Ok(map)
            }
            other => Err(protocol(format!("HGETALL {key} answered {other:?}"))),
        }
    }

    /// `HGETALL key` as text.
    pub fn hgetall(&mut self, key: &str) -> Result<BTreeMap<String, String>> {
        Ok(self
            .hgetall_bytes(key)?
            .into_iter()
            .map(|(f, v)| {
                (
                    String::from_utf8_lossy(&f).into_owned(),
                    String::from_utf8_lossy(&v).into_owned(),
                )
            })
            .collect())
    }

    /// `KEYS pattern`, sorted.
    pub fn keys(&mut self, pattern: &str) -> Result<Vec<String>> {
        match self.command(&["KEYS", pattern])? {
            Reply::Array(Some(items)) => {
                let mut keys: Vec<String> = items.iter().filter_map(Reply::text).collect();
                keys.sort();
                Ok(keys)
            }
            other => Err(protocol(format!("KEYS {pattern} answered {other:?}"))),
        }
    }
}
