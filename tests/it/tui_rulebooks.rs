//! The workstation for each rulebook — Finland (ssl), Iceland (isl), Turkey (tsf) — driven
//! through its action layer as an officer would: create an event, enter players, pair the
//! rounds, key the results, correct one, undo. After each step that moves a rating, the figures
//! on the screen are those `ratedesk rate` computes from the book's JSON export (the export
//! the command line writes). Then every tab is drawn at 80×24 and 160×48 (insta snapshots).

use std::path::Path;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratedesk::app::workstation::state::{App, Popup, Tab};
use ratedesk::app::{Desk, Edit, Federation};
use ratedesk::book::Book;
use ratedesk::model::{Event, Game, GameResult, PlayerInfo, Sex, TimeControl, player_u32};
use ratedesk::rules::Rulebook;
use ratedesk::rules::isl::{Isl, IslState, Provisional};
use ratedesk::rules::ssl::{Ssl, SslState};
use ratedesk::rules::tsf::{Archived, Tsf, TsfState};
use ratedesk::ui::draw::render;
use ratedesk::ui::keymap::Keymap;
use ratedesk::ui::theme::Theme;
use ratedesk::ui::{press_keys, type_text};
use serde_json::Value;

use crate::common::day as d;

fn keys() -> Keymap {
    Keymap::load(None, None).expect("default keymap")
}

pub(crate) fn text<R: Federation>(app: &App<R>, width: u16, height: u16) -> String {
    let theme = Theme::choose(Some("dark"), false).0;
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal
        .draw(|frame| render(app, &theme, &keys(), frame))
        .expect("draw");
    terminal.backend().to_string()
}

/// A player of the test federation.
fn player(id: &str, name: &str, born: &str, female: bool) -> PlayerInfo {
    PlayerInfo {
        id: id.into(),
        name: name.into(),
        born: Some(d(born)),
        sex: Some(if female { Sex::Female } else { Sex::Male }),
        ..PlayerInfo::default()
    }
}

/// The rounds of a single round robin of `n` (even) players, as pairs of start numbers.
fn berger(n: usize) -> Vec<Vec<(usize, usize)>> {
    let mut seats: Vec<usize> = (1..=n).collect();
    let mut rounds = Vec::new();
    for r in 0..n - 1 {
        let pairs = (0..n / 2)
            .map(|i| {
                let (a, b) = (seats[i], seats[n - 1 - i]);
                if r % 2 == 0 { (a, b) } else { (b, a) }
            })
            .collect();
        rounds.push(pairs);
        let last = seats.remove(n - 1);
        seats.insert(1, last);
    }
    rounds
}

/// The result keyed on a board: a fixed mix of wins, draws and losses.
fn result_key(round: usize, board: usize) -> &'static str {
    ["1", "=", "0", "1", "0"][(round + 2 * board) % 5]
}

fn result_of(key: &str) -> GameResult {
    match key {
        "1" => GameResult::WHITE_WINS,
        "0" => GameResult::BLACK_WINS,
        _ => GameResult::DRAW,
    }
}

/// A base book: the players with their states on the first list, and one earlier event played
/// as a round robin among the first six (so that cards have a history).
fn base<R: Rulebook>(
    players: Vec<(PlayerInfo, Option<R::State>)>,
    lists: usize,
    earlier: (&str, &str, &str),
) -> Book<R> {
    let mut book = Book::<R>::default();
    for (info, seed) in players {
        let mut seeds = vec![None; lists];
        seeds[0] = seed;
        book.players.push(info);
        book.seeds.push(seeds);
        book.held.push(Vec::new());
        book.confirmed.push(Vec::new());
    }
    let (id, start, end) = earlier;
    let mut games = Vec::new();
    for (r, pairs) in berger(6).into_iter().enumerate() {
        for (b, (w, bl)) in pairs.into_iter().enumerate() {
            games.push(Game {
                round: r as u32 + 1,
                board: b as u32 + 1,
                white: player_u32(w - 1),
                black: Some(player_u32(bl - 1)),
                result: Some(result_of(result_key(r + 1, b))),
                date: None,
                received: None,
            });
        }
    }
    book.events.push(Event {
        name: format!("Earlier {id}"),
        time_control: Some(TimeControl {
            base_seconds: 90 * 60,
            increment_seconds: 30,
            added: Vec::new(),
        }),
        pairing: "swiss".into(),
        participants: (0..6).collect(),
        games,
        ..Event::new(id, d(start), d(end))
    });
    book.live.push(true);
    book
}

