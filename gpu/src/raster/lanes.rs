//! The operations the pixel rule is written in, and the instruction sets it is compiled for.
//!
//! Design rule: the pixel rule ([`crate::raster::pixel`], [`crate::raster::texture::fetch`]) is
//! one generic source over [`Lanes`], a value holding one quantity per pixel of a group of pixels.
//! Each kernel is that source compiled for one instruction set: [`Scalar`] (one pixel, 32-bit:
//! the exact span loop, the in-order path, lines, texel fetches one pixel at a time), [`Portable`]
//! (eight pixels in 16-bit lanes, arrays the compiler turns into SIMD instructions on any target)
//! and `Avx2` (eight pixels in 32-bit lanes, `span/avx2.rs`). A rule fix is one edit, and the unit
//! tests hold every instance to [`Scalar`].
//!
//! An instruction set is a zero-sized token: the operations are its methods, so code can only
//! use an instruction set through a token that proves the CPU has it. Every method is
//! `#[inline(always)]`, so the rule inlines into each kernel's loop.
//!
//! Widths: the rule's quantities are texels and pixels (16 bits), 8-bit colours and dither
//! offsets, and 5-bit components. [`Scalar`] computes in 32 bits, which keeps the rule exact for
//! colours outside 0..=255 too (gouraud colours can step just outside); the lane instances need
//! colours in 0..=255, where every intermediate value fits 16 bits.

use crate::VramImage;

/// Pixels per chunk of the lane loop.
pub const LANES: usize = 8;

/// A CLUT's 256 entries (the texture module's `ClutTable`).
type ClutTable = [u16; 256];

/// An instruction set the pixel rule runs on: values of type [`Lanes::V`] hold one integer per
/// pixel of a group; comparisons give all ones (true) or zero per lane.
pub trait Lanes: Copy {
    /// One integer per pixel of the group.
    type V: Copy;

