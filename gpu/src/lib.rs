//! The PlayStation 1 GPU, emulated bit for bit.
//!
//! GP0 words are assembled into packets ([`gp0::assembler`]) and decoded ([`gp0::decode`]);
//! drawing packets are queued and drawn in batches over the 1024×512 VRAM of 16-bit halfwords
//! (bit 15 = mask bit, bits 0–14 = BGR555), in parallel and identical to a serial run, before
//! the call that ended the batch returns (`canvas.rs`; docs/gpu.md has the whole flow).
//! Batches depend only on the words, not on how they arrive ([`Gpu::gp0`] one at a time or
//! [`Gpu::gp0_words`] in slices of any length) nor on time. GP1 words set the display
//! ([`gp1`]): [`Gpu::display`] reports it, and [`Gpu::picture`] cuts the picture it shows out
//! of VRAM ([`picture`]).
//!
//! The crate's face is small: [`Gpu`] and the types its methods take and give, re-exported
//! here ([`Threads`], [`Display`], [`PixelEvent`], [`Outcome`], [`TexelSource`], [`ClutReload`],
//! [`Picture`], ...), the GP0 word types and decoder of [`gp0`] that encoders and tools share,
//! [`gp1`], [`picture`] and [`trace`]; the rasteriser, the drawing state and the transfers
//! stay inside.
//!
//! Power-on state: VRAM zeroed, all GP0 state zero (as after GP1(00h)), display disabled with
//! the GP1(00h) default ranges.
//!
//! ```
//! use gpu::{Gpu, Threads};
//! let mut gpu = Gpu::new();
//! gpu.set_threads(Threads::Serial);
//! // Drawing area (0,0)-(1023,511), then a red flat triangle.
//! gpu.gp0_words(&[0xe300_0000, 0xe407_ffff]);
//! gpu.gp0_words(&[0x2000_00ff, 0x0000_0000, 0x0000_0010, 0x0010_0000]);
//! let vram = gpu.vram();
//! assert_eq!(vram[1024 + 1], 0x001f); // (1, 1) is red, BGR555
//! assert_eq!(vram[1024 * 20], 0); // (0, 20) is outside
//! ```

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod canvas;
mod draw;
pub mod gp0;
pub mod gp1;
pub mod picture;
mod prepare;
pub(crate) mod raster;
pub(crate) mod rng;
pub(crate) mod state;
pub mod trace;
pub(crate) mod vram;

pub use gp1::Display;
pub use picture::Picture;
pub use raster::feedback::{FeedbackStats, TexelSource};
pub use raster::texcache::ClutReload;
pub use raster::{Hit, Interp, Outcome};
pub use rng::XorShift;
pub use trace::{Part, PixelEvent};
pub use vram::{fill_rect, transfer_size, transfer_xy};

use canvas::{Canvas, Exec};
use gp0::assembler::{Assembler, Step};
use gp1::{DisplayRegs, Gp1Effect};
use prepare::Queue;
use raster::span::Simd;
use state::DrawState;
use trace::Tracer;

/// VRAM width in halfwords.
pub const VRAM_WIDTH: usize = 1024;
/// VRAM height in lines.
pub const VRAM_HEIGHT: usize = 512;
/// All of VRAM as one fixed-size array of halfwords, row-major (texture reads index it with
/// masks instead of bounds checks).
pub type VramImage = [u16; VRAM_WIDTH * VRAM_HEIGHT];

/// A zeroed VRAM image on the heap, its pages mapped as they are first written.
pub(crate) fn boxed_vram() -> Box<VramImage> {
    vec![0u16; VRAM_WIDTH * VRAM_HEIGHT]
        .into_boxed_slice()
        .try_into()
        .expect("VRAM-sized")
}

/// A zeroed VRAM image on the heap with every page written here: the image bands draw into.
/// Left to be mapped as first written ([`boxed_vram`]), its pages would be mapped by
/// whichever band's thread first draws there, and page faults taken by several threads at
/// once wait on each other. (The snapshot is written only by the serial scan, so it stays
/// lazy: a GPU that never samples most of VRAM never maps it.) Memory the allocator reuses is
/// written either way, as is a spare image a dropped GPU left (`raster::spare`).
pub(crate) fn written_vram() -> Box<VramImage> {
    let mut v: Vec<u16> = Vec::with_capacity(VRAM_WIDTH * VRAM_HEIGHT);
    // Hidden from the optimiser, which would otherwise make allocation and fill one zeroed
    // allocation again.
    v = std::hint::black_box(v);
    v.resize(VRAM_WIDTH * VRAM_HEIGHT, 0);
    v.into_boxed_slice().try_into().expect("VRAM-sized")
}

