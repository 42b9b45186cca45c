//! What recorded GPU input does, counted without drawing (for `psxrender info`): words per
//! port, frames, GP0 commands by kind, GP1 commands by name, and the VRAM rectangles the
//! commands write.
//!
//! GP0 words are assembled into packets by the GPU's own [`Assembler`] (polylines segment by
//! segment until their terminator, upload payloads skipped) and decoded by
//! [`gpu::gp0::decode::decode`], the only reader of opcodes, so the counts use the GPU's own
//! vocabulary; GP1 commands are named by [`gpu::gp1::name`]. VRAM areas: uploads, copies and
//! fills are exact rectangles; what primitives touch is bounded by their vertices plus the
//! drawing offset, clipped to the drawing area — an upper bound (a primitive's right and bottom
//! edges are not drawn, and thin primitives cover less than their box).
//!
//! Pixels covered ([`Census::pixels`], what `replay --repeat` divides by its time): the sum
//! over drawing commands of their geometric area, before clipping to the drawing area —
//! triangles |cross product|/2 (rounded down per triangle), quads as their two triangles
//! (vertices 1-2-3 and 2-3-4), rectangles and fills w×h (fills with the width rounded up to 16
//! as drawn), lines and each polyline segment max(|dx|, |dy|) + 1. Uploads and copies are not
//! drawing and are not counted.

use serde::Serialize;

use gpu::gp0::assembler::{Assembler, Step};
use gpu::gp0::decode::{decode, Gp0Command, RawVertex};
use gpu::gp0::fields::{AreaCorner, DrawOffset};
use gpu::gp1;
use gpu::{transfer_size, transfer_xy};

use crate::capture::dump::PacketRef;
use crate::capture::input::Input;

/// An inclusive VRAM rectangle, in halfwords and lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Area {
    /// Left column.
    pub x0: u16,
    /// Top line.
    pub y0: u16,
    /// Right column (inclusive).
    pub x1: u16,
    /// Bottom line (inclusive).
    pub y1: u16,
}

impl Area {
    fn union(a: Option<Area>, b: Area) -> Option<Area> {
        Some(match a {
            None => b,
            Some(a) => Area {
                x0: a.x0.min(b.x0),
                y0: a.y0.min(b.y0),
                x1: a.x1.max(b.x1),
                y1: a.y1.max(b.y1),
            },
        })
    }

    /// The rectangle `w`×`h` at (`x`, `y`), cut at the VRAM edge (wrapping parts are counted
    /// as reaching the edge).
    fn rect(x: usize, y: usize, w: usize, h: usize) -> Option<Area> {
        if w == 0 || h == 0 {
            return None;
        }
        Some(Area {
            x0: x as u16,
            y0: y as u16,
            x1: (x + w - 1).min(gpu::VRAM_WIDTH - 1) as u16,
            y1: (y + h - 1).min(gpu::VRAM_HEIGHT - 1) as u16,
        })
    }
}

impl std::fmt::Display for Area {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "({},{})-({},{}), {}x{}",
            self.x0,
            self.y0,
            self.x1,
            self.y1,
            self.x1 - self.x0 + 1,
            self.y1 - self.y0 + 1
        )
    }
}

/// GP0 commands counted by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Gp0Counts {
    /// GP0(02h) fills.
    pub fills: u64,
    /// Triangles (GP0 20h–3Fh without the quad bit).
    pub triangles: u64,
    /// Quads.
    pub quads: u64,
    /// Of the triangles and quads, textured.
    pub textured_polygons: u64,
    /// Of the triangles and quads, gouraud-shaded.
    pub gouraud_polygons: u64,
    /// Polygons, lines and rectangles with the semi-transparency bit.
    pub semi_transparent: u64,
    /// Lines and polylines (GP0 40h–5Fh).
    pub lines: u64,
    /// Rectangles and sprites (GP0 60h–7Fh).
    pub rectangles: u64,
    /// VRAM→VRAM copies (80h–9Fh).
    pub copies: u64,
    /// CPU→VRAM uploads (A0h–BFh).
    pub uploads: u64,
    /// Halfwords those uploads carry.
    pub upload_halfwords: u64,
    /// VRAM→CPU reads (C0h–DFh).
    pub reads: u64,
    /// Drawing-environment settings (E1h–E6h).
    pub environment: u64,
    /// No-ops and cache clears (00h–1Fh other than 02h).
    pub other: u64,
}

