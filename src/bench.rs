//! `ratedesk bench`: every row of DESIGN.md's performance table on a generated federation —
//! national scale (30 000 players, about a million games over ten years) and FIDE scale
//! (a million players, about ten million games) — for any rulebook with a demo federation. The
//! database figures are measured in a fresh process, so cold start and memory are what an
//! officer's session would see, and keyed results go the workstation's own way (keys, preview,
//! confirmation, apply, refresh, redraw). A plain loop over the same games, the *floor*, is
//! timed in the same run: every figure is also given as a multiple of it.

mod floor;
pub mod keyed;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub use floor::Floor;

use crate::app::workstation::state::App;
use crate::app::{Desk, Federation, WithFederation, with_federation};
use crate::demo::{GAMES_PER_OPEN, Params};
use crate::ledger::Ledger;
use crate::rules::ssl::Ssl;

/// The federation sizes measured: players, and games over `years`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    pub players: usize,
    pub games: usize,
    pub years: u32,
}

pub const NATIONAL: Scale = Scale {
    players: 30_000,
    games: 1_000_000,
    years: 10,
};
pub const FIDE: Scale = Scale {
    players: 1_000_000,
    games: 10_000_000,
    years: 10,
};

/// The size `bench --players --years --games-a-year` asks for (all `None`: national scale).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Asked {
    pub players: Option<usize>,
    pub years: Option<u32>,
    pub games_a_year: Option<usize>,
}

impl Asked {
    /// The federation asked for: national scale when no size is given; games a year by the
    /// rulebook's federation's shape (`per_thousand` players) when only the size is.
    pub fn scale(self, per_thousand: usize) -> Scale {
        if self == Self::default() {
            return NATIONAL;
        }
        let players = self.players.unwrap_or(NATIONAL.players);
        let years = self.years.unwrap_or(NATIONAL.years).max(1);
        let a_year = self.games_a_year.unwrap_or(players * per_thousand / 1_000);
        Scale {
            players,
            games: a_year * years as usize,
            years,
        }
    }
}

/// The rulebooks that can be measured, by code.
pub const RULES: [&str; 3] = crate::federations::registry::CODES;

/// Keyed results measured (new results and corrections), at least.
const KEYED: usize = 200;
/// Corrections ten years back measured.
const CASCADES: usize = 7;

/// The generator's parameters for a scale, its opens a year from the games asked for and the
/// games an open holds (`per_open`).
pub fn params(scale: Scale, per_open: usize) -> Params {
    let years = scale.years;
    Params {
        players: scale.players,
        years,
        last_year: 2025,
        seed: 42,
        opens_per_year: Some((scale.games / years as usize / per_open.max(1)).max(1)),
    }
}

/// The games an open of a rulebook's demo holds: national and FIDE scale keep the federations
/// every round was measured on (150 games an open: Turkey's national demo holds 1.32 M games,
/// Iceland's 0.66 M); a size asked for gets about the games it asks (Turkey's opens are larger,
/// its rapid and blitz ones of nine and eleven rounds).
fn per_open<R: Federation>(rulebook: &R, asked: Asked) -> usize {
    if asked == Asked::default() {
        GAMES_PER_OPEN
    } else {
        rulebook.demo_games_per_open()
    }
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// Median and spread (min, max) of some timings, in milliseconds.
pub fn summary(mut times: Vec<Duration>) -> (f64, f64, f64) {
    times.sort();
    (
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1]),
    )
}

/// A percentile of some timings (sorted here), in milliseconds.
pub fn percentile(times: &[Duration], p: f64) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort();
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    ms(sorted[rank.clamp(1, sorted.len()) - 1])
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

/// A rulebook's demo federation at a scale, or why there is none.
type Demo<R> = (crate::book::Book<R>, Vec<std::ops::Range<usize>>);

