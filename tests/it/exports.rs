//! The federation's publications from a database: the national list as the selo service's CSV
//! (which imports back into a new database and exports the same), as text and HTML with ranks
//! and changes, and Iceland's and Turkey's lists by their own rules; an event's rating report;
//! a player's history; TRF26's national records per rulebook. Each is checked against the
//! `rate`-format export of the same database, an independent path to the same figures.

use serde_json::Value;
use std::path::{Path, PathBuf};

use crate::common::{ok, ratedesk};

/// The example federation of `demo/autumn-2025.json` in a new database.
fn example(dir: &Path) -> PathBuf {
    let db = dir.join("db");
    let doc = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/autumn-2025.json");
    ok(&ratedesk(
        &db,
        &["import", "json", doc.to_str().expect("utf-8")],
    ));
    db
}

fn ratings(db: &Path) -> Value {
    serde_json::from_str(&ok(&ratedesk(db, &["export", "ratings"]))).expect("json")
}

#[test]
fn the_selo_csv_round_trips_through_a_new_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = example(dir.path());
    let csv = ok(&ratedesk(&db, &["export", "list", "--date", "2025-12-31"]));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "Id;Sukunimi;Etunimi;Seura;Selo;Selopelejä;Pelo;Pelopelejä;Arvo;FIDE-id;Syntynyt;Sukupuoli"
        )
    );
    // Every Finn with a rating, with the figures `export ratings` gives.
    let doc = ratings(&db);
    let rated: Vec<&Value> = doc["players"]
        .as_array()
        .expect("players")
        .iter()
        .filter(|p| p["selo"]["rating"].is_number() || p["pelo"]["rating"].is_number())
        .filter(|p| p["id"].as_str().is_some_and(|id| id.starts_with("FIN")))
        .collect();
    // The header, a row per rated Finn, and the audit head at the foot.
    assert_eq!(csv.lines().count() - 2, rated.len());
    assert!(
        csv.lines()
            .last()
            .is_some_and(|l| l.starts_with("# audit head #")),
        "{csv}"
    );
    // A strict CSV reader takes every row, the head's too.
    let mut strict = csv::ReaderBuilder::new()
        .delimiter(b';')
        .from_reader(csv.as_bytes());
    assert!(strict.records().all(|r| r.is_ok()), "{csv}");
    for p in &rated {
        let id = p["id"].as_str().expect("id");
        let row: Vec<&str> = csv
            .lines()
            .find(|l| l.starts_with(&format!("{id};")))
            .unwrap_or_else(|| panic!("{id} is not on the list"))
            .split(';')
            .collect();
        let figure = |v: &Value| v.as_i64().map(|n| n.to_string()).unwrap_or_default();
        assert_eq!(row[4], figure(&p["selo"]["rating"]), "{id} selo");
        assert_eq!(row[5], figure(&p["selo"]["games"]), "{id} selo games");
        assert_eq!(row[6], figure(&p["pelo"]["rating"]), "{id} pelo");
    }
    let file = dir.path().join("selo.csv");
    std::fs::write(&file, &csv).expect("write");
    let file = file.to_str().expect("utf-8");
    let fresh = dir.path().join("fresh");
    let said = ok(&ratedesk(&fresh, &["import", "selo-csv", file]));
    assert!(
        said.contains(&format!("{} new players", rated.len())),
        "{said}"
    );
    assert!(said.contains("nothing imported"), "{said}");
    ok(&ratedesk(&fresh, &["import", "selo-csv", "--yes", file]));
    let again = ok(&ratedesk(
        &fresh,
        &["export", "list", "--date", "2025-12-31"],
    ));
    // The same list, at the foot of another database's history.
    let rows = |list: &str| -> Vec<String> {
        list.lines()
            .filter(|l| !l.starts_with("# audit head"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        rows(&again),
        rows(&csv),
        "the list seeds a new database with the same figures"
    );
    assert_ne!(again, csv, "each carries its own database's head");
    // A second import finds everyone already there.
    let said = ok(&ratedesk(&fresh, &["import", "selo-csv", "--yes", file]));
    assert!(
        said.contains(&format!("0 new players, {} already", rated.len())),
        "{said}"
    );
    // A bad cell is refused with its place, and nothing changes.
    std::fs::write(
        dir.path().join("bad.csv"),
        "Id;Sukunimi;Etunimi;Selo\nX1;A;B;1800\nX2;C;D;18o0\n",
    )
    .expect("write");
    let out = ratedesk(
        &fresh,
        &[
            "import",
            "selo-csv",
            "--yes",
            dir.path().join("bad.csv").to_str().expect("utf-8"),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("line 3, column Selo"), "{message}");
    assert!(
        !ok(&ratedesk(
            &fresh,
            &["export", "list", "--date", "2025-12-31"]
        ))
        .contains("X1;")
    );
}

#[test]
fn the_printable_list_ranks_and_shows_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = example(dir.path());
    let text = ok(&ratedesk(
        &db,
        &[
            "export",
            "list",
            "--format",
            "text",
            "--date",
            "2025-12-31",
            "--previous",
            "2025-09-15",
        ],
    ));
    assert!(text.starts_with("Finnish selo list 2025-12-31\n"), "{text}");
    assert!(text.contains("change since 2025-09-15"));
    let csv_on = |date: &str| -> Vec<(String, Option<i64>)> {
        ok(&ratedesk(&db, &["export", "list", "--date", date]))
            .lines()
            .skip(1)
            .filter(|l| !l.starts_with("# audit head"))
            .map(|l| {
                let f: Vec<&str> = l.split(';').collect();
                (format!("{}, {}", f[1], f[2]), f[4].parse().ok())
            })
            .collect()
    };
    let (now, before) = (csv_on("2025-12-31"), csv_on("2025-09-15"));
    // The table, then a blank line and the audit head.
    let (table, foot) = text.rsplit_once("\n\n").expect("a foot");
    assert!(foot.starts_with("audit head #"), "{foot}");
    let rows: Vec<Vec<&str>> = table
        .lines()
        .skip(5)
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    assert!(!rows.is_empty());
    let mut last: Option<(usize, i64)> = None;
    for row in &rows {
        let rank: usize = row[0].parse().expect("rank");
        let rating: i64 = row[2].trim_end_matches('*').parse().expect("rating");
        if let Some((r, previous)) = last {
            assert!(rating <= previous, "ranked by rating");
            assert_eq!(rank == r, rating == previous, "ties share a rank");
        }
        last = Some((rank, rating));
        let name = row[1];
        assert_eq!(
            now.iter().find(|(n, _)| n == name).and_then(|r| r.1),
            Some(rating)
        );
        let change = row.last().expect("change");
        match before.iter().find(|(n, _)| n == name).and_then(|r| r.1) {
            Some(b) if rating == b => assert_eq!(*change, "±0", "{name}"),
            Some(b) => assert_eq!(*change, format!("{:+}", rating - b), "{name}"),
            None => assert_eq!(*change, "new", "{name}"),
        }
    }
    let html = ok(&ratedesk(
        &db,
        &[
            "export",
            "list",
            "--format",
            "html",
            "--list",
            "pelo",
            "--date",
            "2025-12-31",
        ],
    ));
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("Finnish pelo list"));
    assert!(html.contains("<td>Järvinen, Aino</td>"));
}

