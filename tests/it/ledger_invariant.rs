//! The ledger invariant: after any sequence of edits — new results, corrections in old events,
//! events inserted in the past, merges, deletions, FIDE lists, undo and redo — the stored ratings equal a
//! from-scratch calculation, bit for bit. The oracle is `ledger::rate_all`, which shares no
//! code with the incremental path but the rulebook.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use proptest::prelude::*;
use ratedesk::app::{Desk, Edit};
use ratedesk::ledger::rate_all;
use ratedesk::model::{
    Event, FideEntry, FideKind, Game, GameResult, PlayerInfo, TimeControl, player_u32,
};
use ratedesk::rules::PlayerRating;
use ratedesk::rules::ssl::{Ssl, SslState};

const RESULTS: [&str; 9] = [
    "1-0", "0-1", "1/2-1/2", "1-0", "0-1", "+-", "-+", "0-0", "1/2-0",
];
/// Minutes per player: selo, its factors, and the edges of the lists (14 and 15 minutes: pelo
/// and selo before 2011, selo both after).
const MINUTES: [u32; 6] = [90, 60, 25, 15, 14, 5];
/// The lists a FIDE import brings: one per-list file, or a combined one.
const KINDS: [&[FideKind]; 3] = [
    &[FideKind::Standard],
    &[FideKind::Rapid],
    &[FideKind::Standard, FideKind::Rapid],
];

#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// Set (or clear) the result of the k-th game (modulo the number of games).
    Result(usize, usize),
    /// A new event on day `day` of 2025 with games between the given pairs; abroad or not,
    /// and perhaps a play-off of the k-th live event (SSL 2.10).
    NewEvent {
        day: u32,
        minutes: usize,
        pairs: Vec<(usize, usize, usize)>,
        abroad: bool,
        playoff_of: Option<usize>,
    },
    /// Remove the k-th game.
    Clear(usize),
    /// Delete the k-th live event.
    DeleteEvent(usize),
    /// Merge player a into player b.
    Merge(usize, usize),
    /// Move the k-th live event to another day.
    Move(usize, u32),
    /// Give the k-th live event another time control (its play-offs may change lists).
    Retime(usize, usize),
    /// A FIDE list on day `day` for player p: of the kinds `KINDS[k]` (a per-list file brings
    /// one tempo, leaving the other missing), with a standard and a rapid rating or none.
    Fide(u32, usize, usize, Option<i32>, Option<i32>),
    Undo,
    Redo,
}

pub(crate) fn op(players: usize) -> impl Strategy<Value = Op> {
    let pair = (0..players, 0..players, 0..RESULTS.len());
    prop_oneof![
        4 => (any::<usize>(), 0..=RESULTS.len()).prop_map(|(k, r)| Op::Result(k, r)),
        3 => (
            1u32..330,
            0..MINUTES.len(),
            proptest::collection::vec(pair, 1..5),
            proptest::bool::weighted(0.25),
            proptest::option::weighted(0.2, any::<usize>()),
        )
            .prop_map(|(day, minutes, pairs, abroad, playoff_of)| Op::NewEvent {
                day,
                minutes,
                pairs,
                abroad,
                playoff_of,
            }),
        1 => any::<usize>().prop_map(Op::Clear),
        1 => any::<usize>().prop_map(Op::DeleteEvent),
        1 => (0..players, 0..players).prop_map(|(a, b)| Op::Merge(a, b)),
        1 => (any::<usize>(), 1u32..330).prop_map(|(k, d)| Op::Move(k, d)),
        1 => (any::<usize>(), 0..MINUTES.len()).prop_map(|(k, m)| Op::Retime(k, m)),
        2 => (
            1u32..330,
            0..players,
            0..KINDS.len(),
            proptest::option::of(1400i32..2400),
            proptest::option::of(1400i32..2400),
        )
            .prop_map(|(d, p, k, s, r)| Op::Fide(d, p, k, s, r)),
        1 => Just(Op::Undo),
        1 => Just(Op::Redo),
    ]
}

/// Day `n` of the histories drawn: from 2010-07-01, so that they cross 2011-01-01, where the
/// Finnish rule changed (each event is rated by the rule of its start).
fn day(n: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2010, 7, 1).expect("date") + chrono::Days::new(u64::from(n))
}

