//! A unit's published rows as stored since schema 6: in columns. A correction ten years back
//! re-rates every Turkish month after it, and its first run in a session reads back the rows
//! of every one of them — nearly all its time went into serde's decoding of one
//! variable-length integer after another, row by row and game line by game line. Here each
//! figure is a column of fixed-width numbers, each column as narrow as its own range allows
//! (its least value, then each value's distance from it in 0, 1, 2, 4 or 8 bytes): read in a
//! tight loop a column at a time. The Turkish national demo's rows take a quarter less than as
//! variable-length integers (26.0 MB against 33.8 packed); a unit of a few rows takes more, the
//! heads of its eighteen columns (some 180 bytes).
//! The figures of a rulebook's own (`detail`) and the performance follow as one bincode
//! sequence, as before.
//!
//! Rows stored earlier (a record of [`codec::encode`] starting with its version tag) are read
//! as they were: a unit's rows are written in this layout the next time it is rated.

use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::codec::{self, CodecError};
use super::{Store, StoreError};
use crate::model::Rating;
use crate::rules::{Factors, GameLine, Performance, PlayerRating};

/// The first byte of rows in columns. A record of [`codec::encode`] starts with its version
/// tag, a byte below 251 and in practice below 16.
pub(super) const TAG: u8 = 0xC0;

/// Flags of a row, one byte a row in their own column.
const OLD: i64 = 1;
const ESTABLISHED: i64 = 2;
const EXPECTED: i64 = 4;
const NEW_PLAYER: i64 = 8;
const TEMPORARY: i64 = 16;

/// The rows of a unit in columns: [`TAG`], the number of rows and of game lines, the columns
/// of the rows, the columns of the lines, then the rows' performances and details. Rows that
/// [`decode`] would refuse are refused here, rather than stored and read back as none.
pub(super) fn encode<'a, D: Serialize + 'a>(
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
    out.push(TAG);
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
    let rest: Vec<(&Option<Performance>, &D)> = rows.map(|r| (&r.performance, &r.detail)).collect();
    out.extend(codec::encode_plain(&rest)?);
    // Lines alike in every figure take no bytes: more than `Reader::count` allows are refused.
    if lines > out.len().saturating_mul(8) {
        return Err(bad(
            "more game lines, alike in every figure, than the bytes stored allow",
        ));
    }
    Ok(out)
}

/// Reads rows [`encode`] wrote. Each column is checked to hold figures of its type before any
/// is read, so the rows are built by plain loops.
pub(super) fn decode<D: DeserializeOwned>(
    bytes: &[u8],
) -> Result<Vec<PlayerRating<D>>, CodecError> {
    let mut at = Reader { bytes, at: 0 };
    if at.take(1)? != [TAG] {
        return Err(bad("no tag"));
    }
    let count = at.count()?;
    let lines = at.count()?;
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
    let rest: Vec<(Option<Performance>, D)> = codec::decode_plain(&bytes[at.at..])?;
    if rest.len() != count {
        return Err(bad(&format!("{count} rows with {} details", rest.len())));
    }
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
    for (i, (performance, detail)) in rest.into_iter().enumerate() {
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

impl Store {
    /// Schema 6: nothing is rewritten — rows stored earlier read as they were, and a unit's are
    /// written in columns when it is next rated — but the schema is raised, so that a version
    /// that cannot read rows in columns refuses the database instead of finding units without
    /// rows.
    pub(super) fn migrate_to_6(&self, found_schema: u64) -> Result<(), StoreError> {
        if found_schema >= 6 {
            return Ok(());
        }
        // Flushed with the opening's other changes (an opening on a full disk is forgiven there).
        self.meta
            .insert("schema", &6u64.to_be_bytes())
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
            assert_eq!(stored[0], TAG);
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
