//! The portable backup: a line-oriented text dump of every record and the whole audit log, one
//! JSON record a line, in key order, so that backup → restore → backup is byte-identical and a
//! database sled can no longer open is never more than the last backup away.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use super::records::{AuditEntry, Moved};
use crate::book::Book;
use crate::book::{Change, Delta, EventRecord, PlayerRecord, PlayerStatus};
use crate::model::Game;
use crate::rules::Rulebook;

const HEADER: &str = "ratedesk-backup 1";

/// Where automatic backups of the database in `dir` go.
pub fn backup_dir(dir: &Path) -> PathBuf {
    dir.join("backups")
}

#[derive(Debug, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct BackupError {
    pub line: usize,
    pub message: String,
}

/// What a dump holds: the records as one change from an empty database, the audit log, and
/// the rating moves the log shows beside its entries.
pub struct Dump<R: Rulebook> {
    pub change: Change<R>,
    pub audit: Vec<AuditEntry<R>>,
    pub moves: std::collections::BTreeMap<u64, Vec<Moved>>,
    /// Who may edit the database beside its owner.
    pub officers: Vec<crate::model::Officer>,
}

/// A record of a dump's line with its number (`player {"id":…,"record":…}`).
#[derive(serde::Serialize)]
struct Numbered<'a, T> {
    id: usize,
    record: &'a T,
}

/// A game's line: its event and the game.
#[derive(serde::Serialize)]
struct OfEvent<'a> {
    event: usize,
    record: &'a Game,
}

/// The rating moves shown beside an audit entry.
#[derive(serde::Serialize)]
struct MovesOf<'a> {
    seq: u64,
    moves: &'a [Moved],
}

/// The most a line of a dump may hold. An import's audit entry holds its every record on one
/// line: about 200 MB for a year of a million-player federation, and up to a few times the
/// 1 GB an imported document may be. A file without line ends stops here, not at the end of
/// memory.
const LINE_LIMIT: u64 = 8 * crate::import::DOCUMENT_LIMIT;

/// A record's line as read: its number and the record.
#[derive(serde::Deserialize)]
struct NumberedLine<T> {
    id: usize,
    record: T,
}

/// A game's line as read.
#[derive(serde::Deserialize)]
struct GameLine {
    event: usize,
    record: Game,
}

/// An audit entry's rating moves as read.
#[derive(serde::Deserialize)]
struct MovesLine {
    seq: u64,
    moves: Vec<Moved>,
}

/// The officers' line as read.
#[derive(serde::Deserialize)]
struct OfficersLine {
    list: Vec<crate::model::Officer>,
}

/// Writes the dump of a book, its player statuses, and `store`'s audit log with the rating
/// moves beside each entry, a line at a time (an entry is written as it is read from its
/// stored bytes, never held whole): the entries up to `upto` (`None`: all), with the officers
/// the record names after them.
pub fn write<R: Rulebook>(
    rules: &str,
    (book, status, officers): (&Book<R>, &[PlayerStatus], &[crate::model::Officer]),
    store: &super::Store,
    upto: Option<u64>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    fn line(out: &mut impl Write, kind: &str, v: &impl serde::Serialize) -> std::io::Result<()> {
        out.write_all(kind.as_bytes())?;
        out.write_all(b" ")?;
        serde_json::to_writer(&mut *out, v)?;
        out.write_all(b"\n")
    }
    // The tokens go into a buffer of this function's own type: each of the hundreds of
    // millions of small writes of a large federation's lines is then a copy into the buffer,
    // not a call through `dyn Write` (which took a quarter of a full-size backup's time).
    let out = &mut std::io::BufWriter::with_capacity(1 << 16, out);
    writeln!(out, "{HEADER} rules={rules}")?;
    if !officers.is_empty() {
        line(out, "officers", &serde_json::json!({ "list": officers }))?;
    }
    for (p, info) in book.players.iter().enumerate() {
        let record = PlayerRecord::<R> {
            info: info.clone(),
            seeds: book.seeds[p].clone(),
            held: book.held[p].clone(),
            confirmed: book.confirmed[p].clone(),
            status: status[p],
        };
        line(
            out,
            "player",
            &Numbered {
                id: p,
                record: &record,
            },
        )?;
    }
    for (e, event) in book.events.iter().enumerate() {
        let record = EventRecord {
            event: crate::model::Event {
                games: Vec::new(),
                ..event.clone()
            },
            live: book.live[e],
        };
        line(
            out,
            "event",
            &Numbered {
                id: e,
                record: &record,
            },
        )?;
        for g in &event.games {
            line(
                out,
                "game",
                &OfEvent {
                    event: e,
                    record: g,
                },
            )?;
        }
    }
    let last = upto.map_or(std::ops::Bound::Unbounded, |seq| {
        std::ops::Bound::Included(super::codec::key(seq))
    });
    for item in store.audit.range((std::ops::Bound::Unbounded, last)) {
        let (key, value) = item.map_err(std::io::Error::other)?;
        let bytes = store
            .audit_bytes(&key, &value)
            .map_err(std::io::Error::other)?;
        out.write_all(b"audit ")?;
        let seq = super::entry_json::write::<R, _>(&bytes, out)?;
        out.write_all(b"\n")?;
        if let Some(moves) = store.moves_of(seq).map_err(std::io::Error::other)? {
            line(out, "moved", &MovesOf { seq, moves: &moves })?;
        }
    }
    out.flush()
}

