//! No key changes the record unseen: where letters are typed they are typed, Esc goes back to
//! where the officer came from, nothing acts while the window is too small to draw, the same
//! result keyed again stores nothing, and every change says what it did.

mod screen;

use ratedesk::app::Edit;
use ratedesk::app::state::{Focus, Pane, Place, Popup, Tab};
use ratedesk::model::GameResult;
use ratedesk::ui::{press_keys, type_text};
use screen::{app, event_index, keys, player_index, text};

#[test]
fn typing_a_name_right_after_leaving_a_card_searches_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    // Something to undo: a correction keyed and confirmed.
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    press_keys(&mut app, &k, "0 y");
    press_keys(&mut app, &k, "alt-1");
    let audit = app.desk.audit().len();
    type_text(&mut app, &k, "jarvinen");
    press_keys(&mut app, &k, "enter");
    assert_eq!(app.players.focus, Focus::Card);
    press_keys(&mut app, &k, "esc");
    assert_eq!(
        app.players.focus,
        Focus::Search,
        "Esc goes back to the search box"
    );
    assert_eq!(app.players.query, "jarvinen", "as it was left");
    for _ in 0.."jarvinen".len() {
        press_keys(&mut app, &k, "backspace");
    }
    type_text(&mut app, &k, "uusitalo iq 12");
    assert_eq!(
        app.players.query, "uusitalo iq 12",
        "every letter went to the search"
    );
    assert_eq!(
        app.desk.audit().len(),
        audit,
        "nothing was undone or stored"
    );
    assert!(app.popup.is_none(), "no import form opened");
    assert_eq!(app.tab, Tab::Players);
    assert!(!app.quit);
    let screen = text(&app, &k, 80, 24);
    assert!(screen.contains("uusitalo iq 12▏"), "{screen}");
}

#[test]
fn a_name_typed_right_after_leaving_a_card_starts_a_new_search() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    type_text(&mut app, &k, "jarvinen");
    press_keys(&mut app, &k, "enter esc");
    assert_eq!(
        app.players.query, "jarvinen",
        "the query that found him, shown"
    );
    type_text(&mut app, &k, "virtanen");
    assert_eq!(
        app.players.query, "virtanen",
        "a new name, not more of the old"
    );
    let found = &app.desk.book().players[app.players.results[0]].name;
    assert!(found.starts_with("Virtanen"), "{found}");
    // A backspace first keeps the query to work on, and so does a move.
    press_keys(&mut app, &k, "enter esc backspace");
    assert_eq!(app.players.query, "virtane");
    type_text(&mut app, &k, "n");
    press_keys(&mut app, &k, "enter esc down");
    type_text(&mut app, &k, " l");
    assert_eq!(app.players.query, "virtanen l");
}

#[test]
fn undo_is_never_a_plain_letter_where_letters_are_typed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    press_keys(&mut app, &k, "0 y");
    let audit = app.desk.audit().len();
    // On a card (no text box) `u` is nothing either; alt-u undoes, and says so.
    press_keys(&mut app, &k, "alt-1");
    type_text(&mut app, &k, "aho");
    press_keys(&mut app, &k, "enter u");
    assert_eq!(app.desk.audit().len(), audit);
    press_keys(&mut app, &k, "alt-u");
    assert_eq!(app.desk.audit().len(), audit + 1);
    let said = app.status.as_ref().expect("a status").text.clone();
    assert!(said.starts_with("undo: result 2025-hki-open"), "{said}");
    // Ctrl-Z suspends (as in every terminal program), never undoes.
    press_keys(&mut app, &k, "ctrl-z");
    assert!(app.suspend);
    assert_eq!(app.desk.audit().len(), audit + 1);
}

#[test]
fn esc_goes_back_the_way_the_officer_came() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let aino = player_index(&app, "Järvinen, Aino");
    type_text(&mut app, &k, "jarvinen");
    press_keys(&mut app, &k, "enter");
    // Her newest Helsinki game, then its event: she is marked there.
    press_keys(&mut app, &k, "down down down enter");
    let open = event_index(&app, "2025-hki-open");
    assert_eq!(app.tournaments.open, Some(open));
    assert_eq!(app.tournaments.mark, Some(aino));
    let row = app.standings(open)[app.tournaments.row].player;
    assert_eq!(row, aino, "the standings' cursor is on her");
    let games = &app.desk.book().events[open].games;
    assert_eq!(
        app.tournaments.round, 5,
        "the round of the game chosen on the card"
    );
    let board = app.boards(open, 5)[app.tournaments.board];
    assert!(games[board].white == aino || games[board].black == Some(aino));
    // Back to her card, then to the search.
    press_keys(&mut app, &k, "esc");
    assert_eq!(app.tab, Tab::Players);
    assert_eq!(app.players.card, Some(aino));
    assert_eq!(app.players.card_row, 3, "where the cursor was");
    press_keys(&mut app, &k, "esc");
    assert_eq!(app.here(), Place::Search);
    // From the Titles tab: Enter opens the card, Esc returns to the tab.
    press_keys(&mut app, &k, "alt-3 down enter");
    assert_eq!(app.tab, Tab::Players);
    assert!(
        app.players.card.is_some(),
        "the Titles tab's Enter opens the card"
    );
    press_keys(&mut app, &k, "esc");
    assert_eq!(app.tab, Tab::Titles);
    assert_eq!(app.titles.selected, 1);
    // An event opened from the list goes back to the list, its filter holding the typing.
    press_keys(&mut app, &k, "alt-2 enter");
    assert!(app.tournaments.open.is_some());
    press_keys(&mut app, &k, "esc");
    assert_eq!(app.here(), Place::Events);
}

