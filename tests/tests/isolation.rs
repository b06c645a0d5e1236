//! Resource isolation on the local scheduler (contracts.md, "Resource
//! isolation"): every instance JVM runs in its own cgroup with the memory and
//! CPU its component declared. `IsolationTopology`'s `hog` (setMemoryLoad 64,
//! 192 MB of JVM overhead allowed) touches 1 GiB outside its heap once and is
//! killed by the kernel at its limit, then restarted, while `steady` runs on;
//! `spin` (setCPULoad 50) wants a whole core and gets half of one, measured
//! from its cgroup's CPU counter. Needs root and cgroup v1, as this machine's
//! CI has (without them the topology fails to start, saying so).

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::path::Path;
use std::time::Duration;

use egret_e2e::{Cluster, MetricsSnapshot, read_metrics, role_processes, wait_until};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// The container's snapshot (`container-1`).
fn container(dir: &Path) -> Option<MetricsSnapshot> {
    read_metrics(dir).0.remove("container-1")
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

/// The pid of the live JVM of `instance` among the cluster's processes.
fn instance_pid(cluster: &Cluster, instance: &str) -> Option<u32> {
    let wanted = format!("EGRET_INSTANCE_ID={instance}");
    cluster.leftovers().into_iter().find_map(|(pid, _)| {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
        environ
            .split(|b| *b == 0)
            .any(|kv| kv == wanted.as_bytes())
            .then(|| u32::try_from(pid).ok())
            .flatten()
    })
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
        .trim()
        .to_owned()
}

#[test]
fn a_memory_hog_is_killed_at_its_limit_and_a_spinner_gets_half_a_core() {
    let cluster = Cluster::new("isolation").expect("cluster");
    let name = cluster.topology_name();
    cluster
        .submit_example("IsolationTopology", &name)
        .expect("submit");
    let dir = cluster.topology_dir(&name);
    let steady = cluster.out_dir().join("steady.txt");

    // Each instance is in its own cgroup, with its limits.
    let pids = wait_until(
        "every instance JVM to run",
        Duration::from_secs(60),
        || {
            let spin = instance_pid(&cluster, "spin-0")?;
            let steady = instance_pid(&cluster, "steady-0")?;
            Some((spin, steady))
        },
        || format!("{:?}", cluster.leftovers()),
    )
    .unwrap();
    let spin_cpu = egret_isolation::controller_dir_of(pids.0, "cpu").unwrap();
    let parent_name = spin_cpu
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_owned();
    assert!(
        spin_cpu.ends_with("spin-0")
            && parent_name.starts_with(&format!("egret-{name}-"))
            && parent_name.ends_with("-c1"),
        "{}",
        spin_cpu.display()
    );
    assert_eq!(read(&spin_cpu.join("cpu.cfs_quota_us")), "50000");
    let steady_memory = egret_isolation::controller_dir_of(pids.1, "memory").unwrap();
    assert!(
        steady_memory.ends_with("steady-0"),
        "{}",
        steady_memory.display()
    );
    // The topology's default heap (128 MB) and the overhead it set (192 MB).
    assert_eq!(
        read(&steady_memory.join("memory.limit_in_bytes")),
        (320u64 << 20).to_string()
    );
    let steady_cpu = egret_isolation::controller_dir_of(pids.1, "cpu").unwrap();
    assert_eq!(read(&steady_cpu.join("cpu.cfs_quota_us")), "-1");

    // The hog: killed by the kernel at its memory limit, restarted.
    let killed = wait_until(
        "the hog to be OOM-killed and restarted",
        Duration::from_secs(90),
        || {
            let snapshot = container(&dir)?;
            let oom = snapshot.value("egret.cgroup.oom-kills", "hog-0")?;
            let restarts = snapshot.value("egret.restarts", "hog-0")?;
            (oom >= 1.0 && restarts >= 1.0).then_some(snapshot)
        },
        || format!("{:?}", container(&dir)),
    )
    .unwrap();
    assert_eq!(killed.value("egret.restarts", "steady-0"), Some(0.0));
    assert_eq!(killed.value("egret.restarts", "spin-0"), Some(0.0));
    // `steady` runs on: the same JVM, still recording.
    let at_kill = lines(&steady);
    wait_until(
        "steady to record 30 more numbers after the hog's kill",
        Duration::from_secs(60),
        || (lines(&steady) >= at_kill + 30).then_some(()),
        || format!("{} lines", lines(&steady)),
    )
    .unwrap();
    assert_eq!(instance_pid(&cluster, "steady-0"), Some(pids.1));

    // The spinner: CPU used over at least 10 s of snapshots.
    let first = container(&dir).unwrap();
    let later = wait_until(
        "a snapshot 10 s later",
        Duration::from_secs(60),
        || {
            let now = container(&dir)?;
            (now.updated_ms >= first.updated_ms + 10_000).then_some(now)
        },
        String::new,
    )
    .unwrap();
    let used_ms = later.value("egret.cgroup.cpu-ms", "spin-0").unwrap()
        - first.value("egret.cgroup.cpu-ms", "spin-0").unwrap();
    let cores = used_ms / (later.updated_ms - first.updated_ms) as f64;
    eprintln!("spin-0 used {cores:.2} cores under its half-core limit");
    // Its quota caps it at 0.5 (a little more within one accounting period);
    // it wants a whole core, so far less means it did not run.
    assert!((0.2..=0.6).contains(&cores), "spin-0 used {cores:.2} cores");

    // Killing the topology removes the container's cgroups, even when the
    // container cannot clean up itself: stopped (SIGSTOP), it ignores the
    // stop's SIGTERM and is killed with SIGKILL at the end of the grace, so
    // the scheduler sweeps the groups it left behind.
    let parent = spin_cpu.parent().unwrap().to_owned();
    let containers = role_processes(cluster.home(), "container");
    assert_eq!(containers.len(), 1, "one container process");
    kill(Pid::from_raw(containers[0].pid), Signal::SIGSTOP).expect("SIGSTOP the container");
    cluster.kill_and_check_clean(&name).expect("kill");
    wait_until(
        "the container's cgroups to be removed",
        Duration::from_secs(30),
        || (!parent.exists() && !steady_memory.exists()).then_some(()),
        || parent.display().to_string(),
    )
    .unwrap();
}
