//! The workstation's state and its one `update` per action: tabs, the player search and card,
//! tournaments with round entry, titles, popups and the status line. Drawing only reads it; keys
//! only produce actions or typed text. The same code serves the terminal and the tests.

use std::collections::BTreeMap;

use crate::json::JsonRules;
use crate::ledger;
use crate::model::{GameResult, PlayerIdx, Rating};
use crate::rules::{Award, ListId, PlayerRating, Reach, SelectionNumbers};
use crate::store::PlayerStatus;

use super::forms::{FormKind, FormState, parse_pairing};
use super::search::SearchIndex;
use super::{Action, Context, Desk, Edit, Effect};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Players,
    Tournaments,
    Titles,
}

impl Tab {
    pub const ALL: [Tab; 3] = [Tab::Players, Tab::Tournaments, Tab::Titles];

    pub fn title(self) -> &'static str {
        match self {
            Tab::Players => "Players",
            Tab::Tournaments => "Tournaments",
            Tab::Titles => "Titles",
        }
    }
}

/// Where the Players tab's keys go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    Search,
    List,
    Card,
}

#[derive(Clone, Debug)]
pub struct PlayersState {
    pub query: String,
    pub results: Vec<PlayerIdx>,
    pub selected: usize,
    pub focus: Focus,
    pub card: Option<PlayerIdx>,
    pub card_row: usize,
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
    /// Start numbers being keyed for a pairing (`12 7`), while pairing.
    pub pairing: Option<String>,
    pub view: EventView,
}

/// What the open event's left pane shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EventView {
    #[default]
    Standings,
    /// The rating report: old, new, ±, games, score, expected, performance, factors.
    Report,
    Crosstable,
}

/// The Titles tab's views.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TitlesView {
    #[default]
    Holders,
    Reach,
    Selection,
}

impl TitlesView {
    pub const ALL: [TitlesView; 3] = [
        TitlesView::Holders,
        TitlesView::Reach,
        TitlesView::Selection,
    ];

    pub fn title(self) -> &'static str {
        match self {
            TitlesView::Holders => "Titles",
            TitlesView::Reach => "Within reach",
            TitlesView::Selection => "Selection",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct TitlesState {
    pub view: TitlesView,
    pub selected: usize,
    /// The selection date (today when the view opens).
    pub as_of: Option<chrono::NaiveDate>,
    /// Selection figures as of `as_of`, best first, computed when the view opens.
    pub selection: Vec<(PlayerIdx, SelectionNumbers)>,
}

/// The results that are not on a single key (SSL 2.9 marks which are played).
pub const RARE_RESULTS: [(&str, GameResult); 4] = [
    ("0-0 (played, both lose)", GameResult::played(0, 0)),
    ("½-0 (played)", GameResult::played(1, 0)),
    ("0-½ (played)", GameResult::played(0, 1)),
    ("-- double forfeit", GameResult::unplayed(0, 0)),
];

pub enum Popup<R: JsonRules> {
    Help {
        scroll: u16,
    },
    /// A correction that moves ratings beyond its event, or titles: shown before it is made.
    Confirm {
        edit: Box<Edit<R>>,
        effect: Box<Effect<R::Award>>,
    },
    Rare {
        selected: usize,
    },
    Form(FormState),
    Pick(PickState),
}

/// What a picked player is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PickFor {
    /// Enter him in this event.
    Participant(usize),
    /// Merge his record into this player's.
    MergeInto(PlayerIdx),
}

/// Choosing a player by fuzzy search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PickState {
    pub purpose: PickFor,
    pub query: String,
    pub results: Vec<PlayerIdx>,
    pub selected: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub text: String,
    pub error: bool,
}

/// One row of a player's history.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryRow {
    pub event: usize,
    pub list: ListId,
    pub rating: PlayerRating,
}

/// One row of an event's standings.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    pub start_number: usize,
    pub player: PlayerIdx,
    /// Half points, unplayed games included.
    pub points: u32,
    pub rating: Option<PlayerRating>,
}

