//! Tuple batches as the bytes they arrived in, for the stream manager's router.
//!
//! A router only needs each tuple's `dest_task`; the rest of a `TupleData`
//! (its stream name, values, roots, edge id) goes out exactly as it came in.
//! [`RawBatch::decode`] reads a `TupleBatch` body, keeping every tuple as a
//! [`Bytes`] slice of the received frame (no copy, no allocation per field) and
//! decoding only its acks, which the ledger applies. [`RawBatch::encode`]
//! writes a batch as a whole frame body of one wrapping message (for example
//! `StreamManagerToInstance.tuples`), copying each tuple's bytes once into an
//! exactly sized buffer.
//!
//! Invariants:
//! - the wire is the protobuf encoding of `TupleBatch`, so a peer or instance
//!   sees the same bytes as if the batch had been decoded and re-encoded, except
//!   that fields unknown to this build are dropped at the batch level and kept
//!   inside tuples;
//! - a tuple is accepted only if its fields are well-formed at the wire level
//!   (lengths within the tuple, known fields with their wire type, `stream`
//!   valid UTF-8), so a malformed tuple is refused where it arrives, naming the
//!   problem, instead of failing the receiver; its roots are checked by the
//!   receiver that decodes them.

use bytes::{BufMut, Bytes, BytesMut};
use prost::Message;
use tokio_util::codec::Encoder;

use crate::frame::{FrameCodec, FrameError, LENGTH_BYTES};
use crate::v1::{AckEntry, TupleBatch};

/// Protobuf wire types (the low 3 bits of a field key).
const VARINT: u64 = 0;
const FIXED64: u64 = 1;
const LEN: u64 = 2;
const FIXED32: u64 = 5;

/// `TupleBatch.tuples` and `TupleBatch.acks`.
const BATCH_TUPLES: u32 = 1;
const BATCH_ACKS: u32 = 2;
/// `TupleData.dest_task` and `TupleData.stream`.
const TUPLE_DEST_TASK: u32 = 1;
const TUPLE_STREAM: u32 = 3;

/// The field holding a `TupleBatch` in each message that carries one.
pub const INSTANCE_TO_STREAM_MANAGER_TUPLES: u32 = 1;
pub const STREAM_MANAGER_TO_INSTANCE_TUPLES: u32 = 2;
pub const PEER_MESSAGE_TUPLES: u32 = 1;

/// One tuple: its destination task and its encoded `TupleData` body.
#[derive(Debug, Clone, PartialEq)]
pub struct RawTuple {
    pub dest_task: i32,
    /// The `TupleData` message's bytes, without its key and length.
    pub entry: Bytes,
}

/// A `TupleBatch` whose tuples stay encoded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawBatch {
    pub tuples: Vec<RawTuple>,
    pub acks: Vec<AckEntry>,
}

/// A bad batch: what is wrong with it.
fn malformed(reason: &'static str) -> FrameError {
    FrameError::MalformedBatch { reason }
}

/// Reads protobuf fields from a byte slice.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    fn varint(&mut self) -> Result<u64, FrameError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&byte) = self.bytes.get(self.at) else {
                return Err(malformed("a varint runs past the end"));
            };
            self.at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Ok(value);
            }
        }
        Err(malformed("a varint is longer than 10 bytes"))
    }

    /// A field's key: its number and wire type.
    fn key(&mut self) -> Result<(u32, u64), FrameError> {
        let key = self.varint()?;
        let field =
            u32::try_from(key >> 3).map_err(|_| malformed("a field number is too large"))?;
        if field == 0 {
            return Err(malformed("a field has number 0"));
        }
        Ok((field, key & 7))
    }

    /// The range of the next `n` bytes, which must be there.
    fn take(&mut self, n: u64) -> Result<std::ops::Range<usize>, FrameError> {
        let n = usize::try_from(n).map_err(|_| malformed("a length is too large"))?;
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| malformed("a field runs past the end of its message"))?;
        let range = self.at..end;
        self.at = end;
        Ok(range)
    }

    /// The range of a length-delimited field's payload.
    fn delimited(&mut self) -> Result<std::ops::Range<usize>, FrameError> {
        let len = self.varint()?;
        self.take(len)
    }

    /// Skips a field's value of this wire type.
    fn skip(&mut self, wire_type: u64) -> Result<(), FrameError> {
        match wire_type {
            VARINT => self.varint().map(drop),
            FIXED64 => self.take(8).map(drop),
            LEN => self.delimited().map(drop),
            FIXED32 => self.take(4).map(drop),
            _ => Err(malformed("a field has a group or unknown wire type")),
        }
    }
}

