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
//! Invariants: it listens on the role's `--bind` address; connections are
//! served as the Prometheus endpoint's are ([`egret_metrics::http::serve_router`]:
//! one answer per connection, a header timeout, at most [`MAX_CONNECTIONS`]
//! at once).

use std::net::{IpAddr, SocketAddr};

use anyhow::Context as _;
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use tokio::net::TcpListener;
use tokio::sync::watch;

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
    let router = Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .with_state(rx);
    let task = egret_metrics::http::serve_router(listener, router, MAX_CONNECTIONS);
    tracing::info!(%addr, "Health endpoint listening (/healthz, /readyz).");
    Ok(Health { ready, task, addr })
}

async fn readyz(State(ready): State<watch::Receiver<bool>>) -> (StatusCode, &'static str) {
    if *ready.borrow() {
        (StatusCode::OK, "ready\n")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready\n")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    use tokio::net::TcpStream;

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
