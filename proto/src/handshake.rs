//! The hello that opens every connection: protocol version, role and a
//! challenge-response by which each side proves that it holds the topology's
//! secret token without sending it. A peer that fails it is dropped before any
//! other frame of it is decoded.
//!
//! Order (contracts.md, "The hello"): client `Hello{version, role, peer_id,
//! client_nonce}`; server `HelloChallenge{server_nonce}` (or a refusal);
//! client `HelloProof{client_proof}`; server `HelloReply{accepted, error,
//! server_proof}`. Each proof is an HMAC-SHA256 keyed by the token over a
//! domain tag (one for each side) and the transcript (version, role, peer id,
//! both nonces), so neither a recorded exchange (the server's nonce is fresh)
//! nor one side's proof (the tags differ) opens another connection. Every hello
//! frame is capped at [`HELLO_MAX_BYTES`](crate::frame::HELLO_MAX_BYTES).

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::codec::Framed;

use crate::PROTOCOL_VERSION;
use crate::frame::{FrameCodec, FrameError, decode_message, encode_message};
use crate::v1::{Hello, HelloChallenge, HelloProof, HelloReply, PeerRole};
/// A secret shared by every process of one topology (or one submission).
#[derive(Clone, PartialEq, Eq)]
pub struct Token(Vec<u8>);

impl Token {
    pub fn new(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }

    /// Parses the hex form kept in the `token` file and in `EGRET_*_TOKEN`.
    pub fn from_hex(text: &str) -> Result<Self, HandshakeError> {
        let text = text.trim();
        if text.is_empty() || !text.len().is_multiple_of(2) {
            return Err(HandshakeError::BadTokenText);
        }
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16))
            .collect::<Result<Vec<u8>, _>>()
            .map(Token)
            .map_err(|_| HandshakeError::BadTokenText)
    }

    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// Length of each side's nonce.
pub const NONCE_BYTES: usize = 32;

/// Domain tag of the client's proof (the first bytes the HMAC reads).
pub const CLIENT_PROOF_TAG: &[u8] = b"egret hello v2: client proof\0";
/// Domain tag of the server's proof.
pub const SERVER_PROOF_TAG: &[u8] = b"egret hello v2: server proof\0";

type HmacSha256 = Hmac<Sha256>;

#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    #[error("token text is not an even-length hex string")]
    BadTokenText,
    #[error("the token is empty")]
    EmptyToken,
    #[error("peer speaks protocol version {got}, this build speaks {expected}")]
    WrongVersion { got: u32, expected: u32 },
    #[error("peer's {which} nonce is {got} bytes, expected {NONCE_BYTES}")]
    BadNonce { which: &'static str, got: usize },
    #[error("peer's proof of the topology's token is wrong (a wrong token)")]
    WrongToken,
    #[error("peer accepted the hello without proving that it holds the topology's token")]
    ServerUnproven,
    #[error("peer has role {got:?}, expected one of {expected:?}")]
    WrongRole { got: i32, expected: Vec<PeerRole> },
    #[error("peer refused the hello: {0}")]
    Refused(String),
    #[error("{0}")]
    NotAllowed(String),
    #[error("connection closed before the hello")]
    Closed,
    #[error(transparent)]
    Frame(#[from] FrameError),
}

/// What both proofs cover, in this order after the tag: the version and the
/// role as 4-byte big-endian numbers, the peer id's UTF-8 length (4-byte
/// big-endian) and bytes, the client's nonce, the server's nonce.
pub struct Transcript<'a> {
    pub protocol_version: u32,
    pub role: i32,
    pub peer_id: &'a str,
    pub client_nonce: &'a [u8],
    pub server_nonce: &'a [u8],
}

impl<'a> Transcript<'a> {
    fn of(hello: &'a Hello, server_nonce: &'a [u8]) -> Self {
        Self {
            protocol_version: hello.protocol_version,
            role: hello.role,
            peer_id: &hello.peer_id,
            client_nonce: &hello.client_nonce,
            server_nonce,
        }
    }

