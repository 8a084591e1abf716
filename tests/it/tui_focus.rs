//! No key changes the record unseen: where letters are typed they are typed, Esc goes back to
//! where the officer came from, nothing acts while the window is too small to draw, the same
//! result keyed again stores nothing, and every change says what it did.

use crate::screen::{app, event_index, keys, player_index, text};
use ratedesk::app::Edit;
use ratedesk::app::workstation::state::{Focus, Pane, Place, Popup, Tab};
use ratedesk::model::GameResult;
use ratedesk::ui::{press_keys, type_text};

#[test]
fn typing_a_name_right_after_leaving_a_card_searches_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    // Something to undo: a correction keyed and confirmed.
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    press_keys(&mut app, &k, "0 enter");
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
fn undo_is_never_a_letter_and_shows_what_it_undoes_before_acting() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    press_keys(&mut app, &k, "0 enter");
    let audit = app.desk.audit().len();
    let corrected = app.desk.book().events[open].games[app.boards(open, 1)[0]].result;
    // On a card (no text box) `u` and alt-u are nothing; in round entry `u` is nothing.
    press_keys(&mut app, &k, "alt-1");
    type_text(&mut app, &k, "aho");
    press_keys(&mut app, &k, "enter u");
    assert_eq!(app.desk.audit().len(), audit);
    assert!(app.popup.is_none());
    // Ctrl-Z shows the edit — the view moves to its event, round and board — and asks.
    press_keys(&mut app, &k, "ctrl-z");
    let Some(Popup::Undo(preview)) = &app.popup else {
        panic!("undo asks first: {:?}", app.status)
    };
    assert!(
        preview.action.starts_with("result 2025-hki-open round 1"),
        "{}",
        preview.action
    );
    assert!(
        preview.lines.iter().any(|l| l.contains("round 1 board 1"))
            && preview
                .lines
                .iter()
                .any(|l| l.contains("result") && l.contains("→")),
        "{:?}",
        preview.lines
    );
    assert_eq!(app.tab, Tab::Tournaments, "the board is shown behind it");
    assert_eq!(
        (app.tournaments.open, app.tournaments.round),
        (Some(open), 1)
    );
    let screen = text(&app, &k, 80, 24);
    assert!(screen.contains("Undo this edit?"), "{screen}");
    // Esc keeps it, and the view goes back to the card.
    press_keys(&mut app, &k, "esc");
    assert_eq!(app.desk.audit().len(), audit);
    assert_eq!(app.tab, Tab::Players);
    assert!(app.players.card.is_some());
    // A letter in the popup is nothing; Enter undoes, and says so.
    press_keys(&mut app, &k, "ctrl-z y u");
    assert_eq!(app.desk.audit().len(), audit, "only Enter confirms");
    press_keys(&mut app, &k, "enter");
    assert_eq!(app.desk.audit().len(), audit + 1);
    let said = app.status.as_ref().expect("a status").text.clone();
    assert!(said.starts_with("undo: result 2025-hki-open"), "{said}");
    assert_ne!(
        app.desk.book().events[open].games[app.boards(open, 1)[0]].result,
        corrected
    );
    // F12 suspends; ctrl-z never does.
    press_keys(&mut app, &k, "f12");
    assert!(app.suspend);
}

#[test]
fn esc_and_a_quick_letter_read_as_alt_letter_are_the_two_keys_typed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    press_keys(&mut app, &k, "0 enter");
    let audit = app.desk.audit().len();
    press_keys(&mut app, &k, "alt-1");
    type_text(&mut app, &k, "aho");
    press_keys(&mut app, &k, "enter");
    assert_eq!(app.players.focus, Focus::Card);
    // Esc then u in one read arrives as alt-u: back to the search, and u typed there.
    press_keys(&mut app, &k, "alt-u");
    assert_eq!(app.players.focus, Focus::Search);
    assert_eq!(app.players.query, "u", "a new search");
    type_text(&mut app, &k, "usitalo");
    assert_eq!(app.players.query, "uusitalo");
    assert_eq!(app.desk.audit().len(), audit, "nothing undone");
}

