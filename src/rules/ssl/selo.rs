//! Selo, the Finnish standard-play rating: new players first (3.4) by 7.3, established players
//! by 7.2, rounded by 3.5, with foreign players and events abroad as `foreign` reads them
//! (2.2, 3.7–3.9), and the titles reached (section 6).

use super::encounters::{Encounters, Slot};
use super::foreign::{abroad_ratings, elo_correction, is_rated_in};
use super::titles::titles_reached;
use super::{
    History, Rule, Ssl, SslState, Title, award_date, default_rating, is_normal_time, kr,
    seconds_for_60,
};
use crate::model::Rating;
use crate::rules::arith::round_half_up;
use crate::rules::expectation::p_capped;
use crate::rules::{Award, Factors, GameLine, Halves, PlayerRating, Unit, UnitOutcome};

/// Rule 7.3 after each of the event's games: `(1/N) Σ Ri + 400 (W/N − 1/2) + N/10` over all
/// the player's selo games so far (3.3), rounded by 3.5; before 2011 without `+ N/10` (seed
/// 001: "vastustajien selokeskiarvo + 4 * (prosenttitulos - 50)"). Exact: ×10N the numerator
/// is `10 Σ Ri + 2000 w − 2000 N + N²` with w in half points.
pub fn new_selo_after_each(
    rule: Rule,
    earlier: History,
    earlier_games: u32,
    games: &[(Rating, u8)],
) -> Vec<Rating> {
    let bonus = i128::from(rule.bonus());
    let mut sum = i128::from(earlier.opponents_sum);
    let mut w = i128::from(earlier.score);
    let mut n = i128::from(earlier_games);
    games
        .iter()
        .map(|&(ri, h)| {
            sum += i128::from(ri);
            w += i128::from(h);
            n += 1;
            round_half_up(10 * sum + 2000 * w - 2000 * n + bonus * n * n, 10 * n) as Rating
        })
        .collect()
}

