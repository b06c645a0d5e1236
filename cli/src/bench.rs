//! `egret bench` (docs/bench.md): the same topology jar and main class on real
//! Apache Storm and on Egret, alternating, measured the same way; the work is
//! in the `egret-bench` crate, this module turns flags into its plan and prints.
//!
//! Invariants: every run's logs and hook files stay in the work directory
//! (printed at the end); a failed run is reported and the others still run.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, bail};
use clap::Args;
use egret_bench::kafka;
use egret_bench::plan::{self, Plan, Workload};
use egret_bench::report::{self, Meta};
use egret_bench::runner::{self, Timing};

#[derive(Debug, Clone, Args)]
#[command(after_help = "Examples:\n  \
    egret bench --workload const-id-null --duration 30\n  \
    egret bench --workload const-null --rounds 3 --report bench-out\n  \
    egret bench --workload custom --jar app.jar --main com.acme.Topo -- arg1 arg2\n  \
    egret bench --workload kafka --duration 30 --kafka-records 2000000\n  \
    egret bench --storm-mode cluster --workers 2 --ceiling\n  \
    egret bench --tls-cost --rounds 3\n  \
    egret bench --systems egret --graphite-sinks --rounds 3\n  \
    egret bench --rate 1000,10k,50k --duration 20 --report rate-out\n  \
    egret bench --guarantees --rounds 2\n\n\
    Global `-c key=value` options are given to every system as topology config. \
    Needs bench/storm-side built (./egret-dev build). Run it as target/release/egret: \
    Egret runs as the egret executable that runs the bench. See docs/bench.md.")]
