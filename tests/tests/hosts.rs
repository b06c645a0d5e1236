//! The test hosts (`egret_e2e::hosts`): network namespaces on a bridge, their
//! links, their cleanup, and a ZooKeeper server they share. Needs root, as
//! every multi-host test does (without it each test fails, saying so).
//!
//! Code "inside a host" is the `egret-netprobe` helper binary (this crate's),
//! spawned with `Host::command`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use egret_e2e::hosts::{Host, NetError, TestNet, owner_of};
use egret_state_manager::test_support::ZkServer;

const PROBE: &str = env!("CARGO_BIN_EXE_egret-netprobe");

/// A probe process, killed and reaped on drop.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts a listening probe in `host` on `ip` (a free port); returns it and
/// the address it listens on.
fn listen_in(host: &Host, ip: IpAddr) -> (Running, SocketAddr) {
    let mut child = host
        .command(PROBE)
        .arg("listen")
        .arg(SocketAddr::new(ip, 0).to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let running = Running(child);
    // The probe prints this line, or exits (EOF) saying why on stderr.
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let addr = line
        .strip_prefix("listening ")
        .unwrap_or_else(|| panic!("the listener did not start: {line:?}"))
        .trim()
        .parse()
        .unwrap();
    (running, addr)
}

/// What a `send` probe saw: its own address and the answer, or its error.
fn send_from(
    host: &Host,
    to: SocketAddr,
    text: &str,
    timeout: Duration,
) -> Result<(SocketAddr, String), String> {
    // The probe bounds its own connect (timeout) and reads (10 s).
    let out = host
        .command(PROBE)
        .arg("send")
        .arg(to.to_string())
        .arg(text)
        .arg(timeout.as_millis().to_string())
        .env("RUST_LIB_BACKTRACE", "0")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let stdout = String::from_utf8(out.stdout).unwrap();
    let (first, reply) = stdout.split_once('\n').unwrap();
    let local = first.strip_prefix("local ").unwrap().parse().unwrap();
    Ok((local, reply.to_owned()))
}

/// Interfaces of the root namespace (`ip -o link`).
fn root_links() -> Vec<String> {
    let out = Command::new("ip").args(["-o", "link"]).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split(": ").nth(1))
        .map(|n| n.split('@').next().unwrap_or(n).to_owned())
        .collect()
}

