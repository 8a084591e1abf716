//! What the officer is asked for: a player's rated games, an event's entrants with their
//! ratings before any result, a new player from the name typed, a TRF import where he
//! chooses for each ambiguous player and is warned, paths completed, dates as Finns write
//! them, help that starts with the screen in front of him, and players who share a name told
//! apart by birth year and club (a club edited and undone; the first column to go).

use crate::screen::{app, demo_desk, event_index, keys, player_index, text};
use ratedesk::app::Edit;
use ratedesk::app::workstation::state::{CardView, GameChange, Popup};
use ratedesk::model::PlayerInfo;
use ratedesk::rules::ssl::SslState;
use ratedesk::ui::{press_keys, type_text};

#[test]
fn the_card_lists_every_rated_game_with_the_running_rating() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let aino = player_index(&app, "Järvinen, Aino");
    let games = app.game_rows(aino);
    assert_eq!(games.len(), 8, "5 selo games and 3 pelo games");
    // Newest first; within an event each game's change is the running rating's move.
    for w in games.windows(2) {
        assert!(w[0].date >= w[1].date);
        if w[0].event == w[1].event {
            assert_eq!(
                w[0].change,
                Some(GameChange::Points(w[0].rating_after - w[1].rating_after))
            );
        }
    }
    let last_selo = games.iter().find(|g| g.list == 0).expect("a selo game");
    let history = app.history(aino);
    let hki = history.iter().find(|h| h.list == 0).expect("the open");
    assert_eq!(
        last_selo.rating_after, hki.rating.new,
        "the running rating ends at the new"
    );
    type_text(&mut app, &k, "jarvinen");
    press_keys(&mut app, &k, "enter end");
    assert_eq!(app.players.card_row, 7, "the games scroll to the oldest");
    press_keys(&mut app, &k, "right");
    assert_eq!(app.players.card_view, CardView::Events);
    insta::assert_snapshot!("card_events_80x24", text(&app, &k, 80, 24));
}

#[test]
fn a_new_events_entrants_show_their_ratings_before_any_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    press_keys(&mut app, &k, "alt-2 ctrl-n");
    type_text(&mut app, &k, "Kevät Open");
    press_keys(&mut app, &k, "enter enter");
    type_text(&mut app, &k, "7.3.2026");
    press_keys(&mut app, &k, "ctrl-s");
    for name in ["järvinen", "könönen"] {
        press_keys(&mut app, &k, "ctrl-p");
        type_text(&mut app, &k, name);
        press_keys(&mut app, &k, "enter");
    }
    let event = event_index(&app, "kevat-open");
    assert_eq!(
        app.desk.book().events[event].start,
        chrono::NaiveDate::from_ymd_opt(2026, 3, 7).expect("date"),
        "27.2.2026-style dates are read"
    );
    let entries: Vec<Option<i32>> = app.standings(event).iter().map(|s| s.entry).collect();
    assert_eq!(entries, vec![Some(1952), Some(1528)]);
    let screen = text(&app, &k, 80, 24);
    let row = screen
        .lines()
        .find(|l| l.contains("Järvinen, Aino"))
        .expect("her row");
    assert!(row.contains("1952"), "{row}");
}

#[test]
fn the_new_player_form_takes_the_typed_name_and_the_next_free_id() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    press_keys(&mut app, &k, "ctrl-p");
    type_text(&mut app, &k, "uusitalo, ville");
    press_keys(&mut app, &k, "ctrl-n");
    let Some(Popup::Form(form)) = &app.popup else {
        panic!("the form opens");
    };
    assert_eq!(form.fields[0].1, "Uusitalo, Ville");
    assert_eq!(form.fields[1].1, "FIN1021", "one past the highest id");
    insta::assert_snapshot!("new_player_named_80x24", text(&app, &k, 80, 24));
    press_keys(&mut app, &k, "ctrl-s");
    let ville = player_index(&app, "Uusitalo, Ville");
    assert_eq!(app.desk.book().players[ville].id, "FIN1021");
    assert!(app.desk.book().events[open].participants.contains(&ville));
}

