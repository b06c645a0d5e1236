//! Running a pod's container the way the kubelet would, for the Kubernetes
//! scheduler's tests: from the pod template as the API server stored it,
//! its command and arguments (with the kubelet's `$(VAR)` expansion), its
//! environment (values, and the downward-API fields a kubelet fills: the
//! pod's name, namespace, IP and labels, among them the StatefulSet's
//! `apps.kubernetes.io/pod-index`; ConfigMap and Secret keys), and its
//! volumes (ConfigMap and Secret keys written as files with the volume's
//! mode, emptyDirs) seen at their `mountPath`s: each is bind-mounted there
//! in the process's private mount namespace (a [`crate::hosts::Host`]
//! command has one), read-only when the mount says so. The environment is
//! only the pod's and the image's `PATH` (given by the test: the directory
//! holding the `egret` under test, as the image's `PATH` holds its own).
//!
//! A mount point must exist on the machine: [`MountPoints`] creates the
//! missing ones (empty directories) and removes them on drop.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::fs;
use std::io;
use std::net::Ipv4Addr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use k8s_openapi::api::core::v1::{ConfigMap, PodTemplateSpec, Secret};

/// One pod of a StatefulSet, as its controller would make it.
#[derive(Debug, Clone)]
pub struct PodIdentity {
    pub name: String,
    pub namespace: String,
    pub ip: Ipv4Addr,
    /// The labels of the template plus those the StatefulSet controller adds.
    pub labels: BTreeMap<String, String>,
}

impl PodIdentity {
    /// Pod `ordinal` of StatefulSet `set` with `template`'s labels.
    pub fn of_stateful_set(
        set: &str,
        namespace: &str,
        ordinal: u32,
        ip: Ipv4Addr,
        template: &PodTemplateSpec,
    ) -> Self {
        let name = format!("{set}-{ordinal}");
        let mut labels = template
            .metadata
            .as_ref()
            .and_then(|m| m.labels.clone())
            .unwrap_or_default();
        labels.insert(
            "apps.kubernetes.io/pod-index".to_owned(),
            ordinal.to_string(),
        );
        labels.insert(
            "statefulset.kubernetes.io/pod-name".to_owned(),
            name.clone(),
        );
        Self {
            name,
            namespace: namespace.to_owned(),
            ip,
            labels,
        }
    }
}

/// What the kubelet would run for a pod's first container.
#[derive(Debug, Clone)]
pub struct PodProcess {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    /// (the materialised directory, its mountPath, read-only)
    pub mounts: Vec<(PathBuf, PathBuf, bool)>,
}

