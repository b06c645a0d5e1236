//! `egret metrics NAME`: the latest metrics of every process of a topology as
//! one table. On the local cluster, from its snapshots (`DIR/metrics/*.json`,
//! contracts.md "Metrics snapshots (local)"); on a cluster, from its topology
//! master, which keeps what each container's stream manager reports.

use anyhow::Context as _;
use egret_metrics::Snapshot;
use egret_proto::v1::{Empty, client_request::Request};
use egret_state_manager::{Backend, LocalCluster};

use crate::manage::render_table;

fn format_value(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        format!("{value:.3}")
    }
}

/// The table of every metric of topology `name`, sorted by process, name,
/// component and task.
pub fn render(cluster: &LocalCluster, name: &str) -> anyhow::Result<String> {
    let dir = cluster.topology(name)?;
    let snapshots = egret_metrics::read_snapshots(dir.path())
        .with_context(|| format!("cannot read the metrics of topology '{name}'"))?;
    Ok(table(name, snapshots))
}

/// How long `egret metrics` waits for a cluster's topology master.
const METRICS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The same table for topology `name` of the cluster whose state manager is
/// `state`, as its topology master has the metrics.
pub async fn render_cluster(
    state: &Backend,
    config: &egret_config::Layered,
    name: &str,
) -> anyhow::Result<String> {
    let response = crate::hosts::ask(
        state,
        config,
        name,
        Request::Metrics(Empty {}),
        METRICS_TIMEOUT,
    )
    .await?;
    Ok(table(
        name,
        response.metrics.into_iter().map(Snapshot::from).collect(),
    ))
}

fn table(name: &str, snapshots: Vec<Snapshot>) -> String {
    let mut rows: Vec<(String, String, String, i32, f64)> = snapshots
        .into_iter()
        .flat_map(|s| {
            let process = s.process;
            s.metrics
                .into_iter()
                .map(move |m| (process.clone(), m.name, m.component, m.task, m.value))
        })
        .collect();
    if rows.is_empty() {
        return format!("Topology '{name}' has written no metrics yet.");
    }
    rows.sort_by(|a, b| {
        (&a.0, &a.1, &a.2, a.3)
            .cmp(&(&b.0, &b.1, &b.2, b.3))
            .then(a.4.total_cmp(&b.4))
    });
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|(process, metric, component, task, value)| {
            vec![
                process,
                metric,
                component,
                task.to_string(),
                format_value(value),
            ]
        })
        .collect();
    render_table(&["PROCESS", "NAME", "COMPONENT", "TASK", "VALUE"], &rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use egret_metrics::{MetricKey, Registry, SnapshotWriter};
    use std::time::Instant;

    #[test]
    fn prints_every_process_sorted_and_names_a_missing_topology() {
        let tmp = tempfile::tempdir().unwrap();
        let cluster = LocalCluster::new(tmp.path());
        let missing = render(&cluster, "wc").unwrap_err().to_string();
        assert!(missing.contains("wc"), "{missing}");

        let dir = cluster.create_topology("wc").unwrap();
        dir.write_topology(&egret_proto::v1::Topology::default())
            .unwrap();
        assert!(render(&cluster, "wc").unwrap().contains("no metrics yet"));
        let stmgr = Registry::new();
        stmgr.set(MetricKey::new("__ack-count", "spout", 4), 12.0);
        stmgr.set(MetricKey::new("__ack-count", "spout", 3), 7.0);
        stmgr.set(MetricKey::new("__complete-latency-ms", "spout", 3), 1.25);
        SnapshotWriter::new(dir.path(), "stmgr-1")
            .write_now(&stmgr, Instant::now())
            .unwrap();
        let scheduler = Registry::new();
        scheduler.set(MetricKey::new("egret.restarts", "tmaster", 0), 2.0);
        SnapshotWriter::new(dir.path(), "scheduler")
            .write_now(&scheduler, Instant::now())
            .unwrap();

        let table = render(&cluster, "wc").unwrap();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 5, "{table}");
        assert!(lines[0].starts_with("PROCESS"), "{table}");
        let cells: Vec<Vec<&str>> = lines[1..]
            .iter()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(
            cells[0],
            vec!["scheduler", "egret.restarts", "tmaster", "0", "2"]
        );
        assert_eq!(cells[1], vec!["stmgr-1", "__ack-count", "spout", "3", "7"]);
        assert_eq!(cells[2], vec!["stmgr-1", "__ack-count", "spout", "4", "12"]);
        assert_eq!(
            cells[3],
            vec!["stmgr-1", "__complete-latency-ms", "spout", "3", "1.250"]
        );
    }
}
