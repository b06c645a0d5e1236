//! `egret`: the user commands (`jar`, `local`, `list`, `kill`, `activate`,
//! `deactivate`, `metrics`) and the internal roles other egret processes start
//! (`scheduler`, `tmaster`, `container`, `stmgr`); see
//! docs/internals/contracts.md, "Processes".
//!
//! Invariants:
//! - every error ends the process with a one-line `error: ...` on stderr and a
//!   non-zero exit code;
//! - roles that supervise children (`scheduler`, `container`) and the
//!   submission commands run on a current-thread runtime on the main thread, so
//!   the children's parent-death signal fires only when this process exits.

mod bench;
mod checkpoints;
mod health;
mod hosts;
mod java_runtime;
mod kube;
mod log_level;
mod logs;
mod manage;
mod metrics;
mod monitor;
mod stats;
mod submit;
mod tail;
mod ui;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "egret",
    version,
    about = "Run unchanged Apache Storm topology jars on Egret's Rust data plane",
    long_about = "Run unchanged Apache Storm topology jars on Egret's Rust data plane.\n\n\
        Commands follow the `storm` command's habits: `egret jar app.jar com.acme.Main args..` \
        submits the topologies main() builds to the local cluster; `egret local` does the same in \
        the foreground, printing their logs while main() runs, and kills them --local-ttl seconds \
        after main() returns (as `storm local`)."
)]
struct Cli {
    #[command(flatten)]
    config: ConfigArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Args)]
struct ConfigArgs {
    /// Config file (storm.yaml style) [default: $EGRET_HOME/egret.yaml when it exists]
    #[arg(long, value_name = "FILE", global = true)]
    config: Option<PathBuf>,
    /// Set a config key (value parsed as YAML, else a string); repeatable
    #[arg(short = 'c', value_name = "KEY=VALUE", global = true)]
    conf: Vec<String>,
}

