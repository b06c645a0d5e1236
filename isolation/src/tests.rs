#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;

const SEPARATE: &str = "\
24 30 0:22 / /sys/fs/cgroup rw,nosuid - tmpfs tmpfs rw,mode=755
25 24 0:23 / /sys/fs/cgroup/cpu rw,relatime shared:9 - cgroup cgroup rw,cpu
26 24 0:24 / /sys/fs/cgroup/cpuacct rw,relatime shared:10 - cgroup cgroup rw,cpuacct
27 24 0:25 / /sys/fs/cgroup/cpuset rw,relatime shared:11 - cgroup cgroup rw,cpuset
28 24 0:26 / /sys/fs/cgroup/memory rw,relatime shared:12 - cgroup cgroup rw,memory
29 24 0:27 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";

const OWN: &str = "\
4:memory:/process_api/13bf
3:cpuset:/
2:cpuacct:/
1:cpu:/
0::/
";

#[test]
fn separate_hierarchies_nest_under_this_processs_cgroups() {
    let cgroups = Cgroups::from_tables(SEPARATE, OWN).unwrap();
    assert_eq!(
        cgroups.bases,
        vec![
            (
                Controller::Memory,
                PathBuf::from("/sys/fs/cgroup/memory/process_api/13bf")
            ),
            (Controller::Cpu, PathBuf::from("/sys/fs/cgroup/cpu")),
            (Controller::CpuAcct, PathBuf::from("/sys/fs/cgroup/cpuacct")),
        ]
    );
}

#[test]
fn a_shared_cpu_cpuacct_mount_and_a_containers_root_are_understood() {
    // Docker-style: the mount's root is the container's cgroup, which
    // /proc/self/cgroup names in full.
    let mountinfo = "\
40 30 0:30 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro - cgroup cgroup rw,cpu,cpuacct
41 30 0:31 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory
";
    let own = "5:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc/inner\n";
    let cgroups = Cgroups::from_tables(mountinfo, own).unwrap();
    assert_eq!(
        cgroups.bases,
        vec![
            (
                Controller::Memory,
                PathBuf::from("/sys/fs/cgroup/memory/inner")
            ),
            (Controller::Cpu, PathBuf::from("/sys/fs/cgroup/cpu,cpuacct")),
            (
                Controller::CpuAcct,
                PathBuf::from("/sys/fs/cgroup/cpu,cpuacct")
            ),
        ]
    );
}

#[test]
fn a_unified_only_machine_uses_v2_under_its_own_cgroup_and_a_missing_controller_is_named() {
    let unified = "29 24 0:27 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
    let cgroups = Cgroups::from_tables(unified, "0::/user.slice/egret.service\n").unwrap();
    assert_eq!(
        cgroups.bases,
        vec![(
            Controller::Unified,
            PathBuf::from("/sys/fs/cgroup/user.slice/egret.service")
        )]
    );

    let no_cpu = "28 24 0:26 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";
    let err = Cgroups::from_tables(no_cpu, OWN).unwrap_err();
    assert!(err.to_string().contains("cpu controller"), "{err}");
}

#[test]
fn names_that_could_leave_the_tree_are_refused() {
    for bad in ["", ".", "..", "a/b", "../x", "a b"] {
        assert!(
            matches!(checked(bad), Err(IsolationError::BadName(_))),
            "{bad:?}"
        );
    }
    assert_eq!(checked("egret-wc-1-1764-c2").unwrap(), "egret-wc-1-1764-c2");
    assert_eq!(checked("split-0").unwrap(), "split-0");
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap().trim().to_owned()
}

