//! Large audit entries stored in chunks (schema 5). An import of a federation is one audit
//! entry of a hundred megabytes and more, packed; stored whole it sat in the newest leaf of the
//! audit tree, which every later edit writes its entry into. sled holds a leaf of up to 16
//! records as one page, and a page over a quarter of its segment as a file of its own
//! (`blobs/`) that it writes again whole whenever it consolidates the page: the first edits
//! after an import of a million players read the 113 MB leaf (0.3 s), and every tenth wrote
//! it again (0.6 s); and sled's cache, which counts such a page at the size of its pointer,
//! kept it in memory for the rest of the session.
//!
//! An entry larger than [`CHUNK_ABOVE`] is now stored as chunks of [`CHUNK_BYTES`] in the
//! tree `audit_chunks`, under its key followed by the chunk's number, and the audit tree holds
//! a marker in its place: what the entry's bytes are long, and in how many chunks. A chunk is
//! small enough that a leaf of them is an ordinary page. The chunks are written before the
//! transaction that stores the marker, so an edit that fails after them leaves chunks no
//! marker names; they are removed when the number is used again, by an entry of any size.

use std::borrow::Cow;

use super::{Store, StoreError, codec};

/// Entries whose stored bytes are longer than this are stored in chunks.
pub(super) const CHUNK_ABOVE: usize = 64 * 1024;

/// The bytes of a chunk: a leaf of sled (up to 17 records before it splits) stays well under
/// the 128 KiB above which sled makes a page a file of its own. A marker names its chunks'
/// count and its length, not this size: entries stored in chunks of another size read as well.
pub(super) const CHUNK_BYTES: usize = 6 * 1024;

/// Chunks written in one batch.
const CHUNKS_A_BATCH: usize = 512;

/// `meta`'s key while [`Store::migrate_to_5`] is under way: an opening cut short runs it again.
const MIGRATING: &str = "migrating_to_5";

/// How a marker starts: a byte no record's encoding starts with (bincode's first byte of a
/// record's variant is below 251; a packed record starts with zstd's magic number).
const MARKER: &[u8] = b"\xffchunks";

/// The marker stored in the audit tree for an entry of `len` bytes in `count` chunks.
fn marker(len: usize, count: u32) -> Vec<u8> {
    let mut m = MARKER.to_vec();
    m.extend_from_slice(&(len as u64).to_be_bytes());
    m.extend_from_slice(&count.to_be_bytes());
    m
}

/// The length and number of chunks a marker names (`None`: the value is the entry itself).
pub(super) fn chunked(value: &[u8]) -> Option<(u64, u32)> {
    let rest = value.strip_prefix(MARKER)?;
    let (len, count) = rest.split_at_checked(8)?;
    Some((
        u64::from_be_bytes(len.try_into().ok()?),
        u32::from_be_bytes(count.try_into().ok()?),
    ))
}

/// The key of chunk `i` of the entry under `key`.
fn chunk_key(key: &[u8], i: u32) -> Vec<u8> {
    let mut k = key.to_vec();
    k.extend_from_slice(&i.to_be_bytes());
    k
}

impl Store {
    /// What the audit tree stores for an entry of `stored` bytes under `key`, its chunks a
    /// failed edit or an opening cut short left under the key removed first. Not flushed.
    pub(super) fn audit_value(&self, key: &[u8], stored: Vec<u8>) -> Result<Vec<u8>, StoreError> {
        self.remove_audit_chunks(key)?;
        self.chunked_value(key, stored)
    }

    /// [`Store::audit_value`] for an entry to be stored under `key`, refused before anything is
    /// written when the number is taken (its chunks, if it has any, are then left as they are).
    /// A small entry under a number without chunks (every keyed result) is stored as it is at
    /// the cost of one look-up: the transaction that stores it refuses a taken number.
    pub(super) fn new_audit_value(
        &self,
        key: &[u8],
        stored: Vec<u8>,
    ) -> Result<Vec<u8>, StoreError> {
        let stale = self.audit_chunks.scan_prefix(key).next().is_some();
        if stored.len() <= CHUNK_ABOVE && !stale {
            return Ok(stored);
        }
        if self.audit.get(key).map_err(|e| self.fail(e))?.is_some() {
            return Err(self.fail(sled::transaction::TransactionError::Abort(
                super::already_stored(key),
            )));
        }
        if stale {
            self.remove_audit_chunks(key)?;
        }
        self.chunked_value(key, stored)
    }

