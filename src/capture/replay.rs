//! Replaying recorded GPU input from power-on: a text stream (`hwtests/FORMAT.md`) or a GPU
//! dump ([`dump`]), optionally stopping after frame N.
//!
//! Frames: a stream's `frame` line and a dump's VSync packet each end one frame. Stopping at
//! frame N means running everything up to and including the N-th mark (N = 0: everything before
//! the first). Without a frame, everything runs, including words after the last mark.
//!
//! Dump packets map to the GPU as: GP0/GP1 words → `gp0`/`gp1`; discard and read-back →
//! that many `gpuread` calls (capped at [`dump::MAX_READ_WORDS`], a whole VRAM, and ending with
//! the GP0(C0h) transfer they read, past which a read changes nothing); everything else (trace
//! begin, version, strings, unknown types) is information only.
//!
//! Before running, the input is [`Prepared`]: consecutive GP0 words become one slice for
//! [`Gpu::gp0_words`] (the GPU takes a slice exactly as word by word, in fewer calls), so a
//! text stream of a million `gp0` lines is fed like a dump's one packet, and consecutive frame
//! marks one step. [`repeat`] times a prepared input on fresh GPUs (`replay --repeat`).

use std::fmt;
use std::time::{Duration, Instant};

use gpu::Gpu;

use crate::capture::dump::{self, Packet, PacketRef};
use crate::capture::input::Input;

/// Most runs `replay --repeat` makes: more than any timing needs, few enough that the command
/// ends and the run times it keeps stay small.
pub const MAX_REPEAT: u32 = 100_000;

/// GPUSTAT bit 27 (psx-spx "ready to send VRAM to CPU"): a GP0(C0h) transfer has words left.
const GPUSTAT_READ_PENDING: u32 = 1 << 27;

/// How to replay.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Stop after this many frame marks; `None` runs everything.
    pub frame: Option<u64>,
    /// Rasteriser threads (0 = all cores, 1 = serial).
    pub threads: usize,
    /// VRAM halfwords (x, y) whose pixel history to record ([`gpu::Gpu::watch`]).
    pub watch: Vec<(u16, u16)>,
    /// The least load drawn on several threads ([`gpu::Gpu::set_parallel_min_load`]); `None`
    /// keeps the GPU's default. Tests set 0 to draw every batch in bands.
    pub parallel_min_load: Option<u64>,
}

/// A replay that cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// `--frame` asks for more frames than the input has.
    FrameOutOfRange {
        /// The frame asked for.
        requested: u64,
        /// Frame marks in the input.
        available: u64,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::FrameOutOfRange {
                requested,
                available,
            } => write!(
                f,
                "frame {requested} asked for, but the input has {available} frame mark{} \
                 (frame 0 = before the first; default = the end)",
                if *available == 1 { "" } else { "s" }
            ),
        }
    }
}

impl std::error::Error for ReplayError {}

/// The GPU after a replay, and how far it got.
pub struct Replayed {
    /// The GPU, VRAM and display state as the replay left them.
    pub gpu: Gpu,
    /// Frame marks executed.
    pub frames_run: u64,
}

/// One thing a prepared input does to the GPU. Each is 8 bytes, and runs of words or frame
/// marks are one step, so a prepared input costs no more than the packets it was made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// The next this many words of [`Prepared::gp0`] to GP0, in one call.
    Gp0(u32),
    /// A GP1 word.
    Gp1(u32),
    /// This many GPUREAD reads (discard or read-back), capped at [`dump::MAX_READ_WORDS`].
    Read(u32),
    /// This many frame marks in a row.
    Frames(u32),
}

/// An input as the GPU takes it, to be fed any number of times: every run of consecutive GP0
/// words (stream lines, or dump packets with only information packets between them) is one
/// slice, every run of frame marks one step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prepared {
    steps: Vec<Step>,
    gp0: Vec<u32>,
    frames: u64,
}

impl Prepared {
    /// Prepares `input`.
    pub fn new(input: &Input) -> Self {
        let mut p = Prepared::default();
        for (_, packet) in input.packets() {
            match packet {
                PacketRef::Gp0(words) => p.gp0(words),
                PacketRef::Gp1(words) => p.steps.extend(words.iter().map(|&w| Step::Gp1(w))),
                PacketRef::Discard(n) | PacketRef::Readback(n) => {
                    p.steps.push(Step::Read(n.min(dump::MAX_READ_WORDS)))
                }
                PacketRef::VSync(_) => p.frame(),
                _ => {}
            }
        }
        p
    }

