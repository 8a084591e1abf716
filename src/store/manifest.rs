//! A small file beside sled's, rewritten after every flush: the record counts and the size and
//! modification time of sled's log as we left it. sled repairs a damaged log in place while it
//! opens — silently dropping what follows the damage — so a log that is not as we left it is
//! first opened as a copy and checked against these counts; a database that lost acknowledged
//! edits is refused before sled touches it.
//!
//! Every flush writes it, so it is written in place, not replaced: the file has two slots, and
//! each write goes to the older one with a sequence number and a checksum. A write cut short
//! leaves the other slot whole, and reading takes the newest whole slot (an older manifest only
//! makes the check at opening stricter, never looser). A manifest of one unslotted text, as
//! earlier versions wrote it, still reads.

use std::os::unix::fs::FileExt;
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

/// The size of a slot: far more than a manifest's text needs.
const SLOT: usize = 256;

/// A checksum of a slot's text (FNV-1a, 64 bits): enough to tell a torn write.
fn checksum(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Reads one manifest's text (without its sequence number and checksum).
fn parse(text: &str) -> Option<Manifest> {
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

/// A whole slot: its manifest and sequence number.
fn slot(bytes: &[u8]) -> Option<(Manifest, u64)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let (body, sum) = text.split_once("sum=")?;
    let sum = u64::from_str_radix(sum.trim_end_matches(['\n', ' ', '\0']), 16).ok()?;
    if sum != checksum(body) {
        return None;
    }
    let seq = body
        .lines()
        .find_map(|l| l.strip_prefix("seq=")?.parse().ok())?;
    Some((parse(body)?, seq))
}

/// The newest whole manifest in a file's contents, with its sequence number (0: unslotted).
fn newest(bytes: &[u8]) -> Option<(Manifest, u64)> {
    let slots = [bytes.get(..SLOT), bytes.get(SLOT..2 * SLOT)];
    slots
        .into_iter()
        .flatten()
        .filter_map(slot)
        .max_by_key(|(_, seq)| *seq)
        .or_else(|| {
            let text = std::str::from_utf8(bytes).ok()?;
            Some((parse(text)?, 0))
        })
}

pub fn read(dir: &Path) -> Option<Manifest> {
    let bytes = std::fs::read(dir.join(FILE)).ok()?;
    newest(&bytes).map(|(m, _)| m)
}

/// The manifest of an open database: written after every flush, and once more when the
/// database is dropped — after sled's own handles, whose background writer rewrites parts of the
/// log (its garbage collection) until it stops. That last write records the log as sled left
/// it, so a database closed cleanly opens without a check of a copy. It records the counts of
/// the last flush: what sled wrote since then is only what was flushed already, cleaned up.
pub struct Settle {
    dir: PathBuf,
    rules: String,
    /// The writer, and the counts last written.
    last: std::sync::Mutex<Option<(Writer, Counts)>>,
}

impl Settle {
    pub fn new(dir: &Path, rules: &str) -> Self {
        Self {
            dir: dir.to_path_buf(),
            rules: rules.to_string(),
            last: std::sync::Mutex::new(None),
        }
    }

    /// Records the counts and the log as it is now (call right after a flush).
    pub fn write(&self, counts: Counts) -> std::io::Result<()> {
        let mut last = self
            .last
            .lock()
            .map_err(|_| std::io::Error::other("the manifest's writer failed earlier"))?;
        let mut writer = match last.take() {
            Some((writer, _)) => writer,
            None => Writer::open(&self.dir)?,
        };
        writer.write(&self.dir, &self.rules, counts)?;
        *last = Some((writer, counts));
        Ok(())
    }
}

impl Drop for Settle {
    fn drop(&mut self) {
        if let Ok(mut last) = self.last.lock()
            && let Some((mut writer, counts)) = last.take()
        {
            // Nothing to do about a failure here: the next opening checks a copy.
            let _ = writer.write(&self.dir, &self.rules, counts);
        }
    }
}

/// The manifest file held open for writing, and the sequence number written last.
pub struct Writer {
    file: std::fs::File,
    seq: u64,
}

impl Writer {
    pub fn open(dir: &Path) -> std::io::Result<Self> {
        let file = super::lock::open_private(&dir.join(FILE), false)?;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut &file, &mut bytes)?;
        let seq = newest(&bytes).map_or(0, |(_, seq)| seq);
        Ok(Self { file, seq })
    }

    /// Records the counts and the log as it is now (call right after a flush), in the older
    /// slot.
    pub fn write(&mut self, dir: &Path, rules: &str, counts: Counts) -> std::io::Result<()> {
        let (log_len, log_mtime_ns) = log_stat(dir).unwrap_or_default();
        self.seq += 1;
        let body = format!(
            "rules={rules}\nplayers={}\nevents={}\ngames={}\naudit={}\nlog_len={log_len}\nlog_mtime_ns={log_mtime_ns}\nseq={}\n",
            counts.players, counts.events, counts.games, counts.audit, self.seq
        );
        let mut text = format!("{body}sum={:016x}\n", checksum(&body)).into_bytes();
        if text.len() > SLOT {
            return Err(std::io::Error::other("the manifest outgrew its slot"));
        }
        text.resize(SLOT, b'\n');
        let at = (self.seq % 2) * SLOT as u64;
        self.file.write_all_at(&text, at)
    }
}

