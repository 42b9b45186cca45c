//! VRAM and the texture snapshot, at hand or with a batch drawing in the background.
//!
//! A batch heavy enough for several threads is handed, with the images it draws into, to a
//! rayon pool ([`pool`]): the pool draws its bands ([`crate::raster::bands::plan`], a pure
//! function of the batch's load estimate and the thread count) while the caller goes on with
//! the front end of the next batch. Ownership moves with the work: the job owns VRAM and the
//! batch until it hands them back through a [`Slot`], and shares the snapshot (read-only) with
//! the caller through an `Arc`, so no `unsafe` is needed and no band can outlive what it draws.
//!
//! Whatever must write the images or read VRAM — a transfer, a read of VRAM, a texture tile
//! not yet in the snapshot, the next batch's turn to draw — first waits for that batch
//! ([`Canvas::wait`]). So at most one batch draws in the background and batches draw in
//! command order, each seeing exactly what it would see drawn one after the other. Waiting
//! sleeps on a condition variable; nothing spins. A panic while drawing is caught in the job
//! and raised again on the caller's thread when it waits: a rasteriser bug is a panic, never a
//! hang.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};

use rayon::prelude::*;
use rayon::ThreadPool;

use crate::raster::batch::Batch;
use crate::raster::texcache::{Access, Images};
use crate::raster::Band;
use crate::{VramImage, VRAM_WIDTH};

/// Draws a batch's primitives clipped to a band of rows, sampling the snapshot.
pub(crate) type DrawRows = dyn Fn(&Batch, Band, &VramImage) + Send + Sync;

/// The most threads a pool is given: a larger [`crate::Threads::Pool`] is taken as this many
/// (beyond VRAM's 32 load bands no batch has more bands to share out).
pub const MAX_THREADS: usize = 256;

/// What a batch drawn in the background gives back: VRAM, the batch (its allocations are
/// reused) and the panic that stopped the drawing, if one did.
struct Done {
    vram: Box<VramImage>,
    batch: Batch,
    panic: Option<Box<dyn Any + Send>>,
}

/// Where the job leaves [`Done`] and wakes the caller.
#[derive(Default)]
struct Slot {
    done: Mutex<Option<Done>>,
    wake: Condvar,
}

impl Slot {
    fn put(&self, done: Done) {
        *self.done.lock().unwrap_or_else(PoisonError::into_inner) = Some(done);
        self.wake.notify_one();
    }

    /// Sleeps until the job has put its [`Done`], and takes it.
    fn take(&self) -> Done {
        let mut d = self.done.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match d.take() {
                Some(done) => return done,
                None => d = self.wake.wait(d).unwrap_or_else(PoisonError::into_inner),
            }
        }
    }
}

/// A batch drawing in the background: where it will hand back its work, and the snapshot it
/// samples (shared, read-only, with the front end meanwhile).
struct Away {
    slot: Arc<Slot>,
    /// The `Box` the images hold, shared as it is: no megabyte is copied in or out.
    #[allow(clippy::redundant_allocation)]
    snapshot: Arc<Box<VramImage>>,
}

/// The images, and the batch drawing in the background if any.
pub(crate) struct Canvas {
    /// The images, when no batch holds them.
    here: Option<Images>,
    /// The batch drawing in the background.
    away: Option<Away>,
    /// A drawn batch's vectors, reused by the next batch lent.
    spare: Batch,
}

impl Default for Canvas {
    fn default() -> Self {
        Canvas {
            here: Some(Images::default()),
            away: None,
            spare: Batch::default(),
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
            (None, Some(away)) => Access::Away(&away.snapshot),
            (None, None) => unreachable!("the images are here when no batch is away"),
        }
    }

    /// Finishes the batch drawing in the background, if any: sleeps until the pool has drawn
    /// it, and raises here a panic that stopped it.
    pub fn wait(&mut self) {
        let Some(away) = self.away.take() else {
            return;
        };
        let Done {
            vram,
            mut batch,
            panic,
        } = away.slot.take();
        // The job dropped its handle on the snapshot before handing back the rest, so this one
        // is the last.
        let snapshot = Arc::try_unwrap(away.snapshot).unwrap_or_else(|shared| Box::new(**shared));
        batch.clear_primitives();
        batch.cluts.clear();
        self.here = Some(Images { vram, snapshot });
        self.spare = batch;
        if let Some(p) = panic {
            panic::resume_unwind(p);
        }
    }

