//! The workstation driven through its action layer and drawn on ratatui's TestBackend: key
//! sequences change the state and the database as a person's keys would, and insta snapshots
//! of the screen at 80×24 and 160×48 show what the person sees.

use std::path::Path;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use ratedesk::app::workstation::state::{App, Focus, Popup, Tab};
use ratedesk::app::{Desk, Edit};
use ratedesk::model::{Event, Game, GameResult, PlayerInfo, TimeControl, player_u32};
use ratedesk::rules::ssl::{Ssl, SslState};
use ratedesk::ui::draw::render;
use ratedesk::ui::keymap::Keymap;
use ratedesk::ui::theme::Theme;
use ratedesk::ui::{press_keys, type_text};

const DEMO: &str = include_str!("../../demo/autumn-2025.json");

fn demo_desk(dir: &Path) -> Desk<Ssl> {
    crate::screen::fix_the_day();
    let mut desk = Desk::open(dir, Ssl).expect("open");
    let book = ratedesk::json::read(&Ssl, DEMO).expect("demo").book;
    desk.apply(Edit::import_new(book)).expect("import");
    let wide = PlayerInfo {
        id: "JPN1".into(),
        name: "山田, 太郎".into(),
        federation: Some("JPN".into()),
        ..PlayerInfo::default()
    };
    let seed = SslState {
        rating: Some(1850),
        games: 40,
        normal_games: 40,
        ..SslState::default()
    };
    desk.apply(Edit::AddPlayer {
        info: wide,
        seeds: vec![Some(seed), None],
        held: vec![],
    })
    .expect("player");
    desk
}

fn app(dir: &Path) -> App<Ssl> {
    App::new(demo_desk(dir))
}

fn keys() -> Keymap {
    Keymap::load(None, None).expect("default keymap")
}

fn theme() -> Theme {
    Theme::choose(Some("dark"), false).0
}

fn screen(app: &App<Ssl>, keymap: &Keymap, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("terminal");
    terminal
        .draw(|frame| render(app, &theme(), keymap, frame))
        .expect("draw");
    terminal
}

fn text(app: &App<Ssl>, keymap: &Keymap, width: u16, height: u16) -> String {
    screen(app, keymap, width, height).backend().to_string()
}

fn event_index(app: &App<Ssl>, id: &str) -> usize {
    app.desk
        .book()
        .events
        .iter()
        .position(|e| e.id == id)
        .expect("event")
}

#[test]
fn players_tab_and_search_at_both_sizes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    insta::assert_snapshot!("players_80x24", text(&app, &k, 80, 24));
    insta::assert_snapshot!("players_160x48", text(&app, &k, 160, 48));
    type_text(&mut app, &k, "jär");
    insta::assert_snapshot!("players_search_jar_80x24", text(&app, &k, 80, 24));
}

#[test]
fn three_letters_find_a_player_with_accents_folded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    type_text(&mut app, &k, "jar");
    let first = app.players.results[0];
    assert_eq!(app.desk.book().players[first].name, "Järvinen, Aino");
    press_keys(&mut app, &k, "backspace backspace backspace");
    type_text(&mut app, &k, "kon");
    let first = app.players.results[0];
    assert_eq!(app.desk.book().players[first].name, "Könönen, Onni");
}

#[test]
fn search_open_player_then_open_his_event() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    // The card shows the selection number on the selection date: fixed, so the snapshot is.
    app.titles.as_of = chrono::NaiveDate::from_ymd_opt(2025, 12, 31);
    type_text(&mut app, &k, "jarvinen");
    press_keys(&mut app, &k, "enter");
    assert_eq!(app.players.focus, Focus::Card);
    insta::assert_snapshot!("player_card_80x24", text(&app, &k, 80, 24));
    insta::assert_snapshot!("player_card_160x48", text(&app, &k, 160, 48));
    // Her newest games are in Espoo; the fourth row is her last Helsinki game.
    press_keys(&mut app, &k, "down down down enter");
    assert_eq!(app.tab, Tab::Tournaments);
    assert_eq!(
        app.tournaments.open,
        Some(event_index(&app, "2025-hki-open"))
    );
    insta::assert_snapshot!("round_entry_80x24", text(&app, &k, 80, 24));
    insta::assert_snapshot!("round_entry_160x48", text(&app, &k, 160, 48));
}

