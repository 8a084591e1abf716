//! The federation's record on sled: players, events, games, derived rating results, the audit
//! log and `meta`, with secondary indexes (folded name, FIDE id, federation code). Hands out
//! domain types, never sled's.
//!
//! One process per database, by our own lock file. An edit and its audit entry are written in
//! one transaction; derived results follow; [`Store::flush`] makes both durable against a killed
//! process (sled's flush is not an fsync: see the rotating text backups in `backup`).

pub mod backup;
mod behind;
mod chunks;
mod codec;
mod entry_json;
pub mod fide;
mod front;
mod layout;
mod legacy;
pub mod lock;
mod manifest;
pub(crate) mod open;
pub mod records;
mod row_layout;
pub mod snapshot;
mod staged;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sled::Transactional;
use sled::transaction::{ConflictableTransactionError, TransactionError};

use crate::book::Book;
use crate::book::{Change, EventRecord, PlayerRecord, PlayerStatus, placeholder_event};
use crate::ledger::{UnitId, UnitResult, Units};
use crate::rules::Rulebook;
pub use behind::Ticket;
pub use front::{Beside, read_front};
pub use lock::{Holder, LockError, LockFile};
pub use open::{RestoreMarker, set_aside};
pub use records::{AuditEntry, AuditKind, AuditSummary, Link, Moved};

/// A disk that fills up, for the tests of debug builds where no small file system can be
/// mounted: with `RATEDESK_TEST_DISK_FULL_AFTER=N`, every flush after the first N fails as a
/// full disk would. Release builds have no such switch.
#[cfg(debug_assertions)]
mod fault {
    use std::sync::atomic::{AtomicU64, Ordering};

    pub fn disk_full_now() -> bool {
        static AFTER: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
        static FLUSHES: AtomicU64 = AtomicU64::new(0);
        let Some(after) = *AFTER.get_or_init(|| {
            std::env::var("RATEDESK_TEST_DISK_FULL_AFTER")
                .ok()
                .and_then(|v| v.parse().ok())
        }) else {
            return false;
        };
        FLUSHES.fetch_add(1, Ordering::Relaxed) >= after
    }

    /// A count read once from the environment (`None`: the switch is off).
    fn switch(name: &str, cell: &'static std::sync::OnceLock<Option<u64>>) -> Option<u64> {
        *cell.get_or_init(|| std::env::var(name).ok().and_then(|v| v.parse().ok()))
    }

    /// A disk that stops answering, as sled's flush does once a disk filled up under it: with
    /// `RATEDESK_TEST_FLUSH_HANGS_AFTER=N`, every flush after the first N never returns.
    pub fn flush_hangs_now() -> bool {
        static AFTER: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
        static FLUSHES: AtomicU64 = AtomicU64::new(0);
        switch("RATEDESK_TEST_FLUSH_HANGS_AFTER", &AFTER)
            .is_some_and(|after| FLUSHES.fetch_add(1, Ordering::Relaxed) >= after)
    }

    /// A commit torn by a full disk, as sled leaves one when the audit entry's write fails
    /// after the records were written: with `RATEDESK_TEST_TORN_COMMIT_AFTER=N`, every commit
    /// after the first N writes its players and events (an edit written in steps: half its
    /// records, its undo log before them) and then fails as a full disk would.
    pub fn torn_commit_now() -> bool {
        static AFTER: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
        static COMMITS: AtomicU64 = AtomicU64::new(0);
        switch("RATEDESK_TEST_TORN_COMMIT_AFTER", &AFTER)
            .is_some_and(|after| COMMITS.fetch_add(1, Ordering::Relaxed) >= after)
    }
}

/// `meta`'s key of the newest audit entry's hash.
const AUDIT_HEAD: &str = "audit_head";
/// The database's editors beside its owner ([`crate::model::Officer`]s, as JSON).
const OFFICERS: &str = "officers";

/// The schema this version writes: 7, units' rows stored with their performances and
/// rulebook's figures in columns too ([`row_layout`]); 6, units' rows stored in columns (a
/// version that cannot read them refuses the database); 5, the largest audit entries stored in
/// chunks ([`chunks`]); 4, large audit entries, rating moves and units' ratings
/// stored compressed ([`codec::pack`]), and no indexes of players on disk; 3: FIDE reference data in blocks of neighbouring ids (2: a record an id;
/// 1: games in a tree of their own, one record each). Earlier schemas are migrated when opened;
/// an older ratedesk refuses a database of a newer schema.
pub const SCHEMA_VERSION: u64 = 7;

/// The fewest players, and events, a core reads as a database opens: fewer are read on one.
const PLAYERS_A_CORE_AT_LEAST: usize = 4096;
const EVENTS_A_CORE_AT_LEAST: usize = 256;

/// How many of `slots` each of `threads` reads, at least `at_least`.
fn per_core(slots: usize, threads: usize, at_least: usize) -> usize {
    slots.div_ceil(threads.max(1)).max(at_least)
}

/// `slots` copies of `value`, or the reason there is no room for them (a highest id read from a
/// damaged tree can ask for more than any machine has: refused, not a crash).
fn slots_of<T: Clone>(slots: usize, value: T) -> Result<Vec<T>, std::collections::TryReserveError> {
    let mut all = Vec::new();
    all.try_reserve_exact(slots)?;
    all.resize(slots, value);
    Ok(all)
}

/// sled's page cache, as sled counts it: the bytes its pages take in its log. The pages it holds
/// take several times that in memory (at a million players, about 480 MB of pages held with 64
/// MB set: heaptrack), so it is kept small; the record's working set is held by the ledger and
/// the book, not read back through sled (sled's default is 1 GiB).
///
/// A page (a node of up to 16 records) larger than a quarter of sled's segment (128 KiB of
/// 512) is written to a file of its own under `blobs/`, and counted at the size of its pointer
/// in the log, so that thousands of them, read once, stay within the cache as sled counts it
/// (16 MB in 256 shards of 64 KB each). A leaf of units' results is such a page, and so was the
/// leaf holding a large import's audit entry before such entries were stored in chunks
/// ([`chunks`]): at a million players, with 16 MB set, a national phase of the bench held about
/// 110 MB of pages read at the opening, 113 MB for the leaf of the demo's import entry and
/// 210 MB of the results it wrote (`heaptrack`). Nor is a smaller page let go of at once: sled
/// takes note of the pages used 64 at a time in each of its 256 shards, so that some sixteen
/// thousand pages read or written stay held whatever their size (units' results stored in
/// chunks of 6 KiB were held no less).
const CACHE_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    Locked(#[from] LockError),
    #[error(
        "the database at {path} cannot be read ({detail}). Restore the latest backup with `ratedesk restore --force FILE`, which sets the damaged files aside (automatic backups are in {backups})"
    )]
    Corrupt {
        path: PathBuf,
        detail: String,
        backups: PathBuf,
    },
    #[error(
        "the database at {path} was written by a newer ratedesk (schema {found}, this version reads up to {SCHEMA_VERSION}); it was not modified"
    )]
    Newer { path: PathBuf, found: u64 },
    #[error(
        "the database at {path} keeps the '{found}' rulebook, chosen when it was created; it cannot be used as '{wanted}' and was not modified"
    )]
    WrongRules {
        path: PathBuf,
        found: String,
        wanted: String,
    },
    #[error(
        "no space left on the device holding {path}{detail}: free some space and try again (nothing acknowledged was lost)"
    )]
    NoSpace { path: PathBuf, detail: String },
    #[error(
        "a restore into {path} was interrupted ({detail}), so the database there is incomplete and was not opened. Run `ratedesk --db {path} restore --force FILE` again (the backup taken before it is in {backups})"
    )]
    Interrupted {
        path: PathBuf,
        detail: String,
        backups: PathBuf,
    },
    #[error(
        "there is no database at {path}; `ratedesk init --rules ssl|isl|tsf`, `ratedesk import …` or `ratedesk restore FILE` creates one (a mistyped --db?)"
    )]
    Missing { path: PathBuf },
    #[error("database error at {path}: {detail}")]
    Io { path: PathBuf, detail: String },
    #[error(
        "the disk holding {path} did not finish writing in {seconds:.0} s (full or failing?); the last edit may not be stored. Free some space, then open the database again: it is checked as it opens"
    )]
    Stuck { path: PathBuf, seconds: f64 },
}

