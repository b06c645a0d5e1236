//! `egret bench --rate R[,R2...]`: latency at fixed offered rates, as
//! storm-loadgen's ThroughputVsLatency reports it. The workload is ours,
//! `dev.egret.bench.RateTopology` in the bench's own jar (bench/storm-side,
//! compiled against the real storm-client): a spout that offers `R` tuples
//! per second, acked by one bolt. Each rate is run on every system, the
//! systems alternating inside a rate, the rates in the order given.
//!
//! Invariants:
//! - every system gets the same jar, main and arguments at a rate (`RATE`
//!   then the arguments after `--`);
//! - CPU per tuple is the CPU of the system's whole process tree over the
//!   measured window divided by the trees acked in it;
//! - a system "kept up" at a rate when it acked at least [`KEPT_UP`] of the
//!   offered rate; a run where it did not is marked, since its latency is
//!   then that of a queue, not of the system;
//! - figures a run could not measure print as `-`, never as 0.

use std::fmt::Write as _;

use crate::report::{Meta, escape, median, render_table};
use crate::runner::RunResult;

/// The fixed-rate topology's main class (bench/storm-side).
pub const MAIN: &str = "dev.egret.bench.RateTopology";
/// The share of the offered rate a system must ack to have kept up.
pub const KEPT_UP: f64 = 0.95;

/// One rate: digits with an optional `k` (thousands) or `m` (millions).
pub fn parse_rate(text: &str) -> Result<u64, String> {
    let t = text.trim().to_ascii_lowercase();
    let (digits, factor) = match t.strip_suffix('k') {
        Some(d) => (d, 1_000),
        None => match t.strip_suffix('m') {
            Some(d) => (d, 1_000_000),
            None => (t.as_str(), 1),
        },
    };
    let n: u64 = digits.parse().map_err(|_| {
        format!("--rate: '{text}' is not a rate (tuples per second: 5000, 20k, 1m)")
    })?;
    match n.checked_mul(factor) {
        Some(0) => Err(format!(
            "--rate: '{text}': a rate must be at least 1 tuple per second"
        )),
        Some(r) => Ok(r),
        None => Err(format!("--rate: '{text}' is too large")),
    }
}

/// The rates of `--rate`, in the order given; each at most once.
pub fn parse_rates(list: &[String]) -> Result<Vec<u64>, String> {
    let mut rates = Vec::new();
    for item in list {
        let rate = parse_rate(item)?;
        if rates.contains(&rate) {
            return Err(format!("--rate: {rate} is given twice"));
        }
        rates.push(rate);
    }
    if rates.is_empty() {
        return Err("--rate needs at least one rate".to_owned());
    }
    Ok(rates)
}

/// The main() arguments of a run at `rate`: the rate, then the user's.
pub fn main_args(rate: u64, extra: &[String]) -> Vec<String> {
    let mut args = vec![rate.to_string()];
    args.extend(extra.iter().cloned());
    args
}

/// One run at one offered rate.
#[derive(Debug, Clone)]
pub struct RatePoint {
    pub rate: u64,
    pub result: RunResult,
}

impl RatePoint {
    /// Trees acked in the window, when the hook reported.
    fn acked(&self) -> Option<u64> {
        (self.result.hook_reported && self.result.acked > 0).then_some(self.result.acked)
    }

    /// Microseconds of CPU (the whole tree, window only) per acked tree.
    pub fn cpu_us_per_tuple(&self) -> Option<f64> {
        self.acked()
            .map(|acked| self.result.cpu_secs * 1e6 / acked as f64)
    }

    /// A complete latency quantile in ms: from the spout's own measurement in µs when it
    /// made one (the rate workload's spout: from the time each tuple was due, as
    /// storm-loadgen's ThroughputVsLatency measures), else Storm's whole milliseconds.
    fn latency_ms(us: Option<u64>, ms: Option<u64>) -> Option<f64> {
        us.map(|us| us as f64 / 1000.0)
            .or_else(|| ms.map(|ms| ms as f64))
    }

    pub fn p50_ms(&self) -> Option<f64> {
        Self::latency_ms(self.result.p50_us, self.result.p50_ms)
    }