#[test]
fn a_paste_is_text_never_keys() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let audit = app.desk.audit().len();
    ratedesk::ui::paste(&mut app, "Järvinen\nq1\r\n");
    assert_eq!(app.players.query, "Järvinen q1 ", "a newline is not Enter");
    assert_eq!(app.players.card, None);
    // In round entry (no text box) a paste of result keys does nothing and says so.
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    ratedesk::ui::paste(&mut app, "0\n1\n");
    assert!(app.popup.is_none());
    assert_eq!(app.desk.audit().len(), audit);
    assert!(app.status.as_ref().is_some_and(|s| s.error));
}

#[test]
fn text_boxes_clear_and_delete_a_word_as_a_shell_does_and_keep_tab() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    type_text(&mut app, &k, "virtanen aino  ");
    press_keys(&mut app, &k, "ctrl-w");
    assert_eq!(app.players.query, "virtanen ");
    press_keys(&mut app, &k, "ctrl-w");
    assert_eq!(app.players.query, "");
    type_text(&mut app, &k, "aho");
    press_keys(&mut app, &k, "ctrl-u");
    assert_eq!(app.players.query, "");
    press_keys(&mut app, &k, "tab");
    assert_eq!(app.tab, Tab::Players, "Tab does not leave the search box");
    assert_eq!(app.players.focus, Focus::Search);
}

#[test]
fn a_title_is_confirmed_only_after_it_is_shown_and_enter() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = crate::screen::generated(dir.path(), 600);
    let k = keys();
    press_keys(&mut app, &k, "alt-3");
    let rows = app.title_rows();
    let Some(pending) = rows.iter().position(|(_, _, confirmed)| !confirmed) else {
        panic!("the demo has a title to confirm")
    };
    app.titles.selected = pending;
    let audit = app.desk.audit().len();
    // Back from a card to this tab, the officer types the next name and Enter: no letter
    // confirms a title, nor opens its confirmation.
    type_text(&mut app, &k, "lucas");
    assert!(app.popup.is_none());
    press_keys(&mut app, &k, "enter esc");
    assert_eq!(app.desk.audit().len(), audit, "no letter confirms a title");
    // ctrl-t shows the title, the player and the date, and Enter confirms it.
    app.titles.selected = pending;
    press_keys(&mut app, &k, "ctrl-t");
    assert!(matches!(app.popup, Some(Popup::Confirm(_))), "shown first");
    let screen = text(&app, &k, 80, 24);
    assert!(screen.contains("confirmed on"), "{screen}");
    press_keys(&mut app, &k, "esc");
    assert!(app.popup.is_none());
    press_keys(&mut app, &k, "ctrl-t enter");
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
    assert!(games[board].white() == aino || games[board].black() == Some(aino));
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
fn nothing_but_quit_acts_while_the_window_is_too_small() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    let audit = app.desk.audit().len();
    app.resize(60, 20);
    let screen = text(&app, &k, 60, 20);
    assert!(screen.contains("Nothing acts"), "{screen}");
    press_keys(&mut app, &k, "= enter 1 y 0 enter u alt-u ctrl-z enter");
    ratedesk::ui::paste(&mut app, "1");
    assert_eq!(app.desk.audit().len(), audit, "nothing stored unseen");
    assert!(app.popup.is_none(), "no preview opened unseen");
    assert_eq!(app.tournaments.board, 0, "not even the cursor moved");
    press_keys(&mut app, &k, "f1 ?");
    assert!(app.popup.is_none(), "not even the help opens unseen");
    let screen = text(&app, &k, 60, 20);
    assert!(
        screen.contains("13 keys typed meanwhile, set aside"),
        "{screen}"
    );
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
    let player = board.white();
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
    let said = |app: &ratedesk::app::workstation::state::App<_>| {
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
        press_keys(&mut app, &k, "ctrl-p");
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
    press_keys(&mut app, &k, "ctrl-z");
    assert!(said(&app).is_empty(), "nothing done before Enter");
    press_keys(&mut app, &k, "enter");
    assert!(said(&app).starts_with("undo: result"), "{}", said(&app));
    press_keys(&mut app, &k, "ctrl-r enter");
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

#[test]
fn a_corrections_preview_lists_every_mover_the_games_players_first_and_scrolls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = crate::screen::generated(dir.path(), 600);
    let k = keys();
    let (_, game) = first_board(&mut app);
    let key = if game.result == Some(GameResult::BLACK_WINS) {
        "1"
    } else {
        "0"
    };
    press_keys(&mut app, &k, key);
    let Some(Popup::Confirm(preview)) = &app.popup else {
        panic!("a correction asks first: {:?}", app.status)
    };
    let movers: Vec<_> = preview.movers().cloned().collect();
    assert!(movers.len() > 20, "a cascade: {} movers", movers.len());
    assert_eq!(
        movers.len(),
        preview.effect.ratings.len(),
        "every mover listed"
    );
    let own = [Some(game.white()), game.black()];
    assert!(own.contains(&Some(movers[0].player)) && own.contains(&Some(movers[1].player)));
    let size = |c: &ratedesk::app::RatingChange| match (c.before, c.after) {
        (Some(b), Some(a)) => (a - b).abs(),
        _ => -1,
    };
    for pair in movers[2..].windows(2) {
        assert!(size(&pair[0]) >= size(&pair[1]), "by size: {pair:?}");
    }
    let screen = text(&app, &k, 80, 24);
    assert!(
        screen.contains(&format!("{} ratings move", movers.len())),
        "{screen}"
    );
    assert!(
        screen.contains(&format!("of {} ", movers.len())),
        "{screen}"
    );
    press_keys(&mut app, &k, "pagedown");
    let Some(Popup::Confirm(preview)) = &app.popup else {
        panic!("still the preview")
    };
    assert!(preview.cursor > 0, "scrolls");
    press_keys(&mut app, &k, "end");
    let screen = text(&app, &k, 80, 24);
    assert!(
        screen.contains(&format!("–{} of {}", movers.len(), movers.len())),
        "the last mover reached: {screen}"
    );
    press_keys(&mut app, &k, "esc");
    assert!(app.popup.is_none());
}

