//! The JNI bridge (`egret.instance.bridge: jni`): the process that runs a
//! container's stream manager embeds one JVM ([`jvm`]), the container's
//! executors run as threads of it ([`host`]), their frames cross through
//! direct `ByteBuffer`s ([`frames`]), and every failure crossing the
//! boundary is mapped by one module ([`errors`]).

pub mod errors;
pub mod frames;
pub mod host;
pub mod jvm;

pub use errors::BridgeError;
pub use frames::{NativeConnection, RouteNow, SendPath};
pub use host::EmbeddedJvm;
pub use jvm::JvmConfig;
