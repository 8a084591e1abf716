//! The ledger invariant for the Icelandic rulebook: after any sequence of edits — results set
//! and cleared, events added, removed and moved, results received late — the incrementally
//! updated ledger equals one built from scratch, unit by unit and state by state, and both
//! equal `ledger::rate_all`. Books mix rated, provisional, junior and near-2400 players with
//! events inside a period, events over a list date with dated games, and late results.

use crate::common::game_touched;
use chrono::NaiveDate;
use proptest::prelude::*;
use ratedesk::book::Book;
use ratedesk::ledger::{Ledger, Touched, rate_all};
use ratedesk::model::{
    Entry, Event, Game, GameResult, PlayerInfo, Reentry, TimeControl, player_u32,
};
use ratedesk::rules::isl::{Isl, IslState, Provisional, STANDARD, period_of};

const PLAYERS: usize = 10;
const RESULTS: [&str; 9] = [
    "1-0", "0-1", "1/2-1/2", "1-0", "0-1", "+-", "-+", "0-0", "1/2-0",
];
const MINUTES: [u32; 4] = [90, 90, 60, 45];

/// A day counted from 2024-11-20 (the list dates of 2024-12-01 to 2026-03-01 fall within
/// 0..480).
fn day(n: i64) -> NaiveDate {
    NaiveDate::from_ymd_opt(2024, 11, 20).expect("date") + chrono::TimeDelta::days(n)
}

#[derive(Clone, Debug)]
struct EventSpec {
    day: u32,
    length: u32,
    minutes: usize,
    abroad: bool,
    received: Option<u32>,
    /// Date the games of an event that lies within one period (over a list date they are
    /// always dated).
    dated: bool,
    /// Per round, (white, black, result) with result one past the codes for "no result".
    rounds: Vec<Vec<(usize, usize, usize)>>,
}

#[derive(Clone, Debug)]
enum Op {
    /// Set (or clear) the result of the k-th game.
    Result(usize, usize),
    NewEvent(EventSpec),
    /// Delete the k-th live event.
    Remove(usize),
    /// The k-th live event's results received this many days after its end (or on time).
    Received(usize, Option<u32>),
    /// The k-th game's own result received this many days after it was played (rounds
    /// reported as they are played), or with its event's.
    GameReceived(usize, Option<u32>),
    /// Move the k-th live event (with its game dates and received date) by some days.
    Move(usize, i64),
    /// Player p's FIDE list history replaced by one list on day d with this standard rating
    /// (or none): a foreign player enters on it when it is in force; the events it may move
    /// are found as the desk finds them ([`ratedesk::book::Change::reach`]).
    Fide(usize, i64, Option<i32>),
    /// Player p re-entered on day d on this rating (added to his re-entries when the flag says
    /// so, otherwise replacing them), or all his re-entries taken back.
    Reenter(usize, i64, Option<i32>, bool),
    /// Take the k-th game away.
    DropGame(usize),
    /// A game between two players added to the k-th live event's last round.
    AddGame(usize, usize, usize, usize),
}

fn event_spec() -> impl Strategy<Value = EventSpec> {
    let game = (0..PLAYERS, 0..PLAYERS, 0..=RESULTS.len());
    (
        0u32..460,
        0u32..6,
        0..MINUTES.len(),
        proptest::bool::weighted(0.05),
        proptest::option::weighted(0.3, 0u32..100),
        any::<bool>(),
        proptest::collection::vec(proptest::collection::vec(game, 1..5), 1..6),
    )
        .prop_map(
            |(day, length, minutes, abroad, received, dated, rounds)| EventSpec {
                day,
                length,
                minutes,
                abroad,
                received,
                dated,
                rounds,
            },
        )
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<usize>(), 0..=RESULTS.len()).prop_map(|(k, r)| Op::Result(k, r)),
        3 => event_spec().prop_map(Op::NewEvent),
        1 => any::<usize>().prop_map(Op::Remove),
        2 => (any::<usize>(), proptest::option::of(0u32..100)).prop_map(|(k, r)| Op::Received(k, r)),
        2 => (any::<usize>(), proptest::option::of(0u32..100))
            .prop_map(|(k, r)| Op::GameReceived(k, r)),
        1 => (any::<usize>(), -100i64..100).prop_map(|(k, d)| Op::Move(k, d)),
        2 => (0..PLAYERS, 0i64..480, proptest::option::of(1500i32..2500))
            .prop_map(|(p, d, r)| Op::Fide(p, d, r)),
        2 => (0..PLAYERS, 0i64..480, proptest::option::weighted(0.8, 1500i32..2500), any::<bool>())
            .prop_map(|(p, d, r, add)| Op::Reenter(p, d, r, add)),
        1 => any::<usize>().prop_map(Op::DropGame),
        1 => (any::<usize>(), 0..PLAYERS, 0..PLAYERS, 0..=RESULTS.len())
            .prop_map(|(k, w, b, r)| Op::AddGame(k, w, b, r)),
    ]
}

