//! Several workstations on one record. The process that holds a database (the first
//! workstation, or `ratedesk serve`) is its one writer; a second workstation keeps a copy of
//! the record in a scratch store of its own and sends its edits to the holder, which checks
//! them against the record as it is, commits them under its audit chain and passes every
//! committed entry back to every copy. A copy follows the entries by the same incremental path
//! as the holder (the ledger invariant makes it the same record), so its screens read locally
//! and its keys never wait on another process except for an edit.
//!
//! No transport here: the holder's end is a [`Watcher`] (in `cli::serve`), the copy's a
//! [`Link`] (in `cli::copy`).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::{Desk, DeskError, EditError, Effect, Federation};
use crate::book::{Change, EventRecord, PlayerStatus};
use crate::model::PlayerIdx;
use crate::rules::Rulebook;
pub use crate::store::AuditEntry;
use crate::store::{AuditKind, Store, snapshot};

/// A change made on a copy, sent to the holder as it was compiled there: the records it read
/// (`before`) are what the officer saw.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Shipped<R: Rulebook> {
    pub change: Change<R>,
    pub action: String,
    pub kind: AuditKind,
}

/// Why a copy's edit was not stored.
#[derive(Debug)]
pub enum LinkError {
    /// The holder refused it (the record changed meanwhile, a rule): nothing was stored.
    Refused(String),
    /// The holder cannot be reached: whether it was stored is not known here.
    Lost(String),
}

/// A copy's way to the holder of the database.
pub trait Link<R: Rulebook>: Send {
    /// Has the holder commit `changes` in one transaction; the sequence number of the last
    /// entry it stored, answered once those entries are among those [`Link::arrived`] gives.
    /// `at` is the newest entry the copy held when it made them.
    fn commit(&self, changes: Vec<Shipped<R>>, at: u64) -> Result<u64, LinkError>;

    /// The entries the holder committed that arrived since last asked, oldest first.
    fn arrived(&self) -> Vec<AuditEntry<R>>;

    /// An audit entry with its records, from the holder (one stored before this copy was
    /// taken: undo and redo show and take it).
    fn entry(&self, seq: u64) -> Result<Option<AuditEntry<R>>, LinkError>;
}

/// What the holder of a database tells of every edit it commits.
pub trait Watcher<R: Rulebook>: Send {
    /// Whether a copy in this process (one kept for reading) is told.
    fn watching(&self) -> bool;

    /// Entries just stored with their moves (or whose finishing failed: past the commit point
    /// they are the record's), oldest first, chained as stored: for a copy in this process,
    /// told before the next edit whether or not they are on disk yet.
    fn stored(&mut self, entries: &[AuditEntry<R>]);

    /// Whether a copy in another process is told (the entries are not copied for no one).
    fn durable(&self) -> bool;

    /// Entries just committed and on disk, oldest first, chained as stored: for the copies
    /// in other processes, which may take the database over.
    fn committed(&mut self, entries: &[AuditEntry<R>]);
}

/// An edit another workstation made, as a copy followed it.
pub struct Followed<A> {
    pub user: String,
    pub effect: Effect<A>,
}

impl<R: Federation> Desk<R> {
    /// The record as this desk holds it, in one message for a copy ([`Desk::replica`]).
    pub fn snapshot(&self) -> Result<Vec<u8>, DeskError> {
        // A copy for reading: the chain's head as the holder chained its newest entry.
        let head = match self.read_head() {
            Some(head) => head,
            None => self.store.audit_head::<R>()?,
        };
        let titles = self.store.fide_titles()?;
        snapshot::write(
            &self.book,
            &self.status,
            &self.audit,
            self.ledger.units(),
            head,
            titles,
        )
        .map_err(|e| DeskError::Backup(format!("the copy of the record: {e}")))
    }

