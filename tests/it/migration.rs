//! A database written by the previous release (schema 1: every game a record of its own, unit
//! results in their own tree; players without a club in layout V3 … V4) opens with this one:
//! the same events, results and ratings, the same audit log with its chain whole, and it takes
//! new edits. `tests/fixtures/schema-1/` was written by that release's binary: a 48-player demo
//! (`ratedesk demo --players 40 --years 1`), two corrections and an undo; `schema-1.events.json`
//! and `schema-1.log.txt` are what it exported and logged.

use std::path::Path;

use crate::common::{ok, ratedesk as run};

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A copy of the fixture database to open (opening migrates it in place).
fn copy_of_the_old_database() -> tempfile::TempDir {
    copy_of("schema-1")
}

/// A copy of the fixture database `name`.
fn copy_of(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let from = fixture(name);
    for entry in std::fs::read_dir(&from)
        .unwrap_or_else(|e| panic!("{}: {e}", from.display()))
        .flatten()
    {
        if entry.path().is_file() {
            std::fs::copy(entry.path(), dir.path().join(entry.file_name())).expect("copy");
        }
    }
    dir
}

fn read(name: &str) -> String {
    let path = fixture(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_database_of_the_previous_release_opens_with_its_record_and_its_log() {
    let dir = copy_of_the_old_database();
    let db = dir.path();
    assert_eq!(
        ok(&run(db, &["export", "events"])),
        read("schema-1.events.json"),
        "the events, results and ratings as the previous release exported them"
    );
    // The log as the previous release wrote it (it cut each entry at 12 lines, saying how many
    // more): every line of it, and of each entry as many more, in `log --full`.
    let full = ok(&run(db, &["log", "--full"]));
    let mut entries: Vec<(&str, usize)> = Vec::new();
    for line in full.lines() {
        if line.starts_with('#') {
            entries.push((line, 0));
        } else if let Some(last) = entries.last_mut() {
            last.1 += 1;
        }
    }
    let old = read("schema-1.log.txt");
    let mut expected: Vec<(&str, usize)> = Vec::new();
    for line in old.lines() {
        if line.starts_with('#') {
            expected.push((line, 0));
        } else if let Some(last) = expected.last_mut() {
            let more = line
                .trim_start()
                .strip_prefix("… and ")
                .and_then(|r| r.strip_suffix(" more"))
                .and_then(|n| n.parse::<usize>().ok());
            last.1 += more.unwrap_or(1);
        }
    }
    assert_eq!(entries, expected, "{full}");
    let mut rest = full.lines();
    for line in old
        .lines()
        .filter(|l| !l.trim_start().starts_with("… and "))
    {
        assert!(rest.any(|l| l == line), "{line} is not in the log:\n{full}");
    }
    let check = ok(&run(db, &["check"]));
    assert!(
        check.contains("79 rated units agree") && check.contains("chain holds (4 entries)"),
        "{check}"
    );
    // Opened again (now in the new layout): the same record.
    assert_eq!(
        ok(&run(db, &["export", "events"])),
        read("schema-1.events.json")
    );
}

#[test]
fn a_migrated_database_takes_new_edits_and_undoes_them() {
    let dir = copy_of_the_old_database();
    let db = dir.path();
    let before = ok(&run(db, &["export", "events"]));
    let set = ok(&run(db, &["result", "2025-open-000", "2", "1", "1/2-1/2"]));
    // As the previous release answers the same correction on the same database.
    assert!(
        set.contains("18 rating(s) changed (55 unit(s) re-rated)")
            && set.contains("Söderström, Matti (FIN10000) selo  1178 -> 1179  (+1)"),
        "{set}"
    );
    let after = ok(&run(db, &["export", "events"]));
    assert_ne!(after, before, "the result was stored");
    ok(&run(db, &["undo"]));
    assert_eq!(ok(&run(db, &["export", "events"])), before);
    let check = ok(&run(db, &["check"]));
    assert!(check.contains("chain holds (6 entries)"), "{check}");
}

/// `tests/fixtures/records-v4/` was written by the release before games kept their own
/// receipt date (records tagged V4): the sample event imported, a result, its correction,
/// another result and its undo. It opens with the same record and log, its chain holds, and it
/// takes new edits.
#[test]
fn a_database_of_v4_records_opens_with_its_record_and_its_log() {
    let dir = copy_of("records-v4");
    let db = dir.path();
    assert_eq!(
        ok(&run(db, &["export", "events"])),
        read("records-v4.events.json")
    );
    assert_eq!(ok(&run(db, &["log", "--full"])), read("records-v4.log.txt"));
    let check = ok(&run(db, &["check"]));
    assert!(check.contains("chain holds (5 entries)"), "{check}");
    ok(&run(db, &["result", "2025-hki-open", "1", "3", "1-0"]));
    ok(&run(db, &["undo"]));
    assert_eq!(
        ok(&run(db, &["export", "events"])),
        read("records-v4.events.json")
    );
    let check = ok(&run(db, &["check"]));
    assert!(check.contains("chain holds (7 entries)"), "{check}");
}

/// `tests/fixtures/records-v5/` was written by the release before players kept their
/// re-entries (records tagged V5): an Icelandic demo (`ratedesk demo --rules isl --players 40
/// --years 1`), a correction, a round's receipt day corrected, another correction and its
/// undo. It opens with the same record and log, its chain holds, a backup of it restores, and
/// it takes a re-entry and its undo.
#[test]
fn a_database_of_v5_records_opens_backs_up_and_takes_a_reentry() {
    let dir = copy_of("records-v5");
    let db = dir.path();
    let events = read("records-v5.events.json");
    assert_eq!(ok(&run(db, &["export", "events"])), events);
    assert_eq!(ok(&run(db, &["log", "--full"])), read("records-v5.log.txt"));
    let check = ok(&run(db, &["check"]));
    assert!(check.contains("chain holds (5 entries)"), "{check}");
    // Its audit entries, of the earlier layout, are written into a backup as they read.
    let other = tempfile::tempdir().expect("tempdir");
    let dump = other.path().join("v5.backup");
    let dump = dump.to_str().expect("path");
    ok(&run(db, &["backup", dump]));
    let copy = other.path().join("copy");
    ok(&run(&copy, &["restore", dump]));
    assert_eq!(ok(&run(&copy, &["export", "events"])), events);
    let set = ok(&run(
        db,
        &["reenter", "ISL10005", "2025-03-01", "--national", "1900"],
    ));
    assert!(
        set.starts_with("re-enter ISL10005 on 2025-03-01 on national rating 1900"),
        "{set}"
    );
    let check = ok(&run(db, &["check"]));
    assert!(check.contains("chain holds (6 entries)"), "{check}");
    ok(&run(db, &["undo"]));
    assert_eq!(ok(&run(db, &["export", "events"])), events);
    let check = ok(&run(db, &["check"]));
    assert!(check.contains("chain holds (7 entries)"), "{check}");
}

/// `tests/fixtures/schema-3/` was written by the release before large audit entries were
/// stored compressed (schema 3): a Turkish demo (`ratedesk demo --rules tsf --players 40
/// --years 1`), three corrections and an undo. Opening it stores its import's entry compressed
/// (schema 4); it opens with the same record and log, its chain holds, a backup of it restores
/// to the same record, and it takes new edits.
#[test]
fn a_database_of_schema_3_opens_with_its_record_and_its_log() {
    let dir = copy_of("schema-3");
    let db = dir.path();
    let events = read("schema-3.events.json");
    assert_eq!(ok(&run(db, &["export", "events"])), events);
    assert_eq!(ok(&run(db, &["log", "--full"])), read("schema-3.log.txt"));
    let check = ok(&run(db, &["check"]));
    assert!(
        check.contains("6 rated units agree") && check.contains("chain holds (5 entries)"),
        "{check}"
    );
    let other = tempfile::tempdir().expect("tempdir");
    let dump = other.path().join("schema-3.backup.zst");
    let dump = dump.to_str().expect("path");
    ok(&run(db, &["backup", dump]));
    let copy = other.path().join("copy");
    ok(&run(&copy, &["restore", dump]));
    assert_eq!(ok(&run(&copy, &["export", "events"])), events);
    let restored = ok(&run(&copy, &["log", "--full"]));
    assert!(
        restored.starts_with(&read("schema-3.log.txt")),
        "the log is the backup's, the restore's entry after it:\n{restored}"
    );
    let set = ok(&run(db, &["result", "2025-blitz-000", "1", "1", "0-1"]));
    assert!(
        set.contains("rating(s) changed (1 unit(s) re-rated)"),
        "{set}"
    );
    ok(&run(db, &["undo"]));
    assert_eq!(ok(&run(db, &["export", "events"])), events);
    let check = ok(&run(db, &["check"]));
    assert!(check.contains("chain holds (7 entries)"), "{check}");
}

/// `tests/fixtures/schema-6/` was written by the release before units' rows kept their
/// performances and figures in columns (schema 6: rows in columns, the rest one bincode
/// sequence): a Turkish demo (`ratedesk demo --rules tsf --players 40 --years 1`), three
/// corrections and an undo. It opens with the same record and log; `check` reads every unit's
/// rows as that release stored them and finds them the fresh calculation's; a correction writes
/// its units' rows in the new layout, which read back as rated.
#[test]
fn a_database_of_schema_6_opens_and_its_rows_read_in_either_layout() {
    let dir = copy_of("schema-6");
    let db = dir.path();
    let events = read("schema-6.events.json");
    assert_eq!(ok(&run(db, &["export", "events"])), events);
    assert_eq!(ok(&run(db, &["log", "--full"])), read("schema-6.log.txt"));
    let check = ok(&run(db, &["check"]));
    assert!(
        check.contains("6 rated units agree") && check.contains("chain holds (5 entries)"),
        "{check}"
    );
    let set = ok(&run(db, &["result", "2025-blitz-000", "1", "2", "1/2-1/2"]));
    assert!(set.contains("1 unit(s) re-rated"), "{set}");
    let check = ok(&run(db, &["check"]));
    assert!(
        check.contains("6 rated units agree") && check.contains("chain holds (6 entries)"),
        "{check}"
    );
    ok(&run(db, &["undo"]));
    assert_eq!(ok(&run(db, &["export", "events"])), events);
    let check = ok(&run(db, &["check"]));
    assert!(check.contains("chain holds (7 entries)"), "{check}");
}