/// A player: his state on the list and his birth date.
fn seed() -> impl Strategy<Value = (Option<IslState>, Option<NaiveDate>)> {
    let state = prop_oneof![
        1 => Just(None),
        2 => (0u32..5, 1000i64..2400, 0u32..9).prop_map(|(games, mean, halves)| {
            let score = halves.min(2 * games);
            (games > 0).then(|| IslState::Provisional(Provisional {
                games,
                opponents_sum: mean * i64::from(games),
                score,
            }))
        }),
        4 => (
            1000i32..2300,
            prop_oneof![Just(0u32), 96u32..104, 196u32..204, 296u32..304, 0u32..400],
        )
            .prop_map(|(rating, games)| Some(IslState::rated(rating, games, false))),
        2 => (2380i32..2420, 20u32..400, any::<bool>())
            .prop_map(|(rating, games, reached)| Some(IslState::rated(rating, games, reached))),
    ];
    let born = prop_oneof![
        Just(None),
        Just(Some(NaiveDate::from_ymd_opt(1980, 5, 5).expect("date"))),
        (2004i32..2012, 1u32..13).prop_map(|(y, m)| NaiveDate::from_ymd_opt(y, m, 1)),
        // 21 on a list date, or the day after.
        Just(NaiveDate::from_ymd_opt(2004, 3, 1)),
        Just(NaiveDate::from_ymd_opt(2004, 6, 2)),
    ];
    (state, born)
}

fn game(round: u32, board: u32, white: usize, black: usize, result: usize) -> Game {
    Game {
        round,
        board,
        white: player_u32(white),
        black: Some(player_u32(black)),
        result: RESULTS
            .get(result)
            .map(|code| GameResult::parse(code).expect("code")),
        date: None,
        received: None,
    }
}

/// A day of the tests below.
fn ymd(year: i32, month: u32, day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(year, month, day).expect("date")
}

/// [`game`], played on `date`.
fn played_on(
    (round, board): (u32, u32),
    (white, black): (usize, usize),
    result: usize,
    date: NaiveDate,
) -> Game {
    Game {
        date: Some(date),
        ..game(round, board, white, black, result)
    }
}

fn build_event(id: String, spec: &EventSpec) -> Event {
    let start = day(i64::from(spec.day));
    let end = day(i64::from(spec.day + spec.length));
    let over_a_list_date = period_of(start) != period_of(end);
    let mut games = Vec::new();
    for (r, pairs) in spec.rounds.iter().enumerate() {
        let round = r as u32 + 1;
        let mut busy = std::collections::BTreeSet::new();
        for &(w, b, result) in pairs {
            if w == b || busy.contains(&w) || busy.contains(&b) {
                continue;
            }
            busy.extend([w, b]);
            let mut g = game(round, busy.len() as u32 / 2, w, b, result);
            if over_a_list_date || spec.dated {
                g.date = Some(
                    start + chrono::Days::new(u64::from(r as u32).min(u64::from(spec.length))),
                );
            }
            games.push(g);
        }
    }
    Event {
        time_control: Some(TimeControl {
            base_seconds: MINUTES[spec.minutes] * 60,
            increment_seconds: 0,
            added: vec![],
        }),
        abroad: spec.abroad,
        pairing: "swiss".into(),
        received: spec.received.map(|r| end + chrono::Days::new(u64::from(r))),
        games,
        ..Event::new(id, start, end)
    }
}

