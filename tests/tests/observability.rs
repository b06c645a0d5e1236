//! Observing a running topology (docs/observing.md), on ONE word-count
//! topology shared by every check (each check is a function of the one test):
//! - the metrics manager's Prometheus endpoint, scraped and parsed with a real
//!   parser (`prometheus-parse`): the counters equal the word count's exact counts;
//! - two Graphite sinks, one at a port that accepts and never reads, one at
//!   nothing: their drop counters rise, their queues stay bounded, and the
//!   topology's counts are still exact;
//! - the rotating-file sink: the last batch of JSON lines in each
//!   container's `logs/metrics-N.jsonl` holds the same exact counts;
//! - the `storm` command's operating habits: `egret version`, `egret monitor`,
//!   `egret logs`.
//!
//! Throughput with and without the sinks is compared by `egret bench
//! --graphite-sinks` (docs/bench.md), not here: no timing is asserted.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::path::Path;
use std::time::Duration;

use egret_e2e::word_count::{SENTENCES, TOTAL, expected_counts};
use egret_e2e::{Cluster, QUIET_TIMEOUT, task_files, wait_until};

/// Batches a sink may queue (`egret.metrics.sink.queue.batches`).
const SINK_QUEUE: usize = 2;

fn finals(files: &BTreeMap<i32, Vec<String>>) -> BTreeMap<String, u64> {
    let mut finals = BTreeMap::new();
    for lines in files.values() {
        for line in lines {
            if let Some((word, count)) = line.split_once(' ')
                && let Ok(count) = count.parse::<u64>()
            {
                let total = finals.entry(word.to_owned()).or_insert(0);
                *total = (*total).max(count);
            }
        }
    }
    finals
}

/// A listener that accepts connections (the kernel does, from its backlog)
/// and never reads them, with a small receive buffer so a writer stalls soon.
fn never_reading_listener(runtime: &tokio::runtime::Runtime) -> tokio::net::TcpListener {
    runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket.set_recv_buffer_size(4096).expect("SO_RCVBUF");
        socket
            .bind("127.0.0.1:0".parse().expect("address"))
            .expect("bind");
        socket.listen(4).expect("listen")
    })
}

/// A port nothing listens on.
fn dead_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address").port()
}

/// Every container's Prometheus endpoint address, from `DIR/metrics/prometheus-N.addr`.
fn endpoints(topology_dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(topology_dir.join("metrics"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.starts_with("prometheus-") && name.ends_with(".addr")
                })
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// `GET /metrics` of one endpoint, parsed.
fn scrape(addr: &str) -> Result<prometheus_parse::Scrape, String> {
    let mut stream = std::net::TcpStream::connect(addr).map_err(|e| format!("{addr}: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: e2e\r\n\r\n")
        .map_err(|e| format!("{addr}: {e}"))?;
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .map_err(|e| format!("{addr}: {e}"))?;
    let (head, body) = response
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("{addr}: no HTTP head in {response:?}"))?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(format!("{addr}: {head}"));
    }
    prometheus_parse::Scrape::parse(body.lines().map(|l| Ok(l.to_owned())))
        .map_err(|e| format!("{addr}: unparsable exposition: {e}"))
}

fn value(sample: &prometheus_parse::Sample) -> f64 {
    match sample.value {
        prometheus_parse::Value::Counter(v)
        | prometheus_parse::Value::Gauge(v)
        | prometheus_parse::Value::Untyped(v) => v,
        _ => f64::NAN,
    }
}