pub struct App<R: JsonRules> {
    pub desk: Desk<R>,
    pub tab: Tab,
    pub players: PlayersState,
    pub tournaments: TournamentsState,
    pub titles: TitlesState,
    pub popup: Option<Popup<R>>,
    pub status: Option<Status>,
    /// Keys of a chord typed so far, with what may follow.
    pub pending: Vec<String>,
    pub quit: bool,
    search: SearchIndex,
}

const PAGE: usize = 10;

fn step(selected: usize, len: usize, action: Action) -> usize {
    let last = len.saturating_sub(1);
    match action {
        Action::Up => selected.saturating_sub(1),
        Action::Down => (selected + 1).min(last),
        Action::PageUp => selected.saturating_sub(PAGE),
        Action::PageDown => (selected + PAGE).min(last),
        Action::Top => 0,
        Action::Bottom => last,
        _ => selected,
    }
}

impl<R: JsonRules> App<R> {
    pub fn new(desk: Desk<R>) -> Self {
        let search = SearchIndex::new(&desk.book().players, &desk.active_players());
        let mut app = Self {
            desk,
            tab: Tab::Players,
            players: PlayersState {
                query: String::new(),
                results: Vec::new(),
                selected: 0,
                focus: Focus::Search,
                card: None,
                card_row: 0,
            },
            tournaments: TournamentsState {
                query: String::new(),
                list: Vec::new(),
                selected: 0,
                open: None,
                round: 1,
                board: 0,
                pairing: None,
                view: EventView::Standings,
            },
            titles: TitlesState::default(),
            popup: None,
            status: None,
            pending: Vec::new(),
            quit: false,
            search,
        };
        app.refresh_players();
        app.refresh_tournaments();
        app
    }

    /// How keys are read now.
    pub fn context(&self) -> Context {
        match &self.popup {
            Some(Popup::Form(_) | Popup::Pick(_)) => return Context::Form,
            Some(_) => return Context::Popup,
            None => {}
        }
        if self.tab == Tab::Tournaments && self.tournaments.pairing.is_some() {
            return Context::Form;
        }
        match self.tab {
            Tab::Players if self.players.focus == Focus::Search => Context::Form,
            Tab::Tournaments if self.tournaments.open.is_some() => Context::RoundEntry,
            Tab::Tournaments => Context::Form,
            _ => Context::Table,
        }
    }

