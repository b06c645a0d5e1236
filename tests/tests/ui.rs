//! `egret ui` end to end, on one cluster running SlowBoltTopology (a spout as
//! fast as it can go into a bolt sleeping 10 ms per tuple, which reports 3
//! errors) and WordCountTopology:
//!
//! - Storm UI's REST shape: `/api/v1/cluster/summary`, `/topology/summary`,
//!   `/topology/:id` and `/topology/:id/component/:c` of the word count carry
//!   every field Storm's UI documents (STORM-UI-REST-API.md), with the word
//!   count's exact numbers;
//! - auth: kill, activate, deactivate and rebalance are refused without
//!   credentials configured (403) and without the token (401), and the
//!   topology stays ACTIVE and running; with the token they work: a
//!   rebalance with Storm UI's body naming an unknown component is refused
//!   (400, naming it), one to `numWorkers` 1 runs the word count on 1
//!   container;
//! - a real browser: Debian's headless Chromium, driven through the DevTools
//!   protocol by puppeteer-core (tests/ui-browser/check.cjs, installed with
//!   `npm ci` from the committed lock into ~/.cache/egret/npm/ui-browser), opens
//!   the front page: the topology is listed; the DAG shows every component; the
//!   slow bolt is marked as the bottleneck; the spout's emitted count rises
//!   on the page (waited for: backpressure makes the spout emit in bursts);
//!   the bolt's reported error is shown with its text.
//!   Screenshots go to target/tmp/ui/.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use egret_e2e::ui::Ui;
use egret_e2e::word_count::expected_counts;
use egret_e2e::{Cluster, wait_until, workspace_root};
use serde_json::Value;

/// `SlowBoltTopology.ERROR_TEXT`.
const ERROR_TEXT: &str = "slow bolt is falling behind at tuple ";
const TOKEN: &str = "e2e-ui-token-0123456789abcdef";

/// `egret ui` on `cluster`, with `credentials` enabling the mutating calls.
fn start_ui(cluster: &Cluster, credentials: Option<&Path>) -> Ui {
    let mut cmd = cluster.egret(["ui", "--bind", "127.0.0.1:0"]);
    if let Some(file) = credentials {
        cmd.arg("--credentials-file").arg(file);
    }
    Ui::spawn(cmd)
}

/// Fails unless `value` is an object holding every field of `fields`.
fn has_fields(what: &str, value: &Value, fields: &[&str]) {
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("{what} is not an object: {value}"));
    let missing: Vec<&&str> = fields
        .iter()
        .filter(|f| !object.contains_key(**f))
        .collect();
    assert!(
        missing.is_empty(),
        "{what} lacks Storm UI's fields {missing:?}: {value}"
    );
}

fn u(v: &Value, field: &str) -> u64 {
    v[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} is not a count: {v}"))
}

