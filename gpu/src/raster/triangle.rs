//! Triangles: the hardware's edge walker and attribute gradients.
//!
//! Edges are walked in signed 32.32 fixed point from the top vertex of each edge; an edge's
//! start is biased by (1 − 2⁻²¹) so that a span covers the integer columns `x` with
//! `left ≤ x < right` (left/top edges in, right/bottom edges out), and the per-row step is the
//! exact quotient rounded away from zero. Colour and texture coordinates use gradients with 12
//! fraction bits, truncated toward zero, evaluated from a core vertex with a +½ bias.
//!
//! A triangle is queued as a [`TriangleCmd`] (culled, not set up) and set up when its batch
//! draws, so the gradient divisions run on the rasteriser threads.
// Verified: hwtests phases 1, 3, 6 (edges), 7, 17–22 (attributes).

use super::pixel::PixelMode;
use super::span::{
    dispatch, span_exact, Kernel, PixelOut, PrimSteps, Shade, Simd, SpanDraw, DITHER_LANES, FRAC,
    LANES, NO_DITHER_LANES,
};
use super::texture::{ClutRef, Sampler, Texture};
use super::{Band, Clip, TexSource};
use crate::VRAM_WIDTH;

/// A vertex after the drawing offset, with 8-bit colour and texture coordinates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Vtx {
    /// X in VRAM columns.
    pub x: i32,
    /// Y in VRAM rows.
    pub y: i32,
    /// Red.
    pub r: i32,
    /// Green.
    pub g: i32,
    /// Blue.
    pub b: i32,
    /// U.
    pub u: i32,
    /// V.
    pub v: i32,
}

/// What a triangle samples and how it shades.
#[derive(Clone, Copy, Debug)]
pub struct Shading {
    /// Colours differ per vertex.
    pub gouraud: bool,
    /// Texture, if textured.
    pub texture: Option<Texture>,
    /// Raw texture (no modulation).
    pub raw: bool,
    /// Dithering applies.
    pub dither: bool,
    /// Pixel write mode.
    pub mode: PixelMode,
}

/// One attribute's gradient: value·2¹² per column and per row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Grad {
    dx: i32,
    dy: i32,
}

/// The gradient of attribute `a` over `v` (twice the signed area `area`, not 0), truncated
/// toward zero. In 32 bits: attributes are 8-bit, and a drawn triangle spans at most 1023
/// columns and 511 rows, so the numerators ·2¹² are at most 2·255·511·2¹² = 1 067 458 560
/// (per column) and 2·255·1023·2¹² = 2 137 006 080 (per row), below 2³¹; `i32` division
/// truncates toward zero as the hardware's does.
#[inline(always)]
fn grad(v: &[Vtx; 3], area: i32, a: fn(&Vtx) -> i32) -> Grad {
    let (a0, a1, a2) = (a(&v[0]), a(&v[1]), a(&v[2]));
    let nx = (a1 - a0) * (v[2].y - v[0].y) - (a2 - a0) * (v[1].y - v[0].y);
    let ny = (v[1].x - v[0].x) * (a2 - a0) - (v[2].x - v[0].x) * (a1 - a0);
    Grad {
        dx: (nx << FRAC) / area,
        dy: (ny << FRAC) / area,
    }
}

/// The gradients of r, g, b, u, v over `v` (twice the signed area `area`, not 0).
fn gradients(v: &[Vtx; 3], area: i32) -> [Grad; 5] {
    [
        grad(v, area, |p| p.r),
        grad(v, area, |p| p.g),
        grad(v, area, |p| p.b),
        grad(v, area, |p| p.u),
        grad(v, area, |p| p.v),
    ]
}

