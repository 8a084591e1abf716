//! Selo, the Finnish standard-play rating: who is rated (2.2), foreign players (3.7–3.9), new
//! players first (3.4) by 7.3, established players by 7.2, rounded by 3.5.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use super::titles::titles_reached;
use super::{
    Encounter, History, Ssl, SslState, Title, award_date, default_rating, games_of, is_normal_time,
    kr, kt_tenths, rated_games, seconds_for_60,
};
use crate::model::{Event, PlayerIdx, PlayerInfo, Rating};
use crate::rules::arith::{round_half_up, round_half_up_f64};
use crate::rules::expectation::p_selo;
use crate::rules::performance::performance;
use crate::rules::{
    Award, Factors, GameLine, Halves, Performance, PlayerRating, Unit, UnitOutcome,
};

/// The lowest rating a foreign opponent in an event abroad counts with (3.9).
pub const FOREIGN_FLOOR: Rating = 1000;

/// Seconds for 60 moves below which a game is rapid in the sense of 3.9 (under 60 minutes).
const RAPID_BELOW: u64 = 60 * 60;

/// Rule 3.7: a foreign player with a FIDE standard rating in a domestic event counts with his
/// Elo as an established selo when he has no selo or his Elo is at least selo + 100 — once:
/// not again once made (the record of later Elo-only games is not kept). Returns whether the
/// correction was made.
pub fn elo_correction(state: &mut SslState, info: &PlayerInfo, event_start: NaiveDate) -> bool {
    if info.is_finnish() || state.elo_corrected {
        return false;
    }
    let Some(elo) = info.fide_on(event_start).and_then(|e| e.standard) else {
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
        || (info.is_finnish() && (state.rating.is_some() || event.official_representation))
}

/// Rule 3.9, the first four sources in order: FIDE standard; FIDE rapid when the game is rapid
/// (under 60 minutes); a comparable national standard, then national rapid for a rapid game.
/// `None`: only the performance (or 1000) remains.
pub fn foreign_listed_rating(
    info: &PlayerInfo,
    event_start: NaiveDate,
    rapid: bool,
) -> Option<Rating> {
    let fide = info.fide_on(event_start);
    let national = info.national.iter().filter(|n| n.comparable);
    fide.and_then(|f| f.standard)
        .or_else(|| fide.and_then(|f| f.rapid).filter(|_| rapid))
        .or_else(|| national.clone().find_map(|n| n.standard))
        .or_else(|| national.clone().find_map(|n| n.rapid).filter(|_| rapid))
}

/// Rules 3.8–3.9: the ratings that foreign opponents count with in an event abroad. Those
/// without a listed rating count with their performance in the event (7.6), found by fixed-point
/// iteration where unrated players met each other (3.9's recursion); an unbounded performance is
/// no performance, and every result below 1000 counts as 1000. Finns count with their selo
/// (3.8); a Finn without one enters the recursion like an unrated foreigner.
fn foreign_ratings(
    event: &Event,
    players: &[PlayerInfo],
    games: &BTreeMap<PlayerIdx, Vec<Encounter>>,
    selo_before: &BTreeMap<PlayerIdx, Option<Rating>>,
) -> BTreeMap<PlayerIdx, Rating> {
    let rapid = seconds_for_60(event) < RAPID_BELOW;
    let mut fixed: BTreeMap<PlayerIdx, f64> = BTreeMap::new();
    let mut unknown: Vec<PlayerIdx> = Vec::new();
    for &p in games.keys() {
        let listed = if players[p].is_finnish() {
            selo_before.get(&p).copied().flatten()
        } else {
            foreign_listed_rating(&players[p], event.start, rapid).map(|r| r.max(FOREIGN_FLOOR))
        };
        match listed {
            Some(r) => {
                fixed.insert(p, f64::from(r));
            }
            None => unknown.push(p),
        }
    }
    let floor = f64::from(FOREIGN_FLOOR);
    let mut estimate: BTreeMap<PlayerIdx, f64> = unknown.iter().map(|&p| (p, floor)).collect();
    for _ in 0..1000 {
        let mut moved = 0.0f64;
        let mut next = estimate.clone();
        for &p in &unknown {
            let opponents: Vec<f64> = games[&p]
                .iter()
                .map(|e| {
                    fixed
                        .get(&e.opponent)
                        .or_else(|| estimate.get(&e.opponent))
                        .copied()
                        .unwrap_or(floor)
                })
                .collect();
            let score: Halves = games[&p].iter().map(|e| Halves::from(e.halves)).sum();
            let n = opponents.len() as Halves;
            let rp = if score == 0 || score >= 2 * n {
                floor
            } else {
                crate::rules::performance::solve(&opponents, 50.0 * f64::from(score))
                    .map_or(floor, |rp| rp.max(floor))
            };
            moved = moved.max((rp - estimate[&p]).abs());
            next.insert(p, rp);
        }
        estimate = next;
        if moved < 1e-7 {
            break;
        }
    }
    games
        .keys()
        .filter(|p| !players[**p].is_finnish())
        .map(|&p| {
            let r = fixed
                .get(&p)
                .or_else(|| estimate.get(&p))
                .copied()
                .unwrap_or(floor);
            (p, (round_half_up_f64(r) as Rating).max(FOREIGN_FLOOR))
        })
        .collect()
}

/// Rule 7.3 after each of the event's games: `(1/N) Σ Ri + 400 (W/N − 1/2) + N/10` over all
/// the player's selo games so far (3.3), rounded by 3.5. Exact: ×10N the numerator is
/// `10 Σ Ri + 2000 w − 2000 N + N²` with w in half points.
pub fn new_selo_after_each(
    earlier: History,
    earlier_games: u32,
    games: &[(Rating, u8)],
) -> Vec<Rating> {
    let mut sum = i128::from(earlier.opponents_sum);
    let mut w = i128::from(earlier.score);
    let mut n = i128::from(earlier_games);
    games
        .iter()
        .map(|&(ri, h)| {
            sum += i128::from(ri);
            w += i128::from(h);
            n += 1;
            round_half_up(10 * sum + 2000 * w - 2000 * n + n * n, 10 * n) as Rating
        })
        .collect()
}

/// Rule 7.2 after each of the event's games: `Ro + Kr Σ Kt (Wi − Ei) + k/10` with the event's
/// Kr, rounded by 3.5. Exact in thousandths: `1000 Ro + Kr Σ Kt₁₀ (50 w − p) + 100 k`.
pub fn established_selo_after_each(
    ro: Rating,
    kr: i64,
    kt_tenths: i64,
    games: &[(Rating, u8)],
) -> Vec<Rating> {
    let mut acc = 1000 * i128::from(ro);
    games
        .iter()
        .map(|&(ri, h)| {
            let p = i128::from(p_selo(i64::from(ro) - i64::from(ri)));
            acc += i128::from(kr * kt_tenths) * (50 * i128::from(h) - p) + 100;
            round_half_up(acc, 1000) as Rating
        })
        .collect()
}

struct Participant {
    state: SslState,
    rated: bool,
    established: bool,
}

pub(super) fn rate(unit: &Unit<'_, Ssl>) -> UnitOutcome<SslState, Title> {
    let mut out = UnitOutcome::default();
    let Some(part) = unit.parts.first() else {
        return out;
    };
    let event = &unit.events[part.event];
    let seconds = seconds_for_60(event);
    let games = rated_games(event, part);
    let by_player = games_of(&games);
    let default = default_rating(event.age_limit);

    let mut people: BTreeMap<PlayerIdx, Participant> = BTreeMap::new();
    for &p in by_player.keys() {
        let info = &unit.players[p];
        let mut state = (unit.state)(p).cloned().unwrap_or_default();
        if !event.abroad {
            elo_correction(&mut state, info, event.start);
        }
        let rated = is_rated_in(event, info, &state);
        let established = state.selo_established();
        people.insert(
            p,
            Participant {
                state,
                rated,
                established,
            },
        );
    }
    let foreign = if event.abroad {
        let before = people.iter().map(|(&p, x)| (p, x.state.rating)).collect();
        foreign_ratings(event, unit.players, &by_player, &before)
    } else {
        BTreeMap::new()
    };

    // Rule 3.4: new players first; a new opponent counts with his Ro, or the 3.6 default.
    let as_seen_by_new = |o: PlayerIdx| -> Rating {
        foreign
            .get(&o)
            .copied()
            .unwrap_or_else(|| people[&o].state.rating.unwrap_or(default))
    };
    let mut new_ratings: BTreeMap<PlayerIdx, Rating> = BTreeMap::new();
    let mut rows: BTreeMap<PlayerIdx, (PlayerRating, SslState)> = BTreeMap::new();
    for (&p, person) in people.iter().filter(|(_, x)| x.rated && !x.established) {
        let opponents: Vec<(Rating, u8)> = by_player[&p]
            .iter()
            .map(|e| (as_seen_by_new(e.opponent), e.halves))
            .collect();
        let history = person.state.new_player_history();
        let after = new_selo_after_each(history, person.state.games, &opponents);
        new_ratings.insert(p, after.last().copied().unwrap_or(default));
        let ro = person.state.rating;
        let row = player_rating(p, part.event, ro, false, &by_player[&p], &opponents, &after);
        let mut state = advance(&person.state, &opponents, &after, seconds);
        if state.games <= 10 && !state.elo_corrected {
            let added: i64 = opponents.iter().map(|&(r, _)| i64::from(r)).sum();
            let score: Halves = opponents.iter().map(|&(_, h)| Halves::from(h)).sum();
            state.history = Some(History {
                opponents_sum: history.opponents_sum + added,
                score: history.score + score,
            });
        }
        rows.insert(p, (row, state));
    }

    // Rule 3.4: established players meet new ones at their new ratings.
    let as_seen_by_established = |o: PlayerIdx| -> Rating {
        if let Some(&r) = foreign.get(&o) {
            return r;
        }
        new_ratings
            .get(&o)
            .copied()
            .unwrap_or_else(|| people[&o].state.rating.unwrap_or(default))
    };
    for (&p, person) in people.iter().filter(|(_, x)| x.rated && x.established) {
        let ro = person.state.rating.unwrap_or(default);
        let opponents: Vec<(Rating, u8)> = by_player[&p]
            .iter()
            .map(|e| (as_seen_by_established(e.opponent), e.halves))
            .collect();
        let (kr, kt) = (kr(ro), kt_tenths(seconds, ro));
        let after = established_selo_after_each(ro, kr, kt, &opponents);
        let mut row = player_rating(
            p,
            part.event,
            Some(ro),
            true,
            &by_player[&p],
            &opponents,
            &after,
        );
        row.factors = Factors {
            k: Some(kr as u16),
            time_tenths: Some(kt as u8),
            ..Factors::default()
        };
        let state = advance(&person.state, &opponents, &after, seconds);
        rows.insert(p, (row, state));
    }

    for (p, (row, state)) in rows {
        if unit.players[p].is_finnish() {
            let held = (unit.awards)(p);
            let after: Vec<Rating> = row.after_game().collect();
            let normal = is_normal_time(seconds);
            let normal_before = people[&p].state.normal_games;
            for (title, _) in titles_reached(held, normal_before, normal, &after) {
                out.awards.push(Award {
                    player: p,
                    award: title,
                    date: Some(award_date(event)),
                    event: Some(event.id.clone()),
                });
            }
        }
        out.ratings.push(row);
        out.states.push((p, state));
    }
    out
}

/// The state after the event: the published rating, and the game counts of 3.1 and 6.2.
fn advance(before: &SslState, games: &[(Rating, u8)], after: &[Rating], seconds: u64) -> SslState {
    let k = games.len() as u32;
    SslState {
        rating: after.last().copied().or(before.rating),
        games: before.games + k,
        normal_games: before.normal_games + if is_normal_time(seconds) { k } else { 0 },
        history: None,
        elo_corrected: before.elo_corrected,
    }
}

#[allow(clippy::too_many_arguments)]
fn player_rating(
    player: PlayerIdx,
    event: usize,
    ro: Option<Rating>,
    established: bool,
    games: &[Encounter],
    opponents: &[(Rating, u8)],
    after: &[Rating],
) -> PlayerRating {
    let lines: Vec<GameLine> = games
        .iter()
        .zip(opponents)
        .zip(after)
        .map(|((e, &(ri, _)), &rating_after)| GameLine {
            round: e.round,
            opponent: e.opponent,
            halves: e.halves,
            opponent_rating: ri,
            expected: ro.map(|ro| p_selo(i64::from(ro) - i64::from(ri))),
            rating_after,
        })
        .collect();
    let score: Halves = opponents.iter().map(|&(_, h)| Halves::from(h)).sum();
    let ratings: Vec<Rating> = opponents.iter().map(|&(r, _)| r).collect();
    PlayerRating {
        player,
        event,
        old: ro,
        new: after.last().copied().unwrap_or_default(),
        established,
        games: opponents.len() as u32,
        score,
        expected: ro.map(|_| lines.iter().filter_map(|l| l.expected).map(i64::from).sum()),
        performance: if ratings.is_empty() {
            Performance::MinusInfinity
        } else {
            performance(&ratings, score)
        },
        factors: Factors {
            new_player: true,
            ..Factors::default()
        },
        lines,
        detail: (),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FideEntry, NationalEntry};

    fn date(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("test date")
    }

    #[test]
    fn rule_7_3_with_and_without_known_history() {
        // 6 earlier games, Σ 9150, 3 points; then 0/1700, 1/1580, ½/1650.
        let games = [(1700, 0), (1580, 2), (1650, 1)];
        let known = History {
            opponents_sum: 9150,
            score: 6,
        };
        assert_eq!(
            new_selo_after_each(known, 6, &games),
            vec![1522, 1555, 1565]
        );
        let unknown = History {
            opponents_sum: 9660,
            score: 6,
        };
        assert_eq!(
            new_selo_after_each(unknown, 6, &games),
            vec![1595, 1618, 1622]
        );
    }

    #[test]
    fn rule_7_3_exact_half_rounds_up() {
        // 7500/5 + 0 + 0.5 = 1500.5 -> 1501.
        let games = [(1400, 2), (1450, 2), (1500, 1), (1550, 0), (1600, 0)];
        let empty = History {
            opponents_sum: 0,
            score: 0,
        };
        assert_eq!(
            new_selo_after_each(empty, 0, &games),
            vec![1600, 1625, 1584, 1525, 1501]
        );
    }

    #[test]
    fn rule_7_2_exact_half_rounds_up_also_for_a_loss() {
        // 2100 loses to 2420: 2100 - 20 * 0.13 + 0.1 = 2097.5 -> 2098.
        assert_eq!(
            established_selo_after_each(2100, 20, 10, &[(2420, 0)]),
            vec![2098]
        );
        // 2100 draws 2113: 2100 + 20 * 0.02 + 0.1 = 2100.5 -> 2101.
        assert_eq!(
            established_selo_after_each(2100, 20, 10, &[(2113, 1)]),
            vec![2101]
        );
    }

    #[test]
    fn rule_7_2_kt_scales_every_game() {
        // Kr 35, Kt 0.5, win at D 0: 1800 + 8.75 + 0.1 = 1808.85 -> 1809.
        assert_eq!(
            established_selo_after_each(1800, 35, 5, &[(1800, 2)]),
            vec![1809]
        );
        assert_eq!(
            established_selo_after_each(1800, 35, 3, &[(1800, 0)]),
            vec![1795]
        );
    }

    fn foreigner(fide: Vec<FideEntry>) -> PlayerInfo {
        PlayerInfo {
            id: "f".into(),
            federation: Some("SWE".into()),
            fide,
            ..PlayerInfo::default()
        }
    }

    #[test]
    fn rule_3_7_elo_replaces_missing_or_lower_selo_once() {
        let list = |std| {
            vec![FideEntry {
                list_date: date("2025-01-01"),
                standard: Some(std),
                rapid: None,
                blitz: None,
            }]
        };
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
        let future = vec![FideEntry {
            list_date: date("2025-04-01"),
            standard: Some(2100),
            rapid: None,
            blitz: None,
        }];
        assert!(
            !elo_correction(&mut later, &foreigner(future), start),
            "a list after the start is not used"
        );
    }

    #[test]
    fn rule_2_2_who_is_rated_abroad() {
        let event = |abroad, official_representation| Event {
            id: "e".into(),
            name: String::new(),
            start: date("2025-03-01"),
            end: date("2025-03-01"),
            time_control: None,
            abroad,
            official_representation,
            age_limit: None,
            playoff_of: None,
            received: None,
            participants: Vec::new(),
            pairing: String::new(),
            games: vec![],
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
        let fide = |standard, rapid| FideEntry {
            list_date: date("2025-01-01"),
            standard,
            rapid,
            blitz: None,
        };
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
}
