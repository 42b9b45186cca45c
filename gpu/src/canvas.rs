//! VRAM and the texture snapshot, at hand or shared with a batch drawing in the background.
//!
//! A batch heavy enough for several threads is cut at a row into the caller's share, at the
//! top, and bands of about equal estimated load below it for the helper threads ([`Crew`]).
//! The helpers claim bands from the bottom; the caller draws its share, then goes on queueing
//! the next batch while they draw. When the caller next needs the images it first draws the
//! bands nobody has claimed yet, and sleeps only for bands being drawn; a batch that fills up
//! while the helpers are still drawing grows on instead, up to a cap
//! ([`Canvas::helpers_drawing`]), so the caller seldom sleeps at all. So the front end
//! (packets, drawing state, texture look-ups, culling) of one batch overlaps the drawing of
//! the one before, the caller draws from the batch it has just written (still in its cache),
//! each thread draws about the same rows batch after batch (still in its cache too), and no
//! thread idles while another has bands left. The caller's share follows measured times
//! ([`Balance`]); who draws a band changes only the speed, never the pixels
//! ([`crate::raster::bands`]: every band draws the batch in command order).
//!
//! While a batch draws in the background it holds the [`Images`] (the VRAM it writes, the
//! snapshot it samples); the front end works on what it owns (the drawing state, the texture
//! cache's tile sets, the next batch) and may read the snapshot, which the batch only reads.
//! Whatever must write the images or read VRAM — a transfer, a read of VRAM, a texture tile
//! not yet in the snapshot, the next batch's turn to draw — first finishes that batch
//! ([`Canvas::wait`]). So at most one batch draws in the background and batches draw in
//! command order, each seeing exactly what it would see drawn one after the other.
//!
//! Waiting sleeps on a condition variable until the last band is drawn; nothing spins.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Instant;

use crate::crew::Crew;
use crate::raster::bands::{edges, split_at};
use crate::raster::batch::{Batch, BAND_ROWS};
use crate::raster::texcache::{Access, Images};
use crate::raster::Band;
use crate::{VramImage, VRAM_HEIGHT, VRAM_WIDTH};

/// Bands per helper thread. One: every cut sets up the triangles across it twice, and has a
/// helper read them from the caller's core; a late helper's whole band is still the caller's
/// to take while unclaimed, and a batch that fills up while the helpers draw grows on rather
/// than wait for them.
const HELPER_BANDS: usize = 1;

/// Draws a batch's primitives clipped to a band of rows, sampling the snapshot.
pub(crate) type DrawRows = dyn Fn(&Batch, Band, &VramImage) + Send + Sync;

/// What a batch drawing in the background holds, at a fixed address until it is drawn.
struct Lent {
    images: Images,
    batch: Batch,
}

/// What the caller and the helpers share while a batch draws: the bands, which are claimed,
/// and how many are drawn.
struct Shared {
    /// VRAM's first halfword, the snapshot and the batch, inside the [`Lent`].
    vram: *mut u16,
    snapshot: *const VramImage,
    batch: *const Batch,
    /// The rows where each band begins, then `VRAM_HEIGHT`.
    edges: Vec<usize>,
    /// Estimated load of each band.
    loads: Vec<u64>,
    /// Bands nobody has claimed: `lo..hi`, packed `lo | hi << 16`. The caller claims from
    /// the top, the helpers from the bottom.
    unclaimed: AtomicU32,
    /// Bands not drawn yet; changed only with `progress` locked.
    left: AtomicUsize,
    draw: Box<DrawRows>,
    /// When the batch was lent.
    lent_at: Instant,
    progress: Mutex<Progress>,
    /// Signalled when the last band is drawn.
    wake: Condvar,
}

/// How far a lent batch is drawn.
#[derive(Debug, Default)]
struct Progress {
    /// Seconds from the lending to the helpers' last band, and the load they drew.
    helpers: (f64, u64),
}

// SAFETY: the pointers reach memory the caller keeps alive until every band is drawn.
// The snapshot and the batch are only read until then; VRAM is written only band by band,
// each band's rows by whoever claimed it (`Shared::claim` hands each band out once).
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

