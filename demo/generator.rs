//! Deterministic (seeded) federations for demonstrations and benchmarks, one per rulebook:
//! players with names in the federation's alphabet, birth dates and FIDE ids, and years of the
//! events the country plays, with results drawn from hidden strengths that drift over the
//! years, and now and then a forfeit or a bye.
//!
//! - Finland (`finland`): weekend opens, round robins, a league whose games are each their own
//!   rating event (SSL 2.11), quick play for pelo, junior events, events abroad.
//! - Iceland (`iceland`): club events a round a week over the quarters, weekend opens, the
//!   Reykjavík Open with foreign guests, the championship, late results.
//! - Turkey (`turkey`): Swiss opens and round robins at standard, rapid and blitz, with results
//!   received late.
//!
//! It only produces data (a [`Book`]); the caller writes it through the edit API, so the ledger
//! rates it like anything else. The shared draws and pairings are in `play`; the FIDE list
//! writer for the import benchmark in `fide_list`.

mod fide_list;
mod finland;
mod iceland;
mod play;
mod turkey;

use crate::book::Book;
#[cfg(test)]
use crate::rules::Rulebook;

pub use fide_list::write_fide_list;
pub use finland::generate;
pub use iceland::generate as generate_iceland;
pub use turkey::generate as generate_turkey;

/// Games a weekend open has on average (about 50 players over 6 rounds).
pub const GAMES_PER_OPEN: usize = 150;

/// A generated federation's book and the event ids of each of its years.
pub type Generated<R> = (Book<R>, Vec<std::ops::Range<usize>>);

/// The size and seed of a generated federation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    pub players: usize,
    pub years: u32,
    /// The last year generated.
    pub last_year: i32,
    pub seed: u64,
    /// Weekend opens per year; by default enough for about 10 games a player a year.
    pub opens_per_year: Option<usize>,
}

impl Params {
    /// The `--demo` federation: a few thousand players over ten years.
    pub fn demo() -> Self {
        Self {
            players: 3000,
            years: 10,
            last_year: 2025,
            seed: 2025,
            opens_per_year: None,
        }
    }
}

