//! What the workstation shows of Turkey's rulebook: monthly periods by the date results are
//! received, three UKD lists with k by rating (B.3.d) and its band edges, and an unrated
//! player's archive of performances toward his first UKD (7 games, B.1.f–g).

mod json;

use chrono::NaiveDate;

use super::{Demo, Federation, ListEntry, PeriodDates, Progress, TitlesView};
use crate::demo::Params;
use crate::import::national_csv::{self, Columns};
use crate::model::{PlayerInfo, Rating};
use crate::rules::tsf::Archived;
use crate::rules::tsf::calendar::list_date_of_period;
use crate::rules::tsf::unrated::{GAMES_FOR_UKD, archived_games, first_ukd};
use crate::rules::tsf::{Figures, Tsf, TsfDetail, TsfState, tables};
use crate::rules::{ListId, PlayerRating, UnitKey};
use crate::rules::{Rulebook, tsf};

/// Turkey's alphabet with the foreign letters q, w, x: ç, ğ, ı, ö, ş, ü after their bases.
pub const ALPHABET: &str = "abcçdefgğhıijklmnoöpqrsştuüvwxyz";

impl Federation for Tsf {
    /// About 1.5 rated games a year per registered player: the Turkish federation reports 1.7
    /// million licensed players, most of them not active in a year, and about 1.5 million rated
    /// games a year on its three lists.
    fn games_a_year_per_thousand(&self) -> usize {
        1_500
    }

    fn demo(&self, params: &Params) -> Option<Demo<Self>> {
        Some(crate::demo::generate_turkey(params))
    }

    /// Half the Turkish demo's opens are standard (30–69 players, seven rounds: 173 games on
    /// average), a quarter rapid (24–63, nine rounds: 196) and a quarter blitz (eleven: 239),
    /// and the year's closed events come beside them: 198 games an open, as generated (19.8 M
    /// games where 150 an open asked for 15 M).
    fn demo_games_per_open(&self) -> usize {
        198
    }

