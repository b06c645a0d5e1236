//! The JNI bridge's side of a container (`egret.instance.bridge: jni`): the
//! process that runs the container's stream manager embeds one JVM
//! (`egret-native`) whose heap is the sum of the container's executors'
//! heaps, with the class path and topology jars an instance JVM would have
//! (the shim on the class path; the topology jar and
//! `egret.instance.classpath.extra` in the shim's topology class loader, one
//! for the one topology of the container, as Storm's worker has one class
//! path), and starts the container's executors as
//! threads of it, each writing its own `logs/<instance>.log` as its instance
//! JVM would. Each executor connection reaches the stream manager as an
//! [`InstanceConnection`], the type the socket's connections become too.
//!
//! Threads: the calling thread starts the JVM and the executors (attached
//! for the calls); one std thread, `jni-connections`, turns the bridge's
//! connections into [`InstanceConnection`]s (bounded queues, blocking sends:
//! never on the runtime's threads); every executor runs on Java threads.

use std::path::Path;
use std::sync::Arc;

use egret_config::Environment;
use egret_native::{EmbeddedJvm, JvmConfig, NativeConnection};
use egret_proto::v1::Bridge;
use egret_state_manager::TopologyDir;
use egret_stream_manager::InstanceConnection;
use tokio::sync::mpsc;

use crate::{ContainerError, JvmSettings};

/// Executor connections waiting for the stream manager (each opened by an
/// executor thread that blocks until it is taken).
const CONNECTION_QUEUE: usize = 16;

/// The embedded JVM of a container and its executors' connections.
#[derive(Debug)]
pub struct Embedded {
    pub jvm: EmbeddedJvm,
    pub connections: mpsc::Receiver<InstanceConnection>,
}

/// The heap of the embedded JVM: the sum of `heaps` (MiB), at least 64.
pub fn embedded_heap_mb(heaps: impl IntoIterator<Item = i64>) -> u32 {
    let total: i64 = heaps.into_iter().map(|h| h.max(0)).sum();
    u32::try_from(total.max(64)).unwrap_or(u32::MAX)
}

/// The embedded JVM's options before the fixed ones (contracts.md, "Instance
/// JVMs"): the initial heap, the shim's class archive, that the code
/// directories are extracted, then `egret.instance.jvm.opts` or, when it is
/// unset, the embedded JVM's default options (whose `-Xms` or `-Xshare` win,
/// coming later).
pub fn embedded_options(settings: &JvmSettings, heap_mb: u32) -> Vec<String> {
    std::iter::once(crate::initial_heap_option(i64::from(heap_mb)))
        .chain(settings.class_archive.iter().cloned())
        .chain(std::iter::once(
            crate::code_dir::EXTRACTED_PROPERTY.to_owned(),
        ))
        .chain(settings.embedded_jvm_opts.iter().cloned())
        .collect()
}

