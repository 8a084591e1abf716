//! Reading a `rate` document: JSON shape first (serde, with the path of any mismatch), then
//! every value checked and turned into the domain model. Nothing half-read is ever returned.

use std::collections::{BTreeMap, BTreeSet};

use chrono::NaiveDate;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::InputError;
use crate::model::{
    AddedTime, Clash, Event, FideEntry, Game, GameResult, NationalEntry, PlayerIdx, PlayerInfo,
    Rating, Sex, TimeControl, player_u32,
};

#[derive(Deserialize)]
pub(super) struct DocumentIn {
    pub rules: String,
    #[serde(default)]
    pub as_of: Option<String>,
    #[serde(default)]
    pub players: Vec<PlayerIn>,
    #[serde(default)]
    pub events: Vec<EventIn>,
}

#[derive(Deserialize)]
pub(super) struct PlayerIn {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub federation: Option<String>,
    /// Not part of the rating: kept when the document is imported.
    #[serde(default)]
    pub club: Option<String>,
    #[serde(default)]
    pub fide_id: Option<u64>,
    #[serde(default)]
    pub born: Option<String>,
    #[serde(default)]
    pub sex: Option<String>,
    #[serde(default)]
    pub fide: Vec<FideIn>,
    #[serde(default)]
    pub national: Vec<NationalIn>,
    #[serde(default)]
    pub titles: Vec<TitleIn>,
    /// The rulebook's lists (`selo`, `pelo`, …) and anything else.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

#[derive(Deserialize)]
pub(super) struct FideIn {
    pub list_date: String,
    #[serde(default)]
    pub standard: Option<i64>,
    #[serde(default)]
    pub rapid: Option<i64>,
    #[serde(default)]
    pub blitz: Option<i64>,
}

#[derive(Deserialize)]
pub(super) struct NationalIn {
    #[serde(default)]
    pub federation: Option<String>,
    #[serde(default)]
    pub standard: Option<i64>,
    #[serde(default)]
    pub rapid: Option<i64>,
    #[serde(default)]
    pub comparable: bool,
}

#[derive(Deserialize)]
pub(super) struct TitleIn {
    pub title: String,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub event: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct EventIn {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    pub start: String,
    pub end: String,
    #[serde(default)]
    pub time_control: Option<TimeControlIn>,
    #[serde(default)]
    pub abroad: bool,
    #[serde(default)]
    pub official_representation: bool,
    /// Replaced by `playoff_of`; refused with a message saying so.
    #[serde(default)]
    pub playoff: Option<bool>,
    /// The id of the event whose winner or placing this play-off decides (SSL 2.10).
    #[serde(default)]
    pub playoff_of: Option<String>,
    /// When the federation received the results (ISL and TSF rate by it).
    #[serde(default)]
    pub received: Option<String>,
    /// Player ids in start-number order; absent: the players of the games.
    #[serde(default)]
    pub participants: Option<Vec<String>>,
    #[serde(default)]
    pub age_limit: Option<i64>,
    #[serde(default)]
    pub pairing: Option<String>,
    #[serde(default)]
    pub games: Vec<GameIn>,
}

#[derive(Deserialize)]
pub(super) struct TimeControlIn {
    pub base_minutes: f64,
    #[serde(default)]
    pub increment_seconds: f64,
    #[serde(default)]
    pub periods: Vec<PeriodIn>,
}

#[derive(Deserialize)]
pub(super) struct PeriodIn {
    pub after_move: i64,
    pub minutes: f64,
}

#[derive(Deserialize)]
pub(super) struct GameIn {
    pub round: i64,
    #[serde(default)]
    pub board: Option<i64>,
    pub white: String,
    #[serde(default)]
    pub black: Option<String>,
    /// Absent or null: paired, no result yet.
    #[serde(default)]
    pub result: Option<String>,
    /// Beyond the contract, as `export events` writes it: `false` for a game between two
    /// players that was not played although its code reads as played — an unplayed half
    /// point (a TRF `D`: a game of less than one move), which no code of the contract says.
    #[serde(default)]
    pub played: Option<bool>,
    /// The day this game's result was received, when it is its own (ISL rates a game by it;
    /// the other rulebooks keep it and rate by the event's).
    #[serde(default)]
    pub received: Option<String>,
    #[serde(default)]
    pub date: Option<String>,
}

/// Parses a JSON document, naming the path and position of the first mismatch.
pub(super) fn parse_document(text: &str) -> Result<DocumentIn, InputError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let item = if path == "." || path.is_empty() {
            "input".to_string()
        } else {
            path
        };
        InputError::new(item, inner.to_string())
    })
}

