//! Iceland rates each game by the day its result was received ("Góð regla er að slá inn hverja
//! umferð strax að henni lokinni": rounds reported as they are played). The database knows
//! that day: a result keyed is stamped with the day it was keyed, a TRF's results with the day
//! of the import (or the day the officer gives), and the officer corrects a round's day in an
//! audited edit — at the command line, or with a key in round entry. Finland and Turkey rate
//! by the event's date and stamp nothing.

use std::path::Path;

use chrono::NaiveDate;
use ratedesk::app::workstation::state::{App, Popup};
use ratedesk::app::{Desk, Edit};
use ratedesk::book::Book;
use ratedesk::model::{Event, Game, GameResult, PlayerInfo};
use ratedesk::rules::isl::{Isl, IslState};
use ratedesk::ui::{press_keys, type_text};

use crate::common::day as d;

/// Sets this thread's clock to noon of `day`.
fn on(day: &str) {
    ratedesk::clock::set_for_this_thread(d(day).and_hms_opt(12, 0, 0).expect("noon"));
}

const EVENT: &str = "2025-haust";

/// Four rated Icelanders and an event at the end of the September–November period (the list
/// of 1 December follows): round 1 played and reported in time, rounds 2 and 3 paired without
/// results.
fn book() -> Book<Isl> {
    let mut book = Book::<Isl>::default();
    for (n, rating) in [1800, 1900, 2000, 2100].into_iter().enumerate() {
        book.players.push(PlayerInfo {
            id: format!("ISL{}", n + 1),
            name: format!("Player{}, Jón", n + 1),
            ..PlayerInfo::default()
        });
        book.seeds
            .push(vec![Some(IslState::rated(rating, 10, false))]);
        book.held.push(Vec::new());
        book.confirmed.push(Vec::new());
    }
    let game = |round, board, white, black, result| Game {
        round,
        board,
        white,
        black: Some(black),
        result,
        date: None,
        received: None,
    };
    book.events.push(Event {
        name: "Haustmót Taflfélags Reykjavíkur 2025".into(),
        participants: vec![0, 1, 2, 3],
        games: vec![
            game(1, 1, 0, 1, Some(GameResult::WHITE_WINS)),
            game(1, 2, 2, 3, Some(GameResult::BLACK_WINS)),
            game(2, 1, 0, 2, None),
            game(2, 2, 1, 3, None),
            game(3, 1, 3, 0, None),
            game(3, 2, 2, 1, None),
        ],
        ..Event::new(EVENT, d("2025-11-27"), d("2025-11-29"))
    });
    book.live.push(true);
    book
}

/// A TRF player line: start number, name, federation and one round.
fn trf_line(n: u32, name: &str, federation: &str, round: &str) -> String {
    format!(
        "001 {n:>4}      {name:<33} {:>4} {federation:<3} {:>11} {:<10} {:>4} {n:>4}  {round}",
        "", "", "", ""
    )
}

/// Writes a one-day, one-round TRF of two players of `federation` at `path`: the first beat
/// the second on `day` (as TRF writes it, `2025/11/28`).
fn write_trf(path: &Path, name: &str, day: &str, federation: &str, players: [&str; 2]) {
    let text = [
        format!("012 {name}"),
        format!("042 {day}"),
        format!("052 {day}"),
        "122 90 min + 30 sec".into(),
        trf_line(1, players[0], federation, "   2 w 1"),
        trf_line(2, players[1], federation, "   1 b 0"),
    ]
    .join("\n");
    std::fs::write(path, text).expect("write the TRF");
}

fn desk(dir: &Path) -> Desk<Isl> {
    on("2025-11-29");
    let mut desk = Desk::open(dir, Isl).expect("open");
    desk.apply(Edit::import_new(book())).expect("import");
    desk
}

fn result(round: u32, board: u32, result: Option<GameResult>) -> Edit<Isl> {
    Edit::SetResult {
        event: 0,
        round,
        board,
        result,
    }
}

