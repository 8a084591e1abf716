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

/// The numbers of [`TsfDetail`] laid flat: the method and the event's three averages, then the
/// player's figures, rated or unrated, in fields of their own (a field of the other kind 0).
impl crate::rules::FlatFigures for TsfDetail {
    const FIELDS: Option<usize> = Some(FLAT_FIELDS);

    fn flatten(&self, out: &mut Vec<i64>) {
        use crate::rules::flatten_option;
        let start = out.len();
        out.push(match self.method {
            Method::Swiss => 0,
            Method::Berger => 1,
        });
        for average in [self.average, self.preliminary, self.tournament_average] {
            flatten_option(average.map(i64::from), out);
        }
        let (rated, unrated) = match &self.figures {
            Figures::Rated(f, source) => (Some((f, *source)), None),
            Figures::Unrated(f) => (None, Some(f)),
        };
        out.push(i64::from(rated.is_some()));
        let f = rated.map(|(f, _)| f).cloned().unwrap_or_default();
        out.push(match rated.map_or(Source::Ukd, |(_, s)| s) {
            Source::Ukd => 0,
            Source::Fide => 1,
            Source::Standard => 2,
        });
        out.extend([
            f.k,
            i64::from(f.games),
            i64::from(f.score),
            i64::from(f.rated_games),
            i64::from(f.rated_score),
        ]);
        flatten_option(f.opponents.map(i64::from), out);
        flatten_option(f.expected, out);
        out.extend([i64::from(f.unrated_games), f.bonus, f.change]);
        let u = unrated.cloned().unwrap_or_default();
        out.extend([i64::from(u.games), i64::from(u.score)]);
        flatten_option(u.opponents.map(i64::from), out);
        out.extend([i64::from(u.dp), i64::from(u.performance)]);
        debug_assert_eq!(out.len() - start, FLAT_FIELDS);
    }

    fn unflatten(n: &[i64]) -> Option<Self> {
        use crate::rules::unflatten_option;
        let n: &[i64; FLAT_FIELDS] = n.try_into().ok()?;
        let whole = |v: i64| u32::try_from(v).ok();
        let rating = |v: i64| Rating::try_from(v).ok();
        let method = match n[0] {
            0 => Method::Swiss,
            1 => Method::Berger,
            _ => return None,
        };
        let figures = match n[7] {
            1 => {
                let source = match n[8] {
                    0 => Source::Ukd,
                    1 => Source::Fide,
                    2 => Source::Standard,
                    _ => return None,
                };
                let f = RatedFigures {
                    k: n[9],
                    games: whole(n[10])?,
                    score: whole(n[11])?,
                    rated_games: whole(n[12])?,
                    rated_score: whole(n[13])?,
                    opponents: unflatten_option(n[14], n[15])?,
                    expected: unflatten_option(n[16], n[17])?,
                    unrated_games: whole(n[18])?,
                    bonus: n[19],
                    change: n[20],
                };
                // The other kind's fields are 0.
                if n[21..].iter().any(|&v| v != 0) {
                    return None;
                }
                Figures::Rated(f, source)
            }
            0 => {
                if n[8..21].iter().any(|&v| v != 0) {
                    return None;
                }
                Figures::Unrated(UnratedFigures {
                    games: whole(n[21])?,
                    score: whole(n[22])?,
                    opponents: unflatten_option(n[23], n[24])?,
                    dp: i32::try_from(n[25]).ok()?,
                    performance: rating(n[26])?,
                })
            }
            _ => return None,
        };
        Some(TsfDetail {
            method,
            average: unflatten_option(n[1], n[2])?,
            preliminary: unflatten_option(n[3], n[4])?,
            tournament_average: unflatten_option(n[5], n[6])?,
            figures,
        })
    }
}

/// The numbers [`TsfDetail`] is laid flat in.
const FLAT_FIELDS: usize = 27;

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

#[cfg(test)]
mod flat_tests {
    use super::*;
    use crate::rules::FlatFigures;

    fn flat(detail: &TsfDetail) -> Vec<i64> {
        let mut out = Vec::new();
        detail.flatten(&mut out);
        out
    }

