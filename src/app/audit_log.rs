//! The audit log as the officer reads it: each entry with what it changed, before → after (a
//! corrected result: the old and the new result and whose rating moved by how much), and the
//! check of the chain that links every entry to the one before it.

use super::{Desk, DeskError, EditError};
use crate::app::Federation;
use crate::book::{Change, Delta, EventRecord, PlayerRecord};
use crate::model::{Event, Game, PlayerIdx, PlayerInfo};
use crate::store::{AuditEntry, AuditKind, Link, Moved};

/// The most detail lines shown for one entry unless every line is asked for: a correction's
/// whole cascade fits, an import of thousands of records is cut (and says how to see it all).
const DETAIL_LINES: usize = 60;

/// How many lines [`Desk::describe`] gives of an entry: one a record it changed, and one more
/// for a restore.
fn detail_count<R: crate::rules::Rulebook>(entry: &AuditEntry<R>) -> usize {
    let Change {
        players,
        events,
        games,
    } = &entry.change;
    usize::from(entry.kind == AuditKind::Restore) + players.len() + events.len() + games.len()
}

/// When an entry was written, as the log shows it (seconds since the Unix epoch, written out).
pub(super) fn entry_time(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_default()
}

impl<R: Federation> Desk<R> {
    /// The newest `last` entries of the audit log (all without it), oldest first: a header line
    /// each (`#seq time user action`) and indented lines of what it changed — every line with
    /// `full`, else up to [`DETAIL_LINES`] an entry.
    pub fn log_lines(&self, last: Option<usize>, full: bool) -> Result<Vec<String>, DeskError> {
        let cap = if full { usize::MAX } else { DETAIL_LINES };
        let skip = last.map_or(0, |n| self.audit.len().saturating_sub(n));
        let mut lines = Vec::new();
        for summary in &self.audit[skip..] {
            // The header from the entry itself, which the chain covers (the index beside it
            // is only for finding entries).
            let Some(entry) = self.store.audit_entry::<R>(summary.seq)? else {
                lines.push(format!(
                    "#{} (its entry is missing: `ratedesk check` says more)",
                    summary.seq
                ));
                continue;
            };
            lines.push(format!(
                "#{} {} {} {}",
                entry.seq,
                entry_time(entry.time),
                one_line(&entry.user),
                one_line(&entry.action)
            ));
            // Only the lines shown are written out (an import's entry has a line per record:
            // a million at Turkey's size), and only the shown entries' moves are read (`log
            // --last 1` reads one).
            let moves = self.store.moves_of(entry.seq)?.unwrap_or_default();
            let details = self
                .describe(&entry)
                .chain(moves.iter().map(|m| self.describe_move(m)));
            let count = detail_count(&entry) + moves.len();
            lines.extend(details.take(cap).map(|d| format!("    {d}")));
            let more = count.saturating_sub(cap);
            if more > 0 {
                lines.push(format!(
                    "    … and {more} more (`log --full` shows every line)"
                ));
            }
        }
        Ok(lines)
    }

    /// The head of the audit chain: the newest entry's number and hash. A published list
    /// carries it ([`head_line`]); whoever holds the list can later check that the history
    /// still leads through it ([`Desk::check_against`]).
    pub fn head(&self) -> Result<Option<(u64, Link)>, crate::store::StoreError> {
        let Some(last) = self.audit.last() else {
            return Ok(None);
        };
        Ok(self
            .store
            .audit_entry::<R>(last.seq)?
            .map(|entry| (entry.seq, entry.hash())))
    }

    /// Whether today's audit log still leads through the head a published list carries
    /// (`audit head #SEQ HASH` anywhere in `text`): empty when it does, else what was rewritten.
    /// `Err` when the text carries no head.
    pub fn check_against(&self, text: &str) -> Result<Vec<String>, HeadError> {
        let (seq, link) = find_head(text).ok_or(HeadError::NoHead)?;
        // The entry itself, not the whole log (a reading copy reads up to what it holds).
        let entry = match self.read_upto() {
            Some(upto) if seq > upto => None,
            _ => self
                .store
                .audit_entry::<R>(seq)
                .map_err(HeadError::Store)?
                .filter(|e| e.seq == seq),
        };
        let Some(entry) = entry else {
            return Ok(vec![format!(
                "entry #{seq}, the newest when the list was published, is no longer in the audit log: the history was rewritten since"
            )]);
        };
        let now = entry.hash();
        if now != link {
            return Ok(vec![format!(
                "entry #{seq} is not the entry the list was published after (published {link}, now {now}): the history up to it was rewritten since"
            )]);
        }
        Ok(Vec::new())
    }

