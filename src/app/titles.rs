//! The Titles tab: title holders, players within reach of a title, and the open and women's
//! selection lists on a date the officer chooses. Enter opens the selected player's card.
//! The selection lists hold players who can represent Finland; the figures themselves are
//! computed for everyone (the card shows anyone's).

use crate::app::Federation;
use crate::book::PlayerStatus;
use crate::model::{PlayerIdx, Rating};
use crate::rules::{ListId, SelectionNumbers};

use super::Action;
use super::forms::FormState;
use super::state::{App, Popup, is_move, step};

/// The Titles tab's views.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TitlesView {
    #[default]
    Holders,
    Reach,
    Selection,
    Women,
}

impl TitlesView {
    pub const ALL: [TitlesView; 4] = [
        TitlesView::Holders,
        TitlesView::Reach,
        TitlesView::Selection,
        TitlesView::Women,
    ];

    pub fn title(self) -> &'static str {
        match self {
            TitlesView::Holders => "Titles",
            TitlesView::Reach => "Within reach",
            TitlesView::Selection => "Open selection",
            TitlesView::Women => "Women's selection",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct TitlesState {
    pub view: TitlesView,
    pub selected: usize,
    /// The selection date (today when a selection view first opens; `d` chooses another).
    pub as_of: Option<chrono::NaiveDate>,
    /// The open selection list as of `as_of`: players who can represent Finland, best first.
    pub selection: Vec<(PlayerIdx, SelectionNumbers)>,
    /// The women's selection list as of `as_of`, best first.
    pub women: Vec<(PlayerIdx, Rating)>,
}

impl<R: Federation> App<R> {
    pub(super) fn update_titles(&mut self, action: Action) {
        match action {
            Action::ConfirmTitle => self.confirm_title(),
            Action::NextView | Action::PrevView => {
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
            Action::ChooseDate => {
                let date = self
                    .titles
                    .as_of
                    .unwrap_or_else(|| chrono::Local::now().date_naive());
                self.popup = Some(Popup::Form(FormState::selection_date(date)));
            }
            Action::Open => {
                if let Some(player) = self.titles_player(self.titles.selected) {
                    self.open_card(player);
                }
            }
            a if is_move(a) => {
                let len = self.titles_len();
                self.titles.selected = step(self.titles.selected, len, a, self.page());
            }
            _ => {}
        }
    }

    /// The rows of the view shown.
    pub fn titles_len(&self) -> usize {
        match self.titles.view {
            TitlesView::Holders => self.title_rows().len(),
            TitlesView::Reach => self.reach_rows().len(),
            TitlesView::Selection => self.titles.selection.len(),
            TitlesView::Women => self.titles.women.len(),
        }
    }

    fn titles_player(&self, row: usize) -> Option<PlayerIdx> {
        match self.titles.view {
            TitlesView::Holders => self.title_rows().get(row).map(|r| r.0),
            TitlesView::Reach => self.reach_rows().get(row).map(|r| r.0),
            TitlesView::Selection => self.titles.selection.get(row).map(|r| r.0),
            TitlesView::Women => self.titles.women.get(row).map(|r| r.0),
        }
    }

    /// Switches the Titles tab's view; the selection lists are computed as of their date.
    pub fn show_titles_view(&mut self, view: TitlesView) {
        self.titles.view = view;
        self.titles.selected = 0;
        if matches!(view, TitlesView::Selection | TitlesView::Women) {
            let as_of = self
                .titles
                .as_of
                .unwrap_or_else(|| chrono::Local::now().date_naive());
            self.select_as_of(as_of);
        }
    }

    /// Computes the selection lists on a date: players who can represent the home federation
    /// (its code or none), best valintaluku first; the women's list by its own figure.
    pub fn select_as_of(&mut self, as_of: chrono::NaiveDate) {
        let book = self.desk.book();
        let home = self.desk.rulebook().home_federation();
        let mut rows: Vec<(PlayerIdx, SelectionNumbers)> = self
            .desk
            .status()
            .iter()
            .enumerate()
            .filter(|(p, s)| **s == PlayerStatus::Active && book.players[*p].plays_for(home))
            .filter_map(|(p, _)| {
                let numbers = self.selection_of(p, as_of)?;
                numbers.number_doubled.is_some().then_some((p, numbers))
            })
            .collect();
        rows.sort_by(|a, b| {
            b.1.number_doubled
                .cmp(&a.1.number_doubled)
                .then(a.0.cmp(&b.0))
        });
        let mut women: Vec<(PlayerIdx, Rating)> = rows
            .iter()
            .filter(|(p, _)| book.players[*p].sex == Some(crate::model::Sex::Female))
            .filter_map(|(p, s)| s.womens.map(|w| (*p, w)))
            .collect();
        women.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        self.titles.as_of = Some(as_of);
        self.titles.selection = rows;
        self.titles.women = women;
        let len = self.titles_len();
        self.titles.selected = self.titles.selected.min(len.saturating_sub(1));
    }

    /// A player's selection figures on a date (anyone's, Finnish or not).
    pub fn selection_of(
        &self,
        player: PlayerIdx,
        as_of: chrono::NaiveDate,
    ) -> Option<SelectionNumbers> {
        let book = self.desk.book();
        let ledger = self.desk.ledger();
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

    /// A player's selection figures on the Titles tab's date (today unless set).
    pub fn card_selection(&self, player: PlayerIdx) -> Option<SelectionNumbers> {
        let as_of = self
            .titles
            .as_of
            .unwrap_or_else(|| chrono::Local::now().date_naive());
        self.selection_of(player, as_of)
    }
}
