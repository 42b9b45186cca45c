//! What the conversion makes of one image, as `info` reports it: the same conversion and
//! placement a model's only texture gets (and `psxrender texture` shows).

use std::sync::Arc;

use serde::Serialize;

use super::{ps1_form, BlendClass, TextureDepth, TimDepth, LONE_TEXTURE_FRAMEBUFFER};
use crate::scene::RgbaImage;

/// What psxrender's conversion makes of an image (as `psxrender texture` shows it).
#[derive(Clone, Debug, Serialize)]
pub struct Ps1Facts {
    /// The encoding picked from the image's alpha: opaque, cutout or alpha.
    pub encoding: &'static str,
    /// Bits per texel (4, 8, 15).
    pub bpp: u32,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Distinct texel values before the CLUT was made.
    pub colours: usize,
    /// CLUT entries (0 at 15bpp).
    pub clut_entries: usize,
    /// Texels that are never drawn (0x0000).
    pub transparent_texels: usize,
}

/// What the renderer's conversion (default depth, beside a 320x240 framebuffer) makes of `img`.
pub fn ps1_facts(img: Arc<RgbaImage>) -> Option<Ps1Facts> {
    let class = BlendClass::for_image(&img);
    let form = ps1_form(img, class, TextureDepth::Auto, LONE_TEXTURE_FRAMEBUFFER).ok()?;
    let t = &form.tim;
    let (w, h) = (t.pixel_width(), u32::from(t.image.height));
    let mut transparent = 0;
    for y in 0..h {
        for x in 0..w {
            let raw = t.raw_pixel(x, y);
            let colour = match (&t.clut, t.depth) {
                (Some(c), TimDepth::Bpp4 | TimDepth::Bpp8) => {
                    c.data.get(raw as usize).copied().unwrap_or(0)
                }
                _ => raw,
            };
            transparent += usize::from(colour == 0);
        }
    }
    Some(Ps1Facts {
        encoding: class.name(),
        bpp: form.bits(),
        width: w,
        height: h,
        colours: form.colours,
        clut_entries: t.clut.as_ref().map_or(0, |c| c.data.len()),
        transparent_texels: transparent,
    })
}
