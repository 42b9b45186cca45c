//! Where queued packets become pixels: the [`Stage`] (VRAM, the texture snapshot, texture
//! coherence, the batch being scanned), here or with a pool thread in the background.
//!
//! When the front end ends a queue of drawing packets ([`crate::prepare::Queue`]), the stage
//! runs it in three steps ([`Stage::run`]):
//! 1. **prepare** (parallel): chunks of packets are decoded into primitives, culled, and given
//!    their rows, tiles, load estimate and texture look-ups ([`crate::prepare`]);
//! 2. **scan** (serial, in command order): each look-up asks the texture cache for its texture
//!    ([`TexCache::texture`]: the CLUT cache, snapshot tiles, conflicts) and each primitive adds
//!    the tiles it may draw; a look-up that would sample what the pending batch may draw cuts
//!    the batch there, and the part before it is drawn first. On the pool, each chunk is
//!    scanned as soon as it is prepared, while the pool's other threads prepare the chunks
//!    after it ([`Stage::prepare_scan`]);
//! 3. **draw** (parallel): the batch's bands ([`bands::plan`], a pure function of the load,
//!    the primitives across each cut and the thread count) are drawn in shares, runs of
//!    adjacent bands ([`bands::Claims`]), by the pool's threads (and the caller, for a queue
//!    the caller prepared), a thread done early handed the lower half of another's rest;
//!    each pass draws, in command order, every primitive meeting its rows, so who draws which
//!    rows, in how many passes, never changes a pixel.
//!
//! With several threads, a queue long enough to pay ([`BACKGROUND_MIN_PACKETS`]) runs as a
//! job on the pool while the caller queues the next one: the stage moves into the job and back,
//! so the front end never touches it meanwhile and no `unsafe` is needed. The caller hands each
//! further queue to the running job through a [`Mailbox`] holding at most one: the job takes it
//! when it starts scanning the queue before, prepares it on the pool's other threads while it
//! scans (the one serial step), and runs it next without going back to the caller. The caller
//! sleeps only while a queue it handed over still waits; the job ends when none is waiting.
//! Whatever needs the stage — a transfer, a read of VRAM, a queue run differently — first waits
//! for the job to end ([`Canvas::wait`]), so queues run in command order. Waiting sleeps on a
//! condition variable; nothing spins. A panic in a job is caught and raised again on the
//! caller's thread when it waits: a rasteriser bug is a panic, never a hang.

use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rayon::ThreadPool;

use crate::prepare::{prepare_all, Preparing, Queue};

mod mailbox;
use crate::raster::bands;
use crate::raster::batch::{Batch, Kind, Look};
use crate::raster::feedback::TexelSource;
use crate::raster::span::Simd;
use crate::raster::texcache::{Images, TexCache};
use crate::raster::texture::{ClutRef, ClutTable};
use crate::raster::tiles::TileSet;
use crate::raster::{Band, Hit, Prim, TexSource};
use crate::VRAM_HEIGHT;
use mailbox::{Done, Mailbox};

/// The most threads a batch's bands are cut for: a larger [`crate::Threads::Pool`] is taken as
/// this many (beyond VRAM's 32 load bands no batch has more bands to share out). A pool never
/// has more threads than there are cores ([`crate::Gpu`]'s `exec`).
pub const MAX_THREADS: usize = 256;

/// Queued packets from which a queue runs in the background on several threads: a shorter one
/// (a frame's last few primitives before a read, a texture upload's neighbours) runs here,
/// where it costs no hand-over.
pub const BACKGROUND_MIN_PACKETS: usize = 256;

/// Queued packets from which a queue the caller runs is run on the pool (prepared there):
/// four full chunks' packets (1024), whose preparing (about a third of a millisecond of
/// work) outweighs waking the pool's threads for it.
pub const PARALLEL_PREPARE_PACKETS: usize = 4 * crate::prepare::CHUNK;

/// How a queue is run: the pool (none: serial; at most one thread per core), the thread count
/// the bands are cut for, the span kernel, and the least estimated load drawn in bands.
#[derive(Clone)]
pub(crate) struct Exec {
    pub pool: Option<Arc<ThreadPool>>,
    pub threads: usize,
    pub simd: Simd,
    pub min_load: u64,
    /// The calling thread (outside the pool) prepared the queue, so the batch is in its
    /// core's cache: it draws bands too, beside the pool's threads.
    pub caller_draws: bool,
    /// A row whose band panics while drawing: the tests' injected fault.
    #[cfg(test)]
    pub fault: Option<i32>,
}

