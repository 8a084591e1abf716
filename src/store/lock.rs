//! Who may use a database folder: our lock (an `flock` on `ratedesk.lock`, held for as long as
//! the process keeps the database, so it can neither go stale nor be taken over), the holder's
//! particulars written into it for a second process to read, the folder's ownership and
//! permissions, and the OS user the audit log records.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Who holds a database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    pub user: String,
    pub pid: u32,
    pub host: String,
    pub since: String,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (pid {} on {}) since {}",
            self.user, self.pid, self.host, self.since
        )
    }
}

/// The held lock: released when dropped (the kernel releases it too when the process dies, so a
/// killed process never leaves a lock behind). The file itself stays: removing it would let a
/// second process lock a file a third no longer sees.
#[derive(Debug)]
pub struct LockFile {
    file: File,
}

/// `O_NOFOLLOW`: a planted symbolic link is refused, never followed.
fn no_follow() -> i32 {
    nix::fcntl::OFlag::O_NOFOLLOW.bits()
}

/// Opens a file we write in a database folder: created 0600 if new, never through a symbolic
/// link.
pub(crate) fn open_private(path: &Path, create_new: bool) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options
        .read(true)
        .write(true)
        .mode(0o600)
        .custom_flags(no_follow());
    if create_new {
        options.create_new(true);
    } else {
        options.create(true);
    }
    options.open(path)
}

/// The OS user running this process: the name of its uid (through the system's user database,
/// so LDAP and other NSS sources count), never `$USER`, which anyone can set.
pub fn os_user() -> String {
    user_of(nix::unistd::Uid::current())
}

/// The name of an OS user by his uid (`uid 1001` when the user database does not know it).
pub fn user_of(uid: nix::unistd::Uid) -> String {
    match nix::unistd::User::from_uid(uid) {
        Ok(Some(u)) => u.name,
        _ => format!("uid {uid}"),
    }
}

/// The socket in the database folder on which the workstation that has it open serves the
/// commands of other `ratedesk`s.
pub const SERVE_SOCKET: &str = "serve.sock";

/// The audit log's user: the OS user, with `$USER` beside it when it says otherwise and the
/// SSH client's address when the session came over SSH. Looked up once per process (every edit
/// records it).
pub fn user() -> String {
    static USER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    USER.get_or_init(look_up_user).clone()
}

fn look_up_user() -> String {
    let name = os_user();
    let mut notes = Vec::new();
    if let Ok(claimed) = std::env::var("USER")
        && !claimed.is_empty()
        && claimed != name
    {
        notes.push(format!("USER={}", single_line(&claimed)));
    }
    if let Some(from) = std::env::var("SSH_CONNECTION")
        .ok()
        .or_else(|| std::env::var("SSH_CLIENT").ok())
        .and_then(|c| c.split_whitespace().next().map(str::to_string))
    {
        notes.push(format!("ssh from {}", single_line(&from)));
    }
    if notes.is_empty() {
        name
    } else {
        format!("{name} ({})", notes.join(", "))
    }
}

