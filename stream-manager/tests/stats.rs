//! A topology master and a stream manager in process, with a fake instance:
//! the instance's statistics reports reach the master through the stream
//! manager, and the master answers them in `topology_info`.

// Test helpers outside #[test] functions: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use egret_proto::frame::{decode_message, encode_message};
use egret_proto::handshake::connect;
use egret_proto::v1::{
    ClientRequest, ClientResponse, Component, ComponentKind, ContainerPlan, Empty, InstancePlan,
    InstanceToStreamManager, PackingPlan, PeerRole, StatsReport, StreamManagerToInstance,
    TaskStatsDelta, Topology, client_request, instance_to_stream_manager,
    stream_manager_to_instance,
};
use egret_state_manager::LocalCluster;
use egret_stream_manager::{StreamManagerOptions, run};
use egret_topology_master::TopologyMaster;
use futures::{SinkExt, StreamExt};
use tokio::net::UnixStream;

/// The topology as submission leaves it: explicit counts, resolved settings.
fn resolved(mut topology: Topology) -> Topology {
    egret_config::settings::resolve_topology(&mut topology).unwrap();
    topology
}

const WAIT: Duration = Duration::from_secs(5);

async fn topology_info(dir: &egret_state_manager::TopologyDir) -> ClientResponse {
    let response = egret_topology_master::client::request(
        dir.path(),
        ClientRequest {
            request: Some(client_request::Request::TopologyInfo(Empty {})),
        },
        WAIT,
    )
    .await
    .unwrap();
    assert!(response.ok, "{}", response.error);
    response
}

fn all_time_acked(response: &ClientResponse) -> u64 {
    response.executors[0]
        .windows
        .iter()
        .find(|w| w.window == ":all-time")
        .and_then(|w| w.sums.as_ref())
        .map_or(0, |s| s.acked.values().sum())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_report_reaches_the_master_through_its_stream_manager() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = LocalCluster::new(tmp.path()).create_topology("s").unwrap();
    dir.write_topology(&resolved(Topology {
        name: "s".into(),
        id: "s-1-1".into(),
        config_json: "{}".into(),
        components: vec![Component {
            id: "spout".into(),
            kind: ComponentKind::Spout as i32,
            parallelism: 1,
            num_tasks: 2,
            ..Default::default()
        }],
        ..Default::default()
    }))
    .unwrap();
    dir.write_packing_plan(&PackingPlan {
        topology_id: "s-1-1".into(),
        containers: vec![ContainerPlan {
            index: 1,
            instances: vec![InstancePlan {
                instance_id: "spout-0".into(),
                component: "spout".into(),
                executor_index: 0,
                task_ids: vec![1, 2],
                heap_mb: 64,
                cpu_percent: 0.0,
            }],
        }],
    })
    .unwrap();
    let token = dir.create_credentials("test").unwrap().token().clone();
    let sm = tokio::spawn(run(StreamManagerOptions::local(dir.path().to_owned(), 1)));
    let master = TopologyMaster::bind(dir.clone()).await.unwrap();
    let master = tokio::spawn(master.serve());

    let path = dir.stream_manager_socket(1);
    let deadline = tokio::time::Instant::now() + WAIT;
    let stream = loop {
        match UnixStream::connect(&path).await {
            Ok(stream) => break stream,
            Err(err) if tokio::time::Instant::now() > deadline => panic!("no socket: {err}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    };
    let mut conn = connect(stream, &token, PeerRole::Instance, "spout-0", 1 << 20)
        .await
        .unwrap();
    let first = tokio::time::timeout(WAIT, conn.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let first: StreamManagerToInstance = decode_message(first).unwrap();
    assert!(matches!(
        first.message,
        Some(stream_manager_to_instance::Message::Assignment(_))
    ));

    for (task, acked) in [(1, 4u64), (2, 6u64)] {
        let report = InstanceToStreamManager {
            message: Some(instance_to_stream_manager::Message::Stats(StatsReport {
                timestamp_ms: 1,
                // The stream manager names the sender itself.
                instance_id: String::new(),
                tasks: vec![TaskStatsDelta {
                    task_id: task,
                    acked: [("default".to_owned(), acked)].into(),
                    ..Default::default()
                }],
            })),
        };
        conn.send(encode_message(&report)).await.unwrap();
    }

    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let response = topology_info(&dir).await;
        if all_time_acked(&response) == 10 {
            assert_eq!(response.executors[0].instance_id, "spout-0");
            assert!(response.executors[0].is_spout);
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the reports did not reach the master: {response:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    sm.abort();
    master.abort();
}
