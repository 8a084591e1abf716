//! Foreign players and events abroad (Finland): who is rated abroad (2.2), the Elo correction
//! of a foreign player in a domestic event (3.7), and the ratings opponents count with in an
//! event abroad (3.8, 3.9). FIDE ratings are read by tempo: the rating of a tempo is the
//! newest entry that has that tempo, on or before the date.

use chrono::NaiveDate;

use super::encounters::{Encounters, Slot};
use super::{SslState, seconds_for_60};
use crate::model::{Event, FideKind, PlayerInfo, Rating};
use crate::rules::Halves;
use crate::rules::arith::round_half_up_f64;

/// The lowest rating a foreign opponent in an event abroad counts with (3.9).
pub const FOREIGN_FLOOR: Rating = 1000;

/// Seconds for 60 moves below which a game is rapid in the sense of 3.9 (under 60 minutes).
const RAPID_BELOW: u64 = 60 * 60;

/// Rule 3.7: a foreign player with a FIDE standard rating in a domestic event counts with his
/// Elo as an established selo when he has no selo or his Elo is at least selo + 100 — once:
/// not again once made (the record of later Elo-only games is not kept). His Elo is the
/// newest FIDE *standard* rating on or before the event's start: a newer list without a
/// standard rating (rapid only) leaves it as it was. Returns whether the correction was made.
pub fn elo_correction(state: &mut SslState, info: &PlayerInfo, event_start: NaiveDate) -> bool {
    if info.plays_for(super::FINLAND) || state.elo_corrected {
        return false;
    }
    let Some(elo) = info.fide_rating_on(event_start, FideKind::Standard) else {
        return false;
    };
    if state.rating.is_some_and(|selo| elo < selo + 100) {
        return false;
    }
    state.rating = Some(elo);
    state.elo_corrected = true;
    state.history = None;
    true
}

/// Rule 2.2: in a domestic event every participant is rated, foreigners too; in an event
/// abroad only players representing Finland, and a Finn without a selo only when the event is
/// an official SSL assignment.
pub fn is_rated_in(event: &Event, info: &PlayerInfo, state: &SslState) -> bool {
    !event.abroad
        || (info.plays_for(super::FINLAND)
            && (state.rating.is_some() || event.official_representation))
}

/// Rule 3.9, the first four sources in order: FIDE standard; FIDE rapid when the game is rapid
/// (under 60 minutes); a comparable national standard, then national rapid for a rapid game.
/// Each FIDE rating is the newest of its tempo on or before the event's start. `None`: only the
/// performance (or 1000) remains.
pub fn foreign_listed_rating(
    info: &PlayerInfo,
    event_start: NaiveDate,
    rapid: bool,
) -> Option<Rating> {
    let fide = |kind| info.fide_rating_on(event_start, kind);
    let national = info.national.iter().filter(|n| n.comparable);
    fide(FideKind::Standard)
        .or_else(|| fide(FideKind::Rapid).filter(|_| rapid))
        .or_else(|| national.clone().find_map(|n| n.standard))
        .or_else(|| national.clone().find_map(|n| n.rapid).filter(|_| rapid))
}

