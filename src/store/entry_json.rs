//! An audit entry's backup line written straight from its stored bytes, one record of its
//! change at a time: the entry of an import of a whole federation is never held decoded beside
//! the book the backup is written from. The line is exactly what serde_json writes of the
//! decoded [`AuditEntry`] (a test holds the two together).

use std::fmt;
use std::io::Write;
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer, Error, SeqAccess, Visitor};

use super::records::{AuditEntry, AuditKind, Link};
use super::{codec, legacy};
use crate::book::{Delta, EventRecord, GameKey, PlayerRecord};
use crate::model::{Game, PlayerIdx};
use crate::rules::Rulebook;

/// Writes the JSON of the stored entry `bytes`; its sequence number.
pub fn write<R: Rulebook, W: Write>(bytes: &[u8], out: &mut W) -> std::io::Result<u64> {
    let invalid = |e: codec::CodecError| std::io::Error::new(std::io::ErrorKind::InvalidData, e);
    let bytes = &*codec::unpack(bytes).map_err(invalid)?;
    match codec::decode_current(EntrySeed::<R, W>(out, PhantomData), bytes) {
        Ok(Some(seq)) => Ok(seq),
        // An entry of an earlier layout is read whole and upgraded.
        Ok(None) => {
            let entry: AuditEntry<R> = legacy::audit_entry(bytes).map_err(invalid)?;
            serde_json::to_writer(&mut *out, &entry)?;
            Ok(entry.seq)
        }
        Err(e) => Err(invalid(e)),
    }
}

/// Writes `"name":` and the value as serde_json does.
fn field<E: Error>(
    out: &mut impl Write,
    first: bool,
    name: &str,
    value: &impl Serialize,
) -> Result<(), E> {
    let comma = if first { "" } else { "," };
    write!(out, "{comma}\"{name}\":").map_err(E::custom)?;
    serde_json::to_writer(&mut *out, value).map_err(E::custom)
}

fn text<E: Error>(out: &mut impl Write, text: &str) -> Result<(), E> {
    out.write_all(text.as_bytes()).map_err(E::custom)
}

fn next<'de, T: serde::Deserialize<'de>, A: SeqAccess<'de>>(
    seq: &mut A,
    what: &str,
) -> Result<T, A::Error> {
    seq.next_element()?
        .ok_or_else(|| A::Error::custom(format!("audit entry cut short before its {what}")))
}

/// The entry: its fields in order, the change through [`ChangeSeed`].
struct EntrySeed<'o, R, W>(&'o mut W, PhantomData<R>);

impl<'de, R: Rulebook, W: Write> DeserializeSeed<'de> for EntrySeed<'_, R, W> {
    type Value = u64;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        const FIELDS: &[&str] = &["seq", "time", "user", "action", "kind", "change", "prev"];
        d.deserialize_struct("AuditEntry", FIELDS, self)
    }
}

impl<'de, R: Rulebook, W: Write> Visitor<'de> for EntrySeed<'_, R, W> {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an audit entry")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
        let out = self.0;
        let number: u64 = next(&mut seq, "number")?;
        text(out, "{")?;
        field(out, true, "seq", &number)?;
        field(out, false, "time", &next::<i64, _>(&mut seq, "time")?)?;
        field(out, false, "user", &next::<String, _>(&mut seq, "user")?)?;
        field(
            out,
            false,
            "action",
            &next::<String, _>(&mut seq, "action")?,
        )?;
        field(out, false, "kind", &next::<AuditKind, _>(&mut seq, "kind")?)?;
        text(out, ",\"change\":")?;
        seq.next_element_seed(ChangeSeed::<R, W>(&mut *out, PhantomData))?
            .ok_or_else(|| A::Error::custom("audit entry cut short before its change"))?;
        field(
            out,
            false,
            "prev",
            &next::<Option<Link>, _>(&mut seq, "link")?,
        )?;
        text(out, "}")?;
        Ok(number)
    }
}

/// The change: its three lists through [`ListSeed`].
struct ChangeSeed<'o, R, W>(&'o mut W, PhantomData<R>);

impl<'de, R: Rulebook, W: Write> DeserializeSeed<'de> for ChangeSeed<'_, R, W> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_struct("Change", &["players", "events", "games"], self)
    }
}

impl<'de, R: Rulebook, W: Write> Visitor<'de> for ChangeSeed<'_, R, W> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a change")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let out = self.0;
        let short = || A::Error::custom("audit entry cut short in its change");
        text(out, "{\"players\":")?;
        seq.next_element_seed(ListSeed::<Delta<PlayerIdx, PlayerRecord<R>>, W>(
            &mut *out,
            PhantomData,
        ))?
        .ok_or_else(short)?;
        text(out, ",\"events\":")?;
        seq.next_element_seed(ListSeed::<Delta<usize, EventRecord>, W>(
            &mut *out,
            PhantomData,
        ))?
        .ok_or_else(short)?;
        text(out, ",\"games\":")?;
        seq.next_element_seed(ListSeed::<Delta<GameKey, Game>, W>(&mut *out, PhantomData))?
            .ok_or_else(short)?;
        text(out, "}")
    }
}

