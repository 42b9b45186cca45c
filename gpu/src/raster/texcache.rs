//! Texture coherence: what a batch's primitives sample, kept equal to what the console would
//! sample, and the CLUT cache. The one owner of the rule "the snapshot equals live VRAM wherever
//! a queued primitive samples it".
//!
//! A batch draws when it ends, so its primitives must sample VRAM as it was before the batch drew
//! anything. The snapshot holds that image, tile by tile ([`super::tiles`]): a tile is copied from
//! VRAM when a primitive first samples it and stays valid until something writes there (a transfer;
//! the batch that may have drawn it, once it has). A primitive that would sample a tile the pending
//! batch may have drawn is a conflict ([`Cut::Conflict`]): the batch is cut before it and drawn,
//! and the look-up made again. Look-ups are made in command order by the serial scan of
//! `canvas.rs`, which owns the images meanwhile. What a primitive samples is the part of its page
//! its texture coordinates reach ([`UvBounds`], turned into tiles where the primitive is prepared),
//! not the whole page, so a page that overlaps what is being drawn (as pages near the frame buffer,
//! or wrapping past VRAM's right edge, do) ends a batch only when it is really read there.
//!
//! The CLUT cache holds one CLUT: its position, how many entries it loaded (16 or 256) and
//! those entries as VRAM held them when loaded, used again while the key stays the same even if
//! VRAM under it has changed. Verified: gpu-images/clut-cache rows 136 and 152. Entries are read
//! from the snapshot at the CLUT's place as long as VRAM there still holds them; just before
//! anything writes there, they are copied out, and primitives then read the copy from the
//! batch's CLUT table.

use super::batch::{Batch, Look};
use super::feedback::Feedback;
use super::sample::Sample;
use super::spare::Image;
use super::texture::{ClutRef, ClutTable};
use super::tiles::{copy_tile, TileRow, TileSet};
use super::TexSource;
use crate::{VramImage, VRAM_WIDTH};

/// Where [`TexCache::scan`] stops a prepared batch before its end.
#[derive(Clone, Copy, Debug)]
pub enum Cut {
    /// At this entry: its look-up conflicts with the pending batch, which is drawn first.
    Conflict(usize),
    /// At this look-up: its primitives are drawn in order through the texture cache, alone.
    InOrder(Look),
}

/// The CLUT cache's contents.
#[derive(Clone, Debug)]
struct ClutCache {
    /// The CLUT attribute loaded (bits 0–14).
    key: u16,
    /// Entries loaded.
    loaded: usize,
    /// The tiles the entries lie in.
    tiles: TileRow,
    /// The entries, once VRAM under them was about to change (else VRAM still holds them).
    saved: Option<Box<ClutTable>>,
    /// Index of `saved` in the pending batch's CLUT table, once a primitive has used it.
    slot: Option<u32>,
}

/// VRAM and the texture snapshot: what a batch draws into and samples. Both go back to the
/// process's spare images when dropped ([`super::spare`]).
pub struct Images {
    /// VRAM.
    pub vram: Image,
    /// VRAM as the pending batch must sample it, where [`TexCache`] says it is valid. Written
    /// only where tiles are copied from VRAM (which it records), so only those are zeroed
    /// when it is dropped.
    pub snapshot: Image,
}

impl Default for Images {
    /// Both zeroed: VRAM with every page written, the snapshot mapped as it is written (see
    /// [`crate::written_vram`]), when the process has no spare ones.
    fn default() -> Self {
        let mut vram = Image::take(crate::written_vram);
        vram.will_write_anywhere();
        Images {
            vram,
            snapshot: Image::take(crate::boxed_vram),
        }
    }
}

/// The texture snapshot's coherence with VRAM, the CLUT cache and the texture cache.
pub struct TexCache {
    /// Tiles of the snapshot holding VRAM's current contents.
    valid: TileSet,
    /// Tiles the pending batch may draw.
    drawn: TileSet,
    clut: Option<ClutCache>,
    /// The texture cache, and when a primitive must be drawn in order through it.
    pub feedback: Feedback,
    /// When the CLUT cache loads a CLUT it holds again.
    pub clut_reload: ClutReload,
    /// The drawing-mode epoch the texture cache is at ([`crate::prepare::Snap::cache_epoch`]).
    epoch: u32,
}

/// When the CLUT cache loads again the CLUT it holds (same position).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClutReload {
    /// As the console: when it holds fewer entries than the texture depth needs. A 4-bit
    /// primitive after an 8-bit load uses the entries held; an 8-bit one after that loads
    /// again. Verified: gpu-images/clut-cache rows 136 (4 to 8 bits) and 152 (8 to 4 bits,
    /// entries overwritten in between: the old ones are drawn); the 8-bit load after a 4-bit
    /// use: the emulator reference (its wide streams).
    #[default]
    Hardware,
    /// As the reference software GPU (`hwtests/emulator-reference`): whenever the depth
    /// differs from the one it loaded for; it misses gpu-images/clut-cache row 152. For
    /// comparing with that reference only.
    Reference,
}

