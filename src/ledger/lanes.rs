//! The ledger's indexes by player and list, dense: one lane per player and list (at
//! `player × lists + list`) holding, in ledger order, the states his units gave him and the
//! units in which he plays. Lanes are short sorted vectors — a player's units over the years —
//! so the state a player brings to a unit is a binary search in his own lane (no look-up among
//! all the units), and a full re-rate finds the units he plays in placed and sets their states.

use std::collections::BTreeMap;

use crate::model::PlayerIdx;
use crate::rules::{ListId, UnitKey};

/// One player's units on one list, in ledger order: those that gave him a state and those he
/// plays a game in (mostly the same units, so each is held once with both).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Lane<S> {
    /// A unit is here while it gives him a state or he plays in it: no entry holds neither, so
    /// equal lanes are held alike however they were reached.
    entries: Vec<Entry<S>>,
}

#[derive(Clone, Debug, PartialEq)]
struct Entry<S> {
    key: UnitKey,
    /// The state the unit gave him (the unit's result holds it too).
    state: Option<S>,
    /// The number of the unit's event parts that hold a game of his: a unit may read the state
    /// of a participant it does not rate (SSL 3.8: a Finn without a selo in an event abroad),
    /// so a move of that state re-rates it too.
    plays: u32,
}

impl<S> Default for Lane<S> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
        }
    }
}

impl<S> Lane<S> {
    /// An empty lane with room for `units` units.
    pub fn with_room(units: usize) -> Self {
        Self {
            entries: Vec::with_capacity(units),
        }
    }

    /// Puts a unit's state after the last unit (a lane built in ledger order).
    pub fn push(&mut self, key: UnitKey, state: S) {
        self.entries.push(Entry {
            key,
            state: Some(state),
            plays: 0,
        });
    }

    /// Puts in the units he plays in (each once, in ledger order, with its count of parts):
    /// into the units' entries already here, others put in their places.
    fn put_plays(&mut self, plays: Vec<(UnitKey, u32)>) {
        let same_units = self.entries.len() == plays.len()
            && self
                .entries
                .iter()
                .zip(&plays)
                .all(|(e, (k, _))| e.key == *k);
        if same_units {
            for (e, (_, n)) in self.entries.iter_mut().zip(plays) {
                e.plays = n;
            }
            return;
        }
        let states = std::mem::take(&mut self.entries);
        let mut merged = Vec::with_capacity(states.len() + plays.len());
        let (mut states, mut plays) = (states.into_iter().peekable(), plays.into_iter().peekable());
        loop {
            let order = match (states.peek(), plays.peek()) {
                (None, None) => break,
                (Some(e), Some((k, _))) => e.key.cmp(k),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
            };
            let entry = match order {
                std::cmp::Ordering::Less => states.next(),
                std::cmp::Ordering::Greater => plays.next().map(|(key, plays)| Entry {
                    key,
                    state: None,
                    plays,
                }),
                std::cmp::Ordering::Equal => {
                    let n = plays.next().map_or(0, |(_, n)| n);
                    states.next().map(|e| Entry { plays: n, ..e })
                }
            };
            merged.extend(entry);
        }
        // Units in both were counted twice: room for exactly the units held.
        merged.shrink_to_fit();
        self.entries = merged;
    }

    /// Where `key` is, or would be put.
    fn find(&self, key: &UnitKey) -> Result<usize, usize> {
        self.entries.binary_search_by(|e| e.key.cmp(key))
    }

    /// The entry of `key`, put in its place (with neither a state nor a play) if there is none:
    /// the caller gives it one.
    fn entry(&mut self, key: &UnitKey) -> &mut Entry<S> {
        let at = self.find(key).unwrap_or_else(|at| {
            let empty = Entry {
                key: key.clone(),
                state: None,
                plays: 0,
            };
            self.entries.insert(at, empty);
            at
        });
        &mut self.entries[at]
    }

