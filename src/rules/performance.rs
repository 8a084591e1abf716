//! Performance ratings (SSL 7.6 with the exact p(D) of 7.10): one event's, and the best
//! reliable one over every run of consecutive games (SSL 5.5).
//!
//! The only floats of the Finnish rules live here and in pelo's e^x: the equation
//! `Σ p(Rp − Ri) = 100 W` has no closed form.

use super::expectation::{p_exact, p_exact_max_slope};
use super::{Halves, Performance};
use crate::model::Rating;

/// Solves `Σ p(R − Ri) = target` (percent) for R by bisection to far below 0.01 points;
/// `None` when no finite solution exists (target ≤ 0 or ≥ 100 N).
pub fn solve(opponents: &[f64], target: f64) -> Option<f64> {
    let n = opponents.len() as f64;
    if opponents.is_empty() || target <= 0.0 || target >= 100.0 * n {
        return None;
    }
    // F and its slope; p'(D) = 50 · 2/√π · e^(−(D/400)²) / 400.
    let slope_scale = 50.0 * std::f64::consts::FRAC_2_SQRT_PI / 400.0;
    let f = |r: f64| {
        opponents.iter().fold((0.0, 0.0), |(v, s), &ri| {
            let u = (r - ri) / 400.0;
            (v + p_exact(r - ri), s + slope_scale * (-u * u).exp())
        })
    };
    let min = opponents.iter().copied().fold(f64::INFINITY, f64::min);
    let max = opponents.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // erf(±20) is ±1 to the last bit: the root lies well inside.
    let (mut lo, mut hi) = (min - 8000.0, max + 8000.0);
    // Newton from the opponents' mean, kept inside the bracket by bisection.
    let mut x = opponents.iter().sum::<f64>() / n;
    for _ in 0..200 {
        let (value, slope) = f(x);
        if value == target {
            return Some(x);
        }
        if value < target {
            lo = x;
        } else {
            hi = x;
        }
        // A Newton step that lands on the bracket's end is taken too: near the root the float
        // value can equal the target's side exactly, and bisecting there would only wander
        // (on real fields that cut the iterations from about 14 to 5).
        let newton = x - (value - target) / slope;
        let next = if slope > 0.0 && newton >= lo && newton <= hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if (next - x).abs() < 1e-9 || hi - lo < 1e-9 {
            return Some(next);
        }
        x = next;
    }
    Some(x)
}

/// Rule 7.6: the performance rating over games against `opponents` with `score` half points;
/// unbounded (±∞) when the score is 0 or 100 %.
pub fn performance(opponents: &[Rating], score: Halves) -> Performance {
    let n = opponents.len() as u32;
    if score == 0 {
        return Performance::MinusInfinity;
    }
    if score >= 2 * n {
        return Performance::PlusInfinity;
    }
    let ratings: Vec<f64> = opponents.iter().map(|&r| f64::from(r)).collect();
    match solve(&ratings, 50.0 * f64::from(score)) {
        Some(rp) => Performance::Finite(rp),
        None => Performance::MinusInfinity,
    }
}

/// Taylor terms kept beyond the value itself; with nodes 20 points apart the neglected term is
/// below 1e-12 points.
const ORDER: usize = 6;
const NODE_STEP: f64 = 20.0;
/// How far beyond the opponents' ratings the nodes reach; roots outside are solved directly.
const NODE_PAD: f64 = 1200.0;

/// Prefix sums over a game sequence of the Taylor coefficients of `p(R − Ri)` at rating nodes:
/// `Σ_{k∈[i,j)} p(R − R_k)` for any run `[i, j)` and any R then costs O(ORDER), so all
/// O(n²) runs of a player are solved in O(n² log n) instead of O(n³).
pub struct RunTable {
    ratings: Vec<f64>,
    first_node: f64,
    nodes: usize,
    /// `values[t * (n + 1) + j]`: Σ_{k<j} p(g_t − R_k).
    values: Vec<f64>,
    /// `coefficients[(t * (n + 1) + j) * ORDER + m - 1]`: Σ_{k<j} of the m-th Taylor coefficient.
    coefficients: Vec<f64>,
}