/// VRAM written, by what wrote it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Areas {
    /// CPU→VRAM uploads.
    pub uploads: Option<Area>,
    /// Fills.
    pub fills: Option<Area>,
    /// VRAM→VRAM copy destinations.
    pub copies: Option<Area>,
    /// Primitives (bounding boxes clipped to the drawing area).
    pub drawing: Option<Area>,
    /// All of the above.
    pub all: Option<Area>,
}

/// The census of one input.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Census {
    /// Words written to GP0.
    pub gp0_words: u64,
    /// Words written to GP1.
    pub gp1_words: u64,
    /// Frame marks (`frame` lines, VSync packets).
    pub frames: u64,
    /// Pixels the drawing commands cover (see the module documentation).
    pub pixels: u64,
    /// GP0 commands by kind.
    pub gp0: Gp0Counts,
    /// GP1 commands: (name, count), in command order.
    pub gp1: Vec<(String, u64)>,
    /// VRAM areas written.
    pub vram: Areas,
}

/// The drawing state that decides where primitives land: GP0(E3h), GP0(E4h), GP0(E5h).
#[derive(Default)]
struct Env {
    top_left: AreaCorner,
    bottom_right: AreaCorner,
    offset: DrawOffset,
}

struct Counter {
    census: Census,
    assembler: Assembler,
    env: Env,
    gp1: Vec<u64>,
}

/// Pixels a triangle covers: |cross product| / 2, rounded down.
fn triangle_pixels(p: &[(i32, i32)]) -> u64 {
    let d = |a: (i32, i32), b: (i32, i32)| ((b.0 - a.0) as i64, (b.1 - a.1) as i64);
    let (a, b) = (d(p[0], p[1]), d(p[0], p[2]));
    (a.0 * b.1 - b.0 * a.1).unsigned_abs() / 2
}

/// Pixels a line from `a` to `b` covers: max(|dx|, |dy|) + 1.
fn line_pixels(a: (i32, i32), b: (i32, i32)) -> u64 {
    (a.0 - b.0).unsigned_abs().max((a.1 - b.1).unsigned_abs()) as u64 + 1
}

/// A vertex as sent (before the drawing offset).
fn point(v: &RawVertex) -> (i32, i32) {
    (v.pos.x(), v.pos.y())
}

impl Counter {
    fn new() -> Self {
        Counter {
            census: Census::default(),
            assembler: Assembler::default(),
            env: Env::default(),
            gp1: vec![0; 256],
        }
    }

    fn gp1(&mut self, w: u32) {
        self.census.gp1_words += 1;
        self.gp1[usize::from(gp1::command(w))] += 1;
    }

    /// Takes GP0 words, counting each packet and polyline segment as it completes.
    fn gp0(&mut self, words: &[u32]) {
        let mut at = 0;
        while at < words.len() {
            match self.assembler.next(words, &mut at) {
                Step::Pending | Step::Payload(_) => {}
                Step::Packet(r) => self.command(decode(&words[r])),
                Step::Gathered => self.command(decode(&self.assembler.gathered())),
                Step::Segment { from, to, .. } => {
                    let (from, to) = (point(&from), point(&to));
                    self.drawn(&[to], 0, 0);
                    self.census.pixels += line_pixels(from, to);
                }
            }
        }
    }

