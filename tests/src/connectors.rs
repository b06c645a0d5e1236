//! The connector topologies (`examples-connectors/`, built by `./egret-dev
//! build`): our own topologies with storm-kafka-client, storm-redis and
//! storm-jdbc 2.8.3 shaded into the jar, submitted with `egret jar`.

use std::ffi::OsStr;
use std::path::PathBuf;

use crate::{
    COMMAND_TIMEOUT, Cluster, HarnessError, Output, Result, run_with_timeout, workspace_root,
};

/// Package of the connector topologies.
pub const PACKAGE: &str = "dev.egret.connectors";

fn built(what: &'static str, var: &str, default: PathBuf) -> Result<PathBuf> {
    let path = std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or(default);
    if path.is_file() {
        Ok(path)
    } else {
        Err(HarnessError::MissingArtifact {
            what,
            path,
            hint: "run ./egret-dev build first",
        })
    }
}

/// `EGRET_CONNECTORS_JAR`, else `examples-connectors/target/egret-examples-connectors.jar`.
pub fn connectors_jar() -> Result<PathBuf> {
    built(
        "connector topologies jar",
        "EGRET_CONNECTORS_JAR",
        workspace_root().join("examples-connectors/target/egret-examples-connectors.jar"),
    )
}

/// `egret jar <connectors jar> dev.egret.connectors.<class> <name> <args..>`
/// with `env` added to the client's environment (how a password reaches the
/// topology's `main`: never on a command line).
pub fn jar(
    cluster: &Cluster,
    class: &str,
    name: &str,
    args: &[String],
    env: &[(&str, &str)],
) -> Result<Output> {
    let jar = connectors_jar()?;
    let main = format!("{PACKAGE}.{class}");
    let mut cmd = cluster.egret([
        OsStr::new("jar"),
        jar.as_os_str(),
        OsStr::new(&main),
        OsStr::new(name),
    ]);
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    run_with_timeout(&mut cmd, COMMAND_TIMEOUT)
}

/// [`jar`], which must succeed.
pub fn submit(
    cluster: &Cluster,
    class: &str,
    name: &str,
    args: &[String],
    env: &[(&str, &str)],
) -> Result<Output> {
    let out = jar(cluster, class, name, args, env)?;
    if out.success() {
        Ok(out)
    } else {
        Err(HarnessError::Failed(format!(
            "egret jar {class} {name} failed: {}",
            out.describe()
        )))
    }
}

/// How many of `0..total` have `seq % keys == k`, for each `k`: the exact count
/// of key `k<k>` / word `w<k>` the sources emit.
pub fn expected_counts(total: u64, keys: u64) -> Vec<u64> {
    (0..keys)
        .map(|k| total / keys + u64::from(k < total % keys))
        .collect()
}
