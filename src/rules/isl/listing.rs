//! ISL "Birting stiga á lista": who appears on the Icelandic rating list published on a list
//! date, and from how many games a rating is fully comparable with others. Dates only come in
//! as parameters.

use chrono::{Months, NaiveDate};

use super::{FLOOR, IslState, period_of};

/// "ekki að fullu marktæk til samanburðar við aðra skákmenn fyrr en skákmaður hefur náð að
/// tefla 25 skákir til stiga": rated games from which a rating is fully comparable.
pub const COMPARABLE_GAMES: u32 = 25;

/// "Skákmenn verða að hafa teflt kappskák undanfarin fimm ár": the years within which a listed
/// player must have played a standard game.
pub const ACTIVE_YEARS: u32 = 5;

/// ISL Útreikningsdagsetningar: the list in force on `date` — published on the latest list
/// date (1 March, 1 June, 1 September, 1 December) on or before it.
pub fn list_date_on(date: NaiveDate) -> NaiveDate {
    period_of(date).from
}

/// ISL Útreikningsdagsetningar: the list published before the one of `list_date` (three months
/// earlier).
pub fn previous_list_date(list_date: NaiveDate) -> NaiveDate {
    list_date_on(list_date)
        .checked_sub_months(Months::new(3))
        .unwrap_or(list_date)
}

/// ISL Birting stiga á lista, 1–3: a player is on the list of `list_date` when
/// 1. he has a rating ("hafa fengið forstig": an initial rating after at least 5 games, or the
///    FIDE or national rating a foreign player enters with — "Ýmsar reglur");
/// 2. it is at least 1000 ([`FLOOR`]);
/// 3. he has played a standard game in the last five years: `last_game`, the date of his
///    latest game on the list, falls on or after the same day five years before the list date
///    (reading: "undanfarin fimm ár", the five years before the list; a game on the list date
///    itself belongs to the next period and is not yet on it).
pub fn listed(state: &IslState, last_game: Option<NaiveDate>, list_date: NaiveDate) -> bool {
    let active_from = list_date
        .checked_sub_months(Months::new(12 * ACTIVE_YEARS))
        .unwrap_or(NaiveDate::MIN);
    state.rating().is_some_and(|r| r >= FLOOR)
        && last_game.is_some_and(|d| active_from <= d && d < list_date)
}

/// ISL Birting stiga á lista: a rating is fully comparable once it rests on
/// [`COMPARABLE_GAMES`] rated games.
pub fn comparable(games: u32) -> bool {
    games >= COMPARABLE_GAMES
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::fixture::ymd as d;

    #[test]
    fn utreikningsdagsetningar_the_list_in_force_and_the_one_before() {
        assert_eq!(list_date_on(d(2026, 6, 1)), d(2026, 6, 1));
        assert_eq!(list_date_on(d(2026, 5, 31)), d(2026, 3, 1));
        assert_eq!(list_date_on(d(2026, 2, 28)), d(2025, 12, 1));
        assert_eq!(list_date_on(d(2026, 12, 31)), d(2026, 12, 1));
        assert_eq!(previous_list_date(d(2026, 3, 1)), d(2025, 12, 1));
        assert_eq!(previous_list_date(d(2026, 4, 15)), d(2025, 12, 1));
    }

    #[test]
    fn birting_1_and_2_a_rating_of_at_least_1000() {
        let on = d(2026, 6, 1);
        let played = Some(d(2026, 5, 1));
        assert!(listed(&IslState::rated(1000, 5, false), played, on));
        assert!(!listed(&IslState::rated(999, 40, false), played, on));
        assert!(!listed(&IslState::default(), played, on));
    }

    #[test]
    fn birting_3_a_standard_game_in_the_last_five_years() {
        let on = d(2026, 6, 1);
        let rated = IslState::rated(1800, 60, false);
        assert!(listed(&rated, Some(d(2021, 6, 1)), on));
        assert!(!listed(&rated, Some(d(2021, 5, 31)), on));
        assert!(listed(&rated, Some(d(2026, 5, 31)), on));
        assert!(!listed(&rated, Some(on), on));
        assert!(!listed(&rated, None, on));
    }

    #[test]
    fn birting_comparable_from_25_games() {
        assert!(!comparable(24));
        assert!(comparable(25));
    }
}
