//! Pixel history: for a few watched VRAM halfwords, every command that touched them, in order,
//! with what it drew there. A graphics debugger's "pixel history" for the PS1 GPU: the way to
//! find out why two renderers disagree on a pixel.
//!
//! While watching, the GPU draws each drawing packet as soon as it arrives, and each of its
//! primitives alone, pixel by pixel in the hardware's order, through the texture cache: the
//! in-order path texture feedback uses (`crate::raster::feedback`), here with a watcher
//! (`Tracer` as `crate::canvas::Watch`) told of every pixel. So each event holds the value
//! before and after the primitive, what it computed there (interpolated colour and texture
//! coordinates, texel) and where its texel came from (VRAM or the cache). The pixels are those
//! of the batched, banded drawing: `tests/emulator_reference.rs` holds the two to the same VRAM.

use crate::canvas::Watch;
use crate::gp0::decode::RawVertex;
use crate::raster::feedback::TexelSource;
use crate::raster::{Hit, Outcome};

/// Which part of a command an event comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Part {
    /// The whole command (a triangle, rectangle, line, fill, copy).
    #[default]
    Whole,
    /// Triangle 0 (v0 v1 v2) or 1 (v1 v2 v3) of a quad.
    Triangle(u8),
    /// Segment N (from 0) of a polyline.
    Segment(u32),
    /// The payload of a CPU→VRAM transfer.
    Upload,
}

/// The GP0 state a command ran with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommandState {
    /// GP0(E1h) draw mode bits 0–13 (a textured polygon's own texpage applied).
    pub draw_mode: u16,
    /// GP0(E2h) texture window bits 0–19.
    pub tex_window: u32,
    /// Drawing area, inclusive: x0, y0, x1, y1 (GP0(E3h), GP0(E4h)).
    pub area: [i32; 4],
    /// Drawing offset (GP0(E5h)), sign-extended.
    pub offset: (i32, i32),
    /// GP0(E6h) bits 0 (set mask bit) and 1 (check mask bit).
    pub mask: u32,
}

/// One command's effect on one watched halfword.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PixelEvent {
    /// VRAM column.
    pub x: u16,
    /// VRAM row.
    pub y: u16,
    /// The command's index among the GP0 commands received (from 0).
    pub command: u64,
    /// Index of the command's first word among the GP0 words received (from 0).
    pub word: u64,
    /// The command's words: the whole packet (a polyline: its first word and the segment's two
    /// vertices, laid out as a two-point line; a transfer: its three header words).
    pub words: Vec<u32>,
    /// The part of the command.
    pub part: Part,
    /// The GP0 state it ran with.
    pub state: CommandState,
    /// The halfword before the command.
    pub before: u16,
    /// The halfword after it.
    pub after: u16,
    /// Whether it was written, or why not.
    pub outcome: Outcome,
    /// For primitives: the pixel as the primitive computes it on its own.
    pub hit: Option<Hit>,
    /// For textured primitives: where the texel came from (VRAM, or the texture cache and
    /// when its entry was filled).
    pub texel_source: Option<TexelSource>,
}

impl PixelEvent {
    /// Whether the halfword left equals what the primitive computed for this pixel (always
    /// true for transfers).
    pub fn agrees(&self) -> bool {
        self.hit.is_none_or(|h| h.value == self.after)
    }
}

/// The watched halfwords and what happened to them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tracer {
    /// Segments of the current polyline drawn so far.
    pub segment: u32,
    /// Watched (x, y), each in VRAM.
    points: Vec<(u16, u16)>,
    /// One bit per VRAM halfword, set where a point is watched: most pixels drawn are not.
    marked: Vec<u64>,
    /// The command being run is a quad: its primitives are its triangles.
    pub quad: bool,
    /// Events so far, in order.
    pub events: Vec<PixelEvent>,
    /// The command being run: its index among GP0 commands.
    pub command: u64,
    /// Its first word's index among GP0 words.
    pub word: u64,
    /// Its words.
    pub words: Vec<u32>,
    /// The part of the command the next primitive is.
    pub part: Part,
    /// The GP0 state the command runs with.
    pub state: CommandState,
}

