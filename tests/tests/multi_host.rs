//! A topology across hosts: ZooKeeper on the bridge of a [`TestNet`], the
//! topology master on host 4 (a second one standing by on host 3), and
//! containers 1..3 on hosts 1..3, each started as an operator would
//! (`egret tmaster|container --topology NAME ...`, given only the state
//! manager's address and the topology's credentials). WordCountTopology's
//! counts are exact; after kill -9 of the serving master the standby takes
//! over through ZooKeeper and the stream managers follow it; `egret list`,
//! `egret stats` and `egret kill` reach the topology through the state
//! manager. Then SequenceTopology with acking under three faults in a seeded
//! order (the serving master killed, a container's process tree killed, a
//! host's link cut past the message and heartbeat timeouts): every message
//! acked, no gap at the sink. Needs root.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use egret_e2e::hosts::{Host, TestNet};
use egret_e2e::word_count::expected_counts;
use egret_e2e::{Cluster, task_files, wait_until};
use egret_state_manager::test_support::ZkServer;

/// Per word, every count the count tasks recorded, in order.
fn recorded(out: &Path) -> BTreeMap<String, Vec<u64>> {
    let mut seen: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for lines in task_files(out, "count").values() {
        for line in lines {
            let (word, count) = line.split_once(' ').expect("a 'word count' line");
            seen.entry(word.to_owned())
                .or_default()
                .push(count.parse().expect("a count"));
        }
    }
    seen
}

fn finals(seen: &BTreeMap<String, Vec<u64>>) -> BTreeMap<String, u64> {
    seen.iter()
        .map(|(w, c)| (w.clone(), c.iter().copied().max().unwrap_or(0)))
        .collect()
}

/// A process started in a host, with its log; killed on drop (the TestNet
/// kills whatever is left in its hosts too).
struct Role {
    name: String,
    child: Child,
    log: PathBuf,
}

impl Role {
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }
}

impl Drop for Role {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One test's cluster: its hosts, its ZooKeeper, and the topology it runs.
struct Setup<'a> {
    cluster: &'a Cluster,
    /// The `-c` options naming the ZooKeeper state manager.
    zk: Vec<String>,
    name: String,
    credentials: PathBuf,
}

impl<'a> Setup<'a> {
    fn new(cluster: &'a Cluster, zk: &ZkServer) -> Self {
        let name = cluster.topology_name();
        Setup {
            cluster,
            zk: vec![
                "-c".into(),
                "egret.state.manager=zookeeper".into(),
                "-c".into(),
                format!("egret.zookeeper.servers={}", zk.servers()),
            ],
            credentials: cluster.home().join("credentials").join(&name),
            name,
        }
    }

    /// `egret jar` of example `class` to the cluster (from the root namespace:
    /// stored in ZooKeeper, nothing started).
    fn submit(&self, class: &str, args: &[&str]) -> egret_e2e::Output {
        let mut extra = args.to_vec();
        extra.extend(self.zk.iter().map(String::as_str));
        let submitted = self
            .cluster
            .jar_example_with(class, &self.name, &extra)
            .expect("egret jar");
        assert!(submitted.success(), "{}", submitted.describe());
        assert!(
            self.credentials.join("key.pem").is_file(),
            "credentials written"
        );
        submitted
    }

    /// The arguments of `egret <role> --topology NAME ...` on `host`.
    fn host_args(&self, host: &Host, role: &str, index: Option<usize>) -> Vec<String> {
        let work = self.cluster.home().join(format!("work-{}", host.index()));
        let mut args = vec![
            role.to_owned(),
            "--topology".into(),
            self.name.clone(),
            "--credentials".into(),
            self.credentials.display().to_string(),
            "--work-dir".into(),
            work.display().to_string(),
            "--bind".into(),
            host.addr().to_string(),
            // By name, as pods advertise themselves: every host resolves it.
            "--advertise".into(),
            host.dns_name(),
        ];
        if let Some(i) = index {
            args.push("--index".into());
            args.push(i.to_string());
        }
        args
    }

    fn start_master(&self, host: &Host, label: &str) -> Role {
        self.start(host, label, &self.host_args(host, "tmaster", None))
    }

    fn start_container(&self, host: &Host, label: &str, index: usize) -> Role {
        self.start(host, label, &self.host_args(host, "container", Some(index)))
    }