    fn mac(&self, token: &Token, tag: &[u8]) -> Result<HmacSha256, HandshakeError> {
        if token.0.is_empty() {
            return Err(HandshakeError::EmptyToken);
        }
        // HMAC takes a key of any length; the error case cannot happen.
        let mut mac =
            HmacSha256::new_from_slice(&token.0).map_err(|_| HandshakeError::EmptyToken)?;
        let peer_id_len = u32::try_from(self.peer_id.len()).unwrap_or(u32::MAX);
        mac.update(tag);
        mac.update(&self.protocol_version.to_be_bytes());
        mac.update(&self.role.to_be_bytes());
        mac.update(&peer_id_len.to_be_bytes());
        mac.update(self.peer_id.as_bytes());
        mac.update(self.client_nonce);
        mac.update(self.server_nonce);
        Ok(mac)
    }

    /// `HMAC-SHA256(token, tag | transcript)`.
    pub fn proof(&self, token: &Token, tag: &[u8]) -> Result<[u8; 32], HandshakeError> {
        Ok(self.mac(token, tag)?.finalize().into_bytes().into())
    }

    /// Whether `presented` is the proof, compared in constant time.
    pub fn verify(
        &self,
        token: &Token,
        tag: &[u8],
        presented: &[u8],
    ) -> Result<bool, HandshakeError> {
        Ok(self.mac(token, tag)?.verify_slice(presented).is_ok())
    }
}

/// Checks what a server can check of a hello before its challenge: the
/// protocol version and the length of the client's nonce.
pub fn check_hello(hello: &Hello) -> Result<(), HandshakeError> {
    if hello.protocol_version != PROTOCOL_VERSION {
        return Err(HandshakeError::WrongVersion {
            got: hello.protocol_version,
            expected: PROTOCOL_VERSION,
        });
    }
    if hello.client_nonce.len() != NONCE_BYTES {
        return Err(HandshakeError::BadNonce {
            which: "client",
            got: hello.client_nonce.len(),
        });
    }
    Ok(())
}

/// Checks the role of a hello whose proof was right.
pub fn check_role(hello: &Hello, roles: &[PeerRole]) -> Result<(), HandshakeError> {
    if roles.iter().any(|r| *r as i32 == hello.role) {
        Ok(())
    } else {
        Err(HandshakeError::WrongRole {
            got: hello.role,
            expected: roles.to_vec(),
        })
    }
}

/// Server side: reads the `Hello`, answers with a challenge, reads the client's
/// proof, checks it, answers, and on success returns the hello with the framed
/// stream switched to `max_frame_bytes`. Every hello frame is capped at 4 KiB.
/// On failure the refusal is sent (best effort) and the error returned; the
/// caller drops the connection.
pub async fn accept<S>(
    io: S,
    token: &Token,
    roles: &[PeerRole],
    max_frame_bytes: usize,
) -> Result<(Hello, Framed<S, FrameCodec>), HandshakeError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    accept_checked(io, token, roles, max_frame_bytes, |_| Ok(())).await
}

/// The reply refusing a hello for `error`.
fn refusal(error: &HandshakeError) -> HelloReply {
    HelloReply {
        accepted: false,
        error: error.to_string(),
        server_proof: Bytes::new(),
    }
}

