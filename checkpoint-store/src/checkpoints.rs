//! The checkpoints of one topology on an [`ObjectStore`].
//!
//! Keys (under `<topology>/`):
//! - `ckpt-<txid>/prepared/t<task>-<namespace>`: a task's state staged at PREPARE;
//! - `ckpt-<txid>/committed/t<task>-<namespace>`: a task's state at COMMIT;
//! - `ckpt-<txid>/COMPLETE`: the marker, written last, once every stateful
//!   task has committed `txid`; it lists the committed files with their
//!   lengths and checksums (and, for a delta, the files of its chain);
//! - `local/t<task>-<namespace>/<seq>`: a task's state outside any checkpoint
//!   (the last two kept).
//!
//! `<txid>` and `<seq>` are zero-padded to 20 digits; `<namespace>` keeps
//! `[A-Za-z0-9_-]` and writes any other byte as `%XX`.
//!
//! A task file is a whole state or a delta (`egret.checkpoint.full.every`
//! above 1): what changed since the state of an older checkpoint, its base,
//! whose committed file of the same task may be a delta in turn. A delta's
//! chain runs back through its bases to a whole state; restoring returns the
//! whole state and the deltas in order, and retention keeps every file a kept
//! checkpoint's chain needs.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tracing::{info, warn};

use crate::format::{Kind, Record};
use crate::{ObjectStore, StoreError};

const MARKER: &str = "COMPLETE";
const LOCAL_KEPT: usize = 2;

/// One task's state in a checkpoint (or its own, for `Local`): `data`, the
/// whole state at the start of its chain, then `deltas` applied in order
/// (none: `data` is the state of `txid`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskState {
    pub txid: i64,
    pub data: Vec<u8>,
    pub deltas: Vec<Vec<u8>>,
}

impl TaskState {
    fn whole(txid: i64, data: Vec<u8>) -> Self {
        Self {
            txid,
            data,
            deltas: Vec::new(),
        }
    }
}

/// What a task restarts from: the state of the newest complete checkpoint
/// that has a readable file for it, and a newer prepared state if there is
/// one (a checkpoint prepared, maybe committed, but not yet complete).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Restored {
    pub committed: Option<TaskState>,
    pub prepared: Option<TaskState>,
}

/// A task file a marker covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskFile {
    pub task: i32,
    pub namespace: String,
    pub key: String,
    pub bytes: u64,
    pub sha256: String,
    /// A delta: the files of its chain, the whole state first, then each
    /// delta up to this file's base (empty: this file is a whole state).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<ChainFile>,
}

impl TaskFile {
    /// The checkpoint this delta applies to; `None`: a whole state.
    pub fn base(&self) -> Option<i64> {
        self.chain.last().map(|c| c.txid)
    }
}

/// A committed file a delta's chain needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainFile {
    pub txid: i64,
    pub key: String,
    pub bytes: u64,
    pub sha256: String,
}

/// A complete checkpoint, as its marker describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointInfo {
    pub txid: i64,
    /// When the marker was written, milliseconds since the Unix epoch.
    pub time_ms: u64,
    pub tasks: Vec<TaskFile>,
}

impl CheckpointInfo {
    /// The bytes of the task files (markers excluded).
    pub fn total_bytes(&self) -> u64 {
        self.tasks.iter().map(|t| t.bytes).sum()
    }
}

#[derive(Clone)]
pub struct Checkpoints {
    store: Arc<dyn ObjectStore>,
    topology: String,
    retain: usize,
}

