//! The settings every process of a topology obeys, resolved once ("Rust
//! resolves, Java obeys"; contracts.md, "Resolved settings").
//!
//! At submission [`resolve_topology`] validates the topology's name, makes
//! every component's `parallelism` and `num_tasks` explicit, and stores the
//! [`TopologySettings`] resolved from `config_json` in the `Topology`. The
//! topology master, the stream managers and the instance JVMs read the stored
//! values ([`settings_of`]) and never parse these keys again.
//!
//! Invariants:
//! - the defaults of these keys live here and only here;
//! - an integer is a JSON number, an integer-valued float or a numeric string
//!   (Storm's `ObjectReader` habit); a boolean is `true`/`false` or the strings
//!   `"true"`/`"false"`; anything else is an error naming the key and the value;
//! - a stored topology without settings (written by an older egret) is an
//!   error, never silent defaults.

use egret_proto::frame::HELLO_MAX_BYTES;
use egret_proto::v1::{Bridge, Component, Isolation, SchedPolicy, Topology, TopologySettings};
use serde_json::Value;

use crate::ConfigMap;

pub const FRAME_MAX_BYTES: &str = "egret.frame.max.bytes";
pub const BATCH_SIZE: &str = "egret.batch.size";
pub const BATCH_FLUSH_MS: &str = "egret.batch.flush.ms";
pub const BATCH_FLUSH_IDLE: &str = "egret.batch.flush.idle";
pub const INSTANCE_INBOUND_BYTES: &str = "egret.instance.inbound.bytes";
pub const INSTANCE_OUTBOUND_BYTES: &str = "egret.instance.outbound.bytes";
pub const HIGH_WATERMARK: &str = "egret.backpressure.high.watermark.bytes";
pub const LOW_WATERMARK: &str = "egret.backpressure.low.watermark.bytes";
pub const ACKER_EXECUTORS: &str = "topology.acker.executors";
/// Heron's key: `ATMOST_ONCE`, `ATLEAST_ONCE` or `EFFECTIVELY_ONCE`; unset, the
/// mode follows `topology.acker.executors` as in Storm.
pub const RELIABILITY_MODE: &str = "topology.reliability.mode";
pub const MESSAGE_TIMEOUT_SECS: &str = "topology.message.timeout.secs";
pub const ENABLE_MESSAGE_TIMEOUTS: &str = "topology.enable.message.timeouts";
pub const ISOLATION: &str = "egret.isolation";
pub const JVM_OVERHEAD_MB: &str = "egret.isolation.jvm.overhead.mb";
/// How a container's executors reach its stream manager: `socket` (one JVM
/// per executor, the default) or `jni` (one JVM in the stream manager's process).
pub const BRIDGE: &str = "egret.instance.bridge";
/// The scheduling policy of the data path's processes (stream manager, instance JVMs).
pub const SCHED_POLICY: &str = "egret.sched.policy";
/// Where stateful tasks' checkpoints are stored (default: `checkpoints/` of
/// the topology's directory).
pub const CHECKPOINT_DIR: &str = "egret.checkpoint.dir";
/// How many complete checkpoints are kept.
pub const CHECKPOINT_RETAIN: &str = "egret.checkpoint.retain";
pub const DEFAULT_CHECKPOINT_RETAIN: u32 = 3;
/// Effectively once: the bytes of input a task may hold while it aligns a
/// checkpoint's markers (the inputs that are ahead); 0: the data spouts pause
/// from each PREPARE to its COMMIT instead, and nothing is buffered.
pub const CHECKPOINT_ALIGNMENT_BYTES: &str = "egret.checkpoint.alignment.bytes";
pub const DEFAULT_CHECKPOINT_ALIGNMENT_BYTES: u64 = 16 * 1024 * 1024;
/// A durable state is stored whole at one checkpoint in this many, and as a
/// delta (what changed since its previous checkpoint) at the others; 1: whole
/// at every checkpoint.
pub const CHECKPOINT_FULL_EVERY: &str = "egret.checkpoint.full.every";
pub const DEFAULT_CHECKPOINT_FULL_EVERY: u32 = 1;
/// Storm's key: serialize tuples even between executors of one JVM (in Egret,
/// the JNI bridge's container); false, the default: their values are passed by
/// reference there, as Storm passes them within a worker.
pub const ALWAYS_TRY_SERIALIZE: &str = "topology.testing.always.try.serialize";
/// What an instance JVM may use beyond its heap before its memory limit.
pub const DEFAULT_JVM_OVERHEAD_MB: u32 = 256;

pub const DEFAULT_FRAME_MAX_BYTES: u32 = 64 * 1024 * 1024;
pub const DEFAULT_BATCH_SIZE: u32 = 1024;
pub const DEFAULT_BATCH_FLUSH_MS: u32 = 5;
pub const DEFAULT_INSTANCE_INBOUND_BYTES: u64 = 256 * 1024;
pub const DEFAULT_INSTANCE_OUTBOUND_BYTES: u64 = 256 * 1024;
/// Per destination: a few thousand small tuples, or a few full 64 KiB frames.
/// The bytes queued are what a tuple waits behind, so this bounds the complete
/// latency under load; it was 16 MiB, which held ~300 000 small tuples (seconds
/// of queueing) and made every pending-tree table miss the caches
/// (docs/performance.md: 512 KiB doubled throughput and cut p99 tenfold).
pub const DEFAULT_HIGH_WATERMARK: u64 = 512 * 1024;
pub const DEFAULT_LOW_WATERMARK: u64 = DEFAULT_HIGH_WATERMARK / 2;
/// With the JNI bridge, `egret.instance.inbound.bytes` and
/// `egret.instance.outbound.bytes` default to a quarter of the socket bridge's:
/// a frame crosses into the JVM without a system call, so smaller batches cost
/// little, and every tuple queued there is an object in the one heap that all
/// the container's executors share, copied by each young collection (which
/// stops them all). docs/performance.md, "Fewer objects per tuple": the same
/// throughput with p99 about a quarter and 35-40 MiB less resident.
pub const DEFAULT_JNI_INSTANCE_QUEUE_BYTES: u64 = 64 * 1024;
/// With the JNI bridge the high watermark defaults to a quarter of the socket
/// bridge's too (the low one to half of it): its tuples mostly go by reference,
/// so a frame of them is small and a byte bound holds more of them.
pub const DEFAULT_JNI_HIGH_WATERMARK: u64 = 128 * 1024;
/// Storm's default `topology.message.timeout.secs`.
pub const DEFAULT_MESSAGE_TIMEOUT_SECS: u32 = 30;
/// The largest frame cap: the JVM's arrays are indexed by a signed 32-bit int.
pub const MAX_FRAME_MAX_BYTES: u32 = i32::MAX as u32;
/// The environment variable the container gives each instance JVM: the
/// resolved frame cap, in force from the first frame after the hello (the
/// assignment itself).
pub const FRAME_MAX_BYTES_ENV: &str = "EGRET_FRAME_MAX_BYTES";

