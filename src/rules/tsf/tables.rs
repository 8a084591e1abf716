//! The figures every TSF calculation shares: Table 1 (score → performance difference), Table 2
//! (rating difference → expected score), the change coefficient k, the 350 rule, averages
//! rounded when they are formed, and the 1000 floor (TSF-TK-PRS/05, part B).
//!
//! Exact integer arithmetic throughout: scores in half points, expected scores and changes in
//! hundredths.

use crate::model::Rating;
use crate::rules::Halves;
use crate::rules::arith::round_half_up;
use crate::rules::expectation::p_table;

/// B.1.c: the lowest UKD; a calculation that ends below it leaves the player at 1000.
pub const FLOOR: Rating = 1000;

/// B.1.i: the largest rating difference between two opponents that counts.
pub const MAX_DIFFERENCE: Rating = 350;

/// Table 1 as printed, dp for p = 1.00, .99, …, .00 (index = 100 − hundredths of p).
///
/// Eight entries of the lower half were cut off in the copy of the original ("-28", "-30",
/// "-32", "-33", "-35", "-36", "-38", "-40"); every printed entry of that half is the negative
/// of its mirror (dp(p) = −dp(1 − p)), so they are restored by the same symmetry, each restored
/// value beginning with the printed digits (−288, −304, −320, −334, −350, −366, −382, −400).
const TABLE_1: [i32; 101] = [
    400, 400, 382, 374, 366, 358, 350, 342, 334, 328, // 1.00 … .91
    320, 312, 304, 296, 288, 280, 272, 264, 256, 248, // .90 … .81
    240, 230, 220, 211, 202, 193, 184, 175, 166, 158, // .80 … .71
    149, 141, 133, 125, 117, 110, 102, 95, 87, 80, // .70 … .61
    72, 65, 57, 50, 43, 36, 29, 21, 14, 7, // .60 … .51
    0, -7, -14, -21, -29, -36, -43, -50, -57, -65, // .50 … .41
    -72, -80, -87, -95, -102, -110, -117, -125, -133, -141, // .40 … .31
    -149, -158, -166, -175, -184, -193, -202, -211, -220, -230, // .30 … .21
    -240, -248, -256, -264, -272, -280, -288, -296, -304, -312, // .20 … .11
    -320, -328, -334, -342, -350, -358, -366, -374, -382, -400, // .10 … .01
    -400, // .00
];

/// Formula 2 / Table 1: the score fraction `score / games` in hundredths, rounded half up to two
/// decimals (the table is printed by hundredths; .995 reads as 1.00). `games` must be positive.
pub fn score_hundredths(score: Halves, games: u32) -> u32 {
    let p = round_half_up(i128::from(score) * 100, 2 * i128::from(games.max(1)));
    p.clamp(0, 100) as u32
}

/// Table 1: the performance difference dp for a score fraction in hundredths (0–100).
pub fn dp(p_hundredths: u32) -> i32 {
    TABLE_1[100 - p_hundredths.min(100) as usize]
}

/// Table 1 for a score of `score` half points in `games` games.
pub fn dp_for_score(score: Halves, games: u32) -> i32 {
    dp(score_hundredths(score, games))
}

/// Table 2: P_D in hundredths for `D = own − opponents' average` — the SSL table read as
/// fractions, with no cap (over 735: 1.00 and .00).
pub fn p_d(d: i64) -> i64 {
    i64::from(p_table(d))
}

/// B.3.d (Formula 4): the k bands, each band's lowest UKD with its k — 1299 and under 30,
/// 1300–1599 25, 1600–1999 20, 2000–2399 15, 2400 and over 10. The one statement of the rule:
/// the workstation's k-band list and notes are made from it.
pub const K_BANDS: [(Rating, u16); 5] = [(0, 30), (1300, 25), (1600, 20), (2000, 15), (2400, 10)];

/// B.3.d (Formula 4): k by the player's UKD, from [`K_BANDS`] (a UKD below the first band's
/// edge has the first band's k).
pub fn k(rating: Rating) -> i64 {
    let band = K_BANDS
        .iter()
        .rev()
        .find(|(from, _)| rating >= *from)
        .unwrap_or(&K_BANDS[0]);
    i64::from(band.1)
}

/// B.1.i: an opponent's rating as it counts against `own` — a difference over 350 counts as
/// 350 (1500 against 2000: the 1500 player's opponent counts as 1850, the 2000 player's as
/// 1650).
pub fn within_350(own: Rating, opponent: Rating) -> Rating {
    opponent.clamp(own - MAX_DIFFERENCE, own + MAX_DIFFERENCE)
}

/// An average of ratings as the procedure forms it (the event's rated average, an opponents'
/// average, Ra): a whole number, rounded half up when formed. `None` for no ratings.
///
/// Reading: the original prints Table 2 for whole rating differences and every UKD is a
/// four-digit whole number (TANIMLAR), so an average that enters D or a preliminary rating is
/// rounded when it is formed.
pub fn average(ratings: impl IntoIterator<Item = Rating>) -> Option<Rating> {
    let (sum, n) = ratings
        .into_iter()
        .fold((0i128, 0i128), |(s, n), r| (s + i128::from(r), n + 1));
    (n > 0).then(|| round_half_up(sum, n) as Rating)
}

