//! `tail -f` over the `logs/*.log` files of some topology directories: each
//! complete line is printed as it is, new files are picked up as they appear.
//!
//! Invariants: a line is printed once, whole (a partial last line waits for its
//! newline, or for [`LogTail::finish`]); memory held per file is at most one
//! partial line.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// Longest partial line kept before it is printed anyway.
const MAX_PARTIAL: usize = 1 << 20;

#[derive(Default)]
struct Followed {
    offset: u64,
    partial: Vec<u8>,
}

#[derive(Default)]
pub struct LogTail {
    dirs: Vec<PathBuf>,
    files: BTreeMap<PathBuf, Followed>,
}

impl LogTail {
    pub fn new() -> Self {
        Self::default()
    }

    /// Follows the `*.log` files of `logs_dir` from their beginning.
    pub fn add_dir(&mut self, logs_dir: PathBuf) {
        if !self.dirs.contains(&logs_dir) {
            self.dirs.push(logs_dir);
        }
    }

    /// Follows one file from its beginning (it may appear later).
    pub fn add_file(&mut self, file: PathBuf) {
        self.files.entry(file).or_default();
    }

    /// Reads what was appended since the last poll and writes complete lines to `out`.
    pub fn poll(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        for dir in &self.dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "log") {
                    self.files.entry(path).or_default();
                }
            }
        }
        let mut buf = vec![0u8; 64 * 1024];
        for (path, followed) in &mut self.files {
            let Ok(mut file) = File::open(path) else {
                continue;
            };
            let Ok(len) = file.metadata().map(|m| m.len()) else {
                continue;
            };
            if len < followed.offset {
                // Truncated: start over.
                followed.offset = 0;
                followed.partial.clear();
            }
            if len == followed.offset || file.seek(SeekFrom::Start(followed.offset)).is_err() {
                continue;
            }
            loop {
                let n = match file.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                followed.offset += n as u64;
                let mut chunk = &buf[..n];
                while let Some(pos) = chunk.iter().position(|b| *b == b'\n') {
                    followed.partial.extend_from_slice(&chunk[..=pos]);
                    out.write_all(&followed.partial)?;
                    followed.partial.clear();
                    chunk = &chunk[pos + 1..];
                }
                followed.partial.extend_from_slice(chunk);
                if followed.partial.len() > MAX_PARTIAL {
                    followed.partial.push(b'\n');
                    out.write_all(&followed.partial)?;
                    followed.partial.clear();
                }
            }
        }
        out.flush()
    }

    /// Polls once more and prints every partial last line.
    pub fn finish(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        self.poll(out)?;
        for followed in self.files.values_mut() {
            if !followed.partial.is_empty() {
                followed.partial.push(b'\n');
                out.write_all(&followed.partial)?;
                followed.partial.clear();
            }
        }
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_whole_lines_once_and_picks_up_new_files() {
        let tmp = tempfile::tempdir().unwrap();
        let logs = tmp.path().join("logs");
        std::fs::create_dir_all(&logs).unwrap();
        std::fs::write(logs.join("a.log"), "one\ntw").unwrap();
        std::fs::write(logs.join("ignored.txt"), "nope\n").unwrap();
        let mut tail = LogTail::new();
        tail.add_dir(logs.clone());
        let mut out = Vec::new();
        tail.poll(&mut out).unwrap();
        assert_eq!(String::from_utf8_lossy(&out), "one\n");
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(logs.join("a.log"))
            .unwrap();
        f.write_all(b"o\nthree\n").unwrap();
        std::fs::write(logs.join("b.log"), "bee\nlast").unwrap();
        out.clear();
        tail.poll(&mut out).unwrap();
        assert_eq!(String::from_utf8_lossy(&out), "two\nthree\nbee\n");
        out.clear();
        tail.finish(&mut out).unwrap();
        assert_eq!(String::from_utf8_lossy(&out), "last\n");
    }
}