/// A triangle as queued: the hardware draws it (not culled), set-up still to come. One cache
/// line (16-bit positions, 8-bit attributes, its clipped bounding box), as the serial front end
/// writes one per triangle and a helper thread reads it from the other core.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
pub struct TriangleCmd {
    v: [PackedVtx; 3],
    /// Rows `[top, bottom)` and columns `[left, right)` possibly drawn, clipped to the drawing
    /// area. Every pixel drawn lies in the closed triangle, so clipping its spans to this box
    /// is clipping them to the drawing area.
    bbox: [i16; 4],
    shading: Shading,
}

const _: () = assert!(
    size_of::<TriangleCmd>() == 64,
    "a queued triangle is one cache line"
);

/// A [`Vtx`] in 9 bytes: positions are 11-bit signed, attributes 8-bit.
#[derive(Clone, Copy, Debug)]
#[repr(C, packed)]
struct PackedVtx {
    x: i16,
    y: i16,
    rgbuv: [u8; 5],
}

impl PackedVtx {
    fn pack(v: &Vtx) -> Self {
        PackedVtx {
            x: v.x as i16,
            y: v.y as i16,
            rgbuv: [v.r, v.g, v.b, v.u, v.v].map(|c| c as u8),
        }
    }

    fn unpack(&self) -> Vtx {
        let [r, g, b, u, v] = self.rgbuv.map(i32::from);
        Vtx {
            x: self.x.into(),
            y: self.y.into(),
            r,
            g,
            b,
            u,
            v,
        }
    }
}

impl TriangleCmd {
    /// A triangle to draw, or `None` when the hardware draws nothing: degenerate (zero area)
    /// or oversize (width ≥ 1024 or height ≥ 512). Positions must be 11-bit signed and
    /// attributes 8-bit (as the GPU's vertices are).
    // Verified: hwtests phase 14 (oversize culling).
    pub fn new(v: [Vtx; 3], clip: Clip, shading: Shading) -> Option<Self> {
        let (minx, maxx) = (min3(v.map(|p| p.x)), max3(v.map(|p| p.x)));
        let (miny, maxy) = (min3(v.map(|p| p.y)), max3(v.map(|p| p.y)));
        if maxx - minx >= 1024 || maxy - miny >= 512 || area2(&v) == 0 {
            return None;
        }
        let bbox = [
            miny.max(clip.y0),
            maxy.min(clip.y1 + 1),
            minx.max(clip.x0),
            (maxx + 1).min(clip.x1 + 1),
        ];
        Some(TriangleCmd {
            v: v.map(|p| PackedVtx::pack(&p)),
            bbox: bbox.map(|c| c as i16),
            shading,
        })
    }

    /// Rows drawn, `[top, bottom)`, clipped to the drawing area.
    pub fn rows(&self) -> (i32, i32) {
        (self.bbox[0].into(), self.bbox[1].into())
    }

    /// Where its texture's CLUT entries are, once the CLUT cache has said.
    pub fn set_clut(&mut self, clut: ClutRef) {
        if let Some(t) = &mut self.shading.texture {
            t.clut = clut;
        }
    }

    /// How the triangle shades its pixels.
    pub fn shading(&self) -> &Shading {
        &self.shading
    }

    /// Columns possibly drawn, `[left, right)`, clipped to the drawing area.
    pub fn cols(&self) -> (i32, i32) {
        (self.bbox[2].into(), self.bbox[3].into())
    }

