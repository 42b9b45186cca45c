//! The span kernel: one horizontal run of pixels of a triangle or rectangle, drawn through a loop
//! specialised (const generics, chosen once per primitive by [`dispatch`]) for the texture depth,
//! shading, raw texturing and blend mode.
//!
//! Design rule: pixels go through in chunks of [`LANES`], the pixel rule ([`super::pixel`]) run
//! on all lanes of a chunk at once, branch-free; the chunk is read from and written back to VRAM
//! whole, each lane keeping its old value where the pixel is not drawn (transparent texel, mask
//! bit set, past the span's end), so the result equals a pixel-by-pixel loop. The rule is one
//! source compiled for each kernel ([`super::lanes`]): [`Portable`] (texels fetched lane by lane, the
//! rest in 16-bit arrays the compiler vectorises), [`avx2::Avx2`] where the CPU has it, and
//! [`span_exact`], the pixel-by-pixel loop, which tests hold both kernels to.
//!
//! What every span of a primitive shares is prepared once per primitive ([`Kernel::prim`]), and a
//! row passes only its attributes at its first pixel ([`Kernel::Attrs`], stepped row to row in
//! wrapping 32-bit arithmetic) and its dither lanes: at a few pixels per row, per-span set-up
//! would weigh as much as the pixels.
//!
//! The lane kernels need every colour of the span in 0..=255, which holds for flat colours and
//! for most gouraud spans; a gouraud span whose colours step outside (possible near a vertex, as
//! the hardware's gradients are truncated) goes through [`span_exact`] with 64-bit steppers and
//! the rule in 32 bits instead.

use super::lanes::{Lanes, Lanes16, Scalar};
use super::pixel::{pixel, Flags, Inputs, PixelOut, DITHER};
use super::texture::Sampler;
use super::Band;
use crate::VRAM_WIDTH;

pub use super::lanes::{Portable, LANES};

#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(all(target_arch = "x86_64", not(miri)))]
pub use avx2::prefetch;
mod dispatch;
#[cfg(test)]
mod tests;

pub use dispatch::{dispatch, Shade};

/// Where no prefetch instruction is used: nothing (the read waits when it comes).
#[cfg(not(all(target_arch = "x86_64", not(miri))))]
#[inline(always)]
pub fn prefetch<T>(_: &T) {}

/// Asks for every cache line of `s` to be fetched ([`prefetch`]).
#[inline(always)]
pub fn prefetch_lines<T>(s: &[T]) {
    let step = (64 / std::mem::size_of::<T>().max(1)).max(1);
    for x in s.iter().step_by(step) {
        prefetch(x);
    }
}

/// The widest span [`Kernel::span_pair`] takes: half a chunk.
pub const HALF: usize = LANES / 2;

/// A span of at most [`HALF`] pixels for [`Kernel::span_pair`]: pixels `x0..x1` of `row`
/// (`x0 < x1 ≤ x0 + HALF ≤ VRAM_WIDTH`), with the attributes `at` at `x0` and the dither
/// offsets of pixels `x0..x0 + LANES`, as [`Kernel::span`] takes them.
pub struct Short<'r, A> {
    /// The VRAM row.
    pub row: &'r mut [u16; VRAM_WIDTH],
    /// The first pixel.
    pub x0: usize,
    /// Past the last pixel.
    pub x1: usize,
    /// r, g, b, u, v at `x0`.
    pub at: A,
    /// Dither offsets of pixels `x0..x0 + LANES`.
    pub dither: &'static [i16; LANES],
}

impl<A> Short<'_, A> {
    /// Whether pixels `x0..x1` make a span [`Kernel::span_pair`] takes.
    #[inline(always)]
    pub fn fits(x0: usize, x1: usize) -> bool {
        x1 - x0 <= HALF && x0 + HALF <= VRAM_WIDTH
    }
}

/// Fraction bits of the colour and texture-coordinate steppers.
pub const FRAC: u32 = 12;

