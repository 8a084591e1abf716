//! Opening a database folder safely: the folder checked and locked, leftovers of killed
//! processes cleared, what is there told apart (nothing yet, a database, a database missing its
//! data, an interrupted restore), sled's files looked at before sled repairs them in place; and
//! the folder-level moves: setting a damaged database aside and swapping a restored one in.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{
    CACHE_BYTES, Cause, SCHEMA_VERSION, Store, StoreError, backup, codec, lock, manifest, staged,
};

/// Written while a restored database is swapped in; its presence means the swap did not finish.
const RESTORING: &str = "ratedesk.restoring";
/// Where a restore builds the new database before swapping it in.
const STAGING: &str = ".restore-staging";
/// Where the database a restore replaces waits during the swap.
const REPLACED: &str = ".restore-replaced";

/// What a folder holds.
#[derive(Debug, PartialEq, Eq)]
enum Layout {
    /// Nothing of a database: one may be created.
    Empty,
    Database,
    /// Our manifest or sled's files without sled's log: damage, never a new database.
    Missing(String),
}

fn layout(dir: &Path) -> Layout {
    let has = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok();
    let snapshots = std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("snap."))
    });
    let traces: Vec<&str> = [
        (has(manifest::FILE), manifest::FILE),
        (has("conf"), "conf"),
        (snapshots, "snap.*"),
        (has("blobs"), "blobs"),
    ]
    .into_iter()
    .filter_map(|(present, name)| present.then_some(name))
    .collect();
    match (has("db"), traces.is_empty()) {
        (true, _) => Layout::Database,
        (false, true) => Layout::Empty,
        (false, false) => Layout::Missing(format!(
            "its log `db` is missing, though {} remain",
            traces.join(", ")
        )),
    }
}

/// The marker of a restore being swapped in: which file, and when it began.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestoreMarker {
    pub file: String,
    pub started: String,
}

impl Store {
    /// Opens (or creates, with `rules`) the database in `dir`.
    pub fn open(dir: &Path, rules: &str) -> Result<Self, StoreError> {
        let lock = Arc::new(Self::lock(dir)?);
        Self::open_locked(dir, rules, lock)
    }

    /// Whether `dir` holds a database (or what is left of one): commands that only read are
    /// refused on a folder without one rather than creating it.
    pub fn exists(dir: &Path) -> bool {
        layout(dir) != Layout::Empty || dir.join(RESTORING).exists()
    }

