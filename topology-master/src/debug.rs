//! Storm's debug options: event logging turned on or off per component, or for
//! the whole topology, with a sampling percentage (Nimbus' `debug` call, made
//! by Storm UI's Debug buttons and by `egret debug`). The master keeps them in
//! the physical plan, so they are stored with the topology's state and reach
//! every stream manager, which tells each instance its component's sampling.

use std::collections::BTreeMap;

use egret_proto::v1::{ComponentDebug, DebugRequest, Topology};

/// Storm's id of the event logger component (`StormCommon.EVENTLOGGER_COMPONENT_ID`).
pub const EVENTLOGGER_COMPONENT_ID: &str = "__eventlogger";

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DebugError {
    #[error(
        "component '{component}' is not a component of topology {topology} (its components: {known})"
    )]
    UnknownComponent {
        component: String,
        topology: String,
        known: String,
    },
    #[error("sampling percentage {0} is not a number from 0 to 100")]
    BadPercentage(f64),
    #[error(
        "topology {0} has no event logger: submit it with topology.eventlogger.executors above 0 (Config.setNumEventLoggers) to log events"
    )]
    NoEventLogger(String),
}

/// One entry: enabled or not, and the sampling percentage when enabled.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Options {
    enable: bool,
    sampling_pct: f64,
}

/// The debug options of a topology, by component; the key `""` is the whole
/// topology's (it applies to a component without an entry of its own).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DebugOptions {
    by_component: BTreeMap<String, Options>,
}

impl DebugOptions {
    /// The options a stored plan held, keeping only entries that still make
    /// sense for `topology` (a component of it, a valid percentage).
    pub fn restored(topology: &Topology, stored: &[ComponentDebug]) -> Self {
        let mut out = Self::default();
        for entry in stored {
            let known = entry.component.is_empty()
                || topology.components.iter().any(|c| c.id == entry.component);
            if known && valid_pct(entry.sampling_pct) {
                out.by_component.insert(
                    entry.component.clone(),
                    Options {
                        enable: entry.enable,
                        sampling_pct: if entry.enable {
                            entry.sampling_pct
                        } else {
                            0.0
                        },
                    },
                );
            }
        }
        out
    }

