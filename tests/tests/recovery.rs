//! The container supervisor restarts an instance JVM that dies: `kill -9` of the
//! tick bolt's JVM, then a new JVM runs the same instance and ticks resume.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::path::Path;
use std::time::Duration;

use egret_e2e::{Cluster, instance_pids, task_files, wait_until};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

fn tick_count(out: &Path) -> usize {
    task_files(out, "ticks").values().map(Vec::len).sum()
}

fn fail<T>(cluster: &Cluster, error: &egret_e2e::HarnessError) -> T {
    panic!("{error}\n{}", cluster.describe_logs(30))
}

#[test]
fn killed_instance_jvm_is_restarted_and_resumes() {
    let cluster = Cluster::new("recovery").expect("cluster");
    let name = cluster.topology_name();
    cluster
        .submit_example("TickTopology", &name)
        .expect("submit");
    let out = cluster.out_dir();

    wait_until(
        "2 ticks before the kill",
        Duration::from_secs(45),
        || (tick_count(&out) >= 2).then_some(()),
        || format!("{:?}", task_files(&out, "ticks")),
    )
    .unwrap_or_else(|e| fail(&cluster, &e));
    let victims = instance_pids(cluster.home(), "ticker-0");
    assert_eq!(victims.len(), 1, "one JVM runs ticker-0: {victims:?}");
    let victim = victims[0];
    kill(Pid::from_raw(victim), Signal::SIGKILL).expect("kill -9 the instance JVM");
    let ticks_at_kill = tick_count(&out);

    let replacement = wait_until(
        "a new JVM for ticker-0",
        Duration::from_secs(30),
        || {
            let pids = instance_pids(cluster.home(), "ticker-0");
            (pids.len() == 1 && pids[0] != victim).then(|| pids[0])
        },
        || format!("{:?}", instance_pids(cluster.home(), "ticker-0")),
    )
    .unwrap_or_else(|e| fail(&cluster, &e));
    assert_ne!(replacement, victim);

    wait_until(
        "3 more ticks from the restarted instance",
        Duration::from_secs(45),
        || (tick_count(&out) >= ticks_at_kill + 3).then_some(()),
        || format!("{} ticks, {ticks_at_kill} at the kill", tick_count(&out)),
    )
    .unwrap_or_else(|e| fail(&cluster, &e));
    cluster
        .wait_for_log(
            "Child exited unexpectedly; restarting.",
            Duration::from_secs(5),
        )
        .unwrap_or_else(|e| fail(&cluster, &e));

    cluster.kill_and_check_clean(&name).expect("clean kill");
}
