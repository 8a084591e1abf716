//! The audit entries the store keeps: each carries one edit's [`Change`] and links to the entry
//! before it.

use serde::{Deserialize, Serialize};

use crate::book::Change;
use crate::model::PlayerIdx;
use crate::rules::Rulebook;

/// What an audit entry records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AuditKind {
    Edit,
    /// Undoes the entry with this sequence number.
    Undo(u64),
    /// Applies again the entry with this sequence number.
    Redo(u64),
    /// A backup restored over the database: the entry says what it replaced. Nothing before
    /// it can be undone.
    Restore,
    /// Who may edit the database changed (the database's editors, kept beside the record):
    /// no record changes, and undo passes it over.
    Officers,
}

/// One audited change: when, by whom, what, the records before and after, and the link that
/// chains it to the entry before it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct AuditEntry<R: Rulebook> {
    pub seq: u64,
    /// Seconds since the Unix epoch.
    pub time: i64,
    pub user: String,
    pub action: String,
    pub kind: AuditKind,
    pub change: Change<R>,
    /// The [`AuditEntry::hash`] of the entry before it (`None`: the first entry, or one written
    /// before entries were chained). Editing, removing or inserting an entry breaks the chain
    /// at the entry after it. Absent from backups written before the chain.
    #[serde(default)]
    pub prev: Option<Link>,
}

/// A SHA-256 hash, written as 64 hex digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Link(pub [u8; 32]);

impl std::fmt::Display for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl Serialize for Link {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl std::str::FromStr for Link {
    type Err = String;

    /// 64 hex digits.
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("'{text}' is not a SHA-256 hash");
        if text.len() != 64 || !text.is_ascii() {
            return Err(bad());
        }
        let mut bytes = [0u8; 32];
        for (k, b) in bytes.iter_mut().enumerate() {
            *b = u8::from_str_radix(&text[2 * k..2 * k + 2], 16).map_err(|_| bad())?;
        }
        Ok(Link(bytes))
    }
}

impl<'de> Deserialize<'de> for Link {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// One player's rating moved by an audited edit: who, on which list, from and to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moved {
    pub player: PlayerIdx,
    pub list: usize,
    pub before: Option<crate::model::Rating>,
    pub after: Option<crate::model::Rating>,
}

/// An audit entry without its records: what the log shows and undo/redo need to choose.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditSummary {
    pub seq: u64,
    pub time: i64,
    pub user: String,
    pub action: String,
    pub kind: AuditKind,
}

impl<R: Rulebook> AuditEntry<R> {
    /// What the next entry's `prev` must be: SHA-256 of the entry as its JSON (the form backups
    /// keep), its own link included, so the hash covers the whole chain before it. A later layout
    /// change must keep this form for the entries written before it.
    pub fn hash(&self) -> Link {
        use sha2::Digest;
        // The JSON written straight into the hash, in blocks: an import of a whole federation
        // is some hundreds of megabytes of JSON, never held.
        struct Hashing(sha2::Sha256);
        impl std::io::Write for Hashing {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.update(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut out = std::io::BufWriter::with_capacity(1 << 16, Hashing(sha2::Sha256::new()));
        let written = serde_json::to_writer(&mut out, self).is_ok();
        match out.into_inner() {
            Ok(hashing) if written => Link(hashing.0.finalize().into()),
            // As when the JSON was made whole first: an entry that cannot be written as JSON
            // (none can fail: no map has keys JSON cannot hold) hashes as no bytes.
            _ => Link(sha2::Sha256::digest([]).into()),
        }
    }

    pub fn summary(&self) -> AuditSummary {
        AuditSummary {
            seq: self.seq,
            time: self.time,
            user: self.user.clone(),
            action: self.action.clone(),
            kind: self.kind,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::ssl::Ssl;

    /// The hash is SHA-256 of the entry's JSON exactly as `serde_json` writes it whole: written
    /// into the hash in blocks, the bytes are the same, and so is the hash of an entry stored
    /// years ago (pinned here: a change of form would break every chain kept).
    #[test]
    fn an_entry_hashes_as_its_whole_json() {
        use sha2::Digest;
        let mut entry = AuditEntry::<Ssl> {
            seq: 7,
            time: 1_700_000_000,
            user: "officer".into(),
            action: "result 2024-open round 3 board 1: 1-0".into(),
            kind: AuditKind::Undo(6),
            change: Change::default(),
            prev: None,
        };
        let whole = |e: &AuditEntry<Ssl>| {
            let json = serde_json::to_vec(e).expect("JSON");
            Link(sha2::Sha256::digest(&json).into())
        };
        assert_eq!(entry.hash(), whole(&entry));
        assert_eq!(
            entry.hash().to_string(),
            "57c1abe5ef5d066a8ea3d5c50a7f6daafa802f2c9653d8625593d119244b3ab1",
        );
        // Longer than the blocks the JSON is written in.
        entry.action = "é".repeat(100_000);
        entry.prev = Some(Link([7; 32]));
        assert_eq!(entry.hash(), whole(&entry));
    }
}
