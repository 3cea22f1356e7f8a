//! A yes/no answer per luxel that changes rarely from one luxel to the next (does this sky
//! direction reach the sky from here?), found coarse to fine: traced on every `stride`-th
//! luxel of each face first, then at each halving of the stride a luxel between answered ones
//! takes their answer when they all agree, and is traced only when they disagree or one is
//! missing (the face's edge, a luxel with no sample, one the question does not apply to).
//! Luxels marked `alone` (a sample moved off the luxel grid) are always traced and speak for
//! no other.
//! Where an answer changes between two traced luxels and changes back before the next, the
//! luxels between are not traced and take the wrong answer: an occluder thinner than the
//! stride in that direction.
//! Some answers may be known before any is traced ([`Answered`], e.g. from neighbouring
//! questions that agree, `crate::skydirs`): those luxels are not traced and speak for their
//! neighbours as traced ones do.

/// A bit per luxel of the map (faces one after another, as [`LuxelGrid`] numbers them).
#[derive(Debug, Clone, Default)]
pub(crate) struct Bits(Vec<u64>);

impl Bits {
    pub fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }

    pub fn get(&self, bit: usize) -> bool {
        self.0[bit / 64] >> (bit % 64) & 1 != 0
    }

    pub fn set(&mut self, bit: usize, on: bool) {
        let word = &mut self.0[bit / 64];
        *word = (*word & !(1 << (bit % 64))) | (u64::from(on) << (bit % 64));
    }

    /// The `width` (at most [`ROW`]) bits from `start`, bit `s` of the answer for bit
    /// `start + s`.
    pub fn row(&self, start: usize, width: usize) -> u128 {
        let word = |w: usize| u128::from(self.0.get(w).copied().unwrap_or(0));
        let (w, shift) = (start / 64, start % 64);
        let two = (word(w) | word(w + 1) << 64) >> shift;
        let third = if shift == 0 {
            0
        } else {
            word(w + 2) << (128 - shift)
        };
        (two | third) & low_ones(width)
    }

    /// Where these bits are set, what the answers to other questions say: open where at least
    /// [`AGREEING`] of `open_from` are asked and all of those are open, shut where at least
    /// [`AGREEING`] of `shut_from` are asked and all of those are shut, but not at the luxels
    /// of `doubtful`. Each other question is its luxels asked and its answers. A word at a
    /// time: this runs for every luxel of the map in every direction.
    pub fn said_by(
        &self,
        open_from: &[(&Bits, &Bits)],
        shut_from: &[(&Bits, &Bits)],
        doubtful: &Bits,
    ) -> Answered {
        let n = self.0.len();
        let (mut known, mut open) = (Bits(vec![0; n]), Bits(vec![0; n]));
        for w in 0..n {
            let (enough, yes, no) = tally(open_from, w);
            let said_open = self.0[w] & enough & yes & !no;
            let (enough, yes, no) = tally(shut_from, w);
            let said_shut = self.0[w] & enough & no & !yes & !doubtful.0[w];
            known.0[w] = said_open | said_shut;
            open.0[w] = said_open;
        }
        Answered { known, open }
    }

    /// Sets every bit set in `other`.
    pub fn or_with(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    /// Sets in `out` the bits of `range` not set here.
    pub fn unset_in(&self, range: std::ops::Range<usize>, out: &mut Bits) {
        for (word, mask) in word_masks(range) {
            out.0[word] |= mask & !self.0[word];
        }
    }

    /// Whether any bit of `range` is set, a word at a time.
    pub fn any_in(&self, range: std::ops::Range<usize>) -> bool {
        word_masks(range).any(|(word, mask)| self.0[word] & mask != 0)
    }

    /// Clears the bits of `range`, a word at a time.
    pub fn clear(&mut self, range: std::ops::Range<usize>) {
        for (word, mask) in word_masks(range) {
            self.0[word] &= !mask;
        }
    }

    /// The bits set, in order.
    pub fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        (self.0.iter().enumerate()).flat_map(|(w, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    w * 64 + bit
                })
            })
        })
    }
}