#[derive(Debug, Clone, Args)]
struct SubmitArgs {
    /// The topology jar (built against org.apache.storm:storm-client 2.x)
    #[arg(value_name = "JAR")]
    jar: PathBuf,
    /// The class whose main() builds and submits the topology
    #[arg(value_name = "MAIN_CLASS")]
    main_class: String,
    /// Arguments passed to main() (`-c key=value` among them are taken as config options, as `storm jar` does)
    #[arg(
        value_name = "ARGS",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    args: Vec<String>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a jar's main() and launch every topology it submits on the local cluster (detached), or on the cluster the config names
    Jar {
        #[command(flatten)]
        submit: SubmitArgs,
        /// What runs the topologies of a shared state manager: local (the hosts an operator runs) or kubernetes; the config key egret.scheduler
        #[arg(long, value_name = "NAME")]
        scheduler: Option<String>,
    },
    /// Kubernetes: `manifests JAR MAIN [ARGS]` prints the objects `egret jar --scheduler kubernetes` would create, as YAML
    #[command(subcommand)]
    Kubernetes(KubernetesCommand),
    /// Like `jar`, in the foreground: stream the topologies' logs while main() runs and for --local-ttl seconds after it returns, then kill them
    Local {
        #[command(flatten)]
        submit: SubmitArgs,
        /// Seconds to keep the topologies running after main() returns (as `storm local`); ends early once none is running
        #[arg(long, value_name = "SECS", default_value_t = submit::DEFAULT_LOCAL_TTL)]
        local_ttl: u64,
    },
    /// List the topologies of the local cluster
    List,
    /// Deactivate a topology, wait, then stop every process of it
    Kill {
        /// Topology name
        name: String,
        /// Seconds to wait between deactivation and shutdown
        #[arg(short = 'w', long = "wait", value_name = "SECS", default_value_t = 30)]
        wait: u32,
    },
    /// Change a running topology's executors per component and its workers, as Storm's rebalance: deactivate, wait, re-pack (task ids stay), restart on the new plan, re-activate
    Rebalance {
        /// Topology name
        name: String,
        /// Seconds to wait between deactivation and the new plan [default: the topology's topology.message.timeout.secs]
        #[arg(short = 'w', long = "wait", value_name = "SECS")]
        wait: Option<u32>,
        /// The new number of workers (topology.workers)
        #[arg(short = 'n', long = "num-workers", value_name = "WORKERS")]
        workers: Option<i64>,
        /// A component's new number of executors, at most its number of tasks; repeatable
        #[arg(short = 'e', long = "executors", value_name = "COMPONENT=PARALLELISM")]
        executors: Vec<String>,
    },
    /// Resume a topology's spouts
    Activate {
        /// Topology name
        name: String,
    },
    /// Stop a topology's spouts from calling nextTuple
    Deactivate {
        /// Topology name
        name: String,
    },
    /// Turn event logging on or off for a component, or for the whole topology (Storm UI's Debug button); the events go to the event logger (`topology.eventlogger.executors` above 0 at submission)
    Debug {
        /// Topology name
        name: String,
        /// Component id; without it, every component of the topology
        component: Option<String>,
        /// Start logging the component's emitted tuples
        #[arg(long, conflicts_with = "disable", required_unless_present = "disable")]
        enable: bool,
        /// Stop logging them
        #[arg(long)]
        disable: bool,
        /// Percentage of emitted tuples logged, 0 to 100
        #[arg(
            short = 's',
            long = "sampling-pct",
            value_name = "PCT",
            default_value_t = 100.0
        )]
        sampling_pct: f64,
    },
    /// Change log levels in every instance of a running topology without a restart, as `storm set_log_level` does; without -l or -r, print them
    #[command(name = "set_log_level", visible_alias = "set-log-level")]
    SetLogLevel {
        /// Topology name
        name: String,
        /// LOGGER=LEVEL[:TIMEOUT]: set the logger (and those below it; ROOT: every logger) to LEVEL (ALL, TRACE, DEBUG, INFO, WARN, ERROR, FATAL, OFF), for TIMEOUT seconds if given
        #[arg(short = 'l', value_name = "LOGGER=LEVEL[:TIMEOUT]")]
        set: Vec<String>,
        /// LOGGER: reset it now to the level it had before
        #[arg(short = 'r', value_name = "LOGGER")]
        reset: Vec<String>,
    },
    /// Print a topology's metrics (restarts, acked/failed/timed-out trees, complete latency, ledger)
    Metrics {
        /// Topology name
        name: String,
    },
    /// List a topology's complete checkpoints (id, time, tasks, bytes), newest first, from its checkpoint store on this host
    Checkpoints {
        /// Topology name
        name: String,
    },
    /// Print a topology's built-in statistics per component (exact counts, from its topology master)
    Stats {
        /// Topology name
        name: String,
        /// Storm's window: :all-time, 600, 10800 or 86400 (seconds)
        #[arg(long, default_value = ":all-time")]
        window: String,
    },
    /// Serve the web UI and its REST API (Egret's own and Storm UI's shape) over the local cluster's topologies
    Ui {
        /// Address to listen on (loopback by default)
        #[arg(long, value_name = "IP:PORT", default_value = egret_ui::DEFAULT_BIND)]
        bind: String,
        /// A file holding the token that enables kill, activate and deactivate (sent as 'Authorization: Bearer TOKEN'); without it they are refused
        #[arg(long, value_name = "FILE", env = egret_ui::auth::CREDENTIALS_ENV)]
        credentials_file: Option<PathBuf>,
    },
    /// Print a component's live throughput on one stream every interval, as `storm monitor` does
    Monitor {
        /// Topology name
        name: String,
        /// Seconds between rows
        #[arg(
            short = 'i',
            long = "interval",
            value_name = "SECS",
            default_value_t = 4
        )]
        interval: u64,
        /// Component id; without it, the topology's components are listed
        #[arg(short = 'm', long = "component", value_name = "COMPONENT")]
        component: Option<String>,
        /// Output stream id
        #[arg(
            short = 's',
            long = "stream",
            value_name = "STREAM",
            default_value = "default"
        )]
        stream: String,
        /// What is counted: emitted or transferred
        #[arg(
            short = 'w',
            long = "watch",
            value_name = "ITEM",
            default_value = "emitted"
        )]
        watch: String,
        /// Stop after this many rows [default: run until interrupted]
        #[arg(short = 'n', long = "rows", value_name = "N")]
        rows: Option<u64>,
    },
    /// Print a topology's log files (all, a component's instances, one instance, or a process such as tmaster or stmgr-1); -f follows them
    Logs {
        /// Topology name
        name: String,
        /// A component id, an instance id (count-1) or a process (tmaster, stmgr-N, container-N)
        #[arg(value_name = "COMPONENT|INSTANCE")]
        selector: Option<String>,
        /// Follow the files as they grow, until interrupted
        #[arg(short = 'f', long = "follow")]
        follow: bool,
    },
    /// Print Egret's version and the Storm API version it implements
    Version,
    /// Run one topology jar on Apache Storm and on Egret, alternating, and compare throughput, latency, CPU and memory
    Bench(Box<bench::BenchArgs>),
    /// (internal) Run a topology's scheduler
    #[command(hide = true)]
    Scheduler(RoleArgs),
    /// Run a topology master: on a host of a multi-host cluster
    /// `--topology NAME --credentials DIR --work-dir DIR [--bind IP --advertise IP]`
    /// (the state manager from the config); `--topology-dir DIR` when the local
    /// scheduler starts it
    Tmaster(MasterArgs),
    /// Run a container: on a host of a multi-host cluster
    /// `--topology NAME --index N --credentials DIR --work-dir DIR [--bind IP --advertise IP]`;
    /// `--topology-dir DIR --index N` when the local scheduler starts it
    Container(ContainerArgs),
    /// (internal) Run a stream manager
    #[command(hide = true)]
    Stmgr(StmgrArgs),
}

