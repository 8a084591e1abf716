//! Reading FIDE's Tournament Report File (TRF16, with TRF26 and the common extensions) as the
//! arbiters' programs write it: UTF-8 or Latin-1, CRLF or LF, old one-letter titles, blank
//! fields, byes written as `0000 - H`, forfeits with or without colour, mid-tournament files,
//! team records. This module only reads the file into its records, keeping every line it does
//! not interpret; matching players and turning the file into events is the importer's job.
//!
//! Player records (`001`) are read by the fixed columns of TRF16.

use std::collections::BTreeMap;

/// A problem in a file, with its place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct TrfError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// One round of a player record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrfRound {
    /// The opponent's start number; `None` for a bye or an unplayed round.
    pub opponent: Option<u32>,
    /// `w`, `b`, `-` or blank.
    pub colour: char,
    /// The result code as written (`1 0 = + - W D L H F U Z`, or blank).
    pub result: char,
}

impl TrfRound {
    /// Points in halves by TRF16's codes: 1, +, W, F and U a win; =, D and H a draw.
    pub fn halves(&self) -> u32 {
        match self.result {
            '1' | '+' | 'W' | 'w' | 'F' | 'f' | 'U' | 'u' => 2,
            '=' | 'D' | 'd' | 'H' | 'h' => 1,
            _ => 0,
        }
    }

    /// A game both players sat down to play (rated codes 1, 0, =).
    pub fn played(&self) -> bool {
        self.opponent.is_some() && matches!(self.result, '1' | '0' | '=')
    }
}

/// A player record (`001`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrfPlayer {
    pub line: usize,
    pub start_number: u32,
    pub sex: Option<char>,
    /// As written: `GM`, `IM`, … or the old one-letter codes `g`, `m`, `f`, `wf`.
    pub title: String,
    pub name: String,
    pub rating: Option<u32>,
    /// A FIDE federation code, or whatever the file keeps there (club codes).
    pub federation: String,
    /// The FIDE id field (some national files keep national ids there).
    pub fide_id: Option<u64>,
    /// The birth date field as written (`1969.12.06`, `1981`, `1966/02/06`, …).
    pub born: String,
    /// The points column, in halves.
    pub points: Option<u32>,
    pub rank: Option<u32>,
    pub rounds: Vec<TrfRound>,
}

impl TrfPlayer {
    /// Points by the round results (a blank result counts as Z, 0).
    pub fn points_from_rounds(&self) -> u32 {
        self.rounds.iter().map(TrfRound::halves).sum()
    }

    /// Rounds with no opponent and a blank result.
    pub fn blank_rounds(&self) -> usize {
        self.rounds
            .iter()
            .filter(|r| r.opponent.is_none() && r.result == ' ')
            .count()
    }

    /// What the blank rounds are worth, in halves, by the file's own points column: by TRF16
    /// nothing (Z), but some programs (the Irish Chess Union's) write requested half-point byes
    /// so, while a withdrawal's blanks stay 0. `None` when the column cannot be explained that
    /// way (or is missing).
    pub fn blank_points(&self) -> Option<u32> {
        let diff = self.points?.checked_sub(self.points_from_rounds())?;
        (diff as usize <= 2 * self.blank_rounds()).then_some(diff)
    }
}

/// A TRF26 national-rating record: the federation's code in place of `001`, then by the columns
/// of `001` the player's start number, name, his national rating where `001` has FIDE's, and
/// his national id where `001` has the FIDE id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NationalRecord {
    pub line: usize,
    pub start_number: u32,
    pub rating: Option<u32>,
    /// The national id (empty when not given).
    pub id: String,
}

/// A team record (`013`): the name and the start numbers of its members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrfTeam {
    pub name: String,
    pub members: Vec<u32>,
}

/// A whole file.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TrfFile {
    /// Header records by code (`012` name, `042` start, `122` time control, `XXR`, …); a code
    /// given twice keeps every value.
    pub headers: BTreeMap<String, Vec<String>>,
    /// The line each header record's code is first given on.
    pub header_lines: BTreeMap<String, usize>,
    pub players: Vec<TrfPlayer>,
    pub teams: Vec<TrfTeam>,
    /// TRF26 national-rating records (`NRS` …) and other lines kept as written.
    pub other: Vec<(usize, String)>,
    /// The pseudo-players the pairing programs write for a bye (`spielfrei`, `bye`, …), by
    /// start number: not players — a game against one is a bye ([`TrfFile::read_byes`]).
    pub pseudo: Vec<TrfPlayer>,
}