/// A calendar date written `YYYY-MM-DD`, in the years of [`crate::model::YEARS`]; 2025-02-30
/// is refused.
pub(super) fn date(item: &str, text: &str) -> Result<NaiveDate, InputError> {
    let date = NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .filter(|_| text.len() == 10)
        .ok_or_else(|| {
            InputError::new(item, format!("'{text}' is not a valid date (YYYY-MM-DD)"))
        })?;
    if !crate::model::plausible_date(date) {
        let years = crate::model::YEARS;
        return Err(InputError::new(
            item,
            format!(
                "{text} is outside the years {}–{}",
                years.start(),
                years.end()
            ),
        ));
    }
    Ok(date)
}

fn optional_date(item: &str, text: &Option<String>) -> Result<Option<NaiveDate>, InputError> {
    text.as_deref().map(|t| date(item, t)).transpose()
}

pub use crate::model::RATINGS;

/// A published rating: a whole number from 0 to 4000.
pub(super) fn rating(item: &str, value: i64) -> Result<Rating, InputError> {
    if RATINGS.contains(&value) {
        Ok(value as Rating)
    } else {
        Err(InputError::new(
            item,
            format!("rating {value} is outside 0–4000"),
        ))
    }
}

fn optional_rating(item: &str, value: Option<i64>) -> Result<Option<Rating>, InputError> {
    value.map(|v| rating(item, v)).transpose()
}

/// Minutes as whole seconds; negative or non-finite minutes are refused.
fn seconds(item: &str, minutes: f64, per: f64) -> Result<u32, InputError> {
    if !minutes.is_finite() || minutes < 0.0 || minutes * per > f64::from(u32::MAX) {
        return Err(InputError::new(
            item,
            format!("{minutes} is not a valid non-negative time"),
        ));
    }
    Ok((minutes * per).round() as u32)
}

pub(super) fn player_info(p: &PlayerIn, item: &str) -> Result<PlayerInfo, InputError> {
    let fide = p
        .fide
        .iter()
        .enumerate()
        .map(|(k, f)| {
            let item = format!("{item}.fide[{k}]");
            Ok(FideEntry {
                list_date: date(&format!("{item}.list_date"), &f.list_date)?,
                standard: optional_rating(&format!("{item}.standard"), f.standard)?,
                rapid: optional_rating(&format!("{item}.rapid"), f.rapid)?,
                blitz: optional_rating(&format!("{item}.blitz"), f.blitz)?,
            })
        })
        .collect::<Result<Vec<_>, InputError>>()?;
    let national = p
        .national
        .iter()
        .enumerate()
        .map(|(k, n)| {
            let item = format!("{item}.national[{k}]");
            Ok(NationalEntry {
                federation: n.federation.clone().unwrap_or_default(),
                standard: optional_rating(&format!("{item}.standard"), n.standard)?,
                rapid: optional_rating(&format!("{item}.rapid"), n.rapid)?,
                comparable: n.comparable,
            })
        })
        .collect::<Result<Vec<_>, InputError>>()?;
    let sex = match p.sex.as_deref().map(str::to_ascii_lowercase).as_deref() {
        None => None,
        Some("f" | "w" | "n") => Some(Sex::Female),
        Some("m") => Some(Sex::Male),
        Some(other) => {
            return Err(InputError::new(
                format!("{item}.sex"),
                format!("'{other}' is not f or m"),
            ));
        }
    };
    Ok(PlayerInfo {
        reentries: Vec::new(),
        id: p.id.clone(),
        name: p.name.clone().unwrap_or_default(),
        federation: p.federation.clone().filter(|f| !f.trim().is_empty()),
        club: p
            .club
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string),
        fide_id: p.fide_id,
        born: optional_date(&format!("{item}.born"), &p.born)?,
        sex,
        fide,
        national,
    })
}