/// Named network namespaces (`ip netns list`).
fn namespaces() -> Vec<String> {
    let out = Command::new("ip").args(["netns", "list"]).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// What a net leaves behind if its cleanup fails: root interfaces, namespaces.
fn objects_of(net: &TestNet) -> (Vec<String>, Vec<String>) {
    let mut links = vec![net.bridge().to_owned()];
    links.extend(net.hosts().iter().map(|h| h.bridge_port().to_owned()));
    let namespaces = net.hosts().iter().map(|h| h.name().to_owned()).collect();
    (links, namespaces)
}

fn assert_gone(links: &[String], nss: &[String]) {
    let left = root_links();
    for link in links {
        assert!(!left.contains(link), "interface {link} is left: {left:?}");
    }
    let left = namespaces();
    for ns in nss {
        assert!(!left.contains(ns), "namespace {ns} is left: {left:?}");
    }
}

/// A listener of the root namespace on `ip` (a free port) that answers one
/// connection as the probe does; joins to the peer's address and request.
fn serve_once_in_root(ip: IpAddr) -> (SocketAddr, thread::JoinHandle<(SocketAddr, String)>) {
    use std::io::{Read, Write};
    let listener = TcpListener::bind((ip, 0)).unwrap();
    let addr = listener.local_addr().unwrap();
    let server = thread::spawn(move || {
        let (mut stream, peer) = listener.accept().unwrap();
        let mut request = String::new();
        stream.read_to_string(&mut request).unwrap();
        stream
            .write_all(format!("root got: {request}").as_bytes())
            .unwrap();
        (peer, request)
    });
    (addr, server)
}

const CONNECT: Duration = Duration::from_secs(5);

#[test]
fn two_hosts_talk_over_tcp_and_reach_the_bridge_address() {
    let net = TestNet::new(2).unwrap();
    let (h1, h2) = (net.host(1), net.host(2));
    assert_eq!(net.bridge_addr().octets(), [198, 18, net.subnet(), 1]);
    assert_eq!(h1.addr().octets(), [198, 18, net.subnet(), 11]);
    assert_eq!(h2.addr().octets(), [198, 18, net.subnet(), 12]);

    let (listener, addr) = listen_in(h1, h1.addr().into());
    // The spawned pid is the program itself, inside host 1's namespace.
    let pid = listener.0.id();
    assert_eq!(
        std::fs::read_link(format!("/proc/{pid}/exe")).unwrap(),
        std::fs::canonicalize(PROBE).unwrap()
    );
    let ns_of_pid = std::fs::metadata(format!("/proc/{pid}/ns/net"))
        .unwrap()
        .ino();
    assert_eq!(ns_of_pid, std::fs::metadata(h1.netns_path()).unwrap().ino());
    assert_ne!(
        ns_of_pid,
        std::fs::metadata("/proc/self/ns/net").unwrap().ino()
    );

    let (local, reply) = send_from(h2, addr, "hello from h2", CONNECT).unwrap();
    assert_eq!(local.ip(), IpAddr::from(h2.addr()));
    assert_eq!(reply, format!("{addr} got: hello from h2"));

    // A listener of the root namespace, on the bridge address.
    let (root_addr, server) = serve_once_in_root(net.bridge_addr().into());
    let (local, reply) = send_from(h1, root_addr, "hello from h1", CONNECT).unwrap();
    assert_eq!(reply, "root got: hello from h1");
    let (peer, request) = server.join().unwrap();
    assert_eq!(peer, local);
    assert_eq!(peer.ip(), IpAddr::from(h1.addr()));
    assert_eq!(request, "hello from h1");
}

#[test]
fn a_host_does_not_reach_the_root_namespaces_loopback() {
    let net = TestNet::new(1).unwrap();
    let root = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = root.local_addr().unwrap().port();
    for target in [
        SocketAddr::from(([127, 0, 0, 1], port)),
        SocketAddr::new(net.bridge_addr().into(), port),
    ] {
        let err = send_from(net.host(1), target, "x", CONNECT).unwrap_err();
        assert!(err.contains("refused"), "{target}: {err}");
    }
    // The root namespace's own connection to it works: the listener was there.
    root.set_nonblocking(true).unwrap();
    assert_eq!(
        root.accept().unwrap_err().kind(),
        std::io::ErrorKind::WouldBlock,
        "a host got through"
    );
    let _own = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
}

#[test]
fn link_down_cuts_a_host_off_and_link_up_restores_it() {
    let net = TestNet::new(2).unwrap();
    let (h1, h2) = (net.host(1), net.host(2));
    let (_listener, addr) = listen_in(h1, h1.addr().into());
    send_from(h2, addr, "before", CONNECT).unwrap();

    h1.link_down().unwrap();
    // Dropped packets: the attempt times out (bounded by the probe's 3 s)
    // or is found unreachable; it is never answered.
    let err = send_from(h2, addr, "cut", Duration::from_secs(3)).unwrap_err();
    assert!(err.contains("cannot connect"), "{err}");
    // The other host still reaches the bridge address while h1 is cut off.
    let (root_addr, server) = serve_once_in_root(net.bridge_addr().into());
    send_from(h2, root_addr, "still here", CONNECT).unwrap();
    assert_eq!(server.join().unwrap().1, "still here");

    h1.link_up().unwrap();
    // The port forwards again at once (no STP); retried in a generous bound
    // for a loaded machine, without asserting how long it took.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match send_from(h2, addr, "after", CONNECT) {
            Ok((_, reply)) => {
                assert_eq!(reply, format!("{addr} got: after"));
                break;
            }
            Err(e) if Instant::now() > deadline => panic!("link_up did not restore the link: {e}"),
            Err(_) => thread::sleep(Duration::from_millis(200)),
        }
    }
}

