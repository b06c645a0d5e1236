//! Scheduling a topology: packing ([`packing`], used by the submitter), the [`Scheduler`]
//! trait (start, restart and stop a topology's containers) and its local
//! implementation, which runs every container as a child process of the
//! `egret scheduler` role ([`run`]).
//!
//! Invariants of the `egret scheduler` role:
//! - it never packs: it runs the `packing.pb` the submitter wrote (a missing,
//!   unreadable or foreign one is an error before anything starts), and writes
//!   `scheduler.pid` before it starts any child;
//! - it runs the current `packing.pb`: when a rebalance replaced it (the
//!   topology master stores the new plan, then stops serving), it stops the
//!   master and every container within [`PLAN_CHECK`] and starts them all
//!   again on the new plan (containers the plan no longer has are not
//!   started again, their cgroups are swept);
//! - container 0 is the topology master (`egret tmaster`), containers 1..=N are
//!   container supervisors (`egret container --index N`), all children of this
//!   process, started from the same executable, supervised by [`egret_supervisor::Supervisor`];
//! - it counts the restarts of each child (`egret.restarts`, component
//!   `tmaster` or `container-N`) in `DIR/metrics/scheduler.json`;
//! - it is the one owner of the topology's processes and directory: when the
//!   topology master exits with [`EXIT_TOPOLOGY_KILLED`] (a kill completed;
//!   the master is not restarted), or on SIGTERM or SIGINT (the forced stop of
//!   `egret_submitter::stop`), it stops every child, reaps them, writes the
//!   last metrics snapshot, moves the topology dir to `killed/` and returns
//!   `Ok` (the process exits 0). Any other exit of the master restarts it.

pub mod cluster;
pub mod packing;
pub mod rebalance;

use std::future::Future;
use std::path::{Path, PathBuf};

pub use egret_proto::EXIT_TOPOLOGY_KILLED;
use egret_proto::v1::PackingPlan;
use egret_state_manager::{LocalCluster, StateError, TopologyDir};

use egret_supervisor::{self as process, ChildSpec, RestartPolicy, Supervisor};

