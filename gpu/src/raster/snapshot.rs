//! The texture snapshot: what a batch's primitives sample, and the per-thread copies of it.
//!
//! A batch draws when it ends, so its primitives must sample VRAM as it was before the batch
//! drew anything. The snapshot holds that image, tile by tile: a tile is copied from VRAM when a
//! primitive first samples it, and stays valid until something writes it there (a batch drawing
//! it, at the batch's end; an upload, fill or copy).
//!
//! Every thread drawing a batch samples the same texture pages. Read from the one snapshot, those
//! cache lines are shared between the cores; read from a copy of its own, each core keeps its
//! lines to itself. Measured on the GPU bench frame with 2 threads (2-vCPU dev VM, instrumented
//! build, variants alternating in blocks of frames in one process, 4 runs): a thread's drawing
//! took 7–8 % less time with a copy of its own. A second copy shared by both threads, elsewhere
//! in memory, made no difference, so the gain is from not sharing, not from where the copy lies.
//!
//! A copy is brought up to date tile by tile: the snapshot counts the times each of its tiles was
//! copied from VRAM ([`Versions`]), and a thread copies from the snapshot the tiles whose count
//! differs from its copy's. Between batches that upload nothing, that is a comparison per tile.

use super::bands::{tiles, TILE_H, TILE_W};
use crate::{VramImage, VRAM_HEIGHT, VRAM_WIDTH};
use std::sync::{Mutex, MutexGuard, TryLockError};

/// Snapshot tiles across VRAM.
const TILES_X: usize = VRAM_WIDTH / TILE_W;
/// Snapshot tiles in VRAM.
pub const TILES: usize = TILES_X * (VRAM_HEIGHT / TILE_H);

/// Per snapshot tile, at [`tile`]: how many times it was copied from VRAM.
pub type Versions = [u64; TILES];

/// Where snapshot tile `(tx, ty)` is in [`Versions`].
pub fn tile(tx: usize, ty: usize) -> usize {
    ty * TILES_X + tx
}

/// The texture snapshot, which tiles of it hold VRAM's current contents, their versions, and the
/// pool threads' copies of it.
pub struct TextureSnapshot {
    /// VRAM as the current batch began, where `valid` says so.
    image: Box<VramImage>,
    /// Bit `tx` of `valid[ty]`: tile (tx, ty) of [`TILE_W`] × [`TILE_H`] halfwords holds VRAM's
    /// current contents.
    valid: [u16; 16],
    /// How many times each tile was copied from VRAM: what threads drawing a batch bring their
    /// copies up to date by.
    versions: Versions,
    /// Copies of the snapshot per pool thread (made when a thread first draws a lane).
    copies: Copies,
}

impl Default for TextureSnapshot {
    fn default() -> Self {
        TextureSnapshot {
            image: boxed(vec![0; VRAM_WIDTH * VRAM_HEIGHT]),
            valid: [0; 16],
            versions: [0; TILES],
            copies: Copies::default(),
        }
    }
}

impl TextureSnapshot {
    /// Copies from `vram` the tiles of the VRAM rectangle `x, y, w, h` (wrapping at the VRAM
    /// edges) that do not hold its current contents. The caller ends the current batch first if
    /// it may have drawn there, so `vram` holds what the batch's primitives must sample.
    pub fn take(&mut self, vram: &[u16], x: usize, y: usize, w: usize, h: usize) {
        let (mask, rows) = tiles(x, y, w, h);
        for ty in rows {
            let mut missing = mask & !self.valid[ty];
            while missing != 0 {
                let tx = missing.trailing_zeros() as usize;
                missing &= missing - 1;
                copy_tile(&mut self.image[..], vram, tx, ty);
                self.versions[tile(tx, ty)] += 1;
            }
            self.valid[ty] |= mask;
        }
    }

    /// Marks the tiles of the VRAM rectangle `x, y, w, h` (wrapping) as no longer holding VRAM:
    /// something wrote there.
    pub fn stale(&mut self, x: usize, y: usize, w: usize, h: usize) {
        let (mask, rows) = tiles(x, y, w, h);
        for ty in rows {
            self.valid[ty] &= !mask;
        }
    }

