//! Lines: walked left to right, a DDA stepping the major axis one pixel per step with the minor
//! axis in 32.32 fixed point, both end points drawn; colours step the same way with 12 fraction
//! bits.
// Verified: hwtests phases 2 and 10, gpu-images/lines.

use super::pixel::{rgb_to_555, PixelMode, DITHER};
use super::triangle::x_step;
use super::triangle::Vtx;
use super::{Band, Clip};

/// A set-up line segment.
#[derive(Clone, Debug)]
pub struct Line {
    a: Vtx,
    b: Vtx,
    steps: i32,
    dx: i64,
    dy: i64,
    dc: [i64; 3],
    gouraud: bool,
    dither: bool,
    clip: Clip,
    mode: PixelMode,
}

/// Colour step with 12 fraction bits, truncated toward zero (so exact halves round down).
// Verified: gpu-images/lines (gouraud midpoints).
fn colour_step(d: i32, k: i32) -> i64 {
    if k == 0 {
        0
    } else {
        ((d as i64) << 12) / k as i64
    }
}

impl Line {
    /// Sets up a segment from `a` to `b`, or `None` when it is culled (|dx| ≥ 1024 or
    /// |dy| ≥ 512).
    pub fn new(
        a: Vtx,
        b: Vtx,
        gouraud: bool,
        dither: bool,
        clip: Clip,
        mode: PixelMode,
    ) -> Option<Self> {
        // The hardware walks every line left to right.
        let (a, b) = if a.x > b.x { (b, a) } else { (a, b) };
        let (ddx, ddy) = (b.x - a.x, b.y - a.y);
        if ddx.abs() >= 1024 || ddy.abs() >= 512 {
            return None;
        }
        let k = ddx.abs().max(ddy.abs());
        Some(Line {
            a,
            b,
            steps: k,
            dx: x_step(ddx, k),
            dy: x_step(ddy, k),
            dc: [
                colour_step(b.r - a.r, k),
                colour_step(b.g - a.g, k),
                colour_step(b.b - a.b, k),
            ],
            gouraud,
            dither,
            clip,
            mode,
        })
    }

    /// Rows drawn, `[top, bottom)`.
    pub fn rows(&self) -> (i32, i32) {
        (
            self.a.y.min(self.b.y).max(self.clip.y0),
            (self.a.y.max(self.b.y) + 1).min(self.clip.y1 + 1),
        )
    }

    /// Columns drawn, `[left, right)`.
    pub fn cols(&self) -> (i32, i32) {
        (
            self.a.x.min(self.b.x).max(self.clip.x0),
            (self.a.x.max(self.b.x) + 1).min(self.clip.x1 + 1),
        )
    }

    /// Draws the pixels of the segment inside `bands`.
    pub fn draw(&self, bands: &mut [Band]) {
        for band in bands.iter_mut() {
            self.draw_band(band);
        }
    }

    fn draw_band(&self, band: &mut Band) {
        let (top, bottom) = self.rows();
        let (top, bottom) = (top.max(band.y0), bottom.min(band.y1));
        if top >= bottom {
            return;
        }
        // Minor-axis bias: Y starts at +½, X just below +½ (ties round up in Y, down in X).
        let mut x = ((self.a.x as i64) << 32) + (1i64 << 31) - 1024;
        let mut y = ((self.a.y as i64) << 32) + (1i64 << 31);
        let c0 = |c: i32| ((c as i64) << 12) + (1 << 11);
        let mut c = [c0(self.a.r), c0(self.a.g), c0(self.a.b)];
        let semi = self.mode.blend.is_some();
        for _ in 0..=self.steps {
            let (px, py) = ((x >> 32) as i32, (y >> 32) as i32);
            if py >= top && py < bottom && px >= self.clip.x0 && px <= self.clip.x1 {
                let d = if self.dither {
                    DITHER[(py & 3) as usize][(px & 3) as usize] as i32
                } else {
                    0
                };
                let col = if self.gouraud {
                    rgb_to_555(
                        (c[0] >> 12) as i32,
                        (c[1] >> 12) as i32,
                        (c[2] >> 12) as i32,
                        d,
                    )
                } else {
                    rgb_to_555(self.a.r, self.a.g, self.a.b, d)
                };
                self.mode.put(band.at(px, py), col, semi);
            }
            x += self.dx;
            y += self.dy;
            for (ck, dk) in c.iter_mut().zip(&self.dc) {
                *ck += dk;
            }
        }
    }
}