/// Where batches are drawn. A batch that holds enough work for two bands or more
/// (`raster::bands::MIN_BAND_LOAD` each) is cut into bands for the thread count and drawn by
/// a process-wide rayon pool of at most one thread per core, as are the chunks of a long queue
/// prepared; the rest runs on the calling thread. The pool's threads sleep whenever they have
/// no work. The pixels are the same for every setting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Threads {
    /// On the calling thread.
    Serial,
    /// A pool of one thread per core.
    #[default]
    AllCores,
    /// The work cut for this many threads (0 and 1 draw on the calling thread), drawn by a
    /// pool of as many, or of one per core where there are fewer cores. The pixels are the
    /// same at every setting.
    Pool(usize),
}

impl Threads {
    /// The command-line convention: 0 = all cores, 1 = serial, N = N threads.
    pub fn from_count(n: usize) -> Self {
        match n {
            0 => Threads::AllCores,
            1 => Threads::Serial,
            n => Threads::Pool(n),
        }
    }
}

/// The GPU: VRAM plus all GP0/GP1 state.
pub struct Gpu {
    /// VRAM, the texture snapshot and its coherence.
    canvas: Canvas,
    /// Drawing packets queued, not yet drawn.
    queue: Queue,
    asm: Assembler,
    state: DrawState,
    display: DisplayRegs,
    /// A CPU→VRAM transfer whose payload is coming.
    upload: Option<vram::Transfer>,
    /// A VRAM→CPU transfer being read through GPUREAD.
    readback: Option<vram::Transfer>,
    gpuread: u32,
    threads: Threads,
    /// The least load of a band drawn on a thread of its own.
    parallel_min_load: u64,
    simd: Simd,
    /// The pixel history being recorded, if any.
    trace: Option<Box<Tracer>>,
    /// Drawing-mode changes that emptied the texture cache (`prepare::Snap::cache_epoch`).
    cache_epoch: u32,
}

impl Default for Gpu {
    fn default() -> Self {
        Self::new()
    }
}

impl Gpu {
    /// A GPU in its power-on state, VRAM zeroed, drawing on all cores.
    pub fn new() -> Self {
        Gpu {
            canvas: Canvas::default(),
            queue: Queue::default(),
            asm: Assembler::default(),
            state: DrawState::default(),
            display: DisplayRegs::default(),
            upload: None,
            readback: None,
            gpuread: 0,
            threads: Threads::AllCores,
            parallel_min_load: raster::bands::MIN_BAND_LOAD,
            simd: Simd::best(),
            trace: None,
            cache_epoch: 0,
        }
    }

    /// Writes one word to GP0 (0x1F801810).
    pub fn gp0(&mut self, word: u32) {
        self.gp0_words(&[word]);
    }

    /// Writes several words to GP0, in order: exactly what calling [`Gpu::gp0`] for each word
    /// does, with whole packets and payload runs taken in one step.
    pub fn gp0_words(&mut self, words: &[u32]) {
        let mut at = 0;
        while at < words.len() {
            if self.trace.is_some() {
                self.traced_word(words[at]);
                at += 1;
                continue;
            }
            if self.queue_drawing_run(words, &mut at) {
                continue;
            }
            match self.asm.next(words, &mut at) {
                Step::Pending => {}
                Step::Packet(p) => self.run_packet(&words[p]),
                Step::Gathered => self.run_packet(&self.asm.gathered()),
                Step::Segment { flags, from, to } => self.segment(flags, &from, &to),
                Step::Payload(run) => {
                    if let Some(t) = &mut self.upload {
                        let vram = &mut self.canvas.images.vram;
                        vram::upload_words(&mut vram[..], t, &words[run], self.state.mask);
                    }
                }
            }
        }
    }

    /// Writes one GP1 word (0x1F801814).
    pub fn gp1(&mut self, word: u32) {
        match self.display.write(word) {
            Gp1Effect::None => {}
            Gp1Effect::Reset => {
                self.reset_commands();
                self.state = DrawState::default();
                self.queue.state_changed();
            }
            Gp1Effect::ResetCommands => self.reset_commands(),
            Gp1Effect::ReadRegister(index) => {
                let s = &self.state;
                match index {
                    2 => self.gpuread = s.tex_window.0 & 0xf_ffff,
                    3 => self.gpuread = s.area_tl & 0xf_ffff,
                    4 => self.gpuread = s.area_br & 0xf_ffff,
                    5 => self.gpuread = s.offset & 0x3f_ffff,
                    7 => self.gpuread = 2,
                    8 => self.gpuread = 0,
                    _ => {}
                }
            }
        }
    }