    fn say(&mut self, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            error: false,
        });
    }

    fn warn(&mut self, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            error: true,
        });
    }

    fn refresh_players(&mut self) {
        self.players.results = self.search.search(&self.players.query);
        self.players.selected = self
            .players
            .selected
            .min(self.players.results.len().saturating_sub(1));
    }

    fn refresh_tournaments(&mut self) {
        let book = self.desk.book();
        let q = crate::model::fold_name(self.tournaments.query.trim());
        let mut list: Vec<usize> = ledger::event_order(&book.events)
            .into_iter()
            .filter(|&e| book.live[e])
            .filter(|&e| {
                q.is_empty()
                    || crate::model::fold_name(&book.events[e].name).contains(&q)
                    || crate::model::fold_name(&book.events[e].id).contains(&q)
            })
            .collect();
        list.reverse();
        self.tournaments.list = list;
        self.tournaments.selected = self
            .tournaments
            .selected
            .min(self.tournaments.list.len().saturating_sub(1));
    }

    /// A printable key typed into the field in focus.
    pub fn type_char(&mut self, c: char) {
        match &mut self.popup {
            Some(Popup::Form(form)) => {
                if let Some((_, value)) = form.fields.get_mut(form.focus) {
                    value.push(c);
                }
                return;
            }
            Some(Popup::Pick(pick)) => {
                pick.query.push(c);
                pick.selected = 0;
                pick.results = self.search.search(&pick.query);
                return;
            }
            _ => {}
        }
        if let Some(pairing) = self
            .tournaments
            .pairing
            .as_mut()
            .filter(|_| self.tab == Tab::Tournaments)
        {
            pairing.push(c);
            return;
        }
        match self.tab {
            Tab::Players => {
                self.players.query.push(c);
                self.players.selected = 0;
                self.refresh_players();
            }
            Tab::Tournaments => {
                self.tournaments.query.push(c);
                self.tournaments.selected = 0;
                self.refresh_tournaments();
            }
            Tab::Titles => {}
        }
    }

    /// Backspace in the field in focus.
    pub fn backspace(&mut self) {
        match &mut self.popup {
            Some(Popup::Form(form)) => {
                if let Some((_, value)) = form.fields.get_mut(form.focus) {
                    value.pop();
                }
                return;
            }
            Some(Popup::Pick(pick)) => {
                pick.query.pop();
                pick.results = self.search.search(&pick.query);
                return;
            }
            _ => {}
        }
        if let Some(pairing) = self
            .tournaments
            .pairing
            .as_mut()
            .filter(|_| self.tab == Tab::Tournaments)
        {
            pairing.pop();
            return;
        }
        match self.tab {
            Tab::Players => {
                self.players.query.pop();
                self.refresh_players();
            }
            Tab::Tournaments => {
                self.tournaments.query.pop();
                self.refresh_tournaments();
            }
            Tab::Titles => {}
        }
    }

    /// Carries out one action.
    pub fn update(&mut self, action: Action) {
        if self.popup.is_some() {
            return self.update_popup(action);
        }
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.popup = Some(Popup::Help { scroll: 0 }),
            Action::TabPlayers => self.tab = Tab::Players,
            Action::TabTournaments => self.tab = Tab::Tournaments,
            Action::TabTitles => self.tab = Tab::Titles,
            Action::NextTab | Action::PrevTab => {
                let i = Tab::ALL.iter().position(|t| *t == self.tab).unwrap_or(0);
                let n = Tab::ALL.len();
                self.tab = Tab::ALL[if action == Action::NextTab {
                    (i + 1) % n
                } else {
                    (i + n - 1) % n
                }];
            }
            Action::Undo => self.undo_redo(true),
            Action::Redo => self.undo_redo(false),
            Action::NewItem | Action::EditItem => self.open_form(action == Action::NewItem),
            _ => match self.tab {
                Tab::Players => self.update_players(action),
                Tab::Tournaments => self.update_tournaments(action),
                Tab::Titles if action == Action::ConfirmTitle => self.confirm_title(),
                Tab::Titles if matches!(action, Action::NextView | Action::PrevView) => {
                    let views = TitlesView::ALL;
                    let i = views
                        .iter()
                        .position(|v| *v == self.titles.view)
                        .unwrap_or(0);
                    let n = views.len();
                    let next = if action == Action::NextView {
                        (i + 1) % n
                    } else {
                        (i + n - 1) % n
                    };
                    self.show_titles_view(views[next]);
                }
                Tab::Titles => {
                    let len = match self.titles.view {
                        TitlesView::Holders => self.title_rows().len(),
                        TitlesView::Reach => self.reach_rows().len(),
                        TitlesView::Selection => self.titles.selection.len(),
                    };
                    self.titles.selected = step(self.titles.selected, len, action);
                }
            },
        }
    }

    fn undo_redo(&mut self, undo: bool) {
        let result = if undo {
            self.desk.undo()
        } else {
            self.desk.redo()
        };
        match result {
            Ok(Some(effect)) => {
                let moved = effect.ratings.len();
                self.say(format!("{} — {moved} rating(s) changed", effect.action));
                self.after_edit();
            }
            Ok(None) => self.say(if undo {
                "nothing to undo"
            } else {
                "nothing to redo"
            }),
            Err(e) => self.warn(e.to_string()),
        }
    }

    fn after_edit(&mut self) {
        if self.titles.view == TitlesView::Selection
            && let Some(as_of) = self.titles.as_of
        {
            self.select_as_of(as_of);
        }
        self.search = SearchIndex::new(&self.desk.book().players, &self.desk.active_players());
        self.refresh_players();
        self.refresh_tournaments();
    }

    fn update_players(&mut self, action: Action) {
        let p = &mut self.players;
        match (p.focus, action) {
            (Focus::Search, Action::Back) if !p.query.is_empty() => {
                p.query.clear();
                self.refresh_players();
            }
            (Focus::Search, Action::Down) => p.focus = Focus::List,
            (Focus::Search | Focus::List, Action::Open) => {
                if let Some(&player) = p.results.get(p.selected) {
                    p.card = Some(player);
                    p.card_row = 0;
                    p.focus = Focus::Card;
                }
            }
            (Focus::List, Action::Search | Action::Back) => p.focus = Focus::Search,
            (Focus::List, Action::Up) if p.selected == 0 => p.focus = Focus::Search,
            (Focus::Search | Focus::List, _) => {
                p.selected = step(p.selected, p.results.len(), action)
            }
            (Focus::Card, Action::Back) => {
                p.card = None;
                p.focus = Focus::List;
            }
            (Focus::Card, Action::Search) => {
                p.card = None;
                p.focus = Focus::Search;
            }
            (Focus::Card, Action::Open) => {
                let rows = p.card.map(|c| self.history(c)).unwrap_or_default();
                if let Some(row) = rows.get(self.players.card_row) {
                    self.open_event(row.event);
                }
            }
            (Focus::Card, Action::Merge) => self.start_merge(),
            (Focus::Card, _) => {
                let len = p.card.map_or(0, |c| self.history(c).len());
                self.players.card_row = step(self.players.card_row, len, action);
            }
        }
    }

    /// Opens an event in the Tournaments tab.
    pub fn open_event(&mut self, event: usize) {
        self.tab = Tab::Tournaments;
        self.tournaments.query.clear();
        self.refresh_tournaments();
        self.tournaments.selected = self
            .tournaments
            .list
            .iter()
            .position(|&e| e == event)
            .unwrap_or(0);
        self.tournaments.open = Some(event);
        self.tournaments.round = 1;
        self.tournaments.board = 0;
    }

    fn update_tournaments(&mut self, action: Action) {
        if let (Some(event), Some(text)) = (self.tournaments.open, self.tournaments.pairing.clone())
        {
            return self.update_pairing(event, &text, action);
        }
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
                _ => t.selected = step(t.selected, t.list.len(), action),
            }
            return;
        };
        let rounds = self.rounds(event);
        let boards = self.boards(event, self.tournaments.round).len();
        let t = &mut self.tournaments;
        match action {
            Action::Back => t.open = None,
            Action::NextView | Action::PrevView => {
                let views = [
                    EventView::Standings,
                    EventView::Report,
                    EventView::Crosstable,
                ];
                let i = views.iter().position(|v| *v == t.view).unwrap_or(0);
                t.view = views[if action == Action::NextView {
                    (i + 1) % 3
                } else {
                    (i + 2) % 3
                }];
            }
            Action::Pair => {
                t.pairing = Some(String::new());
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
            Action::NextBoard | Action::Down => {
                t.board = (t.board + 1).min(boards.saturating_sub(1))
            }
            Action::PrevBoard | Action::Up => t.board = t.board.saturating_sub(1),
            Action::NextRound => {
                // One round past the last: the next round to pair.
                t.round = (t.round + 1).min(rounds + 1);
                t.board = 0;
            }
            Action::PrevRound => {
                t.round = t.round.saturating_sub(1).max(1);
                t.board = 0;
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

    /// Keys a result on the selected board: applied at once when it moves nothing beyond this
    /// event and no title, otherwise shown for confirmation first.
    fn set_result(&mut self, result: Option<GameResult>) {
        let Some(event) = self.tournaments.open else {
            return;
        };
        let boards = self.boards(event, self.tournaments.round);
        let Some(&g) = boards.get(self.tournaments.board) else {
            return self.warn("no board here: pair the round first");
        };
        let game = self.desk.book().events[event].games[g].clone();
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
        let correction = game.result.is_some() && game.result != result;
        if correction || !effect.gained.is_empty() || !effect.lost.is_empty() {
            self.popup = Some(Popup::Confirm {
                edit: Box::new(edit),
                effect: Box::new(effect),
            });
            return;
        }
        self.apply(edit);
        self.tournaments.board = (self.tournaments.board + 1).min(boards.len().saturating_sub(1));
    }

    fn apply(&mut self, edit: Edit<R>) {
        match self.desk.apply(edit) {
            Ok(effect) => {
                let moved: Vec<String> = effect
                    .ratings
                    .iter()
                    .take(4)
                    .map(|c| {
                        let name = &self.desk.book().players[c.player].name;
                        let delta = match (c.before, c.after) {
                            (Some(b), Some(a)) => format!("{:+}", a - b),
                            (_, Some(a)) => a.to_string(),
                            _ => "-".into(),
                        };
                        format!("{name} {delta}")
                    })
                    .collect();
                self.say(format!("{} · {}", effect.action, moved.join(", ")));
                self.after_edit();
            }
            Err(e) => self.warn(e.to_string()),
        }
    }

    fn update_popup(&mut self, action: Action) {
        let Some(popup) = self.popup.take() else {
            return;
        };
        match popup {
            Popup::Form(mut form) => match action {
                Action::Back | Action::Cancel => self.say("not saved"),
                Action::Up | Action::PrevTab => {
                    form.focus = form.focus.saturating_sub(1);
                    self.popup = Some(Popup::Form(form));
                }
                Action::Down | Action::NextTab => {
                    form.focus = (form.focus + 1).min(form.fields.len() - 1);
                    self.popup = Some(Popup::Form(form));
                }
                Action::Open if form.focus + 1 < form.fields.len() => {
                    form.focus += 1;
                    self.popup = Some(Popup::Form(form));
                }
                Action::Open | Action::Submit | Action::Confirm => self.submit(form),
                _ => self.popup = Some(Popup::Form(form)),
            },
            Popup::Pick(mut pick) => match action {
                Action::Back | Action::Cancel => {}
                Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Top
                | Action::Bottom => {
                    pick.selected = step(pick.selected, pick.results.len(), action);
                    self.popup = Some(Popup::Pick(pick));
                }
                Action::Open | Action::Confirm | Action::Submit => self.picked(&pick),
                Action::NewItem => {
                    let enter_in = match pick.purpose {
                        PickFor::Participant(e) => Some(e),
                        PickFor::MergeInto(_) => None,
                    };
                    self.popup = Some(Popup::Form(FormState::new_player(enter_in)));
                }
                _ => self.popup = Some(Popup::Pick(pick)),
            },
            Popup::Help { scroll } => match action {
                Action::Up => {
                    self.popup = Some(Popup::Help {
                        scroll: scroll.saturating_sub(1),
                    })
                }
                Action::Down => self.popup = Some(Popup::Help { scroll: scroll + 1 }),
                Action::Quit => self.quit = true,
                // Any other key closes the help.
                _ => {}
            },
            Popup::Confirm { edit, effect } => match action {
                Action::Confirm => {
                    let lost: BTreeMap<PlayerIdx, Vec<Award<R::Award>>> =
                        effect.lost.iter().fold(BTreeMap::new(), |mut m, a| {
                            m.entry(a.player).or_default().push(a.clone());
                            m
                        });
                    let result_keyed = matches!(*edit, Edit::SetResult { .. });
                    self.apply(*edit);
                    // Titles are permanent: one a correction takes away is kept as held.
                    for (player, awards) in lost {
                        self.apply(Edit::HoldAwards { player, awards });
                    }
                    if result_keyed && let Some(event) = self.tournaments.open {
                        let boards = self.boards(event, self.tournaments.round).len();
                        self.tournaments.board =
                            (self.tournaments.board + 1).min(boards.saturating_sub(1));
                    }
                }
                Action::Cancel | Action::Back => self.say("not changed"),
                _ => self.popup = Some(Popup::Confirm { edit, effect }),
            },
            Popup::Rare { selected } => match action {
                Action::Up | Action::Down => {
                    self.popup = Some(Popup::Rare {
                        selected: step(selected, RARE_RESULTS.len(), action),
                    })
                }
                Action::Confirm | Action::Open => self.set_result(Some(RARE_RESULTS[selected].1)),
                _ => {}
            },
        }
    }

    /// A player's rated events on every list, in ledger order.
    pub fn history(&self, player: PlayerIdx) -> Vec<HistoryRow> {
        let book = self.desk.book();
        let lists = self.desk.rulebook().lists().len();
        let mut rows: Vec<HistoryRow> = (0..lists)
            .flat_map(|list| {
                self.desk
                    .ledger()
                    .history(player, list)
                    .into_iter()
                    .map(move |r| HistoryRow {
                        event: r.event,
                        list,
                        rating: r.clone(),
                    })
            })
            .collect();
        rows.sort_by(|a, b| {
            let (x, y) = (&book.events[a.event], &book.events[b.event]);
            (x.end, x.start, &x.id).cmp(&(y.end, y.start, &y.id))
        });
        rows
    }

    /// The current rating and state of a player on each list.
    pub fn ratings(&self, player: PlayerIdx) -> Vec<(ListId, Option<&R::State>)> {
        (0..self.desk.rulebook().lists().len())
            .map(|l| (l, self.desk.ledger().state(self.desk.book(), player, l)))
            .collect()
    }

    /// An event's standings: participants by points, then rating.
    pub fn standings(&self, event: usize) -> Vec<Standing> {
        let book = self.desk.book();
        let ev = &book.events[event];
        let ratings: BTreeMap<PlayerIdx, &PlayerRating> = self
            .desk
            .ledger()
            .ratings()
            .filter(|r| r.event == event)
            .map(|r| (r.player, r))
            .collect();
        let mut rows: Vec<Standing> = ev
            .participants
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let points = ev
                    .games
                    .iter()
                    .map(|g| {
                        if g.white == p {
                            g.result.map_or(0, |r| u32::from(r.white_halves))
                        } else if g.black == Some(p) {
                            g.result.map_or(0, |r| u32::from(r.black_halves))
                        } else {
                            0
                        }
                    })
                    .sum();
                Standing {
                    start_number: i + 1,
                    player: p,
                    points,
                    rating: ratings.get(&p).map(|r| (*r).clone()),
                }
            })
            .collect();
        rows.sort_by(|a, b| {
            let rating = |s: &Standing| s.rating.as_ref().and_then(|r| r.old).unwrap_or(0);
            b.points.cmp(&a.points).then(rating(b).cmp(&rating(a)))
        });
        rows
    }

    /// Title holders and pending confirmations: (player, award, confirmed).
    pub fn title_rows(&self) -> Vec<(PlayerIdx, Award<R::Award>, bool)> {
        let book = self.desk.book();
        let mut rows = Vec::new();
        for (p, status) in self.desk.status().iter().enumerate() {
            if *status != PlayerStatus::Active {
                continue;
            }
            for a in self.desk.ledger().awards(book, p) {
                let confirmed = !self.desk.rulebook().needs_confirmation(&a.award)
                    || book.confirmed[p].iter().any(|c| c.award == a.award);
                rows.push((p, a, confirmed));
            }
        }
        // By title, the highest first; within a title the newest first.
        rows.sort_by(|a, b| {
            b.1.award
                .cmp(&a.1.award)
                .then(b.1.date.cmp(&a.1.date))
                .then(a.0.cmp(&b.0))
        });
        rows
    }

    /// A published rating, for display.
    pub fn rating_of(&self, state: Option<&R::State>) -> Option<Rating> {
        state.and_then(|s| self.desk.rulebook().rating_of(s))
    }
}

