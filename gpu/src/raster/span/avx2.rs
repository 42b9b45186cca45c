//! The span kernel in AVX2: eight pixels per step in 32-bit lanes, texels and CLUT entries
//! fetched by eight scalar loads (`gather_u16`). The pixel rule is the shared one
//! ([`crate::raster::pixel`], [`crate::raster::texture::fetch`]) compiled for [`Avx2`], which
//! implements [`Lanes`] and [`Gather`] in AVX2 instructions.
//!
//! Design rule: lanes past the span's end and pixels not drawn keep the destination's value,
//! and the chunk is written back whole. The rule's arithmetic is exact in these lanes for
//! colours in 0..=255: 5-bit × 8-bit products fit the 16-bit multiply.
//!
//! A primitive's constants (lane offsets and steps of each attribute, flat colour, mask bits,
//! texture window and page) are built once, in [`Prim`]; a span only spreads its attributes at
//! the first pixel, one register, over the lanes of each chunk. A small triangle's rows are
//! mostly one partial chunk, so set-up per span would otherwise cost as much as its pixels.
//!
//! `unsafe` is confined to this file: the lane operations (their instructions run only through
//! an [`Avx2`] token, which exists only when the CPU reports AVX2), the loads of `gather_u16`
//! (their lane indices bounded as it requires), the 16- and 32-byte loads and stores through
//! references of that size, and a vector's lanes read as eight integers (`transmute`) for
//! loads made lane by lane.

use std::arch::x86_64::*;

use super::{Kernel, PrimSteps, Short, SpanDraw, FRAC, HALF, LANES};
use crate::raster::lanes::{Gather, Lanes};
use crate::raster::pixel::{pixel, Flags, Inputs, PixelOut};
use crate::raster::texture::{fetch, ClutTable, Place, Sampler};
use crate::raster::Band;
use crate::{VramImage, VRAM_WIDTH};

/// A lane operation: its intrinsics, run on a CPU with AVX2 (an `Avx2` value exists only when
/// [`Avx2::detect`] saw it).
macro_rules! avx2 {
    ($e:expr) => {
        // SAFETY: an `Avx2` token exists only when the CPU has AVX2 (see `Avx2::detect`),
        // which is all these intrinsics require.
        unsafe { $e }
    };
}

/// Proof that the CPU runs AVX2: the only way to reach the AVX2 loop and lane operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx2 {
    _private: (),
}

impl Avx2 {
    /// A token when this CPU has AVX2.
    pub fn detect() -> Option<Self> {
        std::arch::is_x86_feature_detected!("avx2").then_some(Avx2 { _private: () })
    }

    /// Lanes holding `a`, for tests.
    #[cfg(test)]
    pub(super) fn load(self, a: [i32; LANES]) -> __m256i {
        avx2!(_mm256_setr_epi32(
            a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
        ))
    }

    /// The lanes of `v`, for tests.
    #[cfg(test)]
    pub(super) fn store(self, v: __m256i) -> [i32; LANES] {
        lanes(v).map(|x| x as i32)
    }
}

impl Kernel for Avx2 {
    type Prim = Prim;
    /// Lanes 0–4 hold r, g, b, u, v (lanes 5–7 are unused).
    type Attrs = __m256i;

    #[inline(always)]
    fn prim<const DEPTH: u8>(self, p: &PrimSteps, smp: Option<&Sampler<DEPTH>>) -> Prim {
        // SAFETY: an `Avx2` value exists only when `detect` saw AVX2 on this CPU.
        unsafe { prim(p, smp) }
    }

    #[inline(always)]
    fn attrs(self, a: [i32; 5]) -> __m256i {
        // SAFETY: as above.
        unsafe { _mm256_setr_epi32(a[0], a[1], a[2], a[3], a[4], 0, 0, 0) }
    }

    #[inline(always)]
    fn attrs_mul_add(self, a: __m256i, d: __m256i, k: i32) -> __m256i {
        // SAFETY: as above.
        unsafe { _mm256_add_epi32(a, _mm256_mullo_epi32(d, _mm256_set1_epi32(k))) }
    }

