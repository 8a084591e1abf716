//! Incremental recalculation: when events change, re-rate their units, and every player whose
//! state or awards came out different dirties his next unit (and the units before it in which
//! he plays without being rated, which read his state too); keep going in ledger order until
//! nothing changes. The result equals a from-scratch [`super::rate_all`] — the invariant the
//! property tests hold it to.
//!
//! An update can be journaled: what it replaced is kept, so that a preview is put back and the
//! same edit, applied, takes the preview's results instead of rating them again.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use fixedbitset::FixedBitSet;
use serde::{Deserialize, Serialize};

use super::ahead::{Ahead, ReadAhead, Reading};
use super::journal::Journal;
use super::lanes::Lanes;
use super::ratings::Ratings;
use super::restarted;
use crate::book::Book;
use crate::model::{Event, PlayerIdx};
use crate::paged::PagedBits;
use crate::rules::{
    Award, EventPart, ListId, PlayerRating, Previous, Rulebook, States, Unit, UnitKey,
};

/// One unit's published results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct UnitResult<R: Rulebook> {
    pub ratings: Ratings<R::Detail>,
    pub states: States<R::State>,
    pub awards: Vec<Award<R::Award>>,
}

/// Every unit's result, shared: the store writes a unit's result behind the screen while the
/// ledger goes on.
pub type Units<R> = BTreeMap<UnitId, Arc<UnitResult<R>>>;

/// A player's awards reached in each unit.
pub(super) type AwardsByUnit<R> = BTreeMap<UnitId, Vec<Award<<R as Rulebook>::Award>>>;

/// What changed in an update, for the units rated again in it: the players whose games in them
/// may have changed, and the events changed.
pub(super) struct Changes {
    pub players: FixedBitSet,
    pub events: BTreeSet<usize>,
}

/// Unit identity: its key and list.
pub type UnitId = (UnitKey, ListId);

/// Where one event is rated: a unit, and the players of the event's games in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Placed {
    pub id: UnitId,
    pub players: Vec<PlayerIdx>,
}

/// The derived ratings of a whole book, kept up to date edit by edit.
#[derive(Clone, Debug)]
pub struct Ledger<R: Rulebook> {
    pub(super) lists: usize,
    pub(super) units: Units<R>,
    /// Per unit, the parts of events it rates, in event order.
    pub(super) members: BTreeMap<UnitId, Vec<EventPart>>,
    /// Per event (by index), the units it is rated in.
    pub(super) placed: Vec<Vec<Placed>>,
    /// Per player and list, the units in which he has a state and those he plays in.
    pub(super) lanes: Lanes<R::State>,
    /// Per player (by index), the awards reached in each unit.
    pub(super) reached: Vec<AwardsByUnit<R>>,
    /// While an update is journaled: what it replaced.
    pub(super) journal: Option<Journal<R>>,
    /// Every event that has been a play-off (SSL 2.10), so that an update finds the play-offs
    /// of the events it re-rates without a walk over the whole book. Only ever grows: an entry
    /// is checked against the book when used.
    pub(super) playoffs: BTreeSet<usize>,
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

/// What an edit changed, as an update re-rates it: events changed as a whole (their details,
/// or a player's record that reaches them), and games keyed, corrected, added or taken away in
/// events otherwise as they were. A unit that holds none of the changed games, its parts as
/// they were, is not rated again for them; one that is rated again takes the rows and states
/// of the players untouched from what it published ([`Rulebook::rate_again`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Touched {
    /// Events changed as a whole.
    pub events: BTreeSet<usize>,
    /// Per event, its games changed.
    pub games: BTreeMap<usize, Vec<GameTouched>>,
}

/// A game changed: its (round, board), and its players before and after.
pub type GameTouched = ((u32, u32), Vec<PlayerIdx>);

impl Touched {
    /// Events changed as a whole.
    pub fn events(events: impl IntoIterator<Item = usize>) -> Self {
        Self {
            events: events.into_iter().collect(),
            games: BTreeMap::new(),
        }
    }

    /// A game of event `e` changed; `players` played it before or play it now.
    pub fn game(&mut self, e: usize, at: (u32, u32), players: impl IntoIterator<Item = PlayerIdx>) {
        let games = self.games.entry(e).or_default();
        let mut players: Vec<PlayerIdx> = players.into_iter().collect();
        players.sort_unstable();
        players.dedup();
        match games.iter_mut().find(|(g, _)| *g == at) {
            Some((_, known)) => {
                known.extend(players);
                known.sort_unstable();
                known.dedup();
            }
            None => games.push((at, players)),
        }
    }

