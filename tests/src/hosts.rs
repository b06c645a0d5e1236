//! Test "hosts": Linux network namespaces joined by veth pairs on a bridge,
//! for the multi-host tests (see `docs/internals/testing.md`, "Hosts").
//!
//! A [`TestNet`] of N hosts is, in the root namespace, a bridge with the
//! address `198.18.K.1/24` (RFC 2544's benchmark range, never routed on a real
//! network) and, per host `i` (1..=N), a namespace holding one end of a veth
//! pair with `198.18.K.(10+i)/24`, `lo` up and a default route via the bridge
//! address; the pair's other end is a port of the bridge. The root namespace
//! does not forward (nothing here enables it), so a host reaches the other
//! hosts, the root namespace's own addresses (the bridge address first) and
//! its own loopback, and nothing else.
//!
//! Host names: every process a [`Host`] starts (and every command given to
//! [`TestNet::resolve_names`]) sees its own `/etc/hosts` (a private mount
//! namespace, as `ip netns exec` gives with `/etc/netns/<ns>/hosts`) naming
//! `bridge.egret.test` and `host-<i>.egret.test` (RFC 2606's reserved `.test`
//! domain), so that processes can advertise names, as pods do, and resolve
//! each other through the system's resolver. The root namespace's files are
//! untouched.
//!
//! Names: every object of a net is named `egt<KK><pid><role><i>`, with `KK`
//! the subnet's K in two hex digits, `pid` the owner's process id and `role`
//! `b` (the bridge), `h` (host i's namespace and its end of the pair) or `p`
//! (the pair's end on the bridge): at most 15 characters, the kernel's limit
//! for interface names. [`owner_of`] reads a name back.
//!
//! Invariants:
//! - K is held, for the net's lifetime, by an exclusive `flock` on
//!   `/run/lock/egret-testnet-198.18.K.lock` (the system temp directory when
//!   `/run/lock` is missing), so two nets of any processes never share a
//!   subnet or a name; the lock goes with the net's value (or its process);
//! - before building, [`TestNet::new`] removes what a dead run left: every
//!   object named with the K it now holds (its owner held that lock, so it is
//!   gone), and every object named with a dead pid whose K's lock is free;
//! - `Drop` (also while a test panics) SIGKILLs the processes still in the
//!   net's namespaces, then deletes the bridge ports (which deletes both ends
//!   of each pair), the bridge and the namespaces; nothing of the net remains.

use std::ffi::{CString, OsStr};
use std::fmt;
use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::net::Ipv4Addr;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use nix::sched::{CloneFlags, setns};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// The prefix of every interface and namespace name of a test net.
pub const NAME_PREFIX: &str = "egt";
/// Most hosts in one net (two index digits keep names within 15 characters).
pub const MAX_HOSTS: usize = 99;
/// Where `ip netns` keeps its namespaces (iproute2's `NETNS_RUN_DIR`).
const NETNS_DIR: &str = "/run/netns";
/// Where the subnet locks live (falls back to the system temp directory).
const LOCK_DIR: &str = "/run/lock";

/// Errors of the test network.
///
/// `Debug` prints the same text as `Display`, because a test returning `Err`
/// shows the `Debug` form and it should be readable.
#[derive(thiserror::Error)]
pub enum NetError {
    #[error(
        "the multi-host tests need root (they create network namespaces, veth pairs and a \
         bridge), and this process runs as uid {uid}: run them as root"
    )]
    NotRoot { uid: u32 },
    #[error(
        "cannot run `ip` (iproute2): {source}; install it: apt-get install -y \
         --no-install-recommends iproute2"
    )]
    NoIp { source: io::Error },
    #[error("`ip {args}` failed ({status}): {stderr}")]
    Ip {
        args: String,
        status: std::process::ExitStatus,
        stderr: String,
    },
    #[error("a test net has 1 to {MAX_HOSTS} hosts, not {0}")]
    HostCount(usize),
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error(
        "no free subnet: every 198.18.K.0/24 is locked by another test net or in use on this \
         machine"
    )]
    NoFreeSubnet,
}

impl fmt::Debug for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Result of the test network.
pub type Result<T, E = NetError> = std::result::Result<T, E>;

/// Runs `ip ARGS` and returns its standard output.
fn ip(args: &[&str]) -> Result<String> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|source| NetError::NoIp { source })?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(NetError::Ip {
            args: args.join(" "),
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        })
    }
}

