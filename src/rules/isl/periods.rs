//! ISL rating periods (Útreikningsdagsetningar): the quarter a date falls in, the period a game
//! is rated in (its date, its event, a late `received`), and a player's age on the period's
//! first day (Tafla 1's junior K). Dates only; no ratings.

use chrono::{Datelike, Months, NaiveDate};

/// A rating period: from one list date up to the day before the next, named by the list date
/// that publishes its results (`to` + 1 day).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Period {
    /// The first day, a list date: the ratings of this day are the ones the period is rated
    /// with.
    pub from: NaiveDate,
    /// The list date that ends the period and names it.
    pub name: NaiveDate,
}

impl Period {
    /// The last day of the period (the day before its list date).
    pub fn to(&self) -> NaiveDate {
        self.name.pred_opt().unwrap_or(self.name)
    }

    /// Whether `date` lies in the period.
    pub fn holds(&self, date: NaiveDate) -> bool {
        self.from <= date && date < self.name
    }
}

/// ISL Útreikningsdagsetningar: "Útreikningsdagsetningar eru : 1.mars, 1. júní, 1. september og
/// 1. desember." Whether `date` is a list date.
pub fn is_list_date(date: NaiveDate) -> bool {
    date.day() == 1 && matches!(date.month(), 3 | 6 | 9 | 12)
}

/// ISL Útreikningsdagsetningar: the period holding `date` — it starts on the latest list date
/// on or before `date`, so a date that is itself a list date opens the period that starts that
/// day (the results of a period are due "í síðasta lagi degi fyrir útreikning", at the latest
/// the day before the list date).
pub fn period_of(date: NaiveDate) -> Period {
    // Months since March of the quarter's year: 0–2 → March, 3–5 → June, 6–8 → September,
    // 9–11 → December (January and February belong to the previous year's December).
    let months_from_march = (date.month0() + 12 - 2) % 12;
    let quarter_start_month0 = 2 + months_from_march / 3 * 3; // 2, 5, 8 or 11
    let year = if date.month() < 3 {
        date.year() - 1
    } else {
        date.year()
    };
    let from = NaiveDate::from_ymd_opt(year, quarter_start_month0 % 12 + 1, 1).unwrap_or(date);
    let name = from.checked_add_months(Months::new(3)).unwrap_or(from);
    Period { from, name }
}

/// ISL Útreikningsdagsetningar, the period a game is rated in.
///
/// - A dated game belongs to the period holding its date ("umferðirnar fyrir dagsetninguna eru
///   reiknaðar með fyrra tímabilinu og eftir dagsetninguna … með seinna tímabilinu"); an undated
///   game to the period of its event's end (an event over a list date must date every played
///   game; where one is missing all the same, the later period is the one its results could
///   reach in time).
/// - "Mót sem skilað er eftir áðurnefndar dagsetningar verða ekki reiknuð fyrr en á næsta
///   tímabil á eftir": results received on or after the list date that ends a game's period
///   are rated in the period holding `received` — a game's own receipt date, else its
///   event's (which is never before the event's end, so a late one moves every game of the
///   event without one of its own); a game received before the list date keeps its period.
pub fn game_period(
    game_date: Option<NaiveDate>,
    event_end: NaiveDate,
    received: Option<NaiveDate>,
) -> Period {
    let own = period_of(game_date.unwrap_or(event_end));
    match received.map(period_of) {
        Some(late) if late > own => late,
        _ => own,
    }
}

/// Whole years of age on `day` for a player born on `born` (a birthday on 29 February falls
/// on 1 March in other years).
pub fn age_on(born: NaiveDate, day: NaiveDate) -> i32 {
    let before_birthday = (day.month(), day.day()) < (born.month(), born.day());
    day.year() - born.year() - i32::from(before_birthday)
}

