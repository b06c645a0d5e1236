//! What `egret bench` runs: the workload presets, each system's command line,
//! and the alternation of rounds.
//!
//! Invariants:
//! - every system gets the same jar, main class, main arguments and topology
//!   config (the hook, its output dir, `topology.stats.sample.rate: 1.0` so
//!   every ack carries a complete latency, `topology.workers` when given, and
//!   the user's `--conf` options);
//! - Storm runs as `storm local` does: `java -cp <storm>:<hook>:<jar>
//!   -Dstorm.jar=<jar> -Dstorm.options=<conf> org.apache.storm.LocalCluster
//!   <main> <args>`; Egret as `egret local <jar> <main> <args>` with the same
//!   options as `-c` and the hook jar in `egret.instance.classpath.extra`, in a
//!   private `EGRET_HOME`; the ceiling as Storm but with
//!   `dev.egret.bench.CeilingRunner` in place of `LocalCluster` (same JVM
//!   flags and classpath);
//! - rounds alternate the systems in order: Storm, Egret[, ceiling], Storm, ...

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::BenchError;
use crate::cluster;
use crate::runner::Launch;

/// The hook class, as `topology.auto.task.hooks` names it.
pub const HOOK_CLASS: &str = "dev.egret.bench.LatencyHook";
/// The config key of the hook's output directory.
pub const OUTPUT_DIR_KEY: &str = "egret.bench.output.dir";
/// Egret's config key for jars added to every instance JVM's classpath.
pub const CLASSPATH_EXTRA_KEY: &str = "egret.instance.classpath.extra";
/// `storm local`'s launcher: runs a main under an in-process local cluster.
const STORM_LOCAL_MAIN: &str = "org.apache.storm.LocalCluster";
/// The ceiling's launcher, in the hook jar (bench/storm-side).
pub const CEILING_MAIN: &str = "dev.egret.bench.CeilingRunner";
/// Long enough that neither system's local mode ends by itself before we stop it.
const KEEP_ALIVE_SECS: u64 = 24 * 3600;

/// A built-in workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// storm-perf's ConstSpoutNullBoltTopo (acking off: sink executes).
    ConstNull,
    /// storm-perf's ConstSpoutIdBoltNullBoltTopo (acking on).
    ConstIdNull,
    /// storm-perf's FileReadWordCountTopo (pure Java: FileReadSpout over a
    /// generated text file, a splitter, fields grouping to a counter).
    WordCount,
    /// Kafka in, split and count, Kafka out: `KafkaWordCountTopology` of the
    /// connector topologies' jar against a broker the bench starts
    /// ([`crate::kafka`]); its main arguments are per run.
    Kafka,
    /// `--rate`: the bench's own fixed-rate topology
    /// ([`crate::rate::MAIN`], in the hook jar), its rate per run.
    Rate,
    /// `--jar`, `--main` and the arguments after `--`.
    Custom,
}

impl Workload {
    pub fn parse(name: &str) -> Option<Workload> {
        match name {
            "const-null" => Some(Workload::ConstNull),
            "const-id-null" => Some(Workload::ConstIdNull),
            "wordcount" => Some(Workload::WordCount),
            "kafka" => Some(Workload::Kafka),
            "rate" => Some(Workload::Rate),
            "custom" => Some(Workload::Custom),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Workload::ConstNull => "const-null",
            Workload::ConstIdNull => "const-id-null",
            Workload::WordCount => "wordcount",
            Workload::Kafka => "kafka",
            Workload::Rate => "rate",
            Workload::Custom => "custom",
        }
    }

