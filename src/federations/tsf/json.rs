//! The Turkish rulebook's part of the JSON format: UKD states and archives on the three lists,
//! the checks of a TSF document, and the output's `events` (one row per player and event, with
//! the event's method and averages) and `periods` (each month's published changes).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::book::Book;
use crate::json::input::{count, object, published_rating, whole};
use crate::json::{Field, InputError, JsonRules, Results};
use crate::ledger;
use crate::model::{PlayerIdx, Rating};
use crate::rules::tsf::method::PAIRING_CODES;
use crate::rules::tsf::unrated::{GAMES_FOR_UKD, archived_games};
use crate::rules::tsf::{
    Archived, Figures, Pairing, RatedFigures, Source, Tsf, TsfDetail, TsfState, UnratedFigures,
};
use crate::rules::{ListId, PlayerRating, Rulebook};

/// Hundredths as a JSON number (`-875` → `-8.75`).
fn hundredths(h: i64) -> Value {
    json!(h as f64 / 100.0)
}

/// Half points as a JSON number.
fn points(halves: u32) -> Value {
    json!(f64::from(halves) / 2.0)
}

fn archive_from_json(item: &str, value: &Value) -> Result<Vec<Archived>, InputError> {
    let Some(entries) = value.as_array() else {
        return Err(InputError::new(
            format!("{item}.performances"),
            format!("expected a list, found {value}"),
        ));
    };
    entries
        .iter()
        .enumerate()
        .map(|(k, entry)| {
            let item = format!("{item}.performances[{k}]");
            let field = |name: &str| entry.get(name).filter(|v| !v.is_null());
            let performance = field("performance")
                .ok_or_else(|| InputError::new(&item, "a performance is missing"))
                .and_then(|v| whole(&item, "performance", v))?;
            let performance = Rating::try_from(performance).map_err(|_| {
                InputError::new(&item, format!("performance {performance} is out of range"))
            })?;
            let games = field("games")
                .ok_or_else(|| InputError::new(&item, "the games are missing"))
                .and_then(|v| count(&item, "games", v))?;
            let event = match field("event") {
                None => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(other) => {
                    return Err(InputError::new(
                        format!("{item}.event"),
                        format!("{other} is not an event id"),
                    ));
                }
            };
            Ok(Archived {
                performance,
                games,
                event,
            })
        })
        .collect()
}

fn archive_to_json(archive: &[Archived]) -> Value {
    archive
        .iter()
        .map(|a| {
            let mut obj = Map::new();
            obj.insert("performance".into(), json!(a.performance));
            obj.insert("games".into(), json!(a.games));
            if let Some(event) = &a.event {
                obj.insert("event".into(), json!(event));
            }
            Value::Object(obj)
        })
        .collect()
}

/// A rated player's row in an event.
fn rated_row(id: &str, r: &PlayerRating<TsfDetail>, f: &RatedFigures) -> Value {
    json!({
        "id": id,
        "old": r.old,
        "k": f.k,
        "games": f.games,
        "score": points(f.score),
        "rated_games": f.rated_games,
        "rated_score": points(f.rated_score),
        "opponents": f.opponents,
        "expected": f.expected.map(hundredths),
        "unrated_games": f.unrated_games,
        "bonus": hundredths(f.bonus),
        "change": hundredths(f.change),
    })
}

/// An unrated player's row in an event.
fn unrated_row(id: &str, f: &UnratedFigures) -> Value {
    json!({
        "id": id,
        "old": null,
        "games": f.games,
        "score": points(f.score),
        "opponents": f.opponents,
        "dp": f.dp,
        "performance": f.performance,
    })
}

/// Every live event in ledger order: rated ones with their period, method, averages and rows;
/// the others with the reason they are not rated. Made an event at a time as the document is
/// written, each unit's rows read once and let go ([`UnitRows`]).
fn events_json<'a>(tsf: &'a Tsf, results: Results<'a, Tsf>) -> impl Iterator<Item = Value> + 'a {
    let (book, ledger) = (results.book, results.ledger);
    let mut units = UnitRows::new(ledger);
    ledger::event_order(&book.events)
        .into_iter()
        .filter(|&e| book.live[e])
        .map(move |e| {
            let event = &book.events[e];
            let Some(list) = tsf.list_in(event, &book.events) else {
                let reason = crate::rules::tsf::not_rated(event)
                    .map_or_else(|| "not rated".to_string(), |r| r.to_string());
                return json!({"id": event.id, "list": "unrated", "period": null,
                              "reason": reason, "players": []});
            };
            let mut rows = units.of_event(e);
            rows.sort_by_key(|r| r.player);
            let detail = rows.first().map(|r| r.detail.clone()).unwrap_or_default();
            let players: Vec<Value> = rows
                .iter()
                .map(|r| {
                    let id = &book.players[r.player].id;
                    match &r.detail.figures {
                        Figures::Rated(f, _) => rated_row(id, r, f),
                        Figures::Unrated(f) => unrated_row(id, f),
                    }
                })
                .collect();
            json!({
                "id": event.id,
                "list": tsf.lists()[list],
                "period": crate::rules::tsf::period(event).to_string(),
                "method": detail.method.code(),
                "average": detail.average,
                "preliminary": detail.preliminary,
                "tournament_average": detail.tournament_average,
                "players": players,
            })
        })
}

