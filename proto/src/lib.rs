//! Egret's wire: the messages of `proto/egret/v1` (the single source for Rust and
//! Java), the length-prefixed frame codec, and the hello handshake that opens
//! every connection.

pub mod frame;
pub mod handshake;
pub mod raw;

/// Generated from `proto/egret/v1/*.proto`.
#[allow(clippy::all, missing_docs)]
pub mod v1 {
    include!(concat!(env!("OUT_DIR"), "/egret.v1.rs"));
}

pub use frame::{FrameCodec, FrameError};
pub use handshake::{HandshakeError, Token};

/// The protocol version this build speaks (`ProtocolVersion::Current`).
pub const PROTOCOL_VERSION: u32 = v1::ProtocolVersion::Current as u32;

/// The exit code of `egret tmaster` once its topology was killed (contracts.md,
/// "Processes"): the scheduler then stops the topology instead of restarting the
/// master. Distinct from 1 (an error), 2 (a usage error) and 101 (a panic). A
/// contract between two processes, so it lives here with the wire's others.
pub const EXIT_TOPOLOGY_KILLED: u8 = 3;

/// The percentage of `component`'s emitted tuples sent to the event logger
/// under a physical plan's debug entries (`PhysicalPlan.debug`): its own
/// entry, else the whole topology's (empty component), as Storm's executor
/// looks them up; 0 when that entry is disabled or there is none.
pub fn event_sampling_pct(entries: &[v1::ComponentDebug], component: &str) -> f64 {
    let own = entries.iter().find(|e| e.component == component);
    match own.or_else(|| entries.iter().find(|e| e.component.is_empty())) {
        Some(e) if e.enable => e.sampling_pct,
        _ => 0.0,
    }
}
