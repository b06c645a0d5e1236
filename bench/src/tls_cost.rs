//! `egret bench --tls-cost`: what the TLS layer costs a topology link.
//!
//! The same framed batches (an encoded `TupleBatch` of small tuples, as the
//! stream managers send each other) go one way over a loopback TCP
//! connection, once in plain TCP and once inside the topology's TLS
//! (`egret_transport`, exactly the configuration of the links), alternating
//! plain and TLS for each round. Both ends run in this process, so the CPU
//! counted (`getrusage(RUSAGE_SELF)`, user + system) is the sender's framing
//! and encryption plus the receiver's decryption and deframing, as on a real
//! link where each side pays its half. The TLS handshake is not measured
//! (links are long-lived).
//!
//! Invariants: every run moves the same number of bytes of the same batches;
//! the receiver checks it got every frame, whole, so a run cannot report a
//! throughput for data that did not arrive.

use std::time::{Duration, Instant};

use bytes::Bytes;
use egret_proto::FrameCodec;
use egret_proto::frame::encode_message;
use egret_proto::v1::{TupleBatch, TupleData};
use egret_transport::{DEFAULT_VALIDITY, Tls, TopologyCredentials};
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::Framed;

use crate::BenchError;

/// What a TLS-cost measurement moves.
#[derive(Debug, Clone, Copy)]
pub struct TlsCostOptions {
    /// Bytes of frames moved per run (rounded up to whole batches).
    pub bytes_per_run: u64,
    /// Tuples per batch.
    pub tuples_per_batch: usize,
    /// Bytes of each tuple's values.
    pub value_bytes: usize,
    /// Plain and TLS runs each.
    pub rounds: u32,
}

impl Default for TlsCostOptions {
    fn default() -> Self {
        Self {
            bytes_per_run: 1 << 30,
            tuples_per_batch: 256,
            value_bytes: 100,
            rounds: 3,
        }
    }
}

/// One run over one kind of link.
#[derive(Debug, Clone, Copy)]
pub struct LinkRun {
    pub tls: bool,
    pub bytes: u64,
    pub frames: u64,
    pub wall: Duration,
    /// User + system CPU of the process (both ends) during the run.
    pub cpu: Duration,
}

impl LinkRun {
    pub fn mib_per_sec(&self) -> f64 {
        self.bytes as f64 / (1 << 20) as f64 / self.wall.as_secs_f64()
    }

    pub fn cpu_secs_per_gib(&self) -> f64 {
        self.cpu.as_secs_f64() / (self.bytes as f64 / (1u64 << 30) as f64)
    }
}

/// Every run, and the medians per kind of link.
#[derive(Debug, Clone)]
pub struct TlsCost {
    pub runs: Vec<LinkRun>,
    pub frame_bytes: usize,
}

impl TlsCost {
    fn median(&self, tls: bool, figure: impl Fn(&LinkRun) -> f64) -> f64 {
        let mut values: Vec<f64> = self
            .runs
            .iter()
            .filter(|r| r.tls == tls)
            .map(figure)
            .collect();
        values.sort_by(f64::total_cmp);
        match values.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => values[n / 2],
            n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
        }
    }

    /// Median MiB/s of (plain, TLS).
    pub fn throughput(&self) -> (f64, f64) {
        (
            self.median(false, LinkRun::mib_per_sec),
            self.median(true, LinkRun::mib_per_sec),
        )
    }

    /// Median CPU seconds per GiB moved of (plain, TLS).
    pub fn cpu_per_gib(&self) -> (f64, f64) {
        (
            self.median(false, LinkRun::cpu_secs_per_gib),
            self.median(true, LinkRun::cpu_secs_per_gib),
        )
    }

    /// The table printed by `egret bench --tls-cost`.
    pub fn render(&self) -> String {
        let mut out = format!(
            "{:<6} {:>5} {:>10} {:>12} {:>10} {:>12}\n",
            "link", "run", "MiB", "MiB/s", "CPU s", "CPU s/GiB"
        );
        for (i, run) in self.runs.iter().enumerate() {
            out.push_str(&format!(
                "{:<6} {:>5} {:>10} {:>12.1} {:>10.2} {:>12.3}\n",
                if run.tls { "tls" } else { "plain" },
                i / 2 + 1,
                run.bytes >> 20,
                run.mib_per_sec(),
                run.cpu.as_secs_f64(),
                run.cpu_secs_per_gib()
            ));
        }
        let (plain_tput, tls_tput) = self.throughput();
        let (plain_cpu, tls_cpu) = self.cpu_per_gib();
        out.push_str(&format!(
            "median plain: {plain_tput:.1} MiB/s, {plain_cpu:.3} CPU s/GiB; tls: {tls_tput:.1} MiB/s, {tls_cpu:.3} CPU s/GiB\n"
        ));
        out.push_str(&format!(
            "TLS / plain: throughput x{:.2}, CPU per GiB x{:.2} (frames of {} bytes, both ends in one process)\n",
            tls_tput / plain_tput,
            tls_cpu / plain_cpu,
            self.frame_bytes
        ));
        out
    }
}

