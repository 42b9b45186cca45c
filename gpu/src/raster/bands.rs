//! Batches of primitives drawn over horizontal bands of VRAM in parallel.
//!
//! A batch collects primitives in command order. Triangles are queued in chunks of
//! [`SETUP_CHUNK`] and set up (sorting, gradients, edge steps) a chunk at a time: while the GPU
//! keeps the pool's threads busy through a long call (`Gpu::busy`), another thread sets each
//! chunk up as soon as it fills, so set-up overlaps parsing; otherwise when the batch draws.
//! To draw, VRAM is cut into one lane of contiguous rows per thread, of about equal estimated
//! work (pixels counted per band of [`BAND_ROWS`] rows as primitives are queued). A thread walks
//! the batch in command order and draws every primitive clipped to its lane's rows. A thread
//! that runs out of work asks one still drawing for part of its rows: before its next primitive
//! the owner cuts the rows it has left where the work left is about halved, keeps the upper part
//! and hands the lower part over with the index of that primitive, from which the asker goes on
//! (see [`draw_lanes`]). Each VRAM pixel is drawn by one thread at a time, every primitive in
//! command order, so it sees exactly the same sequence of writes as in a serial run.
//!
//! Design rule: few, contiguous, work-balanced regions, drawn by the same thread from batch to
//! batch, cut further only when a thread would otherwise wait. A primitive is split only where it
//! crosses a region boundary, so row runs stay long and the per-primitive set-up of the span
//! loops is paid about once. Measured on the GPU bench frame with 2 threads (instrumented build,
//! 2-vCPU dev VM): the fixed lanes before, a large and a small region each, left one thread
//! waiting 0.4–0.6 ms at the end of a 6 ms frame; cut on demand, both threads together wait
//! 0.04–0.12 ms, and frames drew 1.03–1.16× as fast (per-run medians of 9 runs at 2 threads
//! and all cores, each alternating 20 blocks of frames of both builds in one process). Lanes of
//! 4 regions took 6–10 % more drawing time than 2; 32 fixed bands, each replaying the whole
//! batch, cost about twice the CPU time of a serial run.
//!
//! Textures are read from a snapshot of VRAM taken before the batch draws anything; the GPU ends
//! a batch (see `Gpu::texture`) before a primitive whose texture page or CLUT overlaps what the
//! batch has drawn, so the snapshot always equals live VRAM where it is sampled. Transfers (fill,
//! copies) also end the batch. Threads drawing lanes sample copies of the snapshot of their own,
//! kept equal to it tile by tile ([`super::snapshot`]), so no two cores share texture cache lines.

use super::line::Line;
use super::rect::Rect;
use super::snapshot::{Copies, Snapshot};
use super::span::Simd;
use super::texture::ClutTable;
use super::triangle::{Triangle, TriangleCmd};
use super::{Band, Prim, TexSource};
use crate::VRAM_WIDTH;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};

