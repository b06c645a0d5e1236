//! `--guarantees`: the bench's stateful workload (`dev.egret.bench.StatefulCountTopology`:
//! a replayable spout into a stateful count bolt) on Egret under each delivery
//! guarantee and checkpoint interval, and its recovery after a `kill -9` of
//! one of the count bolt's JVMs at the end of each measured window.
//!
//! - `egret-atleast`: at-least-once (Storm's checkpoint protocol, state
//!   committed every second);
//! - `egret-eo-10s`: effectively once with a checkpoint every 10 s
//!   (snapshots only: low overhead, everything since the last one replayed);
//! - `egret-eo-1s`: effectively once at Storm's default interval (1 s);
//! - `egret-eo-1s-pause`: the same, aligned by pausing the spouts at each
//!   PREPARE instead of buffering (`egret.checkpoint.alignment.bytes=0`);
//! - `egret-eo-100ms`: effectively once with frequent snapshots (100 ms:
//!   higher overhead, little to replay);
//! - `egret-eo-100ms-delta`: the hybrid, checkpoints every 100 ms with the
//!   state stored whole at one in ten and as deltas (the keys changed) at the
//!   others (`egret.checkpoint.full.every=10`): what a checkpoint writes
//!   follows what changed, not the size of the state.
//!
//! `--modes` picks some of them; `-- keys=N` sets the state's size (the
//! spout's keys, each counted in turn).
//!
//! A stateful bolt acks a tuple only at the commit that covers it (Storm's
//! rule, under both guarantees), so a spout task has at most
//! `topology.max.spout.pending` trees per checkpoint interval: every mode runs
//! with 100 000 pending and Storm's default 30 s message timeout (above the
//! longest interval), so that the interval, not the cap, sets the pace.
//!
//! Recovery is the time from the `kill -9` until the spouts' acks, over a
//! span of at least one second, are back to half the window's rate (read
//! from the hook's per-task files, which it rewrites every second).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::cumulative::Snapshot;
use crate::runner::WindowObserver;

/// The workload's main class (in the hook jar).
pub const MAIN_CLASS: &str = "dev.egret.bench.StatefulCountTopology";
/// The stateful bolt whose JVM is killed.
pub const KILLED_COMPONENT: &str = "count";
/// The longest wait for recovery.
pub const RECOVERY_LIMIT: Duration = Duration::from_secs(120);
/// Recovered: acks back to this share of the window's rate.
pub const RECOVERED_SHARE: f64 = 0.5;

/// One guarantee: its system name, what it is, and its topology options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mode {
    pub system: &'static str,
    pub what: &'static str,
    pub options: Vec<String>,
}

fn mode(system: &'static str, what: &'static str, reliability: &str, interval_ms: u32) -> Mode {
    Mode {
        system,
        what,
        options: vec![
            format!("topology.reliability.mode={reliability}"),
            format!("topology.state.checkpoint.interval.ms={interval_ms}"),
            "topology.message.timeout.secs=30".to_owned(),
            "topology.max.spout.pending=100000".to_owned(),
        ],
    }
}

fn with_option(mut mode: Mode, option: &str) -> Mode {
    mode.options.push(option.to_owned());
    mode
}

/// The modes, in the order they run in each round.
pub fn modes() -> Vec<Mode> {
    vec![
        mode(
            "egret-atleast",
            "at-least-once, state committed every 1 s",
            "ATLEAST_ONCE",
            1000,
        ),
        mode(
            "egret-eo-10s",
            "effectively once, snapshots every 10 s (low overhead, long replay)",
            "EFFECTIVELY_ONCE",
            10_000,
        ),
        mode(
            "egret-eo-1s",
            "effectively once, snapshots every 1 s (Storm's default interval)",
            "EFFECTIVELY_ONCE",
            1000,
        ),
        with_option(
            mode(
                "egret-eo-1s-pause",
                "effectively once, snapshots every 1 s, aligned by pausing the spouts",
                "EFFECTIVELY_ONCE",
                1000,
            ),
            "egret.checkpoint.alignment.bytes=0",
        ),
        mode(
            "egret-eo-100ms",
            "effectively once, snapshots every 100 ms (higher overhead, short replay)",
            "EFFECTIVELY_ONCE",
            100,
        ),
        with_option(
            mode(
                "egret-eo-100ms-delta",
                "effectively once, checkpoints every 100 ms, whole at one in ten, deltas between (hybrid)",
                "EFFECTIVELY_ONCE",
                100,
            ),
            "egret.checkpoint.full.every=10",
        ),
    ]
}

