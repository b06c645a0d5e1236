//! `egret list`, `kill`, `activate`, `deactivate`, `rebalance`: talk to a
//! topology's master.
//!
//! Invariants of `rebalance`: the request is checked against the stored
//! topology first (a bad `-e`, an unknown component, more executors than
//! tasks are errors before anything changes); the master does the rest
//! (deactivate, wait, store the new topology and plan, stop serving). On the
//! local cluster the scheduler then restarts every process on the new plan
//! and `rebalance` returns once the new master has published it (the stored
//! physical plan holds the new packing); on a shared state manager the
//! cluster scheduler makes what runs the topology follow the new plan, and
//! when no master is live the new topology and plan are stored directly.
//!
//! Invariants of `kill`: it never signals a process itself. It asks the master
//! to kill (deactivate, wait, KILLED); the master then exits with
//! `EXIT_TOPOLOGY_KILLED` and the scheduler stops everything and retires the
//! directory, which `kill` waits for (at most [`RETIRE_WAIT`]). Only when the
//! master cannot be reached (or the scheduler does not finish in time) does it
//! fall back to [`egret_submitter::stop::stop_scheduler`]. Once it returns
//! `Ok`, no process of the topology is left and its directory is in `killed/`.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, bail};
use egret_config::{Environment, Layered};
use egret_proto::v1::{
    ClientRequest, ClientResponse, Empty, KillRequest, PackingPlan, RebalanceRequest, Topology,
    TopologyState, client_request,
};
use egret_scheduler::rebalance::Changes;
use egret_state_manager::{LocalCluster, TopologyDir};
use egret_submitter::stop;

/// How long `kill` waits, once the master has killed the topology, for the
/// scheduler to stop every process and retire the directory (the master's
/// grace, then at most 5 s per stop level).
pub const RETIRE_WAIT: Duration = Duration::from_secs(30);
/// How long `list` waits for each topology master.
const DESCRIBE_TIMEOUT: Duration = Duration::from_secs(3);
const CONTROL_TIMEOUT: Duration = Duration::from_secs(10);

pub fn load_config(file: Option<&Path>, options: &[String]) -> anyhow::Result<Layered> {
    Ok(egret_config::load(
        &Environment::from_process(),
        file,
        options,
    )?)
}

/// The local cluster named by `egret.local.dir`.
pub fn cluster(config: &Layered) -> anyhow::Result<LocalCluster> {
    let dir = config
        .get_str(egret_config::LOCAL_DIR)
        .filter(|d| !d.is_empty())
        .with_context(|| {
            format!(
                "config key {} must be a directory path",
                egret_config::LOCAL_DIR
            )
        })?;
    Ok(LocalCluster::new(dir))
}

async fn request(
    dir: &TopologyDir,
    request: client_request::Request,
    timeout: Duration,
) -> anyhow::Result<ClientResponse> {
    let response = egret_topology_master::client::request(
        dir.path(),
        ClientRequest {
            request: Some(request),
        },
        timeout,
    )
    .await?;
    Ok(response)
}

pub(crate) fn state_name(state: i32) -> &'static str {
    match TopologyState::try_from(state) {
        Ok(TopologyState::Running) => "ACTIVE",
        Ok(TopologyState::Deactivated) => "INACTIVE",
        Ok(TopologyState::Killed) => "KILLED",
        _ => "UNKNOWN",
    }
}

fn format_uptime(secs: i64) -> String {
    let secs = secs.max(0);
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    if d > 0 {
        format!("{d}d{h}h{m}m{s}s")
    } else if h > 0 {
        format!("{h}h{m}m{s}s")
    } else if m > 0 {
        format!("{m}m{s}s")
    } else {
        format!("{s}s")
    }
}

/// Renders rows as a left-aligned table with a header.
pub fn render_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut out = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i + 1 == cells.len() {
                out.push_str(cell);
            } else {
                out.push_str(&format!("{cell:<w$}  "));
            }
        }
        out.trim_end().to_owned()
    };
    let mut out = line(header.to_vec());
    for row in rows {
        out.push('\n');
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}

