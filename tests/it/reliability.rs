//! Losing nothing, through the real binary: a disk that fills up during a batch of results (on a
//! small tmpfs), restores killed part way, a database whose data files are gone, a database
//! held by another process (ours or sled's own lock), and automatic backups kept by age.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::{ok, ratedesk, results_command};

fn demo_db(dir: &Path) -> PathBuf {
    let db = dir.join("db");
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/autumn-2025.json");
    ok(&ratedesk(
        &db,
        &["import", "json", demo.to_str().expect("path")],
    ));
    db
}

/// Result lines cycling over the demo's open's boards.
fn result_lines(db: &Path, count: usize) -> Vec<String> {
    let doc: Value = serde_json::from_str(&ok(&ratedesk(db, &["export", "events"]))).expect("json");
    let event = &doc["events"][0];
    let games = event["games"].as_array().expect("games");
    let codes = ["1-0", "0-1", "1/2-1/2"];
    (0..count)
        .map(|k| {
            let g = &games[k % games.len()];
            format!(
                "{} {} {} {}",
                event["id"].as_str().expect("id"),
                g["round"],
                g["board"],
                codes[k % 3]
            )
        })
        .collect()
}

/// The audit log's sequence numbers, in the order shown.
fn sequence(db: &Path) -> Vec<u64> {
    ok(&ratedesk(db, &["log"]))
        .lines()
        .filter_map(|l| l.strip_prefix('#')?.split_whitespace().next()?.parse().ok())
        .collect()
}

/// A tmpfs mounted for one test, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Self> {
        std::fs::create_dir_all(at).ok()?;
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .stderr(Stdio::null())
            .status()
            .ok()?;
        status.success().then(|| Self(at.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Fills a file system up to all but `leave` bytes.
fn fill(filler: &Path, leave: u64) {
    let mut file = std::fs::File::create(filler).expect("filler");
    let chunk = vec![0u8; 4096];
    while file.write_all(&chunk).is_ok() {}
    let _ = file.flush();
    let len = std::fs::metadata(filler).expect("filler").len();
    file.set_len(len.saturating_sub(leave)).expect("truncate");
}

#[test]
fn a_disk_filling_up_during_a_batch_loses_nothing_and_reuses_no_audit_number() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(mnt) = Tmpfs::mount(&dir.path().join("mnt"), "3m") else {
        eprintln!("no tmpfs without root: the disk fills up by the debug build's switch");
        return disk_full_by_the_switch(dir.path());
    };
    let db = demo_db(&mnt.0);
    let lines = result_lines(&db, 800);
    let filler = mnt.0.join("filler");
    fill(&filler, 160 * 1024);
    let mut child = results_command(&db).spawn().expect("results");
    let mut stdin = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || {
        for line in lines {
            if writeln!(stdin, "{line}").is_err() {
                break;
            }
        }
    });
    let out = child.wait_with_output().expect("results");
    let _ = feeder.join();
    let answers = String::from_utf8_lossy(&out.stdout).into_owned();
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{answers}\n{message}");
    assert!(message.contains("no space left"), "{message}");
    let acknowledged: Vec<&str> = answers.lines().filter(|l| l.starts_with("ok ")).collect();
    assert!(acknowledged.len() > 10, "{answers}");
    // On the full disk the database is said to be out of space, not damaged.
    let full = ratedesk(&db, &["check"]);
    let message = String::from_utf8_lossy(&full.stderr);
    assert!(
        full.status.success() || message.contains("no space left"),
        "{message}"
    );
    assert!(!message.contains("cannot be read"), "{message}");
    std::fs::remove_file(&filler).expect("free the space");
    ok(&ratedesk(&db, &["check"]));
    // Every acknowledged result is there, in an audit entry of its own number.
    let seqs = sequence(&db);
    let unique: std::collections::BTreeSet<u64> = seqs.iter().copied().collect();
    assert_eq!(unique.len(), seqs.len(), "an audit number was used twice");
    for ack in &acknowledged {
        let seq: u64 = ack
            .split_whitespace()
            .nth(1)
            .expect("seq")
            .parse()
            .expect("n");
        assert!(unique.contains(&seq), "{ack}");
    }
    // The next edit takes the next number and the ratings stay right.
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "1", "0-1"],
    ));
    let after = sequence(&db);
    assert_eq!(after.last(), Some(&(seqs.iter().max().expect("some") + 1)));
    ok(&ratedesk(&db, &["check"]));
}