fn live(book: &Book<Isl>) -> Vec<usize> {
    (0..book.events.len()).filter(|&e| book.live[e]).collect()
}

/// The k-th game of the live events: its event and position.
fn nth_game(book: &Book<Isl>, k: usize) -> Option<(usize, usize)> {
    let all: Vec<(usize, usize)> = live(book)
        .into_iter()
        .flat_map(|e| (0..book.events[e].games.len()).map(move |g| (e, g)))
        .collect();
    all.get(k % all.len().max(1)).copied()
}

/// Applies one edit to the book; returns what it touched, as the desk finds it: a game's
/// result, received day, addition or removal as that game; the rest as whole events.
fn apply(book: &mut Book<Isl>, op: &Op) -> Touched {
    match op {
        Op::Result(k, r) => {
            let Some((e, g)) = nth_game(book, *k) else {
                return Touched::default();
            };
            book.events[e].games[g].result = RESULTS
                .get(*r)
                .map(|code| GameResult::parse(code).expect("code"));
            game_touched(book, e, g)
        }
        Op::DropGame(k) => {
            let Some((e, g)) = nth_game(book, *k) else {
                return Touched::default();
            };
            let touched = game_touched(book, e, g);
            book.events[e].games.remove(g);
            touched
        }
        Op::AddGame(k, w, b, r) => {
            let events = live(book);
            let Some(&e) = events.get(k % events.len().max(1)) else {
                return Touched::default();
            };
            let event = &mut book.events[e];
            let round = event.games.iter().map(|g| g.round).max().unwrap_or(1);
            let board = event.games.iter().map(|g| g.board).max().unwrap_or(0) + 1;
            let mut added = game(round, board, *w, *b, *r);
            added.date = event.games.iter().rev().find_map(|g| g.date);
            if w == b {
                return Touched::default();
            }
            event.games.push(added);
            let g = event.games.len() - 1;
            game_touched(book, e, g)
        }
        Op::NewEvent(spec) => {
            let e = book.events.len();
            book.events.push(build_event(format!("e{e}"), spec));
            book.live.push(true);
            Touched::events([e])
        }
        Op::Remove(k) => {
            let events = live(book);
            let Some(&e) = events.get(k % events.len().max(1)) else {
                return Touched::default();
            };
            book.live[e] = false;
            Touched::events([e])
        }
        Op::Received(k, r) => {
            let events = live(book);
            let Some(&e) = events.get(k % events.len().max(1)) else {
                return Touched::default();
            };
            let event = &mut book.events[e];
            event.received = r.map(|r| event.end + chrono::Days::new(u64::from(r)));
            Touched::events([e])
        }
        Op::GameReceived(k, r) => {
            let Some((e, g)) = nth_game(book, *k) else {
                return Touched::default();
            };
            let event = &mut book.events[e];
            let played = event.games[g].date.unwrap_or(event.start);
            event.games[g].received = r.map(|r| played + chrono::Days::new(u64::from(r)));
            game_touched(book, e, g)
        }
        Op::Move(k, delta) => {
            let events = live(book);
            let Some(&e) = events.get(k % events.len().max(1)) else {
                return Touched::default();
            };
            let event = &mut book.events[e];
            let shift = |d: NaiveDate| d + chrono::TimeDelta::days(*delta);
            let (start, end) = (shift(event.start), shift(event.end));
            if period_of(start) != period_of(end) && event.games.iter().any(|g| g.date.is_none()) {
                // An event moved over a list date needs its games dated.
                for g in &mut event.games {
                    g.date =
                        Some((start + chrono::TimeDelta::days(i64::from(g.round) - 1)).min(end));
                }
            } else {
                for g in &mut event.games {
                    g.date = g.date.map(shift);
                }
            }
            event.start = start;
            event.end = end;
            event.received = event.received.map(shift);
            Touched::events([e])
        }
        Op::Fide(p, d, rating) => edit_player(book, *p, |info| {
            info.fide = rating
                .map(|r| ratedesk::model::FideEntry {
                    list_date: day(*d),
                    standard: Some(r),
                    rapid: None,
                    blitz: None,
                })
                .into_iter()
                .collect();
        }),
        Op::Reenter(p, d, rating, add) => edit_player(book, *p, |info| {
            if !add {
                info.reentries.clear();
            }
            if let Some(r) = rating {
                info.reentries.push(Reentry {
                    date: day(*d),
                    rating: *r,
                    on: if r % 2 == 0 {
                        Entry::Fide
                    } else {
                        Entry::National
                    },
                });
                info.reentries.sort_by_key(|r| r.date);
            }
        }),
    }
}

