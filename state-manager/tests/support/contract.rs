//! What every [`StateManager`] backend must do, written once and run on each.

use std::time::Duration;

use egret_proto::v1::{
    ContainerPlan, InstancePlan, PackingPlan, PhysicalPlan, StreamManagerLocation, Topology,
    TopologyState,
};
use egret_state_manager::{MasterWatch, StateManager, StateManagerError};
use egret_transport::Endpoint;

/// Bounds every wait on a watch.
pub const WATCH_WAIT: Duration = Duration::from_secs(10);

pub fn topology(name: &str, id: &str) -> Topology {
    Topology {
        name: name.into(),
        id: id.into(),
        config_json: r#"{"topology.workers":2}"#.into(),
        storm_version: "2.8.9".into(),
        ..Default::default()
    }
}

pub fn packing_plan(id: &str) -> PackingPlan {
    PackingPlan {
        topology_id: id.into(),
        containers: vec![ContainerPlan {
            index: 1,
            instances: vec![InstancePlan {
                instance_id: "word-0".into(),
                component: "word".into(),
                executor_index: 0,
                task_ids: vec![1, 2],
                heap_mb: 128,
                cpu_percent: 0.0,
            }],
        }],
    }
}

pub fn physical_plan(id: &str) -> PhysicalPlan {
    PhysicalPlan {
        topology_id: id.into(),
        packing: Some(packing_plan(id)),
        stream_managers: vec![StreamManagerLocation {
            container_index: 1,
            host: "127.0.0.1".into(),
            data_port: 40001,
        }],
        state: TopologyState::Running as i32,
        debug: Vec::new(),
        log_levels: Vec::new(),
    }
}

pub fn addr(port: u16) -> Endpoint {
    std::net::SocketAddr::from(([127, 0, 0, 1], port)).into()
}

/// A location by host name, as a Kubernetes pod advertises it.
pub fn named(port: u16) -> Endpoint {
    format!("egret-master-0.wc.egret.test:{port}")
        .parse()
        .expect("a valid host name")
}

/// Every object: absent, put, read back, replaced, deleted (twice).
pub async fn round_trip_of_every_object(sm: &impl StateManager) {
    assert_eq!(sm.get_topology("rt").await.unwrap(), None);
    assert_eq!(sm.get_packing_plan("rt").await.unwrap(), None);
    assert_eq!(sm.get_physical_plan("rt").await.unwrap(), None);

    let first = topology("rt", "rt-1-1");
    sm.put_topology(&first).await.unwrap();
    assert_eq!(sm.get_topology("rt").await.unwrap(), Some(first));
    let second = topology("rt", "rt-2-2");
    sm.put_topology(&second).await.unwrap();
    assert_eq!(sm.get_topology("rt").await.unwrap(), Some(second));

    sm.put_packing_plan("rt", &packing_plan("rt-2-2"))
        .await
        .unwrap();
    assert_eq!(
        sm.get_packing_plan("rt").await.unwrap(),
        Some(packing_plan("rt-2-2"))
    );
    sm.put_physical_plan("rt", &physical_plan("rt-2-2"))
        .await
        .unwrap();
    let mut updated = physical_plan("rt-2-2");
    updated.state = TopologyState::Deactivated as i32;
    sm.put_physical_plan("rt", &updated).await.unwrap();
    assert_eq!(sm.get_physical_plan("rt").await.unwrap(), Some(updated));

    sm.delete_physical_plan("rt").await.unwrap();
    sm.delete_packing_plan("rt").await.unwrap();
    sm.delete_topology("rt").await.unwrap();
    assert_eq!(sm.get_topology("rt").await.unwrap(), None);
    assert_eq!(sm.get_packing_plan("rt").await.unwrap(), None);
    assert_eq!(sm.get_physical_plan("rt").await.unwrap(), None);
    // Deleting what is not there succeeds.
    sm.delete_topology("rt").await.unwrap();
    sm.delete_physical_plan("rt").await.unwrap();
}

/// Listing names the stored topologies, sorted, and only those.
pub async fn listing(sm: &impl StateManager) {
    assert!(sm.topology_names().await.unwrap().is_empty());
    for name in ["zeta", "alpha", "mid"] {
        sm.put_topology(&topology(name, &format!("{name}-1-1")))
            .await
            .unwrap();
    }
    // A plan alone does not make a topology.
    sm.put_packing_plan("orphan", &packing_plan("orphan-1-1"))
        .await
        .unwrap();
    assert_eq!(
        sm.topology_names().await.unwrap(),
        vec!["alpha".to_string(), "mid".into(), "zeta".into()]
    );
    sm.delete_topology("mid").await.unwrap();
    assert_eq!(
        sm.topology_names().await.unwrap(),
        vec!["alpha".to_string(), "zeta".into()]
    );
}