/// Where no tmpfs can be mounted: the debug build's switch makes every flush after the 20th
/// fail as a full disk would, after the edit's commit point.
fn disk_full_by_the_switch(dir: &Path) {
    let db = demo_db(dir);
    let lines = result_lines(&db, 100).join("\n") + "\n";
    let mut child = results_command(&db)
        .env("RATEDESK_TEST_DISK_FULL_AFTER", "20")
        .spawn()
        .expect("results");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(lines.as_bytes())
        .expect("send");
    let out = child.wait_with_output().expect("results");
    let answers = String::from_utf8_lossy(&out.stdout).into_owned();
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{answers}");
    assert!(
        message.contains("is stored, but finishing it failed: no space left"),
        "{message}"
    );
    let acknowledged = answers.lines().filter(|l| l.starts_with("ok ")).count();
    ok(&ratedesk(&db, &["check"]));
    let seqs = sequence(&db);
    let unique: std::collections::BTreeSet<u64> = seqs.iter().copied().collect();
    assert_eq!(unique.len(), seqs.len(), "an audit number was used twice");
    // The import, every acknowledged result, and the one stored when the disk was full if sled
    // got it to disk after all.
    assert!(
        (1 + acknowledged..=2 + acknowledged).contains(&seqs.len()),
        "{} entries for {acknowledged} acknowledged: {answers}",
        seqs.len()
    );
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "1", "0-1"],
    ));
    ok(&ratedesk(&db, &["check"]));
}

#[test]
fn a_failure_after_the_commit_point_stops_the_batch_and_the_database_reopens_consistent() {
    let dir = tempfile::tempdir().expect("tempdir");
    disk_full_by_the_switch(dir.path());
}

/// The demo database with two results changed, and a backup of it with other results.
fn two_versions(dir: &Path) -> (PathBuf, PathBuf, String, String) {
    let db = demo_db(dir);
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "1", "0-1"],
    ));
    let other = dir.join("other");
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/autumn-2025.json");
    ok(&ratedesk(
        &other,
        &["import", "json", demo.to_str().expect("path")],
    ));
    ok(&ratedesk(
        &other,
        &["result", "2025-hki-open", "1", "1", "1/2-1/2"],
    ));
    let file = dir.join("other.backup");
    ok(&ratedesk(&other, &["backup", file.to_str().expect("path")]));
    let old = ok(&ratedesk(&db, &["export", "ratings"]));
    let new = ok(&ratedesk(&other, &["export", "ratings"]));
    assert_ne!(old, new);
    (db, file, old, new)
}

#[test]
fn a_restore_killed_at_any_moment_leaves_the_old_database_the_new_one_or_a_clear_refusal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (db, file, old, new) = two_versions(dir.path());
    let mut seen = std::collections::BTreeSet::new();
    for delay_ms in [0u64, 5, 20, 60] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
            .arg("--db")
            .arg(&db)
            .args(["restore", "--force"])
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("restore");
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        child.wait().expect("reap");
        let now = ratedesk(&db, &["export", "ratings"]);
        let text = String::from_utf8_lossy(&now.stdout).into_owned();
        if now.status.success() {
            assert!(
                text == old || text == new,
                "after {delay_ms} ms: a third state"
            );
            seen.insert(if text == old { "old" } else { "new" });
        } else {
            let message = String::from_utf8_lossy(&now.stderr);
            assert!(
                message.contains("interrupted") && message.contains("restore --force"),
                "after {delay_ms} ms: {message}"
            );
            seen.insert("refused");
        }
        // Whatever state it was left in, restoring again brings the backup back.
        ok(&ratedesk(
            &db,
            &["restore", "--force", file.to_str().expect("path")],
        ));
        assert_eq!(ok(&ratedesk(&db, &["export", "ratings"])), new);
        // Back to the old results for the next try.
        ok(&ratedesk(
            &db,
            &["result", "2025-hki-open", "1", "1", "0-1"],
        ));
    }
    ok(&ratedesk(&db, &["check"]));
    assert!(!seen.is_empty());
}

/// The marker a restore writes before it swaps the databases, as a killed one leaves it.
fn plant_restore_marker(db: &Path) {
    std::fs::write(
        db.join("ratedesk.restoring"),
        "file=other.backup\nstarted=2026-01-01 10:00:00\n",
    )
    .expect("marker");
}

