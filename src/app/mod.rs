//! The application: the federation's data, its ratings and every change made to them. Every
//! edit — from the command line, the TUI or an import — goes through [`Desk::apply`]: checked,
//! written with its audit entry in one transaction, re-rated incrementally, flushed, and only
//! then acknowledged. No drawing and no terminal here.

mod audit_log;
mod checks;
pub mod database;
pub mod edit;
#[cfg(test)]
mod fixture;
pub mod import;
mod merging;
pub mod officers;
pub mod publish;
pub mod queries;
pub mod reading;
pub mod replica;
pub mod restore;
pub mod search;
pub mod workstation;

/// The TRF import, by the name the workstation's state knows it.
pub use import::trf as trf_import;

pub use crate::federations::Federation;
pub use crate::federations::registry::{
    DEFAULT as DEFAULT_RULEBOOK, WithFederation, with_federation,
};
pub use audit_log::{HeadError, find_head, head_line, one_line as audit_log_line};
pub use checks::is_bidi_control;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use crate::book::Book;
use crate::book::{Change, PlayerStatus};
use crate::ledger::{Journal, Ledger, Touched, UnitId, UnitResult, Update};
use crate::model::{PlayerIdx, Rating};
use crate::rules::{Award, ListId, Rulebook};
pub use crate::store::backup::Occasion as BackupOccasion;
use crate::store::{self, AuditEntry, AuditKind, AuditSummary, Store, StoreError, backup};
pub use edit::{Edit, EditError, ImportedPlayer};

/// An automatic backup is made at opening when the newest is older than this.
const DAILY: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

#[derive(Debug, thiserror::Error)]
pub enum DeskError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Edit(#[from] EditError),
    #[error("{0}")]
    Backup(String),
    /// The store failed after an edit's commit point: the edit is stored, the rest of it is
    /// not, and this desk no longer edits.
    #[error(
        "'{action}' is stored, but finishing it failed: {cause}. The database stays consistent (what was not finished is redone when it is next opened); ratedesk has stopped editing it: close it, deal with the cause and open it again"
    )]
    AfterCommit { action: String, cause: StoreError },
    /// A restore swapped in whole, and what follows it (its ratings written beside it, the
    /// automatic backup) failed: the restore is not to be made again.
    #[error(
        "the restore of {file} is complete: the database holds that backup now (do not restore it again). Finishing it failed: {cause}; what was not finished (its ratings, the automatic backup) is done again when the database is next opened"
    )]
    Restored { file: String, cause: String },
    /// A workstation's copy of the record cannot store an edit: its holder is gone or it no
    /// longer follows it ([`replica`]).
    #[error("{0}")]
    Copy(String),
    /// An earlier failure to write: no more edits until the database is opened again.
    #[error(
        "the database could not be written earlier ({0}); ratedesk has stopped editing it: close it and open it again"
    )]
    Stopped(String),
}

impl DeskError {
    /// What failed, without the advice to make the edit again (for an edit that is stored).
    pub fn cause(&self) -> String {
        match self {
            DeskError::Store(StoreError::NoSpace { path, .. }) => format!(
                "no space left on the device holding {}; free some space",
                path.display()
            ),
            other => other.to_string(),
        }
    }

    /// Whether the database is held by another process.
    pub fn is_locked(&self) -> bool {
        matches!(self, DeskError::Store(StoreError::Locked(_)))
    }

    /// Whether the edit was refused for what it asked (bad input), not because the database
    /// failed.
    pub fn is_input(&self) -> bool {
        matches!(self, DeskError::Edit(_))
    }
}

/// One player's rating moved by an edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatingChange {
    pub player: PlayerIdx,
    pub list: ListId,
    pub before: Option<Rating>,
    pub after: Option<Rating>,
}

/// What an edit does (or did) to the ratings and awards.
#[derive(Clone, Debug, PartialEq)]
pub struct Effect<A> {
    pub action: String,
    pub ratings: Vec<RatingChange>,
    pub gained: Vec<Award<A>>,
    pub lost: Vec<Award<A>>,
    pub units_rated: usize,
    /// Whether the edit was stored: one that would change nothing is not.
    pub stored: bool,
}

impl<A> Effect<A> {
    /// An edit that changed nothing, and was not stored.
    pub fn nothing(action: String) -> Self {
        Self {
            action,
            ratings: Vec::new(),
            gained: Vec::new(),
            lost: Vec::new(),
            units_rated: 0,
            stored: false,
        }
    }
}

/// The officer's desk: one open database, its data in memory and its ratings.
pub struct Desk<R: Federation> {
    rulebook: R,
    /// Shared with the reading copy of the record beside this desk, if any ([`reading`]).
    store: std::sync::Arc<Store>,
    book: Book<R>,
    status: Vec<PlayerStatus>,
    ledger: Ledger<R>,
    audit: Vec<AuditSummary>,
    changed: bool,
    /// Why this desk stopped editing (a write that failed), if it did.
    stopped: Option<String>,
    warnings: Vec<String>,
    /// The edit last previewed, rated and put back: applied next, it is not rated again.
    pending: Option<Pending<R>>,
    /// Counts of the committed edits that changed players, and events (not their games): what
    /// the screens list of them is refreshed when these move.
    generations: (u64, u64),
    /// Which state of the record the book and ledger hold: new at every edit committed or
    /// followed, and never the same for two desks of one process ([`Desk::revision`]).
    revision: u64,
    /// Whether an edit's flush is asked for and not waited for ([`Desk::flush_behind`]).
    flush_behind: bool,
    /// The flush behind the screen that makes the edits applied so far durable.
    acknowledged: store::Ticket,
    /// The last edit's action, to name it if its flush fails.
    last_action: String,
    /// Who the edits are made for when not this process's user: the OS user of another
    /// `ratedesk` whose command this one runs ([`Desk::acting_for`]).
    acting_for: Option<String>,
    /// For a copy of a database another process holds: the way to it ([`replica`]).
    link: Option<Box<dyn replica::Link<R>>>,
    /// Other officers' edits a copy followed while making its own, not yet told.
    pending_followed: Vec<replica::Followed<R::Award>>,
    /// For the holder of a database: who is told of every committed edit.
    watcher: Option<Box<dyn replica::Watcher<R>>>,
    /// Who may edit beside the owner ([`officers`]).
    officers: Vec<crate::model::Officer>,
    /// For a copy of the record kept for reading beside the desk that edits it: the entries
    /// that desk commits ([`reading`]).
    reading: Option<reading::Reading<R>>,
}