fn event(id: String, day_no: u32, minutes: u32) -> Event {
    Event {
        time_control: Some(TimeControl {
            base_seconds: minutes * 60,
            increment_seconds: 0,
            added: vec![],
        }),
        pairing: "swiss".into(),
        ..Event::new(id, day(day_no), day(day_no))
    }
}

fn seed(k: usize) -> Vec<Option<SslState>> {
    let selo = match k {
        // The foreigners stand just below I (1900, 24 normal games) and ME (2050): section 6
        // sets no condition of federation.
        6 => Some(SslState {
            rating: Some(1885),
            games: 23,
            normal_games: 23,
            ..SslState::default()
        }),
        7 => Some(SslState {
            rating: Some(2040),
            games: 30,
            normal_games: 30,
            ..SslState::default()
        }),
        _ => match k % 4 {
            0 => None,
            1 => Some(SslState {
                rating: Some(1500 + 37 * k as i32),
                games: 4,
                ..SslState::default()
            }),
            _ => Some(SslState {
                rating: Some(1600 + 53 * k as i32),
                games: 30,
                normal_games: 30,
                ..SslState::default()
            }),
        },
    };
    let pelo = k.is_multiple_of(3).then(|| SslState {
        rating: Some(1700),
        games: 5,
        ..SslState::default()
    });
    vec![selo, pelo]
}

/// Every game of every live event: (event, round, board).
fn games(desk: &Desk<Ssl>) -> Vec<(usize, u32, u32)> {
    let book = desk.book();
    let mut all = Vec::new();
    for (e, ev) in book
        .events
        .iter()
        .enumerate()
        .filter(|(e, _)| book.live[*e])
    {
        all.extend(ev.games.iter().map(|g| (e, g.round, g.board)));
    }
    all
}

fn live_events(desk: &Desk<Ssl>) -> Vec<usize> {
    (0..desk.book().events.len())
        .filter(|&e| desk.book().live[e])
        .collect()
}

/// How an edit is made: applied at once, previewed first (the workstation's way: the apply
/// takes the preview's results), or previewed and left (everything as it was).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Way {
    Apply,
    PreviewThenApply,
    PreviewOnly,
}

pub(crate) fn way() -> impl Strategy<Value = Way> {
    prop_oneof![
        2 => Just(Way::Apply),
        2 => Just(Way::PreviewThenApply),
        1 => Just(Way::PreviewOnly),
    ]
}

