//! The ZooKeeper backend against a real server (Debian's `zookeeper`
//! package, started per test on a free port; see
//! `egret_state_manager::test_support`). Without
//! the package these tests fail, saying how to install it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/contract.rs"]
mod contract;

use std::time::{Duration, Instant};

use contract::{addr, next, packing_plan, physical_plan, topology};
use egret_proto::v1::Topology;
use egret_state_manager::test_support::{ZkServer, ZkServerError};
use egret_state_manager::{StateManager, StateManagerError, ZkOptions, ZkStateManager};
use prost::Message;

/// The environment variable that turns `child_master` into a master process.
const CHILD_SERVERS: &str = "EGRET_TEST_ZK_CHILD_SERVERS";

fn options() -> ZkOptions {
    ZkOptions {
        session_timeout: Duration::from_secs(2),
        connect_timeout: Duration::from_secs(5),
        operation_timeout: Duration::from_secs(3),
        ..ZkOptions::default()
    }
}

async fn connect(server: &ZkServer, root: &str) -> ZkStateManager {
    ZkStateManager::connect(&server.servers(), root, options())
        .await
        .unwrap_or_else(|e| panic!("{e}; the server's log:\n{}", server.log()))
}

#[tokio::test]
async fn the_backend_contract_holds() {
    let server = ZkServer::start().unwrap();
    let a = connect(&server, "/egret").await;
    let b = connect(&server, "/egret").await;
    contract::round_trip_of_every_object(&a).await;
    contract::bad_names_are_refused(&a).await;
    contract::register_master_is_exclusive(&a, &b).await;
    contract::watch_follows_a_takeover(&a, &b).await;
    contract::packages_round_trip(&a, 3 * 1024 * 1024 + 17).await;
    // Listing on a root of its own, which connect creates.
    let listed = connect(&server, "/other/egret").await;
    contract::listing(&listed).await;
}

#[tokio::test]
async fn nodes_are_laid_out_as_heron_lays_them() {
    let server = ZkServer::start().unwrap();
    let sm = connect(&server, "/egret").await;
    let t = topology("wc", "wc-1-1");
    sm.put_topology(&t).await.unwrap();
    sm.put_packing_plan("wc", &packing_plan("wc-1-1"))
        .await
        .unwrap();
    sm.put_physical_plan("wc", &physical_plan("wc-1-1"))
        .await
        .unwrap();
    let registration = sm.register_master("wc", addr(7300)).await.unwrap();

    let raw = zookeeper_client::Client::connect(&server.servers())
        .await
        .unwrap();
    let (data, stat) = raw.get_data("/egret/topologies/wc").await.unwrap();
    assert_eq!(Topology::decode(data.as_slice()).unwrap(), t);
    assert_eq!(stat.ephemeral_owner, 0, "a topology is persistent");
    let (data, _) = raw.get_data("/egret/packingplans/wc").await.unwrap();
    assert_eq!(data, packing_plan("wc-1-1").encode_to_vec());
    let (data, _) = raw.get_data("/egret/pplans/wc").await.unwrap();
    assert_eq!(data, physical_plan("wc-1-1").encode_to_vec());
    let (data, stat) = raw.get_data("/egret/tmasters/wc").await.unwrap();
    assert_eq!(data, b"127.0.0.1:7300");
    assert_ne!(stat.ephemeral_owner, 0, "the master's node is ephemeral");
    registration.release().await.unwrap();
    assert_eq!(raw.check_stat("/egret/tmasters/wc").await.unwrap(), None);

    // Garbage in a node is an error naming the node and the servers.
    raw.set_data("/egret/pplans/wc", b"\xff\xff\xff", None)
        .await
        .unwrap();
    let err = sm.get_physical_plan("wc").await.unwrap_err().to_string();
    assert!(err.contains("/egret/pplans/wc"), "{err}");
    assert!(err.contains(&server.servers()), "{err}");
    assert!(err.contains("physical plan"), "{err}");
}

/// When the first master's session closes (its process drops every client,
/// without releasing), ZooKeeper deletes its node: the watch sees no master,
/// and a second master registers and is followed.
#[tokio::test]
async fn a_closed_session_frees_the_master_for_a_takeover() {
    let server = ZkServer::start().unwrap();
    let first = connect(&server, "/egret").await;
    let second = connect(&server, "/egret").await;
    let follower = connect(&server, "/egret").await;
    let mut watch = follower.watch_master("eph").await.unwrap();

    let registration = first.register_master("eph", addr(7201)).await.unwrap();
    assert_eq!(next(&mut watch).await, Some(addr(7201)));
    assert!(matches!(
        second.register_master("eph", addr(7202)).await,
        Err(StateManagerError::MasterAlreadyRegistered { .. })
    ));

    drop(registration);
    drop(first);
    assert_eq!(next(&mut watch).await, None);
    let _taken = second.register_master("eph", addr(7202)).await.unwrap();
    assert_eq!(next(&mut watch).await, Some(addr(7202)));
    assert_eq!(
        follower.master_location("eph").await.unwrap(),
        Some(addr(7202))
    );
}

