//! Which method rates an event: Swiss (A.1.a, B.3) or Berger (A.1.b, B.4, B.5), from the
//! pairing system, who played whom over the board, forfeits, and how many rated players played
//! (A.5, A.8, B.4.a).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::model::{Game, PlayerIdx};

/// An event's pairing system as the officer records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pairing {
    /// A.1.a: the Swiss system (the default).
    Swiss,
    /// A.1.b(1): an individual single round robin.
    RoundRobin,
    /// A round robin played twice: not A.1.b(1) ("tek turlu", single).
    DoubleRoundRobin,
    /// A.1.b(3): Scheveningen pairing in a match between two sides.
    Scheveningen,
    /// A.1.b(2): a match between two players (title matches).
    Match,
    /// A.6: a team event, rated individually.
    Team,
}

/// The pairing codes accepted, in the order they are listed to the officer.
pub const PAIRING_CODES: [&str; 6] = [
    "swiss",
    "round_robin",
    "double_round_robin",
    "scheveningen",
    "match",
    "team",
];

impl Pairing {
    /// The system a code names; an empty code is the Swiss default.
    pub fn parse(code: &str) -> Option<Self> {
        Some(match code {
            "" | "swiss" => Pairing::Swiss,
            "round_robin" => Pairing::RoundRobin,
            "double_round_robin" => Pairing::DoubleRoundRobin,
            "scheveningen" => Pairing::Scheveningen,
            "match" => Pairing::Match,
            "team" => Pairing::Team,
            _ => return None,
        })
    }
}

/// The two ways the procedure rates an event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Method {
    /// B.3: unrated players against preliminary ratings.
    #[default]
    Swiss,
    /// B.4: unrated players against the tournament average To.
    Berger,
}

impl Method {
    pub fn code(self) -> &'static str {
        match self {
            Method::Swiss => "swiss",
            Method::Berger => "berger",
        }
    }
}

/// The fewest players of a round robin rated by Berger (A.1.b(1): "en az altı sporcu").
pub const MIN_BERGER_PLAYERS: usize = 6;

/// The fewest rated players of a round robin rated by Berger (A.8: "en az üç").
pub const MIN_BERGER_RATED: usize = 3;

/// B.4.a: a game decided without play between two players (+/−, −/+, −/−): the event is rated
/// as Swiss. A bye is no game between two players and decides nothing here.
pub fn has_forfeit(games: &[Game]) -> bool {
    games
        .iter()
        .any(|g| g.black().is_some() && g.result.is_some_and(|r| !r.played))
}

/// A.1.b(1): every pair of the players who played met exactly once over the board.
pub fn single_round_robin(played: &[&Game], players: &BTreeSet<PlayerIdx>) -> bool {
    let mut pairs: BTreeMap<(PlayerIdx, PlayerIdx), u32> = BTreeMap::new();
    for g in played {
        let Some(black) = g.black() else { continue };
        let key = (g.white().min(black), g.white().max(black));
        *pairs.entry(key).or_default() += 1;
    }
    let m = players.len();
    pairs.len() == m * (m.saturating_sub(1)) / 2 && pairs.values().all(|&n| n == 1)
}

