//! The objects of one topology, built from its packing plan (no I/O here).
//!
//! Invariants:
//! - every object carries [`MANAGED_BY`]`: egret` and [`TOPOLOGY_LABEL`]`: <base>`
//!   (the topology's object name), so a kill finds them all by label;
//! - the containers' StatefulSet has one replica per container of the plan;
//!   a pod's container index is its ordinal + 1, read by the process from
//!   the downward-API label [`POD_INDEX_LABEL`] (`--ordinal`);
//! - the master runs in its own StatefulSet of one, apart from the containers;
//! - no secret is in any argument or environment variable: the credentials
//!   are the Secret's files, mounted read-only with mode 0400 at
//!   [`CREDENTIALS_PATH`]; the config the processes need is the ConfigMap's
//!   `egret.yaml`, mounted at [`CONFIG_PATH`];
//! - a container pod requests (and is limited to) the memory its packing
//!   plan gives its instances (heap + `egret.isolation.jvm.overhead.mb`
//!   each) plus the stream manager's; it requests the CPU its instances
//!   declared (Storm's 10 % hint for one that declared none) plus a tenth of
//!   a core for the stream manager, and has no CPU limit.

use std::collections::BTreeMap;

use egret_proto::v1::{ContainerPlan, PackingPlan};
use k8s_openapi::ByteString;
use k8s_openapi::api::apps::v1::{StatefulSet, StatefulSetSpec};
use k8s_openapi::api::core::v1::{
    ConfigMap, ConfigMapVolumeSource, Container, ContainerPort, EnvVar, EnvVarSource,
    HTTPGetAction, ObjectFieldSelector, PodSpec, PodTemplateSpec, Probe, ResourceRequirements,
    Secret, SecretVolumeSource, Service, ServicePort, ServiceSpec, Volume, VolumeMount,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use sha2::{Digest, Sha256};

use crate::settings::KubernetesSettings;

pub const MANAGED_BY_KEY: &str = "app.kubernetes.io/managed-by";
pub const MANAGED_BY: &str = "egret";
/// The label naming the topology (its object name, [`object_base`]).
pub const TOPOLOGY_LABEL: &str = "egret.dev/topology";
/// `master` or `container`.
pub const ROLE_LABEL: &str = "egret.dev/role";
/// The annotation holding the topology's own name (labels cannot hold every name).
pub const TOPOLOGY_NAME_ANNOTATION: &str = "egret.dev/topology-name";
/// The label a StatefulSet's controller puts on each pod: its ordinal.
pub const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";

/// Where the ConfigMap is mounted; the processes read `egret.yaml` there.
pub const CONFIG_PATH: &str = "/etc/egret/config";
/// The ConfigMap's one key.
pub const CONFIG_FILE: &str = "egret.yaml";
/// Where the Secret (the credentials directory's files) is mounted.
pub const CREDENTIALS_PATH: &str = "/etc/egret/credentials";
/// The pod's work directory (an emptyDir): the fetched jar, logs, metrics.
pub const WORK_PATH: &str = "/var/lib/egret";
/// The program the pods run: `egret`, on the image's `PATH`.
pub const PROGRAM: &str = "egret";

/// The downward-API variables the pods get.
pub const ENV_POD_NAME: &str = "EGRET_POD_NAME";
pub const ENV_POD_IP: &str = "EGRET_POD_IP";
pub const ENV_POD_ORDINAL: &str = "EGRET_POD_ORDINAL";

/// Storm's topology-wide CPU hint (percent of a core) for an instance whose
/// component declared no load: requested, never limited.
pub const DEFAULT_INSTANCE_CPU_PERCENT: f64 = 10.0;
/// The stream manager's CPU request, millicores.
pub const STMGR_CPU_MILLIS: u64 = 100;
/// The master's CPU request, millicores.
pub const MASTER_CPU_MILLIS: u64 = 100;
/// The Secret files' mode: the credentials loader refuses group or other bits.
pub const SECRET_MODE: i32 = 0o400;

/// What the pods are told about the state manager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZooKeeper {
    pub servers: String,
    pub root: String,
}