/// Not a test of its own: the master process of `a_killed_master_expires`,
/// run by it as a child (it does nothing without the environment variable).
#[tokio::test]
#[ignore = "run as a child process by a_killed_master_expires_and_is_replaced"]
async fn child_master() {
    let Ok(servers) = std::env::var(CHILD_SERVERS) else {
        return;
    };
    let sm = ZkStateManager::connect(&servers, "/egret", options())
        .await
        .unwrap();
    let _registration = sm.register_master("crash", addr(7401)).await.unwrap();
    println!("registered");
    tokio::time::sleep(Duration::from_secs(600)).await;
}

/// A master process killed with SIGKILL never closes its session: its node
/// lasts until the session expires, then a new master takes over.
#[tokio::test]
async fn a_killed_master_expires_and_is_replaced() {
    let server = ZkServer::start().unwrap();
    let follower = connect(&server, "/egret").await;
    let mut watch = follower.watch_master("crash").await.unwrap();
    let mut command = std::process::Command::new(std::env::current_exe().unwrap());
    egret_supervisor::set_parent_death_signal(&mut command);
    let mut child = command
        .args(["--exact", "child_master", "--ignored", "--nocapture"])
        .env(CHILD_SERVERS, server.servers())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let registered = next(&mut watch).await;
    assert_eq!(registered, Some(addr(7401)), "{}", server.log());
    assert!(matches!(
        follower.register_master("crash", addr(7402)).await,
        Err(StateManagerError::MasterAlreadyRegistered { .. })
    ));

    child.kill().unwrap();
    child.wait().unwrap();
    let killed = Instant::now();
    assert_eq!(next(&mut watch).await, None);
    let waited = killed.elapsed();
    assert!(
        waited >= Duration::from_millis(1000),
        "the node went after {waited:?}: it should last until the session (2 s) expires"
    );
    let _new = follower.register_master("crash", addr(7402)).await.unwrap();
    assert_eq!(next(&mut watch).await, Some(addr(7402)));
}

#[tokio::test]
async fn plans_survive_the_client_that_wrote_them() {
    let server = ZkServer::start().unwrap();
    let writer = connect(&server, "/egret").await;
    writer
        .put_topology(&topology("keep", "keep-1-1"))
        .await
        .unwrap();
    writer
        .put_packing_plan("keep", &packing_plan("keep-1-1"))
        .await
        .unwrap();
    writer
        .put_physical_plan("keep", &physical_plan("keep-1-1"))
        .await
        .unwrap();
    let registration = writer.register_master("keep", addr(7501)).await.unwrap();
    drop(registration);
    drop(writer);

    let reader = connect(&server, "/egret").await;
    assert_eq!(
        reader.get_topology("keep").await.unwrap(),
        Some(topology("keep", "keep-1-1"))
    );
    assert_eq!(
        reader.get_packing_plan("keep").await.unwrap(),
        Some(packing_plan("keep-1-1"))
    );
    assert_eq!(
        reader.get_physical_plan("keep").await.unwrap(),
        Some(physical_plan("keep-1-1"))
    );
    assert_eq!(reader.topology_names().await.unwrap(), vec!["keep"]);
}

#[tokio::test]
async fn no_server_is_an_error_naming_the_servers_in_bounded_time() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let servers = format!("127.0.0.1:{port}");
    let started = Instant::now();
    let err = ZkStateManager::connect(&servers, "/egret", options())
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(7),
        "{:?}",
        started.elapsed()
    );
    let text = err.to_string();
    assert!(
        text.contains(&servers) && text.contains("ZooKeeper"),
        "{text}"
    );
}

#[tokio::test]
async fn a_server_gone_under_a_client_is_an_error_naming_servers_and_node() {
    let mut server = ZkServer::start().unwrap();
    let sm = connect(&server, "/egret").await;
    sm.put_topology(&topology("gone", "gone-1-1"))
        .await
        .unwrap();
    server.kill();
    let started = Instant::now();
    let err = sm.get_topology("gone").await.unwrap_err().to_string();
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "{:?}",
        started.elapsed()
    );
    assert!(err.contains(&server.servers()), "{err}");
    assert!(err.contains("/egret/topologies/gone"), "{err}");
}

