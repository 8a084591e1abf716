//! Reading a federation's national rating list as CSV: semicolon-separated with a header line,
//! UTF-8 or Latin-1, CRLF or LF. Columns are found by their names — each rulebook's [`Columns`]
//! (Finland's are the selo service's `Id;Sukunimi;Etunimi;Seura;Selo;Selopelejä;Pelo;…`) — so
//! their order and any extra columns do not matter; the id and the name must be there. Also read
//! when present: the club (`Seura`), each list's rating and games, a title, the FIDE id, the
//! birth date and the sex (M, N/F/W). The list this program exports for a rulebook reads back the same.

use chrono::NaiveDate;

use crate::model::{Rating, Sex};

/// A problem in the file, with its place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct CsvError {
    pub line: u64,
    /// The column's name as the header gives it.
    pub column: String,
    pub message: String,
}

/// One list's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Figures {
    pub rating: Rating,
    pub games: u32,
}

/// One player of the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListRow {
    pub line: u64,
    pub id: String,
    /// `Surname, Given names` (or the name as one column gives it).
    pub name: String,
    /// The club cell: `None` when the file has no club column, empty for a player the list
    /// gives no club.
    pub club: Option<String>,
    /// The figures on each of the rulebook's lists, by list.
    pub lists: Vec<Option<Figures>>,
    pub title: String,
    pub fide_id: Option<u64>,
    pub born: Option<NaiveDate>,
    pub sex: Option<Sex>,
}

/// One rating list's columns: the rating, the games behind it, and (written, never read) the
/// change since the previous list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListColumns {
    /// The names read as the rating column, the first of them written.
    pub rating: &'static [&'static str],
    pub games: &'static [&'static str],
    pub change: Option<&'static str>,
}

/// The columns of one federation's list file. Each field holds the names read for it, the first
/// of them written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Columns {
    pub id: &'static [&'static str],
    pub surname: &'static [&'static str],
    pub given: &'static [&'static str],
    pub club: &'static [&'static str],
    /// By list, in the rulebook's order.
    pub lists: &'static [ListColumns],
    /// `None`: the rulebook awards no titles.
    pub title: Option<&'static [&'static str]>,
    pub fide: &'static [&'static str],
    pub born: &'static [&'static str],
    pub sex: &'static [&'static str],
    /// How a woman is written in the sex column (a man is `M`).
    pub female: &'static str,
}

impl Columns {
    /// The header line's names, as written.
    pub fn header(&self) -> Vec<&'static str> {
        let mut names = vec![self.id[0], self.surname[0], self.given[0], self.club[0]];
        for list in self.lists {
            names.extend([list.rating[0], list.games[0]]);
            names.extend(list.change);
        }
        names.extend(self.title.map(|t| t[0]));
        names.extend([self.fide[0], self.born[0], self.sex[0]]);
        names
    }
}

/// The selo service's national list (Finland): both lists in one file.
pub const FINNISH: Columns = Columns {
    id: &["Id"],
    surname: &["Sukunimi"],
    given: &["Etunimi"],
    club: &["Seura"],
    lists: &[
        ListColumns {
            rating: &["Selo"],
            games: &["Selopelejä", "Selopelit"],
            change: None,
        },
        ListColumns {
            rating: &["Pelo"],
            games: &["Pelopelejä", "Pelopelit"],
            change: None,
        },
    ],
    title: Some(&["Arvo", "Titteli"]),
    fide: &["FIDE-id", "FIDE"],
    born: &["Syntynyt", "Syntymäaika"],
    sex: &["Sukupuoli"],
    female: "N",
};

/// The Icelandic list: one standard list, with each player's change since the previous list.
pub const ICELANDIC: Columns = Columns {
    id: &["Id", "Kennitala"],
    surname: &["Surname", "Name", "Nafn"],
    given: &["Given names"],
    club: &["Club", "Félag"],
    lists: &[ListColumns {
        rating: &["Rating", "Stig"],
        games: &["Games", "Skákir"],
        change: Some("Change"),
    }],
    title: None,
    fide: &["FIDE id", "FIDE"],
    born: &["Born"],
    sex: &["Sex"],
    female: "F",
};

