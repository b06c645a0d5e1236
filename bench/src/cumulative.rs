//! The per-task files of cumulative figures the Java hook
//! (`dev.egret.bench.LatencyHook`) writes every second, and the difference of
//! two readings of a whole output directory (warm-up end to run end).
//!
//! Invariants:
//! - a file is `key value` lines; unknown keys are ignored, so the hook may add
//!   some; `version` must be 1;
//! - the hook replaces a file by rename, so a reading never sees half a file; a
//!   file that still fails to parse (another writer) is skipped with a warning,
//!   never taken as zero;
//! - a difference never goes negative: a counter lower at the end than at the
//!   start (the task restarted) counts from zero.

use std::collections::BTreeMap;
use std::path::Path;

use crate::BenchError;
use crate::histogram::Histogram;

/// One task's cumulative figures at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskFigures {
    pub component: String,
    pub task: i64,
    pub spout: bool,
    pub sink: bool,
    /// Wall clock (ms since the epoch) when the hook wrote them.
    pub time_ms: u64,
    pub acked: u64,
    pub failed: u64,
    pub executed: u64,
    pub latency_count: u64,
    pub latencies: Histogram,
    /// Complete latencies in µs that a spout measured itself (`hist_us`: the
    /// rate workload's spout, from the time each tuple was due); empty otherwise.
    pub latencies_us: Histogram,
    /// Wall clock (ms since the epoch) of the task's first counted tuple (a spout's
    /// first ack, a bolt's first execute); 0 before it (and from older hooks).
    pub first_ms: u64,
}

impl TaskFigures {
    /// Parses one file's text.
    pub fn parse(text: &str) -> Result<TaskFigures, String> {
        let mut out = TaskFigures::default();
        let mut version = None;
        for line in text.lines() {
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            let value = value.trim();
            let num = |v: &str| {
                v.parse::<u64>()
                    .map_err(|_| format!("{key} '{v}' is not a number"))
            };
            match key {
                "version" => version = Some(value.to_owned()),
                "component" => out.component = value.to_owned(),
                "task" => {
                    out.task = value
                        .parse()
                        .map_err(|_| format!("task '{value}' is not a number"))?
                }
                "spout" => out.spout = value == "true",
                "sink" => out.sink = value == "true",
                "time_ms" => out.time_ms = num(value)?,
                "acked" => out.acked = num(value)?,
                "failed" => out.failed = num(value)?,
                "executed" => out.executed = num(value)?,
                "latency_count" => out.latency_count = num(value)?,
                "hist" => out.latencies = Histogram::parse_sparse(value)?,
                "hist_us" => out.latencies_us = Histogram::parse_sparse(value)?,
                "first_ms" => out.first_ms = num(value)?,
                _ => {}
            }
        }
        match version.as_deref() {
            Some("1") => Ok(out),
            Some(other) => Err(format!("unsupported hook file version {other}")),
            None => Err("no version line (not a hook file, or cut short)".to_owned()),
        }
    }
}

/// Every task's figures at one moment, by file name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub tasks: BTreeMap<String, TaskFigures>,
}

impl Snapshot {
    /// Reads every `*.txt` of `dir` (a missing dir is an empty snapshot: no task
    /// has started yet).
    pub fn read(dir: &Path) -> Result<Snapshot, BenchError> {
        let mut tasks = BTreeMap::new();
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Snapshot::default()),
            Err(e) => return Err(BenchError::io(dir, e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| BenchError::io(dir, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".txt") {
                continue;
            }
            let path = entry.path();
            let text = match std::fs::read_to_string(&path) {
                Ok(text) => text,
                // Replaced between listing and reading: the next reading has it.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(BenchError::io(&path, e)),
            };
            match TaskFigures::parse(&text) {
                Ok(figures) => {
                    tasks.insert(name, figures);
                }
                Err(error) => {
                    tracing::warn!(file = %path.display(), %error, "Skipped an unreadable hook file.");
                }
            }
        }
        Ok(Snapshot { tasks })
    }