#[test]
fn the_event_report_and_histories_agree_with_the_ratings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = example(dir.path());
    let doc = ratings(&db);
    let event = doc["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["list"] == "selo" && e["players"].as_array().is_some_and(|p| p.len() > 3))
        .expect("a rated event");
    let id = event["id"].as_str().expect("id");
    let report = ok(&ratedesk(&db, &["export", "report", id]));
    assert!(report.starts_with("Rating report: "), "{report}");
    let names: Value =
        serde_json::from_str(&ok(&ratedesk(&db, &["export", "events"]))).expect("json");
    let name_of = |pid: &str| {
        names["players"]
            .as_array()
            .expect("players")
            .iter()
            .find(|p| p["id"] == pid)
            .and_then(|p| p["name"].as_str())
            .expect("name")
            .to_string()
    };
    for p in event["players"].as_array().expect("players") {
        let name = name_of(p["id"].as_str().expect("id"));
        let line = report
            .lines()
            .find(|l| l.contains(&name))
            .unwrap_or_else(|| panic!("{name} is not in the report"));
        assert!(
            line.contains(&format!("  {}  ", p["new"])),
            "{name}: new {} in {line}",
            p["new"]
        );
    }
    let html = ok(&ratedesk(
        &db,
        &["export", "report", id, "--format", "html"],
    ));
    assert!(html.contains("<th>Perf</th>"));
    // A player's history: one line per rated game, ending at his published rating.
    let player = event["players"][0]["id"].as_str().expect("id");
    let history = ok(&ratedesk(&db, &["export", "history", player]));
    let mut reader = csv::Reader::from_reader(history.as_bytes());
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    let games: i64 = doc["events"]
        .as_array()
        .expect("events")
        .iter()
        .flat_map(|e| e["players"].as_array().into_iter().flatten())
        .filter(|p| p["id"] == player)
        .map(|p| p["games"].as_i64().expect("games"))
        .sum();
    assert_eq!(rows.len() as i64, games);
    let selo = doc["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["id"] == player)
        .map(|p| p["selo"]["rating"].to_string())
        .expect("player");
    let last_selo = rows
        .iter()
        .rev()
        .find(|r| &r[0] == "selo")
        .expect("a selo game");
    assert_eq!(&last_selo[13], selo.as_str());
    let out = ratedesk(&db, &["export", "history", "Nobody, Here"]);
    assert_eq!(out.status.code(), Some(2));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// The selo CSV reader takes random bytes and mutated lists without a panic.
    #[test]
    fn the_selo_csv_reader_never_panics(
        bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
        at in 0usize..400,
        junk in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..12),
    ) {
        let _ = ratedesk::import::national_csv::parse(&bytes, &ratedesk::import::national_csv::FINNISH);
        let mut list = b"Id;Sukunimi;Etunimi;Seura;Selo;Selopelej\xc3\xa4;Pelo;Pelopelej\xc3\xa4;Arvo;FIDE-id;Syntynyt;Sukupuoli\r\nFIN1;M\xc3\xa4kel\xc3\xa4;Eero;HSK;1850;120;1700;4;I;500001;1983-07-19;M\r\nFIN2;Ek;Anna;;;;1400;2;;;;N\r\n".to_vec();
        let at = at % (list.len() + 1);
        list.splice(at..at, junk);
        let _ = ratedesk::import::national_csv::parse(&list, &ratedesk::import::national_csv::FINNISH);
    }
}

