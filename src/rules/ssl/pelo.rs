//! Pelo, the Finnish quick-play rating (section 4): established players by 7.4, new players by
//! a temporary rating (7.5, 4.3, 4.4) and then 7.4.

use super::encounters::Encounters;
use super::{Ssl, SslState, Title, default_rating};
use crate::model::Rating;
use crate::rules::arith::{round_half_up, round_half_up_f64};
use crate::rules::expectation::p_table;
use crate::rules::{Factors, GameLine, Halves, PlayerRating, Unit, UnitOutcome};

/// Rule 7.5 with 4.3: the temporary rating `(1/N) Σ Ri + 800 (W/N − 1/2)` over the games against
/// pelo-rated opponents, rounded (3.5). Exact: ×N the numerator is `Σ Ri + 400 w − 400 N` with
/// w in half points. `None` without such games.
pub fn temporary_rating(games_vs_rated: &[(Rating, u8)]) -> Option<Rating> {
    if games_vs_rated.is_empty() {
        return None;
    }
    let n = games_vs_rated.len() as i128;
    let sum: i128 = games_vs_rated.iter().map(|&(r, _)| i128::from(r)).sum();
    let w: i128 = games_vs_rated.iter().map(|&(_, h)| i128::from(h)).sum();
    Some(round_half_up(sum + 400 * w - 400 * n, n) as Rating)
}

/// Rule 7.4: `Ro + 200 sgn(W − E) (1 − e^(−|W − E| / 10))` after each game, with p uncapped,
/// rounded (3.5). `W − E` is exact (hundredths); only e^x is a float.
pub fn pelo_after_each(ro: Rating, games: &[(Rating, u8)]) -> Vec<Rating> {
    let mut diff_hundredths: i64 = 0;
    games
        .iter()
        .map(|&(ri, h)| {
            diff_hundredths +=
                50 * i64::from(h) - i64::from(p_table(i64::from(ro) - i64::from(ri)));
            let change = 200.0 * (1.0 - (-(diff_hundredths.abs() as f64) / 1000.0).exp());
            let signed = if diff_hundredths < 0 { -change } else { change };
            round_half_up_f64(f64::from(ro) + signed) as Rating
        })
        .collect()
}

pub(super) fn rate(unit: &Unit<'_, Ssl>) -> UnitOutcome<SslState, Title> {
    let mut out = UnitOutcome::default();
    let Some(part) = unit.parts.first() else {
        return out;
    };
    let event = &unit.events[part.event];
    let games = Encounters::of(event, part);
    let default = default_rating(event.age_limit);
    // Everything per participant is held by slot (ascending player order).
    let none = SslState::default();
    let states: Vec<&SslState> = games
        .players
        .iter()
        .map(|&p| (unit.state)(p).unwrap_or(&none))
        .collect();
    let established: Vec<bool> = states.iter().map(|s| s.pelo_established()).collect();

    // Rules 4.3 and 4.4: temporary ratings first; with no pelo-rated opponent (in particular in
    // an event of new players only) the 3.6 default.
    let mut vs_rated: Vec<(Rating, u8)> = Vec::new();
    let start: Vec<Rating> = (0..games.len())
        .map(|slot| {
            if established[slot] {
                states[slot].rating.unwrap_or(default)
            } else {
                vs_rated.clear();
                vs_rated.extend(
                    games
                        .of_slot(slot)
                        .iter()
                        .filter(|e| established[e.opponent])
                        .map(|e| (states[e.opponent].rating.unwrap_or(default), e.halves)),
                );
                temporary_rating(&vs_rated).unwrap_or(default)
            }
        })
        .collect();

    out.ratings.reserve_exact(games.len());
    out.states.reserve_exact(games.len());
    let mut opponents: Vec<(Rating, u8)> = Vec::new();
    for (slot, &p) in games.players.iter().enumerate() {
        let encounters = games.of_slot(slot);
        let ro = start[slot];
        opponents.clear();
        opponents.extend(encounters.iter().map(|e| (start[e.opponent], e.halves)));
        let after = pelo_after_each(ro, &opponents);
        let lines: std::sync::Arc<[GameLine]> = encounters
            .iter()
            .zip(&opponents)
            .zip(&after)
            .map(|((e, &(ri, _)), &rating_after)| GameLine {
                round: e.round,
                opponent: games.players[e.opponent] as u32,
                halves: e.halves,
                opponent_rating: ri,
                expected: Some(p_table(i64::from(ro) - i64::from(ri))),
                rating_after,
            })
            .collect();
        let score: Halves = encounters.iter().map(|e| Halves::from(e.halves)).sum();
        let was_established = established[slot];
        let new = after.last().copied().unwrap_or(ro);
        out.ratings.push(PlayerRating {
            player: p,
            event: part.event,
            old: was_established.then_some(ro),
            new,
            established: was_established,
            games: encounters.len() as u32,
            score,
            expected: Some(lines.iter().filter_map(|l| l.expected).map(i64::from).sum()),
            // Rule 7.6 over the lines' opponents and score, when shown.
            performance: None,
            factors: Factors {
                temporary: (!was_established).then_some(ro),
                ..Factors::default()
            },
            lines,
            detail: (),
        });
        let before = states[slot];
        out.states.push((
            p,
            SslState {
                rating: Some(new),
                games: before.games + encounters.len() as u32,
                normal_games: before.normal_games,
                history: None,
                elo_corrected: before.elo_corrected,
            },
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_7_5_temporary_rating() {
        // Drew 1800, beat 1600: 1700 + 800 (0.75 - 0.5) = 1900.
        assert_eq!(temporary_rating(&[(1800, 1), (1600, 2)]), Some(1900));
        assert_eq!(temporary_rating(&[(1600, 0), (1800, 0)]), Some(1300));
        assert_eq!(temporary_rating(&[]), None);
        // Exact half: (1601 + 1600)/2 + 0 = 1600.5 -> 1601.
        assert_eq!(temporary_rating(&[(1601, 1), (1600, 1)]), Some(1601));
    }

    #[test]
    fn rule_7_4_change_is_below_200_and_symmetric() {
        assert_eq!(pelo_after_each(1800, &[(1800, 2)]), vec![1810]);
        assert_eq!(pelo_after_each(1800, &[(1800, 0)]), vec![1790]);
        assert_eq!(
            pelo_after_each(1800, &[(1800, 1)]),
            vec![1800],
            "sgn(0) = 0"
        );
        let many = vec![(1000, 2); 400];
        assert!(pelo_after_each(2000, &many).iter().all(|&r| r < 2200));
    }

    #[test]
    fn rule_7_4_no_cap_on_p() {
        // D 400 -> 92 (selo would cap it too, but D 500 -> 96 is uncapped here).
        assert_eq!(pelo_after_each(2000, &[(1500, 2)]), vec![2001]); // W-E 0.04 -> +0.798
    }
}