    /// GP1(01h): the command buffer and the CLUT cache forget what they hold, and the texture
    /// cache is emptied (after what is queued is drawn).
    fn reset_commands(&mut self) {
        self.asm.reset();
        self.upload = None;
        self.cache_stage().tex.empty_caches();
    }

    /// Reads GPUREAD (0x1F801810): the next two pixels of a GP0(C0h) transfer, or the latched
    /// GP1(10h) value.
    pub fn gpuread(&mut self) -> u32 {
        if let Some(mut t) = self.readback.take() {
            self.flush();
            self.gpuread = vram::read_word(&self.canvas.images.vram[..], &mut t);
            if !t.done() {
                self.readback = Some(t);
            }
        }
        self.gpuread
    }

    /// Reads GPUSTAT (0x1F801814).
    pub fn gpustat(&self) -> u32 {
        let mode = self.state.draw_mode.0 as u32;
        let mut s = mode & 0x7ff;
        s |= (self.state.mask & 3) << 11;
        s |= 1 << 13;
        s |= ((mode >> 11) & 1) << 15;
        s |= self.display.status_bits();
        s |= (self.asm.idle() as u32) << 26;
        s |= (self.readback.is_some() as u32) << 27;
        s | 1 << 28
    }

    /// VRAM, row-major, 1024×512 halfwords. Draws any primitives still queued first.
    pub fn vram(&mut self) -> &[u16] {
        self.flush();
        &self.canvas.images.vram[..]
    }

    /// Where batches are drawn (see [`Threads`]).
    pub fn set_threads(&mut self, threads: Threads) {
        self.flush();
        self.threads = threads;
    }

    /// The least estimated work (pixels) of a band drawn on a thread of its own;
    /// `raster::bands::MIN_BAND_LOAD` by default: a batch lighter than two is drawn on the
    /// calling thread. 0 cuts every batch into a band per thread, which tests use to run the
    /// parallel path on small inputs; the pixels drawn are the same either way.
    pub fn set_parallel_min_load(&mut self, load: u64) {
        self.flush();
        self.parallel_min_load = load;
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
        self.display.display()
    }