/// What a failure of sled, the file system or the codec means for the database at `path`.
pub(crate) trait Cause {
    fn at(self, path: &Path) -> StoreError;
}

impl Cause for std::io::Error {
    fn at(self, path: &Path) -> StoreError {
        if self.kind() == std::io::ErrorKind::StorageFull {
            StoreError::NoSpace {
                path: path.to_path_buf(),
                detail: String::new(),
            }
        } else {
            StoreError::Io {
                path: path.to_path_buf(),
                detail: self.to_string(),
            }
        }
    }
}

impl Cause for sled::Error {
    fn at(self, path: &Path) -> StoreError {
        match self {
            sled::Error::Io(e) => e.at(path),
            sled::Error::Corruption { .. } => StoreError::Corrupt {
                path: path.to_path_buf(),
                detail: format!("sled found damage in its log: {self}"),
                backups: backup::backup_dir(path),
            },
            other => StoreError::Io {
                path: path.to_path_buf(),
                detail: other.to_string(),
            },
        }
    }
}

impl Cause for codec::CodecError {
    fn at(self, path: &Path) -> StoreError {
        StoreError::Io {
            path: path.to_path_buf(),
            detail: self.to_string(),
        }
    }
}

impl Cause for String {
    fn at(self, path: &Path) -> StoreError {
        StoreError::Io {
            path: path.to_path_buf(),
            detail: self,
        }
    }
}

impl Cause for TransactionError<String> {
    fn at(self, path: &Path) -> StoreError {
        match self {
            TransactionError::Storage(e) => e.at(path),
            TransactionError::Abort(message) => message.at(path),
        }
    }
}

/// Record counts, kept in `meta` (never `Db::len()`, a full scan).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub players: u64,
    pub events: u64,
    pub games: u64,
    pub audit: u64,
}

/// Everything stored, as the domain sees it.
pub struct Contents<R: Rulebook> {
    pub book: Book<R>,
    pub status: Vec<PlayerStatus>,
    pub units: Units<R>,
    pub audit: Vec<AuditSummary>,
    /// The audit entry the stored results follow from (0: none).
    pub rated_seq: u64,
}

/// A part of the stored results ([`Store::stored_results_part`]): the units stored under the
/// keys after the one asked from, through `through` (`None`: to the end), as they stood after
/// audit entry `rated_seq`.
pub struct ResultsPart<R: Rulebook> {
    pub rated_seq: u64,
    pub units: Units<R>,
    pub through: Option<Vec<u8>>,
}

pub struct Store {
    /// Flushes and results' writes asked for and not yet seen done (first, so that it stops
    /// before the rest).
    behind: behind::Behind,
    db: sled::Db,
    path: PathBuf,
    rules: String,
    players: sled::Tree,
    events: sled::Tree,
    /// Schema 1's games, one record each (empty since schema 2).
    games: sled::Tree,
    results: sled::Tree,
    /// Schema 1's stored results (empty since schema 2).
    old_results: sled::Tree,
    audit: sled::Tree,
    /// The chunks of the audit entries too large to store whole ([`chunks`]).
    audit_chunks: sled::Tree,
    audit_index: sled::Tree,
    meta: sled::Tree,
    /// FIDE's records of players not in the database (reference data from rating lists), in
    /// blocks of neighbouring ids ([`fide`]).
    fide: sled::Tree,
    /// The FIDE titles of the federation's own players (reference data: [`fide::FideTitle`]).
    fide_titles: sled::Tree,
    /// Rating moves of audited edits, by sequence number.
    audit_moves: sled::Tree,
    /// The blocks an unfinished FIDE list import replaced (empty value: it added the block).
    fide_undo: sled::Tree,
    /// The sequence number the next audit entry takes, once known.
    next_seq: std::sync::atomic::AtomicU64,
    /// Counts the starts and ends of results' writes (odd while one is under way), for a
    /// reader that compares the stored results with a record while edits go on.
    results_writes: Arc<std::sync::atomic::AtomicU64>,
    /// A commit failed: what sled holds may be half an edit ([`Store::failed`]).
    poisoned: std::sync::atomic::AtomicBool,
    /// The action of an edit that never finished, undone as the database opened.
    undone: Option<String>,
    // Fields drop in order: sled's handles above first (which stops its background writer),
    // then the manifest is settled, then the lock is let go.
    /// The manifest, held open once written; written a last time once sled has stopped.
    manifest: Arc<manifest::Settle>,
    /// Our lock on the folder (`None` for a restore's staging database, inside a locked one).
    _lock: Option<Arc<lock::LockFile>>,
    /// The private folder of a scratch store ([`Store::scratch`]), removed with it.
    _scratch: Option<tempfile::TempDir>,
}

impl Drop for Store {
    /// sled flushes whatever it holds when its last handle goes, and waits for ever on a disk
    /// that filled up under it. After a failed write the handles are left open instead, so the
    /// process ends as a killed one would, with every acknowledged edit on disk. (sled's own
    /// periodic flush may still have written part of the failed edit: the count check as the
    /// database opens and `check`'s replay of the audit log find it.) The handles stay open
    /// for the rest of the process, which cannot open this database again.
    fn drop(&mut self) {
        if !self.failed() {
            return;
        }
        std::mem::forget(self.db.clone());
        for tree in [
            &self.players,
            &self.events,
            &self.games,
            &self.results,
            &self.old_results,
            &self.audit,
            &self.audit_chunks,
            &self.audit_index,
            &self.meta,
            &self.fide,
            &self.fide_titles,
            &self.audit_moves,
            &self.fide_undo,
        ] {
            std::mem::forget(tree.clone());
        }
    }
}

/// A full disk met by a commit, said with what it means: the edit is not stored, and if the
/// disk kept part of it the next opening or `check` says so.
/// An audit entry's key, its encoding and its summary's, as a commit writes them.
type AuditWrite = ([u8; 8], Vec<u8>, Vec<u8>);

/// Why a commit was refused: its entry's number is taken.
fn already_stored(key: &[u8]) -> String {
    format!(
        "audit entry #{} is already stored",
        codec::id_of(key).unwrap_or(0)
    )
}

fn uncommitted(e: StoreError) -> StoreError {
    match e {
        StoreError::NoSpace { path, .. } => StoreError::NoSpace {
            path,
            detail: " while storing this edit, which is not stored (should the disk have kept part of it, the next opening or `ratedesk check` says so, and the newest backup restores it)".into(),
        },
        other => other,
    }
}

/// A counter of `meta` (0 when never set).
fn counter(meta: &sled::Tree, name: &str) -> Result<u64, sled::Error> {
    Ok(meta.get(name)?.and_then(|v| codec::id_of(&v)).unwrap_or(0))
}

/// The counts the manifest keeps.
fn counts(meta: &sled::Tree) -> Result<Counts, sled::Error> {
    Ok(Counts {
        players: counter(meta, "players")?,
        events: counter(meta, "events")?,
        games: counter(meta, "games")?,
        audit: counter(meta, "audit")?,
    })
}

/// Writes units' results in one batch, then the audit entry they follow from; `writes` is
/// odd while it does ([`Store::stored_results_part`]).
fn write_results<'a, R: Rulebook + 'a>(
    (results, meta, writes): (&sled::Tree, &sled::Tree, &std::sync::atomic::AtomicU64),
    units: impl IntoIterator<Item = (&'a UnitId, Option<&'a UnitResult<R>>)>,
    rated_seq: u64,
    path: &Path,
) -> Result<(), StoreError> {
    use std::sync::atomic::Ordering::SeqCst;
    writes.fetch_add(1, SeqCst);
    let written = write_results_now((results, meta), units, rated_seq, path);
    writes.fetch_add(1, SeqCst);
    written
}

