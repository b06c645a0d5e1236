//! The checkpoint file: a header, the payload, and a SHA-256 of both.
//!
//! ```text
//! magic "EGRETCK1" (8) | kind u8 | txid i64 | [base i64] | task i32
//! | topology length u16 | topology | namespace length u16 | namespace
//! | payload length u64 | payload | sha256 of everything before (32)
//! ```
//! Integers are little-endian. A delta (its payload holds what changed since
//! the state of checkpoint `base`) has the kind's high bit set and `base`
//! after `txid`; a whole state has neither. A file whose length is not exactly what its
//! header says, or whose checksum does not match, is refused.

use sha2::{Digest, Sha256};

const MAGIC: &[u8; 8] = b"EGRETCK1";
const CHECKSUM_BYTES: usize = 32;
/// Set in the kind byte of a delta, whose header carries its base.
const DELTA_BIT: u8 = 0x80;

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A task's state staged at PREPARE of checkpoint `txid`.
    Prepared = 1,
    /// A task's state committed at COMMIT of checkpoint `txid`.
    Committed = 2,
    /// A task's own state outside any checkpoint (`commit()` without a txid;
    /// the checkpoint spout's transaction); `txid` is its sequence number.
    Local = 3,
    /// The completion marker of checkpoint `txid` (task -1).
    Marker = 4,
}

