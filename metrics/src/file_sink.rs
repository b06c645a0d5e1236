//! The rotating-file sink of the metrics manager: every batch is appended to
//! `DIR/metrics-<container>.jsonl` as JSON lines (one per metric sample).
//! When a batch would take the file over its size bound the file is rotated
//! first: `metrics-<container>.jsonl.1` is the newest old file, at most `keep`
//! of them are kept, the oldest removed.
//!
//! Invariants:
//! - the writer is a thread of its own that takes batches from the sink's
//!   bounded queue: a disk that stalls blocks that thread only; the queue
//!   then fills and further batches are dropped and counted
//!   (`egret_metrics_sink_dropped_batches_total{sink="file:..."}`);
//! - a batch is written whole into one file (a file exceeds the bound only
//!   when a single batch is larger than it); a failed write or rotation drops
//!   that batch, counts it, and the next batch reopens the file.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::mpsc;

use crate::manager::{Batch, SinkCounters};

/// The file of container `index` in `dir`.
pub fn file_of(dir: &Path, index: i32) -> PathBuf {
    dir.join(format!("metrics-{index}.jsonl"))
}

/// The `n`th old file of `current` (`.1` is the newest).
pub fn rotated(current: &Path, n: usize) -> PathBuf {
    let mut name = current.as_os_str().to_owned();
    name.push(format!(".{n}"));
    PathBuf::from(name)
}

/// Where and how much one file sink writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileTarget {
    pub path: PathBuf,
    pub max_bytes: u64,
    pub keep: usize,
}

struct Writer {
    target: FileTarget,
    file: Option<(File, u64)>,
}

impl Writer {
    fn open(&mut self) -> std::io::Result<()> {
        if self.file.is_some() {
            return Ok(());
        }
        if let Some(parent) = self.target.path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.target.path)?;
        let len = file.metadata()?.len();
        self.file = Some((file, len));
        Ok(())
    }

    /// Renames the current file to `.1` (shifting the older ones), removing
    /// what is beyond `keep`.
    fn rotate(&mut self) -> std::io::Result<()> {
        self.file = None;
        let path = &self.target.path;
        if self.target.keep == 0 {
            return match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            };
        }
        match std::fs::remove_file(rotated(path, self.target.keep)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        for n in (1..self.target.keep).rev() {
            let from = rotated(path, n);
            if from.exists() {
                std::fs::rename(&from, rotated(path, n + 1))?;
            }
        }
        std::fs::rename(path, rotated(path, 1))
    }

    fn write(&mut self, batch: &Batch) -> std::io::Result<()> {
        self.open()?;
        let bytes = batch.text.as_bytes();
        let len = bytes.len() as u64;
        if let Some((_, size)) = &self.file
            && *size > 0
            && size.saturating_add(len) > self.target.max_bytes
        {
            self.rotate()?;
            self.open()?;
        }
        let Some((file, size)) = self.file.as_mut() else {
            return Ok(());
        };
        if let Err(e) = file.write_all(bytes) {
            self.file = None;
            return Err(e);
        }
        *size += len;
        Ok(())
    }
}

/// Starts the writer thread of one file sink; it ends when the queue's
/// sender is dropped.
pub fn spawn_writer(
    target: FileTarget,
    mut rx: mpsc::Receiver<Arc<Batch>>,
    counters: Arc<SinkCounters>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    let name = target.path.display().to_string();
    std::thread::Builder::new()
        .name("metrics-file-sink".to_owned())
        .spawn(move || {
            let mut writer = Writer { target, file: None };
            let mut warned = 0u64;
            while let Some(batch) = rx.blocking_recv() {
                match writer.write(&batch) {
                    Ok(()) => {
                        counters.sent_batches.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(e) => {
                        counters.write_failures.fetch_add(1, Ordering::Relaxed);
                        let n = counters.dropped_batches.fetch_add(1, Ordering::Relaxed) + 1;
                        counters
                            .dropped_points
                            .fetch_add(batch.points, Ordering::Relaxed);
                        if n.is_power_of_two() && n > warned {
                            warned = n;
                            tracing::warn!(sink = %name, dropped_batches = n, error = %e, "File sink: dropping metrics.");
                        }
                    }
                }
            }
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    fn batch(text: &str) -> Batch {
        Batch {
            text: text.to_owned(),
            points: text.lines().count() as u64,
        }
    }

    #[test]
    fn files_rotate_by_size_and_only_keep_files_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_of(dir.path(), 1);
        let mut w = Writer {
            target: FileTarget {
                path: path.clone(),
                max_bytes: 20,
                keep: 2,
            },
            file: None,
        };
        // 10 bytes each: two fit in a file, the third rotates.
        for i in 0..7 {
            w.write(&batch(&format!("{{\"i\":{i:03}}}\n"))).unwrap();
        }
        let read = |p: &Path| std::fs::read_to_string(p).unwrap();
        assert_eq!(read(&path), "{\"i\":006}\n");
        assert_eq!(read(&rotated(&path, 1)), "{\"i\":004}\n{\"i\":005}\n");
        assert_eq!(read(&rotated(&path, 2)), "{\"i\":002}\n{\"i\":003}\n");
        assert!(!rotated(&path, 3).exists(), "only 2 old files are kept");
        for p in [path.clone(), rotated(&path, 1), rotated(&path, 2)] {
            assert!(std::fs::metadata(&p).unwrap().len() <= 20);
        }
    }

    #[test]
    fn a_batch_larger_than_the_bound_is_written_whole_and_keep_0_keeps_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_of(dir.path(), 2);
        let mut w = Writer {
            target: FileTarget {
                path: path.clone(),
                max_bytes: 5,
                keep: 0,
            },
            file: None,
        };
        w.write(&batch("0123456789\n")).unwrap();
        w.write(&batch("abcdefghij\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "abcdefghij\n");
        assert!(!rotated(&path, 1).exists());
    }

    #[test]
    fn a_file_that_exists_is_appended_to_and_counts_toward_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_of(dir.path(), 3);
        std::fs::write(&path, "old-old-old\n").unwrap();
        let mut w = Writer {
            target: FileTarget {
                path: path.clone(),
                max_bytes: 16,
                keep: 1,
            },
            file: None,
        };
        w.write(&batch("new-new\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new-new\n");
        assert_eq!(
            std::fs::read_to_string(rotated(&path, 1)).unwrap(),
            "old-old-old\n"
        );
    }
}
