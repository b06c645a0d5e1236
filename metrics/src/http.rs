//! The Prometheus exposition endpoint of a container's metrics manager:
//! `GET /metrics` answers the OpenMetrics text of [`MetricsManager::render_prometheus`];
//! anything else is 404.
//!
//! Invariants: a connection gets one answer and is closed; a request must
//! arrive within [`READ_TIMEOUT`] and fit in [`MAX_REQUEST`] bytes; at most
//! [`MAX_CONNECTIONS`] are served at once (more wait in the kernel's backlog);
//! the bound address is written to `DIR/metrics/prometheus-<N>.addr` so that
//! tools (and tests) find a port chosen by the kernel.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use crate::manager::MetricsManager;

pub const READ_TIMEOUT: Duration = Duration::from_secs(5);
pub const MAX_REQUEST: usize = 8 * 1024;
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
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let task = tokio::spawn(async move {
        loop {
            let Ok(permit) = Arc::clone(&slots).acquire_owned().await else {
                return;
            };
            match listener.accept().await {
                Ok((stream, _)) => {
                    let manager = manager.clone();
                    tokio::spawn(async move {
                        let _ = tokio::time::timeout(READ_TIMEOUT, answer(stream, &manager)).await;
                        drop(permit);
                    });
                }
                Err(e) => {
                    tracing::debug!(error = %e, "Prometheus endpoint: accept failed.");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    });
    Ok((local, task))
}

/// Reads a request's head (up to its blank line, the peer's end, or `max`
/// bytes) and returns its method and target: the one parse both of a
/// process's small endpoints (this one and the roles' health endpoint)
/// need. `None` for a request line without both.
pub async fn read_request_line(
    stream: &mut TcpStream,
    max: usize,
) -> std::io::Result<Option<(String, String)>> {
    let mut buf = Vec::with_capacity(512);
    let mut chunk = [0u8; 512];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        if buf.len() >= max {
            break;
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let text = String::from_utf8_lossy(&buf);
    let mut words = text.lines().next().unwrap_or("").split_whitespace();
    Ok(match (words.next(), words.next()) {
        (Some(method), Some(target)) => Some((method.to_owned(), target.to_owned())),
        _ => None,
    })
}

async fn answer(mut stream: TcpStream, manager: &MetricsManager) -> std::io::Result<()> {
    let line = read_request_line(&mut stream, MAX_REQUEST).await?;
    let (status, content_type, body) = match line.as_ref().map(|(m, t)| (m.as_str(), t.as_str())) {
        Some((method @ ("GET" | "HEAD"), target))
            if target.split('?').next() == Some("/metrics") =>
        {
            let body = manager.render_prometheus();
            let body = if method == "HEAD" {
                String::new()
            } else {
                body
            };
            ("200 OK", CONTENT_TYPE, body)
        }
        Some(("GET" | "HEAD", _)) => ("404 Not Found", "text/plain", "not found\n".into()),
        _ => ("400 Bad Request", "text/plain", "bad request\n".into()),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.shutdown().await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;
    use std::collections::HashMap;

    async fn get(addr: SocketAddr, request: &str) -> String {
        let mut s = TcpStream::connect(addr).await.unwrap();
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
        let out = get(addr, "BREW /pot\r\n\r\n").await;
        assert!(out.starts_with("HTTP/1.1 400"), "{out}");
        task.abort();
    }
}
