//! Incremental recalculation: when events change, re-rate their units, and every player whose
//! state or awards came out different dirties his next unit (and the units before it in which
//! he plays without being rated, which read his state too); keep going in ledger order until
//! nothing changes. The result equals a from-scratch [`super::rate_all`] — the invariant the
//! property tests hold it to.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound::{Excluded, Included, Unbounded};

use serde::{Deserialize, Serialize};

use crate::book::Book;
use crate::model::{Event, PlayerIdx};
use crate::rules::{Award, EventPart, ListId, PlayerRating, Rulebook, Unit, UnitKey};

/// One unit's published results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct UnitResult<R: Rulebook> {
    pub ratings: Vec<PlayerRating<R::Detail>>,
    pub states: BTreeMap<PlayerIdx, R::State>,
    pub awards: Vec<Award<R::Award>>,
}

/// A player's awards reached in each unit.
type AwardsByUnit<R> = BTreeMap<UnitId, Vec<Award<<R as Rulebook>::Award>>>;

/// Unit identity: its key and list.
pub type UnitId = (UnitKey, ListId);

/// The derived ratings of a whole book, kept up to date edit by edit.
#[derive(Clone, Debug)]
pub struct Ledger<R: Rulebook> {
    units: BTreeMap<UnitId, UnitResult<R>>,
    /// Per unit, the parts of events it rates, in event order.
    members: BTreeMap<UnitId, Vec<EventPart>>,
    event_units: BTreeMap<usize, Vec<UnitId>>,
    /// Per player and list, the units in which he has a state.
    timeline: BTreeMap<(PlayerIdx, ListId), BTreeSet<UnitKey>>,
    /// Per player and list, the units in which he plays a game (with the number of their
    /// event parts that hold one): a unit may read the state of a participant it does not
    /// rate (SSL 3.8: a Finn without a selo in an event abroad), so a move of that state
    /// re-rates it too.
    participation: BTreeMap<(PlayerIdx, ListId), BTreeMap<UnitKey, u32>>,
    /// The players of each unit's part of an event, as they were placed.
    part_players: BTreeMap<(UnitId, usize), Vec<PlayerIdx>>,
    /// Per player, the awards reached in each unit.
    reached: BTreeMap<PlayerIdx, AwardsByUnit<R>>,
}

impl<R: Rulebook> Default for Ledger<R> {
    fn default() -> Self {
        Self {
            units: BTreeMap::new(),
            members: BTreeMap::new(),
            event_units: BTreeMap::new(),
            timeline: BTreeMap::new(),
            participation: BTreeMap::new(),
            part_players: BTreeMap::new(),
            reached: BTreeMap::new(),
        }
    }
}

/// What one update changed: the units re-rated, the players whose outcome moved, and their
/// final states and awards as they were before it.
#[derive(Clone, Debug, PartialEq)]
pub struct Update<R: Rulebook> {
    pub units: Vec<UnitId>,
    pub players: BTreeSet<PlayerIdx>,
    pub states_before: BTreeMap<(PlayerIdx, ListId), Option<R::State>>,
    pub awards_before: BTreeMap<PlayerIdx, Vec<Award<R::Award>>>,
}

impl<R: Rulebook> Default for Update<R> {
    fn default() -> Self {
        Self {
            units: Vec::new(),
            players: BTreeSet::new(),
            states_before: BTreeMap::new(),
            awards_before: BTreeMap::new(),
        }
    }
}

impl<R: Rulebook> Ledger<R> {
    /// Rates a whole book from scratch.
    pub fn build(rulebook: &R, book: &Book<R>) -> Self {
        let mut ledger = Self::default();
        ledger.propagate(rulebook, book, 0..book.events.len(), true);
        ledger
    }

