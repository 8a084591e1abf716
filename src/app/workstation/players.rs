//! The Players tab: the search box (which always holds the typing while the list shows) and
//! the player card with his rated events and rated games. Esc on a card goes back to where it
//! was opened from.

use crate::app::Federation;
use crate::app::queries::ListPlace;
use crate::model::{PlayerIdx, Rating};
use crate::rules::ListId;

use super::action::Action;
use super::state::{App, HistoryRow, Place, is_move, step};

/// Where the Players tab's keys go: the search box (typing) or the open card (commands).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Focus {
    #[default]
    Search,
    Card,
}

/// What the lower part of the card lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CardView {
    #[default]
    Games,
    Events,
    /// His place on the newest national lists, a row per list date.
    Lists,
}

#[derive(Clone, Debug, Default)]
pub struct PlayersState {
    pub query: String,
    pub results: Vec<PlayerIdx>,
    pub selected: usize,
    pub focus: Focus,
    pub card: Option<PlayerIdx>,
    /// The cursor in the card's list (newest first).
    pub card_row: usize,
    pub card_view: CardView,
    /// Back from a card, the query is the one that found him: the next letter typed starts a
    /// new search (a backspace or any other key keeps the query to work on).
    pub fresh: bool,
    /// The newest national lists ranked, for the card's places (newest list date first): worked
    /// out when a card opens and kept until the record changes or another list comes into
    /// force.
    pub places: Option<Vec<crate::app::queries::ListRanks>>,
}

/// How many of the newest list dates the card's lists view gives a player's places on.
pub const CARD_LISTS: usize = 12;

/// One rated game on a player's card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    pub event: usize,
    pub list: ListId,
    pub date: chrono::NaiveDate,
    pub round: u32,
    /// `Some(true)` with white.
    pub white: Option<bool>,
    pub opponent: PlayerIdx,
    /// The opponent's rating as the player's calculation used it.
    pub opponent_rating: Rating,
    pub halves: u8,
    /// Expected score in percent.
    pub expected: Option<u8>,
    /// The running rating's move with this game (`None` before the first rating, and where a
    /// whole event is rated at once).
    pub change: Option<GameChange>,
    pub rating_after: Rating,
    /// Whether `rating_after` is a rating: not for a player without one in a rulebook that
    /// publishes by period (his row carries a performance or a first rating there).
    pub rating_shown: bool,
}

/// A game's change of a player's rating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameChange {
    /// The running rating moved by this many points.
    Points(i32),
    /// The game's exact change in hundredths, summed into the period's new rating.
    Exact(i64),
}

impl<R: Federation> App<R> {
    pub(super) fn refresh_players(&mut self) {
        self.players.results = self.search.search(&self.players.query);
        self.players.selected = self
            .players
            .selected
            .min(self.players.results.len().saturating_sub(1));
    }

    pub(super) fn update_players(&mut self, action: Action) {
        let page = self.page();
        let p = &mut self.players;
        match (p.focus, action) {
            (Focus::Search, Action::Back) if !p.query.is_empty() => {
                p.query.clear();
                p.selected = 0;
                self.refresh_players();
            }
            (Focus::Search, Action::Open) => {
                if let Some(&player) = p.results.get(p.selected) {
                    self.open_card(player);
                }
            }
            (Focus::Search, a) if is_move(a) => {
                p.selected = step(p.selected, p.results.len(), a, page)
            }
            (Focus::Search, _) => {}
            (Focus::Card, Action::Back) => self.go_back(Place::Search),
            (Focus::Card, Action::Search) => {
                self.back.clear();
                self.go(Place::Search);
            }
            (Focus::Card, Action::NextView) => {
                p.card_view = match p.card_view {
                    CardView::Games => CardView::Events,
                    CardView::Events => CardView::Lists,
                    CardView::Lists => CardView::Games,
                };
                p.card_row = 0;
                self.rank_lists();
            }
            (Focus::Card, Action::PrevView) => {
                p.card_view = match p.card_view {
                    CardView::Games => CardView::Lists,
                    CardView::Events => CardView::Games,
                    CardView::Lists => CardView::Events,
                };
                p.card_row = 0;
                self.rank_lists();
            }
            (Focus::Card, Action::Open) => {
                let (Some(player), row) = (p.card, p.card_row) else {
                    return;
                };
                let event = match p.card_view {
                    CardView::Games => self.game_rows(player).get(row).map(|g| (g.event, g.round)),
                    CardView::Events => self.events_newest_first(player, row).map(|e| (e, 1)),
                    CardView::Lists => None,
                };
                if let Some((event, round)) = event {
                    self.open_event_for(event, Some(player), round);
                }
            }
            (Focus::Card, Action::Merge) => self.start_merge(),
            (Focus::Card, Action::Reenter) => self.start_reentry(),
            (Focus::Card, a) if is_move(a) => {
                let (card, view) = (p.card, p.card_view);
                let len = card.map_or(0, |c| match view {
                    CardView::Games => self.game_rows(c).len(),
                    CardView::Events => self.history(c).len(),
                    CardView::Lists => self.place_dates(c).len(),
                });
                self.players.card_row = step(self.players.card_row, len, a, page);
            }
            (Focus::Card, _) => {}
        }
    }

