//! Backpressure, in process: a topology master and two stream managers with
//! fake instances. A bolt that stops reading makes its queue grow past the
//! high watermark; the spout feeding it (same container) is throttled and no
//! longer read, the other container's spout feeding it is throttled through
//! the backpressure notice, a spout of an independent pipeline is not; once the
//! bolt drains below the low watermark both throttles lift and nothing is lost.

// Test helpers outside #[test] functions: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use bytes::Bytes;
use egret_proto::frame::{decode_message, encode_message};
use egret_proto::handshake::connect;
use egret_proto::v1::{
    ClientRequest, Component, ComponentKind, ContainerPlan, Empty, InputDef, InstancePlan,
    InstanceToStreamManager, KillRequest, PackingPlan, PeerRole, StreamManagerToInstance, Topology,
    TupleBatch, TupleData, client_request, instance_to_stream_manager, stream_manager_to_instance,
};
use egret_proto::{FrameCodec, Token};
use egret_state_manager::{LocalCluster, TopologyDir};
use egret_stream_manager::{StreamManagerOptions, run};
use egret_topology_master::TopologyMaster;
use futures::{SinkExt, StreamExt};
use prost::Message;
use tokio::net::UnixStream;
use tokio::task::JoinHandle;
use tokio_util::codec::Framed;

/// The topology as submission leaves it: explicit counts, resolved settings.
fn resolved(mut topology: Topology) -> Topology {
    egret_config::settings::resolve_topology(&mut topology).unwrap();
    topology
}

const WAIT: Duration = Duration::from_secs(5);
const HIGH: u64 = 64 * 1024;
const LOW: u64 = 32 * 1024;
const TUPLES_PER_BATCH: usize = 8;
const VALUE_BYTES: usize = 4096;

type Conn = Framed<UnixStream, FrameCodec>;

fn instance(component: &str, tasks: &[i32]) -> InstancePlan {
    InstancePlan {
        instance_id: format!("{component}-0"),
        component: component.into(),
        executor_index: 0,
        task_ids: tasks.to_vec(),
        heap_mb: 64,
        cpu_percent: 0.0,
    }
}

fn component(id: &str, kind: ComponentKind, inputs: &[&str]) -> Component {
    Component {
        id: id.into(),
        kind: kind as i32,
        parallelism: 1,
        num_tasks: 1,
        inputs: inputs
            .iter()
            .map(|c| InputDef {
                component: (*c).into(),
                stream: "default".into(),
                grouping: None,
            })
            .collect(),
        ..Default::default()
    }
}

/// bolt (task 1) <- spout (3) and spout2 (4); free (2) is a spout of its own
/// pipeline. Container 1: bolt, spout. Container 2: spout2, free.
fn write_topology(dir: &TopologyDir) -> Token {
    dir.write_topology(&resolved(Topology {
        name: "bp".into(),
        id: "bp-1-1".into(),
        config_json: format!(
            r#"{{"topology.acker.executors": 0, "egret.frame.max.bytes": 1048576,
                "egret.backpressure.high.watermark.bytes": {HIGH},
                "egret.backpressure.low.watermark.bytes": {LOW}}}"#
        ),
        components: vec![
            component("bolt", ComponentKind::Bolt, &["spout", "spout2"]),
            component("free", ComponentKind::Spout, &[]),
            component("spout", ComponentKind::Spout, &[]),
            component("spout2", ComponentKind::Spout, &[]),
        ],
        ..Default::default()
    }))
    .unwrap();
    dir.write_packing_plan(&PackingPlan {
        topology_id: "bp-1-1".into(),
        containers: vec![
            ContainerPlan {
                index: 1,
                instances: vec![instance("bolt", &[1]), instance("spout", &[3])],
            },
            ContainerPlan {
                index: 2,
                instances: vec![instance("free", &[2]), instance("spout2", &[4])],
            },
        ],
    })
    .unwrap();
    dir.create_credentials("test").unwrap().token().clone()
}

