//! `egret ui [--bind ADDR] [--credentials-file FILE]`: the REST API and web
//! UI over the local cluster's topologies (egret-ui; docs/observing.md).

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context as _;
use egret_config::Layered;
use egret_ui::UiServer;
use egret_ui::auth::{CREDENTIALS_ENV, Credentials};

pub async fn run(
    config: &Layered,
    bind: &str,
    credentials_file: Option<PathBuf>,
) -> anyhow::Result<()> {
    let addr: SocketAddr = bind
        .parse()
        .with_context(|| format!("--bind '{bind}' is not an address like 127.0.0.1:8080"))?;
    let credentials = credentials_file
        .map(|path| Credentials::from_file(&path))
        .transpose()?;
    if credentials.is_none() {
        tracing::info!(
            "No credentials (--credentials-file or {CREDENTIALS_ENV}): kill, activate and deactivate are refused."
        );
    }
    let cluster = crate::manage::cluster(config)?;
    let server = UiServer::bind(addr, cluster, credentials).await?;
    let local = server.local_addr().context("the UI's address")?;
    println!("Egret UI on http://{local}/");
    server.serve().await?;
    Ok(())
}
