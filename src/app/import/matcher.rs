//! The one player matcher: who, among the federation's players and the players an import has
//! already made new, an incoming player is. Every import (a `rate` document, a TRF file, a
//! national list, a FIDE list) and every query by name asks it, in one order:
//!
//! 1. our national id, when the source gives it;
//! 2. the FIDE id;
//! 3. the name (folded: `ä` = `a`, `þ` = `th` …) and the birth date when known — only for a
//!    source that gives names to match (a TRF file), and only among players in use; two or
//!    more candidates are ambiguous, for the officer to decide.

use std::cell::OnceCell;
use std::collections::HashMap;

use chrono::NaiveDate;

use super::super::{Desk, Federation};
use crate::book::PlayerStatus;
use crate::model::{PlayerIdx, fold_name};

/// What a source says of a player, to find him by.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Incoming {
    /// Our national id, when the source gives it.
    pub id: Option<String>,
    pub fide_id: Option<u64>,
    /// The name and birth date to match by when nothing else finds him (`None`: the source's
    /// names are not matched).
    pub name: Option<(String, Option<NaiveDate>)>,
}

/// How a player was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    Id,
    FideId,
    /// By name (and birth date): shown to the officer for a check.
    Name,
}

/// Who an incoming player is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// One of ours.
    Ours(PlayerIdx, By),
    /// A player this import already makes new: his place in the import's player list.
    Earlier(usize),
    /// Nobody yet.
    New,
    /// Several of ours by name.
    Ambiguous(Vec<PlayerIdx>),
}

/// The federation's players as an import sees them, and the players it makes new.
///
/// Our players are found in maps of the players in use, made from the book the first time a
/// source asks by each key, and kept for the rest of the import: the book is the record in
/// memory, so nothing is read from the database (which keeps no index of its own).
pub struct Matcher<'d, R: Federation> {
    desk: &'d Desk<R>,
    new_by_id: HashMap<String, usize>,
    new_by_fide: HashMap<u64, usize>,
    by_code: OnceCell<HashMap<&'d str, PlayerIdx>>,
    by_fide: OnceCell<HashMap<u64, PlayerIdx>>,
    by_name: OnceCell<HashMap<String, Vec<PlayerIdx>>>,
}

impl<'d, R: Federation> Matcher<'d, R> {
    pub fn new(desk: &'d Desk<R>) -> Self {
        Self {
            desk,
            new_by_id: HashMap::new(),
            new_by_fide: HashMap::new(),
            by_code: OnceCell::new(),
            by_fide: OnceCell::new(),
            by_name: OnceCell::new(),
        }
    }

    /// Finds an incoming player.
    pub fn find(&self, incoming: &Incoming) -> Found {
        if let Some(id) = &incoming.id
            && let Some(&p) = self.by_code().get(id.as_str())
        {
            return Found::Ours(p, By::Id);
        }
        if let Some(f) = incoming.fide_id
            && let Some(&p) = self.by_fide.get_or_init(|| self.by_fide_id()).get(&f)
        {
            return Found::Ours(p, By::FideId);
        }
        let earlier = incoming
            .id
            .as_ref()
            .and_then(|id| self.new_by_id.get(id))
            .or_else(|| incoming.fide_id.and_then(|f| self.new_by_fide.get(&f)));
        if let Some(&at) = earlier {
            return Found::Earlier(at);
        }
        let Some((name, born)) = &incoming.name else {
            return Found::New;
        };
        let folded = fold_name(name.trim());
        if folded.is_empty() {
            return Found::New;
        }
        let book = self.desk.book();
        let candidates: Vec<PlayerIdx> = self
            .by_name()
            .get(&folded)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&c| born.is_none() || book.players[c].born == *born)
            .collect();
        match candidates.as_slice() {
            [] => Found::New,
            [one] => Found::Ours(*one, By::Name),
            many => Found::Ambiguous(many.to_vec()),
        }
    }

    /// Records that the import makes a player new at place `at` of its player list, so that a
    /// later mention of him (another file of the same import) finds him.
    pub fn made_new(&mut self, at: usize, id: &str, fide_id: Option<u64>) {
        self.new_by_id.insert(id.to_string(), at);
        if let Some(f) = fide_id {
            self.new_by_fide.insert(f, at);
        }
    }

    /// The players in use by FIDE id, held in memory for a source of a million lines (a FIDE
    /// rating list) that is matched by FIDE id alone. Should two share an id, the one added
    /// last is found.
    pub fn by_fide_id(&self) -> HashMap<u64, PlayerIdx> {
        self.in_use()
            .filter_map(|(p, info)| info.fide_id.map(|f| (f, p)))
            .collect()
    }

    /// The players in use by national id (the one added last, should two share one).
    fn by_code(&self) -> &HashMap<&'d str, PlayerIdx> {
        self.by_code.get_or_init(|| {
            self.in_use()
                .map(|(p, info)| (info.id.as_str(), p))
                .collect()
        })
    }

    /// The players in use by folded name, in the order they were added.
    fn by_name(&self) -> &HashMap<String, Vec<PlayerIdx>> {
        self.by_name.get_or_init(|| {
            let mut by_name: HashMap<String, Vec<PlayerIdx>> = HashMap::new();
            for (p, info) in self.in_use() {
                let folded = fold_name(info.name.trim());
                if !folded.is_empty() {
                    by_name.entry(folded).or_default().push(p);
                }
            }
            by_name
        })
    }

    /// The players in use, with their index.
    fn in_use(&self) -> impl Iterator<Item = (PlayerIdx, &'d crate::model::PlayerInfo)> + 'd {
        let (book, status) = (self.desk.book(), self.desk.status());
        book.players
            .iter()
            .enumerate()
            .filter(move |(p, _)| status.get(*p) == Some(&PlayerStatus::Active))
    }
}