/// Rows per band.
pub const BAND_ROWS: usize = 16;
/// Tile size of the drawn-area map: 64 columns × 32 rows (the GPU's texture snapshot uses the
/// same tiles).
pub const TILE_W: usize = 64;
/// See [`TILE_W`].
pub const TILE_H: usize = 32;
/// Primitives per batch before it is drawn anyway (bounds memory on endless streams).
pub const MAX_BATCH: usize = 8192;
/// Queued triangles per set-up task.
const SETUP_CHUNK: usize = 128;
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
    /// Triangles as queued: full chunks of [`SETUP_CHUNK`], then the one filling.
    chunks: Vec<Arc<Chunk>>,
    filling: Vec<TriangleCmd>,
    /// Full chunks are set up on the current rayon pool as soon as they fill.
    eager: bool,
    /// The chunks set up (filled when the batch draws; kept for its allocation).
    triangles: Vec<Vec<Triangle>>,
    /// Allocations of drawn chunks, for new ones.
    spare: Vec<(Vec<TriangleCmd>, Vec<Triangle>)>,
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
            chunks: Vec::new(),
            filling: Vec::new(),
            eager: false,
            triangles: Vec::new(),
            spare: Vec::new(),
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

    /// The CLUTs the batch's primitives sample.
    pub fn cluts(&self) -> &[ClutTable] {
        &self.cluts
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
            Prim::Triangle(t) => (Kind::Triangle, self.push_triangle(t)),
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

    /// Queues a triangle; returns its index.
    fn push_triangle(&mut self, t: TriangleCmd) -> u32 {
        let index = self.chunks.len() * SETUP_CHUNK + self.filling.len();
        self.filling.push(t);
        if self.filling.len() == SETUP_CHUNK {
            let (next, out) = self.spare.pop().unwrap_or_default();
            let cmds = std::mem::replace(&mut self.filling, next);
            let chunk = Arc::new(Chunk::new(cmds, out));
            if self.eager {
                spawn_set_up(&chunk);
            }
            self.chunks.push(chunk);
        }
        index as u32
    }

    /// Whether full chunks of queued triangles are set up at once on the current rayon pool
    /// (while the caller goes on queuing) rather than when the batch draws. For callers that
    /// keep the pool's other threads looking for work (`Gpu::busy`). Turning it on also hands
    /// the chunks already queued to the pool.
    pub fn set_eager(&mut self, eager: bool) {
        if eager && !self.eager {
            self.chunks.iter().for_each(spawn_set_up);
        }
        self.eager = eager;
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

    /// The batch's primitives with `triangles` as its chunks of queued triangles set up.
    fn prims<'a>(&'a self, triangles: &'a [Vec<Triangle>]) -> Prims<'a> {
        Prims {
            order: &self.order,
            triangles,
            lines: &self.lines,
            rects: &self.rects,
        }
    }

    /// Draws every primitive into `vram` (spans through kernel `simd`), sampling textures from
    /// `tex` (or, on a pool, from each thread's copy of it in `copies`), then empties the batch.
    pub fn run(
        &mut self,
        vram: &mut [u16],
        tex: Snapshot,
        copies: &mut Copies,
        exec: Exec,
        simd: Simd,
    ) {
        if self.order.is_empty() {
            return;
        }
        // Taken out for the draw (and put back for its allocation), so `self` can lend the rest.
        let mut triangles = std::mem::take(&mut self.triangles);
        let filling = || self.filling.iter().map(TriangleCmd::setup).collect();
        let mut parallel = |vram: &mut [u16], triangles: &mut Vec<Vec<Triangle>>| {
            self.chunks
                .par_iter()
                .map(|c| c.take())
                .collect_into_vec(triangles);
            triangles.push(filling());
            copies.fit(rayon::current_num_threads());
            let lanes = Lanes {
                load: &self.load,
                tex,
                copies,
                cluts: &self.cluts,
            };
            draw_lanes(&self.prims(triangles), vram, lanes, simd);
        };
        match exec {
            Exec::Pool(pool) => pool.install(|| parallel(vram, &mut triangles)),
            Exec::Global if self.heavy() => parallel(vram, &mut triangles),
            _ => {
                triangles.extend(self.chunks.iter().map(|c| c.take()));
                triangles.push(filling());
                let mut band = Band {
                    rows: vram,
                    y0: 0,
                    y1: 512,
                };
                let src = TexSource {
                    vram: tex.image,
                    cluts: &self.cluts,
                };
                self.prims(&triangles).draw(&mut band, src, simd);
            }
        }
        // Keep the chunks' allocations (those no set-up job still holds) for the next batch;
        // this empties `chunks` and `triangles` (the filling chunk's triangles are dropped).
        for (chunk, mut out) in self.chunks.drain(..).zip(triangles.drain(..)) {
            if let Ok(c) = Arc::try_unwrap(chunk) {
                let mut cmds = c.cmds;
                cmds.clear();
                out.clear();
                self.spare.push((cmds, out));
            }
        }
        self.triangles = triangles;
        self.order.clear();
        self.filling.clear();
        self.lines.clear();
        self.rects.clear();
        self.cluts.clear();
        self.dirty = [0; 16];
        self.load = [0; BANDS];
        self.total = 0;
    }
}

/// A full chunk of queued triangles, and the same set up once some thread has done it.
#[derive(Debug)]
struct Chunk {
    cmds: Vec<TriangleCmd>,
    /// Whether the triangles are set up yet, and the set-up triangles. A thread that wants them
    /// while another sets them up waits for the lock (a chunk's set-up takes tens of
    /// microseconds).
    set_up: Mutex<(bool, Vec<Triangle>)>,
}

impl Chunk {
    /// A chunk of `cmds`, to be set up into `out`'s allocation.
    fn new(cmds: Vec<TriangleCmd>, out: Vec<Triangle>) -> Self {
        Chunk {
            cmds,
            set_up: Mutex::new((false, out)),
        }
    }

    /// The set-up triangles, set up here unless some thread already has. Waits for a thread
    /// setting them up by yielding, not sleeping: on the dev VM a thread put to sleep takes long
    /// to wake (with a blocking lock here, 2 threads drew the bench frame at a median 1.39× one
    /// thread against 1.48×, in 6 interleaved runs each).
    fn set_up(&self) -> MutexGuard<'_, (bool, Vec<Triangle>)> {
        let mut s = loop {
            match self.set_up.try_lock() {
                Ok(s) => break s,
                Err(TryLockError::Poisoned(e)) => break e.into_inner(),
                Err(TryLockError::WouldBlock) => std::thread::yield_now(),
            }
        };
        if !s.0 {
            s.1.extend(self.cmds.iter().map(TriangleCmd::setup));
            s.0 = true;
        }
        s
    }

    /// The set-up triangles, taken out of the chunk.
    fn take(&self) -> Vec<Triangle> {
        std::mem::take(&mut self.set_up().1)
    }
}

