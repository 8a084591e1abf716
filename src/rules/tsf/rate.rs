//! One rating unit: a month's events on one list, each rated by its method against the list in
//! force at the month's start (B.1.e), the rated players' changes summed into the next list
//! (Formula 1), the unrated players' performances archived and their first UKD published once
//! seven games are archived (B.1.f–g).

use std::collections::{BTreeMap, BTreeSet};

use fixedbitset::FixedBitSet;

use super::method::{Method, Pairing, method};
use super::rated::{RatedGame, rated_change};
use super::standing::{Source, Standing, standing};
use super::tables::{dp_for_score, new_rating, within_350};
use super::unrated::{
    Archived, berger_performance, first_ukd, preliminary, swiss_performance, tournament_average,
};
use super::{Figures, STANDARD, Tsf, TsfDetail, TsfState};
use crate::cores::{map_on_cores, threads};
use crate::model::{Event, Game, PlayerIdx, Rating};
use crate::paged::PagedBits;
use crate::rules::{
    EventPart, Factors, GameLine, Grouped, Halves, Performance, PlayerRating, Previous, Run, Unit,
    UnitOutcome,
};

/// One game from one side.
#[derive(Clone, Copy, Debug, Default)]
struct Encounter {
    round: u32,
    opponent: PlayerIdx,
    /// The opponent's place among the event's players ([`Encounters::players`]).
    slot: u32,
    halves: u8,
}

/// The event's games played over the board (A.9), in round order.
fn played_games<'e>(event: &'e Event, games: &[usize]) -> Vec<&'e Game> {
    let mut played: Vec<&Game> = games
        .iter()
        .filter_map(|&g| event.games.get(g))
        .filter(|g| g.is_rated_game())
        .collect();
    if !played.is_sorted_by_key(|g| g.round) {
        played.sort_by_key(|g| g.round);
    }
    played
}

/// The players of an event (a player counts in an event if he played a game in it), in the
/// order of their indices, and each one's games in round order: the per-player figures are
/// kept in vectors by a player's place in that order, not in maps by player.
struct Encounters {
    players: Vec<PlayerIdx>,
    /// Grouped by the player's place.
    games: Grouped<Encounter>,
}

impl Encounters {
    /// The games of the player at place `s`.
    fn of(&self, s: usize) -> &[Encounter] {
        self.games.of(s)
    }
}

/// Every player's games in the event.
fn encounters(played: &[&Game]) -> Encounters {
    let mut players: Vec<PlayerIdx> = sides(played)
        .flat_map(|(g, black, _)| [g.white(), black])
        .collect();
    players.sort_unstable();
    players.dedup();
    encounters_among(played, players).expect("every side among the players of the games")
}

