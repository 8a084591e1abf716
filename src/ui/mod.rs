//! The terminal interface: keymaps, themes, drawing, and the loop that feeds keys to the app.
//! It never computes a rating; it shows what `app` holds.
//!
//! One input thread and one signal thread feed a channel; the main loop blocks on it and redraws
//! only when something changed, so an idle workstation uses no CPU and no SSH traffic.

mod card;
mod chart;
pub mod draw;
mod grid;
pub mod keymap;
pub mod opening;
mod players;
mod popups;
mod standings;
pub mod theme;
mod titles;
mod tournaments;

use std::sync::mpsc;

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::app::Federation;
use crate::app::state::App;
use crate::app::{Action, Context, Desk};
use keymap::{Keymap, Lookup, key_name};
use theme::Theme;

/// What the main loop wakes up for.
enum Message {
    Key(KeyEvent),
    Resize(u16, u16),
    /// The database is open (or could not be).
    Opened,
    Stop,
}

/// How often the first frames are drawn again while the database opens (the time it has
/// taken shows it is under way).
const OPENING_TICK: std::time::Duration = std::time::Duration::from_millis(100);

/// Feeds one key to the app: typed text in a form, otherwise the keymap's action (chords wait
/// for their next key, with a hint in the status line). While the window is too small to draw,
/// only quitting and the help act: nothing changes that the officer cannot see.
pub fn press<R: Federation>(app: &mut App<R>, keymap: &Keymap, key: KeyEvent) {
    if app.too_small() {
        app.pending.clear();
        let Some(name) = key_name(&key) else { return };
        if let Lookup::Action(action @ (Action::Quit | Action::Help)) =
            keymap.lookup(app.context(), &[name])
        {
            app.update(action);
        }
        return;
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
    let mut mods = KeyModifiers::NONE;
    let mut rest = name;
    loop {
        if let Some(r) = rest.strip_prefix("ctrl-").filter(|r| !r.is_empty()) {
            mods |= KeyModifiers::CONTROL;
            rest = r;
        } else if let Some(r) = rest.strip_prefix("alt-").filter(|r| !r.is_empty()) {
            mods |= KeyModifiers::ALT;
            rest = r;
        } else {
            break;
        }
    }
    let code = match rest {
        "enter" => KeyCode::Enter,
        "esc" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "backspace" => KeyCode::Backspace,
        "delete" => KeyCode::Delete,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pageup" => KeyCode::PageUp,
        "pagedown" => KeyCode::PageDown,
        "space" => KeyCode::Char(' '),
        f if f.len() > 1 && f.starts_with('f') => KeyCode::F(f[1..].parse().ok()?),
        c if c.chars().count() == 1 => KeyCode::Char(c.chars().next()?),
        _ => return None,
    };
    Some(KeyEvent::new(code, mods))
}

/// Runs the workstation on the database `load` opens (in `dir`, whose lock the caller holds)
/// until the officer quits or the session ends (SIGHUP when an SSH connection drops, SIGTERM):
/// the terminal is restored and the database flushed on every way out, a panic included.
/// Ctrl-Z suspends to the shell and `fg` comes back to the same screen. The first frame is drawn
/// while the database opens ([`opening`]).
pub fn run<R, E>(
    dir: &std::path::Path,
    rulebook: R,
    load: impl FnOnce() -> Result<Desk<R>, E> + Send + 'static,
    keymap: Keymap,
    theme: Theme,
) -> Result<(), E>
where
    R: Federation,
    E: From<std::io::Error> + From<crate::app::DeskError> + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let keys = tx.clone();
    std::thread::spawn(move || {
        loop {
            let message = match event::read() {
                Ok(Event::Key(k)) if k.kind != KeyEventKind::Release => Message::Key(k),
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
    let mut opening = opening::Opening::start(dir, rulebook, load, move || {
        let _ = tx.send(Message::Opened);
    });
    let mut terminal = ratatui::init();
    let mut size = terminal
        .size()
        .map_or((draw::MIN_WIDTH, draw::MIN_HEIGHT), |s| (s.width, s.height));
    let mut stopped = false;
    loop {
        if !stopped && let Err(e) = terminal.draw(|frame| opening.draw(&theme, &keymap, frame)) {
            ratatui::restore();
            return Err(e.into());
        }
        match rx.recv_timeout(OPENING_TICK) {
            Ok(Message::Key(key)) => {
                let small = size.0 < draw::MIN_WIDTH || size.1 < draw::MIN_HEIGHT;
                opening.keep(key, &keymap, small);
            }
            Ok(Message::Resize(width, height)) => size = (width, height),
            Ok(Message::Opened) => break,
            // The session ends while the database opens: it is closed once open.
            Ok(Message::Stop) => stopped = true,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let mut app = match opening.finish(&keymap, size) {
        Ok(app) => app,
        Err(e) => {
            ratatui::restore();
            return Err(e);
        }
    };
    if stopped {
        app.quit = true;
    }
    // Drawn once, then only after something arrived: nothing happens while the officer is idle.
    let outcome = loop {
        if app.quit {
            break Ok(());
        }
        if std::mem::take(&mut app.suspend) {
            ratatui::restore();
            signal_hook::low_level::raise(signal_hook::consts::SIGTSTP)?;
            // Here again after `fg`: everything is painted afresh.
            terminal = ratatui::init();
            let repaint = terminal.size().and_then(|size| {
                terminal.resize(ratatui::layout::Rect::from((Default::default(), size)))
            });
            if let Err(e) = repaint {
                break Err(e.into());
            }
        }
        if let Err(e) = terminal.draw(|frame| draw::render(&app, &theme, &keymap, frame)) {
            break Err(e.into());
        }
        match rx.recv() {
            Ok(Message::Key(key)) => press(&mut app, &keymap, key),
            // Drawn again at the new size (ratatui clears the screen when its size changes).
            Ok(Message::Resize(width, height)) => app.resize(width, height),
            Ok(Message::Opened) => {}
            Ok(Message::Stop) | Err(_) => break Ok(()),
        }
    };
    ratatui::restore();
    if let Some(warning) = app.close()? {
        eprintln!("ratedesk: warning: {warning}");
    }
    outcome
}
