//! Lines: walked left to right (vertical ones top down), a DDA stepping the major axis one
//! pixel per step with the minor axis in 32.32 fixed point, both end points drawn; colours step
//! the same way with 12 fraction bits.
// Verified: hwtests phases 2 and 10, gpu-images/lines.

use super::pixel::{PixelMode, DITHER};
use super::triangle::x_step;
use super::triangle::Vtx;
use super::{shade, Band, Clip, Interp};

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
        // Every line is walked left to right (hwtests phase 10), a vertical one top down (the
        // emulator reference; the captures pass either way).
        let (a, b) = if (a.x, a.y) > (b.x, b.y) {
            (b, a)
        } else {
            (a, b)
        };
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
        let (top, bottom) = self.rows();
        for band in bands.iter_mut() {
            if top.max(band.y0) >= bottom.min(band.y1) {
                continue;
            }
            self.scan(|x, y, interp| {
                if y >= band.y0 && y < band.y1 {
                    let dst = band.at(x, y);
                    *dst = shade(interp, None, false, self.mode, *dst).value;
                }
            });
        }
    }

    /// Visits the pixels the segment draws (inside the drawing area), in the order it draws
    /// them, with its colour and dither offset at each.
    #[inline(always)]
    pub fn scan(&self, mut f: impl FnMut(i32, i32, Interp)) {
        let c = self.clip;
        self.walk(|x, y, rgb| {
            if (c.x0..=c.x1).contains(&x) && (c.y0..=c.y1).contains(&y) {
                let dither = self.dither_at(x, y);
                f(
                    x,
                    y,
                    Interp {
                        rgb,
                        uv: None,
                        dither,
                    },
                );
            }
        });
    }

    /// The dither offset of pixel (x, y).
    fn dither_at(&self, x: i32, y: i32) -> i32 {
        if self.dither {
            DITHER[(y & 3) as usize][(x & 3) as usize] as i32
        } else {
            0
        }
    }

    /// Visits every step of the walk in order: the pixel it lands on (before clipping) and its
    /// colour.
    #[inline(always)]
    fn walk(&self, mut f: impl FnMut(i32, i32, [i32; 3])) {
        // Minor-axis bias: X starts just below +½, so an X tie rounds down (lines run left to
        // right); Y starts at +½ stepping down and just below it stepping up, so a Y tie rounds
        // toward the end point. Sure for X (hwtests phases 2, 10, gpu-images/lines); for the
        // Y tie stepping up, the emulator reference (no capture decides it: the hardware probes
        // and images pass either way).
        let mut x = ((self.a.x as i64) << 32) + (1i64 << 31) - 1024;
        let mut y = ((self.a.y as i64) << 32) + (1i64 << 31) - if self.dy < 0 { 1024 } else { 0 };
        let c0 = |c: i32| ((c as i64) << 12) + (1 << 11);
        let mut c = [c0(self.a.r), c0(self.a.g), c0(self.a.b)];
        for _ in 0..=self.steps {
            let rgb = if self.gouraud {
                c.map(|c| (c >> 12) as i32)
            } else {
                [self.a.r, self.a.g, self.a.b]
            };
            f((x >> 32) as i32, (y >> 32) as i32, rgb);
            x += self.dx;
            y += self.dy;
            for (ck, dk) in c.iter_mut().zip(&self.dc) {
                *ck += dk;
            }
        }
    }

    /// How the segment writes its pixels.
    pub fn mode(&self) -> &PixelMode {
        &self.mode
    }
}
