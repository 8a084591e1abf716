//! The terminal interface: keymaps, themes, drawing, and the loop that feeds keys to the app.
//! It never computes a rating; it shows what `app` holds.
//!
//! One input thread and one signal thread feed a channel; the main loop blocks on it and redraws
//! only when something changed, so an idle workstation uses no CPU and no SSH traffic.

mod card;
mod chart;
pub mod draw;
mod grid;
pub mod key;
pub mod keymap;
pub mod opening;
mod players;
mod popups;
mod sgr;
mod standings;
pub mod theme;
mod titles;
mod tournaments;

use std::sync::mpsc;

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::app::Federation;
use crate::app::workstation::action::{Action, Context};
use crate::app::workstation::state::{App, Loaded};
use keymap::{Keymap, Lookup, key_name};
use theme::Theme;

/// What the main loop wakes up for.
enum Message {
    Key(KeyEvent),
    /// Text pasted in one piece (bracketed paste): text, never keys.
    Paste(String),
    Resize(u16, u16),
    /// The database is open (or could not be).
    Opened,
    /// Work from outside waits ([`Outside`]).
    Outside,
    Stop,
}

/// Work another thread has the open workstation do between keys, on its record: a command of
/// another `ratedesk` that the workstation serves.
pub struct Job<R: Federation> {
    /// Who asked for what, shown before it runs (the officer's keys wait meanwhile); empty:
    /// nothing shown.
    pub asked: String,
    pub run: Work<R>,
}

/// What a [`Job`] does with the workstation.
pub type Work<R> = Box<dyn FnOnce(&mut App<R>) + Send>;

/// What lets another thread hand the open workstation a [`Job`].
pub struct Outside<R: Federation> {
    jobs: mpsc::Sender<Job<R>>,
    /// The workstation's loop, woken for each job (none for a server without a screen, whose
    /// loop waits on the jobs themselves).
    wake: Option<mpsc::Sender<Message>>,
}

impl<R: Federation> Clone for Outside<R> {
    fn clone(&self) -> Self {
        Self {
            jobs: self.jobs.clone(),
            wake: self.wake.clone(),
        }
    }
}

impl<R: Federation> Outside<R> {
    /// Hands the workstation a job, done before the next key; `false`: it has closed.
    pub fn send(&self, job: Job<R>) -> bool {
        self.jobs.send(job).is_ok()
            && self
                .wake
                .as_ref()
                .is_none_or(|w| w.send(Message::Outside).is_ok())
    }

    /// For a server without a screen: the jobs come out of the receiver, to be done in turn.
    pub fn headless() -> (Outside<R>, mpsc::Receiver<Job<R>>) {
        let (jobs, done_here) = mpsc::channel();
        (Outside { jobs, wake: None }, done_here)
    }
}

/// How often the first frames are drawn again while the database opens (the time it has
/// taken shows it is under way).
const OPENING_TICK: std::time::Duration = std::time::Duration::from_millis(100);

/// Feeds one key to the app: typed text in a form, otherwise the keymap's action (chords wait
/// for their next key, with a hint in the status line). While the window is too small to draw,
/// only quitting acts: nothing changes, and nothing opens, that the officer cannot see.
///
/// Esc never combines with the key after it: a terminal sends Esc and a quick next key as one
/// alt-key, so an alt-key the keymap does not bind is read as the two keys typed.
pub fn press<R: Federation>(app: &mut App<R>, keymap: &Keymap, key: KeyEvent) {
    if app.too_small() {
        app.pending.clear();
        let Some(name) = key_name(&key) else { return };
        if let Lookup::Action(Action::Quit) = keymap.lookup(app.context(), &[name]) {
            app.update(Action::Quit);
        } else {
            app.set_aside_small += 1;
        }
        return;
    }
    if let Some((esc, typed)) = esc_then_key(app, keymap, key) {
        press(app, keymap, esc);
        return press(app, keymap, typed);
    }
    let plain = !key
        .modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    if app.context() == Context::Form && app.pending.is_empty() && plain {
        match key.code {
            KeyCode::Char(c) => return app.type_char(c),
            KeyCode::Backspace => return app.backspace(),
            _ => {}
        }
    }
    let Some(name) = key_name(&key) else { return };
    let mut keys = std::mem::take(&mut app.pending);
    keys.push(name);
    match keymap.lookup(app.context(), &keys) {
        Lookup::Action(action) => {
            app.status = None;
            app.update(action);
        }
        Lookup::Pending(_) => app.pending = keys,
        Lookup::Unbound => {}
    }
}

