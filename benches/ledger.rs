//! The ledger and the database at a federation's size: a from-scratch re-rate, one result keyed
//! in the newest event (re-rate + store + flush), and one correction in the oldest event (the
//! whole cascade). Each figure is the median of several runs, with the spread.
//!
//! `cargo bench --bench ledger` (a generated federation: RATEDESK_BENCH_PLAYERS players,
//! default 30 000; RATEDESK_BENCH_GAMES games, default 1 000 000, over ten years).

use std::time::{Duration, Instant};

use chrono::NaiveDate;
use ratedesk::app::{Desk, Edit, ImportedPlayer};
use ratedesk::book::Book;
use ratedesk::demo::Rng;
use ratedesk::ledger::Ledger;
use ratedesk::model::{Event, Game, GameResult, PlayerInfo, TimeControl, player_u32};
use ratedesk::rules::ssl::{Ssl, SslState};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Weekend opens of 40 players over 7 rounds, every few days for ten years; results drawn from
/// hidden strengths.
fn federation(players: usize, games: usize) -> Book<Ssl> {
    let mut rng = Rng::new(0x5EED_1234_ABCD_0001);
    let mut book = Book::<Ssl>::default();
    let strength: Vec<i64> = (0..players)
        .map(|_| 1200 + rng.below(1200) as i64)
        .collect();
    for (p, s) in strength.iter().enumerate() {
        book.players.push(PlayerInfo {
            id: format!("p{p}"),
            name: format!("Pelaaja {p}"),
            ..PlayerInfo::default()
        });
        let seed = (p % 5 != 0).then(|| SslState {
            rating: Some(*s as i32),
            games: 20 + (p % 50) as u32,
            normal_games: 20,
            ..SslState::default()
        });
        book.seeds.push(vec![seed, None]);
        book.held.push(Vec::new());
    }
    let per_event = 40 * 7 / 2;
    let events = games.div_ceil(per_event);
    let start = NaiveDate::from_ymd_opt(2015, 1, 1).expect("date");
    for e in 0..events {
        let day = start + chrono::Days::new((e * 3650 / events) as u64);
        let field: Vec<usize> = (0..40)
            .map(|_| rng.below(players))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut event = Event {
            id: format!("e{e:05}"),
            name: format!("Open {e}"),
            start: day,
            end: day + chrono::Days::new(2),
            time_control: Some(TimeControl {
                base_seconds: 90 * 60,
                increment_seconds: 30,
                added: vec![],
            }),
            abroad: false,
            official_representation: false,
            age_limit: None,
            playoff_of: None,
            received: None,
            participants: Vec::new(),
            pairing: "swiss".into(),
            games: Vec::new(),
        };
        for round in 1..=7u32 {
            let mut order = field.clone();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i + 1));
            }
            for (b, pair) in order.chunks(2).enumerate() {
                let [w, bl] = pair else { continue };
                let d = strength[*w] - strength[*bl];
                let x = rng.below(1000) as i64 + d / 2;
                let result = match x {
                    ..350 => GameResult::BLACK_WINS,
                    350..650 => GameResult::DRAW,
                    _ => GameResult::WHITE_WINS,
                };
                event.games.push(Game {
                    round,
                    board: b as u32 + 1,
                    white: player_u32(*w),
                    black: Some(player_u32(*bl)),
                    result: Some(result),
                    date: None,
                    received: None,
                });
            }
        }
        book.events.push(event);
        book.live.push(true);
    }
    book
}

fn measure(runs: usize, mut f: impl FnMut()) -> (Duration, Duration, Duration) {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    (times[times.len() / 2], times[0], times[times.len() - 1])
}

fn report(name: &str, (median, min, max): (Duration, Duration, Duration)) {
    println!("{name:<52} median {median:>10.3?}  (min {min:.3?}, max {max:.3?})");
}

fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| {
                    l.strip_prefix("VmRSS:")
                        .map(|v| v.trim().trim_end_matches(" kB").parse::<f64>().ok())
                })
                .flatten()
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Phase two, in a fresh process: open the database built by phase one and edit it.
fn use_database(dir: &std::path::Path, events: usize) {
    let t = Instant::now();
    let mut desk = Desk::open(dir, Ssl).expect("open");
    println!(
        "open (load records and stored results, no re-rate): {:.2?}; RSS {:.0} MB",
        t.elapsed(),
        rss_mb()
    );
    let (newest, oldest) = (events - 1, 0);
    let mut flip = 0usize;
    let codes = [
        GameResult::WHITE_WINS,
        GameResult::DRAW,
        GameResult::BLACK_WINS,
    ];
    let mut set = |desk: &mut Desk<Ssl>, event: usize| {
        flip += 1;
        let result = codes[flip % 3];
        desk.apply(Edit::SetResult {
            event,
            round: 7,
            board: 1,
            result: Some(result),
        })
        .expect("result");
    };
    report(
        "one result keyed in the newest event (rate+store+flush)",
        measure(101, || set(&mut desk, newest)),
    );
    report(
        "one result corrected ten years back (whole cascade)",
        measure(11, || set(&mut desk, oldest)),
    );
    let preview = Edit::SetResult {
        event: oldest,
        round: 7,
        board: 2,
        result: Some(GameResult::DRAW),
    };
    report(
        "preview of a correction ten years back",
        measure(5, || {
            std::hint::black_box(desk.preview(&preview).expect("preview"));
        }),
    );
    println!("resident memory with the database open: {:.0} MB", rss_mb());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list") {
        return;
    }
    if let Some(at) = args.iter().position(|a| a == "--use") {
        let dir = std::path::PathBuf::from(&args[at + 1]);
        let events: usize = args[at + 2].parse().expect("events");
        use_database(&dir, events);
        return;
    }
    let players = env("RATEDESK_BENCH_PLAYERS", 30_000);
    let games = env("RATEDESK_BENCH_GAMES", 1_000_000);
    let t = Instant::now();
    let book = federation(players, games);
    let total: usize = book.events.iter().map(|e| e.games.len()).sum();
    println!(
        "federation: {players} players, {} events, {total} games (generated in {:.2?})",
        book.events.len(),
        t.elapsed()
    );

    report(
        "full re-rate in memory (Ledger::build)",
        measure(5, || {
            std::hint::black_box(Ledger::build(&Ssl, &book));
        }),
    );

    if args.iter().any(|a| a == "--rerate-only") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let t = Instant::now();
    let mut desk = Desk::open(dir.path(), Ssl).expect("open");
    let imported: Vec<ImportedPlayer<Ssl>> = (0..players)
        .map(|p| ImportedPlayer::New {
            info: book.players[p].clone(),
            seeds: book.seeds[p].clone(),
            held: vec![],
        })
        .collect();
    desk.apply(Edit::Import {
        players: imported,
        events: book.events.clone(),
    })
    .expect("import");
    desk.close().expect("close");
    println!(
        "import into the database (one audited edit, rated, flushed, backed up): {:.2?}",
        t.elapsed()
    );
    let status = std::process::Command::new(std::env::current_exe().expect("exe"))
        .arg("--use")
        .arg(dir.path())
        .arg(book.events.len().to_string())
        .status()
        .expect("phase two");
    assert!(status.success());
}
