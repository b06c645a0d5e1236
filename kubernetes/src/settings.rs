//! The `egret.kubernetes.*` keys (and `egret.health.port`), resolved once
//! from the submission's config and handed to the object builder and the
//! client.

use std::path::PathBuf;

use egret_config::ConfigMap;
use serde_json::Value;

/// The namespace the topology's objects go to.
pub const NAMESPACE: &str = "egret.kubernetes.namespace";
/// The container image holding `egret`, the shim and a JRE (deploy/Dockerfile).
pub const IMAGE: &str = "egret.kubernetes.image";
/// The pods' `imagePullPolicy` (Kubernetes' default when absent).
pub const IMAGE_PULL_POLICY: &str = "egret.kubernetes.image.pull.policy";
/// The pods' service account (the namespace's `default` when absent).
pub const SERVICE_ACCOUNT: &str = "egret.kubernetes.service-account";
/// The kubeconfig file the submitting `egret` uses (else `$KUBECONFIG`,
/// `~/.kube/config` or the in-cluster service account).
pub const KUBECONFIG: &str = "egret.kubernetes.kubeconfig";
/// Memory of a container pod's stream manager and container supervisor, MB,
/// added to its instances' (heap + JVM overhead).
pub const STMGR_MEMORY_MB: &str = "egret.kubernetes.stmgr.memory.mb";
/// Memory of the topology master's pod, MB.
pub const MASTER_MEMORY_MB: &str = "egret.kubernetes.master.memory.mb";
/// The shim jar's path inside the image (the pods' `egret.shim.jar`).
pub const SHIM_JAR: &str = "egret.kubernetes.shim.jar";
/// The `java` the pods' instances run (the pods' `egret.java`): on the image's `PATH` by default.
pub const JAVA: &str = "egret.kubernetes.java";
/// Whether `egret jar` creates the objects (`true`, the default) or only
/// stores the topology for objects applied another way (GitOps: `egret
/// kubernetes manifests`); with `false` nothing calls the Kubernetes API, and
/// `egret kill` leaves the objects to whoever applied them.
pub const CREATE: &str = "egret.kubernetes.create";
/// The port of the health endpoint (`/healthz`, `/readyz`) the master and
/// the containers of a cluster topology serve; the pods' probes use it.
pub const HEALTH_PORT: &str = "egret.health.port";

pub const DEFAULT_NAMESPACE: &str = "default";
pub const DEFAULT_STMGR_MEMORY_MB: u32 = 256;
pub const DEFAULT_MASTER_MEMORY_MB: u32 = 256;
pub const DEFAULT_HEALTH_PORT: u16 = 8086;
/// Where deploy/Dockerfile puts the shim (and storm-shaded-deps.jar beside it).
pub const DEFAULT_SHIM_JAR: &str = "/opt/egret/lib/egret-shim.jar";
pub const DEFAULT_JAVA: &str = "java";

/// A bad `egret.kubernetes.*` value, naming its key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error("config key {key} must be {expected}, found {value}")]
    BadValue {
        key: &'static str,
        expected: &'static str,
        value: String,
    },
    #[error(
        "the Kubernetes scheduler needs an image: set {IMAGE} (deploy/Dockerfile builds one; docs/kubernetes.md)"
    )]
    MissingImage,
}

/// The resolved Kubernetes settings of a submission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubernetesSettings {
    pub namespace: String,
    pub image: String,
    pub image_pull_policy: Option<String>,
    pub service_account: Option<String>,
    pub kubeconfig: Option<PathBuf>,
    pub stmgr_memory_mb: u32,
    pub master_memory_mb: u32,
    pub health_port: u16,
    /// What the topology's config says `egret.shim.jar` and `egret.java`
    /// are, for the pods (not the submitting machine's).
    pub shim_jar: String,
    pub java: String,
    /// [`CREATE`].
    pub create: bool,
}

fn bad(key: &'static str, expected: &'static str, value: &Value) -> SettingsError {
    SettingsError::BadValue {
        key,
        expected,
        value: value.to_string(),
    }
}

fn string(config: &ConfigMap, key: &'static str) -> Result<Option<String>, SettingsError> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_owned())),
        Some(other) => Err(bad(key, "a string", other)),
    }
}

fn number(
    config: &ConfigMap,
    key: &'static str,
    min: u64,
    max: u64,
) -> Result<Option<u64>, SettingsError> {
    let expected = "a whole number in range";
    match config.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => {
            let n = match v {
                Value::Number(n) => n.as_u64(),
                Value::String(s) => s.trim().parse::<u64>().ok(),
                _ => None,
            };
            match n {
                Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
                _ => Err(bad(key, expected, v)),
            }
        }
    }
}

