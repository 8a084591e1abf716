//! Importing an arbiter's TRF file, for the command line and the workstation alike: the file
//! read, its players found by the matcher (the national id of a TRF26 national-rating record of
//! the home federation, else the FIDE id field as our id, then the FIDE id, then name and birth
//! date), and the import shown — who is matched, who is new, who is ambiguous and with whom —
//! before it is applied as one audited edit.

use std::collections::BTreeMap;
use std::path::Path;

use super::matcher::{By, Found, Incoming, Matcher};
use super::{ImportError, with_reference};
use crate::app::{Desk, Edit, Federation, ImportedPlayer};
use crate::import::{trf, trf_event};
use crate::model::{PlayerIdx, PlayerInfo, fold_name};
use crate::store::fide::FideTitle;

/// Once an import is stored: keeps its file's FIDE titles ([`Plan::titles`]) for the players'
/// cards (reference data: the import stands without them).
pub fn store_titles<R: Federation>(
    desk: &Desk<R>,
    titles: Vec<(u64, FideTitle)>,
) -> Result<(), ImportError> {
    Ok(desk.store().note_fide_titles(titles)?)
}

/// What the officer gives over the file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Given {
    /// The time control as minutes+seconds (`90+30`), over the file's.
    pub time_control: Option<String>,
    /// The event's id (`None`: the file's name).
    pub id: Option<String>,
    /// The day the results were received (`None`: today, the day of the import): each result's
    /// own receipt date where the rulebook rates a game by it (ISL), else the event's where
    /// it rates by period (TSF).
    pub received: Option<chrono::NaiveDate>,
}

/// An import ready to apply, and what it will do in words.
pub struct Plan<R: Federation> {
    /// Everything it will do, one line each, with every ambiguous player made new.
    pub lines: Vec<String>,
    /// The import with every ambiguous player made new (a merge can join them later).
    pub edit: Edit<R>,
    /// The file and the counts.
    pub head: Vec<String>,
    /// One per ambiguous player: the officer picks one of the candidates, or a new record.
    pub choices: Vec<Choice>,
    /// Matches by name, the event, and warnings (`!`): a stored event with the same name and
    /// dates, players without a federation, later events that will be re-rated.
    pub notes: Vec<String>,
    /// The FIDE titles the file gives its players with a FIDE id, on the event's start: kept
    /// for their cards once the import is stored ([`store_titles`]).
    pub titles: Vec<(u64, FideTitle)>,
}

/// An ambiguous player of the file and what becomes of him.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// His place in the import's player list.
    pub index: usize,
    pub start_number: u32,
    pub name: String,
    pub candidates: Vec<PlayerIdx>,
    /// The candidate chosen, or `None`: a new record.
    pub chosen: Option<usize>,
    /// Whether the officer has chosen (←/→): the workstation imports nothing while a choice
    /// is still open.
    pub decided: bool,
}

impl<R: Federation> Plan<R> {
    /// Moves one ambiguous player's choice to the next (or previous) candidate; past the last
    /// comes "new record".
    pub fn cycle(&mut self, choice: usize, forward: bool) {
        let Some(c) = self.choices.get_mut(choice) else {
            return;
        };
        let n = c.candidates.len() + 1;
        let at = c.chosen.map_or(c.candidates.len(), |i| i);
        let next = if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        };
        // Undecided, the first key shows the first candidate.
        let next = if c.decided {
            next
        } else if forward {
            0
        } else {
            n - 1
        };
        c.chosen = (next < c.candidates.len()).then_some(next);
        c.decided = true;
    }

    /// The ambiguous players still without the officer's choice.
    pub fn open_choices(&self) -> usize {
        self.choices.iter().filter(|c| !c.decided).count()
    }

    /// The import with the officer's choices.
    pub fn chosen_edit(&self) -> Edit<R> {
        let mut edit = self.edit.clone();
        if let Edit::Import { players, .. } = &mut edit {
            for c in &self.choices {
                if let (Some(i), Some(slot)) = (c.chosen, players.get_mut(c.index)) {
                    *slot = ImportedPlayer::Existing(c.candidates[i]);
                }
            }
        }
        edit
    }
}

