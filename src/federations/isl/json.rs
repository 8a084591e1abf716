//! The Icelandic rulebook's part of the JSON format: the `standard` state (a rating with its
//! game count and the 2400 mark, or the provisional games before an initial rating), the checks
//! ISL adds to a document, and the published `events` (with a part per period) and `periods`.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::book::Book;
use crate::json::input::{count, halves, object, published_rating, whole};
use crate::json::{Field, InputError, JsonRules, Results};
use crate::model::PlayerIdx;
use crate::rules::isl::{Isl, IslDetail, IslState, Provisional, STANDARD, period_named, period_of};
use crate::rules::{Halves, PlayerRating, Rulebook};

/// `{"games", "opponents_sum", "score"}`: fewer than 5 games or less than a point (a record
/// that qualifies would already have given an initial rating).
fn provisional_from_json(item: &str, value: &Value) -> Result<Option<Provisional>, InputError> {
    let item = format!("{item}.provisional");
    let Some(obj) = object(&item, value)? else {
        return Ok(None);
    };
    let field = |name: &str| obj.get(name).filter(|v| !v.is_null());
    let games = field("games")
        .map(|v| count(&item, "games", v))
        .transpose()?
        .unwrap_or(0);
    let opponents_sum = field("opponents_sum")
        .map(|v| whole(&item, "opponents_sum", v))
        .transpose()?
        .unwrap_or(0);
    let score = field("score")
        .map(|v| halves(&item, "score", v))
        .transpose()?
        .unwrap_or(0);
    let p = Provisional {
        games,
        opponents_sum,
        score,
    };
    let fits = p.score <= 2 * p.games
        && p.opponents_sum >= 0
        && p.opponents_sum <= 4000 * i64::from(p.games);
    if !fits {
        return Err(InputError::new(
            item,
            format!(
                "score {} or opponents_sum {} does not fit {} games",
                f64::from(p.score) / 2.0,
                p.opponents_sum,
                p.games
            ),
        ));
    }
    if p.qualifies() {
        return Err(InputError::new(
            item,
            format!(
                "{} games and {} points already give an initial rating (5 games and a point)",
                p.games,
                f64::from(p.score) / 2.0
            ),
        ));
    }
    Ok((p.games > 0).then_some(p))
}

fn score_json(halves: Halves) -> Value {
    json!(f64::from(halves) / 2.0)
}

fn hundredths_json(h: i64) -> Value {
    json!(h as f64 / 100.0)
}

fn provisional_json(p: &Provisional) -> Value {
    json!({"games": p.games, "opponents_sum": p.opponents_sum, "score": score_json(p.score)})
}

/// A row of an event's part: rated `{"id", "old", "games", "score", "expected", "change",
/// "k"}`, unrated with `"opponents_sum"` and nulls.
fn part_row(id: &str, r: &PlayerRating<IslDetail>) -> Value {
    let mut row = json!({
        "id": id,
        "old": r.old,
        "games": r.games,
        "score": score_json(r.score),
        "expected": r.expected.map(hundredths_json),
        "change": r.detail.change.map(hundredths_json),
        "k": r.old.map(|_| json!(r.detail.k)),
    });
    if r.old.is_none() {
        row["opponents_sum"] = json!(r.detail.opponents_sum.unwrap_or(0));
    }
    row
}

/// A player's line of a period, from his rows in it.
fn period_row(rows: &[&PlayerRating<IslDetail>]) -> Option<Value> {
    let first = rows.first()?;
    let games: u32 = rows.iter().map(|r| r.games).sum();
    let score: Halves = rows.iter().map(|r| r.score).sum();
    Some(match first.old {
        Some(old) => {
            let mut row = json!({
                "old": old,
                "new": first.new,
                "initial": false,
                "games": games,
                "score": score_json(score),
                "expected": hundredths_json(rows.iter().filter_map(|r| r.expected).sum()),
                "change": hundredths_json(rows.iter().filter_map(|r| r.detail.change).sum()),
            });
            // The period a foreign player entered the list in says on what.
            if let Some(entry) = first.detail.entry {
                row["entry"] = json!(entry.code());
            }
            row
        }
        None => json!({
            "old": null,
            "new": first.detail.initial.then_some(first.new),
            "initial": first.detail.initial,
            "games": games,
            "score": score_json(score),
            "provisional": first.detail.provisional.as_ref().map(provisional_json),
        }),
    })
}

