//! VRAM and the texture snapshot, at hand or shared with a batch drawing in the background.
//!
//! A batch heavy enough for several threads is cut into bands of rows of about equal estimated
//! load ([`edges`]). A helper (a pool thread, itself spreading over its pool's threads) claims
//! bands from the bottom; the caller claims bands from the top until it has drawn its share,
//! then goes on queueing the next batch while the helper draws. When the caller next needs the
//! images it first draws the bands nobody has claimed yet, and sleeps only for bands being
//! drawn. So the front end (packets, drawing state, texture look-ups, culling) of one batch
//! overlaps the drawing of the one before, the caller draws from the batch it has just written
//! (still in its cache), and neither thread idles while the other has bands left. The caller's
//! share follows measured times ([`Balance`]); who draws a band changes only the speed, never
//! the pixels ([`crate::raster::bands`]: every band draws the batch in command order).
//!
//! While a batch draws in the background it holds the [`Images`] (the VRAM it writes, the
//! snapshot it samples); the front end works on what it owns (the drawing state, the texture
//! cache's tile sets, the next batch), and whatever must read or write the images — a
//! transfer, a read of VRAM, a texture tile not yet in the snapshot, the next batch's turn to
//! draw — first finishes that batch ([`Canvas::wait`]). So at most one batch draws in the
//! background and batches draw in command order, each seeing exactly what it would see drawn
//! one after the other.
//!
//! Waiting sleeps on a condition variable until the helper is done; nothing spins.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Instant;

use crate::raster::bands::{edges, BANDS_PER_THREAD};
use crate::raster::batch::{Batch, BAND_ROWS};
use crate::raster::texcache::{Access, Images};
use crate::raster::Band;
use crate::{VramImage, VRAM_HEIGHT, VRAM_WIDTH};

/// Draws a batch's primitives clipped to a band of rows, sampling the snapshot.
pub(crate) type DrawRows = dyn Fn(&Batch, Band, &VramImage) + Send + Sync;

/// What a batch drawing in the background holds, at a fixed address until it is drawn.
struct Lent {
    images: Images,
    batch: Batch,
}

/// What the caller and the helper share while a batch draws: the bands, which is claimed,
/// and where the helper reports.
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
    /// the top, the helper from the bottom.
    unclaimed: AtomicU32,
    draw: Box<DrawRows>,
    /// Set by the helper once it has drawn its last band: the seconds it drew and the load.
    done: Mutex<Option<(f64, u64)>>,
    wake: Condvar,
}

