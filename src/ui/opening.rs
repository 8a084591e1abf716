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
use crate::app::front::FrontPage;
use crate::app::state::{App, Tab, count};
use crate::app::{Action, Context, Desk, Federation};

/// The workstation while its database opens.
pub struct Opening<R: Federation, E> {
    rulebook: R,
    front: Option<FrontPage>,
    folder: PathBuf,
    started: Instant,
    /// Keys typed so far, in order.
    kept: Vec<KeyEvent>,
    loader: JoinHandle<Result<App<R>, E>>,
}

impl<R: Federation, E: Send + 'static> Opening<R, E> {
    /// Reads the front page of the database in `dir` (whose lock the caller holds) and starts
    /// `load` on its own thread; `opened` is called there once it is done, well or not.
    pub fn start(
        dir: &Path,
        rulebook: R,
        load: impl FnOnce() -> Result<Desk<R>, E> + Send + 'static,
        opened: impl FnOnce() + Send + 'static,
    ) -> Self {
        let started = Instant::now();
        let front = FrontPage::read(dir, &rulebook);
        let loader = std::thread::spawn(move || {
            let app = load().map(|desk| {
                let warnings = desk.warnings().join("; ");
                let mut app = App::new(desk);
                if !warnings.is_empty() {
                    app.warn(format!("warning: {warnings}"));
                }
                app
            });
            opened();
            app
        });
        Self {
            rulebook,
            front,
            folder: dir.to_path_buf(),
            started,
            kept: Vec::new(),
            loader,
        }
    }

    /// Whether the first frame shows the front page (not only the frame around it).
    pub fn has_front_page(&self) -> bool {
        self.front.is_some()
    }

    /// Keeps a key typed while the database opens. While the window is too small only the quit
    /// key is kept: nothing else would act on a screen too small to draw.
    pub fn keep(&mut self, key: KeyEvent, keymap: &Keymap, too_small: bool) {
        let quit = key_name(&key).is_some_and(|name| {
            matches!(
                keymap.lookup(Context::Form, &[name]),
                Lookup::Action(Action::Quit)
            )
        });
        if !too_small || quit {
            self.kept.push(key);
        }
    }

    /// Waits for the database and the workstation on it, and acts on the keys kept.
    pub fn finish(self, keymap: &Keymap, size: (u16, u16)) -> Result<App<R>, E> {
        let mut app = match self.loader.join() {
            Ok(app) => app?,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        app.resize(size.0, size.1);
        act_typed_ahead(&mut app, keymap, self.kept);
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
        if too_small_notice(theme, keymap, frame) {
            return;
        }
        let [tabs, body, status] = screen_areas(frame.area());
        let titles = Tab::ALL.map(|tab| match tab {
            Tab::Titles => self.rulebook.third_tab(),
            other => other.title(),
        });
        let counts = self.front.as_ref().map(|f| f.counts);
        tab_bar(theme, frame, tabs, titles, Tab::Players, counts);
        let typed = self.typed();
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
        if !self.kept.is_empty() {
            text.push_str(&format!(
                " · {} kept, to act once it is open",
                count(self.kept.len(), "key", "keys")
            ));
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
/// aside.
pub fn act_typed_ahead<R: Federation>(app: &mut App<R>, keymap: &Keymap, keys: Vec<KeyEvent>) {
    app.begin_typed_ahead();
    let total = keys.len();
    for (i, key) in keys.into_iter().enumerate() {
        super::press(app, keymap, key);
        if app.quit {
            break;
        }
        if app.typed_ahead_refused() {
            let rest = total - i - 1;
            if rest > 0
                && let Some(status) = &mut app.status
            {
                status.text.push_str(&format!(
                    " · {} typed after it set aside",
                    count(rest, "key", "keys")
                ));
            }
            break;
        }
    }
    app.end_typed_ahead();
}
