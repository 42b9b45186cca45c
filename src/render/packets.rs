//! GP0 packets as a game's CPU writes them: fills, drawing-environment settings, VRAM uploads and
//! gouraud (optionally textured, optionally semi-transparent) triangles and quads.
//!
//! Bit layouts: psx-spx "GPU Render Polygon Commands", "GPU Rendering Attributes" and
//! "GPU Memory Transfer Commands" (../shared/spec/psx-spx-gpu.md). Sure: these are the
//! documented encodings every game uses. Every word is built by the encoders of
//! `gpu::gp0::fields` and `gpu::gp0::decode` ([`ColorWord`], [`VertexWord`], [`TexCoordWord`],
//! [`TexPage`], [`Clut`], [`TexWindow`], [`AreaCorner`], [`DrawOffset`], [`MaskSetting`],
//! [`fill_packet`], [`cpu_to_vram_header`]), the same types the GPU decodes them with.

use gpu::gp0::decode::{cpu_to_vram_header, fill_packet, payload_word};
use gpu::gp0::fields::{
    AreaCorner, ColorWord, DrawOffset, MaskSetting, TexCoordWord, TexWindow, VertexWord, VramSize,
    VramXy,
};
pub use gpu::gp0::fields::{BlendMode, Clut, TexPage};

/// A screen vertex: the GTE's SX/SY, written into a GP0 vertex word ([`VertexWord`]), of which
/// the GPU reads signed 11-bit X and Y (psx-spx "Vertex").
pub use gte::typed::ScreenXY;

/// GP0(02h): fill the rectangle with a colour (X rounded to 16 by the GPU, width likewise).
pub fn fill(out: &mut Vec<u32>, x: u16, y: u16, w: u16, h: u16, color: [u8; 3]) {
    out.extend(fill_packet(color, VramXy::new(x, y), VramSize::new(w, h)));
}

/// GP0(E1h): draw mode — the page's texture bits (page, blend mode, depth), dithering (bit 9),
/// drawing to the displayed area allowed (bit 10).
pub fn draw_mode(page: TexPage, dither: bool) -> u32 {
    page.texture_bits()
        .with_dither(dither)
        .with_draw_to_display(true)
        .draw_mode_word()
}

/// GP0(E2h): texture window. `mask` and `offset` are in 8-texel steps (5 bits each per axis):
/// texcoord = (texcoord AND NOT (mask*8)) OR ((offset AND mask)*8).
pub fn texture_window(mask_x: u8, mask_y: u8, off_x: u8, off_y: u8) -> u32 {
    TexWindow::new(mask_x, mask_y, off_x, off_y).word()
}

/// GP0(E3h)/(E4h): drawing area corners (inclusive), X 10 bits, Y 9 bits.
pub fn draw_area(x0: u16, y0: u16, x1: u16, y1: u16) -> [u32; 2] {
    [
        AreaCorner::new(x0, y0).top_left_word(),
        AreaCorner::new(x1, y1).bottom_right_word(),
    ]
}

/// GP0(E5h): drawing offset, signed 11-bit X and Y.
pub fn draw_offset(x: i16, y: i16) -> u32 {
    DrawOffset::new(x, y).word()
}

/// GP0(E6h): mask bit setting — neither force nor check.
pub const MASK_OFF: u32 = MaskSetting::new(false, false).word();

/// GP0(E6h): mask bit setting. `set` (bit 0): every pixel drawn gets bit 15 = 1; `check`
/// (bit 1): pixels whose bit 15 is already 1 are not drawn over.
pub fn mask_setting(set: bool, check: bool) -> u32 {
    MaskSetting::new(set, check).word()
}

/// GP0(A0h): copy a rectangle from the CPU to VRAM; `data` holds `w*h` halfwords, row-major.
pub fn upload(out: &mut Vec<u32>, x: u16, y: u16, w: u16, h: u16, data: &[u16]) {
    out.extend(cpu_to_vram_header(VramXy::new(x, y), VramSize::new(w, h)));
    // Whole pairs first (a loop the compiler can run wide: textures are most of a model's
    // upload), then a last halfword alone padded with 0.
    let pairs = data.chunks_exact(2);
    let last = pairs.remainder().first().map(|&h| payload_word(h, 0));
    out.reserve(data.len().div_ceil(2));
    out.extend(pairs.map(|pair| payload_word(pair[0], pair[1])));
    out.extend(last);
}

/// Texture part of a polygon: attributes plus one (U, V) per corner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolyTexture {
    /// Texture page attribute (also carries the semi-transparency mode).
    pub page: TexPage,
    /// CLUT attribute (ignored by the GPU at 15bpp).
    pub clut: Clut,
    /// Texel coordinates inside the page, per corner.
    pub uv: [[u8; 2]; 4],
}

