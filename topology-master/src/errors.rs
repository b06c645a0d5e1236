//! The errors tasks reported, as Nimbus's `TopologyInfo.errors` shows them.
//!
//! Storm keeps the 10 most recent errors of each component (in ZooKeeper);
//! the master keeps the same in memory, so a restarted master starts with
//! none. Stream managers have already throttled them per task.

use std::collections::{BTreeMap, HashMap, VecDeque};

use egret_proto::v1::{ComponentError, PackingPlan, ReportedError};

/// Errors kept per component, oldest dropped first (Storm's number).
pub const ERRORS_PER_COMPONENT: usize = 10;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ErrorLogError {
    #[error("an error of task {0}, which is not in the packing plan")]
    UnknownTask(i32),
}

#[derive(Debug)]
pub struct ErrorLog {
    /// Task id → (component, container index).
    tasks: HashMap<i32, (String, i32)>,
    by_component: BTreeMap<String, VecDeque<ComponentError>>,
}

impl ErrorLog {
    pub fn new(packing: &PackingPlan) -> Self {
        let mut tasks = HashMap::new();
        for container in &packing.containers {
            for instance in &container.instances {
                for task in &instance.task_ids {
                    tasks.insert(*task, (instance.component.clone(), container.index));
                }
            }
        }
        Self {
            tasks,
            by_component: BTreeMap::new(),
        }
    }

    pub fn record(&mut self, error: ReportedError) -> Result<(), ErrorLogError> {
        let (component, container) = self
            .tasks
            .get(&error.task_id)
            .ok_or(ErrorLogError::UnknownTask(error.task_id))?;
        let kept = self.by_component.entry(component.clone()).or_default();
        if kept.len() == ERRORS_PER_COMPONENT {
            kept.pop_front();
        }
        kept.push_back(ComponentError {
            component: component.clone(),
            task_id: error.task_id,
            error: error.message,
            time_secs: error.time_secs,
            host: "localhost".to_owned(),
            port: *container,
        });
        Ok(())
    }

    /// Every kept error, by component, oldest first within each.
    pub fn all(&self) -> Vec<ComponentError> {
        self.by_component.values().flatten().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egret_proto::v1::{ContainerPlan, InstancePlan};

    fn packing() -> PackingPlan {
        PackingPlan {
            containers: vec![
                ContainerPlan {
                    index: 1,
                    instances: vec![InstancePlan {
                        component: "spout".into(),
                        task_ids: vec![3],
                        ..InstancePlan::default()
                    }],
                },
                ContainerPlan {
                    index: 2,
                    instances: vec![InstancePlan {
                        component: "bolt".into(),
                        task_ids: vec![1, 2],
                        ..InstancePlan::default()
                    }],
                },
            ],
            ..PackingPlan::default()
        }
    }

    fn error(task: i32, message: &str, time: i64) -> ReportedError {
        ReportedError {
            task_id: task,
            message: message.into(),
            fatal: false,
            time_secs: time,
        }
    }

    #[test]
    fn errors_are_kept_per_component_with_their_worker() {
        let mut log = ErrorLog::new(&packing());
        log.record(error(2, "boom", 100)).unwrap();
        log.record(error(3, "spout trouble", 101)).unwrap();
        let all = log.all();
        assert_eq!(all.len(), 2);
        assert_eq!(
            (
                all[0].component.as_str(),
                all[0].task_id,
                all[0].port,
                all[0].error.as_str()
            ),
            ("bolt", 2, 2, "boom")
        );
        assert_eq!((all[1].component.as_str(), all[1].port), ("spout", 1));
        assert_eq!(all[1].time_secs, 101);
        assert_eq!(all[1].host, "localhost");
    }

    #[test]
    fn only_the_latest_ten_per_component_stay() {
        let mut log = ErrorLog::new(&packing());
        for i in 0..25 {
            log.record(error(1 + (i % 2), &format!("e{i}"), i64::from(i)))
                .unwrap();
        }
        log.record(error(3, "other", 0)).unwrap();
        let bolt: Vec<String> = log
            .all()
            .into_iter()
            .filter(|e| e.component == "bolt")
            .map(|e| e.error)
            .collect();
        let expected: Vec<String> = (15..25).map(|i| format!("e{i}")).collect();
        assert_eq!(bolt, expected);
        assert_eq!(log.all().len(), 11);
    }

    #[test]
    fn an_unknown_task_is_refused() {
        let mut log = ErrorLog::new(&packing());
        assert_eq!(
            log.record(error(9, "x", 0)),
            Err(ErrorLogError::UnknownTask(9))
        );
        assert!(log.all().is_empty());
    }
}
