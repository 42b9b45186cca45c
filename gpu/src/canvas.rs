//! Where queued packets become pixels: the [`Canvas`] (VRAM, the texture snapshot and cache,
//! the batch being scanned) runs each queue the front end ends ([`crate::prepare::Queue`]) to
//! the end before it returns ([`Canvas::run`]): **prepare** (rayon over chunks,
//! [`crate::prepare`]), **scan** in command order ([`TexCache::scan`], which cuts the batch
//! where a look-up samples what it may draw), **draw** (rayon over the bands of
//! [`bands::plan`]). Nothing runs in the background and no thread waits on another but
//! through rayon, which raises any panic here. With a pixel history watched ([`Watch`]), each
//! primitive is drawn alone in order instead ([`Canvas::draw_watched`]). docs/gpu.md, "The
//! core in one page", says why this is deterministic and cannot hang.

use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rayon::ThreadPool;

use crate::prepare::{prepare_all, Queue, CHUNK};
use crate::raster::bands;
use crate::raster::batch::{Batch, Look, BANDS};
use crate::raster::feedback::TexelSource;
use crate::raster::span::Simd;
use crate::raster::texcache::{Cut, Images, TexCache};
use crate::raster::texture::ClutTable;
use crate::raster::tiles::TileSet;
use crate::raster::{Band, Hit, TexSource};
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
    /// than one chunk is prepared on the pool as it is scanned ([`Self::scan_while_preparing`]).
    /// With `watch` (the pixel history), every primitive is drawn alone in order instead
    /// ([`Canvas::draw_watched`]).
    pub fn run(&mut self, queue: &mut Queue, exec: &Exec, watch: Option<&mut dyn Watch>) {
        if queue.is_empty() {
            return;
        }
        match (watch, &exec.pool) {
            (None, Some(pool)) if queue.len() > CHUNK => {
                pool.install(|| self.scan_while_preparing(queue, exec))
            }
            (None, _) => {
                for b in prepare_all(queue, 0..usize::MAX, false, &mut self.spare) {
                    self.scan(b, exec);
                }
            }
            (Some(w), _) => {
                for mut b in prepare_all(queue, 0..usize::MAX, false, &mut self.spare) {
                    self.draw_watched(&b, w);
                    b.clear();
                    self.spare.push(b);
                }
            }
        }
        self.draw_pending(exec);
        queue.clear();
    }

    /// Prepares `queue` on the pool in stages of half the chunks left, scanning each stage
    /// while the next is prepared (`rayon::join`; preparing reads only the queue), so only the
    /// last chunk's scan runs alone. The scan still sees every chunk in command order.
    fn scan_while_preparing(&mut self, queue: &Queue, exec: &Exec) {
        let mut spare = std::mem::take(&mut self.spare);
        let chunks = queue.len().div_ceil(CHUNK);
        let mut done = chunks.div_ceil(2);
        let mut ready = prepare_all(queue, 0..done, true, &mut spare);
        while !ready.is_empty() {
            let next = done..done + (chunks - done).div_ceil(2);
            done = next.end;
            let scanning = std::mem::take(&mut ready);
            ready = rayon::join(
                || scanning.into_iter().for_each(|b| self.scan(b, exec)),
                || prepare_all(queue, next, true, &mut spare),
            )
            .1;
        }
        self.spare.append(&mut spare);
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
                    self.draw_alone(&look, 0..l.count as usize, Some(&l), None);
                    look.clear();
                    self.spare.push(look);
                }
            }
        }
    }

    /// Draws entries `range` of `b` alone, one after the other, each in the hardware's pixel
    /// order on VRAM ([`Feedback::draw`](crate::raster::feedback::Feedback::draw)), texels read
    /// through the texture cache: the primitives of look-up `look` (its texture got here,
    /// nothing being pending), or untextured ones. `watch` is told of each primitive and pixel.
    fn draw_alone(
        &mut self,
        b: &Batch,
        range: Range<usize>,
        look: Option<&Look>,
        mut watch: Option<&mut dyn Watch>,
    ) {
        let clut = match look {
            Some(l) => (self.tex).in_order_texture(&mut self.images, &mut self.cluts, l),
            None => Box::new([0; 256]),
        };
        for k in range {
            let e = &b.order[k];
            self.tex.before_write(&self.images.vram, b.drawn[k]);
            let (vram, f) = (&mut self.images.vram, &mut self.tex.feedback);
            match watch.as_deref_mut() {
                Some(w) => {
                    w.primitive(e.half);
                    let command = Some(w.command());
                    f.draw(&b.prim(e), &clut, vram, command, |at, was, hit, from| {
                        w.pixel(at, was, hit, from)
                    });
                }
                None => f.draw(&b.prim(e), &clut, vram, None, |_, _, _, _| {}),
            }
        }
    }

    /// Draws prepared chunk `b` (nothing pending) for the pixel history: every primitive alone
    /// ([`Canvas::draw_alone`]), in command order, `watch` told of each pixel. What the texture
    /// cache and the snapshot go through is what [`TexCache::scan`] puts them through, a
    /// packet at a time.
    fn draw_watched(&mut self, b: &Batch, watch: &mut dyn Watch) {
        let (mut epochs, mut looks, mut k) = (0, 0, 0);
        loop {
            let look = b.looks.get(looks).filter(|l| l.at as usize == k);
            let end = match look {
                Some(l) => k + l.count as usize,
                None if k < b.len() => k + 1,
                None => break,
            };
            looks += look.is_some() as usize;
            self.tex.epoch_at(b, &mut epochs, k);
            let area = (b.drawn[k..end].iter()).fold(TileSet::EMPTY, |a, &t| a.union(t));
            self.tex.feedback_write(&self.images.vram, area);
            self.draw_alone(b, k..end, look, Some(&mut *watch));
            k = end;
        }
        self.tex.epoch_at(b, &mut epochs, usize::MAX);
        self.cluts.clear();
        self.tex.batch_drawn();
    }

    /// Draws the pending batch, in bands on the pool when its plan has more than one, and
    /// begins an empty one.
    fn draw_pending(&mut self, exec: &Exec) {
        if self.pending.is_empty() {
            return;
        }
        self.tex.before_batch(&self.images.vram);
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
        self.tex.batch_drawn();
    }
}

/// What the pixel history watches: told, as [`Canvas::draw_watched`] draws, of each primitive
/// and of each pixel it covers.
pub(crate) trait Watch {
    /// The next primitive is triangle `half` of its quad (0 for any other primitive).
    fn primitive(&mut self, half: u8);
    /// The index of the command being drawn among GP0 commands.
    fn command(&self) -> u64;
    /// The primitive covered VRAM halfword `at`, which held `before`: it computed `hit`
    /// there, its texel (if any) read from `source`.
    fn pixel(&mut self, at: usize, before: u16, hit: Hit, source: Option<TexelSource>);
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
