//! The display and VRAM layout: the PS1's display modes, where the framebuffer goes (clear of
//! the model's own VRAM images), the textures placed around it, the GP1 words that make it the
//! displayed area, and reading pictures and mask bits back out of VRAM.

use gpu::gp1;

use super::packets;
use super::{RenderError, RenderOptions};
use crate::scene::{PosedMesh, VramImage};
use crate::texture::{self, BlendClass, Rect, TextureSet};

/// The display widths the PS1 offers (GP1(08h)).
pub const WIDTHS: [u32; 5] = [256, 320, 368, 512, 640];
/// The display heights (480 = interlaced).
pub const HEIGHTS: [u32; 2] = [240, 480];

/// Where everything sits in VRAM for one model, and the words that put it there: the
/// framebuffer (the displayed area), the model's own VRAM images, its textures and CLUTs.
#[derive(Debug)]
pub(super) struct VramLayout {
    /// The framebuffer rectangle.
    pub(super) framebuffer: Rect,
    /// The textures, converted and placed beside it.
    pub(super) textures: TextureSet,
    /// GP1 words that make the framebuffer the display area.
    pub(super) gp1_setup: Vec<u32>,
    /// GP0 words uploading the model's images, textures and CLUTs.
    pub(super) upload: Vec<u32>,
}

impl VramLayout {
    /// The framebuffer for `opts`' display size where `mesh`'s own images leave room, then
    /// `uses` (texture, encoding) of its textures placed around both.
    pub(super) fn new(
        opts: &RenderOptions,
        mesh: &PosedMesh,
        uses: &[(usize, BlendClass)],
    ) -> Result<VramLayout, RenderError> {
        let framebuffer =
            place_framebuffer(opts.width as u16, opts.height as u16, &mesh.vram_images)?;
        let mut occupied = vec![framebuffer];
        occupied.extend(mesh.vram_images.iter().map(|i| Rect {
            x: i.x,
            y: i.y,
            w: i.width,
            h: i.height,
        }));
        let textures = texture::prepare(
            &mesh.textures,
            uses,
            opts.depth,
            &occupied,
            opts.texture_cache.as_deref(),
        )?;
        let mut upload = Vec::new();
        for img in mesh.vram_images.iter().chain(&textures.uploads) {
            upload_image(&mut upload, img);
        }
        Ok(VramLayout {
            framebuffer,
            gp1_setup: display_setup(framebuffer, opts.height),
            textures,
            upload,
        })
    }
}

/// Where the framebuffer goes: (0,0) unless the model's own VRAM images are there, then the other
/// corners.
pub(super) fn place_framebuffer(w: u16, h: u16, images: &[VramImage]) -> Result<Rect, RenderError> {
    let vw = gpu::VRAM_WIDTH as u16;
    let vh = gpu::VRAM_HEIGHT as u16;
    let candidates = [(0, 0), (0, vh - h), (vw - w, 0), (vw - w, vh - h)];
    candidates
        .into_iter()
        .map(|(x, y)| Rect { x, y, w, h })
        .find(|r| {
            !images.iter().any(|i| {
                i.x < r.x + r.w
                    && r.x < i.x.saturating_add(i.width)
                    && i.y < r.y + r.h
                    && r.y < i.y.saturating_add(i.height)
            })
        })
        .ok_or(RenderError::NoFramebufferRoom)
}

fn upload_image(out: &mut Vec<u32>, img: &VramImage) {
    let n = img.width as usize * img.height as usize;
    if n == 0 || img.data.len() < n {
        return;
    }
    packets::upload(out, img.x, img.y, img.width, img.height, &img.data[..n]);
}

/// GP1 words: reset, display mode, display start, NTSC ranges, display on.
fn display_setup(fb: Rect, height: u32) -> Vec<u32> {
    let mode = gp1::DisplayMode::new(fb.w, height == 480, false, false)
        .expect("the framebuffer is one of the display widths 256, 320, 368, 512, 640");
    // The standard NTSC range 260h..C60h is 2560 GPU cycles: 256/320/512/640 pixels at dot
    // dividers 10/8/5/4. At 368 (divider 7) the GPU shows ((cycles/7 + 2) & !3) pixels, so the
    // range is widened to 7 × 367 cycles to show all 368.
    let x2 = if fb.w == 368 { 0x260 + 7 * 367 } else { 0xC60 };
    vec![
        gp1::reset_word(),
        mode.word(),
        gp1::DisplayStart::new(fb.x, fb.y).word(),
        gp1::HorizontalRange::new(0x260, x2).word(),
        gp1::VerticalRange::new(0x10, 0x10 + 240).word(),
        gp1::display_enable_word(true),
    ]
}

/// A rectangle's mask bits (VRAM bit 15) as alpha: 255 where set, 0 where clear.
pub fn read_mask(vram: &[u16], r: Rect) -> Vec<u8> {
    let mut out = Vec::with_capacity(r.w as usize * r.h as usize);
    for y in r.y as usize..r.y as usize + r.h as usize {
        let row = &vram[y * gpu::VRAM_WIDTH + r.x as usize..][..r.w as usize];
        out.extend(row.iter().map(|&p| if p & 0x8000 != 0 { 255 } else { 0 }));
    }
    out
}

/// The whole 1024×512 VRAM as 8-bit RGB (for `--vram`).
pub fn vram_rgb(vram: &[u16]) -> Vec<u8> {
    vram.iter()
        .flat_map(|&p| crate::output::bgr555_to_rgb(p))
        .collect()
}
