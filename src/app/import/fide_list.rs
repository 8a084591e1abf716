//! Importing FIDE's rating lists: the federation's players found by FIDE id (the matcher's
//! index of players in use) get the list's ratings, an audited edit per file; everyone else is
//! kept as reference data. All or nothing: every file is read and checked whole first, then the
//! reference data is written under a journal that the edits' one transaction closes, so a
//! process killed part way leaves the database as it was before the import (rolled back at the
//! next open). The same for every rulebook: FIDE ratings are read by each rulebook's own rules
//! (SSL 3.7/3.9, TSF B.1.d …).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use chrono::NaiveDate;

use super::ImportError;
use super::matcher::Matcher;
use crate::app::{Desk, DeskError, Edit, Federation};
use crate::import::fide_list::{self, FideRecord, Kind};
use crate::model::{FideEntry, PlayerIdx};
use crate::store::fide::{FideReference, FideTitle, HeldReferences};

/// How many reference records are written in one batch (neighbouring ids: a batch rewrites
/// the blocks of its ids once).
const BATCH: usize = 20_000;

/// What a long read reports as it goes (a progress bar on a terminal; nothing elsewhere).
pub trait Progress {
    /// A pass over `file` (`checking`, `storing`) of `total` bytes begins.
    fn start(&mut self, file: &Path, what: &str, total: u64);
    /// `bytes` of it are read.
    fn at(&mut self, bytes: u64);
    fn finish(&mut self);
}

/// No progress shown.
pub struct Quiet;

impl Progress for Quiet {
    fn start(&mut self, _: &Path, _: &str, _: u64) {}
    fn at(&mut self, _: u64) {}
    fn finish(&mut self) {}
}

/// What the import of lists is asked to do.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The list's month, when neither the file nor its name says it.
    pub date: Option<NaiveDate>,
    /// Only this list (for a per-list file whose name does not say which it is).
    pub kind: Option<Kind>,
    pub dry_run: bool,
}

/// One list file, read and checked: what it will change.
pub struct PlannedList {
    pub file: PathBuf,
    pub list_date: NaiveDate,
    pub kinds: Vec<Kind>,
    /// Players in the file.
    pub total: u64,
    /// Of them, players with a rating on any list.
    pub rated: u64,
    ours: Vec<(PlayerIdx, FideRecord)>,
    member: String,
}

impl PlannedList {
    /// Our players the list has.
    pub fn ours(&self) -> usize {
        self.ours.len()
    }
}

/// What an import of lists did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Imported {
    pub elapsed: std::time::Duration,
    /// Reference players new to the database.
    pub added: u64,
    /// Reference players held now.
    pub held: u64,
    /// Our players' ratings that changed.
    pub ratings: usize,
    pub units: usize,
}

/// A list's date given as `2026-10` or `2026-10-01` (lists are dated the first of the month).
pub fn parse_list_date(text: &str) -> Result<NaiveDate, ImportError> {
    let full = if text.len() == 7 {
        format!("{text}-01")
    } else {
        text.to_string()
    };
    NaiveDate::parse_from_str(&full, "%Y-%m-%d").map_err(|_| {
        ImportError::Option(format!(
            "--date '{text}' is not a month (2026-10) or a date"
        ))
    })
}

/// A FIDE list named on the command line: standard, rapid or blitz.
pub fn parse_kind(text: &str) -> Result<Kind, ImportError> {
    Kind::ALL
        .iter()
        .copied()
        .find(|k| k.name().eq_ignore_ascii_case(text))
        .ok_or_else(|| {
            ImportError::Option(format!("--list '{text}' is not standard, rapid or blitz"))
        })
}

