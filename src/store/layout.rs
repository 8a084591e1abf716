//! How events and results are laid out on disk. Since schema 2 an event is one record holding
//! its details and its games together (a national federation's million games are some seven
//! thousand records instead of a million), and a unit's result is one record with its states
//! and awards, and its ratings as bytes of their own, read only when they are shown. An edit's
//! game changes rewrite their event's record, made as `Change::apply` makes the event in
//! memory, so the games keep the same order on disk as in memory. A database of schema 1
//! (events and games in separate trees, results whole) is migrated when it is opened.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Store, StoreError, codec, legacy, row_layout};
use crate::book::{Change, EventRecord};
use crate::ledger::{Ratings, UnitResult};
use crate::model::Game;
use crate::rules::{Award, PlayerRating, Rulebook, States};

/// A unit's result as stored: its ratings are a record of their own inside it.
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub(super) struct StoredUnit<R: Rulebook> {
    states: States<R::State>,
    awards: Vec<Award<R::Award>>,
    ratings: codec::Bytes,
}

/// The same, written from a unit in memory (same layout, nothing copied).
#[derive(Serialize)]
#[serde(bound = "")]
struct StoredUnitRef<'a, R: Rulebook> {
    states: &'a States<R::State>,
    awards: &'a [Award<R::Award>],
    ratings: codec::BytesRef<'a>,
}

/// Reads a unit's stored ratings (when they are first shown), compressed when large
/// ([`codec::pack`]; schema 3 stored them as encoded): in columns since schema 6, with their
/// performances and figures too since schema 7 ([`row_layout`]), before it a record of their
/// sequence.
fn decode_ratings<D: serde::de::DeserializeOwned + crate::rules::FlatFigures>(
    bytes: &[u8],
) -> Option<Vec<PlayerRating<D>>> {
    codec::with_unpacked(bytes, |bytes| {
        if row_layout::in_columns(bytes) {
            row_layout::decode(bytes).ok()
        } else {
            codec::decode(bytes).ok()
        }
    })
    .ok()
    .flatten()
}

/// A unit's ratings as they are stored: in columns ([`row_layout`]), packed when large.
pub(super) fn encode_ratings<D: Serialize + crate::rules::FlatFigures + PartialEq>(
    ratings: &Ratings<D>,
) -> Result<Vec<u8>, codec::CodecError> {
    codec::pack(row_layout::encode(ratings.into_iter())?)
}

/// A unit's result in memory, written in the layout it is stored in ([`StoredUnit`]) inside
/// another record: ratings still unread are written as the bytes they were read from, and
/// ratings in memory are encoded and packed as they would be stored — none is read (and
/// kept) to be written.
pub(super) struct AsStored<'a, R: Rulebook>(pub &'a UnitResult<R>);

impl<R: Rulebook> Serialize for AsStored<'_, R> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let unit = self.0;
        let encoded;
        let ratings = match unit.ratings.bytes() {
            Some(bytes) => bytes,
            None => {
                encoded = encode_ratings(&unit.ratings).map_err(serde::ser::Error::custom)?;
                &encoded
            }
        };
        StoredUnitRef::<R> {
            states: &unit.states,
            awards: &unit.awards,
            ratings: codec::BytesRef(ratings),
        }
        .serialize(s)
    }
}

/// A unit's result as stored.
pub(super) fn encode_unit<R: Rulebook>(unit: &UnitResult<R>) -> Result<Vec<u8>, codec::CodecError> {
    codec::encode(&AsStored(unit))
}

/// A unit's stored result, its ratings left to read when shown.
pub(super) fn decode_unit<R: Rulebook>(bytes: &[u8]) -> Result<UnitResult<R>, codec::CodecError> {
    codec::decode(bytes).map(StoredUnit::into_unit)
}

impl<R: Rulebook> StoredUnit<R> {
    /// The unit in memory, its ratings left to read when shown.
    pub(super) fn into_unit(self) -> UnitResult<R> {
        UnitResult {
            ratings: Ratings::stored(
                self.ratings.0.into_boxed_slice(),
                decode_ratings::<R::Detail>,
            ),
            states: self.states,
            awards: self.awards,
        }
    }
}

/// The `meta` key of the audit entry the stored results follow from.
pub(super) const RATED_SEQ: &str = "rated_seq";

/// The `meta` key of the revision of the rules the stored results were rated by
/// ([`crate::rules::RULES_REVISION`]): results of another revision are rated again.
pub(super) const RATED_BY: &str = "rated_by";

/// The `meta` key of the audit entry [`RATED_BY`] was written with: a version that does not
/// know the stamp writes results without it, and leaves this behind [`RATED_SEQ`] — the
/// stamp then vouches for nothing and the results are rated again.
pub(super) const RATED_BY_SEQ: &str = "rated_by_seq";

