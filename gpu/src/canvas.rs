//! Where queued packets become pixels: the [`Canvas`] (VRAM, the texture snapshot and cache,
//! the batch being scanned) runs each queue of drawing packets the front end ends
//! ([`crate::prepare::Queue`]) to the end before it returns, in three steps ([`Canvas::run`]):
//! 1. **prepare** (parallel): chunks of packets are decoded into primitives, culled, and given
//!    their rows, tiles, load estimate and texture look-ups ([`crate::prepare`], rayon over the
//!    chunks);
//! 2. **scan** (serial, in command order): the texture cache takes each chunk in turn
//!    ([`TexCache::scan`]): each look-up gets its texture (the CLUT cache, snapshot tiles) and
//!    each primitive adds the tiles it may draw; a look-up that would sample what the pending
//!    batch may draw cuts the batch there, and the part before it is drawn first;
//! 3. **draw** (parallel): the batch's bands ([`bands::plan`], a pure function of the load
//!    estimate and the thread count) are drawn by rayon ([`bands::draw_bands`]); each band
//!    draws, in command order, every primitive meeting its rows, so who draws which rows never
//!    changes a pixel.
//!
//! Nothing runs in the background and no thread waits on another but through rayon: the
//! caller's thread enters the pool for a parallel step and comes back when it is done, with
//! any panic raised there.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rayon::ThreadPool;

use crate::prepare::{prepare_all, Queue, CHUNK};
use crate::raster::bands;
use crate::raster::batch::{Batch, BANDS};
use crate::raster::feedback::TexelSource;
use crate::raster::span::Simd;
use crate::raster::texcache::{Cut, Images, TexCache};
use crate::raster::texture::ClutTable;
use crate::raster::tiles::TileSet;
use crate::raster::{Band, Hit, Prim, TexSource};
use crate::VRAM_HEIGHT;

/// How a queue is run: the pool (none: serial; at most one thread per core), the thread count
/// the bands are cut for, the span kernel, and the least estimated load of a band.
#[derive(Clone)]
pub(crate) struct Exec {
    pub pool: Option<Arc<ThreadPool>>,
    pub threads: usize,
    pub simd: Simd,
    pub min_load: u64,
}

/// VRAM, the snapshot, texture coherence and the batch being scanned.
#[derive(Default)]
pub(crate) struct Canvas {
    pub images: Images,
    pub tex: TexCache,
    /// CLUTs the CLUT cache copied out for the pending batch, indexed by `ClutRef::Table`.
    pub cluts: Vec<ClutTable>,
    /// The pending batch: prepared chunks scanned, not yet drawn.
    pending: Vec<Batch>,
    /// Drawn chunks, kept for their allocations.
    spare: Vec<Batch>,
}

impl Canvas {
    /// Prepares, scans and draws everything `queue` holds, and empties it. A queue of more
    /// than one chunk is prepared on the pool (the calling thread waits in rayon meanwhile).
    pub fn run(&mut self, queue: &mut Queue, exec: &Exec) {
        if queue.is_empty() {
            return;
        }
        let spare = &mut self.spare;
        let chunks = match &exec.pool {
            Some(pool) if queue.len() > CHUNK => pool.install(|| prepare_all(queue, true, spare)),
            _ => prepare_all(queue, false, spare),
        };
        for b in chunks {
            self.scan(b, exec);
        }
        self.draw_pending(exec);
        queue.clear();
    }

    /// Scans a prepared chunk in command order ([`TexCache::scan`]) into the pending batch,
    /// drawing the pending batch at each cut: before a look-up in conflict with it, or before
    /// the primitives of a look-up drawn alone in order through the texture cache (drawn then,
    /// the scan going on after them).
    fn scan(&mut self, mut b: Batch, exec: &Exec) {
        loop {
            match self.tex.scan(&mut self.images, &mut self.cluts, &mut b) {
                None => {
                    self.pending.push(b);
                    return;
                }
                Some(Cut::Conflict(at)) => {
                    let rest = b.split_off(at);
                    self.pending.push(b);
                    self.draw_pending(exec);
                    b = rest;
                }
                Some(Cut::InOrder(l)) => {
                    let mut look = b.split_off(l.at as usize);
                    self.pending.push(b);
                    self.draw_pending(exec);
                    b = look.split_off(l.count as usize);
                    let clut = (self.tex).in_order_texture(&mut self.images, &mut self.cluts, &l);
                    for (k, e) in look.order.iter().enumerate() {
                        let p = look.prim(e);
                        self.draw_in_order(&p, look.drawn[k], &clut, None, |_, _, _, _| {});
                    }
                    look.clear();
                    self.spare.push(look);
                }
            }
        }
    }