fn write_results_now<'a, R: Rulebook + 'a>(
    (results, meta): (&sled::Tree, &sled::Tree),
    units: impl IntoIterator<Item = (&'a UnitId, Option<&'a UnitResult<R>>)>,
    rated_seq: u64,
    path: &Path,
) -> Result<(), StoreError> {
    let mut batch = sled::Batch::default();
    for (id, unit) in units {
        let k = codec::encode_key(id).map_err(|e| e.at(path))?;
        match unit {
            Some(u) => batch.insert(k, layout::encode_unit(u).map_err(|e| e.at(path))?),
            None => batch.remove(k),
        }
    }
    results.apply_batch(batch).map_err(|e| e.at(path))?;
    let mut stamp = sled::Batch::default();
    // Results rated before by other rules (or by a version without the stamp): the moves of
    // the entries up to this one were worked out by those rules.
    let had_results = meta
        .get(layout::RATED_SEQ)
        .map_err(|e| e.at(path))?
        .is_some();
    if had_results && !stamped(meta).map_err(|e| e.at(path))? {
        stamp.insert(layout::RULES_SINCE, &rated_seq.to_be_bytes());
    }
    stamp.insert(
        layout::RATED_BY,
        &crate::rules::RULES_REVISION.to_be_bytes(),
    );
    stamp.insert(layout::RATED_BY_SEQ, &rated_seq.to_be_bytes());
    stamp.insert(layout::RATED_SEQ, &rated_seq.to_be_bytes());
    meta.apply_batch(stamp).map_err(|e| e.at(path))?;
    Ok(())
}

/// Whether the stored results carry the stamp of these rules, written with them: the revision
/// of these rules, and the audit entry they follow from.
fn stamped(meta: &sled::Tree) -> Result<bool, sled::Error> {
    Ok(
        counter(meta, layout::RATED_BY)? == crate::rules::RULES_REVISION
            && meta.get(layout::RATED_BY_SEQ)? == meta.get(layout::RATED_SEQ)?,
    )
}

impl Store {
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn rules(&self) -> &str {
        &self.rules
    }

    fn fail(&self, e: impl Cause) -> StoreError {
        e.at(&self.path)
    }