    /// Gradients, edge steps and the core vertex: what drawing needs.
    pub fn setup(&self) -> Triangle {
        // The vertices in order of y, equal ones in command order (a stable sort of three).
        let mut o = [0, 1, 2];
        let y = |i: usize| self.v[i].y;
        if y(o[1]) < y(o[0]) {
            o.swap(0, 1);
        }
        if y(o[2]) < y(o[1]) {
            o.swap(1, 2);
            if y(o[1]) < y(o[0]) {
                o.swap(0, 1);
            }
        }
        let packed = o.map(|i| self.v[i]);
        let v = packed.map(|p| p.unpack());
        let area = area2(&v);
        // Only the gradients drawing reads: colours when gouraud and not a raw texture, U/V when
        // textured (the others stay 0; `sample` computes all five).
        let s = &self.shading;
        let reads_rgb = s.gouraud && !(s.raw && s.texture.is_some());
        let mut grads = [Grad::default(); 5];
        if reads_rgb {
            grads[0] = grad(&v, area, |p| p.r);
            grads[1] = grad(&v, area, |p| p.g);
            grads[2] = grad(&v, area, |p| p.b);
        }
        if s.texture.is_some() {
            grads[3] = grad(&v, area, |p| p.u);
            grads[4] = grad(&v, area, |p| p.v);
        }
        let steps = [
            x_step(v[2].x - v[0].x, v[2].y - v[0].y),
            x_step(v[1].x - v[0].x, v[1].y - v[0].y),
            x_step(v[2].x - v[1].x, v[2].y - v[1].y),
        ];
        let core_packed = self.v[find_core(self.v.map(|p| p.x))];
        let core = core_packed.unpack();
        // A pixel's colour ·2¹² is an affine function of its position (the core vertex's colour
        // plus the gradients times the offset). Every pixel drawn lies in the closed triangle (an
        // integer point outside it is at least 1/511 column from an edge, far more than the
        // edge bias and step rounding), so the function's values at the three vertices bound
        // every colour drawn: when they are in 0..=255, no span needs checking.
        // Only gouraud colours step; flat ones are 8-bit.
        let rgb_fast = !reads_rgb
            || v.iter().all(|p| {
                let (dx, dy) = ((p.x - core.x) as i64, (p.y - core.y) as i64);
                [(core.r, grads[0]), (core.g, grads[1]), (core.b, grads[2])]
                    .iter()
                    .all(|&(c, g)| {
                        let at = ((c as i64) << FRAC)
                            + (1 << (FRAC - 1))
                            + g.dx as i64 * dx
                            + g.dy as i64 * dy;
                        (0..256 << FRAC).contains(&at)
                    })
            });
        let [top, bottom, left, right] = self.bbox.map(i32::from);
        Triangle {
            v: packed,
            clip: Clip {
                x0: left,
                y0: top,
                x1: right - 1,
                y1: bottom - 1,
            },
            shading: self.shading,
            grads,
            steps,
            // The mid vertex right of the long edge makes the long edge the left one.
            long_left: area > 0,
            core: core_packed,
            rgb_fast,
        }
    }
}

fn min3(a: [i32; 3]) -> i32 {
    a[0].min(a[1]).min(a[2])
}

fn max3(a: [i32; 3]) -> i32 {
    a[0].max(a[1]).max(a[2])
}

/// Twice the signed area of `v` in the order given (11-bit signed positions: the products
/// and their difference fit 32 bits).
fn area2(v: &[Vtx; 3]) -> i32 {
    (v[1].x - v[0].x) * (v[2].y - v[0].y) - (v[2].x - v[0].x) * (v[1].y - v[0].y)
}

/// The vertex attributes are evaluated from, chosen among the vertices in command order: the
/// leftmost, a tie between v0 and v1 going to v1, and a tie of v2 with that winner going to v2
/// when the winner is v1 but to v0 when it is v0. Leftmost: verified by gpu-images/triangle
/// (evaluating from the top, right, bottom or middle vertex misses by 1 LSB). Ties: the emulator
/// reference (its streams and model frames differ in single gouraud/texture LSBs otherwise); no
/// capture decides them, the hardware probes and images pass either way.
fn find_core(x: [i16; 3]) -> usize {
    if x[1] <= x[0] {
        if x[2] <= x[1] {
            2
        } else {
            1
        }
    } else if x[2] < x[0] {
        2
    } else {
        0
    }
}