    #[inline(always)]
    fn attrs_add(self, a: __m256i, d: __m256i) -> __m256i {
        // SAFETY: as above.
        unsafe { _mm256_add_epi32(a, d) }
    }

    #[inline(always)]
    fn span<const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
        self,
        p: &Prim,
        row: &mut [u16; VRAM_WIDTH],
        x0: usize,
        x1: usize,
        at: __m256i,
        dither: &[i16; LANES],
        smp: Option<&Sampler<DEPTH>>,
    ) {
        // SAFETY: as above.
        unsafe { span::<DEPTH, GOURAUD, RAW, BLEND>(p, row, x0, x1, at, dither, smp) }
    }

    #[inline(always)]
    fn span_pair<const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
        self,
        p: &Prim,
        a: Short<'_, __m256i>,
        b: Short<'_, __m256i>,
        smp: Option<&Sampler<DEPTH>>,
    ) {
        // SAFETY: as above.
        unsafe { span_pair::<DEPTH, GOURAUD, RAW, BLEND>(p, a, b, smp) }
    }

    #[inline(always)]
    fn draw<D: SpanDraw, const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
        self,
        d: &D,
        bands: &mut [Band],
        smp: Option<&Sampler<DEPTH>>,
    ) {
        // SAFETY: as above.
        unsafe { draw::<D, DEPTH, GOURAUD, RAW, BLEND>(self, d, bands, smp) }
    }
}

/// A primitive's rows compiled with AVX2: its `spans` (inline(always)) and the span loop are
/// inlined here, so per-primitive constants stay in registers across rows.
#[target_feature(enable = "avx2")]
fn draw<D: SpanDraw, const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
    k: Avx2,
    d: &D,
    bands: &mut [Band],
    smp: Option<&Sampler<DEPTH>>,
) {
    d.spans::<Avx2, DEPTH, GOURAUD, RAW, BLEND>(k, bands, smp);
}

#[target_feature(enable = "avx2")]
#[inline]
fn splat(v: i32) -> __m256i {
    _mm256_set1_epi32(v)
}

/// The halfwords of `table` at `addr`, each shifted down by `extra_shift` more bits (the texel
/// within the halfword).
///
/// # Safety
/// Every lane of `addr` must be below `table.len()`, which must be even.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn gather_u16(table: &[u16], addr: __m256i, extra_shift: __m256i) -> __m256i {
    debug_assert!(table.len().is_multiple_of(2));
    debug_assert!(lanes(addr).iter().all(|&a| (a as usize) < table.len()));
    // Each lane loads the aligned 32-bit word holding its halfword and shifts the halfword down.
    // Eight scalar loads, not `vpgatherdd`: on AMD's Zen cores a gather costs more than the
    // loads it stands for, and Intel's gather-data-sampling microcode (2023) slows gathers in
    // hot loops further; plain loads issue two or three a cycle on both.
    let idx = lanes(_mm256_srli_epi32::<1>(addr));
    let words: *const i32 = table.as_ptr().cast();
    // This function runs only with AVX2 (its target feature), so a token may be made here.
    let k = Avx2 { _private: () };
    // SAFETY: each `idx` lane is `addr >> 1`, a whole 32-bit word inside `table` (the caller's
    // bound, and an even length).
    let words = from_lanes(k, |i| unsafe { words.add(idx[i] as usize).read() });
    let shift = _mm256_add_epi32(
        _mm256_slli_epi32::<4>(_mm256_and_si256(addr, splat(1))),
        extra_shift,
    );
    _mm256_srlv_epi32(words, shift)
}

/// The eight lanes of `v`, as integers: for loads made lane by lane, and debug checks.
#[inline(always)]
fn lanes(v: __m256i) -> [u32; LANES] {
    // SAFETY: a vector of eight 32-bit lanes and eight `u32`s are the same 32 bytes, every bit
    // pattern valid in both.
    unsafe { std::mem::transmute::<__m256i, [u32; LANES]>(v) }
}

/// The vector whose lane `k` is `f(k)`: what loads made lane by lane put back into lanes
/// (inserted lane by lane: eight scalar stores read back as one vector would stall).
#[inline(always)]
fn from_lanes(_: Avx2, f: impl Fn(usize) -> i32) -> __m256i {
    avx2!(_mm256_setr_epi32(
        f(0),
        f(1),
        f(2),
        f(3),
        f(4),
        f(5),
        f(6),
        f(7)
    ))
}

