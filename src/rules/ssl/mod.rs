//! The Finnish rulebook (Suomen Shakkiliitto, Selosäännöstö 26.4.2023): which games are rated
//! on which list (section 2), selo (3, 7.2, 7.3), pelo (4, 7.4, 7.5), selection numbers (5)
//! and titles (6).
//!
//! Ratings are computed event by event (2.11): every event is its own rating unit.

mod encounters;
pub mod era;
pub mod foreign;
mod pelo;
pub mod selection;
mod selo;
pub mod titles;

use chrono::NaiveDate;

use super::{EventPart, Halves, ListId, Rulebook, Unit, UnitKey, UnitOutcome};
use crate::model::{Event, Rating};

pub use era::Rule;
pub use titles::Title;

/// The federation code of Finland: a player without a recorded federation is Finnish.
pub const FINLAND: &str = "FIN";

/// The selo list (standard play).
pub const SELO: ListId = 0;
/// The pelo list (quick play).
pub const PELO: ListId = 1;

/// Seconds for 60 moves of a game without a recorded time control: a standard game.
const STANDARD_SECONDS: u64 = 90 * 60;

/// The Finnish rulebook.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ssl;

/// What a new player's 7.3 needs of his earlier games (3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct History {
    /// Σ Ri over all earlier games on the list.
    pub opponents_sum: i64,
    /// Points of those games, in halves.
    pub score: Halves,
}

/// A player's state on one Finnish list.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct SslState {
    pub rating: Option<Rating>,
    /// Rated games on this list so far.
    pub games: u32,
    /// Of those, games with normal thinking time (≥ 90 minutes), for titles (6.2).
    pub normal_games: u32,
    /// Running aggregates while the player is new on selo (3.3); `None` once established.
    pub history: Option<History>,
    /// Rule 3.7 made his Elo his established selo.
    pub elo_corrected: bool,
}

impl SslState {
    /// Rule 3.1: established on selo with at least 11 earlier games (or by a 3.7 correction),
    /// as the current rule reads it.
    pub fn selo_established(&self) -> bool {
        self.selo_established_under(Rule::Current)
    }

    /// Rule 3.1 under the rule an event is rated by: established from 11 earlier selo games
    /// (2023) or 10 (before 2011), or by a 3.7 correction.
    pub fn selo_established_under(&self, rule: Rule) -> bool {
        self.rating.is_some() && (self.games >= rule.established_from() || self.elo_corrected)
    }

    /// Rule 4.1: established on pelo with at least one earlier pelo game.
    pub fn pelo_established(&self) -> bool {
        self.rating.is_some() && self.games >= 1
    }

    /// Rule 3.3: the aggregates of a new player's earlier games; unknown individual results
    /// count as draws against opponents rated Ro.
    pub fn new_player_history(&self) -> History {
        self.history.unwrap_or_else(|| History {
            opponents_sum: i64::from(self.rating.unwrap_or(0)) * i64::from(self.games),
            score: self.games,
        })
    }
}

/// Rule 2.8: seconds for the first 60 moves of the event's games.
pub fn seconds_for_60(event: &Event) -> u64 {
    event
        .time_control
        .as_ref()
        .map_or(STANDARD_SECONDS, |tc| tc.seconds_for_60_moves())
}

/// Rule 2.8 with 2.5: more than 10 minutes for 60 moves → selo (before 2011: at least 15);
/// more than 3 → pelo, but never for an event abroad; 3 minutes or less → not rated.
pub fn list_for(rule: Rule, seconds_for_60: u64, abroad: bool) -> Option<ListId> {
    if rule.is_selo_time(seconds_for_60) {
        Some(SELO)
    } else if seconds_for_60 > 3 * 60 && !abroad {
        Some(PELO)
    } else {
        None
    }
}