    /// Hands `batch` to `pool` to be drawn in the bands `edges` (rows where each band begins,
    /// then the end) with `draw`, and leaves an empty batch in `batch`. The batch before, if
    /// any, is waited for first.
    pub fn lend(
        &mut self,
        batch: &mut Batch,
        pool: &ThreadPool,
        edges: Vec<usize>,
        draw: Box<DrawRows>,
    ) {
        self.wait();
        let Images { vram, snapshot } = self
            .here
            .take()
            .expect("the images are here when no batch is away");
        let batch = std::mem::replace(batch, std::mem::take(&mut self.spare));
        let snapshot = Arc::new(snapshot);
        let slot = Arc::new(Slot::default());
        let (job_slot, job_snapshot) = (Arc::clone(&slot), Arc::clone(&snapshot));
        pool.spawn(move || {
            let mut vram = vram;
            let drawn = panic::catch_unwind(AssertUnwindSafe(|| {
                let mut rest: &mut [u16] = &mut vram[..];
                let mut rows = Vec::with_capacity(edges.len());
                for pair in edges.windows(2) {
                    let (band, tail) = rest.split_at_mut((pair[1] - pair[0]) * VRAM_WIDTH);
                    rows.push(Band::new(band, pair[0], pair[1]));
                    rest = tail;
                }
                rows.into_par_iter()
                    .with_max_len(1)
                    .for_each(|band| draw(&batch, band, &job_snapshot));
            }));
            drop(job_snapshot);
            job_slot.put(Done {
                vram,
                batch,
                panic: drawn.err(),
            });
        });
        self.away = Some(Away { slot, snapshot });
    }
}

impl Drop for Canvas {
    /// A GPU dropped with a batch away waits for it (the pool's threads outlive the GPU); a
    /// panic in that batch is dropped with it rather than raised while dropping.
    fn drop(&mut self) {
        if let Some(away) = self.away.take() {
            drop(away.slot.take());
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
    use crate::raster::bands::plan;

    /// A band that panics while drawing in the background: the panic reaches the caller when
    /// it next needs the images, and the canvas is usable again afterwards.
    #[test]
    fn a_panic_in_a_band_reaches_the_caller() {
        let pool = pool(3).expect("threads");
        let mut canvas = Canvas::default();
        let mut batch = Batch::default();
        let load = [20_000u32; crate::raster::batch::BANDS];
        let edges = plan(&load, 3);
        assert!(edges.len() > 2, "several bands");
        let boom: Box<DrawRows> = Box::new(|_, band, _| {
            if band.y0 > 0 {
                panic!("injected in the band from row {}", band.y0);
            }
            band.rows.fill(7);
        });
        canvas.lend(&mut batch, &pool, edges, boom);
        let caught = panic::catch_unwind(AssertUnwindSafe(|| canvas.wait()));
        let msg = caught.expect_err("the panic is raised on the caller");
        let msg = msg.downcast_ref::<String>().expect("a message");
        assert!(msg.starts_with("injected in the band from row"), "{msg}");
        // The images came back and the next batch draws.
        let edges = plan(&load, 3);
        let fill: Box<DrawRows> = Box::new(|_, band, _| band.rows.fill(9));
        canvas.lend(&mut batch, &pool, edges, fill);
        assert!(canvas.images().vram.iter().all(|&h| h == 9));
    }

    /// A GPU's canvas dropped with a batch away waits for it, even one that panicked.
    #[test]
    fn a_canvas_dropped_with_a_batch_away_finishes_it() {
        let pool = pool(2).expect("threads");
        let mut canvas = Canvas::default();
        let load = [1u32; crate::raster::batch::BANDS];
        let boom: Box<DrawRows> = Box::new(|_, _, _| panic!("injected"));
        canvas.lend(&mut Batch::default(), &pool, plan(&load, 2), boom);
        drop(canvas);
    }
}
