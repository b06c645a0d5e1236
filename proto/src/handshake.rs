//! The hello that opens every connection: protocol version, role and the
//! topology's secret token. A peer that fails it is dropped before any other
//! frame of it is decoded.

use bytes::Bytes;
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::codec::Framed;

use crate::PROTOCOL_VERSION;
use crate::frame::{FrameCodec, FrameError, decode_message, encode_message};
use crate::v1::{Hello, HelloReply, PeerRole};

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

    /// Compares in time independent of where the first difference is.
    pub fn matches(&self, presented: &[u8]) -> bool {
        if presented.len() != self.0.len() {
            return false;
        }
        self.0
            .iter()
            .zip(presented)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    #[error("token text is not an even-length hex string")]
    BadTokenText,
    #[error("peer speaks protocol version {got}, this build speaks {expected}")]
    WrongVersion { got: u32, expected: u32 },
    #[error("peer presented a wrong token")]
    WrongToken,
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

/// Checks a received hello against what this side expects.
pub fn check_hello(hello: &Hello, token: &Token, roles: &[PeerRole]) -> Result<(), HandshakeError> {
    if hello.protocol_version != PROTOCOL_VERSION {
        return Err(HandshakeError::WrongVersion {
            got: hello.protocol_version,
            expected: PROTOCOL_VERSION,
        });
    }
    if !token.matches(&hello.token) {
        return Err(HandshakeError::WrongToken);
    }
    if !roles.iter().any(|r| *r as i32 == hello.role) {
        return Err(HandshakeError::WrongRole {
            got: hello.role,
            expected: roles.to_vec(),
        });
    }
    Ok(())
}

/// Server side: reads the first frame (capped at 4 KiB) as a `Hello`, checks it,
/// answers, and on success returns the hello with the framed stream switched to
/// `max_frame_bytes`. On failure the refusal is sent (best effort) and the error
/// returned; the caller drops the connection.
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

/// [`accept`] with one more check after version, token and role: `allow` decides
/// whether who the peer says it is (`peer_id`) may connect here. Its refusal is
/// sent in the `HelloReply`, so the peer learns why before the connection closes.
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
    let verdict = decode_message::<Hello>(body)
        .map_err(HandshakeError::from)
        .and_then(|hello| {
            check_hello(&hello, token, roles)?;
            allow(&hello).map_err(HandshakeError::NotAllowed)?;
            Ok(hello)
        });
    let reply = HelloReply {
        accepted: verdict.is_ok(),
        error: verdict
            .as_ref()
            .err()
            .map(ToString::to_string)
            .unwrap_or_default(),
    };
    let sent = framed.send(encode_message(&reply)).await;
    let hello = verdict?;
    sent?;
    framed.codec_mut().set_max_frame_bytes(max_frame_bytes);
    Ok((hello, framed))
}

