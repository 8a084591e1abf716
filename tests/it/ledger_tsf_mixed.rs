//! The Turkish ledger invariant under mixed edits: each event played by some of the players, many
//! events in a few months (so that a month keeps most of its events and most players' sums when
//! it is rated again), games added and taken away, players' FIDE entries and federations
//! changed, and previews put back and applied again. Incremental recalculation must equal a
//! fresh build after every step.

use crate::common::game_touched;
use crate::ledger_tsf::{self, archive, assert_same, day, live, rated, time_control};
use proptest::prelude::*;
use ratedesk::book::Book;
use ratedesk::ledger::{Ledger, Touched};
use ratedesk::model::{Event, FideEntry, Game, GameResult, PlayerInfo, player_u32};
use ratedesk::rules::tsf::{Tsf, TsfState};

const PLAYERS: usize = 16;
const RESULTS: [&str; 8] = ["1-0", "0-1", "1/2-1/2", "1-0", "0-1", "+-", "0-0", "1/2-0"];
const MINUTES: [u32; 3] = [90, 25, 3];
const PAIRINGS: [&str; 2] = ["swiss", "round_robin"];

#[derive(Clone, Debug)]
struct EventSpec {
    start: u32,
    minutes: usize,
    pairing: usize,
    games: Vec<(u32, usize, usize, usize)>,
}

/// An edit: one of the Turkish property test's, or one of those only this test makes.
#[derive(Clone, Debug)]
enum Op {
    Shared(ledger_tsf::Op),
    AddEvent(EventSpec),
    /// A game added to the k-th live event's last round: white, black, result.
    AddGame(usize, usize, usize, usize),
    /// A player's FIDE standard rating (`None`: no FIDE entry).
    Fide(usize, Option<i32>),
    /// A player made foreign (GER) or Turkish again.
    Federation(usize, bool),
    /// An edit previewed: applied, put back, and applied again.
    Preview(Box<Op>),
}

fn event_spec() -> impl Strategy<Value = EventSpec> {
    (
        0u32..80,
        0..MINUTES.len(),
        0..PAIRINGS.len(),
        proptest::sample::subsequence((0..PLAYERS).collect::<Vec<_>>(), 4..10),
        proptest::collection::vec(
            (
                Just((0..10usize).collect::<Vec<_>>()).prop_shuffle(),
                1usize..=4,
                proptest::collection::vec(0..RESULTS.len(), 4),
            ),
            5..=7,
        ),
    )
        .prop_map(|(start, minutes, pairing, members, rounds)| {
            let mut games = Vec::new();
            for (r, (order, boards, results)) in rounds.into_iter().enumerate() {
                let order: Vec<usize> = order.into_iter().filter(|&i| i < members.len()).collect();
                for b in 0..boards.min(members.len() / 2) {
                    games.push((
                        r as u32 + 1,
                        members[order[2 * b]],
                        members[order[2 * b + 1]],
                        results[b],
                    ));
                }
            }
            EventSpec {
                start,
                minutes,
                pairing,
                games,
            }
        })
}

