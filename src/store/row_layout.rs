//! A unit's published rows as stored since schema 6: in columns. A correction ten years back
//! re-rates every Turkish month after it, and its first run in a session reads back the rows
//! of every one of them — nearly all its time went into serde's decoding of one
//! variable-length integer after another, row by row and game line by game line. Here each
//! figure is a column of fixed-width numbers, each column as narrow as its own range allows
//! (its least value, then each value's distance from it in 0, 1, 2, 4 or 8 bytes): read in a
//! tight loop a column at a time. The Turkish national demo's rows take a quarter less than as
//! variable-length integers (26.0 MB against 33.8 packed); a unit of a few rows takes more, the
//! heads of its eighteen columns (some 180 bytes).
//! Since schema 7 the performances and the figures of a rulebook's own (`detail`) follow in
//! columns too, when the rulebook lays its figures flat ([`FlatFigures`]: Turkey's, Finland's
//! none), otherwise as one bincode sequence of the figures (Iceland's, of a K for each game);
//! schema 6 wrote performances and figures as one bincode sequence, which was a quarter of
//! reading a Turkish month's rows back.
//!
//! Rows stored earlier (a record of [`codec::encode`] starting with its version tag, or rows in
//! columns of schema 6) are read as they were: a unit's rows are written in this layout the
//! next time it is rated.

use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::codec::{self, CodecError};
use super::{Store, StoreError};
use crate::model::Rating;
use crate::rules::{Factors, FlatFigures, GameLine, Performance, PlayerRating};

/// The first byte of rows in columns whose performances and figures follow as one bincode
/// sequence (schema 6). A record of [`codec::encode`] starts with its version tag, a byte below
/// 251 and in practice below 16.
pub(super) const TAG: u8 = 0xC0;

/// The first byte of rows in columns whose performances and figures are in columns too
/// (schema 7): what [`encode`] writes.
pub(super) const FLAT_TAG: u8 = 0xC1;

/// Whether `bytes` are rows in columns, of either layout.
pub(super) fn in_columns(bytes: &[u8]) -> bool {
    matches!(bytes.first(), Some(&(TAG | FLAT_TAG)))
}

/// In place of the number of figure columns: figures stored as one bincode sequence.
const FIGURES_WHOLE: u64 = u64::MAX;

/// A performance's kind, in a column of its own; a finite one's value as its bits in another.
const NO_PERFORMANCE: i64 = 0;
const FINITE: i64 = 1;
const MINUS_INFINITY: i64 = 2;
const PLUS_INFINITY: i64 = 3;

/// Flags of a row, one byte a row in their own column.
const OLD: i64 = 1;
const ESTABLISHED: i64 = 2;
const EXPECTED: i64 = 4;
const NEW_PLAYER: i64 = 8;
const TEMPORARY: i64 = 16;