/// The sum over every endpoint of `metric`'s samples whose labels hold `want`.
fn sum(scrapes: &[prometheus_parse::Scrape], metric: &str, want: &[(&str, &str)]) -> f64 {
    scrapes
        .iter()
        .flat_map(|s| s.samples.iter())
        .filter(|s| s.metric == metric)
        .filter(|s| want.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
        .map(value)
        .sum()
}

/// The counters the word count must show, with their exact values.
fn expected_counters() -> Vec<(&'static str, &'static str, f64)> {
    let words: usize = (0..TOTAL)
        .map(|i| SENTENCES[i % SENTENCES.len()].split(' ').count())
        .sum();
    let (sentences, words) = (TOTAL as f64, words as f64);
    vec![
        ("storm_emitted_total", "sentences", sentences),
        ("storm_transferred_total", "sentences", sentences),
        ("storm_executed_total", "split", sentences),
        ("storm_acked_total", "split", sentences),
        ("storm_emitted_total", "split", words),
        ("storm_transferred_total", "split", words),
        ("storm_executed_total", "count", words),
        ("storm_acked_total", "count", words),
    ]
}

fn counters(scrapes: &[prometheus_parse::Scrape], topology: &str) -> Vec<f64> {
    expected_counters()
        .iter()
        .map(|(metric, component, _)| {
            sum(
                scrapes,
                metric,
                &[("topology", topology), ("component", component)],
            )
        })
        .collect()
}

fn scrape_all(dir: &Path, containers: usize) -> Result<Vec<prometheus_parse::Scrape>, String> {
    let addrs = endpoints(dir);
    if addrs.len() != containers {
        return Err(format!(
            "{} endpoint files of {containers}: {addrs:?}",
            addrs.len()
        ));
    }
    addrs.iter().map(|a| scrape(a)).collect()
}

fn fail(cluster: &Cluster, e: &dyn std::fmt::Display) -> ! {
    panic!("{e}\n{}", cluster.describe_logs(20));
}

#[test]
fn observing_the_word_count() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let stalled = never_reading_listener(&runtime);
    let stalled_addr = stalled.local_addr().expect("address").to_string();
    let dead_addr = format!("127.0.0.1:{}", dead_port());

    let cluster = Cluster::new("observability").expect("cluster");
    let name = cluster.topology_name();
    let graphite = format!("egret.metrics.graphite.address={stalled_addr},{dead_addr}");
    let queue = format!("egret.metrics.sink.queue.batches={SINK_QUEUE}");
    cluster
        .submit_example_with(
            "WordCountTopology",
            &name,
            &[
                "-c",
                "egret.metrics.prometheus.port=0",
                "-c",
                &graphite,
                "-c",
                "egret.metrics.sink.interval.secs=1",
                "-c",
                &queue,
                "-c",
                "egret.stats.interval.secs=1",
                "-c",
                "egret.metrics.file.enabled=true",
            ],
        )
        .expect("submit");

    let expected = expected_counts();
    let out = cluster.out_dir();
    wait_until(
        "every word to reach its expected count",
        Duration::from_secs(45),
        || (finals(&task_files(&out, "count")) == expected).then_some(()),
        || format!("{:?}", finals(&task_files(&out, "count"))),
    )
    .unwrap_or_else(|e| fail(&cluster, &e));

    prometheus_counters_equal_the_exact_counts(&cluster, &name);
    every_instance_reports_its_jvm_heap(&cluster, &name);
    the_metrics_file_has_the_exact_counts(&cluster, &name);
    sinks_drop_and_count_with_bounded_queues(&cluster, &name, &[&stalled_addr, &dead_addr]);
    // The sinks cost the topology nothing it counts.
    assert_eq!(
        finals(&task_files(&out, "count")),
        expected,
        "counts changed with the sinks stalled"
    );

    version_names_egret_and_the_storm_api(&cluster);
    monitor_prints_storm_monitors_rows(&cluster, &name);
    logs_print_and_follow_a_components_logs(&cluster, &name);

    drop(stalled);
    cluster.kill_and_check_clean(&name).expect("clean kill");
}

fn version_names_egret_and_the_storm_api(cluster: &Cluster) {
    let out = cluster.run(["version"]).expect("egret version");
    assert!(out.success(), "{}", out.describe());
    assert!(
        out.stdout.starts_with("Egret ") && out.stdout.contains("Storm API 2.8.3"),
        "{}",
        out.stdout
    );
}