    /// Makes the folder if needed (0700), checks that it and its backups are ours alone, takes
    /// the lock, and clears what killed processes left (a check's copy, a restore's staging
    /// database before its swap began).
    pub fn lock(dir: &Path) -> Result<lock::LockFile, StoreError> {
        use std::os::unix::fs::DirBuilderExt;
        if std::fs::symlink_metadata(dir).is_err() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| e.at(dir))?;
        }
        lock::check_folder(dir)?;
        let backups = backup::backup_dir(dir);
        if std::fs::symlink_metadata(&backups).is_ok() {
            lock::check_folder(&backups)?;
        }
        let held = lock::LockFile::acquire(dir)?;
        let swapping = dir.join(RESTORING).exists();
        for entry in std::fs::read_dir(dir).map_err(|e| e.at(dir))?.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let stale = name.starts_with(".check-") || (name == STAGING && !swapping);
            if stale {
                let _ = std::fs::remove_dir_all(entry.path());
            }
            // A socket a killed workstation served on: no one serves while we hold the lock.
            if name == lock::SERVE_SOCKET {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        Ok(held)
    }

    /// Opens the database in `dir`, whose lock the caller holds.
    pub fn open_locked(
        dir: &Path,
        rules: &str,
        lock: Arc<lock::LockFile>,
    ) -> Result<Self, StoreError> {
        let corrupt = |detail: String| StoreError::Corrupt {
            path: dir.to_path_buf(),
            detail,
            backups: backup::backup_dir(dir),
        };
        if let Some(marker) = Self::restore_marker(dir) {
            return Err(StoreError::Interrupted {
                path: dir.to_path_buf(),
                detail: format!("restoring {} since {}", marker.file, marker.started),
                backups: backup::backup_dir(dir),
            });
        }
        lock::sled_free(dir)?;
        // Damage found before sled opens the database in place (its recovery would rewrite a
        // damaged log) leaves it exactly as found, and says so.
        let untouched = |e: StoreError| match e {
            StoreError::Corrupt {
                path,
                detail,
                backups,
            } => StoreError::Corrupt {
                path,
                detail: format!("{detail}; found before anything was written: it was not modified"),
                backups,
            },
            other => other,
        };
        match layout(dir) {
            Layout::Missing(what) => return Err(untouched(corrupt(what))),
            Layout::Database => {
                Self::check_readable(dir).map_err(|e| untouched(corrupt(e)))?;
                Self::check_against_manifest(dir).map_err(untouched)?;
            }
            Layout::Empty => {}
        }
        Self::open_sled(dir, rules, Some(lock))
    }

    /// A restore's staging database inside `dir` (locked by the caller), new and empty.
    pub fn create_staging(dir: &Path, rules: &str) -> Result<Self, StoreError> {
        let staging = dir.join(STAGING);
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir(&staging).map_err(|e| e.at(&staging))?;
        lock::set_private(&staging);
        Self::open_sled(&staging, rules, None)
    }

    /// A store of this process's own, in a private temporary folder removed when it goes: the
    /// copy of a database another process holds ([`crate::app::Desk::replica`]).
    pub fn scratch(rules: &str) -> Result<Self, StoreError> {
        // The session's own runtime folder when there is one (emptied at logout, so a copy
        // killed before it could remove its folder does not leave the record behind).
        let under = std::env::var_os("XDG_RUNTIME_DIR")
            .map(std::path::PathBuf::from)
            .filter(|d| d.is_dir())
            .unwrap_or_else(std::env::temp_dir);
        sweep_scratch(&under);
        let folder = tempfile::Builder::new()
            .prefix(SCRATCH_PREFIX)
            .tempdir_in(&under)
            .map_err(|e| e.at(&under))?;
        lock::set_private(folder.path());
        let mut store = Self::open_sled(folder.path(), rules, None)?;
        store._scratch = Some(folder);
        Ok(store)
    }

    fn open_sled(
        dir: &Path,
        rules: &str,
        lock: Option<Arc<lock::LockFile>>,
    ) -> Result<Self, StoreError> {
        let corrupt = |detail: String| StoreError::Corrupt {
            path: dir.to_path_buf(),
            detail,
            backups: backup::backup_dir(dir),
        };
        let config = sled::Config::new().path(dir).cache_capacity(CACHE_BYTES);
        let db = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| config.open()))
            .map_err(|_| corrupt("sled could not read it".into()))?
            .map_err(|e| match e {
                // Checked before: another program took sled's lock in between.
                sled::Error::Io(io) if io.kind() == std::io::ErrorKind::Other => {
                    match lock::sled_free(dir) {
                        Err(held) => StoreError::Locked(held),
                        Ok(()) => io.at(dir),
                    }
                }
                other => other.at(dir),
            })?;
        let tree = |name: &str| db.open_tree(name).map_err(|e| e.at(dir));
        let meta = tree("meta")?;
        let schema = meta.get("schema").map_err(|e| e.at(dir))?;
        let stored_rules = meta.get("rules").map_err(|e| e.at(dir))?;
        let mut found_schema = SCHEMA_VERSION;
        match (schema, stored_rules) {
            (None, _) => {
                meta.insert("schema", &SCHEMA_VERSION.to_be_bytes())
                    .map_err(|e| e.at(dir))?;
                meta.insert("rules", rules.as_bytes())
                    .map_err(|e| e.at(dir))?;
            }
            (Some(v), stored) => {
                let found =
                    codec::id_of(&v).ok_or_else(|| corrupt("unreadable schema version".into()))?;
                // An edit being written in steps marks the schema one past the one its version
                // writes, so that a version without its undo log refuses the database rather
                // than keep half an edit. The undo log is played back as the database opens,
                // then the layout of the version that wrote it is migrated.
                let undo = meta.get(staged::UNDO).map_err(|e| e.at(dir))?.is_some();
                let written = staged::written_schema(found, undo);
                if written > SCHEMA_VERSION {
                    return Err(StoreError::Newer {
                        path: dir.to_path_buf(),
                        found,
                    });
                }
                found_schema = written;
                let stored = stored
                    .map(|r| String::from_utf8_lossy(&r).into_owned())
                    .unwrap_or_default();
                if stored != rules {
                    return Err(StoreError::WrongRules {
                        path: dir.to_path_buf(),
                        found: stored,
                        wanted: rules.into(),
                    });
                }
            }
        }
        let mut store = Self {
            players: tree("players")?,
            events: tree("events")?,
            games: tree("games")?,
            results: tree("unit_results")?,
            old_results: tree("results")?,
            audit: tree("audit")?,
            audit_chunks: tree("audit_chunks")?,
            audit_index: tree("audit_index")?,
            audit_moves: tree("audit_moves")?,
            fide: tree("fide_reference_blocks")?,
            fide_titles: tree("fide_title")?,
            fide_undo: tree("fide_reference_blocks_undo")?,
            meta,
            db,
            path: dir.to_path_buf(),
            rules: rules.to_string(),
            _lock: lock,
            _scratch: None,
            manifest: Arc::new(manifest::Settle::new(dir, rules)),
            behind: super::behind::Behind::new(dir.to_path_buf()),
            next_seq: std::sync::atomic::AtomicU64::new(0),
            results_writes: Arc::default(),
            poisoned: std::sync::atomic::AtomicBool::new(false),
            undone: None,
        };
        store.undone = store.roll_back_staged(found_schema)?;
        if let Some(expected) = manifest::read(dir) {
            let found = store.counts()?.audit;
            if found < expected.counts.audit {
                return Err(corrupt(format!(
                    "it holds {found} of the {} audited edits it had; the rest is damaged",
                    expected.counts.audit
                )));
            }
        }
        if found_schema < 2 {
            store.migrate_from_1()?;
        } else {
            store.clear_old_trees()?;
        }
        if found_schema < 3 {
            store.migrate_fide_references()?;
        }
        if found_schema < 4 {
            store.migrate_to_4()?;
        }
        store.migrate_to_5(found_schema)?;
        store.migrate_rows_layout(found_schema)?;
        store.drop_legacy_indexes()?;
        store.roll_back_fide_import()?;
        match store.flush() {
            // Opened on a full disk: it can be read; the next write says what is wrong (and
            // succeeds once space is freed).
            Err(StoreError::NoSpace { .. }) => store.behind.forgive(),
            other => other?,
        }
        if store._lock.is_some() {
            manifest::remove_leftovers(dir);
            manifest::remove_leftovers(&backup::backup_dir(dir));
        }
        // (The socket of the process holding the database is as open as the folder.)
        for entry in std::fs::read_dir(dir).map_err(|e| e.at(dir))?.flatten() {
            if entry.file_name() != lock::SERVE_SOCKET {
                lock::set_private(&entry.path());
            }
        }
        Ok(store)
    }

    /// The rulebook a database was created with, read from the manifest without opening sled
    /// (`None`: no database, or none recorded).
    pub fn rules_in(dir: &Path) -> Option<String> {
        manifest::read(dir).map(|m| m.rules)
    }

    /// When sled's log is not as we left it (a crash, or damage), opens a copy first and checks
    /// that it still holds every acknowledged edit the manifest counted and that every record
    /// in it reads.
    fn check_against_manifest(dir: &Path) -> Result<(), StoreError> {
        let corrupt = |detail: String| StoreError::Corrupt {
            path: dir.to_path_buf(),
            detail,
            backups: backup::backup_dir(dir),
        };
        let Some(expected) = manifest::read(dir) else {
            return Ok(());
        };
        if manifest::log_unchanged(dir, &expected) {
            return Ok(());
        }
        // No room for the copy is said as such. Opening in place instead is no way out: sled's
        // own recovery writes to the log too, and would repair damage in place.
        let (_guard, copy) = manifest::copy_for_check(dir).map_err(|e| match e.kind() {
            std::io::ErrorKind::StorageFull => StoreError::NoSpace {
                path: dir.to_path_buf(),
                detail: format!(
                    " (after an unclean stop it is checked on a copy first, which needs about {} kB)",
                    manifest::size(dir).div_ceil(1024)
                ),
            },
            _ => corrupt(format!("copying it for a check: {e}")),
        })?;
        let config = sled::Config::new().path(&copy);
        let db = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| config.open()))
            .map_err(|_| corrupt("sled could not read it".into()))?
            .map_err(|e| match e.at(dir) {
                StoreError::Io { detail, .. } => corrupt(detail),
                other => other,
            })?;
        // Every record of every tree, so damage in the middle of the log shows now rather
        // than as a failed read later.
        for name in db.tree_names() {
            let tree = db.open_tree(&name).map_err(|e| corrupt(e.to_string()))?;
            for item in tree.iter() {
                item.map_err(|e| corrupt(format!("reading its records: {e}")))?;
            }
        }
        let meta = db.open_tree("meta").map_err(|e| corrupt(e.to_string()))?;
        let count = |name: &str| -> u64 {
            meta.get(name)
                .ok()
                .flatten()
                .and_then(|v| codec::id_of(&v))
                .unwrap_or(0)
        };
        let found = count("audit");
        if found < expected.counts.audit {
            return Err(corrupt(format!(
                "it holds {found} of the {} audited edits it had; the rest is damaged",
                expected.counts.audit
            )));
        }
        Ok(())
    }

    /// A cheap look at sled's files before sled touches them: its own recovery would otherwise
    /// try to repair a damaged log in place.
    fn check_readable(dir: &Path) -> Result<(), String> {
        let conf = dir.join("conf");
        let text = std::fs::read(&conf).map_err(|e| format!("{}: {e}", conf.display()))?;
        if !text.starts_with(b"segment_size") {
            return Err(format!("{} is not a sled configuration", conf.display()));
        }
        Ok(())
    }

    /// The marker of a restore whose swap did not finish.
    pub fn restore_marker(dir: &Path) -> Option<RestoreMarker> {
        let text = std::fs::read_to_string(dir.join(RESTORING)).ok()?;
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix('='))
                .unwrap_or("")
                .to_string()
        };
        Some(RestoreMarker {
            file: field("file"),
            started: field("started"),
        })
    }

    /// Closes this store (a staging database, or the one a restore replaces).
    pub fn close(self) -> Result<(), StoreError> {
        self.flush()
    }
}

