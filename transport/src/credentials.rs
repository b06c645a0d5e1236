//! The key material of one topology and its credentials directory.
//!
//! A topology has its own certificate authority, generated at submission: a
//! self-signed CA certificate whose private key is dropped once it has signed
//! the topology's one certificate, which every process of the topology
//! presents (as server and as client). Only a holder of the credentials
//! directory can therefore open a link of the topology, and no further
//! certificate can be issued for it.
//!
//! The directory has the shape of a Kubernetes Secret mounted as a volume,
//! one file per key:
//!
//! | file | content |
//! |---|---|
//! | `token` | the topology's token, 32 random bytes as 64 hex chars |
//! | `ca.pem` | the topology's CA certificate (PEM) |
//! | `cert.pem` | the certificate every process presents, signed by the CA (PEM) |
//! | `key.pem` | its private key (PKCS#8 PEM) |
//!
//! Invariants: [`TopologyCredentials::save`] creates the directory 0700 and
//! each file 0600 (created with that mode, never widened after);
//! [`TopologyCredentials::load`] refuses a `key.pem` or `token` that group or
//! others may read, naming the file. Every error names the file and the problem.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use egret_proto::Token;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

/// The name every certificate of a topology holds in its subject alternative
/// names, and the name every client checks: topology names need not be DNS
/// names, and the CA (one per topology) is what tells topologies apart.
pub const SERVER_NAME: &str = "egret-topology";

/// How long generated credentials are valid: a year. A topology running
/// longer needs new credentials (resubmission).
pub const DEFAULT_VALIDITY: Duration = Duration::from_secs(365 * 24 * 3600);

/// The files of a credentials directory.
pub const TOKEN_FILE: &str = "token";
pub const CA_FILE: &str = "ca.pem";
pub const CERT_FILE: &str = "cert.pem";
pub const KEY_FILE: &str = "key.pem";

/// Bytes of a generated token.
const TOKEN_BYTES: usize = 32;

#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {problem}")]
    Invalid { path: PathBuf, problem: String },
    #[error(
        "refusing {path}: it is readable by group or others (mode {mode:o}); it must be 0600 or stricter"
    )]
    Exposed { path: PathBuf, mode: u32 },
    #[error("cannot generate credentials for topology '{topology}': {problem}")]
    Generate { topology: String, problem: String },
}

fn io_err(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> CredentialsError {
    let path = path.to_owned();
    move |source| CredentialsError::Io {
        action,
        path,
        source,
    }
}

fn invalid(path: &Path, problem: impl Into<String>) -> CredentialsError {
    CredentialsError::Invalid {
        path: path.to_owned(),
        problem: problem.into(),
    }
}

/// The key material of one topology (see the module doc).
#[derive(Clone)]
pub struct TopologyCredentials {
    token: Token,
    ca_pem: String,
    cert_pem: String,
    key_pem: String,
}

impl std::fmt::Debug for TopologyCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TopologyCredentials")
            .field("token", &self.token)
            .field("key", &"<redacted>")
            .finish_non_exhaustive()
    }
}

/// A validity window of a certificate.
#[derive(Debug, Clone, Copy)]
pub struct Validity {
    pub not_before: SystemTime,
    pub not_after: SystemTime,
}

impl Validity {
    /// From a minute ago (a little clock skew between hosts) for `length`.
    pub fn from_now(length: Duration) -> Self {
        let now = SystemTime::now();
        Self {
            not_before: now - Duration::from_secs(60),
            not_after: now + length,
        }
    }
}

impl TopologyCredentials {
    /// Generates a new CA, the topology's certificate and key, and a token.
    pub fn generate(topology_name: &str, validity: Duration) -> Result<Self, CredentialsError> {
        let window = Validity::from_now(validity);
        Ok(issue(topology_name, window, &[window])?.remove(0))
    }

    /// As [`generate`](Self::generate), with an explicit validity window for
    /// both certificates (tests make expired ones with it).
    pub fn generate_with_validity(
        topology_name: &str,
        validity: Validity,
    ) -> Result<Self, CredentialsError> {
        Ok(issue(topology_name, validity, &[validity])?.remove(0))
    }

    /// Builds credentials from PEM text and a token, checking that each part
    /// parses (the names in errors are the given labels).
    pub fn from_parts(
        token: Token,
        ca_pem: String,
        cert_pem: String,
        key_pem: String,
        labels: [&Path; 3],
    ) -> Result<Self, CredentialsError> {
        let credentials = Self {
            token,
            ca_pem,
            cert_pem,
            key_pem,
        };
        credentials.ca_certificates(labels[0])?;
        credentials.certificate_chain(labels[1])?;
        credentials.private_key(labels[2])?;
        Ok(credentials)
    }

