//! Tables and sets over every player of a federation that an update touches only a few of: held
//! in pages made when one of their entries is first set. A keyed result moves a handful of
//! players of a million, and a flat vector or bit set over all of them was hundreds of
//! kilobytes to allocate and clear at every key.

/// A value for each index, `T::default()` until set, in pages of `PAGE` values.
#[derive(Clone, Debug, Default)]
pub struct Paged<T, const PAGE: usize> {
    pages: Vec<Option<Box<[T; PAGE]>>>,
}

impl<T: Copy + Default, const PAGE: usize> Paged<T, PAGE> {
    pub fn new() -> Self {
        Self { pages: Vec::new() }
    }

    /// The value at `i` (the default where none was set).
    pub fn get(&self, i: usize) -> T {
        self.pages
            .get(i / PAGE)
            .and_then(Option::as_deref)
            .map_or_else(T::default, |page| page[i % PAGE])
    }

    /// The value at `i`, its page made if it was not.
    pub fn get_mut(&mut self, i: usize) -> &mut T {
        let at = i / PAGE;
        if self.pages.len() <= at {
            self.pages.resize_with(at + 1, || None);
        }
        let page = self.pages[at].get_or_insert_with(|| Box::new([T::default(); PAGE]));
        &mut page[i % PAGE]
    }

    /// How many pages are made.
    pub fn pages(&self) -> usize {
        self.pages.iter().flatten().count()
    }
}

/// A set of indices (players, or a player's lane at `player × lists + list`), in pages of 4 096
/// bits.
#[derive(Clone, Debug, Default)]
pub struct PagedBits {
    words: Paged<u64, 64>,
}

impl PagedBits {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn contains(&self, i: usize) -> bool {
        self.words.get(i / 64) & (1 << (i % 64)) != 0
    }

    /// Adds `i`; whether it was not in the set.
    pub fn insert(&mut self, i: usize) -> bool {
        let word = self.words.get_mut(i / 64);
        let bit = 1 << (i % 64);
        let new = *word & bit == 0;
        *word |= bit;
        new
    }

    /// How many pages of bits are made.
    pub fn pages(&self) -> usize {
        self.words.pages()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn values_are_the_default_until_set_and_kept_by_index_across_pages() {
        let mut steps: Paged<u64, 4096> = Paged::new();
        assert_eq!(steps.get(0), 0);
        assert_eq!(steps.get(1_000_000), 0);
        for (p, step) in [(0, 1), (4095, 2), (4096, 3), (999_999, 4), (4095, 5)] {
            *steps.get_mut(p) = step;
        }
        assert_eq!(
            [0, 1, 4095, 4096, 4097, 999_999, 1_000_000].map(|p| steps.get(p)),
            [1, 0, 5, 3, 0, 4, 0]
        );
        assert_eq!(steps.pages(), 3, "only the pages set");
    }

    #[test]
    fn bits_at_the_edges_of_words_and_pages() {
        let mut bits = PagedBits::new();
        let edges = [0, 63, 64, 4095, 4096, 4097, 3_000_000];
        for i in edges {
            assert!(!bits.contains(i));
            assert!(bits.insert(i), "{i} was not in");
            assert!(!bits.insert(i), "{i} is in");
            assert!(bits.contains(i));
        }
        for i in [1, 62, 65, 4094, 4098, 2_999_999, 3_000_001, usize::MAX / 2] {
            assert!(!bits.contains(i), "{i} never inserted");
        }
        assert_eq!(bits.pages(), 3, "pages 0, 1 and 732");
    }

    proptest! {
        /// The same as a flat bit set for any inserts.
        #[test]
        fn bits_agree_with_a_flat_set(inserts in prop::collection::vec(0usize..20_000, 0..200)) {
            let mut paged = PagedBits::new();
            let mut flat = fixedbitset::FixedBitSet::with_capacity(20_000);
            for &i in &inserts {
                prop_assert_eq!(paged.insert(i), !flat.put(i));
            }
            for i in 0..20_000 {
                prop_assert_eq!(paged.contains(i), flat.contains(i));
            }
        }
    }
}