pub(crate) fn apply(desk: &mut Desk<Ssl>, op: &Op, way: Way, counter: &mut usize) {
    let players = desk.book().players.len();
    let edit = match op {
        Op::Result(k, r) => {
            let all = games(desk);
            if all.is_empty() {
                return;
            }
            let (event, round, board) = all[k % all.len()];
            // One past the last code clears the board: paired, no result yet.
            let result = RESULTS
                .get(*r)
                .map(|code| GameResult::parse(code).expect("code"));
            Edit::SetResult {
                event,
                round,
                board,
                result,
            }
        }
        Op::NewEvent {
            day: d,
            minutes,
            pairs,
            abroad,
            playoff_of,
        } => {
            *counter += 1;
            let mut ev = event(format!("n{counter}"), *d, MINUTES[*minutes]);
            ev.abroad = *abroad;
            let live = live_events(desk);
            ev.playoff_of = playoff_of
                .filter(|_| !live.is_empty())
                .map(|k| desk.book().events[live[k % live.len()]].id.clone());
            for (k, &(w, b, r)) in pairs.iter().enumerate() {
                ev.games.push(Game {
                    round: k as u32 + 1,
                    board: 1,
                    white: player_u32(w % players),
                    black: Some(player_u32(b % players)),
                    result: Some(GameResult::parse(RESULTS[r]).expect("code")),
                    date: None,
                    received: None,
                });
            }
            Edit::AddEvent(ev)
        }
        Op::Clear(k) => {
            let all = games(desk);
            if all.is_empty() {
                return;
            }
            let (event, round, board) = all[k % all.len()];
            Edit::ClearGame {
                event,
                round,
                board,
            }
        }
        Op::DeleteEvent(k) => {
            let live = live_events(desk);
            if live.is_empty() {
                return;
            }
            Edit::DeleteEvent(live[k % live.len()])
        }
        Op::Merge(a, b) => Edit::MergePlayers {
            keep: *b,
            remove: *a,
        },
        Op::Move(k, d) => {
            let live = live_events(desk);
            if live.is_empty() {
                return;
            }
            let e = live[k % live.len()];
            let details = Event {
                start: day(*d),
                end: day(*d),
                ..desk.book().events[e].clone()
            };
            Edit::UpdateEvent { event: e, details }
        }
        Op::Retime(k, minutes) => {
            let live = live_events(desk);
            if live.is_empty() {
                return;
            }
            let e = live[k % live.len()];
            let details = Event {
                time_control: event(String::new(), 1, MINUTES[*minutes]).time_control,
                ..desk.book().events[e].clone()
            };
            Edit::UpdateEvent { event: e, details }
        }
        Op::Fide(d, p, kinds, standard, rapid) => Edit::FideList {
            list_date: day(*d),
            kinds: KINDS[*kinds].to_vec(),
            entries: vec![(
                *p,
                FideEntry {
                    list_date: day(*d),
                    standard: *standard,
                    rapid: *rapid,
                    blitz: None,
                },
            )],
            source: "test".into(),
        },
        // Undo and redo take the officer's own newest edit: refused, changing nothing, when
        // another officer's edit has changed since what it would change back (alone, an
        // officer's newest edit is the newest, and nothing crosses it).
        Op::Undo | Op::Redo => {
            let before = desk.audit().len();
            let taken = if matches!(op, Op::Undo) {
                desk.undo()
            } else {
                desk.redo()
            };
            match taken {
                Ok(_) => {}
                Err(ratedesk::app::DeskError::Edit(_)) if desk.is_replica() => {}
                Err(ratedesk::app::DeskError::Edit(e))
                    if e.to_string().contains("would overwrite") =>
                {
                    assert_eq!(desk.audit().len(), before);
                }
                Err(e) => panic!("{op:?}: {e}"),
            }
            return;
        }
    };
    let before = desk.audit().len();
    let preview = match way {
        Way::Apply => None,
        Way::PreviewThenApply | Way::PreviewOnly => {
            let (book, units) = (format!("{:?}", desk.book()), desk.ledger().units().clone());
            let preview = desk.preview(&edit);
            // A preview leaves everything as it was.
            assert_eq!(format!("{:?}", desk.book()), book);
            assert_eq!(desk.ledger().units(), &units);
            assert_eq!(desk.audit().len(), before);
            if matches!(way, Way::PreviewOnly) {
                return;
            }
            Some(preview)
        }
    };
    match desk.apply(edit) {
        // What the preview showed is what the edit did (on a copy, other officers' edits
        // followed first may move more).
        Ok(effect) => {
            if let Some(Ok(shown)) = preview
                && effect.stored
                && !desk.is_replica()
            {
                assert_eq!(shown, effect);
            }
        }
        // A refused edit changes nothing (a copy follows what it was refused for).
        Err(_) if desk.is_replica() => {}
        Err(_) => assert_eq!(desk.audit().len(), before),
    }
}

type Rows = BTreeMap<(usize, usize), PlayerRating>;

fn by_event_and_player<'a>(ratings: impl Iterator<Item = &'a PlayerRating>) -> Rows {
    ratings.map(|r| ((r.event, r.player), r.clone())).collect()
}

/// Stored results against the oracle, and `check`.
pub(crate) fn assert_invariant(desk: &Desk<Ssl>) -> Result<(), TestCaseError> {
    let book = desk.book();
    let mut events = book.events.clone();
    for (e, ev) in events.iter_mut().enumerate() {
        if !book.live[e] {
            ev.games.clear();
        }
    }
    let oracle = rate_all(
        &Ssl,
        &book.players,
        book.seeds.clone(),
        book.held.clone(),
        &events,
    );
    prop_assert_eq!(
        by_event_and_player(desk.ledger().ratings()),
        by_event_and_player(oracle.ratings.iter())
    );
    for p in 0..book.players.len() {
        for list in 0..2 {
            prop_assert_eq!(
                desk.ledger()
                    .state(&Ssl, book, p, list)
                    .map(std::borrow::Cow::into_owned),
                oracle.states[p][list].clone(),
                "player {} list {}",
                p,
                list
            );
        }
        prop_assert_eq!(&desk.ledger().awards(book, p), &oracle.awards[p]);
    }
    prop_assert!(desk.check().is_empty(), "check: {:?}", desk.check());
    Ok(())
}