/// The unclaimed bands `lo..hi` of a packed [`Shared::unclaimed`].
fn unpack(unclaimed: u32) -> (u32, u32) {
    (unclaimed & 0xffff, unclaimed >> 16)
}

impl Shared {
    /// Claims the next unclaimed band from the top (the caller) or the bottom (the helper).
    fn claim(&self, top: bool) -> Option<usize> {
        let mut cur = self.unclaimed.load(Ordering::Acquire);
        loop {
            let (lo, hi) = unpack(cur);
            if lo >= hi {
                return None;
            }
            let (next, band) = match top {
                true => (cur + 1, lo),
                false => (cur - (1 << 16), hi - 1),
            };
            match (self.unclaimed).compare_exchange_weak(
                cur,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Some(band as usize),
                Err(now) => cur = now,
            }
        }
    }

    /// Draws a band this thread has claimed; returns its load.
    fn draw(&self, band: usize) -> u64 {
        let (y0, y1) = (self.edges[band], self.edges[band + 1]);
        // SAFETY: see `Shared`: a claimed band's rows are its claimer's alone, and they lie
        // inside VRAM (`edges` runs from 0 to VRAM_HEIGHT).
        let (rows, snapshot, batch) = unsafe {
            (
                std::slice::from_raw_parts_mut(
                    self.vram.add(y0 * VRAM_WIDTH),
                    (y1 - y0) * VRAM_WIDTH,
                ),
                &*self.snapshot,
                &*self.batch,
            )
        };
        (self.draw)(batch, Band::new(rows, y0, y1), snapshot);
        self.loads[band]
    }

    /// A band of `load` is drawn, by a helper or the caller.
    fn drawn(&self, load: u64, helper: bool) {
        let mut p = self.progress.lock().unwrap_or_else(PoisonError::into_inner);
        if helper {
            p.helpers = (self.lent_at.elapsed().as_secs_f64(), p.helpers.1 + load);
        }
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.wake.notify_one();
        }
    }
}

/// A lent batch: the [`Lent`] the helpers read through [`Shared`], and what the caller has
/// drawn of it.
struct Away {
    lent: *mut Lent,
    shared: Arc<Shared>,
    /// Seconds the caller has drawn and the load it drew.
    here: (f64, u64),
}

// SAFETY: `Away` is the caller's handle on a `Lent` it boxed; it takes it back only once
// every band is drawn.
unsafe impl Send for Away {}

impl Away {
    /// Draws up to `bands` unclaimed bands from the top.
    fn draw_here(&mut self, bands: usize) {
        let start = Instant::now();
        for _ in 0..bands {
            let Some(band) = self.shared.claim(true) else {
                break;
            };
            let load = self.shared.draw(band);
            self.here.1 += load;
            self.shared.drawn(load, false);
        }
        self.here.0 += start.elapsed().as_secs_f64();
    }
}

/// The images, and the batch drawing in the background if any.
pub(crate) struct Canvas {
    /// The images, when no batch holds them.
    here: Option<Images>,
    /// The batch drawing in the background.
    away: Option<Away>,
    /// A drawn batch's vectors, reused by the next batch lent.
    spare: Batch,
    balance: Balance,
}

impl Default for Canvas {
    fn default() -> Self {
        Canvas {
            here: Some(Images::default()),
            away: None,
            spare: Batch::default(),
            balance: Balance::default(),
        }
    }
}

impl Canvas {
    /// The images, once the batch drawing in the background (if any) is done.
    pub fn images(&mut self) -> &mut Images {
        self.wait();
        self.here
            .as_mut()
            .expect("the images are here when no batch is away")
    }

