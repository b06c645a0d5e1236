//! Settings the stream manager and the topology master read from a running
//! topology's config (`Topology.config_json`).

use egret_proto::frame::{DEFAULT_MAX_FRAME_BYTES, HELLO_MAX_BYTES};
use egret_proto::v1::Topology;
use tracing::warn;

use crate::ConfigMap;
use crate::FRAME_MAX_BYTES as MAX_FRAME_BYTES_KEY;

/// The topology's merged config (`Topology.config_json`); an empty string is
/// an empty config. The error says why the text is not a JSON object.
pub fn config_map(topology: &Topology) -> Result<ConfigMap, String> {
    if topology.config_json.trim().is_empty() {
        return Ok(ConfigMap::new());
    }
    serde_json::from_str(&topology.config_json)
        .map_err(|e| format!("config_json is not a JSON object: {e}"))
}

/// `egret.frame.max.bytes` from the topology config (default
/// [`DEFAULT_MAX_FRAME_BYTES`]); a value that is not a positive integer is
/// ignored with a warning, and the cap is never below the hello's own cap.
pub fn max_frame_bytes(topology: &Topology) -> usize {
    let config = match config_map(topology) {
        Ok(config) => config,
        Err(err) => {
            warn!(error = %err, "The topology config is unreadable; using the default frame cap.");
            return DEFAULT_MAX_FRAME_BYTES;
        }
    };
    let value = match config.get(MAX_FRAME_BYTES_KEY) {
        None | Some(serde_json::Value::Null) => return DEFAULT_MAX_FRAME_BYTES,
        Some(value) => value,
    };
    let parsed = match value {
        serde_json::Value::Number(n) => n.as_u64(),
        serde_json::Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    match parsed.and_then(|n| usize::try_from(n).ok()) {
        Some(n) if n > 0 => n.clamp(HELLO_MAX_BYTES, u32::MAX as usize),
        _ => {
            warn!(key = MAX_FRAME_BYTES_KEY, %value, "Ignoring a frame cap that is not a positive integer.");
            DEFAULT_MAX_FRAME_BYTES
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topology(config: &str) -> Topology {
        Topology {
            config_json: config.to_owned(),
            ..Default::default()
        }
    }

    #[test]
    fn reads_the_cap_or_falls_back_to_the_default() {
        assert_eq!(max_frame_bytes(&topology("")), DEFAULT_MAX_FRAME_BYTES);
        assert_eq!(max_frame_bytes(&topology("{}")), DEFAULT_MAX_FRAME_BYTES);
        assert_eq!(
            max_frame_bytes(&topology(r#"{"egret.frame.max.bytes": 1048576}"#)),
            1 << 20
        );
        assert_eq!(
            max_frame_bytes(&topology(r#"{"egret.frame.max.bytes": "2048000"}"#)),
            2_048_000
        );
        assert_eq!(
            max_frame_bytes(&topology(r#"{"egret.frame.max.bytes": -3}"#)),
            DEFAULT_MAX_FRAME_BYTES
        );
        assert_eq!(
            max_frame_bytes(&topology(r#"{"egret.frame.max.bytes": 10}"#)),
            HELLO_MAX_BYTES
        );
        assert_eq!(
            max_frame_bytes(&topology("not json")),
            DEFAULT_MAX_FRAME_BYTES
        );
    }
}