pub(crate) fn setup(dir: &std::path::Path) -> Desk<Ssl> {
    let mut desk = Desk::open(dir, Ssl).expect("open");
    for k in 0..8 {
        // Two foreigners, whose FIDE ratings count in Finland (SSL 3.9).
        let info = PlayerInfo {
            id: format!("p{k}"),
            name: format!("Pelaaja {k}"),
            federation: (k >= 6).then(|| "SWE".to_string()),
            fide_id: Some(1000 + k as u64),
            ..PlayerInfo::default()
        };
        // The second holds I: ME is his promotion.
        let held = (k == 7)
            .then(|| ratedesk::rules::Award {
                player: k,
                award: ratedesk::rules::ssl::Title::I,
                date: Some(day(0)),
                event: None,
            })
            .into_iter()
            .collect();
        desk.apply(Edit::AddPlayer {
            info,
            seeds: seed(k),
            held,
        })
        .expect("add player");
    }
    for (n, (d, minutes)) in [(40, 90), (100, 5), (200, 60)].into_iter().enumerate() {
        let mut ev = event(format!("s{n}"), d, minutes);
        for round in 1..=3u32 {
            for board in 0..4u32 {
                let (w, b) = (
                    ((board * 2 + round) % 8) as usize,
                    ((board * 2 + 1 + 3 * round) % 8) as usize,
                );
                let taken = ev.games.iter().any(|g| {
                    g.round == round
                        && [g.white(), g.black().unwrap_or(99)]
                            .iter()
                            .any(|p| *p == w || *p == b)
                });
                if w != b && !taken {
                    ev.games.push(Game {
                        round,
                        board: board + 1,
                        white: player_u32(w),
                        black: Some(player_u32(b)),
                        result: Some(GameResult::DRAW),
                        date: None,
                        received: None,
                    });
                }
            }
        }
        desk.apply(Edit::AddEvent(ev)).expect("add event");
    }
    desk
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn stored_ratings_equal_a_fresh_calculation_after_any_edits(ops in proptest::collection::vec((op(8), way()), 1..14)) {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut desk = setup(dir.path());
        assert_invariant(&desk)?;
        let mut counter = 0;
        for (op, way) in &ops {
            apply(&mut desk, op, *way, &mut counter);
            assert_invariant(&desk)?;
        }
        // What was stored is what a reopened database holds.
        let stored: Rows = by_event_and_player(desk.ledger().ratings());
        drop(desk);
        let reopened = Desk::open(dir.path(), Ssl).expect("reopen");
        prop_assert_eq!(by_event_and_player(reopened.ledger().ratings()), stored);
        assert_invariant(&reopened)?;
    }
}

/// What the draws cover, made certain: a foreigner whose Elo 2000 (a combined list) stands
/// over a later rapid-only list becomes an established 2000 (3.7) and reaches I (section 6
/// sets no condition of federation); the other, corrected to 2150 by a standard-only list,
/// reaches ME over the I he holds, and not I again; the stored
/// ratings equal a fresh calculation throughout.
#[test]
fn foreign_players_reach_titles_and_fide_lists_count_by_tempo() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut desk = setup(dir.path());
    let mut counter = 0;
    let ops = [
        Op::Fide(250, 6, 2, Some(2000), Some(1850)),
        Op::Fide(280, 6, 1, None, Some(1990)),
        Op::Fide(260, 7, 0, Some(2150), None),
        Op::NewEvent {
            day: 300,
            minutes: 0,
            pairs: vec![(6, 0, 0), (7, 1, 2)],
            abroad: false,
            playoff_of: None,
        },
    ];
    for op in &ops {
        apply(&mut desk, op, Way::PreviewThenApply, &mut counter);
        assert_invariant(&desk).expect("the invariant");
    }
    let book = desk.book();
    let titles = |p: usize| -> Vec<ratedesk::rules::ssl::Title> {
        desk.ledger()
            .awards(book, p)
            .iter()
            .filter(|a| a.event.is_some())
            .map(|a| a.award)
            .collect()
    };
    use ratedesk::rules::ssl::Title;
    assert_eq!(
        titles(6),
        vec![Title::I],
        "p6: {:?}",
        desk.ledger().state(&Ssl, book, 6, 0)
    );
    assert_eq!(
        titles(7),
        vec![Title::Me],
        "p7: {:?}",
        desk.ledger().state(&Ssl, book, 7, 0)
    );
}
