//! FIDE's records of players the federation does not keep (foreign players, mostly), read from
//! FIDE's rating lists: reference data for when such a player turns up in an event. They are
//! not rated players and take no part in the ledger. The federation's own players get their FIDE
//! ratings through an audited edit instead.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::{Store, StoreError, codec};
use crate::model::{FideEntry, FideKind, Sex, day};

/// What FIDE's lists say of a player, newest identity first and every list's ratings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FideReference {
    pub name: String,
    pub federation: String,
    pub sex: Option<Sex>,
    pub birth_year: Option<u16>,
    pub title: String,
    pub women_title: String,
    pub inactive: bool,
    /// Ratings by list date, oldest first.
    pub lists: Vec<FideEntry>,
}

impl FideReference {
    /// Takes in one list's line: its ratings of `kinds` at the entry's date, and the identity
    /// if the list is not older than what is held.
    pub fn merge(&mut self, newer: FideReference, kinds: &[FideKind]) {
        let Some(entry) = newer.lists.into_iter().next() else {
            return;
        };
        let newest = self.lists.last().map(|e| e.list_date);
        if newest.is_none_or(|d| d <= entry.list_date) {
            self.name = newer.name;
            self.federation = newer.federation;
            self.sex = newer.sex.or(self.sex);
            self.birth_year = newer.birth_year.or(self.birth_year);
            self.title = newer.title;
            self.women_title = newer.women_title;
            self.inactive = newer.inactive;
        }
        merge_entry(&mut self.lists, entry, kinds);
    }
}

/// Puts one list's ratings of `kinds` into a history of list entries (kept in date order): a
/// list already held for that date keeps its other kinds.
pub fn merge_entry(lists: &mut Vec<FideEntry>, entry: FideEntry, kinds: &[FideKind]) {
    match lists.binary_search_by_key(&entry.list_date, |e| e.list_date) {
        Ok(at) => {
            for &k in kinds {
                *lists[at].rating_mut(k) = entry.rating(k);
            }
        }
        Err(at) => {
            let mut fresh = FideEntry {
                list_date: entry.list_date,
                standard: None,
                rapid: None,
                blitz: None,
            };
            for &k in kinds {
                *fresh.rating_mut(k) = entry.rating(k);
            }
            lists.insert(at, fresh);
        }
    }
}

/// How many FIDE ids a block of reference records spans. The records are kept in blocks of
/// neighbouring ids (key: the id divided by this), so that a list of a million players is some
/// thousands of writes, not a million: ids are unique, so a block holds at most this many.
const BLOCK_IDS: u64 = 1024;

/// A block of reference records, by FIDE id (ascending).
type Block = Vec<(u64, FideReference)>;

/// The key of the block holding `fide_id`.
fn block_key(fide_id: u64) -> [u8; 8] {
    codec::key(fide_id / BLOCK_IDS)
}

/// A list's reference records, held encoded (a fifth of their size in memory) until the whole
/// list is read, then given back in the order of their ids: FIDE's lists come in the order of
/// names, and the store keeps neighbouring ids together, so records merged in the file's order
/// would rewrite nearly every block once a batch.
#[derive(Default)]
pub struct HeldReferences {
    bytes: Vec<u8>,
    /// Each record's id and where its bytes end.
    index: Vec<(u64, usize)>,
}

impl HeldReferences {
    /// Holds a record (`store` for what an error names).
    pub fn push(
        &mut self,
        store: &Store,
        fide_id: u64,
        record: &FideReference,
    ) -> Result<(), StoreError> {
        let encoded = codec::encode(record).map_err(|e| store.fail(e))?;
        self.bytes.extend_from_slice(&encoded);
        self.index.push((fide_id, self.bytes.len()));
        Ok(())
    }