/// A list, each element decoded and written before the next is read.
struct ListSeed<'o, T, W>(&'o mut W, PhantomData<T>);

impl<'de, T: DeserializeOwned + Serialize, W: Write> DeserializeSeed<'de> for ListSeed<'_, T, W> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: DeserializeOwned + Serialize, W: Write> Visitor<'de> for ListSeed<'_, T, W> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of records")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let out = self.0;
        text(out, "[")?;
        let mut first = true;
        while let Some(item) = seq.next_element::<T>()? {
            if !first {
                text(out, ",")?;
            }
            first = false;
            serde_json::to_writer(&mut *out, &item).map_err(A::Error::custom)?;
        }
        text(out, "]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::{Change, PlayerStatus, placeholder_event};
    use crate::model::{Event, GameResult, PlayerInfo};
    use crate::rules::ssl::Ssl;

    fn streamed(entry: &AuditEntry<Ssl>) -> String {
        let bytes = codec::encode(entry).expect("encode");
        let mut out = Vec::new();
        let seq = write::<Ssl, _>(&bytes, &mut out).expect("written");
        assert_eq!(seq, entry.seq);
        String::from_utf8(out).expect("utf-8")
    }

    /// The line written record by record is the line serde_json writes of the whole entry:
    /// with records before and after, of every kind, and with and without a link.
    #[test]
    fn an_entry_streamed_is_written_as_the_whole_entry_is() {
        let record = |id: &str, club: Option<&str>| PlayerRecord::<Ssl> {
            info: PlayerInfo {
                id: id.into(),
                name: format!("Äijälä, \"{id}\" \u{202e}"),
                club: club.map(Into::into),
                fide_id: Some(50_301_001),
                ..PlayerInfo::default()
            },
            seeds: vec![None, None],
            held: Vec::new(),
            confirmed: Vec::new(),
            status: PlayerStatus::Active,
        };
        let day = chrono::NaiveDate::from_ymd_opt(2025, 3, 1).expect("date");
        let event = Event {
            id: "e1".into(),
            start: day,
            end: day,
            participants: vec![0, 1],
            ..placeholder_event()
        };
        let game = |result| Game {
            round: 1,
            board: 1,
            white: 0,
            black: Some(1),
            result: Some(result),
            date: Some(day),
            received: None,
        };
        let mut entry = AuditEntry::<Ssl> {
            seq: 7,
            time: 1_764_000_000,
            user: "ayşe".into(),
            action: "import of a file; 2 new players".into(),
            kind: AuditKind::Edit,
            change: Change {
                players: vec![
                    Delta {
                        key: 0,
                        before: None,
                        after: Some(Box::new(record("FIN1", None))),
                    },
                    Delta {
                        key: 1,
                        before: Some(Box::new(record("FIN2", Some("HSK")))),
                        after: Some(Box::new(record("FIN2", Some("TuTS")))),
                    },
                ],
                events: vec![Delta {
                    key: 0,
                    before: None,
                    after: Some(EventRecord { event, live: true }),
                }],
                games: vec![Delta {
                    key: (0, 1, 1),
                    before: Some(game(GameResult::DRAW)),
                    after: Some(game(GameResult::WHITE_WINS)),
                }],
            },
            prev: None,
        };
        let whole = |e: &AuditEntry<Ssl>| serde_json::to_string(e).expect("json");
        assert_eq!(streamed(&entry), whole(&entry));
        entry.prev = Some(Link([0xab; 32]));
        entry.kind = AuditKind::Undo(3);
        assert_eq!(streamed(&entry), whole(&entry));
        // An import's entry, stored compressed: written from its stored bytes as it reads.
        let player = entry.change.players[0].clone();
        entry.change.players = (0..400)
            .map(|key| Delta {
                key,
                ..player.clone()
            })
            .collect();
        let stored = codec::pack(codec::encode(&entry).expect("encode")).expect("packed");
        assert!(codec::is_packed(&stored), "{} bytes", stored.len());
        let mut out = Vec::new();
        assert_eq!(write::<Ssl, _>(&stored, &mut out).expect("written"), 7);
        assert_eq!(String::from_utf8(out).expect("utf-8"), whole(&entry));
        entry.change = Change::default();
        assert_eq!(streamed(&entry), whole(&entry));
    }

    /// Bytes that are not an entry are refused, never half written as one.
    #[test]
    fn a_damaged_entry_is_refused() {
        let mut out = Vec::new();
        let err = write::<Ssl, _>(&[3, 200, 1], &mut out).expect_err("refused");
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        // A compressed entry cut short.
        let entry = codec::encode(&vec![7u64; 20_000]).expect("encode");
        let stored = codec::pack(entry).expect("packed");
        assert!(codec::is_packed(&stored));
        let mut out = Vec::new();
        let err = write::<Ssl, _>(&stored[..stored.len() - 9], &mut out).expect_err("refused");
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
        assert!(out.is_empty(), "{out:?}");
    }
}
