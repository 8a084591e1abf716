//! Finnish national titles (section 6): shakkimestari (M), mestariehdokas (ME) and I luokan
//! pelaaja (I), permanent once reached.

use crate::model::Rating;
use crate::rules::Award;

/// A national title, ordered from the lowest to the highest.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Title {
    /// I luokan pelaaja (6.5).
    I,
    /// Mestariehdokas (6.4).
    Me,
    /// Shakkimestari (6.3): confirmed by the rating committee.
    M,
}

impl Title {
    pub const ALL: [Title; 3] = [Title::M, Title::Me, Title::I];

    pub fn code(self) -> &'static str {
        match self {
            Title::I => "I",
            Title::Me => "ME",
            Title::M => "M",
        }
    }

    pub fn parse(code: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|t| t.code().eq_ignore_ascii_case(code.trim()))
    }

    /// Rules 6.3–6.5: the selo and the number of normal-time games the title needs.
    pub fn requirement(self) -> (Rating, u32) {
        match self {
            Title::M => (2200, 30),
            Title::Me => (2050, 24),
            Title::I => (1900, 24),
        }
    }

    /// Rule 6.3: the rating committee confirms a master's title; the others need no one.
    pub fn needs_confirmation(self) -> bool {
        self == Title::M
    }
}

/// Rule 6.2: the titles reached in one event — by a running rating after any game, rounded
/// (3.5), with enough games of normal thinking time played by then (7.8). `normal_before` is the
/// player's count of such games before the event and `normal_event` whether this event's games
/// count. Returns each title with the number (1-based) of the game that reached it.
///
/// Every title whose requirement is met is reached, each at the first game that meets it (a jump
/// from 1880 to 2060 reaches I and ME together); a title held before the event, or one below a
/// title held, is not reached again.
pub fn titles_reached(
    held: &[Award<Title>],
    normal_before: u32,
    normal_event: bool,
    after_game: &[Rating],
) -> Vec<(Title, usize)> {
    let held_highest = held.iter().map(|a| a.award).max();
    let mut reached: Vec<(Title, usize)> = Vec::new();
    for (k, &rating) in after_game.iter().enumerate() {
        let normal = normal_before + if normal_event { k as u32 + 1 } else { 0 };
        for title in [Title::I, Title::Me, Title::M] {
            let (min_rating, min_games) = title.requirement();
            let new =
                held_highest.is_none_or(|h| title > h) && !reached.iter().any(|(t, _)| *t == title);
            if new && rating >= min_rating && normal >= min_games {
                reached.push((title, k + 1));
            }
        }
    }
    reached
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holding(title: Title) -> Vec<Award<Title>> {
        vec![Award {
            player: 0,
            award: title,
            date: None,
            event: None,
        }]
    }

    #[test]
    fn rule_6_5_i_at_1900_with_24_games() {
        assert_eq!(titles_reached(&[], 23, true, &[1900]), vec![(Title::I, 1)]);
        assert_eq!(titles_reached(&[], 22, true, &[1900]), vec![]);
        assert_eq!(titles_reached(&[], 24, true, &[1899]), vec![]);
        assert_eq!(
            titles_reached(&[], 22, true, &[1910, 1895]),
            vec![],
            "24th game below 1900"
        );
    }

    #[test]
    fn rule_6_4_me_at_2050_with_24_games() {
        assert_eq!(
            titles_reached(&holding(Title::I), 40, true, &[2050]),
            vec![(Title::Me, 1)]
        );
        assert_eq!(
            titles_reached(&holding(Title::I), 40, true, &[2049]),
            vec![]
        );
        assert_eq!(
            titles_reached(&[], 30, true, &[2058]),
            vec![(Title::I, 1), (Title::Me, 1)],
            "a jump past both thresholds reaches both"
        );
        assert_eq!(
            titles_reached(&holding(Title::Me), 40, true, &[1950]),
            vec![],
            "ME covers I"
        );
    }

    #[test]
    fn rule_6_3_m_at_2200_with_30_games() {
        assert_eq!(
            titles_reached(&holding(Title::Me), 29, true, &[2200]),
            vec![(Title::M, 1)]
        );
        assert_eq!(
            titles_reached(&holding(Title::Me), 28, true, &[2200]),
            vec![]
        );
        assert_eq!(
            titles_reached(&holding(Title::Me), 40, true, &[2199]),
            vec![]
        );
        assert!(Title::M.needs_confirmation());
    }

    #[test]
    fn rule_6_2_only_normal_time_games_count() {
        assert_eq!(titles_reached(&[], 23, false, &[1950, 1960]), vec![]);
        assert_eq!(titles_reached(&[], 24, false, &[1950]), vec![(Title::I, 1)]);
    }

    /// 6.2 "arvonimikorotuksissa": a title is a promotion. A player holding I and M who meets
    /// ME's requirement (2053 with 61 normal games) reaches nothing; one holding only I
    /// reaches ME.
    #[test]
    fn rule_6_2_a_title_is_a_promotion() {
        let held = [holding(Title::I), holding(Title::M)].concat();
        assert_eq!(titles_reached(&held, 60, true, &[2053]), vec![]);
        assert_eq!(
            titles_reached(&holding(Title::I), 60, true, &[2053]),
            vec![(Title::Me, 1)]
        );
        assert_eq!(
            titles_reached(&holding(Title::Me), 60, true, &[2053, 2210]),
            vec![(Title::M, 2)],
            "neither I nor ME again"
        );
    }

    #[test]
    fn rule_6_1_titles_are_reached_in_order_within_one_event() {
        assert_eq!(
            titles_reached(&[], 23, true, &[1910, 1990, 2060]),
            vec![(Title::I, 1), (Title::Me, 3)]
        );
        assert_eq!(
            titles_reached(&holding(Title::M), 40, true, &[2300]),
            vec![]
        );
    }
}
