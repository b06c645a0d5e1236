//! Waiting for a killed topology to be gone, and the forced stop of a
//! topology whose topology master cannot be reached (contracts.md,
//! "Processes", kill).
//!
//! The scheduler owns a topology's processes and its directory: it stops them
//! and retires the directory when its topology master exits with
//! `EXIT_TOPOLOGY_KILLED` (a kill completed) or when it gets SIGTERM.
//! [`stop_scheduler`] is the only code that sends that SIGTERM, and the only
//! code besides the scheduler that retires a directory (one a dead scheduler
//! left behind).

use std::time::{Duration, Instant};

use egret_state_manager::{LocalCluster, StateError, TopologyDir};
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// How long [`stop_scheduler`] waits after SIGTERM before SIGKILL of the
/// scheduler's process group, and again after it before giving up.
pub const SCHEDULER_STOP_GRACE: Duration = Duration::from_secs(10);
/// How long to wait for a just-started scheduler to write its pid.
const SCHEDULER_PID_WAIT: Duration = Duration::from_secs(3);
const POLL: Duration = Duration::from_millis(50);

#[derive(Debug, thiserror::Error)]
pub enum StopError {
    #[error("cannot signal the scheduler (pid {pid}): {source}")]
    Signal {
        pid: i32,
        #[source]
        source: nix::errno::Errno,
    },
    #[error("the scheduler (pid {pid}) did not exit after SIGKILL")]
    StillRunning { pid: i32 },
    #[error("cannot retire the directory of {id}: {source}")]
    Retire {
        id: String,
        #[source]
        source: StateError,
    },
}

/// Whether the topology `id` has left `dir`: its directory was retired (moved
/// to `killed/`), or a later topology reuses the name.
pub fn is_retired(dir: &TopologyDir, id: &str) -> bool {
    !dir.read_topology().is_ok_and(|topology| topology.id == id)
}

/// Whether `pid` runs; reaps it first when it is our own child (`egret local`
/// started the scheduler), else a zombie would look alive forever.
fn process_exists(pid: i32) -> bool {
    let _ = nix::sys::wait::waitpid(
        Pid::from_raw(pid),
        Some(nix::sys::wait::WaitPidFlag::WNOHANG),
    );
    kill(Pid::from_raw(pid), None).is_ok()
}

/// The scheduler's pid. A topology submitted a moment ago may not have
/// written it yet: wait a little for it rather than race its start.
async fn scheduler_pid(dir: &TopologyDir, id: &str, wait: Duration) -> Option<i32> {
    let deadline = Instant::now() + wait;
    loop {
        if let Some(pid) = dir.read_scheduler_pid().ok().flatten().filter(|p| *p > 0) {
            return Some(pid);
        }
        if Instant::now() >= deadline || is_retired(dir, id) {
            return None;
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Waits up to `timeout` for the scheduler of topology `id` to retire `dir`
/// and exit (after its topology master completed a kill); `true` when it did.
pub async fn wait_retired(dir: &TopologyDir, id: &str, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    // Read now: the pid file moves with the directory.
    let pid = scheduler_pid(dir, id, timeout.min(SCHEDULER_PID_WAIT)).await;
    loop {
        if is_retired(dir, id) && !pid.is_some_and(process_exists) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Stops topology `id` without its topology master: SIGTERM to its scheduler
/// (which stops every process and retires the directory), SIGKILL to the
/// scheduler's process group after [`SCHEDULER_STOP_GRACE`], then retires the
/// directory if the scheduler died without doing so. Once it returns `Ok`, no
/// process of the topology is left and its directory is in `killed/`.
pub async fn stop_scheduler(
    cluster: &LocalCluster,
    dir: &TopologyDir,
    id: &str,
) -> Result<(), StopError> {
    if let Some(pid) = scheduler_pid(dir, id, SCHEDULER_PID_WAIT).await {
        if let Err(source) = kill(Pid::from_raw(pid), Signal::SIGTERM)
            && source != nix::errno::Errno::ESRCH
        {
            return Err(StopError::Signal { pid, source });
        }
        let started = Instant::now();
        let mut escalated = false;
        while process_exists(pid) {
            if !escalated && started.elapsed() >= SCHEDULER_STOP_GRACE {
                tracing::warn!(topology = %id, pid, "Scheduler still running after SIGTERM; sending SIGKILL to its process group.");
                let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
                escalated = true;
            }
            if escalated && started.elapsed() >= SCHEDULER_STOP_GRACE * 2 {
                return Err(StopError::StillRunning { pid });
            }
            tokio::time::sleep(POLL).await;
        }
    }
    if !is_retired(dir, id) {
        tracing::warn!(topology = %id, "The scheduler is gone without retiring the directory; retiring it.");
        cluster
            .retire(dir, id)
            .map_err(|source| StopError::Retire {
                id: id.to_owned(),
                source,
            })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use egret_proto::v1::Topology;

    fn running(cluster: &LocalCluster) -> TopologyDir {
        let dir = cluster.create_topology("wc").unwrap();
        dir.write_topology(&Topology {
            name: "wc".into(),
            id: "wc-1-1".into(),
            ..Default::default()
        })
        .unwrap();
        dir
    }

    #[tokio::test(flavor = "current_thread")]
    async fn stopping_a_topology_whose_scheduler_is_gone_retires_it() {
        let tmp = tempfile::tempdir().unwrap();
        let cluster = LocalCluster::new(tmp.path());
        let dir = running(&cluster);
        // A scheduler that is already gone (killed without retiring the dir).
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        gone.wait().unwrap();
        dir.write_scheduler_pid(gone.id()).unwrap();
        assert!(!is_retired(&dir, "wc-1-1"));
        stop_scheduler(&cluster, &dir, "wc-1-1").await.unwrap();
        assert!(tmp.path().join("killed/wc-1-1/topology.pb").is_file());
        assert!(cluster.topology("wc").is_err());
        assert!(is_retired(&dir, "wc-1-1"));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_running_scheduler_gets_sigterm_and_is_reaped() {
        let tmp = tempfile::tempdir().unwrap();
        let cluster = LocalCluster::new(tmp.path());
        let dir = running(&cluster);
        let mut scheduler = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        dir.write_scheduler_pid(scheduler.id()).unwrap();
        let started = Instant::now();
        stop_scheduler(&cluster, &dir, "wc-1-1").await.unwrap();
        assert!(started.elapsed() < SCHEDULER_STOP_GRACE);
        // Reaped by stop_scheduler (it is our child): its pid is gone.
        assert!(!process_exists(i32::try_from(scheduler.id()).unwrap()));
        // Already reaped by stop_scheduler: nothing left to wait for.
        assert!(scheduler.try_wait().is_err());
        assert!(tmp.path().join("killed/wc-1-1").is_dir());
    }

    #[tokio::test(flavor = "current_thread")]
    async fn waiting_for_retirement_is_bounded() {
        let tmp = tempfile::tempdir().unwrap();
        let cluster = LocalCluster::new(tmp.path());
        let dir = running(&cluster);
        let started = Instant::now();
        assert!(!wait_retired(&dir, "wc-1-1", Duration::from_millis(200)).await);
        assert!(started.elapsed() < Duration::from_secs(5));
        cluster.retire(&dir, "wc-1-1").unwrap();
        assert!(wait_retired(&dir, "wc-1-1", Duration::from_millis(200)).await);
    }
}
