//! The ledger's indexes by player and list, dense: one lane per player and list (at
//! `player × lists + list`) holding, in ledger order, the states his units gave him and the
//! units in which he plays. Lanes are short sorted vectors — a player's units over the years —
//! so the state a player brings to a unit is a binary search in his own lane (no look-up among
//! all the units), and a full re-rate fills them by pushing in order.

use std::collections::BTreeMap;

use crate::model::PlayerIdx;
use crate::rules::{ListId, UnitKey};

/// One player's units on one list.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Lane<S> {
    /// The units that give him a state, in ledger order (searched apart from the states, so a
    /// search reads little memory).
    keys: Vec<UnitKey>,
    /// The state each of those units gave him (the unit's result holds it too).
    states: Vec<S>,
    /// The units he plays a game in, with the number of their event parts that hold one: a
    /// unit may read the state of a participant it does not rate (SSL 3.8: a Finn without a
    /// selo in an event abroad), so a move of that state re-rates it too.
    pub plays: Vec<(UnitKey, u32)>,
}

impl<S> Default for Lane<S> {
    fn default() -> Self {
        Self {
            keys: Vec::new(),
            states: Vec::new(),
            plays: Vec::new(),
        }
    }
}

impl<S: Clone + PartialEq> Lane<S> {
    /// The state the last unit before `key` gave him.
    pub fn state_before(&self, key: &UnitKey) -> Option<&S> {
        let at = self.keys.partition_point(|k| k < key);
        at.checked_sub(1).map(|i| &self.states[i])
    }

    /// The state the last unit before `key` gave him, with that unit's key.
    pub fn keyed_before(&self, key: &UnitKey) -> Option<(&UnitKey, &S)> {
        let at = self.keys.partition_point(|k| k < key);
        at.checked_sub(1).map(|i| (&self.keys[i], &self.states[i]))
    }

    /// The state his last unit dated on or before `date` gave him, with that unit's key.
    pub fn keyed_on(&self, date: chrono::NaiveDate) -> Option<(&UnitKey, &S)> {
        let at = self.keys.partition_point(|k| k.date <= date);
        at.checked_sub(1).map(|i| (&self.keys[i], &self.states[i]))
    }

    /// The state his last unit gave him.
    pub fn last(&self) -> Option<&S> {
        self.states.last()
    }

    /// The key of his last unit with a state.
    pub fn last_key(&self) -> Option<&UnitKey> {
        self.keys.last()
    }

    /// The units that gave him a state, in ledger order.
    pub fn keys(&self) -> impl Iterator<Item = &UnitKey> {
        self.keys.iter()
    }

    /// The units [`Lane::for_readers_after`] hands over.
    #[cfg(test)]
    pub fn readers_after(&self, after: &UnitKey) -> Vec<UnitKey> {
        let mut out = Vec::new();
        self.for_readers_after(after, |k| out.push(k.clone()));
        out
    }

    /// Hands `each`, in order, the units after `after` that read his state as it stands after
    /// `after`: his next unit with a state (which carries it on) and every unit up to it in
    /// which he plays.
    pub fn for_readers_after(&self, after: &UnitKey, mut each: impl FnMut(&UnitKey)) {
        let next = self.keys.get(self.keys.partition_point(|k| k <= after));
        let from = self.plays.partition_point(|(k, _)| k <= after);
        let mut last = None;
        for (k, _) in self.plays[from..]
            .iter()
            .take_while(|(k, _)| next.is_none_or(|n| k <= n))
        {
            each(k);
            last = Some(k);
        }
        if let Some(n) = next
            && last != Some(n)
        {
            each(n);
        }
    }

    /// Records the state a unit gives him (in its place, or replacing the one it gave).
    pub fn set_state(&mut self, key: &UnitKey, state: &S) {
        match self.keys.binary_search(key) {
            Ok(at) => {
                if self.states[at] != *state {
                    self.states[at] = state.clone();
                }
            }
            Err(at) => {
                self.keys.insert(at, key.clone());
                self.states.insert(at, state.clone());
            }
        }
    }

    pub fn remove_state(&mut self, key: &UnitKey) {
        if let Ok(at) = self.keys.binary_search(key) {
            self.keys.remove(at);
            self.states.remove(at);
        }
    }

    pub fn add_play(&mut self, key: &UnitKey) {
        match self.plays.binary_search_by(|(k, _)| k.cmp(key)) {
            Ok(at) => self.plays[at].1 += 1,
            Err(at) => self.plays.insert(at, (key.clone(), 1)),
        }
    }

    pub fn remove_play(&mut self, key: &UnitKey) {
        if let Ok(at) = self.plays.binary_search_by(|(k, _)| k.cmp(key)) {
            self.plays[at].1 -= 1;
            if self.plays[at].1 == 0 {
                self.plays.remove(at);
            }
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

    /// Lanes built whole: every player's states and plays, each in ledger order.
    pub fn from_parts(
        lists: usize,
        states: Vec<Vec<(UnitKey, S)>>,
        plays: Vec<Vec<(UnitKey, u32)>>,
    ) -> Self {
        let len = states.len().max(plays.len());
        let mut states = states.into_iter();
        let mut plays = plays.into_iter();
        Self {
            lists,
            lanes: (0..len)
                .map(|_| {
                    let (keys, states) = states.next().unwrap_or_default().into_iter().unzip();
                    Lane {
                        keys,
                        states,
                        plays: plays.next().unwrap_or_default(),
                    }
                })
                .collect(),
            saved: None,
        }
    }

    /// Room in every lane for a state from each unit he plays in (as many as a full re-rate can
    /// push), so that the re-rate's pushes never move a lane.
    pub fn reserve_states(&mut self) {
        for lane in &mut self.lanes {
            let n = lane.plays.len();
            lane.keys.reserve_exact(n);
            lane.states.reserve_exact(n);
        }
    }

    /// Pushes a unit at the end of a lane (units come in ledger order when built from scratch).
    pub fn push_state(&mut self, player: PlayerIdx, list: ListId, key: &UnitKey, state: &S) {
        let lane = self.get_mut(player, list);
        lane.keys.push(key.clone());
        lane.states.push(state.clone());
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
    fn a_journal_swapped_back_undoes_and_swapped_again_redoes() {
        let mut lanes = Lanes::new(2, 2);
        lanes.push_state(1, 1, &key(1), &1);
        lanes.begin_journal();
        lanes.get_mut(1, 1).set_state(&key(4), &4);
        lanes.get_mut(3, 0).add_play(&key(4));
        let mut saved = lanes.end_journal();
        let after = (lanes.get(1, 1).cloned(), lanes.get(3, 0).cloned());
        lanes.swap(&mut saved);
        assert_eq!(lanes.get(1, 1).map(|l| l.states.len()), Some(1));
        assert_eq!(
            lanes.get(1, 1).and_then(|l| l.keyed_on(key(3).date)),
            Some((&key(1), &1))
        );
        assert_eq!(lanes.get(3, 0), Some(&Lane::default()));
        lanes.swap(&mut saved);
        assert_eq!((lanes.get(1, 1).cloned(), lanes.get(3, 0).cloned()), after);
    }
}
