//! What an edit is checked against: read access to the current data, and the checks every
//! edit passes before it is compiled — players in use, games that may stand in their event,
//! participants entered once, event dates, and the event a play-off decides (SSL 2.10).

use std::collections::BTreeSet;

use super::edit::{EditError, err};
use crate::book::Book;
use crate::book::{Change, EventRecord, PlayerRecord, PlayerStatus};
use crate::ledger::Ledger;
use crate::model::{Clash, Event, Game, PlayerIdx};
use crate::rules::{Award, Rulebook};

/// Read access to the current data, for checking edits.
pub(crate) struct Current<'a, R: Rulebook> {
    pub rulebook: &'a R,
    pub book: &'a Book<R>,
    pub status: &'a [PlayerStatus],
    pub ledger: &'a Ledger<R>,
    /// The day the edit is made: a result keyed today arrived today (the stamp of a rulebook
    /// that rates a game by its own receipt date).
    pub today: chrono::NaiveDate,
}

impl<R: Rulebook> Current<'_, R> {
    pub(super) fn player_name(&self, p: PlayerIdx) -> String {
        self.book.players.get(p).map_or_else(
            || format!("#{p}"),
            |i| {
                if i.name.is_empty() {
                    i.id.clone()
                } else {
                    self.rulebook.name_order().write(&i.name).into_owned()
                }
            },
        )
    }

    pub(super) fn active(&self, p: PlayerIdx) -> Result<(), EditError> {
        match self.status.get(p) {
            Some(PlayerStatus::Active) => Ok(()),
            Some(_) => err(format!(
                "player {} is no longer in use",
                self.player_name(p)
            )),
            None => err(format!("there is no player #{p}")),
        }
    }

    pub(super) fn awards(&self, p: PlayerIdx) -> Vec<Award<R::Award>> {
        self.ledger.awards(self.book, p)
    }

    /// The game on a board, which must be paired.
    pub(super) fn paired(&self, e: usize, round: u32, board: u32) -> Result<&Game, EditError> {
        let ev = self.live_event(e)?;
        ev.games
            .iter()
            .find(|g| (g.round, g.board) == (round, board))
            .ok_or_else(|| {
                EditError(format!(
                    "{}, round {round}, board {board}: no pairing on this board",
                    ev.id
                ))
            })
    }

    pub(super) fn live_event(&self, e: usize) -> Result<&Event, EditError> {
        match (self.book.events.get(e), self.book.live.get(e)) {
            (Some(ev), Some(true)) => Ok(ev),
            _ => err(format!("there is no event #{e}")),
        }
    }

    pub(super) fn record(&self, p: PlayerIdx) -> PlayerRecord<R> {
        PlayerRecord {
            info: self.book.players[p].clone(),
            seeds: self.book.seeds[p].clone(),
            held: self.book.held[p].clone(),
            confirmed: self.book.confirmed[p].clone(),
            status: self.status[p],
        }
    }

    pub(super) fn event_record(&self, e: usize) -> EventRecord {
        EventRecord {
            event: Event {
                games: Vec::new(),
                ..self.book.events[e].clone()
            },
            live: self.book.live[e],
        }
    }

    /// A game as stored after its result changes from `before`'s to `after`'s, with its own
    /// receipt date where the rulebook rates a game by it ([`Rulebook::keeps_game_receipt`];
    /// ISL: "Góð regla er að slá inn hverja umferð strax að henni lokinni"): a result that
    /// arrives is stamped with the day it was keyed — never before the game was played, nor
    /// before the event's own receipt date when one is recorded (the officer said when its
    /// results arrived) — unless a date came with it; a correction keeps the day the result
    /// first arrived; a result cleared was never received. Elsewhere the game is stored as
    /// given.
    pub(super) fn stamped(&self, event: &Event, before: Option<&Game>, mut after: Game) -> Game {
        if !self.rulebook.keeps_game_receipt() {
            return after;
        }
        let arrived_before = before.and_then(|b| b.result.map(|_| b.received));
        after.received = match (after.result, arrived_before) {
            (None, _) => None,
            (Some(_), Some(kept)) => kept,
            (Some(_), None) => after.received.or_else(|| {
                let played = after.date.unwrap_or(event.start);
                Some(self.today.max(played).max(event.received.unwrap_or(played)))
            }),
        };
        after
    }

    /// A player's re-entries with the one of `date` set to `entry`, or (`None`) taken back.
    /// Refused where the rulebook does not re-enter players, for a day after today or outside
    /// the record's years, and for taking back a re-entry he does not have.
    pub(super) fn reentry_set(
        &self,
        info: &mut crate::model::PlayerInfo,
        date: chrono::NaiveDate,
        entry: Option<(crate::model::Rating, crate::model::Entry)>,
    ) -> Result<(), EditError> {
        if !self.rulebook.restarts() {
            return err(format!(
                "{}: this rulebook does not re-enter a player on a rating from a date",
                info.id
            ));
        }
        if date > self.today {
            return err(format!("{}: re-entry on {date} is after today", info.id));
        }
        if !crate::model::plausible_date(date) {
            return err(format!(
                "{}: re-entry on {date}, outside the years {}–{}",
                info.id,
                crate::model::YEARS.start(),
                crate::model::YEARS.end()
            ));
        }
        let at = info.reentries.iter().position(|r| r.date == date);
        match (entry, at) {
            (Some((rating, on)), Some(at)) => {
                info.reentries[at] = crate::model::Reentry { date, rating, on };
            }
            (Some((rating, on)), None) => {
                info.reentries
                    .push(crate::model::Reentry { date, rating, on });
                info.reentries.sort_by_key(|r| r.date);
            }
            (None, Some(at)) => {
                info.reentries.remove(at);
            }
            (None, None) => {
                return err(format!("{}: no re-entry on {date} to take back", info.id));
            }
        }
        Ok(())
    }

    /// The boards whose own receipt date [`Edit::SetReceived`] changes, before and after:
    /// every board of `event` (of `round`, when given) with a result. Refused where the
    /// rulebook rates an event by its event's receipt only, for a round without a result, for
    /// a day after today, and for a day before a game was played (naming its round and board).
    ///
    /// [`Edit::SetReceived`]: super::edit::Edit::SetReceived
    pub(super) fn received_set(
        &self,
        event: &Event,
        round: Option<u32>,
        received: Option<chrono::NaiveDate>,
    ) -> Result<Vec<(Game, Game)>, EditError> {
        let within = round.map_or(String::new(), |r| format!(", round {r}"));
        if !self.rulebook.keeps_game_receipt() {
            return err(format!(
                "{}: this rulebook does not rate a game by the day its result was received",
                event.id
            ));
        }
        if let Some(day) = received
            && day > self.today
        {
            return err(format!(
                "{}{within}: received {day} is after today",
                event.id
            ));
        }
        let mut changed = Vec::new();
        let mut any = false;
        for g in event
            .games
            .iter()
            .filter(|g| g.result.is_some() && round.is_none_or(|r| g.round == r))
        {
            any = true;
            let played = g.date.unwrap_or(event.start);
            if let Some(day) = received
                && day < played
            {
                return err(format!(
                    "{}, round {}, board {}: received {day} is before the game was played \
                     ({played})",
                    event.id, g.round, g.board
                ));
            }
            if g.received != received {
                let after = Game {
                    received,
                    ..g.clone()
                };
                changed.push((g.clone(), after));
            }
        }
        if !any {
            return err(format!("{}{within}: no result has been received", event.id));
        }
        Ok(changed)
    }

    /// A game may stand in its event: two different known players, neither with another game
    /// in the round (a bye counts), on a board of its own.
    pub(super) fn check_game(
        &self,
        event: &Event,
        game: &Game,
        replacing: Option<(u32, u32)>,
    ) -> Result<(), EditError> {
        let at = format!("{}, round {}, board {}", event.id, game.round, game.board);
        if game.round == 0 || game.board == 0 {
            return err(format!("{at}: rounds and boards are numbered from 1"));
        }
        if game.round > crate::model::MAX_ROUND || game.board > crate::model::MAX_BOARD {
            return err(format!(
                "{at}: an event has at most {} rounds and a round {} boards",
                crate::model::MAX_ROUND,
                crate::model::MAX_BOARD
            ));
        }
        for p in std::iter::once(game.white()).chain(game.black()) {
            if !event.participants.contains(&p) {
                return err(format!(
                    "{at}: {} is not a participant",
                    self.player_name(p)
                ));
            }
        }
        self.active(game.white())
            .map_err(|e| EditError(format!("{at}: {e}")))?;
        if let Some(b) = game.black() {
            self.active(b)
                .map_err(|e| EditError(format!("{at}: {e}")))?;
        }
        let others = event
            .games
            .iter()
            .filter(|g| g.round == game.round && Some((g.round, g.board)) != replacing);
        if let Some(clash) = Clash::of(game, others) {
            return err(format!(
                "{at}: {}",
                clash.describe(game, |p| self.player_name(p))
            ));
        }
        Ok(())
    }

    /// Participants are players in use, each entered once.
    pub(super) fn check_participants(
        &self,
        event: &Event,
        players: &[PlayerIdx],
    ) -> Result<(), EditError> {
        let mut seen = BTreeSet::new();
        for &p in players {
            self.active(p)
                .map_err(|e| EditError(format!("{}: {e}", event.id)))?;
            if !seen.insert(p) {
                return err(format!(
                    "{}: {} is entered twice",
                    event.id,
                    self.player_name(p)
                ));
            }
        }
        Ok(())
    }

    pub(super) fn check_event(&self, event: &Event) -> Result<(), EditError> {
        let years = crate::model::YEARS;
        if !crate::model::plausible_date(event.start) || !crate::model::plausible_date(event.end) {
            return err(format!(
                "{}: its dates ({} to {}) are outside the years {}–{}",
                event.id,
                event.start,
                event.end,
                years.start(),
                years.end()
            ));
        }
        if event.start > event.end {
            return err(format!(
                "{}: starts {} after it ends {}",
                event.id, event.start, event.end
            ));
        }
        Ok(())
    }

    /// The live play-offs that name the event `id` as the one they decide (SSL 2.10).
    pub(super) fn live_playoffs_of<'b>(&'b self, id: &'b str) -> impl Iterator<Item = usize> + 'b {
        self.book
            .events
            .iter()
            .zip(&self.book.live)
            .enumerate()
            .filter(move |(_, (e, live))| **live && e.playoff_of.as_deref() == Some(id))
            .map(|(p, _)| p)
    }

    /// A play-off names the event it decides (SSL 2.10) by the id of another event in use —
    /// in the database (`itself`: the event being edited, which cannot decide itself) or in
    /// the same import (`batch`).
    pub(super) fn check_playoff(
        &self,
        event: &Event,
        itself: Option<usize>,
        batch: &[Event],
    ) -> Result<(), EditError> {
        let Some(decided) = event.playoff_of.as_deref() else {
            return Ok(());
        };
        let stored = self.book.live_event(decided).filter(|&e| Some(e) != itself);
        let imported = batch.iter().any(|e| e.id == decided && e.id != event.id);
        if decided == event.id || (stored.is_none() && !imported) {
            return err(format!(
                "{}: a play-off of '{decided}', which names no other event",
                event.id
            ));
        }
        Ok(())
    }
}