/// A topology to build the objects of.
#[derive(Debug, Clone)]
pub struct TopologyInput<'a> {
    pub name: &'a str,
    pub plan: &'a PackingPlan,
    /// `egret.isolation.jvm.overhead.mb` of the topology's settings.
    pub jvm_overhead_mb: u32,
    pub zookeeper: &'a ZooKeeper,
}

/// The objects of one topology, in the order they are created.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyObjects {
    pub config_map: ConfigMap,
    pub service: Service,
    pub master: StatefulSet,
    pub containers: StatefulSet,
}

/// The name every object of topology `name` derives from: `egret-` and the
/// name when it is a short DNS label already; else its letters and digits
/// lowercased, other characters `-`, at most 24 of them, and 8 hex digits of
/// the name's SHA-256 (so two names that map alike stay distinct). At most
/// 39 characters: `<base>-master-0` and the controller's revision labels fit
/// in 63.
pub fn object_base(name: &str) -> String {
    let mapped: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let trimmed = mapped.trim_matches('-');
    if trimmed == name && trimmed.len() <= 32 {
        return format!("egret-{trimmed}");
    }
    let short: String = trimmed.chars().take(24).collect();
    let short = short.trim_end_matches('-');
    let hash = hex::encode(&Sha256::digest(name.as_bytes())[..4]);
    if short.is_empty() {
        format!("egret-{hash}")
    } else {
        format!("egret-{short}-{hash}")
    }
}

/// The Secret's name for topology `name` (what `kubectl create secret` must use).
pub fn secret_name(name: &str) -> String {
    format!("{}-credentials", object_base(name))
}

/// The labels every object of the topology carries; also the selector that finds them.
pub fn topology_labels(name: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        (MANAGED_BY_KEY.to_owned(), MANAGED_BY.to_owned()),
        (TOPOLOGY_LABEL.to_owned(), object_base(name)),
    ])
}

/// `key=value,...` of [`topology_labels`], for list and delete calls.
pub fn label_selector(name: &str) -> String {
    topology_labels(name)
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn role_labels(name: &str, role: &str) -> BTreeMap<String, String> {
    let mut labels = topology_labels(name);
    labels.insert(ROLE_LABEL.to_owned(), role.to_owned());
    labels
}

fn meta(name: &str, object: String, labels: BTreeMap<String, String>, ns: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(object),
        namespace: Some(ns.to_owned()),
        labels: Some(labels),
        annotations: Some(BTreeMap::from([(
            TOPOLOGY_NAME_ANNOTATION.to_owned(),
            name.to_owned(),
        )])),
        ..ObjectMeta::default()
    }
}

/// The text of the ConfigMap's `egret.yaml`: the state manager keys and the
/// health port, which every pod's process reads with `--config`.
pub fn config_file(zookeeper: &ZooKeeper, settings: &KubernetesSettings) -> String {
    let quote = |s: &str| serde_json::Value::String(s.to_owned()).to_string();
    format!(
        "# Written by egret for its pods; the processes read it with --config.\n\
         {}: zookeeper\n{}: {}\n{}: {}\n{}: {}\n",
        egret_config::state::STATE_MANAGER,
        egret_config::state::ZOOKEEPER_SERVERS,
        quote(&zookeeper.servers),
        egret_config::state::ZOOKEEPER_ROOT,
        quote(&zookeeper.root),
        crate::settings::HEALTH_PORT,
        settings.health_port,
    )
}

/// The Secret holding a credentials directory's files (`token`, `ca.pem`,
/// `cert.pem`, `key.pem`), as `data`.
pub fn secret(
    name: &str,
    settings: &KubernetesSettings,
    files: BTreeMap<String, Vec<u8>>,
) -> Secret {
    Secret {
        metadata: meta(
            name,
            secret_name(name),
            topology_labels(name),
            &settings.namespace,
        ),
        type_: Some("Opaque".to_owned()),
        data: Some(files.into_iter().map(|(k, v)| (k, ByteString(v))).collect()),
        ..Secret::default()
    }
}

