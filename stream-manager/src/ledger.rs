//! The ledger of tuple trees (at-least-once), for the spout tasks this stream
//! manager hosts (contracts.md, "Acking (at-least-once)").
//!
//! Who touches it: the router, under one mutex, when it applies the `acks` of
//! a `TupleBatch` (from a local instance or a peer stream manager) whose root's
//! spout task is local; and the stream manager's timer task, which rotates it
//! every T/2 and copies its counters to the metrics registry. Time is always
//! passed in (`Instant`), so tests drive it without sleeping.
//!
//! Invariants:
//! - an entry exists only between its tree's INIT and its outcome: it is
//!   created by INIT only (the contract applies a batch's acks before routing
//!   its tuples, so an INIT always precedes every ACK of its tree); an ACK,
//!   FAIL or RESET_TIMEOUT for a root without an entry is late (after the
//!   tree completed, failed or timed out) or a duplicate: it is ignored and
//!   counted, and never creates an entry;
//! - every tree gets at most one final outcome: COMPLETED when its XOR returns
//!   to 0, FAILED on FAIL or on expiry; the entry is removed when the outcome
//!   is produced;
//! - Storm's rotating buckets: an entry lives in exactly one of
//!   [`BUCKETS`] maps; INIT and RESET_TIMEOUT put it in the newest; each
//!   rotation (every T/2) drops the oldest map, whose entries expire; so an
//!   entry expires between T and 1.5 T after its INIT (or last reset). With
//!   `topology.enable.message.timeouts: false` the stream manager never
//!   rotates and nothing expires;
//! - memory: one entry is a 16-byte key (spout task, key) and a 16-byte value
//!   (XOR, INIT time in µs since the ledger's epoch) in a SwissTable, plus
//!   one control byte; with the table's load factor between 7/16 and 7/8 a
//!   pending tree costs 37 to 75 bytes (measured: about 43 at 100k trees,
//!   see the `memory_per_pending_tree_is_bounded` test). Storm's acker keeps
//!   about 20 bytes of payload per tree, before the JVM's boxing and
//!   `HashMap` overhead (over 100 bytes in practice). Rotation frees a whole
//!   map at once, so memory follows the number of pending trees within 1.5 T.
//! - speed: every ACK looks its root up in up to [`BUCKETS`] maps, so the
//!   maps hash with [`RootHasher`] (two multiplications, seeded per ledger)
//!   instead of SipHash, which was the stream manager's largest cost under
//!   load (docs/performance.md), and keep a spout task's consecutive keys in
//!   neighbouring slots, so lookups hit the cache.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, Instant};

use egret_proto::v1::{AckEntry, AckKind, RootId, TreeEvent, TreeOutcome};
use hdrhistogram::Histogram;

/// Number of rotating buckets (Storm's acker uses the same).
pub(crate) const BUCKETS: usize = 3;
/// Largest complete latency the histogram records exactly (1 hour, in µs).
const MAX_LATENCY_US: u64 = 3_600_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Root {
    pub spout_task: i32,
    pub key: u64,
}

impl From<&RootId> for Root {
    fn from(root: &RootId) -> Self {
        Self {
            spout_task: root.spout_task,
            key: root.key,
        }
    }
}

impl Root {
    fn to_proto(self) -> RootId {
        RootId {
            spout_task: self.spout_task,
            key: self.key,
        }
    }
}

/// Hashes [`Root`]s for the ledger's SwissTables so that the trees of one
/// spout task pending at one time sit side by side. A spout task numbers its
/// trees consecutively from a random start (the shim's `SpoutCollector`), and
/// a table's slot is the hash's low bits: those are the key plus a mix of
/// the seed and the spout task, so consecutive keys take consecutive slots (16 control bytes of one group,
/// and neighbouring entries, are one or two cache lines) and an INIT or an
/// ACK finds its slot near the last ones touched, instead of a cache miss
/// per lookup in each of the [`BUCKETS`] maps. The top 7 bits, which the
/// table compares before the keys (its control bytes), are a folded multiply
/// of everything hashed, so neighbours are still told apart at once. Random
/// keys (an older shim) spread by their low bits as well. Each ledger serves
/// its own topology's spout tasks only: a spout that picks keys that line up
/// on the same low bits slows its own stream manager's ledger, no one else's.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RootHasher {
    /// A folded multiply of the seed and every word hashed.
    state: u64,
    /// The last word hashed (the key, [`Root`]'s last field), plus the state
    /// before it (the seed and the spout task, mixed).
    tail: u64,
}