    fn start(&self, host: &Host, name: &str, args: &[String]) -> Role {
        let log = self.cluster.home().join(format!("{name}.log"));
        let file = std::fs::File::create(&log).unwrap();
        let child = host
            .command(&self.cluster.artifacts.egret)
            .args(args)
            .args(&self.zk)
            .env("EGRET_HOME", self.cluster.home())
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name} in {}: {e}", host.name()));
        Role {
            name: name.to_owned(),
            child,
            log,
        }
    }
}

fn describe(roles: &[&Role]) -> String {
    roles
        .iter()
        .map(|r| format!("--- {} ---\n{}", r.name, egret_e2e::tail(&r.log(), 25)))
        .collect::<Vec<_>>()
        .join("\n")
}

fn all(containers: &[Role], extra: &[&Role]) -> String {
    let mut roles: Vec<&Role> = containers.iter().collect();
    roles.extend_from_slice(extra);
    describe(&roles)
}

#[test]
fn word_count_runs_across_hosts_and_survives_the_master() {
    let cluster = Cluster::new("multihost").expect("cluster");
    let net = TestNet::new(4).expect("test hosts (needs root)");
    let zk = ZkServer::start_on(IpAddr::V4(net.bridge_addr())).expect("ZooKeeper");
    let setup = Setup::new(&cluster, &zk);
    let name = setup.name.clone();
    let submitted = setup.submit("WordCountTopology", &["-c", "topology.workers=3"]);
    assert!(
        submitted.combined().contains("3 containers"),
        "{}",
        submitted.describe()
    );

    let mut first = setup.start_master(net.host(4), "tmaster-a");
    // Registered before the second starts, so that the second stands by.
    wait_until(
        "the first master to serve",
        Duration::from_secs(30),
        || {
            first
                .log()
                .contains("Topology master listening")
                .then_some(())
        },
        || first.log(),
    )
    .unwrap();
    let mut second = setup.start_master(net.host(3), "tmaster-b");
    let mut containers: Vec<Role> = (1..=3)
        .map(|i| {
            let host = net.host(i);
            setup.start_container(host, &format!("container-{i}"), i)
        })
        .collect();

    let expected = expected_counts();
    let out = cluster.out_dir();
    if let Err(e) = wait_until(
        "every word to reach its expected count across the hosts",
        Duration::from_secs(90),
        || (finals(&recorded(&out)) == expected).then_some(()),
        || format!("{} words counted", recorded(&out).len()),
    ) {
        panic!("{e}\n{}", all(&containers, &[&first, &second]));
    }
    // Exactly one master serves: the second stands by.
    wait_until(
        "the second master to stand by",
        Duration::from_secs(15),
        || second.log().contains("standing by").then_some(()),
        || second.log(),
    )
    .unwrap();
    assert!(
        !second.log().contains("Stream manager registered"),
        "the standby master served:\n{}",
        second.log()
    );
    for i in 1..=3 {
        let registered = format!("container={i}");
        assert!(
            first.log().contains(&registered),
            "container {i} did not register with the serving master:\n{}",
            first.log()
        );
    }

    // Security: the serving master's TLS listener, from the root namespace.
    // The master registered its host name; the test dials what it stands for.
    let master = master_location(&zk, &name);
    assert_eq!(
        master.host().to_string(),
        net.host(4).dns_name(),
        "the master's registration"
    );
    let master_addr = std::net::SocketAddr::new(
        net.resolve(&master.host().to_string()).unwrap().into(),
        master.port(),
    );
    let work4 = cluster.home().join("work-4").join("topologies").join(&name);
    refusals_are_seen(master_addr, &setup.credentials, &work4, &first);
    metrics_reach_the_operator(&cluster, &net, &setup, &name);
    ui_serves_the_cluster(&cluster, &net, &setup, &name);

    // kill -9 the serving master: ZooKeeper ends its session, the standby
    // registers, and every stream manager follows it there.
    let killed_at = Instant::now();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(first.child.id()).unwrap()),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let _ = first.child.wait();
    if let Err(e) = wait_until(
        "the standby master to take over with every stream manager",
        Duration::from_secs(60),
        || {
            let log = second.log();
            (log.contains("taking over") && log.contains("Physical plan published")).then_some(())
        },
        || second.log(),
    ) {
        panic!("{e}\n{}", all(&containers, &[&second]));
    }
    eprintln!(
        "master failover: the standby published the plan {:.1} s after kill -9 (the test server caps sessions at 2 s: 20 ticks of 100 ms)",
        killed_at.elapsed().as_secs_f64()
    );
    // Counts stayed exact: every word counted once per occurrence, in order.
    let seen = recorded(&out);
    for (word, counts) in &seen {
        let want: Vec<u64> = (1..=expected[word.as_str()]).collect();
        assert_eq!(counts, &want, "{word:?} counted out of order or twice");
    }

    // The cluster commands reach it through the state manager.
    let mut list = vec!["list".to_owned()];
    list.extend(setup.zk.iter().cloned());
    let listed = operator(&cluster, &net, &list);
    assert!(listed.success(), "{}", listed.describe());
    let row = listed
        .stdout
        .lines()
        .find(|l| l.starts_with(&name))
        .unwrap_or_else(|| panic!("no row for {name}: {}", listed.describe()));
    assert!(row.contains("ACTIVE") && row.contains(" 3 "), "{row}");

    let mut stats = vec!["stats".to_owned(), name.clone()];
    stats.extend(setup.zk.iter().cloned());
    let shown = operator(&cluster, &net, &stats);
    assert!(
        shown.success() && shown.stdout.lines().any(|l| l.starts_with("count ")),
        "{}",
        shown.describe()
    );

    let mut kill = vec!["kill".to_owned(), name.clone(), "-w".into(), "0".into()];
    kill.extend(setup.zk.iter().cloned());
    let killed = operator(&cluster, &net, &kill);
    assert!(
        killed.success(),
        "{}\n{}",
        killed.describe(),
        all(&containers, &[&second])
    );
    // The master exits with EXIT_TOPOLOGY_KILLED and the containers stop.
    wait_until(
        "the master and every container to exit after the kill",
        Duration::from_secs(45),
        || (second.exited() && containers.iter_mut().all(Role::exited)).then_some(()),
        String::new,
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", all(&containers, &[&second])));
    let status = second.child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(3),
        "the master's exit code after a kill"
    );
}

