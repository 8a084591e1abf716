//! The confirmation of an edit: what it changes (`0-1 → 1-0`, a form's fields old → new), then
//! every rating it moves — the game's own players first, then the rest by the size of their
//! move — in a list that scrolls, with the count. Esc goes back to the form it came from, with
//! what was typed.

use crate::app::Federation;
use crate::model::PlayerIdx;

use super::forms::{FormKind, FormState};
use super::state::{App, Popup};
use crate::app::{Edit, Effect, RatingChange};

/// An edit shown before it is made.
pub struct Preview<R: Federation> {
    pub edit: Box<Edit<R>>,
    pub effect: Box<Effect<R::Award>>,
    /// What the edit changes, a line each.
    pub what: Vec<String>,
    /// The rating moves in the order shown: indices into `effect.ratings`.
    pub order: Vec<usize>,
    /// How many of the first moves are the edit's own players' (a game's two, the player
    /// withdrawn…).
    pub own: usize,
    /// The mover the cursor is on (the list scrolls to keep it in view).
    pub cursor: usize,
    /// The form the edit was keyed in, as it was left: Esc goes back to it.
    pub form: Option<FormState>,
}

impl<R: Federation> Preview<R> {
    /// The rating moves in the order shown.
    pub fn movers(&self) -> impl Iterator<Item = &RatingChange> {
        self.order.iter().map(|&i| &self.effect.ratings[i])
    }
}

impl<R: Federation> App<R> {
    /// Shows an edit and what it does, to be made on Enter; `form` is where Esc goes back to.
    pub(super) fn confirm(
        &mut self,
        edit: Edit<R>,
        effect: Effect<R::Award>,
        form: Option<FormState>,
    ) {
        let what = self.what_changes(&edit, form.as_ref());
        let first = self.edit_players(&edit);
        let order = movers_order(&effect.ratings, &first);
        let own = order
            .iter()
            .take_while(|&&i| first.contains(&effect.ratings[i].player))
            .count();
        self.popup = Some(Popup::Confirm(Box::new(Preview {
            edit: Box::new(edit),
            effect: Box::new(effect),
            what,
            order,
            own,
            cursor: 0,
            form,
        })));
    }

    /// The players an edit is about, shown first among the movers: a game's two players, the
    /// two records of a merge.
    fn edit_players(&self, edit: &Edit<R>) -> Vec<PlayerIdx> {
        let book = self.desk.book();
        match edit {
            Edit::SetResult {
                event,
                round,
                board,
                ..
            } => board_game(book, *event, *round, *board)
                .map(|g| std::iter::once(g.white()).chain(g.black()).collect())
                .unwrap_or_default(),
            Edit::SetGame { game, .. } => {
                std::iter::once(game.white()).chain(game.black()).collect()
            }
            Edit::MergePlayers { keep, remove } => vec![*keep, *remove],
            Edit::Withdraw { player, .. } => vec![*player],
            Edit::ConfirmAward { player, .. }
            | Edit::UpdatePlayer { player, .. }
            | Edit::SetReentry { player, .. } => vec![*player],
            Edit::KeepingAwards { edit, .. } => self.edit_players(edit),
            _ => Vec::new(),
        }
    }

