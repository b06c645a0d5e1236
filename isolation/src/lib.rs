//! Resource isolation of a container's processes with Linux control groups
//! (contracts.md, "Resource isolation"): every instance JVM of a container
//! runs in its own cgroup, with a hard memory limit (its heap and the JVM's
//! overhead) and, when its component declared a CPU load (Storm's
//! `setCPULoad`), a hard CPU quota; its usage is read back from the same
//! cgroup's counters.
//!
//! Layout (cgroup v1, one directory per controller, `memory`, `cpu`,
//! `cpuacct`, which may share a mount):
//! `<the supervisor's own cgroup>/egret-<topology id>-c<index>/<instance id>`,
//! so that the limits nest under whatever limits the supervisor itself runs
//! with.
//!
//! cgroup v2 (unified: one directory per group for every controller), used
//! when the v1 `memory` or `cpu` hierarchy is not mounted: the same layout
//! under the supervisor's own cgroup, which must be delegated to it (owned
//! by its user, as systemd's `Delegate=yes` or a container runtime's
//! cgroup namespace gives). cgroup v2 lets processes live only in leaves of
//! a tree whose controllers are enabled, so [`Cgroups::prepare`] first moves
//! the supervisor itself into a leaf `egret-supervisor` of its cgroup, then
//! enables `+memory +cpu` in `cgroup.subtree_control` of its cgroup and of
//! the container's parent. Limits: `memory.max` (and `memory.swap.max` 0
//! where the kernel has swap accounting), `cpu.max` (`quota period`, or
//! `max`); counters: `cpu.stat`'s `usage_usec`, `memory.current`,
//! `memory.events`' `oom_kill`.
//!
//! The cgroup file interface is a handful of numbers in files; it is written
//! here directly rather than through `cgroups-rs`, whose 0.5 release pulls a
//! D-Bus client (zbus) and a second `nix` into every build for the systemd
//! manager Egret does not use.
//!
//! Invariants:
//! - a group's limits are written before any process joins it: a process
//!   enters it between fork and exec (the supervisor writes `0`, "this
//!   process", to each controller's `cgroup.procs`), so no instance runs a
//!   single instruction outside its limits;
//! - names are checked (`[A-Za-z0-9._-]`, no `..`) before they name a
//!   directory;
//! - [`Group::remove`] leaves nothing behind when the group's processes are
//!   gone; a group left by a crashed supervisor is reused (its limits
//!   rewritten) by the next one.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Bytes in a MiB.
const MIB: u64 = 1024 * 1024;
/// The CFS period the CPU quota is expressed in (100 ms, the kernel's default).
const CFS_PERIOD_US: u64 = 100_000;
/// The smallest quota the kernel accepts.
const MIN_CFS_QUOTA_US: u64 = 1_000;

#[derive(Debug, thiserror::Error)]
pub enum IsolationError {
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("no cgroup v1 hierarchy with the {0} controller is mounted (see /proc/self/mountinfo)")]
    NoController(&'static str),
    #[error(
        "cgroup v2: the {controller} controller is not available to Egret's cgroup {dir} \
         (its parent's cgroup.subtree_control must enable it: run Egret in a delegated \
         cgroup, e.g. systemd's Delegate=yes), or set egret.isolation: none"
    )]
    NotDelegated {
        controller: &'static str,
        dir: PathBuf,
    },
    #[error("'{0}' cannot name a cgroup (letters, digits, '.', '_' and '-' only)")]
    BadName(String),
    #[error("{path} does not hold a number: {text:?}")]
    NotANumber { path: PathBuf, text: String },
}

fn io_err<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(io::Error) -> IsolationError + 'a {
    move |source| IsolationError::Io {
        action,
        path: path.to_owned(),
        source,
    }
}

/// What an instance may use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// The memory limit of the whole process (heap and the rest), in MiB.
    pub memory_mb: u64,
    /// A hard CPU limit, in cores (0.5: half a core); `None`: unlimited.
    pub cpu_cores: Option<f64>,
}

/// A cgroup v1 controller Egret uses, or v2's one unified hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Controller {
    Memory,
    Cpu,
    CpuAcct,
    Unified,
}

impl Controller {
    const ALL: [Controller; 3] = [Controller::Memory, Controller::Cpu, Controller::CpuAcct];

