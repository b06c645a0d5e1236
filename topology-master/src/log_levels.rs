//! Storm's dynamic log levels (Nimbus' `setLogConfig`/`getLogConfig`, made by
//! `egret set_log_level` and Storm's `NimbusClient`): a level per logger name
//! for every instance JVM of the topology, with an optional timeout after
//! which the entry is dropped and the loggers return to the level they had
//! without it. The master keeps the entries in the physical plan (so they are
//! stored with the topology's state and survive a master restart) and drops
//! expired ones itself; stream managers hand the full set to each instance.

use std::collections::BTreeMap;

use egret_proto::v1::{LogConfigRequest, LoggerLevel};

/// The levels Storm's `set_log_level` accepts (log4j2's names).
pub const LEVELS: [&str; 8] = [
    "ALL", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF",
];

/// At most this many entries per topology (each reaches every instance).
pub const MAX_ENTRIES: usize = 256;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LogLevelError {
    #[error("a logger name must not be empty (use ROOT for the root logger)")]
    EmptyLogger,
    #[error("logger name '{0}' must not contain whitespace, '=' or ':'")]
    BadLogger(String),
    #[error(
        "unknown log level '{level}' for logger {logger}: use one of ALL, TRACE, DEBUG, INFO, WARN, ERROR, FATAL, OFF"
    )]
    UnknownLevel { logger: String, level: String },
    #[error(
        "timeout {timeout} for logger {logger} must be 0 (none) or a positive number of seconds"
    )]
    BadTimeout { logger: String, timeout: i32 },
    #[error("too many loggers with a level of their own: at most {MAX_ENTRIES}")]
    TooMany,
}

/// The entries by logger name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogLevels {
    by_logger: BTreeMap<String, LoggerLevel>,
}

/// `level` upper-cased when it is one of [`LEVELS`].
pub fn normalized_level(level: &str) -> Option<&'static str> {
    let upper = level.trim().to_ascii_uppercase();
    LEVELS.iter().copied().find(|l| *l == upper)
}

fn check_logger(logger: &str) -> Result<(), LogLevelError> {
    if logger.is_empty() {
        return Err(LogLevelError::EmptyLogger);
    }
    if logger
        .chars()
        .any(|c| c.is_whitespace() || c == '=' || c == ':')
    {
        return Err(LogLevelError::BadLogger(logger.to_owned()));
    }
    Ok(())
}

impl LogLevels {
    /// The entries a stored plan held that are still valid and not expired at `now_ms`.
    pub fn restored(stored: &[LoggerLevel], now_ms: i64) -> Self {
        let mut out = Self::default();
        for entry in stored.iter().take(MAX_ENTRIES) {
            let Some(level) = normalized_level(&entry.level) else {
                continue;
            };
            if check_logger(&entry.logger).is_err()
                || (entry.reset_epoch_ms != 0 && entry.reset_epoch_ms <= now_ms)
            {
                continue;
            }
            out.by_logger.insert(
                entry.logger.clone(),
                LoggerLevel {
                    level: level.to_owned(),
                    ..entry.clone()
                },
            );
        }
        out
    }

    /// Applies every change of `request` at `now_ms`, or none of them when
    /// one is invalid. A removal of a logger without an entry is no error
    /// (Storm's neither).
    pub fn apply(&mut self, request: &LogConfigRequest, now_ms: i64) -> Result<(), LogLevelError> {
        let mut next = self.by_logger.clone();
        for change in &request.changes {
            check_logger(&change.logger)?;
            if change.remove {
                next.remove(&change.logger);
                continue;
            }
            let level =
                normalized_level(&change.level).ok_or_else(|| LogLevelError::UnknownLevel {
                    logger: change.logger.clone(),
                    level: change.level.clone(),
                })?;
            if change.timeout_secs < 0 {
                return Err(LogLevelError::BadTimeout {
                    logger: change.logger.clone(),
                    timeout: change.timeout_secs,
                });
            }
            let reset_epoch_ms = if change.timeout_secs > 0 {
                now_ms.saturating_add(i64::from(change.timeout_secs) * 1000)
            } else {
                0
            };
            next.insert(
                change.logger.clone(),
                LoggerLevel {
                    logger: change.logger.clone(),
                    level: level.to_owned(),
                    timeout_secs: change.timeout_secs,
                    reset_epoch_ms,
                },
            );
        }
        if next.len() > MAX_ENTRIES {
            return Err(LogLevelError::TooMany);
        }
        self.by_logger = next;
        Ok(())
    }

    /// Drops the entries whose reset time has come; true when one was dropped.
    pub fn expire(&mut self, now_ms: i64) -> bool {
        let before = self.by_logger.len();
        self.by_logger
            .retain(|_, e| e.reset_epoch_ms == 0 || e.reset_epoch_ms > now_ms);
        self.by_logger.len() != before
    }

