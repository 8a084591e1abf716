//! The Icelandic rulebook (Skáksamband Íslands, "Útreikningur íslenskra skákstiga", last changed
//! December 2010): which events are rated (Kröfur um tímamörk), the quarterly rating periods
//! (Útreikningsdagsetningar), initial ratings (Fyrstu stig, forstig) and the ratings of rated
//! players (Tafla 1, Tafla 2, Rnýstig).
//!
//! Ratings are computed by period, not by event: every game of a quarter is rated with the
//! ratings published at its start and the new ratings are published at its end, so one rating
//! unit is one period, holding the parts of all the events whose games fall in it.

pub mod entry;
mod initial;
pub mod listing;
mod periods;
mod rate;
mod rated;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::{EventPart, ListId, Rulebook, Unit, UnitKey, UnitOutcome};
use crate::model::{Event, Rating};

pub use entry::{Entry, entry_rating, is_foreign, reentry_in, reentry_in_force};
pub use initial::{MIN_GAMES, MIN_HALVES, Provisional, dp, initial_rating, score_percent};
pub use periods::{Period, age_on, game_period, is_junior, is_list_date, period_of};
pub use rated::{
    FLOOR, LOCK_RATING, change_hundredths, expected_hundredths, k_factor, new_rating, reaches_2400,
};

/// The one Icelandic list (standard play).
pub const STANDARD: ListId = 0;

/// "hvor skákmaður hefur að minnsta kosti 60 mínútur til að ljúka skákinni": the least time
/// for a rated game, in seconds for 60 moves.
pub const MIN_SECONDS: u64 = 60 * 60;

/// The Icelandic rulebook.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Isl;

/// A player's state on the Icelandic list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum IslState {
    /// A published rating.
    Rated {
        rating: Rating,
        /// Every rated game, the games that gave the initial rating included (Tafla 1 numbers
        /// games by it).
        games: u32,
        /// A published rating was 2400 or more: K is 10 (a junior 15) for good.
        reached_2400: bool,
    },
    /// No rating yet: his games against rated opponents so far (none: an empty record).
    Provisional(Provisional),
}

impl Default for IslState {
    fn default() -> Self {
        Self::Provisional(Provisional::default())
    }
}

impl IslState {
    /// A rated state; a rating of 2400 or more has reached the mark.
    pub fn rated(rating: Rating, games: u32, reached_2400: bool) -> Self {
        Self::Rated {
            rating,
            games,
            reached_2400: reached_2400 || reaches_2400(rating),
        }
    }

    /// The published rating, if any.
    pub fn rating(&self) -> Option<Rating> {
        match self {
            Self::Rated { rating, .. } => Some(*rating),
            Self::Provisional(_) => None,
        }
    }

    /// The provisional record of an unrated player.
    pub fn provisional(&self) -> Option<&Provisional> {
        match self {
            Self::Rated { .. } => None,
            Self::Provisional(p) => Some(p),
        }
    }

    /// An unrated player with no game against a rated opponent: the same as no state.
    pub fn is_empty(&self) -> bool {
        self.provisional().is_some_and(|p| p.games == 0)
    }
}

/// The figures of one player's part of an event in a period that the contract publishes
/// beyond the common ones, and his period's outcome (the same in each of his parts of it).
///
/// In every row of a period a rated player's `PlayerRating::new` is his new rating at the
/// period's end; an unrated player's is his initial rating when `initial`, else 0 (nothing is
/// published for him yet).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IslDetail {
    /// Σ Rbreyting of the part's games, exact in hundredths (rated players).
    pub change: Option<i64>,
    /// The K of each of the part's games, in order (rated players; shared as the row's lines
    /// are).
    pub k: std::sync::Arc<[u8]>,
    /// Σ of the opponents' ratings in the part's games (unrated players).
    pub opponents_sum: Option<i64>,
    /// His initial rating was computed at this period's end.
    pub initial: bool,
    /// An unrated player's provisional totals after the period (those an initial rating used).
    pub provisional: Option<Provisional>,
    /// A foreign player entered the list at this period's start, on this rating ([`entry`]).
    pub entry: Option<Entry>,
}

