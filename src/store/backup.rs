//! The portable backup: a line-oriented text dump of every record and the whole audit log, one
//! JSON record a line, in key order, so that backup → restore → backup is byte-identical and a
//! database sled can no longer open is never more than the last backup away.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::records::{AuditEntry, Change, Delta, EventRecord, PlayerRecord, PlayerStatus};
use crate::ledger::Book;
use crate::model::Game;
use crate::rules::Rulebook;

const HEADER: &str = "ratedesk-backup 1";

/// Where automatic backups of the database in `dir` go.
pub fn backup_dir(dir: &Path) -> PathBuf {
    dir.join("backups")
}

#[derive(Debug, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct BackupError {
    pub line: usize,
    pub message: String,
}

/// Writes the dump of a book, its player statuses and audit log.
pub fn write<R: Rulebook>(
    rules: &str,
    book: &Book<R>,
    status: &[PlayerStatus],
    audit: &[AuditEntry<R>],
    out: &mut impl Write,
) -> std::io::Result<()> {
    let line = |out: &mut dyn Write, kind: &str, v: Value| writeln!(out, "{kind} {v}");
    writeln!(out, "{HEADER} rules={rules}")?;
    for (p, info) in book.players.iter().enumerate() {
        let record = PlayerRecord::<R> {
            info: info.clone(),
            seeds: book.seeds[p].clone(),
            held: book.held[p].clone(),
            confirmed: book.confirmed[p].clone(),
            status: status[p],
        };
        line(out, "player", json!({"id": p, "record": record}))?;
    }
    for (e, event) in book.events.iter().enumerate() {
        let record = EventRecord {
            event: crate::model::Event {
                games: Vec::new(),
                ..event.clone()
            },
            live: book.live[e],
        };
        line(out, "event", json!({"id": e, "record": record}))?;
        for g in &event.games {
            line(out, "game", json!({"event": e, "record": g}))?;
        }
    }
    for entry in audit {
        line(out, "audit", json!(entry))?;
    }
    Ok(())
}

/// Reads a dump: the records as one change from an empty database, and the audit log.
pub fn read<R: Rulebook>(
    rules: &str,
    text: &str,
) -> Result<(Change<R>, Vec<AuditEntry<R>>), BackupError> {
    let mut lines = text.lines().enumerate();
    let err = |line: usize, message: String| BackupError {
        line: line + 1,
        message,
    };
    match lines.next() {
        Some((_, h)) if h == format!("{HEADER} rules={rules}") => {}
        Some((i, h)) => {
            return Err(err(
                i,
                format!("expected '{HEADER} rules={rules}', found '{h}'"),
            ));
        }
        None => return Err(err(0, "the file is empty".into())),
    }
    let mut change = Change::<R>::default();
    let mut audit = Vec::new();
    for (i, text) in lines {
        if text.trim().is_empty() {
            continue;
        }
        let (kind, body) = text
            .split_once(' ')
            .ok_or_else(|| err(i, "expected a kind and a record".into()))?;
        let value: Value = serde_json::from_str(body).map_err(|e| err(i, e.to_string()))?;
        let field = |name: &str| {
            value
                .get(name)
                .cloned()
                .ok_or_else(|| err(i, format!("no '{name}'")))
        };
        let id = |name: &str| -> Result<usize, BackupError> {
            field(name)?
                .as_u64()
                .map(|v| v as usize)
                .ok_or_else(|| err(i, format!("'{name}' is not an id")))
        };
        match kind {
            "player" => {
                let record: PlayerRecord<R> =
                    serde_json::from_value(field("record")?).map_err(|e| err(i, e.to_string()))?;
                change.players.push(Delta {
                    key: id("id")?,
                    before: None,
                    after: Some(record),
                });
            }
            "event" => {
                let record: EventRecord =
                    serde_json::from_value(field("record")?).map_err(|e| err(i, e.to_string()))?;
                change.events.push(Delta {
                    key: id("id")?,
                    before: None,
                    after: Some(record),
                });
            }
            "game" => {
                let game: Game =
                    serde_json::from_value(field("record")?).map_err(|e| err(i, e.to_string()))?;
                let event = id("event")?;
                if !change.events.iter().any(|d| d.key == event) {
                    return Err(err(i, format!("game of unknown event {event}")));
                }
                let players = change.players.len();
                if game.white >= players || game.black.is_some_and(|b| b >= players) {
                    return Err(err(i, "game of an unknown player".into()));
                }
                change.games.push(Delta {
                    key: (event, game.round, game.board),
                    before: None,
                    after: Some(game),
                });
            }
            "audit" => {
                let entry: AuditEntry<R> =
                    serde_json::from_value(value).map_err(|e| err(i, e.to_string()))?;
                audit.push(entry);
            }
            other => return Err(err(i, format!("unknown record kind '{other}'"))),
        }
    }
    Ok((change, audit))
}

/// Writes an automatic backup into `dir/backups` and keeps the newest `keep`.
pub fn rotate(dir: &Path, contents: &[u8], keep: usize) -> std::io::Result<PathBuf> {
    let folder = backup_dir(dir);
    std::fs::create_dir_all(&folder)?;
    super::lock::set_private(&folder);
    let name = format!(
        "ratedesk-{}.backup",
        chrono::Local::now().format("%Y%m%dT%H%M%S%.3f")
    );
    let path = folder.join(name);
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, contents)?;
    super::lock::set_private(&tmp);
    std::fs::rename(&tmp, &path)?;
    let mut all = automatic_backups(dir)?;
    while all.len() > keep {
        let oldest = all.remove(0);
        std::fs::remove_file(oldest)?;
    }
    Ok(path)
}

/// The automatic backups, oldest first.
pub fn automatic_backups(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let folder = backup_dir(dir);
    if !folder.exists() {
        return Ok(Vec::new());
    }
    let mut all: Vec<PathBuf> = std::fs::read_dir(folder)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "backup"))
        .collect();
    all.sort();
    Ok(all)
}
