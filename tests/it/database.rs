//! The database through the real binary: every conformance case of every rulebook imported and
//! exported equals `ratedesk rate`; exports re-rate to the stored results; backups round-trip
//! byte for byte; acknowledged edits survive SIGKILL; a second process, a corrupt database and
//! a newer schema are refused with clear messages; Icelandic and Turkish databases keep their
//! rulebook, re-rate, check and restore like Finnish ones.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use ratedesk::app::{Federation, WithFederation, publish, with_federation};

use crate::common::{ratedesk, results_command};

fn rate(input: &str) -> Value {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .arg("rate")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rate");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("rate");
    assert!(
        out.status.success(),
        "rate failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("rate output is JSON")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed ({:?}): {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn cases() -> Vec<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    // With the cases of rules being added (`../shared/conformance-next/`).
    for dir in [
        manifest.join("../shared/conformance"),
        manifest.join("tests/conformance"),
        manifest.join("../shared/conformance-next"),
    ] {
        let mut stack = vec![dir.clone()];
        while let Some(d) = stack.pop() {
            let entries = std::fs::read_dir(&d)
                .unwrap_or_else(|e| panic!("conformance folder {}: {e}", d.display()));
            for entry in entries {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|x| x == "json") {
                    files.push(path);
                }
            }
        }
    }
    files.sort();
    assert!(
        files.len() > 20,
        "expected the conformance cases, found {}",
        files.len()
    );
    files
}

/// A case's document imported into a new database and exported again, in process: the
/// exported ratings, the exported events, and what `check` found.
struct RoundTrip<'a> {
    dir: &'a Path,
    file: &'a Path,
    as_of: Option<chrono::NaiveDate>,
}

impl WithFederation for RoundTrip<'_> {
    type Output = (Value, Value, Vec<String>);
    fn with<R: Federation>(self, rulebook: R) -> Self::Output {
        let mut desk = ratedesk::app::database::create(self.dir, rulebook).expect("create");
        let plan = ratedesk::app::import::json::plan(&desk, &[self.file.to_path_buf()])
            .expect("plan the import");
        ratedesk::app::import::json::apply(&mut desk, plan).expect("import");
        // As `export ratings` writes it, made as it is written.
        let mut written = Vec::new();
        publish::ratings_document(&desk, self.as_of)
            .write_to(&mut written)
            .expect("written");
        let ratings = serde_json::from_slice(&written).expect("json");
        let events = publish::events_document(&desk, self.as_of);
        let problems = ratedesk::app::queries::check(&mut desk)
            .expect("check")
            .problems;
        (ratings, events, problems)
    }
}

/// Every case that rates: imported, exported as ratings (equal to `rate`'s answer) and as
/// events (which rate to the same answer), and checked — in process, one database each.
#[test]
fn import_then_export_equals_rate_on_every_conformance_case() {
    let mut checked = 0;
    for case in cases() {
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(&case).expect("case")).expect("json");
        if doc["expected"].get("error").is_some() {
            continue;
        }
        let input = doc["input"].to_string();
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("input.json");
        std::fs::write(&file, &input).expect("write input");
        let as_of = doc["input"]["as_of"]
            .as_str()
            .map(|d| d.parse().expect("as_of"));
        let code = ratedesk::json::rules_of(&input).expect("rules");
        let trip = RoundTrip {
            dir: &dir.path().join("db"),
            file: &file,
            as_of,
        };
        let (exported, events, problems) = with_federation(&code, trip).expect("known rulebook");
        let rated = |text: &str| ratedesk::app::import::json::rate(text).expect("rate");
        assert_eq!(
            exported,
            rated(&input),
            "{}: export ratings differs from rate",
            case.display()
        );
        assert_eq!(
            rated(&events.to_string()),
            exported,
            "{}: export events re-rated differs",
            case.display()
        );
        assert!(problems.is_empty(), "{}: {problems:?}", case.display());
        checked += 1;
    }
    assert!(checked > 20);
}

