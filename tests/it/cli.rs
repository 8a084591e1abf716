//! The command line around the workstation: a broken keymap stops the program before the
//! terminal is touched, naming the file, the key and the clashing actions; TRF imports; the
//! rulebook chosen once by `init`; a correction that keeps a title as one audited edit.

use std::process::Command;

use crate::common::{ratedesk as run, shared};

#[test]
fn a_broken_keymap_stops_before_the_alternate_screen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let keymap = dir.path().join("keys.toml");
    std::fs::write(&keymap, "[table]\n\"h\" = \"help\"\n\"h x\" = \"quit\"\n").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .env("XDG_DATA_HOME", dir.path())
        .arg("--keymap")
        .arg(&keymap)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "nothing was drawn: {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("keys.toml") && message.contains("\"h\""),
        "{message}"
    );
    assert!(
        message.contains("help") && message.contains("quit"),
        "{message}"
    );
}

#[test]
fn an_unknown_theme_only_warns() {
    let (theme, warning) = ratedesk::ui::theme::Theme::choose(Some("plaid"), false);
    assert_eq!(theme.name, "dark");
    assert!(warning.is_some());
}

#[test]
fn a_trf_file_is_previewed_then_imported_and_rated() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let file = shared("trf/erral_fidetournament_test_demo.trf");
    let file = file.to_str().expect("path");
    let preview = run(&db, &["import", "trf", file, "--dry-run"]);
    let text = String::from_utf8_lossy(&preview.stdout);
    assert!(
        preview.status.success(),
        "{}",
        String::from_utf8_lossy(&preview.stderr)
    );
    assert!(
        text.contains("137 new") && text.contains("nothing imported"),
        "{text}"
    );
    let log = run(&db, &["log"]);
    assert!(
        String::from_utf8_lossy(&log.stdout).trim().is_empty(),
        "a dry run changes nothing"
    );
    let imported = run(&db, &["import", "trf", file, "--yes"]);
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    // A second import of the same players matches them by FIDE id.
    let again = run(&db, &["import", "trf", file, "--dry-run", "--id", "again"]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("137 matched"));
    assert!(run(&db, &["check"]).status.success());
}

#[test]
fn an_unreadable_time_control_asks_for_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let file = shared("trf/sklangen_TRF_2021_03.trf");
    let file = file.to_str().expect("path");
    let out = run(&db, &["import", "trf", file, "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--time-control"));
    let out = run(
        &db,
        &["import", "trf", file, "--yes", "--time-control", "5+0"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn swiss_manager_files_and_malformed_files_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    // Every Swiss-Manager file of the samples, and one renamed to .trf, by its content.
    let folder = shared("swissmanager");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|f| f.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e != "md"))
        .collect();
    assert_eq!(files.len(), 4);
    let renamed = dir.path().join("renamed.trf");
    std::fs::copy(&files[0], &renamed).expect("copy");
    files.push(renamed);
    for file in files {
        let out = run(&db, &["import", "trf", file.to_str().expect("path")]);
        assert_eq!(out.status.code(), Some(2), "{}", file.display());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("Export → TRF"),
            "{}",
            file.display()
        );
    }
    let bad = dir.path().join("bad.trf");
    std::fs::write(
        &bad,
        "012 Cup\n001    1    g Name,A                            25x8 FIN\n",
    )
    .expect("write");
    let out = run(&db, &["import", "trf", bad.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("line 2, column 49"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Players without ids are matched by name and birth date, and the preview names each such
/// match for the officer to check; a name two of ours share is ambiguous, with both named.
#[test]
fn trf_players_matched_by_name_are_shown_for_checking() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let doc = dir.path().join("players.json");
    std::fs::write(
        &doc,
        r#"{"rules": "ssl", "players": [
            {"id": "FIN1", "name": "Mäkelä, Eero", "born": "1983-07-19"},
            {"id": "FIN2", "name": "Salo, Kari"},
            {"id": "FIN3", "name": "Salo, Kari"}
        ], "events": []}"#,
    )
    .expect("write");
    assert!(
        run(&db, &["import", "json", doc.to_str().expect("utf-8")])
            .status
            .success()
    );
    let trf = dir.path().join("club.trf");
    let line = |n: u32, name: &str, born: &str, opponent: u32, result: char| {
        format!(
            "001 {n:>4} m    {name:<33} {:>4} {:<3} {:>11} {born:<10} {:>4} {:>4}  {opponent:>4} w {result}",
            "", "FIN", "", "1.0", n
        )
    };
    std::fs::write(
        &trf,
        [
            "012 Club".to_string(),
            "042 2025/09/06".to_string(),
            "052 2025/09/06".to_string(),
            line(1, "Makela,Eero", "1983/07/19", 2, '1'),
            line(2, "Salo,Kari", "", 1, '0'),
        ]
        .join("\n"),
    )
    .expect("write");
    let out = run(
        &db,
        &[
            "import",
            "trf",
            trf.to_str().expect("utf-8"),
            "--time-control",
            "90+30",
        ],
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("1 matched, 0 new, 1 ambiguous"), "{said}");
    assert!(
        said.contains("= 1 Mäkelä, Eero (FIN1) by name and birth date"),
        "{said}"
    );
    assert!(
        said.contains("? 2 Salo, Kari: Salo, Kari (FIN2), Salo, Kari (FIN3)"),
        "{said}"
    );
}

