//! The workstation's state and its one `update` per action: tabs, the player search and card,
//! tournaments with round entry, titles, popups and the status line. Drawing only reads it; keys
//! only produce actions or typed text. The same code serves the terminal and the tests.

use std::collections::BTreeMap;

use crate::json::JsonRules;
use crate::ledger;
use crate::model::{GameResult, PlayerIdx};
use crate::rules::{Award, ListId, PlayerRating, SelectionNumbers};

use super::forms::FormState;
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
    /// A file's import, shown before it is made: who is matched, new or ambiguous.
    Import {
        edit: Box<Edit<R>>,
        lines: Vec<String>,
    },
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
    pub(super) search: SearchIndex,
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

    pub(super) fn say(&mut self, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            error: false,
        });
    }

    pub(super) fn warn(&mut self, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            error: true,
        });
    }

    pub(super) fn refresh_players(&mut self) {
        self.players.results = self.search.search(&self.players.query);
        self.players.selected = self
            .players
            .selected
            .min(self.players.results.len().saturating_sub(1));
    }

    pub(super) fn refresh_tournaments(&mut self) {
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
        self.edit_focused_field(|text| text.push(c), true);
    }

    /// Backspace in the field in focus.
    pub fn backspace(&mut self) {
        self.edit_focused_field(
            |text| {
                text.pop();
            },
            false,
        );
    }

    /// Applies `edit` to the text field that has the focus: a popup's field, the pairing being
    /// keyed, or the search query of the tab. Queries are searched again after the edit;
    /// `from_top` moves the selection back to the first hit.
    fn edit_focused_field(&mut self, edit: impl FnOnce(&mut String), from_top: bool) {
        match &mut self.popup {
            Some(Popup::Form(form)) => {
                if let Some((_, value)) = form.fields.get_mut(form.focus) {
                    edit(value);
                }
                return;
            }
            Some(Popup::Pick(pick)) => {
                edit(&mut pick.query);
                if from_top {
                    pick.selected = 0;
                }
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
            edit(pairing);
            return;
        }
        match self.tab {
            Tab::Players => {
                edit(&mut self.players.query);
                if from_top {
                    self.players.selected = 0;
                }
                self.refresh_players();
            }
            Tab::Tournaments => {
                edit(&mut self.tournaments.query);
                if from_top {
                    self.tournaments.selected = 0;
                }
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
            Action::ImportFile => {
                self.tab = Tab::Tournaments;
                self.popup = Some(Popup::Form(FormState::import_trf()));
            }
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

    pub(super) fn after_edit(&mut self) {
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

    pub(super) fn apply(&mut self, edit: Edit<R>) {
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
            Popup::Import { edit, lines } => match action {
                Action::Confirm => {
                    let before = self.desk.audit().len();
                    self.apply(*edit);
                    if self.desk.audit().len() > before {
                        let event = self.desk.book().events.len() - 1;
                        self.open_event(event);
                    }
                }
                Action::Cancel | Action::Back => self.say("not imported"),
                _ => self.popup = Some(Popup::Import { edit, lines }),
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
}
