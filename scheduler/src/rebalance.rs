//! Storm's rebalance: a running topology's executor counts (`-e
//! COMPONENT=N`) and worker count (`-n N`) change, its task ids do not.
//!
//! Invariants:
//! - a component's task count (`setNumTasks`, fixed at submission) never
//!   changes, so task ids, the spouts' task indexes and the task a fields
//!   grouping picks for a key are the same before and after;
//! - a component gets at most as many executors as it has tasks, and at least
//!   one: anything else is refused naming the component and both numbers
//!   (Storm's Nimbus would silently leave the extra executors empty);
//! - a request is validated entirely before anything changes: an unknown
//!   component, a bad count or a topology that no longer packs is an error and
//!   the topology is left as it was;
//! - the new packing plan is computed by [`crate::packing::pack_topology`],
//!   the one packing of a submission, from the updated topology (its
//!   components' `parallelism` and its config's `topology.workers`).

use std::collections::BTreeMap;

use egret_proto::v1::{PackingPlan, Topology};

use crate::packing::{self, PackingError};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RebalanceError {
    #[error("-e expects COMPONENT=PARALLELISM, found '{0}'")]
    BadExecutorArg(String),
    #[error("-e {component}={value}: the parallelism must be a whole number of at least 1")]
    BadParallelism { component: String, value: String },
    #[error("-e {0} is given twice")]
    DuplicateComponent(String),
    #[error("-n must be at least 1, found {0}")]
    BadWorkers(i64),
    #[error("topology '{topology}' has no component '{component}' (its components: {known})")]
    UnknownComponent {
        topology: String,
        component: String,
        known: String,
    },
    #[error(
        "component '{component}' has {tasks} tasks (fixed at submission by setNumTasks or its \
         parallelism hint): it cannot run {executors} executors; ask for at most {tasks}"
    )]
    MoreExecutorsThanTasks {
        component: String,
        executors: i32,
        tasks: i32,
    },
    #[error("the rebalanced topology does not pack: {0}")]
    Packing(String),
}

/// What a rebalance changes: the new `topology.workers` and new executor
/// counts by component (absent: unchanged).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    pub workers: Option<i64>,
    pub executors: BTreeMap<String, i32>,
}

impl Changes {
    /// From the command line's `-n` and `-e COMPONENT=N` values.
    pub fn parse(workers: Option<i64>, executors: &[String]) -> Result<Self, RebalanceError> {
        if let Some(n) = workers
            && n < 1
        {
            return Err(RebalanceError::BadWorkers(n));
        }
        let mut out = BTreeMap::new();
        for arg in executors {
            let (component, value) = arg
                .split_once('=')
                .map(|(c, v)| (c.trim(), v.trim()))
                .filter(|(c, _)| !c.is_empty())
                .ok_or_else(|| RebalanceError::BadExecutorArg(arg.clone()))?;
            let parallelism = value
                .parse::<i32>()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| RebalanceError::BadParallelism {
                    component: component.to_owned(),
                    value: value.to_owned(),
                })?;
            if out.insert(component.to_owned(), parallelism).is_some() {
                return Err(RebalanceError::DuplicateComponent(component.to_owned()));
            }
        }
        Ok(Self {
            workers,
            executors: out,
        })
    }
}

/// The topology with `changes` applied and its new packing plan; `topology`
/// itself is not changed. See the module's invariants.
pub fn rebalance(
    topology: &Topology,
    changes: &Changes,
) -> Result<(Topology, PackingPlan), RebalanceError> {
    let mut next = topology.clone();
    for (id, executors) in &changes.executors {
        let Some(component) = next.components.iter_mut().find(|c| &c.id == id) else {
            let mut known: Vec<&str> = topology.components.iter().map(|c| c.id.as_str()).collect();
            known.sort_unstable();
            return Err(RebalanceError::UnknownComponent {
                topology: topology.name.clone(),
                component: id.clone(),
                known: known.join(", "),
            });
        };
        let (_, tasks) = egret_config::settings::component_counts(component)
            .map_err(|e| RebalanceError::Packing(e.to_string()))?;
        if *executors < 1 {
            return Err(RebalanceError::BadParallelism {
                component: id.clone(),
                value: executors.to_string(),
            });
        }
        if *executors > tasks {
            return Err(RebalanceError::MoreExecutorsThanTasks {
                component: id.clone(),
                executors: *executors,
                tasks,
            });
        }
        // The task count stays explicit, so it cannot follow the parallelism.
        component.num_tasks = tasks;
        component.parallelism = *executors;
    }
    if let Some(workers) = changes.workers {
        if workers < 1 {
            return Err(RebalanceError::BadWorkers(workers));
        }
        let mut config = egret_config::topology::config_map(topology)
            .map_err(|e| RebalanceError::Packing(e.to_string()))?;
        config.insert(
            egret_config::TOPOLOGY_WORKERS.to_owned(),
            serde_json::Value::from(workers),
        );
        next.config_json = serde_json::Value::Object(config).to_string();
    }
    let plan = packing::pack_topology(&next)
        .map_err(|e: PackingError| RebalanceError::Packing(e.to_string()))?;
    Ok((next, plan))
}