/// The rows of the units events were rated in, read a unit at a time and kept only for the
/// few units read last (events come in ledger order, so a unit's events come together): a
/// federation's every row read at once is gigabytes.
struct UnitRows<'a> {
    ledger: &'a ledger::Ledger<Tsf>,
    /// The units read last, newest last; each unit's rows in order of event (then as the
    /// unit holds them).
    read: Vec<(&'a ledger::UnitId, Vec<PlayerRating<TsfDetail>>)>,
}

impl<'a> UnitRows<'a> {
    /// Units kept read: a month's three lists and some to spare.
    const KEPT: usize = 8;

    fn new(ledger: &'a ledger::Ledger<Tsf>) -> Self {
        Self {
            ledger,
            read: Vec::new(),
        }
    }

    /// The rows event `e` published, unit by unit as [`ledger::Ledger::event_ratings`] gives
    /// them.
    fn of_event(&mut self, e: usize) -> Vec<PlayerRating<TsfDetail>> {
        let mut rows = Vec::new();
        for id in self.ledger.units_of_event(e) {
            let Some(unit) = self.ledger.units().get(id) else {
                continue;
            };
            let at = match self.read.iter().position(|(read, _)| *read == id) {
                Some(at) => at,
                None => {
                    if self.read.len() >= Self::KEPT {
                        self.read.remove(0);
                    }
                    let mut all: Vec<PlayerRating<TsfDetail>> = unit
                        .ratings
                        .runs_once()
                        .iter()
                        .flat_map(|run| run.iter().cloned())
                        .collect();
                    // Stable: a player's rows keep the unit's order.
                    all.sort_by_key(|r| r.event);
                    self.read.push((id, all));
                    self.read.len() - 1
                }
            };
            let all = &self.read[at].1;
            let from = all.partition_point(|r| r.event < e);
            let to = all.partition_point(|r| r.event <= e);
            rows.extend_from_slice(&all[from..to]);
        }
        rows
    }
}

/// One player's line on one list of a period: his rows in the unit give the month's figures,
/// the state after it the published one.
fn period_row(
    results: &Results<'_, Tsf>,
    player: PlayerIdx,
    list: ListId,
    period: chrono::NaiveDate,
    rows: &[&PlayerRating<TsfDetail>],
    after: &TsfState,
) -> Value {
    let (mut old, mut rated_games, mut change) = (None, 0u32, 0i64);
    let (mut unrated_games, mut archived) = (0u32, Vec::new());
    for r in rows {
        match &r.detail.figures {
            Figures::Rated(_, Source::Fide) => {}
            Figures::Rated(f, _) => {
                old = old.or(r.old);
                rated_games += f.games;
                change += f.change;
            }
            Figures::Unrated(f) => {
                unrated_games += f.games;
                archived.push(Archived {
                    performance: f.performance,
                    games: f.games,
                    event: Some(results.book.events[r.event].id.clone()),
                });
            }
        }
    }
    match (old, after) {
        (Some(old), TsfState::Rated { rating, .. }) => json!({
            "old": old, "new": rating, "initial": false, "games": rated_games,
            "change": hundredths(change),
        }),
        (_, TsfState::Rated { rating, .. }) => {
            // B.1.f: the archive that gave the first UKD — the one before the period and this
            // period's performances.
            let before = period.pred_opt().and_then(|day| {
                results
                    .ledger
                    .state_on(&Tsf, results.book, player, list, day)
            });
            let mut archive = match before.as_deref() {
                Some(TsfState::Unrated { performances }) => performances.to_vec(),
                _ => Vec::new(),
            };
            archive.extend(archived);
            json!({"old": null, "new": rating, "initial": true, "games": unrated_games,
                   "performances": archive_to_json(&archive)})
        }
        (_, TsfState::Unrated { performances }) => json!({
            "old": null, "new": null, "initial": false, "games": unrated_games,
            "performances": archive_to_json(performances),
        }),
    }
}

