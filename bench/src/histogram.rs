//! The complete-latency histogram the Java hook (`dev.egret.bench.LogLinearHistogram`)
//! writes: the same bucket layout, read back for percentiles.
//!
//! Invariants (shared with the Java class; change both or neither):
//! - values `0..EXACT` have one bucket each;
//! - above, every power of two `2^e` (`e` from 5 to `MAX_EXPONENT - 1`) is cut into
//!   `SUB_BUCKETS` equal buckets, so a bucket is at most 1/16 of its values wide;
//! - values from `2^MAX_EXPONENT` on share the last bucket.

use std::collections::BTreeMap;

const EXACT: u64 = 32;
const SUB_BUCKETS: u64 = 16;
const FIRST_EXPONENT: u32 = 5;
const MAX_EXPONENT: u32 = 40;
/// How many buckets the layout has.
pub const BUCKETS: usize = (EXACT + (MAX_EXPONENT - FIRST_EXPONENT) as u64 * SUB_BUCKETS) as usize;

/// The bucket index of `value` (ms).
pub fn bucket_of(value: u64) -> usize {
    if value < EXACT {
        return value as usize;
    }
    let exponent = 63 - value.leading_zeros();
    if exponent >= MAX_EXPONENT {
        return BUCKETS - 1;
    }
    let sub = (value >> (exponent - 4)) & (SUB_BUCKETS - 1);
    (EXACT + u64::from(exponent - FIRST_EXPONENT) * SUB_BUCKETS + sub) as usize
}

/// The smallest and largest value of bucket `index` (inclusive).
pub fn bucket_bounds(index: usize) -> (u64, u64) {
    let index = index.min(BUCKETS - 1) as u64;
    if index < EXACT {
        return (index, index);
    }
    let k = index - EXACT;
    let exponent = FIRST_EXPONENT as u64 + k / SUB_BUCKETS;
    let sub = k % SUB_BUCKETS;
    let lower = (SUB_BUCKETS + sub) << (exponent - 4);
    let width = 1u64 << (exponent - 4);
    (lower, lower + width - 1)
}

/// Bucket counts, sparse.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histogram {
    counts: BTreeMap<usize, u64>,
}

impl Histogram {
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts `n` more values in bucket `index` (clamped to the last bucket).
    pub fn add_bucket(&mut self, index: usize, n: u64) {
        if n > 0 {
            *self.counts.entry(index.min(BUCKETS - 1)).or_default() += n;
        }
    }

    /// Counts one value.
    pub fn record(&mut self, value: u64) {
        self.add_bucket(bucket_of(value), 1);
    }

    /// How many values were counted.
    pub fn count(&self) -> u64 {
        self.counts.values().sum()
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &Histogram) {
        for (&i, &n) in &other.counts {
            self.add_bucket(i, n);
        }
    }

    /// The counts of `self` minus those of `earlier` (a cumulative histogram read
    /// earlier); a bucket that went down (a restarted task) counts from zero.
    pub fn since(&self, earlier: &Histogram) -> Histogram {
        let mut out = Histogram::new();
        for (&i, &n) in &self.counts {
            let before = earlier.counts.get(&i).copied().unwrap_or(0);
            out.add_bucket(i, if n >= before { n - before } else { n });
        }
        out
    }

    /// The value at quantile `q` (0..=1): the largest value of the bucket holding
    /// the `ceil(q * count)`-th smallest value, as HdrHistogram's "highest
    /// equivalent value" (an over- rather than an under-estimate). None when empty.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        let q = q.clamp(0.0, 1.0);
        let rank = ((q * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (&i, &n) in &self.counts {
            seen += n;
            if seen >= rank {
                return Some(bucket_bounds(i).1);
            }
        }
        self.counts.keys().next_back().map(|&i| bucket_bounds(i).1)
    }

    /// Parses the hook's sparse form: space-separated `index:count`.
    pub fn parse_sparse(text: &str) -> Result<Histogram, String> {
        let mut out = Histogram::new();
        for pair in text.split_whitespace() {
            let (i, n) = pair
                .split_once(':')
                .ok_or_else(|| format!("histogram entry '{pair}' is not index:count"))?;
            let i: usize = i
                .parse()
                .map_err(|_| format!("histogram index '{i}' is not a number"))?;
            let n: u64 = n
                .parse()
                .map_err(|_| format!("histogram count '{n}' is not a number"))?;
            if i >= BUCKETS {
                return Err(format!(
                    "histogram index {i} is beyond the {BUCKETS} buckets"
                ));
            }
            out.add_bucket(i, n);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_values_without_gaps() {
        let mut expected_lower = 0;
        for i in 0..BUCKETS {
            let (lo, hi) = bucket_bounds(i);
            assert_eq!(lo, expected_lower, "bucket {i}");
            assert!(hi >= lo);
            assert_eq!(bucket_of(lo), i);
            assert_eq!(bucket_of(hi), i);
            expected_lower = hi + 1;
        }
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
        assert_eq!(BUCKETS, 592);
    }

    #[test]
    fn buckets_match_the_java_layout() {
        // Values the Java class maps (LogLinearHistogramTest checks the same).
        assert_eq!(bucket_of(0), 0);
        assert_eq!(bucket_of(31), 31);
        assert_eq!(bucket_of(32), 32);
        assert_eq!(bucket_of(33), 32);
        assert_eq!(bucket_of(34), 33);
        assert_eq!(bucket_of(63), 47);
        assert_eq!(bucket_of(64), 48);
        assert_eq!(bucket_of(1000), 32 + 4 * 16 + (1000 >> 5) as usize - 16);
    }

    #[test]
    fn relative_error_is_bounded() {
        for v in [1u64, 7, 40, 100, 999, 12_345, 9_999_999] {
            let (lo, hi) = bucket_bounds(bucket_of(v));
            assert!(lo <= v && v <= hi);
            assert!((hi - lo) as f64 <= v as f64 / 16.0 + 1.0, "{v}: {lo}..{hi}");
        }
    }

    #[test]
    fn percentiles() {
        let mut h = Histogram::new();
        assert_eq!(h.quantile(0.5), None);
        for v in 1..=100 {
            h.record(v);
        }
        assert_eq!(h.count(), 100);
        // 50th value is 50, in bucket 48..=49? no: 50 is in [50, 51].
        assert_eq!(h.quantile(0.5), Some(51));
        let p99 = h.quantile(0.99).unwrap();
        assert!((99..=103).contains(&p99), "{p99}");
        assert_eq!(h.quantile(0.0), Some(1));
        assert_eq!(h.quantile(1.0), Some(103));
        let mut exact = Histogram::new();
        for _ in 0..99 {
            exact.record(2);
        }
        exact.record(30);
        assert_eq!(exact.quantile(0.5), Some(2));
        assert_eq!(exact.quantile(0.99), Some(2));
        assert_eq!(exact.quantile(0.999), Some(30));
    }

    #[test]
    fn sparse_form_and_differences() {
        let a = Histogram::parse_sparse("1:5 40:2").unwrap();
        let b = Histogram::parse_sparse("1:8 40:2 41:1").unwrap();
        let d = b.since(&a);
        assert_eq!(d.count(), 4);
        assert_eq!(d.quantile(0.5), Some(1));
        assert_eq!(d.quantile(1.0), bucket_bounds(41).1.into());
        assert!(Histogram::parse_sparse("x").is_err());
        assert!(Histogram::parse_sparse("9999:1").is_err());
        assert_eq!(Histogram::parse_sparse("").unwrap().count(), 0);
        let mut m = a.clone();
        m.merge(&b);
        assert_eq!(m.count(), 18);
    }
}
