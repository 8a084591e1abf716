//! A rated player's change in one event (B.3.c–e, Formulas 3 and 4), the same in Swiss and
//! Berger events: against rated opponents by Table 2 over their average, against unrated ones a
//! tenth of k a game.

use serde::{Deserialize, Serialize};

use super::tables::{average, k, p_d, within_350};
use crate::model::Rating;
use crate::rules::Halves;

/// One game of a rated player: the opponent's rating if he was rated in the event, and the
/// player's score in half points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RatedGame {
    pub opponent: Option<Rating>,
    pub halves: u8,
}

/// What a rated player's row publishes for one event.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatedFigures {
    /// B.3.d: the change coefficient by his rating.
    pub k: i64,
    pub games: u32,
    pub score: Halves,
    /// Games against rated opponents, and the points in them (n and W of Formulas 3–4).
    pub rated_games: u32,
    pub rated_score: Halves,
    /// The average of his rated opponents' ratings, each through the 350 rule.
    pub opponents: Option<Rating>,
    /// We = n × P_D, in hundredths.
    pub expected: Option<i64>,
    pub unrated_games: u32,
    /// B.3.e: Σ ±0.1 k against unrated opponents, in hundredths.
    pub bonus: i64,
    /// ΔD = k (W − We) + bonus, in hundredths.
    pub change: i64,
}

/// B.3.e: a game against an unrated opponent — a win `+0.1 k`, a loss `−0.1 k`, a draw 0; in
/// hundredths. A player who scores ½ (½–0) has drawn, one who scores 0 (0–0, 0–½) has lost.
pub fn unrated_bonus(k: i64, halves: u8) -> i64 {
    match halves {
        2.. => 10 * k,
        1 => 0,
        0 => -10 * k,
    }
}

/// B.3.c–e, Formulas 3 and 4: a rated player's change in one event.
///
/// His opponents' ratings go through the 350 rule (B.1.i) against his own before their average
/// is formed (rounded, see [`average`]); `We = n × P_D` with P_D from Table 2 for
/// `D = own − average` and n the number of games against rated opponents (Formula 3 says "Oyuncu
/// Sayısı", number of players: read as the games, as W counts the points of those games);
/// `ΔD = k (W − We)`, plus ±0.1 k for each decisive game against an unrated opponent.
pub fn rated_change(own: Rating, games: &[RatedGame]) -> RatedFigures {
    let k = k(own);
    let mut figures = RatedFigures {
        k,
        ..RatedFigures::default()
    };
    let mut opponents = Vec::new();
    for g in games {
        figures.games += 1;
        figures.score += Halves::from(g.halves);
        match g.opponent {
            Some(r) => {
                figures.rated_games += 1;
                figures.rated_score += Halves::from(g.halves);
                opponents.push(within_350(own, r));
            }
            None => {
                figures.unrated_games += 1;
                figures.bonus += unrated_bonus(k, g.halves);
            }
        }
    }
    figures.opponents = average(opponents);
    let rated_part = figures.opponents.map_or(0, |avg| {
        let expected = i64::from(figures.rated_games) * p_d(i64::from(own) - i64::from(avg));
        figures.expected = Some(expected);
        k * (50 * i64::from(figures.rated_score) - expected)
    });
    figures.change = rated_part + figures.bonus;
    figures
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(opponent: Option<Rating>, halves: u8) -> RatedGame {
        RatedGame { opponent, halves }
    }

    #[test]
    fn b_3_c_d_formulas_3_and_4_with_the_350_rule() {
        // a (2000, k 15): b 1500 → 1650, c 1700: 1675, D 325, P_D .87, We 1.74, W 1.5;
        // three wins against unrated players: +4.5; change 0.9.
        let f = rated_change(
            2000,
            &[
                g(Some(1500), 2),
                g(None, 2),
                g(Some(1700), 1),
                g(None, 2),
                g(None, 2),
            ],
        );
        assert_eq!(f.k, 15);
        assert_eq!((f.games, f.score), (5, 9));
        assert_eq!((f.rated_games, f.rated_score), (2, 3));
        assert_eq!(f.opponents, Some(1675));
        assert_eq!(f.expected, Some(174));
        assert_eq!(f.unrated_games, 3);
        assert_eq!(f.bonus, 450);
        assert_eq!(f.change, 90);
    }

    #[test]
    fn b_1_i_opponents_350_exactly_and_351_away() {
        // 1300 against 1650 (350: counts) and 1651 (351: counts as 1650).
        let at = rated_change(1300, &[g(Some(1650), 1)]);
        let past = rated_change(1300, &[g(Some(1651), 1)]);
        assert_eq!(at.opponents, Some(1650));
        assert_eq!(past.opponents, Some(1650));
        assert_eq!(at.expected, Some(11));
        assert_eq!(past.change, at.change);
    }

    #[test]
    fn b_3_e_wins_losses_and_draws_against_unrated() {
        assert_eq!(unrated_bonus(20, 2), 200);
        assert_eq!(unrated_bonus(20, 1), 0);
        assert_eq!(unrated_bonus(20, 0), -200);
        let f = rated_change(1650, &[g(None, 0), g(None, 0), g(Some(1700), 1)]);
        assert_eq!(f.bonus, -400);
        assert_eq!(f.expected, Some(43));
        assert_eq!(f.change, 20 * (50 - 43) - 400);
    }

    #[test]
    fn b_3_c_only_unrated_opponents_give_no_expectation() {
        let f = rated_change(1800, &[g(None, 2), g(None, 1)]);
        assert_eq!(f.opponents, None);
        assert_eq!(f.expected, None);
        assert_eq!(f.change, 200);
    }

    #[test]
    fn b_3_d_k_follows_the_band_of_the_rating_counted_with() {
        // 1299 (k 30) against five draws: 1559 average, D −260: .18, We .90, change +48.
        let games: Vec<RatedGame> = [1300, 1599, 1600, 2399, 2400]
            .into_iter()
            .map(|r| g(Some(r), 1))
            .collect();
        let f = rated_change(1299, &games);
        assert_eq!(f.k, 30);
        assert_eq!(f.opponents, Some(1559));
        assert_eq!(f.expected, Some(90));
        assert_eq!(f.change, 4800);
        let games: Vec<RatedGame> = [1299, 1300, 1599, 1600, 2399]
            .into_iter()
            .map(|r| g(Some(r), 1))
            .collect();
        let f = rated_change(2400, &games);
        assert_eq!((f.k, f.opponents, f.expected), (10, Some(2120), Some(420)));
        assert_eq!(f.change, -1700);
    }
}
