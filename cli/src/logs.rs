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
//!
//! On a multi-host cluster the logs stay on their hosts: the topology master
//! relays the question to the stream manager of each container, which reads
//! its host's files (`stmgr-N` and the container's instances). The last
//! [`MAX_LINES`] lines of each selected log are printed; `-f` is refused.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, bail};
use egret_proto::v1::PackingPlan;
use egret_state_manager::TopologyDir;
use egret_state_manager::logs::MAX_LINES;

use crate::tail::LogTail;

const FOLLOW_POLL: Duration = Duration::from_millis(250);
/// How long the topology master of a cluster topology has to answer (it
/// waits for a stream manager's reply).
const LOG_TIMEOUT: Duration = Duration::from_secs(15);

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
    if let Some(state) = crate::hosts::cluster_of(cfg).await? {
        if follow {
            bail!(
                "egret logs -f follows the local cluster's files; on a multi-host cluster egret logs prints the last {MAX_LINES} lines of each log (leave out -f)"
            );
        }
        return run_cluster(&state, cfg, name, selector).await;
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

/// The logs `selector` names among `present` (the processes with a log):
/// every one, a process, or a component's instances in `packing`.
fn select_cluster(
    present: &[String],
    packing: Option<&PackingPlan>,
    selector: Option<&str>,
) -> anyhow::Result<Vec<String>> {
    let Some(selector) = selector else {
        return Ok(present.to_vec());
    };
    if present.iter().any(|p| p == selector) {
        return Ok(vec![selector.to_owned()]);
    }
    let instances: Vec<String> = packing
        .into_iter()
        .flat_map(|p| &p.containers)
        .flat_map(|c| &c.instances)
        .filter(|i| i.component == selector && present.contains(&i.instance_id))
        .map(|i| i.instance_id.clone())
        .collect();
    if instances.is_empty() {
        bail!(
            "no component, instance or process '{selector}' with a log in this topology (logs: {})",
            present.join(", ")
        );
    }
    Ok(instances)
}

async fn run_cluster(
    state: &egret_state_manager::Backend,
    cfg: &egret_config::Layered,
    name: &str,
    selector: Option<&str>,
) -> anyhow::Result<()> {
    use egret_proto::v1::LogQuery;
    use egret_proto::v1::client_request::Request;
    use egret_state_manager::StateManager as _;
    let listed = crate::hosts::ask(
        state,
        cfg,
        name,
        Request::Logs(LogQuery::default()),
        LOG_TIMEOUT,
    )
    .await?;
    let mut present: Vec<String> = listed
        .log_processes
        .into_iter()
        .map(|p| p.process)
        .collect();
    present.sort();
    let packing = state.get_packing_plan(name).await?;
    let selected = select_cluster(&present, packing.as_ref(), selector)?;
    let many = selected.len() > 1;
    for process in selected {
        let tail = crate::hosts::ask(
            state,
            cfg,
            name,
            Request::Logs(LogQuery {
                process: process.clone(),
                lines: u32::try_from(MAX_LINES).unwrap_or(u32::MAX),
            }),
            LOG_TIMEOUT,
        )
        .await?;
        if many {
            println!("==> {process} <==");
        }
        for line in tail.log_lines {
            println!("{line}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use egret_proto::v1::{ContainerPlan, InstancePlan};

    use super::*;

    /// One container: count-0, count-1 (of `count`) and split-0.
    fn packing() -> PackingPlan {
        let instance = |id: &str, component: &str| InstancePlan {
            instance_id: id.into(),
            component: component.into(),
            ..Default::default()
        };
        PackingPlan {
            containers: vec![ContainerPlan {
                index: 1,
                instances: vec![
                    instance("count-0", "count"),
                    instance("count-1", "count"),
                    instance("split-0", "split"),
                ],
            }],
            ..Default::default()
        }
    }

    #[test]
    fn cluster_selection_is_among_the_logs_the_hosts_have() {
        // count-1 is planned, but its host has no log of it (yet).
        let present: Vec<String> = ["count-0", "split-0", "stmgr-1", "stmgr-2"]
            .map(String::from)
            .to_vec();
        let packing = packing();
        let p = Some(&packing);
        assert_eq!(select_cluster(&present, p, None).unwrap(), present);
        assert_eq!(
            select_cluster(&present, p, Some("stmgr-2")).unwrap(),
            ["stmgr-2"]
        );
        assert_eq!(
            select_cluster(&present, p, Some("count")).unwrap(),
            ["count-0"]
        );
        let err = select_cluster(&present, p, Some("nope"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("'nope'") && err.contains("stmgr-2"), "{err}");
    }

    #[test]
    fn selects_by_instance_component_or_process() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = TopologyDir::new(tmp.path());
        let logs = tmp.path().join("logs");
        std::fs::create_dir_all(&logs).unwrap();
        for f in ["tmaster", "stmgr-1", "count-0", "count-1", "split-0"] {
            std::fs::write(logs.join(format!("{f}.log")), "x\n").unwrap();
        }
        dir.write_packing_plan(&packing()).unwrap();
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