#[test]
fn keyed_results_show_the_ratings_that_rate_computes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    let third = app.boards(open, 1)[2];
    let original = app.desk.book().events[open].games[third].result;
    // Round 1: boards 1–3 become 0-1, 1-0, ½-½; the cursor moves on after each key.
    // Each board had a result: every key is a correction, shown and confirmed.
    press_keys(&mut app, &k, "0 enter 1 enter = enter");
    let games = &app.desk.book().events[open].games;
    let round1: Vec<Option<GameResult>> = app
        .boards(open, 1)
        .iter()
        .take(3)
        .map(|&g| games[g].result)
        .collect();
    assert_eq!(
        round1,
        vec![
            Some(GameResult::BLACK_WINS),
            Some(GameResult::WHITE_WINS),
            Some(GameResult::DRAW)
        ]
    );
    let all = app.desk.active_players();
    let input = ratedesk::json::write_input(app.desk.rulebook(), app.desk.book(), None, &all);
    let rated = ratedesk::app::import::json::rate(&input.to_string()).expect("rate");
    let event = rated["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["id"] == "2025-hki-open")
        .expect("event");
    for s in app.standings(open).iter() {
        let id = &app.desk.book().players[s.player].id;
        let row = event["players"]
            .as_array()
            .expect("rows")
            .iter()
            .find(|r| r["id"] == id.as_str())
            .expect("row");
        assert_eq!(
            s.rating.as_ref().map(|r| i64::from(r.new)),
            row["new"].as_i64(),
            "{id}"
        );
    }
    // Undo shows the last result and takes it back on Enter.
    press_keys(&mut app, &k, "ctrl-z");
    assert!(matches!(app.popup, Some(Popup::Undo(_))), "undo asks first");
    press_keys(&mut app, &k, "enter");
    assert_eq!(app.desk.book().events[open].games[third].result, original);
}

#[test]
fn a_correction_that_cascades_asks_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    // A later selo event for the two players of round 1, board 1, so a correction cascades.
    let open = event_index(&app, "2025-hki-open");
    let first = app.desk.book().events[open].games[app.boards(open, 1)[0]].clone();
    let later = Event {
        name: "December Cup".into(),
        time_control: Some(TimeControl {
            base_seconds: 5400,
            increment_seconds: 30,
            added: vec![],
        }),
        pairing: "swiss".into(),
        games: vec![Game {
            round: 1,
            board: 1,
            white: player_u32(first.white()),
            black: first.black().map(player_u32),
            result: Some(GameResult::DRAW),
            date: None,
            received: None,
        }],
        ..Event::new(
            "2025-december",
            chrono::NaiveDate::from_ymd_opt(2025, 12, 6).expect("date"),
            chrono::NaiveDate::from_ymd_opt(2025, 12, 6).expect("date"),
        )
    };
    app.desk.apply(Edit::AddEvent(later)).expect("later event");
    let before = app.desk.audit().len();
    app.open_event(open);
    let key = if first.result == Some(GameResult::BLACK_WINS) {
        "1"
    } else {
        "0"
    };
    press_keys(&mut app, &k, key);
    assert!(
        matches!(app.popup, Some(Popup::Confirm { .. })),
        "the preview is shown first"
    );
    insta::assert_snapshot!("confirm_correction_80x24", text(&app, &k, 80, 24));
    press_keys(&mut app, &k, "n");
    assert!(app.popup.is_none());
    assert_eq!(app.desk.audit().len(), before, "cancelled: nothing stored");
    press_keys(&mut app, &k, key);
    press_keys(&mut app, &k, "enter");
    assert_eq!(app.desk.audit().len(), before + 1);
    assert!(app.desk.check().is_empty());
}

#[test]
fn tournaments_and_titles_tabs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    press_keys(&mut app, &k, "alt-2");
    insta::assert_snapshot!("tournaments_80x24", text(&app, &k, 80, 24));
    type_text(&mut app, &k, "espoo");
    assert_eq!(app.tournaments.list.len(), 1);
    press_keys(&mut app, &k, "alt-3");
    insta::assert_snapshot!("titles_80x24", text(&app, &k, 80, 24));
    insta::assert_snapshot!("titles_160x48", text(&app, &k, 160, 48));
}

