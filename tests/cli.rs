//! The command line around the workstation: a broken keymap stops the program before the
//! terminal is touched, naming the file, the key and the clashing actions.

use std::process::Command;

mod common;
use common::{ratedesk as run, shared};

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
    assert_eq!(events(&db), 0, "nothing is imported when one file is bad");
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
