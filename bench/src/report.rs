//! The bench's outputs: a terminal table, a Markdown report and an SVG bar
//! chart (throughput, p99 complete latency, peak RSS per system).
//!
//! Invariants: figures a run could not measure print as `-` (never as 0); the
//! median row of a system is the per-column median over its rounds (only
//! rounds that measured the column count); the SVG is self-contained text.

use std::fmt::Write as _;

use crate::runner::RunResult;

/// What the report says about the run as a whole.
#[derive(Debug, Clone, Default)]
pub struct Meta {
    pub workload: String,
    pub jar: String,
    pub main_class: String,
    pub warmup_secs: u64,
    pub duration_secs: u64,
    pub rounds: u32,
    /// The egret executable measured, and its build profile when known.
    pub egret: String,
}

/// The median of a system's figures over its rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub system: String,
    pub rounds: usize,
    pub throughput: Option<f64>,
    pub metric: String,
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub cpu_secs: Option<f64>,
    pub peak_rss_bytes: Option<f64>,
}

/// The median of `values` (the mean of the middle two for an even count).
pub fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    Some(if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    })
}

/// One summary per system, in the order systems first appear in `results`.
pub fn summarize(results: &[RunResult]) -> Vec<Summary> {
    let mut systems: Vec<&str> = Vec::new();
    for r in results {
        if !systems.contains(&r.system.as_str()) {
            systems.push(&r.system);
        }
    }
    systems
        .into_iter()
        .map(|system| {
            let runs: Vec<&RunResult> = results.iter().filter(|r| r.system == system).collect();
            let col = |f: &dyn Fn(&RunResult) -> Option<f64>| {
                median(runs.iter().filter_map(|r| f(r)).collect())
            };
            Summary {
                system: system.to_owned(),
                rounds: runs.len(),
                throughput: col(&|r| r.throughput),
                metric: runs
                    .iter()
                    .find(|r| r.throughput.is_some())
                    .map(|r| r.metric.label().to_owned())
                    .unwrap_or_else(|| "-".to_owned()),
                p50_ms: col(&|r| r.p50_ms.map(|v| v as f64)),
                p99_ms: col(&|r| r.p99_ms.map(|v| v as f64)),
                cpu_secs: col(&|r| Some(r.cpu_secs)),
                peak_rss_bytes: col(&|r| Some(r.peak_rss_bytes as f64)),
            }
        })
        .collect()
}

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "-".to_owned())
}

fn rate(v: f64) -> String {
    format!("{v:.0}")
}

fn ms(v: f64) -> String {
    format!("{v:.0}")
}

fn secs(v: f64) -> String {
    format!("{v:.1}")
}

fn mib(v: f64) -> String {
    format!("{:.0}", v / (1024.0 * 1024.0))
}

const HEADER: [&str; 8] = [
    "system",
    "round",
    "tuples/s",
    "counted",
    "p50 ms",
    "p99 ms",
    "CPU s",
    "peak RSS MiB",
];

fn rows(results: &[RunResult], summaries: &[Summary]) -> Vec<[String; 8]> {
    let mut rows: Vec<[String; 8]> = results
        .iter()
        .map(|r| {
            [
                r.system.clone(),
                r.round.to_string(),
                opt(r.throughput, rate),
                if r.hook_reported {
                    r.metric.label().to_owned()
                } else {
                    "no hook".to_owned()
                },
                opt(r.p50_ms.map(|v| v as f64), ms),
                opt(r.p99_ms.map(|v| v as f64), ms),
                secs(r.cpu_secs),
                mib(r.peak_rss_bytes as f64),
            ]
        })
        .collect();
    for s in summaries {
        rows.push([
            s.system.clone(),
            "median".to_owned(),
            opt(s.throughput, rate),
            s.metric.clone(),
            opt(s.p50_ms, ms),
            opt(s.p99_ms, ms),
            opt(s.cpu_secs, secs),
            opt(s.peak_rss_bytes, mib),
        ]);
    }
    rows
}

/// The terminal table: one row per run, then one median row per system.
pub fn table(results: &[RunResult]) -> String {
    let summaries = summarize(results);
    render_table(&HEADER, &rows(results, &summaries), |i| i < 2 || i == 3)
}

/// A terminal table: the header, a rule, the rows; columns as wide as their
/// widest cell, left-aligned where `left(column)`, else right-aligned.
pub(crate) fn render_table<R: AsRef<[String]>>(
    header: &[&str],
    rows: &[R],
    left: impl Fn(usize) -> bool,
) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row.as_ref()) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: &[String], out: &mut String| {
        let text: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, w))| {
                // Padding by characters, not bytes (µ is two bytes).
                let pad = w.saturating_sub(c.chars().count());
                if left(i) {
                    format!("{c}{}", " ".repeat(pad))
                } else {
                    format!("{}{c}", " ".repeat(pad))
                }
            })
            .collect();
        let _ = writeln!(out, "{}", text.join("  ").trim_end());
    };
    line(
        &header.iter().map(|h| (*h).to_owned()).collect::<Vec<_>>(),
        &mut out,
    );
    line(
        &widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>(),
        &mut out,
    );
    for row in rows {
        line(row.as_ref(), &mut out);
    }
    out
}

