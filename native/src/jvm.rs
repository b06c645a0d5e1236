//! Starting the one JVM of a process through the JNI invocation API.
//!
//! libjvm is found from the `java` launcher the topology resolved
//! (`egret.java`, by default `$JAVA_HOME/bin/java` or `java` on `PATH`): the
//! launcher's path is followed through its symbolic links (Debian's
//! `/usr/bin/java` -> `/etc/alternatives/java` ->
//! `/usr/lib/jvm/java-17-openjdk-amd64/bin/java`) and libjvm is
//! `<java home>/lib/server/libjvm.so` beside it (JDK 9 and later). Nothing
//! is needed at build time: libjvm is loaded when the JVM starts.
//!
//! A process has at most one JVM, and it cannot be recreated once destroyed
//! (`JavaVM::singleton`): [`start`] called again returns the running one.

use std::path::{Path, PathBuf};

use jni::{InitArgsBuilder, JNIVersion, JavaVM};

use crate::errors::BridgeError;

/// Options the embedded JVM always gets.
///
/// - `-Xrs`: the JVM leaves SIGINT, SIGTERM, SIGHUP and SIGQUIT to the host
///   process (the stream manager stops on them, as without a JVM);
/// - `-XX:+CrashOnOutOfMemoryError -XX:-CreateCoredumpOnCrash`: an
///   `OutOfMemoryError` aborts the process (an `hs_err` file, no core dump),
///   whose supervisor restarts it (an executor's heap is not its own here).
///   Not `-XX:+ExitOnOutOfMemoryError`: the JVM would exit with code 3, the
///   stream manager's own code for "its topology was killed, do not restart
///   me" (`EXIT_TOPOLOGY_KILLED`).
pub const FIXED_OPTIONS: &[&str] = &[
    "-Xrs",
    "-XX:+CrashOnOutOfMemoryError",
    "-XX:-CreateCoredumpOnCrash",
];

/// How to start the embedded JVM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JvmConfig {
    /// The `java` launcher whose libjvm is loaded (`egret.java`).
    pub java: PathBuf,
    /// The class path, in order.
    pub class_path: Vec<PathBuf>,
    /// `-Xmx`, MiB.
    pub heap_mb: u32,
    /// Further options (`egret.instance.jvm.opts`), before the fixed ones.
    pub options: Vec<String>,
}

impl JvmConfig {
    /// Every option the JVM is started with, in order.
    pub fn all_options(&self) -> Result<Vec<String>, BridgeError> {
        let mut class_path = String::new();
        for (i, entry) in self.class_path.iter().enumerate() {
            let entry = entry.to_str().ok_or_else(|| {
                BridgeError::Start(format!(
                    "the class path entry {} is not UTF-8",
                    entry.display()
                ))
            })?;
            if i > 0 {
                class_path.push(':');
            }
            class_path.push_str(entry);
        }
        let mut options = self.options.clone();
        options.push(format!("-Xmx{}m", self.heap_mb));
        options.push(format!("-Djava.class.path={class_path}"));
        options.extend(FIXED_OPTIONS.iter().map(|o| (*o).to_owned()));
        Ok(options)
    }
}

/// Where `java`'s libjvm is (see the module's doc).
pub fn libjvm_of(java: &Path) -> Result<PathBuf, BridgeError> {
    let launcher = if java.components().count() > 1 {
        java.to_owned()
    } else {
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .map(|dir| dir.join(java))
            .find(|candidate| candidate.is_file())
            .ok_or_else(|| {
                BridgeError::Start(format!(
                    "egret.java is {} and no such file is on PATH",
                    java.display()
                ))
            })?
    };
    let real = std::fs::canonicalize(&launcher).map_err(|e| {
        BridgeError::Start(format!(
            "cannot resolve the java launcher {}: {e}",
            launcher.display()
        ))
    })?;
    let home = real.parent().and_then(Path::parent).ok_or_else(|| {
        BridgeError::Start(format!(
            "the java launcher {} is not in a <java home>/bin directory",
            real.display()
        ))
    })?;
    let libjvm = home.join("lib").join("server").join("libjvm.so");
    if libjvm.is_file() {
        Ok(libjvm)
    } else {
        Err(BridgeError::Start(format!(
            "no libjvm.so at {} (beside the java launcher {}; egret.java must name a JDK or JRE 17+ launcher)",
            libjvm.display(),
            real.display()
        )))
    }
}

/// Starts the process's JVM (or returns the one already started).
pub fn start(config: &JvmConfig) -> Result<JavaVM, BridgeError> {
    let options = config.all_options()?;
    let libjvm = libjvm_of(&config.java)?;
    let mut args = InitArgsBuilder::new().version(JNIVersion::V1_8);
    for option in &options {
        args = args.option(option.as_str());
    }
    let args = args
        .build()
        .map_err(|e| BridgeError::Start(format!("bad JVM options {options:?}: {e}")))?;
    tracing::info!(libjvm = %libjvm.display(), options = ?options, "Starting the embedded JVM.");
    JavaVM::with_libjvm(args, || Ok(libjvm.clone())).map_err(|e| {
        BridgeError::Start(format!(
            "{e} (libjvm {}, options {options:?})",
            libjvm.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    #[test]
    fn options_put_heap_class_path_and_the_fixed_flags_last() {
        let config = JvmConfig {
            java: "java".into(),
            class_path: vec!["/a/shim.jar".into(), "/t/topology.jar".into()],
            heap_mb: 384,
            options: vec!["-XX:+UseSerialGC".into()],
        };
        assert_eq!(
            config.all_options().unwrap(),
            vec![
                "-XX:+UseSerialGC",
                "-Xmx384m",
                "-Djava.class.path=/a/shim.jar:/t/topology.jar",
                "-Xrs",
                "-XX:+CrashOnOutOfMemoryError",
                "-XX:-CreateCoredumpOnCrash",
            ]
        );
    }

    #[test]
    fn libjvm_is_found_from_the_launcher_or_refused_naming_it() {
        let found = libjvm_of(Path::new("java")).unwrap();
        assert!(
            found.ends_with("lib/server/libjvm.so"),
            "{}",
            found.display()
        );
        let tmp = tempfile::tempdir().unwrap();
        let bin = tmp.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("java"), b"").unwrap();
        let err = libjvm_of(&bin.join("java")).unwrap_err().to_string();
        assert!(
            err.contains("no libjvm.so at") && err.contains("lib/server"),
            "{err}"
        );
        let err = libjvm_of(Path::new("no-such-java-launcher"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("no-such-java-launcher"), "{err}");
    }
}