#[test]
fn an_interrupted_swap_is_refused_at_the_next_open_and_a_new_restore_completes_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (db, file, _, new) = two_versions(dir.path());
    // What a restore killed during its swap leaves: the marker, half of each database.
    plant_restore_marker(&db);
    std::fs::remove_file(db.join("db")).expect("half swapped");
    for command in [&["export", "ratings"][..], &["log"], &["check"]] {
        let out = ratedesk(&db, command);
        assert_eq!(out.status.code(), Some(1));
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(
            message.contains("restore into")
                && message.contains("was interrupted")
                && message.contains("other.backup")
                && message.contains("restore --force"),
            "{message}"
        );
    }
    let refused = ratedesk(&db, &["restore", file.to_str().expect("path")]);
    assert_eq!(refused.status.code(), Some(2));
    ok(&ratedesk(
        &db,
        &["restore", "--force", file.to_str().expect("path")],
    ));
    assert_eq!(ok(&ratedesk(&db, &["export", "ratings"])), new);
    assert!(!db.join("ratedesk.restoring").exists());
}

#[test]
fn a_restore_over_data_is_audited_and_keeps_a_backup_of_what_it_replaced() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (db, file, old, _) = two_versions(dir.path());
    let replaced = ok(&ratedesk(
        &db,
        &["restore", "--force", file.to_str().expect("path")],
    ));
    assert!(replaced.contains("replaced"), "{replaced}");
    let log = ok(&ratedesk(&db, &["log"]));
    let last = log.lines().rfind(|l| l.starts_with('#')).expect("an entry");
    assert!(
        last.contains("restore") && last.contains("other.backup") && last.contains("players"),
        "{log}"
    );
    let kept: Vec<PathBuf> = std::fs::read_dir(db.join("backups"))
        .expect("backups")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with("-before-restore.backup.zst"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    // The restored record has its own automatic backup too (the one before the restore is of
    // what it replaced): the newest, and it is the record as it now stands.
    let newest = std::fs::read_dir(db.join("backups"))
        .expect("backups")
        .map(|e| e.expect("entry").path())
        .max()
        .expect("a backup");
    assert!(!newest.to_string_lossy().contains("-before-"), "{newest:?}");
    let now = dir.path().join("now.backup");
    ok(&ratedesk(&db, &["backup", now.to_str().expect("path")]));
    let automatic = zstd::decode_all(&std::fs::read(&newest).expect("read")[..]).expect("zstd");
    assert!(automatic == std::fs::read(&now).expect("now"), "{newest:?}");
    // That backup brings back what was replaced.
    let back = dir.path().join("back");
    ok(&ratedesk(
        &back,
        &["restore", kept[0].to_str().expect("path")],
    ));
    assert_eq!(ok(&ratedesk(&back, &["export", "ratings"])), old);
}

#[test]
fn a_database_without_its_data_files_is_damage_not_an_empty_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let manifest = std::fs::read(db.join("ratedesk.manifest")).expect("manifest");
    std::fs::remove_file(db.join("db")).expect("remove the log");
    for entry in std::fs::read_dir(&db).expect("dir") {
        let path = entry.expect("entry").path();
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("snap."))
        {
            std::fs::remove_file(path).expect("remove a snapshot");
        }
    }
    for command in [&["export", "ratings"][..], &["import", "json", "x.json"]] {
        let out = ratedesk(&db, command);
        assert_eq!(out.status.code(), Some(1));
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(
            message.contains("cannot be read") && message.contains("`db` is missing"),
            "{message}"
        );
    }
    assert_eq!(
        std::fs::read(db.join("ratedesk.manifest")).expect("manifest"),
        manifest,
        "the manifest is left as it was"
    );
}

#[test]
fn a_read_only_command_on_a_mistyped_folder_creates_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let typo = dir.path().join("dbb");
    for command in [&["export", "events"][..], &["log"], &["check"]] {
        let out = ratedesk(&typo, command);
        assert_eq!(out.status.code(), Some(1));
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(message.contains("there is no database at"), "{message}");
    }
    assert!(!typo.exists());
}

#[test]
fn a_database_held_by_sled_elsewhere_is_in_use_and_never_set_aside() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (db, file, old, _) = two_versions(dir.path());
    let held = sled::open(&db).expect("another program opens it");
    for command in [
        &["export", "ratings"][..],
        &["restore", "--force", file.to_str().expect("path")],
    ] {
        let out = ratedesk(&db, command);
        assert_eq!(out.status.code(), Some(1));
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(
            message.contains("in use by") && !message.contains("cannot be read"),
            "{message}"
        );
    }
    drop(held);
    let names: Vec<String> = std::fs::read_dir(&db)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.starts_with("damaged-")),
        "{names:?}"
    );
    assert_eq!(ok(&ratedesk(&db, &["export", "ratings"])), old);
}