/// The same round trip through the binary, for the first case of each rulebook that rates:
/// `import json`, `export ratings`, `export events`, `rate` and `check` as an officer runs them.
#[test]
fn import_then_export_through_the_binary_equals_rate() {
    let mut seen = std::collections::BTreeSet::new();
    for case in cases() {
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(&case).expect("case")).expect("json");
        let input = doc["input"].to_string();
        let Ok(code) = ratedesk::json::rules_of(&input) else {
            continue;
        };
        if doc["expected"].get("error").is_some() || !seen.insert(code) {
            continue;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("db");
        let file = dir.path().join("input.json");
        std::fs::write(&file, &input).expect("write input");
        ok(&ratedesk(
            &db,
            &["import", "json", file.to_str().expect("path")],
        ));
        let as_of: Vec<String> = doc["input"]["as_of"]
            .as_str()
            .map(|d| vec!["--as-of".into(), d.into()])
            .unwrap_or_default();
        let as_of: Vec<&str> = as_of.iter().map(String::as_str).collect();
        let exported: Value = serde_json::from_str(&ok(&ratedesk(
            &db,
            &[&["export", "ratings"], &as_of[..]].concat(),
        )))
        .expect("json");
        assert_eq!(
            exported,
            rate(&input),
            "{}: export ratings differs from rate",
            case.display()
        );
        let events = ok(&ratedesk(
            &db,
            &[&["export", "events"], &as_of[..]].concat(),
        ));
        assert_eq!(
            rate(&events),
            exported,
            "{}: export events re-rated differs",
            case.display()
        );
        ok(&ratedesk(&db, &["check"]));
    }
    assert_eq!(
        seen.len(),
        ratedesk::federations::registry::CODES.len(),
        "{seen:?}"
    );
}

/// `ratedesk results` running on `db`: the process, its stdin and its answers.
fn batch_writer(
    db: &Path,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    BufReader<std::process::ChildStdout>,
) {
    let mut child = results_command(db)
        .stderr(Stdio::null())
        .spawn()
        .expect("writer");
    let stdin = child.stdin.take().expect("stdin");
    let acks = BufReader::new(child.stdout.take().expect("stdout"));
    (child, stdin, acks)
}

fn demo_db(dir: &Path) -> PathBuf {
    let db = dir.join("db");
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/autumn-2025.json");
    ok(&ratedesk(
        &db,
        &["import", "json", demo.to_str().expect("path")],
    ));
    db
}

/// `db`'s backup (`first.backup` in `dir`), restored into `dir/other` and backed up again: the
/// same bytes and the restore's entry after them. The backup and the restored database.
fn round_trip(dir: &Path, db: &Path) -> (PathBuf, PathBuf) {
    let first = dir.join("first.backup");
    ok(&ratedesk(db, &["backup", first.to_str().expect("path")]));
    let other = dir.join("other");
    ok(&ratedesk(
        &other,
        &["restore", first.to_str().expect("path")],
    ));
    let second = dir.join("second.backup");
    ok(&ratedesk(
        &other,
        &["backup", second.to_str().expect("path")],
    ));
    crate::common::assert_restored_as(&first, &second);
    (first, other)
}

/// The import that brought every record undone, the database holds none of them (its lists'
/// removed slots at the end are not read back), yet its audit log names them: its backup
/// restores all the same, and its every byte with the restore entry after them.
#[test]
fn a_backup_after_the_whole_import_was_undone_restores() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    ok(&ratedesk(&db, &["undo"]));
    let (_, other) = round_trip(dir.path(), &db);
    assert!(ok(&ratedesk(&other, &["check"])).starts_with("ok"));
}

#[test]
fn backup_restore_backup_keeps_every_byte_and_adds_the_restore_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "1", "0-1"],
    ));
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "2", "3", "1/2-1/2"],
    ));
    ok(&ratedesk(&db, &["undo"]));
    let (first, other) = round_trip(dir.path(), &db);
    assert_eq!(
        ok(&ratedesk(&db, &["export", "ratings"])),
        ok(&ratedesk(&other, &["export", "ratings"]))
    );
    // Restoring over data needs --force.
    let refused = ratedesk(&db, &["restore", first.to_str().expect("path")]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--force"));
    ok(&ratedesk(
        &db,
        &["restore", "--force", first.to_str().expect("path")],
    ));
}