/// A TRF player line (TRF16 columns).
fn trf_line(n: u32, name: &str, fed: &str, born: &str, round: &str) -> String {
    format!(
        "001 {n:>4}      {name:<33} {rating:>4} {fed:<3} {fide:>11} {born:<10} {points:>4} {rank:>4}  {round}",
        rating = "",
        fide = "",
        points = "",
        rank = n
    )
}

/// Asks the Tournaments tab to import a TRF file (90+30, the event's id) up to its preview.
fn preview_trf(
    app: &mut ratedesk::app::workstation::state::App<ratedesk::rules::ssl::Ssl>,
    k: &ratedesk::ui::keymap::Keymap,
    file: &std::path::Path,
    id: &str,
) {
    press_keys(app, k, "alt-2 ctrl-o");
    type_text(app, k, &file.display().to_string());
    press_keys(app, k, "enter");
    type_text(app, k, "90+30");
    press_keys(app, k, "enter");
    type_text(app, k, id);
    press_keys(app, k, "enter");
}

#[test]
fn a_trf_import_asks_about_ambiguous_players_and_warns() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = demo_desk(dir.path());
    // A second record with the same name and birth date as Mäkelä, Eero: the file's Mäkelä
    // could be either.
    let first = desk
        .book()
        .players
        .iter()
        .position(|p| p.name == "Mäkelä, Eero")
        .expect("Mäkelä");
    let twin = PlayerInfo {
        id: "FIN2002".into(),
        ..desk.book().players[first].clone()
    };
    let seed = SslState {
        rating: Some(1500),
        games: 40,
        normal_games: 40,
        ..SslState::default()
    };
    desk.apply(Edit::AddPlayer {
        info: twin,
        seeds: vec![Some(seed), None],
        held: vec![],
    })
    .expect("twin");
    let mut app = ratedesk::app::workstation::state::App::new(desk);
    let k = keys();
    let files = tempfile::tempdir().expect("tempdir");
    let file = files.path().join("helsinki.trf");
    // The same name and dates as the stored Helsinki open; Järvinen is ours (and plays in the
    // later Espoo event); one player has no federation.
    let trf = [
        "012 Helsinki Autumn Open 2025".to_string(),
        "042 2025/10/17".into(),
        "052 2025/10/19".into(),
        "122 90 min + 30 sec".into(),
        trf_line(1, "Makela,Eero", "FIN", "", "   2 w 1"),
        trf_line(2, "Jarvinen,Aino", "FIN", "", "   1 b 0"),
        trf_line(3, "Stranger,Anna", "", "", "   4 w ="),
        trf_line(4, "Svensson,Per", "SWE", "", "   3 b ="),
    ]
    .join("\n");
    std::fs::write(&file, trf).expect("write");
    preview_trf(&mut app, &k, &file, "hki-again");
    let Some(Popup::Import { plan, .. }) = &app.popup else {
        panic!("the preview: {:?}", app.status);
    };
    assert_eq!(plan.choices.len(), 1, "{:?}", plan.lines);
    assert_eq!(plan.choices[0].candidates.len(), 2);
    let notes = plan.notes.join("\n");
    assert!(notes.contains("already stored: 2025-hki-open"), "{notes}");
    assert!(
        notes.contains("1 new player without a federation"),
        "{notes}"
    );
    assert!(
        notes.contains("1 later event will be re-rated: 2025-espoo"),
        "{notes}"
    );
    // The file's temporary folder is named at random: shown as a name of the same length.
    let folder = files.path().to_string_lossy().into_owned();
    let screen =
        text(&app, &k, 80, 24).replace(&folder, &"/tmp/.tmpXXXXXX"[..folder.len().min(15)]);
    insta::assert_snapshot!("import_choices_80x24", screen);
    // The new players are named, not only counted.
    assert!(
        notes.contains("+ 3 Stranger, Anna") && notes.contains("+ 4 Svensson, Per"),
        "{notes}"
    );
    // No default for an ambiguous player: Enter refuses while his choice is open.
    press_keys(&mut app, &k, "enter");
    assert!(
        matches!(app.popup, Some(Popup::Import { .. })),
        "nothing imported"
    );
    assert!(
        app.status
            .as_ref()
            .is_some_and(|s| s.error && s.text.contains("1 still open")),
        "{:?}",
        app.status
    );
    // → chooses the first candidate, → again the second, → again a new record, ← back.
    press_keys(&mut app, &k, "right right right left");
    let Some(Popup::Import { plan, .. }) = &app.popup else {
        panic!("still the preview");
    };
    let chosen = plan.choices[0]
        .chosen
        .map(|c| plan.choices[0].candidates[c]);
    assert!(chosen.is_some(), "a candidate is chosen");
    press_keys(&mut app, &k, "enter");
    let event = event_index(&app, "hki-again");
    let entered = &app.desk.book().events[event].participants;
    assert!(
        entered.contains(&chosen.expect("chosen")),
        "the chosen record plays"
    );
}