/// The names of the files and folders that make up the database itself in `dir` (sled's, our
/// manifest, the workstation's front page: everything but what is named here), not the lock,
/// the backups or what was set aside. A restore's swap and a damaged database set aside move
/// them all together.
fn database_files(dir: &Path) -> std::io::Result<Vec<std::ffi::OsString>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name();
        let text = name.to_string_lossy();
        let keep = name == "backups"
            || name == "ratedesk.lock"
            || name == RESTORING
            || name == STAGING
            || name == REPLACED
            || name == lock::SERVE_SOCKET
            || text.starts_with("damaged-")
            || text.starts_with(".check-");
        if !keep {
            names.push(name);
        }
    }
    Ok(names)
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

/// Swaps the staging database (closed, flushed) in for whatever `dir` holds, under the
/// caller's lock. A marker says a swap is under way until it is done, so an interrupted swap is
/// refused at the next open instead of opening half a database.
pub fn swap_in_staging(dir: &Path, file: &str) -> std::io::Result<()> {
    let marker = dir.join(RESTORING);
    {
        use std::io::Write;
        let mut f = lock::open_private(&marker, false)?;
        f.set_len(0)?;
        writeln!(
            f,
            "file={}\nstarted={}",
            file.replace(['\n', '\r'], " "),
            crate::clock::local_now().format("%Y-%m-%d %H:%M:%S")
        )?;
        f.sync_all()?;
    }
    sync_dir(dir)?;
    let replaced = dir.join(REPLACED);
    let _ = std::fs::remove_dir_all(&replaced);
    std::fs::create_dir(&replaced)?;
    for name in database_files(dir)? {
        std::fs::rename(dir.join(&name), replaced.join(&name))?;
    }
    let staging = dir.join(STAGING);
    for entry in std::fs::read_dir(&staging)? {
        let name = entry?.file_name();
        std::fs::rename(staging.join(&name), dir.join(&name))?;
    }
    sync_dir(dir)?;
    std::fs::remove_file(&marker)?;
    sync_dir(dir)?;
    let _ = std::fs::remove_dir_all(&staging);
    let _ = std::fs::remove_dir_all(&replaced);
    Ok(())
}