fn demo<R: Federation>(rulebook: &R, scale: Scale, per_open: usize) -> anyhow::Result<Demo<R>> {
    rulebook.demo(&params(scale, per_open)).ok_or_else(|| {
        let code = rulebook.code();
        anyhow::anyhow!(
            "the {code} rulebook has no demo federation yet, so there is nothing to measure: `ratedesk bench --rules {code}` needs one (`Federation::demo`)"
        )
    })
}

/// Runs the whole set (national only with `quick`) for a rulebook and returns the figures as
/// one object.
pub fn run(rules: &str, quick: bool, asked: Asked) -> anyhow::Result<Value> {
    struct Run(bool, Asked);
    impl WithFederation for Run {
        type Output = anyhow::Result<Value>;
        fn with<R: Federation>(self, rulebook: R) -> Self::Output {
            run_for(rulebook, self.0, self.1)
        }
    }
    with_federation(rules, Run(quick, asked))?
}

/// Adds a phase's figures to the result; one that failed is reported in it as
/// `PHASE_failed` (and on stderr), and the figures measured before and after it are kept.
fn add_phase(result: &mut Value, phase: &str, figures: anyhow::Result<Value>) {
    match (result, figures) {
        (Value::Object(r), Ok(Value::Object(f))) => r.extend(f),
        (Value::Object(r), Err(e)) => {
            say(&format!("the {phase} phase failed: {e:#}"));
            r.insert(format!("{phase}_failed"), json!(format!("{e:#}")));
        }
        _ => {}
    }
}

/// Adds `NAME_floor_x` (the figure as a multiple of the floor) beside every figure in `names`.
fn against_floor(result: &mut Value, floor_ms: f64, names: &[&str]) {
    if let Value::Object(map) = result {
        for name in names {
            if let Some(v) = map.get(*name).and_then(Value::as_f64) {
                let x = (v / floor_ms * 100.0).round() / 100.0;
                map.insert(
                    format!("{}_floor_x", name.trim_end_matches("_ms")),
                    json!(x),
                );
            }
        }
    }
}