#[test]
fn drop_removes_every_interface_and_namespace_and_kills_what_ran_inside() {
    let net = TestNet::new(2).unwrap();
    let (links, nss) = objects_of(&net);
    for link in &links {
        assert!(root_links().contains(link), "{link} was not created");
    }
    for ns in &nss {
        assert!(namespaces().contains(ns), "{ns} was not created");
    }
    let mut inside = net.host(2).command("sleep").arg("600").spawn().unwrap();
    drop(net);
    assert_gone(&links, &nss);
    // Killed by the drop: reaped within a bound generous for a loaded
    // machine (it takes milliseconds), so that a survivor fails the test
    // instead of hanging it.
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = inside.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = inside.kill();
            let _ = inside.wait();
            panic!("the process inside host 2 survived the net");
        }
        thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.signal(), Some(9), "{status}");

    // Also when the test panics.
    let objects = Mutex::new(None);
    let panicked = std::panic::catch_unwind(|| {
        let net = TestNet::new(1).unwrap();
        *objects.lock().unwrap() = Some(objects_of(&net));
        panic!("a failing test");
    });
    assert!(panicked.is_err());
    let (links, nss) = objects.into_inner().unwrap().expect("the net was built");
    assert_gone(&links, &nss);
}

/// The environment variable that makes `what_a_dead_run_left_is_removed_by_the_next_net`
/// the run that dies.
const ABANDON: &str = "EGRET_TEST_HOSTS_ABANDON";

/// A run killed with its net built (here: a child of this test binary that
/// aborts, so no destructor runs) leaves it all; the next net removes it.
#[test]
fn what_a_dead_run_left_is_removed_by_the_next_net() {
    if std::env::var_os(ABANDON).is_some() {
        let net = TestNet::new(2).unwrap();
        let (links, nss) = objects_of(&net);
        println!("abandoned {} | {}", links.join(" "), nss.join(" "));
        std::process::abort();
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "what_a_dead_run_left_is_removed_by_the_next_net",
            "--nocapture",
        ])
        .args(["--test-threads=1"])
        .env(ABANDON, "1")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(6), "{status}\n{out}");
    let dead = child.id();
    let line = out
        .lines()
        // The harness prints the test's name on the same line.
        .find_map(|l| l.split_once("abandoned ").map(|(_, names)| names))
        .unwrap_or_else(|| panic!("the child built no net: {out}"));
    let (links, nss) = line.split_once(" | ").unwrap();
    let links: Vec<String> = links.split_whitespace().map(str::to_owned).collect();
    let nss: Vec<String> = nss.split_whitespace().map(str::to_owned).collect();
    assert_eq!((links.len(), nss.len()), (3, 2), "{line}");
    for name in links.iter().chain(&nss) {
        assert_eq!(owner_of(name).map(|(_, pid)| pid), Some(dead), "{name}");
    }
    // The dead run's net is still there.
    for link in &links {
        assert!(
            root_links().contains(link),
            "{link} is not left: nothing to test"
        );
    }
    for ns in &nss {
        assert!(
            namespaces().contains(ns),
            "{ns} is not left: nothing to test"
        );
    }

    let _net = TestNet::new(1).unwrap();
    // Removed by this net's sweep, or, when a parallel test took the dead
    // run's subnet first, by that net's (which may still be at it: a bounded
    // wait, generous for a loaded machine; it takes milliseconds).
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline
        && (root_links().iter().any(|l| links.contains(l))
            || namespaces().iter().any(|n| nss.contains(n)))
    {
        thread::sleep(Duration::from_millis(100));
    }
    assert_gone(&links, &nss);
}

