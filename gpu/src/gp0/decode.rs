//! GP0 opcodes: the packet-length table (computed from the opcode bits) and decoding of an
//! assembled packet into a [`Gp0Command`].
//!
//! Source: psx-spx "GPU Command Summary"; lengths verified by every hwtests probe stream.

use super::fields::{command_word, opcode, ColorWord, TexCoordWord, VertexWord, VramSize, VramXy};

/// Polygon flags from opcode bits 1 (raw texture), 1 (semi), 2 (textured), 3 (quad), 4 (gouraud).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolyFlags {
    /// Gouraud shaded (bit 4).
    pub gouraud: bool,
    /// Four vertices (bit 3).
    pub quad: bool,
    /// Textured (bit 2).
    pub textured: bool,
    /// Semi-transparent (bit 1).
    pub semi: bool,
    /// Raw texture, no modulation (bit 0).
    pub raw: bool,
}

impl PolyFlags {
    /// Flags of a 0x20–0x7F opcode (the bits mean the same for polygons, lines and rectangles).
    pub const fn from_opcode(op: u8) -> Self {
        PolyFlags {
            gouraud: op & 0x10 != 0,
            quad: op & 0x08 != 0,
            textured: op & 0x04 != 0,
            semi: op & 0x02 != 0,
            raw: op & 0x01 != 0,
        }
    }

    /// For a line (GP0(40h–5Fh)): a polyline, continuing until a terminator word (bit 3, the
    /// bit that makes a polygon a quad).
    pub fn polyline(self) -> bool {
        self.quad
    }
}

/// Rectangle size from opcode bits 3–4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RectSize {
    /// Width/height in an extra word.
    Variable,
    /// 1×1.
    One,
    /// 8×8.
    Eight,
    /// 16×16.
    Sixteen,
}

impl RectSize {
    /// Width and height: from the size word `wh` (bits 0–9 and 16–24) when variable.
    pub fn size(self, wh: u32) -> (i32, i32) {
        match self {
            RectSize::Variable => ((wh & 0x3ff) as i32, ((wh >> 16) & 0x1ff) as i32),
            RectSize::One => (1, 1),
            RectSize::Eight => (8, 8),
            RectSize::Sixteen => (16, 16),
        }
    }
}

/// Whether a packet starting with `first` draws (a polygon, line or rectangle, GP0(20h–7Fh)),
/// and whether that is a textured polygon: the front end queues these and reads nothing else
/// of them but the texture page.
#[inline]
pub fn draws(first: u32) -> (bool, bool) {
    let op = (first >> 24) as u8;
    let class = op >> 5;
    ((1..=3).contains(&class), class == 1 && op & 0x04 != 0)
}

/// The length of a polygon or rectangle packet starting with `first` (GP0(20h–3Fh),
/// GP0(60h–7Fh): fixed lengths, nothing follows); `None` for any other command.
#[inline]
pub fn fixed_drawing_len(first: u32) -> Option<usize> {
    let op = (first >> 24) as u8;
    matches!(op >> 5, 1 | 3).then(|| packet_len(op))
}

/// The texture page attribute of a textured polygon packet (bits 16–31 of its second
/// vertex's texture coordinate word), `None` if the packet is too short.
#[inline]
pub fn polygon_page(words: &[u32]) -> Option<u16> {
    let gouraud = (words.first()? >> 28) & 1;
    words.get(4 + gouraud as usize).map(|w| (w >> 16) as u16)
}

/// Number of words in a GP0 packet, including the command word. Polylines (0x48–0x4F,
/// 0x58–0x5F) report their minimum (two vertices) and continue until a terminator word.
/// CPU→VRAM (0xA0–0xBF) reports its 3-word header; the pixel payload follows. A table: the
/// front end asks it for every packet, in command order.
#[inline]
pub fn packet_len(op: u8) -> usize {
    PACKET_LEN[op as usize] as usize
}

/// [`packet_len`] of every opcode.
const PACKET_LEN: [u8; 256] = {
    let mut t = [0; 256];
    let mut op = 0;
    while op < 256 {
        t[op] = len_of(op as u8);
        op += 1;
    }
    t
};

