//! The delivery table: where each task id of the topology lives, seen from one
//! container.
//!
//! Invariants (checked by [`DeliveryTable::build`], which refuses a plan that
//! breaks them):
//! - routes, containers and components of tasks come from the packing plan;
//!   the plan is checked against Storm's numbering of the (submitted, so
//!   explicit) `num_tasks`, [`egret_config::settings::task_ranges`], the same
//!   function packing numbers with;
//! - every task id of the topology is hosted by exactly one instance of the
//!   packing plan, and that instance belongs to the task's component;
//! - container indices and instance ids are unique; this container is in the plan.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use egret_proto::v1::{PackingPlan, Topology};

/// Where a tuple for a task goes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Destination {
    /// An instance of this container, by instance id.
    Local(Arc<str>),
    /// The stream manager of another container, by container index.
    Remote(i32),
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PlanError {
    #[error("container {0} is not in the packing plan")]
    NoSuchContainer(i32),
    #[error("container {0} appears twice in the packing plan")]
    DuplicateContainer(i32),
    #[error("instance '{0}' appears twice in the packing plan")]
    DuplicateInstance(String),
    #[error("instance '{instance}' runs component '{component}', which the topology does not have")]
    UnknownComponent { instance: String, component: String },
    #[error(
        "instance '{instance}' hosts task {task}, which is not a task of component '{component}' (its tasks are {first}..={last})"
    )]
    UnknownTask {
        instance: String,
        component: String,
        task: i32,
        first: i32,
        last: i32,
    },
    #[error("task {task} is hosted by both '{first}' and '{second}'")]
    DuplicateTask {
        task: i32,
        first: String,
        second: String,
    },
    #[error("task {task} of component '{component}' is hosted by no instance of the packing plan")]
    UnhostedTask { task: i32, component: String },
    #[error("{0}")]
    BadTaskCount(String),
}

/// Task id -> destination, for one container.
#[derive(Debug, Clone)]
pub struct DeliveryTable {
    container_index: i32,
    routes: HashMap<i32, Destination>,
    task_container: BTreeMap<i32, i32>,
    task_components: HashMap<i32, String>,
}

/// Task ids of each component (first, last), the one numbering of the Rust side.
fn task_ranges(topology: &Topology) -> Result<HashMap<&str, (i32, i32)>, PlanError> {
    let ranges = egret_config::settings::task_ranges(topology)
        .map_err(|e| PlanError::BadTaskCount(e.to_string()))?;
    Ok(ranges
        .into_iter()
        .map(|(id, first, last)| (id, (first, last)))
        .collect())
}

impl DeliveryTable {
    /// Builds the table of container `container_index`, validating the packing
    /// plan against the topology.
    pub fn build(
        topology: &Topology,
        packing: &PackingPlan,
        container_index: i32,
    ) -> Result<Self, PlanError> {
        let ranges = task_ranges(topology)?;
        let mut routes = HashMap::new();
        let mut task_container = BTreeMap::new();
        let mut task_components = HashMap::new();
        let mut hosts: HashMap<i32, &str> = HashMap::new();
        let mut containers = std::collections::HashSet::new();
        let mut instances = std::collections::HashSet::new();
        for container in &packing.containers {
            if !containers.insert(container.index) {
                return Err(PlanError::DuplicateContainer(container.index));
            }
            for instance in &container.instances {
                if !instances.insert(instance.instance_id.as_str()) {
                    return Err(PlanError::DuplicateInstance(instance.instance_id.clone()));
                }
                let &(first, last) = ranges.get(instance.component.as_str()).ok_or_else(|| {
                    PlanError::UnknownComponent {
                        instance: instance.instance_id.clone(),
                        component: instance.component.clone(),
                    }
                })?;
                let local: Arc<str> = Arc::from(instance.instance_id.as_str());
                for &task in &instance.task_ids {
                    if task < first || task > last {
                        return Err(PlanError::UnknownTask {
                            instance: instance.instance_id.clone(),
                            component: instance.component.clone(),
                            task,
                            first,
                            last,
                        });
                    }
                    if let Some(other) = hosts.insert(task, instance.instance_id.as_str()) {
                        return Err(PlanError::DuplicateTask {
                            task,
                            first: other.to_owned(),
                            second: instance.instance_id.clone(),
                        });
                    }
                    let destination = if container.index == container_index {
                        Destination::Local(Arc::clone(&local))
                    } else {
                        Destination::Remote(container.index)
                    };
                    routes.insert(task, destination);
                    task_container.insert(task, container.index);
                    task_components.insert(task, instance.component.clone());
                }
            }
        }
        if !containers.contains(&container_index) {
            return Err(PlanError::NoSuchContainer(container_index));
        }
        for (component, &(first, last)) in &ranges {
            if let Some(task) = (first..=last).find(|t| !routes.contains_key(t)) {
                return Err(PlanError::UnhostedTask {
                    task,
                    component: (*component).to_owned(),
                });
            }
        }
        Ok(Self {
            container_index,
            routes,
            task_container,
            task_components,
        })
    }

