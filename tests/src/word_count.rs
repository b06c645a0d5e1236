//! What `WordCountTopology` (examples-storm) counts: its sentences and the
//! exact count of every word, for the word-count tests (`tests/word_count.rs`,
//! `tests/multi_host.rs`).

use std::collections::BTreeMap;

/// Same list, same order as `WordCountTopology.SENTENCES`.
pub const SENTENCES: [&str; 10] = [
    "the cow jumped over the moon",
    "an apple a day keeps the doctor away",
    "four score and seven years ago",
    "snow white and the seven dwarfs",
    "i am at two with nature",
    "the quick brown fox jumps over the lazy dog",
    "to be or not to be",
    "all that glitters is not gold",
    "a stitch in time saves nine",
    "the early bird catches the worm",
];
/// `WordCountTopology.TOTAL`.
pub const TOTAL: usize = 200;

pub fn expected_counts() -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for i in 0..TOTAL {
        for word in SENTENCES[i % SENTENCES.len()].split(' ') {
            *counts.entry(word.to_owned()).or_insert(0) += 1;
        }
    }
    counts
}