pub struct BenchArgs {
    /// const-null (storm-perf ConstSpoutNullBoltTopo, acking off), const-id-null
    /// (ConstSpoutIdBoltNullBoltTopo, acking on), wordcount (storm-perf
    /// FileReadWordCountTopo), kafka (Kafka in, split and count, Kafka out:
    /// examples-connectors' KafkaWordCountTopology against a broker the bench
    /// starts), rate (the bench's fixed-rate topology: see --rate), custom
    /// (--jar, --main, args after --) [default: const-id-null, or rate with --rate]
    #[arg(long, value_name = "NAME")]
    workload: Option<String>,
    /// Offered rates in tuples/s (5000, 20k, 1m), comma-separated: runs the
    /// fixed-rate topology (dev.egret.bench.RateTopology, a paced spout acked by
    /// one bolt) at each rate on every system, and reports p50/p99/p99.9
    /// complete latency and CPU per tuple per system and rate; args after --
    /// go to its main (spouts=N, bolts=N)
    #[arg(long, value_delimiter = ',', value_name = "RATES")]
    rate: Vec<String>,
    /// The topology jar (default: the workload's)
    #[arg(long, value_name = "JAR")]
    jar: Option<PathBuf>,
    /// The main class (default: the workload's)
    #[arg(long = "main", value_name = "CLASS")]
    main_class: Option<String>,
    /// Seconds measured per run (after the warm-up)
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    duration: u64,
    /// Seconds after the first tuple goes through (a spout's first ack, a sink's first execute) that are not measured
    #[arg(long, default_value_t = 10, value_name = "SECS")]
    warmup: u64,
    /// Rounds: Storm, Egret, Storm, Egret...
    #[arg(long, default_value_t = 1, value_name = "N")]
    rounds: u32,
    /// topology.workers for both systems (default: what the topology sets)
    #[arg(long, value_name = "N")]
    workers: Option<u32>,
    /// Which systems to run, in order (storm, egret, ceiling, egret-sinks, egret-jni, egret-timer: Egret with adaptive batching off)
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "storm,egret",
        value_name = "LIST"
    )]
    systems: Vec<String>,
    /// Egret's bridges to measure, in order (socket: system egret, jni: system egret-jni), in place of egret in --systems
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    bridge: Vec<String>,
    /// Also run Egret with two Graphite sinks, one at a port that accepts and never reads, one at a port nothing listens on (system egret-sinks, after egret): throughput with stalled sinks beside without
    #[arg(long)]
    graphite_sinks: bool,
    /// Measure the delivery guarantees on Egret alone: the bench's stateful workload (dev.egret.bench.StatefulCountTopology: a replayable spout into a stateful count bolt) as egret-atleast (at-least-once), egret-eo-10s, egret-eo-1s, egret-eo-1s-pause, egret-eo-100ms and egret-eo-100ms-delta (effectively once, checkpoints every 10 s, 1 s (buffered alignment, or pausing the spouts), 100 ms, 100 ms stored whole at one in ten and as deltas between), in place of --systems; after each window one count bolt JVM is killed (kill -9) and the time until acks are back to half the window's rate is reported; args after -- go to its main (spouts=N, bolts=N, keys=N)
    #[arg(long)]
    guarantees: bool,
    /// With --guarantees: which of its modes to run, in order (default: all)
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    modes: Vec<String>,
    /// Also run the no-framework ceiling (the topology's spouts and bolts called directly in one JVM thread)
    #[arg(long)]
    ceiling: bool,
    /// How Storm runs: local (one JVM, `storm local`) or cluster (ZooKeeper, Nimbus, a Supervisor and its worker JVMs on loopback; needs Debian's zookeeper package)
    #[arg(long, default_value = "local", value_name = "MODE", value_parser = ["local", "cluster"])]
    storm_mode: String,
    /// The egret executable whose `egret local` is measured [default: this one]
    #[arg(long, value_name = "PATH")]
    egret: Option<PathBuf>,
    /// Write report.md and chart.svg to this directory
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// Where runs keep their logs and hook files [default: a new directory under /tmp]
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,
    /// Seconds to wait for a tuple to go through before warming up anyway (and, if no task reported through the hook, measuring processes only)
    #[arg(long, default_value_t = 120, value_name = "SECS")]
    startup_timeout: u64,
    /// The built bench/storm-side/target directory [default: found from the egret executable]
    #[arg(long, value_name = "DIR")]
    storm_side: Option<PathBuf>,
    /// Extra JVM flags for Storm's JVM (whitespace-separated)
    #[arg(long, value_name = "FLAGS", allow_hyphen_values = true)]
    storm_jvm_opts: Option<String>,
    /// Profile Egret over each run's window: a flame graph of its stream managers (Linux perf, DWARF stacks) and a JDK Flight Recorder recording of its busiest instance JVM (jcmd), saved in the run's directory and listed in the report
    #[arg(long)]
    profile: bool,
    /// Measure only what TLS costs a topology link: the same framed batches over a TLS and a plain loopback connection, alternating --rounds times (no Storm, no topology)
    #[arg(long)]
    tls_cost: bool,
    /// MiB moved per link and run with --tls-cost
    #[arg(long, default_value_t = 1024, value_name = "MIB")]
    tls_cost_mib: u64,
    /// Sentences in the input topic of --workload kafka (every run reads it from its start)
    #[arg(long, default_value_t = 2_000_000, value_name = "N")]
    kafka_records: u64,
    /// Arguments to main() (after --; default: the workload's; with --workload kafka, added to its options)
    #[arg(last = true, value_name = "ARGS")]
    args: Vec<String>,
}

fn m2_repository() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/root"))
        .join(".m2/repository")
}