// The field sets of Storm UI's REST API (STORM-UI-REST-API.md).
const CLUSTER_SUMMARY: &[&str] = &[
    "stormVersion",
    "supervisors",
    "topologies",
    "slotsTotal",
    "slotsUsed",
    "slotsFree",
    "executorsTotal",
    "tasksTotal",
    "schedulerDisplayResource",
    "totalMem",
    "totalCpu",
    "availMem",
    "availCpu",
    "memAssignedPercentUtil",
    "cpuAssignedPercentUtil",
];
const TOPOLOGY_SUMMARY: &[&str] = &[
    "id",
    "name",
    "status",
    "uptime",
    "uptimeSeconds",
    "tasksTotal",
    "workersTotal",
    "executorsTotal",
    "replicationCount",
    "requestedMemOnHeap",
    "requestedMemOffHeap",
    "requestedTotalMem",
    "requestedCpu",
    "assignedMemOnHeap",
    "assignedMemOffHeap",
    "assignedTotalMem",
    "assignedCpu",
    "schedulerDisplayResource",
];
const TOPOLOGY: &[&str] = &[
    "id",
    "name",
    "uptime",
    "uptimeSeconds",
    "status",
    "tasksTotal",
    "workersTotal",
    "executorsTotal",
    "msgTimeout",
    "windowHint",
    "schedulerDisplayResource",
    "replicationCount",
    "debug",
    "samplingPct",
    "assignedMemOnHeap",
    "assignedMemOffHeap",
    "assignedTotalMem",
    "assignedCpu",
    "requestedMemOnHeap",
    "requestedMemOffHeap",
    "requestedCpu",
    "topologyStats",
    "workers",
    "spouts",
    "bolts",
    "configuration",
    "window",
];
const TOPOLOGY_STATS: &[&str] = &[
    "windowPretty",
    "window",
    "emitted",
    "transferred",
    "completeLatency",
    "acked",
    "failed",
];
const WORKER: &[&str] = &[
    "supervisorId",
    "host",
    "port",
    "topologyId",
    "topologyName",
    "executorsTotal",
    "assignedMemOnHeap",
    "assignedMemOffHeap",
    "assignedCpu",
    "componentNumTasks",
    "uptime",
    "uptimeSeconds",
    "workerLogLink",
];
const ERROR_FIELDS: &[&str] = &[
    "lastError",
    "errorHost",
    "errorPort",
    "errorTime",
    "errorLapsedSecs",
    "errorWorkerLogLink",
];
const SPOUT: &[&str] = &[
    "spoutId",
    "executors",
    "emitted",
    "completeLatency",
    "transferred",
    "tasks",
    "acked",
    "failed",
    "requestedMemOnHeap",
    "requestedMemOffHeap",
    "requestedCpu",
];
const BOLT: &[&str] = &[
    "boltId",
    "capacity",
    "processLatency",
    "executeLatency",
    "executors",
    "tasks",
    "acked",
    "failed",
    "emitted",
    "requestedMemOnHeap",
    "requestedMemOffHeap",
    "requestedCpu",
];
const COMPONENT: &[&str] = &[
    "user",
    "id",
    "encodedId",
    "name",
    "executors",
    "tasks",
    "requestedMemOnHeap",
    "requestedMemOffHeap",
    "requestedCpu",
    "schedulerDisplayResource",
    "topologyId",
    "topologyStatus",
    "encodedTopologyId",
    "window",
    "componentType",
    "windowHint",
    "debug",
    "samplingPct",
    "eventLogLink",
    "profilingAndDebuggingCapable",
    "profileActionEnabled",
    "profilerActive",
    "componentErrors",
    "outputStats",
];
const COMPONENT_ERROR: &[&str] = &[
    "errorTime",
    "errorHost",
    "errorPort",
    "error",
    "errorLapsedSecs",
    "errorWorkerLogLink",
];
const SPOUT_SUMMARY: &[&str] = &[
    "windowPretty",
    "window",
    "emitted",
    "completeLatency",
    "transferred",
    "acked",
    "failed",
];
const BOLT_STATS: &[&str] = &[
    "windowPretty",
    "window",
    "transferred",
    "processLatency",
    "acked",
    "failed",
];
const INPUT_STATS: &[&str] = &[
    "component",
    "encodedComponentId",
    "executeLatency",
    "processLatency",
    "executed",
    "acked",
    "failed",
    "stream",
];
const OUTPUT_STATS: &[&str] = &["transferred", "emitted", "stream"];

