//! A Finnish rating unit's games from each side (bookkeeping for `selo` and `pelo`): the
//! participants numbered by slot in ascending player order, and each one's rated games in round
//! order, held flat and grouped by slot, the opponent by his slot.

use crate::model::{Event, PlayerIdx};
use crate::rules::EventPart;

/// A participant's place in a unit: his index in [`Encounters::players`].
pub(super) type Slot = usize;

/// One rated game from one side.
#[derive(Clone, Copy, Debug)]
pub(super) struct Encounter {
    pub opponent: Slot,
    pub halves: u8,
    pub round: u32,
}

/// Every participant's rated games in the event.
pub(super) struct Encounters {
    /// The participants in ascending order; a participant's slot is his index here.
    pub players: Vec<PlayerIdx>,
    /// Slot `s`'s games are `games[offsets[s]..offsets[s + 1]]`.
    offsets: Vec<usize>,
    games: Vec<Encounter>,
}

/// One rated game, while the participants are being numbered.
struct Played {
    white: PlayerIdx,
    black: PlayerIdx,
    /// White's and black's points in halves.
    halves: [u8; 2],
    round: u32,
}

/// Fibonacci hashing's multiplier: 2⁶⁴ divided by the golden ratio.
const FIBONACCI: u64 = 0x9E37_79B9_7F4A_7C15;

impl Encounters {
    /// The event's played games (2.9: only games where both moved are rated) in round order,
    /// from each side.
    pub fn of(event: &Event, part: &EventPart) -> Self {
        let mut played: Vec<Played> = Vec::with_capacity(part.games.len());
        for g in part.games.iter().map(|&g| &event.games[g]) {
            let (Some(black), Some(result)) = (g.black(), g.result) else {
                continue;
            };
            if g.is_rated_game() {
                played.push(Played {
                    white: g.white(),
                    black,
                    halves: [result.white_halves, result.black_halves],
                    round: g.round,
                });
            }
        }
        // Stored games come in round order already; sorting is for events given otherwise.
        if !played.is_sorted_by_key(|g| g.round) {
            played.sort_by_key(|g| g.round);
        }

        // Side `2k` is game k's white, `2k + 1` its black; `first[ids[side]]` is its player,
        // the participants numbered in order of first appearance.
        let (first, mut ids) = first_appearances(&played);
        // Slots in ascending player order.
        let mut players = first.clone();
        players.sort_unstable();
        let slot_of: Vec<Slot> = first
            .iter()
            .map(|p| players.binary_search(p).unwrap_or_else(|s| s))
            .collect();
        for id in &mut ids {
            *id = slot_of[*id];
        }

        // Counting sort by slot, in game order within each slot: `offsets[s]` first counts slot
        // `s - 1`'s games, then (summed) is where slot `s` starts, then serves as slot `s`'s
        // cursor, ending where slot `s + 1` starts; shifted back one place it is the start again.
        let n = players.len();
        let mut offsets = vec![0usize; n + 1];
        for &slot in &ids {
            offsets[slot + 1] += 1;
        }
        for s in 1..=n {
            offsets[s] += offsets[s - 1];
        }
        let blank = Encounter {
            opponent: 0,
            halves: 0,
            round: 0,
        };
        let mut games = vec![blank; ids.len()];
        for (g, sides) in played.iter().zip(ids.chunks_exact(2)) {
            let (white, black) = (sides[0], sides[1]);
            for (me, opponent, halves) in [(white, black, g.halves[0]), (black, white, g.halves[1])]
            {
                games[offsets[me]] = Encounter {
                    opponent,
                    halves,
                    round: g.round,
                };
                offsets[me] += 1;
            }
        }
        offsets.copy_within(0..n, 1);
        offsets[0] = 0;
        Self {
            players,
            offsets,
            games,
        }
    }

    /// The number of participants.
    pub fn len(&self) -> usize {
        self.players.len()
    }

    /// The participant's games in round order.
    pub fn of_slot(&self, slot: Slot) -> &[Encounter] {
        &self.games[self.offsets[slot]..self.offsets[slot + 1]]
    }
}