    pub fn p99_ms(&self) -> Option<f64> {
        Self::latency_ms(self.result.p99_us, self.result.p99_ms)
    }

    pub fn p999_ms(&self) -> Option<f64> {
        Self::latency_ms(self.result.p999_us, self.result.p999_ms)
    }

    /// Whether the system acked at least [`KEPT_UP`] of the offered rate.
    pub fn kept_up(&self) -> Option<bool> {
        self.result
            .throughput
            .map(|t| t >= self.rate as f64 * KEPT_UP)
    }
}

/// The medians of one system at one rate, over its rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct RateSummary {
    pub rate: u64,
    pub system: String,
    pub rounds: usize,
    pub throughput: Option<f64>,
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub p999_ms: Option<f64>,
    pub cpu_us_per_tuple: Option<f64>,
    /// Every round kept up.
    pub kept_up: Option<bool>,
}

/// One summary per (rate, system), rates and systems in the order they first appear.
pub fn summarize(points: &[RatePoint]) -> Vec<RateSummary> {
    let mut keys: Vec<(u64, &str)> = Vec::new();
    for p in points {
        let key = (p.rate, p.result.system.as_str());
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys.into_iter()
        .map(|(rate, system)| {
            let runs: Vec<&RatePoint> = points
                .iter()
                .filter(|p| p.rate == rate && p.result.system == system)
                .collect();
            let col = |f: &dyn Fn(&RatePoint) -> Option<f64>| {
                median(runs.iter().filter_map(|p| f(p)).collect())
            };
            let kept: Vec<bool> = runs.iter().filter_map(|p| p.kept_up()).collect();
            RateSummary {
                rate,
                system: system.to_owned(),
                rounds: runs.len(),
                throughput: col(&|p| p.result.throughput),
                p50_ms: col(&|p| p.p50_ms()),
                p99_ms: col(&|p| p.p99_ms()),
                p999_ms: col(&|p| p.p999_ms()),
                cpu_us_per_tuple: col(&|p| p.cpu_us_per_tuple()),
                kept_up: (!kept.is_empty()).then(|| kept.iter().all(|k| *k)),
            }
        })
        .collect()
}

const HEADER: [&str; 10] = [
    "rate/s",
    "system",
    "round",
    "acked/s",
    "kept up",
    "p50 ms",
    "p99 ms",
    "p99.9 ms",
    "CPU s",
    "CPU µs/tuple",
];

/// Latencies are shown to the µs (they are measured in µs where the spout measures them).
const MS_DIGITS: usize = 3;

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".to_owned(), |v| format!("{v:.digits$}"))
}

fn yes_no(v: Option<bool>) -> String {
    match v {
        Some(true) => "yes".to_owned(),
        Some(false) => "NO".to_owned(),
        None => "-".to_owned(),
    }
}

fn rows(points: &[RatePoint]) -> Vec<[String; 10]> {
    let mut rows: Vec<[String; 10]> = points
        .iter()
        .map(|p| {
            let r = &p.result;
            [
                p.rate.to_string(),
                r.system.clone(),
                r.round.to_string(),
                opt(r.throughput, 0),
                yes_no(p.kept_up()),
                opt(p.p50_ms(), MS_DIGITS),
                opt(p.p99_ms(), MS_DIGITS),
                opt(p.p999_ms(), MS_DIGITS),
                format!("{:.1}", r.cpu_secs),
                opt(p.cpu_us_per_tuple(), 2),
            ]
        })
        .collect();
    for s in summarize(points) {
        rows.push([
            s.rate.to_string(),
            s.system.clone(),
            "median".to_owned(),
            opt(s.throughput, 0),
            yes_no(s.kept_up),
            opt(s.p50_ms, MS_DIGITS),
            opt(s.p99_ms, MS_DIGITS),
            opt(s.p999_ms, MS_DIGITS),
            "".to_owned(),
            opt(s.cpu_us_per_tuple, 2),
        ]);
    }
    rows
}

/// The terminal table: one row per run, then one median row per rate and system.
pub fn table(points: &[RatePoint]) -> String {
    render_table(&HEADER, &rows(points), |i| (1..=2).contains(&i) || i == 4)
}

