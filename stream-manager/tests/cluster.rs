//! A topology master and two stream managers in process, with fake instances
//! on the Unix sockets: assignments, routing (local and through the mesh),
//! state changes, refusals, and the kill.

// Test helpers outside #[test] functions: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::time::Duration;

use bytes::Bytes;
use egret_proto::frame::{decode_message, encode_message};
use egret_proto::handshake::connect;
use egret_proto::v1::{
    ClientRequest, Component, ContainerPlan, Empty, InstancePlan, InstanceToStreamManager,
    KillRequest, PackingPlan, PeerRole, StreamManagerToInstance, Topology, TopologyState,
    TupleBatch, TupleData, client_request, instance_to_stream_manager, stream_manager_to_instance,
};
use egret_proto::{FrameCodec, HandshakeError, Token};
use egret_state_manager::{LocalCluster, TopologyDir};
use egret_stream_manager::{StreamManagerOptions, run};
use egret_topology_master::TopologyMaster;
use futures::{SinkExt, StreamExt};
use tokio::net::UnixStream;
use tokio_util::codec::Framed;

/// The topology as submission leaves it: explicit counts, resolved settings.
fn resolved(mut topology: Topology) -> Topology {
    egret_config::settings::resolve_topology(&mut topology).unwrap();
    topology
}

const WAIT: Duration = Duration::from_secs(5);

type Conn = Framed<UnixStream, FrameCodec>;

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

fn component(id: &str, parallelism: i32, num_tasks: i32) -> Component {
    Component {
        id: id.into(),
        parallelism,
        num_tasks,
        ..Default::default()
    }
}

/// count: tasks 1,2 | 3 ; split: 4,5 ; words: 6 | 7 | 8, over containers 1 and 2.
fn write_topology(dir: &TopologyDir) -> Token {
    dir.write_topology(&resolved(Topology {
        name: "wc".into(),
        id: "wc-1-1".into(),
        config_json: r#"{"egret.frame.max.bytes": 1048576}"#.into(),
        components: vec![
            component("count", 2, 3),
            component("split", 1, 2),
            component("words", 3, 3),
        ],
        ..Default::default()
    }))
    .unwrap();
    dir.write_packing_plan(&PackingPlan {
        topology_id: "wc-1-1".into(),
        containers: vec![
            ContainerPlan {
                index: 1,
                instances: vec![
                    instance("count", 0, &[1, 2]),
                    instance("split", 0, &[4, 5]),
                    instance("words", 1, &[7]),
                ],
            },
            ContainerPlan {
                index: 2,
                instances: vec![
                    instance("count", 1, &[3]),
                    instance("words", 0, &[6]),
                    instance("words", 2, &[8]),
                ],
            },
        ],
    })
    .unwrap();
    dir.create_credentials("test").unwrap().token().clone()
}

