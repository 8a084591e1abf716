//! Record layouts of earlier versions, read once and upgraded: V1 events carried a `playoff`
//! flag and no `received` date; V1 and V2 audit entries carried no link to the entry before
//! them; V1 to V3 player records (and the audit entries that carry them) had no club; V1 to V4
//! games (and the event records and audit entries that carry them) had no receipt date of
//! their own; V1 to V5 player records (and the audit entries that carry them) had no
//! re-entries. Only the store's decoder uses these, through [`player_record`],
//! [`event_record`] and [`audit_entry`].

use chrono::NaiveDate;
use serde::Deserialize;

use super::codec::{self, CodecError};
use super::records::{AuditEntry, AuditKind, Link};
use crate::book::{Change, Delta, EventRecord, GameKey, PlayerRecord, PlayerStatus};
use crate::model::{
    Event, FideEntry, Game, GameResult, NationalEntry, PlayerIdx, PlayerInfo, Sex, TimeControl,
};
use crate::rules::{Award, Rulebook};

/// A stored player record, read in the layout its tag says and upgraded.
pub(super) fn player_record<R: Rulebook>(bytes: &[u8]) -> Result<PlayerRecord<R>, CodecError> {
    match codec::version(bytes) {
        Some(1..=3) => codec::decode_old::<_, PlayerRecordV1<R>>(bytes),
        Some(4..=5) => codec::decode_old::<_, PlayerRecordV4<R>>(bytes),
        _ => codec::decode(bytes),
    }
}

/// A stored audit entry, read in the layout its tag says and upgraded.
pub(super) fn audit_entry<R: Rulebook>(stored: &[u8]) -> Result<AuditEntry<R>, CodecError> {
    let bytes = &*codec::unpack(stored)?;
    match codec::version(bytes) {
        // V1: V1 events; V2, V3: players without a club (V3 linked); V4: games without a
        // receipt date of their own; V5: players without re-entries.
        Some(1) => codec::decode_old::<_, Unlinked<ChangeV1<R>>>(bytes),
        Some(2) => codec::decode_old::<_, Unlinked<ChangeV2<R>>>(bytes),
        Some(3) => codec::decode_old::<_, Linked<ChangeV2<R>>>(bytes),
        Some(4) => codec::decode_old::<_, Linked<ChangeV4<R>>>(bytes),
        Some(5) => codec::decode_old::<_, Linked<ChangeV5<R>>>(bytes),
        _ => codec::decode(bytes),
    }
}

/// A stored event record, read in the layout its tag says and upgraded.
pub(super) fn event_record(bytes: &[u8]) -> Result<EventRecord, CodecError> {
    match codec::version(bytes) {
        Some(1) => codec::decode_old::<_, EventRecordV1>(bytes),
        Some(2..=4) => codec::decode_old::<_, EventRecordV2>(bytes),
        _ => codec::decode(bytes),
    }
}

/// A game of V1 to V4: no receipt date of its own.
#[derive(Deserialize)]
struct GameV1 {
    round: u32,
    board: u32,
    white: u32,
    black: Option<u32>,
    result: Option<GameResult>,
    #[serde(with = "crate::model::day::option")]
    date: Option<NaiveDate>,
}

impl From<GameV1> for Game {
    fn from(g: GameV1) -> Self {
        Game {
            round: g.round,
            board: g.board,
            white: g.white,
            black: g.black,
            result: g.result,
            date: g.date,
            received: None,
        }
    }
}

/// A game record of schema 1's own games tree (V1 to V3): its event and the game, upgraded.
pub(super) fn game_record(bytes: &[u8]) -> Result<(usize, Game), CodecError> {
    match codec::version(bytes) {
        Some(1..=4) => codec::decode_old::<(usize, Game), GameRecordV1>(bytes),
        _ => codec::decode(bytes),
    }
}