    fn alphabet(&self) -> &'static str {
        ALPHABET
    }

    /// KAPSAM, A.10.c–d: abroad, fewer than five rounds, more than four standard rounds a day.
    fn not_rated(&self, event: &crate::model::Event) -> Option<String> {
        crate::rules::tsf::not_rated(event).map(|why| why.to_string())
    }

    /// A.10.c: an event is rated only once it has five rounds, but its entrants' UKD on the
    /// list of its time control is known before the first: the standings show it from round 1.
    fn entry_list(
        &self,
        event: &crate::model::Event,
        _events: &[crate::model::Event],
    ) -> Option<ListId> {
        Some(crate::rules::tsf::tempo_list(event))
    }

    fn third_tab(&self) -> &'static str {
        "First UKD & k"
    }

    fn views(&self) -> &'static [TitlesView] {
        &[TitlesView::FirstRating, TitlesView::Bands]
    }

    fn view_title(&self, view: TitlesView) -> &'static str {
        match view {
            TitlesView::FirstRating => "First UKD",
            TitlesView::Bands => "k bands",
            other => other.title(),
        }
    }

    /// A.14, B.1.e: a month, rated with the list of its first day and published on the first
    /// day of the next.
    fn view_note(&self, view: TitlesView) -> &'static str {
        match view {
            TitlesView::FirstRating => "a first UKD once 7 games are archived (B.1.f)",
            TitlesView::Bands => {
                // Made once from the rule's table: `k by UKD (B.3.d): 30, 25 from 1300, …`.
                static NOTE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
                    let bands: Vec<String> = tables::K_BANDS
                        .iter()
                        .map(|&(from, k)| match from {
                            0 => k.to_string(),
                            _ => format!("{k} from {from}"),
                        })
                        .collect();
                    format!("k by UKD (B.3.d): {}", bands.join(", "))
                });
                NOTE.as_str()
            }
            _ => "",
        }
    }

    /// A.14: a list every month.
    fn by_period(&self) -> bool {
        true
    }

    fn period_dates(&self, key: &UnitKey) -> Option<PeriodDates> {
        Some(PeriodDates {
            rated_with: list_date_of_period(key.date),
            published: key.date,
        })
    }

    /// B.3: an event is rated as a whole; nothing moves game by game.
    fn rates_games(&self) -> bool {
        false
    }

    /// ΔD of the event (Formulas 3–4), for a player who counted with his UKD or a first
    /// rapid/blitz event's standard UKD.
    fn row_change(&self, row: &PlayerRating<TsfDetail>) -> Option<i64> {
        match &row.detail.figures {
            Figures::Rated(f, _) => Some(f.change),
            Figures::Unrated(_) => None,
        }
    }

    /// `1650 · k 20 · 40 games`; unrated: the games archived out of 7.
    fn card_summary(
        &self,
        list: ListId,
        state: Option<&TsfState>,
        info: &PlayerInfo,
        on: NaiveDate,
    ) -> String {
        match state {
            Some(s @ TsfState::Rated { rating, games }) => {
                let k = self.next_factor(list, s, info, on).unwrap_or_default();
                format!("{rating} · k {k} · {games} games")
            }
            Some(s) => match self.progress(list, s) {
                Some(p) => format!("unrated · {} of {} games archived", p.games, p.needed_games),
                None => "unrated".into(),
            },
            None => "unrated".into(),
        }
    }

    /// B.3.d: k by his UKD.
    fn next_factor(
        &self,
        _list: ListId,
        state: &TsfState,
        _info: &PlayerInfo,
        _on: NaiveDate,
    ) -> Option<u16> {
        state.rating().map(|r| tables::k(r) as u16)
    }

    /// B.1.f–g: the archive, its games out of 7, and the UKD it gives once it has 7.
    fn progress(&self, _list: ListId, state: &TsfState) -> Option<Progress> {
        let TsfState::Unrated { performances } = state else {
            return None;
        };
        if performances.is_empty() {
            return None;
        }
        Some(Progress {
            games: archived_games(performances),
            needed_games: GAMES_FOR_UKD,
            score: None,
            rating: weighted_average(performances),
            archive: performances
                .iter()
                .map(|a| (a.performance, a.games, a.event.clone()))
                .collect(),
        })
    }

    fn factor_bands(&self) -> &'static [(Rating, u16)] {
        &tables::K_BANDS
    }
    fn adjective(&self) -> &'static str {
        "Turkish"
    }

    fn country(&self) -> &'static str {
        "Türkiye"
    }

    fn citizen(&self) -> &'static str {
        "a Turk"
    }

    fn list_date(&self, date: NaiveDate) -> NaiveDate {
        tsf::calendar::list_date_on(date)
    }

    fn previous_list_date(&self, list_date: NaiveDate) -> NaiveDate {
        tsf::calendar::previous_list_date(list_date)
    }

    /// B.2.e: the standard list is the UKD list; the rapid and blitz lists are called UHS and
    /// UYS.
    fn list_title(&self, list: ListId) -> String {
        let name = match list {
            tsf::RAPID => "UHS",
            tsf::BLITZ => "UYS",
            _ => "UKD",
        };
        format!("Turkish {name} list ({})", self.lists()[list])
    }

    fn on_list(&self, entry: &ListEntry<'_, Self>) -> bool {
        tsf::standing::listed(entry.info, entry.list, entry.date, entry.state)
    }

    /// B.2 lists every UKD holder, however long ago he played.
    fn lists_by_last_game(&self) -> bool {
        false
    }

    fn games_of(&self, state: &TsfState) -> u32 {
        match state {
            TsfState::Rated { games, .. } => *games,
            TsfState::Unrated { performances } => performances.iter().map(|a| a.games).sum(),
        }
    }

    /// Every UKD stands on at least seven games (B.1.f): none is marked.
    fn settled(&self, _list: ListId, _state: &TsfState) -> bool {
        true
    }

    fn unsettled_note(&self, _list: ListId) -> Option<&'static str> {
        None
    }

    fn list_columns(&self) -> &'static Columns {
        &national_csv::TURKISH
    }

    fn listed_state(&self, _list: ListId, rating: Rating, games: u32) -> TsfState {
        TsfState::Rated { rating, games }
    }

    /// The running rating tells each game's change within the event's method.
    fn game_changes(&self, _row: &PlayerRating<TsfDetail>) -> Option<Vec<i64>> {
        None
    }

    /// No rating mark fixes k for good: it follows the bands (B.3.d).
    fn mark(&self, _state: &TsfState) -> Option<super::MarkStanding> {
        None
    }

    /// No one enters the list on a rating from elsewhere.
    fn entered(&self, _row: &PlayerRating<TsfDetail>) -> Option<&'static str> {
        None
    }
}

/// B.1.f's games-weighted average of the archive as it stands, whatever its games (what the
/// first UKD would be now); the rule's own figure once it has seven.
fn weighted_average(archive: &[Archived]) -> Option<Rating> {
    if let Some(ukd) = first_ukd(archive) {
        return Some(ukd);
    }
    let games = archived_games(archive);
    let sum: i128 = archive
        .iter()
        .map(|a| i128::from(a.performance) * i128::from(a.games))
        .sum();
    (games > 0)
        .then(|| tables::floor_1000(crate::rules::arith::round_half_up(sum, i128::from(games))))
}