/// A master's title (SSL 6.3) is on the list only once the rating committee has confirmed it;
/// until then the list shows the highest title below it.
#[test]
fn the_list_shows_a_masters_title_once_it_is_confirmed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let doc = dir.path().join("m.json");
    std::fs::write(
        &doc,
        r#"{"rules": "ssl", "players": [
            {"id": "FIN1", "name": "Mestari, Matti", "selo": {"rating": 2196, "games": 60, "normal_games": 60}},
            {"id": "FIN2", "name": "Vahva, Ville", "selo": {"rating": 2400, "games": 200, "normal_games": 200}}
        ], "events": [
            {"id": "e1", "start": "2025-10-04", "end": "2025-10-05",
             "time_control": {"base_minutes": 90, "increment_seconds": 30},
             "games": [{"round": 1, "white": "FIN1", "black": "FIN2", "result": "1-0"}]}
        ]}"#,
    )
    .expect("write");
    ok(&ratedesk(
        &db,
        &["import", "json", doc.to_str().expect("utf-8")],
    ));
    let title = |date: &str| {
        let csv = ok(&ratedesk(&db, &["export", "list", "--date", date]));
        let row = csv
            .lines()
            .find(|l| l.starts_with("FIN1;"))
            .expect("on the list")
            .to_string();
        row.split(';').nth(8).expect("Arvo").to_string()
    };
    assert_eq!(title("2025-10-03"), "", "before the event");
    assert_eq!(title("2025-10-06"), "ME", "M reached, not yet confirmed");
    ok(&ratedesk(
        &db,
        &["confirm", "FIN1", "M", "--date", "2025-11-01"],
    ));
    assert_eq!(title("2025-10-31"), "ME");
    assert_eq!(title("2025-11-01"), "M");
}

