//! The bridge's failure mapping and frame channel against a real embedded
//! JVM: a panic in a native method is a Java exception with the panic's
//! message, a Java exception in a call from Rust is a Rust error with its
//! class and message, neither ends the process; frames make the round trip.
//! (One JVM per process: every test shares it.)

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    unsafe_code,
    reason = "test code; the probe's natives are registered by hand"
)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;
use egret_native::errors::{BridgeError, ThrowBridgeError};
use egret_native::{JvmConfig, NativeConnection, frames, jvm};
use jni::objects::{JClass, JString, JValue};
use jni::{Env, EnvUnowned, JavaVM, NativeMethod, jni_sig, jni_str};
use tokio::sync::mpsc;

const PROBE: &str = r#"
import java.nio.ByteBuffer;
public final class Probe {
    static native void boom(String message);
    static native void fail(String message);
    static native String relay(String message);
    static native long open0(String instanceId, int restarts);
    static native int send0(long handle, ByteBuffer buffer, int length);
    static native int trySend0(long handle, ByteBuffer buffer, int length);
    static native long receive0(long handle, ByteBuffer buffer);
    static native long receiveWithin0(long handle, ByteBuffer buffer, long timeoutNanos);
    static native void wake0(long handle);
    static native void close0(long handle);

    static String outcome(Runnable r) {
        try { r.run(); return "no exception"; }
        catch (RuntimeException e) { return e.getClass().getName() + "|" + e.getMessage(); }
    }
    public static String callBoom(String m) { return outcome(() -> boom(m)); }
    public static String callFail(String m) { return outcome(() -> fail(m)); }
    public static String callRelay(String m) { return relay(m); }
    public static void thrower(String m) { throw new IllegalStateException(m); }

    /** Sends `text` as one frame, then reads one frame back through a buffer of `capacity`. */
    public static String roundTrip(String text, int capacity) {
        long h = open0("probe-1", 3);
        ByteBuffer out = ByteBuffer.allocateDirect(64);
        byte[] b = text.getBytes();
        out.put(b);
        if (send0(h, out, b.length) != 0) return "send refused";
        ByteBuffer in = ByteBuffer.allocateDirect(capacity);
        long n = receive0(h, in);
        if (n > capacity) { in = ByteBuffer.allocateDirect((int) n); n = receive0(h, in); }
        byte[] got = new byte[(int) n];
        in.get(0, got);
        long after = receive0(h, in); // the Rust side closed its end
        close0(h);
        return new String(got) + "|" + after;
    }

    /**
     * Opens a port and offers `count` frames with trySend0, each its number as text; returns
     * the statuses, then waits for `release` (the Rust side reading) and offers one more.
     */
    static long tryHandle;
    public static String tryFill(String count) {
        tryHandle = open0("probe-try", 0);
        StringBuilder b = new StringBuilder();
        ByteBuffer out = ByteBuffer.allocateDirect(16);
        for (int i = 0; i < Integer.parseInt(count); i++) {
            byte[] t = Integer.toString(i).getBytes();
            out.clear();
            out.put(t);
            b.append(trySend0(tryHandle, out, t.length));
        }
        return b.toString();
    }
    /** One more trySend0 on the port of tryFill: its status. */
    public static String tryOneMore(String text) {
        ByteBuffer out = ByteBuffer.allocateDirect(16);
        byte[] t = text.getBytes();
        out.put(t);
        return Integer.toString(trySend0(tryHandle, out, t.length));
    }
    /** Opens a port; reads with no wait on an empty port, then after a wake0 with a long one. */
    static long withinHandle;
    public static String withinStart(String unused) {
        withinHandle = open0("probe-within", 0);
        ByteBuffer small = ByteBuffer.allocateDirect(4);
        long empty = receiveWithin0(withinHandle, small, 0);
        wake0(withinHandle);
        long woken = receiveWithin0(withinHandle, small, 30_000_000_000L);
        return empty + " " + woken;
    }
    /** Waits for the frame the Rust side sends (too large for 4 bytes: kept), reads it, then the end. */
    public static String withinRest(String unused) {
        long n = receiveWithin0(withinHandle, ByteBuffer.allocateDirect(4), 30_000_000_000L);
        ByteBuffer big = ByteBuffer.allocateDirect((int) n);
        long m = receiveWithin0(withinHandle, big, 0);
        byte[] got = new byte[(int) m];
        big.get(0, got);
        long end = receiveWithin0(withinHandle, big, 30_000_000_000L);
        close0(withinHandle);
        return n + " " + new String(got) + " " + end;
    }
    public static String tryClose(String unused) {
        close0(tryHandle);
        return "closed";
    }
    /** A port for the route on the sending thread. */
    static long routeHandle;
    public static String routeOpen(String unused) {
        routeHandle = open0("probe-route", 0);
        return "open";
    }
    /** Sends the text after "t:" with trySend0 or after "s:" with send0: the status. */
    public static String routeSend(String spec) {
        byte[] t = spec.substring(2).getBytes();
        ByteBuffer out = ByteBuffer.allocateDirect(64);
        out.put(t);
        int status = spec.startsWith("s:") ? send0(routeHandle, out, t.length) : trySend0(routeHandle, out, t.length);
        return Integer.toString(status);
    }
    public static String routeClose(String unused) {
        close0(routeHandle);
        return "closed";
    }
}
"#;

