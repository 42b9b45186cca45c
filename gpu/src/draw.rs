//! Commands into effects: a decoded GP0 packet updates the drawing state, is queued to be
//! drawn (`prepare.rs` turns it into primitives later, on any thread), or runs a transfer after
//! drawing what is queued. With a pixel history watched, each drawing packet is drawn as soon
//! as it is queued, with the tracer watching (`canvas.rs` `Canvas::draw_watched`).

use crate::canvas::Canvas;
use crate::gp0::assembler::Step;
use crate::gp0::decode::{decode, draws, polygon_page, Gp0Command, PolyFlags, RawVertex};
use crate::gp0::fields::{AreaCorner, DrawOffset, MaskSetting, TexPage, TexWindow};
use crate::prepare::Snap;
use crate::raster::batch::MAX_BATCH;
use crate::raster::feedback::{empties_cache, FeedbackStats};
use crate::raster::texcache::ClutReload;
use crate::raster::tiles::TileSet;
use crate::trace::{CommandState, Part};
use crate::{vram, Gpu};

impl Gpu {
    /// Runs a whole packet: a command, a polyline's first segment, a transfer's header.
    /// Drawing packets are queued as they are, after their texture page (if any) has updated
    /// the draw mode: all the front end does for them.
    pub(crate) fn run_packet(&mut self, words: &[u32]) {
        if self.trace.is_none() && draws(words[0]).0 {
            return self.queue_drawing(words);
        }
        if let Some(t) = &mut self.trace {
            t.begin(self.asm.command(), words);
        }
        match decode(words) {
            Gp0Command::Nop => {}
            Gp0Command::ClearCache => self.cache_stage().tex.empty_caches(),
            Gp0Command::Fill { color, xy, wh } => {
                let rect = vram::fill_rect(xy, wh);
                let f = |v: &mut [u16]| vram::fill(v, color.to_bgr555(), xy, wh);
                self.transfer(rect, None, f);
            }
            Gp0Command::Copy { src, dst, wh } => {
                let ((x, y), (w, h)) = (vram::transfer_xy(dst), vram::transfer_size(wh));
                let mask = self.state.mask;
                let f = |v: &mut [u16]| vram::copy(v, src, dst, wh, mask);
                self.transfer((x, y, w, h), Some(mask & 2 != 0), f);
            }
            Gp0Command::CpuToVram { xy, wh } => {
                let t = vram::Transfer::new(xy, wh);
                let (x, y, w, h) = t.rect();
                let stage = self.cache_stage();
                stage.tex.feedback.empty();
                stage
                    .tex
                    .before_write(&stage.images.vram, TileSet::rect(x, y, w, h));
                self.upload = Some(t);
            }
            Gp0Command::VramToCpu { xy, wh } => {
                self.cache_stage().tex.feedback.empty();
                self.readback = Some(vram::Transfer::new(xy, wh));
            }
            Gp0Command::DrawMode(w) => self.set_draw_mode(TexPage::from_draw_mode_word(w)),
            Gp0Command::TexWindow(w) => self.set_state(|s| s.tex_window = TexWindow::from_word(w)),
            Gp0Command::AreaTopLeft(w) => {
                self.set_state(|s| s.area_tl = AreaCorner::from_word(w).0)
            }
            Gp0Command::AreaBottomRight(w) => {
                self.set_state(|s| s.area_br = AreaCorner::from_word(w).0)
            }
            Gp0Command::Offset(w) => self.set_state(|s| s.offset = DrawOffset::from_word(w).0),
            Gp0Command::MaskSetting(w) => self.set_state(|s| s.mask = MaskSetting::from_word(w).0),
            Gp0Command::Polygon { flags, .. } => {
                self.queue_drawing(words);
                self.watch_packet(Part::Whole, flags.quad);
            }
            Gp0Command::Line { flags, verts } => {
                self.queue_drawing(words);
                let polyline = flags.polyline() && verts.len() >= 2;
                let part = (self.trace.as_mut()).map_or(Part::Whole, |t| t.segment_part(polyline));
                self.watch_packet(part, false);
            }
            Gp0Command::Rect { .. } => {
                self.queue_drawing(words);
                self.watch_packet(Part::Whole, false);
            }
        }
    }

