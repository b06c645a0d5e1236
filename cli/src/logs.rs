//! `egret logs NAME [COMPONENT|INSTANCE] [-f]`: a topology's log files on the
//! local cluster (`DIR/logs/*.log`: the topology master's, each container's
//! and stream manager's, each instance JVM's), printed whole; `-f` follows
//! them as `tail -f` does, picking up files that appear (a restarted
//! instance), until interrupted.
//!
//! The selection: nothing, every log; an instance id (`count-1`), its JVM's
//! log; a component id, the logs of its instances in the packing plan; a
//! process (`tmaster`, `stmgr-1`, `container-1`), its log. Anything else is
//! an error listing what exists.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, bail};
use egret_state_manager::TopologyDir;

use crate::tail::LogTail;

const FOLLOW_POLL: Duration = Duration::from_millis(250);

/// The log files `selector` names in `dir`.
pub fn select(dir: &TopologyDir, selector: Option<&str>) -> anyhow::Result<Vec<PathBuf>> {
    let logs = dir.path().join("logs");
    let mut all: Vec<PathBuf> = std::fs::read_dir(&logs)
        .with_context(|| format!("cannot read {}", logs.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    all.sort();
    let Some(selector) = selector else {
        return Ok(all);
    };
    let named = dir.log_file(selector);
    if all.contains(&named) {
        return Ok(vec![named]);
    }
    let plan = dir.read_packing_plan()?;
    let instances: Vec<PathBuf> = plan
        .containers
        .iter()
        .flat_map(|c| c.instances.iter())
        .filter(|i| i.component == selector)
        .map(|i| dir.log_file(&i.instance_id))
        .collect();
    if instances.is_empty() {
        let names: Vec<String> = all
            .iter()
            .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .collect();
        bail!(
            "no component, instance or process '{selector}' in this topology (logs: {})",
            names.join(", ")
        );
    }
    Ok(instances)
}

pub async fn run(
    cfg: &egret_config::Layered,
    name: &str,
    selector: Option<&str>,
    follow: bool,
) -> anyhow::Result<()> {
    if crate::hosts::cluster_of(cfg).await?.is_some() {
        bail!(
            "egret logs reads the local cluster's log files; on a multi-host cluster each host keeps its processes' logs under its --work-dir"
        );
    }
    let dir = crate::manage::cluster(cfg)?.topology(name)?;
    let files = select(&dir, selector)?;
    let mut tail = LogTail::new();
    for file in files {
        tail.add_file(file);
    }
    let mut out = std::io::stdout().lock();
    if !follow {
        return tail.finish(&mut out).context("cannot print the logs");
    }
    loop {
        tail.poll(&mut out).context("cannot print the logs")?;
        tokio::time::sleep(FOLLOW_POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use egret_proto::v1::{ContainerPlan, InstancePlan, PackingPlan};

    use super::*;

    #[test]
    fn selects_by_instance_component_or_process() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = TopologyDir::new(tmp.path());
        let logs = tmp.path().join("logs");
        std::fs::create_dir_all(&logs).unwrap();
        for f in ["tmaster", "stmgr-1", "count-0", "count-1", "split-0"] {
            std::fs::write(logs.join(format!("{f}.log")), "x\n").unwrap();
        }
        let instance = |id: &str, component: &str| InstancePlan {
            instance_id: id.into(),
            component: component.into(),
            ..Default::default()
        };
        dir.write_packing_plan(&PackingPlan {
            containers: vec![ContainerPlan {
                index: 1,
                instances: vec![
                    instance("count-0", "count"),
                    instance("count-1", "count"),
                    instance("split-0", "split"),
                ],
            }],
            ..Default::default()
        })
        .unwrap();
        let stems = |files: Vec<PathBuf>| -> Vec<String> {
            files
                .iter()
                .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(stems(select(&dir, None).unwrap()).len(), 5);
        assert_eq!(stems(select(&dir, Some("count-1")).unwrap()), ["count-1"]);
        assert_eq!(
            stems(select(&dir, Some("count")).unwrap()),
            ["count-0", "count-1"]
        );
        assert_eq!(stems(select(&dir, Some("tmaster")).unwrap()), ["tmaster"]);
        let err = select(&dir, Some("nope")).unwrap_err().to_string();
        assert!(err.contains("'nope'") && err.contains("split-0"), "{err}");
    }
}