    /// Adds what another edit changed.
    pub fn extend(&mut self, other: Touched) {
        self.events.extend(other.events);
        for (e, games) in other.games {
            for (at, players) in games {
                self.game(e, at, players);
            }
        }
    }

    /// Every event changed, as a whole or in a game.
    pub fn all_events(&self) -> BTreeSet<usize> {
        self.events
            .iter()
            .chain(self.games.keys())
            .copied()
            .collect()
    }
}

/// The players of the games of some event parts, sorted, once each.
pub(super) fn players_of(events: &[Event], parts: &[EventPart]) -> Vec<PlayerIdx> {
    let mut players: Vec<PlayerIdx> = parts
        .iter()
        .flat_map(|part| {
            part.games
                .iter()
                .filter_map(|&g| events.get(part.event)?.games.get(g))
        })
        .flat_map(|g| std::iter::once(g.white()).chain(g.black()))
        .collect();
    if players.len() > SORTED_UP_TO {
        return in_order(&players);
    }
    players.sort_unstable();
    players.dedup();
    // Kept for as long as the event is placed: without the room of its games' two sides (an
    // event of nine rounds holds each player about nine times before the dedup).
    players.shrink_to_fit();
    players
}

/// Up to how many players' games [`players_of`] sorts; more (a period of a federation's games)
/// are marked in a bitset over the player indices and read back in order.
const SORTED_UP_TO: usize = 4096;

/// Player indices once each, in order, from a bitset over them.
fn in_order(players: &[PlayerIdx]) -> Vec<PlayerIdx> {
    // Made once at its size (grown as larger players came, it was copied again and again).
    let words = players.iter().max().map_or(0, |&p| p / 64 + 1);
    let mut seen: Vec<u64> = vec![0; words];
    let mut count = 0;
    for &p in players {
        let (word, bit) = (p / 64, 1u64 << (p % 64));
        if seen[word] & bit == 0 {
            seen[word] |= bit;
            count += 1;
        }
    }
    let mut out = Vec::with_capacity(count);
    for (word, &bits) in seen.iter().enumerate() {
        let mut rest = bits;
        while rest != 0 {
            out.push(word * 64 + rest.trailing_zeros() as usize);
            rest &= rest - 1;
        }
    }
    out
}

/// Where event `e` is rated now: its units and the players of its games in each.
pub(super) fn placement<R: Rulebook>(
    rulebook: &R,
    book: &Book<R>,
    e: usize,
) -> Vec<(Placed, EventPart)> {
    let Some(event) = book.events.get(e) else {
        return Vec::new();
    };
    if !book.live.get(e).copied().unwrap_or(false) {
        return Vec::new();
    }
    let Some(list) = rulebook.list_in(event, &book.events) else {
        return Vec::new();
    };
    rulebook
        .units_of(e, event, list)
        .into_iter()
        .map(|(key, part)| {
            let players = players_of(&book.events, std::slice::from_ref(&part));
            (
                Placed {
                    id: (key, list),
                    players,
                },
                part,
            )
        })
        .collect()
}

/// Rates one unit, its participants' states and awards as the closures give them (`again`:
/// rated again from what it published, with what changed since).
#[allow(clippy::too_many_arguments)]
pub(super) fn rate_unit<'a, R: Rulebook>(
    rulebook: &R,
    book: &'a Book<R>,
    (key, list): &'a UnitId,
    parts: &'a [EventPart],
    state: &'a (dyn Fn(PlayerIdx) -> Option<&'a R::State> + Sync),
    state_on: &'a (dyn Fn(PlayerIdx, ListId) -> Option<&'a R::State> + Sync),
    awards: &'a (dyn Fn(PlayerIdx) -> &'a [Award<R::Award>] + Sync),
    again: Option<Previous<'_, R>>,
) -> UnitResult<R> {
    let unit = Unit::<R> {
        key,
        state_on,
        list: *list,
        parts,
        events: &book.events,
        players: &book.players,
        state,
        awards,
    };
    let outcome = again
        .and_then(|previous| rulebook.rate_again(&unit, &previous))
        .unwrap_or_else(|| rulebook.rate(&unit));
    UnitResult {
        ratings: Ratings::from_rows(outcome.ratings),
        states: States::from(outcome.states),
        awards: outcome.awards,
    }
}