/// Which players are in use (not deleted, not merged away), by their status.
pub fn active_of(status: &[PlayerStatus]) -> Vec<bool> {
    status.iter().map(|s| *s == PlayerStatus::Active).collect()
}

/// A revision no desk of this process has had ([`Desk::revision`]).
fn next_revision() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A previewed change and the journal of its update, put back.
struct Pending<R: Federation> {
    change: Change<R>,
    journal: Journal<R>,
}

/// The parts of a book (and the statuses beside it) that a change writes, as they were, to put
/// back after a preview.
struct Saved<R: Federation> {
    lengths: [usize; 7],
    players: Vec<(PlayerIdx, crate::book::PlayerRecord<R>)>,
    events: Vec<(usize, crate::model::Event, bool)>,
}

impl<R: Federation> Saved<R> {
    fn take(change: &Change<R>, book: &Book<R>, status: &[PlayerStatus]) -> Self {
        let players = change
            .players
            .iter()
            .map(|d| d.key)
            .filter(|&p| p < book.players.len() && p < status.len())
            .map(|p| {
                let record = crate::book::PlayerRecord {
                    info: book.players[p].clone(),
                    seeds: book.seeds.get(p).cloned().unwrap_or_default(),
                    held: book.held.get(p).cloned().unwrap_or_default(),
                    confirmed: book.confirmed.get(p).cloned().unwrap_or_default(),
                    status: status[p],
                };
                (p, record)
            })
            .collect();
        let events: BTreeSet<usize> = change
            .events
            .iter()
            .map(|d| d.key)
            .chain(change.games.iter().map(|d| d.key.0))
            .collect();
        Self {
            lengths: [
                book.players.len(),
                book.seeds.len(),
                book.held.len(),
                book.confirmed.len(),
                status.len(),
                book.events.len(),
                book.live.len(),
            ],
            players,
            events: events
                .into_iter()
                .filter(|&e| e < book.events.len() && e < book.live.len())
                .map(|e| (e, book.events[e].clone(), book.live[e]))
                .collect(),
        }
    }

    fn restore(self, book: &mut Book<R>, status: &mut Vec<PlayerStatus>) {
        let [players, seeds, held, confirmed, statuses, events, live] = self.lengths;
        book.players.truncate(players);
        book.seeds.truncate(seeds);
        book.held.truncate(held);
        book.confirmed.truncate(confirmed);
        status.truncate(statuses);
        book.events.truncate(events);
        book.live.truncate(live);
        for (p, record) in self.players {
            book.players[p] = record.info;
            if let Some(s) = book.seeds.get_mut(p) {
                *s = record.seeds;
            }
            if let Some(h) = book.held.get_mut(p) {
                *h = record.held;
            }
            if let Some(c) = book.confirmed.get_mut(p) {
                *c = record.confirmed;
            }
            status[p] = record.status;
        }
        for (e, event, live) in self.events {
            book.events[e] = event;
            book.live[e] = live;
        }
    }
}

impl<R: Federation> Desk<R> {
    /// Opens (or creates) the database in `dir`. Stored results are used as they are unless the
    /// last edit's results are not stored (a process killed before they were re-rated, or
    /// before they were written behind the screen): then everything is re-rated.
    pub fn open(dir: &Path, rulebook: R) -> Result<Self, DeskError> {
        let store = Store::open(dir, rulebook.code())?;
        let mut desk = Self::from_store(store, rulebook)?;
        desk.daily_backup();
        Ok(desk)
    }

    /// Takes the lock of the database folder `dir` (making the folder if needed), for
    /// [`Desk::open_locked`]: a database another process holds is refused here, before anything
    /// else is done.
    pub fn lock(dir: &Path) -> Result<std::sync::Arc<store::LockFile>, DeskError> {
        Ok(std::sync::Arc::new(Store::lock(dir)?))
    }

    /// Opens the database in `dir`, whose lock the caller holds.
    pub fn open_locked(
        dir: &Path,
        rulebook: R,
        lock: std::sync::Arc<store::LockFile>,
    ) -> Result<Self, DeskError> {
        Self::open_locked_beside(dir, rulebook, lock, |_, _| ()).map(|(desk, ())| desk)
    }

    /// [`Desk::open_locked`] without the daily backup (a restore takes the restored record's
    /// own once it has said what it did).
    fn open_locked_as_is(
        dir: &Path,
        rulebook: R,
        lock: std::sync::Arc<store::LockFile>,
    ) -> Result<Self, DeskError> {
        let store = Store::open_locked(dir, rulebook.code(), lock)?;
        Self::from_store(store, rulebook)
    }

    fn from_store(store: Store, rulebook: R) -> Result<Self, DeskError> {
        Self::from_store_beside(store, rulebook, |_, _| ()).map(|(desk, ())| desk)
    }

    /// [`Desk::open_locked`], and `beside` run on another thread on the record read (its book
    /// and players' status) while the ledger is laid out from it.
    pub fn open_locked_beside<T: Send>(
        dir: &Path,
        rulebook: R,
        lock: std::sync::Arc<store::LockFile>,
        beside: impl FnOnce(&Book<R>, &[PlayerStatus]) -> T + Send,
    ) -> Result<(Self, T), DeskError> {
        let store = Store::open_locked(dir, rulebook.code(), lock)?;
        let (mut desk, aside) = Self::from_store_beside(store, rulebook, beside)?;
        desk.daily_backup();
        Ok((desk, aside))
    }

