//! `egret checkpoints NAME`: the complete checkpoints of a topology of the local
//! cluster, newest first, as its checkpoint store holds them (id, when it
//! completed, tasks, how many of their state files are deltas, bytes of the
//! files).

use std::sync::Arc;

use anyhow::Context as _;
use egret_checkpoint_store::{CheckpointInfo, Checkpoints, LocalDirStore};
use egret_state_manager::LocalCluster;

pub fn render(cluster: &LocalCluster, name: &str) -> anyhow::Result<String> {
    let dir = cluster.topology_dir(name);
    if !dir.path().is_dir() {
        anyhow::bail!(
            "no topology '{name}' on the local cluster ({} does not exist)",
            dir.path().display()
        );
    }
    let topology = dir
        .read_topology()
        .with_context(|| format!("reading topology '{name}'"))?;
    let settings = egret_config::settings::checkpoint_settings(&topology, dir.path())?;
    let store = Checkpoints::new(
        Arc::new(LocalDirStore::new(&settings.dir)),
        &topology.name,
        settings.retain,
    );
    let complete = store
        .list_complete()
        .with_context(|| format!("listing the checkpoints in {}", settings.dir.display()))?;
    Ok(table(name, &settings.dir.display().to_string(), &complete))
}

fn table(name: &str, dir: &str, complete: &[CheckpointInfo]) -> String {
    if complete.is_empty() {
        return format!("Topology '{name}' has no complete checkpoint (in {dir}).\n");
    }
    let mut out = format!(
        "{:<10} {:<24} {:>6} {:>6} {:>12}\n",
        "ID", "COMPLETED (UTC)", "TASKS", "DELTAS", "BYTES"
    );
    for c in complete {
        out.push_str(&format!(
            "{:<10} {:<24} {:>6} {:>6} {:>12}\n",
            c.txid,
            utc(c.time_ms),
            c.tasks.len(),
            c.tasks.iter().filter(|t| t.base().is_some()).count(),
            c.total_bytes()
        ));
    }
    out.push_str(&format!(
        "{} complete checkpoint(s) of '{name}' in {dir}\n",
        complete.len()
    ));
    out
}

/// `YYYY-MM-DD HH:MM:SS.mmm` of milliseconds since the Unix epoch (UTC).
fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{:03}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;
    use egret_proto::v1::Topology;

    #[test]
    fn lists_complete_checkpoints_newest_first() {
        let tmp = tempfile::tempdir().unwrap();
        let cluster = LocalCluster::new(tmp.path());
        assert!(
            render(&cluster, "wc")
                .unwrap_err()
                .to_string()
                .contains("no topology 'wc'")
        );
        let dir = cluster.topology_dir("wc");
        std::fs::create_dir_all(dir.path()).unwrap();
        dir.write_topology(&Topology {
            name: "wc".into(),
            config_json: "{}".into(),
            ..Default::default()
        })
        .unwrap();
        assert!(
            render(&cluster, "wc")
                .unwrap()
                .contains("no complete checkpoint")
        );
        let store = Checkpoints::new(
            Arc::new(LocalDirStore::new(dir.path().join("checkpoints"))),
            "wc",
            3,
        );
        for txid in 0..2 {
            for task in [1, 2] {
                // Task 1's checkpoint 1: a delta on 0.
                let base = (task == 1 && txid == 1).then_some(0);
                store
                    .save_committed(task, &format!("sum-{task}"), txid, base, &[7; 100])
                    .unwrap();
            }
            store.complete(txid, 1_764_633_600_000 + 1500).unwrap();
        }
        // Prepared only: not complete, not listed.
        store.save_prepared(1, "sum-1", 2, None, b"x").unwrap();
        let shown = render(&cluster, "wc").unwrap();
        let rows: Vec<Vec<&str>> = shown
            .lines()
            .skip(1)
            .take(2)
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(rows[0][0], "1", "{shown}");
        assert_eq!(rows[1][0], "0", "{shown}");
        assert_eq!(&rows[0][1..3], ["2025-12-02", "00:00:01.500"], "{shown}");
        assert_eq!(rows[0][3], "2", "{shown}");
        assert_eq!((rows[0][4], rows[1][4]), ("1", "0"), "{shown}");
        let bytes: u64 = rows[0][5].parse().unwrap();
        assert!(bytes > 200, "{shown}");
        assert!(shown.contains("2 complete checkpoint(s)"), "{shown}");
    }
}