#[test]
fn zookeeper_on_the_bridge_address_is_reachable_from_a_host() {
    let net = TestNet::new(1).unwrap();
    let zk = ZkServer::start_on(net.bridge_addr().into()).unwrap();
    assert_eq!(zk.addr().ip(), IpAddr::from(net.bridge_addr()));
    let (local, reply) = send_from(net.host(1), zk.addr(), "ruok", CONNECT)
        .unwrap_or_else(|e| panic!("{e}; the server's log:\n{}", zk.log()));
    assert_eq!(reply, "imok");
    assert_eq!(local.ip(), IpAddr::from(net.host(1).addr()));
    let (_, reply) = send_from(net.host(1), zk.addr(), "srvr", CONNECT).unwrap();
    assert!(reply.contains("Mode: standalone"), "{reply}");
}

/// The environment variable that makes `the_net_needs_root` the unprivileged child.
const AS_NOBODY: &str = "EGRET_TEST_HOSTS_AS_NOBODY";

/// Not root: an error saying the tests need root (never a silent skip). Run
/// as a child of this test binary with uid and gid 65534 (nobody).
#[test]
fn the_net_needs_root() {
    if std::env::var_os(AS_NOBODY).is_some() {
        match TestNet::new(1) {
            Err(e @ NetError::NotRoot { .. }) => {
                assert!(e.to_string().contains("need root"), "{e}");
                println!("refused: {e}");
            }
            Err(e) => panic!("another error: {e}"),
            Ok(_) => panic!("built a net without root"),
        }
        return;
    }
    use std::os::unix::process::CommandExt;
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "the_net_needs_root",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(AS_NOBODY, "1")
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("refused: the multi-host tests need root"),
        "{}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What `getent ahostsv4 NAME` prints in `cmd` (the system's resolver, as every
/// program uses it): the address, or `None` when the name does not resolve.
fn resolved_by(mut cmd: Command, name: &str) -> Option<IpAddr> {
    let out = cmd.args(["ahostsv4", name]).output().unwrap();
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).unwrap();
    text.split_whitespace().next().map(|a| a.parse().unwrap())
}

#[test]
fn every_host_and_the_operator_resolve_the_nets_names_and_the_root_files_stay() {
    let root_hosts = std::fs::read("/etc/hosts").unwrap();
    let net = TestNet::new(2).unwrap();
    let (h1, h2) = (net.host(1), net.host(2));
    assert_eq!(h2.dns_name(), "host-2.egret.test");
    for name in [h1.dns_name(), h2.dns_name(), net.bridge_dns_name()] {
        let want = net.resolve(&name).map(IpAddr::from);
        assert!(want.is_some(), "{name} is one of the net's names");
        assert_eq!(
            resolved_by(h1.command("getent"), &name),
            want,
            "{name} in host 1"
        );
        assert_eq!(
            resolved_by(h2.command("getent"), &name),
            want,
            "{name} in host 2"
        );
        let mut operator = Command::new("getent");
        net.resolve_names(&mut operator);
        assert_eq!(
            resolved_by(operator, &name),
            want,
            "{name} for the operator"
        );
    }
    assert_eq!(
        resolved_by(h1.command("getent"), "localhost").map(|a| a.is_loopback()),
        Some(true)
    );
    // A host reaches another by name: the name resolves to where it listens.
    let (listener, addr) = listen_in(h1, h1.addr().into());
    let by_name = SocketAddr::new(
        resolved_by(h2.command("getent"), &h1.dns_name()).unwrap(),
        addr.port(),
    );
    let (_, reply) = send_from(h2, by_name, "by name", CONNECT).unwrap();
    assert_eq!(reply, format!("{addr} got: by name"));
    drop(listener);
    drop(net);
    assert_eq!(
        std::fs::read("/etc/hosts").unwrap(),
        root_hosts,
        "/etc/hosts of the root namespace changed"
    );
}
