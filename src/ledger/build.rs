//! A ledger from scratch: every unit rated in ledger order, with each player's latest state and
//! awards at hand in dense arrays; and a ledger rebuilt from stored results without rating.
//!
//! Units that share no player are independent, so they are rated in *waves*: a unit's wave is
//! one past the latest wave of any of its players' earlier units (on any list: awards and, for
//! some rulebooks, states cross lists). Every unit of a wave reads only what earlier waves
//! wrote, so a wave's units are rated side by side on the machine's cores, and the result is
//! the same as rating them one by one.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::incremental::{
    AwardsByUnit, Ledger, Placed, UnitId, UnitResult, Units, placement, rate_unit,
};
use super::lanes::{Lane, Lanes};
use super::restarted;
use crate::book::Book;
use crate::cores::{map_on_cores, threads};
use crate::model::PlayerIdx;
use crate::rules::{Award, EventPart, ListId, Rulebook, UnitKey};

/// What rating a unit from scratch reads: the states and awards of earlier waves.
struct Before<'a, R: Rulebook> {
    book: &'a Book<R>,
    lists: usize,
    ids: &'a [UnitId],
    lanes: &'a Lanes<R::State>,
    /// Each player's latest state on each list, at `player × lists + list`.
    latest: &'a [Option<R::State>],
    /// Each player's awards: held, and reached so far.
    awards: &'a [Vec<Award<R::Award>>],
}

impl<'a, R: Rulebook> Before<'a, R> {
    /// A player's state on `list` before `key`: for a rulebook that reads other lists, where a
    /// unit of the same key may already be rated.
    fn state_before(&self, player: PlayerIdx, list: ListId, key: &UnitKey) -> Option<&'a R::State> {
        self.lanes
            .get(player, list)
            .and_then(|lane| lane.state_before(key))
            .or_else(|| {
                self.book
                    .seeds
                    .get(player)
                    .and_then(|s| s.get(list))
                    .and_then(Option::as_ref)
            })
    }

    /// Rates unit `u`, its parts played by `players` (sorted).
    fn rate(
        &self,
        rulebook: &R,
        u: usize,
        parts: &[EventPart],
        players: &[PlayerIdx],
    ) -> UnitResult<R> {
        let id = &self.ids[u];
        let (key, list) = id;
        let plays = |p: PlayerIdx| players.binary_search(&p).is_ok();
        let (latest, awards) = (self.latest, self.awards);
        let lists = self.lists;
        // Participants re-entered since their last unit (earlier waves have pushed every
        // unit of theirs before this one) bring the re-entry's state.
        let restarts: Vec<(PlayerIdx, R::State)> = if rulebook.restarts() {
            players
                .iter()
                .filter_map(|&p| {
                    let since = || self.lanes.get(p, *list).and_then(|l| l.last_key());
                    restarted(rulebook, self.book.players.get(p), *list, since, &|k| {
                        k <= key
                    })
                    .map(|s| (p, s))
                })
                .collect()
        } else {
            Vec::new()
        };
        let state_of = |p: PlayerIdx| {
            let own = || {
                latest
                    .get(p * lists + list)
                    .filter(|_| plays(p))
                    .and_then(Option::as_ref)
            };
            if restarts.is_empty() {
                return own();
            }
            restarts
                .iter()
                .find(|(q, _)| *q == p)
                .map(|(_, s)| s)
                .or_else(own)
        };
        let state_on = |p: PlayerIdx, other: ListId| self.state_before(p, other, key);
        let awards_of = |p: PlayerIdx| {
            awards
                .get(p)
                .filter(|_| plays(p))
                .map_or(&[][..], |a| a.as_slice())
        };
        rate_unit(
            rulebook, self.book, id, parts, &state_of, &state_on, &awards_of, None,
        )
    }
}

