//! The workstation's state and its one `update` per action: tabs, where the officer is and
//! where Esc goes back to, popups, the status line and the window's size. Each tab's own state
//! and keys live in its module (`players`, `tournaments`, `titles`); drawing only reads this,
//! keys only produce actions or typed text. The same code serves the terminal and the tests.
//!
//! Focus follows one convention everywhere: a screen with a search box keeps the typing in it
//! (arrows move the selection, Enter opens), so a letter typed there is never a command; Esc
//! goes back to the screen the officer came from.

use crate::app::Federation;
use crate::model::GameResult;
use crate::rules::PlayerRating;

use super::action::{Action, Context};
use super::forms::FormState;
use super::kept::Kept;
use crate::app::search::SearchIndex;
use crate::app::{Desk, Edit};

pub use super::players::{CardView, Focus, GameChange, GameRow, PlayersState};
pub use super::titles::{
    BandRow, FirstRatingRow, MarkRow, NEAR_EDGE, NEAR_MARK, TitlesState, TitlesView,
};
pub use super::tournaments::{EventView, Pane, TournamentsState};
pub use crate::app::trf_import::Plan;

#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::VariantArray)]
pub enum Tab {
    Players,
    Tournaments,
    Titles,
}

impl Tab {
    pub const ALL: &'static [Tab] = <Tab as strum::VariantArray>::VARIANTS;

    pub fn title(self) -> &'static str {
        match self {
            Tab::Players => "Players",
            Tab::Tournaments => "Tournaments",
            Tab::Titles => "Titles",
        }
    }

    /// The tab's name in the tab bar of a rulebook: the third tab names what it tracks there.
    pub fn title_in<R: Federation>(self, rulebook: &R) -> &'static str {
        match self {
            Tab::Titles => rulebook.third_tab(),
            other => other.title(),
        }
    }
}

/// A screen the officer was on: what Esc returns to, as a browser's back button does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    Search,
    Card {
        player: usize,
        row: usize,
        view: CardView,
    },
    Events,
    Event {
        event: usize,
        round: u32,
        board: usize,
        row: usize,
        view: EventView,
        pane: Pane,
        mark: Option<usize>,
    },
    Titles {
        view: TitlesView,
        selected: usize,
    },
}

/// The results that are not on a single key (SSL 2.9 marks which are played).
pub const RARE_RESULTS: [(&str, GameResult); 4] = [
    ("0-0 (played, both lose)", GameResult::played(0, 0)),
    ("½-0 (played)", GameResult::played(1, 0)),
    ("0-½ (played)", GameResult::played(0, 1)),
    ("-- double forfeit", GameResult::unplayed(0, 0)),
];

pub enum Popup<R: Federation> {
    Help {
        scroll: u16,
    },
    /// A correction that moves ratings beyond its event, or titles: shown before it is made.
    Confirm(Box<super::confirming::Preview<R>>),
    Rare {
        selected: usize,
    },
    Form(FormState),
    Pick(PickState),
    /// An undo or redo, shown before it is taken.
    Undo(Box<super::undoing::UndoPreview>),
    /// A file's import, shown before it is made: who is matched, new or ambiguous; `selected`
    /// is the ambiguous player whose choice ←/→ changes.
    Import {
        plan: Box<Plan<R>>,
        selected: usize,
        scroll: u16,
    },
}

/// What a picked player is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PickFor {
    /// Enter him in this event.
    Participant(usize),
    /// Merge his record into this player's.
    MergeInto(usize),
}

/// Choosing a player by fuzzy search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PickState {
    pub purpose: PickFor,
    pub query: String,
    pub results: Vec<usize>,
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
    pub list: crate::rules::ListId,
    pub rating: PlayerRating,
    /// For a rulebook that publishes by period: the period the row is rated in, the row's
    /// exact change (hundredths) and each game's.
    pub period: Option<crate::federations::PeriodDates>,
    pub change: Option<i64>,
    pub game_changes: Option<Vec<i64>>,
    /// How the player entered the list in this row, if he did (ISL: a foreign player).
    pub entered: Option<&'static str>,
}

pub use crate::app::queries::Standing;