/// The mode a system name stands for.
pub fn find(system: &str) -> Option<Mode> {
    modes().into_iter().find(|m| m.system == system)
}

/// The modes `--modes` names, in its order (empty: every mode); an unknown
/// name is refused with the known ones.
pub fn select(names: &[String]) -> Result<Vec<Mode>, String> {
    if names.is_empty() {
        return Ok(modes());
    }
    names
        .iter()
        .map(|name| {
            find(name).ok_or_else(|| {
                let known: Vec<&str> = modes().iter().map(|m| m.system).collect();
                format!("unknown mode '{name}' in --modes ({})", known.join(", "))
            })
        })
        .collect()
}

/// The spout tasks' acks so far, summed; `None` while no spout has reported.
fn spout_acks(output_dir: &Path) -> Option<u64> {
    let snapshot = Snapshot::read(output_dir).ok()?;
    let spouts: Vec<u64> = snapshot
        .tasks
        .values()
        .filter(|t| t.spout)
        .map(|t| t.acked)
        .collect();
    (!spouts.is_empty()).then(|| spouts.iter().sum())
}

/// The first process of `pids` whose environment names an instance of
/// `component` (`EGRET_INSTANCE_ID=<component>-<n>`).
pub fn instance_pid(proc_root: &Path, pids: &[i32], component: &str) -> Option<i32> {
    let prefix = format!("EGRET_INSTANCE_ID={component}-");
    pids.iter().copied().find(|pid| {
        std::fs::read(proc_root.join(pid.to_string()).join("environ")).is_ok_and(|env| {
            env.split(|b| *b == 0)
                .any(|var| var.starts_with(prefix.as_bytes()))
        })
    })
}

/// The first time, in `samples` (seconds since the kill, acks since the
/// kill), at which the acks over the span back to a sample at least
/// `min_span` seconds earlier reach `share × rate` per second.
pub fn recovered_at(samples: &[(f64, u64)], rate: f64, share: f64, min_span: f64) -> Option<f64> {
    for (i, &(t, acked)) in samples.iter().enumerate() {
        let earlier = samples[..i].iter().rev().find(|(t0, _)| t - t0 >= min_span);
        if let Some(&(t0, a0)) = earlier
            && (acked.saturating_sub(a0)) as f64 >= share * rate * (t - t0)
        {
            return Some(t);
        }
    }
    None
}

/// Kills one of the count bolt's JVMs when the window ends and measures how
/// long the topology takes to recover (see the module's doc).
pub struct RecoveryProbe {
    output_dir: PathBuf,
    pids: Vec<i32>,
    /// When the window started and the spouts' acks then.
    start: Option<(Instant, u64)>,
    /// The outcome of the window that ended: seconds to recover, or why not measured.
    pub recovery: Option<Result<f64, String>>,
}

impl RecoveryProbe {
    pub fn new(output_dir: PathBuf) -> Self {
        Self {
            output_dir,
            pids: Vec::new(),
            start: None,
            recovery: None,
        }
    }

    fn measure(&mut self) -> Result<f64, String> {
        let (started, acked_at_start) = self.start.ok_or("the window did not start")?;
        let before = spout_acks(&self.output_dir).ok_or("no spout reported")?;
        let secs = started.elapsed().as_secs_f64();
        let rate = before.saturating_sub(acked_at_start) as f64 / secs.max(1.0);
        if rate <= 0.0 {
            return Err("no acks in the window".into());
        }
        let pid = instance_pid(Path::new("/proc"), &self.pids, KILLED_COMPONENT)
            .ok_or("no JVM of the count bolt among the run's processes")?;
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        )
        .map_err(|e| format!("kill -9 {pid}: {e}"))?;
        let killed = Instant::now();
        tracing::info!(
            pid,
            rate,
            "Killed a JVM of the count bolt; measuring recovery."
        );
        let mut samples = Vec::new();
        while killed.elapsed() < RECOVERY_LIMIT {
            std::thread::sleep(Duration::from_millis(200));
            if let Some(acked) = spout_acks(&self.output_dir) {
                samples.push((killed.elapsed().as_secs_f64(), acked.saturating_sub(before)));
                if let Some(t) = recovered_at(&samples, rate, RECOVERED_SHARE, 1.0) {
                    return Ok(t);
                }
            }
        }
        Err(format!(
            "not recovered within {} s",
            RECOVERY_LIMIT.as_secs()
        ))
    }
}

