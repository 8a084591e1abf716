//! The stored records of players and events, and the change one edit makes to them.

use serde::{Deserialize, Serialize};

use super::Book;
use crate::model::{Event, Game, PlayerIdx, PlayerInfo};
use crate::rules::{Award, Rulebook};

/// Whether a player record is in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlayerStatus {
    Active,
    Deleted,
    /// Merged into another record, which now holds his games.
    MergedInto(PlayerIdx),
}

/// A player as stored: who he is, his state before the ledger's first unit, the awards he held
/// before it, and whether the record is in use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct PlayerRecord<R: Rulebook> {
    pub info: PlayerInfo,
    pub seeds: Vec<Option<R::State>>,
    pub held: Vec<Award<R::Award>>,
    /// Awards the rating committee confirmed (SSL 6.3).
    pub confirmed: Vec<Award<R::Award>>,
    pub status: PlayerStatus,
}

/// An event as stored, without its games (they have their own tree).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRecord {
    pub event: Event,
    pub live: bool,
}

/// A game's key: event, round, board.
pub type GameKey = (usize, u32, u32);

/// One record before and after an edit (`None`: absent).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Delta<K, V> {
    pub key: K,
    pub before: Option<V>,
    pub after: Option<V>,
}

impl<K: Clone, V: Clone> Delta<K, V> {
    fn inverse(&self) -> Self {
        Self {
            key: self.key.clone(),
            before: self.after.clone(),
            after: self.before.clone(),
        }
    }
}

/// Everything one edit changes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Change<R: Rulebook> {
    pub players: Vec<Delta<PlayerIdx, Box<PlayerRecord<R>>>>,
    pub events: Vec<Delta<usize, EventRecord>>,
    pub games: Vec<Delta<GameKey, Game>>,
}

impl<R: Rulebook> Default for Change<R> {
    fn default() -> Self {
        Self {
            players: Vec::new(),
            events: Vec::new(),
            games: Vec::new(),
        }
    }
}

