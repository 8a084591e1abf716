//! Opening the workstation: the first frame is drawn at once — from the front page kept at the
//! last clean stop when it shows the database as it is, otherwise without the list — while the
//! database loads on another thread. Keys typed meanwhile are kept (the status line counts them
//! and text typed shows in the search box) and act once the database is open, as if typed then,
//! except that none of them may change the record: the officer saw only the front page. The
//! first that would is refused with a message, and the keys after it are set aside.

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Instant;

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::draw::{block, hint, query_box, screen_areas, tab_bar, too_small_notice};
use super::keymap::{Keymap, Lookup, key_name};
use super::players::{List, SEARCH_TITLE};
use super::theme::{Role, Theme};
use crate::app::Federation;
use crate::app::workstation::action::{Action, Context};
use crate::app::workstation::front::FrontPage;
use crate::app::workstation::state::{App, Loaded, Tab, count};

/// The workstation while its database opens.
pub struct Opening<R: Federation, E> {
    rulebook: R,
    front: Option<FrontPage>,
    folder: PathBuf,
    started: Instant,
    /// Keys typed so far, in order (at most [`KEPT`]), and how many more were not kept.
    kept: Vec<KeyEvent>,
    over: usize,
    /// The officer quit, or the session ended: the database is closed once open, and no key
    /// acts.
    closing: bool,
    loader: JoinHandle<Result<App<R>, E>>,
}

/// Keys kept while the database opens, at most (a key held down repeats).
const KEPT: usize = 256;

/// Calls its function when dropped: when the database has opened, failed to, or its thread
/// panicked.
struct OnDrop<F: FnOnce()>(Option<F>);

impl<F: FnOnce()> Drop for OnDrop<F> {
    fn drop(&mut self) {
        if let Some(f) = self.0.take() {
            f();
        }
    }
}

