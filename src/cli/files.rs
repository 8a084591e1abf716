//! The file commands beyond JSON and TRF import: FIDE rating lists and the selo service's CSV
//! in; the national list, event reports, players' histories and TRF26 out.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use chrono::NaiveDate;

use super::{Failure, other};
use crate::app::{Desk, Edit, ImportedPlayer};
use crate::import::fide_list::{self, FideRecord, Kind};
use crate::json::{self, JsonRules};
use crate::model::{FideEntry, PlayerIdx, PlayerInfo, fold_name};
use crate::rules::Award;
use crate::rules::ssl::{PELO, SELO, Ssl, SslState, titles::Title};
use crate::store::fide::FideReference;

/// How many reference records are written in one batch.
const BATCH: usize = 20_000;

/// A list's date given as `2026-10` or `2026-10-01` (lists are dated the first of the month).
pub fn parse_list_date(text: &str) -> Result<NaiveDate, Failure> {
    let full = if text.len() == 7 {
        format!("{text}-01")
    } else {
        text.to_string()
    };
    NaiveDate::parse_from_str(&full, "%Y-%m-%d").map_err(|_| {
        Failure::Input(format!(
            "--date '{text}' is not a month (2026-10) or a date"
        ))
    })
}

pub fn parse_kind(text: &str) -> Result<Kind, Failure> {
    Kind::ALL
        .into_iter()
        .find(|k| k.name().eq_ignore_ascii_case(text))
        .ok_or_else(|| Failure::Input(format!("--list '{text}' is not standard, rapid or blitz")))
}

fn progress_bar(path: &Path, what: &str) -> indicatif::ProgressBar {
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(size),
        indicatif::ProgressDrawTarget::stderr_with_hz(4),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{msg} [{bar:30}] {bytes}/{total_bytes} {elapsed} (eta {eta})",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(format!("{what} {}", path.display()));
    bar
}

/// Streams a list through `each`, with a progress bar on a terminal.
fn stream_list(
    path: &Path,
    hint: Option<Kind>,
    what: &str,
    mut each: impl FnMut(FideRecord) -> Result<(), Failure>,
) -> Result<fide_list::Opened, Failure> {
    let read = Arc::new(AtomicU64::new(0));
    let bar = progress_bar(path, what);
    let outcome = fide_list::read_file(path, read.clone(), hint, |opened, records| {
        let mut n = 0u64;
        for record in &mut *records {
            let record = record.map_err(|e| Failure::Input(format!("{}: {e}", path.display())))?;
            each(record)?;
            n += 1;
            if n.is_multiple_of(8192) {
                bar.set_position(read.load(Ordering::Relaxed));
            }
        }
        let mut opened = opened.clone();
        opened.month = records.header_month().or(opened.month);
        opened.single = records.single();
        Ok::<_, Failure>(opened)
    });
    bar.finish_and_clear();
    outcome.map_err(|e| Failure::Input(e.to_string()))?
}

/// One list file, read and checked: what it will change.
struct PlannedList {
    file: std::path::PathBuf,
    list_date: NaiveDate,
    kinds: Vec<Kind>,
    ours: Vec<(PlayerIdx, FideRecord)>,
    member: String,
}