impl WindowObserver for RecoveryProbe {
    fn window_started(&mut self, live_pids: &[i32]) {
        self.pids = live_pids.to_vec();
        // The hook's counts are cumulative from the task's start: a spout
        // that has not written its file yet has acked nothing so far.
        self.start = Some((Instant::now(), spout_acks(&self.output_dir).unwrap_or(0)));
    }

    fn window_ended(&mut self) {
        self.recovery = Some(self.measure());
    }
}

/// The terminal table of recovery times.
pub fn table(rows: &[(String, u32, Result<f64, String>)]) -> String {
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|(system, round, r)| {
            vec![
                system.clone(),
                round.to_string(),
                match r {
                    Ok(s) => format!("{s:.1}"),
                    Err(e) => format!("- ({e})"),
                },
            ]
        })
        .collect();
    format!(
        "Recovery after kill -9 of a {KILLED_COMPONENT} JVM (seconds until acks are back to {:.0} % of the window's rate):\n{}",
        RECOVERED_SHARE * 100.0,
        crate::report::render_table(&["system", "round", "recovery s"], &body, |i| i == 0)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_names_its_guarantee_and_interval() {
        let all = modes();
        assert_eq!(all.len(), 6);
        let hybrid = find("egret-eo-100ms-delta").unwrap();
        assert!(
            hybrid
                .options
                .contains(&"egret.checkpoint.full.every=10".to_owned())
        );
        let pause = find("egret-eo-1s-pause").unwrap();
        assert!(
            pause
                .options
                .contains(&"egret.checkpoint.alignment.bytes=0".to_owned())
        );
        assert!(
            all[0]
                .options
                .contains(&"topology.reliability.mode=ATLEAST_ONCE".to_owned())
        );
        let eo = find("egret-eo-100ms").unwrap();
        assert!(
            eo.options
                .contains(&"topology.state.checkpoint.interval.ms=100".to_owned())
        );
        assert!(
            eo.options
                .contains(&"topology.reliability.mode=EFFECTIVELY_ONCE".to_owned())
        );
        assert!(find("egret").is_none());
    }

    #[test]
    fn modes_selects_by_name_in_order_and_refuses_unknown_ones() {
        assert_eq!(select(&[]).unwrap().len(), modes().len());
        let picked = select(&["egret-eo-100ms-delta".into(), "egret-atleast".into()]).unwrap();
        assert_eq!(
            picked.iter().map(|m| m.system).collect::<Vec<_>>(),
            ["egret-eo-100ms-delta", "egret-atleast"]
        );
        let err = select(&["egret-eo-5s".into()]).unwrap_err();
        assert!(
            err.contains("egret-eo-5s") && err.contains("egret-eo-100ms-delta"),
            "{err}"
        );
    }

    #[test]
    fn recovery_is_the_first_span_back_at_the_share() {
        // 1000/s before; nothing for 3 s, then 600/s.
        let samples = [
            (0.5, 0),
            (1.0, 0),
            (2.0, 0),
            (3.0, 0),
            (3.5, 300),
            (4.0, 600),
            (4.5, 900),
        ];
        // At 4.0: 600 since 3.0 (1 s) ≥ 500.
        assert_eq!(recovered_at(&samples, 1000.0, 0.5, 1.0), Some(4.0));
        assert_eq!(recovered_at(&samples, 1000.0, 0.9, 1.0), None);
        assert_eq!(recovered_at(&[], 1000.0, 0.5, 1.0), None);
    }

    #[test]
    fn finds_the_instance_by_its_environment() {
        let root = tempfile::tempdir().unwrap();
        for (pid, env) in [
            (10, "A=1\0EGRET_INSTANCE_ID=spout-1\0"),
            (11, "EGRET_INSTANCE_ID=count-2\0B=2\0"),
        ] {
            let dir = root.path().join(pid.to_string());
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("environ"), env).unwrap();
        }
        assert_eq!(instance_pid(root.path(), &[10, 11, 12], "count"), Some(11));
        assert_eq!(instance_pid(root.path(), &[10, 12], "count"), None);
    }
}
