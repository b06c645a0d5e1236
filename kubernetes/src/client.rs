//! Applying a topology's objects to a cluster and deleting them, through
//! the `kube` client.
//!
//! Invariants:
//! - [`apply`] creates the Secret first and the StatefulSets last (a pod
//!   never starts without its volumes); an object that exists already is an
//!   error naming it, and a failure after the first creation deletes the
//!   topology's objects (by label) again;
//! - [`delete`] removes every object labelled with the topology (ConfigMaps,
//!   Secrets, Services, StatefulSets and any pod left), with background
//!   propagation, and returns what it removed; [`remaining`] lists what is
//!   still there by the same labels.

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{ConfigMap, Pod, Secret, Service};
use kube::api::{DeleteParams, ListParams, PostParams};
use kube::{Api, Client, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::objects::{TopologyObjects, label_selector};
use crate::settings::KubernetesSettings;

/// A failed Kubernetes call, naming the object.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot read the kubeconfig {path}: {problem}")]
    Kubeconfig {
        path: std::path::PathBuf,
        problem: String,
    },
    #[error(
        "cannot find a Kubernetes cluster (set egret.kubernetes.kubeconfig or KUBECONFIG, or run in a pod): {0}"
    )]
    Infer(String),
    #[error("{kind} {namespace}/{name} exists already (another topology of this name?)")]
    Exists {
        kind: &'static str,
        namespace: String,
        name: String,
    },
    #[error("cannot {action} {kind} {namespace}/{name}: {source}")]
    Call {
        action: &'static str,
        kind: &'static str,
        namespace: String,
        name: String,
        #[source]
        source: kube::Error,
    },
}

/// A client for `settings`: its kubeconfig when set, else kube's inference
/// (`$KUBECONFIG`, `~/.kube/config`, the in-cluster service account).
pub async fn connect(settings: &KubernetesSettings) -> Result<Client, ClientError> {
    let config = match &settings.kubeconfig {
        Some(path) => {
            let fail = |problem: String| ClientError::Kubeconfig {
                path: path.clone(),
                problem,
            };
            let file =
                kube::config::Kubeconfig::read_from(path).map_err(|e| fail(e.to_string()))?;
            kube::Config::from_custom_kubeconfig(file, &Default::default())
                .await
                .map_err(|e| fail(e.to_string()))?
        }
        None => kube::Config::infer()
            .await
            .map_err(|e| ClientError::Infer(e.to_string()))?,
    };
    Client::try_from(config).map_err(|e| ClientError::Infer(e.to_string()))
}

fn kind_of<K: Resource<DynamicType = ()>>() -> &'static str {
    // The kinds used here, by name (Resource::kind is a Cow).
    match K::kind(&()).as_ref() {
        "ConfigMap" => "ConfigMap",
        "Secret" => "Secret",
        "Service" => "Service",
        "StatefulSet" => "StatefulSet",
        "Pod" => "Pod",
        _ => "object",
    }
}

async fn create<K>(client: &Client, namespace: &str, object: &K) -> Result<(), ClientError>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Serialize
        + std::fmt::Debug,
{
    let api: Api<K> = Api::namespaced(client.clone(), namespace);
    let name = object.name_any();
    match api.create(&PostParams::default(), object).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(s)) if s.code == 409 => Err(ClientError::Exists {
            kind: kind_of::<K>(),
            namespace: namespace.to_owned(),
            name,
        }),
        Err(source) => Err(ClientError::Call {
            action: "create",
            kind: kind_of::<K>(),
            namespace: namespace.to_owned(),
            name,
            source,
        }),
    }
}

/// Creates the topology's Secret and objects in `namespace`.
pub async fn apply(
    client: &Client,
    topology: &str,
    namespace: &str,
    secret: &Secret,
    objects: &TopologyObjects,
) -> Result<(), ClientError> {
    let mut created = 0usize;
    let outcome = async {
        create(client, namespace, secret).await?;
        created += 1;
        create(client, namespace, &objects.config_map).await?;
        created += 1;
        create(client, namespace, &objects.service).await?;
        created += 1;
        create(client, namespace, &objects.master).await?;
        created += 1;
        create(client, namespace, &objects.containers).await
    }
    .await;
    if let Err(e) = &outcome {
        tracing::warn!(topology, error = %e, "Creating the topology's objects failed; deleting what was created.");
        if created > 0
            && let Err(cleanup) = delete(client, topology, namespace).await
        {
            tracing::warn!(topology, error = %cleanup, "Deleting the half-created objects failed.");
        }
    }
    outcome
}

