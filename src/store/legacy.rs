//! Record layouts of earlier versions, read once and upgraded: V1 events carried a `playoff`
//! flag and no `received` date; V1 and V2 audit entries carried no link to the entry before
//! them. Only the store's decoder uses these.

use chrono::NaiveDate;
use serde::Deserialize;

use super::records::{AuditEntry, AuditKind};
use crate::book::{Change, Delta, EventRecord, GameKey, PlayerRecord};
use crate::model::{Event, Game, PlayerIdx, TimeControl};
use crate::rules::Rulebook;

/// A V1 event: `playoff` flagged a play-off without naming the event it decides.
#[derive(Deserialize)]
struct EventV1 {
    id: String,
    name: String,
    #[serde(with = "crate::model::day")]
    start: NaiveDate,
    #[serde(with = "crate::model::day")]
    end: NaiveDate,
    time_control: Option<TimeControl>,
    abroad: bool,
    official_representation: bool,
    age_limit: Option<u32>,
    /// Read and dropped: a V1 play-off did not say which event it decides, so it is rated on
    /// the list of its own time control like any event (SSL 2.10 as read since V2).
    #[allow(dead_code)]
    playoff: bool,
    pairing: String,
    participants: Vec<PlayerIdx>,
    games: Vec<Game>,
}

impl From<EventV1> for Event {
    fn from(e: EventV1) -> Self {
        Event {
            id: e.id,
            name: e.name,
            start: e.start,
            end: e.end,
            time_control: e.time_control,
            abroad: e.abroad,
            official_representation: e.official_representation,
            age_limit: e.age_limit,
            playoff_of: None,
            pairing: e.pairing,
            received: None,
            participants: e.participants,
            games: e.games,
        }
    }
}

/// A V1 event record.
#[derive(Deserialize)]
pub(super) struct EventRecordV1 {
    event: EventV1,
    live: bool,
}

impl From<EventRecordV1> for EventRecord {
    fn from(r: EventRecordV1) -> Self {
        EventRecord {
            event: r.event.into(),
            live: r.live,
        }
    }
}

#[derive(Deserialize)]
#[serde(bound = "")]
struct ChangeV1<R: Rulebook> {
    players: Vec<Delta<PlayerIdx, PlayerRecord<R>>>,
    events: Vec<Delta<usize, EventRecordV1>>,
    games: Vec<Delta<GameKey, Game>>,
}

/// A V1 audit entry: its event records are V1.
#[derive(Deserialize)]
#[serde(bound = "")]
pub(super) struct AuditEntryV1<R: Rulebook> {
    seq: u64,
    time: i64,
    user: String,
    action: String,
    kind: AuditKind,
    change: ChangeV1<R>,
}

impl<R: Rulebook> From<AuditEntryV1<R>> for AuditEntry<R> {
    fn from(a: AuditEntryV1<R>) -> Self {
        let upgrade = |d: Delta<usize, EventRecordV1>| Delta {
            key: d.key,
            before: d.before.map(Into::into),
            after: d.after.map(Into::into),
        };
        AuditEntry {
            seq: a.seq,
            time: a.time,
            user: a.user,
            action: a.action,
            kind: a.kind,
            change: Change {
                players: a.change.players,
                events: a.change.events.into_iter().map(upgrade).collect(),
                games: a.change.games,
            },
            prev: None,
        }
    }
}

/// A V2 audit entry: the layout of today's without the link to the entry before it.
#[derive(Deserialize)]
#[serde(bound = "")]
pub(super) struct AuditEntryV2<R: Rulebook> {
    seq: u64,
    time: i64,
    user: String,
    action: String,
    kind: AuditKind,
    change: Change<R>,
}

