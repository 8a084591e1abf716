//! FIDE's rating lists: the real samples in `../shared/data/fide` read as their SOURCES.md
//! describes them, the same records read from XML and from zip files, and `ratedesk import
//! fide-list` giving our players their FIDE ratings, keeping the rest as reference and
//! refusing a bad file without changing anything. A full-size list (a million lines) is
//! imported by `ratedesk bench`, and by the ignored test at the end.

use proptest::prelude::*;
use ratedesk::import::fide_list::{FideRecord, Kind, ListRating, read_all};
use ratedesk::model::Sex;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::common::{ok, ratedesk};

const COMBINED_2018: &str = "xdurana_fide-ratings_players.first401.txt";
const SWE_2025: &str = "ChristerNilsson_FIDE-ratinglist_swe.excerpt.txt";

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/fide")
        .join(name)
}

fn read(name: &str) -> Vec<u8> {
    let path = sample(name);
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "the FIDE list sample {} could not be read: {e}",
            path.display()
        )
    })
}

fn records(name: &str) -> Vec<FideRecord> {
    read_all(&read(name), None).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn by_id(all: &[FideRecord], id: u64) -> &FideRecord {
    all.iter()
        .find(|r| r.fide_id == id)
        .unwrap_or_else(|| panic!("FIDE id {id} is not in the list"))
}

#[test]
fn the_2018_combined_list_reads_by_its_header() {
    let all = records(COMBINED_2018);
    assert_eq!(all.len(), 400);
    let first = by_id(&all, 419214);
    assert_eq!(first.name, "", "419214 has no name at all");
    assert_eq!(first.federation, "ENG");
    assert_eq!(first.sex, Some(Sex::Male));
    assert_eq!(
        first.standard,
        Some(ListRating {
            rating: 1736,
            games: 0,
            k: Some(20)
        })
    );
    assert_eq!(
        first.rapid,
        Some(ListRating {
            rating: 1587,
            games: 10,
            k: Some(20)
        })
    );
    assert_eq!(first.blitz, None, "blank fields are unrated");
    assert_eq!(first.birth_year, None, "0000 is an unknown birth year");
    let fid = by_id(&all, 366127061);
    assert_eq!(
        (fid.federation.as_str(), fid.foa_title.as_str()),
        ("FID", "ACM")
    );
    assert_eq!(fid.name, ", Mayilsamy K");
    assert_eq!(
        all.iter().filter(|r| r.birth_year.is_none()).count(),
        26,
        "SOURCES.md counts 26 birth years 0000"
    );
    assert!(
        all.iter()
            .any(|r| !r.name.is_empty() && !r.name.contains(','))
    );
    assert!(all.iter().any(|r| r.fide_id > 99_999_999), "9-digit ids");
}

#[test]
fn the_2025_excerpt_without_header_reads_by_its_width() {
    let all = records(SWE_2025);
    assert_eq!(all.len(), 14);
    assert!(all.iter().all(|r| r.federation == "SWE"));
    let anton = by_id(&all, 1701991);
    assert_eq!(anton.name, "Aaberg, Anton");
    assert_eq!(anton.title, "IM");
    assert_eq!(anton.standard.map(|r| r.rating), Some(2328));
    assert_eq!(anton.rapid.map(|r| (r.rating, r.k)), Some((2331, Some(20))));
    assert_eq!(anton.blitz, None, "0 is unrated in the 2025 list");
    assert_eq!(anton.birth_year, Some(1972));
    let eero = by_id(&all, 1712144);
    assert_eq!((eero.standard, eero.rapid, eero.blitz), (None, None, None));
    assert!(by_id(&all, 1712292).inactive);
    let edonna = by_id(&all, 1790846);
    assert_eq!(edonna.sex, Some(Sex::Female));
    assert!(!edonna.inactive, "w alone is not inactive");
    assert!(all.iter().any(|r| r.fide_id == 563000210));
    assert!(
        all.iter().any(|r| r.inactive && r.sex == Some(Sex::Female)),
        "a wi flag"
    );
    assert!(all.iter().any(|r| r.other_titles.contains("FI")));
    assert!(all.iter().any(|r| r.other_titles.contains("NA")));
    assert!(all.iter().any(|r| r.women_title == "WIM"));
}

/// FIDE's XML form of a record (the combined list's children, in FIDE's order).
fn xml_of(all: &[FideRecord]) -> String {
    let mut out = String::from("<playerslist>\n");
    let figures = |r: Option<ListRating>| match r {
        Some(r) => (
            r.rating.to_string(),
            r.games.to_string(),
            r.k.map(|k| k.to_string()).unwrap_or_default(),
        ),
        None => (String::new(), String::new(), String::new()),
    };
    for r in all {
        let (s, sg, sk) = figures(r.standard);
        let (q, qg, qk) = figures(r.rapid);
        let (b, bg, bk) = figures(r.blitz);
        let name = r.name.replace('&', "&amp;").replace('<', "&lt;");
        out.push_str(&format!(
            "<player><fideid>{}</fideid><name>{name}</name><country>{}</country><sex>{}</sex><title>{}</title><w_title>{}</w_title><o_title>{}</o_title><foa_title>{}</foa_title><rating>{s}</rating><games>{sg}</games><k>{sk}</k><rapid_rating>{q}</rapid_rating><rapid_games>{qg}</rapid_games><rapid_k>{qk}</rapid_k><blitz_rating>{b}</blitz_rating><blitz_games>{bg}</blitz_games><blitz_k>{bk}</blitz_k><birthday>{}</birthday><flag>{}</flag></player>\n",
            r.fide_id,
            r.federation,
            match r.sex {
                Some(Sex::Female) => "F",
                Some(Sex::Male) => "M",
                None => "",
            },
            r.title,
            r.women_title,
            r.other_titles,
            r.foa_title,
            r.birth_year.map(|y| y.to_string()).unwrap_or_default(),
            if r.inactive { "i" } else { "" },
        ));
    }
    out.push_str("</playerslist>\n");
    out
}

#[test]
fn the_same_records_read_from_xml() {
    for name in [COMBINED_2018, SWE_2025] {
        let txt = records(name);
        let xml = read_all(xml_of(&txt).as_bytes(), None).expect("the XML reads");
        assert_eq!(xml, txt, "{name}");
    }
}

fn zip_of(dir: &Path, zip_name: &str, member: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(zip_name);
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).expect("create"));
    zip.start_file(member, zip::write::SimpleFileOptions::default())
        .expect("member");
    zip.write_all(bytes).expect("write");
    zip.finish().expect("finish");
    path
}