/// Multiplier of [`RootHasher`] (the fractional part of pi, odd).
const MULTIPLIER: u64 = 0x243f_6a88_85a3_08d3;
/// The hash bits a SwissTable compares before the keys (its control bytes):
/// the top 7; the rest choose the slot.
const CONTROL_BITS: u64 = !(u64::MAX >> 7);

fn folded_multiply(a: u64, b: u64) -> u64 {
    let full = u128::from(a) * u128::from(b);
    // Truncations on purpose: the low and high halves are folded together.
    (full as u64) ^ ((full >> 64) as u64)
}

impl Hasher for RootHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.tail = value.wrapping_add(self.state);
        self.state = folded_multiply(self.state ^ value, MULTIPLIER);
    }

    fn write_i32(&mut self, value: i32) {
        // Sign-extension is fine: only equality of inputs matters.
        self.write_u64(value as u64);
    }

    fn finish(&self) -> u64 {
        (self.tail & !CONTROL_BITS) | (self.state & CONTROL_BITS)
    }
}

/// Builds [`RootHasher`]s with one random seed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RootHashBuilder {
    seed: u64,
}

impl RootHashBuilder {
    fn new() -> Self {
        // std's RandomState is seeded from the OS once per thread and varied per
        // instance: a cheap source of a random seed without another dependency.
        let seed = std::collections::hash_map::RandomState::new().hash_one(0x5eed_u64);
        Self { seed: seed | 1 }
    }
}

impl BuildHasher for RootHashBuilder {
    type Hasher = RootHasher;

    fn build_hasher(&self) -> RootHasher {
        RootHasher {
            state: self.seed,
            tail: self.seed,
        }
    }
}

type Bucket = HashMap<Root, Entry, RootHashBuilder>;

#[derive(Debug, Clone, Copy)]
struct Entry {
    xor: u64,
    /// INIT time, µs since the ledger's epoch.
    init_us: u64,
}

/// Counters and the complete latency of one spout task.
pub(crate) struct TaskStats {
    pub acked: u64,
    pub failed: u64,
    pub timed_out: u64,
    /// `None` only if the histogram could not be built (its bounds are constants).
    latency_us: Option<Histogram<u64>>,
}

impl TaskStats {
    fn new() -> Self {
        // 2 significant digits: p99 within 1 %, a few KiB per spout task.
        let latency_us = Histogram::new_with_bounds(1, MAX_LATENCY_US, 2).ok();
        Self {
            acked: 0,
            failed: 0,
            timed_out: 0,
            latency_us,
        }
    }

    /// Mean complete latency in ms (0 before the first completed tree).
    pub fn mean_latency_ms(&self) -> f64 {
        match &self.latency_us {
            Some(h) if !h.is_empty() => h.mean() / 1000.0,
            _ => 0.0,
        }
    }

    /// 99th percentile of the complete latency in ms.
    pub fn p99_latency_ms(&self) -> f64 {
        self.latency_quantile_ms(0.99)
    }

    /// Median complete latency in ms.
    pub fn p50_latency_ms(&self) -> f64 {
        self.latency_quantile_ms(0.5)
    }

    /// The complete latency in ms at quantile `q` (0 before the first completed tree).
    fn latency_quantile_ms(&self, q: f64) -> f64 {
        match &self.latency_us {
            Some(h) if !h.is_empty() => h.value_at_quantile(q) as f64 / 1000.0,
            _ => 0.0,
        }
    }
}

/// The ledger: pending trees of the local spout tasks.
pub(crate) struct Ledger {
    /// Front: the newest bucket.
    buckets: VecDeque<Bucket>,
    hasher: RootHashBuilder,
    epoch: Instant,
    stats: BTreeMap<i32, TaskStats>,
    /// ACK/FAIL/RESET_TIMEOUT for a root without an entry, ignored.
    pub late: u64,
}

