//! Fixed-size bit sets over portals or clusters, in `u64` words.

/// A bit set of a fixed number of `u64` words.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bits {
    pub words: Vec<u64>,
}

impl Bits {
    pub fn new(words: usize) -> Bits {
        Bits {
            words: vec![0; words],
        }
    }
    #[inline(always)]
    pub fn get(&self, i: usize) -> bool {
        self.words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
    #[inline(always)]
    pub fn set(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }
    #[inline(always)]
    pub fn clear(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w &= !(1 << (i % 64));
        }
    }
    pub fn count(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }
    pub fn or_with(&mut self, other: &Bits) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }
    /// Indices of set bits, ascending.
    pub fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * 64 + b)
            })
        })
    }
    /// The row as bytes (bit `j` at byte `j / 8`, bit `j % 8`), `len` bytes.
    pub fn to_bytes(&self, len: usize) -> Vec<u8> {
        let mut out: Vec<u8> = self.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        out.resize(len, 0);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn basics() {
        let mut b = Bits::new(2);
        b.set(3);
        b.set(70);
        b.set(200); // out of range: ignored
        assert!(b.get(3) && b.get(70) && !b.get(4) && !b.get(200));
        assert_eq!(b.ones().collect::<Vec<_>>(), vec![3, 70]);
        assert_eq!(b.count(), 2);
        b.clear(3);
        assert_eq!(b.to_bytes(9), vec![0, 0, 0, 0, 0, 0, 0, 0, 64]);
    }
}
