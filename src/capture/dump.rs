//! GPU dumps ("GPUDUMP", `.psxgpu`): a recorded stream of GP0/GP1 words with VSync marks.
//!
//! Format (`shared/spec/gpudump.md`, the ps1dev spec; `gpu-dump-notes.md` for producers):
//! a magic, then packets `header:u32 payload:u32[len]`, little-endian, where
//! `header = (type << 24) | len_in_words`. Two magics exist in the wild and both are read:
//! - 16 bytes `PSXGPUDUMPv1r1\0\0` (the spec, PCSX-Redux) — the only form [`Writer`] produces;
//! - 14 bytes `PSXGPUDUMPv1\0\0` (DuckStation), so its packet headers sit at offsets ≡ 2 mod 4.
//!
//! Reading is strict about structure (a truncated packet is an error naming its offset) and
//! lenient about content: unknown packet types are kept as [`Packet::Unknown`] and skipped by
//! replay; odd payload sizes of known types become warnings. Packets are read one at a time from
//! any byte stream ([`PacketReader`]: a file, a slice, a zstd/xz decoder); a payload's buffer
//! grows with the bytes that arrive, so a length the input cannot back allocates nothing.
//!
//! How sure we are: the layout follows the spec text; the 14-byte variant and DuckStation's
//! VRAM-restore quirks come from `gpu-dump-notes.md`. No hardware-captured dump exists to test
//! against, so the tests are round trips and hand-built files.

use std::fmt;
use std::io::{self, Read};

use crate::capture::compressed::Compression;
use crate::formats::{ErrorKind, LoadError, Result};

/// Format name carried by load errors.
pub const FORMAT: &str = "GPUDUMP";

/// The spec's 16-byte magic (`v1r1`), written by [`Writer`].
pub const MAGIC_SPEC: &[u8; 16] = b"PSXGPUDUMPv1r1\0\0";
/// DuckStation's 14-byte magic.
pub const MAGIC_SHORT: &[u8; 14] = b"PSXGPUDUMPv1\0\0";
/// What every accepted magic starts with.
pub const MAGIC_PREFIX: &[u8; 12] = b"PSXGPUDUMPv1";

/// Longest string payload (game ID, video format, comment) accepted, in words.
pub const MAX_STRING_WORDS: u64 = 4096;
/// Largest packet payload the header can express, in words (24-bit length field).
pub const MAX_PACKET_WORDS: usize = 0xFF_FFFF;
/// Largest GPUREAD discard/read-back honoured by replay, in words: a whole 1 MiB VRAM.
pub const MAX_READ_WORDS: u32 = 1 << 18;

/// Which magic a dump starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Magic {
    /// `PSXGPUDUMPv1r1\0\0` (16 bytes).
    Spec,
    /// `PSXGPUDUMPv1\0\0` (14 bytes, DuckStation).
    Short,
}

impl Magic {
    /// Length of the magic in bytes: where the first packet starts.
    pub fn len(self) -> usize {
        match self {
            Magic::Spec => MAGIC_SPEC.len(),
            Magic::Short => MAGIC_SHORT.len(),
        }
    }

    /// Always false (a magic is never empty); present for clippy's `len` convention.
    pub fn is_empty(self) -> bool {
        false
    }
}

/// A packet type byte (header bits 24–31). Open: any value is data, unknown ones are skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PacketType(pub u8);

impl PacketType {
    /// 0x00: words for GP0 (a stream: may hold several commands or part of one).
    pub const GP0: Self = Self(0x00);
    /// 0x01: words for GP1.
    pub const GP1: Self = Self(0x01);
    /// 0x02: a VSync, with 0–2 words of CPU-cycle timestamp.
    pub const VSYNC: Self = Self(0x02);
    /// 0x03: read and discard N GPUREAD words.
    pub const DISCARD: Self = Self(0x03);
    /// 0x04: read back N GPUREAD words (the destination is outside the format).
    pub const READBACK: Self = Self(0x04);
    /// 0x05: the trace proper begins; earlier GPU packets restore state.
    pub const TRACE_BEGIN: Self = Self(0x05);
    /// 0x06: GPU version and VRAM size.
    pub const GPU_VERSION: Self = Self(0x06);
    /// 0x10: game ID string (`SLUS-12345`).
    pub const GAME_ID: Self = Self(0x10);
    /// 0x11: video format string (`PAL`/`NTSC`), informational.
    pub const VIDEO_FORMAT: Self = Self(0x11);
    /// 0x12: free-text comment.
    pub const COMMENT: Self = Self(0x12);
}