/// A game record of schema 1: the event's number and the game.
#[derive(Deserialize)]
struct GameRecordV1(usize, GameV1);

impl From<GameRecordV1> for (usize, Game) {
    fn from(GameRecordV1(event, game): GameRecordV1) -> Self {
        (event, game.into())
    }
}

/// The games of an earlier layout, upgraded.
fn games(games: Vec<GameV1>) -> Vec<Game> {
    games.into_iter().map(Into::into).collect()
}

/// An event of V2 to V4: today's layout, its games without a receipt date.
#[derive(Deserialize)]
struct EventV2 {
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
    playoff_of: Option<String>,
    pairing: String,
    #[serde(with = "crate::model::day::option")]
    received: Option<NaiveDate>,
    participants: Vec<PlayerIdx>,
    games: Vec<GameV1>,
}

impl From<EventV2> for Event {
    fn from(e: EventV2) -> Self {
        Event {
            id: e.id,
            name: e.name,
            start: e.start,
            end: e.end,
            time_control: e.time_control,
            abroad: e.abroad,
            official_representation: e.official_representation,
            age_limit: e.age_limit,
            playoff_of: e.playoff_of,
            pairing: e.pairing,
            received: e.received,
            participants: e.participants,
            games: games(e.games),
        }
    }
}

/// An event record of V2 to V4.
#[derive(Deserialize)]
pub(super) struct EventRecordV2 {
    event: EventV2,
    live: bool,
}

impl From<EventRecordV2> for EventRecord {
    fn from(r: EventRecordV2) -> Self {
        EventRecord {
            event: r.event.into(),
            live: r.live,
        }
    }
}

/// One record before and after an edit, each upgraded.
fn upgrade<K, Old: Into<New>, New>(d: Delta<K, Old>) -> Delta<K, New> {
    Delta {
        key: d.key,
        before: d.before.map(Into::into),
        after: d.after.map(Into::into),
    }
}

/// A player's record before and after an edit, upgraded and kept apart from the list of
/// changes (as [`Change::players`] keeps it).
fn upgrade_player<Old: Into<New>, New>(d: Delta<PlayerIdx, Old>) -> Delta<PlayerIdx, Box<New>> {
    Delta {
        key: d.key,
        before: d.before.map(|r| Box::new(r.into())),
        after: d.after.map(|r| Box::new(r.into())),
    }
}

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
    games: Vec<GameV1>,
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
            games: games(e.games),
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

/// A player of V1 to V3: no club.
#[derive(Deserialize)]
struct PlayerInfoV1 {
    id: String,
    name: String,
    federation: Option<String>,
    fide_id: Option<u64>,
    #[serde(with = "crate::model::day::option")]
    born: Option<NaiveDate>,
    sex: Option<Sex>,
    fide: Vec<FideEntry>,
    national: Vec<NationalEntry>,
}

impl From<PlayerInfoV1> for PlayerInfo {
    fn from(p: PlayerInfoV1) -> Self {
        PlayerInfo {
            id: p.id,
            name: p.name,
            federation: p.federation,
            club: None,
            fide_id: p.fide_id,
            born: p.born,
            sex: p.sex,
            fide: p.fide,
            national: p.national,
            reentries: Vec::new(),
        }
    }
}

/// A player of V4 and V5: a club, no re-entries.
#[derive(Deserialize)]
struct PlayerInfoV4 {
    id: String,
    name: String,
    federation: Option<String>,
    club: Option<String>,
    fide_id: Option<u64>,
    #[serde(with = "crate::model::day::option")]
    born: Option<NaiveDate>,
    sex: Option<Sex>,
    fide: Vec<FideEntry>,
    national: Vec<NationalEntry>,
}

impl From<PlayerInfoV4> for PlayerInfo {
    fn from(p: PlayerInfoV4) -> Self {
        PlayerInfo {
            id: p.id,
            name: p.name,
            federation: p.federation,
            club: p.club,
            fide_id: p.fide_id,
            born: p.born,
            sex: p.sex,
            fide: p.fide,
            national: p.national,
            reentries: Vec::new(),
        }
    }
}