    /// Appends GP0 words, to the run before them when the last step is one (a run that would
    /// pass `u32::MAX` words goes on in a new step).
    fn gp0(&mut self, words: &[u32]) {
        self.gp0.extend_from_slice(words);
        let mut left = words.len();
        while left > 0 {
            if let Some(Step::Gp0(n)) = self.steps.last_mut() {
                let add = left.min((u32::MAX - *n) as usize);
                *n += add as u32;
                left -= add;
            }
            if left > 0 {
                self.steps.push(Step::Gp0(0));
            }
        }
    }

    /// Appends a frame mark, to the run before it when the last step is one.
    fn frame(&mut self) {
        self.frames += 1;
        match self.steps.last_mut() {
            Some(Step::Frames(n)) if *n < u32::MAX => *n += 1,
            _ => self.steps.push(Step::Frames(1)),
        }
    }

    /// GP0 calls a feed makes for the whole input (one per run of consecutive words).
    pub fn gp0_calls(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| matches!(s, Step::Gp0(_)))
            .count()
    }

    /// Feeds the input to `gpu` up to frame mark `frame` (`None`: all of it), and returns the
    /// frame marks executed. Anything queued is left for the caller's next VRAM read to draw.
    pub fn feed(&self, gpu: &mut Gpu, frame: Option<u64>) -> Result<u64, ReplayError> {
        if let Some(requested) = frame.filter(|&f| f > self.frames) {
            return Err(ReplayError::FrameOutOfRange {
                requested,
                available: self.frames,
            });
        }
        let mut frames_run = 0;
        if frame == Some(0) {
            return Ok(0);
        }
        // The next word of `self.gp0` to feed.
        let mut at = 0;
        for &step in &self.steps {
            match step {
                Step::Gp0(n) => {
                    let end = at + n as usize;
                    gpu.gp0_words(&self.gp0[at..end]);
                    at = end;
                }
                Step::Gp1(w) => gpu.gp1(w),
                Step::Read(n) => read_back(gpu, n),
                Step::Frames(n) => {
                    // The frame asked for lies past the marks run so far.
                    if let Some(f) = frame.filter(|f| f.saturating_sub(frames_run) <= u64::from(n))
                    {
                        return Ok(f);
                    }
                    frames_run += u64::from(n);
                }
            }
        }
        Ok(frames_run)
    }

    /// A power-on GPU set up as `opts` asks (threads, parallel threshold, pixel history).
    fn gpu(opts: &Options) -> Gpu {
        let mut gpu = Gpu::new();
        gpu.set_threads(gpu::Threads::from_count(opts.threads));
        if let Some(load) = opts.parallel_min_load {
            gpu.set_parallel_min_load(load);
        }
        gpu.watch(&opts.watch);
        gpu
    }
}

/// Feeds one dump packet to `gpu` as the module docs map it; true when it is a frame mark.
/// (The streaming player's step: [`Prepared`] batches the same mapping for repeated runs.)
pub fn apply(gpu: &mut Gpu, packet: &Packet) -> bool {
    match packet {
        Packet::Gp0(words) => gpu.gp0_words(words),
        Packet::Gp1(words) => words.iter().for_each(|&w| gpu.gp1(w)),
        Packet::Discard(n) | Packet::Readback(n) => read_back(gpu, *n),
        Packet::VSync(_) => return true,
        _ => {}
    }
    false
}

/// The GPUREAD reads of a discard or read-back packet of `n` words: at most
/// [`dump::MAX_READ_WORDS`], and none once no GP0(C0h) transfer is under way, since such a read
/// only returns the latched word again. So a dump of such packets costs the words it reads, not
/// the counts it claims.
fn read_back(gpu: &mut Gpu, n: u32) {
    for _ in 0..n.min(dump::MAX_READ_WORDS) {
        if gpu.gpustat() & GPUSTAT_READ_PENDING == 0 {
            break;
        }
        gpu.gpuread();
    }
}