    /// The last unit with a state among the first `upto` entries.
    fn last_state_in(&self, upto: usize) -> Option<(&UnitKey, &S)> {
        self.entries[..upto]
            .iter()
            .rev()
            .find_map(|e| e.state.as_ref().map(|s| (&e.key, s)))
    }
}

impl<S: Clone + PartialEq> Lane<S> {
    /// The state the last unit before `key` gave him.
    pub fn state_before(&self, key: &UnitKey) -> Option<&S> {
        self.keyed_before(key).map(|(_, s)| s)
    }

    /// The state the last unit before `key` gave him, with that unit's key.
    pub fn keyed_before(&self, key: &UnitKey) -> Option<(&UnitKey, &S)> {
        self.last_state_in(self.entries.partition_point(|e| e.key < *key))
    }

    /// The state his last unit dated on or before `date` gave him, with that unit's key.
    pub fn keyed_on(&self, date: chrono::NaiveDate) -> Option<(&UnitKey, &S)> {
        self.last_state_in(self.entries.partition_point(|e| e.key.date <= date))
    }

    /// The state his last unit gave him.
    pub fn last(&self) -> Option<&S> {
        self.last_state_in(self.entries.len()).map(|(_, s)| s)
    }

    /// The key of his last unit with a state.
    pub fn last_key(&self) -> Option<&UnitKey> {
        self.last_state_in(self.entries.len()).map(|(k, _)| k)
    }

    /// The units that gave him a state, in ledger order.
    pub fn keys(&self) -> impl Iterator<Item = &UnitKey> {
        self.entries
            .iter()
            .filter(|e| e.state.is_some())
            .map(|e| &e.key)
    }

    /// The units [`Lane::for_readers_after`] hands over.
    #[cfg(test)]
    pub fn readers_after(&self, after: &UnitKey) -> Vec<UnitKey> {
        let mut out = Vec::new();
        self.for_readers_after(after, |k| out.push(k.clone()));
        out
    }

    /// Hands `each`, in order, the units after `after` that read his state as it stands after
    /// `after`: every unit he plays in up to his next unit with a state (which carries it on),
    /// and that one.
    pub fn for_readers_after(&self, after: &UnitKey, mut each: impl FnMut(&UnitKey)) {
        let from = self.entries.partition_point(|e| e.key <= *after);
        // Every entry gives a state or holds a play.
        for e in &self.entries[from..] {
            each(&e.key);
            if e.state.is_some() {
                break;
            }
        }
    }

    /// Records the state a unit gives him (in its place, or replacing the one it gave).
    pub fn set_state(&mut self, key: &UnitKey, state: &S) {
        let e = self.entry(key);
        if e.state.as_ref() != Some(state) {
            e.state = Some(state.clone());
        }
    }

    pub fn remove_state(&mut self, key: &UnitKey) {
        if let Ok(at) = self.find(key) {
            self.entries[at].state = None;
            self.forget_if_empty(at);
        }
    }

    pub fn add_play(&mut self, key: &UnitKey) {
        self.entry(key).plays += 1;
    }

    pub fn remove_play(&mut self, key: &UnitKey) {
        if let Ok(at) = self.find(key)
            && self.entries[at].plays > 0
        {
            self.entries[at].plays -= 1;
            self.forget_if_empty(at);
        }
    }

    /// Drops the entry at `at` once it gives no state and holds no play.
    fn forget_if_empty(&mut self, at: usize) {
        let e = &self.entries[at];
        if e.state.is_none() && e.plays == 0 {
            self.entries.remove(at);
        }
    }
}

/// Every player's lanes, with the old lanes of those an update touched while a journal is kept
/// (for a preview that is put back).
#[derive(Clone, Debug)]
pub(super) struct Lanes<S> {
    lists: usize,
    lanes: Vec<Lane<S>>,
    /// While journaling: the lanes as they were before the first change since it began.
    saved: Option<BTreeMap<usize, Lane<S>>>,
}

