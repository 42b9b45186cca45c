//! Pixel history: for a few watched VRAM halfwords, every command that touched them, in order,
//! with what it drew there. A graphics debugger's "pixel history" for the PS1 GPU: the way to
//! find out why two renderers disagree on a pixel.
//!
//! While watching, the GPU draws each primitive on its own (its batch holds one primitive), so
//! the value before and after it is known exactly; a primitive's own view of the pixel
//! (`Prim::probe`) gives the interpolated colour and texture coordinates and the texel. Every
//! write the GPU makes goes through the span loops, not the probe: the event keeps both, and
//! [`PixelEvent::agrees`] says whether they match (tests hold it to be always). Textured
//! primitives are drawn in order through the texture cache while watching
//! (`crate::raster::feedback`), so each event says where its texel came from.

use crate::gp0::decode::RawVertex;
use crate::raster::feedback::TexelSource;
use crate::raster::{Hit, Outcome, Prim, TexSource};

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
    /// Whether what the GPU wrote equals what the primitive computes for this pixel on its own
    /// (always true for transfers).
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
        Tracer {
            points: points.iter().map(|&(x, y)| (x & 1023, y & 511)).collect(),
            ..Default::default()
        }
    }

    /// The watched points, as VRAM indices.
    pub fn indices(&self) -> impl Iterator<Item = (u16, u16, usize)> + '_ {
        self.points
            .iter()
            .map(|&(x, y)| (x, y, y as usize * crate::VRAM_WIDTH + x as usize))
    }

    /// What `p` would do to each watched point it covers, sampling `src`, before it is drawn
    /// into `vram`.
    pub fn probe(&self, p: &Prim, vram: &[u16], src: TexSource) -> Vec<(usize, Hit)> {
        let ((top, bottom), (left, right)) = (p.rows(), p.cols());
        self.indices()
            .enumerate()
            .filter(|&(_, (x, y, _))| {
                let (x, y) = (i32::from(x), i32::from(y));
                (top..bottom).contains(&y) && (left..right).contains(&x)
            })
            .filter_map(|(k, (x, y, i))| p.probe(x.into(), y.into(), src, vram[i]).map(|h| (k, h)))
            .collect()
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
        self.indices().map(|(_, _, i)| vram[i]).collect()
    }

    /// Records an event for watched point `k`.
    pub fn record(
        &mut self,
        k: usize,
        before: u16,
        after: u16,
        outcome: Outcome,
        hit: Option<Hit>,
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
            texel_source: None,
        });
    }

    /// Sets where the texel of the event just recorded came from.
    pub fn texel_source(&mut self, source: Option<TexelSource>) {
        if let Some(e) = self.events.last_mut() {
            e.texel_source = source;
        }
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
        let hits: Vec<(usize, usize)> = self
            .indices()
            .enumerate()
            .filter(|&(_, (x, y, _))| {
                let dx = (x as usize).wrapping_sub(x0) & 1023;
                let dy = (y as usize).wrapping_sub(y0) & 511;
                dx < w && dy < h
            })
            .map(|(k, (_, _, i))| (k, i))
            .collect();
        for (k, i) in hits {
            let outcome = if check_mask && before[k] & 0x8000 != 0 {
                Outcome::Masked
            } else {
                Outcome::Written
            };
            self.record(k, before[k], vram[i], outcome, None);
        }
    }
}