fn run_for<R: Federation>(rulebook: R, quick: bool, asked: Asked) -> anyhow::Result<Value> {
    let exe = std::env::current_exe()?;
    let code = rulebook.code();
    let scale = asked.scale(rulebook.games_a_year_per_thousand());
    say(&format!(
        "{code}: generating {} players / ~{} games over {} years …",
        scale.players, scale.games, scale.years
    ));
    let (book, parts) = demo(&rulebook, scale, per_open(&rulebook, asked))?;
    let games: usize = book.events.iter().map(|e| e.games.len()).sum();
    let floor = Floor::new(&rulebook, &book);
    let (floor_t, floor_min, floor_max) = floor.time(7);
    say(&format!(
        "the floor: {} rated games in {:.1} ms; full re-rate of {games} games in {} events …",
        floor.games(),
        ms(floor_t),
        book.events.len()
    ));
    let rerate: Vec<Duration> = (0..3)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(Ledger::build(&rulebook, &book));
            t.elapsed()
        })
        .collect();
    let (full_rerate_ms, full_min, full_max) = summary(rerate);
    let dir = tempfile::tempdir()?;
    say("writing the federation to a database …");
    let t = Instant::now();
    let mut desk = Desk::open(dir.path(), rulebook.clone())?;
    desk.import_in_parts(book, &parts)?;
    desk.close()?;
    // Opened and closed once as the workstation does, which keeps its front page.
    if let Some(warning) = App::new(Desk::open(dir.path(), rulebook)?).close()? {
        anyhow::bail!(warning);
    }
    let build_s = t.elapsed().as_secs_f64();
    let database_mb = (folder_bytes(dir.path())? as f64 / 1e5).round() / 10.0;
    say("`check` in a fresh process …");
    let check_ms = check_in_child(&exe, dir.path())?;
    say("opening it in fresh processes …");
    // Three fresh processes for the median and spread of each figure.
    let mut phases = Vec::new();
    for _ in 0..3 {
        phases.push(phase_in_child(
            &exe,
            &[
                "national".as_ref(),
                "--rules".as_ref(),
                code.as_ref(),
                dir.path().as_os_str(),
            ],
        )?);
    }
    let mut national = merge_phases(&phases);
    let floor_ms = ms(floor_t);
    let mut result = json!({
        "rules": code,
        "players": scale.players,
        "years": scale.years,
        "games": games,
        "floor_ms": floor_ms,
        "floor_spread_ms": [ms(floor_min), ms(floor_max)],
        "full_rerate_ms": full_rerate_ms,
        "full_rerate_spread_ms": [full_min, full_max],
        "database_build_s": (build_s * 10.0).round() / 10.0,
        "database_mb": database_mb,
        "check_ms": check_ms,
    });
    if let (Value::Object(r), Value::Object(n)) = (&mut result, national.take()) {
        r.extend(n);
    }
    say("commands of other processes, the database open and served, then alone …");
    add_phase(&mut result, "served", served(&exe, dir.path()));
    say("several officers: a copy's edit to another's frame, eight keying at once …");
    add_phase(&mut result, "copies", copies_phase(&exe, dir.path()));
    if !quick {
        say(&format!(
            "FIDE scale: {} players / ~{} games, in a fresh process …",
            FIDE.players, FIDE.games
        ));
        let fide = phase_in_child(&exe, &["fide".as_ref(), "--rules".as_ref(), code.as_ref()]);
        add_phase(&mut result, "fide", fide);
        say(&format!(
            "a FIDE rating list of {FIDE_LIST_LINES} lines, imported in a fresh process …"
        ));
        add_phase(
            &mut result,
            "fide_list",
            fide_list_in_child(&exe, FIDE_LIST_LINES),
        );
        say(&format!(
            "a national list of {NATIONAL_CSV_PLAYERS} players, imported in a fresh process …"
        ));
        let csv = phase_in_child(&exe, &["national-csv".as_ref()]);
        add_phase(&mut result, "national_csv", csv);
    }
    against_floor(
        &mut result,
        floor_ms,
        &[
            "full_rerate_ms",
            "cold_start_ms",
            "ready_ms",
            "keyed_result_p50_ms",
            "keyed_result_p99_ms",
            "cascade_10y_ms",
            "cascade_10y_first_ms",
            "search_ms",
            "fide_full_rerate_ms",
        ],
    );
    Ok(result)
}

/// The bytes of the files in a folder and its subfolders.
fn folder_bytes(dir: &Path) -> anyhow::Result<u64> {
    use anyhow::Context;
    let unreadable = || format!("could not read the size of {}", dir.display());
    let mut total = 0;
    for entry in std::fs::read_dir(dir).with_context(unreadable)? {
        let entry = entry.with_context(unreadable)?;
        let meta = entry.metadata().with_context(unreadable)?;
        total += if meta.is_dir() {
            folder_bytes(&entry.path())?
        } else {
            meta.len()
        };
    }
    Ok(total)
}

