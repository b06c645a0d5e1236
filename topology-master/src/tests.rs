use std::time::{Duration, Instant};

use bytes::Bytes;
use egret_proto::v1::{
    Component, ComponentDebug, ContainerPlan, DebugRequest, DetachedKillRequest, Empty,
    InstancePlan, KillRequest, MetricValue, RegisterStreamManager, ReportedError, StatsReport,
    TaskStatsDelta,
};
use egret_state_manager::LocalCluster;
use tokio::net::TcpStream;

use super::*;

/// The topology as submission leaves it: explicit counts, resolved settings.
fn resolved(mut topology: Topology) -> Topology {
    egret_config::settings::resolve_topology(&mut topology).unwrap();
    topology
}

const WAIT: Duration = Duration::from_secs(5);

struct Fixture {
    _tmp: tempfile::TempDir,
    dir: TopologyDir,
    keys: Keys,
}

/// What a process of the topology holds: its token and its TLS side.
struct Keys {
    token: Token,
    tls: Tls,
}

impl Keys {
    /// A TCP connection to `addr` with the TLS handshake done.
    async fn dial(&self, addr: SocketAddr) -> TlsStream {
        let tcp = TcpStream::connect(addr).await.unwrap();
        self.tls.connect(tcp, addr).await.unwrap()
    }
}

fn instance(component: &str, executor: i32, tasks: &[i32]) -> InstancePlan {
    InstancePlan {
        instance_id: format!("{component}-{executor}"),
        component: component.into(),
        executor_index: executor,
        task_ids: tasks.to_vec(),
        heap_mb: 64,
        cpu_percent: 0.0,
    }
}

fn fixture() -> Fixture {
    fixture_with(Vec::new())
}

/// The fixture's topology with `extra` components (not in the packing plan).
fn fixture_with(extra: Vec<Component>) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let dir = LocalCluster::new(tmp.path()).create_topology("wc").unwrap();
    dir.write_topology(&resolved(Topology {
        name: "wc".into(),
        id: "wc-1-1".into(),
        config_json: r#"{"topology.message.timeout.secs": 1}"#.into(),
        components: vec![
            Component {
                id: "count".into(),
                kind: ComponentKind::Bolt as i32,
                parallelism: 2,
                num_tasks: 3,
                ..Default::default()
            },
            Component {
                id: "split".into(),
                kind: ComponentKind::Spout as i32,
                parallelism: 1,
                num_tasks: 1,
                ..Default::default()
            },
        ]
        .into_iter()
        .chain(extra)
        .collect(),
        ..Default::default()
    }))
    .unwrap();
    dir.write_packing_plan(&PackingPlan {
        topology_id: "wc-1-1".into(),
        containers: vec![
            ContainerPlan {
                index: 1,
                instances: vec![instance("count", 0, &[1, 2]), instance("split", 0, &[4])],
            },
            ContainerPlan {
                index: 2,
                instances: vec![instance("count", 1, &[3])],
            },
        ],
    })
    .unwrap();
    let credentials = dir.create_credentials("wc").unwrap();
    Fixture {
        _tmp: tmp,
        dir,
        keys: Keys {
            token: credentials.token().clone(),
            tls: Tls::new(&credentials).unwrap(),
        },
    }
}

async fn start(fixture: &Fixture) -> SocketAddr {
    start_serving(fixture).await.0
}

/// Starts a master; the handle resolves when `serve` returns (the process would exit).
async fn start_serving(fixture: &Fixture) -> (SocketAddr, tokio::task::JoinHandle<Exit>) {
    let master = TopologyMaster::bind(fixture.dir.clone()).await.unwrap();
    let addr = master.local_addr().unwrap();
    let (state, name) = egret_state_manager::Backend::for_topology_dir(&fixture.dir).unwrap();
    assert_eq!(
        egret_state_manager::StateManager::master_location(&state, &name)
            .await
            .unwrap(),
        Some(addr.into()),
        "the master is registered in the local state manager"
    );
    (
        addr,
        tokio::spawn(async move { master.serve().await.unwrap() }),
    )
}

