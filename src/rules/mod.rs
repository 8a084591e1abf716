//! Rating rulebooks: the pure arithmetic of one federation's rules.
//!
//! A rulebook is given one *rating unit* — the games that are rated together (one event for
//! Finland; a quarter or a month of events for Iceland and Turkey) — and the participants'
//! states before it, and returns their states after it with every published figure. It knows
//! nothing of processing order across units (that is `ledger/`), storage or the terminal, and it
//! takes every date it needs as a parameter.
//!
//! The player state is the rulebook's own type: a Finnish player has a selo and a pelo with
//! running aggregates for new players, an Icelandic one a single rating with game counts and a
//! K history, a Turkish one an archive of performances. Lists are named by the rulebook.

pub mod arith;
pub mod expectation;
mod grouped;
pub mod isl;
pub mod performance;
mod rows;
pub mod ssl;
mod states;
pub mod tsf;

pub(crate) use grouped::Grouped;
#[cfg(test)]
pub(crate) use rows::a_row;
pub use rows::{Cursor, Rows, Run};
pub use states::States;

use chrono::NaiveDate;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::model::{Event, PlayerIdx, PlayerInfo, Rating};

/// Index of a rating list in [`Rulebook::lists`].
pub type ListId = usize;

/// A score in half points (`3` = 1½).
pub type Halves = u32;

/// Where a unit stands in processing order; units are rated in ascending key order, and events
/// with equal keys on the same list are rated together as one unit.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct UnitKey {
    #[serde(with = "crate::model::day")]
    pub date: NaiveDate,
    #[serde(with = "crate::model::day")]
    pub second: NaiveDate,
    /// Shared, so that keys are cheap to copy into the ledger's indexes.
    pub tag: std::sync::Arc<str>,
}

/// The part of an event that falls into one rating unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventPart {
    pub event: usize,
    /// Indices into the event's `games`, shared: a unit's parts are copied whole when an edit
    /// is previewed (to be put back), and a Turkish month or an Icelandic period holds
    /// thousands of games.
    pub games: std::sync::Arc<[usize]>,
}

/// A rulebook's own figures of a row ([`Rulebook::Detail`]) as a fixed number of whole numbers,
/// when they are of a fixed shape: the store lays each of them out in a column of its own,
/// read back in a tight loop (a Turkish month's tens of thousands of rows were read back one
/// serde field after another). Figures of a varying shape (Iceland's K of each game) are not
/// laid flat, and are stored whole.
pub trait FlatFigures: Sized {
    /// How many numbers [`FlatFigures::flatten`] gives; `None`: the figures are not laid flat.
    const FIELDS: Option<usize>;

    /// The figures as numbers, pushed in order (as many as `FIELDS` says).
    fn flatten(&self, out: &mut Vec<i64>);

    /// The figures back from their numbers (`None`: numbers no figures give).
    fn unflatten(fields: &[i64]) -> Option<Self>;
}

/// Finland publishes no figures of its own.
impl FlatFigures for () {
    const FIELDS: Option<usize> = Some(0);

    fn flatten(&self, _: &mut Vec<i64>) {}

    fn unflatten(_: &[i64]) -> Option<Self> {
        Some(())
    }
}

/// An optional figure as two numbers: whether it is there, and its value (0 when it is not).
pub fn flatten_option(value: Option<i64>, out: &mut Vec<i64>) {
    out.extend([i64::from(value.is_some()), value.unwrap_or(0)]);
}

/// An optional figure back from [`flatten_option`]'s two numbers, of type `T`.
pub fn unflatten_option<T: TryFrom<i64>>(there: i64, value: i64) -> Option<Option<T>> {
    match there {
        0 if value == 0 => Some(None),
        1 => T::try_from(value).ok().map(Some),
        _ => None,
    }
}

/// A performance rating (SSL 7.6): finite, or unbounded when the score is 0 or 100 %.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Performance {
    Finite(f64),
    MinusInfinity,
    PlusInfinity,
}