/// Storm's rule for topology names, which also name directories here.
pub const TOPOLOGY_NAME_RULE: &str =
    "a topology name must be non-empty and contain none of / . : \\ nor a control character";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error("config key {key} must be {expected}, found {value}")]
    BadValue {
        key: &'static str,
        expected: &'static str,
        value: String,
    },
    #[error("{RELIABILITY_MODE} {0} needs acking, but {ACKER_EXECUTORS} is 0")]
    ModeNeedsAcking(&'static str),
    #[error(
        "{RELIABILITY_MODE} EFFECTIVELY_ONCE needs a stateful bolt (IStatefulBolt): topology '{0}' has none, so it has no checkpoints to roll back to"
    )]
    EffectivelyOnceWithoutState(String),
    #[error("{LOW_WATERMARK} ({low}) must be below {HIGH_WATERMARK} ({high})")]
    LowNotBelowHigh { low: u64, high: u64 },
    #[error("invalid topology name '{name}': {TOPOLOGY_NAME_RULE}")]
    BadName { name: String },
    #[error("component '{component}' has {what} {value}; it must not be negative")]
    NegativeCount {
        component: String,
        what: &'static str,
        value: i32,
    },
    #[error("the topology has more than {} tasks", i32::MAX)]
    TooManyTasks,
    #[error("the topology config is unreadable: {0}")]
    Config(String),
    #[error(
        "topology '{0}' carries no resolved settings (written by an older egret?); submit it again"
    )]
    Missing(String),
}

/// Checks a topology name against [`TOPOLOGY_NAME_RULE`] (Storm's
/// `^[^/.:\\]+$`, plus no control character).
pub fn validate_topology_name(name: &str) -> Result<(), SettingsError> {
    let bad = name.is_empty()
        || name
            .chars()
            .any(|c| matches!(c, '/' | '.' | ':' | '\\') || c.is_control());
    if bad {
        return Err(SettingsError::BadName {
            name: name.to_owned(),
        });
    }
    Ok(())
}

/// The explicit (parallelism, num_tasks) of a component: parallelism 0 means 1,
/// num_tasks 0 means the parallelism (the proto's "defaults to the
/// parallelism"); a negative one is refused with the component named.
pub fn component_counts(component: &Component) -> Result<(i32, i32), SettingsError> {
    let negative = |what, value| SettingsError::NegativeCount {
        component: component.id.clone(),
        what,
        value,
    };
    let parallelism = match component.parallelism {
        0 => 1,
        p if p < 0 => return Err(negative("parallelism", p)),
        p => p,
    };
    let num_tasks = match component.num_tasks {
        0 => parallelism,
        n if n < 0 => return Err(negative("num_tasks", n)),
        n => n,
    };
    Ok((parallelism, num_tasks))
}

/// Storm's task numbering: components sorted by id (byte order), tasks from 1
/// consecutively, [`component_counts`]'s `num_tasks` each. Returns, in that
/// order, each component's id and its first and last task id (last < first
/// for none). The one numbering of the Rust side: packing and the stream
/// managers' delivery table both use it.
pub fn task_ranges(topology: &Topology) -> Result<Vec<(&str, i32, i32)>, SettingsError> {
    let mut components: Vec<&Component> = topology.components.iter().collect();
    components.sort_by(|a, b| a.id.as_bytes().cmp(b.id.as_bytes()));
    let mut next = 1i32;
    let mut out = Vec::with_capacity(components.len());
    for component in components {
        let (_, num_tasks) = component_counts(component)?;
        let after = next
            .checked_add(num_tasks)
            .ok_or(SettingsError::TooManyTasks)?;
        out.push((component.id.as_str(), next, after - 1));
        next = after;
    }
    Ok(out)
}

