//! Which events are rated, on which list and in which month: the three lists by tempo (A.2),
//! the events the procedure does not rate (KAPSAM, A.10.c–d), and the month in which results
//! are rated by the day they were received (A.14, B.1.e).

use std::collections::{BTreeMap, BTreeSet};

use chrono::{Datelike, NaiveDate};

use crate::model::Event;
use crate::rules::ListId;

/// The standard list (A.2.a).
pub const STANDARD: ListId = 0;
/// The rapid list, HIZLI (A.2.b).
pub const RAPID: ListId = 1;
/// The blitz list, YILDIRIM (A.2.c).
pub const BLITZ: ListId = 2;

/// The names of the lists, indexed by [`ListId`].
pub const LIST_NAMES: [&str; 3] = ["standard", "rapid", "blitz"];

/// The last day of a month on which received results are still rated in it (A.14).
pub const LAST_RECEIPT_DAY: u32 = 25;

/// Rounds with a played game an event needs to be rated (A.10.c).
pub const MIN_ROUNDS: usize = 5;

/// The most rounds a standard event may play on one day (A.10.d).
pub const MAX_ROUNDS_A_DAY: usize = 4;

/// The most days an event may last and still be rated when its results come late (A.10.e:
/// "yarışma süresi altmış günü aşan").
pub const LONG_EVENT_DAYS: i64 = 60;

/// The days after its end within which a long event's results must be sent (A.10.e: "bitiş
/// tarihinden itibaren otuz gün içinde").
pub const DAYS_TO_SEND: i64 = 30;

/// The pairing of a league or other team event, which A.10.e never excludes ("Lig ve benzeri
/// takım etkinlikleri hariç").
pub const TEAM_PAIRING: &str = crate::model::TEAM_PAIRING;

/// A.2.a–c: 60 minutes and over standard; under 60 and at least 10 rapid; under 10 blitz. Exact
/// seconds: 59 min 59 s is under 60 minutes.
pub fn list_for_seconds(seconds: u64) -> ListId {
    if seconds >= 60 * 60 {
        STANDARD
    } else if seconds >= 10 * 60 {
        RAPID
    } else {
        BLITZ
    }
}

/// Why the procedure does not rate an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotRated {
    /// KAPSAM: the procedure covers events organised in Turkey.
    Abroad,
    /// A.10.c: fewer than five rounds were played.
    FewRounds { rounds: usize },
    /// A.10.d: more than four rounds on one day, by the games' dates.
    RoundsOnOneDay { date: NaiveDate, rounds: usize },
    /// A.10.d: more rounds than four a day over the event's days.
    RoundsOverDays { rounds: usize, days: i64 },
    /// A.10.e: longer than 60 days and sent more than 30 days after its end.
    LongAndLate { days: i64, late: i64 },
}

impl std::fmt::Display for NotRated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotRated::Abroad => write!(f, "held abroad (KAPSAM: events organised in Turkey)"),
            NotRated::FewRounds { rounds } => write!(
                f,
                "{rounds} rounds with a played game (A.10.c: at least {MIN_ROUNDS})"
            ),
            NotRated::RoundsOnOneDay { date, rounds } => write!(
                f,
                "{rounds} rounds played on {date} (A.10.d: at most {MAX_ROUNDS_A_DAY} a day)"
            ),
            NotRated::RoundsOverDays { rounds, days } => write!(
                f,
                "{rounds} rounds in {days} days (A.10.d: at most {MAX_ROUNDS_A_DAY} a day)"
            ),
            NotRated::LongAndLate { days, late } => write!(
                f,
                "{days} days, received {late} days after its end (A.10.e: at most {LONG_EVENT_DAYS} days, or sent within {DAYS_TO_SEND})"
            ),
        }
    }
}

/// The rounds in which a game was played over the board (A.9: unplayed games do not count).
pub fn played_rounds(event: &Event) -> BTreeSet<u32> {
    event
        .games
        .iter()
        .filter(|g| g.is_rated_game())
        .map(|g| g.round)
        .collect()
}

/// A.10.c: an event is rated only when at least five rounds were played — rounds in which at
/// least one game was played over the board.
pub fn enough_rounds(rounds: usize) -> Result<(), NotRated> {
    if rounds >= MIN_ROUNDS {
        Ok(())
    } else {
        Err(NotRated::FewRounds { rounds })
    }
}

