//! Commands into effects: a decoded GP0 packet updates the drawing state, becomes primitives
//! queued in the batch (vertices placed, texture looked up through the texture cache), or runs
//! a transfer after drawing the batch. With a pixel history watched, each primitive is drawn
//! on its own and what it does to the watched halfwords is recorded.

use crate::gp0::assembler::Step;
use crate::gp0::decode::{decode, Gp0Command, PolyFlags, RawVertex, RectSize};
use crate::gp0::fields::{Clut, ColorWord, TexPage, TexWindow};
use crate::raster::batch::{BATCH_CAP, MAX_BATCH};
use crate::raster::line::Line;
use crate::raster::rect::Rect;
use crate::raster::texcache::{Access, UvBounds, Wait};
use crate::raster::texture::Texture;
use crate::raster::tiles::TileSet;
use crate::raster::triangle::{Shading, TriangleCmd, Vtx};
use crate::raster::{Outcome, Prim, TexSource};
use crate::trace::{CommandState, Part};
use crate::{vram, Gpu};

impl Gpu {
    /// Runs a whole packet: a command, a polyline's first segment, a transfer's header.
    pub(crate) fn run_packet(&mut self, words: &[u32]) {
        if let Some(t) = &mut self.trace {
            (t.command, t.word) = self.asm.command();
            t.words.clear();
            t.words.extend_from_slice(words);
            t.segment = 0;
            t.part = Part::Whole;
        }
        match decode(words) {
            Gp0Command::Nop => {}
            Gp0Command::ClearCache => self.tex.clear_clut(),
            Gp0Command::Fill { color, xy, wh } => {
                let rect = vram::fill_rect(xy, wh);
                self.transfer(rect, false, |v| vram::fill(v, color.to_bgr555(), xy, wh));
            }
            Gp0Command::Copy { src, dst, wh } => {
                let ((x, y), (w, h)) = (vram::transfer_xy(dst), vram::transfer_size(wh));
                let mask = self.state.mask;
                self.transfer((x, y, w, h), mask & 2 != 0, |v| {
                    vram::copy(v, src, dst, wh, mask)
                });
            }
            Gp0Command::CpuToVram { xy, wh } => {
                self.flush();
                let t = vram::Transfer::new(xy, wh);
                let (x, y, w, h) = t.rect();
                let vram = &self.canvas.images().vram;
                self.tex.before_write(vram, TileSet::rect(x, y, w, h));
                self.upload = Some(t);
            }
            Gp0Command::VramToCpu { xy, wh } => {
                self.flush();
                self.readback = Some(vram::Transfer::new(xy, wh));
            }
            Gp0Command::DrawMode(w) => self.state.draw_mode = TexPage((w & 0x3fff) as u16),
            Gp0Command::TexWindow(w) => self.state.tex_window = TexWindow(w & 0xf_ffff),
            Gp0Command::AreaTopLeft(w) => self.state.area_tl = w & 0xf_ffff,
            Gp0Command::AreaBottomRight(w) => self.state.area_br = w & 0xf_ffff,
            Gp0Command::Offset(w) => self.state.offset = w & 0x3f_ffff,
            Gp0Command::MaskSetting(w) => self.state.mask = w & 3,
            Gp0Command::Polygon { flags, verts } => self.polygon(flags, &verts),
            // A polyline's first segment; the assembler hands over the others.
            Gp0Command::Line { flags, verts } => {
                if verts.len() >= 2 {
                    self.line(flags, &verts[0], &verts[1]);
                }
            }
            Gp0Command::Rect {
                flags,
                size,
                vert,
                wh,
            } => self.rect(flags, size, &vert, wh),
        }
    }

    /// Ends the batch if `n` more primitives would take it past [`MAX_BATCH`] (so a
    /// texture's CLUT slot, looked up next, stays valid for the primitive's triangles). While
    /// the helper threads are still drawing the batch before, it grows on instead, up to
    /// [`BATCH_CAP`]: ending it now would only put this thread to sleep until they are done.
    fn room(&mut self, n: usize) {
        let len = self.batch.len() + n;
        if len > MAX_BATCH && (len > BATCH_CAP || !self.canvas.helpers_drawing()) {
            self.end_batch(false);
        }
    }