/// The 4×4 dither matrix laid out for the lane loop: `DITHER_LANES[y & 3][x0 & 3][i]` is the
/// offset of pixel `x0 + i` on row `y` (the pattern repeats every 4 pixels, so every chunk of a
/// span uses the same lanes).
pub static DITHER_LANES: [[[i16; LANES]; 4]; 4] = {
    let mut t = [[[0i16; LANES]; 4]; 4];
    let mut y = 0;
    while y < 4 {
        let mut x0 = 0;
        while x0 < 4 {
            let mut i = 0;
            while i < LANES {
                t[y][x0][i] = DITHER[y][(x0 + i) & 3];
                i += 1;
            }
            x0 += 1;
        }
        y += 1;
    }
    t
};

/// No dithering, in lanes.
pub static NO_DITHER: [i16; LANES] = [0; LANES];

/// No dithering, laid out as [`DITHER_LANES`] (so that a row picks its lanes the same way
/// whether the primitive dithers or not).
pub static NO_DITHER_LANES: [[[i16; LANES]; 4]; 4] = [[[0; LANES]; 4]; 4];

/// What every span of a primitive shares, for [`Kernel::prim`]: the attributes' steps per
/// pixel, the flat colour and the mask handling.
#[derive(Clone, Copy, Debug)]
pub struct PrimSteps {
    /// Steps per pixel of r, g, b, u, v, with [`FRAC`] fraction bits. Colours (read only by
    /// gouraud spans) step exactly as every pixel of a span lies in 0..=255 (the caller checks);
    /// U and V only use bits 12–19, which wrapping 32-bit steps keep exact on every span.
    pub gdx: [i32; 5],
    /// The colour of a flat primitive, 8-bit red, green, blue.
    pub flat: [i32; 3],
    /// Mask handling.
    pub px: PixelOut,
}

/// The steppers of one chunk, lane `i` holding pixel `i` of the chunk.
struct Steppers {
    rgb: [[i32; LANES]; 3],
    uv: [[u32; LANES]; 2],
}

impl Steppers {
    #[inline(always)]
    fn start(at: &[i32; 5], gdx: &[i32; 5]) -> Self {
        let mut l = Steppers {
            rgb: [[0; LANES]; 3],
            uv: [[0; LANES]; 2],
        };
        for i in 0..LANES {
            for c in 0..3 {
                l.rgb[c][i] = at[c].wrapping_add(gdx[c].wrapping_mul(i as i32));
            }
            for c in 0..2 {
                l.uv[c][i] = at[3 + c].wrapping_add(gdx[3 + c].wrapping_mul(i as i32)) as u32;
            }
        }
        l
    }

    #[inline(always)]
    fn advance(&mut self, gdx: &[i32; 5]) {
        let step = gdx.map(|d| d.wrapping_mul(LANES as i32));
        for i in 0..LANES {
            for (l, d) in self.rgb.iter_mut().zip(&step[..3]) {
                l[i] = l[i].wrapping_add(*d);
            }
            for (l, d) in self.uv.iter_mut().zip(&step[3..]) {
                l[i] = l[i].wrapping_add(*d as u32);
            }
        }
    }
}

/// A span loop for spans whose colours all lie in 0..=255: [`Portable`] everywhere, or
/// [`avx2::Avx2`] where the CPU has AVX2. Both give exactly [`span_exact`]'s pixels.
///
/// A primitive builds its constants once ([`Kernel::prim`]); each span then passes only its
/// attributes at its first pixel, so a short span costs little more than its pixels.
pub trait Kernel: Copy {
    /// The constants every span of one primitive shares, in the form this kernel uses them.
    type Prim: Copy;

    /// r, g, b, u, v with [`FRAC`] fraction bits at one point, in wrapping 32-bit arithmetic,
    /// in the form this kernel steps them.
    type Attrs: Copy;

    /// The constants of a primitive with steps, flat colour and mask handling `p`, sampling
    /// through `smp` (`Some` exactly when `DEPTH` is not 0).
    fn prim<const DEPTH: u8>(self, p: &PrimSteps, smp: Option<&Sampler<DEPTH>>) -> Self::Prim;

    /// Attributes r, g, b, u, v.
    fn attrs(self, a: [i32; 5]) -> Self::Attrs;

    /// `a + d·k` per attribute, wrapping.
    fn attrs_mul_add(self, a: Self::Attrs, d: Self::Attrs, k: i32) -> Self::Attrs;

