//! Batches of primitives drawn over horizontal bands of VRAM in parallel.
//!
//! A batch collects primitives in command order. When it draws, queued triangles are first set
//! up in parallel (each independently). Then VRAM is cut into a few contiguous regions of rows
//! per thread, of about equal estimated work (pixels counted per band of [`BAND_ROWS`] rows as
//! primitives are queued), which the pool's threads take as they become free; each region walks
//! the batch in command order and draws every primitive clipped to its rows. Each VRAM pixel
//! belongs to one region, so it sees exactly the same sequence of writes as in a serial run.
//!
//! Design rule: few, contiguous, work-balanced regions. A primitive is split only where it
//! crosses a region boundary, so row runs stay long and the per-primitive set-up of the span
//! loops is paid about once; more regions than threads let a thread on a busier core take fewer.
//! Measured alternatives (the GPU bench frame, 2 threads): 32 fixed bands, each replaying the
//! whole batch, cost about twice the CPU time of a serial run for 5% more instructions;
//! interleaved bands per task did little better.
//!
//! Textures are read from a snapshot of VRAM taken before the batch draws anything; the GPU ends
//! a batch (see `Gpu::texture`) before a primitive whose texture page or CLUT overlaps what the
//! batch has drawn, so the snapshot always equals live VRAM where it is sampled. Transfers (fill,
//! copies) also end the batch.

use super::line::Line;
use super::rect::Rect;
use super::span::Simd;
use super::texture::ClutTable;
use super::triangle::{Triangle, TriangleCmd};
use super::{Band, Prim, TexSource};
use crate::{VramImage, VRAM_WIDTH};
use rayon::prelude::*;

/// Rows per band.
pub const BAND_ROWS: usize = 16;
/// Tile size of the drawn-area map: 64 columns × 32 rows (the GPU's texture snapshot uses the
/// same tiles).
pub const TILE_W: usize = 64;
/// See [`TILE_W`].
pub const TILE_H: usize = 32;
/// Primitives per batch before it is drawn anyway (bounds memory on endless streams).
pub const MAX_BATCH: usize = 8192;
/// Queued triangles per parallel set-up task.
const SETUP_CHUNK: usize = 64;
/// Regions per pool thread: more than one, so a thread that falls behind (a busy core) leaves
/// regions for the others to take.
const REGIONS_PER_THREAD: usize = 4;
/// Estimated cost of a primitive beyond its pixels (set-up of its span loops), in pixels.
const PRIM_COST: u32 = 32;
/// Estimated load (pixels plus [`PRIM_COST`] per primitive) from which a batch is drawn on
/// all cores ([`Exec::Global`]); lighter batches draw on the calling thread. Waking the
/// pool and waiting on it cost about a millisecond per call on the 2-vCPU dev VM (a 320×240
/// render frame of 2,085 polygons, load ≈ 100 k: 3.5 ms through the pool, 2.2–2.5 ms
/// without), about what two threads save on 280 k of load.
pub const PARALLEL_MIN_LOAD: u64 = 256 * 1024;
/// Bands in VRAM.
const BANDS: usize = 512 / BAND_ROWS;

/// Where a batch is drawn.
#[derive(Clone, Copy, Debug)]
pub enum Exec<'a> {
    /// One pass over all rows on the calling thread.
    Serial,
    /// Regions on rayon's global pool (all cores) for a batch of [`PARALLEL_MIN_LOAD`] or
    /// more, else as [`Exec::Serial`].
    Global,
    /// Regions on a dedicated pool, whatever the load.
    Pool(&'a rayon::ThreadPool),
}

/// Which vector of the batch holds a primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Triangle,
    Line,
    Rect,
}

/// A primitive's place in command order: where it is stored and the rows `[top, bottom)` it
/// may touch, so regions skip the ones they miss in one pass over a flat array.
#[derive(Clone, Copy, Debug)]
struct Entry {
    kind: Kind,
    index: u32,
    top: i32,
    bottom: i32,
}

