//! Play-offs in the database (SSL 2.10): an event linked to the event it decides, entered in
//! the event form, checked when stored, rated on the list of its own time control — unless it
//! is a quick-play play-off of a selo event — and kept linked when that event is renamed.

use chrono::NaiveDate;
use ratedesk::app::workstation::forms::{FormKind, FormState, PLAYOFF_OF};
use ratedesk::app::{Desk, Edit};
use ratedesk::model::{Event, Game, GameResult, PlayerInfo, TimeControl};
use ratedesk::rules::Rulebook;
use ratedesk::rules::ssl::{PELO, SELO, Ssl, SslState};

fn day(d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2025, 5, d).expect("date")
}

/// An event of one game (player 0 beats player 1) on day `d`, deciding `playoff_of`.
pub(crate) fn event(id: &str, d: u32, minutes: u32, playoff_of: Option<&str>) -> Event {
    Event {
        time_control: Some(TimeControl {
            base_seconds: minutes * 60,
            increment_seconds: 0,
            added: Vec::new(),
        }),
        playoff_of: playoff_of.map(str::to_string),
        pairing: "swiss".into(),
        games: vec![Game {
            round: 1,
            board: 1,
            white: 0,
            black: Some(1),
            result: Some(GameResult::WHITE_WINS),
            date: None,
            received: None,
        }],
        ..Event::new(id, day(d), day(d))
    }
}

/// A desk of two rated players.
pub(crate) fn desk(dir: &std::path::Path) -> Desk<Ssl> {
    let mut desk = Desk::open(dir, Ssl).expect("open");
    for k in 0..2 {
        let state = Some(SslState {
            rating: Some(1800),
            games: 40,
            normal_games: 40,
            ..SslState::default()
        });
        desk.apply(Edit::AddPlayer {
            info: PlayerInfo {
                id: format!("p{k}"),
                name: format!("Pelaaja {k}"),
                ..PlayerInfo::default()
            },
            seeds: vec![state.clone(), state],
            held: Vec::new(),
        })
        .expect("player");
    }
    desk
}

fn index(desk: &Desk<Ssl>, id: &str) -> usize {
    desk.book().live_event(id).expect("the event")
}

/// The event's list and how many players it rated.
fn rated(desk: &Desk<Ssl>, id: &str) -> (Option<usize>, usize) {
    let book = desk.book();
    let e = index(desk, id);
    let list = Ssl.list_in(&book.events[e], &book.events);
    let rows = desk.ledger().ratings().filter(|r| r.event == e).count();
    (list, rows)
}

#[test]
fn rule_2_10_a_playoff_follows_the_event_it_decides() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    desk.apply(Edit::AddEvent(event("final", 10, 90, None)))
        .expect("final");
    desk.apply(Edit::AddEvent(event("po", 10, 5, Some("final"))))
        .expect("play-off");
    assert_eq!(rated(&desk, "final"), (Some(SELO), 2));
    assert_eq!(
        rated(&desk, "po"),
        (None, 0),
        "a blitz play-off of a selo event"
    );

    // The final becomes a rapid event: its play-off is now rated on pelo.
    let e = index(&desk, "final");
    let details = event("final", 10, 10, None);
    desk.apply(Edit::UpdateEvent { event: e, details })
        .expect("edit");
    assert_eq!(rated(&desk, "final"), (Some(PELO), 2));
    assert_eq!(rated(&desk, "po"), (Some(PELO), 2));
    assert!(desk.check().is_empty(), "{:?}", desk.check());

    // Renamed, the final keeps its play-off.
    let details = event("final-2025", 10, 90, None);
    desk.apply(Edit::UpdateEvent { event: e, details })
        .expect("rename");
    let po = index(&desk, "po");
    assert_eq!(
        desk.book().events[po].playoff_of.as_deref(),
        Some("final-2025")
    );
    assert_eq!(rated(&desk, "po"), (None, 0));
    assert!(desk.check().is_empty(), "{:?}", desk.check());
    desk.undo().expect("undo");
    assert_eq!(desk.book().events[po].playoff_of.as_deref(), Some("final"));
    assert_eq!(rated(&desk, "po"), (Some(PELO), 2));

    // The decided event stays while a play-off names it.
    let refused = desk.apply(Edit::DeleteEvent(e));
    assert!(
        refused.is_err_and(|m| m.to_string().contains("po")),
        "deleting a decided event"
    );
    desk.apply(Edit::DeleteEvent(po)).expect("the play-off");
    desk.apply(Edit::DeleteEvent(e)).expect("then the final");
    assert!(desk.check().is_empty(), "{:?}", desk.check());

    // The final (deleted as a rapid event) entered again as a standard one: its new blitz
    // play-off follows it, not the deleted final of the same id.
    desk.apply(Edit::AddEvent(event("final", 10, 90, None)))
        .expect("the final again");
    desk.apply(Edit::AddEvent(event("po2", 10, 5, Some("final"))))
        .expect("its play-off");
    assert_eq!(rated(&desk, "po2"), (None, 0));
    assert!(desk.check().is_empty(), "{:?}", desk.check());
}