impl Tracer {
    pub fn new(points: &[(u16, u16)]) -> Self {
        let mut t = Tracer {
            points: points.iter().map(|&(x, y)| (x & 1023, y & 511)).collect(),
            marked: vec![0; crate::VRAM_WIDTH * crate::VRAM_HEIGHT / 64],
            ..Default::default()
        };
        for k in 0..t.points.len() {
            let i = t.index(k);
            t.marked[i / 64] |= 1 << (i % 64);
        }
        t
    }

    /// A GP0 command begins: command `command` among GP0 commands, its first word `word`
    /// among GP0 words, `words` its words.
    pub fn begin(&mut self, (command, word): (u64, u64), words: &[u32]) {
        (self.command, self.word) = (command, word);
        self.words.clear();
        self.words.extend_from_slice(words);
        self.segment = 0;
        self.part = Part::Whole;
        self.quad = false;
    }

    /// The part of a line command the next segment is: numbered along a polyline.
    pub fn segment_part(&mut self, polyline: bool) -> Part {
        if !polyline {
            return Part::Whole;
        }
        self.segment += 1;
        Part::Segment(self.segment - 1)
    }

    /// The VRAM index of watched point `k`.
    fn index(&self, k: usize) -> usize {
        let (x, y) = self.points[k];
        y as usize * crate::VRAM_WIDTH + x as usize
    }

    /// A polyline's next segment: the command's words become its first word (opcode, and the
    /// start's colour when gouraud) and the two vertices, a two-point line. Every event of a
    /// polyline then holds the same few words, not all the words so far: memory stays
    /// proportional to the events, as long as a polyline may be.
    pub fn segment(&mut self, gouraud: bool, from: &RawVertex, to: &RawVertex) {
        let first = self.words.first().copied().unwrap_or(0);
        self.words.clear();
        if gouraud {
            let first = (first & 0xff00_0000) | (from.color.0 & 0x00ff_ffff);
            self.words.extend([first, from.pos.0, to.color.0, to.pos.0]);
        } else {
            self.words.extend([first, from.pos.0, to.pos.0]);
        }
    }

    /// Values of the watched points in `vram`.
    pub fn values(&self, vram: &[u16]) -> Vec<u16> {
        (0..self.points.len())
            .map(|k| vram[self.index(k)])
            .collect()
    }

    /// Records an event for watched point `k`; `hit` and `texel_source` for primitives.
    fn record(
        &mut self,
        k: usize,
        (before, after): (u16, u16),
        outcome: Outcome,
        hit: Option<Hit>,
        texel_source: Option<TexelSource>,
    ) {
        let (x, y) = self.points[k];
        self.events.push(PixelEvent {
            x,
            y,
            command: self.command,
            word: self.word,
            words: self.words.clone(),
            part: self.part,
            state: self.state,
            before,
            after,
            outcome,
            hit,
            texel_source,
        });
    }

    /// Records the watched points inside the VRAM rectangle `(x, y, w, h)` (wrapping) that a
    /// transfer covered: `before` as [`Tracer::values`] gave them, `vram` after the transfer,
    /// `check_mask` whether it kept destinations with the mask bit.
    pub fn record_rect(
        &mut self,
        rect: (usize, usize, usize, usize),
        before: &[u16],
        vram: &[u16],
        check_mask: bool,
    ) {
        let (x0, y0, w, h) = rect;
        for k in 0..self.points.len() {
            let (x, y) = self.points[k];
            let dx = (x as usize).wrapping_sub(x0) & 1023;
            let dy = (y as usize).wrapping_sub(y0) & 511;
            if dx < w && dy < h {
                let outcome = match check_mask && before[k] & 0x8000 != 0 {
                    true => Outcome::Masked,
                    false => Outcome::Written,
                };
                self.record(k, (before[k], vram[self.index(k)]), outcome, None, None);
            }
        }
    }
}

impl Watch for Tracer {
    fn primitive(&mut self, half: u8) {
        if self.quad {
            self.part = Part::Triangle(half);
        }
    }

    fn command(&self) -> u64 {
        self.command
    }

    fn pixel(&mut self, at: usize, before: u16, hit: Hit, source: Option<TexelSource>) {
        if self.marked[at / 64] & 1 << (at % 64) == 0 {
            return;
        }
        for k in 0..self.points.len() {
            if self.index(k) == at {
                self.record(k, (before, hit.value), hit.outcome, Some(hit), source);
            }
        }
    }
}
