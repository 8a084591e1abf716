//! What the workstation shows of Iceland's rulebook: quarterly periods, a rating with its game
//! count and the K of the next game (Tafla 1), the 2400 mark, and an unrated player's way to
//! his initial rating (5 games, 1 point).

mod json;

use chrono::NaiveDate;

use super::{Demo, Federation, ListEntry, MarkStanding, PeriodDates, Progress, TitlesView};
use crate::demo::Params;
use crate::import::national_csv::{self, Columns};
use crate::model::PlayerInfo;
use crate::model::Rating;
use crate::rules::isl;
use crate::rules::isl::{
    Isl, IslDetail, IslState, LOCK_RATING, MIN_GAMES, MIN_HALVES, change_hundredths,
    initial_rating, is_junior, k_factor, period_of, period_of_key,
};
use crate::rules::{ListId, PlayerRating, UnitKey};

/// Ratings are "not fully comparable" before this many games (Birting stiga á lista).
pub use crate::rules::isl::listing::COMPARABLE_GAMES;

/// Iceland's alphabet with the foreign letters c, q, w, z in their Latin places: þ, æ, ö last.
pub const ALPHABET: &str = "aábcdðeéfghiíjklmnoópqrstuúvwxyýzþæö";

impl Federation for Isl {
    fn demo(&self, params: &Params) -> Option<Demo<Self>> {
        Some(crate::demo::generate_iceland(params))
    }