/// The real kernel: needs root and cgroup v1 (this machine's CI has both;
/// elsewhere the test fails saying what is missing, never skips).
#[test]
fn a_real_group_limits_counts_and_is_removed() {
    let cgroups = Cgroups::detect().expect("cgroup v1 memory, cpu and cpuacct (run as root)");
    let parent = format!("egret-isolation-test-{}", std::process::id());
    let limits = Limits {
        memory_mb: 64,
        cpu_cores: Some(0.5),
    };
    let group = cgroups
        .create(&parent, "probe", &limits)
        .expect("creating a cgroup needs root");
    let memory = group.memory_dir().unwrap().to_owned();
    assert_eq!(
        read(&memory.join("memory.limit_in_bytes")),
        (64 * MIB).to_string()
    );
    let cpu = group.dir(Controller::Cpu).unwrap();
    assert_eq!(read(&cpu.join("cpu.cfs_quota_us")), "50000");
    assert_eq!(read(&cpu.join("cpu.cfs_period_us")), "100000");

    // A shell joins by writing 0 to each cgroup.procs (as the supervisor's
    // placement does), burns some CPU, then prints where it is.
    let mut script = String::new();
    for procs in group.procs_files() {
        script.push_str(&format!("echo 0 > {} && ", procs.display()));
    }
    script.push_str("i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; cat /proc/self/cgroup");
    let out = std::process::Command::new("sh")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen = String::from_utf8(out.stdout).unwrap();
    let memory_line = seen
        .lines()
        .find(|l| l.split(':').nth(1) == Some("memory"))
        .unwrap();
    assert!(
        memory_line.ends_with(&format!("{parent}/probe")),
        "the child ran in {memory_line}"
    );
    let usage = group.usage().unwrap();
    assert!(usage.cpu_ns > 0, "{usage:?}");
    assert_eq!(usage.oom_kills, 0);

    // Reused with new limits (a supervisor restarted after a crash).
    let again = cgroups
        .create(
            &parent,
            "probe",
            &Limits {
                memory_mb: 128,
                cpu_cores: None,
            },
        )
        .unwrap();
    assert_eq!(again, group);
    assert_eq!(
        read(&memory.join("memory.limit_in_bytes")),
        (128 * MIB).to_string()
    );
    assert_eq!(read(&cpu.join("cpu.cfs_quota_us")), "-1");

    group.remove().unwrap();
    cgroups.remove_parent(&parent).unwrap();
    assert!(!memory.exists());
    assert!(!memory.parent().unwrap().exists());
    // Removing twice is fine.
    group.remove().unwrap();
    cgroups.remove_parent(&parent).unwrap();
}

