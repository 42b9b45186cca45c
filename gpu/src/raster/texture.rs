//! Texture sampling: 4/8-bit CLUT and 15-bit direct texels, texture window, page wrapping.
//!
//! Source: psx-spx "GPU Texture Caching" / "Texture Window"; verified by hwtests phases 4, 9,
//! 15, 16, 21 and gpu-images/texture-overflow (X wraps past 1023).

use crate::gp0::fields::{TexPage, TexWindow, TextureDepth};
use crate::{VramImage, VRAM_HEIGHT, VRAM_WIDTH};
use std::sync::Arc;

/// Everything a textured primitive needs to turn (U, V) into a texel.
#[derive(Clone, Debug)]
pub struct Texture {
    /// Page left edge in halfwords.
    pub page_x: usize,
    /// Page top edge in lines.
    pub page_y: usize,
    /// Colour depth.
    pub depth: TextureDepth,
    /// (and, or) applied to U.
    pub win_u: (u8, u8),
    /// (and, or) applied to V.
    pub win_v: (u8, u8),
    /// The CLUT as the CLUT cache held it when the primitive started (16 or 256 entries;
    /// empty for 15-bit).
    pub clut: Arc<[u16]>,
}

impl Texture {
    /// A texture for page `page`, window `win` and CLUT entries `clut`.
    pub fn new(page: TexPage, win: TexWindow, clut: Arc<[u16]>) -> Self {
        Texture {
            page_x: page.base_x(),
            page_y: page.base_y(),
            depth: page.depth(),
            win_u: win.u_and_or(),
            win_v: win.v_and_or(),
            clut,
        }
    }

    /// A sampler of the texture's depth chosen at run time, reading `vram` (the batch snapshot).
    pub fn any_sampler<'a>(&self, vram: &'a VramImage) -> AnySampler<'a> {
        match self.depth {
            TextureDepth::Clut4 => AnySampler::Clut4(Sampler::new(self, vram)),
            TextureDepth::Clut8 => AnySampler::Clut8(Sampler::new(self, vram)),
            TextureDepth::Direct15 => AnySampler::Direct15(Sampler::new(self, vram)),
        }
    }

    /// A [`Sampler`] for this texture with its depth fixed at compile time (`DEPTH` must be the
    /// texture's depth: 4, 8 or 15).
    #[inline]
    pub fn sampler<'a, const DEPTH: u8>(&self, vram: &'a VramImage) -> Sampler<'a, DEPTH> {
        Sampler::new(self, vram)
    }

    /// VRAM halfword columns (start, count) the page can sample; rows are `page_y..+256`.
    pub fn footprint_x(&self) -> (usize, usize) {
        let w = match self.depth {
            TextureDepth::Clut4 => 64,
            TextureDepth::Clut8 => 128,
            TextureDepth::Direct15 => 256,
        };
        (self.page_x, w)
    }
}

/// A [`Texture`] prepared for one primitive's span loops, its depth (4, 8 or 15) known at
/// compile time: the CLUT is copied into a fixed 256-entry table (entries the cache did not load
/// read as 0, as before) and VRAM is indexed with masks, so a texel fetch has no bounds checks
/// and no branches.
pub struct Sampler<'a, const DEPTH: u8> {
    vram: &'a VramImage,
    clut: [u16; 256],
    page_x: usize,
    page_y: usize,
    win_u: (u8, u8),
    win_v: (u8, u8),
}

impl<'a, const DEPTH: u8> Sampler<'a, DEPTH> {
    /// A sampler for `t` reading texels from `vram` (the batch snapshot).
    #[inline]
    pub fn new(t: &Texture, vram: &'a VramImage) -> Self {
        let mut clut = [0u16; 256];
        let n = match DEPTH {
            4 => 16,
            8 => 256,
            _ => 0,
        }
        .min(t.clut.len());
        clut[..n].copy_from_slice(&t.clut[..n]);
        Sampler {
            vram,
            clut,
            page_x: t.page_x,
            page_y: t.page_y,
            win_u: t.win_u,
            win_v: t.win_v,
        }
    }

    /// The texel at (u, v) after the texture window.
    #[inline(always)]
    pub fn texel(&self, u: u8, v: u8) -> u16 {
        let u = (u & self.win_u.0) | self.win_u.1;
        let v = (v & self.win_v.0) | self.win_v.1;
        let row = ((self.page_y + v as usize) & (VRAM_HEIGHT - 1)) * VRAM_WIDTH;
        let at = |x: usize| self.vram[row | ((self.page_x + x) & (VRAM_WIDTH - 1))];
        match DEPTH {
            4 => self.clut[((at(u as usize >> 2) >> ((u & 3) * 4)) & 0xf) as usize],
            8 => self.clut[((at(u as usize >> 1) >> ((u & 1) * 8)) & 0xff) as usize],
            _ => at(u as usize),
        }
    }
}

/// A [`Sampler`] of any depth, for loops not specialised on it (rectangles): set up once per
/// primitive, then one predictable match per texel.
pub enum AnySampler<'a> {
    /// 4-bit CLUT.
    Clut4(Sampler<'a, 4>),
    /// 8-bit CLUT.
    Clut8(Sampler<'a, 8>),
    /// 15-bit direct.
    Direct15(Sampler<'a, 15>),
}

impl AnySampler<'_> {
    /// The texel at (u, v) after the texture window.
    #[inline]
    pub fn texel(&self, u: u8, v: u8) -> u16 {
        match self {
            AnySampler::Clut4(s) => s.texel(u, v),
            AnySampler::Clut8(s) => s.texel(u, v),
            AnySampler::Direct15(s) => s.texel(u, v),
        }
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