    /// The images if no batch is drawing in the background, else the snapshot it samples.
    pub fn access(&mut self) -> Access<'_> {
        match (&mut self.here, &self.away) {
            (Some(images), _) => Access::Here(images),
            // SAFETY: the snapshot stays where it is and is only read until the batch away is
            // taken back (`Canvas::wait`, which the borrow of `self` rules out meanwhile); the
            // helper only reads it too (see `Shared`).
            (None, Some(away)) => Access::Away(unsafe { &*away.shared.snapshot }),
            (None, None) => unreachable!("the images are here when no batch is away"),
        }
    }

    /// Whether the batch drawing in the background, if any, has every band claimed and some
    /// not drawn yet, so that [`Canvas::wait`] would only sleep (bands the caller claims it
    /// draws before returning, so those still being drawn are the helpers').
    pub fn helpers_drawing(&self) -> bool {
        self.away.as_ref().is_some_and(|a| {
            let (lo, hi) = unpack(a.shared.unclaimed.load(Ordering::Acquire));
            lo >= hi && a.shared.left.load(Ordering::Acquire) > 0
        })
    }

    /// Finishes the batch drawing in the background, if any: draws the bands nobody has
    /// claimed yet, then sleeps until the helpers have drawn theirs.
    pub fn wait(&mut self) {
        let Some(mut away) = self.away.take() else {
            return;
        };
        let start = Instant::now();
        away.draw_here(usize::MAX);
        let mut p = (away.shared.progress.lock()).unwrap_or_else(PoisonError::into_inner);
        while away.shared.left.load(Ordering::Acquire) > 0 {
            p = (away.shared.wake.wait(p)).unwrap_or_else(PoisonError::into_inner);
        }
        let helpers = p.helpers;
        drop(p);
        self.balance.waited += start.elapsed().as_secs_f64();
        self.balance.drawn(away.here, helpers);
        drop(away.shared);
        // SAFETY: every band is drawn, so no helper uses `Shared`'s pointers any more (a
        // helper that runs the job later finds no band to claim); `lent` came from
        // `Box::into_raw` in `lend` and is taken back once.
        let Lent { images, mut batch } = *unsafe { Box::from_raw(away.lent) };
        batch.clear_primitives();
        batch.cluts.clear();
        self.here = Some(images);
        self.spare = batch;
    }

    /// Draws `batch`, which holds enough work for the crew's threads and this one, with
    /// `draw`, and leaves an empty batch in `batch`: waits for the batch before it, cuts the
    /// rows into this thread's share at the top and bands for the crew below, wakes the crew
    /// to draw bands from the bottom and draws the share here. The rest is drawn in the
    /// background, or here when [`Canvas::wait`] finds bands left. `waiting`: the caller
    /// waits for this batch next, with no front end meanwhile.
    pub fn lend(&mut self, batch: &mut Batch, crew: &Crew, draw: Box<DrawRows>, waiting: bool) {
        let helpers = crew.len();
        self.balance.front_end_done(batch.load());
        self.wait();
        let images = self
            .here
            .take()
            .expect("the images are here when no batch is away");
        let batch = std::mem::replace(batch, std::mem::take(&mut self.spare));
        // The caller's share is one band from the top, the rest is cut for the helpers: the
        // caller draws about the same rows batch after batch (kept in its cache, as the
        // helpers' are in theirs), and fewer cuts mean fewer triangles set up twice.
        let share = self.balance.share(helpers, !waiting);
        let split = split_at(&batch.load, (batch.load() as f64 * share) as u64);
        let mut at = vec![0];
        at.extend(edges(
            &batch.load,
            split..VRAM_HEIGHT,
            helpers * HELPER_BANDS,
        ));
        at.dedup();
        let mine = usize::from(split > 0);
        let loads: Vec<u64> = (at.windows(2))
            .map(|w| {
                let rows = w[0] / BAND_ROWS..w[1] / BAND_ROWS;
                let load = batch.load.get(rows).unwrap_or_default();
                load.iter().map(|&l| l as u64).sum()
            })
            .collect();
        let bands = loads.len() as u32;
        let lent = Box::into_raw(Box::new(Lent { images, batch }));
        // SAFETY: `lent` is a live box; from here until every band is drawn it is reached
        // only through these pointers (see `Shared`).
        let (vram, snapshot, batch) = unsafe {
            (
                (*lent).images.vram.as_mut_ptr(),
                &raw const *(*lent).images.snapshot,
                &raw const (*lent).batch,
            )
        };
        let shared = Arc::new(Shared {
            vram,
            snapshot,
            batch,
            edges: at,
            loads,
            unclaimed: AtomicU32::new(bands << 16),
            draw,
            lent_at: Instant::now(),
            left: AtomicUsize::new(bands as usize),
            progress: Mutex::default(),
            wake: Condvar::new(),
        });
        let helper = Arc::clone(&shared);
        crew.run(Arc::new(move || {
            while let Some(band) = helper.claim(false) {
                let load = helper.draw(band);
                helper.drawn(load, true);
            }
        }));
        let away = self.away.insert(Away {
            lent,
            shared,
            here: (0.0, 0),
        });
        away.draw_here(mine);
        self.balance.front_end_starts();
    }
}

