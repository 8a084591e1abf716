//! Reading FIDE's rating lists as FIDE publishes them: the combined TXT (`players_list_foa.txt`,
//! and the legacy `players_list.txt` without the FOA column), the per-list TXT files
//! (`standard_rating_list.txt` …), the same lists as XML, and any of them zipped.
//!
//! Fixed-width lists are read by the columns their header line names (FIDE has moved columns
//! before); a file without a header line is read by the published layouts, chosen by the line
//! width. Unrated fields are blank in older lists and `0` in newer ones; both read as unrated.
//! Everything streams: a record at a time, never the whole list in memory.

use std::borrow::Cow;
use std::io::{BufRead, Read, Seek};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use chrono::NaiveDate;

use crate::model::{FideEntry, Rating, Sex};

/// A problem in a list, with its place (`column` 0 when the place is a whole record).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: {message}")]
pub struct ListError {
    pub place: String,
    pub message: String,
}

fn at_line(line: u64, column: usize, message: impl Into<String>) -> ListError {
    ListError {
        place: format!("line {line}, column {}", column + 1),
        message: message.into(),
    }
}

pub use crate::model::FideKind as Kind;

/// One list's figures for a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListRating {
    pub rating: Rating,
    /// Rated games in the list's period.
    pub games: u32,
    /// The development coefficient.
    pub k: Option<u32>,
}

/// A player's line (or element) of a FIDE list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FideRecord {
    pub fide_id: u64,
    /// `Surname, Given names` as FIDE writes it (transliterated; a comma is not guaranteed).
    pub name: String,
    /// A FIDE federation code; `FID` for players registered with FIDE itself.
    pub federation: String,
    pub sex: Option<Sex>,
    pub title: String,
    pub women_title: String,
    pub other_titles: String,
    pub foa_title: String,
    pub standard: Option<ListRating>,
    pub rapid: Option<ListRating>,
    pub blitz: Option<ListRating>,
    pub birth_year: Option<u16>,
    pub inactive: bool,
}

impl FideRecord {
    pub fn rating(&self, kind: Kind) -> Option<ListRating> {
        match kind {
            Kind::Standard => self.standard,
            Kind::Rapid => self.rapid,
            Kind::Blitz => self.blitz,
        }
    }

    fn rating_mut(&mut self, kind: Kind) -> &mut Option<ListRating> {
        match kind {
            Kind::Standard => &mut self.standard,
            Kind::Rapid => &mut self.rapid,
            Kind::Blitz => &mut self.blitz,
        }
    }

    /// The record's ratings as an entry of a player's FIDE history.
    pub fn entry(&self, list_date: NaiveDate) -> FideEntry {
        FideEntry {
            list_date,
            standard: self.standard.map(|r| r.rating),
            rapid: self.rapid.map(|r| r.rating),
            blitz: self.blitz.map(|r| r.rating),
        }
    }
}

/// The longest line read: a list's lines are about 160 characters, so a longer one (or a file
/// without line ends, such as /dev/zero) is refused rather than read into memory.
const MAX_LINE: u64 = 4096;

/// Which field a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Id,
    Name,
    Federation,
    Sex,
    Title,
    WomenTitle,
    OtherTitles,
    Foa,
    Rating(Option<Kind>),
    Games(Option<Kind>),
    K(Option<Kind>),
    Born,
    Flag,
}

/// The columns of a fixed-width list, and what the header says of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    columns: Vec<(Field, Range<usize>)>,
    /// The list a single-list file holds (`None`: a combined list).
    pub single: Option<Kind>,
    /// The list's month, from a header token such as `OCT26`.
    pub month: Option<NaiveDate>,
}

/// The header token of a single list's rating column: a month and a two-digit year (`OCT26`,
/// `Mar11`).
fn month_token(token: &str) -> Option<NaiveDate> {
    if token.len() != 5 || !token.is_ascii() {
        return None;
    }
    let month = match token[..3].to_ascii_lowercase().as_str() {
        "jan" => 1,
        "feb" => 2,
        "mar" => 3,
        "apr" => 4,
        "may" => 5,
        "jun" => 6,
        "jul" => 7,
        "aug" => 8,
        "sep" => 9,
        "oct" => 10,
        "nov" => 11,
        "dec" => 12,
        _ => return None,
    };
    let yy: i32 = token[3..].parse().ok()?;
    let year = if yy < 70 { 2000 + yy } else { 1900 + yy };
    NaiveDate::from_ymd_opt(year, month, 1)
}

/// The month a file name speaks of, as FIDE names past lists (`standard_sep26frl.zip`).
pub fn month_of_file_name(name: &str) -> Option<NaiveDate> {
    let name = name.to_ascii_lowercase();
    let at = name.find("frl")?;
    let start = at.checked_sub(5)?;
    name.get(start..at).and_then(month_token)
}

