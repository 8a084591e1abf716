//! The workstation's first frame is drawn before its database has opened: from the front page
//! kept at the last clean close when it still shows the database, otherwise without the list.
//! Keys typed meanwhile are kept and act once the database is open — and none of them changes
//! the record.

use std::path::Path;
use std::sync::mpsc;

use crate::screen::{app, event_index, keys, text, theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratedesk::app::workstation::front::FrontPage;
use ratedesk::app::workstation::state::{App, Loaded, Tab};
use ratedesk::app::{Desk, DeskError};
use ratedesk::model::GameResult;
use ratedesk::rules::ssl::Ssl;
use ratedesk::ui::keymap::Keymap;
use ratedesk::ui::opening::{Opening, act_typed_ahead};
use ratedesk::ui::{key_event, press_keys};

/// The workstation opening on `dir`; the database opens once `go` is sent.
fn opening(dir: &Path) -> (Opening<Ssl, DeskError>, mpsc::Sender<()>) {
    let lock = Desk::<Ssl>::lock(dir).expect("lock");
    let (go, wait) = mpsc::channel();
    let at = dir.to_path_buf();
    let load = move || {
        let _ = wait.recv();
        Loaded::open_locked(&at, Ssl, lock)
    };
    (Opening::start(dir, Ssl, load, || {}), go)
}

fn first_frame(opening: &Opening<Ssl, DeskError>, keymap: &Keymap) -> String {
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
    terminal
        .draw(|frame| opening.draw(&theme(), keymap, frame))
        .expect("draw");
    terminal.backend().to_string()
}

/// A frame's lines without the status line.
fn above_status(frame: &str) -> Vec<&str> {
    let lines: Vec<&str> = frame.lines().collect();
    lines[..lines.len() - 1].to_vec()
}

fn type_ahead(opening: &mut Opening<Ssl, DeskError>, keymap: &Keymap, keys: &str) {
    for k in keys.split(' ') {
        opening.keep(key_event(k).expect("a key"), keymap, false);
    }
}

#[test]
fn the_first_frame_is_the_front_page_kept_at_the_last_close_and_typed_keys_act_once_open() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = keys();
    let app = app(dir.path());
    let last = text(&app, &k, 80, 24);
    assert_eq!(
        app.close().expect("closed"),
        None,
        "the front page was kept"
    );

    let (mut opening, go) = opening(dir.path());
    assert!(opening.has_front_page());
    let frame = first_frame(&opening, &k);
    assert_eq!(
        above_status(&frame),
        above_status(&last),
        "the first frame shows what the last session's first frame showed:\n{frame}"
    );
    let status = frame.lines().last().expect("status line");
    assert!(status.contains("opening the database"), "{status}");

    for c in ["j", "a", "r", "x", "backspace", "v"] {
        opening.keep(key_event(c).expect("key"), &k, false);
    }
    let frame = first_frame(&opening, &k);
    assert!(
        frame.contains("jarv▏"),
        "typed text shows at once:\n{frame}"
    );
    assert!(frame.contains("6 keys kept"), "{frame}");
    assert!(
        frame.contains("Searched as soon as the database is open") && !frame.contains("Ahonen"),
        "no list that the query did not find:\n{frame}"
    );

    go.send(()).expect("the database may open");
    let app = opening.finish(&k, (80, 24), Vec::new).expect("opened");
    assert_eq!(app.players.query, "jarv", "the keys acted once it was open");
    assert!(
        text(&app, &k, 80, 24).contains("Järvinen"),
        "and the search found"
    );
    assert_eq!(app.tab, Tab::Players);
}

#[test]
fn a_database_changed_since_the_last_close_opens_without_its_front_page() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = keys();
    let app = app(dir.path());
    app.close().expect("closed");
    assert!(FrontPage::read(dir.path(), &Ssl).is_some());
    // A correction from the command line since: the kept page shows ratings no longer true.
    let mut desk = Desk::open(dir.path(), Ssl).expect("open");
    let edit = ratedesk::app::queries::result_edit(&desk, "2025-hki-open", 1, 1, "0-1")
        .expect("a result edit");
    desk.apply(edit).expect("stored");
    desk.close().expect("closed");
    assert!(FrontPage::read(dir.path(), &Ssl).is_none());

    let (mut opening, go) = opening(dir.path());
    assert!(!opening.has_front_page());
    let frame = first_frame(&opening, &k);
    assert!(frame.contains("Opening the database in"), "{frame}");
    assert!(
        !frame.contains(" players"),
        "no count from a stale page:\n{frame}"
    );
    type_ahead(&mut opening, &k, "k o r");
    let frame = first_frame(&opening, &k);
    assert!(frame.contains("kor▏"), "{frame}");
    go.send(()).expect("the database may open");
    let app = opening.finish(&k, (80, 24), Vec::new).expect("opened");
    assert_eq!(app.players.query, "kor");
    // Closed again, the page is kept anew: the list as it is now, whatever was typed.
    let page = app.front_page();
    assert_eq!(page.listed, app.desk.book().players.len());
    app.close().expect("closed");
    assert_eq!(FrontPage::read(dir.path(), &Ssl), Some(page));
}

