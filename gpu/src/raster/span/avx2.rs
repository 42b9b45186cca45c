//! The span kernel in AVX2: the same pixels as the portable lane loop, eight per step in 32-bit
//! lanes, with texels and CLUT entries fetched by hardware gathers.
//!
//! Design rule: every lane computes what the pixel-by-pixel reference computes, in the same
//! integer widths where they matter (colour and U/V steppers in wrapping 32-bit, modulation
//! exact because 5-bit × 8-bit products fit 16 bits); lanes past the span's end and pixels not
//! drawn keep the destination's value, and the chunk is written back whole. Measured
//! (callgrind, the GPU bench frame): about a third of the portable lane loop's instructions.
//!
//! A primitive's constants (lane offsets and steps of each attribute, flat colour, mask bits,
//! texture window, page, 4-bit CLUT register) are built once, in [`Prim`]; a span only spreads
//! its attributes at the first pixel, one register, over the lanes of each chunk. A small
//! triangle's rows are mostly one partial chunk, so set-up per span would otherwise cost as much
//! as its pixels.
//!
//! Every helper is a safe `#[target_feature(enable = "avx2")]` function. `unsafe` remains for
//! the gathers (their lane indices are bounded as `gather_u16` requires), the 16- and 32-byte
//! loads and stores through references of that size, and the entry into the AVX2 code, made only
//! through an [`Avx2`] token that exists only when the CPU reports AVX2.

use std::arch::x86_64::*;

use super::{Kernel, PrimSteps, SpanDraw, FRAC, LANES};
use crate::raster::pixel::{BLEND_ADD, BLEND_AVERAGE, BLEND_NONE, BLEND_SUBTRACT};
use crate::raster::texture::{ClutTable, Sampler};
use crate::raster::Band;
use crate::VRAM_WIDTH;

/// Proof that the CPU runs AVX2: the only way to reach the AVX2 loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx2 {
    _private: (),
}

