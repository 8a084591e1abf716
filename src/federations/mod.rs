//! The federations: what each is beyond its rating arithmetic (`rules/`) — its JSON, its national
//! list and the list's CSV columns, its screens' third tab, its alphabet, its demo. One bound,
//! [`Federation`], for everything the workstation, the command line and the files do, so that
//! each use-case is written once for every rulebook; one folder per federation with its
//! answers (`ssl/`, `isl/`, `tsf/`), each stated there and nowhere taken from another; and one
//! [`registry`], the only place that turns a rulebook code into a federation.
//!
//! Adding a federation: its `rules/<code>/`, its `federations/<code>/` (the `Federation` and
//! `JsonRules` answers), one line in [`registry`], its conformance cases and its tests.

pub mod isl;
pub mod registry;
pub mod ssl;
pub mod tsf;

use chrono::NaiveDate;

use crate::book::Book;
use crate::demo::Params;
use crate::json::JsonRules;
use crate::model::{PlayerInfo, Rating};
use crate::rules::{Halves, ListId, PlayerRating, Rulebook, UnitKey};

use crate::import::national_csv::Columns;

/// A federation the application serves: its rulebook, read and written as JSON, with what its
/// screens and files show of it.
pub trait Federation: JsonRules + 'static {
    /// The federation in words, for messages and headings (`Finnish`).
    fn adjective(&self) -> &'static str;

    /// The country a home player represents (`Finland`).
    fn country(&self) -> &'static str;

    /// One of its players, in words (`a Finn`).
    fn citizen(&self) -> &'static str;

    /// The national list in force on `date`: its publication date (the date itself for a
    /// rulebook that publishes whenever asked).
    fn list_date(&self, date: NaiveDate) -> NaiveDate;

    /// The list published before the one of `list_date`, for the change column.
    fn previous_list_date(&self, list_date: NaiveDate) -> NaiveDate;

    /// A list's heading (`Finnish selo list`, `Turkish UHS list (rapid)`).
    fn list_title(&self, list: ListId) -> String;

    /// Whether a player is on a national list on its date.
    fn on_list(&self, entry: &ListEntry<'_, Self>) -> bool;

    /// Whether [`Federation::on_list`] reads [`ListEntry::last_game`] (otherwise it is left
    /// `None`, and a list is drawn up without going through every game).
    fn lists_by_last_game(&self) -> bool;

    /// The rated games behind a state, as a list shows them.
    fn games_of(&self, state: &Self::State) -> u32;

    /// Whether a listed rating stands on its own; one that does not is marked `*` on the list
    /// with [`National::unsettled_note`].
    fn settled(&self, list: ListId, state: &Self::State) -> bool;

    /// What the `*` of [`National::settled`] means on a list, if any rating can carry it.
    fn unsettled_note(&self, list: ListId) -> Option<&'static str>;

    /// The columns of the national list's CSV (read by `import national-csv`, written by
    /// `export list`).
    fn list_columns(&self) -> &'static Columns;

    /// A player's starting state on `list` from a national list's figures (a rating and the
    /// games behind it).
    fn listed_state(&self, list: ListId, rating: Rating, games: u32) -> Self::State;

    /// The demo federation of this rulebook — its players and events, and the events of each
    /// year as ranges of event ids — or `None` when the rulebook has none.
    fn demo(&self, params: &Params) -> Option<Demo<Self>>;

    /// The games one of the demo's opens holds on average, with its share of the year's
    /// other events: a demo asked for a number of games is given opens by it.
    fn demo_games_per_open(&self) -> usize {
        crate::demo::GAMES_PER_OPEN
    }

    /// Rated games a year per thousand registered players in the federation this rulebook
    /// rates, for a demo federation of a given size: by default the national demo's shape
    /// (100 000 games a year among 30 000 players).
    fn games_a_year_per_thousand(&self) -> usize {
        3_333
    }

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
    fn view_note(&self, view: TitlesView) -> &'static str;

    /// For a rulebook that publishes its ratings by period (a quarter, a month): the dates of
    /// the period a rating unit names. `None` for a rulebook that rates event by event.
    fn period_dates(&self, key: &UnitKey) -> Option<PeriodDates>;

    /// Why an event is not rated as it stands, in the rulebook's words (the event's header
    /// says so); `None` when it is rated, or the rulebook rates every event it holds.
    fn not_rated(&self, event: &crate::model::Event) -> Option<String>;

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
    fn rates_games(&self) -> bool;

    /// The exact change, in hundredths, that one row of an event adds to the rating its period
    /// publishes; `None` for a player without a rating, and for a rulebook that publishes a new
    /// rating after every event (its rows carry it).
    fn row_change(&self, row: &PlayerRating<Self::Detail>) -> Option<i64>;

    /// The exact change of each of a row's games, in hundredths, for a rulebook that rates game
    /// by game but publishes by period (the running rating is the period's so far); `None`
    /// where the running rating tells it.
    fn game_changes(&self, row: &PlayerRating<Self::Detail>) -> Option<Vec<i64>>;

    /// What a row says of how its player entered the rating list there, in words (ISL: a
    /// foreign player on "his FIDE rating" or "his national rating"); `None` for every other
    /// row, and for a rulebook where no one enters this way.
    fn entered(&self, row: &PlayerRating<Self::Detail>) -> Option<&'static str>;

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
        list: ListId,
        state: &Self::State,
        info: &PlayerInfo,
        on: NaiveDate,
    ) -> Option<u16>;

    /// How far a player without a rating on a list is from his first one; `None` when he has
    /// a rating, nothing toward one, or the rulebook keeps no such record.
    fn progress(&self, list: ListId, state: &Self::State) -> Option<Progress>;

    /// A rating mark whose reaching changes a player's factor for good (ISL: 2400, K 10), and
    /// whether a state has reached it; `None` when the rulebook has none.
    fn mark(&self, state: &Self::State) -> Option<MarkStanding>;

    /// The ratings at which the rating factor changes (TSF B.3.d: 1300, 1600, 2000, 2400), with
    /// the factor from each edge up; empty when the factor does not follow the rating alone.
    fn factor_bands(&self) -> &'static [(Rating, u16)];
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

