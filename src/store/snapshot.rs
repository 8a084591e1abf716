//! The record as a process holding the database has it in memory — players, events, games,
//! statuses, the audit log's summaries and the rated units — in one binary message, for a
//! workstation that keeps a copy of it ([`crate::app::Desk::replica`]). It is read back into
//! memory as it was, without a calculation and without writing the records anywhere.

use serde::{Deserialize, Serialize};

use super::codec::{self, CodecError};
use super::fide::FideTitle;
use super::records::{AuditSummary, Link};
use crate::book::{Book, PlayerStatus};
use crate::ledger::{UnitId, UnitResult, Units};
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
    units: Vec<(&'a UnitId, &'a UnitResult<R>)>,
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
    units: Vec<(UnitId, UnitResult<R>)>,
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
        units: units.iter().map(|(id, u)| (id, &**u)).collect(),
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
            .map(|(id, u)| (id, std::sync::Arc::new(u)))
            .collect(),
        head: read.head,
        titles: read.titles,
    })
}
