//! The Tournaments tab: the event list (its filter box holds the typing), and an open event
//! with its two panes — the round being keyed and a table (standings, rating report or
//! crosstable) — one of which has the focus. Results are keyed only while the round pane has
//! it, on the board the cursor shows.

use crate::app::Federation;
use crate::ledger;
use crate::model::{GameResult, PlayerIdx};

use super::action::Action;
use super::state::{App, PickFor, PickState, Place, Popup, Standing, is_move, step};
use crate::app::Edit;

/// What the open event's table pane shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, strum::VariantArray)]
pub enum EventView {
    #[default]
    Standings,
    /// The rating report: old, new, ±, games, score, expected, performance, factors.
    Report,
    Crosstable,
}

impl EventView {
    pub const ALL: &'static [EventView] = <EventView as strum::VariantArray>::VARIANTS;
}

/// Which pane of an open event has the focus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pane {
    #[default]
    Round,
    Table,
}

#[derive(Clone, Debug)]
pub struct TournamentsState {
    pub query: String,
    /// Live events, newest first, filtered by the query.
    pub list: Vec<usize>,
    pub selected: usize,
    pub open: Option<usize>,
    pub round: u32,
    pub board: usize,
    /// The cursor in the table pane.
    pub row: usize,
    /// Start numbers being keyed for a pairing (`12 7`), while pairing.
    pub pairing: Option<String>,
    pub view: EventView,
    pub pane: Pane,
    /// The player the event was opened for (from his card): highlighted.
    pub mark: Option<PlayerIdx>,
}

impl Default for TournamentsState {
    fn default() -> Self {
        Self {
            query: String::new(),
            list: Vec::new(),
            selected: 0,
            open: None,
            round: 1,
            board: 0,
            row: 0,
            pairing: None,
            view: EventView::Standings,
            pane: Pane::Round,
            mark: None,
        }
    }
}

impl<R: Federation> App<R> {
    pub(super) fn refresh_tournaments(&mut self) {
        let book = self.desk.book();
        // As the player search reads a query: accents folded, each word on its own, in any
        // order, over the name, the id and the dates (`açık 2016`).
        let q = crate::model::fold_name(self.tournaments.query.trim());
        let words: Vec<&str> = q.split_whitespace().collect();
        let mut list: Vec<usize> = ledger::event_order(&book.events)
            .into_iter()
            .filter(|&e| book.live[e])
            .filter(|&e| {
                if words.is_empty() {
                    return true;
                }
                let ev = &book.events[e];
                let text = format!(
                    "{} {} {} {}",
                    crate::model::fold_name(&ev.name),
                    crate::model::fold_name(&ev.id),
                    ev.start,
                    ev.end
                );
                words.iter().all(|w| text.contains(w))
            })
            .collect();
        list.reverse();
        self.tournaments.list = list;
        self.tournaments.selected = self
            .tournaments
            .selected
            .min(self.tournaments.list.len().saturating_sub(1));
    }

    /// Opens an event in the Tournaments tab (Esc comes back here).
    pub fn open_event(&mut self, event: usize) {
        self.open_event_for(event, None, 1);
    }

    /// Opens an event at a round for a player: his row and his board have the cursor.
    pub fn open_event_for(&mut self, event: usize, player: Option<PlayerIdx>, round: u32) {
        if let Some(i) = self.tournaments.list.iter().position(|&e| e == event) {
            self.tournaments.selected = i;
        }
        let row = player
            .and_then(|p| self.standings(event).iter().position(|s| s.player == p))
            .unwrap_or(0);
        let board = player
            .and_then(|p| {
                let games = &self.desk.book().events[event].games;
                self.boards(event, round)
                    .iter()
                    .position(|&g| games[g].white() == p || games[g].black() == Some(p))
            })
            .unwrap_or(0);
        self.visit(Place::Event {
            event,
            round,
            board,
            row,
            view: self.tournaments.view,
            pane: Pane::Round,
            mark: player,
        });
    }

