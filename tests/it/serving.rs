//! Several officers on one record: `ratedesk serve` holds the database and every other
//! `ratedesk` command on it runs there. Four processes keying results at once leave the record
//! the audit log says (`check` replays the log and compares every stored rating with a fresh
//! calculation), each edit audited and each answer what the command would say alone.

use std::io::BufRead;
use std::process::{Command, Output, Stdio};

fn ratedesk(db: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("ratedesk")
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn results_keyed_at_once_by_four_processes_leave_the_record_the_audit_log_gives() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let built = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .args(["demo", "--players", "120", "--years", "1", "--out"])
        .arg(&db)
        .output()
        .expect("demo");
    assert!(built.status.success(), "{}", said(&built));
    let mut server = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .arg("--db")
        .arg(&db)
        .arg("serve")
        .stdout(Stdio::piped())
        .spawn()
        .expect("serve");
    let mut line = String::new();
    std::io::BufReader::new(server.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the server says it serves");
    assert!(line.contains("serving"), "{line}");
    // While it serves, a command that needs the database to itself is told it is in use.
    let second = ratedesk(&db, &["serve"]);
    assert_eq!(second.status.code(), Some(1), "{}", said(&second));
    assert!(said(&second).contains("in use"), "{}", said(&second));
    // Boards to key: the played games of the events, spread over four processes.
    let events = ratedesk(&db, &["export", "events"]);
    assert!(events.status.success(), "{}", said(&events));
    let events: serde_json::Value = serde_json::from_slice(&events.stdout).expect("json");
    let boards: Vec<(String, String, String)> = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .flat_map(|e| {
            let id = e["id"].as_str().expect("id").to_string();
            e["games"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|g| !g["black"].is_null())
                .map(move |g| (id.clone(), g["round"].to_string(), g["board"].to_string()))
        })
        .step_by(7)
        .take(24)
        .collect();
    assert_eq!(boards.len(), 24);
    let before = ratedesk(&db, &["log", "--head"]);
    let first: u64 = said(&before)
        .split_whitespace()
        .nth(2)
        .and_then(|s| s.trim_start_matches('#').parse().ok())
        .expect("the head's number");
    let results = ["1-0", "0-1", "1/2-1/2"];
    let stored: usize = std::thread::scope(|s| {
        let handles: Vec<_> = boards
            .chunks(6)
            .enumerate()
            .map(|(k, mine)| {
                let db = &db;
                s.spawn(move || {
                    let mut stored = 0;
                    for (n, (event, round, board)) in mine.iter().enumerate() {
                        let result = results[(k + n) % 3];
                        let out = ratedesk(
                            db,
                            &["result", event, round, board, result, "--keep-titles"],
                        );
                        assert!(out.status.success(), "{}", said(&out));
                        if !said(&out).contains("nothing to change") {
                            stored += 1;
                        }
                    }
                    stored
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a keying process"))
            .sum()
    });
    assert!(stored > 0);
    // One entry an edit, numbered on from the head before, and every stored rating what a
    // fresh calculation gives.
    let after = ratedesk(&db, &["log", "--head"]);
    assert!(
        said(&after).contains(&format!("#{} ", first + stored as u64)),
        "{stored} stored after #{first}: {}",
        said(&after)
    );
    let check = ratedesk(&db, &["check"]);
    assert!(check.status.success(), "{}", said(&check));
    let term = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .expect("kill");
    assert!(term.success());
    let status = server.wait().expect("the server ends");
    assert!(status.success(), "{status:?}");
    assert!(!db.join("serve.sock").exists());
    let check = ratedesk(&db, &["check"]);
    assert!(check.status.success(), "{}", said(&check));
}