pub struct App<R: Federation> {
    pub desk: Desk<R>,
    pub tab: Tab,
    pub players: PlayersState,
    pub tournaments: TournamentsState,
    pub titles: TitlesState,
    pub popup: Option<Popup<R>>,
    pub status: Option<Status>,
    /// Keys of a chord typed so far, with what may follow.
    pub pending: Vec<String>,
    /// Where Esc goes back to, the latest last.
    pub back: Vec<Place>,
    /// The window's size in cells, as the terminal last reported it.
    pub screen: (u16, u16),
    pub quit: bool,
    /// The officer asked to suspend (ctrl-z): the terminal loop stops the process.
    pub suspend: bool,
    pub(super) search: SearchIndex,
    /// The desk's generations the player search and the event list were built at.
    seen: (u64, u64),
    /// Active players and live events, as the tab bar counts them, with the desk's generations
    /// they were counted at.
    counts: std::cell::Cell<Option<Counted>>,
    /// The standings of the event in view, as the record stands.
    pub(super) kept_standings: Kept<usize, Vec<crate::app::queries::Standing>>,
    /// The periods of the event in view.
    pub(super) kept_periods: Kept<usize, Vec<super::period::EventPeriod>>,
    /// The figures of its players in one of its periods.
    pub(super) kept_entries:
        Kept<(usize, crate::rules::UnitKey, crate::rules::ListId), super::period::Entries>,
    /// Whether keys typed before the database was open are being acted on.
    typed_ahead: TypedAhead,
    /// Keys (and pastes) that came while the window was too small to draw, set aside unread:
    /// the notice counts them, so the officer knows they did nothing.
    pub set_aside_small: usize,
    /// Whether long computations for the screens (the selection lists) are left to
    /// [`App::work_behind`], run by the terminal's loop between keys; otherwise they are done
    /// at once.
    pub behind: bool,
    /// What lives as long as the workstation ([`App::keep`]).
    pub(super) kept: Vec<Box<dyn std::any::Any + Send>>,
}

/// Keys typed before the database was open, as they are acted on ([`App::begin_typed_ahead`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TypedAhead {
    /// Keys are keys: typed with the screen in view.
    No,
    /// Acting on keys typed ahead: none may change the record.
    Acting,
    /// One of them tried to (refused).
    Refused,
}

/// Active players and live events, with the desk's generations they were counted at.
type Counted = ((u64, u64), (usize, usize));

/// The smallest window the workstation draws in.
pub const MIN_SIZE: (u16, u16) = (80, 24);

/// Moves a cursor over `len` rows by one action; `page` rows for PgUp/PgDn.
pub fn step(selected: usize, len: usize, action: Action, page: usize) -> usize {
    let last = len.saturating_sub(1);
    match action {
        Action::Up | Action::PrevBoard => selected.saturating_sub(1),
        Action::Down | Action::NextBoard => (selected + 1).min(last),
        Action::PageUp => selected.saturating_sub(page),
        Action::PageDown => (selected + page).min(last),
        Action::Top => 0,
        Action::Bottom => last,
        _ => selected.min(last),
    }
}

/// Whether an action moves a cursor.
pub fn is_move(action: Action) -> bool {
    matches!(
        action,
        Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom
    )
}

/// Ctrl-W in a text box, as in a shell: the last word typed goes, with the spaces after it.
pub fn delete_word(text: &mut String) {
    let kept = text.trim_end().len();
    text.truncate(kept);
    let start = text
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    text.truncate(start);
}

pub use crate::figures::count;

/// A record opened for a workstation: the desk, and the search index made from its players as
/// they stood at a revision of the record (used only while the desk is still at it; otherwise
/// [`App::loaded`] makes it again).
pub struct Loaded<R: Federation> {
    pub desk: Desk<R>,
    search: Option<(u64, SearchIndex)>,
}

impl<R: Federation> From<Desk<R>> for Loaded<R> {
    fn from(desk: Desk<R>) -> Self {
        Self { desk, search: None }
    }
}

impl<R: Federation> Loaded<R> {
    /// [`Desk::open_locked`], the search index made on a thread beside the one that lays out
    /// the ledger (both need only the record read).
    pub fn open_locked(
        dir: &std::path::Path,
        rulebook: R,
        lock: std::sync::Arc<crate::store::LockFile>,
    ) -> Result<Self, crate::app::DeskError> {
        let (alphabet, order) = (rulebook.alphabet(), rulebook.name_order());
        // The index kept at the last close, if the database is as it was then (checked before
        // it is opened; read beside the ledger's layout, as a new one is made).
        let kept = crate::store::Beside::search(dir, rulebook.code());
        let (desk, search) = Desk::open_locked_beside(dir, rulebook, lock, |book, status| {
            kept.and_then(|kept| kept.read_search())
                .and_then(|kept| SearchIndex::from_kept(kept, book.players.len()))
                .unwrap_or_else(|| {
                    SearchIndex::new(
                        &book.players,
                        &crate::app::active_of(status),
                        alphabet,
                        order,
                    )
                })
        })?;
        let made_at = desk.revision();
        Ok(Self {
            desk,
            search: Some((made_at, search)),
        })
    }
}