#[derive(Debug, Subcommand)]
enum KubernetesCommand {
    /// Run main() and print each submitted topology's Kubernetes objects (the Secret apart); nothing is stored or created
    Manifests(SubmitArgs),
}

#[derive(Debug, Clone, Args)]
struct MasterArgs {
    #[arg(long, value_name = "DIR", conflicts_with = "topology")]
    topology_dir: Option<PathBuf>,
    #[command(flatten)]
    host: hosts::HostArgs,
}

#[derive(Debug, Clone, Args)]
struct ContainerArgs {
    #[arg(long, value_name = "DIR", conflicts_with = "topology")]
    topology_dir: Option<PathBuf>,
    /// The container's index in the packing plan (1..=containers)
    #[arg(long, value_name = "N", required_unless_present = "ordinal")]
    index: Option<i32>,
    /// The pod's ordinal in its StatefulSet (0-based): the index is ordinal + 1
    #[arg(long, value_name = "N", conflicts_with_all = ["index", "topology_dir"])]
    ordinal: Option<u32>,
    /// With --topology-dir: the ZooKeeper servers its stream manager finds
    /// the master in (set by a host's `egret container --topology`).
    #[arg(long, value_name = "HOST:PORT,..", requires = "topology_dir")]
    zookeeper: Option<String>,
    #[arg(long, value_name = "PATH", requires = "zookeeper")]
    zookeeper_root: Option<String>,
    #[command(flatten)]
    host: hosts::HostArgs,
}

#[derive(Debug, Clone, Args)]
struct StmgrArgs {
    #[arg(long, value_name = "DIR")]
    topology_dir: PathBuf,
    #[arg(long, value_name = "N")]
    index: i32,
    /// The ZooKeeper servers where the topology master is registered (else
    /// the local state manager holding the topology directory).
    #[arg(long, value_name = "HOST:PORT,..")]
    zookeeper: Option<String>,
    #[arg(long, value_name = "PATH", requires = "zookeeper")]
    zookeeper_root: Option<String>,
    #[command(flatten)]
    network: hosts::NetworkArgs,
}