fn received(desk: &Desk<Isl>, round: u32, board: u32) -> Option<NaiveDate> {
    desk.book().events[0]
        .games
        .iter()
        .find(|g| (g.round, g.board) == (round, board))
        .and_then(|g| g.received)
}

/// The list dates the event's periods are published on, with the rounds of each and whether
/// they came late, as the event's head shows them.
fn periods(app: &App<Isl>) -> Vec<(NaiveDate, Vec<u32>, Option<NaiveDate>)> {
    app.event_periods(0)
        .into_iter()
        .map(|p| (p.dates.published, p.rounds, p.received))
        .collect()
}

#[test]
fn a_result_keyed_on_the_list_date_is_rated_in_the_period_it_arrived_and_keeps_that_day() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    // Keyed the day before the list date: in time.
    on("2025-11-30");
    desk.apply(result(2, 1, Some(GameResult::DRAW)))
        .expect("keyed");
    assert_eq!(received(&desk, 2, 1), Some(d("2025-11-30")));
    // Keyed on the list date: too late for it, rated in the period that starts that day.
    on("2025-12-01");
    desk.apply(result(2, 2, Some(GameResult::WHITE_WINS)))
        .expect("keyed");
    assert_eq!(received(&desk, 2, 2), Some(d("2025-12-01")));
    let app = App::new(desk);
    assert_eq!(
        periods(&app),
        vec![
            (d("2025-12-01"), vec![1, 2], None),
            (d("2026-03-01"), vec![2], Some(d("2025-12-01"))),
        ]
    );
    let mut desk = app.desk;
    assert_eq!(desk.check(), Vec::<String>::new());
    // A correction keeps the day the result first arrived; a result cleared was never
    // received, and keyed again it arrives anew.
    on("2025-12-05");
    desk.apply(result(2, 1, Some(GameResult::BLACK_WINS)))
        .expect("corrected");
    assert_eq!(received(&desk, 2, 1), Some(d("2025-11-30")));
    desk.apply(result(2, 2, None)).expect("cleared");
    assert_eq!(received(&desk, 2, 2), None);
    desk.apply(result(2, 2, Some(GameResult::DRAW)))
        .expect("keyed again");
    assert_eq!(received(&desk, 2, 2), Some(d("2025-12-05")));
    // Undo takes the stamp back with the result.
    desk.undo().expect("undo");
    assert_eq!(received(&desk, 2, 2), None);
    assert_eq!(desk.check(), Vec::<String>::new());
}

#[test]
fn a_result_keyed_before_the_events_recorded_receipt_takes_that_day_and_finland_stamps_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    let mut details = desk.book().events[0].clone();
    details.games.clear();
    details.received = Some(d("2025-12-02"));
    desk.apply(Edit::UpdateEvent { event: 0, details })
        .expect("received recorded");
    on("2025-11-30");
    desk.apply(result(3, 1, Some(GameResult::DRAW)))
        .expect("keyed");
    assert_eq!(
        received(&desk, 3, 1),
        Some(d("2025-12-02")),
        "not before the day the officer says its results arrived"
    );
    on("2025-12-10");
    desk.apply(result(3, 2, Some(GameResult::DRAW)))
        .expect("keyed");
    assert_eq!(received(&desk, 3, 2), Some(d("2025-12-10")));

    let ssl = tempfile::tempdir().expect("tempdir");
    let mut desk = crate::screen::demo_desk(ssl.path());
    let (round, board) = {
        let g = &desk.book().events[0].games[0];
        (g.round, g.board)
    };
    for r in [None, Some(GameResult::DRAW)] {
        desk.apply(Edit::SetResult {
            event: 0,
            round,
            board,
            result: r,
        })
        .expect("keyed");
    }
    assert_eq!(desk.book().events[0].games[0].received, None);
    let refused = desk
        .apply(Edit::SetReceived {
            event: 0,
            round: None,
            received: Some(d("2025-11-30")),
        })
        .expect_err("Finland rates by the event's date");
    assert!(
        refused
            .to_string()
            .contains("does not rate a game by the day its result was received"),
        "{refused}"
    );
}