/// The rulebook code a dump names in its first line, if it is a dump.
fn rules_of(text: &str) -> Option<&str> {
    text.lines()
        .next()?
        .strip_prefix(HEADER)?
        .strip_prefix(" rules=")
        .map(str::trim)
}

/// Reads a dump: the records as one change from an empty database, and the audit log. Every
/// reference is checked (records numbered in order, games and participants of known players,
/// audit entries in order and about known records) before anything is written, so a damaged or
/// edited dump is refused with its line instead of breaking the database it is restored into.
pub fn read<R: Rulebook>(rules: &str, input: impl BufRead) -> Result<Dump<R>, BackupError> {
    read_lines_upto(rules, input, LINE_LIMIT)
}

/// [`read`] with lines of at most `line_limit` bytes.
fn read_lines_upto<R: Rulebook>(
    rules: &str,
    mut input: impl BufRead,
    line_limit: u64,
) -> Result<Dump<R>, BackupError> {
    let err = |line: usize, message: String| BackupError {
        line: line + 1,
        message,
    };
    let mut bytes = Vec::new();
    let mut at = 0;
    match next_line(&mut input, &mut bytes, line_limit).map_err(|m| err(at, m))? {
        Some(text) if text == format!("{HEADER} rules={rules}") => {}
        Some(text) => {
            // As much of the line as says what it is (it may be anything, of any length).
            let mut shown: String = text.chars().take(80).collect();
            if shown.len() < text.len() {
                shown.push('…');
            }
            return Err(err(
                at,
                format!("expected '{HEADER} rules={rules}', found '{shown}'"),
            ));
        }
        None => return Err(err(0, "the file is empty".into())),
    }
    let mut change = Change::<R>::default();
    let mut audit: Vec<AuditEntry<R>> = Vec::new();
    let mut audit_lines = Vec::new();
    let mut moves = std::collections::BTreeMap::new();
    let mut move_lines = Vec::new();
    let mut officers = Vec::new();
    let mut boards = std::collections::BTreeSet::new();
    let lists = R::default().lists().len();
    loop {
        at += 1;
        let i = at;
        let Some(text) = next_line(&mut input, &mut bytes, line_limit).map_err(|m| err(i, m))?
        else {
            break;
        };
        if text.trim().is_empty() {
            continue;
        }
        let (kind, body) = text
            .split_once(' ')
            .ok_or_else(|| err(i, "expected a kind and a record".into()))?;
        // Each kind read into its own type, not through a JSON value first: an import's audit
        // entry is a line of hundreds of megabytes.
        fn parse<'a, T: serde::Deserialize<'a>>(body: &'a str) -> Result<T, String> {
            serde_json::from_str(body).map_err(without_position)
        }
        match kind {
            "officers" => {
                let line: OfficersLine = parse(body).map_err(|m| err(i, m))?;
                officers = line.list;
            }
            "player" => {
                let line: NumberedLine<PlayerRecord<R>> = parse(body).map_err(|m| err(i, m))?;
                let (key, record) = (line.id, line.record);
                if key != change.players.len() {
                    return Err(err(
                        i,
                        format!(
                            "player {key} out of order: the next player is {}",
                            change.players.len()
                        ),
                    ));
                }
                if record.seeds.len() != lists {
                    return Err(err(
                        i,
                        format!(
                            "player {key} has states for {} lists, not {lists}",
                            record.seeds.len()
                        ),
                    ));
                }
                change.players.push(Delta {
                    key,
                    before: None,
                    after: Some(Box::new(record)),
                });
            }
            "event" => {
                let line: NumberedLine<EventRecord> = parse(body).map_err(|m| err(i, m))?;
                let (key, record) = (line.id, line.record);
                if key != change.events.len() {
                    return Err(err(
                        i,
                        format!(
                            "event {key} out of order: the next event is {}",
                            change.events.len()
                        ),
                    ));
                }
                if let Some(p) = record
                    .event
                    .participants
                    .iter()
                    .find(|&&p| p >= change.players.len())
                {
                    return Err(err(i, format!("event {key}: unknown participant {p}")));
                }
                change.events.push(Delta {
                    key,
                    before: None,
                    after: Some(record),
                });
            }
            "game" => {
                let line: GameLine = parse(body).map_err(|m| err(i, m))?;
                let (event, game) = (line.event, line.record);
                if event >= change.events.len() {
                    return Err(err(i, format!("game of unknown event {event}")));
                }
                if !boards.insert((event, game.round, game.board)) {
                    return Err(err(
                        i,
                        format!(
                            "event {event}, round {}, board {} is given twice",
                            game.round, game.board
                        ),
                    ));
                }
                let players = change.players.len();
                if game.white() >= players || game.black().is_some_and(|b| b >= players) {
                    return Err(err(i, "game of an unknown player".into()));
                }
                change.games.push(Delta {
                    key: (event, game.round, game.board),
                    before: None,
                    after: Some(game),
                });
            }
            "audit" => {
                let entry: AuditEntry<R> = parse(body).map_err(|m| err(i, m))?;
                if audit.last().is_some_and(|a| a.seq >= entry.seq) || entry.seq == 0 {
                    return Err(err(i, format!("audit entry #{} out of order", entry.seq)));
                }
                audit.push(entry);
                audit_lines.push(i);
            }
            "moved" => {
                let line: MovesLine = parse(body).map_err(|m| err(i, m))?;
                let seq = line.seq;
                if audit.last().is_none_or(|a| a.seq != seq) {
                    return Err(err(i, format!("rating moves of entry #{seq} not after it")));
                }
                moves.insert(seq, line.moves);
                move_lines.push(i);
            }
            other => return Err(err(i, format!("unknown record kind '{other}'"))),
        }
    }
    let (players, events) = (change.players.len(), change.events.len());
    for d in &change.players {
        let Some(record) = &d.after else { continue };
        check_player(record, players).map_err(|m| err(0, format!("player {}: {m}", d.key)))?;
    }
    // A database whose last records were removed does not read their slots back (a deleted
    // player or event at the end of its lists), yet its audit entries name them: the slots are
    // those the entries made, each next to the ones before (so that undo and redo stay inside).
    let (mut slots_players, mut slots_events) = (players, events);
    for (entry, &line) in audit.iter().zip(&audit_lines) {
        let grown = |slots: &mut usize, mut added: Vec<usize>| {
            added.sort_unstable();
            for key in added {
                if key == *slots {
                    *slots += 1;
                }
            }
        };
        grown(&mut slots_players, added(&entry.change.players));
        grown(&mut slots_events, added(&entry.change.events));
        check_change(&entry.change, slots_players, slots_events, lists)
            .map_err(|m| err(line, format!("audit entry #{}: {m}", entry.seq)))?;
        if let super::AuditKind::Undo(n) | super::AuditKind::Redo(n) = entry.kind
            && n >= entry.seq
        {
            return Err(err(
                line,
                format!("audit entry #{} refers to a later entry #{n}", entry.seq),
            ));
        }
    }
    for ((seq, m), &line) in moves.iter().zip(&move_lines) {
        if let Some(bad) = m
            .iter()
            .find(|m| m.player >= slots_players || m.list >= lists)
        {
            return Err(err(
                line,
                format!(
                    "rating moves of entry #{seq}: unknown player {} or list {}",
                    bad.player, bad.list
                ),
            ));
        }
    }
    Ok(Dump {
        change,
        audit,
        moves,
        officers,
    })
}