/// Resolves the settings from a topology's merged config.
pub fn resolve(config: &ConfigMap) -> Result<TopologySettings, SettingsError> {
    let frame_max_bytes = int(config, FRAME_MAX_BYTES)?
        .map(|n| {
            in_range(
                FRAME_MAX_BYTES,
                n,
                HELLO_MAX_BYTES as i64,
                MAX_FRAME_MAX_BYTES as i64,
                "an integer number of bytes from 4096 to 2147483647",
            )
        })
        .transpose()?
        .unwrap_or(i64::from(DEFAULT_FRAME_MAX_BYTES));
    let batch_size = positive_u32(config, BATCH_SIZE)?.unwrap_or(DEFAULT_BATCH_SIZE);
    let batch_flush_ms = positive_u32(config, BATCH_FLUSH_MS)?.unwrap_or(DEFAULT_BATCH_FLUSH_MS);
    let batch_flush_idle = boolean(config, BATCH_FLUSH_IDLE)?.unwrap_or(true);
    let bridge = one_of(
        config,
        BRIDGE,
        "one of socket, jni",
        &[("socket", Bridge::Socket), ("jni", Bridge::Jni)],
    )?
    .unwrap_or(Bridge::Socket);
    let (default_inbound, default_outbound, default_high) = match bridge {
        Bridge::Socket | Bridge::Unspecified => (
            DEFAULT_INSTANCE_INBOUND_BYTES,
            DEFAULT_INSTANCE_OUTBOUND_BYTES,
            DEFAULT_HIGH_WATERMARK,
        ),
        Bridge::Jni => (
            DEFAULT_JNI_INSTANCE_QUEUE_BYTES,
            DEFAULT_JNI_INSTANCE_QUEUE_BYTES,
            DEFAULT_JNI_HIGH_WATERMARK,
        ),
    };
    let instance_inbound_bytes =
        positive_u64(config, INSTANCE_INBOUND_BYTES)?.unwrap_or(default_inbound);
    let instance_outbound_bytes =
        positive_u64(config, INSTANCE_OUTBOUND_BYTES)?.unwrap_or(default_outbound);
    let (high_watermark_bytes, low_watermark_bytes) = watermarks(config, default_high)?;
    let ackers = match int(config, ACKER_EXECUTORS)? {
        None => None, // Storm: null means one acker per worker.
        Some(n) if n < 0 => {
            return Err(bad(ACKER_EXECUTORS, "a non-negative integer", config));
        }
        Some(n) => Some(n > 0),
    };
    let (acking, effectively_once) = match reliability_mode(config)? {
        None => (ackers.unwrap_or(true), false),
        Some(ReliabilityMode::AtMostOnce) => (false, false),
        Some(mode) => {
            if ackers == Some(false) {
                return Err(SettingsError::ModeNeedsAcking(mode.name()));
            }
            (true, mode == ReliabilityMode::EffectivelyOnce)
        }
    };
    let message_timeout_secs =
        positive_u32(config, MESSAGE_TIMEOUT_SECS)?.unwrap_or(DEFAULT_MESSAGE_TIMEOUT_SECS);
    let message_timeouts = boolean(config, ENABLE_MESSAGE_TIMEOUTS)?.unwrap_or(true);
    let isolation = one_of(
        config,
        ISOLATION,
        "one of auto, cgroups, none",
        &[
            ("auto", Isolation::Auto),
            ("cgroups", Isolation::Cgroups),
            ("none", Isolation::None),
        ],
    )?
    .unwrap_or(Isolation::Auto);
    let jvm_overhead_mb = positive_u32(config, JVM_OVERHEAD_MB)?.unwrap_or(DEFAULT_JVM_OVERHEAD_MB);
    let alignment_buffer_bytes = non_negative_u64(config, CHECKPOINT_ALIGNMENT_BYTES)?
        .unwrap_or(DEFAULT_CHECKPOINT_ALIGNMENT_BYTES);
    let checkpoint_full_every =
        positive_u32(config, CHECKPOINT_FULL_EVERY)?.unwrap_or(DEFAULT_CHECKPOINT_FULL_EVERY);
    let always_try_serialize = boolean(config, ALWAYS_TRY_SERIALIZE)?.unwrap_or(false);
    let sched_policy = one_of(
        config,
        SCHED_POLICY,
        "one of batch, other",
        &[("batch", SchedPolicy::Batch), ("other", SchedPolicy::Other)],
    )?
    .unwrap_or(SchedPolicy::Other);
    Ok(TopologySettings {
        frame_max_bytes: u32::try_from(frame_max_bytes).unwrap_or(DEFAULT_FRAME_MAX_BYTES),
        batch_size,
        batch_flush_ms,
        batch_flush_idle,
        instance_inbound_bytes,
        instance_outbound_bytes,
        high_watermark_bytes,
        low_watermark_bytes,
        acking,
        message_timeout_secs,
        message_timeouts,
        isolation: isolation as i32,
        jvm_overhead_mb,
        bridge: bridge as i32,
        effectively_once,
        alignment_buffer_bytes,
        checkpoint_full_every,
        always_try_serialize,
        sched_policy: sched_policy as i32,
    })
}

/// The values of [`RELIABILITY_MODE`] (Heron's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReliabilityMode {
    AtMostOnce,
    AtLeastOnce,
    EffectivelyOnce,
}

impl ReliabilityMode {
    pub fn name(self) -> &'static str {
        match self {
            ReliabilityMode::AtMostOnce => "ATMOST_ONCE",
            ReliabilityMode::AtLeastOnce => "ATLEAST_ONCE",
            ReliabilityMode::EffectivelyOnce => "EFFECTIVELY_ONCE",
        }
    }
}

/// The mode a topology's resolved settings give.
pub fn mode_of(s: &TopologySettings) -> ReliabilityMode {
    if s.effectively_once {
        ReliabilityMode::EffectivelyOnce
    } else if s.acking {
        ReliabilityMode::AtLeastOnce
    } else {
        ReliabilityMode::AtMostOnce
    }
}

fn reliability_mode(config: &ConfigMap) -> Result<Option<ReliabilityMode>, SettingsError> {
    const EXPECTED: &str = "one of ATMOST_ONCE, ATLEAST_ONCE, EFFECTIVELY_ONCE";
    match config.get(RELIABILITY_MODE) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => match s.trim().to_ascii_uppercase().as_str() {
            "ATMOST_ONCE" => Ok(Some(ReliabilityMode::AtMostOnce)),
            "ATLEAST_ONCE" => Ok(Some(ReliabilityMode::AtLeastOnce)),
            "EFFECTIVELY_ONCE" => Ok(Some(ReliabilityMode::EffectivelyOnce)),
            _ => Err(bad(RELIABILITY_MODE, EXPECTED, config)),
        },
        Some(_) => Err(bad(RELIABILITY_MODE, EXPECTED, config)),
    }
}

/// The submission step: validates the name, makes every component's
/// parallelism and task count explicit, and stores the resolved settings in
/// `topology.settings`.
pub fn resolve_topology(topology: &mut Topology) -> Result<(), SettingsError> {
    validate_topology_name(&topology.name)?;
    for component in &mut topology.components {
        let (parallelism, num_tasks) = component_counts(component)?;
        component.parallelism = parallelism;
        component.num_tasks = num_tasks;
    }
    task_ranges(topology)?;
    let config = crate::topology::config_map(topology).map_err(SettingsError::Config)?;
    let settings = resolve(&config)?;
    if settings.effectively_once {
        rewire_checkpoints_through_spouts(topology)?;
    }
    topology.settings = Some(settings);
    checkpoint_settings_of(&config, std::path::Path::new("."))?;
    Ok(())
}

/// The checkpoint spout Storm's `TopologyBuilder` adds for stateful bolts, and its stream.
pub const CHECKPOINT_SPOUT: &str = "$checkpointspout";
pub const CHECKPOINT_STREAM: &str = "$checkpoint";