#[derive(Debug, Clone, Args)]
struct RoleArgs {
    #[arg(long, value_name = "DIR")]
    topology_dir: PathBuf,
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    use std::io::IsTerminal as _;
    // Log files (the roles' stderr) get plain text; a terminal gets colours.
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

fn current_thread_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn multi_thread_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// The Storm API the shim implements (its API check compares it with this
/// storm-client release).
const STORM_API_VERSION: &str = "2.8.3";

/// What `egret version` prints.
fn version_text() -> String {
    format!(
        "Egret {}\nStorm API {STORM_API_VERSION} (org.apache.storm:storm-client, binary compatible)\n",
        env!("CARGO_PKG_VERSION")
    )
}

fn executable() -> anyhow::Result<PathBuf> {
    std::env::current_exe().context("cannot find the path of the egret executable")
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let Cli { config, command } = cli;
    match command {
        Command::Jar {
            submit: args,
            scheduler,
        } => {
            let (args, mut conf, _) = submit::split_trailing_options(args, config.conf, false)?;
            if let Some(name) = scheduler {
                conf.push(format!("{}={name}", egret_scheduler::cluster::SCHEDULER));
            }
            current_thread_runtime()?.block_on(submit::jar(config.config, conf, args))?;
        }
        Command::Kubernetes(KubernetesCommand::Manifests(args)) => {
            let (args, conf, _) = submit::split_trailing_options(args, config.conf, false)?;
            current_thread_runtime()?.block_on(submit::manifests(config.config, conf, args))?;
        }
        Command::Local {
            submit: args,
            local_ttl,
        } => {
            let (args, conf, ttl) = submit::split_trailing_options(args, config.conf, true)?;
            let ttl = ttl.unwrap_or(local_ttl);
            current_thread_runtime()?.block_on(submit::local(config.config, conf, args, ttl))?;
        }
        Command::List => {
            let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
            current_thread_runtime()?.block_on(manage::list(&cfg))?;
        }
        Command::Kill { name, wait } => {
            let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
            current_thread_runtime()?.block_on(manage::kill(&cfg, &name, wait))?;
            println!("Killed topology '{name}'.");
        }
        Command::Rebalance {
            name,
            wait,
            workers,
            executors,
        } => {
            let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
            let told = current_thread_runtime()?
                .block_on(manage::rebalance(&cfg, &name, wait, workers, &executors))?;
            println!("{told}");
        }
        Command::Activate { name } => {
            let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
            current_thread_runtime()?.block_on(manage::set_active(&cfg, &name, true))?;
            println!("Activated topology '{name}'.");
        }
        Command::Deactivate { name } => {
            let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
            current_thread_runtime()?.block_on(manage::set_active(&cfg, &name, false))?;
            println!("Deactivated topology '{name}'.");
        }
        Command::SetLogLevel { name, set, reset } => {
            let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
            current_thread_runtime()?.block_on(log_level::run(&cfg, &name, &set, &reset))?;
        }
        Command::Debug {
            name,
            component,
            enable,
            disable: _,
            sampling_pct,
        } => {
            let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
            let component = component.unwrap_or_default();
            current_thread_runtime()?.block_on(manage::debug(
                &cfg,
                &name,
                &component,
                enable,
                sampling_pct,
            ))?;
            let target = if component.is_empty() {
                format!("topology '{name}'")
            } else {
                format!("component '{component}' of topology '{name}'")
            };
            if enable {
                println!("Event logging on for {target} ({sampling_pct}% of emitted tuples).");
            } else {
                println!("Event logging off for {target}.");
            }
        }
        Command::Checkpoints { name } => {
            let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
            print!("{}", checkpoints::render(&manage::cluster(&cfg)?, &name)?);
        }
        Command::Metrics { name } => {
            let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
            let cluster = manage::cluster(&cfg)?;
            let shown = current_thread_runtime()?.block_on(async {
                match hosts::cluster_of(&cfg).await? {
                    Some(state) => metrics::render_cluster(&state, &cfg, &name).await,
                    None => metrics::render(&cluster, &name),
                }
            })?;
            println!("{shown}");
        }
        Command::Stats { name, window } => {
            let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
            let cluster = manage::cluster(&cfg)?;
            let shown = current_thread_runtime()?.block_on(async {
                match hosts::cluster_of(&cfg).await? {
                    Some(state) => stats::show_cluster(&state, &cfg, &name, &window).await,
                    None => stats::show(&cluster, &name, &window).await,
                }
            })?;
            println!("{shown}");
        }
        Command::Ui {
            bind,
            credentials_file,
        } => {
            let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
            multi_thread_runtime()?.block_on(ui::run(&cfg, &bind, credentials_file))?;
        }
        Command::Monitor {
            name,
            interval,
            component,
            stream,
            watch,
            rows,
        } => {
            let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
            let options = monitor::MonitorOptions {
                name,
                interval: std::time::Duration::from_secs(interval),
                component,
                stream,
                watch: monitor::Watch::parse(&watch)?,
                rows,
            };
            current_thread_runtime()?.block_on(monitor::run(&cfg, &options))?;
        }
        Command::Logs {
            name,
            selector,
            follow,
        } => {
            let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
            current_thread_runtime()?.block_on(logs::run(
                &cfg,
                &name,
                selector.as_deref(),
                follow,
            ))?;
        }
        Command::Version => print!("{}", version_text()),
        Command::Bench(args) => {
            let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
            let java = cfg.get_str(egret_config::JAVA).unwrap_or("java").to_owned();
            bench::run(*args, cfg.raw_options, java)?;
        }
        Command::Scheduler(role) => {
            let options = egret_scheduler::SchedulerOptions {
                topology_dir: role.topology_dir,
                executable: executable()?,
            };
            current_thread_runtime()?
                .block_on(egret_scheduler::run(options))
                .context("scheduler failed")?;
        }
        Command::Container(role) => match role.topology_dir {
            Some(topology_dir) => {
                let index = role.index.context("--topology-dir needs --index N")?;
                let options = egret_container::ContainerOptions {
                    topology_dir,
                    index,
                    executable: executable()?,
                    stream_manager_args: hosts::stream_manager_args(
                        role.zookeeper.as_deref(),
                        role.zookeeper_root.as_deref(),
                        &role.host.network,
                    ),
                };
                current_thread_runtime()?
                    .block_on(egret_container::run(options))
                    .with_context(|| format!("container {index} failed"))?;
            }
            None => {
                let index = match (role.index, role.ordinal) {
                    (Some(index), _) => index,
                    (None, Some(ordinal)) => i32::try_from(ordinal)
                        .ok()
                        .and_then(|o| o.checked_add(1))
                        .context("--ordinal is too large")?,
                    (None, None) => anyhow::bail!("egret container needs --index N or --ordinal N"),
                };
                let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
                current_thread_runtime()?
                    .block_on(hosts::run_container(&cfg, &role.host, index, executable()?))
                    .with_context(|| format!("container {index} failed"))?;
            }
        },
        Command::Tmaster(role) => {
            match role.topology_dir {
                Some(topology_dir) => {
                    let options = egret_topology_master::TopologyMasterOptions { topology_dir };
                    multi_thread_runtime()?
                        .block_on(egret_topology_master::run(options))
                        .context("topology master failed")?;
                }
                None => {
                    let cfg = manage::load_config(config.config.as_deref(), &config.conf)?;
                    let exit = multi_thread_runtime()?
                        .block_on(hosts::run_master(&cfg, &role.host))
                        .context("topology master failed")?;
                    if exit == egret_topology_master::Exit::Rebalanced {
                        // Started again (by the pod or the host's service), it serves the new plan.
                        return Ok(ExitCode::from(egret_topology_master::EXIT_REBALANCED));
                    }
                }
            }
            // The master returns only once its topology was killed: this code
            // tells whoever runs it to stop the topology, not to restart it.
            return Ok(ExitCode::from(egret_topology_master::EXIT_TOPOLOGY_KILLED));
        }
        Command::Stmgr(role) => {
            let index = role.index;
            // With egret.instance.bridge: jni this process embeds the
            // container's JVM and runs its executors (before the runtime:
            // the JVM's start blocks).
            let executable = std::env::current_exe().context("cannot find the egret executable")?;
            let embedded = egret_container::jni::start_embedded(
                &role.topology_dir,
                role.index,
                &executable,
            )
            .with_context(|| format!("stream manager {index} could not start its executors"))?;
            multi_thread_runtime()?
                .block_on(async move {
                    let state = hosts::stream_manager_state(
                        role.zookeeper.as_deref(),
                        role.zookeeper_root.as_deref(),
                    )
                    .await?;
                    let mut options = egret_stream_manager::StreamManagerOptions::local(
                        role.topology_dir,
                        role.index,
                    );
                    options.state = state;
                    options.bind = role.network.bind;
                    options.advertise = role.network.advertise;
                    match embedded {
                        Some(embedded) => {
                            let _jvm = embedded.jvm;
                            egret_stream_manager::run_with(options, Some(embedded.connections))
                                .await?;
                        }
                        None => egret_stream_manager::run(options).await?,
                    }
                    anyhow::Ok(())
                })
                .with_context(|| format!("stream manager {index} failed"))?;
            // It returns only once its topology was killed: its container
            // must not restart it.
            return Ok(ExitCode::from(egret_proto::EXIT_TOPOLOGY_KILLED));
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_valid() {
        Cli::command().debug_assert();
    }

    #[test]
    fn global_config_flags_and_trailing_main_args() {
        let cli = Cli::try_parse_from([
            "egret", "-c", "a=1", "jar", "--config", "f.yaml", "app.jar", "com.Main", "x",
            "--flag", "-c", "b=2",
        ])
        .unwrap();
        assert_eq!(cli.config.conf, vec!["a=1"]);
        assert_eq!(cli.config.config, Some(PathBuf::from("f.yaml")));
        match cli.command {
            Command::Jar { submit: args, .. } => {
                assert_eq!(args.main_class, "com.Main");
                assert_eq!(args.args, vec!["x", "--flag", "-c", "b=2"]);
            }
            other => panic!("{other:?}"),
        }
        let cli = Cli::try_parse_from(["egret", "kill", "wc", "-w", "0"]).unwrap();
        assert!(matches!(cli.command, Command::Kill { wait: 0, .. }));
        let cli =
            Cli::try_parse_from(["egret", "local", "--local-ttl", "5", "a.jar", "M"]).unwrap();
        assert!(matches!(cli.command, Command::Local { local_ttl: 5, .. }));
    }

    #[test]
    fn rebalance_takes_storms_flags() {
        let cli = Cli::try_parse_from([
            "egret",
            "rebalance",
            "wc",
            "-w",
            "5",
            "-n",
            "3",
            "-e",
            "count=4",
            "-e",
            "split=1",
        ])
        .unwrap();
        match cli.command {
            Command::Rebalance {
                name,
                wait,
                workers,
                executors,
            } => {
                assert_eq!(name, "wc");
                assert_eq!(wait, Some(5));
                assert_eq!(workers, Some(3));
                assert_eq!(executors, vec!["count=4", "split=1"]);
            }
            other => panic!("{other:?}"),
        }
        // Without -w: Storm's default, the message timeout (resolved later).
        let cli = Cli::try_parse_from(["egret", "rebalance", "wc", "-e", "count=4"]).unwrap();
        assert!(matches!(cli.command, Command::Rebalance { wait: None, .. }));
        assert!(Cli::try_parse_from(["egret", "rebalance", "wc", "-w", "soon"]).is_err());
    }

    #[test]
    fn storm_style_monitor_logs_and_version() {
        let cli = Cli::try_parse_from([
            "egret",
            "monitor",
            "wc",
            "-i",
            "2",
            "-m",
            "split",
            "-s",
            "words",
            "-w",
            "transferred",
        ])
        .unwrap();
        match cli.command {
            Command::Monitor {
                interval,
                component,
                stream,
                watch,
                rows,
                ..
            } => {
                assert_eq!(interval, 2);
                assert_eq!(component.as_deref(), Some("split"));
                assert_eq!(stream, "words");
                assert_eq!(watch, "transferred");
                assert_eq!(rows, None);
            }
            other => panic!("{other:?}"),
        }
        let cli = Cli::try_parse_from(["egret", "monitor", "wc"]).unwrap();
        assert!(matches!(
            cli.command,
            Command::Monitor { interval: 4, ref stream, ref watch, .. } if stream == "default" && watch == "emitted"
        ));
        let cli = Cli::try_parse_from(["egret", "logs", "wc", "count-1", "-f"]).unwrap();
        assert!(matches!(
            cli.command,
            Command::Logs { ref selector, follow: true, .. } if selector.as_deref() == Some("count-1")
        ));
        assert!(matches!(
            Cli::try_parse_from(["egret", "version"]).unwrap().command,
            Command::Version
        ));
        assert!(version_text().starts_with(&format!("Egret {}\n", env!("CARGO_PKG_VERSION"))));
        assert!(version_text().contains("Storm API 2.8.3"));
    }
}