fn class_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("egret-native-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("Probe.java"), PROBE).unwrap();
        let status = Command::new("javac")
            .arg("-d")
            .arg(&dir)
            .arg(dir.join("Probe.java"))
            .status()
            .expect("javac");
        assert!(status.success(), "javac failed");
        dir
    })
    .clone()
}

extern "system" fn boom<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    message: JString<'local>,
) {
    unowned
        .with_env(|env| -> Result<(), BridgeError> {
            let text = message.try_to_string(env)?;
            panic!("injected: {text}");
        })
        .resolve::<ThrowBridgeError>();
}

extern "system" fn fail<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    message: JString<'local>,
) {
    unowned
        .with_env(|env| -> Result<(), BridgeError> {
            let text = message.try_to_string(env)?;
            Err(BridgeError::Bridge(format!("refused: {text}")))
        })
        .resolve::<ThrowBridgeError>();
}

/// Calls back into `Probe.thrower` and returns what Rust saw of it.
extern "system" fn relay<'local>(
    mut unowned: EnvUnowned<'local>,
    class: JClass<'local>,
    message: JString<'local>,
) -> JString<'local> {
    unowned
        .with_env(|env| -> Result<JString<'local>, BridgeError> {
            let called = env.call_static_method(
                &class,
                jni_str!("thrower"),
                jni_sig!("(Ljava/lang/String;)V"),
                &[JValue::Object(&message)],
            );
            let seen = match called {
                Ok(_) => "no error".to_owned(),
                Err(e) => match BridgeError::from_jni(env, e) {
                    BridgeError::Java { class, message } => format!("java|{class}|{message}"),
                    other => format!("other|{other}"),
                },
            };
            Ok(env.new_string(seen)?)
        })
        .resolve::<ThrowBridgeError>()
}

struct Jvm {
    vm: JavaVM,
    connections: Mutex<mpsc::Receiver<NativeConnection>>,
}

fn jvm() -> &'static Jvm {
    static JVM: OnceLock<Jvm> = OnceLock::new();
    JVM.get_or_init(|| {
        let (tx, rx) = mpsc::channel(4);
        frames::install(tx).unwrap();
        let vm = jvm::start(&JvmConfig {
            java: "java".into(),
            class_path: vec![class_dir()],
            heap_mb: 64,
            options: vec!["-XX:+UseSerialGC".into()],
        })
        .unwrap();
        vm.attach_current_thread(|env: &mut Env<'_>| -> Result<(), BridgeError> {
            let probe = env.find_class(jni_str!("Probe"))?;
            let methods = unsafe {
                [
                    NativeMethod::from_raw_parts(
                        jni_str!("boom"),
                        jni_str!("(Ljava/lang/String;)V"),
                        boom as *mut std::ffi::c_void,
                    ),
                    NativeMethod::from_raw_parts(
                        jni_str!("fail"),
                        jni_str!("(Ljava/lang/String;)V"),
                        fail as *mut std::ffi::c_void,
                    ),
                    NativeMethod::from_raw_parts(
                        jni_str!("relay"),
                        jni_str!("(Ljava/lang/String;)Ljava/lang/String;"),
                        relay as *mut std::ffi::c_void,
                    ),
                ]
            };
            unsafe { env.register_native_methods(&probe, &methods) }?;
            // The production natives, on a class with the same signatures.
            frames::register(env, &probe)?;
            Ok(())
        })
        .unwrap();
        Jvm {
            vm,
            connections: Mutex::new(rx),
        }
    })
}