/// Checks and converts the events: dates, time controls, known players, results, and at most
/// one game per player per round.
pub(super) fn events(
    events_in: &[EventIn],
    ids: &BTreeMap<&str, PlayerIdx>,
    game_receipt: bool,
) -> Result<Vec<Event>, InputError> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::with_capacity(events_in.len());
    for e in events_in {
        let item = format!("event '{}'", e.id);
        if !seen.insert(e.id.as_str()) {
            return Err(InputError::new(item, "the event id appears twice"));
        }
        let start = date(&format!("{item} start"), &e.start)?;
        let end = date(&format!("{item} end"), &e.end)?;
        if e.playoff == Some(true) {
            return Err(InputError::new(
                format!("{item} playoff"),
                "'playoff' is replaced by 'playoff_of': the id of the event the play-off decides",
            ));
        }
        let received = optional_date(&format!("{item} received"), &e.received)?;
        if received.is_some_and(|r| r < end) {
            return Err(InputError::new(
                format!("{item} received"),
                "the results cannot be received before the event ends",
            ));
        }
        if start > end {
            return Err(InputError::new(
                item,
                format!("starts {start} after it ends {end}"),
            ));
        }
        let time_control = e
            .time_control
            .as_ref()
            .map(|tc| {
                let added = tc
                    .periods
                    .iter()
                    .map(|p| {
                        if p.after_move < 1 {
                            return Err(InputError::new(
                                format!("{item} time_control"),
                                format!("after_move {} must be a move number", p.after_move),
                            ));
                        }
                        Ok(AddedTime {
                            after_move: p.after_move.min(i64::from(u32::MAX)) as u32,
                            seconds: seconds(
                                &format!("{item} time_control period"),
                                p.minutes,
                                60.0,
                            )?,
                        })
                    })
                    .collect::<Result<Vec<_>, InputError>>()?;
                Ok(TimeControl {
                    base_seconds: seconds(&format!("{item} base_minutes"), tc.base_minutes, 60.0)?,
                    increment_seconds: seconds(
                        &format!("{item} increment_seconds"),
                        tc.increment_seconds,
                        1.0,
                    )?,
                    added,
                })
            })
            .transpose()?;
        let age_limit = match e.age_limit {
            None => None,
            Some(a) if (1..=150).contains(&a) => Some(a as u32),
            Some(a) => {
                return Err(InputError::new(
                    format!("{item} age_limit"),
                    format!("{a} is not an age"),
                ));
            }
        };
        let mut in_round: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
        let mut games: Vec<Game> = Vec::with_capacity(e.games.len());
        for g in &e.games {
            // Built only when something is wrong: most games are fine.
            let gitem = || {
                format!(
                    "{item}, round {}, {} vs {}",
                    g.round,
                    g.white,
                    g.black.as_deref().unwrap_or("bye")
                )
            };
            let round = u32::try_from(g.round)
                .ok()
                .filter(|r| (1..=crate::model::MAX_ROUND).contains(r))
                .ok_or_else(|| {
                    InputError::new(
                        gitem(),
                        format!(
                            "round {} is not a round number (1 to {})",
                            g.round,
                            crate::model::MAX_ROUND
                        ),
                    )
                })?;
            let player = |id: &str| {
                ids.get(id)
                    .copied()
                    .ok_or_else(|| InputError::new(gitem(), format!("unknown player '{id}'")))
            };
            let white = player(&g.white)?;
            let black = g.black.as_deref().map(player).transpose()?;
            let result = g
                .result
                .as_deref()
                .map(|code| {
                    GameResult::parse(code)
                        .map(|r| r.on_board(black.is_none() || g.played == Some(false)))
                        .ok_or_else(|| {
                            InputError::new(gitem(), format!("bad result code '{code}'"))
                        })
                })
                .transpose()?;
            let date = g
                .date
                .as_deref()
                .map(|d| date(&format!("{} date", gitem()), d))
                .transpose()?;
            // Boards are numbered in input order within a round unless given.
            let board = match g.board {
                Some(b) => u32::try_from(b)
                    .ok()
                    .filter(|b| (1..=crate::model::MAX_BOARD).contains(b))
                    .ok_or_else(|| {
                        InputError::new(
                            gitem(),
                            format!(
                                "board {b} is not a board number (1 to {})",
                                crate::model::MAX_BOARD
                            ),
                        )
                    })?,
                // One past the round's highest board so far.
                None => in_round
                    .get(&round)
                    .into_iter()
                    .flatten()
                    .map(|&i| games[i].board)
                    .max()
                    .map_or(1, |b: u32| b + 1),
            };
            let received = g
                .received
                .as_deref()
                .filter(|_| game_receipt)
                .map(|d| self::date(&format!("{} received", gitem()), d))
                .transpose()?;
            let game = Game {
                round,
                board,
                white: player_u32(white),
                black: black.map(player_u32),
                result,
                date,
                received,
            };
            // The one check of a game's place (`Clash`), against the round's games so far.
            let others = in_round
                .get(&round)
                .into_iter()
                .flatten()
                .map(|&i| &games[i]);
            if let Some(clash) = Clash::of(&game, others) {
                let name = |p: PlayerIdx| {
                    let id = if p == white {
                        &g.white
                    } else {
                        g.black.as_ref().unwrap_or(&g.white)
                    };
                    format!("player '{id}'")
                };
                return Err(InputError::new(gitem(), clash.describe(&game, name)));
            }
            in_round.entry(round).or_default().push(games.len());
            games.push(game);
        }
        let listed = e
            .participants
            .as_ref()
            .map(|listed| {
                let mut seen = BTreeSet::new();
                listed
                    .iter()
                    .map(|id| {
                        let p = ids.get(id.as_str()).copied().ok_or_else(|| {
                            InputError::new(&item, format!("unknown participant '{id}'"))
                        })?;
                        if !seen.insert(p) {
                            return Err(InputError::new(
                                &item,
                                format!("participant '{id}' is listed twice"),
                            ));
                        }
                        Ok(p)
                    })
                    .collect::<Result<Vec<_>, InputError>>()
            })
            .transpose()?;
        let mut event = Event {
            id: e.id.clone(),
            name: e.name.clone().unwrap_or_default(),
            start,
            end,
            time_control,
            abroad: e.abroad,
            official_representation: e.official_representation,
            age_limit,
            playoff_of: e.playoff_of.clone(),
            participants: Vec::new(),
            pairing: e.pairing.clone().unwrap_or_default(),
            received,
            games,
        };
        event.participants = match listed {
            Some(listed) => {
                let entered: BTreeSet<PlayerIdx> = listed.iter().copied().collect();
                if let Some(g) = event.games.iter().find(|g| {
                    !entered.contains(&g.white())
                        || g.black().is_some_and(|b| !entered.contains(&b))
                }) {
                    return Err(InputError::new(
                        &item,
                        format!(
                            "round {} board {} has a player who is not a participant",
                            g.round, g.board
                        ),
                    ));
                }
                listed
            }
            None => event.players_in_games(),
        };
        out.push(event);
    }
    for e in &out {
        if let Some(decided) = &e.playoff_of
            && (decided == &e.id || !out.iter().any(|o| &o.id == decided))
        {
            return Err(InputError::new(
                format!("event '{}' playoff_of", e.id),
                format!("'{decided}' names no other event"),
            ));
        }
    }
    Ok(out)
}