    /// Takes the CA, certificate and key from configured files (copied into
    /// the topology's credentials instead of generating them) and a fresh
    /// token. The key file must be its owner's alone, as in a credentials
    /// directory.
    pub fn from_files(ca: &Path, cert: &Path, key: &Path) -> Result<Self, CredentialsError> {
        let read = |path: &Path| fs::read_to_string(path).map_err(io_err("read", path));
        Self::from_parts(
            new_token(),
            read(ca)?,
            read(cert)?,
            read_private(key)?,
            [ca, cert, key],
        )
    }

    pub fn token(&self) -> &Token {
        &self.token
    }

    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    pub fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    #[cfg(test)]
    pub(crate) fn key_pem(&self) -> &str {
        &self.key_pem
    }

    /// Writes the credentials directory `dir` (which must not exist): the
    /// directory 0700, each file 0600.
    pub fn save(&self, dir: &Path) -> Result<(), CredentialsError> {
        fs::DirBuilder::new()
            .mode(0o700)
            .create(dir)
            .map_err(io_err("create the credentials directory", dir))?;
        // The umask can only narrow the mode; this makes sure of the rest.
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
            .map_err(io_err("restrict", dir))?;
        for (name, content) in [
            (TOKEN_FILE, self.token.to_hex()),
            (CA_FILE, self.ca_pem.clone()),
            (CERT_FILE, self.cert_pem.clone()),
            (KEY_FILE, self.key_pem.clone()),
        ] {
            let path = dir.join(name);
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
                .map_err(io_err("create", &path))?;
            file.write_all(content.as_bytes())
                .map_err(io_err("write", &path))?;
            file.sync_all().map_err(io_err("sync", &path))?;
        }
        Ok(())
    }

    /// Reads the credentials directory `dir`, refusing a key or token file
    /// that group or others may read.
    pub fn load(dir: &Path) -> Result<Self, CredentialsError> {
        let token = load_token(dir)?;
        let key = dir.join(KEY_FILE);
        let key_pem = read_private(&key)?;
        let ca = dir.join(CA_FILE);
        let cert = dir.join(CERT_FILE);
        let ca_pem = fs::read_to_string(&ca).map_err(io_err("read", &ca))?;
        let cert_pem = fs::read_to_string(&cert).map_err(io_err("read", &cert))?;
        Self::from_parts(token, ca_pem, cert_pem, key_pem, [&ca, &cert, &key])
    }

    pub(crate) fn ca_certificates(
        &self,
        label: &Path,
    ) -> Result<Vec<CertificateDer<'static>>, CredentialsError> {
        certificates(&self.ca_pem, label)
    }

    pub(crate) fn certificate_chain(
        &self,
        label: &Path,
    ) -> Result<Vec<CertificateDer<'static>>, CredentialsError> {
        certificates(&self.cert_pem, label)
    }

    pub(crate) fn private_key(
        &self,
        label: &Path,
    ) -> Result<PrivateKeyDer<'static>, CredentialsError> {
        PrivateKeyDer::from_pem_slice(self.key_pem.as_bytes())
            .map_err(|e| invalid(label, format!("not a PEM private key: {e}")))
    }
}

fn certificates(pem: &str, label: &Path) -> Result<Vec<CertificateDer<'static>>, CredentialsError> {
    let certs = CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| invalid(label, format!("not PEM certificates: {e}")))?;
    if certs.is_empty() {
        return Err(invalid(label, "holds no PEM certificate"));
    }
    Ok(certs)
}

/// A fresh random token.
pub fn new_token() -> Token {
    let bytes: [u8; TOKEN_BYTES] = rand::random();
    Token::new(bytes.to_vec())
}

/// Reads only the token of the credentials directory `dir` (what the Unix
/// socket links need), refusing a file that group or others may read.
pub fn load_token(dir: &Path) -> Result<Token, CredentialsError> {
    let path = dir.join(TOKEN_FILE);
    let text = read_private(&path)?;
    Token::from_hex(&text).map_err(|e| invalid(&path, format!("not a token: {e}")))
}

/// Reads a file that must be its owner's alone.
fn read_private(path: &Path) -> Result<String, CredentialsError> {
    let meta = fs::metadata(path).map_err(io_err("read", path))?;
    let mode = meta.mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(CredentialsError::Exposed {
            path: path.to_owned(),
            mode,
        });
    }
    fs::read_to_string(path).map_err(io_err("read", path))
}