/// Primitives waiting to be drawn, the CLUTs they sample and the VRAM tiles they may draw.
/// Each kind of primitive has its own vector, so queuing a triangle writes only the triangle.
#[derive(Debug)]
pub struct Batch {
    /// Primitives in command order.
    order: Vec<Entry>,
    /// Triangles as queued.
    queued: Vec<TriangleCmd>,
    /// `queued`, set up (filled when the batch draws).
    triangles: Vec<Triangle>,
    lines: Vec<Line>,
    rects: Vec<Rect>,
    /// CLUTs as the CLUT cache delivered them, indexed by `Texture::clut`.
    cluts: Vec<ClutTable>,
    /// Bit `tx` of `dirty[ty]`: tile (tx, ty) may have been drawn by the batch.
    dirty: [u16; 16],
    /// Estimated pixels drawn per band of [`BAND_ROWS`] rows.
    load: [u32; BANDS],
    /// Sum of `load`.
    total: u64,
}

impl Default for Batch {
    fn default() -> Self {
        Batch {
            order: Vec::new(),
            queued: Vec::new(),
            triangles: Vec::new(),
            lines: Vec::new(),
            rects: Vec::new(),
            cluts: Vec::new(),
            dirty: [0; 16],
            load: [0; BANDS],
            total: 0,
        }
    }
}

impl Batch {
    /// Number of primitives waiting.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// No primitive is waiting.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The batch holds enough work to be drawn on the pool ([`PARALLEL_MIN_LOAD`]).
    pub fn heavy(&self) -> bool {
        self.total >= PARALLEL_MIN_LOAD
    }

    /// Adds a CLUT for the batch's primitives to sample; returns its index.
    pub fn add_clut(&mut self, clut: &ClutTable) -> u32 {
        self.cluts.push(*clut);
        (self.cluts.len() - 1) as u32
    }

    /// Adds a primitive and records the tiles it may draw; true when that adds tiles.
    pub fn push(&mut self, p: Prim) -> bool {
        let mut new_tiles = false;
        let (t, b) = p.rows();
        let (l, r) = p.cols();
        if t < b && l < r {
            let (t, b) = (t.max(0) as usize, (b.min(512) as usize).max(1));
            let (l, r) = (l.max(0) as usize, (r.min(1024) as usize).max(1));
            let (cols, rows) = tiles(l, t, r - l, b - t);
            for ty in rows {
                let d = &mut self.dirty[ty];
                new_tiles |= *d | cols != *d;
                *d |= cols;
            }
            // Pixels per band: the bounding box (half of it for a triangle) spread over its rows.
            let w = (r - l) as u32 >> matches!(p, Prim::Triangle(_)) as u32;
            self.load[t / BAND_ROWS] += PRIM_COST;
            self.total += (PRIM_COST + (b - t) as u32 * w) as u64;
            for band in t / BAND_ROWS..=(b - 1) / BAND_ROWS {
                let (y0, y1) = (band * BAND_ROWS, (band + 1) * BAND_ROWS);
                let rows = (b.min(y1) - t.max(y0)) as u32;
                self.load[band] = self.load[band].saturating_add(rows * w);
            }
        }
        let (kind, index) = match p {
            Prim::Triangle(t) => (Kind::Triangle, push(&mut self.queued, t)),
            Prim::Line(l) => (Kind::Line, push(&mut self.lines, l)),
            Prim::Rect(r) => (Kind::Rect, push(&mut self.rects, r)),
        };
        self.order.push(Entry {
            kind,
            index,
            top: t,
            bottom: b,
        });
        new_tiles
    }

    /// The tiles the batch may draw: bit `tx` of element `ty` for tile (tx, ty) of
    /// [`TILE_W`] × [`TILE_H`].
    pub fn drawn_tiles(&self) -> [u16; 16] {
        self.dirty
    }

    /// Whether the batch may have drawn inside the VRAM rectangle `x, y, w, h` (wrapping at the
    /// VRAM edges).
    pub fn touches(&self, x: usize, y: usize, w: usize, h: usize) -> bool {
        if self.order.is_empty() {
            return false;
        }
        let (mask, mut rows) = tiles(x, y, w, h);
        rows.any(|ty| self.dirty[ty] & mask != 0)
    }