/// The automatic backups are the text dump compressed by zstd, and so is a backup the officer
/// names `….zst`: each decompresses to the text `backup` writes, and restores.
#[test]
fn compressed_backups_hold_the_text_dump_and_restore() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "1", "0-1"],
    ));
    let plain = dir.path().join("plain.backup");
    ok(&ratedesk(&db, &["backup", plain.to_str().expect("path")]));
    let text = std::fs::read(&plain).expect("plain");
    let packed = dir.path().join("packed.backup.zst");
    ok(&ratedesk(&db, &["backup", packed.to_str().expect("path")]));
    let bytes = std::fs::read(&packed).expect("packed");
    assert!(bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]), "not zstd");
    assert!(
        bytes.len() * 4 < text.len(),
        "{} of {}",
        bytes.len(),
        text.len()
    );
    assert!(zstd::decode_all(&bytes[..]).expect("decompress") == text);
    // The newest automatic backup, written as the result's command closed.
    let newest = std::fs::read_dir(db.join("backups"))
        .expect("backups")
        .map(|e| e.expect("entry").path())
        .max()
        .expect("a backup");
    assert!(
        newest.to_string_lossy().ends_with(".backup.zst"),
        "{newest:?}"
    );
    let automatic = std::fs::read(&newest).expect("automatic");
    assert!(zstd::decode_all(&automatic[..]).expect("decompress") == text);
    // Through a pipe, read once.
    let piped = dir.path().join("from-a-pipe");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .args([
            "--db",
            piped.to_str().expect("path"),
            "restore",
            "/dev/stdin",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&bytes)
        .expect("piped");
    ok(&child.wait_with_output().expect("restored"));
    assert_eq!(
        ok(&ratedesk(&db, &["export", "ratings"])),
        ok(&ratedesk(&piped, &["export", "ratings"]))
    );
    for (name, file) in [("from-packed", &packed), ("from-automatic", &newest)] {
        let other = dir.path().join(name);
        ok(&ratedesk(
            &other,
            &["restore", file.to_str().expect("path")],
        ));
        assert_eq!(
            ok(&ratedesk(&db, &["export", "ratings"])),
            ok(&ratedesk(&other, &["export", "ratings"])),
            "{name}"
        );
        assert!(
            ok(&ratedesk(&other, &["check"])).starts_with("ok"),
            "{name}"
        );
    }
}