    /// A copy of the record a holder's [`Desk::snapshot`] gave, whose edits go through `link`:
    /// in memory as the holder has it (no calculation), with a scratch store of its own for
    /// the entries that follow.
    pub fn replica(rulebook: R, bytes: &[u8], link: Box<dyn Link<R>>) -> Result<Self, DeskError> {
        let copy = snapshot::read::<R>(bytes)
            .map_err(|e| DeskError::Backup(format!("the copy of the record: {e}")))?;
        let store = Store::scratch(rulebook.code())?;
        store.continue_chain(copy.head)?;
        store.note_fide_titles(copy.titles)?;
        let ledger = crate::ledger::Ledger::from_units(&rulebook, &copy.book, copy.units);
        let mut desk = Self::from_parts(
            rulebook,
            std::sync::Arc::new(store),
            copy.book,
            copy.status,
            ledger,
            copy.audit,
            Vec::new(),
        );
        desk.link = Some(link);
        Ok(desk)
    }

    /// An audit entry with its records: from the store, or for a copy from the holder when it
    /// was stored before the copy was taken.
    pub fn audit_entry(&self, seq: u64) -> Result<Option<AuditEntry<R>>, DeskError> {
        if let Some(entry) = self.store.audit_entry(seq)? {
            return Ok(Some(entry));
        }
        match &self.link {
            Some(link) => link.entry(seq).map_err(|e| match e {
                LinkError::Refused(why) | LinkError::Lost(why) => EditError(format!(
                    "audit entry #{seq} could not be read from the holder: {why}"
                ))
                .into(),
            }),
            None => Ok(None),
        }
    }

    /// Whether this desk is a copy whose edits the holder of the database makes.
    pub fn is_replica(&self) -> bool {
        self.link.is_some()
    }

    /// Has `watcher` told of every edit committed from now on.
    pub fn watch(&mut self, watcher: Box<dyn Watcher<R>>) {
        self.watcher = Some(watcher);
    }

    /// A copy that has lost its holder: no more edits here, with why.
    pub fn lost(&mut self, why: String) {
        self.stopped = Some(why);
    }

    /// The holder's side of a copy's edit, made on the record as it stood after entry `at`:
    /// refused when anything it read or relies on has changed since — a record it changes
    /// (named with what it holds now), a record another edit since then changed beside it (a
    /// player of its games deleted or merged, its event deleted, a slot reused, a play-off
    /// linked to the event it deletes), an undo or redo no longer next, an id another record
    /// took meanwhile; otherwise committed as any edit here. The sequence number of its last
    /// entry.
    pub fn commit_shipped(&mut self, shipped: Vec<Shipped<R>>, at: u64) -> Result<u64, DeskError> {
        if shipped.is_empty() {
            return Err(EditError("an empty edit".into()).into());
        }
        if let Some(why) = &self.stopped {
            return Err(DeskError::Stopped(why.clone()));
        }
        // An undo or redo is made over the entry it takes back (or its undo), not only over
        // what the copy held.
        let base = shipped
            .iter()
            .map(|s| match s.kind {
                AuditKind::Undo(_) | AuditKind::Redo(_) => self.undo_base(s.kind),
                _ => at,
            })
            .min()
            .unwrap_or(at)
            .min(at);
        let changed = match self.stale(&shipped) {
            Some(changed) => Some(changed),
            None => self.crossed(shipped.iter().map(|s| &s.change), base)?,
        };
        if let Some(changed) = changed {
            return Err(EditError(format!("not stored, changed meanwhile: {changed}")).into());
        }
        self.still_next(&shipped)?;
        self.ids_free(&shipped)?;
        let changes = shipped
            .into_iter()
            .map(|s| (s.change, s.action, s.kind))
            .collect();
        self.commit(changes, &[])?;
        Ok(self.audit.last().map_or(0, |a| a.seq))
    }