impl Layout {
    /// The layout a header line names, or `None` if the line is not a header.
    pub fn from_header(line: &str, single_hint: Option<Kind>) -> Option<Layout> {
        let line = line.trim_end_matches(['\r', '\n']);
        if !line.trim_start().to_ascii_lowercase().starts_with("id") {
            return None;
        }
        let mut tokens: Vec<(usize, &str)> = Vec::new();
        let mut start = None;
        for (i, c) in line
            .char_indices()
            .chain(std::iter::once((line.len(), ' ')))
        {
            match (c == ' ', start) {
                (false, None) => start = Some(i),
                (true, Some(s)) => {
                    tokens.push((s, &line[s..i]));
                    start = None;
                }
                _ => {}
            }
        }
        let mut month = None;
        let mut single = None;
        let mut fields: Vec<(Field, usize)> = Vec::new();
        for (i, &(at, token)) in tokens.iter().enumerate() {
            let lower = token.to_ascii_lowercase();
            let field = match lower.as_str() {
                "id" if i == 0 => Field::Id,
                "name" => Field::Name,
                "fed" => Field::Federation,
                "sex" => Field::Sex,
                "tit" | "titl" => Field::Title,
                "wtit" => Field::WomenTitle,
                "otit" => Field::OtherTitles,
                "foa" => Field::Foa,
                "srtng" => Field::Rating(Some(Kind::Standard)),
                "sgm" => Field::Games(Some(Kind::Standard)),
                "sk" => Field::K(Some(Kind::Standard)),
                "rrtng" => Field::Rating(Some(Kind::Rapid)),
                "rgm" => Field::Games(Some(Kind::Rapid)),
                "rk" => Field::K(Some(Kind::Rapid)),
                "brtng" => Field::Rating(Some(Kind::Blitz)),
                "bgm" => Field::Games(Some(Kind::Blitz)),
                "bk" => Field::K(Some(Kind::Blitz)),
                "gms" | "games" => Field::Games(None),
                "k" => Field::K(None),
                "b-day" | "born" | "bday" => Field::Born,
                "flag" => Field::Flag,
                other => match month_token(other) {
                    Some(m) => {
                        month = Some(m);
                        single = Some(single_hint.unwrap_or(Kind::Standard));
                        Field::Rating(None)
                    }
                    // Words of a heading (`Number` of `ID Number`) belong to the column before.
                    None => continue,
                },
            };
            fields.push((field, at));
        }
        if fields.first().map(|f| f.0) != Some(Field::Id)
            || !fields.iter().any(|f| f.0 == Field::Name)
        {
            return None;
        }
        if single.is_none() && !fields.iter().any(|f| matches!(f.0, Field::Rating(Some(_)))) {
            return None;
        }
        let mut columns = Vec::with_capacity(fields.len());
        for (i, &(field, at)) in fields.iter().enumerate() {
            let end = fields.get(i + 1).map_or(usize::MAX, |f| f.1);
            // The ID column starts at the line's start whatever the heading's indent.
            let at = if field == Field::Id { 0 } else { at };
            columns.push((field, at..end));
        }
        Some(Layout {
            columns,
            single,
            month,
        })
    }

    /// The combined list with the FOA column (162 characters a line, since 2016 or so).
    pub fn combined_foa() -> Layout {
        Self::from_header(
            "ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag",
            None,
        )
        .expect("the published header")
    }

    /// The legacy combined list without FOA (158 characters a line).
    pub fn combined_legacy() -> Layout {
        Self::from_header(
            "ID Number      Name                                                         Fed Sex Tit  WTit OTit           SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag",
            None,
        )
        .expect("the published header")
    }

    /// A single list (136 characters a line).
    pub fn single_list(kind: Kind) -> Layout {
        let mut layout = Self::from_header(
            "ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA JAN00 Gms K  B-day Flag",
            Some(kind),
        )
        .expect("the published header");
        layout.month = None;
        layout
    }

    /// The published layout for a list without a header line, by its line width.
    pub fn by_width(width: usize, single_hint: Option<Kind>) -> Layout {
        match (width, single_hint) {
            (0..=140, hint) => Self::single_list(hint.unwrap_or(Kind::Standard)),
            (141..=159, _) => Self::combined_legacy(),
            _ => Self::combined_foa(),
        }
    }