#[test]
fn acknowledged_edits_survive_sigkill() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let doc: Value =
        serde_json::from_str(&ok(&ratedesk(&db, &["export", "events"]))).expect("json");
    let boards: Vec<(u64, u64)> = doc["events"][0]["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| {
            (
                g["round"].as_u64().expect("round"),
                g["board"].as_u64().expect("board"),
            )
        })
        .collect();
    let mut current: std::collections::BTreeMap<(u64, u64), String> = doc["events"][0]["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| {
            (
                (
                    g["round"].as_u64().expect("round"),
                    g["board"].as_u64().expect("board"),
                ),
                g["result"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let mut changes = 0;
    let (mut child, mut stdin, mut acks) = batch_writer(&db);
    let codes = ["1-0", "0-1", "1/2-1/2"];
    let mut acknowledged = Vec::new();
    for (k, (round, board)) in boards.iter().cycle().take(400).enumerate() {
        let code = codes[k % 3];
        writeln!(stdin, "2025-hki-open {round} {board} {code}").expect("send");
        stdin.flush().expect("flush");
        let mut line = String::new();
        acks.read_line(&mut line).expect("ack");
        // `unchanged`: the result already stood so; acknowledged, nothing stored.
        assert!(
            line.starts_with("ok ") || line.starts_with("unchanged "),
            "{line}"
        );
        acknowledged.push(((*round, *board), code));
        // A result keyed as it already stands changes nothing and is not stored.
        if current
            .insert((*round, *board), code.to_string())
            .as_deref()
            != Some(code)
        {
            changes += 1;
        }
        if k == 150 {
            break;
        }
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reap");
    // Everything acknowledged is there: the last result on each board.
    let mut last = std::collections::BTreeMap::new();
    for (board, code) in &acknowledged {
        last.insert(*board, *code);
    }
    let doc: Value =
        serde_json::from_str(&ok(&ratedesk(&db, &["export", "events"]))).expect("json");
    for g in doc["events"][0]["games"].as_array().expect("games") {
        let key = (
            g["round"].as_u64().expect("round"),
            g["board"].as_u64().expect("board"),
        );
        if let Some(code) = last.get(&key) {
            assert_eq!(
                g["result"].as_str(),
                Some(*code),
                "round {} board {}",
                key.0,
                key.1
            );
        }
    }
    let log = ok(&ratedesk(&db, &["log"]));
    assert!(log.lines().count() > changes, "{log}");
    ok(&ratedesk(&db, &["check"]));
}

#[test]
fn a_second_process_is_told_who_holds_the_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let desk = ratedesk::app::Desk::open(&db, ratedesk::rules::ssl::Ssl).expect("open");
    let out = ratedesk(&db, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("in use by"), "{message}");
    assert!(
        message.contains(&format!("pid {}", std::process::id())),
        "{message}"
    );
    drop(desk);
    ok(&ratedesk(&db, &["check"]));
}

fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push((path.clone(), std::fs::read(&path).expect("read")));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn a_corrupt_database_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    std::fs::write(db.join("conf"), b"\x00\x01garbage").expect("corrupt");
    let before = snapshot(&db);
    let out = ratedesk(&db, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("cannot be read")
            && message.contains("not modified")
            && message.contains("restore"),
        "{message}"
    );
    assert_eq!(snapshot(&db), before);
}

#[test]
fn a_damaged_log_is_refused_untouched_and_a_backup_restores_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "1", "0-1"],
    ));
    let expected = ok(&ratedesk(&db, &["export", "ratings"]));
    let backup = std::fs::read_dir(db.join("backups"))
        .expect("backups")
        .map(|e| e.expect("entry").path())
        .max()
        .expect("a backup");
    let log = db.join("db");
    let mut bytes = std::fs::read(&log).expect("log");
    for b in bytes.iter_mut().skip(100).take(4000) {
        *b = b.wrapping_mul(31).wrapping_add(7);
    }
    std::fs::write(&log, &bytes).expect("damage");
    let before = snapshot(&db);
    let out = ratedesk(&db, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("cannot be read") && message.contains("not modified"),
        "{message}"
    );
    assert_eq!(
        snapshot(&db),
        before,
        "the damaged database must not be modified"
    );
    ok(&ratedesk(
        &db,
        &["restore", "--force", backup.to_str().expect("path")],
    ));
    assert_eq!(ok(&ratedesk(&db, &["export", "ratings"])), expected);
}