/// The rows of a unit in columns: [`FLAT_TAG`], the number of rows and of game lines, the
/// columns of the rows, the columns of the lines, the rows' performances in two columns, then
/// the number of figure columns and the columns of the rulebook's figures laid flat (or
/// [`FIGURES_WHOLE`] and the figures as one bincode sequence). Rows that [`decode`] would refuse
/// are refused here, rather than stored and read back as none.
pub(super) fn encode<'a, D: Serialize + FlatFigures + PartialEq + 'a>(
    rows: impl Iterator<Item = &'a PlayerRating<D>> + Clone,
) -> Result<Vec<u8>, CodecError> {
    if rows.clone().any(|r| {
        i64::try_from(r.player).is_err()
            || i64::try_from(r.event).is_err()
            || u32::try_from(r.lines.len()).is_err()
    }) {
        return Err(bad(
            "a player, an event or a row's game lines past what a column holds",
        ));
    }
    let count = rows.clone().count();
    let lines = rows.clone().map(|r| r.lines.len()).sum::<usize>();
    let mut out = Vec::with_capacity(16 + count * 24 + lines * 12);
    out.push(FLAT_TAG);
    out.extend_from_slice(&(count as u64).to_le_bytes());
    out.extend_from_slice(&(lines as u64).to_le_bytes());
    let flags = |r: &PlayerRating<D>| {
        (if r.old.is_some() { OLD } else { 0 })
            | (if r.established { ESTABLISHED } else { 0 })
            | (if r.expected.is_some() { EXPECTED } else { 0 })
            | (if r.factors.new_player { NEW_PLAYER } else { 0 })
            | (if r.factors.temporary.is_some() {
                TEMPORARY
            } else {
                0
            })
    };
    column(&mut out, rows.clone().map(flags));
    column(&mut out, rows.clone().map(|r| r.player as i64));
    column(&mut out, rows.clone().map(|r| r.event as i64));
    column(&mut out, rows.clone().map(|r| r.old.map_or(0, i64::from)));
    column(&mut out, rows.clone().map(|r| i64::from(r.new)));
    column(&mut out, rows.clone().map(|r| i64::from(r.games)));
    column(&mut out, rows.clone().map(|r| i64::from(r.score)));
    column(&mut out, rows.clone().map(|r| r.expected.unwrap_or(0)));
    column(
        &mut out,
        rows.clone().map(|r| r.factors.k.map_or(-1, i64::from)),
    );
    column(
        &mut out,
        rows.clone()
            .map(|r| r.factors.time_hundredths.map_or(-1, i64::from)),
    );
    column(
        &mut out,
        rows.clone()
            .map(|r| r.factors.temporary.map_or(0, i64::from)),
    );
    column(&mut out, rows.clone().map(|r| r.lines.len() as i64));
    let each_line = || rows.clone().flat_map(|r| r.lines.iter());
    column(&mut out, each_line().map(|l| i64::from(l.round)));
    column(&mut out, each_line().map(|l| i64::from(l.opponent)));
    column(&mut out, each_line().map(|l| i64::from(l.halves)));
    column(&mut out, each_line().map(|l| i64::from(l.opponent_rating)));
    column(
        &mut out,
        each_line().map(|l| l.expected.map_or(-1, i64::from)),
    );
    column(&mut out, each_line().map(|l| i64::from(l.rating_after)));
    column(
        &mut out,
        rows.clone().map(|r| match r.performance {
            None => NO_PERFORMANCE,
            Some(Performance::Finite(_)) => FINITE,
            Some(Performance::MinusInfinity) => MINUS_INFINITY,
            Some(Performance::PlusInfinity) => PLUS_INFINITY,
        }),
    );
    column(
        &mut out,
        rows.clone().map(|r| match r.performance {
            Some(Performance::Finite(p)) => p.to_bits() as i64,
            _ => 0,
        }),
    );
    match D::FIELDS {
        Some(fields) => {
            out.extend_from_slice(&(fields as u64).to_le_bytes());
            let mut flat = Vec::with_capacity(count * fields);
            for r in rows.clone() {
                let before = flat.len();
                r.detail.flatten(&mut flat);
                if flat.len() - before != fields {
                    return Err(bad("figures laid flat in another number of fields"));
                }
                // Figures that would not read back as they were (laid flat by a rulebook into
                // numbers that give other figures) are refused, not stored.
                if D::unflatten(&flat[before..]).as_ref() != Some(&r.detail) {
                    return Err(bad("figures that do not read back from their numbers"));
                }
            }
            for f in 0..fields {
                column(&mut out, flat.iter().skip(f).step_by(fields).copied());
            }
        }
        None => {
            out.extend_from_slice(&FIGURES_WHOLE.to_le_bytes());
            let details: Vec<&D> = rows.clone().map(|r| &r.detail).collect();
            out.extend(codec::encode_plain(&details)?);
        }
    }
    // Rows or lines alike in every figure take no bytes: more than [`decode`] allows (a row a
    // stored byte, eight lines) are refused.
    if count > out.len() || lines > out.len().saturating_mul(8) {
        return Err(bad(
            "more rows or game lines, alike in every figure, than the bytes stored allow",
        ));
    }
    Ok(out)
}

