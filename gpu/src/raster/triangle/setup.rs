//! Triangle set-up: culling, the vertices in order of y, the attribute gradients, the edge
//! steps and the core vertex attributes are evaluated from.

use super::{x_step, Shading, Triangle, Vtx};
use crate::raster::span::FRAC;
use crate::raster::texture::ClutRef;
use crate::raster::Clip;

/// One attribute's gradient: value·2¹² per column and per row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Grad {
    pub(super) dx: i32,
    pub(super) dy: i32,
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
pub(super) fn gradients(v: &[Vtx; 3], area: i32) -> [Grad; 5] {
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
pub(super) struct PackedVtx {
    x: i16,
    pub(super) y: i16,
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

    pub(super) fn unpack(&self) -> Vtx {
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
pub(super) fn area2(v: &[Vtx; 3]) -> i32 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::pixel::PixelMode;
    use crate::raster::Clip;

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
            let mut coord = |span: u32, extreme: bool| {
                if extreme {
                    [0, span as i32][r.below(2) as usize]
                } else {
                    r.below(span + 1) as i32
                }
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
}