    /// Rebuilds a ledger from stored unit results without rating anything.
    pub fn from_units(
        rulebook: &R,
        book: &Book<R>,
        units: BTreeMap<UnitId, UnitResult<R>>,
    ) -> Self {
        let mut ledger = Self {
            units,
            ..Self::default()
        };
        for (e, event) in book.events.iter().enumerate() {
            ledger.place(rulebook, book, e, event);
        }
        // Units come in ledger order, so every player's timeline is built already sorted, in
        // bulk rather than key by key.
        let mut timeline: BTreeMap<(PlayerIdx, ListId), Vec<UnitKey>> = BTreeMap::new();
        for ((key, list), unit) in &ledger.units {
            for p in unit.states.keys() {
                timeline.entry((*p, *list)).or_default().push(key.clone());
            }
            for a in &unit.awards {
                let reached = ledger.reached.entry(a.player).or_default();
                reached
                    .entry((key.clone(), *list))
                    .or_default()
                    .push(a.clone());
            }
        }
        ledger.timeline = timeline
            .into_iter()
            .map(|(k, keys)| (k, keys.into_iter().collect()))
            .collect();
        ledger
    }

    pub fn units(&self) -> &BTreeMap<UnitId, UnitResult<R>> {
        &self.units
    }

    /// Every published rating in ledger order.
    pub fn ratings(&self) -> impl Iterator<Item = &PlayerRating<R::Detail>> {
        self.units.values().flat_map(|u| u.ratings.iter())
    }