/// Stored results are the answers of the rules that rated them: a database rated by an
/// earlier revision of the rules (results of another rule, or none) is rated again as it
/// opens, and says the new revision from then on. The rating moves shown beside its entries
/// were worked out by those rules: `check` does not hold them to these, but holds every entry
/// after.
#[test]
fn results_rated_by_earlier_rules_are_rated_again_at_the_opening() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "1", "1-0"],
    ));
    let expected = ok(&ratedesk(&db, &["export", "ratings"]));
    let meta_of = |raw: &sled::Db, key: &str| {
        let meta = raw.open_tree("meta").expect("meta");
        let bytes = meta.get(key).expect("read").expect("stamped");
        u64::from_be_bytes(bytes.as_ref().try_into().expect("eight bytes"))
    };
    // Moves of the import shown beside the result: what other rules might have given.
    let earlier_rules = |db: &Path, seq: u64| {
        let raw = sled::open(db).expect("sled");
        assert_eq!(meta_of(&raw, "rated_by"), ratedesk::rules::RULES_REVISION);
        raw.open_tree("unit_results")
            .expect("results")
            .clear()
            .expect("clear");
        let moves = raw.open_tree("audit_moves").expect("moves");
        let of_1 = moves
            .get(1u64.to_be_bytes())
            .expect("read")
            .expect("moves of #1");
        moves.insert(seq.to_be_bytes(), of_1).expect("write");
        raw
    };
    {
        let raw = earlier_rules(&db, 2);
        raw.open_tree("meta")
            .expect("meta")
            .insert("rated_by", &1u64.to_be_bytes())
            .expect("insert");
        raw.flush().expect("flush");
    }
    assert_eq!(ok(&ratedesk(&db, &["export", "ratings"])), expected);
    ok(&ratedesk(&db, &["check"]));
    {
        let raw = sled::open(&db).expect("sled");
        assert_eq!(meta_of(&raw, "rated_by"), ratedesk::rules::RULES_REVISION);
        assert_eq!(meta_of(&raw, "rules_since"), 2);
    }
    // An entry after it is held to these rules.
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "2", "0-1"],
    ));
    let expected = ok(&ratedesk(&db, &["export", "ratings"]));
    {
        let raw = sled::open(&db).expect("sled");
        let moves = raw.open_tree("audit_moves").expect("moves");
        let of_1 = moves
            .get(1u64.to_be_bytes())
            .expect("read")
            .expect("moves of #1");
        moves.insert(3u64.to_be_bytes(), of_1).expect("write");
        raw.flush().expect("flush");
    }
    let out = ratedesk(&db, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("beside #3"));
    // Results written by a version that does not know the stamp (it leaves the stamp behind
    // the entry the results follow from) are rated again too.
    {
        let raw = sled::open(&db).expect("sled");
        let meta = raw.open_tree("meta").expect("meta");
        meta.insert("rated_by_seq", &2u64.to_be_bytes())
            .expect("insert");
        raw.open_tree("unit_results")
            .expect("results")
            .clear()
            .expect("clear");
        raw.flush().expect("flush");
    }
    assert_eq!(ok(&ratedesk(&db, &["export", "ratings"])), expected);
}

#[test]
fn a_database_of_a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    {
        let raw = sled::open(&db).expect("sled");
        raw.open_tree("meta")
            .expect("meta")
            .insert("schema", &99u64.to_be_bytes())
            .expect("insert");
        raw.flush().expect("flush");
    }
    let out = ratedesk(&db, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("newer") && message.contains("schema 99"),
        "{message}"
    );
}

#[test]
fn files_are_private_to_their_owner() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode(&db), 0o700);
    assert_eq!(mode(&db.join("db")), 0o600);
    assert_eq!(mode(&db.join("conf")), 0o600);
    let backups = db.join("backups");
    assert_eq!(mode(&backups), 0o700);
    for b in std::fs::read_dir(backups).expect("backups") {
        assert_eq!(mode(&b.expect("entry").path()), 0o600);
    }
}

#[test]
fn preview_changes_nothing_and_names_who_moves() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let before = ok(&ratedesk(&db, &["export", "ratings"]));
    let audit_before = ok(&ratedesk(&db, &["log"]));
    let preview = ok(&ratedesk(
        &db,
        &["preview", "2025-hki-open", "1", "1", "0-1"],
    ));
    assert!(
        preview.contains("would change") && preview.contains("->"),
        "{preview}"
    );
    assert_eq!(ok(&ratedesk(&db, &["export", "ratings"])), before);
    assert_eq!(ok(&ratedesk(&db, &["log"])), audit_before);
    let bad = ratedesk(&db, &["preview", "2025-hki-open", "1", "99", "1-0"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("board 99"));
}