    /// What an entry stored since `at` changed that `changes` also touch — the same player's
    /// record, or a player of their games; the same event, or the event of their games; an
    /// event's id and a play-off linked to it (SSL 2.10); the same game — named with who
    /// changed it. `None`: nothing crossed them.
    pub(super) fn crossed<'a>(
        &self,
        changes: impl Iterator<Item = &'a Change<R>>,
        at: u64,
    ) -> Result<Option<String>, DeskError> {
        let ours = Touches::of(changes);
        for seq in self.in_force_after(at) {
            let Some(entry) = self.store.audit_entry::<R>(seq)? else {
                continue;
            };
            let theirs = Touches::of(std::iter::once(&entry.change));
            if let Some(what) = ours.crossing(&theirs) {
                let by = super::os_name(&entry.user).to_string();
                return Ok(Some(format!(
                    "{} (#{seq}, {by})",
                    match what {
                        Crossed::Player(p) => self.book.players.get(p).map_or_else(
                            || format!("player #{p}"),
                            |i| format!("the record of {} ({})", i.name, i.id),
                        ),
                        Crossed::Event(e) => format!(
                            "event {}",
                            self.book.events.get(e).map_or("?", |ev| ev.id.as_str())
                        ),
                        Crossed::Decided { id, linked: true } => {
                            format!("a play-off of event {id}")
                        }
                        Crossed::Decided { id, linked: false } => {
                            format!("event {id}, deleted or renamed")
                        }
                        Crossed::Game((e, round, board)) => format!(
                            "round {round} board {board} of {}",
                            self.book.events.get(e).map_or("?", |ev| ev.id.as_str())
                        ),
                    }
                )));
            }
        }
        Ok(None)
    }

    /// The entries after `at` whose change is in force now: an edit not undone, the newest
    /// redo of an edit in force, the newest undo of an edit from before `at` that stays undone
    /// (an edit made and undone since left the record as it was).
    fn in_force_after(&self, at: u64) -> Vec<u64> {
        let (done, undone) = self.stacks();
        let mut decided = BTreeSet::new();
        let mut seqs = Vec::new();
        for a in self.audit.iter().rev().take_while(|a| a.seq > at) {
            let in_force = match a.kind {
                AuditKind::Edit => done.contains(&a.seq),
                AuditKind::Redo(t) => decided.insert(t) && done.contains(&t),
                // (An edit after `at` and its undo leave the record as it was.)
                AuditKind::Undo(t) => decided.insert(t) && undone.contains(&t) && t <= at,
                AuditKind::Restore | AuditKind::Officers => false,
            };
            if in_force {
                seqs.push(a.seq);
            }
        }
        seqs.reverse();
        seqs
    }

    /// An undo or redo from a copy takes an entry still in force (still undone) here.
    fn still_next(&self, shipped: &[Shipped<R>]) -> Result<(), DeskError> {
        let (done, undone) = self.stacks();
        for s in shipped {
            let gone = match s.kind {
                AuditKind::Undo(seq) => (!done.contains(&seq)).then_some(("undo", seq)),
                AuditKind::Redo(seq) => (!undone.contains(&seq)).then_some(("redo", seq)),
                _ => None,
            };
            if let Some((what, seq)) = gone {
                return Err(EditError(format!(
                    "not stored, changed meanwhile: #{seq} is no longer there to {what}"
                ))
                .into());
            }
        }
        Ok(())
    }

    /// A player or event the edit writes keeps an id no other record holds.
    fn ids_free(&self, shipped: &[Shipped<R>]) -> Result<(), DeskError> {
        for s in shipped {
            for d in &s.change.players {
                if let Some(after) = d
                    .after
                    .as_deref()
                    .filter(|r| r.status == PlayerStatus::Active)
                    && let Some(other) = self.book.players.iter().enumerate().position(|(p, i)| {
                        p != d.key
                            && self.status.get(p) == Some(&PlayerStatus::Active)
                            && i.id == after.info.id
                    })
                {
                    return Err(EditError(format!(
                        "id {} was given to player #{other} meanwhile (another officer's edit); nothing was done",
                        after.info.id
                    ))
                    .into());
                }
            }
            for d in &s.change.events {
                if let Some(after) = d.after.as_ref().filter(|r| r.live)
                    && self.book.events.iter().enumerate().any(|(e, ev)| {
                        e != d.key
                            && self.book.live.get(e) == Some(&true)
                            && ev.id == after.event.id
                    })
                {
                    return Err(EditError(format!(
                        "event id {} was taken meanwhile (another officer's edit); nothing was done",
                        after.event.id
                    ))
                    .into());
                }
            }
        }
        Ok(())
    }

    /// A copy's commit: sent to the holder, then followed here with whatever the holder
    /// committed before it.
    pub(super) fn commit_remote(
        &mut self,
        changes: Vec<(Change<R>, String, AuditKind)>,
        done: &[&str],
    ) -> Result<Effect<R::Award>, DeskError> {
        if let Some(why) = &self.stopped {
            return Err(DeskError::Copy(format!("not stored: {why}")));
        }
        if !done.is_empty() {
            return Err(EditError(
                "an import that keeps reference data is made where the database is held: \
                 run `ratedesk import …` from the command line (the process holding it runs it)"
                    .into(),
            )
            .into());
        }
        let count = changes.len() as u64;
        let shipped = changes
            .into_iter()
            .map(|(change, action, kind)| Shipped {
                change,
                action,
                kind,
            })
            .collect();
        let at = self.audit.last().map_or(0, |a| a.seq);
        let link = self.link.as_ref().expect("a copy");
        let last = match link.commit(shipped, at) {
            Ok(last) => last,
            Err(LinkError::Refused(why)) => {
                // What it was refused for is followed here, for the officer to see.
                let arrived = self.link.as_ref().expect("a copy").arrived();
                self.follow_others(arrived)?;
                return Err(EditError(why).into());
            }
            Err(LinkError::Lost(why)) => {
                // Nothing more is sent on this link; the copy is taken again.
                let why = format!("not answered ({why}): stored or not, it shows once reconnected");
                self.stopped = Some(why.clone());
                return Err(DeskError::Copy(why));
            }
        };
        // What arrived before the edit, the edit's own entries, and what other officers
        // stored after it (the stream may already hold them): followed in that order.
        let first = last + 1 - count;
        let arrived = self.link.as_ref().expect("a copy").arrived();
        let (before, rest): (Vec<_>, Vec<_>) = arrived.into_iter().partition(|e| e.seq < first);
        let (ours, after): (Vec<_>, Vec<_>) = rest.into_iter().partition(|e| e.seq <= last);
        self.follow_others(before)?;
        if ours.len() as u64 != count {
            let why = format!("entries #{first}–#{last} missed here: close and open again");
            self.stopped = Some(why.clone());
            return Err(DeskError::Copy(why));
        }
        let effect = self.follow(ours)?;
        self.follow_others(after)?;
        Ok(effect)
    }

    /// Follows the entries the holder committed since last asked: each other officer's edit
    /// with its effect here, oldest first (those followed while this copy made its own too).
    pub fn catch_up(&mut self) -> Result<Vec<Followed<R::Award>>, DeskError> {
        if let Some(link) = self.link.as_ref() {
            let arrived = link.arrived();
            self.follow_others(arrived)?;
        }
        Ok(std::mem::take(&mut self.pending_followed))
    }

    /// Follows other officers' entries, each kept with its effect to be told.
    fn follow_others(&mut self, entries: Vec<AuditEntry<R>>) -> Result<(), DeskError> {
        for entry in entries {
            let user = entry.user.clone();
            let effect = self.follow(vec![entry])?;
            self.pending_followed.push(Followed { user, effect });
        }
        Ok(())
    }

    /// Follows entries the holder committed (one transaction's): kept here as they were
    /// chained there (the records in memory only), re-rated by the same incremental path. An
    /// entry this copy already holds is passed over; one that does not chain to it stops the
    /// copy.
    pub(super) fn follow(
        &mut self,
        entries: Vec<AuditEntry<R>>,
    ) -> Result<Effect<R::Award>, DeskError> {
        let head = self.audit.last().map_or(0, |a| a.seq);
        let mut entries: Vec<AuditEntry<R>> =
            entries.into_iter().filter(|e| e.seq > head).collect();
        let action = entries
            .iter()
            .map(|e| e.action.as_str())
            .collect::<Vec<_>>()
            .join("; ");
        if entries.is_empty() {
            return Ok(Effect::nothing(action));
        }
        self.pending = None;
        let chained: Vec<_> = entries.iter().map(|e| e.prev).collect();
        let mut explicit = super::Before::<R>::new();
        for entry in &entries {
            for (p, before) in self.before_of(&entry.change) {
                explicit.entry(p).or_insert(before);
            }
        }
        if entries[0].seq != head + 1 {
            let why = format!(
                "#{} came after #{head} here: close and open again",
                entries[0].seq
            );
            self.stopped = Some(why.clone());
            return Err(DeskError::Copy(why));
        }
        if let Err(e) = self.keep_followed(&mut entries) {
            self.stopped = Some(e.to_string());
            return Err(e);
        }
        if entries.iter().map(|e| e.prev).ne(chained) {
            let why = format!(
                "#{}'s audit chain differs here: close and open again",
                entries[0].seq
            );
            self.stopped = Some(why.clone());
            return Err(DeskError::Copy(why));
        }
        // The officers are kept beside the chain (an entry names the change): a copy for
        // reading, which backs up and lists them, reads them again.
        if self.is_reading() && entries.iter().any(|e| e.kind == AuditKind::Officers) {
            self.officers = self.store.officers()?;
        }
        let mut touched = crate::ledger::Touched::default();
        for entry in entries {
            self.revision = super::next_revision();
            self.audit.push(entry.summary());
            let (players, events) = &mut self.generations;
            *players += u64::from(!entry.change.players.is_empty());
            *events += u64::from(!entry.change.events.is_empty());
            touched.extend(Self::touch(entry.change, &mut self.book, &mut self.status));
        }
        let update = self
            .ledger
            .update_touched(&self.rulebook, &self.book, &touched);
        let effect = super::effect(
            &self.rulebook,
            action,
            &self.book,
            &self.ledger,
            update,
            explicit,
        );
        Ok(effect)
    }
}

