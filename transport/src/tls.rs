//! Mutually authenticated TLS 1.3 over a topology's TCP links.
//!
//! Both sides present the topology's certificate and require the peer's to
//! chain to the topology's CA: the server with a [`WebPkiClientVerifier`]
//! (a client certificate is mandatory), the client with the CA as its only
//! root and [`SERVER_NAME`] as the name to check. TLS 1.3 only, no 0-RTT, no
//! session resumption (every connection does the full mutual handshake), the
//! `ring` provider.
//!
//! Invariants:
//! - [`Tls::accept`] and [`Tls::connect`] return a stream only once the
//!   handshake is complete; no application byte is read or handed out
//!   before, so the hello and every frame travel inside TLS;
//! - a handshake takes at most [`HANDSHAKE_TIMEOUT`];
//! - every handshake this process refuses (the peer's certificate, or the
//!   peer not speaking TLS, or too slow) is counted once by reason in
//!   [`RefusedCounters`] and logged once at WARN with the peer's address and
//!   the reason. A handshake the *peer* refused (it sent an alert) is an
//!   error here, logged, but not counted: the refusing side counts it.
//!
//! In TLS 1.3 the client sends its certificate last, so a client whose
//! certificate the server refuses has finished its side of the handshake:
//! it learns of the refusal (an alert) on its first read, which is the
//! hello's reply.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use egret_metrics::{MetricKey, Registry};
use rustls::client::Resumption;
use rustls::server::{NoServerSessionStorage, WebPkiClientVerifier};
use rustls::{CertificateError, ClientConfig, RootCertStore, ServerConfig};
use rustls_pki_types::ServerName;
use tokio::net::TcpStream;
use tokio_rustls::{TlsAcceptor, TlsConnector};
use tracing::warn;

use crate::TopologyCredentials;
use crate::credentials::{CA_FILE, CERT_FILE, CredentialsError, KEY_FILE, SERVER_NAME};

/// The longest a TLS handshake may take, either side.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The metric of refused handshakes, one per reason (in its `component`).
pub const REFUSED_METRIC: &str = "egret.tls.refused";

/// A TLS connection of a topology link, either side.
pub type TlsStream = tokio_rustls::TlsStream<TcpStream>;

/// Why this process refused a handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefusalReason {
    /// The peer's certificate does not chain to this topology's CA (another
    /// topology's credentials, or none of Egret's).
    UnknownCa,
    /// The peer's certificate has expired.
    Expired,
    /// The peer presented no certificate.
    NoCertificate,
    /// The peer's certificate is unusable otherwise (not yet valid, wrong
    /// name, wrong usage, bad signature).
    BadCertificate,
    /// The peer does not speak TLS (plain text, such as a bare hello frame).
    NotTls,
    /// The peer's handshake messages fail their integrity checks: a replayed
    /// or tampered handshake.
    Tampered,
    /// The peer violated the protocol otherwise (another version, no common
    /// parameters, a malformed message).
    Protocol,
    /// The handshake did not complete within [`HANDSHAKE_TIMEOUT`].
    Timeout,
}

impl RefusalReason {
    pub const ALL: [RefusalReason; 8] = [
        Self::UnknownCa,
        Self::Expired,
        Self::NoCertificate,
        Self::BadCertificate,
        Self::NotTls,
        Self::Tampered,
        Self::Protocol,
        Self::Timeout,
    ];

    /// The reason's name in logs and in the metric's `component`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UnknownCa => "unknown-ca",
            Self::Expired => "expired",
            Self::NoCertificate => "no-certificate",
            Self::BadCertificate => "bad-certificate",
            Self::NotTls => "not-tls",
            Self::Tampered => "tampered",
            Self::Protocol => "protocol",
            Self::Timeout => "timeout",
        }
    }

    /// A sentence for error messages.
    pub fn describe(self) -> &'static str {
        match self {
            Self::UnknownCa => "its certificate is from another CA (not this topology's)",
            Self::Expired => "its certificate has expired",
            Self::NoCertificate => "it presented no certificate",
            Self::BadCertificate => "its certificate is not valid for this topology",
            Self::NotTls => "it does not speak TLS (plain text?)",
            Self::Tampered => {
                "its handshake fails the integrity checks (a replayed or tampered handshake)"
            }
            Self::Protocol => "it broke the TLS 1.3 protocol",
            Self::Timeout => "the handshake did not complete in time",
        }
    }

    fn index(self) -> usize {
        Self::ALL.iter().position(|r| *r == self).unwrap_or(0)
    }
}