#[test]
fn sigterm_ends_a_batch_cleanly_between_edits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let backups_before = std::fs::read_dir(db.join("backups"))
        .expect("backups")
        .count();
    let (mut child, mut stdin, mut acks) = batch_writer(&db);
    writeln!(stdin, "2025-hki-open 1 1 0-1").expect("send");
    let mut line = String::new();
    acks.read_line(&mut line).expect("ack");
    assert!(line.starts_with("ok "), "{line}");
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let exit = child.wait().expect("wait");
    // Stopped, not finished: the status says so (the lines it applied are answered).
    assert_eq!(exit.code(), Some(1), "{exit:?}");
    assert_eq!(
        std::fs::read_to_string(db.join("ratedesk.lock")).expect("lock file"),
        "",
        "the lock is released and names nobody"
    );
    let backups_after = std::fs::read_dir(db.join("backups"))
        .expect("backups")
        .count();
    assert!(
        backups_after > backups_before,
        "an automatic backup on the way out"
    );
    let doc: Value =
        serde_json::from_str(&ok(&ratedesk(&db, &["export", "events"]))).expect("json");
    assert_eq!(doc["events"][0]["games"][0]["result"], "0-1");
}

/// An Icelandic and a Turkish database: created with their rulebook, which they keep — a
/// second `init`, a document of another rulebook and a desk of another rulebook are refused
/// with what is wrong — and everything else works as for a Finnish one: `export events`
/// re-rates to the stored ratings, a result and its undo, `check`.
#[test]
fn isl_and_tsf_databases_keep_their_rulebook() {
    use crate::common::federation_file;
    for (rules, other, adjective) in [("isl", "tsf", "Icelandic"), ("tsf", "isl", "Turkish")] {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("db");
        let said = ok(&ratedesk(&db, &["init", "--rules", rules]));
        assert!(
            said.contains(&format!("{adjective} rulebook ('{rules}')")),
            "{said}"
        );
        let again = ratedesk(&db, &["init", "--rules", other]);
        assert_eq!(again.status.code(), Some(2));
        let message = String::from_utf8_lossy(&again.stderr);
        assert!(
            message.contains("already holds a database") && message.contains(rules),
            "{message}"
        );
        let doc = federation_file(dir.path(), rules);
        ok(&ratedesk(
            &db,
            &["import", "json", doc.to_str().expect("path")],
        ));
        let wrong = federation_file(dir.path(), other);
        let out = ratedesk(&db, &["import", "json", wrong.to_str().expect("path")]);
        assert_eq!(out.status.code(), Some(2));
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(
            message.contains(&format!("for the '{other}' rulebook"))
                && message.contains(&format!("keeps '{rules}'")),
            "{message}"
        );
        match ratedesk::app::Desk::open(&db, ratedesk::rules::ssl::Ssl) {
            Err(ratedesk::app::DeskError::Store(ratedesk::store::StoreError::WrongRules {
                found,
                wanted,
                ..
            })) => assert_eq!((found.as_str(), wanted.as_str()), (rules, "ssl")),
            Err(e) => panic!("{rules}: {e}"),
            Ok(_) => panic!("{rules}: opened as ssl"),
        }
        let ratings: Value =
            serde_json::from_str(&ok(&ratedesk(&db, &["export", "ratings"]))).expect("json");
        let events = ok(&ratedesk(&db, &["export", "events"]));
        assert_eq!(rate(&events), ratings, "{rules}: export events re-rated");
        assert!(
            ratings["events"]
                .as_array()
                .expect("events")
                .iter()
                .any(|e| e["list"] == "standard"),
            "{rules}: {ratings}"
        );
        let event = format!(
            "{}-autumn-2025",
            if rules == "isl" {
                "reykjavik"
            } else {
                "ankara"
            }
        );
        let said = ok(&ratedesk(&db, &["result", &event, "1", "1", "0-1"]));
        assert!(said.contains("rating(s) changed"), "{rules}: {said}");
        let changed = ok(&ratedesk(&db, &["export", "ratings"]));
        assert_eq!(
            rate(&ok(&ratedesk(&db, &["export", "events"]))).to_string(),
            serde_json::from_str::<Value>(&changed)
                .expect("json")
                .to_string()
        );
        ok(&ratedesk(&db, &["undo"]));
        let undone: Value =
            serde_json::from_str(&ok(&ratedesk(&db, &["export", "ratings"]))).expect("json");
        assert_eq!(undone, ratings, "{rules}: undo");
        let checked = ok(&ratedesk(&db, &["check"]));
        assert!(checked.starts_with("ok: "), "{rules}: {checked}");
    }
}

