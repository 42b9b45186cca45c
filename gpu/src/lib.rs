//! The PlayStation 1 GPU, emulated bit for bit.
//!
//! Data flow: GP0 words → packet assembly ([`Gpu::gp0`]) → decoded commands
//! ([`gp0::decode`]) → set-up primitives ([`raster`]) queued in a batch → drawn over bands of
//! the 1024×512 VRAM of 16-bit halfwords (bit 15 = mask bit, bits 0–14 = BGR555), in parallel,
//! identical to a serial run ([`raster::bands`]). Transfers ([`vram`]) run immediately after
//! the batch. GP1 words set display state, which [`Gpu::display`] reports so a front end can
//! cut the visible picture out of VRAM.
//!
//! Power-on state: VRAM zeroed, all GP0 state zero (as after GP1(00h)), display disabled with
//! the GP1(00h) default ranges.
#![warn(missing_docs)]

pub mod gp0;
pub mod raster;
pub mod rng;
pub mod trace;
pub mod vram;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use gp0::decode::{decode, is_polyline_terminator, packet_len, Gp0Command, PolyFlags, RawVertex};
use gp0::fields::{sext11, Clut, ColorWord, TexPage, TexWindow, VertexWord};
use raster::bands::{Batch, Exec, MAX_BATCH};
use raster::line::Line;
use raster::pixel::PixelMode;
use raster::rect::Rect;
use raster::snapshot::TextureSnapshot;
use raster::span::Simd;
use raster::texture::{clut_len, footprint_x, ClutTable, Texture};
use raster::triangle::{Shading, TriangleCmd, Vtx};
use raster::{Clip, Outcome, Prim, TexSource};
use trace::{DrawState, Part, PixelEvent, Tracer};

/// VRAM width in halfwords.
pub const VRAM_WIDTH: usize = 1024;
/// VRAM height in lines.
pub const VRAM_HEIGHT: usize = 512;
/// All of VRAM as one fixed-size array of halfwords, row-major (texture reads index it with
/// masks instead of bounds checks).
pub type VramImage = [u16; VRAM_WIDTH * VRAM_HEIGHT];
/// Words in one [`Gpu::gp0_words`] call from which a GPU with more than one rasteriser thread
/// keeps its pool busy for the whole call.
pub const BUSY_WORDS: usize = 1024;
/// What GP1 says the TV shows: where in VRAM, how big, and in which colour depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Display {
    /// Left edge of the displayed area in VRAM halfwords (GP1(05h)).
    pub x: u16,
    /// Top edge in VRAM lines (GP1(05h)).
    pub y: u16,
    /// Visible width in pixels: `((X2−X1)/cycles_per_pixel + 2) & !3` from GP1(06h) and the
    /// dot clock of GP1(08h) (256/320/368/512/640 for the standard ranges).
    pub width: u16,
    /// Visible height in lines: `Y2−Y1` from GP1(07h), doubled in 480-line interlace
    /// (GP1(08h) bits 2 and 5).
    pub height: u16,
    /// 24-bit colour mode (GP1(08h) bit 4): pixels are 3 bytes packed in VRAM.
    pub depth24: bool,
    /// Display enabled (GP1(03h) bit 0 clear).
    pub enabled: bool,
    /// Nominal horizontal resolution of GP1(08h) (256/320/368/512/640).
    pub mode_width: u16,
    /// 480-line interlaced mode (GP1(08h) bits 2 and 5).
    pub interlaced480: bool,
    /// PAL (GP1(08h) bit 3).
    pub pal: bool,
}

/// The CLUT cache: which CLUT it holds, how many entries it loaded (16 or 256) and what it read.
#[derive(Clone, Debug)]
struct ClutCache {
    /// The CLUT attribute loaded (bits 0–14).
    key: u16,
    /// Entries loaded.
    loaded: usize,
    /// The entries as read from VRAM when loaded (the rest 0).
    entries: ClutTable,
    /// Index of `entries` in the current batch's CLUT table, once a primitive of the batch
    /// has used it.
    slot: Option<u32>,
}

/// What [`Gpu::texture`] found at an epoch: texture pages (by page and depth) and a CLUT the
/// batch had not drawn over and the snapshot held. The epoch moves on whenever that can change
/// (the batch may draw new tiles, a batch ends, a transfer writes VRAM), so an entry equal to
/// the current epoch needs no new check.
#[derive(Clone, Debug)]
struct Checked {
    epoch: u64,
    /// Epoch of each page footprint's check, index `page & 0x1f | depth << 5`.
    pages: [u64; 96],
    /// The last CLUT attribute checked for 16 entries and for 256, and when.
    cluts: [(u16, u64); 2],
}

impl Default for Checked {
    fn default() -> Self {
        Checked {
            epoch: 1,
            pages: [0; 96],
            cluts: [(0, 0); 2],
        }
    }
}

impl Checked {
    fn next_epoch(&mut self) {
        self.epoch += 1;
    }
}