fn stream(
    path: &Path,
    hint: Option<Kind>,
) -> (ratedesk::import::fide_list::Opened, Vec<FideRecord>) {
    let progress = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    ratedesk::import::fide_list::read_file(path, progress.clone(), hint, |opened, records| {
        let all: Vec<FideRecord> = records.map(|r| r.expect("reads")).collect();
        assert!(progress.load(std::sync::atomic::Ordering::Relaxed) > 0);
        (opened.clone(), all)
    })
    .expect("opens")
}

#[test]
fn zipped_lists_txt_and_xml_stream_as_the_plain_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let txt = records(COMBINED_2018);
    let zipped = zip_of(
        dir.path(),
        "players_list.zip",
        "players_list_foa.txt",
        &read(COMBINED_2018),
    );
    let (opened, all) = stream(&zipped, None);
    assert_eq!(
        (opened.member.as_str(), opened.single),
        ("players_list_foa.txt", None)
    );
    assert_eq!(all, txt);
    let xml = zip_of(
        dir.path(),
        "players_list_xml.zip",
        "players_list_xml_foa.xml",
        xml_of(&txt).as_bytes(),
    );
    let (opened, all) = stream(&xml, None);
    assert!(opened.xml);
    assert_eq!(all, txt);
    // A past month's rapid list: the name gives the list and the month.
    let header = "ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA SEP26 Gms K  B-day Flag";
    let line = format!(
        "{:<113}{:<6}{:<4}{:<3}{:<6}{:<4}",
        "1701991", "2331", "4", "20", "1972", ""
    );
    let rapid = zip_of(
        dir.path(),
        "rapid_sep26frl.zip",
        "rapid_sep26frl.txt",
        format!("{header}\r\n{line}\r\n").as_bytes(),
    );
    let (opened, all) = stream(&rapid, None);
    assert_eq!(opened.single, Some(Kind::Rapid));
    assert_eq!(opened.month, chrono::NaiveDate::from_ymd_opt(2026, 9, 1));
    assert_eq!(all[0].rapid.map(|r| r.rating), Some(2331));
    assert_eq!(all[0].standard, None);
}