#[test]
fn no_key_typed_ahead_changes_the_record_and_the_keys_after_one_that_tried_are_set_aside() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = keys();
    let mut app = app(dir.path());
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    let audit = app.desk.audit().len();
    let round = app.tournaments.round;
    let game = app.boards(open, round)[app.tournaments.board];
    let result = app.desk.book().events[open].games[game].result;
    let (key, corrected) = if result == Some(GameResult::WHITE_WINS) {
        ("0", GameResult::BLACK_WINS)
    } else {
        ("1", GameResult::WHITE_WINS)
    };
    let keys = [key, "enter", "alt-1", "j"].map(|name| key_event(name).expect("key"));
    act_typed_ahead(&mut app, &k, keys.to_vec());
    assert_eq!(app.desk.audit().len(), audit, "nothing was stored");
    assert_eq!(app.desk.book().events[open].games[game].result, result);
    let status = app.status.clone().expect("a message");
    assert!(status.error, "{}", status.text);
    assert!(
        status
            .text
            .contains("not stored: keyed before the database was open")
            && status.text.contains("2 keys typed after it set aside"),
        "{}",
        status.text
    );
    assert_eq!(app.tab, Tab::Tournaments, "alt-1 was set aside");
    // Keyed now, with the screen in view, the same keys store the correction.
    press_keys(&mut app, &k, &format!("{key} enter"));
    assert_eq!(app.desk.audit().len(), audit + 1);
    assert_eq!(
        app.desk.book().events[open].games[game].result,
        Some(corrected)
    );
}

#[test]
fn keys_typed_ahead_after_a_suspend_are_set_aside() {
    let dir = tempfile::tempdir().expect("tempdir");
    let k = keys();
    let mut app = app(dir.path());
    let keys = ["j", "f12", "a", "r"].map(|name| key_event(name).expect("key"));
    act_typed_ahead(&mut app, &k, keys.to_vec());
    assert!(
        app.suspend,
        "the suspend is kept for the terminal to carry out"
    );
    assert_eq!(app.players.query, "j");
    let status = app.status.clone().expect("a message");
    assert!(
        status
            .text
            .contains("2 keys typed after suspending set aside"),
        "{}",
        status.text
    );
}

