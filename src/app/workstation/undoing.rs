//! Undo and redo in the workstation: what they would take next is shown first — the edit, who
//! made it and when, each board, event or player it changes back, and the board itself when
//! it is a result — and taken only on Enter. An officer never undoes what he cannot see.

use crate::app::Federation;
use crate::book::{Change, GameKey};
use crate::model::Game;
use crate::store::AuditEntry;

use super::state::{App, Place, Popup};
use super::views::board_players;

/// Lines of boards listed before "… and N more".
const BOARDS_LISTED: usize = 8;

/// An undo or redo shown before it is taken.
#[derive(Clone, Debug)]
pub struct UndoPreview {
    /// Undo (`true`) or redo.
    pub undo: bool,
    /// The audit entry it takes: refused if another is next by the time it is confirmed.
    pub seq: u64,
    /// The entry's own line, as `log` shows it.
    pub action: String,
    /// Who made the edit, and when (local time).
    pub made: String,
    /// What changes back, one line each: `Open 2025 round 3 board 2: 1-0 → no result`.
    pub lines: Vec<String>,
    /// The screens as the officer left them when the view moved to show the edit (an event
    /// open at another board, a pairing half typed): Esc puts them back.
    pub(super) left: Option<Box<Left>>,
}

/// The workstation's screens as they were before an undo's preview moved the view.
#[derive(Clone, Debug)]
pub(super) struct Left {
    tab: super::state::Tab,
    tournaments: super::tournaments::TournamentsState,
    back: Vec<Place>,
}

impl<R: Federation> App<R> {
    /// Undo (`undo`) or redo: shows what it would take, moving the view to the board when the
    /// edit is a result, and asks.
    pub(super) fn ask_undo(&mut self, undo: bool) {
        let entry = match self.desk.next_undo(undo) {
            Ok(Some(entry)) => entry,
            Ok(None) => {
                return self.say(if undo {
                    "nothing to undo"
                } else {
                    "nothing to redo"
                });
            }
            Err(e) => return self.warn(e.to_string()),
        };
        let left = self.show_change(&entry.change);
        let lines = self.change_lines(&entry.change, undo);
        // Another officer's edit (the officer has none left to take) says whose it is.
        let author = crate::app::os_name(&entry.user);
        let made = if author == self.desk.me() {
            made(&entry)
        } else {
            format!("{author}'s, not yours: {}", made(&entry))
        };
        self.popup = Some(Popup::Undo(Box::new(UndoPreview {
            undo,
            seq: entry.seq,
            action: crate::app::audit_log::one_line(&entry.action),
            made,
            lines,
            left,
        })));
    }

    /// Enter on an undo's preview: taken, and said in the status line.
    pub(super) fn take_undo(&mut self, preview: &UndoPreview) {
        if self.refuse_typed_ahead() {
            return;
        }
        match self.desk.undo_entry(preview.undo, preview.seq) {
            Ok(Some(effect)) => {
                let moved = effect.ratings.len();
                self.say(format!(
                    "{} — {}",
                    effect.action,
                    super::state::count(moved, "rating changed", "ratings changed")
                ));
                self.after_edit();
                // A board the undo took away leaves the cursor on the last one there is.
                if let Some(event) = self.tournaments.open {
                    let boards = self.boards(event, self.tournaments.round).len();
                    self.tournaments.board = self.tournaments.board.min(boards.saturating_sub(1));
                }
            }
            Ok(None) => self.say(if preview.undo {
                "nothing to undo"
            } else {
                "nothing to redo"
            }),
            Err(e) => self.warn(e.to_string()),
        }
    }

    /// Esc on an undo's preview: nothing changes, and the view goes back where it was.
    pub(super) fn keep_undo(&mut self, preview: &UndoPreview) {
        if let Some(left) = preview.left.clone() {
            let Left {
                tab,
                tournaments,
                back,
            } = *left;
            (self.tab, self.tournaments, self.back) = (tab, tournaments, back);
        }
        self.say(if preview.undo {
            "not undone"
        } else {
            "not redone"
        });
    }

    /// Moves the view to what a change touches when it is one event's boards: the event at the
    /// round and board of its first game. Returns the screens as they were, if the view moved.
    fn show_change(&mut self, change: &Change<R>) -> Option<Box<Left>> {
        let (event, round, board) = change.games.first()?.key;
        if change.games.iter().any(|g| g.key.0 != event) || !change.events.is_empty() {
            return None;
        }
        if event >= self.desk.book().events.len() {
            return None;
        }
        let here = self.here();
        let games = &self.desk.book().events[event].games;
        let index = self
            .boards(event, round)
            .iter()
            .position(|&g| games[g].board == board)
            .unwrap_or(0);
        let place = Place::Event {
            event,
            round,
            board: index,
            row: 0,
            view: self.tournaments.view,
            pane: super::state::Pane::Round,
            mark: None,
        };
        if let Place::Event {
            event: e,
            round: r,
            board: b,
            ..
        } = here
            && (e, r, b) == (event, round, index)
        {
            return None;
        }
        let left = Left {
            tab: self.tab,
            tournaments: self.tournaments.clone(),
            back: self.back.clone(),
        };
        self.visit(place);
        Some(Box::new(left))
    }

