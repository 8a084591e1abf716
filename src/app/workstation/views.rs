//! What the workstation's screens show, read from the desk: a player's ratings, an event's
//! standings with each entrant's rating going in, titles, players within reach of a title, and
//! how a result reads on screen.

use crate::app::Federation;
use crate::book::PlayerStatus;
use crate::model::GameResult;
use crate::model::{PlayerIdx, PlayerInfo, Rating};
use crate::rules::{Award, ListId, Reach};

use super::state::App;

/// A birth year, or empty.
pub fn birth_year(info: &PlayerInfo) -> String {
    use chrono::Datelike;
    info.born.map(|b| b.year().to_string()).unwrap_or_default()
}

/// A player's club, or empty.
pub fn club(info: &PlayerInfo) -> String {
    info.club.clone().unwrap_or_default()
}

/// A player's name as the federation writes it, or `#index` for one the book does not hold.
pub fn player_name<R: crate::rules::Rulebook>(
    rulebook: &R,
    book: &crate::book::Book<R>,
    player: PlayerIdx,
) -> String {
    book.players.get(player).map_or_else(
        || format!("#{player}"),
        |i| rulebook.name_order().write(&i.name).into_owned(),
    )
}

/// A board's players: `Virtanen, Aino - Korhonen, Eero`, or `Virtanen, Aino (bye)`.
pub fn board_players<R: crate::rules::Rulebook>(
    rulebook: &R,
    book: &crate::book::Book<R>,
    game: &crate::model::Game,
) -> String {
    let name = |p| player_name(rulebook, book, p);
    match game.black() {
        Some(black) => format!("{} - {}", name(game.white()), name(black)),
        None => format!("{} (bye)", name(game.white())),
    }
}

impl<R: Federation> App<R> {
    /// A player's name as the federation writes it (Iceland: first name first).
    pub fn name(&self, player: PlayerIdx) -> std::borrow::Cow<'_, str> {
        let info = &self.desk.book().players[player];
        self.desk.rulebook().name_order().write(&info.name)
    }

    /// The current rating and state of a player on each list.
    pub fn ratings(
        &self,
        player: PlayerIdx,
    ) -> Vec<(ListId, Option<std::borrow::Cow<'_, R::State>>)> {
        let (rulebook, book) = (self.desk.rulebook(), self.desk.book());
        (0..rulebook.lists().len())
            .map(|l| (l, self.desk.ledger().state(rulebook, book, player, l)))
            .collect()
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

    /// A player's row in the Players tab's list, cell by cell: name, birth year, club, id,
    /// federation, a rating per list and the titles held.
    pub fn list_row(&self, player: PlayerIdx) -> Vec<String> {
        let (book, rulebook) = (self.desk.book(), self.desk.rulebook());
        let info = &book.players[player];
        let mut cells = vec![
            self.name(player).into_owned(),
            birth_year(info),
            club(info),
            info.id.clone(),
            info.federation
                .clone()
                .unwrap_or_else(|| rulebook.home_federation().into()),
        ];
        cells.extend(
            self.ratings(player)
                .into_iter()
                .map(|(_, s)| crate::figures::rating(self.rating_of(s.as_deref()))),
        );
        let titles: Vec<&str> = self
            .desk
            .ledger()
            .awards(book, player)
            .iter()
            .map(|a| rulebook.award_code(&a.award))
            .collect();
        cells.push(titles.join(" "));
        cells
    }
}

impl<R: Federation> App<R> {
    /// Players close to their next title: (player, how close).
    pub fn reach_rows(&self) -> Vec<(PlayerIdx, Reach<R::Award>)> {
        let book = self.desk.book();
        let mut rows: Vec<(PlayerIdx, Reach<R::Award>)> = (0..book.players.len())
            .filter(|&p| self.desk.status()[p] == PlayerStatus::Active)
            .filter_map(|p| {
                let owned = self.ratings(p);
                let states: Vec<Option<&R::State>> =
                    owned.iter().map(|(_, s)| s.as_deref()).collect();
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

pub use crate::app::queries::standings;

/// A result as the round pane shows it: `1-0`, `½-½`, `+-`; on a bye, the points it gives
/// (`1`, `½`, `0`), so a half-point bye reads `½`.
pub fn result_label(result: GameResult, bye: bool) -> String {
    let side = |h: u8| match h {
        2 => "1",
        1 => "½",
        _ => "0",
    };
    if bye {
        return side(result.white_halves).to_string();
    }
    if result.played {
        return format!(
            "{}-{}",
            side(result.white_halves),
            side(result.black_halves)
        );
    }
    let forfeit = |h: u8| match h {
        0 => "-",
        1 => "½",
        _ => "+",
    };
    format!(
        "{}{}",
        forfeit(result.white_halves),
        forfeit(result.black_halves)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_read_as_the_officer_keys_them_and_half_point_byes_as_a_half() {
        assert_eq!(result_label(GameResult::WHITE_WINS, false), "1-0");
        assert_eq!(result_label(GameResult::DRAW, false), "½-½");
        assert_eq!(result_label(GameResult::played(1, 0), false), "½-0");
        assert_eq!(result_label(GameResult::unplayed(2, 0), false), "+-");
        assert_eq!(result_label(GameResult::unplayed(0, 0), false), "--");
        assert_eq!(result_label(GameResult::unplayed(1, 0), true), "½");
        assert_eq!(result_label(GameResult::unplayed(2, 0), true), "1");
        assert_eq!(result_label(GameResult::unplayed(0, 0), true), "0");
    }
}
