//! The rule an event is rated by. Seed `001_…`, as edited on 2010-12-29, changed selo "from the
//! turn of the year 2010/11" ("Vuodenvaihteesta 2010/11 lähtien odotustuloksen maksimi
//! nostetaan 0,92:een. Jokaisesta pelatusta pelistä annetaan lisäksi 0,1 selopisteen bonus."):
//! an event that starts before 2011-01-01 is rated by the rule before that change, one that
//! starts on or after it by the 2023 rulebook. The start decides, as the FIDE Laws of seed
//! `004_…` take effect for competitions starting on or after their date; the end date still
//! orders the ledger.
//!
//! The rule before 2011 differs in five points, each a function here: the expectation's cap
//! (0.85), no bonus of 0.1 a game, a new player until 10 games, the time factor 0.15 of a
//! player rated 2300 or more in a 15–59-minute game, and no selo game under 15 minutes. Kr
//! (7.7's table) and the rounding (3.5) are the 2023 ones: seed 001 gives neither.

use chrono::NaiveDate;

use crate::model::Event;

/// The rule a Finnish event is rated by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    /// Seed 001 before its edit of 2010-12-29.
    Before2011,
    /// The rulebook of 26.4.2023 (and the rule from 2011 on that it writes down).
    Current,
}

/// The first day rated by the current rule ("vuodenvaihteesta 2010/11 lähtien").
pub fn first_day_of_the_current_rule() -> NaiveDate {
    NaiveDate::from_ymd_opt(2011, 1, 1).expect("a date")
}

impl Rule {
    /// The rule of an event: by its start date.
    pub fn of(event: &Event) -> Rule {
        Rule::starting(event.start)
    }

    /// The rule of an event that starts on `start`.
    pub fn starting(start: NaiveDate) -> Rule {
        if start < first_day_of_the_current_rule() {
            Rule::Before2011
        } else {
            Rule::Current
        }
    }

    /// The rule's name in the `rate` document and on the screens.
    pub fn code(self) -> &'static str {
        match self {
            Rule::Before2011 => "before-2011",
            Rule::Current => "2023",
        }
    }

    /// Rule 7.9 (2023: "0,92"), before 2011 seed 001's "yksittäisen pelin odotustuloksena
    /// käytetään maksimissaan arvoa 0,85": the most the stronger player expects from one selo
    /// game, in percent. Pelo has no cap under either rule.
    pub fn expectation_cap(self) -> u8 {
        match self {
            Rule::Before2011 => 85,
            Rule::Current => crate::rules::expectation::SELO_CAP,
        }
    }

    /// Rules 7.2 and 7.3: the bonus of 0.1 a selo game (`+ N/10`), which the rule before 2011
    /// did not give ("selo = vanha selo + kerroin * (pisteet - odotustulos)").
    pub fn bonus(self) -> bool {
        self == Rule::Current
    }

    /// Rule 3.1 (2023: established with at least 11 earlier selo games); before 2011 the new
    /// player's formula was used "kunnes selokelpoisten pelien määrä on vähintään 10", read
    /// like 3.1 as a count of the games before the event: established from 10.
    pub fn established_from(self) -> u32 {
        match self {
            Rule::Before2011 => 10,
            Rule::Current => 11,
        }
    }

    /// Rule 7.8: Kt in hundredths by whole minutes for 60 moves and the player's Ro:
    /// ≥ 90 → 1, 60–89 → 0.5, below 60 → 0.3, or for Ro ≥ 2300 0.1 (2023) or 0.15 (before
    /// 2011: "vanhan selon ollessa vähintään 2300 lisäkerrointa 0,15").
    pub fn kt_hundredths(self, seconds_for_60: u64, ro: crate::model::Rating) -> i64 {
        match seconds_for_60 / 60 {
            90.. => 100,
            60..=89 => 50,
            _ if ro < 2300 => 30,
            _ => match self {
                Rule::Before2011 => 15,
                Rule::Current => 10,
            },
        }
    }

    /// Rule 2.8: the least time for 60 moves, in seconds, of a selo game: more than 10 minutes
    /// (2023); before 2011 at least 15, the least time seed 001 gives a selo factor for.
    pub fn is_selo_time(self, seconds_for_60: u64) -> bool {
        match self {
            Rule::Before2011 => seconds_for_60 >= 15 * 60,
            Rule::Current => seconds_for_60 > 10 * 60,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::fixture::ymd as day;

    #[test]
    fn the_start_decides_the_rule_at_the_turn_of_2010_11() {
        assert_eq!(Rule::starting(day(2010, 12, 31)), Rule::Before2011);
        assert_eq!(Rule::starting(day(2011, 1, 1)), Rule::Current);
        assert_eq!(Rule::Before2011.code(), "before-2011");
        assert_eq!(Rule::Current.code(), "2023");
    }

    #[test]
    fn rule_7_9_the_cap_is_85_before_2011_and_92_after() {
        assert_eq!(Rule::Before2011.expectation_cap(), 85);
        assert_eq!(Rule::Current.expectation_cap(), 92);
    }

    #[test]
    fn rule_3_1_new_until_10_games_before_2011_and_11_after() {
        assert_eq!(Rule::Before2011.established_from(), 10);
        assert_eq!(Rule::Current.established_from(), 11);
    }

    #[test]
    fn rule_7_8_kt_before_2011_at_its_edges() {
        let m = |minutes: u64| minutes * 60;
        let old = Rule::Before2011;
        assert_eq!(old.kt_hundredths(m(90), 2400), 100);
        assert_eq!(old.kt_hundredths(m(89), 2400), 50);
        assert_eq!(old.kt_hundredths(m(60), 1500), 50);
        assert_eq!(old.kt_hundredths(m(59), 2299), 30);
        assert_eq!(old.kt_hundredths(m(59), 2300), 15);
        assert_eq!(old.kt_hundredths(m(15), 2300), 15);
        assert_eq!(Rule::Current.kt_hundredths(m(59), 2300), 10);
        assert_eq!(Rule::Current.kt_hundredths(m(59), 2299), 30);
    }

    #[test]
    fn rule_2_8_selo_from_15_minutes_before_2011_and_over_10_after() {
        let old = Rule::Before2011;
        assert!(!old.is_selo_time(15 * 60 - 1));
        assert!(old.is_selo_time(15 * 60));
        assert!(!Rule::Current.is_selo_time(10 * 60));
        assert!(Rule::Current.is_selo_time(10 * 60 + 1));
    }
}