impl std::fmt::Display for RefusalReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The handshakes this process refused, by reason.
#[derive(Debug, Default)]
pub struct RefusedCounters {
    counts: [AtomicU64; RefusalReason::ALL.len()],
}

impl RefusedCounters {
    pub fn get(&self, reason: RefusalReason) -> u64 {
        self.counts[reason.index()].load(Ordering::Relaxed)
    }

    pub fn total(&self) -> u64 {
        RefusalReason::ALL.iter().map(|r| self.get(*r)).sum()
    }

    pub(crate) fn count(&self, reason: RefusalReason) {
        self.counts[reason.index()].fetch_add(1, Ordering::Relaxed);
    }

    /// Sets `egret.tls.refused` (component: the reason, task 0) in `registry`
    /// for every reason that happened at least once.
    pub fn publish(&self, registry: &Registry) {
        for reason in RefusalReason::ALL {
            let n = self.get(reason);
            if n > 0 {
                registry.set(MetricKey::new(REFUSED_METRIC, reason.as_str(), 0), n as f64);
            }
        }
    }
}

/// Which end of the handshake this process was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Server,
    Client,
}

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("TLS handshake with {peer} refused: {} ({detail})", .reason.describe())]
    Refused {
        peer: SocketAddr,
        side: Side,
        reason: RefusalReason,
        detail: String,
    },
    #[error("TLS handshake with {peer} refused by the peer: {detail}")]
    RefusedByPeer { peer: SocketAddr, detail: String },
    #[error("TLS handshake with {peer} failed: {source}")]
    Io {
        peer: SocketAddr,
        #[source]
        source: std::io::Error,
    },
}

impl TlsError {
    /// The reason when this side refused the handshake.
    pub fn refusal(&self) -> Option<RefusalReason> {
        match self {
            Self::Refused { reason, .. } => Some(*reason),
            _ => None,
        }
    }
}

/// The TLS side of one process for one topology: both configurations and
/// the process's refusal counters. Cheap to clone (shared).
#[derive(Clone)]
pub struct Tls {
    server: TlsAcceptor,
    client: TlsConnector,
    refused: Arc<RefusedCounters>,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls").finish_non_exhaustive()
    }
}

impl Tls {
    /// Builds both sides from the topology's credentials.
    pub fn new(credentials: &TopologyCredentials) -> Result<Self, CredentialsError> {
        let (ca, cert, key) = (
            Path::new(CA_FILE),
            Path::new(CERT_FILE),
            Path::new(KEY_FILE),
        );
        let config_err = |path: &Path| {
            let path = path.to_owned();
            move |e: rustls::Error| CredentialsError::Invalid {
                path,
                problem: e.to_string(),
            }
        };
        let mut roots = RootCertStore::empty();
        for der in credentials.ca_certificates(ca)? {
            roots.add(der).map_err(config_err(ca))?;
        }
        let roots = Arc::new(roots);
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let chain = credentials.certificate_chain(cert)?;

        let verifier =
            WebPkiClientVerifier::builder_with_provider(Arc::clone(&roots), Arc::clone(&provider))
                .build()
                .map_err(|e| CredentialsError::Invalid {
                    path: ca.to_owned(),
                    problem: e.to_string(),
                })?;
        let mut server = ServerConfig::builder_with_provider(Arc::clone(&provider))
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(config_err(ca))?
            .with_client_cert_verifier(verifier)
            .with_single_cert(chain.clone(), credentials.private_key(key)?)
            .map_err(config_err(key))?;
        server.max_early_data_size = 0;
        server.send_tls13_tickets = 0;
        server.session_storage = Arc::new(NoServerSessionStorage {});

        let mut client = ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(config_err(ca))?
            .with_root_certificates(roots)
            .with_client_auth_cert(chain, credentials.private_key(key)?)
            .map_err(config_err(key))?;
        client.enable_early_data = false;
        client.resumption = Resumption::disabled();

        Ok(Self {
            server: TlsAcceptor::from(Arc::new(server)),
            client: TlsConnector::from(Arc::new(client)),
            refused: Arc::new(RefusedCounters::default()),
        })
    }

