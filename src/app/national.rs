//! The federation as a nation: its name and whom it counts as its own, and its national list —
//! when a list is published, who is on it, what marks a rating that does not yet stand on its
//! own, and the columns of its CSV. Part of the one bound [`super::Federation`] (a supertrait
//! of it), with an answer for each rulebook.

use chrono::NaiveDate;

use crate::import::national_csv::{self, Columns};
use crate::json::JsonRules;
use crate::model::{PlayerInfo, Rating};
use crate::rules::isl::{Isl, IslState};
use crate::rules::ssl::{FINLAND, PELO, SELO, Ssl, SslState};
use crate::rules::tsf::{Tsf, TsfState};
use crate::rules::{ListId, Rulebook, isl, tsf};

/// What a federation says of itself and publishes as its national list.
pub trait National: JsonRules {
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
}

/// What decides whether a player is on a national list.
pub struct ListEntry<'a, R: Rulebook> {
    pub info: &'a PlayerInfo,
    pub list: ListId,
    /// His state on the list's date.
    pub state: &'a R::State,
    /// The date of his latest played game on the list before the list's date.
    pub last_game: Option<NaiveDate>,
    /// The list's date.
    pub date: NaiveDate,
}

impl National for Ssl {
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
}

impl National for Isl {
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
}

impl National for Tsf {
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