pub async fn list(config: &Layered) -> anyhow::Result<()> {
    if let Some(state) = crate::hosts::cluster_of(config).await? {
        return crate::hosts::list(&state, config).await;
    }
    let cluster = cluster(config)?;
    let names = cluster.topology_names()?;
    let mut rows = Vec::new();
    for name in names {
        let Ok(dir) = cluster.topology(&name) else {
            continue;
        };
        let id = dir.read_topology().map(|t| t.id).unwrap_or_default();
        let described = request(
            &dir,
            client_request::Request::Describe(Empty {}),
            DESCRIBE_TIMEOUT,
        )
        .await;
        match described {
            Ok(ClientResponse {
                ok: true,
                summary: Some(s),
                ..
            }) => rows.push(vec![
                name,
                if s.id.is_empty() { id } else { s.id },
                state_name(s.state).to_owned(),
                s.num_containers.to_string(),
                s.num_executors.to_string(),
                s.num_tasks.to_string(),
                format_uptime(s.uptime_secs),
            ]),
            other => {
                if let Err(e) = &other {
                    tracing::debug!(topology = %name, error = %e, "Topology master did not answer.");
                }
                // Fall back on the packing plan for the sizes, when written.
                let (c, e, t) = match dir.read_packing_plan() {
                    Ok(plan) => {
                        let e: usize = plan.containers.iter().map(|c| c.instances.len()).sum();
                        let t: usize = plan
                            .containers
                            .iter()
                            .flat_map(|c| &c.instances)
                            .map(|i| i.task_ids.len())
                            .sum();
                        (
                            plan.containers.len().to_string(),
                            e.to_string(),
                            t.to_string(),
                        )
                    }
                    Err(_) => ("-".into(), "-".into(), "-".into()),
                };
                rows.push(vec![name, id, "UNREACHABLE".into(), c, e, t, "-".into()]);
            }
        }
    }
    if rows.is_empty() {
        println!("No topologies running.");
        return Ok(());
    }
    println!(
        "{}",
        render_table(
            &[
                "NAME",
                "ID",
                "STATUS",
                "CONTAINERS",
                "EXECUTORS",
                "TASKS",
                "UPTIME"
            ],
            &rows
        )
    );
    Ok(())
}

pub async fn set_active(config: &Layered, name: &str, active: bool) -> anyhow::Result<()> {
    if let Some(state) = crate::hosts::cluster_of(config).await? {
        return crate::hosts::set_active(&state, config, name, active).await;
    }
    let cluster = cluster(config)?;
    let dir = cluster.topology(name)?;
    let req = if active {
        client_request::Request::Activate(Empty {})
    } else {
        client_request::Request::Deactivate(Empty {})
    };
    let response = request(&dir, req, CONTROL_TIMEOUT)
        .await
        .with_context(|| format!("cannot reach the topology master of '{name}'"))?;
    if !response.ok {
        bail!("topology '{name}' refused: {}", response.error);
    }
    Ok(())
}

/// `egret debug NAME [COMPONENT] --enable|--disable [-s PCT]`: Storm's
/// debug (event logging) through the topology's master.
pub async fn debug(
    config: &Layered,
    name: &str,
    component: &str,
    enable: bool,
    sampling_pct: f64,
) -> anyhow::Result<()> {
    let req = client_request::Request::Debug(egret_proto::v1::DebugRequest {
        component: component.to_owned(),
        enable,
        sampling_pct: if enable { sampling_pct } else { 0.0 },
    });
    if let Some(state) = crate::hosts::cluster_of(config).await? {
        crate::hosts::ask(&state, config, name, req, CONTROL_TIMEOUT).await?;
        return Ok(());
    }
    let cluster = cluster(config)?;
    let dir = cluster.topology(name)?;
    let response = request(&dir, req, CONTROL_TIMEOUT)
        .await
        .with_context(|| format!("cannot reach the topology master of '{name}'"))?;
    if !response.ok {
        bail!("topology '{name}' refused: {}", response.error);
    }
    Ok(())
}

/// How long `rebalance`, once the master stored the new plan, waits for the
/// restarted topology to publish it (every container up again).
pub const REBALANCE_WAIT: Duration = Duration::from_secs(90);

