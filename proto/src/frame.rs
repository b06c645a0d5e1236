//! Length-prefixed frames: a 4-byte big-endian unsigned length, then that many
//! bytes holding one protobuf message.
//!
//! Invariants:
//! - the length is checked against the codec's cap *before* any buffer for the
//!   body is reserved, so a hostile peer cannot make us allocate;
//! - a frame is never split or merged: one `decode` yields one whole message body;
//! - a connection's first frame is the `Hello`, read with [`HELLO_MAX_BYTES`];
//!   later frames use the connection's own cap (`egret.frame.max.bytes`).

use bytes::{Buf, BufMut, Bytes, BytesMut};
use prost::Message;
use tokio_util::codec::{Decoder, Encoder};

/// Size of the length prefix.
pub const LENGTH_BYTES: usize = 4;
/// Cap on the first frame of a connection (the hello).
pub const HELLO_MAX_BYTES: usize = 4 * 1024;
/// Default cap on every later frame (`egret.frame.max.bytes`).
pub const DEFAULT_MAX_FRAME_BYTES: usize = 64 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("frame of {length} bytes exceeds the limit of {limit} bytes")]
    TooLarge { length: usize, limit: usize },
    #[error("connection closed in the middle of a frame ({buffered} bytes buffered)")]
    Truncated { buffered: usize },
    #[error("frame does not hold a valid {message}: {source}")]
    Malformed {
        message: &'static str,
        #[source]
        source: prost::DecodeError,
    },
    #[error("frame does not hold a valid TupleBatch: {reason}")]
    MalformedBatch { reason: &'static str },
    #[error("i/o error on the connection: {0}")]
    Io(#[from] std::io::Error),
}

/// A tokio-util codec of raw frame bodies with a size cap.
#[derive(Debug, Clone)]
pub struct FrameCodec {
    max_frame_bytes: usize,
}

impl FrameCodec {
    pub fn new(max_frame_bytes: usize) -> Self {
        Self { max_frame_bytes }
    }

    /// The codec for the first frame of a connection.
    pub fn for_hello() -> Self {
        Self::new(HELLO_MAX_BYTES)
    }

    pub fn max_frame_bytes(&self) -> usize {
        self.max_frame_bytes
    }

    pub fn set_max_frame_bytes(&mut self, max: usize) {
        self.max_frame_bytes = max;
    }
}

impl Default for FrameCodec {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_FRAME_BYTES)
    }
}

impl Decoder for FrameCodec {
    type Item = Bytes;
    type Error = FrameError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, FrameError> {
        if src.len() < LENGTH_BYTES {
            return Ok(None);
        }
        let length = u32::from_be_bytes([src[0], src[1], src[2], src[3]]) as usize;
        if length > self.max_frame_bytes {
            return Err(FrameError::TooLarge {
                length,
                limit: self.max_frame_bytes,
            });
        }
        if src.len() < LENGTH_BYTES + length {
            // Reserve only what this (capped) frame needs.
            src.reserve(LENGTH_BYTES + length - src.len());
            return Ok(None);
        }
        src.advance(LENGTH_BYTES);
        Ok(Some(src.split_to(length).freeze()))
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, FrameError> {
        match self.decode(src)? {
            Some(frame) => Ok(Some(frame)),
            None if src.is_empty() => Ok(None),
            None => Err(FrameError::Truncated {
                buffered: src.len(),
            }),
        }
    }
}

impl Encoder<Bytes> for FrameCodec {
    type Error = FrameError;

