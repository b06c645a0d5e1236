//! The shape of Storm UI's REST API (`/api/v1/...`), with the fields Storm's
//! UI documents, built from Egret's statistics. Where Egret has no such thing
//! the value is the neutral one Storm itself returns in that case: one
//! supervisor (this host), worker = container (host `localhost`, port = the
//! container index), `replicationCount` 1, no profiling, resource fields with
//! `schedulerDisplayResource` false.

use serde_json::{Value, json};

use crate::view::{ComponentStats, Sums, TopologyView, avg, window_sums};

/// The Storm API version Egret's shim implements.
pub const STORM_VERSION: &str = "2.8.3";

/// Storm's windows, in the order its UI lists them.
pub const WINDOWS: [&str; 4] = ["600", "10800", "86400", ":all-time"];

/// Storm's "1d 2h 3m 4s" (leading zero units left out).
pub fn pretty_secs(secs: i64) -> String {
    let secs = secs.max(0);
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    if d > 0 {
        format!("{d}d {h}h {m}m {s}s")
    } else if h > 0 {
        format!("{h}h {m}m {s}s")
    } else if m > 0 {
        format!("{m}m {s}s")
    } else {
        format!("{s}s")
    }
}

pub fn window_pretty(window: &str) -> String {
    match window.parse::<i64>() {
        Ok(secs) => pretty_secs(secs),
        Err(_) => "All time".to_owned(),
    }
}

/// Percent-encodes a path segment (Storm's `encodedId`).
pub fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn fmt3(v: f64) -> String {
    format!("{v:.3}")
}

pub fn cluster_summary(views: &[TopologyView]) -> Value {
    let slots: usize = views.iter().map(TopologyView::containers).sum();
    json!({
        "stormVersion": STORM_VERSION,
        "supervisors": 1,
        "topologies": views.len(),
        "slotsTotal": slots,
        "slotsUsed": slots,
        "slotsFree": 0,
        "executorsTotal": views.iter().map(TopologyView::num_executors).sum::<usize>(),
        "tasksTotal": views.iter().map(TopologyView::num_tasks).sum::<usize>(),
        "schedulerDisplayResource": false,
        "totalMem": 0.0,
        "totalCpu": 0.0,
        "availMem": 0.0,
        "availCpu": 0.0,
        "memAssignedPercentUtil": 0.0,
        "cpuAssignedPercentUtil": 0.0,
    })
}

fn resources(v: &TopologyView) -> serde_json::Map<String, Value> {
    let (mem, cpu) = v.assigned();
    let mut m = serde_json::Map::new();
    for (k, val) in [
        ("requestedMemOnHeap", mem),
        ("requestedMemOffHeap", 0.0),
        ("requestedTotalMem", mem),
        ("requestedCpu", cpu),
        ("assignedMemOnHeap", mem),
        ("assignedMemOffHeap", 0.0),
        ("assignedTotalMem", mem),
        ("assignedCpu", cpu),
    ] {
        m.insert(k.to_owned(), json!(val));
    }
    m
}

fn topology_entry(v: &TopologyView) -> serde_json::Map<String, Value> {
    let mut m = resources(v);
    for (k, val) in [
        ("id", json!(v.id())),
        ("encodedId", json!(encode(v.id()))),
        ("name", json!(v.name)),
        ("status", json!(v.status())),
        ("uptime", json!(pretty_secs(v.uptime_secs()))),
        ("uptimeSeconds", json!(v.uptime_secs())),
        ("tasksTotal", json!(v.num_tasks())),
        ("workersTotal", json!(v.containers())),
        ("executorsTotal", json!(v.num_executors())),
        ("replicationCount", json!(1)),
        ("schedulerDisplayResource", json!(false)),
    ] {
        m.insert(k.to_owned(), val);
    }
    m
}

pub fn topology_summary(views: &[TopologyView]) -> Value {
    json!({
        "topologies": views.iter().map(topology_entry).collect::<Vec<_>>(),
        "schedulerDisplayResource": false,
    })
}

fn error_fields(c: &ComponentStats, now_secs: i64) -> Value {
    match &c.last_error {
        Some(e) => json!({
            "lastError": e.error,
            "errorHost": e.host,
            "errorPort": e.port,
            "errorTime": e.time_secs,
            "errorLapsedSecs": (now_secs - e.time_secs).max(0),
            "errorWorkerLogLink": "",
        }),
        None => json!({
            "lastError": "",
            "errorHost": "",
            "errorPort": null,
            "errorTime": null,
            "errorLapsedSecs": null,
            "errorWorkerLogLink": "",
        }),
    }
}

