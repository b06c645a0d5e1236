//! `egret monitor NAME [-i SECS] [-m COMPONENT] [-s STREAM] [-w emitted|transferred]`:
//! a component's live throughput on one output stream, as `storm monitor`
//! prints it: a tab-separated header, then every interval one row of the
//! topology, the component, its parallelism (executors), the stream, the
//! milliseconds since the previous row, the tuples counted in them, and the
//! throughput in thousands of tuples a second (tuples per millisecond).
//! Without `-m` it lists the topology's components, as `storm monitor` does.
//!
//! Counts are the master's exact all-time sums (`egret stats`), not samples.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use egret_proto::v1::{ClientRequest, ClientResponse, Empty, client_request};

const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// What `-w` watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watch {
    Emitted,
    Transferred,
}

impl Watch {
    pub fn parse(s: &str) -> anyhow::Result<Self> {
        match s {
            "emitted" => Ok(Watch::Emitted),
            "transferred" => Ok(Watch::Transferred),
            other => bail!("watch item must be emitted or transferred, not '{other}'"),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Watch::Emitted => "emitted",
            Watch::Transferred => "transferred",
        }
    }
}

/// The header line.
pub fn header(watch: Watch) -> String {
    format!(
        "topology\tcomponent\tparallelism\tstream\ttime-diff ms\t{}\tthroughput (Kt/s)",
        watch.name()
    )
}

/// The components of a `topology_info` answer, sorted.
pub fn components(response: &ClientResponse) -> BTreeSet<String> {
    response
        .executors
        .iter()
        .map(|e| e.component.clone())
        .collect()
}

