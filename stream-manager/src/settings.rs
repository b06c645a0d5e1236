//! The settings a stream manager obeys: acking (Storm's keys, contracts
//! "Acking (at-least-once)") and backpressure (`egret.backpressure.*`,
//! docs/architecture.md "Backpressure"). They are not parsed here: they come
//! resolved in `Topology.settings` (`egret_config::settings`, filled at
//! submission); a topology without them is refused.

use std::time::Duration;

use egret_proto::v1::{Topology, TopologySettings};
use serde_json::Value;

pub use egret_config::settings::SettingsError;

/// The watermarks of the bytes queued toward one destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackpressureSettings {
    /// Above this a destination is congested.
    pub high_watermark: u64,
    /// Below this a congested destination is not any more.
    pub low_watermark: u64,
}

impl BackpressureSettings {
    pub fn from_settings(settings: &TopologySettings) -> Self {
        Self {
            high_watermark: settings.high_watermark_bytes,
            low_watermark: settings.low_watermark_bytes,
        }
    }

    /// The watermarks of a submitted topology.
    pub fn from_topology(topology: &Topology) -> Result<Self, SettingsError> {
        egret_config::settings::settings_of(topology).map(Self::from_settings)
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

impl AckingSettings {
    pub fn from_settings(settings: &TopologySettings) -> Self {
        Self {
            enabled: settings.acking,
            timeout: Duration::from_secs(u64::from(settings.message_timeout_secs)),
            timeouts_enabled: settings.message_timeouts,
        }
    }

    /// The acking settings of a submitted topology.
    pub fn from_topology(topology: &Topology) -> Result<Self, SettingsError> {
        egret_config::settings::settings_of(topology).map(Self::from_settings)
    }
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn submitted(json: &str) -> Topology {
        let mut topology = Topology {
            name: "t".into(),
            config_json: json.into(),
            ..Default::default()
        };
        egret_config::settings::resolve_topology(&mut topology).unwrap();
        topology
    }

    #[test]
    fn reads_the_resolved_settings() {
        let default = AckingSettings::from_topology(&submitted("")).unwrap();
        assert!(default.enabled && default.timeouts_enabled);
        assert_eq!(default.timeout, Duration::from_secs(30));
        let t = submitted(
            r#"{"topology.acker.executors": "0", "topology.message.timeout.secs": "7",
                "topology.enable.message.timeouts": "false",
                "egret.backpressure.high.watermark.bytes": "1000"}"#,
        );
        assert_eq!(
            AckingSettings::from_topology(&t).unwrap(),
            AckingSettings {
                enabled: false,
                timeout: Duration::from_secs(7),
                timeouts_enabled: false
            }
        );
        assert_eq!(
            BackpressureSettings::from_topology(&t).unwrap(),
            BackpressureSettings {
                high_watermark: 1000,
                low_watermark: 500
            }
        );
    }

    #[test]
    fn a_topology_without_settings_is_refused() {
        let old = Topology {
            name: "old".into(),
            config_json: "{}".into(),
            ..Default::default()
        };
        assert!(matches!(
            AckingSettings::from_topology(&old),
            Err(SettingsError::Missing(_))
        ));
        assert!(BackpressureSettings::from_topology(&old).is_err());
    }
}