    /// The entries for the physical plan, sorted by logger.
    pub fn to_plan(&self) -> Vec<LoggerLevel> {
        self.by_logger.values().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use egret_proto::v1::LogLevelChange;

    use super::*;

    fn set(logger: &str, level: &str, timeout_secs: i32) -> LogLevelChange {
        LogLevelChange {
            logger: logger.into(),
            remove: false,
            level: level.into(),
            timeout_secs,
        }
    }

    fn remove(logger: &str) -> LogLevelChange {
        LogLevelChange {
            logger: logger.into(),
            remove: true,
            ..Default::default()
        }
    }

    fn request(changes: Vec<LogLevelChange>) -> LogConfigRequest {
        LogConfigRequest { changes }
    }

    #[test]
    fn levels_are_upper_cased_and_timeouts_become_reset_times() {
        let mut levels = LogLevels::default();
        levels
            .apply(
                &request(vec![set("com.acme", "debug", 30), set("ROOT", "Warn", 0)]),
                1_000,
            )
            .unwrap();
        let plan = levels.to_plan();
        assert_eq!(plan.len(), 2);
        assert_eq!(plan[0].logger, "ROOT");
        assert_eq!(plan[0].level, "WARN");
        assert_eq!(plan[0].reset_epoch_ms, 0);
        assert_eq!(plan[1].logger, "com.acme");
        assert_eq!(plan[1].level, "DEBUG");
        assert_eq!(plan[1].timeout_secs, 30);
        assert_eq!(plan[1].reset_epoch_ms, 31_000);
    }

    #[test]
    fn an_unknown_level_refuses_the_whole_request_naming_it() {
        let mut levels = LogLevels::default();
        levels
            .apply(&request(vec![set("a", "INFO", 0)]), 0)
            .unwrap();
        let err = levels
            .apply(&request(vec![set("b", "DEBUG", 0), set("c", "LOUD", 0)]), 0)
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("'LOUD'") && text.contains("logger c"),
            "{text}"
        );
        assert!(text.contains("ALL, TRACE, DEBUG"), "{text}");
        assert_eq!(
            levels.to_plan().len(),
            1,
            "nothing of the refused request applied"
        );
    }

    #[test]
    fn bad_logger_names_and_timeouts_are_refused() {
        let mut levels = LogLevels::default();
        for (change, want) in [
            (set("", "INFO", 0), "must not be empty"),
            (set("a b", "INFO", 0), "'a b'"),
            (set("a=b", "INFO", 0), "'a=b'"),
            (set("a", "INFO", -1), "timeout -1"),
        ] {
            let err = levels.apply(&request(vec![change]), 0).unwrap_err();
            assert!(err.to_string().contains(want), "{err}");
        }
        assert!(levels.to_plan().is_empty());
    }

    #[test]
    fn remove_drops_an_entry_and_removing_a_missing_one_is_fine() {
        let mut levels = LogLevels::default();
        levels
            .apply(
                &request(vec![set("a", "DEBUG", 0), set("b", "ERROR", 0)]),
                0,
            )
            .unwrap();
        levels
            .apply(&request(vec![remove("a"), remove("never-set")]), 0)
            .unwrap();
        let plan = levels.to_plan();
        assert_eq!(plan.len(), 1);
        assert_eq!(plan[0].logger, "b");
    }

    #[test]
    fn expiry_drops_entries_at_their_reset_time_only() {
        let mut levels = LogLevels::default();
        levels
            .apply(
                &request(vec![set("a", "DEBUG", 5), set("b", "DEBUG", 0)]),
                0,
            )
            .unwrap();
        assert!(!levels.expire(4_999));
        assert_eq!(levels.to_plan().len(), 2);
        assert!(levels.expire(5_000));
        let plan = levels.to_plan();
        assert_eq!(plan.len(), 1);
        assert_eq!(plan[0].logger, "b");
        assert!(!levels.expire(i64::MAX));
    }

    #[test]
    fn restoring_keeps_valid_unexpired_entries() {
        let entry = |logger: &str, level: &str, reset_epoch_ms| LoggerLevel {
            logger: logger.into(),
            level: level.into(),
            timeout_secs: 0,
            reset_epoch_ms,
        };
        let stored = vec![
            entry("kept", "DEBUG", 0),
            entry("later", "TRACE", 2_000),
            entry("expired", "DEBUG", 1_000),
            entry("bad", "NOISY", 0),
            entry("", "INFO", 0),
        ];
        let restored = LogLevels::restored(&stored, 1_000);
        let loggers: Vec<_> = restored.to_plan().into_iter().map(|e| e.logger).collect();
        assert_eq!(loggers, vec!["kept", "later"]);
    }

    #[test]
    fn the_number_of_entries_is_bounded() {
        let mut levels = LogLevels::default();
        let many = (0..=MAX_ENTRIES)
            .map(|i| set(&format!("l{i}"), "DEBUG", 0))
            .collect();
        assert_eq!(
            levels.apply(&request(many), 0).unwrap_err(),
            LogLevelError::TooMany
        );
        assert!(levels.to_plan().is_empty());
    }
}