fn check_storm_shape(ui: &Ui, word_count: &str) {
    let cluster = ui.get("/api/v1/cluster/summary");
    has_fields("cluster summary", &cluster, CLUSTER_SUMMARY);
    assert_eq!(u(&cluster, "topologies"), 2, "{cluster}");
    // Word count: 1 + 2 + 3 executors; slow bolt topology: 1 + 2.
    assert_eq!(u(&cluster, "executorsTotal"), 9, "{cluster}");

    let summary = ui.get("/api/v1/topology/summary");
    let topologies = summary["topologies"].as_array().expect("topologies");
    assert_eq!(topologies.len(), 2, "{summary}");
    for t in topologies {
        has_fields("topology summary entry", t, TOPOLOGY_SUMMARY);
        assert_eq!(t["status"], "ACTIVE", "{t}");
    }
    let wc = topologies
        .iter()
        .find(|t| t["name"] == word_count)
        .expect("the word count in the summary");
    let id = wc["id"].as_str().expect("id").to_owned();
    assert_eq!(u(wc, "executorsTotal"), 6);
    assert_eq!(u(wc, "workersTotal"), 2);

    // Exact counts once the 200 sentences are counted (the counts arrive with
    // the instances' 5 s statistics reports; the spout emits without message
    // ids, so nothing is acked at the spout).
    let words: u64 = expected_counts().values().sum();
    let topology = wait_until(
        "the word count's 200 sentences counted in the REST API",
        Duration::from_secs(60),
        || {
            let t = ui.get(&format!("/api/v1/topology/{id}"));
            let spout_emitted = t["spouts"][0]["emitted"].as_u64();
            let count_executed = t["bolts"]
                .as_array()
                .and_then(|b| b.iter().find(|b| b["boltId"] == "count"))
                .and_then(|b| b["executed"].as_u64());
            // Each instance reports on its own clock: split's emits can
            // arrive after count's executes.
            let split_emitted = t["bolts"]
                .as_array()
                .and_then(|b| b.iter().find(|b| b["boltId"] == "split"))
                .and_then(|b| b["emitted"].as_u64());
            (spout_emitted == Some(200)
                && count_executed == Some(words)
                && split_emitted == Some(words))
            .then_some(t)
        },
        || ui.call("GET", &format!("/api/v1/topology/{id}"), None).1,
    )
    .expect("word count done");
    has_fields("topology", &topology, TOPOLOGY);
    let stats = topology["topologyStats"].as_array().expect("topologyStats");
    assert_eq!(stats.len(), 4, "Storm's four windows");
    for s in stats {
        has_fields("topologyStats entry", s, TOPOLOGY_STATS);
    }
    let all_time = stats
        .iter()
        .find(|s| s["window"] == ":all-time")
        .expect("all-time window");
    // Storm's topology "emitted" is every component's: sentences, then words.
    assert_eq!(u(all_time, "emitted"), 200 + words, "{all_time}");
    assert_eq!(u(all_time, "failed"), 0, "{all_time}");
    let workers = topology["workers"].as_array().expect("workers");
    assert_eq!(workers.len(), 2);
    for w in workers {
        has_fields("worker", w, WORKER);
    }
    let spouts = topology["spouts"].as_array().expect("spouts");
    assert_eq!(spouts.len(), 1);
    has_fields("spout", &spouts[0], SPOUT);
    has_fields("spout", &spouts[0], ERROR_FIELDS);
    assert_eq!(spouts[0]["spoutId"], "sentences");
    assert_eq!(u(&spouts[0], "emitted"), 200);
    let bolts = topology["bolts"].as_array().expect("bolts");
    assert_eq!(bolts.len(), 2);
    for b in bolts {
        has_fields("bolt", b, BOLT);
        has_fields("bolt", b, ERROR_FIELDS);
        // Storm's strings of doubles.
        for f in ["capacity", "executeLatency", "processLatency"] {
            let text = b[f]
                .as_str()
                .unwrap_or_else(|| panic!("{f} is not a string: {b}"));
            text.parse::<f64>()
                .unwrap_or_else(|_| panic!("{f} {text:?} is not a number"));
        }
    }
    let split = bolts
        .iter()
        .find(|b| b["boltId"] == "split")
        .expect("split");
    assert_eq!(u(split, "executed"), 200, "{split}");
    assert_eq!(u(split, "emitted"), words, "{split}");
    assert_eq!(u(split, "executors"), 2);

    let spout = ui.get(&format!("/api/v1/topology/{id}/component/sentences"));
    has_fields("spout component", &spout, COMPONENT);
    has_fields(
        "spout component",
        &spout,
        &["spoutSummary", "executorStats"],
    );
    assert_eq!(spout["componentType"], "spout");
    for s in spout["spoutSummary"].as_array().expect("spoutSummary") {
        has_fields("spoutSummary entry", s, SPOUT_SUMMARY);
    }
    for o in spout["outputStats"].as_array().expect("outputStats") {
        has_fields("outputStats entry", o, OUTPUT_STATS);
    }
    let count = ui.get(&format!("/api/v1/topology/{id}/component/count"));
    has_fields("bolt component", &count, COMPONENT);
    has_fields(
        "bolt component",
        &count,
        &["boltStats", "inputStats", "executorStats"],
    );
    assert_eq!(count["componentType"], "bolt");
    assert_eq!(count["executorStats"].as_array().map(Vec::len), Some(3));
    for s in count["boltStats"].as_array().expect("boltStats") {
        has_fields("boltStats entry", s, BOLT_STATS);
    }
    let inputs = count["inputStats"].as_array().expect("inputStats");
    assert_eq!(inputs.len(), 1);
    has_fields("inputStats entry", &inputs[0], INPUT_STATS);
    assert_eq!(inputs[0]["component"], "split");
    assert_eq!(u(&inputs[0], "executed"), words);
    let (status, body) = ui.call(
        "GET",
        &format!("/api/v1/topology/{id}/component/nope"),
        None,
    );
    assert_eq!(status, 404, "{body}");
}

