//! The rating period as the workstation shows it, for a rulebook that publishes its ratings by
//! period (Iceland's quarter, Turkey's month): which period each part of an event falls into,
//! and whether its results came too late for the period they were played in; each entrant's
//! running totals in a period — the change of this event, the sum of the changes of all his
//! events in the period so far, and the rating the period's list will publish.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::app::Federation;
use crate::federations::PeriodDates;
use crate::model::{PlayerIdx, Rating};
use crate::rules::{ListId, UnitKey};

use super::state::App;

/// One period an event's games fall into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventPeriod {
    pub key: UnitKey,
    pub list: ListId,
    pub dates: PeriodDates,
    /// The rounds with a game rated in this period.
    pub rounds: Vec<u32>,
    /// The boards of the event (as (round, board)) with a game in this period.
    pub boards: Vec<(u32, u32)>,
    /// The period these games would have been rated in had their results been received in
    /// time, when it is another: the results came late.
    pub late: Option<PeriodDates>,
    /// When the results came late, the day the latest of them was received (a game's own
    /// receipt date, else its event's).
    pub received: Option<chrono::NaiveDate>,
}

/// The figures in a period of an event's players, by player.
pub type Entries = BTreeMap<PlayerIdx, PeriodEntry>;

/// An entrant's figures in a period.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PeriodEntry {
    /// The rating he counts with in the period (`None`: unrated).
    pub old: Option<Rating>,
    /// This event's change in the period, exact in hundredths.
    pub event_change: Option<i64>,
    /// The changes of all his events in the period so far, exact in hundredths.
    pub period_change: Option<i64>,
    /// His events in the period so far.
    pub events: usize,
    /// The rating the period's list will publish for him (a first rating included); `None`
    /// when it publishes none.
    pub new: Option<Rating>,
}

impl<R: Federation> App<R> {
    /// The periods an event's games fall into, in date order; empty for a rulebook that rates
    /// event by event, and for an event that is not rated.
    pub fn event_periods(&self, event: usize) -> Vec<EventPeriod> {
        let revision = self.desk.revision();
        let periods = self
            .kept_periods
            .get(revision, event, || self.periods_found(event));
        (*periods).clone()
    }

    /// [`App::event_periods`], found in the record.
    fn periods_found(&self, event: usize) -> Vec<EventPeriod> {
        let (book, rulebook) = (self.desk.book(), self.desk.rulebook());
        let ev = &book.events[event];
        let Some(list) = rulebook.list_in(ev, &book.events) else {
            return Vec::new();
        };
        // Where the games would be with their results received in time.
        let on_time = crate::model::Event {
            received: None,
            games: ev
                .games
                .iter()
                .map(|g| crate::model::Game {
                    received: None,
                    ..g.clone()
                })
                .collect(),
            ..ev.clone()
        };
        // Each game's period had its result been received in time, by its index.
        let mut in_time: Vec<Option<UnitKey>> = vec![None; ev.games.len()];
        for (key, part) in rulebook.units_of(event, &on_time, list) {
            for &g in part.games.iter() {
                if let Some(slot) = in_time.get_mut(g) {
                    *slot = Some(key.clone());
                }
            }
        }
        rulebook
            .units_of(event, ev, list)
            .into_iter()
            .filter_map(|(key, part)| {
                let dates = rulebook.period_dates(&key)?;
                let mut rounds: Vec<u32> = part
                    .games
                    .iter()
                    .filter_map(|&g| ev.games.get(g))
                    .filter(|g| g.is_rated_game())
                    .map(|g| g.round)
                    .collect();
                rounds.sort_unstable();
                rounds.dedup();
                // Its late games: those another period would have rated in time.
                let late_games: Vec<(usize, &UnitKey)> = part
                    .games
                    .iter()
                    .filter_map(|&g| {
                        in_time
                            .get(g)?
                            .as_ref()
                            .filter(|k| **k != key)
                            .map(|k| (g, k))
                    })
                    .collect();
                let late = late_games
                    .iter()
                    .filter_map(|(_, k)| rulebook.period_dates(k))
                    .min();
                // The day the latest of them arrived (a game in time for this period says
                // nothing of lateness).
                let received = late_games
                    .iter()
                    .filter_map(|&(g, _)| ev.games.get(g))
                    .filter_map(|g| g.received.or(ev.received))
                    .max();
                let boards = part
                    .games
                    .iter()
                    .filter_map(|&g| ev.games.get(g))
                    .map(|g| (g.round, g.board))
                    .collect();
                Some(EventPeriod {
                    key,
                    list,
                    dates,
                    rounds,
                    boards,
                    late,
                    received,
                })
            })
            .collect()
    }

