//! Key press to redrawn screen for a keyed result on the demo database: the action (rate,
//! store, flush) and drawing the 80×24 frame, as the terminal loop does it.
//!
//! `cargo bench --bench keyed`

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratedesk::app::workstation::state::App;
use ratedesk::app::{Desk, Edit};
use ratedesk::rules::ssl::Ssl;
use ratedesk::ui::frame as render;
use ratedesk::ui::keymap::Keymap;
use ratedesk::ui::press_keys;
use ratedesk::ui::theme::Theme;

const DEMO: &str = include_str!("../demo/autumn-2025.json");

fn median(mut v: Vec<Duration>) -> (Duration, Duration, Duration) {
    v.sort();
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = Desk::open(dir.path(), Ssl).expect("open");
    let book = ratedesk::json::read(&Ssl, DEMO).expect("demo").book;
    desk.apply(Edit::import_new(book)).expect("import");
    let mut app = App::new(desk);
    let keymap = Keymap::load(None, None).expect("keymap");
    let theme = Theme::choose(Some("dark"), false).0;
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
    let open = app
        .desk
        .book()
        .events
        .iter()
        .position(|e| e.id == "2025-hki-open")
        .expect("event");
    app.open_event(open);
    let mut draw = |app: &App<Ssl>| {
        terminal
            .draw(|f| render(app, &theme, &keymap, f))
            .expect("draw");
    };
    draw(&app);
    // A board with a result: each key is a correction (preview + popup), then Enter applies it.
    let (mut preview, mut apply) = (Vec::new(), Vec::new());
    for k in 0..101 {
        app.tournaments.board = 0;
        let key = ["0", "1", "="][k % 3];
        let t = Instant::now();
        press_keys(&mut app, &keymap, key);
        draw(&app);
        preview.push(t.elapsed());
        let t = Instant::now();
        press_keys(&mut app, &keymap, "enter");
        draw(&app);
        apply.push(t.elapsed());
    }
    let (m, lo, hi) = median(preview);
    println!("keyed correction → preview drawn:            median {m:?} (min {lo:?}, max {hi:?})");
    let (m, lo, hi) = median(apply);
    println!("confirm → rated, stored, flushed and drawn:  median {m:?} (min {lo:?}, max {hi:?})");
}
