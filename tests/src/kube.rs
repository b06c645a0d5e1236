//! A real Kubernetes control plane for the scheduler's tests: etcd and
//! kube-apiserver on loopback, no mock (see `docs/internals/testing.md`,
//! "Kubernetes control plane").
//!
//! The binaries are built once per machine from the Go module proxy by
//! `tools/k8s-control-plane/build` (`./egret-dev build` runs it), at the
//! versions its `go.mod` pins, into `~/.cache/egret/k8s/<key>/bin/`. This
//! module never builds them (a fresh build takes many minutes, which a test
//! should not hide): [`ControlPlane::start`] finds them (`EGRET_K8S_BIN_DIR`
//! first, else the directory the script names) and says how to build them
//! when they are missing.
//!
//! A [`ControlPlane`] is, in a fresh temporary directory
//! `egret-kube-<pid>-XXXXXX`:
//! - etcd, one member, listening for clients and peers on free loopback ports
//!   only, its data in `etcd/` (fsync off: a test's data need not survive a
//!   crash of the machine);
//! - kube-apiserver with its secure port on a free loopback port and nothing
//!   else: serving certificate for `127.0.0.1`/`localhost` from a CA made here
//!   with rcgen, a service-account signing key, RBAC authorization, and the
//!   admin credential a client certificate of group `system:masters` signed by
//!   that CA (RBAC lets that group do everything);
//! - `kubeconfig`, naming the server, the CA and the admin credential by path.
//!
//! No kube-controller-manager, scheduler or kubelet runs: objects are stored,
//! validated, defaulted and admitted as on a real cluster, but nothing acts on
//! them (no pods for a StatefulSet, no namespace finalization, no service
//! account tokens). The admission plugins are the apiserver's defaults less
//! `ServiceAccount`, which refuses pods whose service account no controller
//! made. Service cluster IPs come from `198.19.0.0/24` (RFC 2544's benchmark
//! range): they are only numbers in objects, no packet is sent to them.
//!
//! Invariants:
//! - [`ControlPlane::start`] returns only once `/readyz` answers `ok` to the
//!   admin credential; it fails, never hangs, within [`START_TIMEOUT`], and a
//!   server that exits or does not become ready fails it with its log's tail;
//! - `Drop` (also while a test panics, when it prints both logs' tails first)
//!   SIGKILLs kube-apiserver, then etcd, reaps them and removes the directory;
//! - a process of a plane whose test process died (SIGKILL leaves no `Drop`)
//!   is found by the `egret-kube-<pid>-` in its arguments and killed, and its
//!   directory removed, by the next [`ControlPlane::start`] on the machine.

pub mod kubelet;

use std::fmt;
use std::fs;
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tempfile::TempDir;

/// How long etcd and kube-apiserver together may take to become ready. An
/// idle machine needs a few seconds; two busy cores (CI's other builds) much
/// more.
pub const START_TIMEOUT: Duration = Duration::from_secs(180);

/// Overrides where the binaries are (a directory with `etcd` and
/// `kube-apiserver`).
pub const BIN_DIR_ENV: &str = "EGRET_K8S_BIN_DIR";

/// The build script, relative to the workspace root.
pub const BUILD_SCRIPT: &str = "tools/k8s-control-plane/build";

/// The prefix of every control plane's temporary directory name, followed by
/// the owning process's id and a dash.
pub const DIR_PREFIX: &str = "egret-kube-";

/// The group of the admin client certificate: RBAC grants it everything.
pub const ADMIN_GROUP: &str = "system:masters";

/// The user name of the admin client certificate.
pub const ADMIN_USER: &str = "egret-test-admin";

/// The service cluster IP range (no packet is ever sent there).
pub const SERVICE_CIDR: &str = "198.19.0.0/24";

/// How many log lines an error or a panicking test's `Drop` shows.
const LOG_TAIL: usize = 40;