async fn dial(dir: &TopologyDir, container: i32, token: &Token, id: &str) -> Conn {
    let path = dir.stream_manager_socket(container);
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        match UnixStream::connect(&path).await {
            Ok(stream) => {
                return connect(stream, token, PeerRole::Instance, id, 1 << 22)
                    .await
                    .unwrap();
            }
            Err(err) if tokio::time::Instant::now() > deadline => {
                panic!("no socket at {}: {err}", path.display())
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
}

/// The next message within `wait`; `None` when nothing came.
async fn receive_within(
    conn: &mut Conn,
    wait: Duration,
) -> Option<stream_manager_to_instance::Message> {
    let frame = tokio::time::timeout(wait, conn.next()).await.ok()??;
    decode_message::<StreamManagerToInstance>(frame.unwrap())
        .unwrap()
        .message
}

async fn receive(conn: &mut Conn) -> stream_manager_to_instance::Message {
    receive_within(conn, WAIT).await.expect("a message in time")
}

async fn send(conn: &mut Conn, message: instance_to_stream_manager::Message) {
    let message = InstanceToStreamManager {
        message: Some(message),
    };
    conn.send(encode_message(&message)).await.unwrap();
}

async fn join(dir: &TopologyDir, token: &Token, container: i32, id: &str) -> Conn {
    let mut conn = dial(dir, container, token, id).await;
    match receive(&mut conn).await {
        stream_manager_to_instance::Message::Assignment(a) => {
            assert_eq!(a.instance.unwrap().instance_id, id)
        }
        other => panic!("{id}: expected the assignment, got {other:?}"),
    }
    send(
        &mut conn,
        instance_to_stream_manager::Message::Ready(Empty {}),
    )
    .await;
    conn
}

fn batch(src_task: i32, first: u64) -> TupleBatch {
    TupleBatch {
        tuples: (first..first + TUPLES_PER_BATCH as u64)
            .map(|seq| {
                let mut values = vec![0u8; VALUE_BYTES];
                values[..8].copy_from_slice(&seq.to_be_bytes());
                TupleData {
                    dest_task: 1,
                    src_task,
                    stream: "default".into(),
                    values: Bytes::from(values),
                    ..Default::default()
                }
            })
            .collect(),
        acks: Vec::new(),
    }
}

fn throttle_of(message: &stream_manager_to_instance::Message) -> Option<bool> {
    match message {
        stream_manager_to_instance::Message::Throttle(t) => Some(t.throttled),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bolt_that_stops_reading_throttles_the_spouts_upstream_of_it_and_only_those() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = LocalCluster::new(tmp.path()).create_topology("bp").unwrap();
    let token = write_topology(&dir);
    let sms: Vec<JoinHandle<_>> = [1, 2]
        .into_iter()
        .map(|index| {
            tokio::spawn(run(StreamManagerOptions::local(
                dir.path().to_owned(),
                index,
            )))
        })
        .collect();
    let master = tokio::spawn(TopologyMaster::bind(dir.clone()).await.unwrap().serve());

    let mut bolt = join(&dir, &token, 1, "bolt-0").await;
    let mut spout = join(&dir, &token, 1, "spout-0").await;
    let mut spout2 = join(&dir, &token, 2, "spout2-0").await;
    let mut free = join(&dir, &token, 2, "free-0").await;
    let batch_bytes = batch(3, 0).encoded_len() as u64;

    // The bolt reads nothing: its socket fills, then its queue grows until
    // the spout is throttled.
    let mut sent = 0u64;
    let throttled = loop {
        assert!(
            sent < 4096,
            "no throttle after {sent} tuples ({} bytes)",
            sent * VALUE_BYTES as u64
        );
        send(
            &mut spout,
            instance_to_stream_manager::Message::Tuples(batch(3, sent)),
        )
        .await;
        sent += TUPLES_PER_BATCH as u64;
        if let Some(message) = receive_within(&mut spout, Duration::from_millis(50)).await {
            break throttle_of(&message);
        }
    };
    assert_eq!(throttled, Some(true));
    // The spout of the other container feeds the bolt too: the notice throttles it.
    assert_eq!(throttle_of(&receive(&mut spout2).await), Some(true));
    // One more batch from the throttled spout waits, unread, in its socket.
    send(
        &mut spout,
        instance_to_stream_manager::Message::Tuples(batch(3, sent)),
    )
    .await;
    sent += TUPLES_PER_BATCH as u64;
    // The independent pipeline's spout is left alone.
    assert!(
        receive_within(&mut free, Duration::from_millis(300))
            .await
            .is_none()
    );

    // The bolt drains everything, in order and complete; both throttles lift.
    let mut received = 0u64;
    while received < sent {
        match receive(&mut bolt).await {
            stream_manager_to_instance::Message::Tuples(b) => {
                for t in b.tuples {
                    let seq = u64::from_be_bytes(t.values[..8].try_into().unwrap());
                    assert_eq!(seq, received, "tuples arrive once and in order");
                    received += 1;
                }
            }
            other => panic!("expected tuples, got {other:?}"),
        }
    }
    assert_eq!(throttle_of(&receive(&mut spout).await), Some(false));
    assert_eq!(throttle_of(&receive(&mut spout2).await), Some(false));
    assert!(
        receive_within(&mut free, Duration::from_millis(100))
            .await
            .is_none()
    );

    // The spout is read again.
    send(
        &mut spout,
        instance_to_stream_manager::Message::Tuples(batch(3, sent)),
    )
    .await;
    match receive(&mut bolt).await {
        stream_manager_to_instance::Message::Tuples(b) => {
            assert_eq!(b.tuples.len(), TUPLES_PER_BATCH)
        }
        other => panic!("expected tuples, got {other:?}"),
    }

    let response = egret_topology_master::client::request(
        dir.path(),
        ClientRequest {
            request: Some(client_request::Request::Kill(KillRequest { wait_secs: 0 })),
        },
        WAIT,
    )
    .await
    .unwrap();
    assert!(response.ok, "{}", response.error);
    for sm in sms {
        tokio::time::timeout(WAIT, sm)
            .await
            .expect("the stream manager exits after the kill")
            .unwrap()
            .unwrap();
    }
    master.abort();

    let snapshots = egret_metrics::read_snapshots(dir.path()).unwrap();
    let value = |process: &str, name: &str, component: &str| {
        snapshots
            .iter()
            .find(|s| s.process == process)
            .unwrap()
            .metrics
            .iter()
            .find(|m| m.name == name && m.component == component && m.task == 0)
            .map(|m| m.value)
    };
    assert_eq!(
        value("stmgr-1", "egret.backpressure.engaged", "bolt"),
        Some(1.0)
    );
    let peak = value("stmgr-1", "egret.queue.bytes.peak", "__backpressure").unwrap();
    assert!(
        peak > HIGH as f64 && peak <= (HIGH + batch_bytes) as f64,
        "peak {peak} bytes queued, high watermark {HIGH} + one batch {batch_bytes}"
    );
    for (process, spout) in [("stmgr-1", "spout"), ("stmgr-2", "spout2")] {
        assert!(
            value(process, "egret.backpressure.time-ms", spout).unwrap() > 0.0,
            "{spout} was throttled"
        );
        assert_eq!(
            value(process, "egret.backpressure.active", "__backpressure"),
            Some(0.0)
        );
        assert!(value(process, "egret.backpressure.time-ms", "__backpressure").unwrap() > 0.0);
    }
    assert_eq!(
        value("stmgr-2", "egret.backpressure.time-ms", "free"),
        Some(0.0)
    );
    assert_eq!(
        value("stmgr-2", "egret.backpressure.engaged", "bolt"),
        None,
        "stmgr-2 did not find the bolt congested itself"
    );
}
