//! The acking settings a stream manager reads from the topology config
//! (Storm's keys, contracts "Acking (at-least-once)").

use std::time::Duration;

use egret_proto::v1::Topology;
use serde_json::Value;
use tracing::warn;

pub const MESSAGE_TIMEOUT_SECS: &str = "topology.message.timeout.secs";
pub const ENABLE_MESSAGE_TIMEOUTS: &str = "topology.enable.message.timeouts";
pub const ACKER_EXECUTORS: &str = "topology.acker.executors";
pub const DEFAULT_MESSAGE_TIMEOUT_SECS: u64 = 30;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckingSettings {
    /// Acking is on unless `topology.acker.executors` is 0 (Storm: null means on).
    pub enabled: bool,
    /// `topology.message.timeout.secs`.
    pub timeout: Duration,
    /// `topology.enable.message.timeouts`: when false, trees never expire.
    pub timeouts_enabled: bool,
}

fn as_u64(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

impl AckingSettings {
    /// Reads the settings; a bad value is ignored with a warning (the default applies).
    pub fn from_topology(topology: &Topology) -> Self {
        let config: serde_json::Map<String, Value> = if topology.config_json.trim().is_empty() {
            serde_json::Map::new()
        } else {
            serde_json::from_str(&topology.config_json).unwrap_or_else(|err| {
                warn!(error = %err, "The topology config is not a JSON object; acking uses its defaults.");
                serde_json::Map::new()
            })
        };
        Self::from_config(&config)
    }

    pub fn from_config(config: &serde_json::Map<String, Value>) -> Self {
        let enabled = match config.get(ACKER_EXECUTORS) {
            None | Some(Value::Null) => true,
            Some(value) => match as_u64(value) {
                Some(n) => n > 0,
                None => {
                    warn!(key = ACKER_EXECUTORS, %value, "Ignoring a value that is not a non-negative integer.");
                    true
                }
            },
        };
        let timeout_secs = match config.get(MESSAGE_TIMEOUT_SECS) {
            None | Some(Value::Null) => DEFAULT_MESSAGE_TIMEOUT_SECS,
            Some(value) => match as_u64(value) {
                Some(n) if n > 0 => n,
                _ => {
                    warn!(key = MESSAGE_TIMEOUT_SECS, %value, "Ignoring a message timeout that is not a positive integer.");
                    DEFAULT_MESSAGE_TIMEOUT_SECS
                }
            },
        };
        let timeouts_enabled = match config.get(ENABLE_MESSAGE_TIMEOUTS) {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => false,
            Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => true,
            Some(value) => {
                warn!(key = ENABLE_MESSAGE_TIMEOUTS, %value, "Ignoring a value that is not a boolean.");
                true
            }
        };
        Self {
            enabled,
            timeout: Duration::from_secs(timeout_secs),
            timeouts_enabled,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn settings(json: &str) -> AckingSettings {
        AckingSettings::from_topology(&Topology {
            config_json: json.into(),
            ..Default::default()
        })
    }

    #[test]
    fn storm_defaults_and_overrides() {
        let default = settings("");
        assert!(default.enabled && default.timeouts_enabled);
        assert_eq!(default.timeout, Duration::from_secs(30));
        assert_eq!(settings(r#"{"topology.acker.executors": null}"#), default);
        assert!(!settings(r#"{"topology.acker.executors": 0}"#).enabled);
        assert!(settings(r#"{"topology.acker.executors": 2}"#).enabled);
        assert_eq!(
            settings(r#"{"topology.message.timeout.secs": 5}"#).timeout,
            Duration::from_secs(5)
        );
        assert_eq!(
            settings(r#"{"topology.message.timeout.secs": "7"}"#).timeout,
            Duration::from_secs(7)
        );
        assert_eq!(
            settings(r#"{"topology.message.timeout.secs": 0}"#).timeout,
            Duration::from_secs(30)
        );
        assert!(!settings(r#"{"topology.enable.message.timeouts": false}"#).timeouts_enabled);
        assert_eq!(settings("[1]"), default);
    }
}