impl<R: Rulebook> Ledger<R> {
    /// A ledger of nothing rated, for the book's events and players. Its lanes are left
    /// empty: both callers lay them out whole next (a lane of three empty lists for each of a
    /// million players and three lists is 216 MB, thrown away at once).
    pub(super) fn empty(lists: usize, book: &Book<R>) -> Self {
        Self {
            lists,
            units: BTreeMap::new(),
            members: BTreeMap::new(),
            placed: vec![Vec::new(); book.events.len()],
            lanes: Lanes::new(lists, 0),
            reached: Vec::new(),
            journal: None,
            playoffs: book
                .events
                .iter()
                .enumerate()
                .filter(|(_, ev)| ev.playoff_of.is_some())
                .map(|(e, _)| e)
                .collect(),
        }
    }

    pub fn units(&self) -> &Units<R> {
        &self.units
    }

    /// Every published rating in ledger order.
    pub fn ratings(&self) -> impl Iterator<Item = &PlayerRating<R::Detail>> {
        self.units.values().flat_map(|u| u.ratings.iter())
    }

    /// A player's state on a list after his last unit, or his seed; or the state of a re-entry
    /// of his since.
    pub fn state<'a>(
        &'a self,
        rulebook: &R,
        book: &'a Book<R>,
        player: PlayerIdx,
        list: ListId,
    ) -> Option<Cow<'a, R::State>> {
        let lane = self.lanes.get(player, list);
        let since = || lane.and_then(|l| l.last_key());
        if let Some(s) = restarted(rulebook, book.players.get(player), list, since, &|_| true) {
            return Some(Cow::Owned(s));
        }
        lane.and_then(|lane| lane.last())
            .or_else(|| seed(book, player, list))
            .map(Cow::Borrowed)
    }

    /// A player's state on a list after his units dated on or before `date` (a unit's date is
    /// its events' end), or his seed; or the state of a re-entry of his since, dated so too.
    pub fn state_on<'a>(
        &'a self,
        rulebook: &R,
        book: &'a Book<R>,
        player: PlayerIdx,
        list: ListId,
        date: chrono::NaiveDate,
    ) -> Option<Cow<'a, R::State>> {
        let own = self
            .lanes
            .get(player, list)
            .and_then(|lane| lane.keyed_on(date));
        let since = || own.map(|(k, _)| k);
        let upto = |k: &UnitKey| k.date <= date;
        if let Some(s) = restarted(rulebook, book.players.get(player), list, since, &upto) {
            return Some(Cow::Owned(s));
        }
        own.map(|(_, s)| s)
            .or_else(|| seed(book, player, list))
            .map(Cow::Borrowed)
    }

    /// A player's awards: held before the ledger and reached since, in order.
    pub fn awards(&self, book: &Book<R>, player: PlayerIdx) -> Vec<Award<R::Award>> {
        let mut all: Vec<Award<R::Award>> = book.held.get(player).cloned().unwrap_or_default();
        if let Some(reached) = self.reached.get(player) {
            all.extend(reached.values().flatten().cloned());
        }
        all
    }

    /// The ratings an event published, on whichever list and in whichever units it is rated.
    pub fn event_ratings(&self, event: usize) -> Vec<&PlayerRating<R::Detail>> {
        self.placed
            .get(event)
            .into_iter()
            .flatten()
            .filter_map(|placed| self.units.get(&placed.id))
            .flat_map(|u| u.ratings.iter().filter(|r| r.event == event))
            .collect()
    }

    /// The units an event is rated in, in the order [`Ledger::event_ratings`] reads them.
    pub fn units_of_event(&self, event: usize) -> impl Iterator<Item = &UnitId> {
        self.placed
            .get(event)
            .into_iter()
            .flatten()
            .map(|placed| &placed.id)
    }

    /// A player's ratings on a list, in ledger order.
    pub fn history(&self, player: PlayerIdx, list: ListId) -> Vec<&PlayerRating<R::Detail>> {
        let Some(lane) = self.lanes.get(player, list) else {
            return Vec::new();
        };
        lane.keys()
            .filter_map(|k| self.units.get(&(k.clone(), list)))
            .flat_map(|u| u.ratings.iter().filter(|r| r.player == player))
            .collect()
    }

    /// The state a player brings to the unit at `key` on `list`: the one his last unit before it
    /// gave him, or his seed.
    pub(super) fn state_before<'a>(
        &'a self,
        book: &'a Book<R>,
        player: PlayerIdx,
        list: ListId,
        key: &UnitKey,
    ) -> Option<&'a R::State> {
        self.lanes
            .get(player, list)
            .and_then(|lane| lane.state_before(key))
            .or_else(|| seed(book, player, list))
    }

    /// The state a player brings to the unit at `key` on `list`: [`Ledger::state_before`], or
    /// the state of a re-entry of his since the unit that gave it.
    pub(super) fn state_brought(
        &self,
        rulebook: &R,
        book: &Book<R>,
        player: PlayerIdx,
        list: ListId,
        key: &UnitKey,
    ) -> Option<R::State> {
        let since = || {
            let lane = self.lanes.get(player, list)?;
            lane.keyed_before(key).map(|(k, _)| k)
        };
        let info = book.players.get(player);
        if let Some(state) = restarted(rulebook, info, list, since, &|k| k <= key) {
            return Some(state);
        }
        self.state_before(book, player, list, key).cloned()
    }

    /// The awards a player holds before the unit `id`.
    pub(super) fn awards_before(
        &self,
        book: &Book<R>,
        player: PlayerIdx,
        id: &UnitId,
    ) -> Vec<Award<R::Award>> {
        let mut all: Vec<Award<R::Award>> = book.held.get(player).cloned().unwrap_or_default();
        if let Some(reached) = self.reached.get(player).filter(|r| !r.is_empty()) {
            all.extend(
                reached
                    .range(..id.clone())
                    .flat_map(|(_, a)| a.iter().cloned()),
            );
        }
        all
    }

    /// The players of a unit's games (sorted): those placed with each of its parts (no need to
    /// go over the games again: a part's players are a few dozen, its games' sides several
    /// times as many), or, for a part not placed once, gathered from the games.
    pub(super) fn participants(
        &self,
        book: &Book<R>,
        id: &UnitId,
        parts: &[EventPart],
    ) -> Vec<PlayerIdx> {
        // An event placed twice in one unit (no rulebook does so) is gathered from its games.
        let placed_with = |part: &EventPart| {
            let mut placed = self.placed.get(part.event)?.iter().filter(|p| p.id == *id);
            let one = placed.next()?;
            placed.next().is_none().then_some(one.players.as_slice())
        };
        let Some(each) = parts.iter().map(placed_with).collect::<Option<Vec<_>>>() else {
            return players_of(&book.events, parts);
        };
        if let [players] = each.as_slice() {
            return players.to_vec();
        }
        let mut players: Vec<PlayerIdx> = Vec::with_capacity(each.iter().map(|p| p.len()).sum());
        for part in each {
            players.extend_from_slice(part);
        }
        if players.len() > SORTED_UP_TO {
            return in_order(&players);
        }
        players.sort_unstable();
        players.dedup();
        players
    }

    /// Records which units event `e` now belongs to; returns the units to rate again for it,
    /// and adds to `changed` the players whose games in them may have changed. An event
    /// changed as a whole (`games`: `None`) is rated again in every unit it left or joined, for
    /// all its players. One whose `games` alone changed is rated again only in the units whose
    /// part of it changed or holds one of those games, for the players of those games and
    /// those who joined or left a unit with them (all of the event's players in a unit it
    /// joined or left): a result keyed today may move its game to another unit (ISL: the
    /// period of the day it was received), and the other players' games are where they were.
    fn place(
        &mut self,
        rulebook: &R,
        book: &Book<R>,
        e: usize,
        games: Option<&[GameTouched]>,
        changed: &mut FixedBitSet,
    ) -> Vec<UnitId> {
        let new = placement(rulebook, book, e);
        if self.placed.len() <= e {
            self.placed.resize(e + 1, Vec::new());
        }
        self.save_placed(e);
        // Where the changed games stand among the event's games now (a game taken away stands
        // nowhere: the parts it was in are no longer as they were).
        let at: Option<Vec<usize>> = games.map(|games| {
            let all = book.events.get(e).map_or(&[][..], |ev| ev.games.as_slice());
            games
                .iter()
                .filter_map(|(key, _)| all.binary_search_by_key(key, |g| (g.round, g.board)).ok())
                .collect()
        });
        for (_, players) in games.into_iter().flatten() {
            mark(changed, players);
        }
        // The event's placements as they were, each with its part taken out of its unit.
        let mut old: Vec<Option<(Placed, Option<EventPart>)>> = std::mem::take(&mut self.placed[e])
            .into_iter()
            .map(|placed| {
                let part = self.take_part(&placed.id, e);
                Some((placed, part))
            })
            .collect();
        let mut touched: Vec<UnitId> = Vec::new();
        let mut touch = |id: &UnitId| {
            if !touched.contains(id) {
                touched.push(id.clone());
            }
        };
        for (placed, part) in new {
            // The same unit as before, if the event was in it: the players who joined or left
            // it with this edit change lanes, and their games in it changed (all of the event's,
            // in a unit it joined); the others keep theirs.
            let was = old
                .iter_mut()
                .find(|o| o.as_ref().is_some_and(|(o, _)| o.id == placed.id))
                .and_then(Option::take);
            let (was_players, was_part) = match was {
                Some((was, part)) => (was.players, part),
                None => (Vec::new(), None),
            };
            self.move_plays(&placed.id, &was_players, &placed.players, changed);
            match &at {
                Some(at) => {
                    let part_changed = was_part.is_none_or(|was| was.games != part.games);
                    if part_changed || part.games.iter().any(|g| at.contains(g)) {
                        touch(&placed.id);
                    }
                }
                None => {
                    mark(changed, &was_players);
                    mark(changed, &placed.players);
                    touch(&placed.id);
                }
            }
            self.save_members(&placed.id);
            let parts = self.members.entry(placed.id.clone()).or_default();
            let at = parts.partition_point(|p| p.event < e);
            parts.insert(at, part);
            self.placed[e].push(placed);
        }
        // The units the event left: rated again without it, for all its players there.
        for (placed, _) in old.into_iter().flatten() {
            self.move_plays(&placed.id, &placed.players, &[], changed);
            touch(&placed.id);
        }
        touched
    }

    /// Takes event `e`'s part out of the unit `id` (journaled), dropping a unit left empty.
    fn take_part(&mut self, id: &UnitId, e: usize) -> Option<EventPart> {
        self.save_members(id);
        let parts = self.members.get_mut(id)?;
        let part = parts
            .iter()
            .position(|part| part.event == e)
            .map(|i| parts.remove(i));
        parts.retain(|part| part.event != e);
        if parts.is_empty() {
            self.members.remove(id);
        }
        part
    }

    /// The players of unit `id` were `before` and are `after` (both sorted): those who joined
    /// or left it play there now or no more (their lanes say so), and their games in it
    /// changed (marked in `changed`).
    fn move_plays(
        &mut self,
        (key, list): &UnitId,
        before: &[PlayerIdx],
        after: &[PlayerIdx],
        changed: &mut FixedBitSet,
    ) {
        for_each_difference(before, after, |p, joined| {
            changed.grow_and_insert(p);
            let lane = self.lanes.get_mut(p, *list);
            if joined {
                lane.add_play(key);
            } else {
                lane.remove_play(key);
            }
        });
    }

    /// Updates the players' lanes and the award index for a unit whose result goes from `old`
    /// to `new`, whose players' states moved as `moved` says ([`differences`]).
    fn index(
        &mut self,
        id: &UnitId,
        moved: &Moved<'_, R::State>,
        old: Option<&UnitResult<R>>,
        new: Option<&UnitResult<R>>,
    ) {
        let (key, list) = id;
        for &(p, state) in moved {
            match state {
                Some(state) => self.lanes.get_mut(p, *list).set_state(key, state),
                None => self.lanes.get_mut(p, *list).remove_state(key),
            }
        }
        let no_awards: &[Award<R::Award>] = &[];
        let old_awards = old.map_or(no_awards, |u| &u.awards);
        let new_awards = new.map_or(no_awards, |u| &u.awards);
        if old_awards == new_awards {
            return;
        }
        for a in old_awards {
            self.save_reached(a.player);
            if let Some(r) = self.reached.get_mut(a.player) {
                r.remove(id);
            }
        }
        for a in new_awards {
            self.save_reached(a.player);
            if self.reached.len() <= a.player {
                self.reached.resize_with(a.player + 1, BTreeMap::new);
            }
            self.reached[a.player]
                .entry(id.clone())
                .or_default()
                .push(a.clone());
        }
    }

    /// Re-rates the units of the given events, changed as a whole, and everything that follows
    /// from them.
    pub fn update(
        &mut self,
        rulebook: &R,
        book: &Book<R>,
        events: impl IntoIterator<Item = usize>,
    ) -> Update<R> {
        self.update_touched(rulebook, book, &Touched::events(events))
    }

    /// Re-rates what an edit changed ([`Touched`]) and everything that follows from it.
    pub fn update_touched(&mut self, rulebook: &R, book: &Book<R>, touched: &Touched) -> Update<R> {
        let mut queue: BTreeSet<UnitId> = BTreeSet::new();
        let events: BTreeSet<usize> = touched.all_events();
        self.playoffs.extend(
            events
                .iter()
                .filter(|&&e| book.events.get(e).is_some_and(|ev| ev.playoff_of.is_some())),
        );
        // A play-off's list follows the event it decides (SSL 2.10): when that event changes,
        // its play-offs are placed again too.
        let ids: BTreeSet<&str> = events
            .iter()
            .filter_map(|&e| book.events.get(e))
            .map(|e| e.id.as_str())
            .collect();
        let playoffs = self.playoffs.iter().copied().filter(|&e| {
            book.events
                .get(e)
                .and_then(|ev| ev.playoff_of.as_deref())
                .is_some_and(|id| ids.contains(id))
        });
        let all: BTreeSet<usize> = events.iter().copied().chain(playoffs).collect();
        // Grown to the highest player marked: a key press marks two, not every player.
        let mut changed = FixedBitSet::new();
        for &e in &all {
            if e < book.events.len() {
                // A play-off placed again for the event it decides is changed as a whole.
                let games = touched
                    .games
                    .get(&e)
                    .filter(|_| !touched.events.contains(&e))
                    .map(Vec::as_slice);
                queue.extend(self.place(rulebook, book, e, games, &mut changed));
            }
        }
        // Every unit is rated again from what it published: the players of the changed games
        // (and of the events changed as a whole), and those moved so far, rated anew.
        let changes = Changes {
            players: changed,
            events: all,
        };
        let mut update = Update::default();
        let mut ahead = Ahead::new(rulebook);
        let reading = Reading::new();
        std::thread::scope(|scope| {
            let mut read_ahead = ReadAhead::new(scope, &reading);
            self.cascade(
                rulebook,
                book,
                &changes,
                queue,
                &mut update,
                &mut ahead,
                &mut read_ahead,
            );
            read_ahead.stop();
        });
        update
    }

    /// Rates the units of `queue` in order, and every unit reached by a player they moved.
    #[allow(clippy::too_many_arguments)]
    fn cascade(
        &mut self,
        rulebook: &R,
        book: &Book<R>,
        changes: &Changes,
        mut queue: BTreeSet<UnitId>,
        update: &mut Update<R>,
        ahead: &mut Ahead<R>,
        read_ahead: &mut ReadAhead<'_, '_, R>,
    ) {
        // What the moved players had, gathered as the units are rated and put in the update's
        // maps once at the end: a year imported moves each of a hundred thousand players in a
        // unit after unit, and a look-up in those maps for every move was much of its time.
        let mut gathered = Gathered::new(self.lists);
        while let Some(id) = queue.pop_first() {
            update.units.push(id.clone());
            let old = self.units.remove(&id);
            // Its rows read now, for a unit rated again from what it published (none for a unit
            // that no longer rates anything).
            if let Some(old) = old
                .as_ref()
                .filter(|_| rulebook.rates_again() && self.members.contains_key(&id))
            {
                read_ahead.ready(old);
            }
            let new = self.rate(rulebook, book, &id, old.as_deref(), changes, &queue, ahead);
            let (states_moved, awards_moved) = differences(old.as_deref(), new.as_ref());
            let moved: Vec<PlayerIdx> = states_moved.iter().map(|&(p, _)| p).collect();
            // Before the new result is indexed, remember what the moved players had.
            let list = id.1;
            for &p in moved.iter().chain(&awards_moved) {
                if gathered.first_state(p, list) {
                    // The lanes still hold what the unit gave before (with a re-entry of his
                    // since in its place, as the state after the update is read).
                    let state = self.state(rulebook, book, p, list);
                    gathered
                        .states
                        .push(((p, list), state.map(Cow::into_owned)));
                }
                if gathered.first_awards(p) {
                    gathered.awards.push((p, self.awards(book, p)));
                }
            }
            self.index(&id, &states_moved, old.as_deref(), new.as_ref());
            drop(states_moved);
            if let Some(unit) = new {
                self.units.insert(id.clone(), Arc::new(unit));
            }
            self.keep_replaced(&id, old);
            // The next unit of every player whose outcome moved must see the new outcome (on
            // every list that reads this one, when a rulebook reads states across lists).
            for &p in &moved {
                for l in 0..self.lists {
                    if l == list || rulebook.reads_list(l, list) {
                        self.next_units(p, l, &id.0, &mut queue);
                    }
                }
            }
            for &p in &awards_moved {
                for l in 0..self.lists {
                    self.next_units(p, l, &id.0, &mut queue);
                }
            }
            ahead.done(list, moved.iter().copied(), awards_moved.iter().copied());
            if rulebook.rates_again() {
                read_ahead.read(&queue, &self.units);
            }
        }
        gathered.into_update(update);
    }

    /// Queues the units on a list after `after` that read the player's state as it stands
    /// after it.
    fn next_units(
        &self,
        player: PlayerIdx,
        list: ListId,
        after: &UnitKey,
        queue: &mut BTreeSet<UnitId>,
    ) {
        if let Some(lane) = self.lanes.get(player, list) {
            lane.for_readers_after(after, |key| {
                queue.insert((key.clone(), list));
            });
        }
    }
}

