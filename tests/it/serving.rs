//! Several officers on one record: `ratedesk serve` holds the database and every other
//! `ratedesk` command on it runs there. Four processes keying results at once leave every
//! result they keyed, one audit entry each under the OS user who keyed it, all of it on disk
//! when the server is killed, and the record the audit log gives (`check` replays the log and
//! compares every stored rating with a fresh calculation).

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
    let (dir, mut server) = served(120);
    let db = dir.path().join("db");
    // While it serves, a command that needs the database to itself is told it is in use.
    let second = ratedesk(&db, &["serve"]);
    assert_eq!(second.status.code(), Some(1), "{}", said(&second));
    assert!(said(&second).contains("in use"), "{}", said(&second));
    // Boards to key: the played games of the events, spread over four processes.
    let events = ratedesk(&db, &["export", "events"]);
    assert!(events.status.success(), "{}", said(&events));
    let events: serde_json::Value = serde_json::from_slice(&events.stdout).expect("json");
    // Each board keyed with a result it does not have: every key an edit.
    let other = |g: &serde_json::Value| match g["result"].as_str() {
        Some("1-0") => "0-1",
        _ => "1-0",
    };
    let boards: Vec<(String, String, String, &str)> = events["events"]
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
                .map(move |g| {
                    (
                        id.clone(),
                        g["round"].to_string(),
                        g["board"].to_string(),
                        other(g),
                    )
                })
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
    // Reads while the edits go on: each of a record as it stood, consistent in itself.
    let keying = std::sync::atomic::AtomicUsize::new(4);
    let backup = dir.path().join("mid.backup");
    let reads = std::thread::scope(|s| {
        for mine in boards.chunks(6) {
            let (db, keying) = (&db, &keying);
            s.spawn(move || {
                for (event, round, board, result) in mine {
                    let out = ratedesk(
                        db,
                        &["result", event, round, board, result, "--keep-titles"],
                    );
                    assert!(out.status.success(), "{}", said(&out));
                    assert!(!said(&out).contains("nothing to change"), "{}", said(&out));
                }
                keying.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
            });
        }
        let (db, keying, backup) = (&db, &keying, &backup);
        s.spawn(move || {
            let mut reads = 0;
            loop {
                let last = keying.load(std::sync::atomic::Ordering::SeqCst) == 0;
                for args in [
                    &["check"][..],
                    &["export", "ratings"],
                    &["backup", backup.to_str().expect("utf-8")],
                ] {
                    let out = ratedesk(db, args);
                    assert!(out.status.success(), "{args:?}: {}", said(&out));
                    reads += 1;
                }
                if last {
                    break reads;
                }
            }
        })
        .join()
        .expect("the reads")
    });
    assert!(reads >= 3, "{reads}");
    // The backup, taken while the edits went on, restores to a database that checks.
    let restored = dir.path().join("restored");
    let out = ratedesk(&restored, &["restore", backup.to_str().expect("utf-8")]);
    assert!(out.status.success(), "{}", said(&out));
    let check = ratedesk(&restored, &["check"]);
    assert!(check.status.success(), "{}", said(&check));
    // One entry an edit, numbered on from the head before, each under the user who keyed it.
    let after = ratedesk(&db, &["log", "--head"]);
    assert!(
        said(&after).contains(&format!("#{} ", first + 24)),
        "24 edits after #{first}: {}",
        said(&after)
    );
    let me = Command::new("id")
        .arg("-un")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .expect("id -un");
    let log = said(&ratedesk(&db, &["log", "--last", "24"]));
    let entries: Vec<&str> = log.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(entries.len(), 24, "{log}");
    assert!(
        entries
            .iter()
            .all(|l| l.split_whitespace().nth(3) == Some(me.as_str())),
        "{log}"
    );
    // Killed at once: every answered edit is on disk, and the record is what the log gives.
    server.0.kill().expect("SIGKILL");
    server.0.wait().expect("reaped");
    let check = ratedesk(&db, &["check"]);
    assert!(check.status.success(), "{}", said(&check));
    let events = ratedesk(&db, &["export", "events"]);
    let events: serde_json::Value = serde_json::from_slice(&events.stdout).expect("json");
    for (event, round, board, result) in &boards {
        let game = events["events"]
            .as_array()
            .and_then(|all| all.iter().find(|e| e["id"] == event.as_str()))
            .and_then(|e| {
                e["games"].as_array().and_then(|g| {
                    g.iter().find(|g| {
                        round.parse().ok() == g["round"].as_u64()
                            && board.parse().ok() == g["board"].as_u64()
                    })
                })
            })
            .expect("the game");
        let keyed = result.replace("1/2", "½");
        assert!(
            game["result"] == *result || game["result"] == keyed.as_str(),
            "{event} {round}.{board}: {game}"
        );
    }
}

/// A generated federation of `players` in a temporary folder's `db`, served by `ratedesk serve`
/// once it says so.
fn served(players: u32) -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let built = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .args([
            "demo",
            "--players",
            &players.to_string(),
            "--years",
            "1",
            "--out",
        ])
        .arg(&db)
        .output()
        .expect("demo");
    assert!(built.status.success(), "{}", said(&built));
    let mut server = Server(
        Command::new(env!("CARGO_BIN_EXE_ratedesk"))
            .arg("--db")
            .arg(&db)
            .arg("serve")
            .stdout(Stdio::piped())
            .spawn()
            .expect("serve"),
    );
    let mut line = String::new();
    std::io::BufReader::new(server.0.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("the server says it serves");
    assert!(line.contains("serving"), "{line}");
    (dir, server)
}

/// The stopped server, also when an assertion fails.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `serve` ends on SIGTERM with the database closed and its socket gone.
#[test]
fn serve_ends_on_sigterm_with_its_socket_gone() {
    let (dir, mut server) = served(40);
    let db = dir.path().join("db");
    let head = ratedesk(&db, &["log", "--head"]);
    assert!(head.status.success(), "{}", said(&head));
    let term = Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .expect("kill");
    assert!(term.success());
    let status = server.0.wait().expect("the server ends");
    assert!(status.success(), "{status:?}");
    assert!(!db.join("serve.sock").exists());
    let check = ratedesk(&db, &["check"]);
    assert!(check.status.success(), "{}", said(&check));
}