    /// The batch's primitives with `triangles` as its queued triangles set up.
    fn prims<'a>(&'a self, triangles: &'a [Triangle]) -> Prims<'a> {
        Prims {
            order: &self.order,
            triangles,
            lines: &self.lines,
            rects: &self.rects,
        }
    }

    /// Draws every primitive into `vram` (spans through kernel `simd`), then empties the batch.
    pub fn run(&mut self, vram: &mut [u16], tex: &VramImage, exec: Exec, simd: Simd) {
        if self.order.is_empty() {
            return;
        }
        // Taken out for the draw (and put back for its allocation), so `self` can lend the rest.
        let mut triangles = std::mem::take(&mut self.triangles);
        let src = TexSource {
            vram: tex,
            cluts: &self.cluts,
        };
        let parallel = |vram: &mut [u16], triangles: &mut Vec<Triangle>| {
            if self.queued.len() > SETUP_CHUNK {
                self.queued
                    .par_iter()
                    .with_min_len(SETUP_CHUNK)
                    .map(TriangleCmd::setup)
                    .collect_into_vec(triangles);
            } else {
                triangles.extend(self.queued.iter().map(TriangleCmd::setup));
            }
            let prims = self.prims(triangles);
            let count = rayon::current_num_threads() * REGIONS_PER_THREAD;
            let mut regions = regions(vram, &self.load, count);
            regions
                .par_iter_mut()
                .for_each(|band| prims.draw(std::slice::from_mut(band), src, simd));
        };
        match exec {
            Exec::Pool(pool) => pool.install(|| parallel(vram, &mut triangles)),
            Exec::Global if self.heavy() => parallel(vram, &mut triangles),
            _ => {
                triangles.extend(self.queued.iter().map(TriangleCmd::setup));
                let band = &mut [Band {
                    rows: vram,
                    y0: 0,
                    y1: 512,
                }];
                self.prims(&triangles).draw(band, src, simd);
            }
        }
        triangles.clear();
        self.triangles = triangles;
        self.order.clear();
        self.queued.clear();
        self.lines.clear();
        self.rects.clear();
        self.cluts.clear();
        self.dirty = [0; 16];
        self.load = [0; BANDS];
        self.total = 0;
    }
}

/// The tiles of the VRAM rectangle `x, y, w, h` (wrapping at the VRAM edges): a mask of tile
/// columns (bit `tx`) and the tile rows, each once.
pub fn tiles(x: usize, y: usize, w: usize, h: usize) -> (u16, impl Iterator<Item = usize>) {
    const TILE_COLS: usize = VRAM_WIDTH / TILE_W;
    const TILE_ROWS: usize = 512 / TILE_H;
    let (cols, rows) = (w.min(VRAM_WIDTH), h.min(512));
    let mut mask = 0u16;
    if cols > 0 {
        let x = x & (VRAM_WIDTH - 1);
        for tx in x / TILE_W..=(x + cols - 1) / TILE_W {
            mask |= 1 << (tx % TILE_COLS);
        }
    }
    let first = (y & 511) / TILE_H;
    let count = match rows {
        0 => 0,
        _ => (((y & 511) + rows - 1) / TILE_H - first + 1).min(TILE_ROWS),
    };
    (mask, (first..first + count).map(|t| t % TILE_ROWS))
}

/// Pushes `v` and returns its index.
fn push<T>(vec: &mut Vec<T>, v: T) -> u32 {
    vec.push(v);
    (vec.len() - 1) as u32
}

/// A batch's set-up primitives, ready to draw.
struct Prims<'a> {
    order: &'a [Entry],
    triangles: &'a [Triangle],
    lines: &'a [Line],
    rects: &'a [Rect],
}