    /// The period a round of an event is rated in: the one holding its games, else (a round
    /// not played yet) the event's last.
    pub fn round_period(&self, event: usize, round: u32) -> Option<EventPeriod> {
        let mut periods = self.event_periods(event);
        let at = periods.iter().position(|p| p.rounds.contains(&round));
        match at {
            Some(i) => Some(periods.swap_remove(i)),
            None => periods.pop(),
        }
    }

    /// The period a board is rated in (its round's results may have come on different days),
    /// else its round's ([`App::round_period`]).
    pub fn board_period(&self, event: usize, round: u32, board: u32) -> Option<EventPeriod> {
        let mut periods = self.event_periods(event);
        match periods
            .iter()
            .position(|p| p.boards.contains(&(round, board)))
        {
            Some(i) => Some(periods.swap_remove(i)),
            None => self.round_period(event, round),
        }
    }

    /// The figures in a period of every player of the event (its entrants and whoever plays in
    /// its games), as far as the event's part and the period's other events give them.
    pub fn period_entries(&self, event: usize, period: &EventPeriod) -> Arc<Entries> {
        let key = (event, period.key.clone(), period.list);
        self.kept_entries.get(self.desk.revision(), key, || {
            self.entries_found(event, period)
        })
    }

    /// [`App::period_entries`], found in the record.
    fn entries_found(&self, event: usize, period: &EventPeriod) -> Entries {
        let rulebook = self.desk.rulebook();
        let mut entries: BTreeMap<PlayerIdx, PeriodEntry> = BTreeMap::new();
        let Some(unit) = self
            .desk
            .ledger()
            .units()
            .get(&(period.key.clone(), period.list))
        else {
            return entries;
        };
        // The period holds the players of many events: only this one's are summed (marked in
        // pages: an event's players are a few of the federation's).
        let ev = &self.desk.book().events[event];
        let mut ours = crate::paged::PagedBits::new();
        for &p in &ev.participants {
            ours.insert(p);
        }
        for g in &ev.games {
            for p in std::iter::once(g.white()).chain(g.black()) {
                ours.insert(p);
            }
        }
        for row in unit.ratings.iter().filter(|r| ours.contains(r.player)) {
            let e = entries.entry(row.player).or_default();
            e.events += 1;
            let change = rulebook.row_change(row);
            if let Some(c) = change {
                e.period_change = Some(e.period_change.unwrap_or(0) + c);
            }
            if row.event == event {
                e.old = row.old;
                e.event_change = match (e.event_change, change) {
                    (Some(a), Some(b)) => Some(a + b),
                    (a, b) => a.or(b),
                };
            }
        }
        for (p, e) in &mut entries {
            e.new = unit.states.get(p).and_then(|s| rulebook.rating_of(s));
        }
        entries
    }
}

/// A change in hundredths as it reads: `+8`, `-11.2`, `+5.25`, `0`.
pub fn hundredths(change: i64) -> String {
    let sign = if change > 0 {
        "+"
    } else if change < 0 {
        "-"
    } else {
        ""
    };
    let abs = change.unsigned_abs();
    let (whole, part) = (abs / 100, abs % 100);
    match part {
        0 => format!("{sign}{whole}"),
        p if p % 10 == 0 => format!("{sign}{whole}.{}", p / 10),
        p => format!("{sign}{whole}.{p:02}"),
    }
}

#[cfg(test)]
mod tests {
    use super::hundredths;

    #[test]
    fn changes_read_without_trailing_zeros() {
        assert_eq!(hundredths(800), "+8");
        assert_eq!(hundredths(-1120), "-11.2");
        assert_eq!(hundredths(525), "+5.25");
        assert_eq!(hundredths(-5), "-0.05");
        assert_eq!(hundredths(0), "0");
    }
}