    /// With a pixel history watched, draws the packet just queued, its primitives being part
    /// `part` of the command (`quad`: its triangles are), watched.
    fn watch_packet(&mut self, part: Part, quad: bool) {
        let state = self.trace_state();
        if let Some(t) = &mut self.trace {
            (t.state, t.part, t.quad) = (state, part, quad);
            self.flush();
        }
    }

    /// Changes the drawing state; packets queued from here on take a new snap of it.
    fn set_state(&mut self, f: impl FnOnce(&mut crate::state::DrawState)) {
        f(&mut self.state);
        self.queue.state_changed();
    }

    /// GP0(E1h): the draw mode; a page or depth change empties the texture cache. Queued
    /// packets keep their own draw mode and epoch, so this takes no new snap.
    fn set_draw_mode(&mut self, mode: TexPage) {
        if empties_cache(self.state.draw_mode, mode) {
            self.cache_epoch = self.cache_epoch.wrapping_add(1);
        }
        self.state.draw_mode = mode;
    }

    /// A textured polygon's page replaces E1 bits 0–8 and 11 (emptying the texture cache as
    /// GP0(E1h) does).
    #[inline]
    fn polygon_page(&mut self, words: &[u32]) {
        let Some(page) = polygon_page(words) else {
            return;
        };
        let mode = self.state.draw_mode;
        let new = TexPage((mode.0 & !0x09ff) | (page & 0x09ff));
        if new != mode {
            self.set_draw_mode(new);
        }
    }

    /// The stage, everything queued drawn, its texture cache at the current drawing-mode
    /// epoch: for what changes the texture cache outside the scan (transfers, resets).
    pub(crate) fn cache_stage(&mut self) -> &mut Canvas {
        self.flush();
        self.canvas.tex.sync_epoch(self.cache_epoch);
        &mut self.canvas
    }

    /// The drawing state a packet queued now runs under.
    pub(crate) fn snap(&self) -> Snap {
        Snap {
            state: self.state,
            allow_texture_disable: self.display.allow_texture_disable,
            cache_epoch: self.cache_epoch,
        }
    }

    /// Queues a drawing packet (a textured polygon's page updating the draw mode first),
    /// running the queue first when it is full.
    #[inline]
    pub(crate) fn queue_drawing(&mut self, words: &[u32]) {
        if draws(words[0]).1 {
            self.polygon_page(words);
        }
        if self.queue.len() >= MAX_BATCH {
            self.flush();
        }
        let snap = self.snap();
        self.queue.push(words, &snap);
    }

    /// Queues the whole polygon and rectangle packets that follow one another in `words` from
    /// `*at` on (advancing `*at` past them), as [`Gpu::queue_drawing`] would one by one, but
    /// with their words copied in one go; false if no such packet is at `*at`.
    #[inline]
    pub(crate) fn queue_drawing_run(&mut self, words: &[u32], at: &mut usize) -> bool {
        let mut from = *at;
        let Some(mut p) = self.asm.drawing_packet(words, at) else {
            return false;
        };
        let snap = self.snap();
        self.queue.take_snap(|| snap);
        loop {
            if draws(words[p.start]).1 {
                self.polygon_page(&words[p.clone()]);
            }
            if self.queue.len() >= MAX_BATCH {
                self.queue.append(&words[from..p.start]);
                self.flush();
                from = p.start;
                let snap = self.snap();
                self.queue.take_snap(|| snap);
            }
            let (mode, epoch) = (self.state.draw_mode, self.cache_epoch);
            self.queue.push_item(p.start - from, p.len(), mode, epoch);
            match self.asm.drawing_packet(words, at) {
                Some(next) => p = next,
                None => break,
            }
        }
        self.queue.append(&words[from..*at]);
        true
    }

    /// A polyline's next segment (GP0(48h–4Fh), GP0(58h–5Fh)), queued as a line of its own.
    pub(crate) fn segment(&mut self, flags: PolyFlags, from: &RawVertex, to: &RawVertex) {
        if self.queue.len() >= MAX_BATCH {
            self.flush();
        }
        let snap = self.snap();
        self.queue.push_segment(flags, from, to, &snap);
        if let Some(t) = &mut self.trace {
            let part = t.segment_part(flags.polyline());
            self.watch_packet(part, false);
        }
    }

