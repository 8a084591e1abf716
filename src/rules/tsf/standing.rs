//! Who counts as rated in an event and with which rating: a UKD on the list in force, a foreign
//! player's FIDE rating (B.1.d, B.2.c), or a first rapid or blitz event's standard UKD
//! (B.1.l–m); everybody else is unrated (B.1.a).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::TsfState;
use super::calendar::{BLITZ, RAPID, STANDARD};
use crate::model::{FideKind, PlayerInfo, Rating};
use crate::rules::ListId;

/// The federation code of Turkey; a player without a federation is Turkish.
pub const TURKEY: &str = "TUR";

/// Where a rated player's rating in an event comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// His UKD on the event's list, with the games behind it.
    #[default]
    Ukd,
    /// B.1.d: a foreign player's FIDE rating; his state never changes and he is not listed.
    Fide,
    /// B.1.l–m: his standard UKD in his first rapid or blitz events; his UKD on that list
    /// starts from it.
    Standard,
}

/// How a player counts in one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    Rated {
        rating: Rating,
        source: Source,
        /// His rated games on the list before the period (0 when the source is not his UKD).
        games: u32,
    },
    Unrated,
}

impl Standing {
    pub fn rating(self) -> Option<Rating> {
        match self {
            Standing::Rated { rating, .. } => Some(rating),
            Standing::Unrated => None,
        }
    }
}

/// B.1.d: a player of another federation (absent: Turkish).
pub fn is_foreign(info: &PlayerInfo) -> bool {
    !info.plays_for(TURKEY)
}

/// The FIDE list of a TSF list's tempo.
pub fn fide_kind(list: ListId) -> FideKind {
    match list {
        RAPID => FideKind::Rapid,
        BLITZ => FideKind::Blitz,
        _ => FideKind::Standard,
    }
}

/// B.1.d, B.1.k: the FIDE rating a foreign player counts with in an event starting on `start`
/// — of the event's tempo from the newest entry on or before the start, his standard rating
/// when he has none of that tempo.
///
/// Reading: B.1.d says only "ELO puanları"; B.1.k uses the FIDE rapid and blitz ratings for
/// rapid and blitz events, so the tempo's rating is taken first, and the standard Elo — the
/// rating "ELO" names without qualification — when he has none of that tempo.
pub fn fide_rating(info: &PlayerInfo, list: ListId, start: NaiveDate) -> Option<Rating> {
    info.fide_rating_on(start, fide_kind(list))
        .or_else(|| info.fide_rating_on(start, FideKind::Standard))
}

/// B.1.a, B.1.d, B.1.l–m, B.2.c: how a player counts in an event on `list` starting on
/// `start`, from his state on that list and (for rapid and blitz) on the standard list in
/// force.
///
/// - A foreign player with a FIDE rating counts with it (B.1.d); one without is rated like a
///   Turkish player (B.2.c).
/// - A UKD on the list in force counts; a UKD published at the end of this month does not yet
///   (B.1.e: "UKD puanları yeni liste açıklanıncaya kadar değişmez").
/// - A player with no state at all on the rapid (blitz) list — never rated and nothing
///   archived there — who has a standard UKD counts with it (B.1.l–m: "ilk kez katılan", taking
///   part for the first time).
pub fn standing(
    info: &PlayerInfo,
    list: ListId,
    start: NaiveDate,
    own: Option<&TsfState>,
    standard: impl FnOnce() -> Option<Rating>,
) -> Standing {
    if is_foreign(info)
        && let Some(rating) = fide_rating(info, list, start)
    {
        return Standing::Rated {
            rating,
            source: Source::Fide,
            games: 0,
        };
    }
    match own {
        Some(TsfState::Rated { rating, games }) => Standing::Rated {
            rating: *rating,
            source: Source::Ukd,
            games: *games,
        },
        Some(TsfState::Unrated { .. }) => Standing::Unrated,
        None if list != STANDARD => {
            standard().map_or(Standing::Unrated, |rating| Standing::Rated {
                rating,
                source: Source::Standard,
                games: 0,
            })
        }
        None => Standing::Unrated,
    }
}