/// Writes a file of ours by a new temporary file (0600, never through a link) renamed over it.
pub(super) fn write_replacing(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    write_replacing_with(path, |out| out.write_all(contents))
}

/// [`write_replacing`] with the contents written by `write` as they are made (a backup of
/// a whole federation is never held in memory).
pub(super) fn write_replacing_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let tmp = path.with_file_name(name);
    match std::fs::remove_file(&tmp) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let written = super::lock::open_private(&tmp, true).and_then(|file| {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
        write(&mut out)?;
        out.flush()
    });
    if let Err(e) = written {
        // A file cut short (a full disk, a failed read) is not left to take the last free space.
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(tmp, path)
}

/// Removes the temporary files a process killed while writing left in `dir` (regular files and
/// links named `….tmp`; a link is removed, never followed). The database's lock is held.
pub(super) fn remove_leftovers(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let is_file = entry
            .file_type()
            .is_ok_and(|t| t.is_file() || t.is_symlink());
        if is_file && entry.file_name().to_string_lossy().ends_with(".tmp") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
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

/// Copies sled's files (not backups, not the lock, not a socket) into a fresh temporary folder.
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
        let kind = entry.file_type()?;
        // The socket an open workstation serves on (or one a killed one left) is no part of
        // the database.
        if std::os::unix::fs::FileTypeExt::is_socket(&kind) {
            continue;
        }
        if kind.is_dir() {
            copy_tree(&entry.path(), &target, false)?;
        } else if kind.is_file() || kind.is_symlink() {
            std::fs::copy(entry.path(), target)?;
        } else {
            // A pipe or a device is no file of a database (and copying one could wait for ever).
            return Err(std::io::Error::other(format!(
                "{} is neither a file nor a folder",
                entry.path().display()
            )));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(audit: u64) -> Counts {
        Counts {
            players: 3,
            events: 2,
            games: 40,
            audit,
        }
    }

    #[test]
    fn the_newest_whole_slot_is_read_and_a_torn_one_passed_over() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut w = Writer::open(dir.path()).expect("open");
        w.write(dir.path(), "ssl", counts(1)).expect("write");
        w.write(dir.path(), "ssl", counts(2)).expect("write");
        assert_eq!(read(dir.path()).map(|m| m.counts), Some(counts(2)));
        // Reopened, it goes on from the newest.
        let mut w = Writer::open(dir.path()).expect("reopen");
        w.write(dir.path(), "ssl", counts(3)).expect("write");
        assert_eq!(read(dir.path()).map(|m| m.counts), Some(counts(3)));
        // A write torn in the middle of the newest slot: the one before it is read.
        let mut bytes = std::fs::read(dir.path().join(FILE)).expect("read");
        // The third write went to the second slot (writes alternate, the first to slot 0).
        let newest = SLOT;
        bytes[newest + 20] ^= 1;
        std::fs::write(dir.path().join(FILE), &bytes).expect("write");
        assert_eq!(read(dir.path()).map(|m| m.counts), Some(counts(2)));
    }

    #[test]
    fn a_manifest_of_earlier_versions_still_reads_and_is_written_over() {
        let dir = tempfile::tempdir().expect("tempdir");
        let old = "rules=ssl\nplayers=3\nevents=2\ngames=40\naudit=7\nlog_len=10\nlog_mtime_ns=5\n";
        std::fs::write(dir.path().join(FILE), old).expect("write");
        assert_eq!(read(dir.path()).map(|m| m.counts), Some(counts(7)));
        let mut w = Writer::open(dir.path()).expect("open");
        w.write(dir.path(), "ssl", counts(8)).expect("write");
        assert_eq!(read(dir.path()).map(|m| m.counts), Some(counts(8)));
        w.write(dir.path(), "ssl", counts(9)).expect("write");
        assert_eq!(read(dir.path()).map(|m| m.counts), Some(counts(9)));
    }
}
