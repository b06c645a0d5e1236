//! Where a peer is dialed: a host (an IP address or a DNS name) and a port.
//! A process advertises one (`--advertise`), the state manager stores the
//! topology master's, and every dialer resolves it when it connects, so a
//! name that moves to another address (a Kubernetes pod's) is followed.

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use tokio::net::TcpStream;

/// The longest DNS name (RFC 1035, without the trailing dot).
const MAX_NAME: usize = 253;
/// The longest label of a DNS name.
const MAX_LABEL: usize = 63;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    #[error("'{text}' is not an IP address or a host name: {problem}")]
    Host { text: String, problem: &'static str },
    #[error("'{0}' is not host:port")]
    NoPort(String),
    #[error("'{text}' has no valid port: {problem}")]
    Port { text: String, problem: String },
}

/// A host as peers dial it: an IP address, or a DNS name (RFC 1123 labels:
/// letters, digits and inner hyphens, at most 63 characters each, 253 in all).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Host {
    Ip(IpAddr),
    Name(String),
}

impl Host {
    /// Whether this is the unspecified address (0.0.0.0 or ::), which no peer can dial.
    pub fn is_unspecified(&self) -> bool {
        matches!(self, Host::Ip(ip) if ip.is_unspecified())
    }
}

impl From<IpAddr> for Host {
    fn from(ip: IpAddr) -> Self {
        Host::Ip(ip)
    }
}

impl FromStr for Host {
    type Err = EndpointError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bare = text
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .unwrap_or(text);
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return Ok(Host::Ip(ip));
        }
        let bad = |problem| EndpointError::Host {
            text: text.to_owned(),
            problem,
        };
        let name = text.strip_suffix('.').unwrap_or(text);
        if name.is_empty() {
            return Err(bad("it is empty"));
        }
        if name.len() > MAX_NAME {
            return Err(bad("a host name has at most 253 characters"));
        }
        for label in name.split('.') {
            if label.is_empty() {
                return Err(bad("a host name has no empty label"));
            }
            if label.len() > MAX_LABEL {
                return Err(bad("a label of a host name has at most 63 characters"));
            }
            if !label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            {
                return Err(bad(
                    "a host name has only letters, digits, hyphens and dots",
                ));
            }
            if label.starts_with('-') || label.ends_with('-') {
                return Err(bad(
                    "a label of a host name neither starts nor ends with '-'",
                ));
            }
        }
        if name
            .rsplit('.')
            .next()
            .is_some_and(|top| top.bytes().all(|b| b.is_ascii_digit()))
        {
            // 1.2.3.999 and the like: neither an address nor a name.
            return Err(bad(
                "its last label is all digits, but it is not an IP address",
            ));
        }
        Ok(Host::Name(name.to_ascii_lowercase()))
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Ip(ip) => write!(f, "{ip}"),
            Host::Name(name) => f.write_str(name),
        }
    }
}

/// A host and a port: `10.0.0.7:6700`, `[fd00::7]:6700`, `egret-0.wc.svc:6700`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Endpoint {
    host: Host,
    port: u16,
}

impl Endpoint {
    pub fn new(host: Host, port: u16) -> Self {
        Self { host, port }
    }

    pub fn host(&self) -> &Host {
        &self.host
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Resolves the host (a name through the system's resolver) and connects
    /// to the first address that accepts, with Nagle's algorithm off.
    pub async fn connect(&self) -> std::io::Result<TcpStream> {
        let stream = match &self.host {
            Host::Ip(ip) => TcpStream::connect(SocketAddr::new(*ip, self.port)).await?,
            Host::Name(name) => TcpStream::connect((name.as_str(), self.port)).await?,
        };
        // Best effort: frames are flushed whole, latency matters more than packets.
        let _ = stream.set_nodelay(true);
        Ok(stream)
    }
}

impl From<SocketAddr> for Endpoint {
    fn from(addr: SocketAddr) -> Self {
        Self::new(Host::Ip(addr.ip()), addr.port())
    }
}

impl FromStr for Endpoint {
    type Err = EndpointError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if let Ok(addr) = text.parse::<SocketAddr>() {
            return Ok(addr.into());
        }
        let (host, port) = text
            .rsplit_once(':')
            .ok_or_else(|| EndpointError::NoPort(text.to_owned()))?;
        if host.contains(':') && !host.starts_with('[') {
            // An IPv6 address without brackets: its last group is not a port.
            return Err(EndpointError::NoPort(text.to_owned()));
        }
        let port = port.parse::<u16>().map_err(|e| EndpointError::Port {
            text: text.to_owned(),
            problem: e.to_string(),
        })?;
        Ok(Self::new(host.parse()?, port))
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.host {
            Host::Ip(IpAddr::V6(ip)) => write!(f, "[{ip}]:{}", self.port),
            host => write!(f, "{host}:{}", self.port),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_names_round_trip() {
        for text in [
            "10.0.0.7:6700",
            "[fd00::7]:6700",
            "egret-0.wc.default.svc.cluster.local:6700",
            "localhost:1",
        ] {
            let endpoint: Endpoint = text.parse().unwrap();
            assert_eq!(endpoint.to_string(), text);
        }
        let named: Endpoint = "Master-1.Egret.Test.:80".parse().unwrap();
        assert_eq!(named.host(), &Host::Name("master-1.egret.test".into()));
        assert_eq!(named.port(), 80);
        assert_eq!(
            "[::1]".parse::<Host>().unwrap(),
            Host::Ip("::1".parse().unwrap())
        );
    }

    #[test]
    fn malformed_endpoints_are_refused_saying_why() {
        let cases = [
            ("", "is not host:port"),
            ("host", "is not host:port"),
            ("host:", "no valid port"),
            ("host:70000", "no valid port"),
            ("fd00::7", "is not host:port"),
            ("-a.b:1", "neither starts nor ends"),
            ("a..b:1", "no empty label"),
            ("a_b:1", "only letters"),
            ("1.2.3.999:1", "all digits"),
            (":1", "it is empty"),
        ];
        for (text, expected) in cases {
            let err = text.parse::<Endpoint>().unwrap_err().to_string();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
        let long = format!("{}.egret:1", "a".repeat(64));
        assert!(
            long.parse::<Endpoint>()
                .unwrap_err()
                .to_string()
                .contains("63")
        );
        assert!("0.0.0.0".parse::<Host>().unwrap().is_unspecified());
        assert!(!"egret".parse::<Host>().unwrap().is_unspecified());
    }

    #[tokio::test]
    async fn a_name_is_resolved_when_dialed() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let endpoint: Endpoint = format!("localhost:{port}").parse().unwrap();
        let (dialed, accepted) = tokio::join!(endpoint.connect(), listener.accept());
        let dialed = dialed.unwrap();
        assert_eq!(
            dialed.peer_addr().unwrap(),
            accepted.unwrap().0.local_addr().unwrap()
        );
    }
}