impl Ledger {
    pub fn new(epoch: Instant) -> Self {
        let hasher = RootHashBuilder::new();
        Self {
            buckets: (0..BUCKETS).map(|_| HashMap::with_hasher(hasher)).collect(),
            hasher,
            epoch,
            stats: BTreeMap::new(),
            late: 0,
        }
    }

    fn micros(&self, now: Instant) -> u64 {
        // Not `as_micros` (a u128 division per completed tree); overflows only
        // after 584 000 years.
        let elapsed = now.saturating_duration_since(self.epoch);
        elapsed
            .as_secs()
            .saturating_mul(1_000_000)
            .saturating_add(u64::from(elapsed.subsec_micros()))
    }

    fn stats(&mut self, task: i32) -> &mut TaskStats {
        self.stats.entry(task).or_insert_with(TaskStats::new)
    }

    /// Applies one ledger update; the tree's outcome, if this update decides it.
    pub fn apply(&mut self, entry: &AckEntry, now: Instant) -> Option<TreeEvent> {
        let root = Root::from(entry.root.as_ref()?);
        match AckKind::try_from(entry.kind).ok()? {
            AckKind::Init => self.init(root, entry.xor, now),
            AckKind::Ack => self.ack(root, entry.xor, now),
            AckKind::Fail => self.fail(root),
            AckKind::ResetTimeout => self.reset_timeout(root),
            AckKind::Unspecified => None,
        }
    }

    fn find(&mut self, root: &Root) -> Option<(usize, &mut Entry)> {
        self.buckets
            .iter_mut()
            .enumerate()
            .find_map(|(i, bucket)| bucket.get_mut(root).map(|e| (i, e)))
    }

    fn remove(&mut self, root: &Root) -> Option<Entry> {
        self.buckets
            .iter_mut()
            .find_map(|bucket| bucket.remove(root))
    }

    pub fn init(&mut self, root: Root, xor: u64, now: Instant) -> Option<TreeEvent> {
        if let Some((bucket, entry)) = self.find(&root) {
            // A key chosen twice by the spout (2^-64 per pair): merge, as Storm's acker does.
            entry.xor ^= xor;
            let done = entry.xor == 0;
            return done.then(|| self.complete(bucket, root, now)).flatten();
        }
        let init_us = self.micros(now);
        if xor == 0 {
            // An emit with no target: the tree is complete at once.
            self.record_completion(root.spout_task, 0);
            return Some(completed(root, 0));
        }
        if let Some(newest) = self.buckets.front_mut() {
            newest.insert(root, Entry { xor, init_us });
        }
        None
    }

    pub fn ack(&mut self, root: Root, xor: u64, now: Instant) -> Option<TreeEvent> {
        let Some((bucket, entry)) = self.find(&root) else {
            self.late += 1;
            return None;
        };
        entry.xor ^= xor;
        if entry.xor == 0 {
            self.complete(bucket, root, now)
        } else {
            None
        }
    }

    /// Completes the tree of `root`, found in `bucket` (no search of the others).
    fn complete(&mut self, bucket: usize, root: Root, now: Instant) -> Option<TreeEvent> {
        let entry = self.buckets.get_mut(bucket)?.remove(&root)?;
        let latency_us = self.micros(now).saturating_sub(entry.init_us);
        self.record_completion(root.spout_task, latency_us);
        Some(completed(root, latency_us))
    }

    fn record_completion(&mut self, task: i32, latency_us: u64) {
        let stats = self.stats(task);
        stats.acked += 1;
        if let Some(h) = stats.latency_us.as_mut() {
            h.saturating_record(latency_us.max(1));
        }
    }

    pub fn fail(&mut self, root: Root) -> Option<TreeEvent> {
        if self.remove(&root).is_none() {
            self.late += 1;
            return None;
        }
        self.stats(root.spout_task).failed += 1;
        Some(failed(root))
    }