fn encode_namespace(namespace: &str) -> String {
    let mut out = String::with_capacity(namespace.len());
    for b in namespace.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

impl Checkpoints {
    /// The checkpoints of `topology` in `store`, keeping `retain` (at least 1)
    /// complete ones.
    pub fn new(store: Arc<dyn ObjectStore>, topology: &str, retain: u32) -> Self {
        Self {
            store,
            topology: topology.to_owned(),
            retain: usize::try_from(retain.max(1)).unwrap_or(usize::MAX),
        }
    }

    fn checkpoint_prefix(&self, txid: i64) -> String {
        format!("{}/ckpt-{txid:020}", self.topology)
    }

    fn task_key(&self, kind: Kind, txid: i64, task: i32, namespace: &str) -> String {
        let dir = if kind == Kind::Prepared {
            "prepared"
        } else {
            "committed"
        };
        format!(
            "{}/{dir}/t{task}-{}",
            self.checkpoint_prefix(txid),
            encode_namespace(namespace)
        )
    }

    fn local_prefix(&self, task: i32, namespace: &str) -> String {
        format!(
            "{}/local/t{task}-{}",
            self.topology,
            encode_namespace(namespace)
        )
    }

    fn record(&self, kind: Kind, txid: i64, task: i32, namespace: &str, data: &[u8]) -> Record {
        Record {
            kind,
            topology: self.topology.clone(),
            txid,
            base: None,
            task,
            namespace: namespace.to_owned(),
            payload: data.to_vec(),
        }
    }

    fn put_record(&self, key: &str, record: &Record) -> Result<u64, StoreError> {
        let bytes = record.encode().map_err(|source| StoreError::Corrupt {
            key: key.to_owned(),
            source,
        })?;
        self.store.put(key, &bytes)?;
        Ok(bytes.len() as u64)
    }

    /// Reads and verifies one file; `Ok(None)` when missing.
    fn read_record(
        &self,
        key: &str,
        kind: Kind,
        txid: Option<i64>,
        task: i32,
        namespace: &str,
    ) -> Result<Option<(Record, Vec<u8>)>, StoreError> {
        let Some(bytes) = self.store.get(key)? else {
            return Ok(None);
        };
        let corrupt = |source| StoreError::Corrupt {
            key: self.store.locate(key),
            source,
        };
        let record = Record::decode(&bytes).map_err(corrupt)?;
        record
            .expect(kind, &self.topology, txid, task, namespace)
            .map_err(corrupt)?;
        Ok(Some((record, bytes)))
    }

    /// Stores a task's state staged at PREPARE of `txid`: the whole state,
    /// or with `base` what changed since its committed state of checkpoint `base`.
    pub fn save_prepared(
        &self,
        task: i32,
        namespace: &str,
        txid: i64,
        base: Option<i64>,
        data: &[u8],
    ) -> Result<(), StoreError> {
        self.save(Kind::Prepared, task, namespace, txid, base, data)
    }

    /// Stores a task's state committed at COMMIT of `txid` (`base` as for
    /// [`Self::save_prepared`]).
    pub fn save_committed(
        &self,
        task: i32,
        namespace: &str,
        txid: i64,
        base: Option<i64>,
        data: &[u8],
    ) -> Result<(), StoreError> {
        self.save(Kind::Committed, task, namespace, txid, base, data)
    }

    /// Stores a task's `kind` state of `txid` under its key.
    fn save(
        &self,
        kind: Kind,
        task: i32,
        namespace: &str,
        txid: i64,
        base: Option<i64>,
        data: &[u8],
    ) -> Result<(), StoreError> {
        let key = self.task_key(kind, txid, task, namespace);
        if let Some(base) = base.filter(|b| *b >= txid) {
            return Err(StoreError::BadBase { key, base, txid });
        }
        let mut record = self.record(kind, txid, task, namespace, data);
        record.base = base;
        self.put_record(&key, &record).map(drop)
    }

    /// The committed files a delta on `base` needs, the whole state first,
    /// each read and verified, with its payload.
    fn chain_of(
        &self,
        task: i32,
        namespace: &str,
        mut base: Option<i64>,
    ) -> Result<Vec<(ChainFile, Vec<u8>)>, StoreError> {
        let mut chain = Vec::new();
        let mut above = i64::MAX;
        while let Some(txid) = base {
            let key = self.task_key(Kind::Committed, txid, task, namespace);
            if txid >= above {
                return Err(StoreError::BadBase {
                    key,
                    base: txid,
                    txid: above,
                });
            }
            let Some((record, bytes)) =
                self.read_record(&key, Kind::Committed, Some(txid), task, namespace)?
            else {
                return Err(StoreError::MissingBase {
                    key: self.store.locate(&key),
                });
            };
            chain.push((
                ChainFile {
                    txid,
                    key,
                    bytes: bytes.len() as u64,
                    sha256: sha256_hex(&bytes),
                },
                record.payload,
            ));
            above = txid;
            base = record.base;
        }
        chain.reverse();
        Ok(chain)
    }

    /// A task's state from a file's record and the chain its base needs.
    fn state_of(txid: i64, record: Record, chain: Vec<(ChainFile, Vec<u8>)>) -> TaskState {
        let mut payloads = chain.into_iter().map(|(_, payload)| payload);
        match payloads.next() {
            None => TaskState::whole(txid, record.payload),
            Some(data) => {
                let mut deltas: Vec<Vec<u8>> = payloads.collect();
                deltas.push(record.payload);
                TaskState { txid, data, deltas }
            }
        }
    }

    /// Writes the marker of `txid` listing its committed files (every stateful
    /// task has committed it: the caller knows), then drops what is older than
    /// the last `retain` complete checkpoints. `None` when `txid` has no
    /// committed file (no task keeps its state here).
    pub fn complete(&self, txid: i64, time_ms: u64) -> Result<Option<CheckpointInfo>, StoreError> {
        let prefix = format!("{}/committed/", self.checkpoint_prefix(txid));
        let mut tasks = Vec::new();
        for key in self.store.list(&prefix)? {
            let Some(bytes) = self.store.get(&key)? else {
                continue;
            };
            let record = Record::decode(&bytes).map_err(|source| StoreError::Corrupt {
                key: self.store.locate(&key),
                source,
            })?;
            let chain = self
                .chain_of(record.task, &record.namespace, record.base)?
                .into_iter()
                .map(|(file, _)| file)
                .collect();
            tasks.push(TaskFile {
                task: record.task,
                namespace: record.namespace,
                key,
                bytes: bytes.len() as u64,
                sha256: sha256_hex(&bytes),
                chain,
            });
        }
        if tasks.is_empty() {
            return Ok(None);
        }
        let info = CheckpointInfo {
            txid,
            time_ms,
            tasks,
        };
        let payload = serde_json::to_vec(&info).map_err(|e| StoreError::BadMarker {
            key: prefix.clone(),
            reason: e.to_string(),
        })?;
        let key = format!("{}/{MARKER}", self.checkpoint_prefix(txid));
        self.put_record(&key, &self.record(Kind::Marker, txid, -1, "", &payload))?;
        self.prune()?;
        Ok(Some(info))
    }

    /// The txids that have a checkpoint directory (complete or not), ascending.
    fn txids(&self) -> Result<Vec<i64>, StoreError> {
        let prefix = format!("{}/", self.topology);
        let mut out: Vec<i64> = self
            .store
            .list(&prefix)?
            .iter()
            .filter_map(|key| {
                let rest = key.strip_prefix(&prefix)?.strip_prefix("ckpt-")?;
                rest.split('/').next()?.parse().ok()
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    fn read_marker(&self, txid: i64) -> Result<Option<CheckpointInfo>, StoreError> {
        let key = format!("{}/{MARKER}", self.checkpoint_prefix(txid));
        let Some((record, _)) = self.read_record(&key, Kind::Marker, Some(txid), -1, "")? else {
            return Ok(None);
        };
        let info: CheckpointInfo =
            serde_json::from_slice(&record.payload).map_err(|e| StoreError::BadMarker {
                key: self.store.locate(&key),
                reason: e.to_string(),
            })?;
        Ok(Some(info))
    }

    /// The complete checkpoints, newest first. A marker that cannot be read is
    /// skipped with a warning naming it.
    pub fn list_complete(&self) -> Result<Vec<CheckpointInfo>, StoreError> {
        let mut out = Vec::new();
        for txid in self.txids()?.into_iter().rev() {
            match self.read_marker(txid) {
                Ok(Some(info)) => out.push(info),
                Ok(None) => {}
                Err(err @ (StoreError::Corrupt { .. } | StoreError::BadMarker { .. })) => {
                    warn!(error = %err, "Skipping a checkpoint whose marker is refused.");
                }
                Err(err) => return Err(err),
            }
        }
        Ok(out)
    }

    /// Deletes every checkpoint older than the oldest of the last `retain`
    /// complete ones and the oldest file their chains need.
    fn prune(&self) -> Result<(), StoreError> {
        let complete = self.list_complete()?;
        let Some(oldest_kept) = complete.get(self.retain - 1).map(|c| c.txid) else {
            return Ok(());
        };
        let oldest_kept = complete[..self.retain]
            .iter()
            .flat_map(|c| c.tasks.iter())
            .filter_map(|t| t.chain.first().map(|c| c.txid))
            .fold(oldest_kept, i64::min);
        for txid in self.txids()? {
            if txid >= oldest_kept {
                break;
            }
            for key in self.store.list(&self.checkpoint_prefix(txid))? {
                self.store.delete(&key)?;
            }
            info!(topology = %self.topology, txid, "Dropped an old checkpoint (retention).");
        }
        Ok(())
    }

    /// What `task` restarts from (see [`Restored`]). A refused file (or a
    /// delta whose chain has a refused or missing file) is passed over with a
    /// warning naming it, for the previous checkpoint's.
    pub fn restore(&self, task: i32, namespace: &str) -> Result<Restored, StoreError> {
        let mut restored = Restored::default();
        for info in self.list_complete()? {
            let Some(file) = info
                .tasks
                .iter()
                .find(|t| t.task == task && t.namespace == namespace)
            else {
                continue;
            };
            match self.read_listed(file, info.txid, task, namespace) {
                Ok(Some(state)) => {
                    restored.committed = Some(state);
                    break;
                }
                Ok(None) => {}
                Err(err) if err.is_refusal() => {
                    warn!(file = %self.store.locate(&file.key), txid = info.txid, error = %err,
                        "Checkpoint file refused by its checksum or header, or its chain is; using the previous checkpoint.");
                }
                Err(err) => return Err(err),
            }
        }
        let floor = restored.committed.as_ref().map_or(i64::MIN, |c| c.txid);
        for txid in self.txids()?.into_iter().rev() {
            if txid <= floor {
                break;
            }
            let key = self.task_key(Kind::Prepared, txid, task, namespace);
            let read = self
                .read_record(&key, Kind::Prepared, Some(txid), task, namespace)
                .and_then(|found| {
                    found
                        .map(|(record, _)| {
                            let chain = self.chain_of(task, namespace, record.base)?;
                            Ok(Self::state_of(txid, record, chain))
                        })
                        .transpose()
                });
            match read {
                Ok(Some(state)) => {
                    restored.prepared = Some(state);
                    break;
                }
                Ok(None) => {}
                Err(err) if err.is_refusal() => {
                    warn!(file = %self.store.locate(&key), txid, error = %err,
                        "Prepared checkpoint file refused by its checksum or header, or its chain is; passing it over.");
                }
                Err(err) => return Err(err),
            }
        }
        Ok(restored)
    }

    /// The state a marker's task file holds, each file of its chain checked
    /// against what the marker lists; `Ok(None)` (after a warning) when a
    /// file is missing or is not the one listed.
    fn read_listed(
        &self,
        file: &TaskFile,
        txid: i64,
        task: i32,
        namespace: &str,
    ) -> Result<Option<TaskState>, StoreError> {
        let Some((record, bytes)) =
            self.read_record(&file.key, Kind::Committed, Some(txid), task, namespace)?
        else {
            warn!(file = %self.store.locate(&file.key), txid,
                "Checkpoint file missing though its checkpoint's marker lists it; using the previous checkpoint.");
            return Ok(None);
        };
        if bytes.len() as u64 != file.bytes || sha256_hex(&bytes) != file.sha256 {
            warn!(file = %self.store.locate(&file.key), txid,
                "Checkpoint file refused: it is not the file its checkpoint's marker lists; using the previous checkpoint.");
            return Ok(None);
        }
        let chain = self.chain_of(task, namespace, record.base)?;
        let read: Vec<&ChainFile> = chain.iter().map(|(f, _)| f).collect();
        if read.len() != file.chain.len() || read.iter().zip(&file.chain).any(|(a, b)| *a != b) {
            warn!(file = %self.store.locate(&file.key), txid,
                "Checkpoint file refused: its chain of deltas is not the one its checkpoint's marker lists; using the previous checkpoint.");
            return Ok(None);
        }
        Ok(Some(Self::state_of(txid, record, chain)))
    }

    fn local_seqs(&self, prefix: &str) -> Result<Vec<(i64, String)>, StoreError> {
        let mut out: Vec<(i64, String)> = self
            .store
            .list(prefix)?
            .into_iter()
            .filter_map(|key| {
                let seq = key.rsplit('/').next()?.parse().ok()?;
                Some((seq, key))
            })
            .collect();
        out.sort();
        Ok(out)
    }

    /// Stores a task's own state (outside any checkpoint); the last two are kept.
    pub fn save_local(&self, task: i32, namespace: &str, data: &[u8]) -> Result<(), StoreError> {
        let prefix = self.local_prefix(task, namespace);
        let seqs = self.local_seqs(&prefix)?;
        let seq = seqs.last().map_or(0, |(s, _)| s + 1);
        let key = format!("{prefix}/{seq:020}");
        self.put_record(&key, &self.record(Kind::Local, seq, task, namespace, data))?;
        let excess = (seqs.len() + 1).saturating_sub(LOCAL_KEPT);
        for (_, old) in seqs.iter().take(excess) {
            self.store.delete(old)?;
        }
        Ok(())
    }

    /// A task's newest readable own state; a refused one is passed over with a
    /// warning naming it.
    pub fn restore_local(
        &self,
        task: i32,
        namespace: &str,
    ) -> Result<Option<TaskState>, StoreError> {
        let prefix = self.local_prefix(task, namespace);
        for (seq, key) in self.local_seqs(&prefix)?.into_iter().rev() {
            match self.read_record(&key, Kind::Local, Some(seq), task, namespace) {
                Ok(Some((record, _))) => {
                    return Ok(Some(TaskState::whole(seq, record.payload)));
                }
                Ok(None) => {}
                Err(err @ StoreError::Corrupt { .. }) => {
                    warn!(file = %self.store.locate(&key), error = %err,
                        "Task state file refused by its checksum or header; using the previous one.");
                }
                Err(err) => return Err(err),
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;
    use crate::LocalDirStore;
    use std::fs;
    use std::path::Path;

    fn checkpoints(dir: &Path, retain: u32) -> Checkpoints {
        Checkpoints::new(Arc::new(LocalDirStore::new(dir)), "topo", retain)
    }

    /// Two tasks commit `txid` (their state: the txid's bytes), then it completes.
    fn commit(c: &Checkpoints, txid: i64) {
        for task in [3, 4] {
            let ns = format!("sum-{task}");
            let data = format!("{task}@{txid}");
            c.save_prepared(task, &ns, txid, None, data.as_bytes())
                .unwrap();
            c.save_committed(task, &ns, txid, None, data.as_bytes())
                .unwrap();
        }
        c.complete(txid, 1000 + txid as u64).unwrap().unwrap();
    }

    fn committed_file(dir: &Path, txid: i64, task: i32) -> std::path::PathBuf {
        dir.join(format!("topo/ckpt-{txid:020}/committed/t{task}-sum-{task}"))
    }

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let c = checkpoints(dir.path(), 3);
        assert_eq!(c.restore(3, "sum-3").unwrap(), Restored::default());
        commit(&c, 0);
        commit(&c, 1);
        let restored = c.restore(3, "sum-3").unwrap();
        assert_eq!(
            restored.committed,
            Some(TaskState::whole(1, b"3@1".to_vec()))
        );
        assert_eq!(restored.prepared, None);
        let listed = c.list_complete().unwrap();
        assert_eq!(listed.iter().map(|i| i.txid).collect::<Vec<_>>(), [1, 0]);
        assert_eq!(listed[0].tasks.len(), 2);
        assert_eq!(listed[0].time_ms, 1001);
        assert!(listed[0].total_bytes() > 6);
        // Another namespace of the same task is another state.
        assert_eq!(c.restore(3, "other").unwrap(), Restored::default());
    }

    #[test]
    fn a_checkpoint_without_its_marker_is_not_complete() {
        let dir = tempfile::tempdir().unwrap();
        let c = checkpoints(dir.path(), 3);
        commit(&c, 0);
        // Checkpoint 1: prepared by both, committed by task 3 only, no marker.
        c.save_prepared(3, "sum-3", 1, None, b"3@1").unwrap();
        c.save_prepared(4, "sum-4", 1, None, b"4@1").unwrap();
        c.save_committed(3, "sum-3", 1, None, b"3@1").unwrap();
        let restored = c.restore(3, "sum-3").unwrap();
        assert_eq!(restored.committed.unwrap().txid, 0);
        assert_eq!(
            restored.prepared,
            Some(TaskState::whole(1, b"3@1".to_vec()))
        );
        assert_eq!(c.list_complete().unwrap().len(), 1);
    }

    #[test]
    fn truncated_file_is_refused_and_the_previous_checkpoint_used() {
        let dir = tempfile::tempdir().unwrap();
        let c = checkpoints(dir.path(), 3);
        commit(&c, 0);
        commit(&c, 1);
        let file = committed_file(dir.path(), 1, 3);
        let bytes = fs::read(&file).unwrap();
        fs::write(&file, &bytes[..bytes.len() - 5]).unwrap();
        let restored = c.restore(3, "sum-3").unwrap();
        assert_eq!(
            restored.committed,
            Some(TaskState::whole(0, b"3@0".to_vec()))
        );
        // The other task's file of checkpoint 1 is intact.
        assert_eq!(c.restore(4, "sum-4").unwrap().committed.unwrap().txid, 1);
    }

    #[test]
    fn flipped_byte_is_refused_and_the_previous_checkpoint_used() {
        let dir = tempfile::tempdir().unwrap();
        let c = checkpoints(dir.path(), 3);
        commit(&c, 0);
        commit(&c, 1);
        commit(&c, 2);
        for txid in [2, 1] {
            let file = committed_file(dir.path(), txid, 4);
            let mut bytes = fs::read(&file).unwrap();
            let at = bytes.len() - 40; // in the payload
            bytes[at] ^= 1;
            fs::write(&file, &bytes).unwrap();
        }
        assert_eq!(
            c.restore(4, "sum-4").unwrap().committed,
            Some(TaskState::whole(0, b"4@0".to_vec()))
        );
        // A corrupt marker: that checkpoint is not complete any more.
        let marker = dir.path().join(format!("topo/ckpt-{:020}/COMPLETE", 2));
        let mut bytes = fs::read(&marker).unwrap();
        bytes[20] ^= 1;
        fs::write(&marker, &bytes).unwrap();
        assert_eq!(
            c.list_complete()
                .unwrap()
                .iter()
                .map(|i| i.txid)
                .collect::<Vec<_>>(),
            [1, 0]
        );
        assert_eq!(c.restore(3, "sum-3").unwrap().committed.unwrap().txid, 1);
    }

    #[test]
    fn a_file_swapped_for_another_valid_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let c = checkpoints(dir.path(), 3);
        commit(&c, 0);
        commit(&c, 1);
        // A valid file of the same task and txid, but not the one the marker lists.
        c.save_committed(3, "sum-3", 1, None, b"rewritten").unwrap();
        assert_eq!(c.restore(3, "sum-3").unwrap().committed.unwrap().txid, 0);
    }

    #[test]
    fn retention_keeps_the_last_complete_checkpoints() {
        let dir = tempfile::tempdir().unwrap();
        let c = checkpoints(dir.path(), 2);
        for txid in 0..5 {
            commit(&c, txid);
        }
        // An incomplete newer checkpoint stays.
        c.save_prepared(3, "sum-3", 5, None, b"3@5").unwrap();
        commit(&c, 6);
        let listed: Vec<i64> = c.list_complete().unwrap().iter().map(|i| i.txid).collect();
        assert_eq!(listed, [6, 4]);
        assert_eq!(c.txids().unwrap(), [4, 5, 6]);
        assert!(!dir.path().join(format!("topo/ckpt-{:020}", 3)).exists());
    }

    /// Task 3 commits `txid` as a delta on `base` (its payload: the txid), then it completes.
    fn commit_delta(c: &Checkpoints, txid: i64, base: Option<i64>) {
        let data = format!("d{txid}");
        c.save_prepared(3, "sum-3", txid, base, data.as_bytes())
            .unwrap();
        c.save_committed(3, "sum-3", txid, base, data.as_bytes())
            .unwrap();
        c.complete(txid, 1000).unwrap().unwrap();
    }

    fn delta_state(txid: i64, chain: &[i64]) -> TaskState {
        let mut payloads = chain.iter().map(|t| format!("d{t}").into_bytes());
        TaskState {
            txid,
            data: payloads.next().unwrap(),
            deltas: payloads.collect(),
        }
    }

    #[test]
    fn a_delta_restores_with_its_chain_and_the_marker_lists_it() {
        let dir = tempfile::tempdir().unwrap();
        let c = checkpoints(dir.path(), 1);
        commit_delta(&c, 0, None);
        commit_delta(&c, 1, Some(0));
        commit_delta(&c, 2, Some(1));
        assert_eq!(
            c.restore(3, "sum-3").unwrap().committed,
            Some(delta_state(2, &[0, 1, 2]))
        );
        let newest = &c.list_complete().unwrap()[0];
        let file = &newest.tasks[0];
        assert_eq!(file.base(), Some(1));
        assert_eq!(
            file.chain.iter().map(|f| f.txid).collect::<Vec<_>>(),
            [0, 1]
        );
        // Retention keeps one complete checkpoint, and the files its chain needs.
        assert_eq!(c.txids().unwrap(), [0, 1, 2]);
        // A new whole state: the old chain can go.
        commit_delta(&c, 3, None);
        assert_eq!(c.txids().unwrap(), [3]);
        assert_eq!(
            c.restore(3, "sum-3").unwrap().committed,
            Some(delta_state(3, &[3]))
        );
        // A prepared delta newer than the last complete checkpoint comes with its chain.
        c.save_prepared(3, "sum-3", 4, Some(3), b"d4").unwrap();
        assert_eq!(
            c.restore(3, "sum-3").unwrap().prepared,
            Some(delta_state(4, &[3, 4]))
        );
    }

    #[test]
    fn a_delta_whose_base_is_refused_falls_back_to_the_previous_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let c = checkpoints(dir.path(), 3);
        commit_delta(&c, 0, None);
        commit_delta(&c, 1, None);
        commit_delta(&c, 2, Some(1));
        // The base of checkpoint 2 (checkpoint 1's file) corrupted on disk.
        let file = committed_file(dir.path(), 1, 3);
        let mut bytes = fs::read(&file).unwrap();
        let at = bytes.len() - 40;
        bytes[at] ^= 1;
        fs::write(&file, &bytes).unwrap();
        assert_eq!(
            c.restore(3, "sum-3").unwrap().committed,
            Some(delta_state(0, &[0]))
        );
        // The base replaced by another valid file: not the one the marker lists.
        c.save_committed(3, "sum-3", 1, None, b"other").unwrap();
        assert_eq!(c.restore(3, "sum-3").unwrap().committed.unwrap().txid, 0);
        // The base gone.
        fs::remove_file(&file).unwrap();
        assert_eq!(c.restore(3, "sum-3").unwrap().committed.unwrap().txid, 0);
    }

    #[test]
    fn a_delta_must_have_an_older_base() {
        let dir = tempfile::tempdir().unwrap();
        let c = checkpoints(dir.path(), 3);
        for base in [5, 6] {
            assert!(matches!(
                c.save_prepared(3, "sum-3", 5, Some(base), b"x"),
                Err(StoreError::BadBase { .. })
            ));
        }
        // A delta whose base has no file cannot complete.
        c.save_committed(3, "sum-3", 5, Some(4), b"x").unwrap();
        assert!(matches!(
            c.complete(5, 1000),
            Err(StoreError::MissingBase { .. })
        ));
    }

    #[test]
    fn local_state_keeps_two_and_falls_back() {
        let dir = tempfile::tempdir().unwrap();
        let c = checkpoints(dir.path(), 3);
        assert_eq!(c.restore_local(1, "$checkpointspout").unwrap(), None);
        for n in 0..4 {
            c.save_local(1, "$checkpointspout", format!("v{n}").as_bytes())
                .unwrap();
        }
        let local = c.restore_local(1, "$checkpointspout").unwrap().unwrap();
        assert_eq!((local.txid, local.data.as_slice()), (3, &b"v3"[..]));
        let files = c.store.list("topo/local").unwrap();
        assert_eq!(files.len(), 2, "{files:?}");
        assert!(files[0].ends_with("t1-%24checkpointspout/00000000000000000002"));
        // The newest truncated: the one before is used.
        let newest = dir.path().join(&files[1]);
        let bytes = fs::read(&newest).unwrap();
        fs::write(&newest, &bytes[..10]).unwrap();
        let local = c.restore_local(1, "$checkpointspout").unwrap().unwrap();
        assert_eq!(local.data, b"v2");
    }
}
