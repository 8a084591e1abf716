//! What the workstation shows of Finland's rulebook: ratings published after every event, the
//! players' lists in the Finnish alphabet, and a third tab of titles (SSL 6) and the selection
//! numbers.

mod json;

use chrono::NaiveDate;

use super::{Demo, Federation, ListEntry, MarkStanding, PeriodDates, Progress, TitlesView};
use crate::demo::Params;
use crate::import::national_csv::{self, Columns};
use crate::model::{Event, PlayerInfo, Rating};
use crate::rules::ssl::{FINLAND, PELO, SELO, Ssl, SslState};
use crate::rules::{ListId, PlayerRating, Rulebook, UnitKey};

/// Finland's alphabet: å, ä, ö after z (w and v apart, as in today's dictionaries).
pub const ALPHABET: &str = "abcdefghijklmnopqrstuvwxyzåäö";

impl Federation for Ssl {
    fn demo(&self, params: &Params) -> Option<Demo<Self>> {
        Some(crate::demo::generate(params))
    }

    fn alphabet(&self) -> &'static str {
        ALPHABET
    }

    fn third_tab(&self) -> &'static str {
        "Titles"
    }

    fn views(&self) -> &'static [TitlesView] {
        &TitlesView::TITLES
    }

    /// A new selo after every event (each event rated in the order of the ledger), not by
    /// period.
    fn by_period(&self) -> bool {
        false
    }
    fn adjective(&self) -> &'static str {
        "Finnish"
    }

    fn country(&self) -> &'static str {
        "Finland"
    }

    fn citizen(&self) -> &'static str {
        "a Finn"
    }

    /// The selo service publishes its list whenever asked: a list is dated as given, and the
    /// previous one is taken three months earlier.
    fn list_date(&self, date: NaiveDate) -> NaiveDate {
        date
    }

    fn previous_list_date(&self, list_date: NaiveDate) -> NaiveDate {
        list_date
            .checked_sub_months(chrono::Months::new(3))
            .unwrap_or(list_date)
    }

    fn list_title(&self, list: ListId) -> String {
        format!("Finnish {} list", self.lists()[list])
    }

    /// SSL 3.1 and 4.1 list the players of Finland with a rating on the list.
    fn on_list(&self, entry: &ListEntry<'_, Self>) -> bool {
        entry.info.plays_for(FINLAND) && entry.state.rating.is_some()
    }

    /// SSL 3.1 and 4.1 list every rated Finn, however long ago he played.
    fn lists_by_last_game(&self) -> bool {
        false
    }

    fn games_of(&self, state: &SslState) -> u32 {
        state.games
    }

    /// SSL 3.1 (selo: 11 earlier games, or a 3.7 correction) and 4.1 (pelo: one earlier game).
    fn settled(&self, list: ListId, state: &SslState) -> bool {
        if list == PELO {
            state.pelo_established()
        } else {
            state.selo_established()
        }
    }

    fn unsettled_note(&self, list: ListId) -> Option<&'static str> {
        Some(if list == SELO {
            "not yet established (selo: fewer than 11 games)"
        } else {
            "not yet established (pelo: no earlier game)"
        })
    }

    fn list_columns(&self) -> &'static Columns {
        &national_csv::FINNISH
    }

    /// A listed rating with its games, as the `rate` format's `{"rating", "games"}` reads:
    /// every game counted as one of normal thinking time, a new player's aggregates (SSL 3.3)
    /// taken from the rating.
    fn listed_state(&self, _list: ListId, rating: Rating, games: u32) -> SslState {
        SslState {
            rating: Some(rating),
            games,
            normal_games: games,
            history: None,
            elo_corrected: false,
        }
    }

    fn view_note(&self, _view: TitlesView) -> &'static str {
        ""
    }

    /// Ratings are computed tournament by tournament (SSL 2.11), not by period.
    fn period_dates(&self, _key: &UnitKey) -> Option<PeriodDates> {
        None
    }

    /// Which games of an event count is decided game by game (SSL 2.7–2.9); no event as a
    /// whole is held back.
    fn not_rated(&self, _event: &Event) -> Option<String> {
        None
    }

    /// The selo moves game by game: the running rating after each game means something.
    fn rates_games(&self) -> bool {
        true
    }

    /// Each row carries its event's new rating: no period adds rows together.
    fn row_change(&self, _row: &PlayerRating<()>) -> Option<i64> {
        None
    }

    /// The running rating tells each game's change.
    fn game_changes(&self, _row: &PlayerRating<()>) -> Option<Vec<i64>> {
        None
    }

    /// Kr follows the rating going in and Kt each game's minutes (SSL 7.7, 7.8): the card
    /// shows them per game, not one figure for the next.
    fn next_factor(
        &self,
        _list: ListId,
        _state: &SslState,
        _info: &PlayerInfo,
        _on: NaiveDate,
    ) -> Option<u16> {
        None
    }

    /// A new player is rated from his first game on (SSL 3.1, 7.3): there is no way to a
    /// first rating to follow.
    fn progress(&self, _list: ListId, _state: &SslState) -> Option<Progress> {
        None
    }

    /// No rating mark fixes a factor for good.
    fn mark(&self, _state: &SslState) -> Option<MarkStanding> {
        None
    }

    /// Kr's steps follow from a formula of the rating (SSL 7.7), shown in the report; no band
    /// list is kept.
    fn factor_bands(&self) -> &'static [(Rating, u16)] {
        &[]
    }

    /// No one enters the list on a rating from elsewhere.
    fn entered(&self, _row: &PlayerRating<()>) -> Option<&'static str> {
        None
    }
}