/// Rule 2.10: a play-off counts on the list its own time control gives, except that a
/// quick-play play-off of a selo event is not rated at all. `decided` is the list of the event
/// the play-off decides (`None`: not a play-off, or that event is not rated).
pub fn playoff_counts(list: ListId, decided: Option<ListId>) -> bool {
    !(list == PELO && decided == Some(SELO))
}

/// Rule 7.7: Kr = min(45, max(20, 5 ⌈(2450 − Ro) / 100⌉)).
pub fn kr(ro: Rating) -> i64 {
    let ceil = (2450 - i64::from(ro)).div_euclid(100)
        + i64::from((2450 - i64::from(ro)).rem_euclid(100) != 0);
    (5 * ceil).clamp(20, 45)
}

/// Rule 7.8: the game is played with normal thinking time (category "normaali", Kt = 1),
/// which 5.5 and 6.2 count.
pub fn is_normal_time(seconds_for_60: u64) -> bool {
    seconds_for_60 / 60 >= 90
}

/// Rule 3.6: the rating a new opponent without one counts with — 1325 in events for players
/// turning at most 10 in the event's year, 1425 for at most 14, 1525 otherwise.
pub fn default_rating(age_limit: Option<u32>) -> Rating {
    match age_limit {
        Some(0..=10) => 1325,
        Some(11..=14) => 1425,
        _ => 1525,
    }
}

impl Rulebook for Ssl {
    type State = SslState;
    type Award = Title;
    type Detail = ();

