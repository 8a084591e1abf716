//! The workstation's own path, timed key press to redrawn frame: the keys go through the
//! keymap and the action layer exactly as the terminal loop feeds them, so a keyed result
//! includes its preview, the confirmation a correction asks for, the apply (checked, stored,
//! re-rated, flushed), the refresh of what the screens show, and the redraw.

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::app::Edit;
use crate::app::Federation;
use crate::app::workstation::state::Focus;
use crate::app::workstation::state::{App, Loaded, Tab};
use crate::ledger::event_order;
use crate::model::GameResult;
use crate::ui::keymap::Keymap;
use crate::ui::theme::Theme;

/// The keys of the three results, as the default keymap has them: white wins, black wins, a
/// draw.
const RESULT_KEYS: [(&str, GameResult); 3] = [
    ("1", GameResult::WHITE_WINS),
    ("0", GameResult::BLACK_WINS),
    ("=", GameResult::DRAW),
];

/// A terminal of the workstation's smallest size (80 × 24, as the terminal tests use), drawn to
/// memory.
pub struct Screen {
    terminal: Terminal<TestBackend>,
    keymap: Keymap,
    theme: Theme,
}

impl Screen {
    pub fn new() -> anyhow::Result<Self> {
        Ok(Self {
            terminal: Terminal::new(TestBackend::new(80, 24))?,
            keymap: Keymap::load(None, None)?,
            theme: Theme::choose(Some("dark"), false).0,
        })
    }

    pub fn draw<R: Federation>(&mut self, app: &App<R>) -> anyhow::Result<()> {
        let (theme, keymap) = (&self.theme, &self.keymap);
        self.terminal
            .draw(|f| crate::ui::frame(app, theme, keymap, f))?;
        Ok(())
    }

    /// Opens the workstation on the database in `dir` as the terminal does: the lock taken, the
    /// first frame drawn from the front page while the database loads on another thread, then
    /// the workstation's own frame. Times both from `started`.
    pub fn open<R: Federation>(
        &mut self,
        dir: &std::path::Path,
        started: Instant,
    ) -> anyhow::Result<(App<R>, Opened)> {
        let lock = crate::app::Desk::<R>::lock(dir)?;
        let at = dir.to_path_buf();
        let load = move || Loaded::open_locked(&at, R::default(), lock);
        let opening = crate::ui::opening::Opening::start(dir, R::default(), load, || {});
        let front_page = opening.has_front_page();
        let (theme, keymap) = (&self.theme, &self.keymap);
        self.terminal.draw(|f| opening.draw(theme, keymap, f))?;
        let first_frame = started.elapsed();
        let app = opening.finish(keymap, (80, 24), Vec::new)?;
        self.draw(&app)?;
        let opened = Opened {
            first_frame,
            ready: started.elapsed(),
            front_page,
        };
        Ok((app, opened))
    }

    /// Presses keys (`"1"`, `"enter"`) and redraws, as the terminal loop does.
    fn press<R: Federation>(&mut self, app: &mut App<R>, keys: &str) -> anyhow::Result<()> {
        crate::ui::press_keys(app, &self.keymap, keys);
        self.draw(app)
    }
}

/// How the workstation opened: its first frame, the frame of the open database (keys act from
/// then), and whether the first frame showed the front page.
#[derive(Clone, Copy, Debug)]
pub struct Opened {
    pub first_frame: Duration,
    pub ready: Duration,
    pub front_page: bool,
}

/// The round an event's results are keyed in here: its last.
fn last_round<R: Federation>(app: &App<R>, event: usize) -> u32 {
    app.rounds(event)
}

/// A keyed result's times: to the redrawn frame that shows it stored (what the officer waits
/// for), and after that frame until the units it re-rated are written behind it.
#[derive(Clone, Copy, Debug)]
pub struct Keyed {
    pub shown: Duration,
    pub behind: Duration,
}