/// Every period with a rated game, in date order, with every player whose state it changed.
/// Made a period at a time as the document is written, each unit's rows read once and let go.
fn periods_json<'a>(tsf: &'a Tsf, results: Results<'a, Tsf>) -> impl Iterator<Item = Value> + 'a {
    let (book, ledger) = (results.book, results.ledger);
    // Units are in ledger order: a period's units come together.
    let mut units = ledger.units().iter().peekable();
    std::iter::from_fn(move || {
        let period = units.peek()?.0.0.date;
        let mut players: BTreeMap<PlayerIdx, Map<String, Value>> = BTreeMap::new();
        while let Some(((key, list), unit)) = units.next_if(|((key, _), _)| key.date == period) {
            let runs = unit.ratings.runs_once();
            let mut rows: Vec<&PlayerRating<TsfDetail>> =
                runs.iter().flat_map(|run| run.iter()).collect();
            // Stable: a player's rows keep the unit's order.
            rows.sort_by_key(|r| r.player);
            for (&p, state) in &unit.states {
                let from = rows.partition_point(|r| r.player < p);
                let to = rows.partition_point(|r| r.player <= p);
                let row = period_row(&results, p, *list, key.date, &rows[from..to], state);
                players
                    .entry(p)
                    .or_default()
                    .insert(tsf.lists()[*list].into(), row);
            }
        }
        Some(period_json(book, period, players))
    })
}

/// A period with its players' lines, by list.
fn period_json(
    book: &Book<Tsf>,
    period: chrono::NaiveDate,
    players: BTreeMap<PlayerIdx, Map<String, Value>>,
) -> Value {
    let players: Vec<Value> = players
        .into_iter()
        .map(|(p, lists)| {
            let mut obj = Map::new();
            obj.insert("id".into(), json!(book.players[p].id));
            obj.extend(lists);
            Value::Object(obj)
        })
        .collect();
    json!({"period": period.to_string(), "players": players})
}

impl JsonRules for Tsf {
    /// A rated state `{"rating", "games"}` or an archive `{"performances": [{"performance",
    /// "games", "event"}]}` of fewer than seven games (B.1.f); null, `{}` or an empty archive:
    /// no state on the list.
    fn state_from_json(
        &self,
        _list: usize,
        value: &Value,
        item: &str,
    ) -> Result<Option<TsfState>, InputError> {
        let Some(obj) = object(item, value)? else {
            return Ok(None);
        };
        let field = |name: &str| obj.get(name).filter(|v| !v.is_null());
        let rated = published_rating(item, obj)?;
        let games = field("games")
            .map(|v| count(item, "games", v))
            .transpose()?
            .unwrap_or(0);
        let archive = field("performances")
            .map(|v| archive_from_json(item, v))
            .transpose()?;
        match (rated, archive) {
            (Some(_), Some(_)) => Err(InputError::new(
                item,
                "a player with a UKD has no archive of performances",
            )),
            (Some(rating), None) => Ok(Some(TsfState::Rated { rating, games })),
            (None, Some(archive)) if archived_games(&archive) >= GAMES_FOR_UKD => {
                Err(InputError::new(
                    format!("{item}.performances"),
                    format!(
                        "an archive of {} games should have given a UKD (B.1.f: {GAMES_FOR_UKD} games)",
                        archived_games(&archive)
                    ),
                ))
            }
            (None, None) if games > 0 => Err(InputError::new(
                item,
                format!("{games} earlier games need a rating"),
            )),
            (None, Some(archive)) if !archive.is_empty() => Ok(Some(TsfState::Unrated {
                performances: archive.into(),
            })),
            (None, _) => Ok(None),
        }
    }

    fn state_to_json(&self, _list: usize, state: &TsfState) -> Value {
        match state {
            TsfState::Rated { rating, games } => json!({"rating": rating, "games": games}),
            TsfState::Unrated { performances } => {
                json!({"performances": archive_to_json(performances)})
            }
        }
    }

    /// Titles are no part of the procedure: accepted and ignored.
    fn award_from_json(&self, _code: &str) -> Option<()> {
        Some(())
    }