    fn from_store_beside<T: Send>(
        store: Store,
        rulebook: R,
        beside: impl FnOnce(&Book<R>, &[PlayerStatus]) -> T + Send,
    ) -> Result<(Self, T), DeskError> {
        let store::Contents {
            book,
            status,
            units,
            audit,
            rated_seq,
        } = store.load::<R>()?;
        let last = audit.last().map_or(0, |a| a.seq);
        let (ledger, aside) = std::thread::scope(|s| {
            let aside = s.spawn(|| beside(&book, &status));
            let ledger = if rated_seq == last {
                Ok(Ledger::from_units(&rulebook, &book, units))
            } else {
                let ledger = Ledger::build(&rulebook, &book);
                store
                    .replace_results(ledger.units(), last)
                    .and_then(|()| store.flush())
                    .map(|()| ledger)
            };
            match aside.join() {
                Ok(aside) => (ledger, aside),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        });
        let ledger = ledger?;
        let warnings = store
            .undone()
            .map(|action| {
                format!(
                    "an edit that did not finish (the process stopped or the disk was full) \
                     was undone as the database opened; nothing of it is kept, so make it again: \
                     {action}"
                )
            })
            .into_iter()
            .collect();
        let officers = store.officers()?;
        let mut desk = Self::from_parts(
            rulebook,
            std::sync::Arc::new(store),
            book,
            status,
            ledger,
            audit,
            warnings,
        );
        desk.officers = officers;
        Ok((desk, aside))
    }

    fn from_parts(
        rulebook: R,
        store: std::sync::Arc<Store>,
        book: Book<R>,
        status: Vec<PlayerStatus>,
        ledger: Ledger<R>,
        audit: Vec<AuditSummary>,
        warnings: Vec<String>,
    ) -> Self {
        Self {
            rulebook,
            store,
            book,
            status,
            ledger,
            audit,
            changed: false,
            stopped: None,
            warnings,
            pending: None,
            generations: (0, 0),
            revision: next_revision(),
            flush_behind: false,
            acknowledged: 0,
            last_action: String::new(),
            acting_for: None,
            link: None,
            pending_followed: Vec::new(),
            watcher: None,
            officers: Vec::new(),
            reading: None,
        }
    }

    pub fn rulebook(&self) -> &R {
        &self.rulebook
    }

    /// Makes the edits from now on for another OS user (his name as the operating system gives
    /// it for the process he runs, never as he claims it), or for this process's user again.
    pub fn acting_for(&mut self, user: Option<String>) {
        self.acting_for = user;
    }

    /// From now on an edit's flush is asked for and not waited for: the workstation draws the
    /// frame that shows the edit while the disk catches up, and calls [`Desk::settle`] before
    /// the frame goes to the terminal. The units the edit re-rated are written after that flush,
    /// behind the screen too (a database opened before they are on disk re-rates). Every other
    /// caller keeps `apply` returning once the edit and its results are on disk.
    pub fn flush_behind(&mut self) {
        self.flush_behind = true;
    }

    /// Waits until the edits applied so far are on disk; a failure to write anything behind
    /// the screen that has come to light (reported again on every call: the desk takes no more
    /// edits).
    pub fn settle(&self) -> Result<(), DeskError> {
        self.after_commit(self.store.settle_to(self.acknowledged))
    }

    /// Waits until everything written behind the screen is on disk: the edits and the results
    /// they derived.
    pub fn settle_all(&self) -> Result<(), DeskError> {
        self.after_commit(self.store.settle())
    }

    fn after_commit(&self, settled: Result<(), StoreError>) -> Result<(), DeskError> {
        settled.map_err(|cause| DeskError::AfterCommit {
            action: self.last_action.clone(),
            cause,
        })
    }

    /// The database folder.
    pub fn folder(&self) -> &Path {
        self.store.path()
    }

    pub fn book(&self) -> &Book<R> {
        &self.book
    }

    pub fn ledger(&self) -> &Ledger<R> {
        &self.ledger
    }

    pub fn status(&self) -> &[PlayerStatus] {
        &self.status
    }

    /// The audit log (without the records each entry carries).
    pub fn audit(&self) -> &[AuditSummary] {
        &self.audit
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Which players are in use (not deleted, not merged away).
    pub fn active_players(&self) -> Vec<bool> {
        active_of(&self.status)
    }

    fn current(&self) -> edit::Current<'_, R> {
        edit::Current {
            rulebook: &self.rulebook,
            book: &self.book,
            status: &self.status,
            ledger: &self.ledger,
            today: crate::clock::today(),
        }
    }

    /// What an edit would do, computed by the same incremental path: the change is made in
    /// memory, re-rated with a journal, and put back, so the database and what the desk shows
    /// are as they were. The journal is kept: applying this same edit next takes its results
    /// instead of rating them again.
    pub fn preview(&mut self, edit: &Edit<R>) -> Result<Effect<R::Award>, DeskError> {
        self.pending = None;
        let change = edit.compile(&self.current())?;
        let explicit = self.before_of(&change);
        let action = edit.describe(&self.book);
        let saved = Saved::take(&change, &self.book, &self.status);
        let touched = Self::touch(change.clone(), &mut self.book, &mut self.status);
        self.ledger.begin_journal();
        let update = self
            .ledger
            .update_touched(&self.rulebook, &self.book, &touched);
        let effect = effect(
            &self.rulebook,
            action,
            &self.book,
            &self.ledger,
            update.clone(),
            explicit,
        );
        let mut journal = self.ledger.end_journal(update);
        self.ledger.swap(&mut journal);
        saved.restore(&mut self.book, &mut self.status);
        self.pending = Some(Pending { change, journal });
        Ok(effect)
    }

    /// Counts of the committed edits that changed players, and that changed events (their
    /// details, not their games): a screen rebuilds what it lists of them when these move.
    pub fn generations(&self) -> (u64, u64) {
        self.generations
    }

    /// Which state of the record this desk shows: it changes with every edit committed or
    /// followed (a result too), and two desks of one process never share one, so what a screen
    /// computed from the book and the ledger may be kept for as long as this stays.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Final states and awards of the players whose own records a change edits.
    fn before_of(&self, change: &Change<R>) -> Before<R> {
        before_of(&self.rulebook, &self.book, &self.ledger, change)
    }

    /// Applies a change to a book and says what it touches: the events it moves as a whole
    /// (found before and after), and the games it changes.
    fn touch(change: Change<R>, book: &mut Book<R>, status: &mut Vec<PlayerStatus>) -> Touched {
        let reach = change.reach();
        let mut touched = Touched::events(reach.events_changed(book));
        change.apply_owned(book, status);
        touched.events.extend(reach.events_changed(book));
        for &((e, round, board), ref players) in reach.games() {
            touched.game(e, (round, board), players.iter().copied());
        }
        touched
    }

    /// Checks, writes, re-rates and flushes an edit; returns its effect once it is on disk. An
    /// edit that changes nothing is not stored (no audit entry, no undo step).
    pub fn apply(&mut self, edit: Edit<R>) -> Result<Effect<R::Award>, DeskError> {
        self.apply_noted(edit, None)
    }

    /// [`Desk::apply`] with a note added to the audit entry's action (an import's files and
    /// what each brought).
    pub fn apply_noted(
        &mut self,
        edit: Edit<R>,
        note: Option<String>,
    ) -> Result<Effect<R::Award>, DeskError> {
        self.apply_all(vec![(edit, note)], &[])
    }

    /// Several edits (an import of several files), each its own audit entry, stored in one
    /// transaction: all of them or none. Each is checked against the data as the ones before it
    /// leave it (awards as they stand before all of them: for imports, not corrections). `done`
    /// names `meta` keys the same transaction removes (a journal's marker).
    pub fn apply_all(
        &mut self,
        edits: Vec<(Edit<R>, Option<String>)>,
        done: &[&str],
    ) -> Result<Effect<R::Award>, DeskError> {
        // One edit (a key press) is checked against the data as it is: no copy of the book.
        if edits.len() == 1 {
            let (edit, note) = edits.into_iter().next().expect("one edit");
            let mut action = edit.describe(&self.book);
            // An import's players move into the change: not held twice while it is written.
            let change = edit.compile_owned(&self.current())?;
            if let Some(note) = &note {
                action = format!("{action}; {note}");
            }
            // An edit that changes nothing is not stored: no audit entry, no undo step. (An
            // import whose records are unchanged still says what it did to reference data: its
            // note and journal are stored.)
            if change.is_empty() && note.is_none() && done.is_empty() {
                return Ok(Effect::nothing(action));
            }
            return self.commit(vec![(change, action, AuditKind::Edit)], done);
        }
        let mut book = self.book.clone();
        let mut status = self.status.clone();
        let mut changes = Vec::with_capacity(edits.len());
        for (edit, note) in edits {
            let now = edit::Current {
                rulebook: &self.rulebook,
                book: &book,
                status: &status,
                ledger: &self.ledger,
                today: crate::clock::today(),
            };
            let change = edit.compile(&now)?;
            let mut action = edit.describe(&book);
            if let Some(note) = note {
                action = format!("{action}; {note}");
            }
            change.apply(&mut book, &mut status);
            changes.push((change, action, AuditKind::Edit));
        }
        self.commit(changes, done)
    }

    /// Writes changes with their audit entries in one transaction (the commit point), then
    /// follows them in memory, re-rates, stores the results and flushes (in the workstation the
    /// flush and then the results' write behind the screen: [`Desk::flush_behind`]).
    fn commit(
        &mut self,
        changes: Vec<(Change<R>, String, AuditKind)>,
        done: &[&str],
    ) -> Result<Effect<R::Award>, DeskError> {
        self.commit_with(changes, done, None)
    }

    /// [`Desk::commit`], the database's editors set to `officers` in the same transaction.
    fn commit_with(
        &mut self,
        changes: Vec<(Change<R>, String, AuditKind)>,
        done: &[&str],
        officers: Option<&[crate::model::Officer]>,
    ) -> Result<Effect<R::Award>, DeskError> {
        // The edit just previewed: its update is done again rather than rated again.
        let mut previewed = self
            .pending
            .take()
            .filter(|p| matches!(changes.as_slice(), [(c, _, AuditKind::Edit)] if *c == p.change));
        if self.link.is_some() {
            return self.commit_remote(changes, done);
        }
        if self.is_reading() {
            return Err(
                EditError("a copy of the record kept for reading stores nothing".into()).into(),
            );
        }
        if let Some(why) = &self.stopped {
            return Err(DeskError::Stopped(why.clone()));
        }
        // The edit before and its results, written behind, must be on disk before this one is
        // written.
        if let Err(e) = self.settle_all() {
            self.stopped = Some(e.to_string());
            return Err(DeskError::Stopped(e.to_string()));
        }
        let mut explicit = Before::<R>::new();
        for (change, _, _) in &changes {
            for (p, before) in self.before_of(change) {
                explicit.entry(p).or_insert(before);
            }
        }
        let first = self.store.next_seq()?;
        let user = self.acting_for.clone().unwrap_or_else(store::lock::user);
        let time = crate::clock::timestamp();
        let mut entries: Vec<AuditEntry<R>> = changes
            .into_iter()
            .enumerate()
            .map(|(k, (change, action, kind))| AuditEntry {
                seq: first + k as u64,
                time,
                user: user.clone(),
                action,
                kind,
                change,
                prev: None,
            })
            .collect();
        let action = entries
            .iter()
            .map(|e| e.action.as_str())
            .collect::<Vec<_>>()
            .join("; ");
        if let Err(e) = self.store.commit_with(&mut entries, done, officers) {
            // sled may hold a write error it will repeat: stop rather than guess.
            self.stopped = Some(e.to_string());
            return Err(e.into());
        }
        // The commit point: the edits are in the store, so they are in memory too, whatever
        // follows. The copies of the record are told: one in this process once the edit's
        // moves are stored too (or once finishing it failed), those of other processes once
        // it is on disk.
        let told = self
            .watcher
            .as_ref()
            .is_some_and(|w| w.watching() || w.durable())
            .then(|| entries.clone());
        let last = entries.last().map_or(0, |e| e.seq);
        let mut touched = Touched::default();
        for entry in entries {
            self.audit.push(entry.summary());
            let (players, events) = &mut self.generations;
            *players += u64::from(!entry.change.players.is_empty());
            *events += u64::from(!entry.change.events.is_empty());
            self.revision = next_revision();
            // The records move into the book: an import is not held twice.
            if previewed.is_some() {
                entry.change.apply_owned(&mut self.book, &mut self.status);
            } else {
                touched.extend(Self::touch(entry.change, &mut self.book, &mut self.status));
            }
        }
        let update = match previewed.as_mut() {
            Some(Pending { journal, .. }) => {
                self.ledger.swap(journal);
                std::mem::take(&mut journal.update)
            }
            None => self
                .ledger
                .update_touched(&self.rulebook, &self.book, &touched),
        };
        self.changed = true;
        let units: Vec<(UnitId, Option<Arc<UnitResult<R>>>)> = update
            .units
            .iter()
            .map(|id| (id.clone(), self.ledger.units().get(id).cloned()))
            .collect();
        let effect = effect(
            &self.rulebook,
            action.clone(),
            &self.book,
            &self.ledger,
            update,
            explicit,
        );
        let moves: Vec<store::Moved> = effect
            .ratings
            .iter()
            .map(|c| store::Moved {
                player: c.player,
                list: c.list,
                before: c.before,
                after: c.after,
            })
            .collect();
        let finished = if self.flush_behind {
            // The edit and its moves are flushed first (what the next frame waits for), the
            // units it re-rated written after.
            self.store
                .save_moves(last, &moves)
                .and_then(|()| self.store.flush_behind())
                .and_then(|ticket| {
                    self.acknowledged = ticket;
                    self.store.save_results_behind(units, last).map(drop)
                })
                .map(|()| {
                    // The units the edit replaced, freed behind the screen too.
                    if let Some(spent) = previewed.take() {
                        self.store.drop_behind(spent);
                    }
                })
        } else {
            let units = units.iter().map(|(id, u)| (id, u.as_deref()));
            self.store
                .save_results(units, last)
                .and_then(|()| self.store.save_moves(last, &moves))
                .and_then(|()| self.store.flush())
        };
        self.last_action.clone_from(&action);
        if let (Some(watcher), Some(entries)) = (self.watcher.as_mut(), &told) {
            watcher.stored(entries);
        }
        if let Err(cause) = finished {
            self.stopped = Some(cause.to_string());
            return Err(DeskError::AfterCommit { action, cause });
        }
        if let Some(entries) = told.filter(|_| self.watcher.as_ref().is_some_and(|w| w.durable())) {
            self.settle()?;
            if let Some(watcher) = self.watcher.as_mut() {
                watcher.committed(&entries);
            }
        }
        Ok(effect)
    }

    /// The entries undo and redo would take next: (done, undone) stacks of sequence numbers.
    pub(super) fn stacks(&self) -> (Vec<u64>, Vec<u64>) {
        let (mut done, mut undone) = (Vec::new(), Vec::new());
        for entry in &self.audit {
            match entry.kind {
                AuditKind::Edit => {
                    done.push(entry.seq);
                    undone.clear();
                }
                AuditKind::Undo(n) => {
                    done.retain(|&s| s != n);
                    undone.push(n);
                }
                AuditKind::Redo(n) => {
                    undone.retain(|&s| s != n);
                    done.push(n);
                }
                AuditKind::Restore => {
                    done.clear();
                    undone.clear();
                }
                AuditKind::Officers => {}
            }
        }
        (done, undone)
    }

    /// The OS user whom the edits are made for now (his name as the audit gives it, without
    /// what he says of himself): whose own edits undo and redo take.
    pub fn me(&self) -> String {
        let user = self.acting_for.clone().unwrap_or_else(store::lock::user);
        os_name(&user).to_string()
    }

    /// Who made the audited edit `seq` (his OS user's name).
    fn author(&self, seq: u64) -> Option<&str> {
        let at = self.audit.binary_search_by_key(&seq, |a| a.seq).ok()?;
        Some(os_name(&self.audit[at].user))
    }

    /// The entry undo (`undo`) or redo would take next, to be shown before it is taken: the
    /// newest edit in force (undone) of the officer making the edits; when he has none, the
    /// newest anyone's — whose author the caller names, and has confirmed, before taking it.
    pub fn next_undo(&self, undo: bool) -> Result<Option<AuditEntry<R>>, DeskError> {
        self.next_undo_of(undo, None)
    }

    /// [`Desk::next_undo`]; with `of`, that officer's newest edit in force (undone) only.
    pub fn next_undo_of(
        &self,
        undo: bool,
        of: Option<&str>,
    ) -> Result<Option<AuditEntry<R>>, DeskError> {
        let (done, undone) = self.stacks();
        let stack = if undo { done } else { undone };
        let whose = of.map_or_else(|| self.me(), str::to_string);
        let own = stack
            .iter()
            .rev()
            .find(|&&seq| self.author(seq) == Some(whose.as_str()));
        let next = if of.is_some() {
            own
        } else {
            own.or(stack.last())
        };
        match next {
            Some(&seq) => self.audit_entry(seq),
            None => Ok(None),
        }
    }

    /// Undoes (`undo`) or redoes the entry `seq` the officer was shown, as a new audited
    /// entry; refused when it is no longer in force (undone), or when an edit made since has
    /// changed what it would change back (named, with who made it).
    pub fn undo_entry(
        &mut self,
        undo: bool,
        seq: u64,
    ) -> Result<Option<Effect<R::Award>>, DeskError> {
        let (done, undone) = self.stacks();
        let what = if undo { "undo" } else { "redo" };
        if !(if undo { &done } else { &undone }).contains(&seq) {
            return Err(EditError(format!(
                "not stored, changed meanwhile: #{seq} is no longer there to {what}"
            ))
            .into());
        }
        let Some(entry) = self.audit_entry(seq)? else {
            return Ok(None);
        };
        let (change, action, kind) = if undo {
            (
                entry.change.inverse(),
                format!("undo: {}", entry.action),
                AuditKind::Undo(seq),
            )
        } else {
            (
                entry.change.clone(),
                format!("redo: {}", entry.action),
                AuditKind::Redo(seq),
            )
        };
        if let Some(crossed) = self.crossed(std::iter::once(&change), self.undo_base(kind))? {
            return Err(EditError(format!(
                "not stored: {what} of #{seq} would overwrite {crossed}"
            ))
            .into());
        }
        self.commit(vec![(change, action, kind)], &[]).map(Some)
    }

    /// The newest entry an undo or redo is made over: the undone entry itself, or for a redo
    /// the newest undo of it. Edits after it that cross it refuse it.
    fn undo_base(&self, kind: AuditKind) -> u64 {
        match kind {
            AuditKind::Undo(seq) => seq,
            AuditKind::Redo(seq) => self
                .audit
                .iter()
                .rev()
                .find(|a| a.kind == AuditKind::Undo(seq))
                .map_or(seq, |a| a.seq),
            _ => self.audit.last().map_or(0, |a| a.seq),
        }
    }

    /// Undoes the officer's own newest edit still in force (anyone's when he has none), as a
    /// new audited entry.
    pub fn undo(&mut self) -> Result<Option<Effect<R::Award>>, DeskError> {
        match self.next_undo(true)? {
            Some(entry) => self.undo_entry(true, entry.seq),
            None => Ok(None),
        }
    }

    /// Applies again the officer's own newest undone edit (anyone's when he has none), as a
    /// new audited entry.
    pub fn redo(&mut self) -> Result<Option<Effect<R::Award>>, DeskError> {
        match self.next_undo(false)? {
            Some(entry) => self.undo_entry(false, entry.seq),
            None => Ok(None),
        }
    }

    /// Writes a generated (or imported) book as one edit per part — e.g. one a year — so each
    /// part is audited and rated like any import. The first part brings the players.
    pub fn import_in_parts(
        &mut self,
        book: Book<R>,
        parts: &[std::ops::Range<usize>],
    ) -> Result<(), DeskError> {
        let base = self.book.players.len();
        let count = book.players.len();
        let mut records = Some(book.players.into_iter().zip(book.seeds).zip(book.held));
        for part in parts {
            let players: Vec<ImportedPlayer<R>> = match records.take() {
                Some(new) => new
                    .map(|((info, seeds), held)| ImportedPlayer::New { info, seeds, held })
                    .collect(),
                None => (0..count)
                    .map(|p| ImportedPlayer::Existing(base + p))
                    .collect(),
            };
            self.apply(Edit::Import {
                players,
                events: book.events[part.clone()].to_vec(),
            })?;
        }
        Ok(())
    }

    /// Re-rates everything from scratch and lists every stored result that differs.
    pub fn check(&self) -> Vec<String> {
        fresh_differences(&self.rulebook, &self.book, &self.ledger)
    }

    /// For a desk that has stored edits since it opened (an open workstation, or `serve`, that
    /// runs `check` for another process): the results on disk against those it holds, once
    /// what it writes behind the screen is written. A desk just opened read them from disk. A
    /// reading copy compares them with its record while the edits go on.
    pub fn check_stored(&mut self) -> Result<Vec<String>, DeskError> {
        if self.is_reading() {
            return self.check_stored_reading();
        }
        if !self.changed {
            return Ok(Vec::new());
        }
        self.settle_all()?;
        let stored = self.store.stored_results::<R>()?;
        Ok(self.differences(&stored, self.ledger.units()))
    }

    /// Every unit whose results on disk (`stored`) differ from those held.
    fn differences(
        &self,
        stored: &crate::ledger::Units<R>,
        held: &crate::ledger::Units<R>,
    ) -> Vec<String> {
        let ids: BTreeSet<&UnitId> = stored.keys().chain(held.keys()).collect();
        ids.into_iter()
            .filter(|id| stored.get(id) != held.get(id))
            .map(|id| {
                format!(
                    "{} unit {}: the results on disk differ from those the open database holds",
                    self.rulebook.lists()[id.1],
                    id.0.date
                )
            })
            .collect()
    }

    /// Writes the portable text dump of everything, including the audit log, as it is read
    /// (an import's audit entry of a whole federation is never held twice).
    pub fn write_backup_into(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        backup::write(
            self.rulebook.code(),
            (&self.book, &self.status, &self.officers),
            &self.store,
            self.read_upto(),
            out,
        )
    }

    /// `ratedesk backup FILE`: the dump written to `file` (never through a link).
    pub fn write_backup(&self, file: &Path) -> Result<(), DeskError> {
        backup::write_to(file, |out| self.write_backup_into(out))
            .map_err(|e| DeskError::Backup(format!("{}: {e}", file.display())))
    }

    /// The daily automatic backup, if due. A failure (a full disk) does not keep the database
    /// from opening: it is kept as a warning to show.
    fn daily_backup(&mut self) {
        if let Err(e) = self.take_daily_backup() {
            self.warnings.push(format!(
                "the daily automatic backup could not be written: {e}"
            ));
        }
    }

    /// What went wrong without stopping anything (shown once by the caller).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn take_daily_backup(&self) -> Result<(), DeskError> {
        if self.audit.is_empty() {
            return Ok(());
        }
        let dir = self.store.path();
        let newest = backup::automatic_backups(dir)
            .map_err(|e| DeskError::Backup(e.to_string()))?
            .pop();
        let stale = newest
            .and_then(|p| p.metadata().ok()?.modified().ok())
            .is_none_or(|t| t.elapsed().is_ok_and(|age| age > DAILY));
        if stale {
            backup::rotate(dir, backup::Occasion::Routine, |out| {
                self.write_backup_into(out)
            })
            .map_err(|e| DeskError::Backup(e.to_string()))?;
        }
        Ok(())
    }

