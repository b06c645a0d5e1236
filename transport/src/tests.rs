//! Handshakes over real loopback TCP.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use egret_proto::handshake::{self, HandshakeError};
use egret_proto::v1::{Hello, PeerRole};
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use crate::credentials::issue;
use crate::*;

const MAX_FRAME: usize = 1 << 20;

fn credentials(name: &str) -> TopologyCredentials {
    TopologyCredentials::generate(name, DEFAULT_VALIDITY).unwrap()
}

fn tls(credentials: &TopologyCredentials) -> Tls {
    Tls::new(credentials).unwrap()
}

/// A server accepting TLS connections on loopback; each handshake's outcome
/// (with the stream, when it succeeded) comes out of the channel.
async fn serve(server: Tls) -> (SocketAddr, mpsc::Receiver<Result<TlsStream, TlsError>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::channel(4);
    tokio::spawn(async move {
        while let Ok((tcp, peer)) = listener.accept().await {
            let server = server.clone();
            let tx = tx.clone();
            tokio::spawn(async move {
                let _ = tx.send(server.accept(tcp, peer).await).await;
            });
        }
    });
    (addr, rx)
}

async fn dial(client: &Tls, addr: SocketAddr) -> Result<TlsStream, TlsError> {
    let tcp = TcpStream::connect(addr).await.unwrap();
    client.connect(tcp, addr).await
}

/// Runs the (unchanged) hello inside both TLS streams, then one frame each way.
async fn hello_and_a_frame_each_way(
    server: TlsStream,
    client: TlsStream,
    token: &egret_proto::Token,
) {
    let token_s = token.clone();
    let accepting = tokio::spawn(async move {
        let (hello, mut framed) =
            handshake::accept(server, &token_s, &[PeerRole::StreamManager], MAX_FRAME)
                .await
                .unwrap();
        assert_eq!(hello.peer_id, "stmgr-1");
        let got = framed.next().await.unwrap().unwrap();
        framed.send(got).await.unwrap();
    });
    let mut framed =
        handshake::connect(client, token, PeerRole::StreamManager, "stmgr-1", MAX_FRAME)
            .await
            .unwrap();
    framed.send(Bytes::from_static(b"tuples")).await.unwrap();
    assert_eq!(&framed.next().await.unwrap().unwrap()[..], b"tuples");
    accepting.await.unwrap();
}

#[tokio::test]
async fn the_same_topology_is_accepted_both_ways() {
    let creds = credentials("word-count");
    // Two processes of the topology, each with its own `Tls` (counters).
    let (a, b) = (tls(&creds), tls(&creds));
    for (server, client) in [(&a, &b), (&b, &a)] {
        let (addr, mut outcomes) = serve(server.clone()).await;
        let client_side = dial(client, addr).await.unwrap();
        let server_side = outcomes.recv().await.unwrap().unwrap();
        let (_, connection) = server_side.get_ref();
        assert_eq!(
            connection.protocol_version(),
            Some(rustls::ProtocolVersion::TLSv1_3)
        );
        hello_and_a_frame_each_way(server_side, client_side, creds.token()).await;
    }
    assert_eq!(a.refused().total() + b.refused().total(), 0);
}

