//! `egret stats NAME [--window W]`: Storm's built-in statistics of a topology,
//! per component, as its topology master aggregates them (contracts.md
//! "Nimbus statistics and the Nimbus client"). Counts are exact.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{Context as _, bail};
use egret_proto::v1::{ClientRequest, ClientResponse, Empty, client_request};
use egret_state_manager::LocalCluster;

use crate::manage::render_table;

const STATS_TIMEOUT: Duration = Duration::from_secs(5);

/// The window keys `--window` accepts (Storm's).
pub const WINDOWS: [&str; 4] = [":all-time", "600", "10800", "86400"];

#[derive(Default)]
struct Row {
    spout: bool,
    executors: usize,
    emitted: u64,
    transferred: u64,
    acked: u64,
    failed: u64,
    executed: u64,
    /// complete (spouts) or process (bolts) latency sum, ms, with its count (`acked`).
    latency_sum: f64,
    execute_sum: f64,
}

fn sum(map: &std::collections::HashMap<String, u64>) -> u64 {
    map.values().fold(0u64, |a, b| a.saturating_add(*b))
}

fn quantile(spout: bool, value: Option<f64>) -> String {
    match value {
        Some(v) if spout && v > 0.0 => format!("{v:.3}"),
        _ => "-".to_owned(),
    }
}

fn average(total: f64, count: u64) -> String {
    if count == 0 {
        "-".to_owned()
    } else {
        format!("{:.3}", total / count as f64)
    }
}

/// The complete latency quantiles of each spout component, from a `metrics`
/// answer: the stream managers' ledgers measure them per spout task, since
/// start; a component shows its busiest task's (the highest).
pub fn quantiles(metrics: &ClientResponse) -> BTreeMap<String, (f64, f64)> {
    let mut out: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for p in &metrics.metrics {
        for m in &p.metrics {
            let slot = match m.name.as_str() {
                "__complete-latency-p50-ms" => 0,
                "__complete-latency-p99-ms" => 1,
                _ => continue,
            };
            let q = out.entry(m.component.clone()).or_default();
            let v = if slot == 0 { &mut q.0 } else { &mut q.1 };
            *v = v.max(m.value);
        }
    }
    out
}

/// Renders the per-component table of one window of a `topology_info`
/// answer, with the spouts' complete latency quantiles (since start).
pub fn render_response(
    response: &ClientResponse,
    window: &str,
    quantiles: &BTreeMap<String, (f64, f64)>,
) -> String {
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    for executor in &response.executors {
        let row = rows.entry(executor.component.clone()).or_default();
        row.spout = executor.is_spout;
        row.executors += 1;
        let Some(sums) = executor
            .windows
            .iter()
            .find(|w| w.window == window)
            .and_then(|w| w.sums.as_ref())
        else {
            continue;
        };
        row.emitted += sum(&sums.emitted);
        row.transferred += sum(&sums.transferred);
        row.acked += sum(&sums.acked);
        row.failed += sum(&sums.failed);
        row.executed += sum(&sums.executed);
        let latencies = if executor.is_spout {
            &sums.complete_ms_sum
        } else {
            &sums.process_ms_sum
        };
        row.latency_sum += latencies.values().sum::<f64>();
        row.execute_sum += sums.execute_ms_sum.values().sum::<f64>();
    }
    let table: Vec<Vec<String>> = rows
        .into_iter()
        .map(|(component, r)| {
            let component_key = component.clone();
            vec![
                component,
                if r.spout { "spout" } else { "bolt" }.to_owned(),
                r.executors.to_string(),
                r.emitted.to_string(),
                r.transferred.to_string(),
                r.acked.to_string(),
                r.failed.to_string(),
                if r.spout {
                    "-".to_owned()
                } else {
                    r.executed.to_string()
                },
                // Storm's "complete latency" for spouts, "process latency" for bolts.
                average(r.latency_sum, r.acked),
                if r.spout {
                    "-".to_owned()
                } else {
                    average(r.execute_sum, r.executed)
                },
                quantile(r.spout, quantiles.get(&component_key).map(|q| q.0)),
                quantile(r.spout, quantiles.get(&component_key).map(|q| q.1)),
            ]
        })
        .collect();
    render_table(
        &[
            "COMPONENT",
            "KIND",
            "EXECUTORS",
            "EMITTED",
            "TRANSFERRED",
            "ACKED",
            "FAILED",
            "EXECUTED",
            "LATENCY_MS",
            "EXECUTE_MS",
            "P50_MS",
            "P99_MS",
        ],
        &table,
    )
}