/// A `$` written as `$$`, so the kubelet's `$(VAR)` expansion leaves it.
fn literal(arg: &str) -> String {
    arg.replace('$', "$$")
}

fn field_env(var: &str, path: &str) -> EnvVar {
    EnvVar {
        name: var.to_owned(),
        value_from: Some(EnvVarSource {
            field_ref: Some(ObjectFieldSelector {
                field_path: path.to_owned(),
                ..ObjectFieldSelector::default()
            }),
            ..EnvVarSource::default()
        }),
        ..EnvVar::default()
    }
}

fn probe(path: &str, period: i32, failures: i32) -> Probe {
    Probe {
        http_get: Some(HTTPGetAction {
            path: Some(path.to_owned()),
            port: IntOrString::String("health".to_owned()),
            ..HTTPGetAction::default()
        }),
        period_seconds: Some(period),
        failure_threshold: Some(failures),
        timeout_seconds: Some(2),
        ..Probe::default()
    }
}

fn mb(n: u64) -> Quantity {
    Quantity(format!("{n}Mi"))
}

fn millis(n: u64) -> Quantity {
    Quantity(format!("{n}m"))
}

/// Memory (MB) and CPU (millicores) a container pod requests.
pub fn container_resources(
    container: &ContainerPlan,
    jvm_overhead_mb: u32,
    stmgr_memory_mb: u32,
) -> (u64, u64) {
    let mut memory = u64::from(stmgr_memory_mb);
    let mut cpu_percent = 0.0;
    for instance in &container.instances {
        memory += u64::try_from(instance.heap_mb.max(0)).unwrap_or(0) + u64::from(jvm_overhead_mb);
        cpu_percent += if instance.cpu_percent > 0.0 {
            instance.cpu_percent
        } else {
            DEFAULT_INSTANCE_CPU_PERCENT
        };
    }
    // Percent of a core to millicores, rounded up.
    let cpu = (cpu_percent * 10.0).ceil().max(0.0);
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "non-negative and far below u64::MAX: a sum of declared percents"
    )]
    let cpu = cpu as u64;
    (memory, cpu + STMGR_CPU_MILLIS)
}

/// The largest pod request of the plan's containers: a StatefulSet's pods
/// share one template, so each asks for what the biggest container needs.
fn largest_container(input: &TopologyInput<'_>, settings: &KubernetesSettings) -> (u64, u64) {
    input
        .plan
        .containers
        .iter()
        .map(|c| container_resources(c, input.jvm_overhead_mb, settings.stmgr_memory_mb))
        .fold(
            (u64::from(settings.stmgr_memory_mb), STMGR_CPU_MILLIS),
            |a, b| (a.0.max(b.0), a.1.max(b.1)),
        )
}

/// Whether every instance of the plan declared a CPU load (`setCPULoad`):
/// then the containers' pods are limited to the CPU they request, as the
/// local scheduler limits each such instance's cgroup; an instance without a
/// declared load has no CPU limit there, so its pod has none either.
pub fn cpu_declared_by_all(plan: &PackingPlan) -> bool {
    plan.containers
        .iter()
        .flat_map(|c| &c.instances)
        .all(|i| i.cpu_percent > 0.0)
}

