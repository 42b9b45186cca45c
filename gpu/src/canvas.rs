//! VRAM and the texture snapshot, at hand or lent to a batch drawing in the background.
//!
//! A batch heavy enough for several threads is drawn on the thread pool while the caller goes
//! on queueing the next one, so the front end (packets, drawing state, texture look-ups,
//! culling) of one batch overlaps the drawing of the one before. While a batch draws, it owns
//! the [`Images`] (the VRAM it writes, the snapshot it samples) and its primitives; the front
//! end works on what it owns (the drawing state, the texture cache's tile sets, the next batch),
//! and whatever must read or write the images — a transfer, a read of VRAM, a texture tile not
//! yet in the snapshot, the next batch's turn to draw — first waits for that batch
//! ([`Canvas::images`]). So at most one batch draws in the background and batches draw in
//! command order, each seeing exactly what it would see drawn one after the other.
//!
//! Waiting sleeps on a condition variable until the batch's last band is done; nothing spins.

use std::sync::{Arc, Condvar, Mutex, PoisonError};

use crate::raster::batch::Batch;
use crate::raster::texcache::Images;

/// Where a background batch leaves the images and its emptied batch.
type Handoff = Arc<(Mutex<Option<(Images, Batch)>>, Condvar)>;

/// The images, and the batch drawing into them in the background if any.
pub(crate) struct Canvas {
    /// The images, when no batch holds them.
    here: Option<Images>,
    /// Where the batch drawing in the background hands them back.
    away: Option<Handoff>,
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

    /// The images if no batch is drawing in the background.
    pub fn idle(&mut self) -> Option<&mut Images> {
        self.here.as_mut()
    }

    /// Waits until no batch draws in the background.
    pub fn wait(&mut self) {
        let Some(handoff) = self.away.take() else {
            return;
        };
        let (lock, done) = &*handoff;
        let mut slot = lock.lock().unwrap_or_else(PoisonError::into_inner);
        let (images, batch) = loop {
            match slot.take() {
                Some(back) => break back,
                None => slot = done.wait(slot).unwrap_or_else(PoisonError::into_inner),
            }
        };
        self.here = Some(images);
        self.spare = batch;
    }

    /// Draws `batch` in the background: waits for the batch before it, hands `draw` the images
    /// and the batch on a thread `spawn` provides, and leaves an empty batch in `batch`.
    pub fn lend<S, D>(&mut self, batch: &mut Batch, spawn: S, draw: D)
    where
        S: FnOnce(Box<dyn FnOnce() + Send>),
        D: FnOnce(&Batch, &mut Images) + Send + 'static,
    {
        self.wait();
        let mut images = self
            .here
            .take()
            .expect("the images are here when no batch is away");
        let mut lent = std::mem::replace(batch, std::mem::take(&mut self.spare));
        let handoff: Handoff = Arc::default();
        self.away = Some(Arc::clone(&handoff));
        spawn(Box::new(move || {
            draw(&lent, &mut images);
            lent.clear_primitives();
            lent.cluts.clear();
            let (lock, done) = &*handoff;
            *lock.lock().unwrap_or_else(PoisonError::into_inner) = Some((images, lent));
            done.notify_one();
        }));
    }
}

impl Drop for Canvas {
    /// No batch outlives the GPU that queued it.
    fn drop(&mut self) {
        self.wait();
    }
}
