//! Items grouped by a dense index (a player's slot in a unit or an event), each group in the
//! order its items came: one vector and the groups' offsets into it, filled by a counting sort
//! rather than a map of vectors. The rules rate a period's or an event's players this way.

/// Items grouped by a dense index `0..groups`.
pub(crate) struct Grouped<T> {
    items: Vec<T>,
    /// Group `g` holds `items[offsets[g]..offsets[g + 1]]`.
    offsets: Vec<usize>,
}

impl<T: Copy + Default> Grouped<T> {
    /// Groups what `each` gives, calling it twice (to count each group, then to place its
    /// items): it must give the same items in the same order both times.
    pub(crate) fn by(groups: usize, each: impl Fn(&mut dyn FnMut(usize, T))) -> Self {
        let mut offsets = vec![0usize; groups + 1];
        each(&mut |g, _| offsets[g + 1] += 1);
        for g in 0..groups {
            offsets[g + 1] += offsets[g];
        }
        let mut next = offsets.clone();
        let mut items = vec![T::default(); offsets[groups]];
        each(&mut |g, item| {
            items[next[g]] = item;
            next[g] += 1;
        });
        Self { items, offsets }
    }
}

impl<T> Grouped<T> {
    /// The items of group `g`, in the order they came.
    pub(crate) fn of(&self, g: usize) -> &[T] {
        &self.items[self.offsets[g]..self.offsets[g + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_group_keeps_its_items_in_the_order_they_came() {
        let items = [(2, 'a'), (0, 'b'), (2, 'c'), (1, 'd'), (0, 'e')];
        let grouped = Grouped::by(4, |visit| {
            for &(g, c) in &items {
                visit(g, c);
            }
        });
        assert_eq!(grouped.of(0), ['b', 'e']);
        assert_eq!(grouped.of(1), ['d']);
        assert_eq!(grouped.of(2), ['a', 'c']);
        assert_eq!(grouped.of(3), [] as [char; 0]);
    }
}