/// What becomes of one player of the file.
enum Match {
    /// One of ours: by an id (`false`), or by name and birth date (`true`, shown for a check).
    Existing(PlayerIdx, bool),
    New(PlayerInfo),
    Ambiguous(PlayerInfo, Vec<PlayerIdx>),
}

/// A player of the file as the matcher asks for him: the national id of his national-rating
/// record when the file has one for the home federation, else the FIDE id field as our id
/// (some national files keep national ids there); his FIDE id; his name and birth date.
fn incoming(info: &PlayerInfo, national: Option<&trf::NationalRecord>) -> Incoming {
    Incoming {
        id: national
            .map(|n| n.id.clone())
            .filter(|id| !id.is_empty())
            .or_else(|| info.fide_id.map(|f| f.to_string())),
        fide_id: info.fide_id,
        name: Some((info.name.clone(), info.born)),
    }
}

/// Reads `file` and matches its players. `time_control` (`90+30`) overrides the file's; `id`
/// names the event (default: the file's name).
pub fn plan<R: Federation>(
    desk: &Desk<R>,
    file: &Path,
    given: &Given,
) -> Result<Plan<R>, ImportError> {
    let (time_control, id) = (given.time_control.as_deref(), given.id.clone());
    let input = |message: String| ImportError::file(file, message);
    let bytes = crate::import::read_capped(file, crate::import::TRF_LIMIT)
        .map_err(|e| input(e.to_string()))?;
    // Swiss-Manager's own files start with 93 FF 89 44 (older ones are zip archives), whatever
    // their names.
    if bytes.starts_with(b"PK")
        || bytes.starts_with(&[0x93, 0xFF, 0x89, 0x44])
        || file
            .extension()
            .is_some_and(|e| e.to_string_lossy().to_ascii_uppercase().starts_with("TU"))
    {
        return Err(input(
            "this is a Swiss-Manager file; in Swiss-Manager choose Export → TRF (FIDE) and import that"
                .into(),
        ));
    }
    let parsed = trf::parse(&bytes).map_err(|e| input(e.to_string()))?;
    let time_control = match time_control {
        Some(t) => Some(trf_event::parse_base_increment(t).ok_or_else(|| {
            ImportError::Option(format!(
                "the time control '{t}' is not minutes+seconds, e.g. 90+30"
            ))
        })?),
        None => None,
    };
    let id = id.unwrap_or_else(|| {
        file.file_stem()
            .map_or("trf".into(), |s| s.to_string_lossy().into_owned())
    });
    let start = parsed.header("042").and_then(trf_event::parse_date);
    let home = desk.rulebook().home_federation();
    let national: BTreeMap<u32, trf::NationalRecord> = parsed
        .national_records(home)
        .map_err(|e| input(e.to_string()))?
        .into_iter()
        .map(|n| (n.start_number, n))
        .collect();
    let book = desk.book();
    let matcher = Matcher::new(desk);
    let mut matches = Vec::new();
    for p in &parsed.players {
        let mut info = trf_event::player_info(p, &id, start, home);
        let record = national.get(&p.start_number);
        let found = match matcher.find(&incoming(&info, record)) {
            Found::Ours(existing, by) => Match::Existing(existing, by == By::Name),
            Found::Ambiguous(many) => Match::Ambiguous(info, many),
            Found::New | Found::Earlier(_) => {
                // A home player of a TRF26 file is known by his national id.
                if let Some(n) = record.filter(|n| !n.id.is_empty()) {
                    info.id = n.id.clone();
                }
                Match::New(info)
            }
        };
        matches.push((p.start_number, found));
    }
    let count = |f: &dyn Fn(&Match) -> bool| matches.iter().filter(|(_, m)| f(m)).count();
    let (matched, created, ambiguous) = (
        count(&|m| matches!(m, Match::Existing(..))),
        count(&|m| matches!(m, Match::New(_))),
        count(&|m| matches!(m, Match::Ambiguous(..))),
    );
    let head = vec![
        format!(
            "{}: {} ({} players, {} rounds)",
            file.display(),
            parsed.header("012").unwrap_or(&id),
            parsed.players.len(),
            parsed.rounds()
        ),
        format!("  {matched} matched, {created} new, {ambiguous} ambiguous"),
    ];
    let written = |name: &str| desk.rulebook().name_order().write(name).into_owned();
    let label = |c: PlayerIdx| {
        format!(
            "{} ({})",
            written(&book.players[c].name),
            book.players[c].id
        )
    };
    let mut choices = Vec::new();
    let mut notes = Vec::new();
    let mut created = Vec::new();
    for (index, (n, m)) in matches.iter().enumerate() {
        match m {
            Match::Ambiguous(info, candidates) => choices.push(Choice {
                index,
                start_number: *n,
                name: info.name.clone(),
                candidates: candidates.clone(),
                chosen: None,
                decided: false,
            }),
            Match::Existing(p, true) => {
                // The matcher compares birth dates only when the file gives one.
                let born = parsed
                    .players
                    .get(index)
                    .is_some_and(|t| trf_event::parse_date(&t.born).is_some() && t.born.len() >= 8);
                notes.push(format!(
                    "  = {n} {} by name {}",
                    label(*p),
                    if born {
                        "and birth date"
                    } else {
                        "alone (the file gives no birth date): check him"
                    }
                ));
            }
            Match::New(info) => {
                created.push(format!(
                    "  + {n} {} ({}): new",
                    written(&info.name),
                    info.id
                ));
            }
            _ => {}
        }
    }
    // Home players are written without a federation (none means the home federation); a blank
    // or unreadable federation in the file is what the officer should know about.
    let stateless = parsed
        .players
        .iter()
        .zip(&matches)
        .filter(|(p, (_, m))| {
            let fed = p.federation.trim();
            let unknown = fed.len() != 3 || !fed.chars().all(|c| c.is_ascii_alphabetic());
            unknown && !matches!(m, Match::Existing(..))
        })
        .count();
    // The event refers to players by their place in the import's player list.
    let lists = desk.rulebook().lists().len();
    let mut players = Vec::new();
    let mut numbers = BTreeMap::new();
    for (n, m) in matches {
        numbers.insert(n, players.len());
        players.push(match m {
            Match::Existing(p, _) => ImportedPlayer::Existing(p),
            // An ambiguous player becomes a new record; a merge can join them later.
            Match::New(info) | Match::Ambiguous(info, _) => ImportedPlayer::New {
                info: with_reference(desk, info)?,
                seeds: vec![None; lists],
                held: Vec::new(),
            },
        });
    }
    let mut event = trf_event::to_event(&parsed, &id, &numbers, time_control)
        .map_err(|e| input(e.to_string()))?;
    if let Some(note) = receive(desk.rulebook(), &mut event, given.received)? {
        notes.push(note);
    }
    let titles = parsed
        .players
        .iter()
        .filter_map(|p| {
            let title = FideTitle::of(&[&p.title], event.start, format!("TRF of {id}"));
            p.fide_id
                .filter(|_| !title.codes().is_empty())
                .zip(Some(title))
        })
        .collect();
    let games = event.games.iter().filter(|g| g.is_rated_game()).count();
    let unplayed = event.games.len() - games;
    notes.push(format!(
        "  event {id}: {} to {}, {games} games to rate, {unplayed} byes and forfeits",
        event.start, event.end
    ));
    notes.extend(warnings(desk, &event, &players, stateless));
    // The new players last: a file of 250 new players keeps its warnings in view.
    notes.extend(created);
    let mut lines = head.clone();
    for c in &choices {
        let names: Vec<String> = c.candidates.iter().map(|&p| label(p)).collect();
        lines.push(format!(
            "  ? {} {}: {} (imported as a new record)",
            c.start_number,
            c.name,
            names.join(", ")
        ));
    }
    lines.extend(notes.iter().cloned());
    Ok(Plan {
        lines,
        edit: Edit::Import {
            players,
            events: vec![event],
        },
        head,
        choices,
        notes,
        titles,
    })
}