    /// [`Desk::check_against`] a published list's file, read whole (capped as a list is).
    pub fn check_against_file(&self, list: &std::path::Path) -> Result<Vec<String>, HeadError> {
        let bytes = crate::import::read_capped(list, crate::import::CSV_LIMIT)
            .map_err(|e| HeadError::Read(e.to_string()))?;
        self.check_against(&String::from_utf8_lossy(&bytes))
    }

    /// Where the chain of audit entries breaks: an entry edited, removed or inserted after it
    /// was written (empty: the chain holds). Entries written before the chain are not linked.
    /// Then the log replayed: the records it leads to against those stored, and the moves
    /// shown beside each entry against those it gives. One pass over the log, an entry at a
    /// time: each is hashed once, replayed and let go (an import of a whole federation is one
    /// entry, and a log of ten such is never held at once).
    pub fn check_chain(&self) -> Result<Vec<String>, DeskError> {
        // A copy keeps only the entries stored since it was taken.
        if self.is_replica() {
            return Err(EditError(
                "the audit log is checked where the database is held: run `ratedesk check`".into(),
            )
            .into());
        }
        let mut problems = Vec::new();
        let mut replay = Replay::new(self)?;
        // The entry before (its number and hash), and whether the chain has begun.
        let mut before: Option<(u64, Link)> = None;
        let mut chained = false;
        // The next entry is read and hashed on another core while one is replayed here (hashing
        // an import of a whole federation takes seconds): handed over when the replay takes it,
        // so at most the two are held.
        let (hashed, entries) = std::sync::mpsc::sync_channel(0);
        let store = &self.store;
        let upto = self.read_upto();
        std::thread::scope(|s| -> Result<(), DeskError> {
            s.spawn(move || {
                for entry in store.audit_iter_upto::<R>(upto) {
                    let failed = entry.is_err();
                    let entry = entry.map(|e| {
                        let hash = e.hash();
                        (e, hash)
                    });
                    // Stopped at the first unreadable entry, or when the replay stopped.
                    if hashed.send(entry).is_err() || failed {
                        break;
                    }
                }
            });
            // An early return drops `entries`, which stops the reader; the scope waits for it.
            for entry in entries {
                let (entry, hash) = entry?;
                problems.extend(chain_break(&entry, before, chained));
                chained |= entry.prev.is_some();
                before = Some((entry.seq, hash));
                replay.step(entry)?;
            }
            Ok(())
        })?;
        // The head as stored; for a reading copy, as the holder chained it (the store's may
        // be newer already).
        let head = match self.read_head() {
            Some(head) => head,
            None => self.store.stored_head()?,
        };
        if let (Some((seq, last)), Some(head)) = (before, head)
            && last != head
        {
            problems.push(format!(
                "the audit log's newest entry #{seq} was changed after it was written"
            ));
        }
        problems.extend(self.unaudited(&replay.book, &replay.status));
        problems.extend(replay.problems);
        Ok(problems)
    }

