//! A large edit written in steps: an import of thousands of players or events is too big for
//! one sled transaction, which keeps every copy of every node it touched until it ends (some
//! 10 kB a record). Such an edit first stores an undo log — what each key it will write holds
//! now — then writes its records a few thousand at a time, and last, in one transaction, its
//! audit entry and counters with the undo log removed. A database opened with an undo log
//! still in it holds an edit that never finished: the log is played back before anything
//! reads it, so the edit is wholly there (the last transaction went through) or wholly gone.
//!
//! sled writes its log in order, so whatever of the steps reached the disk, the undo log
//! (stored before them) did too.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{AuditEntry, SCHEMA_VERSION, Store, StoreError, codec};
use crate::book::{EventRecord, PlayerRecord};
use crate::rules::Rulebook;

/// The trees an edit's records go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(super) enum Tree {
    Players,
    Events,
    /// The indexes of players by name, FIDE id and code schema 3 kept ([`LEGACY_INDEXES`]):
    /// written by no edit of this version, only by the undo log of an edit that version left
    /// unfinished, played back before the migration drops them.
    ByName,
    ByFide,
    ByCode,
}

/// The trees of the indexes of players by name, FIDE id and code, as schema 3 named them.
pub(super) const LEGACY_INDEXES: [&str; 3] = ["index_name", "index_fide", "index_code"];

/// What a write puts under its key, encoded only as it is written (an import's records are
/// never all held encoded at once).
pub(super) enum Put<'a, R: Rulebook> {
    Remove,
    Player(&'a PlayerRecord<R>),
    Event(&'a EventRecord),
}

impl<R: Rulebook> Put<'_, R> {
    /// The bytes put (`None`: the key is removed).
    pub(super) fn bytes(&self) -> Result<Option<Vec<u8>>, codec::CodecError> {
        Ok(match self {
            Put::Remove => None,
            Put::Player(record) => Some(codec::encode(record)?),
            Put::Event(record) => Some(codec::encode(record)?),
        })
    }
}

/// One write of an edit: its tree, its key and what it puts.
pub(super) type Write<'a, R> = (Tree, Vec<u8>, Put<'a, R>);

/// Every write of `entries`, in the order they are to be made: per entry, its players'
/// records; last the events' records (`events`, each written whole). Made again each time it is asked for, never held.
pub(super) fn writes<'a, R: Rulebook>(
    entries: &'a [AuditEntry<R>],
    events: &'a BTreeMap<usize, Option<EventRecord>>,
) -> impl Iterator<Item = Write<'a, R>> + 'a {
    let players = entries.iter().flat_map(|entry| {
        entry.change.players.iter().map(|d| {
            (
                Tree::Players,
                codec::key(d.key as u64).to_vec(),
                d.after.as_deref().map_or(Put::Remove, Put::Player),
            )
        })
    });
    let events = events.iter().map(|(e, record)| {
        (
            Tree::Events,
            codec::key(*e as u64).to_vec(),
            record.as_ref().map_or(Put::Remove, Put::Event),
        )
    });
    players.chain(events)
}

/// `meta`'s key of the undo log of an edit being written in steps.
pub(super) const UNDO: &str = "staged_undo";

/// The schema `meta` says while an undo log is stored: one past the one written, so that a
/// version of ratedesk that knows no undo log refuses the database ("written by a newer
/// ratedesk") instead of working on half an edit.
pub(super) const SCHEMA_WHILE_STAGED: u64 = SCHEMA_VERSION + 1;

/// The first mark of an edit written in steps: schema 3 marked it 4. (A few builds of schema 2
/// kept an undo log without marking the schema, which then says 2.)
const FIRST_STAGED_MARK: u64 = 4;

/// The schema of the version that wrote a database whose `meta` says `found`, with an undo log
/// (`undo`) or without: one below a staged mark.
pub(super) fn written_schema(found: u64, undo: bool) -> u64 {
    if undo && found >= FIRST_STAGED_MARK {
        found - 1
    } else {
        found
    }
}

/// Edits with more writes than this are written in steps; smaller ones in one transaction.
pub(super) fn stage_above() -> usize {
    const STAGE_ABOVE: usize = 8192;
    #[cfg(debug_assertions)]
    if let Some(n) = std::env::var("RATEDESK_TEST_STAGE_ABOVE")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    STAGE_ABOVE
}

/// What an unfinished edit wrote over: each key as it was (`None`: absent), in the order
/// written (a key written twice is there twice, with the same value).
#[derive(Deserialize)]
struct Undo {
    /// The edit's action, to say what was undone.
    action: String,
    before: Vec<(Tree, Vec<u8>, Option<Vec<u8>>)>,
}

/// [`Undo`] as it is stored, its values read from the store as it is encoded.
#[derive(Serialize)]
#[serde(bound = "")]
struct UndoOf<'s, I: Iterator<Item = (Tree, Vec<u8>)>> {
    action: &'s str,
    before: Before<'s, I>,
}

