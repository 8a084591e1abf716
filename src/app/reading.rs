//! Reads that never wait for edits. The process that holds a database keeps, beside the desk
//! that edits it, a copy of the record for reading: made in memory between two edits, it
//! follows every committed entry by the same incremental path as a workstation's copy (the
//! ledger invariant makes it the same record), on a thread of its own. A long read — an
//! export, `check`, a backup — runs on it, at the record as it stood when the read began,
//! while the officers' edits go on beside it. It shares the database's store and reads there
//! only what that record leads to: the audit entries up to its newest.

use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use super::{Desk, DeskError, EditError, Federation};
use crate::book::{Book, PlayerStatus};
use crate::rules::Rulebook;
use crate::store::{AuditEntry, Link};

/// How long `check` waits for a part of the stored results to be read between two of their
/// writes (and for the entries they follow from): edits landing without a pause for that long
/// leave them uncompared, and `check` says so.
const RESULTS_WITHIN: Duration = Duration::from_secs(10);

/// The units of the stored results read at once at first: a moment's reading. A part that
/// could not be read between two writes is halved for the next try (down to one unit): a
/// federation whose edits each write many large units (a cascade over Turkey's months) leaves
/// only short pauses between its writes.
const RESULTS_PART: usize = 512;

/// What a reading copy follows: the entries its holder commits, one transaction at a time.
pub struct Reading<R: Rulebook> {
    incoming: Receiver<Vec<AuditEntry<R>>>,
    /// Transactions received and not yet followed.
    waiting: VecDeque<Vec<AuditEntry<R>>>,
    /// The hash of the newest entry followed: the chain's head as the holder wrote it.
    head: Option<Link>,
    /// The holder has stopped sending (it closed): nothing more will arrive.
    ended: bool,
}

/// The players copied in one part of the making of a copy for reading.
const PLAYERS_PART: usize = 20_000;

/// The games (with their events) copied in one part.
const GAMES_PART: usize = 50_000;

/// A copy for reading while it is made, a part at a time between two edits of the desk it
/// copies (each part a few milliseconds of the officers' time, however large the record).
/// Parts copied at different moments may hold different records' states: the edits stored
/// meanwhile are applied again, in order, once it is made ([`Made::into_desk`]).
pub struct Making<R: Rulebook> {
    book: Book<R>,
    status: Vec<PlayerStatus>,
    /// How many players, and events' games, a part copies.
    part: (usize, usize),
}

impl<R: Rulebook> Making<R> {
    /// A copy to make in parts of `players` players, then of events holding about `games`
    /// games.
    pub fn in_parts_of(players: usize, games: usize) -> Self {
        Self {
            book: Book::default(),
            status: Vec::new(),
            part: (players.max(1), games),
        }
    }
}

impl<R: Rulebook> Default for Making<R> {
    fn default() -> Self {
        Self::in_parts_of(PLAYERS_PART, GAMES_PART)
    }
}

/// A copy for reading, made: what the last step took of the desk (its results, audit log and
/// officers as they stand then), to become a desk on the reader's own thread.
pub struct Made<R: Federation> {
    rulebook: R,
    store: std::sync::Arc<crate::store::Store>,
    making: Making<R>,
    units: crate::ledger::Units<R>,
    audit: Vec<crate::store::AuditSummary>,
    officers: Vec<crate::model::Officer>,
    head: Option<Link>,
}

impl<R: Federation> Desk<R> {
    /// Copies the next part of the record into `making` (players first, then events with
    /// their games): whether it is all copied. The edits stored between two parts must be
    /// sent to the copy from the first part on.
    pub fn copy_part(&self, making: &mut Making<R>) -> bool {
        // Every part of the book, named: a part added to it is a part to copy.
        let Book {
            players,
            seeds,
            held,
            confirmed,
            events,
            live,
        } = &self.book;
        let to = &mut making.book;
        let from = to.players.len();
        if from < players.len() {
            let end = (from + making.part.0).min(players.len());
            to.players.extend_from_slice(&players[from..end]);
            to.seeds.extend_from_slice(&seeds[from..end]);
            to.held.extend_from_slice(&held[from..end]);
            to.confirmed.extend_from_slice(&confirmed[from..end]);
            making.status.extend_from_slice(&self.status[from..end]);
            return false;
        }
        let mut games = 0;
        while to.events.len() < events.len() && games <= making.part.1 {
            let e = to.events.len();
            games += events[e].games.len();
            to.events.push(events[e].clone());
            to.live.push(live[e]);
        }
        to.events.len() >= events.len()
    }