/// Keys one result on the board under the cursor — a key, and Enter when the workstation asks
/// to confirm (a correction, or a title won or lost) — and returns the time to the redrawn
/// frame after it is stored, and then waits for what is written behind the frame (as it is
/// while the officer reads the screen), timed too.
fn key_result<R: Federation>(
    app: &mut App<R>,
    screen: &mut Screen,
    event: usize,
    key: (&str, GameResult),
) -> anyhow::Result<Keyed> {
    let round = app.tournaments.round;
    let board = app.boards(event, round)[app.tournaments.board];
    let t = Instant::now();
    screen.press(app, key.0)?;
    if app.popup.is_some() {
        screen.press(app, "enter")?;
    }
    let shown = t.elapsed();
    app.desk.settle_all()?;
    let behind = t.elapsed() - shown;
    let game = &app.desk.book().events[event].games[board];
    anyhow::ensure!(
        game.result
            .is_some_and(|r| r.white_halves == key.1.white_halves && r.played),
        "the key {} did not store its result on board {} (status: {:?})",
        key.0,
        game.board,
        app.status
    );
    Ok(Keyed { shown, behind })
}

/// The position of a result among [`RESULT_KEYS`] (a forfeit as the win it gives).
fn index_of(result: GameResult) -> usize {
    RESULT_KEYS
        .iter()
        .position(|(_, r)| r.white_halves == result.white_halves)
        .unwrap_or(0)
}

/// Moves the cursor past byes to the next board with two players; `None` at the round's end.
fn board_to_key<R: Federation>(
    app: &mut App<R>,
    screen: &mut Screen,
    event: usize,
) -> anyhow::Result<Option<crate::model::Game>> {
    loop {
        let boards = app.boards(event, app.tournaments.round);
        let Some(&g) = boards.get(app.tournaments.board) else {
            return Ok(None);
        };
        let game = &app.desk.book().events[event].games[g];
        if game.black().is_some() {
            return Ok(Some(game.clone()));
        }
        if app.tournaments.board + 1 >= boards.len() {
            return Ok(None);
        }
        screen.press(app, "down")?;
    }
}

/// Opens an event on its last round, the cursor on the first board.
fn open_round<R: Federation>(
    app: &mut App<R>,
    screen: &mut Screen,
    event: usize,
) -> anyhow::Result<()> {
    app.open_event(event);
    app.tournaments.round = last_round(app, event);
    app.tournaments.board = 0;
    screen.draw(app)
}

/// Keyed results in the newest events: the last round of each cleared first (not timed), then
/// keyed board by board as new results, then corrected board by board. Returns at least
/// `wanted` timings (new results and corrections).
pub fn keyed_results<R: Federation>(
    app: &mut App<R>,
    screen: &mut Screen,
    wanted: usize,
) -> anyhow::Result<KeyedResults> {
    let book = app.desk.book();
    // Events whose last round has a few played boards, newest first.
    let events: Vec<(usize, Vec<(u32, u32)>)> = event_order(&book.events)
        .into_iter()
        .rev()
        .filter(|&e| book.live[e])
        .map(|e| {
            let last = book.events[e].games.iter().map(|g| g.round).max();
            let boards = book.events[e]
                .games
                .iter()
                .filter(|g| Some(g.round) == last && g.black().is_some())
                .filter(|g| g.result.is_some_and(|r| r.played))
                .map(|g| (g.round, g.board))
                .collect::<Vec<_>>();
            (e, boards)
        })
        .filter(|(_, boards)| boards.len() >= 4)
        .scan(0, |n, (e, boards)| {
            let enough = *n >= wanted.div_ceil(2);
            *n += boards.len();
            (!enough).then_some((e, boards))
        })
        .collect();
    anyhow::ensure!(
        !events.is_empty(),
        "no event with a round of results to key"
    );
    let mut first_edit = None;
    for (event, boards) in &events {
        for &(round, board) in boards {
            let t = Instant::now();
            app.desk.apply(Edit::SetResult {
                event: *event,
                round,
                board,
                result: None,
            })?;
            first_edit.get_or_insert(t.elapsed());
        }
    }
    let mut times = Vec::new();
    let mut k = 0;
    for _pass in ["new results", "corrections"] {
        for (event, boards) in &events {
            open_round(app, screen, *event)?;
            for _ in boards {
                let Some(game) = board_to_key(app, screen, *event)? else {
                    break;
                };
                // A new result in turn; a correction to the next result after the one there.
                let key = match game.result {
                    Some(r) => RESULT_KEYS[(index_of(r) + 1) % 3],
                    None => RESULT_KEYS[k % 3],
                };
                let at = app.tournaments.board;
                times.push(key_result(app, screen, *event, key)?);
                k += 1;
                if app.tournaments.board == at {
                    break;
                }
            }
        }
    }
    Ok(KeyedResults {
        first_edit: first_edit.unwrap_or_default(),
        keyed: times,
    })
}