/// Control characters (newlines included) written as `\u{…}` escapes.
fn single_line(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if c.is_control() {
                format!("\\u{{{:x}}}", c as u32).chars().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

pub fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

fn parse(text: &str) -> Option<Holder> {
    let field = |name: &str| {
        text.lines().find_map(|l| {
            l.strip_prefix(name)
                .and_then(|r| r.strip_prefix('='))
                .map(str::to_string)
        })
    };
    Some(Holder {
        user: field("user")?,
        pid: field("pid")?.parse().ok()?,
        host: field("host")?,
        since: field("since")?,
    })
}

impl LockFile {
    /// Takes the lock in `dir`, or says who holds it. One `flock`: there is no moment at which
    /// two processes both believe they hold it, whatever state an earlier process left.
    pub fn acquire(dir: &Path) -> Result<Self, LockError> {
        let path = dir.join("ratedesk.lock");
        let io = |e: std::io::Error| LockError::Io(path.clone(), e);
        let mut file = open_private(&path, false).map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                return Err(LockError::Held(parse(&text)));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        let me = Holder {
            user: os_user(),
            pid: std::process::id(),
            host: host(),
            since: crate::clock::local_now()
                .format("%Y-%m-%d %H:%M:%S")
                .to_string(),
        };
        // The particulars only inform a second process: on a full disk the lock is held all the
        // same (the file then names nobody, and a second process is told "another process").
        let _ = file.set_len(0).and_then(|_| file.rewind()).and_then(|_| {
            writeln!(
                file,
                "user={}\npid={}\nhost={}\nsince={}",
                me.user, me.pid, me.host, me.since
            )
        });
        Ok(Self { file })
    }
}

impl Drop for LockFile {
    fn drop(&mut self) {
        // Nobody holds it any more: no particulars to show. The lock goes with the file.
        let _ = self.file.set_len(0);
    }
}

/// Whether another program holds sled's own lock on the log (an older ratedesk, or a tool
/// opening the files directly): it is then in use, not damaged.
pub fn sled_free(dir: &Path) -> Result<(), LockError> {
    let log = dir.join("db");
    let Ok(file) = OpenOptions::new()
        .read(true)
        .custom_flags(no_follow())
        .open(&log)
    else {
        return Ok(());
    };
    // A database this process has just closed is let go by sled's own threads a moment after
    // the close returns: held for longer than that, it is in use.
    let deadline = std::time::Instant::now() + SLED_RELEASE;
    loop {
        match file.try_lock() {
            // Released when `file` is closed here.
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(std::fs::TryLockError::WouldBlock) => return Err(LockError::Held(None)),
            Err(std::fs::TryLockError::Error(e)) => return Err(LockError::Io(log, e)),
        }
    }
}

/// How long sled's threads may keep the log locked after its database is dropped.
const SLED_RELEASE: std::time::Duration = std::time::Duration::from_millis(500);

/// Owner-only permissions (0600 files, 0700 folders) on a file or folder we made: never
/// through a symbolic link, and never on anything another user owns.
pub fn set_private(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if meta.file_type().is_symlink() || meta.uid() != nix::unistd::Uid::effective().as_raw() {
        return;
    }
    let mode = if meta.is_dir() { 0o700 } else { 0o600 };
    if meta.mode() & 0o777 != mode {
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
    }
}

/// A folder we keep the database (or its backups) in must be ours and closed to others: anyone
/// else who can write into it could plant a link that makes us overwrite their choice of file,
/// or take the backups.
pub fn check_folder(dir: &Path) -> Result<(), LockError> {
    let meta = std::fs::symlink_metadata(dir).map_err(|e| LockError::Io(dir.to_path_buf(), e))?;
    let unsafe_because = |reason: String| {
        Err(LockError::Unsafe {
            path: dir.to_path_buf(),
            reason,
        })
    };
    if meta.file_type().is_symlink() {
        return unsafe_because("it is a symbolic link".into());
    }
    if !meta.is_dir() {
        return unsafe_because("it is not a folder".into());
    }
    let me = nix::unistd::Uid::effective().as_raw();
    if meta.uid() != me {
        let owner = nix::unistd::User::from_uid(meta.uid().into())
            .ok()
            .flatten()
            .map_or_else(|| format!("uid {}", meta.uid()), |u| u.name);
        return unsafe_because(format!("it belongs to {owner}, not to you ({})", os_user()));
    }
    if meta.mode() & 0o022 != 0 {
        return unsafe_because(format!(
            "others can write to it (mode {:o}); make it yours alone with `chmod 700 {}`",
            meta.mode() & 0o777,
            dir.display()
        ));
    }
    Ok(())
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("the database is in use by {}", .0.as_ref().map_or_else(|| "another process".to_string(), Holder::to_string))]
    Held(Option<Holder>),
    #[error("{}: refused: {reason}", path.display())]
    Unsafe { path: PathBuf, reason: String },
    #[error("{}: {}", .0.display(), .1)]
    Io(PathBuf, std::io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_names_the_holder_and_a_released_lock_is_free() {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = LockFile::acquire(dir.path()).expect("first");
        match LockFile::acquire(dir.path()) {
            Err(LockError::Held(Some(h))) => {
                assert_eq!(h.pid, std::process::id());
                assert_eq!(h.user, os_user());
            }
            other => panic!("expected Held, got {other:?}"),
        }
        drop(first);
        LockFile::acquire(dir.path()).expect("free again");
    }

    #[test]
    fn a_lock_file_left_behind_is_no_lock() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("ratedesk.lock"),
            format!("user=x\npid={}\nhost={}\nsince=then\n", 1, host()),
        )
        .expect("write");
        let _held = LockFile::acquire(dir.path()).expect("no process holds it");
        let text = std::fs::read_to_string(dir.path().join("ratedesk.lock")).expect("read");
        assert!(
            text.contains(&format!("pid={}", std::process::id())),
            "{text}"
        );
    }

    #[test]
    fn a_planted_link_is_not_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("victim");
        std::fs::write(&target, "precious").expect("write");
        std::os::unix::fs::symlink(&target, dir.path().join("ratedesk.lock")).expect("link");
        assert!(matches!(
            LockFile::acquire(dir.path()),
            Err(LockError::Io(..))
        ));
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "precious");
    }

    #[test]
    fn a_folder_others_can_write_to_is_refused_with_the_reason() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777))
            .expect("chmod");
        let message = check_folder(dir.path()).expect_err("refused").to_string();
        assert!(message.contains("others can write"), "{message}");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("chmod");
        check_folder(dir.path()).expect("ours alone");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path(), &link).expect("link");
        assert!(
            check_folder(&link)
                .expect_err("refused")
                .to_string()
                .contains("symbolic link")
        );
    }

    #[test]
    fn the_audit_user_is_the_os_user_with_a_different_user_variable_beside_it() {
        let name = os_user();
        assert!(!name.is_empty());
        assert_eq!(single_line("a\nb\u{1b}[2J"), "a\\u{a}b\\u{1b}[2J");
    }
}