/// The physical plan the master stored, once it satisfies `done` (the master
/// stores plans in the background, just after sending them).
async fn stored_plan(fixture: &Fixture, done: impl Fn(&PhysicalPlan) -> bool) -> PhysicalPlan {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Ok(plan) = fixture.dir.read_physical_plan()
            && done(&plan)
        {
            return plan;
        }
        assert!(
            Instant::now() < deadline,
            "the stored physical plan did not become the expected one within {WAIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits for a master to stop serving; returns how long that took.
async fn exited(serving: tokio::task::JoinHandle<Exit>) -> Duration {
    let started = Instant::now();
    tokio::time::timeout(WAIT, serving)
        .await
        .expect("the master exits after the kill")
        .unwrap();
    started.elapsed()
}

type Conn = Framed<TlsStream, FrameCodec>;

async fn register(addr: SocketAddr, keys: &Keys, index: i32, port: u32) -> Conn {
    let stream = keys.dial(addr).await;
    let mut framed = egret_proto::handshake::connect(
        stream,
        &keys.token,
        PeerRole::StreamManager,
        &format!("stmgr-{index}"),
        1 << 20,
    )
    .await
    .unwrap();
    let message = StreamManagerToMaster {
        message: Some(stream_manager_to_master::Message::Register(
            RegisterStreamManager {
                location: Some(StreamManagerLocation {
                    container_index: index,
                    host: "127.0.0.1".into(),
                    data_port: port,
                }),
            },
        )),
    };
    framed.send(encode_message(&message)).await.unwrap();
    framed
}

async fn next_message(conn: &mut Conn) -> MasterToStreamManager {
    let body = tokio::time::timeout(WAIT, conn.next())
        .await
        .expect("a message from the master in time")
        .expect("connection open")
        .unwrap();
    decode_message(body).unwrap()
}

async fn next_plan(conn: &mut Conn) -> PhysicalPlan {
    match next_message(conn).await.message {
        Some(master_to_stream_manager::Message::PhysicalPlan(plan)) => plan,
        other => panic!("expected a plan, got {other:?}"),
    }
}

fn port_of(plan: &PhysicalPlan, index: i32) -> u32 {
    plan.stream_managers
        .iter()
        .find(|sm| sm.container_index == index)
        .unwrap()
        .data_port
}

async fn send(fixture: &Fixture, request: client_request::Request) -> ClientResponse {
    client::request(
        fixture.dir.path(),
        ClientRequest {
            request: Some(request),
        },
        WAIT,
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn plan_goes_to_all_once_every_container_registered_and_again_on_reregistration() {
    let fixture = fixture();
    let addr = start(&fixture).await;
    let mut one = register(addr, &fixture.keys, 1, 1001).await;
    assert!(
        tokio::time::timeout(Duration::from_millis(150), one.next())
            .await
            .is_err(),
        "no plan before every container has registered"
    );
    let mut two = register(addr, &fixture.keys, 2, 2002).await;
    let plan_one = next_plan(&mut one).await;
    let plan_two = next_plan(&mut two).await;
    assert_eq!(plan_one, plan_two);
    assert_eq!(plan_one.state, TopologyState::Running as i32);
    assert_eq!(plan_one.topology_id, "wc-1-1");
    assert_eq!(port_of(&plan_one, 1), 1001);
    assert_eq!(port_of(&plan_one, 2), 2002);
    assert_eq!(stored_plan(&fixture, |p| *p == plan_one).await, plan_one);

    // Container 2's stream manager restarts on a new port.
    let mut two_again = register(addr, &fixture.keys, 2, 2003).await;
    let updated = next_plan(&mut two_again).await;
    assert_eq!(port_of(&updated, 2), 2003);
    assert_eq!(next_plan(&mut one).await, updated);
    assert_eq!(stored_plan(&fixture, |p| *p == updated).await, updated);
    // The replaced connection is closed.
    let old = tokio::time::timeout(WAIT, two.next()).await.unwrap();
    assert!(old.is_none() || old.is_some_and(|r| r.is_err()));
}

#[tokio::test]
async fn deactivate_and_activate_change_the_state_the_stream_managers_see() {
    let fixture = fixture();
    let addr = start(&fixture).await;
    let mut one = register(addr, &fixture.keys, 1, 1001).await;
    let mut two = register(addr, &fixture.keys, 2, 2002).await;
    next_plan(&mut one).await;
    next_plan(&mut two).await;

    let response = send(&fixture, client_request::Request::Deactivate(Empty {})).await;
    assert!(response.ok, "{}", response.error);
    assert_eq!(
        next_plan(&mut one).await.state,
        TopologyState::Deactivated as i32
    );
    assert_eq!(
        next_plan(&mut two).await.state,
        TopologyState::Deactivated as i32
    );
    assert_eq!(
        fixture.dir.read_physical_plan().unwrap().state,
        TopologyState::Deactivated as i32
    );

    let response = send(&fixture, client_request::Request::Activate(Empty {})).await;
    assert!(response.ok, "{}", response.error);
    assert_eq!(
        next_plan(&mut one).await.state,
        TopologyState::Running as i32
    );
    assert_eq!(
        next_plan(&mut two).await.state,
        TopologyState::Running as i32
    );

    let summary = send(&fixture, client_request::Request::Describe(Empty {}))
        .await
        .summary
        .unwrap();
    assert_eq!(summary.name, "wc");
    assert_eq!(summary.id, "wc-1-1");
    assert_eq!(summary.state, TopologyState::Running as i32);
    assert_eq!(summary.num_containers, 2);
    assert_eq!(summary.num_executors, 3);
    assert_eq!(summary.num_tasks, 4);
}

#[tokio::test]
async fn kill_deactivates_waits_then_kills_and_the_master_exits() {
    let fixture = fixture();
    let (addr, serving) = start_serving(&fixture).await;
    let mut one = register(addr, &fixture.keys, 1, 1001).await;
    let mut two = register(addr, &fixture.keys, 2, 2002).await;
    next_plan(&mut one).await;
    next_plan(&mut two).await;

    let started = Instant::now();
    let response = send(
        &fixture,
        client_request::Request::Kill(KillRequest { wait_secs: 1 }),
    )
    .await;
    assert!(response.ok, "{}", response.error);
    assert!(started.elapsed() >= Duration::from_secs(1), "kill waited");
    assert_eq!(
        response.summary.unwrap().state,
        TopologyState::Killed as i32
    );
    for conn in [&mut one, &mut two] {
        assert_eq!(
            next_plan(conn).await.state,
            TopologyState::Deactivated as i32
        );
        assert_eq!(next_plan(conn).await.state, TopologyState::Killed as i32);
    }
    let refused = send(&fixture, client_request::Request::Activate(Empty {})).await;
    assert!(
        !refused.ok && refused.error.contains("killed"),
        "{}",
        refused.error
    );
    // The master goes on serving for the grace, then exits.
    exited(serving).await;
    assert!(started.elapsed() >= Duration::from_secs(1) + KILLED_GRACE);
}

#[tokio::test]
async fn bad_peers_and_bad_requests_are_refused() {
    let fixture = fixture();
    let addr = start(&fixture).await;

    // A client with a bad token fails the hello.
    let stream = fixture.keys.dial(addr).await;
    let bad = Token::new(vec![7; 32]);
    let refused =
        egret_proto::handshake::connect(stream, &bad, PeerRole::Client, "client", 1 << 20).await;
    assert!(
        matches!(&refused, Err(egret_proto::HandshakeError::Refused(msg)) if msg.contains("token")),
        "{:?}",
        refused.err()
    );

    // An instance has no business with the master.
    let stream = fixture.keys.dial(addr).await;
    let refused = egret_proto::handshake::connect(
        stream,
        &fixture.keys.token,
        PeerRole::Instance,
        "count-0",
        1 << 20,
    )
    .await;
    assert!(refused.is_err());

    // A malformed request gets a clear error response.
    let stream = fixture.keys.dial(addr).await;
    let mut conn = egret_proto::handshake::connect(
        stream,
        &fixture.keys.token,
        PeerRole::Client,
        "client",
        1 << 20,
    )
    .await
    .unwrap();
    conn.send(Bytes::from_static(&[0xff, 0xff, 0xff]))
        .await
        .unwrap();
    let body = tokio::time::timeout(WAIT, conn.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let response: ClientResponse = decode_message(body).unwrap();
    assert!(
        !response.ok && response.error.contains("malformed"),
        "{}",
        response.error
    );

    // So does an empty one.
    let response = client::request(fixture.dir.path(), ClientRequest { request: None }, WAIT)
        .await
        .unwrap();
    assert!(
        !response.ok && response.error.contains("unknown"),
        "{}",
        response.error
    );

    // A stream manager registering a container the packing does not have.
    let mut stranger = register(addr, &fixture.keys, 9, 999).await;
    match next_message(&mut stranger).await.message {
        Some(master_to_stream_manager::Message::Error(reason)) => {
            assert!(reason.contains("container 9"), "{reason}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// The value of `egret.tls.refused` for `reason` in the master's snapshot,
/// once it is there (a snapshot is rewritten at most every
/// `SNAPSHOT_INTERVAL`, so this waits up to a few of them).
async fn refused_in_snapshot(dir: &TopologyDir, reason: &str) -> f64 {
    let deadline = tokio::time::Instant::now() + 3 * egret_metrics::SNAPSHOT_INTERVAL;
    loop {
        let value = egret_metrics::read_snapshots(dir.path())
            .unwrap_or_default()
            .into_iter()
            .filter(|s| s.process == "tmaster")
            .flat_map(|s| s.metrics)
            .find(|m| m.name == egret_transport::REFUSED_METRIC && m.component == reason)
            .map(|m| m.value);
        if let Some(value) = value {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no {reason} refusal in tmaster.json"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn the_master_serves_tls_only_and_counts_what_it_refuses() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let fixture = fixture();
    let addr = start(&fixture).await;

    // A plain-text client sending a well-formed hello gets no reply.
    let mut plain = TcpStream::connect(addr).await.unwrap();
    let hello = egret_proto::v1::Hello {
        protocol_version: egret_proto::PROTOCOL_VERSION,
        role: PeerRole::Client as i32,
        peer_id: "client".into(),
        client_nonce: Bytes::from(vec![7u8; 32]),
    };
    let body = prost::Message::encode_to_vec(&hello);
    let mut frame = u32::try_from(body.len()).unwrap().to_be_bytes().to_vec();
    frame.extend_from_slice(&body);
    plain.write_all(&frame).await.unwrap();
    let mut back = Vec::new();
    tokio::time::timeout(WAIT, plain.read_to_end(&mut back))
        .await
        .expect("the master closes the plain-text connection")
        .unwrap_or_default();
    assert!(
        back.is_empty() || back[0] == 21,
        "not a TLS alert: {back:?}"
    );
    assert_eq!(refused_in_snapshot(&fixture.dir, "not-tls").await, 1.0);

    // Another topology's credentials: this client refuses the master's
    // certificate; a client trusting our CA but presenting its own
    // certificate is refused by the master.
    let theirs =
        egret_transport::TopologyCredentials::generate("other", egret_transport::DEFAULT_VALIDITY)
            .unwrap();
    let tcp = TcpStream::connect(addr).await.unwrap();
    let err = Tls::new(&theirs)
        .unwrap()
        .connect(tcp, addr)
        .await
        .unwrap_err();
    assert_eq!(
        err.refusal(),
        Some(egret_transport::RefusalReason::UnknownCa),
        "{err}"
    );
    let credentials = fixture.dir.read_credentials().unwrap();
    let mixed = tempfile::tempdir().unwrap();
    let file = |name: &str, text: &str| {
        let path = mixed.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let key_path = theirs
        .save(&mixed.path().join("theirs"))
        .map(|()| mixed.path().join("theirs/key.pem"))
        .unwrap();
    let intruder = egret_transport::TopologyCredentials::from_files(
        &file("ca.pem", credentials.ca_pem()),
        &file("cert.pem", theirs.cert_pem()),
        &key_path,
    )
    .unwrap();
    let tcp = TcpStream::connect(addr).await.unwrap();
    if let Ok(stream) = Tls::new(&intruder).unwrap().connect(tcp, addr).await {
        let refused = egret_proto::handshake::connect(
            stream,
            &fixture.keys.token,
            PeerRole::Client,
            "client",
            1 << 20,
        )
        .await;
        assert!(refused.is_err(), "the intruder got past the TLS layer");
    }
    assert_eq!(refused_in_snapshot(&fixture.dir, "unknown-ca").await, 1.0);

    // The topology's own clients still get answers.
    let response = send(&fixture, client_request::Request::Describe(Empty {})).await;
    assert!(response.ok, "{}", response.error);
}

#[tokio::test]
async fn client_without_a_master_says_so() {
    let fixture = fixture();
    let err = client::request(
        fixture.dir.path(),
        ClientRequest {
            request: Some(client_request::Request::Describe(Empty {})),
        },
        WAIT,
    )
    .await
    .unwrap_err();
    assert!(matches!(err, client::ClientError::NoAddress(_)), "{err}");
}

#[tokio::test]
async fn a_restarted_master_keeps_the_state_and_waits_for_every_stream_manager() {
    let fixture = fixture();
    let (addr, serving) = start_serving(&fixture).await;
    let mut one = register(addr, &fixture.keys, 1, 1001).await;
    let mut two = register(addr, &fixture.keys, 2, 2002).await;
    let first = next_plan(&mut one).await;
    next_plan(&mut two).await;
    let response = send(&fixture, client_request::Request::Deactivate(Empty {})).await;
    assert!(response.ok, "{}", response.error);
    next_plan(&mut one).await;

    // A new master (the old one's process died, its registration with it):
    // new address, state from physical.pb.
    serving.abort();
    let _ = serving.await;
    let restarted = start(&fixture).await;
    assert_ne!(restarted, addr);
    let mut one = register(restarted, &fixture.keys, 1, 1001).await;
    assert!(
        tokio::time::timeout(Duration::from_millis(150), one.next())
            .await
            .is_err(),
        "no plan before every container has registered again"
    );
    let summary = send(&fixture, client_request::Request::Describe(Empty {}))
        .await
        .summary
        .unwrap();
    assert_eq!(summary.state, TopologyState::Deactivated as i32);
    let mut two = register(restarted, &fixture.keys, 2, 2002).await;
    let plan = next_plan(&mut one).await;
    assert_eq!(plan.state, TopologyState::Deactivated as i32);
    assert_eq!(next_plan(&mut two).await, plan);
    // Same stream managers, same ports: the plan is the old one but for the state.
    assert_eq!(plan.stream_managers, first.stream_managers);
}

fn debug_request(component: &str, enable: bool, pct: f64) -> client_request::Request {
    client_request::Request::Debug(DebugRequest {
        component: component.into(),
        enable,
        sampling_pct: pct,
    })
}

#[tokio::test]
async fn debug_requests_reach_every_stream_manager_and_survive_a_master_restart() {
    let fixture = fixture_with(vec![Component {
        id: debug::EVENTLOGGER_COMPONENT_ID.into(),
        kind: ComponentKind::Bolt as i32,
        parallelism: 1,
        num_tasks: 1,
        ..Default::default()
    }]);
    let (addr, serving) = start_serving(&fixture).await;
    let mut one = register(addr, &fixture.keys, 1, 1001).await;
    let mut two = register(addr, &fixture.keys, 2, 2002).await;
    assert!(next_plan(&mut one).await.debug.is_empty());
    next_plan(&mut two).await;

    // Refused requests change nothing and name the problem.
    let response = send(&fixture, debug_request("cuont", true, 100.0)).await;
    assert!(!response.ok);
    assert!(response.error.contains("'cuont'"), "{}", response.error);
    let response = send(&fixture, debug_request("count", true, 101.0)).await;
    assert!(!response.ok);
    assert!(response.error.contains("101"), "{}", response.error);
    assert!(
        tokio::time::timeout(Duration::from_millis(150), one.next())
            .await
            .is_err(),
        "a refused request publishes no plan"
    );

    let response = send(&fixture, debug_request("count", true, 100.0)).await;
    assert!(response.ok, "{}", response.error);
    let expected = vec![ComponentDebug {
        component: "count".into(),
        enable: true,
        sampling_pct: 100.0,
    }];
    assert_eq!(next_plan(&mut one).await.debug, expected);
    assert_eq!(next_plan(&mut two).await.debug, expected);
    assert_eq!(fixture.dir.read_physical_plan().unwrap().debug, expected);

    // A new master starts with the options the previous one stored.
    serving.abort();
    let _ = serving.await;
    let restarted = start(&fixture).await;
    let mut one = register(restarted, &fixture.keys, 1, 1001).await;
    let mut two = register(restarted, &fixture.keys, 2, 2002).await;
    assert_eq!(next_plan(&mut one).await.debug, expected);
    next_plan(&mut two).await;

    let response = send(&fixture, debug_request("count", false, 0.0)).await;
    assert!(response.ok, "{}", response.error);
    let plan = next_plan(&mut one).await;
    assert_eq!(debug::sampling_pct(&plan.debug, "count"), 0.0);
    assert_eq!(plan.debug.len(), 1);
}

fn log_change(logger: &str, level: &str, timeout_secs: i32) -> egret_proto::v1::LogLevelChange {
    egret_proto::v1::LogLevelChange {
        logger: logger.into(),
        remove: false,
        level: level.into(),
        timeout_secs,
    }
}

fn set_log_config(changes: Vec<egret_proto::v1::LogLevelChange>) -> client_request::Request {
    client_request::Request::SetLogConfig(egret_proto::v1::LogConfigRequest { changes })
}

#[tokio::test]
async fn log_levels_reach_every_stream_manager_are_answered_expire_and_survive_a_restart() {
    let fixture = fixture();
    let (addr, serving) = start_serving(&fixture).await;
    let mut one = register(addr, &fixture.keys, 1, 1001).await;
    let mut two = register(addr, &fixture.keys, 2, 2002).await;
    assert!(next_plan(&mut one).await.log_levels.is_empty());
    next_plan(&mut two).await;

    let response = send(&fixture, set_log_config(vec![log_change("a", "LOUD", 0)])).await;
    assert!(!response.ok);
    assert!(response.error.contains("'LOUD'"), "{}", response.error);

    let response = send(
        &fixture,
        set_log_config(vec![
            log_change("com.acme", "debug", 0),
            log_change("ROOT", "WARN", 2),
        ]),
    )
    .await;
    assert!(response.ok, "{}", response.error);
    let loggers = |levels: &[egret_proto::v1::LoggerLevel]| {
        levels
            .iter()
            .map(|l| format!("{}={}", l.logger, l.level))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        loggers(&response.log_levels),
        ["ROOT=WARN", "com.acme=DEBUG"]
    );
    assert_eq!(
        loggers(&next_plan(&mut one).await.log_levels),
        ["ROOT=WARN", "com.acme=DEBUG"]
    );
    assert_eq!(
        loggers(&next_plan(&mut two).await.log_levels),
        ["ROOT=WARN", "com.acme=DEBUG"]
    );
    // Asked for, they are answered (and the master still serves after).
    let response = send(&fixture, client_request::Request::LogConfig(Empty {})).await;
    assert!(response.ok, "{}", response.error);
    assert_eq!(
        loggers(&response.log_levels),
        ["ROOT=WARN", "com.acme=DEBUG"]
    );
    // ROOT's 2 seconds pass: the master drops it and publishes.
    assert_eq!(
        loggers(&next_plan(&mut one).await.log_levels),
        ["com.acme=DEBUG"]
    );
    assert_eq!(
        loggers(&fixture.dir.read_physical_plan().unwrap().log_levels),
        ["com.acme=DEBUG"]
    );

    // A new master starts with the levels the previous one stored.
    serving.abort();
    let _ = serving.await;
    let restarted = start(&fixture).await;
    let mut one = register(restarted, &fixture.keys, 1, 1001).await;
    let _two = register(restarted, &fixture.keys, 2, 2002).await;
    assert_eq!(
        loggers(&next_plan(&mut one).await.log_levels),
        ["com.acme=DEBUG"]
    );
    let response = send(
        &fixture,
        set_log_config(vec![egret_proto::v1::LogLevelChange {
            logger: "com.acme".into(),
            remove: true,
            ..Default::default()
        }]),
    )
    .await;
    assert!(response.ok, "{}", response.error);
    assert!(next_plan(&mut one).await.log_levels.is_empty());
}

#[tokio::test]
async fn debug_is_refused_when_the_topology_has_no_event_logger() {
    let fixture = fixture();
    let addr = start(&fixture).await;
    let _one = register(addr, &fixture.keys, 1, 1001).await;
    let _two = register(addr, &fixture.keys, 2, 2002).await;
    let response = send(&fixture, debug_request("", true, 10.0)).await;
    assert!(!response.ok);
    assert!(
        response.error.contains("has no event logger"),
        "{}",
        response.error
    );
}

#[tokio::test]
async fn a_master_restarted_after_a_kill_stays_killed() {
    let fixture = fixture();
    fixture
        .dir
        .write_physical_plan(&PhysicalPlan {
            topology_id: "wc-1-1".into(),
            state: TopologyState::Killed as i32,
            ..Default::default()
        })
        .unwrap();
    let (_, serving) = start_serving(&fixture).await;
    let response = send(&fixture, client_request::Request::Activate(Empty {})).await;
    assert!(!response.ok);
    assert!(response.error.contains("killed"), "{}", response.error);
    // Its topology is killed: it exits (and its scheduler stops the rest).
    exited(serving).await;
}

fn stats_message(instance: &str, task: i32, acked: u64) -> Bytes {
    encode_message(&StreamManagerToMaster {
        message: Some(stream_manager_to_master::Message::Stats(StatsReport {
            timestamp_ms: 0,
            instance_id: instance.into(),
            tasks: vec![TaskStatsDelta {
                task_id: task,
                acked: [("default".to_owned(), acked)].into(),
                complete_ms_sum: [("default".to_owned(), acked as f64 * 2.5)].into(),
                transferred: [("default".to_owned(), acked * 3)].into(),
                ..Default::default()
            }],
        })),
    })
}

async fn topology_info(fixture: &Fixture) -> ClientResponse {
    send(fixture, client_request::Request::TopologyInfo(Empty {})).await
}

fn acked_all_time(response: &ClientResponse, instance: &str) -> u64 {
    let executor = response
        .executors
        .iter()
        .find(|e| e.instance_id == instance)
        .unwrap();
    let window = executor
        .windows
        .iter()
        .find(|w| w.window == ":all-time")
        .unwrap();
    window.sums.as_ref().unwrap().acked.values().sum()
}

#[tokio::test]
async fn topology_info_answers_every_executor_with_exact_windowed_statistics() {
    let fixture = fixture();
    let addr = start(&fixture).await;
    let mut one = register(addr, &fixture.keys, 1, 1001).await;
    let mut two = register(addr, &fixture.keys, 2, 2002).await;
    next_plan(&mut one).await;
    next_plan(&mut two).await;

    // Before any report: every executor, zero counts, every window present.
    let response = topology_info(&fixture).await;
    assert!(response.ok, "{}", response.error);
    let ids: Vec<&str> = response
        .executors
        .iter()
        .map(|e| e.instance_id.as_str())
        .collect();
    assert_eq!(ids, ["count-0", "split-0", "count-1"]);
    for executor in &response.executors {
        let windows: Vec<&str> = executor.windows.iter().map(|w| w.window.as_str()).collect();
        assert_eq!(windows, [":all-time", "600", "10800", "86400"]);
        assert_eq!(executor.host, "localhost");
    }
    assert_eq!(acked_all_time(&response, "split-0"), 0);
    assert!(response.executors.iter().all(|e| !e.reported));

    one.send(stats_message("split-0", 4, 10)).await.unwrap();
    one.send(stats_message("split-0", 4, 5)).await.unwrap();
    // A report for a task the instance does not host is refused whole.
    one.send(stats_message("split-0", 1, 1000)).await.unwrap();
    two.send(stats_message("count-1", 3, 7)).await.unwrap();
    // Messages on one connection are handled in order; the last one tells us
    // when the earlier ones were recorded.
    let deadline = Instant::now() + WAIT;
    let response = loop {
        let response = topology_info(&fixture).await;
        if acked_all_time(&response, "split-0") == 15 && acked_all_time(&response, "count-1") == 7 {
            break response;
        }
        assert!(
            Instant::now() < deadline,
            "statistics not recorded: {response:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(acked_all_time(&response, "count-0"), 0);
    assert!(!response.executors[0].reported);
    assert!(response.executors[1].reported && response.executors[2].reported);
    let spout = &response.executors[1];
    assert!(spout.is_spout);
    assert!(!response.executors[0].is_spout);
    assert_eq!((spout.task_start, spout.task_end), (4, 4));
    assert_eq!(spout.port, 1);
    let count0 = &response.executors[0];
    assert_eq!((count0.task_start, count0.task_end), (1, 2));
    for window in &spout.windows {
        let sums = window.sums.as_ref().unwrap();
        assert_eq!(sums.acked["default"], 15, "{}", window.window);
        assert_eq!(sums.transferred["default"], 45);
        assert!((sums.complete_ms_sum["default"] - 37.5).abs() < 1e-9);
    }
    let summary = response.summary.unwrap();
    assert_eq!(summary.num_executors, 3);
    assert!(!summary.killing);
}

#[tokio::test]
async fn task_errors_reach_topology_info_with_their_component_and_worker() {
    let fixture = fixture();
    let addr = start(&fixture).await;
    let mut one = register(addr, &fixture.keys, 1, 1001).await;
    let mut two = register(addr, &fixture.keys, 2, 2002).await;
    next_plan(&mut one).await;
    next_plan(&mut two).await;
    let error = |task: i32, message: &str| {
        encode_message(&StreamManagerToMaster {
            message: Some(stream_manager_to_master::Message::Error(ReportedError {
                task_id: task,
                message: message.into(),
                fatal: false,
                time_secs: 1_700_000_000,
            })),
        })
    };
    // Task 4 is split-0's (container 1); task 99 is in no plan and is refused.
    one.send(error(99, "nobody's")).await.unwrap();
    one.send(error(4, "java.lang.RuntimeException: bad line"))
        .await
        .unwrap();
    let deadline = Instant::now() + WAIT;
    let response = loop {
        let response = topology_info(&fixture).await;
        if !response.errors.is_empty() {
            break response;
        }
        assert!(
            Instant::now() < deadline,
            "error not recorded: {response:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(response.errors.len(), 1, "{:?}", response.errors);
    let recorded = &response.errors[0];
    assert_eq!(recorded.component, "split");
    assert_eq!(recorded.task_id, 4);
    assert_eq!(recorded.error, "java.lang.RuntimeException: bad line");
    assert_eq!(recorded.time_secs, 1_700_000_000);
    assert_eq!((recorded.host.as_str(), recorded.port), ("localhost", 1));
}

#[tokio::test]
async fn a_detached_kill_answers_at_once_then_kills_and_the_master_exits() {
    let fixture = fixture();
    let (addr, serving) = start_serving(&fixture).await;
    let mut one = register(addr, &fixture.keys, 1, 1001).await;
    let mut two = register(addr, &fixture.keys, 2, 2002).await;
    next_plan(&mut one).await;
    next_plan(&mut two).await;

    let started = Instant::now();
    let response = send(
        &fixture,
        client_request::Request::DetachedKill(DetachedKillRequest {
            wait_secs: 0,
            // The fixture's topology.message.timeout.secs is 1.
            wait_message_timeout: true,
        }),
    )
    .await;
    assert!(response.ok, "{}", response.error);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "answered before the wait"
    );
    let summary = response.summary.unwrap();
    assert!(summary.killing);
    assert_eq!(summary.state, TopologyState::Deactivated as i32);
    // A second kill is refused while the first is under way.
    let again = send(
        &fixture,
        client_request::Request::DetachedKill(DetachedKillRequest::default()),
    )
    .await;
    assert!(
        !again.ok && again.error.contains("already"),
        "{}",
        again.error
    );
    for conn in [&mut one, &mut two] {
        assert_eq!(
            next_plan(conn).await.state,
            TopologyState::Deactivated as i32
        );
        assert_eq!(next_plan(conn).await.state, TopologyState::Killed as i32);
    }
    let killed_at = started.elapsed();
    assert!(
        killed_at >= Duration::from_secs(1),
        "waited the message timeout"
    );
    assert_eq!(
        stored_plan(&fixture, |p| p.state == TopologyState::Killed as i32)
            .await
            .state,
        TopologyState::Killed as i32,
        "a restarted master would find KILLED"
    );

    // The master serves the grace after KILLED, then exits (the process exits
    // with EXIT_TOPOLOGY_KILLED, on which the scheduler stops the topology:
    // see the scheduler's tests). It signals no process.
    exited(serving).await;
    // KILLED came at least the message timeout (1 s) after `started`, and the grace
    // starts there (`killed_at` is when this test saw it, which a loaded machine delays).
    assert!(started.elapsed() >= Duration::from_secs(1) + KILLED_GRACE);
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "nothing listens any more"
    );
    for conn in [&mut one, &mut two] {
        let end = tokio::time::timeout(WAIT, conn.next()).await.unwrap();
        assert!(
            end.is_none() || end.is_some_and(|r| r.is_err()),
            "its connections are closed"
        );
    }
}

/// Two masters for one topology: the second stands by (its bind does not
/// return, it serves nothing) while the first holds the registration, and
/// takes over once the first is gone.
#[tokio::test]
async fn a_second_master_stands_by_until_the_first_is_gone() {
    let fixture = fixture();
    let (addr, serving) = start_serving(&fixture).await;
    let dir = fixture.dir.clone();
    let second = tokio::spawn(async move { TopologyMaster::bind(dir).await });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !second.is_finished(),
        "the second master registered while the first lives"
    );
    let (state, name) = egret_state_manager::Backend::for_topology_dir(&fixture.dir).unwrap();
    assert_eq!(
        egret_state_manager::StateManager::master_location(&state, &name)
            .await
            .unwrap(),
        Some(addr.into()),
        "the registration still names the first"
    );
    serving.abort();
    let _ = serving.await;
    let second = tokio::time::timeout(WAIT, second)
        .await
        .expect("the second master takes over")
        .unwrap()
        .unwrap();
    assert_eq!(
        egret_state_manager::StateManager::master_location(&state, &name)
            .await
            .unwrap(),
        Some(second.local_addr().unwrap().into())
    );
}

fn metrics_message(processes: &[(&str, f64)]) -> Bytes {
    encode_message(&StreamManagerToMaster {
        message: Some(stream_manager_to_master::Message::Metrics(MetricsReport {
            processes: processes
                .iter()
                .map(|(process, value)| ProcessMetrics {
                    process: (*process).to_owned(),
                    updated_ms: 1_700_000_000_000,
                    metrics: vec![MetricValue {
                        name: "egret.restarts".into(),
                        component: "stmgr".into(),
                        task: 0,
                        value: *value,
                    }],
                })
                .collect(),
        })),
    })
}

#[tokio::test]
async fn metrics_keep_the_latest_report_of_each_containers_processes() {
    let fixture = fixture();
    let addr = start(&fixture).await;
    let mut one = register(addr, &fixture.keys, 1, 1001).await;
    let mut two = register(addr, &fixture.keys, 2, 2002).await;
    next_plan(&mut one).await;
    next_plan(&mut two).await;
    // Container 1 reports twice (the second replaces the first), and also
    // names a process of container 2, which is refused.
    one.send(metrics_message(&[("stmgr-1", 1.0), ("container-1", 2.0)]))
        .await
        .unwrap();
    one.send(metrics_message(&[("stmgr-1", 5.0), ("stmgr-2", 99.0)]))
        .await
        .unwrap();
    two.send(metrics_message(&[("container-2", 7.0)]))
        .await
        .unwrap();
    let value = |response: &ClientResponse, process: &str| {
        response
            .metrics
            .iter()
            .find(|p| p.process == process)
            .map(|p| p.metrics[0].value)
    };
    let deadline = Instant::now() + WAIT;
    let response = loop {
        let response = send(&fixture, client_request::Request::Metrics(Empty {})).await;
        if value(&response, "stmgr-1") == Some(5.0) && value(&response, "container-2").is_some() {
            break response;
        }
        assert!(Instant::now() < deadline, "not recorded: {response:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let processes: Vec<&str> = response
        .metrics
        .iter()
        .map(|p| p.process.as_str())
        .collect();
    assert_eq!(
        processes,
        ["container-1", "container-2", "stmgr-1", "tmaster"]
    );
    assert_eq!(value(&response, "container-1"), Some(2.0));
    assert_eq!(value(&response, "container-2"), Some(7.0));
}

fn rebalance_request(
    wait_secs: u32,
    workers: i32,
    executors: &[(&str, i32)],
) -> client_request::Request {
    client_request::Request::Rebalance(RebalanceRequest {
        wait_secs,
        wait_message_timeout: false,
        workers,
        executors: executors
            .iter()
            .map(|(c, n)| ((*c).to_owned(), *n))
            .collect(),
    })
}

#[tokio::test]
async fn a_rebalance_deactivates_waits_stores_the_new_plan_and_the_next_master_serves_it() {
    let fixture = fixture();
    let (addr, serving) = start_serving(&fixture).await;
    let mut one = register(addr, &fixture.keys, 1, 1001).await;
    let mut two = register(addr, &fixture.keys, 2, 2002).await;
    let first = next_plan(&mut one).await;
    next_plan(&mut two).await;

    // Refused before anything changes: more executors than tasks, an
    // unknown component.
    for (request, needle) in [
        (rebalance_request(0, 0, &[("count", 4)]), "3 tasks"),
        (rebalance_request(0, 0, &[("counts", 2)]), "'counts'"),
        (rebalance_request(0, -1, &[]), "at least 1"),
    ] {
        let refused = send(&fixture, request).await;
        assert!(
            !refused.ok && refused.error.contains(needle),
            "{}",
            refused.error
        );
    }
    assert_eq!(
        fixture.dir.read_packing_plan().unwrap(),
        first.packing.clone().unwrap()
    );

    let started = Instant::now();
    let response = send(&fixture, rebalance_request(1, 3, &[("count", 3)])).await;
    assert!(response.ok, "{}", response.error);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "the rebalance waited"
    );
    let summary = response.summary.unwrap();
    assert_eq!((summary.num_containers, summary.num_executors), (3, 4));
    for conn in [&mut one, &mut two] {
        assert_eq!(
            next_plan(conn).await.state,
            TopologyState::Deactivated as i32
        );
    }
    let refused = send(&fixture, client_request::Request::Activate(Empty {})).await;
    assert!(
        !refused.ok && refused.error.contains("rebalanced"),
        "{}",
        refused.error
    );

    // Stored: the new counts (tasks unchanged), the new plan, and RUNNING for
    // the next master, as the topology was before.
    let topology = fixture.dir.read_topology().unwrap();
    let count = topology
        .components
        .iter()
        .find(|c| c.id == "count")
        .unwrap();
    assert_eq!((count.parallelism, count.num_tasks), (3, 3));
    let plan = fixture.dir.read_packing_plan().unwrap();
    let tasks: Vec<Vec<i32>> = plan
        .containers
        .iter()
        .map(|c| {
            c.instances
                .iter()
                .flat_map(|i| i.task_ids.clone())
                .collect()
        })
        .collect();
    assert_eq!(tasks, vec![vec![1, 4], vec![2], vec![3]]);
    assert_eq!(
        fixture.dir.read_physical_plan().unwrap().state,
        TopologyState::Running as i32
    );
    let exit = tokio::time::timeout(WAIT, serving).await.unwrap().unwrap();
    assert_eq!(exit, Exit::Rebalanced);

    // The next master waits for the three containers, then runs again.
    let restarted = start(&fixture).await;
    let mut conns = Vec::new();
    for (index, port) in [(1, 1101), (2, 2102)] {
        conns.push(register(restarted, &fixture.keys, index, port).await);
    }
    assert!(
        tokio::time::timeout(Duration::from_millis(150), conns[0].next())
            .await
            .is_err(),
        "no plan before the third container registered"
    );
    conns.push(register(restarted, &fixture.keys, 3, 3103).await);
    for conn in &mut conns {
        let plan_now = next_plan(conn).await;
        assert_eq!(plan_now.state, TopologyState::Running as i32);
        assert_eq!(plan_now.packing.as_ref(), Some(&plan));
        assert_eq!(plan_now.stream_managers.len(), 3);
    }
}

fn ready_message(instance: &str, reconnected: bool) -> Bytes {
    encode_message(&StreamManagerToMaster {
        message: Some(stream_manager_to_master::Message::InstanceReady(
            egret_proto::v1::InstanceReady {
                instance_id: instance.into(),
                reconnected,
            },
        )),
    })
}

async fn next_recover(conn: &mut Conn) -> String {
    loop {
        match next_message(conn).await.message {
            Some(master_to_stream_manager::Message::RecoverCheckpoint(r)) => return r.restarted,
            Some(master_to_stream_manager::Message::PhysicalPlan(_)) => {}
            other => panic!("expected a recover_checkpoint, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn an_instance_ready_again_makes_every_stream_manager_recover() {
    let fixture = fixture();
    let addr = start(&fixture).await;
    let mut one = register(addr, &fixture.keys, 1, 1001).await;
    let mut two = register(addr, &fixture.keys, 2, 2002).await;
    next_plan(&mut one).await;
    next_plan(&mut two).await;
    // First readiness of each: nothing to recover from.
    one.send(ready_message("count-0", false)).await.unwrap();
    two.send(ready_message("count-1", false)).await.unwrap();
    // Not in the packing plan: ignored.
    two.send(ready_message("ghost-0", true)).await.unwrap();
    assert!(
        tokio::time::timeout(Duration::from_millis(300), one.next())
            .await
            .is_err(),
        "a recover after first readiness only"
    );
    // count-0 ready again (its JVM restarted): both stream managers are told.
    one.send(ready_message("count-0", false)).await.unwrap();
    assert_eq!(next_recover(&mut one).await, "count-0");
    assert_eq!(next_recover(&mut two).await, "count-0");
    // A first readiness its stream manager reports as a reconnect (this master
    // started after its first connection) recovers too.
    one.send(ready_message("split-0", true)).await.unwrap();
    assert_eq!(next_recover(&mut two).await, "split-0");
    assert_eq!(next_recover(&mut one).await, "split-0");
}