#[test]
fn a_running_writer_keeps_its_lock_and_a_forced_restore_cannot_move_its_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (db, file, _, _) = two_versions(dir.path());
    // A stale-looking lock file from a dead process changes nothing: the lock is the flock.
    std::fs::write(
        db.join("ratedesk.lock"),
        "user=x\npid=1\nhost=elsewhere\nsince=then\n",
    )
    .expect("stale particulars");
    let mut child = results_command(&db)
        .stderr(Stdio::null())
        .spawn()
        .expect("writer");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut acks = BufReader::new(child.stdout.take().expect("stdout"));
    writeln!(stdin, "2025-hki-open 1 2 0-1").expect("send");
    let mut line = String::new();
    acks.read_line(&mut line).expect("ack");
    assert!(line.starts_with("ok "), "{line}");
    for command in [
        &["check"][..],
        &["restore", "--force", file.to_str().expect("path")],
    ] {
        let out = ratedesk(&db, command);
        assert_eq!(out.status.code(), Some(1));
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(
            message.contains("in use by") && message.contains(&format!("pid {}", child.id())),
            "{message}"
        );
    }
    // The writer's next edit lands in the database everyone opens.
    writeln!(stdin, "2025-hki-open 1 3 1-0").expect("send");
    line.clear();
    acks.read_line(&mut line).expect("ack");
    assert!(line.starts_with("ok "), "{line}");
    drop(stdin);
    child.wait().expect("writer ends");
    let doc: Value =
        serde_json::from_str(&ok(&ratedesk(&db, &["export", "events"]))).expect("json");
    let games = doc["events"][0]["games"].as_array().expect("games");
    let board = |b: u64| {
        games
            .iter()
            .find(|g| g["round"] == 1 && g["board"] == b)
            .map(|g| g["result"].clone())
    };
    assert_eq!(board(2), Some(Value::from("0-1")));
    assert_eq!(board(3), Some(Value::from("1-0")));
}

#[test]
fn many_quick_edits_keep_older_backups_and_the_last_one_before_an_import() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let backups = db.join("backups");
    let text = std::fs::read_dir(&backups)
        .expect("backups")
        .map(|e| e.expect("entry").path())
        .max()
        .map(|p| std::fs::read(p).expect("backup"))
        .expect("a backup");
    let now = chrono::Local::now().naive_local();
    let old = |days: i64, suffix: &str| {
        let name = format!(
            "ratedesk-{}{suffix}.backup",
            (now - chrono::TimeDelta::days(days)).format("%Y%m%dT%H%M%S%.3f")
        );
        std::fs::write(backups.join(&name), &text).expect("plant");
        name
    };
    let yesterday = old(1, "");
    let last_month = old(20, "");
    let before_import = old(200, "-before-import");
    for k in 0..12 {
        let code = ["1-0", "0-1"][k % 2];
        ok(&ratedesk(&db, &["result", "2025-hki-open", "1", "1", code]));
    }
    for name in [&yesterday, &last_month, &before_import] {
        assert!(backups.join(name).exists(), "{name} was rotated away");
    }
    // An import takes a backup first, and that one is kept.
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/autumn-2025.json");
    let again = dir.path().join("again.json");
    let doc = std::fs::read_to_string(&demo)
        .expect("demo")
        .replace("2025-hki-open", "2025-hki-open-b")
        .replace("2025-", "2024-");
    std::fs::write(&again, doc).expect("write");
    ok(&ratedesk(
        &db,
        &["import", "json", again.to_str().expect("path")],
    ));
    let taken: Vec<String> = std::fs::read_dir(&backups)
        .expect("backups")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with("-before-import.backup.zst") && *n != before_import)
        .collect();
    assert_eq!(taken.len(), 1, "{taken:?}");
}

