//! The `rate` JSON document, in and out: players with their states per list, events with their
//! games, and the published results (see the conformance contract). The same format serves
//! `import json` and `export events|ratings`.

mod input;
mod ssl;

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::ledger::{self, LedgerRun};
use crate::model::{Event, PlayerIdx, PlayerInfo};
use crate::rules::{Award, Performance, PlayerRating, Rulebook};

/// Bad input: what was wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{item}: {message}")]
pub struct InputError {
    pub item: String,
    pub message: String,
}

impl InputError {
    pub fn new(item: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            item: item.into(),
            message: message.into(),
        }
    }
}

/// What a rulebook adds to the JSON format: its player states and awards, and the per-player
/// figures it publishes besides ratings.
trait JsonRules: Rulebook + Sized {
    /// A player's state on `list` from its JSON (`None` for JSON null).
    fn state_from_json(
        &self,
        list: usize,
        value: &Value,
        item: &str,
    ) -> Result<Option<Self::State>, InputError>;
    fn state_to_json(&self, list: usize, state: &Self::State) -> Value;
    fn award_from_json(&self, code: &str) -> Option<Self::Award>;
    fn award_code(&self, award: &Self::Award) -> &'static str;
    /// Extra per-player output (e.g. SSL selection numbers) given the whole run.
    fn player_extras(
        &self,
        doc: &Document<'_, Self>,
        player: PlayerIdx,
        out: &mut Map<String, Value>,
    );
}

/// A validated document with its ledger run, for the rulebook's output hooks.
struct Document<'a, R: Rulebook> {
    as_of: Option<chrono::NaiveDate>,
    players: &'a [PlayerInfo],
    initial: &'a [Vec<Option<R::State>>],
    events: &'a [Event],
    run: &'a LedgerRun<R>,
}

/// `ratedesk rate`: reads a document, rates it and returns the output document.
pub fn rate(text: &str) -> Result<Value, InputError> {
    let doc = input::parse_document(text)?;
    match doc.rules.as_str() {
        "ssl" => rate_with(&crate::rules::ssl::Ssl, doc),
        "isl" | "tsf" => Err(InputError::new(
            "rules",
            format!(
                "the '{}' rulebook is not available in this version (only 'ssl')",
                doc.rules
            ),
        )),
        other => Err(InputError::new(
            "rules",
            format!("unknown rulebook '{other}' (ssl, isl or tsf)"),
        )),
    }
}

fn rate_with<R: JsonRules>(rulebook: &R, doc: input::DocumentIn) -> Result<Value, InputError> {
    let as_of = doc
        .as_of
        .as_deref()
        .map(|d| input::date("as_of", d))
        .transpose()?;
    let mut ids: BTreeMap<&str, PlayerIdx> = BTreeMap::new();
    let mut players = Vec::with_capacity(doc.players.len());
    let mut initial = Vec::with_capacity(doc.players.len());
    let mut held = Vec::with_capacity(doc.players.len());
    for (idx, p) in doc.players.iter().enumerate() {
        let item = format!("player '{}'", p.id);
        if ids.insert(p.id.as_str(), idx).is_some() {
            return Err(InputError::new(item, "the player id appears twice"));
        }
        players.push(input::player_info(p, &item)?);
        let states = rulebook
            .lists()
            .iter()
            .enumerate()
            .map(|(list, name)| match p.rest.get(*name) {
                None => Ok(None),
                Some(v) => rulebook.state_from_json(list, v, &format!("{item} {name}")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        initial.push(states);
        let titles = p
            .titles
            .iter()
            .map(|t| {
                let award = rulebook.award_from_json(&t.title).ok_or_else(|| {
                    InputError::new(&item, format!("unknown title '{}'", t.title))
                })?;
                let date = t
                    .date
                    .as_deref()
                    .map(|d| input::date(&format!("{item} title date"), d))
                    .transpose()?;
                Ok(Award {
                    player: idx,
                    award,
                    date,
                    event: t.event.clone(),
                })
            })
            .collect::<Result<Vec<_>, InputError>>()?;
        held.push(titles);
    }
    let events = input::events(&doc.events, &ids)?;
    let run = ledger::rate_all(rulebook, &players, initial.clone(), held, &events);
    let document = Document {
        as_of,
        players: &players,
        initial: &initial,
        events: &events,
        run: &run,
    };
    Ok(output(rulebook, &document))
}

fn performance_json(p: Performance) -> Value {
    match p {
        Performance::Finite(x) => json!((x * 100.0).round() / 100.0),
        Performance::PlusInfinity => json!("+inf"),
        Performance::MinusInfinity => json!("-inf"),
    }
}

fn rating_row(players: &[PlayerInfo], r: &PlayerRating) -> Value {
    json!({
        "id": players[r.player].id,
        "old": r.old,
        "new": r.new,
        "established": r.established,
        "games": r.games,
        "score": f64::from(r.score) / 2.0,
        "expected": r.expected.map(|e| e as f64 / 100.0),
        "performance": performance_json(r.performance),
        "after_game": r.after_game().collect::<Vec<_>>(),
    })
}

fn output<R: JsonRules>(rulebook: &R, doc: &Document<'_, R>) -> Value {
    let run = doc.run;
    let events: Vec<Value> = run
        .order
        .iter()
        .map(|&e| {
            let mut rows: Vec<&PlayerRating> =
                run.by_event[e].iter().map(|&i| &run.ratings[i]).collect();
            rows.sort_by_key(|r| r.player);
            json!({
                "id": doc.events[e].id,
                "list": run.lists[e].map_or("unrated", |l| rulebook.lists()[l]),
                "players": rows.iter().map(|r| rating_row(doc.players, r)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let players: Vec<Value> = doc
        .players
        .iter()
        .enumerate()
        .map(|(p, info)| {
            let mut obj = Map::new();
            obj.insert("id".into(), json!(info.id));
            for (list, name) in rulebook.lists().iter().enumerate() {
                let state = run.states[p][list]
                    .as_ref()
                    .map(|s| rulebook.state_to_json(list, s));
                obj.insert((*name).into(), state.unwrap_or(Value::Null));
            }
            let titles: Vec<Value> = run.awards[p]
                .iter()
                .map(|a| {
                    let mut t = Map::new();
                    t.insert("title".into(), json!(rulebook.award_code(&a.award)));
                    t.insert("date".into(), json!(a.date.map(|d| d.to_string())));
                    if let Some(event) = &a.event {
                        t.insert("event".into(), json!(event));
                    }
                    Value::Object(t)
                })
                .collect();
            obj.insert("titles".into(), Value::Array(titles));
            rulebook.player_extras(doc, p, &mut obj);
            Value::Object(obj)
        })
        .collect();
    json!({ "events": events, "players": players })
}