/// The component's parallelism and its all-time count on `stream`, or an
/// error naming what is missing.
pub fn count(
    response: &ClientResponse,
    component: &str,
    stream: &str,
    watch: Watch,
) -> anyhow::Result<(usize, u64)> {
    let mut parallelism = 0;
    let mut total = 0u64;
    let mut found = false;
    for executor in response
        .executors
        .iter()
        .filter(|e| e.component == component)
    {
        parallelism += 1;
        let sums = executor
            .windows
            .iter()
            .find(|w| w.window == ":all-time")
            .and_then(|w| w.sums.as_ref());
        let Some(sums) = sums else { continue };
        let map = match watch {
            Watch::Emitted => &sums.emitted,
            Watch::Transferred => &sums.transferred,
        };
        if let Some(n) = map.get(stream) {
            found = true;
            total = total.saturating_add(*n);
        }
    }
    if parallelism == 0 {
        bail!(
            "component: {component} not found (components: {})",
            components(response)
                .into_iter()
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if !found {
        bail!("stream: {stream} not found");
    }
    Ok((parallelism, total))
}

/// One row: `delta` tuples over `elapsed_ms`.
pub fn row(
    topology: &str,
    component: &str,
    parallelism: usize,
    stream: &str,
    elapsed_ms: u64,
    delta: u64,
) -> String {
    let throughput = if elapsed_ms == 0 {
        0.0
    } else {
        delta as f64 / elapsed_ms as f64
    };
    format!("{topology}\t{component}\t{parallelism}\t{stream}\t{elapsed_ms}\t{delta}\t{throughput}")
}

async fn topology_info(cfg: &egret_config::Layered, name: &str) -> anyhow::Result<ClientResponse> {
    let request = client_request::Request::TopologyInfo(Empty {});
    let response = match crate::hosts::cluster_of(cfg).await? {
        Some(state) => crate::hosts::ask(&state, cfg, name, request, REQUEST_TIMEOUT).await?,
        None => {
            let dir = crate::manage::cluster(cfg)?.topology(name)?;
            egret_topology_master::client::request(
                dir.path(),
                ClientRequest {
                    request: Some(request),
                },
                REQUEST_TIMEOUT,
            )
            .await
            .with_context(|| format!("cannot reach the topology master of '{name}'"))?
        }
    };
    if !response.ok {
        bail!("topology '{name}' refused: {}", response.error);
    }
    Ok(response)
}

/// The options of `egret monitor`.
#[derive(Debug, Clone)]
pub struct MonitorOptions {
    pub name: String,
    pub interval: Duration,
    pub component: Option<String>,
    pub stream: String,
    pub watch: Watch,
    /// Stop after this many rows (Storm's monitor runs until interrupted).
    pub rows: Option<u64>,
}

pub async fn run(cfg: &egret_config::Layered, options: &MonitorOptions) -> anyhow::Result<()> {
    if options.interval.is_zero() {
        bail!("poll interval must be positive");
    }
    let name = &options.name;
    let first = topology_info(cfg, name).await?;
    let Some(component) = options.component.as_deref().filter(|c| !c.is_empty()) else {
        println!("Available components for {name} :");
        println!("------------------");
        for component in components(&first) {
            println!("{component}");
        }
        println!("------------------");
        println!("Please use -m to specify one component");
        return Ok(());
    };
    let (_, mut last) = count(&first, component, &options.stream, options.watch)?;
    println!("{}", header(options.watch));
    let start = Instant::now();
    let mut last_at = start;
    let mut printed = 0u64;
    loop {
        if options.rows.is_some_and(|n| printed >= n) {
            return Ok(());
        }
        // Fixed cadence from the start, as Storm's poller keeps it.
        let next = start + options.interval * u32::try_from(printed + 1).unwrap_or(u32::MAX);
        tokio::time::sleep_until(tokio::time::Instant::from_std(next)).await;
        let response = topology_info(cfg, name).await?;
        let (parallelism, total) = count(&response, component, &options.stream, options.watch)?;
        let now = Instant::now();
        let elapsed_ms = u64::try_from(now.duration_since(last_at).as_millis()).unwrap_or(u64::MAX);
        println!(
            "{}",
            row(
                name,
                component,
                parallelism,
                &options.stream,
                elapsed_ms,
                total.saturating_sub(last)
            )
        );
        last = total;
        last_at = now;
        printed += 1;
    }
}

#[cfg(test)]
mod tests {
    use egret_proto::v1::{ExecutorStatsSummary, TaskStatsDelta, WindowedStats};

    use super::*;

    fn executor(component: &str, emitted: u64) -> ExecutorStatsSummary {
        ExecutorStatsSummary {
            component: component.into(),
            windows: vec![WindowedStats {
                window: ":all-time".into(),
                sums: Some(TaskStatsDelta {
                    emitted: [("default".to_owned(), emitted)].into(),
                    transferred: [("default".to_owned(), emitted * 2)].into(),
                    ..Default::default()
                }),
            }],
            ..Default::default()
        }
    }

    #[test]
    fn counts_sum_the_components_executors_and_name_what_is_missing() {
        let response = ClientResponse {
            ok: true,
            executors: vec![
                executor("split", 10),
                executor("split", 5),
                executor("count", 1),
            ],
            ..Default::default()
        };
        assert_eq!(
            count(&response, "split", "default", Watch::Emitted).unwrap(),
            (2, 15)
        );
        assert_eq!(
            count(&response, "split", "default", Watch::Transferred).unwrap(),
            (2, 30)
        );
        let err = count(&response, "nope", "default", Watch::Emitted)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("component: nope not found") && err.contains("count, split"),
            "{err}"
        );
        let err = count(&response, "split", "other", Watch::Emitted)
            .unwrap_err()
            .to_string();
        assert_eq!(err, "stream: other not found");
        assert!(Watch::parse("acked").is_err());
    }

    #[test]
    fn rows_are_storm_monitors() {
        assert_eq!(
            header(Watch::Emitted),
            "topology\tcomponent\tparallelism\tstream\ttime-diff ms\temitted\tthroughput (Kt/s)"
        );
        assert_eq!(
            row("wc", "split", 2, "default", 4000, 8000),
            "wc\tsplit\t2\tdefault\t4000\t8000\t2"
        );
        assert_eq!(
            row("wc", "split", 2, "default", 4000, 1000),
            "wc\tsplit\t2\tdefault\t4000\t1000\t0.25"
        );
        assert_eq!(row("wc", "s", 1, "d", 0, 5), "wc\ts\t1\td\t0\t5\t0");
    }
}