/// Each player's points in an `export events` document, by event and player id (byes and
/// forfeits with their points, unplayed games included).
fn points(doc: &Value) -> std::collections::BTreeMap<(String, String), u32> {
    let mut points = std::collections::BTreeMap::new();
    for event in doc["events"].as_array().expect("events") {
        let id = event["id"].as_str().expect("event id").to_string();
        for game in event["games"].as_array().expect("games") {
            let Some(code) = game["result"].as_str() else {
                continue;
            };
            let r = ratedesk::model::GameResult::parse(code)
                .unwrap_or_else(|| panic!("{id}: bad code {code}"));
            let mut add = |side: &Value, halves: u8| {
                if let Some(p) = side.as_str() {
                    *points.entry((id.clone(), p.to_string())).or_insert(0) += u32::from(halves);
                }
            };
            add(&game["white"], r.white_halves);
            add(&game["black"], r.black_halves);
        }
    }
    points
}

/// SSL 2.9 and the contract's bye codes: every real TRF sample — half-point byes (`0000 - H`,
/// ICU's blank rounds) and forfeits among them — goes through `export events`, a new database
/// and `export events` again with every player's points unchanged, equal to the file's own
/// points column, and with the same ratings.
#[test]
fn rule_2_9_every_trf_sample_keeps_its_points_through_export_events() {
    let dir = tempfile::tempdir().expect("tempdir");
    let samples = std::fs::read_dir(crate::common::shared("trf")).expect("the TRF samples");
    let mut files: Vec<PathBuf> = samples
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "trf" || x == "tab"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 10, "the ten samples of SOURCES.md");
    let mut half_byes = 0;
    // In process, as the command line does it (`import trf --yes`, `export events`, `import
    // json`, `export ratings`), one database per sample and one for its export.
    use ratedesk::app::{Desk, Edit, publish, trf_import};
    use ratedesk::rules::ssl::Ssl;
    for (k, file) in files.iter().enumerate() {
        let name = file.file_name().and_then(|n| n.to_str()).expect("name");
        let mut first = Desk::open(&dir.path().join(format!("a{k}")), Ssl).expect("open");
        let plan = trf_import::plan(&first, file, &trf_import::Given::default())
            .or_else(|_| {
                // Three samples give no time control that can be read: the officer gives it.
                let given = trf_import::Given {
                    time_control: Some("90+30".into()),
                    ..trf_import::Given::default()
                };
                trf_import::plan(&first, file, &given)
            })
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        first.apply(plan.edit).expect("imported");
        // Stored, and read back as the next command would read it.
        drop(first);
        let first = Desk::open(&dir.path().join(format!("a{k}")), Ssl).expect("reopen");
        let doc = publish::events_document(&first, None);
        half_byes += doc["events"][0]["games"]
            .as_array()
            .expect("games")
            .iter()
            .filter(|g| g["black"].is_null() && g["result"] == "1/2-0")
            .count();

        // The file's own points column, by start number (the order of `participants`).
        let trf = ratedesk::import::trf::parse(&std::fs::read(file).expect("read"))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let participants = doc["events"][0]["participants"]
            .as_array()
            .expect("participants");
        let by_file = points(&doc);
        let event = doc["events"][0]["id"].as_str().expect("id").to_string();
        for p in &trf.players {
            let Some(expected) = p.points else { continue };
            let id = participants[p.start_number as usize - 1]
                .as_str()
                .expect("id");
            let got = by_file
                .get(&(event.clone(), id.to_string()))
                .copied()
                .unwrap_or(0);
            assert_eq!(
                got, expected,
                "{name}: player {} {}",
                p.start_number, p.name
            );
        }

        let read = ratedesk::json::read(&Ssl, &doc.to_string())
            .unwrap_or_else(|e| panic!("{name}: its export is refused: {e}"));
        let mut second = Desk::open(&dir.path().join(format!("b{k}")), Ssl).expect("open");
        second
            .apply(Edit::import_new(read.book))
            .expect("imported back");
        drop(second);
        let second = Desk::open(&dir.path().join(format!("b{k}")), Ssl).expect("reopen");
        let again = publish::events_document(&second, None);
        assert_eq!(points(&again), by_file, "{name}: points changed");
        assert_eq!(
            publish::ratings_document(&second, None).into_value(),
            publish::ratings_document(&first, None).into_value(),
            "{name}: ratings changed"
        );
    }
    assert!(
        half_byes > 100,
        "half-point byes in the samples: {half_byes}"
    );
}