/// A player record of an earlier layout: today's record with its player of layout `I`.
#[derive(Deserialize)]
#[serde(bound(deserialize = "I: Deserialize<'de>"))]
struct PlayerRecordOf<R: Rulebook, I> {
    info: I,
    seeds: Vec<Option<R::State>>,
    held: Vec<Award<R::Award>>,
    confirmed: Vec<Award<R::Award>>,
    status: PlayerStatus,
}

impl<R: Rulebook, I: Into<PlayerInfo>> From<PlayerRecordOf<R, I>> for PlayerRecord<R> {
    fn from(r: PlayerRecordOf<R, I>) -> Self {
        PlayerRecord {
            info: r.info.into(),
            seeds: r.seeds,
            held: r.held,
            confirmed: r.confirmed,
            status: r.status,
        }
    }
}

/// A player record of V1 to V3: its player has no club.
type PlayerRecordV1<R> = PlayerRecordOf<R, PlayerInfoV1>;

/// A player record of V4 and V5: its player has no re-entries.
type PlayerRecordV4<R> = PlayerRecordOf<R, PlayerInfoV4>;

#[derive(Deserialize)]
#[serde(bound = "")]
struct ChangeV1<R: Rulebook> {
    players: Vec<Delta<PlayerIdx, PlayerRecordV1<R>>>,
    events: Vec<Delta<usize, EventRecordV1>>,
    games: Vec<Delta<GameKey, GameV1>>,
}

/// The change of a V2 or V3 audit entry: V2 events, players without a club, games without a
/// receipt date.
#[derive(Deserialize)]
#[serde(bound = "")]
struct ChangeV2<R: Rulebook> {
    players: Vec<Delta<PlayerIdx, PlayerRecordV1<R>>>,
    events: Vec<Delta<usize, EventRecordV2>>,
    games: Vec<Delta<GameKey, GameV1>>,
}

impl<R: Rulebook> From<ChangeV2<R>> for Change<R> {
    fn from(c: ChangeV2<R>) -> Self {
        Change {
            players: c.players.into_iter().map(upgrade_player).collect(),
            events: c.events.into_iter().map(upgrade).collect(),
            games: c.games.into_iter().map(upgrade).collect(),
        }
    }
}

/// The change of a V4 audit entry: players without re-entries, V2 events, games without a
/// receipt date.
#[derive(Deserialize)]
#[serde(bound = "")]
struct ChangeV4<R: Rulebook> {
    players: Vec<Delta<PlayerIdx, PlayerRecordV4<R>>>,
    events: Vec<Delta<usize, EventRecordV2>>,
    games: Vec<Delta<GameKey, GameV1>>,
}

impl<R: Rulebook> From<ChangeV4<R>> for Change<R> {
    fn from(c: ChangeV4<R>) -> Self {
        Change {
            players: c.players.into_iter().map(upgrade_player).collect(),
            events: c.events.into_iter().map(upgrade).collect(),
            games: c.games.into_iter().map(upgrade).collect(),
        }
    }
}

/// The change of a V5 audit entry: players without re-entries, today's events and games.
#[derive(Deserialize)]
#[serde(bound = "")]
struct ChangeV5<R: Rulebook> {
    players: Vec<Delta<PlayerIdx, PlayerRecordV4<R>>>,
    events: Vec<Delta<usize, EventRecord>>,
    games: Vec<Delta<GameKey, Game>>,
}

impl<R: Rulebook> From<ChangeV5<R>> for Change<R> {
    fn from(c: ChangeV5<R>) -> Self {
        Change {
            players: c.players.into_iter().map(upgrade_player).collect(),
            events: c.events,
            games: c.games,
        }
    }
}