impl<R: Rulebook> Change<R> {
    /// The change that undoes this one.
    pub fn inverse(&self) -> Self {
        Self {
            players: self.players.iter().map(Delta::inverse).collect(),
            events: self.events.iter().map(Delta::inverse).collect(),
            games: self.games.iter().rev().map(Delta::inverse).collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.players.is_empty() && self.events.is_empty() && self.games.is_empty()
    }

    /// Applies the change to an in-memory book (and the player statuses beside it).
    pub fn apply(&self, book: &mut Book<R>, status: &mut Vec<PlayerStatus>) {
        self.clone().apply_owned(book, status);
    }

    /// [`Change::apply`], the records moved into the book rather than copied (an import of a
    /// whole federation is not held twice).
    pub fn apply_owned(self, book: &mut Book<R>, status: &mut Vec<PlayerStatus>) {
        // New records come at the end: room for all of them at once (a whole federation's
        // lists grown by doubling would hold a spare half, and both while they grow).
        let players = self.players.iter().map(|d| d.key + 1).max().unwrap_or(0);
        let more = players.saturating_sub(book.players.len());
        book.players.reserve_exact(more);
        book.seeds.reserve_exact(more);
        book.held.reserve_exact(more);
        book.confirmed.reserve_exact(more);
        status.reserve_exact(players.saturating_sub(status.len()));
        for d in self.players {
            let p = d.key;
            while book.players.len() <= p {
                book.players.push(PlayerInfo::default());
                book.seeds.push(Vec::new());
                book.held.push(Vec::new());
                book.confirmed.push(Vec::new());
                status.push(PlayerStatus::Deleted);
            }
            match d.after {
                Some(rec) => {
                    book.players[p] = rec.info;
                    book.seeds[p] = rec.seeds;
                    book.held[p] = rec.held;
                    book.confirmed[p] = rec.confirmed;
                    status[p] = rec.status;
                }
                None => status[p] = PlayerStatus::Deleted,
            }
        }
        for d in self.events {
            let e = d.key;
            while book.events.len() <= e {
                book.events.push(placeholder_event());
                book.live.push(false);
            }
            match d.after {
                Some(rec) => {
                    let games = std::mem::take(&mut book.events[e].games);
                    book.events[e] = Event { games, ..rec.event };
                    book.live[e] = rec.live;
                }
                None => {
                    book.events[e] = placeholder_event();
                    book.live[e] = false;
                }
            }
        }
        for d in self.games {
            let (e, round, board) = d.key;
            let games = &mut book.events[e].games;
            games.retain(|g| (g.round, g.board) != (round, board));
            if let Some(g) = d.after {
                let at = games.partition_point(|x| (x.round, x.board) < (round, board));
                games.insert(at, g);
            }
        }
    }

    /// The events whose ratings the change may move.
    pub fn events_touched(&self, book: &Book<R>) -> std::collections::BTreeSet<usize> {
        self.reach().events_touched(book)
    }

    /// What the change can reach: the events and games it names, and each player it changes
    /// with the first day his change can matter from.
    pub fn reach(&self) -> Reach {
        Reach {
            events: self.events.iter().map(|d| d.key).collect(),
            games: self
                .games
                .iter()
                .map(|d| {
                    let players = [&d.before, &d.after]
                        .into_iter()
                        .flatten()
                        .flat_map(|g| std::iter::once(g.white()).chain(g.black()))
                        .collect();
                    (d.key, players)
                })
                .collect(),
            players: self
                .players
                .iter()
                .map(|d| (d.key, matters_from(d.before.as_deref(), d.after.as_deref())))
                .collect(),
        }
    }
}

/// What a change can reach ([`Change::reach`]), kept apart from it so that the events it
/// touches can be found in the book both before and after the change is moved into it.
pub struct Reach {
    /// The events whose own records it changes.
    events: std::collections::BTreeSet<usize>,
    /// The games it changes, with their players before and after.
    games: Vec<(GameKey, Vec<PlayerIdx>)>,
    players: std::collections::BTreeMap<PlayerIdx, chrono::NaiveDate>,
}

impl Reach {
    /// The events of `book` whose ratings the change may move.
    pub fn events_touched<R: Rulebook>(&self, book: &Book<R>) -> std::collections::BTreeSet<usize> {
        let mut touched = self.events_changed(book);
        touched.extend(self.games.iter().map(|((e, _, _), _)| *e));
        touched
    }

    /// The games the change keys, corrects, adds or takes away, with their players before and
    /// after.
    pub fn games(&self) -> &[(GameKey, Vec<PlayerIdx>)] {
        &self.games
    }

