//! Every real TRF file in `../shared/data/trf` reads: players and rounds as their SOURCES.md
//! counts them, and each player's points equal to what his rounds give.

use std::path::Path;

use proptest::prelude::*;
use ratedesk::import::trf::parse;

/// (file, players, rounds) from SOURCES.md — less the pseudo-player `spielfrei` of the
/// Frankfurt file (its 284 records are 283 players and the bye's pseudo-player).
const FILES: [(&str, usize, usize); 10] = [
    ("erral_fidetournament_test_demo.trf", 137, 7),
    ("sklangen_TRF_example1.trf", 283, 7),
    ("echecsjs_trf_javafo_sample2.trf", 52, 5),
    ("sanichi_icu_tournament_bunratty_masters_2011.tab", 34, 6),
    ("sanichi_icu_tournament_bunratty_minor_2011.tab", 103, 6),
    ("sanichi_icu_tournament_irish_junior_champs_2011.tab", 34, 5),
    ("sanichi_icu_tournament_armstrong_2011.tab", 160, 11),
    ("sklangen_TRF_2021_03.trf", 9, 9),
    ("OttoMilvang_TieBreakServer_held_round_robin.trf", 6, 5),
    ("echecsjs_trf_grandmommyscup.trf", 249, 14),
];

fn read(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/trf")
        .join(name);
    std::fs::read(&path)
        .unwrap_or_else(|e| panic!("the TRF sample {} could not be read: {e}", path.display()))
}

/// A sample as an event (the three samples with no readable time control get 90+30, as the
/// officer would give it) and its players as ours.
fn event_of(
    bytes: &[u8],
    name: &str,
) -> (ratedesk::model::Event, Vec<ratedesk::model::PlayerInfo>) {
    use ratedesk::import::trf_event::{parse_base_increment, parse_date, player_info, to_event};
    let file = parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let start = file.header("042").and_then(parse_date);
    let infos = file
        .players
        .iter()
        .map(|p| player_info(p, name, start, "FIN"))
        .collect();
    let numbers: std::collections::BTreeMap<u32, usize> = file
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| (p.start_number, i))
        .collect();
    let event = to_event(&file, name, &numbers, None)
        .or_else(|_| to_event(&file, name, &numbers, parse_base_increment("90+30")))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    (event, infos)
}