    /// Reads one line of the list.
    pub fn read_line(&self, text: &str, line: u64) -> Result<FideRecord, ListError> {
        // A record reaches at least its federation: a shorter line is a cut one, not a player.
        let needed = self
            .columns
            .iter()
            .find(|(f, _)| *f == Field::Federation)
            .map_or(0, |(_, r)| r.start + 1);
        // Columns count characters; an ASCII line (every real list) is sliced as it is.
        let ascii = text.is_ascii();
        let length = if ascii {
            text.len()
        } else {
            text.chars().count()
        };
        if length < needed {
            return Err(at_line(
                line,
                length,
                format!(
                    "the line ends after {length} characters, before the federation column ({needed}): not a whole record"
                ),
            ));
        }
        // The byte at which a character column starts (the line's end past its last).
        let byte_at = |column: usize| -> usize {
            if ascii {
                column.min(text.len())
            } else {
                text.char_indices()
                    .nth(column)
                    .map_or(text.len(), |(b, _)| b)
            }
        };
        let mut fields: Vec<(Field, usize, Cow<'_, str>)> = self
            .columns
            .iter()
            .map(|(f, r)| {
                let start = r.start.min(length);
                (
                    *f,
                    start,
                    Cow::Borrowed(&text[byte_at(start)..byte_at(r.end)]),
                )
            })
            .collect();
        // Other titles sometimes run on into the FOA column: `FI,FA,NAIO` … then FOA has no
        // room of its own, and what stands there belongs to the titles.
        if let Some(foa) = fields.iter().position(|f| f.0 == Field::Foa)
            && foa > 0
            && fields[foa - 1].0 == Field::OtherTitles
            && !fields[foa - 1].2.ends_with(' ')
            && !fields[foa - 1].2.trim().is_empty()
            && !fields[foa].2.starts_with(' ')
        {
            let tail = std::mem::take(&mut fields[foa].2);
            let (run_on, rest) = tail.split_once(' ').unwrap_or((&tail, ""));
            fields[foa - 1].2.to_mut().push_str(run_on);
            fields[foa].2 = Cow::Owned(rest.to_string());
        }
        let mut record = FideRecord::default();
        for (field, at, value) in fields {
            let v = value.trim();
            let number = |what: &str| -> Result<Option<u32>, ListError> {
                if v.is_empty() {
                    return Ok(None);
                }
                v.parse::<u32>().map(Some).map_err(|_| {
                    at_line(line, at, format!("the {what} '{v}' is not a whole number"))
                })
            };
            let kind = |k: Option<Kind>| k.or(self.single).unwrap_or(Kind::Standard);
            match field {
                Field::Id => {
                    record.fide_id = match number("FIDE id")? {
                        Some(id) => u64::from(id),
                        None => return Err(at_line(line, at, "the FIDE id is missing")),
                    }
                }
                Field::Name => record.name = v.to_string(),
                Field::Federation => record.federation = v.to_string(),
                Field::Sex => {
                    record.sex = match v {
                        "M" | "m" => Some(Sex::Male),
                        "F" | "f" | "W" | "w" => Some(Sex::Female),
                        "" => None,
                        other => {
                            return Err(at_line(
                                line,
                                at,
                                format!("the sex '{other}' is not M or F"),
                            ));
                        }
                    }
                }
                Field::Title => record.title = v.to_string(),
                Field::WomenTitle => record.women_title = v.to_string(),
                Field::OtherTitles => record.other_titles = v.to_string(),
                Field::Foa => record.foa_title = v.to_string(),
                Field::Rating(k) => {
                    // A rating of 0 is FIDE's way of writing "unrated" in newer lists.
                    if let Some(r) = number("rating")?.filter(|&r| r > 0) {
                        *record.rating_mut(kind(k)) = Some(ListRating {
                            rating: r as Rating,
                            games: 0,
                            k: None,
                        });
                    }
                }
                Field::Games(k) => {
                    let games = number("number of games")?.unwrap_or(0);
                    if let Some(r) = record.rating_mut(kind(k)) {
                        r.games = games;
                    }
                }
                Field::K(k) => {
                    let factor = number("K")?.filter(|&k| k > 0);
                    if let Some(r) = record.rating_mut(kind(k)) {
                        r.k = factor;
                    }
                }
                Field::Born => {
                    record.birth_year = number("birth year")?
                        .filter(|&y| y > 0)
                        .and_then(|y| u16::try_from(y).ok());
                }
                Field::Flag => record.inactive = v.contains('i'),
            }
        }
        Ok(record)
    }
}

/// Reads a fixed-width list a line at a time.
pub struct TxtList<R: BufRead> {
    input: R,
    layout: Option<Layout>,
    single_hint: Option<Kind>,
    line: u64,
    buf: Vec<u8>,
}

impl<R: BufRead> TxtList<R> {
    pub fn new(input: R, single_hint: Option<Kind>) -> Self {
        Self {
            input,
            layout: None,
            single_hint,
            line: 0,
            buf: Vec::with_capacity(256),
        }
    }

    /// The layout in use (known after the first line).
    pub fn layout(&self) -> Option<&Layout> {
        self.layout.as_ref()
    }

    /// Reads up to the first record: the header line, if the file has one.
    pub fn read_header(&mut self) -> Result<Option<FideRecord>, ListError> {
        self.next_record()
    }

