//! Durable checkpoints of a topology's stateful tasks.
//!
//! Two layers, one responsibility each:
//! - [`ObjectStore`]: whole objects under `/`-separated keys (atomic put, get,
//!   list by prefix, delete), the shape of an object store; [`LocalDirStore`]
//!   implements it on a directory, crash-safe (temp file, fsync, rename, fsync
//!   of the directory). A shared filesystem or an object store implements the
//!   same trait for several hosts.
//! - [`Checkpoints`]: what the objects mean. Every file carries a header
//!   (topology, kind, checkpoint id, task, namespace, payload length) and a
//!   SHA-256 of all of it ([`format`]); a checkpoint is complete once its
//!   marker, written last, lists every task file it covers; the last N
//!   complete checkpoints are kept. A task file may be a delta on an older
//!   checkpoint's (its chain ends in a whole state), which is then kept too.
//!
//! Invariant: a partial, truncated or corrupt file is never read as complete.
//! Reading checks the length and the checksum; restoring falls back to the
//! previous complete checkpoint with a `warn` naming the refused file.

mod checkpoints;
pub mod format;
mod local;

pub use checkpoints::{ChainFile, CheckpointInfo, Checkpoints, Restored, TaskFile, TaskState};
pub use format::{FormatError, Kind, Record};
pub use local::LocalDirStore;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "checkpoint store key '{0}' is invalid (empty, absolute, or with an empty, '.' or '..' part)"
    )]
    BadKey(String),
    #[error("checkpoint store: {op} '{key}' failed: {source}")]
    Io {
        op: &'static str,
        key: String,
        #[source]
        source: std::io::Error,
    },
    #[error("checkpoint file '{key}' is refused: {source}")]
    Corrupt {
        key: String,
        #[source]
        source: FormatError,
    },
    #[error(
        "checkpoint file '{key}' is a delta whose base, checkpoint {base}, is not older than {txid}"
    )]
    BadBase { key: String, base: i64, txid: i64 },
    #[error("checkpoint file '{key}' is missing, and a delta needs it")]
    MissingBase { key: String },
    #[error("checkpoint marker '{key}' is unreadable: {reason}")]
    BadMarker { key: String, reason: String },
}

impl StoreError {
    /// A file refused for what it holds (checksum, header, a delta's chain),
    /// not a failure of the store: a restore passes it over for an older one.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            Self::Corrupt { .. } | Self::MissingBase { .. } | Self::BadBase { .. }
        )
    }
}

/// Whole objects under `/`-separated keys, as an object store holds them.
///
/// Contract: `put` is atomic (a reader sees the old object, the new one, or
/// none, never a part) and durable when it returns; `list` returns every key
/// under `prefix` (sorted), never an object still being written.
pub trait ObjectStore: Send + Sync {
    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError>;
    /// `None` when there is no such object.
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError>;
    fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError>;
    /// Deleting a missing object is not an error.
    fn delete(&self, key: &str) -> Result<(), StoreError>;
    /// Where the object lives, for log lines (a path, a URL).
    fn locate(&self, key: &str) -> String;
}

/// Checks a key: relative, `/`-separated, no empty, `.` or `..` part.
pub(crate) fn check_key(key: &str) -> Result<(), StoreError> {
    let bad = key.is_empty()
        || key.starts_with('/')
        || key
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..");
    if bad {
        Err(StoreError::BadKey(key.to_owned()))
    } else {
        Ok(())
    }
}