    /// An automatic backup before an import (or a restore), kept until a newer one of the
    /// same occasion is taken; `None` when there is nothing to back up.
    pub fn backup_before(
        &self,
        occasion: backup::Occasion,
    ) -> Result<Option<std::path::PathBuf>, DeskError> {
        if self.store.is_empty()? {
            return Ok(None);
        }
        backup::rotate(self.store.path(), occasion, |out| {
            self.write_backup_into(out)
        })
        .map(Some)
        .map_err(|e| DeskError::Backup(e.to_string()))
    }

    /// A routine automatic backup now (a restored record's own, once the restore has said
    /// what it did); `None` when there is nothing to back up.
    pub fn back_up_now(&self) -> Result<Option<std::path::PathBuf>, DeskError> {
        self.backup_before(backup::Occasion::Routine)
    }

    /// Keeps a page of the workstation's beside the database, stamped with the database as it
    /// is now (the workstation's front page, drawn first at the next opening).
    pub fn save_front<T: serde::Serialize>(&self, page: &T) -> Result<(), DeskError> {
        Ok(self.store.save_front(page)?)
    }

    /// Keeps the player search's index beside the database, as the front page is kept.
    pub fn save_search<T: serde::Serialize>(&self, index: &T) -> Result<(), DeskError> {
        Ok(self.store.save_search(index)?)
    }