/// An alt-key the keymap does not bind where the officer is, split into the Esc and the key
/// it was typed as.
fn esc_then_key<R: Federation>(
    app: &App<R>,
    keymap: &Keymap,
    key: KeyEvent,
) -> Option<(KeyEvent, KeyEvent)> {
    if !key.modifiers.contains(KeyModifiers::ALT) || !app.pending.is_empty() {
        return None;
    }
    // Only keys a terminal sends as one byte after the Esc: alt with an arrow or a function
    // key is a sequence of its own, really typed with alt.
    if !matches!(
        key.code,
        KeyCode::Char(_) | KeyCode::Enter | KeyCode::Backspace | KeyCode::Tab | KeyCode::Esc
    ) {
        return None;
    }
    let name = key_name(&key)?;
    // In a popup an alt-key never acts (tab keys included): it was Esc and a key.
    let popup = app.popup.is_some();
    if !popup && keymap.lookup(app.context(), &[name]) != Lookup::Unbound {
        return None;
    }
    let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
    Some((
        esc,
        KeyEvent::new(key.code, key.modifiers - KeyModifiers::ALT),
    ))
}

/// Text pasted into the terminal (bracketed paste): typed into the text box in focus, its line
/// breaks and tabs as spaces — never keys, so a pasted newline is not Enter. With no text box
/// in focus nothing happens, and the status line says so.
pub fn paste<R: Federation>(app: &mut App<R>, text: &str) {
    if app.too_small() {
        app.set_aside_small += 1;
        return;
    }
    if app.context() != Context::Form {
        return app
            .warn("pasted text not used: no text box has the focus here (a paste is never keys)");
    }
    app.pending.clear();
    for c in text.chars() {
        match c {
            '\r' => {}
            '\n' | '\t' => app.type_char(' '),
            c if c.is_control() => {}
            c => app.type_char(c),
        }
    }
}

/// Parses keys written as in keymap files (`"alt-2 n"`, `"ctrl-r"`, `"enter"`) and presses
/// them one by one; for tests and scripted sessions.
pub fn press_keys<R: Federation>(app: &mut App<R>, keymap: &Keymap, keys: &str) {
    for k in keys.split(' ').filter(|k| !k.is_empty()) {
        if let Some(event) = key_event(k) {
            press(app, keymap, event);
        }
    }
}

/// Types text as plain keys.
pub fn type_text<R: Federation>(app: &mut App<R>, keymap: &Keymap, text: &str) {
    for c in text.chars() {
        press(
            app,
            keymap,
            KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE),
        );
    }
}

/// The key event a keymap name stands for.
pub fn key_event(name: &str) -> Option<KeyEvent> {
    name.parse::<key::Key>().ok().map(key::Key::event)
}

/// Runs the workstation on the database `load` opens (in `dir`, whose lock the caller holds)
/// until the officer quits or the session ends (SIGHUP when an SSH connection drops, SIGTERM):
/// the terminal is restored and the database closed on every way out — a failure to draw or a
/// panic included, and once it is open when the session ends while it opens. Ctrl-Z suspends to
/// the shell and `fg` comes back to the same screen. The first frame is drawn while the
/// database opens ([`opening`]).
pub fn run<R, E, S>(
    dir: &std::path::Path,
    rulebook: R,
    load: impl FnOnce() -> Result<Loaded<R>, E> + Send + 'static,
    keymap: Keymap,
    theme: Theme,
    serve: impl FnOnce(Outside<R>) -> Result<S, String>,
) -> Result<(), E>
where
    R: Federation,
    E: From<std::io::Error> + From<crate::app::DeskError> + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let (jobs, outside_jobs) = mpsc::channel();
    let outside = Outside {
        jobs,
        wake: Some(tx.clone()),
    };
    let keys = tx.clone();
    std::thread::spawn(move || {
        loop {
            let message = match event::read() {
                Ok(Event::Key(k)) if k.kind != KeyEventKind::Release => Message::Key(k),
                Ok(Event::Paste(text)) => Message::Paste(text),
                Ok(Event::Resize(w, h)) => Message::Resize(w, h),
                Ok(_) => continue,
                Err(_) => Message::Stop,
            };
            let stop = matches!(message, Message::Stop);
            if keys.send(message).is_err() || stop {
                break;
            }
        }
    });
    {
        use signal_hook::consts::{SIGHUP, SIGTERM};
        let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP])?;
        let tx = tx.clone();
        std::thread::spawn(move || {
            if signals.forever().next().is_some() {
                let _ = tx.send(Message::Stop);
            }
        });
    }
    let opening = opening::Opening::start(dir, rulebook, load, move || {
        let _ = tx.send(Message::Opened);
    });
    let mut screen = Screen::take();
    let size = screen.size();
    let first_frames = |opening: &opening::Opening<R, E>| {
        screen
            .terminal
            .draw(|frame| opening.draw(&theme, &keymap, frame))
            .map(|_| ())
    };
    // Served from the start (what `serve` returns is kept until the workstation closes): a
    // command of another process while the database opens waits for it, and runs once it is
    // open, instead of being told the database is in use.
    let served = serve(outside);
    let (mut app, failed) = until_open(first_frames, size, opening, &rx, &keymap)?;
    // In the terminal, long work for the screens waits for the keys.
    app.behind = true;
    // A workstation that cannot serve says so on its screen, and works alone.
    let served = served.map_err(|warning| app.warn(warning)).ok();
    let outcome = match failed {
        Some(e) => Err(e),
        None => session(&mut screen, &mut app, &rx, &outside_jobs, &keymap, &theme),
    };
    // The terminal is the shell's again before a read another process asked for ends.
    screen.restore();
    drop(served);
    // The shell waits for the backup of a large record (seconds at a million players): it is
    // told what for. Standard error may be gone (the SSH connection dropped): what is said
    // there is then lost, and the close goes on.
    use std::io::Write as _;
    if app.desk.backs_up_at_close() {
        let _ = writeln!(
            std::io::stderr(),
            "ratedesk: writing the automatic backup of this session's edits…"
        );
    }
    let closed = app.close()?;
    outcome?;
    if let Some(warning) = closed {
        let _ = writeln!(std::io::stderr(), "ratedesk: warning: {warning}");
    }
    Ok(())
}