    /// Records `request` after checking it against `topology`: the component
    /// must be one of it (or empty: the whole topology), the percentage from 0
    /// to 100, and enabling needs the topology's event logger.
    pub fn apply(&mut self, topology: &Topology, request: &DebugRequest) -> Result<(), DebugError> {
        if !request.component.is_empty()
            && !topology
                .components
                .iter()
                .any(|c| c.id == request.component)
        {
            return Err(DebugError::UnknownComponent {
                component: request.component.clone(),
                topology: topology.name.clone(),
                known: topology
                    .components
                    .iter()
                    .map(|c| c.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        if !valid_pct(request.sampling_pct) {
            return Err(DebugError::BadPercentage(request.sampling_pct));
        }
        if request.enable
            && !topology
                .components
                .iter()
                .any(|c| c.id == EVENTLOGGER_COMPONENT_ID)
        {
            return Err(DebugError::NoEventLogger(topology.name.clone()));
        }
        self.by_component.insert(
            request.component.clone(),
            Options {
                enable: request.enable,
                sampling_pct: if request.enable {
                    request.sampling_pct
                } else {
                    0.0
                },
            },
        );
        Ok(())
    }

    /// The entries for the physical plan, sorted by component.
    pub fn to_plan(&self) -> Vec<ComponentDebug> {
        self.by_component
            .iter()
            .map(|(component, o)| ComponentDebug {
                component: component.clone(),
                enable: o.enable,
                sampling_pct: o.sampling_pct,
            })
            .collect()
    }
}

pub use egret_proto::event_sampling_pct as sampling_pct;

fn valid_pct(pct: f64) -> bool {
    (0.0..=100.0).contains(&pct)
}

#[cfg(test)]
mod tests {
    use egret_proto::v1::Component;

    use super::*;

    fn topology(with_logger: bool) -> Topology {
        let mut components = vec![
            Component {
                id: "count".into(),
                ..Default::default()
            },
            Component {
                id: "split".into(),
                ..Default::default()
            },
        ];
        if with_logger {
            components.push(Component {
                id: EVENTLOGGER_COMPONENT_ID.into(),
                ..Default::default()
            });
        }
        Topology {
            name: "wc".into(),
            components,
            ..Default::default()
        }
    }

    fn request(component: &str, enable: bool, pct: f64) -> DebugRequest {
        DebugRequest {
            component: component.into(),
            enable,
            sampling_pct: pct,
        }
    }

    #[test]
    fn an_unknown_component_is_refused_naming_it_and_the_known_ones() {
        let mut options = DebugOptions::default();
        let err = options
            .apply(&topology(true), &request("cuont", true, 100.0))
            .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("'cuont'"), "{text}");
        assert!(text.contains("topology wc"), "{text}");
        assert!(text.contains("count, split, __eventlogger"), "{text}");
        assert!(options.to_plan().is_empty());
    }

    #[test]
    fn a_percentage_outside_0_to_100_is_refused() {
        let mut options = DebugOptions::default();
        for pct in [-0.5, 100.01, 1000.0, f64::NAN, f64::INFINITY] {
            let err = options
                .apply(&topology(true), &request("count", true, pct))
                .unwrap_err();
            assert!(matches!(err, DebugError::BadPercentage(_)), "{pct}: {err}");
            assert!(err.to_string().contains("from 0 to 100"), "{err}");
        }
        assert!(options.to_plan().is_empty());
        for pct in [0.0, 10.0, 100.0] {
            options
                .apply(&topology(true), &request("count", true, pct))
                .unwrap();
        }
    }

    #[test]
    fn enabling_without_an_event_logger_is_refused_but_disabling_is_not() {
        let mut options = DebugOptions::default();
        let err = options
            .apply(&topology(false), &request("", true, 100.0))
            .unwrap_err();
        assert_eq!(err, DebugError::NoEventLogger("wc".into()));
        assert!(err.to_string().contains("topology.eventlogger.executors"));
        options
            .apply(&topology(false), &request("", false, 0.0))
            .unwrap();
    }

    #[test]
    fn a_component_entry_overrides_the_topology_entry() {
        let mut options = DebugOptions::default();
        let t = topology(true);
        options.apply(&t, &request("", true, 10.0)).unwrap();
        options.apply(&t, &request("count", true, 100.0)).unwrap();
        let plan = options.to_plan();
        assert_eq!(sampling_pct(&plan, "count"), 100.0);
        assert_eq!(sampling_pct(&plan, "split"), 10.0);
        options.apply(&t, &request("count", false, 50.0)).unwrap();
        let plan = options.to_plan();
        assert_eq!(sampling_pct(&plan, "count"), 0.0);
        assert_eq!(sampling_pct(&plan, "split"), 10.0);
        assert_eq!(plan.len(), 2);
        assert_eq!(plan[0].component, "");
        assert_eq!(plan[1].component, "count");
        assert_eq!(sampling_pct(&[], "count"), 0.0);
    }

    #[test]
    fn restoring_drops_entries_that_no_longer_fit() {
        let stored = vec![
            ComponentDebug {
                component: "count".into(),
                enable: true,
                sampling_pct: 50.0,
            },
            ComponentDebug {
                component: "gone".into(),
                enable: true,
                sampling_pct: 50.0,
            },
            ComponentDebug {
                component: "split".into(),
                enable: true,
                sampling_pct: 500.0,
            },
        ];
        let restored = DebugOptions::restored(&topology(true), &stored);
        assert_eq!(restored.to_plan(), vec![stored[0].clone()]);
    }
}