/// The FIDE title an arbiter's file gives is on the new player's card, beside his FIDE rating.
#[test]
fn the_card_shows_the_fide_title_a_trf_gives() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let files = tempfile::tempdir().expect("tempdir");
    let file = files.path().join("titled.trf");
    // TRF16: start number, sex, title (old one-letter codes), name, rating, federation, FIDE id.
    let line = |n: u32, sex: &str, title: &str, name: &str, rating: u32, fide: u64, round: &str| {
        format!(
            "001 {n:>4} {sex}{title:>3} {name:<33} {rating:>4} FIN {fide:>11} {born:<10} {points:>4} {n:>4}  {round}",
            born = "",
            points = "",
        )
    };
    let trf = [
        "012 Titled Weekend 2025".to_string(),
        "042 2025/11/01".into(),
        "052 2025/11/02".into(),
        line(1, "m", "f", "Korpela,Aatu", 2301, 502_001, "   2 w 1"),
        line(2, "w", "wf", "Salo,Iida", 2105, 502_002, "   1 b 0"),
    ]
    .join("\n");
    std::fs::write(&file, trf).expect("write");
    preview_trf(&mut app, &k, &file, "titled");
    press_keys(&mut app, &k, "enter");
    assert!(
        app.popup.is_none(),
        "imported: {:?} {:?}",
        app.status,
        app.popup.is_some()
    );
    let aatu = player_index(&app, "Korpela, Aatu");
    let title = ratedesk::app::queries::fide_title(&app.desk, aatu)
        .expect("read")
        .expect("held");
    assert_eq!(
        (title.codes().as_str(), title.source.as_str()),
        ("FM", "TRF of titled")
    );
    press_keys(&mut app, &k, "alt-1");
    type_text(&mut app, &k, "korpela");
    press_keys(&mut app, &k, "enter");
    let screen = text(&app, &k, 80, 24);
    assert!(screen.contains("FIDE FM 2301/–/– (2025-11)"), "{screen}");
    press_keys(&mut app, &k, "esc");
    type_text(&mut app, &k, "salo");
    press_keys(&mut app, &k, "enter");
    let screen = text(&app, &k, 80, 24);
    assert!(screen.contains("FIDE WFM 2105/–/– (2025-11)"), "{screen}");
}

