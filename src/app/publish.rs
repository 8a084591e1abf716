//! The federation's files out, for every rulebook: the national list (CSV, text, HTML) on a
//! list date with the changes since the previous list, an event's rating report, a player's
//! history, an event as TRF16 or TRF26 (national-rating records of the home federation), and
//! the `rate` documents of what the database holds. The front ends only write what these
//! return.

use chrono::NaiveDate;
use serde_json::Value;

use super::queries::{self, QueryError};
use super::{Desk, Federation};
use crate::export::{self, list};
use crate::rules::ListId;

pub use crate::export::format::PageKind;

/// How a national list is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListFormat {
    /// Every list in the federation's CSV.
    Csv,
    /// One list as a printable page.
    Page(PageKind),
}

/// Which national list, on which date.
#[derive(Clone, Debug, Default)]
pub struct ListRequest {
    /// The list's name (`selo`, `standard`, `rapid` …; default: the rulebook's first).
    pub list: Option<String>,
    /// Any day: the list in force on it is written (default: today).
    pub date: Option<NaiveDate>,
    /// The previous list's date, for the changes (default: the list before).
    pub previous: Option<NaiveDate>,
}

/// A list named as the rulebook names its lists.
pub fn list_named<R: Federation>(rulebook: &R, name: &str) -> Result<ListId, QueryError> {
    rulebook
        .lists()
        .iter()
        .position(|l| l.eq_ignore_ascii_case(name))
        .ok_or_else(|| QueryError::NoList {
            given: name.to_string(),
            lists: rulebook.lists().join(", "),
        })
}

/// `ratedesk export list`: the national list in force on the request's date, as `format`.
pub fn national_list<R: Federation>(
    desk: &Desk<R>,
    request: &ListRequest,
    format: ListFormat,
) -> Result<String, QueryError> {
    let rulebook = desk.rulebook();
    let list = match &request.list {
        Some(name) => list_named(rulebook, name)?,
        None => 0,
    };
    let date = rulebook.list_date(request.date.unwrap_or_else(crate::clock::today));
    let previous = request
        .previous
        .unwrap_or_else(|| rulebook.previous_list_date(date));
    let active = desk.active_players();
    let (book, ledger) = (desk.book(), desk.ledger());
    let head = super::audit_log::head_line(desk.head()?);
    Ok(match format {
        // The head as the file's last row, with the header's number of cells (a strict CSV
        // reader takes every row to have them); its first cell begins with `#`.
        ListFormat::Csv => {
            let mut csv = list::write_csv(rulebook, book, ledger, &active, date, previous);
            let cells = csv.lines().next().map_or(1, |h| h.split(';').count());
            csv.push_str(&format!("# {head}{}\n", ";".repeat(cells - 1)));
            csv
        }
        ListFormat::Page(kind) => {
            let l = list::national_list(rulebook, book, ledger, &active, list, date, previous);
            let mut page = list::page(rulebook, book, &l);
            page.below.push(head);
            page.render(kind)
        }
    })
}

/// `ratedesk export report`: an event's rating report.
pub fn report<R: Federation>(
    desk: &Desk<R>,
    event: &str,
    kind: PageKind,
) -> Result<String, QueryError> {
    let e = queries::find_event(desk, event)?;
    let rows = queries::report_rows(desk.book(), desk.ledger(), e);
    let mut page = export::report::page(desk.rulebook(), desk.book(), e, &rows);
    page.below.push(super::audit_log::head_line(desk.head()?));
    Ok(page.render(kind))
}

/// `ratedesk export history`: a player's rated games on every list, as CSV.
pub fn history<R: Federation>(desk: &Desk<R>, player: &str) -> Result<String, QueryError> {
    let p = queries::find_player(desk, player)?;
    Ok(export::history::write_csv(
        desk.rulebook(),
        desk.book(),
        desk.ledger(),
        p,
    ))
}

/// `ratedesk export trf`: an event as TRF16, or TRF26 with a national-rating record for every
/// home player with a rating going into it.
pub fn trf<R: Federation>(desk: &Desk<R>, event: &str, trf26: bool) -> Result<String, QueryError> {
    let e = queries::find_event(desk, event)?;
    let options = export::trf::Options {
        trf26,
        federation: desk.rulebook().home_federation().into(),
        national: if trf26 {
            queries::national_ratings(desk, e)
        } else {
            Vec::new()
        },
    };
    let book = desk.book();
    Ok(export::trf::write_with(
        &book.events[e],
        &book.players,
        &options,
    ))
}

/// `ratedesk export events`: everything needed to rate the database again, in the `rate`
/// input format.
pub fn events_document<R: Federation>(desk: &Desk<R>, as_of: Option<NaiveDate>) -> Value {
    crate::json::write_input(desk.rulebook(), desk.book(), as_of, &desk.active_players())
}

/// `ratedesk export ratings`: the stored results in the `rate` output format.
/// Made as it is written ([`crate::json::Document`]): a whole federation's rows are never held
/// at once.
pub fn ratings_document<R: Federation>(
    desk: &Desk<R>,
    as_of: Option<NaiveDate>,
) -> crate::json::Document<'_> {
    crate::json::write_results(
        desk.rulebook(),
        desk.book(),
        desk.ledger(),
        as_of,
        desk.active_players(),
    )
}
