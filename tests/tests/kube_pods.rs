//! The pods of the Kubernetes scheduler, run as the kubelet would run them:
//! `egret jar --scheduler kubernetes` creates WordCountTopology's objects
//! in a real kube-apiserver (no kubelet runs there); this test reads the
//! StatefulSets back through the API and runs each pod (the 3 containers'
//! and the master's) in its own network-namespace host with the exact
//! command, arguments and environment of the pod spec (the downward-API
//! values filled in, `$(VAR)` expanded) and the ConfigMap and Secret
//! materialised as files at their mountPaths (`egret_e2e::kube::kubelet`).
//! The probes' endpoint answers 503 before the master runs and 200 once the
//! topology runs; the counts are exact; `egret kill` ends the pods' processes
//! (the master with its "killed" code) and deletes every object. Needs root.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use egret_e2e::hosts::{Host, TestNet};
use egret_e2e::kube::kubelet::{MountPoints, PodIdentity, materialize};
use egret_e2e::kube::{ControlPlane, labelled_objects};
use egret_e2e::word_count::expected_counts;
use egret_e2e::{Cluster, task_files, wait_until};
use egret_kubernetes::objects::{label_selector, object_base};
use egret_state_manager::test_support::ZkServer;
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use kube::api::{ListParams, ObjectMeta, PostParams};
use kube::{Api, Client};

const NAMESPACE: &str = "egret-pods";

fn finals(out: &Path) -> BTreeMap<String, u64> {
    let mut seen: BTreeMap<String, u64> = BTreeMap::new();
    for lines in task_files(out, "count").values() {
        for line in lines {
            let (word, count) = line.split_once(' ').expect("a 'word count' line");
            let count: u64 = count.parse().expect("a count");
            let entry = seen.entry(word.to_owned()).or_default();
            *entry = (*entry).max(count);
        }
    }
    seen
}

/// One pod's process in its host.
struct PodRun {
    name: String,
    child: Child,
    log: PathBuf,
    addr: Ipv4Addr,
}