#[test]
fn esc_on_an_edits_preview_goes_back_to_the_form_as_it_was_typed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    let audit = app.desk.audit().len();
    press_keys(&mut app, &k, "ctrl-e");
    let Some(Popup::Form(form)) = &mut app.popup else {
        panic!("the event form")
    };
    // A blitz time control: the event is no longer rated, so ratings move and it asks first.
    form.focus = form
        .fields
        .iter()
        .position(|(label, _)| label.starts_with("Time control"))
        .expect("time control");
    press_keys(&mut app, &k, "ctrl-u");
    type_text(&mut app, &k, "5+3");
    press_keys(&mut app, &k, "ctrl-s");
    let Some(Popup::Confirm(preview)) = &app.popup else {
        panic!("ratings move: asked first ({:?})", app.status)
    };
    assert!(
        preview
            .what
            .iter()
            .any(|l| l.starts_with("Time control") && l.contains("90+30 → 5+3")),
        "{:?}",
        preview.what
    );
    press_keys(&mut app, &k, "esc");
    let Some(Popup::Form(form)) = &app.popup else {
        panic!("back to the form: {:?}", app.status)
    };
    assert!(form.fields.iter().any(|(_, v)| v == "5+3"), "as typed");
    assert_eq!(app.desk.audit().len(), audit);
}

#[test]
fn the_event_filter_reads_a_query_as_the_player_search_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    press_keys(&mut app, &k, "alt-2");
    // Folded, the words in any order, a year among them.
    type_text(&mut app, &k, "2025 AUTUMN helsinki");
    let names: Vec<&str> = app
        .tournaments
        .list
        .iter()
        .map(|&e| app.desk.book().events[e].name.as_str())
        .collect();
    assert_eq!(names, vec!["Helsinki Autumn Open 2025"], "{names:?}");
    press_keys(&mut app, &k, "ctrl-u");
    type_text(&mut app, &k, "helsinki 2019");
    assert!(app.tournaments.list.is_empty());
}

