//! The states a unit gives its players, by player: a vector sorted by player. A rulebook gives
//! them in that order ([`super::UnitOutcome::states`]), so a unit takes them as they come —
//! a map built from them was, for a keyed result in a Turkish month at a million players, a
//! fifth of the key's time spent laying out tens of thousands of states in tree nodes — and
//! looks a player up by halving. Stored as the map it replaces (the same bytes).

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::PlayerIdx;

/// Each player's state, one a player, in the order of their indices.
#[derive(Clone, PartialEq)]
pub struct States<S> {
    entries: Vec<(PlayerIdx, S)>,
}

impl<S> Default for States<S> {
    fn default() -> Self {
        Self {
            entries: Vec::new(),
        }
    }
}

/// The pair as a map's entry.
type Entry<'a, S> = (&'a PlayerIdx, &'a S);

/// The entries in the players' order.
pub type Iter<'a, S> =
    std::iter::Map<std::slice::Iter<'a, (PlayerIdx, S)>, fn(&(PlayerIdx, S)) -> Entry<'_, S>>;

fn as_entry<S>(pair: &(PlayerIdx, S)) -> Entry<'_, S> {
    (&pair.0, &pair.1)
}

impl<S> States<S> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn get(&self, player: &PlayerIdx) -> Option<&S> {
        self.entries
            .binary_search_by_key(player, |(p, _)| *p)
            .ok()
            .map(|at| &self.entries[at].1)
    }

    pub fn contains_key(&self, player: &PlayerIdx) -> bool {
        self.get(player).is_some()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The players and their states, in the players' order.
    pub fn iter(&self) -> Iter<'_, S> {
        self.entries
            .iter()
            .map(as_entry as fn(&(PlayerIdx, S)) -> Entry<'_, S>)
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &PlayerIdx> + '_ {
        self.entries.iter().map(|(p, _)| p)
    }
}

/// Pairs in the players' order, no player twice, are taken as they are (as a rulebook gives
/// them); others are put in order, the last pair of a player kept (as a map would).
impl<S> From<Vec<(PlayerIdx, S)>> for States<S> {
    fn from(mut entries: Vec<(PlayerIdx, S)>) -> Self {
        if !entries.windows(2).all(|w| w[0].0 < w[1].0) {
            // Stable: a player's pairs keep their order, and the last of them is kept.
            entries.sort_by_key(|(p, _)| *p);
            let mut kept: Vec<(PlayerIdx, S)> = Vec::with_capacity(entries.len());
            for pair in entries {
                match kept.last_mut() {
                    Some(last) if last.0 == pair.0 => *last = pair,
                    _ => kept.push(pair),
                }
            }
            entries = kept;
        }
        Self { entries }
    }
}

impl<S> FromIterator<(PlayerIdx, S)> for States<S> {
    fn from_iter<I: IntoIterator<Item = (PlayerIdx, S)>>(pairs: I) -> Self {
        Self::from(pairs.into_iter().collect::<Vec<_>>())
    }
}

impl<S> IntoIterator for States<S> {
    type Item = (PlayerIdx, S);
    type IntoIter = std::vec::IntoIter<(PlayerIdx, S)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a, S> IntoIterator for &'a States<S> {
    type Item = Entry<'a, S>;
    type IntoIter = Iter<'a, S>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<S: std::fmt::Debug> std::fmt::Debug for States<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// As the map of players to states it replaces: the same bytes.
impl<S: Serialize> Serialize for States<S> {
    fn serialize<Se: Serializer>(&self, s: Se) -> Result<Se::Ok, Se::Error> {
        let mut map = s.serialize_map(Some(self.len()))?;
        for (p, state) in self {
            map.serialize_entry(p, state)?;
        }
        map.end()
    }
}

impl<'de, S: Deserialize<'de>> Deserialize<'de> for States<S> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Pairs<S>(std::marker::PhantomData<S>);
        impl<'de, S: Deserialize<'de>> Visitor<'de> for Pairs<S> {
            type Value = States<S>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of players to states")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<States<S>, M::Error> {
                // As serde's own maps do: room for no more than a megabyte's worth up front.
                let hint = map.size_hint().unwrap_or(0);
                let most = (1 << 20) / std::mem::size_of::<(PlayerIdx, S)>().max(1);
                let mut pairs = Vec::with_capacity(hint.min(most));
                while let Some(pair) = map.next_entry()? {
                    pairs.push(pair);
                }
                Ok(States::from(pairs))
            }
        }
        d.deserialize_map(Pairs(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// Built from pairs in any order, with a player twice, the states are the map's: the last
    /// pair of a player kept, looked up, walked in order, and stored as the map's bytes.
    #[test]
    fn states_are_the_map_they_replace() {
        let pairs = [
            (7, 'a'),
            (2, 'b'),
            (7, 'c'),
            (0, 'd'),
            (1_000_000, 'e'),
            (2, 'f'),
        ];
        let map: BTreeMap<PlayerIdx, char> = pairs.iter().copied().collect();
        let states: States<char> = pairs.iter().copied().collect();
        assert!(states.iter().eq(map.iter()));
        assert_eq!(states.len(), map.len());
        for p in [0, 1, 2, 6, 7, 8, 999_999, 1_000_000, usize::MAX] {
            assert_eq!(states.get(&p), map.get(&p), "{p}");
            assert_eq!(states.contains_key(&p), map.contains_key(&p));
        }
        assert!(states.keys().eq(map.keys()));
        assert_eq!(format!("{states:?}"), format!("{map:?}"));
        let config = bincode::config::standard();
        let bytes = bincode::serde::encode_to_vec(&states, config).expect("encoded");
        assert_eq!(
            bytes,
            bincode::serde::encode_to_vec(&map, config).expect("map")
        );
        let (read, _): (States<char>, usize) =
            bincode::serde::decode_from_slice(&bytes, config).expect("decoded");
        assert_eq!(read, states);
        let sorted: States<char> = States::from(vec![(1, 'x'), (3, 'y')]);
        assert_eq!(sorted.into_iter().collect::<Vec<_>>(), [(1, 'x'), (3, 'y')]);
        assert!(States::<char>::new().is_empty());
    }
}
