//! The executors' host in the embedded JVM: the shim's
//! `dev.egret.instance.JniHost`, whose `start(instanceId, frameCap, logFile)`
//! runs one executor on its own JVM thread (restarting it there when it
//! fails), over a [`crate::frames`] channel, its threads' output written to
//! its own log file.
//!
//! Threads: the Rust thread that calls [`EmbeddedJvm::start`] or
//! [`EmbeddedJvm::start_executor`] is attached to the JVM for the call;
//! every executor thread, its reader and its writer are Java threads, which
//! call into Rust only through the frame channel's natives.

use std::path::Path;

use jni::JavaVM;
use jni::ids::JStaticMethodID;
use jni::objects::JClass;
use jni::refs::Global;
use jni::signature::{Primitive, ReturnType};
use jni::sys::jvalue;
use jni::{Env, jni_str};

use crate::errors::BridgeError;
use crate::frames;
use crate::jvm::{self, JvmConfig};

/// The binary name of the host class in the shim.
pub const HOST_CLASS: &str = "dev.egret.instance.JniHost";

/// The running JVM with the host's class and method ids, looked up once.
pub struct EmbeddedJvm {
    vm: JavaVM,
    host: Global<JClass<'static>>,
    start_executor: JStaticMethodID,
}

impl std::fmt::Debug for EmbeddedJvm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedJvm").finish_non_exhaustive()
    }
}

impl EmbeddedJvm {
    /// Starts the JVM, registers the frame channel's natives and caches the
    /// host's ids. [`frames::install`] must have been called.
    pub fn start(config: &JvmConfig) -> Result<Self, BridgeError> {
        let vm = jvm::start(config)?;
        let (host, start_executor) =
            vm.attach_current_thread(|env: &mut Env<'_>| -> Result<_, BridgeError> {
                let channel = env
                    .find_class(jni_str!("dev/egret/instance/JniFrameChannel"))
                    .map_err(|e| BridgeError::from_jni(env, e))?;
                frames::register(env, &channel)?;
                let host = env
                    .find_class(jni_str!("dev/egret/instance/JniHost"))
                    .map_err(|e| BridgeError::from_jni(env, e))?;
                let start = env
                    .get_static_method_id(
                        &host,
                        jni_str!("start"),
                        jni::jni_sig!("(Ljava/lang/String;ILjava/lang/String;)V"),
                    )
                    .map_err(|e| BridgeError::from_jni(env, e))?;
                let host = env
                    .new_global_ref(host)
                    .map_err(|e| BridgeError::from_jni(env, e))?;
                Ok((host, start))
            })?;
        Ok(Self {
            vm,
            host,
            start_executor,
        })
    }

    /// Starts executor `instance_id` on its own JVM thread, writing its log to
    /// `log_file`; returns once it is started.
    pub fn start_executor(
        &self,
        instance_id: &str,
        frame_cap: u32,
        log_file: &Path,
    ) -> Result<(), BridgeError> {
        let cap = i32::try_from(frame_cap).unwrap_or(i32::MAX);
        let log = log_file.to_str().ok_or_else(|| {
            BridgeError::Bridge(format!(
                "the log file of executor {instance_id} is not UTF-8: {}",
                log_file.display()
            ))
        })?;
        self.vm
            .attach_current_thread(|env: &mut Env<'_>| -> Result<(), BridgeError> {
                let id = env
                    .new_string(instance_id)
                    .map_err(|e| BridgeError::from_jni(env, e))?;
                let log = env
                    .new_string(log)
                    .map_err(|e| BridgeError::from_jni(env, e))?;
                let args = [
                    jvalue { l: id.as_raw() },
                    jvalue { i: cap },
                    jvalue { l: log.as_raw() },
                ];
                // SAFETY: `start_executor` was looked up on `host` with the
                // signature (Ljava/lang/String;ILjava/lang/String;)V, which
                // `args` and the return type match.
                #[allow(unsafe_code)]
                let called = unsafe {
                    env.call_static_method_unchecked(
                        &self.host,
                        self.start_executor,
                        ReturnType::Primitive(Primitive::Void),
                        &args,
                    )
                };
                called.map(drop).map_err(|e| BridgeError::from_jni(env, e))
            })
    }
}
