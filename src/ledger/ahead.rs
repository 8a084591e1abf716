//! Rating a cascade's units side by side. The units of an update are rated one after another in
//! ledger order, each from what its participants hold once every unit before it is done; but
//! while one is rated, the next ones in the queue are rated beside it on the other cores from
//! what their participants hold *now*. A participant's state and awards change only when a unit
//! moves them, so when such a unit's turn comes and none of its participants has moved since,
//! its result is taken (a unit's result is a function of exactly what they bring); otherwise it
//! is rated again. So the outcome is the one-by-one outcome, whichever guesses held.
//!
//! A rulebook that reads states on other lists reads more than its participants' states on the
//! unit's list: its units are rated one by one.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::thread::Scope;

use fixedbitset::FixedBitSet;

use super::incremental::{Changes, Ledger, UnitId, UnitResult, rate_unit};
use crate::book::Book;
use crate::cores::map_on_cores;
use crate::model::PlayerIdx;
use crate::rules::{Award, EventPart, ListId, Previous, Rulebook};

/// What a unit's participants bring to it: the only thing its result depends on besides the
/// book. Their awards are gathered when the rulebook first asks for them (most units ask for
/// few: a rating far from every title's needs none).
pub(super) struct Inputs<R: Rulebook> {
    players: Vec<PlayerIdx>,
    /// Gathered when the rulebook first asks (rated again, a unit asks for few).
    states: Vec<OnceLock<Option<R::State>>>,
    awards: Vec<OnceLock<Vec<Award<R::Award>>>>,
}

/// A step for each player by index, 0 until set: a keyed result moves a few players of a
/// million, and a vector over all of them was eight megabytes to clear at every update.
type Steps = crate::paged::Paged<u64, 4096>;

/// Units rated ahead of their turn, with their participants and when they were rated.
pub(super) struct Ahead<R: Rulebook> {
    threads: usize,
    rated: BTreeMap<UnitId, (Vec<PlayerIdx>, u64, UnitResult<R>)>,
    /// Units done so far in this update.
    step: u64,
    /// Per player (by index), the step at which a unit last moved his state or awards (0:
    /// none has).
    moved: Steps,
    /// Per list, the players a unit has moved on it so far (their state on it, or their
    /// awards): a unit rated again reads those of its list and of the lists it reads
    /// ([`Previous::moved`]).
    moved_on: Vec<FixedBitSet>,
}

impl<R: Rulebook> Ahead<R> {
    pub fn new(rulebook: &R) -> Self {
        let cores = crate::cores::threads();
        Self {
            threads: if rulebook.reads_other_lists() {
                1
            } else {
                cores
            },
            rated: BTreeMap::new(),
            step: 0,
            moved: Steps::default(),
            moved_on: vec![FixedBitSet::new(); rulebook.lists().len()],
        }
    }

    /// A unit on `list` is done: it moved these players' states on it, and these players'
    /// awards (which every list reads).
    pub fn done(
        &mut self,
        list: ListId,
        states: impl IntoIterator<Item = PlayerIdx>,
        awards: impl IntoIterator<Item = PlayerIdx>,
    ) {
        self.step += 1;
        let lists = self.moved_on.len();
        let moves = states
            .into_iter()
            .map(|p| (p, list..list + 1))
            .chain(awards.into_iter().map(|p| (p, 0..lists)));
        for (p, on) in moves {
            *self.moved.get_mut(p) = self.step;
            for l in on {
                if let Some(moved) = self.moved_on.get_mut(l) {
                    moved.grow_and_insert(p);
                }
            }
        }
    }

    /// The players moved so far whose state before a unit on `list` moved: on that list, or
    /// on a list it reads.
    fn moved_for(&self, rulebook: &R, list: ListId) -> Cow<'_, FixedBitSet> {
        let empty = || Cow::Owned(FixedBitSet::new());
        let own = self.moved_on.get(list).map_or_else(empty, Cow::Borrowed);
        let read = (0..self.moved_on.len()).filter(|&o| o != list && rulebook.reads_list(list, o));
        read.fold(own, |mut all, o| {
            all.to_mut().union_with(&self.moved_on[o]);
            all
        })
    }

    /// A unit's result rated ahead, when none of its participants moved since.
    fn take(&mut self, id: &UnitId) -> Option<UnitResult<R>> {
        let (players, step, result) = self.rated.remove(id)?;
        let still = players.iter().all(|&p| self.moved.get(p) <= step);
        still.then_some(result)
    }
}