/// The next line of `input` without its end (`None` at the end of the file), read into
/// `bytes`: a line at a time, since a dump is larger than memory would hold twice (4 GB of
/// text for a million-player Turkish record); one longer than `limit` bytes is refused.
fn next_line<'b>(
    input: &mut impl BufRead,
    bytes: &'b mut Vec<u8>,
    limit: u64,
) -> Result<Option<&'b str>, String> {
    bytes.clear();
    let read = input
        .take(limit + 2)
        .read_until(b'\n', bytes)
        .map_err(|e| format!("cannot be read: {e}"))?;
    if read == 0 {
        return Ok(None);
    }
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
    }
    if bytes.len() as u64 > limit {
        return Err(format!("longer than {limit} bytes: not a line of a backup"));
    }
    std::str::from_utf8(bytes)
        .map(Some)
        .map_err(|_| "not UTF-8 text".to_string())
}

/// A record that does not read, said without serde's "at line 1" (the line is the dump's,
/// given beside it): its column.
fn without_position(e: serde_json::Error) -> String {
    let text = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&position) {
        Some(what) => format!("{what} (column {})", e.column()),
        None => text,
    }
}

/// A player record refers only to players that exist.
fn check_player<R: Rulebook>(record: &PlayerRecord<R>, players: usize) -> Result<(), String> {
    if let PlayerStatus::MergedInto(p) = record.status
        && p >= players
    {
        return Err(format!("merged into unknown player {p}"));
    }
    if let Some(a) = record
        .held
        .iter()
        .chain(&record.confirmed)
        .find(|a| a.player >= players)
    {
        return Err(format!("an award of unknown player {}", a.player));
    }
    Ok(())
}