/// Effectively once: the checkpoint markers must travel with the data, so a
/// bolt that read `$checkpoint` from the checkpoint spout in place of a data
/// spout now reads it from that data spout, and each such data spout reads
/// (all grouping) the checkpoint spout's `$checkpoint` and declares its own,
/// which its instance forwards after the tuples it emitted before
/// (contracts.md, "Effectively once").
fn rewire_checkpoints_through_spouts(topology: &mut Topology) -> Result<(), SettingsError> {
    use egret_proto::v1::{ComponentKind, Empty, Grouping, InputDef, StreamDef, grouping};
    let spouts: std::collections::BTreeSet<String> = topology
        .components
        .iter()
        .filter(|c| c.kind == ComponentKind::Spout as i32 && c.id != CHECKPOINT_SPOUT)
        .map(|c| c.id.clone())
        .collect();
    if !topology.components.iter().any(|c| c.id == CHECKPOINT_SPOUT) {
        return Err(SettingsError::EffectivelyOnceWithoutState(
            topology.name.clone(),
        ));
    }
    let all = || Grouping {
        kind: Some(grouping::Kind::All(Empty {})),
    };
    let mut fed: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for c in &mut topology.components {
        if c.kind != ComponentKind::Bolt as i32 {
            continue;
        }
        let reads_markers = c
            .inputs
            .iter()
            .any(|i| i.component == CHECKPOINT_SPOUT && i.stream == CHECKPOINT_STREAM);
        if !reads_markers {
            continue;
        }
        let mut sources: Vec<String> = Vec::new();
        for i in &c.inputs {
            if spouts.contains(&i.component) && !sources.contains(&i.component) {
                sources.push(i.component.clone());
            }
        }
        c.inputs
            .retain(|i| !(i.component == CHECKPOINT_SPOUT && i.stream == CHECKPOINT_STREAM));
        for s in sources {
            c.inputs.push(InputDef {
                component: s.clone(),
                stream: CHECKPOINT_STREAM.to_owned(),
                grouping: Some(all()),
            });
            fed.insert(s);
        }
    }
    for c in &mut topology.components {
        if !fed.contains(&c.id) {
            continue;
        }
        if !c.streams.iter().any(|s| s.id == CHECKPOINT_STREAM) {
            c.streams.push(StreamDef {
                id: CHECKPOINT_STREAM.to_owned(),
                fields: vec!["txid".to_owned(), "action".to_owned()],
                direct: false,
            });
            c.streams.sort_by(|a, b| a.id.cmp(&b.id));
        }
        c.inputs.push(InputDef {
            component: CHECKPOINT_SPOUT.to_owned(),
            stream: CHECKPOINT_STREAM.to_owned(),
            grouping: Some(all()),
        });
    }
    Ok(())
}

/// Where and how a topology's checkpoints are kept (`egret.checkpoint.*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointSettings {
    /// The store's root directory; the topology's name is the first part of every key.
    pub dir: std::path::PathBuf,
    /// Complete checkpoints kept (at least 1).
    pub retain: u32,
}

/// Resolves `egret.checkpoint.dir` and `egret.checkpoint.retain` of a topology
/// whose directory is `topology_dir` (the dir's default). The one place their
/// defaults live: the stream managers and `egret checkpoints` both call it;
/// [`resolve_topology`] checks the values at submission.
pub fn checkpoint_settings(
    topology: &Topology,
    topology_dir: &std::path::Path,
) -> Result<CheckpointSettings, SettingsError> {
    let config = crate::topology::config_map(topology).map_err(SettingsError::Config)?;
    checkpoint_settings_of(&config, topology_dir)
}

fn checkpoint_settings_of(
    config: &ConfigMap,
    topology_dir: &std::path::Path,
) -> Result<CheckpointSettings, SettingsError> {
    let dir = match config.get(CHECKPOINT_DIR) {
        None | Some(Value::Null) => topology_dir.join("checkpoints"),
        Some(Value::String(s)) if !s.trim().is_empty() => std::path::PathBuf::from(s.trim()),
        Some(_) => return Err(bad(CHECKPOINT_DIR, "a non-empty path", config)),
    };
    let retain = positive_u32(config, CHECKPOINT_RETAIN)?.unwrap_or(DEFAULT_CHECKPOINT_RETAIN);
    Ok(CheckpointSettings { dir, retain })
}

/// The settings stored in a (submitted) topology; an error when it has none.
pub fn settings_of(topology: &Topology) -> Result<&TopologySettings, SettingsError> {
    topology
        .settings
        .as_ref()
        .ok_or_else(|| SettingsError::Missing(topology.name.clone()))
}

/// One line, the same keys in every process (greppable: `Resolved settings:`).
pub fn describe(s: &TopologySettings) -> String {
    format!(
        "{FRAME_MAX_BYTES}={} {BATCH_SIZE}={} {BATCH_FLUSH_MS}={} {BATCH_FLUSH_IDLE}={} \
         {INSTANCE_INBOUND_BYTES}={} \
         {INSTANCE_OUTBOUND_BYTES}={} {HIGH_WATERMARK}={} {LOW_WATERMARK}={} acking={} \
         {MESSAGE_TIMEOUT_SECS}={} {ENABLE_MESSAGE_TIMEOUTS}={} {ISOLATION}={} {JVM_OVERHEAD_MB}={} \
         {BRIDGE}={} {ALWAYS_TRY_SERIALIZE}={} {RELIABILITY_MODE}={} {CHECKPOINT_ALIGNMENT_BYTES}={} \
         {CHECKPOINT_FULL_EVERY}={} {SCHED_POLICY}={}",
        s.frame_max_bytes,
        s.batch_size,
        s.batch_flush_ms,
        s.batch_flush_idle,
        s.instance_inbound_bytes,
        s.instance_outbound_bytes,
        s.high_watermark_bytes,
        s.low_watermark_bytes,
        s.acking,
        s.message_timeout_secs,
        s.message_timeouts,
        isolation_name(s.isolation()),
        s.jvm_overhead_mb,
        bridge_name(s.bridge()),
        s.always_try_serialize,
        mode_of(s).name(),
        s.alignment_buffer_bytes,
        s.checkpoint_full_every.max(1),
        sched_policy_name(s.sched_policy()),
    )
}

/// The config value naming `policy` (unspecified, from an older submission, is other).
pub fn sched_policy_name(policy: SchedPolicy) -> &'static str {
    match policy {
        SchedPolicy::Other | SchedPolicy::Unspecified => "other",
        SchedPolicy::Batch => "batch",
    }
}

/// The config value naming `bridge` (unspecified, from an older submission, is the socket).
pub fn bridge_name(bridge: Bridge) -> &'static str {
    match bridge {
        Bridge::Socket | Bridge::Unspecified => "socket",
        Bridge::Jni => "jni",
    }
}

/// The config value naming `isolation`.
pub fn isolation_name(isolation: Isolation) -> &'static str {
    match isolation {
        Isolation::Auto | Isolation::Unspecified => "auto",
        Isolation::Cgroups => "cgroups",
        Isolation::None => "none",
    }
}