/// How long a host's link stays cut: longer than the message timeout (5 s)
/// and than the master's heartbeat timeout (15 s), so that the master reports
/// the host's container lost.
const CUT: Duration = Duration::from_secs(17);

/// Default seed of the fault schedule (override with `EGRET_FAULT_SEED`).
const DEFAULT_SEED: u64 = 0x5eed_0012;

fn seed() -> u64 {
    egret_e2e::faults::seed(DEFAULT_SEED)
}

/// SplitMix64: a fault schedule replayable from its seed.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[test]
fn sequences_survive_a_cut_link_a_lost_container_tree_and_a_lost_master() {
    use egret_e2e::sequence::{Observed, Workload, duplicates, gaps_by_key, wait_all_logged};

    let cluster = Cluster::new("multihost-faults").expect("cluster");
    let net = TestNet::new(4).expect("test hosts (needs root)");
    let zk = ZkServer::start_on(IpAddr::V4(net.bridge_addr())).expect("ZooKeeper");
    let setup = Setup::new(&cluster, &zk);
    let w = Workload {
        keys: 10,
        seqs: 300,
    };
    // 2 spout tasks at 50 messages/s each: about 30 s of traffic, long
    // enough for both faults to land while messages flow. Timeout 5 s: the
    // link stays cut longer than that.
    setup.submit(
        "SequenceTopology",
        &[
            "at-least-once",
            "keys=10",
            "seqs=300",
            "rate=50",
            "timeout=5",
            "pending=50",
            "workers=3",
        ],
    );
    let mut master = setup.start_master(net.host(4), "tmaster-a");
    wait_until(
        "the first master to serve",
        Duration::from_secs(30),
        || {
            master
                .log()
                .contains("Topology master listening")
                .then_some(())
        },
        || master.log(),
    )
    .unwrap();
    let standby = setup.start_master(net.host(3), "tmaster-b");
    let containers: Vec<Role> = (1..=3)
        .map(|i| {
            let host = net.host(i);
            setup.start_container(host, &format!("container-{i}"), i)
        })
        .collect();

    let out = cluster.out_dir();
    wait_until(
        "the first acks",
        Duration::from_secs(90),
        || (Observed::read(&out).acked.len() >= 100).then_some(()),
        || Observed::read(&out).summary(w),
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", all(&containers, &[&master, &standby])));

    let seed = seed();
    let mut rng = seed;
    let cut = 1 + usize::try_from(next(&mut rng) % 3).unwrap();
    let lost = 1 + usize::try_from(next(&mut rng) % 3).unwrap();
    // The three faults in an order drawn from the seed (Fisher-Yates).
    let mut order = ["cut", "tree", "master"];
    for i in (1..order.len()).rev() {
        let j = usize::try_from(next(&mut rng) % (i as u64 + 1)).unwrap();
        order.swap(i, j);
    }
    eprintln!(
        "fault schedule (EGRET_FAULT_SEED={seed}): {order:?}: cut host {cut}'s link for {} s, kill -9 container {lost}'s process tree, kill -9 the serving master",
        CUT.as_secs()
    );
    let started = Instant::now();
    let cut_link = || {
        let host = net.host(cut);
        host.link_down().unwrap();
        eprintln!(
            "{:>5.1} s: link of host {cut} down",
            started.elapsed().as_secs_f64()
        );
        std::thread::sleep(CUT);
        host.link_up().unwrap();
        eprintln!(
            "{:>5.1} s: link of host {cut} up",
            started.elapsed().as_secs_f64()
        );
    };
    // The container process of host `lost` (its host's `egret container
    // --topology` supervises it), with its stream manager and instances.
    let tree_of = |lost: usize| {
        let needle = format!("{}/work-{lost}/topologies/", cluster.home().display());
        egret_e2e::processes_mentioning(&needle)
            .into_iter()
            .filter(|(_, line)| line.contains(" container ") && line.contains("--topology-dir"))
            .map(|(pid, _)| pid)
            .collect::<Vec<_>>()
    };
    let kill_tree = || {
        let before = tree_of(lost);
        assert_eq!(
            before.len(),
            1,
            "one container process on host {lost}: {before:?}"
        );
        // Its children die with it (parent-death signal).
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(before[0]),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        eprintln!(
            "{:>5.1} s: container {lost} killed with its tree",
            started.elapsed().as_secs_f64()
        );
        // Restarted where it ran, by its host's `egret container`.
        wait_until(
            "the container to be restarted on its host",
            Duration::from_secs(30),
            || {
                let now = tree_of(lost);
                (now.len() == 1 && now[0] != before[0]).then_some(())
            },
            || format!("{:?}", tree_of(lost)),
        )
        .unwrap();
        eprintln!(
            "{:>5.1} s: container {lost} restarted on host {lost}",
            started.elapsed().as_secs_f64()
        );
    };
    let mut kill_master = || {
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(i32::try_from(master.child.id()).unwrap()),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        let _ = master.child.wait();
        let killed = Instant::now();
        eprintln!(
            "{:>5.1} s: serving master killed",
            started.elapsed().as_secs_f64()
        );
        wait_until(
            "the standby master to take over",
            Duration::from_secs(60),
            || {
                let log = standby.log();
                (log.contains("taking over") && log.contains("Physical plan published"))
                    .then_some(())
            },
            || egret_e2e::tail(&standby.log(), 20),
        )
        .unwrap();
        eprintln!(
            "{:>5.1} s: the standby published the plan {:.1} s after the kill",
            started.elapsed().as_secs_f64(),
            killed.elapsed().as_secs_f64()
        );
    };
    for (i, fault) in order.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(Duration::from_secs(3));
        }
        match *fault {
            "cut" => cut_link(),
            "tree" => kill_tree(),
            _ => kill_master(),
        }
    }
    let faults_done = Instant::now();

    if let Err(e) = wait_all_logged(&out, w, false, Duration::from_secs(180)) {
        panic!("{e}\n{}", all(&containers, &[&master, &standby]));
    }
    let recovered = faults_done.elapsed();
    // Let late copies land before counting.
    std::thread::sleep(Duration::from_secs(3));
    let o = Observed::read(&out);
    let (dup_sink, extra_sink) = duplicates(&o.sink);
    eprintln!(
        "across hosts under faults: {} messages; every id acked {:.1} s after the last fault; \
         duplicates at the sink: {dup_sink} messages ({extra_sink} extra copies); {} fails/timeouts replayed",
        w.total(),
        recovered.as_secs_f64(),
        o.fails
    );
    assert!(o.malformed.is_empty(), "malformed lines: {:?}", o.malformed);
    assert!(
        o.unexpected.is_empty(),
        "acks/fails for ids that were not pending: {:?}",
        o.unexpected
    );
    let missing = w.missing(&o.sink);
    assert!(
        missing.is_empty(),
        "the sink never saw {} messages: gaps {:?}",
        missing.len(),
        gaps_by_key(&missing)
    );
    assert!(
        o.sink.keys().all(|(k, s)| *k < w.keys && *s < w.seqs),
        "the sink saw (key, seq) outside the workload"
    );
    // The master serving during the cut reported the host's container lost,
    // naming it.
    let lost_line = "Stream manager lost: no heartbeat";
    let logs = format!("{}\n{}", master.log(), standby.log());
    let named = logs
        .lines()
        .any(|l| l.contains(lost_line) && l.contains(&format!("stmgr-{cut}")));
    assert!(
        named,
        "no master reported stmgr-{cut} lost:\n{}",
        egret_e2e::tail(&logs, 40)
    );
}