/// The card's places are the ranks of the national list `export list` publishes on each date,
/// for every player on it; the lists view shows them by date.
#[test]
fn the_card_gives_the_places_the_published_lists_give() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let today = chrono::NaiveDate::from_ymd_opt(2025, 12, 1).expect("a date");
    let ranks = ratedesk::app::queries::list_ranks(&app.desk, today, 3);
    assert_eq!(ranks.len(), 3 * 2, "three dates of both lists");
    let (book, ledger, rulebook) = (app.desk.book(), app.desk.ledger(), app.desk.rulebook());
    let active = app.desk.active_players();
    let mut compared = 0;
    for r in &ranks {
        let published = ratedesk::export::list::national_list(
            rulebook, book, ledger, &active, r.list, r.date, r.date,
        );
        for row in &published.rows {
            let place = r.place_of(row.player).expect("on the list");
            assert_eq!(
                (place.place, place.of, place.rating),
                (row.rank, published.rows.len(), row.rating),
                "{} on {}",
                book.players[row.player].name,
                r.date
            );
            compared += 1;
        }
        let listed: Vec<usize> = published.rows.iter().map(|row| row.player).collect();
        for p in (0..book.players.len()).filter(|p| !listed.contains(p)) {
            assert_eq!(r.place_of(p), None, "not on the list, no place");
        }
    }
    assert!(compared > 40, "{compared}");
    type_text(&mut app, &k, "järvinen");
    press_keys(&mut app, &k, "enter");
    let screen = text(&app, &k, 80, 24);
    assert!(screen.contains("place selo 4/20 · pelo 1/8"), "{screen}");
    press_keys(&mut app, &k, "right right");
    let screen = text(&app, &k, 80, 24);
    insta::assert_snapshot!("card_lists_80x24", screen);
    assert!(screen.contains("2025-12-01"), "{screen}");
    // The cursor goes down the rows there are: one a list date.
    let aino = app.players.card.expect("her card");
    let rows = app.place_dates(aino).len();
    assert_eq!(rows, 12);
    press_keys(&mut app, &k, "end");
    assert_eq!(app.players.card_row, rows - 1);
    // Back round to the games.
    press_keys(&mut app, &k, "right");
    assert!(text(&app, &k, 80, 24).contains("rated games"));
    // An edit made on another tab clears the places; back on the card they are ranked again.
    press_keys(&mut app, &k, "alt-2");
    app.players.places = None;
    press_keys(&mut app, &k, "alt-1");
    assert!(text(&app, &k, 80, 24).contains("place selo 4/20 · pelo 1/8"));
}

#[test]
fn tab_completes_the_import_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let files = tempfile::tempdir().expect("tempdir");
    std::fs::write(files.path().join("open-2025.trf"), "").expect("file");
    std::fs::write(files.path().join("open-2026.trf"), "").expect("file");
    press_keys(&mut app, &k, "ctrl-o");
    type_text(&mut app, &k, &format!("{}/op", files.path().display()));
    press_keys(&mut app, &k, "tab");
    let Some(Popup::Form(form)) = &app.popup else {
        panic!("the import form");
    };
    assert_eq!(
        form.fields[0].1,
        format!("{}/open-202", files.path().display())
    );
    assert_eq!(form.focus, 0, "Tab completed instead of moving on");
    let said = &app.status.as_ref().expect("the candidates").text;
    assert!(
        said.contains("open-2025.trf") && said.contains("open-2026.trf"),
        "{said}"
    );
    type_text(&mut app, &k, "6");
    press_keys(&mut app, &k, "tab");
    let Some(Popup::Form(form)) = &app.popup else {
        panic!("the import form");
    };
    assert_eq!(
        form.fields[0].1,
        format!("{}/open-2026.trf", files.path().display())
    );
    // A long path scrolls: its end, where the typing is, stays in view.
    let screen = text(&app, &k, 80, 24);
    assert!(screen.contains("open-2026.trf▏"), "{screen}");
}

#[test]
fn help_starts_with_the_keys_of_the_screen_and_scrolls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let open = event_index(&app, "2025-hki-open");
    app.open_event(open);
    press_keys(&mut app, &k, "?");
    let screen = text(&app, &k, 80, 24);
    insta::assert_snapshot!("help_round_entry_80x24", screen);
    let lines: Vec<&str> = screen.lines().collect();
    assert!(
        lines[2].contains("On this screen — an open event"),
        "{screen}"
    );
    assert!(lines[3].contains("white wins"), "{screen}");
    press_keys(&mut app, &k, "pagedown");
    let screen = text(&app, &k, 80, 24);
    assert!(!screen.contains("On this screen"), "scrolled: {screen}");
    assert!(
        screen.contains(&format!("row {} of", app.page() + 1)),
        "{screen}"
    );
    press_keys(&mut app, &k, "end");
    let screen = text(&app, &k, 80, 24);
    assert!(
        screen.contains("import an arbiter's TRF file as an event"),
        "the end: {screen}"
    );
    press_keys(&mut app, &k, "esc");
    assert!(app.popup.is_none());
}

