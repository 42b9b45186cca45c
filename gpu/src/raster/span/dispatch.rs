//! Choosing a primitive's kernel and span loop once, from its texture, shading and blend mode.

use super::{Kernel, Portable, Simd, SpanDraw};
use crate::gp0::fields::{BlendMode, TextureDepth};
use crate::raster::pixel::{
    blend_selector, BLEND_ADD, BLEND_ADD_QUARTER, BLEND_AVERAGE, BLEND_NONE, BLEND_SUBTRACT,
};
use crate::raster::texture::Texture;
use crate::raster::{Band, TexSource};

/// How a primitive shades: what [`dispatch`] specialises on.
#[derive(Clone, Copy, Debug)]
pub struct Shade<'a> {
    /// The texture, if textured.
    pub texture: Option<&'a Texture>,
    /// Per-vertex colours.
    pub gouraud: bool,
    /// Raw texture (ignored without one).
    pub raw: bool,
    /// Blend mode when semi-transparent.
    pub blend: Option<BlendMode>,
}

/// Picks the kernel and the specialised span loop for a primitive once, from its texture,
/// shading and blend mode. A raw texture ignores the vertex colours (and so gouraud).
pub fn dispatch<D: SpanDraw>(d: &D, shade: Shade, bands: &mut [Band], src: TexSource, simd: Simd) {
    match simd {
        Simd::Portable => by_blend(d, Portable, shade, bands, src),
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2(k) => by_blend(d, k, shade, bands, src),
    }
}

fn by_blend<D: SpanDraw, K: Kernel>(d: &D, k: K, shade: Shade, bands: &mut [Band], src: TexSource) {
    match blend_selector(shade.blend) {
        BLEND_NONE => by_texture::<D, K, BLEND_NONE>(d, k, shade, bands, src),
        BLEND_AVERAGE => by_texture::<D, K, BLEND_AVERAGE>(d, k, shade, bands, src),
        BLEND_ADD => by_texture::<D, K, BLEND_ADD>(d, k, shade, bands, src),
        BLEND_SUBTRACT => by_texture::<D, K, BLEND_SUBTRACT>(d, k, shade, bands, src),
        _ => by_texture::<D, K, BLEND_ADD_QUARTER>(d, k, shade, bands, src),
    }
}

fn by_texture<D: SpanDraw, K: Kernel, const BLEND: u8>(
    d: &D,
    k: K,
    shade: Shade,
    bands: &mut [Band],
    src: TexSource,
) {
    use TextureDepth::*;
    let Some(t) = shade.texture else {
        return if shade.gouraud {
            k.draw::<D, 0, true, false, BLEND>(d, bands, None)
        } else {
            k.draw::<D, 0, false, false, BLEND>(d, bands, None)
        };
    };
    let (raw, g) = (shade.raw, shade.gouraud);
    match t.depth {
        Clut4 => {
            let smp = Some(&t.sampler::<4>(src));
            match (raw, g) {
                (true, _) => k.draw::<D, 4, false, true, BLEND>(d, bands, smp),
                (false, false) => k.draw::<D, 4, false, false, BLEND>(d, bands, smp),
                (false, true) => k.draw::<D, 4, true, false, BLEND>(d, bands, smp),
            }
        }
        Clut8 => {
            let smp = Some(&t.sampler::<8>(src));
            match (raw, g) {
                (true, _) => k.draw::<D, 8, false, true, BLEND>(d, bands, smp),
                (false, false) => k.draw::<D, 8, false, false, BLEND>(d, bands, smp),
                (false, true) => k.draw::<D, 8, true, false, BLEND>(d, bands, smp),
            }
        }
        Direct15 => {
            let smp = Some(&t.sampler::<15>(src));
            match (raw, g) {
                (true, _) => k.draw::<D, 15, false, true, BLEND>(d, bands, smp),
                (false, false) => k.draw::<D, 15, false, false, BLEND>(d, bands, smp),
                (false, true) => k.draw::<D, 15, true, false, BLEND>(d, bands, smp),
            }
        }
    }
}