/// A player's place on a list.
type LaneId = (PlayerIdx, ListId);

/// What a cascade's moved players had before it, gathered as it goes ([`Ledger::cascade`]).
struct Gathered<R: Rulebook> {
    lists: usize,
    /// Whether a player's state on a list (at `player × lists + list`), and his awards, are
    /// gathered already (in pages: a keyed result moves a few players of a million).
    state_seen: PagedBits,
    awards_seen: PagedBits,
    states: Vec<(LaneId, Option<R::State>)>,
    awards: Vec<(PlayerIdx, Vec<Award<R::Award>>)>,
}

impl<R: Rulebook> Gathered<R> {
    fn new(lists: usize) -> Self {
        Self {
            lists,
            state_seen: PagedBits::new(),
            awards_seen: PagedBits::new(),
            states: Vec::new(),
            awards: Vec::new(),
        }
    }

    /// Whether this is the first move of the player's state on `list` (now marked).
    fn first_state(&mut self, p: PlayerIdx, list: ListId) -> bool {
        self.state_seen.insert(p * self.lists + list)
    }

    /// Whether this is the player's first move (now marked), for his awards.
    fn first_awards(&mut self, p: PlayerIdx) -> bool {
        self.awards_seen.insert(p)
    }

    /// Into the update's maps (a cascade's own, new; each key gathered once). Every player
    /// moved has his awards gathered: the players moved are those, in order.
    fn into_update(self, update: &mut Update<R>) {
        debug_assert!(update.players.is_empty(), "a cascade's update is its own");
        update.players.extend(self.awards.iter().map(|(p, _)| *p));
        update.states_before.extend(self.states);
        update.awards_before.extend(self.awards);
    }
}