async fn dial(
    dir: &TopologyDir,
    container: i32,
    token: &Token,
    id: &str,
) -> Result<Conn, HandshakeError> {
    let path = dir.stream_manager_socket(container);
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        match UnixStream::connect(&path).await {
            Ok(stream) => return connect(stream, token, PeerRole::Instance, id, 1 << 20).await,
            Err(err) if tokio::time::Instant::now() > deadline => {
                panic!("no socket at {}: {err}", path.display())
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

async fn receive(conn: &mut Conn) -> Option<StreamManagerToInstance> {
    let frame = tokio::time::timeout(WAIT, conn.next())
        .await
        .expect("a frame in time")?;
    Some(decode_message(frame.ok()?).unwrap())
}

async fn send(conn: &mut Conn, message: instance_to_stream_manager::Message) {
    let message = InstanceToStreamManager {
        message: Some(message),
    };
    conn.send(encode_message(&message)).await.unwrap();
}

async fn expect_state(conn: &mut Conn, state: TopologyState) {
    match receive(conn).await.and_then(|m| m.message) {
        Some(stream_manager_to_instance::Message::State(change)) => {
            assert_eq!(change.state, state as i32)
        }
        other => panic!("expected a state change, got {other:?}"),
    }
}

async fn client(dir: &TopologyDir, request: client_request::Request) {
    let response = egret_topology_master::client::request(
        dir.path(),
        ClientRequest {
            request: Some(request),
        },
        WAIT,
    )
    .await
    .unwrap();
    assert!(response.ok, "{}", response.error);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tuples_reach_the_instance_hosting_their_task_exactly_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = LocalCluster::new(tmp.path()).create_topology("wc").unwrap();
    let token = write_topology(&dir);

    // Stream managers first: they must wait for the master's address.
    let sms: Vec<_> = [1, 2]
        .into_iter()
        .map(|index| {
            tokio::spawn(run(StreamManagerOptions::local(
                dir.path().to_owned(),
                index,
            )))
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let master = TopologyMaster::bind(dir.clone()).await.unwrap();
    let master = tokio::spawn(master.serve());

    let placement = [
        (1, "count-0", vec![1, 2]),
        (1, "split-0", vec![4, 5]),
        (1, "words-1", vec![7]),
        (2, "count-1", vec![3]),
        (2, "words-0", vec![6]),
        (2, "words-2", vec![8]),
    ];
    let mut conns = HashMap::new();
    for (container, id, tasks) in &placement {
        let mut conn = dial(&dir, *container, &token, id).await.unwrap();
        let Some(stream_manager_to_instance::Message::Assignment(assignment)) =
            receive(&mut conn).await.and_then(|m| m.message)
        else {
            panic!("{id}: the first message is not the assignment");
        };
        let plan = assignment.instance.unwrap();
        assert_eq!(plan.instance_id, *id);
        assert_eq!(&plan.task_ids, tasks);
        assert_eq!(assignment.container_index, *container);
        assert_eq!(assignment.state, TopologyState::Running as i32);
        assert_eq!(assignment.topology.unwrap().id, "wc-1-1");
        assert_eq!(assignment.task_container.len(), 8);
        assert_eq!(assignment.task_container.get(&3), Some(&2));
        assert_eq!(assignment.task_container.get(&7), Some(&1));
        assert_eq!(assignment.work_dir, dir.work_dir(id).to_string_lossy());
        send(
            &mut conn,
            instance_to_stream_manager::Message::Ready(Empty {}),
        )
        .await;
        conns.insert(*id, (tasks.clone(), conn));
    }

    // Refusals: a wrong token, an instance of the other container.
    let bad = dial(&dir, 1, &Token::new(vec![1; 32]), "count-0").await;
    assert!(
        matches!(&bad, Err(HandshakeError::Refused(msg)) if msg.contains("token")),
        "{:?}",
        bad.err()
    );
    let stranger = dial(&dir, 1, &token, "count-1").await;
    assert!(
        matches!(&stranger, Err(HandshakeError::Refused(msg)) if msg.contains("count-1")),
        "{:?}",
        stranger.err()
    );

    // The mesh is TLS only: a peer writing today's hello in clear to
    // container 2's data port is refused before any frame is decoded, and
    // counted in stmgr-2's metrics snapshot.
    let data_port = dir
        .read_physical_plan()
        .unwrap()
        .stream_managers
        .iter()
        .find(|sm| sm.container_index == 2)
        .unwrap()
        .data_port;
    let mut plain = tokio::net::TcpStream::connect(("127.0.0.1", data_port as u16))
        .await
        .unwrap();
    let hello = egret_proto::v1::Hello {
        protocol_version: egret_proto::PROTOCOL_VERSION,
        role: PeerRole::StreamManager as i32,
        peer_id: "stmgr-1".into(),
        client_nonce: Bytes::from(vec![7u8; 32]),
    };
    let body = prost::Message::encode_to_vec(&hello);
    let mut frame = u32::try_from(body.len()).unwrap().to_be_bytes().to_vec();
    frame.extend_from_slice(&body);
    tokio::io::AsyncWriteExt::write_all(&mut plain, &frame)
        .await
        .unwrap();
    let mut back = Vec::new();
    tokio::time::timeout(
        WAIT,
        tokio::io::AsyncReadExt::read_to_end(&mut plain, &mut back),
    )
    .await
    .expect("the stream manager closes the plain-text connection")
    .unwrap_or_default();
    assert!(
        back.is_empty() || back[0] == 21,
        "not a TLS alert: {back:?}"
    );
    // A snapshot is rewritten at most every SNAPSHOT_INTERVAL.
    let deadline = tokio::time::Instant::now() + 3 * egret_metrics::SNAPSHOT_INTERVAL;
    loop {
        let counted = egret_metrics::read_snapshots(dir.path())
            .unwrap_or_default()
            .into_iter()
            .filter(|s| s.process == "stmgr-2")
            .flat_map(|s| s.metrics)
            .any(|m| m.name == "egret.tls.refused" && m.component == "not-tls" && m.value == 1.0);
        if counted {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "stmgr-2.json counts no not-tls refusal"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // split-0 (container 1) sends to every task, twice, plus an unknown task.
    let mut tuples = Vec::new();
    for round in 0..2u8 {
        for task in 1..=8 {
            tuples.push(TupleData {
                dest_task: task,
                src_task: 4,
                stream: "default".into(),
                values: Bytes::from(vec![round, task as u8, 0xAB, 0xCD]),
                ..Default::default()
            });
        }
    }
    tuples.push(TupleData {
        dest_task: 99,
        src_task: 4,
        stream: "default".into(),
        values: Bytes::from_static(b"lost"),
        ..Default::default()
    });
    {
        let (_, sender) = conns.get_mut("split-0").unwrap();
        send(
            sender,
            instance_to_stream_manager::Message::Tuples(TupleBatch {
                tuples,
                acks: Vec::new(),
            }),
        )
        .await;
    }

    for (id, (tasks, conn)) in conns.iter_mut() {
        let mut got: Vec<(i32, Bytes)> = Vec::new();
        while got.len() < tasks.len() * 2 {
            match receive(conn).await.and_then(|m| m.message) {
                Some(stream_manager_to_instance::Message::Tuples(batch)) => {
                    got.extend(batch.tuples.into_iter().map(|t| (t.dest_task, t.values)))
                }
                other => panic!("{id}: expected tuples, got {other:?}"),
            }
        }
        let mut expected: Vec<(i32, Bytes)> = Vec::new();
        for round in 0..2u8 {
            for &task in tasks.iter() {
                expected.push((task, Bytes::from(vec![round, task as u8, 0xAB, 0xCD])));
            }
        }
        got.sort();
        expected.sort();
        assert_eq!(
            got, expected,
            "{id} got exactly its tuples, values unchanged"
        );
        // And nothing more.
        let extra = tokio::time::timeout(Duration::from_millis(100), conn.next()).await;
        assert!(extra.is_err(), "{id} received more than its tuples");
    }

    // State changes reach every instance.
    client(&dir, client_request::Request::Deactivate(Empty {})).await;
    for (_, conn) in conns.values_mut() {
        expect_state(conn, TopologyState::Deactivated).await;
    }
    client(
        &dir,
        client_request::Request::Kill(KillRequest { wait_secs: 0 }),
    )
    .await;
    for (_, conn) in conns.values_mut() {
        // Already deactivated: only the kill remains, then the connection closes.
        expect_state(conn, TopologyState::Killed).await;
        assert!(
            receive(conn).await.is_none(),
            "the connection is closed after the kill"
        );
    }
    for sm in sms {
        tokio::time::timeout(WAIT, sm)
            .await
            .expect("the stream manager exits after the kill")
            .unwrap()
            .unwrap();
    }
    assert!(!dir.stream_manager_socket(1).exists());
    master.abort();
}