/// After an interrupted swap: clears the half-swapped database so a restore can start afresh
/// (what it replaced was backed up before the swap began).
pub fn clear_interrupted_restore(dir: &Path) -> std::io::Result<()> {
    for name in database_files(dir)? {
        let path = dir.join(&name);
        if std::fs::symlink_metadata(&path)?.is_dir() {
            std::fs::remove_dir_all(&path)?;
        } else {
            std::fs::remove_file(&path)?;
        }
    }
    let _ = std::fs::remove_dir_all(dir.join(STAGING));
    let _ = std::fs::remove_dir_all(dir.join(REPLACED));
    std::fs::remove_file(dir.join(RESTORING))?;
    sync_dir(dir)
}

/// Moves a damaged database's files (not its backups) into a `damaged-…` folder beside them,
/// so a backup can be restored in its place and nothing is lost. The caller holds the lock, and
/// no other program holds sled's.
pub fn set_aside(dir: &Path) -> Result<PathBuf, StoreError> {
    lock::sled_free(dir)?;
    let aside = dir.join(format!(
        "damaged-{}",
        crate::clock::local_now().format("%Y%m%dT%H%M%S")
    ));
    std::fs::create_dir_all(&aside).map_err(|e| e.at(dir))?;
    lock::set_private(&aside);
    for name in database_files(dir).map_err(|e| e.at(dir))? {
        std::fs::rename(dir.join(&name), aside.join(&name)).map_err(|e| e.at(dir))?;
    }
    Ok(aside)
}