/// The names pairing programs give the pseudo-player a bye is paired against: Swiss-Manager
/// (`spielfrei`, `Freilos`), Vega and others (`bye`, `BYE`), French and Dutch programs
/// (`exempt`, `vrij`), compared folded to lower case without punctuation.
const BYE_NAMES: [&str; 9] = [
    "spielfrei",
    "freilos",
    "bye",
    "free",
    "exempt",
    "vrij",
    "libre",
    "pause",
    "spelfri",
];

/// Whether a player record is a pairing program's pseudo-player for byes: a name of
/// [`BYE_NAMES`], no FIDE id and no rating.
fn is_pseudo_player(p: &TrfPlayer) -> bool {
    let name: String = p
        .name
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    BYE_NAMES.contains(&name.as_str()) && p.fide_id.is_none() && p.rating.is_none()
}

impl TrfFile {
    /// Takes the pairing programs' pseudo-players for byes out of the players, and writes each
    /// round paired against one as the bye it is (its result code kept: `+` a full point).
    fn read_byes(&mut self) {
        let (pseudo, players): (Vec<TrfPlayer>, Vec<TrfPlayer>) = std::mem::take(&mut self.players)
            .into_iter()
            .partition(is_pseudo_player);
        self.players = players;
        if pseudo.is_empty() {
            return;
        }
        let numbers: Vec<u32> = pseudo.iter().map(|p| p.start_number).collect();
        for p in &mut self.players {
            for r in &mut p.rounds {
                if r.opponent.is_some_and(|o| numbers.contains(&o)) {
                    r.opponent = None;
                    r.colour = '-';
                }
            }
        }
        self.pseudo = pseudo;
    }

    /// The first value of a header record, trimmed.
    pub fn header(&self, code: &str) -> Option<&str> {
        self.headers
            .get(code)
            .and_then(|v| v.first())
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
    }

    /// The line of a header record (its first, if given more than once), for its errors; line 1
    /// when the file has none.
    pub fn header_line(&self, code: &str) -> usize {
        self.header_lines.get(code).copied().unwrap_or(1)
    }

    /// The TRF26 national-rating records of `federation` (a FIDE code, `ISL`), in file order.
    pub fn national_records(&self, federation: &str) -> Result<Vec<NationalRecord>, TrfError> {
        self.other
            .iter()
            .filter(|(_, text)| {
                text.get(..3)
                    .is_some_and(|c| c.eq_ignore_ascii_case(federation))
                    && text.get(3..4) == Some(" ")
            })
            .map(|(line, text)| {
                let chars: Vec<char> = text.chars().collect();
                let start_number =
                    number::<u32>(&chars, 5, 8, *line, "start number")?.ok_or(TrfError {
                        line: *line,
                        column: 5,
                        message: "a national-rating record needs a start number".into(),
                    })?;
                Ok(NationalRecord {
                    line: *line,
                    start_number,
                    rating: number::<u32>(&chars, 49, 52, *line, "national rating")?
                        .filter(|&r| r > 0),
                    id: field(&chars, 58, 68),
                })
            })
            .collect()
    }

    /// The highest round any player has something in.
    pub fn rounds(&self) -> usize {
        self.players
            .iter()
            .map(|p| {
                p.rounds
                    .iter()
                    .rposition(|r| r.opponent.is_some() || r.result != ' ')
                    .map_or(0, |i| i + 1)
            })
            .max()
            .unwrap_or(0)
    }
}

/// Decodes a file's bytes, line by line: a line in UTF-8 when it is valid UTF-8, in Latin-1
/// otherwise (each byte one character). A leading byte-order mark is dropped.
pub fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if let Ok(text) = std::str::from_utf8(bytes) {
        return text.to_string();
    }
    // Line by line: a file put together from two programs' output can mix the two, and each
    // line is read as what it is.
    let mut text = String::with_capacity(bytes.len() + bytes.len() / 8);
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            text.push('\n');
        }
        match std::str::from_utf8(line) {
            Ok(utf8) => text.push_str(utf8),
            Err(_) => text.extend(line.iter().map(|&b| char::from(b))),
        }
    }
    text
}

/// Columns `from..=to` (1-based, as TRF16 numbers them) of a line, trimmed; empty past its end.
fn field(chars: &[char], from: usize, to: usize) -> String {
    let end = to.min(chars.len());
    if from > end {
        return String::new();
    }
    chars[from - 1..end]
        .iter()
        .collect::<String>()
        .trim()
        .to_string()
}

fn number<T: std::str::FromStr>(
    chars: &[char],
    from: usize,
    to: usize,
    line: usize,
    what: &str,
) -> Result<Option<T>, TrfError> {
    let text = field(chars, from, to);
    if text.is_empty() {
        return Ok(None);
    }
    text.parse::<T>().map(Some).map_err(|_| TrfError {
        line,
        column: from,
        message: format!("{what} '{text}' is not a number"),
    })
}