/// [`accept`] with one more check after version, proof and role: `allow`
/// decides whether who the peer says it is (`peer_id`) may connect here. Its
/// refusal is sent in the `HelloReply`, so the peer learns why before the
/// connection closes.
pub async fn accept_checked<S, F>(
    io: S,
    token: &Token,
    roles: &[PeerRole],
    max_frame_bytes: usize,
    allow: F,
) -> Result<(Hello, Framed<S, FrameCodec>), HandshakeError>
where
    S: AsyncRead + AsyncWrite + Unpin,
    F: FnOnce(&Hello) -> Result<(), String>,
{
    let mut framed = Framed::new(io, FrameCodec::for_hello());
    let body = framed.next().await.ok_or(HandshakeError::Closed)??;
    let hello = match decode_message::<Hello>(body)
        .map_err(HandshakeError::from)
        .and_then(|hello| check_hello(&hello).map(|()| hello))
    {
        Ok(hello) => hello,
        Err(err) => {
            // Refused before the challenge: a plain `HelloReply`, which a
            // client of any version reads (`HelloChallenge` shares its fields).
            let _ = framed.send(encode_message(&refusal(&err))).await;
            return Err(err);
        }
    };

    let server_nonce: [u8; NONCE_BYTES] = rand::random();
    let challenge = HelloChallenge {
        error: String::new(),
        server_nonce: Bytes::copy_from_slice(&server_nonce),
    };
    framed.send(encode_message(&challenge)).await?;
    let body = framed.next().await.ok_or(HandshakeError::Closed)??;
    let transcript = Transcript::of(&hello, &server_nonce);
    let verdict = decode_message::<HelloProof>(body)
        .map_err(HandshakeError::from)
        .and_then(|proof| {
            if !transcript.verify(token, CLIENT_PROOF_TAG, &proof.client_proof)? {
                return Err(HandshakeError::WrongToken);
            }
            check_role(&hello, roles)?;
            allow(&hello).map_err(HandshakeError::NotAllowed)?;
            transcript.proof(token, SERVER_PROOF_TAG)
        });
    let reply = match &verdict {
        Ok(server_proof) => HelloReply {
            accepted: true,
            error: String::new(),
            server_proof: Bytes::copy_from_slice(server_proof),
        },
        Err(err) => refusal(err),
    };
    let sent = framed.send(encode_message(&reply)).await;
    verdict?;
    sent?;
    framed.codec_mut().set_max_frame_bytes(max_frame_bytes);
    Ok((hello, framed))
}