/// Rule 7.2 after each of the event's games: `Ro + Kr Σ Kt (Wi − Ei) + k/10` with the event's
/// Kr, each Ei capped by the event's rule (7.9), rounded by 3.5; before 2011 without `+ k/10`
/// (seed 001: "selo = vanha selo + kerroin * (pisteet - odotustulos)"). Exact in ten
/// thousandths: `10000 Ro + Kr Σ Kt₁₀₀ (50 w − p) + 1000 k`.
pub fn established_selo_after_each(
    rule: Rule,
    ro: Rating,
    kr: i64,
    kt_hundredths: i64,
    games: &[(Rating, u8)],
) -> Vec<Rating> {
    let bonus = if rule.bonus() { 1000 } else { 0 };
    let cap = rule.expectation_cap();
    let mut acc = 10_000 * i128::from(ro);
    games
        .iter()
        .map(|&(ri, h)| {
            let p = i128::from(p_capped(i64::from(ro) - i64::from(ri), cap));
            acc += i128::from(kr * kt_hundredths) * (50 * i128::from(h) - p) + bonus;
            round_half_up(acc, 10_000) as Rating
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
    let rule = Rule::of(event);
    let seconds = seconds_for_60(event);
    let games = Encounters::of(event, part);
    let default = default_rating(event.age_limit);

    // Everything per participant is held by slot (ascending player order).
    let people: Vec<Participant> = games
        .players
        .iter()
        .map(|&p| {
            let info = &unit.players[p];
            let mut state = (unit.state)(p).cloned().unwrap_or_default();
            if !event.abroad {
                elo_correction(&mut state, info, event.start);
            }
            let rated = is_rated_in(event, info, &state);
            let established = state.selo_established_under(rule);
            Participant {
                state,
                rated,
                established,
            }
        })
        .collect();

    // Rule 3.4: new players first; a new opponent counts with his Ro, or the 3.6 default;
    // abroad, those without a selo who are not rated here at what 3.8–3.9 give them.
    let mut seen_by_new: Vec<Rating> = people
        .iter()
        .map(|x| x.state.rating.unwrap_or(default))
        .collect();
    if event.abroad {
        let before: Vec<Option<Rating>> = people.iter().map(|x| x.state.rating).collect();
        let foreign = abroad_ratings(event, unit.players, &games, &before);
        for (seen, foreign) in seen_by_new.iter_mut().zip(foreign) {
            *seen = foreign.unwrap_or(*seen);
        }
    }
    let mut opponents: Vec<(Rating, u8)> = Vec::new();
    let mut new_after: Vec<Option<Vec<Rating>>> = Vec::with_capacity(games.len());
    for (slot, person) in people.iter().enumerate() {
        new_after.push((person.rated && !person.established).then(|| {
            opponents.clear();
            opponents.extend(counted(&games, slot, &seen_by_new));
            new_selo_after_each(
                rule,
                person.state.new_player_history(),
                person.state.games,
                &opponents,
            )
        }));
    }

    // Rule 3.4: established players meet new ones at their new ratings.
    let seen_by_established: Vec<Rating> = seen_by_new
        .iter()
        .zip(&new_after)
        .map(|(&seen, after)| match after {
            Some(after) => after.last().copied().unwrap_or(default),
            None => seen,
        })
        .collect();

    let rated = people.iter().filter(|x| x.rated).count();
    out.ratings.reserve_exact(rated);
    out.states.reserve_exact(rated);
    let normal = is_normal_time(seconds);
    for ((slot, person), after) in people.iter().enumerate().zip(new_after) {
        if !person.rated {
            continue;
        }
        let p = games.players[slot];
        opponents.clear();
        let (row, state, after) = match after {
            Some(after) => {
                opponents.extend(counted(&games, slot, &seen_by_new));
                let ro = person.state.rating;
                let row = player_rating(
                    &games,
                    slot,
                    part.event,
                    (ro, rule),
                    false,
                    &opponents,
                    &after,
                );
                let mut state = advance(&person.state, &opponents, &after, seconds);
                if state.games <= 10 && !state.elo_corrected {
                    let history = person.state.new_player_history();
                    let added: i64 = opponents.iter().map(|&(r, _)| i64::from(r)).sum();
                    let score: Halves = opponents.iter().map(|&(_, h)| Halves::from(h)).sum();
                    state.history = Some(History {
                        opponents_sum: history.opponents_sum + added,
                        score: history.score + score,
                    });
                }
                (row, state, after)
            }
            None => {
                opponents.extend(counted(&games, slot, &seen_by_established));
                let ro = person.state.rating.unwrap_or(default);
                let (kr, kt) = (kr(ro), rule.kt_hundredths(seconds, ro));
                let after = established_selo_after_each(rule, ro, kr, kt, &opponents);
                let mut row = player_rating(
                    &games,
                    slot,
                    part.event,
                    (Some(ro), rule),
                    true,
                    &opponents,
                    &after,
                );
                row.factors = Factors {
                    k: Some(kr as u16),
                    time_hundredths: Some(kt as u8),
                    ..Factors::default()
                };
                let state = advance(&person.state, &opponents, &after, seconds);
                (row, state, after)
            }
        };

        // Section 6 sets no condition of federation: every player rated here reaches titles.
        if may_reach_a_title(&after) {
            let held = (unit.awards)(p);
            for (title, _) in titles_reached(held, person.state.normal_games, normal, &after) {
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

/// The participant's games as his calculation counts them: each opponent at his rating in
/// `ratings` (by slot), with the points in halves.
fn counted<'a>(
    games: &'a Encounters,
    slot: Slot,
    ratings: &'a [Rating],
) -> impl Iterator<Item = (Rating, u8)> + 'a {
    games
        .of_slot(slot)
        .iter()
        .map(|e| (ratings[e.opponent], e.halves))
}

/// Rules 6.3–6.5: a title asks at least the lowest of the titles' ratings (6.5: 1900); below it
/// after every game, none is reached whatever is held, and the titles held need not be looked up.
fn may_reach_a_title(after: &[Rating]) -> bool {
    let lowest = Title::ALL
        .into_iter()
        .map(|t| t.requirement().0)
        .min()
        .unwrap_or(Rating::MIN);
    after.iter().any(|&r| r >= lowest)
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

/// The row of the participant in `slot`: his games (`opponents` as his calculation counted
/// them) and his rating after each; his expectations from `ro` under the event's rule.
fn player_rating(
    games: &Encounters,
    slot: Slot,
    event: usize,
    (ro, rule): (Option<Rating>, Rule),
    established: bool,
    opponents: &[(Rating, u8)],
    after: &[Rating],
) -> PlayerRating {
    let lines: std::sync::Arc<[GameLine]> = games
        .of_slot(slot)
        .iter()
        .zip(opponents)
        .zip(after)
        .map(|((e, &(ri, _)), &rating_after)| GameLine {
            round: e.round,
            opponent: games.players[e.opponent] as u32,
            halves: e.halves,
            opponent_rating: ri,
            expected: ro.map(|ro| p_capped(i64::from(ro) - i64::from(ri), rule.expectation_cap())),
            rating_after,
        })
        .collect();
    let score: Halves = opponents.iter().map(|&(_, h)| Halves::from(h)).sum();
    PlayerRating {
        player: games.players[slot],
        event,
        old: ro,
        new: after.last().copied().unwrap_or_default(),
        established,
        games: opponents.len() as u32,
        score,
        expected: ro.map(|_| lines.iter().filter_map(|l| l.expected).map(i64::from).sum()),
        // Rule 7.6 over the lines' opponents and score, when shown.
        performance: None,
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

    #[test]
    fn a_title_may_be_reached_from_the_lowest_titles_rating_after_any_game() {
        assert!(!may_reach_a_title(&[]));
        assert!(!may_reach_a_title(&[1899]));
        assert!(may_reach_a_title(&[1900]));
        assert!(may_reach_a_title(&[1850, 1900]));
        assert!(
            may_reach_a_title(&[1900, 1850]),
            "an earlier game counts too"
        );
        assert!(!may_reach_a_title(&[1899, 1700, 1899]));
    }
    use crate::model::{Event, Game, GameResult, PlayerIdx, PlayerInfo, player_u32};
    use crate::rules::EventPart;

    use crate::model::fixture::day as date;

    /// An event of standard games, one a round, abroad or at home.
    fn event(abroad: bool, official_representation: bool, games: &[(usize, usize, &str)]) -> Event {
        let games = games
            .iter()
            .enumerate()
            .map(|(k, &(white, black, code))| Game {
                round: k as u32 + 1,
                board: 1,
                white: player_u32(white),
                black: Some(player_u32(black)),
                result: GameResult::parse(code),
                date: None,
                received: None,
            })
            .collect();
        Event {
            abroad,
            official_representation,
            ..super::super::standard_event(games)
        }
    }

    /// Rates one event on selo with the players' states before it (no titles held).
    fn rate_event(
        event: &Event,
        players: &[PlayerInfo],
        states: &[Option<SslState>],
    ) -> UnitOutcome<SslState, Title> {
        let parts = [EventPart {
            event: 0,
            games: (0..event.games.len()).collect(),
        }];
        let events = std::slice::from_ref(event);
        let state = |p: PlayerIdx| states[p].as_ref();
        let awards = |_: PlayerIdx| -> &[Award<Title>] { &[] };
        let state_on = |_: PlayerIdx, _: crate::rules::ListId| -> Option<&SslState> { None };
        let key = crate::rules::UnitKey {
            date: event.end,
            second: event.start,
            tag: event.id.as_str().into(),
        };
        rate(&Unit {
            key: &key,
            state_on: &state_on,
            list: super::super::SELO,
            parts: &parts,
            events,
            players,
            state: &state,
            awards: &awards,
        })
    }

    fn row(out: &UnitOutcome<SslState, Title>, p: PlayerIdx) -> &PlayerRating {
        out.ratings
            .iter()
            .find(|r| r.player == p)
            .expect("a rated player")
    }

    /// Section 6 sets no condition of federation (2.1 speaks of players registered in Finland,
    /// who may represent another federation): a Swede with a selo reaches I like a Finn.
    /// s1 1890 (Kr 30, 40 normal games) beats b 1890: 1890 + 15 + 0.1 = 1905.1 → 1905 with 41.
    #[test]
    fn rule_6_5_a_player_of_any_federation_reaches_a_title() {
        let players = vec![
            PlayerInfo {
                id: "s1".into(),
                federation: Some("SWE".into()),
                ..PlayerInfo::default()
            },
            PlayerInfo {
                id: "b".into(),
                ..PlayerInfo::default()
            },
        ];
        let state = |rating, games| {
            Some(SslState {
                rating: Some(rating),
                games,
                normal_games: games,
                ..SslState::default()
            })
        };
        let states = vec![state(1890, 40), state(1890, 50)];
        let out = rate_event(&event(false, false, &[(0, 1, "1-0")]), &players, &states);
        assert_eq!(row(&out, 0).new, 1905);
        let awards: Vec<(PlayerIdx, Title)> =
            out.awards.iter().map(|a| (a.player, a.award)).collect();
        assert_eq!(awards, vec![(0, Title::I)]);
        assert_eq!(
            out.awards[0].date,
            Some(date("2025-06-03")),
            "the event's end (5.8)"
        );
    }

    /// 3.8's worked example: F (2000, Kr 25) beats N, a Finn without a selo, and draws U, an
    /// unrated foreigner; N beats U. N counts "as in a domestic event", at the rating this
    /// event's calculation gives him: U = 1739 and N = 1869.4 at the fixed point of 3.9's
    /// recursion; F meets N at 1869 (p 68) and U at 1739 (p 82):
    /// 2000 + 25 (1.5 − 1.50) + 0.2 = 2000.2 → 2000 (at the 3.6 default 1525 it was 1994).
    #[test]
    fn rule_3_8_a_finn_without_a_selo_abroad_counts_at_this_events_rating() {
        let (f, n, u) = (0, 1, 2);
        let players = vec![
            PlayerInfo {
                id: "F".into(),
                ..PlayerInfo::default()
            },
            PlayerInfo {
                id: "N".into(),
                ..PlayerInfo::default()
            },
            PlayerInfo {
                id: "U".into(),
                federation: Some("GER".into()),
                ..PlayerInfo::default()
            },
        ];
        let states = vec![
            Some(SslState {
                rating: Some(2000),
                games: 50,
                normal_games: 50,
                ..SslState::default()
            }),
            None,
            None,
        ];
        let games = [(f, n, "1-0"), (u, f, "1/2-1/2"), (n, u, "1-0")];
        let out = rate_event(&event(true, false, &games), &players, &states);
        assert_eq!(out.ratings.len(), 1, "only F is rated abroad (2.2)");
        let fr = row(&out, f);
        let seen: Vec<(PlayerIdx, Rating, Option<u8>)> = fr
            .lines
            .iter()
            .map(|l| (l.opponent(), l.opponent_rating, l.expected))
            .collect();
        assert_eq!(seen, vec![(n, 1869, Some(68)), (u, 1739, Some(82))]);
        assert_eq!(fr.expected, Some(150));
        assert_eq!(fr.new, 2000);
        assert_eq!(fr.after_game().collect::<Vec<_>>(), vec![2008, 2000]);

        // On an SSL assignment N is rated (2.2), as a new player by 7.3 with U at 1739:
        // (2000 + 1739) / 2 + 400 (1/2 − 1/2) + 2/10 = 1869.7 → 1870, and F meets him at
        // that rating (3.4): D 130, p 68, F still 2000.
        let out = rate_event(&event(true, true, &games), &players, &states);
        assert_eq!(row(&out, n).new, 1870);
        assert_eq!(row(&out, f).lines[0].opponent_rating, 1870);
        assert_eq!(row(&out, f).new, 2000);

        // The same games at home: N and U are new players, rated first by 7.3, and F meets
        // each at his new rating (3.4).
        let out = rate_event(&event(false, false, &games), &players, &states);
        assert_eq!(row(&out, f).lines[1].opponent_rating, row(&out, u).new);
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
            new_selo_after_each(Rule::Current, known, 6, &games),
            vec![1522, 1555, 1565]
        );
        let unknown = History {
            opponents_sum: 9660,
            score: 6,
        };
        assert_eq!(
            new_selo_after_each(Rule::Current, unknown, 6, &games),
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
            new_selo_after_each(Rule::Current, empty, 0, &games),
            vec![1600, 1625, 1584, 1525, 1501]
        );
    }

    #[test]
    fn rule_7_2_exact_half_rounds_up_also_for_a_loss() {
        // 2100 loses to 2420: 2100 - 20 * 0.13 + 0.1 = 2097.5 -> 2098.
        assert_eq!(
            established_selo_after_each(Rule::Current, 2100, 20, 100, &[(2420, 0)]),
            vec![2098]
        );
        // 2100 draws 2113: 2100 + 20 * 0.02 + 0.1 = 2100.5 -> 2101.
        assert_eq!(
            established_selo_after_each(Rule::Current, 2100, 20, 100, &[(2113, 1)]),
            vec![2101]
        );
    }

    #[test]
    fn rule_7_2_kt_scales_every_game() {
        // Kr 35, Kt 0.5, win at D 0: 1800 + 8.75 + 0.1 = 1808.85 -> 1809.
        assert_eq!(
            established_selo_after_each(Rule::Current, 1800, 35, 50, &[(1800, 2)]),
            vec![1809]
        );
        assert_eq!(
            established_selo_after_each(Rule::Current, 1800, 35, 30, &[(1800, 0)]),
            vec![1795]
        );
    }

    #[test]
    fn before_2011_the_cap_is_85_and_no_bonus_is_given() {
        let old = Rule::Before2011;
        // D 302 reads H 85, D 303 reads 86 capped at 85: 2000 + 25 × 0.15 = 2003.75 → 2004,
        // then + 25 × 0.15 = 2007.5 → 2008 (seed 001). The 2023 rule: + 0.1 a game and the
        // second game's 86: 2003.85 → 2004, then 2000 + 25 × 0.29 + 0.2 = 2007.45 → 2007.
        assert_eq!(
            established_selo_after_each(old, 2000, 25, 100, &[(1698, 2), (1697, 2)]),
            vec![2004, 2008]
        );
        assert_eq!(
            established_selo_after_each(Rule::Current, 2000, 25, 100, &[(1698, 2), (1697, 2)]),
            vec![2004, 2007]
        );
        // The weaker side reads L unchanged: 1600 − 45 × 0.08 = 1596.4 → 1596 (2023: 1597).
        assert_eq!(
            established_selo_after_each(old, 1600, 45, 100, &[(2000, 0)]),
            vec![1596]
        );
        // Kt 0.15 of a player rated 2300 in a 15–59-minute game: 2300 + 20 × 0.15 × 0.5.
        assert_eq!(
            established_selo_after_each(old, 2300, 20, 15, &[(2300, 2)]),
            vec![2302]
        );
    }

    #[test]
    fn before_2011_a_new_players_selo_has_no_bonus() {
        // 4 games against 1600, 2 points: 1600 + 400 × (2/4 − 1/2) = 1600 (2023: 1600.4).
        let empty = History {
            opponents_sum: 0,
            score: 0,
        };
        let games = [(1600, 2), (1600, 2), (1600, 0), (1600, 0)];
        assert_eq!(
            new_selo_after_each(Rule::Before2011, empty, 0, &games),
            vec![1800, 1800, 1667, 1600]
        );
    }
}
