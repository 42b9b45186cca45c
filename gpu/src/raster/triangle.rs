//! Triangles: the hardware's edge walker and attribute gradients.
//!
//! Edges are walked in signed 32.32 fixed point from the top vertex of each edge; an edge's
//! start is biased by (1 − 2⁻²¹) so that a span covers the integer columns `x` with
//! `left ≤ x < right` (left/top edges in, right/bottom edges out), and the per-row step is the
//! exact quotient rounded away from zero. Colour and texture coordinates use gradients with 12
//! fraction bits, truncated toward zero, evaluated from a core vertex with a +½ bias.
// Verified: hwtests phases 1, 3, 6 (edges), 7, 17–22 (attributes).

use super::pixel::{
    blend_selector, modulate, modulate_table, put_const, rgb_to_555, PixelMode, BLEND_ADD,
    BLEND_ADD_QUARTER, BLEND_AVERAGE, BLEND_NONE, BLEND_SUBTRACT, DITHER,
};
use super::texture::{Sampler, Texture};
use super::{Band, Clip};
use crate::gp0::fields::TextureDepth;
use crate::VramImage;

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
#[derive(Clone, Debug)]
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

/// Fraction bits of attribute gradients.
const FRAC: u32 = 12;

/// One attribute's gradient: value·2¹² per column and per row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Grad {
    dx: i64,
    dy: i64,
}

/// A set-up triangle.
#[derive(Clone, Debug)]
pub struct Triangle {
    v: [Vtx; 3],
    clip: Clip,
    shading: Shading,
    /// Gradients of r, g, b, u, v.
    grads: [Grad; 5],
    /// Per-row X steps of the edges v0→v2, v0→v1, v1→v2 (32.32).
    steps: [i64; 3],
    /// The long edge v0→v2 is the left one.
    long_left: bool,
    /// The vertex attributes are evaluated from.
    core: Vtx,
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
    /// Sets up a triangle, or `None` when the hardware draws nothing (degenerate or oversize:
    /// width ≥ 1024 or height ≥ 512).
    // Verified: hwtests phase 14 (oversize culling).
    pub fn new(mut v: [Vtx; 3], clip: Clip, shading: Shading) -> Option<Self> {
        let (minx, maxx) = (v.iter().map(|p| p.x).min()?, v.iter().map(|p| p.x).max()?);
        let (miny, maxy) = (v.iter().map(|p| p.y).min()?, v.iter().map(|p| p.y).max()?);
        if maxx - minx >= 1024 || maxy - miny >= 512 {
            return None;
        }
        v.sort_by_key(|p| p.y);
        let area = (v[1].x - v[0].x) as i64 * (v[2].y - v[0].y) as i64
            - (v[2].x - v[0].x) as i64 * (v[1].y - v[0].y) as i64;
        if area == 0 {
            return None;
        }
        let grad = |a: fn(&Vtx) -> i32| -> Grad {
            let (a0, a1, a2) = (a(&v[0]) as i64, a(&v[1]) as i64, a(&v[2]) as i64);
            let (x0, x1, x2) = (v[0].x as i64, v[1].x as i64, v[2].x as i64);
            let (y0, y1, y2) = (v[0].y as i64, v[1].y as i64, v[2].y as i64);
            let nx = (a1 - a0) * (y2 - y0) - (a2 - a0) * (y1 - y0);
            let ny = (x1 - x0) * (a2 - a0) - (x2 - x0) * (a1 - a0);
            Grad {
                dx: (nx << FRAC) / area,
                dy: (ny << FRAC) / area,
            }
        };
        let grads = [
            grad(|p| p.r),
            grad(|p| p.g),
            grad(|p| p.b),
            grad(|p| p.u),
            grad(|p| p.v),
        ];
        let steps = [
            x_step(v[2].x - v[0].x, v[2].y - v[0].y),
            x_step(v[1].x - v[0].x, v[1].y - v[0].y),
            x_step(v[2].x - v[1].x, v[2].y - v[1].y),
        ];
        let mut t = Triangle {
            v,
            clip,
            shading,
            grads,
            steps,
            // The mid vertex right of the long edge makes the long edge the left one.
            long_left: area > 0,
            core: v[0],
        };
        t.core = t.find_core();
        Some(t)
    }

