//! The ledger: the order in which rating units are processed and the players' states between
//! them. A rulebook says which unit each event belongs to and rates one unit; the ledger runs
//! the units in order and keeps every state, result and award.
//!
//! It knows nothing of storage or the terminal.

mod ahead;
mod build;
mod incremental;
mod journal;
mod lanes;
mod ratings;

use std::collections::BTreeMap;

pub use incremental::{Ledger, Touched, UnitId, UnitResult, Units, Update};
pub use journal::Journal;
pub use ratings::{Decoder, Ratings};

use crate::model::{Event, PlayerIdx, PlayerInfo};
use crate::rules::{Award, EventPart, ListId, PlayerRating, Rulebook, Unit, UnitKey};

/// Everything a run of the ledger produced.
pub struct LedgerRun<R: Rulebook> {
    /// The list of each event (`None`: not rated).
    pub lists: Vec<Option<ListId>>,
    /// Event indices in ledger order.
    pub order: Vec<usize>,
    /// Every published rating, in processing order.
    pub ratings: Vec<PlayerRating<R::Detail>>,
    /// Per event, indices into `ratings`.
    pub by_event: Vec<Vec<usize>>,
    /// Per player, indices into `ratings`, in processing order.
    pub by_player: Vec<Vec<usize>>,
    /// Per player and list, the state his last unit gave him (a re-entry after it is not in
    /// it: `Ledger::state` applies one).
    pub states: Vec<Vec<Option<R::State>>>,
    /// Per player, awards held on input and reached since, in order.
    pub awards: Vec<Vec<Award<R::Award>>>,
}

impl<R: Rulebook> LedgerRun<R> {
    /// A player's ratings on one list, in ledger order.
    pub fn history(&self, player: PlayerIdx, list: ListId) -> Vec<&PlayerRating<R::Detail>> {
        self.by_player[player]
            .iter()
            .map(|&i| &self.ratings[i])
            .filter(|r| self.lists[r.event] == Some(list))
            .collect()
    }
}

/// The state that replaces a player's own before a point of the ledger (the unit at `key`, or
/// what `upto` admits): his newest re-entry after `since`, the unit that gave him his state
/// (`Rulebook::restart`). `None` under a rulebook without re-entries and for a player without
/// any; `since` is looked up only for a player with one.
pub(crate) fn restarted<'k, R: Rulebook>(
    rulebook: &R,
    info: Option<&PlayerInfo>,
    list: ListId,
    since: impl FnOnce() -> Option<&'k UnitKey>,
    upto: &dyn Fn(&UnitKey) -> bool,
) -> Option<R::State> {
    if !rulebook.restarts() {
        return None;
    }
    let info = info.filter(|i| !i.reentries.is_empty())?;
    rulebook.restart(info, list, since(), upto)
}

/// The ledger order of events: end date, start date, id.
pub fn event_order(events: &[Event]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..events.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&events[a], &events[b]);
        (a.end, a.start, &a.id).cmp(&(b.end, b.start, &b.id))
    });
    order
}

/// Rates every event from scratch: `initial[player][list]` are the states before the first
/// unit, `held[player]` the awards already held.
pub fn rate_all<R: Rulebook>(
    rulebook: &R,
    players: &[PlayerInfo],
    initial: Vec<Vec<Option<R::State>>>,
    held: Vec<Vec<Award<R::Award>>>,
    events: &[Event],
) -> LedgerRun<R> {
    let lists: Vec<Option<ListId>> = events.iter().map(|e| rulebook.list_in(e, events)).collect();
    let mut units: BTreeMap<(UnitKey, ListId), Vec<EventPart>> = BTreeMap::new();
    for (i, event) in events.iter().enumerate() {
        if let Some(list) = lists[i] {
            for (key, part) in rulebook.units_of(i, event, list) {
                units.entry((key, list)).or_default().push(part);
            }
        }
    }

    // Every state a player reached on a list, with the unit that gave it, for the states
    // on other lists before a unit.
    type Reached<S> = Vec<Vec<Vec<(UnitKey, S)>>>;
    let mut reached: Reached<R::State> =
        vec![vec![Vec::new(); rulebook.lists().len()]; players.len()];
    let seeds = initial.clone();
    let seeds_of = |p: PlayerIdx, l: ListId| seeds[p][l].as_ref();
    let mut states = initial;
    // The unit that gave each player his state on each list (`None`: his seed).
    let mut since: Vec<Vec<Option<UnitKey>>> =
        vec![vec![None; rulebook.lists().len()]; players.len()];
    let mut awards = held;
    let mut ratings = Vec::new();
    let mut by_event = vec![Vec::new(); events.len()];
    let mut by_player = vec![Vec::new(); players.len()];
    for ((key, list), parts) in &units {
        let outcome = {
            // Participants re-entered since their last unit bring the re-entry's state.
            let restarts: Vec<(PlayerIdx, R::State)> = if rulebook.restarts() {
                incremental::players_of(events, parts)
                    .into_iter()
                    .filter_map(|p| {
                        let since = || since[p][*list].as_ref();
                        restarted(rulebook, players.get(p), *list, since, &|k| k <= key)
                            .map(|s| (p, s))
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let state_of = |p: PlayerIdx| {
                restarts
                    .iter()
                    .find(|(q, _)| *q == p)
                    .map(|(_, s)| s)
                    .or(states[p][*list].as_ref())
            };
            let state_on = |p: PlayerIdx, other: ListId| {
                reached[p][other]
                    .iter()
                    .rev()
                    .find(|(k, _)| k < key)
                    .map(|(_, s)| s)
                    .or_else(|| seeds_of(p, other))
            };
            let awards_of = |p: PlayerIdx| awards[p].as_slice();
            let unit = Unit::<R> {
                key,
                state_on: &state_on,
                list: *list,
                parts,
                events,
                players,
                state: &state_of,
                awards: &awards_of,
            };
            rulebook.rate(&unit)
        };
        for (p, state) in outcome.states {
            reached[p][*list].push((key.clone(), state.clone()));
            states[p][*list] = Some(state);
            since[p][*list] = Some(key.clone());
        }
        for award in outcome.awards {
            awards[award.player].push(award);
        }
        for rating in outcome.ratings.into_vec() {
            by_event[rating.event].push(ratings.len());
            by_player[rating.player].push(ratings.len());
            ratings.push(rating);
        }
    }
    LedgerRun {
        lists,
        order: event_order(events),
        ratings,
        by_event,
        by_player,
        states,
        awards,
    }
}