#[derive(Debug, thiserror::Error)]
pub enum SchedulerError {
    #[error(transparent)]
    State(#[from] StateError),
    #[error("no usable packing plan (packing.pb is written at submission): {0}")]
    PackingPlan(#[source] StateError),
    #[error("packing.pb holds the plan of topology {plan}, not of {topology}")]
    PlanOfAnotherTopology { plan: String, topology: String },
    #[error("no container {0} in the packing plan")]
    NoSuchContainer(i32),
    #[error("topology dir {0} is not under <egret.local.dir>/topologies/")]
    NotInCluster(PathBuf),
    #[error("cannot wait for signals: {0}")]
    Signals(#[source] std::io::Error),
}

/// Starts, restarts and stops the containers of one topology. The local
/// implementation runs processes; a Kubernetes one would manage a StatefulSet.
pub trait Scheduler {
    /// Starts the topology master (container 0) and every container of the plan.
    fn start(
        &mut self,
        plan: &PackingPlan,
    ) -> impl Future<Output = Result<(), SchedulerError>> + Send;
    /// Stops and starts one container again (0 is the topology master).
    fn restart(
        &mut self,
        container: i32,
    ) -> impl Future<Output = Result<(), SchedulerError>> + Send;
    /// Stops every container and the topology master.
    fn stop(&mut self) -> impl Future<Output = Result<(), SchedulerError>> + Send;
}

/// The scheduler that runs every container as a local child process.
pub struct LocalProcessScheduler {
    executable: PathBuf,
    dir: TopologyDir,
    policy: RestartPolicy,
    supervisor: Option<Supervisor>,
    metrics_writer: Option<tokio::task::JoinHandle<()>>,
}

/// The scheduler's metrics snapshot: `DIR/metrics/scheduler.json`.
const METRICS_PROCESS: &str = "scheduler";

impl LocalProcessScheduler {
    pub fn new(executable: PathBuf, dir: TopologyDir, policy: RestartPolicy) -> Self {
        Self {
            executable,
            dir,
            policy,
            supervisor: None,
            metrics_writer: None,
        }
    }

    /// The child of container `index`: `egret tmaster` for 0, else `egret container`.
    pub fn container_spec(&self, index: i32) -> ChildSpec {
        container_spec(&self.executable, &self.dir, index)
    }

    /// Resolves when the topology master has exited with
    /// [`EXIT_TOPOLOGY_KILLED`]; pending forever before [`Scheduler::start`].
    pub async fn topology_killed(&mut self) {
        let Some(supervisor) = self.supervisor.as_mut() else {
            return std::future::pending().await;
        };
        loop {
            let finished = supervisor.finished().await;
            if finished.name == child_name(0) {
                return;
            }
        }
    }
}

/// The supervisor's name of container `index`'s child (also its log name).
fn child_name(index: i32) -> String {
    if index == 0 {
        "tmaster".to_owned()
    } else {
        format!("container-{index}")
    }
}

/// The child process of container `index` of the topology in `dir`.
pub fn container_spec(executable: &Path, dir: &TopologyDir, index: i32) -> ChildSpec {
    let dir_arg = dir.path().as_os_str().to_owned();
    let name = child_name(index);
    let args = if index == 0 {
        vec!["tmaster".into(), "--topology-dir".into(), dir_arg]
    } else {
        vec![
            "container".into(),
            "--topology-dir".into(),
            dir_arg,
            "--index".into(),
            index.to_string().into(),
        ]
    };
    ChildSpec {
        log_file: dir.log_file(&name),
        name,
        program: executable.to_owned(),
        args,
        env: Vec::new(),
        cwd: Some(dir.path().to_owned()),
        // The master exits with it once its topology was killed.
        final_exit_code: (index == 0).then_some(i32::from(EXIT_TOPOLOGY_KILLED)),
        cgroup_procs: Vec::new(),
        batch_scheduling: false,
    }
}

impl Scheduler for LocalProcessScheduler {
    async fn start(&mut self, plan: &PackingPlan) -> Result<(), SchedulerError> {
        let mut supervisor = Supervisor::new(self.policy);
        supervisor.spawn(self.container_spec(0));
        for container in &plan.containers {
            supervisor.spawn(self.container_spec(container.index));
        }
        self.metrics_writer = Some(process::spawn_metrics_writer(
            supervisor.metrics().clone(),
            self.dir.path(),
            METRICS_PROCESS,
        ));
        self.supervisor = Some(supervisor);
        Ok(())
    }

    async fn restart(&mut self, container: i32) -> Result<(), SchedulerError> {
        let restarted = self
            .supervisor
            .as_ref()
            .is_some_and(|s| s.restart(&child_name(container)));
        if restarted {
            Ok(())
        } else {
            Err(SchedulerError::NoSuchContainer(container))
        }
    }

    async fn stop(&mut self) -> Result<(), SchedulerError> {
        if let Some(supervisor) = self.supervisor.take() {
            let metrics = supervisor.metrics().clone();
            for summary in supervisor.stop().await {
                tracing::info!(child = %summary.name, restarts = summary.restarts, "Container stopped.");
            }
            if let Some(writer) = self.metrics_writer.take() {
                writer.abort();
            }
            process::write_metrics_now(&metrics, self.dir.path(), METRICS_PROCESS);
        }
        Ok(())
    }
}

/// Options of the `egret scheduler` role.
#[derive(Debug, Clone)]
pub struct SchedulerOptions {
    pub topology_dir: PathBuf,
    /// The `egret` executable the children run (`std::env::current_exe()`).
    pub executable: PathBuf,
}

/// The cluster a topology dir belongs to: `<root>/topologies/<name>`.
pub fn cluster_of(dir: &Path) -> Result<LocalCluster, SchedulerError> {
    let parent = dir
        .parent()
        .filter(|p| p.file_name().is_some_and(|n| n == "topologies"))
        .and_then(Path::parent)
        .ok_or_else(|| SchedulerError::NotInCluster(dir.to_owned()))?;
    Ok(LocalCluster::new(parent))
}

/// The packing plan the submitter wrote for topology `id`.
pub fn read_plan(dir: &TopologyDir, id: &str) -> Result<PackingPlan, SchedulerError> {
    let plan = dir
        .read_packing_plan()
        .map_err(SchedulerError::PackingPlan)?;
    if plan.topology_id != id {
        return Err(SchedulerError::PlanOfAnotherTopology {
            plan: plan.topology_id,
            topology: id.to_owned(),
        });
    }
    Ok(plan)
}

/// How often the scheduler looks for a new `packing.pb` (a rebalance's).
const PLAN_CHECK: std::time::Duration = std::time::Duration::from_secs(1);

/// The plan in `packing.pb` when it is a valid plan of the topology that
/// differs from `running` (a rebalance stored it); `None` otherwise (an
/// unreadable file is logged and the running plan kept).
fn changed_plan(dir: &TopologyDir, id: &str, running: &PackingPlan) -> Option<PackingPlan> {
    match read_plan(dir, id) {
        Ok(plan) if plan != *running && !plan.containers.is_empty() => Some(plan),
        Ok(_) => None,
        Err(err) => {
            tracing::warn!(error = %err, "Cannot read packing.pb; the topology keeps running its plan.");
            None
        }
    }
}

/// How long the sweep waits for a killed container's instance JVMs to exit
/// (their parent-death signal is delivered asynchronously) before it gives up.
const SWEEP_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// Removes the cgroups of containers that could not remove their own (a
/// container killed with SIGKILL, by a fault or at the end of the stop's
/// grace, never runs its cleanup). Containers that cleaned up leave nothing
/// to do; a host without cgroup v1 has no groups of ours.
async fn sweep_cgroups(topology_id: &str, plan: &PackingPlan) {
    let Ok(cgroups) = egret_isolation::Cgroups::detect() else {
        return;
    };
    for container in &plan.containers {
        let parent = egret_isolation::container_group(topology_id, container.index);
        let deadline = tokio::time::Instant::now() + SWEEP_PATIENCE;
        loop {
            match cgroups.remove_tree(&parent) {
                Ok(0) => break,
                Ok(removed) => {
                    tracing::info!(cgroup = %parent, removed, "Removed the cgroups a killed container left behind.");
                    break;
                }
                Err(err) if tokio::time::Instant::now() >= deadline => {
                    tracing::warn!(cgroup = %parent, error = %err, "Removing a container's leftover cgroups failed.");
                    break;
                }
                Err(_) => tokio::time::sleep(std::time::Duration::from_millis(200)).await,
            }
        }
    }
}

/// The `egret scheduler` role: reads the packing plan, starts every container, keeps them
/// running until the topology master exits with [`EXIT_TOPOLOGY_KILLED`] or
/// SIGTERM/SIGINT, then stops them and retires the topology dir.
///
/// Run it on a current-thread runtime (see [`egret_supervisor`]).
pub async fn run(options: SchedulerOptions) -> Result<(), SchedulerError> {
    let dir = TopologyDir::new(&options.topology_dir);
    let cluster = cluster_of(dir.path())?;
    // Listen before starting anything, so a kill that races the start is not lost.
    let signal = process::termination_signal().map_err(SchedulerError::Signals)?;
    let topology = dir.read_topology()?;
    let plan = read_plan(&dir, &topology.id)?;
    dir.write_scheduler_pid(std::process::id())?;
    let executors: usize = plan.containers.iter().map(|c| c.instances.len()).sum();
    tracing::info!(topology = %topology.id, containers = plan.containers.len(), executors, "Starting the topology master and containers of the packing plan.");

    let mut scheduler =
        LocalProcessScheduler::new(options.executable, dir.clone(), RestartPolicy::default());
    scheduler.start(&plan).await?;
    let mut plan = plan;
    let mut signal = std::pin::pin!(signal);
    let mut replan = tokio::time::interval(PLAN_CHECK);
    replan.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            which = &mut signal => {
                tracing::info!(topology = %topology.id, signal = which, "Stopping the topology.");
                break;
            }
            () = scheduler.topology_killed() => {
                tracing::info!(topology = %topology.id, "The topology master reports the topology killed; stopping the topology.");
                break;
            }
            _ = replan.tick() => {
                let Some(next) = changed_plan(&dir, &topology.id, &plan) else {
                    continue;
                };
                let executors: usize = next.containers.iter().map(|c| c.instances.len()).sum();
                tracing::info!(topology = %topology.id, containers = next.containers.len(), executors, "The packing plan changed (a rebalance): restarting the topology master and every container on it.");
                scheduler.stop().await?;
                sweep_cgroups(&topology.id, &plan).await;
                scheduler.start(&next).await?;
                plan = next;
            }
        }
    }
    scheduler.stop().await?;
    sweep_cgroups(&topology.id, &plan).await;
    let retired = cluster.retire(&dir, &topology.id)?;
    tracing::info!(topology = %topology.id, dir = %retired.display(), "Topology stopped; its directory was retired.");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_commands_use_the_same_executable() {
        let dir = TopologyDir::new("/x/local/topologies/wc");
        let tm = container_spec(Path::new("/bin/egret"), &dir, 0);
        assert_eq!(
            tm.display_command(),
            "/bin/egret tmaster --topology-dir /x/local/topologies/wc"
        );
        assert_eq!(
            tm.log_file,
            PathBuf::from("/x/local/topologies/wc/logs/tmaster.log")
        );
        let c = container_spec(Path::new("/bin/egret"), &dir, 2);
        assert_eq!(
            c.display_command(),
            "/bin/egret container --topology-dir /x/local/topologies/wc --index 2"
        );
        assert_eq!(c.name, "container-2");
        assert_eq!(
            c.log_file,
            PathBuf::from("/x/local/topologies/wc/logs/container-2.log")
        );
    }

    #[test]
    fn the_plan_is_read_not_made_and_must_be_the_topologys() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = LocalCluster::new(tmp.path()).create_topology("wc").unwrap();
        let err = read_plan(&dir, "wc-1-1").unwrap_err();
        assert!(matches!(err, SchedulerError::PackingPlan(_)), "{err:?}");
        assert!(err.to_string().contains("packing.pb"), "{err}");
        dir.write_packing_plan(&PackingPlan {
            topology_id: "wc-0-0".into(),
            containers: Vec::new(),
        })
        .unwrap();
        let err = read_plan(&dir, "wc-1-1").unwrap_err();
        assert!(err.to_string().contains("wc-0-0"), "{err}");
        let plan = PackingPlan {
            topology_id: "wc-1-1".into(),
            containers: Vec::new(),
        };
        dir.write_packing_plan(&plan).unwrap();
        assert_eq!(read_plan(&dir, "wc-1-1").unwrap(), plan);
    }