/// The keys' values before the edit, encoded as [`Undo::before`] is.
struct Before<'s, I> {
    store: &'s Store,
    keys: std::cell::RefCell<Option<I>>,
    count: usize,
}

impl<I: Iterator<Item = (Tree, Vec<u8>)>> Serialize for Before<'_, I> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        // The keys are read once: an encoder that went over the value twice (to measure it
        // first) would write the count and then nothing. Refused rather than written so.
        let Some(keys) = self.keys.borrow_mut().take() else {
            return Err(S::Error::custom("the undo log can be encoded once only"));
        };
        let mut seq = serializer.serialize_seq(Some(self.count))?;
        for (tree, key) in keys {
            let old = (self.store.tree(tree).map_err(S::Error::custom)?)
                .get(&key)
                .map_err(S::Error::custom)?;
            seq.serialize_element(&(tree, &key, old.as_deref()))?;
        }
        seq.end()
    }
}

impl Store {
    fn tree(&self, tree: Tree) -> Result<sled::Tree, StoreError> {
        match tree {
            Tree::Players => Ok(self.players.clone()),
            Tree::Events => Ok(self.events.clone()),
            Tree::ByName | Tree::ByFide | Tree::ByCode => {
                let name = LEGACY_INDEXES[tree as usize - Tree::ByName as usize];
                self.db.open_tree(name).map_err(|e| self.fail(e))
            }
        }
    }

    /// The writes as one batch per tree, in the order of [`Tree`]'s variants (for one
    /// transaction; a later write of a key overrides an earlier one, as when made in turn).
    pub(super) fn batches<'a, R: Rulebook + 'a>(
        &self,
        writes: impl Iterator<Item = Write<'a, R>>,
    ) -> Result<[sled::Batch; 2], StoreError> {
        let mut batches: [sled::Batch; 2] = Default::default();
        for (tree, key, put) in writes {
            let Some(batch) = batches.get_mut(tree as usize) else {
                return Err(self.fail(format!("no edit writes the {tree:?} index any more")));
            };
            match put.bytes().map_err(|e| self.fail(e))? {
                Some(value) => batch.insert(key, value),
                None => batch.remove(key),
            }
        }
        Ok(batches)
    }

    /// Stores the undo log of the `count` writes `keys` gives (their trees and keys): the first
    /// step of an edit written in steps. Each key's value is read as the log is encoded.
    pub(super) fn store_undo(
        &self,
        keys: impl Iterator<Item = (Tree, Vec<u8>)>,
        count: usize,
        action: &str,
    ) -> Result<(), StoreError> {
        let undo = UndoOf {
            action,
            before: Before {
                store: self,
                keys: std::cell::RefCell::new(Some(keys)),
                count,
            },
        };
        let bytes = codec::encode(&undo).map_err(|e| self.fail(e))?;
        let mut meta = sled::Batch::default();
        meta.insert(UNDO, bytes);
        meta.insert("schema", &SCHEMA_WHILE_STAGED.to_be_bytes());
        self.meta.apply_batch(meta).map_err(|e| self.fail(e))?;
        Ok(())
    }

    /// Writes records one at a time (each its own small write, which lets sled free the nodes
    /// it copied as it goes, where a batch keeps them all to its end); `stop_after` (for the
    /// fault tests) fails after that many writes, as a full disk would.
    pub(super) fn write_steps(
        &self,
        writes: impl IntoIterator<Item = Result<(Tree, Vec<u8>, Option<Vec<u8>>), StoreError>>,
        stop_after: Option<usize>,
    ) -> Result<(), StoreError> {
        for (n, write) in writes.into_iter().enumerate() {
            let (tree, key, value) = write?;
            if stop_after.is_some_and(|stop| n >= stop) {
                // What was written reaches the disk, as sled's own periodic flush may take it.
                let _ = self.db.flush();
                return Err(self.fail(std::io::Error::from(std::io::ErrorKind::StorageFull)));
            }
            let tree = self.tree(tree)?;
            match value {
                Some(value) => tree.insert(key, value).map(drop),
                None => tree.remove(key).map(drop),
            }
            .map_err(|e| self.fail(e))?;
        }
        Ok(())
    }