/// Runs `egret bench`; `conf` are the global `-c` options, `java` Egret's `egret.java`.
pub fn run(args: BenchArgs, conf: Vec<String>, java: String) -> anyhow::Result<()> {
    if args.tls_cost {
        return tls_cost(&args);
    }
    let rates = if args.rate.is_empty() {
        None
    } else {
        Some(egret_bench::rate::parse_rates(&args.rate).map_err(anyhow::Error::msg)?)
    };
    let workload_name = args.workload.clone().unwrap_or_else(|| {
        if rates.is_some() {
            "rate"
        } else {
            "const-id-null"
        }
        .to_owned()
    });
    let workload = Workload::parse(&workload_name).with_context(|| {
        format!(
            "unknown workload '{workload_name}' (const-null, const-id-null, wordcount, kafka, rate, custom)"
        )
    })?;
    match (workload, &rates) {
        (Workload::Rate, None) => bail!("--workload rate needs --rate R[,R2...]"),
        (Workload::Rate, Some(_)) | (_, None) => {}
        (other, Some(_)) => bail!(
            "--rate runs the bench's fixed-rate topology; it cannot be combined with --workload {}",
            other.name()
        ),
    }
    if args.duration == 0 || args.rounds == 0 {
        bail!("--duration and --rounds must be at least 1");
    }
    if args.guarantees
        && (rates.is_some()
            || args.workload.is_some()
            || args.jar.is_some()
            || args.main_class.is_some()
            || args.graphite_sinks
            || args.ceiling
            || args.profile
            || !args.bridge.is_empty())
    {
        bail!(
            "--guarantees runs its own workload and systems on Egret: it cannot be combined with --rate, --workload, --jar, --main, --graphite-sinks, --ceiling, --profile or --bridge"
        );
    }
    if !args.modes.is_empty() && !args.guarantees {
        bail!("--modes picks among the modes of --guarantees: give --guarantees too");
    }
    let guarantee_modes = if args.guarantees {
        egret_bench::guarantees::select(&args.modes).map_err(anyhow::Error::msg)?
    } else {
        Vec::new()
    };
    let systems = if args.guarantees {
        guarantee_modes
            .iter()
            .map(|m| m.system.to_owned())
            .collect()
    } else {
        let systems = egret_bench::sinks::systems(&args.systems, args.ceiling, args.graphite_sinks)
            .map_err(anyhow::Error::msg)?;
        egret_bench::bridges::apply(systems, &args.bridge).map_err(anyhow::Error::msg)?
    };
    let systems: Vec<&str> = systems.iter().map(String::as_str).collect();
    let workload_name = if args.guarantees {
        "guarantees (stateful count)"
    } else {
        workload.name()
    };
    let jni_options = egret_bench::bridges::options();
    // `egret-sinks`: a port that accepts and never reads and one nothing
    // listens on, for the whole bench.
    let sink_options = if systems.contains(&egret_bench::sinks::SYSTEM) {
        let stalled = egret_bench::sinks::StalledSink::bind()
            .context("cannot listen for the stalled Graphite sink")?;
        let dead = egret_bench::sinks::dead_address()
            .context("cannot pick a port for the dead Graphite sink")?;
        let options = egret_bench::sinks::options(stalled.addr(), dead);
        println!(
            "egret-sinks: Graphite sinks at {} (accepts, never reads) and {dead} (nothing listens)",
            stalled.addr()
        );
        Some((stalled, options))
    } else {
        None
    };
    let executable = std::env::current_exe().context("cannot find the egret executable")?;
    // Egret runs as the executable given, else as this one: `target/release/egret
    // bench` measures a release Egret, `target/debug/egret bench` a debug one.
    let (egret, egret_build) = match &args.egret {
        Some(path) => {
            let path = absolute(path)?;
            let build = format!("{}", path.display());
            (path, build)
        }
        None => {
            let profile = if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            };
            let build = format!("{} ({profile} build)", executable.display());
            (executable.clone(), build)
        }
    };
    if args.egret.is_none() && cfg!(debug_assertions) && systems.contains(&"egret") {
        eprintln!(
            "warning: this egret is a debug build, and Egret's stream managers and topology master run as it: \
             its figures are far below a release build's. Use target/release/egret bench \
             (cargo build --release -p egret) or --egret target/release/egret."
        );
    }
    let storm_side = match args.storm_side {
        Some(dir) => dir,
        None => plan::find_storm_side_target(&executable).context(
            "bench/storm-side is not built (no target/egret-bench-storm-side.jar found above the egret executable): run ./egret-dev build, or pass --storm-side DIR",
        )?,
    };
    let hook_jar = absolute(&storm_side.join(plan::HOOK_JAR_NAME))?;
    let classpath_file = storm_side.join(plan::STORM_CLASSPATH_NAME);
    let storm_classpath = std::fs::read_to_string(&classpath_file)
        .with_context(|| {
            format!(
                "cannot read the Storm classpath {}",
                classpath_file.display()
            )
        })?
        .trim()
        .to_owned();

    let work_dir = match args.work_dir {
        Some(dir) => dir,
        None => tempfile::Builder::new()
            .prefix("egret-bench-")
            .tempdir_in("/tmp")
            .context("cannot create the work directory")?
            .keep(),
    };
    std::fs::create_dir_all(&work_dir)
        .with_context(|| format!("cannot create {}", work_dir.display()))?;
    let work_dir = absolute(&work_dir)?;

    let jar = match (&args.jar, workload.default_jar(&m2_repository())) {
        _ if args.guarantees => hook_jar.clone(),
        (Some(jar), _) => jar.clone(),
        (None, Some(jar)) => std::env::var_os("EGRET_STORM_PERF_JAR")
            .map(PathBuf::from)
            .unwrap_or(jar),
        (None, None) if workload == Workload::Kafka => {
            kafka::find_above(&executable, kafka::CONNECTORS_JAR).with_context(|| {
                format!(
                    "{} not found above the egret executable: run ./egret-dev build, or pass --jar",
                    kafka::CONNECTORS_JAR
                )
            })?
        }
        (None, None) if workload == Workload::Rate => hook_jar.clone(),
        (None, None) => bail!("--workload custom needs --jar"),
    };
    let jar =
        absolute(&jar).with_context(|| format!("the jar {} does not exist", jar.display()))?;
    let main_class = match (&args.main_class, workload.main_class()) {
        _ if args.guarantees => egret_bench::guarantees::MAIN_CLASS.to_owned(),
        (Some(m), _) => m.clone(),
        (None, Some(m)) => m.to_owned(),
        (None, None) => bail!("--workload custom needs --main"),
    };
    let warmup = Duration::from_secs(args.warmup);
    let duration = Duration::from_secs(args.duration);
    let main_args = if workload == Workload::Kafka || workload == Workload::Rate || args.guarantees
    {
        // Replaced per run (kafka::run_args, rate::main_args), the user's last.
        args.args.clone()
    } else if args.args.is_empty() {
        let words = work_dir.join("words.txt");
        if workload == Workload::WordCount {
            plan::write_words_file(&words)
                .with_context(|| format!("cannot write {}", words.display()))?;
        }
        workload.default_args(warmup + duration, &words)
    } else {
        args.args.clone()
    };
    let mut topology_conf = conf;
    if let Some(workers) = args.workers {
        topology_conf.push(format!("topology.workers={workers}"));
    }
    let plan = Plan {
        jar: jar.clone(),
        main_class: main_class.clone(),
        main_args,
        conf: topology_conf,
        hook_jar,
        storm_classpath,
        java: PathBuf::from(java),
        storm_jvm_opts: args
            .storm_jvm_opts
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_owned)
            .collect(),
        egret,
        work_dir: work_dir.clone(),
    };
    let timing = Timing {
        warmup,
        duration,
        startup_timeout: Duration::from_secs(args.startup_timeout),
    };
    println!(
        "egret bench: {} ({} {}), {} s warm-up + {} s per run, {} round(s) of {}; egret: {}; work dir {}",
        workload_name,
        jar.display(),
        main_class,
        args.warmup,
        args.duration,
        args.rounds,
        systems.join(", "),
        egret_build,
        work_dir.display()
    );
    let kafka_session = if workload == Workload::Kafka {
        let find = |relative: &str| {
            kafka::find_above(&executable, relative).with_context(|| {
                format!("{relative} not found above the egret executable: run ./egret-dev build")
            })
        };
        let dir = work_dir.join("kafka");
        println!(
            "Kafka: starting a broker and filling topic {} with {} sentences ({}) ...",
            kafka::INPUT_TOPIC,
            args.kafka_records,
            dir.display()
        );
        let session = kafka::Session::prepare(
            &plan.java,
            &find(kafka::CLASSPATH_FILE)?,
            &find(kafka::TOOL_JAR)?,
            &dir,
            args.kafka_records,
        )?;
        Some(session)
    } else {
        None
    };
    let mut kafka_figures: Vec<(String, u32, kafka::RunFigures)> = Vec::new();
    let mut results = Vec::new();
    let mut rate_points: Vec<egret_bench::rate::RatePoint> = Vec::new();
    let mut recoveries: Vec<(String, u32, Result<f64, String>)> = Vec::new();
    let mut profiles: Vec<(String, u32, Option<u64>, egret_bench::profile::Profile)> = Vec::new();
    let mut failures = Vec::new();
    // Without --rate, one pass; with it, one pass per rate, each in its own directory.
    let passes: Vec<Option<u64>> = match &rates {
        Some(rates) => rates.iter().copied().map(Some).collect(),
        None => vec![None],
    };
    for (rate, (system, round)) in passes.iter().flat_map(|rate| {
        plan::schedule(&systems, args.rounds)
            .into_iter()
            .map(move |run| (*rate, run))
    }) {
        let kafka_run = match &kafka_session {
            Some(session) => match session.begin_run(&system, round, &args.args) {
                Ok(run) => Some(run),
                Err(e) => {
                    eprintln!("error: {system} round {round}: {e}");
                    failures.push(format!("{system} round {round}"));
                    continue;
                }
            },
            None => None,
        };
        let mut plan = plan.clone();
        if let Some(run) = &kafka_run {
            plan.main_args = run.args.clone();
        }
        if let Some(rate) = rate {
            plan.main_args = egret_bench::rate::main_args(rate, &args.args);
            plan.work_dir = work_dir.join(format!("rate-{rate}"));
        }
        let launch = match system.as_str() {
            "storm" if args.storm_mode == "cluster" => {
                match plan.storm_cluster(round, args.workers) {
                    Ok(launch) => launch,
                    Err(e) => {
                        eprintln!("error: storm round {round}: {e}");
                        failures.push(format!("storm round {round}"));
                        continue;
                    }
                }
            }
            "storm" => plan.storm(round),
            "ceiling" => plan.ceiling(round),
            egret_bench::sinks::SYSTEM => plan.egret_as(
                egret_bench::sinks::SYSTEM,
                round,
                sink_options.as_ref().map_or(&[][..], |(_, o)| o),
            ),
            egret_bench::bridges::JNI_SYSTEM => {
                plan.egret_as(egret_bench::bridges::JNI_SYSTEM, round, &jni_options)
            }
            egret_bench::batching::TIMER_SYSTEM => plan.egret_as(
                egret_bench::batching::TIMER_SYSTEM,
                round,
                &egret_bench::batching::options(),
            ),
            other => match egret_bench::guarantees::find(other) {
                Some(mode) => plan.egret_as(mode.system, round, &mode.options),
                None => plan.egret(round),
            },
        };
        match rate {
            Some(rate) => println!("rate {rate}/s, round {round}: {system} ..."),
            None => println!("round {round}: {system} ..."),
        }
        let mut profiler = Profiler {
            enabled: args.profile && system.starts_with("egret"),
            dir: launch.cwd.clone(),
            jcmd: egret_bench::profile::jcmd_beside(&plan.java),
            title: format!("{system} stream managers, {} round {round}", workload_name),
            primed: egret_bench::profile::Primed::default(),
            recorders: None,
            profile: None,
        };
        let measured = if args.guarantees {
            let mut probe = egret_bench::guarantees::RecoveryProbe::new(launch.output_dir.clone());
            let measured = runner::run_observed(&launch, &timing, round, &mut probe);
            if let Some(recovery) = probe.recovery.take() {
                match &recovery {
                    Ok(secs) => println!("  {system}: recovered {secs:.1} s after kill -9"),
                    Err(e) => println!("  {system}: recovery not measured: {e}"),
                }
                recoveries.push((system.clone(), round, recovery));
            }
            measured
        } else {
            runner::run_observed(&launch, &timing, round, &mut profiler)
        };
        if let Some(profile) = profiler.profile.take() {
            for path in profile.flamegraph.iter().chain(&profile.jfr) {
                println!("  {system}: profile {}", path.display());
            }
            for note in &profile.notes {
                println!("  {system}: profile: {note}");
            }
            profiles.push((system.clone(), round, rate, profile));
        }
        if let (Some(session), Some(run)) = (&kafka_session, kafka_run) {
            let (start, end) = match &measured {
                Ok((_, times)) => (times.start_unix_ms, times.end_unix_ms),
                Err(_) => (0, 0),
            };
            match session.finish_run(run, start, end) {
                Ok(figures) => {
                    if figures.input_exhausted {
                        println!(
                            "  {system}: the run consumed the whole input topic: its window may include idle time; raise --kafka-records"
                        );
                    }
                    kafka_figures.push((system.clone(), round, figures));
                }
                Err(e) => eprintln!("error: {system} round {round}: Kafka's offsets: {e}"),
            }
        }
        match measured.map(|(r, _)| r) {
            Ok(r) => {
                if !r.hook_reported {
                    println!(
                        "  {system}: no task reported through topology.auto.task.hooks; only CPU and memory were measured"
                    );
                }
                if let Some(rate) = rate {
                    rate_points.push(egret_bench::rate::RatePoint {
                        rate,
                        result: r.clone(),
                    });
                }
                results.push(r);
            }
            Err(e) => {
                eprintln!("error: {system} round {round}: {e}");
                failures.push(format!("{system} round {round}"));
            }
        }
    }
    println!();
    if args.guarantees {
        for mode in &guarantee_modes {
            println!("{}: {}", mode.system, mode.what);
        }
        println!("{}", egret_bench::guarantees::table(&recoveries));
    }
    if rates.is_some() {
        print!("{}", egret_bench::rate::table(&rate_points));
    } else {
        print!("{}", report::table(&results));
    }
    if kafka_session.is_some() {
        println!("\nKafka output records/s (the output topic's end offsets over each window):");
        print!("{}", kafka_table(&kafka_figures));
    }
    if let Some(dir) = &args.report {
        let meta = Meta {
            workload: workload_name.to_owned(),
            jar: jar.display().to_string(),
            main_class,
            warmup_secs: args.warmup,
            duration_secs: args.duration,
            rounds: args.rounds,
            egret: egret_build.clone(),
        };
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let md = dir.join("report.md");
        let (text, svg, chart) = match &rates {
            Some(_) => (
                egret_bench::rate::markdown(&meta, &rate_points),
                dir.join("latency-vs-rate.svg"),
                egret_bench::rate::svg(&meta, &rate_points),
            ),
            None => (
                report::markdown(&meta, &results),
                dir.join("chart.svg"),
                report::svg(&meta, &results),
            ),
        };
        let text = text + &profile_section(&profiles);
        std::fs::write(&md, text).with_context(|| format!("cannot write {}", md.display()))?;
        std::fs::write(&svg, chart).with_context(|| format!("cannot write {}", svg.display()))?;
        println!("\nReport: {} and {}", md.display(), svg.display());
    }
    println!("Logs and hook files: {}", work_dir.display());
    if !failures.is_empty() {
        bail!("{} run(s) failed: {}", failures.len(), failures.join(", "));
    }
    Ok(())
}

