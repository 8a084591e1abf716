//! `ratedesk bench`: every row of DESIGN.md's performance table on a generated federation —
//! national scale (30 000 players, about a million games over ten years) and FIDE scale
//! (a million players, about ten million games). The database figures are measured in a fresh
//! process, so cold start and memory are what an officer's session would see.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::app::state::App;
use crate::app::{Desk, Edit};
use crate::demo::{GAMES_PER_OPEN, Params, generate};
use crate::ledger::Ledger;
use crate::model::GameResult;
use crate::rules::ssl::Ssl;

/// The federation sizes measured.
#[derive(Clone, Copy, Debug)]
pub struct Scale {
    pub players: usize,
    pub games: usize,
}

pub const NATIONAL: Scale = Scale {
    players: 30_000,
    games: 1_000_000,
};
pub const FIDE: Scale = Scale {
    players: 1_000_000,
    games: 10_000_000,
};

fn params(scale: Scale) -> Params {
    let years = 10;
    Params {
        players: scale.players,
        years,
        last_year: 2025,
        seed: 42,
        opens_per_year: Some((scale.games / years as usize / GAMES_PER_OPEN).max(1)),
    }
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// Median and spread (min, max) of some timings, in milliseconds.
fn summary(mut times: Vec<Duration>) -> (f64, f64, f64) {
    times.sort();
    (
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1]),
    )
}

/// Resident and peak memory of this process, in MB.
pub fn memory_mb() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<f64>().ok())
            .map_or(0.0, |kb| (kb / 1024.0).round())
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn say(text: &str) {
    eprintln!("ratedesk bench: {text}");
}

/// Runs the whole set (national only with `quick`) and returns the figures as one object.
pub fn run(quick: bool) -> anyhow::Result<Value> {
    let exe = std::env::current_exe()?;
    let scale = NATIONAL;
    say(&format!(
        "generating {} players / ~{} games …",
        scale.players, scale.games
    ));
    let (book, parts) = generate(&params(scale));
    let games: usize = book.events.iter().map(|e| e.games.len()).sum();
    say(&format!(
        "full re-rate of {games} games in {} events …",
        book.events.len()
    ));
    let rerate: Vec<Duration> = (0..3)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(Ledger::build(&Ssl, &book));
            t.elapsed()
        })
        .collect();
    let (full_rerate_ms, full_min, full_max) = summary(rerate);
    let dir = tempfile::tempdir()?;
    say("writing the federation to a database …");
    let t = Instant::now();
    let mut desk = Desk::open(dir.path(), Ssl)?;
    desk.import_in_parts(book, &parts)?;
    desk.close()?;
    let build_s = t.elapsed().as_secs_f64();
    say("opening it in fresh processes …");
    // Three cold starts for their median and spread; the other figures come from the first.
    let mut national = Value::Null;
    let mut cold = Vec::new();
    for _ in 0..3 {
        let phase = phase_in_child(&exe, &["national".as_ref(), dir.path().as_os_str()])?;
        cold.push(phase["cold_start_ms"].as_f64().unwrap_or(f64::NAN));
        if national.is_null() {
            national = phase;
        }
    }
    cold.sort_by(f64::total_cmp);
    national["cold_start_ms"] = json!(cold[1]);
    national["cold_start_spread_ms"] = json!([cold[0], cold[2]]);
    let mut result = json!({
        "players": scale.players,
        "games": games,
        "full_rerate_ms": full_rerate_ms,
        "full_rerate_spread_ms": [full_min, full_max],
        "database_build_s": (build_s * 10.0).round() / 10.0,
    });
    if let (Value::Object(r), Value::Object(n)) = (&mut result, national) {
        r.extend(n);
    }
    if !quick {
        say(&format!(
            "FIDE scale: {} players / ~{} games, in a fresh process …",
            FIDE.players, FIDE.games
        ));
        let fide = phase_in_child(&exe, &["fide".as_ref()])?;
        if let (Value::Object(r), Value::Object(f)) = (&mut result, fide) {
            r.extend(f);
        }
        say(&format!(
            "a FIDE rating list of {FIDE_LIST_LINES} lines, imported in a fresh process …"
        ));
        let list = fide_list_in_child(&exe, FIDE_LIST_LINES)?;
        if let (Value::Object(r), Value::Object(l)) = (&mut result, list) {
            r.extend(l);
        }
    }
    Ok(result)
}

/// The size of a full FIDE list (about 1.9 million lines in October 2026).
pub const FIDE_LIST_LINES: usize = 1_000_000;

/// Runs the FIDE-list phase in a fresh process and returns its figures.
pub fn fide_list_in_child(exe: &Path, lines: usize) -> anyhow::Result<Value> {
    let lines = lines.to_string();
    phase_in_child(
        exe,
        &["fide-list".as_ref(), "--lines".as_ref(), lines.as_ref()],
    )
}

/// Runs `ratedesk bench --phase ARGS…` in a fresh process and reads its figures: the last line
/// of its output (an import says what it did before them).
fn phase_in_child(exe: &Path, args: &[&std::ffi::OsStr]) -> anyhow::Result<Value> {
    let out = std::process::Command::new(exe)
        .args(["bench", "--phase"])
        .args(args)
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "the {} phase failed: {}",
        args.first().map_or("?".into(), |a| a.to_string_lossy()),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    Ok(serde_json::from_str(last)?)
}