    fn next_line(&mut self) -> Result<Option<String>, ListError> {
        loop {
            self.buf.clear();
            let n = (&mut self.input)
                .take(MAX_LINE)
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| at_line(self.line + 1, 0, format!("cannot be read: {e}")))?;
            if n == 0 {
                return Ok(None);
            }
            if n as u64 == MAX_LINE && self.buf.last() != Some(&b'\n') {
                return Err(at_line(
                    self.line + 1,
                    0,
                    format!(
                        "a line longer than {MAX_LINE} bytes: not a FIDE rating list (its lines are under 200)"
                    ),
                ));
            }
            self.line += 1;
            while self.buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                self.buf.pop();
            }
            if self.buf.iter().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            // FIDE writes ASCII; a list saved by another program may be UTF-8 or Latin-1.
            let text = match std::str::from_utf8(&self.buf) {
                Ok(s) => s.to_string(),
                Err(_) => self.buf.iter().map(|&b| char::from(b)).collect(),
            };
            return Ok(Some(text));
        }
    }

    fn next_record(&mut self) -> Result<Option<FideRecord>, ListError> {
        let Some(text) = self.next_line()? else {
            return Ok(None);
        };
        if self.layout.is_none() {
            if let Some(layout) = Layout::from_header(&text, self.single_hint) {
                if layout.single.is_some() && self.single_hint.is_none() {
                    return Err(at_line(
                        self.line,
                        0,
                        "a single rating list whose name does not say standard, rapid or blitz: give the list (--list)",
                    ));
                }
                self.layout = Some(layout);
                return self.next_record();
            }
            if text.trim_start().to_ascii_lowercase().starts_with("id") {
                return Err(at_line(
                    self.line,
                    0,
                    "a header line without the columns of a FIDE rating list (ID, Name and ratings)",
                ));
            }
            let layout = Layout::by_width(text.chars().count(), self.single_hint);
            if layout.single.is_some() && self.single_hint.is_none() {
                return Err(at_line(
                    self.line,
                    0,
                    "a single rating list without a header line, whose name does not say standard, rapid or blitz: give the list (--list)",
                ));
            }
            self.layout = Some(layout);
        }
        let layout = self.layout.as_ref().expect("set above");
        layout.read_line(&text, self.line).map(Some)
    }
}

impl<R: BufRead> Iterator for TxtList<R> {
    type Item = Result<FideRecord, ListError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Reads an XML list (`<playerslist><player>…</player>…`) a player at a time.
pub struct XmlList<R: BufRead> {
    reader: quick_xml::Reader<R>,
    single: Kind,
    /// Rapid or blitz elements were seen: a combined list.
    combined: bool,
    buf: Vec<u8>,
    done: bool,
    /// Where the root element stands: `Some(false)` opened, `Some(true)` closed.
    root: Option<bool>,
}

impl<R: BufRead> XmlList<R> {
    /// `single`: the list whose `rating` a per-list file holds (a combined file has
    /// `rapid_rating` and `blitz_rating` beside `rating`, the standard one).
    pub fn new(input: R, single: Option<Kind>) -> Self {
        Self {
            reader: quick_xml::Reader::from_reader(input),
            single: single.unwrap_or(Kind::Standard),
            combined: false,
            buf: Vec::new(),
            done: false,
            root: None,
        }
    }

    fn error(&self, message: impl Into<String>) -> ListError {
        ListError {
            place: format!("byte {}", self.reader.buffer_position()),
            message: message.into(),
        }
    }

    /// A field's text so far is within [`MAX_FIELD`] (a 200 MB name is refused, not kept).
    fn field_fits(&self, element: Option<&str>, text: &str) -> Result<(), ListError> {
        if text.len() > MAX_FIELD {
            return Err(self.error(format!(
                "<{}> is longer than {MAX_FIELD} bytes: not a list's field",
                element.unwrap_or_default()
            )));
        }
        Ok(())
    }