    /// The main class of a preset.
    pub fn main_class(self) -> Option<&'static str> {
        match self {
            Workload::ConstNull => Some("org.apache.storm.perf.ConstSpoutNullBoltTopo"),
            Workload::ConstIdNull => Some("org.apache.storm.perf.ConstSpoutIdBoltNullBoltTopo"),
            Workload::WordCount => Some("org.apache.storm.perf.FileReadWordCountTopo"),
            Workload::Kafka => Some(crate::kafka::WORDCOUNT_MAIN),
            Workload::Rate => Some(crate::rate::MAIN),
            Workload::Custom => None,
        }
    }

    /// The jar of a preset in the local Maven repository `m2` (the Kafka
    /// workload's is the workspace's, [`crate::kafka::CONNECTORS_JAR`]).
    pub fn default_jar(self, m2: &Path) -> Option<PathBuf> {
        let storm = m2.join("org/apache/storm");
        match self {
            Workload::ConstNull | Workload::ConstIdNull | Workload::WordCount => {
                Some(storm.join("storm-perf/2.6.0/storm-perf-2.6.0.jar"))
            }
            Workload::Kafka | Workload::Rate | Workload::Custom => None,
        }
    }

    /// The main() arguments of a preset for a run of `total` (warm-up + duration);
    /// `words` is the input file of the word count (see [`write_words_file`]),
    /// whose main takes `runTime confFile`: the config file, `words` with the
    /// extension `yaml`, names the input file.
    /// storm-perf's mains take a run time and kill their topology after it (they
    /// sample once per 60 s): give them more than the run so that we end it.
    pub fn default_args(self, total: Duration, words: &Path) -> Vec<String> {
        let run_time = (total.as_secs() + 3600).to_string();
        match self {
            Workload::ConstNull | Workload::ConstIdNull => vec![run_time],
            Workload::WordCount => {
                vec![run_time, words.with_extension("yaml").display().to_string()]
            }
            // Per run: crate::kafka::run_args, crate::rate::main_args.
            Workload::Kafka | Workload::Rate | Workload::Custom => Vec::new(),
        }
    }
}

/// The word count's input: 10 000 lines of words drawn deterministically from a
/// fixed vocabulary (WordGenSpout reads it whole and cycles over its words), and
/// beside it (extension `yaml`) the config file its main requires.
pub fn write_words_file(path: &Path) -> std::io::Result<()> {
    std::fs::write(
        path.with_extension("yaml"),
        format!(
            "# egret bench: FileReadWordCountTopo's config file\ninput.file: \"{}\"\n",
            path.display()
        ),
    )?;
    const VOCABULARY: [&str; 20] = [
        "the", "cow", "jumped", "over", "moon", "an", "apple", "a", "day", "keeps", "doctor",
        "away", "four", "score", "and", "seven", "years", "ago", "snow", "white",
    ];
    let mut text = String::new();
    let mut state: u32 = 12_345;
    for _ in 0..10_000 {
        for i in 0..8 {
            // A small LCG: the same file every time, so runs are comparable.
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            if i > 0 {
                text.push(' ');
            }
            text.push_str(VOCABULARY[(state >> 16) as usize % VOCABULARY.len()]);
        }
        text.push('\n');
    }
    std::fs::write(path, text)
}

/// Everything both systems' command lines need.
#[derive(Debug, Clone)]
pub struct Plan {
    pub jar: PathBuf,
    pub main_class: String,
    pub main_args: Vec<String>,
    /// `key=value` topology options for both systems (user's and `topology.workers`).
    pub conf: Vec<String>,
    pub hook_jar: PathBuf,
    /// The Storm runtime classpath (storm-server and its dependencies).
    pub storm_classpath: String,
    pub java: PathBuf,
    /// Extra JVM flags for Storm's JVM.
    pub storm_jvm_opts: Vec<String>,
    pub egret: PathBuf,
    /// Where each run's logs, hook files and `EGRET_HOME` go.
    pub work_dir: PathBuf,
}

impl Plan {
    /// The topology options of a run writing to `output_dir`.
    pub fn topology_options(&self, output_dir: &Path) -> Vec<String> {
        let mut options = vec![
            format!("topology.auto.task.hooks=[\"{HOOK_CLASS}\"]"),
            format!("{OUTPUT_DIR_KEY}={}", output_dir.display()),
            "topology.stats.sample.rate=1.0".to_owned(),
        ];
        options.extend(self.conf.iter().cloned());
        options
    }

    fn run_dir(&self, system: &str, round: u32) -> PathBuf {
        self.work_dir.join(format!("{system}-{round}"))
    }

