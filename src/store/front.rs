//! The front page: a small file beside the database, `ratedesk.front`, holding what the
//! workstation's first frame shows. It is written when the workstation closes and read at the
//! next opening before sled is touched, so that frame is drawn at once while the rest loads.
//! The player search's index is kept beside it the same way (`ratedesk.search`): made from a
//! million players' names it took a core about a second of the opening.
//!
//! Each is a copy, never the record: it is used only while the database is exactly as it was
//! when the file was written — the same record counts (every edit adds an audit entry), the
//! manifest matching sled's log (a clean stop since), the same rulebook and the same program.
//! Anything else (an edit from the command line, a kill, a restore, a newer ratedesk) leaves it
//! unused: the first frame is drawn without it, the index is made again. Both move with the
//! database's own files when a restore swaps them or a damaged database is set aside.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{Cause, Counts, Store, StoreError, codec, manifest};

pub(super) const FILE: &str = "ratedesk.front";

/// Far more than a front page takes: a larger file is not ours to read.
const LIMIT: u64 = 1 << 20;

pub(super) const SEARCH_FILE: &str = "ratedesk.search";

/// Far more than the index of a federation's names takes (a million players' is some 110 MB).
const SEARCH_LIMIT: u64 = 4 << 30;

/// What a front page was written against.
#[derive(Serialize, Deserialize, PartialEq, Eq)]
struct Stamp {
    program: String,
    rules: String,
    /// Players, events, games and audit entries.
    counts: [u64; 4],
}