#[test]
fn nothing_but_quit_and_help_acts_while_the_window_is_too_small() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    let audit = app.desk.audit().len();
    app.resize(60, 20);
    let screen = text(&app, &k, 60, 20);
    assert!(screen.contains("Nothing acts"), "{screen}");
    press_keys(&mut app, &k, "= enter 1 y 0 enter u alt-u");
    assert_eq!(app.desk.audit().len(), audit, "nothing stored unseen");
    assert!(app.popup.is_none(), "no preview opened unseen");
    assert_eq!(app.tournaments.board, 0, "not even the cursor moved");
    press_keys(&mut app, &k, "f1");
    assert!(matches!(app.popup, Some(Popup::Help { .. })), "help acts");
    press_keys(&mut app, &k, "f1");
    assert!(app.popup.is_none());
    app.resize(80, 24);
    press_keys(&mut app, &k, "0");
    assert!(
        matches!(app.popup, Some(Popup::Confirm { .. })),
        "drawn again: keys act"
    );
    press_keys(&mut app, &k, "n");
    app.resize(79, 40);
    press_keys(&mut app, &k, "ctrl-c");
    assert!(app.quit, "quit acts");
}

#[test]
fn the_same_result_keyed_again_stores_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    let games = &app.desk.book().events[open].games;
    let board = games[app.boards(open, 1)[0]].clone();
    let key = match board.result {
        Some(GameResult::WHITE_WINS) => "1",
        Some(GameResult::BLACK_WINS) => "0",
        Some(GameResult::DRAW) => "=",
        other => panic!("board 1 has {other:?}"),
    };
    let audit = app.desk.audit().len();
    press_keys(&mut app, &k, key);
    assert!(app.popup.is_none(), "no correction to confirm");
    assert_eq!(app.desk.audit().len(), audit, "no audited no-op edit");
    assert_eq!(
        app.tournaments.board, 1,
        "the cursor moves on as after any key"
    );
    let said = &app.status.as_ref().expect("status").text;
    assert!(said.contains("nothing to change"), "{said}");
    // The same through the desk (the command line's path): nothing stored, no undo step.
    let same = Edit::SetResult {
        event: open,
        round: 1,
        board: board.board,
        result: board.result,
    };
    app.desk.apply(same).expect("applies");
    assert_eq!(app.desk.audit().len(), audit);
    let player = board.white;
    let info = app.desk.book().players[player].clone();
    app.desk
        .apply(Edit::UpdatePlayer { player, info })
        .expect("applies");
    assert_eq!(app.desk.audit().len(), audit, "a player saved unchanged");
}

#[test]
fn every_change_says_what_it_did() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let said = |app: &ratedesk::app::state::App<_>| {
        app.status
            .as_ref()
            .map(|s| s.text.clone())
            .unwrap_or_default()
    };
    press_keys(&mut app, &k, "alt-2 ctrl-n");
    type_text(&mut app, &k, "Kevät Open");
    press_keys(&mut app, &k, "enter enter");
    type_text(&mut app, &k, "7.3.2026");
    press_keys(&mut app, &k, "ctrl-s");
    assert!(said(&app).starts_with("saved: add event"), "{}", said(&app));
    for name in ["järvinen", "könönen"] {
        press_keys(&mut app, &k, "a");
        type_text(&mut app, &k, name);
        press_keys(&mut app, &k, "enter");
        assert!(said(&app).contains("entered in"), "{}", said(&app));
    }
    press_keys(&mut app, &k, "p");
    type_text(&mut app, &k, "1 2");
    press_keys(&mut app, &k, "enter");
    assert!(said(&app).starts_with("saved: pair"), "{}", said(&app));
    press_keys(&mut app, &k, "esc");
    assert_eq!(
        app.tournaments.board, 0,
        "after pairing the cursor is on board 1"
    );
    press_keys(&mut app, &k, "1");
    assert!(said(&app).starts_with("saved: result"), "{}", said(&app));
    press_keys(&mut app, &k, "u");
    assert!(said(&app).starts_with("undo: result"), "{}", said(&app));
    press_keys(&mut app, &k, "ctrl-r");
    assert!(said(&app).starts_with("redo: result"), "{}", said(&app));
}

#[test]
fn results_are_keyed_only_while_the_round_has_the_focus() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    let audit = app.desk.audit().len();
    press_keys(&mut app, &k, "tab");
    assert_eq!(app.tournaments.pane, Pane::Table);
    press_keys(&mut app, &k, "0 1 =");
    assert!(app.popup.is_none());
    assert_eq!(app.desk.audit().len(), audit);
    assert!(app.status.as_ref().is_some_and(|s| s.error));
    press_keys(&mut app, &k, "tab");
    assert_eq!(app.tournaments.pane, Pane::Round);
}