fn monitor_prints_storm_monitors_rows(cluster: &Cluster, name: &str) {
    // Without -m: the components, as storm monitor lists them.
    let out = cluster.run(["monitor", name]).expect("egret monitor");
    assert!(out.success(), "{}", out.describe());
    for component in ["sentences", "split", "count"] {
        assert!(
            out.stdout.lines().any(|l| l == component),
            "{component} not listed: {}",
            out.stdout
        );
    }
    let out = cluster
        .run(["monitor", name, "-m", "split", "-i", "1", "-n", "2"])
        .expect("egret monitor -m split");
    assert!(out.success(), "{}", out.describe());
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some("topology\tcomponent\tparallelism\tstream\ttime-diff ms\temitted\tthroughput (Kt/s)"),
        "{}",
        out.stdout
    );
    assert_eq!(lines.len(), 3, "{}", out.stdout);
    for row in &lines[1..] {
        let fields: Vec<&str> = row.split('\t').collect();
        assert_eq!(fields.len(), 7, "{row}");
        assert_eq!(fields[..4], [name, "split", "2", "default"], "{row}");
        let ms: u64 = fields[4].parse().expect("time-diff ms");
        assert!(ms > 0, "{row}");
        // The word count is done: nothing more is emitted.
        assert_eq!(fields[5], "0", "{row}");
        assert!(fields[6].parse::<f64>().is_ok(), "{row}");
    }
    let out = cluster
        .run(["monitor", name, "-m", "nope", "-n", "1"])
        .expect("egret monitor -m nope");
    assert!(
        !out.success() && out.stderr.contains("component: nope not found"),
        "{}",
        out.describe()
    );
    let out = cluster
        .run(["monitor", name, "-m", "split", "-s", "nope", "-n", "1"])
        .expect("egret monitor -s nope");
    assert!(
        !out.success() && out.stderr.contains("stream: nope not found"),
        "{}",
        out.describe()
    );
}

fn logs_print_and_follow_a_components_logs(cluster: &Cluster, name: &str) {
    let logs = cluster.topology_dir(name).join("logs");
    let tmaster = std::fs::read_to_string(logs.join("tmaster.log")).expect("tmaster.log");
    let out = cluster.run(["logs", name, "tmaster"]).expect("egret logs");
    assert!(out.success(), "{}", out.describe());
    // The master's log, whole (it may have grown since it was read).
    assert!(
        !tmaster.is_empty() && out.stdout.starts_with(&tmaster),
        "egret logs NAME tmaster is not the master's log: {}",
        out.stdout
    );
    let out = cluster
        .run(["logs", name, "nope"])
        .expect("egret logs nope");
    assert!(
        !out.success() && out.stderr.contains("'nope'") && out.stderr.contains("tmaster"),
        "{}",
        out.describe()
    );
    // A component: its instances' logs, followed; a line appended shows up.
    let mut follow = cluster
        .spawn_egret(["logs", name, "count", "-f"])
        .expect("egret logs -f");
    let marker = format!("observability marker {}", std::process::id());
    let count_log = std::fs::read_dir(&logs)
        .expect("logs dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("count-"))
        })
        .expect("a count instance's log");
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&count_log)
        .expect("open the count instance's log");
    writeln!(file, "{marker}").expect("append");
    let seen = wait_until(
        "egret logs -f to print the appended line",
        Duration::from_secs(15),
        || follow.stdout().contains(&marker).then_some(()),
        || follow.combined(),
    );
    assert!(
        follow.running(),
        "egret logs -f ended: {}",
        follow.combined()
    );
    seen.unwrap_or_else(|e| fail(cluster, &e));
    // Only the component's logs: not the master's.
    assert!(
        !follow.stdout().contains("Topology master listening"),
        "{}",
        follow.stdout()
    );
}