pub async fn show(cluster: &LocalCluster, name: &str, window: &str) -> anyhow::Result<String> {
    if !WINDOWS.contains(&window) {
        bail!("unknown window '{window}' (one of {})", WINDOWS.join(", "));
    }
    let dir = cluster.topology(name)?;
    let response = egret_topology_master::client::request(
        dir.path(),
        ClientRequest {
            request: Some(client_request::Request::TopologyInfo(Empty {})),
        },
        STATS_TIMEOUT,
    )
    .await
    .with_context(|| format!("cannot reach the topology master of '{name}'"))?;
    if !response.ok {
        bail!("topology '{name}' refused: {}", response.error);
    }
    // The quantiles are the ledgers' metrics: without them the columns show "-".
    let metrics = egret_topology_master::client::request(
        dir.path(),
        ClientRequest {
            request: Some(client_request::Request::Metrics(Empty {})),
        },
        STATS_TIMEOUT,
    )
    .await
    .unwrap_or_default();
    Ok(render(name, window, &response, &quantiles(&metrics)))
}

/// `egret stats` of a topology of a multi-host cluster (its master found in
/// the state manager).
pub async fn show_cluster(
    state: &egret_state_manager::Backend,
    config: &egret_config::Layered,
    name: &str,
    window: &str,
) -> anyhow::Result<String> {
    if !WINDOWS.contains(&window) {
        bail!("unknown window '{window}' (one of {})", WINDOWS.join(", "));
    }
    let response = crate::hosts::ask(
        state,
        config,
        name,
        client_request::Request::TopologyInfo(Empty {}),
        STATS_TIMEOUT,
    )
    .await?;
    let metrics = crate::hosts::ask(
        state,
        config,
        name,
        client_request::Request::Metrics(Empty {}),
        STATS_TIMEOUT,
    )
    .await
    .unwrap_or_default();
    Ok(render(name, window, &response, &quantiles(&metrics)))
}

fn render(
    name: &str,
    window: &str,
    response: &ClientResponse,
    quantiles: &BTreeMap<String, (f64, f64)>,
) -> String {
    let uptime = response.summary.as_ref().map_or(0, |s| s.uptime_secs);
    format!(
        "Topology '{name}', window {window}, uptime {uptime}s (exact counts; latencies are averages over acked or executed tuples; P50/P99: spouts' complete latency since start, busiest task):\n{}",
        render_response(response, window, quantiles)
    )
}

#[cfg(test)]
mod tests {
    use egret_proto::v1::{ExecutorStatsSummary, TaskStatsDelta, WindowedStats};

    use super::*;

    fn executor(component: &str, spout: bool, acked: u64, latency: f64) -> ExecutorStatsSummary {
        ExecutorStatsSummary {
            component: component.into(),
            is_spout: spout,
            windows: vec![WindowedStats {
                window: "600".into(),
                sums: Some(TaskStatsDelta {
                    emitted: [("default".to_owned(), acked * 2)].into(),
                    acked: [("default".to_owned(), acked)].into(),
                    complete_ms_sum: [("default".to_owned(), latency)].into(),
                    process_ms_sum: [("spout:default".to_owned(), latency)].into(),
                    ..Default::default()
                }),
            }],
            ..Default::default()
        }
    }

    fn metric(name: &str, component: &str, task: i32, value: f64) -> egret_proto::v1::MetricValue {
        egret_proto::v1::MetricValue {
            name: name.into(),
            component: component.into(),
            task,
            value,
        }
    }

    #[test]
    fn sums_executors_per_component_and_averages_latencies() {
        let response = ClientResponse {
            ok: true,
            executors: vec![
                executor("spout", true, 10, 50.0),
                executor("spout", true, 30, 30.0),
                executor("count", false, 4, 2.0),
            ],
            ..Default::default()
        };
        let metrics = ClientResponse {
            metrics: vec![egret_proto::v1::ProcessMetrics {
                process: "stmgr-1".into(),
                updated_ms: 0,
                metrics: vec![
                    metric("__complete-latency-p50-ms", "spout", 3, 1.5),
                    metric("__complete-latency-p50-ms", "spout", 4, 2.25),
                    metric("__complete-latency-p99-ms", "spout", 3, 9.0),
                    metric("__ack-count", "spout", 3, 40.0),
                ],
            }],
            ..Default::default()
        };
        let q = quantiles(&metrics);
        assert_eq!(q.get("spout"), Some(&(2.25, 9.0)), "the busiest task's");
        let table = render_response(&response, "600", &q);
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].starts_with("COMPONENT"));
        let spout: Vec<&str> = lines[2].split_whitespace().collect();
        assert_eq!(spout[..7], ["spout", "spout", "2", "80", "0", "40", "0"]);
        assert_eq!(spout[8], "2.000");
        let count: Vec<&str> = lines[1].split_whitespace().collect();
        assert_eq!(count[0], "count");
        assert_eq!(count[8], "0.500");
        // Another window has nothing: zero counts, no latency.
        assert_eq!(spout[10..], ["2.250", "9.000"]);
        assert_eq!(count[10..], ["-", "-"], "bolts have no complete latency");
        let empty = render_response(&response, ":all-time", &BTreeMap::new());
        assert!(empty.lines().nth(2).unwrap().contains(" -"), "{empty}");
    }
}
