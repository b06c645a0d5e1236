//! Durable state of this container's stateful tasks (contracts.md, "Durable
//! state"): an instance's `StateSave`, `StateLoad` and `CheckpointComplete`
//! requests carried out on the topology's checkpoint store, each answered by
//! one `StateReply`. Store calls block (fsync), so they run on tokio's
//! blocking pool; the instance's reader waits for each before reading on, so
//! an instance's requests are carried out in the order it sent them.

use egret_checkpoint_store::{Checkpoints, StoreError};
use egret_proto::v1::{
    CheckpointComplete, StateKind, StateLoad, StateReply, StateSave, instance_to_stream_manager,
};
use tracing::{info, warn};

/// A state request of an instance, if `message` is one.
pub(crate) enum Request {
    Save(StateSave),
    Load(StateLoad),
    Complete(CheckpointComplete),
}

impl Request {
    pub(crate) fn of(
        message: instance_to_stream_manager::Message,
    ) -> Result<Self, instance_to_stream_manager::Message> {
        match message {
            instance_to_stream_manager::Message::StateSave(m) => Ok(Self::Save(m)),
            instance_to_stream_manager::Message::StateLoad(m) => Ok(Self::Load(m)),
            instance_to_stream_manager::Message::CheckpointComplete(m) => Ok(Self::Complete(m)),
            other => Err(other),
        }
    }
}

/// Carries out `request` for instance `instance`, whose tasks are `tasks`.
pub(crate) async fn serve(
    checkpoints: &Checkpoints,
    instance: &str,
    tasks: &[i32],
    request: Request,
) -> StateReply {
    let request_id = match &request {
        Request::Save(m) => m.request_id,
        Request::Load(m) => m.request_id,
        Request::Complete(m) => m.request_id,
    };
    let task = match &request {
        Request::Save(m) => Some(m.task_id),
        Request::Load(m) => Some(m.task_id),
        Request::Complete(_) => None,
    };
    if let Some(task) = task.filter(|t| !tasks.contains(t)) {
        warn!(
            instance,
            task, "Refusing a state request for a task the instance does not run."
        );
        return StateReply {
            request_id,
            error: format!("task {task} is not a task of instance {instance}"),
            ..StateReply::default()
        };
    }
    let store = checkpoints.clone();
    let instance_owned = instance.to_owned();
    let done =
        tokio::task::spawn_blocking(move || carry_out(&store, &instance_owned, request)).await;
    let mut reply = match done {
        Ok(Ok(reply)) => reply,
        Ok(Err(err)) => {
            warn!(instance, error = %err, "A state request failed.");
            StateReply {
                error: err.to_string(),
                ..StateReply::default()
            }
        }
        Err(err) => StateReply {
            error: format!("the state request did not finish: {err}"),
            ..StateReply::default()
        },
    };
    reply.request_id = request_id;
    reply
}