/// Several TRF files at once: every one is checked before any is imported, then each becomes
/// its own event.
#[test]
fn several_trf_files_are_checked_first_then_imported_each_as_an_event() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let masters = shared("trf/sanichi_icu_tournament_bunratty_masters_2011.tab");
    let minor = shared("trf/sanichi_icu_tournament_bunratty_minor_2011.tab");
    let bad = dir.path().join("bad.trf");
    std::fs::write(
        &bad,
        "012 Cup\n001    1    g Name,A                            25x8 FIN\n",
    )
    .expect("write");
    let path = |p: &std::path::Path| p.to_str().expect("utf-8").to_string();
    let (masters, minor, bad) = (path(&masters), path(&minor), path(&bad));
    let out = run(
        &db,
        &[
            "import",
            "trf",
            &masters,
            &bad,
            "--yes",
            "--time-control",
            "120+30",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.trf: line 2"));
    let events = |db: &std::path::Path| -> usize {
        let doc: serde_json::Value =
            serde_json::from_slice(&run(db, &["export", "events"]).stdout).expect("json");
        doc["events"].as_array().map_or(0, Vec::len)
    };
    // Nothing is imported when one file is bad: not even an empty database is left.
    let out = run(&db, &["export", "events"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("there is no database"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = run(
        &db,
        &[
            "import",
            "trf",
            &masters,
            &minor,
            "--yes",
            "--time-control",
            "120+30",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(events(&db), 2);
    let out = run(&db, &["import", "trf", &masters, &minor, "--id", "x"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The rulebook is chosen once, by `init` (Finnish by default); `--rules` alone is no command.
#[test]
fn init_chooses_the_rulebook_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let said = crate::common::ok(&run(&db, &["init"]));
    assert!(said.contains("Finnish rulebook ('ssl')"), "{said}");
    let out = run(&db, &["init", "--rules", "isl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already holds a database"));
    let out = run(&dir.path().join("other"), &["init", "--rules", "fra"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.path().join("other").exists(), "nothing created");
    let out = run(&db, &["--rules", "isl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--demo"));
    // A command other than an import on a folder without a database says how to make one.
    let out = run(&dir.path().join("none"), &["check"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("ratedesk init --rules"));
}

/// SSL 6.1: titles are permanent. A correction that would take a title away is refused
/// unless the officer keeps it (one audited edit with the correction: one undo takes both
/// back) or drops it.
#[test]
fn a_correction_keeps_the_title_it_would_remove_in_one_audited_edit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let doc = dir.path().join("doc.json");
    std::fs::write(
        &doc,
        r#"{"rules": "ssl", "players": [
            {"id": "FIN1", "name": "Aho, Aino", "selo": {"rating": 1895, "games": 100}},
            {"id": "FIN2", "name": "Berg, Bo", "selo": {"rating": 1900, "games": 100}}],
          "events": [{"id": "e1", "start": "2025-03-01", "end": "2025-03-01",
            "time_control": {"base_minutes": 90, "increment_seconds": 30},
            "games": [{"round": 1, "white": "FIN1", "black": "FIN2", "result": "1-0"}]}]}"#,
    )
    .expect("write");
    crate::common::ok(&run(&db, &["import", "json", doc.to_str().expect("path")]));
    let titles = |db: &std::path::Path| -> serde_json::Value {
        let doc: serde_json::Value =
            serde_json::from_str(&crate::common::ok(&run(db, &["export", "events"])))
                .expect("json");
        doc["players"][0]["titles"].clone()
    };
    let reached: serde_json::Value =
        serde_json::from_str(&crate::common::ok(&run(&db, &["export", "ratings"]))).expect("json");
    assert_eq!(
        reached["players"][0]["titles"][0]["title"], "I",
        "{reached}"
    );
    let entries = |db: &std::path::Path| {
        crate::common::ok(&run(db, &["log"]))
            .lines()
            .filter(|l| l.starts_with('#'))
            .count()
    };
    let logged = entries(&db);
    let refused = run(&db, &["result", "e1", "1", "1", "0-1"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--keep-titles"));
    assert_eq!(entries(&db), logged, "nothing stored");
    let kept = crate::common::ok(&run(
        &db,
        &["result", "e1", "1", "1", "0-1", "--keep-titles"],
    ));
    assert!(kept.contains("kept title I Aho, Aino (FIN1)"), "{kept}");
    assert_eq!(entries(&db), logged + 1, "one audited edit");
    assert_eq!(titles(&db)[0]["title"], "I", "held");
    assert!(crate::common::ok(&run(&db, &["check"])).starts_with("ok: "));
    crate::common::ok(&run(&db, &["undo"]));
    assert_eq!(
        titles(&db),
        serde_json::Value::Null,
        "one undo takes both back"
    );
    let again: serde_json::Value =
        serde_json::from_str(&crate::common::ok(&run(&db, &["export", "ratings"]))).expect("json");
    assert_eq!(again, reached);
}

#[test]
fn the_workstation_without_a_terminal_says_so_in_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    crate::common::ok(&run(&dir.path().join("db"), &["init"]));
    let out = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .env("XDG_DATA_HOME", dir.path())
        .arg("--db")
        .arg(dir.path().join("db"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("needs a terminal"), "{message}");
    assert_eq!(message.trim_end().lines().count(), 1, "{message}");
    assert!(!message.contains("panicked"), "{message}");
}

#[test]
fn the_workstation_on_a_mistyped_folder_says_so_and_creates_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let typo = dir.path().join("ratedsk");
    let out = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .env("XDG_DATA_HOME", dir.path())
        .arg("--db")
        .arg(&typo)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert!(!out.status.success());
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("there is no database at") && message.contains("init"),
        "{message}"
    );
    assert!(!typo.exists(), "an empty database was made");
}

#[test]
fn a_demo_is_not_built_over_a_database_of_another_rulebook() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let out = run(&db, &["init", "--rules", "isl"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .env("XDG_DATA_HOME", dir.path())
        .arg("--db")
        .arg(&db)
        .args(["--demo", "--rules", "tsf"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("isl") && message.contains("tsf") && message.contains("--demo"),
        "{message}"
    );
}

/// Every command reads one clock (`src/clock.rs`; debug builds let a test set it): the audit
/// entry's time and the list in force "today" follow it.
#[test]
fn the_day_is_read_from_one_clock() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/autumn-2025.json");
    crate::common::ok(&run(&db, &["import", "json", demo.to_str().expect("path")]));
    let on = |now: &str, args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
            .arg("--db")
            .arg(&db)
            .args(args)
            .env("RATEDESK_TEST_NOW", now)
            .output()
            .expect("ratedesk");
        crate::common::ok(&out)
    };
    on(
        "2026-03-01T12:00:00",
        &["result", "2025-hki-open", "1", "1", "0-1"],
    );
    let log = crate::common::ok(&run(&db, &["log", "--last", "1"]));
    assert!(log.starts_with("#2 2026-03-01 12:00:00 "), "{log}");
    // The list in force today (Finland's is any day's), its changes since three months before.
    for (now, day, since) in [
        ("2026-03-01T12:00:00", "2026-03-01", "2025-12-01"),
        ("2026-05-20T08:00:00", "2026-05-20", "2026-02-20"),
    ] {
        let page = on(now, &["export", "list", "--format", "text"]);
        assert!(
            page.starts_with(&format!("Finnish selo list {day}\n"))
                && page.contains(&format!("change since {since}")),
            "{now}: {page}"
        );
    }
}
