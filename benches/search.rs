//! The player search at Turkey's full size: a million generated names, typed a key at a time
//! as the officer types them (each key narrows what the one before matched), timed per key;
//! and the time and memory to build the index.
//!
//! `cargo bench --bench search [-- PLAYERS]` (default 1 000 000)

use std::time::{Duration, Instant};

// The workstation's allocator, so that the figures are the workstation's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use ratedesk::app::search::SearchIndex;
use ratedesk::demo::Params;
use ratedesk::federations::Federation;
use ratedesk::rules::tsf::Tsf;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Resident memory of this process now, in MB (Linux; 0 elsewhere).
fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let players: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let params = Params {
        players,
        years: 1,
        last_year: 2025,
        seed: 42,
        opens_per_year: Some(1),
    };
    let (book, _) = Tsf.demo(&params).expect("the Turkish demo federation");
    let active = vec![true; book.players.len()];
    let before = rss_mb();
    let t = Instant::now();
    let index = SearchIndex::new(
        &book.players,
        &active,
        Tsf.alphabet(),
        ratedesk::rules::Rulebook::name_order(&Tsf),
    );
    let build = t.elapsed();
    let held = rss_mb() - before;
    // Eight names spread over the federation, their first eight characters typed a key at a
    // time and taken back, as `ratedesk bench` types them.
    let rounds = 8;
    let names: Vec<String> = (0..rounds)
        .map(|r| &book.players[book.players.len() * (2 * r + 1) / (2 * rounds)])
        .map(|p| p.name.chars().take(8).collect())
        .collect();
    let (mut keys, mut first) = (Vec::new(), Vec::new());
    let mut by_place: Vec<Vec<Duration>> = vec![Vec::new(); 8];
    for name in &names {
        let mut typed = String::new();
        for (i, c) in name.chars().enumerate() {
            typed.push(c);
            let t = Instant::now();
            let found = index.search(&typed);
            let took = t.elapsed();
            std::hint::black_box(found);
            keys.push(took);
            by_place[i].push(took);
            if i == 0 {
                first.push(took);
            }
        }
    }
    keys.sort();
    first.sort();
    let at = |v: &[Duration], p: f64| ms(v[((v.len() - 1) as f64 * p).round() as usize]);
    println!(
        "search over {} names: index built in {:.0} ms, {:.0} MB; a key p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; a first key p50 {:.2} ms, max {:.2} ms",
        book.players.len(),
        ms(build),
        held,
        at(&keys, 0.5),
        at(&keys, 0.99),
        at(&keys, 1.0),
        at(&first, 0.5),
        at(&first, 1.0),
    );
    let places: Vec<String> = by_place
        .iter_mut()
        .filter(|v| !v.is_empty())
        .map(|v| {
            v.sort();
            format!("{:.1}", at(v, 0.5))
        })
        .collect();
    println!(
        "the median of each key typed, first to last (ms): {}",
        places.join(" ")
    );
}