    /// The last step of a copy for reading, between two edits: what it takes of this desk at
    /// once (shared results, the audit log's summaries, the officers, the chain's head).
    pub fn made(&self, making: Making<R>) -> Result<Made<R>, DeskError> {
        Ok(Made {
            rulebook: self.rulebook.clone(),
            store: self.store.clone(),
            making,
            units: self.ledger.units().clone(),
            audit: self.audit.clone(),
            officers: self.officers.clone(),
            head: self.store.audit_head::<R>()?,
        })
    }

    /// Whether this desk is a copy of the record kept for reading.
    pub fn is_reading(&self) -> bool {
        self.reading.is_some()
    }

    /// For a reading copy, the newest entry its record follows from: what it reads of the
    /// store goes no further (`None`: a desk that edits reads all of it).
    pub(super) fn read_upto(&self) -> Option<u64> {
        self.reading
            .as_ref()
            .map(|_| self.audit.last().map_or(0, |a| a.seq))
    }

    /// For a reading copy, the hash of its newest entry as the holder chained it.
    pub(super) fn read_head(&self) -> Option<Option<Link>> {
        self.reading.as_ref().map(|r| r.head)
    }

    /// Follows every transaction committed so far: the record as it stands now. An error
    /// when the entries do not follow, or its holder has stopped sending them (the copy is of
    /// no use any more).
    pub fn read_on(&mut self) -> Result<(), DeskError> {
        if let Some(why) = &self.stopped {
            return Err(DeskError::Stopped(why.clone()));
        }
        self.receive(None);
        if self.read_ended() {
            return Err(DeskError::Stopped("the desk it copies has closed".into()));
        }
        while let Some(entries) = self.reading.as_mut().and_then(|r| r.waiting.pop_front()) {
            self.follow(entries)?;
        }
        Ok(())
    }

    /// Whether the holder has stopped sending entries (it closed).
    fn read_ended(&self) -> bool {
        self.reading.as_ref().is_some_and(|r| r.ended)
    }