/// The keyed results' times, and the first edit's after the opening: the results taken away
/// to be keyed again, the first of them applied (and flushed) as the officer's first key
/// after the opening is, before the frame that shows it.
pub struct KeyedResults {
    pub first_edit: Duration,
    pub keyed: Vec<Keyed>,
}

/// A correction in the oldest event, keyed and confirmed `n` times (each a different result),
/// with the whole cascade behind it.
pub fn cascades<R: Federation>(
    app: &mut App<R>,
    screen: &mut Screen,
    n: usize,
) -> anyhow::Result<Vec<Keyed>> {
    let book = app.desk.book();
    let oldest = event_order(&book.events)
        .into_iter()
        .filter(|&e| book.live[e])
        .find(|&e| {
            book.events[e]
                .games
                .iter()
                .any(|g| g.black().is_some() && g.result.is_some_and(|r| r.played))
        })
        .ok_or_else(|| anyhow::anyhow!("no event with a played game"))?;
    let game = book.events[oldest]
        .games
        .iter()
        .find(|g| g.black().is_some() && g.result.is_some_and(|r| r.played))
        .cloned()
        .ok_or_else(|| anyhow::anyhow!("no played game"))?;
    app.open_event(oldest);
    app.tournaments.round = game.round;
    let boards = app.boards(oldest, game.round);
    let games = &app.desk.book().events[oldest].games;
    app.tournaments.board = boards
        .iter()
        .position(|&g| games[g].board == game.board)
        .unwrap_or(0);
    screen.draw(app)?;
    let now = game.result.map_or(0, index_of);
    let board = app.tournaments.board;
    (1..=n)
        .map(|k| {
            app.tournaments.board = board;
            key_result(app, screen, oldest, RESULT_KEYS[(now + k) % 3])
        })
        .collect()
}

/// Typing players' names into the search box, each key to its redrawn frame: `rounds` names
/// of players spread over the list (a different one each round, so nothing typed before is
/// reused), each erased key by key after it.
pub fn search_keys<R: Federation>(
    app: &mut App<R>,
    screen: &mut Screen,
    rounds: usize,
) -> anyhow::Result<Vec<Duration>> {
    app.tab = Tab::Players;
    app.players.card = None;
    app.players.focus = Focus::Search;
    let book = app.desk.book();
    let names: Vec<String> = (0..rounds)
        .filter_map(|r| {
            book.players
                .get(book.players.len() * (2 * r + 1) / (2 * rounds))
        })
        .map(|p| p.name.chars().take(8).collect())
        .collect();
    let mut times = Vec::new();
    for name in names {
        for c in name.chars() {
            let t = Instant::now();
            app.type_char(c);
            screen.draw(app)?;
            times.push(t.elapsed());
        }
        for _ in name.chars() {
            app.backspace();
        }
    }
    Ok(times)
}

/// Opening players' cards from the search, each Enter to its drawn card: the first after an
/// edit ranks the list in force today for the card's places, the rest find it ranked; then
/// each card's lists view, the first of which ranks the newest lists.
pub struct CardOpens {
    pub opens: Vec<Duration>,
    pub lists: Vec<Duration>,
}