/// Errors of the control plane.
///
/// `Debug` prints the same text as `Display`, because a test returning `Err`
/// shows the `Debug` form and it should be readable.
#[derive(thiserror::Error)]
pub enum KubeError {
    #[error(
        "{binary} not found at {path}: build the test control plane with {script} (a fresh \
         build of kube-apiserver took 14-23 minutes on 2 busy cores; ./egret-dev build runs it), or \
         set {BIN_DIR_ENV} to a directory holding etcd and kube-apiserver"
    )]
    MissingBinary {
        binary: &'static str,
        path: PathBuf,
        script: PathBuf,
    },
    #[error("cannot run {script} --bin-dir to find the control plane's binaries: {problem}")]
    BuildScript { script: PathBuf, problem: String },
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("cannot generate the control plane's {what}: {problem}")]
    Credentials { what: &'static str, problem: String },
    #[error("{server} exited ({status}) before it was ready; the tail of {log}:\n{tail}")]
    Exited {
        server: &'static str,
        status: String,
        log: PathBuf,
        tail: String,
    },
    #[error(
        "{server} was not ready after {secs:.1} s (last answer: {last}); the tail of {log}:\n{tail}"
    )]
    NotReady {
        server: &'static str,
        secs: f64,
        last: String,
        log: PathBuf,
        tail: String,
    },
    #[error("cannot make a Kubernetes client from {path}: {problem}")]
    Client { path: PathBuf, problem: String },
}

impl fmt::Debug for KubeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Result of the control plane.
pub type Result<T, E = KubeError> = std::result::Result<T, E>;