    /// The records in batches of at most `size`, in the order of their ids (a record listed
    /// twice keeps its order).
    pub fn batches(
        self,
        store: &Store,
        size: usize,
    ) -> impl Iterator<Item = Result<Vec<(u64, FideReference)>, StoreError>> {
        let Self { bytes, index } = self;
        // Each record's id and its bytes' range.
        let mut start = 0;
        let mut ranges: Vec<(u64, usize, usize)> = index
            .into_iter()
            .map(|(id, end)| {
                let range = (id, start, end);
                start = end;
                range
            })
            .collect();
        ranges.sort_by_key(|&(id, _, _)| id);
        let mut ranges = ranges.into_iter();
        std::iter::from_fn(move || {
            let batch: Vec<(u64, usize, usize)> = ranges.by_ref().take(size).collect();
            (!batch.is_empty()).then(|| {
                batch
                    .into_iter()
                    .map(|(id, from, to)| {
                        codec::decode(&bytes[from..to])
                            .map(|record| (id, record))
                            .map_err(|e| store.fail(e))
                    })
                    .collect()
            })
        })
    }
}

/// The trees reference data was kept in, a record an id, before it was kept in blocks: read
/// once, when such a database is opened, and dropped.
const LEGACY_TREE: &str = "fide_reference";
const LEGACY_UNDO: &str = "fide_reference_undo";

impl Store {
    /// FIDE's record of a player the federation does not keep.
    pub fn fide_reference(&self, fide_id: u64) -> Result<Option<FideReference>, StoreError> {
        let Some(bytes) = self
            .fide
            .get(block_key(fide_id))
            .map_err(|e| self.fail(e))?
        else {
            return Ok(None);
        };
        let mut block: Block = codec::decode(&bytes).map_err(|e| self.fail(e))?;
        Ok(block
            .binary_search_by_key(&fide_id, |(id, _)| *id)
            .ok()
            .map(|at| block.swap_remove(at).1))
    }

    /// How many FIDE reference records are held.
    pub fn fide_reference_count(&self) -> Result<u64, StoreError> {
        self.counter("fide_reference")
    }

    /// Starts an import of reference data that is all or nothing: until [`Store::commit_all`]
    /// removes the marker with the import's audit entries, every block it replaces is kept
    /// aside, and a database opened with the marker still there is rolled back to before it.
    pub fn begin_fide_import(&self, what: &str) -> Result<(), StoreError> {
        self.fide_undo.clear().map_err(|e| self.fail(e))?;
        let count = self.fide_reference_count()?;
        self.meta
            .insert(FIDE_IMPORT_COUNT, &count.to_be_bytes())
            .map_err(|e| self.fail(e))?;
        self.meta
            .insert(FIDE_IMPORT, what.as_bytes())
            .map_err(|e| self.fail(e))?;
        self.flush()
    }

    /// Once the import's audit entries are stored: the kept blocks are no longer needed.
    pub fn end_fide_import(&self) -> Result<(), StoreError> {
        self.fide_undo.clear().map_err(|e| self.fail(e))?;
        self.flush()
    }

    /// Undoes an import of reference data that did not finish (a killed process).
    pub fn roll_back_fide_import(&self) -> Result<Option<String>, StoreError> {
        self.roll_back_into(&self.fide, &self.fide_undo)
    }

    /// Puts back into `tree` what `undo` kept aside of an unfinished import (an empty value:
    /// the import added the key), and the count from before it. The same for blocks and for
    /// the records an id of the legacy layout.
    fn roll_back_into(
        &self,
        tree: &sled::Tree,
        undo: &sled::Tree,
    ) -> Result<Option<String>, StoreError> {
        let Some(what) = self.meta.get(FIDE_IMPORT).map_err(|e| self.fail(e))? else {
            if !undo.is_empty() {
                undo.clear().map_err(|e| self.fail(e))?;
            }
            return Ok(None);
        };
        let mut batch = sled::Batch::default();
        for item in undo.iter() {
            let (k, v) = item.map_err(|e| self.fail(e))?;
            if v.is_empty() {
                batch.remove(k);
            } else {
                batch.insert(k, v);
            }
        }
        tree.apply_batch(batch).map_err(|e| self.fail(e))?;
        let count = self
            .meta
            .get(FIDE_IMPORT_COUNT)
            .map_err(|e| self.fail(e))?
            .and_then(|v| codec::id_of(&v))
            .unwrap_or(0);
        self.meta
            .insert("fide_reference", &count.to_be_bytes())
            .map_err(|e| self.fail(e))?;
        self.meta.remove(FIDE_IMPORT).map_err(|e| self.fail(e))?;
        self.meta
            .remove(FIDE_IMPORT_COUNT)
            .map_err(|e| self.fail(e))?;
        undo.clear().map_err(|e| self.fail(e))?;
        self.flush()?;
        Ok(Some(String::from_utf8_lossy(&what).into_owned()))
    }