/// One rated game as seen by one of its players.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameLine {
    pub round: u32,
    /// The opponent's player index, kept in 32 bits: a federation's ratings hold a line a game
    /// a player ([`GameLine::opponent`]).
    pub opponent: u32,
    pub halves: u8,
    /// The opponent's rating as this player's own calculation used it.
    pub opponent_rating: Rating,
    /// Expected score in percent, from the player's rating before the unit.
    pub expected: Option<u8>,
    /// The player's running rating after this game (rounded).
    pub rating_after: Rating,
}

impl GameLine {
    /// The opponent's player index.
    pub fn opponent(&self) -> PlayerIdx {
        self.opponent as PlayerIdx
    }
}

/// The revision of the rating rules: raised whenever a rulebook rates some input differently
/// (or what a rating row holds changes), so that a database whose results were rated by an
/// earlier revision is rated again as it opens. 2: Finland's rule before 2011, Turkey's A.10.e,
/// Iceland's foreign entrants, and the time factor kept in hundredths.
pub const RULES_REVISION: u64 = 2;

/// The factors a calculation applied, for reports. Plain numbers (no text), since a
/// federation's ledger holds hundreds of thousands of these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Factors {
    /// The rating factor (SSL 7.7: Kr).
    pub k: Option<u16>,
    /// The time factor in hundredths (SSL 7.8: Kt; 0.15 before 2011).
    pub time_hundredths: Option<u8>,
    /// The temporary rating the calculation started from (SSL 4.3: Rt).
    pub temporary: Option<Rating>,
    /// Rated by the new player's formula (SSL 7.3).
    pub new_player: bool,
}

/// The names a rulebook gives the factors of [`Factors`] in its reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FactorNames {
    /// The rating factor: Finland's `Kr` (SSL 7.7), Iceland's `K`, Turkey's `k`.
    pub k: &'static str,
    /// The time factor: Finland's `Kt` (SSL 7.8).
    pub time: &'static str,
    /// The rating a calculation started from: Finland's temporary `Rt` (SSL 4.3), Turkey's
    /// preliminary rating of the unrated (B.3.a(2)).
    pub temporary: &'static str,
}

impl Factors {
    /// `Kr 35 Kt 0.5`, `Rt 1900`, or empty, in the rulebook's own names.
    pub fn describe(&self, names: FactorNames) -> String {
        let mut parts = Vec::new();
        if let Some(k) = self.k {
            parts.push(format!("{} {k}", names.k));
        }
        if let Some(t) = self.time_hundredths {
            let decimals = format!("{:02}", t % 100);
            parts.push(if t % 100 == 0 {
                format!("{} {}", names.time, t / 100)
            } else {
                format!(
                    "{} {}.{}",
                    names.time,
                    t / 100,
                    decimals.trim_end_matches('0')
                )
            });
        }
        if let Some(r) = self.temporary {
            parts.push(format!("{} {r}", names.temporary));
        }
        if self.new_player {
            parts.push("new player".into());
        }
        parts.join(" ")
    }
}

/// Everything published for one player in one event (or, for a rulebook that rates by period,
/// in the part of an event that falls into one period). `detail` holds the figures a rulebook
/// publishes beyond the common ones (`()` for Finland).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerRating<D = ()> {
    pub player: PlayerIdx,
    pub event: usize,
    pub old: Option<Rating>,
    pub new: Rating,
    pub established: bool,
    pub games: u32,
    pub score: Halves,
    /// Sum of expectations in hundredths, `None` where the rules give none.
    pub expected: Option<i64>,
    /// The performance rating when the rulebook publishes a figure of its own (TSF's tables);
    /// `None`: SSL 7.6 over this rating's games (their opponents' ratings as used and the
    /// score), worked out when it is shown ([`PlayerRating::performance`]) rather than for every
    /// player of every unit at every re-rate.
    pub performance: Option<Performance>,
    /// The factors the rulebook applied, for reports.
    pub factors: Factors,
    /// Shared, not copied, when a unit rated again takes the row as it was (stored as a
    /// sequence, as a vector would be).
    pub lines: std::sync::Arc<[GameLine]>,
    pub detail: D,
}

impl<D> PlayerRating<D> {
    /// The common figures, without the rulebook's own (what views and reports that serve every
    /// rulebook show).
    pub fn common(&self) -> PlayerRating {
        self.with_detail(())
    }

