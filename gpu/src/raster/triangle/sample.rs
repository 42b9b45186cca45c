//! A set-up triangle pixel by pixel: every pixel in the hardware's order, with what its row
//! loop gives it.

use super::setup::{area2, gradients, Grad};
use super::{x_fp, Triangle};
use crate::raster::pixel::DITHER;
use crate::raster::span::FRAC;
use crate::raster::Interp;

impl Triangle {
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
    fn interp_at(&self, grads: &[Grad; 5], x: i32, y: i32) -> Interp {
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
            DITHER[(y & 3) as usize][(x & 3) as usize] as i32
        } else {
            0
        };
        Interp {
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
    pub fn scan(&self, mut f: impl FnMut(i32, i32, Interp)) {
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
}
