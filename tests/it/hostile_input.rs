//! Input that must be refused with a clear error and change nothing, through the real binary:
//! backups with references outside the database, files without end, batches of results with
//! bad lines or cut short by a signal, ids that are empty or span lines, absurd time controls,
//! and several files imported as one.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{ok, ratedesk, results_command};

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/autumn-2025.json")
}

fn demo_db(dir: &Path) -> PathBuf {
    let db = dir.join("db");
    ok(&ratedesk(
        &db,
        &["import", "json", demo().to_str().expect("path")],
    ));
    db
}

fn refused(out: &std::process::Output) -> String {
    assert!(
        !out.status.success(),
        "accepted: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The demo's backup with one line changed by `edit`.
fn edited_backup(dir: &Path, name: &str, edit: impl Fn(&str) -> Option<String>) -> PathBuf {
    let db = demo_db(&dir.join(format!("{name}-source")));
    let file = dir.join(format!("{name}.backup"));
    ok(&ratedesk(&db, &["backup", file.to_str().expect("path")]));
    let text = std::fs::read_to_string(&file).expect("backup");
    let mut done = false;
    let lines: Vec<String> = text
        .lines()
        .map(|l| match edit(l).filter(|_| !done) {
            Some(new) => {
                done = true;
                new
            }
            None => l.to_string(),
        })
        .collect();
    assert!(done, "nothing edited");
    std::fs::write(&file, lines.join("\n") + "\n").expect("write");
    file
}

#[test]
fn a_backup_with_an_unknown_participant_or_an_absurd_id_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let unknown = edited_backup(dir.path(), "participant", |l| {
        l.starts_with("event ").then(|| {
            let mut v: Value = serde_json::from_str(&l["event ".len()..]).expect("json");
            v["record"]["event"]["participants"][0] = Value::from(999);
            format!("event {v}")
        })
    });
    let absurd = edited_backup(dir.path(), "absurd", |l| {
        l.starts_with("player ").then(|| {
            let mut v: Value = serde_json::from_str(&l["player ".len()..]).expect("json");
            v["id"] = Value::from(100_000_000u64);
            format!("player {v}")
        })
    });
    // An audit entry that would add a player far beyond the slots the log ever made (undo
    // and redo would then reach outside the database).
    let beyond = edited_backup(dir.path(), "beyond", |l| {
        l.starts_with("audit ").then(|| {
            let mut v: Value = serde_json::from_str(&l["audit ".len()..]).expect("json");
            v["change"]["players"][0]["key"] = Value::from(100_000_000u64);
            format!("audit {v}")
        })
    });
    for (file, says) in [
        (&unknown, "unknown participant 999"),
        (&absurd, "player 100000000 out of order"),
        (&beyond, "unknown player 100000000"),
    ] {
        let db = dir.path().join("target");
        let message = refused(&ratedesk(&db, &["restore", file.to_str().expect("path")]));
        assert!(
            message.contains(says) && message.contains("line "),
            "{message}"
        );
        assert!(!db.exists(), "nothing written");
    }
}

/// A compressed backup cut short (a copy that did not finish) is refused with the file and the
/// line it reached, and nothing is written; one that is not a backup at all is named so.
#[test]
fn a_compressed_backup_cut_short_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let whole = dir.path().join("whole.backup.zst");
    ok(&ratedesk(&db, &["backup", whole.to_str().expect("path")]));
    let bytes = std::fs::read(&whole).expect("backup");
    let short = dir.path().join("short.backup.zst");
    std::fs::write(&short, &bytes[..bytes.len() * 2 / 3]).expect("write");
    let target = dir.path().join("target");
    let message = refused(&ratedesk(
        &target,
        &["restore", short.to_str().expect("path")],
    ));
    assert!(
        message.contains("short.backup.zst") && message.contains("damaged or cut short"),
        "{message}"
    );
    assert!(!target.exists(), "nothing written");
    // Scrambled after its first bytes (still zstd's), and scrambled whole (not zstd at all).
    for (name, from) in [("noise", 4), ("not-zstd", 0)] {
        let noise = dir.path().join(format!("{name}.backup.zst"));
        let mut scrambled = bytes.clone();
        for b in scrambled.iter_mut().skip(from) {
            *b = b.wrapping_mul(31).wrapping_add(7);
        }
        std::fs::write(&noise, &scrambled).expect("write");
        let message = refused(&ratedesk(
            &target,
            &["restore", noise.to_str().expect("path")],
        ));
        let says = if from == 0 {
            "not a ratedesk backup"
        } else {
            "damaged or cut short"
        };
        assert!(
            message.contains(&format!("{name}.backup.zst")) && message.contains(says),
            "{message}"
        );
        assert!(!target.exists(), "nothing written");
    }
    // A larger dump cut short is refused partway through its lines, with the line it reached
    // (lines of blanks, which a dump may hold, mixed so that they do not compress to nothing).
    let mut state = 12345u64;
    let lines: String = (0..200_000)
        .map(|_| {
            let blanks: String = (0..64)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    if state >> 63 == 0 { ' ' } else { '\t' }
                })
                .collect();
            blanks + "\n"
        })
        .collect();
    let large = zstd::encode_all(
        format!("ratedesk-backup 1 rules=ssl\n{lines}").as_bytes(),
        3,
    )
    .expect("compress");
    let cut = dir.path().join("cut.backup.zst");
    std::fs::write(&cut, &large[..large.len() / 2]).expect("write");
    let message = refused(&ratedesk(
        &target,
        &["restore", cut.to_str().expect("path")],
    ));
    assert!(
        message.contains("cut.backup.zst: line ") && message.contains("damaged or cut short"),
        "{message}"
    );
    assert!(!target.exists(), "nothing written");
}

