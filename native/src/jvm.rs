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
//!
//! The JVM ending the process: an exit of the JVM (`System.exit`,
//! `Runtime.halt`, in user code or not) ends the stream manager's process
//! with that code, through HotSpot's `exit` hook ([`process_exit_code`]),
//! except code 3, which is the stream manager's own for "my topology was
//! killed, do not restart me" (`EXIT_TOPOLOGY_KILLED`): a user's
//! `System.exit(3)` ends it with [`EXIT_JVM_EXITED_WITH_KILLED_CODE`]
//! instead, and its container restarts it, as Storm's supervisor restarts a
//! worker whose user code exited.

use std::ffi::{CString, c_void};
use std::path::{Path, PathBuf};

use jni::JavaVM;
use jni::sys::{self, JNI_FALSE, JNI_OK, JNI_VERSION_1_8, JavaVMInitArgs, JavaVMOption, jint};

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

/// The process's exit code when its JVM exits with `EXIT_TOPOLOGY_KILLED` (see
/// the module's doc): 1, a failure its supervisor restarts.
pub const EXIT_JVM_EXITED_WITH_KILLED_CODE: i32 = 1;

/// The code the process ends with when its JVM exits with `jvm_code`.
pub fn process_exit_code(jvm_code: i32) -> i32 {
    if jvm_code == i32::from(egret_proto::EXIT_TOPOLOGY_KILLED) {
        EXIT_JVM_EXITED_WITH_KILLED_CODE
    } else {
        jvm_code
    }
}

/// HotSpot's `exit` hook: called with the exit code, on the JVM's own
/// thread, when the JVM exits; it must end the process.
extern "system" fn on_jvm_exit(code: jint) {
    let exit = process_exit_code(code);
    if exit == code {
        tracing::warn!(
            code,
            "The embedded JVM exited (System.exit or Runtime.halt); the stream manager ends with its code."
        );
    } else {
        tracing::error!(
            code,
            exit,
            "The embedded JVM exited with code 3 (System.exit or Runtime.halt), the stream manager's own code for a killed topology; it ends with code {exit} instead, so that its container restarts it."
        );
    }
    std::process::exit(exit)
}

/// What a JNI return code means (jni.h's names).
fn jni_code_meaning(code: jint) -> &'static str {
    match code {
        sys::JNI_ERR => "JNI_ERR: unknown error",
        sys::JNI_EDETACHED => "JNI_EDETACHED: thread detached from the VM",
        sys::JNI_EVERSION => "JNI_EVERSION: JNI version error",
        sys::JNI_ENOMEM => "JNI_ENOMEM: not enough memory",
        sys::JNI_EEXIST => "JNI_EEXIST: a VM was created already in this process",
        sys::JNI_EINVAL => "JNI_EINVAL: invalid arguments, an option the JVM does not accept",
        _ => "not a JNI error code",
    }
}

/// `JNI_CreateJavaVM`'s type.
type CreateJavaVm =
    unsafe extern "system" fn(*mut *mut sys::JavaVM, *mut *mut c_void, *mut c_void) -> jint;

/// Starts the process's JVM (or returns the one already started).
pub fn start(config: &JvmConfig) -> Result<JavaVM, BridgeError> {
    if let Ok(vm) = JavaVM::singleton() {
        return Ok(vm);
    }
    let options = config.all_options()?;
    let libjvm = libjvm_of(&config.java)?;
    let bad = |e: String| {
        BridgeError::Start(format!(
            "{e} (libjvm {}, options {options:?})",
            libjvm.display()
        ))
    };
    let strings = options
        .iter()
        .map(|o| CString::new(o.as_str()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(format!("a JVM option holds a NUL byte: {e}")))?;
    let mut raw: Vec<JavaVMOption> = strings
        .iter()
        .map(|o| JavaVMOption {
            optionString: o.as_ptr().cast_mut(),
            extraInfo: std::ptr::null_mut(),
        })
        .collect();
    raw.push(JavaVMOption {
        optionString: c"exit".as_ptr().cast_mut(),
        extraInfo: on_jvm_exit as *mut c_void,
    });
    let mut args = JavaVMInitArgs {
        version: JNI_VERSION_1_8,
        nOptions: jint::try_from(raw.len()).map_err(|_| bad("too many JVM options".to_owned()))?,
        options: raw.as_mut_ptr(),
        ignoreUnrecognized: JNI_FALSE,
    };
    tracing::info!(libjvm = %libjvm.display(), options = ?options, "Starting the embedded JVM.");
    create(&libjvm, &mut args).map_err(bad)
}

/// Loads libjvm, creates the JVM with `args` and leaves the calling thread
/// detached (the `jni` crate attaches threads itself, and detaches those it
/// attached when they end).
#[allow(unsafe_code)]
fn create(libjvm: &Path, args: &mut JavaVMInitArgs) -> Result<JavaVM, String> {
    // SAFETY: loading libjvm runs its initialisers, which only set up the
    // library; it stays loaded for the life of the process (forgotten below),
    // as the JVM's threads run its code.
    let library = unsafe { libloading::Library::new(libjvm) }
        .map_err(|e| format!("cannot load libjvm: {e}"))?;
    // SAFETY: JNI_CreateJavaVM has this signature in every JDK (jni.h).
    let create_vm: CreateJavaVm = *unsafe { library.get::<CreateJavaVm>(b"JNI_CreateJavaVM\0") }
        .map_err(|e| format!("libjvm has no JNI_CreateJavaVM: {e}"))?;
    std::mem::forget(library);
    let mut vm: *mut sys::JavaVM = std::ptr::null_mut();
    let mut env: *mut c_void = std::ptr::null_mut();
    // SAFETY: `args` and the options and strings it points to outlive the
    // call, which copies what it keeps; the hook is a function of the whole
    // process's life.
    let code = unsafe { create_vm(&mut vm, &mut env, std::ptr::from_mut(args).cast()) };
    if code != JNI_OK || vm.is_null() {
        return Err(format!(
            "JNI_CreateJavaVM failed with code {code} ({}; the JVM's own message, such as an unrecognized option, is in the stream manager's log)",
            jni_code_meaning(code)
        ));
    }
    // SAFETY: `vm` is the JVM just created (non-null, JNI 1.8), whose
    // invocation interface has DetachCurrentThread; this thread is attached
    // (by the creation) and holds no JNI references.
    unsafe {
        let detach = (**vm).v1_1.DetachCurrentThread;
        detach(vm);
        Ok(JavaVM::from_raw(vm))
    }
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
    fn a_failed_creation_names_the_jni_code() {
        assert!(jni_code_meaning(-6).starts_with("JNI_EINVAL"));
        assert!(jni_code_meaning(-1).starts_with("JNI_ERR"));
        assert_eq!(jni_code_meaning(7), "not a JNI error code");
    }

    #[test]
    fn a_jvm_exit_with_the_killed_code_ends_the_process_with_a_restartable_one() {
        let killed = i32::from(egret_proto::EXIT_TOPOLOGY_KILLED);
        assert_eq!(process_exit_code(killed), EXIT_JVM_EXITED_WITH_KILLED_CODE);
        assert_ne!(EXIT_JVM_EXITED_WITH_KILLED_CODE, killed);
        for code in [0, 1, 2, 20, 134, -1] {
            assert_eq!(process_exit_code(code), code, "other codes pass through");
        }
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