pub fn card_opens<R: Federation>(
    app: &mut App<R>,
    screen: &mut Screen,
    cards: usize,
) -> anyhow::Result<CardOpens> {
    let players = app.desk.book().players.len();
    let mut out = CardOpens {
        opens: Vec::new(),
        lists: Vec::new(),
    };
    for k in 0..cards {
        app.tab = Tab::Players;
        app.players.card = None;
        app.players.focus = Focus::Search;
        let id = app.desk.book().players[players * (2 * k + 1) / (2 * cards)]
            .id
            .clone();
        for c in id.chars() {
            app.type_char(c);
        }
        let t = Instant::now();
        app.update(crate::app::workstation::action::Action::Open);
        screen.draw(app)?;
        out.opens.push(t.elapsed());
        anyhow::ensure!(
            app.players.card.is_some(),
            "the search for {id} opened no card"
        );
        let t = Instant::now();
        app.update(crate::app::workstation::action::Action::NextView);
        app.update(crate::app::workstation::action::Action::NextView);
        screen.draw(app)?;
        out.lists.push(t.elapsed());
        app.update(crate::app::workstation::action::Action::NextView);
        app.update(crate::app::workstation::action::Action::Back);
        for _ in id.chars() {
            app.backspace();
        }
    }
    Ok(out)
}

/// What switching the third tab's views costs: each switch to its redrawn frame; each slice of
/// the selection lists worked out between keys, with its frame; and each time the lists took
/// to be complete after a switch that started them.
pub struct Views {
    pub switches: Vec<Duration>,
    pub slices: Vec<Duration>,
    pub lists: Vec<Duration>,
}

/// Switching the third tab's views (Finland's titles, selection lists…) `rounds` times round
/// every view, as the terminal's loop does it: the first showing of a selection list after a
/// change of the record starts it, and it is worked out a slice at a time, each slice followed
/// by a frame, until it is complete; the switches after find it kept.
pub fn third_tab_views<R: Federation>(
    app: &mut App<R>,
    screen: &mut Screen,
    rounds: usize,
) -> anyhow::Result<Views> {
    app.popup = None;
    app.tab = Tab::Titles;
    app.behind = true;
    let views = app.desk.rulebook().views().len();
    let mut out = Views {
        switches: Vec::new(),
        slices: Vec::new(),
        lists: Vec::new(),
    };
    for _ in 0..rounds * views {
        let t = Instant::now();
        app.update(crate::app::workstation::action::Action::NextView);
        screen.draw(app)?;
        out.switches.push(t.elapsed());
        let started = app.selection_under_way().is_some();
        while app.selection_under_way().is_some() {
            let slice = Instant::now();
            app.work_behind(Some(crate::app::workstation::titles::WORK_SLICE));
            screen.draw(app)?;
            out.slices.push(slice.elapsed());
        }
        if started {
            out.lists.push(t.elapsed());
        }
    }
    app.behind = false;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::ssl::Ssl;

    /// The bench's paths through the workstation — keyed results with their confirmations,
    /// cascades, the search, the third tab's views — do what they time, on the small demo.
    #[test]
    fn the_benchs_keys_store_what_they_time_on_the_small_demo() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut desk = crate::app::Desk::open(dir.path(), Ssl).expect("open");
        let demo = include_str!("../../demo/autumn-2025.json");
        let book = crate::json::read(&Ssl, demo).expect("demo").book;
        desk.apply(Edit::import_new(book)).expect("import");
        let mut app = App::new(desk);
        let mut screen = Screen::new().expect("screen");
        let keyed = keyed_results(&mut app, &mut screen, 6).expect("keyed results");
        assert!(keyed.keyed.len() >= 6, "{} keyed", keyed.keyed.len());
        assert!(keyed.first_edit > Duration::ZERO);
        cascades(&mut app, &mut screen, 2).expect("cascades");
        search_keys(&mut app, &mut screen, 2).expect("search");
        let views = third_tab_views(&mut app, &mut screen, 1).expect("views");
        assert!(
            !views.lists.is_empty(),
            "the selection lists were worked out"
        );
        assert!(!app.titles.selection.is_empty());
        assert_eq!(app.desk.check(), Vec::<String>::new());
    }
}