/// The new event keyed at the workstation.
struct Keyed {
    name: &'static str,
    id: &'static str,
    start: &'static str,
    end: &'static str,
    /// When the results were received (a rulebook that rates by period asks).
    received: Option<&'static str>,
    /// Ids of the six entrants, in start-number order.
    entrants: [&'static str; 6],
}

/// Presses keys and confirms the popup a correction opens.
fn key_result<R: Federation>(app: &mut App<R>, k: &Keymap, key: &str) {
    press_keys(app, k, key);
    if matches!(app.popup, Some(Popup::Confirm { .. })) {
        press_keys(app, k, "enter");
    }
}

/// Creates the event, enters the players, pairs and keys five rounds; returns its index.
fn create_and_key<R: Federation>(app: &mut App<R>, k: &Keymap, e: &Keyed) -> usize {
    press_keys(app, k, "alt-2 ctrl-n");
    assert!(matches!(app.popup, Some(Popup::Form(_))), "the event form");
    for (field, text) in [e.name, e.id, e.start, e.end].into_iter().enumerate() {
        if field > 0 {
            press_keys(app, k, "enter");
        }
        type_text(app, k, text);
    }
    // Time control, abroad, age limit, pairing, play-off as proposed.
    press_keys(app, k, "enter enter enter enter enter");
    if let Some(received) = e.received {
        press_keys(app, k, "enter");
        type_text(app, k, received);
    }
    press_keys(app, k, "enter");
    assert!(app.popup.is_none(), "{:?}", app.status);
    let event = app
        .desk
        .book()
        .live_event(e.id)
        .expect("the event is stored");
    assert_eq!(app.tournaments.open, Some(event), "it opens for entry");
    for id in e.entrants {
        press_keys(app, k, "ctrl-p");
        type_text(app, k, id);
        press_keys(app, k, "enter");
    }
    assert_eq!(app.desk.book().events[event].participants.len(), 6);
    // Before any pairing or result, the standings show each entrant's rating going in: his
    // current rating on the event's list (this event is the newest).
    let book = app.desk.book();
    let list = app
        .desk
        .rulebook()
        .entry_list(&book.events[event], &book.events)
        .expect("the list of its time control");
    let shown = text(app, 160, 48);
    for s in app.standings(event).iter() {
        let now = app.rating_of(app.ratings(s.player)[list].1.as_deref());
        assert_eq!(s.entry, now, "{}", book.players[s.player].id);
        if let Some(rating) = now {
            let row = shown
                .lines()
                .find(|l| l.contains(&*app.name(s.player)))
                .expect("his row");
            assert!(row.contains(&rating.to_string()), "{row}");
        }
    }
    for (r, pairs) in berger(6).into_iter().take(5).enumerate() {
        press_keys(app, k, "p");
        for (w, b) in pairs {
            type_text(app, k, &format!("{w} {b}"));
            press_keys(app, k, "enter");
        }
        press_keys(app, k, "esc");
        for b in 0..3 {
            key_result(app, k, result_key(r + 1, b));
        }
        press_keys(app, k, "right");
    }
    let games = &app.desk.book().events[event].games;
    assert_eq!(games.len(), 15);
    assert!(games.iter().all(|g| g.result.is_some()));
    event
}

/// Corrects round 1, board 1 (to the other side winning), checks, undoes, checks again.
fn correct_and_undo<R: Federation>(
    app: &mut App<R>,
    k: &Keymap,
    event: usize,
    check: &dyn Fn(&App<R>),
) {
    press_keys(app, k, "left left left left left");
    assert_eq!(app.tournaments.round, 1);
    let g = app.boards(event, 1)[0];
    let before = app.desk.book().events[event].games[g].result;
    let other = if before == Some(GameResult::WHITE_WINS) {
        "0"
    } else {
        "1"
    };
    press_keys(app, k, other);
    assert!(
        matches!(app.popup, Some(Popup::Confirm { .. })),
        "a correction asks first"
    );
    press_keys(app, k, "enter");
    let after = app.desk.book().events[event].games[g].result;
    assert_ne!(after, before, "corrected");
    check(app);
    press_keys(app, k, "ctrl-z enter");
    assert_eq!(
        app.desk.book().events[event].games[g].result,
        before,
        "{:?}",
        app.status
    );
    check(app);
}

/// `ratedesk rate` on the book as `export events` writes it.
fn rated<R: Federation>(app: &App<R>) -> Value {
    let all = app.desk.active_players();
    let input = ratedesk::json::write_input(app.desk.rulebook(), app.desk.book(), None, &all);
    ratedesk::app::import::json::rate(&input.to_string()).expect("rate")
}

fn find<'a>(rows: &'a Value, key: &str, value: &str) -> &'a Value {
    rows.as_array()
        .into_iter()
        .flatten()
        .find(|r| r[key] == value)
        .unwrap_or(&Value::Null)
}