/// Records when the file's results were received, and says so: where the rulebook rates a
/// game by its own receipt date (ISL: "Góð regla er að slá inn hverja umferð strax að henni
/// lokinni") each result is stamped with `received`, else with today, the day it arrived
/// (never before its game was played); where it rates an event by period (TSF) a day given is
/// the event's. A day after today, one before a game was played, and one given to a rulebook
/// that rates by neither are refused.
fn receive<R: Federation>(
    rulebook: &R,
    event: &mut crate::model::Event,
    received: Option<chrono::NaiveDate>,
) -> Result<Option<String>, ImportError> {
    let today = crate::clock::today();
    if let Some(day) = received
        && day > today
    {
        return Err(ImportError::Option(format!(
            "--received {day} is after today"
        )));
    }
    if rulebook.keeps_game_receipt() {
        let day = received.unwrap_or(today);
        for g in event.games.iter_mut().filter(|g| g.result.is_some()) {
            let played = g.date.unwrap_or(event.start);
            if received.is_some() && day < played {
                return Err(ImportError::Option(format!(
                    "--received {day} is before round {} was played ({played})",
                    g.round
                )));
            }
            g.received = Some(day.max(played));
        }
        let how = if received.is_some() { "" } else { " (today)" };
        return Ok(Some(format!("  results received {day}{how}")));
    }
    let Some(day) = received else {
        return Ok(None);
    };
    if !rulebook.by_period() {
        return Err(ImportError::Option(format!(
            "--received: {} events are not rated by the day their results were received",
            rulebook.adjective()
        )));
    }
    if day < event.end {
        return Err(ImportError::Option(format!(
            "--received {day} is before the event ended ({})",
            event.end
        )));
    }
    event.received = Some(day);
    Ok(Some(format!("  results received {day}")))
}