/// Sets `chunk` up on the current rayon pool, in the background.
fn spawn_set_up(chunk: &Arc<Chunk>) {
    let c = chunk.clone();
    rayon::spawn(move || drop(c.set_up()));
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
    /// Set-up triangles in chunks of [`SETUP_CHUNK`].
    triangles: &'a [Vec<Triangle>],
    lines: &'a [Line],
    rects: &'a [Rect],
}

impl Prims<'_> {
    /// Draws every primitive, in command order, clipped to `band`.
    fn draw(&self, band: &mut Band, src: TexSource, simd: Simd) {
        for e in self.order {
            self.draw_entry(e, band, src, simd);
        }
    }

    /// Draws one primitive clipped to `band`, if it may touch it.
    #[inline]
    fn draw_entry(&self, e: &Entry, band: &mut Band, src: TexSource, simd: Simd) {
        if e.bottom <= band.y0 || e.top >= band.y1 {
            return;
        }
        let i = e.index as usize;
        let bands = std::slice::from_mut(band);
        match e.kind {
            Kind::Triangle => {
                self.triangles[i / SETUP_CHUNK][i % SETUP_CHUNK].draw(bands, src, simd)
            }
            Kind::Line => self.lines[i].draw(bands),
            Kind::Rect => self.rects[i].draw(bands, src, simd),
        }
    }

    /// Draws the primitives from `piece.from` on, in command order, clipped to `piece.band`,
    /// as thread `me` of `slots`: before each primitive it answers a thread asking for part of
    /// the rows left (see [`Prims::split`]).
    fn draw_live<'v>(
        &self,
        mut piece: Piece<'v>,
        me: usize,
        slots: &[Slot<'v>],
        src: TexSource,
        simd: Simd,
    ) {
        let slot = &slots[me];
        slot.asker.store(OPEN, Ordering::Release);
        // Closes the slot however this returns, so no asker waits for an answer that never
        // comes (a panic while drawing then reaches the caller instead of hanging it).
        let _close = Close { me, slots };
        for (i, e) in self.order.iter().enumerate().skip(piece.from) {
            let asker = slot.asker.load(Ordering::Acquire);
            if asker != OPEN {
                slots[asker].answer(self.split(&mut piece.band, i));
                slot.asker.store(OPEN, Ordering::Release);
            }
            self.draw_entry(e, &mut piece.band, src, simd);
        }
    }

    /// Cuts the rows of `band` not yet drawn past primitive `from` in two of about equal work
    /// left (rows weighted by the primitives from `from` on that may touch them), keeps the
    /// upper part in `band` and returns the lower one; `None` when less than [`MIN_SPLIT`] work
    /// is left.
    fn split<'v>(&self, band: &mut Band<'v>, from: usize) -> Option<Piece<'v>> {
        let (y0, y1) = (band.y0, band.y1);
        let rows = (y1 - y0) as usize;
        if rows < 2 {
            return None;
        }
        // Primitives starting and ending per row, then their running count: work per row.
        let mut work = vec![0i64; rows + 1];
        for e in &self.order[from..] {
            let (t, b) = (e.top.max(y0), e.bottom.min(y1));
            if t < b {
                work[(t - y0) as usize] += 1;
                work[(b - y0) as usize] -= 1;
            }
        }
        let mut open = 0;
        for w in work.iter_mut() {
            open += *w;
            *w = open;
        }
        let total: i64 = work.iter().sum();
        if total < MIN_SPLIT {
            return None;
        }
        let mut acc = 0;
        let half = work[..rows - 1].iter().take_while(|&&w| {
            acc += w;
            2 * acc < total
        });
        let mid = y0 + 1 + half.count() as i32;
        let (head, tail) =
            std::mem::take(&mut band.rows).split_at_mut((mid - y0) as usize * VRAM_WIDTH);
        band.rows = head;
        band.y1 = mid;
        Some(Piece {
            band: Band {
                rows: tail,
                y0: mid,
                y1,
            },
            from,
        })
    }
}

