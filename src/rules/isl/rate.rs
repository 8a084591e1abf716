//! Rating one ISL period: every game of the period's events with the ratings of the period's
//! start, K numbered through the period in the ledger order of the events, the changes summed
//! into the new rating, and unrated players' games accumulated towards an initial rating.

use super::{
    Entry, Isl, IslDetail, IslState, Period, Provisional, change_hundredths, entry_rating,
    expected_hundredths, initial_rating, is_junior, k_factor, new_rating, period_of_key,
    reaches_2400, reentry_in,
};
use crate::model::{Event, Game, PlayerIdx, Rating};
use std::collections::BTreeMap;

use fixedbitset::FixedBitSet;

use crate::rules::{
    Cursor, EventPart, Factors, GameLine, Grouped, Halves, PlayerRating, Previous, Unit,
    UnitOutcome,
};

/// One game that counts for a player (his opponent was rated at the period's start).
#[derive(Clone, Copy, Debug, Default)]
struct Counted {
    /// Position of the event part in ledger order.
    part: u32,
    round: u32,
    /// The opponent's player index (kept in 32 bits: a period's games are many).
    opponent: u32,
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

/// The period's players, each given a slot (a dense index) in the order they first play: the
/// per-player figures are kept in vectors by slot rather than in maps by player.
struct Slots {
    /// Per player index, his slot (`u32::MAX`: none).
    of: Vec<u32>,
    /// Per slot, the player.
    players: Vec<PlayerIdx>,
}

impl Slots {
    fn new(players: usize) -> Self {
        Self {
            of: vec![u32::MAX; players],
            players: Vec::new(),
        }
    }

    fn get(&self, p: PlayerIdx) -> Option<usize> {
        self.of
            .get(p)
            .filter(|&&s| s != u32::MAX)
            .map(|&s| s as usize)
    }

