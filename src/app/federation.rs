//! What the application needs of a federation's rulebook beyond rating and JSON: one bound,
//! [`Federation`], for everything the workstation, the command line and the files do, so that
//! each use-case is written once for every rulebook. Finland's answers are here; Iceland's and
//! Turkey's, which rate by period, in `federation/isl.rs` and `federation/tsf.rs`.

mod isl;
mod ssl;
mod tsf;

use chrono::NaiveDate;

use crate::book::Book;
use crate::demo::Params;
use crate::json::JsonRules;
use crate::model::{PlayerInfo, Rating};
use crate::rules::{Halves, ListId, PlayerRating, UnitKey};

use super::titles::TitlesView;

/// A federation the application serves: its rulebook, read and written as JSON, with what its
/// screens and files show of it.
pub trait Federation: JsonRules + super::national::National + 'static {
    /// The demo federation of this rulebook — its players and events, and the events of each
    /// year as ranges of event ids — or `None` when the rulebook has none.
    fn demo(&self, params: &Params) -> Option<Demo<Self>>;

    /// The federation's alphabet, lowercase, in its order: lists of players are sorted by it
    /// (Finnish å, ä, ö after z). Every federation says its own: none is assumed.
    fn alphabet(&self) -> &'static str;

    /// The third tab's name: what the rulebook tracks.
    fn third_tab(&self) -> &'static str;

    /// The views of the third tab, in the order ←/→ steps through them.
    fn views(&self) -> &'static [TitlesView];

    /// A view's name on the third tab.
    fn view_title(&self, view: TitlesView) -> &'static str {
        view.title()
    }

    /// Whether the rulebook publishes its ratings by period (a quarter, a month) rather than
    /// after every event.
    fn by_period(&self) -> bool;

    /// What a view of the third tab tracks, in the rulebook's words (its title line).
    fn view_note(&self, _view: TitlesView) -> &'static str {
        ""
    }

    /// For a rulebook that publishes its ratings by period (a quarter, a month): the dates of
    /// the period a rating unit names. `None` for a rulebook that rates event by event.
    fn period_dates(&self, _key: &UnitKey) -> Option<PeriodDates> {
        None
    }

    /// Why an event is not rated as it stands, in the rulebook's words (the event's header
    /// says so); `None` when it is rated, or the rulebook rates every event it holds.
    fn not_rated(&self, _event: &crate::model::Event) -> Option<String> {
        None
    }

    /// The list whose ratings an event's entrants bring in, shown in its standings from the
    /// first round: the list it is rated on, or `None` when it is not rated.
    fn entry_list(
        &self,
        event: &crate::model::Event,
        events: &[crate::model::Event],
    ) -> Option<ListId> {
        self.list_in(event, events)
    }

    /// Whether a rated player's rating moves game by game (the running rating after each game
    /// on the card means something); a rulebook that rates a whole event at once does not.
    fn rates_games(&self) -> bool {
        true
    }

    /// The exact change, in hundredths, that one row of an event adds to the rating its period
    /// publishes; `None` for a player without a rating, and for a rulebook that publishes a new
    /// rating after every event (its rows carry it).
    fn row_change(&self, _row: &PlayerRating<Self::Detail>) -> Option<i64> {
        None
    }

    /// The exact change of each of a row's games, in hundredths, for a rulebook that rates game
    /// by game but publishes by period (the running rating is the period's so far); `None`
    /// where the running rating tells it.
    fn game_changes(&self, _row: &PlayerRating<Self::Detail>) -> Option<Vec<i64>> {
        None
    }

    /// What the player card says of his state on one list on a date: the rating with what
    /// stands behind it (games, the factor his next game has), or how far he is from a first
    /// rating.
    fn card_summary(
        &self,
        list: ListId,
        state: Option<&Self::State>,
        _info: &PlayerInfo,
        _on: NaiveDate,
    ) -> String {
        state.map_or_else(|| "unrated".into(), |s| self.state_summary(list, s))
    }

    /// The factor a rated player's next game on a list would have (ISL Tafla 1's K, TSF's k by
    /// UKD); `None` when the rulebook has none to show or he has no rating.
    fn next_factor(
        &self,
        _list: ListId,
        _state: &Self::State,
        _info: &PlayerInfo,
        _on: NaiveDate,
    ) -> Option<u16> {
        None
    }

    /// How far a player without a rating on a list is from his first one; `None` when he has
    /// a rating, nothing toward one, or the rulebook keeps no such record.
    fn progress(&self, _list: ListId, _state: &Self::State) -> Option<Progress> {
        None
    }

    /// A rating mark whose reaching changes a player's factor for good (ISL: 2400, K 10), and
    /// whether a state has reached it; `None` when the rulebook has none.
    fn mark(&self, _state: &Self::State) -> Option<MarkStanding> {
        None
    }

    /// The ratings at which the rating factor changes (TSF B.3.d: 1300, 1600, 2000, 2400), with
    /// the factor from each edge up; empty when the factor does not follow the rating alone.
    fn factor_bands(&self) -> &'static [(Rating, u16)] {
        &[]
    }
}

/// A demo federation's book and the event ids of each of its years.
pub type Demo<R> = (Book<R>, Vec<std::ops::Range<usize>>);

/// The dates of a rating period.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PeriodDates {
    /// The list the period is rated with (published on this day).
    pub rated_with: NaiveDate,
    /// The list that publishes the period's new ratings: it names the period.
    pub published: NaiveDate,
}

/// How far an unrated player is from his first rating.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Games that count toward it so far, and the games it needs.
    pub games: u32,
    pub needed_games: u32,
    /// His score in those games and the score it needs, in half points (ISL: a point).
    pub score: Option<(Halves, Halves)>,
    /// The rating those games give as they stand (ISL Rforstig, TSF B.1.f's average): published
    /// once they are enough.
    pub rating: Option<Rating>,
    /// The performances archived so far (TSF B.1.g): performance, games, event id.
    pub archive: Vec<(Rating, u32, Option<String>)>,
}

impl Progress {
    /// Whether the record already gives a first rating.
    pub fn enough(&self) -> bool {
        self.games >= self.needed_games && self.score.is_none_or(|(have, need)| have >= need)
    }
}

/// A rated player against a rating mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarkStanding {
    pub mark: Rating,
    pub rating: Rating,
    /// A published rating reached the mark (for good).
    pub reached: bool,
}