    pub fn container_index(&self) -> i32 {
        self.container_index
    }

    /// Where a tuple for `task` goes; `None` for a task the topology does not have.
    pub fn destination(&self, task: i32) -> Option<&Destination> {
        self.routes.get(&task)
    }

    /// Container index of every task of the topology.
    pub fn task_container(&self) -> &BTreeMap<i32, i32> {
        &self.task_container
    }

    /// Component of every task of the topology.
    pub fn task_components(&self) -> &HashMap<i32, String> {
        &self.task_components
    }

    pub fn num_tasks(&self) -> usize {
        self.routes.len()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use egret_proto::v1::{Component, ContainerPlan, InstancePlan};

    fn component(id: &str, parallelism: i32, num_tasks: i32) -> Component {
        Component {
            id: id.into(),
            parallelism,
            num_tasks,
            ..Default::default()
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

    /// "count" (2 executors, 3 tasks: 1,2 | 3), "split" (1 executor, 2 tasks: 4,5),
    /// "words" (3 executors, 3 tasks: 6 | 7 | 8), round-robin over 2 containers.
    pub(crate) fn sample() -> (Topology, PackingPlan) {
        let topology = Topology {
            name: "wc".into(),
            id: "wc-1-1".into(),
            components: vec![
                component("count", 2, 3),
                component("split", 1, 2),
                component("words", 3, 3),
            ],
            ..Default::default()
        };
        let packing = PackingPlan {
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
        };
        (topology, packing)
    }

    #[test]
    fn every_task_maps_to_exactly_one_place() {
        let (topology, packing) = sample();
        let one = DeliveryTable::build(&topology, &packing, 1).unwrap();
        let two = DeliveryTable::build(&topology, &packing, 2).unwrap();
        assert_eq!(one.num_tasks(), 8);
        for task in 1..=8 {
            let a = one.destination(task).unwrap();
            let b = two.destination(task).unwrap();
            // Exactly one side hosts it locally, the other sends it to that side.
            match (a, b) {
                (Destination::Local(_), Destination::Remote(1)) => {}
                (Destination::Remote(2), Destination::Local(_)) => {}
                other => panic!("task {task} maps to {other:?}"),
            }
        }
        assert_eq!(one.destination(0), None);
        assert_eq!(one.destination(9), None);
    }

    #[test]
    fn local_tasks_map_to_their_instance() {
        let (topology, packing) = sample();
        let one = DeliveryTable::build(&topology, &packing, 1).unwrap();
        let local = |task| match one.destination(task) {
            Some(Destination::Local(id)) => id.to_string(),
            other => panic!("task {task} is not local: {other:?}"),
        };
        assert_eq!(local(1), "count-0");
        assert_eq!(local(2), "count-0");
        assert_eq!(local(4), "split-0");
        assert_eq!(local(5), "split-0");
        assert_eq!(local(7), "words-1");
        assert_eq!(one.destination(3), Some(&Destination::Remote(2)));
        assert_eq!(one.destination(6), Some(&Destination::Remote(2)));
        assert_eq!(one.task_container().get(&8), Some(&2));
        assert_eq!(one.task_container().get(&4), Some(&1));
        assert_eq!(one.task_container().len(), 8);
    }

    #[test]
    fn a_plan_with_an_unknown_task_is_a_clear_error() {
        let (topology, mut packing) = sample();
        packing.containers[1].instances[0].task_ids.push(42);
        let err = DeliveryTable::build(&topology, &packing, 1).unwrap_err();
        assert!(
            matches!(err, PlanError::UnknownTask { task: 42, .. }),
            "{err}"
        );
        let text = err.to_string();
        assert!(text.contains("42") && text.contains("count-1"), "{text}");
    }

    #[test]
    fn other_broken_plans_are_refused() {
        let (topology, packing) = sample();
        assert_eq!(
            DeliveryTable::build(&topology, &packing, 3).unwrap_err(),
            PlanError::NoSuchContainer(3)
        );

        let mut missing = packing.clone();
        missing.containers[1].instances.pop();
        assert!(matches!(
            DeliveryTable::build(&topology, &missing, 1).unwrap_err(),
            PlanError::UnhostedTask { task: 8, .. }
        ));

        let mut twice = packing.clone();
        twice.containers[1].instances[0].task_ids.push(2);
        assert!(matches!(
            DeliveryTable::build(&topology, &twice, 1).unwrap_err(),
            PlanError::DuplicateTask { task: 2, .. }
        ));

        let mut stranger = packing.clone();
        stranger.containers[0].instances[0].component = "nope".into();
        assert!(matches!(
            DeliveryTable::build(&topology, &stranger, 1).unwrap_err(),
            PlanError::UnknownComponent { .. }
        ));
    }
}