/// An audit entry's records are about players, events and lists that exist, so undoing it can
/// never reach outside the database.
fn check_change<R: Rulebook>(
    change: &Change<R>,
    players: usize,
    events: usize,
    lists: usize,
) -> Result<(), String> {
    for d in &change.players {
        if d.key >= players {
            return Err(format!("unknown player {}", d.key));
        }
        for record in d.before.iter().chain(&d.after) {
            check_player(record, players)?;
            if record.seeds.len() != lists {
                return Err(format!(
                    "player {}: states for {} lists",
                    d.key,
                    record.seeds.len()
                ));
            }
        }
    }
    for d in &change.events {
        if d.key >= events {
            return Err(format!("unknown event {}", d.key));
        }
        for record in d.before.iter().chain(&d.after) {
            if let Some(p) = record.event.participants.iter().find(|&&p| p >= players) {
                return Err(format!("event {}: unknown participant {p}", d.key));
            }
        }
    }
    for d in &change.games {
        if d.key.0 >= events {
            return Err(format!("a game of unknown event {}", d.key.0));
        }
        for g in d.before.iter().chain(&d.after) {
            if g.white() >= players || g.black().is_some_and(|b| b >= players) {
                return Err(format!(
                    "a game of event {} with an unknown player",
                    d.key.0
                ));
            }
        }
    }
    Ok(())
}

/// Why an automatic backup was taken: the newest taken before an import and the newest taken
/// before a restore are kept whatever their age.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Occasion {
    Routine,
    BeforeImport,
    BeforeRestore,
}

impl Occasion {
    fn suffix(self) -> &'static str {
        match self {
            Occasion::Routine => "",
            Occasion::BeforeImport => "-before-import",
            Occasion::BeforeRestore => "-before-restore",
        }
    }
}