/// [`packet_len`], worked out from the opcode's bits.
const fn len_of(op: u8) -> u8 {
    match op >> 5 {
        1 => {
            let f = PolyFlags::from_opcode(op);
            let verts = if f.quad { 4 } else { 3 };
            let per = 1 + f.textured as u8 + f.gouraud as u8;
            1 + verts * per - f.gouraud as u8
        }
        2 => {
            let g = op & 0x10 != 0;
            1 + 2 * (1 + g as u8) - g as u8
        }
        3 => {
            let size_word = (op >> 3) & 3 == 0;
            2 + (op & 4 != 0) as u8 + size_word as u8
        }
        4 => 4,
        5 | 6 => 3,
        _ => match op {
            opcode::FILL => 3,
            _ => 1,
        },
    }
}

/// A decoded primitive vertex: position (before the drawing offset), colour, texcoord.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RawVertex {
    /// Position word.
    pub pos: VertexWord,
    /// Colour (the command colour when flat).
    pub color: ColorWord,
    /// Texture coordinate word (zero when untextured).
    pub tex: TexCoordWord,
}

/// A decoded GP0 packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gp0Command {
    /// GP0(00h), GP0(03h–1Fh) and other no-ops.
    Nop,
    /// GP0(01h): clear texture cache (also invalidates the CLUT cache).
    ClearCache,
    /// GP0(02h): fill rectangle.
    Fill {
        /// Colour.
        color: ColorWord,
        /// XY word (X rounded down to 16).
        xy: u32,
        /// WH word.
        wh: u32,
    },
    /// GP0(20h–3Fh): triangle or quad.
    Polygon {
        /// Opcode flags.
        flags: PolyFlags,
        /// Vertices (3 or 4 used).
        verts: [RawVertex; 4],
    },
    /// GP0(40h–5Fh): line or polyline (vertices in order).
    Line {
        /// Opcode flags (`quad` = polyline).
        flags: PolyFlags,
        /// Vertices.
        verts: Vec<RawVertex>,
    },
    /// GP0(60h–7Fh): rectangle.
    Rect {
        /// Opcode flags.
        flags: PolyFlags,
        /// Size.
        size: RectSize,
        /// Top-left vertex, colour, texcoord (+CLUT).
        vert: RawVertex,
        /// WH word (variable size only).
        wh: u32,
    },
    /// GP0(80h–9Fh): VRAM→VRAM copy.
    Copy {
        /// Source XY.
        src: u32,
        /// Destination XY.
        dst: u32,
        /// WH.
        wh: u32,
    },
    /// GP0(A0h–BFh): CPU→VRAM transfer header; the pixel payload follows.
    CpuToVram {
        /// Destination XY.
        xy: u32,
        /// WH.
        wh: u32,
    },
    /// GP0(C0h–DFh): VRAM→CPU transfer header; the pixels are then read through GPUREAD.
    VramToCpu {
        /// Source XY.
        xy: u32,
        /// WH.
        wh: u32,
    },
    /// GP0(E1h): draw mode.
    DrawMode(u32),
    /// GP0(E2h): texture window.
    TexWindow(u32),
    /// GP0(E3h): drawing area top-left.
    AreaTopLeft(u32),
    /// GP0(E4h): drawing area bottom-right.
    AreaBottomRight(u32),
    /// GP0(E5h): drawing offset.
    Offset(u32),
    /// GP0(E6h): mask bit setting.
    MaskSetting(u32),
}

/// [`packet_len`] of the packet whose first word is `first` (the opcode is its bits 24–31).
pub fn packet_words(first: u32) -> usize {
    packet_len((first >> 24) as u8)
}

/// What comes on GP0 after a whole packet, before the next command word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Follows {
    /// The next command.
    Command,
    /// More vertices: the packet is a polyline's first segment.
    Polyline,
    /// This many payload words: the packet is a CPU→VRAM transfer's header.
    Payload(u32),
}

/// What follows the whole packet `p` (its [`packet_len`] words).
pub fn follows(p: &[u32]) -> Follows {
    let op = (p[0] >> 24) as u8;
    match op >> 5 {
        2 if PolyFlags::from_opcode(op).polyline() => Follows::Polyline,
        5 => {
            let (w, h) = crate::vram::transfer_size(p.get(2).copied().unwrap_or(0));
            Follows::Payload((w * h).div_ceil(2) as u32)
        }
        _ => Follows::Command,
    }
}