/// A DNS-1123 label (a namespace or service account name).
fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// The health port, alone: the roles that serve the endpoint read it too.
pub fn health_port(config: &ConfigMap) -> Result<u16, SettingsError> {
    Ok(number(config, HEALTH_PORT, 1, 65535)?
        .and_then(|p| u16::try_from(p).ok())
        .unwrap_or(DEFAULT_HEALTH_PORT))
}

impl KubernetesSettings {
    /// Resolves every key from `config`; each error names its key.
    pub fn resolve(config: &ConfigMap) -> Result<Self, SettingsError> {
        let namespace = string(config, NAMESPACE)?.unwrap_or_else(|| DEFAULT_NAMESPACE.to_owned());
        if !is_dns_label(&namespace) {
            return Err(bad(
                NAMESPACE,
                "a namespace name (lowercase letters, digits and '-', at most 63)",
                &Value::String(namespace),
            ));
        }
        let image = string(config, IMAGE)?.ok_or(SettingsError::MissingImage)?;
        let image_pull_policy = string(config, IMAGE_PULL_POLICY)?;
        if let Some(policy) = &image_pull_policy
            && !matches!(policy.as_str(), "Always" | "IfNotPresent" | "Never")
        {
            return Err(bad(
                IMAGE_PULL_POLICY,
                "Always, IfNotPresent or Never",
                &Value::String(policy.clone()),
            ));
        }
        let service_account = string(config, SERVICE_ACCOUNT)?;
        if let Some(account) = &service_account
            && !is_dns_label(account)
        {
            return Err(bad(
                SERVICE_ACCOUNT,
                "a service account name",
                &Value::String(account.clone()),
            ));
        }
        let mb = |key| {
            number(config, key, 16, u64::from(u32::MAX))
                .map(|n| n.and_then(|n| u32::try_from(n).ok()))
        };
        Ok(Self {
            namespace,
            image,
            image_pull_policy,
            service_account,
            kubeconfig: string(config, KUBECONFIG)?.map(PathBuf::from),
            stmgr_memory_mb: mb(STMGR_MEMORY_MB)?.unwrap_or(DEFAULT_STMGR_MEMORY_MB),
            master_memory_mb: mb(MASTER_MEMORY_MB)?.unwrap_or(DEFAULT_MASTER_MEMORY_MB),
            health_port: health_port(config)?,
            shim_jar: string(config, SHIM_JAR)?.unwrap_or_else(|| DEFAULT_SHIM_JAR.to_owned()),
            java: string(config, JAVA)?.unwrap_or_else(|| DEFAULT_JAVA.to_owned()),
            create: match config.get(CREATE) {
                None | Some(Value::Null) => true,
                Some(Value::Bool(b)) => *b,
                Some(Value::String(s)) if s.trim() == "true" => true,
                Some(Value::String(s)) if s.trim() == "false" => false,
                Some(other) => return Err(bad(CREATE, "true or false", other)),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;
    use serde_json::json;

    fn config(pairs: &[(&str, Value)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    #[test]
    fn defaults_and_every_key() {
        let s = KubernetesSettings::resolve(&config(&[(IMAGE, json!("egret:1"))])).unwrap();
        assert_eq!(s.namespace, "default");
        assert_eq!(s.health_port, DEFAULT_HEALTH_PORT);
        assert_eq!(s.stmgr_memory_mb, 256);
        let s = KubernetesSettings::resolve(&config(&[
            (IMAGE, json!("reg/egret:2")),
            (NAMESPACE, json!("streams")),
            (SERVICE_ACCOUNT, json!("egret")),
            (IMAGE_PULL_POLICY, json!("Always")),
            (STMGR_MEMORY_MB, json!("300")),
            (HEALTH_PORT, json!(9000)),
        ]))
        .unwrap();
        assert_eq!(
            (
                s.namespace.as_str(),
                s.service_account.as_deref(),
                s.stmgr_memory_mb,
                s.health_port
            ),
            ("streams", Some("egret"), 300, 9000)
        );
    }

    #[test]
    fn bad_values_name_their_key() {
        let err = KubernetesSettings::resolve(&ConfigMap::new()).unwrap_err();
        assert!(err.to_string().contains(IMAGE), "{err}");
        for (key, value) in [
            (NAMESPACE, json!("Bad_NS")),
            (IMAGE_PULL_POLICY, json!("Sometimes")),
            (HEALTH_PORT, json!(70000)),
            (STMGR_MEMORY_MB, json!(-1)),
            (SERVICE_ACCOUNT, json!(3)),
            (CREATE, json!("maybe")),
        ] {
            let err = KubernetesSettings::resolve(&config(&[(IMAGE, json!("i")), (key, value)]))
                .unwrap_err();
            assert!(err.to_string().contains(key), "{key}: {err}");
        }
    }
}
