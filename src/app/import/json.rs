//! Importing `rate` documents: every file read and checked for the database's rulebook, its
//! players found by the matcher (our id, then the FIDE id; a player new in an earlier file is
//! the same player in a later one), then all of them imported as one audited edit naming each
//! file and what it brought — all or nothing.

use std::path::{Path, PathBuf};

use super::ImportError;
use super::matcher::{Found, Incoming, Matcher};
use crate::app::{Desk, Edit, Federation, ImportedPlayer};
use crate::book::Book;
use crate::json;
use crate::model::player_u32;

/// The rulebook a document names (`ssl` when it names none), read before a database for it is
/// opened.
pub fn rules_of(file: &Path) -> Result<String, ImportError> {
    let text = read(file)?;
    json::rules_of(&text).map_err(|e| ImportError::file(file, e))
}

fn read(file: &Path) -> Result<String, ImportError> {
    crate::import::read_capped_text(file, crate::import::DOCUMENT_LIMIT)
        .map_err(|e| ImportError::file(file, e))
}

/// A document read from a file (as large as a document may be).
pub fn read_document(file: &Path) -> Result<String, ImportError> {
    read(file)
}

/// A document read from a stream (stdin), no larger than a document may be.
pub fn read_document_from(input: impl std::io::Read) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    input
        .take(crate::import::DOCUMENT_LIMIT)
        .read_to_string(&mut text)?;
    Ok(text)
}

/// `ratedesk rate`: the pure calculator — a document rated by the rulebook it names (through
/// the registry), with no database.
pub fn rate(text: &str) -> Result<serde_json::Value, json::InputError> {
    struct Rate<'t>(&'t str);
    impl crate::app::WithFederation for Rate<'_> {
        type Output = Result<serde_json::Value, json::InputError>;
        fn with<R: Federation>(self, rulebook: R) -> Self::Output {
            json::rate_with(&rulebook, self.0)
        }
    }
    let rules = json::rules_of(text)?;
    crate::app::with_federation(&rules, Rate(text))
        .map_err(|unknown| json::InputError::new("rules", unknown.to_string()))?
}

/// A `rate` document read and checked for `rulebook`.
fn read_book<R: Federation>(rulebook: &R, file: &Path) -> Result<Book<R>, ImportError> {
    let text = read(file)?;
    let rules = json::rules_of(&text).map_err(|e| ImportError::file(file, e))?;
    if rules != rulebook.code() {
        return Err(ImportError::OtherRulebook {
            file: file.to_path_buf(),
            found: rules,
            wanted: rulebook.code().into(),
        });
    }
    json::read(rulebook, &text)
        .map(|loaded| loaded.book)
        .map_err(|e| ImportError::file(file, e))
}

/// An import of documents, read and matched, ready to apply.
pub struct JsonPlan<R: Federation> {
    /// Per file: what it brings.
    pub notes: Vec<String>,
    pub edit: Edit<R>,
}

/// Reads and matches `files`; nothing is written.
pub fn plan<R: Federation>(desk: &Desk<R>, files: &[PathBuf]) -> Result<JsonPlan<R>, ImportError> {
    let books = files
        .iter()
        .map(|f| read_book(desk.rulebook(), f))
        .collect::<Result<Vec<_>, _>>()?;
    let mut matcher = Matcher::new(desk);
    let mut players: Vec<ImportedPlayer<R>> = Vec::new();
    let mut existing = std::collections::HashMap::new();
    let mut events = Vec::new();
    let mut notes = Vec::new();
    for (file, book) in files.iter().zip(books) {
        let (mut matched, mut created) = (0, 0);
        let mut map = Vec::with_capacity(book.players.len());
        for (p, info) in book.players.iter().enumerate() {
            let incoming = Incoming {
                id: Some(info.id.clone()),
                fide_id: info.fide_id,
                name: None,
            };
            let at = match matcher.find(&incoming) {
                Found::Ours(id, _) => {
                    matched += 1;
                    *existing.entry(id).or_insert_with(|| {
                        players.push(ImportedPlayer::Existing(id));
                        players.len() - 1
                    })
                }
                Found::Earlier(at) => {
                    matched += 1;
                    at
                }
                Found::New | Found::Ambiguous(_) => {
                    created += 1;
                    players.push(ImportedPlayer::New {
                        info: info.clone(),
                        seeds: book.seeds[p].clone(),
                        held: book.held[p].clone(),
                    });
                    let at = players.len() - 1;
                    matcher.made_new(at, &info.id, info.fide_id);
                    at
                }
            };
            map.push(at);
        }
        let games: usize = book.events.iter().map(|e| e.games.len()).sum();
        notes.push(format!(
            "{}: {created} new players, {matched} matched, {} events, {games} games",
            file.display(),
            book.events.len()
        ));
        for mut event in book.events {
            let to = |p: usize| map.get(p).copied().unwrap_or(usize::MAX);
            event.participants = event.participants.iter().map(|&p| to(p)).collect();
            for g in &mut event.games {
                g.white = player_u32(to(g.white()));
                g.black = g.black().map(to).map(player_u32);
            }
            events.push(event);
        }
    }
    Ok(JsonPlan {
        notes,
        edit: Edit::Import { players, events },
    })
}

/// Applies a planned import as one audited edit naming its files; returns how many rating
/// units were rated.
pub fn apply<R: Federation>(desk: &mut Desk<R>, plan: JsonPlan<R>) -> Result<usize, ImportError> {
    let effect = desk.apply_noted(plan.edit, Some(format!("from {}", plan.notes.join("; "))))?;
    Ok(effect.units_rated)
}