fn check_errors_shape(ui: &Ui, slow_id: &str) {
    let slow = ui.get(&format!("/api/v1/topology/{slow_id}/component/slow"));
    let errors = slow["componentErrors"].as_array().expect("componentErrors");
    assert!(!errors.is_empty(), "{slow}");
    for e in errors {
        has_fields("componentErrors entry", e, COMPONENT_ERROR);
        let text = e["error"].as_str().expect("error text");
        assert!(text.contains(ERROR_TEXT), "{text}");
    }
}

fn status_of(ui: &Ui, name: &str) -> String {
    let list = ui.get("/api/egret/topologies");
    list["topologies"]
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["name"] == name))
        .and_then(|t| t["status"].as_str())
        .unwrap_or("absent")
        .to_owned()
}

fn check_auth(cluster: &Cluster, open: &Ui, slow: &str, slow_id: &str, word_count: &str) {
    let calls = [
        format!("/api/v1/topology/{slow_id}/deactivate"),
        format!("/api/v1/topology/{slow_id}/kill/0"),
        format!("/api/v1/topology/{slow_id}/rebalance/0"),
        format!("/api/egret/topologies/{slow}/deactivate"),
        format!("/api/egret/topologies/{slow}/kill?wait=0"),
    ];
    // No credentials configured: refused (403), saying how to enable them.
    for path in &calls {
        let (status, body) = open.call("POST", path, Some(TOKEN));
        assert_eq!(status, 403, "POST {path}: {body}");
        assert!(body.contains("--credentials-file"), "{body}");
    }
    // Credentials configured: without the token, or with another, refused (401).
    let file = cluster.home().join("ui-token");
    std::fs::write(&file, format!("{TOKEN}\n")).expect("write the token");
    let secured = start_ui(cluster, Some(&file));
    for path in &calls {
        for token in [None, Some("e2e-ui-token-0123456789abcdeX")] {
            let (status, body) = secured.call("POST", path, token);
            assert_eq!(status, 401, "POST {path} with {token:?}: {body}");
        }
    }
    // Untouched: still ACTIVE, and its spout still emits.
    let emitted = |ui: &Ui| {
        ui.get(&format!("/api/v1/topology/{slow_id}"))["spouts"][0]["emitted"]
            .as_u64()
            .unwrap_or(0)
    };
    assert_eq!(status_of(&secured, slow), "ACTIVE");
    let before = emitted(&secured);
    wait_until(
        "the slow topology's spout to go on emitting after the refused calls",
        Duration::from_secs(30),
        || (emitted(&secured) > before).then_some(()),
        || format!("emitted stays at {before}"),
    )
    .expect("still running");
    // With the token: deactivate and activate work.
    for (op, state) in [("deactivate", "INACTIVE"), ("activate", "ACTIVE")] {
        let (status, body) = secured.call(
            "POST",
            &format!("/api/v1/topology/{slow_id}/{op}"),
            Some(TOKEN),
        );
        assert_eq!(status, 200, "{op}: {body}");
        let reply: Value = serde_json::from_str(&body).expect("json");
        assert_eq!(reply["status"], "success", "{reply}");
        assert_eq!(reply["topologyOperation"], op, "{reply}");
        assert_eq!(status_of(&secured, slow), state);
    }
    // Rebalance, Storm UI's body: a bad one is refused naming the problem
    // (nothing changes); a good one re-packs the word count on 1 container.
    let rebalance = format!("/api/v1/topology/{word_count}/rebalance/0");
    let (status, body) = secured.call_with(
        "POST",
        &rebalance,
        Some(TOKEN),
        r#"{"rebalanceOptions": {"executors": {"nosuch": 2}}}"#,
    );
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("nosuch") && body.contains("split"), "{body}");
    let containers = |ui: &Ui| {
        ui.get(&format!("/api/egret/topologies/{word_count}/packing"))["containers"]
            .as_array()
            .map_or(0, Vec::len)
    };
    assert_eq!(containers(&secured), 2, "before the rebalance");
    let (status, body) = secured.call_with(
        "POST",
        &rebalance,
        Some(TOKEN),
        r#"{"rebalanceOptions": {"numWorkers": 1}}"#,
    );
    assert_eq!(status, 200, "rebalance: {body}");
    let reply: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(reply["topologyOperation"], "rebalance", "{reply}");
    wait_until(
        "the word count to run on its rebalanced plan (1 container)",
        Duration::from_secs(90),
        || {
            let physical = secured.get(&format!("/api/egret/topologies/{word_count}/physical"));
            let managers = physical["streamManagers"].as_array().map_or(0, Vec::len);
            (containers(&secured) == 1 && managers == 1).then_some(())
        },
        || format!("{} containers", containers(&secured)),
    )
    .expect("rebalanced");
}

