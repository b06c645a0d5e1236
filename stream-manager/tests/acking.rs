//! Acking and recovery, in process: a topology master and two stream managers
//! with fake instances on the Unix sockets. Acks travel across the mesh to the
//! spout's ledger, outcomes come back to the spout's instance, trees time out;
//! the stream managers keep routing while the master is gone and follow a new
//! one; an instance whose old connection is half-open is accepted again.

// Test helpers outside #[test] functions: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use bytes::Bytes;
use egret_proto::frame::{decode_message, encode_message};
use egret_proto::handshake::connect;
use egret_proto::v1::{
    AckEntry, AckKind, ClientRequest, Component, ContainerPlan, Empty, InstancePlan,
    InstanceToStreamManager, KillRequest, PackingPlan, PeerRole, RootId, StreamManagerToInstance,
    Topology, TopologyState, TreeEvent, TreeOutcome, TupleBatch, TupleData, client_request,
    instance_to_stream_manager, stream_manager_to_instance,
};
use egret_proto::{FrameCodec, Token};
use egret_state_manager::{LocalCluster, TopologyDir};
use egret_stream_manager::{StreamManagerOptions, run};
use egret_topology_master::TopologyMaster;
use futures::{SinkExt, StreamExt};
use tokio::net::UnixStream;
use tokio::task::JoinHandle;
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

/// bolt: task 1 (container 2); spout: task 2 (container 1). Message timeout 1 s.
fn write_topology(dir: &TopologyDir) -> Token {
    dir.write_topology(&resolved(Topology {
        name: "ack".into(),
        id: "ack-1-1".into(),
        config_json: r#"{"topology.message.timeout.secs": 1}"#.into(),
        components: vec![component("bolt", 1, 1), component("spout", 1, 1)],
        ..Default::default()
    }))
    .unwrap();
    dir.write_packing_plan(&PackingPlan {
        topology_id: "ack-1-1".into(),
        containers: vec![
            ContainerPlan {
                index: 1,
                instances: vec![instance("spout", 0, &[2])],
            },
            ContainerPlan {
                index: 2,
                instances: vec![instance("bolt", 0, &[1])],
            },
        ],
    })
    .unwrap();
    dir.create_credentials("test").unwrap().token().clone()
}

struct Cluster {
    _tmp: tempfile::TempDir,
    dir: TopologyDir,
    token: Token,
    sms: Vec<JoinHandle<Result<(), egret_stream_manager::StreamManagerError>>>,
    master: JoinHandle<()>,
}

async fn start_master(dir: &TopologyDir) -> JoinHandle<()> {
    let master = TopologyMaster::bind(dir.clone()).await.unwrap();
    tokio::spawn(async move {
        master.serve().await.unwrap();
    })
}

async fn cluster() -> Cluster {
    let tmp = tempfile::tempdir().unwrap();
    let dir = LocalCluster::new(tmp.path())
        .create_topology("ack")
        .unwrap();
    let token = write_topology(&dir);
    let sms = [1, 2]
        .into_iter()
        .map(|index| {
            tokio::spawn(run(StreamManagerOptions::local(
                dir.path().to_owned(),
                index,
            )))
        })
        .collect();
    let master = start_master(&dir).await;
    Cluster {
        _tmp: tmp,
        dir,
        token,
        sms,
        master,
    }
}