/// An unplayed half point between two players (a TRF `D`, a game of less than one move) has
/// no code in the contract: `export events` marks it `"played": false`, and it reads back
/// unplayed, with its points, and unrated.
#[test]
fn rule_2_9_an_unplayed_draw_between_two_players_stays_unplayed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let doc = serde_json::json!({
        "rules": "ssl",
        "players": [{"id": "a", "selo": {"rating": 1800, "games": 30}},
                    {"id": "b", "selo": {"rating": 1700, "games": 30}},
                    {"id": "c", "selo": {"rating": 1600, "games": 30}}],
        "events": [{"id": "e", "start": "2025-03-01", "end": "2025-03-02",
            "games": [
                {"round": 1, "white": "a", "black": "b", "result": "1/2-1/2", "played": false},
                {"round": 1, "white": "c", "black": null, "result": "1/2-0"},
                {"round": 2, "white": "b", "black": "c", "result": "1-0"},
                {"round": 2, "white": "a", "black": null, "result": "+-"}]}]
    });
    let file = dir.path().join("in.json");
    std::fs::write(&file, doc.to_string()).expect("write");
    let db = dir.path().join("db");
    ok(&ratedesk(
        &db,
        &["import", "json", file.to_str().expect("utf-8")],
    ));
    let exported: Value =
        serde_json::from_str(&ok(&ratedesk(&db, &["export", "events"]))).expect("json");
    let games = exported["events"][0]["games"].as_array().expect("games");
    let codes: Vec<(&str, bool)> = games
        .iter()
        .map(|g| {
            (
                g["result"].as_str().expect("code"),
                g.get("played").is_none(),
            )
        })
        .collect();
    assert_eq!(
        codes,
        vec![
            ("1/2-1/2", false),
            ("1/2-0", true),
            ("1-0", true),
            ("+-", true)
        ]
    );
    let rated = ratings(&db);
    let a = rated["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["id"] == "a")
        .expect("a");
    assert_eq!(a["selo"]["games"], 30, "a played no rated game");
}

/// A database of `rules` holding the small federation of `crate::common::federation`.
fn federation_db(dir: &Path, rules: &str) -> PathBuf {
    let db = dir.join(rules);
    let doc = crate::common::federation_file(dir, rules);
    ok(&ratedesk(
        &db,
        &["import", "json", doc.to_str().expect("path")],
    ));
    db
}

/// The CSV's rows by id, each as its cells.
fn rows(csv: &str) -> std::collections::BTreeMap<String, Vec<String>> {
    csv.lines()
        .skip(1)
        .filter(|l| !l.starts_with("# audit head"))
        .map(|l| {
            let cells: Vec<String> = l.split(';').map(str::to_string).collect();
            (cells[0].clone(), cells)
        })
        .collect()
}