    /// The same figures with other figures of a rulebook's own.
    pub fn with_detail<E>(&self, detail: E) -> PlayerRating<E> {
        PlayerRating {
            player: self.player,
            event: self.event,
            old: self.old,
            new: self.new,
            established: self.established,
            games: self.games,
            score: self.score,
            expected: self.expected,
            // Worked out when asked for, from the same lines (most views do not show it).
            performance: self.performance,
            factors: self.factors,
            lines: self.lines.clone(),
            detail,
        }
    }

    /// The performance rating: the rulebook's figure, or SSL 7.6 over the games.
    pub fn performance(&self) -> Performance {
        self.performance.unwrap_or_else(|| {
            let opponents: Vec<Rating> = self.lines.iter().map(|l| l.opponent_rating).collect();
            performance::performance(&opponents, self.score)
        })
    }

    pub fn after_game(&self) -> impl Iterator<Item = Rating> + '_ {
        self.lines.iter().map(|l| l.rating_after)
    }
}

/// A title (or other permanent award): reached in a unit, or held before the ledger began.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Award<A> {
    pub player: PlayerIdx,
    pub award: A,
    #[serde(with = "crate::model::day::option")]
    pub date: Option<NaiveDate>,
    /// The id of the event that earned it, where known.
    pub event: Option<String>,
}

/// How close a player is to an award.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reach<A> {
    pub award: A,
    pub rating: Rating,
    pub needed_rating: Rating,
    pub games: u32,
    pub needed_games: u32,
}

/// (event, round) of the first and of the last game of a run of games.
pub type RunBounds = ((usize, u32), (usize, u32));

/// Team-selection figures: the named factors, the number they give (doubled: it may end in
/// .5), the women's number, and what gave the performance factor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectionNumbers {
    pub factors: Vec<(&'static str, Option<Rating>)>,
    pub number_doubled: Option<i64>,
    pub womens: Option<Rating>,
    pub best_run: Option<RunBounds>,
}

/// What a rulebook sees of one unit.
pub struct Unit<'a, R: Rulebook> {
    pub key: &'a UnitKey,
    pub list: ListId,
    pub parts: &'a [EventPart],
    pub events: &'a [Event],
    pub players: &'a [PlayerInfo],
    /// The participants' states on `list` before the unit (`None`: no state on that list).
    pub state: &'a (dyn Fn(PlayerIdx) -> Option<&'a R::State> + Sync),
    /// A participant's state on another list before the unit's key (for a rulebook whose
    /// [`Rulebook::reads_other_lists`], on the lists its [`Rulebook::reads_list`] names).
    pub state_on: &'a (dyn Fn(PlayerIdx, ListId) -> Option<&'a R::State> + Sync),
    /// The awards a participant already holds.
    pub awards: &'a (dyn Fn(PlayerIdx) -> &'a [Award<R::Award>] + Sync),
}

/// What a rulebook returns for one unit.
pub struct UnitOutcome<S, A, D = ()> {
    pub ratings: Rows<D>,
    pub states: Vec<(PlayerIdx, S)>,
    pub awards: Vec<Award<A>>,
}

impl<S, A, D> Default for UnitOutcome<S, A, D> {
    fn default() -> Self {
        Self {
            ratings: Rows::default(),
            states: Vec::new(),
            awards: Vec::new(),
        }
    }
}

/// One federation's rating rules.
///
/// Rulebooks and their states are plain data, shared between threads: the ledger rates
/// independent units side by side.
pub trait Rulebook: Clone + std::fmt::Debug + PartialEq + Default + Send + Sync {
    /// A player's state on one list between units.
    type State: Clone + std::fmt::Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync;
    /// A title or other permanent award.
    type Award: Clone + std::fmt::Debug + Ord + Serialize + DeserializeOwned + Send + Sync;
    /// The per-player figures of one event (part) that the rulebook publishes beyond
    /// [`PlayerRating`]'s common ones.
    type Detail: Clone
        + std::fmt::Debug
        + PartialEq
        + Default
        + Serialize
        + DeserializeOwned
        + FlatFigures
        + Send
        + Sync;

    /// The rulebook's code (`ssl`, `isl`, `tsf`).
    fn code(&self) -> &'static str;

