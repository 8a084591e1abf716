//! Foreign players entering the Icelandic list: "Erlendur skákmaður (eða Íslendingur sem kemur
//! erlendis frá eftir langdvöl) kemur inn á íslenska skákstigalistann á FIDE stigum eða
//! landstigum þess lands sem hann er frá" — a foreign player enters the list on his FIDE rating
//! or on the national rating of the country he is from.
//!
//! He enters at the start of the period of his first rated game, when he has no Icelandic
//! state: on his FIDE standard rating of the newest list entry dated on or before the period's
//! first day that has one; else on the standard rating of the first national entry of his own
//! federation that has one; else he does not enter, and is unrated as before. From then on he is
//! an ordinary rated player whose games are counted from 0 (the text gives an entrant no game
//! count: an assumption), the junior and 2400 rules applying as to anyone.

use serde::{Deserialize, Serialize};

use super::Period;
use crate::model::{PlayerInfo, Rating};

/// Iceland's federation code: a player without one is Icelandic.
pub const ICELAND: &str = "ISL";

/// What a foreign player entered the list on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Entry {
    /// His FIDE standard rating.
    Fide,
    /// The national rating of his country.
    National,
}

impl Entry {
    /// The name the `rate` document gives it.
    pub fn code(self) -> &'static str {
        match self {
            Entry::Fide => "fide",
            Entry::National => "national",
        }
    }
}

/// Whether a player is from another federation than Iceland's (compared without regard to
/// case; none recorded is Icelandic).
pub fn is_foreign(info: &PlayerInfo) -> bool {
    info.federation
        .as_deref()
        .is_some_and(|f| !f.eq_ignore_ascii_case(ICELAND))
}

/// The rating a foreign player enters the list on at the start of `period`, and what it is:
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
}