    /// Opens a player's card (Esc comes back here).
    pub fn open_card(&mut self, player: PlayerIdx) {
        self.visit(Place::Card {
            player,
            row: 0,
            view: CardView::Games,
        });
    }

    fn events_newest_first(&self, player: PlayerIdx, row: usize) -> Option<usize> {
        let history = self.history(player);
        history.len().checked_sub(row + 1).map(|i| history[i].event)
    }

    /// A player's rated events on every list, in ledger order (by period first, for a
    /// rulebook that publishes by period).
    pub fn history(&self, player: PlayerIdx) -> Vec<HistoryRow> {
        let book = self.desk.book();
        let rulebook = self.desk.rulebook();
        let lists = rulebook.lists().len();
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
                        period: self.row_period(r, list),
                        change: rulebook.row_change(r),
                        game_changes: rulebook.game_changes(r),
                        entered: rulebook.entered(r),
                    })
            })
            .collect();
        rows.sort_by(|a, b| {
            let (x, y) = (&book.events[a.event], &book.events[b.event]);
            let period = |r: &HistoryRow| r.period.map(|p| p.published);
            (period(a), x.end, x.start, &x.id).cmp(&(period(b), y.end, y.start, &y.id))
        });
        rows
    }

    /// The period a row of a player's history is rated in (a rulebook that publishes by
    /// period): the unit of its event's part that holds the row's first game.
    fn row_period(
        &self,
        row: &crate::rules::PlayerRating<R::Detail>,
        list: ListId,
    ) -> Option<crate::federations::PeriodDates> {
        let (book, rulebook) = (self.desk.book(), self.desk.rulebook());
        let ev = book.events.get(row.event)?;
        let first = row.lines.first()?;
        let units = rulebook.units_of(row.event, ev, list);
        let key = match units.as_slice() {
            [(key, _)] => key,
            _ => {
                &units
                    .iter()
                    .find(|(_, part)| {
                        part.games.iter().filter_map(|&g| ev.games.get(g)).any(|g| {
                            g.round == first.round
                                && (g.white() == row.player || g.black() == Some(row.player))
                        })
                    })?
                    .0
            }
        };
        rulebook.period_dates(key)
    }

    /// A player's rated games on every list, newest first, each with the opponent's rating as
    /// used, the expected score and the running rating after it.
    pub fn game_rows(&self, player: PlayerIdx) -> Vec<GameRow> {
        let book = self.desk.book();
        let mut rows = Vec::new();
        let rates_games = self.desk.rulebook().rates_games();
        for h in self.history(player) {
            let ev = &book.events[h.event];
            let mut running = h.rating.old;
            for (k, line) in h.rating.lines.iter().enumerate() {
                // By period, the running rating goes on over the period's events: each game's
                // own change is the rulebook's; rated as a whole event, no game has one.
                let change = match &h.game_changes {
                    Some(changes) => changes.get(k).map(|&c| GameChange::Exact(c)),
                    None if rates_games => {
                        running.map(|r| GameChange::Points(line.rating_after - r))
                    }
                    None => None,
                };
                let game = ev.games.iter().find(|g| {
                    g.round == line.round
                        && ((g.white() == player && g.black() == Some(line.opponent()))
                            || (g.black() == Some(player) && g.white() == line.opponent()))
                });
                rows.push(GameRow {
                    event: h.event,
                    list: h.list,
                    date: game.and_then(|g| g.date).unwrap_or(ev.end),
                    round: line.round,
                    white: game.map(|g| g.white() == player),
                    opponent: line.opponent(),
                    opponent_rating: line.opponent_rating,
                    halves: line.halves,
                    expected: line.expected,
                    change,
                    rating_after: line.rating_after,
                    rating_shown: h.period.is_none() || h.rating.old.is_some(),
                });
                running = Some(line.rating_after);
            }
        }
        rows.reverse();
        rows
    }

    /// Ranks the national lists the card shows, unless they are ranked already: the list in
    /// force today for the head, and the [`CARD_LISTS`] newest for the lists view.
    pub(super) fn rank_lists(&mut self) {
        let dates = if self.players.card_view == CardView::Lists {
            CARD_LISTS
        } else {
            1
        };
        let lists = self.desk.rulebook().lists().len();
        let today = crate::clock::today();
        let in_force = self.desk.rulebook().list_date(today);
        let held = self.players.places.as_ref().is_some_and(|p| {
            p.len() >= dates * lists && p.first().is_some_and(|r| r.date == in_force)
        });
        if !held {
            self.players.places = Some(crate::app::queries::list_ranks(&self.desk, today, dates));
        }
    }

    /// The date of the list in force the card's places were ranked on.
    pub fn places_date(&self) -> Option<chrono::NaiveDate> {
        self.players.places.as_ref()?.first().map(|r| r.date)
    }

    /// The list dates of the card's lists view on which the player has a place, newest
    /// first: its rows.
    pub fn place_dates(&self, player: PlayerIdx) -> Vec<chrono::NaiveDate> {
        let mut dates: Vec<chrono::NaiveDate> =
            self.list_places(player).iter().map(|p| p.date).collect();
        dates.dedup();
        dates
    }

    /// A player's places on the national lists ranked, newest list date first (lists he is
    /// not on left out).
    pub fn list_places(&self, player: PlayerIdx) -> Vec<ListPlace> {
        self.players
            .places
            .iter()
            .flatten()
            .filter_map(|r| r.place_of(player))
            .collect()
    }

    /// A player's FIDE titles for his card (none when they cannot be read: the card is drawn
    /// whatever the disk says).
    pub fn fide_title(&self, player: PlayerIdx) -> Option<crate::store::fide::FideTitle> {
        crate::app::queries::fide_title(&self.desk, player)
            .ok()
            .flatten()
    }

    /// The points of a player's rating over time on one list: his rating going into his first
    /// rated event, then after every game; for a rulebook that publishes by period, each
    /// period's starting rating and the last one published.
    pub fn rating_points(
        &self,
        player: PlayerIdx,
        list: ListId,
    ) -> Vec<(chrono::NaiveDate, Rating)> {
        let book = self.desk.book();
        if self.desk.rulebook().by_period() {
            return self.period_points(player, list);
        }
        let mut points = Vec::new();
        for r in self.desk.ledger().history(player, list) {
            let ev = &book.events[r.event];
            if points.is_empty()
                && let Some(old) = r.old
            {
                points.push((ev.start, old));
            }
            let n = r.lines.len().max(1) as i64;
            let days = (ev.end - ev.start).num_days();
            for (k, line) in r.lines.iter().enumerate() {
                // A game without its own date is placed by its order within the event.
                let spread = ev.start + chrono::Duration::days(days * (k as i64 + 1) / n);
                let date = ev
                    .games
                    .iter()
                    .find(|g| {
                        g.round == line.round && (g.white() == player || g.black() == Some(player))
                    })
                    .and_then(|g| g.date)
                    .unwrap_or(spread);
                points.push((date.max(ev.start), line.rating_after));
            }
        }
        points
    }

    /// A rating published by period: his rating at the start of each period he played in, and
    /// the rating published after the last.
    fn period_points(&self, player: PlayerIdx, list: ListId) -> Vec<(chrono::NaiveDate, Rating)> {
        let mut points: Vec<(chrono::NaiveDate, Rating)> = Vec::new();
        let mut last = None;
        for h in self.history(player).into_iter().filter(|h| h.list == list) {
            let Some(period) = h.period else { continue };
            if let Some(old) = h.rating.old
                && points.last().is_none_or(|(d, _)| *d < period.rated_with)
            {
                points.push((period.rated_with, old));
            }
            last = Some(period.published);
        }
        let now = self
            .desk
            .ledger()
            .state(self.desk.rulebook(), self.desk.book(), player, list)
            .and_then(|s| self.desk.rulebook().rating_of(&s));
        if let (Some(date), Some(rating)) = (last, now) {
            points.push((date, rating));
        }
        points
    }
}