    fn next_player(&mut self) -> Result<Option<FideRecord>, ListError> {
        use quick_xml::events::Event as X;
        let mut record: Option<FideRecord> = None;
        let mut element: Option<String> = None;
        let mut text = String::new();
        let mut saw_id = false;
        let mut buf = std::mem::take(&mut self.buf);
        loop {
            buf.clear();
            let event = self
                .reader
                .read_event_into(&mut buf)
                .map_err(|e| self.error(format!("not well-formed XML: {e}")))?;
            match event {
                X::Eof => {
                    if record.is_some() {
                        return Err(self.error("the file ends inside a <player> element"));
                    }
                    // A list cut short between two players is refused, not read as the
                    // whole list (its missing players would keep last month's ratings).
                    if self.root == Some(false) {
                        return Err(self
                            .error("the file ends before </playerslist>: the list is cut short"));
                    }
                    return Ok(None);
                }
                X::Start(s) => {
                    let name = String::from_utf8_lossy(s.local_name().as_ref()).to_lowercase();
                    if name == "playerslist" && record.is_none() {
                        self.root = Some(false);
                    } else if name == "player" {
                        if record.is_some() {
                            return Err(self.error("a <player> inside a <player>"));
                        }
                        record = Some(FideRecord::default());
                    } else if record.is_some() {
                        element = Some(name);
                        text.clear();
                    }
                }
                X::Text(t) if element.is_some() => {
                    let decoded = t
                        .decode()
                        .map_err(|e| self.error(format!("bad text: {e}")))?;
                    text.push_str(&decoded);
                    self.field_fits(element.as_deref(), &text)?;
                }
                X::GeneralRef(r) if element.is_some() => {
                    let name = String::from_utf8_lossy(r.as_ref()).into_owned();
                    let resolved = match name.as_str() {
                        "amp" => "&".to_string(),
                        "lt" => "<".to_string(),
                        "gt" => ">".to_string(),
                        "quot" => "\"".to_string(),
                        "apos" => "'".to_string(),
                        other => match r.resolve_char_ref() {
                            Ok(Some(c)) => c.to_string(),
                            _ => return Err(self.error(format!("unknown entity &{other};"))),
                        },
                    };
                    text.push_str(&resolved);
                    self.field_fits(element.as_deref(), &text)?;
                }
                X::Empty(s) => {
                    let name = String::from_utf8_lossy(s.local_name().as_ref()).to_lowercase();
                    if name == "player" {
                        return Err(self.error("an empty <player/> element"));
                    }
                }
                X::End(e) => {
                    let name = String::from_utf8_lossy(e.local_name().as_ref()).to_lowercase();
                    if name == "playerslist" && record.is_none() {
                        self.root = Some(true);
                    } else if name == "player" {
                        let Some(r) = record.take() else {
                            return Err(self.error("</player> without <player>"));
                        };
                        if !saw_id {
                            return Err(self.error("a <player> without <fideid>"));
                        }
                        return Ok(Some(r));
                    }
                    if let (Some(rec), Some(el)) = (record.as_mut(), element.take()) {
                        if el == "fideid" {
                            saw_id = true;
                        }
                        if el.starts_with("rapid_") || el.starts_with("blitz_") {
                            self.combined = true;
                        }
                        let value = std::mem::take(&mut text);
                        Self::set(self.single, rec, &el, value.trim())
                            .map_err(|m| self.error(format!("<{el}>: {m}")))?;
                    }
                }
                _ => {}
            }
        }
    }

    fn set(single: Kind, rec: &mut FideRecord, element: &str, v: &str) -> Result<(), String> {
        let number = || -> Result<Option<u32>, String> {
            if v.is_empty() {
                Ok(None)
            } else {
                v.parse::<u32>()
                    .map(Some)
                    .map_err(|_| format!("'{v}' is not a whole number"))
            }
        };
        let (kind, part) = match element {
            "rating" | "games" | "k" => (single, element),
            "rapid_rating" | "rapid_games" | "rapid_k" => (Kind::Rapid, &element[6..]),
            "blitz_rating" | "blitz_games" | "blitz_k" => (Kind::Blitz, &element[6..]),
            _ => (Kind::Standard, ""),
        };
        match (element, part) {
            ("fideid", _) => {
                rec.fide_id = number()?
                    .map(u64::from)
                    .ok_or_else(|| "the FIDE id is missing".to_string())?;
            }
            ("name", _) => rec.name = v.to_string(),
            ("country", _) => rec.federation = v.to_string(),
            ("sex", _) => {
                rec.sex = match v {
                    "M" | "m" => Some(Sex::Male),
                    "F" | "f" => Some(Sex::Female),
                    "" => None,
                    other => return Err(format!("'{other}' is not M or F")),
                }
            }
            ("title", _) => rec.title = v.to_string(),
            ("w_title", _) => rec.women_title = v.to_string(),
            ("o_title", _) => rec.other_titles = v.to_string(),
            ("foa_title", _) => rec.foa_title = v.to_string(),
            ("birthday", _) => {
                rec.birth_year = number()?
                    .filter(|&y| y > 0)
                    .and_then(|y| u16::try_from(y).ok())
            }
            ("flag", _) => rec.inactive = v.contains('i'),
            (_, "rating") => {
                if let Some(r) = number()?.filter(|&r| r > 0) {
                    *rec.rating_mut(kind) = Some(ListRating {
                        rating: r as Rating,
                        games: 0,
                        k: None,
                    });
                }
            }
            (_, "games") => {
                let games = number()?.unwrap_or(0);
                if let Some(r) = rec.rating_mut(kind) {
                    r.games = games;
                }
            }
            (_, "k") => {
                let k = number()?.filter(|&k| k > 0);
                if let Some(r) = rec.rating_mut(kind) {
                    r.k = k;
                }
            }
            // Elements FIDE may add later are kept out of the way, not refused.
            _ => {}
        }
        Ok(())
    }
}

impl<R: BufRead> Iterator for XmlList<R> {
    type Item = Result<FideRecord, ListError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let next = self.next_player();
        if !matches!(next, Ok(Some(_))) {
            self.done = true;
        }
        next.transpose()
    }
}

