//! Selection numbers — valintaluvut (section 5): huippuselo, huippuelo, huippusuoritusluku and
//! the valintaluku the board selects national teams by.

use chrono::{Datelike, NaiveDate};

use super::{SslState, is_normal_time, seconds_for_60};
use crate::model::{Event, FideKind, PlayerInfo, Rating};
use crate::rules::PlayerRating;
use crate::rules::arith::round_half_up_f64;
use crate::rules::performance::{ReliableRun, best_reliable_run};

/// How far one more game may move a performance that counts as reliable (5.5).
pub const RELIABLE_WITHIN: f64 = 50.0;

/// A player's selection figures on a given date.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    pub huippuselo: Option<Rating>,
    pub huippuelo: Option<Rating>,
    pub huippusuoritusluku: Option<Rating>,
    /// The run of games that gave huippusuoritusluku: (event, round) of its first and last game.
    pub best_run: Option<((usize, u32), (usize, u32))>,
    /// Twice the valintaluku (it may end in .5).
    pub valintaluku_doubled: Option<i64>,
    /// Rule 5.7: the women's valintaluku is huippuselo.
    pub womens_valintaluku: Option<Rating>,
}

impl Selection {
    /// The valintaluku as a number (it may end in .5).
    pub fn valintaluku(&self) -> Option<f64> {
        self.valintaluku_doubled.map(|v| v as f64 / 2.0)
    }
}

/// Rule 5.2: the selection period runs from 1 January of the previous year to the day of
/// selection, both inclusive.
pub fn period_start(as_of: NaiveDate) -> NaiveDate {
    NaiveDate::from_ymd_opt(as_of.year() - 1, 1, 1).unwrap_or(NaiveDate::MIN)
}

/// Rule 5.6: the exact mean of the two largest factors, doubled to stay whole; one factor
/// alone is the number; none gives none.
pub fn valintaluku_doubled(factors: &[Option<Rating>]) -> Option<i64> {
    let mut present: Vec<i64> = factors.iter().flatten().map(|&r| i64::from(r)).collect();
    present.sort_unstable_by(|a, b| b.cmp(a));
    match present.as_slice() {
        [] => None,
        [only] => Some(2 * only),
        [a, b, ..] => Some(a + b),
    }
}

/// Rule 5.4: huippuelo, the highest FIDE standard rating published in the period — over the
/// entries with a list date from `from` to `as_of` that have a standard rating. An entry
/// without one (a rapid-only list, a month in which only another list was imported) publishes
/// no standard rating: it neither counts nor hides the others.
pub fn huippuelo(info: &PlayerInfo, from: NaiveDate, as_of: NaiveDate) -> Option<Rating> {
    info.fide
        .iter()
        .filter(|e| from <= e.list_date && e.list_date <= as_of)
        .filter_map(|e| e.rating(FideKind::Standard))
        .max()
}

/// Section 5 for one player. `initial` is his selo state before the first rated event,
/// `history` his selo ratings in ledger order (5.8: an event counts on its end date).
pub fn selection(
    as_of: NaiveDate,
    info: &PlayerInfo,
    initial: Option<&SslState>,
    history: &[&PlayerRating],
    events: &[Event],
) -> Selection {
    let from = period_start(as_of);
    let in_period = |r: &&&PlayerRating| {
        let end = events[r.event].end;
        from <= end && end <= as_of
    };

    // Rule 5.3: the rating at the start of the period counts if he was established then.
    let before: Vec<&&PlayerRating> = history
        .iter()
        .filter(|r| events[r.event].end < from)
        .collect();
    let start = match before.last() {
        Some(last) => {
            let games =
                initial.map_or(0, |s| s.games) + before.iter().map(|r| r.games).sum::<u32>();
            let corrected = initial.is_some_and(|s| s.elo_corrected);
            (last.established || games >= 11 || corrected).then_some(last.new)
        }
        None => initial
            .filter(|s| s.selo_established())
            .and_then(|s| s.rating),
    };
    // Rule 5.3: running and final ratings in the period, never those of an event where he
    // was new.
    let huippuselo = history
        .iter()
        .filter(in_period)
        .filter(|r| r.established)
        .flat_map(|r| r.after_game())
        .chain(start)
        .max();

    let huippuelo = huippuelo(info, from, as_of);

    // Rule 5.5: runs over the period's Kt = 1 games only, so a run may span the others.
    let games: Vec<(usize, u32, Rating, u8)> = history
        .iter()
        .filter(in_period)
        .filter(|r| is_normal_time(seconds_for_60(&events[r.event])))
        .flat_map(|r| {
            r.lines
                .iter()
                .map(|l| (r.event, l.round, l.opponent_rating, l.halves))
        })
        .collect();
    let pairs: Vec<(Rating, u8)> = games.iter().map(|&(_, _, r, h)| (r, h)).collect();
    let best: Option<ReliableRun> = best_reliable_run(&pairs, RELIABLE_WITHIN);
    let huippusuoritusluku = best.map(|b| round_half_up_f64(b.performance) as Rating);
    let best_run = best.map(|b| {
        let (first, last) = (games[b.start], games[b.end - 1]);
        ((first.0, first.1), (last.0, last.1))
    });

    Selection {
        huippuselo,
        huippuelo,
        huippusuoritusluku,
        best_run,
        valintaluku_doubled: valintaluku_doubled(&[huippuselo, huippuelo, huippusuoritusluku]),
        womens_valintaluku: huippuselo,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::fixture::day as date;

    #[test]
    fn rule_5_2_period_starts_on_1_january_of_the_previous_year() {
        assert_eq!(period_start(date("2025-03-31")), date("2024-01-01"));
        assert_eq!(period_start(date("2025-01-01")), date("2024-01-01"));
        assert_eq!(period_start(date("2024-12-31")), date("2023-01-01"));
    }

    #[test]
    fn rule_5_4_huippuelo_is_the_highest_standard_rating_published_in_the_period() {
        let entry = |d: &str, standard, rapid| crate::model::FideEntry {
            list_date: date(d),
            standard,
            rapid,
            blitz: None,
        };
        let info = PlayerInfo {
            fide: vec![
                entry("2023-12-01", Some(2300), None),
                entry("2024-01-01", Some(2150), Some(2000)),
                entry("2024-06-01", None, Some(2400)),
                entry("2025-02-01", Some(2180), None),
                entry("2025-03-01", None, Some(2250)),
                entry("2025-04-01", Some(2500), None),
            ],
            ..PlayerInfo::default()
        };
        let (from, as_of) = (date("2024-01-01"), date("2025-03-31"));
        assert_eq!(
            huippuelo(&info, from, as_of),
            Some(2180),
            "rapid-only lists publish no standard rating; 2023 and April 2025 are outside"
        );
        assert_eq!(huippuelo(&info, date("2024-01-02"), as_of), Some(2180));
        assert_eq!(huippuelo(&info, from, date("2024-12-31")), Some(2150));
        assert_eq!(
            huippuelo(&info, date("2024-02-01"), date("2024-12-31")),
            None,
            "only a rapid list in the period"
        );
    }

    #[test]
    fn rule_5_6_mean_of_the_two_largest() {
        assert_eq!(
            valintaluku_doubled(&[Some(2025), Some(2170), None]),
            Some(4195)
        );
        assert_eq!(
            valintaluku_doubled(&[Some(1818), Some(1750), Some(1800)]),
            Some(3618)
        );
        assert_eq!(valintaluku_doubled(&[None, Some(2050), None]), Some(4100));
        assert_eq!(valintaluku_doubled(&[None, None, None]), None);
    }
}