/// The name of the bridge of the net on subnet `k` owned by `pid`.
pub fn bridge_name(k: u8, pid: u32) -> String {
    format!("{NAME_PREFIX}{k:02x}{pid}b")
}

/// The name of host `index`'s namespace (and of its end of the veth pair).
pub fn host_name(k: u8, pid: u32, index: usize) -> String {
    format!("{NAME_PREFIX}{k:02x}{pid}h{index}")
}

/// The name of the bridge's end of host `index`'s veth pair.
fn port_name(k: u8, pid: u32, index: usize) -> String {
    format!("{NAME_PREFIX}{k:02x}{pid}p{index}")
}

/// The subnet K and the owner's pid of a test net object's name; `None` for
/// any other name.
pub fn owner_of(name: &str) -> Option<(u8, u32)> {
    let rest = name.strip_prefix(NAME_PREFIX)?;
    let k = u8::from_str_radix(rest.get(..2)?, 16).ok()?;
    let rest = rest.get(2..)?;
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let pid = rest.get(..digits)?.parse().ok()?;
    let role = rest.get(digits..)?;
    let well_formed = match role.strip_prefix(['h', 'p']) {
        Some(index) => !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()),
        None => role == "b",
    };
    well_formed.then_some((k, pid))
}

/// The address of host `index` (0: the bridge's `.1`) on subnet `k`.
fn address(k: u8, index: usize) -> Ipv4Addr {
    let last = if index == 0 { 1 } else { 10 + index };
    Ipv4Addr::new(198, 18, k, u8::try_from(last).unwrap_or(u8::MAX))
}

fn lock_path(k: u8) -> PathBuf {
    let dir = if Path::new(LOCK_DIR).is_dir() {
        PathBuf::from(LOCK_DIR)
    } else {
        std::env::temp_dir()
    };
    dir.join(format!("egret-testnet-198.18.{k}.lock"))
}

/// Takes subnet `k`'s lock when it is free. The lock files stay (removing one
/// while another process waits on it would let two processes hold "it").
fn try_lock(k: u8) -> Result<Option<File>> {
    let path = lock_path(k);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| NetError::Io {
            action: "open",
            path: path.clone(),
            source,
        })?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(source)) => Err(NetError::Io {
            action: "lock",
            path,
            source,
        }),
    }
}

fn pid_alive(pid: u32) -> bool {
    match i32::try_from(pid) {
        // EPERM means it exists; only ESRCH means it is gone.
        Ok(raw) => !matches!(
            kill(Pid::from_raw(raw), None),
            Err(nix::errno::Errno::ESRCH)
        ),
        Err(_) => false,
    }
}

/// Interfaces of the root namespace.
fn links() -> Result<Vec<String>> {
    let out = ip(&["-j", "link", "show"])?;
    let parsed: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap_or_default();
    Ok(parsed
        .iter()
        .filter_map(|l| l.get("ifname")?.as_str().map(str::to_owned))
        .collect())
}

