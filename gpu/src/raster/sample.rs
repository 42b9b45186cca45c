//! What a textured primitive samples: the texture coordinates it can reach ([`UvBounds`]) and
//! the VRAM tiles and CLUT they come from ([`Sample`]), worked out where it is prepared, on any
//! thread, so that the texture cache's look-up in command order is a few bit operations.

use super::texture::{clut_len, ClutRef};
use super::tiles::{TileRow, TileSet};
use crate::gp0::fields::{Clut, TexPage, TexWindow, TextureDepth};
use crate::{VRAM_HEIGHT, VRAM_WIDTH};

/// Halfwords in VRAM.
const VRAM_SIZE: usize = VRAM_WIDTH * VRAM_HEIGHT;

/// The texture coordinates a primitive can sample, before the texture window: U in
/// `u.0..=u.1`, V in `v.0..=v.1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UvBounds {
    /// Lowest and highest U.
    pub u: (u8, u8),
    /// Lowest and highest V.
    pub v: (u8, u8),
}

impl UvBounds {
    /// The coordinates of a polygon with these vertex coordinates. A triangle's interpolated
    /// U at a pixel it draws is the affine function through its vertices' U (+½, with
    /// gradients truncated by less than 2⁻¹² per pixel, so by less than 0.375 over 1023 + 511
    /// pixels) at a point of the closed triangle: it stays strictly between min U and max U + 1,
    /// and its integer part never wraps. Likewise V.
    #[inline]
    pub fn polygon(uvs: &[(u8, u8)]) -> Self {
        let (mut u, mut v) = ((255, 0), (255, 0));
        for &(pu, pv) in uvs {
            u = (u.0.min(pu), u.1.max(pu));
            v = (v.0.min(pv), v.1.max(pv));
        }
        UvBounds { u, v }
    }

    /// The coordinates of a rectangle `w` × `h` from (u0, v0), stepping backwards under the
    /// flips (X-flip starts at U0 + 1); all of an axis whose coordinates wrap.
    pub fn rect(u0: u8, v0: u8, (w, h): (i32, i32), (flip_x, flip_y): (bool, bool)) -> Self {
        let axis = |start: u8, n: i32, back: bool| -> (u8, u8) {
            let n = n.clamp(1, 256) - 1;
            let (lo, hi) = if back {
                (start as i32 - n, start as i32)
            } else {
                (start as i32, start as i32 + n)
            };
            match (lo, hi) {
                (0..=255, 0..=255) => (lo as u8, hi as u8),
                _ => (0, 255),
            }
        };
        UvBounds {
            u: axis(if flip_x { u0.wrapping_add(1) } else { u0 }, w, flip_x),
            v: axis(v0, h, flip_y),
        }
    }

    /// The VRAM tiles a primitive sampling these coordinates of `page` through `window`
    /// reads (its CLUT aside). The window leaves the coordinates as they are when plain, else
    /// puts them within `or ..= and | or`.
    pub fn sampled(self, page: TexPage, window: TexWindow) -> TileSet {
        let axis = |(lo, hi): (u8, u8), (and, or): (u8, u8)| match (and, or) {
            (0xff, 0) => (lo, hi),
            _ => (or, and | or),
        };
        let (u, v) = (
            axis(self.u, window.u_and_or()),
            axis(self.v, window.v_and_or()),
        );
        let shift = match page.depth() {
            TextureDepth::Clut4 => 2,
            TextureDepth::Clut8 => 1,
            TextureDepth::Direct15 => 0,
        };
        let (x0, x1) = ((u.0 >> shift) as usize, (u.1 >> shift) as usize);
        let (y0, y1) = (v.0 as usize, v.1 as usize);
        TileSet::rect(
            page.base_x() + x0,
            page.base_y() + y0,
            x1 - x0 + 1,
            y1 - y0 + 1,
        )
    }
}

/// What a textured primitive samples, worked out where it is prepared (any thread) so that
/// the look-up in command order ([`TexCache::texture`](super::texcache::TexCache::texture)) is a few bit operations.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// The tiles its texture coordinates reach ([`UvBounds::sampled`]).
    pub tiles: TileSet,
    /// The tiles of its CLUT's entries (none for 15-bit textures): one row of tiles.
    pub clut_tiles: TileRow,
    /// `tiles` and `clut_tiles`: what it reads when its CLUT is loaded, kept whole so that
    /// the serial scan need not form it.
    pub reads: TileSet,
    /// The CLUT attribute (bits 0–14), the CLUT cache's key.
    pub key: u16,
    /// CLUT entries the depth loads: 16, 256, or 0 for 15-bit textures.
    pub entries: u16,
    /// The CLUT's first halfword in VRAM.
    pub clut_at: u32,
    /// The CLUT cannot be read in place as 256 halfwords (it wraps past VRAM's right edge,
    /// or ends past VRAM's end): it is copied out when loaded.
    pub copied: bool,
}

impl Sample {
    /// What a primitive sampling coordinates `uv` of `page` through `window` with `clut`
    /// reads.
    pub fn new(page: TexPage, clut: Clut, window: TexWindow, uv: UvBounds) -> Self {
        let n = clut_len(page.depth());
        let at = clut.y() * VRAM_WIDTH + clut.x();
        let (tiles, clut_tiles) = (
            uv.sampled(page, window),
            TileRow::span(clut.x(), clut.y(), n),
        );
        Sample {
            tiles,
            clut_tiles,
            reads: tiles.with(clut_tiles),
            key: clut.0 & 0x7fff,
            entries: n as u16,
            clut_at: at as u32,
            copied: n != 0 && (clut.x() + n > VRAM_WIDTH || at + 256 > VRAM_SIZE),
        }
    }

    /// Where its CLUT entries are while the CLUT cache has not copied them out: in VRAM at
    /// the CLUT's place (none for 15-bit textures). A primitive is prepared with this, so the
    /// scan writes into it only when [`TexCache::texture`](super::texcache::TexCache::texture) answers otherwise.
    pub fn clut_in_place(&self) -> ClutRef {
        match self.entries {
            0 => ClutRef::None,
            _ => ClutRef::Vram(self.clut_at),
        }
    }
}