    /// What an edit changes, in words: a board's result old → new, a form's fields old → new.
    fn what_changes(&self, edit: &Edit<R>, form: Option<&FormState>) -> Vec<String> {
        let (rulebook, book) = (self.desk.rulebook(), self.desk.book());
        let name = |p: PlayerIdx| super::views::player_name(rulebook, book, p);
        match edit {
            Edit::SetResult {
                event,
                round,
                board,
                result,
            } => {
                let Some(game) = board_game(book, *event, *round, *board) else {
                    return vec![edit.describe(book)];
                };
                let bye = game.black().is_none();
                let label = |r: Option<crate::model::GameResult>| {
                    r.map_or_else(
                        || "no result".to_string(),
                        |r| super::views::result_label(r, bye),
                    )
                };
                let players = super::views::board_players(rulebook, book, game);
                vec![
                    format!(
                        "{} round {round} board {board}",
                        book.events[*event].title()
                    ),
                    format!("  {players}"),
                    format!("  result {} → {}", label(game.result), label(*result)),
                ]
            }
            Edit::ConfirmAward {
                player,
                award,
                date,
            } => vec![format!(
                "{} ({}): {} confirmed on {date}",
                name(*player),
                book.players.get(*player).map_or("", |i| i.id.as_str()),
                self.desk.rulebook().award_code(award)
            )],
            Edit::MergePlayers { keep, remove } => {
                let games = book
                    .events
                    .iter()
                    .flat_map(|e| &e.games)
                    .filter(|g| g.white() == *remove || g.black() == Some(*remove))
                    .count();
                vec![format!(
                    "{} ({}): his {games} games move to {} ({}), his record is retired",
                    name(*remove),
                    book.players.get(*remove).map_or("", |i| i.id.as_str()),
                    name(*keep),
                    book.players.get(*keep).map_or("", |i| i.id.as_str()),
                )]
            }
            Edit::Withdraw { event, player } => {
                let Some(ev) = book.events.get(*event) else {
                    return vec![edit.describe(book)];
                };
                let number = ev
                    .participants
                    .iter()
                    .position(|p| p == player)
                    .map_or(0, |i| i + 1);
                let boards = ev
                    .games
                    .iter()
                    .filter(|g| g.white() == *player || g.black() == Some(*player))
                    .count();
                let mut lines = vec![format!(
                    "{} (no. {number}) leaves {}",
                    name(*player),
                    ev.title()
                )];
                lines.push(match boards {
                    0 => "  he has no board in it".to_string(),
                    1 => "  his board goes with him".to_string(),
                    n => format!("  his {n} boards go with him"),
                });
                let last = ev.participants.len();
                if number + 1 == last {
                    lines.push(format!("  start number {last} moves up one"));
                } else if number < last {
                    lines.push(format!("  start numbers {}–{last} move up one", number + 1));
                }
                lines
            }
            Edit::SetReceived {
                event,
                round,
                received,
            } => {
                let Some(ev) = book.events.get(*event) else {
                    return vec![edit.describe(book)];
                };
                let day = |d: Option<chrono::NaiveDate>| {
                    d.or(ev.received)
                        .map_or_else(|| "in time".to_string(), |d| d.to_string())
                };
                let mut lines = vec![match round {
                    Some(r) => format!("{} round {r}", ev.title()),
                    None => ev.title().to_string(),
                }];
                let mut was: Vec<Option<chrono::NaiveDate>> = ev
                    .games
                    .iter()
                    .filter(|g| g.result.is_some() && round.is_none_or(|r| g.round == r))
                    .map(|g| g.received)
                    .collect();
                let results = was.len();
                was.sort_unstable();
                was.dedup();
                let before = match was.as_slice() {
                    [one] => day(*one),
                    _ => "on different days".to_string(),
                };
                lines.push(format!(
                    "  {results} result(s) received {before} → {}",
                    day(*received)
                ));
                lines
            }
            Edit::SetReentry {
                player,
                date,
                entry,
            } => {
                let Some(info) = book.players.get(*player) else {
                    return vec![edit.describe(book)];
                };
                let was = info
                    .reentries
                    .iter()
                    .find(|r| r.date == *date)
                    .map(|r| format!("on {} {}", r.on.label(), r.rating));
                let who = format!("{} ({})", name(*player), info.id);
                match entry {
                    Some((rating, on)) => {
                        let mut lines = vec![
                            format!("{who} re-enters the list on {date}"),
                            format!("  on {} {rating}, games counted from 0", on.label()),
                        ];
                        lines.extend(was.map(|w| format!("  (that day's re-entry was {w})")));
                        lines
                    }
                    None => {
                        let mut lines = vec![format!("{who}: his re-entry of {date} taken back")];
                        lines.extend(was.map(|w| format!("  (it was {w})")));
                        lines
                    }
                }
            }
            Edit::KeepingAwards { edit, .. } => self.what_changes(edit, form),
            _ => match form.and_then(|f| self.stored_form(f).map(|stored| (f, stored))) {
                Some((typed, stored)) => {
                    let mut lines: Vec<String> = stored
                        .fields
                        .iter()
                        .zip(&typed.fields)
                        .filter(|((_, old), (_, new))| old.trim() != new.trim())
                        .map(|((label, old), (_, new))| {
                            format!("{label}: {} → {}", shown(old), shown(new))
                        })
                        .collect();
                    if lines.is_empty() {
                        lines.push("no field changed".into());
                    }
                    lines
                }
                None => vec![edit.describe(book)],
            },
        }
    }

