//! The packing plan: which executor (instance) of which component runs in which
//! container, with which task ids and heap (contracts.md, "Packing and task ids").
//!
//! Invariants:
//! - task ids are Storm's: components sorted by id (byte order), numbered from 1
//!   consecutively, `num_tasks` each;
//! - a component's T tasks are split over its E executors as Storm's
//!   `partitionFixed` does: the first `T % E` executors get `T/E + 1` tasks, the
//!   rest `T/E`, in ascending task order; a component never gets more executors
//!   than tasks (Storm drops the empty ones);
//! - executors are dealt round-robin over containers `1..=workers` (all
//!   executors in component order, then executor order); a container that would
//!   get no executor is not created (as Storm uses no slot it has nothing for);
//! - heap: the component's `memory_load_mb` when > 0, else the topology default,
//!   never below [`MIN_HEAP_MB`];
//! - with first-fit-decreasing (`egret.packing.algorithm`, or a topology that
//!   names one of Storm's resource-aware strategies other than Storm's default
//!   in `topology.scheduler.strategy`), executors are taken by decreasing heap
//!   (then in component and executor order) and each goes to the first
//!   container whose heaps leave room for it under
//!   `topology.worker.max.heap.size.mb`, a new container being opened when none
//!   does (`topology.workers` is not used, as Storm's resource-aware scheduler
//!   sizes workers itself); CPU is the second dimension: the container's
//!   declared CPU loads (`setCPULoad`, percent of a core) stay within
//!   `egret.packing.container.cpu.percent` (default 400, Storm's
//!   `supervisor.cpu.capacity` default); an executor larger than a container
//!   in either is refused, naming its component and both numbers.
//!
//! ```
//! use egret_proto::v1::{Component, ComponentKind, Topology};
//! use egret_scheduler::packing::{pack, PackingOptions};
//!
//! let component = |id: &str, parallelism, num_tasks| Component {
//!     id: id.into(),
//!     kind: ComponentKind::Bolt as i32,
//!     parallelism,
//!     num_tasks,
//!     ..Default::default()
//! };
//! let topology = Topology {
//!     id: "t-1-1".into(),
//!     components: vec![component("count", 2, 4), component("words", 1, 1)],
//!     ..Default::default()
//! };
//! let plan = pack(&topology, &PackingOptions::round_robin(2, 128)).unwrap();
//! assert_eq!(plan.containers.len(), 2);
//! assert_eq!(plan.containers[0].instances[0].task_ids, vec![1, 2]); // count-0
//! assert_eq!(plan.containers[1].instances[0].task_ids, vec![3, 4]); // count-1
//! assert_eq!(plan.containers[0].instances[1].instance_id, "words-0");
//! assert_eq!(plan.containers[0].instances[1].task_ids, vec![5]);
//! ```

use egret_config::ConfigMap;
use egret_proto::v1::{ContainerPlan, InstancePlan, PackingPlan, Topology};

/// The smallest heap an instance JVM gets, whatever a component asks for.
pub const MIN_HEAP_MB: i64 = 64;

/// `egret.packing.algorithm`.
pub const PACKING_ALGORITHM: &str = "egret.packing.algorithm";
/// Storm's `Config.TOPOLOGY_SCHEDULER_STRATEGY` (`setTopologyStrategy`).
pub const SCHEDULER_STRATEGY: &str = "topology.scheduler.strategy";
/// Storm's `Config.TOPOLOGY_WORKER_MAX_HEAP_SIZE_MB` (`setTopologyWorkerMaxHeapSize`).
pub const WORKER_MAX_HEAP_MB: &str = "topology.worker.max.heap.size.mb";
/// Storm's default of `topology.worker.max.heap.size.mb`.
pub const DEFAULT_WORKER_MAX_HEAP_MB: f64 = 768.0;
/// `egret.packing.container.cpu.percent`: the CPU a container holds, in
/// percent of a core (first-fit-decreasing).
pub const CONTAINER_CPU_PERCENT: &str = "egret.packing.container.cpu.percent";
/// Its default: Storm's `supervisor.cpu.capacity` default (four cores).
pub const DEFAULT_CONTAINER_CPU_PERCENT: i64 = 400;
/// `topology.scheduler.strategy` in Storm's defaults.yaml.
pub const STORM_DEFAULT_STRATEGY: &str =
    "org.apache.storm.scheduler.resource.strategies.scheduling.DefaultResourceAwareStrategy";