    /// The texture for coordinates `uv` of `page` with `clut` under the current window,
    /// ending the batch first when it may have drawn where they are, and waiting for the batch
    /// drawing in the background when VRAM must be read.
    fn texture(&mut self, page: TexPage, clut: Clut, uv: UvBounds) -> Texture {
        let what = (page, clut, self.state.tex_window);
        let cluts = &mut self.batch.cluts;
        match self.tex.texture(self.canvas.access(), what, uv, cluts) {
            Ok(t) => t,
            Err(wait) => {
                if wait == Wait::Conflict {
                    self.end_batch(true);
                }
                let images = Access::Here(self.canvas.images());
                self.tex
                    .texture(images, what, uv, &mut self.batch.cluts)
                    .expect("no batch pending or drawing")
            }
        }
    }

    fn textures_disabled(&self) -> bool {
        self.display.allow_texture_disable && self.state.draw_mode.texture_disable()
    }

    /// GP0(20h–3Fh): a triangle, or a quad as triangles v0 v1 v2 and v1 v2 v3.
    // Verified: hwtests phases 1 (quad split), 4, 8.
    fn polygon(&mut self, flags: PolyFlags, raw: &[RawVertex; 4]) {
        self.room(2);
        let mut texture = None;
        if flags.textured {
            // The polygon's texpage replaces E1 bits 0–8 and 11.
            let page = raw[1].tex.attr();
            let mode = &mut self.state.draw_mode;
            *mode = TexPage((mode.0 & !0x09ff) | (page & 0x09ff));
            if !self.textures_disabled() {
                let uvs = raw.map(|r| (r.tex.u(), r.tex.v()));
                let uv = UvBounds::polygon(&uvs[..3 + flags.quad as usize]);
                texture = Some(self.texture(self.state.draw_mode, Clut(raw[0].tex.attr()), uv));
            }
        }
        let raw_tex = flags.raw && texture.is_some();
        let dither =
            self.state.draw_mode.dither() && (flags.gouraud || (texture.is_some() && !raw_tex));
        let shading = Shading {
            gouraud: flags.gouraud,
            raw: raw_tex,
            dither,
            mode: self.state.pixel_mode(flags.semi),
            texture,
        };
        let v: [Vtx; 4] = std::array::from_fn(|i| self.state.vtx(&raw[i]));
        let clip = self.state.clip();
        for k in 0..1 + flags.quad as usize {
            if let (Some(t), true) = (&mut self.trace, flags.quad) {
                t.part = Part::Triangle(k as u8);
            }
            if let Some(t) = TriangleCmd::new([v[k], v[k + 1], v[k + 2]], clip, shading) {
                self.push(Prim::Triangle(t));
            }
        }
    }

    /// GP0(40h–5Fh): a line, or one segment of a polyline.
    pub(crate) fn line(&mut self, flags: PolyFlags, a: &RawVertex, b: &RawVertex) {
        if let (Some(t), true) = (&mut self.trace, flags.quad) {
            t.part = Part::Segment(t.segment);
            t.segment += 1;
        }
        self.room(1);
        // Verified: gpu-images/lines (flat lines dither too).
        let dither = self.state.draw_mode.dither();
        let (va, vb) = (self.state.vtx(a), self.state.vtx(b));
        let mode = self.state.pixel_mode(flags.semi);
        if let Some(l) = Line::new(va, vb, flags.gouraud, dither, self.state.clip(), mode) {
            self.push(Prim::Line(l));
        }
    }