impl Kind {
    fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            1 => Self::Prepared,
            2 => Self::Committed,
            3 => Self::Local,
            4 => Self::Marker,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub kind: Kind,
    pub topology: String,
    pub txid: i64,
    /// A delta: the checkpoint whose state of the same task and namespace
    /// the payload applies to; `None`: the payload is the whole state.
    pub base: Option<i64>,
    pub task: i32,
    pub namespace: String,
    pub payload: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error("not a checkpoint file (bad magic)")]
    BadMagic,
    #[error("truncated: {have} bytes, the header needs at least {need}")]
    Truncated { have: usize, need: usize },
    #[error("length mismatch: {have} bytes, the header says {want}")]
    Length { have: usize, want: usize },
    #[error("checksum mismatch (sha256 {stored} stored, {actual} computed)")]
    Checksum { stored: String, actual: String },
    #[error("unknown kind {0}")]
    UnknownKind(u8),
    #[error("header field {0} is not UTF-8")]
    NotUtf8(&'static str),
    #[error("{field} too long ({len} bytes)")]
    TooLong { field: &'static str, len: usize },
    #[error("header says {field} {found}, expected {expected}")]
    Unexpected {
        field: &'static str,
        found: String,
        expected: String,
    },
}

impl Record {
    pub fn encode(&self) -> Result<Vec<u8>, FormatError> {
        let short = |field, s: &str| {
            u16::try_from(s.len()).map_err(|_| FormatError::TooLong {
                field,
                len: s.len(),
            })
        };
        let topology_len = short("topology", &self.topology)?;
        let namespace_len = short("namespace", &self.namespace)?;
        let mut out = Vec::with_capacity(
            8 + 1
                + 8
                + 4
                + 2
                + self.topology.len()
                + 2
                + self.namespace.len()
                + 8
                + self.payload.len()
                + CHECKSUM_BYTES,
        );
        out.extend_from_slice(MAGIC);
        match self.base {
            None => {
                out.push(self.kind as u8);
                out.extend_from_slice(&self.txid.to_le_bytes());
            }
            Some(base) => {
                out.push(self.kind as u8 | DELTA_BIT);
                out.extend_from_slice(&self.txid.to_le_bytes());
                out.extend_from_slice(&base.to_le_bytes());
            }
        }
        out.extend_from_slice(&self.task.to_le_bytes());
        out.extend_from_slice(&topology_len.to_le_bytes());
        out.extend_from_slice(self.topology.as_bytes());
        out.extend_from_slice(&namespace_len.to_le_bytes());
        out.extend_from_slice(self.namespace.as_bytes());
        out.extend_from_slice(&(self.payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.payload);
        let digest = Sha256::digest(&out);
        out.extend_from_slice(&digest);
        Ok(out)
    }

    /// Decodes and verifies a whole file.
    pub fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8)? != MAGIC {
            return Err(FormatError::BadMagic);
        }
        let kind_byte = r.take(1)?[0];
        let txid = i64::from_le_bytes(r.array()?);
        let base = if kind_byte & DELTA_BIT != 0 {
            Some(i64::from_le_bytes(r.array()?))
        } else {
            None
        };
        let task = i32::from_le_bytes(r.array()?);
        let topology_len = u16::from_le_bytes(r.array()?) as usize;
        let topology = r.string(topology_len, "topology")?;
        let namespace_len = u16::from_le_bytes(r.array()?) as usize;
        let namespace = r.string(namespace_len, "namespace")?;
        let payload_len = u64::from_le_bytes(r.array()?);
        let want = usize::try_from(payload_len)
            .ok()
            .and_then(|p| p.checked_add(r.at)?.checked_add(CHECKSUM_BYTES))
            .unwrap_or(usize::MAX);
        if bytes.len() != want {
            return Err(FormatError::Length {
                have: bytes.len(),
                want,
            });
        }
        let body = bytes.len() - CHECKSUM_BYTES;
        let actual = Sha256::digest(&bytes[..body]);
        let stored = &bytes[body..];
        if actual.as_slice() != stored {
            return Err(FormatError::Checksum {
                stored: hex::encode(stored),
                actual: hex::encode(actual),
            });
        }
        let kind =
            Kind::from_u8(kind_byte & !DELTA_BIT).ok_or(FormatError::UnknownKind(kind_byte))?;
        Ok(Self {
            kind,
            topology,
            txid,
            base,
            task,
            namespace,
            payload: bytes[r.at..body].to_vec(),
        })
    }

    /// Refuses a record whose header is not what its key promised.
    pub fn expect(
        &self,
        kind: Kind,
        topology: &str,
        txid: Option<i64>,
        task: i32,
        namespace: &str,
    ) -> Result<(), FormatError> {
        let check = |field, found: String, expected: String| {
            if found == expected {
                Ok(())
            } else {
                Err(FormatError::Unexpected {
                    field,
                    found,
                    expected,
                })
            }
        };
        check("kind", format!("{:?}", self.kind), format!("{kind:?}"))?;
        check("topology", self.topology.clone(), topology.to_owned())?;
        if let Some(txid) = txid {
            check("txid", self.txid.to_string(), txid.to_string())?;
        }
        check("task", self.task.to_string(), task.to_string())?;
        check("namespace", self.namespace.clone(), namespace.to_owned())
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        let need = self.at + n + CHECKSUM_BYTES;
        if self.bytes.len() < need {
            return Err(FormatError::Truncated {
                have: self.bytes.len(),
                need,
            });
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], FormatError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn string(&mut self, n: usize, field: &'static str) -> Result<String, FormatError> {
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| FormatError::NotUtf8(field))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    fn record() -> Record {
        Record {
            kind: Kind::Committed,
            topology: "wc".into(),
            txid: 7,
            base: None,
            task: 3,
            namespace: "count-3".into(),
            payload: b"some state bytes".to_vec(),
        }
    }

    #[test]
    fn round_trip() {
        let bytes = record().encode().unwrap();
        assert_eq!(Record::decode(&bytes).unwrap(), record());
        record()
            .expect(Kind::Committed, "wc", Some(7), 3, "count-3")
            .unwrap();
        assert!(
            record()
                .expect(Kind::Committed, "wc", Some(8), 3, "count-3")
                .is_err()
        );
    }

    fn delta() -> Record {
        Record {
            base: Some(5),
            ..record()
        }
    }

    #[test]
    fn a_delta_round_trips_with_its_base() {
        let bytes = delta().encode().unwrap();
        assert_eq!(bytes.len(), record().encode().unwrap().len() + 8);
        assert_eq!(Record::decode(&bytes).unwrap(), delta());
        assert_eq!(Record::decode(&bytes).unwrap().kind, Kind::Committed);
    }

    #[test]
    fn every_truncation_is_refused() {
        for bytes in [record().encode().unwrap(), delta().encode().unwrap()] {
            every_truncation_of(&bytes);
        }
    }

    fn every_truncation_of(bytes: &[u8]) {
        let bytes = bytes.to_vec();
        for len in 0..bytes.len() {
            assert!(Record::decode(&bytes[..len]).is_err(), "{len} bytes");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            Record::decode(&longer),
            Err(FormatError::Length { .. })
        ));
    }

    #[test]
    fn every_flipped_byte_is_refused() {
        let bytes = delta().encode().unwrap();
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(Record::decode(&bad).is_err(), "byte {at} flipped");
        }
    }
}