fn merge(mut a: Value, b: Value) -> Value {
    if let (Some(a), Value::Object(b)) = (a.as_object_mut(), b) {
        a.extend(b);
    }
    a
}

pub fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

fn component_resources(v: &TopologyView, component: &str) -> (f64, f64) {
    let mut mem = 0.0;
    let mut cpu = 0.0;
    if let Some(p) = &v.packing {
        for i in p.containers.iter().flat_map(|c| &c.instances) {
            if i.component == component {
                mem += i.heap_mb as f64;
                cpu += i.cpu_percent;
            }
        }
    }
    (mem, cpu)
}

fn window_stats(v: &TopologyView, window: &str) -> Value {
    let mut total = Sums::default();
    for c in v.component_stats(window) {
        if c.spout {
            total.add(&c.sums);
        }
    }
    let mut emitted_all = 0u64;
    let mut transferred_all = 0u64;
    for c in v.component_stats(window) {
        emitted_all += c.sums.emitted;
        transferred_all += c.sums.transferred;
    }
    json!({
        "windowPretty": window_pretty(window),
        "window": window,
        "emitted": emitted_all,
        "transferred": transferred_all,
        "completeLatency": fmt3(total.complete_latency()),
        "acked": total.acked,
        "failed": total.failed,
    })
}

fn workers(v: &TopologyView) -> Vec<Value> {
    let Some(p) = &v.packing else { return vec![] };
    p.containers
        .iter()
        .map(|c| {
            let mut tasks: std::collections::BTreeMap<&str, usize> = Default::default();
            for i in &c.instances {
                *tasks.entry(&i.component).or_default() += i.task_ids.len();
            }
            let mem: f64 = c.instances.iter().map(|i| i.heap_mb as f64).sum();
            let cpu: f64 = c.instances.iter().map(|i| i.cpu_percent).sum();
            json!({
                "supervisorId": "localhost",
                "host": "localhost",
                "port": c.index,
                "topologyId": v.id(),
                "topologyName": v.name,
                "executorsTotal": c.instances.len(),
                "assignedMemOnHeap": mem,
                "assignedMemOffHeap": 0.0,
                "assignedCpu": cpu,
                "componentNumTasks": tasks,
                "uptime": pretty_secs(v.uptime_secs()),
                "uptimeSeconds": v.uptime_secs(),
                "workerLogLink": format!("/api/egret/topologies/{}/logs/stmgr-{}", encode(&v.name), c.index),
            })
        })
        .collect()
}

pub fn topology(v: &TopologyView, window: &str) -> Value {
    let now = now_secs();
    let stats = v.component_stats(window);
    let spouts: Vec<Value> = stats
        .iter()
        .filter(|c| c.spout)
        .map(|c| {
            let (mem, cpu) = component_resources(v, &c.id);
            merge(
                json!({
                    "spoutId": c.id,
                    "encodedSpoutId": encode(&c.id),
                    "executors": c.executors,
                    "tasks": c.tasks,
                    "emitted": c.sums.emitted,
                    "transferred": c.sums.transferred,
                    "completeLatency": fmt3(c.sums.complete_latency()),
                    "acked": c.sums.acked,
                    "failed": c.sums.failed,
                    "requestedMemOnHeap": mem,
                    "requestedMemOffHeap": 0.0,
                    "requestedCpu": cpu,
                }),
                error_fields(c, now),
            )
        })
        .collect();
    let bolts: Vec<Value> = stats
        .iter()
        .filter(|c| !c.spout)
        .map(|c| {
            let (mem, cpu) = component_resources(v, &c.id);
            merge(
                json!({
                    "boltId": c.id,
                    "encodedBoltId": encode(&c.id),
                    "executors": c.executors,
                    "tasks": c.tasks,
                    "emitted": c.sums.emitted,
                    "transferred": c.sums.transferred,
                    "capacity": fmt3(c.capacity),
                    "executeLatency": fmt3(c.sums.execute_latency()),
                    "executed": c.sums.executed,
                    "processLatency": fmt3(c.sums.process_latency()),
                    "acked": c.sums.acked,
                    "failed": c.sums.failed,
                    "requestedMemOnHeap": mem,
                    "requestedMemOffHeap": 0.0,
                    "requestedCpu": cpu,
                }),
                error_fields(c, now),
            )
        })
        .collect();
    let (debug, sampling) = v.debug("");
    let configuration: Value =
        serde_json::from_str(&v.topology.config_json).unwrap_or_else(|_| json!({}));
    let mut m = topology_entry(v);
    for (k, val) in [
        ("window", json!(window)),
        ("windowHint", json!(window_pretty(window))),
        ("msgTimeout", json!(v.message_timeout_secs())),
        ("debug", json!(debug)),
        ("samplingPct", json!(sampling)),
        (
            "topologyStats",
            json!(
                WINDOWS
                    .iter()
                    .map(|w| window_stats(v, w))
                    .collect::<Vec<_>>()
            ),
        ),
        ("workers", json!(workers(v))),
        ("spouts", json!(spouts)),
        ("bolts", json!(bolts)),
        ("configuration", configuration),
    ] {
        m.insert(k.to_owned(), val);
    }
    Value::Object(m)
}