    fn encode(&mut self, body: Bytes, dst: &mut BytesMut) -> Result<(), FrameError> {
        put_frame(&body, self.max_frame_bytes, dst)
    }
}

/// Appends one frame holding `body` to `dst`.
pub fn put_frame(
    body: &[u8],
    max_frame_bytes: usize,
    dst: &mut BytesMut,
) -> Result<(), FrameError> {
    if body.len() > max_frame_bytes {
        return Err(FrameError::TooLarge {
            length: body.len(),
            limit: max_frame_bytes,
        });
    }
    dst.reserve(LENGTH_BYTES + body.len());
    // The cap is below u32::MAX, so the cast cannot truncate.
    dst.put_u32(body.len() as u32);
    dst.put_slice(body);
    Ok(())
}

/// Encodes a message as one frame body.
pub fn encode_message<M: Message>(message: &M) -> Bytes {
    Bytes::from(message.encode_to_vec())
}

/// Decodes a frame body as `M`, naming the expected message in the error.
pub fn decode_message<M: Message + Default>(body: Bytes) -> Result<M, FrameError> {
    M::decode(body).map_err(|source| FrameError::Malformed {
        message: std::any::type_name::<M>()
            .rsplit("::")
            .next()
            .unwrap_or("message"),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v1::{Hello, PeerRole};

    fn framed(body: &[u8]) -> BytesMut {
        let mut buf = BytesMut::new();
        put_frame(body, DEFAULT_MAX_FRAME_BYTES, &mut buf).unwrap();
        buf
    }

    #[test]
    fn round_trips_a_message() {
        let hello = Hello {
            protocol_version: 2,
            role: PeerRole::Instance as i32,
            peer_id: "word-0".into(),
            client_nonce: Bytes::from_static(&[7; 32]),
        };
        let mut buf = framed(&encode_message(&hello));
        let body = FrameCodec::default().decode(&mut buf).unwrap().unwrap();
        assert_eq!(decode_message::<Hello>(body).unwrap(), hello);
        assert!(buf.is_empty());
    }

    #[test]
    fn waits_for_a_whole_frame_then_yields_exactly_it() {
        let mut whole = framed(b"abcdef");
        whole.extend_from_slice(&framed(b"xy"));
        let mut codec = FrameCodec::default();
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        for byte in whole.iter() {
            buf.put_u8(*byte);
            while let Some(frame) = codec.decode(&mut buf).unwrap() {
                out.push(frame);
            }
        }
        assert_eq!(
            out,
            vec![Bytes::from_static(b"abcdef"), Bytes::from_static(b"xy")]
        );
    }

    #[test]
    fn refuses_an_oversize_length_before_allocating() {
        let mut buf = BytesMut::new();
        buf.put_u32(u32::MAX);
        let before = buf.capacity();
        let err = FrameCodec::new(1024).decode(&mut buf).unwrap_err();
        assert!(
            matches!(err, FrameError::TooLarge { length, limit: 1024 } if length == u32::MAX as usize)
        );
        assert_eq!(
            buf.capacity(),
            before,
            "no buffer was reserved for the body"
        );
    }

    #[test]
    fn hello_codec_caps_at_4_kib() {
        let mut buf = framed(&vec![0u8; HELLO_MAX_BYTES + 1]);
        assert!(matches!(
            FrameCodec::for_hello().decode(&mut buf),
            Err(FrameError::TooLarge { .. })
        ));
    }

    #[test]
    fn truncated_frame_at_eof_is_an_error() {
        let mut buf = framed(b"abcdef");
        buf.truncate(7);
        let mut codec = FrameCodec::default();
        assert!(codec.decode(&mut buf).unwrap().is_none());
        assert!(matches!(
            codec.decode_eof(&mut buf),
            Err(FrameError::Truncated { buffered: 7 })
        ));
    }

    #[test]
    fn garbage_body_is_a_malformed_error_naming_the_message() {
        let err = decode_message::<Hello>(Bytes::from_static(&[0xff, 0xff, 0xff])).unwrap_err();
        assert!(err.to_string().contains("Hello"), "{err}");
    }

    #[test]
    fn encoding_over_the_cap_fails() {
        let mut buf = BytesMut::new();
        assert!(put_frame(&[0u8; 10], 9, &mut buf).is_err());
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_never_panic_the_decoder(data in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let mut buf = BytesMut::from(&data[..]);
            let mut codec = FrameCodec::new(32);
            while let Ok(Some(_)) = codec.decode(&mut buf) {}
        }
    }
}