/// What a unit is rated again from: what it published (`old`), with what changed in the update
/// and the players moved so far. What a unit published is read back only for a rulebook that
/// takes it.
fn again<'a, R: Rulebook>(
    rulebook: &R,
    old: Option<&'a UnitResult<R>>,
    changes: &'a Changes,
    moved: &'a FixedBitSet,
) -> Option<Previous<'a, R>> {
    let old = old.filter(|_| rulebook.rates_again())?;
    Some(Previous {
        ratings: old.ratings.runs(),
        states: &old.states,
        moved,
        changed: &changes.players,
        events_changed: &changes.events,
    })
}

/// How many of the next units in a cascade's queue have their stored ratings read ahead.
const READ_AHEAD: usize = 8;

/// The stored ratings of the units next in a cascade's queue, read on another core while the
/// units before them are rated: a unit rated again from what it published reads its rows,
/// which a database opens with as stored bytes, and reading them is independent of every
/// state. The first cascade of a session reads most of them (a correction ten years back, some
/// three hundred Turkish months). A unit's rows are read once whoever reads them first
/// ([`crate::ledger::Ratings`] holds them in a `OnceLock`), so the outcome is the same.
///
/// Reading is most of such a cascade, and the rating thread shares it ([`ReadAhead::ready`]):
/// when the unit whose turn it is is still being read, it reads the next one given instead of
/// waiting (a Turkish correction ten years back, rated one unit at a time, had that thread idle
/// half of the time while the reader read).
pub(super) struct ReadAhead<'scope, 'env, R: Rulebook + 'scope> {
    scope: &'scope Scope<'scope, 'env>,
    shared: &'env Reading<R>,
    /// The reader, started with the first unit it is given.
    started: bool,
    given: BTreeSet<UnitId>,
}

/// The units given to read, and the one the reader is reading; shared by the reader and the
/// rating thread.
pub(super) struct Reading<R: Rulebook> {
    state: Mutex<ReadState<R>>,
    given: Condvar,
}

struct ReadState<R: Rulebook> {
    queue: VecDeque<Arc<UnitResult<R>>>,
    /// The unit the reader is reading.
    reading: Option<Arc<UnitResult<R>>>,
    /// Told to stop once the cascade is done (the rows still given are left unread).
    stop: bool,
}

impl<R: Rulebook> Reading<R> {
    pub fn new() -> Self {
        Self {
            state: Mutex::new(ReadState {
                queue: VecDeque::new(),
                reading: None,
                stop: false,
            }),
            given: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, ReadState<R>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The reader's work: the units given, in order, until told to stop.
    fn read_given(&self) {
        let mut state = self.lock();
        loop {
            if state.stop {
                return;
            }
            let Some(unit) = state.queue.pop_front() else {
                state = self
                    .given
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                continue;
            };
            state.reading = Some(Arc::clone(&unit));
            drop(state);
            unit.ratings.runs();
            state = self.lock();
            state.reading = None;
        }
    }
}

impl<'scope, 'env, R: Rulebook + 'scope> ReadAhead<'scope, 'env, R> {
    pub fn new(scope: &'scope Scope<'scope, 'env>, shared: &'env Reading<R>) -> Self {
        Self {
            scope,
            shared,
            started: false,
            given: BTreeSet::new(),
        }
    }

    /// Gives the reader the next units of `queue` whose rows are still stored bytes.
    pub fn read(&mut self, queue: &BTreeSet<UnitId>, units: &super::Units<R>) {
        let mut more = Vec::new();
        for id in queue.iter().take(READ_AHEAD) {
            let Some(unit) = units.get(id).filter(|u| u.ratings.bytes().is_some()) else {
                continue;
            };
            if self.given.insert(id.clone()) {
                more.push(Arc::clone(unit));
            }
        }
        if more.is_empty() {
            return;
        }
        if !self.started {
            self.started = true;
            let shared = self.shared;
            self.scope.spawn(move || shared.read_given());
        }
        self.shared.lock().queue.extend(more);
        self.shared.given.notify_one();
    }

    /// The rows of `unit` (whose turn it is) read: here when nobody is reading them, with the
    /// other units given read here while the reader reads them, and waited for once none is
    /// left. The same rows whoever reads them.
    pub fn ready(&self, unit: &Arc<UnitResult<R>>) {
        while unit.ratings.bytes().is_some() {
            // Another unit given, to read while the reader reads this one; none: this one is
            // read here (nobody else is reading it), or waited for (nothing else is given).
            let other = {
                let mut state = self.shared.lock();
                if let Some(at) = state.queue.iter().position(|u| Arc::ptr_eq(u, unit)) {
                    state.queue.remove(at);
                }
                let being_read = state.reading.as_ref().is_some_and(|u| Arc::ptr_eq(u, unit));
                if being_read {
                    state.queue.pop_front()
                } else {
                    None
                }
            };
            match other {
                Some(other) => {
                    other.ratings.runs();
                }
                None => {
                    unit.ratings.runs();
                    return;
                }
            }
        }
    }

    /// The cascade is done: the reader stops after the rows it is reading.
    pub fn stop(self) {
        drop(self);
    }
}

/// Dropped, the reader is told to stop: at the cascade's end, and on its way out of a panic
/// (the scope waits for the reader, which would otherwise wait for more units).
impl<'scope, 'env, R: Rulebook + 'scope> Drop for ReadAhead<'scope, 'env, R> {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.given.notify_all();
    }
}

