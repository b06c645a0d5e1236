//! A tiny TCP client and server for the test hosts' own tests
//! (`tests/tests/hosts.rs`), run inside a namespace with `Host::command`.
//!
//! ```text
//! egret-netprobe listen IP:PORT
//!     binds (port 0: any free port), prints `listening <addr>` and serves until
//!     killed: per connection, reads to EOF, answers `<addr> got: <request>`
//!     and closes.
//! egret-netprobe send IP:PORT TEXT [TIMEOUT_MS]
//!     connects (at most TIMEOUT_MS, default 5000), writes TEXT, half-closes,
//!     prints `local <its own addr>` and then the answer (read to EOF, at most
//!     10 s). Exits 1, saying why on stderr, when any of it fails.
//! ```

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

use anyhow::{Context, bail};

/// Bound of one read or write: the peers answer at once; generous for a
/// loaded machine.
const IO_TIMEOUT: Duration = Duration::from_secs(10);

fn listen(addr: SocketAddr) -> anyhow::Result<()> {
    let listener = TcpListener::bind(addr).with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr()?;
    println!("listening {local}");
    std::io::stdout().flush()?;
    for stream in listener.incoming() {
        // One bad client does not end the server.
        if let Err(e) = stream
            .map_err(anyhow::Error::from)
            .and_then(|s| answer(s, local))
        {
            eprintln!("egret-netprobe: {e:#}");
        }
    }
    Ok(())
}

fn answer(mut stream: TcpStream, local: SocketAddr) -> anyhow::Result<()> {
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    stream.set_write_timeout(Some(IO_TIMEOUT))?;
    let mut request = String::new();
    stream.read_to_string(&mut request)?;
    stream.write_all(format!("{local} got: {request}").as_bytes())?;
    Ok(())
}

fn send(addr: SocketAddr, text: &str, timeout: Duration) -> anyhow::Result<()> {
    let mut stream = TcpStream::connect_timeout(&addr, timeout)
        .with_context(|| format!("cannot connect to {addr}"))?;
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    stream.set_write_timeout(Some(IO_TIMEOUT))?;
    stream.write_all(text.as_bytes())?;
    stream.shutdown(Shutdown::Write)?;
    let mut reply = String::new();
    stream
        .read_to_string(&mut reply)
        .with_context(|| format!("no answer from {addr}"))?;
    println!("local {}", stream.local_addr()?);
    print!("{reply}");
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addr = |s: &String| -> anyhow::Result<SocketAddr> {
        s.parse().with_context(|| format!("not an IP:PORT: {s}"))
    };
    match args.as_slice() {
        [cmd, a] if cmd == "listen" => listen(addr(a)?),
        [cmd, a, text] if cmd == "send" => send(addr(a)?, text, Duration::from_secs(5)),
        [cmd, a, text, ms] if cmd == "send" => {
            let ms: u64 = ms
                .parse()
                .with_context(|| format!("not milliseconds: {ms}"))?;
            send(addr(a)?, text, Duration::from_millis(ms))
        }
        _ => bail!("usage: egret-netprobe listen IP:PORT | send IP:PORT TEXT [TIMEOUT_MS]"),
    }
}