impl<R: Rulebook> From<ChangeV1<R>> for Change<R> {
    fn from(c: ChangeV1<R>) -> Self {
        Change {
            players: c.players.into_iter().map(upgrade_player).collect(),
            events: c.events.into_iter().map(upgrade).collect(),
            games: c.games.into_iter().map(upgrade).collect(),
        }
    }
}

/// An audit entry of V1 or V2, written before entries carried the link to the one before
/// them, with its change in that version's layout `C`.
#[derive(Deserialize)]
pub(super) struct Unlinked<C> {
    seq: u64,
    time: i64,
    user: String,
    action: String,
    kind: AuditKind,
    change: C,
}

impl<R: Rulebook, C: Into<Change<R>>> From<Unlinked<C>> for AuditEntry<R> {
    fn from(a: Unlinked<C>) -> Self {
        AuditEntry {
            seq: a.seq,
            time: a.time,
            user: a.user,
            action: a.action,
            kind: a.kind,
            change: a.change.into(),
            prev: None,
        }
    }
}

/// An audit entry of V3 to V5, with its change in that version's layout `C`. Its link is the
/// hash of the entry before it as that entry's JSON was then, which is its JSON now: a player
/// without a club has no `club` key, a game without a receipt date of its own no `received`.
#[derive(Deserialize)]
pub(super) struct Linked<C> {
    seq: u64,
    time: i64,
    user: String,
    action: String,
    kind: AuditKind,
    change: C,
    prev: Option<Link>,
}