fn player(line: usize, chars: &[char]) -> Result<TrfPlayer, TrfError> {
    let start_number = number::<u32>(chars, 5, 8, line, "start number")?.ok_or(TrfError {
        line,
        column: 5,
        message: "a player record needs a start number".into(),
    })?;
    let points = {
        let text = field(chars, 81, 84).replace(',', ".");
        if text.is_empty() {
            None
        } else {
            let value: f64 = text.parse().map_err(|_| TrfError {
                line,
                column: 81,
                message: format!("points '{text}' are not a number"),
            })?;
            let halves = value * 2.0;
            if !(0.0..=2000.0).contains(&halves) || halves.fract() != 0.0 {
                return Err(TrfError {
                    line,
                    column: 81,
                    message: format!("points '{text}' are not whole or half points"),
                });
            }
            Some(halves as u32)
        }
    };
    let fide_id = number::<u64>(chars, 58, 68, line, "FIDE id")?.filter(|&id| id > 0);
    let mut rounds = Vec::new();
    let mut at = 92;
    while at <= chars.len() {
        let opponent = field(chars, at, at + 3);
        let colour = chars.get(at + 4).copied().unwrap_or(' ');
        let result = chars.get(at + 6).copied().unwrap_or(' ');
        let opponent = match opponent.as_str() {
            "" | "0000" | "0" => None,
            text => Some(text.parse::<u32>().map_err(|_| TrfError {
                line,
                column: at,
                message: format!("opponent '{text}' is not a start number"),
            })?),
        };
        if !matches!(colour, 'w' | 'b' | 'W' | 'B' | '-' | ' ') {
            return Err(TrfError {
                line,
                column: at + 4,
                message: format!("colour '{colour}' is not w, b or -"),
            });
        }
        if !"10=+-WDLHFUZwdlhfuz ".contains(result) {
            return Err(TrfError {
                line,
                column: at + 6,
                message: format!("result '{result}' is not a TRF result code"),
            });
        }
        rounds.push(TrfRound {
            opponent,
            colour: colour.to_ascii_lowercase(),
            result,
        });
        at += 10;
    }
    while rounds
        .last()
        .is_some_and(|r| r.opponent.is_none() && r.result == ' ' && r.colour == ' ')
    {
        rounds.pop();
    }
    if rounds.len() > crate::model::MAX_ROUND as usize {
        return Err(TrfError {
            line,
            column: 92,
            message: format!(
                "{} rounds: an event has at most {}",
                rounds.len(),
                crate::model::MAX_ROUND
            ),
        });
    }
    let rating = number::<u32>(chars, 49, 52, line, "rating")?.filter(|&r| r > 0);
    if let Some(r) = rating.filter(|&r| !crate::model::RATINGS.contains(&i64::from(r))) {
        return Err(TrfError {
            line,
            column: 49,
            message: format!(
                "rating {r} is outside {}–{}",
                crate::model::RATINGS.start(),
                crate::model::RATINGS.end()
            ),
        });
    }
    Ok(TrfPlayer {
        line,
        start_number,
        sex: chars.get(9).copied().filter(|c| !c.is_whitespace()),
        title: field(chars, 11, 13),
        name: field(chars, 15, 47),
        rating,
        federation: field(chars, 54, 56),
        fide_id,
        born: field(chars, 70, 79),
        points,
        rank: number::<u32>(chars, 86, 89, line, "rank")?,
        rounds,
    })
}

fn team(line: usize, chars: &[char]) -> Result<TrfTeam, TrfError> {
    let mut members = Vec::new();
    let mut at = 37;
    while at <= chars.len() {
        if let Some(n) = number::<u32>(chars, at, at + 4, line, "team member")? {
            members.push(n);
        }
        at += 5;
    }
    Ok(TrfTeam {
        name: field(chars, 5, 36),
        members,
    })
}

