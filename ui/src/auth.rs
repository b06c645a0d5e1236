//! Credentials of the mutating calls (kill, activate, deactivate, rebalance).
//!
//! A token is read once, from a file (never from an argument), and only its
//! SHA-256 digest is kept. A request carries it as `Authorization: Bearer
//! TOKEN`; the digests are compared in constant time. Without credentials
//! every mutating call is refused (403); with them, a request without the
//! right token is refused (401).

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::UiError;

/// The shortest token accepted (a guessable token is refused at start).
pub const MIN_TOKEN_LEN: usize = 16;

/// Where `egret ui` reads the path of the credentials file from when
/// `--credentials-file` is not given.
pub const CREDENTIALS_ENV: &str = "EGRET_UI_CREDENTIALS_FILE";

/// What a refused mutating call says when the server has no credentials.
pub const DISABLED_MESSAGE: &str = "mutating calls (kill, activate, deactivate, rebalance) are disabled: start `egret ui` with --credentials-file FILE (or EGRET_UI_CREDENTIALS_FILE=FILE), FILE holding a token of at least 16 characters, and send it as 'Authorization: Bearer TOKEN'";

#[derive(Clone)]
pub struct Credentials {
    digest: [u8; 32],
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Credentials(<token digest>)")
    }
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

impl Credentials {
    /// A token given directly (tests); the same rules as a file's.
    pub fn from_token(token: &str) -> Result<Self, UiError> {
        let token = token.trim();
        if token.len() < MIN_TOKEN_LEN {
            return Err(UiError::Credentials(format!(
                "the token is {} characters long; at least {MIN_TOKEN_LEN} are needed",
                token.len()
            )));
        }
        if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(UiError::Credentials(
                "the token must be one line without spaces".to_owned(),
            ));
        }
        Ok(Self {
            digest: digest(token.as_bytes()),
        })
    }

    /// Reads the token from `path`: one line, surrounding whitespace ignored.
    pub fn from_file(path: &Path) -> Result<Self, UiError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            UiError::Credentials(format!(
                "cannot read the credentials file {}: {e}",
                path.display()
            ))
        })?;
        Self::from_token(&text).map_err(|e| match e {
            UiError::Credentials(why) => {
                UiError::Credentials(format!("credentials file {}: {why}", path.display()))
            }
            other => other,
        })
    }

    /// Whether `header` (the value of `Authorization`) carries the token.
    pub fn accepts(&self, header: Option<&str>) -> bool {
        let Some(presented) = header.and_then(|h| h.strip_prefix("Bearer ")) else {
            return false;
        };
        let presented = digest(presented.trim().as_bytes());
        // Constant time: every byte is compared whatever the first difference.
        presented
            .iter()
            .zip(self.digest.iter())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_only_the_bearer_token() {
        let c = Credentials::from_token("0123456789abcdef-token\n").unwrap();
        assert!(c.accepts(Some("Bearer 0123456789abcdef-token")));
        assert!(!c.accepts(Some("Bearer 0123456789abcdef-tokeN")));
        assert!(!c.accepts(Some("0123456789abcdef-token")));
        assert!(!c.accepts(Some("Basic 0123456789abcdef-token")));
        assert!(!c.accepts(None));
    }

    #[test]
    fn refuses_short_or_multi_word_tokens() {
        let short = Credentials::from_token("short").unwrap_err().to_string();
        assert!(short.contains("at least 16"), "{short}");
        let spaced = Credentials::from_token("0123456789 abcdefgh")
            .unwrap_err()
            .to_string();
        assert!(spaced.contains("one line"), "{spaced}");
    }

    #[test]
    fn reads_a_file_and_names_it_in_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        let err = Credentials::from_file(&missing).unwrap_err().to_string();
        assert!(err.contains("nope"), "{err}");
        let file = dir.path().join("token");
        std::fs::write(&file, "abcdefghijklmnopqrstuvwxyz\n").unwrap();
        let c = Credentials::from_file(&file).unwrap();
        assert!(c.accepts(Some("Bearer abcdefghijklmnopqrstuvwxyz")));
        assert!(!format!("{c:?}").contains("abcdefgh"));
    }
}