#[test]
fn remove_tree_removes_a_containers_leftover_groups_in_every_controller() {
    let tmp = std::env::temp_dir().join(format!("egret-isolation-test-{}", std::process::id()));
    let memory = tmp.join("memory");
    let cpu = tmp.join("cpu");
    let cgroups = Cgroups {
        bases: vec![
            (Controller::Memory, memory.clone()),
            (Controller::Cpu, cpu.clone()),
        ],
    };
    let parent = container_group("wc-1-17", 2);
    assert_eq!(parent, "egret-wc-1-17-c2");
    for base in [&memory, &cpu] {
        fs::create_dir_all(base.join(&parent).join("split-0")).unwrap();
        fs::create_dir_all(base.join(&parent).join("_24checkpointspout-0")).unwrap();
    }
    fs::create_dir_all(memory.join("egret-other-c1/count-0")).unwrap();
    assert_eq!(cgroups.remove_tree(&parent).unwrap(), 6);
    assert!(!memory.join(&parent).exists() && !cpu.join(&parent).exists());
    // Another container's groups stay; nothing left is fine.
    assert!(memory.join("egret-other-c1/count-0").is_dir());
    assert_eq!(cgroups.remove_tree(&parent).unwrap(), 0);
    // A group that is not a directory name of ours is refused.
    assert!(cgroups.remove_tree("../x").is_err());
    fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn any_id_gets_a_distinct_safe_cgroup_name() {
    assert_eq!(cgroup_name("split-0"), "split-0");
    assert_eq!(cgroup_name("$checkpointspout-0"), "_24checkpointspout-0");
    assert_eq!(cgroup_name("a_b"), "a_5fb");
    assert_ne!(cgroup_name("a_24"), cgroup_name("a$"));
    assert_eq!(cgroup_name(".."), "_2e_2e");
    assert_eq!(cgroup_name("wc-1-1764"), "wc-1-1764");
}

/// A delegated v2 cgroup as the kernel shows it: the files Egret reads and
/// writes, in a temporary directory (this machine mounts cgroup v1 only).
fn fake_v2(controllers: &str, subtree: &str, procs: &str) -> (tempfile::TempDir, Cgroups) {
    let temp = tempfile::tempdir().unwrap();
    let base = temp.path().join("egret.service");
    fs::create_dir_all(&base).unwrap();
    fs::write(base.join("cgroup.controllers"), controllers).unwrap();
    fs::write(base.join("cgroup.subtree_control"), subtree).unwrap();
    fs::write(base.join("cgroup.procs"), procs).unwrap();
    let cgroups = Cgroups {
        bases: vec![(Controller::Unified, base)],
    };
    (temp, cgroups)
}

#[test]
fn v2_prepare_moves_the_supervisor_to_a_leaf_and_enables_memory_and_cpu() {
    let (temp, cgroups) = fake_v2("cpuset cpu io memory pids\n", "\n", "4242\n");
    cgroups.prepare("egret-t-1-c1").unwrap();
    let base = temp.path().join("egret.service");
    let read = |p: &Path| fs::read_to_string(p).unwrap();
    assert_eq!(
        read(&base.join(V2_SUPERVISOR_LEAF).join("cgroup.procs")),
        "4242"
    );
    assert_eq!(read(&base.join("cgroup.subtree_control")), "+memory +cpu");
    assert_eq!(
        read(&base.join("egret-t-1-c1").join("cgroup.subtree_control")),
        "+memory +cpu"
    );

    let group = cgroups
        .create(
            "egret-t-1-c1",
            "spin-0",
            &Limits {
                memory_mb: 320,
                cpu_cores: Some(0.5),
            },
        )
        .unwrap();
    let dir = base.join("egret-t-1-c1").join("spin-0");
    assert_eq!(read(&dir.join("memory.max")), (320 * MIB).to_string());
    assert_eq!(read(&dir.join("cpu.max")), "50000 100000");
    assert!(
        !dir.join("memory.swap.max").exists(),
        "no swap accounting: not created"
    );
    assert_eq!(group.procs_files(), vec![dir.join("cgroup.procs")]);
    assert_eq!(group.memory_dir(), Some(dir.as_path()));

    fs::write(dir.join("memory.swap.max"), "max").unwrap();
    cgroups
        .create(
            "egret-t-1-c1",
            "steady-0",
            &Limits {
                memory_mb: 128,
                cpu_cores: None,
            },
        )
        .unwrap();
    let steady = base.join("egret-t-1-c1").join("steady-0");
    assert_eq!(read(&steady.join("cpu.max")), "max 100000");

    fs::write(
        dir.join("cpu.stat"),
        "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n",
    )
    .unwrap();
    fs::write(dir.join("memory.current"), "123456\n").unwrap();
    fs::write(
        dir.join("memory.events"),
        "low 0\nhigh 0\nmax 7\noom 2\noom_kill 2\noom_group_kill 0\n",
    )
    .unwrap();
    assert_eq!(
        group.usage().unwrap(),
        Usage {
            cpu_ns: 1_500_000,
            memory_bytes: 123_456,
            oom_kills: 2,
        }
    );
}

#[test]
fn v2_leaves_an_enabled_tree_alone_and_names_a_controller_not_delegated() {
    let (temp, cgroups) = fake_v2("cpu memory\n", "cpu memory\n", "4242\n");
    cgroups.prepare("egret-t-1-c1").unwrap();
    let base = temp.path().join("egret.service");
    assert!(!base.join(V2_SUPERVISOR_LEAF).exists(), "nothing moved");
    assert_eq!(
        fs::read_to_string(base.join("cgroup.subtree_control")).unwrap(),
        "cpu memory\n"
    );

    let (_temp, cgroups) = fake_v2("cpuset io pids\n", "\n", "");
    let err = cgroups.prepare("egret-t-1-c1").unwrap_err();
    assert!(
        matches!(
            err,
            IsolationError::NotDelegated {
                controller: "memory",
                ..
            }
        ),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains("Delegate=yes") && text.contains("egret.isolation: none"),
        "{text}"
    );
}
