//! The machinery every fixed-size record shares: an infallible cursor over one record's bytes, a
//! writer that notes (rather than hides) values too wide for their on-disk field, and the
//! [`Record`] trait with the layout context that selects a game's variant.

use std::borrow::Cow;

use srcmap_bytes::{Endian, ReadError, Reader, Writer};

use crate::error::{BspError, Result};

/// What decides a record's layout: the BSP version, the lump's own version and the byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ctx {
    pub endian: Endian,
    pub bsp_version: i32,
    pub lump_version: u32,
}

impl Ctx {
    pub fn new(endian: Endian, bsp_version: i32, lump_version: u32) -> Self {
        Ctx {
            endian,
            bsp_version,
            lump_version,
        }
    }
    /// Strata Source (v25) widened most indices to 32 bits in lumps whose version it bumped.
    pub fn strata(&self, min_lump_version: u32) -> bool {
        self.bsp_version == 25 && self.lump_version >= min_lump_version
    }
}

/// A cursor over exactly one record's bytes. The caller has sliced the right length, so reads
/// cannot run out; past the end they yield zero instead of panicking.
pub struct Cur<'a> {
    b: &'a [u8],
    p: usize,
    big: bool,
}

impl<'a> Cur<'a> {
    #[inline(always)]
    pub fn new(b: &'a [u8], endian: Endian) -> Self {
        Cur {
            b,
            p: 0,
            big: endian == Endian::Big,
        }
    }
    #[inline(always)]
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut a = [0u8; N];
        if let Some(s) = self.b.get(self.p..self.p + N) {
            a.copy_from_slice(s);
        }
        self.p += N;
        a
    }
    #[inline(always)]
    pub fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    #[inline(always)]
    pub fn i8(&mut self) -> i8 {
        self.take::<1>()[0] as i8
    }
    #[inline(always)]
    pub fn u16(&mut self) -> u16 {
        let a = self.take();
        if self.big {
            u16::from_be_bytes(a)
        } else {
            u16::from_le_bytes(a)
        }
    }
    #[inline(always)]
    pub fn i16(&mut self) -> i16 {
        self.u16() as i16
    }
    /// An index or count field: `u32` in Strata's wide layouts (`wide`), `u16` otherwise.
    #[inline(always)]
    pub fn index(&mut self, wide: bool) -> u32 {
        if wide { self.u32() } else { self.u16() as u32 }
    }
    #[inline(always)]
    pub fn u32(&mut self) -> u32 {
        let a = self.take();
        if self.big {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        }
    }
    #[inline(always)]
    pub fn i32(&mut self) -> i32 {
        self.u32() as i32
    }
    #[inline(always)]
    pub fn f32(&mut self) -> f32 {
        f32::from_bits(self.u32())
    }
    #[inline(always)]
    pub fn vec3(&mut self) -> [f32; 3] {
        [self.f32(), self.f32(), self.f32()]
    }
    #[inline(always)]
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        self.take()
    }
    /// `n` consecutive `i32`s (zeros past the end), decoded in one loop.
    pub fn i32s(&mut self, n: usize) -> Vec<i32> {
        let start = self.p.min(self.b.len());
        let end = self.p.saturating_add(n.saturating_mul(4)).min(self.b.len());
        let (words, _) = self.b[start..end].as_chunks::<4>();
        let mut v: Vec<i32> = if self.big {
            words.iter().map(|&w| i32::from_be_bytes(w)).collect()
        } else {
            words.iter().map(|&w| i32::from_le_bytes(w)).collect()
        };
        v.resize(n, 0);
        self.p = self.p.saturating_add(n.saturating_mul(4));
        v
    }
}

/// A writer that records the first value that did not fit its field.
pub struct Out {
    pub w: Writer,
    pub overflow: Option<String>,
}