/// `None` when the topology has no such component.
pub fn component(v: &TopologyView, id: &str, window: &str) -> Option<Value> {
    let spec = v.topology.components.iter().find(|c| c.id == id)?;
    let stats = v.component_stats(window).into_iter().find(|c| c.id == id)?;
    let now = now_secs();
    let (mem, cpu) = component_resources(v, id);
    let (debug, sampling) = {
        let (d, s) = v.debug(id);
        if d { (d, s) } else { v.debug("") }
    };
    let errors: Vec<Value> = v
        .info
        .as_ref()
        .map(|i| {
            i.errors
                .iter()
                .filter(|e| e.component == id)
                .map(|e| {
                    json!({
                        "errorTime": e.time_secs,
                        "errorHost": e.host,
                        "errorPort": e.port,
                        "error": e.error,
                        "errorLapsedSecs": (now - e.time_secs).max(0),
                        "errorWorkerLogLink": "",
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let executors: Vec<_> = v.executors().iter().filter(|e| e.component == id).collect();
    // Per stream (output) and per input (component:stream), summed over executors.
    let mut outputs: std::collections::BTreeMap<String, (u64, u64)> = Default::default();
    let mut inputs: std::collections::BTreeMap<String, [f64; 5]> = Default::default();
    let mut windows: Vec<Value> = Vec::new();
    for w in WINDOWS {
        let s = v
            .component_stats(w)
            .into_iter()
            .find(|c| c.id == id)
            .map(|c| c.sums);
        let s = s.unwrap_or_default();
        windows.push(if stats.spout {
            json!({
                "windowPretty": window_pretty(w), "window": w,
                "emitted": s.emitted, "transferred": s.transferred,
                "completeLatency": fmt3(s.complete_latency()),
                "acked": s.acked, "failed": s.failed,
            })
        } else {
            json!({
                "windowPretty": window_pretty(w), "window": w,
                "emitted": s.emitted, "transferred": s.transferred,
                "executeLatency": fmt3(s.execute_latency()), "executed": s.executed,
                "processLatency": fmt3(s.process_latency()),
                "acked": s.acked, "failed": s.failed,
            })
        });
    }
    let mut executor_stats = Vec::new();
    for e in &executors {
        let Some(d) = window_sums(e, window) else {
            continue;
        };
        for (stream, n) in &d.emitted {
            outputs.entry(stream.clone()).or_default().0 += n;
        }
        for (stream, n) in &d.transferred {
            outputs.entry(stream.clone()).or_default().1 += n;
        }
        for (key, n) in &d.executed {
            inputs.entry(key.clone()).or_default()[0] += *n as f64;
        }
        for (key, ms) in &d.execute_ms_sum {
            inputs.entry(key.clone()).or_default()[1] += ms;
        }
        for (key, n) in &d.acked {
            inputs.entry(key.clone()).or_default()[2] += *n as f64;
        }
        for (key, ms) in &d.process_ms_sum {
            inputs.entry(key.clone()).or_default()[3] += ms;
        }
        for (key, n) in &d.failed {
            inputs.entry(key.clone()).or_default()[4] += *n as f64;
        }
        let s = Sums::of(d);
        let secs = match window.parse::<f64>() {
            Ok(w) => w.min(e.uptime_secs.max(0) as f64),
            Err(_) => e.uptime_secs.max(0) as f64,
        };
        let mut entry = json!({
            "id": format!("[{}-{}]", e.task_start, e.task_end),
            "encodedId": encode(&format!("[{}-{}]", e.task_start, e.task_end)),
            "host": e.host,
            "port": e.port,
            "uptime": pretty_secs(e.uptime_secs),
            "uptimeSeconds": e.uptime_secs,
            "emitted": s.emitted,
            "transferred": s.transferred,
            "acked": s.acked,
            "failed": s.failed,
            "workerLogLink": format!("/api/egret/topologies/{}/logs/{}", encode(&v.name), encode(&e.instance_id)),
        });
        let extra = if stats.spout {
            json!({"completeLatency": fmt3(s.complete_latency())})
        } else {
            json!({
                "executed": s.executed,
                "executeLatency": fmt3(s.execute_latency()),
                "processLatency": fmt3(s.process_latency()),
                "capacity": fmt3(if secs > 0.0 { s.execute_ms / (secs * 1000.0) } else { 0.0 }),
            })
        };
        entry = merge(entry, extra);
        executor_stats.push(entry);
    }
    let output_stats: Vec<Value> = outputs
        .iter()
        .filter(|(s, _)| crate::view::user_stream(s))
        .map(|(stream, (emitted, transferred))| {
            json!({"stream": stream, "emitted": emitted, "transferred": transferred})
        })
        .collect();
    let mut m = serde_json::Map::new();
    for (k, val) in [
        ("user", json!("")),
        ("id", json!(id)),
        ("encodedId", json!(encode(id))),
        ("name", json!(v.name)),
        ("executors", json!(stats.executors)),
        ("tasks", json!(stats.tasks)),
        ("requestedMemOnHeap", json!(mem)),
        ("requestedMemOffHeap", json!(0.0)),
        ("requestedCpu", json!(cpu)),
        ("schedulerDisplayResource", json!(false)),
        ("topologyId", json!(v.id())),
        ("topologyStatus", json!(v.status())),
        ("encodedTopologyId", json!(encode(v.id()))),
        ("window", json!(window)),
        (
            "componentType",
            json!(if stats.spout { "spout" } else { "bolt" }),
        ),
        ("windowHint", json!(window_pretty(window))),
        ("debug", json!(debug)),
        ("samplingPct", json!(sampling)),
        ("eventLogLink", json!("")),
        ("profilingAndDebuggingCapable", json!(false)),
        ("profileActionEnabled", json!(false)),
        ("profilerActive", json!([])),
        ("componentErrors", json!(errors)),
        ("outputStats", json!(output_stats)),
        ("executorStats", json!(executor_stats)),
    ] {
        m.insert(k.to_owned(), val);
    }
    if stats.spout {
        m.insert("spoutSummary".to_owned(), json!(windows));
    } else {
        m.insert("boltStats".to_owned(), json!(windows));
        let input_stats: Vec<Value> = spec
            .inputs
            .iter()
            .map(|input| {
                let key = format!("{}:{}", input.component, input.stream);
                let [executed, execute_ms, acked, process_ms, failed] =
                    inputs.get(&key).copied().unwrap_or_default();
                json!({
                    "component": input.component,
                    "encodedComponentId": encode(&input.component),
                    "stream": input.stream,
                    "executeLatency": fmt3(avg(execute_ms, executed as u64)),
                    "processLatency": fmt3(avg(process_ms, acked as u64)),
                    "executed": executed as u64,
                    "acked": acked as u64,
                    "failed": failed as u64,
                })
            })
            .collect();
        m.insert("inputStats".to_owned(), json!(input_stats));
    }
    Some(Value::Object(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_durations_as_storm_prints_them() {
        assert_eq!(pretty_secs(5), "5s");
        assert_eq!(pretty_secs(365), "6m 5s");
        assert_eq!(pretty_secs(10800), "3h 0m 0s");
        assert_eq!(pretty_secs(86400), "1d 0h 0m 0s");
        assert_eq!(window_pretty(":all-time"), "All time");
        assert_eq!(window_pretty("600"), "10m 0s");
    }

    #[test]
    fn encodes_path_segments() {
        assert_eq!(encode("word count/1"), "word%20count%2F1");
        assert_eq!(encode("[1-2]"), "%5B1-2%5D");
    }
}