    /// Merges a batch of one list's records into the reference data; returns how many were new
    /// and how many changed. Not yet flushed.
    pub fn merge_fide_references(
        &self,
        mut records: Vec<(u64, FideReference)>,
        kinds: &[FideKind],
    ) -> Result<(u64, u64), StoreError> {
        // By block, in key order: each block is read and written once per batch.
        records.sort_by_key(|(id, _)| *id);
        let journal = self
            .meta
            .contains_key(FIDE_IMPORT)
            .map_err(|e| self.fail(e))?;
        let mut batch = sled::Batch::default();
        let mut undo = sled::Batch::default();
        let (mut added, mut changed) = (0, 0);
        let mut records = records.into_iter().peekable();
        while let Some(&(first, _)) = records.peek() {
            let key = block_key(first);
            let held = self.fide.get(key).map_err(|e| self.fail(e))?;
            if journal && !self.fide_undo.contains_key(key).map_err(|e| self.fail(e))? {
                undo.insert(&key, held.as_ref().map_or(&[][..], |v| &v[..]));
            }
            let mut block: Block = match &held {
                Some(v) => codec::decode(v).map_err(|e| self.fail(e))?,
                None => Vec::new(),
            };
            while let Some((id, record)) = records.next_if(|(id, _)| block_key(*id) == key) {
                match block.binary_search_by_key(&id, |(held, _)| *held) {
                    Ok(at) => {
                        let held = &mut block[at].1;
                        let before = held.clone();
                        held.merge(record, kinds);
                        if *held != before {
                            changed += 1;
                        }
                    }
                    Err(at) => {
                        added += 1;
                        let mut fresh = record;
                        let lists = std::mem::take(&mut fresh.lists);
                        if let Some(entry) = lists.into_iter().next() {
                            merge_entry(&mut fresh.lists, entry, kinds);
                        }
                        block.insert(at, (id, fresh));
                    }
                }
            }
            batch.insert(&key, codec::encode(&block).map_err(|e| self.fail(e))?);
        }
        // The blocks kept aside first: a process killed in between rolls back to them.
        self.fide_undo.apply_batch(undo).map_err(|e| self.fail(e))?;
        self.fide.apply_batch(batch).map_err(|e| self.fail(e))?;
        let count = self.fide_reference_count()? + added;
        self.meta
            .insert("fide_reference", &count.to_be_bytes())
            .map_err(|e| self.fail(e))?;
        Ok((added, changed))
    }

    /// Moves reference data kept a record an id (schema 2) into blocks and raises the schema
    /// to 3: an unfinished import of it is rolled back first, then the blocks are written,
    /// flushed, the schema raised and the old trees dropped. A move stopped part way starts
    /// again at the next open (the schema is still 2: the blocks are written anew from the old
    /// trees, which nothing else writes, as an older ratedesk refuses schema 3).
    pub(super) fn migrate_fide_references(&self) -> Result<(), StoreError> {
        let names = self.db.tree_names();
        let exists = |name: &str| names.iter().any(|n| &n[..] == name.as_bytes());
        let legacy = self.db.open_tree(LEGACY_TREE).map_err(|e| self.fail(e))?;
        if exists(LEGACY_UNDO) {
            let undo = self.db.open_tree(LEGACY_UNDO).map_err(|e| self.fail(e))?;
            self.roll_back_into(&legacy, &undo)?;
        }
        self.fide.clear().map_err(|e| self.fail(e))?;
        let mut batch = sled::Batch::default();
        let mut block: Block = Vec::new();
        let mut count = 0u64;
        for item in legacy.iter() {
            let (k, v) = item.map_err(|e| self.fail(e))?;
            let id =
                codec::id_of(&k).ok_or_else(|| self.corrupt("FIDE reference key", &"short key"))?;
            let record: FideReference =
                codec::decode(&v).map_err(|e| self.corrupt("FIDE reference record", &e))?;
            if block
                .first()
                .is_some_and(|(held, _)| block_key(*held) != block_key(id))
            {
                let (held, _) = block[0];
                batch.insert(
                    &block_key(held),
                    codec::encode(&block).map_err(|e| self.fail(e))?,
                );
                block.clear();
            }
            block.push((id, record));
            count += 1;
        }
        if let Some(&(held, _)) = block.first() {
            batch.insert(
                &block_key(held),
                codec::encode(&block).map_err(|e| self.fail(e))?,
            );
        }
        self.fide.apply_batch(batch).map_err(|e| self.fail(e))?;
        self.meta
            .insert("fide_reference", &count.to_be_bytes())
            .map_err(|e| self.fail(e))?;
        self.flush()?;
        self.meta
            .insert("schema", &3u64.to_be_bytes())
            .map_err(|e| self.fail(e))?;
        self.flush()?;
        for name in [LEGACY_UNDO, LEGACY_TREE] {
            self.db.drop_tree(name).map_err(|e| self.fail(e))?;
        }
        self.flush()
    }
}