/// A database with one Finn whose FIDE id is in the 2025 sample, and one who is not.
fn federation(dir: &Path) -> PathBuf {
    let db = dir.join("db");
    let doc = dir.join("players.json");
    std::fs::write(
        &doc,
        r#"{"rules": "ssl", "players": [
            {"id": "FIN1", "name": "Aaberg, Anton", "fide_id": 1701991},
            {"id": "FIN2", "name": "Virtanen, Ville", "fide_id": 999999999}
        ], "events": []}"#,
    )
    .expect("write");
    ok(&ratedesk(
        &db,
        &["import", "json", doc.to_str().expect("utf-8")],
    ));
    db
}

fn fide_of(db: &Path, id: &str) -> serde_json::Value {
    let doc: serde_json::Value =
        serde_json::from_str(&ok(&ratedesk(db, &["export", "events"]))).expect("json");
    doc["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["id"] == id)
        .map(|p| p["fide"].clone())
        .expect("the player")
}

#[test]
fn import_gives_our_players_their_ratings_and_keeps_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = federation(dir.path());
    let swe = sample(SWE_2025);
    let swe = swe.to_str().expect("utf-8");
    // The excerpt has no month of its own.
    let out = ratedesk(&db, &["import", "fide-list", swe]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--date"));
    let said = ok(&ratedesk(
        &db,
        &["import", "fide-list", "--date", "2025-10", "--dry-run", swe],
    ));
    assert!(said.contains("14 players (12 rated); 1 of ours"), "{said}");
    assert_eq!(
        fide_of(&db, "FIN1"),
        serde_json::Value::Null,
        "a dry run changes nothing"
    );
    let said = ok(&ratedesk(
        &db,
        &["import", "fide-list", "--date", "2025-10", swe],
    ));
    assert!(said.contains("13 new reference players"), "{said}");
    assert_eq!(
        fide_of(&db, "FIN1"),
        serde_json::json!([{"list_date": "2025-10-01", "standard": 2328, "rapid": 2331, "blitz": null}])
    );
    assert_eq!(fide_of(&db, "FIN2"), serde_json::Value::Null);
    // His FIDE title, for his card.
    {
        let desk = ratedesk::app::Desk::open(&db, ratedesk::rules::ssl::Ssl).expect("open");
        let anton = ratedesk::app::queries::find_player(&desk, "FIN1").expect("FIN1");
        let title = ratedesk::app::queries::fide_title(&desk, anton)
            .expect("read")
            .expect("held");
        assert_eq!(
            (title.codes().as_str(), title.as_of.to_string().as_str()),
            ("IM", "2025-10-01")
        );
    }
    let log = ok(&ratedesk(&db, &["log"]));
    assert!(
        log.contains("FIDE standard/rapid/blitz list of 2025-10-01"),
        "{log}"
    );
    // The same list again changes no one; a rapid list of the same month changes only rapid.
    ok(&ratedesk(
        &db,
        &["import", "fide-list", "--date", "2025-10", swe],
    ));
    let rapid = dir.path().join("list.txt");
    let line = format!(
        "{:<113}{:<6}{:<4}{:<3}{:<6}{:<4}",
        "1701991", "2350", "4", "20", "1972", ""
    );
    std::fs::write(&rapid, format!("{line}\n")).expect("write");
    let rapid = rapid.to_str().expect("utf-8");
    let out = ratedesk(&db, &["import", "fide-list", "--date", "2025-10", rapid]);
    assert_eq!(out.status.code(), Some(2), "a single list must say which");
    ok(&ratedesk(
        &db,
        &[
            "import",
            "fide-list",
            "--date",
            "2025-10",
            "--list",
            "rapid",
            rapid,
        ],
    ));
    assert_eq!(
        fide_of(&db, "FIN1"),
        serde_json::json!([{"list_date": "2025-10-01", "standard": 2328, "rapid": 2350, "blitz": null}])
    );
    assert_eq!(ok(&ratedesk(&db, &["check"])).lines().count(), 1);
}

#[test]
fn a_bad_line_is_refused_with_its_place_and_nothing_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = federation(dir.path());
    let mut lines: Vec<String> = String::from_utf8(read(COMBINED_2018))
        .expect("ascii")
        .split("\r\n")
        .map(str::to_string)
        .collect();
    lines[299].replace_range(113..117, "17x6");
    let bad = dir.path().join("players_list_foa.txt");
    std::fs::write(&bad, lines.join("\r\n")).expect("write");
    let log_before = ok(&ratedesk(&db, &["log"]));
    let out = ratedesk(
        &db,
        &[
            "import",
            "fide-list",
            "--date",
            "2018-12",
            bad.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("players_list_foa.txt: line 300, column 114") && message.contains("17x6"),
        "{message}"
    );
    assert_eq!(ok(&ratedesk(&db, &["log"])), log_before);
    // Nothing of the good lines before it was kept as reference either.
    let good = sample(COMBINED_2018);
    let said = ok(&ratedesk(
        &db,
        &[
            "import",
            "fide-list",
            "--date",
            "2018-12",
            good.to_str().expect("utf-8"),
        ],
    ));
    assert!(said.contains("399 new reference players"), "{said}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Random bytes and mutated real lists are read or refused, never a panic.
    #[test]
    fn no_input_makes_the_readers_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..400),
        at in 0usize..66_000,
        cut in 0usize..66_000,
        junk in proptest::collection::vec(any::<u8>(), 0..20),
        xml in any::<bool>(),
    ) {
        let _ = read_all(&bytes, None);
        let _ = read_all(&bytes, Some(Kind::Blitz));
        let mut real = read(COMBINED_2018);
        if xml {
            real = xml_of(&read_all(&real, None).expect("reads")).into_bytes();
        }
        let at = at % (real.len() + 1);
        real.splice(at..at, junk);
        real.truncate(cut.max(at));
        let _ = read_all(&real, None);
    }
}