/// Least work left in a region (primitives times rows they may touch) for it to be split
/// while drawn: about 30 µs of drawing on the bench frame.
const MIN_SPLIT: i64 = 1024;

/// [`Slot::asker`] of a thread drawing a region that nobody has asked for part of.
const OPEN: usize = usize::MAX;
/// [`Slot::asker`] of a thread drawing no region.
const CLOSED: usize = usize::MAX - 1;

/// A thread's part in splitting regions while they are drawn.
struct Slot<'v> {
    /// [`OPEN`] while the thread draws a region, [`CLOSED`] otherwise, or the slot of the
    /// thread asking for part of that region.
    asker: AtomicUsize,
    /// The answer to this thread's ask: part of a region, or `None` when refused.
    inbox: Mutex<Option<Option<Piece<'v>>>>,
}

impl<'v> Slot<'v> {
    /// Answers this slot's thread, which asked for part of a region: `part`, or `None` to refuse.
    fn answer(&self, part: Option<Piece<'v>>) {
        *lock(&self.inbox) = Some(part);
    }
}

/// Closes slot `me` when dropped: no more asks are taken, and a thread that asked meanwhile is
/// refused.
struct Close<'a, 'v> {
    me: usize,
    slots: &'a [Slot<'v>],
}

impl Drop for Close<'_, '_> {
    fn drop(&mut self) {
        let asker = self.slots[self.me].asker.swap(CLOSED, Ordering::AcqRel);
        if asker != OPEN {
            self.slots[asker].answer(None);
        }
    }
}

/// Asks the threads of `slots` still drawing, in turn from `me + 1`, for part of their rows:
/// the first part handed over, or `None` once every one has refused or drawn nothing.
fn ask<'v>(slots: &[Slot<'v>], me: usize) -> Option<Piece<'v>> {
    for k in 1..slots.len() {
        let other = &slots[(me + k) % slots.len()];
        if other
            .asker
            .compare_exchange(OPEN, me, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            continue;
        }
        let answer = loop {
            if let Some(a) = lock(&slots[me].inbox).take() {
                break a;
            }
            std::hint::spin_loop();
        };
        if answer.is_some() {
            return answer;
        }
    }
    None
}

/// Rows of VRAM to draw from primitive `from` of the batch on.
struct Piece<'v> {
    band: Band<'v>,
    from: usize,
}

/// Locks `m`, ignoring poisoning (a panic elsewhere ends the draw anyway).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The bands cut into at most `count` consecutive runs of about equal load; empty runs are
/// dropped, and bands after the last loaded one join the last run.
fn split_load(load: &[u32; BANDS], count: usize) -> Vec<Range<usize>> {
    let total: u64 = load.iter().map(|&l| l as u64).sum();
    let count = count.max(1) as u64;
    let mut out = Vec::with_capacity(count as usize);
    let (mut start, mut band, mut acc) = (0, 0, 0u64);
    for k in 1..count {
        while band < BANDS && acc * count < total * k {
            acc += load[band] as u64;
            band += 1;
        }
        if band > start {
            out.push(start..band);
            start = band;
        }
    }
    if start < BANDS {
        out.push(start..BANDS);
    }
    out
}

/// What [`draw_lanes`] needs of a batch beside its primitives.
struct Lanes<'a> {
    /// Estimated load per band.
    load: &'a [u32; BANDS],
    /// The texture snapshot.
    tex: Snapshot<'a>,
    /// Copies of it per pool thread, with room for the current pool.
    copies: &'a Copies,
    /// The batch's CLUTs.
    cluts: &'a [ClutTable],
}