/// The timestamp a VSync packet carries (CPU cycles).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VSyncTime {
    /// No payload.
    None,
    /// One word: wraps every 2^32 cycles.
    U32(u32),
    /// Two words (low, high).
    U64(u64),
}

/// One packet of a dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Packet {
    /// GP0 words.
    Gp0(Vec<u32>),
    /// GP1 words.
    Gp1(Vec<u32>),
    /// A VSync: one frame ends.
    VSync(VSyncTime),
    /// Discard this many GPUREAD words.
    Discard(u32),
    /// Read back this many GPUREAD words.
    Readback(u32),
    /// Trace begin: what precedes it was synthetic state restore.
    TraceBegin,
    /// GPU version word (spec: 1 = v1/1 MiB, 2 = v2/1 MiB, 3 = v2/2 MiB; DuckStation writes 1
    /// for its v2 GPU).
    GpuVersion(u32),
    /// Game ID.
    GameId(String),
    /// Video format (`PAL`/`NTSC`).
    VideoFormat(String),
    /// Comment (often the producing tool and version).
    Comment(String),
    /// A type this reader does not know, kept with its payload.
    Unknown {
        /// The type byte.
        kind: PacketType,
        /// The payload words.
        payload: Vec<u32>,
    },
}

impl Packet {
    /// The type byte this packet is written with.
    pub fn kind(&self) -> PacketType {
        match self {
            Packet::Gp0(_) => PacketType::GP0,
            Packet::Gp1(_) => PacketType::GP1,
            Packet::VSync(_) => PacketType::VSYNC,
            Packet::Discard(_) => PacketType::DISCARD,
            Packet::Readback(_) => PacketType::READBACK,
            Packet::TraceBegin => PacketType::TRACE_BEGIN,
            Packet::GpuVersion(_) => PacketType::GPU_VERSION,
            Packet::GameId(_) => PacketType::GAME_ID,
            Packet::VideoFormat(_) => PacketType::VIDEO_FORMAT,
            Packet::Comment(_) => PacketType::COMMENT,
            Packet::Unknown { kind, .. } => *kind,
        }
    }
}

/// A packet and the file offset of its header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Byte offset of the packet header.
    pub offset: u64,
    /// The packet.
    pub packet: Packet,
}

/// A whole parsed dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dump {
    /// The magic the file starts with.
    pub magic: Magic,
    /// Every packet, in file order.
    pub entries: Vec<Entry>,
    /// Things that were odd but readable (odd payload sizes, unknown types).
    pub warnings: Vec<String>,
    /// The compression of the file it was read from, if any.
    pub compression: Option<Compression>,
}

impl Dump {
    /// The packets without their offsets.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.entries.iter().map(|e| &e.packet)
    }

    /// Number of VSync packets (frames).
    pub fn frames(&self) -> u64 {
        self.packets()
            .filter(|p| matches!(p, Packet::VSync(_)))
            .count() as u64
    }

    /// A one-paragraph summary: magic, packets, words, frames, IDs and comments.
    pub fn summary(&self) -> String {
        let mut gp0 = 0usize;
        let mut gp1 = 0usize;
        let mut lines = Vec::new();
        for p in self.packets() {
            match p {
                Packet::Gp0(w) => gp0 += w.len(),
                Packet::Gp1(w) => gp1 += w.len(),
                Packet::GameId(s) => lines.push(format!("game ID: {s}")),
                Packet::VideoFormat(s) => lines.push(format!("video format: {s}")),
                Packet::Comment(s) => lines.push(format!("comment: {s}")),
                Packet::GpuVersion(v) => lines.push(format!("GPU version word: {v}")),
                Packet::TraceBegin => lines.push(format!(
                    "trace begins after {gp0} state-restore GP0 words and {gp1} GP1 words"
                )),
                _ => {}
            }
        }
        let magic = match self.magic {
            Magic::Spec => "16-byte spec magic",
            Magic::Short => "14-byte DuckStation magic",
        };
        let packed = match self.compression {
            Some(c) => format!(", {}-compressed", c.name()),
            None => String::new(),
        };
        let mut s = format!(
            "GPUDUMP ({magic}{packed}): {} packets, {gp0} GP0 words, {gp1} GP1 words, {} frames",
            self.entries.len(),
            self.frames()
        );
        for l in lines {
            s.push_str("\n  ");
            s.push_str(&l);
        }
        s
    }
}