impl<R: Rulebook, C: Into<Change<R>>> From<Linked<C>> for AuditEntry<R> {
    fn from(a: Linked<C>) -> Self {
        AuditEntry {
            seq: a.seq,
            time: a.time,
            user: a.user,
            action: a.action,
            kind: a.kind,
            change: a.change.into(),
            prev: a.prev,
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

    fn v3_bytes<T: Serialize>(value: &T) -> Vec<u8> {
        bincode::serde::encode_to_vec(codec::Versioned::V3(value), bincode::config::standard())
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
        let rec: EventRecord = event_record(&bytes).expect("upgraded");
        assert_eq!(rec.event.id, "e1");
        assert_eq!(rec.event.age_limit, Some(14));
        assert_eq!(rec.event.participants, vec![0, 1]);
        assert_eq!(rec.event.playoff_of, None);
        assert_eq!(rec.event.received, None);
        assert!(rec.live);
        // Written again, it is a current record that reads back as it is.
        let again = codec::encode(&rec).expect("encode");
        assert_eq!(event_record(&again).expect("current"), rec);
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
        let entry: AuditEntry<Ssl> = audit_entry::<Ssl>(&bytes).expect("upgraded");
        assert_eq!(entry.seq, 7);
        assert_eq!(entry.change.events.len(), 1);
        let after = entry.change.events[0].after.as_ref().expect("after");
        assert_eq!(after.event.id, "e3");
        assert_eq!(after.event.playoff_of, None);
    }

    /// Schema 3 stored every audit entry as encoded. Opened by this version, its large entries
    /// are stored compressed, read as they did, and the schema says so: a version that cannot
    /// read them refuses the database.
    #[test]
    fn a_schema_3_database_has_its_large_audit_entries_compressed_when_opened() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("db");
        let entry = crate::store::chunks::tests::entry_of;
        let large = entry(1, "an import of many games; ".repeat(1_000));
        let small = entry(2, "a result".into());
        let plain = |e: &AuditEntry<Ssl>| (e.seq, codec::encode(e).expect("encode"));
        crate::store::chunks::tests::old_database(&db, 3, &[plain(&large), plain(&small)]);
        let store = crate::store::Store::open(&db, "ssl").expect("reopen, migrating");
        assert_eq!(
            store.counter("schema").expect("schema"),
            crate::store::SCHEMA_VERSION
        );
        let stored = |seq| {
            store
                .audit
                .get(codec::key(seq))
                .expect("get")
                .expect("there")
        };
        assert!(codec::is_packed(&stored(1)), "{} bytes", stored(1).len());
        assert_eq!(&stored(2)[..], &codec::encode(&small).expect("encode")[..]);
        for e in [large, small] {
            assert_eq!(store.audit_entry::<Ssl>(e.seq).expect("read"), Some(e));
        }
    }

    /// An index of schema 3 left by a migration that stopped after raising the schema is
    /// dropped at the next opening.
    #[test]
    fn an_index_of_schema_3_left_behind_is_dropped_when_the_database_opens() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("db");
        {
            let store = crate::store::Store::open(&db, "ssl").expect("open");
            let index = store.db.open_tree("index_code").expect("index");
            index.insert(b"FIN7", &7u64.to_be_bytes()).expect("insert");
            store.flush().expect("flush");
        }
        let store = crate::store::Store::open(&db, "ssl").expect("reopen");
        assert!(
            !store
                .db
                .tree_names()
                .iter()
                .any(|n| &n[..] == b"index_code"),
            "dropped"
        );
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

    /// A player as V1 to V3 wrote him: no club.
    #[derive(Serialize)]
    struct WrittenInfo {
        id: String,
        name: String,
        federation: Option<String>,
        fide_id: Option<u64>,
        #[serde(with = "crate::model::day::option")]
        born: Option<NaiveDate>,
        sex: Option<Sex>,
        fide: Vec<FideEntry>,
        national: Vec<NationalEntry>,
    }

    type SslRecord = PlayerRecord<Ssl>;

    /// A player record as V1 to V3 wrote it.
    #[derive(Serialize)]
    struct WrittenRecord {
        info: WrittenInfo,
        seeds: Vec<Option<<Ssl as Rulebook>::State>>,
        held: Vec<Award<<Ssl as Rulebook>::Award>>,
        confirmed: Vec<Award<<Ssl as Rulebook>::Award>>,
        status: PlayerStatus,
    }

    fn written_record(r: &SslRecord) -> WrittenRecord {
        assert_eq!(r.info.club, None, "the previous layout had no club");
        let i = r.info.clone();
        WrittenRecord {
            info: WrittenInfo {
                id: i.id,
                name: i.name,
                federation: i.federation,
                fide_id: i.fide_id,
                born: i.born,
                sex: i.sex,
                fide: i.fide,
                national: i.national,
            },
            seeds: r.seeds.clone(),
            held: r.held.clone(),
            confirmed: r.confirmed.clone(),
            status: r.status,
        }
    }

    /// A V3 audit entry as the previous version wrote it, and hashed it: as its JSON.
    #[derive(Serialize)]
    struct WrittenEntry {
        seq: u64,
        time: i64,
        user: String,
        action: String,
        kind: AuditKind,
        change: WrittenChange,
        prev: Option<Link>,
    }

    #[derive(Serialize)]
    struct WrittenChange {
        players: Vec<Delta<PlayerIdx, WrittenRecord>>,
        events: Vec<Delta<usize, EventRecord>>,
        games: Vec<Delta<GameKey, Game>>,
    }

    fn written_entry(e: &AuditEntry<Ssl>, prev: Option<Link>) -> WrittenEntry {
        let players = e.change.players.iter().map(|d| Delta {
            key: d.key,
            before: d.before.as_deref().map(written_record),
            after: d.after.as_deref().map(written_record),
        });
        WrittenEntry {
            seq: e.seq,
            time: e.time,
            user: e.user.clone(),
            action: e.action.clone(),
            kind: e.kind,
            change: WrittenChange {
                players: players.collect(),
                events: e.change.events.clone(),
                games: e.change.games.clone(),
            },
            prev,
        }
    }

    fn old_hash(e: &WrittenEntry) -> Link {
        use sha2::Digest;
        Link(sha2::Sha256::digest(serde_json::to_vec(e).expect("json")).into())
    }

    fn player(id: &str, name: &str) -> SslRecord {
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).expect("date");
        PlayerRecord {
            info: PlayerInfo {
                id: id.into(),
                name: name.into(),
                fide_id: Some(503_000),
                born: Some(day(1983, 7, 19)),
                sex: Some(Sex::Male),
                fide: vec![FideEntry {
                    list_date: day(2025, 1, 1),
                    standard: Some(1950),
                    rapid: None,
                    blitz: None,
                }],
                ..PlayerInfo::default()
            },
            seeds: vec![
                Some(crate::rules::ssl::SslState {
                    rating: Some(1700),
                    games: 40,
                    normal_games: 40,
                    ..Default::default()
                }),
                None,
            ],
            held: Vec::new(),
            confirmed: Vec::new(),
            status: PlayerStatus::Active,
        }
    }