/// `egret <args>` from the operator's machine (the root namespace), which
/// resolves the hosts' names as they do.
fn operator(cluster: &Cluster, net: &TestNet, args: &[String]) -> egret_e2e::Output {
    let mut cmd = cluster.egret(args);
    net.resolve_names(&mut cmd);
    egret_e2e::run_with_timeout(&mut cmd, Duration::from_secs(120)).expect("egret")
}

/// The live master's registration, from ZooKeeper.
fn master_location(zk: &ZkServer, name: &str) -> egret_transport::Endpoint {
    use egret_state_manager::{StateManager, ZkOptions, ZkStateManager};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let state = ZkStateManager::connect(&zk.servers(), "/egret", ZkOptions::default())
            .await
            .unwrap();
        state
            .master_location(name)
            .await
            .unwrap()
            .expect("a live master")
    })
}

/// A plain-text client, a client with another topology's credentials and a
/// replayed handshake are refused in the TLS handshake, before any frame: the
/// plain one by the master (its log line names the peer;
/// `egret.tls.refused{not-tls}` in its metrics snapshot), the foreign one by
/// the client itself, which does not trust the master's certificate (and the
/// master logs the refusal), and the replay (the bytes a real client sent
/// through a relay, sent again on a new connection) by the master
/// (`egret.tls.refused{tampered}`).
fn refusals_are_seen(
    addr: std::net::SocketAddr,
    credentials: &Path,
    master_dir: &Path,
    master: &Role,
) {
    use egret_transport::{RefusalReason, Tls, TopologyCredentials};
    use std::io::{Read, Write};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    // Plain text: a framed hello-sized frame in clear.
    let mut plain = std::net::TcpStream::connect(addr).unwrap();
    let local = plain.local_addr().unwrap();
    plain.write_all(&[0, 0, 0, 4, 8, 2, 16, 1]).unwrap();
    plain
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let mut back = Vec::new();
    let _ = plain.read_to_end(&mut back);
    assert!(
        back.is_empty() || back[0] == 21,
        "the master answered plain text with something else than a TLS alert: {back:?}"
    );

    // Another topology's credentials.
    let foreign = runtime.block_on(async {
        let other = TopologyCredentials::generate(
            "another-topology",
            egret_transport::credentials::DEFAULT_VALIDITY,
        )
        .unwrap();
        let tls = Tls::new(&other).unwrap();
        let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        let foreign_local = tcp.local_addr().unwrap();
        let outcome = tls.connect(tcp, addr).await;
        (
            outcome.is_err(),
            tls.refused().get(RefusalReason::UnknownCa),
            foreign_local,
        )
    });
    assert!(
        foreign.0,
        "a client with another topology's credentials completed the handshake"
    );
    assert_eq!(
        foreign.1, 1,
        "the foreign client counted the master's certificate as unknown-ca"
    );

    // A replay: a relay records what a client with the right credentials
    // sends (TLS handshake and hello), then sends it again to the master.
    let replay_local = runtime.block_on(async {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let creds = TopologyCredentials::load(credentials).unwrap();
        let relay = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let relay_addr = relay.local_addr().unwrap();
        let recording = tokio::spawn(async move {
            let (inbound, _) = relay.accept().await.unwrap();
            let outbound = tokio::net::TcpStream::connect(addr).await.unwrap();
            let (mut in_r, mut in_w) = inbound.into_split();
            let (mut out_r, mut out_w) = outbound.into_split();
            let back = tokio::spawn(async move {
                let _ = tokio::io::copy(&mut out_r, &mut in_w).await;
            });
            let mut recorded = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                match in_r.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        recorded.extend_from_slice(&buf[..n]);
                        if out_w.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                }
            }
            let _ = out_w.shutdown().await;
            back.abort();
            recorded
        });
        let tls = Tls::new(&creds).unwrap();
        let tcp = tokio::net::TcpStream::connect(relay_addr).await.unwrap();
        let stream = tls.connect(tcp, relay_addr).await.unwrap();
        let framed = egret_proto::handshake::connect(
            stream,
            creds.token(),
            egret_proto::v1::PeerRole::Client,
            "replay-recorder",
            egret_proto::frame::DEFAULT_MAX_FRAME_BYTES,
        )
        .await
        .expect("the recorded client's hello is accepted");
        drop(framed);
        let recorded = recording.await.unwrap();
        assert!(recorded.len() > 100, "{} bytes recorded", recorded.len());
        let mut replay = tokio::net::TcpStream::connect(addr).await.unwrap();
        let replay_local = replay.local_addr().unwrap();
        replay.write_all(&recorded).await.unwrap();
        let mut back = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(15), replay.read_to_end(&mut back)).await;
        replay_local
    });

    wait_until(
        "the master to log the three refusals and count the plain-text one and the replay",
        Duration::from_secs(30),
        || {
            let log = master.log();
            let snapshot = egret_e2e::read_metrics(master_dir).0;
            let counted = |reason| {
                snapshot
                    .get("tmaster")
                    .and_then(|m| m.value("egret.tls.refused", reason))
                    .unwrap_or(0.0)
            };
            (log.contains(&local.to_string())
                && log.contains(&foreign.2.to_string())
                && log.contains(&replay_local.to_string())
                && counted("not-tls") >= 1.0
                && counted("tampered") >= 1.0)
                .then_some(())
        },
        || egret_e2e::tail(&master.log(), 10),
    )
    .unwrap();
    let replay_line = master
        .log()
        .lines()
        .find(|l| l.contains(&replay_local.to_string()))
        .map(str::to_owned)
        .unwrap_or_default();
    assert!(
        replay_line.contains("replayed"),
        "the master's log line of the replay names it: {replay_line}"
    );
}