    /// The display ranges GP1(06h) and GP1(07h) set, as written (for framings that need the
    /// ranges themselves, not the size [`Gpu::display`] derives from them).
    pub fn display_ranges(&self) -> (gp1::HorizontalRange, gp1::VerticalRange) {
        self.display.ranges()
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

    /// Draws everything queued (see `canvas.rs`), leaving the queue empty. Where batches end
    /// and how they are cut into bands depend only on the words and the setting.
    fn flush(&mut self) {
        let exec = self.exec();
        let watch = (self.trace.as_deref_mut()).map(|t| t as &mut dyn canvas::Watch);
        self.canvas.run(&mut self.queue, &exec, watch);
    }

    /// How queues are run under the current settings.
    fn exec(&self) -> Exec {
        let threads = match self.threads {
            _ if self.trace.is_some() => 1,
            Threads::Serial => 1,
            Threads::Pool(n) => n.max(1),
            Threads::AllCores => cores(),
        };
        Exec {
            // The work is cut for `threads` (the plan of bands depends on it alone), and drawn
            // on no more threads than there are cores: more would only take turns on the same
            // cores; rayon shares the bands among the threads there are.
            pool: (threads > 1)
                .then(|| canvas::pool(threads.min(cores())))
                .flatten(),
            threads,
            simd: self.simd,
            min_load: self.parallel_min_load,
        }
    }
}

/// The number of cores this process may run on, looked up once (the look-up reads the
/// scheduler's affinity and cgroup limits).
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The snapshot follows uploads between batches, on every kind of pool.
    #[test]
    fn texture_snapshot_follows_uploads_between_batches() {
        for threads in [0, 1, 2, 3] {
            let mut g = Gpu::new();
            g.set_threads(Threads::from_count(threads));
            // Drawing area: all of VRAM; 15-bit texture page at x = 640.
            g.gp0_words(&[0xe300_0000, 0xe407_ffff, 0xe100_0000 | 10 | (2 << 7)]);
            let texels: [u16; 4] = [0x1234, 0x5678, 0x1234, 0x9abc];
            for (x, &texel) in texels.iter().enumerate() {
                // Upload one texel at (640, 0), then a raw textured 1×1 rectangle at (x, y)
                // for y = 0 and 500 (far apart: other bands, other threads).
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

    /// Each rectangle samples what the one before drew, so every batch ends on a texture
    /// conflict: the chain comes out as one serial pass draws it, on every pool.
    #[test]
    fn batches_sample_what_the_batch_before_drew() {
        // 15-bit page at x = 640; rectangle k (8×8, raw textured, at (640 + 8k, 0)) samples
        // the 8×8 block rectangle k−1 drew.
        let mut words = vec![0xe300_0000, 0xe407_ffff, 0xe100_0000 | 10 | (2 << 7)];
        words.extend([0x6000_1f00, 640, 0x0008_0008]);
        for k in 1..40u32 {
            words.extend([0x6500_0000, 640 + 8 * k, 8 * (k - 1), 0x0008_0008]);
        }
        let mut serial = Gpu::new();
        serial.set_threads(Threads::Serial);
        serial.gp0_words(&words);
        let want = serial.vram().to_vec();
        assert_eq!(
            want[640 + 8 * 39],
            3 << 5,
            "the first colour reaches the last block"
        );
        for threads in [Threads::AllCores, Threads::Pool(2), Threads::Pool(3)] {
            let mut g = Gpu::new();
            g.set_threads(threads);
            g.set_parallel_min_load(0);
            for w in &words {
                g.gp0(*w);
            }
            assert!(g.vram() == &want[..], "{threads:?}");
        }
    }

    /// CLUTs on VRAM's last row (which the snapshot cannot hand out as 256 entries in place)
    /// are copied out of the snapshot, after a full batch and between batches: the pixels one
    /// serial pass draws.
    #[test]
    fn cluts_on_the_last_row_load_after_a_full_batch() {
        // 4-bit page at x = 640 whose texels (0, 0) and (1, 0) are indices 1 and 2.
        let mut words = vec![0xe300_0000, 0xe407_ffff, 0xe100_000a];
        words.extend([0xa000_0000, 640, 0x0001_0001, 0x0000_0021]);
        // Two 16-entry CLUTs on row 511, at x = 992 and 1008.
        words.extend([0xa000_0000, (511 << 16) | 992, 0x0001_0020]);
        words.extend((0..16u32).map(|i| (0x1000 + 0x222 * i) | (0x1111 + 0x222 * i) << 16));
        let clut = |x: u32| ((511 << 6) | (x / 16)) << 16;
        // A full batch of 1×1 raw textured rectangles with the first CLUT, then rectangles
        // that load the second and the first again in the next batch.
        let mut rect = |x: u32, y: u32, clut: u32, u: u32| {
            words.extend([0x6d00_0000, (y << 16) | x, clut | u]);
        };
        for i in 0..2048 {
            rect(i % 512, i / 512, clut(992), i % 2);
        }
        for (k, (x, u)) in [(1008, 0), (992, 1), (1008, 1)].into_iter().enumerate() {
            rect(k as u32, 100, clut(x), u);
        }
        let mut serial = Gpu::new();
        serial.set_threads(Threads::Serial);
        serial.gp0_words(&words);
        let want = serial.vram().to_vec();
        assert_eq!(want[100 * VRAM_WIDTH..][..3], [0x2221, 0x1222, 0x2332]);
        for threads in [Threads::Pool(2), Threads::Pool(3)] {
            let mut g = Gpu::new();
            g.set_threads(threads);
            g.set_parallel_min_load(0);
            g.gp0_words(&words);
            assert!(g.vram() == &want[..], "{threads:?}");
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

    /// The CLUT cache keeps entries VRAM no longer holds while its key stays the same, read
    /// back from its copy; a new key loads again.
    #[test]
    fn the_clut_cache_keeps_entries_overwritten_in_vram() {
        for threads in [1, 3] {
            let mut g = Gpu::new();
            g.set_threads(Threads::from_count(threads));
            // 4-bit page at x = 640 whose texel (0, 0) is index 1; CLUT at (0, 500).
            g.gp0_words(&[0xe300_0000, 0xe407_ffff, 0xe100_000a]);
            g.gp0_words(&[0xa000_0000, 640, 0x0001_0001, 0x0000_0001]);
            g.gp0_words(&[0xa000_0000, 500 << 16, 0x0001_0002, 0x1111_0000]);
            let clut = (500 << 6) << 16;
            // A raw textured 1x1 rectangle loads the CLUT (entry 1 = 0x1111)...
            g.gp0_words(&[0x6d00_0000, 0, clut]);
            // ...the CLUT is overwritten, and the same key draws the old entry...
            g.gp0_words(&[0xa000_0000, 500 << 16, 0x0001_0002, 0x2222_0000]);
            g.gp0_words(&[0x6d00_0000, 1, clut]);
            // ...until another key is loaded and this one again.
            g.gp0_words(&[0x6d00_0000, 2, clut | (1 << 16)]);
            g.gp0_words(&[0x6d00_0000, 3, clut]);
            assert_eq!(
                g.vram()[..4],
                [0x1111, 0x1111, 0, 0x2222],
                "threads {threads}"
            );
        }
    }
}