    /// The bytes, or, when they are large, a marker, the chunks written first under `key`.
    fn chunked_value(&self, key: &[u8], stored: Vec<u8>) -> Result<Vec<u8>, StoreError> {
        if stored.len() <= CHUNK_ABOVE {
            return Ok(stored);
        }
        // A few hundred chunks a batch: nothing names them until the marker is stored, so they
        // need not be written at once, and an import's hundred megabytes are not copied into
        // one batch.
        let mut count = 0u32;
        for part in stored.chunks(CHUNK_BYTES * CHUNKS_A_BATCH) {
            let mut batch = sled::Batch::default();
            for chunk in part.chunks(CHUNK_BYTES) {
                batch.insert(chunk_key(key, count), chunk);
                count += 1;
            }
            self.audit_chunks
                .apply_batch(batch)
                .map_err(|e| self.fail(e))?;
        }
        Ok(marker(stored.len(), count))
    }

    /// The stored bytes of the entry under `key` whose audit tree value is `value`: the value
    /// itself, or the chunks a marker names put together.
    pub(super) fn audit_bytes<'v>(
        &self,
        key: &[u8],
        value: &'v [u8],
    ) -> Result<Cow<'v, [u8]>, StoreError> {
        let Some((len, count)) = chunked(value) else {
            return Ok(Cow::Borrowed(value));
        };
        let damaged = |detail: String| {
            self.corrupt(
                &format!("audit entry {}", codec::id_of(key).unwrap_or(0)),
                &detail,
            )
        };
        let len = usize::try_from(len).map_err(|e| damaged(e.to_string()))?;
        let mut bytes = Vec::with_capacity(len);
        let chunks = self
            .audit_chunks
            .range(chunk_key(key, 0)..chunk_key(key, count));
        for (i, chunk) in chunks.enumerate() {
            let (k, v) = chunk.map_err(|e| self.fail(e))?;
            if k != chunk_key(key, i as u32) {
                return Err(damaged(format!("chunk {i} of {count} is missing")));
            }
            bytes.extend_from_slice(&v);
        }
        if bytes.len() != len {
            return Err(damaged(format!(
                "its chunks hold {} of its {len} bytes",
                bytes.len()
            )));
        }
        Ok(Cow::Owned(bytes))
    }

    /// Removes the chunks of the entry under `key`, if it has any. Not flushed.
    pub(super) fn remove_audit_chunks(&self, key: &[u8]) -> Result<(), StoreError> {
        let mut batch = sled::Batch::default();
        for old in self.audit_chunks.scan_prefix(key).keys() {
            batch.remove(old.map_err(|e| self.fail(e))?);
        }
        self.audit_chunks
            .apply_batch(batch)
            .map_err(|e| self.fail(e))
    }

    /// Schema 5: the audit entries stored whole and larger than [`CHUNK_ABOVE`] stored in
    /// chunks. The schema is raised first, so that a version that cannot read a marker refuses
    /// the database, with a mark in the same batch that the migration is under way: an opening
    /// cut short leaves the rest of the entries whole, which read as well, and the next opening
    /// runs it again (chunks written for an entry not yet replaced by its marker are written
    /// again). Whether to run it: the schema found, and the mark.
    pub(super) fn migrate_to_5(&self, found_schema: u64) -> Result<(), StoreError> {
        let under_way = self
            .meta
            .get(MIGRATING)
            .map_err(|e| self.fail(e))?
            .is_some();
        if found_schema >= 5 && !under_way {
            return Ok(());
        }
        let mut start = sled::Batch::default();
        start.insert("schema", &5u64.to_be_bytes());
        start.insert(MIGRATING, &[]);
        self.meta.apply_batch(start).map_err(|e| self.fail(e))?;
        self.flush()?;
        // An entry at a time as it is read: an import's entry is a hundred megabytes.
        for item in self.audit.iter() {
            let (key, value) = item.map_err(|e| self.fail(e))?;
            if value.len() <= CHUNK_ABOVE || chunked(&value).is_some() {
                continue;
            }
            let stored = self.audit_value(&key, value.to_vec())?;
            self.audit.insert(&key, stored).map_err(|e| self.fail(e))?;
        }
        self.flush()?;
        self.meta.remove(MIGRATING).map_err(|e| self.fail(e))?;
        self.flush()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::book::{Book, Change};
    use crate::rules::ssl::Ssl;
    use crate::store::{AuditEntry, AuditKind, SCHEMA_VERSION};

    /// An entry whose action is `len` letters that do not compress much (packed, still above
    /// [`CHUNK_ABOVE`] for 200 000 of them).
    fn entry(seq: u64, len: usize) -> AuditEntry<Ssl> {
        let mut x = seq.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let action = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b'a' + (x % 26) as u8)
            })
            .collect();
        entry_of(seq, action)
    }

    /// An edit's entry that changes nothing, named `action`.
    pub(in crate::store) fn entry_of(seq: u64, action: String) -> AuditEntry<Ssl> {
        AuditEntry {
            seq,
            time: 1_700_000_000,
            user: "officer".into(),
            action,
            kind: AuditKind::Edit,
            change: Change::default(),
            prev: None,
        }
    }

    /// A database whose `meta` says `schema`, with audit entries stored as `entries` give
    /// them (sequence number, bytes), as a version of that schema left it.
    pub(in crate::store) fn old_database(
        db: &std::path::Path,
        schema: u64,
        entries: &[(u64, Vec<u8>)],
    ) {
        let store = Store::open(db, "ssl").expect("open");
        for (seq, bytes) in entries {
            store
                .audit
                .insert(codec::key(*seq), &bytes[..])
                .expect("insert");
        }
        store
            .meta
            .insert("schema", &schema.to_be_bytes())
            .expect("schema");
        store.flush().expect("flush");
    }

    /// What the audit tree holds under entry `seq`.
    fn value(store: &Store, seq: u64) -> sled::IVec {
        store
            .audit
            .get(codec::key(seq))
            .expect("read")
            .expect("there")
    }

    fn stored_chunks(store: &Store, seq: u64) -> usize {
        store.audit_chunks.scan_prefix(codec::key(seq)).count()
    }

    fn committed(store: &Store, entries: Vec<AuditEntry<Ssl>>) -> Vec<AuditEntry<Ssl>> {
        let mut entries = entries;
        store.commit_all(&mut entries, &[]).expect("committed");
        store.flush().expect("flushed");
        entries
    }

    #[test]
    fn a_large_audit_entry_is_stored_in_chunks_and_reads_back_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("db");
        let entries = {
            let store = Store::open(&db, "ssl").expect("open");
            let entries = committed(&store, vec![entry(1, 200_000), entry(2, 100)]);
            let (len, count) = chunked(&value(&store, 1)).expect("a marker in the audit tree");
            assert!(len as usize > CHUNK_ABOVE, "{len} bytes");
            assert_eq!(stored_chunks(&store, 1), count as usize);
            assert_eq!(
                chunked(&value(&store, 2)),
                None,
                "a small entry is stored whole"
            );
            assert_eq!(stored_chunks(&store, 2), 0);
            entries
        };
        let store = Store::open(&db, "ssl").expect("reopen");
        assert_eq!(store.audit_entries::<Ssl>().expect("read"), entries);
        assert_eq!(
            store.audit_entry::<Ssl>(1).expect("read"),
            Some(entries[0].clone())
        );
        // The dump of the record holds the entry whole, and reads back as it was.
        let mut dump = Vec::new();
        let book = Book::<Ssl>::default();
        super::super::backup::write("ssl", (&book, &[], &[]), &store, None, &mut dump)
            .expect("dumped");
        let read = super::super::backup::read::<Ssl>("ssl", &dump[..]).expect("read back");
        assert_eq!(read.audit, entries);
        // Restored into another database, it is stored in chunks there too.
        let other = Store::open(&dir.path().join("restored"), "ssl").expect("open");
        other
            .restore(read.change, &read.audit, &read.moves)
            .expect("restored");
        assert!(chunked(&value(&other, 1)).is_some());
        assert_eq!(other.audit_entries::<Ssl>().expect("read"), entries);
    }

    #[test]
    fn a_chunk_gone_is_damage_named_with_its_entry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("db"), "ssl").expect("open");
        committed(&store, vec![entry(1, 200_000)]);
        store
            .audit_chunks
            .remove(chunk_key(&codec::key(1), 3))
            .expect("removed");
        match store.audit_entry::<Ssl>(1) {
            Err(StoreError::Corrupt { detail, .. }) => {
                assert!(
                    detail.contains("audit entry 1") && detail.contains("chunk 3"),
                    "{detail}"
                );
            }
            other => panic!("read as {other:?}"),
        }
    }

    /// A new database holding what an edit stopped after writing its chunks leaves: `chunks`
    /// chunks under entry 1, no marker.
    fn with_stale_chunks(chunks: usize) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("db"), "ssl").expect("open");
        store
            .audit_value(&codec::key(1), vec![9; CHUNK_BYTES * chunks])
            .expect("chunks written");
        (dir, store)
    }

    #[test]
    fn chunks_a_failed_edit_left_are_replaced_when_its_number_is_used_again() {
        // More of them than the next entry has.
        let (_dir, store) = with_stale_chunks(40);
        let entries = committed(&store, vec![entry(1, 150_000)]);
        let (_, count) = chunked(&value(&store, 1)).expect("a marker");
        assert!((count as usize) < 40);
        assert_eq!(
            stored_chunks(&store, 1),
            count as usize,
            "the old chunks are gone"
        );
        assert_eq!(store.audit_entries::<Ssl>().expect("read"), entries);
    }

    #[test]
    fn chunks_a_failed_edit_left_go_when_a_small_entry_takes_its_number() {
        let (_dir, store) = with_stale_chunks(3);
        let entries = committed(&store, vec![entry(1, 100)]);
        assert_eq!(chunked(&value(&store, 1)), None);
        assert_eq!(
            stored_chunks(&store, 1),
            0,
            "the chunks no marker names are gone"
        );
        assert_eq!(store.audit_entries::<Ssl>().expect("read"), entries);
    }

    /// A migration cut short after the schema was raised: its mark makes the next opening run
    /// it again.
    #[test]
    fn a_migration_to_chunks_cut_short_runs_again_at_the_next_opening() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("db");
        let large = entry(1, 200_000);
        let whole = codec::encode_packed(&large).expect("encoded");
        old_database(&db, 5, &[(1, whole.clone())]);
        {
            let store = Store::open(&db, "ssl").expect("open");
            assert_eq!(
                value(&store, 1),
                whole,
                "a schema 5 database is not migrated again"
            );
            store.meta.insert(MIGRATING, &[]).expect("mark");
            store.flush().expect("flush");
        }
        let store = Store::open(&db, "ssl").expect("reopen, migrating again");
        assert!(chunked(&value(&store, 1)).is_some());
        assert_eq!(store.meta.get(MIGRATING).expect("read"), None, "done");
        assert_eq!(store.audit_entries::<Ssl>().expect("read"), vec![large]);
    }

    #[test]
    fn a_large_entry_whose_number_is_taken_is_refused_before_its_chunks_are_written() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(&dir.path().join("db"), "ssl").expect("open");
        let entries = committed(&store, vec![entry(1, 200_000)]);
        let chunks = stored_chunks(&store, 1);
        let err = store
            .commit_all(&mut [entry(1, 300_000)], &[])
            .expect_err("refused");
        assert!(err.to_string().contains("already stored"), "{err}");
        assert_eq!(stored_chunks(&store, 1), chunks);
        assert_eq!(store.audit_entries::<Ssl>().expect("read"), entries);
    }

    /// Schema 4 stored every entry whole. Opened by this version, its large entries are put in
    /// chunks and read as they did, and the schema says so.
    #[test]
    fn a_schema_4_database_has_its_large_audit_entries_put_in_chunks_when_opened() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("db");
        let (large, small) = (entry(1, 200_000), entry(2, 100));
        let whole = |e: &AuditEntry<Ssl>| (e.seq, codec::encode_packed(e).expect("encoded"));
        old_database(&db, 4, &[whole(&large), whole(&small)]);
        let store = Store::open(&db, "ssl").expect("reopen, migrating");
        assert_eq!(store.counter("schema").expect("schema"), SCHEMA_VERSION);
        assert!(
            chunked(&value(&store, 1)).is_some(),
            "the large entry in chunks"
        );
        assert!(chunked(&value(&store, 2)).is_none(), "the small one whole");
        assert_eq!(
            store.audit_entries::<Ssl>().expect("read"),
            vec![large, small]
        );
    }

    #[test]
    fn a_marker_names_its_length_and_chunks_and_no_record_reads_as_one() {
        let m = marker(100_000, 17);
        assert_eq!(chunked(&m), Some((100_000, 17)));
        assert_eq!(chunked(&m[..m.len() - 1]), None, "cut short");
        assert_eq!(chunked(b"\xffchunk"), None);
        assert_eq!(chunked(&codec::encode(&"an entry").expect("encoded")), None);
        let packed = codec::pack(vec![7; CHUNK_ABOVE * 2]).expect("packed");
        assert_eq!(chunked(&packed), None);
    }

    #[test]
    fn chunks_are_numbered_after_the_key_in_their_order() {
        let key = codec::key(3);
        assert!(chunk_key(&key, 0) < chunk_key(&key, 1));
        assert!(chunk_key(&key, 255) < chunk_key(&key, 256));
        assert!(chunk_key(&key, u32::MAX) < chunk_key(&codec::key(4), 0));
        assert!(chunk_key(&key, 0).starts_with(&key));
    }
}