/// Each task id of `plan` with the instance (executor) hosting it and that
/// instance's container, in task order.
pub fn task_placement(plan: &PackingPlan) -> BTreeMap<i32, (String, i32)> {
    let mut out = BTreeMap::new();
    for container in &plan.containers {
        for instance in &container.instances {
            for task in &instance.task_ids {
                out.insert(*task, (instance.instance_id.clone(), container.index));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;
    use egret_proto::v1::{Component, ComponentKind};

    fn component(id: &str, kind: ComponentKind, parallelism: i32, num_tasks: i32) -> Component {
        Component {
            id: id.into(),
            kind: kind as i32,
            parallelism,
            num_tasks,
            ..Default::default()
        }
    }

    /// SequenceTopology's shape: spout 2, relay 2, sink 2 executors over 4 tasks.
    fn sequence() -> Topology {
        Topology {
            name: "seq".into(),
            id: "seq-1-1".into(),
            config_json: r#"{"topology.workers":2}"#.into(),
            components: vec![
                component("relay", ComponentKind::Bolt, 2, 2),
                component("sink", ComponentKind::Bolt, 2, 4),
                component("spout", ComponentKind::Spout, 2, 2),
            ],
            ..Default::default()
        }
    }

    fn executors_of(plan: &PackingPlan, component: &str) -> Vec<Vec<i32>> {
        let mut out: Vec<(i32, Vec<i32>)> = plan
            .containers
            .iter()
            .flat_map(|c| &c.instances)
            .filter(|i| i.component == component)
            .map(|i| (i.executor_index, i.task_ids.clone()))
            .collect();
        out.sort();
        out.into_iter().map(|(_, t)| t).collect()
    }

    #[test]
    fn executors_and_workers_change_and_task_ids_do_not() {
        let before = sequence();
        let old_plan = packing::pack_topology(&before).unwrap();
        assert_eq!(old_plan.containers.len(), 2);
        assert_eq!(
            executors_of(&old_plan, "sink"),
            vec![vec![3, 4], vec![5, 6]]
        );

        let changes = Changes::parse(Some(3), &["sink=4".into()]).unwrap();
        let (after, plan) = rebalance(&before, &changes).unwrap();
        assert_eq!(plan.containers.len(), 3);
        assert_eq!(
            executors_of(&plan, "sink"),
            vec![vec![3], vec![4], vec![5], vec![6]]
        );
        let sink = after.components.iter().find(|c| c.id == "sink").unwrap();
        assert_eq!((sink.parallelism, sink.num_tasks), (4, 4));
        let config = egret_config::topology::config_map(&after).unwrap();
        assert_eq!(config[egret_config::TOPOLOGY_WORKERS], serde_json::json!(3));
        // Every task is still there, each exactly once, with the same ids.
        let old_tasks: Vec<i32> = task_placement(&old_plan).into_keys().collect();
        let new_tasks: Vec<i32> = task_placement(&plan).into_keys().collect();
        assert_eq!(old_tasks, new_tasks);
        assert_eq!(new_tasks, (1..=8).collect::<Vec<_>>());
        // The input is untouched.
        assert_eq!(before, sequence());

        // And back: the plan is the one of the submission again.
        let back = Changes::parse(Some(2), &["sink=2".into()]).unwrap();
        let (again, plan_back) = rebalance(&after, &back).unwrap();
        assert_eq!(plan_back, old_plan);
        assert_eq!(
            again.components, before.components,
            "counts as they were submitted"
        );
    }

    #[test]
    fn a_component_with_one_executor_per_task_cannot_grow() {
        let err = rebalance(
            &sequence(),
            &Changes::parse(None, &["relay=3".into()]).unwrap(),
        )
        .unwrap_err();
        assert_eq!(
            err,
            RebalanceError::MoreExecutorsThanTasks {
                component: "relay".into(),
                executors: 3,
                tasks: 2
            }
        );
        let text = err.to_string();
        assert!(
            text.contains("'relay'") && text.contains("2 tasks") && text.contains("3 executors"),
            "{text}"
        );
    }

    #[test]
    fn unknown_components_and_bad_values_are_refused_naming_them() {
        let err = rebalance(
            &sequence(),
            &Changes::parse(None, &["sinks=2".into()]).unwrap(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("'sinks'") && err.contains("relay, sink, spout"),
            "{err}"
        );
        for (arg, needle) in [
            ("sink", "COMPONENT=PARALLELISM"),
            ("=3", "COMPONENT=PARALLELISM"),
            ("sink=0", "at least 1"),
            ("sink=-2", "at least 1"),
            ("sink=two", "sink=two"),
        ] {
            let err = Changes::parse(None, &[arg.into()]).unwrap_err().to_string();
            assert!(err.contains(needle), "{arg}: {err}");
        }
        let err = Changes::parse(None, &["sink=2".into(), "sink=3".into()]).unwrap_err();
        assert_eq!(err, RebalanceError::DuplicateComponent("sink".into()));
        assert_eq!(
            Changes::parse(Some(0), &[]).unwrap_err(),
            RebalanceError::BadWorkers(0)
        );
    }

    #[test]
    fn nothing_to_change_packs_the_same_plan() {
        let topology = sequence();
        let (same, plan) = rebalance(&topology, &Changes::default()).unwrap();
        assert_eq!(same, topology);
        assert_eq!(plan, packing::pack_topology(&topology).unwrap());
    }
}