#[test]
fn rule_2_10_a_playoff_names_another_event() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    desk.apply(Edit::AddEvent(event("final", 10, 90, None)))
        .expect("final");
    for (id, of) in [("po", "finale"), ("po", "po")] {
        let refused = desk.apply(Edit::AddEvent(event(id, 10, 5, Some(of))));
        assert!(
            refused.is_err_and(|m| m.to_string().contains("names no other event")),
            "{id} of {of}"
        );
    }
    let e = index(&desk, "final");
    let refused = desk.apply(Edit::UpdateEvent {
        event: e,
        details: event("final", 10, 90, Some("final")),
    });
    assert!(refused.is_err(), "an event cannot decide itself");
    assert!(desk.book().live_event("po").is_none());
}

#[test]
fn rule_2_10_the_event_form_offers_the_event_a_playoff_decides() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = desk(dir.path());
    desk.apply(Edit::AddEvent(event("final", 10, 90, None)))
        .expect("final");
    let mut stored = event("po", 10, 5, Some("final"));
    stored.official_representation = true;
    stored.time_control = Some(TimeControl {
        added: vec![ratedesk::model::AddedTime {
            after_move: 40,
            seconds: 60,
        }],
        ..stored.time_control.clone().expect("a time control")
    });
    let form = FormState::event(FormKind::EditEvent(0), Some(&stored));
    let field = |form: &FormState| {
        form.fields
            .iter()
            .find(|(l, _)| *l == PLAYOFF_OF)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(field(&form).as_deref(), Some("final"));
    let back = form.to_event(Some(&stored)).expect("the form");
    assert_eq!(back.playoff_of.as_deref(), Some("final"));
    assert!(
        back.official_representation,
        "details the form does not show stay"
    );
    assert_eq!(back.time_control, stored.time_control);

    let mut new = FormState::event(FormKind::NewEvent, None);
    for (label, value) in &mut new.fields {
        match *label {
            "Id" => *value = "po2".into(),
            "Start (YYYY-MM-DD)" => *value = "2025-05-10".into(),
            "Time control (90+30)" => *value = "5+3".into(),
            PLAYOFF_OF => *value = " final ".into(),
            _ => {}
        }
    }
    let created = new.to_event(None).expect("the form");
    assert_eq!(created.playoff_of.as_deref(), Some("final"));
    assert!(!created.official_representation);
    desk.apply(Edit::AddEvent(Event {
        games: Vec::new(),
        ..created
    }))
    .expect("a play-off entered in the form");
    assert_eq!(rated(&desk, "po2").0, None);
    for (label, value) in &mut new.fields {
        if *label == PLAYOFF_OF {
            *value = "po2".into();
        }
    }
    assert!(new.to_event(None).is_err(), "a play-off of itself");
}
