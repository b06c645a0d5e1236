//! [`ObjectStore`] on a local (or shared) directory: a key is a path under the
//! root. A put writes `.<name>.tmp-<pid>-<n>` next to the target, fsyncs it,
//! renames it over the target and fsyncs the directory, so that a crash at any
//! point leaves the old object or the new one. Temporary files (names starting
//! with `.`) are never listed.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{ObjectStore, StoreError, check_key};

pub struct LocalDirStore {
    root: PathBuf,
    next_temp: AtomicU64,
}

impl LocalDirStore {
    /// A store rooted at `root` (created on the first put).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            next_temp: AtomicU64::new(0),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path(&self, key: &str) -> Result<PathBuf, StoreError> {
        check_key(key)?;
        Ok(self.root.join(key))
    }
}

fn io<'a>(op: &'static str, key: &'a str) -> impl FnOnce(std::io::Error) -> StoreError + 'a {
    move |source| StoreError::Io {
        op,
        key: key.to_owned(),
        source,
    }
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

impl ObjectStore for LocalDirStore {
    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let path = self.path(key)?;
        let dir = path.parent().unwrap_or(&self.root).to_path_buf();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        fs::create_dir_all(&dir).map_err(io("creating the directory of", key))?;
        let n = self.next_temp.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{name}.tmp-{}-{n}", std::process::id()));
        let written = (|| {
            let mut file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&temp)?;
            file.write_all(bytes)?;
            file.sync_all()?;
            drop(file);
            fs::rename(&temp, &path)?;
            sync_dir(&dir)
        })();
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
        written.map_err(io("writing", key))
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.path(key)?;
        match fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io("reading", key)(e)),
        }
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let prefix = prefix.trim_end_matches('/');
        let start = if prefix.is_empty() {
            self.root.clone()
        } else {
            self.path(prefix)?
        };
        let mut out = Vec::new();
        let mut pending = vec![(start, prefix.to_owned())];
        while let Some((dir, key)) = pending.pop() {
            let entries = match fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) if e.kind() == ErrorKind::NotADirectory => continue,
                Err(e) => return Err(io("listing", &key)(e)),
            };
            for entry in entries {
                let entry = entry.map_err(io("listing", &key))?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') {
                    continue;
                }
                let child = if key.is_empty() {
                    name
                } else {
                    format!("{key}/{name}")
                };
                let kind = entry.file_type().map_err(io("listing", &child))?;
                if kind.is_dir() {
                    pending.push((entry.path(), child));
                } else if kind.is_file() {
                    out.push(child);
                }
            }
        }
        out.sort();
        Ok(out)
    }

    fn delete(&self, key: &str) -> Result<(), StoreError> {
        let path = self.path(key)?;
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io("deleting", key)(e)),
        }
        // Empty directories left behind go too (up to the root); a non-empty one stays.
        let mut dir = path.parent().map(Path::to_path_buf);
        while let Some(d) = dir {
            if d == self.root || fs::remove_dir(&d).is_err() {
                break;
            }
            dir = d.parent().map(Path::to_path_buf);
        }
        Ok(())
    }

    fn locate(&self, key: &str) -> String {
        self.root.join(key).display().to_string()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    #[test]
    fn put_get_list_delete() {
        let dir = tempfile::tempdir().unwrap();
        let store = LocalDirStore::new(dir.path().join("root"));
        assert_eq!(store.get("a/b").unwrap(), None);
        assert!(store.list("").unwrap().is_empty());
        store.put("a/b", b"one").unwrap();
        store.put("a/c/d", b"two").unwrap();
        store.put("a/b", b"three").unwrap();
        assert_eq!(store.get("a/b").unwrap().as_deref(), Some(&b"three"[..]));
        assert_eq!(store.list("a").unwrap(), ["a/b", "a/c/d"]);
        assert_eq!(store.list("a/c/").unwrap(), ["a/c/d"]);
        // A leftover temporary file (a crash before the rename) is never listed.
        fs::write(dir.path().join("root/a/.b.tmp-1-0"), b"half").unwrap();
        assert_eq!(store.list("").unwrap(), ["a/b", "a/c/d"]);
        store.delete("a/c/d").unwrap();
        store.delete("a/c/d").unwrap();
        assert!(!dir.path().join("root/a/c").exists());
        assert_eq!(store.list("").unwrap(), ["a/b"]);
    }

    #[test]
    fn bad_keys_are_refused() {
        let store = LocalDirStore::new("/nonexistent");
        for key in ["", "/abs", "a//b", "a/../b", "./a"] {
            assert!(
                matches!(store.put(key, b"x"), Err(StoreError::BadKey(_))),
                "{key}"
            );
        }
    }
}
