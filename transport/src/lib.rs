//! The transport under every TCP link of a topology (stream manager to stream
//! manager, stream manager to topology master, clients to the topology
//! master): per-topology key material ([`credentials`]) and mutually
//! authenticated TLS 1.3 ([`tls`]). The hello (`egret_proto::handshake`)
//! runs unchanged inside the TLS stream. [`endpoint`]: where a peer is
//! dialed (an IP address or a DNS name, and a port). See `docs/internals/contracts.md`,
//! "Credentials" and "TLS on every TCP link".

pub mod credentials;
pub mod endpoint;
pub mod tls;

pub use credentials::{
    CredentialsError, DEFAULT_VALIDITY, SERVER_NAME, TopologyCredentials, Validity, load_token,
};
pub use endpoint::{Endpoint, EndpointError, Host};
pub use tls::{
    HANDSHAKE_TIMEOUT, REFUSED_METRIC, RefusalReason, RefusedCounters, Side, Tls, TlsError,
    TlsStream,
};

#[cfg(test)]
mod tests;