fn prometheus_counters_equal_the_exact_counts(cluster: &Cluster, name: &str) {
    let dir = cluster.topology_dir(name);
    let want: Vec<f64> = expected_counters().iter().map(|c| c.2).collect();
    // The instances report every second; wait for the last report to land.
    let got = wait_until(
        "the Prometheus counters to reach the word count's exact counts",
        Duration::from_secs(30),
        || {
            let scrapes = scrape_all(&dir, 2).ok()?;
            let got = counters(&scrapes, name);
            (got == want).then_some(got)
        },
        || match scrape_all(&dir, 2) {
            Ok(scrapes) => format!(
                "want {want:?}, got {:?} ({:?})",
                counters(&scrapes, name),
                expected_counters()
            ),
            Err(e) => e,
        },
    )
    .unwrap_or_else(|e| fail(cluster, &e));
    // Quiet: nothing is counted twice later.
    let settled = cluster
        .wait_quiescent(name, QUIET_TIMEOUT, || {
            scrape_all(&dir, 2)
                .map(|s| counters(&s, name))
                .unwrap_or_default()
        })
        .unwrap_or_else(|e| fail(cluster, &e));
    assert_eq!(settled, got, "the counters moved after the exact counts");
    // Labels are bounded: topology, component, task, stream (and sink).
    let scrapes = scrape_all(&dir, 2).unwrap_or_else(|e| fail(cluster, &e));
    for sample in scrapes.iter().flat_map(|s| s.samples.iter()) {
        for label in sample.labels.keys() {
            assert!(
                ["topology", "component", "task", "stream", "sink"].contains(&label.as_str()),
                "{} has label {label}",
                sample.metric
            );
        }
    }
    // Every metric the Grafana dashboard (deploy/grafana/egret.json) reads
    // is in the live exposition.
    let dashboard: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(egret_e2e::workspace_root().join("deploy/grafana/egret.json"))
            .expect("deploy/grafana/egret.json"),
    )
    .expect("the dashboard is JSON");
    // A family is emitted when it has samples or is declared (HELP) without
    // any yet (no tuple of the word count fails).
    let live: std::collections::BTreeSet<String> = scrapes
        .iter()
        .flat_map(|s| {
            s.samples
                .iter()
                .map(|x| x.metric.clone())
                .chain(s.docs.keys().map(|d| format!("{d}_total")))
        })
        .collect();
    for expr in egret_metrics::manager::dashboard_exprs(&dashboard) {
        for metric in egret_metrics::manager::dashboard_metric_names(&expr) {
            assert!(
                live.contains(&metric) || scrapes.iter().any(|s| s.docs.contains_key(&metric)),
                "the dashboard reads {metric} ({expr}), not in the live exposition"
            );
        }
    }
    // The stream managers' own metrics are there too.
    assert!(
        scrapes
            .iter()
            .all(|s| s.samples.iter().any(|x| x.metric == "egret_ledger_pending")),
        "egret_ledger_pending missing"
    );
}

/// The samples of the newest batch in `logs/metrics-N.jsonl` of every
/// container: (metric, component) summed over tasks and streams.
fn last_file_batches(
    dir: &Path,
    containers: i32,
) -> Result<BTreeMap<(String, String), f64>, String> {
    let mut sums = BTreeMap::new();
    for index in 1..=containers {
        let path = dir.join("logs").join(format!("metrics-{index}.jsonl"));
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(serde_json::from_str)
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{}: not JSON lines: {e}", path.display()))?;
        let last = lines
            .iter()
            .filter_map(|l| l["ts"].as_u64())
            .max()
            .ok_or_else(|| format!("{}: empty", path.display()))?;
        for line in lines.iter().filter(|l| l["ts"].as_u64() == Some(last)) {
            if line.get("stream").is_none() {
                continue;
            }
            let key = (
                line["metric"].as_str().unwrap_or_default().to_owned(),
                line["component"].as_str().unwrap_or_default().to_owned(),
            );
            *sums.entry(key).or_insert(0.0) += line["value"].as_f64().unwrap_or(f64::NAN);
        }
    }
    Ok(sums)
}

fn the_metrics_file_has_the_exact_counts(cluster: &Cluster, name: &str) {
    let dir = cluster.topology_dir(name);
    let want: Vec<f64> = expected_counters().iter().map(|c| c.2).collect();
    let from_file = |sums: &BTreeMap<(String, String), f64>| -> Vec<f64> {
        expected_counters()
            .iter()
            .map(|(metric, component, _)| {
                let stat = metric
                    .trim_start_matches("storm_")
                    .trim_end_matches("_total");
                sums.get(&(stat.to_owned(), (*component).to_owned()))
                    .copied()
                    .unwrap_or(0.0)
            })
            .collect()
    };
    wait_until(
        "the newest batch of the metrics files to hold the exact counts",
        Duration::from_secs(30),
        || {
            let sums = last_file_batches(&dir, 2).ok()?;
            (from_file(&sums) == want).then_some(())
        },
        || match last_file_batches(&dir, 2) {
            Ok(sums) => format!("want {want:?}, got {:?}", from_file(&sums)),
            Err(e) => e,
        },
    )
    .unwrap_or_else(|e| fail(cluster, &e));
}

