//! ISL initial ratings ("Fyrstu stig skákmanna", forstig): an unrated player's games against
//! rated opponents accumulate over periods until he has at least five and a point; then his
//! first rating is computed from all of them by Rc, his score and Dp (read from Tafla 2).

use serde::{Deserialize, Serialize};

use crate::model::Rating;
use crate::rules::Halves;
use crate::rules::arith::round_half_up;

use super::rated::FLOOR;

/// "Stigin eru þó ekki birt fyrr en skákmaðurinn hefur teflt að minnsta kosti 5 skákir á móti
/// andstæðingum með stig": the games an initial rating needs.
pub const MIN_GAMES: u32 = 5;

/// "… og hlotið einn vinning": the score it needs, in half points (two draws make a point).
pub const MIN_HALVES: Halves = 2;

/// An unrated player's games against rated opponents so far ("Skákirnar fimm þurfa ekki að
/// teflast í sama mótinu, heldur safnast þær upp").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provisional {
    pub games: u32,
    /// Σ of the opponents' ratings, each at the start of the game's period (one met twice
    /// counts twice).
    pub opponents_sum: i64,
    /// His score in those games, in half points.
    pub score: Halves,
}

impl Provisional {
    /// Adds one game against an opponent rated `opponent` in which he scored `halves`.
    pub fn add(&mut self, opponent: Rating, halves: u8) {
        self.games += 1;
        self.opponents_sum += i64::from(opponent);
        self.score += Halves::from(halves);
    }

    /// ISL Fyrstu stig: "að minnsta kosti 5 skákir á móti andstæðingum með stig og hlotið einn
    /// vinning" — at least 5 games and at least 1 point. The original also says "teflt við
    /// a.m.k. fimm andstæðinga með stig" (five rated opponents); the games are what it counts
    /// ("Skákirnar fimm … safnast þær upp"), so an opponent met twice counts twice.
    pub fn qualifies(&self) -> bool {
        self.games >= MIN_GAMES && self.score >= MIN_HALVES
    }
}

/// Dp by the score percentage .00–.50 (index = hundredths): Tafla 2 read backwards from column
/// L, each band's middle taken towards zero (FIDE's table 8.1a of the same years); .50 → 0 and
/// .00 → −800, where the table has no band end.
const DP: [i32; 51] = [
    -800, -677, -589, -538, -501, -470, -444, -422, -401, -383, -366, -351, -336, -322, -309, -296,
    -284, -273, -262, -251, -240, -230, -220, -211, -202, -193, -184, -175, -166, -158, -149, -141,
    -133, -125, -117, -110, -102, -95, -87, -80, -72, -65, -57, -50, -43, -36, -29, -21, -14, -7,
    0,
];

/// ISL Dp: "Tala lesin úr töflu 2 miðað við vinningshlutfall í forstigs skákum skákmanns" —
/// for a score percentage of at most 50 (in hundredths, already rounded).
pub fn dp(percent: u32) -> i32 {
    DP.get(percent as usize).copied().unwrap_or(0)
}

/// The score fraction `halves / (2 games)` rounded half up to two decimals, in hundredths.
pub fn score_percent(halves: Halves, games: u32) -> u32 {
    if games == 0 {
        return 0;
    }
    round_half_up(50 * i128::from(halves), i128::from(games)).max(0) as u32
}