    /// A record that does not read: damage.
    fn corrupt(&self, what: &str, e: &dyn std::fmt::Display) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            detail: format!("{what}: {e}"),
            backups: backup::backup_dir(&self.path),
        }
    }

    fn counter(&self, name: &str) -> Result<u64, StoreError> {
        counter(&self.meta, name).map_err(|e| self.fail(e))
    }

    pub fn counts(&self) -> Result<Counts, StoreError> {
        counts(&self.meta).map_err(|e| self.fail(e))
    }

    /// Durable against a killed process (not against power loss). Waits for what was asked
    /// behind the screen first (flushes and results; fails if one of them did). Never waits
    /// for ever: a flush that does not end by the deadline is a failure.
    pub fn flush(&self) -> Result<(), StoreError> {
        let ticket = self.flush_behind()?;
        self.settle_to(ticket)
    }

    /// The action of an edit written in steps that never finished (a killed process, a full
    /// disk), undone as the database opened: nothing of it is kept.
    pub fn undone(&self) -> Option<&str> {
        self.undone.as_deref()
    }

    /// Whether a write failed or ran past its deadline since the store opened: what sled holds
    /// may then be half an edit, which it must not be left to flush as it closes.
    pub fn failed(&self) -> bool {
        self.poisoned.load(std::sync::atomic::Ordering::SeqCst) || self.behind.failed()
    }

    /// Asks for a flush and returns without waiting for it, with the ticket to settle to:
    /// whatever shows the edits written so far as stored calls [`Store::settle_to`] first.
    pub fn flush_behind(&self) -> Result<Ticket, StoreError> {
        self.behind.ask(self.flush_job())
    }

    /// Waits for everything asked behind the screen (flushes and results); the failure of any
    /// of it (on every later call too).
    pub fn settle(&self) -> Result<(), StoreError> {
        self.behind.settle()
    }

    /// Waits for what was asked behind the screen up to `ticket`; the failure of any of it seen
    /// (on every later call too).
    pub fn settle_to(&self, ticket: Ticket) -> Result<(), StoreError> {
        self.behind.settle_to(ticket)
    }

    /// A flush of everything written so far, and the manifest's counts after it.
    fn flush_job(&self) -> behind::Job {
        let (db, meta) = (self.db.clone(), self.meta.clone());
        let (manifest, path) = (self.manifest.clone(), self.path.clone());
        Box::new(move || {
            #[cfg(debug_assertions)]
            if fault::disk_full_now() {
                return Err(std::io::Error::from(std::io::ErrorKind::StorageFull).at(&path));
            }
            #[cfg(debug_assertions)]
            if fault::flush_hangs_now() {
                loop {
                    std::thread::park();
                }
            }
            db.flush().map_err(|e| e.at(&path))?;
            let counts = counts(&meta).map_err(|e| e.at(&path))?;
            manifest.write(counts).map_err(|e| e.at(&path))
        })
    }

    /// Reads everything.
    pub fn load<R: Rulebook>(&self) -> Result<Contents<R>, StoreError> {
        // The results are read beside the rest, on another core when there is one.
        let (loaded, units) = std::thread::scope(|s| {
            let units = s.spawn(|| self.load_results::<R>());
            let loaded = self.load_records::<R>();
            (loaded, units.join())
        });
        let (book, status, read) = loaded?;
        let units = match units {
            Ok(units) => units?,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        let audit = self.audit_summaries()?;
        self.check_counts(&book, read, &audit)?;
        Ok(Contents {
            book,
            status,
            units,
            audit,
            // Results rated by other rules than these are no answer of theirs: rated again.
            rated_seq: if stamped(&self.meta).map_err(|e| self.fail(e))? {
                self.counter(layout::RATED_SEQ)?
            } else {
                u64::MAX
            },
        })
    }

    /// The counters every commit writes with its records, against the records read: a commit
    /// cut short by a full disk or a failing one can leave records written without their audit
    /// entry and counters (sled keeps what it wrote of a failed transaction). Such a database
    /// is refused, never worked on.
    fn check_counts<R: Rulebook>(
        &self,
        book: &Book<R>,
        read: Counts,
        audit: &[AuditSummary],
    ) -> Result<(), StoreError> {
        let counted = self.counts()?;
        let found = Counts {
            players: read.players,
            events: read.events,
            games: book.events.iter().map(|e| e.games.len() as u64).sum(),
            audit: audit.len() as u64,
        };
        if found == counted {
            return Ok(());
        }
        let differ = [
            ("players", found.players, counted.players),
            ("events", found.events, counted.events),
            ("games", found.games, counted.games),
            ("audit entries", found.audit, counted.audit),
        ]
        .into_iter()
        .filter(|(_, f, c)| f != c)
        .map(|(what, f, c)| format!("{f} {what} where its last complete edit left {c}"))
        .collect::<Vec<_>>()
        .join(", ");
        Err(self.corrupt(
            "an edit was written only in part (a full or failing disk?)",
            &format!("it holds {differ}, with no audit entry for the difference"),
        ))
    }

    /// The stored results of every unit.
    /// The rating results as stored (what `check` compares with those held in memory).
    pub fn stored_results<R: Rulebook>(&self) -> Result<Units<R>, StoreError> {
        self.load_results()
    }

    /// Up to `max` stored results after the key `after` (from the first: `None`), read while
    /// no results were written (`None`: a write began or ended meanwhile; ask again), with
    /// the audit entry they follow from. For a reader of the database beside the process that
    /// edits it, a part at a time: a part is read in a moment, between two edits.
    pub fn stored_results_part<R: Rulebook>(
        &self,
        after: Option<&[u8]>,
        max: usize,
    ) -> Result<Option<ResultsPart<R>>, StoreError> {
        use std::ops::Bound::{Excluded, Unbounded};
        use std::sync::atomic::Ordering::SeqCst;
        let before = self.results_writes.load(SeqCst);
        if before % 2 == 1 {
            return Ok(None);
        }
        let rated_seq = self.counter(layout::RATED_SEQ)?;
        let bad = |what: &str, e: &dyn std::fmt::Display| self.corrupt(what, e);
        let from = after.map_or(Unbounded, |k| Excluded(k.to_vec()));
        let mut units = Units::new();
        let mut last = None;
        for item in self.results.range((from, Unbounded)).take(max) {
            let (k, v) = item.map_err(|e| self.fail(e))?;
            let id: UnitId = codec::decode(&k).map_err(|e| bad("result key", &e))?;
            let unit: UnitResult<R> =
                layout::decode_unit(&v).map_err(|e| bad("result record", &e))?;
            units.insert(id, Arc::new(unit));
            last = Some(k.to_vec());
        }
        if self.results_writes.load(SeqCst) != before {
            return Ok(None);
        }
        let through = if units.len() < max { None } else { last };
        Ok(Some(ResultsPart {
            rated_seq,
            units,
            through,
        }))
    }

    /// The key a unit's results are stored under (the order of [`Store::stored_results_part`]).
    pub fn result_key(&self, id: &UnitId) -> Result<Vec<u8>, StoreError> {
        codec::encode_key(id).map_err(|e| e.at(&self.path))
    }

    fn load_results<R: Rulebook>(&self) -> Result<Units<R>, StoreError> {
        let bad = |what: &str, e: &dyn std::fmt::Display| self.corrupt(what, e);
        let mut units = Vec::new();
        for item in self.results.iter() {
            let (k, v) = item.map_err(|e| self.fail(e))?;
            let id: UnitId = codec::decode(&k).map_err(|e| bad("result key", &e))?;
            let unit: UnitResult<R> =
                layout::decode_unit(&v).map_err(|e| bad("result record", &e))?;
            units.push((id, Arc::new(unit)));
        }
        // Keys are encoded so that byte order is not ledger order: sorted here, once.
        Ok(units.into_iter().collect())
    }

    /// The players into `book` and their statuses into `status`, each in the slot of his id (an
    /// id without a record is a removed player's: deleted), and how many records were read.
    /// The slots are made once, for the highest id, and filled on every core ([`in_ranges`]):
    /// reading the tree a record at a time on one core was most of a million players' open.
    fn load_players<R: Rulebook>(
        &self,
        book: &mut Book<R>,
        status: &mut Vec<PlayerStatus>,
    ) -> Result<u64, StoreError> {
        self.load_players_on(book, status, crate::cores::threads())
    }

    /// [`Store::load_players`] on `threads` threads.
    fn load_players_on<R: Rulebook>(
        &self,
        book: &mut Book<R>,
        status: &mut Vec<PlayerStatus>,
        threads: usize,
    ) -> Result<u64, StoreError> {
        let Some(slots) = self.slots(&self.players, "player key")? else {
            return Ok(0);
        };
        let room = |e| self.corrupt("player key", &format!("{slots} players: {e}"));
        book.players = slots_of(slots, crate::model::PlayerInfo::default()).map_err(room)?;
        book.seeds = slots_of(slots, Vec::new()).map_err(room)?;
        book.held = slots_of(slots, Vec::new()).map_err(room)?;
        book.confirmed = slots_of(slots, Vec::new()).map_err(room)?;
        *status = slots_of(slots, PlayerStatus::Deleted).map_err(room)?;
        let per = per_core(slots, threads, PLAYERS_A_CORE_AT_LEAST);
        let parts = book
            .players
            .chunks_mut(per)
            .zip(book.seeds.chunks_mut(per))
            .zip(book.held.chunks_mut(per))
            .zip(book.confirmed.chunks_mut(per))
            .zip(status.chunks_mut(per));
        let tree = (&self.players, "player key");
        self.in_ranges(tree, (slots, per), parts, |part, (at, _), bytes| {
            let ((((players, seeds), held), confirmed), status) = part;
            let rec: PlayerRecord<R> =
                legacy::player_record(bytes).map_err(|e| self.corrupt("player record", &e))?;
            players[at] = rec.info;
            seeds[at] = rec.seeds;
            held[at] = rec.held;
            confirmed[at] = rec.confirmed;
            status[at] = rec.status;
            Ok(())
        })
    }

    /// The events into `book` (their players among those it holds), each in the slot of its id
    /// (an id without a record: a placeholder, not live), and how many were read; on every core
    /// as the players are ([`in_ranges`]), each record decoded where it is read.
    fn load_events<R: Rulebook>(&self, book: &mut Book<R>) -> Result<u64, StoreError> {
        self.load_events_on(book, crate::cores::threads())
    }

    /// [`Store::load_events`] on `threads` threads.
    fn load_events_on<R: Rulebook>(
        &self,
        book: &mut Book<R>,
        threads: usize,
    ) -> Result<u64, StoreError> {
        let players = book.players.len();
        let Some(slots) = self.slots(&self.events, "event key")? else {
            return Ok(0);
        };
        let room = |e| self.corrupt("event key", &format!("{slots} events: {e}"));
        book.events = slots_of(slots, placeholder_event()).map_err(room)?;
        book.live = slots_of(slots, false).map_err(room)?;
        let per = per_core(slots, threads, EVENTS_A_CORE_AT_LEAST);
        let parts = book.events.chunks_mut(per).zip(book.live.chunks_mut(per));
        let tree = (&self.events, "event key");
        self.in_ranges(
            tree,
            (slots, per),
            parts,
            |(events, live), (at, id), bytes| {
                let rec: EventRecord = legacy::event_record(bytes)
                    .map_err(|e| self.corrupt(&format!("event record {id}"), &e))?;
                if let Some(g) = rec
                    .event
                    .games
                    .iter()
                    .find(|g| g.white() >= players || g.black().is_some_and(|b| b >= players))
                {
                    return Err(self.corrupt(
                        "event record",
                        &format!("event {id}, round {}: unknown player", g.round),
                    ));
                }
                events[at] = rec.event;
                live[at] = rec.live;
                Ok(())
            },
        )
    }

    /// The id a key of a tree keyed by ids is (`what`: the key's kind, for the message). Every
    /// such key is an id of 8 bytes: a shorter one is no id, and a longer one would share its
    /// id's slot with another record.
    fn id_key(&self, key: &[u8], what: &str) -> Result<u64, StoreError> {
        codec::id_of(key)
            .filter(|_| key.len() == 8)
            .ok_or_else(|| self.corrupt(what, &format!("a key of {} bytes", key.len())))
    }

    /// The slots a tree keyed by ids needs: one past its highest id (`None`: it is empty).
    fn slots(&self, tree: &sled::Tree, what: &str) -> Result<Option<usize>, StoreError> {
        let Some((last, _)) = tree.last().map_err(|e| self.fail(e))? else {
            return Ok(None);
        };
        let id = self.id_key(&last, what)?;
        usize::try_from(id)
            .ok()
            .and_then(|id| id.checked_add(1))
            .map(Some)
            .ok_or_else(|| self.corrupt(what, &format!("id {id} out of range")))
    }

    /// Reads a tree keyed by ids on every core: the `i`th of `parts` (slots `i × per` on, as
    /// many as it holds) is handed each record of its range of ids with the record's place in
    /// it and its id, on a thread of its own. The first range is open below and the last
    /// above, so that every key, a malformed one too, is read by exactly one range and refused
    /// there (as `what`). The records read are counted; the first range's failure is the one
    /// returned.
    fn in_ranges<P: Send>(
        &self,
        (tree, what): (&sled::Tree, &str),
        (slots, per): (usize, usize),
        parts: impl Iterator<Item = P>,
        read: impl Fn(&mut P, (usize, u64), &[u8]) -> Result<(), StoreError> + Sync,
    ) -> Result<u64, StoreError> {
        use std::ops::Bound;
        let parts: Vec<P> = parts.collect();
        let count = parts.len();
        let read = &read;
        let results: Vec<Result<u64, StoreError>> = std::thread::scope(|s| {
            let threads: Vec<_> = parts
                .into_iter()
                .enumerate()
                .map(|(i, mut part)| {
                    s.spawn(move || -> Result<u64, StoreError> {
                        let start = i * per;
                        let len = per.min(slots - start);
                        let (lo, hi) = (
                            (start as u64).to_be_bytes(),
                            ((start + len) as u64).to_be_bytes(),
                        );
                        let lo = if i == 0 {
                            Bound::Unbounded
                        } else {
                            Bound::Included(&lo[..])
                        };
                        let hi = if i + 1 == count {
                            Bound::Unbounded
                        } else {
                            Bound::Excluded(&hi[..])
                        };
                        let mut records = 0;
                        for item in tree.range::<&[u8], _>((lo, hi)) {
                            let (k, v) = item.map_err(|e| self.fail(e))?;
                            records += 1;
                            let id = self.id_key(&k, what)?;
                            let at = usize::try_from(id)
                                .ok()
                                .and_then(|id| id.checked_sub(start))
                                .filter(|&at| at < len)
                                .ok_or_else(|| {
                                    self.corrupt(what, &format!("id {id} out of order"))
                                })?;
                            read(&mut part, (at, id), &v)?;
                        }
                        Ok(records)
                    })
                })
                .collect();
            threads
                .into_iter()
                .map(|t| {
                    t.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        });
        results.into_iter().sum()
    }

    /// The players (with their statuses) and the events, with how many records of each were
    /// read.
    fn load_records<R: Rulebook>(
        &self,
    ) -> Result<(Book<R>, Vec<PlayerStatus>, Counts), StoreError> {
        // Keys are big-endian ids: each record has the slot of its id, without a change to
        // apply.
        let mut book = Book::<R>::default();
        let mut status = Vec::new();
        let players = self.load_players(&mut book, &mut status)?;
        let events = self.load_events(&mut book)?;
        let read = Counts {
            players,
            events,
            ..Counts::default()
        };
        Ok((book, status, read))
    }

    /// The audit log without its records, oldest first.
    pub fn audit_summaries(&self) -> Result<Vec<AuditSummary>, StoreError> {
        self.audit_index
            .iter()
            .map(|item| {
                let (_, v) = item.map_err(|e| self.fail(e))?;
                codec::decode(&v).map_err(|e| StoreError::Corrupt {
                    path: self.path.clone(),
                    detail: format!("audit index: {e}"),
                    backups: backup::backup_dir(&self.path),
                })
            })
            .collect()
    }

    /// One audit entry with its records.
    pub fn audit_entry<R: Rulebook>(&self, seq: u64) -> Result<Option<AuditEntry<R>>, StoreError> {
        let key = codec::key(seq);
        let Some(v) = self.audit.get(key).map_err(|e| self.fail(e))? else {
            return Ok(None);
        };
        legacy::audit_entry::<R>(&self.audit_bytes(&key, &v)?)
            .map(Some)
            .map_err(|e| StoreError::Corrupt {
                path: self.path.clone(),
                detail: format!("audit entry {seq}: {e}"),
                backups: backup::backup_dir(&self.path),
            })
    }

    /// Drops the indexes of players by name, FIDE id and code that schemas before 4 kept on
    /// disk (imports find players in the book: [`crate::app::import`]'s matcher), whenever one
    /// is still there: an opening that migrated the database may have stopped before.
    pub(super) fn drop_legacy_indexes(&self) -> Result<(), StoreError> {
        let names = self.db.tree_names();
        for index in staged::LEGACY_INDEXES {
            if names.iter().any(|n| &n[..] == index.as_bytes()) {
                self.db.drop_tree(index).map_err(|e| self.fail(e))?;
            }
        }
        Ok(())
    }

    /// Schema 4: the audit entries larger than [`codec::PACK_ABOVE`] stored compressed, as
    /// this version writes them (and the indexes earlier schemas kept dropped, by
    /// [`Store::drop_legacy_indexes`]). The schema is raised first, so that a version that
    /// cannot read a compressed entry, or keeps the indexes, refuses the database instead of
    /// meeting it; an opening cut short leaves the rest of the entries stored as they were,
    /// which read as well.
    pub(super) fn migrate_to_4(&self) -> Result<(), StoreError> {
        self.meta
            .insert("schema", &4u64.to_be_bytes())
            .map_err(|e| self.fail(e))?;
        self.flush()?;
        for item in self.audit.iter() {
            let (key, stored) = item.map_err(|e| self.fail(e))?;
            if stored.len() <= codec::PACK_ABOVE || codec::is_packed(&stored) {
                continue;
            }
            let packed = codec::pack(stored.to_vec()).map_err(|e| self.fail(e))?;
            self.audit.insert(key, packed).map_err(|e| self.fail(e))?;
        }
        self.flush()
    }

    /// The whole audit log with its records, oldest first.
    pub fn audit_entries<R: Rulebook>(&self) -> Result<Vec<AuditEntry<R>>, StoreError> {
        self.audit_iter().collect()
    }

    /// Overwrites an audit entry's stored bytes with bytes that do not read (tests: an entry
    /// damaged on disk).
    #[cfg(test)]
    pub(crate) fn damage_audit_entry(&self, seq: u64) {
        self.audit
            .insert(codec::key(seq), &b"damaged"[..])
            .expect("written");
    }

    /// The audit log up to entry `last` (all of it: `None`), oldest first, an entry at a time
    /// as it is read (an import of a whole federation is one entry: a log of ten such is never
    /// held decoded at once).
    pub fn audit_iter_upto<R: Rulebook>(
        &self,
        last: Option<u64>,
    ) -> impl Iterator<Item = Result<AuditEntry<R>, StoreError>> + '_ {
        let upto = last.map_or(std::ops::Bound::Unbounded, |seq| {
            std::ops::Bound::Included(codec::key(seq))
        });
        self.audit_range((std::ops::Bound::Unbounded, upto))
    }

    /// The audit log oldest first, an entry at a time as it is read.
    pub fn audit_iter<R: Rulebook>(
        &self,
    ) -> impl Iterator<Item = Result<AuditEntry<R>, StoreError>> + '_ {
        self.audit_range::<R, [u8; 8]>(..)
    }

    /// The entries whose keys are in `range`, oldest first, an entry at a time.
    fn audit_range<R: Rulebook, K: AsRef<[u8]>>(
        &self,
        range: impl std::ops::RangeBounds<K>,
    ) -> impl Iterator<Item = Result<AuditEntry<R>, StoreError>> + '_ {
        self.audit.range(range).map(|item| {
            let (k, v) = item.map_err(|e| self.fail(e))?;
            legacy::audit_entry::<R>(&self.audit_bytes(&k, &v)?).map_err(|e| StoreError::Corrupt {
                path: self.path.clone(),
                detail: format!("audit entry: {e}"),
                backups: backup::backup_dir(&self.path),
            })
        })
    }

    /// The sequence number the next audit entry takes: one past the newest stored, so that an
    /// entry stored by an edit whose later steps failed is never overwritten.
    pub fn next_seq(&self) -> Result<u64, StoreError> {
        use std::sync::atomic::Ordering;
        let known = self.next_seq.load(Ordering::Relaxed);
        if known > 0 {
            return Ok(known);
        }
        let last = self.audit.last().map_err(|e| self.fail(e))?;
        let next = last
            .and_then(|(k, _)| codec::id_of(&k))
            .map_or(1, |s| s + 1);
        self.next_seq.store(next, Ordering::Relaxed);
        Ok(next)
    }

    /// Writes an edit's records and its audit entry in one transaction, with the indexes and
    /// record counts. Not yet flushed.
    pub fn commit<R: Rulebook>(&self, entry: &AuditEntry<R>) -> Result<(), StoreError> {
        self.commit_all(&mut [entry.clone()], &[])
    }

    /// The hash of the newest audit entry as stored when it was written (`None`: none kept).
    pub fn stored_head(&self) -> Result<Option<Link>, StoreError> {
        Ok(self
            .meta
            .get(AUDIT_HEAD)
            .map_err(|e| self.fail(e))?
            .and_then(|v| <[u8; 32]>::try_from(&v[..]).ok())
            .map(Link))
    }

    /// Who may edit the database beside its owner.
    pub fn officers(&self) -> Result<Vec<crate::model::Officer>, StoreError> {
        match self.meta.get(OFFICERS).map_err(|e| self.fail(e))? {
            Some(v) => serde_json::from_slice(&v).map_err(|e| StoreError::Corrupt {
                path: self.path.clone(),
                detail: format!("the list of officers: {e}"),
                backups: backup::backup_dir(&self.path),
            }),
            None => Ok(Vec::new()),
        }
    }

    /// A restored database's editors (not an edit: the backup's own list).
    pub fn restore_officers(&self, officers: &[crate::model::Officer]) -> Result<(), StoreError> {
        if officers.is_empty() {
            return Ok(());
        }
        let value = serde_json::to_vec(officers).map_err(|e| self.fail(e.to_string()))?;
        self.meta
            .insert(OFFICERS, value)
            .map_err(|e| self.fail(e))?;
        Ok(())
    }

    /// A scratch store's audit chain continues from `head` (the newest entry of the database
    /// it is a copy of, whose entries it does not hold).
    pub fn continue_chain(&self, head: Option<Link>) -> Result<(), StoreError> {
        if let Some(head) = head {
            self.meta
                .insert(AUDIT_HEAD, &head.0)
                .map_err(|e| self.fail(e))?;
        }
        Ok(())
    }

    /// The link the next audit entry carries: the hash of the newest entry.
    pub fn audit_head<R: Rulebook>(&self) -> Result<Option<Link>, StoreError> {
        if let Some(head) = self.stored_head()? {
            return Ok(Some(head));
        }
        // A database from before the chain: the chain starts at its newest entry.
        let last = self.audit.last().map_err(|e| self.fail(e))?;
        match last.and_then(|(k, _)| codec::id_of(&k)) {
            Some(seq) => Ok(self.audit_entry::<R>(seq)?.map(|e| e.hash())),
            None => Ok(None),
        }
    }

    /// Rating moves an audited edit made, kept beside the audit log for `log`.
    pub fn save_moves(&self, seq: u64, moves: &[Moved]) -> Result<(), StoreError> {
        if moves.is_empty() {
            return Ok(());
        }
        let value = codec::encode_packed(&moves).map_err(|e| self.fail(e))?;
        self.audit_moves
            .insert(codec::key(seq), value)
            .map_err(|e| self.fail(e))?;
        Ok(())
    }

    /// The newest audit entry whose rating moves were worked out by earlier rules than these
    /// (the results were rated again after it), if any.
    pub fn rules_since(&self) -> Result<Option<u64>, StoreError> {
        Ok(self
            .meta
            .get(layout::RULES_SINCE)
            .map_err(|e| self.fail(e))?
            .and_then(|v| codec::id_of(&v)))
    }

    /// The rating moves shown beside one audit entry, if it has any.
    pub fn moves_of(&self, seq: u64) -> Result<Option<Vec<Moved>>, StoreError> {
        let Some(v) = self
            .audit_moves
            .get(codec::key(seq))
            .map_err(|e| self.fail(e))?
        else {
            return Ok(None);
        };
        codec::unpack(&v)
            .and_then(|v| codec::decode(&v))
            .map(Some)
            .map_err(|e| self.corrupt("rating moves", &e))
    }

    /// Writes several edits with their audit entries — and removes the `meta` keys in `done`
    /// (a journal's marker) — in one transaction: all of them or none. Not yet flushed.
    ///
    /// Each entry is linked to the one before it here (its `prev` set), so the chain is the
    /// store's and no caller can leave a gap in it.
    pub fn commit_all<R: Rulebook>(
        &self,
        entries: &mut [AuditEntry<R>],
        done: &[&str],
    ) -> Result<(), StoreError> {
        self.commit_with(entries, done, None)
    }

    /// [`Store::commit_all`], the database's editors set to `officers` in the same transaction.
    pub fn commit_with<R: Rulebook>(
        &self,
        entries: &mut [AuditEntry<R>],
        done: &[&str],
        officers: Option<&[crate::model::Officer]>,
    ) -> Result<(), StoreError> {
        let newest = entries.iter().map(|e| e.seq).max();
        self.next_seq.store(0, std::sync::atomic::Ordering::Relaxed);
        let mut head = self.audit_head::<R>()?;
        for entry in entries.iter_mut() {
            entry.prev = head;
            head = Some(entry.hash());
        }
        let mut counts = self.counts()?;
        let mut audit = Vec::with_capacity(entries.len());
        for entry in entries.iter() {
            let players = &entry.change.players;
            counts.players += players.iter().filter(|d| d.before.is_none()).count() as u64;
            counts.players = counts
                .players
                .saturating_sub(players.iter().filter(|d| d.after.is_none()).count() as u64);
            counts.events = (counts.events
                + entry
                    .change
                    .events
                    .iter()
                    .filter(|d| d.after.is_some())
                    .count() as u64)
                .saturating_sub(
                    entry
                        .change
                        .events
                        .iter()
                        .filter(|d| d.before.is_some())
                        .count() as u64,
                );
            counts.audit += 1;
            audit.push((
                codec::key(entry.seq),
                codec::encode_packed(entry).map_err(|e| self.fail(e))?,
                codec::encode(&entry.summary()).map_err(|e| self.fail(e))?,
            ));
        }
        // Every event an edit touches is written whole, with its games.
        let changes: Vec<&Change<R>> = entries.iter().map(|e| &e.change).collect();
        let (records, games_added) = self.event_writes(&changes)?;
        counts.games = counts.games.saturating_add_signed(games_added);
        let mut meta = sled::Batch::default();
        meta.insert("players", &counts.players.to_be_bytes());
        meta.insert("events", &counts.events.to_be_bytes());
        meta.insert("games", &counts.games.to_be_bytes());
        meta.insert("audit", &counts.audit.to_be_bytes());
        for key in done {
            meta.remove(*key);
        }
        if let Some(officers) = officers {
            meta.insert(
                OFFICERS,
                serde_json::to_vec(officers).map_err(|e| self.fail(e.to_string()))?,
            );
        }
        if let Some(head) = head {
            meta.insert(AUDIT_HEAD, &head.0);
        }
        let writes = || staged::writes(entries, &records);
        let count = writes().count();
        let result = self.audit_values(&mut audit).and_then(|()| {
            if count > staged::stage_above() {
                let action = entries
                    .iter()
                    .map(|e| e.action.as_str())
                    .collect::<Vec<_>>()
                    .join("; ");
                meta.remove(staged::UNDO);
                meta.insert("schema", &SCHEMA_VERSION.to_be_bytes());
                self.commit_staged(writes, count, &audit, &meta, &action)
            } else {
                self.commit_at_once(writes(), &audit, &meta)
            }
        });
        if let Err(e) = result {
            // Nothing can be said of what sled wrote of a failed commit: the opening checks.
            self.poisoned
                .store(true, std::sync::atomic::Ordering::SeqCst);
            return Err(uncommitted(e));
        }
        // One past the newest entry stored (on a failure, found again from the store).
        if let Some(last) = newest {
            self.next_seq
                .fetch_max(last + 1, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(())
    }

    /// A copy's store ([`Store::scratch`]) keeps the audit entries the holder committed, chained
    /// on from the head it holds (`prev` set as the holder's chain would have it), without the
    /// records: the copy holds those in memory only. Not flushed.
    pub fn keep_entries<R: Rulebook>(
        &self,
        entries: &mut [AuditEntry<R>],
    ) -> Result<(), StoreError> {
        let mut head = self.audit_head::<R>()?;
        let (mut audit, mut index) = (sled::Batch::default(), sled::Batch::default());
        for entry in entries.iter_mut() {
            entry.prev = head;
            head = Some(entry.hash());
            let key = codec::key(entry.seq);
            let stored = codec::encode_packed(&*entry).map_err(|e| self.fail(e))?;
            audit.insert(&key, self.new_audit_value(&key, stored)?);
            index.insert(
                &key,
                codec::encode(&entry.summary()).map_err(|e| self.fail(e))?,
            );
        }
        self.audit.apply_batch(audit).map_err(|e| self.fail(e))?;
        self.audit_index
            .apply_batch(index)
            .map_err(|e| self.fail(e))?;
        self.continue_chain(head)
    }

    /// What the audit tree stores for `audit`'s entries ([`Store::new_audit_value`]): the large
    /// ones stored in chunks ([`chunks`]), a marker left in their place, and chunks a failed
    /// edit left under their numbers removed.
    fn audit_values(&self, audit: &mut [AuditWrite]) -> Result<(), StoreError> {
        for (key, stored, _) in audit.iter_mut() {
            *stored = self.new_audit_value(key, std::mem::take(stored))?;
        }
        Ok(())
    }

    /// An edit's records, audit entries and `meta` in one transaction.
    fn commit_at_once<'a, R: Rulebook + 'a>(
        &self,
        writes: impl Iterator<Item = staged::Write<'a, R>>,
        audit: &[AuditWrite],
        meta: &sled::Batch,
    ) -> Result<(), StoreError> {
        let [players, events] = self.batches(writes)?;
        #[cfg(debug_assertions)]
        if fault::torn_commit_now() {
            let _ = self.players.apply_batch(players);
            let _ = self.events.apply_batch(events);
            return Err(self.fail(std::io::Error::from(std::io::ErrorKind::StorageFull)));
        }
        let trees = (
            &self.players,
            &self.events,
            &self.audit,
            &self.meta,
            &self.audit_index,
        );
        trees
            .transaction(|(tp, te, ta, tm, ti)| {
                Self::audit_not_stored(ta, audit)?;
                tp.apply_batch(&players)?;
                te.apply_batch(&events)?;
                for (key, entry, summary) in audit {
                    ta.insert(key, entry.as_slice())?;
                    ti.insert(key, summary.as_slice())?;
                }
                tm.apply_batch(meta)?;
                Ok(())
            })
            .map_err(|e: TransactionError<String>| self.fail(e))
    }

    /// An edit too large for one transaction ([`staged`]): its undo log, its records a step at
    /// a time, then its audit entries and `meta` (the undo log removed) in one transaction.
    fn commit_staged<'a, R: Rulebook + 'a, I: Iterator<Item = staged::Write<'a, R>>>(
        &self,
        writes: impl Fn() -> I,
        count: usize,
        audit: &[AuditWrite],
        meta: &sled::Batch,
        action: &str,
    ) -> Result<(), StoreError> {
        for (key, _, _) in audit {
            if self.audit.get(key).map_err(|e| self.fail(e))?.is_some() {
                return Err(self.fail(TransactionError::Abort(already_stored(key))));
            }
        }
        self.store_undo(writes().map(|(tree, key, _)| (tree, key)), count, action)?;
        // A disk that fills up half way through the records.
        #[cfg(debug_assertions)]
        let stop_after = fault::torn_commit_now().then_some(count / 2);
        #[cfg(not(debug_assertions))]
        let stop_after = None;
        let encoded = writes().map(|(tree, key, put)| {
            let value = put.bytes().map_err(|e| self.fail(e))?;
            Ok((tree, key, value))
        });
        self.write_steps(encoded, stop_after)?;
        (&self.audit, &self.audit_index, &self.meta)
            .transaction(|(ta, ti, tm)| {
                Self::audit_not_stored(ta, audit)?;
                for (key, entry, summary) in audit {
                    ta.insert(key, entry.as_slice())?;
                    ti.insert(key, summary.as_slice())?;
                }
                tm.apply_batch(meta)?;
                Ok(())
            })
            .map_err(|e: TransactionError<String>| self.fail(e))
    }

    /// Aborts a transaction that would store an audit entry over one already stored.
    fn audit_not_stored(
        audit_tree: &sled::transaction::TransactionalTree,
        audit: &[AuditWrite],
    ) -> Result<(), ConflictableTransactionError<String>> {
        for (key, _, _) in audit {
            if audit_tree.get(key)?.is_some() {
                return Err(ConflictableTransactionError::Abort(already_stored(key)));
            }
        }
        Ok(())
    }

    /// Writes units' results (`None`: the unit rates nothing any more) and the audit entry
    /// they follow from.
    pub fn save_results<'a, R: Rulebook + 'a>(
        &self,
        units: impl IntoIterator<Item = (&'a UnitId, Option<&'a UnitResult<R>>)>,
        rated_seq: u64,
    ) -> Result<(), StoreError> {
        write_results(
            (&self.results, &self.meta, &self.results_writes),
            units,
            rated_seq,
            &self.path,
        )
    }

    /// [`Store::save_results`] and a flush, behind the screen (after everything asked before):
    /// returns at once. Until they are on disk the stored results lag behind the audit log, and
    /// a database opened then is re-rated.
    pub fn save_results_behind<R: Rulebook + 'static>(
        &self,
        units: Vec<(UnitId, Option<Arc<UnitResult<R>>>)>,
        rated_seq: u64,
    ) -> Result<Ticket, StoreError> {
        let (results, meta) = (self.results.clone(), self.meta.clone());
        let writes = self.results_writes.clone();
        let (path, flush) = (self.path.clone(), self.flush_job());
        self.behind.ask(Box::new(move || {
            let units = units.iter().map(|(id, unit)| (id, unit.as_deref()));
            write_results((&results, &meta, &writes), units, rated_seq, &path)?;
            flush()
        }))
    }

    /// Lets go of what an edit left over (a re-rated unit's former rows and states, thousands
    /// of allocations to free) on the thread behind the screen, after what was asked before it:
    /// the frame that shows the edit does not wait for it.
    pub fn drop_behind<T: Send + 'static>(&self, spent: T) {
        // A thread that cannot take it has run it here (dropped); nothing to report.
        let _ = self.behind.ask(Box::new(move || {
            drop(spent);
            Ok(())
        }));
    }

    /// Replaces all stored results.
    pub fn replace_results<R: Rulebook>(
        &self,
        units: &Units<R>,
        rated_seq: u64,
    ) -> Result<(), StoreError> {
        use std::sync::atomic::Ordering::SeqCst;
        self.results_writes.fetch_add(1, SeqCst);
        let written = self
            .results
            .clear()
            .map_err(|e| self.fail(e))
            .and_then(|()| {
                write_results_now(
                    (&self.results, &self.meta),
                    units.iter().map(|(k, v)| (k, Some(&**v))),
                    rated_seq,
                    &self.path,
                )
            });
        self.results_writes.fetch_add(1, SeqCst);
        written
    }

    /// Whether the database holds any player, event or audit entry.
    pub fn is_empty(&self) -> Result<bool, StoreError> {
        let c = self.counts()?;
        Ok(c.players == 0 && c.events == 0 && c.audit == 0)
    }

    /// Whether nothing at all is stored: no count, and no record in any tree of the record
    /// (a commit torn before its counters were written leaves records all the same).
    pub fn holds_nothing(&self) -> Result<bool, StoreError> {
        Ok(self.is_empty()?
            && self.players.is_empty()
            && self.events.is_empty()
            && self.audit.is_empty()
            && self.audit_index.is_empty())
    }
}