    /// Adds a primitive's box: `points` (before the offset) widened by `w`×`h` − 1.
    fn drawn(&mut self, points: &[(i32, i32)], w: i32, h: i32) {
        let (tl, br, offset) = (self.env.top_left, self.env.bottom_right, self.env.offset);
        let (ox, oy) = (offset.x(), offset.y());
        let (ax0, ay0, ax1, ay1) = (tl.x(), tl.y(), br.x(), br.y());
        let xs = points.iter().map(|p| p.0 + ox);
        let ys = points.iter().map(|p| p.1 + oy);
        let (x0, x1) = (
            xs.clone().min().unwrap_or(0),
            xs.max().unwrap_or(0) + w.max(1) - 1,
        );
        let (y0, y1) = (
            ys.clone().min().unwrap_or(0),
            ys.max().unwrap_or(0) + h.max(1) - 1,
        );
        let (x0, y0, x1, y1) = (x0.max(ax0), y0.max(ay0), x1.min(ax1), y1.min(ay1));
        if x0 > x1 || y0 > y1 {
            return;
        }
        let a = Area {
            x0: x0 as u16,
            y0: y0 as u16,
            x1: x1 as u16,
            y1: y1 as u16,
        };
        self.census.vram.drawing = Area::union(self.census.vram.drawing, a);
    }

    /// Counts one decoded command.
    fn command(&mut self, cmd: Gp0Command) {
        let c = &mut self.census.gp0;
        match cmd {
            Gp0Command::Nop | Gp0Command::ClearCache => c.other += 1,
            Gp0Command::CpuToVram { xy, wh } => {
                let (x, y) = transfer_xy(xy);
                let (w, h) = transfer_size(wh);
                c.uploads += 1;
                c.upload_halfwords += (w * h) as u64;
                self.census.vram.uploads =
                    Area::rect(x, y, w, h).and_then(|a| Area::union(self.census.vram.uploads, a));
            }
            Gp0Command::VramToCpu { .. } => c.reads += 1,
            Gp0Command::Fill { xy, wh, .. } => {
                c.fills += 1;
                let (x, y, w, h) = gpu::fill_rect(xy, wh);
                self.census.pixels += (w * h) as u64;
                if let Some(a) = Area::rect(x, y, w, h) {
                    self.census.vram.fills = Area::union(self.census.vram.fills, a);
                }
            }
            Gp0Command::Polygon { flags, verts } => {
                if flags.quad {
                    c.quads += 1;
                } else {
                    c.triangles += 1;
                }
                c.textured_polygons += flags.textured as u64;
                c.gouraud_polygons += flags.gouraud as u64;
                c.semi_transparent += flags.semi as u64;
                let n = if flags.quad { 4 } else { 3 };
                let pts: Vec<(i32, i32)> = verts[..n].iter().map(point).collect();
                self.census.pixels += pts.windows(3).map(triangle_pixels).sum::<u64>();
                self.drawn(&pts, 0, 0);
            }
            Gp0Command::Line { flags, verts } => {
                c.lines += 1;
                c.semi_transparent += flags.semi as u64;
                let pts: Vec<(i32, i32)> = verts.iter().map(point).collect();
                self.census.pixels += pts.windows(2).map(|s| line_pixels(s[0], s[1])).sum::<u64>();
                self.drawn(&pts, 0, 0);
            }
            Gp0Command::Rect {
                flags,
                size,
                vert,
                wh,
            } => {
                c.rectangles += 1;
                c.semi_transparent += flags.semi as u64;
                let (w, h) = size.size(wh);
                if w > 0 && h > 0 {
                    self.census.pixels += (w * h) as u64;
                    self.drawn(&[point(&vert)], w, h);
                }
            }
            Gp0Command::Copy { dst, wh, .. } => {
                c.copies += 1;
                let (x, y) = transfer_xy(dst);
                let (w, h) = transfer_size(wh);
                if let Some(a) = Area::rect(x, y, w, h) {
                    self.census.vram.copies = Area::union(self.census.vram.copies, a);
                }
            }
            Gp0Command::DrawMode(_) | Gp0Command::TexWindow(_) | Gp0Command::MaskSetting(_) => {
                c.environment += 1
            }
            Gp0Command::AreaTopLeft(w) => {
                c.environment += 1;
                self.env.top_left = AreaCorner::from_word(w);
            }
            Gp0Command::AreaBottomRight(w) => {
                c.environment += 1;
                self.env.bottom_right = AreaCorner::from_word(w);
            }
            Gp0Command::Offset(w) => {
                c.environment += 1;
                self.env.offset = DrawOffset::from_word(w);
            }
        }
    }