fn io_err(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> KubeError {
    let path = path.to_path_buf();
    move |source| KubeError::Io {
        action,
        path,
        source,
    }
}

/// Where the binaries are: `$EGRET_K8S_BIN_DIR`, else what the build script
/// prints for `--bin-dir` (it knows the cache key; no Go is needed for that).
pub fn bin_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os(BIN_DIR_ENV).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let script = crate::workspace_root().join(BUILD_SCRIPT);
    let fail = |problem: String| KubeError::BuildScript {
        script: script.clone(),
        problem,
    };
    let out = Command::new("bash")
        .arg(&script)
        .arg("--bin-dir")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| fail(e.to_string()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let dir = stdout.trim();
    if !out.status.success() || dir.is_empty() {
        return Err(fail(format!(
            "{}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(PathBuf::from(dir))
}

/// The paths of `etcd` and `kube-apiserver`, or how to build them.
pub fn binaries() -> Result<(PathBuf, PathBuf)> {
    let dir = bin_dir()?;
    let script = crate::workspace_root().join(BUILD_SCRIPT);
    let find = |binary: &'static str| {
        let path = dir.join(binary);
        if path.is_file() {
            Ok(path)
        } else {
            Err(KubeError::MissingBinary {
                binary,
                path,
                script: script.clone(),
            })
        }
    };
    Ok((find("etcd")?, find("kube-apiserver")?))
}

/// The PEM files of a control plane's credentials, under `<dir>/pki`.
#[derive(Debug, Clone)]
pub struct Pki {
    /// The CA that signed the serving and the admin certificates.
    pub ca_cert: PathBuf,
    pub serving_cert: PathBuf,
    pub serving_key: PathBuf,
    /// The admin client certificate (user [`ADMIN_USER`], group [`ADMIN_GROUP`]).
    pub admin_cert: PathBuf,
    pub admin_key: PathBuf,
    /// The service-account token signing key (ECDSA P-256, PKCS#8).
    pub service_account_key: PathBuf,
    /// Its public half (SubjectPublicKeyInfo), which verifies tokens: the
    /// server reads no public key from a PKCS#8 private key file.
    pub service_account_public_key: PathBuf,
}

fn name(common_name: &str, organization: Option<&str>) -> DistinguishedName {
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, common_name);
    if let Some(org) = organization {
        name.push(DnType::OrganizationName, org);
    }
    name
}

fn write_private(path: &Path, contents: &str) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(io_err("create", path))?;
    file.write_all(contents.as_bytes())
        .map_err(io_err("write", path))
}

impl Pki {
    /// A new CA, serving certificate, admin certificate and service-account
    /// key, written to `dir` (which must not hold them yet).
    pub fn generate(dir: &Path) -> Result<Self> {
        let fail = |what: &'static str| {
            move |e: rcgen::Error| KubeError::Credentials {
                what,
                problem: e.to_string(),
            }
        };
        fs::create_dir_all(dir).map_err(io_err("create", dir))?;

        let ca_key = KeyPair::generate().map_err(fail("CA key"))?;
        let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(fail("CA"))?;
        ca.distinguished_name = name("egret test kubernetes CA", None);
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca_pem = ca.self_signed(&ca_key).map_err(fail("CA"))?.pem();
        let issuer = Issuer::new(ca, ca_key);

        let leaf = |what: &'static str,
                    sans: Vec<String>,
                    subject: DistinguishedName,
                    usage: ExtendedKeyUsagePurpose|
         -> Result<(String, String)> {
            let key = KeyPair::generate().map_err(fail(what))?;
            let mut params = CertificateParams::new(sans).map_err(fail(what))?;
            params.distinguished_name = subject;
            params.is_ca = IsCa::ExplicitNoCa;
            params.key_usages = vec![
                KeyUsagePurpose::DigitalSignature,
                KeyUsagePurpose::KeyEncipherment,
            ];
            params.extended_key_usages = vec![usage];
            params.use_authority_key_identifier_extension = true;
            let cert = params.signed_by(&key, &issuer).map_err(fail(what))?;
            Ok((cert.pem(), key.serialize_pem()))
        };
        // The names a client inside the cluster would use too, for the
        // scheduler's pods-as-the-kubelet-runs-them tests.
        let serving_sans = [
            "127.0.0.1",
            "localhost",
            "kubernetes",
            "kubernetes.default",
            "kubernetes.default.svc",
            "kubernetes.default.svc.cluster.local",
        ]
        .map(str::to_owned)
        .to_vec();
        let (serving_pem, serving_key_pem) = leaf(
            "serving certificate",
            serving_sans,
            name("kube-apiserver", None),
            ExtendedKeyUsagePurpose::ServerAuth,
        )?;
        let (admin_pem, admin_key_pem) = leaf(
            "admin client certificate",
            Vec::new(),
            name(ADMIN_USER, Some(ADMIN_GROUP)),
            ExtendedKeyUsagePurpose::ClientAuth,
        )?;
        let sa_key = KeyPair::generate().map_err(fail("service-account key"))?;

        let pki = Self {
            ca_cert: dir.join("ca.crt"),
            serving_cert: dir.join("apiserver.crt"),
            serving_key: dir.join("apiserver.key"),
            admin_cert: dir.join("admin.crt"),
            admin_key: dir.join("admin.key"),
            service_account_key: dir.join("service-account.key"),
            service_account_public_key: dir.join("service-account.pub"),
        };
        write_private(&pki.ca_cert, &ca_pem)?;
        write_private(&pki.serving_cert, &serving_pem)?;
        write_private(&pki.serving_key, &serving_key_pem)?;
        write_private(&pki.admin_cert, &admin_pem)?;
        write_private(&pki.admin_key, &admin_key_pem)?;
        write_private(&pki.service_account_key, &sa_key.serialize_pem())?;
        write_private(&pki.service_account_public_key, &sa_key.public_key_pem())?;
        Ok(pki)
    }

    /// A rustls client configuration that trusts the CA and presents the
    /// admin certificate.
    fn admin_tls(&self) -> Result<rustls::ClientConfig> {
        let fail = |what: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |e: rustls_pki_types::pem::Error| KubeError::Io {
                action: what,
                path,
                source: io::Error::other(e.to_string()),
            }
        };
        let tls_fail = |e: rustls::Error| KubeError::Credentials {
            what: "TLS client configuration",
            problem: e.to_string(),
        };
        let mut roots = rustls::RootCertStore::empty();
        let ca = CertificateDer::from_pem_file(&self.ca_cert)
            .map_err(fail("read a PEM certificate from", &self.ca_cert))?;
        roots.add(ca).map_err(tls_fail)?;
        let chain = vec![
            CertificateDer::from_pem_file(&self.admin_cert)
                .map_err(fail("read a PEM certificate from", &self.admin_cert))?,
        ];
        let key = PrivateKeyDer::from_pem_file(&self.admin_key)
            .map_err(fail("read a PEM key from", &self.admin_key))?;
        rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(tls_fail)?
        .with_root_certificates(roots)
        .with_client_auth_cert(chain, key)
        .map_err(tls_fail)
    }
}