/// Every event of a book placed in its units: the units' parts, each event's placements, and
/// every lane's plays (at `player × lists + list`, in ledger order).
#[allow(clippy::type_complexity)]
fn placements<R: Rulebook>(
    rulebook: &R,
    book: &Book<R>,
    lists: usize,
    threads: usize,
) -> (
    BTreeMap<UnitId, Vec<EventPart>>,
    Vec<Vec<Placed>>,
    Vec<Vec<(UnitKey, u32)>>,
) {
    // Each event's units and players, worked out on `threads` threads; then put in order here.
    let events: Vec<usize> = (0..book.events.len()).collect();
    let units = map_on_cores(&events, threads, |&e| placement(rulebook, book, e));
    let mut members: BTreeMap<UnitId, Vec<(EventPart, usize)>> = BTreeMap::new();
    let mut placed: Vec<Vec<Placed>> = vec![Vec::new(); book.events.len()];
    for (e, units) in units.into_iter().enumerate() {
        for (unit, part) in units {
            members
                .entry(unit.id.clone())
                .or_default()
                .push((part, placed[e].len()));
            placed[e].push(unit);
        }
    }
    // Sized first, then filled in ledger order by pushing.
    let mut counts = vec![0usize; book.players.len() * lists];
    for placements in &placed {
        for p in placements {
            for &player in &p.players {
                if let Some(n) = counts.get_mut(player * lists + p.id.1) {
                    *n += 1;
                }
            }
        }
    }
    let mut plays: Vec<Vec<(UnitKey, u32)>> = counts.into_iter().map(Vec::with_capacity).collect();
    for ((key, list), parts) in &members {
        for (part, k) in parts {
            for &p in &placed[part.event][*k].players {
                let at = p * lists + list;
                if plays.len() <= at {
                    plays.resize(at + 1, Vec::new());
                }
                match plays[at].last_mut() {
                    Some((last, n)) if last == key => *n += 1,
                    _ => plays[at].push((key.clone(), 1)),
                }
            }
        }
    }
    let members = members
        .into_iter()
        .map(|(id, parts)| (id, parts.into_iter().map(|(part, _)| part).collect()))
        .collect();
    (members, placed, plays)
}

/// Every lane with its states from stored results (at `player × lists + list`, in ledger
/// order; the plays are put in by [`Lanes::from_parts`]), and the awards reached.
#[allow(clippy::type_complexity)]
fn stored_states<R: Rulebook>(
    units: &Units<R>,
    players: usize,
    lists: usize,
) -> (Vec<Lane<R::State>>, Vec<AwardsByUnit<R>>) {
    let mut counts = vec![0usize; players * lists];
    for ((_, list), unit) in units {
        for &p in unit.states.keys() {
            let at = p * lists + list;
            if counts.len() <= at {
                counts.resize(at + 1, 0);
            }
            counts[at] += 1;
        }
    }
    let mut lanes: Vec<Lane<R::State>> = counts.into_iter().map(Lane::with_room).collect();
    let mut reached: Vec<AwardsByUnit<R>> = Vec::new();
    reached.resize_with(players, BTreeMap::new);
    for (id, unit) in units {
        for (&p, state) in &unit.states {
            lanes[p * lists + id.1].push(id.0.clone(), state.clone());
        }
        for a in &unit.awards {
            if reached.len() <= a.player {
                reached.resize_with(a.player + 1, BTreeMap::new);
            }
            reached[a.player]
                .entry(id.clone())
                .or_default()
                .push(a.clone());
        }
    }
    (lanes, reached)
}

/// The waves of units (indices in ledger order): each unit one past its players' latest.
fn waves(participants: &[Vec<PlayerIdx>], players: usize) -> Vec<Vec<usize>> {
    let mut last = vec![0usize; players];
    let mut waves: Vec<Vec<usize>> = Vec::new();
    for (u, ps) in participants.iter().enumerate() {
        let wave = ps
            .iter()
            .map(|&p| last.get(p).copied().unwrap_or(0))
            .max()
            .unwrap_or(0);
        for &p in ps {
            if let Some(l) = last.get_mut(p) {
                *l = wave + 1;
            }
        }
        if waves.len() <= wave {
            waves.resize(wave + 1, Vec::new());
        }
        waves[wave].push(u);
    }
    waves
}

impl<R: Rulebook> Ledger<R> {
    /// Places every event of a book in its units (nothing rated); its lanes hold the plays.
    fn place_all(&mut self, rulebook: &R, book: &Book<R>) {
        let (members, placed, plays) = placements(rulebook, book, self.lists, threads());
        self.members = members;
        self.placed = placed;
        self.lanes = Lanes::from_parts(self.lists, Vec::new(), plays);
    }

