//! The health endpoint of a cluster host's role (`egret tmaster|container
//! --topology`), served when the config sets `egret.health.port` (the
//! Kubernetes objects' ConfigMap does; their probes use it):
//! - `GET /healthz`: 200 while the process runs (liveness);
//! - `GET /readyz`: 200 once the role is ready, else 503 (readiness): the
//!   master once it serves (registered as its topology's master, listening),
//!   a container once the physical plan the master published lists its
//!   stream manager;
//! - anything else: 404.
//!
//! Invariants: it listens on the role's `--bind` address; a connection gets
//! one answer and is closed; a request must arrive within [`READ_TIMEOUT`]
//! and fit in [`MAX_REQUEST`] bytes; at most [`MAX_CONNECTIONS`] are served
//! at once (more wait in the kernel's backlog).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};

pub const READ_TIMEOUT: Duration = Duration::from_secs(5);
pub const MAX_REQUEST: usize = 8 * 1024;
pub const MAX_CONNECTIONS: usize = 16;

/// The port `egret.health.port` sets, if it does.
pub fn configured_port(config: &egret_config::Layered) -> anyhow::Result<Option<u16>> {
    if config
        .merged
        .get(egret_kubernetes::settings::HEALTH_PORT)
        .is_none_or(serde_json::Value::is_null)
    {
        return Ok(None);
    }
    Ok(Some(egret_kubernetes::settings::health_port(
        &config.merged,
    )?))
}

/// A served endpoint: set readiness with [`Health::set_ready`]; dropping it
/// stops the listener.
pub struct Health {
    ready: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
    #[cfg_attr(not(test), expect(dead_code, reason = "the tests dial it"))]
    addr: SocketAddr,
}

impl Health {
    pub fn set_ready(&self, ready: bool) {
        self.ready
            .send_if_modified(|r| std::mem::replace(r, ready) != ready);
    }
}

impl Drop for Health {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Binds `bind:port` and serves the endpoint, not ready at first.
pub async fn serve(bind: IpAddr, port: u16) -> anyhow::Result<Health> {
    let listener = TcpListener::bind((bind, port))
        .await
        .with_context(|| format!("cannot listen on {bind}:{port} for the health endpoint"))?;
    let addr = listener
        .local_addr()
        .context("the health listener's address")?;
    let (ready, rx) = watch::channel(false);
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let task = tokio::spawn(async move {
        loop {
            let Ok(permit) = Arc::clone(&slots).acquire_owned().await else {
                return;
            };
            match listener.accept().await {
                Ok((stream, _)) => {
                    let ready = *rx.borrow();
                    tokio::spawn(async move {
                        let _ = tokio::time::timeout(READ_TIMEOUT, answer(stream, ready)).await;
                        drop(permit);
                    });
                }
                Err(e) => {
                    tracing::debug!(error = %e, "Health endpoint: accept failed.");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    });
    tracing::info!(%addr, "Health endpoint listening (/healthz, /readyz).");
    Ok(Health { ready, task, addr })
}

/// The status line and body for a request line's path.
fn response(path: &str, ready: bool) -> (&'static str, &'static str) {
    match path {
        "/healthz" => ("200 OK", "ok\n"),
        "/readyz" if ready => ("200 OK", "ready\n"),
        "/readyz" => ("503 Service Unavailable", "not ready\n"),
        _ => ("404 Not Found", "not found\n"),
    }
}

async fn answer(mut stream: TcpStream, ready: bool) -> std::io::Result<()> {
    let line = egret_metrics::http::read_request_line(&mut stream, MAX_REQUEST).await?;
    let (status, body) = match line.as_ref().map(|(m, t)| (m.as_str(), t.as_str())) {
        Some(("GET" | "HEAD", target)) => {
            response(target.split('?').next().unwrap_or(target), ready)
        }
        _ => ("400 Bad Request", "bad request\n"),
    };
    let reply = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(reply.as_bytes()).await?;
    stream.shutdown().await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;
    use tokio::io::AsyncReadExt as _;

    async fn get(addr: SocketAddr, path: &str) -> String {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
            .await
            .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        out.lines().next().unwrap_or("").to_owned()
    }

    #[tokio::test]
    async fn ready_is_503_until_set_and_alive_always() {
        let health = serve("127.0.0.1".parse().unwrap(), 0).await.unwrap();
        assert_eq!(get(health.addr, "/healthz").await, "HTTP/1.1 200 OK");
        assert_eq!(
            get(health.addr, "/readyz").await,
            "HTTP/1.1 503 Service Unavailable"
        );
        health.set_ready(true);
        assert_eq!(get(health.addr, "/readyz").await, "HTTP/1.1 200 OK");
        assert_eq!(get(health.addr, "/readyz?verbose").await, "HTTP/1.1 200 OK");
        assert_eq!(get(health.addr, "/other").await, "HTTP/1.1 404 Not Found");
        health.set_ready(false);
        assert_eq!(
            get(health.addr, "/readyz").await,
            "HTTP/1.1 503 Service Unavailable"
        );
        let mut s = TcpStream::connect(health.addr).await.unwrap();
        s.write_all(b"BREW /pot\r\n\r\n").await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        assert!(out.starts_with("HTTP/1.1 400"), "{out}");
    }
}
