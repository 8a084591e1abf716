//! `ratedesk rate` at the size of a large open (200 players, 9 rounds) and the selection search
//! of section 5.5 for a player with 300 games in the period.
//!
//! `cargo bench --bench rate`: each document rated 30 times after a warm-up, the median, p99
//! and spread printed (as `ratedesk bench` reports its rows).

use std::time::{Duration, Instant};

use ratedesk::bench::{percentile, summary};
use ratedesk::demo::Rng;
use serde_json::{Value, json};

/// A Swiss of `players` players over `rounds` rounds, paired by score groups.
fn swiss(players: usize, rounds: u32, as_of: Option<&str>) -> String {
    let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
    let ratings: Vec<i64> = (0..players)
        .map(|_| 1200 + rng.below(1300) as i64)
        .collect();
    let people: Vec<Value> = (0..players)
        .map(|i| {
            let games = rng.below(200);
            if i % 10 == 9 {
                json!({"id": format!("p{i}")})
            } else {
                json!({"id": format!("p{i}"), "selo": {"rating": ratings[i], "games": games}})
            }
        })
        .collect();
    let mut score = vec![0u32; players];
    let mut games = Vec::new();
    for round in 1..=rounds {
        let mut order: Vec<usize> = (0..players).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(score[i]), std::cmp::Reverse(ratings[i])));
        for pair in order.chunks(2) {
            let [w, b] = pair else { continue };
            let d = ratings[*w] - ratings[*b];
            let x = rng.below(1000) as i64 + d / 2;
            let (result, sw, sb) = match x {
                ..350 => ("0-1", 0, 2),
                350..650 => ("1/2-1/2", 1, 1),
                _ => ("1-0", 2, 0),
            };
            score[*w] += sw;
            score[*b] += sb;
            games.push(json!({"round": round, "white": format!("p{w}"), "black": format!("p{b}"), "result": result}));
        }
    }
    let mut doc = json!({
        "rules": "ssl",
        "players": people,
        "events": [{"id": "open", "start": "2025-07-01", "end": "2025-07-09",
                    "time_control": {"base_minutes": 90, "increment_seconds": 30},
                    "abroad": false, "age_limit": null, "pairing": "swiss", "games": games}]
    });
    if let Some(d) = as_of {
        doc["as_of"] = json!(d);
    }
    doc.to_string()
}

/// One player with `n` single-game events in the period against varied opposition.
fn long_season(n: usize) -> String {
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut players = vec![json!({"id": "x", "selo": {"rating": 2100, "games": 200}})];
    let mut events = Vec::new();
    for k in 0..n {
        let id = format!("o{k}");
        players.push(json!({"id": id, "selo": {"rating": 1700 + rng.below(700), "games": 50}}));
        let result = ["1-0", "1/2-1/2", "0-1"][rng.below(3)];
        let day = chrono::NaiveDate::from_ymd_opt(2025, 1, 1).expect("date")
            + chrono::Days::new(k as u64);
        events.push(
            json!({"id": format!("e{k:03}"), "start": day.to_string(), "end": day.to_string(),
            "games": [{"round": 1, "white": "x", "black": id, "result": result}]}),
        );
    }
    json!({"rules": "ssl", "as_of": "2025-12-31", "players": players, "events": events}).to_string()
}

/// Rates `doc` `runs` times after one run to warm up; the time of each run.
fn timed(doc: &str, runs: usize) -> Vec<Duration> {
    ratedesk::app::import::json::rate(doc).expect("valid input");
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(ratedesk::app::import::json::rate(doc).expect("valid input"));
            t.elapsed()
        })
        .collect()
}

fn main() {
    // `cargo test --benches` lists the benches: nothing to measure then.
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rows = [
        ("rate 200 players x 9 rounds", swiss(200, 9, None)),
        (
            "rate + selection, 300 games in the period",
            long_season(300),
        ),
    ];
    for (name, doc) in rows {
        let times = timed(&doc, 30);
        let p99 = percentile(&times, 99.0);
        let (median, min, max) = summary(times);
        println!("{name:<45} median {median} ms, p99 {p99} ms (min {min}, max {max})");
    }
}