/// Not laid flat: a K for each of the part's games.
impl crate::rules::FlatFigures for IslDetail {
    const FIELDS: Option<usize> = None;

    fn flatten(&self, _: &mut Vec<i64>) {}

    fn unflatten(_: &[i64]) -> Option<Self> {
        None
    }
}

/// Kröfur um tímamörk: "Öll mót sem tefld eru innanlands þar sem hvor skákmaður hefur að
/// minnsta kosti 60 mínútur til að ljúka skákinni eru tekin til útreiknings" — an event in
/// Iceland with at least 60 minutes for 60 moves is rated; any other is not. "Ef teflt er með
/// viðbótartíma þá eru tímamörkin uppreiknuð miðað við 60 leikja skák": increments count for
/// 60 moves ([`Event::seconds_for_60_moves`]).
pub fn list_for(seconds_for_60: u64, abroad: bool) -> Option<ListId> {
    (!abroad && seconds_for_60 >= MIN_SECONDS).then_some(STANDARD)
}

/// The unit key of a period: the list date that names it.
pub fn unit_key(period: &Period) -> UnitKey {
    UnitKey {
        date: period.name,
        second: period.name,
        tag: "".into(),
    }
}

/// The period a unit key names.
pub fn period_of_key(key: &UnitKey) -> Period {
    period_named(key.date)
}

/// The period published on list date `name`.
pub fn period_named(name: NaiveDate) -> Period {
    period_of(name.pred_opt().unwrap_or(name))
}

/// Útreikningsdagsetningar: an event's played games by the period they are rated in, periods
/// in date order (games in event order within each).
pub fn games_by_period(event: &Event) -> Vec<(Period, Vec<usize>)> {
    let mut by: std::collections::BTreeMap<Period, Vec<usize>> = Default::default();
    for (i, g) in event.games.iter().enumerate() {
        if g.is_rated_game() {
            // A game's own receipt date (rounds reported as played), else its event's.
            let period = game_period(g.date, event.end, g.received.or(event.received));
            by.entry(period).or_default().push(i);
        }
    }
    by.into_iter().collect()
}

impl Rulebook for Isl {
    type State = IslState;
    type Award = ();
    type Detail = IslDetail;

