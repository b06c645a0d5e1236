//! Process accounting from outside: a process tree (a root we spawned and
//! every descendant), sampled from `/proc`.
//!
//! Invariants:
//! - a process belongs to the tree once it is the root, a child of a member or
//!   in the root's process group; it stays a member until it is gone (a
//!   detached child that changes session, as Egret's scheduler, is still
//!   followed through its parent);
//! - processes are keyed by (pid, start time), so a reused pid is a new process;
//! - CPU is the sum over every process ever seen of its last `utime + stime`:
//!   a process that exited keeps what it had used at its last sample (at most
//!   one sample period of its CPU is lost), so short-lived children count;
//! - RSS is summed over the live members at each sample; the peak is the
//!   largest such sum.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

/// One process as `/proc/<pid>/stat` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcStat {
    pub pid: i32,
    pub state: char,
    pub ppid: i32,
    pub pgrp: i32,
    /// Clock ticks.
    pub utime: u64,
    /// Clock ticks.
    pub stime: u64,
    /// Clock ticks since boot.
    pub start_time: u64,
    /// Pages.
    pub rss_pages: u64,
}

/// Parses `/proc/<pid>/stat` (the command name may hold spaces and parentheses:
/// the fields start after the LAST `)`).
pub fn parse_stat(text: &str) -> Option<ProcStat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let pid = text[..open].trim().parse().ok()?;
    let fields: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    // fields[0] is field 3 (state) of proc(5).
    let field = |n: usize| fields.get(n - 3).copied();
    let num = |n: usize| field(n).and_then(|f| f.parse::<u64>().ok());
    Some(ProcStat {
        pid,
        state: field(3)?.chars().next()?,
        ppid: field(4)?.parse().ok()?,
        pgrp: field(5)?.parse().ok()?,
        utime: num(14)?,
        stime: num(15)?,
        start_time: num(22)?,
        rss_pages: field(24)?.parse::<i64>().ok()?.max(0) as u64,
    })
}

/// Every process of the machine now (those that vanish while being read are skipped).
pub fn all_processes(proc_root: &Path) -> Vec<ProcStat> {
    let Ok(entries) = std::fs::read_dir(proc_root) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter_map(|text| parse_stat(&text))
        .collect()
}

/// `AT_CLKTCK` and `AT_PAGESZ` from `/proc/self/auxv` (the kernel's own values,
/// without a libc call), falling back to Linux's usual 100 Hz and 4 KiB.
pub fn clock_ticks_and_page_size() -> (u64, u64) {
    const AT_PAGESZ: u64 = 6;
    const AT_CLKTCK: u64 = 17;
    let (mut ticks, mut page) = (100, 4096);
    if let Ok(bytes) = std::fs::read("/proc/self/auxv") {
        for pair in bytes.chunks_exact(16) {
            let word = |b: &[u8]| {
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                u64::from_ne_bytes(a)
            };
            let (key, value) = (word(&pair[..8]), word(&pair[8..]));
            match key {
                AT_CLKTCK if value > 0 => ticks = value,
                AT_PAGESZ if value > 0 => page = value,
                _ => {}
            }
        }
    }
    (ticks, page)
}

/// The accounting of one process tree.
#[derive(Debug, Clone)]
pub struct TreeAccount {
    root: i32,
    /// (pid, start time) of the members alive at the last sample.
    live: BTreeSet<(i32, u64)>,
    /// Last `utime + stime` (ticks) of every process ever seen, alive or not.
    cpu_ticks: BTreeMap<(i32, u64), u64>,
    ticks_per_sec: u64,
    page_size: u64,
    rss_bytes: u64,
    peak_rss_bytes: u64,
    peak_processes: usize,
}

/// What a sample saw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub processes: usize,
    pub rss_bytes: u64,
    pub cpu_seconds: f64,
}

impl TreeAccount {
    pub fn new(root: i32) -> Self {
        let (ticks_per_sec, page_size) = clock_ticks_and_page_size();
        Self {
            root,
            live: BTreeSet::new(),
            cpu_ticks: BTreeMap::new(),
            ticks_per_sec,
            page_size,
            rss_bytes: 0,
            peak_rss_bytes: 0,
            peak_processes: 0,
        }
    }

    /// Takes one sample of `/proc`.
    pub fn sample(&mut self) -> Sample {
        self.observe(&all_processes(Path::new("/proc")))
    }

