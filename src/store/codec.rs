//! Record encoding: serde + bincode 2 behind a version tag. Every use of bincode is here, so it
//! can be swapped. Records avoid serde's `flatten`, `skip*`, `tag` and `untagged`, which bincode
//! cannot carry; they evolve as explicit versions.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A stored record with its schema version. V2 records carry events with `received` and
/// `playoff_of` (V1: a `playoff` flag); V3 audit entries carry the link to the entry before
/// them (V1, V2: none); V4 player records, and the audit entries that carry them, a club
/// (V1–V3: none); V5 games, and the event records and audit entries that carry them, their
/// own receipt date (V1–V4: none); V6 player records, and the audit entries that carry them,
/// the player's re-entries (V1–V5: none). Records of every other kind have one layout under
/// every tag.
#[derive(Serialize, Deserialize)]
pub enum Versioned<T> {
    V1(T),
    V2(T),
    V3(T),
    V4(T),
    V5(T),
    V6(T),
}

impl<T> Versioned<T> {
    /// The value, whatever its tag.
    pub fn into_inner(self) -> T {
        match self {
            Versioned::V1(v)
            | Versioned::V2(v)
            | Versioned::V3(v)
            | Versioned::V4(v)
            | Versioned::V5(v)
            | Versioned::V6(v) => v,
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CodecError(String);

impl CodecError {
    pub fn new(message: &str) -> Self {
        Self(message.to_string())
    }
}

fn config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// The version records are written as ([`version`] of what [`encode`] writes).
pub const CURRENT: u8 = 6;

/// Encodes a record as its current version.
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, CodecError> {
    bincode::serde::encode_to_vec(Versioned::V6(value), config())
        .map_err(|e| CodecError(e.to_string()))
}

/// Encodes a value that serves as a key: keys keep the V1 tag whatever the records' version,
/// so that a key written before an upgrade still finds its record.
pub fn encode_key<T: Serialize>(value: &T) -> Result<Vec<u8>, CodecError> {
    bincode::serde::encode_to_vec(Versioned::V1(value), config())
        .map_err(|e| CodecError(e.to_string()))
}

/// Encodes a value with no version tag, for a part of a record whose layout the record's own
/// tag names ([`super::row_layout`]).
pub fn encode_plain<T: Serialize>(value: &T) -> Result<Vec<u8>, CodecError> {
    bincode::serde::encode_to_vec(value, config()).map_err(|e| CodecError(e.to_string()))
}

/// Decodes what [`encode_plain`] wrote: the whole of `bytes`.
pub fn decode_plain<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    let (value, used): (T, usize) = bincode::serde::decode_from_slice(bytes, config())
        .map_err(|e| CodecError(e.to_string()))?;
    if used != bytes.len() {
        return Err(CodecError(format!("{} trailing bytes", bytes.len() - used)));
    }
    Ok(value)
}

fn decode_whole<T: DeserializeOwned>(bytes: &[u8]) -> Result<Versioned<T>, CodecError> {
    let (record, used): (Versioned<T>, usize) = bincode::serde::decode_from_slice(bytes, config())
        .map_err(|e| CodecError(e.to_string()))?;
    if used != bytes.len() {
        return Err(CodecError(format!("{} trailing bytes", bytes.len() - used)));
    }
    Ok(record)
}

/// Up to how many bytes a file kept beside the database may claim as it is read: bincode
/// makes room for a text or a list by the length the bytes give before it reads them, so a
/// damaged length could otherwise ask for more than there is.
const BESIDE_LIMIT: usize = 1 << 32;

/// Decodes what [`encode`] wrote of a value whose first field is `T`, reading only that field
/// (the rest is left unread), or the whole of such a value ([`decode_beside`]): for a file
/// kept beside the database, whose stamp is read before what it holds. Neither claims more
/// than [`BESIDE_LIMIT`] however damaged the bytes.
pub fn decode_first<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    decode_bounded::<T>(bytes).map(|(record, _)| record.into_inner())
}

/// The whole of a file kept beside the database ([`decode_first`]).
pub fn decode_beside<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    let (record, used) = decode_bounded::<T>(bytes)?;
    if used != bytes.len() {
        return Err(CodecError(format!("{} trailing bytes", bytes.len() - used)));
    }
    Ok(record.into_inner())
}

/// A record from the start of `bytes` and the bytes it took, claiming at most
/// [`BESIDE_LIMIT`].
fn decode_bounded<T: DeserializeOwned>(bytes: &[u8]) -> Result<(Versioned<T>, usize), CodecError> {
    bincode::serde::decode_from_slice(bytes, config().with_limit::<BESIDE_LIMIT>())
        .map_err(|e| CodecError(e.to_string()))
}

