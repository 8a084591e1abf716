//! What the workstation's tests share: the demo federation in a temporary database, the keymap
//! and theme, and the screen drawn on a TestBackend as text.
#![allow(dead_code)]

use std::path::Path;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratedesk::app::workstation::state::App;
use ratedesk::app::{Desk, Edit};
use ratedesk::rules::ssl::Ssl;
use ratedesk::ui::frame as render;
use ratedesk::ui::keymap::Keymap;
use ratedesk::ui::theme::Theme;

pub const DEMO: &str = include_str!("../../../demo/autumn-2025.json");

/// The day the screens' tests are drawn on: after the demo's events, whatever the day they run.
pub const TODAY: &str = "2025-12-01T12:00:00";

/// Sets this thread's clock to [`TODAY`].
pub fn fix_the_day() {
    ratedesk::clock::set_for_this_thread(
        chrono::NaiveDateTime::parse_from_str(TODAY, "%Y-%m-%dT%H:%M:%S").expect("a time"),
    );
}

/// The small demo federation (23 players, two events) in a database at `dir`.
pub fn demo_desk(dir: &Path) -> Desk<Ssl> {
    fix_the_day();
    let mut desk = Desk::open(dir, Ssl).expect("open");
    let book = ratedesk::json::read(&Ssl, DEMO).expect("demo").book;
    desk.apply(Edit::import_new(book)).expect("import");
    desk
}

pub fn app(dir: &Path) -> App<Ssl> {
    App::new(demo_desk(dir))
}

/// A generated federation: `players` players over one year.
pub fn generated(dir: &Path, players: usize) -> App<Ssl> {
    fix_the_day();
    let mut desk = Desk::open(dir, Ssl).expect("open");
    let (book, parts) = ratedesk::demo::generate(&ratedesk::demo::Params {
        players,
        years: 1,
        ..ratedesk::demo::Params::demo()
    });
    desk.import_in_parts(book, &parts).expect("import");
    App::new(desk)
}

pub fn keys() -> Keymap {
    Keymap::load(None, None).expect("default keymap")
}

pub fn theme() -> Theme {
    Theme::choose(Some("dark"), false).0
}

pub fn draw(app: &App<Ssl>, keymap: &Keymap, theme: &Theme, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal
        .draw(|frame| render(app, theme, keymap, frame))
        .expect("draw");
    terminal.backend().to_string()
}

pub fn text(app: &App<Ssl>, keymap: &Keymap, width: u16, height: u16) -> String {
    draw(app, keymap, &theme(), width, height)
}

pub fn event_index<R: ratedesk::app::Federation>(app: &App<R>, id: &str) -> usize {
    app.desk
        .book()
        .events
        .iter()
        .position(|e| e.id == id)
        .expect("event")
}

pub fn player_index(app: &App<Ssl>, name: &str) -> usize {
    app.desk
        .book()
        .players
        .iter()
        .position(|p| p.name == name)
        .expect("player")
}

/// A new event keyed through the Tournaments tab — its name, its start date, then each player
/// entered by a search for him — left open in round entry; its index.
pub fn new_event(
    app: &mut App<Ssl>,
    keymap: &Keymap,
    name: &str,
    date: &str,
    players: &[&str],
) -> usize {
    use ratedesk::ui::{press_keys, type_text};
    press_keys(app, keymap, "alt-2 ctrl-n");
    type_text(app, keymap, name);
    press_keys(app, keymap, "enter enter");
    type_text(app, keymap, date);
    press_keys(app, keymap, "ctrl-s");
    for player in players {
        press_keys(app, keymap, "ctrl-p");
        type_text(app, keymap, player);
        press_keys(app, keymap, "enter");
    }
    app.tournaments.open.expect("the new event is open")
}
