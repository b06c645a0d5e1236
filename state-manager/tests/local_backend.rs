//! The local backend of the state manager: the same contract as ZooKeeper's,
//! on a directory.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/contract.rs"]
mod contract;

use std::time::Duration;

use contract::{addr, next, packing_plan, topology};
use egret_state_manager::{LocalCluster, LocalStateManager, StateManager};

fn local(dir: &std::path::Path) -> LocalStateManager {
    LocalStateManager::new(LocalCluster::new(dir)).with_poll_interval(Duration::from_millis(20))
}

#[tokio::test]
async fn round_trip_of_every_object() {
    let tmp = tempfile::tempdir().unwrap();
    contract::round_trip_of_every_object(&local(tmp.path())).await;
    contract::packages_round_trip(&local(tmp.path()), 1 << 20).await;
}

#[tokio::test]
async fn listing() {
    let tmp = tempfile::tempdir().unwrap();
    contract::listing(&local(tmp.path())).await;
}

#[tokio::test]
async fn bad_names_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    contract::bad_names_are_refused(&local(tmp.path())).await;
    // Nothing was created outside the cluster's directory.
    assert!(!tmp.path().join("up").exists());
}

#[tokio::test]
async fn register_master_is_exclusive() {
    let tmp = tempfile::tempdir().unwrap();
    contract::register_master_is_exclusive(&local(tmp.path()), &local(tmp.path())).await;
}

#[tokio::test]
async fn watch_follows_a_takeover() {
    let tmp = tempfile::tempdir().unwrap();
    contract::watch_follows_a_takeover(&local(tmp.path()), &local(tmp.path())).await;
}

/// The files are the ones the processes read today (contracts.md, "State directory").
#[tokio::test]
async fn objects_are_the_topology_directory_files() {
    let tmp = tempfile::tempdir().unwrap();
    let sm = local(tmp.path());
    sm.put_topology(&topology("wc", "wc-1-1")).await.unwrap();
    sm.put_packing_plan("wc", &packing_plan("wc-1-1"))
        .await
        .unwrap();
    let dir = LocalCluster::new(tmp.path()).topology("wc").unwrap();
    assert_eq!(dir.read_topology().unwrap(), topology("wc", "wc-1-1"));
    assert_eq!(dir.read_packing_plan().unwrap(), packing_plan("wc-1-1"));
}

/// A registration dropped (its process gone) frees the topology at once,
/// and a lock file left with an address but no holder is no master.
#[tokio::test]
async fn a_dropped_registration_frees_the_master() {
    let tmp = tempfile::tempdir().unwrap();
    let sm = local(tmp.path());
    let mut watch = sm.watch_master("d").await.unwrap();
    let registration = sm.register_master("d", addr(7601)).await.unwrap();
    assert_eq!(next(&mut watch).await, Some(addr(7601)));
    drop(registration);
    assert_eq!(next(&mut watch).await, None);

    let lock = tmp.path().join("topologies/d/tmaster.lock");
    std::fs::write(&lock, "127.0.0.1:7602").unwrap();
    assert_eq!(sm.master_location("d").await.unwrap(), None);
    let _again = sm.register_master("d", addr(7603)).await.unwrap();
    assert_eq!(sm.master_location("d").await.unwrap(), Some(addr(7603)));
}

/// The environment variable that turns `child_master` into a master process.
const CHILD_DIR: &str = "EGRET_TEST_LOCAL_CHILD_DIR";

/// Not a test of its own: the master process of
/// `a_killed_master_process_frees_the_master`, run by it as a child.
#[tokio::test]
#[ignore = "run as a child process by a_killed_master_process_frees_the_master"]
async fn child_master() {
    let Ok(dir) = std::env::var(CHILD_DIR) else {
        return;
    };
    let sm = local(std::path::Path::new(&dir));
    let _registration = sm.register_master("crash", addr(7801)).await.unwrap();
    tokio::time::sleep(Duration::from_secs(600)).await;
}

/// A master process killed with SIGKILL holds no lock any more: the watch
/// sees no master and another registers.
#[tokio::test]
async fn a_killed_master_process_frees_the_master() {
    let tmp = tempfile::tempdir().unwrap();
    let sm = local(tmp.path());
    let mut watch = sm.watch_master("crash").await.unwrap();
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    egret_supervisor::set_parent_death_signal(&mut command);
    let mut child = command
        .args(["--exact", "child_master", "--ignored", "--nocapture"])
        .env(CHILD_DIR, tmp.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    assert_eq!(next(&mut watch).await, Some(addr(7801)));
    assert!(sm.register_master("crash", addr(7802)).await.is_err());
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(next(&mut watch).await, None);
    let _new = sm.register_master("crash", addr(7802)).await.unwrap();
    assert_eq!(next(&mut watch).await, Some(addr(7802)));
}