const STAMP: &str = "%Y%m%dT%H%M%S%.3f";

/// The name's ending of an automatic backup: the dump compressed by zstd (`zstdcat` gives the
/// text). A million-player Turkish record's dump is 4.1 GB of text and a thirteenth of that
/// compressed.
const AUTOMATIC: &str = ".backup.zst";

/// The ending of the automatic backups written before they were compressed (still kept by age
/// and restored as they are).
const AUTOMATIC_TEXT: &str = ".backup";

/// The compression level of a backup: zstd's default, which on a federation's dump writes
/// about as fast as its fastest level and a little smaller.
const LEVEL: i32 = 3;

/// Whether a backup the officer names is written compressed: a name ending in `.zst`.
fn compressed_name(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "zst")
}

/// Runs `write` into `out` through zstd. The compression runs on a thread of its own, beside
/// the one writing the lines.
fn compressed(
    out: &mut dyn Write,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut encoder = zstd::Encoder::new(out, LEVEL)?;
    // A checksum of the text in the frame, as the `zstd` tool writes by default: a damaged
    // byte is refused at reading, not decompressed into other records.
    encoder.include_checksum(true)?;
    encoder.multithread(1)?;
    write(&mut encoder)?;
    encoder.finish()?;
    Ok(())
}

/// A backup file opened to be read a line at a time: the rulebook its first line names
/// (`None`: it is not a backup), and its lines, the first among them. The file is opened once
/// (a pipe is read once).
pub struct Opened {
    pub rules: Option<String>,
    pub lines: Box<dyn BufRead + Send>,
}

/// Opens a backup, through zstd when it is compressed (known by its first bytes, whatever its
/// name).
pub fn open(path: &Path) -> std::io::Result<Opened> {
    let mut file = std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(path)?);
    let mut text: Box<dyn BufRead + Send> =
        if file.fill_buf()?.starts_with(&super::codec::ZSTD_MAGIC) {
            let mut decoder = zstd::Decoder::with_buffer(file)?;
            // As far back as the `zstd` tool reaches with `--long`: a backup recompressed by hand.
            decoder.window_log_max(31)?;
            Box::new(std::io::BufReader::with_capacity(
                1 << 16,
                Decompressed(decoder),
            ))
        } else {
            Box::new(file)
        };
    let mut first = Vec::new();
    (&mut text).take(256).read_until(b'\n', &mut first)?;
    let rules = std::str::from_utf8(&first)
        .ok()
        .and_then(rules_of)
        .map(str::to_string);
    let lines = Box::new(std::io::Cursor::new(first).chain(text));
    Ok(Opened { rules, lines })
}

/// A compressed backup's text, whose damage says what it is (zstd alone says "incomplete
/// frame" of a file cut short).
struct Decompressed<T>(T);

impl<T: Read> Read for Decompressed<T> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("the compressed backup is damaged or cut short ({e})"),
            )
        })
    }
}

/// When an automatic backup was taken and why, from its name (`None`: not one of ours).
fn parse_name(path: &Path) -> Option<(chrono::NaiveDateTime, Occasion)> {
    let stem = path.file_name()?.to_str()?.strip_prefix("ratedesk-")?;
    let stem = stem
        .strip_suffix(AUTOMATIC)
        .or_else(|| stem.strip_suffix(AUTOMATIC_TEXT))?;
    let (stamp, occasion) = [Occasion::BeforeImport, Occasion::BeforeRestore]
        .into_iter()
        .find_map(|o| stem.strip_suffix(o.suffix()).map(|s| (s, o)))
        .unwrap_or((stem, Occasion::Routine));
    let taken = chrono::NaiveDateTime::parse_from_str(stamp, STAMP).ok()?;
    Some((taken, occasion))
}

