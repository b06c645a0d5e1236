//! What `SequenceTopology` (examples-storm) writes, read back: per-key
//! sequence numbers from the spout's acked/emitted/fails logs and the sink's
//! files, for the delivery tests (`tests/reliability.rs`, `tests/multi_host.rs`).

use std::collections::BTreeMap;
use std::path::Path;

use std::time::Duration;

use crate::{HarnessError, numbered_files, task_files, wait_until};

/// (key, seq).
pub type Msg = (u32, u32);

/// What the spout emits: `keys` keys with sequence numbers `0..seqs`.
#[derive(Debug, Clone, Copy)]
pub struct Workload {
    pub keys: u32,
    pub seqs: u32,
}

impl Workload {
    pub fn total(self) -> usize {
        usize::try_from(u64::from(self.keys) * u64::from(self.seqs)).unwrap_or(usize::MAX)
    }

    pub fn all(self) -> impl Iterator<Item = Msg> {
        (0..self.keys).flat_map(move |k| (0..self.seqs).map(move |s| (k, s)))
    }

    /// Messages absent from `seen`, in (key, seq) order.
    pub fn missing(self, seen: &BTreeMap<Msg, usize>) -> Vec<Msg> {
        self.all().filter(|m| !seen.contains_key(m)).collect()
    }
}

pub fn parse_pair(line: &str, sep: char) -> Option<Msg> {
    let (k, s) = line.split_once(sep)?;
    Some((k.parse().ok()?, s.parse().ok()?))
}

/// Everything the topology's files say, read at one moment.
#[derive(Debug, Default)]
pub struct Observed {
    /// Message id → acks received by the spout.
    pub acked: BTreeMap<Msg, usize>,
    /// At-most-once: message id → times the spout logged it as emitted.
    pub emitted: BTreeMap<Msg, usize>,
    pub fails: usize,
    /// (key, seq) → times the sink recorded it.
    pub sink: BTreeMap<Msg, usize>,
    pub sink_lines: usize,
    /// Spout task index → the largest pending count it measured.
    pub max_pending: BTreeMap<i32, u32>,
    /// Acks or fails for ids that were not pending (Storm never does that).
    pub unexpected: Vec<String>,
    /// Lines cut by a crash and closed by the restarted spout.
    pub torn: usize,
    pub malformed: Vec<String>,
}

impl Observed {
    pub fn read(out: &Path) -> Self {
        let mut o = Self::default();
        let count_ids = |prefix: &str, into: &mut BTreeMap<Msg, usize>, o_torn: &mut usize| {
            let mut bad = Vec::new();
            for (task, lines) in numbered_files(out, prefix, ".log") {
                for line in lines {
                    if line.contains("#torn") {
                        *o_torn += 1;
                    } else if let Some(m) = parse_pair(&line, ':') {
                        *into.entry(m).or_insert(0) += 1;
                    } else {
                        bad.push(format!("{prefix}-{task}.log: {line:?}"));
                    }
                }
            }
            bad
        };
        let mut malformed = count_ids("spout-acked", &mut o.acked, &mut o.torn);
        malformed.extend(count_ids("spout-emitted", &mut o.emitted, &mut o.torn));
        let mut fails = BTreeMap::new();
        malformed.extend(count_ids("spout-fails", &mut fails, &mut o.torn));
        o.fails = fails.values().sum();
        for (task, lines) in numbered_files(out, "spout-maxpending", ".log") {
            for line in lines {
                if line.contains("#torn") {
                    o.torn += 1;
                } else if let Ok(n) = line.parse::<u32>() {
                    let max = o.max_pending.entry(task).or_insert(0);
                    *max = (*max).max(n);
                } else {
                    malformed.push(format!("spout-maxpending-{task}.log: {line:?}"));
                }
            }
        }
        for (task, lines) in numbered_files(out, "spout-unexpected", ".log") {
            o.unexpected.extend(
                lines
                    .into_iter()
                    .map(|l| format!("spout task index {task}: {l}")),
            );
        }
        for (task, lines) in task_files(out, "sink") {
            for line in lines {
                o.sink_lines += 1;
                match parse_pair(&line, ' ') {
                    Some(m) => *o.sink.entry(m).or_insert(0) += 1,
                    None => malformed.push(format!("sink-{task}.txt: {line:?}")),
                }
            }
        }
        o.malformed = malformed;
        o
    }

    pub fn summary(&self, w: Workload) -> String {
        format!(
            "{} messages: acked {} distinct ({} acks), emitted-log {} distinct, sink {} distinct \
             ({} lines), {} fails, max pending {:?}, {} torn lines",
            w.total(),
            self.acked.len(),
            self.acked.values().sum::<usize>(),
            self.emitted.len(),
            self.sink.len(),
            self.sink_lines,
            self.fails,
            self.max_pending,
            self.torn
        )
    }
}

/// (messages seen more than once, extra copies in all).
pub fn duplicates(seen: &BTreeMap<Msg, usize>) -> (usize, usize) {
    seen.values()
        .filter(|n| **n > 1)
        .fold((0, 0), |(m, c), n| (m + 1, c + n - 1))
}

/// A short printable list of messages.
pub fn sample(msgs: &[Msg]) -> String {
    let shown: Vec<String> = msgs
        .iter()
        .take(20)
        .map(|(k, s)| format!("{k}:{s}"))
        .collect();
    let more = msgs.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Per key, the sequence numbers the sink never saw, for gap reports.
pub fn gaps_by_key(missing: &[Msg]) -> BTreeMap<u32, Vec<u32>> {
    let mut gaps: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (k, s) in missing {
        gaps.entry(*k).or_default().push(*s);
    }
    gaps
}

/// Waits until every message id of `w` is in the spouts' acked logs under
/// `out` (or, `emitted`, in their emitted logs: at-most-once), then reads
/// everything.
pub fn wait_all_logged(
    out: &Path,
    w: Workload,
    emitted: bool,
    timeout: Duration,
) -> Result<Observed, HarnessError> {
    let (what, log) = if emitted {
        ("the spouts to emit every message once", "emitted")
    } else {
        ("the spouts to log an ack for every message id", "acked")
    };
    let ids = |o: &Observed| {
        if emitted {
            o.emitted.clone()
        } else {
            o.acked.clone()
        }
    };
    wait_until(
        what,
        timeout,
        || {
            let o = Observed::read(out);
            (ids(&o).len() == w.total()).then_some(o)
        },
        || {
            let o = Observed::read(out);
            format!(
                "{}; not {log}: {}",
                o.summary(w),
                sample(&w.missing(&ids(&o)))
            )
        },
    )
}
