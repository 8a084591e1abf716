//! Whole months rated through [`Tsf::rate`]: the rules that only show across several events or
//! lists (B.1.e, B.1.f–g, B.1.l, B.1.d, B.5).

use chrono::NaiveDate;

use super::rate::Sharing;
use super::*;
use crate::model::{FideEntry, Game, GameResult, PlayerIdx, PlayerInfo, player_u32};
use crate::rules::{Award, EventPart, PlayerRating};

fn d(m: u32, day: u32) -> NaiveDate {
    crate::model::fixture::ymd(2025, m, day)
}

fn event(id: &str, day: u32, pairing: &str, games: &[(u32, PlayerIdx, PlayerIdx, &str)]) -> Event {
    Event {
        pairing: pairing.into(),
        games: games
            .iter()
            .map(|&(round, white, black, result)| Game {
                round,
                board: 1,
                white: player_u32(white),
                black: Some(player_u32(black)),
                result: GameResult::parse(result),
                date: None,
                received: None,
            })
            .collect(),
        ..Event::new(id, d(4, day), d(4, day + 2))
    }
}

/// One month on one list: the players' states on it and on the standard list.
struct Month {
    list: ListId,
    players: Vec<PlayerInfo>,
    states: Vec<Option<TsfState>>,
    standard: Vec<Option<TsfState>>,
    events: Vec<Event>,
}

impl Month {
    fn new(states: Vec<Option<TsfState>>, events: Vec<Event>) -> Self {
        Month {
            list: STANDARD,
            players: vec![PlayerInfo::default(); states.len()],
            standard: vec![None; states.len()],
            states,
            events,
        }
    }

    /// Rated as the ledger rates it ([`Tsf::rate`]).
    fn rate(&self) -> UnitOutcome<TsfState, (), TsfDetail> {
        self.rate_with(|unit| Tsf.rate(unit))
    }

    /// Rated with the events shared out as `sharing` says.
    fn rate_shared(&self, sharing: Sharing) -> UnitOutcome<TsfState, (), TsfDetail> {
        self.rate_with(|unit| super::rate::rate_shared(unit, None, sharing))
    }

