//! Our own lock file beside the database: a second process is told who holds it (user, pid,
//! host, since when) instead of sled's bare "could not acquire lock".

use std::fs::OpenOptions;
use std::io::Write;
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

/// The held lock; released (the file removed) on drop.
#[derive(Debug)]
pub struct LockFile {
    path: PathBuf,
}

/// The OS user: `$USER`, `$LOGNAME`, else the name of this process's uid in /etc/passwd.
pub fn user() -> String {
    std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .ok()
        .filter(|u| !u.is_empty())
        .or_else(passwd_name)
        .unwrap_or_else(|| "unknown".into())
}

fn passwd_name() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let uid = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))?
        .split_whitespace()
        .next()?
        .to_string();
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|l| {
        let mut fields = l.split(':');
        let name = fields.next()?;
        (fields.nth(1)? == uid).then(|| name.to_string())
    })
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

fn alive(holder: &Holder) -> bool {
    holder.host != host() || Path::new(&format!("/proc/{}", holder.pid)).exists()
}

impl LockFile {
    /// Takes the lock in `dir`, or says who holds it. A lock left by a process that no longer
    /// runs on this host is taken over.
    pub fn acquire(dir: &Path) -> Result<Self, LockError> {
        let path = dir.join("ratedesk.lock");
        for _ in 0..2 {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    let me = Holder {
                        user: user(),
                        pid: std::process::id(),
                        host: host(),
                        since: chrono::Local::now().format("%Y-%m-%d %H:%M:%S").to_string(),
                    };
                    writeln!(
                        file,
                        "user={}\npid={}\nhost={}\nsince={}",
                        me.user, me.pid, me.host, me.since
                    )
                    .and_then(|_| file.sync_all())
                    .map_err(|e| LockError::Io(path.clone(), e))?;
                    set_private(&path);
                    return Ok(Self { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    match parse(&text) {
                        Some(holder) if alive(&holder) => return Err(LockError::Held(holder)),
                        _ => {
                            let _ = std::fs::remove_file(&path);
                        }
                    }
                }
                Err(e) => return Err(LockError::Io(path, e)),
            }
        }
        Err(LockError::Io(
            path,
            std::io::Error::other("the lock file keeps reappearing"),
        ))
    }
}

impl Drop for LockFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Owner-only permissions (0600 files, 0700 folders).
pub fn set_private(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mode = if path.is_dir() { 0o700 } else { 0o600 };
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("the database is in use by {0}")]
    Held(Holder),
    #[error("{0}: {1}")]
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
            Err(LockError::Held(h)) => {
                assert_eq!(h.pid, std::process::id());
                assert_eq!(h.user, user());
            }
            other => panic!("expected Held, got {other:?}"),
        }
        drop(first);
        LockFile::acquire(dir.path()).expect("free again");
    }

    #[test]
    fn a_stale_lock_is_taken_over() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("ratedesk.lock"),
            format!(
                "user=x\npid={}\nhost={}\nsince=then\n",
                u32::MAX - 1,
                host()
            ),
        )
        .expect("write");
        LockFile::acquire(dir.path()).expect("stale lock taken over");
    }
}
