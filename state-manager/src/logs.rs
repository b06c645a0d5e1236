//! The logs of a topology's processes on one host (`DIR/logs/<process>.log`):
//! which processes have one, and the tail of one. Read by `egret ui` on the
//! local cluster and, on a multi-host cluster, by each container's stream
//! manager for its own processes (relayed by the topology master).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("'{0}' is not a process name (letters, digits, '.', '_', '-')")]
    BadName(String),
    #[error("no log of process '{0}'")]
    NotFound(String),
    #[error("cannot read the log of '{process}': {source}")]
    Io {
        process: String,
        #[source]
        source: std::io::Error,
    },
}

/// Most lines one request returns.
pub const MAX_LINES: usize = 2000;
/// Most bytes read from the end of a log for one request.
pub const MAX_BYTES: u64 = 1 << 20;

/// A process name as the logs are named: letters, digits, `.`, `_`, `-`,
/// not starting with a dot (so never a path).
pub fn valid_process(process: &str) -> bool {
    !process.is_empty()
        && !process.starts_with('.')
        && process
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The processes with a log, sorted.
pub fn list(logs_dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(logs_dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".log").map(str::to_owned)
        })
        .filter(|p| valid_process(p))
        .collect();
    out.sort();
    out
}

/// The last `lines` (at most [`MAX_LINES`]) complete lines of `process`'s
/// log, read from at most its last [`MAX_BYTES`].
pub fn tail(logs_dir: &Path, process: &str, lines: usize) -> Result<Vec<String>, LogError> {
    if !valid_process(process) {
        return Err(LogError::BadName(process.to_owned()));
    }
    let path = logs_dir.join(format!("{process}.log"));
    let mut file =
        std::fs::File::open(&path).map_err(|_| LogError::NotFound(process.to_owned()))?;
    let io = |source| LogError::Io {
        process: process.to_owned(),
        source,
    };
    let len = file.metadata().map_err(io)?.len();
    let start = len.saturating_sub(MAX_BYTES);
    file.seek(SeekFrom::Start(start)).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES).read_to_end(&mut bytes).map_err(io)?;
    let text = String::from_utf8_lossy(&bytes);
    let mut all: Vec<&str> = text.lines().collect();
    if start > 0 && !all.is_empty() {
        // The first line read is probably cut.
        all.remove(0);
    }
    let n = lines.min(MAX_LINES);
    Ok(all[all.len().saturating_sub(n)..]
        .iter()
        .map(|s| (*s).to_owned())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_the_last_lines_and_refuses_paths() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("stmgr-1.log"), "a\nb\nc\n").unwrap();
        assert_eq!(tail(dir.path(), "stmgr-1", 2).unwrap(), ["b", "c"]);
        assert_eq!(list(dir.path()), ["stmgr-1"]);
        assert!(matches!(
            tail(dir.path(), "../x", 2),
            Err(LogError::BadName(_))
        ));
        assert!(matches!(
            tail(dir.path(), ".hidden", 2),
            Err(LogError::BadName(_))
        ));
        assert!(matches!(
            tail(dir.path(), "nope", 2),
            Err(LogError::NotFound(_))
        ));
    }
}