/// The longest time control taken: a day's base time, an hour's increment. Longer is a typing
/// slip (or a unit mistaken), not a game.
const MAX_BASE_SECONDS: u32 = 24 * 3600;
const MAX_INCREMENT_SECONDS: u32 = 3600;

/// The longest id and name kept: far beyond any real one (an event's id may be a file's name,
/// up to 255 bytes, and a new player's id is made of it), short enough for every list.
const MAX_ID: usize = 300;
const MAX_NAME: usize = 300;

pub use crate::model::is_bidi_control;

/// A text field of a record that a list, a log or a terminal shows: its length, and no control
/// or bidirectional control characters. `what` names it in the message.
fn check_text(what: &str, text: &str, max: usize) -> Result<(), EditError> {
    let length = text.chars().count();
    if length > max {
        return err(format!(
            "{what} is {length} characters long (at most {max}): {:?}…",
            text.chars().take(40).collect::<String>()
        ));
    }
    if text.chars().any(char::is_control) {
        return err(format!(
            "{what} {text:?} has a control character (a line break?)"
        ));
    }
    if text.chars().any(is_bidi_control) {
        return err(format!(
            "{what} {:?} has a character that reorders text on screen (a bidirectional control)",
            text.chars()
                .filter(|&c| !is_bidi_control(c))
                .collect::<String>()
        ));
    }
    Ok(())
}