    fn finish(mut self) -> Census {
        self.census.gp0_words = self.assembler.words();
        self.census.gp1 = self
            .gp1
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(cmd, &n)| (format!("{:02X}h {}", cmd, gp1::name(cmd as u8)), n))
            .collect();
        let v = &mut self.census.vram;
        v.all = [v.uploads, v.fills, v.copies, v.drawing]
            .into_iter()
            .flatten()
            .fold(None, Area::union);
        self.census
    }
}

/// A census counted packet by packet, for input read as a stream.
pub struct Tally(Counter);

impl Default for Tally {
    fn default() -> Self {
        Tally(Counter::new())
    }
}

impl Tally {
    /// Counts one packet.
    pub fn add(&mut self, p: &PacketRef<'_>) {
        let c = &mut self.0;
        match p {
            PacketRef::Gp0(ws) => c.gp0(ws),
            PacketRef::Gp1(ws) => ws.iter().for_each(|&w| c.gp1(w)),
            PacketRef::VSync(_) => c.census.frames += 1,
            _ => {}
        }
    }

    /// The census of the packets counted.
    pub fn finish(self) -> Census {
        self.0.finish()
    }
}

impl Census {
    /// Counts what `input` does.
    pub fn of(input: &Input) -> Census {
        Census::up_to(input, None)
    }

    /// Counts what `input` does up to frame mark `frame` (as `replay --frame` runs it; `None`:
    /// all of it).
    pub fn up_to(input: &Input, frame: Option<u64>) -> Census {
        let mut t = Tally::default();
        if frame == Some(0) {
            return t.finish();
        }
        for (_, p) in input.packets() {
            t.add(&p);
            if frame == Some(t.0.census.frames) {
                break;
            }
        }
        t.finish()
    }