    /// Whether closing writes an automatic backup: anything changed since the database opened.
    pub fn backs_up_at_close(&self) -> bool {
        self.changed
    }

    /// Flushes and, when anything changed, writes an automatic backup.
    pub fn close(mut self) -> Result<(), DeskError> {
        self.finish()
    }

    fn finish(&mut self) -> Result<(), DeskError> {
        self.store.flush()?;
        if std::mem::take(&mut self.changed) {
            backup::rotate(self.store.path(), backup::Occasion::Routine, |out| {
                self.write_backup_into(out)
            })
            .map_err(|e| DeskError::Backup(e.to_string()))?;
        }
        Ok(())
    }
}

/// The OS user's name in an audit entry's user (`anna (ssh from 10.0.0.7)` is anna's).
pub fn os_name(user: &str) -> &str {
    user.split(" (").next().unwrap_or(user)
}

/// Per player whose record an edit changes: his final state per list and his awards before it.
/// The states and awards of the existing players a change edits, before it (an edit of a
/// player's seeds or awards moves his ratings without a game).
fn before_of<R: Rulebook>(
    rulebook: &R,
    book: &Book<R>,
    ledger: &Ledger<R>,
    change: &Change<R>,
) -> Before<R> {
    change
        .players
        .iter()
        .filter(|d| d.key < book.players.len())
        .map(|d| {
            let p = d.key;
            let states = (0..rulebook.lists().len())
                .map(|l| ledger.state(rulebook, book, p, l).map(Cow::into_owned))
                .collect();
            (p, (states, ledger.awards(book, p)))
        })
        .collect()
}

