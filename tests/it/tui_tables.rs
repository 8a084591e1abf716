//! Every number true, every row reachable: tables at 80×24 show figures whole or not at all,
//! scroll to their last row and say where they are; lists are complete; the terminal's
//! abilities are respected.

use crate::screen::{app, draw, event_index, generated, keys, player_index, text};
use ratedesk::app::workstation::state::{Pane, TitlesView};
use ratedesk::model::GameResult;
use ratedesk::ui::theme::{Capabilities, Theme};
use ratedesk::ui::{press_keys, type_text};

/// Every figure of a row as the screen shows it must be one of the figures the data holds.
fn figures(line: &str) -> Vec<String> {
    line.split(|c: char| !(c.is_ascii_digit() || c == '+' || c == '-' || c == '.'))
        .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_rating_report_at_80x24_shows_every_figure_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    press_keys(&mut app, &k, "v");
    let screen = text(&app, &k, 80, 24);
    insta::assert_snapshot!("report_80x24", screen);
    // Mäkelä: 1687 → 1723, +36, performance 1843: each whole, none cut to look like another.
    let row = screen
        .lines()
        .map(|l| &l[..l.find("││").unwrap_or(l.len())])
        .find(|l| l.contains("Mäkelä, E"))
        .expect("his row");
    let shown = figures(row);
    for whole in ["1687", "1723", "+36"] {
        assert!(shown.iter().any(|f| f == whole), "{whole} in {row}");
    }
    for figure in &shown {
        assert!(
            [
                "11", "1687", "1723", "+36", "5", "4", "3.12", "1843", "1983"
            ]
            .contains(&figure.as_str()),
            "{figure} is not a figure of his: {row}"
        );
    }
    press_keys(&mut app, &k, "v");
    insta::assert_snapshot!("crosstable_80x24", text(&app, &k, 80, 24));
    insta::assert_snapshot!("crosstable_100x30", text(&app, &k, 100, 30));
}

#[test]
fn standings_and_the_crosstable_scroll_to_the_last_player() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    press_keys(&mut app, &k, "tab end");
    assert_eq!(app.tournaments.pane, Pane::Table);
    assert_eq!(app.tournaments.row, 21);
    let screen = text(&app, &k, 80, 24);
    assert!(screen.contains("row 22 of 22"), "{screen}");
    let last = &app.desk.book().players[app.standings(open)[21].player].name;
    assert!(
        screen.contains(last.as_str()),
        "the last player is in view: {screen}"
    );
    insta::assert_snapshot!("standings_scrolled_80x24", screen);
    press_keys(&mut app, &k, "home");
    assert_eq!(app.tournaments.row, 0);
    press_keys(&mut app, &k, "pagedown");
    assert_eq!(app.tournaments.row, app.page());
    // Enter on a row opens that player's card.
    press_keys(&mut app, &k, "enter");
    assert!(app.players.card.is_some());
    // The vim keymap's g g / G reach both ends too.
    let vim = ratedesk::ui::keymap::Keymap::load(Some("vim"), None).expect("vim");
    press_keys(&mut app, &vim, "esc G");
    assert_eq!(app.tournaments.row, 21);
    press_keys(&mut app, &vim, "g g");
    assert_eq!(app.tournaments.row, 0);
    // In the round pane Home/End go to the first and last board.
    press_keys(&mut app, &k, "tab end");
    assert_eq!(app.tournaments.board, app.boards(open, 1).len() - 1);
    press_keys(&mut app, &k, "home");
    assert_eq!(app.tournaments.board, 0);
}

#[test]
fn the_player_list_is_complete_and_counts_read_right() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = generated(dir.path(), 400);
    let k = keys();
    let all = app.desk.book().players.len();
    assert!(all > 200);
    assert_eq!(app.players.results.len(), all, "no cap at 200");
    press_keys(&mut app, &k, "end");
    assert_eq!(app.players.selected, all - 1);
    let screen = text(&app, &k, 80, 24);
    assert!(
        screen.contains(&format!("{all} players · row {all} of {all}")),
        "{screen}"
    );
    let last = &app.desk.book().players[app.players.results[all - 1]].name;
    assert!(
        screen.contains(last.as_str()),
        "the last one is reachable: {screen}"
    );
    // One match: "1 player".
    let id = app.desk.book().players[0].id.clone();
    type_text(&mut app, &k, &id);
    assert_eq!(app.players.results.first(), Some(&0));
    type_text(&mut app, &k, " zzzz");
    press_keys(
        &mut app,
        &k,
        "backspace backspace backspace backspace backspace",
    );
    let screen = text(&app, &k, 80, 24);
    let found = app.players.results.len();
    if found == 1 {
        assert!(screen.contains("1 player found"), "{screen}");
    }
    assert!(!screen.contains("1 players"), "{screen}");
}