/// storm-server's resource-aware scheduling strategies: a topology naming one
/// (other than [`STORM_DEFAULT_STRATEGY`]) is packed first-fit-decreasing.
pub const RESOURCE_AWARE_STRATEGIES: [&str; 6] = [
    "org.apache.storm.scheduler.resource.strategies.scheduling.DefaultResourceAwareStrategy",
    "org.apache.storm.scheduler.resource.strategies.scheduling.DefaultResourceAwareStrategyOld",
    "org.apache.storm.scheduler.resource.strategies.scheduling.GenericResourceAwareStrategy",
    "org.apache.storm.scheduler.resource.strategies.scheduling.GenericResourceAwareStrategyOld",
    "org.apache.storm.scheduler.resource.strategies.scheduling.RoundRobinResourceAwareStrategy",
    "org.apache.storm.scheduler.resource.strategies.scheduling.ConstraintSolverStrategy",
];

/// How executors are placed in containers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// Dealt round-robin over `topology.workers` containers (Storm's default
    /// scheduler's even spread).
    RoundRobin,
    /// By decreasing heap, into the first container with room (Heron's and
    /// Storm's resource-aware packing).
    FirstFitDecreasing,
}

#[derive(Debug, thiserror::Error)]
pub enum PackingError {
    #[error("invalid topology config: {0}")]
    Config(String),
    #[error(
        "component '{component}' needs {heap_mb} MB of heap per executor, more than a container \
         holds ({WORKER_MAX_HEAP_MB} = {capacity_mb} MB): lower its setMemoryLoad or raise \
         {WORKER_MAX_HEAP_MB}"
    )]
    TooLarge {
        component: String,
        heap_mb: i64,
        capacity_mb: i64,
    },
    #[error(
        "component '{component}' needs {cpu_percent} % of a core per executor, more than a \
         container holds ({CONTAINER_CPU_PERCENT} = {capacity_percent} %): lower its setCPULoad \
         or raise {CONTAINER_CPU_PERCENT}"
    )]
    TooMuchCpu {
        component: String,
        cpu_percent: f64,
        capacity_percent: i64,
    },
    #[error("{0}")]
    Counts(String),
    #[error("the topology has no component")]
    Empty,
}

/// The settings packing depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackingOptions {
    /// `topology.workers`: the number of containers (at most; round-robin).
    pub workers: i64,
    /// `topology.component.resources.onheap.memory.mb`.
    pub default_heap_mb: i64,
    pub algorithm: Algorithm,
    /// `topology.worker.max.heap.size.mb`: the heap a container holds
    /// (first-fit-decreasing).
    pub container_heap_mb: i64,
    /// [`CONTAINER_CPU_PERCENT`]: the CPU a container holds, percent of a
    /// core (first-fit-decreasing).
    pub container_cpu_percent: i64,
}

impl PackingOptions {
    /// Round-robin over `workers` containers with `default_heap_mb` per
    /// executor, Storm's default container capacity.
    pub fn round_robin(workers: i64, default_heap_mb: i64) -> Self {
        Self {
            workers,
            default_heap_mb,
            algorithm: Algorithm::RoundRobin,
            container_heap_mb: DEFAULT_WORKER_MAX_HEAP_MB as i64,
            container_cpu_percent: DEFAULT_CONTAINER_CPU_PERCENT,
        }
    }
}