#[test]
fn every_sample_reads_with_its_players_and_rounds() {
    for (name, players, rounds) in FILES {
        let file = parse(&read(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(file.players.len(), players, "{name}: players");
        assert_eq!(file.rounds(), rounds, "{name}: rounds");
    }
}

#[test]
fn the_pseudo_player_of_a_bye_is_no_player() {
    let file = parse(&read("sklangen_TRF_example1.trf")).expect("parse");
    assert!(
        file.players.iter().all(|p| p.name.trim() != "spielfrei"),
        "spielfrei read as a player"
    );
    let numbers: Vec<u32> = file.pseudo.iter().map(|p| p.start_number).collect();
    assert_eq!(numbers, vec![284]);
}

#[test]
fn points_columns_agree_with_the_rounds() {
    for (name, _, _) in FILES {
        let file = parse(&read(name)).expect("parse");
        let wrong: Vec<String> = file
            .players
            .iter()
            .filter(|p| p.points.is_some() && p.blank_points().is_none())
            .map(|p| {
                format!(
                    "{} {:?} vs {}",
                    p.start_number,
                    p.points,
                    p.points_from_rounds()
                )
            })
            .collect();
        assert!(wrong.is_empty(), "{name}: {}", wrong.join("; "));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = parse(&bytes);
    }

    #[test]
    fn mutated_samples_never_panic(which in 0usize..10, at in any::<usize>(), byte in any::<u8>(), cut in any::<usize>()) {
        let mut bytes = read(FILES[which].0);
        let at = at % bytes.len();
        bytes[at] = byte;
        bytes.truncate(cut % (bytes.len() + 1));
        let _ = parse(&bytes);
    }
}

/// Rated games, forfeited games and byes per sample. Rated games and forfeits are what the round
/// cells say (counted separately from the raw lines); byes are the `0000` cells with a code,
/// plus, in the ICU files, the blank rounds their points column credits (they write half-point
/// byes as blanks).
const COUNTS: [(&str, usize, usize, usize); 10] = [
    ("erral_fidetournament_test_demo.trf", 396, 15, 137),
    // The pseudo-player `spielfrei`'s own `0000` cell is no bye of a player.
    ("sklangen_TRF_example1.trf", 970, 10, 1),
    ("echecsjs_trf_javafo_sample2.trf", 89, 4, 25),
    ("sanichi_icu_tournament_bunratty_masters_2011.tab", 97, 0, 6),
    ("sanichi_icu_tournament_bunratty_minor_2011.tab", 298, 0, 22),
    (
        "sanichi_icu_tournament_irish_junior_champs_2011.tab",
        82,
        0,
        6,
    ),
    ("sanichi_icu_tournament_armstrong_2011.tab", 522, 0, 8),
    ("sklangen_TRF_2021_03.trf", 36, 0, 9),
    ("OttoMilvang_TieBreakServer_held_round_robin.trf", 14, 1, 0),
    ("echecsjs_trf_grandmommyscup.trf", 1030, 0, 1426),
];

#[test]
fn every_sample_has_its_games_forfeits_and_byes() {
    for (name, rated, forfeits, byes) in COUNTS {
        let (event, _) = event_of(&read(name), name);
        let count = |f: &dyn Fn(&ratedesk::model::Game) -> bool| {
            event.games.iter().filter(|g| f(g)).count()
        };
        assert_eq!(count(&|g| g.is_rated_game()), rated, "{name}: rated games");
        assert_eq!(
            count(&|g| g.black().is_some() && !g.is_rated_game()),
            forfeits,
            "{name}: forfeits"
        );
        assert_eq!(count(&|g| g.black().is_none()), byes, "{name}: byes");
    }
}

/// Every sample becomes an event whose games give every player exactly the points of the
/// file's own points column (byes and forfeits keep their points, and are never rated).
#[test]
fn every_sample_becomes_an_event_with_the_files_points() {
    for (name, players, _) in FILES {
        let file = parse(&read(name)).expect("parse");
        let (event, _) = event_of(&read(name), name);
        assert_eq!(event.participants.len(), players, "{name}");
        assert!(
            event.games.iter().any(|g| g.is_rated_game()),
            "{name}: games to rate"
        );
        let mut points = vec![0u32; players];
        for g in &event.games {
            let r = g.result.expect("every game has a result");
            points[g.white()] += u32::from(r.white_halves);
            if let Some(b) = g.black() {
                points[b] += u32::from(r.black_halves);
            }
            if g.black().is_none() {
                assert!(!g.is_rated_game(), "{name}: a bye is never rated");
            }
        }
        for (i, p) in file.players.iter().enumerate() {
            if let Some(expected) = p.points {
                assert_eq!(
                    points[i], expected,
                    "{name}: player {} {}",
                    p.start_number, p.name
                );
            }
        }
    }
}

/// Import → export → import is stable: the second export is the first, byte for byte, and the
/// games are the same.
#[test]
fn import_export_import_is_stable() {
    use ratedesk::export::trf::write;
    for (name, _, _) in FILES {
        let (first, infos) = event_of(&read(name), name);
        let text = write(&first, &infos);
        let (second, infos2) = event_of(text.as_bytes(), name);
        let again = write(&second, &infos2);
        assert_eq!(text, again, "{name}: the export is not stable");
        assert_eq!(games(&first), games(&second), "{name}: the games changed");
    }
}

/// A game as compared across a round trip: round, players, result and date.
type GameKey = (
    u32,
    usize,
    Option<usize>,
    Option<String>,
    Option<chrono::NaiveDate>,
);

fn games(e: &ratedesk::model::Event) -> Vec<GameKey> {
    let mut g: Vec<_> = e
        .games
        .iter()
        .map(|g| {
            (
                g.round,
                g.white(),
                g.black(),
                g.result.map(|r| r.code()),
                g.date,
            )
        })
        .collect();
    g.sort();
    g
}

/// The rounds' dates (132) land on the games, read the way each program wrote them
/// (`YY/MM/DD`, `YY.MM.DD`, Bunratty's `YY.DD.MM`); files without them leave games undated.
#[test]
fn round_dates_come_from_132() {
    let dated = [
        ("erral_fidetournament_test_demo.trf", 7),
        ("sanichi_icu_tournament_armstrong_2011.tab", 11),
        ("sanichi_icu_tournament_bunratty_masters_2011.tab", 6),
        ("sanichi_icu_tournament_bunratty_minor_2011.tab", 6),
        ("sanichi_icu_tournament_irish_junior_champs_2011.tab", 5),
        ("echecsjs_trf_grandmommyscup.trf", 14),
        ("sklangen_TRF_example1.trf", 0),
        ("echecsjs_trf_javafo_sample2.trf", 0),
    ];
    for (name, rounds) in dated {
        let (event, _) = event_of(&read(name), name);
        let with_dates: std::collections::BTreeSet<u32> = event
            .games
            .iter()
            .filter(|g| g.date.is_some())
            .map(|g| g.round)
            .collect();
        assert_eq!(with_dates.len(), rounds, "{name}: rounds with a date");
        for g in &event.games {
            if let Some(d) = g.date {
                assert!(event.start <= d && d <= event.end, "{name}: {d}");
            }
        }
    }
    let (bunratty, _) = event_of(
        &read("sanichi_icu_tournament_bunratty_masters_2011.tab"),
        "bunratty",
    );
    let round = |r: u32| {
        bunratty
            .games
            .iter()
            .find(|g| g.round == r)
            .and_then(|g| g.date)
    };
    assert_eq!(round(1), chrono::NaiveDate::from_ymd_opt(2011, 2, 25));
    assert_eq!(round(6), chrono::NaiveDate::from_ymd_opt(2011, 2, 27));
}

/// TRF26: the round count and a national-rating record for each player with a national
/// rating; it imports as the same event, and writes again the same.
#[test]
fn trf26_with_national_ratings_round_trips() {
    use ratedesk::export::trf::{Options, write_with};
    for (name, _, _) in FILES {
        let (first, infos) = event_of(&read(name), name);
        let options = Options {
            trf26: true,
            federation: "FIN".into(),
            national: first
                .participants
                .iter()
                .step_by(2)
                .map(|&p| (p, 1500 + p as i32))
                .collect(),
        };
        let text = write_with(&first, &infos, &options);
        let nrs: Vec<&str> = text.lines().filter(|l| l.starts_with("FIN ")).collect();
        assert_eq!(nrs.len(), options.national.len(), "{name}");
        let (p, rating) = options.national[0];
        let number = first
            .participants
            .iter()
            .position(|&q| q == p)
            .expect("entered")
            + 1;
        assert_eq!(
            &nrs[0][4..8],
            format!("{number:>4}"),
            "{name}: start number"
        );
        assert_eq!(
            &nrs[0][48..52],
            format!("{rating:>4}"),
            "{name}: rating in 001's column"
        );
        let file = parse(text.as_bytes()).expect("parse");
        assert!(file.header("142").is_some(), "{name}");
        let (second, infos2) = event_of(text.as_bytes(), name);
        assert_eq!(games(&first), games(&second), "{name}: the games changed");
        assert_eq!(write_with(&second, &infos2, &options), text, "{name}");
    }
}
