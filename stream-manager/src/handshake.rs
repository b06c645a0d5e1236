//! The server side of the hello, with one more check than
//! `egret_proto::handshake::accept`: who the peer says it is (`peer_id`) must
//! be allowed here (one of this container's instances, or a lower-indexed
//! stream manager). The verdict is sent in the `HelloReply`, so a refused peer
//! learns why before the connection closes.

use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::codec::Framed;

use egret_proto::frame::{decode_message, encode_message};
use egret_proto::handshake::{HandshakeError, check_hello};
use egret_proto::v1::{Hello, HelloReply, PeerRole};
use egret_proto::{FrameCodec, Token};

#[derive(Debug, thiserror::Error)]
pub(crate) enum AcceptError {
    #[error(transparent)]
    Handshake(#[from] HandshakeError),
    #[error("{0}")]
    NotAllowed(String),
}

/// Reads and checks the hello (version, token, role, then `allow(&hello)`),
/// answers it, and on success switches the codec to `max_frame_bytes`.
pub(crate) async fn accept_checked<S, F>(
    io: S,
    token: &Token,
    roles: &[PeerRole],
    max_frame_bytes: usize,
    allow: F,
) -> Result<(Hello, Framed<S, FrameCodec>), AcceptError>
where
    S: AsyncRead + AsyncWrite + Unpin,
    F: FnOnce(&Hello) -> Result<(), String>,
{
    let mut framed = Framed::new(io, FrameCodec::for_hello());
    let body = framed
        .next()
        .await
        .ok_or(HandshakeError::Closed)?
        .map_err(HandshakeError::from)?;
    let verdict = decode_message::<Hello>(body)
        .map_err(|e| AcceptError::Handshake(e.into()))
        .and_then(|hello| {
            check_hello(&hello, token, roles)?;
            allow(&hello).map_err(AcceptError::NotAllowed)?;
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
    sent.map_err(HandshakeError::from)?;
    framed.codec_mut().set_max_frame_bytes(max_frame_bytes);
    Ok((hello, framed))
}