#[tokio::test]
async fn a_client_with_another_topologys_certificate_is_refused() {
    let ours = credentials("ours");
    let theirs = credentials("theirs");
    let server = tls(&ours);
    let (addr, mut outcomes) = serve(server.clone()).await;
    // The intruder trusts our CA (its certificate is not secret) but can only
    // present a certificate of its own topology.
    let intruder = tls(&TopologyCredentials::from_parts(
        theirs.token().clone(),
        ours.ca_pem().to_owned(),
        theirs.cert_pem().to_owned(),
        theirs.key_pem().to_owned(),
        [std::path::Path::new("ca"), "cert".as_ref(), "key".as_ref()],
    )
    .unwrap());
    // TLS 1.3: the client's certificate goes last, so the client's side may
    // complete; its first read (the hello's reply) then gets the refusal.
    let client_side = dial(&intruder, addr).await;
    let refused = outcomes.recv().await.unwrap();
    let err = refused.err().unwrap();
    assert_eq!(err.refusal(), Some(RefusalReason::UnknownCa), "{err}");
    assert!(matches!(
        err,
        TlsError::Refused {
            side: Side::Server,
            ..
        }
    ));
    let text = err.to_string();
    assert!(
        text.contains("another CA") && text.contains(&addr.ip().to_string()),
        "{text}"
    );
    assert_eq!(server.refused().get(RefusalReason::UnknownCa), 1);
    assert_eq!(server.refused().total(), 1);
    if let Ok(stream) = client_side {
        let hello =
            handshake::connect(stream, theirs.token(), PeerRole::Client, "c", MAX_FRAME).await;
        assert!(
            matches!(
                hello,
                Err(HandshakeError::Frame(_)) | Err(HandshakeError::Closed)
            ),
            "the intruder got past the TLS layer: {:?}",
            hello.map(|_| ())
        );
    }
    assert_eq!(intruder.refused().total(), 0, "the refusal is the server's");

    // With all of another topology's credentials, the client refuses our
    // server first (its certificate is not from the client's CA).
    let stranger = tls(&theirs);
    let err = dial(&stranger, addr).await.err().unwrap();
    assert_eq!(err.refusal(), Some(RefusalReason::UnknownCa), "{err}");
    assert_eq!(stranger.refused().get(RefusalReason::UnknownCa), 1);
    let server_err = outcomes.recv().await.unwrap().err().unwrap();
    assert!(
        matches!(server_err, TlsError::RefusedByPeer { .. }),
        "{server_err}"
    );
    assert_eq!(
        server.refused().total(),
        1,
        "the peer's refusal is not counted here"
    );
}

#[tokio::test]
async fn a_server_with_another_topologys_credentials_is_refused() {
    let (addr, mut outcomes) = serve(tls(&credentials("theirs"))).await;
    let client = tls(&credentials("ours"));
    let err = dial(&client, addr).await.err().unwrap();
    assert_eq!(err.refusal(), Some(RefusalReason::UnknownCa), "{err}");
    assert!(matches!(
        err,
        TlsError::Refused {
            side: Side::Client,
            ..
        }
    ));
    assert_eq!(client.refused().get(RefusalReason::UnknownCa), 1);
    // The server learns it from the client's alert: an error, not its own refusal.
    let server_err = outcomes.recv().await.unwrap().err().unwrap();
    assert!(
        matches!(server_err, TlsError::RefusedByPeer { .. }),
        "{server_err}"
    );
}

/// `message` as one frame: 4-byte big-endian length, then the body.
fn frame_of(message: &impl prost::Message) -> Vec<u8> {
    let body = message.encode_to_vec();
    let mut frame = u32::try_from(body.len()).unwrap().to_be_bytes().to_vec();
    frame.extend_from_slice(&body);
    frame
}

#[tokio::test]
async fn a_plain_text_client_is_refused_before_any_frame_is_decoded() {
    let creds = credentials("t");
    let server = tls(&creds);
    let (addr, mut outcomes) = serve(server.clone()).await;
    let mut plain = TcpStream::connect(addr).await.unwrap();
    // What a peer without TLS sends first: a framed hello in clear.
    let hello = Hello {
        protocol_version: egret_proto::PROTOCOL_VERSION,
        role: PeerRole::StreamManager as i32,
        peer_id: "stmgr-1".into(),
        client_nonce: Bytes::from(vec![7u8; 32]),
    };
    plain.write_all(&frame_of(&hello)).await.unwrap();
    let err = outcomes.recv().await.unwrap().err().unwrap();
    assert_eq!(err.refusal(), Some(RefusalReason::NotTls), "{err}");
    assert!(err.to_string().contains("plain text"), "{err}");
    assert_eq!(server.refused().get(RefusalReason::NotTls), 1);
    // The server closed without answering the hello: at most a TLS alert
    // (content type 21) came back, never a frame.
    let mut back = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), plain.read_to_end(&mut back))
        .await
        .expect("the server closed the connection")
        .unwrap_or_default();
    assert!(back.is_empty() || back[0] == 21, "{back:?}");
}