impl JsonRules for Isl {
    /// Rated `{"rating", "games", "reached_2400"}` or `{"provisional": {…}}`; null, or a record
    /// without games, is no state.
    fn state_from_json(
        &self,
        _list: usize,
        value: &Value,
        item: &str,
    ) -> Result<Option<IslState>, InputError> {
        let Some(obj) = object(item, value)? else {
            return Ok(None);
        };
        let field = |name: &str| obj.get(name).filter(|v| !v.is_null());
        let rating = published_rating(item, obj)?;
        let games = field("games")
            .map(|v| count(item, "games", v))
            .transpose()?
            .unwrap_or(0);
        let reached_2400 = match field("reached_2400") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(InputError::new(
                    format!("{item}.reached_2400"),
                    format!("{other} is not true or false"),
                ));
            }
        };
        let provisional = field("provisional")
            .map(|v| provisional_from_json(item, v))
            .transpose()?
            .flatten();
        match (rating, provisional) {
            (Some(_), Some(_)) => Err(InputError::new(
                item,
                "a player with a rating has no provisional games",
            )),
            (Some(r), None) => Ok(Some(IslState::rated(r, games, reached_2400))),
            (None, Some(_)) if games > 0 || reached_2400 => Err(InputError::new(
                item,
                "games and reached_2400 belong to a rating, not to provisional games",
            )),
            (None, Some(p)) => Ok(Some(IslState::Provisional(p))),
            (None, None) if games > 0 => Err(InputError::new(
                item,
                format!("{games} earlier games need a rating"),
            )),
            (None, None) if reached_2400 => {
                Err(InputError::new(item, "reached_2400 needs a rating"))
            }
            (None, None) => Ok(None),
        }
    }

    fn state_to_json(&self, _list: usize, state: &IslState) -> Value {
        match state {
            IslState::Rated {
                rating,
                games,
                reached_2400,
            } => json!({"rating": rating, "games": games, "reached_2400": reached_2400}),
            IslState::Provisional(p) if p.games == 0 => Value::Null,
            IslState::Provisional(p) => json!({"provisional": provisional_json(p)}),
        }
    }

    /// ISL awards no titles: titles given on input are accepted and ignored.
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

    /// A game dated outside its event; an event running over a list date with an undated played
    /// game (its period would be unknown). (`received` before the end is refused by the common
    /// reading.)
    fn validate(&self, book: &Book<Self>) -> Result<(), InputError> {
        for (e, event) in book.events.iter().enumerate() {
            if !book.live.get(e).copied().unwrap_or(false) {
                continue;
            }
            let item = format!("event '{}'", event.id);
            let over_a_list_date = period_of(event.start) != period_of(event.end);
            for g in &event.games {
                let gitem = || {
                    let black = g.black().map_or("bye", |b| book.players[b].id.as_str());
                    format!(
                        "{item}, round {}, {} vs {}",
                        g.round,
                        book.players[g.white()].id,
                        black
                    )
                };
                // A game's own receipt date: never before it was played (or, undated, before
                // its event started).
                if let Some(r) = g.received
                    && r < g.date.unwrap_or(event.start)
                {
                    return Err(InputError::new(
                        gitem(),
                        format!(
                            "received {r}, before the game ({})",
                            g.date.unwrap_or(event.start)
                        ),
                    ));
                }
                match g.date {
                    Some(d) if d < event.start || d > event.end => {
                        return Err(InputError::new(
                            gitem(),
                            format!(
                                "dated {d}, outside the event ({} to {})",
                                event.start, event.end
                            ),
                        ));
                    }
                    None if over_a_list_date && g.is_rated_game() => {
                        return Err(InputError::new(
                            gitem(),
                            format!(
                                "the event runs over the list date {}: every played game needs a date",
                                period_of(event.start).name
                            ),
                        ));
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// `events` (every event, a part per period holding a played game) and `periods` (every
    /// period that rated a game, in date order).
    fn write_rated<'a>(&'a self, results: Results<'a, Self>) -> Vec<(&'static str, Field<'a>)> {
        let (book, ledger) = (results.book, results.ledger);
        let id = |p: PlayerIdx| book.players[p].id.as_str();
        // Rows by (period, event), players in index order.
        let mut rows: BTreeMap<(chrono::NaiveDate, usize), Vec<&PlayerRating<IslDetail>>> =
            BTreeMap::new();
        let mut periods = Vec::new();
        for ((key, list), unit) in ledger.units() {
            if *list != STANDARD {
                continue;
            }
            let mut by_player: BTreeMap<PlayerIdx, Vec<&PlayerRating<IslDetail>>> = BTreeMap::new();
            for r in &unit.ratings {
                rows.entry((key.date, r.event)).or_default().push(r);
                by_player.entry(r.player).or_default().push(r);
            }
            let period = period_named(key.date);
            let players: Vec<Value> = by_player
                .iter()
                .filter_map(|(&p, rs)| {
                    period_row(rs).map(|row| json!({"id": id(p), "standard": row}))
                })
                .collect();
            periods.push(json!({
                "period": period.name.to_string(),
                "from": period.from.to_string(),
                "to": period.to().to_string(),
                "players": players,
            }));
        }
        let events: Vec<Value> = crate::ledger::event_order(&book.events)
            .into_iter()
            .filter(|&e| book.live[e])
            .map(|e| {
                let event = &book.events[e];
                let Some(list) = self.list_in(event, &book.events) else {
                    return json!({"id": event.id, "list": "unrated", "parts": []});
                };
                let parts: Vec<Value> = self
                    .units_of(e, event, list)
                    .into_iter()
                    .map(|(key, _)| {
                        let mut part_rows = rows.remove(&(key.date, e)).unwrap_or_default();
                        // A part lists the players with a game that counts in it (an entrant
                        // without one shows only in the period).
                        part_rows.retain(|r| r.games > 0);
                        part_rows.sort_by_key(|r| r.player);
                        let players: Vec<Value> = part_rows
                            .iter()
                            .map(|r| part_row(id(r.player), r))
                            .collect();
                        json!({"period": key.date.to_string(), "players": players})
                    })
                    .collect();
                json!({"id": event.id, "list": self.lists()[list], "parts": parts})
            })
            .collect();
        vec![
            ("events", Field::Value(Value::Array(events))),
            ("periods", Field::Value(Value::Array(periods))),
        ]
    }
}