pub(crate) type Before<R> = BTreeMap<
    PlayerIdx,
    (
        Vec<Option<<R as Rulebook>::State>>,
        Vec<Award<<R as Rulebook>::Award>>,
    ),
>;

/// The effect of an update on ratings and awards, from what it recorded (and `explicit` for the
/// players whose own records changed) to the ledger now.
fn effect<R: Federation>(
    rulebook: &R,
    action: String,
    book: &Book<R>,
    ledger: &Ledger<R>,
    update: Update<R>,
    explicit: Before<R>,
) -> Effect<R::Award> {
    let mut ratings = Vec::new();
    let (mut gained, mut lost) = (Vec::new(), Vec::new());
    let players: BTreeSet<PlayerIdx> = update
        .players
        .iter()
        .chain(explicit.keys())
        .copied()
        .collect();
    for p in players {
        for list in 0..rulebook.lists().len() {
            let before = match explicit.get(&p) {
                Some((states, _)) => states[list].clone(),
                None => match update.states_before.get(&(p, list)) {
                    Some(s) => s.clone(),
                    None => continue,
                },
            };
            let before = before.as_ref().and_then(|s| rulebook.rating_of(s));
            let after = ledger
                .state(rulebook, book, p, list)
                .and_then(|s| rulebook.rating_of(&s));
            if before != after {
                ratings.push(RatingChange {
                    player: p,
                    list,
                    before,
                    after,
                });
            }
        }
        let old = match explicit.get(&p) {
            Some((_, awards)) => Some(awards),
            None => update.awards_before.get(&p),
        };
        if let Some(old) = old {
            let new = ledger.awards(book, p);
            gained.extend(new.iter().filter(|a| !old.contains(a)).cloned());
            lost.extend(old.iter().filter(|a| !new.contains(a)).cloned());
        }
    }
    Effect {
        action,
        ratings,
        gained,
        lost,
        units_rated: update.units.len(),
        stored: true,
    }
}

