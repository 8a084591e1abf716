//! How the demo federations' games are played: results drawn from hidden strengths, fields
//! drawn from a pool, Swiss pairings by score groups and Berger round robins, and round dates.
//! Every federation's generator plays its events with these, so the draws of one seed are the
//! same everywhere.

use chrono::{Datelike, Days, NaiveDate};

use super::Rng;
use crate::book::Book;
use crate::model::{Event, Game, GameResult, PlayerIdx, PlayerInfo, TimeControl, player_u32};
use crate::rules::Rulebook;

/// A date, or the earliest date when the numbers name none (the generators only ask for real
/// ones).
pub(super) fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap_or(NaiveDate::MIN)
}

/// A time control of `minutes` with an increment of `increment` seconds a move.
pub(super) fn tc(minutes: u32, increment: u32) -> Option<TimeControl> {
    Some(TimeControl {
        base_seconds: minutes * 60,
        increment_seconds: increment,
        added: Vec::new(),
    })
}

/// An event with no games yet: a domestic Swiss over `days` days after `start`.
pub(super) fn event(
    id: String,
    name: String,
    start: NaiveDate,
    days: u64,
    time: Option<TimeControl>,
) -> Event {
    Event {
        id,
        name,
        start,
        end: start + Days::new(days),
        time_control: time,
        abroad: false,
        official_representation: false,
        age_limit: None,
        playoff_of: None,
        received: None,
        pairing: "swiss".into(),
        participants: Vec::new(),
        games: Vec::new(),
    }
}

/// Dates every game by its round: the rounds spread evenly from the event's start to its end
/// (round 1 on the first day, the last round on the last).
pub(super) fn date_rounds(event: &mut Event) {
    let rounds = event.games.iter().map(|g| g.round).max().unwrap_or(1);
    let days = (event.end - event.start).num_days().max(0) as u64;
    for g in &mut event.games {
        let k = u64::from(g.round.saturating_sub(1));
        let step = if rounds > 1 {
            k * days / u64::from(rounds - 1)
        } else {
            0
        };
        g.date = Some(event.start + Days::new(step));
    }
}

/// The random draws of a generated federation and its players' hidden strengths.
pub(super) struct Play {
    pub rng: Rng,
    /// Hidden playing strength per player, drifting year by year.
    pub strength: Vec<f64>,
}

impl Play {
    /// A federation's draws from `seed`, multiplied by a constant of its own so that the
    /// demos of two federations differ for the same seed.
    pub fn seeded(seed: u64, own: u64) -> Self {
        Self {
            rng: Rng::new(seed.wrapping_mul(own)),
            strength: Vec::new(),
        }
    }

    /// A result drawn from the two hidden strengths; now and then a forfeit.
    pub fn result(&mut self, white: PlayerIdx, black: PlayerIdx) -> GameResult {
        if self.rng.below(150) == 0 {
            return if self.rng.below(2) == 0 {
                GameResult::unplayed(2, 0)
            } else {
                GameResult::unplayed(0, 2)
            };
        }
        let d = self.strength[white] - self.strength[black] + 30.0;
        let expected = 1.0 / (1.0 + 10f64.powf(-d / 400.0));
        let draw = 0.32 - 0.25 * (expected - 0.5).abs();
        let x = self.rng.unit();
        if x < expected - draw / 2.0 {
            GameResult::WHITE_WINS
        } else if x < expected + draw / 2.0 {
            GameResult::DRAW
        } else {
            GameResult::BLACK_WINS
        }
    }

    /// `n` distinct players from `pool`.
    pub fn field(&mut self, pool: &[PlayerIdx], n: usize) -> Vec<PlayerIdx> {
        let n = n.min(pool.len());
        let mut picked = std::collections::BTreeSet::new();
        while picked.len() < n {
            picked.insert(pool[self.rng.below(pool.len())]);
        }
        picked.into_iter().collect()
    }

