//! A shared server, through the real binary: backups never follow a planted link nor change
//! what they did not create, a database folder others can write to (or its backups) is refused,
//! escape sequences from imported data never reach the terminal raw, and the audit log names
//! the OS user, not whatever `$USER` says.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{ok, ratedesk};

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

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).expect("meta").permissions().mode() & 0o7777
}

#[test]
fn a_backup_never_follows_a_link_nor_touches_what_it_did_not_create() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "precious").expect("write");
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let link = dir.path().join("planted.backup");
    std::os::unix::fs::symlink(&victim, &link).expect("link");
    let out = ratedesk(&db, &["backup", link.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("symbolic link"));
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "precious");
    assert_eq!(mode(&victim), 0o644);
    let null_mode = mode(Path::new("/dev/null"));
    let out = ratedesk(&db, &["backup", "/dev/null"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a regular file"));
    assert_eq!(mode(Path::new("/dev/null")), null_mode);
    // A new backup is the owner's alone from the start; writing it again replaces it.
    let file = dir.path().join("mine.backup");
    ok(&ratedesk(&db, &["backup", file.to_str().expect("path")]));
    assert_eq!(mode(&file), 0o600);
    ok(&ratedesk(&db, &["backup", file.to_str().expect("path")]));
    assert!(
        std::fs::read_to_string(&file)
            .expect("read")
            .starts_with("ratedesk-backup")
    );
}

#[test]
fn a_database_folder_others_can_write_to_or_a_planted_backups_link_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let out = ratedesk(&db, &["log"]);
    assert_eq!(out.status.code(), Some(1));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("others can write to it"), "{message}");
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    ok(&ratedesk(&db, &["log"]));
    // Backups sent elsewhere by a link.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).expect("mkdir");
    std::fs::rename(db.join("backups"), dir.path().join("old-backups")).expect("move");
    std::os::unix::fs::symlink(&elsewhere, db.join("backups")).expect("link");
    let out = ratedesk(&db, &["result", "2025-hki-open", "1", "1", "0-1"]);
    assert_eq!(out.status.code(), Some(1));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("backups") && message.contains("symbolic link"),
        "{message}"
    );
    assert_eq!(std::fs::read_dir(&elsewhere).expect("dir").count(), 0);
}

#[test]
fn a_database_folder_of_another_user_is_refused_even_to_root() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    // Only root can give a folder away; elsewhere this case cannot be set up.
    let given = Command::new("chown")
        .args(["-R", "65534"])
        .arg(&db)
        .status()
        .is_ok_and(|s| s.success());
    if !given
        || std::fs::metadata(&db)
            .map(|m| {
                use std::os::unix::fs::MetadataExt;
                m.uid()
            })
            .ok()
            != Some(65534)
    {
        eprintln!("skipped: cannot give a folder to another user here");
        return;
    }
    let out = ratedesk(&db, &["log"]);
    assert_eq!(out.status.code(), Some(1));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("belongs to") && message.contains("not to you"),
        "{message}"
    );
}

#[test]
fn a_planted_manifest_link_does_not_make_us_overwrite_its_target() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "precious").expect("write");
    std::os::unix::fs::symlink(&victim, db.join("ratedesk.manifest.tmp")).expect("link");
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "1", "0-1"],
    ));
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "precious");
}

fn has_raw_controls(bytes: &[u8]) -> bool {
    bytes.contains(&0x1b) || bytes.windows(2).any(|w| w == [0xc2, 0x9b])
}

#[test]
fn escape_sequences_from_imported_data_never_reach_the_terminal_raw() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(demo()).expect("demo")).expect("json");
    doc["players"][0]["name"] = Value::from("Evil\u{1b}]0;owned\u{7}\u{1b}[2J, Aino");
    doc["players"][1]["name"] = Value::from("C1\u{9b}31m, Eero");
    doc["events"][0]["name"] = Value::from("Open\u{1b}[31m red");
    let file = dir.path().join("evil.json");
    std::fs::write(&file, doc.to_string()).expect("write");
    // At the door: refused, and the refusal names the field without its escape sequences.
    let out = ratedesk(
        &dir.path().join("refused"),
        &["import", "json", file.to_str().expect("path")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has a control character"));
    assert!(!has_raw_controls(&out.stdout) && !has_raw_controls(&out.stderr));
    // Names written before the door checked them (a backup of an older database): every
    // output still writes their controls as text.
    let clean = demo_db(&dir.path().join("clean"));
    let backup = dir.path().join("clean.backup");
    ok(&ratedesk(
        &clean,
        &["backup", backup.to_str().expect("path")],
    ));
    let text = std::fs::read_to_string(&backup).expect("backup");
    let json = |v: &str| serde_json::to_string(v).expect("json");
    let text = text
        .replacen(
            &json("Järvinen, Aino"),
            &json("Evil\u{1b}]0;owned\u{7}\u{1b}[2J, Aino"),
            1,
        )
        .replacen(&json("Mäkelä, Eero"), &json("C1\u{9b}31m, Eero"), 1);
    assert!(
        text.contains("C1\u{9b}31m") && text.contains("Evil\\u001b"),
        "the backup carries the names"
    );
    let evil = dir.path().join("evil.backup");
    std::fs::write(&evil, text).expect("write");
    let db = dir.path().join("db");
    let out = ratedesk(&db, &["restore", evil.to_str().expect("path")]);
    assert!(!has_raw_controls(&out.stdout) && !has_raw_controls(&out.stderr));
    ok(&out);
    let id = doc["players"][0]["id"].as_str().expect("id").to_string();
    for command in [
        &["export", "list", "--format", "text"][..],
        &["export", "list"],
        &["export", "report", "2025-hki-open"],
        &["export", "history", &id],
        &["export", "trf", "2025-hki-open"],
        &["export", "events"],
        &["result", "2025-hki-open", "1", "1", "0-1"],
        &["log"],
        &["result", "no\u{1b}[2Jsuch", "1", "1", "0-1"],
    ] {
        let out = ratedesk(&db, command);
        assert!(
            !has_raw_controls(&out.stdout) && !has_raw_controls(&out.stderr),
            "{command:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // JSON stays JSON: the escapes are JSON's own.
    let events: Value =
        serde_json::from_str(&ok(&ratedesk(&db, &["export", "events"]))).expect("valid JSON");
    assert!(
        events["players"][1]["name"]
            .as_str()
            .expect("name")
            .starts_with("C1")
    );
}

#[test]
fn the_audit_user_is_the_os_user_with_a_claimed_user_beside_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .arg("--db")
        .arg(&db)
        .args(["result", "2025-hki-open", "1", "1", "0-1"])
        .env("USER", "president")
        .env("SSH_CONNECTION", "203.0.113.9 50000 10.0.0.1 22")
        .output()
        .expect("run");
    ok(&out);
    let log = ok(&ratedesk(&db, &["log"]));
    let last = log.lines().rfind(|l| l.starts_with('#')).expect("entry");
    let me = ratedesk::store::lock::os_user();
    assert!(
        last.contains(&format!("{me} (USER=president, ssh from 203.0.113.9)")),
        "{last}"
    );
}
