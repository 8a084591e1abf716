//! The federation's record as the application holds it: the [`Book`] (players, their seeds
//! and awards, events with their games), the stored records it is made of, and the
//! [`Change`] one edit makes to them. The store persists these, the ledger rates a book, and
//! the application edits it; none of them owns it.

mod records;

use crate::model::{Event, PlayerInfo};
use crate::rules::{Award, Rulebook};

pub(crate) use records::placeholder_event;
pub use records::{Change, Delta, EventRecord, GameKey, PlayerRecord, PlayerStatus};

/// The federation's data: what ratings are computed from, and the officer's confirmations.
#[derive(Clone, Debug)]
pub struct Book<R: Rulebook> {
    /// Indexed by player id; a removed player keeps his slot.
    pub players: Vec<PlayerInfo>,
    /// Per player and list, the state before his first rated unit.
    pub seeds: Vec<Vec<Option<R::State>>>,
    /// Per player, awards held before the ledger's first unit.
    pub held: Vec<Vec<Award<R::Award>>>,
    /// Per player, awards the rating committee has confirmed (dated by the confirmation); they
    /// do not enter the ratings.
    pub confirmed: Vec<Vec<Award<R::Award>>>,
    /// Indexed by event id; a deleted event keeps its slot with `live` false.
    pub events: Vec<Event>,
    pub live: Vec<bool>,
}

impl<R: Rulebook> Default for Book<R> {
    fn default() -> Self {
        Self {
            players: Vec::new(),
            seeds: Vec::new(),
            held: Vec::new(),
            confirmed: Vec::new(),
            events: Vec::new(),
            live: Vec::new(),
        }
    }
}

impl<R: Rulebook> Book<R> {
    /// The live event with this id.
    pub fn live_event(&self, id: &str) -> Option<usize> {
        self.events
            .iter()
            .zip(&self.live)
            .position(|(e, live)| *live && e.id == id)
    }
}