/// True when `data` looks like a GPU dump (starts `PSXGPUDUMP`, or is a zstd/xz stream, which
/// is read as a compressed dump): the content test `replay` uses.
pub fn looks_like_dump(data: &[u8]) -> bool {
    data.starts_with(&MAGIC_PREFIX[..10]) || Compression::detect(data).is_some()
}

/// Parses a whole dump held in memory, plain or compressed (detected by content).
pub fn parse(data: &[u8]) -> Result<Dump> {
    let compression = Compression::detect(data);
    let mut dump = match compression {
        // Decoded as a stream, capped like a plain file's size.
        Some(c) => collect(PacketReader::new(
            c.decoder(data, crate::formats::MAX_FILE_SIZE),
        )?)?,
        None => collect(PacketReader::new(data)?)?,
    };
    dump.compression = compression;
    Ok(dump)
}

/// Reads every packet of `reader` into a [`Dump`].
pub fn collect<R: Read>(mut reader: PacketReader<R>) -> Result<Dump> {
    let mut entries = Vec::new();
    while let Some(e) = reader.next_entry()? {
        entries.push(e);
    }
    Ok(Dump {
        magic: reader.magic(),
        entries,
        warnings: reader.take_warnings(),
        compression: None,
    })
}

/// Reads a dump's packets one at a time from any byte stream (a file, a slice, a decompressor),
/// so a replay holds one packet, not the whole dump. Offsets count bytes of the stream read
/// (of the decompressed data, for a compressed file); an error of the decompressor comes out as
/// the [`LoadError`] it carries, at its offset in the compressed input.
pub struct PacketReader<R: Read> {
    input: R,
    /// Offset of the next byte to read.
    off: u64,
    magic: Magic,
    seen_gpu_packet: bool,
    warnings: Vec<String>,
}

impl<R: Read> PacketReader<R> {
    /// Reads and checks the magic.
    pub fn new(input: R) -> Result<Self> {
        let mut p = PacketReader {
            input,
            off: 0,
            magic: Magic::Spec,
            seen_gpu_packet: false,
            warnings: Vec::new(),
        };
        let bad_magic = LoadError::new(
            FORMAT,
            0,
            ErrorKind::BadMagic {
                expected: "PSXGPUDUMPv1",
            },
        );
        let mut head = [0u8; 16];
        if p.fill(&mut head[..12])? < 12 || &head[..12] != MAGIC_PREFIX {
            return Err(bad_magic);
        }
        // gpu-dump-notes.md: bytes 12..13 = "r1" → 16-byte magic, else 14 bytes.
        let n = p.fill(&mut head[12..14])?;
        p.magic = if head[12..14] == *b"r1" {
            Magic::Spec
        } else {
            Magic::Short
        };
        let full: &[u8] = match p.magic {
            Magic::Spec => MAGIC_SPEC,
            Magic::Short => MAGIC_SHORT,
        };
        let n = match p.magic {
            Magic::Spec => n + p.fill(&mut head[14..16])?,
            Magic::Short => n,
        };
        if 12 + n < full.len() {
            return Err(p.error(
                12,
                ErrorKind::UnexpectedEof {
                    what: "magic",
                    len: (full.len() - 12) as u64,
                },
            ));
        }
        if head[..full.len()] != *full {
            // "v1r2" and such: a revision this reader does not know (the spec: an error).
            return Err(p.error(
                12,
                ErrorKind::UnsupportedVersion {
                    version: u64::from(u16::from_le_bytes([head[12], head[13]])),
                    supported: "PSXGPUDUMPv1r1 (16-byte) and PSXGPUDUMPv1 (14-byte)",
                },
            ));
        }
        Ok(p)
    }