/// Named network namespaces (`ip netns list` lists this directory).
fn namespaces() -> Vec<String> {
    std::fs::read_dir(NETNS_DIR)
        .map(|dir| {
            dir.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// SIGKILLs every process in namespace `ns`.
fn kill_processes_in(ns: &str) {
    if let Ok(out) = ip(&["netns", "pids", ns]) {
        for pid in out.split_whitespace().filter_map(|p| p.parse().ok()) {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}

fn delete_link(name: &str) {
    if let Err(e) = ip(&["link", "del", name])
        && links().is_ok_and(|l| l.iter().any(|n| n == name))
    {
        eprintln!("egret-e2e: cannot delete test interface {name}: {e}");
    }
}

fn delete_namespace(name: &str) {
    kill_processes_in(name);
    if let Err(e) = ip(&["netns", "del", name])
        && namespaces().iter().any(|n| n == name)
    {
        eprintln!("egret-e2e: cannot delete test namespace {name}: {e}");
    }
}

/// Whether an object of subnet `k` owned by `pid` was left by a dead run,
/// seen by a net that holds subnet `own`'s lock.
fn is_stale(k: u8, pid: u32, own: u8) -> bool {
    if k == own {
        // Its owner held this lock, which is ours now: the owner is gone.
        return true;
    }
    // A live owner holds its subnet's lock (the lock also guards against a
    // pid from another pid namespace that only looks dead from here).
    !pid_alive(pid) && matches!(try_lock(k), Ok(Some(_)))
}

/// Removes what dead runs left, seen by a net holding subnet `own`.
fn sweep_stale(own: u8) -> Result<()> {
    for link in links()? {
        if let Some((k, pid)) = owner_of(&link)
            && is_stale(k, pid, own)
        {
            eprintln!("egret-e2e: removing interface {link} left by a dead test run (pid {pid})");
            delete_link(&link);
        }
    }
    for ns in namespaces() {
        if let Some((k, pid)) = owner_of(&ns)
            && is_stale(k, pid, own)
        {
            eprintln!("egret-e2e: removing namespace {ns} left by a dead test run (pid {pid})");
            delete_namespace(&ns);
        }
    }
    Ok(())
}

/// Whether anything on this machine already uses subnet `k`.
fn subnet_in_use(k: u8) -> Result<bool> {
    let prefix = format!("198.18.{k}.0/24");
    let addrs = ip(&["-4", "-o", "addr", "show", "to", &prefix])?;
    let routes = ip(&["-4", "-o", "route", "show", "table", "all", "root", &prefix])?;
    Ok(!addrs.trim().is_empty() || !routes.trim().is_empty())
}

/// A bridge and N namespace hosts on subnet `198.18.K.0/24`; removed on drop.
pub struct TestNet {
    k: u8,
    bridge: String,
    hosts: Vec<Host>,
    /// Holds the net's `/etc/hosts` (see the module's "Host names").
    names: tempfile::TempDir,
    _lock: File,
}

/// The domain of the test hosts' names.
pub const DOMAIN: &str = "egret.test";

/// Makes `cmd`'s child see `hosts_file` as `/etc/hosts`: between fork and
/// exec it enters a new mount namespace, makes every mount private (so
/// nothing propagates back to the caller's namespace) and bind-mounts the
/// file. Spawning fails with the errno of the step that failed.
#[allow(unsafe_code)]
fn with_hosts_file(cmd: &mut Command, hosts_file: &Path) {
    use nix::libc;
    // Built now: the child must not allocate.
    let source = CString::new(hosts_file.as_os_str().as_bytes());
    // SAFETY: the closure runs in the forked child before exec; it calls only
    // unshare(2) and mount(2) (async-signal-safe) on strings built before the
    // fork, and reads errno; it neither allocates nor takes locks.
    unsafe {
        cmd.pre_exec(move || {
            let Ok(source) = source.as_ref() else {
                return Err(io::Error::from_raw_os_error(libc::EINVAL));
            };
            if libc::unshare(libc::CLONE_NEWNS) != 0 {
                return Err(io::Error::last_os_error());
            }
            let root = c"/";
            let none = c"none";
            if libc::mount(
                none.as_ptr(),
                root.as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
            if libc::mount(
                source.as_ptr(),
                c"/etc/hosts".as_ptr(),
                std::ptr::null(),
                libc::MS_BIND,
                std::ptr::null(),
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// One host of a [`TestNet`]: a network namespace with one interface.
#[derive(Debug, Clone)]
pub struct Host {
    index: usize,
    name: String,
    port: String,
    addr: Ipv4Addr,
    hosts_file: PathBuf,
}

impl TestNet {
    /// Builds a net of `n_hosts` hosts (1..=[`MAX_HOSTS`]) on a free subnet,
    /// after removing what dead runs left. Needs root: otherwise an error
    /// saying so (the multi-host tests never skip silently).
    pub fn new(n_hosts: usize) -> Result<TestNet> {
        let uid = nix::unistd::geteuid();
        if !uid.is_root() {
            return Err(NetError::NotRoot { uid: uid.as_raw() });
        }
        if n_hosts == 0 || n_hosts > MAX_HOSTS {
            return Err(NetError::HostCount(n_hosts));
        }
        ip(&["-V"])?;
        let pid = std::process::id();
        // Start from a pid-dependent subnet so that parallel processes rarely
        // contend for the same lock.
        let first = (pid % 256) as u8;
        for offset in 0..=u8::MAX {
            let k = first.wrapping_add(offset);
            let Some(lock) = try_lock(k)? else { continue };
            sweep_stale(k)?;
            if subnet_in_use(k)? {
                continue;
            }
            let names = tempfile::Builder::new()
                .prefix("egret-testnet-names")
                .tempdir()
                .map_err(|source| NetError::Io {
                    action: "create",
                    path: std::env::temp_dir(),
                    source,
                })?;
            let mut net = TestNet {
                k,
                bridge: bridge_name(k, pid),
                hosts: Vec::with_capacity(n_hosts),
                names,
                _lock: lock,
            };
            // On an error, dropping `net` removes what was built.
            net.build(pid, n_hosts)?;
            return Ok(net);
        }
        Err(NetError::NoFreeSubnet)
    }

    fn build(&mut self, pid: u32, n_hosts: usize) -> Result<()> {
        let bridge_cidr = format!("{}/24", self.bridge_addr());
        let bridge = self.bridge.as_str();
        ip(&["link", "add", bridge, "type", "bridge"])?;
        ip(&["addr", "add", &bridge_cidr, "dev", bridge])?;
        ip(&["link", "set", bridge, "up"])?;
        let gateway = self.bridge_addr().to_string();
        for index in 1..=n_hosts {
            let host = Host {
                index,
                name: host_name(self.k, pid, index),
                port: port_name(self.k, pid, index),
                addr: address(self.k, index),
                hosts_file: self.hosts_file(),
            };
            // Known before it exists, so that Drop removes a half-built host.
            self.hosts.push(host.clone());
            let (ns, port) = (host.name.as_str(), host.port.as_str());
            let cidr = format!("{}/24", host.addr);
            ip(&["netns", "add", ns])?;
            ip(&["link", "add", ns, "type", "veth", "peer", "name", port])?;
            ip(&["link", "set", ns, "netns", ns])?;
            ip(&["link", "set", port, "master", bridge])?;
            ip(&["link", "set", port, "up"])?;
            ip(&["-n", ns, "addr", "add", &cidr, "dev", ns])?;
            ip(&["-n", ns, "link", "set", ns, "up"])?;
            ip(&["-n", ns, "link", "set", "lo", "up"])?;
            ip(&["-n", ns, "route", "add", "default", "via", &gateway])?;
        }
        let mut table = String::from("127.0.0.1 localhost\n::1 localhost\n");
        table.push_str(&format!(
            "{} {}\n",
            self.bridge_addr(),
            self.bridge_dns_name()
        ));
        for host in &self.hosts {
            table.push_str(&format!("{} {}\n", host.addr, host.dns_name()));
        }
        let path = self.hosts_file();
        std::fs::write(&path, table).map_err(|source| NetError::Io {
            action: "write",
            path,
            source,
        })?;
        Ok(())
    }

    fn hosts_file(&self) -> PathBuf {
        self.names.path().join("hosts")
    }

    /// The bridge's host name, `bridge.egret.test`.
    pub fn bridge_dns_name(&self) -> String {
        format!("bridge.{DOMAIN}")
    }

    /// The address a name of this net stands for (what the hosts resolve it to).
    pub fn resolve(&self, name: &str) -> Option<Ipv4Addr> {
        if name == self.bridge_dns_name() {
            return Some(self.bridge_addr());
        }
        self.hosts
            .iter()
            .find(|h| h.dns_name() == name)
            .map(|h| h.addr)
    }

    /// Makes `cmd` resolve this net's names (see the module's "Host names")
    /// without entering a host: the operator's machine, in the root namespace.
    pub fn resolve_names(&self, cmd: &mut Command) {
        with_hosts_file(cmd, &self.hosts_file());
    }

    /// K: the net's subnet is `198.18.K.0/24`.
    pub fn subnet(&self) -> u8 {
        self.k
    }

    /// The bridge's address, `198.18.K.1`, in the root namespace: every host
    /// reaches a listener bound to it (ZooKeeper, a master on a "fourth host").
    pub fn bridge_addr(&self) -> Ipv4Addr {
        address(self.k, 0)
    }

    /// The bridge's interface name.
    pub fn bridge(&self) -> &str {
        &self.bridge
    }

    /// The hosts, in index order (1 first).
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// Host `index`, counted from 1 as in its name and address. Panics when
    /// there is no such host (a mistake in the test).
    pub fn host(&self, index: usize) -> &Host {
        match index.checked_sub(1).and_then(|i| self.hosts.get(i)) {
            Some(host) => host,
            None => panic!(
                "this test net has hosts 1..={}, not {index}",
                self.hosts.len()
            ),
        }
    }
}

impl Drop for TestNet {
    fn drop(&mut self) {
        for host in &self.hosts {
            kill_processes_in(&host.name);
        }
        for host in &self.hosts {
            // Deletes both ends of the pair.
            delete_link(&host.port);
        }
        delete_link(&self.bridge);
        for host in &self.hosts {
            delete_namespace(&host.name);
        }
    }
}

impl Host {
    /// Its index (1..=N).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The namespace's name (also the name of its interface inside it).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its address, `198.18.K.(10+index)`.
    pub fn addr(&self) -> Ipv4Addr {
        self.addr
    }

    /// Its host name, `host-<index>.egret.test`, which every host resolves.
    pub fn dns_name(&self) -> String {
        format!("host-{}.{DOMAIN}", self.index)
    }

    /// The name of the other end of its veth pair: a port of the bridge, in
    /// the root namespace.
    pub fn bridge_port(&self) -> &str {
        &self.port
    }

    /// The namespace's file (for `setns(2)`, or to compare with
    /// `/proc/<pid>/ns/net`).
    pub fn netns_path(&self) -> PathBuf {
        Path::new(NETNS_DIR).join(&self.name)
    }

    /// A command that runs `program` inside this host: the child enters the
    /// namespace (`setns(2)`) between fork and exec, so the spawned pid is the
    /// program itself (kill -9 of it hits the program). Besides the network
    /// namespace, only `/etc/hosts` changes (the net's names, in a private
    /// mount namespace): the rest of the file system, users and environment
    /// are the caller's. When the namespace is gone, spawning fails with its
    /// error.
    #[allow(unsafe_code)]
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new(program);
        // Opened now (O_CLOEXEC, so the program does not inherit it); an
        // error is kept as its errno and reported by spawn.
        let ns: Result<OwnedFd, i32> = File::open(self.netns_path())
            .map(OwnedFd::from)
            .map_err(|e| e.raw_os_error().unwrap_or(nix::libc::ENOENT));
        // SAFETY: the closure runs in the forked child before exec; it calls
        // only setns(2), which is async-signal-safe, and neither allocates nor
        // takes locks (errors are built from a raw errno).
        unsafe {
            cmd.pre_exec(move || match &ns {
                Ok(fd) => setns(fd, CloneFlags::CLONE_NEWNET)
                    .map_err(|e| io::Error::from_raw_os_error(e as i32)),
                Err(errno) => Err(io::Error::from_raw_os_error(*errno)),
            });
        }
        with_hosts_file(&mut cmd, &self.hosts_file);
        cmd
    }

    /// Cuts the host's link ("pull its cable"): the bridge's end of its pair
    /// goes down. The host's own interface stays up with its address and
    /// routes and sees no carrier; packets both ways are dropped silently, so
    /// a connection attempt times out (it is not refused) and established
    /// connections stall until [`Host::link_up`].
    pub fn link_down(&self) -> Result<()> {
        ip(&["link", "set", &self.port, "down"]).map(drop)
    }

    /// Restores the link [`Host::link_down`] cut.
    pub fn link_up(&self) -> Result<()> {
        ip(&["link", "set", &self.port, "up"]).map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fit_the_interface_limit_and_read_back() {
        let (k, pid) = (0xab, 4_194_304); // the largest pid Linux hands out
        for name in [
            bridge_name(k, pid),
            host_name(k, pid, MAX_HOSTS),
            port_name(k, pid, MAX_HOSTS),
        ] {
            assert!(name.len() <= 15, "{name}");
            assert_eq!(owner_of(&name), Some((k, pid)), "{name}");
        }
        assert_eq!(owner_of(&host_name(0x0a, 77, 1)), Some((0x0a, 77)));
    }

    #[test]
    fn other_names_are_not_ours() {
        for name in [
            "eth0",
            "egt",
            "egt0a",
            "egt0a123",
            "egt0a123x1",
            "egt0a123h",
            "egt0a123b1",
            "egtzz123h1",
            "egt0a123h1x",
        ] {
            assert_eq!(owner_of(name), None, "{name}");
        }
    }

    #[test]
    fn addresses_follow_the_plan() {
        assert_eq!(address(7, 0), Ipv4Addr::new(198, 18, 7, 1));
        assert_eq!(address(7, 1), Ipv4Addr::new(198, 18, 7, 11));
        assert_eq!(address(7, MAX_HOSTS), Ipv4Addr::new(198, 18, 7, 109));
    }
}