/// The FIDE titles of one of the federation's own players, as the newest source gave them: a
/// FIDE rating list, or an arbiter's TRF (its title column on the event's start). Reference
/// data like [`FideReference`], shown on the player's card; the federation's own titles are
/// in the record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FideTitle {
    /// `GM`, `IM`, `FM`, `CM`; empty: none.
    pub title: String,
    /// `WGM`, `WIM`, `WFM`, `WCM`; empty: none.
    pub women_title: String,
    /// The list's date, or the event's start.
    #[serde(with = "day")]
    pub as_of: NaiveDate,
    /// Where it was read: `FIDE list`, or `TRF of <event id>`.
    pub source: String,
}

impl FideTitle {
    /// The titles a source's columns give (a list's title and women's title columns, or a
    /// TRF's one): the first open's and the first women's title found.
    pub fn of(columns: &[&str], as_of: NaiveDate, source: String) -> FideTitle {
        let codes: Vec<(&str, bool)> = columns.iter().filter_map(|c| title_code(c)).collect();
        let first = |women: bool| {
            codes
                .iter()
                .find(|(_, w)| *w == women)
                .map_or_else(String::new, |(c, _)| c.to_string())
        };
        FideTitle {
            title: first(false),
            women_title: first(true),
            as_of,
            source,
        }
    }

    /// Whether a FIDE list gave it (else an arbiter's TRF).
    pub fn from_list(&self) -> bool {
        self.source == LIST_SOURCE
    }

    /// What is held once a newer source has spoken: see [`Store::note_fide_titles`].
    fn updated_by(self, newer: FideTitle) -> FideTitle {
        let outranked = self.from_list() && !newer.from_list();
        if outranked || newer.as_of < self.as_of {
            return self;
        }
        let or_held = |new: String, held: String| if new.is_empty() { held } else { new };
        FideTitle {
            title: or_held(newer.title, self.title),
            women_title: or_held(newer.women_title, self.women_title),
            as_of: newer.as_of,
            source: newer.source,
        }
    }