    /// A player's state on a list after his last unit, or his seed.
    pub fn state<'a>(
        &'a self,
        book: &'a Book<R>,
        player: PlayerIdx,
        list: ListId,
    ) -> Option<&'a R::State> {
        self.timeline
            .get(&(player, list))
            .and_then(|keys| keys.last())
            .and_then(|key| self.units.get(&(key.clone(), list)))
            .and_then(|u| u.states.get(&player))
            .or_else(|| book.seeds.get(player).and_then(|s| s[list].as_ref()))
    }

    /// A player's state on a list after his units dated on or before `date` (a unit's date is
    /// its events' end), or his seed.
    pub fn state_on<'a>(
        &'a self,
        book: &'a Book<R>,
        player: PlayerIdx,
        list: ListId,
        date: chrono::NaiveDate,
    ) -> Option<&'a R::State> {
        self.timeline
            .get(&(player, list))
            .and_then(|keys| keys.iter().rev().find(|k| k.date <= date))
            .and_then(|key| self.units.get(&(key.clone(), list)))
            .and_then(|u| u.states.get(&player))
            .or_else(|| book.seeds.get(player).and_then(|s| s[list].as_ref()))
    }

    /// A player's awards: held before the ledger and reached since, in order.
    pub fn awards(&self, book: &Book<R>, player: PlayerIdx) -> Vec<Award<R::Award>> {
        let mut all: Vec<Award<R::Award>> = book.held.get(player).cloned().unwrap_or_default();
        if let Some(reached) = self.reached.get(&player) {
            all.extend(reached.values().flatten().cloned());
        }
        all
    }

    /// The ratings an event published, on whichever list and in whichever units it is rated.
    pub fn event_ratings(&self, event: usize) -> Vec<&PlayerRating<R::Detail>> {
        self.event_units
            .get(&event)
            .into_iter()
            .flatten()
            .filter_map(|id| self.units.get(id))
            .flat_map(|u| u.ratings.iter().filter(|r| r.event == event))
            .collect()
    }

    /// A player's ratings on a list, in ledger order.
    pub fn history(&self, player: PlayerIdx, list: ListId) -> Vec<&PlayerRating<R::Detail>> {
        let Some(keys) = self.timeline.get(&(player, list)) else {
            return Vec::new();
        };
        keys.iter()
            .filter_map(|k| self.units.get(&(k.clone(), list)))
            .flat_map(|u| u.ratings.iter().filter(|r| r.player == player))
            .collect()
    }

    /// Records which units event `e` now belongs to; returns the units it left or joined.
    fn place(&mut self, rulebook: &R, book: &Book<R>, e: usize, event: &Event) -> Vec<UnitId> {
        let mut touched = self.event_units.remove(&e).unwrap_or_default();
        for id in &touched {
            for p in self
                .part_players
                .remove(&(id.clone(), e))
                .unwrap_or_default()
            {
                if let Some(units) = self.participation.get_mut(&(p, id.1)) {
                    if let Some(n) = units.get_mut(&id.0) {
                        *n -= 1;
                        if *n == 0 {
                            units.remove(&id.0);
                        }
                    }
                    if units.is_empty() {
                        self.participation.remove(&(p, id.1));
                    }
                }
            }
            if let Some(parts) = self.members.get_mut(id) {
                parts.retain(|part| part.event != e);
                if parts.is_empty() {
                    self.members.remove(id);
                }
            }
        }
        if book.live.get(e).copied().unwrap_or(false)
            && let Some(list) = rulebook.list_in(event, &book.events)
        {
            for (key, part) in rulebook.units_of(e, event, list) {
                let id = (key, list);
                let mut players: Vec<PlayerIdx> = part
                    .games
                    .iter()
                    .filter_map(|&g| event.games.get(g))
                    .flat_map(|g| std::iter::once(g.white).chain(g.black))
                    .collect();
                players.sort_unstable();
                players.dedup();
                for &p in &players {
                    *self
                        .participation
                        .entry((p, list))
                        .or_default()
                        .entry(id.0.clone())
                        .or_default() += 1;
                }
                self.part_players.insert((id.clone(), e), players);
                let parts = self.members.entry(id.clone()).or_default();
                let at = parts.partition_point(|p| p.event < e);
                parts.insert(at, part);
                self.event_units.entry(e).or_default().push(id.clone());
                touched.push(id);
            }
        }
        touched
    }

    /// Adds a unit's players to the timeline and award index, after removing `old`'s.
    fn index(&mut self, id: &UnitId, old: Option<&UnitResult<R>>) {
        let (key, list) = id;
        if let Some(old) = old {
            for p in old.states.keys() {
                if let Some(keys) = self.timeline.get_mut(&(*p, *list)) {
                    keys.remove(key);
                }
            }
            for a in &old.awards {
                if let Some(r) = self.reached.get_mut(&a.player) {
                    r.remove(id);
                }
            }
        }
        if let Some(unit) = self.units.get(id) {
            for p in unit.states.keys() {
                self.timeline
                    .entry((*p, *list))
                    .or_default()
                    .insert(key.clone());
            }
            for a in &unit.awards {
                self.reached
                    .entry(a.player)
                    .or_default()
                    .entry(id.clone())
                    .or_default()
                    .push(a.clone());
            }
        }
    }

    /// Re-rates the units of the given events and everything that follows from them.
    pub fn update(
        &mut self,
        rulebook: &R,
        book: &Book<R>,
        events: impl IntoIterator<Item = usize>,
    ) -> Update<R> {
        self.propagate(rulebook, book, events, false)
    }

    fn propagate(
        &mut self,
        rulebook: &R,
        book: &Book<R>,
        events: impl IntoIterator<Item = usize>,
        from_scratch: bool,
    ) -> Update<R> {
        let mut queue: BTreeSet<UnitId> = BTreeSet::new();
        let events: BTreeSet<usize> = events.into_iter().collect();
        // A play-off's list follows the event it decides (SSL 2.10): when that event changes,
        // its play-offs are placed again too.
        let playoffs: Vec<usize> = if from_scratch {
            Vec::new()
        } else {
            let ids: BTreeSet<&str> = events
                .iter()
                .filter_map(|&e| book.events.get(e))
                .map(|e| e.id.as_str())
                .collect();
            book.events
                .iter()
                .enumerate()
                .filter(|(_, ev)| ev.playoff_of.as_deref().is_some_and(|id| ids.contains(id)))
                .map(|(i, _)| i)
                .collect()
        };
        for e in events.iter().copied().chain(playoffs) {
            if let Some(event) = book.events.get(e) {
                queue.extend(self.place(rulebook, book, e, event));
            }
        }
        let lists = rulebook.lists().len();
        let mut update = Update::default();
        // From scratch, units are rated in ledger order, so the state before a unit is each
        // player's latest: kept at hand, by player and list, starting from the seeds.
        let mut latest: Vec<Option<R::State>> = if from_scratch {
            book.seeds
                .iter()
                .flat_map(|s| (0..lists).map(move |l| s.get(l).cloned().flatten()))
                .collect()
        } else {
            Vec::new()
        };
        while let Some(id) = queue.pop_first() {
            update.units.push(id.clone());
            let old = self.units.remove(&id);
            let new = self.members.get(&id).map(|parts| {
                let before = from_scratch.then_some((latest.as_slice(), lists));
                self.rate(rulebook, book, &id, parts, before)
            });
            if from_scratch {
                // Every unit was queued from the start and is rated in order: no outcome needs
                // comparing, and every next unit is already waiting.
                if let Some(unit) = new {
                    for (p, state) in &unit.states {
                        if let Some(slot) = latest.get_mut(p * lists + id.1) {
                            *slot = Some(state.clone());
                        }
                    }
                    self.units.insert(id.clone(), unit);
                }
                self.index(&id, old.as_ref());
                continue;
            }
            let mut moved: BTreeSet<PlayerIdx> = BTreeSet::new();
            let mut awards_moved: BTreeSet<PlayerIdx> = BTreeSet::new();
            let empty = BTreeMap::new();
            let old_states = old.as_ref().map_or(&empty, |u| &u.states);
            let new_states = new.as_ref().map_or(&empty, |u| &u.states);
            for p in old_states.keys().chain(new_states.keys()) {
                if old_states.get(p) != new_states.get(p) {
                    moved.insert(*p);
                }
            }
            let awards_of = |u: &Option<UnitResult<R>>| -> Vec<Award<R::Award>> {
                u.as_ref().map(|u| u.awards.clone()).unwrap_or_default()
            };
            let (old_awards, new_awards) = (awards_of(&old), awards_of(&new));
            for a in old_awards.iter().chain(&new_awards) {
                let before: Vec<_> = old_awards.iter().filter(|x| x.player == a.player).collect();
                let after: Vec<_> = new_awards.iter().filter(|x| x.player == a.player).collect();
                if before != after {
                    awards_moved.insert(a.player);
                }
            }
            // Before the new result is indexed, remember what the moved players had.
            for &p in moved.iter().chain(&awards_moved) {
                let list = id.1;
                if let std::collections::btree_map::Entry::Vacant(slot) =
                    update.states_before.entry((p, list))
                {
                    let last = self.timeline.get(&(p, list)).and_then(|k| k.last());
                    let before = match last {
                        Some(k) if *k == id.0 => old_states.get(&p).cloned(),
                        Some(k) => self
                            .units
                            .get(&(k.clone(), list))
                            .and_then(|u| u.states.get(&p))
                            .cloned(),
                        None => book.seeds.get(p).and_then(|s| s[list].clone()),
                    };
                    slot.insert(before);
                }
                update
                    .awards_before
                    .entry(p)
                    .or_insert_with(|| self.awards(book, p));
            }
            if let Some(unit) = new {
                self.units.insert(id.clone(), unit);
            }
            self.index(&id, old.as_ref());
            // The next unit of every player whose outcome moved must see the new outcome (on
            // every list, when a rulebook reads states across lists).
            let cross = rulebook.reads_other_lists();
            for &p in &moved {
                for list in 0..lists {
                    if list != id.1 && !cross {
                        continue;
                    }
                    queue.extend(self.next_units(p, list, &id.0));
                }
            }
            for &p in &awards_moved {
                for list in 0..lists {
                    queue.extend(self.next_units(p, list, &id.0));
                }
            }
            update.players.extend(moved);
            update.players.extend(awards_moved);
        }
        update
    }

    /// The units on a list after `after` that read the player's state as it stands after
    /// `after`: his next unit with a state (which carries it on) and every unit up to it in
    /// which he plays without one (a unit may read a participant it does not rate).
    fn next_units(&self, player: PlayerIdx, list: ListId, after: &UnitKey) -> Vec<UnitId> {
        let next = self.timeline.get(&(player, list)).and_then(|keys| {
            keys.range::<UnitKey, _>((Excluded(after), Unbounded))
                .next()
        });
        let until = next.map_or(Unbounded, Included);
        let readers = self
            .participation
            .get(&(player, list))
            .into_iter()
            .flat_map(|units| units.range::<UnitKey, _>((Excluded(after), until)))
            .map(|(k, _)| k);
        readers.chain(next).map(|k| (k.clone(), list)).collect()
    }

    /// Rates one unit; `latest` (from scratch: every player's latest state by `player × lists +
    /// list`, and the number of lists) spares looking each state up in the timeline.
    fn rate(
        &self,
        rulebook: &R,
        book: &Book<R>,
        id: &UnitId,
        parts: &[EventPart],
        latest: Option<(&[Option<R::State>], usize)>,
    ) -> UnitResult<R> {
        let (key, list) = id;
        let mut players: BTreeSet<PlayerIdx> = BTreeSet::new();
        for part in parts {
            for &g in &part.games {
                let game = &book.events[part.event].games[g];
                players.insert(game.white);
                players.extend(game.black);
            }
        }
        let states: BTreeMap<PlayerIdx, Option<&R::State>> = players
            .iter()
            .map(|&p| {
                let state = match latest {
                    Some((states, lists)) => states.get(p * lists + list).and_then(Option::as_ref),
                    None => self.state_before(book, p, *list, key),
                };
                (p, state)
            })
            .collect();
        let awards: BTreeMap<PlayerIdx, Vec<Award<R::Award>>> = players
            .iter()
            .map(|&p| (p, self.awards_before(book, p, id)))
            .collect();
        let state_of = |p: PlayerIdx| states.get(&p).copied().flatten();
        let state_on = |p: PlayerIdx, other: ListId| self.state_before(book, p, other, key);
        let awards_of = |p: PlayerIdx| awards.get(&p).map_or(&[][..], |a| a.as_slice());
        let unit = Unit::<R> {
            key,
            state_on: &state_on,
            list: *list,
            parts,
            events: &book.events,
            players: &book.players,
            state: &state_of,
            awards: &awards_of,
        };
        let outcome = rulebook.rate(&unit);
        UnitResult {
            ratings: outcome.ratings,
            states: outcome.states.into_iter().collect(),
            awards: outcome.awards,
        }
    }

    fn state_before<'a>(
        &'a self,
        book: &'a Book<R>,
        player: PlayerIdx,
        list: ListId,
        key: &UnitKey,
    ) -> Option<&'a R::State> {
        self.timeline
            .get(&(player, list))
            .and_then(|keys| {
                keys.range::<UnitKey, _>((Unbounded, Excluded(key)))
                    .next_back()
            })
            .and_then(|k| self.units.get(&(k.clone(), list)))
            .and_then(|u| u.states.get(&player))
            .or_else(|| book.seeds.get(player).and_then(|s| s[list].as_ref()))
    }

    fn awards_before(
        &self,
        book: &Book<R>,
        player: PlayerIdx,
        id: &UnitId,
    ) -> Vec<Award<R::Award>> {
        let mut all: Vec<Award<R::Award>> = book.held.get(player).cloned().unwrap_or_default();
        if let Some(reached) = self.reached.get(&player) {
            all.extend(
                reached
                    .range(..id.clone())
                    .flat_map(|(_, a)| a.iter().cloned()),
            );
        }
        all
    }
}