/// The Markdown report (it embeds `chart.svg`, written beside it).
pub fn markdown(meta: &Meta, results: &[RunResult]) -> String {
    let summaries = summarize(results);
    let mut out = String::new();
    let _ = writeln!(out, "# egret bench: {}\n", meta.workload);
    let _ = writeln!(
        out,
        "`{}` `{}`, {} s warm-up then {} s measured per run, {} round(s), systems alternating.\n",
        meta.jar, meta.main_class, meta.warmup_secs, meta.duration_secs, meta.rounds
    );
    if !meta.egret.is_empty() {
        let _ = writeln!(out, "Egret: `{}`.\n", meta.egret);
    }
    let _ = writeln!(out, "![throughput, p99 latency and memory](chart.svg)\n");
    let _ = writeln!(out, "| {} |", HEADER.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(HEADER.len()));
    for row in rows(results, &summaries) {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    let _ = writeln!(
        out,
        "\nThroughput is spout acks per second (or executes at the sink bolts when \
         acking is off) and latency Storm's complete latency, both counted inside the \
         topology by the same task hook (`dev.egret.bench.LatencyHook`) on every \
         system, over the measured window only. CPU seconds (user + system, measured \
         window) and peak RSS (summed over every process of the system) are sampled \
         from /proc every 200 ms. `-`: not measured (`no hook`: no task reported \
         through `topology.auto.task.hooks`)."
    );
    if results.iter().any(|r| r.system == "ceiling") {
        let _ = writeln!(
            out,
            "\n`ceiling`: the same topology's spouts and bolts, deserialized from what its \
             main submitted, called directly in one JVM thread (emit calls the subscribed \
             bolts' execute, acks complete trees at once): no framework, the upper bound \
             of one core. Measured by the same hook and sampler."
        );
    }
    out
}

pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A chart panel: title, the figure of a summary, how to print it.
type Panel = (&'static str, fn(&Summary) -> Option<f64>, fn(f64) -> String);

/// An SVG bar chart: one panel per figure (throughput, p99, peak RSS), one bar per system (median).
pub fn svg(meta: &Meta, results: &[RunResult]) -> String {
    let summaries = summarize(results);
    const COLORS: [&str; 4] = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759"];
    let panels: [Panel; 3] = [
        ("throughput (tuples/s)", |s: &Summary| s.throughput, rate),
        ("p99 complete latency (ms)", |s: &Summary| s.p99_ms, ms),
        ("peak RSS (MiB)", |s: &Summary| s.peak_rss_bytes, mib),
    ];
    let (panel_w, panel_h, top, bottom) = (260.0, 220.0, 50.0, 40.0);
    let width = panel_w * panels.len() as f64 + 20.0;
    let height = top + panel_h + bottom;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        out,
        r#"<text x="10" y="20" font-size="14" font-weight="bold">egret bench: {} (median of {} round(s))</text>"#,
        escape(&meta.workload),
        meta.rounds
    );
    for (p, (title, value, fmt)) in panels.iter().enumerate() {
        let x0 = 10.0 + p as f64 * panel_w;
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            x0 + panel_w / 2.0,
            top - 8.0,
            escape(title)
        );
        let base = top + panel_h;
        let _ = writeln!(
            out,
            r##"<line x1="{}" y1="{base}" x2="{}" y2="{base}" stroke="#333"/>"##,
            x0 + 10.0,
            x0 + panel_w - 10.0
        );
        let max = summaries.iter().filter_map(value).fold(0.0_f64, f64::max);
        let n = summaries.len().max(1) as f64;
        let slot = (panel_w - 20.0) / n;
        for (i, s) in summaries.iter().enumerate() {
            let cx = x0 + 10.0 + slot * (i as f64 + 0.5);
            let bar_w = (slot * 0.6).min(60.0);
            let color = COLORS[i % COLORS.len()];
            match value(s) {
                Some(v) => {
                    let h = if max > 0.0 {
                        (v / max) * (panel_h - 30.0)
                    } else {
                        0.0
                    };
                    let _ = writeln!(
                        out,
                        r#"<rect x="{:.1}" y="{:.1}" width="{bar_w:.1}" height="{h:.1}" fill="{color}"/>"#,
                        cx - bar_w / 2.0,
                        base - h
                    );
                    let _ = writeln!(
                        out,
                        r#"<text x="{cx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                        base - h - 4.0,
                        fmt(v)
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        r#"<text x="{cx:.1}" y="{:.1}" text-anchor="middle">-</text>"#,
                        base - 4.0
                    );
                }
            }
            let _ = writeln!(
                out,
                r#"<text x="{cx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                base + 16.0,
                escape(&s.system)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::Metric;
    use std::path::PathBuf;

    fn run(
        system: &str,
        round: u32,
        tput: Option<f64>,
        p99: Option<u64>,
        rss_mib: u64,
    ) -> RunResult {
        RunResult {
            system: system.into(),
            round,
            hook_reported: tput.is_some(),
            window_secs: 10.0,
            acked: 100,
            failed: 0,
            sink_executed: 0,
            metric: if tput.is_some() {
                Metric::Acked
            } else {
                Metric::None
            },
            throughput: tput,
            p50_ms: p99.map(|p| p / 2),
            p99_ms: p99,
            p999_ms: p99,
            p50_us: None,
            p99_us: None,
            p999_us: None,
            cpu_secs: 12.5,
            cpu_total_secs: 20.0,
            peak_rss_bytes: rss_mib * 1024 * 1024,
            peak_processes: 1,
            log: PathBuf::from("/l"),
        }
    }

    fn results() -> Vec<RunResult> {
        vec![
            run("storm", 1, Some(1000.0), Some(40), 500),
            run("egret", 1, None, None, 200),
            run("storm", 2, Some(3000.0), Some(60), 700),
            run("egret", 2, Some(5000.0), Some(8), 220),
        ]
    }

    #[test]
    fn medians() {
        assert_eq!(median(vec![]), None);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0]), Some(2.5));
        let s = summarize(&results());
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].system, "storm");
        assert_eq!(s[0].throughput, Some(2000.0));
        assert_eq!(s[0].p99_ms, Some(50.0));
        // Only the round that measured it counts.
        assert_eq!(s[1].throughput, Some(5000.0));
        assert_eq!(s[1].peak_rss_bytes, Some(210.0 * 1024.0 * 1024.0));
    }

    #[test]
    fn a_single_rounds_median_is_that_rounds_row_for_every_system() {
        // One round of each system with different figures: each median row must
        // repeat its own system's round row, never another system's.
        let mut results = vec![
            run("storm", 1, Some(8867.0), Some(2047), 2004),
            run("egret", 1, Some(236_044.0), Some(927), 741),
            run("ceiling", 1, Some(2_000_000.0), Some(0), 300),
        ];
        for (r, cpu) in results.iter_mut().zip([10.1, 9.7, 14.6]) {
            r.cpu_secs = cpu;
        }
        let s = summarize(&results);
        assert_eq!(s.len(), 3);
        for (summary, r) in s.iter().zip(&results) {
            assert_eq!(summary.system, r.system);
            assert_eq!(summary.cpu_secs, Some(r.cpu_secs), "{summary:?}");
            assert_eq!(summary.throughput, r.throughput, "{summary:?}");
            assert_eq!(summary.peak_rss_bytes, Some(r.peak_rss_bytes as f64));
        }
        let t = table(&results);
        for (system, cpu) in [("storm", "10.1"), ("egret", "9.7"), ("ceiling", "14.6")] {
            let own: Vec<&str> = t
                .lines()
                .filter(|l| l.split_whitespace().next() == Some(system))
                .collect();
            assert_eq!(own.len(), 2, "{t}");
            for line in own {
                assert_eq!(line.split_whitespace().nth(6), Some(cpu), "{t}");
            }
        }
        let md = markdown(&Meta::default(), &results);
        assert!(md.contains("`ceiling`: the same topology"), "{md}");
    }

    #[test]
    fn table_has_a_row_per_run_and_a_median_per_system() {
        let t = table(&results());
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 2 + 4 + 2, "{t}");
        assert!(lines[0].starts_with("system") && lines[0].contains("p99 ms"));
        assert!(
            lines[3].starts_with("egret") && lines[3].contains("no hook"),
            "{t}"
        );
        assert!(lines[3].contains(" - "), "unmeasured shows as -: {t}");
        assert!(
            lines[6].contains("median") && lines[6].contains("2000"),
            "{t}"
        );
        assert!(lines[6].ends_with("600"), "{t}");
    }

    #[test]
    fn markdown_and_svg() {
        let meta = Meta {
            workload: "const-id-null".into(),
            jar: "perf.jar".into(),
            main_class: "M".into(),
            warmup_secs: 5,
            duration_secs: 30,
            rounds: 2,
            egret: "target/release/egret (release build)".into(),
        };
        let md = markdown(&meta, &results());
        assert!(
            md.contains("| storm | median | 2000 | acked | 25 | 50 | 12.5 | 600 |"),
            "{md}"
        );
        assert!(md.contains("chart.svg"));
        assert!(md.contains("Egret: `target/release/egret (release build)`."));
        assert!(
            !md.contains("`ceiling`"),
            "no ceiling run, no ceiling note: {md}"
        );
        let svg = svg(&meta, &results());
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<rect x=").count(), 6, "{svg}");
        assert!(svg.contains(">storm<") && svg.contains(">egret<"));
        assert!(svg.contains(">5000<"));
    }
}
