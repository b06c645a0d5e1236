//! `egret bench --graphite-sinks`: Egret measured with its metrics manager's
//! Graphite sinks pointed at a port that accepts and never reads and at a
//! port nothing listens on (system `egret-sinks`), beside plain `egret`, so
//! that the report shows whether a stalled or dead sink costs throughput
//! (docs/bench.md). The sinks get a batch every second, so their queues are
//! full and dropping for most of the run.
//!
//! Invariants: the stalled listener lives as long as the [`StalledSink`]; its
//! receive buffer is small, so the sink's writes stall within seconds.

use std::net::{SocketAddr, TcpListener};

/// The system name of Egret with the two sinks.
pub const SYSTEM: &str = "egret-sinks";

/// A listener whose connections are accepted by the kernel (backlog) and
/// never read.
#[derive(Debug)]
pub struct StalledSink {
    _listener: TcpListener,
    addr: SocketAddr,
}

impl StalledSink {
    pub fn bind() -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        Ok(Self {
            _listener: listener,
            addr,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

/// An address nothing listens on (bound once to learn a free port, then closed).
pub fn dead_address() -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    listener.local_addr()
}

/// The topology options of the `egret-sinks` runs.
pub fn options(stalled: SocketAddr, dead: SocketAddr) -> Vec<String> {
    vec![
        format!("egret.metrics.graphite.address={stalled},{dead}"),
        "egret.metrics.sink.interval.secs=1".to_owned(),
        "egret.metrics.sink.queue.batches=4".to_owned(),
    ]
}

/// The systems `--systems LIST` names, with `--ceiling` and `--graphite-sinks`
/// applied: the ceiling last, `egret-sinks` right after `egret` (or last).
/// An unknown name is an error naming it.
pub fn systems(
    list: &[String],
    ceiling: bool,
    graphite_sinks: bool,
) -> Result<Vec<String>, String> {
    let known = [
        "storm",
        "egret",
        "ceiling",
        SYSTEM,
        crate::bridges::JNI_SYSTEM,
        crate::batching::TIMER_SYSTEM,
    ];
    if let Some(bad) = list.iter().find(|s| !known.contains(&s.as_str())) {
        return Err(format!(
            "unknown system '{bad}' in --systems ({})",
            known.join(", ")
        ));
    }
    let mut out: Vec<String> = list.to_vec();
    if graphite_sinks && !out.iter().any(|s| s == SYSTEM) {
        match out.iter().position(|s| s == "egret") {
            Some(i) => out.insert(i + 1, SYSTEM.to_owned()),
            None => out.push(SYSTEM.to_owned()),
        }
    }
    if ceiling && !out.iter().any(|s| s == "ceiling") {
        out.push("ceiling".to_owned());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_flag_puts_egret_sinks_after_egret() {
        let storm_egret = list(&["storm", "egret"]);
        assert_eq!(systems(&storm_egret, false, false).unwrap(), storm_egret);
        assert_eq!(
            systems(&storm_egret, false, true).unwrap(),
            list(&["storm", "egret", "egret-sinks"])
        );
        assert_eq!(
            systems(&list(&["egret", "storm"]), true, true).unwrap(),
            list(&["egret", "egret-sinks", "storm", "ceiling"])
        );
        assert_eq!(
            systems(&list(&["storm"]), false, true).unwrap(),
            list(&["storm", "egret-sinks"])
        );
        // Named already: not twice.
        assert_eq!(
            systems(&list(&["egret-sinks", "egret"]), false, true).unwrap(),
            list(&["egret-sinks", "egret"])
        );
        let timer = list(&["storm", "egret-timer", "egret"]);
        assert_eq!(systems(&timer, false, false).unwrap(), timer);
        let err = systems(&list(&["storm", "flink"]), false, false).unwrap_err();
        assert!(
            err.contains("'flink'") && err.contains("egret-sinks") && err.contains("egret-timer"),
            "{err}"
        );
    }

    #[test]
    fn the_sinks_are_a_stalled_and_a_dead_port() {
        let stalled = StalledSink::bind().unwrap();
        let dead = dead_address().unwrap();
        // The stalled one accepts (the kernel completes the handshake)...
        assert!(std::net::TcpStream::connect(stalled.addr()).is_ok());
        // ...the dead one refuses.
        assert!(std::net::TcpStream::connect(dead).is_err());
        let options = options(stalled.addr(), dead);
        assert_eq!(
            options[0],
            format!("egret.metrics.graphite.address={},{dead}", stalled.addr())
        );
        // What the metrics manager accepts.
        let mut config = serde_json::Map::new();
        for o in &options {
            let (k, v) = o.split_once('=').unwrap();
            let v = v
                .parse::<u64>()
                .map_or_else(|_| serde_json::json!(v), |n| serde_json::json!(n));
            config.insert(k.to_owned(), v);
        }
        let settings = egret_metrics::manager::ManagerSettings::from_config(&config).unwrap();
        assert_eq!(settings.graphite.len(), 2);
    }
}
