//! The span kernel: one horizontal run of pixels of a triangle or rectangle, drawn through a loop
//! specialised (const generics, chosen once per primitive by [`dispatch`]) for the texture depth,
//! shading, raw texturing and blend mode.
//!
//! Design rule: pixels go through in chunks of [`LANES`]. Per chunk, the texels are fetched one by
//! one (a gather), then modulation, dithering, saturation, blending and the mask test run as
//! branch-free lane loops over fixed-size arrays in 16-bit arithmetic, which the compiler turns
//! into SIMD instructions on every target (SSE2 on any x86-64). The chunk is read from and written
//! back to VRAM whole, each lane keeping its old value where the pixel is not drawn (transparent
//! texel, mask bit set, past the span's end), so the result equals a pixel-by-pixel loop; tests
//! check it against [`span_exact`], that pixel-by-pixel loop. Measured (callgrind, the GPU bench
//! frame): the per-pixel loop it replaced spent about 75 instructions per pixel.
//!
//! What every span of a primitive shares is prepared once per primitive ([`Kernel::prim`]), and a
//! row passes only its attributes at its first pixel ([`Kernel::Attrs`], stepped row to row in
//! wrapping 32-bit arithmetic) and its dither lanes: at a few pixels per row, per-span set-up
//! would weigh as much as the pixels.
//!
//! The lane loop needs every colour of the span in 0..=255, which holds for flat colours and for
//! most gouraud spans; a gouraud span whose colours step outside (possible near a vertex, as the
//! hardware's gradients are truncated) goes through [`span_exact`] with 64-bit steppers instead.

use super::pixel::{
    blend_const, blend_selector, modulate, put_const, rgb_to_555, PixelMode, BLEND_ADD,
    BLEND_ADD_QUARTER, BLEND_AVERAGE, BLEND_NONE, BLEND_SUBTRACT, DITHER,
};
use super::texture::{Sampler, Texture};
use super::{Band, TexSource};
use crate::VRAM_WIDTH;

#[cfg(target_arch = "x86_64")]
pub mod avx2;
use crate::gp0::fields::{BlendMode, TextureDepth};

/// Pixels per chunk of the lane loop.
pub const LANES: usize = 8;

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

/// How a primitive writes pixels: `check` 0x8000 when GP0(E6h) bit 1 is set (else 0), `set`
/// the forced bit 15 (GP0(E6h) bit 0).
#[derive(Clone, Copy, Debug)]
pub struct PixelOut {
    /// Destination bits that forbid the write.
    pub check: u16,
    /// Bits forced on in every written pixel.
    pub set: u16,
}

impl PixelOut {
    /// The mask handling of `mode`.
    pub fn new(mode: &PixelMode) -> Self {
        PixelOut {
            check: if mode.check_mask { 0x8000 } else { 0 },
            set: mode.set_mask,
        }
    }
}

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
struct Lanes {
    rgb: [[i32; LANES]; 3],
    uv: [[u32; LANES]; 2],
}

