//! What the tests that drive the real binary share.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `ratedesk --db DB ARGS…` and returns what it did.
pub fn ratedesk(db: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("run ratedesk")
}

/// The standard output of a run that must succeed (its standard error otherwise).
#[allow(dead_code)]
pub fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

/// A date written as the files write it: `2025-03-01`.
/// What changing game `g` of event `e` touches, as the desk finds it: the game, with its
/// players.
pub fn game_touched<R: ratedesk::rules::Rulebook>(
    book: &ratedesk::book::Book<R>,
    e: usize,
    g: usize,
) -> ratedesk::ledger::Touched {
    let game = &book.events[e].games[g];
    let mut touched = ratedesk::ledger::Touched::default();
    touched.game(
        e,
        (game.round, game.board),
        std::iter::once(game.white()).chain(game.black()),
    );
    touched
}

pub fn day(text: &str) -> chrono::NaiveDate {
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("a test date as YYYY-MM-DD")
}

/// A file of `../shared/data`, beside the checkout.
#[allow(dead_code)]
pub fn shared(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(path)
}

/// `ratedesk --db DB results`, its input, output and errors piped: a batch writer to start
/// (after any `.env`, or `.stderr(…)` of the caller's own).
#[allow(dead_code)]
pub fn results_command(db: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ratedesk"));
    command
        .arg("--db")
        .arg(db)
        .arg("results")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    command
}