/// [`Bits::said_by`] needs this many other answers at a luxel, all agreeing.
pub(crate) const AGREEING: usize = 3;

/// Of word `w`, the luxels where at least [`AGREEING`] of `others` are asked, those where one
/// asked is open, and those where one asked is shut (bit-sliced counters, saturating).
fn tally(others: &[(&Bits, &Bits)], w: usize) -> (u64, u64, u64) {
    let mut at_least = [0u64; AGREEING];
    let (mut yes, mut no) = (0, 0);
    for (asked, answer) in others {
        let a = asked.0[w];
        for c in (1..AGREEING).rev() {
            at_least[c] |= at_least[c - 1] & a;
        }
        at_least[0] |= a;
        yes |= a & answer.0[w];
        no |= a & !answer.0[w];
    }
    (at_least[AGREEING - 1], yes, no)
}

/// The words `range`'s bits lie in, each with the mask of those bits.
fn word_masks(range: std::ops::Range<usize>) -> impl Iterator<Item = (usize, u64)> {
    let mut bit = range.start;
    std::iter::from_fn(move || {
        (bit < range.end).then(|| {
            let (word, low) = (bit / 64, bit % 64);
            let high = (range.end - word * 64).min(64);
            bit = word * 64 + high;
            (word, (u64::MAX >> (64 - (high - low))) << low)
        })
    })
}

/// One face's luxels among the map's bits: its first bit and its luxel grid.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LuxelGrid {
    pub first: usize,
    pub width: usize,
    pub height: usize,
}

/// The luxels of all of `grids`.
pub(crate) fn luxel_count(grids: &[LuxelGrid]) -> usize {
    grids.last().map_or(0, |g| g.first + g.width * g.height)
}

/// A luxel of the map: its face and its index on the face.
pub(crate) type Luxel = (usize, usize);

/// The luxels asked, and those of them always traced on their own.
pub(crate) struct Asked<'a> {
    pub asked: &'a Bits,
    pub alone: &'a Bits,
}

/// Answers known before tracing: where `known` is set, `open` holds the answer.
#[derive(Debug, Clone)]
pub(crate) struct Answered {
    pub known: Bits,
    pub open: Bits,
}

impl Answered {
    /// Nothing known yet, for `len` luxels.
    pub fn none(len: usize) -> Answered {
        Answered {
            known: Bits::new(len),
            open: Bits::new(len),
        }
    }
}

/// The answers, as bits, for the luxels `asked` has set, starting from those `start` knows;
/// `trace` answers a batch of luxels at once (in the order given). `stride` 1 traces every
/// luxel asked and not known.
pub(crate) fn answer(
    grids: &[LuxelGrid],
    asked: &Asked<'_>,
    stride: usize,
    start: Answered,
    trace: &mut dyn FnMut(&[Luxel]) -> Vec<bool>,
) -> Bits {
    let Answered { mut known, mut open } = start;
    let top = stride.max(1).next_power_of_two();
    let mut step = top;
    loop {
        let todo = if step == top {
            top_level(grids, asked, &known, step)
        } else {
            settle_level(grids, asked, step, &mut known, &mut open)
        };
        for (&(face, l), yes) in todo.iter().zip(trace(&todo)) {
            let bit = grids[face].first + l;
            known.set(bit, true);
            open.set(bit, yes);
        }
        if step == 1 {
            return open;
        }
        step /= 2;
    }
}

/// The luxels asked of the top level and not `known`, all to be traced: those on its grid
/// (both coordinates multiples of `step`), and those alone. Only these are visited: this runs
/// for every direction, and visiting every luxel of the map to find them cost more than the
/// rest of the level.
fn top_level(grids: &[LuxelGrid], asked: &Asked<'_>, known: &Bits, step: usize) -> Vec<Luxel> {
    let wanted = |bit: usize| asked.asked.get(bit) && !known.get(bit);
    let mut alone = asked.alone.ones().peekable();
    let mut todo = Vec::new();
    for (face, g) in grids.iter().enumerate() {
        for t in (0..g.height).step_by(step) {
            for s in (0..g.width).step_by(step) {
                if wanted(g.first + t * g.width + s) {
                    todo.push((face, t * g.width + s));
                }
            }
        }
        let end = g.first + g.width * g.height;
        while let Some(bit) = alone.next_if(|&bit| bit < end) {
            let l = bit - g.first;
            let on_grid = multiple(l % g.width, step) && multiple(l / g.width, step);
            if wanted(bit) && !on_grid {
                todo.push((face, l));
            }
        }
    }
    todo
}