    /// The magic the dump starts with.
    pub fn magic(&self) -> Magic {
        self.magic
    }

    /// Bytes of the (decompressed) stream read so far.
    pub fn offset(&self) -> u64 {
        self.off
    }

    /// The warnings gathered since the last call (odd payload sizes, unknown types).
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    fn error(&self, off: u64, kind: ErrorKind) -> LoadError {
        LoadError::new(FORMAT, off, kind)
    }

    /// An I/O error of the input: the decompressor's own error when it carries one.
    fn io_error(&self, e: io::Error) -> LoadError {
        match e
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<LoadError>())
        {
            Some(carried) => carried.clone(),
            None => self.error(self.off, ErrorKind::Io(e.to_string())),
        }
    }

    /// Reads until `buf` is full or the input ends; the bytes read.
    fn fill(&mut self, buf: &mut [u8]) -> Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            match self.input.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.io_error(e)),
            }
        }
        self.off += n as u64;
        Ok(n)
    }

    /// The next packet and its offset; `None` at the end of the input.
    pub fn next_entry(&mut self) -> Result<Option<Entry>> {
        let off = self.off;
        let mut header = [0u8; 4];
        match self.fill(&mut header)? {
            0 => return Ok(None),
            4 => {}
            _ => {
                return Err(self.error(
                    off,
                    ErrorKind::UnexpectedEof {
                        what: "packet header",
                        len: 4,
                    },
                ))
            }
        }
        let header = u32::from_le_bytes(header);
        let kind = PacketType((header >> 24) as u8);
        let len = u64::from(header & 0xFF_FFFF);
        if matches!(
            kind,
            PacketType::GAME_ID | PacketType::VIDEO_FORMAT | PacketType::COMMENT
        ) && len > MAX_STRING_WORDS
        {
            return Err(self.error(
                off,
                ErrorKind::CountTooLarge {
                    what: "string payload words",
                    count: len,
                    max: MAX_STRING_WORDS,
                },
            ));
        }
        // Grows with the bytes that arrive, so a length the input cannot back costs nothing.
        let mut payload = Vec::new();
        let got = (&mut self.input)
            .take(len * 4)
            .read_to_end(&mut payload)
            .map_err(|e| self.io_error(e))?;
        self.off += got as u64;
        if got as u64 != len * 4 {
            return Err(self.error(
                off,
                ErrorKind::OutOfBounds {
                    what: "packet payload",
                    target: off + 4,
                    len: len * 4,
                },
            ));
        }
        let packet = self.decode(off, kind, &payload)?;
        if kind.0 <= PacketType::TRACE_BEGIN.0 {
            self.seen_gpu_packet = true;
        }
        Ok(Some(Entry {
            offset: off,
            packet,
        }))
    }

    /// One packet from its type and payload bytes (a whole number of words).
    fn decode(&mut self, off: u64, kind: PacketType, payload: &[u8]) -> Result<Packet> {
        let len = payload.len() as u64 / 4;
        let words = || -> Vec<u32> {
            payload
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let warnings = &mut self.warnings;
        let mut warn = |msg: String| {
            warnings.push(format!(
                "packet at byte 0x{off:x} (type 0x{:02x}): {msg}",
                kind.0
            ))
        };
        let one_word = |warn: &mut dyn FnMut(String)| -> Result<u32> {
            if len > 1 {
                warn(format!("{len} payload words, expected 1; using the first"));
            }
            payload
                .get(..4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .ok_or_else(|| {
                    LoadError::invalid(
                        FORMAT,
                        off,
                        format!("packet type 0x{:02x} needs a word", kind.0),
                    )
                })
        };
        Ok(match kind {
            PacketType::GP0 => Packet::Gp0(words()),
            PacketType::GP1 => Packet::Gp1(words()),
            PacketType::VSYNC => {
                let w = words();
                match w.len() {
                    0 => Packet::VSync(VSyncTime::None),
                    1 => Packet::VSync(VSyncTime::U32(w[0])),
                    n => {
                        if n > 2 {
                            warn(format!("VSync with {n} payload words; using the first two"));
                        }
                        Packet::VSync(VSyncTime::U64(u64::from(w[0]) | u64::from(w[1]) << 32))
                    }
                }
            }
            PacketType::DISCARD => Packet::Discard(one_word(&mut warn)?),
            PacketType::READBACK => Packet::Readback(one_word(&mut warn)?),
            PacketType::TRACE_BEGIN => {
                if len != 0 {
                    warn(format!("trace begin with {len} payload words, expected 0"));
                }
                Packet::TraceBegin
            }
            PacketType::GPU_VERSION => {
                if self.seen_gpu_packet {
                    warn("GPU version after GPU packets (the spec allows it only before)".into());
                }
                let v = one_word(&mut warn)?;
                if v == 3 {
                    warn("GPU version 3 (2 MiB VRAM): only the first 1 MiB is emulated".into());
                }
                Packet::GpuVersion(v)
            }
            PacketType::GAME_ID | PacketType::VIDEO_FORMAT | PacketType::COMMENT => {
                let end = payload
                    .iter()
                    .position(|&b| b == 0)
                    .unwrap_or(payload.len());
                let s = String::from_utf8_lossy(&payload[..end]).into_owned();
                match kind {
                    PacketType::GAME_ID => Packet::GameId(s),
                    PacketType::VIDEO_FORMAT => Packet::VideoFormat(s),
                    _ => Packet::Comment(s),
                }
            }
            _ => {
                warn(format!("unknown packet type, {len} words skipped"));
                Packet::Unknown {
                    kind,
                    payload: words(),
                }
            }
        })
    }
}

/// A packet too long for the 24-bit length field (only strings and unknown packets can be;
/// GP0/GP1 words are split over several packets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PacketTooLong {
    /// The packet type.
    pub kind: PacketType,
    /// Its payload length in words.
    pub words: usize,
}