    fn rated(source: Source) -> RatedFigures {
        RatedFigures {
            k: 40,
            games: 9,
            score: 13,
            rated_games: 7,
            rated_score: 9,
            opponents: Some(1_735),
            expected: Some(412),
            unrated_games: 2,
            bonus: -80,
            change: -1_234,
        }
        .with_source_games(source)
    }

    impl RatedFigures {
        /// The same figures, with a count that tells the sources apart in a failed assert.
        fn with_source_games(mut self, source: Source) -> Self {
            self.unrated_games += source as u32;
            self
        }
    }

    /// Every kind of figures Turkey publishes — each method, each source of a rating, an
    /// unrated player with and without opponents, averages there or not, the extremes of the
    /// 64-bit figures — reads back from its numbers as it was, in as many numbers as it says.
    #[test]
    fn every_kind_of_figures_reads_back_from_its_numbers() {
        let mut details = Vec::new();
        for method in [Method::Swiss, Method::Berger] {
            for averages in [(None, None, None), (Some(1_800), Some(1_500), Some(-3))] {
                let with = |figures| TsfDetail {
                    method,
                    average: averages.0,
                    preliminary: averages.1,
                    tournament_average: averages.2,
                    figures,
                };
                for source in [Source::Ukd, Source::Fide, Source::Standard] {
                    details.push(with(Figures::Rated(rated(source), source)));
                }
                details.push(with(Figures::Rated(
                    RatedFigures {
                        k: i64::MIN,
                        bonus: i64::MAX,
                        change: i64::MIN,
                        expected: Some(i64::MAX),
                        opponents: None,
                        games: u32::MAX,
                        ..RatedFigures::default()
                    },
                    Source::Ukd,
                )));
                details.push(with(Figures::Rated(RatedFigures::default(), Source::Ukd)));
                for opponents in [None, Some(1_412)] {
                    details.push(with(Figures::Unrated(UnratedFigures {
                        games: 5,
                        score: 7,
                        opponents,
                        dp: -125,
                        performance: i32::MIN,
                    })));
                }
                details.push(with(Figures::default()));
            }
        }
        for detail in &details {
            let numbers = flat(detail);
            assert_eq!(numbers.len(), FLAT_FIELDS, "{detail:?}");
            assert_eq!(
                TsfDetail::unflatten(&numbers).as_ref(),
                Some(detail),
                "{numbers:?}"
            );
        }
    }

    /// Numbers no figures give are refused, field by field: too few or too many, a method, a
    /// kind or a source past the last, a count below zero or past 32 bits, an absent figure
    /// with a value, a flag neither 0 nor 1, and a field of the other kind of figures set.
    #[test]
    fn numbers_no_figures_give_are_refused() {
        let rated = flat(&TsfDetail {
            figures: Figures::Rated(rated(Source::Ukd), Source::Ukd),
            ..TsfDetail::default()
        });
        let unrated = flat(&TsfDetail::default());
        assert!(TsfDetail::unflatten(&rated[..FLAT_FIELDS - 1]).is_none());
        assert!(TsfDetail::unflatten(&[rated.clone(), vec![0]].concat()).is_none());
        let changed = |numbers: &[i64], at: usize, value: i64| {
            let mut numbers = numbers.to_vec();
            numbers[at] = value;
            TsfDetail::unflatten(&numbers)
        };
        for (numbers, at, value) in [
            (&rated, 0, 2),             // a third method
            (&rated, 7, 2),             // a third kind
            (&rated, 8, 3),             // a fourth source
            (&rated, 10, -1),           // games below zero
            (&rated, 11, 1 << 32),      // a score past 32 bits
            (&rated, 1, 2),             // an average's flag
            (&rated, 2, 1_500),         // an absent average with a value
            (&rated, 16, 0),            // We absent, its value there
            (&rated, 21, 3),            // an unrated player's games in a rated row
            (&unrated, 9, 40),          // a rated player's k in an unrated row
            (&unrated, 8, 1),           // a source in an unrated row
            (&unrated, 25, 1 << 40),    // dp past 32 bits
            (&unrated, 26, -(1 << 40)), // a performance past a rating's range
        ] {
            assert!(
                changed(numbers, at, value).is_none(),
                "field {at} = {value} read"
            );
        }
        // The same fields in range read.
        assert!(changed(&rated, 10, 0).is_some());
        assert!(changed(&unrated, 25, -(1 << 20)).is_some());
    }
}