/// Edits player p's record as the desk does; returns the events it touches (found as the desk
/// finds them, [`ratedesk::book::Change::reach`]).
fn edit_player(book: &mut Book<Isl>, p: usize, edit: impl FnOnce(&mut PlayerInfo)) -> Touched {
    use ratedesk::book::{Change, Delta, PlayerRecord, PlayerStatus};
    let before = PlayerRecord::<Isl> {
        info: book.players[p].clone(),
        seeds: book.seeds[p].clone(),
        held: book.held[p].clone(),
        confirmed: book.confirmed[p].clone(),
        status: PlayerStatus::Active,
    };
    let mut after = before.clone();
    edit(&mut after.info);
    let change = Change::<Isl> {
        players: vec![Delta {
            key: p,
            before: Some(Box::new(before)),
            after: Some(Box::new(after)),
        }],
        ..Change::default()
    };
    let reach = change.reach();
    let mut touched = reach.events_touched(book);
    let mut status = vec![PlayerStatus::Active; book.players.len()];
    change.apply(book, &mut status);
    touched.extend(reach.events_touched(book));
    Touched::events(touched)
}

fn check(book: &Book<Isl>, ledger: &Ledger<Isl>) -> Result<(), TestCaseError> {
    let fresh = Ledger::build(&Isl, book);
    prop_assert_eq!(ledger.units(), fresh.units());
    let mut events = book.events.clone();
    for (e, ev) in events.iter_mut().enumerate() {
        if !book.live[e] {
            ev.games.clear();
        }
    }
    let oracle = rate_all(
        &Isl,
        &book.players,
        book.seeds.clone(),
        book.held.clone(),
        &events,
    );
    let ratings: Vec<_> = ledger.ratings().collect();
    let expected: Vec<_> = oracle.ratings.iter().collect();
    prop_assert_eq!(ratings, expected, "ratings against rate_all");
    for p in 0..book.players.len() {
        prop_assert_eq!(
            ledger.state(&Isl, book, p, STANDARD),
            fresh.state(&Isl, book, p, STANDARD),
            "player {}",
            p
        );
        // A re-entry after his last unit stands in his place on the list; `rate_all` gives
        // the state of his last unit.
        if book.players[p].reentries.is_empty() {
            prop_assert_eq!(
                ledger
                    .state(&Isl, book, p, STANDARD)
                    .map(std::borrow::Cow::into_owned),
                oracle.states[p][STANDARD].clone(),
                "player {} against rate_all",
                p
            );
        }
    }
    Ok(())
}