    /// Rows drawn, `[top, bottom)`, clipped to the drawing area.
    pub fn rows(&self) -> (i32, i32) {
        (
            self.v[0].y.max(self.clip.y0),
            self.v[2].y.min(self.clip.y1 + 1),
        )
    }

    /// Columns possibly drawn, `[left, right)`, clipped to the drawing area.
    pub fn cols(&self) -> (i32, i32) {
        let minx = self.v.iter().map(|p| p.x).min().unwrap_or(0);
        let maxx = self.v.iter().map(|p| p.x).max().unwrap_or(0);
        (minx.max(self.clip.x0), (maxx + 1).min(self.clip.x1 + 1))
    }

    /// The texture, if any.
    pub fn texture(&self) -> Option<&Texture> {
        self.shading.texture.as_ref()
    }

    /// The vertex attributes are evaluated from: the leftmost one (the topmost of equals).
    // Verified: gpu-images/triangle (top, right, bottom or middle vertex each miss by 1 LSB).
    fn find_core(&self) -> Vtx {
        let mut core = self.v[0];
        for p in &self.v[1..] {
            if p.x < core.x {
                core = *p;
            }
        }
        core
    }

    /// Draws the rows of the triangle inside `band`, through a loop specialised for its
    /// shading, texture depth and blend mode (chosen once per primitive).
    pub fn draw(&self, band: &mut Band, tex: &VramImage) {
        match blend_selector(self.shading.mode.blend) {
            BLEND_NONE => self.draw_blend::<BLEND_NONE>(band, tex),
            BLEND_AVERAGE => self.draw_blend::<BLEND_AVERAGE>(band, tex),
            BLEND_ADD => self.draw_blend::<BLEND_ADD>(band, tex),
            BLEND_SUBTRACT => self.draw_blend::<BLEND_SUBTRACT>(band, tex),
            _ => self.draw_blend::<BLEND_ADD_QUARTER>(band, tex),
        }
    }

    fn draw_blend<const BLEND: u8>(&self, band: &mut Band, tex: &VramImage) {
        use TextureDepth::*;
        let s = &self.shading;
        let Some(t) = &s.texture else {
            return match s.gouraud {
                false => self.draw_impl::<0, false, false, BLEND>(band, None),
                true => self.draw_impl::<0, true, false, BLEND>(band, None),
            };
        };
        // A raw texture ignores the vertex colours (and so gouraud and dither).
        match (t.depth, s.raw, s.gouraud) {
            (Clut4, true, _) => self.draw_impl::<4, false, true, BLEND>(band, Some(t.sampler(tex))),
            (Clut4, false, false) => {
                self.draw_impl::<4, false, false, BLEND>(band, Some(t.sampler(tex)))
            }
            (Clut4, false, true) => {
                self.draw_impl::<4, true, false, BLEND>(band, Some(t.sampler(tex)))
            }
            (Clut8, true, _) => self.draw_impl::<8, false, true, BLEND>(band, Some(t.sampler(tex))),
            (Clut8, false, false) => {
                self.draw_impl::<8, false, false, BLEND>(band, Some(t.sampler(tex)))
            }
            (Clut8, false, true) => {
                self.draw_impl::<8, true, false, BLEND>(band, Some(t.sampler(tex)))
            }
            (Direct15, true, _) => {
                self.draw_impl::<15, false, true, BLEND>(band, Some(t.sampler(tex)))
            }
            (Direct15, false, false) => {
                self.draw_impl::<15, false, false, BLEND>(band, Some(t.sampler(tex)))
            }
            (Direct15, false, true) => {
                self.draw_impl::<15, true, false, BLEND>(band, Some(t.sampler(tex)))
            }
        }
    }

