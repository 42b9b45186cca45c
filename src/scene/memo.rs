//! Transforms of one moment of a model's animation, kept while it is the moment asked for.

use std::cell::{Cell, RefCell, RefMut};

/// Per-node (or per-bone) transforms of one moment, kept while that moment is the one asked
/// for: a model's emitters step together, each asking for its node at the same moment, so a
/// chain of parents they share is posed once a step. A new moment empties it at once (a
/// generation count, not a pass over the entries). `K` names a moment, `T` is a transform.
pub struct MomentMemo<K, T> {
    moment: Cell<Option<K>>,
    generation: Cell<u32>,
    kept: RefCell<Vec<(u32, Option<T>)>>,
}

impl<K, T> Default for MomentMemo<K, T> {
    fn default() -> Self {
        MomentMemo {
            moment: Cell::new(None),
            generation: Cell::new(0),
            kept: RefCell::new(Vec::new()),
        }
    }
}

impl<K: Copy + PartialEq, T: Copy> MomentMemo<K, T> {
    /// The transforms kept for `moment` among `len` nodes: those kept since it was first
    /// asked for, if it is the moment asked for last; else none.
    pub fn at(&self, moment: K, len: usize) -> Moment<'_, T> {
        let mut kept = self.kept.borrow_mut();
        if self.moment.get() != Some(moment) || kept.len() != len {
            self.moment.set(Some(moment));
            let generation = self.generation.get().wrapping_add(1);
            if generation == 0 || kept.len() != len {
                *kept = vec![(0, None); len];
                self.generation.set(1);
            } else {
                self.generation.set(generation);
            }
        }
        Moment {
            generation: self.generation.get(),
            kept,
        }
    }
}

/// One moment's kept transforms ([`MomentMemo::at`]).
pub struct Moment<'a, T> {
    generation: u32,
    kept: RefMut<'a, Vec<(u32, Option<T>)>>,
}

impl<T: Copy> Moment<'_, T> {
    /// Node `i`'s transform, if kept at this moment.
    pub fn get(&self, i: usize) -> Option<T> {
        let (g, w) = self.kept[i];
        w.filter(|_| g == self.generation)
    }

    /// Keeps `w` as node `i`'s transform at this moment.
    pub fn keep(&mut self, i: usize, w: T) {
        self.kept[i] = (self.generation, Some(w));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What was kept is given back only at the same moment and node count.
    #[test]
    fn a_new_moment_forgets_what_was_kept() {
        let memo = MomentMemo::<u32, [f32; 3]>::default();
        let t = [1.0, 2.0, 3.0];
        let mut m = memo.at(5, 3);
        assert_eq!(m.get(1), None);
        m.keep(1, t);
        assert_eq!(m.get(1), Some(t));
        drop(m);
        assert_eq!(memo.at(5, 3).get(1), Some(t));
        assert_eq!(memo.at(6, 3).get(1), None);
        assert_eq!(memo.at(5, 3).get(1), None, "moment 5 again is asked anew");
        memo.at(5, 3).keep(2, t);
        assert_eq!(memo.at(5, 4).get(2), None);
    }
}
