//! The processes' logs, on whatever host they run (`ClientRequest.logs`):
//! the master relays a client's query to the stream manager of the container
//! that runs the process, over the stream manager's own (TLS) session, and
//! answers with its reply. Each stream manager reads its host's log files.
//!
//! Invariants: every queue is bounded ([`QUERIES_PER_CONNECTION`] queries
//! waiting per stream manager, as many unanswered at once); a query that gets
//! no reply within [`REPLY_TIMEOUT`] is answered with an error naming the
//! container, and its late reply is dropped.

use std::collections::HashMap;
use std::time::Duration;

use egret_proto::v1::{ClientResponse, LogProcess, LogQuery, LogReply, LogRequest, PackingPlan};
use tokio::sync::{mpsc, oneshot};

/// A query for a stream manager's connection and where its reply goes.
pub(crate) type Query = (LogQuery, oneshot::Sender<LogReply>);

/// Queries waiting for one stream manager's connection, and unanswered ones
/// at once, at most.
pub(crate) const QUERIES_PER_CONNECTION: usize = 8;

/// How long a stream manager has to answer one query.
pub(crate) const REPLY_TIMEOUT: Duration = Duration::from_secs(5);

/// The queries a stream manager's connection has sent and not had answered.
#[derive(Default)]
pub(crate) struct Pending {
    next_id: u64,
    waiting: HashMap<u64, oneshot::Sender<LogReply>>,
}

impl Pending {
    /// The request to send for `query`; `None` (the reply refused at once)
    /// when [`QUERIES_PER_CONNECTION`] are unanswered.
    pub(crate) fn start(
        &mut self,
        query: LogQuery,
        reply: oneshot::Sender<LogReply>,
    ) -> Option<LogRequest> {
        // Those whose client gave up are not waited for any more.
        self.waiting.retain(|_, tx| !tx.is_closed());
        if self.waiting.len() >= QUERIES_PER_CONNECTION {
            let _ = reply.send(LogReply {
                error: format!(
                    "{QUERIES_PER_CONNECTION} log queries are already waiting for this stream manager"
                ),
                ..Default::default()
            });
            return None;
        }
        self.next_id += 1;
        self.waiting.insert(self.next_id, reply);
        Some(LogRequest {
            request_id: self.next_id,
            query: Some(query),
        })
    }

    /// Hands `reply` to its client; one nobody waits for is dropped.
    pub(crate) fn finish(&mut self, reply: LogReply) {
        if let Some(tx) = self.waiting.remove(&reply.request_id) {
            let _ = tx.send(reply);
        }
    }
}

/// The container that runs `process`: `stmgr-N` is container N's stream
/// manager, any other name an instance of the packing plan.
pub(crate) fn container_of(packing: &PackingPlan, process: &str) -> Option<i32> {
    if let Some(index) = process
        .strip_prefix("stmgr-")
        .and_then(|n| n.parse::<i32>().ok())
    {
        return packing
            .containers
            .iter()
            .any(|c| c.index == index)
            .then_some(index);
    }
    packing
        .containers
        .iter()
        .find(|c| c.instances.iter().any(|i| i.instance_id == process))
        .map(|c| c.index)
}

/// Sends `query` to one stream manager's connection and waits for its reply.
pub(crate) async fn ask(
    container: i32,
    queries: &mpsc::Sender<Query>,
    query: LogQuery,
) -> Result<LogReply, String> {
    let (tx, rx) = oneshot::channel();
    queries
        .try_send((query, tx))
        .map_err(|_| format!("the stream manager of container {container} is busy or gone"))?;
    match tokio::time::timeout(REPLY_TIMEOUT, rx).await {
        Ok(Ok(reply)) if reply.error.is_empty() => Ok(reply),
        Ok(Ok(reply)) => Err(reply.error),
        Ok(Err(_)) => Err(format!(
            "the stream manager of container {container} was lost before it answered"
        )),
        Err(_) => Err(format!(
            "the stream manager of container {container} did not answer within {REPLY_TIMEOUT:?}"
        )),
    }
}