impl Default for TexCache {
    fn default() -> Self {
        TexCache {
            valid: TileSet::EMPTY,
            drawn: TileSet::EMPTY,
            clut: None,
            feedback: Feedback::default(),
            clut_reload: ClutReload::Hardware,
            epoch: 0,
        }
    }
}

impl TexCache {
    /// Scans prepared batch `b` in command order up to the first look-up that cuts it, if
    /// any: each look-up gets its texture (its CLUT's place written into its primitives, a
    /// copied-out CLUT added to `cluts`, the pending batch's table) and each primitive's tiles
    /// join what the pending batch may draw and what the texture cache has seen written. A
    /// look-up in conflict with the pending batch cuts `b` there ([`Cut::Conflict`]): the
    /// pending batch is drawn and the scan goes on from the look-up. A look-up whose
    /// primitives may read what was written since the texture cache was emptied
    /// ([`Feedback::in_order`]) cuts it likewise ([`Cut::InOrder`]): they are drawn alone, in
    /// order through the cache ([`TexCache::in_order_texture`], [`Feedback::draw`]).
    pub fn scan(
        &mut self,
        im: &mut Images,
        cluts: &mut Vec<ClutTable>,
        b: &mut Batch,
    ) -> Option<Cut> {
        let (mut next, mut epochs) = (0, 0);
        // Each look-up in turn, then the untextured entries after the last one.
        for li in 0..=b.looks.len() {
            let look = b.looks.get(li).copied();
            let at = look.map_or(b.len(), |l| l.at as usize);
            while next < at {
                self.epoch_at(b, &mut epochs, next);
                self.feedback_write(&im.vram, b.drawn[next]);
                self.will_draw(b.drawn[next]);
                next += 1;
            }
            let Some(look) = look else { break };
            let end = at + look.count as usize;
            self.epoch_at(b, &mut epochs, next);
            let area = (b.drawn[at..end].iter()).fold(TileSet::EMPTY, |a, &t| a.union(t));
            self.feedback_write(&im.vram, area);
            let sampled = look.sample.tiles;
            if end > at && self.feedback.in_order(sampled) {
                return Some(Cut::InOrder(look));
            }
            let Some(clut) = self.texture(im, &look.sample, cluts) else {
                return Some(Cut::Conflict(at));
            };
            // Primitives are prepared with their CLUT in place: only a copied-out one is
            // written into them, so the scan mostly leaves them alone (they were written on
            // another thread and are next read where they are drawn).
            if clut != look.sample.clut_in_place() {
                b.set_clut(at..end, clut);
            }
            // A new epoch right after these primitives empties the cache before anything
            // could read their fetches from it: they need no log.
            let emptied = (b.epochs.get(epochs))
                .is_some_and(|&(e, epoch)| e as usize == end && epoch != self.epoch);
            for k in at..end {
                if !emptied {
                    self.feedback.log(b.prim(&b.order[k]), sampled);
                }
                self.will_draw(b.drawn[k]);
            }
            next = end;
        }
        self.epoch_at(b, &mut epochs, usize::MAX);
        None
    }