/// The name a copy's scratch folder starts with.
const SCRATCH_PREFIX: &str = "ratedesk-copy-";

/// Removes the scratch folders that copies killed before they could remove their own left in
/// `under`: this user's, whose store no process holds (sled's lock on its log is free), or
/// that never got one and are older than a copy takes to open.
fn sweep_scratch(under: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(under) else {
        return;
    };
    let me = nix::unistd::geteuid().as_raw();
    for entry in entries.flatten() {
        let dir = entry.path();
        let ours = entry
            .file_name()
            .to_string_lossy()
            .starts_with(SCRATCH_PREFIX)
            && std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir() && m.uid() == me);
        if !ours {
            continue;
        }
        // One just made may not hold its store yet.
        let age = std::fs::metadata(&dir)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok());
        let left = match std::fs::File::open(dir.join("db")) {
            // Held by a copy's sled while it lives (also one of this process).
            Ok(log) => age.is_some_and(|a| a > SCRATCH_NEW) && log.try_lock().is_ok(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                age.is_some_and(|a| a > SCRATCH_UNOPENED)
            }
            Err(_) => false,
        };
        if left {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// How long a copy may take to open its scratch store.
const SCRATCH_NEW: std::time::Duration = std::time::Duration::from_secs(60);

/// How long a scratch folder may be without a store before it is taken as left behind.
const SCRATCH_UNOPENED: std::time::Duration = std::time::Duration::from_secs(600);

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy killed before it removed its scratch folder leaves it; the next copy of this
    /// user removes it, and never the folder of a copy that lives, nor one just made.
    #[test]
    fn the_scratch_folders_of_killed_copies_are_swept_and_live_ones_kept() {
        let under = tempfile::tempdir().expect("tempdir");
        let killed = under.path().join(format!("{SCRATCH_PREFIX}killed"));
        let live = under.path().join(format!("{SCRATCH_PREFIX}live"));
        let new = under.path().join(format!("{SCRATCH_PREFIX}new"));
        let other = under.path().join("someone-elses");
        for dir in [&killed, &live, &new, &other] {
            std::fs::create_dir(dir).expect("folder");
        }
        for dir in [&killed, &live, &other] {
            std::fs::write(dir.join("db"), "log").expect("log");
        }
        let abandoned = under.path().join(format!("{SCRATCH_PREFIX}abandoned"));
        std::fs::create_dir(&abandoned).expect("folder");
        let held = std::fs::File::open(live.join("db")).expect("the live copy's log");
        held.lock().expect("held as sled holds it");
        // Made before: two minutes ago, and twenty without a store.
        let ago = |dir: &Path, minutes: u64| {
            let then = std::time::SystemTime::now() - std::time::Duration::from_secs(minutes * 60);
            std::fs::File::open(dir)
                .and_then(|f| f.set_modified(then))
                .expect("dated");
        };
        for dir in [&killed, &live, &other] {
            ago(dir, 2);
        }
        ago(&abandoned, 20);
        sweep_scratch(under.path());
        assert!(!killed.exists() && !abandoned.exists());
        assert!(live.exists() && new.exists() && other.exists());
        // One just made, its log not yet locked, is left to the copy making it.
        let starting = under.path().join(format!("{SCRATCH_PREFIX}starting"));
        std::fs::create_dir(&starting).expect("folder");
        std::fs::write(starting.join("db"), "").expect("log");
        sweep_scratch(under.path());
        assert!(starting.exists());
        drop(held);
    }

    #[test]
    fn a_folder_is_empty_a_database_or_a_database_without_its_log() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(layout(dir.path()), Layout::Empty);
        std::fs::write(dir.path().join("conf"), "segment_size: 1").expect("conf");
        std::fs::write(dir.path().join("snap.0000000000001000"), "").expect("snap");
        match layout(dir.path()) {
            Layout::Missing(what) => assert!(what.contains("`db` is missing"), "{what}"),
            other => panic!("{other:?}"),
        }
        std::fs::write(dir.path().join("db"), "").expect("db");
        assert_eq!(layout(dir.path()), Layout::Database);
    }

    #[test]
    fn a_swap_moves_the_staged_database_in_and_leaves_no_marker() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        std::fs::write(d.join("db"), "old").expect("old");
        std::fs::create_dir(d.join("backups")).expect("backups");
        std::fs::create_dir(d.join(STAGING)).expect("staging");
        std::fs::write(d.join(STAGING).join("db"), "new").expect("new");
        swap_in_staging(d, "x.backup").expect("swap");
        assert_eq!(std::fs::read_to_string(d.join("db")).expect("db"), "new");
        assert!(d.join("backups").exists());
        assert!(!d.join(RESTORING).exists() && !d.join(STAGING).exists());
        assert!(!d.join(REPLACED).exists());
    }
}