/// The payload of `body` when `body` is exactly one length-delimited field
/// numbered `field` (a wrapping message whose oneof holds a batch); `None`
/// for any other message, which the caller decodes as usual.
pub fn sole_field(body: &Bytes, field: u32) -> Option<Bytes> {
    let mut cursor = Cursor::new(body);
    let (number, wire_type) = cursor.key().ok()?;
    if number != field || wire_type != LEN {
        return None;
    }
    let range = cursor.delimited().ok()?;
    cursor.done().then(|| body.slice(range))
}

/// A frame body of a message that may carry a batch in field `field`.
#[derive(Debug)]
pub enum Decoded<M> {
    /// The body was that field alone: the batch, its tuples still encoded.
    Tuples(RawBatch),
    /// Any other body, decoded as `M` (a batch encoded otherwise among them).
    Message(M),
}

/// Decodes a frame body of `M`, reading a batch in field `field` as a
/// [`RawBatch`] when it is the whole body (as senders write it).
pub fn decode_message<M: Message + Default>(
    body: Bytes,
    field: u32,
) -> Result<Decoded<M>, FrameError> {
    match sole_field(&body, field) {
        Some(payload) => RawBatch::decode(payload).map(Decoded::Tuples),
        None => crate::frame::decode_message(body).map(Decoded::Message),
    }
}

/// Checks one encoded `TupleData` and returns its `dest_task`.
fn scan_tuple(entry: &[u8]) -> Result<i32, FrameError> {
    let mut cursor = Cursor::new(entry);
    let mut dest_task = 0;
    while !cursor.done() {
        let (field, wire_type) = cursor.key()?;
        match (field, wire_type) {
            // int32 on the wire: a varint of the sign-extended value, read back
            // by truncation (as every protobuf decoder does).
            (TUPLE_DEST_TASK, VARINT) => dest_task = cursor.varint()? as i32,
            (TUPLE_DEST_TASK, _) => return Err(malformed("a tuple's dest_task is not a varint")),
            (TUPLE_STREAM, LEN) => {
                let range = cursor.delimited()?;
                let name = entry
                    .get(range)
                    .ok_or_else(|| malformed("a tuple's stream runs past its end"))?;
                if std::str::from_utf8(name).is_err() {
                    return Err(malformed("a tuple's stream name is not UTF-8"));
                }
            }
            (TUPLE_STREAM, _) => return Err(malformed("a tuple's stream is not length-delimited")),
            (_, wire_type) => cursor.skip(wire_type)?,
        }
    }
    Ok(dest_task)
}

/// The bytes a length-delimited field of `len` bytes takes with a one-byte key.
fn field_len(len: usize) -> usize {
    1 + prost::length_delimiter_len(len) + len
}

impl RawBatch {
    /// Reads an encoded `TupleBatch`: its tuples stay slices of `body`.
    pub fn decode(body: Bytes) -> Result<Self, FrameError> {
        let mut batch = Self::default();
        let mut cursor = Cursor::new(&body);
        while !cursor.done() {
            let (field, wire_type) = cursor.key()?;
            match (field, wire_type) {
                (BATCH_TUPLES, LEN) => {
                    let range = cursor.delimited()?;
                    let entry = body.slice(range);
                    let dest_task = scan_tuple(&entry)?;
                    batch.tuples.push(RawTuple { dest_task, entry });
                }
                (BATCH_ACKS, LEN) => {
                    let range = cursor.delimited()?;
                    let ack = AckEntry::decode(body.slice(range)).map_err(|source| {
                        FrameError::Malformed {
                            message: "AckEntry",
                            source,
                        }
                    })?;
                    batch.acks.push(ack);
                }
                (BATCH_TUPLES | BATCH_ACKS, _) => {
                    return Err(malformed("a batch's entry is not length-delimited"));
                }
                (_, wire_type) => cursor.skip(wire_type)?,
            }
        }
        Ok(batch)
    }

    /// Tuples and acks together.
    pub fn entries(&self) -> usize {
        self.tuples.len() + self.acks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tuples.is_empty() && self.acks.is_empty()
    }