#[test]
fn the_officer_corrects_the_day_a_round_arrived_audited_and_undone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    on("2025-12-03");
    desk.apply(result(3, 1, Some(GameResult::DRAW)))
        .expect("keyed");
    desk.apply(result(3, 2, Some(GameResult::WHITE_WINS)))
        .expect("keyed");
    let refusals = [
        (
            Some(3),
            Some("2025-12-04"),
            "received 2025-12-04 is after today",
        ),
        (
            Some(3),
            Some("2025-11-26"),
            "round 3, board 1: received 2025-11-26 is before the game was played (2025-11-27)",
        ),
        (
            Some(2),
            Some("2025-11-30"),
            "round 2: no result has been received",
        ),
    ];
    for (round, day, message) in refusals {
        let refused = desk
            .apply(Edit::SetReceived {
                event: 0,
                round,
                received: day.map(d),
            })
            .expect_err(message);
        assert!(refused.to_string().contains(message), "{refused}");
    }
    let before = desk.audit().len();
    let effect = desk
        .apply(Edit::SetReceived {
            event: 0,
            round: Some(3),
            received: Some(d("2025-11-30")),
        })
        .expect("corrected");
    assert_eq!(desk.audit().len(), before + 1, "one audited edit");
    assert!(!effect.ratings.is_empty(), "round 3 moves back in time");
    assert_eq!(received(&desk, 3, 2), Some(d("2025-11-30")));
    let log = desk.log_lines(Some(1), false).expect("log").join("\n");
    assert!(
        log.contains("results of 2025-haust round 3 received on 2025-11-30"),
        "{log}"
    );
    assert_eq!(desk.check(), Vec::<String>::new());
    desk.undo().expect("undo");
    assert_eq!(received(&desk, 3, 2), Some(d("2025-12-03")));
    // No day of their own: the event's (none, so in time).
    desk.apply(Edit::SetReceived {
        event: 0,
        round: None,
        received: None,
    })
    .expect("cleared");
    assert!((1..=3).all(|r| received(&desk, r, 1).is_none()));
    assert_eq!(desk.check(), Vec::<String>::new());
}