impl fmt::Display for PacketTooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GPUDUMP packet type 0x{:02x} has {} payload words; the format allows {MAX_PACKET_WORDS}",
            self.kind.0, self.words
        )
    }
}

impl std::error::Error for PacketTooLong {}

/// Builds a dump in the spec's 16-byte form, coalescing consecutive GP0 (or GP1) words into
/// one packet. The renderer's `--dump-gp0` and tests use it.
#[derive(Clone, Debug)]
pub struct Writer {
    out: Vec<u8>,
    pending: Option<(PacketType, Vec<u32>)>,
}

impl Default for Writer {
    fn default() -> Self {
        Self::new()
    }
}

impl Writer {
    /// An empty dump: just the 16-byte magic.
    pub fn new() -> Self {
        Writer {
            out: MAGIC_SPEC.to_vec(),
            pending: None,
        }
    }

    fn raw(&mut self, kind: PacketType, payload: &[u32]) {
        let header = u32::from(kind.0) << 24 | payload.len() as u32;
        self.out.extend_from_slice(&header.to_le_bytes());
        for w in payload {
            self.out.extend_from_slice(&w.to_le_bytes());
        }
    }

    fn flush(&mut self) {
        if let Some((kind, words)) = self.pending.take() {
            for chunk in words.chunks(MAX_PACKET_WORDS) {
                self.raw(kind, chunk);
            }
        }
    }

    fn push_word(&mut self, kind: PacketType, word: u32) {
        match &mut self.pending {
            Some((k, words)) if *k == kind => words.push(word),
            _ => {
                self.flush();
                self.pending = Some((kind, vec![word]));
            }
        }
    }

