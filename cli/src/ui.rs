//! `egret ui [--bind ADDR] [--credentials-file FILE]`: the REST API and web
//! UI over the topologies of the local cluster or, when the config names a
//! shared state manager, of that multi-host cluster (egret-ui;
//! docs/observing.md).

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context as _;
use egret_config::Layered;
use egret_ui::auth::{CREDENTIALS_ENV, Credentials};
use egret_ui::{Source, UiServer};

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
    let source = match crate::hosts::cluster_of(config).await? {
        Some(state) => Source::Shared {
            state: std::sync::Arc::new(state),
            credentials_root: crate::hosts::credentials_root(config),
        },
        None => Source::Local(crate::manage::cluster(config)?),
    };
    let server = UiServer::bind(addr, source, credentials).await?;
    let local = server.local_addr().context("the UI's address")?;
    println!("Egret UI on http://{local}/");
    server.serve().await?;
    Ok(())
}
