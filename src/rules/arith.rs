//! Exact rounding shared by the rulebooks.
//!
//! Where a rule is rational the rulebooks carry exact integer numerators over a known
//! denominator, so an exact half is recognised as such and never lost in float noise.

/// Rounds `num / den` to the nearest integer, exact halves up (towards +∞), as SSL 3.5,
/// ISL and TSF prescribe. `den` must be positive.
pub fn round_half_up(num: i128, den: i128) -> i64 {
    debug_assert!(den > 0, "denominator must be positive");
    // floor((num + den/2) / den) without losing the half: floor((2 num + den) / (2 den)).
    let q = (2 * num + den).div_euclid(2 * den);
    i64::try_from(q).unwrap_or(if q < 0 { i64::MIN } else { i64::MAX })
}

/// Rounds a float half up. Only for values that come out of e^x or erf, where the rules
/// themselves leave the exact world; a rational value goes through [`round_half_up`].
pub fn round_half_up_f64(x: f64) -> i64 {
    (x + 0.5).floor() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_3_5_exact_halves_go_up() {
        assert_eq!(round_half_up(21005, 10), 2101); // 2100.5
        assert_eq!(round_half_up(20975, 10), 2098); // 2097.5
        assert_eq!(round_half_up(-15, 10), -1); // -1.5 -> -1 (towards +inf)
        assert_eq!(round_half_up(-25, 10), -2);
        assert_eq!(round_half_up(15, 10), 2);
    }

    #[test]
    fn rule_3_5_near_halves() {
        assert_eq!(round_half_up(20974, 10), 2097);
        assert_eq!(round_half_up(20976, 10), 2098);
        assert_eq!(round_half_up(1, 3), 0);
        assert_eq!(round_half_up(2, 3), 1);
        assert_eq!(round_half_up(-1, 3), 0);
        assert_eq!(round_half_up(-2, 3), -1);
    }

    #[test]
    fn float_rounding_half_up() {
        assert_eq!(round_half_up_f64(1434.75), 1435);
        assert_eq!(round_half_up_f64(1415.25), 1415);
        assert_eq!(round_half_up_f64(-0.5), 0);
        assert_eq!(round_half_up_f64(2.5), 3);
    }
}