impl Stamp {
    fn new(rules: &str, counts: Counts) -> Self {
        Self {
            // The version and the revision of the rules its ratings were rated by: a page
            // rated by other rules is not drawn.
            program: format!(
                "{} rules {}",
                env!("CARGO_PKG_VERSION"),
                crate::rules::RULES_REVISION
            ),
            rules: rules.to_string(),
            counts: [counts.players, counts.events, counts.games, counts.audit],
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Front<T> {
    stamp: Stamp,
    page: T,
}

impl Store {
    /// Keeps `page` as the front page of the database as it is now (after everything asked
    /// behind the screen is on disk).
    pub fn save_front<T: Serialize>(&self, page: &T) -> Result<(), StoreError> {
        self.save_beside(FILE, "the front page", page)
    }

    /// Keeps the player search's index of the database as it is now, as the front page is.
    pub fn save_search<T: Serialize>(&self, index: &T) -> Result<(), StoreError> {
        self.save_beside(SEARCH_FILE, "the search index", index)
    }

    fn save_beside<T: Serialize>(
        &self,
        file: &str,
        what: &str,
        page: &T,
    ) -> Result<(), StoreError> {
        self.settle()?;
        let front = Front {
            stamp: Stamp::new(&self.rules, self.counts()?),
            page,
        };
        let bytes = codec::encode(&front).map_err(|e| self.corrupt(what, &e))?;
        let path = self.path.join(file);
        manifest::write_replacing(&path, &bytes).map_err(|e| e.at(&path))
    }
}

/// The front page kept in `dir` for a database of `rules`, if it shows that database as it is
/// now: the database itself is not opened.
pub fn read_front<T: DeserializeOwned>(dir: &Path, rules: &str) -> Option<T> {
    Beside::fresh(dir, rules, FILE)?.read(LIMIT)
}

/// A file kept beside the database in `dir` that may still show it as it is: checked before
/// the database is opened (sled's log as the last clean stop left it), read later (a large one
/// on another thread while the database loads).
pub struct Beside {
    path: std::path::PathBuf,
    stamp: Stamp,
}

impl Beside {
    fn fresh(dir: &Path, rules: &str, file: &str) -> Option<Self> {
        if Store::restore_marker(dir).is_some() {
            return None;
        }
        let manifest = manifest::read(dir)?;
        if manifest.rules != rules || !manifest::log_unchanged(dir, &manifest) {
            return None;
        }
        Some(Self {
            path: dir.join(file),
            stamp: Stamp::new(rules, manifest.counts),
        })
    }

    /// The player search's index kept in `dir`, to be read once the database is open, if the
    /// database is still as it was when it was kept.
    pub fn search(dir: &Path, rules: &str) -> Option<Self> {
        Self::fresh(dir, rules, SEARCH_FILE)
    }

    /// What the file holds, if it was written against the database as it was checked: its
    /// stamp is read and compared first, and only then the rest (a stale index of a million
    /// names is not read whole to be refused, nor a file of another layout read at all).
    fn read<T: DeserializeOwned>(self, limit: u64) -> Option<T> {
        let file = std::fs::symlink_metadata(&self.path).ok()?;
        if !file.is_file() || file.len() > limit {
            return None;
        }
        let bytes = std::fs::read(&self.path).ok()?;
        let stamp: Stamp = codec::decode_first(&bytes).ok()?;
        if stamp != self.stamp {
            return None;
        }
        codec::decode_beside::<Front<T>>(&bytes)
            .ok()
            .map(|front| front.page)
    }

    /// The search index's file read ([`Beside::read`]).
    pub fn read_search<T: DeserializeOwned>(self) -> Option<T> {
        self.read(SEARCH_LIMIT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(dir: &Path) -> Store {
        Store::open(dir, "ssl").expect("a new database")
    }

    #[test]
    fn a_front_page_reads_back_after_a_clean_stop_and_not_after_a_change() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = stored(dir.path());
        store
            .save_front(&vec!["Ahonen, Aino".to_string()])
            .expect("saved");
        store.close().expect("closed");
        let page: Option<Vec<String>> = read_front(dir.path(), "ssl");
        assert_eq!(page, Some(vec!["Ahonen, Aino".to_string()]));
        assert_eq!(read_front::<Vec<String>>(dir.path(), "isl"), None);
        // The log changed since: another process wrote to it, or a kill cut it short.
        {
            use std::io::Write;
            let mut log = std::fs::OpenOptions::new()
                .append(true)
                .open(dir.path().join("db"))
                .expect("log");
            log.write_all(&[0]).expect("appended");
        }
        assert_eq!(read_front::<Vec<String>>(dir.path(), "ssl"), None);
    }

    #[test]
    fn a_kept_file_is_read_past_its_stamp_only_when_the_stamp_holds_and_a_damaged_length_is_refused()
     {
        let dir = tempfile::tempdir().expect("tmp");
        let store = stored(dir.path());
        let counts = store.counts().expect("counts");
        store.close().expect("closed");
        let read = || Beside::search(dir.path(), "ssl").and_then(Beside::read_search::<String>);
        // A stamp that holds, then a text whose length says 2⁶² bytes.
        let mut bytes = codec::encode(&Stamp::new("ssl", counts)).expect("encoded");
        bytes.push(253);
        bytes.extend((1u64 << 62).to_le_bytes());
        std::fs::write(dir.path().join(SEARCH_FILE), &bytes).expect("written");
        assert_eq!(read(), None, "refused, not a panic");
        // The same text whole is read; behind a stale stamp it is not.
        for (rules, read_back) in [("ssl", Some("kept".to_string())), ("isl", None)] {
            let front = Front {
                stamp: Stamp::new(rules, counts),
                page: "kept".to_string(),
            };
            let bytes = codec::encode(&front).expect("encoded");
            std::fs::write(dir.path().join(SEARCH_FILE), bytes).expect("written");
            assert_eq!(read(), read_back, "{rules}");
        }
    }

    #[test]
    fn a_front_page_of_other_counts_or_another_shape_is_not_used() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = stored(dir.path());
        store.save_front(&7u32).expect("saved");
        let mut counts = store.counts().expect("counts");
        store.close().expect("closed");
        assert_eq!(read_front::<u32>(dir.path(), "ssl"), Some(7));
        assert_eq!(read_front::<Vec<String>>(dir.path(), "ssl"), None);
        // A front page written against one edit fewer than the database holds.
        counts.audit += 1;
        let front = Front {
            stamp: Stamp::new("ssl", counts),
            page: 7u32,
        };
        let bytes = codec::encode(&front).expect("encoded");
        std::fs::write(dir.path().join(FILE), bytes).expect("written");
        assert_eq!(read_front::<u32>(dir.path(), "ssl"), None);
        std::fs::write(dir.path().join(FILE), b"not a front page").expect("written");
        assert_eq!(read_front::<u32>(dir.path(), "ssl"), None);
    }

    #[test]
    fn a_front_page_and_a_search_index_go_with_their_database_when_it_is_set_aside() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = stored(dir.path());
        store.save_front(&7u32).expect("saved");
        store.save_search(&vec![1u32, 2]).expect("saved");
        store.close().expect("closed");
        let search = || Beside::search(dir.path(), "ssl").and_then(Beside::read_search::<Vec<u32>>);
        assert_eq!(search(), Some(vec![1, 2]));
        let _lock = Store::lock(dir.path()).expect("lock");
        let aside = super::super::set_aside(dir.path()).expect("set aside");
        for file in [FILE, SEARCH_FILE] {
            assert!(aside.join(file).exists(), "{file}");
            assert!(!dir.path().join(file).exists(), "{file}");
        }
        assert_eq!(read_front::<u32>(dir.path(), "ssl"), None);
        assert_eq!(search(), None);
    }
}