/// A JSON number that is a multiple of 0.01, in hundredths.
fn hundredths(v: &Value) -> Option<i64> {
    v.as_f64().map(|x| (x * 100.0).round() as i64)
}

/// Every entrant's old, this event's change, and the new rating of the period the event falls
/// in, as the screen has them, against `rate`'s periods and event rows.
fn check_period<R: Federation>(app: &App<R>, event: usize, list: &str) {
    let out = rated(app);
    let book = app.desk.book();
    let ev = &book.events[event];
    let periods = app.event_periods(event);
    assert!(!periods.is_empty(), "the event is rated");
    for period in &periods {
        let entries = app.period_entries(event, period);
        let name = period.dates.published.to_string();
        let published = find(&out["periods"], "period", &name);
        assert!(!published.is_null(), "rate publishes period {name}");
        let event_rows = &find(&out["events"], "id", &ev.id);
        // isl gives the event's rows per part (period); tsf per event.
        let part = if event_rows["parts"].is_array() {
            find(&event_rows["parts"], "period", &name)["players"].clone()
        } else {
            event_rows["players"].clone()
        };
        assert_eq!(
            entries.len(),
            published["players"].as_array().map_or(0, |a| a.len()),
            "every player the period publishes, and no other ({name})"
        );
        for (&p, entry) in entries.iter() {
            let id = book.players[p].id.as_str();
            let row = &find(&published["players"], "id", id)[list];
            assert_eq!(
                entry.new.map(i64::from),
                row["new"].as_i64(),
                "{id}: the new rating the list publishes ({name})"
            );
            assert_eq!(
                entry.old.map(i64::from),
                find(&part, "id", id)["old"].as_i64(),
                "{id}"
            );
            assert_eq!(
                entry.event_change,
                hundredths(&find(&part, "id", id)["change"]),
                "{id}: this event's change"
            );
            assert_eq!(
                entry.period_change,
                hundredths(&row["change"]),
                "{id}: the period's change so far"
            );
        }
    }
}

/// Every entrant's new rating in the standings against `rate`'s rows of the event.
fn check_event(app: &App<Ssl>, event: usize) {
    let out = rated(app);
    let book = app.desk.book();
    let rows = &find(&out["events"], "id", &book.events[event].id)["players"];
    let standings = app.standings(event);
    assert_eq!(standings.len(), 6);
    for s in standings.iter() {
        let id = book.players[s.player].id.as_str();
        let row = find(rows, "id", id);
        assert_eq!(
            s.rating.as_ref().map(|r| i64::from(r.new)),
            row["new"].as_i64(),
            "{id}"
        );
        assert_eq!(
            s.rating.as_ref().and_then(|r| r.old).map(i64::from),
            row["old"].as_i64(),
            "{id}"
        );
    }
}

fn open<R: Federation>(dir: &Path, rulebook: R, book: Book<R>) -> App<R> {
    crate::screen::fix_the_day();
    let mut desk = Desk::open(dir, rulebook).expect("open");
    desk.apply(Edit::import_new(book)).expect("import");
    let mut app = App::new(desk);
    // The date the card's K and the third tab are taken on: fixed, so the snapshots are.
    app.titles.as_of = Some(d("2026-07-01"));
    app
}