/// A JSON object, or `None` for null (a state that is not there).
pub(crate) fn object<'v>(
    item: &str,
    value: &'v Value,
) -> Result<Option<&'v Map<String, Value>>, InputError> {
    match value {
        Value::Null => Ok(None),
        Value::Object(obj) => Ok(Some(obj)),
        other => Err(InputError::new(
            item,
            format!("expected an object, found {other}"),
        )),
    }
}

/// A state's `rating`: a published rating, or `None` when absent or null.
pub(crate) fn published_rating(
    item: &str,
    obj: &Map<String, Value>,
) -> Result<Option<Rating>, InputError> {
    obj.get("rating")
        .filter(|v| !v.is_null())
        .map(|v| whole(item, "rating", v).and_then(|r| rating(item, r)))
        .transpose()
}

/// A score given in points (`2.5`), as half points.
pub(crate) fn halves(
    item: &str,
    field: &str,
    v: &Value,
) -> Result<crate::rules::Halves, InputError> {
    v.as_f64()
        .map(|s| s * 2.0)
        .filter(|h| h.fract() == 0.0 && *h >= 0.0 && *h < 1e9)
        .map(|h| h as crate::rules::Halves)
        .ok_or_else(|| {
            InputError::new(
                format!("{item}.{field}"),
                format!("{v} is not a score in half points"),
            )
        })
}

/// A whole number given as a JSON number (`3` or `3.0`).
pub(crate) fn whole(item: &str, field: &str, v: &Value) -> Result<i64, InputError> {
    v.as_i64()
        .or_else(|| {
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 1e15)
                .map(|f| f as i64)
        })
        .ok_or_else(|| {
            InputError::new(
                format!("{item}.{field}"),
                format!("{v} is not a whole number"),
            )
        })
}

/// A count of games or players: a whole number from 0.
pub(crate) fn count(item: &str, field: &str, v: &Value) -> Result<u32, InputError> {
    let n = whole(item, field, v)?;
    u32::try_from(n)
        .map_err(|_| InputError::new(format!("{item}.{field}"), format!("{n} is not a count")))
}