/// The packet assembler's state.
#[derive(Clone, Debug)]
enum Packet {
    /// Waiting for a command word.
    Idle,
    /// Collecting a fixed-length packet of `len` words.
    Fixed { len: usize },
    /// A polyline: the last vertex drawn from, and the colour of the next point (gouraud).
    Poly {
        flags: PolyFlags,
        last: RawVertex,
        color: Option<u32>,
        first: u32,
    },
    /// CPU→VRAM pixel payload.
    Upload(vram::Transfer),
}

/// The GPU: VRAM plus all GP0/GP1 state.
pub struct Gpu {
    vram: Vec<u16>,
    /// What the batch's primitives sample (see [`raster::snapshot`]).
    snapshot: TextureSnapshot,
    batch: Batch,
    threads: usize,
    pool: Option<Arc<rayon::ThreadPool>>,
    simd: Simd,
    packet: Packet,
    words: Vec<u32>,
    readback: Option<vram::Transfer>,
    gpuread: u32,
    draw_mode: TexPage,
    tex_window: TexWindow,
    area_tl: u32,
    area_br: u32,
    offset: u32,
    mask_setting: u32,
    allow_tex_disable: bool,
    clut_cache: Option<ClutCache>,
    checked: Checked,
    disp_enabled: bool,
    disp_start: u32,
    disp_h: u32,
    disp_v: u32,
    disp_mode: u32,
    dma_dir: u32,
    /// GP0 words received.
    gp0_in: u64,
    /// GP0 commands started.
    commands_in: u64,
    /// The pixel history being recorded, if any.
    trace: Option<Box<Tracer>>,
}

/// Sets its flag when dropped: what [`Gpu::busy`]'s other threads wait for.
struct Release<'a>(&'a AtomicBool);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

impl Default for Gpu {
    fn default() -> Self {
        Self::new()
    }
}

impl Gpu {
    /// A GPU in its power-on state, VRAM zeroed.
    pub fn new() -> Self {
        let mut g = Gpu {
            vram: vec![0; VRAM_WIDTH * VRAM_HEIGHT],
            snapshot: TextureSnapshot::default(),
            batch: Batch::default(),
            threads: 0,
            pool: None,
            simd: Simd::best(),
            packet: Packet::Idle,
            words: Vec::with_capacity(16),
            readback: None,
            gpuread: 0,
            draw_mode: TexPage(0),
            tex_window: TexWindow(0),
            area_tl: 0,
            area_br: 0,
            offset: 0,
            mask_setting: 0,
            allow_tex_disable: false,
            clut_cache: None,
            checked: Checked::default(),
            disp_enabled: false,
            disp_start: 0,
            disp_h: 0,
            disp_v: 0,
            disp_mode: 0,
            dma_dir: 0,
            gp0_in: 0,
            commands_in: 0,
            trace: None,
        };
        g.gp1(0);
        g
    }

    /// Writes one word to GP0 (0x1F801810).
    pub fn gp0(&mut self, word: u32) {
        self.gp0_in += 1;
        match std::mem::replace(&mut self.packet, Packet::Idle) {
            Packet::Upload(mut t) => {
                self.flush();
                match self.trace.is_some() {
                    true => self.upload_traced(&mut t, word),
                    false => vram::upload_word(&mut self.vram, &mut t, word, self.mask_setting),
                }
                if !t.done() {
                    self.packet = Packet::Upload(t);
                }
            }
            Packet::Idle => {
                self.start_command(self.gp0_in - 1);
                self.words.clear();
                self.words.push(word);
                let len = packet_len((word >> 24) as u8);
                if len == 1 {
                    self.execute_words();
                } else {
                    self.packet = Packet::Fixed { len };
                }
            }
            Packet::Fixed { len } => {
                self.words.push(word);
                if self.words.len() >= len {
                    self.execute_words();
                } else {
                    self.packet = Packet::Fixed { len };
                }
            }
            Packet::Poly {
                flags,
                last,
                color,
                first,
            } => {
                if let Some(t) = &mut self.trace {
                    t.words.push(word);
                }
                self.polyline_word(flags, last, color, first, word)
            }
        }
    }

    /// Counts a command starting at GP0 word `word`.
    fn start_command(&mut self, word: u64) {
        self.commands_in += 1;
        if let Some(t) = &mut self.trace {
            t.command = self.commands_in - 1;
            t.word = word;
            t.words.clear();
            t.part = Part::Whole;
        }
    }

    /// Starts recording the pixel history of the VRAM halfwords `points` (x, y) from here on:
    /// every later command that touches one is listed by [`Gpu::history`]. Drawing is then
    /// serial, one primitive at a time (the pixels drawn are the same). An empty list stops.
    pub fn watch(&mut self, points: &[(u16, u16)]) {
        self.flush();
        self.trace = (!points.is_empty()).then(|| Box::new(Tracer::new(points)));
    }