    /// This process's refused handshakes.
    pub fn refused(&self) -> &RefusedCounters {
        &self.refused
    }

    /// Server side of the handshake on an accepted connection from `peer`.
    pub async fn accept(&self, tcp: TcpStream, peer: SocketAddr) -> Result<TlsStream, TlsError> {
        let handshake = self.server.accept(tcp);
        let result = tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake).await;
        self.finish(result, peer, Side::Server)
            .map(tokio_rustls::TlsStream::Server)
    }

    /// Client side of the handshake on a connection to `peer`.
    pub async fn connect(&self, tcp: TcpStream, peer: SocketAddr) -> Result<TlsStream, TlsError> {
        // SERVER_NAME is a constant valid DNS name, so this cannot fail.
        let name = ServerName::try_from(SERVER_NAME)
            .map_err(|e| TlsError::Io {
                peer,
                source: std::io::Error::other(e),
            })?
            .to_owned();
        let handshake = self.client.connect(name, tcp);
        let result = tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake).await;
        self.finish(result, peer, Side::Client)
            .map(tokio_rustls::TlsStream::Client)
    }

    fn finish<S>(
        &self,
        result: Result<std::io::Result<S>, tokio::time::error::Elapsed>,
        peer: SocketAddr,
        side: Side,
    ) -> Result<S, TlsError> {
        let error = match result {
            Ok(Ok(stream)) => return Ok(stream),
            Ok(Err(e)) => classify(e, peer, side),
            Err(_) => TlsError::Refused {
                peer,
                side,
                reason: RefusalReason::Timeout,
                detail: format!("no complete handshake within {HANDSHAKE_TIMEOUT:?}"),
            },
        };
        match &error {
            TlsError::Refused { reason, detail, .. } => {
                self.refused.count(*reason);
                warn!(%peer, side = ?side, reason = reason.as_str(), %detail, "TLS handshake refused: {}.", reason.describe());
            }
            TlsError::RefusedByPeer { detail, .. } => {
                warn!(%peer, side = ?side, %detail, "TLS handshake refused by the peer.");
            }
            TlsError::Io { source, .. } => {
                warn!(%peer, side = ?side, error = %source, "TLS handshake failed.");
            }
        }
        Err(error)
    }
}

/// Maps a handshake's error to what this side tells of it.
fn classify(error: std::io::Error, peer: SocketAddr, side: Side) -> TlsError {
    let Some(tls) = error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
    else {
        return TlsError::Io {
            peer,
            source: error,
        };
    };
    let reason = match tls {
        rustls::Error::AlertReceived(alert) => {
            return TlsError::RefusedByPeer {
                peer,
                detail: format!("it sent the alert {alert:?}"),
            };
        }
        rustls::Error::InvalidCertificate(cert) => match cert {
            CertificateError::UnknownIssuer => RefusalReason::UnknownCa,
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                RefusalReason::Expired
            }
            _ => RefusalReason::BadCertificate,
        },
        rustls::Error::NoCertificatesPresented => RefusalReason::NoCertificate,
        rustls::Error::InvalidMessage(_) => RefusalReason::NotTls,
        rustls::Error::DecryptError => RefusalReason::Tampered,
        _ => RefusalReason::Protocol,
    };
    TlsError::Refused {
        peer,
        side,
        reason,
        detail: tls.to_string(),
    }
}
