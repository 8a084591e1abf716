//! Reading the selo service's national list as CSV: semicolon-separated with a header line
//! (`Id;Sukunimi;Etunimi;Seura;Selo;Selopelejä;Pelo;Pelopelejä;…`), UTF-8 or Latin-1, CRLF or
//! LF. Columns are found by their names, so their order and any extra columns do not matter;
//! `Id`, `Sukunimi` and `Etunimi` must be there. Also read when present: `Seura` (club),
//! `Arvo` (title), `FIDE-id`, `Syntynyt` (birth date) and `Sukupuoli` (M / N).

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
pub struct SeloRow {
    pub line: u64,
    pub id: String,
    /// `Surname, Given names`.
    pub name: String,
    /// The `Seura` cell: `None` when the file has no such column, empty for a player the list
    /// gives no club.
    pub club: Option<String>,
    pub selo: Option<Figures>,
    pub pelo: Option<Figures>,
    pub title: String,
    pub fide_id: Option<u64>,
    pub born: Option<NaiveDate>,
    pub sex: Option<Sex>,
}

fn fold(header: &str) -> String {
    crate::model::fold_name(header.trim())
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect()
}

/// Reads the whole file.
pub fn parse(bytes: &[u8]) -> Result<Vec<SeloRow>, CsvError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    };
    let at = |line: u64, column: &str, message: String| CsvError {
        line,
        column: column.to_string(),
        message,
    };
    // Line by line, so that every message names the file's own line (blank lines skipped);
    // the csv reader splits each line, quotes and all.
    let split = |line: u64, text: &str| -> Result<Vec<String>, CsvError> {
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(b';')
            .flexible(true)
            .has_headers(false)
            .from_reader(text.as_bytes());
        match reader.records().next() {
            Some(Ok(r)) => Ok(r.iter().map(str::to_string).collect()),
            Some(Err(e)) => Err(at(line, "-", e.to_string())),
            None => Ok(Vec::new()),
        }
    };
    let mut lines = text
        .split('\n')
        .map(|l| l.trim_end_matches('\r'))
        .zip(1u64..)
        .filter(|(l, _)| !l.trim().is_empty());
    let header = match lines.next() {
        Some((h, n)) => split(n, h)?,
        None => return Err(at(1, "-", "the file is empty".into())),
    };
    let names: Vec<String> = header.iter().map(|h| h.trim().to_string()).collect();
    let find = |wanted: &[&str]| {
        names
            .iter()
            .position(|n| wanted.iter().any(|w| fold(n) == *w))
    };
    let required = |wanted: &str| {
        find(&[wanted]).ok_or_else(|| {
            at(
                1,
                wanted,
                format!(
                    "the header has no '{wanted}' column (it has: {})",
                    names.join(";")
                ),
            )
        })
    };
    let id_col = required("id")?;
    let surname_col = required("sukunimi")?;
    let given_col = required("etunimi")?;
    let club_col = find(&["seura"]);
    let selo_col = find(&["selo"]);
    let selo_games_col = find(&["selopeleja", "selopelit"]);
    let pelo_col = find(&["pelo"]);
    let pelo_games_col = find(&["pelopeleja", "pelopelit"]);
    let title_col = find(&["arvo", "titteli"]);
    let fide_col = find(&["fideid", "fide"]);
    let born_col = find(&["syntynyt", "syntymaaika"]);
    let sex_col = find(&["sukupuoli"]);
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
        let (surname, given) = (cell(Some(surname_col)), cell(Some(given_col)));
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
        rows.push(SeloRow {
            line,
            id: id.to_string(),
            name: if given.is_empty() {
                surname.to_string()
            } else {
                format!("{surname}, {given}")
            },
            club: club_col.map(|c| cell(Some(c)).to_string()),
            selo: figures(selo_col, selo_games_col)?,
            pelo: figures(pelo_col, pelo_games_col)?,
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
            let rows = parse(&bytes).expect("reads");
            assert_eq!(rows.len(), 2);
            assert_eq!(rows[0].name, "Mäkelä, Eero");
            assert_eq!(rows[0].club.as_deref(), Some("HSK"));
            assert_eq!(
                rows[0].selo,
                Some(Figures {
                    rating: 1850,
                    games: 120
                })
            );
            assert_eq!(rows[0].pelo, None);
            assert_eq!(rows[1].name, "Ek");
            assert_eq!(rows[1].pelo.map(|f| f.games), Some(3));
            assert_eq!(rows[1].line, 4);
        }
    }

    #[test]
    fn bad_cells_name_line_and_column() {
        let e = parse(b"Id;Sukunimi;Etunimi;Selo\n1;A;B;18x0\n").expect_err("refused");
        assert_eq!((e.line, e.column.as_str()), (2, "Selo"));
        let e = parse(b"Id;Sukunimi;Etunimi;Selo\n1;A;B;99999\n").expect_err("refused");
        assert!(e.message.contains("plausible"), "{e}");
        let e = parse(b"Nimi;Selo\nA;1800\n").expect_err("refused");
        assert!(e.message.contains("no 'id' column"), "{e}");
        let e = parse(b"Id;Sukunimi;Etunimi\n;A;B\n").expect_err("refused");
        assert_eq!(e.column, "Id");
        assert!(parse(b"").is_err());
    }
}
