//! A topology compiled for Java 25 (as Storm 3.x jars are) runs unchanged: the
//! submission reads the jar's class-file version, picks an installed Java 25
//! runtime although Egret's configured one is older, and every JVM of the
//! topology (submitter and instances) runs on it.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::Duration;

use egret_e2e::{
    Cluster, instance_processes, process_args, task_files, wait_until, workspace_root,
};

/// `RecordWordCount.LINES` and `.TOTAL`.
const LINES: [&str; 3] = [
    "records are here",
    "patterns match records",
    "here and there",
];
const TOTAL: usize = 30;

fn java25_jar() -> PathBuf {
    std::env::var_os("EGRET_EXAMPLES_JAVA25_JAR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            workspace_root().join("examples-java25/target/egret-examples-java25.jar")
        })
}

#[test]
fn a_java25_jar_runs_on_a_java25_runtime_with_exact_counts() {
    let jar = java25_jar();
    assert!(
        jar.is_file(),
        "{} missing: run ./egret-dev build",
        jar.display()
    );
    let cluster = Cluster::new("java25").expect("cluster");
    let name = cluster.topology_name();
    let out = cluster.out_dir();
    let submitted = cluster
        .run([
            OsStr::new("jar"),
            jar.as_os_str(),
            OsStr::new("dev.egret.examples.java25.RecordWordCount"),
            OsStr::new(&name),
            out.as_os_str(),
        ])
        .expect("run egret jar");
    assert!(
        submitted.success(),
        "egret jar failed: {}",
        submitted.describe()
    );

    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    for i in 0..TOTAL {
        for word in LINES[i % LINES.len()].split(' ') {
            *expected.entry(word.to_owned()).or_insert(0) += 1;
        }
    }
    let finals = wait_until(
        "every word counted to its total",
        Duration::from_secs(90),
        || {
            let mut last: BTreeMap<String, u64> = BTreeMap::new();
            for lines in task_files(&out, "count").values() {
                for line in lines {
                    let (word, count) = line.split_once(' ')?;
                    last.insert(word.to_owned(), count.parse().ok()?);
                }
            }
            (last == expected).then_some(last)
        },
        || format!("{:?}", task_files(&out, "count")),
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", cluster.describe_logs(30)));
    assert_eq!(finals, expected);

    let runtimes = task_files(&out, "runtime");
    assert_eq!(
        runtimes.len(),
        2,
        "both count tasks record their runtime: {runtimes:?}"
    );
    for lines in runtimes.values() {
        assert_eq!(lines, &vec!["runtime 25".to_owned()], "{runtimes:?}");
    }

    // Every instance JVM was launched with the chosen Java 25 launcher.
    let instances = instance_processes(cluster.home());
    assert!(!instances.is_empty(), "no instance JVMs found");
    for (pid, instance) in &instances {
        let argv0 = process_args(*pid)
            .and_then(|args| args.into_iter().next())
            .unwrap_or_default();
        let release = std::fs::canonicalize(&argv0)
            .ok()
            .and_then(|java| Some(java.parent()?.parent()?.join("release")))
            .and_then(|release| std::fs::read_to_string(release).ok())
            .unwrap_or_default();
        assert!(
            release.contains("JAVA_VERSION=\"25"),
            "instance {instance} (pid {pid}) runs {argv0}, not a Java 25 runtime"
        );
    }
    cluster.kill_and_check_clean(&name).expect("kill");
}

/// `./egret-dev build` writes the shim's class archives beside the shim jar, one per JVM
/// (the submitter's and the embedded JVM's: each of the classes a real start loads in
/// it), and a JVM started with the options Egret gives each maps the shim's classes from
/// its own: `-Xshare:on` makes a JVM that cannot use the archive fail instead of going
/// on without it.
#[test]
fn the_shims_classes_come_from_its_class_archives() {
    use egret_config::ArchiveRole;
    let shim = workspace_root().join("java-shim/target/egret-shim.jar");
    for (role, class) in [
        (ArchiveRole::Submitter, "dev.egret.client.SubmitterMain"),
        (
            ArchiveRole::Executors,
            "dev.egret.instance.InstanceExecutor",
        ),
    ] {
        let archive = shim.with_file_name(role.file_name());
        assert!(
            archive.is_file(),
            "no class archive {} (./egret-dev build writes it)",
            archive.display()
        );
        let options = egret_config::class_archive_options(&shim, role);
        assert_eq!(
            options.first().map(String::as_str),
            Some(format!("-XX:SharedArchiveFile={}", archive.display()).as_str())
        );
        // The archive's own training program, told to load one class of the role's.
        let list = tempfile::NamedTempFile::new().expect("a class list");
        std::fs::write(list.path(), format!("{}\n", class.replace('.', "/"))).expect("write it");
        let out = std::process::Command::new("java")
            .args(&options)
            .args(["-Xshare:on", "-Xlog:class+load=info", "-cp"])
            .arg(&shim)
            .arg("dev.egret.runtime.ClassArchive")
            .arg(list.path())
            .output()
            .expect("java runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout
            .lines()
            .find(|l| l.contains(&format!("{class} source:")))
            .unwrap_or_else(|| {
                panic!(
                    "{class} was not loaded: {stdout}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                )
            });
        assert!(
            line.contains("shared objects file (top)"),
            "{role:?}: {line}"
        );
    }
}
