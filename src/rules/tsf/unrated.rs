//! Players without a UKD: their performance in one event — Swiss (B.3.a–b, Formula 2) or Berger
//! (B.4.b–d, Formulas 5 and 6) — the archive of those performances (B.3.f, B.1.g) and the first
//! UKD once seven games are archived (B.1.f).

use serde::{Deserialize, Serialize};

use super::tables::{average, dp_for_score, floor_1000, within_350};
use crate::model::Rating;
use crate::rules::Halves;
use crate::rules::arith::round_half_up;

/// B.1.b: the preliminary rating (GKD) of every unrated player when no rated player played.
pub const GKD_WITHOUT_RATED: Rating = 800;

/// B.3.a(2): unrated players start 300 below the rated players' average.
pub const BELOW_AVERAGE: Rating = 300;

/// B.1.f: the games an archive needs before the player's UKD is published.
pub const GAMES_FOR_UKD: u32 = 7;

/// What an unrated player's row publishes for one event.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnratedFigures {
    pub games: u32,
    pub score: Halves,
    /// Swiss: Ro, the average of his opponents' ratings through the 350 rule; Berger: none.
    pub opponents: Option<Rating>,
    /// Table 1 for his score fraction.
    pub dp: i32,
    pub performance: Rating,
}

/// B.3.a, B.1.b: the preliminary rating every unrated player of a Swiss event counts with — the
/// average of the rated players who played, minus 300; 800 when no rated player played.
///
/// Reading: B.1.b's GKD of 800 "at the start of the event" is read as the start of B.3.a's
/// calculation when it has no rated average to start from; with one, B.3.a(2) gives the figure.
pub fn preliminary(rated_average: Option<Rating>) -> Rating {
    rated_average.map_or(GKD_WITHOUT_RATED, |avg| avg - BELOW_AVERAGE)
}

/// B.3.b, Formula 2: `P = Ro + dp` — Ro the average of his opponents' ratings (an unrated
/// opponent's preliminary rating; each through the 350 rule against his own preliminary rating,
/// B.1.i), dp from Table 1 for his score fraction. `opponents` holds the rating each opponent
/// counted with, one per game; `score` is in half points.
pub fn swiss_performance(own: Rating, opponents: &[Rating], score: Halves) -> UnratedFigures {
    let games = opponents.len() as u32;
    let ro = average(opponents.iter().map(|&r| within_350(own, r))).unwrap_or(own);
    let dp = dp_for_score(score, games);
    UnratedFigures {
        games,
        score,
        opponents: Some(ro),
        dp,
        performance: ro + dp,
    }
}

/// B.4.c, Formula 5: `To = Ra − 400 × (2 s / N − 1) × (m − 1) / m`, Ra the rated players'
/// average (already rounded), s their points (here in half points: `2 s` = `s_halves`) and N
/// their games in the event, m the players; rounded half up, as every average. `None` without
/// rated games.
pub fn tournament_average(ra: Rating, s_halves: Halves, n: u32, m: u32) -> Option<Rating> {
    if n == 0 || m == 0 {
        return None;
    }
    let (s, n, m) = (i128::from(s_halves), i128::from(n), i128::from(m));
    let num = i128::from(ra) * n * m - 400 * (s - n) * (m - 1);
    Some(round_half_up(num, n * m) as Rating)
}

/// B.4.d, Formula 6: `P = To + (m − 1) × dp / m`, dp from Table 1 for his score fraction;
/// rounded half up.
pub fn berger_performance(to: Rating, m: u32, games: u32, score: Halves) -> UnratedFigures {
    let dp = dp_for_score(score, games);
    let m = i128::from(m.max(1));
    let performance = round_half_up(i128::from(to) * m + (m - 1) * i128::from(dp), m) as Rating;
    UnratedFigures {
        games,
        score,
        opponents: None,
        dp,
        performance,
    }
}

/// B.3.f, B.1.g: one archived performance of a player without a UKD.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Archived {
    pub performance: Rating,
    pub games: u32,
    /// The event that gave it, where known.
    pub event: Option<String>,
}

/// The games an archive holds.
pub fn archived_games(archive: &[Archived]) -> u32 {
    archive.iter().map(|a| a.games).sum()
}