/// `egret metrics NAME` from the operator's machine: the serving master
/// answers with its own metrics and what each container reported (the
/// metrics of processes on three other hosts). Its `egret.tls.refused`
/// counts are the refusals [`refusals_are_seen`] caused.
fn metrics_reach_the_operator(cluster: &Cluster, net: &TestNet, setup: &Setup, name: &str) {
    let mut args = vec!["metrics".to_owned(), name.to_owned()];
    args.extend(setup.zk.iter().cloned());
    let last = std::cell::RefCell::new(String::new());
    let rows = wait_until(
        "egret metrics to show every container's processes",
        Duration::from_secs(30),
        || {
            let shown = operator(cluster, net, &args);
            assert!(shown.success(), "{}", shown.describe());
            last.replace(shown.stdout.clone());
            let rows: Vec<Vec<String>> = shown
                .stdout
                .lines()
                .skip(1)
                .map(|l| l.split_whitespace().map(str::to_owned).collect())
                .collect();
            let processes: std::collections::BTreeSet<&str> =
                rows.iter().map(|r| r[0].as_str()).collect();
            let want = [
                "container-1",
                "container-2",
                "container-3",
                "stmgr-1",
                "stmgr-2",
                "stmgr-3",
                "tmaster",
            ];
            (processes == want.into_iter().collect()).then_some(rows.clone())
        },
        || last.borrow().clone(),
    )
    .unwrap();
    let last = last.into_inner();
    let value = |process: &str, metric: &str, component: &str| {
        rows.iter()
            .find(|r| r[0] == process && r[1] == metric && r[2] == component)
            .map(|r| r[4].clone())
    };
    assert_eq!(
        value("tmaster", "egret.tls.refused", "not-tls").as_deref(),
        Some("1"),
        "{last}"
    );
    assert_eq!(
        value("tmaster", "egret.tls.refused", "tampered").as_deref(),
        Some("1"),
        "{last}"
    );
    for i in 1..=3 {
        assert!(
            value(
                &format!("container-{i}"),
                "egret.restarts",
                &format!("stmgr-{i}")
            )
            .is_some(),
            "container-{i}'s restarts are shown:\n{last}"
        );
    }
}