    /// Real Storm as a cluster on loopback (`--storm-mode cluster`, see
    /// [`crate::cluster`]): ZooKeeper, Nimbus, a Supervisor with a slot per
    /// worker, the submitter run as `storm jar` runs it; `--storm-jvm-opts`
    /// become the workers' `topology.worker.childopts`. Prepares the run's
    /// `storm.home` and picks its ports now.
    pub fn storm_cluster(&self, round: u32, workers: Option<u32>) -> Result<Launch, BenchError> {
        let dir = self.run_dir("storm", round);
        let output_dir = dir.join("hook");
        let log_dir = dir.join("logs");
        let local_dir = dir.join("storm-local");
        let zookeeper_data = dir.join("zookeeper");
        // A previous run's state (same work dir) must not leak into this cluster.
        for d in [&log_dir, &local_dir, &zookeeper_data] {
            if d.exists() {
                std::fs::remove_dir_all(d).map_err(|e| BenchError::io(d, e))?;
            }
            std::fs::create_dir_all(d).map_err(|e| BenchError::io(d, e))?;
        }
        let ports = cluster::ClusterPorts::pick(cluster::slot_count(workers))
            .map_err(|e| BenchError::io(Path::new("127.0.0.1:0"), e))?;
        let mut yaml = cluster::storm_yaml(&ports, &local_dir, &log_dir);
        if !self.storm_jvm_opts.is_empty() {
            yaml.push_str(&format!(
                "topology.worker.childopts: {}\n",
                cluster::yaml_string(&self.storm_jvm_opts.join(" "))
            ));
        }
        let home = cluster::StormHome::create(
            &dir.join("storm-home"),
            &self.storm_classpath,
            &self.hook_jar,
            &yaml,
        )?;
        let mut submitter = vec![
            "-cp".to_owned(),
            format!(
                "{}:{}:{}",
                self.storm_classpath,
                self.hook_jar.display(),
                self.jar.display()
            ),
            format!("-Dstorm.jar={}", self.jar.display()),
            format!("-Dstorm.conf.file={}", home.conf_file().display()),
            format!(
                "-Dstorm.options={}",
                egret_config::storm_options(&self.topology_options(&output_dir))
            ),
            self.main_class.clone(),
        ];
        submitter.extend(self.main_args.iter().cloned());
        let script = cluster::ClusterScript {
            java: self.java.display().to_string(),
            zookeeper_classpath: cluster::zookeeper_classpath()?,
            zookeeper_data,
            storm_classpath: self.storm_classpath.clone(),
            home,
            ports,
            submitter,
            log_dir,
        };
        let script_path = dir.join("cluster.sh");
        std::fs::write(&script_path, script.render())
            .map_err(|e| BenchError::io(&script_path, e))?;
        Ok(Launch {
            system: "storm".into(),
            program: "bash".into(),
            args: vec![script_path.into()],
            env: Vec::new(),
            cwd: dir.clone(),
            log: dir.join("storm.log"),
            output_dir,
            // Everything is killed: the cluster's state is in the run directory.
            stop_grace: Duration::from_secs(1),
        })
    }

    /// Real Storm in local mode, as `storm local` runs it.
    pub fn storm(&self, round: u32) -> Launch {
        self.storm_client_jvm("storm", round, STORM_LOCAL_MAIN, Duration::from_secs(5))
    }

    /// The no-framework ceiling: the user's main under
    /// `dev.egret.bench.CeilingRunner`, which captures the submitted topology
    /// and calls its spouts and bolts directly in one thread (docs/bench.md).
    pub fn ceiling(&self, round: u32) -> Launch {
        // Nothing to shut down cleanly: the loop is killed where it stands.
        self.storm_client_jvm("ceiling", round, CEILING_MAIN, Duration::from_secs(1))
    }

    /// A JVM running `launcher <main> <args>` as `storm jar`/`storm local` set it
    /// up: Storm's classpath, the hook jar, the topology jar, `storm.jar` and
    /// `storm.options` (the topology config both other systems get).
    fn storm_client_jvm(
        &self,
        system: &str,
        round: u32,
        launcher: &str,
        stop_grace: Duration,
    ) -> Launch {
        let dir = self.run_dir(system, round);
        let output_dir = dir.join("hook");
        let mut args: Vec<OsString> = self.storm_jvm_opts.iter().map(Into::into).collect();
        args.push("-cp".into());
        args.push(
            format!(
                "{}:{}:{}",
                self.storm_classpath,
                self.hook_jar.display(),
                self.jar.display()
            )
            .into(),
        );
        args.push(format!("-Dstorm.jar={}", self.jar.display()).into());
        args.push(format!("-Dstorm.local.sleeptime={KEEP_ALIVE_SECS}").into());
        args.push(
            format!(
                "-Dstorm.options={}",
                egret_config::storm_options(&self.topology_options(&output_dir))
            )
            .into(),
        );
        args.push(launcher.into());
        args.push(self.main_class.clone().into());
        args.extend(self.main_args.iter().map(Into::into));
        Launch {
            system: system.into(),
            program: self.java.clone(),
            args,
            env: Vec::new(),
            cwd: dir.clone(),
            log: dir.join(format!("{system}.log")),
            output_dir,
            stop_grace,
        }
    }