impl Out {
    pub fn new(endian: Endian, cap: usize) -> Self {
        Out {
            w: Writer::with_capacity(endian, cap),
            overflow: None,
        }
    }
    fn note(&mut self, what: &str, v: i64) {
        if self.overflow.is_none() {
            self.overflow = Some(format!("{what} = {v} does not fit its field"));
        }
    }
    /// Records a value that cannot be written (the first one is reported).
    pub fn fail(&mut self, message: String) {
        if self.overflow.is_none() {
            self.overflow = Some(message);
        }
    }
    pub fn u16_from(&mut self, v: u32, what: &str) {
        if v > u16::MAX as u32 {
            self.note(what, v as i64);
        }
        self.w.u16(v as u16);
    }
    /// Writes an index or count field as [`Cur::index`] reads it: `u32` when `wide`, else a
    /// `u16` (a larger value is an overflow naming `what`).
    pub fn index(&mut self, v: u32, wide: bool, what: &str) {
        if wide {
            self.w.u32(v)
        } else {
            self.u16_from(v, what)
        }
    }
    pub fn i16_from(&mut self, v: i32, what: &str) {
        if v < i16::MIN as i32 || v > i16::MAX as i32 {
            self.note(what, v as i64);
        }
        self.w.i16(v as i16);
    }
    /// Node and leaf bounds are whole numbers stored as shorts outside Strata.
    pub fn i16_from_f32(&mut self, v: f32, what: &str) {
        if !(i16::MIN as f32..=i16::MAX as f32).contains(&v) {
            self.note(what, v as i64);
        }
        self.w.i16(v as i16);
    }
    /// Finishes, turning an overflow into an error naming the lump.
    pub fn finish(self, lump: usize) -> Result<Vec<u8>> {
        match self.overflow {
            Some(message) => Err(BspError::Write { lump, message }),
            None => Ok(self.w.buf),
        }
    }
}

/// A plain value with one on-disk layout.
pub trait Field: Sized {
    const SIZE: usize;
    fn get(c: &mut Cur<'_>) -> Self;
    fn put(&self, w: &mut Out);
}

macro_rules! prim_field {
    ($($t:ty, $n:expr, $get:ident;)*) => {$(
        impl Field for $t {
            const SIZE: usize = $n;
            #[inline(always)]
            fn get(c: &mut Cur<'_>) -> Self { c.$get() }
            #[inline]
            fn put(&self, w: &mut Out) { w.w.$get(*self) }
        }
    )*};
}
prim_field! { u8, 1, u8; i8, 1, i8; u16, 2, u16; i16, 2, i16; u32, 4, u32; i32, 4, i32; f32, 4, f32; }

impl<T: Field + Copy + Default, const N: usize> Field for [T; N] {
    const SIZE: usize = T::SIZE * N;
    #[inline(always)]
    fn get(c: &mut Cur<'_>) -> Self {
        let mut a = [T::default(); N];
        for v in a.iter_mut() {
            *v = T::get(c);
        }
        a
    }
    #[inline]
    fn put(&self, w: &mut Out) {
        for v in self {
            v.put(w);
        }
    }
}

/// Types whose in-memory layout is exactly their little-endian on-disk layout (`#[repr(C)]`,
/// no padding, every bit pattern valid: [`bytemuck::Pod`]). A little-endian lump of them can
/// be viewed in place.
pub trait Plain: bytemuck::Pod {}
impl<T: bytemuck::Pod> Plain for T {}

/// Views `data` as records in place: on a little-endian host, for a little-endian lump whose
/// length is a whole number of records and whose start is aligned for `T`. Otherwise `None`
/// (big-endian file or host, or a misaligned lump): the caller decodes a copy.
#[inline]
pub fn cast_slice<T: Plain>(data: &[u8], endian: Endian) -> Option<&[T]> {
    if cfg!(target_endian = "big") || endian != Endian::Little {
        return None;
    }
    bytemuck::try_cast_slice(data).ok()
}

/// A lump record whose size and layout may depend on the game ([`Ctx`]).
pub trait Record: Sized {
    /// Bytes per record, or `None` when this version's layout is unknown (the lump stays bytes).
    fn size(ctx: &Ctx) -> Option<usize>;
    fn read(c: &mut Cur<'_>, ctx: &Ctx) -> Self;
    fn write(&self, w: &mut Out, ctx: &Ctx);
    /// Reads every `size`-byte record of `data` (a whole number of them) into `out` (a `Vec`
    /// or an arena). Types override this with [`read_sizes!`] to give the compiler each record
    /// length as a constant.
    fn read_all<C: Collect<Self>>(data: &[u8], size: usize, ctx: &Ctx, out: C) -> C::Out {
        read_chunks(data, size, ctx, out)
    }
    /// `data` viewed in place as records, when this type's memory layout is its on-disk layout
    /// for `ctx` and the bytes allow it ([`cast_slice`]). The default: never.
    fn borrow<'a>(_data: &'a [u8], _ctx: &Ctx) -> Option<&'a [Self]> {
        None
    }
}

/// Where decoded records go: a `Vec` ([`ToVec`]) or an arena ([`ToArena`]).
pub trait Collect<T> {
    type Out;
    fn collect<I: ExactSizeIterator<Item = T>>(self, records: I) -> Self::Out;
}

/// Decoded records into a new `Vec`.
pub struct ToVec;

impl<T> Collect<T> for ToVec {
    type Out = Vec<T>;
    #[inline]
    fn collect<I: ExactSizeIterator<Item = T>>(self, records: I) -> Vec<T> {
        records.collect()
    }
}

/// Decoded records into a bump arena (one allocation for many lumps; nothing is dropped, so
/// only for `Copy` records).
pub struct ToArena<'a>(pub &'a bumpalo::Bump);

