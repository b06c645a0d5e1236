//! The Kubernetes scheduler against a real kube-apiserver (with etcd; no
//! mock, no controllers: `egret_e2e::kube`): `egret jar --scheduler
//! kubernetes` stores WordCountTopology (3 containers) in ZooKeeper and
//! creates its objects; they are read back through the API as the server
//! stored them (StatefulSet replicas, a headless Service, the ConfigMap and
//! the Secret with the credentials directory's files, no secret in any pod
//! spec, resources as the packing plan says); `egret rebalance` stores the
//! new counts and plan (task ids unchanged) and scales the containers'
//! StatefulSet, its pod template carrying the new plan's resources and
//! digest; `egret kill` deletes every
//! object and a list by label finds nothing left. No pod runs here (no
//! kubelet): the kill goes the way of a topology whose master is not live
//! (tests/tests/kube_pods.rs runs the pods).

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;

use egret_e2e::Cluster;
use egret_e2e::kube::{ControlPlane, labelled_objects};
use egret_kubernetes::objects::{self, container_resources, label_selector, object_base};
use egret_state_manager::test_support::ZkServer;
use egret_state_manager::{StateManager, ZkOptions, ZkStateManager};
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret, Service};
use kube::api::{ListParams, ObjectMeta, PostParams};
use kube::{Api, Client};

const NAMESPACE: &str = "egret-e2e";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn create_namespace(client: &Client) {
    Api::<Namespace>::all(client.clone())
        .create(
            &PostParams::default(),
            &Namespace {
                metadata: ObjectMeta {
                    name: Some(NAMESPACE.to_owned()),
                    ..ObjectMeta::default()
                },
                ..Namespace::default()
            },
        )
        .await
        .expect("create the namespace");
}

/// Every string of a pod template's containers' command, args and env values.
fn pod_strings(set: &StatefulSet) -> Vec<String> {
    let spec = set.spec.template.spec.as_ref().expect("a pod spec");
    let mut out = Vec::new();
    for c in &spec.containers {
        out.extend(c.command.clone().unwrap_or_default());
        out.extend(c.args.clone().unwrap_or_default());
        for e in c.env.clone().unwrap_or_default() {
            out.push(e.name.clone());
            out.extend(e.value);
            assert!(
                e.value_from
                    .as_ref()
                    .is_none_or(|v| v.secret_key_ref.is_none()),
                "an env var from the Secret: {}",
                e.name
            );
        }
    }
    out
}

/// A memory quantity in MiB (the suffixes the API server writes back for whole MiB).
fn mebibytes(q: &str) -> u64 {
    let (n, unit) = q.split_at(q.find(|c: char| !c.is_ascii_digit()).unwrap_or(q.len()));
    let n: u64 = n.parse().unwrap_or_else(|_| panic!("a quantity: {q}"));
    match unit {
        "Mi" => n,
        "Gi" => n * 1024,
        "Ti" => n * 1024 * 1024,
        "" => n / (1024 * 1024),
        other => panic!("unit {other} of {q}"),
    }
}

/// A CPU quantity in millicores.
fn millicores(q: &str) -> u64 {
    match q.strip_suffix('m') {
        Some(m) => m.parse().unwrap(),
        None => q.parse::<u64>().unwrap() * 1000,
    }
}