/// B.1.d, B.2.a, B.2.c: whether a player with `state` on `list` is on that list published on
/// `list_date` — every player with a UKD ("UKD puanına sahip sporcular … listede yer
/// alırlar"), except a foreign player who counts with a FIDE rating ("bu sporcular listede yer
/// almazlar"); a foreign player without one is listed like a Turkish player.
pub fn listed(info: &PlayerInfo, list: ListId, list_date: NaiveDate, state: &TsfState) -> bool {
    state.rating().is_some() && !(is_foreign(info) && fide_rating(info, list, list_date).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FideEntry;
    use crate::rules::tsf::Archived;

    fn d(m: u32, day: u32) -> NaiveDate {
        crate::model::fixture::ymd(2025, m, day)
    }

    fn foreign(fide: Vec<FideEntry>) -> PlayerInfo {
        PlayerInfo {
            federation: Some("GER".into()),
            fide,
            ..PlayerInfo::default()
        }
    }

    fn entry(m: u32, standard: Option<Rating>, rapid: Option<Rating>) -> FideEntry {
        FideEntry {
            list_date: d(m, 1),
            standard,
            rapid,
            blitz: None,
        }
    }

    const RATED: TsfState = TsfState::Rated {
        rating: 1650,
        games: 40,
    };

    #[test]
    fn b_2_listed_with_a_ukd_unless_foreign_with_a_fide_rating() {
        let on = d(6, 1);
        let unrated = TsfState::Unrated {
            performances: Vec::new().into(),
        };
        assert!(listed(&PlayerInfo::default(), STANDARD, on, &RATED));
        assert!(!listed(&PlayerInfo::default(), STANDARD, on, &unrated));
        assert!(!listed(
            &foreign(vec![entry(5, Some(2100), None)]),
            STANDARD,
            on,
            &RATED
        ));
        // B.2.c: a foreign player without a FIDE rating is listed; a FIDE list published after
        // the list date does not count yet.
        assert!(listed(&foreign(Vec::new()), STANDARD, on, &RATED));
        assert!(listed(
            &foreign(vec![entry(7, Some(2100), None)]),
            STANDARD,
            on,
            &RATED
        ));
    }

    #[test]
    fn b_1_d_federation_absent_or_tur_is_turkish() {
        assert!(!is_foreign(&PlayerInfo::default()));
        let tur = PlayerInfo {
            federation: Some("tur".into()),
            ..PlayerInfo::default()
        };
        assert!(!is_foreign(&tur));
        assert!(is_foreign(&foreign(vec![])));
    }

    #[test]
    fn b_1_d_newest_fide_entry_on_or_before_the_start() {
        let info = foreign(vec![entry(1, Some(2000), None), entry(4, Some(2100), None)]);
        assert_eq!(fide_rating(&info, STANDARD, d(3, 15)), Some(2000));
        assert_eq!(fide_rating(&info, STANDARD, d(4, 1)), Some(2100));
        assert_eq!(
            fide_rating(&info, STANDARD, d(1, 1) - chrono::Days::new(1)),
            None
        );
    }

    #[test]
    fn b_1_k_tempo_rating_first_standard_when_none() {
        let info = foreign(vec![entry(1, Some(2000), Some(1900))]);
        assert_eq!(fide_rating(&info, RAPID, d(3, 1)), Some(1900));
        assert_eq!(fide_rating(&info, BLITZ, d(3, 1)), Some(2000));
    }

    #[test]
    fn b_1_d_foreign_fide_wins_over_a_state() {
        let info = foreign(vec![entry(1, Some(2000), None)]);
        let s = standing(&info, STANDARD, d(3, 1), Some(&RATED), || None);
        assert_eq!(
            s,
            Standing::Rated {
                rating: 2000,
                source: Source::Fide,
                games: 0
            }
        );
    }

    #[test]
    fn b_2_c_foreign_without_fide_rating_counts_like_a_turk() {
        let info = foreign(vec![entry(1, None, Some(1900))]);
        assert_eq!(fide_rating(&info, STANDARD, d(3, 1)), None);
        assert_eq!(
            standing(&info, STANDARD, d(3, 1), None, || None),
            Standing::Unrated
        );
        assert_eq!(
            standing(&info, STANDARD, d(3, 1), Some(&RATED), || None).rating(),
            Some(1650)
        );
    }

    #[test]
    fn b_1_l_first_rapid_event_counts_the_standard_ukd() {
        let info = PlayerInfo::default();
        assert_eq!(
            standing(&info, RAPID, d(3, 1), None, || Some(1800)),
            Standing::Rated {
                rating: 1800,
                source: Source::Standard,
                games: 0
            }
        );
        assert_eq!(
            standing(&info, BLITZ, d(3, 1), None, || Some(1800)).rating(),
            Some(1800)
        );
        assert_eq!(
            standing(&info, RAPID, d(3, 1), None, || None),
            Standing::Unrated
        );
        assert_eq!(
            standing(&info, STANDARD, d(3, 1), None, || Some(1800)),
            Standing::Unrated
        );
    }

    #[test]
    fn b_1_l_an_archive_on_the_list_is_not_a_first_event() {
        let archive = TsfState::Unrated {
            performances: vec![Archived {
                performance: 1400,
                games: 2,
                event: None,
            }]
            .into(),
        };
        assert_eq!(
            standing(
                &PlayerInfo::default(),
                RAPID,
                d(3, 1),
                Some(&archive),
                || Some(1500)
            ),
            Standing::Unrated
        );
    }
}