impl<R: JsonRules> App<R> {
    /// A form for a new or the selected player (Players tab) or event (Tournaments tab).
    fn open_form(&mut self, new: bool) {
        let book = self.desk.book();
        let form = match (self.tab, new) {
            (Tab::Players, true) => Some(FormState::new_player(None)),
            (Tab::Players, false) => {
                let p = self
                    .players
                    .card
                    .or_else(|| self.players.results.get(self.players.selected).copied());
                p.map(|p| FormState::player(FormKind::EditPlayer(p), &book.players[p], None))
            }
            (Tab::Tournaments, true) => Some(FormState::event(FormKind::NewEvent, None)),
            (Tab::Tournaments, false) => {
                let e = self.tournaments.open.or_else(|| {
                    self.tournaments
                        .list
                        .get(self.tournaments.selected)
                        .copied()
                });
                e.map(|e| FormState::event(FormKind::EditEvent(e), Some(&book.events[e])))
            }
            (Tab::Titles, _) => None,
        };
        match form {
            Some(form) => self.popup = Some(Popup::Form(form)),
            None => self.warn("nothing selected to edit"),
        }
    }

    /// Turns a filled form into its edit; a wrong field keeps the form open with the reason.
    fn submit(&mut self, form: FormState) {
        let edit = match &form.kind {
            FormKind::NewPlayer { .. } | FormKind::EditPlayer(_) => {
                form.to_player().and_then(|(info, rating)| match form.kind {
                    FormKind::EditPlayer(player) => Ok(Edit::UpdatePlayer { player, info }),
                    _ => {
                        let lists = self.desk.rulebook().lists().len();
                        let mut seeds = vec![None; lists];
                        if let Some((r, g)) = rating {
                            let value = serde_json::json!({"rating": r, "games": g});
                            seeds[0] = self
                                .desk
                                .rulebook()
                                .state_from_json(0, &value, "the form")
                                .map_err(|e| e.to_string())?;
                        }
                        Ok(Edit::AddPlayer {
                            info,
                            seeds,
                            held: Vec::new(),
                        })
                    }
                })
            }
            FormKind::NewEvent => form.to_event().map(Edit::AddEvent),
            FormKind::EditEvent(e) => form
                .to_event()
                .map(|details| Edit::UpdateEvent { event: *e, details }),
        };
        let edit = match edit {
            Ok(edit) => edit,
            Err(message) => {
                self.warn(message);
                self.popup = Some(Popup::Form(form));
                return;
            }
        };
        let before = self.desk.audit().len();
        self.propose(edit);
        if self.desk.audit().len() == before {
            if self.popup.is_none() && self.status.as_ref().is_some_and(|s| s.error) {
                self.popup = Some(Popup::Form(form));
            }
            return;
        }
        match form.kind {
            FormKind::NewPlayer {
                enter_in: Some(event),
            } => {
                let player = self.desk.book().players.len() - 1;
                self.enter(event, player);
            }
            FormKind::NewEvent => {
                let event = self.desk.book().events.len() - 1;
                self.open_event(event);
            }
            _ => {}
        }
    }