#[test]
fn damage_in_the_middle_of_the_log_is_refused_then_set_aside_by_a_forced_restore() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let lines = result_lines(&db, 400);
    let mut child = results_command(&db)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("results");
    let mut stdin = child.stdin.take().expect("stdin");
    for line in lines {
        writeln!(stdin, "{line}").expect("send");
    }
    drop(stdin);
    assert!(child.wait().expect("results").success());
    let expected = ok(&ratedesk(&db, &["export", "ratings"]));
    let backup = std::fs::read_dir(db.join("backups"))
        .expect("backups")
        .map(|e| e.expect("entry").path())
        .max()
        .expect("a backup");
    // Bit rot: bytes change, the file's size and time do not. Where the damage lands in data
    // sled no longer reads it is harmless; anywhere else it is refused as damage, never a
    // "database error" or a wrong answer, and a forced restore sets it aside.
    let pristine = dir.path().join("pristine");
    copy_dir(&db, &pristine);
    let mut refused = 0;
    // Every twentieth of the log: where live records lie depends on the layout and on what
    // sled has rewritten, so the damage is tried all along it.
    for (k, twentieths) in (1usize..20).enumerate() {
        let db = dir.path().join(format!("damaged{k}"));
        copy_dir(&pristine, &db);
        let log = db.join("db");
        let modified = std::fs::metadata(&log)
            .expect("log")
            .modified()
            .expect("time");
        let mut bytes = std::fs::read(&log).expect("log");
        let at = bytes.len() * twentieths / 20;
        for b in &mut bytes[at..at + 2000] {
            *b = b.wrapping_mul(31).wrapping_add(7);
        }
        std::fs::write(&log, &bytes).expect("damage");
        std::fs::File::options()
            .write(true)
            .open(&log)
            .and_then(|f| f.set_modified(modified))
            .expect("time kept");
        let out = ratedesk(&db, &["export", "ratings"]);
        if out.status.success() {
            assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
            continue;
        }
        refused += 1;
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(
            message.contains("cannot be read") && message.contains("damage"),
            "{message}"
        );
        assert_eq!(std::fs::read(&log).expect("log"), bytes, "left as it was");
        let restored = ratedesk(&db, &["restore", "--force", backup.to_str().expect("path")]);
        ok(&restored);
        assert!(String::from_utf8_lossy(&restored.stderr).contains("damaged database was moved"));
        assert_eq!(ok(&ratedesk(&db, &["export", "ratings"])), expected);
    }
    assert!(refused > 0, "no damage was found anywhere");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Waits for a child up to `limit`; kills it and fails the test when it is still running.
fn finished_within(
    mut child: std::process::Child,
    limit: std::time::Duration,
) -> std::process::Output {
    let start = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!(
                "still running after {limit:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}

/// An import the full disk stopped: exit 1, the message says the edit is not stored, and
/// "imported" is never printed.
fn refused_for_space(out: &std::process::Output) {
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{message}");
    assert!(
        message.contains("no space left") && message.contains("which is not stored"),
        "{message}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("imported"));
}

/// Another federation's file (the demo's with other ids and another year): new players and
/// new events, written in `dir`.
fn other_federation(dir: &Path) -> PathBuf {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/autumn-2025.json");
    let other = std::fs::read_to_string(&demo)
        .expect("demo")
        .replace("\"FIN", "\"FIX")
        .replace("\"2025-", "\"2024-");
    let file = dir.join("other.json");
    std::fs::write(&file, other).expect("write");
    file
}

#[test]
fn an_import_torn_by_a_full_disk_ends_at_once_and_the_database_is_refused_not_worked_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let file = other_federation(dir.path());
    // The commit writes the players and events, then the disk is full: no audit entry, no
    // counters (as sled leaves a transaction whose large audit entry could not be written).
    let child = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .arg("--db")
        .arg(&db)
        .args(["import", "json", file.to_str().expect("path")])
        .env("RATEDESK_TEST_TORN_COMMIT_AFTER", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("import");
    let out = finished_within(child, std::time::Duration::from_secs(60));
    refused_for_space(&out);
    // Every command refuses it, saying what happened and what to do; none works on top.
    for args in [
        &["check"][..],
        &["result", "2025-hki-open", "1", "1", "0-1"],
        &["export", "events"],
    ] {
        let out = ratedesk(&db, args);
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} worked on a torn edit");
        assert!(
            message.contains("an edit was written only in part")
                && message.contains("42 players where its last complete edit left 22")
                && message.contains("with no audit entry")
                && message.contains("restore --force"),
            "{args:?}: {message}"
        );
    }
    // The way out it names: the backup taken before the import.
    let backup = std::fs::read_dir(db.join("backups"))
        .expect("backups")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("-before-import.backup.zst"))
        .expect("a backup before the import");
    ok(&ratedesk(
        &db,
        &["restore", "--force", backup.to_str().expect("path")],
    ));
    ok(&ratedesk(&db, &["check"]));
}

/// An import too large for one transaction is written in steps after an undo log
/// (`RATEDESK_TEST_STAGE_ABOVE` makes the demo's file one): a full disk half way through its
/// records leaves nothing of it once the database opens again, and the same import then goes
/// through whole.
#[test]
fn a_large_import_cut_short_by_a_full_disk_is_undone_as_the_database_opens() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let file = other_federation(dir.path());
    let before = ok(&ratedesk(&db, &["export", "events"]));
    let import = |torn: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ratedesk"));
        command
            .arg("--db")
            .arg(&db)
            .args(["import", "json", file.to_str().expect("path")])
            .env("RATEDESK_TEST_STAGE_ABOVE", "10");
        if torn {
            command.env("RATEDESK_TEST_TORN_COMMIT_AFTER", "0");
        }
        command.output().expect("import")
    };
    let out = import(true);
    refused_for_space(&out);
    // The next command finds the undo log, plays it back and says so; the records are as
    // they were, the audit log has no entry of the import, and `check` agrees.
    let out = ratedesk(&db, &["check"]);
    let warned = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{warned}");
    assert!(
        warned.contains("an edit that did not finish")
            && warned.contains("was undone as the database opened")
            && warned.contains("other.json"),
        "{warned}"
    );
    assert_eq!(ok(&ratedesk(&db, &["export", "events"])), before);
    assert!(!ok(&ratedesk(&db, &["log"])).contains("other.json"));
    // Said once: the log is gone with the edit.
    let out = ratedesk(&db, &["check"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("did not finish"));
    // Written in steps to the end, the import is whole.
    let out = import(false);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    ok(&ratedesk(&db, &["check"]));
    let after = ok(&ratedesk(&db, &["export", "events"]));
    assert!(after.contains("FIX") && after.len() > before.len());
    assert!(ok(&ratedesk(&db, &["log"])).contains("other.json"));
}