/// The Turkish lists: the UKD of each tempo (UKD, UHS, UYS) with its games and change.
pub const TURKISH: Columns = Columns {
    id: &["Id", "Lisans No"],
    surname: &["Surname", "Soyadı"],
    given: &["Given names", "Adı"],
    club: &["Club", "Kulüp"],
    lists: &[
        ListColumns {
            rating: &["UKD"],
            games: &["UKD games"],
            change: Some("UKD change"),
        },
        ListColumns {
            rating: &["UHS"],
            games: &["UHS games"],
            change: Some("UHS change"),
        },
        ListColumns {
            rating: &["UYS"],
            games: &["UYS games"],
            change: Some("UYS change"),
        },
    ],
    title: None,
    fide: &["FIDE id", "FIDE"],
    born: &["Born"],
    sex: &["Sex"],
    female: "F",
};

fn fold(header: &str) -> String {
    crate::model::fold_name(header.trim())
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect()
}

/// Whether a line ends inside a quoted cell: a cell that begins with `"` and has no closing
/// `"` (a doubled `""` inside is a quote). A `"` inside an unquoted cell (`Aino "Aikku"`) is
/// text.
fn quote_left_open(line: &str) -> bool {
    let mut chars = line.chars().peekable();
    let mut at_cell_start = true;
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (false, '"') if at_cell_start => quoted = true,
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
            }
            (true, '"') => quoted = false,
            (false, ';') => {
                at_cell_start = true;
                continue;
            }
            _ => {}
        }
        at_cell_start = false;
    }
    quoted
}

/// The cells of one line, quotes and all, as the csv crate reads them (a cell's text after
/// its closing quote is kept; an unquoted cell's quotes are text).
fn split_line(reader: &mut csv_core::Reader, line: &str) -> Vec<String> {
    use csv_core::ReadRecordResult;
    reader.reset();
    // Unquoting never lengthens: the cells fit in the line's length, their ends in its bytes.
    let mut out = vec![0u8; line.len() + 1];
    let mut ends = vec![0usize; line.len() + 2];
    let (result, _, mut written, mut cells) =
        reader.read_record(line.as_bytes(), &mut out, &mut ends);
    // The line read to its end: the end of input ends its record. (A record ended inside the
    // line, at a lone carriage return, is the line's first record, as the csv crate reads it.)
    if result == ReadRecordResult::InputEmpty {
        let (_, _, w, e) = reader.read_record(&[], &mut out[written..], &mut ends[cells..]);
        written += w;
        cells += e;
    }
    debug_assert!(written <= out.len());
    let mut start = 0;
    ends[..cells]
        .iter()
        .map(|&end| {
            let cell = String::from_utf8_lossy(&out[start..end]).into_owned();
            start = end;
            cell
        })
        .collect()
}