/// A.10.d: at most four rounds a day — checked on the games' dates (the rounds with a played
/// game dated that day) and on the event's days (`start` to `end`, both counted): more rounds
/// with a played game than four times the days is more than four on some day.
///
/// Reading: rapid and blitz events are played at more rounds a day, and the procedure rates
/// them (A.2.b–c, A.13 names rapid and blitz championships); the limit is read as one for
/// standard events.
pub fn rounds_a_day(event: &Event) -> Result<(), NotRated> {
    let mut by_date: BTreeMap<NaiveDate, BTreeSet<u32>> = BTreeMap::new();
    for g in event.games.iter().filter(|g| g.is_rated_game()) {
        if let Some(date) = g.date {
            by_date.entry(date).or_default().insert(g.round);
        }
    }
    if let Some((date, rounds)) = by_date
        .iter()
        .find(|(_, rounds)| rounds.len() > MAX_ROUNDS_A_DAY)
    {
        return Err(NotRated::RoundsOnOneDay {
            date: *date,
            rounds: rounds.len(),
        });
    }
    let rounds = played_rounds(event).len();
    let days = (event.end - event.start).num_days() + 1;
    if rounds as i64 > MAX_ROUNDS_A_DAY as i64 * days {
        return Err(NotRated::RoundsOverDays { rounds, days });
    }
    Ok(())
}

/// KAPSAM, A.10.c, A.10.d, A.10.e: why an event on `list` is not rated, or `None` when it is.
pub fn not_rated(event: &Event, list: ListId) -> Option<NotRated> {
    if event.abroad {
        return Some(NotRated::Abroad);
    }
    if let Err(e) = enough_rounds(played_rounds(event).len()) {
        return Some(e);
    }
    if list == STANDARD
        && let Err(e) = rounds_a_day(event)
    {
        return Some(e);
    }
    sent_in_time(event).err()
}

/// A.10.e: "Lig ve benzeri takım etkinlikleri hariç, yarışma süresi altmış günü aşan ve
/// yarışmanın bitiş tarihinden itibaren otuz gün içinde … gönderilmeyen etkinlikler …
/// değerlendirmeye alınmaz". Read literally, both conditions: an event that is not a league or
/// team event (`pairing` `team`), lasting more than 60 days (`start` to `end`, both counted)
/// and received more than 30 days after its end (on `end` + 30 in time; the day received
/// stands for the day sent, as in A.14), is not rated — on every list.
pub fn sent_in_time(event: &Event) -> Result<(), NotRated> {
    if event.pairing == TEAM_PAIRING {
        return Ok(());
    }
    let days = (event.end - event.start).num_days() + 1;
    let late = (event.received.unwrap_or(event.end) - event.end).num_days();
    if days > LONG_EVENT_DAYS && late > DAYS_TO_SEND {
        Err(NotRated::LongAndLate { days, late })
    } else {
        Ok(())
    }
}

/// The first day of the month `months` after the one holding `date`.
fn first_of_month_after(date: NaiveDate, months: u32) -> NaiveDate {
    let index = date.year() * 12 + date.month0() as i32 + months as i32;
    NaiveDate::from_ymd_opt(index.div_euclid(12), index.rem_euclid(12) as u32 + 1, 1)
        .unwrap_or(NaiveDate::MAX)
}

/// A.14: the list an event is rated with — that of the month in which its results were
/// received (published on the month's first day); results received after the 25th go to the
/// next month's list.
pub fn rating_list_date(received: NaiveDate) -> NaiveDate {
    if received.day() <= LAST_RECEIPT_DAY {
        first_of_month_after(received, 0)
    } else {
        first_of_month_after(received, 1)
    }
}

/// A.14, B.1.e: the period an event's changes are published in — the first day of the month
/// after the rating month; it names the period.
pub fn period_of(received: NaiveDate) -> NaiveDate {
    first_of_month_after(rating_list_date(received), 1)
}

/// A.14, B.2.b: the monthly list in force on `date` — published on the first day of its month.
pub fn list_date_on(date: NaiveDate) -> NaiveDate {
    first_of_month_after(date, 0)
}

/// A.14: the list published before the one of `list_date` (the first day of the month before).
pub fn previous_list_date(list_date: NaiveDate) -> NaiveDate {
    list_date_of_period(list_date_on(list_date))
}