/// `cpu_limited`: the CPU request is also the pod's CPU limit.
fn pod(
    input: &TopologyInput<'_>,
    settings: &KubernetesSettings,
    role: &str,
    args: Vec<String>,
    env: Vec<EnvVar>,
    (memory_mb, cpu_millis): (u64, u64),
    cpu_limited: bool,
) -> PodTemplateSpec {
    let mut limits = BTreeMap::from([("memory".to_owned(), mb(memory_mb))]);
    if cpu_limited {
        limits.insert("cpu".to_owned(), millis(cpu_millis));
    }
    let name = input.name;
    let container = Container {
        name: role.to_owned(),
        image: Some(settings.image.clone()),
        image_pull_policy: settings.image_pull_policy.clone(),
        command: Some(vec![PROGRAM.to_owned()]),
        args: Some(args),
        env: Some(env),
        ports: Some(vec![ContainerPort {
            name: Some("health".to_owned()),
            container_port: i32::from(settings.health_port),
            ..ContainerPort::default()
        }]),
        liveness_probe: Some(Probe {
            initial_delay_seconds: Some(10),
            ..probe("/healthz", 10, 3)
        }),
        readiness_probe: Some(probe("/readyz", 5, 1)),
        resources: Some(ResourceRequirements {
            requests: Some(BTreeMap::from([
                ("cpu".to_owned(), millis(cpu_millis)),
                ("memory".to_owned(), mb(memory_mb)),
            ])),
            limits: Some(limits),
            ..ResourceRequirements::default()
        }),
        volume_mounts: Some(vec![
            VolumeMount {
                name: "config".to_owned(),
                mount_path: CONFIG_PATH.to_owned(),
                read_only: Some(true),
                ..VolumeMount::default()
            },
            VolumeMount {
                name: "credentials".to_owned(),
                mount_path: CREDENTIALS_PATH.to_owned(),
                read_only: Some(true),
                ..VolumeMount::default()
            },
            VolumeMount {
                name: "work".to_owned(),
                mount_path: WORK_PATH.to_owned(),
                ..VolumeMount::default()
            },
        ]),
        ..Container::default()
    };
    let base = object_base(name);
    PodTemplateSpec {
        metadata: Some(ObjectMeta {
            labels: Some(role_labels(name, role)),
            annotations: Some(BTreeMap::from([(
                TOPOLOGY_NAME_ANNOTATION.to_owned(),
                name.to_owned(),
            )])),
            ..ObjectMeta::default()
        }),
        spec: Some(PodSpec {
            containers: vec![container],
            service_account_name: settings.service_account.clone(),
            // The processes never call the Kubernetes API.
            automount_service_account_token: Some(false),
            termination_grace_period_seconds: Some(30),
            volumes: Some(vec![
                Volume {
                    name: "config".to_owned(),
                    config_map: Some(ConfigMapVolumeSource {
                        name: format!("{base}-config"),
                        ..ConfigMapVolumeSource::default()
                    }),
                    ..Volume::default()
                },
                Volume {
                    name: "credentials".to_owned(),
                    secret: Some(SecretVolumeSource {
                        secret_name: Some(secret_name(name)),
                        default_mode: Some(SECRET_MODE),
                        ..SecretVolumeSource::default()
                    }),
                    ..Volume::default()
                },
                Volume {
                    name: "work".to_owned(),
                    empty_dir: Some(Default::default()),
                    ..Volume::default()
                },
            ]),
            ..PodSpec::default()
        }),
    }
}

/// The arguments every role shares after its verb.
fn common_args(name: &str) -> Vec<String> {
    vec![
        "--config".to_owned(),
        format!("{CONFIG_PATH}/{CONFIG_FILE}"),
        "--topology".to_owned(),
        literal(name),
        "--credentials".to_owned(),
        CREDENTIALS_PATH.to_owned(),
        "--work-dir".to_owned(),
        WORK_PATH.to_owned(),
        "--bind".to_owned(),
        format!("$({ENV_POD_IP})"),
    ]
}

fn stateful_set(
    input: &TopologyInput<'_>,
    settings: &KubernetesSettings,
    object: String,
    role: &str,
    replicas: i32,
    template: PodTemplateSpec,
) -> StatefulSet {
    StatefulSet {
        metadata: meta(
            input.name,
            object,
            role_labels(input.name, role),
            &settings.namespace,
        ),
        spec: StatefulSetSpec {
            replicas: Some(replicas),
            service_name: Some(object_base(input.name)),
            // Containers wait for each other through the master: none needs
            // another to be ready before it starts.
            pod_management_policy: Some("Parallel".to_owned()),
            selector: LabelSelector {
                match_labels: Some(role_labels(input.name, role)),
                ..LabelSelector::default()
            },
            template,
            ..StatefulSetSpec::default()
        },
        ..StatefulSet::default()
    }
}

