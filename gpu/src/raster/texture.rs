//! Texture sampling: 4/8-bit CLUT and 15-bit direct texels, texture window, page wrapping.
//!
//! A primitive carries a small [`Texture`] descriptor (page, depth, window and where its CLUT
//! entries are); a [`Sampler`] joins it with what the batch samples ([`TexSource`]) for one
//! primitive's span loops.
//!
//! Source: psx-spx "GPU Texture Caching" / "Texture Window"; verified by hwtests phases 4, 9,
//! 15, 16, 21 and gpu-images/texture-overflow (X wraps past 1023).

use super::TexSource;
use crate::gp0::fields::{TexPage, TexWindow, TextureDepth};
use crate::{VramImage, VRAM_HEIGHT, VRAM_WIDTH};

/// A CLUT as the CLUT cache delivered it: 16 or 256 entries loaded, the rest 0.
pub type ClutTable = [u16; 256];

/// The CLUT a 15-bit texture "uses": none.
static NO_CLUT: ClutTable = [0; 256];

/// Where a primitive's CLUT entries are: still in VRAM at the CLUT's place (the texture
/// snapshot holds them there), or copied out into the batch's CLUT table (the CLUT cache holds
/// entries VRAM no longer has, or the CLUT wraps past VRAM's right edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClutRef {
    /// None (15-bit texture).
    None,
    /// At this halfword index of the snapshot, 256 entries readable from there.
    Vram(u32),
    /// At this index of the batch's CLUT table.
    Table(u32),
}

impl ClutRef {
    /// The CLUT entries it points to in `src` (all 0 for none).
    #[inline]
    pub fn entries<'a>(self, src: TexSource<'a>) -> &'a ClutTable {
        match self {
            ClutRef::None => &NO_CLUT,
            ClutRef::Vram(at) => src.vram[at as usize..][..256]
                .try_into()
                .unwrap_or(&NO_CLUT),
            ClutRef::Table(i) => src.cluts.get(i as usize).unwrap_or(&NO_CLUT),
        }
    }
}

/// Everything a textured primitive needs to turn (U, V) into a texel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Texture {
    /// Page left edge in halfwords.
    pub page_x: u16,
    /// Page top edge in lines.
    pub page_y: u16,
    /// Colour depth.
    pub depth: TextureDepth,
    /// (and, or) applied to U.
    pub win_u: (u8, u8),
    /// (and, or) applied to V.
    pub win_v: (u8, u8),
    /// The primitive's CLUT entries.
    pub clut: ClutRef,
}

impl Texture {
    /// A texture for page `page` and window `win`, its CLUT entries at `clut`.
    pub fn new(page: TexPage, win: TexWindow, clut: ClutRef) -> Self {
        Texture {
            page_x: page.base_x() as u16,
            page_y: page.base_y() as u16,
            depth: page.depth(),
            win_u: win.u_and_or(),
            win_v: win.v_and_or(),
            clut,
        }
    }

    /// A [`Sampler`] for this texture with its depth fixed at compile time (`DEPTH` must be the
    /// texture's depth: 4, 8 or 15).
    #[inline]
    pub fn sampler<'a, const DEPTH: u8>(&self, src: TexSource<'a>) -> Sampler<'a, DEPTH> {
        let clut = match DEPTH {
            15 => &NO_CLUT,
            _ => self.clut_table(src),
        };
        Sampler {
            vram: src.vram,
            clut,
            page_x: self.page_x as usize,
            page_y: self.page_y as usize,
            win_u: self.win_u,
            win_v: self.win_v,
        }
    }

    /// The texture's CLUT entries in `src` (all 0 for a 15-bit texture).
    #[inline]
    pub fn clut_table<'a>(&self, src: TexSource<'a>) -> &'a ClutTable {
        self.clut.entries(src)
    }

    /// The texel at (u, v) after the texture window: [`Sampler::texel`] with the depth chosen at
    /// run time, for single pixels.
    pub fn texel(&self, src: TexSource, u: u8, v: u8) -> u16 {
        match self.depth {
            TextureDepth::Clut4 => self.sampler::<4>(src).texel(u, v),
            TextureDepth::Clut8 => self.sampler::<8>(src).texel(u, v),
            TextureDepth::Direct15 => self.sampler::<15>(src).texel(u, v),
        }
    }
}

/// VRAM halfword columns (start, count) a page of `page`'s depth can sample; its rows are
/// `base_y..+256`.
pub fn footprint_x(page: TexPage) -> (usize, usize) {
    let w = match page.depth() {
        TextureDepth::Clut4 => 64,
        TextureDepth::Clut8 => 128,
        TextureDepth::Direct15 => 256,
    };
    (page.base_x(), w)
}

/// A [`Texture`] prepared for one primitive's span loops, its depth (4, 8 or 15) known at
/// compile time: VRAM is indexed with masks and the CLUT is a fixed 256-entry table, so a texel
/// fetch has no bounds checks and no branches.
pub struct Sampler<'a, const DEPTH: u8> {
    pub(crate) vram: &'a VramImage,
    pub(crate) clut: &'a ClutTable,
    pub(crate) page_x: usize,
    pub(crate) page_y: usize,
    pub(crate) win_u: (u8, u8),
    pub(crate) win_v: (u8, u8),
}

impl<const DEPTH: u8> Sampler<'_, DEPTH> {
    /// The texel at (u, v) after the texture window.
    #[inline(always)]
    pub fn texel(&self, u: u8, v: u8) -> u16 {
        let page = (self.page_x, self.page_y);
        let (at, shift) = locate::<DEPTH>(page, (self.win_u, self.win_v), u, v);
        decode::<DEPTH>(self.clut, self.vram[at], shift)
    }
}

/// Where texel (u, v) of a `DEPTH`-bit page at `page` (x, y) lies after texture window `win`
/// (U's and V's (and, or)): the VRAM halfword index holding it (wrapping at VRAM's edges) and
/// its bit offset in that halfword. The address the texture cache is indexed and tagged by.
#[inline(always)]
pub fn locate<const DEPTH: u8>(
    page: (usize, usize),
    win: ((u8, u8), (u8, u8)),
    u: u8,
    v: u8,
) -> (usize, u32) {
    let u = (u & win.0 .0) | win.0 .1;
    let v = (v & win.1 .0) | win.1 .1;
    let row = ((page.1 + v as usize) & (VRAM_HEIGHT - 1)) * VRAM_WIDTH;
    let (x, shift) = match DEPTH {
        4 => (u as usize >> 2, (u as u32 & 3) * 4),
        8 => (u as usize >> 1, (u as u32 & 1) * 8),
        _ => (u as usize, 0),
    };
    (row | ((page.0 + x) & (VRAM_WIDTH - 1)), shift)
}

/// The texel of a `DEPTH`-bit page at bit `shift` of `halfword`, through `clut`.
#[inline(always)]
pub fn decode<const DEPTH: u8>(clut: &ClutTable, halfword: u16, shift: u32) -> u16 {
    match DEPTH {
        4 => clut[((halfword >> shift) & 0xf) as usize],
        8 => clut[((halfword >> shift) & 0xff) as usize],
        _ => halfword,
    }
}

/// Number of CLUT entries a depth uses (0 for 15-bit).
pub fn clut_len(depth: TextureDepth) -> usize {
    match depth {
        TextureDepth::Clut4 => 16,
        TextureDepth::Clut8 => 256,
        TextureDepth::Direct15 => 0,
    }
}