/// Client side: sends the hello, waits for the reply.
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
    let mut framed = Framed::new(io, FrameCodec::new(max_frame_bytes));
    let hello = Hello {
        protocol_version: PROTOCOL_VERSION,
        token: Bytes::copy_from_slice(token.as_bytes()),
        role: role as i32,
        peer_id: peer_id.to_owned(),
    };
    framed.send(encode_message(&hello)).await?;
    let body = framed.next().await.ok_or(HandshakeError::Closed)??;
    let reply: HelloReply = decode_message(body)?;
    if reply.accepted {
        Ok(framed)
    } else {
        Err(HandshakeError::Refused(reply.error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn token() -> Token {
        Token::from_hex("00ff10ab").unwrap()
    }

    #[tokio::test]
    async fn accepted_hello_opens_the_connection() {
        let (a, b) = tokio::io::duplex(1 << 16);
        let server =
            tokio::spawn(async move { accept(a, &token(), &[PeerRole::Instance], 1 << 20).await });
        let client = connect(b, &token(), PeerRole::Instance, "word-0", 1 << 20).await;
        assert!(client.is_ok());
        let (hello, framed) = server.await.unwrap().unwrap();
        assert_eq!(hello.peer_id, "word-0");
        assert_eq!(framed.codec().max_frame_bytes(), 1 << 20);
    }

    #[tokio::test]
    async fn wrong_token_is_refused_on_both_sides() {
        let (a, b) = tokio::io::duplex(1 << 16);
        let server =
            tokio::spawn(async move { accept(a, &token(), &[PeerRole::Instance], 1 << 20).await });
        let bad = Token::from_hex("00ff10ac").unwrap();
        let client = connect(b, &bad, PeerRole::Instance, "x", 1 << 20).await;
        assert!(matches!(client, Err(HandshakeError::Refused(msg)) if msg.contains("token")));
        assert!(matches!(
            server.await.unwrap(),
            Err(HandshakeError::WrongToken)
        ));
    }

    #[tokio::test]
    async fn wrong_role_and_version_are_refused() {
        let mut hello = Hello {
            protocol_version: PROTOCOL_VERSION,
            token: Bytes::copy_from_slice(token().as_bytes()),
            role: PeerRole::Client as i32,
            peer_id: String::new(),
        };
        assert!(matches!(
            check_hello(&hello, &token(), &[PeerRole::Instance]),
            Err(HandshakeError::WrongRole { .. })
        ));
        hello.role = PeerRole::Instance as i32;
        hello.protocol_version = 99;
        assert!(matches!(
            check_hello(&hello, &token(), &[PeerRole::Instance]),
            Err(HandshakeError::WrongVersion { got: 99, .. })
        ));
    }

    /// `message` as one frame: 4-byte big-endian length, then the body.
    fn frame_of(message: &impl prost::Message) -> Vec<u8> {
        let body = message.encode_to_vec();
        let mut frame = u32::try_from(body.len()).unwrap().to_be_bytes().to_vec();
        frame.extend_from_slice(&body);
        frame
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
    async fn read_until_closed(io: &mut tokio::io::DuplexStream, into: &mut Vec<u8>) {
        tokio::time::timeout(std::time::Duration::from_secs(10), io.read_to_end(into))
            .await
            .expect("the server closed the connection")
            .unwrap();
    }

    #[tokio::test]
    async fn a_refused_hello_is_answered_and_nothing_after_it_is_decoded() {
        let (a, mut b) = tokio::io::duplex(1 << 16);
        let server =
            tokio::spawn(async move { accept(a, &token(), &[PeerRole::Instance], 1 << 20).await });
        let bad = Hello {
            protocol_version: PROTOCOL_VERSION,
            token: Bytes::from_static(&[0x00, 0xff, 0x10, 0xac]),
            role: PeerRole::Instance as i32,
            peer_id: "intruder".into(),
        };
        // The refused hello, then in the same write a frame that would fail
        // any decoding: its length is over both the hello cap and the
        // connection's cap, and its body is not a message. Had `accept`
        // decoded past the hello, it would return a frame error (or the
        // connection), not the hello's own refusal.
        let mut sent = frame_of(&bad);
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
        let reply: HelloReply = decode_message(Bytes::from(frames[0].clone())).unwrap();
        assert_eq!(
            reply,
            HelloReply {
                accepted: false,
                error: HandshakeError::WrongToken.to_string(),
            }
        );
    }

    #[tokio::test]
    async fn garbage_first_frame_is_dropped_without_decoding_more() {
        let (a, mut b) = tokio::io::duplex(1 << 16);
        let server =
            tokio::spawn(async move { accept(a, &token(), &[PeerRole::Instance], 1 << 20).await });
        // A length far over the hello cap: refused before any body is read,
        // so the three bytes after it are never taken as a body.
        b.write_all(&[0x7f, 0, 0, 0, 1, 2, 3]).await.unwrap();
        let result = server.await.unwrap();
        assert!(
            matches!(
                result,
                Err(HandshakeError::Frame(FrameError::TooLarge {
                    length: 0x7f00_0000,
                    limit: crate::frame::HELLO_MAX_BYTES,
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

    #[test]
    fn token_hex_round_trip_and_bad_text() {
        assert_eq!(Token::from_hex(&token().to_hex()).unwrap(), token());
        assert!(Token::from_hex("abc").is_err());
        assert!(Token::from_hex("zz").is_err());
        assert!(format!("{:?}", token()).contains("redacted"));
    }
}