#[test]
fn help_follows_the_keymap_in_force() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let vim = Keymap::load(Some("vim"), None).expect("vim");
    press_keys(&mut app, &vim, "f1");
    assert!(matches!(app.popup, Some(Popup::Help { .. })));
    insta::assert_snapshot!("help_vim_80x24", text(&app, &vim, 80, 24));
    press_keys(&mut app, &vim, "esc");
    assert!(app.popup.is_none());
}

#[test]
fn a_small_window_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = app(dir.path());
    insta::assert_snapshot!("too_small_60x20", text(&app, &keys(), 60, 20));
}

#[test]
fn wide_and_accented_names_are_laid_out_by_display_width() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    type_text(&mut app, &k, "jpn1");
    let shown = text(&app, &k, 80, 24);
    let line = shown
        .lines()
        .find(|l| l.contains("山田"))
        .expect("the wide name is shown");
    let fed_column =
        |l: &str| unicode_width::UnicodeWidthStr::width(&l[..l.find("JPN1").expect("id")]);
    let header = shown
        .lines()
        .find(|l| l.contains("Name") && l.contains("Id"))
        .expect("header");
    let header_id =
        unicode_width::UnicodeWidthStr::width(&header[..header.find("Id").expect("Id")]);
    assert_eq!(
        fed_column(line),
        header_id,
        "the id column starts at the same display column"
    );
}

#[test]
fn the_selection_is_drawn_in_the_themes_selection_colours() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    type_text(&mut app, &k, "jarvinen");
    let terminal = screen(&app, &k, 80, 24);
    let buffer = terminal.backend().buffer();
    let row = (0..24)
        .find(|&y| {
            (0..80)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
                .contains("Järvinen")
        })
        .expect("row");
    assert_eq!(buffer[(2, row)].bg, Color::Cyan);
}

#[test]
fn create_an_event_enter_players_pair_a_round_and_key_its_results() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    press_keys(&mut app, &k, "alt-2 ctrl-n");
    assert!(matches!(app.popup, Some(Popup::Form(_))));
    type_text(&mut app, &k, "Kevät Open");
    press_keys(&mut app, &k, "enter");
    type_text(&mut app, &k, "kevat-open");
    press_keys(&mut app, &k, "enter");
    type_text(&mut app, &k, "2026-03-07");
    press_keys(&mut app, &k, "enter");
    type_text(&mut app, &k, "2026-03-08");
    insta::assert_snapshot!("new_event_form_80x24", text(&app, &k, 80, 24));
    press_keys(&mut app, &k, "enter enter enter enter enter enter");
    let event = event_index(&app, "kevat-open");
    assert_eq!(
        app.tournaments.open,
        Some(event),
        "the new event opens for entry"
    );
    for name in ["järvinen", "könönen", "salo, k", "mäkelä"] {
        press_keys(&mut app, &k, "ctrl-p");
        type_text(&mut app, &k, name);
        press_keys(&mut app, &k, "enter");
    }
    assert_eq!(app.desk.book().events[event].participants.len(), 4);
    press_keys(&mut app, &k, "p");
    type_text(&mut app, &k, "1 2");
    press_keys(&mut app, &k, "enter");
    type_text(&mut app, &k, "3 4");
    press_keys(&mut app, &k, "enter");
    // Refused, and never stored: a player twice in a round, an unknown start number, himself.
    let audit = app.desk.audit().len();
    for wrong in ["1 3", "9 1", "2 2"] {
        type_text(&mut app, &k, wrong);
        press_keys(&mut app, &k, "enter");
        assert!(
            app.status.as_ref().is_some_and(|s| s.error),
            "{wrong} must be refused"
        );
    }
    assert_eq!(app.desk.audit().len(), audit);
    assert!(
        app.status
            .as_ref()
            .is_some_and(|s| s.text.contains("himself"))
    );
    press_keys(&mut app, &k, "esc up 1 =");
    let games = &app.desk.book().events[event].games;
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].result, Some(GameResult::WHITE_WINS));
    assert_eq!(games[1].result, Some(GameResult::DRAW));
    insta::assert_snapshot!("new_event_keyed_80x24", text(&app, &k, 80, 24));
    // The ratings on screen are those `ratedesk rate` computes for the same data.
    let all = app.desk.active_players();
    let input = ratedesk::json::write_input(app.desk.rulebook(), app.desk.book(), None, &all);
    let rated = ratedesk::app::import::json::rate(&input.to_string()).expect("rate");
    let rows = rated["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["id"] == "kevat-open")
        .expect("event")["players"]
        .clone();
    let standings = app.standings(event);
    assert_eq!(standings.len(), 4);
    for s in standings.iter() {
        let id = &app.desk.book().players[s.player].id;
        let row = rows
            .as_array()
            .expect("rows")
            .iter()
            .find(|r| r["id"] == id.as_str())
            .expect("row");
        assert_eq!(
            s.rating.as_ref().map(|r| i64::from(r.new)),
            row["new"].as_i64(),
            "{id}"
        );
    }
}