    /// Applies an edit at once when it moves no rating and no title; otherwise shows what it
    /// does and asks first.
    fn propose(&mut self, edit: Edit<R>) {
        match self.desk.preview(&edit) {
            Ok(effect)
                if effect.ratings.is_empty()
                    && effect.gained.is_empty()
                    && effect.lost.is_empty() =>
            {
                self.apply(edit)
            }
            Ok(effect) => {
                self.popup = Some(Popup::Confirm {
                    edit: Box::new(edit),
                    effect: Box::new(effect),
                })
            }
            Err(e) => self.warn(e.to_string()),
        }
    }

    /// Enters a player in an event (the next start number).
    fn enter(&mut self, event: usize, player: PlayerIdx) {
        let mut players = self.desk.book().events[event].participants.clone();
        if players.contains(&player) {
            return self.warn(format!(
                "{} is already entered",
                self.desk.book().players[player].name
            ));
        }
        players.push(player);
        self.apply(Edit::SetParticipants { event, players });
    }

    fn picked(&mut self, pick: &PickState) {
        let Some(&player) = pick.results.get(pick.selected) else {
            return;
        };
        match pick.purpose {
            PickFor::Participant(event) => self.enter(event, player),
            PickFor::MergeInto(keep) if keep == player => {
                self.warn("a player cannot be merged into himself")
            }
            PickFor::MergeInto(keep) => {
                let edit = Edit::MergePlayers {
                    keep,
                    remove: player,
                };
                match self.desk.preview(&edit) {
                    Ok(effect) => {
                        self.popup = Some(Popup::Confirm {
                            edit: Box::new(edit),
                            effect: Box::new(effect),
                        })
                    }
                    Err(e) => self.warn(e.to_string()),
                }
            }
        }
    }