/// Reads rows [`encode`] wrote. Each column is checked to hold figures of its type before any
/// is read, so the rows are built by plain loops.
pub(super) fn decode<D: DeserializeOwned + FlatFigures>(
    bytes: &[u8],
) -> Result<Vec<PlayerRating<D>>, CodecError> {
    let mut at = Reader { bytes, at: 0 };
    let tag = at.take(1)?[0];
    if tag != TAG && tag != FLAT_TAG {
        return Err(bad("no tag"));
    }
    let count = at.count()?;
    let lines = at.count()?;
    // A row's figures may all be in columns of one value (no bytes a row): in this layout no
    // sequence holds the count down, so it is held to the bytes stored (rows of distinct
    // players and events take a byte a row at least), and [`encode`] refuses more.
    if tag == FLAT_TAG && count > bytes.len() {
        return Err(bad("more rows than the bytes stored allow"));
    }
    let flags = at.column(count, 0, 31)?;
    let player = at.column(count, 0, i64::MAX)?;
    let event = at.column(count, 0, i64::MAX)?;
    let old = at.column(count, i32::MIN.into(), i32::MAX.into())?;
    let new = at.column(count, i32::MIN.into(), i32::MAX.into())?;
    let games = at.column(count, 0, u32::MAX.into())?;
    let score = at.column(count, 0, u32::MAX.into())?;
    let expected = at.column(count, i64::MIN, i64::MAX)?;
    let k = at.column(count, -1, u16::MAX.into())?;
    let time = at.column(count, -1, u8::MAX.into())?;
    let temporary = at.column(count, i32::MIN.into(), i32::MAX.into())?;
    let line_count = at.column(count, 0, u32::MAX.into())?;
    let round = at.column(lines, 0, u32::MAX.into())?;
    let opponent = at.column(lines, 0, u32::MAX.into())?;
    let halves = at.column(lines, 0, u8::MAX.into())?;
    let opponent_rating = at.column(lines, i32::MIN.into(), i32::MAX.into())?;
    let line_expected = at.column(lines, -1, u8::MAX.into())?;
    let rating_after = at.column(lines, i32::MIN.into(), i32::MAX.into())?;
    let mut rest = if tag == TAG {
        let rest: Vec<(Option<Performance>, D)> = codec::decode_plain(&bytes[at.at..])?;
        if rest.len() != count {
            return Err(bad(&format!("{count} rows with {} details", rest.len())));
        }
        Rest::Whole(rest.into_iter())
    } else {
        Rest::Flat(FlatRest::read(&mut at, count)?)
    };
    // Every figure was checked to be in its type's range: `as` keeps it whole.
    let optional = |value: i64| (value != -1).then_some(value);
    let line_count = line_count.values(|v| v as usize);
    let held = line_count
        .iter()
        .try_fold(0usize, |sum, &n| sum.checked_add(n));
    if held != Some(lines) {
        return Err(bad(
            "the rows' game lines and the lines stored differ in number",
        ));
    }
    let (round, opponent, halves) = (
        round.values(|v| v as u32),
        opponent.values(|v| v as u32),
        halves.values(|v| v as u8),
    );
    let opponent_rating = opponent_rating.values(|v| v as Rating);
    let line_expected = line_expected.values(|v| optional(v).map(|e| e as u8));
    let rating_after = rating_after.values(|v| v as Rating);
    let (flags, player, event) = (
        flags.values(|v| v),
        player.values(|v| v as usize),
        event.values(|v| v as usize),
    );
    let (old, new, games, score) = (
        old.values(|v| v as Rating),
        new.values(|v| v as Rating),
        games.values(|v| v as u32),
        score.values(|v| v as u32),
    );
    let (expected, k, time, temporary) = (
        expected.values(|v| v),
        k.values(|v| optional(v).map(|k| k as u16)),
        time.values(|v| optional(v).map(|t| t as u8)),
        temporary.values(|v| v as Rating),
    );
    let mut first = 0usize;
    let mut rows = Vec::with_capacity(count);
    for i in 0..count {
        let (performance, detail) = rest.next(i)?;
        let end = first + line_count[i];
        let row_lines: Arc<[GameLine]> = (first..end)
            .map(|j| GameLine {
                round: round[j],
                opponent: opponent[j],
                halves: halves[j],
                opponent_rating: opponent_rating[j],
                expected: line_expected[j],
                rating_after: rating_after[j],
            })
            .collect();
        first = end;
        let has = |f: i64| flags[i] & f != 0;
        rows.push(PlayerRating {
            player: player[i],
            event: event[i],
            old: has(OLD).then_some(old[i]),
            new: new[i],
            established: has(ESTABLISHED),
            games: games[i],
            score: score[i],
            expected: has(EXPECTED).then_some(expected[i]),
            performance,
            factors: Factors {
                k: k[i],
                time_hundredths: time[i],
                temporary: has(TEMPORARY).then_some(temporary[i]),
                new_player: has(NEW_PLAYER),
            },
            lines: row_lines,
            detail,
        });
    }
    Ok(rows)
}

