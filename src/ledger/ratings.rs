//! A unit's published ratings, read when they are first looked at: a database opens with every
//! unit's states and awards (what re-rating needs) and only the stored bytes of its ratings,
//! which most units never have to show in a session. Rated afresh, a unit holds them as they
//! came: in runs, some shared with what it published before ([`crate::rules::Rows`]).

use std::sync::OnceLock;

use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::rules::{PlayerRating, Rows, Run};

/// Reads stored ratings back (`None`: the bytes do not read).
pub type Decoder<D> = fn(&[u8]) -> Option<Vec<PlayerRating<D>>>;

/// A unit's ratings: as rated, or stored bytes read on first use.
pub struct Ratings<D> {
    runs: OnceLock<Vec<Run<D>>>,
    stored: Option<(Box<[u8]>, Decoder<D>)>,
}

impl<D> Ratings<D> {
    /// Ratings as a unit was rated.
    pub fn new(ratings: Vec<PlayerRating<D>>) -> Self {
        Self {
            runs: OnceLock::from(Rows::from(ratings).into_runs()),
            stored: None,
        }
    }

    /// Ratings as a rulebook gave them: rows rated now and runs kept.
    pub fn from_rows(rows: Rows<D>) -> Self
    where
        D: Clone,
    {
        Self {
            runs: OnceLock::from(rows.into_compact_runs()),
            stored: None,
        }
    }

    /// Stored ratings, read by `decode` when first looked at. Bytes that do not read give no
    /// ratings (and `ratedesk check` finds the unit different from a fresh calculation).
    pub fn stored(bytes: Box<[u8]>, decode: Decoder<D>) -> Self {
        Self {
            runs: OnceLock::new(),
            stored: Some((bytes, decode)),
        }
    }

    /// The stored bytes, while the ratings have not been read from them: written again as
    /// they are.
    pub fn bytes(&self) -> Option<&[u8]> {
        match (&self.stored, self.runs.get()) {
            (Some((bytes, _)), None) => Some(bytes),
            _ => None,
        }
    }

    /// The ratings in the runs they are held in.
    pub fn runs(&self) -> &[Run<D>] {
        self.runs.get_or_init(|| self.read())
    }

    /// The runs the stored bytes hold (none: bytes that do not read, or none stored).
    fn read(&self) -> Vec<Run<D>> {
        let read = self
            .stored
            .as_ref()
            .and_then(|(bytes, decode)| decode(bytes))
            .unwrap_or_default();
        Rows::from(read).into_runs()
    }

    pub fn iter(&self) -> impl Iterator<Item = &PlayerRating<D>> {
        self.runs().iter().flat_map(|r| r.iter())
    }

    pub fn len(&self) -> usize {
        self.runs().iter().map(|r| r.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.runs().iter().all(|r| r.is_empty())
    }
}

impl<'a, D> IntoIterator for &'a Ratings<D> {
    type Item = &'a PlayerRating<D>;
    type IntoIter = std::iter::FlatMap<
        std::slice::Iter<'a, Run<D>>,
        std::slice::Iter<'a, PlayerRating<D>>,
        fn(&'a Run<D>) -> std::slice::Iter<'a, PlayerRating<D>>,
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.runs().iter().flat_map(|r| r.iter())
    }
}

/// Shares the runs (the rows are not copied), or the stored bytes while they are unread.
impl<D> Clone for Ratings<D> {
    fn clone(&self) -> Self {
        match (self.runs.get(), &self.stored) {
            (None, Some((bytes, decode))) => Self::stored(bytes.clone(), *decode),
            _ => Self {
                runs: OnceLock::from(self.runs().to_vec()),
                stored: None,
            },
        }
    }
}

impl<D> Ratings<D> {
    /// The runs, without keeping them when they are read from the stored bytes for this (a
    /// comparison of every unit, as `check` makes, or an export of every row, would otherwise
    /// leave every row read).
    pub fn runs_once(&self) -> std::borrow::Cow<'_, [Run<D>]> {
        match self.runs.get() {
            Some(runs) => std::borrow::Cow::Borrowed(runs),
            None => std::borrow::Cow::Owned(self.read()),
        }
    }
}