/// A small federation of `rules` (`isl` or `tsf`) as a `rate` document, built here so that the
/// tests need nothing from outside: eight players (one of another federation) in the names of
/// the country, with starting states of every kind the rulebook has, and five events from 2019
/// to 2025 with every game dated — a round robin in February, an open over the list date of 1
/// June received late, a rapid day, an autumn open, and an event in 2019 that is the last of
/// the foreign player (the eighth).
#[allow(dead_code)]
pub fn federation(rules: &str) -> serde_json::Value {
    use serde_json::json;
    let icelandic = rules == "isl";
    let names: [&str; 8] = if icelandic {
        [
            "Hjartarson, Jóhann",
            "Þórsdóttir, Guðrún",
            "Ólafsson, Helgi",
            "Stefánsdóttir, Lenka",
            "Gunnarsson, Arnar",
            "Björnsson, Sigurður",
            "Kristjánsdóttir, Æsa",
            "Müller, Hans",
        ]
    } else {
        [
            "Yılmaz, Ayşe",
            "Şahin, Mehmet",
            "Güneş, Çağla",
            "Öztürk, İbrahim",
            "Kaya, Emre",
            "Demir, Zeynep",
            "Çelik, Burak",
            "Müller, Hans",
        ]
    };
    let prefix = if icelandic { "IS" } else { "TR" };
    let id = |p: usize| format!("{prefix}{}", 101 + p);
    let states: Vec<serde_json::Value> = if icelandic {
        vec![
            json!({"standard": {"rating": 2410, "games": 400}}),
            json!({"standard": {"rating": 1850, "games": 120}}),
            json!({"standard": {"rating": 1720, "games": 40}, "born": "2008-05-02"}),
            json!({"standard": {"rating": 1600, "games": 14}}),
            json!({"standard": {"rating": 1500, "games": 60}}),
            json!({"standard": {"provisional": {"games": 4, "opponents_sum": 6400, "score": 1.5}}}),
            json!({}),
            json!({"federation": "GER", "standard": {"rating": 2200, "games": 30}}),
        ]
    } else {
        vec![
            json!({"standard": {"rating": 2100, "games": 80}, "rapid": {"rating": 2000, "games": 20}}),
            json!({"standard": {"rating": 1850, "games": 40}}),
            json!({"standard": {"rating": 1700, "games": 30}, "blitz": {"rating": 1650, "games": 10}}),
            json!({"standard": {"rating": 1500, "games": 12}}),
            json!({"standard": {"rating": 1300, "games": 8}}),
            json!({"standard": {"performances": [{"performance": 1450, "games": 3}]}}),
            json!({}),
            json!({"federation": "GER", "fide": [{"list_date": "2019-01-01", "standard": 2250, "rapid": 2200, "blitz": null}]}),
        ]
    };
    let players: Vec<serde_json::Value> = states
        .into_iter()
        .enumerate()
        .map(|(p, mut v)| {
            v["id"] = json!(id(p));
            v["name"] = json!(names[p]);
            v
        })
        .collect();
    // A round robin by the circle method, `days` dates for its rounds in turn.
    let robin = |event: &str,
                 who: &[usize],
                 rounds: usize,
                 days: &[&str],
                 per_day: usize,
                 minutes: u32,
                 extra: serde_json::Value| {
        let n = who.len();
        let mut games = Vec::new();
        for r in 0..rounds {
            let mut ring: Vec<usize> = (0..n).collect();
            ring[1..].rotate_right(r % (n - 1));
            for b in 0..n / 2 {
                let (w, bl) = if (r + b) % 2 == 0 {
                    (ring[b], ring[n - 1 - b])
                } else {
                    (ring[n - 1 - b], ring[b])
                };
                let result = ["1-0", "0-1", "1/2-1/2", "1-0", "0-1"][(w * 3 + bl + r) % 5];
                games.push(json!({
                    "round": r + 1, "board": b + 1, "white": id(who[w]), "black": id(who[bl]),
                    "result": result, "date": days[(r / per_day).min(days.len() - 1)],
                }));
            }
        }
        let mut e = json!({
            "id": event, "name": event, "start": days[0], "end": days[days.len() - 1],
            "time_control": {"base_minutes": minutes, "increment_seconds": 10},
            "abroad": false, "pairing": "swiss", "games": games,
        });
        if let serde_json::Value::Object(m) = extra {
            for (k, v) in m {
                e[k] = v;
            }
        }
        e
    };
    let home = if icelandic { "reykjavik" } else { "ankara" };
    let events = vec![
        robin(
            &format!("{home}-2019"),
            &[0, 1, 2, 3, 4, 7],
            5,
            &["2019-11-08", "2019-11-09", "2019-11-10"],
            2,
            90,
            json!({}),
        ),
        robin(
            &format!("{home}-winter-2025"),
            &[0, 1, 2, 3, 5, 6],
            5,
            &["2025-02-20", "2025-02-21", "2025-02-22"],
            2,
            90,
            json!({"pairing": "round_robin"}),
        ),
        robin(
            &format!("{home}-spring-2025"),
            &[0, 1, 2, 3, 4, 5],
            5,
            &[
                "2025-05-29",
                "2025-05-30",
                "2025-05-31",
                "2025-06-01",
                "2025-06-02",
            ],
            1,
            90,
            json!({"received": "2025-06-27"}),
        ),
        robin(
            &format!("{home}-rapid-2025"),
            &[0, 1, 2, 4, 5, 6],
            5,
            &["2025-09-13"],
            5,
            15,
            json!({}),
        ),
        robin(
            &format!("{home}-autumn-2025"),
            &[1, 2, 3, 4, 5, 6],
            5,
            &["2025-10-10", "2025-10-11", "2025-10-12"],
            2,
            90,
            json!({}),
        ),
    ];
    json!({"rules": rules, "players": players, "events": events})
}

/// [`federation`] written to `dir/NAME.json`, its path.
#[allow(dead_code)]
pub fn federation_file(dir: &Path, rules: &str) -> PathBuf {
    let file = dir.join(format!("{rules}.json"));
    std::fs::write(&file, federation(rules).to_string()).expect("write the document");
    file
}

/// A backup of a database restored from `first`: `first` as it was, and after it the one audit
/// entry the restore wrote (restoring into an empty folder is audited too).
#[allow(dead_code)]
pub fn assert_restored_as(first: &Path, second: &Path) {
    let (first, second) = (
        std::fs::read_to_string(first).expect("first backup"),
        std::fs::read_to_string(second).expect("second backup"),
    );
    let added = second
        .strip_prefix(first.as_str())
        .unwrap_or_else(|| panic!("the restored database's backup does not begin with the first"));
    let lines: Vec<&str> = added.lines().collect();
    assert_eq!(lines.len(), 1, "{added}");
    assert!(
        lines[0].starts_with("audit {") && lines[0].contains("\"kind\":\"Restore\""),
        "{added}"
    );
}