impl<R: Federation> Drop for Desk<R> {
    fn drop(&mut self) {
        // A reading copy leaves the database to the desk that edits it.
        if self.is_reading() {
            return;
        }
        let _ = self.finish();
    }
}

/// Every unit whose results `ledger` holds differ from a fresh calculation of `book` (what
/// [`Desk::check`] lists), named by its list, date and events.
pub(crate) fn fresh_differences<R: Rulebook>(
    rulebook: &R,
    book: &Book<R>,
    ledger: &Ledger<R>,
) -> Vec<String> {
    let fresh = Ledger::build(rulebook, book);
    let mut differences = Vec::new();
    let ids: BTreeSet<&UnitId> = fresh.units().keys().chain(ledger.units().keys()).collect();
    for id in ids {
        let (stored, computed) = (ledger.units().get(id), fresh.units().get(id));
        if stored != computed {
            let events: BTreeSet<String> = stored
                .into_iter()
                .chain(computed)
                .flat_map(|u| u.ratings.iter().map(|r| book.events[r.event].id.clone()))
                .collect();
            let name = rulebook.lists()[id.1];
            differences.push(format!(
                "{name} unit {} ({}): stored results differ from a fresh calculation",
                id.0.date,
                events.into_iter().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    differences
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::{Params, generate};
    use crate::ledger::event_order;
    use crate::model::GameResult;
    use crate::rules::ssl::Ssl;

    /// Keys the other decisive result on a game's board; returns it.
    fn flip(desk: &mut Desk<Ssl>, event: usize, game: &crate::model::Game) -> GameResult {
        let flipped = if game.result == Some(GameResult::WHITE_WINS) {
            GameResult::BLACK_WINS
        } else {
            GameResult::WHITE_WINS
        };
        desk.apply(Edit::SetResult {
            event,
            round: game.round,
            board: game.board,
            result: Some(flipped),
        })
        .expect("applied");
        flipped
    }

    /// A Finnish federation of 300 players over three years with `opens` opens a year, imported
    /// a year an edit into a new database in `dir`.
    fn three_years(dir: &std::path::Path, opens: usize) -> Desk<Ssl> {
        let params = Params {
            players: 300,
            years: 3,
            last_year: 2025,
            seed: 7,
            opens_per_year: Some(opens),
        };
        let (book, parts) = generate(&params);
        let mut desk = Desk::open(dir, Ssl).expect("open");
        desk.import_in_parts(book, &parts).expect("import");
        desk
    }

    /// The audit log is checked an entry at a time, the next read on another thread: an entry
    /// that does not read, in the middle of the log, ends the check with the error that names
    /// it (the reader stopped, nothing left waiting), and the log read whole before it holds.
    #[test]
    fn a_damaged_entry_in_the_middle_of_the_log_ends_its_check_with_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let desk = three_years(dir.path(), 3);
        assert_eq!(desk.audit().len(), 3, "a year an entry");
        assert_eq!(desk.check_chain().expect("checked"), Vec::<String>::new());
        desk.store.damage_audit_entry(2);
        match desk.check_chain() {
            Err(DeskError::Store(StoreError::Corrupt { detail, .. })) => {
                assert!(detail.contains("audit entry"), "{detail}");
            }
            other => panic!("a damaged entry checked as {other:?}"),
        }
    }

    /// A process killed after the frame showed an edit and before the units it re-rated were
    /// written behind it leaves the stored results of the edit before: the next opening sees
    /// them lag behind the audit log and re-rates, and stores what it rated.
    #[test]
    fn results_not_yet_written_behind_the_screen_are_rated_again_at_the_next_opening() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut desk = three_years(dir.path(), 6);
        desk.flush_behind();
        let rated_before = desk.store.load::<Ssl>().expect("load").rated_seq;
        let old_units = desk.ledger.units().clone();
        // A correction in the oldest event, whose cascade runs to the newest.
        let book = desk.book();
        let (event, game) = event_order(&book.events)
            .into_iter()
            .find_map(|e| {
                let g = book.events[e]
                    .games
                    .iter()
                    .find(|g| g.black().is_some() && g.result.is_some_and(|r| r.played))?;
                Some((e, g.clone()))
            })
            .expect("a played game");
        let flipped = flip(&mut desk, event, &game);
        desk.settle().expect("the edit is on disk");
        // What a kill before the results' write leaves: the results as they were before it.
        desk.settle_all().expect("everything written");
        let changed: Vec<UnitId> = desk
            .ledger
            .units()
            .iter()
            .filter(|(id, unit)| old_units.get(*id) != Some(*unit))
            .map(|(id, _)| id.clone())
            .collect();
        assert!(changed.len() > 1, "the correction cascades");
        let old: Vec<(UnitId, Option<&UnitResult<Ssl>>)> = changed
            .iter()
            .map(|id| (id.clone(), old_units.get(id).map(|u| &**u)))
            .collect();
        desk.store
            .save_results(old.iter().map(|(id, u)| (id, *u)), rated_before)
            .expect("put back");
        desk.store.flush().expect("flushed");
        drop(desk);

        let reopened = Desk::open(dir.path(), Ssl).expect("reopen");
        let stored = reopened.book().events[event]
            .games
            .iter()
            .find(|g| g.round == game.round && g.board == game.board)
            .and_then(|g| g.result);
        assert_eq!(stored, Some(flipped), "the edit is there");
        let fresh = Ledger::build(&Ssl, reopened.book());
        assert_eq!(reopened.ledger().units(), fresh.units());
        assert!(reopened.check().is_empty());
        drop(reopened);
        // And stored: opened again, the results are read, not rated.
        let again = Desk::open(dir.path(), Ssl).expect("reopen");
        let last = again.audit().last().map_or(0, |a| a.seq);
        assert_eq!(again.store.load::<Ssl>().expect("load").rated_seq, last);
        assert_eq!(again.ledger().units(), fresh.units());
    }

    /// A database in `dir` holding a generated Finnish year of 60 players (`seed`), imported.
    fn a_year_imported(dir: &Path, seed: u64) -> Desk<Ssl> {
        let (book, parts) = generate(&Params {
            players: 60,
            years: 1,
            last_year: 2025,
            seed,
            opens_per_year: Some(3),
        });
        let mut desk = Desk::open(dir, Ssl).expect("open");
        desk.import_in_parts(book, &parts).expect("import");
        desk
    }

    /// An open database whose results on disk drifted from those it holds (here: one unit
    /// dropped from the disk behind its back) is caught by `check` run there; a database just
    /// opened is not read twice.
    #[test]
    fn check_on_an_open_database_compares_the_results_on_disk_with_those_held() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut desk = a_year_imported(dir.path(), 3);
        assert!(desk.check_stored().expect("read").is_empty());
        let reopened = {
            drop(desk);
            Desk::open(dir.path(), Ssl).expect("reopen")
        };
        assert!(!reopened.changed, "just opened: nothing to compare");
        let mut desk = reopened;
        let (event, game) = desk
            .book()
            .events
            .iter()
            .enumerate()
            .find_map(|(e, ev)| {
                ev.games
                    .iter()
                    .find(|g| g.black().is_some())
                    .map(|g| (e, g.clone()))
            })
            .expect("a game");
        flip(&mut desk, event, &game);
        assert!(desk.check_stored().expect("read").is_empty());
        let mut units = desk.ledger.units().clone();
        let dropped = units.keys().next().cloned().expect("a unit");
        units.remove(&dropped);
        let seq = desk.audit().last().map_or(0, |a| a.seq);
        desk.store.replace_results(&units, seq).expect("drift");
        let found = desk.check_stored().expect("read");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("differ from those the open database holds"));
    }

    /// `check` lists a stored unit that a fresh calculation does not give (rated beside the
    /// log's replay, on another core) and nothing else: the chain still holds.
    #[test]
    fn check_lists_a_stored_unit_that_differs_from_a_fresh_calculation() {
        let dir = tempfile::tempdir().expect("tempdir");
        let desk = a_year_imported(dir.path(), 5);
        let mut units = desk.ledger.units().clone();
        let dropped = units.keys().next().cloned().expect("a unit");
        units.remove(&dropped);
        let seq = desk.audit().last().map_or(0, |a| a.seq);
        desk.store.replace_results(&units, seq).expect("drift");
        drop(desk);
        let mut desk = Desk::open(dir.path(), Ssl).expect("reopen");
        let checked = super::queries::check(&mut desk).expect("check");
        assert_eq!(checked.problems.len(), 1, "{:?}", checked.problems);
        assert!(
            checked.problems[0].starts_with(&format!("selo unit {}", dropped.0.date))
                && checked.problems[0].ends_with("stored results differ from a fresh calculation"),
            "{:?}",
            checked.problems
        );
        assert_eq!(checked.entries, desk.audit().len());
    }
}