/// The `meta` key of the newest audit entry whose rating moves were worked out by earlier
/// rules than these (the entry the results were rated again after): `check` does not hold
/// those moves to today's rules.
pub(super) const RULES_SINCE: &str = "rules_since";

impl Store {
    /// One stored event record (schema 2: with its games).
    pub(super) fn event_record(&self, e: usize) -> Result<Option<EventRecord>, StoreError> {
        let Some(bytes) = self
            .events
            .get(codec::key(e as u64))
            .map_err(|err| self.fail(err))?
        else {
            return Ok(None);
        };
        legacy::event_record(&bytes)
            .map(Some)
            .map_err(|err| self.corrupt(&format!("event record {e}"), &err))
    }

    /// The event records some changes write, in the order they are made: each event's record
    /// as it stands after them (`None`: removed), and how many games they add (less removed).
    pub(super) fn event_writes<R: Rulebook>(
        &self,
        changes: &[&Change<R>],
    ) -> Result<(BTreeMap<usize, Option<EventRecord>>, i64), StoreError> {
        let mut records: BTreeMap<usize, Option<EventRecord>> = BTreeMap::new();
        let mut games = 0i64;
        for change in changes {
            for d in &change.events {
                if let std::collections::btree_map::Entry::Vacant(slot) = records.entry(d.key) {
                    slot.insert(self.event_record(d.key)?);
                }
                let slot = records.entry(d.key).or_default();
                let kept = slot.take().map(|r| r.event.games).unwrap_or_default();
                *slot = d.after.as_ref().map(|rec| EventRecord {
                    event: crate::model::Event {
                        games: kept,
                        ..rec.event.clone()
                    },
                    live: rec.live,
                });
            }
            for d in &change.games {
                let (e, round, board) = d.key;
                if let std::collections::btree_map::Entry::Vacant(slot) = records.entry(e) {
                    slot.insert(self.event_record(e)?);
                }
                games += i64::from(d.after.is_some()) - i64::from(d.before.is_some());
                let Some(Some(record)) = records.get_mut(&e) else {
                    // The games of an event the same change removes go with it (an undone
                    // import).
                    if d.after.is_none() {
                        continue;
                    }
                    return Err(self.fail(format!(
                        "a game of event {e}, round {round}, which is not stored"
                    )));
                };
                let list = &mut record.event.games;
                list.retain(|g| (g.round, g.board) != (round, board));
                if let Some(g) = &d.after {
                    let at = list.partition_point(|x| (x.round, x.board) < (round, board));
                    list.insert(at, g.clone());
                }
            }
        }
        Ok((records, games))
    }

    /// Moves a database of schema 1 to schema 2: every event's games into its record, the
    /// separate games and the stored results (derived, of the old layout) cleared. Each step
    /// is flushed before the next, and the schema is raised only once every record is written,
    /// so a migration stopped anywhere is done again, or finished, at the next opening.
    pub(super) fn migrate_from_1(&self) -> Result<(), StoreError> {
        let mut games: BTreeMap<usize, Vec<Game>> = BTreeMap::new();
        for item in self.games.iter() {
            let (_, v) = item.map_err(|e| self.fail(e))?;
            let (event, game): (usize, Game) =
                legacy::game_record(&v).map_err(|e| self.corrupt("game record", &e))?;
            games.entry(event).or_default().push(game);
        }
        let mut batch = sled::Batch::default();
        for item in self.events.iter() {
            let (k, v) = item.map_err(|e| self.fail(e))?;
            let id = codec::id_of(&k).ok_or_else(|| self.corrupt("event key", &"short key"))?;
            let mut record: EventRecord =
                legacy::event_record(&v).map_err(|e| self.corrupt("event record", &e))?;
            record.event.games = games.remove(&(id as usize)).unwrap_or_default();
            batch.insert(k, codec::encode(&record).map_err(|e| self.fail(e))?);
        }
        if let Some(event) = games.keys().next() {
            return Err(self.corrupt("game record", &format!("event {event} is not stored")));
        }
        self.events.apply_batch(batch).map_err(|e| self.fail(e))?;
        self.db.flush().map_err(|e| self.fail(e))?;
        // Schema 2 from here: the old trees are no longer read, and the results are rated
        // again at this opening.
        let mut meta = sled::Batch::default();
        meta.insert("schema", &2u64.to_be_bytes());
        // Follows from no audit entry: everything is rated again when the desk opens.
        meta.insert(RATED_SEQ, &u64::MAX.to_be_bytes());
        self.meta.apply_batch(meta).map_err(|e| self.fail(e))?;
        self.db.flush().map_err(|e| self.fail(e))?;
        self.clear_old_trees()
    }