#[test]
fn in_round_entry_d_corrects_the_round_shown_first_and_the_head_follows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    on("2025-12-03");
    desk.apply(result(3, 1, Some(GameResult::DRAW)))
        .expect("keyed");
    let mut app = App::new(desk);
    let k = crate::screen::keys();
    app.open_event_for(0, None, 3);
    let head = |app: &App<Isl>| {
        let screen = crate::tui_rulebooks::text(app, 120, 30);
        screen.lines().take(3).collect::<Vec<_>>().join("\n")
    };
    assert!(
        head(&app).contains("round 3 period 2026-03-01 (late: received 2025-12-03)"),
        "{}",
        head(&app)
    );
    // Where the whole of it does not fit, it says "(late)" alone rather than nothing.
    let narrow = crate::tui_rulebooks::text(&app, 80, 24);
    let narrow_head = narrow.lines().nth(1).unwrap_or_default();
    assert!(
        narrow_head.contains("round 3 period 2026-03-01 (late)"),
        "{narrow_head}"
    );
    press_keys(&mut app, &k, "d");
    assert!(
        matches!(app.popup, Some(Popup::Form(_))),
        "{:?}",
        app.status
    );
    assert!(
        crate::tui_rulebooks::text(&app, 80, 24).contains("3.12.2025"),
        "the form shows the day the round has"
    );
    // Enter on the day as shown changes nothing; nor does Enter on a round received on two
    // days, whose form shows none.
    let audited = app.desk.audit().len();
    press_keys(&mut app, &k, "enter");
    assert_eq!(app.desk.audit().len(), audited);
    assert!(app.popup.is_none());
    on("2025-12-04");
    app.desk
        .apply(result(3, 2, Some(GameResult::WHITE_WINS)))
        .expect("keyed");
    let audited = app.desk.audit().len();
    press_keys(&mut app, &k, "d enter");
    assert_eq!(app.desk.audit().len(), audited);
    assert_eq!(received(&app.desk, 3, 1), Some(d("2025-12-03")));
    assert_eq!(received(&app.desk, 3, 2), Some(d("2025-12-04")));
    press_keys(&mut app, &k, "d ctrl-u");
    type_text(&mut app, &k, "30.11.2025");
    press_keys(&mut app, &k, "enter");
    // Ratings move: shown first, nothing stored yet.
    let audited = app.desk.audit().len();
    assert!(matches!(app.popup, Some(Popup::Confirm { .. })));
    let shown = crate::tui_rulebooks::text(&app, 80, 24);
    assert!(
        shown.contains("2 result(s) received on different days → 2025-11-30"),
        "{shown}"
    );
    assert_eq!(app.desk.audit().len(), audited);
    press_keys(&mut app, &k, "enter");
    assert_eq!(app.desk.audit().len(), audited + 1);
    assert_eq!(received(&app.desk, 3, 1), Some(d("2025-11-30")));
    assert!(!head(&app).contains("late"), "{}", head(&app));
    // A result keyed late says so at once, with its board's period and day.
    on("2025-12-05");
    app.open_event_for(0, None, 2);
    press_keys(&mut app, &k, "1");
    let status = app
        .status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default();
    assert!(
        status.contains("period 2026-03-01, late for 2025-12-01 (received 2025-12-05)"),
        "{status}"
    );
    assert_eq!(app.desk.check(), Vec::<String>::new());
}