    fn name(self) -> &'static str {
        match self {
            Controller::Memory => "memory",
            Controller::Cpu => "cpu",
            Controller::CpuAcct => "cpuacct",
            Controller::Unified => "unified",
        }
    }
}

/// Where this process sits in each controller's hierarchy: the parent of
/// every group it creates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cgroups {
    /// (controller, this process's cgroup directory in it).
    bases: Vec<(Controller, PathBuf)>,
}

impl Cgroups {
    /// Finds this process's cgroups from `/proc/self/mountinfo` and
    /// `/proc/self/cgroup`.
    pub fn detect() -> Result<Self, IsolationError> {
        let mountinfo_path = Path::new("/proc/self/mountinfo");
        let cgroup_path = Path::new("/proc/self/cgroup");
        let mountinfo =
            fs::read_to_string(mountinfo_path).map_err(io_err("read", mountinfo_path))?;
        let cgroup = fs::read_to_string(cgroup_path).map_err(io_err("read", cgroup_path))?;
        Self::from_tables(&mountinfo, &cgroup)
    }

    /// [`Cgroups::detect`] on given contents of `mountinfo` and `cgroup`.
    pub fn from_tables(mountinfo: &str, cgroup: &str) -> Result<Self, IsolationError> {
        let mut bases = Vec::new();
        for controller in Controller::ALL {
            let Some((mount_root, mount_point)) = v1_mount(mountinfo, controller.name()) else {
                if let Some(base) = v2_base(mountinfo, cgroup) {
                    return Ok(Cgroups {
                        bases: vec![(Controller::Unified, base)],
                    });
                }
                return Err(IsolationError::NoController(controller.name()));
            };
            let own = own_path(cgroup, controller.name()).unwrap_or("/");
            bases.push((controller, cgroup_dir(&mount_root, &mount_point, own)));
        }
        Ok(Cgroups { bases })
    }

    /// Creates (or reuses) the group `parent/name` below this process's
    /// cgroups, with `limits`. The parent (`egret-<id>-c<i>`) is created as
    /// needed, without limits of its own.
    pub fn create(
        &self,
        parent: &str,
        name: &str,
        limits: &Limits,
    ) -> Result<Group, IsolationError> {
        let parent = checked(parent)?;
        let name = checked(name)?;
        let mut dirs = Vec::with_capacity(self.bases.len());
        for (controller, base) in &self.bases {
            let dir = base.join(parent).join(name);
            fs::create_dir_all(&dir).map_err(io_err("create", &dir))?;
            dirs.push((*controller, dir));
        }
        let group = Group { dirs };
        group.apply(limits)?;
        Ok(group)
    }

    /// Creates the parent `parent` of a container's groups (without limits of
    /// its own): the first write a host may refuse (not root).
    pub fn prepare(&self, parent: &str) -> Result<(), IsolationError> {
        let parent = checked(parent)?;
        for (controller, base) in &self.bases {
            if *controller == Controller::Unified {
                enable_v2_controllers(base)?;
            }
            let dir = base.join(parent);
            fs::create_dir_all(&dir).map_err(io_err("create", &dir))?;
            if *controller == Controller::Unified {
                write(&dir.join("cgroup.subtree_control"), V2_CONTROLLERS)?;
            }
        }
        Ok(())
    }

    /// Removes the parent `parent` and every group below it, in every
    /// controller: what a container killed before its own cleanup left
    /// behind. Returns how many directories were removed (0 when there was
    /// nothing). A group whose processes have not exited yet is refused by
    /// the kernel (`EBUSY`), and so is the whole call.
    pub fn remove_tree(&self, parent: &str) -> Result<usize, IsolationError> {
        let parent = checked(parent)?;
        let mut removed = 0;
        for (_, base) in &self.bases {
            let dir = base.join(parent);
            let entries = match fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io_err("list", &dir)(e)),
            };
            for entry in entries {
                let entry = entry.map_err(io_err("list", &dir))?;
                let is_dir = entry
                    .file_type()
                    .map_err(io_err("list", &entry.path()))?
                    .is_dir();
                if is_dir {
                    remove_dir(&entry.path())?;
                    removed += 1;
                }
            }
            remove_dir(&dir)?;
            removed += 1;
        }
        Ok(removed)
    }

    /// Removes the parent `parent` (once its groups are removed); a missing
    /// one is fine.
    pub fn remove_parent(&self, parent: &str) -> Result<(), IsolationError> {
        let parent = checked(parent)?;
        for (_, base) in &self.bases {
            remove_dir(&base.join(parent))?;
        }
        Ok(())
    }
}