/// Installs puppeteer-core from the committed lock into the cache (once per
/// lock) and returns the directory holding its node_modules.
fn puppeteer() -> PathBuf {
    let source = workspace_root().join("tests").join("ui-browser");
    let cache = std::env::var_os("EGRET_NPM_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/egret/npm")
        })
        .join("ui-browser");
    let lock = std::fs::read(source.join("package-lock.json")).expect("package-lock.json");
    let installed = cache.join("node_modules").join("puppeteer-core").exists()
        && std::fs::read(cache.join("package-lock.json")).is_ok_and(|l| l == lock);
    if !installed {
        std::fs::create_dir_all(&cache).expect("create the npm cache dir");
        for f in ["package.json", "package-lock.json"] {
            std::fs::copy(source.join(f), cache.join(f)).expect("copy the package files");
        }
        let out = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])
            .current_dir(&cache)
            .output()
            .expect("run npm (Node.js and npm are needed for the browser test)");
        assert!(
            out.status.success(),
            "npm ci in {} failed: {}",
            cache.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    cache
}

fn check_browser(ui: &Ui, slow: &str) {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned());
    assert!(
        Path::new(&chromium).exists(),
        "{chromium} is missing: install Debian's chromium package (.ci/run does)"
    );
    let modules = puppeteer();
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ui");
    std::fs::create_dir_all(&shots).expect("screenshots dir");
    let script = workspace_root().join("tests/ui-browser/check.cjs");
    let mut cmd = Command::new("node");
    cmd.arg(&script)
        .arg(&modules)
        .arg(ui.url())
        .arg(slow)
        .arg(&shots)
        .env("CHROMIUM", &chromium);
    let out = egret_e2e::run_with_timeout(&mut cmd, Duration::from_secs(240)).expect("node");
    let seen: Value = serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("check.cjs printed no result ({e}): {}", out.describe()));
    assert!(
        out.success(),
        "the browser check failed: {}",
        out.describe()
    );
    assert_eq!(seen["listed"], true, "{seen}");
    let mut components: Vec<&str> = seen["components"]
        .as_array()
        .expect("components")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    components.sort_unstable();
    assert_eq!(components, ["slow", "spout"], "every component in the DAG");
    assert_eq!(seen["bottleneck"], "slow", "{seen}");
    assert_eq!(seen["banner"], "slow", "{seen}");
    assert_eq!(
        seen["tableBottleneck"],
        serde_json::json!(["slow"]),
        "{seen}"
    );
    let emitted: Vec<u64> = seen["emitted"]
        .as_array()
        .expect("emitted")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert_eq!(emitted.len(), 2, "{seen}");
    eprintln!(
        "the page showed the spout's emitted count rise {emitted:?} after {} ms",
        seen["riseAfterMs"]
    );
    assert!(
        emitted[1] > emitted[0],
        "throughput rises between two reads: {emitted:?}"
    );
    let errors = seen["errors"].as_array().expect("errors");
    assert!(
        errors.iter().any(|e| e["component"] == "slow"
            && e["text"].as_str().is_some_and(|t| t.contains(ERROR_TEXT)
                && t.contains("IllegalStateException")
                && t.contains("SlowBoltTopology"))),
        "the slow bolt's error with its text and stack trace: {seen}"
    );
    for shot in seen["screenshots"].as_array().expect("screenshots") {
        let path = shot.as_str().expect("path");
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        assert!(size > 10_000, "screenshot {path} is {size} bytes");
    }
}