impl<R: Federation> Desk<R> {
    /// The first record a copy's change read that is no longer as it read it, named with what
    /// it holds now; `None` when every one is as it was. Later changes of one transaction read
    /// the records as the earlier ones leave them.
    fn stale(&self, shipped: &[Shipped<R>]) -> Option<String> {
        let (book, status) = (&self.book, &self.status);
        let current = self.current();
        let mut players = BTreeMap::new();
        let mut events = BTreeMap::new();
        let mut games = BTreeMap::new();
        for s in shipped {
            for d in &s.change.players {
                let now = players.get(&d.key).cloned().unwrap_or_else(|| {
                    (d.key < book.players.len() && d.key < status.len())
                        .then(|| current.record(d.key))
                });
                let read = d.before.as_deref();
                let same = match (&now, read) {
                    // A deleted record's slot is read as no record.
                    (Some(now), None) => now.status == PlayerStatus::Deleted,
                    (now, read) => now.as_ref() == read,
                };
                if !same {
                    let who = match (&now, read) {
                        (Some(r), _) | (None, Some(r)) => {
                            format!("{} ({})", r.info.name, r.info.id)
                        }
                        (None, None) => format!("player #{}", d.key),
                    };
                    return Some(format!("the record of {who}"));
                }
                players.insert(d.key, d.after.as_deref().cloned());
            }
            for d in &s.change.events {
                let now = events.get(&d.key).cloned().unwrap_or_else(|| {
                    (d.key < book.events.len() && d.key < book.live.len())
                        .then(|| current.event_record(d.key))
                });
                let same = match (&now, &d.before) {
                    (Some(now), None) => !now.live,
                    (now, read) => now == read,
                };
                if !same {
                    let name = now
                        .as_ref()
                        .or(d.before.as_ref())
                        .map_or_else(|| format!("#{}", d.key), |r| r.event.id.clone());
                    return Some(format!("event {name}"));
                }
                events.insert(d.key, d.after.clone());
            }
            for d in &s.change.games {
                let (e, round, board) = d.key;
                let now = games.get(&d.key).cloned().unwrap_or_else(|| {
                    book.events
                        .get(e)
                        .and_then(|ev| {
                            ev.games
                                .iter()
                                .find(|g| (g.round, g.board) == (round, board))
                        })
                        .cloned()
                });
                if now != d.before {
                    let event = book.events.get(e).map_or("?", |ev| ev.id.as_str());
                    let holds = now.as_ref().map_or_else(
                        || "no longer paired".to_string(),
                        |g| match g.result {
                            Some(result) => format!("is now {}", result.code()),
                            None => "now has no result".to_string(),
                        },
                    );
                    return Some(format!("round {round} board {board} of {event} {holds}"));
                }
                games.insert(d.key, d.after.clone());
            }
        }
        None
    }
}