/// A set-up triangle.
#[derive(Clone, Debug)]
pub struct Triangle {
    /// Vertices sorted by y (packed: the set-up triangle is written once per draw).
    v: [PackedVtx; 3],
    /// What may be drawn: the drawing area met with the bounding box (see [`TriangleCmd`]).
    clip: Clip,
    shading: Shading,
    /// Gradients of r, g, b, u, v; those drawing does not read are 0 (see
    /// [`TriangleCmd::setup`]).
    grads: [Grad; 5],
    /// Per-row X steps of the edges v0→v2, v0→v1, v1→v2 (32.32).
    steps: [i64; 3],
    /// The long edge v0→v2 is the left one.
    long_left: bool,
    /// The vertex attributes are evaluated from.
    core: PackedVtx,
    /// Every colour the triangle can draw lies in 0..=255 (see [`TriangleCmd::setup`]).
    rgb_fast: bool,
}

/// The x of an edge start in 32.32 fixed point, biased to make spans half-open.
#[inline]
fn x_fp(x: i32) -> i64 {
    ((x as i64) << 32) + (1i64 << 32) - (1i64 << 11)
}

/// 32.32 step of `dx` over `dy` steps, rounded away from zero: an edge's per-row x step,
/// and a line's per-step x and y.
#[inline]
pub(crate) fn x_step(dx: i32, dy: i32) -> i64 {
    if dy == 0 {
        return 0;
    }
    let mut n = (dx as i64) << 32;
    let d = dy as i64;
    if n < 0 {
        n -= d - 1;
    } else if n > 0 {
        n += d - 1;
    }
    n / d
}

impl Triangle {
    /// Culls and sets up a triangle in one go: `None` when the hardware draws nothing.
    pub fn new(v: [Vtx; 3], clip: Clip, shading: Shading) -> Option<Self> {
        TriangleCmd::new(v, clip, shading).map(|c| c.setup())
    }

    /// Rows drawn, `[top, bottom)`, clipped to the drawing area.
    pub fn rows(&self) -> (i32, i32) {
        (
            i32::from(self.v[0].y).max(self.clip.y0),
            i32::from(self.v[2].y).min(self.clip.y1 + 1),
        )
    }

    /// The texture, if any.
    pub fn texture(&self) -> Option<&Texture> {
        self.shading.texture.as_ref()
    }

    /// Draws the rows of the triangle inside `bands`, through a loop specialised for its
    /// shading, texture depth and blend mode (chosen once per primitive).
    pub fn draw(&self, bands: &mut [Band], src: TexSource, simd: Simd) {
        let s = &self.shading;
        let shade = Shade {
            texture: s.texture.as_ref(),
            gouraud: s.gouraud,
            raw: s.raw,
            blend: s.mode.blend,
        };
        dispatch(self, shade, bands, src, simd);
    }
}