/// `egret rebalance NAME [-w SECS] [-n WORKERS] [-e COMPONENT=N]...`; `wait`
/// `None` is Storm's default, the topology's message timeout. Returns what
/// to tell the user.
pub async fn rebalance(
    config: &Layered,
    name: &str,
    wait: Option<u32>,
    workers: Option<i64>,
    executors: &[String],
) -> anyhow::Result<String> {
    let changes = Changes::parse(workers, executors)?;
    let asked = RebalanceRequest {
        wait_secs: wait.unwrap_or(0),
        wait_message_timeout: wait.is_none(),
        workers: match changes.workers {
            Some(n) => i32::try_from(n).context("-n is too large")?,
            None => 0,
        },
        executors: changes
            .executors
            .iter()
            .map(|(c, n)| (c.clone(), *n))
            .collect(),
    };
    if let Some(state) = crate::hosts::cluster_of(config).await? {
        return rebalance_cluster(&state, config, name, &changes, asked).await;
    }
    let cluster = cluster(config)?;
    let dir = cluster.topology(name)?;
    let topology = dir.read_topology()?;
    let (_, planned) = egret_scheduler::rebalance::rebalance(&topology, &changes)?;
    let timeout = request_timeout(&topology, wait)?;
    let response = request(&dir, client_request::Request::Rebalance(asked), timeout)
        .await
        .with_context(|| format!("cannot reach the topology master of '{name}'"))?;
    if !response.ok {
        bail!(
            "topology '{name}' refused the rebalance: {}",
            response.error
        );
    }
    let (state, _) = egret_state_manager::Backend::for_topology_dir(&dir)?;
    let plan = stored_plan(&state, name).await?.unwrap_or(planned);
    wait_published(&state, name, &plan, REBALANCE_WAIT).await?;
    Ok(format!(
        "Rebalanced topology '{name}': {}; running on the new plan.",
        plan_sizes(&plan)
    ))
}

/// The master's answer comes after the wait: give it that and more.
fn request_timeout(topology: &Topology, wait: Option<u32>) -> anyhow::Result<Duration> {
    let wait = match wait {
        Some(w) => w,
        None => egret_config::settings::settings_of(topology)?.message_timeout_secs,
    };
    Ok(Duration::from_secs(u64::from(wait)) + Duration::from_secs(30))
}

fn plan_sizes(plan: &PackingPlan) -> String {
    let executors: usize = plan.containers.iter().map(|c| c.instances.len()).sum();
    let tasks: usize = plan
        .containers
        .iter()
        .flat_map(|c| &c.instances)
        .map(|i| i.task_ids.len())
        .sum();
    format!(
        "{} containers, {executors} executors, {tasks} tasks",
        plan.containers.len()
    )
}

async fn stored_plan(
    state: &egret_state_manager::Backend,
    name: &str,
) -> anyhow::Result<Option<PackingPlan>> {
    use egret_state_manager::StateManager as _;
    Ok(state.get_packing_plan(name).await?)
}

