//! An event's rating report, as the officer sends it to the organiser and players: each rated
//! player's old and new rating, change, games, score, expected score, performance and the
//! factors of his calculation, in the order of the standings.

use super::format::{Page, expected, half_points, performance, rating, signed};
use crate::app::views::standings;
use crate::book::Book;
use crate::ledger::Ledger;
use crate::rules::Rulebook;

const HEADER: [&str; 11] = [
    "Rank", "No", "Name", "Old", "New", "±", "N", "W", "We", "Perf", "Factors",
];

/// The title and the lines above the table: event, dates, list, time control.
fn heading<R: Rulebook>(rulebook: &R, book: &Book<R>, event: usize) -> (String, Vec<String>) {
    let ev = &book.events[event];
    let name = ev.title();
    let list = rulebook
        .list_in(ev, &book.events)
        .and_then(|l| rulebook.lists().get(l))
        .map_or_else(|| "not rated".to_string(), |l| format!("rated on {l}"));
    let tc = ev.time_control.as_ref().map_or_else(
        || "standard time control".to_string(),
        |tc| {
            format!(
                "{}+{}",
                f64::from(tc.base_seconds) / 60.0,
                tc.increment_seconds
            )
        },
    );
    (
        format!("Rating report: {name}"),
        vec![format!(
            "{} ({}), {} to {}, {tc}, {list}{}",
            name,
            ev.id,
            ev.start,
            ev.end,
            if ev.abroad { ", abroad" } else { "" }
        )],
    )
}

fn cells<R: Rulebook>(book: &Book<R>, ledger: &Ledger<R>, event: usize) -> Vec<Vec<String>> {
    standings(book, ledger, event)
        .iter()
        .enumerate()
        .filter_map(|(rank, s)| s.rating.as_ref().map(|r| (rank + 1, s, r)))
        .map(|(rank, s, r)| {
            vec![
                rank.to_string(),
                s.start_number.to_string(),
                book.players[s.player].name.clone(),
                rating(r.old),
                r.new.to_string(),
                r.old.map(|o| signed(r.new - o)).unwrap_or_default(),
                r.games.to_string(),
                half_points(r.score),
                expected(r.expected),
                performance(r.performance()),
                r.factors.describe(),
            ]
        })
        .collect()
}

/// The report as a page (text or HTML).
pub fn page<R: Rulebook>(rulebook: &R, book: &Book<R>, ledger: &Ledger<R>, event: usize) -> Page {
    let (title, above) = heading(rulebook, book, event);
    Page {
        title,
        above,
        header: &HEADER,
        right: &[
            true, true, false, true, true, true, true, true, true, true, false,
        ],
        rows: cells(book, ledger, event),
    }
}