impl SpanDraw for Triangle {
    /// The row loop, band by band: the upper part (short edge v0→v1) and the lower part
    /// (v1→v2) as two runs of rows. The kernel's per-primitive constants are built once.
    #[inline(always)]
    fn spans<K: Kernel, const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
        &self,
        k: K,
        bands: &mut [Band],
        smp: Option<&Sampler<DEPTH>>,
    ) {
        let (top, bottom) = self.rows();
        let [a, b, _] = self.v.map(|p| p.unpack());
        let c = self.core.unpack();
        let gdx = self.grads.map(|g| g.dx);
        let gdy = self.grads.map(|g| g.dy);
        let px = PixelOut::new(&self.shading.mode);
        let flat = [c.r, c.g, c.b];
        let prim = k.prim::<DEPTH>(&PrimSteps { gdx, flat, px }, smp);
        let run = Run {
            px,
            dither: match self.shading.dither && !RAW {
                true => &DITHER_LANES,
                false => &NO_DITHER_LANES,
            },
            clip: (self.clip.x0, self.clip.x1 + 1),
            gdx: k.attrs(gdx),
            gdy: k.attrs(gdy),
            gdx32: gdx,
            gdy32: gdy,
            core_x: c.x,
        };
        // The attributes (+½) at the core vertex, whose gradients step them to any row.
        let core = k.attrs([c.r, c.g, c.b, c.u, c.v].map(|v| (v << FRAC) + (1 << (FRAC - 1))));
        let exact = GOURAUD && !RAW && !self.rgb_fast;
        for band in bands.iter_mut() {
            let (t, e) = (top.max(band.y0), bottom.min(band.y1));
            if t >= e {
                continue;
            }
            // Upper rows: the short edge runs from v0; lower rows from v1.
            let split = b.y.clamp(t, e);
            let long = |y: i32| x_fp(a.x) + self.steps[0] * (y - a.y) as i64;
            let edges = |long: i64, short: i64, short_step: i64| match self.long_left {
                true => Edges {
                    left: long,
                    right: short,
                    left_step: self.steps[0],
                    right_step: short_step,
                },
                false => Edges {
                    left: short,
                    right: long,
                    left_step: short_step,
                    right_step: self.steps[0],
                },
            };
            for (rows, edges) in [
                (
                    t..split,
                    edges(
                        long(t),
                        x_fp(a.x) + self.steps[1] * (t - a.y) as i64,
                        self.steps[1],
                    ),
                ),
                (
                    split..e,
                    edges(
                        long(split),
                        x_fp(b.x) + self.steps[2] * (split - b.y) as i64,
                        self.steps[2],
                    ),
                ),
            ] {
                if rows.is_empty() {
                    continue;
                }
                if exact {
                    let at = self.attrs_at(rows.start);
                    run.rows_exact::<K, DEPTH, GOURAUD, RAW, BLEND>(
                        k, &prim, band, rows, edges, at, smp,
                    );
                } else {
                    let at = k.attrs_mul_add(core, run.gdy, rows.start - c.y);
                    run.rows::<K, DEPTH, GOURAUD, RAW, BLEND>(k, &prim, band, rows, edges, at, smp);
                }
            }
        }
    }
}

impl Triangle {
    /// r, g, b, u, v (·2¹², +½) at column `core.x` of row `y`, from gradients `grads`.
    #[inline(always)]
    fn attrs_at_with(&self, grads: &[Grad; 5], y: i32) -> [i64; 5] {
        let c = self.core.unpack();
        let at = |v: i32, g: Grad| {
            ((v as i64) << FRAC) + (1 << (FRAC - 1)) + g.dy as i64 * (y - c.y) as i64
        };
        let [gr, gg, gb, gu, gv] = *grads;
        [
            at(c.r, gr),
            at(c.g, gg),
            at(c.b, gb),
            at(c.u, gu),
            at(c.v, gv),
        ]
    }

    /// [`Triangle::attrs_at_with`] the set-up gradients.
    #[inline(always)]
    fn attrs_at(&self, y: i32) -> [i64; 5] {
        self.attrs_at_with(&self.grads, y)
    }
}

impl Triangle {
    /// What the row loop gives pixel (x, y): its colour, texture coordinates and dither
    /// offset, or `None` when the triangle does not cover it (outside its rows, its span on
    /// row `y`, or the drawing area). Computed directly from the set-up, as the row loop's
    /// additions give the same integers.
    pub fn sample(&self, x: i32, y: i32) -> Option<super::Interp> {
        let (l, r) = self.span_at(y)?;
        if x < l || x >= r {
            return None;
        }
        // All five gradients: set-up skips those drawing does not read.
        let v = self.v.map(|p| p.unpack());
        Some(self.interp_at(&gradients(&v, area2(&v)), x, y))
    }

    /// The columns `[left, right)` the triangle draws on row `y`, clipped to the drawing area;
    /// `None` outside its rows.
    fn span_at(&self, y: i32) -> Option<(i32, i32)> {
        let (top, bottom) = self.rows();
        if y < top || y >= bottom {
            return None;
        }
        let [a, b, _] = self.v.map(|p| p.unpack());
        let long = x_fp(a.x) + self.steps[0] * (y - a.y) as i64;
        let short = if y < b.y {
            x_fp(a.x) + self.steps[1] * (y - a.y) as i64
        } else {
            x_fp(b.x) + self.steps[2] * (y - b.y) as i64
        };
        let (l, r) = ((long >> 32) as i32, (short >> 32) as i32);
        let (l, r) = if self.long_left { (l, r) } else { (r, l) };
        Some((l.max(self.clip.x0), r.min(self.clip.x1 + 1)))
    }