/// xorshift64*: small, seeded, the same everywhere. The demo federation and the benchmarks'
/// generated events draw from it, so every run builds the same data.
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed` (zero is moved off, as xorshift would stay at zero).
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`0` when `n` is zero).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Roughly normal (sum of uniforms), mean 0, deviation 1.
    fn normal(&mut self) -> f64 {
        (0..12).map(|_| self.unit()).sum::<f64>() - 6.0
    }
}

/// Weekend opens a year by default: enough for about 10 games a player a year.
pub(crate) fn opens_per_year(p: &Params) -> usize {
    p.opens_per_year
        .unwrap_or_else(|| (p.players * 10 / 300).clamp(2, 5000))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::json::JsonRules;

    fn small(seed: u64) -> Params {
        Params {
            players: 300,
            years: 2,
            last_year: 2025,
            seed,
            opens_per_year: Some(6),
        }
    }

    /// Every game a valid pairing: nobody twice in a round, nobody against himself, only
    /// participants.
    pub(crate) fn valid_pairings<R: Rulebook>(book: &Book<R>) {
        for e in &book.events {
            let mut seen = std::collections::BTreeSet::new();
            for g in &e.games {
                assert!(
                    seen.insert((g.round, g.white())),
                    "{} round {}",
                    e.id,
                    g.round
                );
                if let Some(b) = g.black() {
                    assert_ne!(g.white(), b);
                    assert!(seen.insert((g.round, b)), "{} round {}", e.id, g.round);
                }
                assert!(e.participants.contains(&g.white()));
                if let Some(d) = g.date {
                    assert!(e.start <= d && d <= e.end, "{} dated {d}", e.id);
                }
            }
            assert!(e.received.is_none_or(|r| r >= e.end), "{}", e.id);
        }
    }

    /// The book as `ratedesk rate` reads it: written, read back and rated without an error.
    fn rates_as_json<R: JsonRules>(rulebook: &R, book: &Book<R>) -> serde_json::Value {
        let all = vec![true; book.players.len()];
        let input = crate::json::write_input(rulebook, book, None, &all);
        crate::json::rate_with(rulebook, &input.to_string()).expect("the demo rates as JSON")
    }

    #[test]
    fn the_same_seed_gives_the_same_federations() {
        let (a, _) = generate_iceland(&small(7));
        let (b, _) = generate_iceland(&small(7));
        assert_eq!(
            (a.players, a.events, a.seeds),
            (b.players, b.events, b.seeds)
        );
        let (a, _) = generate_turkey(&small(7));
        let (b, _) = generate_turkey(&small(7));
        assert_eq!(
            (a.players, a.events, a.seeds),
            (b.players, b.events, b.seeds)
        );
        let (c, _) = generate_turkey(&small(8));
        let (d, _) = generate_turkey(&small(7));
        assert_ne!(c.events, d.events, "another seed, another federation");
    }

    #[test]
    fn iceland_plays_club_events_over_list_dates_and_late_results() {
        use crate::rules::isl::{Isl, games_by_period};
        let (book, years) = generate_iceland(&small(3));
        assert_eq!(years.len(), 2);
        valid_pairings(&book);
        let icelandic = |c: char| "þðæáéíóúýöÞÐÆÁÉÍÓÚÝÖ".contains(c);
        assert!(book.players.iter().any(|p| p.name.chars().any(icelandic)));
        assert!(book.players.iter().any(|p| p.name.contains("dóttir,")));
        assert!(book.players.iter().any(|p| p.name.contains("son,")));
        let split = book
            .events
            .iter()
            .filter(|e| Isl.list_of(e, None).is_some() && games_by_period(e).len() > 1)
            .count();
        assert!(split > 0, "a club event runs over a list date");
        assert!(
            book.events.iter().any(|e| e.received.is_some()),
            "late results"
        );
        assert!(book.events.iter().any(|e| Isl.list_of(e, None).is_none()));
        let rated = rates_as_json(&Isl, &book);
        let initial = rated["periods"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|p| p["players"].as_array().into_iter().flatten())
            .filter(|r| r["standard"]["initial"] == true)
            .count();
        assert!(initial > 0, "new players reach an initial rating");
    }

    #[test]
    fn turkey_plays_three_tempos_swiss_and_round_robins_received_late() {
        use crate::rules::tsf::{BLITZ, RAPID, STANDARD, Tsf};
        let (book, _) = generate_turkey(&small(3));
        valid_pairings(&book);
        let turkish = |c: char| "ıİşŞğĞçÇöÖüÜ".contains(c);
        assert!(book.players.iter().any(|p| p.name.chars().any(turkish)));
        for list in [STANDARD, RAPID, BLITZ] {
            assert!(
                book.events
                    .iter()
                    .any(|e| Tsf.list_of(e, None) == Some(list)),
                "{list}"
            );
        }
        assert!(book.events.iter().any(|e| e.pairing == "round_robin"));
        // Some results arrive after the 25th of a later month than the event's end.
        let late = book.events.iter().filter(|e| {
            let period = crate::rules::tsf::period(e);
            period > crate::rules::tsf::calendar::period_of(e.end)
        });
        assert!(late.count() > 0, "results rated a month later");
        let rated = rates_as_json(&Tsf, &book);
        let methods: std::collections::BTreeSet<String> = rated["events"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["method"].as_str().map(String::from))
            .collect();
        assert!(methods.contains("berger"), "{methods:?}");
        let first_ukd = rated["periods"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|p| p["players"].as_array().into_iter().flatten())
            .any(|r| r["standard"]["initial"] == true);
        assert!(first_ukd, "unrated players reach a first UKD");
    }
}