    pub fn reset_timeout(&mut self, root: Root) -> Option<TreeEvent> {
        let Some(entry) = self.remove(&root) else {
            self.late += 1;
            return None;
        };
        if let Some(newest) = self.buckets.front_mut() {
            newest.insert(root, entry);
        }
        Some(TreeEvent {
            outcome: TreeOutcome::TimeoutReset as i32,
            root: Some(root.to_proto()),
            complete_latency_us: 0,
        })
    }

    /// Fails every pending tree (FAILED, counted as failed).
    pub fn fail_all(&mut self) -> Vec<TreeEvent> {
        let roots: Vec<Root> = self
            .buckets
            .iter_mut()
            .flat_map(|bucket| bucket.drain().map(|(root, _)| root))
            .collect();
        roots
            .into_iter()
            .map(|root| {
                self.stats(root.spout_task).failed += 1;
                failed(root)
            })
            .collect()
    }

    /// Drops the oldest bucket: its trees time out (FAILED, counted as timeouts).
    pub fn rotate(&mut self) -> Vec<TreeEvent> {
        let expired = self
            .buckets
            .pop_back()
            .unwrap_or_else(|| HashMap::with_hasher(self.hasher));
        self.buckets.push_front(HashMap::with_hasher(self.hasher));
        let mut events = Vec::with_capacity(expired.len());
        for root in expired.into_keys() {
            self.stats(root.spout_task).timed_out += 1;
            events.push(failed(root));
        }
        events
    }

    /// Trees pending now.
    pub fn pending(&self) -> usize {
        self.buckets.iter().map(HashMap::len).sum()
    }

    /// Memory of the tables (their allocations, not counting the stats).
    pub fn bytes(&self) -> usize {
        self.buckets.iter().map(table_bytes).sum()
    }

    pub fn task_stats(&self) -> &BTreeMap<i32, TaskStats> {
        &self.stats
    }
}

/// The allocation of a std `HashMap` (hashbrown SwissTable): buckets × (key +
/// value) plus one control byte per bucket and a group of trailing control
/// bytes. The bucket count is derived from `capacity()` as hashbrown does
/// (power of two, 7/8 load factor; 4 or 8 buckets for small tables).
fn table_bytes<K, V, S>(map: &HashMap<K, V, S>) -> usize {
    const GROUP_WIDTH: usize = 16;
    let capacity = map.capacity();
    let buckets = match capacity {
        0 => return 0,
        1..=3 => 4,
        4..=7 => 8,
        _ => (capacity * 8 / 7).next_power_of_two(),
    };
    buckets * std::mem::size_of::<(K, V)>() + buckets + GROUP_WIDTH
}

fn completed(root: Root, latency_us: u64) -> TreeEvent {
    TreeEvent {
        outcome: TreeOutcome::Completed as i32,
        root: Some(root.to_proto()),
        complete_latency_us: latency_us,
    }
}

fn failed(root: Root) -> TreeEvent {
    TreeEvent {
        outcome: TreeOutcome::Failed as i32,
        root: Some(root.to_proto()),
        complete_latency_us: 0,
    }
}

