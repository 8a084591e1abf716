//! The national rating list of any rulebook: every player the rulebook lists on a list's date
//! (Finland's players with a rating; Iceland's by "Birting stiga á lista"; Turkey's UKD holders
//! but foreigners counted by their FIDE rating), ranked, with games, title and the change since
//! the previous list; written as the federation's CSV (every list in one file, which
//! `import national-csv` reads back), as text and as an HTML page of one list.

use std::borrow::Cow;
use std::collections::HashMap;

use chrono::NaiveDate;

use super::format::{Page, signed};
use crate::book::Book;
use crate::federations::{Federation, ListEntry};
use crate::ledger::Ledger;
use crate::model::{PlayerIdx, Rating, Sex};
use crate::rules::ListId;

/// One player of a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListRow {
    pub rank: usize,
    pub player: PlayerIdx,
    pub rating: Rating,
    pub games: u32,
    /// The rating stands on its own (not marked `*`; see [`crate::federations::Federation::settled`]).
    pub settled: bool,
    /// The code of the highest title held on the list's date.
    pub title: Option<&'static str>,
    /// Since the previous list; `None`: not on it.
    pub change: Option<i32>,
}

/// A list on a date.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NationalList {
    pub list: ListId,
    pub date: NaiveDate,
    pub previous: NaiveDate,
    pub rows: Vec<ListRow>,
}

/// Who is on a rulebook's lists on a date: what [`crate::federations::Federation::on_list`] is asked with.
pub struct Listing<'a, R: Federation> {
    rulebook: &'a R,
    book: &'a Book<R>,
    ledger: &'a Ledger<R>,
    active: &'a [bool],
    date: NaiveDate,
    /// Per list, each player's latest played game before the date.
    last_games: Vec<HashMap<PlayerIdx, NaiveDate>>,
}

impl<'a, R: Federation> Listing<'a, R> {
    pub fn new(
        rulebook: &'a R,
        book: &'a Book<R>,
        ledger: &'a Ledger<R>,
        active: &'a [bool],
        date: NaiveDate,
    ) -> Self {
        let mut last_games = vec![HashMap::new(); rulebook.lists().len()];
        let events = if rulebook.lists_by_last_game() {
            book.events.len()
        } else {
            0
        };
        for (e, event) in book.events.iter().enumerate().take(events) {
            let Some(list) = rulebook.list_in(event, &book.events) else {
                continue;
            };
            if !book.live[e] {
                continue;
            }
            for g in event.games.iter().filter(|g| g.is_rated_game()) {
                let day = g.date.unwrap_or(event.end);
                if day >= date {
                    continue;
                }
                for p in [Some(g.white()), g.black()].into_iter().flatten() {
                    let last = last_games[list].entry(p).or_insert(day);
                    *last = (*last).max(day);
                }
            }
        }
        Self {
            rulebook,
            book,
            ledger,
            active,
            date,
            last_games,
        }
    }

    /// A player's state on `list` if he is on it.
    pub fn listed(&self, p: PlayerIdx, list: ListId) -> Option<Cow<'a, R::State>> {
        if !self.active.get(p).copied().unwrap_or(false) {
            return None;
        }
        let state = self
            .ledger
            .state_on(self.rulebook, self.book, p, list, self.date)?;
        self.rulebook
            .on_list(&ListEntry {
                info: &self.book.players[p],
                list,
                state: &state,
                last_game: self.last_games[list].get(&p).copied(),
                date: self.date,
            })
            .then_some(state)
    }

    /// A listed player's rating on `list`.
    fn rating(&self, p: PlayerIdx, list: ListId) -> Option<Rating> {
        self.listed(p, list)
            .and_then(|s| self.rulebook.rating_of(&s))
    }
}

/// The highest title a player held on a date: titles held before the ledger always count; a
/// title reached since counts from the day it was reached, and one that needs confirmation
/// (SSL 6.3: M) only once the rating committee has confirmed it.
pub fn title_on<R: Federation>(
    rulebook: &R,
    book: &Book<R>,
    ledger: &Ledger<R>,
    p: PlayerIdx,
    date: NaiveDate,
) -> Option<R::Award> {
    if !rulebook.awards_titles() {
        return None;
    }
    let all = ledger.awards(book, p);
    let (held, reached) = all.split_at(book.held[p].len().min(all.len()));
    let confirmed = |t: &R::Award| {
        !rulebook.needs_confirmation(t)
            || book.confirmed[p]
                .iter()
                .any(|c| c.award == *t && c.date.is_none_or(|d| d <= date))
    };
    held.iter()
        .filter(|a| a.date.is_none_or(|d| d <= date))
        .map(|a| a.award.clone())
        .chain(
            reached
                .iter()
                .filter(|a| a.date.is_none_or(|d| d <= date) && confirmed(&a.award))
                .map(|a| a.award.clone()),
        )
        .max()
}

fn title_code<R: Federation>(
    rulebook: &R,
    book: &Book<R>,
    ledger: &Ledger<R>,
    p: PlayerIdx,
    date: NaiveDate,
) -> Option<&'static str> {
    title_on(rulebook, book, ledger, p, date).map(|t| rulebook.award_code(&t))
}