    /// The events of `book` the change may move as a whole, beside its games: those whose
    /// records it changes, and those a changed player's record reaches.
    pub fn events_changed<R: Rulebook>(&self, book: &Book<R>) -> std::collections::BTreeSet<usize> {
        let mut touched = self.events.clone();
        if !self.players.is_empty() {
            for (e, event) in book.events.iter().enumerate() {
                // The last day whose ratings the event may be rated with: its end, or the day
                // its results (or a game's own) were received when later (a rulebook rating by
                // period takes the ratings of a period's first day, which falls on or before).
                let last_day = event
                    .games
                    .iter()
                    .filter_map(|g| g.received)
                    .chain(event.received)
                    .fold(event.end, chrono::NaiveDate::max);
                let concerned = |p: PlayerIdx| self.players.get(&p).is_some_and(|&d| last_day >= d);
                if event
                    .games
                    .iter()
                    .any(|g| concerned(g.white()) || g.black().is_some_and(concerned))
                {
                    touched.insert(e);
                }
            }
        }
        touched
    }
}

/// The first day from which a change to a player's record can change a rating: a change to
/// his club alone never does; a change to his FIDE lists alone matters only to events rated
/// with ratings of a day on or after the earliest list changed — those that end, or were
/// received, on or after it (SSL takes the list in force at the event's start, ISL's entrants
/// the one in force on the first day of the period rating the game, which may follow the
/// start); anything else matters from the beginning.
fn matters_from<R: Rulebook>(
    before: Option<&PlayerRecord<R>>,
    after: Option<&PlayerRecord<R>>,
) -> chrono::NaiveDate {
    let (Some(b), Some(a)) = (before, after) else {
        return chrono::NaiveDate::MIN;
    };
    // Most edits leave the FIDE lists alone: no copies to compare the rest.
    if b.info.fide == a.info.fide {
        return if b == a || (b.info.club != a.info.club && alike_but_club(b, a)) {
            chrono::NaiveDate::MAX
        } else {
            chrono::NaiveDate::MIN
        };
    }
    let no_lists = |r: &PlayerRecord<R>| PlayerRecord {
        info: PlayerInfo {
            fide: Vec::new(),
            ..r.info.clone()
        },
        ..r.clone()
    };
    if !alike_but_club(&no_lists(b), &no_lists(a)) {
        return chrono::NaiveDate::MIN;
    }
    // Entries in one history and not the other, whichever was removed, added or changed.
    b.info
        .fide
        .iter()
        .filter(|e| !a.info.fide.contains(e))
        .chain(a.info.fide.iter().filter(|e| !b.info.fide.contains(e)))
        .map(|e| e.list_date)
        .min()
        .unwrap_or(chrono::NaiveDate::MAX)
}

/// Whether two records of a player are the same but for his club, which no rating uses.
fn alike_but_club<R: Rulebook>(b: &PlayerRecord<R>, a: &PlayerRecord<R>) -> bool {
    PlayerInfo {
        club: None,
        ..b.info.clone()
    } == PlayerInfo {
        club: None,
        ..a.info.clone()
    } && b.seeds == a.seeds
        && b.held == a.held
        && b.confirmed == a.confirmed
        && b.status == a.status
}

/// The slot of an event id that holds no event.
pub(crate) fn placeholder_event() -> Event {
    Event::new(
        String::new(),
        chrono::NaiveDate::MIN,
        chrono::NaiveDate::MIN,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Game, GameResult};
    use crate::rules::ssl::Ssl;

    /// A club is never part of a rating: a change of it alone re-rates nothing, while any
    /// other change to the player re-rates his events.
    #[test]
    fn a_change_of_club_alone_touches_no_event() {
        let mut book = Book::<Ssl>::default();
        let mut status = Vec::new();
        let record = |id: &str| PlayerRecord::<Ssl> {
            info: PlayerInfo {
                id: id.into(),
                name: format!("Player {id}"),
                ..PlayerInfo::default()
            },
            seeds: vec![None, None],
            held: Vec::new(),
            confirmed: Vec::new(),
            status: PlayerStatus::Active,
        };
        let added = |key, r: PlayerRecord<Ssl>| Delta {
            key,
            before: None,
            after: Some(Box::new(r)),
        };
        let day = chrono::NaiveDate::from_ymd_opt(2025, 3, 1).expect("date");
        let event = Event {
            id: "e1".into(),
            start: day,
            end: day,
            participants: vec![0, 1],
            ..placeholder_event()
        };
        Change::<Ssl> {
            players: vec![added(0, record("A")), added(1, record("B"))],
            events: vec![Delta {
                key: 0,
                before: None,
                after: Some(EventRecord { event, live: true }),
            }],
            games: vec![Delta {
                key: (0, 1, 1),
                before: None,
                after: Some(Game {
                    round: 1,
                    board: 1,
                    white: 0,
                    black: Some(1),
                    result: Some(GameResult::DRAW),
                    date: None,
                    received: None,
                }),
            }],
        }
        .apply(&mut book, &mut status);
        let edit = |change: fn(&mut PlayerInfo)| {
            let mut after = record("A");
            change(&mut after.info);
            Change::<Ssl> {
                players: vec![Delta {
                    key: 0,
                    before: Some(Box::new(record("A"))),
                    after: Some(Box::new(after)),
                }],
                ..Change::default()
            }
        };
        let club = edit(|i| i.club = Some("HSK".into()));
        assert!(club.events_touched(&book).is_empty());
        let born = edit(|i| i.born = Some(chrono::NaiveDate::MIN));
        assert_eq!(
            born.events_touched(&book).into_iter().collect::<Vec<_>>(),
            vec![0]
        );
    }
}