    /// Egret in the foreground (`egret local`).
    pub fn egret(&self, round: u32) -> Launch {
        self.egret_as("egret", round, &[])
    }

    /// Egret as [`Plan::egret`], reported as `system`, with `extra` topology
    /// options after the others (`egret-sinks`: its Graphite sinks).
    pub fn egret_as(&self, system: &str, round: u32, extra: &[String]) -> Launch {
        let dir = self.run_dir(system, round);
        let output_dir = dir.join("hook");
        let mut args: Vec<OsString> = Vec::new();
        let mut options = self.topology_options(&output_dir);
        options.push(format!("{CLASSPATH_EXTRA_KEY}={}", self.hook_jar.display()));
        options.extend(extra.iter().cloned());
        for o in options {
            args.push("-c".into());
            args.push(o.into());
        }
        args.push("local".into());
        args.push("--local-ttl".into());
        args.push(KEEP_ALIVE_SECS.to_string().into());
        args.push(self.jar.clone().into());
        args.push(self.main_class.clone().into());
        args.extend(self.main_args.iter().map(Into::into));
        Launch {
            system: system.into(),
            program: self.egret.clone(),
            args,
            env: vec![("EGRET_HOME".into(), dir.join("egret-home").into())],
            cwd: dir.clone(),
            log: dir.join("egret.log"),
            output_dir,
            // `egret local` kills its topologies on SIGTERM.
            stop_grace: Duration::from_secs(20),
        }
    }
}

/// The built Maven project `bench/storm-side` (its `target/` directory holding
/// the hook jar and `storm-classpath.txt`): searched from the directory of the
/// `egret` executable upwards, as the shim jar is.
pub fn find_storm_side_target(executable: &Path) -> Option<PathBuf> {
    executable
        .parent()?
        .ancestors()
        .map(|dir| dir.join("bench").join("storm-side").join("target"))
        .find(|dir| dir.join(HOOK_JAR_NAME).is_file())
}

/// The hook jar's file name in `bench/storm-side/target`.
pub const HOOK_JAR_NAME: &str = "egret-bench-storm-side.jar";
/// The Storm classpath file's name in `bench/storm-side/target`.
pub const STORM_CLASSPATH_NAME: &str = "storm-classpath.txt";

