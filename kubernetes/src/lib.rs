//! The Kubernetes side of the Kubernetes scheduler: a topology's objects
//! built from its packing plan ([`objects`]), the `egret.kubernetes.*`
//! settings ([`settings`]), and applying and deleting them ([`client`]).
//! What the pods run is the multi-host roles (`egret tmaster|container
//! --topology NAME`), with ZooKeeper as the state manager; see
//! docs/kubernetes.md.

pub mod client;
pub mod objects;
pub mod settings;

pub use client::{ClientError, apply, connect, delete, remaining};
pub use objects::{TopologyInput, TopologyObjects, ZooKeeper, build, object_base, secret, to_yaml};
pub use settings::KubernetesSettings;
pub mod scheduler;
pub use scheduler::KubernetesScheduler;