    fn code(&self) -> &'static str {
        "ssl"
    }

    fn home_federation(&self) -> &'static str {
        FINLAND
    }

    /// SSL 7.7 Kr, 7.8 Kt, 4.3 Rt.
    fn factor_names(&self) -> crate::rules::FactorNames {
        crate::rules::FactorNames {
            k: "Kr",
            time: "Kt",
            temporary: "Rt",
        }
    }

    /// The selo list writes `Sukunimi, Etunimi`.
    /// The rule before 2011 or the 2023 rulebook, by the event's start (see [`era`]).
    fn rule_of(&self, event: &Event) -> Option<(&'static str, bool)> {
        Some(match Rule::of(event) {
            Rule::Before2011 => ("rule before 2011", false),
            Rule::Current => ("2023 rules", true),
        })
    }

    fn name_order(&self) -> crate::model::NameOrder {
        crate::model::NameOrder::SurnameFirst
    }

    fn lists(&self) -> &'static [&'static str] {
        &["selo", "pelo"]
    }

    /// Rules 2.8, 2.5 and 2.10: the list of the event's own time control; a play-off
    /// (`decided`: the event whose winner or placing it decides) is rated on the list of its
    /// own time control too ("lasketaan peliajan mukaiselle listalle"), except that a
    /// quick-play play-off of a selo event — one whose own time control gives selo — is not
    /// rated ("Selokilpailujen pikashakkiuusintoja ei kuitenkaan lasketa"). A play-off of a
    /// pelo event, or of an event not rated at all, is rated on pelo. A play-off whose decided
    /// event is unknown is rated by its own time control.
    fn list_of(&self, event: &Event, decided: Option<&Event>) -> Option<ListId> {
        let decided = decided.and_then(|d| list_for(Rule::of(d), seconds_for_60(d), d.abroad));
        list_for(Rule::of(event), seconds_for_60(event), event.abroad)
            .filter(|&list| playoff_counts(list, decided))
    }

    /// Rule 2.11: every event is its own rating unit, rated in order of end date, start date
    /// and id.
    fn units_of(
        &self,
        event_idx: usize,
        event: &Event,
        _list: ListId,
    ) -> Vec<(UnitKey, EventPart)> {
        let key = UnitKey {
            date: event.end,
            second: event.start,
            tag: event.id.as_str().into(),
        };
        vec![(
            key,
            EventPart {
                event: event_idx,
                games: (0..event.games.len()).collect(),
            },
        )]
    }

    /// Rules 6.3–6.5: the next title above the highest held, when the selo is within 50
    /// points of its threshold, or past it with normal-time games still short. Section 6 sets
    /// no condition of federation: a player of any federation with a selo is listed.
    fn within_reach(
        &self,
        _info: &crate::model::PlayerInfo,
        states: &[Option<&SslState>],
        held: &[crate::rules::Award<Title>],
    ) -> Option<crate::rules::Reach<Title>> {
        let selo = states.get(SELO).copied().flatten()?;
        let rating = selo.rating?;
        let highest = held.iter().map(|a| a.award).max();
        let next = [Title::I, Title::Me, Title::M]
            .into_iter()
            .find(|t| highest.is_none_or(|h| *t > h))?;
        let (needed_rating, needed_games) = next.requirement();
        let close = rating + 50 >= needed_rating;
        (close && !(rating >= needed_rating && selo.normal_games >= needed_games)).then_some(
            crate::rules::Reach {
                award: next,
                rating,
                needed_rating,
                games: selo.normal_games,
                needed_games,
            },
        )
    }

    /// Section 5.
    fn selection_numbers(
        &self,
        as_of: NaiveDate,
        info: &crate::model::PlayerInfo,
        initial: &[Option<SslState>],
        history: &dyn Fn(ListId) -> Vec<crate::rules::PlayerRating>,
        events: &[Event],
    ) -> Option<crate::rules::SelectionNumbers> {
        let rows = history(SELO);
        let refs: Vec<&crate::rules::PlayerRating> = rows.iter().collect();
        let s = selection::selection(
            as_of,
            info,
            initial.get(SELO).and_then(Option::as_ref),
            &refs,
            events,
        );
        Some(crate::rules::SelectionNumbers {
            factors: vec![
                ("huippuselo", s.huippuselo),
                ("huippuelo", s.huippuelo),
                ("huippusuoritusluku", s.huippusuoritusluku),
            ],
            number_doubled: s.valintaluku_doubled,
            womens: s.womens_valintaluku,
            best_run: s.best_run,
        })
    }

    /// Rules 3.1 and 4.1: the rating, the games behind it, and established or new.
    fn state_summary(&self, list: ListId, state: &SslState) -> String {
        let Some(rating) = state.rating else {
            return "unrated".into();
        };
        let established = if list == SELO {
            state.selo_established()
        } else {
            state.pelo_established()
        };
        format!(
            "{rating} ({} games, {})",
            state.games,
            if established { "established" } else { "new" }
        )
    }

    /// Rule 6.3: the rating committee confirms a master's title.
    fn needs_confirmation(&self, award: &Title) -> bool {
        award.needs_confirmation()
    }

    fn rating_of(&self, state: &SslState) -> Option<Rating> {
        state.rating
    }

    fn rate(&self, unit: &Unit<'_, Self>) -> UnitOutcome<SslState, Title> {
        match unit.list {
            SELO => selo::rate(unit),
            _ => pelo::rate(unit),
        }
    }
}

/// The date a title reached in an event carries: the event's end (5.8).
fn award_date(event: &Event) -> NaiveDate {
    event.end
}