#[test]
fn a_trf_import_stamps_its_results_with_the_day_of_the_import_or_the_day_given() {
    use ratedesk::app::trf_import::{Given, plan};
    let dir = tempfile::tempdir().expect("tempdir");
    let desk = desk(dir.path());
    let file = dir.path().join("bikar.trf");
    write_trf(
        &file,
        "Bikarmót",
        "2025/11/28",
        "ISL",
        ["Jonsson,Gunnar", "Olafsson,Bjorn"],
    );
    on("2025-12-02");
    let stamps = |given: &Given| -> Vec<Option<NaiveDate>> {
        match plan(&desk, &file, given).expect("planned").edit {
            Edit::Import { events, .. } => events[0].games.iter().map(|g| g.received).collect(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(stamps(&Given::default()), vec![Some(d("2025-12-02"))]);
    let given = Given {
        received: Some(d("2025-11-30")),
        ..Given::default()
    };
    assert_eq!(stamps(&given), vec![Some(d("2025-11-30"))]);
    assert!(
        plan(&desk, &file, &given)
            .expect("planned")
            .notes
            .iter()
            .any(|n| n.contains("results received 2025-11-30"))
    );
    for (day, message) in [
        (
            "2025-11-27",
            "--received 2025-11-27 is before round 1 was played",
        ),
        ("2025-12-03", "--received 2025-12-03 is after today"),
    ] {
        let refused = plan(
            &desk,
            &file,
            &Given {
                received: Some(d(day)),
                ..Given::default()
            },
        )
        .err()
        .expect(message);
        assert!(refused.to_string().contains(message), "{refused}");
    }
}

#[test]
fn at_the_command_line_received_corrects_a_round_and_import_trf_takes_the_day() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_ratedesk"))
            .args(args)
            .env("RATEDESK_TEST_NOW", "2026-01-10T12:00:00")
            .output()
            .expect("ratedesk")
    };
    let db_arg = db.to_str().expect("path");
    crate::common::ok(&run(&[
        "demo",
        "--rules",
        "isl",
        "--players",
        "60",
        "--years",
        "1",
        "--out",
        db_arg,
    ]));
    let late = crate::common::ok(&run(&[
        "--db",
        db_arg,
        "received",
        "2025-juniors",
        "2026-01-05",
        "--round",
        "1",
    ]));
    assert!(
        late.starts_with("results of 2025-juniors round 1 received on 2026-01-05: "),
        "{late}"
    );
    let refused = run(&["--db", db_arg, "received", "2025-juniors", "2026-01-11"]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("received 2026-01-11 is after today"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let log = crate::common::ok(&run(&["--db", db_arg, "log", "--last", "1", "--full"]));
    assert!(log.contains("(received 2026-01-05)"), "{log}");
    crate::common::ok(&run(&["--db", db_arg, "received", "2025-juniors", "none"]));
    let check = crate::common::ok(&run(&["--db", db_arg, "check"]));
    assert!(check.starts_with("ok"), "{check}");
    // A TRF of Finland takes no day: its events are rated as they end.
    let fin = dir.path().join("fin");
    let fin_arg = fin.to_str().expect("path");
    let trf = dir.path().join("cup.trf");
    write_trf(
        &trf,
        "Cup",
        "2025/10/01",
        "FIN",
        ["Virtanen,Ville", "Korhonen,Kalle"],
    );
    let refused = run(&[
        "--db",
        fin_arg,
        "import",
        "trf",
        trf.to_str().expect("path"),
        "--received",
        "2025-10-05",
    ]);
    assert!(
        String::from_utf8_lossy(&refused.stderr)
            .contains("Finnish events are not rated by the day their results were received"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}

#[test]
fn over_a_list_date_the_head_names_the_late_round_and_a_start_never_passes_a_receipt() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    let dated = |round, board, white, black, day: &str| Game {
        round,
        board,
        white,
        black: Some(black),
        result: None,
        date: Some(d(day)),
        received: None,
    };
    desk.apply(Edit::AddEvent(Event {
        name: "Jólamót".into(),
        participants: vec![0, 1, 2, 3],
        games: vec![
            dated(1, 1, 0, 1, "2025-11-29"),
            dated(2, 1, 1, 0, "2025-12-04"),
        ],
        ..Event::new("2025-jol", d("2025-11-28"), d("2025-12-05"))
    }))
    .expect("added");
    let key = |desk: &mut Desk<Isl>, round, day: &str| {
        on(day);
        desk.apply(Edit::SetResult {
            event: 1,
            round,
            board: 1,
            result: Some(GameResult::WHITE_WINS),
        })
        .expect("keyed");
    };
    // Round 1, played in November, reported on 2 December: late, in the winter period with
    // round 2, which was reported in time for it on 6 December.
    key(&mut desk, 1, "2025-12-02");
    key(&mut desk, 2, "2025-12-06");
    let app = App::new(desk);
    let periods: Vec<_> = app
        .event_periods(1)
        .into_iter()
        .map(|p| (p.dates.published, p.rounds, p.received))
        .collect();
    assert_eq!(
        periods,
        vec![(d("2026-03-01"), vec![1, 2], Some(d("2025-12-02")))],
        "the late round's day, not the latest of the period's"
    );
    let mut desk = app.desk;
    assert_eq!(desk.check(), Vec::<String>::new());
    // The first event's results were stamped on 30 November: its start cannot pass that day.
    on("2025-11-30");
    desk.apply(result(2, 1, Some(GameResult::DRAW)))
        .expect("keyed");
    let mut details = desk.book().events[0].clone();
    details.games.clear();
    details.start = d("2025-12-01");
    details.end = d("2025-12-01");
    let refused = desk
        .apply(Edit::UpdateEvent { event: 0, details })
        .expect_err("a start after a receipt");
    assert!(
        refused.to_string().contains(
            "round 2, board 1 was received on 2025-11-30, before the new start 2025-12-01"
        ),
        "{refused}"
    );
}
