//! Which state manager holds the state a topology's processes share, resolved
//! once from the configuration into a [`StateManagerConfig`].
//!
//! Keys:
//! - `egret.state.manager`: `local` (the default) or `zookeeper`;
//! - `egret.zookeeper.servers`: `"host:port,host:port"` or a list of
//!   `host:port` strings; required with `zookeeper`;
//! - `egret.zookeeper.root`: the absolute node under which everything lives,
//!   default `/egret`.
//!
//! Read by `egret jar` (a shared state manager: the topology is stored there
//! for the cluster's hosts) and by the roles hosts run (`egret tmaster|container
//! --topology NAME`); see contracts.md, "State manager".

use std::path::PathBuf;

use serde_json::Value;

use crate::{ConfigMap, LOCAL_DIR};

pub const STATE_MANAGER: &str = "egret.state.manager";
pub const ZOOKEEPER_SERVERS: &str = "egret.zookeeper.servers";
pub const ZOOKEEPER_ROOT: &str = "egret.zookeeper.root";

pub const DEFAULT_ZOOKEEPER_ROOT: &str = "/egret";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateManagerConfigError {
    #[error("config key {key} must be {expected}, found {value}")]
    BadValue {
        key: &'static str,
        expected: &'static str,
        value: String,
    },
    #[error("config key {ZOOKEEPER_SERVERS} must be set when {STATE_MANAGER} is zookeeper")]
    MissingServers,
}

/// The resolved choice of state manager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StateManagerConfig {
    /// The local directory `egret.local.dir` (contracts.md, "State directory").
    Local { dir: PathBuf },
    /// A ZooKeeper ensemble.
    ZooKeeper {
        /// Normalised connect string: `host:port` entries joined by `,`.
        servers: String,
        /// Absolute, without a trailing `/`, e.g. `/egret`.
        root: String,
    },
}

impl StateManagerConfig {
    /// Resolves the state manager keys of `config`; every error names the key.
    pub fn resolve(config: &ConfigMap) -> Result<Self, StateManagerConfigError> {
        let kind = match config.get(STATE_MANAGER) {
            None | Some(Value::Null) => "local".to_owned(),
            Some(Value::String(s)) => s.trim().to_ascii_lowercase(),
            Some(other) => return Err(bad(STATE_MANAGER, KIND_EXPECTED, other)),
        };
        match kind.as_str() {
            "local" => {
                let dir = match config.get(LOCAL_DIR) {
                    Some(Value::String(s)) if !s.is_empty() => PathBuf::from(s),
                    Some(other) => return Err(bad(LOCAL_DIR, "a directory path", other)),
                    None => {
                        return Err(StateManagerConfigError::BadValue {
                            key: LOCAL_DIR,
                            expected: "a directory path",
                            value: "nothing".to_owned(),
                        });
                    }
                };
                Ok(Self::Local { dir })
            }
            "zookeeper" => Ok(Self::ZooKeeper {
                servers: servers(config.get(ZOOKEEPER_SERVERS))?,
                root: root(config.get(ZOOKEEPER_ROOT))?,
            }),
            _ => Err(bad(
                STATE_MANAGER,
                KIND_EXPECTED,
                &Value::String(kind.clone()),
            )),
        }
    }
}

const KIND_EXPECTED: &str = "local or zookeeper";
const SERVERS_EXPECTED: &str =
    "\"host:port,host:port\" or a list of host:port strings, each port from 1 to 65535";
const ROOT_EXPECTED: &str =
    "an absolute ZooKeeper path such as /egret (no empty segment, no trailing /)";

fn bad(key: &'static str, expected: &'static str, value: &Value) -> StateManagerConfigError {
    StateManagerConfigError::BadValue {
        key,
        expected,
        value: value.to_string(),
    }
}

fn servers(value: Option<&Value>) -> Result<String, StateManagerConfigError> {
    let entries: Vec<String> = match value {
        None | Some(Value::Null) => return Err(StateManagerConfigError::MissingServers),
        Some(Value::String(s)) => s.split(',').map(|e| e.trim().to_owned()).collect(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.trim().to_owned()),
                other => Err(bad(ZOOKEEPER_SERVERS, SERVERS_EXPECTED, other)),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(bad(ZOOKEEPER_SERVERS, SERVERS_EXPECTED, other)),
    };
    let whole = || {
        bad(
            ZOOKEEPER_SERVERS,
            SERVERS_EXPECTED,
            value.unwrap_or(&Value::Null),
        )
    };
    if entries.is_empty() || entries.iter().all(String::is_empty) {
        return Err(StateManagerConfigError::MissingServers);
    }
    for entry in &entries {
        let Some((host, port)) = entry.rsplit_once(':') else {
            return Err(whole());
        };
        let port_ok = port.parse::<u16>().is_ok_and(|p| p > 0);
        if host.is_empty() || host.contains(char::is_whitespace) || !port_ok {
            return Err(whole());
        }
    }
    Ok(entries.join(","))
}