/// Reads the whole file by `columns`.
pub fn parse(bytes: &[u8], columns: &Columns) -> Result<Vec<ListRow>, CsvError> {
    let text = crate::import::trf::decode(bytes);
    let at = |line: u64, column: &str, message: String| CsvError {
        line,
        column: column.to_string(),
        message,
    };
    // Line by line, so that every message names the file's own line (blank lines skipped);
    // the csv reader splits each line, quotes and all.
    // One reader for every line (building one takes longer than reading a line).
    let mut reader = csv_core::ReaderBuilder::new().delimiter(b';').build();
    let mut split = |line: u64, text: &str| -> Result<Vec<String>, CsvError> {
        // A record is one line: a quoted cell opened and not closed on it is an error, not a
        // cell that runs on to the end of the file.
        if quote_left_open(text) {
            return Err(at(
                line,
                "-",
                "a quote (\") is opened and not closed on this line".into(),
            ));
        }
        Ok(split_line(&mut reader, text))
    };
    let mut lines = text
        .split('\n')
        .map(|l| l.trim_end_matches('\r'))
        .zip(1u64..)
        // Blank lines, and the audit head a list ratedesk published ends with.
        .filter(|(l, _)| !l.trim().is_empty() && !l.starts_with("# audit head"));
    let header = match lines.next() {
        Some((h, n)) => split(n, h)?,
        None => return Err(at(1, "-", "the file is empty".into())),
    };
    let names: Vec<String> = header.iter().map(|h| h.trim().to_string()).collect();
    let find = |wanted: &[&str]| {
        names
            .iter()
            .position(|n| wanted.iter().any(|w| fold(n) == fold(w)))
    };
    let required = |wanted: &[&str]| {
        find(wanted).ok_or_else(|| {
            at(
                1,
                wanted[0],
                format!(
                    "the header has no '{}' column (it has: {})",
                    wanted[0],
                    names.join(";")
                ),
            )
        })
    };
    let id_col = required(columns.id)?;
    let surname_col = required(columns.surname)?;
    let given_col = find(columns.given);
    let club_col = find(columns.club);
    let list_cols: Vec<(Option<usize>, Option<usize>)> = columns
        .lists
        .iter()
        .map(|l| (find(l.rating), find(l.games)))
        .collect();
    let title_col = columns.title.and_then(&find);
    let fide_col = find(columns.fide);
    let born_col = find(columns.born);
    let sex_col = find(columns.sex);
    let mut rows = Vec::new();
    for (text, line) in lines {
        let record = split(line, text)?;
        if record.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        let cell = |c: Option<usize>| c.and_then(|c| record.get(c)).map_or("", |f| f.trim());
        let column = |c: Option<usize>| c.map_or("-", |c| names[c].as_str());
        let number = |c: Option<usize>, what: &str| -> Result<Option<u32>, CsvError> {
            let v = cell(c);
            if v.is_empty() {
                return Ok(None);
            }
            v.parse::<u32>()
                .map(Some)
                .map_err(|_| at(line, column(c), format!("'{v}' is not {what}")))
        };
        let figures = |rating_col, games_col| -> Result<Option<Figures>, CsvError> {
            let rating = number(rating_col, "a rating")?;
            let games = number(games_col, "a number of games")?.unwrap_or(0);
            match rating {
                Some(r) if !crate::json::RATINGS.contains(&i64::from(r)) => Err(at(
                    line,
                    column(rating_col),
                    format!("{r} is not a plausible rating"),
                )),
                Some(r) if r > 0 => Ok(Some(Figures {
                    rating: r as Rating,
                    games,
                })),
                _ => Ok(None),
            }
        };
        let id = cell(Some(id_col));
        if id.is_empty() {
            return Err(at(
                line,
                column(Some(id_col)),
                "the player has no id".into(),
            ));
        }
        let (surname, given) = (cell(Some(surname_col)), cell(given_col));
        let born = match cell(born_col) {
            "" => None,
            b => Some(
                crate::import::trf_event::parse_date(b)
                    .ok_or_else(|| at(line, column(born_col), format!("'{b}' is not a date")))?,
            ),
        };
        let sex = match cell(sex_col).to_ascii_uppercase().as_str() {
            "" => None,
            "M" => Some(Sex::Male),
            "N" | "F" | "W" => Some(Sex::Female),
            other => {
                return Err(at(
                    line,
                    column(sex_col),
                    format!("'{other}' is not M or N"),
                ));
            }
        };
        let lists = list_cols
            .iter()
            .map(|&(rating, games)| figures(rating, games))
            .collect::<Result<Vec<_>, _>>()?;
        rows.push(ListRow {
            line,
            id: id.to_string(),
            name: if given.is_empty() {
                surname.to_string()
            } else {
                format!("{surname}, {given}")
            },
            club: club_col.map(|c| cell(Some(c)).to_string()),
            lists,
            title: cell(title_col).to_string(),
            fide_id: number(fide_col, "a FIDE id")?.map(u64::from),
            born,
            sex,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_columns_by_name_in_latin1_with_crlf() {
        let text = "Seura;Id;Sukunimi;Etunimi;Selo;Selopelejä;Pelo;Pelopelejä\r\nHSK;1234;Mäkelä;Eero;1850;120;;\r\n\r\nTuS;77;Ek;;1500;5;1400;3\r\n";
        let latin1: Vec<u8> = text.chars().map(|c| c as u8).collect();
        for bytes in [text.as_bytes().to_vec(), latin1] {
            let rows = parse(&bytes, &FINNISH).expect("reads");
            assert_eq!(rows.len(), 2);
            assert_eq!(rows[0].name, "Mäkelä, Eero");
            assert_eq!(rows[0].club.as_deref(), Some("HSK"));
            assert_eq!(
                rows[0].lists,
                vec![
                    Some(Figures {
                        rating: 1850,
                        games: 120
                    }),
                    None
                ]
            );
            assert_eq!(rows[1].name, "Ek");
            assert_eq!(rows[1].lists[1].map(|f| f.games), Some(3));
            assert_eq!(rows[1].line, 4);
        }
    }

    #[test]
    fn every_rulebooks_columns_are_found_by_their_names() {
        let text = "Lisans No;Soyadı;Adı;UKD;UKD games;UKD change;UYS;UYS games\n7;Yılmaz;Ayşe;1650;40;+12;1400;9\n";
        let rows = parse(text.as_bytes(), &TURKISH).expect("reads");
        assert_eq!(rows[0].name, "Yılmaz, Ayşe");
        assert_eq!(rows[0].lists[0].map(|f| f.rating), Some(1650));
        assert_eq!(rows[0].lists[1], None);
        assert_eq!(rows[0].lists[2].map(|f| f.games), Some(9));
        let text = "Kennitala;Nafn;Stig;Skákir\n0101692049;Jóhann Hjartarson;2480;900\n";
        let rows = parse(text.as_bytes(), &ICELANDIC).expect("reads");
        assert_eq!(rows[0].name, "Jóhann Hjartarson");
        assert_eq!(rows[0].lists[0].map(|f| f.games), Some(900));
        assert_eq!(
            ICELANDIC.header().join(";"),
            "Id;Surname;Given names;Club;Rating;Games;Change;FIDE id;Born;Sex"
        );
    }

    #[test]
    fn bad_cells_name_line_and_column() {
        let e = parse(b"Id;Sukunimi;Etunimi;Selo\n1;A;B;18x0\n", &FINNISH).expect_err("refused");
        assert_eq!((e.line, e.column.as_str()), (2, "Selo"));
        let e = parse(b"Id;Sukunimi;Etunimi;Selo\n1;A;B;99999\n", &FINNISH).expect_err("refused");
        assert!(e.message.contains("plausible"), "{e}");
        let e = parse(b"Nimi;Selo\nA;1800\n", &FINNISH).expect_err("refused");
        assert!(e.message.contains("no 'Id' column"), "{e}");
        let e = parse(b"Id;Sukunimi;Etunimi\n;A;B\n", &FINNISH).expect_err("refused");
        assert_eq!(e.column, "Id");
        assert!(parse(b"", &FINNISH).is_err());
        // A quote opened and not closed does not swallow the rest of the file as a surname.
        let e = parse(
            b"Id;Sukunimi;Etunimi;Selo\n1;\"Aho;Aino;1800\n2;Ek;Eero;1700\n",
            &FINNISH,
        )
        .expect_err("refused");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("not closed"), "{e}");
        // A quote inside an unquoted cell is text.
        let rows = parse(
            b"Id;Sukunimi;Etunimi;Selo\n1;Aho;Aino \"Aikku\";1800\n",
            &FINNISH,
        )
        .expect("reads");
        assert_eq!(rows[0].name, "Aho, Aino \"Aikku\"");
        // A doubled quote inside a quoted cell is a quote.
        let rows = parse(
            b"Id;Sukunimi;Etunimi;Selo\n1;\"O\"\"Neill\";Aino;1800\n",
            &FINNISH,
        )
        .expect("reads");
        assert_eq!(rows[0].name, "O\"Neill, Aino");
    }

    #[test]
    fn a_file_mixing_utf8_and_latin1_lines_keeps_every_name() {
        let mut bytes = "Id;Sukunimi;Etunimi;Selo\n1;Mäkelä;Eero;1850\n"
            .as_bytes()
            .to_vec();
        bytes.extend_from_slice(b"2;J\xe4rvinen;\xc5ke;1700\n");
        let rows = parse(&bytes, &FINNISH).expect("reads");
        assert_eq!(rows[0].name, "Mäkelä, Eero");
        assert_eq!(rows[1].name, "Järvinen, Åke");
    }
}