impl RunTable {
    pub fn new(ratings: &[f64]) -> Self {
        let n = ratings.len();
        let min = ratings.iter().copied().fold(f64::INFINITY, f64::min);
        let max = ratings.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (first_node, nodes) = if n == 0 {
            (0.0, 0)
        } else {
            let first = min - NODE_PAD;
            (
                first,
                ((max + NODE_PAD - first) / NODE_STEP).ceil() as usize + 1,
            )
        };
        let mut values = vec![0.0; nodes * (n + 1)];
        let mut coefficients = vec![0.0; nodes * (n + 1) * ORDER];
        let scale = 50.0 * std::f64::consts::FRAC_2_SQRT_PI;
        for t in 0..nodes {
            let g = first_node + t as f64 * NODE_STEP;
            let row = t * (n + 1);
            for (k, &rk) in ratings.iter().enumerate() {
                let u = (g - rk) / 400.0;
                values[row + k + 1] = values[row + k] + p_exact(g - rk);
                let gauss = (-u * u).exp();
                // Physicists' Hermite polynomials H_0, H_1, … by recurrence.
                let (mut h_prev, mut h) = (0.0, 1.0);
                let mut factorial = 1.0;
                for m in 1..=ORDER {
                    factorial *= m as f64;
                    let sign = if m % 2 == 1 { 1.0 } else { -1.0 };
                    let c = scale * sign * h * gauss / factorial;
                    let at = (row + k + 1) * ORDER + m - 1;
                    coefficients[at] = coefficients[(row + k) * ORDER + m - 1] + c;
                    let next = 2.0 * u * h - 2.0 * (m - 1) as f64 * h_prev;
                    h_prev = h;
                    h = next;
                }
            }
        }
        Self {
            ratings: ratings.to_vec(),
            first_node,
            nodes,
            values,
            coefficients,
        }
    }

    fn value_at(&self, t: usize, i: usize, j: usize) -> f64 {
        let row = t * (self.ratings.len() + 1);
        self.values[row + j] - self.values[row + i]
    }

    /// Solves `Σ_{k∈[i,j)} p(R − R_k) = target` for R; `None` when unbounded.
    pub fn solve(&self, i: usize, j: usize, target: f64) -> Option<f64> {
        let len = (j - i) as f64;
        if j <= i || target <= 0.0 || target >= 100.0 * len {
            return None;
        }
        if self.nodes < 2
            || self.value_at(0, i, j) > target
            || self.value_at(self.nodes - 1, i, j) < target
        {
            return solve(&self.ratings[i..j], target);
        }
        // The last node whose value does not exceed the target.
        let (mut lo, mut hi) = (0, self.nodes - 1);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if self.value_at(mid, i, j) <= target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let n1 = self.ratings.len() + 1;
        let row = lo * n1;
        let mut c = [0.0; ORDER + 1];
        c[0] = self.value_at(lo, i, j);
        for (m, cm) in c.iter_mut().enumerate().skip(1) {
            *cm = self.coefficients[(row + j) * ORDER + m - 1]
                - self.coefficients[(row + i) * ORDER + m - 1];
        }
        let poly = |v: f64| c.iter().rev().fold(0.0, |acc, &cm| acc * v + cm);
        let (mut a, mut b) = (0.0, NODE_STEP / 400.0);
        for _ in 0..48 {
            let mid = 0.5 * (a + b);
            if poly(mid) < target {
                a = mid;
            } else {
                b = mid;
            }
        }
        Some(self.first_node + lo as f64 * NODE_STEP + 400.0 * 0.5 * (a + b))
    }
}

/// The best run found by [`best_reliable_run`]: games `[start, end)` and their exact Rp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReliableRun {
    pub start: usize,
    pub end: usize,
    pub performance: f64,
}