/// A full-size list: a million lines (164 MB) imported into an empty database in a fresh
/// process, as `ratedesk bench` does; every line is kept. Slow, so run on demand:
/// `cargo nextest run --run-ignored only a_full_size_list`.
#[test]
#[ignore]
fn a_full_size_list_imports_in_bounded_memory() {
    let figures = ratedesk::bench::fide_list_in_child(
        Path::new(env!("CARGO_BIN_EXE_ratedesk")),
        ratedesk::bench::FIDE_LIST_LINES,
    )
    .expect("the import");
    assert_eq!(figures["fide_list_lines"], 1_000_000);
    let peak = figures["fide_list_rss_mb"].as_f64().expect("memory");
    assert!(peak < 1000.0, "peak memory {peak} MB");
    eprintln!("{figures}");
}

/// A combined FIDE list (TXT, as FIDE publishes it) of one player with a standard and a rapid
/// rating.
fn one_line_list(dir: &Path, fide_id: u64, standard: u32, rapid: u32) -> PathBuf {
    let file = dir.join("players_list_foa.txt");
    let line = format!(
        "{:<15}{:<61}{:<4}{:<4}{:<5}{:<5}{:<15}{:<4}{:<6}{:<4}{:<3}{:<6}{:<4}{:<3}{:<6}{:<4}{:<3}{:<6}{:<4}",
        fide_id,
        "Aaberg, Anton",
        "SWE",
        "M",
        "IM",
        "",
        "",
        "",
        standard,
        "0",
        "10",
        rapid,
        "0",
        "20",
        "",
        "",
        "",
        "1972",
        ""
    );
    std::fs::write(
        &file,
        format!(
            "ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag\r\n{line}\r\n"
        ),
    )
    .expect("write");
    file
}