    /// Pairing mode: Enter pairs the keyed start numbers on the round's next board.
    fn update_pairing(&mut self, event: usize, text: &str, action: Action) {
        match action {
            Action::Back | Action::Cancel => {
                self.tournaments.pairing = None;
                self.say("pairing done");
            }
            Action::Open | Action::Submit => {
                let round = self.tournaments.round;
                match parse_pairing(text, &self.desk.book().events[event], round) {
                    Ok(game) => {
                        let before = self.desk.audit().len();
                        self.apply(Edit::SetGame { event, game });
                        if self.desk.audit().len() > before {
                            self.tournaments.pairing = Some(String::new());
                            self.tournaments.board =
                                self.boards(event, round).len().saturating_sub(1);
                        }
                    }
                    Err(message) => self.warn(message),
                }
                if self.status.as_ref().is_some_and(|s| s.error) {
                    self.tournaments.pairing = Some(String::new());
                }
            }
            _ => {}
        }
    }

    /// Confirms the selected title when it awaits the rating committee (an audited edit).
    fn confirm_title(&mut self) {
        let rows = self.title_rows();
        let Some((player, award, confirmed)) = rows.get(self.titles.selected).cloned() else {
            return;
        };
        if confirmed {
            return self.warn("that title needs no confirmation, or has it");
        }
        let date = chrono::Local::now().date_naive();
        self.apply(Edit::ConfirmAward {
            player,
            award: award.award,
            date,
        });
    }