    /// Takes one sample from `processes` (every process of the machine).
    pub fn observe(&mut self, processes: &[ProcStat]) -> Sample {
        let by_pid: BTreeMap<i32, &ProcStat> = processes.iter().map(|p| (p.pid, p)).collect();
        let mut members: BTreeSet<i32> = BTreeSet::new();
        for p in processes {
            let was_member = self.live.contains(&(p.pid, p.start_time));
            if p.pid == self.root || p.pgrp == self.root || was_member {
                members.insert(p.pid);
            }
        }
        // Children of members, transitively (a child may be listed before its parent).
        loop {
            let before = members.len();
            for p in processes {
                if members.contains(&p.ppid) {
                    members.insert(p.pid);
                }
            }
            if members.len() == before {
                break;
            }
        }
        let mut live = BTreeSet::new();
        let mut rss_pages = 0;
        for pid in &members {
            let Some(p) = by_pid.get(pid) else { continue };
            let key = (p.pid, p.start_time);
            self.cpu_ticks.insert(key, p.utime + p.stime);
            if p.state != 'Z' && p.state != 'X' {
                live.insert(key);
                rss_pages += p.rss_pages;
            }
        }
        self.live = live;
        self.rss_bytes = rss_pages * self.page_size;
        self.peak_rss_bytes = self.peak_rss_bytes.max(self.rss_bytes);
        self.peak_processes = self.peak_processes.max(self.live.len());
        Sample {
            processes: self.live.len(),
            rss_bytes: self.rss_bytes,
            cpu_seconds: self.cpu_seconds(),
        }
    }

    /// CPU (user + system) of every member ever seen, in seconds.
    pub fn cpu_seconds(&self) -> f64 {
        self.cpu_ticks.values().sum::<u64>() as f64 / self.ticks_per_sec as f64
    }

    pub fn peak_rss_bytes(&self) -> u64 {
        self.peak_rss_bytes
    }

    pub fn peak_processes(&self) -> usize {
        self.peak_processes
    }

    /// The pids alive at the last sample.
    pub fn live_pids(&self) -> Vec<i32> {
        self.live.iter().map(|&(pid, _)| pid).collect()
    }
}

/// The default sampling period.
pub const SAMPLE_PERIOD: Duration = Duration::from_millis(200);

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(pid: i32, ppid: i32, pgrp: i32, cpu: u64, rss: u64) -> ProcStat {
        ProcStat {
            pid,
            state: 'S',
            ppid,
            pgrp,
            utime: cpu,
            stime: 0,
            start_time: pid as u64 * 10,
            rss_pages: rss,
        }
    }

    #[test]
    fn parses_stat_with_odd_command_names() {
        let text = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 30 0 0 20 0 30 0 \
                    12345 5000000000 2048 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n";
        let p = parse_stat(text).unwrap();
        assert_eq!(p.pid, 4242);
        assert_eq!(p.state, 'S');
        assert_eq!(p.ppid, 1);
        assert_eq!(p.pgrp, 4242);
        assert_eq!((p.utime, p.stime), (250, 30));
        assert_eq!(p.start_time, 12345);
        assert_eq!(p.rss_pages, 2048);
        assert!(parse_stat("garbage").is_none());
        assert!(parse_stat(&std::fs::read_to_string("/proc/self/stat").unwrap()).is_some());
    }

    #[test]
    fn tree_follows_descendants_and_keeps_the_cpu_of_exited_ones() {
        let mut t = TreeAccount::new(100);
        let page = t.page_size;
        let s = t.observe(&[
            stat(1, 0, 1, 0, 999),
            stat(100, 1, 100, 10, 5),
            // a detached grandchild in its own group, via its parent
            stat(101, 100, 101, 20, 7),
            stat(102, 101, 102, 30, 11),
            // unrelated
            stat(200, 1, 200, 1000, 1000),
        ]);
        assert_eq!(s.processes, 3);
        assert_eq!(s.rss_bytes, 23 * page);
        assert_eq!(t.cpu_seconds(), 60.0 / t.ticks_per_sec as f64);
        // 101 exits; its child 102 is orphaned to pid 1 and stays a member.
        let s = t.observe(&[
            stat(1, 0, 1, 0, 999),
            stat(100, 1, 100, 15, 5),
            stat(102, 1, 102, 40, 3),
        ]);
        assert_eq!(s.processes, 2);
        assert_eq!(s.rss_bytes, 8 * page);
        assert_eq!(
            t.cpu_seconds(),
            (15 + 20 + 40) as f64 / t.ticks_per_sec as f64
        );
        assert_eq!(t.peak_rss_bytes(), 23 * page);
        assert_eq!(t.peak_processes(), 3);
        // A reused pid is a new process, not a member.
        let mut reused = stat(101, 1, 101, 500, 50);
        reused.start_time = 9999;
        let s = t.observe(&[stat(100, 1, 100, 15, 5), reused]);
        assert_eq!(s.processes, 1);
    }

    #[test]
    fn samples_a_real_child_tree() {
        use std::os::unix::process::CommandExt;
        // A shell that burns CPU in a child, and holds memory in another.
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg("(i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done) & sleep 3 & wait")
            .process_group(0)
            .spawn()
            .unwrap();
        let mut t = TreeAccount::new(child.id() as i32);
        let mut max_processes = 0;
        for _ in 0..40 {
            let s = t.sample();
            max_processes = max_processes.max(s.processes);
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = child.kill();
        let _ = child.wait();
        assert!(max_processes >= 3, "saw {max_processes} processes");
        assert!(t.cpu_seconds() > 0.05, "cpu {}", t.cpu_seconds());
        assert!(
            t.peak_rss_bytes() > 100 * 1024,
            "rss {}",
            t.peak_rss_bytes()
        );
    }
}
