//! Texture sampling: 4/8-bit CLUT and 15-bit direct texels, texture window, page wrapping.
//!
//! Source: psx-spx "GPU Texture Caching" / "Texture Window"; verified by hwtests phases 4, 9,
//! 15, 16, 21 and gpu-images/texture-overflow (X wraps past 1023).

use crate::gp0::fields::{TexPage, TexWindow, TextureDepth};
use crate::{VRAM_HEIGHT, VRAM_WIDTH};
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

    /// The texel at (u, v) after the texture window, read from `vram` (the batch snapshot).
    #[inline]
    pub fn texel(&self, vram: &[u16], u: u8, v: u8) -> u16 {
        match self.depth {
            TextureDepth::Clut4 => self.texel_at::<4>(vram, u, v),
            TextureDepth::Clut8 => self.texel_at::<8>(vram, u, v),
            TextureDepth::Direct15 => self.texel_at::<15>(vram, u, v),
        }
    }

    /// [`Texture::texel`] for a depth known at compile time (4, 8 or 15), used by the
    /// specialised span loops.
    #[inline(always)]
    pub fn texel_at<const DEPTH: u8>(&self, vram: &[u16], u: u8, v: u8) -> u16 {
        let u = (u & self.win_u.0) | self.win_u.1;
        let v = (v & self.win_v.0) | self.win_v.1;
        let row = ((self.page_y + v as usize) & (VRAM_HEIGHT - 1)) * VRAM_WIDTH;
        let at = |x: usize| vram[row + ((self.page_x + x) & (VRAM_WIDTH - 1))];
        match DEPTH {
            4 => {
                let idx = (at(u as usize >> 2) >> ((u & 3) * 4)) & 0xf;
                self.clut.get(idx as usize).copied().unwrap_or(0)
            }
            8 => {
                let idx = (at(u as usize >> 1) >> ((u & 1) * 8)) & 0xff;
                self.clut.get(idx as usize).copied().unwrap_or(0)
            }
            _ => at(u as usize),
        }
    }

    /// A 15-bit texture at (0, 0) with no window: stands in where none is sampled.
    pub fn placeholder() -> Self {
        Texture::new(TexPage(0x100), TexWindow(0), Arc::from(Vec::new()))
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

/// Number of CLUT entries a depth uses (0 for 15-bit).
pub fn clut_len(depth: TextureDepth) -> usize {
    match depth {
        TextureDepth::Clut4 => 16,
        TextureDepth::Clut8 => 256,
        TextureDepth::Direct15 => 0,
    }
}