/// Draws every tab at both sizes: players, a card, the open event, the third tab's views.
fn snapshots<R: Federation>(app: &mut App<R>, k: &Keymap, code: &str, card_of: &str) {
    let both = |app: &App<R>, what: &str| {
        for (w, h) in [(80, 24), (160, 48)] {
            insta::assert_snapshot!(format!("{code}_{what}_{w}x{h}"), text(app, w, h));
        }
    };
    // The event as keyed: standings with the period's running totals.
    assert_eq!(app.tab, Tab::Tournaments);
    both(app, "event");
    press_keys(app, k, "tab v");
    both(app, "report");
    press_keys(app, k, "v tab esc");
    both(app, "events");
    press_keys(app, k, "alt-1");
    both(app, "players");
    type_text(app, k, card_of);
    press_keys(app, k, "enter");
    assert!(app.players.card.is_some());
    both(app, "card");
    press_keys(app, k, "right");
    both(app, "card_events");
    press_keys(app, k, "alt-3");
    let views = app.desk.rulebook().views().len();
    for view in 0..views {
        both(app, &format!("third_tab_{view}"));
        press_keys(app, k, "right");
    }
    // The help names the tab as the rulebook does, and offers a title's confirmation only
    // where the rulebook awards titles.
    press_keys(app, k, "f1");
    let help = text(app, 160, 48);
    let third = format!("the {} tab", app.desk.rulebook().third_tab());
    assert!(help.contains(&third), "{help}");
    assert_eq!(
        help.contains("confirm the selected title"),
        app.desk.rulebook().awards_titles(),
        "{help}"
    );
    press_keys(app, k, "esc");
}

#[test]
fn ssl_create_key_correct_undo_against_rate_and_every_tab() {
    let dir = tempfile::tempdir().expect("tempdir");
    let selo = |rating, games| {
        Some(SslState {
            rating: Some(rating),
            games,
            normal_games: games,
            ..SslState::default()
        })
    };
    let players = vec![
        (
            player("FIN1", "Järvinen, Aino", "1995-04-02", true),
            selo(1950, 105),
        ),
        (
            player("FIN2", "Könönen, Onni", "1980-01-10", false),
            selo(2010, 300),
        ),
        (
            player("FIN3", "Mäkelä, Väinö", "2008-06-30", false),
            selo(1650, 20),
        ),
        (
            player("FIN4", "Åberg, Säde", "1970-12-24", true),
            selo(1750, 60),
        ),
        (player("FIN5", "Pöllänen, Eero", "1990-03-03", false), None),
        (
            player("FIN6", "Söderström, Ilmari", "1985-05-05", false),
            selo(1720, 9),
        ),
        (
            player("FIN7", "Ylönen, Sisu", "2000-07-07", false),
            selo(1580, 40),
        ),
        (
            player("FIN8", "Hämäläinen, Päivi", "1975-08-08", true),
            selo(1780, 200),
        ),
    ];
    let book = base::<Ssl>(players, 2, ("2025-autumn", "2025-10-17", "2025-10-19"));
    let mut app = open(dir.path(), Ssl, book);
    let k = keys();
    let event = create_and_key(
        &mut app,
        &k,
        &Keyed {
            name: "Kevät Open",
            id: "kevat-open",
            start: "2026-03-07",
            end: "2026-03-08",
            received: None,
            // Far from every title: a correction touches no award (keeping one a correction
            // would take away is an edit of its own, which undo would take back first).
            entrants: ["FIN3", "FIN4", "FIN5", "FIN6", "FIN7", "FIN8"],
        },
    );
    check_event(&app, event);
    correct_and_undo(&mut app, &k, event, &|app| check_event(app, event));
}