    /// Records that are not what the audit log says they became: the log replayed from its
    /// first entry must give every record as stored, so that no record changes without an
    /// entry (a write outside ratedesk, an edit torn by a failing disk).
    fn unaudited(
        &self,
        book: &crate::book::Book<R>,
        status: &[crate::book::PlayerStatus],
    ) -> Vec<String> {
        const LISTED: usize = 10;
        let mut differ = Vec::new();
        let active = |s: &[crate::book::PlayerStatus], p: usize| {
            s.get(p)
                .copied()
                .unwrap_or(crate::book::PlayerStatus::Deleted)
        };
        for p in 0..book.players.len().max(self.book.players.len()) {
            let (now, then) = (active(&self.status, p), active(status, p));
            let same = now == then
                && (now == crate::book::PlayerStatus::Deleted
                    || (self.book.players.get(p) == book.players.get(p)
                        && self.book.seeds.get(p) == book.seeds.get(p)
                        && self.book.held.get(p) == book.held.get(p)
                        && self.book.confirmed.get(p) == book.confirmed.get(p)));
            if !same {
                let id = self
                    .book
                    .players
                    .get(p)
                    .or(book.players.get(p))
                    .map_or_else(|| format!("#{p}"), |i| one_line(&i.id));
                differ.push(format!("player {id}"));
            }
        }
        let live = |l: &[bool], e: usize| l.get(e).copied().unwrap_or(false);
        for e in 0..book.events.len().max(self.book.events.len()) {
            let (now, then) = (live(&self.book.live, e), live(&book.live, e));
            if now != then || (now && self.book.events.get(e) != book.events.get(e)) {
                let id = self
                    .book
                    .events
                    .get(e)
                    .or(book.events.get(e))
                    .map_or_else(|| format!("#{e}"), |ev| one_line(&ev.id));
                differ.push(format!("event {id}"));
            }
        }
        if differ.is_empty() {
            return Vec::new();
        }
        let more = differ.len().saturating_sub(LISTED);
        let mut listed = differ
            .into_iter()
            .take(LISTED)
            .collect::<Vec<_>>()
            .join(", ");
        if more > 0 {
            listed.push_str(&format!(" and {more} more"));
        }
        vec![format!(
            "records changed with no audit entry (the audit log replayed gives them otherwise): {listed}"
        )]
    }

    fn player_label(&self, p: usize, record: Option<&PlayerInfo>) -> String {
        let info = record.or_else(|| self.book.players.get(p));
        match info {
            Some(i) if !i.name.is_empty() => format!(
                "{} ({})",
                one_line(&self.rulebook().name_order().write(&i.name)),
                one_line(&i.id)
            ),
            Some(i) => one_line(&i.id),
            None => format!("player #{p}"),
        }
    }

    fn event_label(&self, e: usize) -> String {
        self.book
            .events
            .get(e)
            .map_or_else(|| format!("event #{e}"), |ev| one_line(&ev.id))
    }

    fn describe_move(&self, m: &Moved) -> String {
        let list = self.rulebook.lists().get(m.list).copied().unwrap_or("?");
        let show = |r: Option<i32>| r.map_or("-".to_string(), |r| r.to_string());
        let by = match (m.before, m.after) {
            (Some(b), Some(a)) => format!(" ({})", crate::figures::signed(a - b)),
            _ => String::new(),
        };
        format!(
            "{} {list} {} → {}{by}",
            self.player_label(m.player, None),
            show(m.before),
            show(m.after)
        )
    }

    /// What an entry's records say changed, a line per record.
    /// What an entry changed, a line a record ([`detail_count`] of them), written out as they
    /// are taken.
    fn describe<'a>(&'a self, entry: &'a AuditEntry<R>) -> impl Iterator<Item = String> + 'a {
        let restored = (entry.kind == AuditKind::Restore).then(|| {
            "the database was restored from a backup here: the entries before this one are the backup's".to_string()
        });
        let Change {
            players,
            events,
            games,
        } = &entry.change;
        restored
            .into_iter()
            .chain(players.iter().map(|d| self.describe_player(d)))
            .chain(events.iter().map(|d| self.describe_event(d)))
            .chain(games.iter().map(|d| self.describe_game(d)))
    }