    fn alphabet(&self) -> &'static str {
        ALPHABET
    }

    fn third_tab(&self) -> &'static str {
        "2400 & initial"
    }

    fn views(&self) -> &'static [TitlesView] {
        &[TitlesView::Mark, TitlesView::FirstRating]
    }

    fn view_title(&self, view: TitlesView) -> &'static str {
        match view {
            TitlesView::Mark => "2400 mark",
            TitlesView::FirstRating => "Initial ratings",
            other => other.title(),
        }
    }

    /// Útreikningsdagsetningar: a quarter, rated with the list of its first day.
    fn view_note(&self, view: TitlesView) -> &'static str {
        match view {
            TitlesView::Mark => "once a list shows 2400, K is 10 (a junior's 15) for good",
            TitlesView::FirstRating => {
                "an initial rating after 5 games and 1 point against rated opponents"
            }
            _ => "",
        }
    }

    /// Útreikningsdagsetningar: four lists a year.
    fn by_period(&self) -> bool {
        true
    }

    fn period_dates(&self, key: &UnitKey) -> Option<PeriodDates> {
        let period = period_of_key(key);
        Some(PeriodDates {
            rated_with: period.from,
            published: period.name,
        })
    }

    /// Σ Rbreyting of the row's games (rated players).
    fn row_change(&self, row: &PlayerRating<IslDetail>) -> Option<i64> {
        row.detail.change
    }

    /// "Hver einstök skák er reiknuð sérstaklega": each game's Rbreyting from its K and
    /// expected score.
    fn game_changes(&self, row: &PlayerRating<IslDetail>) -> Option<Vec<i64>> {
        if row.detail.k.len() != row.lines.len() {
            return None;
        }
        Some(
            row.lines
                .iter()
                .zip(row.detail.k.iter())
                .map(|(line, &k)| {
                    change_hundredths(k, line.halves, i64::from(line.expected.unwrap_or(0)))
                })
                .collect(),
        )
    }

    /// `1850 · K 25 · 120 games`, with the 2400 mark once reached and a warning under 25
    /// games; an unrated player's games and points toward the initial rating.
    fn card_summary(
        &self,
        list: ListId,
        state: Option<&IslState>,
        info: &PlayerInfo,
        on: NaiveDate,
    ) -> String {
        match state {
            Some(s @ IslState::Rated { rating, games, .. }) => {
                let mut text = format!("{rating}");
                if let Some(k) = self.next_factor(list, s, info, on) {
                    text.push_str(&format!(" · K {k}"));
                }
                text.push_str(&format!(" · {games} games"));
                if *games < COMPARABLE_GAMES {
                    text.push_str(" (not yet comparable)");
                }
                if self.mark(s).is_some_and(|m| m.reached) {
                    text.push_str(" · 2400 reached");
                }
                text
            }
            Some(s) => match self.progress(list, s) {
                Some(p) => format!(
                    "unrated · {} of {} games, {} of {} point toward an initial rating",
                    p.games,
                    p.needed_games,
                    crate::figures::half_points(p.score.map_or(0, |s| s.0)),
                    crate::figures::half_points(MIN_HALVES),
                ),
                None => "unrated".into(),
            },
            None => "unrated".into(),
        }
    }

    /// ISL Tafla 1: the K of his next rated game, a junior's taken on the first day of the
    /// period holding `on`.
    fn next_factor(
        &self,
        _list: ListId,
        state: &IslState,
        info: &PlayerInfo,
        on: NaiveDate,
    ) -> Option<u16> {
        match state {
            IslState::Rated {
                games,
                reached_2400,
                ..
            } => {
                let junior = is_junior(info.born, &period_of(on));
                Some(u16::from(k_factor(
                    games.saturating_add(1),
                    junior,
                    *reached_2400,
                )))
            }
            IslState::Provisional(_) => None,
        }
    }

    /// Fyrstu stig: his games against rated opponents out of 5, his score out of 1 point, and
    /// the initial rating they give once both are there.
    fn progress(&self, _list: ListId, state: &IslState) -> Option<Progress> {
        let p = state.provisional().filter(|p| p.games > 0)?;
        Some(Progress {
            games: p.games,
            needed_games: MIN_GAMES,
            score: Some((p.score, MIN_HALVES)),
            rating: initial_rating(p),
            archive: Vec::new(),
        })
    }

    fn mark(&self, state: &IslState) -> Option<MarkStanding> {
        match state {
            IslState::Rated {
                rating,
                reached_2400,
                ..
            } => Some(MarkStanding {
                mark: LOCK_RATING,
                rating: *rating,
                reached: *reached_2400,
            }),
            IslState::Provisional(_) => None,
        }
    }
    fn adjective(&self) -> &'static str {
        "Icelandic"
    }

    fn country(&self) -> &'static str {
        "Iceland"
    }

    fn citizen(&self) -> &'static str {
        "an Icelander"
    }

    fn list_date(&self, date: NaiveDate) -> NaiveDate {
        isl::listing::list_date_on(date)
    }

    fn previous_list_date(&self, list_date: NaiveDate) -> NaiveDate {
        isl::listing::previous_list_date(list_date)
    }

    fn list_title(&self, _list: ListId) -> String {
        "Icelandic rating list".into()
    }

    fn on_list(&self, entry: &ListEntry<'_, Self>) -> bool {
        isl::listing::listed(entry.state, entry.last_game, entry.date)
    }

    /// "Birting stiga á lista": a standard game in the last five years.
    fn lists_by_last_game(&self) -> bool {
        true
    }

    fn games_of(&self, state: &IslState) -> u32 {
        match state {
            IslState::Rated { games, .. } => *games,
            IslState::Provisional(p) => p.games,
        }
    }

    fn settled(&self, _list: ListId, state: &IslState) -> bool {
        isl::listing::comparable(self.games_of(state))
    }

    fn unsettled_note(&self, _list: ListId) -> Option<&'static str> {
        Some("not yet fully comparable (fewer than 25 rated games)")
    }

    fn list_columns(&self) -> &'static Columns {
        &national_csv::ICELANDIC
    }

    /// A listed rating: whether it was ever 2400 or more is not on a list, so only a rating of
    /// 2400 or more now counts as having reached the mark.
    fn listed_state(&self, _list: ListId, rating: Rating, games: u32) -> IslState {
        IslState::rated(rating, games, false)
    }

    /// Iceland states no condition that keeps a whole event off its lists.
    fn not_rated(&self, _event: &crate::model::Event) -> Option<String> {
        None
    }

    /// The rating moves game by game within the period (each game's change is kept).
    fn rates_games(&self) -> bool {
        true
    }

    /// K follows the games played and the 2400 mark (Tafla 1), not rating bands.
    fn factor_bands(&self) -> &'static [(Rating, u16)] {
        &[]
    }

    /// A foreign player's entry (see `rules::isl::entry`): on his FIDE or national rating.
    fn entered(&self, row: &PlayerRating<IslDetail>) -> Option<&'static str> {
        row.detail.entry.map(isl::Entry::rating_name)
    }
}