/// The Markdown report of a rate run (it embeds `latency-vs-rate.svg`, written beside it).
pub fn markdown(meta: &Meta, points: &[RatePoint]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# egret bench --rate: latency at fixed offered rates\n"
    );
    let _ = writeln!(
        out,
        "`{}` `{}`, {} s warm-up then {} s measured per run, {} round(s) per rate, systems alternating.\n",
        meta.jar, meta.main_class, meta.warmup_secs, meta.duration_secs, meta.rounds
    );
    if !meta.egret.is_empty() {
        let _ = writeln!(out, "Egret: `{}`.\n", meta.egret);
    }
    let _ = writeln!(
        out,
        "![complete latency against offered rate](latency-vs-rate.svg)\n"
    );
    let _ = writeln!(out, "| {} |", HEADER.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(HEADER.len()));
    for row in rows(points) {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    let _ = writeln!(
        out,
        "\nThe spout offers the rate (its tuples are due on a clock, not sent as fast as \
         possible) and one bolt acks each tuple. Latency is the complete latency the \
         spout measures itself with `System.nanoTime`, from the time each tuple was due \
         to its ack, as storm-loadgen's ThroughputVsLatency measures it (a spout that \
         emits late adds its delay); CPU the user + system CPU of every process of \
         the system over the measured window, per acked tuple. `kept up`: the system \
         acked at least {:.0} % of the offered rate; where it did not (`NO`), the latency \
         is that of a queue.",
        KEPT_UP * 100.0
    );
    out
}