impl<R: Federation, E: Send + 'static> Opening<R, E> {
    /// Reads the front page of the database in `dir` (whose lock the caller holds) and starts
    /// `load` on its own thread; `opened` is called there once it is done, well or not (a panic
    /// included).
    pub fn start(
        dir: &Path,
        rulebook: R,
        load: impl FnOnce() -> Result<Loaded<R>, E> + Send + 'static,
        opened: impl FnOnce() + Send + 'static,
    ) -> Self {
        let started = Instant::now();
        let front = FrontPage::read(dir, &rulebook);
        let loader = std::thread::spawn(move || {
            let _opened = OnDrop(Some(opened));
            load().map(App::loaded)
        });
        Self {
            rulebook,
            front,
            folder: dir.to_path_buf(),
            started,
            kept: Vec::new(),
            over: 0,
            closing: false,
            loader,
        }
    }

    /// Whether the first frame shows the front page (not only the frame around it).
    pub fn has_front_page(&self) -> bool {
        self.front.is_some()
    }

    /// Keeps a key typed while the database opens. While the window is too small only the quit
    /// key counts: nothing else would act on a screen too small to draw. The quit key acts at
    /// once: the database is closed as soon as it is open, and no key acts.
    pub fn keep(&mut self, key: KeyEvent, keymap: &Keymap, too_small: bool) {
        let quit = key_name(&key).is_some_and(|name| {
            matches!(
                keymap.lookup(Context::Form, &[name]),
                Lookup::Action(Action::Quit)
            )
        });
        if quit {
            self.close_when_open();
        } else if too_small || self.closing {
        } else if self.kept.len() < KEPT {
            self.kept.push(key);
        } else {
            self.over += 1;
        }
    }

    /// The session ends: the database is closed as soon as it is open.
    pub fn close_when_open(&mut self) {
        self.closing = true;
    }

    /// Waits for the database and the workstation on it, and acts on the keys kept (none when
    /// closing: the workstation is then to quit), then on those `more` gives — keys that came
    /// while the database was taken over and these acted, typed in front of the first frames
    /// too — until it gives none. What went wrong at the opening without stopping it (a daily
    /// backup not written) is said in the status line after them.
    pub fn finish(
        self,
        keymap: &Keymap,
        size: (u16, u16),
        mut more: impl FnMut() -> Vec<KeyEvent>,
    ) -> Result<App<R>, E> {
        let mut app = match self.loader.join() {
            Ok(app) => app?,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        app.resize(size.0, size.1);
        if self.closing {
            app.quit = true;
        } else {
            let mut keys = self.kept;
            while !keys.is_empty() {
                if !act_typed_ahead(&mut app, keymap, keys) {
                    let rest = more().len();
                    if rest > 0
                        && let Some(status) = &mut app.status
                    {
                        status.text.push_str(&format!(" · {rest} more set aside"));
                    }
                    break;
                }
                keys = more();
            }
        }
        let warnings = app.desk.warnings().join("; ");
        if !warnings.is_empty() {
            let mut text = format!("warning: {warnings}");
            if let Some(said) = app.status.take() {
                text = format!("{} · {text}", said.text);
            }
            app.warn(text);
        }
        Ok(app)
    }

    /// The text typed into the search box so far: the kept keys up to the first that is not
    /// a letter or Backspace (what the search box will hold once the keys act).
    fn typed(&self) -> String {
        let mut text = String::new();
        for key in &self.kept {
            let plain = !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
            match key.code {
                KeyCode::Char(c) if plain => text.push(c),
                KeyCode::Backspace if plain => {
                    text.pop();
                }
                _ => break,
            }
        }
        text
    }

    /// Paints the first frames: the Players tab as the front page shows it (or its frame
    /// alone), and in the status line how long the opening has taken and the keys kept.
    pub fn draw(&self, theme: &Theme, keymap: &Keymap, frame: &mut Frame) {
        if too_small_notice(theme, keymap, frame, 0) {
            return;
        }
        let [tabs, body, status] = screen_areas(frame.area());
        let titles: Vec<&str> = Tab::ALL
            .iter()
            .map(|&tab| tab.title_in(&self.rulebook))
            .collect();
        let counts = self.front.as_ref().map(|f| f.counts);
        tab_bar(theme, frame, tabs, &titles, Tab::Players, counts);
        // Nothing typed acts once the officer quit: nothing typed shows.
        let typed = if self.closing {
            String::new()
        } else {
            self.typed()
        };
        match &self.front {
            // The list as the front page has it, until a query is typed: the list found for
            // it is the open database's.
            Some(front) if typed.is_empty() => {
                let columns = front.rows.first().map_or(0, Vec::len);
                let list = List {
                    query: &typed,
                    typing: true,
                    fresh: false,
                    lists: self.rulebook.lists(),
                    len: front.listed,
                    selected: 0,
                };
                list.draw(frame, theme, body, |i| {
                    front
                        .rows
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| vec![String::new(); columns])
                });
            }
            _ => {
                let [search, rest] = ratatui::layout::Layout::vertical([
                    ratatui::layout::Constraint::Length(3),
                    ratatui::layout::Constraint::Min(3),
                ])
                .areas(body);
                query_box(frame, theme, search, SEARCH_TITLE, &typed, true, false);
                let text = if typed.is_empty() {
                    format!("Opening the database in {} …", self.folder.display())
                } else {
                    "Searched as soon as the database is open …".to_string()
                };
                frame.render_widget(
                    Paragraph::new(theme.text(text))
                        .style(theme.style(Role::Muted))
                        .block(block(theme, " Players ")),
                    rest,
                );
            }
        }
        let mut text = format!(
            "opening the database · {:.1} s",
            self.started.elapsed().as_secs_f64()
        );
        if self.closing {
            text.push_str(" · closing it once open");
        } else if !self.kept.is_empty() {
            text.push_str(&format!(
                " · {} kept, to act once it is open",
                count(self.kept.len(), "key", "keys")
            ));
            if self.over > 0 {
                text.push_str(&format!(" ({} more not kept)", self.over));
            }
        } else {
            text.push_str(&format!(
                " · type to search · {} help",
                hint(keymap, Context::Global, Action::Help)
            ));
        }
        frame.render_widget(
            Paragraph::new(Line::styled(theme.text(text), theme.style(Role::Highlight))),
            status,
        );
    }
}

/// Acts on keys typed before the database was open, in order. None of them may change the
/// record: the first that tries is refused (the status line says so) and the rest are set
/// aside, as are the keys after one that quits or suspends. Whether every key acted (and the
/// keys typed after them may too).
pub fn act_typed_ahead<R: Federation>(
    app: &mut App<R>,
    keymap: &Keymap,
    keys: Vec<KeyEvent>,
) -> bool {
    app.begin_typed_ahead();
    let total = keys.len();
    let mut through = true;
    for (i, key) in keys.into_iter().enumerate() {
        super::press(app, keymap, key);
        let rest = total - i - 1;
        let refused = app.typed_ahead_refused();
        if rest > 0 {
            let rest = count(rest, "key", "keys");
            match &mut app.status {
                Some(status) if refused => {
                    status
                        .text
                        .push_str(&format!(" · {rest} typed after it set aside"));
                }
                _ if app.suspend => app.warn(format!("{rest} typed after suspending set aside")),
                _ => {}
            }
        }
        if refused || app.suspend || app.quit {
            through = false;
            break;
        }
    }
    app.end_typed_ahead();
    through
}
