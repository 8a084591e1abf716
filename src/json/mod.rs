//! The `rate` JSON document, in and out: players with their states per list, events with their
//! games, and the published results (see the conformance contract). The same format serves
//! `import json` and `export events|ratings`.

pub(crate) mod input;
pub use input::RATINGS;

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use chrono::NaiveDate;

use crate::book::Book;
use crate::ledger::{self, Ledger};
use crate::model::{Event, Game, GameResult, PlayerIdx, PlayerInfo, Sex};
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
pub trait JsonRules: Rulebook + Sized {
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
    /// Whether the rulebook awards titles; when it does not, titles given on input are accepted
    /// and ignored, and none are written.
    fn awards_titles(&self) -> bool {
        true
    }
    /// Extra per-player output (e.g. SSL selection numbers).
    fn player_extras(
        &self,
        results: &Results<'_, Self>,
        player: PlayerIdx,
        out: &mut Map<String, Value>,
    );

    /// The rulebook's own fields of an event's row in the output (SSL: the rule it is rated
    /// by), written after `list`.
    fn event_fields(&self, _event: &Event, _row: &mut Map<String, Value>) {}

    /// The rulebook's own checks of a loaded document, after the common ones (dates of games
    /// within their event, pairing systems, states that cannot stand as input …).
    fn validate(&self, _book: &Book<Self>) -> Result<(), InputError> {
        Ok(())
    }

    /// The output document's top-level fields other than `players`, in order: by default
    /// `events`, one row per player and event (a rulebook that rates by period writes its own
    /// `events` and `periods`).
    fn write_rated<'a>(&'a self, results: Results<'a, Self>) -> Vec<(&'static str, Field<'a>)> {
        vec![(
            "events",
            Field::Value(Value::Array(event_rows(self, &results))),
        )]
    }
}

/// A field of an output [`Document`].
pub enum Field<'a> {
    Value(Value),
    /// An array made an element at a time as it is written, never held whole.
    Elements(Box<dyn Iterator<Item = Value> + 'a>),
}

/// The `rate` output document, its large arrays made as they are written: a whole Turkish
/// federation's results are a gigabyte of text and many times that as a tree of values.
pub struct Document<'a> {
    fields: Vec<(&'static str, Field<'a>)>,
}

impl<'a> Document<'a> {
    /// Writes the document as compact JSON (what `Value`'s `Display` writes of it made whole).
    /// What was written before a failure to write (a reader gone: `export ratings | head`)
    /// stays written; the failure keeps its kind, so a closed pipe is told apart.
    pub fn write_to(self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
        serde_json::to_writer(&mut out, &Written(std::cell::RefCell::new(self.fields)))
            .map_err(std::io::Error::from)?;
        std::io::Write::flush(&mut out)
    }

    /// The document made whole.
    pub fn into_value(self) -> Value {
        let fields = self.fields.into_iter().map(|(key, field)| {
            let value = match field {
                Field::Value(v) => v,
                Field::Elements(elements) => Value::Array(elements.collect()),
            };
            (key.to_string(), value)
        });
        Value::Object(fields.collect())
    }
}

/// A document's fields as they are written: each array's elements are taken as they are
/// written (so a document is written once).
struct Written<'a>(std::cell::RefCell<Vec<(&'static str, Field<'a>)>>);

impl serde::Serialize for Written<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let fields = std::mem::take(&mut *self.0.borrow_mut());
        let mut map = s.serialize_map(Some(fields.len()))?;
        for (key, field) in fields {
            match field {
                Field::Value(v) => map.serialize_entry(key, &v)?,
                Field::Elements(elements) => {
                    map.serialize_entry(key, &Elements(std::cell::RefCell::new(Some(elements))))?;
                }
            }
        }
        map.end()
    }
}

struct Elements<'a>(std::cell::RefCell<Option<Box<dyn Iterator<Item = Value> + 'a>>>);

impl serde::Serialize for Elements<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(None)?;
        for element in self.0.borrow_mut().take().into_iter().flatten() {
            seq.serialize_element(&element)?;
        }
        seq.end()
    }
}

/// `ratedesk rate` for one rulebook: reads a document for it, rates it and returns the output
/// document (the application's registry picks the rulebook the document names).
pub fn rate_with<R: JsonRules>(rulebook: &R, text: &str) -> Result<Value, InputError> {
    let loaded = read(rulebook, text)?;
    let ledger = Ledger::build(rulebook, &loaded.book);
    let all = vec![true; loaded.book.players.len()];
    Ok(write_results(rulebook, &loaded.book, &ledger, loaded.as_of, all).into_value())
}

