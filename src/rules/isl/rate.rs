//! Rating one ISL period: every game of the period's events with the ratings of the period's
//! start, K numbered through the period in the ledger order of the events, the changes summed
//! into the new rating, and unrated players' games accumulated towards an initial rating.

use std::collections::BTreeMap;

use super::{
    Isl, IslDetail, IslState, Period, Provisional, change_hundredths, expected_hundredths,
    initial_rating, is_junior, k_factor, new_rating, period_of_key, reaches_2400,
};
use crate::model::{Event, Game, PlayerIdx, Rating};
use crate::rules::performance::performance;
use crate::rules::{EventPart, Factors, GameLine, Halves, PlayerRating, Unit, UnitOutcome};

/// One game that counts for a player (his opponent was rated at the period's start).
#[derive(Clone, Copy, Debug)]
struct Counted {
    /// Position of the event part in ledger order.
    part: usize,
    round: u32,
    opponent: PlayerIdx,
    opponent_rating: Rating,
    halves: u8,
}

/// A rated player's figures for one counted game.
#[derive(Clone, Copy, Debug)]
struct Figures {
    k: u8,
    expected: i64,
    change: i64,
    /// The running rating after the game (R + Σ so far, rounded, floored).
    rating_after: Rating,
}

/// The period's event parts in ledger order (end, start, id), the order Tafla 1 numbers games
/// in.
fn ledger_order<'a>(parts: &'a [EventPart], events: &[Event]) -> Vec<&'a EventPart> {
    let mut parts: Vec<&EventPart> = parts.iter().collect();
    parts.sort_by(|a, b| {
        let (x, y) = (&events[a.event], &events[b.event]);
        (x.end, x.start, &x.id, a.event).cmp(&(y.end, y.start, &y.id, b.event))
    });
    parts
}

/// A part's played games by round (and board).
fn games_in_order<'e>(event: &'e Event, part: &EventPart) -> Vec<&'e Game> {
    let mut games: Vec<&Game> = part
        .games
        .iter()
        .filter_map(|&g| event.games.get(g))
        .filter(|g| g.is_rated_game())
        .collect();
    if !games.is_sorted_by_key(|g| (g.round, g.board)) {
        games.sort_by_key(|g| (g.round, g.board));
    }
    games
}

/// "Randstæðings: Stig andstæðingsins í upphafi stigatímabils": a game counts for a player only
/// if his opponent had a rating at the period's start. A rated player's games against unrated
/// opponents are not rated, and a game between two unrated players counts for neither (the
/// original starts an unrated player's calculation with "fyrsta mótinu sem hann mætir
/// andstæðingi með skákstig", his first event against a rated opponent).
fn counted_games(
    parts: &[&EventPart],
    events: &[Event],
    start: &BTreeMap<PlayerIdx, IslState>,
) -> BTreeMap<PlayerIdx, Vec<Counted>> {
    let mut by_player: BTreeMap<PlayerIdx, Vec<Counted>> = BTreeMap::new();
    for (part_no, part) in parts.iter().enumerate() {
        let event = &events[part.event];
        for g in games_in_order(event, part) {
            let (Some(black), Some(result)) = (g.black, g.result) else {
                continue;
            };
            let rating = |p: PlayerIdx| start.get(&p).and_then(IslState::rating);
            let sides = [
                (g.white, black, result.white_halves),
                (black, g.white, result.black_halves),
            ];
            for (me, opponent, halves) in sides {
                if let Some(opponent_rating) = rating(opponent) {
                    by_player.entry(me).or_default().push(Counted {
                        part: part_no,
                        round: g.round,
                        opponent,
                        opponent_rating,
                        halves,
                    });
                }
            }
        }
    }
    by_player
}

/// Tafla 1, Tafla 2 and Rbreyting for a rated player's counted games, in order; game numbers
/// continue from `games` before the period.
fn rated_figures(
    rating: Rating,
    games: u32,
    junior: bool,
    reached_2400: bool,
    counted: &[Counted],
) -> Vec<Figures> {
    let mut total = 0i64;
    counted
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let number = games.saturating_add(i as u32 + 1);
            let k = k_factor(number, junior, reached_2400);
            let expected = expected_hundredths(i64::from(rating) - i64::from(c.opponent_rating));
            let change = change_hundredths(k, c.halves, expected);
            total += change;
            Figures {
                k,
                expected,
                change,
                rating_after: new_rating(rating, total),
            }
        })
        .collect()
}

/// One row per event part in which the player has a counted game.
struct RowBuilder<'a> {
    player: PlayerIdx,
    parts: &'a [&'a EventPart],
    old: Option<Rating>,
    new: Rating,
    detail: IslDetail,
}