    /// The length of the batch as an encoded `TupleBatch`.
    pub fn encoded_len(&self) -> usize {
        let tuples: usize = self.tuples.iter().map(|t| field_len(t.entry.len())).sum();
        let acks: usize = self.acks.iter().map(|a| field_len(a.encoded_len())).sum();
        tuples + acks
    }

    /// Moves `other`'s entries to the end of this batch.
    pub fn append(&mut self, other: Self) {
        self.tuples.extend(other.tuples);
        self.acks.extend(other.acks);
    }

    /// A frame body: the batch as field `field` (below 16) of a wrapping
    /// message, in one buffer of exactly its size.
    pub fn encode(&self, field: u32) -> Bytes {
        let len = self.encoded_len();
        let mut out = BytesMut::with_capacity(field_len(len));
        self.put_body(field, len, &mut out);
        out.freeze()
    }

    /// Writes the frame body of [`RawBatch::encode`], whose batch is `len` bytes.
    fn put_body(&self, field: u32, len: usize, out: &mut BytesMut) {
        debug_assert!((1..16).contains(&field), "one-byte keys only");
        put_key(out, field);
        put_len(out, len);
        self.put_entries(out);
    }

    /// The batch decoded (tests and diagnostics).
    pub fn to_batch(&self) -> Result<TupleBatch, FrameError> {
        let mut out = BytesMut::with_capacity(self.encoded_len());
        self.put_entries(&mut out);
        TupleBatch::decode(out.freeze()).map_err(|source| FrameError::Malformed {
            message: "TupleBatch",
            source,
        })
    }

    /// Writes the entries as `TupleBatch` fields.
    fn put_entries(&self, out: &mut BytesMut) {
        for tuple in &self.tuples {
            put_key(out, BATCH_TUPLES);
            put_len(out, tuple.entry.len());
            out.put_slice(&tuple.entry);
        }
        for ack in &self.acks {
            put_key(out, BATCH_ACKS);
            // Writes the length, then the body; a BytesMut grows, so this
            // cannot run out of room.
            let _ = ack.encode_length_delimited(out);
        }
    }
}

/// A decoded batch re-encoded, for a batch that did not arrive as bytes.
impl From<TupleBatch> for RawBatch {
    fn from(batch: TupleBatch) -> Self {
        let tuples = batch
            .tuples
            .into_iter()
            .map(|tuple| RawTuple {
                dest_task: tuple.dest_task,
                entry: Bytes::from(tuple.encode_to_vec()),
            })
            .collect();
        Self {
            tuples,
            acks: batch.acks,
        }
    }
}

/// What a stream manager writes to a connection: a frame body already
/// encoded, or a batch written by the codec straight into the connection's
/// write buffer (no frame-sized buffer of its own, no copy of it).
#[derive(Debug, Clone, PartialEq)]
pub enum Outbound {
    Body(Bytes),
    /// `batch` as field `field` (below 16) of the wrapping message.
    Tuples {
        field: u32,
        batch: RawBatch,
    },
}

impl Outbound {
    /// The frame body, for a connection that carries bodies (the JNI bridge's).
    pub fn into_body(self) -> Bytes {
        match self {
            Outbound::Body(body) => body,
            Outbound::Tuples { field, batch } => batch.encode(field),
        }
    }
}

impl From<Bytes> for Outbound {
    fn from(body: Bytes) -> Self {
        Outbound::Body(body)
    }
}

impl Encoder<Outbound> for FrameCodec {
    type Error = FrameError;

    fn encode(&mut self, item: Outbound, dst: &mut BytesMut) -> Result<(), FrameError> {
        match item {
            Outbound::Body(body) => self.encode(body, dst),
            Outbound::Tuples { field, batch } => {
                let len = batch.encoded_len();
                let body = field_len(len);
                if body > self.max_frame_bytes() {
                    return Err(FrameError::TooLarge {
                        length: body,
                        limit: self.max_frame_bytes(),
                    });
                }
                dst.reserve(LENGTH_BYTES + body);
                // The cap is below u32::MAX, so the cast cannot truncate.
                dst.put_u32(body as u32);
                batch.put_body(field, len, dst);
                Ok(())
            }
        }
    }
}

fn put_key(out: &mut BytesMut, field: u32) {
    // Field numbers below 16 with wire type LEN fit in one byte.
    out.put_u8(((field << 3) as u8) | LEN as u8);
}