/// `ratedesk check` on the database in `dir`, in a fresh process: its time, from the start
/// of the process to its end, in milliseconds.
fn check_in_child(exe: &Path, dir: &Path) -> anyhow::Result<f64> {
    let t = Instant::now();
    let out = std::process::Command::new(exe)
        .arg("--db")
        .arg(dir)
        .arg("check")
        .stdout(std::process::Stdio::null())
        .output()?;
    let took = t.elapsed();
    anyhow::ensure!(
        out.status.success(),
        "`check` on the generated database failed: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    Ok(ms(took))
}

/// The national phase's figures over several fresh processes: for each figure the median of
/// the processes' figures, and its spread (the lowest and highest of them).
fn merge_phases(phases: &[Value]) -> Value {
    let mut out = serde_json::Map::new();
    let Some(Value::Object(first)) = phases.first() else {
        return Value::Object(out);
    };
    for (name, value) in first {
        let unit = ["_ms", "_mb"].into_iter().find(|u| name.ends_with(u));
        let (Some(unit), true) = (unit, value.is_number()) else {
            out.insert(name.clone(), value.clone());
            continue;
        };
        let mut all: Vec<f64> = phases
            .iter()
            .filter_map(|p| p.get(name).and_then(Value::as_f64))
            .collect();
        all.sort_by(f64::total_cmp);
        out.insert(name.clone(), json!(all[all.len() / 2]));
        let spread = format!("{}_spread", name.trim_end_matches(unit));
        if all.len() > 1 && !first.contains_key(&format!("{spread}{unit}")) {
            out.insert(
                format!("{spread}{unit}"),
                json!([all[0], all[all.len() - 1]]),
            );
        }
    }
    Value::Object(out)
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

/// When the parent started a phase's process (nanoseconds since the epoch): what a fresh
/// process takes to start up belongs to its cold start.
const SPAWNED: &str = "RATEDESK_BENCH_SPAWNED_NS";

/// How long ago the parent started this process; `None` when it did not say (a phase run by
/// hand), or the clock stepped back.
fn since_spawned() -> Option<Duration> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    let at = std::env::var(SPAWNED).ok()?.parse::<u64>().ok()?;
    now.checked_sub(Duration::from_nanos(at))
}

/// What another process waits for a read-only command while the database is served (by
/// `ratedesk serve`, as by an open workstation), from its start to its end (the answer is one
/// line: its first byte is its last), p50 and p99 of 20; and the same command with the
/// database to itself, for comparison.
fn served(exe: &Path, dir: &Path) -> anyhow::Result<Value> {
    let times = |n: usize| -> anyhow::Result<Vec<Duration>> {
        (0..n)
            .map(|_| {
                let t = Instant::now();
                let out = std::process::Command::new(exe)
                    .arg("--db")
                    .arg(dir)
                    .args(["log", "--head"])
                    .output()?;
                anyhow::ensure!(
                    out.status.success(),
                    "log --head: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                Ok(t.elapsed())
            })
            .collect()
    };
    let server = serve_in_child(exe, dir)?;
    let served = times(20);
    stop_serving(server)?;
    let served = served?;
    let alone = times(20)?;
    Ok(json!({
        "served_read_p50_ms": percentile(&served, 50.0),
        "served_read_p99_ms": percentile(&served, 99.0),
        "alone_read_p50_ms": percentile(&alone, 50.0),
    }))
}

/// `ratedesk serve` on the database in `dir`, in another process, once it serves.
pub fn serve_in_child(exe: &Path, dir: &Path) -> std::io::Result<std::process::Child> {
    use std::io::BufRead;
    let mut server = std::process::Command::new(exe)
        .arg("--db")
        .arg(dir)
        .arg("serve")
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let mut line = String::new();
    if let Some(out) = server.stdout.take() {
        std::io::BufReader::new(out).read_line(&mut line)?;
    }
    Ok(server)
}

/// The copies phase in a fresh process, on the database served by another that this process
/// starts and stops: a phase that dies (killed for want of memory, say) leaves no process
/// serving the database behind, nor holding the output this process reads.
fn copies_phase(exe: &Path, dir: &Path) -> anyhow::Result<Value> {
    let server = serve_in_child(exe, dir)?;
    let copies = phase_in_child(exe, &["copies".as_ref(), dir.as_os_str()]);
    stop_serving(server)?;
    copies
}

/// Stops a [`serve_in_child`] as a service manager does (SIGTERM), and waits for it.
pub fn stop_serving(mut server: std::process::Child) -> std::io::Result<()> {
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status();
    server.wait().map(drop)
}

/// Runs `ratedesk bench --phase ARGS…` in a fresh process and reads its figures: the last line
/// of its output (an import says what it did before them).
fn phase_in_child(exe: &Path, args: &[&std::ffi::OsStr]) -> anyhow::Result<Value> {
    let spawned = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?;
    let out = std::process::Command::new(exe)
        .env(SPAWNED, spawned.as_nanos().to_string())
        .args(["bench", "--phase"])
        .args(args)
        .output()?;
    if !out.status.success() {
        use std::os::unix::process::ExitStatusExt;
        // A process the kernel killed for want of memory says nothing itself.
        let how = match out.status.signal() {
            Some(9) => {
                " (killed: SIGKILL, as the kernel kills a process for want of memory)".into()
            }
            Some(signal) => format!(" (killed by signal {signal})"),
            None => String::new(),
        };
        let said = String::from_utf8_lossy(&out.stderr);
        let said = match said.trim_end() {
            "" => out.status.to_string(),
            said => said.to_string(),
        };
        anyhow::bail!("{said}{how}");
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    Ok(serde_json::from_str(last)?)
}

/// How many players the national-list phase imports: the size whose peak memory the
/// reliability issue bounds (200 000 players, at most 500 MB).
pub const NATIONAL_CSV_PLAYERS: usize = 200_000;

/// The national-list phase, in its own process: writes a Finnish selo list of
/// [`NATIONAL_CSV_PLAYERS`] players (as `export list` writes it), imports it into an empty
/// database as `ratedesk import national-csv --yes` does, closes it (the automatic backup
/// written), and reports the time and the process's peak memory.
pub fn national_csv_phase() -> anyhow::Result<Value> {
    use std::io::Write;
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("selo.csv");
    {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&file)?);
        writeln!(
            out,
            "Id;Sukunimi;Etunimi;Seura;Selo;Selopelejä;Pelo;Pelopelejä;Arvo;FIDE-id;Syntynyt;Sukupuoli"
        )?;
        let clubs = ["HSK", "TuTS", "KoSK", "JoSK", "VaaSK", "LaS"];
        for p in 0..NATIONAL_CSV_PLAYERS {
            let (selo, pelo) = (1000 + p * 7 % 1400, 900 + p * 13 % 1500);
            writeln!(
                out,
                "FIN{:06};Pelaaja{};Etu{};{};{selo};{};{pelo};{};;;{}-{:02}-{:02};{}",
                p + 1,
                p % 5000,
                p % 300,
                clubs[p % clubs.len()],
                p % 120,
                p % 40,
                1940 + p % 70,
                1 + p % 12,
                1 + p % 28,
                if p % 4 == 0 { "N" } else { "M" },
            )?;
        }
        out.flush()?;
    }
    let size_mb = std::fs::metadata(&file)?.len() as f64 / 1e6;
    let (_, before) = memory_mb();
    let t = Instant::now();
    let mut desk = Desk::open(&dir.path().join("db"), Ssl)?;
    let plan = crate::app::import::national_csv::plan(&desk, &file)?;
    anyhow::ensure!(
        plan.new_players == NATIONAL_CSV_PLAYERS,
        "{} new players planned of {NATIONAL_CSV_PLAYERS}",
        plan.new_players
    );
    crate::app::import::national_csv::apply(&mut desk, plan)?;
    desk.close()?;
    let import_ms = ms(t.elapsed());
    let (_, peak) = memory_mb();
    Ok(json!({
        "national_csv_players": NATIONAL_CSV_PLAYERS,
        "national_csv_file_mb": (size_mb * 10.0).round() / 10.0,
        "national_csv_import_ms": import_ms,
        "national_csv_rss_mb": peak,
        "national_csv_rss_before_mb": before,
    }))
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

/// The national phase, in its own process: cold start to the first frame (drawn from the front
/// page while the database opens) and to the open workstation (keys act from then), keyed
/// results and corrections ten years back through the workstation, search per keystroke,
/// resident memory.
pub fn national_phase(rules: &str, dir: &Path) -> anyhow::Result<Value> {
    struct National<'d>(&'d Path);
    impl WithFederation for National<'_> {
        type Output = anyhow::Result<Value>;
        fn with<R: Federation>(self, _: R) -> Self::Output {
            national::<R>(self.0)
        }
    }
    with_federation(rules, National(dir))?
}

