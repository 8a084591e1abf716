//! The ledger invariant for the Turkish rulebook: after any sequence of edits — results set and
//! cleared, events added and removed, results received before or after the 25th, time controls
//! moved between the standard, rapid and blitz lists, pairing systems changed — the incremental
//! `Ledger::update` holds exactly what `Ledger::build` computes from scratch. TSF reads states
//! across lists (a first rapid or blitz event counts the standard UKD), so an edit on one list
//! must reach the next units on the others. A ledger as a database opens it (every unit's rows
//! stored bytes, read when a cascade first reaches them, the next ones on another core) holds
//! the same.

use crate::common::game_touched;
use chrono::NaiveDate;
use proptest::prelude::*;
use ratedesk::book::Book;
use ratedesk::ledger::{Ledger, Ratings, Touched, UnitResult};
use ratedesk::model::{Event, FideEntry, Game, GameResult, PlayerInfo, TimeControl, player_u32};
use ratedesk::rules::PlayerRating;
use ratedesk::rules::tsf::{Archived, Tsf, TsfDetail, TsfState};
use std::sync::Arc;

const PLAYERS: usize = 12;
const RESULTS: [&str; 8] = ["1-0", "0-1", "1/2-1/2", "1-0", "0-1", "+-", "0-0", "1/2-0"];
/// Standard, rapid, blitz, and the edges of each.
pub(crate) const MINUTES: [u32; 6] = [90, 60, 25, 10, 9, 3];
const PAIRINGS: [&str; 4] = ["swiss", "round_robin", "match", "team"];

pub(crate) fn day(n: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2025, 1, 1).expect("date") + chrono::Days::new(u64::from(n))
}

/// A new event: its first day, length, tempo, and per round the players' order (the first
/// `boards × 2` of them paired) and the results.
#[derive(Clone, Debug)]
pub(crate) struct EventSpec {
    start: u32,
    days: u32,
    minutes: usize,
    pairing: usize,
    rounds: Vec<(Vec<usize>, usize, Vec<usize>)>,
}

#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// Set the k-th game's result, or clear it (one past the last code).
    Result(usize, usize),
    AddEvent(EventSpec),
    /// Remove the k-th live event.
    Remove(usize),
    /// Results of the k-th live event received `n` days after its end.
    Received(usize, u32),
    /// The k-th live event's time control.
    Tempo(usize, usize),
    /// The k-th live event's pairing system.
    Pairing(usize, usize),
    /// Take the k-th game away.
    DropGame(usize),
}

fn round() -> impl Strategy<Value = (Vec<usize>, usize, Vec<usize>)> {
    (
        Just((0..PLAYERS).collect::<Vec<_>>()).prop_shuffle(),
        2usize..=PLAYERS / 2,
        proptest::collection::vec(0..RESULTS.len(), PLAYERS / 2),
    )
}

fn event_spec() -> impl Strategy<Value = EventSpec> {
    (
        0u32..330,
        1u32..=3,
        0..MINUTES.len(),
        0..PAIRINGS.len(),
        proptest::collection::vec(round(), 4..=7),
    )
        .prop_map(|(start, days, minutes, pairing, rounds)| EventSpec {
            start,
            days,
            minutes,
            pairing,
            rounds,
        })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<usize>(), 0..=RESULTS.len()).prop_map(|(k, r)| Op::Result(k, r)),
        3 => event_spec().prop_map(Op::AddEvent),
        1 => any::<usize>().prop_map(Op::Remove),
        2 => (any::<usize>(), 0u32..40).prop_map(|(k, n)| Op::Received(k, n)),
        2 => (any::<usize>(), 0..MINUTES.len()).prop_map(|(k, m)| Op::Tempo(k, m)),
        1 => (any::<usize>(), 0..PAIRINGS.len()).prop_map(|(k, p)| Op::Pairing(k, p)),
        1 => any::<usize>().prop_map(Op::DropGame),
    ]
}

pub(crate) fn time_control(minutes: u32) -> Option<TimeControl> {
    Some(TimeControl {
        base_seconds: minutes * 60,
        increment_seconds: 0,
        added: vec![],
    })
}

fn event(id: String, spec: &EventSpec) -> Event {
    let mut games = Vec::new();
    for (r, (order, boards, results)) in spec.rounds.iter().enumerate() {
        for b in 0..*boards {
            games.push(Game {
                round: r as u32 + 1,
                board: b as u32 + 1,
                white: player_u32(order[2 * b]),
                black: Some(player_u32(order[2 * b + 1])),
                result: GameResult::parse(RESULTS[results[b]]),
                date: None,
                received: None,
            });
        }
    }
    Event {
        time_control: time_control(MINUTES[spec.minutes]),
        pairing: PAIRINGS[spec.pairing].into(),
        games,
        ..Event::new(id, day(spec.start), day(spec.start + spec.days - 1))
    }
}