    /// Merges another record into the player whose card is open (with the preview first).
    pub fn start_merge(&mut self) {
        if let Some(keep) = self.players.card {
            let results = self.search.search("");
            self.popup = Some(Popup::Pick(PickState {
                purpose: PickFor::MergeInto(keep),
                query: String::new(),
                results,
                selected: 0,
            }));
        }
    }
}

impl<R: JsonRules> App<R> {
    /// Switches the Titles tab's view; the selection figures are computed as of today.
    pub fn show_titles_view(&mut self, view: TitlesView) {
        self.titles.view = view;
        self.titles.selected = 0;
        if view == TitlesView::Selection {
            let as_of = self
                .titles
                .as_of
                .unwrap_or_else(|| chrono::Local::now().date_naive());
            self.select_as_of(as_of);
        }
    }

    /// Computes every player's selection figures on a date, best valintaluku first.
    pub fn select_as_of(&mut self, as_of: chrono::NaiveDate) {
        let book = self.desk.book();
        let ledger = self.desk.ledger();
        let mut rows: Vec<(PlayerIdx, SelectionNumbers)> = self
            .desk
            .status()
            .iter()
            .enumerate()
            .filter(|(_, s)| **s == PlayerStatus::Active)
            .filter_map(|(p, _)| {
                let history = |list: ListId| {
                    ledger
                        .history(p, list)
                        .into_iter()
                        .cloned()
                        .collect::<Vec<_>>()
                };
                let numbers = self.desk.rulebook().selection_numbers(
                    as_of,
                    &book.players[p],
                    &book.seeds[p],
                    &history,
                    &book.events,
                )?;
                numbers.number_doubled.is_some().then_some((p, numbers))
            })
            .collect();
        rows.sort_by(|a, b| {
            b.1.number_doubled
                .cmp(&a.1.number_doubled)
                .then(a.0.cmp(&b.0))
        });
        self.titles.as_of = Some(as_of);
        self.titles.selection = rows;
    }

