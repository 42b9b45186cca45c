//! Batches of primitives drawn over horizontal bands of VRAM in parallel.
//!
//! A batch collects primitives in command order. When it draws, queued triangles are first set
//! up in parallel (each independently). Then VRAM is cut into bands of [`BAND_ROWS`] rows, dealt
//! in turn to a few tasks per thread (band `i` to task `i mod tasks`); each task walks the batch
//! once, in command order, drawing every primitive into its own bands. Each VRAM pixel belongs
//! to one band, so it sees exactly the same sequence of writes as in a serial run.
//!
//! Design rule: a task walks the primitives once and draws each into all of its bands in one
//! call, so primitive data is read once per task while hot and the per-primitive set-up of the
//! span loops is paid once per task, not once per band. Measured (the GPU bench frame, 2
//! threads): replaying the batch band by band took about twice the CPU time of a serial run for
//! the same instructions, from re-reading every primitive per band. Textures are read from a snapshot of VRAM taken before the batch draws anything;
//! the GPU ends a batch (see `Gpu::texture`) before a primitive whose texture page or CLUT
//! overlaps what the batch has drawn, so the snapshot always equals live VRAM where it is
//! sampled. Transfers (fill, copies) also end the batch.

use super::span::Simd;
use super::texture::ClutTable;
use super::{Band, Prim, TexSource};
use crate::{VramImage, VRAM_WIDTH};
use rayon::prelude::*;

/// Rows per band.
pub const BAND_ROWS: usize = 16;
/// Tile size of the drawn-area map: 64 columns × 32 rows.
const TILE_W: usize = 64;
const TILE_H: usize = 32;
/// Primitives per batch before it is drawn anyway (bounds memory on endless streams).
pub const MAX_BATCH: usize = 8192;
/// Queued triangles per parallel set-up task.
const SETUP_CHUNK: usize = 64;
/// Drawing tasks per pool thread: more than one, so a thread that falls behind (a busy core)
/// leaves tasks for the others to take.
const TASKS_PER_THREAD: usize = 2;
/// Bands in VRAM.
const BANDS: usize = 512 / BAND_ROWS;

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

/// Primitives waiting to be drawn, the CLUTs they sample and the VRAM tiles they may draw.
#[derive(Default, Debug)]
pub struct Batch {
    /// Primitives in command order.
    prims: Vec<Prim>,
    /// Rows `[top, bottom)` of each primitive, so bands skip the ones they miss in one pass
    /// over a flat array.
    rows: Vec<(i32, i32)>,
    /// CLUTs as the CLUT cache delivered them, indexed by `Texture::clut`.
    cluts: Vec<ClutTable>,
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

    /// Adds a CLUT for the batch's primitives to sample; returns its index.
    pub fn add_clut(&mut self, clut: &ClutTable) -> u32 {
        self.cluts.push(*clut);
        (self.cluts.len() - 1) as u32
    }

    /// Adds a primitive and records the tiles it may draw.
    pub fn push(&mut self, p: Prim) {
        let (t, b) = p.rows();
        let (l, r) = p.cols();
        if t < b && l < r {
            let (t, b) = (t.max(0) as usize, (b.min(512) as usize).max(1));
            let (l, r) = (l.max(0) as usize, (r.min(1024) as usize).max(1));
            let mut cols = 0u16;
            for tx in l / TILE_W..=(r - 1) / TILE_W {
                cols |= 1 << tx.min(15);
            }
            for ty in t / TILE_H..=(b - 1) / TILE_H {
                self.dirty[ty.min(15)] |= cols;
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

    /// Draws every primitive into `vram` (spans through kernel `simd`), then empties the batch.
    pub fn run(&mut self, vram: &mut [u16], tex: &VramImage, exec: Exec, simd: Simd) {
        if self.prims.is_empty() {
            return;
        }
        let setup = |prims: &mut [Prim]| {
            if prims.len() <= SETUP_CHUNK {
                prims.iter_mut().for_each(Prim::setup);
            } else {
                prims
                    .par_chunks_mut(SETUP_CHUNK)
                    .for_each(|c| c.iter_mut().for_each(Prim::setup));
            }
        };
        let (prims, prim_rows) = (&mut self.prims, &self.rows);
        let src = TexSource {
            vram: tex,
            cluts: &self.cluts,
        };
        let parallel = |vram: &mut [u16], prims: &mut [Prim]| {
            setup(prims);
            let prims = &*prims;
            let tasks = (rayon::current_num_threads() * TASKS_PER_THREAD).clamp(1, BANDS);
            let mut groups: Vec<Vec<Band>> = (0..tasks).map(|_| Vec::new()).collect();
            for (i, rows) in vram.chunks_mut(BAND_ROWS * VRAM_WIDTH).enumerate() {
                let y0 = (i * BAND_ROWS) as i32;
                groups[i % tasks].push(Band {
                    y1: y0 + (rows.len() / VRAM_WIDTH) as i32,
                    rows,
                    y0,
                });
            }
            groups.par_iter_mut().enumerate().for_each(|(k, bands)| {
                for (p, &(t, b)) in prims.iter().zip(prim_rows) {
                    if owns_rows(k, tasks, t, b) {
                        p.draw(bands, src, simd);
                    }
                }
            });
        };
        match exec {
            Exec::Pool(pool) => pool.install(|| parallel(vram, prims)),
            Exec::Global => parallel(vram, prims),
            Exec::Serial => {
                prims.iter_mut().for_each(Prim::setup);
                let band = &mut [Band {
                    rows: vram,
                    y0: 0,
                    y1: 512,
                }];
                for p in prims.iter() {
                    p.draw(band, src, simd);
                }
            }
        }
        self.prims.clear();
        self.rows.clear();
        self.cluts.clear();
        self.dirty = [0; 16];
    }
}

/// Whether task `k` of `tasks` owns a band among rows `[t, b)` (band `i` belongs to task
/// `i mod tasks`).
fn owns_rows(k: usize, tasks: usize, t: i32, b: i32) -> bool {
    if t >= b {
        return false;
    }
    let (first, last) = (
        t.max(0) as usize / BAND_ROWS,
        (b - 1).max(0) as usize / BAND_ROWS,
    );
    last - first + 1 >= tasks || (first..=last).any(|i| i % tasks == k)
}