/// Streams a list through `each`, reporting its progress.
fn stream_list(
    path: &Path,
    hint: Option<Kind>,
    what: &str,
    progress: &mut dyn Progress,
    mut each: impl FnMut(FideRecord) -> Result<(), ImportError>,
) -> Result<fide_list::Opened, ImportError> {
    let read = Arc::new(AtomicU64::new(0));
    progress.start(path, what, std::fs::metadata(path).map_or(0, |m| m.len()));
    let outcome = fide_list::read_file(path, read.clone(), hint, |opened, records| {
        let mut n = 0u64;
        for record in &mut *records {
            let record = record.map_err(|e| ImportError::file(path, e))?;
            each(record)?;
            n += 1;
            if n.is_multiple_of(8192) {
                progress.at(read.load(Ordering::Relaxed));
            }
        }
        let mut opened = opened.clone();
        opened.month = records.header_month().or(opened.month);
        opened.single = records.single();
        Ok::<_, ImportError>(opened)
    });
    progress.finish();
    outcome?
}

/// Reads and checks every file: what each will change. Nothing is written.
pub fn plan<R: Federation>(
    desk: &Desk<R>,
    files: &[PathBuf],
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<Vec<PlannedList>, ImportError> {
    // Our players by FIDE id, in memory: a list has a million lines and we a few thousand.
    let by_fide = Matcher::new(desk).by_fide_id();
    let mut planned = Vec::with_capacity(files.len());
    for file in files {
        let mut ours: Vec<(PlayerIdx, FideRecord)> = Vec::new();
        let mut seen = BTreeSet::new();
        // Every id of the list (some 8 bytes each): a player listed twice is refused, whoever
        // he is, as which of his records holds cannot be told.
        let mut ids = std::collections::HashSet::new();
        let (mut total, mut rated) = (0u64, 0u64);
        let opened = stream_list(file, options.kind, "checking", progress, |record| {
            total += 1;
            if !ids.insert(record.fide_id) && !by_fide.contains_key(&record.fide_id) {
                return Err(ImportError::file(
                    file,
                    format!(
                        "FIDE id {} appears twice in the list (record {total}); a list has one record a player",
                        record.fide_id
                    ),
                ));
            }
            if Kind::ALL.iter().any(|&k| record.rating(k).is_some()) {
                rated += 1;
            }
            if let Some(&p) = by_fide.get(&record.fide_id) {
                // One of our players twice: which record is his cannot be told.
                if !seen.insert(p) {
                    return Err(ImportError::file(
                        file,
                        format!(
                            "FIDE id {} appears twice in the list (one of our players: {}); a list has one record a player",
                            record.fide_id,
                            desk.book().players[p].id
                        ),
                    ));
                }
                ours.push((p, record));
            }
            Ok(())
        })?;
        let Some(list_date) = options.date.or(opened.month) else {
            return Err(ImportError::file(
                file,
                "neither the file nor its name gives the list's month; give it with --date 2026-10",
            ));
        };
        let kinds: Vec<Kind> = match (options.kind, opened.single) {
            (Some(k), _) | (None, Some(k)) => vec![k],
            (None, None) => Kind::ALL.to_vec(),
        };
        planned.push(PlannedList {
            file: file.clone(),
            list_date,
            kinds,
            total,
            rated,
            ours,
            member: opened.member.clone(),
        });
    }
    Ok(planned)
}

/// Imports planned lists: the reference data under a journal, then every list's edit of our
/// players in one transaction that closes the journal.
pub fn apply<R: Federation>(
    desk: &mut Desk<R>,
    planned: &[PlannedList],
    progress: &mut dyn Progress,
) -> Result<Imported, ImportError> {
    use crate::store::fide::{FIDE_IMPORT, FIDE_IMPORT_COUNT};
    let started = std::time::Instant::now();
    let names: Vec<String> = planned
        .iter()
        .map(|l| l.file.display().to_string())
        .collect();
    desk.store().begin_fide_import(&names.join(", "))?;
    let (edits, added) = match store_references(desk, planned, progress) {
        Ok(stored) => stored,
        Err(e) => {
            desk.store().roll_back_fide_import()?;
            return Err(e);
        }
    };
    let effect = match desk.apply_all(edits, &[FIDE_IMPORT, FIDE_IMPORT_COUNT]) {
        Ok(effect) => effect,
        Err(e @ DeskError::Edit(_)) => {
            desk.store().roll_back_fide_import()?;
            return Err(e.into());
        }
        Err(e) => return Err(e.into()),
    };
    desk.store().end_fide_import()?;
    desk.store().note_fide_titles(titles(planned))?;
    Ok(Imported {
        elapsed: started.elapsed(),
        added,
        held: desk.store().fide_reference_count()?,
        ratings: effect.ratings.len(),
        units: effect.units_rated,
    })
}

/// Imports FIDE lists into the database in `dir` (created with `rulebook` if there is none),
/// with nothing shown as it goes: the whole import in one call, for the bench.
pub fn into_database<R: Federation>(
    dir: &Path,
    rulebook: R,
    files: &[PathBuf],
    date: Option<NaiveDate>,
) -> Result<Imported, ImportError> {
    let mut desk = Desk::open(dir, rulebook)?;
    let options = Options {
        date,
        ..Options::default()
    };
    let planned = plan(&desk, files, &options, &mut Quiet)?;
    let imported = apply(&mut desk, &planned, &mut Quiet)?;
    desk.close()?;
    Ok(imported)
}

/// Writes the planned lists' reference data (journaled) and returns each list's edit of our
/// players, with what it did to the reference data as the audit entry's note.
fn store_references<R: Federation>(
    desk: &Desk<R>,
    planned: &[PlannedList],
    progress: &mut dyn Progress,
) -> Result<(NotedEdits<R>, u64), ImportError> {
    let store = desk.store();
    let mut edits = Vec::with_capacity(planned.len());
    let mut added_total = 0;
    for list in planned {
        let matched: BTreeSet<u64> = list.ours.iter().map(|(_, r)| r.fide_id).collect();
        // Every record of the list first, then merged in the order of their ids: FIDE's lists
        // come in the order of names, and the store keeps neighbouring ids together, so a batch
        // in the file's order would rewrite nearly every block.
        let mut records = HeldReferences::default();
        stream_list(
            &list.file,
            list.kinds
                .first()
                .copied()
                .filter(|_| list.kinds.len() == 1),
            "storing",
            progress,
            |record| {
                if !matched.contains(&record.fide_id) {
                    let fide_id = record.fide_id;
                    records.push(store, fide_id, &reference(record, list.list_date))?;
                }
                Ok(())
            },
        )?;
        let (mut added, mut changed) = (0, 0);
        for batch in records.batches(store, BATCH) {
            let (a, c) = store.merge_fide_references(batch?, &list.kinds)?;
            added += a;
            changed += c;
        }
        added_total += added;
        let entries: Vec<(PlayerIdx, FideEntry)> = list
            .ours
            .iter()
            .map(|(p, r)| (*p, r.entry(list.list_date)))
            .collect();
        edits.push((
            Edit::FideList {
                list_date: list.list_date,
                kinds: list.kinds.clone(),
                entries,
                source: list.member.clone(),
            },
            Some(format!(
                "{}: reference data of players not ours: {added} added, {changed} updated",
                list.file.display()
            )),
        ));
    }
    Ok((edits, added_total))
}

/// Our players' FIDE titles as the lists give them (players not ours keep theirs in the
/// reference data).
fn titles(planned: &[PlannedList]) -> Vec<(u64, FideTitle)> {
    planned
        .iter()
        .flat_map(|list| {
            list.ours.iter().map(|(_, r)| {
                (
                    r.fide_id,
                    FideTitle::of(
                        &[&r.title, &r.women_title],
                        list.list_date,
                        crate::store::fide::LIST_SOURCE.into(),
                    ),
                )
            })
        })
        .collect()
}

/// Edits with the notes their audit entries carry.
type NotedEdits<R> = Vec<(Edit<R>, Option<String>)>;

fn reference(r: FideRecord, list_date: NaiveDate) -> FideReference {
    let entry = r.entry(list_date);
    FideReference {
        name: r.name,
        federation: r.federation,
        sex: r.sex,
        birth_year: r.birth_year,
        title: r.title,
        women_title: r.women_title,
        inactive: r.inactive,
        lists: vec![entry],
    }
}