/// Writes an automatic backup into `dir/backups` (a new file, 0600, renamed into place) and
/// prunes the older ones by [`to_delete`].
pub fn rotate(
    dir: &Path,
    occasion: Occasion,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let folder = backup_dir(dir);
    if std::fs::symlink_metadata(&folder).is_err() {
        std::fs::DirBuilder::new().mode(0o700).create(&folder)?;
    }
    super::lock::check_folder(&folder).map_err(std::io::Error::other)?;
    let now = crate::clock::local_now();
    let name = format!(
        "ratedesk-{}{}{AUTOMATIC}",
        now.format(STAMP),
        occasion.suffix()
    );
    let path = folder.join(name);
    super::manifest::write_replacing_with(&path, |out| compressed(out, write))?;
    let all: Vec<(PathBuf, chrono::NaiveDateTime, Occasion)> = automatic_backups(dir)?
        .into_iter()
        .filter_map(|p| parse_name(&p).map(|(t, o)| (p, t, o)))
        .collect();
    let taken: Vec<(chrono::NaiveDateTime, Occasion)> =
        all.iter().map(|(_, t, o)| (*t, *o)).collect();
    for i in to_delete(&taken, now) {
        std::fs::remove_file(&all[i].0)?;
    }
    Ok(path)
}

/// Which automatic backups (when taken, why) may go at `now`: all but the newest ten, the
/// newest of each hour of the last day, of each day of the last month (31 days), of each month
/// of the last year, and the newest taken before an import and before a restore.
pub fn to_delete(
    backups: &[(chrono::NaiveDateTime, Occasion)],
    now: chrono::NaiveDateTime,
) -> Vec<usize> {
    use chrono::TimeDelta;
    let mut newest_first: Vec<usize> = (0..backups.len()).collect();
    newest_first.sort_by(|&a, &b| backups[b].0.cmp(&backups[a].0));
    let mut keep = vec![false; backups.len()];
    for &i in newest_first.iter().take(10) {
        keep[i] = true;
    }
    let tiers = [
        (TimeDelta::days(1), "%Y%m%d%H"),
        (TimeDelta::days(31), "%Y%m%d"),
        (TimeDelta::days(366), "%Y%m"),
    ];
    for (span, period) in tiers {
        let mut seen = std::collections::BTreeSet::new();
        for &i in &newest_first {
            let taken = backups[i].0;
            if now - taken <= span && seen.insert(taken.format(period).to_string()) {
                keep[i] = true;
            }
        }
    }
    for occasion in [Occasion::BeforeImport, Occasion::BeforeRestore] {
        if let Some(&i) = newest_first.iter().find(|&&i| backups[i].1 == occasion) {
            keep[i] = true;
        }
    }
    (0..backups.len()).filter(|&i| !keep[i]).collect()
}

/// Writes a backup the officer asked for to `path`, compressed when its name ends in `.zst`: a
/// new file (0600 from the start) written beside it and renamed over it, so a symbolic link or
/// device planted at the path is never followed, and nothing that is not ours is replaced or
/// has its permissions changed.
pub fn write_to(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        let refuse = |why: &str| {
            Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("{why}; give the name of a new file"),
            ))
        };
        if meta.file_type().is_symlink() {
            return refuse("it is a symbolic link, which is not followed");
        }
        if !meta.is_file() {
            return refuse("it exists and is not a regular file");
        }
        if meta.uid() != nix::unistd::Uid::effective().as_raw() {
            return refuse("it exists and belongs to another user");
        }
    }
    if compressed_name(path) {
        super::manifest::write_replacing_with(path, |out| compressed(out, write))
    } else {
        super::manifest::write_replacing_with(path, write)
    }
}

/// The automatic backups, oldest first.
pub fn automatic_backups(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let folder = backup_dir(dir);
    if !folder.exists() {
        return Ok(Vec::new());
    }
    let mut all: Vec<PathBuf> = std::fs::read_dir(folder)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| parse_name(p).is_some())
        .collect();
    all.sort();
    Ok(all)
}