#[test]
fn merging_two_records_shows_the_preview_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = demo_desk(dir.path());
    // A duplicate record of Järvinen with no games.
    let info = PlayerInfo {
        id: "FIN9999".into(),
        name: "Järvinen, A.".into(),
        ..PlayerInfo::default()
    };
    desk.apply(Edit::AddPlayer {
        info,
        seeds: vec![None, None],
        held: vec![],
    })
    .expect("duplicate");
    let mut app = App::new(desk);
    let k = keys();
    type_text(&mut app, &k, "FIN9999");
    press_keys(&mut app, &k, "enter m");
    type_text(&mut app, &k, "FIN1001");
    press_keys(&mut app, &k, "enter");
    assert!(
        matches!(app.popup, Some(Popup::Confirm { .. })),
        "merge asks first"
    );
    press_keys(&mut app, &k, "enter");
    let first = app
        .desk
        .book()
        .players
        .iter()
        .position(|p| p.id == "FIN1001")
        .expect("player");
    assert_ne!(
        app.desk.status()[first],
        ratedesk::book::PlayerStatus::Active
    );
    assert!(app.desk.check().is_empty());
}

#[test]
fn titles_within_reach_and_the_selection_lists() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    press_keys(&mut app, &k, "alt-3 right");
    assert!(
        !app.reach_rows().is_empty(),
        "the demo has players near a title"
    );
    insta::assert_snapshot!("titles_reach_80x24", text(&app, &k, 80, 24));
    app.titles.as_of = chrono::NaiveDate::from_ymd_opt(2025, 12, 31);
    press_keys(&mut app, &k, "right");
    let numbers: Vec<Option<i64>> = app
        .titles
        .selection
        .iter()
        .map(|(_, s)| s.number_doubled)
        .collect();
    assert!(numbers.windows(2).all(|w| w[0] >= w[1]), "best first");
    insta::assert_snapshot!("titles_selection_80x24", text(&app, &k, 80, 24));
    insta::assert_snapshot!("titles_selection_160x48", text(&app, &k, 160, 48));
}

#[test]
fn popups_at_both_sizes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    press_keys(&mut app, &k, "f1");
    insta::assert_snapshot!("help_default_80x24", text(&app, &k, 80, 24));
    insta::assert_snapshot!("help_default_160x48", text(&app, &k, 160, 48));
    press_keys(&mut app, &k, "esc");
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    press_keys(&mut app, &k, "r");
    insta::assert_snapshot!("rare_results_80x24", text(&app, &k, 80, 24));
    press_keys(&mut app, &k, "esc a");
    type_text(&mut app, &k, "aho");
    insta::assert_snapshot!("enter_player_160x48", text(&app, &k, 160, 48));
    press_keys(&mut app, &k, "ctrl-n");
    insta::assert_snapshot!("new_player_form_80x24", text(&app, &k, 80, 24));
}

#[test]
fn an_events_report_and_crosstable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    press_keys(&mut app, &k, "v");
    insta::assert_snapshot!("event_report_160x48", text(&app, &k, 160, 48));
    press_keys(&mut app, &k, "v");
    insta::assert_snapshot!("event_crosstable_80x24", text(&app, &k, 80, 24));
    insta::assert_snapshot!("event_crosstable_160x48", text(&app, &k, 160, 48));
}

/// Both sizes of a screen.
fn both(app: &App<Ssl>, k: &Keymap, name: &str) {
    insta::assert_snapshot!(format!("{name}_both_80x24"), text(app, k, 80, 24));
    insta::assert_snapshot!(format!("{name}_both_160x48"), text(app, k, 160, 48));
}

