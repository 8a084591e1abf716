//! The national rating list: every Finnish player rated on a list on the list's date, ranked,
//! with games, title and the change since the previous list; written as the selo service's CSV
//! (both lists in one file, which `import selo-csv` reads back), as text and as an HTML page.

use chrono::NaiveDate;

use super::format::{Page, signed};
use crate::book::Book;
use crate::ledger::Ledger;
use crate::model::{PlayerIdx, Rating, Sex};
use crate::rules::ListId;
use crate::rules::ssl::{PELO, SELO, Ssl, SslState, titles::Title};

/// One player of a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListRow {
    pub rank: usize,
    pub player: PlayerIdx,
    pub rating: Rating,
    pub games: u32,
    /// Established on the list (SSL 3.1 / 4.1).
    pub established: bool,
    pub title: Option<Title>,
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

/// The list's name as the federation says it.
pub fn list_name(list: ListId) -> &'static str {
    if list == PELO { "pelo" } else { "selo" }
}

fn state_on<'a>(
    book: &'a Book<Ssl>,
    ledger: &'a Ledger<Ssl>,
    p: PlayerIdx,
    list: ListId,
    date: NaiveDate,
) -> Option<&'a SslState> {
    ledger
        .state_on(book, p, list, date)
        .filter(|s| s.rating.is_some())
}

/// The highest title a player held on a date: titles held before the ledger always count; a
/// title reached since counts from the day it was reached, and a master's title (6.3) only once
/// the rating committee has confirmed it.
pub fn title_on(
    book: &Book<Ssl>,
    ledger: &Ledger<Ssl>,
    p: PlayerIdx,
    date: NaiveDate,
) -> Option<Title> {
    let all = ledger.awards(book, p);
    let (held, reached) = all.split_at(book.held[p].len().min(all.len()));
    let confirmed = |t: Title| {
        !t.needs_confirmation()
            || book.confirmed[p]
                .iter()
                .any(|c| c.award == t && c.date.is_none_or(|d| d <= date))
    };
    held.iter()
        .filter(|a| a.date.is_none_or(|d| d <= date))
        .map(|a| a.award)
        .chain(
            reached
                .iter()
                .filter(|a| a.date.is_none_or(|d| d <= date) && confirmed(a.award))
                .map(|a| a.award),
        )
        .max()
}

/// The players in use who represent Finland.
fn finns<'a>(book: &'a Book<Ssl>, active: &'a [bool]) -> impl Iterator<Item = PlayerIdx> + 'a {
    book.players
        .iter()
        .enumerate()
        .filter(move |(p, info)| active.get(*p).copied().unwrap_or(false) && info.is_finnish())
        .map(|(p, _)| p)
}

/// The list on `date`, ranked by rating (ties share a rank, then go by name).
pub fn national_list(
    book: &Book<Ssl>,
    ledger: &Ledger<Ssl>,
    active: &[bool],
    list: ListId,
    date: NaiveDate,
    previous: NaiveDate,
) -> NationalList {
    let mut rows: Vec<ListRow> = finns(book, active)
        .filter_map(|p| {
            let state = state_on(book, ledger, p, list, date)?;
            let rating = state.rating?;
            let before = state_on(book, ledger, p, list, previous).and_then(|s| s.rating);
            Some(ListRow {
                rank: 0,
                player: p,
                rating,
                games: state.games,
                established: if list == SELO {
                    state.selo_established()
                } else {
                    state.pelo_established()
                },
                title: title_on(book, ledger, p, date),
                change: before.map(|b| rating - b),
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

/// The columns of the selo service's CSV (semicolon-separated, a header line).
pub const CSV_COLUMNS: [&str; 12] = [
    "Id",
    "Sukunimi",
    "Etunimi",
    "Seura",
    "Selo",
    "Selopelejä",
    "Pelo",
    "Pelopelejä",
    "Arvo",
    "FIDE-id",
    "Syntynyt",
    "Sukupuoli",
];

/// Both lists on `date` as the selo service's CSV: every Finnish player rated on either list,
/// by name, with his club (`Seura`).
pub fn write_csv(
    book: &Book<Ssl>,
    ledger: &Ledger<Ssl>,
    active: &[bool],
    date: NaiveDate,
) -> String {
    let mut players: Vec<PlayerIdx> = finns(book, active)
        .filter(|&p| {
            [SELO, PELO]
                .iter()
                .any(|&l| state_on(book, ledger, p, l, date).is_some())
        })
        .collect();
    players.sort_by(|&a, &b| book.players[a].name.cmp(&book.players[b].name));
    let mut out = csv::WriterBuilder::new()
        .delimiter(b';')
        .from_writer(Vec::new());
    let _ = out.write_record(CSV_COLUMNS);
    for p in players {
        let info = &book.players[p];
        let (surname, given) = split_name(&info.name);
        let figures = |l: ListId| {
            state_on(book, ledger, p, l, date).map_or((String::new(), String::new()), |s| {
                (
                    s.rating.map(|r| r.to_string()).unwrap_or_default(),
                    s.games.to_string(),
                )
            })
        };
        let (selo, selo_games) = figures(SELO);
        let (pelo, pelo_games) = figures(PELO);
        let _ = out.write_record([
            info.id.as_str(),
            surname,
            given,
            info.club.as_deref().unwrap_or_default(),
            &selo,
            &selo_games,
            &pelo,
            &pelo_games,
            title_on(book, ledger, p, date).map_or("", Title::code),
            &info.fide_id.map(|f| f.to_string()).unwrap_or_default(),
            &info
                .born
                .map(|d| d.format("%Y-%m-%d").to_string())
                .unwrap_or_default(),
            match info.sex {
                Some(Sex::Female) => "N",
                Some(Sex::Male) => "M",
                None => "",
            },
        ]);
    }
    String::from_utf8(out.into_inner().unwrap_or_default()).unwrap_or_default()
}

fn cells(book: &Book<Ssl>, list: &NationalList) -> Vec<Vec<String>> {
    list.rows
        .iter()
        .map(|r| {
            vec![
                r.rank.to_string(),
                book.players[r.player].name.clone(),
                format!("{}{}", r.rating, if r.established { "" } else { "*" }),
                r.games.to_string(),
                r.title.map_or("", Title::code).to_string(),
                r.change.map_or_else(|| "new".into(), signed),
            ]
        })
        .collect()
}

fn heading(list: &NationalList) -> (String, Vec<String>) {
    (
        format!("Finnish {} list {}", list_name(list.list), list.date),
        vec![format!(
            "{} players; change since {}; * not yet established (selo: fewer than 11 games)",
            list.rows.len(),
            list.previous
        )],
    )
}

const HEADER: [&str; 6] = ["Rank", "Name", "Rating", "Games", "Title", "Change"];

/// The list as a printable page (text or HTML).
pub fn page(book: &Book<Ssl>, list: &NationalList) -> Page {
    let (title, above) = heading(list);
    Page {
        title,
        above,
        header: &HEADER,
        right: &[true, false, true, true, false, true],
        rows: cells(book, list),
    }
}