/// Draws `prims` into `vram` on the current rayon pool, in one lane of contiguous rows per
/// thread with about equal estimated load. A thread draws its own lane (by pool index, so the
/// same rows from batch to batch), then any lane no thread has started; then it asks the threads
/// still drawing for the lower part of the rows they have left ([`Prims::split`]), until all
/// refuse. Each thread samples textures from its own copy of the snapshot (see
/// [`super::snapshot`]). Returns the number of parts handed over.
fn draw_lanes(prims: &Prims, vram: &mut [u16], with: Lanes, simd: Simd) -> usize {
    let threads = rayon::current_num_threads().clamp(1, BANDS);
    let mut rest = vram;
    let lanes: Vec<Mutex<Option<Band>>> = split_load(with.load, threads)
        .iter()
        .map(|r| {
            let rows = (r.end - r.start) * BAND_ROWS;
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(rows * VRAM_WIDTH);
            rest = tail;
            Mutex::new(Some(Band {
                rows: head,
                y0: (r.start * BAND_ROWS) as i32,
                y1: (r.end * BAND_ROWS) as i32,
            }))
        })
        .collect();
    let slots: Vec<Slot> = (0..threads)
        .map(|_| Slot {
            asker: AtomicUsize::new(CLOSED),
            inbox: Mutex::new(None),
        })
        .collect();
    let (next_slot, handed) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let work = || {
        let me = next_slot.fetch_add(1, Ordering::Relaxed);
        let index = rayon::current_thread_index().unwrap_or(me);
        let tex = with.copies.hold(index, with.tex);
        let src = TexSource {
            vram: tex.image(),
            cluts: with.cluts,
        };
        let own = index % lanes.len();
        for lane in lanes[own..].iter().chain(&lanes[..own]) {
            let band = lock(lane).take();
            if let Some(band) = band {
                prims.draw_live(Piece { band, from: 0 }, me, &slots, src, simd);
            }
        }
        // No lane left to start: draw parts of the others' rows while they hand some over.
        while let Some(piece) = ask(&slots, me) {
            handed.fetch_add(1, Ordering::Relaxed);
            prims.draw_live(piece, me, &slots, src, simd);
        }
    };
    rayon::scope(|s| {
        for _ in 1..threads {
            s.spawn(|_| work());
        }
        work();
    });
    handed.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gp0::fields::BlendMode;
    use crate::raster::pixel::PixelMode;
    use crate::raster::snapshot::TILES;
    use crate::raster::Clip;
    use crate::rng::XorShift;
    use crate::VramImage;

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

    /// Runs cover all bands once, in order, without empty ones, and hold about equal load.
    #[test]
    fn split_load_cuts_balanced_runs() {
        let mut load = [0u32; BANDS];
        for (i, l) in load.iter_mut().enumerate().take(28) {
            *l = 1000 + (i as u32 % 5) * 300;
        }
        let total: u32 = load.iter().sum();
        for count in [1, 2, 3, 5, 28, 64] {
            let runs = split_load(&load, count);
            assert!(!runs.is_empty() && runs.len() <= count, "{count}");
            let mut at = 0;
            for r in &runs {
                assert!(r.start == at && r.end > r.start, "{count}: {runs:?}");
                at = r.end;
            }
            assert_eq!(at, BANDS);
            // Each run but the last ends at the first band where its cumulative share is
            // reached (when no run was dropped as empty).
            if runs.len() < count {
                continue;
            }
            for (k, r) in runs.iter().enumerate().take(runs.len() - 1) {
                let want = total as u64 * (k as u64 + 1);
                let upto: u32 = load[..r.end].iter().sum();
                assert!(
                    upto as u64 * count as u64 >= want
                        && (upto - load[r.end - 1]) as u64 * (count as u64) < want,
                    "{count}: {runs:?}"
                );
            }
        }
        // Nothing loaded: one run.
        assert_eq!(split_load(&[0; BANDS], 3), vec![0..BANDS]);
    }

    /// Order entries of primitives covering rows `[top, bottom)`, for [`Prims::split`].
    fn entries(rows: &[(i32, i32)]) -> Vec<Entry> {
        rows.iter()
            .enumerate()
            .map(|(i, &(top, bottom))| Entry {
                kind: Kind::Rect,
                index: i as u32,
                top,
                bottom,
            })
            .collect()
    }

    /// A region is cut where the work left (primitives from `from` on, times their rows in the
    /// region) is about halved; the upper rows stay, the lower ones go with `from`. Too little
    /// work left, or a single row, is refused and leaves the region as it was.
    #[test]
    fn split_halves_the_work_left() {
        // 40 primitives over rows 0..100 already drawn, then 300 over rows 200..300.
        let mut rows = vec![(0, 100); 40];
        rows.extend((0..300).map(|i| (200 + i % 80, 220 + i % 80)));
        let order = entries(&rows);
        let prims = Prims {
            order: &order,
            triangles: &[],
            lines: &[],
            rects: &[],
        };
        let mut vram = vec![0u16; 512 * VRAM_WIDTH];
        let mut band = Band {
            rows: &mut vram[64 * VRAM_WIDTH..320 * VRAM_WIDTH],
            y0: 64,
            y1: 320,
        };
        let piece = prims.split(&mut band, 40).expect("6,000 row-spans left");
        let mid = band.y1;
        assert_eq!((piece.band.y0, piece.band.y1, piece.from), (mid, 320, 40));
        assert_eq!(band.rows.len(), (mid - 64) as usize * VRAM_WIDTH);
        assert_eq!(piece.band.rows.len(), (320 - mid) as usize * VRAM_WIDTH);
        let work = |y0: i32, y1: i32| -> i32 {
            rows[40..]
                .iter()
                .map(|&(t, b)| (b.min(y1) - t.max(y0)).max(0))
                .sum()
        };
        // The busiest row holds 20 primitives: the halves differ by less than two such rows.
        let (upper, lower) = (work(64, mid), work(mid, 320));
        assert_eq!(upper + lower, 6000);
        assert!(
            (upper - lower).abs() <= 40,
            "{upper} above {mid}, {lower} below"
        );
        // 5 primitives of 20 rows left: too little.
        assert!(prims.split(&mut band, 335).is_none());
        assert_eq!((band.y0, band.y1), (64, mid));
        let mut one = Band {
            rows: &mut [0u16; VRAM_WIDTH],
            y0: 250,
            y1: 251,
        };
        assert!(prims.split(&mut one, 40).is_none());
    }

    /// Overlapping semi-transparent rectangles in every blend mode (the result depends on
    /// drawing order), drawn in lanes on pools of 2 to 4 threads, regions split while drawn,
    /// equal one serial pass, every time.
    #[test]
    fn lanes_with_split_regions_draw_what_one_pass_draws() {
        let mut rng = XorShift::new(0x51ab_5eed_0000_0001);
        let mut batch = Batch::default();
        let modes = [
            BlendMode::Average,
            BlendMode::Add,
            BlendMode::Subtract,
            BlendMode::AddQuarter,
        ];
        for i in 0..2000 {
            batch.push(Prim::Rect(Rect {
                x: rng.below(1000) as i32,
                y: rng.below(500) as i32,
                w: 1 + rng.below(32) as i32,
                h: 1 + rng.below(32) as i32,
                rgb: (rng.below(256) as i32, rng.below(256) as i32, 0x80),
                texture: None,
                raw: false,
                flip_x: false,
                flip_y: false,
                clip: Clip {
                    x0: 0,
                    y0: 0,
                    x1: 1023,
                    y1: 511,
                },
                mode: PixelMode {
                    blend: (i % 5 != 0).then(|| modes[i % 4]),
                    set_mask: 0,
                    check_mask: false,
                },
            }));
        }
        let tex = vec![0u16; 512 * VRAM_WIDTH];
        let tex: &VramImage = tex.as_slice().try_into().unwrap();
        let src = TexSource {
            vram: tex,
            cluts: &[],
        };
        let versions = [0; TILES];
        let snapshot = Snapshot {
            image: tex,
            versions: &versions,
        };
        let simd = Simd::best();
        let start: Vec<u16> = (0..512 * VRAM_WIDTH)
            .map(|_| rng.next_u32() as u16)
            .collect();
        let mut want = start.clone();
        let prims = batch.prims(&[]);
        prims.draw(
            &mut Band {
                rows: &mut want,
                y0: 0,
                y1: 512,
            },
            src,
            simd,
        );
        for threads in 2..=4 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            // At least 8 draws, and on until some part has been handed over (a thread that
            // ends its lane first asks; how far the others are is up to the scheduler).
            let (mut draws, mut handed) = (0, 0);
            let mut copies = Copies::default();
            copies.fit(threads);
            while draws < 8 || (handed == 0 && draws < 200) {
                let mut got = start.clone();
                let lanes = || Lanes {
                    load: &batch.load,
                    tex: snapshot,
                    copies: &copies,
                    cluts: &[],
                };
                handed += pool.install(|| draw_lanes(&prims, &mut got, lanes(), simd));
                draws += 1;
                if let Some(i) = want.iter().zip(&got).position(|(a, b)| a != b) {
                    panic!("{threads} threads: ({}, {}) differs", i % 1024, i / 1024);
                }
            }
            assert!(
                handed > 0,
                "{threads} threads: nothing handed over in {draws} draws"
            );
        }
    }
}