/// Reads a TRF file. Never panics; a malformed record is an error naming its line and column.
pub fn parse(bytes: &[u8]) -> Result<TrfFile, TrfError> {
    let text = decode(bytes);
    let mut file = TrfFile::default();
    let mut by_number = std::collections::HashMap::new();
    let mut by_fide = std::collections::HashMap::new();
    for (i, raw) in text.split('\n').enumerate() {
        let line = i + 1;
        let content = raw.trim_end_matches('\r');
        if content.trim().is_empty() || content.starts_with("###") {
            continue;
        }
        let chars: Vec<char> = content.chars().collect();
        // A record is a three-character code and a blank (or nothing more): anything else —
        // a column ruler such as "0123456789…" — is a comment, whatever it starts with.
        let code: String = chars.iter().take(3).collect();
        let is_record = chars.len() == 3 || chars.get(3) == Some(&' ');
        if !is_record {
            file.other.push((line, content.to_string()));
            continue;
        }
        match code.as_str() {
            "001" => {
                let player = player(line, &chars)?;
                // Each start number and FIDE id once: the index of the record that gave it.
                let at = file.players.len();
                if let Some(&first) = by_number.get(&player.start_number) {
                    let first: &TrfPlayer = &file.players[first];
                    return Err(TrfError {
                        line,
                        column: 5,
                        message: format!(
                            "start number {} is given twice (first on line {}): two players cannot share one",
                            player.start_number, first.line
                        ),
                    });
                }
                if let Some(&first) = player.fide_id.and_then(|f| by_fide.get(&f)) {
                    let first: &TrfPlayer = &file.players[first];
                    return Err(TrfError {
                        line,
                        column: 58,
                        message: format!(
                            "FIDE id {} is given twice (first on line {}, start number {})",
                            player.fide_id.unwrap_or_default(),
                            first.line,
                            first.start_number
                        ),
                    });
                }
                by_number.insert(player.start_number, at);
                if let Some(f) = player.fide_id {
                    by_fide.insert(f, at);
                }
                file.players.push(player);
            }
            "013" => file.teams.push(team(line, &chars)?),
            c if c.chars().all(|ch| ch.is_ascii_digit()) || c.starts_with("XX") => {
                let value: String = chars.iter().skip(4).collect();
                file.headers.entry(c.to_string()).or_default().push(value);
                file.header_lines.entry(c.to_string()).or_insert(line);
            }
            _ => file.other.push((line, content.to_string())),
        }
    }
    file.read_byes();
    if file.players.is_empty() {
        return Err(TrfError {
            line: 1,
            column: 1,
            message: "no player records (001): is this a TRF file?".into(),
        });
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "001    1    g Vasquez,Rodrigo                   2558 CHI     3400042 1969.12.06  6.0    4   141 w 1    78 b 1    42 w =  0000 - H";

    #[test]
    fn a_pairing_programs_pseudo_player_is_a_bye_not_a_player() {
        // Vasquez is paired against record 2, "spielfrei", in round 2: a full-point bye.
        let one = LINE.replacen("   78 b 1", "    2 w +", 1);
        let pseudo = "001    2      spielfrei                                                          1.0    9     1 b -                                                                          ";
        let f = parse(format!("{one}\n{pseudo}\n").as_bytes()).expect("parse");
        assert_eq!(f.players.len(), 1, "spielfrei is no player");
        assert_eq!(f.pseudo.len(), 1);
        assert_eq!(f.pseudo[0].start_number, 2);
        assert_eq!(
            f.players[0].rounds[1],
            TrfRound {
                opponent: None,
                colour: '-',
                result: '+'
            }
        );
        assert_eq!(f.players[0].rounds[1].halves(), 2);
        // A player of that name with a FIDE id or a rating is a player.
        let real = LINE.replacen("Vasquez,Rodrigo", "Bye,Rodrigo    ", 1);
        let named = LINE
            .replacen("001    1", "001    2", 1)
            .replacen("Vasquez,Rodrigo", "Bye            ", 1)
            .replacen("3400042", "3400043", 1);
        let f = parse(format!("{real}\n{named}\n").as_bytes()).expect("parse");
        assert_eq!(f.players.len(), 2);
    }

    #[test]
    fn a_player_line_by_its_columns() {
        let f = parse(LINE.as_bytes()).expect("parse");
        let p = &f.players[0];
        assert_eq!(
            (p.start_number, p.title.as_str(), p.name.as_str()),
            (1, "g", "Vasquez,Rodrigo")
        );
        assert_eq!(
            (p.rating, p.federation.as_str(), p.fide_id),
            (Some(2558), "CHI", Some(3_400_042))
        );
        assert_eq!(
            (p.born.as_str(), p.points, p.rank),
            ("1969.12.06", Some(12), Some(4))
        );
        assert_eq!(p.rounds.len(), 4);
        assert_eq!(
            p.rounds[0],
            TrfRound {
                opponent: Some(141),
                colour: 'w',
                result: '1'
            }
        );
        assert_eq!(
            p.rounds[3],
            TrfRound {
                opponent: None,
                colour: '-',
                result: 'H'
            }
        );
        assert_eq!(p.points_from_rounds(), 2 + 2 + 1 + 1);
    }

    #[test]
    fn national_rating_records_by_the_columns_of_001() {
        let record = |fed: &str, rating: u32, id: &str| {
            format!(
                "{fed:<3} {:>4} {:>4} {:<33} {rating:>4} {:<3} {id:>11} {:<10}",
                1, "", "Vasquez,Rodrigo", "", "1969/12/06"
            )
        };
        let text = format!(
            "{LINE}\n{}\n{}\n",
            record("ISL", 2231, "0101692049"),
            record("FIN", 1999, "").trim_end()
        );
        let f = parse(text.as_bytes()).expect("parse");
        let isl = f.national_records("ISL").expect("records");
        assert_eq!(
            isl,
            vec![NationalRecord {
                line: 2,
                start_number: 1,
                rating: Some(2231),
                id: "0101692049".into()
            }]
        );
        assert_eq!(f.national_records("fin").expect("records")[0].id, "");
        assert!(f.national_records("TUR").expect("records").is_empty());
        let bad = text.replace("ISL    1", "ISL    x");
        let e = parse(bad.as_bytes())
            .expect("parse")
            .national_records("ISL")
            .expect_err("bad start number");
        assert_eq!((e.line, e.column), (2, 5));
    }

    #[test]
    fn latin1_and_crlf() {
        let mut bytes = b"012 Junior \xe9v\xe9nement\r\n".to_vec();
        bytes.extend_from_slice(LINE.as_bytes());
        bytes.extend_from_slice(b"\r\n");
        let f = parse(&bytes).expect("parse");
        assert_eq!(f.header("012"), Some("Junior événement"));
        assert_eq!(f.players.len(), 1);
    }

    #[test]
    fn a_column_ruler_is_not_a_record() {
        let text = format!("012 Cup\n0123456789012345678901234567890\n{LINE}\n");
        let f = parse(text.as_bytes()).expect("parse");
        assert_eq!(f.headers["012"], vec!["Cup".to_string()]);
        assert_eq!(f.other.len(), 1);
    }

    #[test]
    fn malformed_fields_are_named_with_line_and_column() {
        let bad = LINE.replace("2558", "25x8");
        let e = parse(bad.as_bytes()).expect_err("bad rating");
        assert_eq!((e.line, e.column), (1, 49));
        let bad = LINE.replace(" 42 w =", " 42 w ?");
        let e = parse(bad.as_bytes()).expect_err("bad result");
        assert!(e.message.contains("result '?'"), "{e}");
        assert!(parse(b"hello").is_err());
    }

    #[test]
    fn records_the_reader_cannot_keep_are_refused_with_their_line() {
        // Two players under one start number would be two records with one id.
        let second = LINE
            .replacen("Vasquez,Rodrigo", "Other,Player   ", 1)
            .replacen("3400042", "3400043", 1);
        let e = parse(format!("{LINE}\n{second}\n").as_bytes()).expect_err("start number twice");
        assert_eq!((e.line, e.column), (2, 5));
        assert!(
            e.message
                .contains("start number 1 is given twice (first on line 1)"),
            "{e}"
        );
        // One FIDE id for two start numbers.
        let twin = LINE.replacen("001    1", "001    2", 1);
        let e = parse(format!("{LINE}\n{twin}\n").as_bytes()).expect_err("FIDE id twice");
        assert_eq!((e.line, e.column), (2, 58));
        // A rating no list publishes; 4000 is the last one read.
        let e = parse(LINE.replace("2558", "9999").as_bytes()).expect_err("rating 9999");
        assert_eq!((e.line, e.column), (1, 49));
        assert!(e.message.contains("rating 9999 is outside 0–4000"), "{e}");
        assert!(parse(LINE.replace("2558", "4000").as_bytes()).is_ok());
        // More rounds than any event has.
        let rounds = "   1 w 1  ".repeat(crate::model::MAX_ROUND as usize + 1);
        let long = format!("{}{rounds}", &LINE[..91]);
        let e = parse(long.as_bytes()).expect_err("too many rounds");
        assert!(e.message.contains("at most 999"), "{e}");
    }

    #[test]
    fn a_file_mixing_utf8_and_latin1_lines_reads_each_line_as_written() {
        let mut bytes = "012 Skákþing Íslands\n".as_bytes().to_vec();
        bytes.extend_from_slice(b"022 J\xe4rvenp\xe4\n");
        bytes.extend_from_slice(LINE.as_bytes());
        let f = parse(&bytes).expect("parse");
        assert_eq!(f.header("012"), Some("Skákþing Íslands"));
        assert_eq!(f.header("022"), Some("Järvenpä"));
    }
}