/// Icelandic and Turkish backups round-trip byte for byte through `restore`; a backup restores
/// only into a database of its own rulebook.
#[test]
fn isl_and_tsf_backups_round_trip() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut backups = Vec::new();
    for rules in ["isl", "tsf"] {
        let db = dir.path().join(rules);
        let doc = crate::common::federation_file(dir.path(), rules);
        ok(&ratedesk(
            &db,
            &["import", "json", doc.to_str().expect("path")],
        ));
        let first = dir.path().join(format!("{rules}-first.backup"));
        ok(&ratedesk(&db, &["backup", first.to_str().expect("path")]));
        let restored = dir.path().join(format!("{rules}-restored"));
        ok(&ratedesk(
            &restored,
            &["restore", first.to_str().expect("path")],
        ));
        let second = dir.path().join(format!("{rules}-second.backup"));
        ok(&ratedesk(
            &restored,
            &["backup", second.to_str().expect("path")],
        ));
        crate::common::assert_restored_as(&first, &second);
        assert_eq!(
            ok(&ratedesk(&db, &["export", "ratings"])),
            ok(&ratedesk(&restored, &["export", "ratings"])),
            "{rules}"
        );
        assert!(ok(&ratedesk(&restored, &["check"])).starts_with("ok: "));
        backups.push((db, first));
    }
    let (isl_db, isl_backup) = &backups[0];
    let (tsf_db, tsf_backup) = &backups[1];
    for (db, backup) in [(tsf_db, isl_backup), (isl_db, tsf_backup)] {
        let out = ratedesk(db, &["restore", "--force", backup.to_str().expect("path")]);
        assert_eq!(out.status.code(), Some(2));
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(
            message.contains("restore it into another folder"),
            "{message}"
        );
    }
}

/// A record of more events than are read and decoded in one batch when the database opens
/// (they are decoded on every core, a batch at a time): every event comes back in its place,
/// with its games, and its ratings are those stored.
#[test]
fn a_record_of_many_events_reads_back_each_in_its_place() {
    use crate::playoffs::{desk, event};
    use ratedesk::app::{Desk, Edit, ImportedPlayer};
    use ratedesk::model::{Event, GameResult};
    use ratedesk::rules::ssl::Ssl;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    let events: Vec<Event> = (0..1_300u32)
        .map(|k| {
            let mut ev = event(
                &format!("e{k:04}"),
                1 + k % 28,
                [90, 15, 5][k as usize % 3],
                None,
            );
            if k % 7 == 0 {
                ev.games[0].result = Some(GameResult::DRAW);
            }
            ev
        })
        .collect();
    desk.apply(Edit::Import {
        players: vec![ImportedPlayer::Existing(0), ImportedPlayer::Existing(1)],
        events,
    })
    .expect("imported");
    let deleted = desk.book().live_event("e0700").expect("an event");
    desk.apply(Edit::DeleteEvent(deleted)).expect("deleted");
    let (events, live) = (desk.book().events.clone(), desk.book().live.clone());
    let units = format!("{:?}", desk.ledger().units());
    desk.close().expect("close");
    let reopened = Desk::open(dir.path(), Ssl).expect("reopen");
    assert_eq!(reopened.book().events, events);
    assert_eq!(reopened.book().live, live);
    assert_eq!(format!("{:?}", reopened.ledger().units()), units);
    assert!(reopened.check().is_empty(), "{:?}", reopened.check());
}