/// A validated `rate` document.
pub struct Loaded<R: Rulebook> {
    pub as_of: Option<NaiveDate>,
    pub book: Book<R>,
}

/// Ratings of a book, for the output hooks.
pub struct Results<'a, R: Rulebook> {
    pub as_of: Option<NaiveDate>,
    pub book: &'a Book<R>,
    pub ledger: &'a Ledger<R>,
}

impl<R: Rulebook> Clone for Results<'_, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R: Rulebook> Copy for Results<'_, R> {}

/// The rulebook code a document names.
pub fn rules_of(text: &str) -> Result<String, InputError> {
    Ok(input::parse_document(text)?.rules)
}

/// Reads and validates a document for `rulebook`.
pub fn read<R: JsonRules>(rulebook: &R, text: &str) -> Result<Loaded<R>, InputError> {
    let doc = input::parse_document(text)?;
    if doc.rules != rulebook.code() {
        return Err(InputError::new(
            "rules",
            format!(
                "the document is for '{}', not '{}'",
                doc.rules,
                rulebook.code()
            ),
        ));
    }
    let as_of = doc
        .as_of
        .as_deref()
        .map(|d| input::date("as_of", d))
        .transpose()?;
    let mut ids: BTreeMap<&str, PlayerIdx> = BTreeMap::new();
    let mut book = Book::<R>::default();
    for (idx, p) in doc.players.iter().enumerate() {
        let item = format!("player '{}'", p.id);
        if ids.insert(p.id.as_str(), idx).is_some() {
            return Err(InputError::new(item, "the player id appears twice"));
        }
        book.players.push(input::player_info(p, &item)?);
        let states = rulebook
            .lists()
            .iter()
            .enumerate()
            .map(|(list, name)| match p.rest.get(*name) {
                None => Ok(None),
                Some(v) => rulebook.state_from_json(list, v, &format!("{item} {name}")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        book.seeds.push(states);
        // A rulebook without titles accepts and ignores them (the contract's isl and tsf).
        let given = if rulebook.awards_titles() {
            p.titles.as_slice()
        } else {
            &[]
        };
        let titles = given
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
        book.held.push(titles);
    }
    book.events = input::events(&doc.events, &ids, rulebook.keeps_game_receipt())?;
    book.live = vec![true; book.events.len()];
    rulebook.validate(&book)?;
    Ok(Loaded { as_of, book })
}

fn performance_json(p: Performance) -> Value {
    match p {
        Performance::Finite(x) => json!((x * 100.0).round() / 100.0),
        Performance::PlusInfinity => json!("+inf"),
        Performance::MinusInfinity => json!("-inf"),
    }
}

fn rating_row<D>(players: &[PlayerInfo], r: &PlayerRating<D>) -> Value {
    json!({
        "id": players[r.player].id,
        "old": r.old,
        "new": r.new,
        "established": r.established,
        "games": r.games,
        "score": f64::from(r.score) / 2.0,
        "expected": r.expected.map(|e| e as f64 / 100.0),
        "performance": performance_json(r.performance()),
        "after_game": r.after_game().collect::<Vec<_>>(),
    })
}

/// The players marked in `shown`, with their ids.
fn shown_players<'a, R: Rulebook>(
    book: &'a Book<R>,
    shown: impl AsRef<[bool]> + 'a,
) -> impl Iterator<Item = (PlayerIdx, &'a PlayerInfo)> + 'a {
    book.players
        .iter()
        .enumerate()
        .filter(move |(p, _)| shown.as_ref().get(*p).copied().unwrap_or(false))
}

fn award_json<R: JsonRules>(rulebook: &R, a: &Award<R::Award>) -> Value {
    let mut t = Map::new();
    t.insert("title".into(), json!(rulebook.award_code(&a.award)));
    t.insert("date".into(), json!(a.date.map(|d| d.to_string())));
    if let Some(event) = &a.event {
        t.insert("event".into(), json!(event));
    }
    Value::Object(t)
}

/// The `rate` output document: events in ledger order, then the final state of every player
/// marked in `players`.
pub fn write_results<'a, R: JsonRules>(
    rulebook: &'a R,
    book: &'a Book<R>,
    ledger: &'a Ledger<R>,
    as_of: Option<NaiveDate>,
    players: Vec<bool>,
) -> Document<'a> {
    let results = Results {
        as_of,
        book,
        ledger,
    };
    let mut fields = rulebook.write_rated(results);
    let players = shown_players(book, players).map(move |(p, info)| {
        let mut obj = Map::new();
        obj.insert("id".into(), json!(info.id));
        for (list, name) in rulebook.lists().iter().enumerate() {
            let state = ledger
                .state(rulebook, book, p, list)
                .map(|s| rulebook.state_to_json(list, &s));
            obj.insert((*name).into(), state.unwrap_or(Value::Null));
        }
        if rulebook.awards_titles() {
            let titles: Vec<Value> = ledger
                .awards(book, p)
                .iter()
                .map(|a| award_json(rulebook, a))
                .collect();
            obj.insert("titles".into(), Value::Array(titles));
        }
        rulebook.player_extras(&results, p, &mut obj);
        Value::Object(obj)
    });
    fields.push(("players", Field::Elements(Box::new(players))));
    Document { fields }
}

/// The events of a book in ledger order, each with one row per player rated in it.
pub fn event_rows<R: JsonRules>(rulebook: &R, results: &Results<'_, R>) -> Vec<Value> {
    let (book, ledger) = (results.book, results.ledger);
    let mut by_event: Vec<Vec<&PlayerRating<R::Detail>>> = vec![Vec::new(); book.events.len()];
    for r in ledger.ratings() {
        by_event[r.event].push(r);
    }
    ledger::event_order(&book.events)
        .into_iter()
        .filter(|&e| book.live[e])
        .map(|e| {
            let rows = &mut by_event[e];
            rows.sort_by_key(|r| r.player);
            let event = &book.events[e];
            let mut row = Map::new();
            row.insert("id".into(), json!(event.id));
            let list = rulebook.list_in(event, &book.events);
            row.insert(
                "list".into(),
                json!(list.map_or("unrated", |l| rulebook.lists()[l])),
            );
            rulebook.event_fields(event, &mut row);
            row.insert(
                "players".into(),
                rows.iter().map(|r| rating_row(&book.players, r)).collect(),
            );
            Value::Object(row)
        })
        .collect()
}

/// The `rate` input document of a book (the players marked in `players`, the live events):
/// everything needed to rate it again.
pub fn write_input<R: JsonRules>(
    rulebook: &R,
    book: &Book<R>,
    as_of: Option<NaiveDate>,
    players: &[bool],
) -> Value {
    let shown = players;
    let players: Vec<Value> = shown_players(book, shown)
        .map(|(p, info)| {
            let mut obj = Map::new();
            obj.insert("id".into(), json!(info.id));
            if !info.name.is_empty() {
                obj.insert("name".into(), json!(info.name));
            }
            if let Some(f) = &info.federation {
                obj.insert("federation".into(), json!(f));
            }
            if let Some(c) = &info.club {
                obj.insert("club".into(), json!(c));
            }
            if let Some(f) = info.fide_id {
                obj.insert("fide_id".into(), json!(f));
            }
            if let Some(b) = info.born {
                obj.insert("born".into(), json!(b.to_string()));
            }
            if let Some(sex) = info.sex {
                obj.insert("sex".into(), json!(if sex == Sex::Female { "f" } else { "m" }));
            }
            if !info.fide.is_empty() {
                let fide: Vec<Value> = info
                    .fide
                    .iter()
                    .map(|f| json!({"list_date": f.list_date.to_string(), "standard": f.standard, "rapid": f.rapid, "blitz": f.blitz}))
                    .collect();
                obj.insert("fide".into(), Value::Array(fide));
            }
            if !info.national.is_empty() {
                let national: Vec<Value> = info
                    .national
                    .iter()
                    .map(|n| json!({"federation": n.federation, "standard": n.standard, "rapid": n.rapid, "comparable": n.comparable}))
                    .collect();
                obj.insert("national".into(), Value::Array(national));
            }
            for (list, name) in rulebook.lists().iter().enumerate() {
                if let Some(state) = &book.seeds[p][list] {
                    obj.insert((*name).into(), rulebook.state_to_json(list, state));
                }
            }
            if !book.held[p].is_empty() {
                let titles: Vec<Value> = book.held[p].iter().map(|a| award_json(rulebook, a)).collect();
                obj.insert("titles".into(), Value::Array(titles));
            }
            Value::Object(obj)
        })
        .collect();
    let events: Vec<Value> = book
        .events
        .iter()
        .zip(&book.live)
        .filter(|(_, live)| **live)
        .map(|(e, _)| event_json(book, e))
        .collect();
    let mut doc = json!({"rules": rulebook.code(), "players": players, "events": events});
    if let Some(d) = as_of {
        doc["as_of"] = json!(d.to_string());
    }
    doc
}

fn event_json<R: Rulebook>(book: &Book<R>, e: &Event) -> Value {
    let mut games: Vec<&Game> = e.games.iter().collect();
    games.sort_by_key(|g| (g.round, g.board));
    let games: Vec<Value> = games
        .into_iter()
        .map(|g| {
            let mut obj = json!({
                "round": g.round,
                "board": g.board,
                "white": book.players[g.white()].id,
                "black": g.black().map(|b| book.players[b].id.clone()),
                "result": g.result.map(GameResult::code),
            });
            // An unplayed result whose code reads as played (a half point between two
            // players): the contract has no code for it, so it is marked.
            if let Some(r) = g.result
                && !r.played
                && GameResult::parse(&r.code()).map(|c| c.on_board(g.black().is_none())) != Some(r)
            {
                obj["played"] = json!(false);
            }
            if let Some(d) = g.date {
                obj["date"] = json!(d.to_string());
            }
            if let Some(d) = g.received {
                obj["received"] = json!(d.to_string());
            }
            obj
        })
        .collect();
    let mut obj = json!({
        "id": e.id,
        "start": e.start.to_string(),
        "end": e.end.to_string(),
        "abroad": e.abroad,
        "age_limit": e.age_limit,
        "pairing": e.pairing,
        "participants": e.participants.iter().map(|&p| book.players[p].id.clone()).collect::<Vec<_>>(),
        "games": games,
    });
    if !e.name.is_empty() {
        obj["name"] = json!(e.name);
    }
    if let Some(tc) = &e.time_control {
        let periods: Vec<Value> = tc
            .added
            .iter()
            .map(|a| json!({"after_move": a.after_move, "minutes": f64::from(a.seconds) / 60.0}))
            .collect();
        obj["time_control"] = json!({
            "base_minutes": f64::from(tc.base_seconds) / 60.0,
            "increment_seconds": tc.increment_seconds,
            "periods": periods,
        });
    }
    if e.official_representation {
        obj["official_representation"] = json!(true);
    }
    if let Some(decided) = &e.playoff_of {
        obj["playoff_of"] = json!(decided);
    }
    if let Some(received) = e.received {
        obj["received"] = json!(received.to_string());
    }
    obj
}

/// A `YYYY-MM-DD` date given on the command line or in a document.
pub fn parse_date(item: &str, text: &str) -> Result<NaiveDate, InputError> {
    input::date(item, text)
}

#[cfg(test)]
mod document_tests {
    use super::*;

    /// A document written as it is made is the compact JSON of the document made whole: its
    /// fields in order, arrays of elements made as written (none, one, several) beside values.
    #[test]
    fn a_document_written_as_made_is_the_document_made_whole() {
        let document = || Document {
            fields: vec![
                ("events", Field::Value(json!([{"id": "e1", "players": []}]))),
                ("none", Field::Elements(Box::new(std::iter::empty()))),
                (
                    "one",
                    Field::Elements(Box::new(std::iter::once(json!("ä\n\"x")))),
                ),
                (
                    "players",
                    Field::Elements(Box::new((0..5).map(|p| json!({"id": p, "s": null})))),
                ),
            ],
        };
        let mut written = Vec::new();
        document().write_to(&mut written).expect("written");
        let whole = document().into_value();
        assert_eq!(
            String::from_utf8(written).expect("utf-8"),
            whole.to_string()
        );
        let keys: Vec<&str> = whole
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["events", "none", "one", "players"], "in order");
    }

    /// A reader gone part-way (`export ratings | head`) is a closed pipe to the caller, which
    /// stops without a word, as for every other export.
    #[test]
    fn a_closed_pipe_is_told_as_one() {
        struct Closes(usize);
        impl std::io::Write for Closes {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                if self.0 < bytes.len() {
                    return Err(std::io::ErrorKind::BrokenPipe.into());
                }
                self.0 -= bytes.len();
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let big = (0..100_000).map(|p| json!({"id": p, "name": "Ağaoğlu, Ahmet"}));
        let document = Document {
            fields: vec![("players", Field::Elements(Box::new(big)))],
        };
        let failed = document.write_to(&mut Closes(70_000)).expect_err("closed");
        assert_eq!(failed.kind(), std::io::ErrorKind::BrokenPipe);
    }
}