    fn describe_player(&self, d: &Delta<usize, Box<PlayerRecord<R>>>) -> String {
        let info = d.after.as_ref().or(d.before.as_ref()).map(|r| &r.info);
        let who = self.player_label(d.key, info);
        let (before, after) = match (&d.before, &d.after) {
            (None, Some(_)) => return format!("player {who} added"),
            (Some(_), None) => return format!("player {who} removed"),
            (Some(b), Some(a)) => (b, a),
            (None, None) => return format!("player {who}: nothing"),
        };
        let mut changes = Vec::new();
        let mut field = |name: &str, b: String, a: String| {
            if b != a {
                changes.push(format!("{name} {} → {}", one_line(&b), one_line(&a)));
            }
        };
        let (bi, ai) = (&before.info, &after.info);
        field("name", bi.name.clone(), ai.name.clone());
        field("id", bi.id.clone(), ai.id.clone());
        field("FIDE id", opt(bi.fide_id), opt(ai.fide_id));
        field(
            "federation",
            opt(bi.federation.clone()),
            opt(ai.federation.clone()),
        );
        field("club", opt(bi.club.clone()), opt(ai.club.clone()));
        field("born", opt(bi.born), opt(ai.born));
        field("sex", format!("{:?}", bi.sex), format!("{:?}", ai.sex));
        for (l, name) in self.rulebook.lists().iter().enumerate() {
            let rating = |r: &PlayerRecord<R>| {
                opt(r
                    .seeds
                    .get(l)
                    .cloned()
                    .flatten()
                    .and_then(|s| self.rulebook.rating_of(&s)))
            };
            field(&format!("starting {name}"), rating(before), rating(after));
        }
        for (kind, b, a) in [
            ("held", &before.held, &after.held),
            ("confirmed", &before.confirmed, &after.confirmed),
        ] {
            let show = |v: &Vec<crate::rules::Award<R::Award>>| {
                v.iter()
                    .map(|x| format!("{:?}", x.award))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            field(&format!("{kind} titles"), show(b), show(a));
        }
        field(
            "status",
            format!("{:?}", before.status),
            format!("{:?}", after.status),
        );
        for e in ai.fide.iter().filter(|e| !bi.fide.contains(e)) {
            let old = bi.fide.iter().find(|o| o.list_date == e.list_date);
            field(
                &format!("FIDE list {}", e.list_date),
                old.map_or("-".into(), fide_ratings),
                fide_ratings(e),
            );
        }
        let reentry = |r: Option<&crate::model::Reentry>| {
            r.map_or("-".into(), |r| format!("{} {}", r.on.label(), r.rating))
        };
        let days: std::collections::BTreeSet<chrono::NaiveDate> = (bi.reentries.iter())
            .chain(&ai.reentries)
            .map(|r| r.date)
            .collect();
        for day in days {
            let on = |rs: &[crate::model::Reentry]| rs.iter().find(|r| r.date == day).cloned();
            field(
                &format!("re-entry {day}"),
                reentry(on(&bi.reentries).as_ref()),
                reentry(on(&ai.reentries).as_ref()),
            );
        }
        if changes.is_empty() {
            changes.push("unchanged".into());
        }
        format!("player {who}: {}", changes.join("; "))
    }

    fn describe_event(&self, d: &Delta<usize, EventRecord>) -> String {
        let ev = |r: &Option<EventRecord>| r.as_ref().filter(|r| r.live).map(|r| r.event.clone());
        match (ev(&d.before), ev(&d.after)) {
            (None, Some(a)) => format!(
                "event {} added: {}, {} to {}, {} participants",
                one_line(&a.id),
                one_line(&a.name),
                a.start,
                a.end,
                a.participants.len()
            ),
            (Some(b), None) => format!("event {} removed", one_line(&b.id)),
            (Some(b), Some(a)) => {
                let mut changes = Vec::new();
                let mut field = |name: &str, x: String, y: String| {
                    if x != y {
                        changes.push(format!("{name} {} → {}", one_line(&x), one_line(&y)));
                    }
                };
                field("id", b.id.clone(), a.id.clone());
                field("name", b.name.clone(), a.name.clone());
                field("start", b.start.to_string(), a.start.to_string());
                field("end", b.end.to_string(), a.end.to_string());
                field("time control", time_control(&b), time_control(&a));
                field(
                    "participants",
                    b.participants.len().to_string(),
                    a.participants.len().to_string(),
                );
                field("received", opt(b.received), opt(a.received));
                field(
                    "play-off of",
                    opt(b.playoff_of.clone()),
                    opt(a.playoff_of.clone()),
                );
                if changes.is_empty() {
                    changes.push("details changed".into());
                }
                format!("event {}: {}", one_line(&a.id), changes.join("; "))
            }
            (None, None) => format!("event #{}: not in use", d.key),
        }
    }

    fn describe_game(&self, d: &Delta<(usize, u32, u32), Game>) -> String {
        let (e, round, board) = d.key;
        let g = d.after.as_ref().or(d.before.as_ref());
        let pairing = g.map_or_else(String::new, |g| {
            let black = g
                .black()
                .map_or("bye".to_string(), |b| self.player_label(b, None));
            format!(" ({} – {black})", self.player_label(g.white(), None))
        });
        let result = |g: &Option<Game>| match g {
            None => "not paired".to_string(),
            Some(g) => {
                let code = g.result.map_or("no result".to_string(), |r| r.code());
                // Its own receipt date, when it has one and it changed.
                match (g.received, &d.before, &d.after) {
                    (Some(r), Some(b), Some(a)) if b.received != a.received => {
                        format!("{code} (received {r})")
                    }
                    _ => code,
                }
            }
        };
        format!(
            "{} round {round} board {board}{pairing}: {} → {}",
            self.event_label(e),
            result(&d.before),
            result(&d.after)
        )
    }
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("-".to_string(), |v| v.to_string())
}

fn fide_ratings(e: &crate::model::FideEntry) -> String {
    format!(
        "standard {} rapid {} blitz {}",
        opt(e.standard),
        opt(e.rapid),
        opt(e.blitz)
    )
}

fn time_control(e: &Event) -> String {
    e.time_control.as_ref().map_or("-".to_string(), |tc| {
        format!("{} min + {} s", tc.base_seconds / 60, tc.increment_seconds)
    })
}

/// A field on one line: control characters (line breaks too) escaped.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                format!("\\u{:04x}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Where the chain breaks at `entry`, given the entry before it (its number and hash) and
/// whether the chain had begun before it.
fn chain_break<R: Federation>(
    entry: &AuditEntry<R>,
    before: Option<(u64, Link)>,
    chained: bool,
) -> Option<String> {
    let at = entry.seq;
    match (entry.prev, before) {
        (Some(link), Some((seq, b))) if link != b => Some(format!(
            "the audit log's chain breaks at #{at}: the entry before it (#{seq}) is not the one it was written after (changed, removed or put in since)"
        )),
        (Some(_), None) => Some(format!(
            "the audit log's chain breaks at #{at}: the entries it was written after are missing"
        )),
        (None, Some((seq, _))) if chained => Some(format!(
            "the audit log's chain breaks at #{at}: it has no link to #{seq} before it"
        )),
        _ => None,
    }
}
/// The rating moves `log` shows beside the entries, against the audit log replayed: they are
/// not in the chain (they follow from it), so each is worked out again — the log replayed from
/// its first entry, re-rated after each — and one that differs is named. The entries of one
/// edit (one time) move ratings together: their moves are kept beside the last of them, from
/// the ratings before the first. Moves worked out by earlier rules than these (entries up to
/// the one the results were rated again after) are not held to them. Ends with the records
/// the replay leads to, and the entries whose moves differ.
struct Replay<'d, R: Federation> {
    desk: &'d Desk<R>,
    book: crate::book::Book<R>,
    status: Vec<crate::book::PlayerStatus>,
    ledger: crate::ledger::Ledger<R>,
    /// The moves of the edit the entries replayed last belong to, from the ratings before it.
    group: std::collections::BTreeMap<(PlayerIdx, usize), (Rated, Rated)>,
    /// The time of those entries.
    time: Option<i64>,
    /// The entry the results were rated again after, by these rules.
    since: Option<u64>,
    problems: Vec<String>,
}