    /// Clears what schema 1 kept beside the records (left by a migration stopped after it
    /// raised the schema).
    pub(super) fn clear_old_trees(&self) -> Result<(), StoreError> {
        for tree in [&self.games, &self.old_results] {
            if !tree.is_empty() {
                tree.clear().map_err(|e| self.fail(e))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Desk, Edit};
    use crate::model::{Event, GameResult, PlayerInfo, player_u32};
    use crate::rules::ssl::{Ssl, SslState};
    use chrono::NaiveDate;

    /// Schema 1's key of a game: event, round, board.
    fn game_key(event: usize, round: u32, board: u32) -> Vec<u8> {
        let mut k = Vec::with_capacity(16);
        k.extend_from_slice(&(event as u64).to_be_bytes());
        k.extend_from_slice(&round.to_be_bytes());
        k.extend_from_slice(&board.to_be_bytes());
        k
    }

    /// Rewrites a database as schema 1 kept it: event records without their games, each game
    /// a record of its own `(event, game)`, results in the `results` tree, schema 1.
    fn as_schema_1(store: &Store) {
        let mut events = sled::Batch::default();
        for item in store.events.iter() {
            let (k, v) = item.expect("event");
            let mut record: EventRecord = codec::decode(&v).expect("record");
            let e = codec::id_of(&k).expect("key") as usize;
            for g in std::mem::take(&mut record.event.games) {
                let bytes = codec::encode(&(e, &g)).expect("game");
                store
                    .games
                    .insert(game_key(e, g.round, g.board), bytes)
                    .expect("insert");
            }
            events.insert(k, codec::encode(&record).expect("record"));
        }
        store.events.apply_batch(events).expect("events");
        for item in store.results.iter() {
            let (k, v) = item.expect("result");
            store.old_results.insert(k, v).expect("insert");
        }
        store.results.clear().expect("clear");
        store
            .meta
            .insert("schema", &1u64.to_be_bytes())
            .expect("schema");
        store.flush().expect("flush");
    }

    fn day(d: u32) -> NaiveDate {
        crate::model::fixture::ymd(2024, 3, d)
    }

    /// A stored Finnish unit with no states or awards, its ratings these bytes.
    fn unit_with_ratings(ratings: &[u8]) -> Vec<u8> {
        codec::encode(&StoredUnitRef::<Ssl> {
            states: &States::new(),
            awards: &[],
            ratings: codec::BytesRef(ratings),
        })
        .expect("encoded")
    }

    /// A unit's ratings are stored compressed when large, kept so (read on first use) and
    /// written again as they are; ratings stored as encoded (schema 3) read as well.
    #[test]
    fn a_units_large_ratings_are_stored_compressed_and_read_when_shown() {
        let rows: Vec<_> = (0..3_000)
            .map(|p| PlayerRating {
                new: 1000 + (p as i32 * 37) % 1500,
                games: (p % 9) as u32,
                ..crate::rules::a_row(p * 13, p % 7)
            })
            .collect();
        let unit = UnitResult::<Ssl> {
            ratings: Ratings::new(rows.clone()),
            states: States::new(),
            awards: Vec::new(),
        };
        let stored = encode_unit(&unit).expect("encode");
        let read = decode_unit::<Ssl>(&stored).expect("decode");
        let bytes = read.ratings.bytes().expect("not read yet");
        assert!(codec::is_packed(bytes), "{} bytes", bytes.len());
        assert_eq!(
            encode_unit(&read).expect("again"),
            stored,
            "written as read"
        );
        assert_eq!(read.ratings.iter().cloned().collect::<Vec<_>>(), rows);
        let plain = unit_with_ratings(&codec::encode(&unit.ratings).expect("as schema 3"));
        let read = decode_unit::<Ssl>(&plain).expect("decode");
        assert_eq!(read.ratings.iter().cloned().collect::<Vec<_>>(), rows);
        // Schemas 4 and 5 stored them as a packed record of their sequence.
        let packed = unit_with_ratings(&codec::encode_packed(&unit.ratings).expect("as schema 5"));
        let read = decode_unit::<Ssl>(&packed).expect("decode");
        let old_bytes = read.ratings.bytes().expect("not read yet");
        assert!(
            codec::unpack(old_bytes).expect("unpack")[0] < 16,
            "a version tag"
        );
        assert_eq!(read.ratings.iter().cloned().collect::<Vec<_>>(), rows);
        let new_bytes = decode_unit::<Ssl>(&stored).expect("decode");
        assert_eq!(
            codec::unpack(new_bytes.ratings.bytes().expect("unread")).expect("unpack")[0],
            row_layout::FLAT_TAG,
            "written in columns"
        );
        assert!(
            stored.len() < packed.len(),
            "{} bytes in columns, {} as a sequence",
            stored.len(),
            packed.len()
        );
    }

    /// A database of schema 5 is marked 7 when opened; the rows it stored read as they were.
    #[test]
    fn a_schema_5_database_is_raised_and_its_rows_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let rows: Vec<_> = (0..500).map(|p| crate::rules::a_row(p, p % 3)).collect();
        let id = (
            crate::rules::UnitKey {
                date: day(1),
                second: day(1),
                tag: "".into(),
            },
            0,
        );
        {
            let store = Store::open(dir.path(), "ssl").expect("open");
            let unit =
                unit_with_ratings(&codec::encode_packed(&rows).expect("as schema 5 stored them"));
            store
                .results
                .insert(store.result_key(&id).expect("key"), unit)
                .expect("insert");
            store
                .meta
                .insert("schema", &5u64.to_be_bytes())
                .expect("schema");
            store.flush().expect("flush");
        }
        let store = Store::open(dir.path(), "ssl").expect("reopen");
        assert_eq!(store.counter("schema").expect("schema"), 7);
        let units = store.stored_results::<Ssl>().expect("results");
        assert_eq!(units[&id].ratings.iter().cloned().collect::<Vec<_>>(), rows);
    }

    #[test]
    fn a_turkish_archive_shared_among_states_is_stored_as_the_list_it_was() {
        use crate::rules::tsf::{Archived, TsfState};
        // The layout a Turkish state was stored in while its archive was a list of its own.
        #[derive(Serialize)]
        enum AsStored {
            #[allow(dead_code)]
            Rated {
                rating: i32,
                games: u32,
            },
            Unrated {
                performances: Vec<Archived>,
            },
        }
        let archive = vec![
            Archived {
                performance: 1512,
                games: 4,
                event: Some("2025-izmir".into()),
            },
            Archived {
                performance: 1380,
                games: 2,
                event: None,
            },
        ];
        let shared = TsfState::Unrated {
            performances: archive.clone().into(),
        };
        let bytes = codec::encode(&shared).expect("encode");
        let stored = codec::encode(&AsStored::Unrated {
            performances: archive,
        })
        .expect("encode");
        assert_eq!(bytes, stored, "the same bytes");
        assert_eq!(codec::decode::<TsfState>(&stored).expect("decode"), shared);
    }

    fn event(id: &str, d: u32, games: &[(usize, usize, GameResult)]) -> Event {
        Event {
            name: id.into(),
            pairing: "swiss".into(),
            games: games
                .iter()
                .enumerate()
                .map(|(k, &(white, black, result))| Game {
                    round: 1 + k as u32 / 2,
                    board: 1 + k as u32 % 2,
                    white: player_u32(white),
                    black: Some(player_u32(black)),
                    result: Some(result),
                    date: None,
                    received: None,
                })
                .collect(),
            ..Event::new(id, day(d), day(d))
        }
    }

    #[test]
    fn a_database_of_the_previous_layout_opens_with_its_games_and_ratings() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (w, b, d) = (
            GameResult::WHITE_WINS,
            GameResult::BLACK_WINS,
            GameResult::DRAW,
        );
        let (book, ratings) = {
            let mut desk = Desk::open(dir.path(), Ssl).expect("open");
            for k in 0..4 {
                desk.apply(Edit::AddPlayer {
                    info: PlayerInfo {
                        id: format!("p{k}"),
                        name: format!("Player {k}"),
                        ..PlayerInfo::default()
                    },
                    seeds: vec![
                        Some(SslState {
                            rating: Some(1500 + 100 * k),
                            games: 40,
                            ..SslState::default()
                        }),
                        None,
                    ],
                    held: Vec::new(),
                })
                .expect("player");
            }
            let games = [(0, 1, w), (2, 3, d), (1, 2, b), (3, 0, w)];
            desk.apply(Edit::AddEvent(event("a", 2, &games)))
                .expect("event");
            desk.apply(Edit::AddEvent(event("b", 9, &games[..2])))
                .expect("event");
            desk.apply(Edit::SetResult {
                event: 0,
                round: 2,
                board: 1,
                result: Some(d),
            })
            .expect("correction");
            let ratings: Vec<_> = desk.ledger().ratings().cloned().collect();
            let book = format!("{:?}", desk.book());
            as_schema_1(desk.store());
            (book, ratings)
        };
        let desk = Desk::open(dir.path(), Ssl).expect("migrated");
        assert_eq!(format!("{:?}", desk.book()), book);
        assert_eq!(
            desk.ledger().ratings().cloned().collect::<Vec<_>>(),
            ratings
        );
        assert!(desk.check().is_empty());
        let store = desk.store();
        assert!(store.games.is_empty() && store.old_results.is_empty());
        assert_eq!(
            store.counter("schema").expect("schema"),
            super::super::SCHEMA_VERSION
        );
        let record = store.event_record(0).expect("read").expect("there");
        assert_eq!(
            record.event.games.len(),
            4,
            "the games are in their event's record"
        );
    }
}