/// Iceland's list (Birting stiga á lista): quarterly — any day gives the list of the quarter's
/// first day — with a player on it while he has a rating of at least 1000 and a game in the
/// last five years (the foreign player whose last event was in 2019 is on the list of 1
/// December 2019 and off those of 2025), `*` before 25 games, the change since the list
/// before; its CSV seeds a new Icelandic database with the same ratings.
#[test]
fn the_icelandic_list_is_quarterly_with_its_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = federation_db(dir.path(), "isl");
    let csv = ok(&ratedesk(&db, &["export", "list", "--date", "2025-12-15"]));
    assert_eq!(
        csv.lines().next(),
        Some("Id;Surname;Given names;Club;Rating;Games;Change;FIDE id;Born;Sex")
    );
    let now = rows(&csv);
    let doc = ratings(&db);
    for p in doc["players"].as_array().expect("players") {
        let id = p["id"].as_str().expect("id");
        match now.get(id) {
            Some(row) => {
                assert_eq!(row[4], p["standard"]["rating"].to_string(), "{id}");
                assert_eq!(row[5], p["standard"]["games"].to_string(), "{id}");
            }
            None => assert!(
                id == "IS108" || p["standard"]["rating"].is_null(),
                "{id} is missing from the list"
            ),
        }
    }
    assert!(!now.contains_key("IS108"), "no game in five years");
    let in_2019 = rows(&ok(&ratedesk(
        &db,
        &["export", "list", "--date", "2019-12-01"],
    )));
    assert!(in_2019.contains_key("IS108"));
    let before = rows(&ok(&ratedesk(
        &db,
        &["export", "list", "--date", "2025-09-01"],
    )));
    for (id, row) in &now {
        let change = match before.get(id) {
            Some(b) => format!(
                "{:+}",
                row[4].parse::<i64>().expect("rating") - b[4].parse::<i64>().expect("rating")
            ),
            None => "new".into(),
        };
        assert_eq!(row[6], change, "{id}");
    }
    let text = ok(&ratedesk(
        &db,
        &["export", "list", "--format", "text", "--date", "2025-12-15"],
    ));
    assert!(
        text.starts_with("Icelandic rating list 2025-12-01\n"),
        "{text}"
    );
    assert!(text.contains("change since 2025-09-01"), "{text}");
    for (id, row) in &now {
        let games: u32 = row[5].parse().expect("games");
        let name = format!("{}, {}", row[1], row[2]);
        let line = text
            .lines()
            .find(|l| l.contains(&name))
            .unwrap_or_else(|| panic!("{id} on the page"));
        assert_eq!(line.contains('*'), games < 25, "{line}");
    }
    // The list seeds a new Icelandic database.
    let file = dir.path().join("isl-list.csv");
    std::fs::write(&file, &csv).expect("write");
    let fresh = dir.path().join("fresh");
    ok(&ratedesk(&fresh, &["init", "--rules", "isl"]));
    let said = ok(&ratedesk(
        &fresh,
        &[
            "import",
            "national-csv",
            "--yes",
            file.to_str().expect("path"),
        ],
    ));
    assert!(
        said.contains(&format!("{} new players", now.len())),
        "{said}"
    );
    let seeded: Value =
        serde_json::from_str(&ok(&ratedesk(&fresh, &["export", "events"]))).expect("json");
    for p in seeded["players"].as_array().expect("players") {
        let row = &now[p["id"].as_str().expect("id")];
        assert_eq!(p["standard"]["rating"].to_string(), row[4]);
        assert_eq!(p["standard"]["games"].to_string(), row[5]);
    }
}