    /// What the row loop gives pixel (x, y) of the triangle, from all five gradients `grads`.
    fn interp_at(&self, grads: &[Grad; 5], x: i32, y: i32) -> super::Interp {
        let core = self.core.unpack();
        let col = self.attrs_at_with(grads, y);
        let at = |i: usize| col[i] + grads[i].dx as i64 * (x - core.x) as i64;
        let s = &self.shading;
        let rgb = if s.gouraud {
            [at(0), at(1), at(2)].map(|c| (c >> FRAC) as i32)
        } else {
            [core.r, core.g, core.b]
        };
        let dither = if s.dither && !s.raw {
            super::pixel::DITHER[(y & 3) as usize][(x & 3) as usize] as i32
        } else {
            0
        };
        super::Interp {
            rgb,
            uv: s
                .texture
                .map(|_| ((at(3) as u32 >> FRAC) as u8, (at(4) as u32 >> FRAC) as u8)),
            dither,
        }
    }

    /// Visits every pixel the triangle draws, in the order the hardware draws them, with what
    /// the row loop gives it. Rows run outward from the core vertex (the one attributes are
    /// evaluated from): first the part of the triangle from the core vertex's row down,
    /// top-down, then the part above it, bottom-up; each row left to right. The order only
    /// matters to a triangle that samples texels it draws itself.
    // Verified: hwtests/emulator-reference/wide (triangles sampling their own pixels: with
    // the whole triangle top-down, bottom-up, or the part above the core vertex first, 5 of 6
    // streams differ).
    pub fn scan(&self, mut f: impl FnMut(i32, i32, super::Interp)) {
        let v = self.v.map(|p| p.unpack());
        let grads = gradients(&v, area2(&v));
        let core = self.core.unpack();
        let (top, bottom) = self.rows();
        if top >= bottom {
            return;
        }
        let split = core.y.clamp(top, bottom);
        let mut row = |y: i32| {
            if let Some((l, r)) = self.span_at(y) {
                for x in l..r {
                    f(x, y, self.interp_at(&grads, x, y));
                }
            }
        };
        (split..bottom).for_each(&mut row);
        (top..split).rev().for_each(&mut row);
    }

    /// How the triangle shades its pixels.
    pub fn shading(&self) -> &Shading {
        &self.shading
    }
}

/// A part's edges on its first row (32.32), left and right, and their steps per row.
#[derive(Clone, Copy)]
struct Edges {
    left: i64,
    right: i64,
    left_step: i64,
    right_step: i64,
}

/// What a triangle's row runs share; `A` the kernel's [`Kernel::Attrs`].
struct Run<A> {
    px: PixelOut,
    /// Dither lanes by row and first column ([`DITHER_LANES`] or [`NO_DITHER_LANES`]).
    dither: &'static [[[i16; LANES]; 4]; 4],
    /// Drawing area columns `[x0, x1)`.
    clip: (i32, i32),
    /// Gradients per column and per row, in the kernel's form and as integers.
    gdx: A,
    gdy: A,
    gdx32: [i32; 5],
    gdy32: [i32; 5],
    /// The column attributes are evaluated from.
    core_x: i32,
}