/// Builds the objects of `input` (the Secret apart: [`secret`]).
pub fn build(input: &TopologyInput<'_>, settings: &KubernetesSettings) -> TopologyObjects {
    let name = input.name;
    let base = object_base(name);
    let ns = &settings.namespace;
    let config_map = ConfigMap {
        metadata: meta(name, format!("{base}-config"), topology_labels(name), ns),
        data: Some(BTreeMap::from([(
            CONFIG_FILE.to_owned(),
            config_file(input.zookeeper, settings),
        )])),
        ..ConfigMap::default()
    };
    let service = Service {
        metadata: meta(name, base.clone(), topology_labels(name), ns),
        spec: Some(ServiceSpec {
            cluster_ip: Some("None".to_owned()),
            // Peers dial pod IPs they read from ZooKeeper; the names are for
            // operators, and a pod needs its name before it is ready.
            publish_not_ready_addresses: Some(true),
            selector: Some(topology_labels(name)),
            ports: Some(vec![ServicePort {
                name: Some("health".to_owned()),
                port: i32::from(settings.health_port),
                target_port: Some(IntOrString::String("health".to_owned())),
                ..ServicePort::default()
            }]),
            ..ServiceSpec::default()
        }),
        ..Service::default()
    };
    let env = |ordinal: bool| {
        let mut env = vec![
            field_env(ENV_POD_NAME, "metadata.name"),
            field_env(ENV_POD_IP, "status.podIP"),
        ];
        if ordinal {
            env.push(field_env(
                ENV_POD_ORDINAL,
                &format!("metadata.labels['{POD_INDEX_LABEL}']"),
            ));
        }
        env.push(EnvVar {
            name: "EGRET_HOME".to_owned(),
            value: Some(WORK_PATH.to_owned()),
            ..EnvVar::default()
        });
        env
    };

    let mut master_args = vec!["tmaster".to_owned()];
    master_args.extend(common_args(name));
    let master_template = pod(
        input,
        settings,
        "master",
        master_args,
        env(false),
        (u64::from(settings.master_memory_mb), MASTER_CPU_MILLIS),
        false,
    );
    let master = stateful_set(
        input,
        settings,
        format!("{base}-master"),
        "master",
        1,
        master_template,
    );

    let mut container_args = vec!["container".to_owned()];
    container_args.extend(common_args(name));
    container_args.extend(["--ordinal".to_owned(), format!("$({ENV_POD_ORDINAL})")]);
    let container_template = pod(
        input,
        settings,
        "container",
        container_args,
        env(true),
        largest_container(input, settings),
        cpu_declared_by_all(input.plan),
    );
    let replicas = i32::try_from(input.plan.containers.len()).unwrap_or(i32::MAX);
    let containers = stateful_set(
        input,
        settings,
        base,
        "container",
        replicas,
        container_template,
    );
    TopologyObjects {
        config_map,
        service,
        master,
        containers,
    }
}

/// The objects as one YAML stream (`---` between documents), for GitOps:
/// the Secret is never printed (its data is the topology's key material);
/// a comment says how to create it from the credentials directory.
pub fn to_yaml(
    name: &str,
    objects: &TopologyObjects,
    namespace: &str,
) -> Result<String, serde_saphyr::SerializeError> {
    let mut out = format!(
        "# The Kubernetes objects of topology {name:?}, made by egret.\n\
         # The pods mount the Secret {secret} (not printed: it holds the topology's key material).\n\
         # Create it from the credentials directory egret jar wrote:\n\
         #   kubectl -n {namespace} create secret generic {secret} --from-file=$EGRET_HOME/credentials/{name}/\n\
         #   kubectl -n {namespace} label secret {secret} {selector}\n",
        secret = secret_name(name),
        selector = label_selector(name).replace(',', " "),
    );
    let docs = [
        serde_saphyr::to_string(&objects.config_map)?,
        serde_saphyr::to_string(&objects.service)?,
        serde_saphyr::to_string(&objects.master)?,
        serde_saphyr::to_string(&objects.containers)?,
    ];
    for doc in docs {
        out.push_str("---\n");
        out.push_str(&doc);
        if !doc.ends_with('\n') {
            out.push('\n');
        }
    }
    Ok(out)
}