/// Decodes a record in the current layout, whatever its tag (for a kind whose layout every
/// version shares, or a record whose tag says it is current).
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    decode_old::<T, T>(bytes)
}

/// The version a record was written as (1 for V1), from its tag: the first byte (a
/// variable-length integer below 251 is one byte).
pub fn version(bytes: &[u8]) -> Option<u8> {
    bytes.first().map(|tag| tag.saturating_add(1))
}

/// Decodes a record written in the earlier layout `Old`, whatever its tag, and upgrades it: the
/// caller chooses the layout by [`version`].
pub fn decode_old<T, Old>(bytes: &[u8]) -> Result<T, CodecError>
where
    Old: DeserializeOwned + Into<T>,
{
    Ok(decode_whole::<Old>(bytes)?.into_inner().into())
}

/// Bytes carried whole inside a record (written as one run, not byte by byte).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bytes(pub Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

/// [`Bytes`] borrowed, for writing.
pub struct BytesRef<'a>(pub &'a [u8]);

impl Serialize for BytesRef<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
        }
        d.deserialize_byte_buf(Visitor)
    }
}

/// Audit entries, rating moves and units' ratings encoded larger than this are stored
/// compressed (schema 4). An import's entry holds its games a second time: hundreds of
/// megabytes a year at Turkey's full size, a tenth of that through zstd. A keyed result's entry
/// and moves are far smaller and are stored as encoded, adding nothing to a key press (its
/// units' results are written behind the screen).
pub const PACK_ABOVE: usize = 16 * 1024;

/// The first bytes of a zstd frame. An encoded record starts with its version tag, 0 to 5
/// ([`Versioned`]'s variant), and a unit's rows in columns with 0xC0 or 0xC1
/// ([`super::row_layout::TAG`], [`super::row_layout::FLAT_TAG`]), so the first byte (0x28)
/// tells a packed record from a plain
/// one; a compressed backup is known by them too.
pub(super) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// zstd's level for a packed record: its default, about 300 MB a second here.
const PACK_LEVEL: i32 = 3;

/// Whether stored bytes are a packed record ([`pack`]).
pub fn is_packed(stored: &[u8]) -> bool {
    stored.starts_with(&ZSTD_MAGIC)
}

/// The bytes to store for an encoded record: as they are up to [`PACK_ABOVE`], through zstd
/// (with its checksum of the record) above it. [`unpack`] gives them back.
pub fn pack(encoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
    if encoded.len() <= PACK_ABOVE {
        return Ok(encoded);
    }
    let failed = |e: std::io::Error| CodecError(format!("compressing a record: {e}"));
    let mut compressor = zstd::bulk::Compressor::new(PACK_LEVEL).map_err(failed)?;
    compressor
        .set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))
        .map_err(failed)?;
    compressor.compress(&encoded).map_err(failed)
}

/// A record encoded ([`encode`]) and packed ([`pack`]): as it is stored.
pub fn encode_packed<T: Serialize>(value: &T) -> Result<Vec<u8>, CodecError> {
    pack(encode(value)?)
}