    /// The FIDE code of the federation whose rules these are (`FIN`, `ISL`, `TUR`): a player
    /// without a recorded federation belongs to it.
    fn home_federation(&self) -> &'static str;

    /// The names of the factors in this rulebook's reports (never another's: no `Kr` outside
    /// Finland).
    fn factor_names(&self) -> FactorNames;

    /// How the federation writes a player's name on its screens and in its messages.
    fn name_order(&self) -> crate::model::NameOrder;

    /// The rule an event is rated by, in words, when the rulebook rates events of different
    /// dates by different rules (SSL: `rule before 2011` for an event starting before
    /// 2011-01-01, `2023 rules` after), and whether it is the rulebook's current one; `None`
    /// for a rulebook with one rule.
    fn rule_of(&self, event: &crate::model::Event) -> Option<(&'static str, bool)>;

    /// The names of its lists, indexed by [`ListId`].
    fn lists(&self) -> &'static [&'static str];

    /// The list an event is rated on, or `None` when it is not rated. `decided` is, for a
    /// play-off, the event whose result it decides.
    fn list_of(&self, event: &Event, decided: Option<&Event>) -> Option<ListId>;

    /// The list of an event among `events`, the event a play-off decides found by its id —
    /// the newest with that id (a deleted event stays in the table, and its id may be entered
    /// again after it).
    fn list_in(&self, event: &Event, events: &[Event]) -> Option<ListId> {
        let decided = event
            .playoff_of
            .as_deref()
            .and_then(|id| events.iter().rev().find(|e| e.id == id));
        self.list_of(event, decided)
    }

    /// Whether a game is rated by its own receipt date (`Game::received`, ISL: rounds reported
    /// as they are played), so that the database stamps each result with the day it arrived;
    /// elsewhere a game's own date is ignored, as the contract says of TSF, and an event is
    /// rated by its event's `received`.
    fn keeps_game_receipt(&self) -> bool {
        false
    }

    /// Whether a player's re-entries ([`crate::model::PlayerInfo::reentries`]) replace his
    /// state; then [`Rulebook::restart`] says with what.
    fn restarts(&self) -> bool {
        false
    }

    /// The state that replaces a player's own on `list` at a point of the ledger: the newest
    /// of his re-entries that falls after `since` (the key of the unit that gave him his
    /// state; `None`: his seed, or none) and at or before the point (`upto` says of a unit key
    /// whether it is). `None`: his own state stands. Asked only when [`Rulebook::restarts`].
    fn restart(
        &self,
        _info: &crate::model::PlayerInfo,
        _list: ListId,
        _since: Option<&UnitKey>,
        _upto: &dyn Fn(&UnitKey) -> bool,
    ) -> Option<Self::State> {
        None
    }

    /// Whether rating a unit reads participants' states on other lists
    /// ([`Unit::state_on`]); the ledger then re-rates a moved player's next unit on every
    /// list, not only his next unit on the same list.
    fn reads_other_lists(&self) -> bool {
        false
    }

    /// Whether rating a unit on `list` reads participants' states on `other`, another list
    /// ([`Unit::state_on`]): a player moved on `other` then re-rates his next unit on `list`.
    /// Every other list for a rulebook that [`Rulebook::reads_other_lists`], unless it says
    /// which.
    fn reads_list(&self, _list: ListId, _other: ListId) -> bool {
        self.reads_other_lists()
    }

    /// How an event's games fall into rating units on its list.
    fn units_of(&self, event_idx: usize, event: &Event, list: ListId) -> Vec<(UnitKey, EventPart)>;

    /// The next award a player could reach and how far he is from it, for the "within reach"
    /// list; `None` when the rulebook has no awards or he is not close.
    fn within_reach(
        &self,
        _info: &PlayerInfo,
        _states: &[Option<&Self::State>],
        _held: &[Award<Self::Award>],
    ) -> Option<Reach<Self::Award>> {
        None
    }

    /// Team-selection figures on a date, from a player's history on the lists; `None` when the
    /// rulebook has none.
    fn selection_numbers(
        &self,
        _as_of: NaiveDate,
        _info: &PlayerInfo,
        _initial: &[Option<Self::State>],
        _history: &dyn Fn(ListId) -> Vec<PlayerRating<Self::Detail>>,
        _events: &[Event],
    ) -> Option<SelectionNumbers> {
        None
    }

