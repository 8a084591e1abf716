//! A small file beside sled's, rewritten after every flush: the record counts and the size and
//! modification time of sled's log as we left it. sled repairs a damaged log in place while it
//! opens — silently dropping what follows the damage — so a log that is not as we left it is
//! first opened as a copy and checked against these counts; a database that lost acknowledged
//! edits is refused before sled touches it.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use super::Counts;

pub(super) const FILE: &str = "ratedesk.manifest";

/// What we last left on disk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    pub rules: String,
    pub counts: Counts,
    pub log_len: u64,
    pub log_mtime_ns: u128,
}

fn log_stat(dir: &Path) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(dir.join("db")).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some((meta.len(), mtime))
}

pub fn read(dir: &Path) -> Option<Manifest> {
    let text = std::fs::read_to_string(dir.join(FILE)).ok()?;
    let field = |name: &str| -> Option<u128> {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix('=')?.trim().parse().ok())
    };
    let count = |name: &str| field(name).and_then(|v| u64::try_from(v).ok());
    let rules = text
        .lines()
        .find_map(|l| l.strip_prefix("rules="))?
        .trim()
        .to_string();
    Some(Manifest {
        rules,
        counts: Counts {
            players: count("players")?,
            events: count("events")?,
            games: count("games")?,
            audit: count("audit")?,
        },
        log_len: count("log_len")?,
        log_mtime_ns: field("log_mtime_ns")?,
    })
}

/// Records the counts and the log as it is now (call right after a flush).
pub fn write(dir: &Path, rules: &str, counts: Counts) -> std::io::Result<()> {
    let (log_len, log_mtime_ns) = log_stat(dir).unwrap_or_default();
    let text = format!(
        "rules={rules}\nplayers={}\nevents={}\ngames={}\naudit={}\nlog_len={log_len}\nlog_mtime_ns={log_mtime_ns}\n",
        counts.players, counts.events, counts.games, counts.audit
    );
    write_replacing(&dir.join(FILE), text.as_bytes())
}

/// Writes a file of ours by a new temporary file (0600, never through a link) renamed over it.
pub(super) fn write_replacing(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let tmp = path.with_file_name(name);
    match std::fs::remove_file(&tmp) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut file = super::lock::open_private(&tmp, true)?;
    file.write_all(contents)?;
    std::fs::rename(tmp, path)
}

/// Whether sled's log is exactly as the manifest left it.
pub fn log_unchanged(dir: &Path, manifest: &Manifest) -> bool {
    log_stat(dir) == Some((manifest.log_len, manifest.log_mtime_ns))
}

/// How many bytes sled's files take (what a copy for a check needs).
pub fn size(dir: &Path) -> u64 {
    fn walk(path: &Path) -> u64 {
        std::fs::read_dir(path).map_or(0, |entries| {
            entries
                .flatten()
                .map(|e| match e.file_type() {
                    Ok(t) if t.is_dir() => walk(&e.path()),
                    Ok(_) => e.metadata().map_or(0, |m| m.len()),
                    Err(_) => 0,
                })
                .sum()
        })
    }
    ["db", "conf", "blobs"]
        .iter()
        .map(|n| {
            let p = dir.join(n);
            if p.is_dir() {
                walk(&p)
            } else {
                std::fs::metadata(&p).map_or(0, |m| m.len())
            }
        })
        .sum()
}

/// Copies sled's files (not backups, not the lock) into a fresh temporary folder.
pub fn copy_for_check(dir: &Path) -> std::io::Result<(tempdir::TempDir, PathBuf)> {
    let tmp = tempdir::TempDir::new(dir)?;
    copy_tree(dir, tmp.path(), true)?;
    let path = tmp.path().to_path_buf();
    Ok((tmp, path))
}

fn copy_tree(from: &Path, to: &Path, top: bool) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if top
            && (name == "backups"
                || name == "ratedesk.lock"
                || name.to_string_lossy().starts_with(".check-"))
        {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target, false)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// A folder removed when dropped, inside the database folder (same filesystem, same owner).
pub mod tempdir {
    use std::path::{Path, PathBuf};

    pub struct TempDir(PathBuf);

    impl TempDir {
        pub fn new(parent: &Path) -> std::io::Result<Self> {
            let path = parent.join(format!(".check-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir(&path)?;
            Ok(Self(path))
        }

        pub fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