/// `ratedesk import fide-list FILE…`: the federation's players found by FIDE id get the list's
/// ratings (an audited edit per file); everyone else is kept as reference data. All or
/// nothing: every file is read and checked whole first, then the reference data is written
/// under a journal that the edits' one transaction closes, so a process killed part way leaves
/// the database as it was before the import (rolled back at the next open).
pub fn import_fide_lists(
    desk: &mut Desk<Ssl>,
    files: &[std::path::PathBuf],
    date: Option<NaiveDate>,
    kind: Option<Kind>,
    dry_run: bool,
    out: &mut impl Write,
) -> Result<(), Failure> {
    use crate::store::fide::{FIDE_IMPORT, FIDE_IMPORT_COUNT};
    let started = std::time::Instant::now();
    // Our players by FIDE id, in memory: a list has a million lines and we a few thousand.
    let active = desk.active_players();
    let by_fide: std::collections::HashMap<u64, PlayerIdx> = desk
        .book()
        .players
        .iter()
        .enumerate()
        .filter(|(p, _)| active[*p])
        .filter_map(|(p, info)| info.fide_id.map(|f| (f, p)))
        .collect();
    let mut planned = Vec::with_capacity(files.len());
    for file in files {
        let mut ours: Vec<(PlayerIdx, FideRecord)> = Vec::new();
        let (mut total, mut rated) = (0u64, 0u64);
        let opened = stream_list(file, kind, "checking", |record| {
            total += 1;
            if Kind::ALL.iter().any(|&k| record.rating(k).is_some()) {
                rated += 1;
            }
            if let Some(&p) = by_fide.get(&record.fide_id) {
                ours.push((p, record));
            }
            Ok(())
        })?;
        let Some(list_date) = date.or(opened.month) else {
            return Err(Failure::Input(format!(
                "{}: neither the file nor its name gives the list's month; give it with --date 2026-10",
                file.display()
            )));
        };
        let kinds: Vec<Kind> = match (kind, opened.single) {
            (Some(k), _) | (None, Some(k)) => vec![k],
            (None, None) => Kind::ALL.to_vec(),
        };
        let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
        writeln!(
            out,
            "{}: FIDE {} list of {list_date}, {total} players ({rated} rated); {} of ours by FIDE id, {} kept as reference",
            file.display(),
            names.join("/"),
            ours.len(),
            total - ours.len() as u64
        )
        .map_err(other)?;
        planned.push(PlannedList {
            file: file.clone(),
            list_date,
            kinds,
            ours,
            member: opened.member.clone(),
        });
    }
    if dry_run {
        writeln!(out, "  nothing imported (dry run)").map_err(other)?;
        return Ok(());
    }
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    desk.store().begin_fide_import(&names.join(", "))?;
    let stored = store_references(desk, &planned);
    let (edits, added) = match stored {
        Ok(stored) => stored,
        Err(e) => {
            desk.store().roll_back_fide_import()?;
            return Err(e);
        }
    };
    let effect = match desk.apply_all(edits, &[FIDE_IMPORT, FIDE_IMPORT_COUNT]) {
        Ok(effect) => effect,
        Err(e @ crate::app::DeskError::Edit(_)) => {
            desk.store().roll_back_fide_import()?;
            return Err(e.into());
        }
        Err(e) => return Err(e.into()),
    };
    desk.store().end_fide_import()?;
    writeln!(
        out,
        "  imported in {:.1?}: {added} new reference players ({} held); {} of our players' ratings changed, {} units re-rated",
        started.elapsed(),
        desk.store().fide_reference_count()?,
        effect.ratings.len(),
        effect.units_rated
    )
    .map_err(other)?;
    Ok(())
}