#[test]
fn a_fide_list_without_line_ends_is_refused_not_read_into_memory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let message = refused(&ratedesk(
        &db,
        &["import", "fide-list", "/dev/zero", "--date", "2026-10"],
    ));
    assert!(message.contains("longer than"), "{message}");
    assert!(!ok(&ratedesk(&db, &["log"])).contains("FIDE"));
}

fn results(db: &Path, input: &[u8]) -> std::process::Output {
    let mut child = results_command(db).spawn().expect("results");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write");
    child.wait_with_output().expect("results")
}

#[test]
fn every_refused_line_of_a_batch_is_reported_and_the_batch_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let mut input = b"2025-hki-open 1 1 0-1\n".to_vec();
    input.extend_from_slice(b"2025-hki-open 1 \xff 1-0\n");
    input.extend_from_slice(b"no-such-event 1 1 1-0\n");
    input.extend_from_slice(b"2025-hki-open 1 2 1-0\n");
    let out = results(&db, &input);
    assert_eq!(out.status.code(), Some(2));
    let answers = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = answers.lines().collect();
    assert_eq!(lines.len(), 4, "{answers}");
    let acknowledged = |l: &str| l.starts_with("ok ") || l.starts_with("unchanged ");
    assert!(acknowledged(lines[0]), "{answers}");
    assert!(lines[1].starts_with("line 2: not UTF-8"), "{answers}");
    assert!(
        lines[2].starts_with("line 3: there is no event"),
        "{answers}"
    );
    assert!(acknowledged(lines[3]), "{answers}");
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("2 of 4 line(s) refused"), "{message}");
    // Every line refused: still a failure.
    let out = results(&db, b"nonsense\n");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_interrupt_stops_a_batch_between_two_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let entries = |db: &Path| {
        ok(&ratedesk(db, &["log"]))
            .lines()
            .filter(|l| l.starts_with('#'))
            .count()
    };
    let before = entries(&db);
    let mut child = results_command(&db).spawn().expect("results");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = String::new();
    for k in 0..3000 {
        let code = ["1-0", "0-1"][k % 2];
        lines.push_str(&format!("2025-hki-open 1 1 {code}\n"));
    }
    stdin.write_all(lines.as_bytes()).expect("write");
    let mut acks = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    acks.read_line(&mut first).expect("ack");
    assert!(first.starts_with("ok "), "{first}");
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let rest: Vec<String> = acks.lines().map(|l| l.expect("line")).collect();
    drop(stdin);
    let exit = child.wait().expect("wait");
    assert_eq!(
        exit.code(),
        Some(1),
        "a stopped batch is not a finished one"
    );
    let applied = 1 + rest.iter().filter(|l| l.starts_with("ok ")).count();
    assert!(
        applied < 1000,
        "{applied} lines applied after the interrupt"
    );
    let after = entries(&db);
    assert_eq!(after - before, applied, "every applied line was answered");
}