#[test]
fn a_disk_that_stops_answering_ends_the_batch_by_the_deadline_with_the_lock_let_go() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let lines = result_lines(&db, 40).join("\n") + "\n";
    let mut child = results_command(&db)
        .env("RATEDESK_TEST_FLUSH_HANGS_AFTER", "6")
        .env("RATEDESK_TEST_FLUSH_DEADLINE_MS", "1500")
        .spawn()
        .expect("results");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(lines.as_bytes())
        .expect("send");
    let out = finished_within(child, std::time::Duration::from_secs(60));
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{message}");
    assert!(
        message.contains("did not finish writing in 2 s"),
        "{message}"
    );
    let acknowledged = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("ok "))
        .count();
    // The lock is free, every acknowledged result is there, and the database is whole.
    ok(&ratedesk(&db, &["check"]));
    let entries = sequence(&db).len();
    assert!(
        (1 + acknowledged..=2 + acknowledged).contains(&entries),
        "{entries} entries for {acknowledged} acknowledged"
    );
}

#[test]
fn a_signal_ends_a_batch_stuck_on_its_disk_and_a_stopped_batch_says_so_in_its_status() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let signal = |child: &std::process::Child| {
        let sent = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(sent.success());
    };
    let lines = result_lines(&db, 40);
    // Stuck in a flush that never returns (the deadline far off): SIGTERM ends it.
    let mut child = results_command(&db)
        .env("RATEDESK_TEST_FLUSH_HANGS_AFTER", "6")
        .spawn()
        .expect("results");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all((lines.join("\n") + "\n").as_bytes())
        .expect("send");
    // Six edits answered, the seventh's flush hangs: a moment for it to be stuck in it.
    let mut answers = BufReader::new(child.stdout.take().expect("stdout"));
    for _ in 0..6 {
        let mut line = String::new();
        answers.read_line(&mut line).expect("an answer");
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    signal(&child);
    let out = finished_within(child, std::time::Duration::from_secs(20));
    drop(stdin);
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{message}");
    assert!(message.contains("stopped as a kill would"), "{message}");
    ok(&ratedesk(&db, &["check"]));
    // Waiting for its next line: it stops between two lines, and says so with a failure.
    let mut child = results_command(&db).spawn().expect("results");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all((lines[0].clone() + "\n").as_bytes())
        .expect("send");
    let mut answers = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    answers.read_line(&mut first).expect("an answer");
    assert!(
        first.starts_with("ok ") || first.starts_with("unchanged "),
        "{first}"
    );
    signal(&child);
    let out = finished_within(child, std::time::Duration::from_secs(20));
    drop(stdin);
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{message}");
    assert!(
        message.contains("stopped by a signal after line 1"),
        "{message}"
    );
}