/// B.1.f: once the archive holds at least seven games, the UKD is the weighted average of the
/// archived performances, rounded half up, at least 1000 (B.1.c); `None` before.
///
/// Reading: "ağırlıklı ortalama" (weighted average) is weighted by the games each performance
/// was made in — the only weight the archive of B.1.g records besides the performance.
pub fn first_ukd(archive: &[Archived]) -> Option<Rating> {
    let games = archived_games(archive);
    if games < GAMES_FOR_UKD {
        return None;
    }
    let sum: i128 = archive
        .iter()
        .map(|a| i128::from(a.performance) * i128::from(a.games))
        .sum();
    Some(floor_1000(round_half_up(sum, i128::from(games))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archived(performance: Rating, games: u32) -> Archived {
        Archived {
            performance,
            games,
            event: None,
        }
    }

    #[test]
    fn b_3_a_preliminary_300_below_the_rated_average_or_gkd_800() {
        assert_eq!(preliminary(Some(1733)), 1433);
        assert_eq!(preliminary(None), 800);
    }

    #[test]
    fn b_3_b_formula_2_with_the_350_rule_against_the_preliminary() {
        // u2 (1433): 1433, 1433, 1500, 1700, a 2000 → 1783; 3.5 / 5 = .70: 149.
        let f = swiss_performance(1433, &[1433, 1433, 1500, 1700, 2000], 7);
        assert_eq!(f.opponents, Some(1570));
        assert_eq!(f.dp, 149);
        assert_eq!(f.performance, 1719);
        assert_eq!((f.games, f.score), (5, 7));
        // u3: 7499 / 5 = 1499.8 → 1500; .30: −149.
        let f = swiss_performance(1433, &[1433, 1433, 1433, 1500, 1700], 3);
        assert_eq!((f.opponents, f.dp, f.performance), (Some(1500), -149, 1351));
    }

    #[test]
    fn b_1_b_everybody_unrated_counts_800() {
        let f = swiss_performance(800, &[800; 5], 10);
        assert_eq!((f.opponents, f.dp, f.performance), (Some(800), 400, 1200));
        let f = swiss_performance(800, &[800; 5], 4);
        assert_eq!((f.dp, f.performance), (-72, 728));
    }

    #[test]
    fn b_4_formula_5_tournament_average() {
        // Ra 1650, s 10 of N 20: 2s/N − 1 = 0: To = Ra.
        assert_eq!(tournament_average(1650, 20, 20, 6), Some(1650));
        // s 12 of 20: 400 × 0.2 × 5/6 = 66.67: 1583.33 → 1583.
        assert_eq!(tournament_average(1650, 24, 20, 6), Some(1583));
        // s 8 of 20: 1716.67 → 1717.
        assert_eq!(tournament_average(1650, 16, 20, 6), Some(1717));
        // s 1.5 of 2, m 8: 400 × .5 × 7/8 = 175.
        assert_eq!(tournament_average(1600, 3, 2, 8), Some(1425));
        // Exact halves: s 8.5 of 16, m 2: 400 × (1/16) × 1/2 = 12.5 → 1587.5 → 1588; s 7.5:
        // 1612.5 → 1613.
        assert_eq!(tournament_average(1600, 17, 16, 2), Some(1588));
        assert_eq!(tournament_average(1600, 15, 16, 2), Some(1613));
        assert_eq!(tournament_average(1600, 0, 0, 6), None);
    }

    #[test]
    fn b_4_formula_6_performance_rounded_half_up() {
        // u0: To 1650, .90 → 320: 1650 + 5 × 320 / 6 = 1916.67 → 1917.
        let f = berger_performance(1650, 6, 5, 9);
        assert_eq!((f.opponents, f.dp, f.performance), (None, 320, 1917));
        // u1: .10 → −320: 1383.33 → 1383.
        assert_eq!(berger_performance(1650, 6, 5, 1).performance, 1383);
        // m 2, dp 7 (.51 of 100 games): 1650 + 3.5 = 1653.5 → 1654.
        assert_eq!(berger_performance(1650, 2, 100, 102).performance, 1654);
        // m 2, dp −7: 1646.5 → 1647 (halves go up).
        assert_eq!(berger_performance(1650, 2, 100, 98).performance, 1647);
    }

    #[test]
    fn b_1_f_six_games_no_ukd_seven_games_ukd() {
        let six = [archived(1400, 1), archived(1540, 5)];
        assert_eq!(archived_games(&six), 6);
        assert_eq!(first_ukd(&six), None);
        let seven = [archived(1500, 2), archived(1540, 5)];
        assert_eq!(first_ukd(&seven), Some(1529)); // 10700 / 7 = 1528.57
        let eight = [archived(1450, 3), archived(1719, 5)];
        assert_eq!(first_ukd(&eight), Some(1618)); // 12945 / 8 = 1618.1
    }

    #[test]
    fn b_1_f_weighted_average_rounded_half_up_and_floor_1000() {
        // 999.5 → 1000; 999.4 → 999 → 1000; 1000.5 → 1001.
        assert_eq!(
            first_ukd(&[archived(999, 4), archived(1000, 4)]),
            Some(1000)
        );
        assert_eq!(
            first_ukd(&[archived(999, 6), archived(1000, 4)]),
            Some(1000)
        );
        assert_eq!(
            first_ukd(&[archived(1000, 4), archived(1001, 4)]),
            Some(1001)
        );
        assert_eq!(first_ukd(&[archived(728, 5), archived(900, 2)]), Some(1000));
    }
}