#[test]
fn isl_create_key_correct_undo_against_rate_and_every_tab() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rated = |rating, games| Some(IslState::rated(rating, games, false));
    let players = vec![
        (
            player("ISL1", "Þórhallsdóttir, Guðrún", "1990-02-11", true),
            rated(2395, 350),
        ),
        (
            player("ISL2", "Ævarsson, Sæþór", "1985-09-30", false),
            rated(2410, 500),
        ),
        (
            player("ISL3", "Guðmundsson, Jón", "1978-05-17", false),
            rated(1850, 120),
        ),
        (
            player("ISL4", "Ólafsdóttir, Ásdís", "2008-03-01", true),
            rated(1720, 40),
        ),
        (
            player("ISL5", "Björnsson, Örn", "2012-11-05", false),
            Some(IslState::Provisional(Provisional {
                games: 2,
                opponents_sum: 3400,
                score: 1,
            })),
        ),
        (
            player("ISL6", "Sigurðardóttir, Þóra", "1999-07-14", true),
            rated(2050, 18),
        ),
        (player("ISL7", "Einarsson, Ýmir", "2013-01-20", false), None),
        (
            player("ISL8", "Hjartarson, Davíð", "1970-10-10", false),
            rated(1600, 210),
        ),
        (
            player("ISL9", "Friðriksdóttir, Æsa", "2014-04-04", true),
            Some(IslState::Provisional(Provisional {
                games: 3,
                opponents_sum: 4800,
                score: 2,
            })),
        ),
    ];
    let book = base::<Isl>(players, 1, ("2025-haustmot", "2025-10-10", "2025-10-12"));
    let mut app = open(dir.path(), Isl, book);
    let k = keys();
    // Played in the period that ends on 1 March, received on 3 March: too late for it.
    let event = create_and_key(
        &mut app,
        &k,
        &Keyed {
            name: "Skákþing Reykjavíkur",
            id: "2026-skakthing",
            start: "2026-02-20",
            end: "2026-02-22",
            received: Some("2026-03-03"),
            entrants: ["ISL1", "ISL3", "ISL4", "ISL5", "ISL7", "ISL8"],
        },
    );
    let periods = app.event_periods(event);
    assert_eq!(periods.len(), 1);
    assert_eq!(periods[0].dates.published, d("2026-06-01"));
    assert_eq!(
        periods[0].late.map(|l| l.published),
        Some(d("2026-03-01")),
        "late for the March list"
    );
    check_period(&app, event, "standard");
    correct_and_undo(&mut app, &k, event, &|app| {
        check_period(app, event, "standard")
    });
    // Einarsson's first 5 games against rated players, 1 point and more: the June list gives
    // his initial rating.
    let einarsson = 6;
    let entries = app.period_entries(event, &periods[0]);
    assert!(entries[&einarsson].old.is_none() && entries[&einarsson].new.is_some());
    snapshots(&mut app, &k, "isl", "ISL1");
}

#[test]
fn tsf_create_key_correct_undo_against_rate_and_every_tab() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rated = |rating, games| Some(TsfState::Rated { rating, games });
    let archive = |performance, games| {
        Some(TsfState::Unrated {
            performances: vec![Archived {
                performance,
                games,
                event: Some("2025-izmir".into()),
            }]
            .into(),
        })
    };
    let players = vec![
        (
            player("TUR1", "Yılmaz, İlkay", "1992-02-02", false),
            rated(2010, 80),
        ),
        (
            player("TUR2", "Şahin, Çağrı", "2001-03-03", false),
            rated(1598, 40),
        ),
        (
            player("TUR3", "Öztürk, Gülşen", "1988-04-04", true),
            rated(1755, 40),
        ),
        (
            player("TUR4", "Işık, Barış", "2010-05-05", false),
            archive(1450, 3),
        ),
        (
            player("TUR5", "Doğan, Şule", "2011-06-06", true),
            archive(1380, 5),
        ),
        (
            player("TUR6", "Çelik, Ümit", "1979-07-07", false),
            rated(1420, 150),
        ),
        (player("TUR7", "Güneş, Ekin", "2012-08-08", true), None),
        (
            player("TUR8", "Ağaoğlu, Yiğit", "1983-09-09", false),
            rated(2405, 300),
        ),
        (
            player("TUR9", "İnce, Sıla", "2013-10-10", true),
            archive(1500, 4),
        ),
    ];
    let book = base::<Tsf>(players, 3, ("2025-izmir", "2025-11-14", "2025-11-16"));
    let mut app = open(dir.path(), Tsf, book);
    let k = keys();
    // Ended on 22 April, received on the 27th: after the 25th, rated with the May list.
    let event = create_and_key(
        &mut app,
        &k,
        &Keyed {
            name: "İstanbul Açık",
            id: "2026-istanbul",
            start: "2026-04-20",
            end: "2026-04-22",
            received: Some("2026-04-27"),
            entrants: ["TUR1", "TUR2", "TUR3", "TUR4", "TUR5", "TUR7"],
        },
    );
    let periods = app.event_periods(event);
    assert_eq!(periods.len(), 1);
    assert_eq!(periods[0].dates.published, d("2026-06-01"));
    assert_eq!(periods[0].dates.rated_with, d("2026-05-01"));
    assert_eq!(periods[0].late.map(|l| l.published), Some(d("2026-05-01")));
    check_period(&app, event, "standard");
    correct_and_undo(&mut app, &k, event, &|app| {
        check_period(app, event, "standard")
    });
    snapshots(&mut app, &k, "tsf", "TUR4");
    // An event that will not be rated says why in its header: İzmir, were it held abroad
    // (KAPSAM).
    let izmir = app
        .desk
        .book()
        .events
        .iter()
        .position(|e| e.id == "2025-izmir")
        .expect("izmir");
    app.open_event(izmir);
    assert!(!text(&app, 160, 48).contains("not rated"));
    let details = Event {
        abroad: true,
        ..app.desk.book().events[izmir].clone()
    };
    app.desk
        .apply(Edit::UpdateEvent {
            event: izmir,
            details,
        })
        .expect("abroad");
    let screen = text(&app, 160, 48);
    assert!(screen.contains("not rated: held abroad"), "{screen}");
}