impl<R: Federation> App<R> {
    pub fn new(desk: Desk<R>) -> Self {
        Self::loaded(desk.into())
    }

    /// The workstation on a record opened for it.
    pub fn loaded(loaded: Loaded<R>) -> Self {
        let Loaded { mut desk, search } = loaded;
        // Every frame settles the flushes before it reaches the terminal (`ui::draw::render`).
        desk.flush_behind();
        let made_now = search.filter(|(made_at, _)| *made_at == desk.revision());
        let search = made_now.map(|(_, search)| search).unwrap_or_else(|| {
            SearchIndex::new(
                &desk.book().players,
                &desk.active_players(),
                desk.rulebook().alphabet(),
                desk.rulebook().name_order(),
            )
        });
        let mut app = Self {
            desk,
            tab: Tab::Players,
            players: PlayersState::default(),
            tournaments: TournamentsState::default(),
            titles: TitlesState::default(),
            popup: None,
            status: None,
            pending: Vec::new(),
            back: Vec::new(),
            screen: MIN_SIZE,
            quit: false,
            suspend: false,
            search,
            seen: (0, 0),
            counts: std::cell::Cell::new(None),
            kept_standings: Kept::default(),
            kept_periods: Kept::default(),
            kept_entries: Kept::default(),
            typed_ahead: TypedAhead::No,
            behind: false,
            set_aside_small: 0,
            kept: Vec::new(),
        };
        app.seen = app.desk.generations();
        app.titles.view = app.titles_view();
        app.refresh_players();
        app.refresh_tournaments();
        app
    }

