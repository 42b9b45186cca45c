//! Texture sampling: 4/8-bit CLUT and 15-bit direct texels, texture window, page wrapping.
//!
//! A primitive carries a small [`Texture`] descriptor (page, depth, window and where its CLUT
//! entries are); a [`Sampler`] joins it with what the batch samples ([`TexSource`]) for one
//! primitive's span loops. The fetch ([`fetch`]: window, page, depth, CLUT) is written once over
//! [`Gather`] and compiled for one pixel ([`Sampler::texel`], [`locate`], [`decode`]) and for the
//! AVX2 lanes.
//!
//! Source: psx-spx "GPU Texture Caching" / "Texture Window"; verified by hwtests phases 4, 9,
//! 15, 16, 21 and gpu-images/texture-overflow (X wraps past 1023).

use super::lanes::{Gather, Lanes, Scalar};
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
            _ => self.clut.entries(src),
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
        let place = self.place(Scalar);
        fetch::<_, DEPTH>(Scalar, self.vram, self.clut, &place, u.into(), v.into()) as u16
    }

    /// The texture's window and page in the lanes of `l`.
    #[inline(always)]
    pub fn place<L: Lanes>(&self, l: L) -> Place<L::V> {
        place(l, (self.page_x, self.page_y), (self.win_u, self.win_v))
    }
}

/// Where a texture lies, in lanes: what [`locate_lanes`] needs.
#[derive(Clone, Copy, Debug)]
pub struct Place<V> {
    /// The texture window's (and, or) for U, then for V. The `and` is at most 0xff, so it
    /// also keeps U and V to their 8 bits.
    pub win: [V; 4],
    /// The page's left column.
    pub page_x: V,
    /// The page's top row (0 or 256).
    pub page_y: V,
}

/// [`Place`] of a page at `page` (x, y) with texture window `win` (U's and V's (and, or)).
#[inline(always)]
fn place<L: Lanes>(l: L, page: (usize, usize), win: ((u8, u8), (u8, u8))) -> Place<L::V> {
    let ((ua, uo), (va, vo)) = win;
    Place {
        win: [ua, uo, va, vo].map(|w| l.splat(w.into())),
        page_x: l.splat(page.0 as i32),
        page_y: l.splat(page.1 as i32),
    }
}

/// The texels at (u, v) (integer texel coordinates; bits above the eighth are ignored) of a
/// `DEPTH`-bit texture at `p`, sampling `vram` through `clut`.
#[inline(always)]
pub fn fetch<G: Gather, const DEPTH: u8>(
    g: G,
    vram: &VramImage,
    clut: &ClutTable,
    p: &Place<G::V>,
    u: G::V,
    v: G::V,
) -> G::V {
    let (at, shift) = locate_lanes::<G, DEPTH>(g, p, u, v);
    match DEPTH {
        8 => g.vram_clut256(vram, at, shift, clut),
        _ => decode_lanes::<G, DEPTH>(g, clut, g.vram(vram, at, shift)),
    }
}

/// Where texel (u, v) of a `DEPTH`-bit texture at `p` lies after the texture window: the VRAM
/// halfword index holding it (wrapping at VRAM's right edge; below VRAM's size, as the page's
/// top row plus V stays inside VRAM's rows) and its bit offset in that halfword.
#[inline(always)]
pub fn locate_lanes<L: Lanes, const DEPTH: u8>(
    l: L,
    p: &Place<L::V>,
    u: L::V,
    v: L::V,
) -> (L::V, L::V) {
    let [u_and, u_or, v_and, v_or] = p.win;
    let u = l.or(l.and(u, u_and), u_or);
    let v = l.or(l.and(v, v_and), v_or);
    let row = l.shl::<10>(l.add(v, p.page_y));
    let (x, shift) = match DEPTH {
        4 => (l.shr::<2>(u), l.shl::<2>(l.and(u, l.splat(3)))),
        8 => (l.shr::<1>(u), l.shl::<3>(l.and(u, l.splat(1)))),
        _ => (u, l.splat(0)),
    };
    let col = l.and(l.add(x, p.page_x), l.splat(VRAM_WIDTH as i32 - 1));
    (l.or(row, col), shift)
}

/// The texel of a `DEPTH`-bit page in `hw`, a halfword shifted down to the texel (higher bits
/// ignored), through `clut`.
#[inline(always)]
pub fn decode_lanes<G: Gather, const DEPTH: u8>(g: G, clut: &ClutTable, hw: G::V) -> G::V {
    match DEPTH {
        4 => g.clut16(clut.first_chunk().expect("256 entries"), hw),
        8 => g.clut256(clut, hw),
        _ => g.and(hw, g.splat(0xffff)),
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
    let p = place(Scalar, page, win);
    let (at, shift) = locate_lanes::<_, DEPTH>(Scalar, &p, u.into(), v.into());
    (at as usize & (VRAM_WIDTH * VRAM_HEIGHT - 1), shift as u32)
}

/// The texel of a `DEPTH`-bit page at bit `shift` of `halfword`, through `clut`.
#[inline(always)]
pub fn decode<const DEPTH: u8>(clut: &ClutTable, halfword: u16, shift: u32) -> u16 {
    decode_lanes::<_, DEPTH>(Scalar, clut, i32::from(halfword >> shift)) as u16
}

/// Number of CLUT entries a depth uses (0 for 15-bit).
pub fn clut_len(depth: TextureDepth) -> usize {
    match depth {
        TextureDepth::Clut4 => 16,
        TextureDepth::Clut8 => 256,
        TextureDepth::Direct15 => 0,
    }
}