fn root(value: Option<&Value>) -> Result<String, StateManagerConfigError> {
    let root = match value {
        None | Some(Value::Null) => return Ok(DEFAULT_ZOOKEEPER_ROOT.to_owned()),
        Some(Value::String(s)) => s.trim(),
        Some(other) => return Err(bad(ZOOKEEPER_ROOT, ROOT_EXPECTED, other)),
    };
    let valid = root.len() > 1
        && root.starts_with('/')
        && root[1..]
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != "..")
        && !root.chars().any(char::is_control);
    if !valid {
        return Err(bad(
            ZOOKEEPER_ROOT,
            ROOT_EXPECTED,
            &Value::String(root.to_owned()),
        ));
    }
    Ok(root.to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn config(pairs: &[(&str, Value)]) -> ConfigMap {
        let mut map = ConfigMap::new();
        map.insert(LOCAL_DIR.into(), json!("/var/egret/local"));
        for (k, v) in pairs {
            map.insert((*k).to_owned(), v.clone());
        }
        map
    }

    #[test]
    fn local_is_the_default_and_uses_the_local_dir() {
        assert_eq!(
            StateManagerConfig::resolve(&config(&[])).unwrap(),
            StateManagerConfig::Local {
                dir: PathBuf::from("/var/egret/local")
            }
        );
        assert_eq!(
            StateManagerConfig::resolve(&config(&[(STATE_MANAGER, json!(" Local "))])).unwrap(),
            StateManagerConfig::Local {
                dir: PathBuf::from("/var/egret/local")
            }
        );
    }

    #[test]
    fn zookeeper_takes_a_string_or_a_list_and_defaults_the_root() {
        let from_string = config(&[
            (STATE_MANAGER, json!("zookeeper")),
            (ZOOKEEPER_SERVERS, json!("zk1:2181, zk2:2182")),
        ]);
        assert_eq!(
            StateManagerConfig::resolve(&from_string).unwrap(),
            StateManagerConfig::ZooKeeper {
                servers: "zk1:2181,zk2:2182".into(),
                root: "/egret".into()
            }
        );
        let from_list = config(&[
            (STATE_MANAGER, json!("zookeeper")),
            (ZOOKEEPER_SERVERS, json!(["zk1:2181", "10.0.0.3:2181"])),
            (ZOOKEEPER_ROOT, json!("/prod/egret")),
        ]);
        assert_eq!(
            StateManagerConfig::resolve(&from_list).unwrap(),
            StateManagerConfig::ZooKeeper {
                servers: "zk1:2181,10.0.0.3:2181".into(),
                root: "/prod/egret".into()
            }
        );
    }

    #[test]
    fn errors_name_the_key() {
        let err = |pairs: &[(&str, Value)]| {
            StateManagerConfig::resolve(&config(pairs))
                .unwrap_err()
                .to_string()
        };
        let e = err(&[(STATE_MANAGER, json!("etcd"))]);
        assert!(e.contains(STATE_MANAGER) && e.contains("etcd"), "{e}");
        let e = err(&[(STATE_MANAGER, json!(3))]);
        assert!(e.contains(STATE_MANAGER), "{e}");
        let e = err(&[(STATE_MANAGER, json!("zookeeper"))]);
        assert!(e.contains(ZOOKEEPER_SERVERS), "{e}");
        let zk = (STATE_MANAGER, json!("zookeeper"));
        for servers in [
            json!("zk1"),
            json!("zk1:0"),
            json!("zk1:99999"),
            json!(":2181"),
            json!("zk1:2181,"),
            json!([1, 2]),
            json!({"a": 1}),
        ] {
            let e = err(&[zk.clone(), (ZOOKEEPER_SERVERS, servers.clone())]);
            assert!(e.contains(ZOOKEEPER_SERVERS), "{servers}: {e}");
        }
        let e = err(&[zk.clone(), (ZOOKEEPER_SERVERS, json!(""))]);
        assert!(e.contains(ZOOKEEPER_SERVERS), "{e}");
        for root in [
            json!("egret"),
            json!("/"),
            json!("/egret/"),
            json!("/a//b"),
            json!(7),
        ] {
            let e = err(&[
                zk.clone(),
                (ZOOKEEPER_SERVERS, json!("zk1:2181")),
                (ZOOKEEPER_ROOT, root.clone()),
            ]);
            assert!(e.contains(ZOOKEEPER_ROOT), "{root}: {e}");
        }
    }
}