/// One polygon ready to be written: 3 or 4 corners, gouraud colours, optional texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Polygon {
    /// Corner positions (drawing-offset relative).
    pub xy: [ScreenXY; 4],
    /// Corner colours (128 = texture unchanged).
    pub rgb: [[u8; 3]; 4],
    /// 3 or 4.
    pub corners: u8,
    /// Texture, if any.
    pub texture: Option<PolyTexture>,
    /// Drawn semi-transparent (command bit 1); the mode comes from the texpage.
    pub semi: bool,
}

impl Polygon {
    /// The GP0(20h–3Fh) command byte: always gouraud (bit 4), quad (bit 3), textured (bit 2),
    /// semi-transparent (bit 1), never raw texture.
    pub fn command(&self) -> u8 {
        0x30 | if self.corners == 4 { 0x08 } else { 0 }
            | if self.texture.is_some() { 0x04 } else { 0 }
            | if self.semi { 0x02 } else { 0 }
    }

    /// Number of GP0 words [`Polygon::write`] emits.
    pub fn words(&self) -> usize {
        let per = if self.texture.is_some() { 3 } else { 2 };
        per * self.corners as usize
    }

    /// Appends the packet.
    pub fn write(&self, out: &mut Vec<u32>) {
        for i in 0..self.corners as usize {
            let command = if i == 0 { self.command() } else { 0 };
            out.push(ColorWord::new(command, self.rgb[i]).0);
            out.push(VertexWord::new(self.xy[i].x, self.xy[i].y).0);
            if let Some(t) = &self.texture {
                let attr = match i {
                    0 => t.clut.0,
                    1 => t.page.0,
                    _ => 0,
                };
                out.push(TexCoordWord::new(t.uv[i][0], t.uv[i][1], attr).0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::gp0::fields::TextureDepth;

    #[test]
    fn textured_quad_layout() {
        let p = Polygon {
            xy: [
                ScreenXY { x: -1, y: 2 },
                ScreenXY { x: 3, y: 4 },
                ScreenXY { x: 5, y: 6 },
                ScreenXY { x: 7, y: 8 },
            ],
            rgb: [[1, 2, 3]; 4],
            corners: 4,
            texture: Some(PolyTexture {
                page: TexPage::new(320, 256, BlendMode::Add, TextureDepth::Clut8),
                clut: Clut::new(16, 480),
                uv: [[1, 2], [3, 4], [5, 6], [7, 8]],
            }),
            semi: true,
        };
        let mut w = Vec::new();
        p.write(&mut w);
        assert_eq!(w.len(), p.words());
        let expect = [
            0x3E03_0201u32,
            0x0002_FFFF,
            0x7801_0201,
            0x0003_0201,
            0x0004_0003,
            0x00B5_0403,
            0x0003_0201,
            0x0006_0005,
            0x0000_0605,
            0x0003_0201,
            0x0008_0007,
            0x0000_0807,
        ];
        for (i, (a, e)) in w.iter().zip(expect).enumerate() {
            assert_eq!(*a, e, "word {i}: {a:#010x} != {e:#010x}");
        }
    }

    /// The drawing-environment and fill words, bit for bit as the renderer has always written
    /// them.
    #[test]
    fn environment_words() {
        let page = TexPage::new(320, 256, BlendMode::Add, TextureDepth::Clut8);
        assert_eq!(draw_mode(page, true), 0xE100_06B5);
        assert_eq!(draw_mode(TexPage(0x3fff), false), 0xE100_05FF);
        assert_eq!(texture_window(31, 1, 2, 31), 0xE20F_883F);
        assert_eq!(draw_area(0, 0, 1023, 511), [0xE300_0000, 0xE407_FFFF]);
        assert_eq!(draw_area(1, 2, 3, 4), [0xE300_0801, 0xE400_1003]);
        assert_eq!(
            (MASK_OFF, mask_setting(true, true)),
            (0xE600_0000, 0xE600_0003)
        );
        let mut w = Vec::new();
        fill(&mut w, 16, 8, 640, 480, [1, 2, 3]);
        assert_eq!(w, [0x0203_0201, 0x0008_0010, 0x01E0_0280]);
    }

    #[test]
    fn attributes() {
        let page = TexPage::new(960, 256, BlendMode::AddQuarter, TextureDepth::Direct15);
        assert_eq!(page.0, 0x0f | 0x10 | 0x60 | 0x100);
        assert_eq!(Clut::new(1008, 511).0, 0x3f | (511 << 6));
        assert_eq!(draw_offset(-1, 1), 0xE500_0000 | 0x7ff | 1 << 11);
        let mut w = Vec::new();
        upload(&mut w, 1, 2, 3, 1, &[0x1111, 0x2222, 0x3333]);
        assert_eq!(
            w,
            [
                0xA000_0000,
                0x0002_0001,
                0x0001_0003,
                0x2222_1111,
                0x0000_3333
            ]
        );
    }
}
