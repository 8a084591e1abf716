//! What the workstation's screens show, read from the desk: a player's history and ratings,
//! an event's standings, titles, players within reach of a title, selection lists.

use std::collections::BTreeMap;

use crate::json::JsonRules;
use crate::ledger::{Book, Ledger};
use crate::model::{PlayerIdx, Rating};
use crate::rules::{Award, ListId, PlayerRating, Reach, Rulebook, SelectionNumbers};
use crate::store::PlayerStatus;

use super::state::{App, HistoryRow, Standing, TitlesView};

impl<R: JsonRules> App<R> {
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
                        rating: r.common(),
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
        standings(self.desk.book(), self.desk.ledger(), event)
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

/// An event's standings: participants by points (unplayed games included), then rating.
pub fn standings<R: Rulebook>(book: &Book<R>, ledger: &Ledger<R>, event: usize) -> Vec<Standing> {
    let ev = &book.events[event];
    let ratings: BTreeMap<PlayerIdx, &PlayerRating<R::Detail>> = ledger
        .event_ratings(event)
        .into_iter()
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
                rating: ratings.get(&p).map(|r| r.common()),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        let rating = |s: &Standing| s.rating.as_ref().and_then(|r| r.old).unwrap_or(0);
        b.points.cmp(&a.points).then(rating(b).cmp(&rating(a)))
    });
    rows
}
