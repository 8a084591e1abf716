//! What the application's unit tests build their data from: a Finnish book of named players
//! (each with a status) and events, and games by round, board and players.

use crate::book::{Book, Change, Delta, EventRecord, PlayerRecord, PlayerStatus};
use crate::model::{Event, Game, PlayerIdx, PlayerInfo, player_u32};
use crate::rules::ssl::Ssl;

/// A game without a result or a date of its own.
pub fn game(round: u32, board: u32, white: PlayerIdx, black: Option<PlayerIdx>) -> Game {
    Game {
        round,
        board,
        white: player_u32(white),
        black: black.map(player_u32),
        result: None,
        date: None,
        received: None,
    }
}

/// A book of `players` (id, name as stored, status; numbered in order) and live `events`, with
/// the statuses beside it.
pub fn book_of(
    players: &[(&str, &str, PlayerStatus)],
    events: Vec<Event>,
) -> (Book<Ssl>, Vec<PlayerStatus>) {
    let (mut book, mut status) = (Book::<Ssl>::default(), Vec::new());
    let record = |id: &str, name: &str, status| PlayerRecord::<Ssl> {
        info: PlayerInfo {
            id: id.into(),
            name: name.into(),
            ..PlayerInfo::default()
        },
        seeds: vec![None, None],
        held: Vec::new(),
        confirmed: Vec::new(),
        status,
    };
    let games: Vec<Vec<Game>> = events.iter().map(|e| e.games.clone()).collect();
    Change::<Ssl> {
        players: players
            .iter()
            .enumerate()
            .map(|(p, &(id, name, s))| Delta {
                key: p,
                before: None,
                after: Some(Box::new(record(id, name, s))),
            })
            .collect(),
        events: events
            .into_iter()
            .enumerate()
            .map(|(e, event)| Delta {
                key: e,
                before: None,
                after: Some(EventRecord { event, live: true }),
            })
            .collect(),
        games: games
            .into_iter()
            .enumerate()
            .flat_map(|(e, games)| {
                games.into_iter().map(move |g| Delta {
                    key: (e, g.round, g.board),
                    before: None,
                    after: Some(g),
                })
            })
            .collect(),
    }
    .apply(&mut book, &mut status);
    (book, status)
}