    /// The pixel history recorded since [`Gpu::watch`], in command order.
    pub fn history(&mut self) -> &[PixelEvent] {
        self.flush();
        self.trace.as_ref().map_or(&[], |t| &t.events)
    }

    /// The GP0 state, for the pixel history.
    fn draw_state(&self) -> DrawState {
        let c = self.clip();
        DrawState {
            draw_mode: self.draw_mode.0,
            tex_window: self.tex_window.0,
            area: [c.x0, c.y0, c.x1, c.y1],
            offset: (
                sext11(self.offset as i32),
                sext11((self.offset >> 11) as i32),
            ),
            mask: self.mask_setting,
        }
    }

    /// [`vram::upload_word`], recording the watched halfwords the word writes.
    fn upload_traced(&mut self, t: &mut vram::Transfer, word: u32) {
        let state = self.draw_state();
        let Some(tr) = &mut self.trace else { return };
        tr.state = state;
        let at = [t.index_ahead(0), t.index_ahead(1)];
        let before = tr.values(&self.vram);
        vram::upload_word(&mut self.vram, t, word, self.mask_setting);
        tr.part = Part::Upload;
        let hit: Vec<usize> = tr
            .indices()
            .enumerate()
            .filter(|(_, (_, _, i))| at.contains(&Some(*i)))
            .map(|(k, _)| k)
            .collect();
        let check = self.mask_setting & 2 != 0;
        for k in hit {
            let i = tr.indices().nth(k).map_or(0, |p| p.2);
            let outcome = match check && before[k] & 0x8000 != 0 {
                true => Outcome::Masked,
                false => Outcome::Written,
            };
            tr.record(k, before[k], self.vram[i], outcome, None);
        }
    }

    /// Writes several words to GP0, in order. The same pixels as calling [`Gpu::gp0`] for each
    /// word; whole packets and upload payloads in `words` are taken in one step. With more than
    /// one rasteriser thread, a call of [`BUSY_WORDS`] words or more keeps the pool's threads
    /// busy to its end (see [`Gpu::busy`]) and draws everything before returning. On all cores
    /// (threads 0) that starts only once a batch holds enough work to be worth the pool
    /// ([`raster::bands::PARALLEL_MIN_LOAD`]): until then the calling thread parses alone, and
    /// a light call never touches the pool, as waking it costs more than it saves.
    pub fn gp0_words(&mut self, words: &[u32]) {
        if self.trace.is_some() {
            return words.iter().for_each(|&w| self.gp0(w));
        }
        if words.len() >= BUSY_WORDS && self.threads != 1 {
            let done = match self.threads {
                0 => self.feed(words, true),
                _ => 0,
            };
            if done < words.len() {
                self.busy(|g| {
                    g.feed(&words[done..], false);
                    g.flush();
                });
            }
        } else {
            self.feed(words, false);
        }
    }

    /// Runs `f` on the rasteriser pool with every other thread of the pool kept busy meanwhile:
    /// each runs the pool's pending work (setting up the chunks of triangles `f` queues, drawing
    /// the regions of any batch `f` draws) or spins, until `f` returns. On virtual machines a
    /// core left to sleep can take milliseconds to wake, which made two threads barely faster
    /// than one; measured on the GPU bench frame, the host took about a third of each core while
    /// the threads slept and woke between batches, and nothing when they stayed busy.
    fn busy(&mut self, f: impl FnOnce(&mut Gpu) + Send) {
        let pool = self.pool.clone();
        let run = move |g: &mut Gpu| {
            let done = &AtomicBool::new(false);
            // From outside a pool, `scope` runs its body on a worker of the global pool.
            rayon::scope(|s| {
                let parser = rayon::current_thread_index();
                for _ in 1..rayon::current_num_threads() {
                    s.spawn(move |_| {
                        // A thread waiting inside `f` may pick this job up itself: it must not
                        // wait for `f` on top of `f`'s own stack.
                        if rayon::current_thread_index() == parser {
                            return;
                        }
                        while !done.load(Ordering::Acquire) {
                            if rayon::yield_now() != Some(rayon::Yield::Executed) {
                                std::hint::spin_loop();
                            }
                        }
                    });
                }
                // Releases the other threads however `f` ends: if it panics, the scope then
                // passes the panic on instead of waiting for them forever.
                let _release = Release(done);
                // The other threads set chunks of triangles up while `f` parses.
                g.batch.set_eager(true);
                f(g);
                g.batch.set_eager(false);
            });
        };
        match pool {
            Some(p) => p.install(|| run(self)),
            None => run(self),
        }
    }