/// The constants every span of a primitive shares (see [`Kernel::prim`]), as AVX2 lanes.
#[derive(Clone, Copy, Debug)]
pub struct Prim {
    /// Per attribute (r, g, b, u, v), lane `i` holding `i` steps: pixel `i`'s offset from the
    /// chunk's first pixel.
    off: [__m256i; 5],
    /// [`LANES`] steps of each attribute, r, g, b, u, v in lanes 0–4 (as
    /// [`Kernel::Attrs`]): from one chunk's first pixel to the next one's.
    step: __m256i,
    /// The flat colour.
    flat: [__m256i; 3],
    /// Mask handling.
    out: PixelOut<__m256i>,
    /// The texture's window and page.
    place: Place<__m256i>,
}

/// The constants of a primitive (see [`Kernel::prim`]).
#[target_feature(enable = "avx2")]
#[inline]
fn prim<const DEPTH: u8>(p: &PrimSteps, smp: Option<&Sampler<DEPTH>>) -> Prim {
    let idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let g = p.gdx;
    let off = [
        _mm256_mullo_epi32(splat(g[0]), idx),
        _mm256_mullo_epi32(splat(g[1]), idx),
        _mm256_mullo_epi32(splat(g[2]), idx),
        _mm256_mullo_epi32(splat(g[3]), idx),
        _mm256_mullo_epi32(splat(g[4]), idx),
    ];
    let l = LANES as i32;
    let step = _mm256_setr_epi32(
        g[0].wrapping_mul(l),
        g[1].wrapping_mul(l),
        g[2].wrapping_mul(l),
        g[3].wrapping_mul(l),
        g[4].wrapping_mul(l),
        0,
        0,
        0,
    );
    let k = Avx2 { _private: () };
    let zero = _mm256_setzero_si256();
    Prim {
        off,
        step,
        flat: [splat(p.flat[0]), splat(p.flat[1]), splat(p.flat[2])],
        out: p.px.lanes(k),
        place: match smp {
            Some(smp) => smp.place(k),
            None => Place {
                win: [zero; 4],
                page_x: zero,
                page_y: zero,
            },
        },
    }
}

/// The steppers of the current chunk: r, g, b, u, v of its 8 pixels.
type Steppers = [__m256i; 5];

/// `VALID[LANES - n..][..LANES]`: lanes `0..n` all ones, the rest zero.
static VALID: [i32; 2 * LANES] = [-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0];

/// The span loop (see [`Kernel::span`]): chunks of 8 pixels, the last one partial. Not itself a
/// `#[target_feature]` function so that it can be inlined always into the row loop of
/// [`draw`], keeping per-primitive constants in registers across rows. Per chunk it only
/// spreads the attributes at the chunk's first pixel over the lanes, for those the
/// specialisation reads, so nothing but that one register and the dither lanes lives from one
/// chunk to the next.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn span<const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
    p: &Prim,
    row: &mut [u16; VRAM_WIDTH],
    x0: usize,
    x1: usize,
    mut at: __m256i,
    dither: &[i16; LANES],
    smp: Option<&Sampler<DEPTH>>,
) {
    // SAFETY: the caller guarantees AVX2, which the intrinsics and helpers below need; the
    // loads are through references of their size.
    unsafe {
        let x1 = x1.min(VRAM_WIDTH);
        if x0 >= x1 {
            return;
        }
        // The 8 dither offsets (16 bytes), widened to 32-bit lanes. `dither` is 16 readable
        // bytes; the load has no alignment requirement.
        let dither = _mm256_cvtepi16_epi32(_mm_loadu_si128(dither.as_ptr().cast()));
        let mut x = x0;
        loop {
            // Only the steppers this specialisation reads: lane `a` of `at` in every lane,
            // plus the lane offsets.
            let zero = _mm256_setzero_si256();
            let mut lanes: Steppers = [zero; 5];
            macro_rules! spread {
                ($a:literal) => {
                    if ($a < 3 && GOURAUD) || ($a >= 3 && DEPTH != 0) {
                        let all = _mm256_permutevar8x32_epi32(at, _mm256_set1_epi32($a));
                        lanes[$a] = _mm256_add_epi32(all, p.off[$a]);
                    }
                };
            }
            spread!(0);
            spread!(1);
            spread!(2);
            spread!(3);
            spread!(4);
            let left = x1 - x;
            // `VALID[LANES - k..]` holds at least 8 lanes (32 readable bytes) for k ≤ 8; the
            // load has no alignment requirement.
            let valid = _mm256_loadu_si256(VALID[LANES - left.min(LANES)..].as_ptr().cast());
            // The last chunk of a span reaching VRAM's right edge goes through a copy.
            let mut buf = [0u16; LANES];
            let fits = x + LANES <= VRAM_WIDTH;
            let dst: &mut [u16; LANES] = match row.get_mut(x..x + LANES) {
                Some(dst) => dst.try_into().expect("LANES long"),
                None => {
                    buf[..VRAM_WIDTH - x].copy_from_slice(&row[x..]);
                    &mut buf
                }
            };
            chunk::<DEPTH, GOURAUD, RAW, BLEND>(dst, valid, &lanes, p, dither, smp);
            if !fits {
                row[x..].copy_from_slice(&buf[..VRAM_WIDTH - x]);
            }
            if left <= LANES {
                break;
            }
            x += LANES;
            at = _mm256_add_epi32(at, p.step);
        }
    }
}