/// The games' players in order of first appearance, and each side's number among them (white's
/// then black's, game by game): an open-addressing table by Fibonacci hashing with linear
/// probing, kept at most half full.
fn first_appearances(played: &[Played]) -> (Vec<PlayerIdx>, Vec<usize>) {
    let sides = 2 * played.len();
    let capacity = (2 * sides).next_power_of_two().max(2);
    let shift = u64::BITS - capacity.trailing_zeros();
    let mut table = vec![usize::MAX; capacity];
    let mut first: Vec<PlayerIdx> = Vec::new();
    let mut ids: Vec<usize> = Vec::with_capacity(sides);
    for p in played.iter().flat_map(|g| [g.white, g.black]) {
        let mut at = ((p as u64).wrapping_mul(FIBONACCI) >> shift) as usize;
        let id = loop {
            match table[at] {
                usize::MAX => {
                    table[at] = first.len();
                    first.push(p);
                    break table[at];
                }
                id if first[id] == p => break id,
                _ => at = (at + 1) & (capacity - 1),
            }
        };
        ids.push(id);
    }
    (first, ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Game, GameResult, player_u32};

    fn game(round: u32, white: PlayerIdx, black: PlayerIdx, code: &str) -> Game {
        Game {
            round,
            board: 1,
            white: player_u32(white),
            black: Some(player_u32(black)),
            result: GameResult::parse(code),
            date: None,
            received: None,
        }
    }

    /// A large field (the numbering's table grows several times), scattered player indices:
    /// the same participants and games as grouping by a map.
    #[test]
    fn a_large_field_groups_as_a_map_does() {
        let mut x: u64 = 7;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let field: Vec<PlayerIdx> = (0..300).map(|_| (next() % 1_000_000) as usize).collect();
        let mut games = Vec::new();
        for round in 1..=9 {
            for _ in 0..150 {
                let (w, b) = (next() as usize % 300, next() as usize % 300);
                let code = ["1-0", "0-1", "1/2-1/2"][next() as usize % 3];
                games.push(game(round, field[w], field[b], code));
            }
        }
        let event = super::super::standard_event(games);
        let part = EventPart {
            event: 0,
            games: (0..event.games.len()).collect(),
        };
        let mut map = std::collections::BTreeMap::<PlayerIdx, Vec<(PlayerIdx, u8, u32)>>::new();
        for g in &event.games {
            let (Some(black), Some(r)) = (g.black(), g.result) else {
                continue;
            };
            map.entry(g.white())
                .or_default()
                .push((black, r.white_halves, g.round));
            map.entry(black)
                .or_default()
                .push((g.white(), r.black_halves, g.round));
        }
        let e = Encounters::of(&event, &part);
        assert_eq!(e.players, map.keys().copied().collect::<Vec<_>>());
        for (slot, games) in map.values().enumerate() {
            let seen: Vec<(PlayerIdx, u8, u32)> = e
                .of_slot(slot)
                .iter()
                .map(|x| (e.players[x.opponent], x.halves, x.round))
                .collect();
            assert_eq!(&seen, games);
        }
    }

    /// Participants in ascending player order, each one's games in round order (games given
    /// out of round order too), unplayed games and byes left out.
    #[test]
    fn participants_by_slot_and_games_in_round_order() {
        let mut bye = game(1, 9, 9, "1-0");
        bye.black = None;
        let event = super::super::standard_event(vec![
            game(2, 70, 5, "0-1"),
            game(1, 5, 30, "1/2-1/2"),
            bye,
            game(1, 70, 1000, "1-0"),
            game(2, 30, 1000, "+-"),
        ]);
        let part = EventPart {
            event: 0,
            games: (0..event.games.len()).collect(),
        };
        let e = Encounters::of(&event, &part);
        assert_eq!(e.players, vec![5, 30, 70, 1000]);
        assert_eq!(e.len(), 4);
        let seen = |slot: Slot| -> Vec<(PlayerIdx, u8, u32)> {
            e.of_slot(slot)
                .iter()
                .map(|x| (e.players[x.opponent], x.halves, x.round))
                .collect()
        };
        assert_eq!(seen(0), vec![(30, 1, 1), (70, 2, 2)]);
        assert_eq!(seen(1), vec![(5, 1, 1)], "a forfeit is not a played game");
        assert_eq!(seen(2), vec![(1000, 2, 1), (5, 0, 2)]);
        assert_eq!(seen(3), vec![(70, 0, 1)]);
    }
}