/// Rule 5.5: the highest performance over any run of consecutive games that one more game —
/// a win against an infinitely strong or a loss against an infinitely weak opponent — can move
/// by at most `max_change` points. `games` are (opponent rating, half points), in order.
pub fn best_reliable_run(games: &[(Rating, u8)], max_change: f64) -> Option<ReliableRun> {
    let n = games.len();
    // One game moves Rp by at least 100 / (L · max slope): shorter runs are never reliable.
    let min_len = (100.0 / (max_change * p_exact_max_slope())).floor() as usize;
    if n == 0 || n < min_len {
        return None;
    }
    let ratings: Vec<f64> = games.iter().map(|&(r, _)| f64::from(r)).collect();
    let mut halves = vec![0u32; n + 1];
    for (k, &(_, h)) in games.iter().enumerate() {
        halves[k + 1] = halves[k] + u32::from(h);
    }
    let table = RunTable::new(&ratings);
    let mut best: Option<ReliableRun> = None;
    for start in 0..n {
        for end in (start + min_len.max(1))..=n {
            let w = f64::from(halves[end] - halves[start]) * 50.0;
            let Some(rp) = table.solve(start, end, w) else {
                continue;
            };
            if best.is_some_and(|b| rp <= b.performance) {
                continue;
            }
            let (Some(up), Some(down)) = (
                table.solve(start, end, w + 100.0),
                table.solve(start, end, w - 100.0),
            ) else {
                continue;
            };
            if up - rp <= max_change && rp - down <= max_change {
                best = Some(ReliableRun {
                    start,
                    end,
                    performance: rp,
                });
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_force(games: &[(Rating, u8)], max_change: f64) -> Option<f64> {
        let mut best: Option<f64> = None;
        for s in 0..games.len() {
            for e in s + 1..=games.len() {
                let opp: Vec<f64> = games[s..e].iter().map(|g| f64::from(g.0)).collect();
                let w: f64 = games[s..e].iter().map(|g| f64::from(g.1) * 50.0).sum();
                let (Some(rp), Some(up), Some(down)) = (
                    solve(&opp, w),
                    solve(&opp, w + 100.0),
                    solve(&opp, w - 100.0),
                ) else {
                    continue;
                };
                if up - rp <= max_change && rp - down <= max_change {
                    best = Some(best.map_or(rp, |b: f64| b.max(rp)));
                }
            }
        }
        best
    }

    #[test]
    fn rule_7_6_unbounded_at_zero_and_full_score() {
        assert_eq!(performance(&[1800, 1900], 0), Performance::MinusInfinity);
        assert_eq!(performance(&[1800, 1900], 4), Performance::PlusInfinity);
        assert_eq!(performance(&[1800], 2), Performance::PlusInfinity);
    }

    #[test]
    fn rule_7_6_symmetric_field_gives_its_centre() {
        let Performance::Finite(rp) = performance(&[1600, 1800, 2000], 3) else {
            panic!("finite expected")
        };
        assert!((rp - 1800.0).abs() < 0.001, "{rp}");
    }

    #[test]
    fn rule_7_10_one_draw_more_than_half() {
        // 3 of 4 against 2000: 4 p(D) = 300, p = 75 %, D = 400 erfinv(0.5) = 190.775.
        let Performance::Finite(rp) = performance(&[2000; 4], 6) else {
            panic!()
        };
        assert!((rp - 2190.775).abs() < 0.001, "{rp}");
    }

    #[test]
    fn rule_5_5_sixteen_even_games_are_reliable_fourteen_are_not() {
        // W L W L W L W L, then L W L W L W L W: every 15-game run holds 7 points.
        let run16: Vec<(Rating, u8)> = (0..16)
            .map(|k| (1800, if (k % 2 == 0) == (k < 8) { 2 } else { 0 }))
            .collect();
        let best = best_reliable_run(&run16, 50.0).expect("16 games at 50 % are reliable");
        assert_eq!((best.start, best.end), (0, 16));
        assert!((best.performance - 1800.0).abs() < 1e-6);
        assert_eq!(best_reliable_run(&run16[..14], 50.0), None);
    }

    #[test]
    fn rule_5_5_run_table_agrees_with_direct_solution() {
        // A deterministic pseudo-random sequence of opponents and results.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let games: Vec<(Rating, u8)> = (0..70)
            .map(|_| (1300 + (next() % 1200) as Rating, (next() % 3) as u8))
            .collect();
        let table = RunTable::new(&games.iter().map(|g| f64::from(g.0)).collect::<Vec<_>>());
        for (s, e) in [(0, 70), (3, 40), (10, 11), (20, 69)] {
            let opp: Vec<f64> = games[s..e].iter().map(|g| f64::from(g.0)).collect();
            for target in [
                1.0,
                25.0 * (e - s) as f64,
                50.0 * (e - s) as f64,
                99.0 * (e - s) as f64,
            ] {
                let a = table.solve(s, e, target).expect("finite");
                let b = solve(&opp, target).expect("finite");
                assert!(
                    (a - b).abs() < 1e-6,
                    "run {s}..{e} target {target}: {a} vs {b}"
                );
            }
        }
        let fast = best_reliable_run(&games, 50.0).map(|r| r.performance);
        let slow = brute_force(&games, 50.0);
        match (fast, slow) {
            (Some(a), Some(b)) => assert!((a - b).abs() < 1e-6, "{a} vs {b}"),
            (a, b) => assert_eq!(a, b),
        }
    }
}
