//! The real binary in a real terminal: tmux runs `ratedesk --demo`, keys go in with send-keys
//! and the screen comes back with capture-pane — what a person over SSH would see.

use std::process::Command;
use std::time::{Duration, Instant};

fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux")
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("tmux is needed for this test (.ci/run installs it: apt-get install tmux): {e}")
        });
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Waits until the screen shows `text` (the program draws asynchronously).
fn wait_for(session: &str, text: &str) -> String {
    wait_longer(session, text, Duration::from_secs(20))
}

fn wait_longer(session: &str, text: &str, limit: Duration) -> String {
    let start = Instant::now();
    loop {
        let screen = tmux(&["capture-pane", "-p", "-t", session]);
        if screen.contains(text) {
            return screen;
        }
        assert!(
            start.elapsed() < limit,
            "'{text}' never appeared; the screen:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

struct Session(String);

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.0])
            .output();
    }
}

#[test]
fn an_officer_finds_a_player_opens_his_event_and_keys_a_result() {
    let data = tempfile::tempdir().expect("tempdir");
    let session = Session(format!("ratedesk-e2e-{}", std::process::id()));
    let command = format!(
        "env XDG_DATA_HOME={} TERM=xterm-256color {} --demo",
        data.path().display(),
        env!("CARGO_BIN_EXE_ratedesk")
    );
    tmux(&[
        "new-session",
        "-d",
        "-s",
        &session.0,
        "-x",
        "80",
        "-y",
        "24",
        &command,
    ]);
    // The first start builds the demo federation (3 000 players, ten years).
    wait_longer(&session.0, "3008 players", Duration::from_secs(180));
    tmux(&["send-keys", "-t", &session.0, "FIN10000"]);
    wait_for(&session.0, "FIN10000▏");
    tmux(&["send-keys", "-t", &session.0, "Enter"]);
    let card = wait_for(&session.0, "rated events");
    assert!(card.contains("FIN10000"), "{card}");
    tmux(&["send-keys", "-t", &session.0, "Enter"]);
    wait_for(&session.0, "Standings");
    // Key white's win on board 1; if the board had another result this is a correction and
    // its preview asks first.
    tmux(&["send-keys", "-t", &session.0, "1"]);
    std::thread::sleep(Duration::from_millis(500));
    if tmux(&["capture-pane", "-p", "-t", &session.0]).contains("This correction changes") {
        tmux(&["send-keys", "-t", &session.0, "y"]);
    }
    wait_for(&session.0, "round 1 board 1: 1-0");
    tmux(&["send-keys", "-t", &session.0, "C-c"]);
    let start = Instant::now();
    while tmux(&["list-sessions"]).contains(&session.0) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "ratedesk did not quit on ctrl-c (it writes its exit backup first)"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // The keyed result is on disk, audited.
    let db = data.path().join("ratedesk-demo");
    let out = Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .arg("--db")
        .arg(&db)
        .args(["log", "--last", "1"])
        .output()
        .expect("log");
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(log.contains("round 1 board 1: 1-0"), "{log}");
}