    /// The contract of kill ownership: a master exiting EXIT_TOPOLOGY_KILLED is
    /// not restarted; the scheduler stops (and reaps) every container and
    /// retires the topology dir, and returns Ok.
    #[tokio::test(flavor = "current_thread")]
    async fn a_master_exiting_killed_stops_every_container_and_retires_the_dir() {
        use egret_proto::v1::{ContainerPlan, Topology};
        use std::os::unix::fs::PermissionsExt;
        use std::time::{Duration, Instant};

        let tmp = tempfile::tempdir().unwrap();
        let cluster = LocalCluster::new(tmp.path().join("local"));
        let dir = cluster.create_topology("wc").unwrap();
        dir.write_topology(&Topology {
            name: "wc".into(),
            id: "wc-1-1".into(),
            ..Default::default()
        })
        .unwrap();
        dir.write_packing_plan(&PackingPlan {
            topology_id: "wc-1-1".into(),
            containers: vec![ContainerPlan {
                index: 1,
                instances: Vec::new(),
            }],
        })
        .unwrap();
        // A stand-in for the egret executable: the master exits "killed" after
        // a second; the container records its pid and runs until stopped.
        let pid_file = tmp.path().join("container.pid");
        let exe = tmp.path().join("egret");
        std::fs::write(
            &exe,
            format!(
                "#!/bin/sh\ncase \"$1\" in\n  tmaster) echo started; sleep 1; exit {EXIT_TOPOLOGY_KILLED};;\n  container) echo $$ > {}; exec sleep 60;;\nesac\n",
                pid_file.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();

        let started = Instant::now();
        tokio::time::timeout(
            Duration::from_secs(20),
            run(SchedulerOptions {
                topology_dir: dir.path().to_owned(),
                executable: exe,
            }),
        )
        .await
        .expect("the scheduler stops once the master exits killed")
        .unwrap();
        assert!(started.elapsed() >= Duration::from_secs(1));

        let retired = tmp.path().join("local/killed/wc-1-1");
        assert!(retired.join("topology.pb").is_file());
        assert!(cluster.topology("wc").is_err());
        let tm_log = std::fs::read_to_string(retired.join("logs/tmaster.log")).unwrap();
        assert_eq!(
            tm_log.lines().count(),
            1,
            "the master is not restarted: {tm_log}"
        );
        let pid: i32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_err(),
            "the container was stopped and reaped"
        );
        let snapshot = &egret_metrics::read_snapshots(&retired).unwrap()[0];
        let restarts = |child: &str| {
            snapshot
                .metrics
                .iter()
                .find(|m| m.name == egret_supervisor::RESTARTS_METRIC && m.component == child)
                .map(|m| m.value)
        };
        assert_eq!(restarts("tmaster"), Some(0.0));
        assert_eq!(restarts("container-1"), Some(0.0));
    }

    #[test]
    fn cluster_is_found_from_the_topology_dir() {
        let cluster = cluster_of(Path::new("/x/local/topologies/wc")).unwrap();
        assert_eq!(cluster.root(), Path::new("/x/local"));
        assert!(cluster_of(Path::new("/x/other/wc")).is_err());
    }
}
