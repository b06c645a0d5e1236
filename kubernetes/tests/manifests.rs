//! Golden-file test of the objects of a 3-container topology: the YAML
//! `egret kubernetes manifests` prints, compared after normalisation (line
//! endings, trailing blanks) with `tests/golden/word-count.yaml`. Set
//! `EGRET_UPDATE_GOLDEN=1` to rewrite the file after a deliberate change
//! (and review its diff).

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use egret_kubernetes::objects::{self, ZooKeeper};
use egret_kubernetes::{KubernetesSettings, TopologyInput};
use egret_proto::v1::{ContainerPlan, InstancePlan, PackingPlan};

fn instance(component: &str, index: i32, task: i32, heap_mb: i64, cpu: f64) -> InstancePlan {
    InstancePlan {
        instance_id: format!("{component}-{index}"),
        component: component.to_owned(),
        executor_index: index,
        task_ids: vec![task],
        heap_mb,
        cpu_percent: cpu,
    }
}

/// WordCountTopology's shape over 3 containers; container 2 holds a bolt
/// that declared 512 MB and half a core.
fn plan() -> PackingPlan {
    PackingPlan {
        topology_id: "word-count-1-1700000000".to_owned(),
        containers: vec![
            ContainerPlan {
                index: 1,
                instances: vec![
                    instance("sentences", 0, 1, 128, 0.0),
                    instance("count", 0, 4, 128, 0.0),
                ],
            },
            ContainerPlan {
                index: 2,
                instances: vec![
                    instance("split", 0, 2, 512, 50.0),
                    instance("count", 1, 5, 128, 0.0),
                ],
            },
            ContainerPlan {
                index: 3,
                instances: vec![
                    instance("split", 1, 3, 128, 0.0),
                    instance("__acker", 0, 6, 128, 0.0),
                ],
            },
        ],
    }
}

fn settings() -> KubernetesSettings {
    let config = serde_json::json!({
        "egret.kubernetes.namespace": "streams",
        "egret.kubernetes.image": "registry.example/egret:0.1.0",
        "egret.kubernetes.service-account": "egret-topologies",
    });
    KubernetesSettings::resolve(config.as_object().unwrap()).unwrap()
}

fn normalise(text: &str) -> String {
    text.replace("\r\n", "\n")
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

#[test]
fn a_three_container_topology_matches_its_golden_manifests() {
    let zookeeper = ZooKeeper {
        servers: "zk-0.zk:2181,zk-1.zk:2181".to_owned(),
        root: "/egret".to_owned(),
    };
    let plan = plan();
    let input = TopologyInput {
        name: "word-count",
        plan: &plan,
        jvm_overhead_mb: 256,
        zookeeper: &zookeeper,
    };
    let settings = settings();
    let built = objects::build(&input, &settings);
    let yaml = objects::to_yaml("word-count", &built, &settings.namespace).unwrap();

    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/word-count.yaml");
    if std::env::var_os("EGRET_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &yaml).unwrap();
    }
    let want = std::fs::read_to_string(&golden).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (EGRET_UPDATE_GOLDEN=1 writes it)",
            golden.display()
        )
    });
    assert_eq!(
        normalise(&yaml),
        normalise(&want),
        "the manifests differ from {}; got:\n{yaml}",
        golden.display()
    );

    // What the golden file must say, checked apart so a careless update of
    // the file cannot hide it.
    assert_eq!(built.containers.spec.replicas, Some(3));
    assert_eq!(built.master.spec.replicas, Some(1));
    let service = built.service.spec.as_ref().unwrap();
    assert_eq!(service.cluster_ip.as_deref(), Some("None"));
    let pod = built.containers.spec.template.spec.as_ref().unwrap();
    let c = &pod.containers[0];
    let requests = c.resources.as_ref().unwrap().requests.as_ref().unwrap();
    // The biggest container: 512 + 128 of heap, 2 x 256 overhead, 256 stream manager.
    assert_eq!(requests["memory"].0, "1408Mi");
    // 50 % declared + 10 % hint + the stream manager's 100m.
    assert_eq!(requests["cpu"].0, "700m");
    // Not every instance declared a CPU load: no CPU limit (as the local
    // scheduler leaves those instances' cgroups unlimited).
    let limits = c.resources.as_ref().unwrap().limits.as_ref().unwrap();
    assert_eq!(limits["memory"].0, "1408Mi");
    assert!(!limits.contains_key("cpu"), "{limits:?}");
    assert!(!yaml.contains("kind: Secret"), "the Secret is not printed");
    let args = c.args.as_ref().unwrap().join(" ");
    assert!(args.contains("--ordinal $(EGRET_POD_ORDINAL)"), "{args}");
    assert!(
        args.contains("--credentials /etc/egret/credentials"),
        "{args}"
    );
}