fn call_probe(method: &'static str, text: &str) -> String {
    let name = jni::strings::JNIString::new(method);
    jvm()
        .vm
        .attach_current_thread(|env: &mut Env<'_>| -> Result<String, BridgeError> {
            let probe = env.find_class(jni_str!("Probe"))?;
            let arg = env.new_string(text)?;
            let out = env.call_static_method(
                &probe,
                &name,
                jni_sig!("(Ljava/lang/String;)Ljava/lang/String;"),
                &[JValue::Object(&arg)],
            )?;
            let out = out.l()?;
            let out = env.cast_local::<JString>(out)?;
            Ok(out.try_to_string(env)?)
        })
        .unwrap()
}

#[test]
fn a_panic_in_a_native_method_is_a_java_exception_with_its_message() {
    let seen = call_probe("callBoom", "the bolt's frame");
    assert_eq!(
        seen,
        "java.lang.RuntimeException|Rust panic: injected: the bolt's frame"
    );
    // The process and the JVM go on: the next call works.
    assert_eq!(
        call_probe("callFail", "twice"),
        "java.lang.RuntimeException|refused: twice"
    );
}

#[test]
fn a_java_exception_in_a_callback_is_a_rust_error_with_class_and_message() {
    assert_eq!(
        call_probe("callRelay", "no such task 7"),
        "java|java.lang.IllegalStateException|no such task 7"
    );
    // And from a Rust thread's own call into Java.
    let err = jvm()
        .vm
        .attach_current_thread(|env: &mut Env<'_>| -> Result<(), BridgeError> {
            let probe = env.find_class(jni_str!("Probe"))?;
            let arg = env.new_string("from rust")?;
            env.call_static_method(
                &probe,
                jni_str!("thrower"),
                jni_sig!("(Ljava/lang/String;)V"),
                &[JValue::Object(&arg)],
            )
            .map_err(|e| BridgeError::from_jni(env, e))?;
            Ok(())
        })
        .unwrap_err();
    assert!(
        matches!(&err, BridgeError::Java { class, message } if class == "java.lang.IllegalStateException" && message == "from rust"),
        "{err:?}"
    );
}

/// The next port opened, which must be `instance_id`'s.
fn next_connection(instance_id: &str) -> NativeConnection {
    let connection = jvm()
        .connections
        .lock()
        .unwrap()
        .blocking_recv()
        .expect("a connection");
    assert_eq!(connection.instance_id, instance_id);
    connection
}

/// The tests that open ports take the connections in turn (one dispatcher).
static PORTS: Mutex<()> = Mutex::new(());

#[test]
fn try_send_queues_while_there_is_room_and_never_waits() {
    let _ports = PORTS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let queue = frames::PORT_QUEUE_FRAMES;
    // One more than the port's queue holds: the last is refused (0) at once.
    let statuses = call_probe("tryFill", &(queue + 1).to_string());
    assert_eq!(statuses, format!("{}0", "1".repeat(queue)));
    let mut connection = next_connection("probe-try");
    // The queued frames come whole and in order; the refused one never comes.
    for i in 0..queue {
        let frame = connection.from_instance.blocking_recv().expect("a frame");
        assert_eq!(&frame[..], i.to_string().as_bytes());
    }
    assert!(connection.from_instance.try_recv().is_err());
    // Room again: queued.
    assert_eq!(call_probe("tryOneMore", "again"), "1");
    let frame = connection.from_instance.blocking_recv().expect("a frame");
    assert_eq!(&frame[..], b"again");
    // The stream manager gone: -1, as send0 says.
    drop(connection);
    assert_eq!(call_probe("tryOneMore", "late"), "-1");
    assert_eq!(call_probe("tryClose", ""), "closed");
}