/// What changes touch: players' records, the players of their games, events, the events of
/// their games, games, and the links of play-offs to the events they decide (SSL 2.10): the
/// ids a live event stops bearing, and those a live play-off is linked to anew.
struct Touches {
    records: BTreeSet<PlayerIdx>,
    playing: BTreeSet<PlayerIdx>,
    events: BTreeSet<usize>,
    of_games: BTreeSet<usize>,
    games: BTreeSet<(usize, u32, u32)>,
    ids_gone: BTreeSet<String>,
    linked: BTreeSet<String>,
}

/// The event a record holds, if live.
fn live_event(record: &Option<EventRecord>) -> Option<&crate::model::Event> {
    record.as_ref().filter(|r| r.live).map(|r| &r.event)
}

/// Where two changes cross.
enum Crossed {
    Player(PlayerIdx),
    Event(usize),
    /// The id of an event one deletes (or renames) and a play-off the other links to it
    /// (SSL 2.10); `linked`: the other (the entry stored) linked the play-off, else it deleted
    /// or renamed the event.
    Decided {
        id: String,
        linked: bool,
    },
    Game((usize, u32, u32)),
}

impl Touches {
    fn of<'a, R: Rulebook + 'a>(changes: impl Iterator<Item = &'a Change<R>>) -> Self {
        let mut t = Self {
            records: BTreeSet::new(),
            playing: BTreeSet::new(),
            events: BTreeSet::new(),
            of_games: BTreeSet::new(),
            games: BTreeSet::new(),
            ids_gone: BTreeSet::new(),
            linked: BTreeSet::new(),
        };
        for change in changes {
            t.records.extend(change.players.iter().map(|d| d.key));
            for d in &change.events {
                t.events.insert(d.key);
                let (before, after) = (live_event(&d.before), live_event(&d.after));
                if let Some(b) = before
                    && after.is_none_or(|a| a.id != b.id)
                {
                    t.ids_gone.insert(b.id.clone());
                }
                if let Some(decided) = after.and_then(|a| a.playoff_of.as_ref())
                    && before.is_none_or(|b| b.playoff_of.as_deref() != Some(decided.as_str()))
                {
                    t.linked.insert(decided.clone());
                }
            }
            for d in &change.games {
                t.games.insert(d.key);
                t.of_games.insert(d.key.0);
                for g in d.before.iter().chain(&d.after) {
                    t.playing.insert(g.white());
                    t.playing.extend(g.black());
                }
            }
        }
        t
    }