/// Writes the planned lists' reference data (journaled) and returns each list's edit of our
/// players, with what it did to the reference data as the audit entry's note.
fn store_references(
    desk: &Desk<Ssl>,
    planned: &[PlannedList],
) -> Result<(NotedEdits, u64), Failure> {
    let store = desk.store();
    let mut edits = Vec::with_capacity(planned.len());
    let mut added_total = 0;
    for list in planned {
        let matched: BTreeSet<u64> = list.ours.iter().map(|(_, r)| r.fide_id).collect();
        let mut batch = Vec::with_capacity(BATCH);
        let (mut added, mut changed) = (0, 0);
        let mut count = |(a, c): (u64, u64)| {
            added += a;
            changed += c;
        };
        stream_list(
            &list.file,
            list.kinds
                .first()
                .copied()
                .filter(|_| list.kinds.len() == 1),
            "storing",
            |record| {
                if !matched.contains(&record.fide_id) {
                    batch.push((record.fide_id, reference(record, list.list_date)));
                    if batch.len() == BATCH {
                        count(
                            store.merge_fide_references(std::mem::take(&mut batch), &list.kinds)?,
                        );
                    }
                }
                Ok(())
            },
        )?;
        count(store.merge_fide_references(batch, &list.kinds)?);
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

/// Edits with the notes their audit entries carry.
type NotedEdits = Vec<(Edit<Ssl>, Option<String>)>;

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

/// `ratedesk import selo-csv FILE`: players not yet in the database are created with the
/// list's selo and pelo as their starting states (and its title as held); players already in
/// it (by id, then FIDE id) are left as they are, but for their club: a file with a `Seura`
/// column says which club each plays for now (an empty cell: none), and a new club is an
/// audited change of his record, made with the import.
pub fn import_selo_csv(
    desk: &mut Desk<Ssl>,
    file: &Path,
    dry_run: bool,
    out: &mut impl Write,
) -> Result<(), Failure> {
    use crate::import::selo_csv;
    let bytes = crate::import::read_capped(file, crate::import::CSV_LIMIT)
        .map_err(|e| Failure::Input(format!("{}: {e}", file.display())))?;
    let rows =
        selo_csv::parse(&bytes).map_err(|e| Failure::Input(format!("{}: {e}", file.display())))?;
    let mut players = Vec::new();
    let mut matched = 0;
    let mut moved = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for row in rows {
        if !seen.insert(row.id.clone()) {
            return Err(Failure::Input(format!(
                "{}: line {}: the id {} is listed twice",
                file.display(),
                row.line,
                row.id
            )));
        }
        let existing = match desk.store().player_by_code(&row.id)? {
            Some(p) => Some(p),
            None => row
                .fide_id
                .map(|f| desk.store().player_by_fide(f))
                .transpose()?
                .flatten(),
        };
        if let Some(player) = existing {
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
        // A starting state read as the `rate` format reads one (`{"rating", "games"}`).
        let state = |list, f: Option<selo_csv::Figures>| -> Result<Option<SslState>, Failure> {
            let Some(f) = f else { return Ok(None) };
            let value = serde_json::json!({"rating": f.rating, "games": f.games});
            Ssl.state_from_json(list, &value, &format!("line {}", row.line))
                .map_err(|e| Failure::Input(format!("{}: {e}", file.display())))
        };
        let mut seeds = vec![None; 2];
        seeds[SELO] = state(SELO, row.selo)?;
        seeds[PELO] = state(PELO, row.pelo)?;
        let held = match row.title.as_str() {
            "" => Vec::new(),
            t => {
                let title = Title::parse(t).ok_or_else(|| {
                    Failure::Input(format!(
                        "{}: line {}, column Arvo: '{t}' is not a title (M, ME, I)",
                        file.display(),
                        row.line
                    ))
                })?;
                vec![Award {
                    player: 0,
                    award: title,
                    date: None,
                    event: None,
                }]
            }
        };
        let info = PlayerInfo {
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
            info: crate::app::trf_import::with_reference(desk, info)?,
            seeds,
            held,
        });
    }
    let summary = format!(
        "{}: {} new players, {matched} already in the database ({} with another club, \
         otherwise left as they are)",
        file.display(),
        players.len() - moved.len(),
        moved.len()
    );
    if dry_run {
        writeln!(out, "{summary}; nothing imported (add --yes to import)").map_err(other)?;
        return Ok(());
    }
    desk.apply_noted(
        Edit::Import {
            players,
            events: Vec::new(),
        },
        Some(format!("from {summary}")),
    )?;
    writeln!(out, "{summary}; imported").map_err(other)?;
    Ok(())
}

/// A club as a cell gives it: `None` when empty.
fn club_of(cell: &str) -> Option<String> {
    Some(cell.trim().to_string()).filter(|c| !c.is_empty())
}

/// A player named on the command line: by id, FIDE id, or a name only one player has.
pub fn find_player(desk: &Desk<Ssl>, key: &str) -> Result<PlayerIdx, Failure> {
    if let Some(p) = desk.store().player_by_code(key)? {
        return Ok(p);
    }
    if let Ok(f) = key.parse::<u64>()
        && let Some(p) = desk.store().player_by_fide(f)?
    {
        return Ok(p);
    }
    let folded = fold_name(key);
    let book = desk.book();
    let active = desk.active_players();
    let found: Vec<PlayerIdx> = desk
        .store()
        .players_by_name(&folded)?
        .into_iter()
        .filter(|&p| active.get(p).copied().unwrap_or(false))
        .filter(|&p| fold_name(&book.players[p].name) == folded)
        .collect();
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(Failure::Input(format!(
            "no player has the id, FIDE id or name '{key}'"
        ))),
        many => Err(Failure::Input(format!(
            "'{key}' is the name of {} players; give an id: {}",
            many.len(),
            many.iter()
                .map(|&p| book.players[p].id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The national ratings going into an event, for TRF26's national-rating records: each Finn's
/// rating on the event's list after the units that ended before the event began.
pub fn national_ratings(desk: &Desk<Ssl>, event: usize) -> Vec<(PlayerIdx, crate::model::Rating)> {
    use crate::rules::Rulebook;
    let book = desk.book();
    let ev = &book.events[event];
    let list = Ssl.list_in(ev, &book.events).unwrap_or(SELO);
    let Some(before) = ev.start.pred_opt() else {
        return Vec::new();
    };
    ev.participants
        .iter()
        .filter(|&&p| book.players[p].is_finnish())
        .filter_map(|&p| {
            desk.ledger()
                .state_on(book, p, list, before)
                .and_then(|s| s.rating)
                .map(|r| (p, r))
        })
        .collect()
}

/// A `rate` document read and checked.
fn read_json(file: &Path) -> Result<crate::book::Book<Ssl>, Failure> {
    let text = crate::import::read_capped_text(file, crate::import::DOCUMENT_LIMIT)
        .map_err(|e| Failure::Input(format!("{}: {e}", file.display())))?;
    let rules =
        json::rules_of(&text).map_err(|e| Failure::Input(format!("{}: {e}", file.display())))?;
    if rules != "ssl" {
        return Err(Failure::Input(format!(
            "{}: {}",
            file.display(),
            json::unsupported(&rules)
        )));
    }
    json::read(&Ssl, &text)
        .map(|loaded| loaded.book)
        .map_err(|e| Failure::Input(format!("{}: {e}", file.display())))
}

/// `ratedesk import json FILE…`: every file read and checked, then all of them imported as one
/// audited edit naming each file and what it brought — all or nothing. A player of a later file
/// who is new in an earlier one is matched to him.
pub(super) fn import_json(
    desk: &mut Desk<Ssl>,
    files: &[PathBuf],
    dry_run: bool,
    out: &mut impl Write,
) -> Result<(), Failure> {
    use std::collections::HashMap;
    let books = files
        .iter()
        .map(|f| read_json(f))
        .collect::<Result<Vec<_>, _>>()?;
    let mut players: Vec<ImportedPlayer<Ssl>> = Vec::new();
    let mut existing: HashMap<usize, usize> = HashMap::new();
    let (mut new_by_code, mut new_by_fide) = (HashMap::new(), HashMap::new());
    let mut events = Vec::new();
    let mut notes = Vec::new();
    for (file, book) in files.iter().zip(books) {
        let (mut matched, mut created) = (0, 0);
        let mut map = Vec::with_capacity(book.players.len());
        for (p, info) in book.players.iter().enumerate() {
            let stored = match desk.store().player_by_code(&info.id)? {
                Some(id) => Some(id),
                None => match info.fide_id {
                    Some(f) => desk.store().player_by_fide(f)?,
                    None => None,
                },
            };
            let earlier = new_by_code
                .get(&info.id)
                .or_else(|| info.fide_id.and_then(|f| new_by_fide.get(&f)))
                .copied();
            let at = match (stored, earlier) {
                (Some(id), _) => {
                    matched += 1;
                    *existing.entry(id).or_insert_with(|| {
                        players.push(ImportedPlayer::Existing(id));
                        players.len() - 1
                    })
                }
                (None, Some(at)) => {
                    matched += 1;
                    at
                }
                (None, None) => {
                    created += 1;
                    players.push(ImportedPlayer::New {
                        info: info.clone(),
                        seeds: book.seeds[p].clone(),
                        held: book.held[p].clone(),
                    });
                    let at = players.len() - 1;
                    new_by_code.insert(info.id.clone(), at);
                    if let Some(f) = info.fide_id {
                        new_by_fide.insert(f, at);
                    }
                    at
                }
            };
            map.push(at);
        }
        let games: usize = book.events.iter().map(|e| e.games.len()).sum();
        let note = format!(
            "{}: {created} new players, {matched} matched, {} events, {games} games",
            file.display(),
            book.events.len()
        );
        writeln!(out, "{note}").map_err(other)?;
        notes.push(note);
        for mut event in book.events {
            let to = |p: usize| map.get(p).copied().unwrap_or(usize::MAX);
            event.participants = event.participants.iter().map(|&p| to(p)).collect();
            for g in &mut event.games {
                g.white = to(g.white);
                g.black = g.black.map(to);
            }
            events.push(event);
        }
    }
    if dry_run {
        writeln!(out, "dry run: nothing imported").map_err(other)?;
        return Ok(());
    }
    let effect = desk.apply_noted(
        Edit::Import { players, events },
        Some(format!("from {}", notes.join("; "))),
    )?;
    writeln!(
        out,
        "imported as one edit; {} units rated",
        effect.units_rated
    )
    .map_err(other)?;
    Ok(())
}
