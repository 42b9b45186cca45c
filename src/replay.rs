//! Replaying recorded GPU input from power-on: a text stream (`hwtests/FORMAT.md`) or a GPU
//! dump ([`crate::dump`]), optionally stopping after frame N.
//!
//! Frames: a stream's `frame` line and a dump's VSync packet each end one frame. Stopping at
//! frame N means running everything up to and including the N-th mark (N = 0: everything before
//! the first). Without a frame, everything runs, including words after the last mark.
//!
//! Dump packets map to the GPU as: GP0/GP1 words → `gp0`/`gp1`; discard and read-back →
//! that many `gpuread` calls (capped at [`crate::dump::MAX_READ_WORDS`], a whole VRAM);
//! everything else (trace begin, version, strings, unknown types) is information only.

use std::fmt;
use std::path::Path;

use gpu::Gpu;

use crate::dump::{self, Dump, Packet};
use crate::formats::{self, LoadError};
use crate::stream::{self, Item};

/// What `replay` runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A text stream's GP0/GP1/frame items, in order, and the line each came from.
    Stream {
        /// The items.
        items: Vec<Item>,
        /// 1-based line of each item.
        lines: Vec<usize>,
    },
    /// A parsed GPU dump.
    Dump(Dump),
}

impl Input {
    /// Reads `data` as a dump when it starts with a dump magic (or is a compressed file), else
    /// as a text stream. Errors carry the byte offset; the caller adds the file name.
    pub fn parse(data: &[u8]) -> Result<Self, LoadError> {
        if dump::looks_like_dump(data) {
            return dump::parse(data).map(Input::Dump);
        }
        let text = std::str::from_utf8(data).map_err(|e| {
            LoadError::invalid(
                "GPU stream",
                e.valid_up_to() as u64,
                "neither a GPUDUMP (no PSXGPUDUMPv1 magic) nor a UTF-8 text stream",
            )
        })?;
        let (mut items, mut lines) = (Vec::new(), Vec::new());
        items.reserve(stream::likely_lines(text));
        lines.reserve(stream::likely_lines(text));
        stream::each_line(text, |l| {
            if matches!(l.item, Item::Gp0(_) | Item::Gp1(_) | Item::Frame) {
                items.push(l.item);
                lines.push(l.line);
            }
        })?;
        if items.is_empty() {
            return Err(LoadError::invalid(
                "GPU stream",
                0,
                "no `gp0`, `gp1` or `frame` lines: not a GPU stream",
            ));
        }
        Ok(Input::Stream { items, lines })
    }

    /// Where GP0 word `n` (from 0, in input order) is in the input: `line L` of a text stream,
    /// `byte 0xB` of a dump; `None` past the last.
    pub fn locate_gp0(&self, n: u64) -> Option<String> {
        match self {
            Input::Stream { items, lines } => items
                .iter()
                .zip(lines)
                .filter(|(i, _)| matches!(i, Item::Gp0(_)))
                .nth(n.try_into().ok()?)
                .map(|(_, line)| format!("line {line}")),
            Input::Dump(d) => {
                let mut left = n;
                for e in &d.entries {
                    if let Packet::Gp0(words) = &e.packet {
                        let len = words.len() as u64;
                        if left < len {
                            return Some(format!("byte {:#x}", e.offset + 4 + 4 * left));
                        }
                        left -= len;
                    }
                }
                None
            }
        }
    }

    /// Loads and parses a file (size capped by [`formats::read_file`]).
    pub fn load(path: &Path) -> Result<Self, LoadError> {
        let data = formats::read_file(path, "GPU stream")?;
        Self::parse(&data).map_err(|e| e.in_file(path))
    }

    /// How many frame marks the input holds.
    pub fn frames(&self) -> u64 {
        match self {
            Input::Stream { items, .. } => {
                items.iter().filter(|i| **i == Item::Frame).count() as u64
            }
            Input::Dump(d) => d.frames(),
        }
    }

    /// The input as a spec-form (16-byte magic) GPU dump that emulator dump players open: a
    /// comment, trace begin, the words, a VSync per frame mark, and a closing VSync when the
    /// input does not end with one (DuckStation's player needs at least one). Dumps are
    /// re-encoded as they are (a 14-byte-magic dump comes out in the 16-byte form).
    pub fn to_dump(&self) -> Result<Vec<u8>, dump::PacketTooLong> {
        match self {
            Input::Dump(d) => {
                let packets: Vec<Packet> = d.packets().cloned().collect();
                dump::encode(&packets)
            }
            Input::Stream { items, .. } => {
                let mut w = dump::Writer::new();
                w.packet(&Packet::Comment(format!(
                    "psxrender {} replay of a text stream",
                    env!("CARGO_PKG_VERSION")
                )))?;
                w.packet(&Packet::TraceBegin)?;
                for item in items {
                    match item {
                        Item::Gp0(x) => w.gp0(*x),
                        Item::Gp1(x) => w.gp1(*x),
                        Item::Frame => w.vsync(dump::VSyncTime::None),
                        _ => {}
                    }
                }
                if items.last() != Some(&Item::Frame) {
                    w.vsync(dump::VSyncTime::None);
                }
                Ok(w.finish())
            }
        }
    }