/// The keys of the records a change's deltas add (none before them).
fn added<K: Copy, V>(deltas: &[crate::book::Delta<K, V>]) -> Vec<K> {
    deltas
        .iter()
        .filter(|d| d.before.is_none())
        .map(|d| d.key)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{NaiveDate, TimeDelta};

    fn at(day: u32, hour: u32, minute: u32) -> chrono::NaiveDateTime {
        NaiveDate::from_ymd_opt(2025, 1, 1)
            .and_then(|d| d.and_hms_opt(hour, minute, 0))
            .expect("time")
            + TimeDelta::days(i64::from(day))
    }

    #[test]
    fn twelve_quick_backups_do_not_erase_yesterdays_or_last_months() {
        let mut all = vec![
            (at(1, 9, 0), Occasion::Routine),
            (at(30, 9, 0), Occasion::Routine),
        ];
        for m in 0..12 {
            all.push((at(31, 10, m), Occasion::Routine));
        }
        let gone = to_delete(&all, at(31, 10, 30));
        // Two of the twelve go (ten newest kept, the hour's newest among them); yesterday's and
        // the one a month back stay.
        assert_eq!(gone, vec![2, 3]);
    }

    #[test]
    fn a_year_of_backups_every_ten_minutes_thins_out_by_age() {
        let now = at(400, 12, 0);
        let all: Vec<_> = (0..400 * 24 * 6)
            .map(|k| (now - TimeDelta::minutes(10 * k), Occasion::Routine))
            .collect();
        let gone: std::collections::BTreeSet<usize> = to_delete(&all, now).into_iter().collect();
        let kept: Vec<chrono::NaiveDateTime> = (0..all.len())
            .filter(|i| !gone.contains(i))
            .map(|i| all[i].0)
            .collect();
        // Ten, then one an hour for a day, one a day for a month, one a month for a year.
        assert!(kept.len() <= 10 + 24 + 31 + 13, "{}", kept.len());
        for hours in 1..24 {
            let t = now - TimeDelta::hours(hours);
            assert!(
                kept.iter().any(|k| (t - *k).abs() < TimeDelta::hours(1)),
                "{hours} h"
            );
        }
        for days in 1..31 {
            let t = now - TimeDelta::days(days);
            assert!(
                kept.iter().any(|k| (t - *k).abs() < TimeDelta::days(1)),
                "{days} d"
            );
        }
        let oldest = kept.iter().min().expect("some");
        assert!(now - *oldest > TimeDelta::days(330) && now - *oldest <= TimeDelta::days(366));
    }

    #[test]
    fn the_newest_backup_before_an_import_or_a_restore_is_kept_at_any_age() {
        let mut all = vec![
            (at(0, 8, 0), Occasion::BeforeImport),
            (at(0, 8, 1), Occasion::BeforeImport),
            (at(1, 8, 0), Occasion::BeforeRestore),
        ];
        for d in 0..40 {
            all.push((at(500 + d, 9, 0), Occasion::Routine));
        }
        let gone = to_delete(&all, at(540, 10, 0));
        assert!(gone.contains(&0), "an older one before an import goes");
        assert!(!gone.contains(&1) && !gone.contains(&2), "{gone:?}");
    }

    /// A dump is read a line at a time: a line longer than the limit (a damaged file, one
    /// without line ends) is refused with its number, before more is read.
    #[test]
    fn a_line_longer_than_the_limit_is_refused_with_its_number() {
        use crate::rules::ssl::Ssl;
        let header = format!("{HEADER} rules=ssl\n");
        let long = format!("{header}player {}\n", "x".repeat(100));
        let e = read_lines_upto::<Ssl>("ssl", long.as_bytes(), 64)
            .err()
            .expect("refused");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("longer than 64 bytes"), "{e}");
        // The header alone is an empty dump, read whole at any limit it fits.
        let dump = read_lines_upto::<Ssl>("ssl", header.as_bytes(), 64).expect("read");
        assert!(dump.change.players.is_empty() && dump.audit.is_empty());
        let e = read_lines_upto::<Ssl>("ssl", &b""[..], 64)
            .err()
            .expect("refused");
        assert!(e.message.contains("empty"), "{e}");
    }

    /// Lines end in `\n` or `\r\n`, the last may have no end, blank lines are lines (counted,
    /// skipped); a line of exactly the limit is read, one over it refused, also when the limit
    /// falls inside a character.
    #[test]
    fn lines_are_read_as_a_text_editor_counts_them() {
        let mut input = &b"one\r\ntwo\n\nthree"[..];
        let mut bytes = Vec::new();
        let mut lines = Vec::new();
        while let Some(line) = next_line(&mut input, &mut bytes, 5).expect("read") {
            lines.push(line.to_string());
        }
        assert_eq!(lines, ["one", "two", "", "three"]);
        let exact = next_line(&mut &b"12345\r\n"[..], &mut bytes, 5).expect("read");
        assert_eq!(exact, Some("12345"));
        let over = next_line(&mut &b"123456\n"[..], &mut bytes, 5).expect_err("refused");
        assert!(over.contains("longer than 5 bytes"), "{over}");
        // "ağaç": the limit of 2 falls inside the ğ.
        let cut = next_line(&mut "ağaç\n".as_bytes(), &mut bytes, 2).expect_err("refused");
        assert!(cut.contains("longer than 2 bytes"), "{cut}");
        let bad = next_line(&mut &b"\xff\xfe\n"[..], &mut bytes, 5).expect_err("refused");
        assert_eq!(bad, "not UTF-8 text");
    }

    /// A record that does not read is said with its column, not serde's "line 1".
    #[test]
    fn a_record_that_does_not_read_names_its_column() {
        use crate::rules::ssl::Ssl;
        let dump = format!("{HEADER} rules=ssl\nplayer {{\"id\":0}}\n");
        let e = read::<Ssl>("ssl", dump.as_bytes()).err().expect("refused");
        assert_eq!(e.line, 2);
        assert!(
            e.message.contains("missing field `record`") && e.message.ends_with("(column 8)"),
            "{e}"
        );
        assert!(!e.message.contains("at line"), "{e}");
    }

    /// The automatic backups, oldest first, whichever their ending: the newest is the last
    /// (the daily backup is due by its age); files not named as ours are not among them.
    #[test]
    fn automatic_backups_are_ordered_by_when_whichever_their_ending() {
        let dir = tempfile::tempdir().expect("tempdir");
        let folder = backup_dir(dir.path());
        std::fs::create_dir(&folder).expect("folder");
        let names = [
            "ratedesk-20250102T080000.000.backup",
            "ratedesk-20250101T090000.000-before-import.backup.zst",
            "ratedesk-20250103T070000.000.backup.zst",
            "ratedesk-20250101T100000.000.backup",
            "ratedesk-20250104T070000.000.backup.zst.tmp",
            "mine.backup",
            "notes.txt",
        ];
        for name in names {
            std::fs::write(folder.join(name), b"").expect("file");
        }
        let found: Vec<String> = automatic_backups(dir.path())
            .expect("listed")
            .iter()
            .map(|p| p.file_name().expect("name").to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            found,
            [
                "ratedesk-20250101T090000.000-before-import.backup.zst",
                "ratedesk-20250101T100000.000.backup",
                "ratedesk-20250102T080000.000.backup",
                "ratedesk-20250103T070000.000.backup.zst",
            ]
        );
    }

    #[test]
    fn backup_names_say_when_and_why() {
        let p = Path::new("ratedesk-20250101T093000.123-before-import.backup");
        assert_eq!(
            parse_name(p),
            Some((
                at(0, 9, 30) + TimeDelta::milliseconds(123),
                Occasion::BeforeImport
            ))
        );
        assert_eq!(parse_name(Path::new("mine.backup")), None);
        // Compressed, and as they were named before they were compressed.
        let p = Path::new("ratedesk-20250101T093000.123.backup.zst");
        assert_eq!(
            parse_name(p),
            Some((
                at(0, 9, 30) + TimeDelta::milliseconds(123),
                Occasion::Routine
            ))
        );
        let p = Path::new("ratedesk-20250101T093000.123-before-restore.backup");
        assert_eq!(
            parse_name(p),
            Some((
                at(0, 9, 30) + TimeDelta::milliseconds(123),
                Occasion::BeforeRestore
            ))
        );
        let tmp = Path::new("ratedesk-20250101T093000.123.backup.zst.tmp");
        assert_eq!(parse_name(tmp), None);
    }
}
