//! Iceland re-enters a player coming home after a long stay abroad as it enters a foreign one:
//! "Erlendur skákmaður (eða Íslendingur sem kemur erlendis frá eftir langdvöl) kemur inn á
//! íslenska skákstigalistann á FIDE stigum eða landstigum". The officer records the day and the
//! rating (his FIDE rating the database holds for that day, or one he types) in an audited
//! edit — at the command line or from the player's card — and from the start of the period
//! holding that day the player's rating is that one, his games counted from 0. Finland and
//! Turkey re-enter nobody.

use std::path::Path;

use ratedesk::app::queries::{ReentryOn, reentry_edit};
use ratedesk::app::workstation::state::{App, Popup};
use ratedesk::app::{Desk, Edit};
use ratedesk::book::Book;
use ratedesk::model::{
    Entry, Event, FideEntry, Game, GameResult, PlayerInfo, TimeControl, player_u32,
};
use ratedesk::rules::isl::{Isl, IslState, STANDARD};
use ratedesk::ui::{press_keys, type_text};

use crate::common::{day as d, ok, ratedesk};

/// Sets this thread's clock to noon of `day`.
fn on(day: &str) {
    ratedesk::clock::set_for_this_thread(d(day).and_hms_opt(12, 0, 0).expect("noon"));
}

/// Jón (1800, 150 games, a FIDE list of 1 April 2025 rating him 2050) beats Anna (1900) in
/// January and Björn (1900) in May 2025.
fn book() -> Book<Isl> {
    let mut book = Book::<Isl>::default();
    for (id, name, rating, games) in [
        ("ISL1", "Jónsson, Jón", 1800, 150),
        ("ISL2", "Jónsdóttir, Anna", 1900, 50),
        ("ISL3", "Björnsson, Björn", 1900, 50),
    ] {
        book.players.push(PlayerInfo {
            id: id.into(),
            name: name.into(),
            ..PlayerInfo::default()
        });
        book.seeds
            .push(vec![Some(IslState::rated(rating, games, false))]);
        book.held.push(Vec::new());
        book.confirmed.push(Vec::new());
    }
    book.players[0].fide.push(FideEntry {
        list_date: d("2025-04-01"),
        standard: Some(2050),
        rapid: None,
        blitz: None,
    });
    for (id, date, black) in [("2025-jan", "2025-01-10", 1), ("2025-may", "2025-05-10", 2)] {
        book.events.push(Event {
            time_control: Some(TimeControl {
                base_seconds: 90 * 60,
                increment_seconds: 30,
                added: Vec::new(),
            }),
            participants: vec![0, black],
            games: vec![Game {
                round: 1,
                board: 1,
                white: 0,
                black: Some(player_u32(black)),
                result: Some(GameResult::WHITE_WINS),
                date: None,
                received: None,
            }],
            ..Event::new(id, d(date), d(date))
        });
        book.live.push(true);
    }
    book
}

fn desk(dir: &Path) -> Desk<Isl> {
    on("2025-06-10");
    let mut desk = Desk::open(dir, Isl).expect("open");
    desk.apply(Edit::import_new(book())).expect("import");
    desk
}

/// The edit that re-enters `player` on `date` (`None`: takes that day's re-entry back).
fn reenter<R: ratedesk::rules::Rulebook>(
    player: usize,
    date: &str,
    entry: Option<(i32, Entry)>,
) -> Edit<R> {
    Edit::SetReentry {
        player,
        date: d(date),
        entry,
    }
}

/// Jón's row in an event: the rating he brought, the K of his games, what he entered on.
fn row(desk: &Desk<Isl>, event: usize) -> (Option<i32>, Vec<u8>, Option<Entry>) {
    let rows = desk.ledger().event_ratings(event);
    let r = rows.iter().find(|r| r.player == 0).expect("Jón's row");
    (r.old, r.detail.k.to_vec(), r.detail.entry)
}