impl<'a, T: Copy + 'a> Collect<T> for ToArena<'a> {
    type Out = &'a [T];
    #[inline]
    fn collect<I: ExactSizeIterator<Item = T>>(self, records: I) -> &'a [T] {
        self.0.alloc_slice_fill_iter(records)
    }
}

/// Reads `size`-byte records one cursor at a time (any length known only at run time).
pub fn read_chunks<T: Record, C: Collect<T>>(data: &[u8], size: usize, ctx: &Ctx, out: C) -> C::Out {
    out.collect(
        data.chunks_exact(size)
            .map(|chunk| T::read(&mut Cur::new(chunk, ctx.endian), ctx)),
    )
}

/// Reads `N`-byte records: with the length and byte order constant in the loop, the cursor's
/// reads compile to plain loads, without bounds checks or byte-order branches.
#[inline]
pub fn read_fixed<T: Record, C: Collect<T>, const N: usize>(data: &[u8], ctx: &Ctx, out: C) -> C::Out {
    let (chunks, _) = data.as_chunks::<N>();
    if ctx.endian == Endian::Big {
        out.collect(chunks.iter().map(|c| T::read(&mut Cur::new(c, Endian::Big), ctx)))
    } else {
        out.collect(
            chunks
                .iter()
                .map(|c| T::read(&mut Cur::new(c, Endian::Little), ctx)),
        )
    }
}

/// Implements [`Record::read_all`] with a constant record length for each listed size.
macro_rules! read_sizes {
    ($($n:literal),*) => {
        fn read_all<C: $crate::codec::Collect<Self>>(
            data: &[u8],
            size: usize,
            ctx: &$crate::codec::Ctx,
            out: C,
        ) -> C::Out {
            match size {
                $($n => $crate::codec::read_fixed::<Self, C, $n>(data, ctx, out),)*
                _ => $crate::codec::read_chunks(data, size, ctx, out),
            }
        }
    };
}
pub(crate) use read_sizes;

/// A record with one layout: implements [`Field`] (to nest) and [`Record`].
macro_rules! simple_record {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident : $t:ty,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
        #[repr(C)]
        pub struct $name { $($(#[$fm])* pub $f: $t,)* }
        // `Pod` checks every field is plain data and the struct has no padding; the size check
        // that its memory layout is its on-disk layout.
        const _: () = assert!(std::mem::size_of::<$name>() == <$name as $crate::codec::Field>::SIZE);
        impl $crate::codec::Field for $name {
            const SIZE: usize = 0 $(+ <$t as $crate::codec::Field>::SIZE)*;
            #[inline(always)]
            fn get(c: &mut $crate::codec::Cur<'_>) -> Self {
                $name { $($f: $crate::codec::Field::get(c),)* }
            }
            #[inline]
            fn put(&self, w: &mut $crate::codec::Out) {
                $($crate::codec::Field::put(&self.$f, w);)*
            }
        }
        impl $crate::codec::Record for $name {
            fn size(_: &$crate::codec::Ctx) -> Option<usize> {
                Some(<$name as $crate::codec::Field>::SIZE)
            }
            #[inline(always)]
            fn read(c: &mut $crate::codec::Cur<'_>, _: &$crate::codec::Ctx) -> Self {
                <$name as $crate::codec::Field>::get(c)
            }
            fn read_all<C: $crate::codec::Collect<Self>>(
                data: &[u8],
                _: usize,
                ctx: &$crate::codec::Ctx,
                out: C,
            ) -> C::Out {
                $crate::codec::read_fixed::<Self, C, { <$name as $crate::codec::Field>::SIZE }>(data, ctx, out)
            }
            #[inline]
            fn borrow<'a>(data: &'a [u8], ctx: &$crate::codec::Ctx) -> Option<&'a [Self]> {
                $crate::codec::cast_slice(data, ctx.endian)
            }
            #[inline]
            fn write(&self, w: &mut $crate::codec::Out, _: &$crate::codec::Ctx) {
                <$name as $crate::codec::Field>::put(self, w)
            }
        }
    };
}
pub(crate) use simple_record;