/// A power-on GPU set up as `opts` asks (threads, parallel threshold, pixel history).
pub fn new_gpu(opts: &Options) -> Gpu {
    Prepared::gpu(opts)
}

/// Runs `input` on a power-on GPU.
pub fn run(input: &Input, opts: Options) -> Result<Replayed, ReplayError> {
    let prepared = Prepared::new(input);
    let mut gpu = Prepared::gpu(&opts);
    let frames_run = prepared.feed(&mut gpu, opts.frame)?;
    Ok(Replayed { gpu, frames_run })
}

/// Times of repeated replays ([`repeat`]).
pub struct Timing {
    /// Wall-clock time of each run: feeding the input and drawing all of it (the closing VRAM
    /// read), without making the GPU.
    pub runs: Vec<Duration>,
    /// User + system CPU seconds of the whole process per run, every thread counted, over all
    /// runs (making and dropping each GPU included); `None` where the system does not say.
    pub cpu_per_run: Option<f64>,
    /// Pixels the input covers ([`crate::capture::census::Census::pixels`] up to the frame replayed).
    pub pixels: u64,
    /// The last run's GPU, for the outputs.
    pub last: Replayed,
}

impl Timing {
    /// The median run time (the mean of the two middle ones for an even count).
    pub fn median(&self) -> Duration {
        let mut t = self.runs.clone();
        t.sort();
        let n = t.len();
        match n % 2 {
            1 => t[n / 2],
            _ => (t[n / 2 - 1] + t[n / 2]) / 2,
        }
    }

    /// The fastest run.
    pub fn min(&self) -> Duration {
        self.runs.iter().copied().min().unwrap_or_default()
    }

    /// `median X s, min Y s, Z M px/s`: Z is pixels over the median time, in millions.
    pub fn summary(&self) -> String {
        let median = self.median().as_secs_f64();
        format!(
            "median {median:.4} s, min {:.4} s, {:.1} M px/s",
            self.min().as_secs_f64(),
            self.pixels as f64 / median.max(f64::MIN_POSITIVE) / 1e6
        )
    }
}