/// What every record an edit writes must be, wherever it came from (a file, a form): ids and
/// names of a sane length on one line, without control characters (they are shown in lists,
/// logs and terminals), dates in the years of the record, ratings a list can publish, an
/// event's id not empty, and a time control a game can have.
pub(super) fn check_records<R: Rulebook>(change: &Change<R>) -> Result<(), EditError> {
    let bad = |text: &str| text.chars().any(char::is_control);
    for d in &change.players {
        let Some(rec) = &d.after else { continue };
        let info = &rec.info;
        // Only what the edit changes: a record kept from before these checks is not held
        // against an edit that leaves its fields as they were.
        let before = d.before.as_ref().map(|b| &b.info);
        if before.is_none_or(|b| b.id != info.id) {
            check_text("the player id", &info.id, MAX_ID)?;
        }
        if before.is_none_or(|b| b.name != info.name) {
            check_text(&format!("the name of {}", info.id), &info.name, MAX_NAME)?;
        }
        if let Some(club) = info
            .club
            .as_ref()
            .filter(|_| before.is_none_or(|b| b.club != info.club))
        {
            check_text(&format!("the club of {}", info.id), club, MAX_NAME)?;
        }
        if let Some(born) = info.born.filter(|&b| {
            !crate::model::plausible_date(b) && before.is_none_or(|old| old.born != info.born)
        }) {
            return err(format!(
                "{}: born {born}, outside the years {}–{}",
                info.id,
                crate::model::YEARS.start(),
                crate::model::YEARS.end()
            ));
        }
        let ratings = info
            .fide
            .iter()
            .filter(|f| before.is_none_or(|b| !b.fide.contains(f)))
            .flat_map(|f| [f.standard, f.rapid, f.blitz])
            .chain(
                info.national
                    .iter()
                    .filter(|n| before.is_none_or(|b| !b.national.contains(n)))
                    .flat_map(|n| [n.standard, n.rapid]),
            )
            .flatten()
            .chain(
                info.reentries
                    .iter()
                    .filter(|r| before.is_none_or(|b| !b.reentries.contains(r)))
                    .map(|r| r.rating),
            );
        for r in ratings {
            if !crate::model::RATINGS.contains(&i64::from(r)) {
                return err(format!(
                    "{}: a rating of {r} is outside {}–{}",
                    info.id,
                    crate::model::RATINGS.start(),
                    crate::model::RATINGS.end()
                ));
            }
        }
    }
    for d in &change.events {
        let Some(rec) = &d.after else { continue };
        let ev = &rec.event;
        if !rec.live {
            continue;
        }
        if ev.id.trim().is_empty() {
            return err(format!("the event '{}' has no id", ev.name));
        }
        if bad(&ev.id) {
            return err(format!(
                "the event id {:?} has a control character (a line break?)",
                ev.id
            ));
        }
        let before = d.before.as_ref().map(|b| &b.event);
        if before.is_none_or(|b| b.id != ev.id) {
            check_text("the event id", &ev.id, MAX_ID)?;
        }
        if before.is_none_or(|b| b.name != ev.name) {
            check_text(&format!("the name of event {}", ev.id), &ev.name, MAX_NAME)?;
        }
        if let Some(tc) = &ev.time_control {
            let base_ok = tc.base_seconds <= MAX_BASE_SECONDS
                && tc.added.iter().all(|a| a.seconds <= MAX_BASE_SECONDS);
            if !base_ok || tc.increment_seconds > MAX_INCREMENT_SECONDS {
                return err(format!(
                    "{}: the time control ({} min + {} s) is beyond any game's (at most {} min + {} s)",
                    ev.id,
                    tc.base_seconds / 60,
                    tc.increment_seconds,
                    MAX_BASE_SECONDS / 60,
                    MAX_INCREMENT_SECONDS
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::fixture::{book_of, game};
    use crate::book::placeholder_event;
    use crate::rules::ssl::Ssl;

    /// Every way a game may not stand in its event, said with its place and the players'
    /// names; a game replacing itself (a correction) stands.
    #[test]
    fn a_game_stands_in_its_event_only_in_a_place_of_its_own() {
        let (book, status) = book_of(
            &[
                ("FIN1", "Aho, Aino", PlayerStatus::Active),
                ("FIN2", "Berg, Bo", PlayerStatus::Active),
                ("FIN3", "Cajan, Carl", PlayerStatus::Active),
                ("FIN4", "Dahl, Dan", PlayerStatus::Active),
                ("FIN5", "Eke, Eva", PlayerStatus::Deleted),
            ],
            Vec::new(),
        );
        let ledger = Ledger::build(&Ssl, &book);
        let current = Current {
            rulebook: &Ssl,
            book: &book,
            status: &status,
            ledger: &ledger,
            today: crate::clock::today(),
        };
        let event = Event {
            id: "e1".into(),
            participants: vec![0, 1, 2, 4],
            games: vec![game(1, 1, 0, Some(1))],
            ..placeholder_event()
        };
        let refused = |g: Game, replacing| {
            current
                .check_game(&event, &g, replacing)
                .expect_err("refused")
                .0
        };
        assert_eq!(
            refused(game(1, 2, 2, Some(2)), None),
            "e1, round 1, board 2: Cajan, Carl plays against himself"
        );
        assert_eq!(
            refused(game(1, 2, 2, Some(0)), None),
            "e1, round 1, board 2: Aho, Aino has two games in round 1"
        );
        assert_eq!(
            refused(game(1, 1, 2, None), None),
            "e1, round 1, board 1: board 1 of round 1 is taken twice"
        );
        assert!(refused(game(1, 2, 3, None), None).ends_with("Dahl, Dan is not a participant"));
        assert!(refused(game(1, 2, 4, None), None).contains("no longer in use"));
        assert!(refused(game(0, 2, 2, None), None).contains("numbered from 1"));
        assert!(refused(game(1, 0, 2, None), None).contains("numbered from 1"));
        assert!(
            refused(game(crate::model::MAX_ROUND + 1, 1, 2, None), None).contains("at most 999")
        );
        // The game itself corrected, and the next round, stand.
        assert!(
            current
                .check_game(&event, &game(1, 1, 1, Some(0)), Some((1, 1)))
                .is_ok()
        );
        assert!(
            current
                .check_game(&event, &game(2, 1, 0, Some(2)), None)
                .is_ok()
        );
    }

    #[test]
    fn a_text_field_is_of_a_sane_length_on_one_line_and_reads_in_its_order() {
        assert!(check_text("the player id", &"X".repeat(MAX_ID), MAX_ID).is_ok());
        let long = check_text("the player id", &"X".repeat(MAX_ID + 1), MAX_ID);
        assert!(long.is_err_and(|e| e.0.contains("301 characters long (at most 300)")));
        assert!(check_text("a name", "Aho\nAino", MAX_NAME).is_err());
        let bidi = check_text("a name", "Aho, \u{2067}Aino", MAX_NAME);
        assert!(bidi.is_err_and(|e| e.0.contains("Aho, Aino")));
        assert!(check_text("a name", "Þórhallsdóttir, Guðrún – İnce", MAX_NAME).is_ok());
    }
}