impl<D: PartialEq> PartialEq for Ratings<D> {
    fn eq(&self, other: &Self) -> bool {
        if let (Some(a), Some(b)) = (self.bytes(), other.bytes())
            && a == b
        {
            return true;
        }
        let (a, b) = (self.runs_once(), other.runs_once());
        let len = |runs: &[Run<D>]| runs.iter().map(|r| r.len()).sum::<usize>();
        len(&a) == len(&b)
            && a.iter()
                .flat_map(|r| r.iter())
                .eq(b.iter().flat_map(|r| r.iter()))
    }
}

impl<D: std::fmt::Debug> std::fmt::Debug for Ratings<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// As one sequence, whatever runs hold it: the bytes of a `Vec` of the same rows. Ratings
/// still stored are read for this and let go again, as for a comparison.
impl<D: Serialize> Serialize for Ratings<D> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let runs = self.runs_once();
        let mut seq = s.serialize_seq(Some(runs.iter().map(|r| r.len()).sum()))?;
        for row in runs.iter().flat_map(|r| r.iter()) {
            seq.serialize_element(row)?;
        }
        seq.end()
    }
}

impl<'de, D: Deserialize<'de>> Deserialize<'de> for Ratings<D> {
    fn deserialize<De: Deserializer<'de>>(d: De) -> Result<Self, De::Error> {
        Vec::deserialize(d).map(Self::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(player: usize) -> PlayerRating {
        crate::rules::a_row(player, 0)
    }

    fn decode(bytes: &[u8]) -> Option<Vec<PlayerRating>> {
        (bytes == b"two").then(|| vec![rating(1), rating(2)])
    }

    #[test]
    fn stored_ratings_are_read_on_first_use_and_bad_bytes_read_as_none() {
        let stored = Ratings::stored(b"two".to_vec().into(), decode);
        assert_eq!(stored.bytes(), Some(&b"two"[..]));
        assert_eq!(stored, Ratings::new(vec![rating(1), rating(2)]));
        assert_ne!(stored, Ratings::new(vec![rating(1)]));
        assert_eq!(stored.bytes(), Some(&b"two"[..]), "compared, not kept read");
        assert_eq!(
            serde_json::to_string(&stored).expect("written"),
            serde_json::to_string(&vec![rating(1), rating(2)]).expect("written")
        );
        assert_eq!(stored.bytes(), Some(&b"two"[..]), "written, not kept read");
        assert_eq!(stored.clone(), Ratings::new(vec![rating(1), rating(2)]));
        assert_eq!(stored.len(), 2);
        assert_eq!(stored.bytes(), None, "read now");
        let bad = Ratings::stored(b"?".to_vec().into(), decode);
        assert!(bad.is_empty());
    }

    #[test]
    fn ratings_in_several_runs_are_stored_as_the_one_sequence_of_their_rows() {
        let published = Run::new((0..60).map(rating).collect());
        let mut rows = Rows::default();
        rows.keep(published.slice(0..20));
        rows.push(rating(99));
        rows.keep(published.slice(21..60));
        let ratings = Ratings::from_rows(rows);
        assert_eq!(ratings.runs().len(), 3);
        let flat: Vec<PlayerRating> = (0..60)
            .map(|p| rating(if p == 20 { 99 } else { p }))
            .collect();
        assert_eq!(
            serde_json::to_string(&ratings).expect("written"),
            serde_json::to_string(&flat).expect("written"),
            "the sequence of a Vec of the same rows"
        );
        assert_eq!(ratings, Ratings::new(flat));
        assert_eq!(ratings.clone().runs().len(), 3, "a clone shares the runs");
    }
}
