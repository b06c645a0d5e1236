//! The test control plane (`egret_e2e::kube`) is a real Kubernetes API: the
//! objects the Kubernetes scheduler will make (a namespace, a ConfigMap, a
//! Secret, a headless Service and a StatefulSet) are created through the
//! `kube` crate, read back as the API server stored, defaulted and validated
//! them, scaled, and deleted.
//!
//! Only the API server and etcd run: no kube-controller-manager, so nothing
//! acts on stored objects. A StatefulSet gets no pods and keeps an empty
//! status; deleting a namespace only marks it Terminating (emptying it and
//! removing its `kubernetes` finalizer is the namespace controller's work,
//! which this test does by hand, through the same API calls). Everything
//! asserted below is done by kube-apiserver itself.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;

use egret_e2e::kube::ControlPlane;
use k8s_openapi::ByteString;
use k8s_openapi::api::apps::v1::{StatefulSet, StatefulSetSpec};
use k8s_openapi::api::core::v1::{
    ConfigMap, Container, Namespace, Pod, PodSpec, PodTemplateSpec, Secret, Service, ServicePort,
    ServiceSpec,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::api::{DeleteParams, ObjectMeta, Patch, PatchParams, PostParams};
use kube::{Api, Client, ResourceExt};

const NAMESPACE: &str = "egret-kube-test";
const TOPOLOGY: &str = "word-count";

fn labels() -> BTreeMap<String, String> {
    BTreeMap::from([("egret.dev/topology".to_owned(), TOPOLOGY.to_owned())])
}

fn meta(name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        namespace: Some(NAMESPACE.to_owned()),
        labels: Some(labels()),
        ..ObjectMeta::default()
    }
}

fn headless_service() -> Service {
    Service {
        metadata: meta(TOPOLOGY),
        spec: Some(ServiceSpec {
            cluster_ip: Some("None".to_owned()),
            selector: Some(labels()),
            ports: Some(vec![ServicePort {
                name: Some("stmgr".to_owned()),
                port: 6000,
                ..ServicePort::default()
            }]),
            ..ServiceSpec::default()
        }),
        ..Service::default()
    }
}

fn stateful_set(replicas: i32) -> StatefulSet {
    StatefulSet {
        metadata: meta(TOPOLOGY),
        spec: StatefulSetSpec {
            replicas: Some(replicas),
            service_name: Some(TOPOLOGY.to_owned()),
            selector: LabelSelector {
                match_labels: Some(labels()),
                ..LabelSelector::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels()),
                    ..ObjectMeta::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: "container".to_owned(),
                        image: Some("egret:test".to_owned()),
                        command: Some(vec!["egret".to_owned(), "container".to_owned()]),
                        ..Container::default()
                    }],
                    ..PodSpec::default()
                }),
            },
            ..StatefulSetSpec::default()
        },
        ..StatefulSet::default()
    }
}

fn is_not_found(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 404)
}