/// The FIDE-list phase, in its own process: writes a combined list of `lines` players (as FIDE
/// publishes it), imports it into an empty database as `ratedesk import fide-list` does, and
/// reports the time, the file's size and the process's peak memory.
pub fn fide_list_phase(lines: usize) -> anyhow::Result<Value> {
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("players_list_foa.txt");
    {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&file)?);
        crate::demo::write_fide_list(&mut out, lines, 100_000_000, 7)?;
        std::io::Write::flush(&mut out)?;
    }
    let size_mb = std::fs::metadata(&file)?.len() as f64 / 1e6;
    let db = dir.path().join("db");
    let (_, before) = memory_mb();
    let t = Instant::now();
    let imported = crate::app::import::fide_list::into_database(
        &db,
        Ssl,
        &[file],
        chrono::NaiveDate::from_ymd_opt(2026, 10, 1),
    );
    let import_ms = ms(t.elapsed());
    let (_, peak) = memory_mb();
    imported.map_err(|e| anyhow::anyhow!("the import of the generated list failed: {e}"))?;
    let held = crate::store::Store::open(&db, "ssl")?.fide_reference_count()?;
    anyhow::ensure!(
        held == lines as u64,
        "{held} reference records held after importing {lines} lines"
    );
    Ok(json!({
        "fide_list_lines": lines,
        "fide_list_file_mb": (size_mb * 10.0).round() / 10.0,
        "fide_list_import_ms": import_ms,
        "fide_list_rss_mb": peak,
        "fide_list_rss_before_mb": before,
    }))
}

/// The national phase, in its own process: cold start to the first frame, search per
/// keystroke, one keyed result, one correction ten years back, resident memory.
pub fn national_phase(dir: &Path) -> anyhow::Result<Value> {
    let started = Instant::now();
    let desk = Desk::open(dir, Ssl)?;
    let mut app = App::new(desk);
    let keymap = crate::ui::keymap::Keymap::load(None, None)?;
    let theme = crate::ui::theme::Theme::choose(Some("dark"), false).0;
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24))?;
    terminal.draw(|f| crate::ui::draw::render(&app, &theme, &keymap, f))?;
    let cold_start_ms = ms(started.elapsed());

    let mut keystrokes = Vec::new();
    for _ in 0..5 {
        for c in "järvinen".chars() {
            let t = Instant::now();
            app.type_char(c);
            keystrokes.push(t.elapsed());
        }
        for _ in 0.."järvinen".chars().count() {
            app.backspace();
        }
    }
    let (search_ms, search_min, search_max) = summary(keystrokes);

    let book = app.desk.book();
    let newest = (0..book.events.len())
        .filter(|&e| book.events[e].games.len() > 1)
        .max_by_key(|&e| (book.events[e].end, e));
    let oldest = (0..book.events.len())
        .filter(|&e| book.events[e].games.len() > 1)
        .min_by_key(|&e| (book.events[e].end, e));
    let (Some(newest), Some(oldest)) = (newest, oldest) else {
        anyhow::bail!("no events")
    };
    let board = |app: &App<Ssl>, e: usize| {
        let g = app.desk.book().events[e]
            .games
            .iter()
            .find(|g| g.black.is_some())
            .cloned();
        g.map(|g| (g.round, g.board))
    };
    let codes = [
        GameResult::WHITE_WINS,
        GameResult::DRAW,
        GameResult::BLACK_WINS,
    ];
    let time_results =
        |app: &mut App<Ssl>, event: usize, n: usize| -> anyhow::Result<Vec<Duration>> {
            let (round, b) = board(app, event).ok_or_else(|| anyhow::anyhow!("no game"))?;
            (0..n)
                .map(|k| {
                    let edit = Edit::SetResult {
                        event,
                        round,
                        board: b,
                        result: Some(codes[k % 3]),
                    };
                    let t = Instant::now();
                    app.desk.apply(edit)?;
                    Ok(t.elapsed())
                })
                .collect()
        };
    let (keyed_result_ms, keyed_min, keyed_max) = summary(time_results(&mut app, newest, 51)?);
    let (cascade_10y_ms, cascade_min, cascade_max) = summary(time_results(&mut app, oldest, 7)?);
    let (rss_mb, peak_mb) = memory_mb();
    app.desk.close()?;
    Ok(json!({
        "cold_start_ms": cold_start_ms,
        "search_ms": search_ms,
        "search_spread_ms": [search_min, search_max],
        "keyed_result_ms": keyed_result_ms,
        "keyed_result_spread_ms": [keyed_min, keyed_max],
        "cascade_10y_ms": cascade_10y_ms,
        "cascade_10y_spread_ms": [cascade_min, cascade_max],
        "rss_mb": rss_mb,
        "peak_rss_mb": peak_mb,
    }))
}

/// The FIDE-scale phase, in its own process: generate, re-rate from scratch once, peak memory.
pub fn fide_phase() -> anyhow::Result<Value> {
    let (book, _) = generate(&params(FIDE));
    let games: usize = book.events.iter().map(|e| e.games.len()).sum();
    let t = Instant::now();
    let ledger = Ledger::build(&Ssl, &book);
    let fide_full_rerate_ms = ms(t.elapsed());
    std::hint::black_box(&ledger);
    let (_, peak) = memory_mb();
    Ok(json!({
        "fide_players": FIDE.players,
        "fide_games": games,
        "fide_full_rerate_ms": fide_full_rerate_ms,
        "fide_rss_mb": peak,
    }))
}
