//! How figures are written for people, on the screen, in messages and in printed reports
//! alike: one function a kind of figure (a rating change is `±0` wherever it is shown).

use crate::model::Rating;
use crate::rules::Performance;

/// A rating change: `+12`, `-7`, `±0`.
pub fn signed(d: i32) -> String {
    if d == 0 {
        "±0".into()
    } else {
        format!("{d:+}")
    }
}

/// A rating, or `–` for none.
pub fn rating(r: Option<Rating>) -> String {
    r.map_or_else(|| "–".into(), |r| r.to_string())
}

/// Points kept in halves: `3`, `½`, `3½`.
pub fn half_points(h: u32) -> String {
    if h.is_multiple_of(2) {
        (h / 2).to_string()
    } else if h == 1 {
        "½".into()
    } else {
        format!("{}½", h / 2)
    }
}

/// Points kept in halves as a decimal for files read by programs: `3.5`.
pub fn decimal_points(h: u32) -> String {
    format!("{}{}", h / 2, if h % 2 == 1 { ".5" } else { "" })
}

/// An expected score kept in hundredths, as points with two decimals (`4.93`); empty for none.
pub fn expected(hundredths: Option<i64>) -> String {
    hundredths
        .map(|e| format!("{:.2}", e as f64 / 100.0))
        .unwrap_or_default()
}

/// A performance rating, rounded; unbounded ones as `+∞` / `−∞`.
pub fn performance(p: Performance) -> String {
    match p {
        Performance::Finite(x) => format!("{x:.0}"),
        Performance::PlusInfinity => "+∞".into(),
        Performance::MinusInfinity => "−∞".into(),
    }
}

/// "1 player", "3 players".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_and_changes() {
        assert_eq!(half_points(7), "3½");
        assert_eq!(half_points(1), "½");
        assert_eq!(decimal_points(7), "3.5");
        assert_eq!(decimal_points(6), "3");
        assert_eq!(signed(0), "±0");
        assert_eq!(signed(-7), "-7");
    }
}