    /// Marks the tiles a batch may have drawn (bit `tx` of `drawn[ty]`, as `Batch::drawn_tiles`
    /// gives them: the batch's tiles are the snapshot's) as no longer holding VRAM.
    pub fn drawn(&mut self, drawn: [u16; 16]) {
        for (valid, drawn) in self.valid.iter_mut().zip(drawn) {
            *valid &= !drawn;
        }
    }

    /// The snapshot to sample, and the threads' copies of it.
    pub fn parts(&mut self) -> (Snapshot<'_>, &mut Copies) {
        let snap = Snapshot {
            image: &self.image,
            versions: &self.versions,
        };
        (snap, &mut self.copies)
    }

    /// Drops the threads' copies: a new pool makes its own as its threads first draw.
    pub fn drop_copies(&mut self) {
        self.copies = Copies::default();
    }
}

/// The snapshot textures are read from, and the version of each of its tiles.
#[derive(Clone, Copy)]
pub struct Snapshot<'a> {
    /// VRAM as the batch must sample it.
    pub image: &'a VramImage,
    /// See [`Versions`].
    pub versions: &'a Versions,
}

/// One thread's copy of the snapshot.
struct ThreadCopy {
    image: Box<VramImage>,
    versions: Versions,
}

/// A copy of the snapshot per pool thread, made when the thread first draws a lane.
#[derive(Default)]
pub struct Copies {
    slots: Vec<Mutex<Option<ThreadCopy>>>,
}

/// A copy held by a drawing thread, or the snapshot itself where no copy was to be had.
pub struct Held<'a> {
    copy: Option<MutexGuard<'a, Option<ThreadCopy>>>,
    snapshot: &'a VramImage,
}

impl Held<'_> {
    /// The image to sample: equal to the snapshot wherever the batch samples it.
    pub fn image(&self) -> &VramImage {
        match self.copy.as_deref() {
            Some(Some(c)) => &c.image,
            _ => self.snapshot,
        }
    }
}

impl Copies {
    /// Makes room for a copy per thread of a pool of `threads`.
    pub fn fit(&mut self, threads: usize) {
        if self.slots.len() < threads {
            self.slots.resize_with(threads, Default::default);
        }
    }

    /// Holds the copy of thread `index` (of the pool [`Copies::fit`] was given), brought up to
    /// date with `snap`; the snapshot itself if there is no slot for `index` or another thread
    /// holds it.
    pub fn hold<'a>(&'a self, index: usize, snap: Snapshot<'a>) -> Held<'a> {
        let mut held = Held {
            copy: None,
            snapshot: snap.image,
        };
        let Some(slot) = self.slots.get(index) else {
            return held;
        };
        let mut guard = match slot.try_lock() {
            Ok(g) => g,
            // A tile's version is set only once its pixels are copied, so a copy left by a
            // panic is still right wherever its versions say so.
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return held,
        };
        match &mut *guard {
            Some(copy) => copy.update(snap),
            none => {
                *none = Some(ThreadCopy {
                    image: boxed(snap.image.to_vec()),
                    versions: *snap.versions,
                })
            }
        }
        held.copy = Some(guard);
        held
    }
}

impl ThreadCopy {
    /// Copies from `snap` the tiles whose version differs from this copy's.
    fn update(&mut self, snap: Snapshot) {
        for (at, (mine, &now)) in self.versions.iter_mut().zip(snap.versions).enumerate() {
            if *mine == now {
                continue;
            }
            copy_tile(&mut self.image[..], snap.image, at % TILES_X, at / TILES_X);
            *mine = now;
        }
    }
}

/// Copies tile `(tx, ty)` of VRAM image `src` into `dst`.
fn copy_tile(dst: &mut [u16], src: &[u16], tx: usize, ty: usize) {
    for y in ty * TILE_H..(ty + 1) * TILE_H {
        let at = y * VRAM_WIDTH + tx * TILE_W;
        dst[at..at + TILE_W].copy_from_slice(&src[at..at + TILE_W]);
    }
}