#[test]
fn a_history_rewritten_after_a_list_was_published_is_caught_by_whoever_holds_the_list() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "1", "0-1"],
    ));
    // The head, as `log --head` prints it and every published form carries it.
    let head = ok(&ratedesk(&db, &["log", "--head"]));
    assert!(head.starts_with("audit head #2 "), "{head}");
    let mut lists = Vec::new();
    for (name, args) in [
        ("list.csv", &["export", "list"][..]),
        ("list.txt", &["export", "list", "--format", "text"]),
        ("list.html", &["export", "list", "--format", "html"]),
        (
            "report.txt",
            &["export", "report", "2025-hki-open", "--format", "text"],
        ),
    ] {
        let text = ok(&ratedesk(&db, args));
        assert!(text.contains(head.trim()), "{name}: {text}");
        let file = dir.path().join(name);
        std::fs::write(&file, text).expect("write");
        lists.push(file);
    }
    // The history as it stands still leads there, after more edits too.
    ok(&ratedesk(
        &db,
        &["result", "2025-hki-open", "1", "2", "1-0"],
    ));
    for list in &lists {
        let out = ok(&ratedesk(
            &db,
            &["check", "--against", list.to_str().expect("path")],
        ));
        assert!(out.contains("still leads through the head"), "{out}");
    }
    // A backup whose entry #2 says someone else made it, restored elsewhere: its chain is whole
    // (nothing after #2 was written before the edit), `check` cannot tell — the list can.
    let backup = dir.path().join("backup.txt");
    ok(&ratedesk(&db, &["backup", backup.to_str().expect("path")]));
    let text = std::fs::read_to_string(&backup).expect("backup");
    let forged: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with("audit {\"seq\":2,") {
                l.replacen("\"user\":\"", "\"user\":\"someone-else-", 1)
            } else {
                l.to_string()
            }
        })
        .collect();
    assert_ne!(forged.join("\n"), text.trim_end(), "the entry was edited");
    let forged_file = dir.path().join("forged.txt");
    std::fs::write(&forged_file, forged.join("\n") + "\n").expect("write");
    let elsewhere = dir.path().join("elsewhere");
    let restored = ratedesk(
        &elsewhere,
        &["restore", forged_file.to_str().expect("path")],
    );
    ok(&restored);
    for list in &lists {
        let out = ratedesk(
            &elsewhere,
            &["check", "--against", list.to_str().expect("path")],
        );
        assert_eq!(out.status.code(), Some(1), "{list:?}");
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            said.contains("entry #2 is not the entry the list was published after"),
            "{said}"
        );
    }
    // The restore into an empty folder is itself in the log.
    assert!(ok(&ratedesk(&elsewhere, &["log"])).contains("into an empty database"));
    // A file without a head is not a list to check against.
    let out = ratedesk(&db, &["check", "--against", backup.to_str().expect("path")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("carries no audit head"));
}

#[test]
fn a_record_changed_with_no_audit_entry_is_found_by_check() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    ok(&ratedesk(&db, &["check"]));
    // A result whose commit wrote the event and then failed: the counts are as they were, so
    // the database opens; the replay of the audit log says what is not its doing.
    let out = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .arg("--db")
        .arg(&db)
        .args(["result", "2025-hki-open", "1", "1", "0-1"])
        .env("RATEDESK_TEST_TORN_COMMIT_AFTER", "0")
        .output()
        .expect("result");
    assert_eq!(out.status.code(), Some(1));
    let out = ratedesk(&db, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("records changed with no audit entry")
            && said.contains("event 2025-hki-open"),
        "{said}"
    );
}

#[test]
fn temporary_files_a_killed_write_left_are_removed_when_the_database_opens() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let leftovers = [
        db.join("backups")
            .join("ratedesk-20261125T120000.000.backup.tmp"),
        db.join("ratedesk.front.tmp"),
    ];
    for file in &leftovers {
        std::fs::write(file, vec![b'x'; 3 << 20]).expect("a partial file");
    }
    ok(&ratedesk(&db, &["check"]));
    for file in &leftovers {
        assert!(!file.exists(), "{} is still there", file.display());
    }
}

#[test]
fn a_swap_interrupted_after_the_manifest_moved_is_got_out_of_by_the_command_it_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (db, file, _, new) = two_versions(dir.path());
    // The old database's files moved aside, the new one's not yet in: no manifest to read
    // the rulebook from, only the marker.
    plant_restore_marker(&db);
    let aside = db.join(".restore-replaced");
    std::fs::create_dir(&aside).expect("mkdir");
    for name in ["ratedesk.manifest", "db"] {
        std::fs::rename(db.join(name), aside.join(name)).expect("moved aside");
    }
    let out = ratedesk(&db, &["check"]);
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("restore --force"), "{message}");
    // The command the message names gets out.
    ok(&ratedesk(
        &db,
        &["restore", "--force", file.to_str().expect("path")],
    ));
    assert_eq!(ok(&ratedesk(&db, &["export", "ratings"])), new);
    ok(&ratedesk(&db, &["check"]));
}