    /// Where these changes and `other`'s cross: a player's record changed by one and changed
    /// or playing in the other; an event changed by one and changed, or holding a game
    /// changed, in the other; an event deleted or renamed by one and the event a play-off is
    /// linked to by the other (SSL 2.10); the same game. Two results on other boards of one
    /// event, two games of one player, or two play-offs of one event, do not cross. Ids are
    /// matched as text, whichever slot bore them: an id deleted with an event entered under it
    /// since crosses a play-off linked to it even when the one the play-off names is another —
    /// refused, on the side of caution, where the two could have been told apart.
    fn crossing(&self, other: &Self) -> Option<Crossed> {
        let player = |a: &Self, b: &Self| {
            a.records
                .iter()
                .find(|p| b.records.contains(p) || b.playing.contains(p))
                .copied()
        };
        let event = |a: &Self, b: &Self| {
            a.events
                .iter()
                .find(|e| b.events.contains(e) || b.of_games.contains(e))
                .copied()
        };
        if let Some(p) = player(self, other).or_else(|| player(other, self)) {
            return Some(Crossed::Player(p));
        }
        if let Some(e) = event(self, other).or_else(|| event(other, self)) {
            return Some(Crossed::Event(e));
        }
        let decided = |a: &Self, b: &Self| a.ids_gone.intersection(&b.linked).next().cloned();
        if let Some(id) = decided(self, other) {
            return Some(Crossed::Decided { id, linked: true });
        }
        if let Some(id) = decided(other, self) {
            return Some(Crossed::Decided { id, linked: false });
        }
        self.games
            .iter()
            .find(|g| other.games.contains(g))
            .map(|&g| Crossed::Game(g))
    }
}