impl Record for [f32; 3] {
    fn size(_: &Ctx) -> Option<usize> {
        Some(12)
    }
    #[inline]
    fn read(c: &mut Cur<'_>, _: &Ctx) -> Self {
        c.vec3()
    }
    fn read_all<C: Collect<Self>>(data: &[u8], _: usize, ctx: &Ctx, out: C) -> C::Out {
        read_fixed::<Self, C, 12>(data, ctx, out)
    }
    #[inline]
    fn borrow<'a>(data: &'a [u8], ctx: &Ctx) -> Option<&'a [Self]> {
        cast_slice(data, ctx.endian)
    }
    #[inline]
    fn write(&self, w: &mut Out, _: &Ctx) {
        self.put(w)
    }
}

/// Parses a whole lump of records. `Ok(None)`: the layout for this version is unknown.
pub fn read_records<T: Record>(data: &[u8], ctx: &Ctx, lump: usize, base: u64) -> Result<Option<Vec<T>>> {
    let Some(size) = T::size(ctx) else { return Ok(None) };
    check_whole(data, size, ctx, lump, base)?;
    Ok(Some(T::read_all(data, size, ctx, ToVec)))
}

/// A lump of `size`-byte records must hold a whole number of them.
fn check_whole(data: &[u8], size: usize, ctx: &Ctx, lump: usize, base: u64) -> Result<()> {
    if !data.len().is_multiple_of(size) {
        return Err(BspError::lump(
            lump,
            base + (data.len() - data.len() % size) as u64,
            format!(
                "length {} is not a multiple of the {size}-byte record (v{})",
                data.len(),
                ctx.lump_version
            ),
        ));
    }
    Ok(())
}

/// The lump bytes' borrow from the file, when they are the file's bytes (not decompressed).
#[inline]
pub fn file_bytes<'a>(data: &Cow<'a, [u8]>) -> Option<&'a [u8]> {
    match data {
        Cow::Borrowed(b) => Some(b),
        Cow::Owned(_) => None,
    }
}

/// [`read_records`], viewing the records in place where the layout and bytes allow
/// ([`Record::borrow`]) and decoding a copy otherwise: into `arena` when there is one.
pub fn read_records_cow<'a, T: Record + Copy>(
    data: &Cow<'a, [u8]>,
    ctx: &Ctx,
    lump: usize,
    base: u64,
    arena: Option<&'a bumpalo::Bump>,
) -> Result<Option<Cow<'a, [T]>>> {
    if data.is_empty() && T::size(ctx).is_some() {
        return Ok(Some(Cow::Borrowed(&[])));
    }
    if let Some(b) = file_bytes(data)
        && let Some(s) = T::borrow(b, ctx)
    {
        return Ok(Some(Cow::Borrowed(s)));
    }
    let Some(arena) = arena else {
        return Ok(read_records(data, ctx, lump, base)?.map(Cow::Owned));
    };
    let Some(size) = T::size(ctx) else { return Ok(None) };
    check_whole(data, size, ctx, lump, base)?;
    Ok(Some(Cow::Borrowed(T::read_all(data, size, ctx, ToArena(arena)))))
}

/// A lump that is a plain list of `i32` or `u16` (surfedges, the string table, ...).
pub fn read_scalars<'a, T: Scalar>(
    data: &Cow<'a, [u8]>,
    ctx: &Ctx,
    lump: usize,
    base: u64,
) -> Result<Cow<'a, [T]>> {
    let size = std::mem::size_of::<T>();
    if !data.len().is_multiple_of(size) {
        // The offsets earlier versions reported: the end for i32 lists, the last byte for u16.
        let at = if size == 4 { data.len() } else { data.len() - 1 };
        return Err(BspError::lump(
            lump,
            base + at as u64,
            format!("length {} is not a multiple of {size}", data.len()),
        ));
    }
    if let Some(b) = file_bytes(data)
        && let Some(s) = cast_slice(b, ctx.endian)
    {
        return Ok(Cow::Borrowed(s));
    }
    Ok(Cow::Owned(T::decode_all(data, ctx.endian)))
}

