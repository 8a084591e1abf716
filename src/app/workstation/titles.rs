//! The third tab: what the rulebook tracks. For Finland, title holders, players within reach of
//! a title, and the open and women's selection lists on a date the officer chooses (they hold
//! players who can represent Finland; the figures themselves are computed for everyone, and
//! the card shows anyone's). For Iceland, the players at and near the 2400 mark and new
//! players on their way to an initial rating; for Turkey, players approaching their first UKD
//! and those at the edges of the k bands. Enter opens the selected player's card.

use crate::book::PlayerStatus;
pub use crate::federations::TitlesView;
use crate::federations::{Federation, MarkStanding, Progress};
use crate::model::{PlayerIdx, Rating};
use crate::rules::{ListId, SelectionNumbers};

use super::action::Action;
use super::forms::FormState;
use super::state::{App, Popup, is_move, step};

/// How far below a mark a player counts as near it.
pub const NEAR_MARK: Rating = 100;

/// How far from a band edge (either side) a player counts as at it.
pub const NEAR_EDGE: Rating = 25;

/// A rated player at or near the mark, with the factor his next game has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkRow {
    pub player: PlayerIdx,
    pub list: ListId,
    pub standing: MarkStanding,
    pub factor: Option<u16>,
}

/// A player on his way to a first rating on a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FirstRatingRow {
    pub player: PlayerIdx,
    pub list: ListId,
    pub progress: Progress,
}

/// A rated player near a band edge: the factor he has and the one across the edge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BandRow {
    pub player: PlayerIdx,
    pub list: ListId,
    pub rating: Rating,
    pub edge: Rating,
    pub factor: u16,
    pub across: u16,
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
    /// The filter typed after `/`: only rows whose player's name or id holds every word of it
    /// are shown (folded as the player search folds).
    pub filter: String,
    /// Whether the filter has the focus (typing goes into it).
    pub filtering: bool,
    /// The date and the record (its count of audited edits) the two lists were computed for:
    /// switching views keeps them until the record changes.
    computed: Option<(chrono::NaiveDate, usize)>,
    /// The lists being worked out, a slice at a time between keys.
    job: Option<SelectionJob>,
}

/// How long the terminal's loop works on the selection lists before it looks for keys again: a
/// frame's worth, so no key waits longer.
pub const WORK_SLICE: std::time::Duration = std::time::Duration::from_millis(20);

/// Players whose selection figures are worked out together (on every core) before the time
/// spent is looked at.
const SELECTION_SLICE: usize = 256;

/// The selection lists under way: for the date and record, the players to work out, how many
/// are done and the rows so far.
#[derive(Clone, Debug)]
struct SelectionJob {
    record: (chrono::NaiveDate, usize),
    candidates: Vec<PlayerIdx>,
    done: usize,
    rows: Vec<(PlayerIdx, SelectionNumbers)>,
}

