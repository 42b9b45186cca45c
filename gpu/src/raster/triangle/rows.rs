//! Drawing a set-up triangle: its rows, part by part, through the span kernels.

use super::setup::Grad;
use super::{x_fp, Triangle};
use crate::raster::pixel::PixelOut;
use crate::raster::span::{
    span_exact, Kernel, PrimSteps, Short, SpanDraw, DITHER_LANES, FRAC, LANES, NO_DITHER_LANES,
};
use crate::raster::texture::Sampler;
use crate::raster::Band;
use crate::VRAM_WIDTH;

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
            dither: if self.shading.dither && !RAW {
                &DITHER_LANES
            } else {
                &NO_DITHER_LANES
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
            let edges = |long: i64, short: i64, short_step: i64| {
                let (long, short) = ((long, self.steps[0]), (short, short_step));
                let (l, r) = if self.long_left {
                    (long, short)
                } else {
                    (short, long)
                };
                Edges {
                    left: l.0,
                    right: r.0,
                    left_step: l.1,
                    right_step: r.1,
                }
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
    pub(super) fn attrs_at_with(&self, grads: &[Grad; 5], y: i32) -> [i64; 5] {
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
        // A short span waits for the next row's: two short ones are drawn as one chunk. Rows
        // are distinct pixels and the batch samples the snapshot, so their order is free.
        let mut held: Option<Short<'_, A>> = None;
        for (y, row, l, r) in row_spans(band, rows, e, self.clip) {
            if l < r {
                let at = k.attrs_mul_add(col0, self.gdx, l - self.core_x);
                let dither = &self.dither[(y & 3) as usize][(l & 3) as usize];
                let (x0, x1) = (l as usize, r as usize);
                if Short::<A>::fits(x0, x1) {
                    let s = Short {
                        row,
                        x0,
                        x1,
                        at,
                        dither,
                    };
                    match held.take() {
                        Some(h) => k.span_pair::<DEPTH, GOURAUD, RAW, BLEND>(prim, h, s, smp),
                        None => held = Some(s),
                    }
                } else {
                    k.span::<DEPTH, GOURAUD, RAW, BLEND>(prim, row, x0, x1, at, dither, smp);
                }
            }
            col0 = k.attrs_add(col0, self.gdy);
        }
        if let Some(h) = held {
            k.span::<DEPTH, GOURAUD, RAW, BLEND>(prim, h.row, h.x0, h.x1, h.at, h.dither, smp);
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