#[test]
fn every_tab_and_popup_at_80x24_and_160x48() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    app.titles.as_of = chrono::NaiveDate::from_ymd_opt(2025, 12, 31);
    press_keys(&mut app, &k, "alt-2");
    both(&app, &k, "tournaments");
    press_keys(&mut app, &k, "ctrl-n");
    both(&app, &k, "event_form");
    press_keys(&mut app, &k, "esc");
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    press_keys(&mut app, &k, "r");
    both(&app, &k, "rare_results");
    press_keys(&mut app, &k, "esc 0");
    both(&app, &k, "correction_preview");
    press_keys(&mut app, &k, "n a");
    both(&app, &k, "enter_player");
    press_keys(&mut app, &k, "ctrl-n");
    both(&app, &k, "player_form");
    press_keys(&mut app, &k, "esc alt-3 right");
    both(&app, &k, "titles_reach");
}

#[test]
fn an_arbiters_trf_file_is_shown_then_imported_from_the_tournaments_tab() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    press_keys(&mut app, &k, "alt-2 ctrl-o");
    assert!(matches!(app.popup, Some(Popup::Form(_))));
    // A file that is not there keeps the form open and says why.
    type_text(&mut app, &k, "no-such-file.trf");
    press_keys(&mut app, &k, "enter enter enter");
    assert!(matches!(app.popup, Some(Popup::Form(_))));
    assert!(
        app.status
            .as_ref()
            .is_some_and(|s| s.error && s.text.contains("no-such-file.trf")),
        "{:?}",
        app.status
    );
    let audit = app.desk.audit().len();
    press_keys(&mut app, &k, "esc ctrl-o");
    type_text(
        &mut app,
        &k,
        "../shared/data/trf/sanichi_icu_tournament_bunratty_masters_2011.tab",
    );
    press_keys(&mut app, &k, "enter");
    type_text(&mut app, &k, "120+30");
    press_keys(&mut app, &k, "enter");
    type_text(&mut app, &k, "bunratty-2011");
    press_keys(&mut app, &k, "enter");
    let Some(Popup::Import { plan, .. }) = &app.popup else {
        panic!("the import is shown first: {:?}", app.status);
    };
    assert!(plan.head[1].contains("34 new"), "{:?}", plan.head);
    assert_eq!(
        app.desk.audit().len(),
        audit,
        "nothing is imported before y"
    );
    insta::assert_snapshot!("import_trf_80x24", text(&app, &k, 80, 24));
    press_keys(&mut app, &k, "enter");
    let event = event_index(&app, "bunratty-2011");
    assert_eq!(
        app.tournaments.open,
        Some(event),
        "the imported event opens"
    );
    let ev = &app.desk.book().events[event];
    assert_eq!(ev.participants.len(), 34);
    assert_eq!(ev.time_control.as_ref().map(|t| t.base_seconds), Some(7200));
    assert_eq!(app.desk.audit().len(), audit + 1);
}

#[test]
fn the_card_shows_the_newest_fide_list() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let player = app
        .desk
        .book()
        .players
        .iter()
        .position(|p| p.name == "Järvinen, Aino")
        .expect("the player");
    let entry = |month, standard, rapid| ratedesk::model::FideEntry {
        list_date: chrono::NaiveDate::from_ymd_opt(2025, month, 1).expect("a date"),
        standard: Some(standard),
        rapid,
        blitz: None,
    };
    for (month, standard, rapid) in [(9, 1950, None), (10, 1961, Some(1890))] {
        app.desk
            .apply(Edit::FideList {
                list_date: entry(month, 0, None).list_date,
                kinds: ratedesk::model::FideKind::ALL.to_vec(),
                entries: vec![(player, entry(month, standard, rapid))],
                source: "test".into(),
            })
            .expect("the list");
    }
    type_text(&mut app, &k, "jarvinen");
    press_keys(&mut app, &k, "enter");
    let screen = text(&app, &k, 160, 48);
    assert!(screen.contains("FIDE 1961/1890/– (2025-10)"), "{screen}");
    // A rapid-only list (per-list files): the standard rating of October still holds, shown
    // with its month.
    let rapid_only = ratedesk::model::FideEntry {
        standard: None,
        ..entry(11, 0, Some(1902))
    };
    app.desk
        .apply(Edit::FideList {
            list_date: rapid_only.list_date,
            kinds: vec![ratedesk::model::FideKind::Rapid],
            entries: vec![(player, rapid_only)],
            source: "test".into(),
        })
        .expect("the list");
    let screen = text(&app, &k, 160, 48);
    assert!(
        screen.contains("FIDE 1961 (2025-10)/1902/– (2025-11)"),
        "{screen}"
    );
}
