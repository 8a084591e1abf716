//! Importing the federation's national list (its CSV, as `export list` writes it; Finland's is
//! the selo service's): players not yet in the database are created with the list's figures as
//! their starting states (and its title as held); players already in it — found by the matcher,
//! by id then FIDE id — are left as they are, but for their club: a file with a club column
//! says which club each plays for now (an empty cell: none), and a new club is an audited change
//! of his record, made with the import.

use std::collections::BTreeSet;
use std::path::Path;

use super::matcher::{Found, Incoming, Matcher};
use super::{ImportError, with_reference};
use crate::app::{Desk, Edit, Federation, ImportedPlayer};
use crate::import::national_csv;
use crate::model::PlayerInfo;
use crate::rules::Award;

/// An import of a national list, read and matched, ready to apply.
pub struct CsvPlan<R: Federation> {
    /// `FILE: N new players, M already in the database (left as they are)`.
    pub summary: String,
    pub new_players: usize,
    pub edit: Edit<R>,
}

/// Reads `file` by the rulebook's columns and matches its players; nothing is written.
pub fn plan<R: Federation>(desk: &Desk<R>, file: &Path) -> Result<CsvPlan<R>, ImportError> {
    let rulebook = desk.rulebook();
    let bytes = crate::import::read_capped(file, crate::import::CSV_LIMIT)
        .map_err(|e| ImportError::file(file, e))?;
    let rows = national_csv::parse(&bytes, rulebook.list_columns())
        .map_err(|e| ImportError::file(file, e))?;
    let matcher = Matcher::new(desk);
    let mut players = Vec::with_capacity(rows.len());
    let mut matched = 0;
    let mut moved = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for row in rows {
        if !seen.insert(row.id.clone()) {
            return Err(ImportError::file(
                file,
                format!("line {}: the id {} is listed twice", row.line, row.id),
            ));
        }
        let incoming = Incoming {
            id: Some(row.id.clone()),
            fide_id: row.fide_id,
            name: None,
        };
        if let Found::Ours(player, _) = matcher.find(&incoming) {
            matched += 1;
            let stored = &desk.book().players[player];
            let club = row.club.as_deref().map(club_of);
            if let Some(club) = club.filter(|c| *c != stored.club)
                && moved.insert(player)
            {
                players.push(ImportedPlayer::Updated {
                    player,
                    info: PlayerInfo {
                        club,
                        ..stored.clone()
                    },
                });
            }
            continue;
        }
        let seeds = row
            .lists
            .iter()
            .enumerate()
            .map(|(list, figures)| figures.map(|f| rulebook.listed_state(list, f.rating, f.games)))
            .collect();
        let held = match (row.title.as_str(), rulebook.list_columns().title) {
            ("", _) | (_, None) => Vec::new(),
            (code, Some(column)) => {
                let award = rulebook.award_from_json(code).ok_or_else(|| {
                    ImportError::file(
                        file,
                        format!(
                            "line {}, column {}: '{code}' is not a title of the rulebook",
                            row.line, column[0]
                        ),
                    )
                })?;
                vec![Award {
                    player: 0,
                    award,
                    date: None,
                    event: None,
                }]
            }
        };
        let info = PlayerInfo {
            reentries: Vec::new(),
            id: row.id,
            name: row.name,
            federation: None,
            club: row.club.as_deref().and_then(club_of),
            fide_id: row.fide_id,
            born: row.born,
            sex: row.sex,
            fide: Vec::new(),
            national: Vec::new(),
        };
        players.push(ImportedPlayer::New {
            info: with_reference(desk, info)?,
            seeds,
            held,
        });
    }
    let new_players = players.len() - moved.len();
    Ok(CsvPlan {
        summary: format!(
            "{}: {new_players} new players, {matched} already in the database ({} with another \
             club, otherwise left as they are)",
            file.display(),
            moved.len()
        ),
        new_players,
        edit: Edit::Import {
            players,
            events: Vec::new(),
        },
    })
}

/// A club as a cell gives it: `None` when empty.
fn club_of(cell: &str) -> Option<String> {
    Some(cell.trim().to_string()).filter(|c| !c.is_empty())
}

/// Applies a planned import as one audited edit.
pub fn apply<R: Federation>(desk: &mut Desk<R>, plan: CsvPlan<R>) -> Result<(), ImportError> {
    desk.apply_noted(plan.edit, Some(format!("from {}", plan.summary)))?;
    Ok(())
}
