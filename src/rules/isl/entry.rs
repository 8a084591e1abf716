//! ISL Ýmsar reglur, foreign players entering the Icelandic list: "Erlendur skákmaður (eða
//! Íslendingur sem kemur erlendis frá eftir langdvöl) kemur inn á íslenska skákstigalistann á FIDE
//! stigum eða landstigum þess lands sem hann er frá" — a foreign player enters the list on his FIDE
//! rating or on the national rating of the country he is from.
//!
//! He enters at the start of the period of his first rated game, when he has no Icelandic
//! state: on his FIDE standard rating of the newest list entry dated on or before the period's
//! first day that has one; else on the standard rating of the first national entry of his own
//! federation that has one; else he does not enter, and is unrated as before. From then on he is
//! an ordinary rated player whose games are counted from 0 (the text gives an entrant no game
//! count: an assumption), the junior and 2400 rules applying as to anyone.
//!
//! The same sentence brings back an Icelander after a long stay abroad ("eða Íslendingur sem
//! kemur erlendis frá eftir langdvöl"): the officer re-enters him on a day, on a FIDE or
//! national rating ([`Reentry`]), and he starts again from it as an entrant does
//! ([`reentry_in_force`]).

use super::{Period, period_of, unit_key};
pub use crate::model::Entry;
use crate::model::{PlayerInfo, Rating, Reentry};
use crate::rules::UnitKey;

/// Iceland's federation code: a player without one is Icelandic.
pub const ICELAND: &str = "ISL";

/// Whether a player is from another federation than Iceland's (compared without regard to
/// case; none recorded is Icelandic).
pub fn is_foreign(info: &PlayerInfo) -> bool {
    info.federation
        .as_deref()
        .is_some_and(|f| !f.eq_ignore_ascii_case(ICELAND))
}

/// ISL Ýmsar reglur: the rating a foreign player enters the list on at the start of `period`,
/// and what it is:
/// "á FIDE stigum eða landstigum þess lands sem hann er frá". `None` for an Icelander, and for
/// a foreigner with neither rating.
pub fn entry_rating(info: &PlayerInfo, period: &Period) -> Option<(Rating, Entry)> {
    if !is_foreign(info) {
        return None;
    }
    // The newest FIDE entry in force on the period's first day that has a standard rating
    // (an entry without one says nothing about it).
    let fide = info
        .fide
        .iter()
        .filter(|e| e.list_date <= period.from)
        .filter_map(|e| e.standard.map(|r| (e.list_date, r)))
        .max_by_key(|&(date, _)| date)
        .map(|(_, r)| (r, Entry::Fide));
    let own = info.federation.as_deref().unwrap_or(ICELAND);
    fide.or_else(|| {
        info.national
            .iter()
            .filter(|n| n.federation.is_empty() || n.federation.eq_ignore_ascii_case(own))
            .find_map(|n| n.standard)
            .map(|r| (r, Entry::National))
    })
}

/// ISL Ýmsar reglur: "Íslendingur sem kemur erlendis frá eftir langdvöl" (an Icelander coming home
/// after a long stay abroad) enters the list as a foreign player does, on his FIDE or national
/// rating: the officer records the day and the rating ([`Reentry`]). From the start of the period
/// holding that day his state is that rating with no games counted, as an entrant's (an assumption:
/// the text gives an entrant no game count), whatever he had before he left.
///
/// The re-entry in force at a point of the ledger: the newest whose period comes after `since`
/// (the unit that gave him his state: a re-entry at or before it is already in that state) and
/// is at or before the point (`upto`).
pub fn reentry_in_force<'a>(
    info: &'a PlayerInfo,
    since: Option<&UnitKey>,
    upto: &dyn Fn(&UnitKey) -> bool,
) -> Option<&'a Reentry> {
    info.reentries
        .iter()
        .filter(|r| {
            let key = unit_key(&period_of(r.date));
            since.is_none_or(|s| *s < key) && upto(&key)
        })
        .max_by_key(|r| r.date)
}