/// Client side: sends the hello, answers the server's challenge with its proof,
/// and checks the server's proof in the reply (a server that cannot prove the
/// token is refused). On success the framed stream is switched from the hello
/// cap to `max_frame_bytes`.
pub async fn connect<S>(
    io: S,
    token: &Token,
    role: PeerRole,
    peer_id: &str,
    max_frame_bytes: usize,
) -> Result<Framed<S, FrameCodec>, HandshakeError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut framed = Framed::new(io, FrameCodec::for_hello());
    let client_nonce: [u8; NONCE_BYTES] = rand::random();
    let hello = Hello {
        protocol_version: PROTOCOL_VERSION,
        role: role as i32,
        peer_id: peer_id.to_owned(),
        client_nonce: Bytes::copy_from_slice(&client_nonce),
    };
    framed.send(encode_message(&hello)).await?;

    let body = framed.next().await.ok_or(HandshakeError::Closed)??;
    let challenge: HelloChallenge = decode_message(body)?;
    if !challenge.error.is_empty() {
        return Err(HandshakeError::Refused(challenge.error));
    }
    if challenge.server_nonce.len() != NONCE_BYTES {
        return Err(HandshakeError::BadNonce {
            which: "server",
            got: challenge.server_nonce.len(),
        });
    }
    let transcript = Transcript::of(&hello, &challenge.server_nonce);
    let proof = HelloProof {
        client_proof: Bytes::copy_from_slice(&transcript.proof(token, CLIENT_PROOF_TAG)?),
    };
    framed.send(encode_message(&proof)).await?;

    let body = framed.next().await.ok_or(HandshakeError::Closed)??;
    let reply: HelloReply = decode_message(body)?;
    if !reply.accepted {
        return Err(HandshakeError::Refused(reply.error));
    }
    if !transcript.verify(token, SERVER_PROOF_TAG, &reply.server_proof)? {
        return Err(HandshakeError::ServerUnproven);
    }
    framed.codec_mut().set_max_frame_bytes(max_frame_bytes);
    Ok(framed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::HELLO_MAX_BYTES;
    use std::pin::Pin;
    use std::sync::{Arc, Mutex};
    use std::task::{Context, Poll};
    use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, ReadBuf};

    fn token() -> Token {
        Token::from_hex("00ff10ab").unwrap()
    }

    fn server(io: DuplexStream) -> tokio::task::JoinHandle<Result<Hello, HandshakeError>> {
        tokio::spawn(async move {
            accept(io, &token(), &[PeerRole::Instance], 1 << 20)
                .await
                .map(|(hello, _)| hello)
        })
    }

    /// `message` as one frame: 4-byte big-endian length, then the body.
    fn frame_of(message: &impl prost::Message) -> Vec<u8> {
        let body = message.encode_to_vec();
        let mut frame = u32::try_from(body.len()).unwrap().to_be_bytes().to_vec();
        frame.extend_from_slice(&body);
        frame
    }

    /// Reads one whole frame's body.
    async fn read_frame(io: &mut DuplexStream) -> Vec<u8> {
        let mut length = [0u8; 4];
        io.read_exact(&mut length).await.unwrap();
        let mut body = vec![0u8; u32::from_be_bytes(length) as usize];
        io.read_exact(&mut body).await.unwrap();
        body
    }

    fn decode<M: prost::Message + Default>(body: &[u8]) -> M {
        M::decode(body).unwrap()
    }

    /// The frames of `bytes`, which must hold whole frames and nothing else.
    fn split_frames(mut bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut frames = Vec::new();
        while !bytes.is_empty() {
            assert!(bytes.len() >= 4, "a partial length prefix: {bytes:?}");
            let length = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
            assert!(bytes.len() >= 4 + length, "a partial frame: {bytes:?}");
            frames.push(bytes[4..4 + length].to_vec());
            bytes = &bytes[4 + length..];
        }
        frames
    }

    /// Reads until the other side closes; fails when it is still open after 10 s.
    async fn read_until_closed(io: &mut DuplexStream, into: &mut Vec<u8>) {
        tokio::time::timeout(std::time::Duration::from_secs(10), io.read_to_end(into))
            .await
            .expect("the server closed the connection")
            .unwrap();
    }

    fn hello(peer_id: &str) -> Hello {
        Hello {
            protocol_version: PROTOCOL_VERSION,
            role: PeerRole::Instance as i32,
            peer_id: peer_id.into(),
            client_nonce: Bytes::from_static(&[9; NONCE_BYTES]),
        }
    }

    /// An I/O stream that keeps a copy of every byte written to and read from it.
    struct Tap {
        io: DuplexStream,
        written: Arc<Mutex<Vec<u8>>>,
        read: Arc<Mutex<Vec<u8>>>,
    }

    impl Tap {
        fn new(io: DuplexStream) -> Self {
            Self {
                io,
                written: Arc::default(),
                read: Arc::default(),
            }
        }
    }

    impl AsyncRead for Tap {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            let before = buf.filled().len();
            let polled = Pin::new(&mut self.io).poll_read(cx, buf);
            self.read
                .lock()
                .unwrap()
                .extend_from_slice(&buf.filled()[before..]);
            polled
        }
    }

    impl AsyncWrite for Tap {
        fn poll_write(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            let polled = Pin::new(&mut self.io).poll_write(cx, buf);
            if let Poll::Ready(Ok(n)) = polled {
                self.written.lock().unwrap().extend_from_slice(&buf[..n]);
            }
            polled
        }

        fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Pin::new(&mut self.io).poll_flush(cx)
        }

        fn poll_shutdown(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
        ) -> Poll<std::io::Result<()>> {
            Pin::new(&mut self.io).poll_shutdown(cx)
        }
    }

    #[tokio::test]
    async fn accepted_hello_opens_the_connection_both_ways() {
        let (a, b) = tokio::io::duplex(1 << 16);
        let server = tokio::spawn(async move {
            let (hello, mut framed) = accept(a, &token(), &[PeerRole::Instance], 1 << 20).await?;
            framed.send(Bytes::from_static(b"after")).await?;
            Ok::<_, HandshakeError>((hello, framed.codec().max_frame_bytes()))
        });
        let mut client = connect(b, &token(), PeerRole::Instance, "word-0", 1 << 19)
            .await
            .unwrap();
        assert_eq!(client.codec().max_frame_bytes(), 1 << 19);
        assert_eq!(
            client.next().await.unwrap().unwrap(),
            Bytes::from_static(b"after")
        );
        let (hello, server_cap) = server.await.unwrap().unwrap();
        assert_eq!(hello.peer_id, "word-0");
        assert_eq!(server_cap, 1 << 20);
    }

    #[tokio::test]
    async fn the_token_never_crosses_the_link() {
        let secret = Token::new(vec![0x5a; 32]);
        let server_token = secret.clone();
        let (a, b) = tokio::io::duplex(1 << 16);
        let server = tokio::spawn(async move {
            accept(a, &server_token, &[PeerRole::Instance], 1 << 20)
                .await
                .map(|_| ())
        });
        let tap = Tap::new(b);
        let (written, read) = (tap.written.clone(), tap.read.clone());
        connect(tap, &secret, PeerRole::Instance, "word-0", 1 << 20)
            .await
            .unwrap();
        server.await.unwrap().unwrap();
        for (direction, bytes) in [("sent", written), ("received", read)] {
            let bytes = bytes.lock().unwrap().clone();
            // Four frames in all: the client's hello and proof, the server's
            // challenge and reply.
            assert_eq!(split_frames(&bytes).len(), 2, "{direction}");
            assert!(
                !bytes.windows(8).any(|w| w == &secret.as_bytes()[..8]),
                "{direction} bytes hold the token: {bytes:?}"
            );
        }
    }

    #[tokio::test]
    async fn wrong_token_is_refused_on_both_sides() {
        let (a, b) = tokio::io::duplex(1 << 16);
        let server = server(a);
        let bad = Token::from_hex("00ff10ac").unwrap();
        let client = connect(b, &bad, PeerRole::Instance, "x", 1 << 20).await;
        assert!(
            matches!(&client, Err(HandshakeError::Refused(msg)) if msg.contains("token")),
            "{client:?}"
        );
        let server = server.await.unwrap();
        assert!(
            matches!(server, Err(HandshakeError::WrongToken)),
            "{server:?}"
        );
    }

    #[tokio::test]
    async fn wrong_role_is_refused_after_the_proof() {
        let (a, b) = tokio::io::duplex(1 << 16);
        let server = server(a);
        let client = connect(b, &token(), PeerRole::Client, "x", 1 << 20).await;
        assert!(
            matches!(&client, Err(HandshakeError::Refused(msg)) if msg.contains("role")),
            "{client:?}"
        );
        let server = server.await.unwrap();
        assert!(
            matches!(server, Err(HandshakeError::WrongRole { got: 3, .. })),
            "{server:?}"
        );
    }

    #[tokio::test]
    async fn not_allowed_is_refused_with_the_reason() {
        let (a, b) = tokio::io::duplex(1 << 16);
        let server = tokio::spawn(async move {
            accept_checked(a, &token(), &[PeerRole::Instance], 1 << 20, |hello| {
                Err(format!("{} is not in the plan", hello.peer_id))
            })
            .await
            .map(|_| ())
        });
        let client = connect(b, &token(), PeerRole::Instance, "word-9", 1 << 20).await;
        assert!(
            matches!(&client, Err(HandshakeError::Refused(msg)) if msg == "word-9 is not in the plan"),
            "{client:?}"
        );
        assert!(matches!(
            server.await.unwrap(),
            Err(HandshakeError::NotAllowed(_))
        ));
    }

    #[tokio::test]
    async fn replayed_client_messages_are_refused() {
        // A successful exchange, with every byte the client sent recorded.
        let (a, b) = tokio::io::duplex(1 << 16);
        let first = server(a);
        let tap = Tap::new(b);
        let recorded = tap.written.clone();
        connect(tap, &token(), PeerRole::Instance, "word-0", 1 << 20)
            .await
            .unwrap();
        first.await.unwrap().unwrap();
        let recorded = recorded.lock().unwrap().clone();
        assert_eq!(split_frames(&recorded).len(), 2, "the hello and the proof");

        // The same bytes against a new connection: the server's nonce is new,
        // so the recorded proof is wrong.
        let (a, mut b) = tokio::io::duplex(1 << 16);
        let second = server(a);
        b.write_all(&recorded).await.unwrap();
        let result = second.await.unwrap();
        assert!(
            matches!(result, Err(HandshakeError::WrongToken)),
            "{result:?}"
        );
        let mut received = Vec::new();
        read_until_closed(&mut b, &mut received).await;
        let frames = split_frames(&received);
        assert_eq!(frames.len(), 2, "challenge and refusal: {frames:?}");
        let reply: HelloReply = decode(&frames[1]);
        assert_eq!(reply, refusal(&HandshakeError::WrongToken));
    }

    /// A server that does not hold the token but accepts the hello anyway,
    /// answering with `server_proof`.
    async fn impostor(mut io: DuplexStream, server_proof: Bytes) {
        let _hello: Hello = decode(&read_frame(&mut io).await);
        let challenge = HelloChallenge {
            error: String::new(),
            server_nonce: Bytes::from_static(&[1; NONCE_BYTES]),
        };
        io.write_all(&frame_of(&challenge)).await.unwrap();
        let _proof: HelloProof = decode(&read_frame(&mut io).await);
        let reply = HelloReply {
            accepted: true,
            error: String::new(),
            server_proof,
        };
        io.write_all(&frame_of(&reply)).await.unwrap();
    }

    #[tokio::test]
    async fn a_server_that_cannot_prove_the_token_is_refused_by_the_client() {
        for server_proof in [Bytes::new(), Bytes::from_static(&[0xab; 32])] {
            let (a, b) = tokio::io::duplex(1 << 16);
            let fake = tokio::spawn(impostor(a, server_proof));
            let client = connect(b, &token(), PeerRole::Instance, "word-0", 1 << 20).await;
            assert!(
                matches!(client, Err(HandshakeError::ServerUnproven)),
                "{client:?}"
            );
            fake.await.unwrap();
        }
    }

    #[tokio::test]
    async fn a_client_proof_echoed_as_the_server_proof_is_refused() {
        // The tags differ, so the client's own proof does not prove the server.
        let (mut a, b) = tokio::io::duplex(1 << 16);
        let fake = tokio::spawn(async move {
            let _hello: Hello = decode(&read_frame(&mut a).await);
            let challenge = HelloChallenge {
                error: String::new(),
                server_nonce: Bytes::from_static(&[1; NONCE_BYTES]),
            };
            a.write_all(&frame_of(&challenge)).await.unwrap();
            let proof: HelloProof = decode(&read_frame(&mut a).await);
            let reply = HelloReply {
                accepted: true,
                error: String::new(),
                server_proof: proof.client_proof,
            };
            a.write_all(&frame_of(&reply)).await.unwrap();
        });
        let client = connect(b, &token(), PeerRole::Instance, "word-0", 1 << 20).await;
        assert!(
            matches!(client, Err(HandshakeError::ServerUnproven)),
            "{client:?}"
        );
        fake.await.unwrap();
    }

    #[tokio::test]
    async fn wrong_version_is_refused_before_the_challenge_in_a_plain_reply() {
        let (a, mut b) = tokio::io::duplex(1 << 16);
        let server = server(a);
        let old = Hello {
            protocol_version: 1,
            ..hello("old")
        };
        b.write_all(&frame_of(&old)).await.unwrap();
        let result = server.await.unwrap();
        assert!(
            matches!(result, Err(HandshakeError::WrongVersion { got: 1, .. })),
            "{result:?}"
        );
        let mut received = Vec::new();
        read_until_closed(&mut b, &mut received).await;
        let frames = split_frames(&received);
        assert_eq!(frames.len(), 1, "{frames:?}");
        let reply: HelloReply = decode(&frames[0]);
        assert!(!reply.accepted);
        assert!(reply.error.contains("protocol version 1"), "{reply:?}");
        // The same frame read as a challenge is a refusal, as `connect` reads it.
        let challenge: HelloChallenge = decode(&frames[0]);
        assert_eq!(challenge.error, reply.error);
        assert!(challenge.server_nonce.is_empty());
    }

    #[tokio::test]
    async fn a_client_reports_a_refusal_in_place_of_the_challenge() {
        let (a, b) = tokio::io::duplex(1 << 16);
        let fake = tokio::spawn(async move {
            let mut a = a;
            let _hello: Hello = decode(&read_frame(&mut a).await);
            let reply = HelloReply {
                accepted: false,
                error: "peer speaks protocol version 2, this build speaks 3".into(),
                server_proof: Bytes::new(),
            };
            a.write_all(&frame_of(&reply)).await.unwrap();
        });
        let client = connect(b, &token(), PeerRole::Instance, "word-0", 1 << 20).await;
        assert!(
            matches!(&client, Err(HandshakeError::Refused(msg)) if msg.contains("version 2")),
            "{client:?}"
        );
        fake.await.unwrap();
    }

    #[tokio::test]
    async fn a_short_client_nonce_is_refused() {
        let (a, mut b) = tokio::io::duplex(1 << 16);
        let server = server(a);
        let short = Hello {
            client_nonce: Bytes::from_static(&[1; 8]),
            ..hello("word-0")
        };
        b.write_all(&frame_of(&short)).await.unwrap();
        let result = server.await.unwrap();
        assert!(
            matches!(
                result,
                Err(HandshakeError::BadNonce {
                    which: "client",
                    got: 8
                })
            ),
            "{result:?}"
        );
    }

    #[tokio::test]
    async fn a_refused_proof_is_answered_and_nothing_after_it_is_decoded() {
        let (a, mut b) = tokio::io::duplex(1 << 16);
        let server = server(a);
        b.write_all(&frame_of(&hello("intruder"))).await.unwrap();
        let challenge: HelloChallenge = decode(&read_frame(&mut b).await);
        assert_eq!(challenge.server_nonce.len(), NONCE_BYTES);
        // A wrong proof, then in the same write a frame that would fail any
        // decoding: its length is over both the hello cap and the
        // connection's cap, and its body is not a message. Had `accept`
        // decoded past the proof, it would return a frame error (or the
        // connection), not the proof's own refusal.
        let mut sent = frame_of(&HelloProof {
            client_proof: Bytes::from_static(&[0; 32]),
        });
        sent.extend_from_slice(&u32::MAX.to_be_bytes());
        sent.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
        b.write_all(&sent).await.unwrap();
        let result = server.await.unwrap();
        assert!(
            matches!(result, Err(HandshakeError::WrongToken)),
            "{result:?}"
        );
        // The server answered with exactly one refusal and closed the
        // connection: `read_to_end` sees EOF (bounded, so a connection left
        // open fails the test instead of hanging it).
        let mut received = Vec::new();
        read_until_closed(&mut b, &mut received).await;
        let frames = split_frames(&received);
        assert_eq!(frames.len(), 1, "{frames:?}");
        let reply: HelloReply = decode(&frames[0]);
        assert_eq!(reply, refusal(&HandshakeError::WrongToken));
    }

    #[tokio::test]
    async fn garbage_first_frame_is_dropped_without_decoding_more() {
        let (a, mut b) = tokio::io::duplex(1 << 16);
        let server = server(a);
        // A length far over the hello cap: refused before any body is read,
        // so the three bytes after it are never taken as a body.
        b.write_all(&[0x7f, 0, 0, 0, 1, 2, 3]).await.unwrap();
        let result = server.await.unwrap();
        assert!(
            matches!(
                result,
                Err(HandshakeError::Frame(FrameError::TooLarge {
                    length: 0x7f00_0000,
                    limit: HELLO_MAX_BYTES,
                }))
            ),
            "{result:?}"
        );
        // No hello was decoded, so there is nothing to answer: the server
        // closed the connection without writing a byte.
        let mut rest = Vec::new();
        read_until_closed(&mut b, &mut rest).await;
        assert_eq!(rest, Vec::<u8>::new());
    }

    #[tokio::test]
    async fn a_proof_frame_over_4_kib_is_refused_by_the_server() {
        let (a, mut b) = tokio::io::duplex(1 << 16);
        let server = server(a);
        b.write_all(&frame_of(&hello("word-0"))).await.unwrap();
        let _challenge = read_frame(&mut b).await;
        let oversized = frame_of(&HelloProof {
            client_proof: Bytes::from(vec![0; HELLO_MAX_BYTES]),
        });
        b.write_all(&oversized).await.unwrap();
        let result = server.await.unwrap();
        assert!(
            matches!(
                result,
                Err(HandshakeError::Frame(FrameError::TooLarge { limit: HELLO_MAX_BYTES, length }))
                    if length == oversized.len() - 4
            ),
            "{result:?}"
        );
    }

    #[tokio::test]
    async fn a_challenge_or_reply_over_4_kib_is_refused_by_the_client() {
        for oversized_reply in [false, true] {
            let (mut a, b) = tokio::io::duplex(1 << 16);
            let fake = tokio::spawn(async move {
                let _hello: Hello = decode(&read_frame(&mut a).await);
                let big = "x".repeat(HELLO_MAX_BYTES);
                if oversized_reply {
                    let challenge = HelloChallenge {
                        error: String::new(),
                        server_nonce: Bytes::from_static(&[1; NONCE_BYTES]),
                    };
                    a.write_all(&frame_of(&challenge)).await.unwrap();
                    let _proof = read_frame(&mut a).await;
                    let reply = HelloReply {
                        accepted: false,
                        error: big,
                        server_proof: Bytes::new(),
                    };
                    a.write_all(&frame_of(&reply)).await.unwrap();
                } else {
                    let challenge = HelloChallenge {
                        error: big,
                        server_nonce: Bytes::new(),
                    };
                    a.write_all(&frame_of(&challenge)).await.unwrap();
                }
            });
            // The connection's own cap is far larger: the hello frames keep 4 KiB.
            let client = connect(b, &token(), PeerRole::Instance, "word-0", 1 << 20).await;
            assert!(
                matches!(
                    client,
                    Err(HandshakeError::Frame(FrameError::TooLarge {
                        limit: HELLO_MAX_BYTES,
                        ..
                    }))
                ),
                "reply: {oversized_reply}: {client:?}"
            );
            fake.await.unwrap();
        }
    }

    /// The same vector is asserted by the Java shim's `HandshakeTest`, so the two
    /// implementations cannot drift apart.
    #[test]
    fn proofs_match_the_fixed_test_vector() {
        let token = Token::new((0x00..0x20).collect());
        let client_nonce: Vec<u8> = (0x20..0x40).collect();
        let server_nonce: Vec<u8> = (0x40..0x60).collect();
        let transcript = Transcript {
            protocol_version: 2,
            role: PeerRole::Instance as i32,
            peer_id: "word-0",
            client_nonce: &client_nonce,
            server_nonce: &server_nonce,
        };
        let hex = |bytes: [u8; 32]| Token::new(bytes.to_vec()).to_hex();
        assert_eq!(
            hex(transcript.proof(&token, CLIENT_PROOF_TAG).unwrap()),
            "59de5354c57200441e4e6b32ea4d3687d27a61513f8f34641dfc625370e196f8"
        );
        assert_eq!(
            hex(transcript.proof(&token, SERVER_PROOF_TAG).unwrap()),
            "420470aefdcb5a380c7b2a4dd1ef30116fd89b8da587ae681f2f5abda2378c1f"
        );
        assert_eq!(PROTOCOL_VERSION, 2, "the vector is for version 2");
    }

    #[test]
    fn an_empty_token_keys_no_proof() {
        let hello = hello("x");
        let transcript = Transcript::of(&hello, &[0; NONCE_BYTES]);
        assert!(matches!(
            transcript.proof(&Token::new(Vec::new()), CLIENT_PROOF_TAG),
            Err(HandshakeError::EmptyToken)
        ));
    }

    #[test]
    fn token_hex_round_trip_and_bad_text() {
        assert_eq!(Token::from_hex(&token().to_hex()).unwrap(), token());
        assert!(Token::from_hex("abc").is_err());
        assert!(Token::from_hex("zz").is_err());
        assert!(format!("{:?}", token()).contains("redacted"));
    }
}