#[test]
fn a_returning_icelander_rates_from_his_fide_rating_from_the_periods_start_audited_and_undone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    let before = row(&desk, 1);
    assert_eq!(before.2, None);
    assert_eq!(before.1, vec![25], "his 151st game");
    // On his FIDE rating the database holds for the day: the list of 1 April.
    let edit =
        reentry_edit(&desk, "ISL1", d("2025-04-10"), Some(ReentryOn::Fide(None))).expect("edit");
    let effect = desk.apply(edit).expect("re-entered");
    assert_eq!(
        effect.action,
        "re-enter ISL1 on 2025-04-10 on FIDE rating 2050"
    );
    // The May game (period from 1 March) starts from 2050 with K 30 (game 1); January's
    // game, in the period before, is as it was.
    assert_eq!(row(&desk, 1), (Some(2050), vec![30], Some(Entry::Fide)));
    assert_eq!(row(&desk, 0).0, Some(1800));
    assert_eq!(desk.check(), Vec::<String>::new());
    let info = &desk.book().players[0];
    assert_eq!(info.reentries.len(), 1);
    assert_eq!(info.reentries[0].rating, 2050);
    // Moved to the day before 1 March, the re-entry takes the period before: January's game
    // starts from it; May's from what January left.
    let edit = reenter(0, "2025-04-10", None);
    desk.apply(edit).expect("taken back");
    desk.apply(reenter(0, "2025-02-28", Some((2050, Entry::National))))
        .expect("re-entered earlier");
    assert_eq!(row(&desk, 0), (Some(2050), vec![30], Some(Entry::National)));
    let may = row(&desk, 1);
    assert_eq!((&may.1, may.2), (&vec![30], None), "game 2, no entry");
    assert!(may.0 > Some(2050), "{may:?}");
    // Undone step by step, the record is as imported.
    desk.undo().expect("undo").expect("an edit");
    desk.undo().expect("undo").expect("an edit");
    desk.undo().expect("undo").expect("an edit");
    assert!(desk.book().players[0].reentries.is_empty());
    assert_eq!(row(&desk, 1), before);
    assert_eq!(desk.check(), Vec::<String>::new());
}

#[test]
fn a_reentry_without_games_since_stands_on_the_list_and_on_his_state() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    // Anna re-enters in the summer period on a national rating, with no game after it.
    desk.apply(reenter(1, "2025-06-05", Some((2100, Entry::National))))
        .expect("re-entered");
    let state = desk
        .ledger()
        .state(&Isl, desk.book(), 1, STANDARD)
        .map(std::borrow::Cow::into_owned);
    assert_eq!(state, Some(IslState::rated(2100, 0, false)));
    // The list of 1 June (the period before) still has what January left her; the list of
    // 1 September, published after the period holding the day, has the re-entry.
    let june = desk
        .ledger()
        .state_on(&Isl, desk.book(), 1, STANDARD, d("2025-06-01"))
        .and_then(|s| s.rating());
    assert!(june.is_some_and(|r| r < 1900), "{june:?}");
    let september = desk
        .ledger()
        .state_on(&Isl, desk.book(), 1, STANDARD, d("2025-09-01"))
        .and_then(|s| s.rating());
    assert_eq!(september, Some(2100));
}

#[test]
fn a_reentry_that_cannot_be_made_says_why_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    let audited = desk.audit().len();
    let refused = |desk: &mut Desk<Isl>, date: &str, entry| {
        desk.apply(reenter(0, date, entry))
            .expect_err("refused")
            .to_string()
    };
    assert_eq!(
        refused(&mut desk, "2025-06-11", Some((2050, Entry::Fide))),
        "ISL1: re-entry on 2025-06-11 is after today"
    );
    assert_eq!(
        refused(&mut desk, "2025-04-10", None),
        "ISL1: no re-entry on 2025-04-10 to take back"
    );
    assert_eq!(
        refused(&mut desk, "2025-04-10", Some((9000, Entry::National))),
        "ISL1: a rating of 9000 is outside 0–4000"
    );
    // Anna has no FIDE list: her FIDE rating must be typed.
    let message = reentry_edit(&desk, "ISL2", d("2025-04-10"), Some(ReentryOn::Fide(None)))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        message.starts_with(
            "ISL2 has no FIDE standard rating of a list dated on or before 2025-04-10"
        ),
        "{message}"
    );
    assert_eq!(desk.audit().len(), audited);
    assert!(desk.book().players[0].reentries.is_empty());
    // Finland re-enters nobody.
    let fin = tempfile::tempdir().expect("tempdir");
    let mut ssl = Desk::open(fin.path(), ratedesk::rules::ssl::Ssl).expect("open");
    ssl.apply(Edit::AddPlayer {
        info: PlayerInfo {
            id: "FIN1".into(),
            name: "Aho, Aino".into(),
            ..PlayerInfo::default()
        },
        seeds: vec![None, None],
        held: Vec::new(),
    })
    .expect("added");
    let message = ssl
        .apply(reenter(0, "2025-04-10", Some((2050, Entry::Fide))))
        .expect_err("refused")
        .to_string();
    assert_eq!(
        message,
        "FIN1: this rulebook does not re-enter a player on a rating from a date"
    );
}