    /// A one-line (dumps: a few lines) description for the command line.
    pub fn summary(&self) -> String {
        match self {
            Input::Stream { items, .. } => {
                let count = |f: fn(&Item) -> bool| items.iter().filter(|i| f(i)).count();
                format!(
                    "text stream: {} GP0 words, {} GP1 words, {} frames",
                    count(|i| matches!(i, Item::Gp0(_))),
                    count(|i| matches!(i, Item::Gp1(_))),
                    self.frames()
                )
            }
            Input::Dump(d) => d.summary(),
        }
    }
}

/// How to replay.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Stop after this many frame marks; `None` runs everything.
    pub frame: Option<u64>,
    /// Rasteriser threads (0 = all cores, 1 = serial).
    pub threads: usize,
    /// VRAM halfwords (x, y) whose pixel history to record ([`gpu::Gpu::watch`]).
    pub watch: Vec<(u16, u16)>,
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
                "frame {requested} asked for, but the input has {available} frame marks \
                 (frame 0 = before the first; default = the end)"
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

/// Runs `input` on a power-on GPU.
pub fn run(input: &Input, opts: Options) -> Result<Replayed, ReplayError> {
    let available = input.frames();
    if let Some(requested) = opts.frame.filter(|&f| f > available) {
        return Err(ReplayError::FrameOutOfRange {
            requested,
            available,
        });
    }
    let mut gpu = Gpu::new();
    gpu.set_threads(gpu::Threads::from_count(opts.threads));
    gpu.watch(&opts.watch);
    let mut frames_run = 0;
    let done = |frames_run: u64| opts.frame == Some(frames_run);
    if !done(0) {
        match input {
            Input::Stream { items, .. } => {
                for item in items {
                    match item {
                        Item::Gp0(w) => gpu.gp0(*w),
                        Item::Gp1(w) => gpu.gp1(*w),
                        Item::Frame => {
                            frames_run += 1;
                            if done(frames_run) {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            Input::Dump(d) => {
                for p in d.packets() {
                    match p {
                        Packet::Gp0(words) => gpu.gp0_words(words),
                        Packet::Gp1(words) => words.iter().for_each(|&w| gpu.gp1(w)),
                        Packet::Discard(n) | Packet::Readback(n) => {
                            for _ in 0..(*n).min(dump::MAX_READ_WORDS) {
                                gpu.gpuread();
                            }
                        }
                        Packet::VSync(_) => {
                            frames_run += 1;
                            if done(frames_run) {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    Ok(Replayed { gpu, frames_run })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dump::{encode, VSyncTime};

    #[test]
    fn detects_dumps_and_streams_by_content() {
        let d = encode(&[Packet::Gp0(vec![1]), Packet::VSync(VSyncTime::None)]).unwrap();
        let input = Input::parse(&d).unwrap();
        assert!(matches!(input, Input::Dump(_)));
        assert_eq!(input.frames(), 1);
        let s = Input::parse(b"gp1 00000000\n# x\ngp0 e1000400\nframe\ncase a\n").unwrap();
        assert_eq!(
            s,
            Input::Stream {
                items: vec![Item::Gp1(0), Item::Gp0(0xe100_0400), Item::Frame],
                lines: vec![1, 3, 4],
            }
        );
        let e = Input::parse(&[0xff, 0xfe, 0]).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.to_string().contains("neither"), "{e}");
        let e = Input::parse(b"PSXGPUDUMPv1r1\0\0\x05\0").unwrap_err();
        assert_eq!(e.offset, 16);
    }

    #[test]
    fn streams_convert_to_dumps_that_replay_the_same_words() {
        let s = Input::parse(b"gp1 00000000\ngp0 e1000400\nframe\ngp0 00000000\n").unwrap();
        let d = Input::parse(&s.to_dump().unwrap()).unwrap();
        let Input::Dump(d) = d else {
            panic!("not a dump")
        };
        let packets: Vec<Packet> = d.packets().cloned().collect();
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