    /// Whether any task has reported.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The earliest writing time (`time_ms`) among the tasks' files: at a task's first
    /// sight, when it was prepared (the hook writes its file then, and again each second).
    pub fn first_written_ms(&self) -> Option<u64> {
        self.tasks.values().map(|t| t.time_ms).min()
    }

    /// The earliest first counted tuple (`first_ms`) among the tasks, to the millisecond
    /// of the hook's clock (a file is only rewritten each second).
    pub fn first_tuple_ms(&self) -> Option<u64> {
        self.tasks
            .values()
            .map(|t| t.first_ms)
            .filter(|ms| *ms > 0)
            .min()
    }

    /// Whether tuples go through: a spout task has had an ack, or a sink
    /// task has executed a tuple (acking off).
    pub fn flowing(&self) -> bool {
        self.tasks
            .values()
            .any(|t| (t.spout && t.acked > 0) || (t.sink && t.executed > 0))
    }
}

/// What happened between two snapshots, summed over tasks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Window {
    /// Seconds the window spans by the hook's own clocks (median over tasks
    /// seen at both ends); None when no task was seen at both ends.
    pub seconds: Option<f64>,
    /// Spout acks.
    pub acked: u64,
    /// Spout fails.
    pub failed: u64,
    /// Executes at sink bolts (no user downstream).
    pub sink_executed: u64,
    /// Executes at every bolt.
    pub executed: u64,
    /// Complete latencies (ms) of the acks in the window.
    pub latencies: Histogram,
    /// The spouts' own complete latencies (µs) in the window, where they measure them.
    pub latencies_us: Histogram,
}

fn since(end: u64, start: u64) -> u64 {
    if end >= start { end - start } else { end }
}

