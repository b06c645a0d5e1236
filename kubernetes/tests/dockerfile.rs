//! CI cannot build images here; this checks that deploy/Dockerfile puts
//! things where the objects say they are (the pods' command runs `egret`
//! from PATH, the topology's config names the shim's path and `java`, the
//! work directory), so the image and the manifests cannot drift apart.
//! What the pods run is tested in tests/tests/kube_pods.rs.

#![allow(clippy::unwrap_used, reason = "test code")]

use std::path::{Path, PathBuf};

use egret_kubernetes::objects::{PROGRAM, WORK_PATH};
use egret_kubernetes::settings::{DEFAULT_JAVA, DEFAULT_SHIM_JAR};

fn dockerfile() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../deploy/Dockerfile");
    std::fs::read_to_string(&path).unwrap()
}

/// The instructions, without comments, continuation lines joined.
fn instructions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        if let Some(head) = line.strip_suffix('\\') {
            current.push_str(head);
            current.push(' ');
        } else {
            current.push_str(line);
            out.push(std::mem::take(&mut current));
        }
    }
    out
}

#[test]
fn the_image_layout_is_what_the_objects_name() {
    let text = dockerfile();
    let steps = instructions(&text);
    let copies: Vec<Vec<&str>> = steps
        .iter()
        .filter(|s| s.starts_with("COPY "))
        .map(|s| s.split_whitespace().skip(1).collect())
        .collect();
    // The shim and its Storm classes, side by side where the config says.
    let shim_dir = format!(
        "{}/",
        Path::new(DEFAULT_SHIM_JAR).parent().unwrap().display()
    );
    let shim = copies
        .iter()
        .find(|c| c.last() == Some(&shim_dir.as_str()))
        .unwrap();
    assert!(
        shim.iter().any(|s| s.ends_with("/egret-shim.jar")),
        "{shim:?}"
    );
    assert!(
        shim.iter().any(|s| s.ends_with("/storm-shaded-deps.jar")),
        "{shim:?}"
    );
    // The binary, in a PATH directory (the pods run `egret`).
    let binary = copies
        .iter()
        .find(|c| c.first().is_some_and(|s| s.ends_with("/release/egret")))
        .unwrap();
    let bin_path = Path::new(binary.last().unwrap());
    assert_eq!(bin_path.file_name().unwrap(), PROGRAM);
    let env = steps.iter().find(|s| s.starts_with("ENV ")).unwrap();
    let path = env
        .split_whitespace()
        .find_map(|w| w.strip_prefix("PATH="))
        .unwrap();
    assert!(
        path.split(':')
            .any(|d| Path::new(d) == bin_path.parent().unwrap()),
        "{path}"
    );
    // `java` on PATH: the JRE base image's.
    assert_eq!(DEFAULT_JAVA, "java");
    assert!(
        steps[0].starts_with("FROM ") && steps[0].contains("17-jre"),
        "{}",
        steps[0]
    );
    assert!(env.contains(&format!("EGRET_HOME={WORK_PATH}")), "{env}");
    assert!(
        steps
            .iter()
            .any(|s| s.starts_with("RUN ") && s.contains(WORK_PATH))
    );
    // The shim's class archive beside it, where class_archive_options looks, written
    // by the image's own java from the shim jar.
    let archive = Path::new(DEFAULT_SHIM_JAR).with_extension("jsa");
    let archive_step = steps
        .iter()
        .find(|s| s.starts_with("RUN ") && s.contains("-XX:ArchiveClassesAtExit="))
        .unwrap();
    assert!(
        archive_step.contains(&format!("-XX:ArchiveClassesAtExit={}", archive.display()))
            && archive_step.contains(&format!("-cp {DEFAULT_SHIM_JAR} "))
            && archive_step.contains("dev.egret.runtime.ClassArchive"),
        "{archive_step}"
    );
}
