//! GP0 packets as a game's CPU writes them: fills, drawing-environment settings, VRAM uploads and
//! gouraud (optionally textured, optionally semi-transparent) triangles and quads.
//!
//! Bit layouts: psx-spx "GPU Render Polygon Commands", "GPU Rendering Attributes" and
//! "GPU Memory Transfer Commands" (../shared/spec/psx-spx-gpu.md). Sure: these are the
//! documented encodings every game uses.

/// A screen vertex as the GPU reads it: signed 11-bit X and Y (psx-spx "Vertex").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ScreenXY {
    /// X in pixels, relative to the drawing offset.
    pub x: i16,
    /// Y in pixels, relative to the drawing offset.
    pub y: i16,
}

impl ScreenXY {
    /// From the GTE's packed SXY word (low half X, high half Y).
    pub fn from_sxy(w: u32) -> Self {
        ScreenXY {
            x: w as u16 as i16,
            y: (w >> 16) as u16 as i16,
        }
    }

    /// The GP0 vertex word `YYYYXXXX`.
    pub fn word(self) -> u32 {
        (self.x as u16 as u32) | ((self.y as u16 as u32) << 16)
    }
}

/// GP0 texpage attribute (a polygon's word-2 high half, or GP0(E1h)'s low bits): page X base in
/// 64-halfword steps (bits 0–3), page Y base 0/256 (bit 4), semi-transparency mode (bits 5–6),
/// texture depth 4/8/15 bpp (bits 7–8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TexPage(pub u16);

impl TexPage {
    /// Builds the attribute for a page whose top-left is at VRAM (`x`, `y`) (rounded down to the
    /// page grid), with blend mode `semi` (0–3) and depth code `depth` (0 = 4bpp, 1 = 8bpp,
    /// 2 = 15bpp).
    pub fn new(x: u16, y: u16, semi: u8, depth: u8) -> Self {
        TexPage(
            ((x / 64) & 15)
                | (((y / 256) & 1) << 4)
                | ((semi as u16 & 3) << 5)
                | ((depth as u16 & 3) << 7),
        )
    }

    /// The same page with another semi-transparency mode.
    pub fn with_semi(self, semi: u8) -> Self {
        TexPage((self.0 & !0x60) | ((semi as u16 & 3) << 5))
    }

    /// Semi-transparency mode (0: B/2+F/2, 1: B+F, 2: B−F, 3: B+F/4).
    pub fn semi(self) -> u8 {
        ((self.0 >> 5) & 3) as u8
    }
}

/// GP0 CLUT attribute (a polygon's word-1 high half): X in 16-halfword steps (bits 0–5), Y line
/// (bits 6–14).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Clut(pub u16);

impl Clut {
    /// The CLUT at VRAM (`x`, `y`); `x` must be a multiple of 16.
    pub fn new(x: u16, y: u16) -> Self {
        Clut(((x / 16) & 0x3f) | ((y & 0x1ff) << 6))
    }
}

/// A 24-bit colour word's low bits: `0xBBGGRR`.
pub fn rgb_word(c: [u8; 3]) -> u32 {
    c[0] as u32 | (c[1] as u32) << 8 | (c[2] as u32) << 16
}

/// GP0(02h): fill the rectangle with a colour (X rounded to 16 by the GPU, width likewise).
pub fn fill(out: &mut Vec<u32>, x: u16, y: u16, w: u16, h: u16, color: [u8; 3]) {
    out.extend([
        0x0200_0000 | rgb_word(color),
        x as u32 | (y as u32) << 16,
        w as u32 | (h as u32) << 16,
    ]);
}

/// GP0(E1h): draw mode — texpage bits, dithering (bit 9), drawing to the displayed area allowed
/// (bit 10).
pub fn draw_mode(page: TexPage, dither: bool) -> u32 {
    0xE100_0000 | (page.0 as u32 & 0x1ff) | (dither as u32) << 9 | 1 << 10
}

/// GP0(E2h): texture window. `mask` and `offset` are in 8-texel steps (5 bits each per axis):
/// texcoord = (texcoord AND NOT (mask*8)) OR ((offset AND mask)*8).
pub fn texture_window(mask_x: u8, mask_y: u8, off_x: u8, off_y: u8) -> u32 {
    0xE200_0000
        | (mask_x as u32 & 31)
        | (mask_y as u32 & 31) << 5
        | (off_x as u32 & 31) << 10
        | (off_y as u32 & 31) << 15
}

/// GP0(E3h)/(E4h): drawing area corners (inclusive), X 10 bits, Y 9 bits.
pub fn draw_area(x0: u16, y0: u16, x1: u16, y1: u16) -> [u32; 2] {
    [
        0xE300_0000 | (x0 as u32 & 0x3ff) | (y0 as u32 & 0x1ff) << 10,
        0xE400_0000 | (x1 as u32 & 0x3ff) | (y1 as u32 & 0x1ff) << 10,
    ]
}

/// GP0(E5h): drawing offset, signed 11-bit X and Y.
pub fn draw_offset(x: i16, y: i16) -> u32 {
    0xE500_0000 | (x as u32 & 0x7ff) | (y as u32 & 0x7ff) << 11
}

/// GP0(E6h): mask bit setting — neither force nor check.
pub const MASK_OFF: u32 = 0xE600_0000;

/// GP0(E6h): mask bit setting. `set` (bit 0): every pixel drawn gets bit 15 = 1; `check`
/// (bit 1): pixels whose bit 15 is already 1 are not drawn over.
pub fn mask_setting(set: bool, check: bool) -> u32 {
    MASK_OFF | set as u32 | (check as u32) << 1
}

/// GP0(A0h): copy a rectangle from the CPU to VRAM; `data` holds `w*h` halfwords, row-major.
pub fn upload(out: &mut Vec<u32>, x: u16, y: u16, w: u16, h: u16, data: &[u16]) {
    out.extend([
        0xA000_0000,
        x as u32 | (y as u32) << 16,
        w as u32 | (h as u32) << 16,
    ]);
    let mut it = data.chunks(2);
    for pair in &mut it {
        let lo = pair[0] as u32;
        let hi = pair.get(1).copied().unwrap_or(0) as u32;
        out.push(lo | hi << 16);
    }
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
        let cmd = (self.command() as u32) << 24;
        for i in 0..self.corners as usize {
            out.push(rgb_word(self.rgb[i]) | if i == 0 { cmd } else { 0 });
            out.push(self.xy[i].word());
            if let Some(t) = &self.texture {
                let uv = t.uv[i][0] as u32 | (t.uv[i][1] as u32) << 8;
                let attr = match i {
                    0 => (t.clut.0 as u32) << 16,
                    1 => (t.page.0 as u32) << 16,
                    _ => 0,
                };
                out.push(uv | attr);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                page: TexPage::new(320, 256, 1, 1),
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

    #[test]
    fn attributes() {
        assert_eq!(TexPage::new(960, 256, 3, 2).0, 0x0f | 0x10 | 0x60 | 0x100);
        assert_eq!(TexPage::new(64, 0, 0, 0).with_semi(2).semi(), 2);
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
