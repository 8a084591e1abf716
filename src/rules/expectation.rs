//! Expected scores: the p(D) table of SSL 7.9 (also ISL's Tafla 2 and TSF's Table 2) and the
//! exact normal-distribution p(D) of SSL 7.10.

/// Upper ends of |D| for H = 50, 51, …, 99 (SSL 7.9); above the last, H = 100.
const BAND_UPPER: [u32; 50] = [
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68, 76, 83, 91, 98, 106, 113, 121, 129, 137, 145, 153, 162,
    170, 179, 188, 197, 206, 215, 225, 235, 245, 256, 267, 278, 290, 302, 315, 328, 344, 357, 374,
    391, 411, 432, 456, 484, 517, 559, 619, 735,
];

/// The most a selo player may expect from one game, in percent (SSL 7.9).
pub const SELO_CAP: u8 = 92;

/// Rule 7.9: column H of the table for a rating difference of `abs_d` ≥ 0, in percent.
pub fn table_h(abs_d: u32) -> u8 {
    50 + BAND_UPPER.partition_point(|&upper| upper < abs_d) as u8
}

/// Rule 7.9: p(D) in percent for `D = Ro − Ri`: column H when D ≥ 0, L = 100 − H when D < 0.
/// No cap (pelo, ISL, TSF).
pub fn p_table(d: i64) -> u8 {
    let h = table_h(u32::try_from(d.unsigned_abs()).unwrap_or(u32::MAX));
    if d >= 0 { h } else { 100 - h }
}

/// Rule 7.9 for selo: p(D) capped at 92 for the stronger side; the weaker side reads L
/// unchanged, so one game's two expectations may sum to less than 100.
pub fn p_selo(d: i64) -> u8 {
    p_capped(d, SELO_CAP)
}

/// p(D) with the stronger side's expectation capped at `cap` percent (SSL 7.9's 92; 85 before
/// 2011); the weaker side reads L unchanged.
pub fn p_capped(d: i64, cap: u8) -> u8 {
    p_table(d).min(cap)
}

/// Rule 7.10: the exact p(D) = 50 (1 + erf(D / 400)), in percent.
pub fn p_exact(d: f64) -> f64 {
    50.0 * (1.0 + libm::erf(d / 400.0))
}

/// The steepest slope of [`p_exact`], at D = 0, in percent per rating point.
pub fn p_exact_max_slope() -> f64 {
    50.0 * std::f64::consts::FRAC_2_SQRT_PI / 400.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every band of the table as printed in SSL 7.9: (lowest |D|, highest |D|, H).
    fn bands() -> Vec<(u32, Option<u32>, u8)> {
        let mut lo = 0;
        let mut out = Vec::new();
        for (i, &hi) in BAND_UPPER.iter().enumerate() {
            out.push((lo, Some(hi), 50 + i as u8));
            lo = hi + 1;
        }
        out.push((lo, None, 100));
        out
    }

    #[test]
    fn rule_7_9_table_has_51_bands_as_printed() {
        let b = bands();
        assert_eq!(b.len(), 51);
        assert_eq!(b[0], (0, Some(3), 50));
        assert_eq!(b[17], (122, Some(129), 67));
        assert_eq!(b[34], (279, Some(290), 84));
        assert_eq!(b[49], (620, Some(735), 99));
        assert_eq!(b[50], (736, None, 100));
    }

    #[test]
    fn rule_7_9_every_band_edge_on_both_sides() {
        for (lo, hi, h) in bands() {
            for d in [Some(lo), hi].into_iter().flatten() {
                let d = i64::from(d);
                assert_eq!(p_table(d), h, "H at D = {d}");
                assert_eq!(
                    p_table(-d),
                    if d == 0 { 50 } else { 100 - h },
                    "L at D = -{d}"
                );
            }
            if let Some(hi) = hi {
                let next = i64::from(hi) + 1;
                assert_eq!(p_table(next), h + 1, "H just past the band at D = {next}");
                assert_eq!(
                    p_table(-next),
                    100 - (h + 1),
                    "L just past the band at D = -{next}"
                );
            }
        }
        assert_eq!(p_table(5000), 100);
        assert_eq!(p_table(-5000), 0);
        assert_eq!(p_table(i64::MAX), 100);
    }

    #[test]
    fn rule_7_9_selo_cap_only_for_the_stronger_side() {
        assert_eq!(p_selo(391), 91);
        assert_eq!(p_selo(392), 92);
        assert_eq!(p_selo(411), 92);
        assert_eq!(p_selo(412), 92); // 93 capped
        assert_eq!(p_selo(736), 92); // 100 capped
        assert_eq!(p_selo(-412), 7);
        assert_eq!(p_selo(-736), 0);
        assert_eq!(p_table(412), 93);
    }

    #[test]
    fn rule_7_10_exact_p_is_symmetric_and_centred() {
        assert!((p_exact(0.0) - 50.0).abs() < 1e-12);
        for d in [1.0, 44.6, 200.0, 735.0] {
            assert!((p_exact(d) + p_exact(-d) - 100.0).abs() < 1e-9);
        }
        // erf(1) = 0.8427007929…
        assert!((p_exact(400.0) - 92.135_039_647).abs() < 1e-6);
    }
}