/// The terminal in the workstation's mode until restored or dropped: every way out — an early
/// return, a panic carried on from the thread that opened the database — gives the shell its
/// screen back.
struct Screen {
    terminal: Terminal,
    taken: bool,
}

/// The terminal drawn on: standard output, its colours as the terminal reads them ([`sgr`]).
type Terminal = ratatui::Terminal<ratatui::backend::CrosstermBackend<sgr::Sgr<std::io::Stdout>>>;

impl Screen {
    fn take() -> Self {
        // Raw mode, the alternate screen and a panic hook that restores both, as ratatui sets
        // them up; the frames then go through the colour rewriting a terminal of 8 or 16
        // colours needs.
        drop(ratatui::init());
        let sixteen = theme::Capabilities::from_env().colours != theme::Colours::Full;
        let backend =
            ratatui::backend::CrosstermBackend::new(sgr::Sgr::new(std::io::stdout(), sixteen));
        let terminal = match ratatui::Terminal::new(backend) {
            Ok(terminal) => terminal,
            Err(e) => {
                ratatui::restore();
                panic!("the terminal cannot be drawn on: {e}");
            }
        };
        // A paste arrives as one piece of text, never as keys.
        let _ = ratatui::crossterm::execute!(
            std::io::stdout(),
            ratatui::crossterm::event::EnableBracketedPaste
        );
        Self {
            terminal,
            taken: true,
        }
    }

    fn size(&self) -> (u16, u16) {
        self.terminal
            .size()
            .map_or((draw::MIN_WIDTH, draw::MIN_HEIGHT), |s| (s.width, s.height))
    }

    fn restore(&mut self) {
        if std::mem::take(&mut self.taken) {
            let _ = ratatui::crossterm::execute!(
                std::io::stdout(),
                ratatui::crossterm::event::DisableBracketedPaste
            );
            ratatui::restore();
        }
    }

    /// Ctrl-Z: the shell's screen back, the process stopped; after `fg` everything is painted
    /// afresh.
    fn suspend(&mut self) -> std::io::Result<()> {
        self.restore();
        signal_hook::low_level::raise(signal_hook::consts::SIGTSTP)?;
        *self = Self::take();
        let size = self.terminal.size()?;
        self.terminal
            .resize(ratatui::layout::Rect::from((Default::default(), size)))
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        self.restore();
    }
}