    /// What a change does when undone (`undo`) or redone, a line for each board, event and
    /// player record it touches (boards beyond the first few counted).
    fn change_lines(&self, change: &Change<R>, undo: bool) -> Vec<String> {
        let (rulebook, book) = (self.desk.rulebook(), self.desk.book());
        let event_name = |e: usize| {
            book.events
                .get(e)
                .map_or_else(|| format!("event #{e}"), |ev| ev.name.clone())
        };
        let mut lines = Vec::new();
        for delta in &change.events {
            let (now, then) = sides(delta, undo);
            let name = then
                .as_ref()
                .or(now.as_ref())
                .map_or_else(|| event_name(delta.key), |r| r.event.name.clone());
            match (now, then) {
                (None, Some(_)) => lines.push(format!("{name}: comes back")),
                (Some(_), None) => lines.push(format!("{name}: removed")),
                (Some(now), Some(then)) => {
                    // Entrants who come back or leave, by name and start number.
                    let (a, b) = (&now.event.participants, &then.event.participants);
                    for (n, p) in b.iter().enumerate().filter(|(_, p)| !a.contains(p)) {
                        lines.push(format!(
                            "{name}: {} comes back as no. {}",
                            super::views::player_name(rulebook, book, *p),
                            n + 1
                        ));
                    }
                    for p in a.iter().filter(|p| !b.contains(p)) {
                        lines.push(format!(
                            "{name}: {} leaves it",
                            super::views::player_name(rulebook, book, *p)
                        ));
                    }
                    let mut details = now.clone();
                    details.event.participants.clone_from(b);
                    if details != *then {
                        lines.push(format!("{name}: its details as they were"));
                    }
                }
                (None, None) => {}
            }
        }
        for delta in change.games.iter().take(BOARDS_LISTED) {
            let (now, then) = sides(delta, undo);
            let board = board_name(&event_name(delta.key.0), delta.key);
            match (now, then) {
                (Some(a), Some(b)) if (a.white(), a.black()) == (b.white(), b.black()) => {
                    lines.push(format!("{board}: {}", board_players(rulebook, book, a)));
                    lines.push(format!("  result {} → {}", result_text(a), result_text(b)));
                }
                _ => {
                    lines.push(format!("{board}:"));
                    lines.push(format!("  {}", game_text(rulebook, book, now.as_ref())));
                    lines.push(format!("  → {}", game_text(rulebook, book, then.as_ref())));
                }
            }
        }
        if change.games.len() > BOARDS_LISTED {
            lines.push(format!(
                "… and {} more boards",
                change.games.len() - BOARDS_LISTED
            ));
        }
        let (mut added, mut removed, mut changed) = (0, 0, 0);
        for delta in &change.players {
            let (now, then) = sides(delta, undo);
            match (now, then) {
                (None, Some(_)) => added += 1,
                (Some(_), None) => removed += 1,
                _ => changed += 1,
            }
        }
        if change.players.len() == 1 && changed == 1 {
            let p = change.players[0].key;
            if let Some(info) = book.players.get(p) {
                lines.push(format!("{} ({}): his record as it was", info.name, info.id));
            }
        } else {
            for (n, what) in [
                (added, "players come back"),
                (removed, "players removed"),
                (changed, "players' records as they were"),
            ] {
                if n > 0 {
                    lines.push(format!("{n} {what}"));
                }
            }
        }
        lines
    }
}

/// A record as it is now and as the undo (`undo`) or redo would leave it.
fn sides<K, V>(delta: &crate::book::Delta<K, V>, undo: bool) -> (&Option<V>, &Option<V>) {
    if undo {
        (&delta.after, &delta.before)
    } else {
        (&delta.before, &delta.after)
    }
}

/// `Open 2025 round 3 board 2`.
fn board_name(event: &str, (_, round, board): GameKey) -> String {
    format!("{event} round {round} board {board}")
}

/// A board's result as the round shows it, or `no result`.
fn result_text(game: &Game) -> String {
    game.result.map_or_else(
        || "no result".to_string(),
        |r| super::views::result_label(r, game.black().is_none()),
    )
}

/// A board as it stands: its players and result, or `no board`.
fn game_text<R: Federation>(
    rulebook: &R,
    book: &crate::book::Book<R>,
    game: Option<&Game>,
) -> String {
    game.map_or_else(
        || "no board".into(),
        |g| format!("{} {}", board_players(rulebook, book, g), result_text(g)),
    )
}

/// Who made an entry, and when, as the log says it.
fn made<R: Federation>(entry: &AuditEntry<R>) -> String {
    format!(
        "by {} {}",
        crate::app::audit_log::one_line(&entry.user),
        crate::app::audit_log::entry_time(entry.time)
    )
}