    /// Records one GP0 word.
    pub fn gp0(&mut self, word: u32) {
        self.push_word(PacketType::GP0, word);
    }

    /// Records GP0 words.
    pub fn gp0_words(&mut self, words: &[u32]) {
        for &w in words {
            self.gp0(w);
        }
    }

    /// Records one GP1 word.
    pub fn gp1(&mut self, word: u32) {
        self.push_word(PacketType::GP1, word);
    }

    /// Records a VSync (end of a frame).
    pub fn vsync(&mut self, time: VSyncTime) {
        self.flush();
        match time {
            VSyncTime::None => self.raw(PacketType::VSYNC, &[]),
            VSyncTime::U32(t) => self.raw(PacketType::VSYNC, &[t]),
            VSyncTime::U64(t) => self.raw(PacketType::VSYNC, &[t as u32, (t >> 32) as u32]),
        }
    }

    /// Records the full-VRAM upload a replayable dump starts with (GP0(A0h) of 1024×512 at
    /// (0,0), the spec/PCSX-Redux form `A0000000, 00000000, 02000400`). `vram` is row-major;
    /// missing halfwords are written as 0.
    pub fn restore_vram(&mut self, vram: &[u16]) {
        self.gp0_words(&[0xA000_0000, 0, 0x0200_0400]);
        let n = gpu::VRAM_WIDTH * gpu::VRAM_HEIGHT;
        let at = |i: usize| u32::from(vram.get(i).copied().unwrap_or(0));
        for i in (0..n).step_by(2) {
            self.gp0(at(i) | at(i + 1) << 16);
        }
    }

