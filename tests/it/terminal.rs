//! The real binary in a real terminal: `ratedesk --demo --rules R` runs on a pseudo-terminal of
//! 80×24, once per rulebook,
//! keys go in as the terminal sends them and the screen is what a VT100 emulator makes of the
//! output — what a person over SSH would see. Nothing beyond the Rust toolchain is needed.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// The program in its terminal: the emulated screen, fed by a reader thread.
struct Terminal {
    screen: Arc<Mutex<vt100::Parser>>,
    keys: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    /// Kept open for as long as the program runs.
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Terminal {
    /// The demo of a rulebook as `--demo` builds it in the data folder at the first start
    /// (3 000 players, ten years).
    fn start_building(data: &std::path::Path, rules: &str) -> Self {
        Self::run(
            &["--demo", "--rules", rules],
            &[("XDG_DATA_HOME", data.as_os_str())],
        )
    }

    /// The demo of a rulebook, opened from the data folder as `--demo` opens it: a small one
    /// (308 players, two years) built there first, as `ratedesk demo` builds it (the default
    /// demo of 3 000 players and ten years takes a debug build half a minute to make).
    fn start(data: &std::path::Path, rules: &str) -> Self {
        let folder = match rules {
            "ssl" => "ratedesk-demo".to_string(),
            other => format!("ratedesk-demo-{other}"),
        };
        let built = std::process::Command::new(env!("CARGO_BIN_EXE_ratedesk"))
            .args([
                "demo",
                "--players",
                "300",
                "--years",
                "2",
                "--rules",
                rules,
                "--out",
            ])
            .arg(data.join(folder))
            .output()
            .expect("demo");
        assert!(
            built.status.success(),
            "{}",
            String::from_utf8_lossy(&built.stderr)
        );
        Self::run(
            &["--demo", "--rules", rules],
            &[("XDG_DATA_HOME", data.as_os_str())],
        )
    }

    /// The program with these arguments and environment.
    fn run(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Self {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 80,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_ratedesk"));
        command.args(args);
        for (name, value) in env {
            command.env(name, value);
        }
        command.env("TERM", "xterm-256color");
        let child = pty.slave.spawn_command(command).expect("ratedesk starts");
        let mut output = pty
            .master
            .try_clone_reader()
            .expect("the terminal's output");
        let keys = pty.master.take_writer().expect("the terminal's input");
        let size = |n: u16| std::num::NonZeroU16::new(n).expect("not zero");
        let screen = Arc::new(Mutex::new(vt100::Parser::new(size(24), size(80), 0)));
        let feed = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = output.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut parser) = feed.lock() {
                    parser.process(&buf[..n]);
                }
            }
        });
        drop(pty.slave);
        Self {
            screen,
            keys,
            child,
            _master: pty.master,
        }
    }

    /// The window changes size, as a person drags it: the terminal first (its screen takes the
    /// new size), then the program is told (SIGWINCH) and draws at it. In the other order a
    /// frame drawn at the new size could be read into the screen at the old one.
    fn resize(&self, rows: u16, cols: u16) {
        let size = |n: u16| std::num::NonZeroU16::new(n).expect("not zero");
        self.screen
            .lock()
            .expect("the screen")
            .set_size(size(rows), size(cols));
        self._master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("resize");
    }

    fn contents(&self) -> String {
        self.screen.lock().expect("the screen").screen().contents()
    }

    fn send(&mut self, keys: &[u8]) {
        self.keys.write_all(keys).expect("keys");
        self.keys.flush().expect("keys");
    }

    /// Waits until the screen shows `text` (the program draws asynchronously).
    fn wait_for(&self, text: &str, limit: Duration) -> String {
        self.wait_for_any(&[text], limit)
    }

    /// Types `text`, then the help key: once the help shows, every key of the text was read.
    /// The help is closed again.
    fn type_then_help(&mut self, text: &[u8]) {
        self.send(text);
        self.send(b"?");
        self.wait_for("Keys (from the keymap", WAIT);
        self.send(ESC);
        self.wait_gone("Keys (from the keymap", WAIT);
    }

    /// Ctrl-C, and the program's end within `limit` (it writes its exit backup first).
    fn quit(&mut self, limit: Duration) {
        self.send(CTRL_C);
        let start = Instant::now();
        while self.child.try_wait().expect("the child").is_none() {
            assert!(
                start.elapsed() < limit,
                "ratedesk did not quit on ctrl-c (it writes its exit backup first)"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until the screen no longer shows `text` (a popup closed).
    fn wait_gone(&self, text: &str, limit: Duration) {
        let start = Instant::now();
        while self.contents().contains(text) {
            assert!(
                start.elapsed() < limit,
                "{text:?} stayed; the screen:\n{}",
                self.contents()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until the screen shows one of `texts`; returns the screen.
    fn wait_for_any(&self, texts: &[&str], limit: Duration) -> String {
        let start = Instant::now();
        loop {
            let screen = self.contents();
            if texts.iter().any(|t| screen.contains(t)) {
                return screen;
            }
            assert!(
                start.elapsed() < limit,
                "none of {texts:?} appeared; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

const ENTER: &[u8] = b"\r";
const CTRL_C: &[u8] = b"\x03";
const ESC: &[u8] = b"\x1b";
const BACKSPACE: u8 = 0x7f;
const WAIT: Duration = Duration::from_secs(20);

#[test]
fn a_finnish_officer_finds_a_player_keys_a_result_and_types_a_name_after_leaving_the_card() {
    officers_day("ssl", "FIN10000", "ratedesk-demo");
}

/// Every way a typed name could meet a command, as the officer types at speed (tmux's default
/// escape time sends Esc and the next key in one read): after Esc from a card opened from an
/// event's standings and from the Titles tab a name is typed; Esc and `u` in one write on a
/// card; keys while the window is too small. Nothing is stored, undone or confirmed.
#[test]
fn a_finnish_officer_types_names_everywhere_and_nothing_changes() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut terminal = Terminal::start(data.path(), "ssl");
    let keyed = key_a_result(&mut terminal, "FIN10000");
    // The standings' pane, a card opened from it, Esc, and a name typed at once.
    terminal.send(b"\t");
    terminal.send(ENTER);
    terminal.wait_for("Player card", WAIT);
    terminal.send(ESC);
    terminal.wait_for("Standings", WAIT);
    terminal.type_then_help(b"uusitalo");
    // The Titles tab, a card opened from it, Esc, and a name typed at once.
    terminal.send(b"\x1b3");
    terminal.wait_for("highest first", WAIT);
    terminal.send(ENTER);
    terminal.wait_for("Player card", WAIT);
    terminal.send(ESC);
    terminal.wait_for("highest first", WAIT);
    terminal.type_then_help(b"lucas");
    // A card, and Esc with `u` in one write: back to the search, `u` a new search.
    terminal.send(b"\x1b1");
    terminal.wait_for("Player card", WAIT);
    terminal.send(ESC);
    terminal.wait_for("FIN10000▏", WAIT);
    terminal.send(ENTER);
    terminal.wait_for("Player card", WAIT);
    terminal.send(b"\x1bu");
    terminal.wait_for("│u▏", WAIT);
    // Too small: nothing acts — not results, undo, help or a paste.
    terminal.resize(20, 60);
    terminal.wait_for("Nothing acts", WAIT);
    terminal.send(b"\x1bu\x1a\r10=\x1bOP\x1b[200~1\r\x1b[201~");
    // Once the notice counts them, every key was read while small (and set aside).
    terminal.wait_for("8 keys typed meanwhile, set aside", WAIT);
    terminal.resize(24, 80);
    terminal.wait_for("│u▏", WAIT);
    let screen = terminal.contents();
    assert!(!screen.contains("Undo this edit"), "{screen}");
    terminal.quit(Duration::from_secs(120));
    // The keyed result is still the latest entry: nothing was undone, confirmed or entered.
    let log = last_entry(data.path(), "ratedesk-demo");
    assert!(log.contains(&format!(": {keyed}")), "{log}");
}

#[test]
fn an_icelandic_officer_finds_a_player_keys_a_result_and_types_a_name_after_leaving_the_card() {
    officers_day("isl", "ISL10000", "ratedesk-demo-isl");
}

/// An officer's first `--demo` builds the default demo federation (3 000 players of the
/// generator, ten years, and the 8 of the sample event) in the data folder and opens it; ctrl-c
/// quits with the shell's screen back.
#[test]
fn the_first_start_builds_the_default_demo_and_opens_it() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut terminal = Terminal::start_building(data.path(), "isl");
    terminal.wait_for("3008 players", Duration::from_secs(180));
    terminal.quit(Duration::from_secs(120));
    assert!(
        data.path().join("ratedesk-demo-isl").is_dir(),
        "the demo is kept in the data folder"
    );
}

#[test]
fn a_turkish_officer_finds_a_player_keys_a_result_and_types_a_name_after_leaving_the_card() {
    officers_day("tsf", "TUR10000", "ratedesk-demo-tsf");
}

/// The officer's round on the demo federation of `rules`: find the player `id`, open his newest
/// event, key a result, leave, type a name at once, resize, quit; the result is stored in the
/// database folder `folder`.
/// Finds the player `id`, opens his newest game's event and keys a result on his board, until
/// the screen says it is stored; returns the result keyed.
fn key_a_result(terminal: &mut Terminal, id: &str) -> &'static str {
    // The demo federation opens: the small one (300 players of the generator and the 8 of the
    // sample event), or the default one built at the first start.
    terminal.wait_for_any(&["308 players", "3008 players"], Duration::from_secs(180));
    terminal.send(id.as_bytes());
    terminal.wait_for(&format!("{id}▏"), WAIT);
    terminal.send(ENTER);
    let card = terminal.wait_for("Player card", WAIT);
    assert!(card.contains(id), "{card}");
    // His newest game's event opens with the cursor on his board.
    terminal.send(ENTER);
    terminal.wait_for("Standings", WAIT);
    // Key white's win on his board; if the board had another result this is a correction and
    // its preview asks first; if it had this one, nothing is stored and black's win is keyed.
    // (Each step waits for what the screen answers: a slow machine draws late.)
    let answers = ["nothing to change", "This edit changes", "saved: result"];
    let mut keyed = "1-0";
    terminal.send(b"1");
    let mut screen = terminal.wait_for_any(&answers, WAIT);
    if screen.contains("nothing to change") {
        terminal.send(b"\x1b[A0");
        keyed = "0-1";
        screen = terminal.wait_for_any(&answers[1..], WAIT);
    }
    if screen.contains("This edit changes") {
        terminal.send(ENTER);
    }
    // The status line says it is stored (the preview's title line names the result too).
    let screen = terminal.wait_for("saved: result", WAIT);
    assert!(screen.contains(&format!(": {keyed}")), "{screen}");
    keyed
}

/// Several officers on one record: with the workstation open, the commands of other
/// `ratedesk`s run on its record — an export (beside the officer's keys, unannounced), a result
/// keyed from the command line (shown on the open screen without a key, audited under the OS
/// user who ran it), `log` and `check` —
/// and once it is closed the database is the commands' own again.
#[test]
fn commands_run_on_the_record_the_open_workstation_holds() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut terminal = Terminal::start(data.path(), "ssl");
    terminal.wait_for("308 players", Duration::from_secs(180));
    let db = data.path().join("ratedesk-demo");
    let run = |args: &[&str]| crate::common::ratedesk(&db, args);
    let said = |out: &std::process::Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    let ratings = run(&["export", "ratings"]);
    assert!(ratings.status.success(), "{}", said(&ratings));
    let doc: serde_json::Value = serde_json::from_slice(&ratings.stdout).expect("json");
    assert!(doc["events"].as_array().is_some_and(|e| !e.is_empty()));
    // A read runs beside the officer's keys: the screen goes on as it was.
    let me = os_user();
    assert!(
        !terminal.contents().contains(&format!("{me}: export")),
        "{}",
        terminal.contents()
    );
    // A result from the command line: the correction of the newest event's first game.
    let events = run(&["export", "events"]);
    assert!(events.status.success(), "{}", said(&events));
    let events: serde_json::Value = serde_json::from_slice(&events.stdout).expect("json");
    let event = events["events"]
        .as_array()
        .and_then(|e| e.last())
        .expect("an event");
    let id = event["id"].as_str().expect("its id").to_string();
    let game = event["games"]
        .as_array()
        .and_then(|g| g.iter().find(|g| !g["black"].is_null()))
        .expect("a game");
    let (round, board) = (game["round"].to_string(), game["board"].to_string());
    let mut keyed = run(&["result", &id, &round, &board, "1-0", "--keep-titles"]);
    if said(&keyed).contains("nothing to change") {
        keyed = run(&["result", &id, &round, &board, "0-1", "--keep-titles"]);
    }
    assert!(keyed.status.success(), "{}", said(&keyed));
    // The open screen says who keyed it, without a key pressed there.
    terminal.wait_for(&format!("{me}: result {id}"), WAIT);
    let log = run(&["log", "--last", "1"]);
    assert!(log.status.success(), "{}", said(&log));
    assert!(said(&log).contains(&me), "{}", said(&log));
    // Refused input is refused as on its own: the message and exit status 2.
    let refused = run(&["result", &id, "99", "1", "1-0"]);
    assert_eq!(refused.status.code(), Some(2), "{}", said(&refused));
    // A pipe is not given to the workstation to read (it would wait for ever on it).
    let piped = run(&["import", "trf", "/dev/stdin", "--yes"]);
    assert_eq!(piped.status.code(), Some(2), "{}", said(&piped));
    assert!(said(&piped).contains("not a file"), "{}", said(&piped));
    terminal.wait_for("308 players", WAIT);
    let check = run(&["check"]);
    assert!(check.status.success(), "{}", said(&check));
    terminal.quit(Duration::from_secs(120));
    assert!(
        !db.join("serve.sock").exists(),
        "the socket goes with the workstation"
    );
    let check = run(&["check"]);
    assert!(check.status.success(), "{}", said(&check));
}

/// This process's OS user, as the audit names him.
fn os_user() -> String {
    std::process::Command::new("id")
        .arg("-un")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .expect("id -un")
}

/// The last audit entry of the database in `folder` of the data folder.
fn last_entry(data: &std::path::Path, folder: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .arg("--db")
        .arg(data.join(folder))
        .args(["log", "--last", "1"])
        .output()
        .expect("log");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_result_the_screen_shows_stored_survives_a_killed_process() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut terminal = Terminal::start(data.path(), "ssl");
    let keyed = key_a_result(&mut terminal, "FIN10000");
    // Killed the moment the frame shows it: no chance to finish anything.
    terminal.child.kill().expect("SIGKILL");
    terminal.child.wait().expect("reaped");
    let log = last_entry(data.path(), "ratedesk-demo");
    assert!(log.contains(&format!(": {keyed}")), "{log}");
    // The units it re-rated were written behind the frame, perhaps not yet: the opening rates
    // them again if so, and the stored results agree with a fresh calculation.
    let check = std::process::Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .arg("--db")
        .arg(data.path().join("ratedesk-demo"))
        .arg("check")
        .output()
        .expect("check");
    assert!(
        check.status.success(),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}

/// The debug build's switch (`RATEDESK_TEST_DISK_FULL_AFTER`) fails every flush as a full disk
/// would: the flush that runs while a result's frame is drawn fails, the frame says so instead
/// of "stored", and the next key that would edit is refused.
#[cfg(debug_assertions)]
#[test]
fn a_flush_that_fails_behind_the_frame_is_shown_and_stops_editing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/autumn-2025.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ratedesk"))
        .arg("--db")
        .arg(&db)
        .args(["import", "json"])
        .arg(&demo)
        .output()
        .expect("import");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let db_arg = db.to_str().expect("path");
    let mut terminal = Terminal::run(
        &["--db", db_arg],
        &[("RATEDESK_TEST_DISK_FULL_AFTER", "0".as_ref())],
    );
    terminal.wait_for("22 players", WAIT);
    terminal.send(b"FIN1006");
    terminal.wait_for("FIN1006▏", WAIT);
    terminal.send(ENTER);
    terminal.wait_for("Player card", WAIT);
    terminal.send(ENTER);
    terminal.wait_for("Standings", WAIT);
    let failed = "is stored, but finishing it failed";
    let answers = ["nothing to change", "This edit changes", failed];
    terminal.send(b"1");
    let mut screen = terminal.wait_for_any(&answers, WAIT);
    if screen.contains("nothing to change") {
        terminal.send(b"0");
        screen = terminal.wait_for_any(&answers[1..], WAIT);
    }
    if screen.contains("This edit changes") {
        terminal.send(ENTER);
    }
    let screen = terminal.wait_for(failed, WAIT);
    assert!(!screen.contains("saved: "), "{screen}");
    terminal.send(b"=");
    let stopped = "could not be written earlier";
    let screen = terminal.wait_for_any(&["This edit changes", stopped], WAIT);
    if screen.contains("This edit changes") {
        terminal.send(ENTER);
    }
    let screen = terminal.wait_for(stopped, WAIT);
    assert!(screen.contains(" 2 7 Ylönen, Si… 0-1"), "refused: {screen}");
}

fn officers_day(rules: &str, id: &str, folder: &str) {
    let data = tempfile::tempdir().expect("tempdir");
    let mut terminal = Terminal::start(data.path(), rules);
    let keyed = key_a_result(&mut terminal, id);
    let typed = format!("{id}▏");
    // Esc back to the card, Esc back to the search, then a name typed at once: every letter
    // goes to the search (u is not undo there, i is not import, q is not quit).
    terminal.send(ESC);
    terminal.wait_for("Player card", WAIT);
    terminal.send(ESC);
    terminal.wait_for(&typed, WAIT);
    terminal.send(&vec![BACKSPACE; id.len()]);
    terminal.send(b"uusitalo iq");
    terminal.wait_for("uusitalo iq▏", WAIT);
    // Resized while working: drawn again at the new size, and the shell's screen comes back
    // whole on quitting (nothing of the last frame left behind).
    terminal.resize(30, 100);
    let start = Instant::now();
    // The tab bar's counts end at the right edge: at column 100 once drawn again.
    while terminal
        .contents()
        .lines()
        .next()
        .is_none_or(|l| l.trim_end().chars().count() < 95)
    {
        assert!(
            start.elapsed() < WAIT,
            "never drawn at 100 columns:\n{}",
            terminal.contents()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // A debug build writes the exit backup of Turkey's demo (twice Finland's games) slowly
    // when the other tests share the two cores.
    terminal.quit(Duration::from_secs(120));
    let after = terminal.contents();
    assert!(
        !after.contains("ratedesk ") && !after.contains("│"),
        "the last frame stayed on the shell's screen:\n{after}"
    );
    // The keyed result is on disk, audited, and still the latest entry: nothing was undone.
    let log = last_entry(data.path(), folder);
    assert!(log.contains(&format!(": {keyed}")), "{log}");
    assert!(!log.contains("undo"), "{log}");
}

/// Two officers at two workstations on one database: the second opens on a copy of the
/// record the first holds; a result keyed at either shows at the other without a key, with
/// who keyed it; the first killed, the second holds the database from then on and nothing
/// stored is lost.
#[test]
fn two_workstations_on_one_database_show_each_others_results_and_outlive_a_killed_holder() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut first = Terminal::start(data.path(), "ssl");
    first.wait_for("308 players", Duration::from_secs(180));
    let mut second = Terminal::run(&["--demo"], &[("XDG_DATA_HOME", data.path().as_os_str())]);
    second.wait_for("308 players", Duration::from_secs(60));
    let me = os_user();
    first.wait_for(&format!("{me} opened a workstation on this database"), WAIT);
    // Keyed at the second, shown at the first.
    let keyed = key_a_result(&mut second, "FIN10000");
    let shown = first.wait_for(&format!("{me}: result"), WAIT);
    assert!(shown.contains(keyed), "{shown}");
    // Keyed at the first (the same board: a correction), shown at the second.
    let corrected = key_a_result(&mut first, "FIN10000");
    assert_ne!(corrected, keyed);
    let shown = second.wait_for(&format!("{me}: result"), WAIT);
    assert!(shown.contains(corrected), "{shown}");
    // The holder killed: the second takes the database over.
    first.child.kill().expect("SIGKILL");
    second.wait_for("this workstation holds it now", WAIT);
    let db = data.path().join("ratedesk-demo");
    let run = |args: &[&str]| crate::common::ratedesk(&db, args);
    let log = run(&["log", "--last", "1"]);
    let said = String::from_utf8_lossy(&log.stdout).into_owned();
    assert!(said.contains(&format!("{me} result")), "{said}");
    assert!(said.contains(&format!(": {corrected}")), "{said}");
    let check = run(&["check"]);
    assert!(
        check.status.success(),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    second.quit(Duration::from_secs(120));
}