/// A running server: its process and its log file. Dropping it SIGKILLs and
/// reaps the process.
struct Server {
    name: &'static str,
    child: Child,
    log: PathBuf,
}

impl Server {
    fn spawn(name: &'static str, program: &Path, args: &[String], log: PathBuf) -> Result<Self> {
        let out = fs::File::create(&log).map_err(io_err("create", &log))?;
        let err = out.try_clone().map_err(io_err("open", &log))?;
        let child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(io_err("run", program))?;
        Ok(Self { name, child, log })
    }

    fn tail(&self) -> String {
        match fs::read(&self.log) {
            Ok(bytes) => crate::tail(&String::from_utf8_lossy(&bytes), LOG_TAIL),
            Err(e) => format!("(cannot read it: {e})"),
        }
    }

    /// `Err` when the process has exited.
    fn check_running(&mut self) -> Result<()> {
        match self.child.try_wait() {
            Ok(None) => Ok(()),
            Ok(Some(status)) => Err(KubeError::Exited {
                server: self.name,
                status: status.to_string(),
                log: self.log.clone(),
                tail: self.tail(),
            }),
            Err(e) => Err(KubeError::Exited {
                server: self.name,
                status: format!("cannot wait for it: {e}"),
                log: self.log.clone(),
                tail: self.tail(),
            }),
        }
    }