fn base_op() -> impl Strategy<Value = Op> {
    use ledger_tsf::Op as Shared;
    // The tempi this test plays, by their place among the Turkish test's.
    let tempo = proptest::sample::select(
        MINUTES
            .iter()
            .filter_map(|m| ledger_tsf::MINUTES.iter().position(|n| n == m))
            .collect::<Vec<_>>(),
    );
    prop_oneof![
        4 => (any::<usize>(), 0..=RESULTS.len()).prop_map(|(k, r)| Op::Shared(Shared::Result(k, r))),
        3 => event_spec().prop_map(Op::AddEvent),
        1 => any::<usize>().prop_map(|k| Op::Shared(Shared::Remove(k))),
        1 => (any::<usize>(), 0u32..40).prop_map(|(k, n)| Op::Shared(Shared::Received(k, n))),
        1 => (any::<usize>(), tempo).prop_map(|(k, m)| Op::Shared(Shared::Tempo(k, m))),
        2 => any::<usize>().prop_map(|k| Op::Shared(Shared::DropGame(k))),
        3 => (any::<usize>(), 0..PLAYERS, 0..PLAYERS, 0..RESULTS.len())
            .prop_map(|(k, w, b, r)| Op::AddGame(k, w, b, r)),
        1 => (0..PLAYERS, proptest::option::of(1500i32..2500)).prop_map(|(p, r)| Op::Fide(p, r)),
        1 => (0..PLAYERS, any::<bool>()).prop_map(|(p, f)| Op::Federation(p, f)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => base_op(),
        1 => base_op().prop_map(|o| Op::Preview(Box::new(o))),
    ]
}

fn event(id: String, spec: &EventSpec) -> Event {
    let games = spec
        .games
        .iter()
        .enumerate()
        .map(|(i, &(round, w, b, r))| Game {
            round,
            board: i as u32 + 1,
            white: player_u32(w),
            black: Some(player_u32(b)),
            result: GameResult::parse(RESULTS[r]),
            date: None,
            received: None,
        })
        .collect();
    Event {
        time_control: time_control(MINUTES[spec.minutes]),
        pairing: PAIRINGS[spec.pairing].into(),
        games,
        ..Event::new(id, day(spec.start), day(spec.start + 1))
    }
}

fn book() -> Book<Tsf> {
    let mut book = Book::<Tsf>::default();
    for k in 0..PLAYERS {
        let seeds: [Option<TsfState>; 3] = match k % 8 {
            0 => [rated(2100 - k as i32 * 10, 100), None, None],
            1 => [rated(1700, 20), rated(1650, 10), None],
            2 => [archive(1500, 3), None, None],
            3 => [archive(1400, 5), archive(1300, 6), None],
            4 => [None, None, None],
            5 => [rated(1300, 5), None, rated(1380, 5)],
            6 => [None, None, None],
            _ => [rated(1900, 40), rated(1900, 40), rated(1900, 40)],
        };
        let mut info = PlayerInfo {
            id: format!("p{k}"),
            ..PlayerInfo::default()
        };
        if k % 8 == 6 {
            info.federation = Some("GER".into());
            info.fide = vec![FideEntry {
                list_date: day(0),
                standard: Some(2000),
                rapid: None,
                blitz: None,
            }];
        }
        if k % 8 == 4 && k > 8 {
            info.federation = Some("AZE".into());
        }
        book.players.push(info);
        book.seeds.push(seeds.into());
        book.held.push(Vec::new());
        book.confirmed.push(Vec::new());
    }
    book
}

fn events_of(book: &Book<Tsf>, p: usize) -> Touched {
    Touched::events((0..book.events.len()).filter(|&e| {
        book.events[e]
            .games
            .iter()
            .any(|g| g.white() == p || g.black() == Some(p))
    }))
}

fn apply(book: &mut Book<Tsf>, op: &Op) -> Touched {
    match op {
        Op::Shared(op) => ledger_tsf::apply(book, op),
        Op::AddEvent(spec) => {
            let id = format!("e{}", book.events.len());
            book.events.push(event(id, spec));
            book.live.push(true);
            Touched::events([book.events.len() - 1])
        }
        Op::AddGame(k, w, b, r) => {
            let live = live(book);
            if w == b || live.is_empty() {
                return Touched::default();
            }
            let e = live[k % live.len()];
            let games = &mut book.events[e].games;
            let round = games.iter().map(|g| g.round).max().unwrap_or(1);
            let board = games.iter().map(|g| g.board).max().unwrap_or(0) + 1;
            games.push(Game {
                round,
                board,
                white: player_u32(*w),
                black: Some(player_u32(*b)),
                result: GameResult::parse(RESULTS[*r]),
                date: None,
                received: None,
            });
            let g = games.len() - 1;
            game_touched(book, e, g)
        }
        Op::Fide(p, r) => {
            book.players[*p].fide = r
                .map(|r| {
                    vec![FideEntry {
                        list_date: day(0),
                        standard: Some(r),
                        rapid: None,
                        blitz: None,
                    }]
                })
                .unwrap_or_default();
            events_of(book, *p)
        }
        Op::Federation(p, foreign) => {
            book.players[*p].federation = foreign.then(|| "GER".to_string());
            events_of(book, *p)
        }
        Op::Preview(_) => unreachable!("a preview is applied by the test itself"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn mixed_edits_and_previews_equal_a_fresh_build(
        initial in proptest::collection::vec(event_spec(), 2..10),
        ops in proptest::collection::vec(op(), 1..30),
    ) {
        let mut book = book();
        for spec in &initial {
            apply(&mut book, &Op::AddEvent(spec.clone()));
        }
        let mut ledger = Ledger::build(&Tsf, &book);
        assert_same(&ledger, &book)?;
        for op in &ops {
            match op {
                Op::Preview(inner) => {
                    let before = book.clone();
                    let touched = apply(&mut book, inner);
                    ledger.begin_journal();
                    let update = ledger.update_touched(&Tsf, &book, &touched);
                    let mut journal = ledger.end_journal(update);
                    assert_same(&ledger, &book)?;
                    ledger.swap(&mut journal);
                    assert_same(&ledger, &before)?;
                    ledger.swap(&mut journal);
                    assert_same(&ledger, &book)?;
                }
                _ => {
                    let touched = apply(&mut book, op);
                    ledger.update_touched(&Tsf, &book, &touched);
                    assert_same(&ledger, &book)?;
                }
            }
        }
    }
}
