use std::time::{Duration, Instant};

use bytes::Bytes;
use egret_proto::v1::{
    Component, ContainerPlan, Empty, InstancePlan, KillRequest, RegisterStreamManager,
};
use egret_state_manager::LocalCluster;
use tokio::net::TcpStream;

use super::*;

const WAIT: Duration = Duration::from_secs(5);

struct Fixture {
    _tmp: tempfile::TempDir,
    dir: TopologyDir,
    token: Token,
}

fn instance(component: &str, executor: i32, tasks: &[i32]) -> InstancePlan {
    InstancePlan {
        instance_id: format!("{component}-{executor}"),
        component: component.into(),
        executor_index: executor,
        task_ids: tasks.to_vec(),
        heap_mb: 64,
    }
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let dir = LocalCluster::new(tmp.path()).create_topology("wc").unwrap();
    dir.write_topology(&Topology {
        name: "wc".into(),
        id: "wc-1-1".into(),
        config_json: "{}".into(),
        components: vec![
            Component {
                id: "count".into(),
                parallelism: 2,
                num_tasks: 3,
                ..Default::default()
            },
            Component {
                id: "split".into(),
                parallelism: 1,
                num_tasks: 1,
                ..Default::default()
            },
        ],
        ..Default::default()
    })
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
    let token = dir.create_token().unwrap();
    Fixture {
        _tmp: tmp,
        dir,
        token,
    }
}

async fn start(fixture: &Fixture) -> SocketAddr {
    let master = TopologyMaster::bind(fixture.dir.clone()).await.unwrap();
    let addr = master.local_addr().unwrap();
    assert_eq!(fixture.dir.read_tmaster_addr().unwrap(), Some(addr));
    tokio::spawn(master.serve());
    addr
}

type Conn = Framed<TcpStream, FrameCodec>;

async fn register(addr: SocketAddr, token: &Token, index: i32, port: u32) -> Conn {
    let stream = TcpStream::connect(addr).await.unwrap();
    let mut framed = egret_proto::handshake::connect(
        stream,
        token,
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
    let mut one = register(addr, &fixture.token, 1, 1001).await;
    assert!(
        tokio::time::timeout(Duration::from_millis(150), one.next())
            .await
            .is_err(),
        "no plan before every container has registered"
    );
    let mut two = register(addr, &fixture.token, 2, 2002).await;
    let plan_one = next_plan(&mut one).await;
    let plan_two = next_plan(&mut two).await;
    assert_eq!(plan_one, plan_two);
    assert_eq!(plan_one.state, TopologyState::Running as i32);
    assert_eq!(plan_one.topology_id, "wc-1-1");
    assert_eq!(port_of(&plan_one, 1), 1001);
    assert_eq!(port_of(&plan_one, 2), 2002);
    assert_eq!(fixture.dir.read_physical_plan().unwrap(), plan_one);

    // Container 2's stream manager restarts on a new port.
    let mut two_again = register(addr, &fixture.token, 2, 2003).await;
    let updated = next_plan(&mut two_again).await;
    assert_eq!(port_of(&updated, 2), 2003);
    assert_eq!(next_plan(&mut one).await, updated);
    assert_eq!(fixture.dir.read_physical_plan().unwrap(), updated);
    // The replaced connection is closed.
    let old = tokio::time::timeout(WAIT, two.next()).await.unwrap();
    assert!(old.is_none() || old.is_some_and(|r| r.is_err()));
}

#[tokio::test]
async fn deactivate_and_activate_change_the_state_the_stream_managers_see() {
    let fixture = fixture();
    let addr = start(&fixture).await;
    let mut one = register(addr, &fixture.token, 1, 1001).await;
    let mut two = register(addr, &fixture.token, 2, 2002).await;
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
async fn kill_deactivates_waits_then_kills() {
    let fixture = fixture();
    let addr = start(&fixture).await;
    let mut one = register(addr, &fixture.token, 1, 1001).await;
    let mut two = register(addr, &fixture.token, 2, 2002).await;
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
}

#[tokio::test]
async fn bad_peers_and_bad_requests_are_refused() {
    let fixture = fixture();
    let addr = start(&fixture).await;

    // A client with a bad token fails the hello.
    let stream = TcpStream::connect(addr).await.unwrap();
    let bad = Token::new(vec![7; 32]);
    let refused =
        egret_proto::handshake::connect(stream, &bad, PeerRole::Client, "client", 1 << 20).await;
    assert!(
        matches!(&refused, Err(egret_proto::HandshakeError::Refused(msg)) if msg.contains("token")),
        "{:?}",
        refused.err()
    );

    // An instance has no business with the master.
    let stream = TcpStream::connect(addr).await.unwrap();
    let refused = egret_proto::handshake::connect(
        stream,
        &fixture.token,
        PeerRole::Instance,
        "count-0",
        1 << 20,
    )
    .await;
    assert!(refused.is_err());

    // A malformed request gets a clear error response.
    let stream = TcpStream::connect(addr).await.unwrap();
    let mut conn = egret_proto::handshake::connect(
        stream,
        &fixture.token,
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
    let mut stranger = register(addr, &fixture.token, 9, 999).await;
    match next_message(&mut stranger).await.message {
        Some(master_to_stream_manager::Message::Error(reason)) => {
            assert!(reason.contains("container 9"), "{reason}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
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
    let addr = start(&fixture).await;
    let mut one = register(addr, &fixture.token, 1, 1001).await;
    let mut two = register(addr, &fixture.token, 2, 2002).await;
    let first = next_plan(&mut one).await;
    next_plan(&mut two).await;
    let response = send(&fixture, client_request::Request::Deactivate(Empty {})).await;
    assert!(response.ok, "{}", response.error);
    next_plan(&mut one).await;

    // A new master (the old one's process died): new address, state from physical.pb.
    let restarted = start(&fixture).await;
    assert_ne!(restarted, addr);
    let mut one = register(restarted, &fixture.token, 1, 1001).await;
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
    let mut two = register(restarted, &fixture.token, 2, 2002).await;
    let plan = next_plan(&mut one).await;
    assert_eq!(plan.state, TopologyState::Deactivated as i32);
    assert_eq!(next_plan(&mut two).await, plan);
    // Same stream managers, same ports: the plan is the old one but for the state.
    assert_eq!(plan.stream_managers, first.stream_managers);
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
    start(&fixture).await;
    let response = send(&fixture, client_request::Request::Activate(Empty {})).await;
    assert!(!response.ok);
    assert!(response.error.contains("killed"), "{}", response.error);
}