    /// The titles as the card writes them: `GM`, `WGM`, `IM WGM`.
    pub fn codes(&self) -> String {
        [self.title.as_str(), self.women_title.as_str()]
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The source of titles read from a FIDE rating list.
pub const LIST_SOURCE: &str = "FIDE list";

/// A FIDE title code as lists and TRFs write it (`GM`, `wg`, old one-letter `g`, `m`, `f`,
/// `c`), as FIDE's code and whether it is a women's title; `None`: not a title.
pub fn title_code(text: &str) -> Option<(&'static str, bool)> {
    Some(match text.trim().to_ascii_uppercase().as_str() {
        "GM" | "G" => ("GM", false),
        "IM" | "M" => ("IM", false),
        "FM" | "F" => ("FM", false),
        "CM" | "C" => ("CM", false),
        "WGM" | "WG" => ("WGM", true),
        "WIM" | "WM" => ("WIM", true),
        "WFM" | "WF" => ("WFM", true),
        "WCM" | "WC" => ("WCM", true),
        _ => return None,
    })
}

impl Store {
    /// Every FIDE title kept, by FIDE id.
    pub fn fide_titles(&self) -> Result<Vec<(u64, FideTitle)>, StoreError> {
        self.fide_titles
            .iter()
            .map(|item| {
                let (k, v) = item.map_err(|e| self.fail(e))?;
                let id = codec::id_of(&k)
                    .ok_or_else(|| self.fail("an unreadable FIDE id".to_string()))?;
                Ok((id, codec::decode(&v).map_err(|e| self.fail(e))?))
            })
            .collect()
    }

    /// The FIDE titles held for a FIDE id.
    pub fn fide_title(&self, fide_id: u64) -> Result<Option<FideTitle>, StoreError> {
        self.fide_titles
            .get(codec::key(fide_id))
            .map_err(|e| self.fail(e))?
            .map(|v| codec::decode(&v).map_err(|e| self.fail(e)))
            .transpose()
    }

    /// Keeps each FIDE id's titles as the newest source gives them, and flushes. FIDE titles
    /// are for life, so a source that gives none (or none of a kind) takes none away; a FIDE
    /// list is FIDE's own record and outranks an arbiter's TRF, whose one title column stands
    /// only where no list has spoken; among sources of one kind the later date wins (on one
    /// date, the one given last).
    pub fn note_fide_titles(&self, titles: Vec<(u64, FideTitle)>) -> Result<(), StoreError> {
        let mut merged: std::collections::BTreeMap<u64, FideTitle> =
            std::collections::BTreeMap::new();
        for (id, title) in titles {
            let held = match merged.remove(&id) {
                Some(t) => Some(t),
                None => self.fide_title(id)?,
            };
            let kept = match held {
                Some(held) => held.updated_by(title),
                None if title.codes().is_empty() => continue,
                None => title,
            };
            merged.insert(id, kept);
        }
        let mut batch = sled::Batch::default();
        for (id, title) in merged {
            batch.insert(
                &codec::key(id),
                codec::encode(&title).map_err(|e| self.fail(e))?,
            );
        }
        self.fide_titles
            .apply_batch(batch)
            .map_err(|e| self.fail(e))?;
        self.flush()
    }
}

/// `meta` keys of an unfinished import of reference data: what it is, and the count before it.
pub const FIDE_IMPORT: &str = "fide_import";
pub const FIDE_IMPORT_COUNT: &str = "fide_import_count";

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn entry(month: u32, standard: Option<i32>, rapid: Option<i32>) -> FideEntry {
        FideEntry {
            list_date: NaiveDate::from_ymd_opt(2026, month, 1).expect("a date"),
            standard,
            rapid,
            blitz: None,
        }
    }

    #[test]
    fn a_single_list_keeps_the_other_kinds_of_its_month() {
        let mut lists = vec![entry(9, Some(2000), Some(1900))];
        merge_entry(&mut lists, entry(9, None, Some(1950)), &[FideKind::Rapid]);
        assert_eq!(lists, vec![entry(9, Some(2000), Some(1950))]);
        merge_entry(
            &mut lists,
            entry(8, Some(1990), Some(5)),
            &[FideKind::Standard],
        );
        assert_eq!(
            lists,
            vec![entry(8, Some(1990), None), entry(9, Some(2000), Some(1950))]
        );
        // A combined list sets every kind, unrated ones too.
        merge_entry(&mut lists, entry(9, Some(2010), None), FideKind::ALL);
        assert_eq!(lists[1], entry(9, Some(2010), None));
    }

    #[test]
    fn an_older_list_does_not_overwrite_the_identity() {
        let record = |name: &str, month| FideReference {
            name: name.into(),
            federation: "SWE".into(),
            sex: None,
            birth_year: None,
            title: String::new(),
            women_title: String::new(),
            inactive: false,
            lists: vec![entry(month, Some(2000), None)],
        };
        let mut held = record("New, Name", 10);
        held.lists.clear();
        held.merge(record("New, Name", 10), FideKind::ALL);
        held.merge(record("Old, Name", 3), FideKind::ALL);
        assert_eq!(held.name, "New, Name");
        assert_eq!(held.lists.len(), 2);
    }

    /// A Swedish player's reference record, rated 2000 on the list of September 2026.
    fn swede(name: &str) -> FideReference {
        FideReference {
            name: name.into(),
            federation: "SWE".into(),
            sex: None,
            birth_year: None,
            title: String::new(),
            women_title: String::new(),
            inactive: false,
            lists: vec![entry(9, Some(2000), None)],
        }
    }

    #[test]
    fn an_import_of_reference_data_killed_part_way_is_rolled_back_at_the_next_open() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("db");
        let reference = swede;
        {
            let store = Store::open(&db, "ssl").expect("open");
            store
                .merge_fide_references(vec![(1, reference("Held, One"))], FideKind::ALL)
                .expect("merge");
            store.flush().expect("flush");
            store.begin_fide_import("list.txt").expect("begin");
            let (added, changed) = store
                .merge_fide_references(
                    vec![(1, reference("Renamed, One")), (2, reference("New, Two"))],
                    FideKind::ALL,
                )
                .expect("merge");
            assert_eq!((added, changed), (1, 1));
            store.flush().expect("flush");
            // Killed here: no audit entry closed the journal.
        }
        let store = Store::open(&db, "ssl").expect("reopen");
        assert_eq!(store.fide_reference_count().expect("count"), 1);
        assert_eq!(
            store.fide_reference(1).expect("read").map(|r| r.name),
            Some("Held, One".to_string())
        );
        assert_eq!(store.fide_reference(2).expect("read"), None);
    }