    /// The form of what an edit form changes, as it is stored now (for its fields old → new).
    fn stored_form(&self, form: &FormState) -> Option<FormState> {
        let book = self.desk.book();
        let stored = match form.kind {
            FormKind::EditEvent(e) => {
                FormState::event(FormKind::EditEvent(e), Some(book.events.get(e)?))
            }
            FormKind::EditPlayer(p) => {
                FormState::player(FormKind::EditPlayer(p), book.players.get(p)?, None)
            }
            _ => return None,
        };
        let stored = self.for_rulebook(stored);
        (stored.fields.len() == form.fields.len()).then_some(stored)
    }
}

/// The game on a board of an event, if there is one.
fn board_game<R: Federation>(
    book: &crate::book::Book<R>,
    event: usize,
    round: u32,
    board: u32,
) -> Option<&crate::model::Game> {
    book.events
        .get(event)?
        .games
        .iter()
        .find(|g| (g.round, g.board) == (round, board))
}

/// A field's value in a line of changes: `(empty)` for none.
fn shown(value: &str) -> &str {
    match value.trim() {
        "" => "(empty)",
        v => v,
    }
}

/// The order movers are shown in: `first` (the edit's own players) in their order, then the
/// others by the size of their move, the largest first (a new rating, which has no move, after
/// them), then by list and player.
pub fn movers_order(ratings: &[RatingChange], first: &[PlayerIdx]) -> Vec<usize> {
    let size = |c: &RatingChange| match (c.before, c.after) {
        (Some(b), Some(a)) => Some((a - b).unsigned_abs()),
        _ => None,
    };
    let mut order: Vec<usize> = (0..ratings.len()).collect();
    order.sort_by_key(|&i| {
        let c = &ratings[i];
        let own = first.iter().position(|p| *p == c.player);
        (
            own.is_none(),
            own,
            std::cmp::Reverse(size(c)),
            c.list,
            c.player,
        )
    });
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(player: PlayerIdx, before: i32, after: i32) -> RatingChange {
        RatingChange {
            player,
            list: 0,
            before: Some(before),
            after: Some(after),
        }
    }

    #[test]
    fn the_games_players_come_first_then_the_largest_moves() {
        let ratings = vec![
            change(5, 1500, 1502),
            change(7, 1800, 1755),
            change(1, 1600, 1610),
            change(2, 1700, 1690),
            RatingChange {
                player: 9,
                list: 0,
                before: None,
                after: Some(1400),
            },
        ];
        let order = movers_order(&ratings, &[2, 1]);
        let players: Vec<PlayerIdx> = order.iter().map(|&i| ratings[i].player).collect();
        assert_eq!(players, vec![2, 1, 7, 5, 9]);
    }

    #[test]
    fn a_loss_and_a_gain_of_one_size_are_ordered_by_player() {
        let ratings = vec![change(4, 1500, 1510), change(3, 1500, 1490)];
        let order = movers_order(&ratings, &[]);
        assert_eq!(order, vec![1, 0]);
    }
}