#[test]
fn a_participant_entered_by_mistake_is_withdrawn_after_a_confirmation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let event = crate::screen::new_event(
        &mut app,
        &k,
        "Spring Cup",
        "2026-03-07",
        &["järvinen", "könönen", "salo, k"],
    );
    let entered = app.desk.book().events[event].participants.clone();
    assert_eq!(entered.len(), 3);
    // Könönen was keyed by mistake: the table, his row, Delete — shown, then Enter.
    press_keys(&mut app, &k, "tab");
    let row = app
        .standings(event)
        .iter()
        .position(|s| s.player == entered[1])
        .expect("his row");
    app.tournaments.row = row;
    let audit = app.desk.audit().len();
    press_keys(&mut app, &k, "delete");
    let Some(Popup::Confirm(preview)) = &app.popup else {
        panic!("shown first: {:?}", app.status)
    };
    assert!(
        says(&preview.what, "(no. 2) leaves Spring Cup"),
        "{:?}",
        preview.what
    );
    assert!(
        says(&preview.what, "start number 3 moves up one"),
        "{:?}",
        preview.what
    );
    assert_eq!(app.desk.audit().len(), audit, "nothing before Enter");
    press_keys(&mut app, &k, "enter");
    assert_eq!(
        app.desk.book().events[event].participants,
        vec![entered[0], entered[2]]
    );
    // With a board, he goes with it (after the confirmation), and the record stays whole.
    press_keys(&mut app, &k, "tab p");
    type_text(&mut app, &k, "1 2");
    press_keys(&mut app, &k, "enter esc 1 tab");
    app.tournaments.row = 0;
    let first = app.standings(event)[0].player;
    press_keys(&mut app, &k, "delete");
    let Some(Popup::Confirm(preview)) = &app.popup else {
        panic!("shown first: {:?}", app.status)
    };
    assert!(
        says(&preview.what, "his board goes with him"),
        "{:?}",
        preview.what
    );
    press_keys(&mut app, &k, "enter");
    let ev = &app.desk.book().events[event];
    assert!(!ev.participants.contains(&first));
    assert!(ev.games.is_empty(), "his board went with him");
    assert_eq!(app.desk.check(), Vec::<String>::new());
}

#[test]
fn the_third_tabs_lists_take_a_filter_and_keep_each_rows_rank() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    press_keys(&mut app, &k, "alt-3");
    let all = app.titles_len();
    assert!(all > 2, "{all} titles");
    // `/`, then a name typed: only his rows; a letter typed is no command.
    let audit = app.desk.audit().len();
    press_keys(&mut app, &k, "/");
    type_text(&mut app, &k, "virtanen lauri c");
    assert_eq!(app.desk.audit().len(), audit);
    assert!(app.popup.is_none());
    press_keys(&mut app, &k, "backspace backspace");
    let shown = app.titles_len();
    assert!(shown >= 1 && shown < all, "{shown} of {all}");
    let screen = text(&app, &k, 80, 24);
    assert!(screen.contains("filter: virtanen lauri▏"), "{screen}");
    assert!(!screen.contains("Nieminen"), "{screen}");
    // Enter gives the list the focus, the filter kept; Enter then opens his card.
    press_keys(&mut app, &k, "enter enter");
    let card = app.players.card.expect("his card");
    assert_eq!(app.desk.book().players[card].name, "Virtanen, Lauri");
    press_keys(&mut app, &k, "esc / esc");
    assert_eq!(app.titles_len(), all, "Esc clears the filter");
}

/// Whether one of a preview's lines says `text`.
fn says(lines: &[String], text: &str) -> bool {
    lines.iter().any(|l| l.contains(text))
}

