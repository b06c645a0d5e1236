//! The container supervisor restarts an instance JVM that dies: `kill -9` of the
//! tick bolt's JVM, then a new JVM runs the same instance and ticks resume.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::path::Path;
use std::time::Duration;

use egret_e2e::{
    Bridge, Cluster, instance_pids, instance_processes, read_metrics, role_processes, task_files,
    wait_until,
};
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

/// With the JNI bridge a JVM crash is the crash of its process, the stream
/// manager's: `kill -9` of every stream manager (and with it the embedded
/// JVM running the executors), then the containers restart them, a new
/// embedded JVM runs the same executors and ticks resume.
#[test]
fn killed_stream_manager_with_its_embedded_jvm_is_restarted_and_resumes() {
    let cluster = Cluster::with_bridge("recovery-jni", Bridge::Jni).expect("cluster");
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
    cluster
        .check_bridge(&name)
        .unwrap_or_else(|e| fail(&cluster, &e));
    let victims: Vec<i32> = role_processes(cluster.home(), "stmgr")
        .iter()
        .map(|p| p.pid)
        .collect();
    assert!(!victims.is_empty(), "no stream manager runs");
    for victim in &victims {
        kill(Pid::from_raw(*victim), Signal::SIGKILL).expect("kill -9 the stream manager");
    }
    let ticks_at_kill = tick_count(&out);

    wait_until(
        "new stream managers",
        Duration::from_secs(30),
        || {
            let now: Vec<i32> = role_processes(cluster.home(), "stmgr")
                .iter()
                .map(|p| p.pid)
                .collect();
            (now.len() == victims.len() && now.iter().all(|p| !victims.contains(p))).then_some(())
        },
        || format!("{:?}", role_processes(cluster.home(), "stmgr").len()),
    )
    .unwrap_or_else(|e| fail(&cluster, &e));
    wait_until(
        "3 more ticks from the restarted executors",
        Duration::from_secs(45),
        || (tick_count(&out) >= ticks_at_kill + 3).then_some(()),
        || format!("{} ticks, {ticks_at_kill} at the kill", tick_count(&out)),
    )
    .unwrap_or_else(|e| fail(&cluster, &e));
    assert!(
        instance_processes(cluster.home()).is_empty(),
        "an instance JVM runs with the JNI bridge"
    );
    cluster
        .wait_for_log(
            "Child exited unexpectedly; restarting.",
            Duration::from_secs(5),
        )
        .unwrap_or_else(|e| fail(&cluster, &e));

    cluster.kill_and_check_clean(&name).expect("clean kill");
}

/// With the JNI bridge an executor whose user code throws dies as in Storm
/// and is started again inside the same JVM: the stream manager's process
/// (the JVM's) keeps running, the bolt records again after its crash.
#[test]
fn an_executor_whose_bolt_throws_is_restarted_inside_the_embedded_jvm() {
    let cluster = Cluster::with_bridge("crash-once-jni", Bridge::Jni).expect("cluster");
    let name = cluster.topology_name();
    cluster
        .submit_example("CrashOnceTopology", &name)
        .expect("submit");
    let out = cluster.out_dir();
    let recorded =
        |out: &Path| -> usize { task_files(out, "crasher").values().map(Vec::len).sum() };
    wait_until(
        "the bolt's crash",
        Duration::from_secs(45),
        || out.join("crashed").exists().then_some(()),
        || format!("{} recorded", recorded(&out)),
    )
    .unwrap_or_else(|e| fail(&cluster, &e));
    let managers: Vec<i32> = role_processes(cluster.home(), "stmgr")
        .iter()
        .map(|p| p.pid)
        .collect();
    let at_crash = recorded(&out);
    wait_until(
        "10 more tuples recorded by the restarted executor",
        Duration::from_secs(45),
        || (recorded(&out) >= at_crash + 10).then_some(()),
        || format!("{} recorded, {at_crash} at the crash", recorded(&out)),
    )
    .unwrap_or_else(|e| fail(&cluster, &e));
    cluster
        .wait_for_log(
            "injected crash of the crash-once bolt",
            Duration::from_secs(5),
        )
        .unwrap_or_else(|e| fail(&cluster, &e));
    cluster
        .wait_for_log("restarting it in this JVM", Duration::from_secs(5))
        .unwrap_or_else(|e| fail(&cluster, &e));
    let now: Vec<i32> = role_processes(cluster.home(), "stmgr")
        .iter()
        .map(|p| p.pid)
        .collect();
    assert_eq!(
        now, managers,
        "the stream managers (and their JVMs) were restarted: the executor was not restarted inside its JVM"
    );
    assert!(
        instance_processes(cluster.home()).is_empty(),
        "an instance JVM runs with the JNI bridge"
    );
    // The restart is counted as the container counts an instance JVM's: the
    // stream manager publishes egret.restarts of each executor it hosts.
    let dir = cluster.topology_dir(&name);
    let restarts = |component: &str| -> Option<f64> {
        let (snapshots, _) = read_metrics(&dir);
        snapshots
            .values()
            .filter(|s| s.process.starts_with("stmgr-"))
            .find_map(|s| s.value("egret.restarts", component))
    };
    wait_until(
        "egret.restarts of crasher-0 to count its restart",
        Duration::from_secs(20),
        || (restarts("crasher-0") == Some(1.0)).then_some(()),
        || {
            format!(
                "crasher-0: {:?}, {:?}",
                restarts("crasher-0"),
                read_metrics(&dir)
            )
        },
    )
    .unwrap_or_else(|e| fail(&cluster, &e));
    assert_eq!(
        restarts("numbers-0"),
        Some(0.0),
        "the spout's executor was not restarted"
    );
    cluster.kill_and_check_clean(&name).expect("clean kill");
}