fn book(seeds: Vec<(Option<IslState>, Option<NaiveDate>)>, events: &[EventSpec]) -> Book<Isl> {
    let mut book = Book::<Isl>::default();
    for (k, (state, born)) in seeds.into_iter().enumerate() {
        // Every third player is a German with a FIDE rating from a list dated somewhere in the
        // history: without an Icelandic state he enters the list on it, once it is in force at
        // the start of the period of his first rated game.
        let foreign = k % 3 == 2;
        book.players.push(PlayerInfo {
            id: format!("p{k}"),
            born,
            federation: foreign.then(|| "GER".to_string()),
            fide: foreign
                .then(|| ratedesk::model::FideEntry {
                    list_date: day(k as i64 * 40),
                    standard: Some(1700 + (k as i32 * 53) % 500),
                    rapid: None,
                    blitz: None,
                })
                .into_iter()
                .collect(),
            ..PlayerInfo::default()
        });
        book.seeds.push(vec![state]);
        book.held.push(vec![]);
        book.confirmed.push(vec![]);
    }
    for spec in events {
        let e = book.events.len();
        book.events.push(build_event(format!("e{e}"), spec));
        book.live.push(true);
    }
    book
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn incremental_updates_equal_a_fresh_build(
        seeds in proptest::collection::vec(seed(), PLAYERS),
        events in proptest::collection::vec(event_spec(), 1..8),
        ops in proptest::collection::vec(op(), 1..16),
    ) {
        let mut book = book(seeds, &events);
        let mut ledger = Ledger::build(&Isl, &book);
        check(&book, &ledger)?;
        for op in &ops {
            let touched = apply(&mut book, op);
            ledger.update_touched(&Isl, &book, &touched);
            check(&book, &ledger)?;
        }
    }
}

/// Two rated players and p2, the German of `book` without FIDE lists, with one event of these
/// games: what the tests of an entrant's FIDE list start from.
fn book_with_an_entrant(start: NaiveDate, end: NaiveDate, games: Vec<Game>) -> Book<Isl> {
    let rated = |r| (Some(IslState::rated(r, 50, false)), None);
    let mut book = book(vec![rated(1800), rated(1700), (None, None)], &[]);
    book.players[2].fide.clear();
    book.events.push(Event {
        start,
        end,
        games,
        ..build_event(
            "e0".into(),
            &EventSpec {
                day: 0,
                length: 0,
                minutes: 0,
                abroad: false,
                received: None,
                dated: true,
                rounds: vec![],
            },
        )
    });
    book.live.push(true);
    book
}

/// Adds a FIDE list for the entrant p2 on `list_date`, re-rates what the change reaches as the
/// desk finds it, and holds the ledger to one built afresh.
fn a_list_for_the_entrant_moves_the_event(mut book: Book<Isl>, list_date: NaiveDate) {
    let mut ledger = Ledger::build(&Isl, &book);
    check(&book, &ledger).expect("built");
    let d = (list_date - day(0)).num_days();
    let touched = apply(&mut book, &Op::Fide(2, d, Some(2100)));
    assert_eq!(
        touched,
        Touched::events([0]),
        "the event is moved by the list"
    );
    ledger.update_touched(&Isl, &book, &touched);
    check(&book, &ledger).expect("the same as afresh");
}

/// A FIDE list dated after an event's start but in force on the first day of the period that
/// rates a foreign player's game in it (the event runs over the list date 2025-03-01): he
/// enters on it, so adding the list re-rates that period.
#[test]
fn a_fide_list_after_the_start_moves_an_entry_in_a_later_period_of_the_event() {
    let (start, end) = (ymd(2025, 2, 20), ymd(2025, 3, 8));
    let first = played_on((1, 1), (0, 1), 2, start);
    let second = played_on((2, 1), (2, 0), 0, ymd(2025, 3, 5));
    let book = book_with_an_entrant(start, end, vec![first, second]);
    // The list of 2025-02-25: after the start, in force on 2025-03-01.
    a_list_for_the_entrant_moves_the_event(book, ymd(2025, 2, 25));
}

/// The same with the event over by the list date and one game's own receipt date after it:
/// that game is rated in the later period, with the list in force on its first day, so a list
/// dated after the event's end (and by that day) still moves the event.
#[test]
fn a_fide_list_after_the_end_moves_a_game_received_in_a_later_period() {
    let (start, end) = (ymd(2025, 2, 20), ymd(2025, 2, 27));
    let first = played_on((1, 1), (0, 1), 2, start);
    let mut late = played_on((2, 1), (2, 0), 0, end);
    late.received = Some(ymd(2025, 3, 2));
    let book = book_with_an_entrant(start, end, vec![first, late]);
    // The list of 2025-03-01: after the end, in force on the later period's first day.
    a_list_for_the_entrant_moves_the_event(book, ymd(2025, 3, 1));
}

