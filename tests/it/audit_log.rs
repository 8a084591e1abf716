//! The audit log tells the whole story, through the real binary: before → after for every
//! change (a corrected result with whose rating moved by how much), imports with their files
//! and counts, FIDE reference data, and a chain that `check` follows to where it was broken.

use std::path::{Path, PathBuf};

use crate::common::{ok, ratedesk, shared};

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

#[test]
fn a_corrected_result_shows_the_old_and_new_result_and_who_moved_by_how_much() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "1", "1-0"],
    ));
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "1", "0-1"],
    ));
    let log = ok(&ratedesk(&db, &["log", "--last", "1"]));
    let lines: Vec<&str> = log.lines().collect();
    assert!(
        lines[0].starts_with("#3 ") && lines[0].contains("0-1"),
        "{log}"
    );
    assert!(
        lines[1].contains("2025-hki-open round 1 board 1 (") && lines[1].ends_with(": 1-0 → 0-1"),
        "{log}"
    );
    let moved: Vec<&&str> = lines
        .iter()
        .filter(|l| {
            l.contains(" selo ") && l.contains(" → ") && l.contains("(-") || l.contains("(+")
        })
        .collect();
    assert!(moved.len() >= 2, "both players moved: {log}");
    // The import before it names its file and what it brought.
    let log = ok(&ratedesk(&db, &["log"]));
    assert!(
        log.lines()
            .next()
            .is_some_and(|l| l.contains("autumn-2025.json: 22 new players")),
        "{log}"
    );
    assert!(
        log.contains("player Järvinen, Aino (FIN1001) added"),
        "{log}"
    );
}

#[test]
fn a_fide_list_import_names_its_file_and_what_it_did_to_the_reference_data() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let list = shared("fide/ChristerNilsson_FIDE-ratinglist_swe.excerpt.txt");
    ok(&ratedesk(
        &db,
        &[
            "import",
            "fide-list",
            "--date",
            "2025-10",
            list.to_str().expect("path"),
        ],
    ));
    let log = ok(&ratedesk(&db, &["log", "--last", "1"]));
    assert!(
        log.contains("ChristerNilsson_FIDE-ratinglist_swe.excerpt.txt")
            && log.contains("reference data of players not ours: 14 added, 0 updated"),
        "{log}"
    );
}

/// The demo with a few edits, and its backup.
fn backed_up(dir: &Path) -> (PathBuf, String) {
    let db = demo_db(dir);
    for code in ["1-0", "0-1", "1/2-1/2"] {
        ok(&ratedesk(&db, &["result", "2025-hki-open", "1", "1", code]));
    }
    let file = dir.join("all.backup");
    ok(&ratedesk(&db, &["backup", file.to_str().expect("path")]));
    (db, std::fs::read_to_string(&file).expect("backup"))
}

fn restore_and_check(dir: &Path, name: &str, text: &str) -> std::process::Output {
    let file = dir.join(format!("{name}.backup"));
    std::fs::write(&file, text).expect("write");
    let db = dir.join(name);
    ok(&ratedesk(&db, &["restore", file.to_str().expect("path")]));
    ratedesk(&db, &["check"])
}

#[test]
fn check_follows_the_chain_and_says_where_an_edited_backup_breaks_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (db, text) = backed_up(dir.path());
    let said = ok(&ratedesk(&db, &["check"]));
    assert!(said.contains("chain holds (4 entries)"), "{said}");
    // History rewritten: the second entry's result changed.
    let edited = text.replacen("round 1 board 1: 0-1", "round 1 board 1: 1-0", 1);
    assert_ne!(edited, text);
    let out = restore_and_check(dir.path(), "edited", &edited);
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("chain breaks at #4") && said.contains("(#3)"),
        "{said}"
    );
    // An entry removed.
    let removed: Vec<&str> = text
        .lines()
        .filter(|l| {
            !(l.starts_with("audit ") || l.starts_with("moved ")) || !l.contains("\"seq\":2,")
        })
        .collect();
    let out = restore_and_check(dir.path(), "removed", &(removed.join("\n") + "\n"));
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("chain breaks at #3"), "{said}");
    // Untouched, it holds.
    let out = restore_and_check(dir.path(), "untouched", &text);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_backup_written_before_the_chain_restores_and_checks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, text) = backed_up(dir.path());
    // The previous version's backups had neither links nor rating moves.
    let old: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with("moved "))
        .map(|l| match l.find(",\"prev\":") {
            Some(at) if l.starts_with("audit ") => {
                let end = l[at + 1..].find([',', '}']).map_or(l.len(), |e| at + 1 + e);
                format!("{}{}", &l[..at], &l[end..])
            }
            _ => l.to_string(),
        })
        .collect();
    assert!(!old.iter().any(|l| l.contains("\"prev\"")));
    let out = restore_and_check(dir.path(), "old", &(old.join("\n") + "\n"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // The next edit is chained to it.
    let db = dir.path().join("old");
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "2", "1-0"],
    ));
    ok(&ratedesk(&db, &["check"]));
}

/// An entry's lines are cut past sixty (saying how to see them all); `log --full` shows every
/// one — every record of an import, every mover of a cascade.
#[test]
fn log_full_shows_every_line_of_an_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let cut = ok(&ratedesk(&db, &["log"]));
    assert!(
        cut.contains("more (`log --full` shows every line)"),
        "{cut}"
    );
    let full = ok(&ratedesk(&db, &["log", "--full"]));
    assert!(!full.contains("`log --full`"), "{full}");
    assert!(full.lines().count() > cut.lines().count() + 10);
    // Each entry's lines, as `log --full` shows them and as `log` counts them (its lines and
    // how many more).
    let entries = |log: &str| {
        let mut entries: Vec<(String, usize)> = Vec::new();
        for line in log.lines() {
            if line.starts_with('#') {
                entries.push((line.to_string(), 0));
            } else if let Some((_, n)) = entries.last_mut() {
                let more = line
                    .trim_start()
                    .strip_prefix("… and ")
                    .and_then(|r| r.strip_suffix(" more (`log --full` shows every line)"))
                    .map(|n| n.parse::<usize>().expect("a count"));
                *n += more.unwrap_or(1);
            }
        }
        entries
    };
    assert_eq!(entries(&cut), entries(&full));
}

/// The rating moves `log` shows beside an entry follow from the chain: `check` works them out
/// again from the audit log replayed, and names the entry whose shown moves were changed (here:
/// the moves of one correction written beside the other).
#[test]
fn check_catches_rating_moves_changed_beside_an_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "1", "1-0"],
    ));
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "2", "0-1"],
    ));
    ok(&ratedesk(&db, &["check"]));
    let shown = |seq: u64| ok(&ratedesk(&db, &["log", "--full"])).contains(&format!("#{seq} "));
    assert!(shown(2) && shown(3));
    {
        let raw = sled::open(&db).expect("sled");
        let moves = raw.open_tree("audit_moves").expect("moves");
        let key = |seq: u64| seq.to_be_bytes();
        let of_2 = moves.get(key(2)).expect("read").expect("moves of #2");
        assert!(moves.get(key(3)).expect("read").is_some(), "moves of #3");
        moves.insert(key(3), of_2).expect("write");
        raw.flush().expect("flush");
    }
    let out = ratedesk(&db, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("the rating moves shown beside #3 are not those the audit log gives"),
        "{said}"
    );
    assert!(
        !said.contains("#2 "),
        "only the changed entry is named: {said}"
    );
}