fn algorithm(config: &ConfigMap) -> Result<Algorithm, PackingError> {
    use serde_json::Value;
    match config.get(PACKING_ALGORITHM) {
        Some(Value::String(s)) => {
            return match s.trim() {
                "round-robin" => Ok(Algorithm::RoundRobin),
                "first-fit-decreasing" => Ok(Algorithm::FirstFitDecreasing),
                other => Err(PackingError::Config(format!(
                    "{PACKING_ALGORITHM} must be round-robin or first-fit-decreasing, found '{other}'"
                ))),
            };
        }
        None | Some(Value::Null) => {}
        Some(other) => {
            return Err(PackingError::Config(format!(
                "{PACKING_ALGORITHM} must be round-robin or first-fit-decreasing, found {other}"
            )));
        }
    }
    match config.get(SCHEDULER_STRATEGY) {
        // Storm's default, which every config merged with defaults.yaml holds
        // (StormSubmitter merges it): not a choice the topology made.
        Some(Value::String(s)) if s.trim() == STORM_DEFAULT_STRATEGY => Ok(Algorithm::RoundRobin),
        Some(Value::String(s)) if RESOURCE_AWARE_STRATEGIES.contains(&s.trim()) => {
            Ok(Algorithm::FirstFitDecreasing)
        }
        Some(Value::String(s)) => Err(PackingError::Config(format!(
            "{SCHEDULER_STRATEGY} names '{s}', which is not one of storm-server's resource-aware \
             strategies ({})",
            RESOURCE_AWARE_STRATEGIES
                .iter()
                .map(|c| c.rsplit('.').next().unwrap_or(c))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        None | Some(Value::Null) => Ok(Algorithm::RoundRobin),
        Some(other) => Err(PackingError::Config(format!(
            "{SCHEDULER_STRATEGY} must be a class name, found {other}"
        ))),
    }
}

fn container_heap_mb(config: &ConfigMap) -> Result<i64, PackingError> {
    use serde_json::Value;
    let bad = |v: &Value| {
        PackingError::Config(format!(
            "{WORKER_MAX_HEAP_MB} must be a positive number of MB, found {v}"
        ))
    };
    match config.get(WORKER_MAX_HEAP_MB) {
        None | Some(Value::Null) => Ok(DEFAULT_WORKER_MAX_HEAP_MB as i64),
        Some(v) => {
            let mb = match v {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().parse::<f64>().ok(),
                _ => None,
            }
            .filter(|f| f.is_finite() && *f >= 1.0)
            .ok_or_else(|| bad(v))?;
            Ok(mb.floor() as i64)
        }
    }
}

impl PackingOptions {
    /// Reads the options from a topology's merged config.
    pub fn from_config(config: &ConfigMap) -> Result<Self, PackingError> {
        let workers = egret_config::get_positive_int(
            config,
            egret_config::TOPOLOGY_WORKERS,
            egret_config::DEFAULT_WORKERS,
        )
        .map_err(PackingError::Config)?;
        let default_heap_mb = egret_config::get_positive_int(
            config,
            egret_config::TOPOLOGY_ONHEAP_MB,
            egret_config::DEFAULT_ONHEAP_MB,
        )
        .map_err(PackingError::Config)?;
        Ok(Self {
            workers,
            default_heap_mb,
            algorithm: algorithm(config)?,
            container_heap_mb: container_heap_mb(config)?,
            container_cpu_percent: egret_config::get_positive_int(
                config,
                CONTAINER_CPU_PERCENT,
                DEFAULT_CONTAINER_CPU_PERCENT,
            )
            .map_err(PackingError::Config)?,
        })
    }
}

/// Splits `tasks` (ascending) over `executors` as Storm does: the first
/// `T % E` executors get one task more. Never yields an empty executor.
pub fn split_tasks(tasks: &[i32], executors: usize) -> Vec<Vec<i32>> {
    let executors = executors.min(tasks.len());
    if executors == 0 {
        return Vec::new();
    }
    let base = tasks.len() / executors;
    let bigger = tasks.len() % executors;
    let mut out = Vec::with_capacity(executors);
    let mut rest = tasks;
    for i in 0..executors {
        let n = if i < bigger { base + 1 } else { base };
        let (head, tail) = rest.split_at(n);
        out.push(head.to_vec());
        rest = tail;
    }
    out
}

/// The heap of an instance of a component asking for `memory_load_mb`.
pub fn heap_mb(memory_load_mb: f64, default_heap_mb: i64) -> i64 {
    let asked = if memory_load_mb.is_finite() && memory_load_mb > 0.0 {
        memory_load_mb.ceil() as i64
    } else {
        default_heap_mb
    };
    asked.max(MIN_HEAP_MB)
}

/// The CPU an instance of a component declaring `cpu_load` (percent of a
/// core) is limited to: 0 (none) unless it is a positive number.
pub fn cpu_percent(cpu_load: f64) -> f64 {
    if cpu_load.is_finite() && cpu_load > 0.0 {
        cpu_load
    } else {
        0.0
    }
}

/// Computes the packing plan of a topology.
pub fn pack(topology: &Topology, options: &PackingOptions) -> Result<PackingPlan, PackingError> {
    if topology.components.is_empty() {
        return Err(PackingError::Empty);
    }
    let mut components: Vec<_> = topology.components.iter().collect();
    // Byte order of the id, as Storm sorts component ids (Java String order is
    // UTF-16, identical to byte order for the ASCII ids everyone uses).
    components.sort_by(|a, b| a.id.as_bytes().cmp(b.id.as_bytes()));

    // The one numbering and the one meaning of 0 (egret_config::settings): a
    // submitted topology has explicit counts already.
    let counts = |e: egret_config::settings::SettingsError| PackingError::Counts(e.to_string());
    let ranges = egret_config::settings::task_ranges(topology).map_err(counts)?;
    let mut executors = Vec::new();
    for (component, (_, first, last)) in components.into_iter().zip(ranges) {
        let (parallelism, _) =
            egret_config::settings::component_counts(component).map_err(counts)?;
        let tasks: Vec<i32> = (first..=last).collect();
        let heap = heap_mb(component.memory_load_mb, options.default_heap_mb);
        for (index, task_ids) in split_tasks(&tasks, parallelism as usize)
            .into_iter()
            .enumerate()
        {
            executors.push(InstancePlan {
                instance_id: format!("{}-{}", component.id, index),
                component: component.id.clone(),
                executor_index: index as i32,
                task_ids,
                heap_mb: heap,
                cpu_percent: cpu_percent(component.cpu_load),
            });
        }
    }

    if options.algorithm == Algorithm::FirstFitDecreasing {
        return first_fit_decreasing(topology, executors, options);
    }
    let workers = usize::try_from(options.workers.max(1))
        .unwrap_or(usize::MAX)
        .min(executors.len().max(1));
    let mut containers: Vec<ContainerPlan> = (1..=workers)
        .map(|index| ContainerPlan {
            index: index as i32,
            instances: Vec::new(),
        })
        .collect();
    for (k, executor) in executors.into_iter().enumerate() {
        containers[k % workers].instances.push(executor);
    }
    Ok(PackingPlan {
        topology_id: topology.id.clone(),
        containers,
    })
}

/// First-fit-decreasing by heap into containers of the options' heap and
/// CPU capacities (see the module's invariants). Each container lists its
/// instances in component and executor order.
fn first_fit_decreasing(
    topology: &Topology,
    executors: Vec<InstancePlan>,
    options: &PackingOptions,
) -> Result<PackingPlan, PackingError> {
    let capacity_mb = options.container_heap_mb;
    #[allow(
        clippy::cast_precision_loss,
        reason = "a percentage of cores: far below 2^52"
    )]
    let capacity_cpu = options.container_cpu_percent as f64;
    if let Some(big) = executors.iter().find(|e| e.heap_mb > capacity_mb) {
        return Err(PackingError::TooLarge {
            component: big.component.clone(),
            heap_mb: big.heap_mb,
            capacity_mb,
        });
    }
    if let Some(big) = executors.iter().find(|e| e.cpu_percent > capacity_cpu) {
        return Err(PackingError::TooMuchCpu {
            component: big.component.clone(),
            cpu_percent: big.cpu_percent,
            capacity_percent: options.container_cpu_percent,
        });
    }
    // `executors` is in component and executor order: a stable sort by
    // decreasing heap keeps that order among equals.
    let mut order: Vec<(usize, InstancePlan)> = executors.into_iter().enumerate().collect();
    order.sort_by_key(|(_, e)| std::cmp::Reverse(e.heap_mb));
    // (heap used, CPU used, members)
    type Bin = (i64, f64, Vec<(usize, InstancePlan)>);
    let mut bins: Vec<Bin> = Vec::new();
    for (rank, executor) in order {
        let heap = executor.heap_mb;
        let cpu = executor.cpu_percent;
        match bins.iter_mut().find(|(used, cpu_used, _)| {
            used + heap <= capacity_mb && cpu_used + cpu <= capacity_cpu
        }) {
            Some((used, cpu_used, members)) => {
                *used += heap;
                *cpu_used += cpu;
                members.push((rank, executor));
            }
            None => bins.push((heap, cpu, vec![(rank, executor)])),
        }
    }
    let containers = bins
        .into_iter()
        .enumerate()
        .map(|(i, (_, _, mut members))| {
            members.sort_by_key(|(rank, _)| *rank);
            ContainerPlan {
                index: i as i32 + 1,
                instances: members.into_iter().map(|(_, e)| e).collect(),
            }
        })
        .collect();
    Ok(PackingPlan {
        topology_id: topology.id.clone(),
        containers,
    })
}

/// Packs a topology with the options of its own `config_json`.
pub fn pack_topology(topology: &Topology) -> Result<PackingPlan, PackingError> {
    let config = egret_config::topology::config_map(topology).map_err(PackingError::Config)?;
    pack(topology, &PackingOptions::from_config(&config)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use egret_proto::v1::{Component, ComponentKind};

    fn component(id: &str, parallelism: i32, num_tasks: i32) -> Component {
        Component {
            id: id.into(),
            kind: ComponentKind::Bolt as i32,
            parallelism,
            num_tasks,
            ..Default::default()
        }
    }

    fn opts(workers: i64) -> PackingOptions {
        PackingOptions::round_robin(workers, 128)
    }

    type Layout = Vec<(i32, Vec<(String, Vec<i32>)>)>;

    fn summary(plan: &PackingPlan) -> Layout {
        plan.containers
            .iter()
            .map(|c| {
                (
                    c.index,
                    c.instances
                        .iter()
                        .map(|i| (i.instance_id.clone(), i.task_ids.clone()))
                        .collect(),
                )
            })
            .collect()
    }

    #[test]
    fn exclamation_topology_over_three_workers() {
        // Declared out of order on purpose: packing sorts by id.
        let topology = Topology {
            id: "ex-1-1".into(),
            components: vec![
                component("word", 10, 10),
                component("exclaim2", 2, 2),
                component("exclaim1", 3, 3),
            ],
            ..Default::default()
        };
        let plan = pack(&topology, &opts(3)).unwrap();
        assert_eq!(plan.topology_id, "ex-1-1");
        // exclaim1: tasks 1..=3, exclaim2: 4..=5, word: 6..=15. Global executor
        // order: exclaim1-0..2, exclaim2-0..1, word-0..9; k-th goes to k%3+1.
        let s = |id: &str, t: i32| (id.to_string(), vec![t]);
        assert_eq!(
            summary(&plan),
            vec![
                (
                    1,
                    vec![
                        s("exclaim1-0", 1),
                        s("exclaim2-0", 4),
                        s("word-1", 7),
                        s("word-4", 10),
                        s("word-7", 13)
                    ]
                ),
                (
                    2,
                    vec![
                        s("exclaim1-1", 2),
                        s("exclaim2-1", 5),
                        s("word-2", 8),
                        s("word-5", 11),
                        s("word-8", 14)
                    ]
                ),
                (
                    3,
                    vec![
                        s("exclaim1-2", 3),
                        s("word-0", 6),
                        s("word-3", 9),
                        s("word-6", 12),
                        s("word-9", 15)
                    ]
                ),
            ]
        );
        let total: usize = plan.containers.iter().map(|c| c.instances.len()).sum();
        assert_eq!(total, 15);
    }

    #[test]
    fn set_num_tasks_four_over_two_executors() {
        let topology = Topology {
            components: vec![component("c", 2, 4)],
            ..Default::default()
        };
        let plan = pack(&topology, &opts(1)).unwrap();
        let inst = &plan.containers[0].instances;
        assert_eq!(inst[0].task_ids, vec![1, 2]);
        assert_eq!(inst[1].task_ids, vec![3, 4]);
        assert_eq!(inst[1].executor_index, 1);
        assert_eq!(inst[1].component, "c");
    }

    #[test]
    fn five_tasks_over_two_executors_gives_three_then_two() {
        assert_eq!(
            split_tasks(&[3, 4, 5, 6, 7], 2),
            vec![vec![3, 4, 5], vec![6, 7]]
        );
        assert_eq!(
            split_tasks(&[1, 2, 3, 4, 5, 6, 7], 3),
            vec![vec![1, 2, 3], vec![4, 5], vec![6, 7]]
        );
        // More executors than tasks: no empty executor.
        assert_eq!(split_tasks(&[1, 2], 4), vec![vec![1], vec![2]]);
        assert!(split_tasks(&[], 3).is_empty());
    }

    #[test]
    fn heap_rule() {
        assert_eq!(heap_mb(0.0, 128), 128);
        assert_eq!(heap_mb(512.0, 128), 512);
        assert_eq!(heap_mb(200.5, 128), 201);
        assert_eq!(heap_mb(10.0, 128), MIN_HEAP_MB);
        assert_eq!(cpu_percent(50.0), 50.0);
        assert_eq!(cpu_percent(0.0), 0.0);
        assert_eq!(cpu_percent(-3.0), 0.0);
        assert_eq!(cpu_percent(f64::NAN), 0.0);
        assert_eq!(heap_mb(0.0, 32), MIN_HEAP_MB);
        assert_eq!(heap_mb(f64::NAN, 256), 256);
        let mut c = component("a", 1, 1);
        c.memory_load_mb = 300.0;
        let topology = Topology {
            components: vec![c, component("b", 1, 1)],
            ..Default::default()
        };
        let plan = pack(&topology, &PackingOptions::round_robin(1, 100)).unwrap();
        let heaps: Vec<i64> = plan.containers[0]
            .instances
            .iter()
            .map(|i| i.heap_mb)
            .collect();
        assert_eq!(heaps, vec![300, 100]);
    }

    #[test]
    fn more_workers_than_executors_creates_only_used_containers() {
        let topology = Topology {
            components: vec![component("a", 1, 1), component("b", 1, 1)],
            ..Default::default()
        };
        let plan = pack(&topology, &opts(5)).unwrap();
        assert_eq!(plan.containers.len(), 2);
        assert_eq!(plan.containers[1].index, 2);
    }

    #[test]
    fn unset_tasks_default_to_parallelism_and_bad_values_fail() {
        let topology = Topology {
            components: vec![component("a", 3, 0)],
            ..Default::default()
        };
        let plan = pack(&topology, &opts(1)).unwrap();
        assert_eq!(plan.containers[0].instances.len(), 3);
        let bad = Topology {
            components: vec![component("a", -1, 0)],
            ..Default::default()
        };
        assert!(
            pack(&bad, &opts(1))
                .unwrap_err()
                .to_string()
                .contains("'a'")
        );
        assert!(matches!(
            pack(&Topology::default(), &opts(1)),
            Err(PackingError::Empty)
        ));
    }

    #[test]
    fn options_come_from_the_topology_config() {
        let topology = Topology {
            config_json:
                r#"{"topology.workers": 2, "topology.component.resources.onheap.memory.mb": 256}"#
                    .into(),
            components: vec![component("a", 4, 4)],
            ..Default::default()
        };
        let plan = pack_topology(&topology).unwrap();
        assert_eq!(plan.containers.len(), 2);
        assert_eq!(plan.containers[0].instances[0].heap_mb, 256);
        let bad = Topology {
            config_json: r#"{"topology.workers": "many"}"#.into(),
            ..topology
        };
        assert!(
            pack_topology(&bad)
                .unwrap_err()
                .to_string()
                .contains("topology.workers")
        );
    }

    fn ffd(capacity_mb: i64) -> PackingOptions {
        PackingOptions {
            algorithm: Algorithm::FirstFitDecreasing,
            container_heap_mb: capacity_mb,
            ..PackingOptions::round_robin(1, 128)
        }
    }

    fn with_memory(id: &str, parallelism: i32, mb: f64) -> Component {
        let mut c = component(id, parallelism, parallelism);
        c.memory_load_mb = mb;
        c
    }

    fn heaps(plan: &PackingPlan) -> Vec<Vec<(String, i64)>> {
        plan.containers
            .iter()
            .map(|c| {
                c.instances
                    .iter()
                    .map(|i| (i.instance_id.clone(), i.heap_mb))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn first_fit_decreasing_fills_containers_by_heap_and_opens_new_ones() {
        // big: 2 × 500, mid: 3 × 300, small: 2 × 128 (the default); 768 MB each.
        let topology = Topology {
            id: "t-1-1".into(),
            components: vec![
                with_memory("small", 2, 0.0),
                with_memory("big", 2, 500.0),
                with_memory("mid", 3, 300.0),
            ],
            ..Default::default()
        };
        let plan = pack(&topology, &ffd(768)).unwrap();
        // Decreasing: big-0 (500) -> c1, big-1 -> c2, mid-0 (300) -> c3
        // (neither has 300 left), mid-1 -> c3, mid-2 -> c4, small-0 (128) -> c1,
        // small-1 -> c1 (500 + 128 + 128 = 756).
        let own = |id: &str, mb: i64| (id.to_owned(), mb);
        assert_eq!(
            heaps(&plan),
            vec![
                vec![own("big-0", 500), own("small-0", 128), own("small-1", 128)],
                vec![own("big-1", 500)],
                vec![own("mid-0", 300), own("mid-1", 300)],
                vec![own("mid-2", 300)],
            ]
        );
        assert_eq!(
            plan.containers.iter().map(|c| c.index).collect::<Vec<_>>(),
            vec![1, 2, 3, 4]
        );
        for container in &plan.containers {
            let used: i64 = container.instances.iter().map(|i| i.heap_mb).sum();
            assert!(used <= 768, "container {} holds {used} MB", container.index);
        }
        // Task ids are Storm's whatever the placement.
        let big0 = &plan.containers[0].instances[0];
        assert_eq!(big0.task_ids, vec![1]);
    }

    #[test]
    fn an_executor_larger_than_a_container_is_refused_naming_it() {
        let topology = Topology {
            components: vec![with_memory("fat", 1, 1024.0), component("thin", 1, 1)],
            ..Default::default()
        };
        let err = pack(&topology, &ffd(768)).unwrap_err().to_string();
        assert!(
            err.contains("'fat'") && err.contains("1024 MB") && err.contains("= 768 MB"),
            "{err}"
        );
        assert!(err.contains("topology.worker.max.heap.size.mb"), "{err}");
        // Round-robin (Storm's default scheduler) does not size containers.
        assert!(pack(&topology, &opts(1)).is_ok());
    }

    #[test]
    fn the_algorithm_comes_from_egrets_key_or_a_storm_strategy() {
        let config = |pairs: &[(&str, serde_json::Value)]| {
            let mut map = ConfigMap::new();
            for (k, v) in pairs {
                map.insert((*k).to_owned(), v.clone());
            }
            PackingOptions::from_config(&map)
        };
        use serde_json::json;
        let chosen = |pairs: &[(&str, serde_json::Value)]| config(pairs).unwrap().algorithm;
        assert_eq!(chosen(&[]), Algorithm::RoundRobin);
        assert_eq!(
            chosen(&[(PACKING_ALGORITHM, json!("first-fit-decreasing"))]),
            Algorithm::FirstFitDecreasing
        );
        assert_eq!(
            chosen(&[(
                SCHEDULER_STRATEGY,
                json!(
                    "org.apache.storm.scheduler.resource.strategies.scheduling.GenericResourceAwareStrategy"
                )
            )]),
            Algorithm::FirstFitDecreasing
        );
        // Storm's default strategy is in every merged config: not a choice.
        assert_eq!(
            chosen(&[(SCHEDULER_STRATEGY, json!(STORM_DEFAULT_STRATEGY))]),
            Algorithm::RoundRobin
        );
        assert_eq!(
            chosen(&[
                (PACKING_ALGORITHM, json!("first-fit-decreasing")),
                (SCHEDULER_STRATEGY, json!(STORM_DEFAULT_STRATEGY))
            ]),
            Algorithm::FirstFitDecreasing
        );
        // Egret's own key wins.
        assert_eq!(
            chosen(&[
                (PACKING_ALGORITHM, json!("round-robin")),
                (SCHEDULER_STRATEGY, json!(RESOURCE_AWARE_STRATEGIES[2]))
            ]),
            Algorithm::RoundRobin
        );
        let err = config(&[(SCHEDULER_STRATEGY, json!("com.acme.MyStrategy"))])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("com.acme.MyStrategy") && err.contains("DefaultResourceAwareStrategy"),
            "{err}"
        );
        let err = config(&[(PACKING_ALGORITHM, json!("best-fit"))])
            .unwrap_err()
            .to_string();
        assert!(err.contains("best-fit"), "{err}");
        assert_eq!(
            config(&[(WORKER_MAX_HEAP_MB, json!(1024.5))])
                .unwrap()
                .container_heap_mb,
            1024
        );
        assert_eq!(config(&[]).unwrap().container_heap_mb, 768);
        assert!(config(&[(WORKER_MAX_HEAP_MB, json!(0))]).is_err());
        assert!(config(&[(WORKER_MAX_HEAP_MB, json!("lots"))]).is_err());
        assert_eq!(config(&[]).unwrap().container_cpu_percent, 400);
        assert_eq!(
            config(&[(CONTAINER_CPU_PERCENT, json!(150))])
                .unwrap()
                .container_cpu_percent,
            150
        );
        let err = config(&[(CONTAINER_CPU_PERCENT, json!(0))])
            .unwrap_err()
            .to_string();
        assert!(err.contains(CONTAINER_CPU_PERCENT), "{err}");
    }

    fn with_cpu(id: &str, parallelism: i32, percent: f64) -> Component {
        let mut c = component(id, parallelism, parallelism);
        c.cpu_load = percent;
        c
    }

    #[test]
    fn first_fit_decreasing_keeps_each_containers_cpu_within_its_capacity() {
        // 128 MB each (all six fit in 768 MB by heap), but 60 % of a core
        // each in containers of 150 %: two per container.
        let topology = Topology {
            components: vec![with_cpu("hot", 5, 60.0), component("cold", 1, 1)],
            ..Default::default()
        };
        let options = PackingOptions {
            container_cpu_percent: 150,
            ..ffd(768)
        };
        let plan = pack(&topology, &options).unwrap();
        let cpu: Vec<f64> = plan
            .containers
            .iter()
            .map(|c| c.instances.iter().map(|i| i.cpu_percent).sum())
            .collect();
        // hot-0/1 -> c1 (120), hot-2/3 -> c2, hot-4 -> c3, cold (0 %) -> c1.
        assert_eq!(cpu, vec![120.0, 120.0, 60.0]);
        assert_eq!(plan.containers[0].instances.len(), 3);
        // Heap alone packs all six into one container.
        assert_eq!(pack(&topology, &ffd(768)).unwrap().containers.len(), 1);
    }

    #[test]
    fn an_executor_needing_more_cpu_than_a_container_is_refused_naming_it() {
        let topology = Topology {
            components: vec![with_cpu("spin", 1, 250.0), component("thin", 1, 1)],
            ..Default::default()
        };
        let options = PackingOptions {
            container_cpu_percent: 200,
            ..ffd(768)
        };
        let err = pack(&topology, &options).unwrap_err().to_string();
        assert!(
            err.contains("'spin'") && err.contains("250 %") && err.contains("= 200 %"),
            "{err}"
        );
        assert!(err.contains(CONTAINER_CPU_PERCENT), "{err}");
        // Round-robin does not size containers.
        assert!(pack(&topology, &opts(1)).is_ok());
    }
}