impl Store {
    /// Writes restored records and audit log into an empty database, and gives the records'
    /// change back (moved in and out, never copied: a million players' records). Not yet
    /// flushed.
    pub fn restore<R: Rulebook>(
        &self,
        change: Change<R>,
        audit: &[AuditEntry<R>],
        moves: &BTreeMap<u64, Vec<Moved>>,
    ) -> Result<Change<R>, StoreError> {
        let mut entries = [AuditEntry::<R> {
            seq: 0,
            time: 0,
            user: String::new(),
            action: String::new(),
            kind: AuditKind::Edit,
            change,
            prev: None,
        }];
        // Committed as it is (`commit` takes a copy to link it).
        self.commit_all(&mut entries, &[])?;
        let [entry] = entries;
        self.audit.remove(codec::key(0)).map_err(|e| self.fail(e))?;
        self.remove_audit_chunks(&codec::key(0))?;
        self.next_seq.store(0, std::sync::atomic::Ordering::Relaxed);
        self.audit_index
            .remove(codec::key(0))
            .map_err(|e| self.fail(e))?;
        // An entry at a time, not one batch: an import's entry is hundreds of megabytes
        // encoded, and the staging database is swapped in only once it is whole.
        for a in audit {
            let key = codec::key(a.seq);
            let bytes = codec::encode_packed(a).map_err(|e| self.fail(e))?;
            let stored = self.new_audit_value(&key, bytes)?;
            self.audit.insert(key, stored).map_err(|e| self.fail(e))?;
            let summary = codec::encode(&a.summary()).map_err(|e| self.fail(e))?;
            self.audit_index
                .insert(key, summary)
                .map_err(|e| self.fail(e))?;
        }
        self.meta
            .insert("audit", &(audit.len() as u64).to_be_bytes())
            .map_err(|e| self.fail(e))?;
        // The restored entries keep the links they came with: `check` shows where a backup
        // edited by hand breaks the chain.
        match audit.last() {
            Some(last) => self.meta.insert(AUDIT_HEAD, &last.hash().0),
            None => self.meta.remove(AUDIT_HEAD),
        }
        .map_err(|e| self.fail(e))?;
        for (seq, m) in moves {
            self.save_moves(*seq, m)?;
        }
        // The moves a backup brings were worked out by the rules of the version that wrote it:
        // `check` does not hold them to these.
        if let Some(last) = audit.last() {
            self.meta
                .insert(layout::RULES_SINCE, &last.seq.to_be_bytes())
                .map_err(|e| self.fail(e))?;
        }
        Ok(entry.change)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PlayerInfo;
    use crate::rules::ssl::Ssl;

    fn record(id: u64) -> PlayerRecord<Ssl> {
        PlayerRecord {
            info: PlayerInfo {
                id: format!("FIN{id}"),
                name: format!("Player, {id}"),
                ..PlayerInfo::default()
            },
            seeds: vec![None, None],
            held: Vec::new(),
            confirmed: Vec::new(),
            status: if id.is_multiple_of(5) {
                PlayerStatus::MergedInto(0)
            } else {
                PlayerStatus::Active
            },
        }
    }

    /// Players read on every core, each a range of ids: every record lands in the slot of its
    /// id whichever range read it, an id without a record is a deleted player's empty slot, and
    /// the records read are counted once — on one thread, two and five.
    #[test]
    fn players_read_in_ranges_land_in_the_slots_of_their_ids() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path(), "ssl").expect("open");
        // Five ranges of 4096 at most, with gaps at their bounds and a lone highest id.
        let ids: Vec<u64> = (1..3 * PLAYERS_A_CORE_AT_LEAST as u64)
            .filter(|id| id % 7 != 3 && *id != PLAYERS_A_CORE_AT_LEAST as u64)
            .chain([5 * PLAYERS_A_CORE_AT_LEAST as u64 - 1])
            .collect();
        for &id in &ids {
            let bytes = codec::encode(&record(id)).expect("encode");
            store.players.insert(codec::key(id), bytes).expect("insert");
        }
        for threads in [1, 2, 5] {
            let (mut book, mut status) = (Book::<Ssl>::default(), Vec::new());
            let read = store
                .load_players_on(&mut book, &mut status, threads)
                .expect("read");
            assert_eq!(read, ids.len() as u64, "{threads} threads");
            let last = *ids.last().expect("ids") as usize;
            assert_eq!(book.players.len(), last + 1);
            assert_eq!(status.len(), last + 1);
            let mut present = ids.iter().map(|&id| id as usize).peekable();
            let slots = book.players.iter().zip(&status).zip(&book.seeds);
            for (p, ((info, status), seeds)) in slots.enumerate() {
                if present.next_if_eq(&p).is_some() {
                    let r = record(p as u64);
                    assert_eq!((info, status, seeds), (&r.info, &r.status, &r.seeds), "{p}");
                } else {
                    assert_eq!(info, &PlayerInfo::default(), "{p}");
                    assert_eq!(status, &PlayerStatus::Deleted, "{p}");
                }
            }
        }
    }

    fn event_record(id: u64, white: u32) -> EventRecord {
        let day = chrono::NaiveDate::from_ymd_opt(2025, 1, 1).expect("a day");
        let mut event = crate::model::Event::new(format!("e{id}"), day, day);
        event.games.push(crate::model::Game {
            round: 1,
            board: 1,
            white,
            black: Some(white + 1),
            result: None,
            date: None,
            received: None,
        });
        EventRecord {
            event,
            live: !id.is_multiple_of(3),
        }
    }

    /// Events read on every core land in the slots of their ids (a missing id: a placeholder,
    /// not live); one naming a player the book does not hold is refused by its own id, whichever
    /// range reads it.
    #[test]
    fn events_read_in_ranges_land_in_the_slots_of_their_ids() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path(), "ssl").expect("open");
        let ids: Vec<u64> = (0..3 * EVENTS_A_CORE_AT_LEAST as u64)
            .filter(|id| id % 11 != 4)
            .collect();
        for &id in &ids {
            let bytes = codec::encode(&event_record(id, (id % 8) as u32)).expect("encode");
            store.events.insert(codec::key(id), bytes).expect("insert");
        }
        let mut book = Book::<Ssl> {
            players: vec![PlayerInfo::default(); 9],
            ..Book::default()
        };
        for threads in [1, 2, 3] {
            let read = store.load_events_on(&mut book, threads).expect("read");
            assert_eq!(read, ids.len() as u64, "{threads} threads");
            assert_eq!(book.events.len(), 3 * EVENTS_A_CORE_AT_LEAST);
            for (e, (event, live)) in book.events.iter().zip(&book.live).enumerate() {
                if e % 11 == 4 {
                    assert_eq!((event, *live), (&placeholder_event(), false), "{e}");
                } else {
                    let r = event_record(e as u64, (e % 8) as u32);
                    assert_eq!((event, *live), (&r.event, r.live), "{e}");
                }
            }
        }
        // A game of player 9, in an event of the second range: named by its id.
        let late = 2 * EVENTS_A_CORE_AT_LEAST as u64 + 5;
        let bytes = codec::encode(&event_record(late, 8)).expect("encode");
        store
            .events
            .insert(codec::key(late), bytes)
            .expect("insert");
        for threads in [1, 2, 3] {
            let refused = store
                .load_events_on(&mut book, threads)
                .expect_err("an unknown player");
            assert!(
                refused
                    .to_string()
                    .contains(&format!("event {late}, round 1: unknown player")),
                "{refused}"
            );
        }
    }

    /// A key that is not an id of 8 bytes, wherever it sorts among the ranges (before every id,
    /// among them, after them all, or sharing an id's first 8 bytes), is refused by name on any
    /// number of threads; so is a highest id no machine has room for.
    #[test]
    fn a_malformed_player_key_is_refused_whichever_range_reads_it() {
        let mut long = codec::key(5).to_vec();
        long.push(9);
        let malformed: [&[u8]; 5] = [&[0], &[0, 0, 0, 0, 0, 0, 0x20], &[0, 0, 1], &long, &[]];
        for key in malformed {
            let dir = tempfile::tempdir().expect("tempdir");
            let store = Store::open(dir.path(), "ssl").expect("open");
            for id in 0..3 * PLAYERS_A_CORE_AT_LEAST as u64 {
                let bytes = codec::encode(&record(id)).expect("encode");
                store.players.insert(codec::key(id), bytes).expect("insert");
            }
            let bytes = codec::encode(&record(1)).expect("encode");
            store.players.insert(key, bytes).expect("insert");
            for threads in [1, 2, 5] {
                let (mut book, mut status) = (Book::<Ssl>::default(), Vec::new());
                let refused = store
                    .load_players_on(&mut book, &mut status, threads)
                    .expect_err("a malformed key");
                assert!(
                    refused.to_string().contains("player key"),
                    "{key:?} on {threads}: {refused}"
                );
            }
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path(), "ssl").expect("open");
        for id in [0, 1 << 60] {
            let bytes = codec::encode(&record(id)).expect("encode");
            store.players.insert(codec::key(id), bytes).expect("insert");
        }
        let (mut book, mut status) = (Book::<Ssl>::default(), Vec::new());
        let refused = store
            .load_players(&mut book, &mut status)
            .expect_err("no room");
        assert!(refused.to_string().contains("player key"), "{refused}");
    }
}
