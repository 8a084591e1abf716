//! A unit's published ratings, read when they are first looked at: a database opens with every
//! unit's states and awards (what re-rating needs) and only the stored bytes of its ratings,
//! which most units never have to show in a session. Rated afresh, a unit holds them as they
//! came.

use std::sync::OnceLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::rules::PlayerRating;

/// Reads stored ratings back (`None`: the bytes do not read).
pub type Decoder<D> = fn(&[u8]) -> Option<Vec<PlayerRating<D>>>;

/// A unit's ratings: as rated, or stored bytes read on first use.
pub struct Ratings<D> {
    ratings: OnceLock<Vec<PlayerRating<D>>>,
    stored: Option<(Box<[u8]>, Decoder<D>)>,
}

impl<D> Ratings<D> {
    /// Ratings as a unit was rated.
    pub fn new(ratings: Vec<PlayerRating<D>>) -> Self {
        Self {
            ratings: OnceLock::from(ratings),
            stored: None,
        }
    }

    /// Stored ratings, read by `decode` when first looked at. Bytes that do not read give no
    /// ratings (and `ratedesk check` finds the unit different from a fresh calculation).
    pub fn stored(bytes: Box<[u8]>, decode: Decoder<D>) -> Self {
        Self {
            ratings: OnceLock::new(),
            stored: Some((bytes, decode)),
        }
    }

    /// The stored bytes, while the ratings have not been read from them: written again as
    /// they are.
    pub fn bytes(&self) -> Option<&[u8]> {
        match (&self.stored, self.ratings.get()) {
            (Some((bytes, _)), None) => Some(bytes),
            _ => None,
        }
    }

    pub fn as_slice(&self) -> &[PlayerRating<D>] {
        self.ratings.get_or_init(|| {
            self.stored
                .as_ref()
                .and_then(|(bytes, decode)| decode(bytes))
                .unwrap_or_default()
        })
    }
}

impl<D> std::ops::Deref for Ratings<D> {
    type Target = [PlayerRating<D>];

    fn deref(&self) -> &[PlayerRating<D>] {
        self.as_slice()
    }
}

impl<'a, D> IntoIterator for &'a Ratings<D> {
    type Item = &'a PlayerRating<D>;
    type IntoIter = std::slice::Iter<'a, PlayerRating<D>>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<D: Clone> Clone for Ratings<D> {
    fn clone(&self) -> Self {
        match (self.ratings.get(), &self.stored) {
            (None, Some((bytes, decode))) => Self::stored(bytes.clone(), *decode),
            _ => Self::new(self.as_slice().to_vec()),
        }
    }
}

impl<D: PartialEq> PartialEq for Ratings<D> {
    fn eq(&self, other: &Self) -> bool {
        match (self.bytes(), other.bytes()) {
            (Some(a), Some(b)) if a == b => true,
            _ => self.as_slice() == other.as_slice(),
        }
    }
}

impl<D: std::fmt::Debug> std::fmt::Debug for Ratings<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<D: Serialize> Serialize for Ratings<D> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
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
        PlayerRating {
            player,
            event: 0,
            old: None,
            new: 1500,
            established: false,
            games: 1,
            score: 1,
            expected: None,
            performance: None,
            factors: crate::rules::Factors::default(),
            lines: Default::default(),
            detail: (),
        }
    }

    fn decode(bytes: &[u8]) -> Option<Vec<PlayerRating>> {
        (bytes == b"two").then(|| vec![rating(1), rating(2)])
    }

    #[test]
    fn stored_ratings_are_read_on_first_use_and_bad_bytes_read_as_none() {
        let stored = Ratings::stored(b"two".to_vec().into(), decode);
        assert_eq!(stored.bytes(), Some(&b"two"[..]));
        assert_eq!(stored.clone(), Ratings::new(vec![rating(1), rating(2)]));
        assert_eq!(stored.len(), 2);
        assert_eq!(stored.bytes(), None, "read now");
        let bad = Ratings::stored(b"?".to_vec().into(), decode);
        assert!(bad.is_empty());
    }
}