/// Either watermark defaults from the other (low = high / 2; high = 2 × low,
/// at least the default); both default to 512 KiB / 256 KiB; high > 0 and
/// low < high.
/// The high and low watermarks; `default_high` (the bridge's) when neither is set.
fn watermarks(config: &ConfigMap, default_high: u64) -> Result<(u64, u64), SettingsError> {
    let (high, low) = match (
        non_negative_u64(config, HIGH_WATERMARK)?,
        non_negative_u64(config, LOW_WATERMARK)?,
    ) {
        (Some(high), Some(low)) => (high, low),
        (Some(high), None) => (high, high / 2),
        (None, Some(low)) => (low.saturating_mul(2).max(default_high), low),
        (None, None) => (default_high, default_high / 2),
    };
    if high == 0 {
        return Err(bad(
            HIGH_WATERMARK,
            "a positive integer number of bytes",
            config,
        ));
    }
    if low >= high {
        return Err(SettingsError::LowNotBelowHigh { low, high });
    }
    Ok((high, low))
}

fn bad(key: &'static str, expected: &'static str, config: &ConfigMap) -> SettingsError {
    SettingsError::BadValue {
        key,
        expected,
        value: config
            .get(key)
            .map(Value::to_string)
            .unwrap_or_else(|| "nothing".to_owned()),
    }
}

fn in_range(
    key: &'static str,
    n: i64,
    min: i64,
    max: i64,
    expected: &'static str,
) -> Result<i64, SettingsError> {
    if (min..=max).contains(&n) {
        Ok(n)
    } else {
        Err(SettingsError::BadValue {
            key,
            expected,
            value: n.to_string(),
        })
    }
}

/// An integer setting: `None` when absent or null.
fn int(config: &ConfigMap, key: &'static str) -> Result<Option<i64>, SettingsError> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => crate::as_int(value)
            .map(Some)
            .ok_or_else(|| bad(key, "an integer", config)),
    }
}

fn positive_u32(config: &ConfigMap, key: &'static str) -> Result<Option<u32>, SettingsError> {
    const WHAT: &str = "a positive integer (at most 2147483647)";
    int(config, key)?
        .map(|n| {
            i32::try_from(n)
                .ok()
                .filter(|n| *n > 0)
                .map(|n| n.unsigned_abs())
                .ok_or_else(|| bad(key, WHAT, config))
        })
        .transpose()
}

/// Positive and at most `i64::MAX` (a Java long).
fn positive_u64(config: &ConfigMap, key: &'static str) -> Result<Option<u64>, SettingsError> {
    bytes_at_least(config, key, 1, "a positive integer number of bytes")
}

/// Zero or more and at most `i64::MAX`.
fn non_negative_u64(config: &ConfigMap, key: &'static str) -> Result<Option<u64>, SettingsError> {
    bytes_at_least(config, key, 0, "a non-negative integer number of bytes")
}

fn bytes_at_least(
    config: &ConfigMap,
    key: &'static str,
    min: u64,
    what: &'static str,
) -> Result<Option<u64>, SettingsError> {
    int(config, key)?
        .map(|n| {
            u64::try_from(n)
                .ok()
                .filter(|n| *n >= min)
                .ok_or_else(|| bad(key, what, config))
        })
        .transpose()
}

/// One of `choices`' words (surrounding blanks ignored), or `None` when unset;
/// anything else is refused as not `expected`.
fn one_of<T: Copy>(
    config: &ConfigMap,
    key: &'static str,
    expected: &'static str,
    choices: &[(&str, T)],
) -> Result<Option<T>, SettingsError> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => choices
            .iter()
            .find(|(word, _)| *word == s.trim())
            .map(|(_, value)| Some(*value))
            .ok_or_else(|| bad(key, expected, config)),
        Some(_) => Err(bad(key, expected, config)),
    }
}