    /// [`Gpu::gp0_words`] without the pool handling. With `until_heavy`, stops as soon as the
    /// batch holds enough work for the pool (packet state carries over to the next call).
    /// Returns the words taken.
    fn feed(&mut self, words: &[u32], until_heavy: bool) -> usize {
        let mut i = 0;
        while i < words.len() {
            if until_heavy && self.batch.heavy() {
                return i;
            }
            match &mut self.packet {
                Packet::Idle => {
                    let len = packet_len((words[i] >> 24) as u8);
                    if let Some(packet) = words.get(i..i + len) {
                        self.start_command(self.gp0_in);
                        self.gp0_in += len as u64;
                        self.run_packet(packet);
                        i += len;
                        continue;
                    }
                }
                Packet::Upload(t) => {
                    let mut t = *t;
                    self.packet = Packet::Idle;
                    self.flush();
                    while !t.done() {
                        let Some(&w) = words.get(i) else { break };
                        vram::upload_word(&mut self.vram, &mut t, w, self.mask_setting);
                        self.gp0_in += 1;
                        i += 1;
                    }
                    if !t.done() {
                        self.packet = Packet::Upload(t);
                    }
                    continue;
                }
                _ => {}
            }
            self.gp0(words[i]);
            i += 1;
        }
        i
    }

    /// Writes one word to GP1 (0x1F801814).
    pub fn gp1(&mut self, word: u32) {
        let arg = word & 0x00ff_ffff;
        match (word >> 24) & 0x3f {
            0x00 => {
                self.gp1(0x0100_0000);
                self.disp_enabled = false;
                self.dma_dir = 0;
                self.disp_start = 0;
                self.disp_h = 0x200 | ((0x200 + 256 * 10) << 12);
                self.disp_v = 0x10 | ((0x10 + 240) << 10);
                self.disp_mode = 0;
                self.draw_mode = TexPage(0);
                self.tex_window = TexWindow(0);
                self.area_tl = 0;
                self.area_br = 0;
                self.offset = 0;
                self.mask_setting = 0;
            }
            0x01 => {
                self.packet = Packet::Idle;
                self.words.clear();
                self.clut_cache = None;
            }
            0x03 => self.disp_enabled = arg & 1 == 0,
            0x04 => self.dma_dir = arg & 3,
            0x05 => self.disp_start = arg,
            0x06 => self.disp_h = arg,
            0x07 => self.disp_v = arg,
            0x08 => self.disp_mode = arg,
            0x09 => self.allow_tex_disable = arg & 1 != 0,
            // GP1(10h): v2 register read (index mirrors every 16).
            0x10..=0x1f => match arg & 0xf {
                2 => self.gpuread = self.tex_window.0 & 0xf_ffff,
                3 => self.gpuread = self.area_tl & 0xf_ffff,
                4 => self.gpuread = self.area_br & 0xf_ffff,
                5 => self.gpuread = self.offset & 0x3f_ffff,
                7 => self.gpuread = 2,
                8 => self.gpuread = 0,
                _ => {}
            },
            _ => {}
        }
    }

    /// Reads GPUREAD (0x1F801810): the next two pixels of a GP0(C0h) transfer, or the latched
    /// GP1(10h) value.
    pub fn gpuread(&mut self) -> u32 {
        if let Some(mut t) = self.readback.take() {
            self.flush();
            self.gpuread = vram::read_word(&self.vram, &mut t);
            if !t.done() {
                self.readback = Some(t);
            }
        }
        self.gpuread
    }

    /// Reads GPUSTAT (0x1F801814).
    pub fn gpustat(&self) -> u32 {
        let m = self.disp_mode;
        let mut s = self.draw_mode.0 as u32 & 0x7ff;
        s |= (self.mask_setting & 3) << 11;
        s |= 1 << 13;
        s |= ((self.draw_mode.0 as u32 >> 11) & 1) << 15;
        s |= ((m >> 6) & 1) << 16;
        s |= (m & 3) << 17;
        s |= ((m >> 2) & 1) << 19;
        s |= ((m >> 3) & 1) << 20;
        s |= ((m >> 4) & 1) << 21;
        s |= ((m >> 5) & 1) << 22;
        s |= (!self.disp_enabled as u32) << 23;
        let idle = matches!(self.packet, Packet::Idle);
        s |= (idle as u32) << 26;
        s |= (self.readback.is_some() as u32) << 27;
        s |= 1 << 28;
        s |= self.dma_dir << 29;
        s
    }

    /// VRAM, row-major, 1024×512 halfwords. Finishes any drawing still queued first.
    pub fn vram(&mut self) -> &[u16] {
        self.flush();
        &self.vram
    }

    /// Number of rasteriser threads: 0 = all cores for batches with enough work to gain from
    /// them, the calling thread for lighter ones (the default); 1 = serial; N = a pool of N
    /// threads for every batch.
    pub fn set_threads(&mut self, threads: usize) {
        self.flush();
        self.threads = threads;
        // The copies are made again for the new pool's threads, as they first draw.
        self.snapshot.drop_copies();
        // 0 and 1 need no pool of their own: rayon's global pool, or none.
        self.pool = if threads <= 1 {
            None
        } else {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .ok()
                .map(Arc::new)
        };
    }