impl<R: Rulebook> From<AuditEntryV2<R>> for AuditEntry<R> {
    fn from(a: AuditEntryV2<R>) -> Self {
        AuditEntry {
            seq: a.seq,
            time: a.time,
            user: a.user,
            action: a.action,
            kind: a.kind,
            change: a.change,
            prev: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    use super::*;
    use crate::rules::ssl::Ssl;
    use crate::store::codec;

    /// The V1 layout as the previous version wrote it.
    #[derive(Serialize)]
    struct WrittenV1 {
        id: String,
        name: String,
        #[serde(with = "crate::model::day")]
        start: NaiveDate,
        #[serde(with = "crate::model::day")]
        end: NaiveDate,
        time_control: Option<TimeControl>,
        abroad: bool,
        official_representation: bool,
        age_limit: Option<u32>,
        playoff: bool,
        pairing: String,
        participants: Vec<PlayerIdx>,
        games: Vec<Game>,
    }

    fn written(id: &str) -> WrittenV1 {
        let day = NaiveDate::from_ymd_opt(2024, 5, 4).expect("date");
        WrittenV1 {
            id: id.into(),
            name: "Kevät".into(),
            start: day,
            end: day,
            time_control: None,
            abroad: false,
            official_representation: false,
            age_limit: Some(14),
            playoff: true,
            pairing: "swiss".into(),
            participants: vec![0, 1],
            games: Vec::new(),
        }
    }

    fn v1_bytes<T: Serialize>(value: &T) -> Vec<u8> {
        bincode::serde::encode_to_vec(codec::Versioned::V1(value), bincode::config::standard())
            .expect("encode")
    }

    #[derive(Serialize)]
    struct RecordV1 {
        event: WrittenV1,
        live: bool,
    }

    #[test]
    fn an_event_record_of_the_previous_layout_is_read_and_upgraded() {
        let bytes = v1_bytes(&RecordV1 {
            event: written("e1"),
            live: true,
        });
        let rec: EventRecord =
            codec::decode_upgrading::<_, EventRecordV1>(&bytes).expect("upgraded");
        assert_eq!(rec.event.id, "e1");
        assert_eq!(rec.event.age_limit, Some(14));
        assert_eq!(rec.event.participants, vec![0, 1]);
        assert_eq!(rec.event.playoff_of, None);
        assert_eq!(rec.event.received, None);
        assert!(rec.live);
        // Written again, it is a V2 record that reads back as it is.
        let again = codec::encode(&rec).expect("encode");
        assert_eq!(
            codec::decode_upgrading::<EventRecord, EventRecordV1>(&again).expect("v2"),
            rec
        );
    }

    #[test]
    fn an_audit_entry_of_the_previous_layout_keeps_its_events() {
        #[derive(Serialize)]
        struct DeltaV1 {
            key: usize,
            before: Option<RecordV1>,
            after: Option<RecordV1>,
        }
        #[derive(Serialize)]
        struct ChangeW {
            players: Vec<Delta<PlayerIdx, PlayerRecord<Ssl>>>,
            events: Vec<DeltaV1>,
            games: Vec<Delta<GameKey, Game>>,
        }
        #[derive(Serialize)]
        struct EntryW {
            seq: u64,
            time: i64,
            user: String,
            action: String,
            kind: AuditKind,
            change: ChangeW,
        }
        let bytes = v1_bytes(&EntryW {
            seq: 7,
            time: 1_700_000_000,
            user: "officer".into(),
            action: "import".into(),
            kind: AuditKind::Edit,
            change: ChangeW {
                players: Vec::new(),
                events: vec![DeltaV1 {
                    key: 3,
                    before: None,
                    after: Some(RecordV1 {
                        event: written("e3"),
                        live: true,
                    }),
                }],
                games: Vec::new(),
            },
        });
        let entry: AuditEntry<Ssl> =
            codec::decode_upgrading::<_, AuditEntryV1<Ssl>>(&bytes).expect("upgraded");
        assert_eq!(entry.seq, 7);
        assert_eq!(entry.change.events.len(), 1);
        let after = entry.change.events[0].after.as_ref().expect("after");
        assert_eq!(after.event.id, "e3");
        assert_eq!(after.event.playoff_of, None);
    }

    #[test]
    fn a_database_written_before_the_chain_opens_and_its_next_entry_links_to_it() {
        #[derive(Serialize)]
        struct EntryV2 {
            seq: u64,
            time: i64,
            user: String,
            action: String,
            kind: AuditKind,
            change: Change<Ssl>,
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("db");
        let old = EntryV2 {
            seq: 1,
            time: 1_700_000_000,
            user: "officer".into(),
            action: "an edit of the previous version".into(),
            kind: AuditKind::Edit,
            change: Change::default(),
        };
        {
            let store = crate::store::Store::open(&db, "ssl").expect("open");
            // As the previous version stored it: a V2 record without a link.
            let bytes = bincode::serde::encode_to_vec(
                codec::Versioned::V2(&old),
                bincode::config::standard(),
            )
            .expect("encode");
            store.audit.insert(codec::key(1), bytes).expect("insert");
            store.flush().expect("flush");
        }
        let store = crate::store::Store::open(&db, "ssl").expect("reopen");
        let read: AuditEntry<Ssl> = store.audit_entry(1).expect("read").expect("there");
        assert_eq!(read.action, old.action);
        assert_eq!(read.prev, None);
        let mut next = AuditEntry::<Ssl> {
            seq: store.next_seq().expect("seq"),
            time: 1_700_000_100,
            user: "officer".into(),
            action: "an edit of this version".into(),
            kind: AuditKind::Edit,
            change: Change::default(),
            prev: None,
        };
        store.commit_all(&mut [next.clone()], &[]).expect("commit");
        next.prev = Some(read.hash());
        assert_eq!(store.audit_entry::<Ssl>(2).expect("read"), Some(next));
    }
}