/// `pixels` (VRAM-sized) as a VRAM image, on the heap: a VRAM image is 1 MiB.
fn boxed(pixels: Vec<u16>) -> Box<VramImage> {
    pixels
        .into_boxed_slice()
        .try_into()
        .expect("a VRAM-sized vector is a VramImage")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(fill: impl Fn(usize) -> u16) -> Box<VramImage> {
        boxed((0..VRAM_WIDTH * VRAM_HEIGHT).map(fill).collect())
    }

    /// The snapshot copies a tile from VRAM when it is first taken, not again while it holds
    /// VRAM, and again once a batch drew it or a transfer wrote it.
    #[test]
    fn the_snapshot_copies_a_tile_again_only_once_it_is_stale() {
        let mut vram = vec![1u16; VRAM_WIDTH * VRAM_HEIGHT];
        let mut snap = TextureSnapshot::default();
        let at = |tx: usize, ty: usize| ty * TILE_H * VRAM_WIDTH + tx * TILE_W;
        let version = |snap: &mut TextureSnapshot, tx, ty| snap.parts().0.versions[tile(tx, ty)];
        // A rectangle inside tile (2, 1) takes that tile whole.
        snap.take(&vram, 2 * TILE_W + 5, TILE_H + 3, 4, 4);
        assert_eq!(snap.image[at(2, 1)], 1);
        assert_eq!(
            snap.image[at(2, 1) + TILE_W - 1 + (TILE_H - 1) * VRAM_WIDTH],
            1
        );
        assert_eq!(snap.image[at(3, 1)], 0, "other tiles are not taken");
        assert_eq!(version(&mut snap, 2, 1), 1);
        // Still valid: VRAM changing behind its back (which the GPU never lets happen) shows
        // it is not copied again.
        vram[at(2, 1)] = 2;
        snap.take(&vram, 2 * TILE_W, TILE_H, 1, 1);
        assert_eq!((snap.image[at(2, 1)], version(&mut snap, 2, 1)), (1, 1));
        // A batch drew the tile: copied again.
        let mut drawn = [0u16; 16];
        drawn[1] = 1 << 2;
        snap.drawn(drawn);
        snap.take(&vram, 2 * TILE_W, TILE_H, 1, 1);
        assert_eq!((snap.image[at(2, 1)], version(&mut snap, 2, 1)), (2, 2));
        // A transfer wrote into it (a rectangle wrapping from the right edge): copied again.
        vram[at(2, 1)] = 3;
        snap.stale(VRAM_WIDTH - 8, TILE_H + 1, 8 + 2 * TILE_W + 1, 1);
        snap.take(&vram, 2 * TILE_W, TILE_H, 1, 1);
        assert_eq!((snap.image[at(2, 1)], version(&mut snap, 2, 1)), (3, 3));
    }

    /// A copy follows the tiles whose version moved on, and only those.
    #[test]
    fn a_copy_follows_the_tiles_that_changed() {
        let mut snap = image(|i| i as u16);
        let mut versions: Versions = [0; TILES];
        let mut copies = Copies::default();
        copies.fit(2);
        let first = copies.hold(
            1,
            Snapshot {
                image: &snap,
                versions: &versions,
            },
        );
        assert!(first.image()[..] == snap[..]);
        assert!(!std::ptr::eq(first.image(), &*snap), "a copy of its own");
        drop(first);
        // Tile (3, 2) is copied anew from VRAM; tile (5, 5) changes without a new version,
        // which the GPU never does: it shows that only versions are looked at.
        let (tx, ty) = (3, 2);
        for y in ty * TILE_H..(ty + 1) * TILE_H {
            for x in tx * TILE_W..(tx + 1) * TILE_W {
                snap[y * VRAM_WIDTH + x] = 0x7fff;
            }
        }
        versions[tile(tx, ty)] += 1;
        let stale = 5 * TILE_H * VRAM_WIDTH + 5 * TILE_W;
        snap[stale] ^= 1;
        let held = copies.hold(
            1,
            Snapshot {
                image: &snap,
                versions: &versions,
            },
        );
        let got = held.image();
        let differ: Vec<usize> = (0..got.len()).filter(|&i| got[i] != snap[i]).collect();
        assert_eq!(differ, vec![stale]);
        // Thread 1's copy is held: a second holder of slot 1 reads the snapshot; so does a
        // thread without a slot.
        let snapshot = Snapshot {
            image: &snap,
            versions: &versions,
        };
        assert!(std::ptr::eq(copies.hold(1, snapshot).image(), &*snap));
        assert!(std::ptr::eq(copies.hold(2, snapshot).image(), &*snap));
    }
}