/// `i32` and `u16`: the element types of plain list lumps.
pub trait Scalar: Plain {
    fn decode_all(data: &[u8], endian: Endian) -> Vec<Self>;
}

macro_rules! scalar {
    ($($t:ty, $n:literal;)*) => {$(
        impl Scalar for $t {
            fn decode_all(data: &[u8], endian: Endian) -> Vec<Self> {
                let chunks = data.as_chunks::<$n>().0.iter();
                if endian == Endian::Big {
                    chunks.map(|&b| <$t>::from_be_bytes(b)).collect()
                } else {
                    chunks.map(|&b| <$t>::from_le_bytes(b)).collect()
                }
            }
        }
    )*};
}
scalar! { i32, 4; u16, 2; }

/// Serialises a lump of records.
pub fn write_records<T: Record>(records: &[T], ctx: &Ctx, lump: usize) -> Result<Vec<u8>> {
    let size = T::size(ctx).ok_or_else(|| BspError::Write {
        lump,
        message: format!(
            "no known layout for lump version {} in BSP v{}",
            ctx.lump_version, ctx.bsp_version
        ),
    })?;
    let mut out = Out::new(ctx.endian, records.len() * size);
    for r in records {
        r.write(&mut out, ctx);
    }
    out.finish(lump)
}

/// Index lists (leaf faces, leaf brushes, face ids, prim indices, vertex normal indices) are
/// `u16` except in Strata's widened versions.
pub fn read_indices(data: &[u8], wide: bool, ctx: &Ctx, lump: usize, base: u64) -> Result<Vec<u32>> {
    read_indices_into(data, wide, ctx, lump, base, ToVec)
}

/// [`read_indices`] into a `Vec` or an arena.
pub fn read_indices_into<C: Collect<u32>>(
    data: &[u8],
    wide: bool,
    ctx: &Ctx,
    lump: usize,
    base: u64,
    out: C,
) -> Result<C::Out> {
    check_index_len(data, if wide { 4 } else { 2 }, lump, base)?;
    let big = ctx.endian == Endian::Big;
    Ok(match (wide, big) {
        (true, false) => out.collect(data.as_chunks::<4>().0.iter().map(|&b| u32::from_le_bytes(b))),
        (true, true) => out.collect(data.as_chunks::<4>().0.iter().map(|&b| u32::from_be_bytes(b))),
        (false, false) => out.collect(
            data.as_chunks::<2>()
                .0
                .iter()
                .map(|&b| u16::from_le_bytes(b) as u32),
        ),
        (false, true) => out.collect(
            data.as_chunks::<2>()
                .0
                .iter()
                .map(|&b| u16::from_be_bytes(b) as u32),
        ),
    })
}

/// An index list is a whole number of `size`-byte indices.
fn check_index_len(data: &[u8], size: usize, lump: usize, base: u64) -> Result<()> {
    if !data.len().is_multiple_of(size) {
        return Err(BspError::lump(
            lump,
            base + data.len() as u64 - 1,
            format!("length {} is not a multiple of {size}", data.len()),
        ));
    }
    Ok(())
}

pub fn write_indices(values: &[u32], wide: bool, ctx: &Ctx, lump: usize) -> Result<Vec<u8>> {
    let mut out = Out::new(ctx.endian, values.len() * 4);
    for &v in values {
        if wide {
            out.w.u32(v)
        } else {
            out.u16_from(v, "index")
        }
    }
    out.finish(lump)
}

/// A counted table: a `u32` count, then that many records of `size` bytes, each decoded by
/// `read` (the count is checked against the bytes left before anything is read).
pub(crate) fn read_counted<'a, T>(
    r: &mut Reader<'a>,
    size: usize,
    read: impl FnMut(&'a [u8]) -> T,
) -> std::result::Result<Vec<T>, ReadError> {
    let n = r.u32()?;
    let n = r.check_count(n as u64, size as u64)?;
    Ok(r.bytes(n * size)?.chunks_exact(size).map(read).collect())
}