async fn dial(dir: &TopologyDir, container: i32, token: &Token, id: &str) -> Conn {
    let path = dir.stream_manager_socket(container);
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        // As an instance's reconnect does: a stream manager being replaced may still
        // accept on the old listener and then drop the connection mid-handshake.
        let error = match UnixStream::connect(&path).await {
            Ok(stream) => match connect(stream, token, PeerRole::Instance, id, 1 << 20).await {
                Ok(conn) => return conn,
                Err(err) => format!("handshake failed: {err}"),
            },
            Err(err) => err.to_string(),
        };
        if tokio::time::Instant::now() > deadline {
            panic!("no stream manager at {}: {error}", path.display())
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn receive(conn: &mut Conn) -> Option<stream_manager_to_instance::Message> {
    let frame = tokio::time::timeout(WAIT, conn.next())
        .await
        .expect("a frame in time")?;
    decode_message::<StreamManagerToInstance>(frame.ok()?)
        .unwrap()
        .message
}

async fn send(conn: &mut Conn, message: instance_to_stream_manager::Message) {
    let message = InstanceToStreamManager {
        message: Some(message),
    };
    conn.send(encode_message(&message)).await.unwrap();
}

/// Connects an instance and waits for its assignment, then says ready.
async fn join(cluster: &Cluster, container: i32, id: &str) -> Conn {
    let mut conn = dial(&cluster.dir, container, &cluster.token, id).await;
    match receive(&mut conn).await {
        Some(stream_manager_to_instance::Message::Assignment(a)) => {
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

fn root(key: u64) -> RootId {
    RootId { spout_task: 2, key }
}

fn ack(kind: AckKind, key: u64, xor: u64) -> AckEntry {
    AckEntry {
        kind: kind as i32,
        root: Some(root(key)),
        xor,
    }
}

fn tuple(key: u64, edge: u64) -> TupleData {
    TupleData {
        dest_task: 1,
        src_task: 2,
        stream: "default".into(),
        values: Bytes::from(key.to_be_bytes().to_vec()),
        roots: vec![root(key)],
        edge_id: edge,
        local_ref: 0,
    }
}

async fn batch(conn: &mut Conn, tuples: Vec<TupleData>, acks: Vec<AckEntry>) {
    send(
        conn,
        instance_to_stream_manager::Message::Tuples(TupleBatch { tuples, acks }),
    )
    .await;
}

async fn tuples(conn: &mut Conn, n: usize) -> Vec<TupleData> {
    let mut got = Vec::new();
    while got.len() < n {
        match receive(conn).await {
            Some(stream_manager_to_instance::Message::Tuples(b)) => got.extend(b.tuples),
            other => panic!("expected tuples, got {other:?}"),
        }
    }
    got
}

async fn tree_events(conn: &mut Conn, n: usize) -> Vec<TreeEvent> {
    let mut got = Vec::new();
    while got.len() < n {
        match receive(conn).await {
            Some(stream_manager_to_instance::Message::TreeEvents(e)) => got.extend(e.events),
            other => panic!("expected tree events, got {other:?}"),
        }
    }
    got
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

/// Kills the topology; returns the temporary directory so the caller may look
/// at what the processes left.
async fn kill(cluster: Cluster) -> tempfile::TempDir {
    client(
        &cluster.dir,
        client_request::Request::Kill(KillRequest { wait_secs: 0 }),
    )
    .await;
    for sm in cluster.sms {
        tokio::time::timeout(WAIT, sm)
            .await
            .expect("the stream manager exits after the kill")
            .unwrap()
            .unwrap();
    }
    cluster.master.abort();
    cluster._tmp
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trees_complete_fail_and_time_out_across_the_mesh() {
    let cluster = cluster().await;
    let mut spout = join(&cluster, 1, "spout-0").await;
    let mut bolt = join(&cluster, 2, "bolt-0").await;

    // Tree 1: the spout emits one tuple (edge 0xA1) to the bolt on the other
    // container; the bolt emits nothing and acks it: COMPLETED, once.
    // Tree 2: the bolt fails it: FAILED. Tree 3: nobody acks: FAILED by timeout.
    batch(
        &mut spout,
        vec![tuple(1, 0xA1), tuple(2, 0xB2), tuple(3, 0xC3)],
        vec![
            ack(AckKind::Init, 1, 0xA1),
            ack(AckKind::Init, 2, 0xB2),
            ack(AckKind::Init, 3, 0xC3),
        ],
    )
    .await;
    let started = Instant::now();
    let received = tuples(&mut bolt, 3).await;
    assert_eq!(received[0].roots, vec![root(1)]);
    assert_eq!(received[0].edge_id, 0xA1);
    // The acks travel alone (no tuples) from container 2 to the spout's ledger.
    batch(
        &mut bolt,
        Vec::new(),
        vec![ack(AckKind::Ack, 1, 0xA1), ack(AckKind::Fail, 2, 0)],
    )
    .await;
    let mut events = tree_events(&mut spout, 2).await;
    events.sort_by_key(|e| e.root.as_ref().unwrap().key);
    assert_eq!(events[0].outcome, TreeOutcome::Completed as i32);
    assert_eq!(events[0].root, Some(root(1)));
    assert!(events[0].complete_latency_us > 0);
    assert_eq!(events[1].outcome, TreeOutcome::Failed as i32);
    assert_eq!(events[1].root, Some(root(2)));

    // A duplicate ack is late: no second outcome. Tree 3 times out in 1..1.5 s.
    batch(&mut bolt, Vec::new(), vec![ack(AckKind::Ack, 1, 0xA1)]).await;
    let timed_out = tree_events(&mut spout, 1).await;
    let elapsed = started.elapsed();
    assert_eq!(timed_out.len(), 1, "{timed_out:?}");
    assert_eq!(timed_out[0].outcome, TreeOutcome::Failed as i32);
    assert_eq!(timed_out[0].root, Some(root(3)));
    assert!(
        elapsed >= Duration::from_millis(900) && elapsed < Duration::from_millis(2500),
        "timed out after {elapsed:?}"
    );

    let dir = cluster.dir.clone();
    let _tmp = kill(cluster).await;
    // The last snapshot of stmgr-1 holds the spout task's counters.
    let snapshots = egret_metrics::read_snapshots(dir.path()).unwrap();
    let stmgr = snapshots.iter().find(|s| s.process == "stmgr-1").unwrap();
    let value = |name: &str, component: &str, task: i32| {
        stmgr
            .metrics
            .iter()
            .find(|m| m.name == name && m.component == component && m.task == task)
            .map(|m| m.value)
    };
    assert_eq!(value("__ack-count", "spout", 2), Some(1.0));
    assert_eq!(value("__fail-count", "spout", 2), Some(1.0));
    assert_eq!(value("__timeout-count", "spout", 2), Some(1.0));
    assert!(value("__complete-latency-ms", "spout", 2).unwrap() > 0.0);
    assert_eq!(value("egret.ledger.pending", "__ledger", 0), Some(0.0));
    assert_eq!(value("egret.ledger.late", "__ledger", 0), Some(1.0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_managers_keep_routing_without_the_master_and_follow_a_new_one() {
    let mut cluster = cluster().await;
    let mut spout = join(&cluster, 1, "spout-0").await;
    let mut bolt = join(&cluster, 2, "bolt-0").await;

    // The master dies (its connections close with it).
    cluster.master.abort();
    let _ = (&mut cluster.master).await;
    batch(
        &mut spout,
        vec![tuple(1, 0xA1)],
        vec![ack(AckKind::Init, 1, 0xA1)],
    )
    .await;
    assert_eq!(tuples(&mut bolt, 1).await.len(), 1, "routing goes on");
    batch(&mut bolt, Vec::new(), vec![ack(AckKind::Ack, 1, 0xA1)]).await;
    assert_eq!(
        tree_events(&mut spout, 1).await[0].outcome,
        TreeOutcome::Completed as i32,
        "acking goes on"
    );

    // A new master (new address): both stream managers register again. The
    // unchanged plan moves nothing: no new assignment, no state change.
    cluster.master = start_master(&cluster.dir).await;
    client(&cluster.dir, client_request::Request::Deactivate(Empty {})).await;
    for conn in [&mut spout, &mut bolt] {
        match receive(conn).await {
            Some(stream_manager_to_instance::Message::State(change)) => {
                assert_eq!(change.state, TopologyState::Deactivated as i32)
            }
            other => panic!("expected the deactivation first, got {other:?}"),
        }
    }
    // The mesh is still up.
    batch(&mut spout, vec![tuple(2, 0xB2)], Vec::new()).await;
    assert_eq!(tuples(&mut bolt, 1).await.len(), 1);
    kill(cluster).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_reconnecting_over_a_half_open_connection_is_accepted() {
    let cluster = cluster().await;
    let mut spout = join(&cluster, 1, "spout-0").await;
    let mut stale = join(&cluster, 2, "bolt-0").await;
    // The bolt's JVM "restarts" without its old connection being closed.
    let mut bolt = join(&cluster, 2, "bolt-0").await;
    assert!(
        receive(&mut stale).await.is_none(),
        "the replaced connection is closed"
    );
    batch(
        &mut spout,
        vec![tuple(1, 0xA1)],
        vec![ack(AckKind::Init, 1, 0xA1)],
    )
    .await;
    assert_eq!(tuples(&mut bolt, 1).await[0].edge_id, 0xA1);
    kill(cluster).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_stream_manager_gets_its_instances_and_peers_back() {
    let mut cluster = cluster().await;
    let mut spout = join(&cluster, 1, "spout-0").await;
    let _old_bolt = join(&cluster, 2, "bolt-0").await;

    // Container 2's stream manager dies and comes back on a new data port; its
    // ledger-less peer redials through the new plan, its instance reconnects.
    let old = cluster.sms.remove(1);
    old.abort();
    let _ = old.await;
    cluster
        .sms
        .push(tokio::spawn(run(StreamManagerOptions::local(
            cluster.dir.path().to_owned(),
            2,
        ))));
    let mut bolt = join(&cluster, 2, "bolt-0").await;
    batch(
        &mut spout,
        vec![tuple(1, 0xA1)],
        vec![ack(AckKind::Init, 1, 0xA1)],
    )
    .await;
    assert_eq!(tuples(&mut bolt, 1).await[0].edge_id, 0xA1);
    batch(&mut bolt, Vec::new(), vec![ack(AckKind::Ack, 1, 0xA1)]).await;
    assert_eq!(
        tree_events(&mut spout, 1).await[0].outcome,
        TreeOutcome::Completed as i32
    );
    kill(cluster).await;
}
