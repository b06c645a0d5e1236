//! The one mapping between the two sides' failures (as DataFusion Comet's
//! jni-bridge has one):
//!
//! - a Java exception met by Rust (pending after a call into Java, or caught
//!   by the attachment) becomes [`BridgeError::Java`] with the exception's
//!   class and message, and the exception is cleared: Rust code goes on and
//!   decides what it means;
//! - a Rust error or panic in a native method becomes a Java
//!   `java.lang.RuntimeException` thrown when the native method returns,
//!   whose message is the error's text or `Rust panic: <the panic's message>`
//!   ([`ThrowBridgeError`], the error policy of every native method here).
//!
//! Neither ever crosses the boundary as an unwind: a panic in a native method
//! is caught before it reaches the JVM's frames.

use std::any::Any;

use jni::Env;
use jni::errors::ErrorPolicy;
use jni::objects::JThrowable;

/// What failed on either side of the bridge.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// A Java exception, by class name and message.
    #[error("{class}: {message}")]
    Java { class: String, message: String },
    /// A Rust panic, by its message.
    #[error("Rust panic: {0}")]
    Panic(String),
    /// A JNI call failed without a Java exception.
    #[error("JNI call failed: {0}")]
    Jni(String),
    /// The embedded JVM could not be started.
    #[error("cannot start the embedded JVM: {0}")]
    Start(String),
    /// A failure of the bridge itself (a closed channel, an unknown handle, ...).
    #[error("{0}")]
    Bridge(String),
}

/// The Java class the natives throw for every Rust error and panic.
pub const NATIVE_EXCEPTION_CLASS: &str = "java.lang.RuntimeException";

impl BridgeError {
    /// The message of a panic's payload (`panic!` with a literal or a format).
    pub fn from_panic(payload: &(dyn Any + Send)) -> Self {
        let message = if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_owned()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "a panic without a message".to_owned()
        };
        Self::Panic(message)
    }

    /// What `err`, returned by a JNI call through `env`, means: when a Java
    /// exception is pending (or was caught by the attachment) it is taken,
    /// cleared and described; else the JNI failure itself.
    pub fn from_jni(env: &mut Env<'_>, err: jni::errors::Error) -> Self {
        match err {
            jni::errors::Error::CaughtJavaException { name, msg, .. } => Self::Java {
                class: name,
                message: msg,
            },
            err => match env.exception_occurred() {
                Some(throwable) => {
                    env.exception_clear();
                    describe_throwable(env, &throwable)
                }
                None => Self::Jni(err.to_string()),
            },
        }
    }
}

/// The class and message of `throwable` (its `getMessage()`, or empty).
fn describe_throwable(env: &mut Env<'_>, throwable: &JThrowable<'_>) -> BridgeError {
    let class = env
        .get_object_class(throwable)
        .and_then(|class| class.get_name(env))
        .and_then(|name| name.try_to_string(env))
        .unwrap_or_else(|_| "java.lang.Throwable".to_owned());
    let message = throwable
        .get_message(env)
        .and_then(|m| {
            if m.is_null() {
                Ok(String::new())
            } else {
                m.try_to_string(env)
            }
        })
        .unwrap_or_default();
    // A failure while describing leaves its own exception: never let it leak.
    if env.exception_check() {
        env.exception_clear();
    }
    BridgeError::Java { class, message }
}

/// Runs `f`, turning a panic into [`BridgeError::Panic`] (for Rust code that
/// calls into Java from its own threads).
pub fn catch_panic<T>(f: impl FnOnce() -> Result<T, BridgeError>) -> Result<T, BridgeError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(BridgeError::from_panic(payload.as_ref())),
    }
}

/// The error policy of every native method: an error or a panic is thrown
/// as a `java.lang.RuntimeException` with its message, and the method
/// returns its type's default.
pub struct ThrowBridgeError;

impl<T: Default> ErrorPolicy<T, BridgeError> for ThrowBridgeError {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        err: BridgeError,
    ) -> jni::errors::Result<T> {
        throw(env, &err.to_string())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        payload: Box<dyn Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        let err = BridgeError::from_panic(payload.as_ref());
        tracing::error!(error = %err, "A native method of the JNI bridge panicked; Java gets an exception.");
        throw(env, &err.to_string())
    }
}

fn throw<T: Default>(env: &mut Env<'_>, message: &str) -> jni::errors::Result<T> {
    // An exception already pending (thrown by Java under this native call)
    // stays the one Java sees.
    if !env.exception_check() {
        // `throw_new` reports the exception it made pending as an error: that is its success.
        let _pending = env.throw_new(
            jni::jni_str!("java/lang/RuntimeException"),
            jni::strings::JNIString::new(message),
        );
    }
    Ok(T::default())
}

impl From<jni::errors::Error> for BridgeError {
    /// A JNI failure where no `Env` is at hand to describe a pending
    /// exception (which then stays pending and reaches Java as it is).
    fn from(err: jni::errors::Error) -> Self {
        match err {
            jni::errors::Error::CaughtJavaException { name, msg, .. } => Self::Java {
                class: name,
                message: msg,
            },
            err => Self::Jni(err.to_string()),
        }
    }
}