#[tokio::test]
async fn an_expired_certificate_is_refused_naming_expiry() {
    let now = std::time::SystemTime::now();
    let day = Duration::from_secs(24 * 3600);
    let ca = Validity {
        not_before: now - 10 * day,
        not_after: now + 10 * day,
    };
    let expired = Validity {
        not_before: now - 10 * day,
        not_after: now - day,
    };
    let mut both = issue("t", ca, &[Validity::from_now(day), expired]).unwrap();
    let (stale, valid) = (both.remove(1), both.remove(0));

    // A client presenting an expired certificate of the right CA.
    let server = tls(&valid);
    let (addr, mut outcomes) = serve(server.clone()).await;
    let _client = dial(&tls(&stale), addr).await;
    let err = outcomes.recv().await.unwrap().err().unwrap();
    assert_eq!(err.refusal(), Some(RefusalReason::Expired), "{err}");
    assert!(err.to_string().contains("expired"), "{err}");
    assert_eq!(server.refused().get(RefusalReason::Expired), 1);

    // A server presenting one.
    let (addr, _outcomes) = serve(tls(&stale)).await;
    let client = tls(&valid);
    let err = dial(&client, addr).await.err().unwrap();
    assert_eq!(err.refusal(), Some(RefusalReason::Expired), "{err}");
    assert_eq!(client.refused().get(RefusalReason::Expired), 1);
}

/// Copies `from` to `to`, keeping a copy of what passed.
async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
) -> Vec<u8> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                seen.extend_from_slice(&buf[..n]);
                if to.write_all(&buf[..n]).await.is_err() {
                    break;
                }
            }
        }
    }
    let _ = to.shutdown().await;
    seen
}

#[tokio::test]
async fn a_replayed_handshake_is_refused() {
    let creds = credentials("t");
    let server = tls(&creds);
    let (addr, mut outcomes) = serve(server.clone()).await;

    // A relay between a client and the server records the client's bytes of
    // one successful session (handshake, hello, a frame).
    let relay = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let relay_addr = relay.local_addr().unwrap();
    let recording = tokio::spawn(async move {
        let (inbound, _) = relay.accept().await.unwrap();
        let outbound = TcpStream::connect(addr).await.unwrap();
        let (in_r, in_w) = inbound.into_split();
        let (out_r, out_w) = outbound.into_split();
        let back = tokio::spawn(pipe(out_r, in_w));
        let recorded = pipe(in_r, out_w).await;
        let _ = back.await;
        recorded
    });
    let client_side = dial(&tls(&creds), relay_addr).await.unwrap();
    let server_side = outcomes.recv().await.unwrap().unwrap();
    hello_and_a_frame_each_way(server_side, client_side, creds.token()).await;
    let recorded = recording.await.unwrap();
    assert!(recorded.len() > 100, "{} bytes recorded", recorded.len());

    // The same bytes, replayed on a fresh connection to the server.
    let mut replay = TcpStream::connect(addr).await.unwrap();
    replay.write_all(&recorded).await.unwrap();
    let err = outcomes.recv().await.unwrap().err().unwrap();
    assert_eq!(err.refusal(), Some(RefusalReason::Tampered), "{err}");
    assert!(err.to_string().contains("replayed"), "{err}");
    assert_eq!(server.refused().get(RefusalReason::Tampered), 1);
    assert_eq!(server.refused().total(), 1);
}

#[tokio::test]
async fn a_silent_peer_times_out() {
    tokio::time::pause();
    let server = tls(&credentials("t"));
    let (addr, mut outcomes) = serve(server.clone()).await;
    let _silent = TcpStream::connect(addr).await.unwrap();
    let err = outcomes.recv().await.unwrap().err().unwrap();
    assert_eq!(err.refusal(), Some(RefusalReason::Timeout), "{err}");
    assert_eq!(server.refused().get(RefusalReason::Timeout), 1);
}

#[test]
fn refused_counters_are_published_by_reason() {
    let counters = RefusedCounters::default();
    counters.count(RefusalReason::NotTls);
    counters.count(RefusalReason::NotTls);
    let registry = egret_metrics::Registry::new();
    counters.publish(&registry);
    let key = egret_metrics::MetricKey::new(REFUSED_METRIC, "not-tls", 0);
    assert_eq!(registry.get(&key), Some(2.0));
    let absent = egret_metrics::MetricKey::new(REFUSED_METRIC, "expired", 0);
    assert_eq!(registry.get(&absent), None);
}