/// Rules 3.8–3.9: the ratings that opponents without a selo count with in an event abroad.
///
/// Foreigners count with their listed rating (3.9's first four sources); those without one
/// with their performance in the event (7.6), found by fixed-point iteration where such players
/// met each other (3.9's recursion); an unbounded performance is no performance, and every
/// result below 1000 counts as 1000. A Finn with a selo counts with it (3.8) and has no rating
/// returned (`None`). A Finn without a selo counts, by 3.8, "samoin kuin kotimaisessa
/// kilpailussakin" — at the rating this event's calculation gives him, not at the 3.6 default:
/// he enters the recursion as an unrated foreigner does, and the result is returned for him (an
/// established opponent counts one who is rated here, on an SSL assignment, at his 7.3 rating
/// instead, as 3.4 has it in a domestic event).
///
/// By slot of `games`: `selo_before` is each participant's selo before the event, and the
/// result each one's rating as an opponent (`None`: a Finn with a selo).
pub(super) fn abroad_ratings(
    event: &Event,
    players: &[PlayerInfo],
    games: &Encounters,
    selo_before: &[Option<Rating>],
) -> Vec<Option<Rating>> {
    let rapid = seconds_for_60(event) < RAPID_BELOW;
    let floor = f64::from(FOREIGN_FLOOR);
    let finn: Vec<bool> = games
        .players
        .iter()
        .map(|&p| players[p].plays_for(super::FINLAND))
        .collect();
    // Each participant's rating as an opponent: listed (fixed), or the estimate of his
    // performance for those in `unknown`.
    let mut value: Vec<f64> = Vec::with_capacity(games.len());
    let mut unknown: Vec<Slot> = Vec::new();
    for (slot, &p) in games.players.iter().enumerate() {
        let listed = if finn[slot] {
            selo_before[slot]
        } else {
            foreign_listed_rating(&players[p], event.start, rapid).map(|r| r.max(FOREIGN_FLOOR))
        };
        value.push(listed.map_or(floor, f64::from));
        if listed.is_none() {
            unknown.push(slot);
        }
    }
    let mut next: Vec<f64> = vec![floor; unknown.len()];
    let mut opponents: Vec<f64> = Vec::new();
    for _ in 0..1000 {
        let mut moved = 0.0f64;
        for (k, &p) in unknown.iter().enumerate() {
            opponents.clear();
            opponents.extend(games.of_slot(p).iter().map(|e| value[e.opponent]));
            let score: Halves = games
                .of_slot(p)
                .iter()
                .map(|e| Halves::from(e.halves))
                .sum();
            let n = opponents.len() as Halves;
            let rp = if score == 0 || score >= 2 * n {
                floor
            } else {
                crate::rules::performance::solve(&opponents, 50.0 * f64::from(score))
                    .map_or(floor, |rp| rp.max(floor))
            };
            moved = moved.max((rp - value[p]).abs());
            next[k] = rp;
        }
        for (k, &p) in unknown.iter().enumerate() {
            value[p] = next[k];
        }
        if moved < 1e-7 {
            break;
        }
    }
    let mut is_unknown = vec![false; games.len()];
    for &p in &unknown {
        is_unknown[p] = true;
    }
    value
        .iter()
        .enumerate()
        .map(|(slot, &r)| {
            (!finn[slot] || is_unknown[slot])
                .then(|| (round_half_up_f64(r) as Rating).max(FOREIGN_FLOOR))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FideEntry, NationalEntry};

    use crate::model::fixture::day as date;

    fn foreigner(fide: Vec<FideEntry>) -> PlayerInfo {
        PlayerInfo {
            id: "f".into(),
            federation: Some("SWE".into()),
            fide,
            ..PlayerInfo::default()
        }
    }

    fn entry(d: &str, standard: Option<Rating>, rapid: Option<Rating>) -> FideEntry {
        FideEntry {
            list_date: date(d),
            standard,
            rapid,
            blitz: None,
        }
    }

    #[test]
    fn rule_3_7_elo_replaces_missing_or_lower_selo_once() {
        let list = |std| vec![entry("2025-01-01", Some(std), None)];
        let start = date("2025-03-01");
        let mut none = SslState::default();
        assert!(elo_correction(&mut none, &foreigner(list(2100)), start));
        assert_eq!((none.rating, none.selo_established()), (Some(2100), true));
        assert!(
            !elo_correction(&mut none, &foreigner(list(2300)), start),
            "only once"
        );

        let mut at_100 = SslState {
            rating: Some(1900),
            games: 3,
            ..SslState::default()
        };
        assert!(elo_correction(&mut at_100, &foreigner(list(2000)), start));
        let mut at_99 = SslState {
            rating: Some(1900),
            games: 3,
            ..SslState::default()
        };
        assert!(!elo_correction(&mut at_99, &foreigner(list(1999)), start));

        let mut finn = SslState {
            rating: Some(1800),
            games: 20,
            ..SslState::default()
        };
        let info = PlayerInfo {
            federation: None,
            ..foreigner(list(2200))
        };
        assert!(!elo_correction(&mut finn, &info, start));
        let mut later = SslState::default();
        let future = vec![entry("2025-04-01", Some(2100), None)];
        assert!(
            !elo_correction(&mut later, &foreigner(future), start),
            "a list after the start is not used"
        );
    }

    /// 3.7 by tempo: a newer list without a standard rating (rapid only, blitz only) says
    /// nothing about the Elo, so the older standard rating still holds; a newer standard
    /// rating replaces it.
    #[test]
    fn rule_3_7_elo_is_the_newest_standard_rating_not_the_newest_list() {
        let start = date("2025-03-15");
        let lists = vec![
            entry("2025-01-01", Some(2110), Some(2010)),
            entry("2025-02-01", None, Some(2030)),
            FideEntry {
                blitz: Some(1990),
                ..entry("2025-03-01", None, None)
            },
        ];
        let mut state = SslState::default();
        assert!(elo_correction(&mut state, &foreigner(lists.clone()), start));
        assert_eq!(
            state.rating,
            Some(2110),
            "established 2110, not a new player"
        );
        assert!(state.selo_established());

        // Selo 1800: the 1950 of December still counts against a rapid-only March list.
        let mut selo = SslState {
            rating: Some(1800),
            games: 30,
            ..SslState::default()
        };
        let lists = vec![
            entry("2024-12-01", Some(1950), None),
            entry("2025-03-01", None, Some(1900)),
        ];
        assert!(elo_correction(&mut selo, &foreigner(lists), start));
        assert_eq!(selo.rating, Some(1950));

        // Only lists without a standard rating: no Elo, no correction.
        let mut none = SslState::default();
        let rapid_only = vec![entry("2025-02-01", None, Some(2030))];
        assert!(!elo_correction(&mut none, &foreigner(rapid_only), start));
        assert_eq!(none.rating, None);

        // A newer standard rating replaces the older one.
        let mut newer = SslState::default();
        let lists = vec![
            entry("2025-01-01", Some(2110), None),
            entry("2025-03-01", Some(2090), None),
        ];
        assert!(elo_correction(&mut newer, &foreigner(lists), start));
        assert_eq!(newer.rating, Some(2090));
    }

    #[test]
    fn rule_2_2_who_is_rated_abroad() {
        let event = |abroad, official_representation| Event {
            abroad,
            official_representation,
            ..Event::new("e", date("2025-03-01"), date("2025-03-01"))
        };
        let finn = PlayerInfo::default();
        let swede = foreigner(vec![]);
        let rated = SslState {
            rating: Some(1800),
            games: 20,
            ..SslState::default()
        };
        let unrated = SslState::default();
        assert!(
            is_rated_in(&event(false, false), &swede, &unrated),
            "domestic: everybody"
        );
        assert!(is_rated_in(&event(true, false), &finn, &rated));
        assert!(
            !is_rated_in(&event(true, false), &swede, &rated),
            "abroad: Finns only"
        );
        assert!(
            !is_rated_in(&event(true, false), &finn, &unrated),
            "no selo, no assignment"
        );
        assert!(
            is_rated_in(&event(true, true), &finn, &unrated),
            "official assignment"
        );
    }

    #[test]
    fn rule_3_9_sources_in_order() {
        let start = date("2025-03-01");
        let fide = |standard, rapid| entry("2025-01-01", standard, rapid);
        let national = |standard, rapid, comparable| NationalEntry {
            federation: "SWE".into(),
            standard,
            rapid,
            comparable,
        };
        let mut p = foreigner(vec![fide(Some(2000), Some(1900))]);
        assert_eq!(foreign_listed_rating(&p, start, true), Some(2000));
        p.fide = vec![fide(None, Some(1900))];
        assert_eq!(foreign_listed_rating(&p, start, true), Some(1900));
        assert_eq!(
            foreign_listed_rating(&p, start, false),
            None,
            "rapid only counts for a rapid game"
        );
        p.fide = vec![];
        p.national = vec![national(Some(1700), Some(1650), false)];
        assert_eq!(
            foreign_listed_rating(&p, start, false),
            None,
            "not comparable"
        );
        p.national = vec![national(Some(1700), Some(1650), true)];
        assert_eq!(foreign_listed_rating(&p, start, false), Some(1700));
        p.national = vec![national(None, Some(1650), true)];
        assert_eq!(foreign_listed_rating(&p, start, true), Some(1650));
        assert_eq!(foreign_listed_rating(&p, start, false), None);
    }

    /// 3.9 by tempo: the FIDE standard rating of an older list holds over a newer rapid-only
    /// one, and the rapid rating of an older list over a newer standard-only one.
    #[test]
    fn rule_3_9_fide_ratings_by_tempo() {
        let start = date("2025-03-01");
        let p = foreigner(vec![
            entry("2024-11-01", Some(2050), Some(1980)),
            entry("2025-01-01", None, Some(1900)),
        ]);
        assert_eq!(foreign_listed_rating(&p, start, true), Some(2050));
        assert_eq!(foreign_listed_rating(&p, start, false), Some(2050));
        let p = foreigner(vec![
            entry("2024-11-01", None, Some(1980)),
            entry("2025-01-01", None, None),
        ]);
        assert_eq!(
            foreign_listed_rating(&p, start, true),
            Some(1980),
            "rapid of November"
        );
        assert_eq!(foreign_listed_rating(&p, start, false), None);
        let later = foreigner(vec![entry("2025-03-02", Some(2200), Some(2200))]);
        assert_eq!(foreign_listed_rating(&later, start, true), None);
    }
}