/// The backend chosen by the resolved configuration works on the server.
#[tokio::test]
async fn the_configured_backend_opens_and_dispatches() {
    use egret_config::state::{
        STATE_MANAGER, StateManagerConfig, ZOOKEEPER_ROOT, ZOOKEEPER_SERVERS,
    };
    use egret_state_manager::Backend;
    let server = ZkServer::start().unwrap();
    let mut config = egret_config::ConfigMap::new();
    config.insert(STATE_MANAGER.into(), "zookeeper".into());
    config.insert(ZOOKEEPER_SERVERS.into(), server.servers().into());
    config.insert(ZOOKEEPER_ROOT.into(), "/configured".into());
    let resolved = StateManagerConfig::resolve(&config).unwrap();
    let backend = Backend::open(&resolved).await.unwrap();
    assert!(matches!(backend, Backend::ZooKeeper(_)));
    backend
        .put_topology(&topology("cfg", "cfg-1-1"))
        .await
        .unwrap();
    let direct = connect(&server, "/configured").await;
    assert_eq!(
        direct.get_topology("cfg").await.unwrap(),
        Some(topology("cfg", "cfg-1-1"))
    );
    let registration = backend.register_master("cfg", addr(7701)).await.unwrap();
    assert_eq!(
        direct.master_location("cfg").await.unwrap(),
        Some(addr(7701))
    );
    registration.release().await.unwrap();
}

/// A topology beyond ZooKeeper's node size limit is refused with an error
/// naming the node, in bounded time, and the session goes on.
#[tokio::test]
async fn an_oversized_topology_is_an_error_naming_the_node() {
    let server = ZkServer::start().unwrap();
    let sm = connect(&server, "/egret").await;
    let mut big = topology("big", "big-1-1");
    big.config_json = format!("{{\"x\":\"{}\"}}", "y".repeat(2 * 1024 * 1024));
    let started = Instant::now();
    let err = sm.put_topology(&big).await.unwrap_err().to_string();
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert!(err.contains("/egret/topologies/big"), "{err}");
    assert!(err.contains("jute.maxbuffer"), "{err}");
    // Just below the limit is written (the server takes it).
    let mut fits = topology("fits", "fits-1-1");
    fits.config_json = "y".repeat(egret_state_manager::zk::DEFAULT_MAX_NODE_BYTES - 64);
    sm.put_topology(&fits).await.unwrap();
    assert_eq!(sm.get_topology("fits").await.unwrap(), Some(fits));
    sm.put_topology(&topology("small", "small-1-1"))
        .await
        .unwrap();
}

/// The test server listens on the address it is given, and only there (the
/// multi-host tests start it on a bridge address; 127.0.0.2 is loopback too).
#[tokio::test]
async fn the_test_server_listens_on_the_given_address_only() {
    let ip: std::net::IpAddr = "127.0.0.2".parse().unwrap();
    let server = ZkServer::start_on(ip).unwrap();
    assert_eq!(server.addr().ip(), ip);
    assert_eq!(
        server.servers(),
        format!("127.0.0.2:{}", server.addr().port())
    );
    let sm = connect(&server, "/egret").await;
    sm.put_topology(&topology("here", "here-1-1"))
        .await
        .unwrap();
    let elsewhere = std::net::SocketAddr::from(([127, 0, 0, 1], server.addr().port()));
    let refused = std::net::TcpStream::connect(elsewhere).unwrap_err();
    assert_eq!(
        refused.kind(),
        std::io::ErrorKind::ConnectionRefused,
        "{refused}"
    );
}

/// A server that cannot start (its port is taken) is an error carrying its
/// log, not a hang.
#[test]
fn a_test_server_that_cannot_start_fails_with_its_log() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let err = match ZkServer::start_at(taken.local_addr().unwrap()) {
        Ok(server) => panic!("started on the taken {}", server.servers()),
        Err(err) => err,
    };
    match &err {
        ZkServerError::Exited { log, .. } => {
            assert!(log.contains("Address already in use"), "{err}")
        }
        other => panic!("expected the server to exit, got: {other}"),
    }
}

/// A package whose chunk was changed behind the manifest's back is refused,
/// naming the node: the SHA-256 check.
#[tokio::test]
async fn a_damaged_package_is_refused_naming_the_node() {
    let server = ZkServer::start().unwrap();
    let sm = connect(&server, "/egret").await;
    sm.put_package("dmg", &vec![5u8; 2_500_000]).await.unwrap();
    let raw = zookeeper_client::Client::connect(&server.servers())
        .await
        .unwrap();
    raw.set_data("/egret/packages/dmg/1", b"tampered", None)
        .await
        .unwrap();
    let err = sm.get_package("dmg").await.unwrap_err().to_string();
    assert!(
        err.contains("/egret/packages/dmg") && err.contains("SHA-256"),
        "{err}"
    );
}
