//! `egret bench`: the same unchanged Storm topology jar and main class run on
//! real Apache Storm and on Egret, alternating, each for a fixed duration, and
//! measured the same way (docs/bench.md).
//!
//! - [`procs`]: CPU and peak RSS of each system's whole process tree, sampled
//!   from `/proc` (outside the systems);
//! - [`cumulative`] and [`histogram`]: the throughput and complete-latency
//!   figures the Java task hook (`dev.egret.bench.LatencyHook`, registered
//!   through `topology.auto.task.hooks` on both systems) writes per task;
//! - [`cluster`]: real Storm as ZooKeeper, Nimbus, a Supervisor and its
//!   workers on loopback (`--storm-mode cluster`);
//! - [`runner`]: one measured run (spawn, wait for the first tuple, warm up,
//!   measure, stop the whole tree);
//! - [`plan`]: the command lines of each system and the alternation of rounds;
//! - [`report`]: the terminal table, the Markdown report and the SVG chart;
//! - [`kafka`]: the Kafka broker of `--workload kafka` (also the connector
//!   tests'), and records/s from its topic's end offsets;
//! - [`profile`]: `--profile`, a flame graph of Egret's stream managers
//!   (`perf`, `inferno`) and a JFR recording of its busiest instance JVM,
//!   over the measured window;
//! - [`rate`]: `--rate`, the fixed-rate workload (`dev.egret.bench.RateTopology`)
//!   at each offered rate: latency percentiles and CPU per tuple, per system;
//! - [`sinks`]: `--graphite-sinks`, Egret with a stalled and a dead Graphite
//!   sink (system `egret-sinks`) beside plain Egret;
//! - [`batching`]: system `egret-timer`, Egret with adaptive batching off
//!   (the flush timer only), to compare with `egret`;
//! - [`bridges`]: `--bridge socket,jni`, Egret with each bridge (system
//!   `egret-jni` for the JNI bridge);
//! - [`guarantees`]: `--guarantees`, the bench's stateful workload under
//!   at-least-once and effectively once at three checkpoint intervals, with
//!   the recovery time after a `kill -9` of a stateful bolt's JVM;
//! - [`tls_cost`]: `--tls-cost`, the same framed batches over a TLS and a
//!   plain loopback link, compared (no Storm, no topology).
//!
//! Invariants: every system is measured by the same code (same hook, same
//! sampler, same window rule: cumulative figures at warm-up end subtracted from
//! those at run end); a run never leaves a process behind, even on error.

pub mod batching;
pub mod bridges;
pub mod cluster;
pub mod cumulative;
pub mod guarantees;
pub mod histogram;
pub mod kafka;
pub mod plan;
pub mod procs;
pub mod profile;
pub mod rate;
pub mod report;
pub mod runner;
pub mod sinks;
pub mod tls_cost;

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot start {program}: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{system} exited ({status}) before the run ended; its log: {log}\n{tail}")]
    EndedEarly {
        system: String,
        status: String,
        log: PathBuf,
        tail: String,
    },
    #[error("{0}")]
    Setup(String),
}

impl BenchError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        BenchError::Io {
            path: path.to_owned(),
            source,
        }
    }
}