/// ISL Tafla 1: "Hjá skákmönnum 20 ára og yngri …" — a junior is 20 or younger. The original
/// names no date; the age is taken on the period's first day (the day whose ratings the period
/// is rated with), so one K holds for the whole period. Without a birth date, not a junior.
pub fn is_junior(born: Option<NaiveDate>, period: &Period) -> bool {
    born.is_some_and(|b| age_on(b, period.from) <= 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::fixture::day as d;

    fn p(from: &str, name: &str) -> Period {
        Period {
            from: d(from),
            name: d(name),
        }
    }

    #[test]
    fn utreikningsdagsetningar_the_four_list_dates() {
        for s in ["2025-03-01", "2025-06-01", "2025-09-01", "2025-12-01"] {
            assert!(is_list_date(d(s)), "{s}");
        }
        for s in ["2025-01-01", "2025-03-02", "2025-02-28", "2025-07-01"] {
            assert!(!is_list_date(d(s)), "{s}");
        }
    }

    #[test]
    fn utreikningsdagsetningar_period_edges() {
        let cases = [
            ("2024-12-01", p("2024-12-01", "2025-03-01")),
            ("2025-01-15", p("2024-12-01", "2025-03-01")),
            ("2025-02-28", p("2024-12-01", "2025-03-01")),
            ("2024-02-29", p("2023-12-01", "2024-03-01")),
            ("2025-03-01", p("2025-03-01", "2025-06-01")),
            ("2025-05-31", p("2025-03-01", "2025-06-01")),
            ("2025-06-01", p("2025-06-01", "2025-09-01")),
            ("2025-08-31", p("2025-06-01", "2025-09-01")),
            ("2025-09-01", p("2025-09-01", "2025-12-01")),
            ("2025-11-30", p("2025-09-01", "2025-12-01")),
            ("2025-12-01", p("2025-12-01", "2026-03-01")),
            ("2025-12-31", p("2025-12-01", "2026-03-01")),
        ];
        for (date, period) in cases {
            assert_eq!(period_of(d(date)), period, "{date}");
            assert!(period.holds(d(date)));
        }
        assert_eq!(p("2024-12-01", "2025-03-01").to(), d("2025-02-28"));
        assert_eq!(p("2023-12-01", "2024-03-01").to(), d("2024-02-29"));
        assert!(!p("2024-12-01", "2025-03-01").holds(d("2025-03-01")));
    }

    #[test]
    fn utreikningsdagsetningar_a_game_on_a_list_date_opens_the_next_period() {
        let end = d("2025-03-01");
        assert_eq!(
            game_period(Some(d("2025-02-28")), end, None),
            p("2024-12-01", "2025-03-01")
        );
        assert_eq!(
            game_period(Some(d("2025-03-01")), end, None),
            p("2025-03-01", "2025-06-01")
        );
        assert_eq!(
            game_period(None, d("2025-02-20"), None),
            p("2024-12-01", "2025-03-01")
        );
    }

    #[test]
    fn skilafrestur_received_on_the_list_date_is_late() {
        let end = d("2025-02-27");
        let first = p("2024-12-01", "2025-03-01");
        let second = p("2025-03-01", "2025-06-01");
        assert_eq!(game_period(None, end, Some(d("2025-02-28"))), first);
        assert_eq!(game_period(None, end, Some(d("2025-03-01"))), second);
        assert_eq!(
            game_period(Some(d("2025-02-10")), end, Some(d("2025-03-01"))),
            second
        );
        // An event over a list date received late: its earlier rounds move too.
        let late_end = d("2025-03-03");
        assert_eq!(
            game_period(Some(d("2025-02-27")), late_end, Some(d("2025-03-03"))),
            second
        );
        assert_eq!(
            game_period(Some(d("2025-02-27")), late_end, None),
            first,
            "on time: split by the games' dates"
        );
        assert_eq!(
            game_period(None, end, Some(d("2025-06-01"))),
            p("2025-06-01", "2025-09-01")
        );
    }

    #[test]
    fn tafla_1_junior_is_20_or_younger_on_the_first_day() {
        let period = p("2025-03-01", "2025-06-01");
        assert!(is_junior(Some(d("2004-03-02")), &period), "20 that day");
        assert!(
            !is_junior(Some(d("2004-03-01")), &period),
            "turns 21 that day"
        );
        assert!(is_junior(Some(d("2010-01-01")), &period));
        assert!(!is_junior(None, &period));
        // A birthday on 29 February: 21 on 1 March of a common year.
        assert_eq!(age_on(d("2004-02-29"), d("2025-03-01")), 21);
        assert_eq!(age_on(d("2004-02-29"), d("2025-02-28")), 20);
        assert_eq!(age_on(d("2004-02-29"), d("2024-02-29")), 20);
    }
}