/// The luxels of level `step` below the top (both coordinates multiples of it, not both of
/// twice it): those whose answered neighbours agree get their answer; the others are returned
/// to be traced.
fn settle_level(
    grids: &[LuxelGrid],
    asked: &Asked<'_>,
    step: usize,
    known: &mut Bits,
    open: &mut Bits,
) -> Vec<Luxel> {
    let mut todo = Vec::new();
    // A face none of whose luxels are asked (one turned from the direction) is passed over
    // whole: visiting each of its luxels was most of this function's time.
    let asked_faces =
        (grids.iter().enumerate()).filter(|(_, g)| asked.asked.any_in(g.first..g.first + g.width * g.height));
    for (face, g) in asked_faces {
        let mut level = Level {
            asked,
            known,
            open,
            step,
        };
        if g.width <= ROW {
            level.settle_by_rows(face, g, &mut todo);
        } else {
            level.settle_by_luxels(face, g, &mut todo);
        }
    }
    todo
}

/// Luxels of a face row [`Level::settle_by_rows`] takes at once; wider faces are settled
/// luxel by luxel.
const ROW: usize = 128;

/// One level of [`answer`] being settled: what was asked, what is known so far, and the
/// level's step.
struct Level<'l, 'a> {
    asked: &'l Asked<'a>,
    known: &'l mut Bits,
    open: &'l mut Bits,
    step: usize,
}

impl Level<'_, '_> {
    /// [`settle_level`] on one face, a row of luxels at a time as bits (bit `s` for column
    /// `s`): the same luxels settled with the same answers and the same ones to trace, in
    /// the same order, as [`Level::settle_by_luxels`]; it took a quarter of vrad's sky table
    /// luxel by luxel on a3c8p1_forest_day.
    fn settle_by_rows(&mut self, face: usize, g: &LuxelGrid, todo: &mut Vec<Luxel>) {
        let step = self.step;
        let (on_level, on_coarser) = (every(step, g.width), every(2 * step, g.width));
        for t in (0..g.height).step_by(step) {
            let coarser_row = multiple(t, 2 * step);
            let cols = if coarser_row {
                on_level & !on_coarser
            } else {
                on_level
            };
            let here = self.row(self.asked.asked, g, t)
                & !self.row(self.asked.alone, g, t)
                & !self.row(self.known, g, t)
                & cols;
            if here == 0 {
                continue;
            }
            let (agree, yes) = if coarser_row {
                across(self.speaking(g, t), step)
            } else {
                let below = (t + step < g.height).then(|| self.speaking(g, t + step));
                up_and_down(
                    self.speaking(g, t - step),
                    below.unwrap_or((0, 0)),
                    on_coarser,
                    step,
                )
            };
            for s in row_ones(here & agree) {
                let bit = g.first + t * g.width + s;
                self.known.set(bit, true);
                self.open.set(bit, yes >> s & 1 != 0);
            }
            todo.extend(row_ones(here & !agree).map(|s| (face, t * g.width + s)));
        }
    }

    /// Row `t` of face `g` of `bits`.
    fn row(&self, bits: &Bits, g: &LuxelGrid, t: usize) -> u128 {
        bits.row(g.first + t * g.width, g.width)
    }

    /// Row `t`'s luxels that may speak for a neighbour (answered and not alone), and their
    /// answers.
    fn speaking(&self, g: &LuxelGrid, t: usize) -> (u128, u128) {
        let known = self.row(self.known, g, t) & !self.row(self.asked.alone, g, t);
        (known, self.row(self.open, g, t))
    }