/// A full disk at every moment of a forced restore (`RATEDESK_TEST_DISK_FULL_AFTER`: every
/// flush after the first N fails): before the swap it is refused with "try again"; after it the
/// message says the restore is complete and is not to be made again — never both. Either way,
/// with space back, the database opens and `check` passes.
#[test]
fn a_full_disk_after_a_restore_completed_never_says_to_restore_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let backup = dir.path().join("all.backup");
    ok(&ratedesk(&db, &["backup", backup.to_str().expect("path")]));
    let mut completed = 0;
    for n in 0..12 {
        let out = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
            .arg("--db")
            .arg(&db)
            .args(["restore", "--force", backup.to_str().expect("path")])
            .env("RATEDESK_TEST_DISK_FULL_AFTER", n.to_string())
            .output()
            .expect("restore");
        let (said, told) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        if said.contains("restored") {
            assert!(
                !told.contains("try again"),
                "after {n} flushes: {said}{told}"
            );
            if !out.status.success() {
                assert!(
                    told.contains("is complete") && told.contains("do not restore it again"),
                    "after {n} flushes: {told}"
                );
                completed += 1;
            }
        } else {
            assert!(!out.status.success(), "after {n} flushes: {told}");
            assert!(told.contains("no space left"), "after {n} flushes: {told}");
        }
        ok(&ratedesk(&db, &["check"]));
    }
    assert!(completed > 0, "no flush after the swap failed");
}

/// An edit acknowledged, whose finishing then failed (its results written behind the answer,
/// the disk full: the debug build's switch), is part of the record: while the database is
/// served, the long reads — run on the copy of the record kept for reading — show it.
#[test]
fn an_edit_whose_finishing_failed_shows_in_the_served_long_reads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = demo_db(dir.path());
    let lines = result_lines(&db, 40);
    /// The server, stopped also when an assertion fails.
    struct Serving(std::process::Child);
    impl Drop for Serving {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut server = Serving(
        Command::new(env!("CARGO_BIN_EXE_ratedesk"))
            .arg("--db")
            .arg(&db)
            .arg("serve")
            .env("RATEDESK_TEST_DISK_FULL_AFTER", "6")
            .stdout(Stdio::piped())
            .spawn()
            .expect("serve"),
    );
    let mut said = String::new();
    BufReader::new(server.0.stdout.take().expect("stdout"))
        .read_line(&mut said)
        .expect("the server says it serves");
    assert!(said.contains("serving"), "{said}");
    // The copy for reading made before the edits.
    ok(&ratedesk(&db, &["export", "events"]));
    // Results keyed until the finishing of one (its results written behind) fails: a later
    // one is refused, naming it.
    let action = lines.iter().find_map(|line| {
        let args: Vec<&str> = line.split_whitespace().collect();
        let out = ratedesk(&db, &["result", args[0], args[1], args[2], args[3]]);
        let message = String::from_utf8_lossy(&out.stderr).into_owned();
        let (_, named) = message.split_once('\'')?;
        let (action, rest) = named.split_once('\'')?;
        rest.starts_with(" is stored, but finishing it failed")
            .then(|| action.to_string())
    });
    let action = action.expect("a result whose finishing failed");
    // The whole log, and the events, read on the copy: the edit is there.
    let log = ok(&ratedesk(&db, &["log"]));
    let newest = log.lines().rfind(|l| l.starts_with('#')).expect("entries");
    assert!(newest.ends_with(&action), "{newest} / {action}");
    // A read between two keys answers too (it stored nothing to wait for).
    let last = ok(&ratedesk(&db, &["log", "--last", "1"]));
    assert!(
        last.lines().next().is_some_and(|l| l.ends_with(&action)),
        "{last}"
    );
    let (event, rest) = action
        .trim_start_matches("result ")
        .split_once(" round ")
        .expect("an event");
    let (round, rest) = rest.split_once(" board ").expect("a round");
    let (board, result) = rest.split_once(": ").expect("a board");
    let events: Value =
        serde_json::from_str(&ok(&ratedesk(&db, &["export", "events"]))).expect("json");
    let game = events["events"]
        .as_array()
        .and_then(|all| all.iter().find(|e| e["id"] == event))
        .and_then(|e| {
            e["games"].as_array()?.iter().find(|g| {
                g["round"].as_u64() == round.parse().ok()
                    && g["board"].as_u64() == board.parse().ok()
            })
        })
        .expect("the game")
        .clone();
    let shown = game["result"]
        .as_str()
        .unwrap_or_default()
        .replace('½', "1/2");
    assert_eq!(shown, result, "{game}");
}