/// What the officer should know before importing: the same event already stored, players
/// without a federation, and the later events whose ratings the import moves.
fn warnings<R: Federation>(
    desk: &Desk<R>,
    event: &crate::model::Event,
    players: &[ImportedPlayer<R>],
    stateless: usize,
) -> Vec<String> {
    let book = desk.book();
    let mut out = Vec::new();
    let fold = |s: &str| fold_name(s.trim());
    for (e, stored) in book.events.iter().enumerate() {
        if book.live[e]
            && (stored.start, stored.end) == (event.start, event.end)
            && !event.name.is_empty()
            && fold(&stored.name) == fold(&event.name)
        {
            out.push(format!(
                "  ! an event with this name and dates is already stored: {} ({} to {})",
                stored.id, stored.start, stored.end
            ));
        }
    }
    if stateless > 0 {
        let rulebook = desk.rulebook();
        out.push(format!(
            "  ! {} without a federation in the file: stored without one, which counts as \
             {} (can represent {}, rated as {})",
            crate::figures::count(stateless, "new player", "new players"),
            rulebook.adjective(),
            rulebook.country(),
            rulebook.citizen(),
        ));
    }
    let ours: std::collections::BTreeSet<PlayerIdx> = players
        .iter()
        .filter_map(|p| match p {
            ImportedPlayer::Existing(p) | ImportedPlayer::Updated { player: p, .. } => Some(*p),
            ImportedPlayer::New { .. } => None,
        })
        .collect();
    let later: Vec<&str> = crate::ledger::event_order(&book.events)
        .into_iter()
        .filter(|&e| book.live[e] && book.events[e].end > event.end)
        .filter(|&e| {
            book.events[e]
                .games
                .iter()
                .any(|g| ours.contains(&g.white()) || g.black().is_some_and(|b| ours.contains(&b)))
        })
        .map(|e| book.events[e].id.as_str())
        .collect();
    if !later.is_empty() {
        let shown: Vec<&str> = later.iter().take(6).copied().collect();
        let more = later.len().saturating_sub(shown.len());
        out.push(format!(
            "  ! {} will be re-rated: {}{}",
            crate::figures::count(later.len(), "later event", "later events"),
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    out
}
