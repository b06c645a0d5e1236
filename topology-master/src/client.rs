//! The client side of the topology master's protocol, used by the `egret`
//! command (list, kill, activate, deactivate): one connection per request,
//! TLS with the topology's credentials, then the hello inside it.

use std::path::Path;
use std::time::Duration;

use egret_proto::frame::{DEFAULT_MAX_FRAME_BYTES, FrameError, decode_message, encode_message};
use egret_proto::handshake::{HandshakeError, connect};
use egret_proto::v1::{ClientRequest, ClientResponse, PeerRole};
use egret_state_manager::{Backend, StateError, StateManager, StateManagerError, TopologyDir};
use egret_transport::{CredentialsError, Endpoint, Tls, TlsError, TopologyCredentials};
use futures::{SinkExt, StreamExt};

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("the topology master of {0} is not registered (is the topology starting?)")]
    NoAddress(String),
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    StateManager(#[from] StateManagerError),
    #[error("cannot connect to the topology master at {addr}: {source}")]
    Connect {
        addr: Endpoint,
        #[source]
        source: std::io::Error,
    },
    #[error("the topology's credentials are not usable: {0}")]
    Credentials(#[from] CredentialsError),
    #[error("cannot open a TLS connection to the topology master: {0}")]
    Tls(#[from] TlsError),
    #[error("the topology master refused the connection: {0}")]
    Handshake(#[from] HandshakeError),
    #[error("the topology master connection failed: {0}")]
    Frame(#[from] FrameError),
    #[error("the topology master closed the connection without answering")]
    Closed,
    #[error("the topology master did not answer within {0:?}")]
    Timeout(Duration),
}

/// Sends one request to the topology master of the topology in `topology_dir`
/// and returns its response. The whole exchange (connect, hello, request,
/// response) must end within `timeout`; a `kill` waits its `wait_secs` before
/// answering, so give it at least that much.
pub async fn request(
    topology_dir: &Path,
    request: ClientRequest,
    timeout: Duration,
) -> Result<ClientResponse, ClientError> {
    let dir = TopologyDir::new(topology_dir);
    let (state, name) = Backend::for_topology_dir(&dir)?;
    let addr = state
        .master_location(&name)
        .await?
        .ok_or_else(|| ClientError::NoAddress(topology_dir.display().to_string()))?;
    let credentials = dir.read_credentials()?;
    request_to(&addr, &credentials, request, timeout).await
}

/// Sends one request to the master of topology `name` of a multi-host
/// cluster: found in `state` (the shared state manager) and authenticated with
/// the topology's credentials in `credentials_dir` (where `egret jar` wrote
/// them: `<egret.credentials.dir>/<name>/`).
pub async fn request_cluster(
    state: &Backend,
    name: &str,
    credentials_dir: &Path,
    request: ClientRequest,
    timeout: Duration,
) -> Result<ClientResponse, ClientError> {
    let addr = state
        .master_location(name)
        .await?
        .ok_or_else(|| ClientError::NoAddress(name.to_owned()))?;
    let credentials = TopologyCredentials::load(credentials_dir)?;
    request_to(&addr, &credentials, request, timeout).await
}

/// Sends one request to the topology master at `addr` (found by the caller
/// in the state manager), authenticated with the topology's `credentials`.
pub async fn request_to(
    addr: &Endpoint,
    credentials: &TopologyCredentials,
    request: ClientRequest,
    timeout: Duration,
) -> Result<ClientResponse, ClientError> {
    let token = credentials.token().clone();
    let tls = Tls::new(credentials)?;
    let exchange = async move {
        let stream = addr
            .connect()
            .await
            .map_err(|source| ClientError::Connect {
                addr: addr.clone(),
                source,
            })?;
        let peer = stream.peer_addr().map_err(|source| ClientError::Connect {
            addr: addr.clone(),
            source,
        })?;
        let stream = tls.connect(stream, peer).await?;
        // Responses are small: the default cap is plenty, and reading the
        // topology config for it would add a failure mode for nothing.
        let mut framed = connect(
            stream,
            &token,
            PeerRole::Client,
            "client",
            DEFAULT_MAX_FRAME_BYTES,
        )
        .await?;
        framed.send(encode_message(&request)).await?;
        let body = framed.next().await.ok_or(ClientError::Closed)??;
        Ok(decode_message::<ClientResponse>(body)?)
    };
    tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| ClientError::Timeout(timeout))?
}