type Rated = Option<crate::model::Rating>;

impl<'d, R: Federation> Replay<'d, R> {
    fn new(desk: &'d Desk<R>) -> Result<Self, DeskError> {
        let book = crate::book::Book::<R>::default();
        Ok(Self {
            ledger: crate::ledger::Ledger::build(&desk.rulebook, &book),
            book,
            status: Vec::new(),
            group: std::collections::BTreeMap::new(),
            time: None,
            since: desk.store.rules_since()?,
            problems: Vec::new(),
            desk,
        })
    }

    /// Replays one entry (its records moved into the book) and holds the moves it gives
    /// against those stored beside it.
    fn step(&mut self, entry: AuditEntry<R>) -> Result<(), DeskError> {
        use std::collections::BTreeMap;
        let rulebook = &self.desk.rulebook;
        if self.time != Some(entry.time) {
            self.group.clear();
            self.time = Some(entry.time);
        }
        let explicit = super::before_of(rulebook, &self.book, &self.ledger, &entry.change);
        let reach = entry.change.reach();
        let mut touched = reach.events_touched(&self.book);
        entry.change.apply_owned(&mut self.book, &mut self.status);
        touched.extend(reach.events_touched(&self.book));
        let update = self.ledger.update(rulebook, &self.book, touched);
        let effect = super::effect(
            rulebook,
            String::new(),
            &self.book,
            &self.ledger,
            update,
            explicit,
        );
        let mut single = BTreeMap::new();
        for c in effect.ratings {
            single.insert((c.player, c.list), (c.before, c.after));
            self.group
                .entry((c.player, c.list))
                .and_modify(|(_, after)| *after = c.after)
                .or_insert((c.before, c.after));
        }
        let Some(stored) = self.desk.store.moves_of(entry.seq)? else {
            return Ok(());
        };
        // Moves worked out by earlier rules (the results were rated again since) are not held
        // to these.
        if self.since.is_some_and(|since| entry.seq <= since) {
            self.group.clear();
            return Ok(());
        }
        let replayed: BTreeMap<(PlayerIdx, usize), (Rated, Rated)> =
            std::mem::take(&mut self.group)
                .into_iter()
                .filter(|(_, (before, after))| before != after)
                .collect();
        let shown: BTreeMap<(PlayerIdx, usize), (Rated, Rated)> = stored
            .iter()
            .map(|m| ((m.player, m.list), (m.before, m.after)))
            .collect();
        // The entry's own moves, or those of the edit it ends (an entry before it of the same
        // time without moves of its own may be one whose moves were never written: a disk that
        // filled up after its commit point).
        if shown != single && shown != replayed {
            self.problems.push(format!(
                "the rating moves shown beside #{} are not those the audit log gives (replayed: {} moves, shown: {})",
                entry.seq,
                replayed.len(),
                shown.len()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_with_a_line_break_stays_on_its_line() {
        assert_eq!(one_line("e1\n#9 forged"), "e1\\u000a#9 forged");
    }
}

/// The line a published list carries: `audit head #SEQ HASH` (or that the log is empty).
pub fn head_line(head: Option<(u64, Link)>) -> String {
    match head {
        Some((seq, link)) => format!(
            "audit head #{seq} {link} (`ratedesk check --against FILE` checks the history still leads here)"
        ),
        None => "audit head: none (the audit log is empty)".into(),
    }
}

/// The head a text carries at its foot — in an HTML page its `<footer>` (a row's `<` is
/// written `&lt;`), in CSV or text its last line — never one a row holds: a name could imitate
/// it, and a list whose foot was cut or altered carries none.
pub fn find_head(text: &str) -> Option<(u64, Link)> {
    let foot = match text.rfind("<footer>") {
        Some(at) => &text[at..],
        None => text.trim_end().lines().last()?,
    };
    foot.match_indices("audit head #").find_map(|(at, marker)| {
        let rest = &foot[at + marker.len()..];
        let (seq, rest) = rest.split_once(' ')?;
        let seq = seq.parse().ok()?;
        let hex = rest.get(..64)?;
        Some((seq, hex.parse().ok()?))
    })
}

/// Why a published list cannot be checked.
#[derive(Debug, thiserror::Error)]
pub enum HeadError {
    #[error(
        "it carries no audit head (`audit head #N HASH`): lists ratedesk publishes carry one at their foot"
    )]
    NoHead,
    #[error("{0}")]
    Read(String),
    #[error("{0}")]
    Store(#[from] crate::store::StoreError),
}

#[cfg(test)]
mod head_tests {
    use super::*;

    #[test]
    fn a_head_is_found_in_any_published_form_and_nowhere_else() {
        let link = Link([0xab; 32]);
        let line = head_line(Some((42, link)));
        for text in [
            format!("Id;Nimi\n1;Aho\n# {line}\n"),
            format!("<footer><p>{line}</p></footer>"),
            format!("list\n\n{line}"),
        ] {
            assert_eq!(find_head(&text), Some((42, link)), "{text}");
        }
        assert_eq!(find_head("audit head #42 abc"), None);
        // A row that imitates a head is not taken for the foot, and a list whose foot was cut
        // off carries none.
        let forged = head_line(Some((7, Link([0xcd; 32]))));
        let list = format!("Id;Nimi\n1;{forged}\n# {line}\n");
        assert_eq!(find_head(&list), Some((42, link)));
        assert_eq!(find_head(&format!("Id;Nimi\n1;{forged}\n2;Aho\n")), None);
        let page = format!("<td>{forged}</td></tr></tbody></table>\n</body>");
        assert_eq!(find_head(&page), None);
        assert_eq!(find_head("no head here"), None);
        assert_eq!(find_head(&head_line(None)), None);
    }
}
