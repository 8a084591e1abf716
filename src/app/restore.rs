//! Restoring a backup, atomically: the dump is read and checked whole, what it replaces is
//! backed up (or, damaged, set aside), the new database is built in a staging folder and
//! swapped in under the lock. Killed at any moment, the folder holds either the old database,
//! the new one, or a marker that makes the next open refuse with what to do.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Desk, DeskError};
use crate::app::Federation;
use crate::book::Book;
use crate::book::Change;
use crate::ledger::Ledger;
use crate::store::{self, AuditEntry, AuditKind, Store, StoreError, backup};

/// What a restore did.
#[derive(Debug)]
pub struct Restored {
    /// What it replaced (`None`: the database was empty).
    pub replaced: Option<String>,
    /// Where a damaged database was set aside.
    pub set_aside: Option<PathBuf>,
}

/// A backup file opened, with the rulebook its first line names (`None`: it is not a backup).
pub fn open_backup(file: &Path) -> Result<backup::Opened, super::import::ImportError> {
    backup::open(file).map_err(|e| super::import::ImportError::file(file, e))
}

/// Loads the dump `lines` (of `file`, opened by [`open_backup`]) into the database in `dir`:
/// into an empty one, or with `force` over one that holds data (its backup is taken first and
/// kept) or one that is damaged (set aside) or whose earlier restore was interrupted.
/// `step` is told each step as it starts (a million-player restore takes minutes).
pub fn restore<R: Federation>(
    dir: &Path,
    rulebook: R,
    (file, lines): (&Path, impl std::io::BufRead),
    force: bool,
    step: &mut dyn FnMut(&'static str),
) -> Result<(Desk<R>, Restored), DeskError> {
    let bad = |e: backup::BackupError| DeskError::Backup(format!("{}: {e}", file.display()));
    step("reading and checking the backup");
    let dump = backup::read::<R>(rulebook.code(), lines).map_err(bad)?;
    let lock = Arc::new(Store::lock(dir)?);
    if Store::restore_marker(dir).is_some() {
        if !force {
            return Err(DeskError::Backup(format!(
                "an earlier restore into {} was interrupted; restore with --force to replace what it left",
                dir.display()
            )));
        }
        store::open::clear_interrupted_restore(dir).map_err(|e| backup_error(dir, e))?;
    }
    let mut outcome = Restored {
        replaced: None,
        set_aside: None,
    };
    if Store::exists(dir) {
        // Damage may show when sled opens the log, when the records are read or only when
        // the audit log is backed up: any of them means a damaged database.
        let replaced = match Store::open_locked(dir, rulebook.code(), lock.clone()) {
            Ok(old) => back_up_replaced(dir, old, &rulebook, force),
            Err(e) => Err(e.into()),
        };
        match replaced {
            Ok(replaced) => outcome.replaced = replaced,
            Err(DeskError::Store(StoreError::Corrupt { .. })) if force => {
                let aside = store::set_aside(dir)?;
                outcome.replaced = Some(format!(
                    "a damaged database, set aside in {}",
                    aside.display()
                ));
                outcome.set_aside = Some(aside);
            }
            Err(e) => return Err(e),
        }
    }
    // The dump goes into the staging database and is gone before the restored one opens.
    stage(
        dir,
        &rulebook,
        dump,
        (file, outcome.replaced.as_deref()),
        step,
    )?;
    store::open::swap_in_staging(dir, &file.display().to_string())
        .map_err(|e| backup_error(dir, e))?;
    // Opened without the daily backup: the caller takes the restored record's backup once it
    // has said what was restored (and says if it cannot).
    step("opening the restored database");
    let desk = Desk::open_locked_as_is(dir, rulebook, lock).map_err(|e| DeskError::Restored {
        file: file.display().to_string(),
        cause: e.cause(),
    })?;
    Ok((desk, outcome))
}

/// Backs up the database a restore is about to replace (refused without `force` if it holds
/// anything) and says what it holds.
fn back_up_replaced<R: Federation>(
    dir: &Path,
    old: Store,
    rulebook: &R,
    force: bool,
) -> Result<Option<String>, DeskError> {
    let old = Desk::from_store(old, rulebook.clone())?;
    if old.store.is_empty()? {
        old.close()?;
        return Ok(None);
    }
    if !force {
        return Err(DeskError::Backup(format!(
            "the database at {} is not empty; restore with --force to replace it",
            dir.display()
        )));
    }
    let kept = old
        .backup_before(backup::Occasion::BeforeRestore)?
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let counts = old.store.counts()?;
    let replaced = format!(
        "{} players, {} events, {} games, {} audit entries (last #{}); kept in {kept}",
        counts.players,
        counts.events,
        counts.games,
        counts.audit,
        old.audit.last().map_or(0, |a| a.seq)
    );
    old.close()?;
    Ok(Some(replaced))
}

fn backup_error(dir: &Path, e: std::io::Error) -> DeskError {
    DeskError::Store(store::Cause::at(e, dir))
}

/// Builds the restored database in the staging folder: records, audit log, ratings and an
/// audit entry saying what was restored (and, when it replaces data, what it replaced). The
/// audit log is let go once written and the records move into the book that is rated: a
/// million-player dump is not held twice.
fn stage<R: Federation>(
    dir: &Path,
    rulebook: &R,
    dump: backup::Dump<R>,
    (file, replaced): (&Path, Option<&str>),
    step: &mut dyn FnMut(&'static str),
) -> Result<(), DeskError> {
    let backup::Dump {
        change,
        audit,
        moves,
        officers,
    } = dump;
    step("writing the restored database");
    let staging = Store::create_staging(dir, rulebook.code())?;
    let change = staging.restore(change, &audit, &moves)?;
    staging.restore_officers(&officers)?;
    let rated_seq = audit.last().map_or(0, |a| a.seq) + 1;
    drop((audit, moves));
    let action = match replaced {
        Some(replaced) => format!("restore {}: replaced {replaced}", file.display()),
        None => format!("restore {} into an empty database", file.display()),
    };
    let entry = AuditEntry::<R> {
        seq: rated_seq,
        time: crate::clock::timestamp(),
        user: store::lock::user(),
        action,
        kind: AuditKind::Restore,
        change: Change::default(),
        prev: None,
    };
    staging.commit(&entry)?;
    let mut book = Book::default();
    let mut status = Vec::new();
    change.apply_owned(&mut book, &mut status);
    step("rating it");
    let ledger = Ledger::build(rulebook, &book);
    staging.replace_results(ledger.units(), rated_seq)?;
    staging.close()?;
    Ok(())
}