/// The answer to `ClientRequest.logs`, given the registered stream managers'
/// query channels by container. `Err` is the refusal's text.
pub(crate) async fn answer(
    packing: &PackingPlan,
    connections: Vec<(i32, mpsc::Sender<Query>)>,
    query: LogQuery,
) -> Result<ClientResponse, String> {
    if query.process.is_empty() {
        // Every container at once; one that does not answer is left out.
        let asked = connections.into_iter().map(|(container, queries)| {
            let query = query.clone();
            async move { (container, ask(container, &queries, query).await) }
        });
        let mut log_processes = Vec::new();
        for (container, reply) in futures::future::join_all(asked).await {
            match reply {
                Ok(reply) => log_processes.extend(
                    reply
                        .processes
                        .into_iter()
                        .map(|process| LogProcess { process, container }),
                ),
                Err(err) => {
                    tracing::warn!(container, error = %err, "No log list from a container.")
                }
            }
        }
        return Ok(ClientResponse {
            log_processes,
            ..Default::default()
        });
    }
    let container = container_of(packing, &query.process).ok_or_else(|| {
        format!(
            "the topology has no process '{}' (stmgr-N or an instance id of the packing plan)",
            query.process
        )
    })?;
    let queries = connections
        .into_iter()
        .find(|(c, _)| *c == container)
        .map(|(_, q)| q)
        .ok_or_else(|| format!("the stream manager of container {container} is not registered"))?;
    let reply = ask(container, &queries, query).await?;
    Ok(ClientResponse {
        log_lines: reply.lines,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use egret_proto::v1::{ContainerPlan, InstancePlan};

    fn packing() -> PackingPlan {
        let instance = |id: &str| InstancePlan {
            instance_id: id.to_owned(),
            ..Default::default()
        };
        PackingPlan {
            containers: vec![
                ContainerPlan {
                    index: 1,
                    instances: vec![instance("spout-1")],
                },
                ContainerPlan {
                    index: 2,
                    instances: vec![instance("count-2"), instance("count-3")],
                },
            ],
            ..Default::default()
        }
    }

    #[test]
    fn processes_are_found_in_their_containers() {
        let p = packing();
        assert_eq!(container_of(&p, "stmgr-2"), Some(2));
        assert_eq!(container_of(&p, "count-3"), Some(2));
        assert_eq!(container_of(&p, "spout-1"), Some(1));
        assert_eq!(container_of(&p, "stmgr-9"), None);
        assert_eq!(container_of(&p, "nope"), None);
    }

    #[test]
    fn pending_queries_are_bounded_and_matched_by_id() {
        let mut pending = Pending::default();
        let mut receivers = Vec::new();
        for _ in 0..QUERIES_PER_CONNECTION {
            let (tx, rx) = oneshot::channel();
            assert!(pending.start(LogQuery::default(), tx).is_some());
            receivers.push(rx);
        }
        let (tx, mut refused) = oneshot::channel();
        assert!(pending.start(LogQuery::default(), tx).is_none());
        assert!(
            refused
                .try_recv()
                .unwrap()
                .error
                .contains("already waiting")
        );
        // A client that gave up frees its place.
        drop(receivers.pop());
        let (tx, _rx) = oneshot::channel();
        assert!(pending.start(LogQuery::default(), tx).is_some());
        pending.finish(LogReply {
            request_id: 1,
            lines: vec!["x".into()],
            ..Default::default()
        });
        assert_eq!(receivers[0].try_recv().unwrap().lines, ["x"]);
        // An unknown or late reply is dropped.
        pending.finish(LogReply {
            request_id: 99,
            ..Default::default()
        });
    }

    #[tokio::test]
    async fn an_unknown_process_and_an_unregistered_container_are_named() {
        let p = packing();
        let query = |process: &str| LogQuery {
            process: process.to_owned(),
            lines: 10,
        };
        let err = answer(&p, vec![], query("nope")).await.unwrap_err();
        assert!(err.contains("no process 'nope'"), "{err}");
        let err = answer(&p, vec![], query("count-2")).await.unwrap_err();
        assert!(err.contains("container 2 is not registered"), "{err}");
    }
}