/// An encoded record from its stored bytes: borrowed when stored as encoded, decompressed
/// when packed ([`pack`]). A packed record that does not decompress whole, or whose checksum
/// does not hold, is refused.
pub fn unpack(stored: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>, CodecError> {
    if !is_packed(stored) {
        return Ok(std::borrow::Cow::Borrowed(stored));
    }
    let damaged = |detail: String| CodecError(format!("a compressed record is damaged ({detail})"));
    // `pack` writes the record's size in the frame. The buffer is allocated at that size, but
    // at no more than a ratio zstd reaches on records, so a damaged size allocates nothing
    // out of reason (the stream grows past it if it must).
    let size = zstd::zstd_safe::get_frame_content_size(stored)
        .ok()
        .flatten()
        .ok_or_else(|| damaged("its size is not readable".into()))?;
    let most = stored.len().saturating_mul(64);
    let mut record = Vec::with_capacity(usize::try_from(size).map_or(most, |s| s.min(most)));
    // One frame, read to one byte past its size: what is more is damage, not held.
    let frame = zstd::stream::read::Decoder::with_buffer(stored)
        .map_err(|e| damaged(e.to_string()))?
        .single_frame();
    use std::io::Read;
    frame
        .take(size.saturating_add(1))
        .read_to_end(&mut record)
        .map_err(|e| damaged(e.to_string()))?;
    if record.len() as u64 != size {
        return Err(damaged(format!("{} of {size} bytes", record.len())));
    }
    Ok(std::borrow::Cow::Owned(record))
}

/// The most of its buffer a thread keeps between records read by [`with_unpacked`]: a Turkish
/// month's rows at the full size are a few megabytes.
const SCRATCH_KEPT: usize = 16 << 20;

/// Runs `read` over the encoded record `stored` holds, as [`unpack`] gives it (but a packed
/// record followed by another frame is refused here, where `unpack` reads the first). A packed
/// one is decompressed into a buffer and by a context this thread keeps for the next, so that
/// reading the rows of hundreds of units one after another neither sets up zstd nor takes
/// fresh memory from the system for each.
pub fn with_unpacked<T>(stored: &[u8], read: impl FnOnce(&[u8]) -> T) -> Result<T, CodecError> {
    use std::cell::RefCell;
    thread_local! {
        static SCRATCH: RefCell<Option<(zstd::bulk::Decompressor<'static>, Vec<u8>)>> =
            const { RefCell::new(None) };
    }
    if !is_packed(stored) {
        return Ok(read(stored));
    }
    let size = zstd::zstd_safe::get_frame_content_size(stored)
        .ok()
        .flatten()
        .and_then(|s| usize::try_from(s).ok());
    // A size past a ratio zstd reaches on records is read by the stream, which allocates as
    // the record comes rather than what its header claims.
    let Some(size) = size.filter(|&s| s <= stored.len().saturating_mul(64)) else {
        return unpack(stored).map(|record| read(&record));
    };
    let kept = SCRATCH.with(|cell| cell.try_borrow_mut().ok().and_then(|mut s| s.take()));
    let (mut context, mut buffer) = match kept {
        Some(kept) => kept,
        None => (
            zstd::bulk::Decompressor::new()
                .map_err(|e| CodecError(format!("decompressing a record: {e}")))?,
            Vec::new(),
        ),
    };
    buffer.clear();
    buffer.reserve(size);
    let decompressed = context.decompress_to_buffer(stored, &mut buffer);
    let result = match decompressed {
        Ok(n) if n == size => Ok(read(&buffer)),
        Ok(n) => Err(CodecError(format!(
            "a compressed record is damaged ({n} of {size} bytes)"
        ))),
        Err(e) => Err(CodecError(format!("a compressed record is damaged ({e})"))),
    };
    if buffer.capacity() > SCRATCH_KEPT {
        buffer = Vec::new();
    }
    SCRATCH.with(|cell| {
        if let Ok(mut s) = cell.try_borrow_mut()
            && s.is_none()
        {
            *s = Some((context, buffer));
        }
    });
    result
}

/// A big-endian key, so byte order is numeric order.
pub fn key(id: u64) -> [u8; 8] {
    id.to_be_bytes()
}

pub fn id_of(key: &[u8]) -> Option<u64> {
    key.get(..8)
        .and_then(|k| k.try_into().ok())
        .map(u64::from_be_bytes)
}

/// Decodes a record of the current version through `seed` (which may use each part as it is
/// read, never holding the record whole); `None` for a record of an earlier version, which the
/// caller reads by its layout.
pub fn decode_current<'de, S: serde::de::DeserializeSeed<'de>>(
    seed: S,
    bytes: &'de [u8],
) -> Result<Option<S::Value>, CodecError> {
    if version(bytes) != Some(CURRENT) {
        return Ok(None);
    }
    // The tag is one byte (variant `CURRENT - 1` of `Versioned`), the record follows.
    let body = &bytes[1..];
    let (value, used) = bincode::serde::seed_decode_from_slice(seed, body, config())
        .map_err(|e| CodecError(e.to_string()))?;
    if used != body.len() {
        return Err(CodecError(format!(
            "{} bytes left over after the record",
            body.len() - used
        )));
    }
    Ok(Some(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    /// A record read through the thread's kept context and buffer is the one `unpack` gives,
    /// one after another of different sizes, plain or packed, and from inside another's
    /// reading; a damaged one is refused.
    #[test]
    fn records_read_through_the_kept_buffer_are_unpacked_whole() {
        // Bytes that compress as records do (a few to one), and one record that compresses
        // past the ratio the buffer is sized by (read by the stream instead).
        let mut seed = 7u64;
        let mut record = |n: usize| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    (seed >> 61) as u8
                })
                .collect()
        };
        let mut records: Vec<Vec<u8>> = [40_000usize, 100, 300_000, 20_000]
            .iter()
            .map(|&n| record(n))
            .collect();
        records.push(vec![9; 500_000]);
        for record in &records {
            let stored = pack(record.clone()).expect("packed");
            assert_eq!(is_packed(&stored), record.len() > PACK_ABOVE);
            let read = with_unpacked(&stored, |r| r.to_vec()).expect("read");
            assert_eq!(&read, record);
            let inner = with_unpacked(&stored, |outer| {
                with_unpacked(&stored, |inner| inner == outer).expect("inner")
            })
            .expect("outer");
            assert!(inner, "a reading inside another");
        }
        let mut damaged = pack(records[0].clone()).expect("packed");
        let middle = damaged.len() / 2;
        damaged[middle] ^= 0x55;
        assert!(with_unpacked(&damaged, |_| ()).is_err());
        assert!(with_unpacked(&damaged[..damaged.len() - 3], |_| ()).is_err());
        let twice = [
            pack(records[0].clone()).expect("packed"),
            pack(records[0].clone()).expect("packed"),
        ]
        .concat();
        assert!(
            with_unpacked(&twice, |_| ()).is_err(),
            "a second frame after the record"
        );
    }

    #[test]
    fn dates_are_day_numbers_in_records() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct D(#[serde(with = "crate::model::day")] NaiveDate);
        let d = D(NaiveDate::from_ymd_opt(2025, 3, 1).expect("date"));
        let bytes = encode(&d).expect("encode");
        assert_eq!(bytes.len(), 4, "version tag + 3-byte day: {bytes:?}");
        assert_eq!(bytes[0], 5, "written as V6");
        assert_eq!(version(&bytes), Some(CURRENT));
        assert_eq!(decode::<D>(&bytes).expect("decode"), d);
        assert_eq!(serde_json::to_string(&d).expect("json"), "\"2025-03-01\"");
    }

    /// A record is packed only above [`PACK_ABOVE`], and gives back the same bytes; a packed
    /// record is told from any version tag by its first byte, and one damaged is refused.
    #[test]
    fn records_above_the_limit_are_stored_compressed_and_read_back() {
        assert!(
            usize::from(ZSTD_MAGIC[0]) > usize::from(CURRENT),
            "a version tag could start a frame"
        );
        let at = |len: usize| {
            let mut record = vec![CURRENT - 1; len];
            record[len / 2] = 9;
            record
        };
        let plain = at(PACK_ABOVE);
        let stored = pack(plain.clone()).expect("pack");
        assert_eq!(stored, plain, "at the limit a record is stored as encoded");
        assert!(matches!(unpack(&stored), Ok(std::borrow::Cow::Borrowed(b)) if b == plain));
        let large = at(PACK_ABOVE + 1);
        let stored = pack(large.clone()).expect("pack");
        assert!(is_packed(&stored) && stored.len() < large.len() / 10);
        assert_eq!(unpack(&stored).expect("unpack").as_ref(), &large[..]);
        // Damage the compressed body: the checksum refuses what zstd would otherwise give.
        for at in [stored.len() / 2, stored.len() - 1] {
            let mut damaged = stored.clone();
            damaged[at] ^= 0x40;
            let err = unpack(&damaged).expect_err("damaged").to_string();
            assert!(err.contains("a compressed record is damaged"), "{err}");
        }
        let err = unpack(&stored[..4]).expect_err("cut").to_string();
        assert!(err.contains("a compressed record is damaged"), "{err}");
    }

    #[test]
    fn v1_records_are_read_in_their_old_layout_and_upgraded() {
        #[derive(Serialize, Deserialize)]
        struct Old(u8);
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct New(u8, Option<String>);
        impl From<Old> for New {
            fn from(o: Old) -> Self {
                New(o.0, None)
            }
        }
        let old = bincode::serde::encode_to_vec(Versioned::V1(Old(7)), config()).expect("v1");
        assert_eq!(decode_old::<New, Old>(&old).expect("upgrade"), New(7, None));
        let new = encode(&New(7, Some("x".into()))).expect("current");
        assert_eq!(
            decode::<New>(&new).expect("current"),
            New(7, Some("x".into()))
        );
        // A record of unchanged layout reads under either tag.
        let plain = bincode::serde::encode_to_vec(Versioned::V1(5u32), config()).expect("v1");
        assert_eq!(decode::<u32>(&plain).expect("v1"), 5);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(decode::<String>(&[7, 255, 255, 255]).is_err());
        assert!(decode::<u64>(&[]).is_err());
    }

    #[test]
    fn bytes_are_carried_whole() {
        let b = Bytes(vec![0, 255, 7, 251, 252]);
        let bytes = encode(&b).expect("encode");
        assert_eq!(bytes.len(), 1 + 1 + 5, "tag, length, the bytes");
        assert_eq!(decode::<Bytes>(&bytes).expect("decode"), b);
    }

    #[test]
    fn keys_sort_numerically() {
        assert!(key(2) < key(10));
        assert_eq!(id_of(&key(42)), Some(42));
    }
}