    #[test]
    fn a_player_record_of_the_previous_layouts_is_read_without_a_club() {
        let record = player("FIN2001", "Mäkelä, Eero");
        let old = written_record(&record);
        let config = bincode::config::standard();
        for bytes in [
            bincode::serde::encode_to_vec(codec::Versioned::V1(&old), config),
            bincode::serde::encode_to_vec(codec::Versioned::V2(&old), config),
            bincode::serde::encode_to_vec(codec::Versioned::V3(&old), config),
        ] {
            let bytes = bytes.expect("encode");
            assert_eq!(player_record::<Ssl>(&bytes).expect("upgraded"), record);
        }
        // Written again it is a current record, with or without a club.
        let with_club = SslRecord {
            info: PlayerInfo {
                club: Some("HSK".into()),
                ..record.info.clone()
            },
            ..record.clone()
        };
        for r in [&record, &with_club] {
            let bytes = codec::encode(r).expect("encode");
            assert_eq!(codec::version(&bytes), Some(6));
            assert_eq!(&player_record::<Ssl>(&bytes).expect("current"), r);
        }
        // As JSON (backups, audit hashes) a player without a club is what he was before clubs.
        let json = serde_json::to_string(&record).expect("json");
        assert_eq!(json, serde_json::to_string(&old).expect("json"));
        assert!(!json.contains("club"), "{json}");
        let json = serde_json::to_string(&with_club).expect("json");
        assert!(
            json.contains(r#""federation":null,"club":"HSK","fide_id""#),
            "{json}"
        );
        assert_eq!(
            serde_json::from_str::<SslRecord>(&json).expect("read"),
            with_club
        );
    }

    /// A player as V4 and V5 wrote him: a club, no re-entries.
    #[derive(Serialize)]
    struct WrittenInfoV4 {
        id: String,
        name: String,
        federation: Option<String>,
        club: Option<String>,
        fide_id: Option<u64>,
        #[serde(with = "crate::model::day::option")]
        born: Option<NaiveDate>,
        sex: Option<Sex>,
        fide: Vec<FideEntry>,
        national: Vec<NationalEntry>,
    }

    /// A player record as V4 and V5 wrote it.
    #[derive(Serialize)]
    struct WrittenRecordV4 {
        info: WrittenInfoV4,
        seeds: Vec<Option<<Ssl as Rulebook>::State>>,
        held: Vec<Award<<Ssl as Rulebook>::Award>>,
        confirmed: Vec<Award<<Ssl as Rulebook>::Award>>,
        status: PlayerStatus,
    }

    fn written_record_v4(r: &SslRecord) -> WrittenRecordV4 {
        assert!(r.info.reentries.is_empty(), "V5 had no re-entries");
        let i = r.info.clone();
        WrittenRecordV4 {
            info: WrittenInfoV4 {
                id: i.id,
                name: i.name,
                federation: i.federation,
                club: i.club,
                fide_id: i.fide_id,
                born: i.born,
                sex: i.sex,
                fide: i.fide,
                national: i.national,
            },
            seeds: r.seeds.clone(),
            held: r.held.clone(),
            confirmed: r.confirmed.clone(),
            status: r.status,
        }
    }

    #[test]
    fn records_of_v4_and_v5_are_read_without_re_entries_and_hash_as_before() {
        let record = SslRecord {
            info: PlayerInfo {
                club: Some("HSK".into()),
                ..player("FIN2001", "Mäkelä, Eero").info
            },
            ..player("FIN2001", "Mäkelä, Eero")
        };
        let old = written_record_v4(&record);
        let config = bincode::config::standard();
        for bytes in [
            bincode::serde::encode_to_vec(codec::Versioned::V4(&old), config),
            bincode::serde::encode_to_vec(codec::Versioned::V5(&old), config),
        ] {
            let bytes = bytes.expect("encode");
            assert_eq!(player_record::<Ssl>(&bytes).expect("upgraded"), record);
        }
        // A V5 audit entry carrying him reads back whole.
        let entry = AuditEntry::<Ssl> {
            seq: 7,
            time: 1_700_000_007,
            user: "officer".into(),
            action: "edit player FIN2001".into(),
            kind: AuditKind::Edit,
            change: Change {
                players: vec![Delta {
                    key: 3,
                    before: None,
                    after: Some(Box::new(record.clone())),
                }],
                events: Vec::new(),
                games: Vec::new(),
            },
            prev: Some(Link([7; 32])),
        };
        #[derive(Serialize)]
        struct WrittenEntryV5 {
            seq: u64,
            time: i64,
            user: String,
            action: String,
            kind: AuditKind,
            change: WrittenChangeV5,
            prev: Option<Link>,
        }
        /// A V5 change: players without re-entries, today's events and games.
        type WrittenChangeV5 = (
            Vec<Delta<PlayerIdx, WrittenRecordV4>>,
            Vec<Delta<usize, EventRecord>>,
            Vec<Delta<GameKey, Game>>,
        );
        let written = WrittenEntryV5 {
            seq: 7,
            time: 1_700_000_007,
            user: "officer".into(),
            action: "edit player FIN2001".into(),
            kind: AuditKind::Edit,
            change: (
                vec![Delta {
                    key: 3,
                    before: None,
                    after: Some(written_record_v4(&record)),
                }],
                Vec::new(),
                Vec::new(),
            ),
            prev: Some(Link([7; 32])),
        };
        let bytes =
            bincode::serde::encode_to_vec(codec::Versioned::V5(&written), config).expect("encode");
        assert_eq!(audit_entry::<Ssl>(&bytes).expect("upgraded"), entry);
        // A backup writes it as the upgraded entry's JSON.
        let mut line = Vec::new();
        super::super::entry_json::write::<Ssl, _>(&bytes, &mut line).expect("backup line");
        assert_eq!(line, serde_json::to_vec(&entry).expect("json"));
        // As JSON (backups, audit hashes) a player without re-entries is what he was before.
        let json = serde_json::to_string(&record).expect("json");
        assert_eq!(json, serde_json::to_string(&old).expect("json"));
        assert!(!json.contains("reentries"), "{json}");
        // With one, he carries it in both forms.
        let back = SslRecord {
            info: PlayerInfo {
                reentries: vec![crate::model::Reentry {
                    date: NaiveDate::from_ymd_opt(2026, 4, 10).expect("date"),
                    rating: 2050,
                    on: crate::model::Entry::Fide,
                }],
                ..record.info.clone()
            },
            ..record.clone()
        };
        let bytes = codec::encode(&back).expect("encode");
        assert_eq!(codec::version(&bytes), Some(6));
        assert_eq!(player_record::<Ssl>(&bytes).expect("current"), back);
        let json = serde_json::to_string(&back).expect("json");
        assert!(
            json.contains(r#""reentries":[{"date":"2026-04-10","rating":2050,"on":"Fide"}]"#),
            "{json}"
        );
        assert_eq!(
            serde_json::from_str::<SslRecord>(&json).expect("read"),
            back
        );
    }

    #[test]
    fn a_database_of_the_previous_layout_opens_and_its_audit_chain_still_holds() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("db");
        let (aino, eero) = (
            player("FIN1001", "Aho, Aino"),
            player("FIN1002", "Mäkelä, Eero"),
        );
        let renamed = SslRecord {
            info: PlayerInfo {
                name: "Mäkelä, Eero Juhani".into(),
                ..eero.info.clone()
            },
            ..eero.clone()
        };
        let entry = |seq, action: &str, players| AuditEntry::<Ssl> {
            seq,
            time: 1_700_000_000 + seq as i64,
            user: "officer".into(),
            action: action.into(),
            kind: AuditKind::Edit,
            change: Change {
                players,
                events: Vec::new(),
                games: Vec::new(),
            },
            prev: None,
        };
        let added = |key, r: &SslRecord| Delta {
            key,
            before: None,
            after: Some(Box::new(r.clone())),
        };
        let entries = [
            entry(1, "import", vec![added(0, &aino), added(1, &eero)]),
            entry(
                2,
                "edit player FIN1002",
                vec![Delta {
                    key: 1,
                    before: Some(Box::new(eero.clone())),
                    after: Some(Box::new(renamed.clone())),
                }],
            ),
        ];
        {
            // Written by this version (records, indexes, counts), then every player record and
            // audit entry put back as the previous version wrote it: V3, chained by the hash
            // of the previous layout's JSON.
            let store = crate::store::Store::open(&db, "ssl").expect("open");
            store.commit_all(&mut entries.clone(), &[]).expect("commit");
            for (k, r) in [(0, &aino), (1, &renamed)] {
                store
                    .players
                    .insert(codec::key(k), v3_bytes(&written_record(r)))
                    .expect("player");
            }
            let mut prev = None;
            for e in &entries {
                let old = written_entry(e, prev);
                store
                    .audit
                    .insert(codec::key(e.seq), v3_bytes(&old))
                    .expect("entry");
                prev = Some(old_hash(&old));
            }
            let head = prev.expect("a head");
            store
                .meta
                .insert(super::super::AUDIT_HEAD, &head.0)
                .expect("head");
            store.flush().expect("flush");
        }
        let store = crate::store::Store::open(&db, "ssl").expect("reopen");
        let players = store.load::<Ssl>().expect("load").book.players;
        assert_eq!(players, vec![aino.info.clone(), renamed.info.clone()]);
        let read = store.audit_entries::<Ssl>().expect("entries");
        assert_eq!(read[0].change.players[1].after.as_deref(), Some(&eero));
        assert_eq!(read[1].prev, Some(read[0].hash()), "the link to #1 holds");
        assert_eq!(store.stored_head().expect("head"), Some(read[1].hash()));
        // The next edit gives a club: a V4 entry linked to the upgraded #2.
        let mut next = entry(
            3,
            "edit player FIN1001",
            vec![Delta {
                key: 0,
                before: Some(Box::new(aino.clone())),
                after: Some(Box::new(SslRecord {
                    info: PlayerInfo {
                        club: Some("HSK".into()),
                        ..aino.info.clone()
                    },
                    ..aino.clone()
                })),
            }],
        );
        store.commit_all(&mut [next.clone()], &[]).expect("commit");
        next.prev = Some(read[1].hash());
        assert_eq!(store.audit_entry::<Ssl>(3).expect("read"), Some(next));
        drop(store);
        // What `ratedesk check` verifies.
        let desk = crate::app::Desk::open(&db, Ssl).expect("desk");
        assert_eq!(desk.check_chain().expect("chain"), Vec::<String>::new());
        assert_eq!(desk.book().players[0].club.as_deref(), Some("HSK"));
    }
}