/// A name outside Storm's rule never names a file or a node.
pub async fn bad_names_are_refused(sm: &impl StateManager) {
    for name in ["", "a/b", "..", "x.y", "a:b"] {
        let err = sm.get_topology(name).await.unwrap_err();
        assert!(
            matches!(err, StateManagerError::BadName(_)),
            "{name:?}: {err}"
        );
        let err = sm.register_master(name, addr(1)).await.unwrap_err();
        assert!(
            matches!(err, StateManagerError::BadName(_)),
            "{name:?}: {err}"
        );
    }
    let err = sm.put_topology(&topology("../up", "x")).await.unwrap_err();
    assert!(err.to_string().contains("../up"), "{err}");
}

/// One live master per topology; release lets the next one register.
pub async fn register_master_is_exclusive(sm: &impl StateManager, other: &impl StateManager) {
    assert_eq!(sm.master_location("ex").await.unwrap(), None);
    let first = sm.register_master("ex", addr(7001)).await.unwrap();
    assert_eq!(first.location(), &addr(7001));
    assert_eq!(first.topology(), "ex");
    assert_eq!(sm.master_location("ex").await.unwrap(), Some(addr(7001)));
    assert_eq!(other.master_location("ex").await.unwrap(), Some(addr(7001)));

    for candidate in [
        other.register_master("ex", addr(7002)).await,
        sm.register_master("ex", addr(7003)).await,
    ] {
        match candidate {
            Err(StateManagerError::MasterAlreadyRegistered { topology, holder }) => {
                assert_eq!(topology, "ex");
                assert_eq!(holder, "127.0.0.1:7001");
            }
            other => panic!("a second registration must fail, got {other:?}"),
        }
    }
    // Another topology is independent.
    let unrelated = other.register_master("ex2", addr(7010)).await.unwrap();
    assert_eq!(sm.master_location("ex").await.unwrap(), Some(addr(7001)));

    first.release().await.unwrap();
    assert_eq!(sm.master_location("ex").await.unwrap(), None);
    let second = other.register_master("ex", addr(7002)).await.unwrap();
    assert_eq!(sm.master_location("ex").await.unwrap(), Some(addr(7002)));
    second.release().await.unwrap();
    unrelated.release().await.unwrap();
}

/// Waits (bounded) for the watch's next value.
pub async fn next(watch: &mut MasterWatch) -> Option<Endpoint> {
    tokio::time::timeout(WATCH_WAIT, watch.changed())
        .await
        .expect("the watch yielded nothing within 10 s")
        .unwrap()
}

/// The watch starts with the current location and follows a takeover.
pub async fn watch_follows_a_takeover(sm: &impl StateManager, other: &impl StateManager) {
    let mut watch = other.watch_master("tw").await.unwrap();
    assert_eq!(watch.current().unwrap(), None);

    let first = sm.register_master("tw", addr(7101)).await.unwrap();
    assert_eq!(next(&mut watch).await, Some(addr(7101)));
    assert_eq!(watch.current().unwrap(), Some(addr(7101)));

    first.release().await.unwrap();
    assert_eq!(next(&mut watch).await, None);

    let second = sm.register_master("tw", addr(7102)).await.unwrap();
    assert_eq!(next(&mut watch).await, Some(addr(7102)));

    // A watch opened now starts at the live master.
    let late = other.watch_master("tw").await.unwrap();
    assert_eq!(late.current().unwrap(), Some(addr(7102)));
    second.release().await.unwrap();
    assert_eq!(next(&mut watch).await, None);

    // A master advertised by host name is stored and followed as the name.
    let third = sm.register_master("tw", named(7103)).await.unwrap();
    assert_eq!(next(&mut watch).await, Some(named(7103)));
    assert_eq!(
        other.master_location("tw").await.unwrap(),
        Some(named(7103))
    );
    third.release().await.unwrap();
}

/// A package goes back and forth byte for byte, is replaced whole (also by a
/// smaller one), and is gone once deleted. `big` is large enough to span
/// several ZooKeeper nodes with the caller's options.
pub async fn packages_round_trip(sm: &impl StateManager, big: usize) {
    sm.put_topology(&topology("pkg", "pkg-1-1")).await.unwrap();
    assert_eq!(sm.get_package("pkg").await.unwrap(), None);
    let large: Vec<u8> = (0..big).map(|i| (i * 7 + i / 251) as u8).collect();
    sm.put_package("pkg", &large).await.unwrap();
    assert_eq!(
        sm.get_package("pkg").await.unwrap().as_deref(),
        Some(&large[..])
    );
    let small = b"PK\x03\x04 a smaller jar".to_vec();
    sm.put_package("pkg", &small).await.unwrap();
    assert_eq!(sm.get_package("pkg").await.unwrap(), Some(small));
    sm.put_package("pkg", b"").await.unwrap();
    assert_eq!(sm.get_package("pkg").await.unwrap(), Some(Vec::new()));
    sm.delete_package("pkg").await.unwrap();
    assert_eq!(sm.get_package("pkg").await.unwrap(), None);
    sm.delete_package("pkg").await.unwrap();
    assert!(sm.get_package("../x").await.is_err(), "names are checked");
    sm.delete_topology("pkg").await.unwrap();
}