fn with_player(edit: impl Fn(&mut Value)) -> String {
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(demo()).expect("demo")).expect("json");
    edit(&mut doc["players"][0]);
    doc.to_string()
}

fn with_event(edit: impl Fn(&mut Value)) -> String {
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(demo()).expect("demo")).expect("json");
    edit(&mut doc["events"][0]);
    doc.to_string()
}

#[test]
fn empty_ids_ids_with_line_breaks_and_absurd_time_controls_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        (with_event(|e| e["id"] = Value::from("")), "has no id"),
        (
            with_event(|e| e["id"] = Value::from("open\n#99 forged")),
            "control character",
        ),
        (
            with_event(|e| e["time_control"]["base_minutes"] = Value::from(71_582_788u64)),
            "time control",
        ),
    ];
    for (k, (doc, says)) in cases.iter().enumerate() {
        let file = dir.path().join(format!("case{k}.json"));
        std::fs::write(&file, doc).expect("write");
        let db = dir.path().join(format!("db{k}"));
        let message = refused(&ratedesk(
            &db,
            &["import", "json", file.to_str().expect("path")],
        ));
        assert!(message.contains(says), "case {k}: {message}");
        assert!(
            !message.contains("\n#99"),
            "the id stays on its line: {message}"
        );
    }
    let trf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/trf/erral_fidetournament_test_demo.trf");
    let db = dir.path().join("trf");
    let message = refused(&ratedesk(
        &db,
        &[
            "import",
            "trf",
            trf.to_str().expect("path"),
            "--yes",
            "--time-control",
            "99999999+0",
        ],
    ));
    assert!(message.contains("time control"), "{message}");
}

#[test]
fn several_json_files_are_imported_as_one_audited_edit_naming_each() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = dir.path().join("first.json");
    let second = dir.path().join("second.json");
    std::fs::copy(demo(), &first).expect("copy");
    // The second file's players are the first file's: matched to the players it brings.
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(demo()).expect("demo")).expect("json");
    for e in doc["events"].as_array_mut().expect("events") {
        let id = format!("{}-b", e["id"].as_str().expect("id"));
        e["id"] = Value::from(id);
    }
    std::fs::write(&second, doc.to_string()).expect("write");
    let db = dir.path().join("db");
    let said = ok(&ratedesk(
        &db,
        &[
            "import",
            "json",
            first.to_str().expect("path"),
            second.to_str().expect("path"),
        ],
    ));
    assert!(said.contains("22 matched"), "{said}");
    let log = ok(&ratedesk(&db, &["log"]));
    assert_eq!(
        log.lines().filter(|l| l.starts_with('#')).count(),
        1,
        "{log}"
    );
    assert!(
        log.contains("first.json: 22 new players") && log.contains("second.json: 0 new players"),
        "{log}"
    );
    // A bad file among them: nothing at all.
    let bad = dir.path().join("bad.json");
    doc["events"][0]["id"] = Value::from("");
    std::fs::write(&bad, doc.to_string()).expect("write");
    let other = dir.path().join("other");
    let message = refused(&ratedesk(
        &other,
        &[
            "import",
            "json",
            first.to_str().expect("path"),
            bad.to_str().expect("path"),
        ],
    ));
    assert!(message.contains("has no id"), "{message}");
    assert!(refused(&ratedesk(&other, &["log"])).contains("there is no database"));
}

#[test]
fn a_copy_left_by_a_killed_open_check_is_removed_at_the_next_open() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let left = db.join(".check-4242");
    std::fs::create_dir(&left).expect("mkdir");
    std::fs::write(left.join("db"), vec![0u8; 4096]).expect("write");
    ok(&ratedesk(&db, &["log"]));
    assert!(!left.exists());
}

