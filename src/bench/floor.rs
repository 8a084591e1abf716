//! The floor: the federation's games rated by the plainest loop there is — dense arrays of
//! ratings and sums, the expectation table looked up, a K by rating, and one rounding per player
//! per event, in ledger order. It does the arithmetic of a re-rate and nothing else (no states,
//! titles, lines or indexes), so a figure divided by it says how much bookkeeping a path adds,
//! whatever else the machine is doing at the time.

use std::time::{Duration, Instant};

use crate::book::Book;
use crate::ledger::event_order;
use crate::rules::Rulebook;
use crate::rules::arith::round_half_up;
use crate::rules::expectation::p_table;

/// The games laid out for the loop: per event (in ledger order) its rated games and players.
pub struct Floor {
    /// `(white, black, white's half points)` of every rated game, event after event.
    games: Vec<(u32, u32, u8)>,
    /// Every event's players, event after event.
    players: Vec<u32>,
    /// Per event: its games end and its players end.
    events: Vec<(usize, usize)>,
    /// The ratings the loop starts from (the players' seeds, 1500 without one).
    start: Vec<i32>,
}

/// K by rating, in the manner of the rulebooks' tables.
fn k(rating: i32) -> i64 {
    match rating {
        ..2100 => 32,
        2100..2400 => 24,
        _ => 16,
    }
}

impl Floor {
    /// Lays a book's games out (not part of the timing).
    pub fn new<R: Rulebook>(rulebook: &R, book: &Book<R>) -> Self {
        let mut floor = Floor {
            games: Vec::new(),
            players: Vec::new(),
            events: Vec::new(),
            start: (0..book.players.len())
                .map(|p| {
                    book.seeds
                        .get(p)
                        .and_then(|s| s.first())
                        .and_then(Option::as_ref)
                        .and_then(|s| rulebook.rating_of(s))
                        .unwrap_or(1500)
                })
                .collect(),
        };
        for e in event_order(&book.events) {
            if !book.live.get(e).copied().unwrap_or(false) {
                continue;
            }
            let from = floor.players.len();
            for g in &book.events[e].games {
                if let (Some(black), Some(result)) = (g.black, g.result)
                    && result.played
                {
                    floor.games.push((g.white, black, result.white_halves));
                    floor.players.extend([g.white, black]);
                }
            }
            floor.players[from..].sort_unstable();
            let mut seen = from;
            for i in from..floor.players.len() {
                if i == from || floor.players[i] != floor.players[seen - 1] {
                    floor.players[seen] = floor.players[i];
                    seen += 1;
                }
            }
            floor.players.truncate(seen);
            floor.events.push((floor.games.len(), floor.players.len()));
        }
        floor
    }

    /// The number of games the loop rates.
    pub fn games(&self) -> usize {
        self.games.len()
    }

    /// Rates every game once; returns the ratings at the end.
    pub fn run(&self) -> Vec<i32> {
        let mut rating = self.start.clone();
        // Σ (score − expectation) in hundredths, per player, over the current event.
        let mut sum = vec![0i64; rating.len()];
        let (mut g0, mut p0) = (0, 0);
        for &(g1, p1) in &self.events {
            for &(w, b, h) in &self.games[g0..g1] {
                let (w, b) = (w as usize, b as usize);
                let p = i64::from(p_table(i64::from(rating[w] - rating[b])));
                let white = 50 * i64::from(h) - p;
                sum[w] += white;
                sum[b] -= white;
            }
            for &p in &self.players[p0..p1] {
                let p = p as usize;
                let r = rating[p];
                rating[p] =
                    round_half_up(i128::from(100 * i64::from(r) + k(r) * sum[p]), 100) as i32;
                sum[p] = 0;
            }
            (g0, p0) = (g1, p1);
        }
        rating
    }

    /// The loop's time: the median of `runs` runs, with the fastest and slowest.
    pub fn time(&self, runs: usize) -> (Duration, Duration, Duration) {
        let mut times: Vec<Duration> = (0..runs.max(1))
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(self.run());
                t.elapsed()
            })
            .collect();
        times.sort();
        (times[times.len() / 2], times[0], times[times.len() - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::ssl::Ssl;

    #[test]
    fn the_floor_rates_every_played_game_once_in_ledger_order() {
        let (book, _) = crate::demo::generate(&crate::demo::Params {
            players: 60,
            years: 1,
            last_year: 2025,
            seed: 3,
            opens_per_year: Some(2),
        });
        let floor = Floor::new(&Ssl, &book);
        let played = book
            .events
            .iter()
            .flat_map(|e| &e.games)
            .filter(|g| g.black().is_some() && g.result.is_some_and(|r| r.played))
            .count();
        assert_eq!(floor.games(), played);
        let after = floor.run();
        assert_eq!(after.len(), book.players.len());
        assert_ne!(after, floor.start, "ratings move");
        assert_eq!(floor.run(), after, "the same every run");
    }
}