/// Marks the players in `changed`.
fn mark(changed: &mut FixedBitSet, players: &[PlayerIdx]) {
    for &p in players {
        changed.grow_and_insert(p);
    }
}

/// Walks two sorted lists of players once: `each(p, true)` for a player only in `after`,
/// `each(p, false)` for one only in `before`.
fn for_each_difference(
    before: &[PlayerIdx],
    after: &[PlayerIdx],
    mut each: impl FnMut(PlayerIdx, bool),
) {
    let (mut i, mut j) = (0, 0);
    loop {
        match (before.get(i), after.get(j)) {
            (None, None) => return,
            (Some(a), Some(b)) if a == b => {
                i += 1;
                j += 1;
            }
            (Some(&a), b) if b.is_none_or(|&b| a < b) => {
                each(a, false);
                i += 1;
            }
            (_, Some(&b)) => {
                each(b, true);
                j += 1;
            }
            (Some(_), None) => unreachable!("a player only before is handed on above"),
        }
    }
}

/// Players whose state moved, in order, each with his new one (`None`: he has none now).
type Moved<'a, S> = Vec<(PlayerIdx, Option<&'a S>)>;

/// The players whose state differs between two results of a unit, in order, with the new one
/// (`None`: he has none now) — found in one walk over both, for the cascade and the lanes
/// alike — and those whose awards differ.
fn differences<'a, R: Rulebook>(
    old: Option<&'a UnitResult<R>>,
    new: Option<&'a UnitResult<R>>,
) -> (Moved<'a, R::State>, BTreeSet<PlayerIdx>) {
    let states = |u: Option<&'a UnitResult<R>>| u.into_iter().flat_map(|u| u.states.iter());
    let moved: Moved<'a, R::State> = changed(states(old), states(new)).collect();
    let no_awards: &[Award<R::Award>] = &[];
    let old_awards = old.map_or(no_awards, |u| &u.awards);
    let new_awards = new.map_or(no_awards, |u| &u.awards);
    let mut awards_moved = BTreeSet::new();
    if old_awards != new_awards {
        for a in old_awards.iter().chain(new_awards) {
            let before = old_awards.iter().filter(|x| x.player == a.player);
            let after = new_awards.iter().filter(|x| x.player == a.player);
            if !before.eq(after) {
                awards_moved.insert(a.player);
            }
        }
    }
    (moved, awards_moved)
}