/// Every instance (a log of its own in `logs/`) has a non-zero
/// `egret_jvm_heap_used_bytes` in its container's exposition.
fn every_instance_reports_its_jvm_heap(cluster: &Cluster, name: &str) {
    let dir = cluster.topology_dir(name);
    let mut instances: Vec<String> = std::fs::read_dir(dir.join("logs"))
        .expect("logs dir")
        .filter_map(Result::ok)
        .filter_map(|e| {
            e.file_name()
                .to_string_lossy()
                .strip_suffix(".log")
                .map(str::to_owned)
        })
        .filter(|n| {
            !["tmaster", "scheduler", "stmgr-", "container-"]
                .iter()
                .any(|p| n.starts_with(p))
        })
        .collect();
    instances.sort();
    assert!(instances.len() >= 6, "{instances:?}");
    let heaps = |scrapes: &[prometheus_parse::Scrape]| -> Vec<String> {
        let mut seen: Vec<String> = scrapes
            .iter()
            .flat_map(|s| s.samples.iter())
            .filter(|s| s.metric == "egret_jvm_heap_used_bytes" && value(s) > 0.0)
            .filter_map(|s| s.labels.get("component").map(str::to_owned))
            .collect();
        seen.sort();
        seen.dedup();
        seen
    };
    wait_until(
        "every instance's JVM heap in the expositions",
        Duration::from_secs(30),
        || {
            let scrapes = scrape_all(&dir, 2).ok()?;
            (heaps(&scrapes) == instances).then_some(())
        },
        || match scrape_all(&dir, 2) {
            Ok(scrapes) => format!("want {instances:?}, got {:?}", heaps(&scrapes)),
            Err(e) => e,
        },
    )
    .unwrap_or_else(|e| fail(cluster, &e));
    let scrapes = scrape_all(&dir, 2).unwrap_or_else(|e| fail(cluster, &e));
    for metric in [
        "egret_jvm_heap_committed_bytes",
        "egret_jvm_gc_count",
        "egret_jvm_gc_time_ms",
    ] {
        assert!(
            scrapes
                .iter()
                .all(|s| s.samples.iter().any(|x| x.metric == metric)),
            "{metric} missing"
        );
    }
}

fn sinks_drop_and_count_with_bounded_queues(cluster: &Cluster, name: &str, sinks: &[&str]) {
    let dir = cluster.topology_dir(name);
    for sink in sinks {
        let label = format!("graphite:{sink}");
        let want = [("topology", name), ("sink", label.as_str())];
        wait_until(
            &format!("the drop counter of {label} to rise in every container"),
            Duration::from_secs(60),
            || {
                let scrapes = scrape_all(&dir, 2).ok()?;
                let each_dropped = scrapes.iter().all(|s| {
                    sum(
                        std::slice::from_ref(s),
                        "egret_metrics_sink_dropped_batches_total",
                        &want,
                    ) > 0.0
                });
                each_dropped.then_some(())
            },
            || match scrape_all(&dir, 2) {
                Ok(scrapes) => format!(
                    "dropped {} sent {} queued {}",
                    sum(&scrapes, "egret_metrics_sink_dropped_batches_total", &want),
                    sum(&scrapes, "egret_metrics_sink_sent_batches_total", &want),
                    sum(&scrapes, "egret_metrics_sink_queued_batches", &want),
                ),
                Err(e) => e,
            },
        )
        .unwrap_or_else(|e| fail(cluster, &e));
        let scrapes = scrape_all(&dir, 2).unwrap_or_else(|e| fail(cluster, &e));
        for s in &scrapes {
            let queued = sum(
                std::slice::from_ref(s),
                "egret_metrics_sink_queued_batches",
                &want,
            );
            assert!(
                queued <= SINK_QUEUE as f64,
                "{label}: {queued} batches queued, bound {SINK_QUEUE}"
            );
        }
    }
}