impl Drop for Canvas {
    /// No batch outlives the GPU that queued it.
    fn drop(&mut self) {
        self.wait();
    }
}

/// How much of a lent batch the caller draws. One cycle of the pipeline is the caller drawing
/// its share `a` of a batch of load `L` and then the front end of the next batch (`f` seconds
/// per unit of load queued, the next batch's load taken as `L`), against the helpers drawing
/// the rest: `a·L·c + f·L = (1 − a)·L·h` with `c` and `h` the seconds per unit of load of the
/// caller and of the helpers (all together), so `a = (h − f) / (c + h)`. Each is measured
/// apart, as the two may run on cores of different speeds; `c`, `h` and `f` are smoothed over
/// earlier batches. A share misjudged one way costs little: the caller, done first, queues on
/// (the batch grows while the helpers draw) or draws the helpers' unclaimed bands. The other
/// way the helpers wait idle for the next batch. A batch the caller waits for right away (a
/// flush) has no front end after it: `a = h / (c + h)`.
#[derive(Debug, Default)]
struct Balance {
    /// Seconds per unit of estimated load of the caller and of the helpers, once measured.
    here: Option<f64>,
    away: Option<f64>,
    /// Seconds the caller spends on the front end per unit of load queued, once measured.
    front: Option<f64>,
    /// When the caller went back to the front end.
    since: Option<Instant>,
    /// Seconds the caller has spent in [`Canvas::wait`] since then (drawing bands left over
    /// and sleeping): not front-end time.
    waited: f64,
}

/// The least share of a batch left to the helpers, as a fraction of an equal share per thread.
const HELPER_LEAST: f64 = 0.25;

/// Weight of the newest measurement in the smoothed ones.
const SMOOTHING: f64 = 0.25;

/// `old` smoothed with `sample`, or `sample` when nothing was measured before.
fn smooth(old: Option<f64>, sample: f64) -> f64 {
    old.map_or(sample, |o| o + SMOOTHING * (sample - o))
}

impl Balance {
    /// The caller's share of a batch drawn with `helpers` helper threads, its front end on
    /// the next batch counted when `front` (else it waits for the batch right after drawing
    /// its share): an equal share per thread until both sides have been measured.
    fn share(&self, helpers: usize, front: bool) -> f64 {
        let equal = 1.0 / (helpers + 1) as f64;
        let (Some(c), Some(h)) = (self.here, self.away) else {
            return equal;
        };
        if c + h <= 0.0 {
            return equal;
        }
        // The helpers keep some of every batch, or they would never be measured again.
        let most = 1.0 - HELPER_LEAST / (helpers + 1) as f64;
        let f = match front {
            true => self.front.unwrap_or(0.0),
            false => 0.0,
        };
        ((h - f) / (c + h)).clamp(0.0, most)
    }

    /// A batch was drawn: the caller's seconds and load, then the helpers'.
    fn drawn(&mut self, here: (f64, u64), away: (f64, u64)) {
        if here.1 > 0 {
            self.here = Some(smooth(self.here, here.0 / here.1 as f64));
        }
        if away.1 > 0 {
            self.away = Some(smooth(self.away, away.0 / away.1 as f64));
        }
    }

