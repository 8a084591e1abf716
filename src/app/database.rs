//! A database folder as a whole: which rulebook it keeps (chosen once, when it is created, and
//! stored in it), creating one for a rulebook, building a demo federation into one, and what a
//! backup file says of its rulebook.

pub use crate::store::lock::{SERVE_SOCKET, user as audit_user, user_of};
use std::path::Path;

use super::{Desk, DeskError, Federation};
use crate::federations::Demo;
use crate::store::{Store, StoreError};

pub use crate::demo::Params as DemoParams;

/// Why a database cannot be created.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error(
        "{} already holds a database (the '{rules}' rulebook); a federation's rulebook is chosen once, when its database is created",
        path.display()
    )]
    Exists {
        path: std::path::PathBuf,
        rules: String,
    },
    #[error("the {adjective} rulebook ('{code}') has no demo federation")]
    NoDemo {
        adjective: &'static str,
        code: &'static str,
    },
    #[error(transparent)]
    Desk(#[from] DeskError),
}

impl CreateError {
    /// Whether it was asked for what cannot be (an existing database, a demo there is not).
    pub fn is_input(&self) -> bool {
        !matches!(self, CreateError::Desk(_))
    }
}

/// Whether `dir` holds a database (or what is left of one).
pub fn exists(dir: &Path) -> bool {
    Store::exists(dir)
}

/// The rulebook code the database in `dir` keeps; `None` when there is none. Read from the file
/// beside the database without opening it; a database without that file (written by an older
/// version) is asked by opening it.
pub fn rulebook_of(dir: &Path) -> Result<Option<String>, StoreError> {
    // A folder another user keeps closed is someone's database, not a mistyped path.
    if let Err(e) = std::fs::read_dir(dir)
        && e.kind() == std::io::ErrorKind::PermissionDenied
    {
        return Err(match crate::store::lock::check_folder(dir) {
            Err(e) => StoreError::Locked(e),
            Ok(()) => StoreError::Io {
                path: dir.to_path_buf(),
                detail: format!("permission denied: {e}"),
            },
        });
    }
    if let Some(code) = Store::rules_in(dir) {
        return Ok(Some(code));
    }
    if !Store::exists(dir) {
        return Ok(None);
    }
    match Store::open(dir, "ssl") {
        Ok(_) => Ok(Some("ssl".into())),
        Err(StoreError::WrongRules { found, .. }) => Ok(Some(found)),
        Err(e) => Err(e),
    }
}

/// [`rulebook_of`] for `restore --force`, which replaces what `dir` holds: what an interrupted
/// restore left (refused by every other command, whose message says to run this one) holds no
/// rulebook to keep.
pub fn rulebook_to_replace(dir: &Path) -> Result<Option<String>, StoreError> {
    match rulebook_of(dir) {
        Err(StoreError::Interrupted { .. }) => Ok(None),
        found => found,
    }
}

/// Removes the database in `dir` when it holds nothing at all — no record, no audit entry —
/// as a refused import into a new folder leaves it. Under the lock, so a database another
/// process holds or has filled meanwhile is never touched; only ratedesk's own files go (the
/// folder stays, and a backups folder with anything in it).
pub fn remove_if_empty(dir: &Path, code: &str) {
    let Ok(lock) = Store::lock(dir) else {
        return;
    };
    let lock = std::sync::Arc::new(lock);
    let Ok(store) = Store::open_locked(dir, code, lock.clone()) else {
        return;
    };
    let empty = store.holds_nothing().unwrap_or(false);
    drop(store);
    if !empty {
        return;
    }
    let ours = |name: &str| {
        matches!(name, "db" | "conf" | "blobs")
            || name.starts_with("snap.")
            || (name.starts_with("ratedesk.") && name != "ratedesk.lock")
    };
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let _ = if name == "backups" {
                std::fs::remove_dir(&path)
            } else if !ours(&name) {
                Ok(())
            } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
    }
    drop(lock);
    let _ = std::fs::remove_file(dir.join("ratedesk.lock"));
}

/// `ratedesk init`: a new, empty database for `rulebook` in `dir`, which must hold none.
pub fn create<R: Federation>(dir: &Path, rulebook: R) -> Result<Desk<R>, CreateError> {
    if let Some(rules) = rulebook_of(dir).map_err(DeskError::from)? {
        return Err(CreateError::Exists {
            path: dir.to_path_buf(),
            rules,
        });
    }
    Ok(Desk::open(dir, rulebook)?)
}

/// The size of a demo federation built.
pub struct Built {
    pub players: usize,
    pub events: usize,
    pub games: usize,
}

/// `rulebook`'s demo federation of `params`, generated (before any database is touched, so
/// that a rulebook without one leaves nothing behind).
pub fn demo_of<R: Federation>(rulebook: &R, params: &DemoParams) -> Result<Demo<R>, CreateError> {
    rulebook.demo(params).ok_or(CreateError::NoDemo {
        adjective: rulebook.adjective(),
        code: rulebook.code(),
    })
}

/// Writes a demo federation into the (empty) database of `desk`, one audited import per year.
pub fn import_demo<R: Federation>(desk: &mut Desk<R>, demo: Demo<R>) -> Result<Built, CreateError> {
    let (book, years) = demo;
    let built = Built {
        players: book.players.len(),
        events: book.events.len(),
        games: book.events.iter().map(|e| e.games.len()).sum(),
    };
    desk.import_in_parts(book, &years)?;
    Ok(built)
}

/// The error for a command that needs a database where there is none.
pub fn missing(dir: &Path) -> DeskError {
    DeskError::Store(StoreError::Missing {
        path: dir.to_path_buf(),
    })
}

/// The database's owner: the OS user of this process, which holds it.
pub fn owner_name() -> String {
    user_of(nix::unistd::getuid())
}

/// An officer by the name of an OS user (or group) that exists on this machine.
pub fn officer(name: &str, group: bool) -> Result<crate::model::Officer, String> {
    let known = if group {
        nix::unistd::Group::from_name(name).ok().flatten().is_some()
    } else {
        nix::unistd::User::from_name(name).ok().flatten().is_some()
    };
    if !known {
        return Err(format!(
            "there is no {} named '{name}' on this machine",
            if group { "group" } else { "user" }
        ));
    }
    Ok(crate::model::Officer {
        name: name.to_string(),
        group,
    })
}

/// Opens the database folder to `group` (0710: its members reach the socket of the process
/// that holds the database, and nothing else), or closes it to everyone but the owner again
/// (`None`, 0700). What could not be done, if anything.
pub fn admit_group(dir: &Path, group: Option<&str>) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let gid = match group {
        Some(name) => match nix::unistd::Group::from_name(name) {
            Ok(Some(g)) => Some(g.gid),
            _ => return Some(format!("there is no group named '{name}' on this machine")),
        },
        None => None,
    };
    if let Some(gid) = gid
        && let Err(e) = nix::unistd::chown(dir, None, Some(gid))
    {
        return Some(format!(
            "{} could not be given to group {}: {e}",
            dir.display(),
            group.unwrap_or_default()
        ));
    }
    let mode = if gid.is_some() { 0o710 } else { 0o700 };
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode))
        .err()
        .map(|e| format!("{}: {e}", dir.display()))
}

/// The group a database folder is open to (its group, when it grants the group entry), for
/// the socket of the process holding it.
pub fn admitted_group(dir: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(dir).ok()?;
    (meta.mode() & 0o010 != 0).then(|| meta.gid())
}

/// The OS user who owns a database folder (the one whose process may hold it).
pub fn folder_owner(dir: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir).ok().map(|m| m.uid())
}