#[test]
fn from_the_card_r_opens_the_form_and_the_effect_is_shown_before_it_is_stored() {
    let dir = tempfile::tempdir().expect("tempdir");
    let desk = desk(dir.path());
    let mut app = App::new(desk);
    let k = crate::screen::keys();
    app.open_card(0);
    let card = crate::tui_rulebooks::text(&app, 160, 24);
    assert!(card.contains("r re-enter"), "the hint offers it:\n{card}");
    press_keys(&mut app, &k, "r");
    assert!(
        matches!(app.popup, Some(Popup::Form(_))),
        "{:?}",
        app.status
    );
    let form = crate::tui_rulebooks::text(&app, 80, 24);
    assert!(form.contains("10.6.2025"), "today, proposed:\n{form}");
    press_keys(&mut app, &k, "ctrl-u");
    type_text(&mut app, &k, "10.4.2025");
    // On his FIDE rating (proposed), the one held for the day (the rating left empty).
    press_keys(&mut app, &k, "ctrl-s");
    assert!(matches!(app.popup, Some(Popup::Confirm { .. })));
    let shown = crate::tui_rulebooks::text(&app, 80, 24);
    for line in [
        "Jón Jónsson (ISL1) re-enters the list on 2025-04-10",
        "on FIDE rating 2050, games counted from 0",
        "Jón Jónsson",
    ] {
        assert!(shown.contains(line), "{line}\n{shown}");
    }
    let audited = app.desk.audit().len();
    press_keys(&mut app, &k, "enter");
    assert_eq!(app.desk.audit().len(), audited + 1);
    let card = crate::tui_rulebooks::text(&app, 80, 24);
    assert!(
        card.contains("re-entered 2025-04-10 on FIDE rating 2050"),
        "{card}"
    );
    // A national rating must be typed; "none" takes the day's re-entry back.
    press_keys(&mut app, &k, "r ctrl-u");
    type_text(&mut app, &k, "10.4.2025");
    press_keys(&mut app, &k, "enter ctrl-u");
    type_text(&mut app, &k, "national");
    press_keys(&mut app, &k, "ctrl-s");
    assert!(matches!(app.popup, Some(Popup::Form(_))));
    let status = app.status.as_ref().map(|s| s.text.clone());
    assert_eq!(
        status.as_deref(),
        Some("Rating (empty: the FIDE rating held): give the national rating")
    );
    press_keys(&mut app, &k, "ctrl-u");
    type_text(&mut app, &k, "none");
    press_keys(&mut app, &k, "ctrl-s");
    let shown = crate::tui_rulebooks::text(&app, 80, 24);
    assert!(
        shown.contains("Jón Jónsson (ISL1): his re-entry of 2025-04-10 taken back"),
        "{shown}"
    );
    press_keys(&mut app, &k, "enter");
    assert!(app.desk.book().players[0].reentries.is_empty());
    assert_eq!(app.desk.audit().len(), audited + 2);
    // Anna has no FIDE list: the form stays open and says to type the rating, whole at 80
    // columns.
    press_keys(&mut app, &k, "esc");
    app.open_card(1);
    press_keys(&mut app, &k, "r ctrl-u");
    type_text(&mut app, &k, "10.4.2025");
    press_keys(&mut app, &k, "ctrl-s");
    assert!(matches!(app.popup, Some(Popup::Form(_))));
    let status = app.status.as_ref().map(|s| s.text.clone());
    assert_eq!(
        status.as_deref(),
        Some("no FIDE rating held for ISL2 on 2025-04-10: type it")
    );
    let screen = crate::tui_rulebooks::text(&app, 80, 24);
    assert!(
        screen.contains("no FIDE rating held for ISL2 on 2025-04-10: type it"),
        "{screen}"
    );
    assert_eq!(app.desk.audit().len(), audited + 2);
    assert_eq!(app.desk.check(), Vec::<String>::new());
}