/// An event of standard games (no time control: ≥ 90 minutes) over one weekend, for the
/// tests of this rulebook's modules.
#[cfg(test)]
pub(super) fn standard_event(games: Vec<crate::model::Game>) -> Event {
    Event {
        pairing: "swiss".into(),
        games,
        ..Event::new(
            "e",
            NaiveDate::from_ymd_opt(2025, 6, 1).expect("date"),
            NaiveDate::from_ymd_opt(2025, 6, 3).expect("date"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_7_7_kr_band_edges() {
        for (ro, expected) in [
            (3000, 20),
            (2050, 20),
            (2049, 25),
            (1950, 25),
            (1949, 30),
            (1850, 30),
            (1849, 35),
            (1750, 35),
            (1749, 40),
            (1650, 40),
            (1649, 45),
            (1000, 45),
            (0, 45),
        ] {
            assert_eq!(kr(ro), expected, "Kr at Ro {ro}");
        }
    }

    #[test]
    fn rule_7_8_kt_by_whole_minutes_and_ro() {
        let m = |min: u64| min * 60;
        let kt = |seconds, ro| Rule::Current.kt_hundredths(seconds, ro);
        assert_eq!(kt(m(90), 1500), 100);
        assert_eq!(kt(m(89), 1500), 50);
        assert_eq!(kt(m(89) + 59, 1500), 50, "89 min 59 s is 89 whole minutes");
        assert_eq!(kt(m(60), 1500), 50);
        assert_eq!(kt(m(59) + 30, 1500), 30, "59.5 minutes is 59 whole minutes");
        assert_eq!(kt(m(59), 2299), 30);
        assert_eq!(kt(m(59), 2300), 10);
        assert_eq!(kt(m(11), 2300), 10);
        assert_eq!(kt(m(60), 2300), 50);
        assert_eq!(kt(m(90), 2700), 100);
    }

    #[test]
    fn rule_2_8_list_by_exact_minutes() {
        let m = |min: u64| min * 60;
        assert_eq!(list_for(Rule::Current, m(3), false), None);
        assert_eq!(
            list_for(Rule::Current, m(3) + 1, false),
            Some(PELO),
            "3 min 1 s is more than 3 minutes"
        );
        assert_eq!(list_for(Rule::Current, m(4), false), Some(PELO));
        assert_eq!(list_for(Rule::Current, m(10), false), Some(PELO));
        assert_eq!(
            list_for(Rule::Current, m(10) + 30, false),
            Some(SELO),
            "10.5 minutes is more than 10"
        );
        assert_eq!(list_for(Rule::Current, m(11), false), Some(SELO));
        assert_eq!(list_for(Rule::Current, m(90), false), Some(SELO));
        // Before 2011: selo from 15 minutes, pelo below it (from more than 3).
        let old = Rule::Before2011;
        assert_eq!(list_for(old, m(3), false), None);
        assert_eq!(list_for(old, m(3) + 1, false), Some(PELO));
        assert_eq!(list_for(old, m(14) + 59, false), Some(PELO));
        assert_eq!(list_for(old, m(15), false), Some(SELO));
    }

    #[test]
    fn rule_2_5_quick_play_abroad_is_not_rated() {
        assert_eq!(list_for(Rule::Current, 5 * 60, true), None);
        assert_eq!(list_for(Rule::Current, 15 * 60, true), Some(SELO));
        assert_eq!(list_for(Rule::Before2011, 14 * 60, true), None);
    }

    #[test]
    fn rule_2_10_quick_play_playoffs_are_not_rated() {
        assert!(
            !playoff_counts(PELO, Some(SELO)),
            "blitz play-off of a selo event"
        );
        assert!(playoff_counts(SELO, Some(SELO)), "standard play-off");
        assert!(
            playoff_counts(PELO, Some(PELO)),
            "play-off of a rapid event"
        );
        assert!(playoff_counts(PELO, None), "not a play-off");
    }

    /// 2.10 on events: the play-off's own time control gives its list; only a quick-play
    /// play-off of a selo event goes unrated.
    #[test]
    fn rule_2_10_a_playoff_is_rated_on_the_list_of_its_own_time_control() {
        let event = |id: &str, minutes: u32, abroad: bool| Event {
            time_control: Some(crate::model::TimeControl {
                base_seconds: minutes * 60,
                increment_seconds: 0,
                added: Vec::new(),
            }),
            abroad,
            pairing: "swiss".into(),
            ..Event::new(
                id,
                NaiveDate::from_ymd_opt(2025, 5, 10).expect("date"),
                NaiveDate::from_ymd_opt(2025, 5, 10).expect("date"),
            )
        };
        let playoff = |minutes, of: &str| Event {
            playoff_of: Some(of.into()),
            ..event("po", minutes, false)
        };
        let (selo, rapid, blitz) = (
            event("s", 90, false),
            event("r", 10, false),
            event("b", 3, false),
        );
        assert_eq!(
            Ssl.list_of(&playoff(5, "s"), Some(&selo)),
            None,
            "blitz play-off of a selo event"
        );
        assert_eq!(
            Ssl.list_of(&playoff(10, "s"), Some(&selo)),
            None,
            "rapid play-off of a selo event"
        );
        assert_eq!(
            Ssl.list_of(&playoff(11, "s"), Some(&selo)),
            Some(SELO),
            "11 minutes: selo"
        );
        assert_eq!(Ssl.list_of(&playoff(90, "s"), Some(&selo)), Some(SELO));
        assert_eq!(
            Ssl.list_of(&playoff(5, "r"), Some(&rapid)),
            Some(PELO),
            "play-off of a rapid event"
        );
        assert_eq!(
            Ssl.list_of(&playoff(25, "r"), Some(&rapid)),
            Some(SELO),
            "its own time control"
        );
        assert_eq!(
            Ssl.list_of(&playoff(5, "b"), Some(&blitz)),
            Some(PELO),
            "of an unrated event"
        );
        assert_eq!(
            Ssl.list_of(&playoff(3, "r"), Some(&rapid)),
            None,
            "3 minutes: not rated (2.8)"
        );
        let abroad = event("a", 90, true);
        assert_eq!(
            Ssl.list_of(&playoff(5, "a"), Some(&abroad)),
            None,
            "of a selo event abroad"
        );
        assert_eq!(
            Ssl.list_of(&playoff(5, "x"), None),
            Some(PELO),
            "decided event unknown"
        );
        assert_eq!(
            Ssl.list_of(&event("po", 5, true), None),
            None,
            "quick play abroad (2.5)"
        );
        let events = [
            selo.clone(),
            playoff(5, "s"),
            playoff(5, "r"),
            rapid.clone(),
        ];
        assert_eq!(Ssl.list_in(&events[1], &events), None);
        assert_eq!(Ssl.list_in(&events[2], &events), Some(PELO));
    }

    #[test]
    fn rule_3_6_default_ratings_by_age_limit() {
        assert_eq!(default_rating(Some(10)), 1325);
        assert_eq!(default_rating(Some(8)), 1325);
        assert_eq!(default_rating(Some(11)), 1425);
        assert_eq!(default_rating(Some(14)), 1425);
        assert_eq!(default_rating(Some(15)), 1525);
        assert_eq!(default_rating(None), 1525);
    }

    /// Sections 6.3–6.5 for a player of another federation: his next title is within reach
    /// like a Finn's.
    #[test]
    fn rule_6_5_titles_within_reach_for_every_federation() {
        let swede = crate::model::PlayerInfo {
            federation: Some("SWE".into()),
            ..crate::model::PlayerInfo::default()
        };
        let selo = SslState {
            rating: Some(1870),
            games: 30,
            normal_games: 30,
            ..SslState::default()
        };
        let reach = Ssl.within_reach(&swede, &[Some(&selo), None], &[]);
        assert_eq!(
            reach.map(|r| (r.award, r.needed_rating)),
            Some((Title::I, 1900))
        );
    }

    #[test]
    fn rule_3_1_and_4_1_established_thresholds() {
        let s = |games| SslState {
            rating: Some(1700),
            games,
            ..SslState::default()
        };
        assert!(!s(10).selo_established());
        assert!(s(11).selo_established());
        assert!(!s(0).pelo_established());
        assert!(s(1).pelo_established());
        let corrected = SslState {
            elo_corrected: true,
            ..s(0)
        };
        assert!(corrected.selo_established());
    }

    #[test]
    fn rule_3_3_unknown_history_counts_as_draws_against_ro() {
        let s = SslState {
            rating: Some(1610),
            games: 6,
            ..SslState::default()
        };
        assert_eq!(
            s.new_player_history(),
            History {
                opponents_sum: 9660,
                score: 6
            }
        );
    }
}