    /// Players close to their next title: (player, how close).
    pub fn reach_rows(&self) -> Vec<(PlayerIdx, Reach<R::Award>)> {
        let book = self.desk.book();
        let mut rows: Vec<(PlayerIdx, Reach<R::Award>)> = (0..book.players.len())
            .filter(|&p| self.desk.status()[p] == PlayerStatus::Active)
            .filter_map(|p| {
                let states: Vec<Option<&R::State>> =
                    self.ratings(p).into_iter().map(|(_, s)| s).collect();
                let held = self.desk.ledger().awards(book, p);
                self.desk
                    .rulebook()
                    .within_reach(&book.players[p], &states, &held)
                    .map(|r| (p, r))
            })
            .collect();
        rows.sort_by_key(|(p, r)| (r.needed_rating - r.rating, *p));
        rows
    }
}

impl<R: JsonRules> App<R> {
    /// A player's selection figures on the Titles tab's date (today unless set).
    pub fn card_selection(&self, player: PlayerIdx) -> Option<SelectionNumbers> {
        let book = self.desk.book();
        let ledger = self.desk.ledger();
        let as_of = self
            .titles
            .as_of
            .unwrap_or_else(|| chrono::Local::now().date_naive());
        let history = |list: ListId| {
            ledger
                .history(player, list)
                .into_iter()
                .cloned()
                .collect::<Vec<_>>()
        };
        self.desk.rulebook().selection_numbers(
            as_of,
            &book.players[player],
            &book.seeds[player],
            &history,
            &book.events,
        )
    }
}