/// ISL Rforstig from all the provisional games (`Rc` = Rmeðalstig = their opponents' exact mean
/// rating, `P = W / N`), rounded half up, at least 1000 ("Ef skákmaður nær ekki 1000 stigum í
/// forstig þá er hann hækkaður upp í þau"):
///
/// - P < 50 %: `Rc + Dp`, Dp for P rounded half up to two decimals (a score below half that
///   rounds to .50 gives 0; the original's formula is lost in the copy, its symbol list says Dp
///   is read from Tafla 2);
/// - P = 50 %: `Rc`;
/// - P > 50 %: "Rforstig = Rc + 12,5 stig fyrir hvern hálfan vinning umfram 50%", that is
///   `Rc + 12.5 (2W − N)`.
///
/// `None` without games.
pub fn initial_rating(p: &Provisional) -> Option<Rating> {
    if p.games == 0 {
        return None;
    }
    let n = i128::from(p.games);
    let sum = i128::from(p.opponents_sum);
    let halves = i128::from(p.score);
    let r = if halves > n {
        // (Σ / N + 12.5 (h − N)) × 2N = 2 Σ + 25 N (h − N).
        round_half_up(2 * sum + 25 * n * (halves - n), 2 * n)
    } else if halves == n {
        round_half_up(sum, n)
    } else {
        let dp = i128::from(dp(score_percent(p.score, p.games)));
        round_half_up(sum + n * dp, n)
    };
    let r = Rating::try_from(r).unwrap_or(if r < 0 { Rating::MIN } else { Rating::MAX });
    Some(r.max(FLOOR))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::expectation::p_table;

    fn prov(games: u32, opponents_sum: i64, score: Halves) -> Provisional {
        Provisional {
            games,
            opponents_sum,
            score,
        }
    }

    #[test]
    fn fyrstu_stig_needs_5_games_and_1_point() {
        assert!(!prov(4, 6400, 8).qualifies(), "4 games");
        assert!(prov(5, 8000, 2).qualifies(), "5 games, 1 point");
        assert!(!prov(5, 8000, 1).qualifies(), "0.5 point");
        assert!(prov(6, 9600, 2).qualifies(), "two draws make a point");
        assert!(!prov(40, 9600, 0).qualifies());
    }

    #[test]
    fn fyrstu_stig_games_accumulate() {
        let mut p = prov(4, 6400, 3);
        p.add(1720, 2);
        assert_eq!(p, prov(5, 8120, 5));
    }

    #[test]
    fn dp_is_tafla_2_column_l_band_middle_towards_zero() {
        for percent in 1..=49u32 {
            let d = i64::from(-dp(percent));
            let in_band = |x: i64| u32::from(p_table(-x)) == percent;
            assert!(in_band(d), "Dp {percent} lies in its band");
            let lo = (0..=d).find(|&x| in_band(x)).expect("band start");
            let hi = (d..).take_while(|&x| in_band(x)).last().expect("band end");
            assert_eq!(d, (lo + hi) / 2, "P .{percent:02}: band {lo}-{hi}");
        }
        assert_eq!(dp(50), 0);
        assert_eq!(dp(49), -7);
        assert_eq!(dp(30), -149);
        assert_eq!(dp(17), -273);
        assert_eq!(dp(1), -677);
        assert_eq!(dp(0), -800);
    }

    #[test]
    fn dp_score_percent_rounds_exact_halves_up() {
        assert_eq!(score_percent(3, 20), 8, ".075 -> .08");
        assert_eq!(score_percent(7, 20), 18, ".175 -> .18");
        assert_eq!(score_percent(2, 6), 17, ".1667 -> .17");
        assert_eq!(score_percent(99, 100), 50, ".495 -> .50");
        assert_eq!(score_percent(197, 200), 49, ".4925 -> .49");
        assert_eq!(score_percent(2, 200), 1, ".005 -> .01");
        assert_eq!(score_percent(2, 201), 0, ".00498 -> .00");
    }

    #[test]
    fn forstig_below_half_uses_dp() {
        assert_eq!(
            initial_rating(&prov(5, 7800, 3)),
            Some(1411),
            ".30: 1560 - 149"
        );
        assert_eq!(
            initial_rating(&prov(6, 9600, 2)),
            Some(1327),
            ".17: 1600 - 273"
        );
        assert_eq!(
            initial_rating(&prov(5, 6205, 2)),
            Some(1001),
            ".20: 1241 - 240"
        );
        // .495 rounds to .50: Dp 0, although below half.
        assert_eq!(initial_rating(&prov(100, 160_000, 99)), Some(1600));
        assert_eq!(initial_rating(&prov(200, 320_000, 197)), Some(1593), ".49");
        assert_eq!(
            initial_rating(&prov(200, 320_000, 2)),
            Some(1000),
            ".01: 923 raised"
        );
        assert_eq!(
            initial_rating(&prov(201, 321_600, 2)),
            Some(1000),
            ".00: 800 raised"
        );
        assert_eq!(
            initial_rating(&prov(201, 422_100, 2)),
            Some(1300),
            ".00: 2100 - 800"
        );
    }

    #[test]
    fn forstig_at_half_is_rc_rounded_half_up() {
        assert_eq!(initial_rating(&prov(5, 8120, 5)), Some(1624));
        assert_eq!(initial_rating(&prov(6, 9603, 6)), Some(1601), "1600.5");
        assert_eq!(initial_rating(&prov(6, 9602, 6)), Some(1600), "1600.33");
    }

    #[test]
    fn forstig_above_half_adds_12_5_per_half_point() {
        assert_eq!(initial_rating(&prov(5, 8500, 7)), Some(1725));
        assert_eq!(initial_rating(&prov(5, 8500, 6)), Some(1713), "1712.5");
        assert_eq!(initial_rating(&prov(5, 8500, 10)), Some(1763), "1762.5");
    }

    #[test]
    fn forstig_raised_to_1000() {
        assert_eq!(initial_rating(&prov(5, 5500, 2)), Some(1000), "860");
        assert_eq!(initial_rating(&prov(5, 4998, 5)), Some(1000), "999.6");
        assert_eq!(initial_rating(&prov(5, 4997, 5)), Some(1000), "999.4");
        assert_eq!(initial_rating(&prov(2, 1999, 2)), Some(1000), "999.5");
        assert_eq!(initial_rating(&prov(5, 5000, 5)), Some(1000));
        assert_eq!(initial_rating(&prov(5, 5005, 5)), Some(1001));
    }

    #[test]
    fn forstig_without_games_is_none() {
        assert_eq!(initial_rating(&prov(0, 0, 0)), None);
    }
}