fn national<R: Federation>(dir: &Path) -> anyhow::Result<Value> {
    let started = Instant::now();
    let process_start = since_spawned();
    let mut screen = keyed::Screen::new()?;
    let (mut app, opened) = screen.open::<R>(dir, started)?;
    anyhow::ensure!(
        opened.front_page,
        "the first frame was drawn without the front page of {}: it was not kept at the last close, or does not match the database",
        dir.display()
    );
    // From the process's start when the parent said when that was (else from here).
    let before = process_start.unwrap_or_default();
    let cold_start_ms = ms(before + opened.first_frame);
    let ready_ms = ms(before + opened.ready);

    let (search_ms, search_min, search_max) =
        summary(keyed::search_keys(&mut app, &mut screen, 5)?);
    let keyed::KeyedResults {
        first_edit,
        keyed: keyed_all,
    } = keyed::keyed_results(&mut app, &mut screen, KEYED)?;
    let keyed: Vec<Duration> = keyed_all.iter().map(|k| k.shown).collect();
    let keyed_behind: Vec<Duration> = keyed_all.iter().map(|k| k.behind).collect();
    let cascades = keyed::cascades(&mut app, &mut screen, CASCADES)?;
    let (cascade_behind_ms, _, cascade_behind_max) =
        summary(cascades.iter().map(|k| k.behind).collect());
    let (cascade_10y_ms, cascade_min, cascade_max) =
        summary(cascades.iter().map(|k| k.shown).collect());
    let (rss_mb, peak_mb) = memory_mb();
    // After the cascades changed the record: the first showing of each view computes it (the
    // memory above is the workstation's before the selection lists are ever shown).
    let cards = keyed::card_opens(&mut app, &mut screen, 10)?;
    let views = keyed::third_tab_views(&mut app, &mut screen, 5)?;
    let (views_rss_mb, _) = memory_mb();
    let count = keyed.len();
    let (p50, p99, max) = (
        percentile(&keyed, 50.0),
        percentile(&keyed, 99.0),
        percentile(&keyed, 100.0),
    );
    // Closed as the workstation closes: the front page and the search index kept for the next
    // process.
    let closing = Instant::now();
    if let Some(warning) = app.close()? {
        anyhow::bail!(warning);
    }
    let close_ms = ms(closing.elapsed());
    Ok(json!({
        "cold_start_ms": cold_start_ms,
        "ready_ms": ready_ms,
        "process_start_ms": process_start.map(ms),
        "search_ms": search_ms,
        "search_spread_ms": [search_min, search_max],
        // The first edit after the opening writes the first audit entry of the session.
        "first_edit_ms": ms(first_edit),
        "keyed_results": count,
        "keyed_result_p50_ms": p50,
        "keyed_result_p99_ms": p99,
        "keyed_result_max_ms": max,
        "keyed_result_behind_p50_ms": percentile(&keyed_behind, 50.0),
        "keyed_result_behind_p99_ms": percentile(&keyed_behind, 99.0),
        "keyed_result_behind_max_ms": percentile(&keyed_behind, 100.0),
        "cascade_10y_ms": cascade_10y_ms,
        "cascade_10y_spread_ms": [cascade_min, cascade_max],
        // The first correction after the opening: it reads the stored rows of every unit it
        // reaches, which the later ones find read.
        "cascade_10y_first_ms": cascades.first().map(|k| ms(k.shown)),
        "cascade_10y_behind_ms": cascade_behind_ms,
        "cascade_10y_behind_max_ms": cascade_behind_max,
        // The first card after the cascades ranks today's lists; the rest find them ranked.
        "card_open_first_ms": ms(cards.opens[0]),
        "card_open_p50_ms": percentile(&cards.opens, 50.0),
        "card_lists_first_ms": ms(cards.lists[0]),
        "card_lists_p50_ms": percentile(&cards.lists, 50.0),
        "third_tab_switch_p50_ms": percentile(&views.switches, 50.0),
        "third_tab_switch_p99_ms": percentile(&views.switches, 99.0),
        "third_tab_switch_max_ms": percentile(&views.switches, 100.0),
        // None for a rulebook without selection lists.
        "third_tab_slice_max_ms": (!views.slices.is_empty()).then(|| percentile(&views.slices, 100.0)),
        "third_tab_lists_ms": (!views.lists.is_empty()).then(|| percentile(&views.lists, 100.0)),
        "third_tab_rss_mb": views_rss_mb,
        "rss_mb": rss_mb,
        "peak_rss_mb": peak_mb,
        // Closing the workstation: its front page and search index written beside the database.
        "close_ms": close_ms,
    }))
}