#[test]
fn ui_rest_api_storm_shape_auth_and_a_real_browser() {
    let cluster = Cluster::new("ui").expect("cluster");
    let slow = cluster.topology_name();
    let word_count = cluster.topology_name();
    cluster
        .submit_example_with("SlowBoltTopology", &slow, &["errors=3", "sleepms=10"])
        .expect("submit the slow bolt topology");
    cluster
        .submit_example("WordCountTopology", &word_count)
        .expect("submit the word count");
    let ui = start_ui(&cluster, None);
    // `egret jar` returns when main() does; the masters start after it.
    wait_until(
        "both topologies' masters to answer (ACTIVE)",
        Duration::from_secs(60),
        || {
            let summary = ui.get("/api/v1/topology/summary");
            let topologies = summary["topologies"].as_array()?.clone();
            (topologies.len() == 2 && topologies.iter().all(|t| t["status"] == "ACTIVE"))
                .then_some(())
        },
        || ui.call("GET", "/api/v1/topology/summary", None).1,
    )
    .expect("both topologies running");
    let slow_id = ui.get("/api/egret/topologies")["topologies"]
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["name"] == slow.as_str()))
        .and_then(|t| t["id"].as_str())
        .expect("the slow topology listed")
        .to_owned();

    check_storm_shape(&ui, &word_count);
    check_errors_shape(&ui, &slow_id);
    check_auth(&cluster, &ui, &slow, &slow_id, &word_count);
    check_browser(&ui, &slow);

    // Egret's own API: plans, series, a log tail.
    let overview = ui.get(&format!("/api/egret/topologies/{slow}"));
    assert_eq!(
        overview["packing"]["containers"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(
        overview["physical"]["streamManagers"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    // No log level set: the physical plan's list is there and empty.
    assert_eq!(
        overview["physical"]["logLevels"].as_array().map(Vec::len),
        Some(0),
        "{}",
        overview["physical"]
    );
    let series = ui.get(&format!(
        "/api/egret/topologies/{slow}/series?prefix=emitted/"
    ));
    assert!(
        series["series"]["emitted/spout"]
            .as_array()
            .is_some_and(|p| !p.is_empty()),
        "{series}"
    );
    // The instance JVMs' heap, as their stream managers report it: every
    // component has a non-zero point.
    let heap = ui.get(&format!(
        "/api/egret/topologies/{slow}/series?prefix=jvm-heap-bytes/"
    ));
    for component in ["spout", "slow"] {
        assert!(
            heap["series"][format!("jvm-heap-bytes/{component}")]
                .as_array()
                .is_some_and(|p| p.iter().any(|x| x["v"].as_f64().is_some_and(|v| v > 0.0))),
            "{component}: {heap}"
        );
    }
    let log = ui.get(&format!(
        "/api/egret/topologies/{slow}/logs/stmgr-1?lines=5"
    ));
    assert!(
        log["lines"].as_array().is_some_and(|l| !l.is_empty()),
        "{log}"
    );
    let (status, body) = ui.call(
        "GET",
        &format!("/api/egret/topologies/{slow}/logs/..%2Fx"),
        None,
    );
    assert_eq!(status, 400, "{body}");

    drop(ui);
    cluster.kill(&slow).expect("kill slow");
    cluster
        .kill_and_check_clean(&word_count)
        .expect("kill word count");
}