#[test]
fn at_the_command_line_stored_reopened_logged_and_backed_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let doc = serde_json::json!({
        "rules": "isl",
        "players": [
            {"id": "ISL1", "standard": {"rating": 1800, "games": 150},
             "fide": [{"list_date": "2025-04-01", "standard": 2050}]},
            {"id": "ISL2", "standard": {"rating": 1900, "games": 50}}],
        "events": [{"id": "2025-may", "start": "2025-05-10", "end": "2025-05-10",
            "time_control": {"base_minutes": 90, "increment_seconds": 30}, "abroad": false,
            "games": [{"round": 1, "white": "ISL1", "black": "ISL2", "result": "1-0"}]}]
    });
    let file = dir.path().join("doc.json");
    std::fs::write(&file, doc.to_string()).expect("write");
    ok(&ratedesk(
        &db,
        &["import", "json", file.to_str().expect("path")],
    ));
    let out = ok(&ratedesk(&db, &["reenter", "ISL1", "2025-04-10", "--fide"]));
    assert!(
        out.starts_with("re-enter ISL1 on 2025-04-10 on FIDE rating 2050"),
        "{out}"
    );
    let refused = ratedesk(&db, &["reenter", "ISL2", "2025-04-10", "--fide"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("give it: --fide RATING"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let log = ok(&ratedesk(&db, &["log", "--last", "1"]));
    assert!(
        log.contains("re-entry 2025-04-10 - → FIDE rating 2050"),
        "{log}"
    );
    ok(&ratedesk(&db, &["check"]));
    // A backup carries the re-entry; restored, the database rates as before.
    let dump = dir.path().join("dump.json");
    ok(&ratedesk(&db, &["backup", dump.to_str().expect("path")]));
    let text = std::fs::read_to_string(&dump).expect("dump");
    assert!(text.contains(r#""reentries":[{"date":"2025-04-10","rating":2050,"on":"Fide"}]"#));
    let copy = dir.path().join("copy");
    ok(&ratedesk(&copy, &["restore", dump.to_str().expect("path")]));
    ok(&ratedesk(&copy, &["check"]));
    let history = |db: &Path| ok(&ratedesk(db, &["export", "history", "ISL1"]));
    assert_eq!(history(&db), history(&copy));
    assert!(history(&db).contains(",2050,"), "{}", history(&db));
}

#[test]
fn a_foreign_player_enters_on_a_national_rating_the_officer_gives() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    // Björn is a German without an Icelandic state nor a FIDE list: unrated, his May game
    // against Jón counts for neither.
    desk.apply(Edit::UpdatePlayer {
        player: 2,
        info: PlayerInfo {
            federation: Some("GER".into()),
            ..desk.book().players[2].clone()
        },
    })
    .expect("German");
    desk.apply(Edit::SetSeed {
        player: 2,
        list: STANDARD,
        state: None,
    })
    .expect("no Icelandic state");
    let jon = |desk: &Desk<Isl>| row(desk, 1);
    assert!(
        desk.ledger()
            .event_ratings(1)
            .iter()
            .all(|r| r.player != 0 || r.detail.k.is_empty()),
        "Jón's game against an unrated player is not rated"
    );
    desk.apply(reenter(2, "2025-03-01", Some((1950, Entry::National))))
        .expect("entered");
    let rows = desk.ledger().event_ratings(1);
    let bjorn = rows.iter().find(|r| r.player == 2).expect("his row");
    assert_eq!(
        (bjorn.old, bjorn.detail.entry),
        (Some(1950), Some(Entry::National))
    );
    assert_eq!(jon(&desk).1.len(), 1, "Jón's game counts");
    let mut app = App::new(desk);
    app.open_card(2);
    let card = crate::tui_rulebooks::text(&app, 80, 24);
    assert!(
        card.contains("entered 2025-03-01 on national rating 1950"),
        "{card}"
    );
    assert!(!card.contains("re-entered"), "{card}");
}

#[test]
fn a_cascade_does_not_report_a_move_of_a_player_re_entered_since() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    desk.apply(reenter(1, "2025-06-05", Some((2100, Entry::National))))
        .expect("re-entered");
    // Anna lost to Jón in January: corrected, her January rating moves, but what she stands
    // at now is her re-entry, before the correction and after it.
    let effect = desk
        .apply(Edit::SetResult {
            event: 0,
            round: 1,
            board: 1,
            result: Some(GameResult::BLACK_WINS),
        })
        .expect("corrected");
    assert!(
        effect.ratings.iter().all(|r| r.player != 1),
        "{:?}",
        effect.ratings
    );
    assert!(effect.ratings.iter().any(|r| r.player == 0));
}

#[test]
fn a_merge_brings_the_removed_records_reentries_along() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    desk.apply(Edit::AddPlayer {
        info: PlayerInfo {
            id: "ISL9".into(),
            name: "Jónsson, Jón".into(),
            ..PlayerInfo::default()
        },
        seeds: vec![None],
        held: Vec::new(),
    })
    .expect("the duplicate");
    desk.apply(reenter(3, "2025-04-10", Some((2050, Entry::Fide))))
        .expect("re-entered on the duplicate");
    desk.apply(Edit::MergePlayers { keep: 0, remove: 3 })
        .expect("merged");
    let kept = &desk.book().players[0].reentries;
    assert_eq!(kept.len(), 1);
    assert_eq!((kept[0].date, kept[0].rating), (d("2025-04-10"), 2050));
    assert_eq!(row(&desk, 1), (Some(2050), vec![30], Some(Entry::Fide)));
    assert_eq!(desk.check(), Vec::<String>::new());
}