fn to_offset(time: SystemTime) -> time::OffsetDateTime {
    time::OffsetDateTime::from(time)
}

/// A CA for `topology` and one certificate per window in `leaves`, each with
/// its own key; the CA's key is dropped at the end. All share the token.
pub(crate) fn issue(
    topology: &str,
    ca_validity: Validity,
    leaves: &[Validity],
) -> Result<Vec<TopologyCredentials>, CredentialsError> {
    let fail = |e: rcgen::Error| CredentialsError::Generate {
        topology: topology.to_owned(),
        problem: e.to_string(),
    };
    let ca_key = KeyPair::generate().map_err(fail)?;
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(fail)?;
    let mut ca_name = DistinguishedName::new();
    ca_name.push(DnType::CommonName, format!("egret topology CA: {topology}"));
    ca_params.distinguished_name = ca_name;
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    ca_params.not_before = to_offset(ca_validity.not_before);
    ca_params.not_after = to_offset(ca_validity.not_after);
    let ca_cert = ca_params.self_signed(&ca_key).map_err(fail)?;
    let ca_pem = ca_cert.pem();
    let issuer = Issuer::new(ca_params, ca_key);
    let token = new_token();
    let mut out = Vec::new();
    for window in leaves {
        let key = KeyPair::generate().map_err(fail)?;
        let mut params = CertificateParams::new(vec![SERVER_NAME.to_owned()]).map_err(fail)?;
        let mut name = DistinguishedName::new();
        name.push(DnType::CommonName, format!("egret topology: {topology}"));
        params.distinguished_name = name;
        params.is_ca = IsCa::ExplicitNoCa;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ];
        params.use_authority_key_identifier_extension = true;
        params.not_before = to_offset(window.not_before);
        params.not_after = to_offset(window.not_after);
        let cert = params.signed_by(&key, &issuer).map_err(fail)?;
        out.push(TopologyCredentials {
            token: token.clone(),
            ca_pem: ca_pem.clone(),
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_then_load_round_trips_with_owner_only_modes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("credentials");
        let made = TopologyCredentials::generate("word count", DEFAULT_VALIDITY).unwrap();
        made.save(&dir).unwrap();
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        for name in [TOKEN_FILE, CA_FILE, CERT_FILE, KEY_FILE] {
            let mode = fs::metadata(dir.join(name)).unwrap().mode() & 0o777;
            assert_eq!(mode, 0o600, "{name}");
        }
        let loaded = TopologyCredentials::load(&dir).unwrap();
        assert_eq!(loaded.token(), made.token());
        assert_eq!(loaded.ca_pem(), made.ca_pem());
        assert_eq!(loaded.cert_pem(), made.cert_pem());
        assert_eq!(load_token(&dir).unwrap(), *made.token());
        assert_eq!(made.token().as_bytes().len(), 32);
        // Saving over an existing directory is refused (nothing is overwritten).
        assert!(made.save(&dir).is_err());
        assert!(!format!("{made:?}").contains("PRIVATE"));
    }

    #[test]
    fn an_exposed_key_or_token_is_refused_naming_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("credentials");
        TopologyCredentials::generate("t", DEFAULT_VALIDITY)
            .unwrap()
            .save(&dir)
            .unwrap();
        for name in [KEY_FILE, TOKEN_FILE] {
            let path = dir.join(name);
            fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
            let err = TopologyCredentials::load(&dir).unwrap_err();
            assert!(matches!(&err, CredentialsError::Exposed { path: p, .. } if *p == path));
            assert!(err.to_string().contains(name), "{err}");
            fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        }
        assert!(TopologyCredentials::load(&dir).is_ok());
    }

    #[test]
    fn missing_or_corrupt_files_are_named() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("credentials");
        TopologyCredentials::generate("t", DEFAULT_VALIDITY)
            .unwrap()
            .save(&dir)
            .unwrap();
        fs::write(dir.join(CERT_FILE), "not a certificate").unwrap();
        let err = TopologyCredentials::load(&dir).unwrap_err().to_string();
        assert!(
            err.contains(CERT_FILE) && err.contains("no PEM certificate"),
            "{err}"
        );
        fs::remove_file(dir.join(CA_FILE)).unwrap();
        let err = TopologyCredentials::load(&dir).unwrap_err().to_string();
        assert!(err.contains(CA_FILE), "{err}");
        fs::write(dir.join(TOKEN_FILE), "zz").unwrap();
        let err = load_token(&dir).unwrap_err().to_string();
        assert!(
            err.contains(TOKEN_FILE) && err.contains("not a token"),
            "{err}"
        );
    }
}