    /// Plays back the undo log of an edit that did not finish (a killed process, a full disk);
    /// the edit's action when there was one. The schema is set back to `written`, the one of
    /// the version that wrote the edit: its migrations, if any, raise it once they are done.
    pub(super) fn roll_back_staged(&self, written: u64) -> Result<Option<String>, StoreError> {
        let Some(bytes) = self.meta.get(UNDO).map_err(|e| self.fail(e))? else {
            return Ok(None);
        };
        let undo: Undo = codec::decode(&bytes).map_err(|e| self.corrupt("undo log", &e))?;
        self.write_steps(undo.before.into_iter().map(Ok), None)?;
        let mut meta = sled::Batch::default();
        meta.remove(UNDO);
        meta.insert("schema", &written.to_be_bytes());
        self.meta.apply_batch(meta).map_err(|e| self.fail(e))?;
        Ok(Some(undo.action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema_on_disk(dir: &std::path::Path) -> u64 {
        // sled's own threads let a database just closed go a moment later: wait for them, as
        // every opening does.
        crate::store::lock::sled_free(dir).expect("sled lets go of the database");
        let db = sled::open(dir).expect("sled");
        let meta = db.open_tree("meta").expect("meta");
        codec::id_of(&meta.get("schema").expect("read").expect("a schema")).expect("a number")
    }

    /// Writes the undo log of an edit of `keys`, and half of each key, as a process stopped in
    /// the middle of an edit written in steps leaves them.
    fn half_written(store: &Store, keys: &[(Tree, Vec<u8>)]) {
        store
            .store_undo(keys.iter().cloned(), keys.len(), "import of big.csv")
            .expect("undo log");
        let half = keys
            .iter()
            .map(|(tree, key)| Ok((*tree, key.clone(), Some(b"half".to_vec()))));
        store.write_steps(half, None).expect("written");
        store.flush().expect("flushed");
    }

    /// Half an edit written in steps, the process gone: on disk the schema says one past the
    /// one written (an older ratedesk refuses the database instead of keeping the half), and
    /// the next opening plays the undo log back and says what it undid.
    #[test]
    fn half_an_edit_is_marked_for_older_versions_and_undone_at_the_next_opening() {
        let dir = tempfile::tempdir().expect("tempdir");
        let key = codec::key(7).to_vec();
        half_written(
            &Store::open(dir.path(), "ssl").expect("a new database"),
            &[(Tree::Players, key.clone()), (Tree::Events, key.clone())],
        );
        assert_eq!(schema_on_disk(dir.path()), SCHEMA_WHILE_STAGED);
        let store = Store::open(dir.path(), "ssl").expect("opens, undoing");
        assert_eq!(store.undone(), Some("import of big.csv"));
        assert_eq!(store.players.get(&key).expect("read"), None);
        assert_eq!(store.events.get(&key).expect("read"), None);
        drop(store);
        assert_eq!(schema_on_disk(dir.path()), SCHEMA_VERSION);
        let store = Store::open(dir.path(), "ssl").expect("opens");
        assert_eq!(store.undone(), None);
    }

    /// The schema read through a staged mark: one below it from schema 3's mark on, as it is
    /// before (the builds of schema 2 with an undo log did not mark it).
    #[test]
    fn the_schema_under_a_staged_mark_is_the_one_below_it() {
        for (found, undo, written) in [
            (2, true, 2),
            (3, false, 3),
            (3, true, 3),
            (4, true, 3),
            (4, false, 4),
            (5, true, 4),
            (5, false, 5),
            (6, true, 5),
            (6, false, 6),
            (7, true, 6),
            (SCHEMA_WHILE_STAGED, true, SCHEMA_VERSION),
            (SCHEMA_WHILE_STAGED, false, SCHEMA_WHILE_STAGED),
        ] {
            assert_eq!(written_schema(found, undo), written, "{found} {undo}");
        }
    }

    /// Played back, an undo log leaves the schema of the version that wrote the edit, for that
    /// version's migrations to raise (an opening stopped between the two migrates again).
    #[test]
    fn an_edit_played_back_leaves_the_schema_of_its_version() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path(), "ssl").expect("a new database");
        half_written(&store, &[(Tree::Players, codec::key(7).to_vec())]);
        assert_eq!(
            store.counter("schema").expect("schema"),
            SCHEMA_WHILE_STAGED
        );
        assert_eq!(
            store.roll_back_staged(3).expect("undone").as_deref(),
            Some("import of big.csv")
        );
        assert_eq!(store.counter("schema").expect("schema"), 3);
        assert_eq!(store.players.get(codec::key(7)).expect("read"), None);
    }

    /// Half an edit of schema 3, whose undo log names its indexes on disk: played back as the
    /// database opens, then the database is migrated (the indexes dropped) and opens again.
    #[test]
    fn half_an_edit_of_schema_3_is_undone_and_the_database_migrated() {
        let dir = tempfile::tempdir().expect("tempdir");
        let key = codec::key(7).to_vec();
        {
            let store = Store::open(dir.path(), "ssl").expect("a new database");
            half_written(
                &store,
                &[
                    (Tree::Players, key.clone()),
                    (Tree::ByCode, b"FIN7".to_vec()),
                ],
            );
            // As schema 3 marked it: one past its own.
            store
                .meta
                .insert("schema", &4u64.to_be_bytes())
                .expect("schema");
            store.flush().expect("flushed");
        }
        let store = Store::open(dir.path(), "ssl").expect("opens, undoing and migrating");
        assert_eq!(store.undone(), Some("import of big.csv"));
        assert_eq!(store.players.get(&key).expect("read"), None);
        let names = store.db.tree_names();
        for index in LEGACY_INDEXES {
            assert!(
                !names.iter().any(|n| &n[..] == index.as_bytes()),
                "{index} is dropped"
            );
        }
        drop(store);
        assert_eq!(schema_on_disk(dir.path()), SCHEMA_VERSION);
    }
}