    #[test]
    fn held_references_come_back_in_the_order_of_their_ids_a_batch_at_a_time() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("db"), "ssl").expect("open");
        let mut held = HeldReferences::default();
        // As a list in the order of names gives them, one id twice.
        for (id, name) in [
            (3000, "Aho"),
            (5, "Berg"),
            (70_000, "Cox"),
            (5, "Dahl"),
            (6, "Eck"),
        ] {
            held.push(&store, id, &swede(name)).expect("held");
        }
        let batches: Vec<Vec<(u64, String)>> = held
            .batches(&store, 2)
            .map(|b| {
                b.expect("read")
                    .into_iter()
                    .map(|(id, r)| (id, r.name))
                    .collect()
            })
            .collect();
        let named = |id, name: &str| (id, name.to_string());
        assert_eq!(
            batches,
            vec![
                vec![named(5, "Berg"), named(5, "Dahl")],
                vec![named(6, "Eck"), named(3000, "Aho")],
                vec![named(70_000, "Cox")],
            ]
        );
    }

    #[test]
    fn reference_data_kept_a_record_an_id_moves_into_blocks_when_opened() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("db");
        let reference = |name: &str| FideReference {
            birth_year: Some(1990),
            title: "FM".into(),
            ..swede(name)
        };
        {
            // The layout before blocks, as it was written: a record an id, keyed by the id,
            // and an import killed part way (it renamed 5 and added 70 001).
            let store = Store::open(&db, "ssl").expect("open");
            let legacy = store.db.open_tree(LEGACY_TREE).expect("tree");
            let undo = store.db.open_tree(LEGACY_UNDO).expect("tree");
            let put = |tree: &sled::Tree, id: u64, value: Vec<u8>| {
                tree.insert(codec::key(id), value).expect("insert");
            };
            let bytes = |name: &str| codec::encode(&reference(name)).expect("encode");
            for (id, name) in [(1023, "Edge"), (1024, "Next"), (70_000, "Far")] {
                put(&legacy, id, bytes(name));
            }
            put(&legacy, 5, bytes("Renamed"));
            put(&legacy, 70_001, bytes("Added"));
            put(&undo, 5, bytes("Five"));
            put(&undo, 70_001, Vec::new());
            let meta = &store.meta;
            meta.insert("fide_reference", &5u64.to_be_bytes())
                .expect("count");
            meta.insert(FIDE_IMPORT, "list.txt").expect("marker");
            meta.insert(FIDE_IMPORT_COUNT, &4u64.to_be_bytes())
                .expect("count");
            meta.insert("schema", &2u64.to_be_bytes()).expect("schema");
            store.flush().expect("flush");
        }
        let store = Store::open(&db, "ssl").expect("reopen, migrating");
        assert_eq!(
            store.counter("schema").expect("schema"),
            crate::store::SCHEMA_VERSION
        );
        assert_eq!(store.fide_reference_count().expect("count"), 4);
        let name = |id| store.fide_reference(id).expect("read").map(|r| r.name);
        assert_eq!(
            name(5).as_deref(),
            Some("Five"),
            "the import is rolled back"
        );
        assert_eq!(name(1023).as_deref(), Some("Edge"));
        assert_eq!(name(1024).as_deref(), Some("Next"));
        assert_eq!(name(70_000).as_deref(), Some("Far"));
        assert_eq!(name(70_001), None);
        assert_eq!(name(6), None);
        assert_eq!(
            store.fide_reference(70_000).expect("read"),
            Some(reference("Far"))
        );
        assert_eq!(store.fide.len(), 3, "ids 5 and 1023 share a block");
        let names = store.db.tree_names();
        for gone in [LEGACY_TREE, LEGACY_UNDO] {
            assert!(
                !names.iter().any(|n| &n[..] == gone.as_bytes()),
                "{gone} dropped"
            );
        }
        // A later import merges into the blocks.
        let (added, changed) = store
            .merge_fide_references(
                vec![(6, reference("Six")), (5, reference("Five"))],
                FideKind::ALL,
            )
            .expect("merge");
        assert_eq!((added, changed), (1, 0));
        assert_eq!(name(6).as_deref(), Some("Six"));
        assert_eq!(store.fide.len(), 3);
    }

    #[test]
    fn fide_title_codes_old_and_new_and_the_women_s_apart() {
        assert_eq!(title_code("g"), Some(("GM", false)));
        assert_eq!(title_code(" wf"), Some(("WFM", true)));
        assert_eq!(title_code("IM"), Some(("IM", false)));
        assert_eq!(
            title_code("FA"),
            None,
            "an arbiter's title is not a FIDE playing title"
        );
        assert_eq!(title_code(""), None);
        let day = crate::model::fixture::day;
        let t = FideTitle::of(&["WIM", "WIM"], day("2025-10-01"), "FIDE list".into());
        assert_eq!((t.title.as_str(), t.codes()), ("", "WIM".to_string()));
        let t = FideTitle::of(&["IM", "WGM"], day("2025-10-01"), "FIDE list".into());
        assert_eq!(t.codes(), "IM WGM");
    }

    #[test]
    fn the_newest_source_of_a_title_wins_and_no_title_of_a_stranger_is_kept() {
        let day = crate::model::fixture::day;
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("db"), "ssl").expect("open");
        let title =
            |code: &str, date: &str, source: &str| FideTitle::of(&[code], day(date), source.into());
        store
            .note_fide_titles(vec![
                (1, title("f", "2025-06-01", "TRF of open")),
                (2, title("", "2025-06-01", "TRF of open")),
            ])
            .expect("note");
        assert_eq!(
            store.fide_title(1).expect("read").expect("held").codes(),
            "FM"
        );
        assert_eq!(store.fide_title(2).expect("read"), None);
        // An older source changes nothing; a newer list wins.
        store
            .note_fide_titles(vec![(1, title("c", "2025-01-01", "FIDE list"))])
            .expect("note");
        assert_eq!(
            store.fide_title(1).expect("read").expect("held").codes(),
            "FM"
        );
        store
            .note_fide_titles(vec![(1, title("IM", "2025-10-01", "FIDE list"))])
            .expect("note");
        let held = store.fide_title(1).expect("read").expect("held");
        assert_eq!(
            (held.codes().as_str(), held.source.as_str()),
            ("IM", "FIDE list")
        );
        // A later TRF does not overrule a list; a list without a title takes none away; a
        // women's title joins the open one.
        store
            .note_fide_titles(vec![(1, title("f", "2025-11-01", "TRF of late"))])
            .expect("note");
        assert_eq!(
            store.fide_title(1).expect("read").expect("held").codes(),
            "IM"
        );
        store
            .note_fide_titles(vec![
                (1, title("", "2025-12-01", "FIDE list")),
                (1, title("wg", "2025-12-01", "FIDE list")),
            ])
            .expect("note");
        assert_eq!(
            store.fide_title(1).expect("read").expect("held").codes(),
            "IM WGM"
        );
        // In one batch the newest list wins, whatever the order the files came in.
        store
            .note_fide_titles(vec![
                (3, title("GM", "2026-02-01", "FIDE list")),
                (3, title("IM", "2026-01-01", "FIDE list")),
            ])
            .expect("note");
        assert_eq!(
            store.fide_title(3).expect("read").expect("held").codes(),
            "GM"
        );
    }
}