#[test]
fn a_submission_creates_the_objects_and_a_kill_deletes_every_one() {
    let cluster = Cluster::new("kubesched").expect("cluster");
    let plane = ControlPlane::start().expect("start etcd and kube-apiserver");
    let zk = ZkServer::start().expect("ZooKeeper");
    let rt = runtime();
    let client = rt.block_on(plane.client()).expect("a client");
    rt.block_on(create_namespace(&client));

    let name = cluster.topology_name();
    let config = vec![
        "-c".to_owned(),
        "egret.state.manager=zookeeper".to_owned(),
        "-c".to_owned(),
        format!("egret.zookeeper.servers={}", zk.servers()),
        "-c".to_owned(),
        format!(
            "egret.kubernetes.kubeconfig={}",
            plane.kubeconfig().display()
        ),
        "-c".to_owned(),
        format!("egret.kubernetes.namespace={NAMESPACE}"),
        "-c".to_owned(),
        "egret.kubernetes.image=egret:e2e".to_owned(),
    ];
    let out_dir = cluster.out_dir();
    let mut args = vec![
        "jar".to_owned(),
        "--scheduler".to_owned(),
        "kubernetes".to_owned(),
        cluster.artifacts.examples_jar.display().to_string(),
        format!("{}.WordCountTopology", egret_e2e::EXAMPLES_PACKAGE),
        name.clone(),
        out_dir.display().to_string(),
        "-c".to_owned(),
        "topology.workers=3".to_owned(),
    ];
    args.extend(config.iter().cloned());
    let submitted = cluster.run(&args).expect("egret jar");
    assert!(submitted.success(), "{}", submitted.describe());
    let said = submitted.combined();
    assert!(said.contains("3 containers"), "{said}");
    assert!(
        said.contains(&format!("Created in Kubernetes namespace {NAMESPACE}")),
        "{said}"
    );

    let base = object_base(&name);
    let credentials_dir = cluster.home().join("credentials").join(&name);
    let plan = rt.block_on(async {
        let state = ZkStateManager::connect(&zk.servers(), "/egret", ZkOptions::default())
            .await
            .unwrap();
        state
            .get_packing_plan(&name)
            .await
            .unwrap()
            .expect("the packing plan in ZooKeeper")
    });
    assert_eq!(plan.containers.len(), 3);

    rt.block_on(async {
        let sets: Api<StatefulSet> = Api::namespaced(client.clone(), NAMESPACE);
        let containers = sets.get(&base).await.expect("the containers' StatefulSet");
        assert_eq!(containers.spec.replicas, Some(3));
        assert_eq!(containers.spec.service_name.as_deref(), Some(base.as_str()));
        let master = sets
            .get(&format!("{base}-master"))
            .await
            .expect("the master's StatefulSet");
        assert_eq!(master.spec.replicas, Some(1));
        let master_args = master.spec.template.spec.as_ref().unwrap().containers[0]
            .args
            .clone()
            .unwrap();
        assert_eq!(master_args[0], "tmaster");

        let service = Api::<Service>::namespaced(client.clone(), NAMESPACE)
            .get(&base)
            .await
            .expect("the Service");
        assert_eq!(
            service.spec.unwrap().cluster_ip.as_deref(),
            Some("None"),
            "headless"
        );

        let cm = Api::<ConfigMap>::namespaced(client.clone(), NAMESPACE)
            .get(&format!("{base}-config"))
            .await
            .expect("the ConfigMap");
        let file = &cm.data.unwrap()[objects::CONFIG_FILE];
        assert!(file.contains(&zk.servers()), "{file}");

        // The Secret holds the credentials directory, file for file.
        let secret = Api::<Secret>::namespaced(client.clone(), NAMESPACE)
            .get(&objects::secret_name(&name))
            .await
            .expect("the Secret");
        let data: BTreeMap<String, Vec<u8>> = secret
            .data
            .unwrap()
            .into_iter()
            .map(|(k, v)| (k, v.0))
            .collect();
        let files = egret_kubernetes::scheduler::credential_files(&credentials_dir).unwrap();
        assert_eq!(data, files);
        assert!(
            data.contains_key("token") && data.contains_key("key.pem"),
            "{:?}",
            data.keys()
        );

        // No secret in the pods' command, arguments or environment.
        let token = String::from_utf8(files["token"].clone()).unwrap();
        for set in [&containers, &master] {
            for s in pod_strings(set) {
                assert!(
                    !s.contains(token.trim()) && !s.contains("PRIVATE KEY"),
                    "a secret in the pod spec: {s}"
                );
            }
        }

        // Resources: the largest container of the plan, as the packing plan says.
        let (memory, cpu) = plan
            .containers
            .iter()
            .map(|c| container_resources(c, 256, 256))
            .max()
            .unwrap();
        let resources = containers.spec.template.spec.as_ref().unwrap().containers[0]
            .resources
            .clone()
            .unwrap();
        let requests = resources.requests.unwrap();
        // As the API server canonicalised them (1024Mi is stored as 1Gi).
        assert_eq!(mebibytes(&requests["memory"].0), memory);
        assert_eq!(millicores(&requests["cpu"].0), cpu);
        assert_eq!(mebibytes(&resources.limits.unwrap()["memory"].0), memory);
        // WordCountTopology: 2 executors of 128 MB (+ 256 overhead) at least per container.
        assert!(memory >= 2 * (128 + 256) + 256, "{memory}");
    });

    // Rebalance: refused above the task count, with nothing changed; then
    // 2 workers and 2 `count` executors (of its 3 tasks). No master is live
    // here (no pod runs), so the new topology and plan are stored directly;
    // the containers' StatefulSet is scaled and its pod template replaced
    // (resources of the new plan's largest container, the plan's digest).
    let rebalance = |extra: &[&str]| {
        let mut args = vec![
            "rebalance".to_owned(),
            name.clone(),
            "-w".to_owned(),
            "0".to_owned(),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args.extend(config.iter().cloned());
        cluster.run(&args).expect("egret rebalance")
    };
    let refused = rebalance(&["-e", "count=4"]);
    assert!(
        !refused.success() && refused.stderr.contains("3 tasks"),
        "{}",
        refused.describe()
    );
    let rebalanced = rebalance(&["-n", "2", "-e", "count=2"]);
    assert!(rebalanced.success(), "{}", rebalanced.describe());
    assert!(
        rebalanced
            .stdout
            .contains("2 containers, 5 executors, 6 tasks"),
        "{}",
        rebalanced.describe()
    );
    let (topology, new_plan) = rt.block_on(async {
        let state = ZkStateManager::connect(&zk.servers(), "/egret", ZkOptions::default())
            .await
            .unwrap();
        (
            state.get_topology(&name).await.unwrap().unwrap(),
            state.get_packing_plan(&name).await.unwrap().unwrap(),
        )
    });
    let count = topology
        .components
        .iter()
        .find(|c| c.id == "count")
        .unwrap();
    assert_eq!((count.parallelism, count.num_tasks), (2, 3));
    assert_eq!(new_plan.containers.len(), 2);
    let task_ids = |p: &egret_proto::v1::PackingPlan| {
        let mut t: Vec<i32> = p
            .containers
            .iter()
            .flat_map(|c| &c.instances)
            .flat_map(|i| i.task_ids.clone())
            .collect();
        t.sort_unstable();
        t
    };
    assert_eq!(
        task_ids(&new_plan),
        task_ids(&plan),
        "task ids never change"
    );
    rt.block_on(async {
        let sets: Api<StatefulSet> = Api::namespaced(client.clone(), NAMESPACE);
        let containers = sets.get(&base).await.expect("the containers' StatefulSet");
        assert_eq!(containers.spec.replicas, Some(2));
        let (memory, cpu) = new_plan
            .containers
            .iter()
            .map(|c| container_resources(c, 256, 256))
            .max()
            .unwrap();
        let template = &containers.spec.template;
        let resources = template.spec.as_ref().unwrap().containers[0]
            .resources
            .clone()
            .unwrap();
        let requests = resources.requests.unwrap();
        assert_eq!(mebibytes(&requests["memory"].0), memory);
        assert_eq!(millicores(&requests["cpu"].0), cpu);
        // Three executors in the larger container now: more than before.
        assert!(memory >= 3 * (128 + 256) + 256, "{memory}");
        let annotations = template
            .metadata
            .as_ref()
            .and_then(|m| m.annotations.clone())
            .unwrap_or_default();
        assert_eq!(
            annotations.get(egret_kubernetes::client::PLAN_ANNOTATION),
            Some(&egret_kubernetes::scheduler::plan_digest(&new_plan)),
            "{annotations:?}"
        );
    });

    // A second submission of the name is refused (it is in ZooKeeper).
    let again = cluster.run(&args).expect("egret jar");
    assert!(!again.success(), "{}", again.describe());

    // Kill: the objects go, by label; nothing is left in the namespace.
    let mut kill = vec![
        "kill".to_owned(),
        name.clone(),
        "-w".to_owned(),
        "0".to_owned(),
    ];
    kill.extend(config.iter().cloned());
    let killed = cluster.run(&kill).expect("egret kill");
    assert!(killed.success(), "{}", killed.describe());
    assert!(
        killed.stdout.contains(&format!("StatefulSet/{base}")),
        "{}",
        killed.describe()
    );
    rt.block_on(async {
        let left = labelled_objects(&client, NAMESPACE, &label_selector(&name))
            .await
            .unwrap();
        assert_eq!(
            left, [0; 5],
            "StatefulSets, Services, ConfigMaps, Secrets, Pods left after the kill"
        );
        // Unlabelled objects of the namespace (the API server's own) stay.
        let all = Api::<ConfigMap>::namespaced(client.clone(), NAMESPACE)
            .list(&ListParams::default())
            .await
            .unwrap();
        assert!(all.items.iter().all(|c| {
            c.metadata
                .labels
                .as_ref()
                .is_none_or(|l| !l.contains_key(objects::TOPOLOGY_LABEL))
        }));
        let state = ZkStateManager::connect(&zk.servers(), "/egret", ZkOptions::default())
            .await
            .unwrap();
        assert!(
            state.get_topology(&name).await.unwrap().is_none(),
            "still in ZooKeeper"
        );
    });
    let twice = cluster.run(&kill).expect("egret kill");
    assert!(
        !twice.success() && twice.combined().contains("no topology named"),
        "{}",
        twice.describe()
    );
}

/// `egret kubernetes manifests` (GitOps): main() runs and the topology is
/// packed as `egret jar` would, its objects printed as YAML (the Secret
/// only named, never printed), nothing stored (no ZooKeeper is even
/// reachable); the printed objects are accepted by a real API server as
/// they are, with the Secret the user creates from the credentials.
#[test]
fn manifests_print_objects_an_api_server_accepts_and_store_nothing() {
    let cluster = Cluster::new("kubemanifests").expect("cluster");
    let name = cluster.topology_name();
    let args = vec![
        "kubernetes".to_owned(),
        "manifests".to_owned(),
        cluster.artifacts.examples_jar.display().to_string(),
        format!("{}.WordCountTopology", egret_e2e::EXAMPLES_PACKAGE),
        name.clone(),
        cluster.out_dir().display().to_string(),
        "-c".to_owned(),
        "topology.workers=3".to_owned(),
        "-c".to_owned(),
        "egret.state.manager=zookeeper".to_owned(),
        "-c".to_owned(),
        // Nothing listens there: nothing may be stored.
        "egret.zookeeper.servers=127.0.0.1:1".to_owned(),
        "-c".to_owned(),
        "egret.kubernetes.image=egret:e2e".to_owned(),
        "-c".to_owned(),
        format!("egret.kubernetes.namespace={NAMESPACE}"),
    ];
    let printed = cluster.run(&args).expect("egret kubernetes manifests");
    assert!(printed.success(), "{}", printed.describe());
    let yaml = &printed.stdout;
    assert!(
        yaml.starts_with("# The Kubernetes objects of topology"),
        "{yaml}"
    );
    assert!(
        !yaml.contains("kind: Secret") && !yaml.contains("PRIVATE KEY"),
        "{yaml}"
    );
    assert!(
        !cluster.home().join("credentials").exists(),
        "credentials written"
    );

    // Stored for those objects: egret.kubernetes.create=false calls no API
    // (the kubeconfig it would infer does not exist) and writes the
    // credentials.
    let zk = ZkServer::start().expect("ZooKeeper");
    let mut store = vec![
        "jar".to_owned(),
        "--scheduler".to_owned(),
        "kubernetes".to_owned(),
    ];
    store.extend(args[2..].iter().cloned());
    store.extend([
        "-c".to_owned(),
        format!("egret.zookeeper.servers={}", zk.servers()),
        "-c".to_owned(),
        "egret.kubernetes.create=false".to_owned(),
    ]);
    let mut cmd = cluster.egret(&store);
    cmd.env("KUBECONFIG", "/nonexistent/kubeconfig");
    let stored =
        egret_e2e::run_with_timeout(&mut cmd, std::time::Duration::from_secs(120)).unwrap();
    assert!(stored.success(), "{}", stored.describe());
    assert!(
        stored.stdout.contains("No Kubernetes object was created"),
        "{}",
        stored.describe()
    );
    assert!(
        cluster
            .home()
            .join("credentials")
            .join(&name)
            .join("key.pem")
            .is_file()
    );

    let docs: Vec<serde_json::Value> = serde_saphyr::from_multiple(yaml).expect("YAML documents");
    let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["ConfigMap", "Service", "StatefulSet", "StatefulSet"]
    );
    assert_eq!(docs[3]["spec"]["replicas"], 3);

    // Applied as a GitOps tool would: every document, as printed.
    let plane = ControlPlane::start().expect("start etcd and kube-apiserver");
    let rt = runtime();
    let client = rt.block_on(plane.client()).expect("a client");
    rt.block_on(async {
        create_namespace(&client).await;
        let pp = PostParams::default();
        let config_map: ConfigMap = serde_json::from_value(docs[0].clone()).unwrap();
        Api::<ConfigMap>::namespaced(client.clone(), NAMESPACE)
            .create(&pp, &config_map)
            .await
            .expect("the ConfigMap");
        let service: Service = serde_json::from_value(docs[1].clone()).unwrap();
        Api::<Service>::namespaced(client.clone(), NAMESPACE)
            .create(&pp, &service)
            .await
            .expect("the Service");
        for doc in &docs[2..] {
            let set: StatefulSet = serde_json::from_value(doc.clone()).unwrap();
            Api::<StatefulSet>::namespaced(client.clone(), NAMESPACE)
                .create(&pp, &set)
                .await
                .expect("a StatefulSet");
        }
        let lp = ListParams::default().labels(&label_selector(&name));
        let sets = Api::<StatefulSet>::namespaced(client.clone(), NAMESPACE)
            .list(&lp)
            .await
            .unwrap();
        assert_eq!(sets.items.len(), 2);
    });
}