/// The leaf of the supervisor's own v2 cgroup that it moves itself into.
pub const V2_SUPERVISOR_LEAF: &str = "egret-supervisor";
/// What Egret enables in a v2 `cgroup.subtree_control`.
const V2_CONTROLLERS: &str = "+memory +cpu";

/// cgroup v2: makes `memory` and `cpu` available to the groups below `base`
/// (this process's cgroup). A cgroup with member processes cannot enable
/// controllers for its children, so the processes of `base` (this one, and
/// any other it holds) move to the leaf [`V2_SUPERVISOR_LEAF`] first.
/// Nothing is done when `cgroup.subtree_control` already has both.
fn enable_v2_controllers(base: &Path) -> Result<(), IsolationError> {
    let available = base.join("cgroup.controllers");
    let text = fs::read_to_string(&available).map_err(io_err("read", &available))?;
    for controller in ["memory", "cpu"] {
        if !text.split_whitespace().any(|c| c == controller) {
            return Err(IsolationError::NotDelegated {
                controller,
                dir: base.to_owned(),
            });
        }
    }
    let subtree = base.join("cgroup.subtree_control");
    let enabled = fs::read_to_string(&subtree).map_err(io_err("read", &subtree))?;
    let has = |c: &str| enabled.split_whitespace().any(|e| e == c);
    if has("memory") && has("cpu") {
        return Ok(());
    }
    let leaf = base.join(V2_SUPERVISOR_LEAF);
    fs::create_dir_all(&leaf).map_err(io_err("create", &leaf))?;
    let procs = base.join("cgroup.procs");
    let members = fs::read_to_string(&procs).map_err(io_err("read", &procs))?;
    let leaf_procs = leaf.join("cgroup.procs");
    for pid in members.split_whitespace() {
        // A process that exited meanwhile cannot move: not an error.
        match fs::write(&leaf_procs, pid) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(ESRCH) => {}
            Err(e) => return Err(io_err("write", &leaf_procs)(e)),
        }
    }
    write(&subtree, V2_CONTROLLERS)
}

/// Linux's `ESRCH` (the process named does not exist), as the kernel returns
/// it for a `cgroup.procs` write of a pid that exited.
const ESRCH: i32 = 3;

/// This process's cgroup directory in the v2 hierarchy (`0::/path` of
/// `/proc/self/cgroup`), when one is mounted.
fn v2_base(mountinfo: &str, cgroup: &str) -> Option<PathBuf> {
    let (root, point) = mountinfo.lines().find_map(|line| {
        let mount = mount_fields(line)?;
        (mount.fstype == "cgroup2").then(|| (mount.root.to_owned(), mount.point.to_owned()))
    })?;
    let own = cgroup
        .lines()
        .find_map(|line| line.strip_prefix("0::"))
        .unwrap_or("/");
    Some(cgroup_dir(&root, &point, own))
}

/// A cgroup directory name for `id` (an instance or topology id, which may
/// hold any character Storm allows in a component id, e.g. `$checkpointspout`):
/// letters, digits and `-` stay, every other byte becomes `_` and its two hex
/// digits (`_` and `.` included), so distinct ids keep distinct names and none
/// is `.` or `..`.
pub fn cgroup_name(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for byte in id.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'-' {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("_{byte:02x}"));
        }
    }
    out
}

/// The parent group of container `index`'s instance groups for topology
/// `topology_id`: `egret-<id>-c<index>`, the one name the container and the
/// scheduler that sweeps after it use.
pub fn container_group(topology_id: &str, index: i32) -> String {
    format!("egret-{}-c{index}", cgroup_name(topology_id))
}