/// Decodes a complete fixed-length packet (`words.len() == packet_len(op)`; a polyline: its
/// words up to the terminator, or so far). For transfers, the header alone.
pub fn decode(words: &[u32]) -> Gp0Command {
    let Some(&first) = words.first() else {
        return Gp0Command::Nop;
    };
    let op = (first >> 24) as u8;
    let w = |i: usize| words.get(i).copied().unwrap_or(0);
    match op >> 5 {
        1 => {
            let flags = PolyFlags::from_opcode(op);
            let n = if flags.quad { 4 } else { 3 };
            let mut verts = [RawVertex::default(); 4];
            let mut i = 0;
            for (k, v) in verts.iter_mut().enumerate().take(n) {
                v.color = if flags.gouraud || k == 0 {
                    let c = w(i);
                    i += 1;
                    ColorWord(c)
                } else {
                    ColorWord(first)
                };
                v.pos = VertexWord(w(i));
                i += 1;
                if flags.textured {
                    v.tex = TexCoordWord(w(i));
                    i += 1;
                }
            }
            Gp0Command::Polygon { flags, verts }
        }
        2 => {
            let flags = PolyFlags::from_opcode(op);
            let mut verts = Vec::new();
            let vert = |c: u32, p: u32| RawVertex {
                pos: VertexWord(p),
                color: ColorWord(c),
                tex: TexCoordWord(0),
            };
            if flags.gouraud {
                verts.push(vert(first, w(1)));
                for pair in words.get(2..).unwrap_or(&[]).chunks_exact(2) {
                    verts.push(vert(pair[0], pair[1]));
                }
            } else {
                for &p in words.get(1..).unwrap_or(&[]) {
                    verts.push(vert(first, p));
                }
            }
            Gp0Command::Line { flags, verts }
        }
        3 => {
            let flags = PolyFlags::from_opcode(op);
            let size = match (op >> 3) & 3 {
                0 => RectSize::Variable,
                1 => RectSize::One,
                2 => RectSize::Eight,
                _ => RectSize::Sixteen,
            };
            let vert = RawVertex {
                color: ColorWord(first),
                pos: VertexWord(w(1)),
                tex: TexCoordWord(if flags.textured { w(2) } else { 0 }),
            };
            let wh = if size == RectSize::Variable {
                w(2 + flags.textured as usize)
            } else {
                0
            };
            Gp0Command::Rect {
                flags,
                size,
                vert,
                wh,
            }
        }
        4 => Gp0Command::Copy {
            src: w(1),
            dst: w(2),
            wh: w(3),
        },
        5 => Gp0Command::CpuToVram { xy: w(1), wh: w(2) },
        6 => Gp0Command::VramToCpu { xy: w(1), wh: w(2) },
        _ => match op {
            opcode::CLEAR_CACHE => Gp0Command::ClearCache,
            opcode::FILL => Gp0Command::Fill {
                color: ColorWord(first),
                xy: w(1),
                wh: w(2),
            },
            opcode::DRAW_MODE => Gp0Command::DrawMode(first),
            opcode::TEX_WINDOW => Gp0Command::TexWindow(first),
            opcode::AREA_TOP_LEFT => Gp0Command::AreaTopLeft(first),
            opcode::AREA_BOTTOM_RIGHT => Gp0Command::AreaBottomRight(first),
            opcode::DRAW_OFFSET => Gp0Command::Offset(first),
            opcode::MASK_SETTING => Gp0Command::MaskSetting(first),
            _ => Gp0Command::Nop,
        },
    }
}

/// GP0(02h): the packet filling the rectangle `wh` at `xy` with `rgb` ([`decode`] reads it
/// back as [`Gp0Command::Fill`], [`crate::vram::fill_rect`] its rectangle).
pub fn fill_packet(rgb: [u8; 3], xy: VramXy, wh: VramSize) -> [u32; 3] {
    [ColorWord::new(opcode::FILL, rgb).0, xy.0, wh.0]
}

/// GP0(A0h): the header of a CPU→VRAM transfer of the rectangle `wh` at `xy` ([`decode`]
/// reads it back as [`Gp0Command::CpuToVram`], [`crate::vram::transfer_xy`] and
/// [`crate::vram::transfer_size`] its rectangle); `⌈w·h/2⌉` [`payload_word`]s follow.
pub fn cpu_to_vram_header(xy: VramXy, wh: VramSize) -> [u32; 3] {
    [command_word(opcode::CPU_TO_VRAM, 0), xy.0, wh.0]
}

/// A CPU→VRAM payload word: `first` is written before `second` (as
/// `crate::vram::upload_word` reads it).
pub fn payload_word(first: u16, second: u16) -> u32 {
    u32::from(first) | u32::from(second) << 16
}