/// With the JNI bridge, starts container `index`'s embedded JVM and its
/// executors; `None` with the socket bridge.
pub fn start_embedded(
    topology_dir: &Path,
    index: i32,
    executable: &Path,
) -> Result<Option<Embedded>, ContainerError> {
    let dir = TopologyDir::new(topology_dir);
    let topology = dir.read_topology()?;
    let resolved = egret_config::settings::settings_of(&topology)
        .map_err(|e| ContainerError::Config(e.to_string()))?;
    if resolved.bridge() != Bridge::Jni {
        return Ok(None);
    }
    let frame_max_bytes = resolved.frame_max_bytes;
    let plan = dir.read_packing_plan()?;
    let container = plan
        .containers
        .iter()
        .find(|c| c.index == index)
        .ok_or_else(|| ContainerError::NoSuchContainer {
            index,
            topology: topology.id.clone(),
        })?;
    let config = egret_config::topology::config_map(&topology).map_err(ContainerError::Config)?;
    let settings = JvmSettings::from_config(&config, &Environment::from_process(), executable)?;
    let heap_mb = embedded_heap_mb(container.instances.iter().map(|i| i.heap_mb));
    let mut options = embedded_options(&settings, heap_mb);
    // The shim on the class path, the topology's jars in its class loader.
    let jars = egret_config::topology_class_path_option(&settings.topology_jars(&dir));
    options.push(jars.into_string().map_err(|o| {
        ContainerError::Config(format!(
            "the embedded JVM needs UTF-8 jar paths, found {}",
            o.to_string_lossy()
        ))
    })?);
    let jvm_config = JvmConfig {
        java: settings.java.clone(),
        class_path: vec![settings.shim_jar.clone()],
        heap_mb,
        options,
    };
    let (native_tx, native_rx) = mpsc::channel(CONNECTION_QUEUE);
    egret_native::frames::install(native_tx).map_err(bridge_error)?;
    let (tx, connections) = mpsc::channel(CONNECTION_QUEUE);
    let cap = usize::try_from(frame_max_bytes).unwrap_or(usize::MAX);
    std::thread::Builder::new()
        .name("jni-connections".to_owned())
        .spawn(move || relay_connections(native_rx, &tx, cap))
        .map_err(|e| {
            ContainerError::Config(format!("cannot start the JNI bridge's thread: {e}"))
        })?;
    let jvm = EmbeddedJvm::start(&jvm_config).map_err(bridge_error)?;
    for instance in &container.instances {
        let log = dir.log_file(&instance.instance_id);
        jvm.start_executor(&instance.instance_id, frame_max_bytes, &log)
            .map_err(bridge_error)?;
    }
    tracing::info!(
        container = index,
        executors = container.instances.len(),
        heap_mb = jvm_config.heap_mb,
        "The embedded JVM runs the container's executors (egret.instance.bridge: jni)."
    );
    // A thread that is never joined: it lives as long as the process, as the JVM does.
    if let Err(err) = std::thread::Builder::new()
        .name("malloc-trim".to_owned())
        .spawn(|| {
            loop {
                std::thread::sleep(TRIM_PERIOD);
                egret_supervisor::release_freed_memory();
            }
        })
    {
        tracing::warn!(error = %err, "Cannot start the thread that trims the allocator's free memory.");
    }
    Ok(Some(Embedded { jvm, connections }))
}

/// How often a process with an embedded JVM hands the allocator's freed memory
/// back to the system. The JVM's own native memory (its compilers' arenas,
/// thread buffers) is malloc'd from per-thread arenas that glibc does not trim
/// by itself: in const-id-null, 17 MiB of the stream manager's resident memory
/// were such free blocks (docs/performance.md, "Fewer objects per tuple").
/// A trim takes each arena's lock for a moment; every 10 s that is noise.
pub const TRIM_PERIOD: std::time::Duration = std::time::Duration::from_secs(10);

fn relay_connections(
    mut native: mpsc::Receiver<NativeConnection>,
    to_stream_manager: &mpsc::Sender<InstanceConnection>,
    max_frame_bytes: usize,
) {
    while let Some(c) = native.blocking_recv() {
        let connection = InstanceConnection::from_channels(
            c.instance_id,
            c.restarts,
            c.to_instance,
            c.from_instance,
            max_frame_bytes,
            Some(Arc::new(NativeSendPath(c.send_path))),
        );
        if to_stream_manager.blocking_send(connection).is_err() {
            return;
        }
    }
}

/// The port's route on the sending thread, as the stream manager installs it.
struct NativeSendPath(Arc<egret_native::SendPath>);

impl egret_stream_manager::SendPath for NativeSendPath {
    fn install(&self, route: Box<dyn Fn(&bytes::Bytes) -> bool + Send + Sync>) {
        self.0.install(route);
    }

    fn clear(&self) {
        self.0.clear();
    }

    fn handled(&self) {
        self.0.handled();
    }
}

fn bridge_error(err: egret_native::BridgeError) -> ContainerError {
    ContainerError::Bridge(err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_heap_is_the_sum_of_the_executors_heaps() {
        assert_eq!(embedded_heap_mb([128, 256, 128]), 512);
        assert_eq!(embedded_heap_mb([]), 64);
        assert_eq!(embedded_heap_mb([-5, 10]), 64);
    }

    #[test]
    fn the_embedded_jvm_maps_the_class_archive_before_the_users_options() {
        let settings = JvmSettings {
            java: "java".into(),
            shim_jar: "/e/egret-shim.jar".into(),
            jvm_opts: vec!["-XX:+UseSerialGC".into()],
            embedded_jvm_opts: vec!["-Xms64m".into()],
            classpath_extra: Vec::new(),
            class_archive: vec![
                "-XX:SharedArchiveFile=/e/egret-shim.jsa".into(),
                "-Xlog:cds*=off".into(),
            ],
        };
        assert_eq!(
            embedded_options(&settings, 512),
            vec![
                "-Xms32m",
                "-XX:SharedArchiveFile=/e/egret-shim.jsa",
                "-Xlog:cds*=off",
                "-Degret.code.dir.extracted=true",
                "-Xms64m"
            ]
        );
    }
}