/// The directory of process `pid`'s cgroup in the v1 hierarchy of
/// `controller` (`memory`, `cpu`, `cpuacct`), from `/proc/self/mountinfo`
/// and `/proc/<pid>/cgroup`: where an instance's limits and counters are.
pub fn controller_dir_of(pid: u32, controller: &str) -> Result<PathBuf, IsolationError> {
    let mountinfo_path = Path::new("/proc/self/mountinfo");
    let mountinfo = fs::read_to_string(mountinfo_path).map_err(io_err("read", mountinfo_path))?;
    let cgroup_path = PathBuf::from(format!("/proc/{pid}/cgroup"));
    let cgroup = fs::read_to_string(&cgroup_path).map_err(io_err("read", &cgroup_path))?;
    let name = Controller::ALL
        .into_iter()
        .map(Controller::name)
        .find(|n| *n == controller)
        .ok_or(IsolationError::NoController("(unknown)"))?;
    match v1_mount(&mountinfo, name) {
        Some((root, point)) => {
            let own = own_path(&cgroup, name).unwrap_or("/");
            Ok(cgroup_dir(&root, &point, own))
        }
        None => v2_base(&mountinfo, &cgroup).ok_or(IsolationError::NoController(name)),
    }
}

/// The directory of the cgroup `own` (a path of `/proc/<pid>/cgroup`) in a
/// hierarchy whose mount shows `mount_root` at `mount_point`. Inside a
/// container the mount's root is the container's own cgroup: the directory
/// is what `own` holds past it.
fn cgroup_dir(mount_root: &str, mount_point: &str, own: &str) -> PathBuf {
    let relative = own
        .strip_prefix(mount_root)
        .unwrap_or(own)
        .trim_start_matches('/');
    PathBuf::from(mount_point).join(relative)
}

fn checked(name: &str) -> Result<&str, IsolationError> {
    let ok = !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(name)
    } else {
        Err(IsolationError::BadName(name.to_owned()))
    }
}

fn remove_dir(dir: &Path) -> Result<(), IsolationError> {
    match fs::remove_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_err("remove", dir)(e)),
    }
}

struct Mount<'a> {
    root: &'a str,
    point: &'a str,
    fstype: &'a str,
    super_options: &'a str,
}

/// The fields of a mountinfo line (proc(5)): root is field 4, the mount point
/// field 5; after the " - " separator come the type, the source and the
/// super options.
fn mount_fields(line: &str) -> Option<Mount<'_>> {
    let (before, after) = line.split_once(" - ")?;
    let mut head = before.split(' ');
    let root = head.nth(3)?;
    let point = head.next()?;
    let mut tail = after.split(' ');
    let fstype = tail.next()?;
    let _source = tail.next()?;
    let super_options = tail.next().unwrap_or("");
    Some(Mount {
        root,
        point,
        fstype,
        super_options,
    })
}

/// The (root, mount point) of the v1 hierarchy holding `controller`.
fn v1_mount(mountinfo: &str, controller: &str) -> Option<(String, String)> {
    mountinfo.lines().find_map(|line| {
        let mount = mount_fields(line)?;
        (mount.fstype == "cgroup" && mount.super_options.split(',').any(|o| o == controller))
            .then(|| (mount.root.to_owned(), mount.point.to_owned()))
    })
}

/// This process's path in `controller`'s hierarchy (`/proc/self/cgroup`:
/// `id:controller[,controller]:path`).
fn own_path<'a>(cgroup: &'a str, controller: &str) -> Option<&'a str> {
    cgroup.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let _id = parts.next()?;
        let controllers = parts.next()?;
        let path = parts.next()?;
        controllers
            .split(',')
            .any(|c| c == controller)
            .then_some(path)
    })
}

/// What an instance's group has used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// CPU time of every process that ran in the group, nanoseconds.
    pub cpu_ns: u64,
    /// Memory charged to the group now, bytes.
    pub memory_bytes: u64,
    /// Processes the kernel killed for exceeding the memory limit.
    pub oom_kills: u64,
}

/// One instance's cgroup, in every controller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    dirs: Vec<(Controller, PathBuf)>,
}

impl Group {
    fn dir(&self, controller: Controller) -> Option<&Path> {
        self.dirs
            .iter()
            .find(|(c, _)| *c == controller)
            .map(|(_, d)| d.as_path())
    }

