//! Importing an arbiter's TRF file, for the command line and the workstation alike: the file
//! read, its players matched to ours (FIDE id, then national id, then name and birth date), and
//! the import shown — who is matched, who is new, who is ambiguous and with whom — before it
//! is applied as one audited edit.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Desk, Edit, ImportedPlayer};
use crate::import::{trf, trf_event};
use crate::json::JsonRules;
use crate::model::{PlayerIdx, PlayerInfo, fold_name};
use crate::store::StoreError;

/// Why a file cannot be imported.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The file (or an option) is wrong: the message names what and where.
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An import ready to apply, and what it will do in words.
pub struct Plan<R: JsonRules> {
    pub lines: Vec<String>,
    pub edit: Edit<R>,
}

/// What becomes of one player of the file.
enum Match {
    /// One of ours: by an id (`false`), or by name and birth date (`true`, shown for a check).
    Existing(PlayerIdx, bool),
    New(PlayerInfo),
    Ambiguous(PlayerInfo, Vec<PlayerIdx>),
}

/// A new player's FIDE history from FIDE's lists held as reference, when they know him.
pub fn with_reference<R: JsonRules>(
    desk: &Desk<R>,
    mut info: PlayerInfo,
) -> Result<PlayerInfo, StoreError> {
    let Some(id) = info.fide_id else {
        return Ok(info);
    };
    if let Some(reference) = desk.store().fide_reference(id)? {
        for entry in reference.lists {
            if !info.fide.iter().any(|e| e.list_date == entry.list_date) {
                info.fide.push(entry);
            }
        }
        info.fide.sort_by_key(|e| e.list_date);
        if info.sex.is_none() {
            info.sex = reference.sex;
        }
    }
    Ok(info)
}

/// Reads `file` and matches its players. `time_control` (`90+30`) overrides the file's; `id`
/// names the event (default: the file's name).
pub fn plan<R: JsonRules>(
    desk: &Desk<R>,
    file: &Path,
    time_control: Option<&str>,
    id: Option<String>,
) -> Result<Plan<R>, PlanError> {
    let input = |message: String| PlanError::Input(format!("{}: {message}", file.display()));
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
            PlanError::Input(format!(
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
    let book = desk.book();
    let store = desk.store();
    let mut matches = Vec::new();
    for p in &parsed.players {
        let info = trf_event::player_info(p, &id, start);
        let born = info.born;
        let by_fide = p
            .fide_id
            .map(|f| store.player_by_fide(f))
            .transpose()?
            .flatten();
        let by_code = p
            .fide_id
            .map(|f| store.player_by_code(&f.to_string()))
            .transpose()?
            .flatten();
        let found = match by_fide.or(by_code) {
            Some(existing) => Match::Existing(existing, false),
            None => {
                let folded = fold_name(&info.name);
                let candidates: Vec<PlayerIdx> = store
                    .players_by_name(&folded)?
                    .into_iter()
                    .filter(|&c| fold_name(&book.players[c].name) == folded)
                    .filter(|&c| born.is_none() || book.players[c].born == born)
                    .collect();
                match candidates.as_slice() {
                    [one] => Match::Existing(*one, true),
                    [] => Match::New(info),
                    many => Match::Ambiguous(info, many.to_vec()),
                }
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
    let mut lines = vec![
        format!(
            "{}: {} ({} players, {} rounds)",
            file.display(),
            parsed.header("012").unwrap_or(&id),
            parsed.players.len(),
            parsed.rounds()
        ),
        format!("  {matched} matched, {created} new, {ambiguous} ambiguous"),
    ];
    let label = |c: PlayerIdx| format!("{} ({})", book.players[c].name, book.players[c].id);
    for (n, m) in &matches {
        match m {
            Match::Ambiguous(info, candidates) => {
                let names: Vec<String> = candidates.iter().map(|&c| label(c)).collect();
                lines.push(format!("  ? {n} {}: {}", info.name, names.join(", ")));
            }
            Match::Existing(p, true) => {
                lines.push(format!("  = {n} {} by name and birth date", label(*p)));
            }
            _ => {}
        }
    }
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
    let event = trf_event::to_event(&parsed, &id, &numbers, time_control)
        .map_err(|e| input(e.to_string()))?;
    let games = event.games.iter().filter(|g| g.is_rated_game()).count();
    let unplayed = event.games.len() - games;
    lines.push(format!(
        "  event {id}: {} to {}, {games} games to rate, {unplayed} byes and forfeits",
        event.start, event.end
    ));
    Ok(Plan {
        lines,
        edit: Edit::Import {
            players,
            events: vec![event],
        },
    })
}