/// The order of runs: (system, round), the systems in the given order in each round.
pub fn schedule(systems: &[&str], rounds: u32) -> Vec<(String, u32)> {
    (1..=rounds)
        .flat_map(|r| systems.iter().map(move |s| ((*s).to_owned(), r)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        Plan {
            jar: "/j/app.jar".into(),
            main_class: "com.M".into(),
            main_args: vec!["60".into()],
            conf: vec!["topology.workers=2".into()],
            hook_jar: "/h/hook.jar".into(),
            storm_classpath: "/s/a.jar:/s/b.jar".into(),
            java: "java".into(),
            storm_jvm_opts: vec!["-Xmx1g".into()],
            egret: "/bin/egret".into(),
            work_dir: "/w".into(),
        }
    }

    fn strings(args: &[OsString]) -> Vec<String> {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn storm_runs_as_storm_local_does() {
        let l = plan().storm(1);
        let args = strings(&l.args);
        assert_eq!(args[0], "-Xmx1g");
        assert_eq!(args[2], "/s/a.jar:/s/b.jar:/h/hook.jar:/j/app.jar");
        assert_eq!(args[3], "-Dstorm.jar=/j/app.jar");
        assert!(args[5].starts_with("-Dstorm.options=topology.auto.task.hooks%3D%5B%22dev.egret.bench.LatencyHook%22%5D,egret.bench.output.dir%3D%2Fw%2Fstorm-1%2Fhook,"), "{}", args[5]);
        assert!(args[5].ends_with(",topology.workers%3D2"));
        assert_eq!(&args[6..], ["org.apache.storm.LocalCluster", "com.M", "60"]);
        assert_eq!(l.output_dir, PathBuf::from("/w/storm-1/hook"));
    }

    #[test]
    fn egret_gets_the_same_options_and_the_hook_jar() {
        let l = plan().egret(2);
        let args = strings(&l.args);
        let conf: Vec<&str> = args
            .windows(2)
            .filter(|w| w[0] == "-c")
            .map(|w| w[1].as_str())
            .collect();
        assert_eq!(
            conf,
            [
                "topology.auto.task.hooks=[\"dev.egret.bench.LatencyHook\"]",
                "egret.bench.output.dir=/w/egret-2/hook",
                "topology.stats.sample.rate=1.0",
                "topology.workers=2",
                "egret.instance.classpath.extra=/h/hook.jar",
            ]
        );
        let local = args.iter().position(|a| a == "local").unwrap();
        assert_eq!(&args[local + 3..], ["/j/app.jar", "com.M", "60"]);
        assert_eq!(l.env[0].1, OsString::from("/w/egret-2/egret-home"));
    }

    #[test]
    fn the_ceiling_runs_the_same_main_under_the_ceiling_runner() {
        let (storm, ceiling) = (plan().storm(1), plan().ceiling(1));
        let (s, c) = (strings(&storm.args), strings(&ceiling.args));
        assert_eq!(ceiling.system, "ceiling");
        assert_eq!(ceiling.log, PathBuf::from("/w/ceiling-1/ceiling.log"));
        assert_eq!(ceiling.output_dir, PathBuf::from("/w/ceiling-1/hook"));
        // Same JVM flags, classpath, storm.jar; the same config but for its own hook dir.
        assert_eq!(s[..4], c[..4]);
        assert_eq!(
            c[5],
            s[5].replace("storm-1", "ceiling-1"),
            "the same topology config"
        );
        assert_eq!(&c[6..], ["dev.egret.bench.CeilingRunner", "com.M", "60"]);
    }

    #[test]
    fn rounds_alternate() {
        assert_eq!(
            schedule(&["storm", "egret"], 2),
            vec![
                ("storm".to_owned(), 1),
                ("egret".to_owned(), 1),
                ("storm".to_owned(), 2),
                ("egret".to_owned(), 2)
            ]
        );
        assert_eq!(
            Workload::parse("const-id-null"),
            Some(Workload::ConstIdNull)
        );
        assert_eq!(Workload::parse("x"), None);
        assert_eq!(Workload::parse("kafka"), Some(Workload::Kafka));
        assert_eq!(Workload::Kafka.name(), "kafka");
        assert_eq!(
            Workload::Kafka.main_class(),
            Some("dev.egret.connectors.KafkaWordCountTopology")
        );
        assert_eq!(Workload::Kafka.default_jar(Path::new("/m2")), None);
        assert_eq!(Workload::parse("rate"), Some(Workload::Rate));
        assert_eq!(
            Workload::Rate.main_class(),
            Some("dev.egret.bench.RateTopology")
        );
        assert_eq!(
            Workload::ConstNull.default_args(Duration::from_secs(40), Path::new("/w")),
            vec!["3640"]
        );
        assert_eq!(
            Workload::WordCount.default_args(Duration::from_secs(40), Path::new("/w/words.txt")),
            vec!["3640", "/w/words.yaml"]
        );
    }

    #[test]
    fn words_file_is_deterministic() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        write_words_file(&a).unwrap();
        write_words_file(&b).unwrap();
        let text = std::fs::read_to_string(&a).unwrap();
        assert_eq!(text, std::fs::read_to_string(&b).unwrap());
        assert_eq!(text.lines().count(), 10_000);
        assert!(text.lines().all(|l| l.split(' ').count() == 8));
        let yaml = std::fs::read_to_string(tmp.path().join("a.yaml")).unwrap();
        assert!(yaml.contains("input.file: \""), "{yaml}");
    }
}