/// The workstation's search index is made on a thread beside the one that lays out the ledger
/// from the record read: it finds what an index made of the opened record finds, each player
/// with his status as stored (a player deleted, no longer active, is found by neither); and a
/// record changed after it was made (the demo imported into an empty database) has it made again.
#[test]
fn the_search_index_made_beside_the_ledger_finds_what_one_made_after_it_finds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = crate::screen::demo_desk(dir.path());
    let ids: Vec<String> = desk.book().players.iter().map(|p| p.id.clone()).collect();
    // A namesake of the first player, added and deleted.
    let mut namesake = desk.book().players[0].clone();
    namesake.id = "FIN-NAMESAKE".into();
    let add = |info| ratedesk::app::Edit::AddPlayer {
        info,
        seeds: Vec::new(),
        held: Vec::new(),
    };
    desk.apply(add(namesake)).expect("added");
    let gone = desk.book().players.len() - 1;
    desk.apply(ratedesk::app::Edit::DeletePlayer(gone))
        .expect("deleted");
    assert!(!desk.active_players()[gone]);
    let surname = desk.book().players[0]
        .name
        .split(',')
        .next()
        .unwrap_or("")
        .to_lowercase();
    drop(desk);
    let k = keys();
    let found = |app: &mut App<Ssl>, query: &str| {
        press_keys(app, &k, "ctrl-u");
        ratedesk::ui::type_text(app, &k, query);
        assert_eq!(app.players.query, query);
        app.players.results.clone()
    };
    let id = ids[0].to_lowercase();
    let queries = [
        "",
        "j",
        "j a",
        "ahon",
        "x",
        "1",
        "fin-namesake",
        &id,
        &surname,
    ];
    let lock = Desk::<Ssl>::lock(dir.path()).expect("lock");
    let mut beside = App::loaded(Loaded::open_locked(dir.path(), Ssl, lock).expect("opened"));
    let by_surname = found(&mut beside, &surname);
    assert!(
        by_surname.contains(&0) && !by_surname.contains(&gone),
        "the first player found by his surname, not his deleted namesake: {by_surname:?}"
    );
    assert_eq!(found(&mut beside, "fin-namesake"), Vec::<usize>::new());
    let from_beside: Vec<_> = queries.iter().map(|q| found(&mut beside, q)).collect();
    beside.close().expect("closed");
    let mut after = App::new(Desk::open(dir.path(), Ssl).expect("opened"));
    for (q, from_beside) in queries.iter().zip(from_beside) {
        assert_eq!(found(&mut after, q), from_beside, "query {q:?}");
    }
    after.close().expect("closed");

    // A player added once the index was made: the workstation's index finds him.
    let lock = Desk::<Ssl>::lock(dir.path()).expect("lock");
    let mut loaded = Loaded::open_locked(dir.path(), Ssl, lock).expect("opened");
    let mut newcomer = loaded.desk.book().players[0].clone();
    newcomer.id = "FIN-NEWCOMER".into();
    newcomer.name = "Zyzzyva, Zoe".into();
    loaded.desk.apply(add(newcomer)).expect("added");
    let mut app = App::loaded(loaded);
    assert_eq!(
        found(&mut app, "zyzzyva").len(),
        1,
        "made again, of the record as it is"
    );
}

#[test]
fn the_search_index_kept_at_the_last_close_is_read_back_unless_the_database_changed() {
    use ratedesk::app::search::Kept;
    use ratedesk::store::Beside;
    let dir = tempfile::tempdir().expect("tempdir");
    let k = keys();
    let app = crate::screen::generated(dir.path(), 300);
    let names: Vec<String> = app
        .desk
        .book()
        .players
        .iter()
        .map(|p| p.name.clone())
        .collect();
    assert_eq!(app.close().expect("closed"), None, "both kept");
    let kept = Beside::search(dir.path(), "ssl").expect("the database as it was kept");
    assert!(kept.read_search::<Kept>().is_some(), "the index reads back");

    // What a search shows, opened with the kept index and with one made anew.
    let found = |dir: &Path| {
        let (opening, go) = opening(dir);
        go.send(()).expect("the database may open");
        let mut app = opening.finish(&k, (80, 24), Vec::new).expect("opened");
        let shown: Vec<String> = ["", "ko", &names[7][..4], "a e"]
            .iter()
            .map(|query| {
                app.players.query.clear();
                let typed: Vec<String> = query
                    .chars()
                    .map(|c| match c {
                        ' ' => "space".to_string(),
                        c => c.to_string(),
                    })
                    .collect();
                if !typed.is_empty() {
                    press_keys(&mut app, &k, &typed.join(" "));
                }
                text(&app, &k, 80, 24)
            })
            .collect();
        app.close().expect("closed");
        shown
    };
    let with_kept = found(dir.path());
    std::fs::write(dir.path().join("ratedesk.search"), b"not an index").expect("damaged");
    assert!(
        Beside::search(dir.path(), "ssl")
            .and_then(|b| b.read_search::<Kept>())
            .is_none()
    );
    let made_anew = found(dir.path());
    assert_eq!(
        with_kept, made_anew,
        "the same frames, the index made again"
    );
    assert!(
        with_kept[2].contains(&names[7]),
        "the search found what was typed:\n{}",
        with_kept[2]
    );

    // Kept again at that close; an edit from the command line since leaves it unused.
    let read = |dir: &Path| Beside::search(dir, "ssl").and_then(|b| b.read_search::<Kept>());
    assert!(read(dir.path()).is_some(), "kept again");
    let mut desk = Desk::open(dir.path(), Ssl).expect("open");
    let event = &desk.book().events[0];
    let game = &event.games[0];
    let other = if game.result == Some(GameResult::DRAW) {
        "1-0"
    } else {
        "1/2-1/2"
    };
    let edit = ratedesk::app::queries::result_edit(
        &desk,
        &event.id.clone(),
        game.round,
        game.board,
        other,
    )
    .expect("a result edit");
    desk.apply(edit).expect("stored");
    desk.close().expect("closed");
    assert!(read(dir.path()).is_none(), "stale after an edit");
}
