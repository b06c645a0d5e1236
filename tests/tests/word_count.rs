//! WordCountTopology: exact counts through shuffle and fields groupings on 2 workers.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use egret_e2e::word_count::expected_counts;
use egret_e2e::{Bridge, Cluster, QUIET_TIMEOUT, task_files, wait_until};

/// Java's `Arrays.deepHashCode(new Object[]{word})` for an ASCII/BMP string,
/// the key hash Storm's fields grouping uses.
fn storm_key_hash(word: &str) -> i32 {
    let string_hash = word
        .encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)));
    31i32.wrapping_add(string_hash)
}

/// Per count task: word → the counts it recorded, in order.
type Seen = BTreeMap<i32, BTreeMap<String, Vec<u64>>>;

fn parse(files: &BTreeMap<i32, Vec<String>>) -> Seen {
    let mut seen = Seen::new();
    for (task, lines) in files {
        let words = seen.entry(*task).or_default();
        for line in lines {
            let Some((word, count)) = line.split_once(' ') else {
                panic!("count-{task}.txt: malformed line {line:?}");
            };
            let count: u64 = count
                .parse()
                .unwrap_or_else(|_| panic!("count-{task}.txt: bad count in {line:?}"));
            words.entry(word.to_owned()).or_default().push(count);
        }
    }
    seen
}

fn finals(seen: &Seen) -> BTreeMap<String, u64> {
    let mut finals = BTreeMap::new();
    for words in seen.values() {
        for (word, counts) in words {
            let last = counts.last().copied().unwrap_or(0);
            let total = finals.entry(word.clone()).or_insert(0);
            *total = (*total).max(last);
        }
    }
    finals
}

#[test]
fn word_count_is_exact_and_each_word_has_one_task() {
    word_count_on(Bridge::from_env().expect("bridge"));
}

#[test]
fn word_count_is_exact_with_the_jni_bridge() {
    word_count_on(Bridge::Jni);
}

fn word_count_on(bridge: Bridge) {
    let cluster = Cluster::with_bridge("wordcount", bridge).expect("cluster");
    let name = cluster.topology_name();
    cluster
        .submit_example("WordCountTopology", &name)
        .expect("submit");

    let expected = expected_counts();
    let out = cluster.out_dir();
    let reached = wait_until(
        "every word to reach its expected count",
        Duration::from_secs(45),
        || {
            let seen = parse(&task_files(&out, "count"));
            (finals(&seen) == expected).then_some(())
        },
        || {
            let got = finals(&parse(&task_files(&out, "count")));
            let wrong: Vec<String> = expected
                .iter()
                .filter(|(w, n)| got.get(*w) != Some(n))
                .map(|(w, n)| format!("{w}: expected {n}, got {:?}", got.get(w)))
                .collect();
            format!(
                "{} of {} words wrong: {}",
                wrong.len(),
                expected.len(),
                wrong.join(", ")
            )
        },
    );
    if let Err(e) = reached {
        panic!("{e}\n{}", cluster.describe_logs(20));
    }
    cluster
        .check_bridge(&name)
        .unwrap_or_else(|e| panic!("{e}\n{}", cluster.describe_logs(20)));

    // Let anything duplicated or late arrive before the exact checks.
    let seen = cluster
        .wait_quiescent(&name, QUIET_TIMEOUT, || parse(&task_files(&out, "count")))
        .unwrap_or_else(|e| panic!("{e}\n{}", cluster.describe_logs(20)));
    assert_eq!(
        finals(&seen),
        expected,
        "counts changed after reaching the expected values"
    );

    let mut owner: BTreeMap<&str, i32> = BTreeMap::new();
    for (task, words) in &seen {
        for (word, counts) in words {
            if let Some(other) = owner.insert(word, *task) {
                panic!("word {word:?} counted by tasks {other} and {task}");
            }
            let want: Vec<u64> = (1..=expected[word.as_str()]).collect();
            assert_eq!(
                counts, &want,
                "task {task} recorded {word:?} out of order or twice"
            );
        }
    }

    // Fields grouping must place keys where Storm would: floorMod(deepHashCode, n)
    // over the count tasks in ascending order. Checkable once all 3 tasks got words.
    let tasks: Vec<i32> = seen.keys().copied().collect();
    assert!(
        tasks.len() <= 3,
        "more count tasks than declared: {tasks:?}"
    );
    if tasks.len() == 3 {
        for (word, task) in &owner {
            let index = storm_key_hash(word).rem_euclid(3);
            let want = tasks[usize::try_from(index).expect("non-negative")];
            assert_eq!(
                *task, want,
                "word {word:?} is not on the task Storm would choose"
            );
        }
    }
    let distinct: BTreeSet<i32> = owner.values().copied().collect();
    assert!(
        distinct.len() >= 2,
        "all words went to one task: {distinct:?}"
    );

    let list = cluster.run(["list"]).expect("run egret list");
    assert!(
        list.success() && list.stdout.contains(&name),
        "egret list does not show the running topology: {}",
        list.describe()
    );

    cluster.kill_and_check_clean(&name).expect("clean kill");
}

#[test]
fn storm_key_hash_matches_java() {
    // "the".hashCode() == 114801 in Java; deepHashCode of a 1-element array is 31 + it.
    assert_eq!(storm_key_hash("the"), 31 + 114_801);
    // Overflowing strings wrap like Java ints: "polygenelubricants".hashCode() == i32::MIN.
    assert_eq!(
        storm_key_hash("polygenelubricants"),
        i32::MIN.wrapping_add(31)
    );
}