impl<A: Copy> Run<A> {
    /// Draws `rows` (inside `band`) of one part from its `edges` and the attributes at column
    /// `core.x` of its first row, `col0`; every colour is in 0..=255. Edges and attributes are
    /// stepped by additions, attributes in wrapping 32-bit arithmetic: the kernels read only
    /// their low 32 bits, which those additions give exactly (as they would the 64-bit sums).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn rows<K, const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
        &self,
        k: K,
        prim: &K::Prim,
        band: &mut Band,
        rows: std::ops::Range<i32>,
        e: Edges,
        mut col0: A,
        smp: Option<&Sampler<DEPTH>>,
    ) where
        K: Kernel<Attrs = A>,
    {
        for (y, row, l, r) in row_spans(band, rows, e, self.clip) {
            if l < r {
                let at = k.attrs_mul_add(col0, self.gdx, l - self.core_x);
                let dither = &self.dither[(y & 3) as usize][(l & 3) as usize];
                let (x0, x1) = (l as usize, r as usize);
                k.span::<DEPTH, GOURAUD, RAW, BLEND>(prim, row, x0, x1, at, dither, smp);
            }
            col0 = k.attrs_add(col0, self.gdy);
        }
    }

    /// [`Run::rows`] for a gouraud triangle whose colours may leave 0..=255: the attributes in
    /// 64 bits (`col0` from [`Triangle::attrs_at`]); a span whose colours are in range goes
    /// through the kernel, the others through [`span_exact`].
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn rows_exact<K, const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
        &self,
        k: K,
        prim: &K::Prim,
        band: &mut Band,
        rows: std::ops::Range<i32>,
        e: Edges,
        mut col0: [i64; 5],
        smp: Option<&Sampler<DEPTH>>,
    ) where
        K: Kernel<Attrs = A>,
    {
        let gdx = self.gdx32.map(i64::from);
        let gdy = self.gdy32.map(i64::from);
        for (y, row, l, r) in row_spans(band, rows, e, self.clip) {
            if l < r {
                let dither = &self.dither[(y & 3) as usize][(l & 3) as usize];
                let dx = (l - self.core_x) as i64;
                let acc: [i64; 5] = std::array::from_fn(|i| col0[i] + gdx[i] * dx);
                let (x0, x1) = (l as usize, r as usize);
                // Colours only step along a row, so the ends bound them: all six in 0..=255
                // exactly when their bitwise OR is (a negative one sets the high bits).
                let n = (r - l - 1) as i64;
                let ends = (0..3).fold(0, |o, i| {
                    o | (acc[i] >> FRAC) | ((acc[i] + gdx[i] * n) >> FRAC)
                });
                if (ends as u64) <= 255 {
                    let at = k.attrs(acc.map(|a| a as i32));
                    k.span::<DEPTH, GOURAUD, RAW, BLEND>(prim, row, x0, x1, at, dither, smp);
                } else {
                    let row = &mut row[x0..x1];
                    span_exact::<DEPTH, RAW, BLEND>(row, dither, acc, gdx, smp, self.px);
                }
            }
            for (c, d) in col0.iter_mut().zip(gdy) {
                *c += d;
            }
        }
    }
}