impl<R: Rulebook> Ledger<R> {
    /// A unit's participants, what they hold before it to be gathered as things stand.
    fn inputs(&self, book: &Book<R>, id: &UnitId, parts: &[EventPart]) -> Inputs<R> {
        let players = self.participants(book, id, parts);
        let states = players.iter().map(|_| OnceLock::new()).collect();
        let awards = players.iter().map(|_| OnceLock::new()).collect();
        Inputs {
            players,
            states,
            awards,
        }
    }

    /// Rates a unit from what its participants bring (`again`: from what it published, with
    /// what changed since).
    fn rate_from(
        &self,
        rulebook: &R,
        book: &Book<R>,
        id: &UnitId,
        parts: &[EventPart],
        inputs: &Inputs<R>,
        again: Option<Previous<'_, R>>,
    ) -> UnitResult<R> {
        let (key, list) = id;
        let find = |p: PlayerIdx| inputs.players.binary_search(&p).ok();
        let state_of = |p: PlayerIdx| {
            find(p).and_then(|i| {
                inputs.states[i]
                    .get_or_init(|| self.state_brought(rulebook, book, p, *list, key))
                    .as_ref()
            })
        };
        let state_on = |p: PlayerIdx, other: ListId| {
            debug_assert!(
                other == *list || rulebook.reads_list(*list, other),
                "a unit on list {list} read list {other}, which its rulebook says it does not read"
            );
            self.state_before(book, p, other, key)
        };
        let awards_of = |p: PlayerIdx| {
            find(p).map_or(&[][..], |i| {
                inputs.awards[i]
                    .get_or_init(|| self.awards_before(book, p, id))
                    .as_slice()
            })
        };
        rate_unit(
            rulebook, book, id, parts, &state_of, &state_on, &awards_of, again,
        )
    }