/// Turkey's monthly lists, one per tempo (B.2.e: UKD, UHS, UYS): every player with a UKD on the
/// list, dated the first of the month; the CSV holds the three lists and reads back into a new
/// Turkish database that writes the same lists.
#[test]
fn the_turkish_lists_are_monthly_for_three_tempos() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = federation_db(dir.path(), "tsf");
    let csv = ok(&ratedesk(&db, &["export", "list", "--date", "2025-11-20"]));
    assert_eq!(
        csv.lines().next(),
        Some(
            "Id;Surname;Given names;Club;UKD;UKD games;UKD change;UHS;UHS games;UHS change;UYS;UYS games;UYS change;FIDE id;Born;Sex"
        )
    );
    let now = rows(&csv);
    let doc = ratings(&db);
    for p in doc["players"].as_array().expect("players") {
        let id = p["id"].as_str().expect("id");
        for (list, at) in [("standard", 4), ("rapid", 7), ("blitz", 10)] {
            let shown = now.get(id).map_or("", |row| row[at].as_str());
            let rating = p[list]["rating"].as_i64().map(|r| r.to_string());
            assert_eq!(shown, rating.as_deref().unwrap_or(""), "{id} {list}");
        }
    }
    for (list, title) in [
        ("standard", "Turkish UKD list (standard) 2025-11-01"),
        ("rapid", "Turkish UHS list (rapid) 2025-11-01"),
        ("blitz", "Turkish UYS list (blitz) 2025-11-01"),
    ] {
        let page = ok(&ratedesk(
            &db,
            &[
                "export",
                "list",
                "--format",
                "text",
                "--list",
                list,
                "--date",
                "2025-11-20",
            ],
        ));
        assert!(page.starts_with(&format!("{title}\n")), "{page}");
        assert!(page.contains("change since 2025-10-01"), "{page}");
    }
    let out = ratedesk(
        &db,
        &["export", "list", "--format", "text", "--list", "selo"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("standard, rapid, blitz"));
    // The CSV seeds a new Turkish database with the same lists (the changes aside: the new
    // database has no earlier list).
    let file = dir.path().join("tsf-list.csv");
    std::fs::write(&file, &csv).expect("write");
    let fresh = dir.path().join("fresh");
    ok(&ratedesk(&fresh, &["init", "--rules", "tsf"]));
    ok(&ratedesk(
        &fresh,
        &[
            "import",
            "national-csv",
            "--yes",
            file.to_str().expect("path"),
        ],
    ));
    let again = rows(&ok(&ratedesk(
        &fresh,
        &["export", "list", "--date", "2025-11-20"],
    )));
    let without_changes = |rows: &std::collections::BTreeMap<String, Vec<String>>| {
        rows.iter()
            .map(|(id, r)| {
                let kept: Vec<String> = r
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| ![6, 9, 12].contains(i))
                    .map(|(_, c)| c.clone())
                    .collect();
                (id.clone(), kept)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(without_changes(&again), without_changes(&now));
}

/// TRF26 per rulebook: the national-rating records carry the federation's code, each home
/// player's rating going into the event and his national id; imported into a database that
/// knows the players by those ids (and not by FIDE id), every player with a record is found by
/// it.
#[test]
fn trf26_national_records_carry_the_federation_and_match_players_back() {
    for (rules, code, prefix, event) in [
        ("isl", "ISL", "IS", "reykjavik-autumn-2025"),
        ("tsf", "TUR", "TR", "ankara-autumn-2025"),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = federation_db(dir.path(), rules);
        let trf = ok(&ratedesk(&db, &["export", "trf", event, "--trf26"]));
        let records: Vec<&str> = trf
            .lines()
            .filter(|l| l.starts_with(&format!("{code} ")))
            .collect();
        assert!(records.len() >= 4, "{rules}: {trf}");
        // Columns as TRF numbers them (characters, from 1).
        let column = |line: &str, from: usize, to: usize| -> String {
            line.chars()
                .skip(from - 1)
                .take(to + 1 - from)
                .collect::<String>()
                .trim()
                .to_string()
        };
        for r in &records {
            let id = column(r, 58, 68);
            assert!(id.starts_with(prefix), "{rules}: {r}");
            assert!(column(r, 49, 52).parse::<u32>().is_ok(), "{rules}: {r}");
        }
        // Home players are written with the home federation's code.
        assert!(
            trf.lines()
                .filter(|l| l.starts_with("001"))
                .all(|l| column(l, 54, 56) == code),
            "{trf}"
        );
        let file = dir.path().join(format!("{event}.trf"));
        std::fs::write(&file, &trf).expect("write");
        let csv = dir.path().join("list.csv");
        std::fs::write(
            &csv,
            ok(&ratedesk(&db, &["export", "list", "--date", "2025-12-31"])),
        )
        .expect("write");
        let fresh = dir.path().join("fresh");
        ok(&ratedesk(&fresh, &["init", "--rules", rules]));
        ok(&ratedesk(
            &fresh,
            &[
                "import",
                "national-csv",
                "--yes",
                csv.to_str().expect("path"),
            ],
        ));
        let said = ok(&ratedesk(
            &fresh,
            &[
                "import",
                "trf",
                "--yes",
                "--id",
                "again",
                file.to_str().expect("path"),
            ],
        ));
        // Every player is found: by his record's national id, or (a player unrated going
        // into the event has no record) by his name.
        assert!(
            said.contains("6 matched, 0 new, 0 ambiguous"),
            "{rules}: {said}"
        );
        assert_eq!(
            said.lines().filter(|l| l.contains("by name")).count(),
            6 - records.len(),
            "{rules}: {said}"
        );
        assert!(ok(&ratedesk(&fresh, &["check"])).starts_with("ok: "));
    }
}