/// A rulebook's demo federation written through the desk, year by year: stored results equal a
/// fresh calculation, and every tab draws.
fn demo_opens<R: Federation>(rulebook: R) {
    let dir = tempfile::tempdir().expect("tempdir");
    crate::screen::fix_the_day();
    let mut desk = Desk::open(dir.path(), rulebook.clone()).expect("open");
    let params = ratedesk::demo::Params {
        players: 300,
        years: 2,
        opens_per_year: Some(6),
        ..ratedesk::demo::Params::demo()
    };
    let (book, years) = rulebook.demo(&params).expect("a demo");
    desk.import_in_parts(book, &years).expect("import");
    assert_eq!(desk.check(), Vec::<String>::new());
    let mut app = App::new(desk);
    let k = keys();
    for tab in ["alt-1", "alt-2 enter", "alt-3", "right"] {
        press_keys(&mut app, &k, tab);
        assert!(!text(&app, 80, 24).is_empty());
    }
}

#[test]
fn the_icelandic_and_turkish_demos_rate_as_from_scratch_and_draw() {
    demo_opens(Isl);
    demo_opens(Tsf);
}

#[test]
fn iceland_writes_names_first_name_first_and_lists_them_by_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rated = |rating| Some(IslState::rated(rating, 100, false));
    let players = vec![
        (
            player("ISL1", "Þorsteinsson, Guðmundur", "1980-01-01", false),
            rated(2000),
        ),
        (
            player("ISL2", "Þorsteinsson, Gunnar", "1981-01-01", false),
            rated(1990),
        ),
        (
            player("ISL3", "Þorsteinsdóttir, Guðrún", "1982-01-01", true),
            rated(1980),
        ),
        (
            player("ISL4", "Arnarson, Ari", "1983-01-01", false),
            rated(1970),
        ),
        (
            player("ISL5", "Ásgeirsdóttir, Anna", "1984-01-01", true),
            rated(1960),
        ),
        (
            player("ISL6", "Björnsson, Örn", "1985-01-01", false),
            rated(1950),
        ),
    ];
    let book = base::<Isl>(players, 1, ("2025-haustmot", "2025-10-10", "2025-10-12"));
    let mut app = open(dir.path(), Isl, book);
    let k = keys();
    // The Players tab: by first name, in the Icelandic alphabet (ö last).
    let screen = text(&app, 80, 24);
    let order = [
        "Anna Ásgeirsdóttir",
        "Ari Arnarson",
        "Guðmundur Þorsteinsson",
        "Guðrún Þorsteinsdóttir",
        "Gunnar Þorsteinsson",
        "Örn Björnsson",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|name| {
            screen
                .find(name)
                .unwrap_or_else(|| panic!("{name}:\n{screen}"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{screen}");
    assert!(!screen.contains("Þorsteinsson,"), "{screen}");
    // The event at 80 columns: the round pane's cut names still tell the three Þorsteins
    // children apart.
    press_keys(&mut app, &k, "alt-2");
    type_text(&mut app, &k, "haustmot");
    press_keys(&mut app, &k, "enter");
    let screen = text(&app, 80, 24);
    insta::assert_snapshot!("isl_names_event_80x24", screen);
    let round: Vec<String> = screen
        .lines()
        .filter_map(|line| line.split('│').nth(3).map(str::to_string))
        .collect();
    let round = round.join("\n");
    for first in ["Guðmund", "Guðrún", "Gunnar"] {
        assert!(
            round.contains(first),
            "{first} in the round pane:\n{screen}"
        );
    }
}

/// A Finnish event rated by the rule before 2011 says so in its header and its report; one
/// from 2011 on is rated by the 2023 rules, which its report names (the shared case of the
/// cap of 0.85 and the missing bonus, imported as an officer would).
#[test]
fn ssl_an_event_before_2011_names_its_rule_on_the_screen_and_in_its_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let desk = desk_of_shared_case(
        "ssl/ssl-before-2011-cap-085-and-no-bonus.json",
        Ssl,
        dir.path(),
    );
    let report = |id: &str| {
        ratedesk::app::publish::report(&desk, id, ratedesk::export::format::PageKind::Text)
            .expect("a report")
    };
    assert!(
        report("e2010").contains("rated on selo by the rule before 2011"),
        "{}",
        report("e2010")
    );
    assert!(report("e2011").contains("rated on selo by the 2023 rules"));
    let mut app = App::new(desk);
    for (id, shown) in [("e2010", true), ("e2011", false)] {
        app.open_event(crate::screen::event_index(&app, id));
        let screen = text(&app, 80, 24);
        assert_eq!(screen.contains("rule before 2011"), shown, "{screen}");
        app.update(ratedesk::app::workstation::action::Action::Back);
    }
}

/// A Turkish event caught by A.10.e (more than 60 days, received more than 30 days after its
/// end) says so in its header, as the other unrated events do; the same event received in time
/// is rated (the shared case, imported as an officer would).
#[test]
fn tsf_an_event_long_and_late_says_a_10_e_in_its_header() {
    let dir = tempfile::tempdir().expect("tempdir");
    let desk = desk_of_shared_case(
        "tsf/tsf-a10e-more-than-60-days-and-more-than-30-days-late.json",
        Tsf,
        dir.path(),
    );
    let mut app = App::new(desk);
    for (id, caught) in [("long-late", true), ("long-in-time", false)] {
        app.open_event(crate::screen::event_index(&app, id));
        let screen = text(&app, 120, 30);
        assert_eq!(
            screen.contains("not rated: 61 days, received 31 days after its end (A.10.e"),
            caught,
            "{screen}"
        );
        app.update(ratedesk::app::workstation::action::Action::Back);
    }
}

/// A foreign player who entered the Icelandic list says on what on his card: de1 on his FIDE
/// rating of the list in force (2100), se1 on his Swedish rating (1950); no1, who could not
/// enter, says nothing of it (the shared case, imported as an officer would).
#[test]
fn isl_the_card_says_how_a_foreign_player_entered_the_list() {
    let dir = tempfile::tempdir().expect("tempdir");
    let desk = desk_of_shared_case(
        "isl/isl-foreign-players-enter-on-fide-or-national-rating.json",
        Isl,
        dir.path(),
    );
    let mut app = App::new(desk);
    for (id, said) in [
        ("de1", Some("entered on 2100, his FIDE rating")),
        ("se1", Some("entered on 1950, his national rating")),
        ("no1", None),
    ] {
        let player = app
            .desk
            .book()
            .players
            .iter()
            .position(|p| p.id == id)
            .expect("the player");
        app.open_card(player);
        let screen = text(&app, 120, 30);
        match said {
            Some(said) => assert!(screen.contains(said), "{id}: {screen}"),
            None => assert!(!screen.contains("entered on"), "{id}: {screen}"),
        }
    }
}

/// A shared case of the rules being added (`../shared/conformance-next/NAME`), its input
/// imported into a new database as an officer would.
fn desk_of_shared_case<R: Federation>(name: &str, rulebook: R, dir: &Path) -> Desk<R> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/conformance-next")
        .join(name);
    let case = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("the shared case {}: {e}", file.display()));
    let doc: Value = serde_json::from_str(&case).expect("json");
    let book = ratedesk::json::read(&rulebook, &doc["input"].to_string())
        .expect("the case reads")
        .book;
    crate::screen::fix_the_day();
    let mut desk = Desk::open(dir, rulebook).expect("open");
    desk.apply(Edit::import_new(book)).expect("import");
    desk
}
