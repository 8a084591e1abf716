//! What the screens compute from the record for the event in view — its standings, its
//! periods, the period figures of its players — kept until the record changes: a frame is
//! drawn at every key, and between two edits the record it reads is the same.

use std::cell::RefCell;
use std::sync::Arc;

/// A value computed from the record for one key, kept for the desk's revision it was computed
/// at ([`crate::app::Desk::revision`]); asked for another key or after an edit, computed again.
pub struct Kept<K, V> {
    last: RefCell<Option<(u64, K, Arc<V>)>>,
}

impl<K, V> Default for Kept<K, V> {
    fn default() -> Self {
        Self {
            last: RefCell::new(None),
        }
    }
}

impl<K: PartialEq, V> Kept<K, V> {
    /// The value for `key` at `revision`: the one kept if it is for both, else `compute`'s
    /// (then kept in its place).
    pub fn get(&self, revision: u64, key: K, compute: impl FnOnce() -> V) -> Arc<V> {
        if let Some((at, k, value)) = &*self.last.borrow()
            && *at == revision
            && *k == key
        {
            return Arc::clone(value);
        }
        let value = Arc::new(compute());
        *self.last.borrow_mut() = Some((revision, key, Arc::clone(&value)));
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn a_value_is_computed_again_for_another_key_or_revision_only() {
        let kept: Kept<usize, String> = Kept::default();
        let computed = Cell::new(0);
        let get = |revision, key| {
            kept.get(revision, key, || {
                computed.set(computed.get() + 1);
                format!("{key} at {revision}")
            })
        };
        assert_eq!(*get(1, 7), "7 at 1");
        assert_eq!(*get(1, 7), "7 at 1");
        assert_eq!(computed.get(), 1, "kept for the same key and revision");
        assert_eq!(*get(1, 8), "8 at 1");
        assert_eq!(*get(2, 8), "8 at 2");
        assert_eq!(*get(2, 8), "8 at 2");
        assert_eq!(computed.get(), 3);
        // Back to a key asked before: the one kept is the last only.
        assert_eq!(*get(2, 7), "7 at 2");
        assert_eq!(computed.get(), 4);
    }
}