/// `CrashOnceTopology` in `mode` (also the cluster's name) ends its bolt's JVM once; the test waits
/// for the bolt's marker, for `log` in the cluster's logs (when given), for
/// the container's restart, then for 10 more tuples recorded after it.
fn ends_its_jvm_once_and_is_restarted(bridge: Bridge, mode: &str, log: Option<&str>) {
    let cluster = Cluster::with_bridge(mode, bridge).expect("cluster");
    let name = cluster.topology_name();
    cluster
        .submit_example_with("CrashOnceTopology", &name, &[mode])
        .expect("submit");
    let out = cluster.out_dir();
    let recorded =
        |out: &Path| -> usize { task_files(out, "crasher").values().map(Vec::len).sum() };
    wait_until(
        &format!("the bolt's {mode}"),
        Duration::from_secs(45),
        || out.join("crashed").exists().then_some(()),
        || format!("{} recorded", recorded(&out)),
    )
    .unwrap_or_else(|e| fail(&cluster, &e));
    if let Some(log) = log {
        cluster
            .wait_for_log(log, Duration::from_secs(30))
            .unwrap_or_else(|e| fail(&cluster, &e));
    }
    cluster
        .wait_for_log(
            "Child exited unexpectedly; restarting.",
            Duration::from_secs(30),
        )
        .unwrap_or_else(|e| fail(&cluster, &e));
    let at_restart = recorded(&out);
    wait_until(
        "10 more tuples recorded after the restart",
        Duration::from_secs(45),
        || (recorded(&out) >= at_restart + 10).then_some(()),
        || format!("{} recorded, {at_restart} at the restart", recorded(&out)),
    )
    .unwrap_or_else(|e| fail(&cluster, &e));
    cluster.kill_and_check_clean(&name).expect("clean kill");
}

/// An `OutOfMemoryError` ends the JVM that threw it, even one its user code
/// catches (a runtime thread may have died of it): the bolt fills its heap
/// once and catches the error, the JVM ends ("Terminating due to
/// java.lang.OutOfMemoryError"; with the JNI bridge "Aborting due to", and
/// the stream manager's process with it), its container restarts it, and
/// the bolt records again. Without `-XX:+ExitOnOutOfMemoryError` (the
/// embedded JVM's `-XX:+CrashOnOutOfMemoryError`) the bolt would go on in
/// the same JVM and nothing would restart; with the embedded JVM exiting on
/// one, its code 3 read as "topology killed" kept the container from
/// restarting its stream manager.
fn out_of_memory_ends_the_jvm_and_it_is_restarted(bridge: Bridge) {
    ends_its_jvm_once_and_is_restarted(
        bridge,
        "out-of-memory",
        Some("due to java.lang.OutOfMemoryError"),
    );
}

/// User code that calls `System.exit(3)` ends its JVM, which its container
/// restarts, as Storm's supervisor restarts a worker whose user code exited.
/// With the JNI bridge that JVM is the stream manager's process, whose own
/// exit code 3 means "topology killed, do not restart me": the embedded
/// JVM's exit hook ends it with code 1 instead, and says why. Without the
/// hook the process ended with 3 and nothing restarted it.
fn exit_3_in_user_code_ends_the_jvm_and_it_is_restarted(bridge: Bridge) {
    let log = (bridge == Bridge::Jni).then_some("The embedded JVM exited with code 3");
    ends_its_jvm_once_and_is_restarted(bridge, "exit-3", log);
}

#[test]
fn exit_3_in_user_code_ends_the_instance_jvm_and_it_is_restarted() {
    exit_3_in_user_code_ends_the_jvm_and_it_is_restarted(Bridge::Socket);
}

#[test]
fn exit_3_in_user_code_ends_the_stream_manager_and_it_is_restarted() {
    exit_3_in_user_code_ends_the_jvm_and_it_is_restarted(Bridge::Jni);
}

#[test]
fn out_of_memory_ends_the_instance_jvm_and_it_is_restarted() {
    out_of_memory_ends_the_jvm_and_it_is_restarted(Bridge::Socket);
}

#[test]
fn out_of_memory_ends_the_embedded_jvm_and_its_stream_manager_is_restarted() {
    out_of_memory_ends_the_jvm_and_it_is_restarted(Bridge::Jni);
}