    /// Runs a transfer `f` over the VRAM rectangle `rect` (x, y, w, h, wrapping) after drawing
    /// the batch, recording the watched halfwords it covers: a copy (GP0(80h), `copy` whether
    /// GP0(E6h) keeps destinations with the mask bit set), which empties the texture cache,
    /// or a fill (GP0(02h), `copy` `None`), which leaves it as it is: what it holds of the
    /// rectangle goes stale.
    fn transfer(
        &mut self,
        rect: (usize, usize, usize, usize),
        copy: Option<bool>,
        f: impl FnOnce(&mut [u16]),
    ) {
        let (x, y, w, h) = rect;
        let tiles = TileSet::rect(x, y, w, h);
        let state = self.trace_state();
        self.cache_stage();
        let stage = &mut self.canvas;
        match copy {
            None => stage.tex.feedback_write(&stage.images.vram, tiles),
            Some(_) => stage.tex.feedback.empty(),
        }
        let check_mask = copy.unwrap_or(false);
        stage.tex.before_write(&stage.images.vram, tiles);
        let vram = &mut stage.images.vram;
        let before = self.trace.as_mut().map(|t| {
            t.state = state;
            t.values(&vram[..])
        });
        f(&mut vram[..]);
        if let (Some(t), Some(before)) = (&mut self.trace, before) {
            t.record_rect(rect, &before, &vram[..], check_mask);
        }
    }

    /// One GP0 word while a pixel history is watched: a polyline segment's words are kept with
    /// its command, and payload words are recorded as they land.
    pub(crate) fn traced_word(&mut self, word: u32) {
        let (mut at, words) = (0, [word]);
        match self.asm.next(&words, &mut at) {
            Step::Pending => {}
            Step::Packet(p) => self.run_packet(&words[p]),
            Step::Gathered => self.run_packet(&self.asm.gathered()),
            Step::Segment { flags, from, to } => {
                if let Some(t) = &mut self.trace {
                    t.segment(flags.gouraud, &from, &to);
                }
                self.segment(flags, &from, &to)
            }
            Step::Payload(_) => self.upload_traced(word),
        }
    }

    /// The GP0 state, for the pixel history.
    fn trace_state(&self) -> CommandState {
        let c = self.state.clip();
        CommandState {
            draw_mode: self.state.draw_mode.0,
            tex_window: self.state.tex_window.0,
            area: [c.x0, c.y0, c.x1, c.y1],
            offset: self.state.offset(),
            mask: self.state.mask,
        }
    }

    /// [`vram::upload_word`], recording the watched halfwords the word writes.
    fn upload_traced(&mut self, word: u32) {
        let state = self.trace_state();
        let (Some(tr), Some(t)) = (&mut self.trace, &mut self.upload) else {
            return;
        };
        tr.state = state;
        tr.part = Part::Upload;
        let at = [t.index_ahead(0), t.index_ahead(1)];
        let vram = &mut self.canvas.images.vram;
        let before = tr.values(&vram[..]);
        vram::upload_word(&mut vram[..], t, word, self.state.mask);
        let check = self.state.mask & 2 != 0;
        for i in at.into_iter().flatten() {
            let xy = (i % crate::VRAM_WIDTH, i / crate::VRAM_WIDTH);
            tr.record_rect((xy.0, xy.1, 1, 1), &before, &vram[..], check);
        }
    }

    /// When the CLUT cache loads a CLUT it holds again: as the console (the default) or as
    /// the reference software GPU of `hwtests/emulator-reference`, for comparisons with it.
    pub fn set_clut_reload(&mut self, rule: ClutReload) {
        self.cache_stage().tex.clut_reload = rule;
    }

    /// How often primitives were drawn in order through the texture cache, and how often its
    /// logged fetches were replayed, since power-on.
    pub fn feedback_stats(&mut self) -> FeedbackStats {
        self.cache_stage().tex.feedback.stats
    }
}