/// Rows `rows` of `band` (inside it), each as (y, the VRAM row, its span's columns `[l, r)`
/// between the part's edges `e`, clipped to the drawing area's columns `clip`; empty when
/// `l >= r`). The edges are stepped by additions: the same integers per-row products give.
#[inline(always)]
fn row_spans<'b>(
    band: &'b mut Band,
    rows: std::ops::Range<i32>,
    e: Edges,
    clip: (i32, i32),
) -> impl Iterator<Item = (i32, &'b mut [u16; VRAM_WIDTH], i32, i32)> + 'b {
    let at = |y: i32| (y - band.y0) as usize * VRAM_WIDTH;
    let mem = &mut band.rows[at(rows.start)..at(rows.end)];
    let (mut left, mut right) = (e.left, e.right);
    rows.zip(mem.chunks_exact_mut(VRAM_WIDTH))
        .map(move |(y, row)| {
            let row: &mut [u16; VRAM_WIDTH] = row.try_into().expect("a VRAM row");
            let l = ((left >> 32) as i32).max(clip.0);
            let r = ((right >> 32) as i32).min(clip.1);
            left += e.left_step;
            right += e.right_step;
            (y, row, l, r)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_step_rounds_away_from_zero() {
        assert_eq!(x_step(1, 3), ((1i64 << 32) + 2) / 3);
        assert_eq!(x_step(-1, 3), -(((1i64 << 32) + 2) / 3));
        assert_eq!(x_step(0, 5), 0);
        assert_eq!(x_step(4, 2), 2i64 << 32);
    }

    /// Set-up orders vertices exactly as a stable sort by y does (equal y keep command order,
    /// which decides the long edge and the core vertex).
    #[test]
    fn vertex_order_is_a_stable_sort_by_y() {
        let shading = Shading {
            gouraud: true,
            texture: None,
            raw: false,
            dither: false,
            mode: PixelMode {
                blend: None,
                set_mask: 0,
                check_mask: false,
            },
        };
        let clip = Clip {
            x0: 0,
            y0: 0,
            x1: 1023,
            y1: 511,
        };
        for ys in 0..27 {
            let y = [ys % 3, ys / 3 % 3, ys / 9].map(|k: i32| k * 10);
            for xs in [[0, 30, 60], [60, 0, 30], [30, 60, 0]] {
                let v: [Vtx; 3] = std::array::from_fn(|i| Vtx {
                    x: xs[i],
                    y: y[i],
                    r: i as i32,
                    ..Default::default()
                });
                let Some(t) = TriangleCmd::new(v, clip, shading) else {
                    continue;
                };
                let mut want = v;
                want.sort_by_key(|p| p.y);
                assert_eq!(t.setup().v.map(|p| p.unpack()), want, "y {y:?} x {xs:?}");
            }
        }
    }

    /// The 32-bit gradients equal the 64-bit quotients on random triangles the hardware draws,
    /// many at the extremes (1023 columns, 511 rows, attributes 0 and 255).
    #[test]
    fn gradients_in_32_bits_equal_64_bit_ones() {
        let mut r = crate::rng::XorShift::new(0x6ead_1e27);
        let mut checked = 0;
        while checked < 20_000 {
            let mut coord = |span: u32, extreme: bool| match extreme {
                true => [0, span as i32][r.below(2) as usize],
                false => r.below(span + 1) as i32,
            };
            let extreme = checked % 2 == 0;
            let v: [Vtx; 3] = std::array::from_fn(|_| Vtx {
                x: coord(1023, extreme) - 512,
                y: coord(511, extreme) - 256,
                r: coord(255, extreme),
                g: coord(255, extreme),
                b: coord(255, extreme),
                u: coord(255, extreme),
                v: coord(255, extreme),
            });
            let area = area2(&v);
            if area == 0 {
                continue;
            }
            let wide = |a: fn(&Vtx) -> i32| {
                let [a0, a1, a2] = v.map(|p| a(&p) as i64);
                let [x0, x1, x2] = v.map(|p| p.x as i64);
                let [y0, y1, y2] = v.map(|p| p.y as i64);
                let nx = (a1 - a0) * (y2 - y0) - (a2 - a0) * (y1 - y0);
                let ny = (x1 - x0) * (a2 - a0) - (x2 - x0) * (a1 - a0);
                ((nx << FRAC) / area as i64, (ny << FRAC) / area as i64)
            };
            let fields: [fn(&Vtx) -> i32; 5] = [|p| p.r, |p| p.g, |p| p.b, |p| p.u, |p| p.v];
            for (g, a) in gradients(&v, area).iter().zip(fields) {
                assert_eq!((g.dx as i64, g.dy as i64), wide(a), "{v:?}");
            }
            checked += 1;
        }
    }

    #[test]
    fn integer_edge_is_left_inclusive() {
        assert_eq!(x_fp(3) >> 32, 3);
        assert_eq!((x_fp(3) + (1i64 << 31)) >> 32, 4);
    }
}