fn boolean(config: &ConfigMap, key: &'static str) -> Result<Option<bool>, SettingsError> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("true") => Ok(Some(true)),
        Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("false") => Ok(Some(false)),
        Some(_) => Err(bad(key, "true or false", config)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egret_proto::v1::ComponentKind;
    use serde_json::json;

    fn config(pairs: &[(&str, Value)]) -> ConfigMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    #[test]
    fn isolation_is_one_of_three_and_the_overhead_positive() {
        let with = |key: &str, value: Value| {
            let mut c = ConfigMap::new();
            c.insert(key.into(), value);
            resolve(&c)
        };
        let isolation = |v: &str| with(ISOLATION, json!(v)).map(|s| s.isolation());
        assert_eq!(isolation("cgroups").unwrap(), Isolation::Cgroups);
        assert_eq!(isolation("none").unwrap(), Isolation::None);
        assert_eq!(isolation(" auto ").unwrap(), Isolation::Auto);
        let err = isolation("docker").unwrap_err().to_string();
        assert!(
            err.contains(ISOLATION) && err.contains("auto, cgroups, none"),
            "{err}"
        );
        assert!(with(ISOLATION, json!(true)).is_err());
        assert_eq!(
            with(JVM_OVERHEAD_MB, json!(300)).unwrap().jvm_overhead_mb,
            300
        );
        assert!(with(JVM_OVERHEAD_MB, json!(0)).is_err());
        let line = describe(&with(ISOLATION, json!("none")).unwrap());
        assert!(
            line.contains("egret.isolation=none egret.isolation.jvm.overhead.mb=256"),
            "{line}"
        );
    }

    #[test]
    fn the_sched_policy_is_batch_or_other_and_anything_else_is_refused_naming_the_key() {
        let with = |value: Value| {
            let mut c = ConfigMap::new();
            c.insert(SCHED_POLICY.into(), value);
            resolve(&c).map(|s| s.sched_policy())
        };
        assert_eq!(
            resolve(&ConfigMap::new()).unwrap().sched_policy(),
            SchedPolicy::Other
        );
        assert_eq!(with(json!(" batch ")).unwrap(), SchedPolicy::Batch);
        assert_eq!(with(json!("other")).unwrap(), SchedPolicy::Other);
        assert_eq!(with(Value::Null).unwrap(), SchedPolicy::Other);
        for bad_value in [json!("fifo"), json!(1), json!(true), json!(["batch"])] {
            let err = with(bad_value.clone()).unwrap_err().to_string();
            assert!(
                err.contains(SCHED_POLICY) && err.contains("batch, other"),
                "{bad_value}: {err}"
            );
        }
        let line = describe(&resolve(&config(&[(SCHED_POLICY, json!("batch"))])).unwrap());
        assert!(line.ends_with("egret.sched.policy=batch"), "{line}");
        // A topology submitted before the key existed keeps the default policy.
        assert_eq!(sched_policy_name(SchedPolicy::Unspecified), "other");
    }

    #[test]
    fn the_bridge_is_socket_or_jni_and_anything_else_is_refused_naming_the_key() {
        let with = |value: Value| {
            let mut c = ConfigMap::new();
            c.insert(BRIDGE.into(), value);
            resolve(&c).map(|s| s.bridge())
        };
        assert_eq!(resolve(&ConfigMap::new()).unwrap().bridge(), Bridge::Socket);
        assert_eq!(with(json!("socket")).unwrap(), Bridge::Socket);
        assert_eq!(with(json!(" jni ")).unwrap(), Bridge::Jni);
        assert_eq!(with(Value::Null).unwrap(), Bridge::Socket);
        for bad_value in [json!("shm"), json!(1), json!(["jni"])] {
            let err = with(bad_value.clone()).unwrap_err().to_string();
            assert!(
                err.contains(BRIDGE) && err.contains("socket, jni"),
                "{bad_value}: {err}"
            );
        }
        let line = describe(&resolve(&config(&[(BRIDGE, json!("jni"))])).unwrap());
        assert!(
            line.ends_with(
                "egret.instance.bridge=jni topology.testing.always.try.serialize=false \
                 topology.reliability.mode=ATLEAST_ONCE \
                 egret.checkpoint.alignment.bytes=16777216 egret.checkpoint.full.every=1 \
                 egret.sched.policy=other"
            ),
            "{line}"
        );
    }

    #[test]
    fn always_try_serialize_is_storms_boolean_false_by_default() {
        let with = |value: Value| {
            resolve(&config(&[(ALWAYS_TRY_SERIALIZE, value)])).map(|s| s.always_try_serialize)
        };
        assert!(!resolve(&ConfigMap::new()).unwrap().always_try_serialize);
        assert!(with(json!(true)).unwrap());
        assert!(!with(json!("false")).unwrap());
        assert!(!with(Value::Null).unwrap());
        for bad_value in [json!("yes"), json!(1)] {
            let err = with(bad_value.clone()).unwrap_err().to_string();
            assert!(err.contains(ALWAYS_TRY_SERIALIZE), "{bad_value}: {err}");
        }
    }

    #[test]
    fn the_alignment_bound_is_a_non_negative_byte_count_and_zero_means_pausing() {
        let with = |value: Value| {
            resolve(&config(&[(CHECKPOINT_ALIGNMENT_BYTES, value)]))
                .map(|s| s.alignment_buffer_bytes)
        };
        assert_eq!(
            resolve(&ConfigMap::new()).unwrap().alignment_buffer_bytes,
            16 << 20
        );
        assert_eq!(with(json!(0)).unwrap(), 0);
        assert_eq!(with(json!("4096")).unwrap(), 4096);
        for bad_value in [json!(-1), json!("lots"), json!([1])] {
            let err = with(bad_value.clone()).unwrap_err().to_string();
            assert!(
                err.contains(CHECKPOINT_ALIGNMENT_BYTES) && err.contains("integer"),
                "{bad_value}: {err}"
            );
        }
    }

    #[test]
    fn full_every_is_a_positive_count() {
        let with = |value: Value| {
            resolve(&config(&[(CHECKPOINT_FULL_EVERY, value)])).map(|s| s.checkpoint_full_every)
        };
        assert_eq!(resolve(&ConfigMap::new()).unwrap().checkpoint_full_every, 1);
        assert_eq!(with(json!(10)).unwrap(), 10);
        assert_eq!(with(json!("4")).unwrap(), 4);
        for bad_value in [json!(0), json!(-2), json!("often")] {
            let err = with(bad_value.clone()).unwrap_err().to_string();
            assert!(err.contains(CHECKPOINT_FULL_EVERY), "{bad_value}: {err}");
        }
        let line = describe(&resolve(&config(&[(CHECKPOINT_FULL_EVERY, json!(10))])).unwrap());
        assert!(line.contains(" egret.checkpoint.full.every=10 "), "{line}");
    }

    #[test]
    fn defaults_when_nothing_is_set() {
        let s = resolve(&ConfigMap::new()).unwrap();
        assert_eq!(
            s,
            TopologySettings {
                frame_max_bytes: 64 << 20,
                batch_size: 1024,
                batch_flush_ms: 5,
                batch_flush_idle: true,
                instance_inbound_bytes: 256 << 10,
                instance_outbound_bytes: 256 << 10,
                high_watermark_bytes: 512 << 10,
                low_watermark_bytes: 256 << 10,
                acking: true,
                message_timeout_secs: 30,
                message_timeouts: true,
                isolation: Isolation::Auto as i32,
                jvm_overhead_mb: 256,
                bridge: Bridge::Socket as i32,
                effectively_once: false,
                alignment_buffer_bytes: DEFAULT_CHECKPOINT_ALIGNMENT_BYTES,
                checkpoint_full_every: 1,
                always_try_serialize: false,
                sched_policy: SchedPolicy::Other as i32,
            }
        );
        let nulls: Vec<(&str, Value)> = [
            FRAME_MAX_BYTES,
            BATCH_SIZE,
            ACKER_EXECUTORS,
            ENABLE_MESSAGE_TIMEOUTS,
        ]
        .iter()
        .map(|k| (*k, Value::Null))
        .collect();
        assert_eq!(resolve(&config(&nulls)).unwrap(), s);
    }

    #[test]
    fn every_setting_as_a_number_or_a_string_resolves_the_same() {
        let values: [(&str, i64); 9] = [
            (FRAME_MAX_BYTES, 2_000_000),
            (BATCH_SIZE, 17),
            (BATCH_FLUSH_MS, 9),
            (INSTANCE_INBOUND_BYTES, 300_000),
            (INSTANCE_OUTBOUND_BYTES, 400_000),
            (HIGH_WATERMARK, 700_000),
            (LOW_WATERMARK, 100_000),
            (ACKER_EXECUTORS, 0),
            (MESSAGE_TIMEOUT_SECS, 11),
        ];
        let numbers: Vec<(&str, Value)> = values.iter().map(|(k, v)| (*k, json!(v))).collect();
        let floats: Vec<(&str, Value)> =
            values.iter().map(|(k, v)| (*k, json!(*v as f64))).collect();
        let strings: Vec<(&str, Value)> = values
            .iter()
            .map(|(k, v)| (*k, json!(format!(" {v}"))))
            .collect();
        let mut n = config(&numbers);
        n.insert(ENABLE_MESSAGE_TIMEOUTS.into(), json!(false));
        n.insert(BATCH_FLUSH_IDLE.into(), json!(false));
        n.insert(ALWAYS_TRY_SERIALIZE.into(), json!(true));
        let mut f = config(&floats);
        f.insert(ENABLE_MESSAGE_TIMEOUTS.into(), json!(false));
        f.insert(BATCH_FLUSH_IDLE.into(), json!(false));
        f.insert(ALWAYS_TRY_SERIALIZE.into(), json!(true));
        let mut s = config(&strings);
        s.insert(ENABLE_MESSAGE_TIMEOUTS.into(), json!("false"));
        s.insert(BATCH_FLUSH_IDLE.into(), json!("false"));
        s.insert(ALWAYS_TRY_SERIALIZE.into(), json!("true"));
        let expected = TopologySettings {
            frame_max_bytes: 2_000_000,
            batch_size: 17,
            batch_flush_ms: 9,
            batch_flush_idle: false,
            instance_inbound_bytes: 300_000,
            instance_outbound_bytes: 400_000,
            high_watermark_bytes: 700_000,
            low_watermark_bytes: 100_000,
            acking: false,
            message_timeout_secs: 11,
            message_timeouts: false,
            isolation: Isolation::Auto as i32,
            jvm_overhead_mb: 256,
            bridge: Bridge::Socket as i32,
            effectively_once: false,
            alignment_buffer_bytes: DEFAULT_CHECKPOINT_ALIGNMENT_BYTES,
            checkpoint_full_every: 1,
            always_try_serialize: true,
            sched_policy: SchedPolicy::Other as i32,
        };
        assert_eq!(resolve(&n).unwrap(), expected);
        assert_eq!(resolve(&f).unwrap(), expected);
        assert_eq!(resolve(&s).unwrap(), expected);
        s.insert(ENABLE_MESSAGE_TIMEOUTS.into(), json!("TRUE"));
        assert!(resolve(&s).unwrap().message_timeouts);
    }

    #[test]
    fn bad_values_are_errors_naming_the_key_and_the_value() {
        let cases: [(&str, Value); 15] = [
            (HIGH_WATERMARK, json!(-5)),
            (LOW_WATERMARK, json!("-1")),
            (FRAME_MAX_BYTES, json!("lots")),
            (FRAME_MAX_BYTES, json!(10)),
            (FRAME_MAX_BYTES, json!(3_000_000_000u64)),
            (BATCH_SIZE, json!(0)),
            (BATCH_SIZE, json!(2.5)),
            (BATCH_FLUSH_MS, json!(-1)),
            (INSTANCE_INBOUND_BYTES, json!("0")),
            (INSTANCE_OUTBOUND_BYTES, json!([1])),
            (HIGH_WATERMARK, json!("many")),
            (ACKER_EXECUTORS, json!(-2)),
            (MESSAGE_TIMEOUT_SECS, json!("0")),
            (ENABLE_MESSAGE_TIMEOUTS, json!("yes")),
            (BATCH_FLUSH_IDLE, json!(1)),
        ];
        for (key, value) in cases {
            let err = resolve(&config(&[(key, value.clone())])).unwrap_err();
            let text = err.to_string();
            let shown = value.to_string();
            assert!(
                text.contains(key) && text.contains(&shown),
                "{key}={value}: {text}"
            );
        }
    }

    #[test]
    fn the_jni_bridge_defaults_to_smaller_queues_and_set_values_still_win() {
        let kib = 1024;
        let queues = |pairs: &[(&str, Value)]| {
            resolve(&config(pairs)).map(|s| {
                (
                    s.instance_inbound_bytes,
                    s.instance_outbound_bytes,
                    s.high_watermark_bytes,
                    s.low_watermark_bytes,
                )
            })
        };
        assert_eq!(
            queues(&[]).unwrap(),
            (256 * kib, 256 * kib, 512 * kib, 256 * kib)
        );
        assert_eq!(
            queues(&[(BRIDGE, json!("socket"))]).unwrap(),
            (256 * kib, 256 * kib, 512 * kib, 256 * kib)
        );
        assert_eq!(
            queues(&[(BRIDGE, json!("jni"))]).unwrap(),
            (64 * kib, 64 * kib, 128 * kib, 64 * kib)
        );
        assert_eq!(
            queues(&[
                (BRIDGE, json!("jni")),
                (INSTANCE_INBOUND_BYTES, json!(1000)),
                (INSTANCE_OUTBOUND_BYTES, json!(2000)),
                (HIGH_WATERMARK, json!(9000)),
            ])
            .unwrap(),
            (1000, 2000, 9000, 4500)
        );
        // Only the low watermark set: the high one is twice it, at least the bridge's default.
        assert_eq!(
            queues(&[(BRIDGE, json!("jni")), (LOW_WATERMARK, json!(1000))]).unwrap(),
            (64 * kib, 64 * kib, 128 * kib, 1000)
        );
    }

    #[test]
    fn watermarks_default_derive_and_validate() {
        let kib = 1024;
        let w = |pairs: &[(&str, Value)]| {
            resolve(&config(pairs)).map(|s| (s.high_watermark_bytes, s.low_watermark_bytes))
        };
        assert_eq!(w(&[]).unwrap(), (512 * kib, 256 * kib));
        assert_eq!(
            w(&[(LOW_WATERMARK, json!(1000))]).unwrap(),
            (512 * kib, 1000)
        );
        assert_eq!(w(&[(HIGH_WATERMARK, json!(1000))]).unwrap(), (1000, 500));
        assert_eq!(
            w(&[(LOW_WATERMARK, json!("20000000"))]).unwrap(),
            (40_000_000, 20_000_000)
        );
        let err = w(&[(HIGH_WATERMARK, json!(1000)), (LOW_WATERMARK, json!(1000))]).unwrap_err();
        assert_eq!(
            err,
            SettingsError::LowNotBelowHigh {
                low: 1000,
                high: 1000
            }
        );
        assert!(
            err.to_string()
                .contains("must be below egret.backpressure.high.watermark.bytes")
        );
        assert!(
            w(&[(HIGH_WATERMARK, json!(0))])
                .unwrap_err()
                .to_string()
                .contains(HIGH_WATERMARK)
        );
    }

    #[test]
    fn names_follow_one_rule() {
        for good in ["word-count", "a b", "x_1", "Ünïcode"] {
            assert!(validate_topology_name(good).is_ok(), "{good}");
        }
        for bad in ["", "a.b", "a/b", "a:b", "a\\b", "..", "a\0b", "a\nb"] {
            let err = validate_topology_name(bad).unwrap_err().to_string();
            assert!(err.contains(TOPOLOGY_NAME_RULE), "{err}");
        }
    }

    fn component(id: &str, parallelism: i32, num_tasks: i32) -> Component {
        Component {
            id: id.into(),
            kind: ComponentKind::Bolt as i32,
            parallelism,
            num_tasks,
            ..Default::default()
        }
    }

    #[test]
    fn reliability_mode_is_resolved_once_with_clear_errors() {
        let mode = |v: Value| {
            let mut c = ConfigMap::new();
            c.insert(RELIABILITY_MODE.into(), v);
            resolve(&c).map(|s| mode_of(&s))
        };
        assert_eq!(
            mode(json!("EFFECTIVELY_ONCE")).unwrap(),
            ReliabilityMode::EffectivelyOnce
        );
        assert_eq!(
            mode(json!("atleast_once")).unwrap(),
            ReliabilityMode::AtLeastOnce
        );
        assert_eq!(
            mode(json!("ATMOST_ONCE")).unwrap(),
            ReliabilityMode::AtMostOnce
        );
        assert_eq!(
            mode_of(&resolve(&ConfigMap::new()).unwrap()),
            ReliabilityMode::AtLeastOnce
        );
        let err = mode(json!("EXACTLY_ONCE")).unwrap_err().to_string();
        assert!(
            err.contains(RELIABILITY_MODE) && err.contains("EXACTLY_ONCE"),
            "{err}"
        );
        let mut c = ConfigMap::new();
        c.insert(RELIABILITY_MODE.into(), json!("EFFECTIVELY_ONCE"));
        c.insert(ACKER_EXECUTORS.into(), json!(0));
        let err = resolve(&c).unwrap_err().to_string();
        assert!(err.contains(ACKER_EXECUTORS), "{err}");
    }

    #[test]
    fn effectively_once_routes_the_markers_through_the_data_spouts() {
        use egret_proto::v1::{InputDef, StreamDef};
        let input = |c: &str, s: &str| InputDef {
            component: c.into(),
            stream: s.into(),
            grouping: None,
        };
        let mut spout = component("words", 1, 0);
        spout.kind = ComponentKind::Spout as i32;
        spout.streams = vec![StreamDef {
            id: "default".into(),
            ..Default::default()
        }];
        let mut cp = component(CHECKPOINT_SPOUT, 1, 0);
        cp.kind = ComponentKind::Spout as i32;
        let mut count = component("count", 2, 0);
        count.inputs = vec![
            input("words", "default"),
            input(CHECKPOINT_SPOUT, CHECKPOINT_STREAM),
        ];
        let mut t = Topology {
            name: "eo".into(),
            config_json: r#"{"topology.reliability.mode": "EFFECTIVELY_ONCE"}"#.into(),
            components: vec![spout, cp, count],
            ..Default::default()
        };
        resolve_topology(&mut t).unwrap();
        assert!(settings_of(&t).unwrap().effectively_once);
        let count = &t.components[2];
        let inputs: Vec<_> = count
            .inputs
            .iter()
            .map(|i| (i.component.as_str(), i.stream.as_str()))
            .collect();
        assert_eq!(
            inputs,
            vec![("words", "default"), ("words", CHECKPOINT_STREAM)]
        );
        let words = &t.components[0];
        assert!(words.streams.iter().any(|s| s.id == CHECKPOINT_STREAM));
        assert_eq!(words.inputs.len(), 1);
        assert_eq!(words.inputs[0].component, CHECKPOINT_SPOUT);

        let mut stateless = Topology {
            name: "plain".into(),
            config_json: r#"{"topology.reliability.mode": "EFFECTIVELY_ONCE"}"#.into(),
            components: vec![t.components[0].clone()],
            ..Default::default()
        };
        let err = resolve_topology(&mut stateless).unwrap_err().to_string();
        assert!(
            err.contains("stateful bolt") && err.contains("plain"),
            "{err}"
        );
    }

    #[test]
    fn resolve_topology_makes_counts_explicit_and_stores_settings() {
        let mut t = Topology {
            name: "t".into(),
            config_json: r#"{"egret.batch.size": "7"}"#.into(),
            components: vec![
                component("b", 3, 0),
                component("a", 0, 0),
                component("c", 2, 5),
            ],
            ..Default::default()
        };
        resolve_topology(&mut t).unwrap();
        let counts: Vec<_> = t
            .components
            .iter()
            .map(|c| (c.id.as_str(), c.parallelism, c.num_tasks))
            .collect();
        assert_eq!(counts, vec![("b", 3, 3), ("a", 1, 1), ("c", 2, 5)]);
        assert_eq!(settings_of(&t).unwrap().batch_size, 7);
        assert_eq!(
            task_ranges(&t).unwrap(),
            vec![("a", 1, 1), ("b", 2, 4), ("c", 5, 9)]
        );

        let mut negative = t.clone();
        negative.components[2].num_tasks = -1;
        let err = resolve_topology(&mut negative).unwrap_err().to_string();
        assert!(err.contains("'c'") && err.contains("num_tasks"), "{err}");

        let mut bad_config = t.clone();
        bad_config.config_json = r#"{"egret.batch.size": "x"}"#.into();
        assert!(resolve_topology(&mut bad_config).is_err());

        let old = Topology {
            name: "old".into(),
            ..Default::default()
        };
        assert!(settings_of(&old).unwrap_err().to_string().contains("old"));
    }

    #[test]
    fn checkpoint_settings_default_under_the_topology_dir_and_are_checked() {
        let dir = std::path::Path::new("/s/topologies/wc");
        let t = |json: &str| Topology {
            name: "wc".into(),
            config_json: json.into(),
            ..Default::default()
        };
        assert_eq!(
            checkpoint_settings(&t("{}"), dir).unwrap(),
            CheckpointSettings {
                dir: dir.join("checkpoints"),
                retain: DEFAULT_CHECKPOINT_RETAIN
            }
        );
        let set =
            t(r#"{"egret.checkpoint.dir": "/mnt/shared/ckpt", "egret.checkpoint.retain": "5"}"#);
        assert_eq!(
            checkpoint_settings(&set, dir).unwrap(),
            CheckpointSettings {
                dir: "/mnt/shared/ckpt".into(),
                retain: 5
            }
        );
        for bad in [
            r#"{"egret.checkpoint.retain": 0}"#,
            r#"{"egret.checkpoint.retain": "many"}"#,
            r#"{"egret.checkpoint.dir": ""}"#,
            r#"{"egret.checkpoint.dir": 3}"#,
        ] {
            let err = resolve_topology(&mut t(bad)).unwrap_err().to_string();
            assert!(err.contains("egret.checkpoint."), "{bad}: {err}");
        }
    }
}