/// Every screen's hint is generated from what the screen offers: each action it names acts
/// there and has a key in the default keymap (the hint never shows `?` for a key, nor offers
/// what the screen ignores). Walked through the search, the card and its lists, the event list, an open
/// event's two panes, the third tab, its filter and the help.
#[test]
fn every_screen_offers_only_what_acts_there_with_a_bound_key() {
    use ratedesk::app::workstation::action::{Action, Context};
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let mut seen = Vec::new();
    let mut check = |app: &ratedesk::app::workstation::state::App<_>, screen: &str| {
        let (context, offers) = app.offers();
        assert!(!offers.is_empty(), "{screen}: offers nothing");
        for action in offers.iter().flat_map(|o| o.actions()) {
            assert!(
                action == Action::Help || app.acts_here(action),
                "{screen}: offers {action:?}, which does not act there"
            );
            assert!(
                k.key_for(context, action).is_some()
                    || k.key_for(Context::Global, action).is_some(),
                "{screen}: offers {action:?}, which has no key"
            );
        }
        seen.push(screen.to_string());
    };
    check(&app, "the player search");
    type_text(&mut app, &k, "jarvinen");
    press_keys(&mut app, &k, "enter");
    assert_eq!(app.players.focus, Focus::Card);
    check(&app, "the card");
    press_keys(&mut app, &k, "right right");
    check(&app, "the card's lists");
    press_keys(&mut app, &k, "alt-2");
    check(&app, "the event list");
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    check(&app, "round entry");
    app.update(Action::NextPane);
    assert_eq!(app.tournaments.pane, Pane::Table);
    check(&app, "the event's table");
    press_keys(&mut app, &k, "alt-3");
    check(&app, "the titles tab");
    app.update(Action::Search);
    check(&app, "the titles filter");
    app.update(Action::Back);
    app.update(Action::Help);
    assert!(matches!(app.popup, Some(Popup::Help { .. })));
    check(&app, "the help");
    assert_eq!(seen.len(), 9);
}

/// A correction's preview open when another officer changes the same board: worked out again
/// on the record as it is (the board's old result is the other officer's), said first in the
/// status line, and stored only on a new Enter; a form half typed stays as it was.
#[test]
fn a_preview_open_when_another_officer_changes_its_board_is_worked_out_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = crate::screen::generated(dir.path(), 600);
    let k = keys();
    let (first, game) = first_board(&mut app);
    let (key, other) = if game.result == Some(GameResult::BLACK_WINS) {
        ("1", GameResult::DRAW)
    } else {
        (
            "0",
            if game.result == Some(GameResult::DRAW) {
                GameResult::WHITE_WINS
            } else {
                GameResult::DRAW
            },
        )
    };
    press_keys(&mut app, &k, key);
    assert!(
        matches!(app.popup, Some(Popup::Confirm(_))),
        "a correction asks first"
    );
    // Another officer's result on the same board, stored meanwhile.
    app.desk.acting_for(Some("anna".into()));
    app.desk
        .apply(Edit::SetResult {
            event: first,
            round: game.round,
            board: game.board,
            result: Some(other),
        })
        .expect("anna's result");
    app.desk.acting_for(None);
    let audit = app.desk.audit().len();
    app.edited_elsewhere(format!("anna: result of board {}", game.board));
    let Some(Popup::Confirm(preview)) = &app.popup else {
        panic!("the preview stays, worked out again: {:?}", app.status)
    };
    let old = ratedesk::app::workstation::views::result_label(other, false);
    assert!(
        preview.what.iter().any(|l| l.contains(&format!("{old} →"))),
        "the board's result now is the other officer's: {:?}",
        preview.what
    );
    let status = app.status.clone().expect("said");
    assert!(
        status.error
            && status
                .text
                .starts_with("preview redone, the record changed"),
        "{status:?}"
    );
    assert_eq!(
        app.desk.audit().len(),
        audit,
        "nothing stored without a new Enter"
    );
    press_keys(&mut app, &k, "enter");
    assert_eq!(app.desk.audit().len(), audit + 1);
}

/// The year's first event with a played pairing, opened at its first board: the event and
/// that board's game (a correction there moves the ratings of every event after).
fn first_board(
    app: &mut ratedesk::app::workstation::state::App<ratedesk::rules::ssl::Ssl>,
) -> (usize, ratedesk::model::Game) {
    let book = app.desk.book();
    let first = (0..book.events.len())
        .filter(|&e| book.events[e].games.iter().any(|g| g.black().is_some()))
        .min_by_key(|&e| book.events[e].start)
        .expect("an event");
    app.open_event(first);
    let game = app.desk.book().events[first].games[app.boards(first, 1)[0]].clone();
    (first, game)
}
