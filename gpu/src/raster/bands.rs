//! Batches of primitives drawn over horizontal bands of VRAM in parallel.
//!
//! A batch collects primitives in command order. Every band of [`BAND_ROWS`] rows replays the
//! whole batch clipped to its rows, so each VRAM pixel sees exactly the same sequence of writes
//! as in a serial run. Textures are read from a snapshot of VRAM taken before the batch draws
//! anything; the GPU ends a batch (see `Gpu::push_textured`) before a primitive whose texture
//! page or CLUT overlaps what the batch has drawn, so the snapshot always equals live VRAM
//! where it is sampled. Transfers (fill, copies) also end the batch.

use super::{Band, Prim};
use crate::{VramImage, VRAM_WIDTH};
use rayon::prelude::*;

/// Rows per band.
pub const BAND_ROWS: usize = 16;
/// Tile size of the drawn-area map: 64 columns × 32 rows.
const TILE_W: usize = 64;
const TILE_H: usize = 32;
/// Primitives per batch before it is drawn anyway (bounds memory on endless streams).
pub const MAX_BATCH: usize = 8192;

/// Where a batch is drawn.
#[derive(Clone, Copy, Debug)]
pub enum Exec<'a> {
    /// One pass over all rows on the calling thread.
    Serial,
    /// Bands on rayon's global pool (all cores).
    Global,
    /// Bands on a dedicated pool.
    Pool(&'a rayon::ThreadPool),
}

/// Primitives waiting to be drawn and the VRAM tiles they may draw.
#[derive(Default, Debug)]
pub struct Batch {
    /// Primitives in command order.
    prims: Vec<Prim>,
    /// Rows `[top, bottom)` of each primitive, so bands skip the ones they miss in one pass
    /// over a flat array.
    rows: Vec<(i32, i32)>,
    /// Bit `tx` of `dirty[ty]`: tile (tx, ty) may have been drawn by the batch.
    dirty: [u16; 16],
}

impl Batch {
    /// Number of primitives waiting.
    pub fn len(&self) -> usize {
        self.prims.len()
    }

    /// No primitive is waiting.
    pub fn is_empty(&self) -> bool {
        self.prims.is_empty()
    }

    /// Adds a primitive and records the tiles it may draw.
    pub fn push(&mut self, p: Prim) {
        let (t, b) = p.rows();
        let (l, r) = p.cols();
        if t < b && l < r {
            let (t, b) = (t.max(0) as usize, (b.min(512) as usize).max(1));
            let (l, r) = (l.max(0) as usize, (r.min(1024) as usize).max(1));
            for ty in t / TILE_H..=(b - 1) / TILE_H {
                for tx in l / TILE_W..=(r - 1) / TILE_W {
                    self.dirty[ty.min(15)] |= 1 << tx.min(15);
                }
            }
        }
        self.rows.push((t, b));
        self.prims.push(p);
    }

    /// Whether the batch may have drawn inside the VRAM rectangle `x, y, w, h` (wrapping at the
    /// VRAM edges).
    pub fn touches(&self, x: usize, y: usize, w: usize, h: usize) -> bool {
        if self.prims.is_empty() || w == 0 || h == 0 {
            return false;
        }
        let cols = w.min(1024);
        let rows = h.min(512);
        let mut mask = 0u16;
        let mut cx = x & !(TILE_W - 1);
        while cx < x + cols {
            mask |= 1 << ((cx & 1023) / TILE_W);
            cx += TILE_W;
        }
        let mut cy = y & !(TILE_H - 1);
        while cy < y + rows {
            if self.dirty[(cy & 511) / TILE_H] & mask != 0 {
                return true;
            }
            cy += TILE_H;
        }
        false
    }

    /// Draws every primitive into `vram`, then empties the batch.
    pub fn run(&mut self, vram: &mut [u16], tex: &VramImage, exec: Exec) {
        if self.prims.is_empty() {
            return;
        }
        let (prims, prim_rows) = (&self.prims, &self.rows);
        let draw_band = |(i, rows): (usize, &mut [u16])| {
            let y0 = (i * BAND_ROWS) as i32;
            let mut band = Band {
                y1: y0 + (rows.len() / VRAM_WIDTH) as i32,
                rows,
                y0,
            };
            for (p, &(t, b)) in prims.iter().zip(prim_rows) {
                if b > band.y0 && t < band.y1 {
                    p.draw(&mut band, tex);
                }
            }
        };
        let parallel = |vram: &mut [u16]| {
            vram.par_chunks_mut(BAND_ROWS * VRAM_WIDTH)
                .enumerate()
                .for_each(draw_band)
        };
        match exec {
            Exec::Pool(pool) => pool.install(|| parallel(vram)),
            Exec::Global => parallel(vram),
            Exec::Serial => {
                let mut band = Band {
                    rows: vram,
                    y0: 0,
                    y1: 512,
                };
                for p in prims {
                    p.draw(&mut band, tex);
                }
            }
        }
        self.prims.clear();
        self.rows.clear();
        self.dirty = [0; 16];
    }
}