/// The FIDE-scale phase, in its own process: generate, re-rate from scratch once, peak memory.
pub fn fide_phase(rules: &str) -> anyhow::Result<Value> {
    struct Fide;
    impl WithFederation for Fide {
        type Output = anyhow::Result<Value>;
        fn with<R: Federation>(self, _: R) -> Self::Output {
            fide::<R>()
        }
    }
    with_federation(rules, Fide)?
}

fn fide<R: Federation>() -> anyhow::Result<Value> {
    let rulebook = R::default();
    let (book, _) = demo(&rulebook, FIDE, GAMES_PER_OPEN)?;
    let games: usize = book.events.iter().map(|e| e.games.len()).sum();
    let t = Instant::now();
    let ledger = Ledger::build(&rulebook, &book);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::isl::Isl;
    use crate::rules::tsf::Tsf;

    #[test]
    fn the_size_asked_for_sets_players_years_and_games_by_the_federations_shape() {
        let asked = |players, years, games_a_year| Asked {
            players,
            years,
            games_a_year,
        };
        let tsf = Tsf.games_a_year_per_thousand();
        assert_eq!(asked(None, None, None).scale(tsf), NATIONAL);
        // Turkey at its full size: 1.5 M rated games a year, 15 M over ten years.
        let turkey = asked(Some(1_000_000), Some(10), None).scale(tsf);
        assert_eq!((turkey.players, turkey.years), (1_000_000, 10));
        assert_eq!(turkey.games, 15_000_000);
        // The national demo's shape for the others: 100 000 games a year for 30 000 players.
        let isl = Isl.games_a_year_per_thousand();
        assert_eq!(asked(Some(30_000), None, None).scale(isl).games, 999_900);
        assert_eq!(asked(Some(3_000), Some(2), None).scale(isl).games, 19_998);
        assert_eq!(asked(None, Some(5), Some(7_000)).scale(isl).games, 35_000);
        // The generator gets the years and about the games a year asked for.
        let size = asked(Some(100_000), Some(5), None);
        let p = params(size.scale(tsf), per_open(&Tsf, size));
        assert_eq!((p.players, p.years), (100_000, 5));
        assert_eq!(p.opens_per_year, Some(150_000 / Tsf.demo_games_per_open()));
        assert_eq!(
            per_open(&Tsf, Asked::default()),
            GAMES_PER_OPEN,
            "as every round measured"
        );
    }

    /// A size asked for is the size generated: Turkey's 1.5 games a year per registered
    /// player give that many games (within a tenth), not a third more.
    #[test]
    fn a_generated_turkish_federation_holds_about_the_games_asked_for() {
        let size = Asked {
            players: Some(20_000),
            years: Some(2),
            games_a_year: None,
        };
        let scale = size.scale(Tsf.games_a_year_per_thousand());
        let (book, _) = demo(&Tsf, scale, per_open(&Tsf, size)).expect("a demo");
        let games: usize = book.events.iter().map(|e| e.games.len()).sum();
        assert_eq!(scale.games, 60_000);
        assert!(
            (54_000..=66_000).contains(&games),
            "{games} games generated for {} asked",
            scale.games
        );
    }
}