/// FIDE lists for an Icelandic and a Turkish database: the player found by FIDE id gets the
/// list's ratings, and in Turkey, where a foreign player counts with his FIDE rating (B.1.d),
/// the ratings of his opponents move with it — stored, re-rated as `rate` does, and `check`ed.
#[test]
fn isl_and_tsf_databases_import_fide_lists() {
    for rules in ["isl", "tsf"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("db");
        // The seventh player plays for Sweden, with a FIDE id but (yet) no FIDE rating.
        let mut doc = crate::common::federation(rules);
        let player = &mut doc["players"][6];
        player["federation"] = serde_json::json!("SWE");
        player["fide_id"] = serde_json::json!(1701991);
        let id = player["id"].as_str().expect("id").to_string();
        let file = dir.path().join("doc.json");
        std::fs::write(&file, doc.to_string()).expect("write");
        ok(&ratedesk(
            &db,
            &["import", "json", file.to_str().expect("path")],
        ));
        let before = ok(&ratedesk(&db, &["export", "ratings"]));
        let list = one_line_list(dir.path(), 1701991, 2328, 2331);
        let said = ok(&ratedesk(
            &db,
            &[
                "import",
                "fide-list",
                "--date",
                "2025-01",
                list.to_str().expect("path"),
            ],
        ));
        assert!(said.contains("1 of ours by FIDE id"), "{rules}: {said}");
        assert_eq!(
            fide_of(&db, &id),
            serde_json::json!([{"list_date": "2025-01-01", "standard": 2328, "rapid": 2331, "blitz": null}]),
            "{rules}"
        );
        let after = ok(&ratedesk(&db, &["export", "ratings"]));
        assert_eq!(
            before != after,
            rules == "tsf",
            "{rules}: FIDE ratings count in Turkey"
        );
        let events = ok(&ratedesk(&db, &["export", "events"]));
        let rated = {
            let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ratedesk"))
                .arg("rate")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("rate");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(events.as_bytes())
                .expect("write");
            child.wait_with_output().expect("rate").stdout
        };
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&rated).expect("json"),
            serde_json::from_str::<serde_json::Value>(&after).expect("json"),
            "{rules}"
        );
        assert!(
            ok(&ratedesk(&db, &["check"])).starts_with("ok: "),
            "{rules}"
        );
    }
}

#[test]
fn a_list_with_one_of_our_players_twice_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = federation(dir.path());
    refused_twice(&db, dir.path(), "1701991", "FIN1");
    // Anyone's record twice, ours or not: which one holds cannot be told.
    refused_twice(&db, dir.path(), "999000111", "record 2");
}

/// A per-list file with the player `id` twice is refused naming `said`; nothing changes.
fn refused_twice(db: &Path, dir: &Path, id: &str, said: &str) {
    let line = format!(
        "{:<113}{:<6}{:<4}{:<3}{:<6}{:<4}",
        id, "2350", "4", "20", "1972", ""
    );
    let twice = dir.join("twice.txt");
    std::fs::write(&twice, format!("{line}\n{line}\n")).expect("write");
    let before = ok(&ratedesk(db, &["log", "--head"]));
    let out = ratedesk(
        db,
        &[
            "import",
            "fide-list",
            "--date",
            "2025-10",
            "--list",
            "rapid",
            twice.to_str().expect("utf-8"),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains(&format!("FIDE id {id} appears twice")) && message.contains(said),
        "{message}"
    );
    assert_eq!(ok(&ratedesk(db, &["log", "--head"])), before);
}