/// An SVG line chart: complete latency (p50 dashed, p99 solid, log scale)
/// against the offered rate (one column per rate, in the order run), one
/// colour per system (medians).
pub fn svg(meta: &Meta, points: &[RatePoint]) -> String {
    const COLORS: [&str; 4] = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759"];
    let summaries = summarize(points);
    let mut rates: Vec<u64> = Vec::new();
    let mut systems: Vec<&str> = Vec::new();
    for s in &summaries {
        if !rates.contains(&s.rate) {
            rates.push(s.rate);
        }
        if !systems.contains(&s.system.as_str()) {
            systems.push(&s.system);
        }
    }
    let (left, top, plot_w, plot_h, bottom) = (70.0, 50.0, 560.0, 300.0, 60.0);
    let width = left + plot_w + 160.0;
    let height = top + plot_h + bottom;
    // Log scale from the power of ten at or below the smallest latency (1 µs at
    // the least, 1 ms at the most) to the next one above the largest; 0 (below
    // the measurement's resolution) is drawn at the bottom.
    let shown: Vec<f64> = summaries
        .iter()
        .flat_map(|s| [s.p50_ms, s.p99_ms])
        .flatten()
        .collect();
    let max_ms = shown.iter().copied().fold(1.0_f64, f64::max);
    let low = shown
        .iter()
        .copied()
        .filter(|ms| *ms > 0.0)
        .fold(1.0_f64, f64::min)
        .log10()
        .floor()
        .clamp(-3.0, 0.0) as i32;
    let high = (max_ms.log10().ceil() as i32).max(low + 1);
    let decades = f64::from(high - low);
    let y_of = |ms: f64| {
        top + plot_h - ((ms.max(10f64.powi(low)).log10() - f64::from(low)) / decades) * plot_h
    };
    let x_of = |i: usize| {
        if rates.len() <= 1 {
            left + plot_w / 2.0
        } else {
            left + plot_w * i as f64 / (rates.len() - 1) as f64
        }
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        out,
        r#"<text x="10" y="20" font-size="14" font-weight="bold">egret bench --rate: complete latency against offered rate (median of {} round(s))</text>"#,
        meta.rounds
    );
    for d in low..=high {
        let ms = 10f64.powi(d);
        let y = y_of(ms);
        // The bottom line also holds what is below it (0: below the resolution).
        let label = if d == low {
            format!("≤{ms}")
        } else {
            ms.to_string()
        };
        let _ = writeln!(
            out,
            r##"<line x1="{left}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{label} ms</text>"##,
            left + plot_w,
            left - 6.0,
            y + 4.0
        );
    }
    for (i, rate) in rates.iter().enumerate() {
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{rate}</text>"#,
            x_of(i),
            top + plot_h + 18.0
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">offered rate (tuples/s)</text>"#,
        left + plot_w / 2.0,
        top + plot_h + 42.0
    );
    for (k, system) in systems.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        for (label, dash, figure) in [
            (
                "p99",
                "",
                (|s: &RateSummary| s.p99_ms) as fn(&RateSummary) -> Option<f64>,
            ),
            ("p50", r#" stroke-dasharray="5,4""#, |s: &RateSummary| {
                s.p50_ms
            }),
        ] {
            let pts: Vec<(f64, f64)> = rates
                .iter()
                .enumerate()
                .filter_map(|(i, rate)| {
                    summaries
                        .iter()
                        .find(|s| s.rate == *rate && s.system == *system)
                        .and_then(figure)
                        .map(|ms| (x_of(i), y_of(ms)))
                })
                .collect();
            if pts.is_empty() {
                continue;
            }
            let path: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            let _ = writeln!(
                out,
                r#"<polyline fill="none" stroke="{color}" stroke-width="2"{dash} points="{}"><title>{} {label}</title></polyline>"#,
                path.join(" "),
                escape(system)
            );
            for (x, y) in &pts {
                let _ = writeln!(
                    out,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{color}"/>"#
                );
            }
        }
        let ly = top + 10.0 + 36.0 * k as f64;
        let lx = left + plot_w + 20.0;
        let _ = writeln!(
            out,
            r#"<line x1="{lx}" y1="{ly}" x2="{:.1}" y2="{ly}" stroke="{color}" stroke-width="2"/><text x="{:.1}" y="{:.1}">{} p99</text>"#,
            lx + 24.0,
            lx + 30.0,
            ly + 4.0,
            escape(system)
        );
        let _ = writeln!(
            out,
            r#"<line x1="{lx}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{color}" stroke-width="2" stroke-dasharray="5,4"/><text x="{:.1}" y="{:.1}">{} p50</text>"#,
            ly + 16.0,
            lx + 24.0,
            ly + 16.0,
            lx + 30.0,
            ly + 20.0,
            escape(system)
        );
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::Metric;
    use std::path::PathBuf;

    fn point(rate: u64, system: &str, round: u32, acked: u64, p50: u64, p99: u64) -> RatePoint {
        RatePoint {
            rate,
            result: RunResult {
                system: system.into(),
                round,
                hook_reported: true,
                window_secs: 10.0,
                acked,
                failed: 0,
                sink_executed: 0,
                metric: Metric::Acked,
                throughput: Some(acked as f64 / 10.0),
                p50_ms: Some(p50),
                p99_ms: Some(p99),
                p999_ms: Some(p99 * 2),
                p50_us: None,
                p99_us: None,
                p999_us: None,
                cpu_secs: 2.0,
                cpu_total_secs: 5.0,
                peak_rss_bytes: 1 << 20,
                peak_processes: 1,
                log: PathBuf::from("/l"),
            },
        }
    }

    #[test]
    fn rates_parse_with_suffixes_and_bad_ones_are_named() {
        assert_eq!(parse_rate("5000"), Ok(5000));
        assert_eq!(parse_rate("20k"), Ok(20_000));
        assert_eq!(parse_rate("2M"), Ok(2_000_000));
        let list = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            parse_rates(&list(&["1k", "500", "10k"])),
            Ok(vec![1000, 500, 10_000])
        );
        assert!(
            parse_rate("fast")
                .unwrap_err()
                .contains("'fast' is not a rate")
        );
        assert!(parse_rate("0").unwrap_err().contains("at least 1"));
        assert!(parse_rate("-5").is_err());
        assert!(parse_rate("99999999999999999999m").is_err());
        assert!(
            parse_rates(&list(&["1k", "1000"]))
                .unwrap_err()
                .contains("1000 is given twice")
        );
        assert!(parse_rates(&[]).is_err());
        assert_eq!(
            main_args(300, &["spouts=2".into()]),
            vec!["300", "spouts=2"]
        );
    }

    #[test]
    fn cpu_per_tuple_and_keeping_up() {
        // 10 000 acked in 10 s against 1000/s offered: kept up; 2 s CPU over them.
        let p = point(1000, "egret", 1, 10_000, 1, 3);
        assert_eq!(p.cpu_us_per_tuple(), Some(200.0));
        assert_eq!(p.kept_up(), Some(true));
        // 9 000 in 10 s of 1000/s: 90 %, below the bar.
        assert_eq!(point(1000, "storm", 1, 9_000, 5, 9).kept_up(), Some(false));
        let mut none = point(1000, "storm", 1, 0, 0, 0);
        none.result.hook_reported = false;
        none.result.throughput = None;
        assert_eq!(none.cpu_us_per_tuple(), None);
        assert_eq!(none.kept_up(), None);
    }

    #[test]
    fn medians_per_rate_and_system_in_order() {
        let points = vec![
            point(1000, "storm", 1, 10_000, 4, 10),
            point(1000, "egret", 1, 10_000, 1, 2),
            point(1000, "storm", 2, 10_000, 6, 30),
            point(1000, "egret", 2, 10_000, 1, 4),
            point(5000, "storm", 1, 40_000, 50, 900),
            point(5000, "egret", 1, 50_000, 1, 5),
        ];
        let s = summarize(&points);
        let keys: Vec<(u64, &str)> = s.iter().map(|s| (s.rate, s.system.as_str())).collect();
        assert_eq!(
            keys,
            [
                (1000, "storm"),
                (1000, "egret"),
                (5000, "storm"),
                (5000, "egret")
            ]
        );
        assert_eq!(s[0].p99_ms, Some(20.0));
        assert_eq!(s[0].p50_ms, Some(5.0));
        assert_eq!(s[1].p999_ms, Some(6.0));
        assert_eq!(s[2].kept_up, Some(false));
        assert_eq!(s[3].kept_up, Some(true));
        let t = table(&points);
        assert_eq!(t.lines().count(), 2 + 6 + 4, "{t}");
        assert!(t.lines().next().unwrap().contains("p99.9 ms"), "{t}");
        assert!(t.contains("NO"), "{t}");
        let md = markdown(&Meta::default(), &points);
        assert!(md.contains("| rate/s | system |"), "{md}");
        let svg = svg(&Meta::default(), &points);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        // Two systems, two lines each (p50, p99), two points per line.
        assert_eq!(svg.matches("<polyline").count(), 4, "{svg}");
        assert_eq!(svg.matches("<circle").count(), 8, "{svg}");
        assert!(
            svg.contains(">1000</text>") && svg.contains(">5000</text>"),
            "{svg}"
        );
        // Whole milliseconds (Storm's complete latency) when no spout measured µs.
        assert!(t.contains(" 900.000 "), "{t}");
        // Log scale up to 1000 ms: four grid lines (1, 10, 100, 1000).
        assert!(
            svg.contains(">1000 ms</text>") && !svg.contains(">10000 ms"),
            "{svg}"
        );
    }

    #[test]
    fn the_spouts_own_microseconds_win_over_storms_milliseconds() {
        let mut storm = point(35_000, "storm", 1, 350_000, 0, 1);
        storm.result.p50_us = Some(310);
        storm.result.p99_us = Some(880);
        storm.result.p999_us = Some(1_500);
        let mut egret = point(35_000, "egret", 1, 350_000, 1, 3);
        egret.result.p50_us = Some(1_200);
        egret.result.p99_us = Some(2_600);
        egret.result.p999_us = Some(4_100);
        assert_eq!(storm.p50_ms(), Some(0.31));
        assert_eq!(egret.p99_ms(), Some(2.6));
        // Without the spout's figures, Storm's whole milliseconds.
        assert_eq!(point(1000, "storm", 1, 10_000, 4, 10).p50_ms(), Some(4.0));
        let points = vec![storm, egret];
        let s = summarize(&points);
        assert_eq!(s[0].p50_ms, Some(0.31));
        assert_eq!(s[1].p999_ms, Some(4.1));
        let t = table(&points);
        assert!(t.contains("0.310") && t.contains("2.600"), "{t}");
        // The chart's scale reaches down to the smallest latency's decade (0.1 ms).
        let svg = svg(&Meta::default(), &points);
        assert!(
            svg.contains(">≤0.1 ms</text>") && svg.contains(">10 ms</text>"),
            "{svg}"
        );
        assert!(!svg.contains(">0.01 ms"), "{svg}");
    }
}