/// The performances and figures of the rows, as the layout holds them.
enum Rest<D> {
    /// One bincode sequence (schema 6).
    Whole(std::vec::IntoIter<(Option<Performance>, D)>),
    /// In columns (schema 7).
    Flat(FlatRest<D>),
}

impl<D: DeserializeOwned + FlatFigures> Rest<D> {
    /// Row `i`'s (asked for in order).
    fn next(&mut self, i: usize) -> Result<(Option<Performance>, D), CodecError> {
        match self {
            Rest::Whole(rest) => rest.next().ok_or_else(|| bad("a row without its details")),
            Rest::Flat(flat) => flat.row(i),
        }
    }
}

/// Performances and figures read from their columns (a vector a column: read in a tight loop
/// each, as the rows' own figures are; their count is held to the bytes stored).
struct FlatRest<D> {
    kinds: Vec<i64>,
    bits: Vec<i64>,
    /// The figures laid flat, a vector a number; or read whole.
    fields: Vec<Vec<i64>>,
    whole: Option<std::vec::IntoIter<D>>,
    /// One row's numbers, gathered from the fields' columns.
    numbers: Vec<i64>,
}

impl<D: DeserializeOwned + FlatFigures> FlatRest<D> {
    fn read(at: &mut Reader<'_>, count: usize) -> Result<Self, CodecError> {
        let kinds = at.column(count, NO_PERFORMANCE, PLUS_INFINITY)?;
        let bits = at.column(count, i64::MIN, i64::MAX)?;
        let stored = u64::from_le_bytes(at.take(8)?.try_into().expect("eight bytes"));
        let (fields, whole) = match (D::FIELDS, stored) {
            (None, FIGURES_WHOLE) => {
                let details: Vec<D> = codec::decode_plain(&at.bytes[at.at..])?;
                if details.len() != count {
                    return Err(bad(&format!("{count} rows with {} details", details.len())));
                }
                at.at = at.bytes.len();
                (Vec::new(), Some(details.into_iter()))
            }
            (Some(fields), stored) if stored == fields as u64 => {
                let columns = (0..fields)
                    .map(|_| at.column(count, i64::MIN, i64::MAX))
                    .collect::<Result<Vec<_>, CodecError>>()?;
                (columns, None)
            }
            _ => {
                return Err(bad(&format!(
                    "figures stored in {stored} columns, where these rules lay them in {:?}",
                    D::FIELDS
                )));
            }
        };
        if at.at != at.bytes.len() {
            return Err(bad(&format!("{} trailing bytes", at.bytes.len() - at.at)));
        }
        // Every column checked whole before any is read into a vector.
        Ok(Self {
            kinds: kinds.values(|v| v),
            bits: bits.values(|v| v),
            numbers: Vec::with_capacity(fields.len()),
            fields: fields.iter().map(|f| f.values(|v| v)).collect(),
            whole,
        })
    }

    fn row(&mut self, i: usize) -> Result<(Option<Performance>, D), CodecError> {
        let (kind, bits) = (self.kinds[i], self.bits[i]);
        let performance = match kind {
            FINITE => Some(Performance::Finite(f64::from_bits(bits as u64))),
            // Only a finite performance has bits.
            _ if bits != 0 => return Err(bad("the bits of a performance without a value")),
            NO_PERFORMANCE => None,
            MINUS_INFINITY => Some(Performance::MinusInfinity),
            _ => Some(Performance::PlusInfinity),
        };
        let detail = match &mut self.whole {
            Some(whole) => whole.next(),
            None => {
                self.numbers.clear();
                self.numbers.extend(self.fields.iter().map(|f| f[i]));
                D::unflatten(&self.numbers)
            }
        };
        let detail = detail.ok_or_else(|| bad("figures that no rows give"))?;
        Ok((performance, detail))
    }
}

