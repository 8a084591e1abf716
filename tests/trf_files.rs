//! Every real TRF file in `../shared/data/trf` reads: players and rounds as their SOURCES.md
//! counts them, and each player's points equal to what his rounds give.

use std::path::Path;

use proptest::prelude::*;
use ratedesk::import::trf::parse;

/// (file, players, rounds) from SOURCES.md.
const FILES: [(&str, usize, usize); 10] = [
    ("erral_fidetournament_test_demo.trf", 137, 7),
    ("sklangen_TRF_example1.trf", 284, 7),
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
        .map(|p| player_info(p, name, start))
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
            points[g.white] += u32::from(r.white_halves);
            if let Some(b) = g.black {
                points[b] += u32::from(r.black_halves);
            }
            if g.black.is_none() {
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
        let games = |e: &ratedesk::model::Event| {
            let mut g: Vec<_> = e
                .games
                .iter()
                .map(|g| (g.round, g.white, g.black, g.result.map(|r| r.code())))
                .collect();
            g.sort();
            g
        };
        assert_eq!(games(&first), games(&second), "{name}: the games changed");
    }
}