#[test]
fn a_new_event_says_it_is_not_paired_yet() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    press_keys(&mut app, &k, "alt-2 ctrl-n");
    type_text(&mut app, &k, "Talvi");
    press_keys(&mut app, &k, "enter enter");
    type_text(&mut app, &k, "2026-01-10");
    press_keys(&mut app, &k, "ctrl-s");
    let screen = text(&app, &k, 80, 24);
    assert!(screen.contains("Round 1 · not paired yet"), "{screen}");
    assert!(!screen.contains("of 0"), "{screen}");
}

/// A league's round names its match in the event's header, from the clubs its players play
/// for; a round of two matches says so, and one with a player without a club says nothing.
#[test]
fn a_league_round_names_its_match_in_the_header() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    // Järvinen and Salo play for HSK, Virtanen and Ylönen for SSt.
    let event = crate::screen::new_event(
        &mut app,
        &k,
        "Liiga",
        "2026-01-10",
        &["järvinen", "virtanen", "salo, k", "ylönen"],
    );
    press_keys(&mut app, &k, "p");
    type_text(&mut app, &k, "1 2");
    press_keys(&mut app, &k, "enter");
    type_text(&mut app, &k, "4 3");
    press_keys(&mut app, &k, "enter esc");
    let header = |app: &ratedesk::app::workstation::state::App<_>| {
        text(app, &k, 80, 24)
            .lines()
            .nth(1)
            .expect("the header")
            .to_string()
    };
    assert!(!header(&app).contains("HSK"), "a swiss names no match");
    let mut details = app.desk.book().events[event].clone();
    details.pairing = ratedesk::model::TEAM_PAIRING.into();
    app.desk
        .apply(ratedesk::app::Edit::UpdateEvent { event, details })
        .expect("a league");
    assert!(
        header(&app).contains("round 1: HSK – SSt"),
        "{}",
        header(&app)
    );
    // A second pairing of clubs in the round: two matches.
    let salo = player_index(&app, "Salo, Kerttu");
    let mut info = app.desk.book().players[salo].clone();
    info.club = Some("TuS".into());
    app.desk
        .apply(ratedesk::app::Edit::UpdatePlayer {
            player: salo,
            info: info.clone(),
        })
        .expect("another club");
    assert!(
        header(&app).contains("round 1: 2 matches"),
        "{}",
        header(&app)
    );
    // A player without a club: the match cannot be told.
    info.club = None;
    app.desk
        .apply(ratedesk::app::Edit::UpdatePlayer { player: salo, info })
        .expect("no club");
    assert!(!header(&app).contains("round 1:"), "{}", header(&app));
}

#[test]
fn a_half_point_bye_reads_as_a_half_in_the_round_pane() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    crate::screen::new_event(
        &mut app,
        &k,
        "Bye Cup",
        "2026-01-10",
        &["järvinen", "könönen", "salo, k"],
    );
    press_keys(&mut app, &k, "p");
    type_text(&mut app, &k, "1 2");
    press_keys(&mut app, &k, "enter");
    type_text(&mut app, &k, "3");
    press_keys(&mut app, &k, "enter esc");
    // The bye as a requested half point (as a TRF's H brings it).
    let event = event_index(&app, "bye-cup");
    let bye = app.desk.book().events[event]
        .games
        .iter()
        .find(|g| g.black().is_none())
        .expect("the bye")
        .clone();
    app.desk
        .apply(ratedesk::app::Edit::SetResult {
            event,
            round: 1,
            board: bye.board,
            result: Some(GameResult::unplayed(1, 0)),
        })
        .expect("half-point bye");
    let screen = text(&app, &k, 80, 24);
    let row = screen
        .lines()
        .find(|l| l.contains("bye"))
        .expect("the bye's row");
    assert!(row.contains(" ½ "), "{row}");
    assert!(!row.contains("++") && !row.contains("+-"), "{row}");
    // Keyed with `=` on the bye's board: a half-point bye, 1/2-0 as every file writes it,
    // and the status line names the player.
    app.desk
        .apply(ratedesk::app::Edit::SetResult {
            event,
            round: 1,
            board: bye.board,
            result: None,
        })
        .expect("cleared");
    app.open_event(event);
    let boards = app.boards(event, 1);
    let games = &app.desk.book().events[event].games;
    app.tournaments.board = boards
        .iter()
        .position(|&g| games[g].black().is_none())
        .expect("the bye's board");
    press_keys(&mut app, &k, "=");
    let stored = app.desk.book().events[event]
        .games
        .iter()
        .find(|g| g.black().is_none())
        .and_then(|g| g.result)
        .expect("stored");
    assert_eq!(stored.code(), "1/2-0");
    let said = &app.status.as_ref().expect("said").text;
    let name = &app.desk.book().players[bye.white()].name;
    assert!(
        said.contains(name.as_str()) && said.contains("1/2-0"),
        "{said}"
    );
}