    /// The caller is back on the front end.
    fn front_end_starts(&mut self) {
        self.since = Some(Instant::now());
        self.waited = 0.0;
    }

    /// The caller ends a batch of `load`: its front end since the last one is measured.
    fn front_end_done(&mut self, load: u64) {
        if let Some(since) = self.since.take().filter(|_| load > 0) {
            let sample = (since.elapsed().as_secs_f64() - self.waited).max(0.0) / load as f64;
            self.front = Some(smooth(self.front, sample));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claimed from both ends by two threads at once, every band is handed out exactly once.
    #[test]
    fn each_band_is_claimed_once() {
        for bands in [0u32, 1, 2, 7, 64] {
            let shared = Shared {
                vram: std::ptr::null_mut(),
                snapshot: std::ptr::null(),
                batch: std::ptr::null(),
                edges: Vec::new(),
                loads: Vec::new(),
                unclaimed: AtomicU32::new(bands << 16),
                left: AtomicUsize::new(0),
                draw: Box::new(|_, _, _| {}),
                lent_at: Instant::now(),
                progress: Mutex::default(),
                wake: Condvar::new(),
            };
            let take = |top: bool| {
                let mut got = Vec::new();
                while let Some(b) = shared.claim(top) {
                    got.push(b);
                }
                got
            };
            let (mut top, bottom) = std::thread::scope(|s| {
                let bottom = s.spawn(|| take(false));
                (take(true), bottom.join().expect("no panic"))
            });
            assert!(
                top.windows(2).all(|w| w[0] < w[1]),
                "the top claims bands in increasing order"
            );
            assert!(
                bottom.windows(2).all(|w| w[0] > w[1]),
                "the bottom claims bands in decreasing order"
            );
            top.extend(bottom);
            top.sort_unstable();
            assert_eq!(
                top,
                (0..bands as usize).collect::<Vec<_>>(),
                "{bands} bands"
            );
        }
    }

    /// The caller's share evens out the two sides' times, its front end counted on its side
    /// unless it waits for the batch right away.
    #[test]
    fn the_share_evens_out_measured_times() {
        let mut b = Balance::default();
        assert_eq!(b.share(1, true), 0.5, "equal until measured");
        assert_eq!(b.share(3, true), 0.25);
        // Both sides 1 µs per unit; a front end of 0.2 µs per unit: a·1 + 0.2 = (1 − a)·1.
        b.drawn((0.5e-3, 500), (0.5e-3, 500));
        b.front = Some(0.2e-6);
        let near = |share: f64, a: f64| (share - a).abs() < 1e-9;
        assert!(near(b.share(1, true), 0.4));
        assert!(near(b.share(1, false), 0.5), "no front end after a flush");
        // A helper twice as slow: a·1 + 0.2 = (1 − a)·2, so a = 0.6.
        b.away = Some(2e-6);
        assert!(near(b.share(1, true), 0.6));
        assert!(near(b.share(1, false), 2.0 / 3.0));
        // A front end longer than the helper's whole batch: the caller draws nothing at first.
        b.front = Some(5e-6);
        assert_eq!(b.share(1, true), 0.0);
    }

    /// The front end is measured per unit of load queued, its time in `wait` left out.
    #[test]
    fn the_front_end_is_measured_per_unit_of_load() {
        let mut b = Balance::default();
        b.front_end_starts();
        std::thread::sleep(std::time::Duration::from_millis(2));
        b.front_end_done(0);
        assert_eq!(b.front, None, "an empty batch measures nothing");
        // At least 2 ms over 1000 units: at least 2 µs per unit.
        b.front_end_starts();
        std::thread::sleep(std::time::Duration::from_millis(2));
        b.front_end_done(1000);
        let f = b.front.expect("measured");
        assert!((2e-6..1e-3).contains(&f), "{f}");
        // All of it spent waiting: nothing is front end.
        let mut b = Balance::default();
        b.front_end_starts();
        std::thread::sleep(std::time::Duration::from_millis(2));
        b.waited = 1.0;
        b.front_end_done(1000);
        assert_eq!(b.front, Some(0.0));
    }
}
