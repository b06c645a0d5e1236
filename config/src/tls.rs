//! Where a topology's TLS key material comes from, resolved once at
//! submission from the configuration into a [`CredentialsSource`].
//!
//! Keys (all three or none):
//! - `egret.tls.ca.file`: a PEM file with the CA certificate(s) every process
//!   of the topology trusts;
//! - `egret.tls.cert.file`: a PEM file with the certificate every process
//!   presents (its chain first), issued by that CA, naming `egret-topology` in
//!   its subject alternative names, for both server and client authentication;
//! - `egret.tls.key.file`: its PKCS#8 PEM private key, readable by its owner only.
//!
//! None set (the default): submission generates a new CA and certificate for
//! the topology. Either way the files are copied into the topology's
//! credentials directory (contracts.md, "Credentials"), from which every
//! process reads them; no process reads these keys.

use std::path::PathBuf;

use serde_json::Value;

use crate::ConfigMap;

pub const TLS_CA_FILE: &str = "egret.tls.ca.file";
pub const TLS_CERT_FILE: &str = "egret.tls.cert.file";
pub const TLS_KEY_FILE: &str = "egret.tls.key.file";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TlsConfigError {
    #[error("config key {key} must be a file path, found {value}")]
    BadValue { key: &'static str, value: String },
    #[error(
        "config keys {TLS_CA_FILE}, {TLS_CERT_FILE} and {TLS_KEY_FILE} go together: {missing} is not set"
    )]
    Incomplete { missing: String },
}

/// The resolved origin of a topology's key material.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CredentialsSource {
    /// A new CA and certificate per topology (the default).
    #[default]
    Generate,
    /// Copied from configured files.
    Files {
        ca: PathBuf,
        cert: PathBuf,
        key: PathBuf,
    },
}

impl CredentialsSource {
    /// Resolves the three keys of `config`; every error names the key.
    pub fn resolve(config: &ConfigMap) -> Result<Self, TlsConfigError> {
        let keys = [TLS_CA_FILE, TLS_CERT_FILE, TLS_KEY_FILE];
        let mut paths = Vec::new();
        for key in keys {
            paths.push(match config.get(key) {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) if !s.trim().is_empty() => Some(PathBuf::from(s.trim())),
                Some(other) => {
                    return Err(TlsConfigError::BadValue {
                        key,
                        value: other.to_string(),
                    });
                }
            });
        }
        if paths.iter().all(Option::is_none) {
            return Ok(Self::Generate);
        }
        let missing: Vec<&str> = keys
            .iter()
            .zip(&paths)
            .filter(|(_, p)| p.is_none())
            .map(|(k, _)| *k)
            .collect();
        match (paths.remove(0), paths.remove(0), paths.remove(0)) {
            (Some(ca), Some(cert), Some(key)) => Ok(Self::Files { ca, cert, key }),
            _ => Err(TlsConfigError::Incomplete {
                missing: missing.join(", "),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(value: Value) -> ConfigMap {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn none_set_generates_all_three_set_copy() {
        assert_eq!(
            CredentialsSource::resolve(&config(json!({}))),
            Ok(CredentialsSource::Generate)
        );
        assert_eq!(
            CredentialsSource::resolve(&config(json!({
                TLS_CA_FILE: "/etc/egret/ca.pem",
                TLS_CERT_FILE: "/etc/egret/cert.pem",
                TLS_KEY_FILE: " /etc/egret/key.pem ",
            }))),
            Ok(CredentialsSource::Files {
                ca: "/etc/egret/ca.pem".into(),
                cert: "/etc/egret/cert.pem".into(),
                key: "/etc/egret/key.pem".into(),
            })
        );
    }

    #[test]
    fn a_partial_or_bad_setting_names_the_keys() {
        let err = CredentialsSource::resolve(&config(json!({TLS_CA_FILE: "/ca.pem"}))).unwrap_err();
        assert_eq!(
            err,
            TlsConfigError::Incomplete {
                missing: format!("{TLS_CERT_FILE}, {TLS_KEY_FILE}")
            }
        );
        assert!(err.to_string().contains(TLS_KEY_FILE));
        let err = CredentialsSource::resolve(&config(json!({TLS_KEY_FILE: 3}))).unwrap_err();
        assert!(
            matches!(
                err,
                TlsConfigError::BadValue {
                    key: TLS_KEY_FILE,
                    ..
                }
            ),
            "{err}"
        );
    }
}