    fn award_code(&self, _award: &()) -> &'static str {
        ""
    }

    fn awards_titles(&self) -> bool {
        false
    }

    fn player_extras(&self, _: &Results<'_, Self>, _: PlayerIdx, _: &mut Map<String, Value>) {}

    /// Pairing systems, and every game's date within its event.
    fn validate(&self, book: &Book<Self>) -> Result<(), InputError> {
        for e in &book.events {
            if Pairing::parse(&e.pairing).is_none() {
                return Err(InputError::new(
                    format!("event '{}' pairing", e.id),
                    format!(
                        "'{}' is not a pairing system ({})",
                        e.pairing,
                        PAIRING_CODES.join(", ")
                    ),
                ));
            }
            for g in &e.games {
                if let Some(date) = g.date
                    && (date < e.start || date > e.end)
                {
                    let black = g.black().map_or("bye", |b| book.players[b].id.as_str());
                    return Err(InputError::new(
                        format!(
                            "event '{}', round {}, {} vs {} date",
                            e.id,
                            g.round,
                            book.players[g.white()].id,
                            black
                        ),
                        format!("{date} is outside the event ({} to {})", e.start, e.end),
                    ));
                }
            }
        }
        Ok(())
    }

    fn write_rated<'a>(&'a self, results: Results<'a, Self>) -> Vec<(&'static str, Field<'a>)> {
        vec![
            (
                "events",
                Field::Elements(Box::new(events_json(self, results))),
            ),
            (
                "periods",
                Field::Elements(Box::new(periods_json(self, results))),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::{Params, generate_turkey};
    use crate::ledger::Ledger;

    fn three_years() -> (Book<Tsf>, Ledger<Tsf>) {
        let (book, _) = generate_turkey(&Params {
            players: 300,
            years: 3,
            last_year: 2025,
            seed: 11,
            opens_per_year: Some(8),
        });
        let ledger = Ledger::build(&Tsf, &book);
        (book, ledger)
    }

    /// An event's rows read a unit at a time, with few units kept read, are the rows the ledger
    /// gives it — in ledger order, backwards (every unit let go and read again) and skipping
    /// about.
    #[test]
    fn an_events_rows_read_a_unit_at_a_time_are_the_ledgers() {
        let (book, ledger) = three_years();
        assert!(
            ledger.units().len() > 2 * UnitRows::KEPT,
            "{} units",
            ledger.units().len()
        );
        let order = ledger::event_order(&book.events);
        let backwards: Vec<usize> = order.iter().rev().copied().collect();
        let skipping: Vec<usize> = order.iter().step_by(7).chain(&order).copied().collect();
        for events in [order.clone(), backwards, skipping] {
            let mut units = UnitRows::new(&ledger);
            for &e in &events {
                let expected: Vec<PlayerRating<TsfDetail>> =
                    ledger.event_ratings(e).into_iter().cloned().collect();
                assert_eq!(units.of_event(e), expected, "event {}", book.events[e].id);
            }
        }
    }

    /// The periods written a period at a time, each unit's rows grouped by player, are those
    /// of every unit's rows filtered for each of its players, in the same order to the byte:
    /// periods, their players, each player's lists, each list's rows.
    #[test]
    fn the_periods_written_a_period_at_a_time_are_each_players_rows() {
        let (book, ledger) = three_years();
        let results = Results {
            as_of: None,
            book: &book,
            ledger: &ledger,
        };
        let mut periods: BTreeMap<chrono::NaiveDate, BTreeMap<PlayerIdx, Map<String, Value>>> =
            BTreeMap::new();
        let mut several = 0;
        for ((key, list), unit) in ledger.units() {
            for (&p, state) in &unit.states {
                let rows: Vec<&PlayerRating<TsfDetail>> =
                    unit.ratings.iter().filter(|r| r.player == p).collect();
                several += usize::from(rows.len() > 1);
                periods
                    .entry(key.date)
                    .or_default()
                    .entry(p)
                    .or_default()
                    .insert(
                        Tsf.lists()[*list].into(),
                        period_row(&results, p, *list, key.date, &rows, state),
                    );
            }
        }
        assert!(
            several > 0,
            "a player with rows of several events in a unit"
        );
        let expected: Vec<Value> = periods
            .into_iter()
            .map(|(period, players)| period_json(&book, period, players))
            .collect();
        let written: Vec<Value> = periods_json(&Tsf, results).collect();
        assert!(written.len() > 12, "{} periods", written.len());
        assert_eq!(
            Value::Array(written).to_string(),
            Value::Array(expected).to_string()
        );
    }
}