impl RowBuilder<'_> {
    fn rows(
        &self,
        counted: &[Counted],
        figures: Option<&[Figures]>,
    ) -> Vec<PlayerRating<IslDetail>> {
        let mut rows = Vec::new();
        let mut i = 0;
        while i < counted.len() {
            let part = counted[i].part;
            let end = i + counted[i..].iter().take_while(|c| c.part == part).count();
            let games = &counted[i..end];
            let figs = figures.map(|f| &f[i..end]);
            rows.push(self.row(part, games, figs));
            i = end;
        }
        rows
    }

    fn row(
        &self,
        part: usize,
        games: &[Counted],
        figures: Option<&[Figures]>,
    ) -> PlayerRating<IslDetail> {
        let lines: Vec<GameLine> = games
            .iter()
            .enumerate()
            .map(|(j, c)| {
                let f = figures.and_then(|f| f.get(j));
                GameLine {
                    round: c.round,
                    opponent: c.opponent,
                    halves: c.halves,
                    opponent_rating: c.opponent_rating,
                    expected: f.map(|f| f.expected.clamp(0, 100) as u8),
                    rating_after: f.map_or(self.new, |f| f.rating_after),
                }
            })
            .collect();
        let score: Halves = games.iter().map(|c| Halves::from(c.halves)).sum();
        let ratings: Vec<Rating> = games.iter().map(|c| c.opponent_rating).collect();
        let mut detail = self.detail.clone();
        match figures {
            Some(f) => {
                detail.change = Some(f.iter().map(|f| f.change).sum());
                detail.k = f.iter().map(|f| f.k).collect();
            }
            None => {
                detail.opponents_sum = Some(ratings.iter().map(|&r| i64::from(r)).sum());
            }
        }
        PlayerRating {
            player: self.player,
            event: self.parts[part].event,
            old: self.old,
            new: self.new,
            established: self.old.is_some(),
            games: games.len() as u32,
            score,
            expected: figures.map(|f| f.iter().map(|f| f.expected).sum()),
            performance: performance(&ratings, score),
            factors: Factors {
                k: figures.and_then(|f| f.first()).map(|f| u16::from(f.k)),
                ..Factors::default()
            },
            lines,
            detail,
        }
    }
}

/// Rates one period (the unit's key names it). Every player of a played game gets his state
/// after the period back, changed or not: whether his games count for his opponents depends on
/// it, so the ledger must see him in the unit.
pub(super) fn rate(unit: &Unit<'_, Isl>) -> UnitOutcome<IslState, (), IslDetail> {
    let mut out = UnitOutcome::default();
    let period: Period = period_of_key(unit.key);
    let parts = ledger_order(unit.parts, unit.events);

    let mut start: BTreeMap<PlayerIdx, IslState> = BTreeMap::new();
    for part in &parts {
        let event = &unit.events[part.event];
        for g in games_in_order(event, part) {
            for p in std::iter::once(g.white).chain(g.black) {
                start
                    .entry(p)
                    .or_insert_with(|| (unit.state)(p).cloned().unwrap_or_default());
            }
        }
    }
    let counted = counted_games(&parts, unit.events, &start);

    for (&p, before) in &start {
        let games = counted.get(&p).map_or(&[][..], Vec::as_slice);
        let (after, rows) = match before {
            IslState::Rated {
                rating,
                games: n,
                reached_2400,
            } => {
                let junior = is_junior(unit.players.get(p).and_then(|i| i.born), &period);
                let figures = rated_figures(*rating, *n, junior, *reached_2400, games);
                let total: i64 = figures.iter().map(|f| f.change).sum();
                let new = new_rating(*rating, total);
                let after = if games.is_empty() {
                    before.clone()
                } else {
                    IslState::Rated {
                        rating: new,
                        games: n.saturating_add(games.len() as u32),
                        reached_2400: *reached_2400 || reaches_2400(new),
                    }
                };
                let builder = RowBuilder {
                    player: p,
                    parts: &parts,
                    old: Some(*rating),
                    new,
                    detail: IslDetail::default(),
                };
                (after, builder.rows(games, Some(&figures)))
            }
            IslState::Provisional(record) => {
                let mut totals: Provisional = *record;
                for c in games {
                    totals.add(c.opponent_rating, c.halves);
                }
                let initial = totals
                    .qualifies()
                    .then(|| initial_rating(&totals))
                    .flatten();
                let after = match initial {
                    Some(r) => IslState::rated(r, totals.games, false),
                    None => IslState::Provisional(totals),
                };
                let builder = RowBuilder {
                    player: p,
                    parts: &parts,
                    old: None,
                    new: initial.unwrap_or(0),
                    detail: IslDetail {
                        initial: initial.is_some(),
                        provisional: Some(totals),
                        ..IslDetail::default()
                    },
                };
                (after, builder.rows(games, None))
            }
        };
        out.ratings.extend(rows);
        out.states.push((p, after));
    }
    out
}