impl Prims<'_> {
    /// Draws every primitive, in command order, clipped to `bands` (sorted by row).
    fn draw(&self, bands: &mut [Band], src: TexSource, simd: Simd) {
        let (Some(first), Some(last)) = (bands.first(), bands.last()) else {
            return;
        };
        let (y0, y1) = (first.y0, last.y1);
        for e in self.order {
            if e.bottom <= y0 || e.top >= y1 {
                continue;
            }
            let i = e.index as usize;
            match e.kind {
                Kind::Triangle => self.triangles[i].draw(bands, src, simd),
                Kind::Line => self.lines[i].draw(bands),
                Kind::Rect => self.rects[i].draw(bands, src, simd),
            }
        }
    }
}

/// `vram` cut into at most `count` contiguous regions of whole bands with about equal `load`
/// each (bands after the last loaded one join the last region).
fn regions<'a>(vram: &'a mut [u16], load: &[u32; BANDS], count: usize) -> Vec<Band<'a>> {
    let total: u64 = load.iter().map(|&l| l as u64).sum();
    let count = count.clamp(1, BANDS) as u64;
    let mut out = Vec::with_capacity(count as usize);
    let (mut rest, mut y0, mut acc) = (vram, 0usize, 0u64);
    for (i, &l) in load.iter().enumerate() {
        acc += l as u64;
        let y1 = (i + 1) * BAND_ROWS;
        let last = i + 1 == BANDS || out.len() as u64 + 1 == count;
        // Cut once this region holds its share of the load, or at the end of VRAM.
        if (acc * count >= total * (out.len() as u64 + 1) && acc > 0 && !last) || i + 1 == BANDS {
            let rows = if last {
                rest.len() / VRAM_WIDTH
            } else {
                y1 - y0
            };
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(rows * VRAM_WIDTH);
            out.push(Band {
                rows: head,
                y0: y0 as i32,
                y1: (y0 + rows) as i32,
            });
            rest = tail;
            y0 += rows;
            if rest.is_empty() {
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tiles of rectangles: inside VRAM, wrapping at both edges, empty, and wider than VRAM.
    #[test]
    fn tiles_wrap_at_the_vram_edges() {
        let get = |x, y, w, h| {
            let (mask, rows) = tiles(x, y, w, h);
            (mask, rows.collect::<Vec<_>>())
        };
        assert_eq!(get(64, 32, 64, 32), (1 << 1, vec![1]));
        assert_eq!(get(1000, 500, 100, 40), (1 << 15 | 1 | 1 << 1, vec![15, 0]));
        assert_eq!(get(5, 5, 0, 10).0, 0);
        assert_eq!(get(5, 5, 10, 0).1, Vec::<usize>::new());
        assert_eq!(get(0, 0, 4096, 4096), (0xffff, (0..16).collect()));
    }

    /// Regions cover all 512 rows once, in order, at most `count` of them, with about equal
    /// load.
    #[test]
    fn regions_cover_vram_in_balanced_runs() {
        let mut vram = vec![0u16; VRAM_WIDTH * 512];
        let mut load = [0u32; BANDS];
        for (i, l) in load.iter_mut().enumerate().take(28) {
            *l = 1000 + (i as u32 % 5) * 300;
        }
        for count in [1, 2, 3, 8, 32, 64] {
            let rs = regions(&mut vram, &load, count);
            assert!(
                !rs.is_empty() && rs.len() <= count.min(BANDS),
                "count {count}"
            );
            let mut y = 0;
            for r in &rs {
                assert_eq!(r.y0, y);
                assert_eq!(r.rows.len(), (r.y1 - r.y0) as usize * VRAM_WIDTH);
                y = r.y1;
            }
            assert_eq!(y, 512, "count {count}");
            let share = load.iter().sum::<u32>() as f64 / count.min(BANDS) as f64;
            for r in &rs[..rs.len() - 1] {
                let bands = r.y0 as usize / BAND_ROWS..r.y1 as usize / BAND_ROWS;
                let l: u32 = load[bands].iter().sum();
                assert!(
                    (l as f64) <= share + 2200.0,
                    "count {count}: {l} vs {share}"
                );
            }
        }
        // Nothing queued: one region.
        assert_eq!(regions(&mut vram, &[0; BANDS], 8).len(), 1);
    }
}