    pub(super) fn update_tournaments(&mut self, action: Action) {
        if let (Some(event), Some(text)) = (self.tournaments.open, self.tournaments.pairing.clone())
        {
            return self.update_pairing(event, &text, action);
        }
        let page = self.page();
        let Some(event) = self.tournaments.open else {
            let t = &mut self.tournaments;
            match action {
                Action::Open => {
                    if let Some(&e) = t.list.get(t.selected) {
                        self.open_event(e);
                    }
                }
                Action::Back if !t.query.is_empty() => {
                    t.query.clear();
                    self.refresh_tournaments();
                }
                a if is_move(a) => t.selected = step(t.selected, t.list.len(), a, page),
                _ => {}
            }
            return;
        };
        let rounds = self.rounds(event);
        let boards = self.boards(event, self.tournaments.round).len();
        let rows = self.desk.book().events[event].participants.len();
        let t = &mut self.tournaments;
        let moves = is_move(action) || matches!(action, Action::NextBoard | Action::PrevBoard);
        match action {
            Action::Back => self.go_back(Place::Events),
            Action::NextPane => {
                t.pane = match t.pane {
                    Pane::Round => Pane::Table,
                    Pane::Table => Pane::Round,
                }
            }
            Action::NextView | Action::PrevView => {
                let views = EventView::ALL;
                let i = views.iter().position(|v| *v == t.view).unwrap_or(0);
                let n = views.len();
                t.view = views[if action == Action::NextView {
                    (i + 1) % n
                } else {
                    (i + n - 1) % n
                }];
            }
            _ if moves && t.pane == Pane::Table => t.row = step(t.row, rows, action, page),
            _ if moves => t.board = step(t.board, boards, action, page),
            Action::Open if t.pane == Pane::Table => {
                if let Some(s) = self.standings(event).get(self.tournaments.row) {
                    self.open_card(s.player);
                }
            }
            Action::Pair => {
                t.pairing = Some(String::new());
                t.pane = Pane::Round;
                self.say(
                    "key the start numbers of white and black (12 7, or 12 for a bye) and Enter",
                );
            }
            Action::AddParticipant => {
                let results = self.search.search("");
                self.popup = Some(Popup::Pick(PickState {
                    purpose: PickFor::Participant(event),
                    query: String::new(),
                    results,
                    selected: 0,
                }));
            }
            Action::ReceivedDate => {
                let round = t.round;
                let ev = &self.desk.book().events[event];
                if !self.desk.rulebook().keeps_game_receipt() {
                    return self.warn(
                        "this rulebook does not rate a game by the day its result was received",
                    );
                }
                let mut days = ev
                    .games
                    .iter()
                    .filter(|g| g.round == round && g.is_rated_game())
                    .map(|g| g.received);
                let Some(first) = days.next() else {
                    return self.warn(format!("round {round} has no result yet"));
                };
                let same = days.all(|d| d == first);
                self.popup = Some(Popup::Form(super::forms::FormState::round_received(
                    event,
                    round,
                    first.filter(|_| same),
                )));
                if !same {
                    self.say("the round's results were received on different days");
                }
            }
            Action::Withdraw if t.pane == Pane::Round => self.warn(
                "the round has the focus: Tab to the table, choose the player and withdraw him there",
            ),
            Action::Withdraw => {
                if let Some(s) = self.standings(event).get(self.tournaments.row) {
                    let edit = Edit::Withdraw {
                        event,
                        player: s.player,
                    };
                    // Always shown first: his boards and start number go with him.
                    match self.desk.preview(&edit) {
                        Ok(effect) => self.confirm(edit, effect, None),
                        Err(e) => self.warn(e.to_string()),
                    }
                }
            }
            Action::NextRound => {
                // One round past the last: the next round to pair.
                t.round = (t.round + 1).min(rounds + 1);
                t.board = 0;
            }
            Action::PrevRound => {
                t.round = t.round.saturating_sub(1).max(1);
                t.board = 0;
            }
            Action::WhiteWins
            | Action::BlackWins
            | Action::Draw
            | Action::ForfeitWhite
            | Action::ForfeitBlack
            | Action::RareResults
            | Action::ClearResult
                if t.pane == Pane::Table =>
            {
                self.warn("the table has the focus: Tab goes back to the round to key results")
            }
            Action::WhiteWins => self.set_result(Some(GameResult::WHITE_WINS)),
            Action::BlackWins => self.set_result(Some(GameResult::BLACK_WINS)),
            Action::Draw => self.set_result(Some(GameResult::DRAW)),
            Action::ForfeitWhite => self.set_result(Some(GameResult::unplayed(2, 0))),
            Action::ForfeitBlack => self.set_result(Some(GameResult::unplayed(0, 2))),
            Action::RareResults => self.popup = Some(Popup::Rare { selected: 0 }),
            Action::ClearResult => self.set_result(None),
            _ => {}
        }
    }

    /// The rounds an event has games in.
    pub fn rounds(&self, event: usize) -> u32 {
        self.desk.book().events[event]
            .games
            .iter()
            .map(|g| g.round)
            .max()
            .unwrap_or(0)
    }