/// B.1.c with Formula 1: a new UKD from the old one and the month's summed change in
/// hundredths, rounded half up, at least 1000.
pub fn new_rating(old: Rating, change_hundredths: i64) -> Rating {
    let exact = i128::from(old) * 100 + i128::from(change_hundredths);
    floor_1000(round_half_up(exact, 100))
}

/// B.1.c: a UKD below 1000 stays 1000.
pub fn floor_1000(rating: i64) -> Rating {
    rating.clamp(i64::from(FLOOR), i64::from(i32::MAX)) as Rating
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_1_is_printed_from_one_to_zero_and_antisymmetric() {
        assert_eq!(dp(100), 400);
        assert_eq!(dp(99), 400);
        assert_eq!(dp(98), 382);
        assert_eq!(dp(91), 328);
        assert_eq!(dp(83), 264);
        assert_eq!(dp(70), 149);
        assert_eq!(dp(66), 117);
        assert_eq!(dp(51), 7);
        assert_eq!(dp(50), 0);
        assert_eq!(dp(0), -400);
        for p in 0..=100 {
            assert_eq!(dp(p), -dp(100 - p), "dp(.{p:02}) mirrors dp at 1 − p");
        }
        for p in 1..=100 {
            assert!(dp(p) >= dp(p - 1), "dp rises with p at .{p:02}");
        }
    }

    #[test]
    fn table_1_restored_entries_begin_with_the_printed_digits() {
        for (p, printed) in [
            (14, "-28"),
            (12, "-30"),
            (10, "-32"),
            (8, "-33"),
            (6, "-35"),
            (4, "-36"),
            (2, "-38"),
            (0, "-40"),
        ] {
            assert!(dp(p).to_string().starts_with(printed), ".{p:02}: {}", dp(p));
            assert_eq!(dp(p).to_string().len(), 4, ".{p:02} has three digits");
        }
    }

    #[test]
    fn table_1_score_rounded_half_up_to_two_decimals() {
        // 199 of 200 points = .995 → 1.00.
        assert_eq!(score_hundredths(398, 200), 100);
        assert_eq!(dp_for_score(398, 200), 400);
        // .985 → .99 (400), .9849… stays .98 (382).
        assert_eq!(score_hundredths(394, 200), 99);
        assert_eq!(dp_for_score(394, 200), 400);
        assert_eq!(score_hundredths(1969, 1000), 98);
        assert_eq!(dp_for_score(1969, 1000), 382);
        // .745 → .75 (193); .005 → .01 (−400); 2/3 → .67 (125); 1/3 → .33 (−125).
        assert_eq!(dp_for_score(149, 100), 193);
        assert_eq!(score_hundredths(1, 100), 1);
        assert_eq!(dp_for_score(1, 100), -400);
        assert_eq!(dp_for_score(4, 3), 125);
        assert_eq!(dp_for_score(2, 3), -125);
        // 3.5 / 5 = .70 (149), 0.5 / 5 = .10 (−320).
        assert_eq!(dp_for_score(7, 5), 149);
        assert_eq!(dp_for_score(1, 5), -320);
    }

    #[test]
    fn table_2_has_no_cap() {
        assert_eq!(p_d(0), 50);
        assert_eq!(p_d(325), 87);
        assert_eq!(p_d(-275), 17);
        assert_eq!(p_d(411), 92);
        assert_eq!(p_d(412), 93);
        assert_eq!(p_d(735), 99);
        assert_eq!(p_d(736), 100);
        assert_eq!(p_d(-736), 0);
    }

    #[test]
    fn b_3_d_k_at_every_band_edge() {
        for (rating, expected) in [
            (2800, 10),
            (2400, 10),
            (2399, 15),
            (2000, 15),
            (1999, 20),
            (1600, 20),
            (1599, 25),
            (1300, 25),
            (1299, 30),
            (1000, 30),
            (0, 30),
        ] {
            assert_eq!(k(rating), expected, "k at {rating}");
        }
    }

    #[test]
    fn b_1_i_350_exactly_counts_351_is_cut() {
        assert_eq!(within_350(1500, 1850), 1850);
        assert_eq!(within_350(1500, 1851), 1850);
        assert_eq!(within_350(1500, 1150), 1150);
        assert_eq!(within_350(1500, 1149), 1150);
        assert_eq!(within_350(1500, 2000), 1850);
        assert_eq!(within_350(2000, 1500), 1650);
    }

    #[test]
    fn averages_are_rounded_half_up_when_formed() {
        assert_eq!(average([2000, 1500, 1700]), Some(1733));
        assert_eq!(average([1800, 1650, 1500, 1600]), Some(1638)); // 1637.5
        assert_eq!(average([1500, 1700, 1800]), Some(1667)); // 1666.67
        assert_eq!(average([1000, 1001]), Some(1001)); // 1000.5
        assert_eq!(average(std::iter::empty()), None);
    }

    #[test]
    fn b_1_c_new_rating_rounded_half_up_then_floor_1000() {
        assert_eq!(new_rating(2000, 90), 2001);
        assert_eq!(new_rating(1500, 450), 1505); // 1504.5
        assert_eq!(new_rating(1500, 449), 1504);
        assert_eq!(new_rating(1010, -5700), 1000); // 953
        assert_eq!(new_rating(1000, -50), 1000); // 999.5 → 1000
        assert_eq!(new_rating(1000, -51), 1000); // 999.49 → 999 → 1000
        assert_eq!(new_rating(1001, -51), 1000); // 1000.49
        assert_eq!(new_rating(1100, 1050), 1111); // 1110.5
    }
}