fn carry_out(
    store: &Checkpoints,
    instance: &str,
    request: Request,
) -> Result<StateReply, StoreError> {
    match request {
        Request::Save(m) => {
            let base = m.delta.then_some(m.base_txid);
            match m.kind() {
                StateKind::Prepared => {
                    store.save_prepared(m.task_id, &m.namespace, m.txid, base, &m.data)?
                }
                StateKind::Committed => {
                    store.save_committed(m.task_id, &m.namespace, m.txid, base, &m.data)?
                }
                StateKind::Local => store.save_local(m.task_id, &m.namespace, &m.data)?,
                StateKind::Unspecified => {
                    return Ok(StateReply {
                        error: "a state save without a kind".to_owned(),
                        ..StateReply::default()
                    });
                }
            }
            Ok(StateReply::default())
        }
        Request::Load(m) => {
            let mut reply = StateReply::default();
            if m.local {
                if let Some(own) = store.restore_local(m.task_id, &m.namespace)? {
                    reply.has_committed = true;
                    reply.committed_txid = own.txid;
                    reply.committed = own.data.into();
                }
            } else {
                let restored = store.restore(m.task_id, &m.namespace)?;
                if let Some(c) = restored.committed {
                    reply.has_committed = true;
                    reply.committed_txid = c.txid;
                    reply.committed = c.data.into();
                    reply.committed_deltas = c.deltas.into_iter().map(Into::into).collect();
                }
                if let Some(p) = restored.prepared {
                    reply.has_prepared = true;
                    reply.prepared_txid = p.txid;
                    reply.prepared = p.data.into();
                    reply.prepared_deltas = p.deltas.into_iter().map(Into::into).collect();
                }
            }
            info!(
                instance,
                task = m.task_id,
                namespace = %m.namespace,
                committed = reply.has_committed.then_some(reply.committed_txid),
                prepared = reply.has_prepared.then_some(reply.prepared_txid),
                "State restored from the checkpoint store."
            );
            Ok(reply)
        }
        Request::Complete(m) => {
            let now_ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
            if let Some(done) = store.complete(m.txid, now_ms)? {
                info!(
                    txid = m.txid,
                    tasks = done.tasks.len(),
                    bytes = done.total_bytes(),
                    "Checkpoint complete."
                );
            }
            Ok(StateReply::default())
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;
    use egret_checkpoint_store::LocalDirStore;
    use std::sync::Arc;

    fn save(request_id: u64, task_id: i32, kind: StateKind, txid: i64, data: &[u8]) -> Request {
        Request::Save(StateSave {
            request_id,
            task_id,
            namespace: "sum-2".into(),
            kind: kind as i32,
            txid,
            data: data.to_vec().into(),
            delta: false,
            base_txid: 0,
        })
    }

    fn delta(request_id: u64, kind: StateKind, txid: i64, base_txid: i64, data: &[u8]) -> Request {
        let Request::Save(m) = save(request_id, 2, kind, txid, data) else {
            unreachable!("save makes a Save");
        };
        Request::Save(StateSave {
            delta: true,
            base_txid,
            ..m
        })
    }

    #[tokio::test]
    async fn saves_completes_and_restores_a_task() {
        let dir = tempfile::tempdir().unwrap();
        let store = Checkpoints::new(Arc::new(LocalDirStore::new(dir.path())), "topo", 3);
        let tasks = [2];
        for (id, kind, txid, data) in [
            (1, StateKind::Prepared, 0, &b"p0"[..]),
            (2, StateKind::Committed, 0, b"c0"),
            (3, StateKind::Prepared, 1, b"p1"),
        ] {
            let reply = serve(&store, "i", &tasks, save(id, 2, kind, txid, data)).await;
            assert_eq!((reply.request_id, reply.error.as_str()), (id, ""));
        }
        let complete = Request::Complete(CheckpointComplete {
            request_id: 4,
            txid: 0,
        });
        assert_eq!(serve(&store, "i", &tasks, complete).await.error, "");
        let load = Request::Load(StateLoad {
            request_id: 5,
            task_id: 2,
            namespace: "sum-2".into(),
            local: false,
        });
        let reply = serve(&store, "i", &tasks, load).await;
        assert_eq!(reply.request_id, 5);
        assert!(reply.has_committed && reply.has_prepared, "{reply:?}");
        assert_eq!(
            (reply.committed_txid, &reply.committed[..]),
            (0, &b"c0"[..])
        );
        assert_eq!((reply.prepared_txid, &reply.prepared[..]), (1, &b"p1"[..]));
        assert!(reply.committed_deltas.is_empty() && reply.prepared_deltas.is_empty());

        // Checkpoint 2 stored as a delta on 0: its state comes as 0's and the delta.
        for (id, kind) in [(10, StateKind::Prepared), (11, StateKind::Committed)] {
            let reply = serve(&store, "i", &tasks, delta(id, kind, 2, 0, b"d2")).await;
            assert_eq!(reply.error, "");
        }
        let complete = Request::Complete(CheckpointComplete {
            request_id: 12,
            txid: 2,
        });
        assert_eq!(serve(&store, "i", &tasks, complete).await.error, "");
        let load = Request::Load(StateLoad {
            request_id: 13,
            task_id: 2,
            namespace: "sum-2".into(),
            local: false,
        });
        let reply = serve(&store, "i", &tasks, load).await;
        assert_eq!(
            (reply.committed_txid, &reply.committed[..]),
            (2, &b"c0"[..])
        );
        assert_eq!(reply.committed_deltas, [&b"d2"[..]]);
        assert!(!reply.has_prepared);
        let bad = serve(
            &store,
            "i",
            &tasks,
            delta(14, StateKind::Prepared, 3, 3, b"x"),
        )
        .await;
        assert!(bad.error.contains("not older"), "{}", bad.error);

        let other = serve(&store, "i", &tasks, save(6, 9, StateKind::Local, 0, b"x")).await;
        assert!(other.error.contains("task 9"), "{}", other.error);
        let unspecified = serve(
            &store,
            "i",
            &tasks,
            save(7, 2, StateKind::Unspecified, 0, b"x"),
        )
        .await;
        assert!(!unspecified.error.is_empty());
    }
}