    /// A state for the player card: the rating with what stands behind it.
    fn state_summary(&self, _list: ListId, state: &Self::State) -> String {
        self.rating_of(state)
            .map_or_else(|| "unrated".into(), |r| r.to_string())
    }

    /// Whether an award is granted only once a committee confirms it.
    fn needs_confirmation(&self, _award: &Self::Award) -> bool {
        false
    }

    /// The published rating a state carries, if any.
    fn rating_of(&self, state: &Self::State) -> Option<Rating>;

    /// Rates one unit.
    fn rate(&self, unit: &Unit<'_, Self>) -> UnitOutcome<Self::State, Self::Award, Self::Detail>;

    /// Whether [`Rulebook::rate_again`] takes what a unit published (otherwise the ledger does
    /// not read it back for it).
    fn rates_again(&self) -> bool {
        false
    }

    /// Rates again a unit from what it published when last rated (`previous`): since then the
    /// states or awards of some participants moved, and the games of some players in it were
    /// keyed, corrected, added or taken away (every other game, and every event, is as it
    /// was). A rulebook whose unit is made of events rated apart may rate again only the
    /// events changed or holding a moved player, and one that rates each player from his own
    /// games and his opponents' states only those players and their opponents; the others'
    /// rows and states are taken as they were. The outcome must be [`Rulebook::rate`]'s.
    /// `None`: rate it whole.
    fn rate_again(
        &self,
        _unit: &Unit<'_, Self>,
        _previous: &Previous<'_, Self>,
    ) -> Option<UnitOutcome<Self::State, Self::Award, Self::Detail>> {
        None
    }
}

/// What a unit published when last rated, and what moved since: what
/// [`Rulebook::rate_again`] starts from.
pub struct Previous<'a, R: Rulebook> {
    /// Its rows, in the order [`Rulebook::rate`] gave them, in the runs it holds them in.
    pub ratings: &'a [Run<R::Detail>],
    /// The state it gave each participant.
    pub states: &'a States<R::State>,
    /// The participants (by index) whose state or awards before the unit moved since.
    pub moved: &'a fixedbitset::FixedBitSet,
    /// The players whose games in the unit may have changed since: those of a game keyed,
    /// corrected, added or taken away, and every player of an event changed as a whole (its
    /// details, or a player's record that reaches it), before and after the change.
    pub changed: &'a fixedbitset::FixedBitSet,
    /// The events (by index) that may have changed since, as a whole or in one of their games.
    pub events_changed: &'a std::collections::BTreeSet<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes as the store encodes records (bincode, standard configuration).
    fn binary<T: Serialize>(value: &T) -> Vec<u8> {
        bincode::serde::encode_to_vec(value, bincode::config::standard()).expect("encodes")
    }

    /// A game line as stored before its opponent was kept in 32 bits.
    #[derive(Serialize)]
    struct WithWideOpponent {
        round: u32,
        opponent: usize,
        halves: u8,
        opponent_rating: Rating,
        expected: Option<u8>,
        rating_after: Rating,
    }

    #[test]
    fn a_game_line_is_stored_and_written_as_before_its_opponent_was_narrowed() {
        for opponent in [0, 1, 250, 251, 65_535, 65_536, 999_999, u32::MAX] {
            let line = GameLine {
                round: 7,
                opponent,
                halves: 1,
                opponent_rating: 1850,
                expected: Some(64),
                rating_after: 1903,
            };
            let wide = WithWideOpponent {
                round: 7,
                opponent: opponent as usize,
                halves: 1,
                opponent_rating: 1850,
                expected: Some(64),
                rating_after: 1903,
            };
            assert_eq!(binary(&line), binary(&wide), "{opponent}");
            assert_eq!(
                serde_json::to_string(&line).expect("json"),
                serde_json::to_string(&wide).expect("json")
            );
            let back: GameLine =
                bincode::serde::decode_from_slice(&binary(&wide), bincode::config::standard())
                    .expect("decodes")
                    .0;
            assert_eq!(back, line);
            assert_eq!(back.opponent(), opponent as PlayerIdx);
        }
    }
}