    /// `a + d` per attribute, wrapping.
    fn attrs_add(self, a: Self::Attrs, d: Self::Attrs) -> Self::Attrs;

    /// Draws the pixels `x0..x1` of `row`, a whole VRAM row, left to right, for the primitive
    /// `p` (built by [`Kernel::prim`] with the same `smp`). `at` holds the attributes at pixel
    /// `x0` (colours read only when `GOURAUD`, U/V only when `DEPTH` is not 0), `dither` the
    /// offsets of pixels `x0..x0 + LANES`. Pixels of `row` outside `x0..x1` may be read and
    /// written back unchanged. `RAW` only with a texture; `BLEND` a `BLEND_*` selector.
    #[allow(clippy::too_many_arguments)]
    fn span<const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
        self,
        p: &Self::Prim,
        row: &mut [u16; VRAM_WIDTH],
        x0: usize,
        x1: usize,
        at: Self::Attrs,
        dither: &[i16; LANES],
        smp: Option<&Sampler<DEPTH>>,
    );

    /// Draws two short spans of the primitive `p` on two different rows, each as
    /// [`Kernel::span`] would: a kernel whose chunks hold [`LANES`] pixels draws both in one
    /// (a small triangle's rows are mostly a few pixels wide).
    #[inline(always)]
    fn span_pair<const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
        self,
        p: &Self::Prim,
        a: Short<'_, Self::Attrs>,
        b: Short<'_, Self::Attrs>,
        smp: Option<&Sampler<DEPTH>>,
    ) {
        for s in [a, b] {
            self.span::<DEPTH, GOURAUD, RAW, BLEND>(p, s.row, s.x0, s.x1, s.at, s.dither, smp);
        }
    }

    /// Draws primitive `d`'s rows inside `bands` through this kernel: `d.spans` compiled for
    /// the kernel's instruction set, its row loop and spans inlined together.
    #[inline(always)]
    fn draw<D: SpanDraw, const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
        self,
        d: &D,
        bands: &mut [Band],
        smp: Option<&Sampler<DEPTH>>,
    ) {
        d.spans::<Self, DEPTH, GOURAUD, RAW, BLEND>(self, bands, smp);
    }
}

/// Which [`Kernel`] draws a batch's spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simd {
    /// The portable lane loop.
    Portable,
    /// The AVX2 loop.
    #[cfg(target_arch = "x86_64")]
    Avx2(avx2::Avx2),
}

impl Simd {
    /// The fastest kernel this CPU runs.
    pub fn best() -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(k) = avx2::Avx2::detect() {
            return Simd::Avx2(k);
        }
        Simd::Portable
    }
}

impl Kernel for Portable {
    type Prim = PrimSteps;
    type Attrs = [i32; 5];

    #[inline(always)]
    fn prim<const DEPTH: u8>(self, p: &PrimSteps, _: Option<&Sampler<DEPTH>>) -> PrimSteps {
        *p
    }

    #[inline(always)]
    fn attrs(self, a: [i32; 5]) -> [i32; 5] {
        a
    }

    #[inline(always)]
    fn attrs_mul_add(self, a: [i32; 5], d: [i32; 5], k: i32) -> [i32; 5] {
        std::array::from_fn(|i| a[i].wrapping_add(d[i].wrapping_mul(k)))
    }

    #[inline(always)]
    fn attrs_add(self, a: [i32; 5], d: [i32; 5]) -> [i32; 5] {
        std::array::from_fn(|i| a[i].wrapping_add(d[i]))
    }