// SAFETY: the pointers reach memory the caller keeps alive until the helper reports done.
// The snapshot and the batch are only read until then; VRAM is written only band by band,
// each band's rows by whoever claimed it (`Shared::claim` hands each band out once).
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    /// Claims the next unclaimed band from the top (the caller) or the bottom (the helper).
    fn claim(&self, top: bool) -> Option<usize> {
        let mut cur = self.unclaimed.load(Ordering::Acquire);
        loop {
            let (lo, hi) = (cur & 0xffff, cur >> 16);
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
}

/// A lent batch: the [`Lent`] the helper reads through [`Shared`], and what the caller has
/// drawn of it.
struct Away {
    lent: *mut Lent,
    shared: Arc<Shared>,
    /// Seconds the caller has drawn and the load it drew.
    here: (f64, u64),
}

// SAFETY: `Away` is the caller's handle on a `Lent` it boxed; it takes it back only after the
// helper has reported done.
unsafe impl Send for Away {}

impl Away {
    /// Draws unclaimed bands from the top, while `more` says so.
    fn draw_here(&mut self, mut more: impl FnMut(u64) -> bool) {
        let start = Instant::now();
        while more(self.here.1) {
            match self.shared.claim(true) {
                Some(band) => self.here.1 += self.shared.draw(band),
                None => break,
            }
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

    /// Finishes the batch drawing in the background, if any: draws the bands nobody has
    /// claimed yet, then sleeps until the helper has drawn its last one.
    pub fn wait(&mut self) {
        let Some(mut away) = self.away.take() else {
            return;
        };
        let start = Instant::now();
        away.draw_here(|_| true);
        let mut slot = (away.shared.done.lock()).unwrap_or_else(PoisonError::into_inner);
        let (away_secs, away_load) = loop {
            match slot.take() {
                Some(done) => break done,
                None => {
                    slot = (away.shared.wake.wait(slot)).unwrap_or_else(PoisonError::into_inner)
                }
            }
        };
        drop(slot);
        self.balance.waited += start.elapsed().as_secs_f64();
        self.balance.drawn(away.here, (away_secs, away_load));
        drop(away.shared);
        // SAFETY: the helper has reported done, after its last use of `Shared`'s pointers;
        // `lent` came from `Box::into_raw` in `lend` and is taken back once.
        let Lent { images, mut batch } = *unsafe { Box::from_raw(away.lent) };
        batch.clear_primitives();
        batch.cluts.clear();
        self.here = Some(images);
        self.spare = batch;
    }

    /// Draws `batch`, which holds enough work for `helpers` + 1 threads, with `draw`, and
    /// leaves an empty batch in `batch`: waits for the batch before it, cuts the rows into
    /// bands, has a thread `spawn` provides draw bands from the bottom (on `helpers`
    /// threads), and draws bands from the top here until this thread's share is drawn. The
    /// rest is drawn in the background, or here when [`Canvas::wait`] finds bands left.
    pub fn lend<S>(&mut self, batch: &mut Batch, helpers: usize, spawn: S, draw: Box<DrawRows>)
    where
        S: FnOnce(Box<dyn FnOnce() + Send>),
    {
        self.balance.front_end_done();
        self.wait();
        let images = self
            .here
            .take()
            .expect("the images are here when no batch is away");
        let batch = std::mem::replace(batch, std::mem::take(&mut self.spare));
        let share = self.balance.share(batch.load(), helpers);
        let at = edges(
            &batch.load,
            0..VRAM_HEIGHT,
            (helpers + 1) * BANDS_PER_THREAD,
        );
        let loads: Vec<u64> = (at.windows(2))
            .map(|w| {
                let rows = w[0] / BAND_ROWS..w[1] / BAND_ROWS;
                let load = batch.load.get(rows).unwrap_or_default();
                load.iter().map(|&l| l as u64).sum()
            })
            .collect();
        let target = (batch.load() as f64 * share) as u64;
        let bands = loads.len() as u32;
        let lent = Box::into_raw(Box::new(Lent { images, batch }));
        // SAFETY: `lent` is a live box; from here until the helper reports done it is reached
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
            done: Mutex::new(None),
            wake: Condvar::new(),
        });
        let helper = Arc::clone(&shared);
        spawn(Box::new(move || {
            let start = Instant::now();
            let one = || {
                let mut load = 0;
                while let Some(band) = helper.claim(false) {
                    load += helper.draw(band);
                }
                load
            };
            let load = match helpers {
                0 | 1 => one(),
                n => {
                    use rayon::prelude::*;
                    (0..n).into_par_iter().with_max_len(1).map(|_| one()).sum()
                }
            };
            *helper.done.lock().unwrap_or_else(PoisonError::into_inner) =
                Some((start.elapsed().as_secs_f64(), load));
            helper.wake.notify_one();
        }));
        let away = self.away.insert(Away {
            lent,
            shared,
            here: (0.0, 0),
        });
        // Claim a band while what this thread has drawn stays under its share.
        away.draw_here(|drawn| drawn < target);
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
/// its share `a` of a batch of load `L` and then the front end of the next batch (`F`),
/// against the helper drawing the rest: `a·L·c + F = (1 − a)·L·h` with `c` and `h` the
/// seconds per unit of load of the caller and of the helper (all its threads), so
/// `a = (L·h − F) / (L·(c + h))`. Each is measured apart, as the two may run on cores of
/// different speeds; `c`, `h` and `F` are smoothed over earlier batches. A misjudged share
/// costs little: whichever side is done first draws the other's unclaimed bands.
#[derive(Debug, Default)]
struct Balance {
    /// Seconds per unit of estimated load of the caller and of the helper, once measured.
    here: Option<f64>,
    away: Option<f64>,
    /// Seconds the caller spends on the front end per lent batch.
    front: f64,
    /// When the caller went back to the front end.
    since: Option<Instant>,
    /// Seconds the caller has spent in [`Canvas::wait`] since then (drawing bands left over
    /// and sleeping): not front-end time.
    waited: f64,
}

/// Weight of the newest measurement in the smoothed ones.
const SMOOTHING: f64 = 0.25;

/// `old` smoothed with `sample`, or `sample` when nothing was measured before.
fn smooth(old: Option<f64>, sample: f64) -> f64 {
    old.map_or(sample, |o| o + SMOOTHING * (sample - o))
}

impl Balance {
    /// The caller's share of a batch of `load` drawn with `helpers` helper threads: an equal
    /// share per thread until both sides have been measured.
    fn share(&self, load: u64, helpers: usize) -> f64 {
        let (Some(c), Some(h)) = (self.here, self.away) else {
            return 1.0 / (helpers + 1) as f64;
        };
        let load = load as f64;
        if load * (c + h) <= 0.0 {
            return 1.0 / (helpers + 1) as f64;
        }
        ((load * h - self.front) / (load * (c + h))).clamp(0.0, 1.0)
    }

    /// A batch was drawn: the caller's seconds and load, then the helper's.
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

    /// The caller ends a batch: its front end since the last one is measured.
    fn front_end_done(&mut self) {
        if let Some(since) = self.since.take() {
            let sample = (since.elapsed().as_secs_f64() - self.waited).max(0.0);
            self.front = smooth(Some(self.front), sample);
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
                draw: Box::new(|_, _, _| {}),
                done: Mutex::new(None),
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

    /// The caller's share evens out the two sides' times, its front end counted on its side.
    #[test]
    fn the_share_evens_out_measured_times() {
        let mut b = Balance::default();
        assert_eq!(b.share(1000, 1), 0.5, "equal until measured");
        assert_eq!(b.share(1000, 3), 0.25);
        // Both sides 1 µs per unit; a front end of 0.2 ms per batch of 1000 units (1 ms).
        b.drawn((0.5e-3, 500), (0.5e-3, 500));
        b.front = 0.2e-3;
        assert!((b.share(1000, 1) - 0.4).abs() < 1e-9);
        // A helper twice as slow: a·1 + 0.2 = (1 − a)·2, so a = 0.6.
        b.away = Some(2e-6);
        assert!((b.share(1000, 1) - 0.6).abs() < 1e-9);
        // A front end longer than the helper's whole batch: the caller draws nothing at first.
        b.front = 5e-3;
        assert_eq!(b.share(1000, 1), 0.0);
    }
}