/// The pod-template annotation that names the packing plan a StatefulSet's
/// pods run: a rebalance changes it, so every pod is replaced (and restarts
/// on the new plan) even when its resources stay the same.
pub const PLAN_ANNOTATION: &str = "egret.dev/packing-plan";

/// A rebalance: the containers' StatefulSet takes `objects`' replicas and
/// pod template (resources as the new plan says), its template annotated
/// with `plan_digest`. Returns the new replica count.
pub async fn rebalance(
    client: &Client,
    namespace: &str,
    objects: &TopologyObjects,
    plan_digest: &str,
) -> Result<i32, ClientError> {
    let api: Api<StatefulSet> = Api::namespaced(client.clone(), namespace);
    let name = objects.containers.name_any();
    let call = |action| {
        let name = name.clone();
        move |source| ClientError::Call {
            action,
            kind: "StatefulSet",
            namespace: namespace.to_owned(),
            name,
            source,
        }
    };
    let mut current = api.get(&name).await.map_err(call("read"))?;
    let wanted = objects.containers.spec.clone();
    let mut template = wanted.template;
    template
        .metadata
        .get_or_insert_with(Default::default)
        .annotations
        .get_or_insert_with(Default::default)
        .insert(PLAN_ANNOTATION.to_owned(), plan_digest.to_owned());
    let replicas = wanted.replicas.unwrap_or(0);
    let spec = &mut current.spec;
    spec.replicas = Some(replicas);
    spec.template = template;
    api.replace(&name, &PostParams::default(), &current)
        .await
        .map_err(call("replace"))?;
    Ok(replicas)
}

async fn delete_all<K>(
    client: &Client,
    namespace: &str,
    selector: &str,
    removed: &mut Vec<String>,
) -> Result<(), ClientError>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + std::fmt::Debug,
{
    let api: Api<K> = Api::namespaced(client.clone(), namespace);
    let call = |action, name: &str| {
        let name = name.to_owned();
        move |source| ClientError::Call {
            action,
            kind: kind_of::<K>(),
            namespace: namespace.to_owned(),
            name,
            source,
        }
    };
    let listed = api
        .list(&ListParams::default().labels(selector))
        .await
        .map_err(call("list", selector))?;
    for object in listed.items {
        let name = object.name_any();
        match api.delete(&name, &DeleteParams::background()).await {
            Ok(_) => removed.push(format!("{}/{name}", kind_of::<K>())),
            Err(kube::Error::Api(s)) if s.code == 404 => {}
            Err(e) => return Err(call("delete", &name)(e)),
        }
    }
    Ok(())
}

/// Deletes every object of `topology` in `namespace`; returns them as `Kind/name`.
pub async fn delete(
    client: &Client,
    topology: &str,
    namespace: &str,
) -> Result<Vec<String>, ClientError> {
    let selector = label_selector(topology);
    let mut removed = Vec::new();
    // Controllers first, so nothing recreates a pod being deleted.
    delete_all::<StatefulSet>(client, namespace, &selector, &mut removed).await?;
    delete_all::<Service>(client, namespace, &selector, &mut removed).await?;
    delete_all::<ConfigMap>(client, namespace, &selector, &mut removed).await?;
    delete_all::<Secret>(client, namespace, &selector, &mut removed).await?;
    delete_all::<Pod>(client, namespace, &selector, &mut removed).await?;
    Ok(removed)
}

async fn names<K>(
    client: &Client,
    namespace: &str,
    selector: &str,
) -> Result<Vec<String>, ClientError>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + std::fmt::Debug,
{
    let api: Api<K> = Api::namespaced(client.clone(), namespace);
    let listed = api
        .list(&ListParams::default().labels(selector))
        .await
        .map_err(|source| ClientError::Call {
            action: "list",
            kind: kind_of::<K>(),
            namespace: namespace.to_owned(),
            name: selector.to_owned(),
            source,
        })?;
    Ok(listed
        .items
        .iter()
        .map(|o| format!("{}/{}", kind_of::<K>(), o.name_any()))
        .collect())
}

/// What is left of `topology` in `namespace`, as `Kind/name`.
pub async fn remaining(
    client: &Client,
    topology: &str,
    namespace: &str,
) -> Result<Vec<String>, ClientError> {
    let selector = label_selector(topology);
    let mut left = names::<StatefulSet>(client, namespace, &selector).await?;
    left.extend(names::<Service>(client, namespace, &selector).await?);
    left.extend(names::<ConfigMap>(client, namespace, &selector).await?);
    left.extend(names::<Secret>(client, namespace, &selector).await?);
    left.extend(names::<Pod>(client, namespace, &selector).await?);
    Ok(left)
}