    /// The boards of a round, in board order: indices into the event's games.
    pub fn boards(&self, event: usize, round: u32) -> Vec<usize> {
        let games = &self.desk.book().events[event].games;
        let mut boards: Vec<usize> = (0..games.len())
            .filter(|&g| games[g].round == round)
            .collect();
        boards.sort_by_key(|&g| games[g].board);
        boards
    }

    /// An event's standings: participants by points, then the rating they brought in, which
    /// is known before any result is keyed (the state on the event's list before it starts).
    pub fn standings(&self, event: usize) -> std::sync::Arc<Vec<Standing>> {
        let revision = self.desk.revision();
        self.kept_standings
            .get(revision, event, || self.standings_found(event))
    }

    /// [`App::standings`], found in the record.
    fn standings_found(&self, event: usize) -> Vec<Standing> {
        let (book, ledger, rulebook) = (self.desk.book(), self.desk.ledger(), self.desk.rulebook());
        let ev = &book.events[event];
        let list = rulebook.entry_list(ev, &book.events);
        let before = ev.start.pred_opt().unwrap_or(ev.start);
        let mut rows = super::views::standings(book, ledger, event);
        for s in &mut rows {
            s.entry = s.rating.as_ref().and_then(|r| r.old).or_else(|| {
                list.and_then(|l| ledger.state_on(rulebook, book, s.player, l, before))
                    .and_then(|state| rulebook.rating_of(&state))
            });
        }
        rows.sort_by(|a, b| b.points.cmp(&a.points).then(b.entry.cmp(&a.entry)));
        rows
    }

    /// Keys a result on the selected board: applied at once when it moves nothing beyond this
    /// event and no title, otherwise shown for confirmation first. The same result again
    /// stores nothing.
    pub(super) fn set_result(&mut self, result: Option<GameResult>) {
        let Some(event) = self.tournaments.open else {
            return;
        };
        let boards = self.boards(event, self.tournaments.round);
        let Some(&g) = boards.get(self.tournaments.board) else {
            return self.warn("no board here: pair the round first");
        };
        let game = self.desk.book().events[event].games[g].clone();
        let next = (self.tournaments.board + 1).min(boards.len().saturating_sub(1));
        if game.result == result.map(|r| r.keyed_on(game.black().is_none())) {
            self.say(format!(
                "board {}: already {}, nothing to change",
                game.board,
                game.result.map_or("without a result".into(), |r| {
                    super::views::result_label(r, game.black().is_none())
                })
            ));
            self.tournaments.board = next;
            return;
        }
        let edit = Edit::SetResult {
            event,
            round: game.round,
            board: game.board,
            result,
        };
        let effect = match self.desk.preview(&edit) {
            Ok(effect) => effect,
            Err(e) => return self.warn(e.to_string()),
        };
        // A correction (a board that had another result) is shown before it is made, and so is
        // anything that touches a title.
        if game.result.is_some() || !effect.gained.is_empty() || !effect.lost.is_empty() {
            self.confirm(edit, effect, None);
            return;
        }
        if self.apply(edit) {
            if let (None, Some(r)) = (game.black(), result) {
                // A bye moves no rating: the status line names the player it was keyed for.
                let r = r.keyed_on(true);
                self.say(format!(
                    "saved: bye of {}, round {} board {}: {} ({})",
                    super::views::player_name(self.desk.rulebook(), self.desk.book(), game.white()),
                    game.round,
                    game.board,
                    super::views::result_label(r, true),
                    r.code()
                ));
            }
            self.tournaments.board = next;
            self.tell_period(event, game.round, game.board);
        }
    }

    /// After a result of an event rated by period: the status line says which period its board
    /// falls into, and that it is late when it is (and the day it was received).
    pub(super) fn tell_period(&mut self, event: usize, round: u32, board: u32) {
        let Some(period) = self.board_period(event, round, board) else {
            return;
        };
        let ev = &self.desk.book().events[event];
        let received = ev
            .games
            .iter()
            .find(|g| (g.round, g.board) == (round, board))
            .and_then(|g| g.received)
            .or(ev.received);
        let late = period
            .late
            .map(|l| match received {
                Some(day) => format!(", late for {} (received {day})", l.published),
                None => format!(", late for {}", l.published),
            })
            .unwrap_or_default();
        if let Some(status) = &mut self.status {
            status
                .text
                .push_str(&format!(" · period {}{late}", period.dates.published));
        }
    }
}