#[test]
fn a_club_is_edited_on_the_form_and_undone_and_no_rating_moves() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(dir.path());
    let k = keys();
    let oskar = player_index(&app, "Lindqvist, Oskar");
    fn ratings(
        app: &ratedesk::app::workstation::state::App<ratedesk::rules::ssl::Ssl>,
    ) -> Vec<Option<i32>> {
        (0..app.desk.book().players.len())
            .flat_map(|p| {
                app.ratings(p)
                    .into_iter()
                    .map(|(_, s)| app.rating_of(s.as_deref()))
            })
            .collect()
    }
    let before = ratings(&app);
    let fide = app.desk.book().players[oskar].fide.clone();
    assert!(!fide.is_empty(), "his FIDE list makes his rating (SSL 3.7)");
    type_text(&mut app, &k, "lindqvist");
    press_keys(&mut app, &k, "enter ctrl-e");
    let Some(Popup::Form(form)) = &app.popup else {
        panic!("the player's form opens");
    };
    let club = form
        .fields
        .iter()
        .position(|(label, _)| *label == "Club")
        .expect("a club field");
    for _ in 0..club {
        press_keys(&mut app, &k, "enter");
    }
    type_text(&mut app, &k, "SK Rockaden");
    let audit = app.desk.audit().len();
    press_keys(&mut app, &k, "ctrl-s");
    let info = &app.desk.book().players[oskar];
    assert_eq!(info.club.as_deref(), Some("SK Rockaden"));
    assert_eq!(info.fide, fide, "the form keeps the lists it does not show");
    assert_eq!(app.desk.audit().len(), audit + 1, "an audited edit");
    assert_eq!(ratings(&app), before, "a club moves no rating");
    let screen = text(&app, &k, 80, 24);
    assert!(screen.contains("club SK Rockaden"), "{screen}");
    press_keys(&mut app, &k, "ctrl-z enter");
    assert_eq!(app.desk.book().players[oskar].club, None, "undone");
    assert_eq!(app.desk.audit().len(), audit + 2);
    assert_eq!(ratings(&app), before);
    // What the database holds after the undo.
    drop(app);
    let desk = ratedesk::app::Desk::open(dir.path(), ratedesk::rules::ssl::Ssl).expect("reopen");
    assert_eq!(desk.book().players[oskar].club, None);
    assert_eq!(desk.book().players[oskar].fide, fide);
}

#[test]
fn when_the_width_does_not_suffice_the_club_goes_first_and_the_id_stays_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = demo_desk(dir.path());
    let info = PlayerInfo {
        id: "FIN-2025-000000012345".into(),
        name: "Lähteenmäki-Pääkkönen, Eero-Juhani".into(),
        club: Some("Helsingin Shakkiklubi ry".into()),
        born: chrono::NaiveDate::from_ymd_opt(1990, 1, 2),
        ..PlayerInfo::default()
    };
    desk.apply(Edit::AddPlayer {
        info,
        seeds: vec![None, None],
        held: vec![],
    })
    .expect("player");
    let mut app = ratedesk::app::workstation::state::App::new(desk);
    let k = keys();
    type_text(&mut app, &k, "lähteenmäki");
    let row = |screen: &str, what: &str| {
        screen
            .lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("{what} in {screen}"))
            .to_string()
    };
    let narrow = text(&app, &k, 80, 24);
    let header = row(&narrow, "Name");
    assert!(!header.contains("Club"), "{header}");
    assert!(
        header.contains("Born") && header.contains("Titles"),
        "{header}"
    );
    let his = row(&narrow, "FIN-2025-000000012345");
    assert!(his.contains("1990") && !his.contains("Helsingin"), "{his}");
    let wide = text(&app, &k, 160, 48);
    let his = row(&wide, "FIN-2025-000000012345");
    assert!(his.contains("1990 Helsingin Shakkiklubi ry"), "{his}");
}