    fn code(&self) -> &'static str {
        "isl"
    }

    fn home_federation(&self) -> &'static str {
        "ISL"
    }

    /// "Góð regla er að slá inn hverja umferð strax að henni lokinni": rounds reported as they
    /// are played, each game rated by the day its result was received ([`game_period`]).
    fn keeps_game_receipt(&self) -> bool {
        true
    }

    /// Tafla 1: K.
    fn factor_names(&self) -> crate::rules::FactorNames {
        crate::rules::FactorNames {
            k: "K",
            time: "time factor",
            temporary: "start",
        }
    }

    /// Icelanders write a name first name first and sort their list by it (`Jón Guðmundsson`).
    /// One rule for every event.
    fn rule_of(&self, _event: &Event) -> Option<(&'static str, bool)> {
        None
    }

    fn name_order(&self) -> crate::model::NameOrder {
        crate::model::NameOrder::GivenFirst
    }

    fn lists(&self) -> &'static [&'static str] {
        &["standard"]
    }

    /// A returning Icelander re-enters the list (see [`reentry_in_force`]).
    fn restarts(&self) -> bool {
        true
    }

    fn restart(
        &self,
        info: &crate::model::PlayerInfo,
        list: ListId,
        since: Option<&UnitKey>,
        upto: &dyn Fn(&UnitKey) -> bool,
    ) -> Option<IslState> {
        (list == STANDARD)
            .then(|| reentry_in_force(info, since, upto))
            .flatten()
            .map(|r| IslState::rated(r.rating, 0, false))
    }

    /// Kröfur um tímamörk (see [`list_for`]). A play-off is an event like any other.
    fn list_of(&self, event: &Event, _decided: Option<&Event>) -> Option<ListId> {
        list_for(event.seconds_for_60_moves(), event.abroad)
    }

    /// Útreikningsdagsetningar: one unit per period holding a played game of the event (see
    /// [`game_period`]); all the events' parts of a period are rated together.
    fn units_of(
        &self,
        event_idx: usize,
        event: &Event,
        _list: ListId,
    ) -> Vec<(UnitKey, EventPart)> {
        games_by_period(event)
            .into_iter()
            .map(|(period, games)| {
                (
                    unit_key(&period),
                    EventPart {
                        event: event_idx,
                        games: games.into(),
                    },
                )
            })
            .collect()
    }

    /// The rating with its game count and the 2400 lock, or the provisional games.
    fn state_summary(&self, _list: ListId, state: &IslState) -> String {
        match state {
            IslState::Rated {
                rating,
                games,
                reached_2400,
            } => {
                let lock = if *reached_2400 { ", 2400 reached" } else { "" };
                format!("{rating} ({games} games{lock})")
            }
            IslState::Provisional(p) if p.games == 0 => "unrated".into(),
            IslState::Provisional(p) => format!(
                "unrated ({} provisional games, {}{} points)",
                p.games,
                p.score / 2,
                if p.score % 2 == 1 { ".5" } else { "" }
            ),
        }
    }

    fn rating_of(&self, state: &IslState) -> Option<Rating> {
        state.rating()
    }

    fn rate(&self, unit: &Unit<'_, Self>) -> UnitOutcome<IslState, (), IslDetail> {
        rate::rate(unit)
    }

    fn rates_again(&self) -> bool {
        true
    }

    /// Útreikningur: each player is rated from his own games against his opponents' ratings
    /// at the period's start, so a period is rated again for the players touched alone.
    fn rate_again(
        &self,
        unit: &Unit<'_, Self>,
        previous: &super::Previous<'_, Self>,
    ) -> Option<UnitOutcome<IslState, (), IslDetail>> {
        Some(rate::rate_again(unit, previous))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kroefur_um_timamoerk_60_minutes_in_iceland() {
        let m = |min: u64| min * 60;
        assert_eq!(list_for(m(59), false), None);
        assert_eq!(list_for(m(59) + 59, false), None);
        assert_eq!(list_for(m(60), false), Some(STANDARD));
        assert_eq!(list_for(m(90), false), Some(STANDARD));
        assert_eq!(list_for(m(90), true), None, "abroad");
    }

    #[test]
    fn a_rating_of_2400_has_reached_the_mark() {
        assert_eq!(
            IslState::rated(2410, 50, false),
            IslState::Rated {
                rating: 2410,
                games: 50,
                reached_2400: true
            }
        );
        assert_eq!(IslState::rated(2399, 50, false).rating(), Some(2399));
        assert!(IslState::default().is_empty());
    }

    #[test]
    fn state_summaries() {
        let s = |state: &IslState| Isl.state_summary(STANDARD, state);
        assert_eq!(s(&IslState::rated(1850, 120, false)), "1850 (120 games)");
        assert_eq!(
            s(&IslState::rated(2390, 120, true)),
            "2390 (120 games, 2400 reached)"
        );
        assert_eq!(s(&IslState::default()), "unrated");
        let p = Provisional {
            games: 4,
            opponents_sum: 6400,
            score: 3,
        };
        assert_eq!(
            s(&IslState::Provisional(p)),
            "unrated (4 provisional games, 1.5 points)"
        );
    }

    #[test]
    fn unit_keys_name_their_periods() {
        let d = |s| NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("date");
        let p = period_of(d("2025-01-10"));
        let key = unit_key(&p);
        assert_eq!(key.date, d("2025-03-01"));
        assert_eq!(period_of_key(&key), p);
        assert_eq!(period_named(d("2025-06-01")).from, d("2025-03-01"));
    }
}