    /// Whether spans may use the CPU's SIMD kernel (AVX2 where present; the default) or must
    /// use the portable one. Both draw the same pixels; this exists to test and measure that.
    pub fn set_simd(&mut self, enabled: bool) {
        self.flush();
        self.simd = if enabled {
            Simd::best()
        } else {
            Simd::Portable
        };
    }

    /// The display configuration GP1 has set.
    pub fn display(&self) -> Display {
        let m = self.disp_mode;
        let (mode_width, cycles) = if m & 0x40 != 0 {
            (368, 7)
        } else {
            match m & 3 {
                0 => (256, 10),
                1 => (320, 8),
                2 => (512, 5),
                _ => (640, 4),
            }
        };
        let x1 = self.disp_h & 0xfff;
        let x2 = (self.disp_h >> 12) & 0xfff;
        let width = ((x2.saturating_sub(x1) / cycles + 2) & !3) as u16;
        let y1 = self.disp_v & 0x3ff;
        let y2 = (self.disp_v >> 10) & 0x3ff;
        let interlaced480 = m & 0x24 == 0x24;
        let lines = y2.saturating_sub(y1) as u16;
        Display {
            x: (self.disp_start & 0x3ff) as u16,
            y: ((self.disp_start >> 10) & 0x1ff) as u16,
            width,
            height: if interlaced480 { lines * 2 } else { lines },
            depth24: m & 0x10 != 0,
            enabled: self.disp_enabled,
            mode_width,
            interlaced480,
            pal: m & 8 != 0,
        }
    }