/// How often the ledger rotates for a message timeout T: every T/2 (so an
/// entry expires between T and 1.5 T); never below 1 ms.
pub(crate) fn rotation_period(timeout: Duration) -> Duration {
    (timeout / 2).max(Duration::from_millis(1))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;
    use std::collections::{HashMap as Model, HashSet};

    const T: Duration = Duration::from_secs(30);

    fn root(key: u64) -> Root {
        Root { spout_task: 3, key }
    }

    #[test]
    fn consecutive_keys_hash_to_consecutive_slots_with_varied_control_bits() {
        let builder = RootHashBuilder::new();
        let start = 0x7fff_ffff_ffff_fff0_u64; // crosses the low 63 bits' carry
        let hashes: Vec<u64> = (0..256u64)
            .map(|i| builder.hash_one(root(start.wrapping_add(i))))
            .collect();
        let slot_bits = !CONTROL_BITS;
        for pair in hashes.windows(2) {
            // The slot (low bits) of key k + 1 follows that of key k.
            assert_eq!(
                (pair[0] & slot_bits).wrapping_add(1) & slot_bits,
                pair[1] & slot_bits
            );
        }
        let controls: HashSet<u64> = hashes.iter().map(|h| h >> 57).collect();
        assert!(
            controls.len() > 64,
            "neighbours' control bytes should differ: {} distinct of 128 possible",
            controls.len()
        );
        // The same key of other spout tasks starts elsewhere.
        let others: HashSet<u64> = (3..20)
            .map(|task| {
                builder.hash_one(Root {
                    spout_task: task,
                    key: start,
                }) & slot_bits
            })
            .collect();
        assert_eq!(others.len(), 17);
    }

    fn outcome(event: &TreeEvent) -> TreeOutcome {
        TreeOutcome::try_from(event.outcome).unwrap()
    }

    /// Drives time as the stream manager's timer does: a rotation every T/2.
    struct Clock {
        ledger: Ledger,
        now: Instant,
        next_rotation: Instant,
        expired: Vec<(Root, Instant)>,
    }

    impl Clock {
        fn new() -> Self {
            let now = Instant::now();
            Self {
                ledger: Ledger::new(now),
                now,
                next_rotation: now + rotation_period(T),
                expired: Vec::new(),
            }
        }

        fn advance(&mut self, by: Duration) {
            let until = self.now + by;
            while self.next_rotation <= until {
                self.now = self.next_rotation;
                for event in self.ledger.rotate() {
                    assert_eq!(outcome(&event), TreeOutcome::Failed);
                    self.expired
                        .push((Root::from(event.root.as_ref().unwrap()), self.now));
                }
                self.next_rotation += rotation_period(T);
            }
            self.now = until;
        }
    }

    #[test]
    fn acks_in_any_order_complete_exactly_once() {
        // Spout emits to two tasks (e1, e2); the first bolt emits e3 anchored to e1.
        let (e1, e2, e3) = (0x11u64, 0x2200u64, 0x330000u64);
        let acks = [e1 ^ e3, e2, e3];
        let orders = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        for order in orders {
            let start = Instant::now();
            let mut ledger = Ledger::new(start);
            assert!(ledger.init(root(1), e1 ^ e2, start).is_none());
            let mut outcomes = Vec::new();
            for (n, &i) in order.iter().enumerate() {
                let at = start + Duration::from_millis(10 * (n as u64 + 1));
                outcomes.extend(ledger.ack(root(1), acks[i], at));
            }
            assert_eq!(outcomes.len(), 1, "order {order:?}");
            assert_eq!(outcome(&outcomes[0]), TreeOutcome::Completed);
            assert_eq!(outcomes[0].complete_latency_us, 30_000);
            assert_eq!(ledger.pending(), 0);
            assert_eq!(ledger.task_stats()[&3].acked, 1);
            // Acks after completion are late: ignored, counted, no entry.
            assert!(ledger.ack(root(1), e2, start).is_none());
            assert_eq!(ledger.late, 1);
            assert_eq!(ledger.pending(), 0);
        }
    }

    #[test]
    fn an_emit_without_target_completes_at_init() {
        let now = Instant::now();
        let mut ledger = Ledger::new(now);
        let event = ledger.init(root(9), 0, now).unwrap();
        assert_eq!(outcome(&event), TreeOutcome::Completed);
        assert_eq!(ledger.pending(), 0);
    }

    #[test]
    fn fail_fails_the_tree_once_and_later_acks_are_ignored() {
        let now = Instant::now();
        let mut ledger = Ledger::new(now);
        ledger.init(root(1), 5, now);
        let event = ledger.fail(root(1)).unwrap();
        assert_eq!(outcome(&event), TreeOutcome::Failed);
        assert_eq!(event.root.unwrap().key, 1);
        assert!(ledger.fail(root(1)).is_none());
        assert!(ledger.ack(root(1), 5, now).is_none());
        assert_eq!(ledger.late, 2);
        let stats = &ledger.task_stats()[&3];
        assert_eq!((stats.acked, stats.failed, stats.timed_out), (0, 1, 0));
    }

    #[test]
    fn fail_all_fails_every_pending_tree_of_any_age_once() {
        let mut clock = Clock::new();
        clock.ledger.init(root(1), 5, clock.now);
        clock.advance(rotation_period(T));
        clock.ledger.init(root(2), 6, clock.now);
        let mut failed: Vec<u64> = clock
            .ledger
            .fail_all()
            .iter()
            .map(|e| {
                assert_eq!(outcome(e), TreeOutcome::Failed);
                e.root.unwrap().key
            })
            .collect();
        failed.sort_unstable();
        assert_eq!(failed, [1, 2]);
        assert_eq!(clock.ledger.pending(), 0);
        assert_eq!(clock.ledger.task_stats()[&3].failed, 2);
        assert!(clock.ledger.fail_all().is_empty());
        assert!(clock.ledger.ack(root(1), 5, clock.now).is_none());
        clock.advance(T * 2);
        assert!(clock.expired.is_empty(), "a failed tree timed out too");
    }

    #[test]
    fn an_ack_for_an_unknown_root_creates_nothing() {
        let now = Instant::now();
        let mut ledger = Ledger::new(now);
        assert!(ledger.ack(root(7), 5, now).is_none());
        assert!(ledger.reset_timeout(root(7)).is_none());
        assert_eq!(ledger.pending(), 0);
        // Even the XOR that would "complete" it later does nothing.
        assert!(ledger.ack(root(7), 5, now).is_none());
        assert_eq!(ledger.late, 3);
        assert!(ledger.task_stats().is_empty());
    }

    #[test]
    fn a_tree_times_out_between_t_and_one_and_a_half_t() {
        for offset_ms in [0u64, 1, 7_500, 14_999] {
            let mut clock = Clock::new();
            clock.advance(Duration::from_millis(offset_ms));
            let init = clock.now;
            clock.ledger.init(root(1), 42, init);
            clock.advance(T - Duration::from_millis(1));
            assert!(
                clock.expired.is_empty(),
                "expired before T (offset {offset_ms})"
            );
            clock.advance(T / 2 + Duration::from_millis(1));
            assert_eq!(
                clock.expired.len(),
                1,
                "not expired at 1.5 T (offset {offset_ms})"
            );
            let (expired_root, at) = clock.expired[0];
            assert_eq!(expired_root, root(1));
            let age = at - init;
            assert!(age >= T && age <= T + T / 2, "expired after {age:?}");
            assert_eq!(clock.ledger.task_stats()[&3].timed_out, 1);
            assert_eq!(clock.ledger.pending(), 0);
            // A late ack after the timeout is ignored.
            assert!(clock.ledger.ack(root(1), 42, clock.now).is_none());
            assert_eq!(clock.ledger.late, 1);
            assert_eq!(clock.ledger.pending(), 0);
        }
    }

    #[test]
    fn reset_timeout_extends_the_tree() {
        let mut clock = Clock::new();
        clock.ledger.init(root(1), 42, clock.now);
        clock.advance(T - Duration::from_secs(1));
        let event = clock.ledger.reset_timeout(root(1)).unwrap();
        assert_eq!(outcome(&event), TreeOutcome::TimeoutReset);
        let reset_at = clock.now;
        clock.advance(T - Duration::from_millis(1));
        assert!(
            clock.expired.is_empty(),
            "the reset did not extend the timeout"
        );
        // It still completes normally, with the latency since INIT.
        let done = clock.ledger.ack(root(1), 42, clock.now).unwrap();
        assert_eq!(outcome(&done), TreeOutcome::Completed);
        let expected = (clock.now - (reset_at - (T - Duration::from_secs(1)))).as_micros();
        assert_eq!(u128::from(done.complete_latency_us), expected);
    }

    #[test]
    fn latency_statistics_per_spout_task() {
        let start = Instant::now();
        let mut ledger = Ledger::new(start);
        for i in 1..=100u64 {
            ledger.init(root(i), i, start);
            ledger.ack(root(i), i, start + Duration::from_millis(i));
        }
        let stats = &ledger.task_stats()[&3];
        assert_eq!(stats.acked, 100);
        assert!(
            (stats.mean_latency_ms() - 50.5).abs() < 0.5,
            "{}",
            stats.mean_latency_ms()
        );
        assert!(
            (stats.p99_latency_ms() - 99.0).abs() < 1.0,
            "{}",
            stats.p99_latency_ms()
        );
        assert!(
            (stats.p50_latency_ms() - 50.0).abs() < 0.5,
            "{}",
            stats.p50_latency_ms()
        );
    }

    #[test]
    fn the_median_follows_the_bulk_and_the_p99_the_tail() {
        let start = Instant::now();
        let mut ledger = Ledger::new(start);
        // 90 trees of 2 ms, 10 of 500 ms.
        for i in 1..=100u64 {
            let ms = if i <= 90 { 2 } else { 500 };
            ledger.init(root(i), i, start);
            ledger.ack(root(i), i, start + Duration::from_millis(ms));
        }
        let stats = &ledger.task_stats()[&3];
        assert!(
            (stats.p50_latency_ms() - 2.0).abs() < 0.05,
            "{}",
            stats.p50_latency_ms()
        );
        assert!(
            (stats.p99_latency_ms() - 500.0).abs() < 5.0,
            "{}",
            stats.p99_latency_ms()
        );
        assert!(
            (stats.mean_latency_ms() - 51.8).abs() < 0.5,
            "{}",
            stats.mean_latency_ms()
        );
        assert_eq!(Ledger::new(start).task_stats().len(), 0);
        assert_eq!(TaskStats::new().p50_latency_ms(), 0.0, "no tree yet: 0");
    }

    #[test]
    fn the_root_hasher_spreads_sequential_keys_over_the_control_bits() {
        // hashbrown picks the group from the low bits and tags entries with the
        // top 7: keys that differ only in their low bits must vary both.
        let builder = RootHashBuilder::new();
        let hashes: Vec<u64> = (0..4096u64)
            .map(|key| builder.hash_one(Root { spout_task: 1, key }))
            .collect();
        let top: HashSet<u64> = hashes.iter().map(|h| h >> 57).collect();
        let low: HashSet<u64> = hashes.iter().map(|h| h & 0xfff).collect();
        assert!(top.len() > 120, "{} of 128 tags used", top.len());
        assert!(low.len() > 2000, "{} of 4096 low values used", low.len());
        // The spout task is part of the key.
        assert_ne!(
            builder.hash_one(Root {
                spout_task: 1,
                key: 9
            }),
            builder.hash_one(Root {
                spout_task: 2,
                key: 9
            })
        );
        // Seeds differ between ledgers.
        assert_ne!(
            RootHashBuilder::new().hash_one(Root {
                spout_task: 1,
                key: 9
            }),
            RootHashBuilder::new().hash_one(Root {
                spout_task: 1,
                key: 9
            })
        );
    }

    #[test]
    fn memory_per_pending_tree_is_bounded() {
        let now = Instant::now();
        let mut ledger = Ledger::new(now);
        assert_eq!(ledger.bytes(), 0);
        const TREES: u64 = 100_000;
        for key in 1..=TREES {
            ledger.init(root(key), key, now);
        }
        assert_eq!(ledger.pending(), 100_000);
        let per_tree = ledger.bytes() as f64 / TREES as f64;
        eprintln!(
            "ledger: {} bytes for {TREES} trees, {per_tree:.1} bytes per pending tree",
            ledger.bytes()
        );
        // 131072 buckets × 33 bytes for 100k trees.
        assert!(per_tree <= 48.0, "{per_tree} bytes per pending tree");
        assert!(
            per_tree >= 32.0,
            "the measure is not the real size: {per_tree}"
        );
        // Worst case, just after the table doubled: under 80 bytes a tree.
        let mut small = Ledger::new(now);
        for key in 1..=(7 * 1024 / 8 + 1) {
            small.init(root(key), key, now);
        }
        let worst = small.bytes() as f64 / small.pending() as f64;
        assert!(worst < 80.0, "{worst} bytes per pending tree");
        // Rotation frees the memory of expired trees.
        for _ in 0..BUCKETS {
            ledger.rotate();
        }
        assert_eq!(ledger.pending(), 0);
        assert_eq!(ledger.bytes(), 0);
    }

    #[derive(Debug, Clone)]
    enum Op {
        Init(u64, u64),
        Ack(u64, u64),
        Fail(u64),
        Reset(u64),
        Rotate,
    }

    fn op() -> impl Strategy<Value = Op> {
        let key = 1u64..8;
        let xor = prop_oneof![Just(0u64), 1u64..4];
        prop_oneof![
            3 => (key.clone(), xor.clone()).prop_map(|(k, x)| Op::Init(k, x)),
            6 => (key.clone(), xor).prop_map(|(k, x)| Op::Ack(k, x)),
            1 => key.clone().prop_map(Op::Fail),
            1 => key.prop_map(Op::Reset),
            1 => Just(Op::Rotate),
        ]
    }

    proptest! {
        /// Against a model: a map of XORs with the age (rotations survived)
        /// of each entry, and the set of roots that already have an outcome.
        #[test]
        fn behaves_like_the_model(ops in proptest::collection::vec(op(), 0..200)) {
            let now = Instant::now();
            let mut ledger = Ledger::new(now);
            let mut model: Model<u64, (u64, usize)> = Model::new();
            let mut decided: HashSet<u64> = HashSet::new();
            let mut late = 0u64;
            for op in ops {
                match op {
                    Op::Init(k, x) => {
                        let event = ledger.init(root(k), x, now);
                        match model.get_mut(&k) {
                            Some((xor, _)) => {
                                *xor ^= x;
                                if *xor == 0 {
                                    model.remove(&k);
                                    prop_assert_eq!(event.map(|e| outcome(&e)), Some(TreeOutcome::Completed));
                                } else {
                                    prop_assert!(event.is_none());
                                }
                            }
                            None if x == 0 => {
                                prop_assert_eq!(event.map(|e| outcome(&e)), Some(TreeOutcome::Completed));
                            }
                            None => {
                                decided.remove(&k);
                                model.insert(k, (x, 0));
                                prop_assert!(event.is_none());
                            }
                        }
                    }
                    Op::Ack(k, x) => {
                        let event = ledger.ack(root(k), x, now);
                        match model.get_mut(&k) {
                            None => { late += 1; prop_assert!(event.is_none()); }
                            Some((xor, _)) => {
                                *xor ^= x;
                                if *xor == 0 {
                                    model.remove(&k);
                                    prop_assert!(decided.insert(k), "two outcomes for one tree");
                                    prop_assert_eq!(event.map(|e| outcome(&e)), Some(TreeOutcome::Completed));
                                } else {
                                    prop_assert!(event.is_none());
                                }
                            }
                        }
                    }
                    Op::Fail(k) => {
                        let event = ledger.fail(root(k));
                        if model.remove(&k).is_some() {
                            prop_assert!(decided.insert(k), "two outcomes for one tree");
                            prop_assert_eq!(event.map(|e| outcome(&e)), Some(TreeOutcome::Failed));
                        } else {
                            late += 1;
                            prop_assert!(event.is_none());
                        }
                    }
                    Op::Reset(k) => {
                        let event = ledger.reset_timeout(root(k));
                        match model.get_mut(&k) {
                            Some((_, age)) => {
                                *age = 0;
                                prop_assert_eq!(event.map(|e| outcome(&e)), Some(TreeOutcome::TimeoutReset));
                            }
                            None => { late += 1; prop_assert!(event.is_none()); }
                        }
                    }
                    Op::Rotate => {
                        let mut expired: Vec<u64> = ledger.rotate().iter().map(|e| e.root.as_ref().unwrap().key).collect();
                        expired.sort_unstable();
                        let mut expected = Vec::new();
                        model.retain(|&k, (_, age)| {
                            *age += 1;
                            if *age >= BUCKETS { expected.push(k); false } else { true }
                        });
                        expected.sort_unstable();
                        for k in &expected {
                            prop_assert!(decided.insert(*k), "two outcomes for one tree");
                        }
                        prop_assert_eq!(expired, expected);
                    }
                }
                prop_assert_eq!(ledger.pending(), model.len());
                prop_assert_eq!(ledger.late, late);
            }
        }
    }
}