/// `--profile`'s recorders over one run's window.
struct Profiler {
    enabled: bool,
    dir: PathBuf,
    jcmd: PathBuf,
    title: String,
    /// What readying the flight recorders in the warm-up did.
    primed: egret_bench::profile::Primed,
    recorders: Option<egret_bench::profile::Recorders>,
    profile: Option<egret_bench::profile::Profile>,
}

impl runner::WindowObserver for Profiler {
    fn warmup_started(&mut self, live_pids: &[i32]) {
        if self.enabled {
            self.primed = egret_bench::profile::prime_flight_recorders(&self.jcmd, live_pids);
        }
    }

    fn window_started(&mut self, live_pids: &[i32]) {
        if self.enabled {
            let recorders =
                egret_bench::profile::Recorders::start(&self.dir, &self.jcmd, live_pids);
            if let Some(pid) = recorders.recorded_jvm()
                && !self.primed.jvms.contains(&pid)
            {
                self.primed.notes.push(format!(
                    "JVM {pid} was not readied: its recording starts while its discarded compiled code is compiled again"
                ));
            }
            self.recorders = Some(recorders);
        }
    }

    fn window_ended(&mut self) {
        if let Some(recorders) = self.recorders.take() {
            let mut profile = recorders.finish(&self.title);
            let warmup = std::mem::take(&mut self.primed.notes)
                .into_iter()
                .map(|n| format!("warm-up: {n}"));
            profile.notes = warmup.chain(profile.notes).collect();
            self.profile = Some(profile);
        }
    }
}