    fn apply(&self, limits: &Limits) -> Result<(), IsolationError> {
        if let Some(dir) = self.dir(Controller::Unified) {
            let bytes = limits.memory_mb.saturating_mul(MIB);
            write(&dir.join("memory.max"), &bytes.to_string())?;
            // Without swap accounting the file does not exist: nothing to cap.
            let swap = dir.join("memory.swap.max");
            if swap.exists() {
                write(&swap, "0")?;
            }
            let quota = match cfs_quota_us(limits.cpu_cores) {
                Some(us) => us.to_string(),
                None => "max".to_owned(),
            };
            write(&dir.join("cpu.max"), &format!("{quota} {CFS_PERIOD_US}"))?;
        }
        if let Some(memory) = self.dir(Controller::Memory) {
            let bytes = limits.memory_mb.saturating_mul(MIB);
            write(&memory.join("memory.limit_in_bytes"), &bytes.to_string())?;
        }
        if let Some(cpu) = self.dir(Controller::Cpu) {
            write(&cpu.join("cpu.cfs_period_us"), &CFS_PERIOD_US.to_string())?;
            let quota = match cfs_quota_us(limits.cpu_cores) {
                Some(us) => us.to_string(),
                None => "-1".to_owned(),
            };
            write(&cpu.join("cpu.cfs_quota_us"), &quota)?;
        }
        Ok(())
    }

    /// The `cgroup.procs` file of every controller: a process writing `0`
    /// to each joins the group (see the supervisor's placement).
    pub fn procs_files(&self) -> Vec<PathBuf> {
        self.dirs
            .iter()
            .map(|(_, d)| d.join("cgroup.procs"))
            .collect()
    }

    /// The group's directory in the memory hierarchy (v2: the group's one
    /// directory), for logs and tests.
    pub fn memory_dir(&self) -> Option<&Path> {
        self.dir(Controller::Memory)
            .or_else(|| self.dir(Controller::Unified))
    }

    /// The group's counters now.
    pub fn usage(&self) -> Result<Usage, IsolationError> {
        let mut usage = Usage::default();
        if let Some(dir) = self.dir(Controller::Unified) {
            let stat = dir.join("cpu.stat");
            let text = fs::read_to_string(&stat).map_err(io_err("read", &stat))?;
            usage.cpu_ns = keyed(&text, "usage_usec").saturating_mul(1_000);
            usage.memory_bytes = read_number(&dir.join("memory.current"))?;
            let events = dir.join("memory.events");
            let text = fs::read_to_string(&events).map_err(io_err("read", &events))?;
            usage.oom_kills = keyed(&text, "oom_kill");
        }
        if let Some(acct) = self.dir(Controller::CpuAcct) {
            usage.cpu_ns = read_number(&acct.join("cpuacct.usage"))?;
        }
        if let Some(memory) = self.dir(Controller::Memory) {
            usage.memory_bytes = read_number(&memory.join("memory.usage_in_bytes"))?;
            let control = memory.join("memory.oom_control");
            let text = fs::read_to_string(&control).map_err(io_err("read", &control))?;
            // "oom_kill N" exists since Linux 4.13.
            usage.oom_kills = text
                .lines()
                .find_map(|l| l.strip_prefix("oom_kill "))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(0);
        }
        Ok(usage)
    }

    /// Removes the group's directories (its processes must be gone: the
    /// kernel refuses to remove a cgroup with members).
    pub fn remove(&self) -> Result<(), IsolationError> {
        for (_, dir) in &self.dirs {
            remove_dir(dir)?;
        }
        Ok(())
    }
}

/// The CFS quota of `cores` per [`CFS_PERIOD_US`]; `None`: unlimited.
fn cfs_quota_us(cores: Option<f64>) -> Option<u64> {
    match cores {
        Some(cores) if cores.is_finite() && cores > 0.0 => {
            let us = (cores * CFS_PERIOD_US as f64).round() as u64;
            Some(us.max(MIN_CFS_QUOTA_US))
        }
        _ => None,
    }
}

/// The number after `key` in a flat-keyed cgroup file (`key value` lines);
/// 0 when absent.
fn keyed(text: &str, key: &str) -> u64 {
    text.lines()
        .find_map(|l| {
            let (k, v) = l.split_once(' ')?;
            (k == key).then(|| v.trim().parse().ok()).flatten()
        })
        .unwrap_or(0)
}

fn write(path: &Path, value: &str) -> Result<(), IsolationError> {
    fs::write(path, value).map_err(io_err("write", path))
}

fn read_number(path: &Path) -> Result<u64, IsolationError> {
    let text = fs::read_to_string(path).map_err(io_err("read", path))?;
    text.trim().parse().map_err(|_| IsolationError::NotANumber {
        path: path.to_owned(),
        text: text.trim().to_owned(),
    })
}

#[cfg(test)]
mod tests;