/// VRAM, the snapshot, texture coherence and the batch being scanned.
#[derive(Default)]
pub(crate) struct Stage {
    pub images: Images,
    pub tex: TexCache,
    /// CLUTs the CLUT cache copied out for the pending batch, indexed by `ClutRef::Table`.
    pub cluts: Vec<ClutTable>,
    /// The pending batch: prepared chunks scanned, not yet drawn.
    pending: Vec<Batch>,
    /// Drawn chunks, kept for their allocations.
    spare: Vec<Batch>,
    /// The drawing-mode epoch the texture cache is at ([`crate::prepare::Snap::cache_epoch`]).
    epoch: u32,
}

/// Where the scan of a chunk stops before its end.
enum Cut {
    /// At this entry: its look-up conflicts with the pending batch.
    Conflict(usize),
    /// At this look-up: its primitives are drawn in order through the texture cache.
    InOrder(Look),
}

impl Stage {
    /// Prepares, scans and draws everything `queue` holds.
    ///
    /// From the caller's thread, only a queue of at least [`PARALLEL_PREPARE_PACKETS`] is run
    /// on the pool (prepared, scanned and drawn there: one hand-over each way), and only a heavy
    /// batch is drawn in bands: handing less to it costs more wake-ups than it saves. A heavy
    /// batch of a queue prepared here is drawn by the caller and the pool together
    /// ([`Exec::caller_draws`]).
    fn run(&mut self, queue: &Queue, exec: &Exec) {
        match &exec.pool {
            Some(pool) if queue.len() >= PARALLEL_PREPARE_PACKETS => pool.install(|| {
                self.prepare_scan(queue, exec);
                self.draw_pending(exec);
            }),
            _ => {
                let chunks = prepare_all(queue, false, &mut self.spare);
                let exec = Exec {
                    caller_draws: true,
                    ..exec.clone()
                };
                self.scan_all(chunks, &exec);
                self.draw_pending(&exec);
            }
        }
    }

    /// Runs `queue`, then every queue handed to `mail` while it runs, until none waits: each
    /// queue's chunks are prepared on the pool while the queue before it is scanned (which
    /// is serial), so the pool's other threads are not idle meanwhile; a queue with none
    /// before it is scanned as its chunks are prepared ([`Stage::prepare_scan`]). Returns the
    /// last queue run, for its allocations.
    fn run_posted(&mut self, mut queue: Queue, exec: &Exec, mail: &Mailbox) -> Queue {
        // The chunks of `queue`, if they were prepared while the queue before it was scanned.
        let mut chunks: Option<Vec<Batch>> = None;
        loop {
            let next = mail.take_waiting();
            // The spare batches `queue` may still need stay; the rest go to `next`.
            let keep = match chunks {
                Some(_) => 0,
                None => crate::prepare::chunks(queue.len()).count(),
            };
            let mut spare = self.spare.split_off(keep.min(self.spare.len()));
            let ready = chunks.take();
            let (_, prepared) = rayon::join(
                || match ready {
                    Some(ready) => self.scan_all(ready, exec),
                    None => self.prepare_scan(&queue, exec),
                },
                || next.as_ref().map(|q| prepare_all(q, true, &mut spare)),
            );
            self.spare.append(&mut spare);
            self.draw_pending(exec);
            let next = match next.zip(prepared) {
                Some((next, prepared)) => {
                    chunks = Some(prepared);
                    next
                }
                None => match mail.take_waiting_or_end() {
                    Some(next) => next,
                    None => return queue,
                },
            };
            let mut ran = std::mem::replace(&mut queue, next);
            ran.clear();
            mail.give_back(ran);
        }
    }

