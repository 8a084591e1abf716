//! Record encoding: serde + bincode 2 behind a version tag. Every use of bincode is here, so it
//! can be swapped. Records avoid serde's `flatten`, `skip*`, `tag` and `untagged`, which bincode
//! cannot carry; they evolve as explicit versions.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A stored record with its schema version.
#[derive(Serialize, Deserialize)]
pub enum Versioned<T> {
    V1(T),
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CodecError(String);

fn config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// Encodes a record as its current version.
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, CodecError> {
    bincode::serde::encode_to_vec(Versioned::V1(value), config())
        .map_err(|e| CodecError(e.to_string()))
}

/// Decodes a record of any known version.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    let (record, used): (Versioned<T>, usize) = bincode::serde::decode_from_slice(bytes, config())
        .map_err(|e| CodecError(e.to_string()))?;
    if used != bytes.len() {
        return Err(CodecError(format!("{} trailing bytes", bytes.len() - used)));
    }
    match record {
        Versioned::V1(v) => Ok(v),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    #[test]
    fn dates_are_day_numbers_in_records() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct D(#[serde(with = "crate::model::day")] NaiveDate);
        let d = D(NaiveDate::from_ymd_opt(2025, 3, 1).expect("date"));
        let bytes = encode(&d).expect("encode");
        assert_eq!(bytes.len(), 4, "version tag + 3-byte day: {bytes:?}");
        assert_eq!(decode::<D>(&bytes).expect("decode"), d);
        assert_eq!(serde_json::to_string(&d).expect("json"), "\"2025-03-01\"");
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(decode::<String>(&[7, 255, 255, 255]).is_err());
        assert!(decode::<u64>(&[]).is_err());
    }

    #[test]
    fn keys_sort_numerically() {
        assert!(key(2) < key(10));
        assert_eq!(id_of(&key(42)), Some(42));
    }
}