    /// Applies the texture cache epochs of `b` marked at or before entry `at` (`epochs`: how
    /// many of them are applied).
    #[inline]
    pub(crate) fn epoch_at(&mut self, b: &Batch, epochs: &mut usize, at: usize) {
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
            self.feedback.empty();
        }
    }

    /// `tiles` are about to be written (by a primitive, or a fill): the texture cache first
    /// takes in the fetches of the batches' textured primitives that read there, from `vram`
    /// as it is. That VRAM is final over what they read: the batch pending before each of
    /// them drew nothing there (else its look-up would have been a conflict), and everything
    /// after it that writes there comes here first.
    #[inline]
    pub fn feedback_write(&mut self, vram: &VramImage, tiles: TileSet) {
        let f = &mut self.feedback;
        if f.must_catch_up(tiles) {
            f.catch_up(vram);
        }
        f.will_write(tiles);
    }

    /// The CLUT entries of look-up `l`, whose primitives are drawn in order (nothing is
    /// pending): the texture cache caught up first, as they read through it.
    pub fn in_order_texture(
        &mut self,
        im: &mut Images,
        cluts: &mut Vec<ClutTable>,
        l: &Look,
    ) -> Box<ClutTable> {
        self.feedback.catch_up(&im.vram);
        let got = self.texture(im, &l.sample, cluts);
        let clut = got.expect("nothing is pending, so nothing conflicts");
        let src = TexSource {
            vram: &im.snapshot,
            cluts,
        };
        Box::new(*clut.entries(src))
    }

    /// Where the CLUT entries are for a primitive sampling `sample`, with the snapshot made to
    /// hold what it samples; the entries added to `cluts` (the pending batch's table) when they
    /// come from a copy. `None` (nothing changed): a conflict, it samples what the pending
    /// batch may draw. Inlined: the serial scan calls it once
    /// per textured packet.
    #[inline(always)]
    pub fn texture(
        &mut self,
        im: &mut Images,
        sample: &Sample,
        cluts: &mut Vec<ClutTable>,
    ) -> Option<ClutRef> {
        let n = sample.entries as usize;
        // The CLUT cache serves the entries when it holds this CLUT with enough of them (a
        // 15-bit texture has none to serve).
        let served = self.clut.as_ref().filter(|c| {
            n != 0
                && c.key == sample.key
                && match self.clut_reload {
                    ClutReload::Hardware => c.loaded >= n,
                    ClutReload::Reference => c.loaded == n,
                }
        });
        let hit = served.is_some();
        let (clut_tiles, tiles) = match served {
            Some(c) => (c.tiles, sample.tiles.with(c.tiles)),
            None => (sample.clut_tiles, sample.reads),
        };
        if tiles.meets(self.drawn) {
            return None;
        }
        let missing = tiles.minus(self.valid);
        // From here on the snapshot equals VRAM over `tiles`, the CLUT's among them.
        if !missing.is_empty() {
            im.snapshot.will_write(missing);
            for t in missing.iter() {
                copy_tile(&mut im.snapshot[..], &im.vram[..], t);
            }
            self.valid = self.valid.union(missing);
        }
        if n == 0 {
            return Some(sample.clut_in_place());
        }
        if !hit {
            // A CLUT the snapshot cannot hand out as 256 halfwords in a row (it wraps past the
            // right edge, or ends past VRAM's end) is copied at once.
            let saved = sample.copied.then(|| {
                let (x, y) = (
                    sample.clut_at as usize % VRAM_WIDTH,
                    sample.clut_at as usize / VRAM_WIDTH,
                );
                let mut t = Box::new([0; 256]);
                let row = &im.snapshot[y * VRAM_WIDTH..][..VRAM_WIDTH];
                let head = n.min(VRAM_WIDTH - x);
                t[..head].copy_from_slice(&row[x..][..head]);
                t[head..n].copy_from_slice(&row[..n - head]);
                t
            });
            self.clut = Some(ClutCache {
                key: sample.key,
                loaded: n,
                tiles: clut_tiles,
                saved,
                slot: None,
            });
        }
        let c = self.clut.as_mut().expect("loaded above");
        // The cache now serves this depth: 8-bit primitives after a 4-bit one load again.
        c.loaded = n;
        Some(match &c.saved {
            None => sample.clut_in_place(),
            Some(t) => ClutRef::Table(*c.slot.get_or_insert_with(|| {
                cluts.push(**t);
                (cluts.len() - 1) as u32
            })),
        })
    }

    /// Records that the pending batch may draw `tiles`.
    #[inline]
    pub fn will_draw(&mut self, tiles: TileSet) {
        self.drawn = self.drawn.union(tiles);
    }

    /// To call just before VRAM's `tiles` are written (by a transfer, or by the pending batch:
    /// [`TexCache::before_batch`]): the CLUT cache copies out entries VRAM is about to
    /// lose, and those snapshot tiles stop being valid.
    pub fn before_write(&mut self, vram: &VramImage, tiles: TileSet) {
        if let Some(c) = &mut self.clut {
            if c.saved.is_none() && c.tiles.set().meets(tiles) {
                let at =
                    ((c.key >> 6) & 0x1ff) as usize * VRAM_WIDTH + (c.key & 0x3f) as usize * 16;
                let mut t = Box::new([0; 256]);
                t[..c.loaded].copy_from_slice(&vram[at..at + c.loaded]);
                c.saved = Some(t);
            }
        }
        self.valid = self.valid.minus(tiles);
    }

    /// [`TexCache::before_write`] for the tiles the pending batch may draw, just before it does.
    pub fn before_batch(&mut self, vram: &VramImage) {
        self.before_write(vram, self.drawn);
    }

    /// The pending batch is drawn: a new one begins, with no tile pending and an empty CLUT
    /// table.
    pub fn batch_drawn(&mut self) {
        self.drawn = TileSet::EMPTY;
        if let Some(c) = &mut self.clut {
            c.slot = None;
        }
    }

    /// GP0(01h), GP1(00h), GP1(01h): the CLUT cache forgets what it holds and the texture
    /// cache is emptied.
    pub fn empty_caches(&mut self) {
        self.clut = None;
        self.feedback.empty();
    }
}