impl<S: Clone + PartialEq> Lanes<S> {
    pub fn new(lists: usize, players: usize) -> Self {
        Self {
            lists,
            lanes: vec![Lane::default(); lists * players],
            saved: None,
        }
    }

    fn at(&self, player: PlayerIdx, list: ListId) -> usize {
        player * self.lists + list
    }

    pub fn get(&self, player: PlayerIdx, list: ListId) -> Option<&Lane<S>> {
        self.lanes.get(self.at(player, list))
    }

    /// The lane to change, grown for a new player, and saved first while journaling.
    pub fn get_mut(&mut self, player: PlayerIdx, list: ListId) -> &mut Lane<S> {
        let at = self.at(player, list);
        if at >= self.lanes.len() {
            self.lanes.resize(at + self.lists, Lane::default());
        }
        if let Some(saved) = &mut self.saved {
            saved.entry(at).or_insert_with(|| self.lanes[at].clone());
        }
        &mut self.lanes[at]
    }

    pub fn begin_journal(&mut self) {
        self.saved = Some(BTreeMap::new());
    }

    /// Stops journaling; returns the lanes saved since it began.
    pub fn end_journal(&mut self) -> BTreeMap<usize, Lane<S>> {
        self.saved.take().unwrap_or_default()
    }

    /// Exchanges the lanes in `saved` with the ones in place: undoes a journaled update, and
    /// done again, redoes it. Lanes grown for new players stay (empty once undone).
    pub fn swap(&mut self, saved: &mut BTreeMap<usize, Lane<S>>) {
        for (&at, lane) in saved.iter_mut() {
            if let Some(current) = self.lanes.get_mut(at) {
                std::mem::swap(current, lane);
            }
        }
    }

    /// Lanes built whole: every player's lane with its states (at `player × lists + list`,
    /// from [`Lane::with_room`] and [`Lane::push`]) and the units he plays in, each in ledger
    /// order. The lanes are moved in, not copied.
    pub fn from_parts(
        lists: usize,
        mut lanes: Vec<Lane<S>>,
        plays: Vec<Vec<(UnitKey, u32)>>,
    ) -> Self {
        if lanes.len() < plays.len() {
            lanes.resize_with(plays.len(), Lane::default);
        }
        for (lane, plays) in lanes.iter_mut().zip(plays) {
            lane.put_plays(plays);
        }
        Self {
            lists,
            lanes,
            saved: None,
        }
    }