    /// The census as indented text lines.
    pub fn text(&self) -> String {
        let g = &self.gp0;
        let mut s = format!(
            "words: {} GP0, {} GP1; frames: {}; pixels covered: {}\n",
            self.gp0_words, self.gp1_words, self.frames, self.pixels
        );
        s.push_str(&format!(
            "GP0 commands: {} fills, {} triangles, {} quads ({} textured, {} gouraud), {} lines, \
             {} rectangles, {} semi-transparent; {} copies, {} uploads ({} halfwords), {} reads; \
             {} environment, {} other\n",
            g.fills,
            g.triangles,
            g.quads,
            g.textured_polygons,
            g.gouraud_polygons,
            g.lines,
            g.rectangles,
            g.semi_transparent,
            g.copies,
            g.uploads,
            g.upload_halfwords,
            g.reads,
            g.environment,
            g.other
        ));
        let gp1: Vec<String> = self.gp1.iter().map(|(n, c)| format!("{n} x{c}")).collect();
        s.push_str(&format!(
            "GP1 commands: {}\n",
            if gp1.is_empty() {
                "none".to_string()
            } else {
                gp1.join(", ")
            }
        ));
        s.push_str("VRAM written:\n");
        let v = &self.vram;
        for (name, a) in [
            ("uploads", v.uploads),
            ("fills", v.fills),
            ("copies", v.copies),
            ("drawing", v.drawing),
            ("all", v.all),
        ] {
            match a {
                Some(a) => s.push_str(&format!("  {name:<8} {a}\n")),
                None => s.push_str(&format!("  {name:<8} none\n")),
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hwtest::stream::Item;

    /// A text stream of `items` (lines numbered from 1).
    fn stream(items: Vec<Item>) -> Input {
        Input::from_items(&items)
    }

    fn census(words: &[u32]) -> Census {
        Census::of(&stream(words.iter().map(|&w| Item::Gp0(w)).collect()))
    }

    #[test]
    fn counts_and_areas() {
        let c = census(&[
            0xE300_0000,                 // area (0,0)
            0xE400_0000 | 99 | 79 << 10, // .. (99,79)
            0xE500_0000 | 10 | 5 << 11,  // offset (10,5)
            0x0200_0000,                 // fill
            0x0010_0020,                 // at (32,16)
            0x0008_0010,                 // 16x8
            0x2000_00ff,                 // flat triangle
            0x0000_0000,                 // (0,0)
            0x0000_0200,                 // (512,0): clipped at x 99
            0x0004_0000,                 // (0,4)
            0xA000_0000,                 // upload
            0x0100_0200,                 // at (512,256)
            0x0001_0003,                 // 3x1: 2 payload words
            0x1234_5678,
            0x0000_9abc,
            0x4800_00ff, // polyline, flat
            0x0000_0000,
            0x0002_0002,
            0x0004_0001,
            0x5555_5555, // terminator
            0xE600_0001,
        ]);
        assert_eq!(c.gp0_words, 21);
        // Fill 16×8, triangle 512×4/2, polyline segments (0,0)-(2,2) and (2,2)-(1,4).
        assert_eq!(c.pixels, 128 + 1024 + 3 + 3);
        assert_eq!((c.gp0.fills, c.gp0.triangles, c.gp0.lines), (1, 1, 1));
        assert_eq!((c.gp0.uploads, c.gp0.upload_halfwords), (1, 3));
        assert_eq!(c.gp0.environment, 4);
        assert_eq!(
            c.gp0.other, 0,
            "the upload payload and polyline words are not commands"
        );
        assert_eq!(
            c.vram.uploads,
            Some(Area {
                x0: 512,
                y0: 256,
                x1: 514,
                y1: 256
            })
        );
        assert_eq!(
            c.vram.fills,
            Some(Area {
                x0: 32,
                y0: 16,
                x1: 47,
                y1: 23
            })
        );
        assert_eq!(
            c.vram.drawing,
            Some(Area {
                x0: 10,
                y0: 5,
                x1: 99,
                y1: 9
            })
        );
        assert_eq!(
            c.vram.all,
            Some(Area {
                x0: 10,
                y0: 5,
                x1: 514,
                y1: 256
            })
        );
    }

    #[test]
    fn pixels_covered_by_each_kind() {
        let c = census(&[
            0x2800_0000, // flat quad: (0,0) (10,0) (0,10) (10,10), two triangles of 50
            0x0000_0000,
            0x0000_000a,
            0x000a_0000,
            0x000a_000a,
            0x6000_0000, // variable rectangle 7x3
            0x0005_0005,
            0x0003_0007,
            0x7000_0000, // 8x8 sprite
            0x0000_0000,
            0x4000_0000, // line (0,0)-(-5,3): 6 pixels (x sign-extended from 11 bits)
            0x0000_0000,
            0x0003_07fb,
            0x0200_0000, // fill 17x2: width rounded up to 32
            0x0000_0000,
            0x0002_0011,
        ]);
        assert_eq!(c.pixels, 100 + 21 + 64 + 6 + 64);
    }

    #[test]
    fn gp1_by_name() {
        let c = Census::of(&stream(vec![
            Item::Gp1(0),
            Item::Gp1(0x0800_0001),
            Item::Frame,
            Item::Gp1(0x0800_0000),
        ]));
        assert_eq!(c.frames, 1);
        assert_eq!(
            c.gp1,
            vec![
                ("00h reset".to_string(), 1),
                ("08h display mode".to_string(), 2)
            ]
        );
    }
}