impl Avx2 {
    /// A token when this CPU has AVX2.
    pub fn detect() -> Option<Self> {
        std::arch::is_x86_feature_detected!("avx2").then_some(Avx2 { _private: () })
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
    debug_assert!(lanes(addr)
        .iter()
        .all(|&a| (a as u32 as usize) < table.len()));
    // Each lane loads the aligned 32-bit word holding its halfword and shifts the halfword down.
    // SAFETY: `addr >> 1` indexes a whole 32-bit word inside `table` (the caller's bound, and an
    // even length).
    let words =
        unsafe { _mm256_i32gather_epi32::<4>(table.as_ptr().cast(), _mm256_srli_epi32::<1>(addr)) };
    let shift = _mm256_add_epi32(
        _mm256_slli_epi32::<4>(_mm256_and_si256(addr, splat(1))),
        extra_shift,
    );
    _mm256_srlv_epi32(words, shift)
}

/// The eight lanes of `v`, for debug checks.
#[target_feature(enable = "avx2")]
#[inline]
fn lanes(v: __m256i) -> [i32; 8] {
    [
        _mm256_extract_epi32::<0>(v),
        _mm256_extract_epi32::<1>(v),
        _mm256_extract_epi32::<2>(v),
        _mm256_extract_epi32::<3>(v),
        _mm256_extract_epi32::<4>(v),
        _mm256_extract_epi32::<5>(v),
        _mm256_extract_epi32::<6>(v),
        _mm256_extract_epi32::<7>(v),
    ]
}

/// A 16-entry CLUT in one register: lane `j` holds entries `2j` and `2j + 1`.
#[target_feature(enable = "avx2")]
#[inline]
fn clut16(clut: &ClutTable) -> __m256i {
    let first: &[u16; 16] = clut[..16].try_into().expect("a CLUT table has 256 entries");
    // SAFETY: `first` is 32 readable bytes; the load has no alignment requirement.
    unsafe { _mm256_loadu_si256(first.as_ptr().cast()) }
}

/// The texels at U, V (lanes with [`FRAC`] fraction bits) after the texture window, `p` holding
/// the window, page and (at 4 bits) CLUT of `smp`.
#[target_feature(enable = "avx2")]
#[inline]
fn texels<const DEPTH: u8>(smp: &Sampler<DEPTH>, p: &Prim, u: __m256i, v: __m256i) -> __m256i {
    // The window's `and` is at most 0xff, so it also keeps U and V to their 8 bits.
    let [u_and, u_or, v_and, v_or] = p.win;
    let u = _mm256_or_si256(
        _mm256_and_si256(_mm256_srli_epi32::<{ FRAC as i32 }>(u), u_and),
        u_or,
    );
    let v = _mm256_or_si256(
        _mm256_and_si256(_mm256_srli_epi32::<{ FRAC as i32 }>(v), v_and),
        v_or,
    );
    // Page y (0 or 256) + V (< 256) stays inside VRAM's 512 rows.
    let row = _mm256_add_epi32(_mm256_slli_epi32::<10>(v), p.page_row);
    let (hx, sub, mask) = match DEPTH {
        4 => (
            _mm256_srli_epi32::<2>(u),
            _mm256_slli_epi32::<2>(_mm256_and_si256(u, splat(3))),
            0xf,
        ),
        8 => (
            _mm256_srli_epi32::<1>(u),
            _mm256_slli_epi32::<3>(_mm256_and_si256(u, splat(1))),
            0xff,
        ),
        _ => (u, _mm256_setzero_si256(), 0xffff),
    };
    let col = _mm256_and_si256(_mm256_add_epi32(hx, p.page_x), splat(1023));
    // SAFETY: row < 512 and column < 1024: inside the 1024 × 512 snapshot.
    let hw = unsafe { gather_u16(&smp.vram[..], _mm256_or_si256(row, col), sub) };
    let hw = _mm256_and_si256(hw, splat(mask));
    match DEPTH {
        // Index < 16: entry `hw` is half `hw & 1` of lane `hw >> 1`.
        4 => {
            let pair = _mm256_permutevar8x32_epi32(p.clut, _mm256_srli_epi32::<1>(hw));
            let shift = _mm256_slli_epi32::<4>(_mm256_and_si256(hw, splat(1)));
            _mm256_and_si256(_mm256_srlv_epi32(pair, shift), splat(0xffff))
        }
        // SAFETY: index < 256: inside the 256-entry CLUT.
        8 => _mm256_and_si256(
            unsafe { gather_u16(&smp.clut[..], hw, _mm256_setzero_si256()) },
            splat(0xffff),
        ),
        _ => hw,
    }
}

/// One 5-bit component at bit `S` of a modulated texel (see `modulate5`): colour `c` in
/// 0..=255, so `tc × c` fits the 16-bit multiply.
#[target_feature(enable = "avx2")]
#[inline]
fn modulate_comp<const S: i32>(t: __m256i, c: __m256i, d: __m256i) -> __m256i {
    let tc = _mm256_and_si256(_mm256_srli_epi32::<S>(t), splat(31));
    let m = _mm256_add_epi32(_mm256_srai_epi32::<4>(_mm256_mullo_epi16(tc, c)), d);
    let m = _mm256_min_epi32(_mm256_max_epi32(m, _mm256_setzero_si256()), splat(255));
    _mm256_slli_epi32::<S>(_mm256_srli_epi32::<3>(m))
}

/// An 8-bit colour component dithered by `d`, saturated and reduced to 5 bits at bit `S`.
#[target_feature(enable = "avx2")]
#[inline]
fn to5_comp<const S: i32>(c: __m256i, d: __m256i) -> __m256i {
    let m = _mm256_add_epi32(c, d);
    let m = _mm256_min_epi32(_mm256_max_epi32(m, _mm256_setzero_si256()), splat(255));
    _mm256_slli_epi32::<S>(_mm256_srli_epi32::<3>(m))
}

/// One 5-bit component at bit `S` of background `b` blended with foreground `f`.
#[target_feature(enable = "avx2")]
#[inline]
fn blend_comp<const MODE: u8, const S: i32>(b: __m256i, f: __m256i) -> __m256i {
    let bc = _mm256_and_si256(_mm256_srli_epi32::<S>(b), splat(31));
    let fc = _mm256_and_si256(_mm256_srli_epi32::<S>(f), splat(31));
    let c = match MODE {
        BLEND_AVERAGE => _mm256_srli_epi32::<1>(_mm256_add_epi32(bc, fc)),
        BLEND_ADD => _mm256_min_epi32(_mm256_add_epi32(bc, fc), splat(31)),
        BLEND_SUBTRACT => _mm256_max_epi32(_mm256_sub_epi32(bc, fc), _mm256_setzero_si256()),
        _ => _mm256_min_epi32(_mm256_add_epi32(bc, _mm256_srli_epi32::<2>(fc)), splat(31)),
    };
    _mm256_slli_epi32::<S>(c)
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
    /// Destination bits that forbid the write.
    check: __m256i,
    /// Bits forced on in every written pixel.
    set: __m256i,
    /// At 4 bits, the CLUT's first 16 entries (see [`clut16`]).
    clut: __m256i,
    /// The texture window: and, or for U, then for V. A plain window is and 0xff, or 0.
    win: [__m256i; 4],
    /// The page's top row times the VRAM width.
    page_row: __m256i,
    /// The page's left column.
    page_x: __m256i,
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
    let zero = _mm256_setzero_si256();
    let (clut, win, page_row, page_x) = match smp {
        Some(smp) => (
            if DEPTH == 4 { clut16(smp.clut) } else { zero },
            [
                splat(smp.win_u.0.into()),
                splat(smp.win_u.1.into()),
                splat(smp.win_v.0.into()),
                splat(smp.win_v.1.into()),
            ],
            splat((smp.page_y * VRAM_WIDTH) as i32),
            splat(smp.page_x as i32),
        ),
        None => (zero, [zero; 4], zero, zero),
    };
    Prim {
        off,
        step,
        flat: [splat(p.flat[0]), splat(p.flat[1]), splat(p.flat[2])],
        check: splat(p.px.check.into()),
        set: splat(p.px.set.into()),
        clut,
        win,
        page_row,
        page_x,
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
    let (zero, bit15, low15) = (_mm256_setzero_si256(), splat(0x8000), splat(0x7fff));
    // SAFETY: `at` is 16 readable bytes; the load has no alignment requirement.
    let dst = _mm256_cvtepu16_epi32(unsafe { _mm_loadu_si128(at.as_ptr().cast()) });
    let [r, g, b, u, v] = *lanes;
    let texel = match smp {
        Some(smp) if DEPTH != 0 => texels(smp, p, u, v),
        _ => zero,
    };
    let [cr, cg, cb] = if GOURAUD {
        [
            _mm256_srai_epi32::<{ FRAC as i32 }>(r),
            _mm256_srai_epi32::<{ FRAC as i32 }>(g),
            _mm256_srai_epi32::<{ FRAC as i32 }>(b),
        ]
    } else {
        p.flat
    };
    let col = if DEPTH != 0 && RAW {
        texel
    } else if DEPTH != 0 {
        _mm256_or_si256(
            _mm256_or_si256(
                modulate_comp::<0>(texel, cr, dither),
                modulate_comp::<5>(texel, cg, dither),
            ),
            _mm256_or_si256(
                modulate_comp::<10>(texel, cb, dither),
                _mm256_and_si256(texel, bit15),
            ),
        )
    } else {
        _mm256_or_si256(
            _mm256_or_si256(to5_comp::<0>(cr, dither), to5_comp::<5>(cg, dither)),
            to5_comp::<10>(cb, dither),
        )
    };
    // Drawn: inside the span, texel not 0x0000, destination not mask-protected.
    let mut draw = _mm256_and_si256(
        valid,
        _mm256_cmpeq_epi32(_mm256_and_si256(dst, p.check), zero),
    );
    if DEPTH != 0 {
        draw = _mm256_andnot_si256(_mm256_cmpeq_epi32(texel, zero), draw);
    }
    let w = if BLEND == BLEND_NONE {
        _mm256_or_si256(col, p.set)
    } else {
        let f = _mm256_and_si256(col, low15);
        let bg = _mm256_and_si256(dst, low15);
        let blended = _mm256_or_si256(
            _mm256_or_si256(blend_comp::<BLEND, 0>(bg, f), blend_comp::<BLEND, 5>(bg, f)),
            blend_comp::<BLEND, 10>(bg, f),
        );
        // Texel bit 15 gates blending; untextured pixels always blend.
        let c = if DEPTH == 0 {
            blended
        } else {
            let semi = _mm256_cmpeq_epi32(_mm256_and_si256(col, bit15), bit15);
            _mm256_blendv_epi8(f, blended, semi)
        };
        _mm256_or_si256(_mm256_or_si256(c, _mm256_and_si256(col, bit15)), p.set)
    };
    let out = _mm256_blendv_epi8(dst, w, draw);
    let out16 = _mm_packus_epi32(
        _mm256_castsi256_si128(out),
        _mm256_extracti128_si256::<1>(out),
    );
    // SAFETY: `at` is 16 writable bytes; the store has no alignment requirement.
    unsafe { _mm_storeu_si128(at.as_mut_ptr().cast(), out16) };
}
