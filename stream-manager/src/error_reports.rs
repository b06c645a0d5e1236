//! Which task errors go on to the topology master.
//!
//! Storm's executors report at most `topology.max.error.report.per.interval`
//! errors per task every `topology.error.throttle.interval.secs` (the rest are
//! only logged), so that a bolt failing on every tuple cannot flood Nimbus.
//! The stream manager applies the same limit to what its instances report:
//! every error is still logged here, but only the admitted ones are stamped
//! and forwarded (and end up in Nimbus's `TopologyInfo.errors`).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use egret_proto::v1::Topology;
use serde_json::Value;
use tracing::warn;

use crate::settings::as_u64;

pub const THROTTLE_INTERVAL_SECS: &str = "topology.error.throttle.interval.secs";
pub const MAX_PER_INTERVAL: &str = "topology.max.error.report.per.interval";
/// Storm's defaults (`defaults.yaml`).
pub const DEFAULT_THROTTLE_INTERVAL_SECS: u64 = 10;
pub const DEFAULT_MAX_PER_INTERVAL: u32 = 5;

/// The limit: `max_per_interval` errors per task per `interval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorReportSettings {
    pub interval: Duration,
    pub max_per_interval: u32,
}

impl ErrorReportSettings {
    /// Reads Storm's two keys; a bad value is ignored with a warning.
    pub fn from_topology(topology: &Topology) -> Self {
        let config = egret_config::topology::config_map(topology).unwrap_or_else(|err| {
            warn!(error = %err, "The topology config is unreadable; error reports use Storm's limits.");
            serde_json::Map::new()
        });
        let read = |key: &'static str, default: u64| match config.get(key) {
            None | Some(Value::Null) => default,
            Some(value) => as_u64(value).unwrap_or_else(|| {
                warn!(key, %value, "Ignoring a value that is not a non-negative integer.");
                default
            }),
        };
        Self {
            interval: Duration::from_secs(read(
                THROTTLE_INTERVAL_SECS,
                DEFAULT_THROTTLE_INTERVAL_SECS,
            )),
            max_per_interval: u32::try_from(read(
                MAX_PER_INTERVAL,
                u64::from(DEFAULT_MAX_PER_INTERVAL),
            ))
            .unwrap_or(u32::MAX),
        }
    }
}

/// Per task: when its current interval started and how many errors it admitted.
#[derive(Debug)]
pub struct ErrorThrottle {
    settings: ErrorReportSettings,
    tasks: HashMap<i32, (Instant, u32)>,
}

impl ErrorThrottle {
    pub fn new(settings: ErrorReportSettings) -> Self {
        Self {
            settings,
            tasks: HashMap::new(),
        }
    }

    /// Whether `task`'s error at `now` is reported (else only logged).
    pub fn admit(&mut self, task: i32, now: Instant) -> bool {
        let (start, count) = self.tasks.entry(task).or_insert((now, 0));
        if now.duration_since(*start) >= self.settings.interval {
            *start = now;
            *count = 0;
        }
        if *count < self.settings.max_per_interval {
            *count += 1;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topology(config: &str) -> Topology {
        Topology {
            config_json: config.to_owned(),
            ..Topology::default()
        }
    }

    #[test]
    fn defaults_are_storms() {
        let settings = ErrorReportSettings::from_topology(&topology("{}"));
        assert_eq!(settings.interval, Duration::from_secs(10));
        assert_eq!(settings.max_per_interval, 5);
        let settings = ErrorReportSettings::from_topology(&topology(
            r#"{"topology.error.throttle.interval.secs": 3, "topology.max.error.report.per.interval": "2"}"#,
        ));
        assert_eq!(settings.interval, Duration::from_secs(3));
        assert_eq!(settings.max_per_interval, 2);
        let bad = ErrorReportSettings::from_topology(&topology(
            r#"{"topology.max.error.report.per.interval": "many"}"#,
        ));
        assert_eq!(bad.max_per_interval, 5);
    }

    #[test]
    fn each_task_gets_its_quota_per_interval() {
        let mut throttle = ErrorThrottle::new(ErrorReportSettings {
            interval: Duration::from_secs(10),
            max_per_interval: 2,
        });
        let t0 = Instant::now();
        assert!(throttle.admit(1, t0));
        assert!(throttle.admit(1, t0 + Duration::from_secs(1)));
        assert!(
            !throttle.admit(1, t0 + Duration::from_secs(2)),
            "third in the interval"
        );
        assert!(
            throttle.admit(2, t0 + Duration::from_secs(2)),
            "another task has its own quota"
        );
        assert!(!throttle.admit(1, t0 + Duration::from_millis(9_999)));
        assert!(
            throttle.admit(1, t0 + Duration::from_secs(10)),
            "a new interval"
        );
        assert!(throttle.admit(1, t0 + Duration::from_secs(11)));
        assert!(!throttle.admit(1, t0 + Duration::from_secs(12)));
    }
}
