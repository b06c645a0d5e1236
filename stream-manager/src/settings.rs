//! The settings a stream manager reads from the topology config: acking
//! (Storm's keys, contracts "Acking (at-least-once)") and backpressure
//! (`egret.backpressure.*`, docs/architecture.md "Backpressure").

use std::time::Duration;

use egret_proto::v1::Topology;
use serde_json::Value;
use tracing::warn;

pub const MESSAGE_TIMEOUT_SECS: &str = "topology.message.timeout.secs";
pub const ENABLE_MESSAGE_TIMEOUTS: &str = "topology.enable.message.timeouts";
pub const ACKER_EXECUTORS: &str = "topology.acker.executors";
pub const DEFAULT_MESSAGE_TIMEOUT_SECS: u64 = 30;

pub const HIGH_WATERMARK: &str = "egret.backpressure.high.watermark.bytes";
pub const LOW_WATERMARK: &str = "egret.backpressure.low.watermark.bytes";
/// Per destination: a few thousand small tuples, or a few full 64 KiB frames.
/// The bytes queued are what a tuple waits behind, so this bounds the complete
/// latency under load; it was 16 MiB, which held ~300 000 small tuples (seconds
/// of queueing) and made every pending-tree table miss the caches
/// (docs/performance.md: 512 KiB doubled throughput and cut p99 tenfold).
pub const DEFAULT_HIGH_WATERMARK: u64 = 512 * 1024;

/// The watermarks of the bytes queued toward one destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackpressureSettings {
    /// Above this a destination is congested.
    pub high_watermark: u64,
    /// Below this a congested destination is not any more.
    pub low_watermark: u64,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SettingsError {
    #[error("{key} must be a non-negative integer number of bytes, not {value}")]
    NotBytes { key: &'static str, value: String },
    #[error("{HIGH_WATERMARK} must be above 0")]
    ZeroHigh,
    #[error("{LOW_WATERMARK} ({low}) must be below {HIGH_WATERMARK} ({high})")]
    LowNotBelowHigh { low: u64, high: u64 },
    #[error("the topology config is unreadable: {0}")]
    Config(String),
}

impl BackpressureSettings {
    /// Reads the watermarks; either defaults from the other (low = high / 2,
    /// high = 2 × low, at least the default) and both default to 512 KiB /
    /// 256 KiB.
    pub fn from_topology(topology: &Topology) -> Result<Self, SettingsError> {
        let config = egret_config::topology::config_map(topology).map_err(SettingsError::Config)?;
        Self::from_config(&config)
    }

    pub fn from_config(config: &serde_json::Map<String, Value>) -> Result<Self, SettingsError> {
        let read = |key: &'static str| match config.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => as_u64(value).map(Some).ok_or(SettingsError::NotBytes {
                key,
                value: value.to_string(),
            }),
        };
        let (high, low) = match (read(HIGH_WATERMARK)?, read(LOW_WATERMARK)?) {
            (Some(high), Some(low)) => (high, low),
            (Some(high), None) => (high, high / 2),
            (None, Some(low)) => (low.saturating_mul(2).max(DEFAULT_HIGH_WATERMARK), low),
            (None, None) => (DEFAULT_HIGH_WATERMARK, DEFAULT_HIGH_WATERMARK / 2),
        };
        if high == 0 {
            return Err(SettingsError::ZeroHigh);
        }
        if low >= high {
            return Err(SettingsError::LowNotBelowHigh { low, high });
        }
        Ok(Self {
            high_watermark: high,
            low_watermark: low,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckingSettings {
    /// Acking is on unless `topology.acker.executors` is 0 (Storm: null means on).
    pub enabled: bool,
    /// `topology.message.timeout.secs`.
    pub timeout: Duration,
    /// `topology.enable.message.timeouts`: when false, trees never expire.
    pub timeouts_enabled: bool,
}

pub(crate) fn as_u64(value: &Value) -> Option<u64> {
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
        let config = egret_config::topology::config_map(topology).unwrap_or_else(|err| {
            warn!(error = %err, "The topology config is unreadable; acking uses its defaults.");
            serde_json::Map::new()
        });
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

    fn watermarks(json: &str) -> Result<BackpressureSettings, SettingsError> {
        BackpressureSettings::from_topology(&Topology {
            config_json: json.into(),
            ..Default::default()
        })
    }

    #[test]
    fn watermarks_default_derive_and_validate() {
        let kib = 1024;
        assert_eq!(
            watermarks("").unwrap(),
            BackpressureSettings {
                high_watermark: 512 * kib,
                low_watermark: 256 * kib
            }
        );
        let small_low = watermarks(r#"{"egret.backpressure.low.watermark.bytes": 1000}"#).unwrap();
        assert_eq!(
            (small_low.high_watermark, small_low.low_watermark),
            (512 * kib, 1000)
        );
        let high_only = watermarks(r#"{"egret.backpressure.high.watermark.bytes": 1000}"#).unwrap();
        assert_eq!(
            (high_only.high_watermark, high_only.low_watermark),
            (1000, 500)
        );
        let low_only =
            watermarks(r#"{"egret.backpressure.low.watermark.bytes": "20000000"}"#).unwrap();
        assert_eq!(
            (low_only.high_watermark, low_only.low_watermark),
            (40_000_000, 20_000_000)
        );
        let err = watermarks(
            r#"{"egret.backpressure.high.watermark.bytes": 1000, "egret.backpressure.low.watermark.bytes": 1000}"#,
        )
        .unwrap_err();
        assert_eq!(
            err,
            SettingsError::LowNotBelowHigh {
                low: 1000,
                high: 1000
            }
        );
        assert!(
            err.to_string()
                .contains("must be below egret.backpressure.high.watermark.bytes")
        );
        assert!(matches!(
            watermarks(r#"{"egret.backpressure.high.watermark.bytes": "lots"}"#),
            Err(SettingsError::NotBytes { .. })
        ));
        assert_eq!(
            watermarks(r#"{"egret.backpressure.high.watermark.bytes": 0}"#),
            Err(SettingsError::ZeroHigh)
        );
    }
}