/// Waits until the stored physical plan carries `plan`: the restarted master
/// had every container register and published it.
async fn wait_published(
    state: &egret_state_manager::Backend,
    name: &str,
    plan: &PackingPlan,
    wait: Duration,
) -> anyhow::Result<()> {
    use egret_state_manager::StateManager as _;
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        // A read racing the master's write is retried.
        if let Ok(Some(physical)) = state.get_physical_plan(name).await
            && physical.packing.as_ref() == Some(plan)
            && !physical.stream_managers.is_empty()
        {
            return Ok(());
        }
        if tokio::time::Instant::now() > deadline {
            bail!(
                "topology '{name}' stored its new plan but did not run on it within {} s \
                 (see its logs: `egret` keeps them in the topology directory's logs/)",
                wait.as_secs()
            );
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `rebalance` on a shared state manager (see the module doc).
async fn rebalance_cluster(
    state: &egret_state_manager::Backend,
    config: &Layered,
    name: &str,
    changes: &Changes,
    request: RebalanceRequest,
) -> anyhow::Result<String> {
    use egret_state_manager::StateManager as _;
    let topology = state
        .get_topology(name)
        .await?
        .with_context(|| format!("no topology named '{name}' in the state manager"))?;
    let (rebalanced, planned) = egret_scheduler::rebalance::rebalance(&topology, changes)?;
    let resolved = egret_config::state::StateManagerConfig::resolve(&config.merged)?;
    let scheduler_config = crate::kube::scheduler_config(config, Some(&topology))?;
    let scheduler = crate::kube::cluster_scheduler(&scheduler_config, &resolved).await?;
    let wait = (!request.wait_message_timeout).then_some(request.wait_secs);
    let timeout = request_timeout(&topology, wait)?;
    let mut told = String::new();
    if state.master_location(name).await?.is_some() {
        crate::hosts::ask(
            state,
            config,
            name,
            client_request::Request::Rebalance(request),
            timeout,
        )
        .await?;
    } else {
        // Nothing runs to deactivate: the plan is stored for what starts next.
        tracing::warn!(
            topology = name,
            "No live topology master: storing the rebalanced topology and plan directly."
        );
        state.put_topology(&rebalanced).await?;
        state.put_packing_plan(name, &planned).await?;
        told.push_str("No topology master was live: the new plan is stored. ");
    }
    let plan = stored_plan(state, name).await?.unwrap_or(planned);
    let settings = *egret_config::settings::settings_of(&topology)?;
    let launch = egret_scheduler::cluster::ClusterLaunch {
        name: name.to_owned(),
        id: topology.id.clone(),
        plan: plan.clone(),
        settings,
        credentials_dir: crate::hosts::credentials_root(config).join(name),
    };
    let applied = scheduler.rebalance(&launch).await.map_err(|e| {
        anyhow::anyhow!(
            "topology '{name}' has its new plan stored but its scheduler could not apply it: {e}"
        )
    })?;
    Ok(format!(
        "Rebalanced topology '{name}': {}. {told}{applied}",
        plan_sizes(&plan)
    ))
}

/// `egret kill NAME -w SECS`.
pub async fn kill(config: &Layered, name: &str, wait_secs: u32) -> anyhow::Result<()> {
    if let Some(state) = crate::hosts::cluster_of(config).await? {
        use egret_state_manager::StateManager as _;
        let resolved = egret_config::state::StateManagerConfig::resolve(&config.merged)?;
        let topology = state.get_topology(name).await?;
        let stored = topology.is_some();
        // Before the kill: a scheduler that cannot be reached fails it
        // while the topology still runs.
        let scheduler_config = crate::kube::scheduler_config(config, topology.as_ref())?;
        let scheduler = crate::kube::cluster_scheduler(&scheduler_config, &resolved).await?;
        let live_master = state.master_location(name).await?.is_some();
        if stored && (live_master || !scheduler.owns_processes()) {
            crate::hosts::kill(&state, config, name, wait_secs).await?;
        } else if stored {
            tracing::warn!(
                topology = name,
                "No live topology master: deleting what runs it, then removing it from the state manager."
            );
        }
        let removed = scheduler.remove(name).await.map_err(|e| {
            anyhow::anyhow!(
                "topology '{name}' was killed but its scheduler could not remove it: {e}"
            )
        })?;
        if stored && !live_master && scheduler.owns_processes() {
            crate::hosts::remove_topology(&state, name).await;
        }
        if !stored && removed.is_empty() {
            anyhow::bail!("no topology named '{name}' in the state manager");
        }
        if !removed.is_empty() {
            println!("Deleted {}.", removed.join(", "));
        }
        return Ok(());
    }
    let cluster = cluster(config)?;
    let dir = cluster.topology(name)?;
    kill_topology(&cluster, &dir, name, wait_secs).await
}

/// Kills the topology in `dir` as Storm does: its master deactivates it,
/// waits `wait_secs` and kills it, then (master and scheduler, see the module
/// doc) every process stops and the directory is retired; this waits for that.
pub async fn kill_topology(
    cluster: &LocalCluster,
    dir: &TopologyDir,
    name: &str,
    wait_secs: u32,
) -> anyhow::Result<()> {
    let id = dir.read_topology()?.id;
    let timeout = Duration::from_secs(u64::from(wait_secs) + 10);
    let retire_wait = match request(
        dir,
        client_request::Request::Kill(KillRequest { wait_secs }),
        timeout,
    )
    .await
    {
        Ok(r) if r.ok => {
            tracing::debug!(topology = %name, "Topology master killed the topology; waiting for its scheduler to retire it.");
            Some(RETIRE_WAIT)
        }
        Ok(r) => {
            // Typically a kill already under way: let it finish.
            tracing::warn!(topology = %name, error = %r.error, "Topology master refused the kill; waiting for the topology to end.");
            Some(RETIRE_WAIT + Duration::from_secs(u64::from(wait_secs)))
        }
        Err(e) => {
            tracing::warn!(topology = %name, error = %e, "Topology master unreachable; stopping the scheduler directly.");
            None
        }
    };
    if let Some(wait) = retire_wait {
        if stop::wait_retired(dir, &id, wait).await {
            return Ok(());
        }
        tracing::warn!(topology = %name, wait_secs = wait.as_secs(), "The topology was not retired in time; stopping the scheduler directly.");
    }
    stop::stop_scheduler(cluster, dir, &id)
        .await
        .with_context(|| format!("cannot stop topology '{name}'"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_columns() {
        let t = render_table(
            &["NAME", "ID"],
            &[
                vec!["wordcount".into(), "wc-1-2".into()],
                vec!["x".into(), "x-2-3".into()],
            ],
        );
        assert_eq!(t, "NAME       ID\nwordcount  wc-1-2\nx          x-2-3");
    }

    #[test]
    fn uptime_is_human() {
        assert_eq!(format_uptime(5), "5s");
        assert_eq!(format_uptime(65), "1m5s");
        assert_eq!(format_uptime(3661), "1h1m1s");
        assert_eq!(format_uptime(90061), "1d1h1m1s");
        assert_eq!(format_uptime(-3), "0s");
    }

    /// Bad requests are refused from the stored topology, before any master
    /// is asked (none runs here) and with nothing changed.
    #[tokio::test(flavor = "current_thread")]
    async fn a_bad_rebalance_is_refused_with_its_reason_before_the_master_is_asked() {
        let tmp = tempfile::tempdir().unwrap();
        let cluster = LocalCluster::new(tmp.path().join("local"));
        let dir = cluster.create_topology("wc").unwrap();
        let bolt = |id: &str, parallelism, num_tasks| egret_proto::v1::Component {
            id: id.into(),
            kind: egret_proto::v1::ComponentKind::Bolt as i32,
            parallelism,
            num_tasks,
            ..Default::default()
        };
        let topology = Topology {
            name: "wc".into(),
            id: "wc-1-1".into(),
            components: vec![bolt("count", 2, 4), bolt("split", 2, 2)],
            ..Default::default()
        };
        dir.write_topology(&topology).unwrap();
        let config = load_config(
            None,
            &[format!(
                "{}={}",
                egret_config::LOCAL_DIR,
                tmp.path().join("local").display()
            )],
        )
        .unwrap();
        for (workers, executors, needle) in [
            (None, vec!["count"], "COMPONENT=PARALLELISM"),
            (None, vec!["count=x"], "count=x"),
            (None, vec!["count=0"], "at least 1"),
            (None, vec!["counts=2"], "no component 'counts'"),
            (None, vec!["count=5"], "has 4 tasks"),
            (None, vec!["split=3"], "has 2 tasks"),
            (Some(0), vec![], "-n must be at least 1"),
        ] {
            let executors: Vec<String> = executors.into_iter().map(str::to_owned).collect();
            let err = rebalance(&config, "wc", Some(0), workers, &executors)
                .await
                .unwrap_err();
            let text = format!("{err:#}");
            assert!(text.contains(needle), "{executors:?}: {text}");
        }
        assert_eq!(dir.read_topology().unwrap(), topology, "nothing changed");
        // A valid request needs the master: without one it says so.
        let err = rebalance(&config, "wc", Some(0), None, &["count=4".to_owned()])
            .await
            .unwrap_err();
        assert!(
            format!("{err:#}").contains("cannot reach the topology master"),
            "{err:#}"
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn killing_a_topology_whose_scheduler_is_gone_retires_it() {
        let tmp = tempfile::tempdir().unwrap();
        let cluster = LocalCluster::new(tmp.path());
        let dir = cluster.create_topology("wc").unwrap();
        dir.write_topology(&egret_proto::v1::Topology {
            name: "wc".into(),
            id: "wc-1-1".into(),
            ..Default::default()
        })
        .unwrap();
        // A scheduler that is already gone (killed without retiring the dir).
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        gone.wait().unwrap();
        dir.write_scheduler_pid(gone.id()).unwrap();
        kill_topology(&cluster, &dir, "wc", 0).await.unwrap();
        assert!(tmp.path().join("killed/wc-1-1/topology.pb").is_file());
        assert!(cluster.topology("wc").is_err());
    }
}