/// The games played over the board with both sides, with the black player and the result.
fn sides<'g>(
    played: &'g [&'g Game],
) -> impl Iterator<Item = (&'g Game, PlayerIdx, crate::model::GameResult)> + Clone + 'g {
    played.iter().filter_map(|g| match (g.black(), g.result) {
        (Some(black), Some(result)) => Some((*g, black, result)),
        _ => None,
    })
}

/// Every player's games in the event, its players known (sorted, once each); `None` when a
/// side is not among them.
fn encounters_among(played: &[&Game], players: Vec<PlayerIdx>) -> Option<Encounters> {
    let place = |p: PlayerIdx| players.binary_search(&p).ok();
    // Each side's place, found once for the two passes that group the games.
    let places: Vec<(usize, usize)> = sides(played)
        .map(|(g, black, _)| Some((place(g.white())?, place(black)?)))
        .collect::<Option<_>>()?;
    let games = Grouped::by(players.len(), |visit| {
        for ((g, black, result), &(w, b)) in sides(played).zip(&places) {
            let side = |opponent, slot: usize, halves| Encounter {
                round: g.round,
                opponent,
                slot: slot as u32,
                halves,
            };
            visit(w, side(black, b, result.white_halves));
            visit(b, side(g.white(), w, result.black_halves));
        }
    });
    Some(Encounters { players, games })
}

/// The figures of one event that every row shares.
struct EventFigures {
    method: Method,
    average: Option<Rating>,
    preliminary: Option<Rating>,
    tournament_average: Option<Rating>,
    /// Players who played (m).
    players: u32,
}

impl EventFigures {
    /// A.1, A.5, A.8, B.3.a, B.4.a–c: the method and the averages of an event.
    fn of(event: &Event, played: &[&Game], games: &Encounters, standings: &[Standing]) -> Self {
        // The places of the rated players, and their ratings.
        let rated: Vec<(usize, Rating)> = standings
            .iter()
            .enumerate()
            .filter_map(|(s, standing)| standing.rating().map(|r| (s, r)))
            .collect();
        let average = super::tables::average(rated.iter().map(|&(_, r)| r));
        // Pairing codes are checked on input; an unknown one is rated as Swiss (A.5).
        let pairing = Pairing::parse(&event.pairing).unwrap_or(Pairing::Swiss);
        let m = games.players.len() as u32;
        // Only a round robin asks who played whom.
        let players: BTreeSet<PlayerIdx> = match pairing {
            Pairing::RoundRobin => games.players.iter().copied().collect(),
            _ => BTreeSet::new(),
        };
        let chosen = method(pairing, &event.games, played, &players, rated.len());
        let to = match (chosen, average) {
            (Method::Berger, Some(ra)) => {
                let (s, n) = rated
                    .iter()
                    .flat_map(|&(s, _)| games.of(s))
                    .fold((0 as Halves, 0u32), |(s, n), e| {
                        (s + Halves::from(e.halves), n + 1)
                    });
                tournament_average(ra, s, n, m)
            }
            _ => None,
        };
        match to {
            Some(to) => EventFigures {
                method: Method::Berger,
                average,
                preliminary: None,
                tournament_average: Some(to),
                players: m,
            },
            None => EventFigures {
                method: Method::Swiss,
                average,
                preliminary: Some(preliminary(average)),
                tournament_average: None,
                players: m,
            },
        }
    }

    /// The rating an unrated player counts with in this event: the preliminary rating
    /// (Swiss) or To (Berger).
    fn unrated_rating(&self) -> Rating {
        self.preliminary
            .or(self.tournament_average)
            .unwrap_or(super::unrated::GKD_WITHOUT_RATED)
    }

    fn detail(&self, figures: Figures) -> TsfDetail {
        TsfDetail {
            method: self.method,
            average: self.average,
            preliminary: self.preliminary,
            tournament_average: self.tournament_average,
            figures,
        }
    }
}

/// A row of one player in one event, with how he counted.
struct Row {
    standing: Standing,
    rating: PlayerRating<TsfDetail>,
}

/// B.1.a, B.1.d, B.1.l–m: how player `p` counts in `event` as things stand before the unit
/// ([`standing`], his record, his state on the unit's list and his standard UKD).
fn standing_now(
    unit: &Unit<'_, Tsf>,
    event: &Event,
    p: PlayerIdx,
    standard: &(dyn Fn(PlayerIdx) -> Option<Rating> + Sync),
) -> Standing {
    // A player missing from the record counts as one with nothing recorded.
    static NOBODY: std::sync::LazyLock<crate::model::PlayerInfo> =
        std::sync::LazyLock::new(crate::model::PlayerInfo::default);
    let info = unit.players.get(p).unwrap_or(&NOBODY);
    standing(info, unit.list, event.start, (unit.state)(p), || {
        standard(p)
    })
}

/// A rated player's row: B.3.c–e (also in Berger events).
fn rated_row(
    event_idx: usize,
    player: PlayerIdx,
    own: Rating,
    source: Source,
    games: &[Encounter],
    standings: &[Standing],
    ev: &EventFigures,
) -> PlayerRating<TsfDetail> {
    let counted = |e: &Encounter| standings[e.slot as usize].rating();
    let rated_games: Vec<RatedGame> = games
        .iter()
        .map(|e| RatedGame {
            opponent: counted(e),
            halves: e.halves,
        })
        .collect();
    let f = rated_change(own, &rated_games);
    // For reports: Formula 2 over his games against rated opponents, with their ratings as his
    // calculation used them (the procedure publishes no performance for rated players).
    let performance = f
        .opponents
        .map_or(own, |ro| ro + dp_for_score(f.rated_score, f.rated_games));
    let lines = games
        .iter()
        .map(|e| GameLine {
            round: e.round,
            opponent: e.opponent as u32,
            halves: e.halves,
            opponent_rating: counted(e).map_or(ev.unrated_rating(), |r| within_350(own, r)),
            expected: None,
            rating_after: own,
        })
        .collect();
    PlayerRating {
        player,
        event: event_idx,
        old: Some(own),
        new: new_rating(own, f.change),
        established: true,
        games: f.games,
        score: f.score,
        expected: f.expected,
        performance: Some(Performance::Finite(f64::from(performance))),
        factors: Factors {
            k: u16::try_from(f.k).ok(),
            ..Factors::default()
        },
        lines,
        detail: ev.detail(Figures::Rated(f, source)),
    }
}

/// An unrated player's row: B.3.b (Swiss) or B.4.d (Berger).
fn unrated_row(
    event_idx: usize,
    player: PlayerIdx,
    games: &[Encounter],
    standings: &[Standing],
    ev: &EventFigures,
) -> PlayerRating<TsfDetail> {
    let own = ev.unrated_rating();
    let counted = |e: &Encounter| standings[e.slot as usize].rating().unwrap_or(own);
    let score: Halves = games.iter().map(|e| Halves::from(e.halves)).sum();
    let f = match ev.method {
        Method::Swiss => {
            let opponents: Vec<Rating> = games.iter().map(counted).collect();
            swiss_performance(own, &opponents, score)
        }
        Method::Berger => berger_performance(own, ev.players, games.len() as u32, score),
    };
    let lines = games
        .iter()
        .map(|e| GameLine {
            round: e.round,
            opponent: e.opponent as u32,
            halves: e.halves,
            opponent_rating: match ev.method {
                Method::Swiss => within_350(own, counted(e)),
                Method::Berger => counted(e),
            },
            expected: None,
            rating_after: f.performance,
        })
        .collect();
    PlayerRating {
        player,
        event: event_idx,
        old: None,
        new: f.performance,
        established: false,
        games: f.games,
        score: f.score,
        expected: None,
        performance: Some(Performance::Finite(f64::from(f.performance))),
        factors: Factors {
            temporary: ev.preliminary,
            ..Factors::default()
        },
        lines,
        detail: ev.detail(Figures::Unrated(f)),
    }
}

/// Every player's row in one event, in player order.
fn rate_event(
    unit: &Unit<'_, Tsf>,
    event_idx: usize,
    games: &[usize],
    standard: &(dyn Fn(PlayerIdx) -> Option<Rating> + Sync),
) -> Vec<Row> {
    let Some(event) = unit.events.get(event_idx) else {
        return Vec::new();
    };
    let played = played_games(event, games);
    let by_player = encounters(&played);
    let standings: Vec<Standing> = by_player
        .players
        .iter()
        .map(|&p| standing_now(unit, event, p, standard))
        .collect();
    let ev = EventFigures::of(event, &played, &by_player, &standings);
    by_player
        .players
        .iter()
        .enumerate()
        .map(|(s, &p)| {
            let standing = standings[s];
            let games = by_player.of(s);
            let rating = match standing {
                Standing::Rated { rating, source, .. } => {
                    rated_row(event_idx, p, rating, source, games, &standings, &ev)
                }
                Standing::Unrated => unrated_row(event_idx, p, games, &standings, &ev),
            };
            Row { standing, rating }
        })
        .collect()
}

/// Up to how many games a unit's events to rate hold for them to be rated on this thread
/// alone: more are shared out among the cores (a thread started costs about as much as
/// rating some thirty games).
const ONE_THREAD_UP_TO: usize = 256;

/// How a unit's events to rate are shared out: among `threads` threads once they hold more
/// than `one_thread_up_to` games (byes and forfeits counted).
#[derive(Clone, Copy, Debug)]
pub(super) struct Sharing {
    pub threads: usize,
    pub one_thread_up_to: usize,
}

impl Sharing {
    /// The machine's cores, for events that hold more than [`ONE_THREAD_UP_TO`] games.
    fn cores() -> Self {
        Sharing {
            threads: threads(),
            one_thread_up_to: ONE_THREAD_UP_TO,
        }
    }
}

/// How an event's rows in a unit are found: rated whole, or from the rows it published, of
/// which some players' standings moved since (their places in `run`).
enum Plan<'r> {
    Rate,
    Patch {
        run: &'r Run<TsfDetail>,
        moved: &'r [usize],
    },
}

