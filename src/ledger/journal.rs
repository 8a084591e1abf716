//! A journaled update: everything it replaced, saved the first time it is touched, so that the
//! update can be put back (a preview) and then done again without rating anything (the same
//! edit applied). Putting back and doing again are one operation, an exchange of what is in the
//! ledger with what the journal holds.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::incremental::{AwardsByUnit, Ledger, Placed, UnitId, UnitResult, Update};
use super::lanes::Lane;
use crate::model::PlayerIdx;
use crate::rules::{EventPart, Rulebook};

/// What a journaled update replaced (`None`: absent before it), and what it did.
#[derive(Clone, Debug)]
pub struct Journal<R: Rulebook> {
    units: BTreeMap<UnitId, Option<Arc<UnitResult<R>>>>,
    members: BTreeMap<UnitId, Option<Vec<EventPart>>>,
    placed: BTreeMap<usize, Vec<Placed>>,
    reached: BTreeMap<PlayerIdx, AwardsByUnit<R>>,
    lanes: BTreeMap<usize, Lane<R::State>>,
    /// What the update did, for the effect of doing it again.
    pub update: Update<R>,
}

impl<R: Rulebook> Journal<R> {
    fn new() -> Self {
        Self {
            units: BTreeMap::new(),
            members: BTreeMap::new(),
            placed: BTreeMap::new(),
            reached: BTreeMap::new(),
            lanes: BTreeMap::new(),
            update: Update::default(),
        }
    }
}

/// Exchanges the entries of `map` with the ones saved.
fn swap_map<K: Ord + Clone, V>(map: &mut BTreeMap<K, V>, saved: &mut BTreeMap<K, Option<V>>) {
    for (k, v) in saved.iter_mut() {
        let current = map.remove(k);
        if let Some(old) = v.take() {
            map.insert(k.clone(), old);
        }
        *v = current;
    }
}

impl<R: Rulebook> Ledger<R> {
    /// Starts keeping what updates replace (until [`Ledger::end_journal`]).
    pub fn begin_journal(&mut self) {
        self.journal = Some(Journal::new());
        self.lanes.begin_journal();
    }

    /// Stops keeping; returns what was replaced since [`Ledger::begin_journal`], with `update`.
    pub fn end_journal(&mut self, update: Update<R>) -> Journal<R> {
        let mut journal = self.journal.take().unwrap_or_else(Journal::new);
        journal.lanes = self.lanes.end_journal();
        journal.update = update;
        journal
    }

    /// Puts back what a journaled update replaced; done again with the same journal, does the
    /// update again.
    pub fn swap(&mut self, journal: &mut Journal<R>) {
        swap_map(&mut self.units, &mut journal.units);
        swap_map(&mut self.members, &mut journal.members);
        for (&p, reached) in journal.reached.iter_mut() {
            if let Some(current) = self.reached.get_mut(p) {
                std::mem::swap(current, reached);
            }
        }
        for (&e, placed) in journal.placed.iter_mut() {
            if let Some(current) = self.placed.get_mut(e) {
                std::mem::swap(current, placed);
            }
        }
        self.lanes.swap(&mut journal.lanes);
    }

    /// Keeps the result a unit had before an update re-rated it, while journaling.
    pub(super) fn keep_replaced(&mut self, id: &UnitId, old: Option<Arc<UnitResult<R>>>) {
        if let Some(j) = &mut self.journal {
            j.units.entry(id.clone()).or_insert(old);
        }
    }

    pub(super) fn save_members(&mut self, id: &UnitId) {
        if let Some(j) = &mut self.journal {
            j.members
                .entry(id.clone())
                .or_insert_with(|| self.members.get(id).cloned());
        }
    }

    pub(super) fn save_placed(&mut self, e: usize) {
        if let Some(j) = &mut self.journal {
            j.placed
                .entry(e)
                .or_insert_with(|| self.placed.get(e).cloned().unwrap_or_default());
        }
    }

    pub(super) fn save_reached(&mut self, player: PlayerIdx) {
        if let Some(j) = &mut self.journal {
            j.reached
                .entry(player)
                .or_insert_with(|| self.reached.get(player).cloned().unwrap_or_default());
        }
    }
}