    /// Records a unit's state in a lane (a full re-rate, which finds the units he plays in
    /// already placed).
    pub fn set_state(&mut self, player: PlayerIdx, list: ListId, key: &UnitKey, state: &S) {
        self.get_mut(player, list).set_state(key, state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn key(day: u32) -> UnitKey {
        let date = NaiveDate::from_ymd_opt(2025, 1, day).expect("date");
        UnitKey {
            date,
            second: date,
            tag: "".into(),
        }
    }

    #[test]
    fn the_state_before_a_key_is_the_last_strictly_before_it() {
        let mut lane = Lane::default();
        for d in [3, 7, 5] {
            lane.set_state(&key(d), &d);
        }
        assert_eq!(lane.state_before(&key(5)), Some(&3));
        assert_eq!(lane.state_before(&key(6)), Some(&5));
        assert_eq!(lane.state_before(&key(3)), None);
        lane.set_state(&key(5), &50);
        assert_eq!(lane.state_before(&key(6)), Some(&50));
        lane.remove_state(&key(5));
        assert_eq!(lane.state_before(&key(6)), Some(&3));
        assert_eq!(lane.last(), Some(&7));
    }

    #[test]
    fn readers_are_the_plays_up_to_the_next_state_and_that_state() {
        let mut lane = Lane::default();
        lane.set_state(&key(2), &2);
        lane.set_state(&key(9), &9);
        for d in [2, 4, 6, 9, 12] {
            lane.add_play(&key(d));
        }
        assert_eq!(lane.readers_after(&key(2)), vec![key(4), key(6), key(9)]);
        assert_eq!(lane.readers_after(&key(9)), vec![key(12)]);
        lane.add_play(&key(4));
        lane.remove_play(&key(4));
        assert_eq!(lane.readers_after(&key(3)), vec![key(4), key(6), key(9)]);
        lane.remove_play(&key(4));
        assert_eq!(lane.readers_after(&key(3)), vec![key(6), key(9)]);
    }

    #[test]
    fn a_lane_built_whole_is_held_as_one_reached_a_change_at_a_time() {
        // States of units 2, 5 and 9; plays in 2 (twice), 4 and 9: 5 gives a state he did not
        // play for (a restart), 4 is played and not rated.
        let mut whole = Lane::with_room(3);
        for d in [2, 5, 9] {
            whole.push(key(d), d);
        }
        whole.put_plays(vec![(key(2), 2), (key(4), 1), (key(9), 1)]);
        let mut stepped = Lane::default();
        for d in [9, 4, 2, 2, 7] {
            stepped.add_play(&key(d));
        }
        for d in [9, 2, 5, 7] {
            stepped.set_state(&key(d), &d);
        }
        stepped.remove_state(&key(7));
        assert_ne!(stepped, whole, "unit 7 is still played");
        stepped.remove_play(&key(7));
        assert_eq!(
            stepped, whole,
            "a unit neither played nor rated is not held"
        );
        assert_eq!(
            whole.keys().collect::<Vec<_>>(),
            vec![&key(2), &key(5), &key(9)]
        );
        assert_eq!(
            whole.state_before(&key(5)),
            Some(&2),
            "unit 4 gives no state"
        );
        assert_eq!(whole.keyed_on(key(8).date), Some((&key(5), &5)));
        assert_eq!(whole.readers_after(&key(2)), vec![key(4), key(5)]);
        assert_eq!(whole.readers_after(&key(5)), vec![key(9)]);
        // The same units in both: the plays are put into the entries in place.
        let mut same = Lane::with_room(2);
        same.push(key(3), 3);
        same.push(key(6), 6);
        same.put_plays(vec![(key(3), 1), (key(6), 2)]);
        let mut reached = Lane::default();
        for d in [3, 6, 6] {
            reached.add_play(&key(d));
        }
        reached.set_state(&key(6), &6);
        reached.set_state(&key(3), &3);
        assert_eq!(same, reached);
        for d in [3, 6, 6] {
            reached.remove_play(&key(d));
        }
        reached.remove_play(&key(6));
        reached.remove_state(&key(3));
        reached.remove_state(&key(6));
        assert_eq!(reached, Lane::default(), "nothing left is held");
    }

    #[test]
    fn a_journal_swapped_back_undoes_and_swapped_again_redoes() {
        let mut lanes = Lanes::new(2, 2);
        lanes.set_state(1, 1, &key(1), &1);
        lanes.begin_journal();
        lanes.get_mut(1, 1).set_state(&key(4), &4);
        lanes.get_mut(3, 0).add_play(&key(4));
        let mut saved = lanes.end_journal();
        let after = (lanes.get(1, 1).cloned(), lanes.get(3, 0).cloned());
        lanes.swap(&mut saved);
        assert_eq!(lanes.get(1, 1).map(|l| l.keys().count()), Some(1));
        assert_eq!(
            lanes.get(1, 1).and_then(|l| l.keyed_on(key(3).date)),
            Some((&key(1), &1))
        );
        assert_eq!(lanes.get(3, 0), Some(&Lane::default()));
        lanes.swap(&mut saved);
        assert_eq!((lanes.get(1, 1).cloned(), lanes.get(3, 0).cloned()), after);
    }
}
