//! The record as a process holding the database has it in memory — players, events, games,
//! statuses, the audit log's summaries and the rated units — in one binary message, for a
//! workstation that keeps a copy of it ([`crate::app::Desk::replica`]). It is read back into
//! memory as it was, without a calculation and without writing the records anywhere. A unit's
//! ratings travel as they are stored (packed bytes, read when first shown), so that neither
//! the holder writing the message nor the copy reading it holds every rating row: at Turkey's
//! full size those rows are gigabytes that a database opens without.

use serde::{Deserialize, Serialize};

use super::codec::{self, CodecError};
use super::fide::FideTitle;
use super::layout::{AsStored, StoredUnit};
use super::records::{AuditSummary, Link};
use crate::book::{Book, PlayerStatus};
use crate::ledger::{UnitId, Units};
use crate::model::{Event, PlayerInfo};
use crate::rules::{Award, Rulebook};

/// The message as written, borrowing the holder's record.
#[derive(Serialize)]
#[serde(bound = "")]
struct Written<'a, R: Rulebook> {
    players: &'a [PlayerInfo],
    seeds: &'a [Vec<Option<R::State>>],
    held: &'a [Vec<Award<R::Award>>],
    confirmed: &'a [Vec<Award<R::Award>>],
    events: &'a [Event],
    live: &'a [bool],
    status: &'a [PlayerStatus],
    audit: &'a [AuditSummary],
    units: Vec<(&'a UnitId, AsStored<'a, R>)>,
    head: Option<Link>,
    titles: Vec<(u64, FideTitle)>,
}

/// The message as read.
#[derive(Deserialize)]
#[serde(bound = "")]
struct Read<R: Rulebook> {
    players: Vec<PlayerInfo>,
    seeds: Vec<Vec<Option<R::State>>>,
    held: Vec<Vec<Award<R::Award>>>,
    confirmed: Vec<Vec<Award<R::Award>>>,
    events: Vec<Event>,
    live: Vec<bool>,
    status: Vec<PlayerStatus>,
    audit: Vec<AuditSummary>,
    units: Vec<(UnitId, StoredUnit<R>)>,
    head: Option<Link>,
    titles: Vec<(u64, FideTitle)>,
}

/// A copy of the record, read.
pub struct Snapshot<R: Rulebook> {
    pub book: Book<R>,
    pub status: Vec<PlayerStatus>,
    pub audit: Vec<AuditSummary>,
    pub units: Units<R>,
    /// The link the next audit entry carries.
    pub head: Option<Link>,
    /// The FIDE titles of the federation's players, by FIDE id.
    pub titles: Vec<(u64, FideTitle)>,
}

/// The record in one message.
pub fn write<R: Rulebook>(
    book: &Book<R>,
    status: &[PlayerStatus],
    audit: &[AuditSummary],
    units: &Units<R>,
    head: Option<Link>,
    titles: Vec<(u64, FideTitle)>,
) -> Result<Vec<u8>, CodecError> {
    codec::encode(&Written::<R> {
        players: &book.players,
        seeds: &book.seeds,
        held: &book.held,
        confirmed: &book.confirmed,
        events: &book.events,
        live: &book.live,
        status,
        audit,
        units: units.iter().map(|(id, u)| (id, AsStored(&**u))).collect(),
        head,
        titles,
    })
}

/// The record of a message [`write`] wrote.
pub fn read<R: Rulebook>(bytes: &[u8]) -> Result<Snapshot<R>, CodecError> {
    let read: Read<R> = codec::decode(bytes)?;
    Ok(Snapshot {
        book: Book {
            players: read.players,
            seeds: read.seeds,
            held: read.held,
            confirmed: read.confirmed,
            events: read.events,
            live: read.live,
        },
        status: read.status,
        audit: read.audit,
        units: read
            .units
            .into_iter()
            .map(|(id, u)| (id, std::sync::Arc::new(u.into_unit())))
            .collect(),
        head: read.head,
        titles: read.titles,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::ledger::{Ratings, UnitResult};
    use crate::rules::ssl::Ssl;
    use crate::rules::{PlayerRating, UnitKey};

    fn id(day: u32) -> UnitId {
        let date = crate::model::fixture::ymd(2024, 3, day);
        (
            UnitKey {
                date,
                second: date,
                tag: "".into(),
            },
            0,
        )
    }

    fn rows(from: usize) -> Vec<PlayerRating> {
        (from..from + 3_000)
            .map(|p| crate::rules::a_row(p, p % 5))
            .collect()
    }

    /// A unit's ratings go to a copy as they are stored: the holder does not read (and keep)
    /// the rows of a unit it opened with to write them, and the copy holds every unit's rows
    /// unread until shown — each as the rows it had.
    #[test]
    fn a_copy_takes_the_ratings_as_stored_and_neither_end_reads_them() {
        let unread = UnitResult::<Ssl> {
            ratings: Ratings::new(rows(0)),
            states: crate::rules::States::new(),
            awards: Vec::new(),
        };
        let unread = super::super::layout::decode_unit::<Ssl>(
            &super::super::layout::encode_unit(&unread).expect("stored"),
        )
        .expect("opened");
        assert!(unread.ratings.bytes().is_some(), "as a database opens it");
        let in_memory = UnitResult::<Ssl> {
            ratings: Ratings::new(rows(5_000)),
            states: crate::rules::States::from(vec![(7, crate::rules::ssl::SslState::default())]),
            awards: Vec::new(),
        };
        let units: Units<Ssl> = BTreeMap::from([
            (id(1), std::sync::Arc::new(unread)),
            (id(2), std::sync::Arc::new(in_memory)),
        ]);
        let book = Book::<Ssl>::default();
        let bytes = write(&book, &[], &[], &units, None, Vec::new()).expect("written");
        assert!(
            units[&id(1)].ratings.bytes().is_some(),
            "the holder's unit is still unread"
        );
        let copy = read::<Ssl>(&bytes).expect("read");
        assert_eq!(copy.units.len(), 2);
        for (at, from) in [(id(1), 0), (id(2), 5_000)] {
            let unit = &copy.units[&at];
            assert!(unit.ratings.bytes().is_some(), "unread in the copy");
            assert_eq!(unit.ratings.iter().cloned().collect::<Vec<_>>(), rows(from));
            assert_eq!(unit.states, units[&at].states);
        }
    }
}