    /// [`settle_level`] on one face, luxel by luxel.
    fn settle_by_luxels(&mut self, face: usize, g: &LuxelGrid, todo: &mut Vec<Luxel>) {
        let (asked, step) = (self.asked, self.step);
        for t in (0..g.height).step_by(step) {
            for s in (0..g.width).step_by(step) {
                let bit = g.first + t * g.width + s;
                if !asked.asked.get(bit)
                    || self.known.get(bit)
                    || !settled_on(step, (s, t), asked.alone.get(bit))
                {
                    continue;
                }
                match agreed(g, asked.alone, (self.known, self.open), (s, t), step) {
                    Some(yes) => {
                        self.known.set(bit, true);
                        self.open.set(bit, yes);
                    }
                    None => todo.push((face, t * g.width + s)),
                }
            }
        }
    }
}

/// Of a row's luxels, those whose neighbours `step` to the left and right (`speaking`, with
/// their answers) both speak and agree, and the answer.
fn across((speak, yes): (u128, u128), step: usize) -> (u128, u128) {
    let (left, right) = (speak << step, speak >> step);
    let (left_yes, right_yes) = (yes << step, yes >> step);
    (left & right & !(left_yes ^ right_yes), left_yes)
}

/// [`across`] for a row between two coarser ones (`above` and `below`, as [`across`] takes
/// them): a luxel in a coarser column (`coarser_cols`) takes the two above and below it, the
/// others the four at the corners.
fn up_and_down(above: (u128, u128), below: (u128, u128), coarser_cols: u128, step: usize) -> (u128, u128) {
    let straight = above.0 & below.0 & !(above.1 ^ below.1);
    let ((up, up_yes), (down, down_yes)) = (across(above, step), across(below, step));
    let corners = up & down & !(up_yes ^ down_yes);
    let agree = (straight & coarser_cols) | (corners & !coarser_cols);
    let yes = (above.1 & coarser_cols) | (up_yes & !coarser_cols);
    (agree, yes)
}

/// A row's bits at every multiple of `step` below `width`.
fn every(step: usize, width: usize) -> u128 {
    (0..width).step_by(step).fold(0, |bits, s| bits | 1 << s)
}

/// The lowest `n` bits (`n` at most 128).
fn low_ones(n: usize) -> u128 {
    u128::MAX.checked_shr(128 - n as u32).unwrap_or(0)
}

/// The bits set in a row, lowest first.
fn row_ones(mut bits: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let s = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            s
        })
    })
}

/// Whether luxel `(s, t)` of level `step`'s grid (`alone` or not) is settled on that level
/// below the top: those not alone, and not on the coarser level's grid.
#[inline]
fn settled_on(step: usize, (s, t): (usize, usize), alone: bool) -> bool {
    !(alone || (multiple(s, 2 * step) && multiple(t, 2 * step)))
}

/// Whether `c` is a multiple of `step`, a power of two (a mask, not a division: this runs for
/// every luxel of the map at each level of each direction).
#[inline]
fn multiple(c: usize, step: usize) -> bool {
    c & (step - 1) == 0
}