    /// Rates a whole book from scratch.
    pub fn build(rulebook: &R, book: &Book<R>) -> Self {
        let lists = rulebook.lists().len();
        let mut ledger = Self::empty(lists, book);
        ledger.place_all(rulebook, book);
        let ids: Vec<UnitId> = ledger.members.keys().cloned().collect();
        let parts: Vec<&[EventPart]> = ledger.members.values().map(Vec::as_slice).collect();
        let participants: Vec<Vec<PlayerIdx>> = ids
            .iter()
            .zip(&parts)
            .map(|(id, parts)| ledger.participants(book, id, parts))
            .collect();
        let mut latest: Vec<Option<R::State>> = vec![None; book.players.len() * lists];
        for (p, seeds) in book.seeds.iter().enumerate() {
            for (l, s) in seeds.iter().enumerate().take(lists) {
                if let Some(slot) = latest.get_mut(p * lists + l) {
                    slot.clone_from(s);
                }
            }
        }
        let mut awards: Vec<Vec<Award<R::Award>>> = book.held.clone();
        awards.resize(book.players.len(), Vec::new());
        let mut results: Vec<Option<UnitResult<R>>> = vec![None; ids.len()];
        let mut reached: Vec<AwardsByUnit<R>> = Vec::new();
        reached.resize_with(book.players.len(), BTreeMap::new);
        let threads = threads();
        for wave in waves(&participants, book.players.len()) {
            let rated: Vec<(usize, UnitResult<R>)> = {
                let before = Before {
                    book,
                    lists,
                    ids: &ids,
                    lanes: &ledger.lanes,
                    latest: &latest,
                    awards: &awards,
                };
                rate_wave(rulebook, &before, &wave, &parts, &participants, threads)
            };
            for (u, unit) in rated {
                let (key, list) = &ids[u];
                for (&p, state) in &unit.states {
                    if let Some(slot) = latest.get_mut(p * lists + list) {
                        *slot = Some(state.clone());
                    }
                    ledger.lanes.set_state(p, *list, key, state);
                }
                for a in &unit.awards {
                    if let Some(held) = awards.get_mut(a.player) {
                        held.push(a.clone());
                    }
                    if reached.len() <= a.player {
                        reached.resize_with(a.player + 1, BTreeMap::new);
                    }
                    reached[a.player]
                        .entry(ids[u].clone())
                        .or_default()
                        .push(a.clone());
                }
                results[u] = Some(unit);
            }
        }
        ledger.reached = reached;
        ledger.units = ids
            .into_iter()
            .zip(results)
            .filter_map(|(id, unit)| unit.map(|u| (id, Arc::new(u))))
            .collect();
        ledger
    }

    /// Rebuilds a ledger from stored unit results without rating anything: the events placed
    /// and the states laid out side by side, on two cores when there are.
    pub fn from_units(rulebook: &R, book: &Book<R>, units: Units<R>) -> Self {
        let lists = rulebook.lists().len();
        let mut ledger = Self::empty(lists, book);
        let ((members, placed, plays), (lanes, reached)) = std::thread::scope(|s| {
            let states = s.spawn(|| stored_states(&units, book.players.len(), lists));
            // The stored states are read on a thread beside them; the events' placements are
            // shared out among the cores too (three threads on two cores while the states are
            // read: the placements' jobs are taken one at a time, so none waits on another).
            let placements = placements(rulebook, book, lists, threads());
            match states.join() {
                Ok(states) => (placements, states),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        });
        ledger.members = members;
        ledger.placed = placed;
        ledger.lanes = Lanes::from_parts(lists, lanes, plays);
        ledger.reached = reached;
        ledger.units = units;
        ledger
    }
}

/// Rates the units of one wave, on up to `threads` threads; the results in the wave's order.
fn rate_wave<R: Rulebook>(
    rulebook: &R,
    before: &Before<'_, R>,
    wave: &[usize],
    parts: &[&[EventPart]],
    participants: &[Vec<PlayerIdx>],
    threads: usize,
) -> Vec<(usize, UnitResult<R>)> {
    let rated = map_on_cores(wave, threads, |&u| {
        before.rate(rulebook, u, parts[u], &participants[u])
    });
    wave.iter().copied().zip(rated).collect()
}