/// A list's records, whatever form the file has.
pub trait ListReader: Iterator<Item = Result<FideRecord, ListError>> {
    /// The list's month as its header gives it (a single list's `OCT26`), once read.
    fn header_month(&self) -> Option<NaiveDate>;
    /// The list a single list holds (`None`: a combined list), once read.
    fn single(&self) -> Option<Kind>;
}

impl<R: BufRead> ListReader for TxtList<R> {
    fn header_month(&self) -> Option<NaiveDate> {
        self.layout.as_ref().and_then(|l| l.month)
    }

    fn single(&self) -> Option<Kind> {
        self.layout.as_ref().and_then(|l| l.single)
    }
}

impl<R: BufRead> ListReader for XmlList<R> {
    fn header_month(&self) -> Option<NaiveDate> {
        None
    }

    fn single(&self) -> Option<Kind> {
        (!self.combined).then_some(self.single)
    }
}

/// A list's records, whatever form the file has.
pub type Records<'a> = &'a mut dyn ListReader;

/// What a list file is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    /// The file (or zip member) read.
    pub member: String,
    pub xml: bool,
    /// The list a per-list file holds (`None`: combined).
    pub single: Option<Kind>,
    /// The list's month, if the file's name says it (a single list's header may say it too).
    pub month: Option<NaiveDate>,
}

/// Counts the bytes read from the file (for a progress bar; of the compressed bytes in a zip).
struct Counted<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl<R: Seek> Seek for Counted<R> {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        let at = self.inner.seek(pos)?;
        self.read.store(at, Ordering::Relaxed);
        Ok(at)
    }
}

/// The longest field of a player's record read from an XML list: a name is well under a
/// hundred bytes.
const MAX_FIELD: usize = 1024;

