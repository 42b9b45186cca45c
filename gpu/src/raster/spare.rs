//! VRAM-sized images a process keeps for its next GPU.
//!
//! A program that makes GPU after GPU (a batch worker renders thousands of models, each with a
//! GPU of its own) would otherwise get fresh memory from the system for every one: 2 MB a GPU
//! whose pages the kernel maps, a fault every 4 KB, as they are first written. A dropped GPU's
//! images are zeroed instead (a fill of memory already mapped costs a small fraction of that)
//! and kept, at most [`KEEP`] of them, for the next [`Image::take`]. Every image kept is
//! all zeros: taking one is taking a fresh zeroed image, whichever GPU left it.

use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, PoisonError};

use super::tiles::{TileSet, TILE_H, TILE_W};
use crate::{VramImage, VRAM_WIDTH};

/// Images kept at most: two a GPU, so a process drawing with two GPUs at a time finds both
/// sets, and at most 4 MB of memory held for nothing.
pub const KEEP: usize = 4;

/// The images kept, every one all zeros.
static SPARE: Mutex<Vec<Box<VramImage>>> = Mutex::new(Vec::new());

/// A zeroed VRAM image that goes back to the spares when dropped. `written` holds every tile
/// that may be non-zero, so that only those are zeroed then.
pub struct Image {
    /// Always `Some` but while being dropped.
    image: Option<Box<VramImage>>,
    written: TileSet,
}

impl Image {
    /// A zeroed image: a spare one when the process has one, else `fresh()`.
    pub fn take(fresh: fn() -> Box<VramImage>) -> Self {
        let spare = SPARE.lock().unwrap_or_else(PoisonError::into_inner).pop();
        Image {
            image: Some(spare.unwrap_or_else(fresh)),
            written: TileSet::EMPTY,
        }
    }

    /// Records that `tiles` may be written from here on (only those are zeroed on drop). An
    /// image never told so is zeroed whole.
    pub fn will_write(&mut self, tiles: TileSet) {
        self.written = self.written.union(tiles);
    }

    /// Records that anything may be written.
    pub fn will_write_anywhere(&mut self) {
        self.written = TileSet::ALL;
    }
}

impl Deref for Image {
    type Target = VramImage;

    fn deref(&self) -> &VramImage {
        self.image.as_deref().expect("present until dropped")
    }
}

impl DerefMut for Image {
    fn deref_mut(&mut self) -> &mut VramImage {
        self.image.as_deref_mut().expect("present until dropped")
    }
}

impl Drop for Image {
    /// Zeroes what may have been written and keeps the image, if fewer than [`KEEP`] are.
    fn drop(&mut self) {
        let Some(mut image) = self.image.take() else {
            return;
        };
        let full = || SPARE.lock().unwrap_or_else(PoisonError::into_inner).len() >= KEEP;
        if full() {
            return;
        }
        zero(&mut image, self.written);
        let mut spare = SPARE.lock().unwrap_or_else(PoisonError::into_inner);
        if spare.len() < KEEP {
            spare.push(image);
        }
    }
}

/// Zeroes `tiles` of `image` (all of it for [`TileSet::ALL`]).
fn zero(image: &mut VramImage, tiles: TileSet) {
    if tiles == TileSet::ALL {
        image.fill(0);
        return;
    }
    for (tx, ty) in tiles.iter() {
        for y in ty * TILE_H..(ty + 1) * TILE_H {
            image[y * VRAM_WIDTH + tx * TILE_W..][..TILE_W].fill(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An image taken after others were dropped is all zeros, whatever they held where they
    /// said they wrote, and taking more than are kept makes fresh ones.
    #[test]
    fn images_taken_are_zeroed() {
        let mut a: Vec<Image> = (0..KEEP + 2)
            .map(|_| Image::take(crate::boxed_vram))
            .collect();
        for (k, im) in a.iter_mut().enumerate() {
            match k % 2 {
                0 => im.will_write_anywhere(),
                _ => im.will_write(TileSet::rect(100 * k, 40 * k, 200, 70)),
            }
            let rect = TileSet::rect(100 * k, 40 * k, 200, 70);
            for (tx, ty) in rect.iter() {
                let at = (ty * TILE_H + k) * VRAM_WIDTH + tx * TILE_W + k;
                im[at] = 0x7fff;
            }
            if k % 2 == 0 {
                im[VRAM_WIDTH * 511 + 1023] = 1;
            }
        }
        drop(a);
        let b: Vec<Image> = (0..KEEP + 2)
            .map(|_| Image::take(crate::boxed_vram))
            .collect();
        for im in &b {
            assert!(im.iter().all(|&h| h == 0));
        }
    }
}