impl Window {
    /// The difference `end - start`; a task absent at the start counts from zero.
    pub fn between(start: &Snapshot, end: &Snapshot) -> Window {
        let mut out = Window::default();
        let mut spans = Vec::new();
        let zero = TaskFigures::default();
        for (name, e) in &end.tasks {
            let s = start.tasks.get(name);
            if let Some(s) = s
                && e.time_ms >= s.time_ms
            {
                spans.push((e.time_ms - s.time_ms) as f64 / 1000.0);
            }
            let s = s.unwrap_or(&zero);
            out.acked += since(e.acked, s.acked);
            out.failed += since(e.failed, s.failed);
            let executed = since(e.executed, s.executed);
            out.executed += executed;
            if e.sink {
                out.sink_executed += executed;
            }
            out.latencies.merge(&e.latencies.since(&s.latencies));
            out.latencies_us
                .merge(&e.latencies_us.since(&s.latencies_us));
        }
        spans.sort_by(f64::total_cmp);
        out.seconds = spans.get(spans.len() / 2).copied().filter(|s| *s > 0.0);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(task: i64, sink: bool, time_ms: u64, acked: u64, executed: u64, hist: &str) -> String {
        format!(
            "version 1\ncomponent c{task}\ntask {task}\nspout {}\nsink {sink}\ntime_ms {time_ms}\n\
             acked {acked}\nfailed 0\nexecuted {executed}\nlatency_count {acked}\nhist {hist}\nfuture_key 7\n",
            !sink
        )
    }

    #[test]
    fn parses_the_hook_format() {
        let f = TaskFigures::parse(&file(3, true, 1000, 0, 42, "")).unwrap();
        assert_eq!(f.first_ms, 0, "a file without first_ms (an older hook)");
        let with_first = format!("{}first_ms 1234\n", file(3, true, 1000, 0, 42, ""));
        assert_eq!(TaskFigures::parse(&with_first).unwrap().first_ms, 1234);
        assert_eq!(f.task, 3);
        assert!(f.sink && !f.spout);
        assert_eq!(f.executed, 42);
        assert_eq!(f.latencies.count(), 0);
        assert!(TaskFigures::parse("component x\n").is_err());
        assert_eq!(
            f.latencies_us.count(),
            0,
            "no hist_us: the spout measured none"
        );
        let with_us = format!("{}hist_us 20:3 300:1\n", file(3, false, 1000, 4, 0, ""));
        assert_eq!(
            TaskFigures::parse(&with_us).unwrap().latencies_us.count(),
            4
        );
        assert!(
            TaskFigures::parse(&format!("{}hist_us 20\n", file(3, false, 1000, 4, 0, ""))).is_err()
        );
        assert!(TaskFigures::parse("version 2\n").is_err());
        assert!(TaskFigures::parse("version 1\nacked many\n").is_err());
    }

    #[test]
    fn window_is_the_difference_of_two_readings() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: String| std::fs::write(dir.path().join(name), text).unwrap();
        write("spout-1.txt", file(1, false, 10_000, 100, 0, "2:100"));
        write("sink-2.txt", file(2, true, 10_000, 0, 90, ""));
        std::fs::write(dir.path().join("sink-2.txt.tmp"), "half").unwrap();
        let start = Snapshot::read(dir.path()).unwrap();
        assert_eq!(start.tasks.len(), 2);
        assert_eq!(Snapshot::default().first_written_ms(), None);
        write("late-9.txt", file(9, true, 12_000, 0, 0, ""));
        assert_eq!(
            Snapshot::read(dir.path()).unwrap().first_written_ms(),
            Some(10_000)
        );
        std::fs::remove_file(dir.path().join("late-9.txt")).unwrap();
        assert_eq!(start.first_tuple_ms(), None);
        write(
            "late-9.txt",
            format!("{}first_ms 12500\n", file(9, true, 13_000, 0, 3, "")),
        );
        write(
            "late-8.txt",
            format!("{}first_ms 12400\n", file(8, true, 13_000, 0, 1, "")),
        );
        assert_eq!(
            Snapshot::read(dir.path()).unwrap().first_tuple_ms(),
            Some(12_400)
        );
        std::fs::remove_file(dir.path().join("late-9.txt")).unwrap();
        std::fs::remove_file(dir.path().join("late-8.txt")).unwrap();

        write(
            "spout-1.txt",
            file(1, false, 20_000, 1100, 0, "2:600 40:500"),
        );
        write("sink-2.txt", file(2, true, 20_000, 0, 1090, ""));
        // A task that started late counts from zero; a restarted one too.
        write("sink-3.txt", file(3, true, 20_000, 0, 5, ""));
        let end = Snapshot::read(dir.path()).unwrap();
        let w = Window::between(&start, &end);
        assert_eq!(w.acked, 1000);
        assert_eq!(w.sink_executed, 1005);
        assert_eq!(w.executed, 1005);
        assert_eq!(w.seconds, Some(10.0));
        assert_eq!(w.latencies.count(), 1000);
        assert_eq!(w.latencies.quantile(0.5), Some(2));
        assert!(w.latencies.quantile(0.99).unwrap() >= 40);
        assert_eq!(w.latencies_us.count(), 0);
        // The spout's own µs histogram is differenced the same way.
        write(
            "spout-1.txt",
            format!(
                "{}hist_us 20:10\n",
                file(1, false, 21_000, 1100, 0, "2:600 40:500")
            ),
        );
        let before = Snapshot::read(dir.path()).unwrap();
        write(
            "spout-1.txt",
            format!(
                "{}hist_us 20:15 31:5\n",
                file(1, false, 22_000, 1110, 0, "2:610 40:500")
            ),
        );
        let us = Window::between(&before, &Snapshot::read(dir.path()).unwrap()).latencies_us;
        assert_eq!(us.count(), 10);
        assert_eq!(us.quantile(0.5), Some(20));
        assert_eq!(us.quantile(0.99), Some(31));
        write(
            "spout-1.txt",
            file(1, false, 20_000, 1100, 0, "2:600 40:500"),
        );

        let restarted = Snapshot::read(dir.path()).unwrap();
        let mut later = restarted.clone();
        if let Some(t) = later.tasks.get_mut("sink-2.txt") {
            t.executed = 7;
        }
        assert_eq!(Window::between(&restarted, &later).sink_executed, 7);
        assert!(Snapshot::read(&dir.path().join("none")).unwrap().is_empty());
    }
}