    /// The row loop: `DEPTH` 0 (untextured), 4, 8 or 15; `RAW` unmodulated texels; `BLEND` a
    /// `BLEND_*` selector. `sampler` is `Some` exactly when `DEPTH` is not 0. Edges and the
    /// attributes at each span start are stepped by additions from the first row drawn (the
    /// same integers the per-row products give).
    fn draw_impl<const DEPTH: u8, const GOURAUD: bool, const RAW: bool, const BLEND: u8>(
        &self,
        band: &mut Band,
        sampler: Option<Sampler<DEPTH>>,
    ) {
        let (top, bottom) = self.rows();
        let (top, bottom) = (top.max(band.y0), bottom.min(band.y1));
        if top >= bottom {
            return;
        }
        let s = &self.shading;
        let px = PixelOut {
            check: if s.mode.check_mask { 0x8000 } else { 0 },
            set: s.mode.set_mask,
        };
        let core = self.core;
        let [a, b, _] = self.v;
        let [gr, gg, gb, gu, gv] = self.grads;
        let flat = [core.r, core.g, core.b];
        let flat_fast = flat.iter().all(|c| (0..=255).contains(c));
        // Edge x (32.32) on row `top`: the long edge, and the short edge (upper or lower part).
        let mut long = x_fp(a.x) + self.steps[0] * (top - a.y) as i64;
        let mut short = if top < b.y {
            x_fp(a.x) + self.steps[1] * (top - a.y) as i64
        } else {
            x_fp(b.x) + self.steps[2] * (top - b.y) as i64
        };
        // Attributes (·2¹², +½) at column core.x of row `top`.
        let base = |v: i32, g: Grad| {
            ((v as i64) << FRAC) + (1 << (FRAC - 1)) + g.dy * (top - core.y) as i64
        };
        let mut col0 = [
            base(core.r, gr),
            base(core.g, gg),
            base(core.b, gb),
            base(core.u, gu),
            base(core.v, gv),
        ];
        let gdx = [gr.dx, gg.dx, gb.dx, gu.dx, gv.dx];
        let gdy = [gr.dy, gg.dy, gb.dy, gu.dy, gv.dy];
        for y in top..bottom {
            if y == b.y {
                short = x_fp(b.x);
            }
            let (l, r) = ((long >> 32) as i32, (short >> 32) as i32);
            let (l, r) = if self.long_left { (l, r) } else { (r, l) };
            let (l, r) = (l.max(self.clip.x0), r.min(self.clip.x1 + 1));
            if l < r {
                // Dither offsets + 4, as `modulate_d4` takes them.
                let dither = if s.dither && !RAW {
                    DITHER[(y & 3) as usize].map(|d| i32::from(d) + 4)
                } else {
                    [4; 4]
                };
                let dx = (l - core.x) as i64;
                let acc: [i64; 5] = std::array::from_fn(|i| col0[i] + gdx[i] * dx);
                // Colours only step along a row, so the ends bound them.
                let fast = if GOURAUD && !RAW {
                    // All six in 0..=255 exactly when their bitwise OR is (a negative one sets
                    // the high bits).
                    let n = (r - l - 1) as i64;
                    let ends = (0..3).fold(0, |o, i| {
                        o | (acc[i] >> FRAC) | ((acc[i] + gdx[i] * n) >> FRAC)
                    });
                    (ends as u64) <= 255
                } else {
                    flat_fast
                };
                let row = &mut band.row(y)[l as usize..r as usize];
                let span = Span {
                    x0: l as usize,
                    dither,
                    acc,
                    gdx,
                    flat,
                };
                let smp = sampler.as_ref();
                if fast {
                    span.draw::<DEPTH, GOURAUD, RAW, BLEND, true>(row, smp, px);
                } else {
                    span.draw::<DEPTH, GOURAUD, RAW, BLEND, false>(row, smp, px);
                }
            }
            long += self.steps[0];
            short += if y < b.y {
                self.steps[1]
            } else {
                self.steps[2]
            };
            for (c, d) in col0.iter_mut().zip(gdy) {
                *c += d;
            }
        }
    }
}