/// What decides whether a player is on a national list.
pub struct ListEntry<'a, R: Rulebook> {
    pub info: &'a PlayerInfo,
    pub list: ListId,
    /// His state on the list's date.
    pub state: &'a R::State,
    /// The date of his latest played game on the list before the list's date (only for a
    /// rulebook that [`Federation::lists_by_last_game`]).
    pub last_game: Option<NaiveDate>,
    /// The list's date.
    pub date: NaiveDate,
}

/// The third tab's views; a rulebook names those it has ([`Federation::views`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TitlesView {
    #[default]
    Holders,
    Reach,
    Selection,
    Women,
    /// Players at and near a rating mark that fixes their factor (ISL 2400).
    Mark,
    /// Players without a rating on their way to a first one.
    FirstRating,
    /// Players at the edges of the rating bands that set their factor (TSF k).
    Bands,
}

impl TitlesView {
    /// Finland's views: titles and selection.
    pub const TITLES: [TitlesView; 4] = [
        TitlesView::Holders,
        TitlesView::Reach,
        TitlesView::Selection,
        TitlesView::Women,
    ];

    pub fn title(self) -> &'static str {
        match self {
            TitlesView::Holders => "Titles",
            TitlesView::Reach => "Within reach",
            TitlesView::Selection => "Open selection",
            TitlesView::Women => "Women's selection",
            TitlesView::Mark => "Rating mark",
            TitlesView::FirstRating => "First ratings",
            TitlesView::Bands => "Factor bands",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::isl::Isl;
    use crate::rules::ssl::Ssl;
    use crate::rules::tsf::{self, Tsf};

    #[test]
    fn every_rulebooks_list_columns_name_its_lists() {
        assert_eq!(Ssl.list_columns().lists.len(), Ssl.lists().len());
        assert_eq!(Isl.list_columns().lists.len(), Isl.lists().len());
        assert_eq!(Tsf.list_columns().lists.len(), Tsf.lists().len());
        assert_eq!(Tsf.list_title(tsf::BLITZ), "Turkish UYS list (blitz)");
        assert_eq!(
            Isl.list_date(NaiveDate::from_ymd_opt(2026, 5, 31).expect("date")),
            NaiveDate::from_ymd_opt(2026, 3, 1).expect("date")
        );
    }
}