    /// Records any packet. Fails only for a string or unknown packet longer than the 24-bit
    /// length field allows.
    pub fn packet(&mut self, packet: &Packet) -> std::result::Result<(), PacketTooLong> {
        let string = |s: &str| -> Vec<u32> {
            // Zero-padded to a whole word, always with at least one NUL.
            let mut b = s.as_bytes().to_vec();
            b.push(0);
            b.resize(b.len().div_ceil(4) * 4, 0);
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let payload = match packet {
            Packet::Gp0(w) => {
                self.gp0_words(w);
                return Ok(());
            }
            Packet::Gp1(w) => {
                w.iter().for_each(|&w| self.gp1(w));
                return Ok(());
            }
            Packet::VSync(t) => {
                self.vsync(*t);
                return Ok(());
            }
            Packet::Discard(n) | Packet::Readback(n) | Packet::GpuVersion(n) => vec![*n],
            Packet::TraceBegin => vec![],
            Packet::GameId(s) | Packet::VideoFormat(s) | Packet::Comment(s) => string(s),
            Packet::Unknown { payload, .. } => payload.clone(),
        };
        if payload.len() > MAX_PACKET_WORDS {
            return Err(PacketTooLong {
                kind: packet.kind(),
                words: payload.len(),
            });
        }
        self.flush();
        self.raw(packet.kind(), &payload);
        Ok(())
    }

    /// Ends any pending packet and returns the file's bytes.
    pub fn finish(mut self) -> Vec<u8> {
        self.flush();
        self.out
    }
}

/// Rendered frames as one GPUDUMP an emulator's dump player plays as an animation: `comment`
/// (left out if too long for a packet), the state restore (GP1 reset, the whole VRAM
/// `initial_vram`, then the display set-up `gp1_setup`) once, trace begin, then for each frame
/// its GP0 words and one VSync. Each frame's words set all the drawing state they use and clear
/// the framebuffer, so frame N replays to the same picture as when it was rendered alone.
pub fn capture(
    comment: &str,
    initial_vram: &[u16],
    gp1_setup: &[u32],
    frames: &[&[u32]],
) -> Vec<u8> {
    let mut w = Writer::new();
    let _ = w.packet(&Packet::Comment(comment.to_string()));
    w.gp1(0);
    w.restore_vram(initial_vram);
    for &g in gp1_setup {
        w.gp1(g);
    }
    // A trace-begin is a fixed empty packet: it cannot be too long.
    let _ = w.packet(&Packet::TraceBegin);
    for gp0 in frames {
        w.gp0_words(gp0);
        w.vsync(VSyncTime::None);
    }
    w.finish()
}

/// One rendered frame as a GPUDUMP: [`capture`] of that frame alone.
pub fn frame_dump(comment: &str, initial_vram: &[u16], gp1_setup: &[u32], gp0: &[u32]) -> Vec<u8> {
    capture(comment, initial_vram, gp1_setup, &[gp0])
}

/// Encodes packets as a 16-byte-magic dump. Consecutive GP0 (GP1) packets are merged, which a
/// replay cannot tell apart.
pub fn encode(packets: &[Packet]) -> std::result::Result<Vec<u8>, PacketTooLong> {
    let mut w = Writer::new();
    for p in packets {
        w.packet(p)?;
    }
    Ok(w.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Packet> {
        vec![
            Packet::GameId("SLUS-00001".into()),
            Packet::Comment("psxrender test".into()),
            Packet::GpuVersion(2),
            Packet::Gp1(vec![0, 0x0100_0000]),
            Packet::Gp0(vec![0x0200_00ff, 0, 0x0010_0010]),
            Packet::TraceBegin,
            Packet::VSync(VSyncTime::U64(0x1_0000_0002)),
            Packet::Unknown {
                kind: PacketType(0x7f),
                payload: vec![1, 2, 3],
            },
            Packet::Discard(4),
            Packet::Readback(5),
            Packet::VideoFormat("NTSC".into()),
            Packet::VSync(VSyncTime::U32(7)),
            Packet::VSync(VSyncTime::None),
        ]
    }

    #[test]
    fn round_trip_gives_the_same_packets() {
        let packets = sample();
        let bytes = encode(&packets).unwrap();
        assert_eq!(&bytes[..16], MAGIC_SPEC);
        assert_eq!(bytes.len() % 4, 0);
        let dump = parse(&bytes).unwrap();
        assert_eq!(dump.magic, Magic::Spec);
        let back: Vec<Packet> = dump.packets().cloned().collect();
        assert_eq!(back, packets);
        assert_eq!(dump.frames(), 3);
        assert!(
            dump.summary()
                .contains("trace begins after 3 state-restore GP0 words and 2 GP1 words"),
            "{}",
            dump.summary()
        );
        assert_eq!(dump.entries[0].offset, 16);
        // Re-encoding the parsed packets reproduces the file byte for byte.
        assert_eq!(encode(&back).unwrap(), bytes);
    }

    #[test]
    fn writer_coalesces_words_and_strings_are_padded() {
        let mut w = Writer::new();
        w.gp0(1);
        w.gp0(2);
        w.gp1(3);
        w.packet(&Packet::Comment("abcd".into())).unwrap();
        let bytes = w.finish();
        let words: Vec<u32> = bytes[16..]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(
            words,
            vec![2, 1, 2, 0x0100_0001, 3, 0x1200_0002, 0x6463_6261, 0],
            "got {words:08x?}"
        );
    }

    #[test]
    fn overlong_strings_are_refused_by_the_writer() {
        let long = "x".repeat(MAX_PACKET_WORDS * 4);
        let e = encode(&[Packet::Comment(long)]).unwrap_err();
        assert_eq!(e.kind, PacketType::COMMENT);
        assert!(e.to_string().contains("0x12"), "{e}");
    }

    #[test]
    fn short_magic_is_accepted() {
        // DuckStation: 14-byte magic, so headers sit at offsets ≡ 2 mod 4.
        let mut data = MAGIC_SHORT.to_vec();
        for w in [0x0000_0003u32, 0xA000_0000, 0, 0, 0x0200_0002, 0, 0] {
            data.extend_from_slice(&w.to_le_bytes());
        }
        let dump = parse(&data).unwrap();
        assert_eq!(dump.magic, Magic::Short);
        assert_eq!(dump.entries[0].offset, 14);
        assert_eq!(dump.entries[1].offset, 30);
        assert_eq!(
            dump.packets().cloned().collect::<Vec<_>>(),
            vec![
                Packet::Gp0(vec![0xA000_0000, 0, 0]),
                Packet::VSync(VSyncTime::U64(0))
            ]
        );
    }

    #[test]
    fn bad_files_give_typed_errors() {
        let e = parse(b"PSXGPU").unwrap_err();
        assert!(matches!(e.kind, ErrorKind::BadMagic { .. }), "{e}");
        let e = parse(b"hello world, not a dump").unwrap_err();
        assert!(matches!(e.kind, ErrorKind::BadMagic { .. }), "{e}");
        let e = parse(b"PSXGPUDUMPv1r2\0\0").unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::UnsupportedVersion { .. }),
            "{e}"
        );
        let e = parse(&[0x28, 0xB5, 0x2F, 0xFD, 0, 0]).unwrap_err();
        assert!(e.to_string().contains("zstd"), "{e}");

        // Payload runs past the end: error at the header's offset.
        let mut data = MAGIC_SPEC.to_vec();
        data.extend_from_slice(&0x00FF_FFFFu32.to_le_bytes());
        data.extend_from_slice(&[0; 8]);
        let e = parse(&data).unwrap_err();
        assert_eq!(e.offset, 16);
        assert!(matches!(e.kind, ErrorKind::OutOfBounds { .. }), "{e}");

        // A partial header at the end.
        let mut data = encode(&[Packet::TraceBegin]).unwrap();
        data.extend_from_slice(&[1, 2]);
        let e = parse(&data).unwrap_err();
        assert_eq!(e.offset, 20);
        assert!(matches!(e.kind, ErrorKind::UnexpectedEof { .. }), "{e}");

        // A discard without its count.
        let mut data = MAGIC_SPEC.to_vec();
        data.extend_from_slice(&0x0300_0000u32.to_le_bytes());
        let e = parse(&data).unwrap_err();
        assert_eq!(e.offset, 16);

        // An absurd string length is refused before it is read.
        let mut data = MAGIC_SPEC.to_vec();
        data.extend_from_slice(&0x1200_2000u32.to_le_bytes());
        data.extend_from_slice(&vec![0x41; 0x2000 * 4]);
        let e = parse(&data).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }), "{e}");
    }

    #[test]
    fn odd_payloads_are_warnings() {
        let mut data = MAGIC_SPEC.to_vec();
        for w in [0x0200_0003u32, 1, 2, 3, 0x0500_0001, 9, 0x0300_0002, 4, 5] {
            data.extend_from_slice(&w.to_le_bytes());
        }
        let dump = parse(&data).unwrap();
        assert_eq!(dump.warnings.len(), 3, "{:?}", dump.warnings);
        assert_eq!(
            dump.packets().cloned().collect::<Vec<_>>(),
            vec![
                Packet::VSync(VSyncTime::U64(0x2_0000_0001)),
                Packet::TraceBegin,
                Packet::Discard(4)
            ]
        );
    }

    #[test]
    fn vram_restore_is_a_full_upload() {
        let mut vram = vec![0u16; 1024 * 512];
        vram[0] = 0x1234;
        vram[1] = 0x8765;
        let mut w = Writer::new();
        w.restore_vram(&vram);
        let dump = parse(&w.finish()).unwrap();
        let Some(Packet::Gp0(words)) = dump.packets().next() else {
            panic!("no GP0 packet");
        };
        assert_eq!(words.len(), 3 + 1024 * 512 / 2);
        assert_eq!(words[..4], [0xA000_0000, 0, 0x0200_0400, 0x8765_1234]);
    }

    #[test]
    fn random_bytes_never_panic() {
        use proptest::prelude::*;
        let mut runner = proptest::test_runner::TestRunner::default();
        runner
            .run(&proptest::collection::vec(any::<u8>(), 0..200), |tail| {
                for magic in [&MAGIC_SPEC[..], &MAGIC_SHORT[..]] {
                    let mut data = magic.to_vec();
                    data.extend_from_slice(&tail);
                    let _ = parse(&data);
                }
                Ok(())
            })
            .unwrap();
    }
}