/// A.1, A.5, A.8, B.4.a, B.5: the method for an event, given its pairing, its games (all of
/// them, for forfeits), its played games, the players who played and how many of them were
/// rated.
///
/// - A single round robin (A.1.b(1)) is rated by Berger when every pair of its m ≥ 6 players
///   met once over the board, at least three of them were rated (A.8) and no game was decided
///   without play (B.4.a).
/// - Title matches (A.1.b(2)) and Scheveningen matches (A.1.b(3)) are rated by B.4 (B.5:
///   "A.1.c" — a numbering that exists nowhere in A.1 — is read as A.1.b(2)–(3), the only
///   systems A.1.b lists besides the round robin), including B.4.a: a forfeit makes them
///   Swiss. A.8's three rated players is read as a condition of the Berger *pairing system*
///   (a round robin), which a match of two players could never meet; B.4 needs a rated
///   average Ra, so at least one rated player must have played.
/// - Everything else is Swiss (A.5).
pub fn method(
    pairing: Pairing,
    games: &[Game],
    played: &[&Game],
    players: &BTreeSet<PlayerIdx>,
    rated_players: usize,
) -> Method {
    if has_forfeit(games) {
        return Method::Swiss;
    }
    let berger = match pairing {
        Pairing::RoundRobin => {
            players.len() >= MIN_BERGER_PLAYERS
                && rated_players >= MIN_BERGER_RATED
                && single_round_robin(played, players)
        }
        Pairing::Match | Pairing::Scheveningen => rated_players >= 1,
        Pairing::Swiss | Pairing::DoubleRoundRobin | Pairing::Team => false,
    };
    if berger {
        Method::Berger
    } else {
        Method::Swiss
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{GameResult, player_u32};

    fn game(round: u32, white: PlayerIdx, black: PlayerIdx, result: GameResult) -> Game {
        Game {
            round,
            board: 1,
            white: player_u32(white),
            black: Some(player_u32(black)),
            result: Some(result),
            date: None,
            received: None,
        }
    }

    /// A complete single round robin of `m` players (circle method).
    fn round_robin(m: usize) -> Vec<Game> {
        let mut games = Vec::new();
        for a in 0..m {
            for b in a + 1..m {
                games.push(game((a + b) as u32, a, b, GameResult::DRAW));
            }
        }
        games
    }

    fn decide(pairing: Pairing, games: &[Game], rated: usize) -> Method {
        let played: Vec<&Game> = games.iter().filter(|g| g.is_rated_game()).collect();
        let players: BTreeSet<PlayerIdx> = played
            .iter()
            .flat_map(|g| [g.white(), g.black().unwrap_or(g.white())])
            .collect();
        method(pairing, games, &played, &players, rated)
    }

    #[test]
    fn a_1_b_1_round_robin_of_six_with_three_rated_is_berger() {
        assert_eq!(
            decide(Pairing::RoundRobin, &round_robin(6), 3),
            Method::Berger
        );
    }

    #[test]
    fn a_1_b_1_five_players_is_swiss() {
        assert_eq!(
            decide(Pairing::RoundRobin, &round_robin(5), 5),
            Method::Swiss
        );
    }

    #[test]
    fn a_8_two_rated_players_is_swiss() {
        assert_eq!(
            decide(Pairing::RoundRobin, &round_robin(6), 2),
            Method::Swiss
        );
    }

    #[test]
    fn b_4_a_a_forfeit_makes_it_swiss() {
        let mut games = round_robin(6);
        games[0].result = Some(GameResult::unplayed(2, 0));
        assert_eq!(decide(Pairing::RoundRobin, &games, 6), Method::Swiss);
        let mut games = round_robin(6);
        games.push(game(9, 0, 1, GameResult::unplayed(0, 0)));
        assert_eq!(decide(Pairing::RoundRobin, &games, 6), Method::Swiss);
    }

    #[test]
    fn a_1_b_1_a_missing_or_repeated_pair_is_swiss() {
        let mut games = round_robin(6);
        games.pop();
        assert_eq!(decide(Pairing::RoundRobin, &games, 6), Method::Swiss);
        let mut games = round_robin(6);
        games.push(game(20, 0, 1, GameResult::DRAW));
        assert_eq!(decide(Pairing::RoundRobin, &games, 6), Method::Swiss);
    }

    #[test]
    fn a_1_b_1_a_bye_is_no_forfeit() {
        let mut games = round_robin(7);
        games.push(Game {
            round: 1,
            board: 4,
            white: 6,
            black: None,
            result: Some(GameResult::unplayed(2, 0)),
            date: None,
            received: None,
        });
        assert_eq!(decide(Pairing::RoundRobin, &games, 3), Method::Berger);
    }

    #[test]
    fn a_5_double_round_robin_team_and_swiss_are_swiss() {
        let mut twice = round_robin(6);
        twice.extend(round_robin(6));
        assert_eq!(decide(Pairing::DoubleRoundRobin, &twice, 6), Method::Swiss);
        assert_eq!(decide(Pairing::Team, &round_robin(6), 6), Method::Swiss);
        assert_eq!(decide(Pairing::Swiss, &round_robin(6), 6), Method::Swiss);
    }

    #[test]
    fn b_5_match_and_scheveningen_with_a_rated_player_are_berger() {
        let games: Vec<Game> = (1..=6).map(|r| game(r, 0, 1, GameResult::DRAW)).collect();
        assert_eq!(decide(Pairing::Match, &games, 1), Method::Berger);
        assert_eq!(decide(Pairing::Match, &games, 0), Method::Swiss);
        assert_eq!(decide(Pairing::Scheveningen, &games, 2), Method::Berger);
        let mut forfeit = games.clone();
        forfeit[0].result = Some(GameResult::unplayed(0, 2));
        assert_eq!(decide(Pairing::Match, &forfeit, 2), Method::Swiss);
    }

    #[test]
    fn pairing_codes_parse() {
        for code in PAIRING_CODES {
            assert!(Pairing::parse(code).is_some(), "{code}");
        }
        assert_eq!(Pairing::parse(""), Some(Pairing::Swiss));
        assert_eq!(Pairing::parse("knockout"), None);
    }
}