/// Two short spans as one chunk (see [`Kernel::span_pair`]): lanes 0–3 are pixels
/// `a.x0..a.x0 + 4` of `a.row`, lanes 4–7 pixels `b.x0..b.x0 + 4` of `b.row`; each half is
/// read and written back whole, as a chunk is.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn span_pair<const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
    p: &Prim,
    a: Short<'_, __m256i>,
    b: Short<'_, __m256i>,
    smp: Option<&Sampler<DEPTH>>,
) {
    // SAFETY: the caller guarantees AVX2, which the intrinsics and helpers below need; the
    // loads and stores are through references of their size.
    unsafe {
        let ha: &mut [u16; HALF] = (&mut a.row[a.x0..a.x0 + HALF]).try_into().expect("HALF");
        let hb: &mut [u16; HALF] = (&mut b.row[b.x0..b.x0 + HALF]).try_into().expect("HALF");
        let dst = _mm256_cvtepu16_epi32(_mm_unpacklo_epi64(
            _mm_loadl_epi64(ha.as_ptr().cast()),
            _mm_loadl_epi64(hb.as_ptr().cast()),
        ));
        // `VALID[LANES - k..]` holds at least 4 lanes (16 readable bytes) for k ≤ 4.
        let valid_half = |n: usize| _mm_loadu_si128(VALID[LANES - n..].as_ptr().cast());
        let valid = _mm256_set_m128i(valid_half(b.x1 - b.x0), valid_half(a.x1 - a.x0));
        // The first 4 dither offsets of each (8 bytes each).
        let dither = _mm256_cvtepi16_epi32(_mm_unpacklo_epi64(
            _mm_loadl_epi64(a.dither.as_ptr().cast()),
            _mm_loadl_epi64(b.dither.as_ptr().cast()),
        ));
        // r, g, b, u of `a` in the low half and of `b` in the high half; v of each in the
        // first lane of its half. Each attribute is then spread over its half in-lane.
        let rgbu = _mm256_permute2x128_si256::<0x20>(a.at, b.at);
        let v = _mm256_permute2x128_si256::<0x31>(a.at, b.at);
        let zero = _mm256_setzero_si256();
        let mut lanes: Steppers = [zero; 5];
        macro_rules! spread {
            ($i:literal, $from:expr, $pick:literal) => {
                if ($i < 3 && GOURAUD) || ($i >= 3 && DEPTH != 0) {
                    let both = _mm256_shuffle_epi32::<$pick>($from);
                    // Lanes 4–7 are pixels 0–3 of `b`: the offsets of lanes 0–3 again.
                    let off = _mm256_permute2x128_si256::<0>(p.off[$i], p.off[$i]);
                    lanes[$i] = _mm256_add_epi32(both, off);
                }
            };
        }
        spread!(0, rgbu, 0x00);
        spread!(1, rgbu, 0x55);
        spread!(2, rgbu, 0xaa);
        spread!(3, rgbu, 0xff);
        spread!(4, v, 0x00);
        let out16 = lanes_out::<DEPTH, GOURAUD, RAW, BLEND>(dst, valid, &lanes, p, dither, smp);
        _mm_storel_epi64(ha.as_mut_ptr().cast(), out16);
        _mm_storel_epi64(hb.as_mut_ptr().cast(), _mm_unpackhi_epi64(out16, out16));
    }
}