#[test]
fn a_frame_is_routed_on_the_sending_thread_only_while_nothing_sent_before_is_pending() {
    let _ports = PORTS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    assert_eq!(call_probe("routeOpen", ""), "open");
    let mut connection = next_connection("probe-route");
    let routed = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&routed);
    // The route takes the frames whose text starts with "route".
    connection.send_path.install(Box::new(move |frame: &Bytes| {
        let text = String::from_utf8_lossy(frame).into_owned();
        let take = text.starts_with("route");
        if take {
            seen.lock().unwrap().push(text);
        }
        take
    }));
    let mut next = |expected: &str| {
        let frame = connection.from_instance.blocking_recv().expect("a frame");
        assert_eq!(String::from_utf8_lossy(&frame), expected);
    };
    // Routed on the sending thread, by both sends: never queued.
    assert_eq!(call_probe("routeSend", "t:route-1"), "1");
    assert_eq!(call_probe("routeSend", "s:route-2"), "0");
    // Refused by the route: queued, and what follows queues behind it until
    // the stream manager has handled it.
    assert_eq!(call_probe("routeSend", "t:other-3"), "1");
    assert_eq!(call_probe("routeSend", "s:route-4"), "0");
    assert_eq!(call_probe("routeSend", "t:route-5"), "1");
    next("other-3");
    connection.send_path.handled();
    next("route-4");
    connection.send_path.handled();
    // route-5 is taken but not handled yet: still behind it.
    next("route-5");
    assert_eq!(call_probe("routeSend", "t:route-6"), "1");
    connection.send_path.handled();
    next("route-6");
    connection.send_path.handled();
    // Nothing pending, but the route refused a frame lately: the next frames
    // are queued without being offered, then offered again.
    for i in 0..frames::SKIP_AFTER_REFUSAL {
        let text = format!("route-skipped-{i}");
        assert_eq!(call_probe("routeSend", &format!("t:{text}")), "1");
        next(&text);
        connection.send_path.handled();
    }
    assert_eq!(call_probe("routeSend", "t:route-7"), "1");
    assert_eq!(*routed.lock().unwrap(), ["route-1", "route-2", "route-7"]);
    assert!(connection.from_instance.try_recv().is_err());
    // No route: queued.
    connection.send_path.clear();
    assert_eq!(call_probe("routeSend", "s:route-8"), "0");
    let frame = connection.from_instance.blocking_recv().expect("a frame");
    assert_eq!(&frame[..], b"route-8");
    assert_eq!(routed.lock().unwrap().len(), 3);
    assert_eq!(call_probe("routeClose", ""), "closed");
}

#[test]
fn frames_cross_whole_in_both_directions_and_a_closed_end_reads_minus_one() {
    let _ports = PORTS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let vm = &jvm().vm;
    let echo = std::thread::spawn(|| {
        let mut connection = next_connection("probe-1");
        assert_eq!(
            connection.restarts, 3,
            "the restart count the executor opened with"
        );
        let frame = connection.from_instance.blocking_recv().expect("a frame");
        assert_eq!(&frame[..], b"batch of three tuples");
        // Larger than the Java buffer of 8 bytes: it grows and asks again.
        connection
            .to_instance
            .blocking_send(Bytes::from_static(b"tree events for the spout"))
            .unwrap();
        drop(connection);
    });
    let result = vm
        .attach_current_thread(|env: &mut Env<'_>| -> Result<String, BridgeError> {
            let probe = env.find_class(jni_str!("Probe"))?;
            let arg = env.new_string("batch of three tuples")?;
            let out = env
                .call_static_method(
                    &probe,
                    jni_str!("roundTrip"),
                    jni_sig!("(Ljava/lang/String;I)Ljava/lang/String;"),
                    &[JValue::Object(&arg), JValue::Int(8)],
                )
                .map_err(|e| BridgeError::from_jni(env, e))?;
            let out = env.cast_local::<JString>(out.l()?)?;
            Ok(out.try_to_string(env)?)
        })
        .unwrap();
    echo.join().unwrap();
    assert_eq!(result, "tree events for the spout|-1");
}

#[test]
fn a_read_within_a_timeout_returns_without_a_frame_when_woken_and_takes_one_that_comes() {
    let _ports = PORTS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // -2: no frame, at once on an empty port with no wait, and at once after wake0 with a
    // wait of 30 s (the wake's permit is kept for the read that follows it).
    let started = std::time::Instant::now();
    assert_eq!(call_probe("withinStart", ""), "-2 -2");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "the woken read waited out its timeout"
    );
    let connection = next_connection("probe-within");
    let sender = std::thread::spawn(move || {
        // Most likely while the Java side waits in receiveWithin0: the waker unparks it.
        std::thread::sleep(std::time::Duration::from_millis(100));
        connection
            .to_instance
            .blocking_send(Bytes::from_static(b"tuples for a bolt"))
            .unwrap();
        drop(connection);
    });
    // The frame (17 bytes) is kept when the buffer is too small and read whole next; then -1.
    assert_eq!(call_probe("withinRest", ""), "17 tuples for a bolt -1");
    sender.join().unwrap();
}