    /// `x` in every lane (truncated to the lane width).
    fn splat(self, x: i32) -> Self::V;
    /// `a + b`, wrapping.
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a − b`, wrapping.
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a × b` for a 5-bit `a` and an 8-bit colour `b` ([`Scalar`]: any colour).
    fn mul(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a & b`.
    fn and(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a | b`.
    fn or(self, a: Self::V, b: Self::V) -> Self::V;
    /// `!a & b`.
    fn andnot(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a >> S`, shifting zeros in from the lane's top.
    fn shr<const S: i32>(self, a: Self::V) -> Self::V;
    /// `a >> S`, shifting copies of the sign bit in.
    fn sar<const S: i32>(self, a: Self::V) -> Self::V;
    /// `a << S`.
    fn shl<const S: i32>(self, a: Self::V) -> Self::V;
    /// The smaller of `a` and `b`, signed.
    fn min(self, a: Self::V, b: Self::V) -> Self::V;
    /// The larger of `a` and `b`, signed.
    fn max(self, a: Self::V, b: Self::V) -> Self::V;
    /// All ones where `a == b`, else zero.
    fn eq(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a` where `m` is all ones, `b` where it is zero.
    fn select(self, m: Self::V, a: Self::V, b: Self::V) -> Self::V;
}

/// An instruction set with lanes of 32 bits that fetches texels: table look-ups by lane.
pub trait Gather: Lanes {
    /// The halfword of `vram` at index `at` (wrapping at VRAM's size), shifted right by
    /// `shift` (0..16): its bits from `shift` up are the lane's low `16 − shift` bits, the
    /// bits above them unspecified.
    fn vram(self, vram: &VramImage, at: Self::V, shift: Self::V) -> Self::V;
    /// Entry `i & 15` of `table` (a CLUT's first 16 entries).
    fn clut16(self, table: &[u16; 16], i: Self::V) -> Self::V;
    /// Entry `i & 255` of `table`.
    fn clut256(self, table: &ClutTable, i: Self::V) -> Self::V;
    /// An 8-bit texture's look-up: the entry of `table` that the low 8 bits of
    /// `vram(at, shift)` select. One method, so that a lane set can fetch both levels lane by
    /// lane without putting the texels back into lanes in between.
    #[inline(always)]
    fn vram_clut256(
        self,
        vram: &VramImage,
        at: Self::V,
        shift: Self::V,
        table: &ClutTable,
    ) -> Self::V {
        self.clut256(table, self.vram(vram, at, shift))
    }
}

/// One pixel in 32-bit arithmetic.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scalar;

impl Lanes for Scalar {
    type V = i32;

    #[inline(always)]
    fn splat(self, x: i32) -> i32 {
        x
    }
    #[inline(always)]
    fn add(self, a: i32, b: i32) -> i32 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn sub(self, a: i32, b: i32) -> i32 {
        a.wrapping_sub(b)
    }
    #[inline(always)]
    fn mul(self, a: i32, b: i32) -> i32 {
        a.wrapping_mul(b)
    }
    #[inline(always)]
    fn and(self, a: i32, b: i32) -> i32 {
        a & b
    }
    #[inline(always)]
    fn or(self, a: i32, b: i32) -> i32 {
        a | b
    }
    #[inline(always)]
    fn andnot(self, a: i32, b: i32) -> i32 {
        !a & b
    }
    #[inline(always)]
    fn shr<const S: i32>(self, a: i32) -> i32 {
        ((a as u32) >> S) as i32
    }
    #[inline(always)]
    fn sar<const S: i32>(self, a: i32) -> i32 {
        a >> S
    }
    #[inline(always)]
    fn shl<const S: i32>(self, a: i32) -> i32 {
        a << S
    }
    #[inline(always)]
    fn min(self, a: i32, b: i32) -> i32 {
        a.min(b)
    }
    #[inline(always)]
    fn max(self, a: i32, b: i32) -> i32 {
        a.max(b)
    }
    #[inline(always)]
    fn eq(self, a: i32, b: i32) -> i32 {
        -i32::from(a == b)
    }
    #[inline(always)]
    fn select(self, m: i32, a: i32, b: i32) -> i32 {
        (a & m) | (b & !m)
    }
}

impl Gather for Scalar {
    #[inline(always)]
    fn vram(self, vram: &VramImage, at: i32, shift: i32) -> i32 {
        i32::from(vram[at as usize & (vram.len() - 1)] >> shift)
    }
    #[inline(always)]
    fn clut16(self, table: &[u16; 16], i: i32) -> i32 {
        table[i as usize & 15].into()
    }
    #[inline(always)]
    fn clut256(self, table: &ClutTable, i: i32) -> i32 {
        table[i as usize & 255].into()
    }
}

/// Eight pixels in 16-bit lanes, as plain arrays: loops the compiler vectorises for any target
/// (SSE2 on every x86-64), no instruction set required.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Portable;

/// Lane `i` holds pixel `i` of a chunk.
pub type Lanes16 = [i16; LANES];

/// `f` applied lane by lane.
#[inline(always)]
fn map2(a: Lanes16, b: Lanes16, f: impl Fn(i16, i16) -> i16) -> Lanes16 {
    std::array::from_fn(|i| f(a[i], b[i]))
}

impl Lanes for Portable {
    type V = Lanes16;

    #[inline(always)]
    fn splat(self, x: i32) -> Lanes16 {
        [x as i16; LANES]
    }
    #[inline(always)]
    fn add(self, a: Lanes16, b: Lanes16) -> Lanes16 {
        map2(a, b, i16::wrapping_add)
    }
    #[inline(always)]
    fn sub(self, a: Lanes16, b: Lanes16) -> Lanes16 {
        map2(a, b, i16::wrapping_sub)
    }
    #[inline(always)]
    fn mul(self, a: Lanes16, b: Lanes16) -> Lanes16 {
        map2(a, b, i16::wrapping_mul)
    }
    #[inline(always)]
    fn and(self, a: Lanes16, b: Lanes16) -> Lanes16 {
        map2(a, b, |a, b| a & b)
    }
    #[inline(always)]
    fn or(self, a: Lanes16, b: Lanes16) -> Lanes16 {
        map2(a, b, |a, b| a | b)
    }
    #[inline(always)]
    fn andnot(self, a: Lanes16, b: Lanes16) -> Lanes16 {
        map2(a, b, |a, b| !a & b)
    }
    #[inline(always)]
    fn shr<const S: i32>(self, a: Lanes16) -> Lanes16 {
        a.map(|a| ((a as u16) >> S) as i16)
    }
    #[inline(always)]
    fn sar<const S: i32>(self, a: Lanes16) -> Lanes16 {
        a.map(|a| a >> S)
    }
    #[inline(always)]
    fn shl<const S: i32>(self, a: Lanes16) -> Lanes16 {
        a.map(|a| a << S)
    }
    #[inline(always)]
    fn min(self, a: Lanes16, b: Lanes16) -> Lanes16 {
        map2(a, b, i16::min)
    }
    #[inline(always)]
    fn max(self, a: Lanes16, b: Lanes16) -> Lanes16 {
        map2(a, b, i16::max)
    }
    #[inline(always)]
    fn eq(self, a: Lanes16, b: Lanes16) -> Lanes16 {
        map2(a, b, |a, b| -i16::from(a == b))
    }
    #[inline(always)]
    fn select(self, m: Lanes16, a: Lanes16, b: Lanes16) -> Lanes16 {
        std::array::from_fn(|i| (a[i] & m[i]) | (b[i] & !m[i]))
    }
}