#[test]
fn vt100_and_dumb_terminals_get_ascii_and_no_colour() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let plain = Theme::choose(Some("dark"), false)
        .0
        .for_terminal(Capabilities::from_term(Some("vt100"), None));
    type_text(&mut app, &k, "jarvinen");
    press_keys(&mut app, &k, "enter");
    let screen = draw(&app, &k, &plain, 80, 24);
    insta::assert_snapshot!("card_vt100_80x24", screen);
    for glyph in ['┌', '│', '─', '▏', '…', '½', '⠀'] {
        assert!(!screen.contains(glyph), "{glyph} on a vt100: {screen}");
    }
}

#[test]
fn the_selection_lists_hold_players_who_can_represent_finland_on_a_chosen_date() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    press_keys(&mut app, &k, "alt-3 d");
    press_keys(
        &mut app,
        &k,
        "backspace backspace backspace backspace backspace backspace",
    );
    press_keys(
        &mut app,
        &k,
        "backspace backspace backspace backspace backspace",
    );
    type_text(&mut app, &k, "31.12.2025");
    press_keys(&mut app, &k, "enter right right");
    assert_eq!(app.titles.view, TitlesView::Selection);
    assert_eq!(
        app.titles.as_of,
        chrono::NaiveDate::from_ymd_opt(2025, 12, 31)
    );
    let book = app.desk.book();
    assert!(!app.titles.selection.is_empty());
    assert!(
        app.titles
            .selection
            .iter()
            .all(|(p, _)| book.players[*p].plays_for("FIN")),
        "only players who can represent Finland"
    );
    // Lindqvist (SWE) is not listed, but his figures are still computed: his card shows them.
    let swede = player_index(&app, "Lindqvist, Oskar");
    assert!(app.titles.selection.iter().all(|(p, _)| *p != swede));
    assert!(app.card_selection(swede).is_some());
    press_keys(&mut app, &k, "right");
    assert_eq!(app.titles.view, TitlesView::Women);
    let book = app.desk.book();
    assert!(
        app.titles
            .women
            .iter()
            .all(|(p, _)| book.players[*p].plays_for("FIN")
                && book.players[*p].sex == Some(ratedesk::model::Sex::Female))
    );
    insta::assert_snapshot!("women_80x24", text(&app, &k, 80, 24));
}

/// In the terminal the selection lists are worked out between keys: the switch draws at once
/// and says how far the lists are, keys act meanwhile, and the lists come out as at once. Shown
/// again with the record unchanged, they are kept.
#[test]
fn the_selection_lists_are_worked_out_between_keys_and_kept_until_the_record_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut at_once = generated(dir.path(), 400);
    let k = keys();
    press_keys(&mut at_once, &k, "alt-3 right right");
    assert_eq!(at_once.titles.view, TitlesView::Selection);
    let expected = at_once.titles.selection.clone();
    assert!(!expected.is_empty());
    drop(at_once);
    let desk = ratedesk::app::Desk::open(dir.path(), ratedesk::rules::ssl::Ssl).expect("reopen");
    let mut app = ratedesk::app::workstation::state::App::new(desk);
    app.behind = true;
    press_keys(&mut app, &k, "alt-3 right right");
    let (done, players) = app.selection_under_way().expect("under way");
    assert!(done < players);
    let screen = text(&app, &k, 80, 24);
    assert!(
        screen.contains("Working out the selection lists: 0 of"),
        "{screen}"
    );
    // A key meanwhile acts at once (and the work goes on after it).
    press_keys(&mut app, &k, "alt-1");
    assert_eq!(app.tab, ratedesk::app::workstation::state::Tab::Players);
    while app.work_behind(Some(std::time::Duration::from_millis(1))) {}
    assert!(app.selection_under_way().is_none());
    let got: Vec<_> = app
        .titles
        .selection
        .iter()
        .map(|(p, s)| (*p, s.number_doubled))
        .collect();
    let want: Vec<_> = expected
        .iter()
        .map(|(p, s)| (*p, s.number_doubled))
        .collect();
    assert_eq!(got, want);
    // Shown again, the record unchanged: kept, nothing to work out.
    press_keys(&mut app, &k, "alt-3 left right");
    assert!(app.selection_under_way().is_none());
}
