//! Reading a running topology's config (`Topology.config_json`). The settings
//! several processes obey are not read from here but from the resolved
//! `Topology.settings` ([`crate::settings::settings_of`]).

use egret_proto::v1::Topology;

use crate::ConfigMap;

/// The topology's merged config (`Topology.config_json`); an empty string is
/// an empty config. The error says why the text is not a JSON object.
pub fn config_map(topology: &Topology) -> Result<ConfigMap, String> {
    if topology.config_json.trim().is_empty() {
        return Ok(ConfigMap::new());
    }
    serde_json::from_str(&topology.config_json)
        .map_err(|e| format!("config_json is not a JSON object: {e}"))
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
    fn empty_is_empty_and_not_json_is_an_error() {
        assert!(config_map(&topology("")).unwrap().is_empty());
        assert_eq!(
            config_map(&topology(r#"{"a": 1}"#)).unwrap()["a"],
            serde_json::json!(1)
        );
        assert!(config_map(&topology("not json")).is_err());
        assert!(config_map(&topology("[1]")).is_err());
    }
}