/// ISL Ýmsar reglur: the re-entry that takes effect at the start of `period`, the newest
/// dated in it (see [`reentry_in_force`]).
pub fn reentry_in<'a>(info: &'a PlayerInfo, period: &Period) -> Option<&'a Reentry> {
    info.reentries
        .iter()
        .filter(|r| period_of(r.date) == *period)
        .max_by_key(|r| r.date)
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;
    use crate::model::{FideEntry, NationalEntry};

    use crate::model::fixture::ymd as day;

    fn fide(date: NaiveDate, standard: Option<Rating>) -> FideEntry {
        FideEntry {
            list_date: date,
            standard,
            rapid: None,
            blitz: None,
        }
    }

    fn national(federation: &str, standard: Option<Rating>) -> NationalEntry {
        NationalEntry {
            federation: federation.into(),
            standard,
            rapid: None,
            comparable: false,
        }
    }

    /// The period from 2025-03-01 (named 2025-06-01).
    fn spring() -> Period {
        super::super::period_of(day(2025, 4, 10))
    }

    fn player(
        federation: Option<&str>,
        fide: Vec<FideEntry>,
        national: Vec<NationalEntry>,
    ) -> PlayerInfo {
        PlayerInfo {
            federation: federation.map(Into::into),
            fide,
            national,
            ..PlayerInfo::default()
        }
    }

    #[test]
    fn the_fide_rating_in_force_on_the_periods_first_day() {
        assert_eq!(spring().from, day(2025, 3, 1));
        let de = player(
            Some("GER"),
            vec![
                fide(day(2025, 1, 1), Some(2080)),
                fide(day(2025, 3, 1), Some(2100)),
                fide(day(2025, 4, 1), Some(2150)),
            ],
            Vec::new(),
        );
        assert_eq!(entry_rating(&de, &spring()), Some((2100, Entry::Fide)));
        // A list without a standard rating says nothing about it: the one before holds.
        let rapid_only = player(
            Some("ger"),
            vec![
                fide(day(2025, 1, 1), Some(2080)),
                fide(day(2025, 2, 1), None),
            ],
            Vec::new(),
        );
        assert_eq!(
            entry_rating(&rapid_only, &spring()),
            Some((2080, Entry::Fide))
        );
    }

    #[test]
    fn else_the_national_rating_of_his_own_country() {
        // A FIDE list dated the day after the period's first day is not yet in force.
        let se = player(
            Some("SWE"),
            vec![fide(day(2025, 3, 2), Some(2000))],
            vec![national("SWE", Some(1950))],
        );
        assert_eq!(entry_rating(&se, &spring()), Some((1950, Entry::National)));
        // An entry without a federation is of his own.
        let own = player(Some("SWE"), Vec::new(), vec![national("", Some(1900))]);
        assert_eq!(entry_rating(&own, &spring()), Some((1900, Entry::National)));
        // Another country's rating is not his country's: no entry.
        let no = player(Some("NOR"), Vec::new(), vec![national("SWE", Some(1700))]);
        assert_eq!(entry_rating(&no, &spring()), None);
    }

    #[test]
    fn an_icelander_never_enters_this_way() {
        let fide_rated = vec![fide(day(2025, 1, 1), Some(2100))];
        assert_eq!(
            entry_rating(&player(None, fide_rated.clone(), Vec::new()), &spring()),
            None
        );
        assert_eq!(
            entry_rating(&player(Some("isl"), fide_rated, Vec::new()), &spring()),
            None
        );
    }

    fn back(reentries: &[(NaiveDate, Rating, Entry)]) -> PlayerInfo {
        PlayerInfo {
            reentries: reentries
                .iter()
                .map(|&(date, rating, on)| Reentry { date, rating, on })
                .collect(),
            ..PlayerInfo::default()
        }
    }

    fn key_of(date: NaiveDate) -> UnitKey {
        unit_key(&period_of(date))
    }

    #[test]
    fn a_reentry_takes_the_period_holding_its_day_from_the_list_date_on() {
        // Dated on a list date it starts that period; the day before, the one before.
        let on = back(&[(day(2025, 3, 1), 2050, Entry::Fide)]);
        assert_eq!(reentry_in(&on, &spring()).map(|r| r.rating), Some(2050));
        let eve = back(&[(day(2025, 2, 28), 2050, Entry::Fide)]);
        assert_eq!(reentry_in(&eve, &spring()), None);
        assert_eq!(
            reentry_in(&eve, &period_of(day(2025, 2, 1))).map(|r| r.on),
            Some(Entry::Fide)
        );
        // The last day of the period still belongs to it.
        let last = back(&[(day(2025, 5, 31), 1900, Entry::National)]);
        assert_eq!(reentry_in(&last, &spring()).map(|r| r.rating), Some(1900));
    }

    #[test]
    fn a_reentry_stands_until_a_unit_of_his_at_or_after_its_period() {
        let info = back(&[(day(2025, 4, 10), 2050, Entry::Fide)]);
        let all = |_: &UnitKey| true;
        let spring_key = key_of(day(2025, 4, 10));
        let winter_key = key_of(day(2025, 1, 10));
        let summer_key = key_of(day(2025, 7, 10));
        // His state came from a unit before the re-entry's period (or his seed): replaced.
        assert!(reentry_in_force(&info, Some(&winter_key), &all).is_some());
        assert!(reentry_in_force(&info, None, &all).is_some());
        // It came from the re-entry's own period or a later one: that unit started from it.
        assert_eq!(reentry_in_force(&info, Some(&spring_key), &all), None);
        assert_eq!(reentry_in_force(&info, Some(&summer_key), &all), None);
        // Not before the point asked about: the unit of the winter period, or a list before
        // the period's name.
        let upto = |point: UnitKey| move |k: &UnitKey| *k <= point;
        assert_eq!(reentry_in_force(&info, None, &upto(winter_key)), None);
        assert!(reentry_in_force(&info, None, &upto(spring_key.clone())).is_some());
        let list_on = |date: NaiveDate| move |k: &UnitKey| k.date <= date;
        assert_eq!(
            reentry_in_force(&info, None, &list_on(day(2025, 5, 31))),
            None
        );
        assert!(reentry_in_force(&info, None, &list_on(day(2025, 6, 1))).is_some());
    }

    #[test]
    fn of_two_reentries_the_newest_that_applies() {
        let info = back(&[
            (day(2024, 10, 1), 1900, Entry::National),
            (day(2025, 4, 10), 2050, Entry::Fide),
        ]);
        let all = |_: &UnitKey| true;
        assert_eq!(
            reentry_in_force(&info, None, &all).map(|r| r.rating),
            Some(2050)
        );
        let before_spring = |k: &UnitKey| *k < key_of(day(2025, 3, 1));
        assert_eq!(
            reentry_in_force(&info, None, &before_spring).map(|r| r.rating),
            Some(1900)
        );
        // A unit of his between the two has taken up the first.
        let winter = key_of(day(2025, 1, 10));
        assert_eq!(
            reentry_in_force(&info, Some(&winter), &all).map(|r| r.rating),
            Some(2050)
        );
        assert_eq!(reentry_in_force(&info, Some(&winter), &before_spring), None);
    }
}