pub(crate) fn rated(rating: i32, games: u32) -> Option<TsfState> {
    Some(TsfState::Rated { rating, games })
}

pub(crate) fn archive(performance: i32, games: u32) -> Option<TsfState> {
    Some(TsfState::Unrated {
        performances: vec![Archived {
            performance,
            games,
            event: None,
        }]
        .into(),
    })
}

/// Rated players in every k band (standard only: they meet rapid and blitz with it), players
/// on several lists, archives, unrated Turks, a foreigner with FIDE ratings and one without.
fn book() -> Book<Tsf> {
    let seeds: Vec<[Option<TsfState>; 3]> = vec![
        [rated(2450, 200), None, None],
        [rated(2100, 120), None, None],
        [rated(1700, 60), rated(1650, 10), None],
        [rated(1400, 30), None, rated(1380, 5)],
        [rated(1100, 8), None, None],
        [rated(1600, 40), rated(1600, 40), rated(1600, 40)],
        [archive(1500, 3), None, None],
        [None, archive(1300, 6), None],
        [None, None, archive(1200, 2)],
        [None, None, None],
        [None, None, None],
        [rated(1999, 50), None, None],
    ];
    let fide = |standard, rapid| FideEntry {
        list_date: day(60),
        standard,
        rapid,
        blitz: None,
    };
    let mut book = Book::<Tsf>::default();
    for (k, s) in seeds.into_iter().enumerate() {
        let mut info = PlayerInfo {
            id: format!("p{k}"),
            ..PlayerInfo::default()
        };
        match k {
            9 => {
                info.federation = Some("GER".into());
                info.fide = vec![
                    FideEntry {
                        list_date: day(0),
                        standard: Some(2000),
                        rapid: None,
                        blitz: None,
                    },
                    fide(Some(2050), Some(1950)),
                ];
            }
            10 => info.federation = Some("AZE".into()),
            _ => {}
        }
        book.players.push(info);
        book.seeds.push(s.into());
        book.held.push(Vec::new());
        book.confirmed.push(Vec::new());
    }
    book
}

pub(crate) fn live(book: &Book<Tsf>) -> Vec<usize> {
    (0..book.events.len()).filter(|&e| book.live[e]).collect()
}

/// Applies one edit to the book; returns what it touched: a game's result or removal as that
/// game, the rest as whole events.
pub(crate) fn apply(book: &mut Book<Tsf>, op: &Op) -> Touched {
    let pick = |book: &Book<Tsf>, k: usize| {
        let l = live(book);
        (!l.is_empty()).then(|| l[k % l.len()])
    };
    let nth_game = |book: &Book<Tsf>, k: usize| {
        let all: Vec<(usize, usize)> = live(book)
            .into_iter()
            .flat_map(|e| (0..book.events[e].games.len()).map(move |g| (e, g)))
            .collect();
        (!all.is_empty()).then(|| all[k % all.len()])
    };
    let whole = |e: usize| Touched::events([e]);
    match op {
        Op::Result(k, r) => nth_game(book, *k).map_or_else(Touched::default, |(e, g)| {
            book.events[e].games[g].result = RESULTS.get(*r).and_then(|c| GameResult::parse(c));
            game_touched(book, e, g)
        }),
        Op::DropGame(k) => nth_game(book, *k).map_or_else(Touched::default, |(e, g)| {
            let touched = game_touched(book, e, g);
            book.events[e].games.remove(g);
            touched
        }),
        Op::AddEvent(spec) => {
            let id = format!("e{}", book.events.len());
            book.events.push(event(id, spec));
            book.live.push(true);
            whole(book.events.len() - 1)
        }
        Op::Remove(k) => pick(book, *k).map_or_else(Touched::default, |e| {
            book.live[e] = false;
            whole(e)
        }),
        Op::Received(k, n) => pick(book, *k).map_or_else(Touched::default, |e| {
            let end = book.events[e].end;
            book.events[e].received = Some(end + chrono::Days::new(u64::from(*n)));
            whole(e)
        }),
        Op::Tempo(k, m) => pick(book, *k).map_or_else(Touched::default, |e| {
            book.events[e].time_control = time_control(MINUTES[*m]);
            whole(e)
        }),
        Op::Pairing(k, p) => pick(book, *k).map_or_else(Touched::default, |e| {
            book.events[e].pairing = PAIRINGS[*p].into();
            whole(e)
        }),
    }
}