/// The answer of luxel `(s, t)`'s neighbours a `step` away along each axis on which it lies
/// between two coarser luxels, when they are all answered and agree.
fn agreed(
    g: &LuxelGrid,
    alone: &Bits,
    (known, open): (&Bits, &Bits),
    (s, t): (usize, usize),
    step: usize,
) -> Option<bool> {
    let around = |c: usize| -> [Option<usize>; 2] {
        if multiple(c, 2 * step) {
            [Some(c), Some(c)]
        } else {
            [Some(c - step), c.checked_add(step)]
        }
    };
    let mut answer = None;
    for y in around(t) {
        for x in around(s) {
            let (x, y) = (x?, y?);
            if x >= g.width || y >= g.height {
                return None;
            }
            let bit = g.first + y * g.width + x;
            if !known.get(bit) || alone.get(bit) || *answer.get_or_insert(open.get(bit)) != open.get(bit) {
                return None;
            }
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A single face `w × h`, every luxel asked.
    fn face(w: usize, h: usize) -> (Vec<LuxelGrid>, Bits) {
        let mut asked = Bits::new(w * h);
        (0..w * h).for_each(|b| asked.set(b, true));
        (
            vec![LuxelGrid {
                first: 0,
                width: w,
                height: h,
            }],
            asked,
        )
    }

    /// Answers `truth` and records how many luxels were traced.
    fn run(
        grids: &[LuxelGrid],
        asked: &Bits,
        stride: usize,
        truth: impl Fn(usize, usize) -> bool,
    ) -> (Bits, usize) {
        let mut traced = 0;
        let mut trace = |ls: &[Luxel]| {
            traced += ls.len();
            ls.iter().map(|&(f, l)| truth(f, l)).collect()
        };
        let alone = Bits::new(asked.0.len() * 64);
        let asked = Asked { asked, alone: &alone };
        let start = Answered::none(asked.asked.0.len() * 64);
        let bits = answer(grids, &asked, stride, start, &mut trace);
        (bits, traced)
    }

    /// A luxel is said open where at least three of the questions it is open from are asked
    /// there and all are open, shut where at least three of those it is shut from are asked
    /// and all are shut and it is not doubtful; fewer asked, a disagreement, a doubtful luxel
    /// for shut, or a luxel not asked itself leave it unknown.
    #[test]
    fn answers_are_said_by_three_or_more_that_agree() {
        let bits = |set: &[usize]| {
            let mut b = Bits::new(130);
            set.iter().for_each(|&i| b.set(i, true));
            b
        };
        // Luxels: 0 all open, 1 all shut, 2 open and shut, 3 two asked, 4 shut but doubtful,
        // 100 all open, 129 all open but not asked itself.
        let asked = bits(&[0, 1, 2, 3, 4, 100]);
        let everywhere = bits(&[0, 1, 2, 3, 4, 100, 129]);
        let a = (&everywhere, &bits(&[0, 2, 3, 100, 129]));
        let b = (&everywhere, &bits(&[0, 3, 100, 129]));
        let c_asked = bits(&[0, 1, 2, 4, 100, 129]);
        let c = (&c_asked, &bits(&[0, 100, 129]));
        let doubtful = bits(&[4, 0]);
        let said = asked.said_by(&[a, b, c], &[a, b, c], &doubtful);
        assert_eq!(said.known.ones().collect::<Vec<_>>(), [0, 1, 100]);
        assert_eq!(said.open.ones().collect::<Vec<_>>(), [0, 100]);
        // Open only from the first two: too few to say anything open.
        let said = asked.said_by(&[a, b], &[a, b, c], &Bits::new(130));
        assert_eq!(said.known.ones().collect::<Vec<_>>(), [1, 4]);
        assert_eq!(said.open.ones().count(), 0);
    }

    /// Luxels known before tracing are not traced and keep their answers; their neighbours
    /// take them where they agree.
    #[test]
    fn answers_known_before_are_kept_untraced_and_speak_for_neighbours() {
        let (grids, asked) = face(8, 8);
        let alone = Bits::new(64);
        let luxels = Asked {
            asked: &asked,
            alone: &alone,
        };
        let mut start = Answered::none(64);
        // The top level's grid (every other luxel) known open; luxel 9 (between them) too.
        for l in [0, 2, 4, 6, 16, 18, 20, 22, 9] {
            start.known.set(l, true);
            start.open.set(l, true);
        }
        let mut traced = Vec::new();
        let mut trace = |ls: &[Luxel]| {
            traced.extend(ls.iter().map(|&(_, l)| l));
            vec![false; ls.len()]
        };
        let open = answer(&grids, &luxels, 2, start, &mut trace);
        for l in [0, 2, 9, 16, 1, 17, 8, 3] {
            assert!(open.get(l), "luxel {l}");
            assert!(!traced.contains(&l), "luxel {l} traced");
        }
        assert!(traced.contains(&32) && !open.get(32));
    }

    #[test]
    fn ones_lists_the_bits_set_in_order() {
        let mut bits = Bits::new(200);
        let set = [0, 5, 63, 64, 65, 127, 130, 199];
        set.iter().for_each(|&b| bits.set(b, true));
        assert_eq!(bits.ones().collect::<Vec<_>>(), set);
        assert_eq!(Bits::new(200).ones().count(), 0);
    }

    /// Random faces (up to the widest a row takes), random luxels asked, alone, known and
    /// open: row by row and luxel by luxel settle the same luxels, the same way, and leave
    /// the same ones to trace in the same order.
    #[test]
    fn settling_by_rows_is_settling_by_luxels() {
        let mut seed = 0x9e37_79b9_u64;
        let mut coin = |odds: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed.is_multiple_of(odds)
        };
        let (mut settled, mut traced) = (0, 0);
        for case in 0..400 {
            let (w, h) = (1 + case % ROW, 1 + (case * 7) % 40);
            let g = LuxelGrid {
                first: case % 70,
                width: w,
                height: h,
            };
            let total = g.first + w * h;
            let mut bits = [(); 4].map(|_| Bits::new(total));
            for bit in g.first..total {
                let [asked, alone, known, open] = &mut bits;
                asked.set(bit, !coin(5));
                alone.set(bit, coin(9));
                known.set(bit, !coin(4));
                open.set(bit, coin(2) || coin(2));
            }
            let [asked, alone, known, open] = bits;
            let asked = Asked {
                asked: &asked,
                alone: &alone,
            };
            for step in [1, 2, 4] {
                let run = |by_rows: bool| {
                    let (mut known, mut open, mut todo) = (known.clone(), open.clone(), Vec::new());
                    let mut level = Level {
                        asked: &asked,
                        known: &mut known,
                        open: &mut open,
                        step,
                    };
                    if by_rows {
                        level.settle_by_rows(3, &g, &mut todo);
                    } else {
                        level.settle_by_luxels(3, &g, &mut todo);
                    }
                    (known.0, open.0, todo)
                };
                let want = run(false);
                assert_eq!(run(true), want, "case {case} step {step}");
                settled += want
                    .0
                    .iter()
                    .zip(&known.0)
                    .map(|(a, b)| (a ^ b).count_ones())
                    .sum::<u32>();
                traced += want.2.len();
            }
        }
        assert!(
            settled > 10_000 && traced > 10_000,
            "settled {settled}, traced {traced}"
        );
    }

    #[test]
    fn a_row_is_its_bits_from_anywhere() {
        let mut bits = Bits::new(400);
        for b in [0, 1, 63, 64, 65, 127, 128, 129, 190, 191, 192, 255, 256, 300, 399] {
            bits.set(b, true);
        }
        for start in [0, 1, 5, 63, 64, 65, 100, 127, 128, 200, 271, 272] {
            for width in [0, 1, 7, 63, 64, 65, 100, 127, 128] {
                let row = bits.row(start, width);
                for s in 0..128 {
                    let want = s < width && start + s < 400 && bits.get(start + s);
                    assert_eq!(row >> s & 1 != 0, want, "{start} {width} {s}");
                }
            }
        }
    }

    #[test]
    fn any_in_a_range_sees_only_the_bits_of_that_range() {
        let mut bits = Bits::new(200);
        bits.set(70, true);
        bits.set(130, true);
        for (start, end, want) in [
            (0, 70, false),
            (0, 71, true),
            (70, 71, true),
            (71, 130, false),
            (71, 131, true),
            (131, 200, false),
            (5, 5, false),
        ] {
            assert_eq!(bits.any_in(start..end), want, "{start}..{end}");
        }
    }

    #[test]
    fn clearing_a_range_clears_those_bits_and_no_other() {
        for (start, end) in [
            (0, 0),
            (0, 1),
            (3, 64),
            (0, 64),
            (63, 65),
            (64, 128),
            (5, 190),
            (130, 200),
            (199, 200),
        ] {
            let mut bits = Bits::new(200);
            (0..200).for_each(|b| bits.set(b, true));
            bits.clear(start..end);
            assert!(
                (0..200).all(|b| bits.get(b) != (start..end).contains(&b)),
                "{start}..{end}"
            );
        }
    }

    #[test]
    fn the_top_level_traces_its_grid_and_the_luxels_alone_only() {
        // Two faces, 5 x 3 and 4 x 4, stride 4: the grid luxels (0, 0), (4, 0) of the first and
        // (0, 0) of the second, plus luxel 7 of the first and 5 of the second alone.
        let grids = [
            LuxelGrid {
                first: 0,
                width: 5,
                height: 3,
            },
            LuxelGrid {
                first: 15,
                width: 4,
                height: 4,
            },
        ];
        let mut asked = Bits::new(31);
        (0..31).for_each(|b| asked.set(b, true));
        let mut alone = Bits::new(31);
        [7, 20, 15].iter().for_each(|&b| alone.set(b, true));
        let asked = Asked {
            asked: &asked,
            alone: &alone,
        };
        let todo = top_level(&grids, &asked, &Bits::new(31), 4);
        assert_eq!(todo, [(0, 0), (0, 4), (0, 7), (1, 0), (1, 5)]);
    }

    #[test]
    fn a_smooth_answer_is_exact_and_traces_few_luxels() {
        let (grids, asked) = face(33, 17);
        // A half plane: the answer changes once along each row.
        let truth = |_: usize, l: usize| (l % 33) * 2 + (l / 33) > 30;
        for stride in [1, 2, 4, 8] {
            let (bits, traced) = run(&grids, &asked, stride, truth);
            assert!(
                (0..33 * 17).all(|l| bits.get(l) == truth(0, l)),
                "stride {stride}"
            );
            if stride == 1 {
                assert_eq!(traced, 33 * 17);
            } else {
                assert!(traced < 33 * 17 / 2, "stride {stride}: {traced} traced");
            }
        }
    }

    #[test]
    fn luxels_not_asked_are_neither_traced_nor_used() {
        let (grids, mut asked) = face(9, 9);
        // Every other column not asked: no luxel has two asked neighbours along s.
        (0..81)
            .filter(|l| l % 9 % 2 == 1)
            .for_each(|l| asked.set(l, false));
        let mut seen = Vec::new();
        let mut trace = |ls: &[Luxel]| {
            seen.extend_from_slice(ls);
            vec![true; ls.len()]
        };
        let alone = Bits::new(81);
        let bits = answer(
            &grids,
            &Asked {
                asked: &asked,
                alone: &alone,
            },
            4,
            Answered::none(81),
            &mut trace,
        );
        assert!(seen.iter().all(|&(_, l)| asked.get(l)));
        assert!((0..81).all(|l| bits.get(l) == asked.get(l)));
    }

    #[test]
    fn a_thin_line_between_traced_luxels_is_the_price() {
        let (grids, asked) = face(9, 1);
        // Only luxel 1 differs: at stride 2 its neighbours 0 and 2 agree, so it is not traced.
        let truth = |_: usize, l: usize| l == 1;
        assert!(!run(&grids, &asked, 2, truth).0.get(1));
        assert!(run(&grids, &asked, 1, truth).0.get(1));
    }

    #[test]
    fn a_luxel_alone_is_traced_and_speaks_for_no_other() {
        let (grids, asked) = face(5, 1);
        let mut alone = Bits::new(5);
        alone.set(3, true);
        let mut seen = Vec::new();
        let mut trace = |ls: &[Luxel]| {
            seen.extend_from_slice(ls);
            vec![true; ls.len()]
        };
        answer(
            &grids,
            &Asked {
                asked: &asked,
                alone: &alone,
            },
            2,
            Answered::none(5),
            &mut trace,
        );
        // 0, 2, 4 on the coarse level, 3 alone, and 1 between two that agree: not traced.
        let mut lux: Vec<usize> = seen.iter().map(|&(_, l)| l).collect();
        lux.sort_unstable();
        assert_eq!(lux, [0, 2, 3, 4]);
    }
}