#[test]
fn rounds_ratings_dates_and_start_numbers_no_reader_could_keep_are_refused_at_the_door() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        (
            with_event(|e| e["games"][0]["round"] = Value::from(4_294_967_295u64)),
            "round 4294967295 is not a round number (1 to 999)",
        ),
        (
            with_event(|e| e["games"][0]["round"] = Value::from(20_251_019u64)),
            "round 20251019 is not a round number",
        ),
        (
            with_event(|e| e["start"] = Value::from("0000-01-01")),
            "outside the years 1850–2100",
        ),
        (
            with_event(|e| e["end"] = Value::from("9999-12-31")),
            "outside the years 1850–2100",
        ),
        (
            with_player(|p| p["name"] = Value::from("Aho, \u{202e}oniA")),
            "reorders text on screen",
        ),
        (
            with_player(|p| p["name"] = Value::from("A".repeat(400))),
            "400 characters long (at most 300)",
        ),
    ];
    for (k, (doc, says)) in cases.iter().enumerate() {
        let file = dir.path().join(format!("case{k}.json"));
        std::fs::write(&file, doc).expect("write");
        let db = dir.path().join(format!("db{k}"));
        let out = ratedesk(&db, &["import", "json", file.to_str().expect("path")]);
        assert_eq!(out.status.code(), Some(2), "case {k}");
        let message = refused(&out);
        assert!(message.contains(says), "case {k}: {message}");
        // Nothing is left behind: no empty database fixed to a rulebook.
        assert!(
            std::fs::read_dir(&db).map_or(true, |mut d| d.next().is_none()),
            "case {k}: the refused import left files in {}",
            db.display()
        );
        assert!(refused(&ratedesk(&db, &["check"])).contains("there is no database"));
    }
    // A TRF with one start number twice (two records, one id) or a FIDE rating of 9999: what
    // the file says is refused with its line, and the database stays as it was.
    let trf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/trf/erral_fidetournament_test_demo.trf");
    let text = std::fs::read_to_string(&trf).expect("the shared TRF");
    let (at, first) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.starts_with("001 "))
        .expect("a player");
    let twice: Vec<&str> = text
        .lines()
        .take(at + 1)
        .chain(std::iter::once(first))
        .chain(text.lines().skip(at + 1))
        .collect();
    let rating = first.get(48..52).expect("a rating column");
    let nines = text.replacen(first, &format!("{}9999{}", &first[..48], &first[52..]), 1);
    let db = demo_db(dir.path());
    let before = ok(&ratedesk(&db, &["log", "--full"]));
    for (k, (file_text, says)) in [
        (twice.join("\n"), format!("line {}", at + 2)),
        (
            nines,
            format!("rating 9999 is outside 0–4000 (was {rating})"),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let file = dir.path().join(format!("bad{k}.trf"));
        std::fs::write(&file, file_text).expect("write");
        let out = ratedesk(
            &db,
            &["import", "trf", file.to_str().expect("path"), "--yes"],
        );
        let message = refused(&out);
        let says = says.split(" (was").next().unwrap_or_default();
        assert!(message.contains(says), "file {k}: {message}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("imported"));
    }
    assert_eq!(
        ok(&ratedesk(&db, &["log", "--full"])),
        before,
        "nothing changed"
    );
}

#[test]
fn an_import_refused_after_another_was_stored_keeps_the_stored_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/trf/erral_fidetournament_test_demo.trf");
    // The same event in two folders: the first is imported, the second refused (its id is
    // taken) — into a new database, which keeps the first.
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for folder in [&a, &b] {
        std::fs::create_dir_all(folder).expect("mkdir");
        std::fs::copy(&trf, folder.join("open.trf")).expect("copy");
    }
    let db = dir.path().join("db");
    let out = ratedesk(
        &db,
        &[
            "import",
            "trf",
            a.join("open.trf").to_str().expect("path"),
            b.join("open.trf").to_str().expect("path"),
            "--yes",
            "--time-control",
            "90+30",
        ],
    );
    assert!(!out.status.success(), "the second file is refused");
    let check = ok(&ratedesk(&db, &["check"]));
    assert!(check.contains("chain holds (1 entries)"), "{check}");
    assert!(ok(&ratedesk(&db, &["log"])).contains("open.trf"));
}
