//! An event's rating report, as the officer sends it to the organiser and players: each rated
//! player's old and new rating, change, games, score, expected score, performance and the
//! factors of his calculation, in the order of the standings.

use super::format::{Page, expected, half_points, performance, rating, signed};
use crate::book::Book;
use crate::rules::{PlayerRating, Rulebook};

/// One rated player of the report: his place in the event's standings, his start number and
/// his figures.
pub struct ReportRow {
    pub rank: usize,
    pub start_number: usize,
    pub rating: PlayerRating,
}

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
    // The rule it is rated by, for a rulebook with more than one (SSL: before 2011, 2023).
    let list = match rulebook.rule_of(ev) {
        Some((rule, _)) => format!("{list} by the {rule}"),
        None => list,
    };
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

fn cells<R: Rulebook>(
    book: &Book<R>,
    rows: &[ReportRow],
    names: crate::rules::FactorNames,
) -> Vec<Vec<String>> {
    rows.iter()
        .map(|row| {
            let r = &row.rating;
            vec![
                row.rank.to_string(),
                row.start_number.to_string(),
                book.players[r.player].name.clone(),
                rating(r.old),
                r.new.to_string(),
                r.old.map(|o| signed(r.new - o)).unwrap_or_default(),
                r.games.to_string(),
                half_points(r.score),
                expected(r.expected),
                performance(r.performance()),
                r.factors.describe(names),
            ]
        })
        .collect()
}

/// The report as a page (text or HTML): `rows` are the event's rated players in the order of
/// its standings.
pub fn page<R: Rulebook>(rulebook: &R, book: &Book<R>, event: usize, rows: &[ReportRow]) -> Page {
    let (title, above) = heading(rulebook, book, event);
    Page {
        title,
        above,
        header: &HEADER,
        right: &[
            true, true, false, true, true, true, true, true, true, true, false,
        ],
        rows: cells(book, rows, rulebook.factor_names()),
        below: Vec::new(),
    }
}