    #[inline(always)]
    fn span<const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
        self,
        p: &PrimSteps,
        row: &mut [u16; VRAM_WIDTH],
        x0: usize,
        x1: usize,
        at: [i32; 5],
        dither: &[i16; LANES],
        smp: Option<&Sampler<DEPTH>>,
    ) {
        let mut lanes = Steppers::start(&at, &p.gdx);
        let x1 = x1.min(VRAM_WIDTH);
        let mut x = x0;
        while x < x1 {
            let n = (x1 - x).min(LANES);
            match row.get_mut(x..x + LANES) {
                Some(c) => {
                    let c: &mut [u16; LANES] = c.try_into().expect("LANES pixels");
                    chunk::<DEPTH, GOURAUD, RAW, BLEND>(c, n, &lanes, p, dither, smp);
                }
                None => {
                    // The last chunk of a span reaching the right end of VRAM.
                    let mut buf = [0u16; LANES];
                    for (b, px) in buf.iter_mut().zip(&row[x..x1]) {
                        *b = *px;
                    }
                    chunk::<DEPTH, GOURAUD, RAW, BLEND>(&mut buf, n, &lanes, p, dither, smp);
                    for (px, b) in row[x..x1].iter_mut().zip(buf) {
                        *px = b;
                    }
                }
            }
            lanes.advance(&p.gdx);
            x += LANES;
        }
    }
}

/// One chunk: the first `n` lanes of `dst` are span pixels.
#[inline(always)]
fn chunk<const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
    dst: &mut [u16; LANES],
    n: usize,
    l: &Steppers,
    p: &PrimSteps,
    dither: &[i16; LANES],
    smp: Option<&Sampler<DEPTH>>,
) {
    let k = Portable;
    let mut texel = [0i16; LANES];
    if let Some(smp) = smp {
        for (i, t) in texel.iter_mut().enumerate() {
            *t = smp.texel((l.uv[0][i] >> FRAC) as u8, (l.uv[1][i] >> FRAC) as u8) as i16;
        }
    }
    let rgb: [Lanes16; 3] = std::array::from_fn(|c| {
        if GOURAUD {
            l.rgb[c].map(|x| (x >> FRAC) as i16)
        } else {
            k.splat(p.flat[c])
        }
    });
    let inputs = Inputs {
        dst: dst.map(|d| d as i16),
        texel,
        rgb,
        dither: *dither,
        covered: std::array::from_fn(|i| -i16::from(i < n)),
    };
    let out = pixel(k, Flags::new(DEPTH != 0, RAW, BLEND), inputs, p.px.lanes(k));
    *dst = out.map(|x| x as u16);
}

/// Draws a gouraud span pixel by pixel with 64-bit steppers and the rule in 32 bits (colours
/// may leave 0..=255): `acc` holds r, g, b, u, v ·2¹² at the first pixel and `gdx` their steps.
/// The reference the lane kernels are tested against.
#[inline(always)]
pub fn span_exact<const DEPTH: u8, const RAW: bool, const BLEND: u8>(
    row: &mut [u16],
    dither: &[i16; LANES],
    acc: [i64; 5],
    gdx: [i64; 5],
    smp: Option<&Sampler<DEPTH>>,
    px: PixelOut,
) {
    let [mut ar, mut ag, mut ab, au, av] = acc;
    let [gr, gg, gb, gu, gv] = gdx;
    let (mut u, mut v) = (au as u32, av as u32);
    let (flags, out) = (Flags::new(DEPTH != 0, RAW, BLEND), px.lanes(Scalar));
    for (i, dst) in row.iter_mut().enumerate() {
        let texel = smp.map_or(0, |smp| smp.texel((u >> FRAC) as u8, (v >> FRAC) as u8));
        let inputs = Inputs {
            dst: (*dst).into(),
            texel: texel.into(),
            rgb: [ar, ag, ab].map(|c| (c >> FRAC) as i32),
            dither: dither[i % LANES].into(),
            covered: -1,
        };
        *dst = pixel(Scalar, flags, inputs, out) as u16;
        ar += gr;
        ag += gg;
        ab += gb;
        u = u.wrapping_add(gu as u32);
        v = v.wrapping_add(gv as u32);
    }
}

/// A primitive drawn as spans: `spans` draws its rows inside a set of bands through kernel
/// `K`, specialised as [`dispatch`] chose.
pub trait SpanDraw {
    /// Draws the primitive's rows inside `bands` (sorted by row). `DEPTH` 0 (untextured), 4, 8
    /// or 15, `smp` `Some` exactly when it is not 0; `GOURAUD` per-vertex colours; `RAW`
    /// unmodulated texels; `BLEND` a `BLEND_*` selector.
    fn spans<K: Kernel, const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
        &self,
        k: K,
        bands: &mut [Band],
        smp: Option<&Sampler<DEPTH>>,
    );
}