    /// The player's slot, given him if he has none yet (`true`: new).
    fn insert(&mut self, p: PlayerIdx) -> (usize, bool) {
        if let Some(s) = self.get(p) {
            return (s, false);
        }
        if p >= self.of.len() {
            self.of.resize(p + 1, u32::MAX);
        }
        let s = self.players.len();
        self.of[p] = s as u32;
        self.players.push(p);
        (s, true)
    }
}

/// "Randstæðings: Stig andstæðingsins í upphafi stigatímabils": a game counts for a player only
/// if his opponent had a rating at the period's start. A rated player's games against unrated
/// opponents are not rated, and a game between two unrated players counts for neither (the
/// original starts an unrated player's calculation with "fyrsta mótinu sem hann mætir
/// andstæðingi með skákstig", his first event against a rated opponent).
///
/// Each player's counted games in order (the parts' ledger order, by round), grouped by slot.
fn counted_games(games: &[Vec<&Game>], slots: &Slots, start: &[IslState]) -> Grouped<Counted> {
    let rating: Vec<Option<Rating>> = start.iter().map(IslState::rating).collect();
    // Each counted side of a game, in order, with the slot of the player it counts for.
    let sides = |visit: &mut dyn FnMut(usize, Counted)| {
        for (part_no, part) in games.iter().enumerate() {
            for g in part {
                let (Some(black), Some(result)) = (g.black(), g.result) else {
                    continue;
                };
                let (Some(w), Some(b)) = (slots.get(g.white()), slots.get(black)) else {
                    continue;
                };
                let sides = [
                    (w, b, black, result.white_halves),
                    (b, w, g.white(), result.black_halves),
                ];
                for (me, them, opponent, halves) in sides {
                    if let Some(opponent_rating) = rating[them] {
                        let counted = Counted {
                            part: part_no as u32,
                            round: g.round,
                            opponent: opponent as u32,
                            opponent_rating,
                            halves,
                        };
                        visit(me, counted);
                    }
                }
            }
        }
    };
    // Grouped by slot, each player's games kept in order.
    Grouped::by(slots.players.len(), sides)
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
            rows.push(self.row(part as usize, games, figs));
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
        let lines: std::sync::Arc<[GameLine]> = games
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
        let mut detail = self.detail.clone();
        match figures {
            Some(f) => {
                detail.change = Some(f.iter().map(|f| f.change).sum());
                detail.k = f.iter().map(|f| f.k).collect();
            }
            None => {
                detail.opponents_sum =
                    Some(games.iter().map(|c| i64::from(c.opponent_rating)).sum());
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
            // 7.6's figure over the lines' opponents and score, when shown.
            performance: None,
            factors: Factors {
                k: figures.and_then(|f| f.first()).map(|f| u16::from(f.k)),
                ..Factors::default()
            },
            lines,
            detail,
        }
    }
}

/// A player's state at the period's start as the unit gives it, with what he enters the list
/// on here: a foreign player without a state enters on his FIDE or national rating when he
/// can, and a returning Icelander re-entered in the period on his re-entry (the ledger gives
/// its state, `reentry_in_force`).
fn start_of(unit: &Unit<'_, Isl>, period: &Period, p: PlayerIdx) -> (IslState, Option<Entry>) {
    let info = unit.players.get(p);
    let mut entry = info.and_then(|i| reentry_in(i, period)).map(|r| r.on);
    let state = match (unit.state)(p) {
        Some(state) => state.clone(),
        None => match info.and_then(|i| entry_rating(i, period)) {
            Some((rating, how)) => {
                entry = Some(how);
                IslState::rated(rating, 0, false)
            }
            None => IslState::default(),
        },
    };
    (state, entry)
}

/// What one player of the period brings to it: his state at its start, what he enters the list
/// on here, and the part he first plays in.
struct Start {
    state: IslState,
    entry: Option<Entry>,
    first_part: usize,
}

/// The rows a player's counted games give, and his state after the period.
fn rate_player(
    unit: &Unit<'_, Isl>,
    period: &Period,
    parts: &[&EventPart],
    p: PlayerIdx,
    start: &Start,
    games: &[Counted],
) -> (IslState, Vec<PlayerRating<IslDetail>>) {
    let before = &start.state;
    match before {
        IslState::Rated {
            rating,
            games: n,
            reached_2400,
        } => {
            let junior = is_junior(unit.players.get(p).and_then(|i| i.born), period);
            let figures = rated_figures(*rating, *n, junior, *reached_2400, games);
            let total: i64 = figures.iter().map(|f| f.change).sum();
            let new = new_rating(*rating, total);
            let entry = start.entry;
            let after = if games.is_empty() && entry.is_none() {
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
                parts,
                old: Some(*rating),
                new,
                detail: IslDetail {
                    entry,
                    ..IslDetail::default()
                },
            };
            let mut rows = builder.rows(games, Some(&figures));
            // An entrant whose games do not count this period still shows his entry: a row
            // without games in the part he first played in.
            if rows.is_empty() && entry.is_some() {
                rows.push(builder.row(start.first_part, &[], Some(&[])));
            }
            (after, rows)
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
                parts,
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
    }
}

/// The period's event parts in ledger order, and each part's played games by round.
fn period_games<'a>(unit: &Unit<'a, Isl>) -> (Vec<&'a EventPart>, Vec<Vec<&'a Game>>) {
    let parts = ledger_order(unit.parts, unit.events);
    let games = parts
        .iter()
        .map(|part| games_in_order(&unit.events[part.event], part))
        .collect();
    (parts, games)
}

/// Rates one period (the unit's key names it). Every player of a played game gets his state
/// after the period back, changed or not: whether his games count for his opponents depends on
/// it, so the ledger must see him in the unit.
pub(super) fn rate(unit: &Unit<'_, Isl>) -> UnitOutcome<IslState, (), IslDetail> {
    let mut out = UnitOutcome::default();
    let period: Period = period_of_key(unit.key);
    let (parts, games) = period_games(unit);

    // Every player of a played game with his state at the period's start, and the part he
    // first plays in.
    let mut slots = Slots::new(unit.players.len());
    let mut starts: Vec<Start> = Vec::new();
    for (part_no, part) in games.iter().enumerate() {
        for g in part {
            for p in std::iter::once(g.white()).chain(g.black()) {
                if !slots.insert(p).1 {
                    continue;
                }
                let (state, entry) = start_of(unit, &period, p);
                starts.push(Start {
                    state,
                    entry,
                    first_part: part_no,
                });
            }
        }
    }
    let start: Vec<IslState> = starts.iter().map(|s| s.state.clone()).collect();
    let counted = counted_games(&games, &slots, &start);

    // In the order of the players' indices.
    let mut order: Vec<usize> = (0..slots.players.len()).collect();
    order.sort_unstable_by_key(|&s| slots.players[s]);
    out.states.reserve_exact(order.len());
    // A row per part a player has a counted game in (and one for an entrant without any): the
    // rows are kept as rated, so room is made for exactly these.
    let row_count: usize = (0..order.len())
        .map(|s| {
            let games = counted.of(s);
            let parts = games.windows(2).filter(|w| w[0].part != w[1].part).count();
            match games.len() {
                0 => usize::from(starts[s].entry.is_some() && start[s].rating().is_some()),
                _ => parts + 1,
            }
        })
        .sum();
    out.ratings.reserve_exact(row_count);
    for s in order {
        let p = slots.players[s];
        let (after, rows) = rate_player(unit, &period, &parts, p, &starts[s], counted.of(s));
        out.ratings.extend(rows);
        out.states.push((p, after));
    }
    debug_assert_eq!(out.ratings.len(), row_count, "the rows counted beforehand");
    out
}

/// Rates a period again from what it published ([`crate::rules::Rulebook::rate_again`]). Each
/// player is rated from his state at the start, his own games (Tafla 1 numbers them in ledger
/// order, Rbreyting sums them, Fyrstu stig totals an unrated player's) and his opponents' states
/// at the start ("Randstæðings: Stig andstæðingsins í upphafi stigatímabils"), so only the players whose games changed or whose state moved, and the opponents of
/// those moved, are rated anew; every other player's rows and state are taken as published.
pub(super) fn rate_again(
    unit: &Unit<'_, Isl>,
    previous: &Previous<'_, Isl>,
) -> UnitOutcome<IslState, (), IslDetail> {
    let period: Period = period_of_key(unit.key);
    let (parts, games) = period_games(unit);
    let moved = |p: PlayerIdx| previous.moved.contains(p);
    // The players rated anew whoever they play: those whose games changed or who moved.
    let mut touched = previous.changed.clone();
    touched.union_with(previous.moved);
    let anew_alone = |p: PlayerIdx| touched.contains(p);

    // The players rated anew, with what they bring (their first part found below).
    let mut anew: BTreeMap<PlayerIdx, Start> = BTreeMap::new();
    let mut marked = FixedBitSet::new();
    let mut add = |p: PlayerIdx| {
        marked.grow_and_insert(p);
        anew.entry(p).or_insert_with(|| {
            let (state, entry) = start_of(unit, &period, p);
            Start {
                state,
                entry,
                first_part: 0,
            }
        });
    };
    for g in games.iter().flatten() {
        if anew_alone(g.white()) {
            add(g.white());
        }
        if let Some(black) = g.black() {
            if anew_alone(black) || moved(g.white()) {
                add(black);
            }
            if moved(black) {
                add(g.white());
            }
        }
    }
    // Their counted games, in order, against their opponents' states at the start, and the
    // part each first plays in (a game without a result counts for that too).
    let mut found = FixedBitSet::with_capacity(marked.len());
    let mut opponents: BTreeMap<PlayerIdx, Option<Rating>> = BTreeMap::new();
    let mut counted: BTreeMap<PlayerIdx, Vec<Counted>> = BTreeMap::new();
    for (part_no, part) in games.iter().enumerate() {
        for g in part {
            for p in std::iter::once(g.white()).chain(g.black()) {
                if marked.contains(p)
                    && !found.put(p)
                    && let Some(start) = anew.get_mut(&p)
                {
                    start.first_part = part_no;
                }
            }
            let (Some(black), Some(result)) = (g.black(), g.result) else {
                continue;
            };
            let sides = [
                (g.white(), black, result.white_halves),
                (black, g.white(), result.black_halves),
            ];
            for (me, them, halves) in sides {
                if !marked.contains(me) {
                    continue;
                }
                let opponent_rating = match marked.contains(them).then(|| anew.get(&them)).flatten()
                {
                    Some(start) => start.state.rating(),
                    None => *opponents
                        .entry(them)
                        .or_insert_with(|| start_of(unit, &period, them).0.rating()),
                };
                if let Some(opponent_rating) = opponent_rating {
                    counted.entry(me).or_default().push(Counted {
                        part: part_no as u32,
                        round: g.round,
                        opponent: them as u32,
                        opponent_rating,
                        halves,
                    });
                }
            }
        }
    }

    // Every player in index order: those rated anew from here, the others as published (a
    // player whose games changed or whose state moved and who no longer plays here is gone).
    let mut out = UnitOutcome::default();
    out.states.reserve(previous.states.len() + anew.len());
    // The rows of the players kept are taken as stretches of the runs they were published in,
    // whole between two players rated anew or gone (the rows are in player order).
    let mut rows = Cursor::new(previous.ratings);
    let mut kept = previous.states.iter().peekable();
    let gone = touched
        .ones()
        .filter(|p| !anew.contains_key(p) && previous.states.contains_key(p));
    let mut not_kept: Vec<PlayerIdx> = anew.keys().copied().chain(gone).collect();
    not_kept.sort_unstable();
    for p in not_kept {
        rows.keep_below(p, &mut out.ratings);
        while let Some((&q, state)) = kept.next_if(|(q, _)| **q < p) {
            out.states.push((q, state.clone()));
        }
        // What he published goes: he is rated anew here, or no longer plays here.
        rows.skip_below(p + 1);
        kept.next_if(|(q, _)| **q == p);
        if let Some(start) = anew.get(&p) {
            let games = counted.get(&p).map_or(&[][..], Vec::as_slice);
            let (after, new_rows) = rate_player(unit, &period, &parts, p, start, games);
            out.ratings.extend(new_rows);
            out.states.push((p, after));
        }
    }
    rows.keep_below(PlayerIdx::MAX, &mut out.ratings);
    out.states
        .extend(kept.map(|(&q, state)| (q, state.clone())));
    out
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::model::{GameResult, PlayerInfo, player_u32};
    use crate::rules::isl::{STANDARD, period_of, unit_key};
    use crate::rules::{Rulebook, UnitKey};

    use crate::model::fixture::day as d;

    fn event(id: &str, start: &str, end: &str, games: &[(u32, usize, usize, &str)]) -> Event {
        Event {
            pairing: "swiss".into(),
            games: games
                .iter()
                .enumerate()
                .map(|(b, &(round, white, black, code))| Game {
                    round,
                    board: b as u32 + 1,
                    white: player_u32(white),
                    black: Some(player_u32(black)),
                    result: GameResult::parse(code),
                    date: None,
                    received: None,
                })
                .collect(),
            ..Event::new(id, d(start), d(end))
        }
    }

    fn rated(rating: Rating, games: u32) -> Option<IslState> {
        Some(IslState::rated(rating, games, false))
    }

    /// Rates the period `name` of `events` (every event's games in it) from `states`.
    fn rate_period(
        name: &str,
        events: &[Event],
        players: &[PlayerInfo],
        states: &[Option<IslState>],
    ) -> UnitOutcome<IslState, (), IslDetail> {
        let key: UnitKey = unit_key(&period_of(d(name).pred_opt().expect("date")));
        let mut parts = Vec::new();
        for (i, e) in events.iter().enumerate() {
            for (k, part) in Isl.units_of(i, e, STANDARD) {
                if k == key {
                    parts.push(part);
                }
            }
        }
        let state = |p: PlayerIdx| states.get(p).and_then(Option::as_ref);
        let state_on = |_: PlayerIdx, _: usize| None;
        let awards = |_: PlayerIdx| &[][..];
        let unit = Unit::<Isl> {
            key: &key,
            list: STANDARD,
            parts: &parts,
            events,
            players,
            state: &state,
            state_on: &state_on,
            awards: &awards,
        };
        Isl.rate(&unit)
    }

    fn state_of(out: &UnitOutcome<IslState, (), IslDetail>, p: PlayerIdx) -> Option<&IslState> {
        out.states.iter().find(|(q, _)| *q == p).map(|(_, s)| s)
    }

    fn rows_of(
        out: &UnitOutcome<IslState, (), IslDetail>,
        p: PlayerIdx,
    ) -> Vec<&PlayerRating<IslDetail>> {
        out.ratings.iter().filter(|r| r.player == p).collect()
    }

    #[test]
    fn tafla_1_numbers_games_in_ledger_order_of_the_events() {
        // Player 0 has 99 games. The event ending 20 January is given first, yet the one
        // ending 10 January holds his 100th game (K 30) and the other his 101st (K 25).
        let events = [
            event("late", "2025-01-20", "2025-01-20", &[(1, 0, 2, "1-0")]),
            event("early", "2025-01-10", "2025-01-10", &[(1, 0, 1, "0-1")]),
        ];
        let players = vec![PlayerInfo::default(); 3];
        let states = [rated(1600, 99), rated(1600, 50), rated(1600, 50)];
        let out = rate_period("2025-03-01", &events, &players, &states);
        let rows = rows_of(&out, 0);
        let k_by_event: Vec<(usize, Vec<u8>)> = rows
            .iter()
            .map(|r| (r.event, r.detail.k.to_vec()))
            .collect();
        assert_eq!(k_by_event, vec![(1, vec![30]), (0, vec![25])]);
        // −15 + 12.5 = −2.5 → 1597.5 → 1598.
        assert_eq!(state_of(&out, 0), rated(1598, 101).as_ref());
        assert!(rows.iter().all(|r| r.new == 1598));
    }

    #[test]
    fn randstaedings_games_count_only_against_opponents_rated_at_the_start() {
        // 0 rated, 1 with provisional games, 2 with nothing.
        let events = [event(
            "e",
            "2025-01-10",
            "2025-01-12",
            &[(1, 0, 1, "1-0"), (2, 1, 2, "1-0"), (3, 2, 0, "0-1")],
        )];
        let players = vec![PlayerInfo::default(); 3];
        let prov = Provisional {
            games: 1,
            opponents_sum: 1500,
            score: 1,
        };
        let states = [rated(1700, 50), Some(IslState::Provisional(prov)), None];
        let out = rate_period("2025-03-01", &events, &players, &states);
        assert!(
            rows_of(&out, 0).is_empty(),
            "no game against a rated opponent"
        );
        assert_eq!(
            state_of(&out, 0),
            rated(1700, 50).as_ref(),
            "returned unchanged"
        );
        let after = |p| state_of(&out, p).and_then(IslState::provisional).copied();
        assert_eq!(
            after(1),
            Some(Provisional {
                games: 2,
                opponents_sum: 3200,
                score: 1
            })
        );
        assert_eq!(
            after(2),
            Some(Provisional {
                games: 1,
                opponents_sum: 1700,
                score: 0
            })
        );
        let row = rows_of(&out, 1)[0];
        assert_eq!(
            (row.games, row.score, row.old, row.expected),
            (1, 0, None, None)
        );
        assert_eq!(row.detail.opponents_sum, Some(1700));
        assert!(row.detail.k.is_empty() && row.detail.change.is_none());
    }

    #[test]
    fn fyrstu_stig_at_the_periods_end_from_all_its_games() {
        // 3 earlier games; in the period 3 more against 1600s: 6 games, Σ 9300, 2.5 points.
        let events = [event(
            "e",
            "2025-04-10",
            "2025-04-12",
            &[(1, 0, 1, "1-0"), (2, 2, 0, "1/2-1/2"), (3, 0, 3, "0-1")],
        )];
        let players = vec![PlayerInfo::default(); 4];
        let prov = Provisional {
            games: 3,
            opponents_sum: 4500,
            score: 2,
        };
        let states = [
            Some(IslState::Provisional(prov)),
            rated(1600, 20),
            rated(1600, 20),
            rated(1600, 20),
        ];
        let out = rate_period("2025-06-01", &events, &players, &states);
        // Rc = 9300 / 6 = 1550, P = 2.5 / 6 = .4167 → .42: Dp −57 → 1493.
        assert_eq!(state_of(&out, 0), rated(1493, 6).as_ref());
        let row = rows_of(&out, 0)[0];
        assert!(row.detail.initial);
        assert_eq!(row.new, 1493);
        assert_eq!(
            row.detail.provisional,
            Some(Provisional {
                games: 6,
                opponents_sum: 9300,
                score: 5
            })
        );
        // The rated players' games against him are not rated.
        for p in 1..4 {
            assert!(rows_of(&out, p).is_empty());
            assert_eq!(state_of(&out, p), rated(1600, 20).as_ref());
        }
    }

    #[test]
    fn tafla_1_lock_is_set_by_the_new_rating_and_used_from_the_next_period() {
        let events = [event("e", "2025-01-15", "2025-01-15", &[(1, 0, 1, "1-0")])];
        let players = vec![PlayerInfo::default(); 2];
        let states = [rated(2390, 120), rated(2390, 120)];
        let out = rate_period("2025-03-01", &events, &players, &states);
        assert_eq!(*rows_of(&out, 0)[0].detail.k, [25], "not yet locked");
        assert_eq!(
            state_of(&out, 0),
            Some(&IslState::Rated {
                rating: 2403,
                games: 121,
                reached_2400: true
            })
        );
    }

    #[test]
    fn tafla_1_junior_by_birth_date_on_the_periods_first_day() {
        let events = [event("e", "2025-04-15", "2025-04-15", &[(1, 0, 1, "1-0")])];
        let born = |s| PlayerInfo {
            born: Some(d(s)),
            ..PlayerInfo::default()
        };
        let players = vec![born("2004-03-02"), born("2004-03-01")];
        let states = [rated(1500, 40), rated(1500, 40)];
        let out = rate_period("2025-06-01", &events, &players, &states);
        assert_eq!(*rows_of(&out, 0)[0].detail.k, [35]);
        assert_eq!(*rows_of(&out, 1)[0].detail.k, [30]);
        assert_eq!(rows_of(&out, 0)[0].detail.change, Some(1750));
        assert_eq!(rows_of(&out, 1)[0].detail.change, Some(-1500));
    }

    #[test]
    fn rnystig_floor_applies_to_the_period_sum() {
        let events = [event(
            "e",
            "2025-01-15",
            "2025-01-16",
            &[(1, 0, 1, "0-1"), (2, 0, 1, "1-0")],
        )];
        let players = vec![PlayerInfo::default(); 2];
        // −15 then +15 with the same start ratings: 1005 stays 1005, no floor mid-period.
        let states = [rated(1005, 10), rated(1005, 10)];
        let out = rate_period("2025-03-01", &events, &players, &states);
        assert_eq!(state_of(&out, 0), rated(1005, 12).as_ref());
        let lines = &rows_of(&out, 0)[0].lines;
        assert_eq!(
            lines.iter().map(|l| l.rating_after).collect::<Vec<_>>(),
            vec![1000, 1005]
        );
    }

    #[test]
    fn unplayed_games_and_other_periods_are_left_out() {
        let mut e = event(
            "e",
            "2025-02-27",
            "2025-03-02",
            &[(1, 0, 1, "+-"), (2, 0, 1, "1-0"), (3, 1, 0, "1-0")],
        );
        e.games[0].date = Some(d("2025-02-27"));
        e.games[1].date = Some(d("2025-02-28"));
        e.games[2].date = Some(d("2025-03-01"));
        let players = vec![PlayerInfo::default(); 2];
        let states = [rated(1500, 10), rated(1500, 10)];
        let out = rate_period("2025-03-01", std::slice::from_ref(&e), &players, &states);
        assert_eq!(rows_of(&out, 0)[0].games, 1);
        assert_eq!(state_of(&out, 0), rated(1515, 11).as_ref());
        let next = rate_period("2025-06-01", &[e], &players, &states);
        assert_eq!(rows_of(&next, 1)[0].games, 1);
    }
}