impl<R: Federation> App<R> {
    pub(super) fn update_titles(&mut self, action: Action) {
        if self.titles.filtering {
            match action {
                Action::Back if !self.titles.filter.is_empty() => {
                    self.titles.filter.clear();
                    self.titles.selected = 0;
                }
                // Enter or Esc: the list has the focus again, the filter kept.
                Action::Back | Action::Open => self.titles.filtering = false,
                a if is_move(a) => {
                    let len = self.titles_len();
                    self.titles.selected = step(self.titles.selected, len, a, self.page());
                }
                _ => {}
            }
            return;
        }
        match action {
            Action::Search => self.titles.filtering = true,
            Action::ConfirmTitle => self.confirm_title(),
            Action::NextView | Action::PrevView => {
                let views = self.desk.rulebook().views();
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
                let date = self.titles.as_of.unwrap_or_else(crate::clock::today);
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

    /// The players of the view's rows, in its order (every row, the filter aside).
    fn titles_players(&self) -> Vec<PlayerIdx> {
        match self.titles.view {
            TitlesView::Holders => self.title_rows().iter().map(|r| r.0).collect(),
            TitlesView::Reach => self.reach_rows().iter().map(|r| r.0).collect(),
            TitlesView::Selection => self.titles.selection.iter().map(|r| r.0).collect(),
            TitlesView::Women => self.titles.women.iter().map(|r| r.0).collect(),
            TitlesView::Mark => self.mark_rows().iter().map(|r| r.player).collect(),
            TitlesView::FirstRating => self.first_rating_rows().iter().map(|r| r.player).collect(),
            TitlesView::Bands => self.band_rows().iter().map(|r| r.player).collect(),
        }
    }

    /// Of rows whose players are `players`, the ones the filter shows (their places in the
    /// whole list, which keeps each row's rank).
    pub fn titles_shown(&self, players: impl Iterator<Item = PlayerIdx>) -> Vec<usize> {
        let words: Vec<String> = crate::model::fold_name(self.titles.filter.trim())
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let book = self.desk.book();
        players
            .enumerate()
            .filter(|(_, p)| {
                words.is_empty()
                    || book.players.get(*p).is_some_and(|info| {
                        let text = format!(
                            "{} {}",
                            crate::model::fold_name(&info.name),
                            crate::model::fold_name(&info.id)
                        );
                        words.iter().all(|w| text.contains(w.as_str()))
                    })
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// The rows of the view shown (those the filter shows).
    pub fn titles_len(&self) -> usize {
        self.titles_shown(self.titles_players().into_iter()).len()
    }

    /// The place in the view's whole list of the row shown at `row`.
    pub(super) fn titles_row(&self, row: usize) -> Option<usize> {
        self.titles_shown(self.titles_players().into_iter())
            .get(row)
            .copied()
    }

    fn titles_player(&self, row: usize) -> Option<PlayerIdx> {
        let players = self.titles_players();
        let i = *self.titles_shown(players.iter().copied()).get(row)?;
        players.get(i).copied()
    }

    /// The view the third tab shows: the one chosen, if the rulebook has it, else its first.
    pub fn titles_view(&self) -> TitlesView {
        let views = self.desk.rulebook().views();
        if views.contains(&self.titles.view) {
            self.titles.view
        } else {
            views.first().copied().unwrap_or_default()
        }
    }

    /// The date the third tab's figures are taken on: the selection date, or today.
    pub fn as_of(&self) -> chrono::NaiveDate {
        self.titles.as_of.unwrap_or_else(crate::clock::today)
    }

    /// Active players with their state on every list.
    fn active_states(
        &self,
    ) -> impl Iterator<Item = (PlayerIdx, ListId, std::borrow::Cow<'_, R::State>)> + '_ {
        let book = self.desk.book();
        let rulebook = self.desk.rulebook();
        let lists = self.desk.rulebook().lists().len();
        let status = self.desk.status();
        (0..book.players.len())
            .filter(move |&p| status.get(p) == Some(&PlayerStatus::Active))
            .flat_map(move |p| (0..lists).map(move |l| (p, l)))
            .filter_map(move |(p, l)| {
                self.desk
                    .ledger()
                    .state(rulebook, book, p, l)
                    .map(|s| (p, l, s))
            })
    }

    /// Players who reached the rulebook's mark or are within [`NEAR_MARK`] of it, highest
    /// first.
    pub fn mark_rows(&self) -> Vec<MarkRow> {
        let rulebook = self.desk.rulebook();
        let book = self.desk.book();
        let on = self.as_of();
        let mut rows: Vec<MarkRow> = self
            .active_states()
            .filter_map(|(p, list, state)| {
                let standing = rulebook.mark(&state)?;
                (standing.reached || standing.rating >= standing.mark - NEAR_MARK).then(|| {
                    MarkRow {
                        player: p,
                        list,
                        standing,
                        factor: rulebook.next_factor(list, &state, &book.players[p], on),
                    }
                })
            })
            .collect();
        // Those who reached the mark apart, first; then those within reach, the nearest first.
        rows.sort_by(|a, b| {
            b.standing
                .reached
                .cmp(&a.standing.reached)
                .then(b.standing.rating.cmp(&a.standing.rating))
                .then(a.player.cmp(&b.player))
        });
        rows
    }

    /// Players on their way to a first rating, the nearest first (most games, then score).
    pub fn first_rating_rows(&self) -> Vec<FirstRatingRow> {
        let rulebook = self.desk.rulebook();
        let mut rows: Vec<FirstRatingRow> = self
            .active_states()
            .filter_map(|(p, list, state)| {
                rulebook
                    .progress(list, &state)
                    .map(|progress| FirstRatingRow {
                        player: p,
                        list,
                        progress,
                    })
            })
            .collect();
        rows.sort_by(|a, b| {
            let key = |r: &FirstRatingRow| {
                (
                    r.progress.games.min(r.progress.needed_games),
                    r.progress.score.map_or(0, |s| s.0.min(s.1)),
                )
            };
            key(b)
                .cmp(&key(a))
                .then(a.list.cmp(&b.list))
                .then(a.player.cmp(&b.player))
        });
        rows
    }

    /// Rated players within [`NEAR_EDGE`] of a band edge, the nearest first.
    pub fn band_rows(&self) -> Vec<BandRow> {
        let rulebook = self.desk.rulebook();
        let bands = rulebook.factor_bands();
        let factor = |r: Rating| {
            bands
                .iter()
                .rev()
                .find(|(edge, _)| r >= *edge)
                .map_or(0, |(_, k)| *k)
        };
        let mut rows: Vec<BandRow> = self
            .active_states()
            .filter_map(|(p, list, state)| {
                let rating = rulebook.rating_of(&state)?;
                let (edge, _) = bands
                    .iter()
                    .skip(1)
                    .min_by_key(|(edge, _)| (rating - edge).abs())?;
                // At the edge he is in the upper band; one below it, in the lower.
                let across = if rating >= *edge { edge - 1 } else { *edge };
                ((rating - edge).abs() <= NEAR_EDGE).then(|| BandRow {
                    player: p,
                    list,
                    rating,
                    edge: *edge,
                    factor: factor(rating),
                    across: factor(across),
                })
            })
            .collect();
        rows.sort_by_key(|r| ((r.rating - r.edge).abs(), r.list, r.player));
        rows
    }

    /// Switches the third tab's view; the selection lists are computed as of their date.
    pub fn show_titles_view(&mut self, view: TitlesView) {
        self.titles.view = view;
        self.titles.selected = 0;
        if matches!(view, TitlesView::Selection | TitlesView::Women) {
            let as_of = self.titles.as_of.unwrap_or_else(crate::clock::today);
            self.select_as_of(as_of);
        }
    }

    /// The selection lists on a date: players who can represent the home federation (its code
    /// or none), best valintaluku first; the women's list by its own figure. Kept while the
    /// record and the date are unchanged. In the terminal ([`App::work_behind`]) they are
    /// worked out a slice at a time between keys, the view saying how far it is; elsewhere at
    /// once.
    pub fn select_as_of(&mut self, as_of: chrono::NaiveDate) {
        self.titles.as_of = Some(as_of);
        let record = (as_of, self.desk.audit().len());
        let under_way = self.titles.job.as_ref().is_some_and(|j| j.record == record);
        if self.titles.computed != Some(record) && !under_way {
            let book = self.desk.book();
            let home = self.desk.rulebook().home_federation();
            let candidates: Vec<PlayerIdx> = self
                .desk
                .status()
                .iter()
                .enumerate()
                .filter(|(p, s)| **s == PlayerStatus::Active && book.players[*p].plays_for(home))
                .map(|(p, _)| p)
                .collect();
            self.titles.selection.clear();
            self.titles.women.clear();
            self.titles.job = Some(SelectionJob {
                record,
                rows: Vec::with_capacity(candidates.len()),
                candidates,
                done: 0,
            });
            if !self.behind {
                self.work_behind(None);
            }
        }
        let len = self.titles_len();
        self.titles.selected = self.titles.selected.min(len.saturating_sub(1));
    }

    /// How far the selection lists are worked out, when they are under way: (done, players).
    pub fn selection_under_way(&self) -> Option<(usize, usize)> {
        self.titles
            .job
            .as_ref()
            .map(|j| (j.done, j.candidates.len()))
    }

    /// Works on what is left to compute for the screens — the selection lists — for about
    /// `budget` (all of it with `None`); returns whether more is left.
    pub fn work_behind(&mut self, budget: Option<std::time::Duration>) -> bool {
        let Some(mut job) = self.titles.job.take() else {
            return false;
        };
        let started = std::time::Instant::now();
        let (book, rulebook, ledger) = (self.desk.book(), self.desk.rulebook(), self.desk.ledger());
        let as_of = job.record.0;
        while job.done < job.candidates.len() {
            // A slice for every core, each player's figures his own.
            let end = (job.done + SELECTION_SLICE).min(job.candidates.len());
            let slice = &job.candidates[job.done..end];
            let figures = crate::cores::map_on_cores(slice, crate::cores::threads(), |&p| {
                selection_numbers(rulebook, book, ledger, p, as_of)
            });
            job.rows
                .extend(slice.iter().zip(figures).filter_map(|(&p, numbers)| {
                    numbers
                        .filter(|n| n.number_doubled.is_some())
                        .map(|n| (p, n))
                }));
            job.done = end;
            if budget.is_some_and(|b| started.elapsed() >= b) {
                break;
            }
        }
        if job.done < job.candidates.len() {
            self.titles.job = Some(job);
            return true;
        }
        let mut rows = job.rows;
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
        self.titles.selection = rows;
        self.titles.women = women;
        self.titles.computed = Some(job.record);
        let len = self.titles_len();
        self.titles.selected = self.titles.selected.min(len.saturating_sub(1));
        false
    }

    /// A player's selection figures on a date (anyone's, Finnish or not).
    pub fn selection_of(
        &self,
        player: PlayerIdx,
        as_of: chrono::NaiveDate,
    ) -> Option<SelectionNumbers> {
        selection_numbers(
            self.desk.rulebook(),
            self.desk.book(),
            self.desk.ledger(),
            player,
            as_of,
        )
    }

    /// A player's selection figures on the Titles tab's date (today unless set).
    pub fn card_selection(&self, player: PlayerIdx) -> Option<SelectionNumbers> {
        let as_of = self.titles.as_of.unwrap_or_else(crate::clock::today);
        self.selection_of(player, as_of)
    }
}

/// A player's selection figures on a date, from his rated history.
fn selection_numbers<R: Federation>(
    rulebook: &R,
    book: &crate::book::Book<R>,
    ledger: &crate::ledger::Ledger<R>,
    player: PlayerIdx,
    as_of: chrono::NaiveDate,
) -> Option<SelectionNumbers> {
    let history = |list: ListId| {
        ledger
            .history(player, list)
            .into_iter()
            .cloned()
            .collect::<Vec<_>>()
    };
    rulebook.selection_numbers(
        as_of,
        &book.players[player],
        &book.seeds[player],
        &history,
        &book.events,
    )
}