/// The frame every run sends: a batch of `tuples` tuples of `value_bytes` each.
fn batch_frame(tuples: usize, value_bytes: usize) -> Bytes {
    let values = Bytes::from(vec![0x5a; value_bytes]);
    let batch = TupleBatch {
        tuples: (0..tuples)
            .map(|i| TupleData {
                dest_task: (i % 8) as i32 + 1,
                src_task: 9,
                stream: "default".into(),
                values: values.clone(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    encode_message(&batch)
}

/// Runs the measurement (its own runtime: two worker threads, one per end).
pub fn measure(options: TlsCostOptions) -> Result<TlsCost, BenchError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| BenchError::Setup(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(measure_async(options))
}

async fn measure_async(options: TlsCostOptions) -> Result<TlsCost, BenchError> {
    let credentials = TopologyCredentials::generate("bench", DEFAULT_VALIDITY)
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    let tls = Tls::new(&credentials).map_err(|e| BenchError::Setup(e.to_string()))?;
    let frame = batch_frame(options.tuples_per_batch, options.value_bytes);
    let frame_bytes = frame.len() + 4;
    let frames = options.bytes_per_run.div_ceil(frame_bytes as u64).max(1);
    let mut runs = Vec::new();
    for _ in 0..options.rounds {
        for use_tls in [false, true] {
            runs.push(one_run(&tls, use_tls, &frame, frames).await?);
        }
    }
    Ok(TlsCost { runs, frame_bytes })
}

fn setup(what: &str) -> impl FnOnce(std::io::Error) -> BenchError + '_ {
    move |e| BenchError::Setup(format!("{what}: {e}"))
}

async fn one_run(
    tls: &Tls,
    use_tls: bool,
    frame: &Bytes,
    frames: u64,
) -> Result<LinkRun, BenchError> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(setup("cannot listen on loopback"))?;
    let addr = listener.local_addr().map_err(setup("no local address"))?;
    let dial = TcpStream::connect(addr);
    let (dialed, accepted) = tokio::join!(dial, listener.accept());
    let client = dialed.map_err(setup("cannot connect on loopback"))?;
    let (server, peer) = accepted.map_err(setup("cannot accept on loopback"))?;
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let max = frame.len() * 2;
    if use_tls {
        let (c, s) = tokio::join!(tls.connect(client, addr), tls.accept(server, peer));
        let c = c.map_err(|e| BenchError::Setup(e.to_string()))?;
        let s = s.map_err(|e| BenchError::Setup(e.to_string()))?;
        transfer(c, s, frame, frames, max, true).await
    } else {
        transfer(client, server, frame, frames, max, false).await
    }
}

async fn transfer<C, S>(
    client: C,
    server: S,
    frame: &Bytes,
    frames: u64,
    max_frame: usize,
    tls: bool,
) -> Result<LinkRun, BenchError>
where
    C: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mut sink = Framed::new(client, FrameCodec::new(max_frame));
    let mut source = Framed::new(server, FrameCodec::new(max_frame));
    let expected_len = frame.len();
    let cpu_before = process_cpu()?;
    let started = Instant::now();
    let payload = frame.clone();
    let sender = tokio::spawn(async move {
        for _ in 0..frames {
            sink.feed(payload.clone()).await?;
        }
        SinkExt::<Bytes>::flush(&mut sink).await?;
        // Kept open until the receiver has everything (closing a TLS stream early is not the point).
        Ok::<_, egret_proto::FrameError>(sink)
    });
    let mut received = 0u64;
    while received < frames {
        match source.next().await {
            Some(Ok(body)) if body.len() == expected_len => received += 1,
            Some(Ok(body)) => {
                return Err(BenchError::Setup(format!(
                    "a frame of {} bytes arrived, {expected_len} were sent",
                    body.len()
                )));
            }
            Some(Err(e)) => return Err(BenchError::Setup(format!("the link failed: {e}"))),
            None => {
                return Err(BenchError::Setup(format!(
                    "the link closed after {received} of {frames} frames"
                )));
            }
        }
    }
    let wall = started.elapsed();
    let cpu = process_cpu()?.saturating_sub(cpu_before);
    match sender.await {
        Ok(Ok(_sink)) => {}
        Ok(Err(e)) => return Err(BenchError::Setup(format!("the sender failed: {e}"))),
        Err(e) => return Err(BenchError::Setup(format!("the sender panicked: {e}"))),
    }
    Ok(LinkRun {
        tls,
        bytes: frames * (expected_len as u64 + 4),
        frames,
        wall,
        cpu,
    })
}

/// User + system CPU of this process so far.
fn process_cpu() -> Result<Duration, BenchError> {
    use nix::sys::resource::{UsageWho, getrusage};
    let usage = getrusage(UsageWho::RUSAGE_SELF)
        .map_err(|e| BenchError::Setup(format!("getrusage failed: {e}")))?;
    let micros = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec().max(0) as u64)
            + Duration::from_micros(t.tv_usec().max(0) as u64)
    };
    Ok(micros(usage.user_time()) + micros(usage.system_time()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_links_move_every_frame_and_the_figures_are_computed_per_kind() {
        let cost = measure(TlsCostOptions {
            bytes_per_run: 4 << 20,
            tuples_per_batch: 64,
            value_bytes: 100,
            rounds: 1,
        })
        .unwrap();
        assert_eq!(cost.runs.len(), 2);
        assert!(!cost.runs[0].tls && cost.runs[1].tls);
        for run in &cost.runs {
            assert!(run.bytes >= 4 << 20, "{run:?}");
            assert_eq!(run.bytes, run.frames * cost.frame_bytes as u64);
        }
        let (plain, tls) = cost.throughput();
        assert!(plain > 0.0 && tls > 0.0);
        let table = cost.render();
        assert!(table.contains("TLS / plain"), "{table}");
    }
}