/// One chunk: the 8 pixels at `at`, of which the lanes in `valid` belong to the span; the
/// others keep their value.
#[target_feature(enable = "avx2")]
#[inline]
fn chunk<const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
    at: &mut [u16; LANES],
    valid: __m256i,
    lanes: &Steppers,
    p: &Prim,
    dither: __m256i,
    smp: Option<&Sampler<DEPTH>>,
) {
    // SAFETY: `at` is 16 readable bytes; the load has no alignment requirement.
    let dst = _mm256_cvtepu16_epi32(unsafe { _mm_loadu_si128(at.as_ptr().cast()) });
    let out16 = lanes_out::<DEPTH, GOURAUD, RAW, BLEND>(dst, valid, lanes, p, dither, smp);
    // SAFETY: `at` is 16 writable bytes; the store has no alignment requirement.
    unsafe { _mm_storeu_si128(at.as_mut_ptr().cast(), out16) };
}

/// The pixel rule over 8 lanes: `dst` the pixels as they are (zero-extended), the lanes in
/// `valid` drawn; the result as 8 halfwords.
#[target_feature(enable = "avx2")]
#[inline]
fn lanes_out<const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
    dst: __m256i,
    valid: __m256i,
    lanes: &Steppers,
    p: &Prim,
    dither: __m256i,
    smp: Option<&Sampler<DEPTH>>,
) -> __m128i {
    let k = Avx2 { _private: () };
    let [r, g, b, u, v] = *lanes;
    const F: i32 = FRAC as i32;
    let texel = match smp {
        Some(smp) if DEPTH != 0 => {
            let (u, v) = (k.shr::<F>(u), k.shr::<F>(v));
            fetch::<Avx2, DEPTH>(k, smp.vram, smp.clut, &p.place, u, v)
        }
        _ => _mm256_setzero_si256(),
    };
    let rgb = if GOURAUD {
        [k.sar::<F>(r), k.sar::<F>(g), k.sar::<F>(b)]
    } else {
        p.flat
    };
    let inputs = Inputs {
        dst,
        texel,
        rgb,
        dither,
        covered: valid,
    };
    let out = pixel(k, Flags::new(DEPTH != 0, RAW, BLEND), inputs, p.out);
    _mm_packus_epi32(
        _mm256_castsi256_si128(out),
        _mm256_extracti128_si256::<1>(out),
    )
}

impl Lanes for Avx2 {
    type V = __m256i;