    /// Draws `p`, which may draw `tiles`, alone, in the hardware's pixel order on VRAM
    /// ([`Feedback::draw`](crate::raster::feedback::Feedback::draw)), its texels read through
    /// the texture cache and its CLUT entries from `clut`; `seen` gets each pixel's VRAM index,
    /// its value before, what happened and where its texel came from.
    pub fn draw_in_order(
        &mut self,
        p: &Prim,
        tiles: TileSet,
        clut: &ClutTable,
        command: Option<u64>,
        seen: impl FnMut(usize, u16, Hit, Option<TexelSource>),
    ) {
        self.tex.before_write(&self.images.vram, tiles);
        (self.tex.feedback).draw(p, clut, &mut self.images.vram, command, seen);
    }

    /// Draws the pending batch, in bands on the pool when its plan has more than one, and
    /// begins an empty one.
    fn draw_pending(&mut self, exec: &Exec) {
        if self.pending.is_empty() {
            return;
        }
        self.tex
            .before_write(&self.images.vram, self.tex.drawn_tiles());
        // The pending chunks' estimates, summed: the load per band of rows.
        let mut load = vec![0u32; BANDS];
        for b in &self.pending {
            for (sum, l) in load.iter_mut().zip(&b.load) {
                *sum = sum.saturating_add(*l);
            }
        }
        let src = TexSource {
            vram: &self.images.snapshot,
            cluts: &self.cluts,
        };
        let (batch, simd) = (&self.pending[..], exec.simd);
        let vram = &mut self.images.vram[..];
        let edges = bands::plan(&load, exec.threads, exec.min_load);
        match &exec.pool {
            Some(pool) if edges.len() > 2 => pool.install(|| {
                bands::draw_bands(vram, &edges, |band| bands::draw(batch, band, src, simd))
            }),
            _ => bands::draw(batch, &mut Band::new(vram, 0, VRAM_HEIGHT), src, simd),
        }
        for mut b in self.pending.drain(..) {
            b.clear();
            self.spare.push(b);
        }
        self.cluts.clear();
        self.tex.drawn_cleared();
        self.tex.batch_drawn();
    }

    /// Scans a prepared packet (the pending batch being empty, the texture cache at epoch
    /// `epoch`) and leaves its primitives in `b` to be drawn one at a time, for the pixel
    /// history: a textured packet's through the texture cache ([`Canvas::draw_in_order`], with
    /// the CLUT entries returned), an untextured one's by [`Canvas::draw_one`].
    pub fn scan_alone(&mut self, b: &mut Batch, epoch: u32) -> Option<Box<ClutTable>> {
        debug_assert!(self.pending.is_empty());
        self.tex.sync_epoch(epoch);
        let area = (b.drawn.iter()).fold(TileSet::EMPTY, |a, &t| a.union(t));
        self.tex.feedback_write(&self.images.vram, area);
        let l = b.looks.first().copied()?;
        Some((self.tex).in_order_texture(&mut self.images, &mut self.cluts, &l))
    }

    /// Draws one primitive of a packet scanned by [`Canvas::scan_alone`], serially, keeping the
    /// packet's CLUT table.
    pub fn draw_one(&mut self, p: Prim, simd: Simd) {
        let mut one = Batch::default();
        one.push(p);
        self.tex.before_write(&self.images.vram, one.drawn[0]);
        let src = TexSource {
            vram: &self.images.snapshot,
            cluts: &self.cluts,
        };
        let all = &mut Band::new(&mut self.images.vram[..], 0, VRAM_HEIGHT);
        let one = std::slice::from_ref(&one);
        bands::draw(one, all, src, simd);
    }

    /// The packet drawn by [`Canvas::draw_one`] is done: its CLUT table goes.
    pub fn packet_drawn(&mut self) {
        self.cluts.clear();
        self.tex.batch_drawn();
    }
}

/// The process-wide pool of `threads` threads, started at its first use and kept for the
/// process's life, so a program that makes GPU after GPU starts threads once; `None` if the
/// system refuses to start them (the caller then draws alone).
pub(crate) fn pool(threads: usize) -> Option<Arc<ThreadPool>> {
    type Pools = Mutex<Vec<(usize, Arc<ThreadPool>)>>;
    static POOLS: OnceLock<Pools> = OnceLock::new();
    let mut pools =
        (POOLS.get_or_init(Mutex::default).lock()).unwrap_or_else(PoisonError::into_inner);
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Some(Arc::clone(p));
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("psxrender-gpu-{i}"))
        .build()
        .ok()?;
    let p = Arc::new(p);
    pools.push((threads, Arc::clone(&p)));
    Some(p)
}