/// The kubelet's `$(VAR)` expansion: `$$` is `$`, `$(NAME)` of a defined
/// variable is its value, anything else stays as written.
pub fn expand(text: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
        } else if let Some(inner) = after.strip_prefix('(')
            && let Some(end) = inner.find(')')
            && let Some(value) = vars.get(&inner[..end])
        {
            out.push_str(value);
            rest = &inner[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn field(pod: &PodIdentity, path: &str) -> Result<String, String> {
    if let Some(key) = path
        .strip_prefix("metadata.labels['")
        .and_then(|k| k.strip_suffix("']"))
    {
        return pod
            .labels
            .get(key)
            .cloned()
            .ok_or_else(|| format!("the pod has no label {key}"));
    }
    match path {
        "metadata.name" => Ok(pod.name.clone()),
        "metadata.namespace" => Ok(pod.namespace.clone()),
        "status.podIP" => Ok(pod.ip.to_string()),
        other => Err(format!("field {other} is not filled by this test kubelet")),
    }
}

fn write_file(path: &Path, bytes: &[u8], mode: u32) -> Result<(), String> {
    fs::write(path, bytes).map_err(|e| format!("write {}: {e}", path.display()))?;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|e| format!("chmod {}: {e}", path.display()))
}

/// Resolves `template`'s first container for `pod`, writing its volumes
/// under `dir` (one directory per volume).
pub fn materialize(
    template: &PodTemplateSpec,
    pod: &PodIdentity,
    config_maps: &[ConfigMap],
    secrets: &[Secret],
    dir: &Path,
) -> Result<PodProcess, String> {
    let spec = template
        .spec
        .as_ref()
        .ok_or("the template has no pod spec")?;
    let container = spec.containers.first().ok_or("the pod has no container")?;
    let config_map = |name: &str| {
        config_maps
            .iter()
            .find(|c| c.metadata.name.as_deref() == Some(name))
            .ok_or_else(|| format!("no ConfigMap {name}"))
    };
    let secret = |name: &str| {
        secrets
            .iter()
            .find(|s| s.metadata.name.as_deref() == Some(name))
            .ok_or_else(|| format!("no Secret {name}"))
    };

    let mut vars = BTreeMap::new();
    let mut env = Vec::new();
    for var in container.env.clone().unwrap_or_default() {
        let value = if let Some(value) = &var.value {
            expand(value, &vars)
        } else if let Some(from) = &var.value_from {
            if let Some(f) = &from.field_ref {
                field(pod, &f.field_path)?
            } else if let Some(k) = &from.config_map_key_ref {
                config_map(&k.name)?
                    .data
                    .as_ref()
                    .and_then(|d| d.get(&k.key))
                    .cloned()
                    .ok_or_else(|| format!("no key {} in ConfigMap {}", k.key, k.name))?
            } else if let Some(k) = &from.secret_key_ref {
                let bytes = secret(&k.name)?
                    .data
                    .as_ref()
                    .and_then(|d| d.get(&k.key))
                    .map(|b| b.0.clone())
                    .ok_or_else(|| format!("no key {} in Secret {}", k.key, k.name))?;
                String::from_utf8(bytes).map_err(|e| e.to_string())?
            } else {
                return Err(format!(
                    "env {}: a source this test kubelet does not fill",
                    var.name
                ));
            }
        } else {
            String::new()
        };
        vars.insert(var.name.clone(), value.clone());
        env.push((var.name, value));
    }
    let mut command = container.command.clone().unwrap_or_default();
    command.extend(container.args.clone().unwrap_or_default());
    let mut words = command.iter().map(|w| expand(w, &vars));
    let program = words
        .next()
        .ok_or("the container has no command (the image's entry point is not known here)")?;
    let args = words.collect();

    let volumes = spec.volumes.clone().unwrap_or_default();
    let mut mounts = Vec::new();
    for mount in container.volume_mounts.clone().unwrap_or_default() {
        let volume = volumes
            .iter()
            .find(|v| v.name == mount.name)
            .ok_or_else(|| format!("no volume {}", mount.name))?;
        let source = dir.join(&volume.name);
        fs::create_dir_all(&source).map_err(|e| format!("create {}: {e}", source.display()))?;
        if let Some(cm) = &volume.config_map {
            let mode =
                u32::try_from(cm.default_mode.unwrap_or(0o644)).map_err(|e| e.to_string())?;
            for (key, value) in config_map(&cm.name)?.data.clone().unwrap_or_default() {
                write_file(&source.join(key), value.as_bytes(), mode)?;
            }
        } else if let Some(s) = &volume.secret {
            let name = s
                .secret_name
                .as_deref()
                .ok_or("a secret volume without a name")?;
            let mode = u32::try_from(s.default_mode.unwrap_or(0o644)).map_err(|e| e.to_string())?;
            for (key, value) in secret(name)?.data.clone().unwrap_or_default() {
                write_file(&source.join(key), &value.0, mode)?;
            }
        } else if volume.empty_dir.is_none() {
            return Err(format!(
                "volume {}: a kind this test kubelet does not make",
                volume.name
            ));
        }
        mounts.push((
            source,
            PathBuf::from(&mount.mount_path),
            mount.read_only.unwrap_or(false),
        ));
    }
    Ok(PodProcess {
        program,
        args,
        env,
        mounts,
    })
}

impl PodProcess {
    /// Prepares `cmd` (a [`crate::hosts::Host::command`] of [`Self::program`],
    /// whose child has a private mount namespace) to run as the pod's
    /// process: its arguments, only the pod's environment and `path` as
    /// `PATH`, `/` as working directory, and every volume bind-mounted at its
    /// mountPath (which must exist: [`MountPoints`]).
    #[allow(unsafe_code)]
    pub fn prepare(&self, cmd: &mut Command, path: &str) -> Result<(), String> {
        cmd.args(&self.args)
            .env_clear()
            .env("PATH", path)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .current_dir("/");
        let mut mounts = Vec::new();
        for (source, target, read_only) in &self.mounts {
            let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(|e| e.to_string());
            mounts.push((c(source)?, c(target)?, *read_only));
        }
        // SAFETY: runs in the forked child before exec, after the host's
        // own pre_exec made the mount namespace private; it calls only
        // mount(2) on strings built before the fork and reads errno.
        unsafe {
            cmd.pre_exec(move || {
                use nix::libc;
                for (source, target, read_only) in &mounts {
                    if libc::mount(
                        source.as_ptr(),
                        target.as_ptr(),
                        std::ptr::null(),
                        libc::MS_BIND,
                        std::ptr::null(),
                    ) != 0
                    {
                        return Err(io::Error::last_os_error());
                    }
                    if *read_only
                        && libc::mount(
                            std::ptr::null(),
                            target.as_ptr(),
                            std::ptr::null(),
                            libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY,
                            std::ptr::null(),
                        ) != 0
                    {
                        return Err(io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        Ok(())
    }
}

/// Mount points created for a test (missing directories only); removed,
/// deepest first, on drop when still empty.
pub struct MountPoints {
    created: Vec<PathBuf>,
}

impl MountPoints {
    pub fn ensure<'a>(targets: impl IntoIterator<Item = &'a Path>) -> io::Result<Self> {
        let mut created = Vec::new();
        for target in targets {
            let mut missing = Vec::new();
            let mut p = target;
            while !p.exists() {
                missing.push(p.to_path_buf());
                match p.parent() {
                    Some(parent) => p = parent,
                    None => break,
                }
            }
            for dir in missing.into_iter().rev() {
                fs::create_dir(&dir)?;
                created.push(dir);
            }
        }
        Ok(Self { created })
    }
}

impl Drop for MountPoints {
    fn drop(&mut self) {
        for dir in self.created.iter().rev() {
            let _ = fs::remove_dir(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansion_is_the_kubelets() {
        let vars = BTreeMap::from([("A".to_owned(), "1".to_owned())]);
        assert_eq!(expand("$(A)", &vars), "1");
        assert_eq!(expand("x$(A)y$(B)", &vars), "x1y$(B)");
        assert_eq!(expand("$$(A)", &vars), "$(A)");
        assert_eq!(expand("a$", &vars), "a$");
        assert_eq!(expand("$(A", &vars), "$(A");
    }
}