    /// A tab's name in the tab bar: the third tab names what the rulebook tracks there.
    pub fn tab_title(&self, tab: Tab) -> &'static str {
        tab.title_in(self.desk.rulebook())
    }

    /// The terminal reports its size (at start and on every resize).
    pub fn resize(&mut self, width: u16, height: u16) {
        self.screen = (width, height);
        if !self.too_small() {
            self.set_aside_small = 0;
        }
    }

    /// The window is too small to draw: only resizing, help and quitting act.
    pub fn too_small(&self) -> bool {
        self.screen.0 < MIN_SIZE.0 || self.screen.1 < MIN_SIZE.1
    }

    /// Rows a page key moves: about the rows a table shows in this window.
    pub fn page(&self) -> usize {
        usize::from(self.screen.1).saturating_sub(10).max(5)
    }

    /// How keys are read now.
    pub fn context(&self) -> Context {
        match &self.popup {
            Some(Popup::Form(_) | Popup::Pick(_)) => Context::Form,
            Some(_) => Context::Popup,
            None => self.screen_context(),
        }
    }

    /// How keys are read on the screen itself, behind any popup.
    pub fn screen_context(&self) -> Context {
        if self.tab == Tab::Tournaments && self.tournaments.pairing.is_some() {
            return Context::Form;
        }
        match self.tab {
            Tab::Players if self.players.focus == Focus::Search => Context::Form,
            Tab::Titles if self.titles.filtering => Context::Form,
            Tab::Tournaments if self.tournaments.open.is_some() => Context::RoundEntry,
            Tab::Tournaments => Context::Form,
            _ => Context::Table,
        }
    }

    /// Whether `action` does something on the screen in front of the officer, the pane in
    /// focus included (the help's first section lists only these).
    pub fn acts_here(&self, action: Action) -> bool {
        use Action as A;
        let titles = self.desk.rulebook().awards_titles();
        match (self.screen_context(), self.tab) {
            (Context::RoundEntry, _) if action == A::Withdraw => {
                self.tournaments.pane == Pane::Table
            }
            (Context::RoundEntry, _) if action == A::ReceivedDate => {
                self.desk.rulebook().keeps_game_receipt() && self.tournaments.pane == Pane::Round
            }
            (Context::RoundEntry, _) => {
                let round = self.tournaments.pane == Pane::Round;
                !matches!(
                    action,
                    A::WhiteWins
                        | A::BlackWins
                        | A::Draw
                        | A::ForfeitWhite
                        | A::ForfeitBlack
                        | A::ClearResult
                        | A::RareResults
                ) || round
            }
            (Context::Table, Tab::Players) => match action {
                A::ConfirmTitle | A::ChooseDate => false,
                A::Reenter => {
                    self.desk.rulebook().restarts()
                        && self.players.focus == super::players::Focus::Card
                }
                _ => true,
            },
            // A search box or the pairing line keeps the typing: Tab does not leave it.
            (Context::Form, _) => !matches!(action, A::NextTab | A::PrevTab),
            (Context::Table, Tab::Titles) => match action {
                A::Merge | A::Reenter => false,
                A::ConfirmTitle => titles && self.titles.view == TitlesView::Holders,
                A::ChooseDate => {
                    matches!(self.titles.view, TitlesView::Selection | TitlesView::Women)
                }
                _ => true,
            },
            _ => true,
        }
    }

    pub(super) fn say(&mut self, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            error: false,
        });
    }

    /// Says in the status line what went wrong (without stopping anything).
    pub fn warn(&mut self, text: impl Into<String>) {
        self.status = Some(Status {
            text: text.into(),
            error: true,
        });
    }

    /// Keys typed before the database was open (the officer saw only the front page) are acted
    /// on from now until [`App::end_typed_ahead`], as if typed now — except that none of them
    /// may change the record: the first that would is refused, and says so.
    pub fn begin_typed_ahead(&mut self) {
        self.typed_ahead = TypedAhead::Acting;
    }

    /// Whether a key typed ahead tried to change the record (the keys after it are not for
    /// this screen: the caller sets them aside).
    pub fn typed_ahead_refused(&self) -> bool {
        self.typed_ahead == TypedAhead::Refused
    }

    pub fn end_typed_ahead(&mut self) {
        self.typed_ahead = TypedAhead::No;
    }

    /// Refuses a change of the record keyed before the database was open (see
    /// [`App::begin_typed_ahead`]); `true` when refused.
    pub(super) fn refuse_typed_ahead(&mut self) -> bool {
        if self.typed_ahead == TypedAhead::No {
            return false;
        }
        self.typed_ahead = TypedAhead::Refused;
        self.warn("not stored: keyed before the database was open, unseen — key it again");
        true
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
                // Typed back from a card: a new name, not more of the old one.
                if std::mem::take(&mut self.players.fresh) && from_top {
                    self.players.query.clear();
                }
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
            Tab::Titles => {
                edit(&mut self.titles.filter);
                if from_top {
                    self.titles.selected = 0;
                }
            }
        }
    }

    /// Carries out one action.
    pub fn update(&mut self, action: Action) {
        match action {
            // As in a shell, in whichever text box has the focus.
            Action::ClearField => return self.edit_focused_field(String::clear, true),
            Action::DeleteWord => return self.edit_focused_field(delete_word, true),
            _ => {}
        }
        self.players.fresh = false;
        // Quitting leaves any popup as it is: nothing in one is stored unconfirmed.
        if action == Action::Quit {
            self.quit = true;
            return;
        }
        if self.popup.is_some() {
            return self.update_popup(action);
        }
        match action {
            Action::Quit => self.quit = true,
            Action::Suspend => self.suspend = true,
            Action::Help => self.popup = Some(Popup::Help { scroll: 0 }),
            Action::TabPlayers => self.switch_tab(Tab::Players),
            Action::TabTournaments => self.switch_tab(Tab::Tournaments),
            Action::TabTitles => self.switch_tab(Tab::Titles),
            // The search boxes keep the typing: Tab does not leave them.
            Action::NextTab | Action::PrevTab if self.screen_context() == Context::Form => {}
            Action::NextTab | Action::PrevTab => {
                let i = Tab::ALL.iter().position(|t| *t == self.tab).unwrap_or(0);
                let n = Tab::ALL.len();
                self.switch_tab(
                    Tab::ALL[if action == Action::NextTab {
                        (i + 1) % n
                    } else {
                        (i + n - 1) % n
                    }],
                );
            }
            Action::Undo => self.ask_undo(true),
            Action::Redo => self.ask_undo(false),
            Action::NewItem | Action::EditItem => self.open_form(action == Action::NewItem),
            Action::ImportFile => {
                self.switch_tab(Tab::Tournaments);
                self.popup = Some(Popup::Form(self.for_rulebook(FormState::import_trf())));
            }
            _ => match self.tab {
                Tab::Players => self.update_players(action),
                Tab::Tournaments => self.update_tournaments(action),
                Tab::Titles => self.update_titles(action),
            },
        }
    }

    /// A tab chosen by its key: the screens it holds stay as they were; Esc starts afresh.
    fn switch_tab(&mut self, tab: Tab) {
        self.tab = tab;
        self.back.clear();
        if tab == Tab::Titles {
            self.refresh_selection();
        }
        // Back to a card after an edit elsewhere: its places again.
        if tab == Tab::Players && self.players.card.is_some() {
            self.rank_lists();
        }
    }

    /// The selection lists as the record is now, when a selection view is shown (kept while
    /// the record is unchanged).
    fn refresh_selection(&mut self) {
        if matches!(self.titles.view, TitlesView::Selection | TitlesView::Women)
            && let Some(as_of) = self.titles.as_of
        {
            self.select_as_of(as_of);
        }
    }

    /// Where the officer is now.
    pub fn here(&self) -> Place {
        match self.tab {
            Tab::Players => match self.players.card {
                Some(player) => Place::Card {
                    player,
                    row: self.players.card_row,
                    view: self.players.card_view,
                },
                None => Place::Search,
            },
            Tab::Tournaments => match self.tournaments.open {
                Some(event) => Place::Event {
                    event,
                    round: self.tournaments.round,
                    board: self.tournaments.board,
                    row: self.tournaments.row,
                    view: self.tournaments.view,
                    pane: self.tournaments.pane,
                    mark: self.tournaments.mark,
                },
                None => Place::Events,
            },
            Tab::Titles => Place::Titles {
                view: self.titles.view,
                selected: self.titles.selected,
            },
        }
    }

    /// Shows a place as it was left.
    pub(super) fn go(&mut self, place: Place) {
        match place {
            Place::Search => {
                self.tab = Tab::Players;
                self.players.fresh = self.players.card.is_some() && !self.players.query.is_empty();
                self.players.card = None;
                self.players.focus = Focus::Search;
            }
            Place::Card { player, row, view } => {
                self.tab = Tab::Players;
                self.players.card = Some(player);
                self.players.card_row = row;
                self.players.card_view = view;
                self.players.focus = Focus::Card;
                self.rank_lists();
            }
            Place::Events => {
                self.tab = Tab::Tournaments;
                self.tournaments.open = None;
                self.tournaments.pairing = None;
            }
            Place::Event {
                event,
                round,
                board,
                row,
                view,
                pane,
                mark,
            } => {
                self.tab = Tab::Tournaments;
                let t = &mut self.tournaments;
                (t.open, t.round, t.board, t.row, t.view, t.pane, t.mark) =
                    (Some(event), round, board, row, view, pane, mark);
                t.pairing = None;
            }
            Place::Titles { view, selected } => {
                self.tab = Tab::Titles;
                self.titles.view = view;
                self.refresh_selection();
                self.titles.selected = selected;
            }
        }
    }

    /// Goes to a place, remembering this one for Esc.
    pub(super) fn visit(&mut self, place: Place) {
        let here = self.here();
        if here != place {
            self.back.push(here);
        }
        self.go(place);
    }

    /// Esc on a screen opened from another: back to it, or to `default` when none is kept.
    pub(super) fn go_back(&mut self, default: Place) {
        let place = self.back.pop().unwrap_or(default);
        self.go(place);
    }

    /// Another `ratedesk`'s command about to run here: who asked for what, in the status line.
    pub fn asked_elsewhere(&mut self, asked: &str) {
        self.say(asked.to_string());
    }

    /// After another `ratedesk`'s command (or another officer's edit) changed the record here:
    /// who did what in the status line, and every list refreshed, the officer's place and what
    /// he is typing kept. A confirmation open on the record as it was is worked out again on
    /// the record as it is, to be confirmed again (or, refused there now, closed back to its
    /// form); an import previewed on it is closed, to be looked at again.
    pub fn edited_elsewhere(&mut self, said: String) {
        match self.popup.take() {
            Some(Popup::Confirm(preview)) => {
                let super::confirming::Preview { edit, form, .. } = *preview;
                match self.desk.preview(&edit) {
                    Ok(effect) => {
                        self.confirm(*edit, effect, form);
                        // What happened to his preview first: the line may be cut at its end.
                        self.warn(format!("preview redone, the record changed — {said}"));
                    }
                    Err(e) => {
                        self.popup = form.map(Popup::Form);
                        self.warn(format!("not possible now ({e}) — {said}"));
                    }
                }
            }
            Some(Popup::Import { .. }) => {
                self.warn(format!("preview closed, the record changed — {said}"));
            }
            other => {
                self.popup = other;
                self.say(said);
            }
        }
        self.after_edit();
    }

    /// Everything listed from the desk built again (a desk that replaced another).
    pub(super) fn rebuilt(&mut self) {
        self.seen = (u64::MAX, u64::MAX);
        self.counts.set(None);
        self.after_edit();
    }

    pub(super) fn after_edit(&mut self) {
        // The card's list places again, at once when a card is in view.
        self.players.places = None;
        if self.tab == Tab::Players && self.players.card.is_some() {
            self.rank_lists();
        }
        // The selection lists in view are computed again at once; otherwise when next shown.
        if self.tab == Tab::Titles {
            self.refresh_selection();
        }
        // Only what the edit touched: a result changes neither the players' names nor the
        // list of events.
        let (players, events) = self.desk.generations();
        if players != self.seen.0 {
            self.search = SearchIndex::new(
                &self.desk.book().players,
                &self.desk.active_players(),
                self.desk.rulebook().alphabet(),
                self.desk.rulebook().name_order(),
            );
            self.refresh_players();
        }
        if events != self.seen.1 {
            self.refresh_tournaments();
        }
        self.seen = (players, events);
    }

    /// Whether the player search's index was made from the players as they stand.
    pub(super) fn search_is_current(&self) -> bool {
        self.seen.0 == self.desk.generations().0
    }

    /// The active players and the live events, counted again only when an edit changed
    /// players or events (a result changes neither).
    pub fn counts(&self) -> (usize, usize) {
        let now = self.desk.generations();
        if let Some((at, counts)) = self.counts.get()
            && at == now
        {
            return counts;
        }
        let players = self
            .desk
            .status()
            .iter()
            .filter(|s| **s == crate::book::PlayerStatus::Active)
            .count();
        let events = self.desk.book().live.iter().filter(|l| **l).count();
        self.counts.set(Some((now, (players, events))));
        (players, events)
    }

    /// Stores an edit and says in the status line what it did; an edit that would change
    /// nothing is not stored (and says so). Returns whether it was stored.
    pub(super) fn apply(&mut self, edit: Edit<R>) -> bool {
        if self.refuse_typed_ahead() {
            return false;
        }
        match self.desk.apply(edit) {
            Ok(effect) if !effect.stored => {
                self.say(format!("{}: nothing to change", effect.action));
                false
            }
            Ok(effect) => {
                let text = format!("saved: {}", self.effect_text(&effect));
                self.say(text);
                self.after_edit();
                true
            }
            Err(e) => {
                self.warn(e.to_string());
                false
            }
        }
    }

    /// An edit's action and the first ratings it moved, for the status line.
    pub(super) fn effect_text(&self, effect: &crate::app::Effect<R::Award>) -> String {
        // A player who moves on two lists is named with each list.
        let lists: std::collections::BTreeSet<_> = effect.ratings.iter().map(|c| c.list).collect();
        let list_names = self.desk.rulebook().lists();
        let mut moved: Vec<String> = effect
            .ratings
            .iter()
            .take(4)
            .map(|c| {
                let name = self.name(c.player);
                let delta = match (c.before, c.after) {
                    (Some(b), Some(a)) => crate::figures::signed(a - b),
                    (_, Some(a)) => a.to_string(),
                    _ => "-".into(),
                };
                if lists.len() > 1 {
                    format!("{name} {} {delta}", list_names[c.list])
                } else {
                    format!("{name} {delta}")
                }
            })
            .collect();
        if effect.ratings.len() > 4 {
            moved.push(format!("{} more", effect.ratings.len() - 4));
        }
        if moved.is_empty() {
            effect.action.clone()
        } else {
            format!("{} · {}", effect.action, moved.join(" · "))
        }
    }
}