    /// Rates a unit of an update (`None`: it no longer rates anything): its result rated ahead
    /// when its participants still bring what it was rated from, otherwise rated now — with the
    /// next units of `queue` rated ahead beside it. A unit is rated again from what it
    /// published (`old`, or the result in place for one rated ahead), with what the update
    /// changed and the players moved so far in it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rate(
        &self,
        rulebook: &R,
        book: &Book<R>,
        id: &UnitId,
        old: Option<&UnitResult<R>>,
        changes: &Changes,
        queue: &BTreeSet<UnitId>,
        ahead: &mut Ahead<R>,
    ) -> Option<UnitResult<R>> {
        let parts = self.members.get(id)?;
        if let Some(result) = ahead.take(id) {
            return Some(result);
        }
        if ahead.threads <= 1 {
            let moved = ahead.moved_for(rulebook, id.1);
            let inputs = self.inputs(book, id, parts);
            let again = again(rulebook, old, changes, &moved);
            return Some(self.rate_from(rulebook, book, id, parts, &inputs, again));
        }
        // This unit and the next ones not yet rated ahead, shared out among the threads (each
        // gathers what its unit's participants bring, too): four a thread, so that the threads
        // are started less often and wait less for each other's last unit, while few of the
        // units rated ahead are moved before their turn (measured: two a thread and eight a
        // thread were both slower on a ten-year cascade).
        let mut jobs: Vec<(UnitId, &[EventPart])> = vec![(id.clone(), parts)];
        for next in queue.iter().filter(|u| !ahead.rated.contains_key(*u)) {
            if jobs.len() >= 4 * ahead.threads {
                break;
            }
            if let Some(parts) = self.members.get(next) {
                jobs.push((next.clone(), parts));
            }
        }
        // What moved on each list, for the jobs' units.
        let moved: BTreeMap<ListId, Cow<'_, FixedBitSet>> = jobs
            .iter()
            .map(|(u, _)| (u.1, ahead.moved_for(rulebook, u.1)))
            .collect();
        let rated = map_on_cores(&jobs, ahead.threads, |(u, parts)| {
            let inputs = self.inputs(book, u, parts);
            let previous = if u == id {
                old
            } else {
                self.units.get(u).map(|r| &**r)
            };
            let again = moved
                .get(&u.1)
                .and_then(|moved| again(rulebook, previous, changes, moved));
            let result = self.rate_from(rulebook, book, u, parts, &inputs, again);
            (inputs.players, result)
        });
        let mut mine = None;
        for ((u, _), (players, result)) in jobs.into_iter().zip(rated) {
            if u == *id {
                mine = Some(result);
            } else {
                ahead.rated.insert(u, (players, ahead.step, result));
            }
        }
        mine
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::thread::ThreadId;

    use super::*;
    use crate::ledger::Ratings;
    use crate::rules::ssl::Ssl;
    use crate::rules::{PlayerRating, States, a_row};

    /// The unit of stored byte 0 is read only once the unit of byte 2 has been: its reader
    /// waits until then (ten seconds at most: a rating thread that waited for it instead of
    /// reading the others fails the test rather than hanging it). Each read says which thread
    /// read which unit.
    static FIRST_STARTED: AtomicBool = AtomicBool::new(false);
    static THIRD_READ: AtomicBool = AtomicBool::new(false);
    static READ_BY: Mutex<Vec<(u8, ThreadId)>> = Mutex::new(Vec::new());

    fn read(bytes: &[u8]) -> Option<Vec<PlayerRating>> {
        let &[tag] = bytes else { return None };
        if tag == 0 {
            FIRST_STARTED.store(true, Ordering::SeqCst);
            let started = std::time::Instant::now();
            while !THIRD_READ.load(Ordering::SeqCst)
                && started.elapsed() < std::time::Duration::from_secs(10)
            {
                std::thread::yield_now();
            }
        }
        if tag == 2 {
            THIRD_READ.store(true, Ordering::SeqCst);
        }
        let by = std::thread::current().id();
        READ_BY
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((tag, by));
        Some(vec![a_row(usize::from(tag), 7)])
    }

    fn stored(tag: u8) -> Arc<UnitResult<Ssl>> {
        Arc::new(UnitResult {
            ratings: Ratings::stored(Box::new([tag]), read),
            states: States::default(),
            awards: Vec::new(),
        })
    }

    /// The rating thread, finding the reader on the unit whose turn it is, reads the other
    /// units given meanwhile instead of waiting; a unit never given it reads itself; every
    /// unit's rows are read once, as stored, and the reader stops when the cascade is done.
    #[test]
    fn the_rating_thread_reads_what_was_given_while_the_reader_reads_its_unit() {
        let units: Vec<Arc<UnitResult<Ssl>>> = (0..4).map(stored).collect();
        let day = |d| chrono::NaiveDate::from_ymd_opt(2024, 1, d).expect("a day");
        let ids: Vec<UnitId> = (1..4)
            .map(|d| {
                let key = crate::rules::UnitKey {
                    date: day(d),
                    second: day(d),
                    tag: "".into(),
                };
                (key, 0)
            })
            .collect();
        let mut by_id: super::super::Units<Ssl> = BTreeMap::new();
        for (id, unit) in ids.iter().zip(&units) {
            by_id.insert(id.clone(), Arc::clone(unit));
        }
        let queue: BTreeSet<UnitId> = ids.iter().cloned().collect();
        let reading = Reading::new();
        let here = std::thread::current().id();
        std::thread::scope(|scope| {
            let mut ahead = ReadAhead::new(scope, &reading);
            ahead.read(&queue, &by_id);
            while !FIRST_STARTED.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
            // The reader is on the first: the two others are read here, then it is waited for.
            ahead.ready(&units[0]);
            // Given again, nothing is read twice; the fourth was never given.
            ahead.read(&queue, &by_id);
            for unit in &units[1..] {
                ahead.ready(unit);
            }
            ahead.stop();
        });
        for (tag, unit) in units.iter().enumerate() {
            assert!(unit.ratings.bytes().is_none(), "unit {tag} read");
            let players: Vec<usize> = unit.ratings.iter().map(|r| r.player).collect();
            assert_eq!(players, [tag], "unit {tag} holds its own rows");
        }
        let mut read_by = READ_BY
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        read_by.sort_by_key(|&(tag, _)| tag);
        let tags: Vec<u8> = read_by.iter().map(|&(tag, _)| tag).collect();
        assert_eq!(tags, [0, 1, 2, 3], "each unit read once");
        let here_read: Vec<u8> = read_by
            .iter()
            .filter(|&&(_, by)| by == here)
            .map(|&(tag, _)| tag)
            .collect();
        assert_eq!(here_read, [1, 2, 3], "the reader read the first alone");
    }
}