impl Store {
    /// Schemas 6 (rows in columns) and 7 (their performances and figures in columns too):
    /// nothing is rewritten — rows stored earlier read as they were, and a unit's are written in
    /// the newest layout when it is next rated — but the schema is raised, so that a version
    /// that cannot read the rows this one writes refuses the database instead of finding units
    /// without rows.
    pub(super) fn migrate_rows_layout(&self, found_schema: u64) -> Result<(), StoreError> {
        const ROWS_LAYOUT: u64 = 7;
        if found_schema >= ROWS_LAYOUT {
            return Ok(());
        }
        // Flushed with the opening's other changes (an opening on a full disk is forgiven there).
        self.meta
            .insert("schema", &ROWS_LAYOUT.to_be_bytes())
            .map(drop)
            .map_err(|e| self.fail(e))
    }
}

fn bad(what: &str) -> CodecError {
    CodecError::new(&format!("rows in columns: {what}"))
}

/// Writes a column: its least value (8 bytes), the width of each value's distance from it (one
/// byte: 0, 1, 2, 4 or 8), then the distances.
fn column(out: &mut Vec<u8>, values: impl Iterator<Item = i64> + Clone) {
    let (least, most) = values
        .clone()
        .fold((i64::MAX, i64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    // No values: a column of one value, none of it written.
    let (least, most) = if least > most { (0, 0) } else { (least, most) };
    let span = most.wrapping_sub(least) as u64;
    let width: u8 = match span {
        0 => 0,
        1..=0xFF => 1,
        0x100..=0xFFFF => 2,
        0x1_0000..=0xFFFF_FFFF => 4,
        _ => 8,
    };
    out.extend_from_slice(&least.to_le_bytes());
    out.push(width);
    let w = usize::from(width);
    for v in values {
        let distance = v.wrapping_sub(least) as u64;
        out.extend_from_slice(&distance.to_le_bytes()[..w]);
    }
}

/// A column read in place.
struct Column<'a> {
    least: i64,
    width: usize,
    count: usize,
    bytes: &'a [u8],
}

impl Column<'_> {
    /// The largest distance from the least value.
    fn widest(&self) -> u64 {
        let b = self.bytes;
        match self.width {
            0 => None,
            1 => b.iter().copied().max().map(u64::from),
            2 => b
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .max()
                .map(u64::from),
            4 => b
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .max()
                .map(u64::from),
            _ => b
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("eight bytes")))
                .max(),
        }
        .unwrap_or(0)
    }

    /// Each value through `each`, the width matched once for the column.
    fn values<T>(&self, each: impl Fn(i64) -> T) -> Vec<T> {
        let least = self.least;
        let at = |distance: u64| each(least.wrapping_add(distance as i64));
        let b = self.bytes;
        match self.width {
            0 => (0..self.count).map(|_| at(0)).collect(),
            1 => b.iter().map(|&d| at(u64::from(d))).collect(),
            2 => b
                .chunks_exact(2)
                .map(|c| at(u64::from(u16::from_le_bytes([c[0], c[1]]))))
                .collect(),
            4 => b
                .chunks_exact(4)
                .map(|c| at(u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]]))))
                .collect(),
            _ => b
                .chunks_exact(8)
                .map(|c| at(u64::from_le_bytes(c.try_into().expect("eight bytes"))))
                .collect(),
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], CodecError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| bad("cut short"))?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn count(&mut self) -> Result<usize, CodecError> {
        let n = u64::from_le_bytes(self.take(8)?.try_into().expect("eight bytes"));
        // Held to eight times the stored bytes, so that a damaged count allocates no more than a
        // few hundred bytes a stored byte (the rows' count is then held to their details, a byte
        // a row at least, and the lines' to the rows' own counts of them); [`encode`] refuses
        // rows this would refuse.
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.bytes.len().saturating_mul(8))
            .ok_or_else(|| bad("a count past the stored bytes"))
    }

    /// A column of `n` figures, each of them in `lo..=hi` (else damage).
    fn column(&mut self, n: usize, lo: i64, hi: i64) -> Result<Column<'a>, CodecError> {
        let least = i64::from_le_bytes(self.take(8)?.try_into().expect("eight bytes"));
        let width = usize::from(self.take(1)?[0]);
        if ![0, 1, 2, 4, 8].contains(&width) {
            return Err(bad("a column of an unknown width"));
        }
        let bytes = self.take(n.checked_mul(width).ok_or_else(|| bad("cut short"))?)?;
        let column = Column {
            least,
            width,
            count: n,
            bytes,
        };
        let most = i128::from(least) + i128::from(column.widest());
        if n > 0 && (least < lo || most > i128::from(hi)) {
            return Err(bad("a figure out of its range"));
        }
        Ok(column)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::demo::{Params, generate, generate_iceland, generate_turkey};
    use crate::ledger::Ledger;
    use crate::rules::Rulebook;

    fn params() -> Params {
        Params {
            players: 200,
            years: 2,
            last_year: 2025,
            seed: 5,
            opens_per_year: Some(6),
        }
    }

    /// Every unit's rows of a ledger read back from columns as they were, whatever figures the
    /// rulebook publishes of its own; and as the bytes of the earlier layout read too.
    fn every_unit_reads_back<R: Rulebook>(rulebook: &R, book: &crate::book::Book<R>) -> usize {
        let ledger = Ledger::build(rulebook, book);
        let mut rows_seen = 0;
        for (id, unit) in ledger.units() {
            let rows: Vec<PlayerRating<R::Detail>> = unit.ratings.iter().cloned().collect();
            let stored = encode(rows.iter()).expect("encoded");
            assert_eq!(stored[0], FLAT_TAG);
            let read: Vec<PlayerRating<R::Detail>> = decode(&stored).expect("decoded");
            assert!(read == rows, "unit {id:?}");
            rows_seen += rows.len();
        }
        rows_seen
    }

    #[test]
    fn the_rows_of_every_rulebook_read_back_from_columns() {
        let ssl = every_unit_reads_back(&crate::rules::ssl::Ssl, &generate(&params()).0);
        let isl = every_unit_reads_back(&crate::rules::isl::Isl, &generate_iceland(&params()).0);
        let tsf = every_unit_reads_back(&crate::rules::tsf::Tsf, &generate_turkey(&params()).0);
        assert!(
            ssl > 500 && isl > 500 && tsf > 500,
            "{ssl} {isl} {tsf} rows"
        );
    }

    /// A rulebook's figure of a row for the tests: laid flat as whether it is there and its
    /// value.
    impl FlatFigures for Option<u32> {
        const FIELDS: Option<usize> = Some(2);

        fn flatten(&self, out: &mut Vec<i64>) {
            crate::rules::flatten_option(self.map(i64::from), out);
        }

        fn unflatten(fields: &[i64]) -> Option<Self> {
            let &[there, value] = fields else { return None };
            crate::rules::unflatten_option(there, value)
        }
    }

    /// Figures not laid flat, for the tests: stored as one bincode sequence.
    #[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
    struct Whole(Vec<u8>);

    impl FlatFigures for Whole {
        const FIELDS: Option<usize> = None;

        fn flatten(&self, _: &mut Vec<i64>) {}

        fn unflatten(_: &[i64]) -> Option<Self> {
            None
        }
    }

    /// The schema 6 layout of rows, for the tests: the performances and figures as one bincode
    /// sequence after the columns (what that release wrote).
    fn as_schema_6<D: Serialize + FlatFigures + PartialEq>(rows: &[PlayerRating<D>]) -> Vec<u8> {
        let flat = encode(rows.iter()).expect("encoded");
        // The columns of the rows and lines, as schema 7 writes them: everything before the
        // performances' kinds (two counts and eighteen columns, read to find where they end).
        let mut at = Reader {
            bytes: &flat,
            at: 1,
        };
        let count = at.count().expect("count");
        let lines = at.count().expect("lines");
        for k in 0..18 {
            at.column(if k < 12 { count } else { lines }, i64::MIN, i64::MAX)
                .expect("column");
        }
        let mut old = flat[..at.at].to_vec();
        old[0] = TAG;
        let rest: Vec<(&Option<Performance>, &D)> =
            rows.iter().map(|r| (&r.performance, &r.detail)).collect();
        old.extend(codec::encode_plain(&rest).expect("rest"));
        old
    }

    fn line() -> impl Strategy<Value = GameLine> {
        (
            any::<u32>(),
            any::<u32>(),
            any::<u8>(),
            any::<i32>(),
            any::<Option<u8>>(),
            any::<i32>(),
        )
            .prop_map(
                |(round, opponent, halves, opponent_rating, expected, rating_after)| GameLine {
                    round,
                    opponent,
                    halves,
                    opponent_rating,
                    expected,
                    rating_after,
                },
            )
    }

    /// A row with any figures in their types' ranges — the extremes of each among them.
    fn row() -> impl Strategy<Value = PlayerRating<Option<u32>>> {
        let figures = (
            prop_oneof![
                Just(0usize),
                Just(u32::MAX as usize),
                Just(usize::MAX >> 1),
                0..2_000_000usize
            ],
            any::<usize>().prop_map(|e| e >> 1),
            any::<Option<i32>>(),
            any::<i32>(),
            any::<bool>(),
            any::<u32>(),
            any::<u32>(),
            any::<Option<i64>>(),
        );
        let more = (
            prop_oneof![
                Just(None),
                Just(Some(Performance::MinusInfinity)),
                Just(Some(Performance::PlusInfinity)),
                any::<f64>()
                    .prop_filter("a number", |x| !x.is_nan())
                    .prop_map(|x| Some(Performance::Finite(x))),
            ],
            any::<Option<u16>>(),
            any::<Option<u8>>(),
            any::<Option<i32>>(),
            any::<bool>(),
            prop::collection::vec(line(), 0..6),
            any::<Option<u32>>(),
        );
        (figures, more).prop_map(
            |(
                (player, event, old, new, established, games, score, expected),
                (performance, k, time_hundredths, temporary, new_player, lines, detail),
            )| PlayerRating {
                player,
                event,
                old,
                new,
                established,
                games,
                score,
                expected,
                performance,
                factors: Factors {
                    k,
                    time_hundredths,
                    temporary,
                    new_player,
                },
                lines: lines.into(),
                detail,
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Any rows read back whole; every shorter stretch of their bytes is refused, and no
        /// byte changed makes the reading panic.
        #[test]
        fn any_rows_read_back_and_damage_is_refused(
            rows in prop::collection::vec(row(), 0..12),
            flip in any::<(usize, u8)>(),
        ) {
            let stored = encode(rows.iter()).expect("encoded");
            let read: Vec<PlayerRating<Option<u32>>> = decode(&stored).expect("decoded");
            prop_assert!(read == rows);
            // As schema 6 stored them, and with figures not laid flat.
            let old: Vec<PlayerRating<Option<u32>>> =
                decode(&as_schema_6(&rows)).expect("schema 6");
            prop_assert!(old == rows);
            let whole: Vec<PlayerRating<Whole>> = rows
                .iter()
                .map(|r| r.with_detail(Whole(r.detail.map_or(Vec::new(), |d| d.to_le_bytes().to_vec()))))
                .collect();
            let read: Vec<PlayerRating<Whole>> =
                decode(&encode(whole.iter()).expect("whole")).expect("read whole");
            prop_assert!(read == whole);
            for cut in 0..stored.len() {
                prop_assert!(decode::<Option<u32>>(&stored[..cut]).is_err(), "cut at {}", cut);
            }
            let mut damaged = stored.clone();
            let at = flip.0 % damaged.len();
            damaged[at] ^= flip.1.max(1);
            let _ = decode::<Option<u32>>(&damaged);
        }
    }

    /// A column is as narrow as its figures' spread: one value takes no bytes a row, a spread
    /// within a byte one byte, and the extremes of a 64-bit figure eight.
    #[test]
    fn a_column_is_as_narrow_as_its_spread() {
        let width = |values: &[i64]| {
            let mut out = Vec::new();
            column(&mut out, values.iter().copied());
            (out[8], out.len() - 9)
        };
        assert_eq!(width(&[1500; 40]), (0, 0));
        assert_eq!(width(&[]), (0, 0));
        assert_eq!(width(&[-1, 254]), (1, 2));
        assert_eq!(width(&[-1, 255]), (2, 4));
        assert_eq!(width(&[1000, 1000 + 65_535]), (2, 4));
        assert_eq!(width(&[1000, 1000 + 65_536]), (4, 8));
        assert_eq!(width(&[0, u32::MAX.into()]), (4, 8));
        assert_eq!(width(&[0, i64::from(u32::MAX) + 1]), (8, 16));
        assert_eq!(width(&[i64::MIN, i64::MAX]), (8, 16));
    }

    /// Rows the columns could not read back are refused when written: game lines alike in
    /// every figure past eight a stored byte (a hundred of them are stored).
    #[test]
    fn rows_that_would_not_read_back_are_refused_when_written() {
        let line = GameLine {
            round: 1,
            opponent: 2,
            halves: 1,
            opponent_rating: 1500,
            expected: Some(50),
            rating_after: 1500,
        };
        let with_lines = |n: usize| PlayerRating {
            lines: vec![line.clone(); n].into(),
            ..crate::rules::a_row(1, 1)
        };
        let hundred = [with_lines(100)];
        let stored = encode(hundred.iter()).expect("a hundred alike");
        assert!(decode::<()>(&stored).expect("read") == hundred);
        let err = encode([with_lines(10_000)].iter()).expect_err("refused");
        assert!(err.to_string().contains("alike"), "{err}");
    }

    /// In this layout a count of rows past the bytes stored is damage, refused before anything
    /// is built from it (rows whose every figure is one value take no bytes a row, so no column
    /// holds the count down); so are the bits of a performance that has no value. Rows of one
    /// value past a row a stored byte are refused when written.
    #[test]
    fn a_count_past_the_bytes_and_bits_without_a_value_are_refused() {
        let rows = [PlayerRating {
            performance: Some(Performance::PlusInfinity),
            ..crate::rules::a_row(3, 4)
        }];
        let stored = encode(rows.iter()).expect("encoded");
        assert!(decode::<()>(&stored).expect("read") == rows);
        let mut damaged = stored.clone();
        damaged[1..9].copy_from_slice(&(stored.len() as u64 + 1).to_le_bytes());
        let err = decode::<()>(&damaged).expect_err("refused").to_string();
        assert!(err.contains("more rows than"), "{err}");
        // The performances' bits follow their kinds, after the eighteen columns of rows and lines.
        let mut at = Reader {
            bytes: &stored,
            at: 1,
        };
        let (count, lines) = (at.count().expect("count"), at.count().expect("lines"));
        for k in 0..19 {
            at.column(
                if (12..18).contains(&k) { lines } else { count },
                i64::MIN,
                i64::MAX,
            )
            .expect("column");
        }
        let mut damaged = stored.clone();
        damaged[at.at..at.at + 8].copy_from_slice(&5i64.to_le_bytes());
        let err = decode::<()>(&damaged).expect_err("refused").to_string();
        assert!(err.contains("without a value"), "{err}");
        let alike: Vec<_> = (0..5_000).map(|_| crate::rules::a_row(1, 1)).collect();
        let err = encode(alike.iter()).expect_err("refused").to_string();
        assert!(err.contains("alike"), "{err}");
    }

    /// Figures out of their type's range (a game's half points past 255) are damage, refused.
    #[test]
    fn a_figure_out_of_its_range_is_refused() {
        let rows = [crate::rules::a_row(3, 4)];
        let mut stored = encode(rows.iter()).expect("encoded");
        assert!(decode::<()>(&stored).is_ok());
        // The flags' column comes first after the counts: its least value, past every flag.
        stored[17..25].copy_from_slice(&64i64.to_le_bytes());
        let err = decode::<()>(&stored).expect_err("refused").to_string();
        assert!(err.contains("out of its range"), "{err}");
        assert!(decode::<()>(&[0x05, 1, 2]).is_err(), "no tag");
    }
}