/// The polyline terminator: any word with `(w & 0xF000F000) == 0x50005000`.
// Source: psx-spx "GPU Render Line Commands" (55555555h usual, 50005000h seen in Wild 9).
pub fn is_polyline_terminator(word: u32) -> bool {
    word & 0xf000_f000 == 0x5000_5000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_table_matches_psx_spx() {
        // (opcode, words) from psx-spx's command summary.
        let table = [
            (0x00, 1),
            (0x01, 1),
            (0x02, 3),
            (0x1f, 1),
            (0x20, 4),
            (0x22, 4),
            (0x24, 7),
            (0x27, 7),
            (0x28, 5),
            (0x2c, 9),
            (0x30, 6),
            (0x34, 9),
            (0x38, 8),
            (0x3c, 12),
            (0x3f, 12),
            (0x40, 3),
            (0x48, 3),
            (0x50, 4),
            (0x58, 4),
            (0x60, 3),
            (0x64, 4),
            (0x68, 2),
            (0x6c, 3),
            (0x70, 2),
            (0x74, 3),
            (0x78, 2),
            (0x7c, 3),
            (0x80, 4),
            (0x9f, 4),
            (0xa0, 3),
            (0xc0, 3),
            (0xe1, 1),
            (0xe6, 1),
            (0xff, 1),
        ];
        for (op, len) in table {
            assert_eq!(packet_len(op), len, "opcode {op:02x}");
        }
    }

    #[test]
    fn decodes_gouraud_textured_quad() {
        let words = [
            0x3c00_00ff,
            0x0001_0002,
            0x1234_0506,
            0x0000_ff00,
            0x0003_0004,
            0x0088_0708,
            0x00ff_0000,
            0x0005_0006,
            0x0000_0000,
            0x0000_0001,
            0x0007_0008,
            0x0000_0000,
        ];
        let Gp0Command::Polygon { flags, verts } = decode(&words) else {
            panic!("not a polygon");
        };
        assert!(flags.quad && flags.gouraud && flags.textured);
        assert_eq!(verts[1].tex.attr(), 0x88);
        assert_eq!(verts[2].color.b(), 0xff);
        assert_eq!(verts[3].pos.y(), 7);
    }

    /// GP0(02h): the fill packet reads back as the same command, over the field edges.
    #[test]
    fn fill_packet_round_trips() {
        let rgb = [1, 0x80, 0xff];
        for (x, y, w, h) in [
            (0, 0, 0, 0),
            (1008, 511, 1008, 511),
            (16, 256, 1, 1),
            (32, 9, 17, 2),
        ] {
            let (xy, wh) = (VramXy::new(x, y), VramSize::new(w, h));
            let want = Gp0Command::Fill {
                color: ColorWord::new(opcode::FILL, rgb),
                xy: xy.0,
                wh: wh.0,
            };
            assert_eq!(decode(&fill_packet(rgb, xy, wh)), want);
            let rounded = (usize::from(w) + 15) & !15;
            let want = (usize::from(x), usize::from(y), rounded, usize::from(h));
            assert_eq!(crate::vram::fill_rect(xy.0, wh.0), want);
        }
    }

    /// GP0(A0h): the header reads back as the same rectangle, over the field edges, and its
    /// payload words in order.
    #[test]
    fn cpu_to_vram_round_trips() {
        use crate::vram::{transfer_size, transfer_xy, upload_word, Transfer};
        for (x, y, w, h) in [(0, 0, 1, 1), (1023, 511, 1024, 512), (512, 256, 3, 1)] {
            let (xy, wh) = (VramXy::new(x, y), VramSize::new(w, h));
            let header = cpu_to_vram_header(xy, wh);
            assert_eq!(
                decode(&header),
                Gp0Command::CpuToVram { xy: xy.0, wh: wh.0 }
            );
            assert_eq!(packet_words(header[0]), header.len());
            assert_eq!(transfer_xy(xy.0), (usize::from(x), usize::from(y)));
            assert_eq!(transfer_size(wh.0), (usize::from(w), usize::from(h)));
        }
        let mut vram = vec![0u16; crate::VRAM_WIDTH * crate::VRAM_HEIGHT];
        let mut t = Transfer::new(VramXy::new(4, 1).0, VramSize::new(2, 1).0);
        upload_word(&mut vram, &mut t, payload_word(0x1234, 0x8765), 0);
        assert_eq!(vram[crate::VRAM_WIDTH + 4..][..2], [0x1234, 0x8765]);
    }

    #[test]
    fn terminator_rule() {
        assert!(is_polyline_terminator(0x5555_5555));
        assert!(is_polyline_terminator(0x5000_5000));
        assert!(!is_polyline_terminator(0x4000_5000));
    }
}
