//! The small HTTP endpoints of a process: the Prometheus exposition of a
//! container's metrics manager (`GET /metrics` answers the OpenMetrics text
//! of [`MetricsManager::render_prometheus`]; anything else is 404), and,
//! through [`serve_router`], the roles' health endpoint.
//!
//! Invariants: a connection gets one answer and is closed; a request's head
//! must arrive within [`READ_TIMEOUT`] (hyper's header timeout) and a
//! connection lasts at most [`CONNECTION_TIMEOUT`]; at most the given number
//! of connections are served at once (more wait in the kernel's backlog);
//! the Prometheus endpoint's bound address is written to
//! `DIR/metrics/prometheus-<N>.addr` so that tools (and tests) find a port
//! chosen by the kernel.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::manager::MetricsManager;

pub const READ_TIMEOUT: Duration = Duration::from_secs(5);
pub const CONNECTION_TIMEOUT: Duration = Duration::from_secs(30);
pub const MAX_CONNECTIONS: usize = 8;
/// OpenMetrics text, which Prometheus negotiates and accepts.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Where container `index`'s endpoint address is written.
pub fn address_file(topology_dir: &Path, index: i32) -> PathBuf {
    topology_dir
        .join(crate::METRICS_DIR)
        .join(format!("prometheus-{index}.addr"))
}

/// Binds `addr` and serves `/metrics` until the returned task is aborted;
/// returns the bound address with it.
pub async fn serve(
    manager: MetricsManager,
    addr: SocketAddr,
) -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let router = Router::new()
        .route("/metrics", get(metrics))
        .with_state(manager);
    Ok((local, serve_router(listener, router, MAX_CONNECTIONS)))
}

async fn metrics(State(manager): State<MetricsManager>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, CONTENT_TYPE)],
        manager.render_prometheus(),
    )
}

/// Serves `router` on `listener` (HTTP/1.1, one request per connection, at
/// most `max_connections` at once) until the returned task is aborted.
pub fn serve_router(
    listener: TcpListener,
    router: Router,
    max_connections: usize,
) -> tokio::task::JoinHandle<()> {
    let slots = Arc::new(Semaphore::new(max_connections));
    tokio::spawn(async move {
        loop {
            let Ok(permit) = Arc::clone(&slots).acquire_owned().await else {
                return;
            };
            match listener.accept().await {
                Ok((stream, _)) => {
                    let service = TowerToHyperService::new(router.clone());
                    tokio::spawn(async move {
                        let connection = hyper::server::conn::http1::Builder::new()
                            .timer(TokioTimer::new())
                            .header_read_timeout(READ_TIMEOUT)
                            .keep_alive(false)
                            .serve_connection(TokioIo::new(stream), service);
                        if let Ok(Err(e)) =
                            tokio::time::timeout(CONNECTION_TIMEOUT, connection).await
                        {
                            tracing::debug!(error = %e, "HTTP endpoint: connection failed.");
                        }
                        drop(permit);
                    });
                }
                Err(e) => {
                    tracing::debug!(error = %e, "HTTP endpoint: accept failed.");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;
    use std::collections::HashMap;

    async fn get(addr: SocketAddr, request: &str) -> String {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(request.as_bytes()).await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        out
    }

    #[tokio::test]
    async fn serves_metrics_and_refuses_the_rest() {
        let registry = crate::Registry::new();
        registry.set(crate::MetricKey::new("egret.restarts", "stmgr-1", 0), 3.0);
        let manager = MetricsManager::new(
            "wc",
            1,
            HashMap::new(),
            Default::default(),
            registry,
            Box::new(Vec::new),
        );
        let (addr, task) = serve(manager, "127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let out = get(addr, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").await;
        assert!(out.starts_with("HTTP/1.1 200 OK"), "{out}");
        assert!(out.contains(CONTENT_TYPE), "{out}");
        assert!(
            out.contains("egret_restarts{topology=\"wc\",component=\"stmgr-1\",task=\"0\"} 3"),
            "{out}"
        );
        assert!(out.trim_end().ends_with("# EOF"), "{out}");
        let out = get(addr, "GET /other HTTP/1.1\r\n\r\n").await;
        assert!(out.starts_with("HTTP/1.1 404"), "{out}");
        let out = get(addr, "HEAD /metrics HTTP/1.1\r\n\r\n").await;
        assert!(out.starts_with("HTTP/1.1 200 OK"), "{out}");
        assert!(!out.contains("# EOF"), "{out}");
        let out = get(addr, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n").await;
        assert!(out.starts_with("HTTP/1.1 405"), "{out}");
        let out = get(addr, "BREW /pot\r\n\r\n").await;
        assert!(out.starts_with("HTTP/1.1 400"), "{out}");
        task.abort();
    }
}