async fn run(plane: &ControlPlane) {
    let client: Client = plane.client().await.expect("a client from the kubeconfig");

    // The server is the pinned build, and answers as the admin credential.
    let version = client.apiserver_version().await.expect("/version");
    assert_eq!(version.git_version, "v1.37.2", "{version:?}");

    let namespaces: Api<Namespace> = Api::all(client.clone());
    let pp = PostParams::default();
    let ns = namespaces
        .create(
            &pp,
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
    // Defaulted by the API server: every namespace is born Active, with the
    // finalizer that the namespace controller removes once it emptied it.
    assert_eq!(
        ns.status.as_ref().and_then(|s| s.phase.as_deref()),
        Some("Active")
    );
    assert_eq!(
        ns.spec.as_ref().and_then(|s| s.finalizers.clone()),
        Some(vec!["kubernetes".to_owned()])
    );

    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
    let secrets: Api<Secret> = Api::namespaced(client.clone(), NAMESPACE);
    let services: Api<Service> = Api::namespaced(client.clone(), NAMESPACE);
    let sets: Api<StatefulSet> = Api::namespaced(client.clone(), NAMESPACE);
    let pods: Api<Pod> = Api::namespaced(client.clone(), NAMESPACE);

    let topology_yaml = "topology.workers: 3\ntopology.acker.executors: 1\n";
    config_maps
        .create(
            &pp,
            &ConfigMap {
                metadata: meta(TOPOLOGY),
                data: Some(BTreeMap::from([(
                    "topology.yaml".to_owned(),
                    topology_yaml.to_owned(),
                )])),
                ..ConfigMap::default()
            },
        )
        .await
        .expect("create the ConfigMap");
    secrets
        .create(
            &pp,
            &Secret {
                metadata: meta(TOPOLOGY),
                type_: Some("Opaque".to_owned()),
                // Write-only field: the API server merges it into `data`.
                string_data: Some(BTreeMap::from([("token".to_owned(), "s3cr3t".to_owned())])),
                ..Secret::default()
            },
        )
        .await
        .expect("create the Secret");
    services
        .create(&pp, &headless_service())
        .await
        .expect("create the headless Service");
    let created = sets
        .create(&pp, &stateful_set(3))
        .await
        .expect("create the StatefulSet");
    assert!(created.metadata.uid.is_some() && created.metadata.resource_version.is_some());

    // Read back: what etcd holds, as the API server defaulted it.
    let cm = config_maps.get(TOPOLOGY).await.expect("get the ConfigMap");
    assert_eq!(
        cm.data.as_ref().and_then(|d| d.get("topology.yaml")),
        Some(&topology_yaml.to_owned())
    );
    assert_eq!(cm.labels(), &labels());

    let secret = secrets.get(TOPOLOGY).await.expect("get the Secret");
    assert_eq!(
        secret.data.as_ref().and_then(|d| d.get("token")),
        Some(&ByteString(b"s3cr3t".to_vec()))
    );
    assert_eq!(secret.string_data, None, "stringData is never stored");

    let svc = services.get(TOPOLOGY).await.expect("get the Service");
    let spec = svc.spec.expect("a Service has a spec");
    assert_eq!(spec.cluster_ip.as_deref(), Some("None"), "headless");
    assert_eq!(spec.type_.as_deref(), Some("ClusterIP"));
    let port = &spec.ports.expect("ports")[0];
    assert_eq!((port.port, port.protocol.as_deref()), (6000, Some("TCP")));

    let set = sets.get(TOPOLOGY).await.expect("get the StatefulSet");
    let spec = &set.spec;
    assert_eq!(spec.replicas, Some(3));
    assert_eq!(spec.service_name.as_deref(), Some(TOPOLOGY));
    assert_eq!(spec.pod_management_policy.as_deref(), Some("OrderedReady"));
    assert_eq!(spec.revision_history_limit, Some(10));
    let container = &spec.template.spec.as_ref().expect("pod spec").containers[0];
    assert_eq!(container.image_pull_policy.as_deref(), Some("IfNotPresent"));
    assert_eq!(
        container.termination_message_path.as_deref(),
        Some("/dev/termination-log")
    );
    // No controller: nobody made pods or wrote a status beyond the empty one.
    assert_eq!(set.status.as_ref().map_or(0, |s| s.replicas), 0);
    assert!(
        pods.list(&Default::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );

    // Validation is the API server's: a StatefulSet whose selector does not
    // match its template is refused with 422.
    let mut bad = stateful_set(1);
    bad.metadata.name = Some("bad".to_owned());
    bad.spec.selector.match_labels = Some(BTreeMap::from([("other".to_owned(), "x".to_owned())]));
    match sets.create(&pp, &bad).await {
        Err(kube::Error::Api(s)) => assert_eq!(s.code, 422, "{s:?}"),
        other => panic!("a mismatched selector was not refused: {other:?}"),
    }

    // Scale, as a rebalance will: through the scale subresource.
    let scale = sets
        .patch_scale(
            TOPOLOGY,
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"spec": {"replicas": 4}})),
        )
        .await
        .expect("scale the StatefulSet");
    assert_eq!(scale.spec.and_then(|s| s.replicas), Some(4));
    let set = sets.get(TOPOLOGY).await.unwrap();
    assert_eq!(set.spec.replicas, Some(4));
    assert!(set.metadata.generation >= Some(2), "{:?}", set.metadata);

    // Delete the namespace: the API server marks it Terminating and refuses
    // new objects in it (NamespaceLifecycle admission)...
    namespaces
        .delete(NAMESPACE, &DeleteParams::default())
        .await
        .expect("delete the namespace");
    let ns = namespaces.get(NAMESPACE).await.unwrap();
    assert!(ns.metadata.deletion_timestamp.is_some());
    assert_eq!(
        ns.status.as_ref().and_then(|s| s.phase.as_deref()),
        Some("Terminating")
    );
    let mut late = config_maps.get(TOPOLOGY).await.unwrap();
    late.metadata = meta("late");
    match config_maps.create(&pp, &late).await {
        Err(kube::Error::Api(s)) => {
            assert_eq!(s.code, 403, "{s:?}");
            assert!(s.message.contains("being terminated"), "{s:?}");
        }
        other => panic!("an object was created in a terminating namespace: {other:?}"),
    }
    // ...but its objects stay until the namespace controller deletes them,
    // and none runs here: they are all still readable.
    config_maps
        .get(TOPOLOGY)
        .await
        .expect("the ConfigMap stays");
    sets.get(TOPOLOGY).await.expect("the StatefulSet stays");

    // So do here what that controller does: delete every object (background
    // propagation: foreground would wait for the garbage collector, which is
    // a controller too), see each one gone, then clear the finalizer.
    let dp = DeleteParams::background();
    sets.delete(TOPOLOGY, &dp)
        .await
        .expect("delete the StatefulSet");
    services
        .delete(TOPOLOGY, &dp)
        .await
        .expect("delete the Service");
    secrets
        .delete(TOPOLOGY, &dp)
        .await
        .expect("delete the Secret");
    config_maps
        .delete(TOPOLOGY, &dp)
        .await
        .expect("delete the ConfigMap");
    assert!(is_not_found(&sets.get(TOPOLOGY).await.unwrap_err()));
    assert!(is_not_found(&services.get(TOPOLOGY).await.unwrap_err()));
    assert!(is_not_found(&secrets.get(TOPOLOGY).await.unwrap_err()));
    assert!(is_not_found(&config_maps.get(TOPOLOGY).await.unwrap_err()));
    assert!(
        config_maps
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );

    let mut ns = namespaces.get(NAMESPACE).await.unwrap();
    if let Some(spec) = ns.spec.as_mut() {
        spec.finalizers = Some(Vec::new());
    }
    namespaces
        .replace_subresource("finalize", NAMESPACE, &pp, &ns)
        .await
        .expect("finalize the namespace");
    // With its last finalizer gone, the API server removes it at once.
    assert!(is_not_found(&namespaces.get(NAMESPACE).await.unwrap_err()));
}

#[test]
fn the_api_server_stores_scales_and_deletes_a_topologys_objects() {
    let plane = ControlPlane::start().expect("start etcd and kube-apiserver");
    let dir = plane.dir().to_path_buf();
    assert!(plane.kubeconfig().is_file());
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run(&plane));
    drop(plane);
    assert!(!dir.exists(), "the plane's directory is removed on drop");
    let left = egret_e2e::processes_mentioning(&dir.display().to_string());
    assert!(left.is_empty(), "still running after drop: {left:?}");
}