/// Draws the first frames until the database is open, keeping the keys typed meanwhile; then
/// the workstation on it, those keys acted on. A failure to draw meanwhile is returned beside
/// it: the database is opened all the same, to be closed.
fn until_open<R, E>(
    mut paint: impl FnMut(&opening::Opening<R, E>) -> std::io::Result<()>,
    mut size: (u16, u16),
    mut opening: opening::Opening<R, E>,
    rx: &mpsc::Receiver<Message>,
    keymap: &Keymap,
) -> Result<(App<R>, Option<std::io::Error>), E>
where
    R: Federation,
    E: Send + 'static,
{
    let mut failed = None;
    loop {
        if failed.is_none()
            && let Err(e) = paint(&opening)
        {
            failed = Some(e);
        }
        match rx.recv_timeout(OPENING_TICK) {
            Ok(Message::Key(key)) => {
                let small = size.0 < draw::MIN_WIDTH || size.1 < draw::MIN_HEIGHT;
                opening.keep(key, keymap, small);
            }
            Ok(Message::Resize(width, height)) => size = (width, height),
            // A paste while the database opens has no text box to go to.
            Ok(Message::Paste(_) | Message::Outside) => {}
            Ok(Message::Opened) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
            // The session ends while the database opens: it is closed once open.
            Ok(Message::Stop) => opening.close_when_open(),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
    // Keys, a resize or the session's end that come while the database is taken over.
    let (mut resized, mut stop) = (None, false);
    let more = || {
        let mut keys = Vec::new();
        while let Ok(message) = rx.try_recv() {
            match message {
                Message::Key(key) => keys.push(key),
                Message::Resize(width, height) => resized = Some((width, height)),
                Message::Stop => stop = true,
                Message::Opened | Message::Paste(_) | Message::Outside => {}
            }
        }
        keys
    };
    let mut app = opening.finish(keymap, size, more)?;
    if let Some((width, height)) = resized {
        app.resize(width, height);
    }
    if stop {
        app.quit = true;
    }
    Ok((app, failed))
}

/// One frame as the loop shows it: drawn while the flush of the edits just made runs behind
/// it, then held until they are on disk — the frame shows them stored, so it reaches the
/// terminal only once they are (ratatui writes the frame after this returns). A failed write
/// takes the status line.
pub fn frame<R: Federation>(
    app: &App<R>,
    theme: &Theme,
    keymap: &Keymap,
    frame: &mut ratatui::Frame,
) {
    draw::render(app, theme, keymap, frame);
    if let Err(e) = app.desk.settle() {
        draw::write_failed(app, theme, frame, &e);
    }
}

/// The workstation's loop: drawn once, then only after something arrived — nothing happens
/// while the officer is idle.
fn session<R: Federation>(
    screen: &mut Screen,
    app: &mut App<R>,
    rx: &mpsc::Receiver<Message>,
    outside: &mpsc::Receiver<Job<R>>,
    keymap: &Keymap,
    theme: &Theme,
) -> std::io::Result<()> {
    loop {
        if app.quit {
            return Ok(());
        }
        if std::mem::take(&mut app.suspend) {
            screen.suspend()?;
        }
        screen
            .terminal
            .draw(|frame| self::frame(app, theme, keymap, frame))?;
        // Commands of other processes (those that came while the database opened included),
        // each said on the screen before it runs: the keys typed meanwhile wait for it.
        if let Ok(job) = outside.try_recv() {
            // A command of another process is said before it runs (what another officer's
            // workstation stored is said once followed).
            if !job.asked.is_empty() {
                app.asked_elsewhere(&job.asked);
                screen
                    .terminal
                    .draw(|frame| self::frame(app, theme, keymap, frame))?;
            }
            (job.run)(app);
            continue;
        }
        // Work for the screens (the selection lists) is done a slice at a time while no key
        // is waiting, each slice followed by a frame that shows how far it is.
        let message = if app.selection_under_way().is_some() {
            match rx.try_recv() {
                Ok(message) => Ok(message),
                Err(mpsc::TryRecvError::Empty) => {
                    app.work_behind(Some(crate::app::workstation::titles::WORK_SLICE));
                    continue;
                }
                Err(mpsc::TryRecvError::Disconnected) => return Ok(()),
            }
        } else {
            rx.recv()
        };
        match message {
            Ok(Message::Key(key)) => press(app, keymap, key),
            Ok(Message::Paste(text)) => paste(app, &text),
            // Drawn again at the new size (ratatui clears the screen when its size changes).
            Ok(Message::Resize(width, height)) => app.resize(width, height),
            Ok(Message::Opened) => {}
            Ok(Message::Outside) => {}
            Ok(Message::Stop) | Err(_) => return Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Desk, DeskError, Edit};
    use crate::rules::ssl::Ssl;

    /// A database of the small demo federation, closed by the workstation (its front page
    /// kept), and the workstation opening on it: the database opens once `go` is sent.
    fn opening(dir: &std::path::Path) -> (opening::Opening<Ssl, DeskError>, mpsc::Sender<()>) {
        let mut desk = Desk::open(dir, Ssl).expect("open");
        let text = include_str!("../../demo/autumn-2025.json");
        let book = crate::json::read(&Ssl, text).expect("demo").book;
        desk.apply(Edit::import_new(book)).expect("import");
        App::new(desk).close().expect("closed");
        let lock = Desk::<Ssl>::lock(dir).expect("lock");
        let (go, wait) = mpsc::channel();
        let at = dir.to_path_buf();
        let load = move || {
            let _ = wait.recv();
            Loaded::open_locked(&at, Ssl, lock)
        };
        (opening::Opening::start(dir, Ssl, load, || {}), go)
    }

    fn key(name: &str) -> Message {
        Message::Key(key_event(name).expect("a key"))
    }

    #[test]
    fn keys_that_come_with_the_open_database_before_its_frame_change_nothing_either() {
        let dir = tempfile::tempdir().expect("tmp");
        let (opening, go) = opening(dir.path());
        let keymap = Keymap::load(None, None).expect("keymap");
        let (tx, rx) = mpsc::channel();
        // "ja" typed while it opens; "r", undo and "v" while it is being taken over.
        for message in [
            key("j"),
            key("a"),
            Message::Opened,
            key("r"),
            key("ctrl-z"),
            key("enter"),
        ] {
            tx.send(message).expect("sent");
        }
        tx.send(key("v")).expect("sent");
        go.send(()).expect("the database may open");
        let mut frames = 0;
        let (app, failed) = until_open(
            |_| {
                frames += 1;
                Ok(())
            },
            (80, 24),
            opening,
            &rx,
            &keymap,
        )
        .expect("opened");
        assert!(failed.is_none());
        assert!(frames >= 1, "the first frame was drawn");
        assert_eq!(app.players.query, "jar");
        assert_eq!(app.desk.audit().len(), 1, "the import was not undone");
        let status = app.status.clone().expect("a message");
        assert!(
            status.error
                && status
                    .text
                    .contains("not stored: keyed before the database was open")
                && status.text.contains("1 key typed after it set aside"),
            "{}",
            status.text
        );
        app.close().expect("closed");
    }

    #[test]
    fn keys_that_come_after_a_refused_one_typed_ahead_are_set_aside_too() {
        let dir = tempfile::tempdir().expect("tmp");
        let (opening, go) = opening(dir.path());
        let keymap = Keymap::load(None, None).expect("keymap");
        let (tx, rx) = mpsc::channel();
        for message in [
            key("ctrl-z"),
            key("enter"),
            Message::Opened,
            key("x"),
            key("y"),
        ] {
            tx.send(message).expect("sent");
        }
        go.send(()).expect("the database may open");
        let (app, _) = until_open(|_| Ok(()), (80, 24), opening, &rx, &keymap).expect("opened");
        assert_eq!(app.desk.audit().len(), 1, "the import was not undone");
        assert_eq!(app.players.query, "", "nothing after the refused key acted");
        let status = app.status.clone().expect("a message");
        assert!(
            status.text.contains("not stored") && status.text.contains("2 more set aside"),
            "{}",
            status.text
        );
        app.close().expect("closed");
    }

    #[test]
    fn a_frame_that_cannot_be_drawn_while_opening_still_opens_the_database_to_close_it() {
        let dir = tempfile::tempdir().expect("tmp");
        let (opening, go) = opening(dir.path());
        let keymap = Keymap::load(None, None).expect("keymap");
        let (tx, rx) = mpsc::channel();
        tx.send(key("x")).expect("sent");
        tx.send(Message::Opened).expect("sent");
        go.send(()).expect("the database may open");
        let mut tries = 0;
        let (app, failed) = until_open(
            |_| {
                tries += 1;
                Err(std::io::Error::other("the terminal went away"))
            },
            (80, 24),
            opening,
            &rx,
            &keymap,
        )
        .expect("opened all the same");
        assert_eq!(tries, 1, "not drawn again after it failed");
        assert!(failed.is_some_and(|e| e.to_string() == "the terminal went away"));
        assert_eq!(app.players.query, "x");
        app.close().expect("closed");
    }

    #[test]
    fn the_quit_key_while_opening_closes_the_database_once_open_and_nothing_else_acts() {
        let dir = tempfile::tempdir().expect("tmp");
        let (opening, go) = opening(dir.path());
        let keymap = Keymap::load(None, None).expect("keymap");
        let (tx, rx) = mpsc::channel();
        for message in [key("j"), key("ctrl-c"), key("a"), Message::Opened] {
            tx.send(message).expect("sent");
        }
        go.send(()).expect("the database may open");
        let (app, _) = until_open(|_| Ok(()), (80, 24), opening, &rx, &keymap).expect("opened");
        assert!(app.quit);
        assert_eq!(app.players.query, "", "no key acted");
        app.close().expect("closed");
    }
}