/// `egret ui` against the cluster's ZooKeeper, from the root namespace: the
/// topology is listed with its 3 workers, Storm UI's topology page carries
/// the word count's exact numbers (from the master on the fourth host), the
/// logs of every container's processes are listed and tailed although they
/// are on other hosts (relayed by the master from their stream managers), an
/// unknown process is a 404, and a kill without credentials is refused with
/// the topology left ACTIVE. `egret logs` reads the same way.
fn ui_serves_the_cluster(cluster: &Cluster, net: &TestNet, setup: &Setup, name: &str) {
    let mut cmd = cluster.egret(["ui", "--bind", "127.0.0.1:0"]);
    cmd.args(&setup.zk);
    net.resolve_names(&mut cmd);
    let ui = egret_e2e::ui::Ui::spawn(cmd);

    let summary = ui.get("/api/v1/topology/summary");
    let entry = summary["topologies"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("{name} is not in the summary: {summary}"))
        .clone();
    assert_eq!(entry["status"], "ACTIVE", "{entry}");
    assert_eq!(entry["workersTotal"], 3, "{entry}");
    let id = entry["id"].as_str().expect("an id").to_owned();

    let words: u64 = expected_counts().values().sum();
    wait_until(
        "the word count's exact numbers in Storm UI's topology page",
        Duration::from_secs(30),
        || {
            let t = ui.get(&format!("/api/v1/topology/{id}"));
            let executed = t["bolts"]
                .as_array()
                .and_then(|b| b.iter().find(|b| b["boltId"] == "count"))
                .and_then(|b| b["executed"].as_u64());
            (t["spouts"][0]["emitted"].as_u64() == Some(200) && executed == Some(words))
                .then_some(())
        },
        || ui.call("GET", &format!("/api/v1/topology/{id}"), None).1,
    )
    .unwrap();

    let logs = ui.get(&format!("/api/egret/topologies/{name}/logs"));
    for i in 1..=3 {
        let process = format!("stmgr-{i}");
        let entry = logs["containers"]
            .as_array()
            .and_then(|c| c.iter().find(|e| e["process"] == process.as_str()))
            .unwrap_or_else(|| panic!("no log of {process} listed: {logs}"));
        assert_eq!(entry["container"], i, "{entry}");
    }
    // An instance's log, on its container's host.
    assert!(
        logs["processes"].as_array().is_some_and(|p| p
            .iter()
            .any(|p| p.as_str().is_some_and(|p| p.starts_with("count-")))),
        "no instance log of the count bolt: {logs}"
    );
    let tail = ui.get(&format!(
        "/api/egret/topologies/{name}/logs/stmgr-2?lines=40"
    ));
    let lines = tail["lines"].as_array().expect("lines");
    assert!(!lines.is_empty() && lines.len() <= 40, "{tail}");
    let whole = ui.get(&format!(
        "/api/egret/topologies/{name}/logs/stmgr-2?lines=2000"
    ));
    assert!(
        whole["lines"].as_array().is_some_and(|l| l.iter().any(|l| l
            .as_str()
            .is_some_and(|l| l.contains("Registered with the topology master")))),
        "stmgr-2's log, read on host 2: {whole}"
    );
    let (status, body) = ui.call(
        "GET",
        &format!("/api/egret/topologies/{name}/logs/nope-7"),
        None,
    );
    assert_eq!(status, 404, "{body}");

    let (status, body) = ui.call("POST", &format!("/api/v1/topology/{id}/kill/0"), None);
    assert_eq!(status, 403, "a kill without credentials: {body}");
    let after = ui.get(&format!("/api/egret/topologies/{name}"));
    assert_eq!(after["summary"]["status"], "ACTIVE", "{}", after["summary"]);

    let mut args = vec!["logs".to_owned(), name.to_owned(), "stmgr-3".to_owned()];
    args.extend(setup.zk.iter().cloned());
    let shown = operator(cluster, net, &args);
    assert!(
        shown.success() && shown.stdout.contains("Registered with the topology master"),
        "{}",
        shown.describe()
    );
    let mut args = vec!["logs".to_owned(), name.to_owned(), "count".to_owned()];
    args.extend(setup.zk.iter().cloned());
    let shown = operator(cluster, net, &args);
    assert!(
        shown.success() && shown.stdout.contains("==> count-"),
        "{}",
        shown.describe()
    );
}
