//! Bad inputs: each must fail with a message naming the problem, and leave no
//! process and no topology behind.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::time::Duration;

use egret_e2e::{Cluster, Output, wait_until};

/// `egret jar` failed, said `needles` (all of them, case-insensitively), and
/// left nothing running or registered.
fn assert_refused(cluster: &Cluster, name: &str, out: &Output, needles: &[&str]) {
    assert!(
        !out.success(),
        "expected a non-zero exit: {}",
        out.describe()
    );
    assert!(
        out.status.is_some(),
        "egret hung instead of failing: {}",
        out.describe()
    );
    let text = out.combined().to_lowercase();
    for needle in needles {
        assert!(
            text.contains(&needle.to_lowercase()),
            "the error does not mention {needle:?}: {}",
            out.describe()
        );
    }
    assert!(
        !cluster.local_dir().join("topologies").join(name).exists(),
        "a refused submission left its topology dir"
    );
    cluster.assert_no_leftovers().expect("no process left");
}

fn refused_example(test: &str, class: &str, needles: &[&str]) {
    let cluster = Cluster::new(test).expect("cluster");
    let name = cluster.topology_name();
    let out = cluster.jar_example(class, &name).expect("run egret jar");
    assert_refused(&cluster, &name, &out, needles);
}

#[test]
fn main_that_never_submits() {
    refused_example("never-submits", "NeverSubmits", &["without submitting"]);
}

#[test]
fn unknown_component() {
    refused_example(
        "unknown-component",
        "UnknownComponentTopology",
        &["no-such-spout"],
    );
}

#[test]
fn unknown_stream() {
    refused_example(
        "unknown-stream",
        "UnknownStreamTopology",
        &["no-such-stream"],
    );
}

#[test]
fn not_serializable_bolt() {
    refused_example(
        "not-serializable",
        "NotSerializableBoltTopology",
        &["NotSerializableThing"],
    );
}

/// How many times `needle` occurs in `text`.
fn occurrences(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

#[test]
fn main_class_not_in_jar() {
    let cluster = Cluster::new("no-main-class").expect("cluster");
    let name = cluster.topology_name();
    let out = cluster
        .jar_example("DoesNotExist", &name)
        .expect("run egret jar");
    assert_refused(
        &cluster,
        &name,
        &out,
        &["dev.egret.examples.DoesNotExist", "not found"],
    );
    // The JVM's line is the error; egret does not print it a second time.
    assert_eq!(
        occurrences(&out.combined(), "not found"),
        1,
        "the error is printed more than once: {}",
        out.describe()
    );
}

/// The main class is in the jar, its superclass is not: the error names the
/// missing class (once) and the main class, and does not claim the main class
/// is missing.
#[test]
fn main_class_with_a_missing_dependency() {
    const MAIN: &str = "dev.egret.examples.MissingDependencyMain";
    const MISSING: &str = "dev.egret.examples.MissingDependencyBase";
    let cluster = Cluster::new("missing-dependency").expect("cluster");
    let name = cluster.topology_name();
    // A copy of the examples jar without the main class's superclass.
    let jar = cluster.home().join("missing-dependency.jar");
    copy_jar_without(
        &cluster.artifacts.examples_jar,
        &jar,
        "dev/egret/examples/MissingDependencyBase.class",
    );
    let out = cluster
        .run([
            "jar".as_ref(),
            jar.as_os_str(),
            MAIN.as_ref(),
            name.as_ref(),
            cluster.out_dir().as_os_str(),
        ])
        .expect("run egret jar");
    assert_refused(&cluster, &name, &out, &[MAIN, MISSING, "missing"]);
    let text = out.combined();
    assert_eq!(
        occurrences(&text, MISSING),
        1,
        "the missing class is not named exactly once: {}",
        out.describe()
    );
    assert_eq!(
        occurrences(&text, "not found"),
        0,
        "the main class is in the jar, yet the error says not found: {}",
        out.describe()
    );
    assert!(
        !text.contains("MissingDependencyMain: linked"),
        "main ran although its superclass is missing: {}",
        out.describe()
    );
}

#[test]
fn malformed_config_file() {
    let cluster = Cluster::new("bad-config").expect("cluster");
    let name = cluster.topology_name();
    let config = cluster.home().join("bad-config.yaml");
    std::fs::write(&config, "topology.workers: [1, 2\negret: {: :\n").expect("write config");
    let out = cluster
        .run([
            "jar".as_ref(),
            "--config".as_ref(),
            config.as_os_str(),
            cluster.artifacts.examples_jar.as_os_str(),
            "dev.egret.examples.WordCountTopology".as_ref(),
            name.as_ref(),
            cluster.out_dir().as_os_str(),
        ])
        .expect("run egret jar");
    assert_refused(&cluster, &name, &out, &["bad-config.yaml"]);
}

#[test]
fn unregistered_kryo_class_fails_at_emit() {
    let cluster = Cluster::new("unregistered").expect("cluster");
    let name = cluster.topology_name();
    // Registration is checked when a value is serialized, not at submission.
    cluster
        .submit_example("UnregisteredClassTopology", &name)
        .expect("submit");
    // Kryo says "Class is not registered: <class>"; any wording that names the
    // class and registration on one line will do.
    let is_error = |line: &str| {
        line.contains("dev.egret.examples.UnregisteredPayload")
            && line.to_lowercase().contains("regist")
    };
    wait_until(
        "a log line naming the unregistered class",
        Duration::from_secs(45),
        || {
            cluster
                .logs()
                .into_values()
                .any(|text| text.lines().any(is_error))
                .then_some(())
        },
        || cluster.describe_logs(15),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    cluster.kill_and_check_clean(&name).expect("clean kill");
}

/// Copies the jar `from` to `to`, leaving out the entry `left_out` (which must be there).
fn copy_jar_without(from: &std::path::Path, to: &std::path::Path, left_out: &str) {
    let source = std::fs::File::open(from).expect("open the examples jar");
    let mut archive = zip::ZipArchive::new(source).expect("read the examples jar");
    let target = std::fs::File::create(to).expect("create the jar copy");
    let mut writer = zip::ZipWriter::new(target);
    let mut found = false;
    for i in 0..archive.len() {
        let entry = archive.by_index_raw(i).expect("read a jar entry");
        if entry.name() == left_out {
            found = true;
            continue;
        }
        writer.raw_copy_file(entry).expect("copy a jar entry");
    }
    writer.finish().expect("write the jar copy");
    assert!(found, "{left_out} is not in {}", from.display());
}