/// How a primitive writes pixels: `check` 0x8000 when GP0(E6h) bit 1 is set, `set` the
/// forced bit 15.
#[derive(Clone, Copy)]
struct PixelOut {
    check: u16,
    set: u16,
}

/// One span's starting state.
struct Span {
    /// First column.
    x0: usize,
    /// Dither offsets + 4 of the row, by `x & 3`.
    dither: [i32; 4],
    /// r, g, b, u, v (·2¹²) at `x0`.
    acc: [i64; 5],
    /// Their per-column steps.
    gdx: [i64; 5],
    /// Flat colour.
    flat: [i32; 3],
}

impl Span {
    /// Draws the span into `row` (exactly its pixels). `FAST`: every colour of the span is in
    /// 0..=255, so modulation takes the table path with no per-pixel range check.
    #[inline(always)]
    fn draw<
        const DEPTH: u8,
        const GOURAUD: bool,
        const RAW: bool,
        const BLEND: u8,
        const FAST: bool,
    >(
        self,
        row: &mut [u16],
        sampler: Option<&Sampler<DEPTH>>,
        px: PixelOut,
    ) {
        let Span {
            x0,
            dither,
            acc: [mut ar, mut ag, mut ab, au, av],
            gdx: [gr, gg, gb, gu, gv],
            flat: [fr, fg, fb],
        } = self;
        // On a FAST span every colour ·2¹² lies in 0..256·2¹², so 32-bit wrapping steppers give
        // the same integers as 64-bit ones; U and V only use bits 12–19 of theirs (the `as u8`),
        // which wrapping 32-bit additions keep exact on every span.
        let (mut r32, mut g32, mut b32) = (ar as i32, ag as i32, ab as i32);
        let (dr32, dg32, db32) = (gr as i32, gg as i32, gb as i32);
        let (mut u32_, mut v32) = (au as u32, av as u32);
        let (du32, dv32) = (gu as u32, gv as u32);
        for (x, dst) in (x0..).zip(row.iter_mut()) {
            let d4 = dither[x & 3];
            let (cr, cg, cb) = if GOURAUD && FAST {
                let c = (r32 >> FRAC, g32 >> FRAC, b32 >> FRAC);
                r32 = r32.wrapping_add(dr32);
                g32 = g32.wrapping_add(dg32);
                b32 = b32.wrapping_add(db32);
                c
            } else if GOURAUD {
                let c = (
                    (ar >> FRAC) as i32,
                    (ag >> FRAC) as i32,
                    (ab >> FRAC) as i32,
                );
                ar += gr;
                ag += gg;
                ab += gb;
                c
            } else {
                (fr, fg, fb)
            };
            match sampler {
                Some(smp) if DEPTH != 0 => {
                    let texel = smp.texel((u32_ >> FRAC) as u8, (v32 >> FRAC) as u8);
                    u32_ = u32_.wrapping_add(du32);
                    v32 = v32.wrapping_add(dv32);
                    if texel != 0 {
                        let c = if RAW {
                            texel
                        } else if FAST {
                            modulate_table(texel, cr, cg, cb, d4)
                        } else {
                            modulate(texel, cr, cg, cb, d4 - 4)
                        };
                        put_const::<BLEND>(dst, c, texel & 0x8000 != 0, px.check, px.set);
                    }
                }
                _ => {
                    put_const::<BLEND>(dst, rgb_to_555(cr, cg, cb, d4 - 4), true, px.check, px.set)
                }
            }
        }
    }
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

    #[test]
    fn integer_edge_is_left_inclusive() {
        assert_eq!(x_fp(3) >> 32, 3);
        assert_eq!((x_fp(3) + (1i64 << 31)) >> 32, 4);
    }
}