/// Replays `input` `times` times (at least once, at most [`MAX_REPEAT`]), each on a fresh GPU
/// made as `opts` asks and fed the prepared input up to `opts.frame`, timing from the first word
/// to the end of the closing VRAM read (which draws what is still queued). Preparing the input
/// and counting its pixels are not timed.
pub fn repeat(input: &Input, opts: &Options, times: usize) -> Result<Timing, ReplayError> {
    let prepared = Prepared::new(input);
    let pixels = crate::capture::census::Census::up_to(input, opts.frame).pixels;
    // Grown run by run: `times` is the caller's number.
    let mut runs = Vec::new();
    let cpu_before = crate::cpu_time::process_cpu_seconds();
    let mut last = None;
    for _ in 0..times.clamp(1, MAX_REPEAT as usize) {
        let mut gpu = Prepared::gpu(opts);
        let start = Instant::now();
        let frames_run = prepared.feed(&mut gpu, opts.frame)?;
        gpu.vram();
        runs.push(start.elapsed());
        last = Some(Replayed { gpu, frames_run });
    }
    let cpu_after = crate::cpu_time::process_cpu_seconds();
    let cpu_per_run = cpu_before
        .zip(cpu_after)
        .map(|(a, b)| (b - a) / runs.len() as f64);
    Ok(Timing {
        runs,
        cpu_per_run,
        pixels,
        last: last.expect("at least one run"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::dump::{encode, VSyncTime};
    use crate::capture::input::Place;

    #[test]
    fn detects_dumps_and_streams_by_content() {
        let d = encode(&[Packet::Gp0(vec![1]), Packet::VSync(VSyncTime::None)]).unwrap();
        let input = Input::parse(&d).unwrap();
        assert!(matches!(input, Input::Dump(_)));
        assert_eq!(input.frames(), 1);
        let s = Input::parse(b"gp1 00000000\n# x\ngp0 e1000400\nframe\ncase a\n").unwrap();
        let packets: Vec<_> = s.packets().map(|(at, p)| (at, p.to_packet())).collect();
        assert_eq!(
            packets,
            [
                (Place::Line(1), Packet::Gp1(vec![0])),
                (Place::Line(3), Packet::Gp0(vec![0xe100_0400])),
                (Place::Line(4), Packet::VSync(VSyncTime::None)),
            ]
        );
        let e = Input::parse(&[0xff, 0xfe, 0]).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.to_string().contains("neither"), "{e}");
        let Input::Dump(cut) = Input::parse(b"PSXGPUDUMPv1r1\0\0\x05\0").unwrap() else {
            panic!("not a dump")
        };
        assert!(cut.entries.is_empty());
        assert!(
            cut.warnings[0].contains("cut at byte 0x12"),
            "{:?}",
            cut.warnings
        );
    }

    #[test]
    fn streams_convert_to_dumps_that_replay_the_same_words() {
        let s = Input::parse(b"gp1 00000000\ngp0 e1000400\nframe\ngp0 00000000\n").unwrap();
        let d = Input::parse(&s.to_dump(dump::Form::Spec).unwrap()).unwrap();
        let Input::Dump(d) = d else {
            panic!("not a dump")
        };
        let packets: Vec<Packet> = d.packets().map(|p| p.to_packet()).collect();
        assert!(matches!(packets[0], Packet::Comment(_)));
        assert_eq!(
            packets[1..],
            [
                Packet::TraceBegin,
                Packet::Gp1(vec![0]),
                Packet::Gp0(vec![0xe100_0400]),
                Packet::VSync(VSyncTime::None),
                Packet::Gp0(vec![0]),
                Packet::VSync(VSyncTime::None),
            ]
        );
    }

    #[test]
    fn frames_stop_where_asked() {
        let s = Input::parse(b"gp0 00000000\nframe\nframe\ngp0 00000000\n").unwrap();
        let run_to = |frame| {
            let opts = Options {
                frame,
                threads: 1,
                ..Default::default()
            };
            run(&s, opts)
        };
        assert_eq!(run_to(None).unwrap().frames_run, 2);
        assert_eq!(run_to(Some(0)).unwrap().frames_run, 0);
        assert_eq!(run_to(Some(1)).unwrap().frames_run, 1);
        assert_eq!(
            run_to(Some(3)).err(),
            Some(ReplayError::FrameOutOfRange {
                requested: 3,
                available: 2
            })
        );
    }

    /// The two VRAM-restore forms of gpu-dump-notes.md: the spec's `A0000000, 0, 02000400`
    /// under the 16-byte magic, and DuckStation's size word 0 (= 1024×512) under the 14-byte one.
    #[test]
    fn both_vram_restore_forms_replay_to_the_same_vram() {
        let pattern: Vec<u16> = (0..1024 * 512u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 16) as u16)
            .collect();
        let mut w = dump::Writer::new();
        w.restore_vram(&pattern);
        w.vsync(VSyncTime::U64(1));
        let spec = w.finish();

        let mut duck = dump::MAGIC_SHORT.to_vec();
        let words = 3 + pattern.len() / 2;
        duck.extend_from_slice(&(words as u32).to_le_bytes());
        for x in [0xA000_0000u32, 0, 0] {
            duck.extend_from_slice(&x.to_le_bytes());
        }
        for h in &pattern {
            duck.extend_from_slice(&h.to_le_bytes());
        }
        duck.extend_from_slice(&0x0200_0000u32.to_le_bytes());

        for (name, bytes) in [("spec", spec), ("DuckStation", duck)] {
            let input = Input::parse(&bytes).unwrap();
            let mut r = run(&input, Options::default()).unwrap();
            assert_eq!(r.frames_run, 1);
            let vram = r.gpu.vram();
            let bad: Vec<usize> = (0..pattern.len())
                .filter(|&i| vram[i] != pattern[i])
                .collect();
            assert!(
                bad.is_empty(),
                "{name}: {} halfwords differ, first at ({}, {}): {:04x} != {:04x}",
                bad.len(),
                bad[0] % 1024,
                bad[0] / 1024,
                vram[bad[0]],
                pattern[bad[0]]
            );
        }
    }

    /// Consecutive GP0 words are one slice, in streams and across a dump's information packets.
    #[test]
    fn runs_of_gp0_words_are_fed_in_one_call() {
        let s = Input::parse(b"gp0 0\ngp0 0\n# c\ngp0 0\ngp1 0\ngp0 0\nframe\ngp0 0\n").unwrap();
        let p = Prepared::new(&s);
        assert_eq!(p.gp0_calls(), 3);
        assert_eq!(p.gp0, vec![0; 5]);
        let d = encode(&[
            Packet::Gp0(vec![1, 2]),
            Packet::Comment("x".into()),
            Packet::Gp0(vec![3]),
            Packet::Readback(2),
            Packet::Gp0(vec![4]),
        ])
        .unwrap();
        let p = Prepared::new(&Input::parse(&d).unwrap());
        assert_eq!(p.gp0_calls(), 2);
        assert_eq!(p.steps[0], Step::Gp0(3));
        assert_eq!(p.steps[1], Step::Read(2));
    }

    /// A run of frame marks is one step, and a frame inside it stops there.
    #[test]
    fn runs_of_frame_marks_are_one_step() {
        let s = Input::parse(b"frame\nframe\ngp0 0\nframe\nframe\nframe\n").unwrap();
        let p = Prepared::new(&s);
        assert_eq!(p.steps, [Step::Frames(2), Step::Gp0(1), Step::Frames(3)]);
        for frame in 0..=5 {
            assert_eq!(p.feed(&mut Gpu::new(), Some(frame)), Ok(frame));
        }
        assert_eq!(p.feed(&mut Gpu::new(), None), Ok(5));
    }

    /// A read-back reads what a GP0(C0h) transfer has, then stops: the GPU goes on taking
    /// commands, and reads past the transfer change nothing.
    #[test]
    fn read_backs_end_with_their_transfer() {
        let mut g = Gpu::new();
        // A 2x1 upload at (0,0), then a 2x1 read of it (one GPUREAD word).
        g.gp0_words(&[
            0xA000_0000,
            0,
            0x0001_0002,
            0x7fff_001f,
            0xC000_0000,
            0,
            0x0001_0002,
        ]);
        assert_ne!(g.gpustat() & GPUSTAT_READ_PENDING, 0);
        read_back(&mut g, dump::MAX_READ_WORDS);
        assert_eq!(g.gpustat() & GPUSTAT_READ_PENDING, 0);
        assert_eq!(g.gpuread(), 0x7fff_001f);
        g.gp0_words(&[0x02ff_0000, 0, 0x0001_0010]);
        assert_eq!(g.vram()[0], 0x7c00, "a blue fill after the read");
    }

    #[test]
    fn repeat_times_every_run_and_keeps_the_last_gpu() {
        // A 16x1 fill, then 2 frames.
        let s = Input::parse(b"gp0 020000ff\ngp0 00000000\ngp0 00010010\nframe\nframe\n").unwrap();
        let opts = Options {
            threads: 1,
            ..Default::default()
        };
        let mut t = repeat(&s, &opts, 3).unwrap();
        assert_eq!(t.runs.len(), 3);
        assert_eq!(t.pixels, 16);
        assert_eq!(t.last.frames_run, 2);
        assert_eq!(t.last.gpu.vram()[15], 0x001f);
        assert!(t.min() <= t.median());
        let line = t.summary();
        assert!(
            line.starts_with("median ") && line.ends_with(" M px/s"),
            "{line}"
        );
        let at_0 = Options {
            frame: Some(0),
            ..opts.clone()
        };
        assert_eq!(repeat(&s, &at_0, 1).unwrap().pixels, 0);
        let past = Options {
            frame: Some(3),
            ..opts
        };
        assert!(repeat(&s, &past, 1).is_err());
    }

    #[test]
    fn stream_fill_reaches_vram() {
        // GP0(02h) fill of 16×1 at (0,0) with red, then a 2-halfword upload at (0,1).
        let s = Input::parse(
            b"gp0 020000ff\ngp0 00000000\ngp0 00010010\ngp0 a0000000\ngp0 00010000\ngp0 00010002\ngp0 80017c00\n",
        )
        .unwrap();
        let mut r = run(&s, Options::default()).unwrap();
        let v = r.gpu.vram();
        assert_eq!(v[0], 0x001f, "fill colour");
        assert_eq!(v[15], 0x001f);
        assert_eq!(v[16], 0);
        assert_eq!(v[1024..1026], [0x7c00, 0x8001], "upload");
    }
}
