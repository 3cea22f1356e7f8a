//! VMF ids: one counter for entities, solids and sides alike, as Hammer numbers them.

use std::collections::HashSet;

/// Hands out ids, skipping those already taken by entities' `hammerid`s.
#[derive(Debug, Default)]
pub(crate) struct Ids {
    next: i64,
    taken: HashSet<i64>,
}

impl Ids {
    /// A counter that never gives out one of `taken`.
    pub fn new(taken: impl IntoIterator<Item = i64>) -> Ids {
        Ids {
            next: 1,
            taken: taken.into_iter().collect(),
        }
    }

    pub fn next(&mut self) -> i64 {
        while self.taken.contains(&self.next) {
            self.next += 1;
        }
        self.next += 1;
        self.next - 1
    }
}