/// A result keyed in an event over a list date re-rates only the period that holds its game
/// (the other period's part of the event is as it was); the event changed as a whole re-rates
/// both. Either way the ledger is the one built afresh.
#[test]
fn a_result_re_rates_only_the_period_that_holds_its_game() {
    let (start, end) = (ymd(2025, 2, 20), ymd(2025, 3, 8));
    let first = played_on((1, 1), (0, 1), 0, start);
    let second = played_on((2, 1), (1, 0), 0, ymd(2025, 3, 5));
    let mut book = book_with_an_entrant(start, end, vec![first, second]);
    let mut ledger = Ledger::build(&Isl, &book);
    assert_eq!(ledger.units().len(), 2, "the event is rated in two periods");
    let later = ledger.units().keys().map(|(k, _)| k.date).max();

    book.events[0].games[1].result = GameResult::parse("0-1");
    let update = ledger.update_touched(&Isl, &book, &game_touched(&book, 0, 1));
    let rated: Vec<NaiveDate> = update.units.iter().map(|(k, _)| k.date).collect();
    assert_eq!(rated.iter().max(), later.as_ref());
    assert_eq!(rated.len(), 1, "only the later period: {rated:?}");
    assert_eq!(ledger.units(), Ledger::build(&Isl, &book).units());

    book.events[0].games[1].result = GameResult::parse("1-0");
    let whole = ledger.update(&Isl, &book, [0]);
    assert_eq!(whole.units.len(), 2, "both periods");
    assert_eq!(ledger.units(), Ledger::build(&Isl, &book).units());
}

/// A result keyed after its period's list date is rated in the period of the day it was
/// received: the game joins that period, and the period the event's other games are in is not
/// rated again for it (its games are as they were). A correction received late takes its game
/// out of its period into the later one: both are rated again. Either way the ledger is the one
/// built afresh.
#[test]
fn a_result_received_late_re_rates_the_periods_its_game_leaves_and_joins_only() {
    let (start, end) = (ymd(2025, 2, 10), ymd(2025, 2, 12));
    let first = played_on((1, 1), (0, 1), 0, start);
    let mut second = played_on((2, 1), (1, 0), 0, end);
    second.result = None;
    let mut book = book_with_an_entrant(start, end, vec![first, second]);
    let mut ledger = Ledger::build(&Isl, &book);
    let dates = |ledger: &Ledger<Isl>| -> Vec<NaiveDate> {
        ledger.units().keys().map(|(k, _)| k.date).collect()
    };
    let [earlier] = dates(&ledger)[..] else {
        panic!("one period: {:?}", dates(&ledger));
    };

    // Keyed on 10 March: the game is rated in the period from 1 March.
    let received = ymd(2025, 3, 10);
    book.events[0].games[1].result = GameResult::parse("1/2-1/2");
    book.events[0].games[1].received = Some(received);
    let update = ledger.update_touched(&Isl, &book, &game_touched(&book, 0, 1));
    let later: Vec<NaiveDate> = dates(&ledger)
        .into_iter()
        .filter(|&d| d != earlier)
        .collect();
    assert_eq!(later.len(), 1, "a second period: {:?}", dates(&ledger));
    let rated: Vec<NaiveDate> = update.units.iter().map(|(k, _)| k.date).collect();
    assert_eq!(rated, later, "only the period the game joined");
    assert_eq!(ledger.units(), Ledger::build(&Isl, &book).units());

    // The first round corrected on the same day: it leaves the earlier period too.
    book.events[0].games[0].result = GameResult::parse("0-1");
    book.events[0].games[0].received = Some(received);
    let update = ledger.update_touched(&Isl, &book, &game_touched(&book, 0, 0));
    let rated: std::collections::BTreeSet<NaiveDate> =
        update.units.iter().map(|(k, _)| k.date).collect();
    assert!(rated.contains(&earlier), "the period it left: {rated:?}");
    assert!(rated.contains(&later[0]), "the period it joined: {rated:?}");
    assert_eq!(ledger.units(), Ledger::build(&Isl, &book).units());
}