/// The list date a period is rated with: the first day of the month before it.
pub fn list_date_of_period(period: NaiveDate) -> NaiveDate {
    let index = period.year() * 12 + period.month0() as i32 - 1;
    NaiveDate::from_ymd_opt(index.div_euclid(12), index.rem_euclid(12) as u32 + 1, 1)
        .unwrap_or(NaiveDate::MIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_14_monthly_lists_on_the_first() {
        let d = |y, m, day| NaiveDate::from_ymd_opt(y, m, day).expect("date");
        assert_eq!(list_date_on(d(2026, 3, 1)), d(2026, 3, 1));
        assert_eq!(list_date_on(d(2026, 3, 31)), d(2026, 3, 1));
        assert_eq!(previous_list_date(d(2026, 3, 1)), d(2026, 2, 1));
        assert_eq!(previous_list_date(d(2026, 1, 20)), d(2025, 12, 1));
    }
    use crate::model::{Game, GameResult, TimeControl};

    use crate::model::fixture::ymd as d;

    fn event(start: NaiveDate, end: NaiveDate, rounds: &[(u32, Option<NaiveDate>)]) -> Event {
        Event {
            pairing: "swiss".into(),
            games: rounds
                .iter()
                .map(|&(round, date)| Game {
                    round,
                    board: 1,
                    white: 0,
                    black: Some(1),
                    result: Some(GameResult::DRAW),
                    date,
                    received: None,
                })
                .collect(),
            ..Event::new("e", start, end)
        }
    }

    #[test]
    fn a_2_lists_by_minutes_at_9_10_59_60() {
        let m = |min: u64| min * 60;
        assert_eq!(list_for_seconds(m(9)), BLITZ);
        assert_eq!(list_for_seconds(m(10) - 1), BLITZ);
        assert_eq!(list_for_seconds(m(10)), RAPID);
        assert_eq!(list_for_seconds(m(59)), RAPID);
        assert_eq!(list_for_seconds(m(60) - 1), RAPID);
        assert_eq!(list_for_seconds(m(60)), STANDARD);
        assert_eq!(list_for_seconds(m(120)), STANDARD);
    }

    #[test]
    fn a_2_minutes_count_sixty_increments() {
        let mut e = event(d(2025, 4, 1), d(2025, 4, 1), &[]);
        assert_eq!(list_for_seconds(e.seconds_for_60_moves()), STANDARD);
        e.time_control = Some(TimeControl {
            base_seconds: 15 * 60,
            increment_seconds: 10,
            added: vec![],
        });
        assert_eq!(e.seconds_for_60_moves(), 25 * 60);
        assert_eq!(list_for_seconds(e.seconds_for_60_moves()), RAPID);
        e.time_control = Some(TimeControl {
            base_seconds: 3 * 60,
            increment_seconds: 2,
            added: vec![],
        });
        assert_eq!(list_for_seconds(e.seconds_for_60_moves()), BLITZ);
        e.time_control = Some(TimeControl {
            base_seconds: 50 * 60,
            increment_seconds: 10,
            added: vec![],
        });
        assert_eq!(list_for_seconds(e.seconds_for_60_moves()), STANDARD);
    }

    #[test]
    fn a_14_received_on_the_25th_or_26th() {
        assert_eq!(rating_list_date(d(2025, 4, 25)), d(2025, 4, 1));
        assert_eq!(period_of(d(2025, 4, 25)), d(2025, 5, 1));
        assert_eq!(rating_list_date(d(2025, 4, 26)), d(2025, 5, 1));
        assert_eq!(period_of(d(2025, 4, 26)), d(2025, 6, 1));
        assert_eq!(period_of(d(2025, 4, 1)), d(2025, 5, 1));
        assert_eq!(period_of(d(2025, 12, 25)), d(2026, 1, 1));
        assert_eq!(period_of(d(2025, 12, 26)), d(2026, 2, 1));
        assert_eq!(period_of(d(2025, 11, 30)), d(2026, 1, 1));
        assert_eq!(list_date_of_period(d(2026, 1, 1)), d(2025, 12, 1));
        assert_eq!(list_date_of_period(d(2025, 5, 1)), d(2025, 4, 1));
    }

    #[test]
    fn a_10_c_five_rounds_rated_four_not() {
        assert_eq!(enough_rounds(5), Ok(()));
        assert_eq!(enough_rounds(4), Err(NotRated::FewRounds { rounds: 4 }));
        let four: Vec<_> = (1..=4).map(|r| (r, None)).collect();
        let e = event(d(2025, 4, 1), d(2025, 4, 3), &four);
        assert_eq!(
            not_rated(&e, STANDARD),
            Some(NotRated::FewRounds { rounds: 4 })
        );
        let five: Vec<_> = (1..=5).map(|r| (r, None)).collect();
        let e = event(d(2025, 4, 1), d(2025, 4, 3), &five);
        assert_eq!(not_rated(&e, STANDARD), None);
    }

    #[test]
    fn a_10_c_a_round_of_forfeits_is_not_played() {
        let five: Vec<_> = (1..=5).map(|r| (r, None)).collect();
        let mut e = event(d(2025, 4, 1), d(2025, 4, 3), &five);
        e.games[4].result = Some(GameResult::unplayed(2, 0));
        assert_eq!(played_rounds(&e).len(), 4);
        assert_eq!(
            not_rated(&e, STANDARD),
            Some(NotRated::FewRounds { rounds: 4 })
        );
    }

    #[test]
    fn a_10_d_four_rounds_a_day_rated_five_not() {
        let day = d(2025, 4, 5);
        let rounds: Vec<_> = (1..=6)
            .map(|r| {
                (
                    r,
                    Some(if r <= 4 {
                        day
                    } else {
                        day.succ_opt().expect("day")
                    }),
                )
            })
            .collect();
        let e = event(day, d(2025, 4, 6), &rounds);
        assert_eq!(rounds_a_day(&e), Ok(()));
        let rounds: Vec<_> = (1..=6)
            .map(|r| {
                (
                    r,
                    Some(if r <= 5 {
                        day
                    } else {
                        day.succ_opt().expect("day")
                    }),
                )
            })
            .collect();
        let e = event(day, d(2025, 4, 6), &rounds);
        assert_eq!(
            rounds_a_day(&e),
            Err(NotRated::RoundsOnOneDay {
                date: day,
                rounds: 5
            })
        );
    }

    #[test]
    fn a_10_d_undated_rounds_against_four_times_the_days() {
        let eight: Vec<_> = (1..=8).map(|r| (r, None)).collect();
        let e = event(d(2025, 4, 5), d(2025, 4, 6), &eight);
        assert_eq!(rounds_a_day(&e), Ok(()));
        let nine: Vec<_> = (1..=9).map(|r| (r, None)).collect();
        let e = event(d(2025, 4, 5), d(2025, 4, 6), &nine);
        assert_eq!(
            rounds_a_day(&e),
            Err(NotRated::RoundsOverDays { rounds: 9, days: 2 })
        );
        let five: Vec<_> = (1..=5).map(|r| (r, None)).collect();
        let e = event(d(2025, 4, 5), d(2025, 4, 5), &five);
        assert!(not_rated(&e, STANDARD).is_some());
        assert_eq!(not_rated(&e, RAPID), None, "A.10.d is for standard events");
        assert_eq!(not_rated(&e, BLITZ), None);
    }

    #[test]
    fn kapsam_events_abroad_are_not_rated() {
        let five: Vec<_> = (1..=5).map(|r| (r, None)).collect();
        let mut e = event(d(2025, 4, 1), d(2025, 4, 3), &five);
        e.abroad = true;
        assert_eq!(not_rated(&e, STANDARD), Some(NotRated::Abroad));
        assert_eq!(not_rated(&e, RAPID), Some(NotRated::Abroad));
    }

    #[test]
    fn a_10_e_long_and_late_at_its_edges_and_never_a_team_event() {
        let day = d;
        let event = |end: NaiveDate, received: NaiveDate, pairing: &str| Event {
            received: Some(received),
            pairing: pairing.into(),
            ..event(day(2025, 1, 1), end, &[])
        };
        let days = |d: i64| day(2025, 1, 1) + chrono::Duration::days(d - 1);
        let late = |end: NaiveDate, d: i64| end + chrono::Duration::days(d);
        // 60 days (2025-01-01 to 2025-03-01) is not more than 60, however late.
        assert_eq!(days(60), day(2025, 3, 1));
        assert_eq!(
            sent_in_time(&event(days(60), late(days(60), 90), "swiss")),
            Ok(())
        );
        // 61 days: 30 days late is in time, 31 is not.
        assert_eq!(
            sent_in_time(&event(days(61), late(days(61), 30), "swiss")),
            Ok(())
        );
        assert_eq!(
            sent_in_time(&event(days(61), late(days(61), 31), "swiss")),
            Err(NotRated::LongAndLate { days: 61, late: 31 })
        );
        // A league or other team event is never excluded by it.
        assert_eq!(
            sent_in_time(&event(days(61), late(days(61), 31), TEAM_PAIRING)),
            Ok(())
        );
        // On every list.
        let caught = event(days(75), late(days(75), 36), "round_robin");
        assert_eq!(
            sent_in_time(&caught).map_err(|e| e.to_string()),
            Err("75 days, received 36 days after its end (A.10.e: at most 60 days, or sent within 30)".into())
        );
    }
}