/// Streams a list file (TXT or XML, zipped or not) through `read`. `progress` counts the
/// file's bytes read so far; `hint` names the list a per-list file holds when its name does not
/// (a combined list, `players_list…`, has its lists' columns named).
pub fn read_file<T>(
    path: &Path,
    progress: Arc<AtomicU64>,
    hint: Option<Kind>,
    read: impl FnOnce(&Opened, Records<'_>) -> T,
) -> Result<T, ListError> {
    let fail = |message: String| ListError {
        place: path.display().to_string(),
        message,
    };
    let mut file = std::fs::File::open(path).map_err(|e| fail(format!("cannot be read: {e}")))?;
    let mut magic = [0u8; 4];
    let n = file
        .read(&mut magic)
        .map_err(|e| fail(format!("cannot be read: {e}")))?;
    file.rewind()
        .map_err(|e| fail(format!("cannot be read: {e}")))?;
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let counted = Counted {
        inner: file,
        read: progress,
    };
    if !magic[..n].starts_with(b"PK\x03\x04") {
        let xml = file_name.to_ascii_lowercase().ends_with(".xml") || magic[..n].starts_with(b"<");
        let opened = opened(file_name.clone(), &file_name, xml, hint);
        let input = std::io::BufReader::with_capacity(1 << 16, counted);
        return Ok(stream(&opened, input, read));
    }
    let mut archive = zip::ZipArchive::new(counted)
        .map_err(|e| fail(format!("is not a readable zip file: {e}")))?;
    let names: Vec<String> = archive
        .file_names()
        .map(|n| n.map(|n| n.into_owned()).unwrap_or_default())
        .collect();
    let Some((index, member)) = names.iter().enumerate().find(|(_, n)| {
        let n = n.to_ascii_lowercase();
        n.ends_with(".txt") || n.ends_with(".xml")
    }) else {
        return Err(fail(format!(
            "the zip file holds no .txt or .xml list (it holds: {})",
            names.join(", ")
        )));
    };
    let xml = member.to_ascii_lowercase().ends_with(".xml");
    let mut opened = opened(member.clone(), member, xml, hint);
    opened.single = opened.single.or_else(|| {
        (!member.to_ascii_lowercase().contains("players_list"))
            .then(|| Kind::from_file_name(&file_name))
            .flatten()
    });
    opened.month = month_of_file_name(&file_name).or(opened.month);
    let entry = archive
        .by_index(index)
        .map_err(|e| fail(format!("{member} cannot be unzipped: {e}")))?;
    let input = std::io::BufReader::with_capacity(1 << 16, entry);
    Ok(stream(&opened, input, read))
}

fn opened(member: String, name: &str, xml: bool, hint: Option<Kind>) -> Opened {
    let combined = name.to_ascii_lowercase().contains("players_list");
    Opened {
        member,
        xml,
        single: if combined {
            None
        } else {
            hint.or_else(|| Kind::from_file_name(name))
        },
        month: month_of_file_name(name),
    }
}

fn stream<R: BufRead, T>(
    opened: &Opened,
    input: R,
    read: impl FnOnce(&Opened, Records<'_>) -> T,
) -> T {
    if opened.xml {
        read(opened, &mut XmlList::new(input, opened.single))
    } else {
        read(opened, &mut TxtList::new(input, opened.single))
    }
}

/// Reads a whole list held in memory (tests and fuzzing).
pub fn read_all(bytes: &[u8], single: Option<Kind>) -> Result<Vec<FideRecord>, ListError> {
    let xml = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'<');
    if xml {
        XmlList::new(bytes, single).collect()
    } else {
        TxtList::new(bytes, single).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn foa_line(fields: &[(usize, &str)]) -> String {
        let mut line = vec![b' '; 162];
        for (at, v) in fields {
            line[*at..*at + v.len()].copy_from_slice(v.as_bytes());
        }
        String::from_utf8(line).expect("ascii")
    }

    #[test]
    fn the_foa_header_names_the_published_columns() {
        let layout = Layout::combined_foa();
        let find = |f: Field| {
            layout
                .columns
                .iter()
                .find(|c| c.0 == f)
                .map(|c| c.1.clone())
        };
        assert_eq!(find(Field::Id), Some(0..15));
        assert_eq!(find(Field::Name), Some(15..76));
        assert_eq!(find(Field::Federation), Some(76..80));
        assert_eq!(find(Field::OtherTitles), Some(94..109));
        assert_eq!(find(Field::Foa), Some(109..113));
        assert_eq!(find(Field::Rating(Some(Kind::Standard))), Some(113..119));
        assert_eq!(find(Field::K(Some(Kind::Rapid))), Some(136..139));
        assert_eq!(find(Field::Born), Some(152..158));
        assert_eq!(layout.single, None);
    }

    #[test]
    fn the_legacy_and_single_layouts_match_the_published_offsets() {
        let legacy = Layout::combined_legacy();
        let starts: Vec<usize> = legacy.columns.iter().map(|c| c.1.start).collect();
        assert_eq!(
            starts,
            vec![
                0, 15, 76, 80, 84, 89, 94, 109, 115, 119, 122, 128, 132, 135, 141, 145, 148, 154
            ]
        );
        let single = Layout::single_list(Kind::Rapid);
        let starts: Vec<usize> = single.columns.iter().map(|c| c.1.start).collect();
        assert_eq!(
            starts,
            vec![0, 15, 76, 80, 84, 89, 94, 109, 113, 119, 123, 126, 132]
        );
        assert_eq!(single.single, Some(Kind::Rapid));
    }

    #[test]
    fn a_single_list_header_gives_the_month() {
        let header = "ID Number      Name                                                         Fed Sex Tit  WTit OTit           FOA OCT26 Gms K  B-day Flag";
        let layout = Layout::from_header(header, Some(Kind::Blitz)).expect("a header");
        assert_eq!(layout.month, NaiveDate::from_ymd_opt(2026, 10, 1));
        assert_eq!(layout.single, Some(Kind::Blitz));
        let line = format!(
            "{:<113}{:<6}{:<4}{:<3}{:<6}{:<4}",
            "503886", "2104", "7", "20", "1990", ""
        );
        let r = layout.read_line(&line, 2).expect("reads");
        assert_eq!(
            r.blitz,
            Some(ListRating {
                rating: 2104,
                games: 7,
                k: Some(20)
            })
        );
        assert_eq!(r.standard, None);
        assert_eq!(r.birth_year, Some(1990));
    }

    #[test]
    fn months_in_file_names() {
        assert_eq!(
            month_of_file_name("standard_sep26frl.zip"),
            NaiveDate::from_ymd_opt(2026, 9, 1)
        );
        assert_eq!(
            month_of_file_name("blitz_jan99frl_xml.zip"),
            NaiveDate::from_ymd_opt(1999, 1, 1)
        );
        assert_eq!(month_of_file_name("players_list_foa.txt"), None);
        assert_eq!(
            Kind::from_file_name("rapid_rating_list.txt"),
            Some(Kind::Rapid)
        );
        assert_eq!(Kind::from_file_name("players_list_foa.txt"), None);
    }

    #[test]
    fn blank_and_zero_are_both_unrated() {
        let layout = Layout::combined_foa();
        let blank = foa_line(&[(0, "419214"), (76, "ENG"), (80, "M"), (152, "0000")]);
        let zero = foa_line(&[
            (0, "1712144"),
            (113, "0"),
            (119, "0"),
            (123, "0"),
            (126, "0"),
            (139, "0"),
            (152, "1954"),
        ]);
        for (line, born) in [(blank, None), (zero, Some(1954))] {
            let r = layout.read_line(&line, 1).expect("reads");
            assert_eq!((r.standard, r.rapid, r.blitz), (None, None, None));
            assert_eq!(r.birth_year, born);
        }
    }

    #[test]
    fn other_titles_running_into_foa_stay_titles() {
        let layout = Layout::combined_foa();
        let line = foa_line(&[(0, "1"), (94, "FI,FA,NA,IO,FTIA"), (113, "2000")]);
        let r = layout.read_line(&line, 1).expect("reads");
        assert_eq!(r.other_titles, "FI,FA,NA,IO,FTIA");
        assert_eq!(r.foa_title, "");
        assert_eq!(r.standard.map(|s| s.rating), Some(2000));
    }

    #[test]
    fn bad_numbers_are_refused_with_line_and_column() {
        let layout = Layout::combined_foa();
        let line = foa_line(&[(0, "12x4"), (113, "2000")]);
        let e = layout.read_line(&line, 7).expect_err("refused");
        assert_eq!(e.place, "line 7, column 1");
        let line = foa_line(&[(0, "1234"), (113, "20o0")]);
        let e = layout.read_line(&line, 8).expect_err("refused");
        assert_eq!(e.place, "line 8, column 114");
        assert!(e.message.contains("rating '20o0'"), "{e}");
    }

    #[test]
    fn xml_combined_and_single_lists() {
        let xml = b"<playerslist><player><fideid>419214</fideid><name>Smith, J</name><country>ENG</country><sex>M</sex><title></title><w_title></w_title><o_title></o_title><foa_title></foa_title><rating>1736</rating><games>0</games><k>20</k><rapid_rating>1587</rapid_rating><rapid_games>10</rapid_games><rapid_k>20</rapid_k><blitz_rating></blitz_rating><blitz_games></blitz_games><blitz_k></blitz_k><birthday>0</birthday><flag>i</flag></player>\n<player><fideid>5</fideid><name>O&apos;Neil, A &amp; B</name><rating>0</rating></player></playerslist>";
        let all = read_all(xml, None).expect("reads");
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].fide_id, 419214);
        assert_eq!(
            all[0].standard.map(|r| (r.rating, r.k)),
            Some((1736, Some(20)))
        );
        assert_eq!(all[0].rapid.map(|r| r.games), Some(10));
        assert_eq!(all[0].blitz, None);
        assert!(all[0].inactive);
        assert_eq!(all[0].birth_year, None);
        assert_eq!(all[1].name, "O'Neil, A & B");
        assert_eq!(all[1].standard, None);
        let rapid = read_all(
            b"<playerslist><player><fideid>7</fideid><rating>1900</rating></player></playerslist>",
            Some(Kind::Rapid),
        )
        .expect("reads");
        assert_eq!(rapid[0].rapid.map(|r| r.rating), Some(1900));
        assert_eq!(rapid[0].standard, None);
        let bad = read_all(b"<playerslist><player><fideid>x</fideid></player>", None);
        assert!(bad.expect_err("refused").message.contains("<fideid>"));
        let cut = read_all(b"<playerslist><player><fideid>1</fideid>", None);
        assert!(cut.is_err());
        // Cut between two players: the list's end is missing.
        let cut = read_all(
            b"<playerslist><player><fideid>1</fideid></player>\n<player><fideid>2</fideid></player>\n",
            None,
        );
        assert!(
            cut.expect_err("refused").message.contains("cut short"),
            "a list without its end was read"
        );
        // A name of megabytes is no player's.
        for name in ["x".repeat(2 << 20), "&amp;".repeat(2000)] {
            let xml = format!(
                "<playerslist><player><fideid>1</fideid><name>{name}</name></player></playerslist>"
            );
            let long = read_all(xml.as_bytes(), None).expect_err("refused");
            assert!(
                long.message.contains("<name> is longer than 1024 bytes"),
                "{long:?}"
            );
        }
    }

    #[test]
    fn a_cut_line_is_refused_not_read_as_a_player() {
        let layout = Layout::combined_foa();
        let e = layout.read_line("12345", 9).expect_err("refused");
        assert!(e.to_string().contains("line 9"), "{e}");
        assert!(e.to_string().contains("not a whole record"), "{e}");
    }

    #[test]
    fn a_file_without_line_ends_is_refused_without_reading_it_whole() {
        let endless = std::io::repeat(0).take(1 << 30);
        let mut list = TxtList::new(std::io::BufReader::new(endless), None);
        let e = list.read_header().expect_err("refused");
        assert!(e.to_string().contains("longer than 4096 bytes"), "{e}");
    }
}