    /// Prepares and scans `queue` on the current pool: its other threads prepare the queue's
    /// chunks in command order while this thread scans each as it is ready, and prepares
    /// chunks itself while the next is not. So the scan, which is serial, overlaps the
    /// preparing rather than following it.
    fn prepare_scan(&mut self, queue: &Queue, exec: &Exec) {
        let preparing = Preparing::new(queue, &mut self.spare);
        let chunks = preparing.chunks();
        let helpers = (rayon::current_num_threads() - 1).min(chunks.saturating_sub(1));
        rayon::in_place_scope(|s| {
            for _ in 0..helpers {
                s.spawn(|_| preparing.help());
            }
            for k in 0..chunks {
                let b = preparing.take(k);
                self.scan(b, exec);
            }
        });
    }

    /// Scans prepared chunks in command order ([`Stage::scan`]).
    fn scan_all(&mut self, chunks: Vec<Batch>, exec: &Exec) {
        for b in chunks {
            self.scan(b, exec);
        }
    }

    /// Scans a prepared chunk in command order: each look-up gets its texture (its CLUT's
    /// place written into its primitives) and each primitive's tiles join the pending batch's
    /// and the texture cache's record of what was written. A look-up in conflict with the
    /// pending batch cuts the chunk there: what came before is drawn, and the scan goes on
    /// from the look-up. A look-up whose primitives must be drawn in order through the texture
    /// cache ([`in_order`](crate::raster::feedback::Feedback::in_order)) cuts it likewise, and they are drawn alone before the
    /// scan goes on after them.
    fn scan(&mut self, mut b: Batch, exec: &Exec) {
        loop {
            match self.scan_to_cut(&mut b) {
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
                    let clut = self.in_order_texture(&l);
                    for (k, e) in look.order.iter().enumerate() {
                        self.draw_in_order(
                            &look.prim(e),
                            look.drawn[k],
                            &clut,
                            None,
                            |_, _, _, _| {},
                        );
                    }
                    look.clear();
                    self.spare.push(look);
                }
            }
        }
    }

    /// Scans `b` up to the first look-up that cuts it, if any (see [`Stage::scan`]).
    fn scan_to_cut(&mut self, b: &mut Batch) -> Option<Cut> {
        let mut next = 0;
        let mut epochs = 0;
        for li in 0..b.looks.len() {
            let look = &b.looks[li];
            let (at, end) = (look.at as usize, (look.at + look.count) as usize);
            while next < at {
                self.epoch_at(b, &mut epochs, next);
                self.will_write(b.drawn[next]);
                next += 1;
            }
            self.epoch_at(b, &mut epochs, next);
            let area = (b.drawn[at..end].iter()).fold(TileSet::EMPTY, |a, &t| a.union(t));
            self.feedback_write(area);
            let sampled = look.sample.tiles;
            if end > at && self.tex.feedback.in_order(sampled) {
                return Some(Cut::InOrder(*look));
            }
            let got = (self.tex).texture(&mut self.images, &look.sample, &mut self.cluts);
            let Ok(clut) = got else {
                return Some(Cut::Conflict(at));
            };
            // Primitives are prepared with their CLUT in place: only a copied-out one is
            // written into them, so the scan mostly leaves them alone (they were written on
            // another thread and are next read where they are drawn).
            if clut != look.sample.clut_in_place() {
                set_clut(b, at..end, clut);
            }
            // A new epoch right after these primitives empties the cache before anything
            // could read their fetches from it: they need no log.
            let emptied = (b.epochs.get(epochs))
                .is_some_and(|&(e, epoch)| e as usize == end && epoch != self.epoch);
            for k in at..end {
                if !emptied {
                    self.tex.feedback.log(b.prim(&b.order[k]), sampled);
                }
                self.tex.will_draw(b.drawn[k]);
            }
            next = end;
        }
        while next < b.len() {
            self.epoch_at(b, &mut epochs, next);
            self.will_write(b.drawn[next]);
            next += 1;
        }
        self.epoch_at(b, &mut epochs, usize::MAX);
        None
    }

    /// Applies the texture cache epochs of `b` marked at or before entry `at` (`epochs`: how
    /// many of them are applied).
    #[inline]
    fn epoch_at(&mut self, b: &Batch, epochs: &mut usize, at: usize) {
        while let Some(&(e, epoch)) = b.epochs.get(*epochs) {
            if e as usize > at {
                return;
            }
            self.sync_epoch(epoch);
            *epochs += 1;
        }
    }

    /// The texture cache as of drawing-mode epoch `epoch`: emptied if it is a new one.
    pub fn sync_epoch(&mut self, epoch: u32) {
        if self.epoch != epoch {
            self.epoch = epoch;
            self.tex.feedback.empty();
        }
    }

    /// An untextured primitive of the pending batch may draw `tiles`.
    #[inline]
    fn will_write(&mut self, tiles: TileSet) {
        self.feedback_write(tiles);
        self.tex.will_draw(tiles);
    }

    /// `tiles` are about to be written (by a primitive, or a fill): the texture cache first
    /// takes in the fetches of the batches' textured primitives that read there, from VRAM
    /// as it is. That VRAM is final over what they read: the batch pending before each of
    /// them drew nothing there (else its look-up would have been a conflict), and everything
    /// after it that writes there comes here first.
    #[inline]
    pub fn feedback_write(&mut self, tiles: TileSet) {
        let f = &mut self.tex.feedback;
        if f.must_catch_up(tiles) {
            f.catch_up(&self.images.vram);
        }
        f.will_write(tiles);
    }

    /// The CLUT entries of look-up `l`, whose primitives are drawn in order (nothing is
    /// pending): the texture cache caught up first, as they read through it.
    fn in_order_texture(&mut self, l: &Look) -> Box<ClutTable> {
        debug_assert!(self.pending.is_empty());
        self.tex.feedback.catch_up(&self.images.vram);
        let got = self
            .tex
            .texture(&mut self.images, &l.sample, &mut self.cluts);
        let clut = got.expect("nothing is pending, so nothing conflicts");
        let src = TexSource {
            vram: &self.images.snapshot,
            cluts: &self.cluts,
        };
        Box::new(*clut.entries(src))
    }

    /// Draws `p`, which may draw `tiles`, alone, in the hardware's pixel order on VRAM
    /// ([`Feedback::draw`](crate::raster::feedback::Feedback::draw)), its texels read through the texture cache and its CLUT entries
    /// from `clut`; `seen` gets each pixel's VRAM index, its value before, what happened and
    /// where its texel came from.
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

    /// Draws the pending batch, in bands on the pool when it is heavy enough, and begins an
    /// empty one.
    fn draw_pending(&mut self, exec: &Exec) {
        if self.pending.is_empty() {
            return;
        }
        self.tex
            .before_write(&self.images.vram, self.tex.drawn_tiles());
        // The pending chunks' estimates, summed: the load per band, and the primitives across
        // each possible cut (for the plan).
        let mut load = vec![0u32; crate::raster::batch::BANDS];
        let mut crossings = [0; crate::raster::batch::BANDS];
        for b in &self.pending {
            for (sum, l) in load.iter_mut().zip(&b.load) {
                *sum = sum.saturating_add(*l);
            }
            b.add_crossings(&mut crossings);
        }
        let total: u64 = load.iter().map(|&l| l as u64).sum();
        let src = TexSource {
            vram: &self.images.snapshot,
            cluts: &self.cluts,
        };
        let (batch, simd) = (&self.pending[..], exec.simd);
        let vram = &mut self.images.vram[..];
        match &exec.pool {
            Some(pool) if total >= exec.min_load => {
                let edges = bands::plan(&load, &crossings, exec.threads);
                let takers = pool.current_num_threads().min(edges.len() - 1);
                let claims = bands::Claims::new(vram, &edges, takers);
                let draw_all = |me: usize| {
                    claims.draw(me, batch, src, simd, |_band| {
                        #[cfg(test)]
                        if let Some(y) = exec.fault.filter(|y| (_band.y0.._band.y1).contains(y)) {
                            panic!("injected in the band drawing row {y}");
                        }
                    })
                };
                // Every taker draws bands until none is left. Where the caller's thread
                // prepared the batch (its data is in the caller's cache), it draws too rather
                // than sleep until the pool's threads have woken and drawn everything, and goes
                // on drawing while they wake; else the pool's threads alone draw (a job's own
                // thread among them: `install` runs there in place).
                let share = || {
                    pool.in_place_scope(|s| {
                        for me in 1..takers {
                            s.spawn(move |_| draw_all(me));
                        }
                        draw_all(0);
                    })
                };
                if exec.caller_draws {
                    share();
                } else {
                    pool.install(share);
                }
            }
            _ => {
                let all = &mut Band::new(vram, 0, VRAM_HEIGHT);
                bands::draw(batch, all, src, simd);
            }
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
    /// history: a textured packet's through the texture cache ([`Stage::draw_in_order`], with
    /// the CLUT entries returned), an untextured one's by [`Stage::draw_one`].
    pub fn scan_alone(&mut self, b: &mut Batch, epoch: u32) -> Option<Box<ClutTable>> {
        debug_assert!(self.pending.is_empty());
        self.sync_epoch(epoch);
        let area = (b.drawn.iter()).fold(TileSet::EMPTY, |a, &t| a.union(t));
        self.feedback_write(area);
        let l = b.looks.first().copied()?;
        Some(self.in_order_texture(&l))
    }

    /// Draws one primitive of a packet scanned by [`Stage::scan_alone`], serially, keeping the
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

    /// The packet drawn by [`Stage::draw_one`] is done: its CLUT table goes.
    pub fn packet_drawn(&mut self) {
        self.cluts.clear();
        self.tex.batch_drawn();
    }
}

/// Writes where the CLUT entries are into entries `entries` of `b`.
fn set_clut(b: &mut Batch, entries: std::ops::Range<usize>, clut: ClutRef) {
    for e in &b.order[entries] {
        let i = e.index as usize;
        match e.kind {
            Kind::Triangle => b.triangles[i].set_clut(clut),
            Kind::Rect => b.rects[i].set_clut(clut),
            Kind::Line => {}
        }
    }
}

/// The stage, here or with a job in the background.
pub(crate) struct Canvas {
    /// The stage, when no job holds it.
    here: Option<Box<Stage>>,
    /// The job running in the background, and how it runs its queues.
    away: Option<(Arc<Mailbox>, Exec)>,
    /// A queue a job gave back, for the next.
    spare: Queue,
}

impl Default for Canvas {
    fn default() -> Self {
        Canvas {
            here: Some(Box::default()),
            away: None,
            spare: Queue::default(),
        }
    }
}

impl Canvas {
    /// The stage, once the job in the background (if any) is done.
    pub fn stage(&mut self) -> &mut Stage {
        self.wait();
        self.here
            .as_mut()
            .expect("the stage is here when no job is away")
    }

    /// VRAM and the snapshot, once the job in the background (if any) is done.
    pub fn images(&mut self) -> &mut Images {
        &mut self.stage().images
    }

    /// Finishes the job in the background, if any: sleeps until it is done, and raises here a
    /// panic that stopped it.
    pub fn wait(&mut self) {
        let Some((mail, _)) = self.away.take() else {
            return;
        };
        let Done {
            stage,
            mut queue,
            panic,
        } = mail.take();
        queue.clear();
        self.here = Some(stage);
        self.spare = queue;
        if let Some(p) = panic {
            panic::resume_unwind(p);
        }
    }

    /// Runs everything `queue` holds and leaves it empty: on the pool in the background when
    /// `exec` has one and the queue is long enough, while the caller goes on — handed to the
    /// job already running, which takes it when done with the one before (the caller sleeps
    /// only while an earlier queue still waits); else here, once the job (if any) is done.
    pub fn run(&mut self, queue: &mut Queue, exec: &Exec) {
        if queue.is_empty() {
            return;
        }
        let background = queue.len() >= BACKGROUND_MIN_PACKETS || exec.min_load == 0;
        if background && self.hand_over(queue, exec) {
            return;
        }
        self.wait();
        match &exec.pool {
            Some(pool) if background => {
                let mut stage = self.here.take().expect("the stage is here");
                let queue = std::mem::replace(queue, std::mem::take(&mut self.spare));
                let mail = Arc::new(Mailbox::default());
                let (theirs, exec_job) = (Arc::clone(&mail), exec.clone());
                pool.spawn(move || {
                    let mut last = Queue::default();
                    let ran = panic::catch_unwind(AssertUnwindSafe(|| {
                        last = stage.run_posted(queue, &exec_job, &theirs);
                    }));
                    theirs.put(Done {
                        stage,
                        queue: last,
                        panic: ran.err(),
                    });
                });
                self.away = Some((mail, exec.clone()));
            }
            _ => self.run_here(queue, exec),
        }
    }

    /// Runs everything `queue` holds and waits until it is drawn (a transfer, a read of VRAM
    /// or a setting change follows). With a job away, the queue is handed to it (it goes on
    /// without ending in between); else it runs here, on the caller's thread, since a job the
    /// caller waits for at once would only add a hand-over each way — unless `exec` asks for
    /// the pool whatever the load (`min_load` 0).
    pub fn finish(&mut self, queue: &mut Queue, exec: &Exec) {
        if exec.min_load == 0 {
            self.run(queue, exec);
        } else if !queue.is_empty() && !self.hand_over(queue, exec) {
            self.wait();
            self.run_here(queue, exec);
        }
        self.wait();
    }

    /// Hands `queue` to the job away, if there is one running queues as `exec` does and it
    /// still takes them; else leaves it untouched and returns false.
    fn hand_over(&mut self, queue: &mut Queue, exec: &Exec) -> bool {
        match &self.away {
            Some((mail, theirs)) => same_run(theirs, exec) && mail.hand_over(queue),
            None => false,
        }
    }

    /// Runs `queue` here, on the caller's thread (no job away), and empties it.
    fn run_here(&mut self, queue: &mut Queue, exec: &Exec) {
        let stage = self
            .here
            .as_mut()
            .expect("the stage is here when no job is away");
        stage.run(queue, exec);
        queue.clear();
    }
}

/// Whether queues run under `a` and `b` are run alike (same pool, threads, kernel and
/// least parallel load), so one job may run both.
fn same_run(a: &Exec, b: &Exec) -> bool {
    let pool = |e: &Exec| e.pool.as_ref().map(Arc::as_ptr);
    #[cfg(test)]
    if a.fault != b.fault {
        return false;
    }
    pool(a) == pool(b) && a.threads == b.threads && a.simd == b.simd && a.min_load == b.min_load
}

impl Drop for Canvas {
    /// A GPU dropped with a job away waits for it (the pool's threads outlive the GPU); a
    /// panic in that job is dropped with it rather than raised while dropping.
    fn drop(&mut self) {
        if let Some((mail, _)) = self.away.take() {
            drop(mail.take());
        }
    }
}

/// The process-wide pool of `threads` threads (at most [`MAX_THREADS`]), started at its first
/// use and kept for the process's life, so a program that makes GPU after GPU starts threads
/// once; `None` if the system refuses to start them (the caller then draws alone).
pub(crate) fn pool(threads: usize) -> Option<Arc<ThreadPool>> {
    type Pools = Mutex<Vec<(usize, Arc<ThreadPool>)>>;
    static POOLS: OnceLock<Pools> = OnceLock::new();
    let threads = threads.clamp(1, MAX_THREADS);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::VRAM_WIDTH;

    /// A queue of `n` 8×8 flat rectangles, one every 8 rows down VRAM's left column.
    fn rects(n: usize) -> Queue {
        let mut q = Queue::default();
        for i in 0..n {
            let y = (i * 8 % 512) as u32;
            q.push(&[0x7000_00ff, y << 16, 0], &Default::default());
        }
        q
    }

    fn exec(threads: usize, fault: Option<i32>) -> Exec {
        Exec {
            pool: pool(threads),
            threads,
            simd: Simd::best(),
            min_load: 0,
            caller_draws: false,
            fault,
        }
    }

    /// A panic in a band drawing in the background reaches the caller when it next needs the
    /// stage, and the stage works again afterwards; likewise in a batch run on the caller.
    #[test]
    fn a_panic_while_drawing_reaches_the_caller() {
        for n in [BACKGROUND_MIN_PACKETS, 3] {
            let mut canvas = Canvas::default();
            let mut q = rects(n);
            let mut fault = exec(3, Some(400));
            fault.min_load = (n < BACKGROUND_MIN_PACKETS) as u64;
            let caught = panic::catch_unwind(AssertUnwindSafe(|| {
                canvas.run(&mut q, &fault);
                canvas.wait();
            }));
            let msg = caught.expect_err("the panic is raised on the caller");
            let msg = msg.downcast_ref::<String>().expect("a message");
            assert_eq!(msg, "injected in the band drawing row 400", "{n} packets");
            // The stage came back, and the next queue draws.
            let mut q = rects(n);
            canvas.run(&mut q, &exec(3, None));
            assert_eq!(canvas.images().vram[0], 0x001f, "{n} packets");
        }
    }

    /// A batch the caller prepared is drawn in bands by the caller and the pool's threads
    /// together; a panic in any band, whichever thread drew it, reaches the caller, and the
    /// stage draws again afterwards.
    #[test]
    fn a_panic_in_a_band_drawn_beside_the_caller_reaches_it() {
        // 64 rectangles of 512×8 down VRAM: heavy enough for six bands at three threads, from
        // a queue short enough to be prepared and run on the caller.
        let all = || crate::prepare::Snap {
            state: crate::state::DrawState {
                area_br: 1023 | 511 << 10,
                ..Default::default()
            },
            ..Default::default()
        };
        let q = || {
            let mut q = Queue::default();
            for i in 0..64u32 {
                q.push(&[0x6000_00f8, (i * 8) << 16, 8 << 16 | 512], &all());
            }
            q
        };
        for row in [4, 200, 400, 508] {
            let mut canvas = Canvas::default();
            let mut fault = exec(3, Some(row));
            fault.min_load = 1;
            let caught = panic::catch_unwind(AssertUnwindSafe(|| {
                canvas.run(&mut q(), &fault);
                canvas.wait();
            }));
            let msg = caught.expect_err("the panic is raised on the caller");
            let msg = msg.downcast_ref::<String>().expect("a message");
            assert_eq!(*msg, format!("injected in the band drawing row {row}"));
            let mut ok = exec(3, None);
            ok.min_load = 1;
            canvas.run(&mut q(), &ok);
            let vram = &canvas.images().vram;
            assert!(
                (0..512).all(|y| vram[y * VRAM_WIDTH + 511] == 0x001f),
                "row {row}"
            );
        }
    }

    /// `n` 8×8 rectangles of colour `red` (0–31), from row `y0` down VRAM's left column.
    fn rects_at(n: usize, y0: u32, red: u32) -> Queue {
        let mut q = Queue::default();
        for i in 0..n as u32 {
            q.push(
                &[
                    0x6000_0000 | red << 3,
                    ((y0 + i * 8) % 512) << 16,
                    8 << 16 | 8,
                ],
                &Default::default(),
            );
        }
        q
    }

    /// Queues handed to a running job draw as they do one at a time on the caller: later
    /// queues over earlier ones, in order.
    #[test]
    fn queues_handed_to_a_running_job_draw_in_order() {
        let mut serial = Canvas::default();
        let mut pooled = Canvas::default();
        let alone = Exec {
            pool: None,
            ..exec(1, None)
        };
        let two = exec(2, None);
        for k in 0..12u32 {
            let red = 1 + k % 31;
            serial.run(&mut rects_at(BACKGROUND_MIN_PACKETS, k * 24, red), &alone);
            pooled.run(&mut rects_at(BACKGROUND_MIN_PACKETS, k * 24, red), &two);
        }
        assert!(pooled.away.is_some(), "the last queues are still away");
        assert!(serial.images().vram == pooled.images().vram);
        assert_eq!(
            pooled.images().vram[0],
            12,
            "the last queue drew row 0 last"
        );
    }

    /// A panic in a later queue (handed to the running job, or run by a new one if that one
    /// had ended) reaches the caller, and the stage draws again afterwards.
    #[test]
    fn a_panic_in_a_handed_over_queue_reaches_the_caller() {
        let mut canvas = Canvas::default();
        let fault = exec(2, Some(400));
        let caught = panic::catch_unwind(AssertUnwindSafe(|| {
            canvas.run(&mut rects_at(BACKGROUND_MIN_PACKETS / 8, 0, 1), &fault);
            canvas.run(&mut rects_at(BACKGROUND_MIN_PACKETS, 0, 2), &fault);
            canvas.wait();
        }));
        assert!(caught.is_err(), "the panic is raised on the caller");
        canvas.run(&mut rects(BACKGROUND_MIN_PACKETS), &exec(2, None));
        assert_eq!(canvas.images().vram[0], 0x001f);
    }

    /// A canvas dropped with a job away waits for it, even one that panicked.
    #[test]
    fn a_canvas_dropped_with_a_job_away_finishes_it() {
        let mut canvas = Canvas::default();
        canvas.run(&mut rects(BACKGROUND_MIN_PACKETS), &exec(2, Some(0)));
        assert!(canvas.away.is_some(), "the job runs in the background");
        drop(canvas);
    }
}