    /// Takes what has arrived; waits up to `within` for one more transaction when none has.
    fn receive(&mut self, within: Option<Duration>) {
        let Some(reading) = self.reading.as_mut() else {
            return;
        };
        loop {
            match reading.incoming.try_recv() {
                Ok(entries) => reading.waiting.push_back(entries),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    reading.ended = true;
                    break;
                }
            }
        }
        if let (Some(within), true) = (within, reading.waiting.is_empty()) {
            match reading.incoming.recv_timeout(within) {
                Ok(entries) => reading.waiting.push_back(entries),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => reading.ended = true,
            }
        }
    }

    /// Follows transactions up to entry `seq` and none after it: whether the record now
    /// stands there (not when it had passed it, or the entries did not come).
    fn follow_to(&mut self, seq: u64, until: Instant) -> Result<bool, DeskError> {
        loop {
            let head = self.audit.last().map_or(0, |a| a.seq);
            if head >= seq {
                return Ok(head == seq);
            }
            let next = self.reading.as_mut().and_then(|r| {
                let last = r.waiting.front()?.last().map_or(0, |e| e.seq);
                (last <= seq).then(|| r.waiting.pop_front()).flatten()
            });
            match next {
                Some(entries) => {
                    self.follow(entries)?;
                }
                None if self.reading.as_ref().is_some_and(|r| !r.waiting.is_empty()) => {
                    return Ok(false);
                }
                None => {
                    let left = until.saturating_duration_since(Instant::now());
                    if left.is_zero() || self.read_ended() {
                        return Ok(false);
                    }
                    self.receive(Some(left.min(Duration::from_millis(50))));
                }
            }
        }
    }

    /// `check` on a reading copy: the results on disk against those of the record they follow
    /// from, a part at a time — each part read between two of their writes, with the copy
    /// brought to the entry they were rated after (results are written behind the entries,
    /// so it may wait a moment for them).
    pub(super) fn check_stored_reading(&mut self) -> Result<Vec<String>, DeskError> {
        let mut problems = Vec::new();
        let mut after: Option<Vec<u8>> = None;
        let mut size = RESULTS_PART;
        loop {
            let part = self.results_part(after.as_deref(), &mut size)?;
            // The units held under the keys of this part.
            let within = |key: &[u8]| {
                after.as_deref().is_none_or(|a| key > a)
                    && part.through.as_deref().is_none_or(|t| key <= t)
            };
            let mut held = crate::ledger::Units::new();
            for (id, unit) in self.ledger.units() {
                if within(&self.store.result_key(id)?) {
                    held.insert(id.clone(), unit.clone());
                }
            }
            problems.extend(self.differences(&part.units, &held));
            match part.through {
                Some(through) => after = Some(through),
                None => return Ok(problems),
            }
        }
    }

    /// Up to `size` units of the stored results after key `after`, with this copy brought to
    /// the entry they were rated after; `size` is halved on each try that fell between two
    /// writes.
    fn results_part(
        &mut self,
        after: Option<&[u8]>,
        size: &mut usize,
    ) -> Result<crate::store::ResultsPart<R>, DeskError> {
        let until = Instant::now() + RESULTS_WITHIN;
        loop {
            self.receive(None);
            match self.store.stored_results_part::<R>(after, *size)? {
                Some(part) if self.follow_to(part.rated_seq, until)? => return Ok(part),
                None => *size = (*size / 2).max(1),
                Some(_) => {}
            }
            if Instant::now() >= until {
                return Err(EditError(format!(
                    "the results on disk could not be compared: edits kept landing for {} s; run `check` again",
                    RESULTS_WITHIN.as_secs()
                ))
                .into());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Keeps followed entries as the holder chained them: a copy writes them to its scratch
    /// store; a reading copy checks that each follows the one before.
    pub(super) fn keep_followed(&mut self, entries: &mut [AuditEntry<R>]) -> Result<(), DeskError> {
        let Some(reading) = self.reading.as_mut() else {
            return Ok(self.store.keep_entries(entries)?);
        };
        for entry in entries.iter_mut() {
            entry.prev = reading.head;
            reading.head = Some(entry.hash());
        }
        Ok(())
    }
}

impl<R: Federation> Made<R> {
    /// The copy as a desk, on the reader's thread: the edits stored while it was made applied
    /// again in order (each record then holds what the newest of them left in it), the ratings'
    /// indexes built from the results taken at the last step (no calculation). `incoming` has
    /// had every transaction since the first part; those after the last step are followed
    /// later.
    pub fn into_desk(self, incoming: Receiver<Vec<AuditEntry<R>>>) -> Desk<R> {
        let Made {
            rulebook,
            store,
            making:
                Making {
                    mut book,
                    mut status,
                    ..
                },
            units,
            audit,
            officers,
            head,
        } = self;
        let last = audit.last().map_or(0, |a| a.seq);
        let mut waiting = VecDeque::new();
        let mut ended = false;
        loop {
            match incoming.try_recv() {
                Ok(entries) if entries.last().is_some_and(|e| e.seq <= last) => {
                    for entry in entries {
                        entry.change.apply_owned(&mut book, &mut status);
                    }
                }
                Ok(entries) => waiting.push_back(entries),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    ended = true;
                    break;
                }
            }
        }
        let ledger = crate::ledger::Ledger::from_units(&rulebook, &book, units);
        let mut desk = Desk::from_parts(rulebook, store, book, status, ledger, audit, Vec::new());
        desk.officers = officers;
        desk.reading = Some(Reading {
            incoming,
            waiting,
            head,
            ended,
        });
        desk
    }
}