#[test]
fn the_secret_holds_the_files_and_no_pod_spec_names_their_content() {
    let zookeeper = ZooKeeper {
        servers: "zk:2181".to_owned(),
        root: "/egret".to_owned(),
    };
    let plan = plan();
    let settings = settings();
    let input = TopologyInput {
        name: "word-count",
        plan: &plan,
        jvm_overhead_mb: 256,
        zookeeper: &zookeeper,
    };
    let files = BTreeMap::from([
        ("token".to_owned(), b"0123abcd-token".to_vec()),
        (
            "key.pem".to_owned(),
            b"-----BEGIN PRIVATE KEY-----secret".to_vec(),
        ),
    ]);
    let secret = objects::secret("word-count", &settings, files);
    assert_eq!(
        secret.metadata.name.as_deref(),
        Some("egret-word-count-credentials")
    );
    assert_eq!(secret.data.as_ref().unwrap().len(), 2);
    let built = objects::build(&input, &settings);
    let everything = serde_json::to_string(&built.containers).unwrap()
        + &serde_json::to_string(&built.master).unwrap()
        + &serde_json::to_string(&built.config_map).unwrap();
    assert!(!everything.contains("0123abcd-token") && !everything.contains("PRIVATE KEY"));
    let volume = built
        .master
        .spec
        .template
        .spec
        .as_ref()
        .unwrap()
        .volumes
        .as_ref()
        .unwrap()
        .iter()
        .find(|v| v.name == "credentials")
        .unwrap()
        .secret
        .clone()
        .unwrap();
    assert_eq!(volume.default_mode, Some(0o400));
}

#[test]
fn object_names_are_dns_labels_distinct_per_topology() {
    assert_eq!(objects::object_base("word-count"), "egret-word-count");
    let odd = objects::object_base("Word Count_v2");
    let other = objects::object_base("word-count-v2");
    assert_ne!(odd, other);
    let long = objects::object_base(&"x".repeat(200));
    for name in [&odd, &long, &objects::object_base("$$$")] {
        assert!(name.len() <= 39, "{name}");
        assert!(
            name.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{name}"
        );
        assert!(!name.ends_with('-'), "{name}");
    }
    // A `$` in a name reaches the process as itself, not as a kubelet variable.
    let zookeeper = ZooKeeper {
        servers: "zk:2181".into(),
        root: "/egret".into(),
    };
    let plan = plan();
    let built = objects::build(
        &TopologyInput {
            name: "a$(B)",
            plan: &plan,
            jvm_overhead_mb: 256,
            zookeeper: &zookeeper,
        },
        &settings(),
    );
    let args = built.master.spec.template.spec.unwrap().containers[0]
        .args
        .clone()
        .unwrap();
    assert!(args.contains(&"a$$(B)".to_owned()), "{args:?}");
}

#[test]
fn pods_are_limited_to_their_cpu_when_every_instance_declared_one() {
    let zookeeper = ZooKeeper {
        servers: "zk:2181".to_owned(),
        root: "/egret".to_owned(),
    };
    let mut plan = plan();
    for instance in plan.containers.iter_mut().flat_map(|c| &mut c.instances) {
        instance.cpu_percent = 40.0;
    }
    plan.containers[1].instances[0].cpu_percent = 150.0;
    let input = TopologyInput {
        name: "word-count",
        plan: &plan,
        jvm_overhead_mb: 256,
        zookeeper: &zookeeper,
    };
    let built = objects::build(&input, &settings());
    let pod = built.containers.spec.template.spec.as_ref().unwrap();
    let resources = pod.containers[0].resources.as_ref().unwrap();
    // The biggest container: 150 % + 40 % + the stream manager's 100m.
    assert_eq!(resources.requests.as_ref().unwrap()["cpu"].0, "2000m");
    assert_eq!(resources.limits.as_ref().unwrap()["cpu"].0, "2000m");
    // The master's pod has no CPU limit.
    let master = built.master.spec.template.spec.as_ref().unwrap();
    let limits = master.containers[0]
        .resources
        .as_ref()
        .unwrap()
        .limits
        .as_ref()
        .unwrap();
    assert!(!limits.contains_key("cpu"), "{limits:?}");
}