impl PodRun {
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for PodRun {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn describe(pods: &[PodRun]) -> String {
    pods.iter()
        .map(|p| format!("--- {} ---\n{}", p.name, egret_e2e::tail(&p.log(), 30)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The status code of `GET path` on `addr`, or `None` when nothing answers.
fn http_status(addr: SocketAddr, path: &str) -> Option<u16> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: pod\r\n\r\n").as_bytes())
        .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    out.split_whitespace().nth(1)?.parse().ok()
}

fn health_port(set: &StatefulSet) -> u16 {
    let c = &set.spec.template.spec.as_ref().unwrap().containers[0];
    let port = c
        .ports
        .as_ref()
        .unwrap()
        .iter()
        .find(|p| p.name.as_deref() == Some("health"));
    u16::try_from(port.expect("a health port").container_port).unwrap()
}

async fn read_objects(
    client: &Client,
    name: &str,
) -> (StatefulSet, StatefulSet, Vec<ConfigMap>, Vec<Secret>) {
    let base = object_base(name);
    let sets: Api<StatefulSet> = Api::namespaced(client.clone(), NAMESPACE);
    let lp = ListParams::default().labels(&label_selector(name));
    (
        sets.get(&base).await.expect("the containers' StatefulSet"),
        sets.get(&format!("{base}-master"))
            .await
            .expect("the master's StatefulSet"),
        Api::<ConfigMap>::namespaced(client.clone(), NAMESPACE)
            .list(&lp)
            .await
            .unwrap()
            .items,
        Api::<Secret>::namespaced(client.clone(), NAMESPACE)
            .list(&lp)
            .await
            .unwrap()
            .items,
    )
}

#[allow(clippy::too_many_arguments, reason = "a test helper")]
fn start_pod(
    cluster: &Cluster,
    host: &Host,
    set: &StatefulSet,
    ordinal: u32,
    config_maps: &[ConfigMap],
    secrets: &[Secret],
    image_path: &str,
) -> (PodRun, Vec<String>) {
    let set_name = set.metadata.name.clone().unwrap();
    let identity = PodIdentity::of_stateful_set(
        &set_name,
        NAMESPACE,
        ordinal,
        host.addr(),
        &set.spec.template,
    );
    let dir = cluster.home().join("pods").join(&identity.name);
    let process = materialize(&set.spec.template, &identity, config_maps, secrets, &dir)
        .unwrap_or_else(|e| panic!("pod {}: {e}", identity.name));
    let log = cluster.home().join(format!("{}.log", identity.name));
    let file = std::fs::File::create(&log).unwrap();
    let mut cmd = host.command(&process.program);
    process.prepare(&mut cmd, image_path).unwrap();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start pod {} in {}: {e}", identity.name, host.name()));
    (
        PodRun {
            name: identity.name,
            child,
            log,
            addr: host.addr(),
        },
        process.args,
    )
}

#[test]
fn the_pods_run_as_the_kubelet_would_and_count_exactly() {
    let cluster = Cluster::new("kubepods").expect("cluster");
    let net = TestNet::new(4).expect("test hosts (needs root)");
    let plane = ControlPlane::start().expect("start etcd and kube-apiserver");
    let zk = ZkServer::start_on(IpAddr::V4(net.bridge_addr())).expect("ZooKeeper");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = rt.block_on(plane.client()).expect("a client");
    rt.block_on(async {
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
    });

    let name = cluster.topology_name();
    let config = [
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
    ];
    let mut args = vec![
        "jar".to_owned(),
        "--scheduler".to_owned(),
        "kubernetes".to_owned(),
        cluster.artifacts.examples_jar.display().to_string(),
        format!("{}.WordCountTopology", egret_e2e::EXAMPLES_PACKAGE),
        name.clone(),
        cluster.out_dir().display().to_string(),
        "-c".to_owned(),
        "topology.workers=3".to_owned(),
        "-c".to_owned(),
        "egret.kubernetes.image=egret:e2e".to_owned(),
        // Where "the image" has the shim: this machine's build.
        "-c".to_owned(),
        format!(
            "egret.kubernetes.shim.jar={}",
            cluster.artifacts.shim_jar.display()
        ),
    ];
    args.extend(config.iter().cloned());
    let submitted = cluster.run(&args).expect("egret jar");
    assert!(submitted.success(), "{}", submitted.describe());

    let (containers, master, config_maps, secrets) = rt.block_on(read_objects(&client, &name));
    assert_eq!(containers.spec.replicas, Some(3));
    // The image's PATH: the egret under test first, then the system's (java).
    let egret_dir = cluster
        .artifacts
        .egret
        .parent()
        .unwrap()
        .display()
        .to_string();
    let image_path =
        format!("{egret_dir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    let port = health_port(&containers);
    assert_eq!(port, health_port(&master));

    // The pods' mountPaths exist on this machine while the test runs (each
    // pod's process sees its own volumes there).
    let targets: Vec<PathBuf> = [&containers, &master]
        .iter()
        .flat_map(|set| {
            set.spec.template.spec.as_ref().unwrap().containers[0]
                .volume_mounts
                .clone()
                .unwrap_or_default()
        })
        .map(|m| PathBuf::from(m.mount_path))
        .collect();
    let mount_points =
        MountPoints::ensure(targets.iter().map(PathBuf::as_path)).expect("mount points");
    let mut pods = Vec::new();
    for ordinal in 0..3u32 {
        let host = net.host(usize::try_from(ordinal).unwrap() + 1);
        let (run, _) = start_pod(
            &cluster,
            host,
            &containers,
            ordinal,
            &config_maps,
            &secrets,
            &image_path,
        );
        pods.push(run);
    }
    // The args the kubelet passed: the pod's own IP and ordinal.
    let pod0 =
        egret_e2e::process_args(i32::try_from(pods[0].child.id()).unwrap()).unwrap_or_default();
    assert!(
        pod0.windows(2).any(|w| w[0] == "--ordinal" && w[1] == "0")
            && pod0
                .windows(2)
                .any(|w| w[0] == "--bind" && w[1] == net.host(1).addr().to_string()),
        "{pod0:?}"
    );

    // Before the master runs, a container is alive but not ready.
    let probe = SocketAddr::new(IpAddr::V4(pods[0].addr), port);
    let first = wait_until(
        "the first container's health endpoint",
        Duration::from_secs(30),
        || http_status(probe, "/readyz"),
        || describe(&pods),
    )
    .unwrap();
    assert_eq!(first, 503, "ready without a master");
    assert_eq!(http_status(probe, "/healthz"), Some(200));

    let (master_run, _) = start_pod(
        &cluster,
        net.host(4),
        &master,
        0,
        &config_maps,
        &secrets,
        &image_path,
    );
    pods.push(master_run);

    let expected = expected_counts();
    let out = cluster.out_dir();
    if let Err(e) = wait_until(
        "every word to reach its expected count in the pods",
        Duration::from_secs(120),
        || (finals(&out) == expected).then_some(()),
        || format!("{} words counted", finals(&out).len()),
    ) {
        panic!("{e}\n{}", describe(&pods));
    }
    for pod in &pods {
        let addr = SocketAddr::new(IpAddr::V4(pod.addr), port);
        if let Err(e) = wait_until(
            "every pod to be ready",
            Duration::from_secs(30),
            || (http_status(addr, "/readyz") == Some(200)).then_some(()),
            || format!("{}: {:?}", pod.name, http_status(addr, "/readyz")),
        ) {
            panic!("{e}\n{}", describe(&pods));
        }
        assert_eq!(http_status(addr, "/healthz"), Some(200), "{}", pod.name);
    }

    // Kill: the master kills the topology and exits 3; the containers see
    // it leave ZooKeeper and exit 0; every object is deleted.
    let mut kill = vec![
        "kill".to_owned(),
        name.clone(),
        "-w".to_owned(),
        "0".to_owned(),
    ];
    kill.extend(config.iter().cloned());
    let killed = cluster.run(&kill).expect("egret kill");
    assert!(
        killed.success(),
        "{}\n{}",
        killed.describe(),
        describe(&pods)
    );
    for pod in &mut pods {
        let status = wait_until(
            "the pod's process to exit",
            Duration::from_secs(60),
            || pod.child.try_wait().unwrap(),
            String::new,
        )
        .unwrap_or_else(|e| panic!("{}: {e}", pod.name));
        let want = if pod.name.contains("-master-") { 3 } else { 0 };
        assert_eq!(status.code(), Some(want), "{}:\n{}", pod.name, pod.log());
    }
    rt.block_on(async {
        let left = labelled_objects(&client, NAMESPACE, &label_selector(&name))
            .await
            .unwrap();
        assert_eq!(
            left, [0; 5],
            "StatefulSets, Services, ConfigMaps, Secrets, Pods left after the kill"
        );
    });
    drop(pods);
    drop(mount_points);
}