    /// GP0(60h–7Fh): a rectangle.
    fn rect(&mut self, flags: PolyFlags, size: RectSize, vert: &RawVertex, wh: u32) {
        let (w, h) = match size {
            RectSize::Variable => ((wh & 0x3ff) as i32, ((wh >> 16) & 0x1ff) as i32),
            RectSize::One => (1, 1),
            RectSize::Eight => (8, 8),
            RectSize::Sixteen => (16, 16),
        };
        if w == 0 || h == 0 {
            return;
        }
        self.room(1);
        let (x, y) = self.state.place(vert.pos);
        let texture = if flags.textured && !self.textures_disabled() {
            let mode = self.state.draw_mode;
            let (u, v) = (vert.tex.u(), vert.tex.v());
            let uv = UvBounds::rect(u, v, (w, h), (mode.flip_x(), mode.flip_y()));
            let t = self.texture(mode, Clut(vert.tex.attr()), uv);
            Some((t, u, v))
        } else {
            None
        };
        let c: ColorWord = vert.color;
        let r = Rect {
            x,
            y,
            w,
            h,
            rgb: (c.r() as i32, c.g() as i32, c.b() as i32),
            raw: flags.raw,
            texture,
            flip_x: self.state.draw_mode.flip_x(),
            flip_y: self.state.draw_mode.flip_y(),
            clip: self.state.clip(),
            mode: self.state.pixel_mode(flags.semi),
        };
        self.push(Prim::Rect(r));
    }

    /// Queues `p` (the caller made room), recording the tiles it may draw.
    fn push(&mut self, p: Prim) {
        let ((t, b), (l, r)) = (p.rows(), p.cols());
        if t < b && l < r {
            let tiles = TileSet::rect(l as usize, t as usize, (r - l) as usize, (b - t) as usize);
            self.tex.will_draw(tiles);
        }
        match self.trace.is_some() {
            true => self.push_traced(p),
            false => self.batch.push(p),
        }
    }

    /// Runs a transfer `f` over the VRAM rectangle `rect` (x, y, w, h, wrapping) after drawing
    /// the batch, recording the watched halfwords it covers (`check_mask`: whether it keeps
    /// destinations with the mask bit).
    fn transfer(
        &mut self,
        rect: (usize, usize, usize, usize),
        check_mask: bool,
        f: impl FnOnce(&mut [u16]),
    ) {
        self.flush();
        let (x, y, w, h) = rect;
        let state = self.trace_state();
        let vram = &mut self.canvas.images().vram;
        self.tex.before_write(vram, TileSet::rect(x, y, w, h));
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
                self.line(flags, &from, &to)
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
        let vram = &mut self.canvas.images().vram;
        let before = tr.values(&vram[..]);
        vram::upload_word(&mut vram[..], t, word, self.state.mask);
        let check = self.state.mask & 2 != 0;
        let hits: Vec<(usize, usize)> = tr
            .indices()
            .enumerate()
            .filter(|(_, (_, _, i))| at.contains(&Some(*i)))
            .map(|(k, (_, _, i))| (k, i))
            .collect();
        for (k, i) in hits {
            let outcome = match check && before[k] & 0x8000 != 0 {
                true => Outcome::Masked,
                false => Outcome::Written,
            };
            tr.record(k, before[k], vram[i], outcome, None);
        }
    }

    /// Draws `p` on its own, recording what it does to the watched halfwords. The batch's CLUT
    /// table is kept: a quad's second triangle still indexes it.
    fn push_traced(&mut self, p: Prim) {
        let state = self.trace_state();
        let Some(tr) = &mut self.trace else { return };
        tr.state = state;
        let images = self.canvas.images();
        let src = TexSource {
            vram: &images.snapshot,
            cluts: &self.batch.cluts,
        };
        let hits = tr.probe(&p, &images.vram[..], src);
        let before = tr.values(&images.vram[..]);
        self.batch.push(p);
        self.draw_batch(false);
        let Some(tr) = &mut self.trace else { return };
        let after = tr.values(&self.canvas.images().vram[..]);
        for (k, hit) in hits {
            tr.record(k, before[k], after[k], hit.outcome, Some(hit));
        }
    }
}