/// The players whose state differs between two units' states, with the new one (`None`: he
/// has none now), in one walk over both (they are sorted by player).
fn changed<'a, S: PartialEq + 'a>(
    old: impl Iterator<Item = (&'a PlayerIdx, &'a S)>,
    new: impl Iterator<Item = (&'a PlayerIdx, &'a S)>,
) -> impl Iterator<Item = (PlayerIdx, Option<&'a S>)> {
    let (mut old, mut new) = (old.peekable(), new.peekable());
    std::iter::from_fn(move || {
        loop {
            let p = match (old.peek(), new.peek()) {
                (None, None) => return None,
                (Some((a, _)), Some((b, _))) => (**a).min(**b),
                (Some((a, _)), None) => **a,
                (None, Some((b, _))) => **b,
            };
            let before = old.next_if(|(q, _)| **q == p).map(|(_, s)| s);
            let after = new.next_if(|(q, _)| **q == p).map(|(_, s)| s);
            if before != after {
                return Some((p, after));
            }
        }
    })
}

/// A player's seed on a list.
fn seed<R: Rulebook>(book: &Book<R>, player: PlayerIdx, list: ListId) -> Option<&R::State> {
    book.seeds
        .get(player)
        .and_then(|s| s.get(list))
        .and_then(Option::as_ref)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_players_are_read_back_in_order_once_each_as_a_sort_gives_them() {
        let players: Vec<PlayerIdx> = (0..20_000usize)
            .map(|i| (i * 7919) % 30_011)
            .chain([0, 63, 64, 65, 127, 128, 30_010, 0, 64])
            .collect();
        let mut sorted = players.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(in_order(&players), sorted);
        assert_eq!(in_order(&[]), Vec::<PlayerIdx>::new());
    }

    #[test]
    fn the_players_who_joined_and_left_are_named_once_each() {
        let mut seen = Vec::new();
        for_each_difference(&[1, 3, 5, 8], &[0, 3, 4, 8, 9], |p, joined| {
            seen.push((p, joined));
        });
        assert_eq!(
            seen,
            [(0, true), (1, false), (4, true), (5, false), (9, true)]
        );
        let mut none = 0;
        for_each_difference(&[2, 7], &[2, 7], |_, _| none += 1);
        for_each_difference(&[], &[], |_, _| none += 1);
        assert_eq!(none, 0);
        let mut all = Vec::new();
        for_each_difference(&[4, 6], &[], |p, joined| all.push((p, joined)));
        for_each_difference(&[], &[1], |p, joined| all.push((p, joined)));
        assert_eq!(all, [(4, false), (6, false), (1, true)]);
    }

    #[test]
    fn changed_walks_both_maps_once_and_names_every_difference() {
        let old: BTreeMap<PlayerIdx, i32> = [(1, 10), (2, 20), (4, 40), (6, 60)].into();
        let new: BTreeMap<PlayerIdx, i32> = [(0, 5), (2, 20), (4, 41), (5, 50)].into();
        let found: Vec<(PlayerIdx, Option<i32>)> = changed(old.iter(), new.iter())
            .map(|(p, s)| (p, s.copied()))
            .collect();
        assert_eq!(
            found,
            [
                (0, Some(5)),
                (1, None),
                (4, Some(41)),
                (5, Some(50)),
                (6, None)
            ]
        );
        assert_eq!(changed(old.iter(), old.iter()).count(), 0);
        assert_eq!(changed(BTreeMap::new().iter(), old.iter()).count(), 4);
    }
}