    fn rate_with(
        &self,
        rate: impl Fn(&Unit<'_, Tsf>) -> UnitOutcome<TsfState, (), TsfDetail>,
    ) -> UnitOutcome<TsfState, (), TsfDetail> {
        let key = UnitKey {
            date: d(5, 1),
            second: d(5, 1),
            tag: "".into(),
        };
        let parts: Vec<EventPart> = (0..self.events.len())
            .map(|event| EventPart {
                event,
                games: (0..self.events[event].games.len()).collect(),
            })
            .collect();
        let state = |p: PlayerIdx| self.states[p].as_ref();
        let state_on = |p: PlayerIdx, list: ListId| {
            (list == STANDARD)
                .then(|| self.standard[p].as_ref())
                .flatten()
        };
        let awards = |_: PlayerIdx| -> &[Award<()>] { &[] };
        let unit = Unit {
            key: &key,
            list: self.list,
            parts: &parts,
            events: &self.events,
            players: &self.players,
            state: &state,
            state_on: &state_on,
            awards: &awards,
        };
        rate(&unit)
    }
}

fn rated(rating: Rating, games: u32) -> Option<TsfState> {
    Some(TsfState::Rated { rating, games })
}

fn state_of(outcome: &UnitOutcome<TsfState, (), TsfDetail>, p: PlayerIdx) -> Option<&TsfState> {
    outcome.states.iter().find(|(q, _)| *q == p).map(|(_, s)| s)
}

fn rows_of(
    outcome: &UnitOutcome<TsfState, (), TsfDetail>,
    p: PlayerIdx,
) -> Vec<&PlayerRating<TsfDetail>> {
    outcome.ratings.iter().filter(|r| r.player == p).collect()
}

#[test]
fn b_1_e_a_months_changes_are_summed_and_rounded_once() {
    // a (1600) draws b (1590) in three events: D 10, .51, −0.2 each: −0.6 → 1599.4 → 1599.
    let events = ["e1", "e2", "e3"]
        .iter()
        .map(|id| event(id, 1, "swiss", &[(1, 0, 1, "1/2-1/2")]))
        .collect();
    let out = Month::new(vec![rated(1600, 30), rated(1590, 30)], events).rate();
    let rows = rows_of(&out, 0);
    assert_eq!(rows.len(), 3);
    assert!(
        rows.iter().all(|r| r.old == Some(1600)),
        "the list in force"
    );
    assert!(rows.iter().all(|r| r.new == 1600));
    assert_eq!(state_of(&out, 0), rated(1599, 33).as_ref());
    // b: +0.2 three times: 1590.6 → 1591.
    assert_eq!(state_of(&out, 1), rated(1591, 33).as_ref());
}

#[test]
fn b_1_e_events_of_a_month_are_taken_in_ledger_order() {
    // e2 ends before e1: the archive lists e2 first.
    let mut e1 = event("e1", 10, "swiss", &[(1, 0, 1, "1-0")]);
    let e2 = event("e2", 1, "swiss", &[(1, 0, 1, "1/2-1/2")]);
    e1.received = Some(d(4, 20));
    let out = Month::new(vec![None, None], vec![e1, e2]).rate();
    let Some(TsfState::Unrated { performances }) = state_of(&out, 0) else {
        panic!("u0 stays unrated")
    };
    let events: Vec<_> = performances.iter().map(|a| a.event.as_deref()).collect();
    assert_eq!(events, [Some("e2"), Some("e1")]);
}

#[test]
fn b_1_f_an_archive_completed_in_two_events_gives_the_ukd_at_months_end() {
    // u (archive 1500 over 1 game) plays 3 games in e1 and 3 in e2 against a (1700) and b
    // (1500): 7 games at the month's end; in e2 he is still unrated.
    let g = |r, w, b, res| (r, w, b, res);
    let e1 = event(
        "e1",
        1,
        "swiss",
        &[
            g(1, 2, 0, "1/2-1/2"),
            g(2, 1, 2, "1/2-1/2"),
            g(3, 2, 0, "1/2-1/2"),
        ],
    );
    let e2 = event(
        "e2",
        5,
        "swiss",
        &[
            g(1, 2, 1, "1/2-1/2"),
            g(2, 0, 2, "1/2-1/2"),
            g(3, 2, 1, "1/2-1/2"),
        ],
    );
    let archive = TsfState::Unrated {
        performances: vec![Archived {
            performance: 1500,
            games: 1,
            event: None,
        }]
        .into(),
    };
    let out = Month::new(
        vec![rated(1700, 30), rated(1500, 30), Some(archive)],
        vec![e1, e2],
    )
    .rate();
    let rows = rows_of(&out, 2);
    assert_eq!(rows.len(), 2);
    assert!(
        rows.iter().all(|r| r.old.is_none()),
        "unrated in both events"
    );
    // Rated average 1600, preliminary 1300: e1 1700 → 1650, 1500, 1650: 1600 (dp 0);
    // e2: 1500, 1650, 1500: 1550.
    assert_eq!(rows[0].new, 1600);
    assert_eq!(rows[1].new, 1550);
    // (1500 + 3 × 1600 + 3 × 1550) / 7 = 1564.3 → 1564.
    assert_eq!(
        state_of(&out, 2),
        Some(&TsfState::Rated {
            rating: 1564,
            games: 7
        })
    );
}

#[test]
fn b_1_l_first_rapid_events_count_the_standard_ukd_and_start_from_it() {
    let e = event("r1", 1, "swiss", &[(1, 0, 1, "1-0"), (2, 1, 0, "1/2-1/2")]);
    let mut month = Month::new(vec![None, rated(1700, 12)], vec![e]);
    month.list = RAPID;
    month.standard = vec![rated(1800, 40), rated(1500, 90)];
    let out = month.rate();
    let a = rows_of(&out, 0);
    assert_eq!(a[0].old, Some(1800));
    assert!(matches!(
        a[0].detail.figures,
        Figures::Rated(_, Source::Standard)
    ));
    // a (1800, k 20) against b (1700 on rapid): D 100, .64, We 1.28, W 1.5: +4.4.
    assert_eq!(state_of(&out, 0), rated(1804, 2).as_ref());
    // b keeps to his own rapid UKD.
    assert_eq!(rows_of(&out, 1)[0].old, Some(1700));
    assert_eq!(state_of(&out, 1), rated(1696, 14).as_ref());
}

#[test]
fn b_1_d_a_foreign_fide_player_counts_and_never_changes() {
    let e = event("e1", 1, "swiss", &[(1, 0, 1, "1-0"), (2, 1, 0, "1-0")]);
    let mut month = Month::new(vec![rated(1600, 30), None], vec![e]);
    month.players[1] = PlayerInfo {
        federation: Some("GER".into()),
        fide: vec![FideEntry {
            list_date: d(3, 1),
            standard: Some(1600),
            rapid: None,
            blitz: None,
        }],
        ..PlayerInfo::default()
    };
    let out = month.rate();
    assert_eq!(rows_of(&out, 1)[0].old, Some(1600));
    assert_eq!(state_of(&out, 1), None, "not listed");
    assert_eq!(state_of(&out, 0), rated(1600, 32).as_ref());
}

#[test]
fn b_5_a_match_with_a_rated_player_is_rated_by_b_4() {
    // a (1800) against u over six games, u scores 4: To = 1800 − 400 × (2 × 2/6 − 1) × 1/2 =
    // 1866.67 → 1867; u: .67, dp 125: 1867 + 62.5 = 1929.5 → 1930.
    let games: Vec<_> = (1..=6)
        .map(|r| (r, 0, 1, if r <= 2 { "1-0" } else { "0-1" }))
        .collect();
    let e = event("m", 1, "match", &games);
    let out = Month::new(vec![rated(1800, 30), None], vec![e]).rate();
    let u = rows_of(&out, 1);
    assert_eq!(u[0].detail.method, Method::Berger);
    assert_eq!(u[0].detail.tournament_average, Some(1867));
    assert_eq!(u[0].detail.preliminary, None);
    assert_eq!(u[0].new, 1930);
    // a against an unrated player only: 2 wins, 4 losses: 20 × 0.1 × (2 − 4) = −4.
    assert_eq!(state_of(&out, 0), rated(1796, 36).as_ref());
}

#[test]
fn b_4_a_a_round_robin_of_six_with_a_forfeit_is_swiss() {
    let mut games = Vec::new();
    for a in 0..6 {
        for b in a + 1..6 {
            games.push(((a + b) as u32, a, b, "1/2-1/2"));
        }
    }
    let states = vec![
        rated(1500, 30),
        rated(1600, 30),
        rated(1700, 30),
        rated(1800, 30),
        None,
        None,
    ];
    let out = Month::new(states.clone(), vec![event("rr", 1, "round_robin", &games)]).rate();
    assert_eq!(out.ratings[0].detail.method, Method::Berger);
    games[0].3 = "+-";
    let out = Month::new(states, vec![event("rr", 1, "round_robin", &games)]).rate();
    assert_eq!(out.ratings[0].detail.method, Method::Swiss);
    assert_eq!(out.ratings[0].detail.preliminary, Some(1350));
}

#[test]
fn b_1_e_a_months_events_rated_side_by_side_give_what_they_give_one_by_one() {
    // Forty events of eight players over six rounds (960 games), on players rated, unrated with
    // an archive, and new: each event's rows and every state as rated on this thread alone.
    let players = 80;
    let states: Vec<Option<TsfState>> = (0..players)
        .map(|p| match p % 4 {
            0 => None,
            1 => Some(TsfState::Unrated {
                performances: vec![Archived {
                    performance: 1400 + p as Rating,
                    games: 3,
                    event: None,
                }]
                .into(),
            }),
            _ => rated(1300 + 13 * p as Rating, 10 * (p as u32 % 5)),
        })
        .collect();
    let results = ["1-0", "1/2-1/2", "0-1"];
    let events: Vec<Event> = (0..40)
        .map(|e| {
            let first = (e * 7) % (players - 8);
            let games: Vec<(u32, PlayerIdx, PlayerIdx, &str)> = (1..=6u32)
                .flat_map(|round| {
                    (0..4).map(move |board| {
                        let white = first + (board + round as usize) % 8;
                        let black = first + (board + 4 + 2 * round as usize) % 8;
                        (
                            round,
                            white,
                            black,
                            results[(e + board + round as usize) % 3],
                        )
                    })
                })
                .filter(|(_, w, b, _)| w != b)
                .collect();
            event(&format!("e{e:02}"), 1 + (e as u32 % 20), "swiss", &games)
        })
        .collect();
    let month = Month::new(states, events);
    let alone = month.rate_shared(Sharing {
        threads: 1,
        one_thread_up_to: usize::MAX,
    });
    // Four threads whatever the machine's cores, each event shared out.
    let shared = month.rate_shared(Sharing {
        threads: 4,
        one_thread_up_to: 0,
    });
    assert!(alone.ratings.len() > 300, "{} rows", alone.ratings.len());
    assert!(
        alone.ratings.iter().eq(shared.ratings.iter()),
        "the same rows, in the same order"
    );
    assert_eq!(alone.states, shared.states);
}

/// A month rated again after one player's state moved ([`Tsf::rate_again`]) gives what rating it
/// whole from the new states gives, and rates again only the rows his move reaches: none when
/// only the games behind his rating moved (a row depends on the rating counted, Formula 1 sums
/// the games), his and his opponents' when his rating moved but the event's average did not
/// (B.3.a), every row of the event when it did.
#[test]
fn b_3_a_month_rated_again_rates_only_the_rows_a_move_reaches() {
    use crate::rules::Previous;
    use fixedbitset::FixedBitSet;
    use std::collections::BTreeSet;
    use std::sync::Arc;

    // Twenty rated players, two Swiss rounds: 2k plays 2k+1, then 2k+1 plays 2k+2.
    let games: Vec<(u32, PlayerIdx, PlayerIdx, &str)> = (0..10)
        .map(|k| (1, 2 * k, 2 * k + 1, ["1-0", "0-1", "1/2-1/2"][k % 3]))
        .chain((0..9).map(|k| (2, 2 * k + 1, 2 * k + 2, ["1/2-1/2", "1-0"][k % 2])))
        .collect();
    let states: Vec<Option<TsfState>> = (0..20).map(|p| rated(1500 + 37 * p, 40)).collect();
    let before = Month::new(states.clone(), vec![event("open", 1, "swiss", &games)]);
    let published = before.rate();
    let runs = published.ratings.into_runs();
    let published_states: crate::rules::States<TsfState> = published.states.into_iter().collect();
    let old_rows: Vec<PlayerRating<TsfDetail>> =
        runs.iter().flat_map(|r| r.iter().cloned()).collect();

    // (player, his new state, the players whose rows are rated again)
    let cases: [(PlayerIdx, TsfState, Vec<PlayerIdx>); 3] = [
        (
            6,
            TsfState::Rated {
                rating: 1722,
                games: 47,
            },
            vec![],
        ),
        (
            6,
            TsfState::Rated {
                rating: 1724,
                games: 40,
            },
            vec![5, 6, 7],
        ),
        (
            6,
            TsfState::Rated {
                rating: 2100,
                games: 40,
            },
            (0..20).collect(),
        ),
    ];
    for (p, state, reached) in cases {
        let mut states = states.clone();
        states[p] = Some(state.clone());
        let after = Month::new(states, before.events.clone());
        let whole = after.rate();
        let mut moved = FixedBitSet::with_capacity(20);
        moved.insert(p);
        let (changed, events_changed) = (FixedBitSet::new(), BTreeSet::new());
        let previous = Previous {
            ratings: &runs,
            states: &published_states,
            moved: &moved,
            changed: &changed,
            events_changed: &events_changed,
        };
        let again = after.rate_with(|unit| Tsf.rate_again(unit, &previous).expect("rated again"));
        assert!(
            again.ratings.iter().eq(whole.ratings.iter()),
            "{state:?}: the rows of the month rated whole"
        );
        assert_eq!(again.states, whole.states, "{state:?}");
        // A row rated again is new; one kept shares what it published.
        let rated_again: Vec<PlayerIdx> = again
            .ratings
            .iter()
            .zip(&old_rows)
            .filter(|(new, old)| !Arc::ptr_eq(&new.lines, &old.lines))
            .map(|(new, _)| new.player)
            .collect();
        assert_eq!(rated_again, reached, "{state:?}");
    }
}