    /// Polls `probe` (which says what it saw) until it returns `Ok`, the
    /// process exits, or `deadline` passes.
    fn wait_ready(
        &mut self,
        start: Instant,
        deadline: Instant,
        mut probe: impl FnMut() -> std::result::Result<(), String>,
    ) -> Result<()> {
        loop {
            self.check_running()?;
            let last = match probe() {
                Ok(()) => return Ok(()),
                Err(seen) => seen,
            };
            if Instant::now() >= deadline {
                return Err(KubeError::NotReady {
                    server: self.name,
                    secs: start.elapsed().as_secs_f64(),
                    last,
                    log: self.log.clone(),
                    tail: self.tail(),
                });
            }
            thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Already exited is fine: errors are ignored, the wait reaps it.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free loopback port, held until the listener is dropped (just before the
/// server that takes it starts).
fn reserve_port() -> Result<(TcpListener, u16)> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
    let listener = TcpListener::bind(addr).map_err(|source| KubeError::Io {
        action: "bind a free port on",
        path: PathBuf::from("127.0.0.1"),
        source,
    })?;
    let port = listener
        .local_addr()
        .map_err(io_err("read the port of", Path::new("127.0.0.1")))?
        .port();
    Ok((listener, port))
}

/// The status line and body of one plain HTTP GET (`Connection: close`).
fn http_get(stream: &mut impl ReadWrite, path: &str) -> io::Result<(String, String)> {
    // One write: `write!` on an unbuffered stream sends each piece of the format
    // as its own write, and a server that answers after its first read would
    // close on the rest (a broken pipe here).
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes())?;
    stream.flush()?;
    let mut raw = Vec::new();
    // A server that closes without TLS's close_notify still sent a whole
    // response; what was read is used.
    if let Err(e) = stream.read_to_end(&mut raw)
        && raw.is_empty()
    {
        return Err(e);
    }
    let text = String::from_utf8_lossy(&raw);
    let status = text.lines().next().unwrap_or_default().trim().to_owned();
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.trim().to_owned())
        .unwrap_or_default();
    Ok((status, body))
}

trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

fn connect(port: u16) -> io::Result<TcpStream> {
    let stream = TcpStream::connect_timeout(
        &SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
        PROBE_TIMEOUT,
    )?;
    stream.set_read_timeout(Some(PROBE_TIMEOUT))?;
    stream.set_write_timeout(Some(PROBE_TIMEOUT))?;
    Ok(stream)
}

/// etcd's `/health` on its client port.
fn etcd_healthy(port: u16) -> std::result::Result<(), String> {
    let mut stream = connect(port).map_err(|e| e.to_string())?;
    let (status, body) = http_get(&mut stream, "/health").map_err(|e| e.to_string())?;
    if status.contains(" 200") && body.contains("\"health\":\"true\"") {
        Ok(())
    } else {
        Err(format!("{status} {body}"))
    }
}

/// kube-apiserver's `/readyz` with the admin credential.
fn apiserver_ready(port: u16, tls: &Arc<rustls::ClientConfig>) -> std::result::Result<(), String> {
    let stream = connect(port).map_err(|e| e.to_string())?;
    let name = ServerName::IpAddress(Ipv4Addr::LOCALHOST.into());
    let conn = rustls::ClientConnection::new(Arc::clone(tls), name).map_err(|e| e.to_string())?;
    let mut tls_stream = rustls::StreamOwned::new(conn, stream);
    let (status, body) = http_get(&mut tls_stream, "/readyz").map_err(|e| e.to_string())?;
    if status.contains(" 200") && body == "ok" {
        Ok(())
    } else {
        Err(format!("{status} {}", crate::tail(&body, 5)))
    }
}

/// Kills what planes of dead test processes left, and removes their
/// directories.
fn remove_leftovers(temp: &Path) {
    let me = std::process::id();
    let owner_dead = |text: &str| -> Option<u32> {
        let start = text.find(DIR_PREFIX)? + DIR_PREFIX.len();
        let rest = text.get(start..)?;
        let end = rest.find('-')?;
        let pid: u32 = rest.get(..end)?.parse().ok()?;
        let alive = i32::try_from(pid)
            .is_ok_and(|p| !matches!(kill(Pid::from_raw(p), None), Err(nix::errno::Errno::ESRCH)));
        (pid != me && !alive).then_some(pid)
    };
    for (pid, cmdline) in crate::processes_mentioning(DIR_PREFIX) {
        // Only the two servers: never a shell or a tool that names the path.
        let program = cmdline.split(' ').next().unwrap_or_default();
        let server = ["etcd", "kube-apiserver"]
            .iter()
            .any(|b| Path::new(program).file_name().is_some_and(|n| n == *b));
        if server && owner_dead(&cmdline).is_some() {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
    let Ok(entries) = fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if owner_dead(&name.to_string_lossy()).is_some() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// etcd and kube-apiserver, running until this value is dropped.
pub struct ControlPlane {
    // Field order is drop order after `Drop::drop`: kube-apiserver is killed
    // first, then etcd; the directory goes last.
    apiserver: Server,
    etcd: Server,
    url: String,
    kubeconfig: PathBuf,
    pki: Pki,
    dir: TempDir,
}

impl fmt::Debug for ControlPlane {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ControlPlane")
            .field("url", &self.url)
            .field("dir", &self.dir.path())
            .finish_non_exhaustive()
    }
}

impl ControlPlane {
    /// Starts etcd, then kube-apiserver, and waits until the API server is
    /// ready (see the module doc). It blocks (1 to 2 s on an idle machine):
    /// call it before entering an async runtime, or in `spawn_blocking`.
    pub fn start() -> Result<Self> {
        let (etcd_bin, apiserver_bin) = binaries()?;
        let temp = std::env::temp_dir();
        remove_leftovers(&temp);
        let dir = tempfile::Builder::new()
            .prefix(&format!("{DIR_PREFIX}{}-", std::process::id()))
            .tempdir_in(&temp)
            .map_err(io_err("create a directory in", &temp))?;
        let root = dir.path();
        let pki = Pki::generate(&root.join("pki"))?;
        let started = Instant::now();
        let deadline = started + START_TIMEOUT;

        let (client_hold, client_port) = reserve_port()?;
        let (peer_hold, peer_port) = reserve_port()?;
        let (secure_hold, secure_port) = reserve_port()?;
        let client_url = format!("http://127.0.0.1:{client_port}");
        let peer_url = format!("http://127.0.0.1:{peer_port}");
        let path = |p: &Path| p.display().to_string();
        let etcd_args = vec![
            "--name=egret-test".to_owned(),
            format!("--data-dir={}", path(&root.join("etcd"))),
            format!("--listen-client-urls={client_url}"),
            format!("--advertise-client-urls={client_url}"),
            format!("--listen-peer-urls={peer_url}"),
            format!("--initial-advertise-peer-urls={peer_url}"),
            format!("--initial-cluster=egret-test={peer_url}"),
            "--initial-cluster-state=new".to_owned(),
            "--unsafe-no-fsync=true".to_owned(),
            "--log-level=warn".to_owned(),
        ];
        drop(client_hold);
        drop(peer_hold);
        // From here on an early return drops (kills) what was started.
        let mut etcd = Server::spawn("etcd", &etcd_bin, &etcd_args, root.join("etcd.log"))?;
        etcd.wait_ready(started, deadline, || etcd_healthy(client_port))?;

        let apiserver_args = vec![
            format!("--etcd-servers={client_url}"),
            "--bind-address=127.0.0.1".to_owned(),
            "--advertise-address=127.0.0.1".to_owned(),
            format!("--secure-port={secure_port}"),
            format!("--cert-dir={}", path(&root.join("apiserver-certs"))),
            format!("--tls-cert-file={}", path(&pki.serving_cert)),
            format!("--tls-private-key-file={}", path(&pki.serving_key)),
            format!("--client-ca-file={}", path(&pki.ca_cert)),
            format!(
                "--service-account-key-file={}",
                path(&pki.service_account_public_key)
            ),
            format!(
                "--service-account-signing-key-file={}",
                path(&pki.service_account_key)
            ),
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local".to_owned(),
            format!("--service-cluster-ip-range={SERVICE_CIDR}"),
            // The reconciler of the `kubernetes` Service's endpoints refuses a
            // loopback address (and nothing here reaches the Service anyway).
            "--endpoint-reconciler-type=none".to_owned(),
            "--authorization-mode=RBAC".to_owned(),
            "--disable-admission-plugins=ServiceAccount".to_owned(),
            "--allow-privileged=true".to_owned(),
            "--profiling=false".to_owned(),
        ];
        drop(secure_hold);
        let mut apiserver = Server::spawn(
            "kube-apiserver",
            &apiserver_bin,
            &apiserver_args,
            root.join("kube-apiserver.log"),
        )?;
        let tls = Arc::new(pki.admin_tls()?);
        apiserver.wait_ready(started, deadline, || {
            // etcd dying makes the API server unready, not gone: say so.
            if let Err(KubeError::Exited { status, tail, .. }) = etcd.check_running() {
                return Err(format!("etcd exited ({status}):\n{tail}"));
            }
            apiserver_ready(secure_port, &tls)
        })?;

        let url = format!("https://127.0.0.1:{secure_port}");
        let kubeconfig = root.join("kubeconfig");
        let plane = Self {
            apiserver,
            etcd,
            url,
            kubeconfig,
            pki,
            dir,
        };
        plane.write_kubeconfig()?;
        Ok(plane)
    }

    fn write_kubeconfig(&self) -> Result<()> {
        // JSON is YAML: serde_json quotes every path correctly.
        let config = serde_json::json!({
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "egret-test", "cluster": {
                "server": self.url,
                "certificate-authority": self.pki.ca_cert,
            }}],
            "users": [{"name": ADMIN_USER, "user": {
                "client-certificate": self.pki.admin_cert,
                "client-key": self.pki.admin_key,
            }}],
            "contexts": [{"name": "egret-test", "context": {
                "cluster": "egret-test",
                "user": ADMIN_USER,
            }}],
            "current-context": "egret-test",
        });
        let text = serde_json::to_string_pretty(&config).map_err(|e| KubeError::Io {
            action: "encode",
            path: self.kubeconfig.clone(),
            source: e.into(),
        })?;
        write_private(&self.kubeconfig, &text)
    }

    /// The API server's URL (`https://127.0.0.1:<port>`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A kubeconfig file whose current context is the admin of this plane.
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// The credential files.
    pub fn pki(&self) -> &Pki {
        &self.pki
    }

    /// The directory holding everything of this plane (removed on drop).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The tail of kube-apiserver's log, for assertion messages.
    pub fn apiserver_log_tail(&self) -> String {
        self.apiserver.tail()
    }

    /// A `kube` client with the admin credential, read from
    /// [`Self::kubeconfig`] as a user's tools would.
    pub async fn client(&self) -> Result<::kube::Client> {
        let fail = |problem: String| KubeError::Client {
            path: self.kubeconfig.clone(),
            problem,
        };
        let file = ::kube::config::Kubeconfig::read_from(&self.kubeconfig)
            .map_err(|e| fail(e.to_string()))?;
        let config = ::kube::Config::from_custom_kubeconfig(file, &Default::default())
            .await
            .map_err(|e| fail(e.to_string()))?;
        ::kube::Client::try_from(config).map_err(|e| fail(e.to_string()))
    }
}

impl Drop for ControlPlane {
    fn drop(&mut self) {
        if thread::panicking() {
            eprintln!(
                "--- tail of {} ---\n{}\n--- tail of {} ---\n{}",
                self.apiserver.log.display(),
                self.apiserver.tail(),
                self.etcd.log.display(),
                self.etcd.tail()
            );
        }
    }
}

/// How many StatefulSets, Services, ConfigMaps, Secrets and Pods of
/// `namespace` carry the labels `selector` names, in that order: what a
/// topology's kill must leave at zero.
pub async fn labelled_objects(
    client: &kube::Client,
    namespace: &str,
    selector: &str,
) -> Result<[usize; 5], kube::Error> {
    use k8s_openapi::api::apps::v1::StatefulSet;
    use k8s_openapi::api::core::v1::{ConfigMap, Pod, Secret, Service};

    async fn count<K>(
        client: &kube::Client,
        namespace: &str,
        params: &kube::api::ListParams,
    ) -> Result<usize, kube::Error>
    where
        K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>
            + Clone
            + serde::de::DeserializeOwned
            + fmt::Debug,
        K::DynamicType: Default,
    {
        let api = kube::Api::<K>::namespaced(client.clone(), namespace);
        Ok(api.list(params).await?.items.len())
    }

    let params = kube::api::ListParams::default().labels(selector);
    Ok([
        count::<StatefulSet>(client, namespace, &params).await?,
        count::<Service>(client, namespace, &params).await?,
        count::<ConfigMap>(client, namespace, &params).await?,
        count::<Secret>(client, namespace, &params).await?,
        count::<Pod>(client, namespace, &params).await?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pki_files_are_private_and_the_admin_is_in_system_masters() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let pki = Pki::generate(&dir.path().join("pki")).unwrap();
        for path in [
            &pki.ca_cert,
            &pki.serving_cert,
            &pki.serving_key,
            &pki.admin_cert,
            &pki.admin_key,
            &pki.service_account_key,
            &pki.service_account_public_key,
        ] {
            assert_eq!(
                fs::metadata(path).unwrap().mode() & 0o777,
                0o600,
                "{path:?}"
            );
        }
        let key = fs::read_to_string(&pki.service_account_key).unwrap();
        assert!(key.starts_with("-----BEGIN PRIVATE KEY-----"), "{key}");
        // The TLS configuration loads what was written.
        pki.admin_tls().unwrap();
        // A second generation into the same directory refuses to overwrite.
        assert!(Pki::generate(&dir.path().join("pki")).is_err());
    }

    #[test]
    fn a_missing_binary_names_the_build_script() {
        let err = KubeError::MissingBinary {
            binary: "kube-apiserver",
            path: PathBuf::from("/nowhere/kube-apiserver"),
            script: PathBuf::from(BUILD_SCRIPT),
        };
        let text = err.to_string();
        assert!(
            text.contains(BUILD_SCRIPT) && text.contains(BIN_DIR_ENV),
            "{text}"
        );
    }

    #[test]
    fn the_build_script_names_a_versioned_directory_in_the_cache() {
        let dir = bin_dir().unwrap();
        let text = dir.display().to_string();
        assert!(
            text.contains("/k8s/kube-v1.") && text.contains("-etcd-v3.") && text.ends_with("/bin"),
            "{text}"
        );
    }

    #[test]
    fn leftovers_of_a_dead_owner_are_removed_and_a_live_ones_kept() {
        let temp = tempfile::tempdir().unwrap();
        // pid_max is at most 2^22: this pid cannot be alive.
        let dead = temp.path().join(format!("{DIR_PREFIX}{}-abc", 1u32 << 23));
        let live = temp
            .path()
            .join(format!("{DIR_PREFIX}{}-abc", std::process::id()));
        let other = temp.path().join("egret-kube-notapid-abc");
        for d in [&dead, &live, &other] {
            fs::create_dir(d).unwrap();
        }
        remove_leftovers(temp.path());
        assert!(!dead.exists());
        assert!(live.exists() && other.exists());
    }

    #[test]
    fn a_server_that_exits_or_never_gets_ready_fails_with_its_log() {
        let dir = tempfile::tempdir().unwrap();
        let sh = Path::new("/bin/sh");
        let args = |script: &str| vec!["-c".to_owned(), script.to_owned()];
        let start = Instant::now();
        let mut server = Server::spawn(
            "quitter",
            sh,
            &args("echo cannot start: boom >&2; exit 3"),
            dir.path().join("quitter.log"),
        )
        .unwrap();
        let err = server
            .wait_ready(start, start + Duration::from_secs(30), || {
                Err("not yet".into())
            })
            .unwrap_err();
        assert!(matches!(err, KubeError::Exited { .. }), "{err}");
        let text = err.to_string();
        assert!(
            text.contains("exit status: 3") && text.contains("boom"),
            "{text}"
        );

        let mut server = Server::spawn(
            "sleeper",
            sh,
            &args("echo starting; exec sleep 30"),
            dir.path().join("sleeper.log"),
        )
        .unwrap();
        let pid = server.child.id();
        let start = Instant::now();
        let err = server
            .wait_ready(start, start + Duration::from_millis(500), || {
                Err("503 not ready".into())
            })
            .unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(10));
        let text = err.to_string();
        assert!(matches!(err, KubeError::NotReady { .. }), "{text}");
        assert!(
            text.contains("503 not ready") && text.contains("starting"),
            "{text}"
        );
        drop(server);
        let gone = i32::try_from(pid)
            .is_ok_and(|p| matches!(kill(Pid::from_raw(p), None), Err(nix::errno::Errno::ESRCH)));
        assert!(gone, "dropping a server kills and reaps it");
    }

    #[test]
    fn a_server_of_a_dead_owner_is_killed_and_other_processes_are_not() {
        let temp = tempfile::tempdir().unwrap();
        // A shell named etcd (as the real binary is) whose arguments name a
        // plane of a dead owner, and a plain shell naming the same directory.
        let fake_etcd = temp.path().join("etcd");
        std::os::unix::fs::symlink("/bin/sh", &fake_etcd).unwrap();
        let marker = format!("{DIR_PREFIX}{}-test{}", 1u32 << 23, std::process::id());
        let spawn = |program: &Path| {
            Command::new(program)
                .args(["-c", "read -r line", "sh", &marker])
                .stdin(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let mut server = spawn(&fake_etcd);
        let mut bystander = spawn(Path::new("/bin/sh"));
        let seen = crate::wait_until(
            "both children",
            Duration::from_secs(5),
            || (crate::processes_mentioning(&marker).len() == 2).then_some(()),
            String::new,
        );
        remove_leftovers(temp.path());
        let killed = crate::wait_until(
            "the fake etcd's death",
            Duration::from_secs(5),
            || server.try_wait().unwrap(),
            String::new,
        );
        let bystander_alive = bystander.try_wait().unwrap().is_none();
        let _ = server.kill();
        let _ = server.wait();
        bystander.kill().unwrap();
        bystander.wait().unwrap();
        seen.unwrap();
        assert!(!killed.unwrap().success());
        assert!(
            bystander_alive,
            "a process not named etcd or kube-apiserver was killed"
        );
    }

    #[test]
    fn http_get_reads_status_and_body() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = [0u8; 1024];
            let _ = s.read(&mut buf).unwrap();
            s.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 25\r\n\r\n{\"health\":\"true\",\"x\":\"\"}",
            )
            .unwrap();
        });
        assert_eq!(etcd_healthy(port), Ok(()));
        server.join().unwrap();
    }
}