    #[inline(always)]
    fn splat(self, x: i32) -> __m256i {
        avx2!(_mm256_set1_epi32(x))
    }
    #[inline(always)]
    fn add(self, a: __m256i, b: __m256i) -> __m256i {
        avx2!(_mm256_add_epi32(a, b))
    }
    #[inline(always)]
    fn sub(self, a: __m256i, b: __m256i) -> __m256i {
        avx2!(_mm256_sub_epi32(a, b))
    }
    /// The 16-bit multiply: both factors and the product fit 15 bits.
    #[inline(always)]
    fn mul(self, a: __m256i, b: __m256i) -> __m256i {
        avx2!(_mm256_mullo_epi16(a, b))
    }
    #[inline(always)]
    fn and(self, a: __m256i, b: __m256i) -> __m256i {
        avx2!(_mm256_and_si256(a, b))
    }
    #[inline(always)]
    fn or(self, a: __m256i, b: __m256i) -> __m256i {
        avx2!(_mm256_or_si256(a, b))
    }
    #[inline(always)]
    fn andnot(self, a: __m256i, b: __m256i) -> __m256i {
        avx2!(_mm256_andnot_si256(a, b))
    }
    #[inline(always)]
    fn shr<const S: i32>(self, a: __m256i) -> __m256i {
        avx2!(_mm256_srli_epi32::<S>(a))
    }
    #[inline(always)]
    fn sar<const S: i32>(self, a: __m256i) -> __m256i {
        avx2!(_mm256_srai_epi32::<S>(a))
    }
    #[inline(always)]
    fn shl<const S: i32>(self, a: __m256i) -> __m256i {
        avx2!(_mm256_slli_epi32::<S>(a))
    }
    #[inline(always)]
    fn min(self, a: __m256i, b: __m256i) -> __m256i {
        avx2!(_mm256_min_epi32(a, b))
    }
    #[inline(always)]
    fn max(self, a: __m256i, b: __m256i) -> __m256i {
        avx2!(_mm256_max_epi32(a, b))
    }
    #[inline(always)]
    fn eq(self, a: __m256i, b: __m256i) -> __m256i {
        avx2!(_mm256_cmpeq_epi32(a, b))
    }
    #[inline(always)]
    fn select(self, m: __m256i, a: __m256i, b: __m256i) -> __m256i {
        avx2!(_mm256_blendv_epi8(b, a, m))
    }
}

impl Gather for Avx2 {
    #[inline(always)]
    fn vram(self, vram: &VramImage, at: __m256i, shift: __m256i) -> __m256i {
        let at = self.and(at, self.splat(vram.len() as i32 - 1));
        // SAFETY: AVX2 as above; every lane of `at` is below `vram.len()`, which is even.
        unsafe { gather_u16(&vram[..], at, shift) }
    }
    #[inline(always)]
    fn clut16(self, table: &[u16; 16], i: __m256i) -> __m256i {
        let i = self.and(i, self.splat(15));
        // Entry `i` is half `i & 1` of 32-bit lane `i >> 1` of the table.
        // SAFETY: AVX2 as above; `table` is 32 readable bytes, loaded without an alignment
        // requirement.
        let pair = unsafe {
            _mm256_permutevar8x32_epi32(_mm256_loadu_si256(table.as_ptr().cast()), self.shr::<1>(i))
        };
        let shift = self.shl::<4>(self.and(i, self.splat(1)));
        // SAFETY: AVX2 as above.
        let entry = unsafe { _mm256_srlv_epi32(pair, shift) };
        self.and(entry, self.splat(0xffff))
    }
    /// Lane by lane in scalar code: eight texel loads, each followed by its CLUT entry's.
    #[inline(always)]
    fn vram_clut256(
        self,
        vram: &VramImage,
        at: __m256i,
        shift: __m256i,
        table: &ClutTable,
    ) -> __m256i {
        let (at, shift) = (lanes(at), lanes(shift));
        // Indices wrapped at VRAM's size and shifts kept below 16 (they are 0 or 8), so that
        // neither a bounds check nor an overflow check is left in the loop.
        let entry = |k: usize| {
            let texel = vram[at[k] as usize % vram.len()] >> (shift[k] & 15);
            i32::from(table[usize::from(texel & 0xff)])
        };
        from_lanes(self, entry)
    }
    #[inline(always)]
    fn clut256(self, table: &ClutTable, i: __m256i) -> __m256i {
        let i = self.and(i, self.splat(0xff));
        // SAFETY: AVX2 as above; every lane of `i` is below 256, the table's (even) length.
        let entry = unsafe { gather_u16(&table[..], i, self.splat(0)) };
        self.and(entry, self.splat(0xffff))
    }
}

/// Asks the CPU to bring `x` into its caches ahead of a read, without waiting for it.
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    let first = (x as *const T).cast::<i8>();
    let last = first.wrapping_add(std::mem::size_of::<T>().saturating_sub(1));
    // SAFETY: a prefetch is a hint: it reads nothing the program sees, never faults, and is
    // given addresses of a live reference. SSE, which provides it, is part of x86-64.
    unsafe {
        _mm_prefetch::<_MM_HINT_T0>(first);
        _mm_prefetch::<_MM_HINT_T0>(last);
    }
}