/// The report's list of `--profile` files (empty without profiles).
fn profile_section(
    profiles: &[(String, u32, Option<u64>, egret_bench::profile::Profile)],
) -> String {
    if profiles.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n## Profiles (`--profile`)\n\nFlame graphs of the stream managers (perf, DWARF stacks, 199 Hz) and JFR recordings of the busiest instance JVM (`jcmd JFR.start settings=profile`), over each window:\n\n",
    );
    for (system, round, rate, p) in profiles {
        let run = match rate {
            Some(rate) => format!("{system} round {round} at {rate}/s"),
            None => format!("{system} round {round}"),
        };
        let files: Vec<String> = p
            .flamegraph
            .iter()
            .chain(&p.jfr)
            .map(|f| format!("`{}`", f.display()))
            .chain(p.notes.iter().map(|n| format!("({n})")))
            .collect();
        out.push_str(&format!("- {run}: {}\n", files.join(", ")));
    }
    out
}

/// One line per run and a median per system of `--workload kafka`'s records/s.
fn kafka_table(figures: &[(String, u32, kafka::RunFigures)]) -> String {
    let mut out = String::new();
    let mut systems: Vec<&str> = Vec::new();
    for (system, round, f) in figures {
        if !systems.contains(&system.as_str()) {
            systems.push(system);
        }
        let rate = f
            .records_per_sec
            .map_or_else(|| "-".to_owned(), |r| format!("{r:.0}"));
        out.push_str(&format!("  {system:<8} round {round:<3} {rate:>10}\n"));
    }
    for system in systems {
        let rates: Vec<f64> = figures
            .iter()
            .filter(|(s, _, _)| s == system)
            .filter_map(|(_, _, f)| f.records_per_sec)
            .collect();
        let median = report::median(rates).map_or_else(|| "-".to_owned(), |r| format!("{r:.0}"));
        out.push_str(&format!("  {system:<8} median    {median:>10}\n"));
    }
    out
}

/// `--tls-cost`: prints the runs and the TLS / plain ratios.
fn tls_cost(args: &BenchArgs) -> anyhow::Result<()> {
    if args.rounds == 0 || args.tls_cost_mib == 0 {
        bail!("--rounds and --tls-cost-mib must be at least 1");
    }
    if cfg!(debug_assertions) {
        eprintln!(
            "warning: a debug build measures unoptimised TLS and framing; use target/release/egret"
        );
    }
    let options = egret_bench::tls_cost::TlsCostOptions {
        bytes_per_run: args.tls_cost_mib << 20,
        rounds: args.rounds,
        ..Default::default()
    };
    println!(
        "egret bench --tls-cost: {} MiB per run, {} rounds of plain then TLS, loopback",
        args.tls_cost_mib, args.rounds
    );
    let cost = egret_bench::tls_cost::measure(options)?;
    print!("{}", cost.render());
    Ok(())
}

fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    std::fs::canonicalize(path).with_context(|| format!("{} does not exist", path.display()))
}