impl Lanes {
    #[inline(always)]
    fn start(at: &[i32; 5], gdx: &[i32; 5]) -> Self {
        let mut l = Lanes {
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

/// One 5-bit component of a modulated texel: `clamp(((tc × c) >> 4) + d, 0, 255) >> 3` for a
/// 5-bit texel component `tc`, a colour component `c` in 0..=255 and a dither offset `d`,
/// in 16-bit arithmetic (tc × c ≤ 7905). Equal to [`modulate`] on those inputs.
#[inline(always)]
fn modulate5(tc: i16, c: i16, d: i16) -> u16 {
    ((tc.wrapping_mul(c) >> 4).wrapping_add(d).clamp(0, 255) >> 3) as u16
}

/// [`modulate`] for colours in 0..=255, in 16-bit arithmetic.
#[inline(always)]
fn modulate_lane(t: u16, r: i16, g: i16, b: i16, d: i16) -> u16 {
    let tc = |shift: u16| ((t >> shift) & 31) as i16;
    modulate5(tc(0), r, d)
        | (modulate5(tc(5), g, d) << 5)
        | (modulate5(tc(10), b, d) << 10)
        | (t & 0x8000)
}

/// [`rgb_to_555`] for colours in 0..=255, in 16-bit arithmetic.
#[inline(always)]
fn rgb_lane(r: i16, g: i16, b: i16, d: i16) -> u16 {
    let c5 = |c: i16| (c.wrapping_add(d).clamp(0, 255) >> 3) as u16;
    c5(r) | (c5(g) << 5) | (c5(b) << 10)
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

/// The portable lane loop: chunks of [`LANES`] pixels through fixed-size arrays.
#[derive(Clone, Copy, Debug, Default)]
pub struct Portable;

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
        let mut lanes = Lanes::start(&at, &p.gdx);
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
    l: &Lanes,
    p: &PrimSteps,
    dither: &[i16; LANES],
    smp: Option<&Sampler<DEPTH>>,
) {
    let px = p.px;
    let mut texel = [0u16; LANES];
    if let Some(smp) = smp {
        for (i, t) in texel.iter_mut().enumerate() {
            *t = smp.texel((l.uv[0][i] >> FRAC) as u8, (l.uv[1][i] >> FRAC) as u8);
        }
    }
    let mut col = [0u16; LANES];
    for (i, c) in col.iter_mut().enumerate() {
        let comp = |k: usize| {
            if GOURAUD {
                (l.rgb[k][i] >> FRAC) as i16
            } else {
                p.flat[k] as i16
            }
        };
        let d = dither[i];
        *c = if DEPTH != 0 && RAW {
            texel[i]
        } else if DEPTH != 0 {
            modulate_lane(texel[i], comp(0), comp(1), comp(2), d)
        } else {
            rgb_lane(comp(0), comp(1), comp(2), d)
        };
    }
    let mut out = [0u16; LANES];
    for i in 0..LANES {
        let (d, c) = (dst[i], col[i]);
        // Texel 0x0000 is transparent; a destination with the checked mask bit is kept.
        let draw = i < n && (DEPTH == 0 || texel[i] != 0) && d & px.check == 0;
        let w = if BLEND == BLEND_NONE {
            c | px.set
        } else {
            // Texel bit 15 gates blending per pixel; untextured pixels always blend.
            let semi = DEPTH == 0 || c & 0x8000 != 0;
            let keep = (semi as u16).wrapping_neg();
            let blended = blend_const::<BLEND>(d & 0x7fff, c & 0x7fff);
            (blended & keep) | (c & 0x7fff & !keep) | (c & 0x8000) | px.set
        };
        out[i] = if draw { w } else { d };
    }
    *dst = out;
}

/// Draws a gouraud span pixel by pixel with 64-bit steppers and the arithmetic [`modulate`]
/// (colours may leave 0..=255): `acc` holds r, g, b, u, v ·2¹² at the first pixel and `gdx`
/// their steps. The reference the lane loop is tested against.
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
    for (i, dst) in row.iter_mut().enumerate() {
        let d = i32::from(dither[i % LANES]);
        let (cr, cg, cb) = (
            (ar >> FRAC) as i32,
            (ag >> FRAC) as i32,
            (ab >> FRAC) as i32,
        );
        ar += gr;
        ag += gg;
        ab += gb;
        match smp {
            Some(smp) if DEPTH != 0 => {
                let texel = smp.texel((u >> FRAC) as u8, (v >> FRAC) as u8);
                u = u.wrapping_add(gu as u32);
                v = v.wrapping_add(gv as u32);
                if texel != 0 {
                    let c = if RAW {
                        texel
                    } else {
                        modulate(texel, cr, cg, cb, d)
                    };
                    put_const::<BLEND>(dst, c, texel & 0x8000 != 0, px.check, px.set);
                }
            }
            _ => put_const::<BLEND>(dst, rgb_to_555(cr, cg, cb, d), true, px.check, px.set),
        }
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

/// How a primitive shades: what [`dispatch`] specialises on.
#[derive(Clone, Copy, Debug)]
pub struct Shade<'a> {
    /// The texture, if textured.
    pub texture: Option<&'a Texture>,
    /// Per-vertex colours.
    pub gouraud: bool,
    /// Raw texture (ignored without one).
    pub raw: bool,
    /// Blend mode when semi-transparent.
    pub blend: Option<BlendMode>,
}

/// Picks the kernel and the specialised span loop for a primitive once, from its texture,
/// shading and blend mode. A raw texture ignores the vertex colours (and so gouraud).
pub fn dispatch<D: SpanDraw>(d: &D, shade: Shade, bands: &mut [Band], src: TexSource, simd: Simd) {
    match simd {
        Simd::Portable => by_blend(d, Portable, shade, bands, src),
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2(k) => by_blend(d, k, shade, bands, src),
    }
}

fn by_blend<D: SpanDraw, K: Kernel>(d: &D, k: K, shade: Shade, bands: &mut [Band], src: TexSource) {
    match blend_selector(shade.blend) {
        BLEND_NONE => by_texture::<D, K, BLEND_NONE>(d, k, shade, bands, src),
        BLEND_AVERAGE => by_texture::<D, K, BLEND_AVERAGE>(d, k, shade, bands, src),
        BLEND_ADD => by_texture::<D, K, BLEND_ADD>(d, k, shade, bands, src),
        BLEND_SUBTRACT => by_texture::<D, K, BLEND_SUBTRACT>(d, k, shade, bands, src),
        _ => by_texture::<D, K, BLEND_ADD_QUARTER>(d, k, shade, bands, src),
    }
}

fn by_texture<D: SpanDraw, K: Kernel, const BLEND: u8>(
    d: &D,
    k: K,
    shade: Shade,
    bands: &mut [Band],
    src: TexSource,
) {
    use TextureDepth::*;
    let Some(t) = shade.texture else {
        return match shade.gouraud {
            false => k.draw::<D, 0, false, false, BLEND>(d, bands, None),
            true => k.draw::<D, 0, true, false, BLEND>(d, bands, None),
        };
    };
    let (raw, g) = (shade.raw, shade.gouraud);
    match t.depth {
        Clut4 => {
            let smp = Some(&t.sampler::<4>(src));
            match (raw, g) {
                (true, _) => k.draw::<D, 4, false, true, BLEND>(d, bands, smp),
                (false, false) => k.draw::<D, 4, false, false, BLEND>(d, bands, smp),
                (false, true) => k.draw::<D, 4, true, false, BLEND>(d, bands, smp),
            }
        }
        Clut8 => {
            let smp = Some(&t.sampler::<8>(src));
            match (raw, g) {
                (true, _) => k.draw::<D, 8, false, true, BLEND>(d, bands, smp),
                (false, false) => k.draw::<D, 8, false, false, BLEND>(d, bands, smp),
                (false, true) => k.draw::<D, 8, true, false, BLEND>(d, bands, smp),
            }
        }
        Direct15 => {
            let smp = Some(&t.sampler::<15>(src));
            match (raw, g) {
                (true, _) => k.draw::<D, 15, false, true, BLEND>(d, bands, smp),
                (false, false) => k.draw::<D, 15, false, false, BLEND>(d, bands, smp),
                (false, true) => k.draw::<D, 15, true, false, BLEND>(d, bands, smp),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::texture::ClutTable;
    use crate::rng::XorShift;
    use crate::{VramImage, VRAM_HEIGHT};

    #[test]
    fn lane_modulation_equals_modulate_for_every_input() {
        for tc in 0..32u16 {
            for c in 0..256 {
                for d in -4..4 {
                    let t = tc | (tc << 5) | (tc << 10) | 0x8000;
                    let (c16, d16) = (c as i16, d as i16);
                    assert_eq!(
                        modulate_lane(t, c16, c16, c16, d16),
                        modulate(t, c, c, c, d),
                        "tc {tc} c {c} d {d}"
                    );
                    assert_eq!(rgb_lane(c16, c16, c16, d16), rgb_to_555(c, c, c, d));
                }
            }
        }
    }

    #[test]
    fn dither_lanes_follow_the_matrix() {
        for y in 0..4 {
            for x0 in 0..4 {
                for i in 0..LANES {
                    assert_eq!(DITHER_LANES[y][x0][i], DITHER[y][(x0 + i) % 4]);
                }
            }
        }
    }

    /// What every kernel is compared on: a random VRAM snapshot, CLUT and destination row.
    struct Case {
        vram: Box<VramImage>,
        clut: ClutTable,
        row: Vec<u16>,
    }

    impl Case {
        fn new(r: &mut XorShift) -> Self {
            let texel = |r: &mut XorShift| match r.below(8) {
                0 => 0,
                1 => 0x8000,
                _ => r.next_u32() as u16,
            };
            let vram: Box<VramImage> = (0..VRAM_WIDTH * VRAM_HEIGHT)
                .map(|_| texel(r))
                .collect::<Vec<_>>()
                .try_into()
                .expect("VRAM-sized");
            Case {
                vram,
                clut: std::array::from_fn(|_| texel(r)),
                row: (0..VRAM_WIDTH).map(|_| texel(r)).collect(),
            }
        }
    }

    /// Random spans of one specialisation: the portable kernel and (where the CPU has it) the
    /// AVX2 kernel must write exactly what the pixel-by-pixel reference writes, everywhere in
    /// the row.
    fn check<const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
        r: &mut XorShift,
        case: &Case,
    ) {
        for _ in 0..60 {
            let max = if r.below(4) == 0 { 80 } else { 20 };
            let n = 1 + r.below(max) as usize;
            let x0 = if r.below(5) == 0 {
                VRAM_WIDTH - n
            } else {
                r.below((VRAM_WIDTH - n) as u32 + 1) as usize
            };
            let x1 = x0 + n;
            // Colours: start and end in 0..=255, so every pixel is (the kernels' precondition).
            let mut rgb = [0i32; 3];
            let mut drgb = [0i32; 3];
            for c in 0..3 {
                let (a, b) = (r.below(256) as i32, r.below(256) as i32);
                rgb[c] = (a << FRAC) | r.below(1 << FRAC) as i32;
                drgb[c] = if GOURAUD && n > 1 {
                    ((b << FRAC) - rgb[c]) / (n as i32 - 1)
                } else {
                    0
                };
            }
            let uv = [r.next_u32(), r.next_u32()];
            let (s0, s1) = (r.below(32), r.below(32));
            let duv = [r.next_u32() >> s0, (r.next_u32() >> s1).wrapping_neg()];
            // A second span inside the first, through the same primitive constants.
            let s0 = x0 + r.below(n as u32) as usize;
            let s1 = s0 + 1 + r.below((x1 - s0) as u32) as usize;
            let dither_row = (r.below(2) == 0).then(|| r.below(4) as usize);
            let dither_at = |x: usize| match dither_row {
                None => &NO_DITHER,
                Some(y) => &DITHER_LANES[y][x & 3],
            };
            let dither = dither_at(x0);
            let px = PixelOut {
                check: if r.below(2) == 0 { 0x8000 } else { 0 },
                set: if r.below(2) == 0 { 0x8000 } else { 0 },
            };
            let page = crate::gp0::fields::TexPage((r.next_u32() & 0x1ff) as u16);
            let win = match r.below(2) {
                0 => 0,
                _ => r.next_u32(),
            };
            let win = crate::gp0::fields::TexWindow(win);
            let tex = Texture::new(page, win, crate::raster::texture::ClutRef::Table(0));
            let cluts = [case.clut];
            let src = TexSource {
                vram: &case.vram,
                cluts: &cluts,
            };
            let smp = tex.sampler::<DEPTH>(src);
            let smp = (DEPTH != 0).then_some(&smp);
            let acc = [0, 1, 2, 3, 4].map(|i| match i {
                0..=2 => rgb[i] as i64,
                _ => uv[i - 3] as i64,
            });
            let gdx = [0, 1, 2, 3, 4].map(|i| match i {
                0..=2 => drgb[i] as i64,
                _ => duv[i - 3] as i32 as i64,
            });
            let mut want = case.row.clone();
            span_exact::<DEPTH, RAW, BLEND>(&mut want[x0..x1], dither, acc, gdx, smp, px);
            let skip = (s0 - x0) as i64;
            let acc2 = std::array::from_fn(|i| acc[i] + gdx[i] * skip);
            let sub = &mut want[s0..s1];
            span_exact::<DEPTH, RAW, BLEND>(sub, dither_at(s0), acc2, gdx, smp, px);
            // Flat spans read the flat colour, gouraud ones their colours at the first pixel.
            // A flat span's colour comes from `flat` alone: its colour steps are garbage here.
            let drgb = match GOURAUD {
                true => drgb,
                false => [r.next_u32() as i32, 7, -3],
            };
            let steps = PrimSteps {
                gdx: [drgb[0], drgb[1], drgb[2], duv[0] as i32, duv[1] as i32],
                flat: rgb.map(|c| c >> FRAC),
                px,
            };
            let at = match GOURAUD {
                true => [rgb[0], rgb[1], rgb[2], uv[0] as i32, uv[1] as i32],
                false => [
                    -1 << 30,
                    1 << 30,
                    r.next_u32() as i32,
                    uv[0] as i32,
                    uv[1] as i32,
                ],
            };
            // Both spans through kernel `k`, the second's attributes stepped from the first's.
            let draw = |k: &dyn Fn(&mut [u16; VRAM_WIDTH])| {
                let mut got = case.row.clone();
                k((&mut got[..]).try_into().expect("a VRAM row"));
                got
            };
            let what = format!(
                "DEPTH {DEPTH} GOURAUD {GOURAUD} RAW {RAW} BLEND {BLEND} {x0}..{x1}, {s0}..{s1}"
            );
            let got = draw(&|row| {
                let (k, p) = (Portable, Portable.prim(&steps, smp));
                let (a, d) = (k.attrs(at), k.attrs(steps.gdx));
                k.span::<DEPTH, GOURAUD, RAW, BLEND>(&p, row, x0, x1, a, dither, smp);
                let a2 = k.attrs_mul_add(a, d, (s0 - x0) as i32);
                k.span::<DEPTH, GOURAUD, RAW, BLEND>(&p, row, s0, s1, a2, dither_at(s0), smp);
            });
            assert_eq!(got, want, "portable, {what}");
            #[cfg(target_arch = "x86_64")]
            if let Some(k) = avx2::Avx2::detect() {
                let got = draw(&|row| {
                    let p = k.prim(&steps, smp);
                    let (a, d) = (k.attrs(at), k.attrs(steps.gdx));
                    k.span::<DEPTH, GOURAUD, RAW, BLEND>(&p, row, x0, x1, a, dither, smp);
                    let a2 = k.attrs_mul_add(a, d, (s0 - x0) as i32);
                    k.span::<DEPTH, GOURAUD, RAW, BLEND>(&p, row, s0, s1, a2, dither_at(s0), smp);
                });
                assert_eq!(got, want, "avx2, {what}");
            }
        }
    }

    macro_rules! check_all {
        ($r:expr, $case:expr; $($blend:expr),*) => {$(
            check::<0, false, false, $blend>($r, $case);
            check::<0, true, false, $blend>($r, $case);
            check::<4, false, false, $blend>($r, $case);
            check::<4, true, false, $blend>($r, $case);
            check::<4, false, true, $blend>($r, $case);
            check::<8, false, false, $blend>($r, $case);
            check::<8, true, false, $blend>($r, $case);
            check::<8, false, true, $blend>($r, $case);
            check::<15, false, false, $blend>($r, $case);
            check::<15, true, false, $blend>($r, $case);
            check::<15, false, true, $blend>($r, $case);
        )*};
    }

    #[test]
    fn kernels_equal_the_pixel_by_pixel_reference() {
        let mut r = XorShift::new(0x5eed_5a4e);
        for _ in 0..3 {
            let case = Case::new(&mut r);
            check_all!(&mut r, &case; BLEND_NONE, BLEND_AVERAGE, BLEND_ADD, BLEND_SUBTRACT, BLEND_ADD_QUARTER);
        }
    }
}