pub(crate) fn assert_same(ledger: &Ledger<Tsf>, book: &Book<Tsf>) -> Result<(), TestCaseError> {
    let fresh = Ledger::build(&Tsf, book);
    prop_assert_eq!(ledger.units(), fresh.units());
    for p in 0..book.players.len() {
        for list in 0..3 {
            prop_assert_eq!(
                ledger.state(&Tsf, book, p, list),
                fresh.state(&Tsf, book, p, list),
                "player {} list {}",
                p,
                list
            );
        }
    }
    Ok(())
}

/// Rows read back from what [`opened`] stored.
fn read_rows(bytes: &[u8]) -> Option<Vec<PlayerRating<TsfDetail>>> {
    serde_json::from_slice(bytes).ok()
}

/// The ledger as a database opens it: every unit's states at hand, its rows stored bytes read
/// when first used.
fn opened(ledger: &Ledger<Tsf>, book: &Book<Tsf>) -> Ledger<Tsf> {
    let units = ledger
        .units()
        .iter()
        .map(|(id, unit)| {
            let bytes = serde_json::to_vec(&unit.ratings).expect("rows written");
            let unit = UnitResult {
                ratings: Ratings::stored(bytes.into(), read_rows),
                states: unit.states.clone(),
                awards: unit.awards.clone(),
            };
            (id.clone(), Arc::new(unit))
        })
        .collect();
    Ledger::from_units(&Tsf, book, units)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn incremental_updates_equal_a_fresh_build(
        initial in proptest::collection::vec(event_spec(), 2..6),
        ops in proptest::collection::vec(op(), 1..16),
    ) {
        let mut book = book();
        for spec in &initial {
            apply(&mut book, &Op::AddEvent(spec.clone()));
        }
        let mut ledger = Ledger::build(&Tsf, &book);
        assert_same(&ledger, &book)?;
        let mut reopened = opened(&ledger, &book);
        for op in &ops {
            let touched = apply(&mut book, op);
            ledger.update_touched(&Tsf, &book, &touched);
            assert_same(&ledger, &book)?;
            reopened.update_touched(&Tsf, &book, &touched);
            assert_same(&reopened, &book)?;
        }
    }
}

/// The edits the property test makes do reach the rules that read across lists and months: a
/// first rapid event from the standard UKD, and an event moved to the next month by its
/// receipt date.
#[test]
fn a_standard_change_reaches_a_later_first_rapid_event() {
    let mut book = book();
    let pairs = |order: Vec<usize>| (order, 2, vec![0, 2]);
    let spec = |start, minutes| EventSpec {
        start,
        days: 2,
        minutes,
        pairing: 0,
        rounds: (0..5).map(|_| pairs(vec![0, 1, 4, 11])).collect(),
    };
    // Standard in January (period 2025-02-01), rapid in March (period 2025-04-01).
    apply(&mut book, &Op::AddEvent(spec(5, 0)));
    apply(&mut book, &Op::AddEvent(spec(65, 2)));
    let mut ledger = Ledger::build(&Tsf, &book);
    let rapid_before = ledger
        .state(&Tsf, &book, 0, 1)
        .map(std::borrow::Cow::into_owned);
    // p0 now loses every standard game: his standard UKD falls, and so does the rating his
    // first rapid event starts from.
    for g in 0..book.events[0].games.len() {
        book.events[0].games[g].result =
            GameResult::parse(if book.events[0].games[g].white() == 0 {
                "0-1"
            } else {
                "1-0"
            });
    }
    ledger.update(&Tsf, &book, [0]);
    assert_ne!(
        ledger
            .state(&Tsf, &book, 0, 1)
            .map(std::borrow::Cow::into_owned),
        rapid_before
    );
    let fresh = Ledger::build(&Tsf, &book);
    assert_eq!(ledger.units(), fresh.units());
    // Received on 26 January: rated with the February list, published 2025-03-01.
    book.events[0].received = Some(NaiveDate::from_ymd_opt(2025, 1, 26).expect("date"));
    ledger.update(&Tsf, &book, [0]);
    let fresh = Ledger::build(&Tsf, &book);
    assert_eq!(ledger.units(), fresh.units());
    let periods: Vec<NaiveDate> = ledger.units().keys().map(|(k, _)| k.date).collect();
    assert!(periods.contains(&NaiveDate::from_ymd_opt(2025, 3, 1).expect("date")));
}