    /// Draws everything queued.
    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let exec = match (self.threads, &self.pool) {
            (1, _) => Exec::Serial,
            (_, Some(pool)) => Exec::Pool(pool.as_ref()),
            _ => Exec::Global,
        };
        // Snapshot tiles the batch may have drawn no longer hold VRAM.
        let drawn = self.batch.drawn_tiles();
        let (tex, copies) = self.snapshot.parts();
        self.batch.run(&mut self.vram, tex, copies, exec, self.simd);
        self.snapshot.drawn(drawn);
        self.checked.next_epoch();
        if let Some(c) = &mut self.clut_cache {
            c.slot = None;
        }
    }

    fn clip(&self) -> Clip {
        Clip {
            x0: (self.area_tl & 0x3ff) as i32,
            y0: ((self.area_tl >> 10) & 0x1ff) as i32,
            x1: (self.area_br & 0x3ff) as i32,
            y1: ((self.area_br >> 10) & 0x1ff) as i32,
        }
    }

    fn pixel_mode(&self, semi: bool) -> PixelMode {
        PixelMode {
            blend: semi.then(|| self.draw_mode.blend_mode()),
            set_mask: ((self.mask_setting & 1) as u16) << 15,
            check_mask: self.mask_setting & 2 != 0,
        }
    }

    /// A vertex word plus the drawing offset, wrapped to 11 bits signed.
    // Source: psx-spx "GP0(E5h)"; verified: hwtests phase 1 (drawing offset).
    fn place(&self, p: VertexWord) -> (i32, i32) {
        let ox = sext11(self.offset as i32);
        let oy = sext11((self.offset >> 11) as i32);
        (sext11(p.x() + ox), sext11(p.y() + oy))
    }

    fn vtx(&self, r: &RawVertex) -> Vtx {
        let (x, y) = self.place(r.pos);
        Vtx {
            x,
            y,
            r: r.color.r() as i32,
            g: r.color.g() as i32,
            b: r.color.b() as i32,
            u: r.tex.u() as i32,
            v: r.tex.v() as i32,
        }
    }

    /// Marks the snapshot tiles of the VRAM rectangle `x, y, w, h` (wrapping) as no longer
    /// holding VRAM: a transfer wrote there.
    fn snapshot_stale(&mut self, x: usize, y: usize, w: usize, h: usize) {
        self.snapshot.stale(x, y, w, h);
        self.checked.next_epoch();
    }

    /// The texture for page `page` and CLUT `clut` as the CLUT cache delivers it, ending the
    /// batch first when it may have drawn over the page or the CLUT. Leaves room in the batch
    /// for the primitive (two triangles for a quad), so the CLUT slot it returns stays valid.
    fn texture(&mut self, page: TexPage, clut: Clut) -> Texture {
        let n = clut_len(page.depth());
        if self.batch.len() + 2 > MAX_BATCH {
            self.flush();
        }
        // What was checked at this epoch still holds (see `Checked`).
        let page_key = (page.0 & 0x1f) as usize | (page.depth() as usize) << 5;
        let (clut_key, clut_slot) = (clut.0 & 0x7fff, (n == 256) as usize);
        let now = self.checked.epoch;
        if self.checked.pages[page_key] != now
            || (n > 0 && self.checked.cluts[clut_slot] != (clut_key, now))
        {
            let (fx, fw) = footprint_x(page);
            let fy = page.base_y();
            if self.batch.touches(fx, fy, fw, 256)
                || (n > 0 && self.batch.touches(clut.x(), clut.y(), n, 1))
            {
                self.flush();
            }
            self.snapshot.take(&self.vram, fx, fy, fw, 256);
            let now = self.checked.epoch;
            self.checked.pages[page_key] = now;
            if n > 0 {
                self.checked.cluts[clut_slot] = (clut_key, now);
            }
        }
        let mut slot = 0;
        if n > 0 {
            // The cache keeps the CLUT position and how many entries it loaded: an 8-bit load
            // also serves a later 4-bit primitive with the same CLUT, a 4-bit load does not
            // serve an 8-bit one. Verified: gpu-images/clut-cache rows 136 and 152.
            let cache = match &mut self.clut_cache {
                Some(c) if c.key == clut_key && c.loaded >= n => c,
                cache => {
                    let mut entries = [0; 256];
                    let row = clut.y() * VRAM_WIDTH;
                    for (i, e) in entries.iter_mut().take(n).enumerate() {
                        *e = self.vram[row + ((clut.x() + i) & (VRAM_WIDTH - 1))];
                    }
                    cache.insert(ClutCache {
                        key: clut_key,
                        loaded: n,
                        entries,
                        slot: None,
                    })
                }
            };
            slot = match cache.slot {
                Some(s) => s,
                None => *cache.slot.insert(self.batch.add_clut(&cache.entries)),
            };
        }
        Texture::new(page, self.tex_window, slot)
    }

    fn push(&mut self, p: Prim) {
        if self.trace.is_some() {
            return self.push_traced(p);
        }
        if self.batch.len() >= MAX_BATCH {
            self.flush();
        }
        if self.batch.push(p) {
            self.checked.next_epoch();
        }
    }

    /// Draws `p` on its own, recording what it does to the watched halfwords.
    fn push_traced(&mut self, p: Prim) {
        self.flush();
        let state = self.draw_state();
        let Some(tr) = &mut self.trace else { return };
        tr.state = state;
        let vram: &VramImage = self.vram.as_slice().try_into().expect("VRAM-sized");
        let src = TexSource {
            vram,
            cluts: self.batch.cluts(),
        };
        let hits = tr.probe(&p, &self.vram, src);
        let before = tr.values(&self.vram);
        // Drawing empties the batch's CLUT table, which a quad's second triangle still indexes.
        let cluts = self.batch.cluts().to_vec();
        let slot = self.clut_cache.as_ref().and_then(|c| c.slot);
        self.batch.push(p);
        self.flush();
        for c in &cluts {
            self.batch.add_clut(c);
        }
        if let Some(c) = &mut self.clut_cache {
            c.slot = slot;
        }
        let Some(tr) = &mut self.trace else { return };
        let after = tr.values(&self.vram);
        for (k, hit) in hits {
            tr.record(k, before[k], after[k], hit.outcome, Some(hit));
        }
    }

    /// Runs a transfer `f` over the VRAM rectangle `rect`, recording the watched halfwords it
    /// covers (`check_mask`: whether it keeps destinations with the mask bit).
    fn transfer(
        &mut self,
        rect: (usize, usize, usize, usize),
        check_mask: bool,
        f: impl FnOnce(&mut [u16]),
    ) {
        self.flush();
        let state = self.draw_state();
        let before = self.trace.as_mut().map(|t| {
            t.state = state;
            t.values(&self.vram)
        });
        f(&mut self.vram);
        if let (Some(t), Some(before)) = (&mut self.trace, before) {
            t.record_rect(rect, &before, &self.vram, check_mask);
        }
        let (x, y, w, h) = rect;
        self.snapshot_stale(x, y, w, h);
    }

    fn execute_words(&mut self) {
        let words = std::mem::take(&mut self.words);
        self.run_packet(&words);
        self.words = words;
        self.words.clear();
    }

    /// Runs a complete fixed-length packet (for transfers and polylines, its header).
    fn run_packet(&mut self, words: &[u32]) {
        if let Some(t) = &mut self.trace {
            t.words.clear();
            t.words.extend_from_slice(words);
            t.segment = 0;
        }
        let op = (words[0] >> 24) as u8;
        match op >> 5 {
            5 => {
                self.flush();
                let t = vram::Transfer::new(words[1], words[2]);
                let (x, y, w, h) = t.rect();
                self.snapshot_stale(x, y, w, h);
                self.packet = Packet::Upload(t);
            }
            6 => {
                self.flush();
                self.readback = Some(vram::Transfer::new(words[1], words[2]));
            }
            2 if op & 0x08 != 0 => {
                // Polyline: draw the first segment, then keep going until a terminator.
                let flags = PolyFlags::from_opcode(op);
                if let Gp0Command::Line { verts, .. } = decode(words) {
                    if verts.len() >= 2 {
                        self.line(flags, &verts[0], &verts[1]);
                        self.packet = Packet::Poly {
                            flags,
                            last: verts[1],
                            color: None,
                            first: words[0],
                        };
                    }
                }
            }
            _ => self.execute(decode(words)),
        }
    }

    fn polyline_word(
        &mut self,
        flags: PolyFlags,
        last: RawVertex,
        color: Option<u32>,
        first: u32,
        word: u32,
    ) {
        let at_point_start = !flags.gouraud || color.is_none();
        if at_point_start && is_polyline_terminator(word) {
            return;
        }
        if flags.gouraud && color.is_none() {
            self.packet = Packet::Poly {
                flags,
                last,
                color: Some(word),
                first,
            };
            return;
        }
        let next = RawVertex {
            pos: VertexWord(word),
            color: ColorWord(color.unwrap_or(first)),
            tex: Default::default(),
        };
        self.line(flags, &last, &next);
        self.packet = Packet::Poly {
            flags,
            last: next,
            color: None,
            first,
        };
    }

    fn line(&mut self, flags: PolyFlags, a: &RawVertex, b: &RawVertex) {
        if let (Some(t), true) = (&mut self.trace, flags.quad) {
            t.part = Part::Segment(t.segment);
            t.segment += 1;
        }
        // Verified: gpu-images/lines (flat lines dither too).
        let dither = self.draw_mode.dither();
        let (va, vb) = (self.vtx(a), self.vtx(b));
        if let Some(l) = Line::new(
            va,
            vb,
            flags.gouraud,
            dither,
            self.clip(),
            self.pixel_mode(flags.semi),
        ) {
            self.push(Prim::Line(l));
        }
    }

    fn execute(&mut self, cmd: Gp0Command) {
        match cmd {
            Gp0Command::Nop => {}
            Gp0Command::ClearCache => self.clut_cache = None,
            Gp0Command::Fill { color, xy, wh } => {
                self.transfer(vram::fill_rect(xy, wh), false, |v| {
                    vram::fill(v, color.to_bgr555(), xy, wh)
                });
            }
            Gp0Command::Copy { src, dst, wh } => {
                let ((x, y), (w, h)) = (vram::transfer_xy(dst), vram::transfer_size(wh));
                let mask = self.mask_setting;
                self.transfer((x, y, w, h), mask & 2 != 0, |v| {
                    vram::copy(v, src, dst, wh, mask)
                });
            }
            Gp0Command::DrawMode(w) => {
                self.draw_mode = TexPage((w & 0x3fff) as u16);
            }
            Gp0Command::TexWindow(w) => self.tex_window = TexWindow(w & 0xf_ffff),
            Gp0Command::AreaTopLeft(w) => self.area_tl = w & 0xf_ffff,
            Gp0Command::AreaBottomRight(w) => self.area_br = w & 0xf_ffff,
            Gp0Command::Offset(w) => self.offset = w & 0x3f_ffff,
            Gp0Command::MaskSetting(w) => self.mask_setting = w & 3,
            Gp0Command::Polygon { flags, verts } => self.polygon(flags, &verts),
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
            // Transfers are started by `run_packet`.
            Gp0Command::CpuToVram { .. } | Gp0Command::VramToCpu { .. } => {}
        }
    }

    fn textures_disabled(&self) -> bool {
        self.allow_tex_disable && self.draw_mode.texture_disable()
    }

    fn polygon(&mut self, flags: PolyFlags, raw: &[RawVertex; 4]) {
        let mut texture = None;
        if flags.textured {
            // The polygon's texpage replaces E1 bits 0–8 and 11.
            let page = raw[1].tex.attr();
            self.draw_mode = TexPage((self.draw_mode.0 & !0x09ff) | (page & 0x09ff));
            if !self.textures_disabled() {
                texture = Some(self.texture(self.draw_mode, Clut(raw[0].tex.attr())));
            }
        }
        let raw_tex = flags.raw && texture.is_some();
        let shading = Shading {
            gouraud: flags.gouraud,
            raw: raw_tex,
            dither: self.draw_mode.dither() && (flags.gouraud || (texture.is_some() && !raw_tex)),
            mode: self.pixel_mode(flags.semi),
            texture,
        };
        let v: [Vtx; 4] = std::array::from_fn(|i| self.vtx(&raw[i]));
        let clip = self.clip();
        for k in 0..1 + flags.quad as usize {
            if let (Some(t), true) = (&mut self.trace, flags.quad) {
                t.part = Part::Triangle(k as u8);
            }
            if let Some(t) = TriangleCmd::new([v[k], v[k + 1], v[k + 2]], clip, shading) {
                self.push(Prim::Triangle(t));
            }
        }
    }

    fn rect(&mut self, flags: PolyFlags, size: gp0::decode::RectSize, vert: &RawVertex, wh: u32) {
        use gp0::decode::RectSize;
        let (w, h) = match size {
            RectSize::Variable => ((wh & 0x3ff) as i32, ((wh >> 16) & 0x1ff) as i32),
            RectSize::One => (1, 1),
            RectSize::Eight => (8, 8),
            RectSize::Sixteen => (16, 16),
        };
        if w == 0 || h == 0 {
            return;
        }
        let (x, y) = self.place(vert.pos);
        let texture = if flags.textured && !self.textures_disabled() {
            let t = self.texture(self.draw_mode, Clut(vert.tex.attr()));
            Some((t, vert.tex.u(), vert.tex.v()))
        } else {
            None
        };
        let r = Rect {
            x,
            y,
            w,
            h,
            rgb: (
                vert.color.r() as i32,
                vert.color.g() as i32,
                vert.color.b() as i32,
            ),
            raw: flags.raw,
            texture,
            flip_x: self.draw_mode.flip_x(),
            flip_y: self.draw_mode.flip_y(),
            clip: self.clip(),
            mode: self.pixel_mode(flags.semi),
        };
        self.push(Prim::Rect(r));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The snapshot, and on pools each thread's copy of it, follow an upload between batches.
    #[test]
    fn texture_snapshot_follows_uploads_between_batches() {
        for threads in [0, 1, 2, 3] {
            let mut g = Gpu::new();
            g.set_threads(threads);
            // Drawing area: all of VRAM; 15-bit texture page at x = 640.
            g.gp0_words(&[0xe300_0000, 0xe407_ffff, 0xe100_0000 | 10 | (2 << 7)]);
            let texels: [u16; 4] = [0x1234, 0x5678, 0x1234, 0x9abc];
            for (x, &texel) in texels.iter().enumerate() {
                // Upload one texel at (640, 0), then a raw textured 1×1 rectangle at (x, y)
                // for y = 0 and 500 (far apart: other lanes, other threads).
                g.gp0_words(&[0xa000_0000, 640, 0x0001_0001, texel as u32]);
                let x = x as u32;
                g.gp0_words(&[0x6d00_0000, x, 0, 0x6d00_0000, (500 << 16) | x, 0]);
            }
            let v = g.vram();
            for (row, y) in [0, 500].into_iter().enumerate() {
                assert_eq!(
                    v[y * VRAM_WIDTH..y * VRAM_WIDTH + 4],
                    texels,
                    "threads {threads}, rectangles {row}"
                );
            }
        }
    }

    /// A panic inside a call that keeps the pool busy reaches the caller (the pool's other
    /// threads are released), on every kind of pool.
    #[test]
    fn a_panic_while_the_pool_is_busy_reaches_the_caller() {
        for threads in [0, 2, 3] {
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let mut g = Gpu::new();
                g.set_threads(threads);
                let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    g.busy(|_| panic!("a panic inside the busy call"))
                }));
                let _ = tx.send(caught.is_err());
            });
            let got = rx.recv_timeout(std::time::Duration::from_secs(30));
            assert_eq!(
                got,
                Ok(true),
                "threads {threads}: no panic back within 30 s"
            );
        }
    }

    #[test]
    fn display_follows_gp1_ranges_and_mode() {
        let mut g = Gpu::new();
        let d = g.display();
        assert_eq!((d.width, d.height, d.enabled), (256, 240, false));
        g.gp1(0x0300_0000);
        g.gp1(0x0500_0000 | (8 << 10) | 16);
        g.gp1(0x0800_0027); // 640, 480 lines, interlaced
        let d = g.display();
        assert_eq!((d.x, d.y, d.width, d.height), (16, 8, 640, 480));
        assert!(d.enabled && d.interlaced480 && !d.depth24);
        g.gp1(0x0800_0011); // 320, 24-bit
        g.gp1(0x0600_0000 | ((0x260 + 320 * 8) << 12) | 0x260);
        g.gp1(0x0700_0000 | ((0x88 + 112) << 10) | (0x88 - 112));
        let d = g.display();
        assert_eq!((d.width, d.height, d.depth24), (320, 224, true));
    }

    #[test]
    fn vram_read_back_through_gpuread() {
        let mut g = Gpu::new();
        g.gp0_words(&[
            0xa000_0000,
            0x0001_0002,
            0x0001_0003,
            0x2222_1111,
            0x0000_3333,
        ]);
        g.gp0_words(&[0xc000_0000, 0x0001_0002, 0x0001_0003]);
        assert_eq!(g.gpustat() & (1 << 27), 1 << 27);
        assert_eq!(g.gpuread(), 0x2222_1111);
        assert_eq!(g.gpuread() & 0xffff, 0x3333);
        assert_eq!(g.gpustat() & (1 << 27), 0);
        g.gp0(0xe500_0000 | 0x12345);
        g.gp1(0x1000_0005);
        assert_eq!(g.gpuread(), 0x12345);
    }

    #[test]
    fn mask_settings_apply_to_uploads() {
        let mut g = Gpu::new();
        g.gp0(0xe600_0001);
        g.gp0_words(&[0xa000_0000, 0, 0x0001_0001, 0x0000_0001]);
        g.gp0(0xe600_0002);
        g.gp0_words(&[0xa000_0000, 0, 0x0001_0001, 0x0000_0002]);
        assert_eq!(g.vram()[0], 0x8001);
    }
}