/// B.1.e: every event of a month is rated against the list in force at its start, apart from
/// the others, so a month's events are rated side by side as `sharing` says; each one's rows
/// come back in the order of `parts`.
fn rate_events(
    unit: &Unit<'_, Tsf>,
    parts: &[(&EventPart, Plan<'_>)],
    standard: &(dyn Fn(PlayerIdx) -> Option<Rating> + Sync),
    sharing: Sharing,
) -> Vec<EventRows> {
    let rate = |(part, plan): &(&EventPart, Plan<'_>)| match plan {
        Plan::Rate => EventRows::Rated(rate_event(unit, part.event, &part.games, standard)),
        Plan::Patch { run, moved } => {
            patch_event(unit, part.event, &part.games, run, moved, standard)
        }
    };
    let games: usize = parts.iter().map(|(part, _)| part.games.len()).sum();
    if parts.len() < 2 || games <= sharing.one_thread_up_to {
        return parts.iter().map(rate).collect();
    }
    map_on_cores(parts, sharing.threads, rate)
}

/// B.1.a, B.1.d, B.1.l–m: how a player counted in an event, as his row there says: with his
/// rating and where it came from, or unrated (the games behind a rating are not in a row: 0).
fn standing_of_row(row: &PlayerRating<TsfDetail>) -> Standing {
    match (&row.detail.figures, row.old) {
        (Figures::Rated(_, source), Some(rating)) => Standing::Rated {
            rating,
            source: *source,
            games: 0,
        },
        _ => Standing::Unrated,
    }
}

/// What of a standing a row depends on: the rating counted and where it came from (the games
/// behind it only reach the player's month).
fn counted_as(standing: Standing) -> Option<(Rating, Source)> {
    match standing {
        Standing::Rated { rating, source, .. } => Some((rating, source)),
        Standing::Unrated => None,
    }
}

/// B.3.a–e, B.4, Formula 1: an event as it was, rated again because the states of some of its
/// players (`moved`, their places in the rows it published) moved since. A row depends on the player's own standing,
/// his games, his opponents' ratings as counted and the event's figures — not on the games
/// behind a rating. So the players whose rating as counted is what it was leave every row as it
/// was (their months are summed again all the same). When some player's is not, the event is
/// rated from the standings its rows were rated from, the moved players' as they are now: only
/// his row and his opponents' when the event's figures come out as they were, every row when
/// not. Nobody else's state is looked up: those who did not move count as they did.
fn patch_event(
    unit: &Unit<'_, Tsf>,
    event_idx: usize,
    games: &[usize],
    run: &Run<TsfDetail>,
    moved: &[usize],
    standard: &(dyn Fn(PlayerIdx) -> Option<Rating> + Sync),
) -> EventRows {
    let Some(event) = unit.events.get(event_idx) else {
        return EventRows::Rated(Vec::new());
    };
    let mut standings: Vec<Standing> = run.iter().map(standing_of_row).collect();
    let mut differs = FixedBitSet::with_capacity(run.len());
    for &s in moved {
        let now = standing_now(unit, event, run[s].player, standard);
        if counted_as(now) != counted_as(standings[s]) {
            differs.insert(s);
        }
        standings[s] = now;
    }
    if differs.is_clear() {
        return EventRows::Kept(run.clone());
    }
    let played = played_games(event, games);
    // The players of its rated games are those of its rows (the event is as it was).
    let by_player = encounters_among(&played, run.iter().map(|r| r.player).collect())
        .filter(|by| (0..run.len()).all(|s| !by.of(s).is_empty()));
    let Some(by_player) = by_player else {
        return EventRows::Rated(rate_event(unit, event_idx, games, standard));
    };
    let ev = EventFigures::of(event, &played, &by_player, &standings);
    let was = &run[0].detail;
    let figures_kept = (ev.method, ev.average, ev.preliminary, ev.tournament_average)
        == (
            was.method,
            was.average,
            was.preliminary,
            was.tournament_average,
        );
    let reached = |s: usize| {
        differs.contains(s)
            || by_player
                .of(s)
                .iter()
                .any(|e| differs.contains(e.slot as usize))
    };
    let rows = (0..run.len())
        .filter(|&s| !figures_kept || reached(s))
        .map(|s| {
            let p = run[s].player;
            let games = by_player.of(s);
            let row = match standings[s] {
                Standing::Rated { rating, source, .. } => {
                    rated_row(event_idx, p, rating, source, games, &standings, &ev)
                }
                Standing::Unrated => unrated_row(event_idx, p, games, &standings, &ev),
            };
            (s, row)
        })
        .collect();
    EventRows::Patched {
        run: run.clone(),
        rows,
    }
}

/// The rows a unit published of each event it may take them from: an event as it was (not
/// among those changed since), with the places of its players whose state moved since (an
/// event's rows are its players, each once: those of its rated games). Each event's rows were
/// published together, in player order, as `rate_event` gave them, within one run; an event
/// whose rows were found in two places is not taken (it is rated again).
fn published_by_event(previous: &Previous<'_, Tsf>) -> BTreeMap<usize, Published> {
    let mut at = BTreeMap::new();
    let mut not_kept = BTreeSet::new();
    for run in previous.ratings {
        let mut from = 0;
        while let Some(first) = run.get(from) {
            let mut len = 0;
            let mut moved = Vec::new();
            for row in run[from..].iter().take_while(|r| r.event == first.event) {
                if previous.moved.contains(row.player) {
                    moved.push(len);
                }
                len += 1;
            }
            let published = Published {
                run: run.slice(from..from + len),
                moved,
            };
            let split = at.insert(first.event, published).is_some();
            if split || previous.events_changed.contains(&first.event) {
                not_kept.insert(first.event);
            }
            from += len;
        }
    }
    at.retain(|e, _| !not_kept.contains(e));
    at
}

/// An event's rows in a unit: kept as published, rated now with the standings they were rated
/// from, or kept as published but for some rated now (by their places in the run).
enum EventRows {
    Kept(Run<TsfDetail>),
    Rated(Vec<Row>),
    Patched {
        run: Run<TsfDetail>,
        rows: Vec<(usize, PlayerRating<TsfDetail>)>,
    },
}

impl EventRows {
    fn len(&self) -> usize {
        match self {
            EventRows::Kept(run) | EventRows::Patched { run, .. } => run.len(),
            EventRows::Rated(rows) => rows.len(),
        }
    }

    /// The players whose month is to be summed again for this event: every player of an event
    /// rated now, and the players of an event patched whose row adds something else to his
    /// month than it did.
    fn summed_again(&self) -> Vec<PlayerIdx> {
        match self {
            EventRows::Kept(_) => Vec::new(),
            EventRows::Rated(rows) => rows.iter().map(|row| row.rating.player).collect(),
            EventRows::Patched { run, rows } => rows
                .iter()
                .filter(|(s, row)| row.detail.figures != run[*s].detail.figures)
                .map(|(_, row)| row.player)
                .collect(),
        }
    }
}

/// An event's rows as it published them, and the places among them of its players whose state
/// moved since.
struct Published {
    run: Run<TsfDetail>,
    moved: Vec<usize>,
}

/// What a player's month adds up to on the list.
enum Tally {
    /// Formula 1: the rating at the month's start, the games before, and the month's games
    /// and summed change in hundredths.
    Rated {
        old: Rating,
        games_before: u32,
        games: u32,
        change: i64,
    },
    /// B.3.f: the archive, each event's performance added.
    Unrated { archive: Vec<Archived> },
}

impl Tally {
    /// B.1.c, B.1.f, Formula 1: the state published at the month's end.
    fn state(self) -> TsfState {
        match self {
            Tally::Rated {
                old,
                games_before,
                games,
                change,
            } => TsfState::Rated {
                rating: new_rating(old, change),
                games: games_before + games,
            },
            Tally::Unrated { archive } => match first_ukd(&archive) {
                Some(rating) => TsfState::Rated {
                    rating,
                    games: super::unrated::archived_games(&archive),
                },
                None => TsfState::Unrated {
                    performances: archive.into(),
                },
            },
        }
    }
}

/// B.1.e, B.1.f–g, B.3.f, Formula 1: rates a month's events on one list. Every event counts the
/// ratings of the list in force (nothing changes during the month); a rated player's changes
/// from all of them are summed; an unrated player's performance in each event is archived, in
/// the ledger order of the events.
///
/// `again`: what the unit published when last rated, and what moved since. An event as it was,
/// none of whose players moved, keeps its rows. A player's month is summed again only when he
/// plays in an event rated now, moved, or had a game changed (his standing found again for his
/// kept rows); every other player's state is the one published, for it came from the same rows
/// and the same standings.
pub(super) fn rate(
    unit: &Unit<'_, Tsf>,
    again: Option<&Previous<'_, Tsf>>,
) -> UnitOutcome<TsfState, (), TsfDetail> {
    rate_shared(unit, again, Sharing::cores())
}

/// [`rate`], the events to rate shared out as `sharing` says.
pub(super) fn rate_shared(
    unit: &Unit<'_, Tsf>,
    again: Option<&Previous<'_, Tsf>>,
    sharing: Sharing,
) -> UnitOutcome<TsfState, (), TsfDetail> {
    let mut parts: Vec<_> = unit.parts.iter().collect();
    parts.sort_by(|a, b| {
        let key = |e: usize| unit.events.get(e).map(|e| (e.end, e.start, e.id.as_str()));
        key(a.event).cmp(&key(b.event))
    });
    let standard = |p: PlayerIdx| (unit.state_on)(p, STANDARD).and_then(TsfState::rating);
    let published = again.map(published_by_event).unwrap_or_default();
    let plans: Vec<(&EventPart, Option<&Published>)> = parts
        .iter()
        .map(|part| (*part, published.get(&part.event)))
        .collect();
    let to_rate: Vec<(&EventPart, Plan<'_>)> = plans
        .iter()
        .filter_map(|&(part, published)| match published {
            None => Some((part, Plan::Rate)),
            Some(p) if p.moved.is_empty() => None,
            Some(p) => Some((
                part,
                Plan::Patch {
                    run: &p.run,
                    moved: &p.moved,
                },
            )),
        })
        .collect();
    let mut rated = rate_events(unit, &to_rate, &standard, sharing).into_iter();
    let events: Vec<(usize, EventRows)> = plans
        .iter()
        .map(|&(part, published)| {
            let rows = match published {
                Some(p) if p.moved.is_empty() => EventRows::Kept(p.run.clone()),
                _ => rated.next().expect("rows for every event to rate"),
            };
            (part.event, rows)
        })
        .collect();
    // Rated again: the players whose month is summed again.
    // (In pages: the players changed and moved are a few of the federation's, and a copy of
    // the update's flat set of them was as large as the federation.)
    let anew: Option<PagedBits> = again.map(|previous| {
        let mut anew = PagedBits::new();
        for p in previous.changed.ones().chain(previous.moved.ones()) {
            anew.insert(p);
        }
        for (_, rows) in &events {
            for p in rows.summed_again() {
                anew.insert(p);
            }
        }
        anew
    });
    let mut tallies: BTreeMap<PlayerIdx, Tally> = BTreeMap::new();
    let mut outcome = UnitOutcome::default();
    // Rated whole, the unit keeps its rows as rated: room is made for exactly these (a month's
    // rows grown by doubling would be copied, and over-allocated, many times).
    if anew.is_none() {
        outcome
            .ratings
            .reserve_exact(events.iter().map(|(_, rows)| rows.len()).sum());
    }
    for (event_idx, rows) in events {
        let Some(event) = unit.events.get(event_idx) else {
            continue;
        };
        // A row kept is summed again with the standing its player has now, when his month is.
        let sum_kept = |rating: &PlayerRating<TsfDetail>, tallies: &mut _| {
            if anew.as_ref().is_none_or(|a| a.contains(rating.player)) {
                let standing = standing_now(unit, event, rating.player, &standard);
                tally(tallies, unit, standing, rating, &event.id);
            }
        };
        match rows {
            EventRows::Rated(rows) => {
                for row in rows {
                    tally(&mut tallies, unit, row.standing, &row.rating, &event.id);
                    outcome.ratings.push(row.rating);
                }
            }
            EventRows::Kept(run) => {
                for rating in run.iter() {
                    sum_kept(rating, &mut tallies);
                }
                outcome.ratings.keep(run);
            }
            EventRows::Patched { run, rows } => {
                // Copied whole with the rows rated now: an event's rows stay in one run, where
                // the next update finds them as published.
                outcome.ratings.reserve(run.len());
                let mut rows = rows.into_iter().peekable();
                for (s, kept) in run.iter().enumerate() {
                    let rating = match rows.next_if(|(at, _)| *at == s) {
                        Some((_, rating)) => rating,
                        None => kept.clone(),
                    };
                    sum_kept(&rating, &mut tallies);
                    outcome.ratings.push(rating);
                }
            }
        }
    }
    let summed = tallies.into_iter().map(|(p, t)| (p, t.state()));
    outcome.states = match again.zip(anew.as_ref()) {
        Some((previous, anew)) => {
            let published = previous
                .states
                .iter()
                .filter(|(p, _)| !anew.contains(**p))
                .map(|(&p, s)| (p, s.clone()));
            merged(published, summed)
        }
        None => summed.collect(),
    };
    outcome
}

/// Formula 1, B.1.d, B.3.f: adds a player's row in an event (`event_id`) to his month, by the
/// standing he was rated with: a rated player's change to his sum, an unrated player's
/// performance to his archive, a foreigner's FIDE rating to nothing.
fn tally(
    tallies: &mut BTreeMap<PlayerIdx, Tally>,
    unit: &Unit<'_, Tsf>,
    standing: Standing,
    row: &PlayerRating<TsfDetail>,
    event_id: &str,
) {
    let p = row.player;
    match (standing, &row.detail.figures) {
        // B.1.d: a foreign player's FIDE rating never changes here.
        (
            Standing::Rated {
                source: Source::Fide,
                ..
            },
            _,
        ) => {}
        (Standing::Rated { rating, games, .. }, Figures::Rated(f, _)) => {
            let tally = tallies.entry(p).or_insert(Tally::Rated {
                old: rating,
                games_before: games,
                games: 0,
                change: 0,
            });
            if let Tally::Rated { games, change, .. } = tally {
                *games += f.games;
                *change += f.change;
            }
        }
        (_, Figures::Unrated(f)) => {
            let tally = tallies.entry(p).or_insert_with(|| Tally::Unrated {
                archive: match (unit.state)(p) {
                    Some(TsfState::Unrated { performances }) => performances.to_vec(),
                    _ => Vec::new(),
                },
            });
            if let Tally::Unrated { archive } = tally {
                archive.push(Archived {
                    performance: f.performance,
                    games: f.games,
                    event: Some(event_id.to_owned()),
                });
            }
        }
        // A rated standing always carries rated figures.
        (Standing::Unrated, Figures::Rated(..)) => {}
    }
}

/// Two lists of states sorted by player, with no player in both, as one sorted list.
fn merged<S>(
    a: impl Iterator<Item = (PlayerIdx, S)>,
    b: impl Iterator<Item = (PlayerIdx, S)>,
) -> Vec<(PlayerIdx, S)> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    // Room for all at once: the published states are most of them (filtered, their lower
    // bound is none).
    let room = |hint: (usize, Option<usize>)| hint.1.unwrap_or(hint.0);
    let mut all = Vec::with_capacity(room(a.size_hint()) + room(b.size_hint()));
    loop {
        let a_first = match (a.peek(), b.peek()) {
            (None, None) => break,
            (Some((p, _)), Some((q, _))) => p < q,
            (Some(_), None) => true,
            (None, Some(_)) => false,
        };
        all.extend(if a_first { a.next() } else { b.next() });
    }
    all
}
