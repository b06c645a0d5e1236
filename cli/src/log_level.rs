//! `egret set_log_level NAME [-l LOGGER=LEVEL[:TIMEOUT]]... [-r LOGGER]...`:
//! Storm's `storm set_log_level`. Changes the level of loggers in every
//! instance JVM of a running topology through its master (Nimbus'
//! `setLogConfig`); without `-l` or `-r` it prints the levels in force.

use anyhow::{Context as _, bail};
use egret_config::Layered;
use egret_proto::v1::{
    ClientRequest, ClientResponse, Empty, LogConfigRequest, LogLevelChange, LoggerLevel,
    client_request,
};
use egret_topology_master::log_levels::normalized_level;

const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// One `-l LOGGER=LEVEL[:TIMEOUT]`: the level checked, the timeout in seconds
/// (0 or absent: until reset).
pub fn parse_set(text: &str) -> anyhow::Result<LogLevelChange> {
    let malformed = || {
        anyhow::anyhow!(
            "-l expects LOGGER=LEVEL[:TIMEOUT] (for example ROOT=DEBUG:30), found '{text}'"
        )
    };
    let (logger, rest) = text.split_once('=').ok_or_else(malformed)?;
    let logger = logger.trim();
    if logger.is_empty() {
        return Err(malformed());
    }
    let (level, timeout) = match rest.split_once(':') {
        Some((level, timeout)) => {
            let secs: i32 = timeout.trim().parse().map_err(|_| {
                anyhow::anyhow!(
                    "the timeout of -l '{text}' must be a whole number of seconds, found '{timeout}'"
                )
            })?;
            if secs < 0 {
                bail!("the timeout of -l '{text}' must not be negative");
            }
            (level, secs)
        }
        None => (rest, 0),
    };
    let level = normalized_level(level).ok_or_else(|| {
        anyhow::anyhow!(
            "unknown log level '{level}' in -l '{text}': use one of ALL, TRACE, DEBUG, INFO, WARN, ERROR, FATAL, OFF"
        )
    })?;
    Ok(LogLevelChange {
        logger: logger.to_owned(),
        remove: false,
        level: level.to_owned(),
        timeout_secs: timeout,
    })
}

/// Sends the changes (or, with none, asks for the levels) and prints the
/// levels in force afterwards.
pub async fn run(
    config: &Layered,
    name: &str,
    set: &[String],
    reset: &[String],
) -> anyhow::Result<()> {
    let mut changes = Vec::new();
    for text in set {
        changes.push(parse_set(text)?);
    }
    for logger in reset {
        if logger.trim().is_empty() {
            bail!("-r expects a logger name (ROOT for the root logger)");
        }
        changes.push(LogLevelChange {
            logger: logger.trim().to_owned(),
            remove: true,
            ..Default::default()
        });
    }
    let changed = !changes.is_empty();
    let req = if changed {
        client_request::Request::SetLogConfig(LogConfigRequest { changes })
    } else {
        client_request::Request::LogConfig(Empty {})
    };
    let response = ask(config, name, req).await?;
    if changed {
        println!("Sent the log levels to topology '{name}'.");
    }
    print!("{}", describe(&response.log_levels));
    Ok(())
}

async fn ask(
    config: &Layered,
    name: &str,
    req: client_request::Request,
) -> anyhow::Result<ClientResponse> {
    if let Some(state) = crate::hosts::cluster_of(config).await? {
        return crate::hosts::ask(&state, config, name, req, TIMEOUT).await;
    }
    let cluster = crate::manage::cluster(config)?;
    let dir = cluster.topology(name)?;
    let response = egret_topology_master::client::request(
        dir.path(),
        ClientRequest { request: Some(req) },
        TIMEOUT,
    )
    .await
    .with_context(|| format!("cannot reach the topology master of '{name}'"))?;
    if !response.ok {
        bail!("topology '{name}' refused: {}", response.error);
    }
    Ok(response)
}

/// The levels in force, one line each: `LOGGER LEVEL [reset in N s]`.
fn describe(levels: &[LoggerLevel]) -> String {
    if levels.is_empty() {
        return "No logger has a level of its own: every logger has the configured level.\n"
            .to_owned();
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0);
    let mut out = String::new();
    for l in levels {
        out.push_str(&l.logger);
        out.push('\t');
        out.push_str(&l.level);
        if l.reset_epoch_ms > 0 {
            let left = ((l.reset_epoch_ms - now).max(0) + 999) / 1000;
            out.push_str(&format!("\treset in {left} s"));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_is_parsed_with_and_without_a_timeout() {
        let c = parse_set("ROOT=debug:30").unwrap();
        assert_eq!(
            (
                c.logger.as_str(),
                c.level.as_str(),
                c.timeout_secs,
                c.remove
            ),
            ("ROOT", "DEBUG", 30, false)
        );
        let c = parse_set("com.acme.Foo=WARN").unwrap();
        assert_eq!(
            (c.logger.as_str(), c.level.as_str(), c.timeout_secs),
            ("com.acme.Foo", "WARN", 0)
        );
    }

    #[test]
    fn malformed_sets_are_refused_naming_the_problem() {
        for (text, want) in [
            ("ROOT", "LOGGER=LEVEL[:TIMEOUT]"),
            ("=DEBUG", "LOGGER=LEVEL[:TIMEOUT]"),
            ("ROOT=LOUD", "unknown log level 'LOUD'"),
            ("ROOT=DEBUG:soon", "whole number of seconds, found 'soon'"),
            ("ROOT=DEBUG:-3", "must not be negative"),
        ] {
            let err = parse_set(text).unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
    }

    #[test]
    fn the_levels_are_described_one_per_line() {
        assert!(describe(&[]).contains("configured level"));
        let text = describe(&[LoggerLevel {
            logger: "com.acme".into(),
            level: "DEBUG".into(),
            timeout_secs: 0,
            reset_epoch_ms: 0,
        }]);
        assert_eq!(text, "com.acme\tDEBUG\n");
    }
}