    /// A Swiss: each round pairs players with equal scores (nearest first), never twice the
    /// same pair; an odd one out gets a bye.
    pub fn swiss(&mut self, event: &mut Event, field: Vec<PlayerIdx>, rounds: u32) {
        let mut score: std::collections::BTreeMap<PlayerIdx, u32> =
            field.iter().map(|&p| (p, 0)).collect();
        let mut met: std::collections::BTreeSet<(PlayerIdx, PlayerIdx)> =
            std::collections::BTreeSet::new();
        for round in 1..=rounds {
            let mut order = field.clone();
            order.sort_by(|a, b| {
                score[b]
                    .cmp(&score[a])
                    .then(self.strength[*b].total_cmp(&self.strength[*a]))
            });
            let mut board = 0;
            while let Some(white) = (!order.is_empty()).then(|| order.remove(0)) {
                let partner = order
                    .iter()
                    .position(|b| !met.contains(&(white.min(*b), white.max(*b))));
                let Some(at) = partner.or((!order.is_empty()).then_some(0)) else {
                    board += 1;
                    let bye = GameResult::unplayed(2, 0);
                    *score.entry(white).or_default() += 2;
                    event.games.push(Game {
                        round,
                        board,
                        white: player_u32(white),
                        black: None,
                        result: Some(bye),
                        date: None,
                        received: None,
                    });
                    continue;
                };
                let black = order.remove(at);
                met.insert((white.min(black), white.max(black)));
                let (w, b) = if self.rng.below(2) == 0 {
                    (white, black)
                } else {
                    (black, white)
                };
                let result = self.result(w, b);
                *score.entry(w).or_default() += u32::from(result.white_halves);
                *score.entry(b).or_default() += u32::from(result.black_halves);
                board += 1;
                event.games.push(Game {
                    round,
                    board,
                    white: player_u32(w),
                    black: Some(player_u32(b)),
                    result: Some(result),
                    date: None,
                    received: None,
                });
            }
        }
        event.participants = field;
    }

    /// A single round robin (Berger order).
    pub fn round_robin(&mut self, event: &mut Event, field: Vec<PlayerIdx>) {
        let mut seats = field.clone();
        if seats.len() % 2 == 1 {
            seats.push(usize::MAX);
        }
        let n = seats.len();
        for round in 1..n as u32 {
            let mut board = 0;
            for i in 0..n / 2 {
                let (a, b) = (seats[i], seats[n - 1 - i]);
                if a == usize::MAX || b == usize::MAX {
                    continue;
                }
                let (w, bl) = if round % 2 == 0 { (a, b) } else { (b, a) };
                let result = self.result(w, bl);
                board += 1;
                event.games.push(Game {
                    round,
                    board,
                    white: player_u32(w),
                    black: Some(player_u32(bl)),
                    result: Some(result),
                    date: None,
                    received: None,
                });
            }
            let last = seats.remove(n - 1);
            seats.insert(1, last);
        }
        event.pairing = "round_robin".into();
        event.participants = field;
    }

    /// Strengths drift once a year: the young improve, the old decline a little, everybody
    /// wanders. `age` gives a player's age in the year.
    pub fn drift(&mut self, age: impl Fn(PlayerIdx) -> i32) {
        for p in 0..self.strength.len() {
            let age = age(p);
            let growth = if (0..20).contains(&age) {
                40.0
            } else if age > 55 {
                -8.0
            } else {
                0.0
            };
            self.strength[p] += growth + 25.0 * self.rng.normal();
        }
    }
}

/// Adds a player to a generated book with his seeds and hidden strength; returns his index.
pub(super) fn push_player<R: Rulebook>(
    book: &mut Book<R>,
    play: &mut Play,
    info: PlayerInfo,
    seeds: Vec<Option<R::State>>,
    strength: f64,
) -> PlayerIdx {
    let idx = book.players.len();
    book.players.push(info);
    book.seeds.push(seeds);
    book.held.push(Vec::new());
    book.confirmed.push(Vec::new());
    play.strength.push(strength);
    idx
}

/// Adds a live event to a generated book.
pub(super) fn push_event<R: Rulebook>(book: &mut Book<R>, event: Event) {
    book.events.push(event);
    book.live.push(true);
}

/// A first name: a woman's one time in `one_in`, drawn before the name. Returns whether she
/// is a woman, and the name.
pub(super) fn first_name(
    rng: &mut Rng,
    one_in: usize,
    women: &[&'static str],
    men: &[&'static str],
) -> (bool, &'static str) {
    let female = rng.below(one_in) == 0;
    let names = if female { women } else { men };
    (female, names[rng.below(names.len())])
}

/// A player's age (8 to 69 when the generated years begin), birth date, and a strength that
/// grows with age up to forty, with a wide spread.
pub(super) fn person(rng: &mut Rng, first_year: i32) -> (i32, NaiveDate, f64) {
    let age = 8 + rng.below(62) as i32;
    let born = date(
        first_year - age,
        1 + rng.below(12) as u32,
        1 + rng.below(28) as u32,
    );
    let strength = 1300.0 + 12.0 * f64::from(age.min(40)) + 220.0 * rng.normal();
    (age, born, strength)
}

/// Players' ages in a year, from their birth dates (30 when unknown).
pub(super) fn ages<R: Rulebook>(book: &Book<R>, year: i32) -> Vec<i32> {
    book.players
        .iter()
        .map(|i| i.born.map_or(30, |b| year - b.year()))
        .collect()
}
