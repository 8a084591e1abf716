//! The Turkish rulebook's part of the JSON format: UKD states and archives on the three lists,
//! the checks of a TSF document, and the output's `events` (one row per player and event, with
//! the event's method and averages) and `periods` (each month's published changes).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::book::Book;
use crate::json::input::{count, object, published_rating, whole};
use crate::json::{InputError, JsonRules, Results};
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
/// the others with the reason they are not rated.
fn events_json(tsf: &Tsf, results: &Results<'_, Tsf>) -> Vec<Value> {
    let (book, ledger) = (results.book, results.ledger);
    ledger::event_order(&book.events)
        .into_iter()
        .filter(|&e| book.live[e])
        .map(|e| {
            let event = &book.events[e];
            let Some(list) = tsf.list_in(event, &book.events) else {
                let reason = crate::rules::tsf::not_rated(event)
                    .map_or_else(|| "not rated".to_string(), |r| r.to_string());
                return json!({"id": event.id, "list": "unrated", "period": null,
                              "reason": reason, "players": []});
            };
            let mut rows = ledger.event_ratings(e);
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
        .collect()
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
fn periods_json(tsf: &Tsf, results: &Results<'_, Tsf>) -> Vec<Value> {
    let (book, ledger) = (results.book, results.ledger);
    let mut periods: BTreeMap<chrono::NaiveDate, BTreeMap<PlayerIdx, Map<String, Value>>> =
        BTreeMap::new();
    for ((key, list), unit) in ledger.units() {
        let players = periods.entry(key.date).or_default();
        for (&p, state) in &unit.states {
            let rows: Vec<&PlayerRating<TsfDetail>> =
                unit.ratings.iter().filter(|r| r.player == p).collect();
            let row = period_row(results, p, *list, key.date, &rows, state);
            players
                .entry(p)
                .or_default()
                .insert(tsf.lists()[*list].into(), row);
        }
    }
    periods
        .into_iter()
        .map(|(period, players)| {
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
        })
        .collect()
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

    fn write_rated(&self, results: &Results<'_, Self>, out: &mut Map<String, Value>) {
        out.insert("events".into(), Value::Array(events_json(self, results)));
        out.insert("periods".into(), Value::Array(periods_json(self, results)));
    }
}