/// `list` on `date`, ranked by rating (ties share a rank, then go by name), each with his
/// change since the list of `previous` ("new" when he was not on it).
pub fn national_list<R: Federation>(
    rulebook: &R,
    book: &Book<R>,
    ledger: &Ledger<R>,
    active: &[bool],
    list: ListId,
    date: NaiveDate,
    previous: NaiveDate,
) -> NationalList {
    let now = Listing::new(rulebook, book, ledger, active, date);
    let before = Listing::new(rulebook, book, ledger, active, previous);
    let mut rows: Vec<ListRow> = (0..book.players.len())
        .filter_map(|p| {
            let state = now.listed(p, list)?;
            let state = state.as_ref();
            let rating = rulebook.rating_of(state)?;
            Some(ListRow {
                rank: 0,
                player: p,
                rating,
                games: rulebook.games_of(state),
                settled: rulebook.settled(list, state),
                title: title_code(rulebook, book, ledger, p, date),
                change: before.rating(p, list).map(|b| rating - b),
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        b.rating.cmp(&a.rating).then_with(|| {
            book.players[a.player]
                .name
                .cmp(&book.players[b.player].name)
        })
    });
    for i in 0..rows.len() {
        rows[i].rank = if i > 0 && rows[i - 1].rating == rows[i].rating {
            rows[i - 1].rank
        } else {
            i + 1
        };
    }
    NationalList {
        list,
        date,
        previous,
        rows,
    }
}

/// `Surname, Given names` split at the first comma.
pub fn split_name(name: &str) -> (&str, &str) {
    match name.split_once(',') {
        Some((surname, given)) => (surname.trim(), given.trim()),
        None => (name.trim(), ""),
    }
}

/// Every list on `date` as the federation's CSV ([`crate::federations::Federation::list_columns`]): every player on
/// any of the lists, by name, with his club, his rating and games on each list he is on (and,
/// where the columns have it, his change since the list of `previous`).
pub fn write_csv<R: Federation>(
    rulebook: &R,
    book: &Book<R>,
    ledger: &Ledger<R>,
    active: &[bool],
    date: NaiveDate,
    previous: NaiveDate,
) -> String {
    let columns = rulebook.list_columns();
    let lists = rulebook.lists().len();
    let now = Listing::new(rulebook, book, ledger, active, date);
    let before = Listing::new(rulebook, book, ledger, active, previous);
    let mut players: Vec<PlayerIdx> = (0..book.players.len())
        .filter(|&p| (0..lists).any(|l| now.listed(p, l).is_some()))
        .collect();
    players.sort_by(|&a, &b| book.players[a].name.cmp(&book.players[b].name));
    let mut out = csv::WriterBuilder::new()
        .delimiter(b';')
        .from_writer(Vec::new());
    let _ = out.write_record(columns.header());
    for p in players {
        let info = &book.players[p];
        let (surname, given) = split_name(&info.name);
        let club = info.club.clone().unwrap_or_default();
        let mut record: Vec<String> = vec![info.id.clone(), surname.into(), given.into(), club];
        for (list, cols) in columns.lists.iter().enumerate() {
            let state = now.listed(p, list);
            let state = state.as_deref();
            let rating = state.and_then(|s| rulebook.rating_of(s));
            record.push(rating.map(|r| r.to_string()).unwrap_or_default());
            record.push(
                state
                    .map(|s| rulebook.games_of(s).to_string())
                    .unwrap_or_default(),
            );
            if cols.change.is_some() {
                record.push(match (rating, before.rating(p, list)) {
                    // A CSV for programs: the plain signed number (`+0`), not the `±0` of pages.
                    (Some(r), Some(b)) => format!("{:+}", r - b),
                    (Some(_), None) => "new".into(),
                    (None, _) => String::new(),
                });
            }
        }
        if columns.title.is_some() {
            record.push(
                title_code(rulebook, book, ledger, p, date)
                    .unwrap_or_default()
                    .into(),
            );
        }
        record.push(info.fide_id.map(|f| f.to_string()).unwrap_or_default());
        record.push(
            info.born
                .map(|d| d.format("%Y-%m-%d").to_string())
                .unwrap_or_default(),
        );
        record.push(
            match info.sex {
                Some(Sex::Female) => columns.female,
                Some(Sex::Male) => "M",
                None => "",
            }
            .into(),
        );
        let _ = out.write_record(&record);
    }
    String::from_utf8(out.into_inner().unwrap_or_default()).unwrap_or_default()
}

fn cells<R: Federation>(rulebook: &R, book: &Book<R>, list: &NationalList) -> Vec<Vec<String>> {
    list.rows
        .iter()
        .map(|r| {
            let mut row = vec![
                r.rank.to_string(),
                book.players[r.player].name.clone(),
                format!("{}{}", r.rating, if r.settled { "" } else { "*" }),
                r.games.to_string(),
            ];
            if rulebook.awards_titles() {
                row.push(r.title.unwrap_or_default().to_string());
            }
            row.push(r.change.map_or_else(|| "new".into(), signed));
            row
        })
        .collect()
}

fn heading<R: Federation>(rulebook: &R, list: &NationalList) -> (String, Vec<String>) {
    let note = rulebook
        .unsettled_note(list.list)
        .map(|n| format!("; * {n}"))
        .unwrap_or_default();
    (
        format!("{} {}", rulebook.list_title(list.list), list.date),
        vec![format!(
            "{} players; change since {}{note}",
            list.rows.len(),
            list.previous
        )],
    )
}

const HEADER: [&str; 6] = ["Rank", "Name", "Rating", "Games", "Title", "Change"];
const HEADER_UNTITLED: [&str; 5] = ["Rank", "Name", "Rating", "Games", "Change"];

/// The list as a printable page (text or HTML).
pub fn page<R: Federation>(rulebook: &R, book: &Book<R>, list: &NationalList) -> Page {
    let (title, above) = heading(rulebook, list);
    let (header, right): (&'static [&'static str], &'static [bool]) = if rulebook.awards_titles() {
        (&HEADER, &[true, false, true, true, false, true])
    } else {
        (&HEADER_UNTITLED, &[true, false, true, true, true])
    };
    Page {
        title,
        above,
        header,
        right,
        rows: cells(rulebook, book, list),
        below: Vec::new(),
    }
}
