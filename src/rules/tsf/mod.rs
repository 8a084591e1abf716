//! The Turkish rulebook (Türkiye Satranç Federasyonu, TSF-TK-PRS/05 "Ulusal Kuvvet Derecesi
//! Hesaplama Prosedürü", rev. 03 of 1.10.2014): the national rating UKD on three lists by tempo
//! (A.2), rated month by month (A.14, B.1.e), by the Swiss (B.3) or the Berger (B.4) method,
//! with an archive of performances for players without a UKD (B.1.f–g).
//!
//! A rating unit is one month's events on one list: every event whose results were received in
//! the rating month is rated against the list published on its first day, and the changes are
//! summed and published on the first day of the next month, the date that names the period.

pub mod calendar;
pub mod method;
mod rate;
pub mod rated;
#[cfg(test)]
mod scenarios;
pub mod standing;
pub mod tables;
pub mod unrated;

use serde::{Deserialize, Serialize};

use super::{EventPart, ListId, Rulebook, Unit, UnitKey, UnitOutcome};
use crate::model::{Event, Rating};

pub use calendar::{BLITZ, LIST_NAMES, NotRated, RAPID, STANDARD};
pub use method::{Method, Pairing};
pub use rated::RatedFigures;
pub use standing::Source;
pub use unrated::{Archived, UnratedFigures};

/// The Turkish rulebook.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tsf;

/// A player's state on one Turkish list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TsfState {
    /// A published UKD and the rated games behind it.
    Rated { rating: Rating, games: u32 },
    /// No UKD yet: the performances archived so far (B.1.g), fewer than seven games in all.
    /// Shared: a state is copied into every unit that carries it on, and into the lanes.
    Unrated {
        performances: std::sync::Arc<[Archived]>,
    },
}

impl TsfState {
    /// The published UKD, if any.
    pub fn rating(&self) -> Option<Rating> {
        match self {
            TsfState::Rated { rating, .. } => Some(*rating),
            TsfState::Unrated { .. } => None,
        }
    }
}

/// What one player's row of one event publishes, besides the common figures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Figures {
    /// A player who counted with a rating, and where it came from.
    Rated(RatedFigures, Source),
    /// A player without one.
    Unrated(UnratedFigures),
}

impl Default for Figures {
    fn default() -> Self {
        Figures::Unrated(UnratedFigures::default())
    }
}

/// The TSF figures of one player in one event: the event's method and averages (the same in
/// every row of the event) and his own figures.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TsfDetail {
    pub method: Method,
    /// The average rating of the rated players who played (B.3.a(1), B.4.b); `None` without one.
    pub average: Option<Rating>,
    /// Swiss: the preliminary rating of the unrated players (B.3.a(2), B.1.b).
    pub preliminary: Option<Rating>,
    /// Berger: To (Formula 5).
    pub tournament_average: Option<Rating>,
    pub figures: Figures,
}

/// KAPSAM, A.2, A.10.c–d: the list an event's tempo gives, whether or not it is rated.
pub fn tempo_list(event: &Event) -> ListId {
    calendar::list_for_seconds(event.seconds_for_60_moves())
}

/// KAPSAM, A.10.c–d: why an event is not rated, if it is not.
pub fn not_rated(event: &Event) -> Option<NotRated> {
    calendar::not_rated(event, tempo_list(event))
}

/// A.14: the day the results count as received — `received`, or the event's end when not
/// recorded.
pub fn received(event: &Event) -> chrono::NaiveDate {
    event.received.unwrap_or(event.end)
}

/// A.14, B.1.e: the period whose list publishes an event's changes.
pub fn period(event: &Event) -> chrono::NaiveDate {
    calendar::period_of(received(event))
}

impl Rulebook for Tsf {
    type State = TsfState;
    type Award = ();
    type Detail = TsfDetail;

    fn code(&self) -> &'static str {
        "tsf"
    }

    fn home_federation(&self) -> &'static str {
        "TUR"
    }

    /// B.3.d: k; B.3.a(2): the preliminary rating of the unrated.
    fn factor_names(&self) -> crate::rules::FactorNames {
        crate::rules::FactorNames {
            k: "k",
            time: "time factor",
            temporary: "prelim",
        }
    }

    /// As the TRF files the federation receives write names.
    /// One rule for every event.
    fn rule_of(&self, _event: &Event) -> Option<(&'static str, bool)> {
        None
    }

    fn name_order(&self) -> crate::model::NameOrder {
        crate::model::NameOrder::SurnameFirst
    }

    fn lists(&self) -> &'static [&'static str] {
        &LIST_NAMES
    }

    /// A.2 with KAPSAM and A.10.c–d. Play-offs have no rule of their own in the procedure: a
    /// play-off is an event like any other, on the list of its own tempo.
    fn list_of(&self, event: &Event, _decided: Option<&Event>) -> Option<ListId> {
        let list = tempo_list(event);
        calendar::not_rated(event, list).is_none().then_some(list)
    }

    /// A.14, B.1.e: one unit per month and list, named by the period's list date; the whole
    /// event falls into the month in which its results were received.
    fn units_of(
        &self,
        event_idx: usize,
        event: &Event,
        _list: ListId,
    ) -> Vec<(UnitKey, EventPart)> {
        let date = period(event);
        let key = UnitKey {
            date,
            second: date,
            tag: "".into(),
        };
        vec![(
            key,
            EventPart {
                event: event_idx,
                games: (0..event.games.len()).collect(),
            },
        )]
    }

    /// B.1.l–m: a player's first rapid or blitz events count his standard UKD.
    fn reads_other_lists(&self) -> bool {
        true
    }

    /// B.1.l–m: a rapid or blitz unit reads the standard list, and nothing else reads another
    /// list (a move on the rapid list never reaches the standard or blitz one).
    fn reads_list(&self, list: ListId, other: ListId) -> bool {
        list != STANDARD && other == STANDARD
    }

    fn state_summary(&self, _list: ListId, state: &TsfState) -> String {
        match state {
            TsfState::Rated { rating, games } => format!("{rating} ({games} games)"),
            TsfState::Unrated { performances } => format!(
                "unrated ({} of {} games archived)",
                unrated::archived_games(performances),
                unrated::GAMES_FOR_UKD
            ),
        }
    }

    fn rating_of(&self, state: &TsfState) -> Option<Rating> {
        state.rating()
    }

    fn rate(&self, unit: &Unit<'_, Self>) -> UnitOutcome<TsfState, (), TsfDetail> {
        rate::rate(unit, None)
    }

    fn rates_again(&self) -> bool {
        true
    }

    /// B.1.e: every event of a month is rated against the list in force at its start, apart
    /// from the others; an event none of whose players moved or had a game changed rates as
    /// it did.
    fn rate_again(
        &self,
        unit: &Unit<'_, Self>,
        previous: &crate::rules::Previous<'_, Self>,
    ) -> Option<UnitOutcome<TsfState, (), TsfDetail>> {
        Some(rate::rate(unit, Some(previous)))
    }
}