fn put_len(out: &mut BytesMut, len: usize) {
    // A BytesMut grows, so this cannot run out of room.
    let _ = prost::encode_length_delimiter(len, out);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]
    use super::*;
    use crate::v1::{
        AckKind, RootId, StreamManagerToInstance, TupleData, stream_manager_to_instance,
    };
    use proptest::prelude::*;

    fn tuple(dest_task: i32, stream: &str, values: &[u8], roots: usize) -> TupleData {
        TupleData {
            dest_task,
            src_task: 7,
            stream: stream.to_owned(),
            values: Bytes::copy_from_slice(values),
            roots: (0..roots)
                .map(|i| RootId {
                    spout_task: 3,
                    key: i as u64 * 0x9e37_79b9,
                })
                .collect(),
            edge_id: if roots > 0 { 0xdead_beef } else { 0 },
            // Values passed by reference in the emitting JVM: forwarded as they came.
            local_ref: if values.len() % 2 == 1 { 77 } else { 0 },
        }
    }

    fn ack(task: i32, key: u64) -> AckEntry {
        AckEntry {
            kind: AckKind::Ack as i32,
            root: Some(RootId {
                spout_task: task,
                key,
            }),
            xor: key ^ 5,
        }
    }

    #[test]
    fn a_batch_goes_out_as_the_bytes_a_decode_and_re_encode_would_give() {
        let batch = TupleBatch {
            tuples: vec![
                tuple(1, "default", b"abc", 0),
                tuple(-5, "", b"", 2),
                tuple(300, "words", &[0u8; 200], 1),
            ],
            acks: vec![ack(2, 11), ack(3, u64::MAX)],
        };
        let raw = RawBatch::decode(Bytes::from(batch.encode_to_vec())).unwrap();
        assert_eq!(
            raw.tuples.iter().map(|t| t.dest_task).collect::<Vec<_>>(),
            vec![1, -5, 300]
        );
        assert_eq!(raw.acks, batch.acks);
        assert_eq!(raw.encoded_len(), batch.encoded_len());
        // As StreamManagerToInstance.tuples (field 2), byte for byte.
        let wrapped = StreamManagerToInstance {
            message: Some(stream_manager_to_instance::Message::Tuples(batch.clone())),
        };
        assert_eq!(raw.encode(2).as_ref(), wrapped.encode_to_vec().as_slice());
        assert_eq!(raw.to_batch().unwrap(), batch);
        assert_eq!(RawBatch::from(batch.clone()), raw);
    }

    #[test]
    fn the_field_numbers_are_those_of_the_messages() {
        use crate::v1::{
            InstanceToStreamManager, PeerMessage, instance_to_stream_manager, peer_message,
        };
        let batch = TupleBatch {
            tuples: vec![tuple(2, "s", b"v", 1)],
            acks: vec![ack(1, 2)],
        };
        let raw = RawBatch::from(batch.clone());
        let from_instance = InstanceToStreamManager {
            message: Some(instance_to_stream_manager::Message::Tuples(batch.clone())),
        };
        assert_eq!(
            raw.encode(INSTANCE_TO_STREAM_MANAGER_TUPLES).as_ref(),
            from_instance.encode_to_vec().as_slice()
        );
        let to_instance = StreamManagerToInstance {
            message: Some(stream_manager_to_instance::Message::Tuples(batch.clone())),
        };
        assert_eq!(
            raw.encode(STREAM_MANAGER_TO_INSTANCE_TUPLES).as_ref(),
            to_instance.encode_to_vec().as_slice()
        );
        let peer = PeerMessage {
            message: Some(peer_message::Message::Tuples(batch)),
        };
        assert_eq!(
            raw.encode(PEER_MESSAGE_TUPLES).as_ref(),
            peer.encode_to_vec().as_slice()
        );
    }

    #[test]
    fn the_codec_writes_a_batch_as_the_frame_of_its_encoded_body() {
        let batch = RawBatch::from(TupleBatch {
            tuples: vec![tuple(3, "default", &[7u8; 100], 2), tuple(4, "", b"", 0)],
            acks: vec![ack(3, 8)],
        });
        let mut codec = FrameCodec::new(1 << 20);
        let (mut direct, mut copied) = (BytesMut::new(), BytesMut::new());
        let item = Outbound::Tuples {
            field: STREAM_MANAGER_TO_INSTANCE_TUPLES,
            batch: batch.clone(),
        };
        codec.encode(item.clone(), &mut direct).unwrap();
        codec
            .encode(
                Outbound::Body(batch.encode(STREAM_MANAGER_TO_INSTANCE_TUPLES)),
                &mut copied,
            )
            .unwrap();
        assert_eq!(direct, copied);
        assert_eq!(item.into_body().len() + LENGTH_BYTES, direct.len());
        // Over the cap: refused, nothing written.
        let mut small = FrameCodec::new(64);
        let mut out = BytesMut::new();
        let err = small
            .encode(Outbound::Tuples { field: 2, batch }, &mut out)
            .unwrap_err();
        assert!(
            matches!(err, FrameError::TooLarge { limit: 64, .. }),
            "{err}"
        );
        assert!(out.is_empty());
    }

    #[test]
    fn the_sole_field_is_found_only_when_it_is_the_whole_message() {
        let batch = TupleBatch {
            tuples: vec![tuple(4, "s", b"v", 0)],
            acks: Vec::new(),
        };
        let body = RawBatch::from(batch.clone()).encode(1);
        let payload = sole_field(&body, 1).unwrap();
        assert_eq!(TupleBatch::decode(payload).unwrap(), batch);
        assert!(sole_field(&body, 2).is_none(), "another field");
        let mut longer = body.to_vec();
        longer.extend_from_slice(&[0x10, 0x01]);
        assert!(
            sole_field(&Bytes::from(longer), 1).is_none(),
            "more after it"
        );
        let short = body.slice(..body.len() - 1);
        assert!(sole_field(&short, 1).is_none(), "cut short");
        assert!(sole_field(&Bytes::new(), 1).is_none(), "empty");
    }

    #[test]
    fn malformed_batches_are_refused_naming_the_problem() {
        let good = tuple(4, "default", b"v", 1).encode_to_vec();
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (vec![0x0a, 0x05, 0x08], "runs past the end"),
            (vec![0x0a, 0x02, 0x0d, 0x01], "dest_task is not a varint"),
            (vec![0x0a, 0x03, 0x1a, 0x01, 0xff], "not UTF-8"),
            (vec![0x0a, 0x02, 0x1a, 0x05], "runs past the end"),
            (vec![0x08, 0x01], "not length-delimited"),
            (vec![0x0a, 0x01, 0x13], "group"),
            (
                vec![
                    0x0a, 0x0b, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                ],
                "longer than 10 bytes",
            ),
            (vec![0x12, 0x02, 0x08, 0xff], "AckEntry"),
            (
                [&[0x0a, good.len() as u8][..], &good, &[0x0a]].concat(),
                "runs past the end",
            ),
        ];
        for (bytes, expected) in cases {
            let err = RawBatch::decode(Bytes::from(bytes.clone())).unwrap_err();
            assert!(
                err.to_string().contains(expected),
                "{bytes:02x?}: {err} should say {expected:?}"
            );
        }
    }

    #[test]
    fn unknown_batch_fields_are_skipped_and_unknown_tuple_fields_kept() {
        let mut entry = tuple(9, "x", b"y", 0).encode_to_vec();
        entry.extend_from_slice(&[0x78, 0x2a]); // field 15, varint 42
        let mut body = vec![0x0a, entry.len() as u8];
        body.extend_from_slice(&entry);
        body.extend_from_slice(&[0x1d, 1, 2, 3, 4]); // field 3, fixed32
        let raw = RawBatch::decode(Bytes::from(body)).unwrap();
        assert_eq!(raw.tuples.len(), 1);
        assert_eq!(raw.tuples[0].dest_task, 9);
        assert_eq!(raw.tuples[0].entry.as_ref(), entry.as_slice());
    }

    proptest! {
        #[test]
        fn any_batch_round_trips(
            tuples in proptest::collection::vec(
                (any::<i32>(), "[a-z]{0,12}", proptest::collection::vec(any::<u8>(), 0..300), 0usize..4),
                0..20,
            ),
            acks in proptest::collection::vec((any::<i32>(), any::<u64>()), 0..10),
        ) {
            let batch = TupleBatch {
                tuples: tuples.iter().map(|(d, s, v, r)| tuple(*d, s, v, *r)).collect(),
                acks: acks.iter().map(|&(t, k)| ack(t, k)).collect(),
            };
            let raw = RawBatch::decode(Bytes::from(batch.encode_to_vec())).unwrap();
            prop_assert_eq!(raw.encoded_len(), batch.encoded_len());
            prop_assert_eq!(raw.to_batch().unwrap(), batch);
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = RawBatch::decode(Bytes::from(bytes));
        }
    }
}
