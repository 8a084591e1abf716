//! A player's history as CSV: one line per rated game, on every list, in ledger order, with
//! the event's rating figures beside each game.

use super::format::decimal_points;
use crate::book::Book;
use crate::ledger::Ledger;
use crate::model::PlayerIdx;
use crate::rules::Rulebook;

pub const COLUMNS: [&str; 16] = [
    "list",
    "event",
    "event_name",
    "end",
    "round",
    "date",
    "opponent_id",
    "opponent",
    "opponent_rating",
    "score",
    "expected_percent",
    "rating_after",
    "event_old",
    "event_new",
    "event_games",
    "event_score",
];

/// The player's rated games on every list, oldest event first.
pub fn write_csv<R: Rulebook>(
    rulebook: &R,
    book: &Book<R>,
    ledger: &Ledger<R>,
    player: PlayerIdx,
) -> String {
    let mut rows: Vec<(usize, &crate::rules::PlayerRating<R::Detail>)> =
        (0..rulebook.lists().len())
            .flat_map(|list| {
                ledger
                    .history(player, list)
                    .into_iter()
                    .map(move |r| (list, r))
            })
            .collect();
    rows.sort_by(|(_, a), (_, b)| {
        let (x, y) = (&book.events[a.event], &book.events[b.event]);
        (x.end, x.start, &x.id).cmp(&(y.end, y.start, &y.id))
    });
    let mut out = csv::Writer::from_writer(Vec::new());
    let _ = out.write_record(COLUMNS);
    for (list, r) in rows {
        let ev = &book.events[r.event];
        for line in r.lines.iter() {
            let opponent = &book.players[line.opponent()];
            let date = ev
                .games
                .iter()
                .find(|g| {
                    g.round == line.round && (g.white() == player || g.black() == Some(player))
                })
                .and_then(|g| g.date);
            let _ = out.write_record([
                rulebook.lists()[list],
                &ev.id,
                &ev.name,
                &ev.end.to_string(),
                &line.round.to_string(),
                &date.map(|d| d.to_string()).unwrap_or_default(),
                &opponent.id,
                &opponent.name,
                &line.opponent_rating.to_string(),
                &decimal_points(u32::from(line.halves)),
                &line.expected.map(|e| e.to_string()).unwrap_or_default(),
                &line.rating_after.to_string(),
                &r.old.map(|o| o.to_string()).unwrap_or_default(),
                &r.new.to_string(),
                &r.games.to_string(),
                &decimal_points(r.score),
            ]);
        }
    }
    String::from_utf8(out.into_inner().unwrap_or_default()).unwrap_or_default()
}
