//! ISL ratings of rated players ("Stigaútreikningur fyrir skákmenn sem hafa hlotið forstig"):
//! K by Tafla 1, the expected score by Tafla 2, the change of one game and the new rating at the
//! period's end. Exact integers: changes are carried in hundredths of a point.

use crate::model::Rating;
use crate::rules::arith::round_half_up;
use crate::rules::expectation::p_table;

/// "Skákmaður lækkar aldrei niður fyrir 1000 stig": the lowest published rating.
pub const FLOOR: Rating = 1000;

/// "Ef skákmaður nær 2400 stiga markinu": the rating whose reaching fixes K for good.
pub const LOCK_RATING: Rating = 2400;

/// ISL Tafla 1: K for a player's `game_number`-th rated game (the games that gave his initial
/// rating included: the table starts at game 6, "Skákir 6-100", after the five of the initial
/// rating; a player who entered with a rating and no games counts his first games with it too).
///
/// - 1–100 → 30, 101–200 → 25, 201–300 → 20, over 300 → 15;
/// - "Hjá skákmönnum 20 ára og yngri er stuðullinn 35 fyrir fyrstu 100 skákirnar, en 30 eftir
///   það": a junior 35 up to game 100, 30 after, whatever the count;
/// - "Ef skákmaður nær 2400 stiga markinu þá er stuðullinn settur 10 (15 hjá 20 ára og yngri)
///   og breytist ekki eftir það": once `reached_2400` (at the period's start), 10, a junior 15.
pub fn k_factor(game_number: u32, junior: bool, reached_2400: bool) -> u8 {
    match (reached_2400, junior, game_number) {
        (true, true, _) => 15,
        (true, false, _) => 10,
        (false, true, 0..=100) => 35,
        (false, true, _) => 30,
        (false, false, 0..=100) => 30,
        (false, false, 101..=200) => 25,
        (false, false, 201..=300) => 20,
        (false, false, _) => 15,
    }
}

/// ISL Tafla 2 ("Stigamismunur og væntanlegt vinningshlutfall"): Váætlun in hundredths for
/// `D = own − opponent` — column H for D ≥ 0, L for D < 0. The table is the SSL 7.9 table
/// without the selo cap; it stops at 735, and a larger difference reads 1.00 / 0.00.
pub fn expected_hundredths(d: i64) -> i64 {
    i64::from(p_table(d))
}

/// ISL "Hver einstök skák er reiknuð sérstaklega": the change of one game,
/// `Rbreyting = K (V − Váætlun)`, in hundredths. `halves` is the player's score in half points
/// (V = halves / 2), so `100 (V − Ve) = 50 halves − Ve₁₀₀`.
pub fn change_hundredths(k: u8, halves: u8, expected: i64) -> i64 {
    i64::from(k) * (50 * i64::from(halves) - expected)
}

/// ISL Rnýstig: `R + Σ Rbreyting` of the period, rounded half up, never below 1000
/// ("Skákmaður lækkar aldrei niður fyrir 1000 stig"; a rating below 1000 on entry is raised to
/// it at the first period that rates him, the floor being a floor of every published rating).
pub fn new_rating(start: Rating, change_hundredths: i64) -> Rating {
    let exact = 100 * i128::from(start) + i128::from(change_hundredths);
    let rounded = round_half_up(exact, 100);
    Rating::try_from(rounded)
        .unwrap_or(if rounded < 0 {
            Rating::MIN
        } else {
            Rating::MAX
        })
        .max(FLOOR)
}

/// "… og breytist ekki eftir það, jafnvel þótt stigin lækki aftur niður fyrir 2400": whether a
/// published rating reaches the 2400 mark.
pub fn reaches_2400(rating: Rating) -> bool {
    rating >= LOCK_RATING
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tafla_1_band_edges() {
        for (n, k) in [
            (1, 30),
            (6, 30),
            (100, 30),
            (101, 25),
            (200, 25),
            (201, 20),
            (300, 20),
            (301, 15),
            (2000, 15),
        ] {
            assert_eq!(k_factor(n, false, false), k, "game {n}");
        }
    }

    #[test]
    fn tafla_1_junior_35_up_to_game_100_then_30() {
        assert_eq!(k_factor(1, true, false), 35);
        assert_eq!(k_factor(100, true, false), 35);
        assert_eq!(k_factor(101, true, false), 30);
        assert_eq!(k_factor(201, true, false), 30);
        assert_eq!(k_factor(301, true, false), 30);
    }

    #[test]
    fn tafla_1_2400_lock_10_or_junior_15() {
        for n in [1, 100, 101, 301] {
            assert_eq!(k_factor(n, false, true), 10, "game {n}");
            assert_eq!(k_factor(n, true, true), 15, "game {n}");
        }
    }

    #[test]
    fn tafla_1_2400_mark_is_reached_at_2400() {
        assert!(!reaches_2400(2399));
        assert!(reaches_2400(2400));
    }

    #[test]
    fn tafla_2_no_cap_and_735_736() {
        assert_eq!(expected_hundredths(0), 50);
        assert_eq!(expected_hundredths(3), 50);
        assert_eq!(expected_hundredths(-3), 50);
        assert_eq!(expected_hundredths(4), 51);
        assert_eq!(expected_hundredths(-4), 49);
        assert_eq!(expected_hundredths(412), 93, "no selo cap at 92");
        assert_eq!(expected_hundredths(735), 99);
        assert_eq!(expected_hundredths(-735), 1);
        assert_eq!(expected_hundredths(736), 100);
        assert_eq!(expected_hundredths(-736), 0);
        assert_eq!(expected_hundredths(3000), 100);
    }

    #[test]
    fn rbreyting_is_exact_in_hundredths() {
        // 25 × (1 − 0.68) = 8.00; 35 × (0 − 0.32) = −11.20; 25 × (0.5 − 0.79) = −7.25.
        assert_eq!(change_hundredths(25, 2, 68), 800);
        assert_eq!(change_hundredths(35, 0, 32), -1120);
        assert_eq!(change_hundredths(25, 1, 79), -725);
        assert_eq!(change_hundredths(10, 0, 53), -530);
        // Beyond 735 a win gains nothing and a loss costs K.
        assert_eq!(change_hundredths(30, 2, expected_hundredths(800)), 0);
        assert_eq!(change_hundredths(30, 0, expected_hundredths(800)), -3000);
    }

    #[test]
    fn rnystig_rounds_the_sum_half_up() {
        assert_eq!(new_rating(1600, 250), 1603, "1602.5");
        assert_eq!(new_rating(1600, 249), 1602);
        assert_eq!(new_rating(1858, -725), 1851, "1850.75");
        assert_eq!(new_rating(1600, -250), 1598, "1597.5 -> 1598");
        assert_eq!(new_rating(1600, -251), 1597);
    }

    #[test]
    fn rnystig_never_below_1000() {
        assert_eq!(new_rating(1010, -1500), 1000, "995");
        assert_eq!(new_rating(1000, -50), 1000, "999.5 rounds to 1000");
        assert_eq!(new_rating(1000, -51), 1000, "999.49 is floored");
        assert_eq!(new_rating(1005, -120), 1004, "the floor does not bind");
        assert_eq!(new_rating(950, 500), 1000, "below 1000 on entry");
    }
}
