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
//! replay; odd payload sizes of known types become warnings (the first [`MAX_WARNINGS`]). Packets
//! are read one at a time from any byte stream ([`PacketReader`]: a file, a slice, a zstd/xz
//! decoder); a payload's buffer grows with the bytes that arrive, so a length the input cannot
//! back allocates nothing. A whole parsed dump is held as its file's words ([`Entries`]), so it
//! costs its own size in memory, and read back as [`PacketRef`] views.
//!
//! How sure we are: the layout follows the spec text; the 14-byte variant and DuckStation's
//! VRAM-restore quirks come from `gpu-dump-notes.md`. No hardware-captured dump exists to test
//! against, so the tests are round trips and hand-built files.

mod entries;
mod reader;
mod writer;

use std::io::Read;

use crate::capture::compressed::Compression;
use crate::read::Result;

pub use entries::{Entries, EntryRef, Iter};
pub use reader::{PacketReader, LOOKAHEAD};
pub use writer::{
    capture, encode, encode_as, frame_dump, pal_mode, Form, PacketTooLong, Writer,
    DUCKSTATION_GPU_VERSION, NO_GAME_ID,
};

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
/// Most packets in a row without a payload word (a header alone: an empty GP0/GP1 packet, a
/// VSync without a time): 4 Mi of them are 16 MiB of input that does nothing, 19 hours of
/// VSyncs with nothing drawn between them; a bomb of zero bytes decodes to nothing else, so it
/// is refused after these few bytes, not after gigabytes.
pub const MAX_EMPTY_RUN: u64 = 1 << 22;
/// Warnings kept per dump: each odd packet can be as small as its 4-byte header while its
/// warning is a line of text, so past this many they are counted in one closing line.
pub const MAX_WARNINGS: usize = 100;

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

/// A packet as a held dump ([`Entries`]) gives it: the words borrowed from the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PacketRef<'a> {
    /// GP0 words.
    Gp0(&'a [u32]),
    /// GP1 words.
    Gp1(&'a [u32]),
    /// A VSync: one frame ends.
    VSync(VSyncTime),
    /// Discard this many GPUREAD words.
    Discard(u32),
    /// Read back this many GPUREAD words.
    Readback(u32),
    /// Trace begin.
    TraceBegin,
    /// GPU version word.
    GpuVersion(u32),
    /// Game ID.
    GameId(String),
    /// Video format.
    VideoFormat(String),
    /// Comment.
    Comment(String),
    /// A type this reader does not know, with its payload.
    Unknown {
        /// The type byte.
        kind: PacketType,
        /// The payload words.
        payload: &'a [u32],
    },
}

impl<'a> PacketRef<'a> {
    /// What a packet of type `kind` with these payload words holds: a VSync's time is its first
    /// two words, a count or version its first word, a string its bytes up to the first NUL
    /// (invalid UTF-8 replaced). The reader refuses a packet that lacks a word it needs and warns
    /// of extra words ([`PacketReader`]); a missing word reads as 0 here.
    pub fn new(kind: PacketType, payload: &'a [u32]) -> Self {
        let first = payload.first().copied().unwrap_or(0);
        let string = || {
            let bytes: Vec<u8> = payload.iter().flat_map(|w| w.to_le_bytes()).collect();
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            String::from_utf8_lossy(&bytes[..end]).into_owned()
        };
        match kind {
            PacketType::GP0 => PacketRef::Gp0(payload),
            PacketType::GP1 => PacketRef::Gp1(payload),
            PacketType::VSYNC => PacketRef::VSync(match payload {
                [] => VSyncTime::None,
                [t] => VSyncTime::U32(*t),
                [lo, hi, ..] => VSyncTime::U64(u64::from(*lo) | u64::from(*hi) << 32),
            }),
            PacketType::DISCARD => PacketRef::Discard(first),
            PacketType::READBACK => PacketRef::Readback(first),
            PacketType::TRACE_BEGIN => PacketRef::TraceBegin,
            PacketType::GPU_VERSION => PacketRef::GpuVersion(first),
            PacketType::GAME_ID => PacketRef::GameId(string()),
            PacketType::VIDEO_FORMAT => PacketRef::VideoFormat(string()),
            PacketType::COMMENT => PacketRef::Comment(string()),
            _ => PacketRef::Unknown { kind, payload },
        }
    }

    /// The packet with its words copied out.
    pub fn to_packet(&self) -> Packet {
        match self {
            PacketRef::Gp0(w) => Packet::Gp0(w.to_vec()),
            PacketRef::Gp1(w) => Packet::Gp1(w.to_vec()),
            PacketRef::VSync(t) => Packet::VSync(*t),
            PacketRef::Discard(n) => Packet::Discard(*n),
            PacketRef::Readback(n) => Packet::Readback(*n),
            PacketRef::TraceBegin => Packet::TraceBegin,
            PacketRef::GpuVersion(v) => Packet::GpuVersion(*v),
            PacketRef::GameId(s) => Packet::GameId(s.clone()),
            PacketRef::VideoFormat(s) => Packet::VideoFormat(s.clone()),
            PacketRef::Comment(s) => Packet::Comment(s.clone()),
            PacketRef::Unknown { kind, payload } => Packet::Unknown {
                kind: *kind,
                payload: payload.to_vec(),
            },
        }
    }
}

impl<'a> From<&'a Packet> for PacketRef<'a> {
    fn from(p: &'a Packet) -> Self {
        match p {
            Packet::Gp0(w) => PacketRef::Gp0(w),
            Packet::Gp1(w) => PacketRef::Gp1(w),
            Packet::VSync(t) => PacketRef::VSync(*t),
            Packet::Discard(n) => PacketRef::Discard(*n),
            Packet::Readback(n) => PacketRef::Readback(*n),
            Packet::TraceBegin => PacketRef::TraceBegin,
            Packet::GpuVersion(v) => PacketRef::GpuVersion(*v),
            Packet::GameId(s) => PacketRef::GameId(s.clone()),
            Packet::VideoFormat(s) => PacketRef::VideoFormat(s.clone()),
            Packet::Comment(s) => PacketRef::Comment(s.clone()),
            Packet::Unknown { kind, payload } => PacketRef::Unknown {
                kind: *kind,
                payload,
            },
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
    pub entries: Entries,
    /// Things that were odd but readable (odd payload sizes, unknown types).
    pub warnings: Vec<String>,
    /// The compression of the file it was read from, if any.
    pub compression: Option<Compression>,
    /// VSyncs before this byte offset (the trace begin's) are not frame marks; 0 when every
    /// VSync is one ([`frames_from`]).
    pub frames_from: u64,
}

impl Dump {
    /// The packets without their offsets, VSyncs that are not frame marks left out.
    pub fn packets(&self) -> impl Iterator<Item = PacketRef<'_>> {
        self.entries
            .iter()
            .filter(|e| self.counts(e))
            .map(|e| e.packet)
    }

    /// False for a VSync before [`Dump::frames_from`], which is left out of the packets.
    pub fn counts(&self, e: &EntryRef<'_>) -> bool {
        e.offset >= self.frames_from || !matches!(e.packet, PacketRef::VSync(_))
    }

    /// Number of VSync packets (frames).
    pub fn frames(&self) -> u64 {
        self.packets()
            .filter(|p| matches!(p, PacketRef::VSync(_)))
            .count() as u64
    }

    /// The dump in the spec's 16-byte form: the magic, then its packets as they are (a
    /// 14-byte-magic dump changes only its magic).
    pub fn to_spec_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC_SPEC.to_vec();
        self.entries.write_to(&mut out);
        out
    }

    /// A one-paragraph summary: magic, packets, words, frames, IDs and comments.
    pub fn summary(&self) -> String {
        let mut sum = Summary::default();
        self.packets().for_each(|p| sum.add(&p));
        sum.text(self.magic, self.compression)
    }
}

/// What a dump's summary line says, counted packet by packet (so a streamed dump is summed up
/// as it plays): packets, words per port, frames, and its information packets as lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    packets: u64,
    gp0: u64,
    gp1: u64,
    frames: u64,
    lines: Vec<String>,
}

impl Summary {
    /// Counts one packet.
    pub fn add(&mut self, p: &PacketRef<'_>) {
        self.packets += 1;
        match p {
            PacketRef::Gp0(w) => self.gp0 += w.len() as u64,
            PacketRef::Gp1(w) => self.gp1 += w.len() as u64,
            PacketRef::VSync(_) => self.frames += 1,
            PacketRef::GameId(s) => self.lines.push(format!("game ID: {s}")),
            PacketRef::VideoFormat(s) => self.lines.push(format!("video format: {s}")),
            PacketRef::Comment(s) => self.lines.push(format!("comment: {s}")),
            PacketRef::GpuVersion(v) => self.lines.push(format!("GPU version word: {v}")),
            PacketRef::TraceBegin => self.lines.push(format!(
                "trace begins after {} state-restore GP0 words and {} GP1 words",
                self.gp0, self.gp1
            )),
            _ => {}
        }
    }

    /// Packets counted.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// The information packets as lines (game ID, video format, comment, GPU version, where
    /// the trace begins), in file order.
    pub fn notes(&self) -> &[String] {
        &self.lines
    }

    /// The summary of a dump with `magic`, read from a file of `compression`.
    pub fn text(&self, magic: Magic, compression: Option<Compression>) -> String {
        let magic = match magic {
            Magic::Spec => "16-byte spec magic",
            Magic::Short => "14-byte DuckStation magic",
        };
        let packed = match compression {
            Some(c) => format!(", {}-compressed", c.name()),
            None => String::new(),
        };
        let mut s = format!(
            "GPUDUMP ({magic}{packed}): {} packets, {} GP0 words, {} GP1 words, {} frames",
            self.packets, self.gp0, self.gp1, self.frames
        );
        for l in &self.lines {
            s.push_str("\n  ");
            s.push_str(l);
        }
        s
    }
}

/// Frames are numbered from the trace begin, as DuckStation numbers them: in a dump whose
/// first trace begin has VSyncs before it, those VSyncs are not frame marks (DuckStation's
/// player refuses such a dump; a VSync in the state restore would otherwise shift every frame
/// number by one). A dump without a trace begin counts every VSync. Returns the offset VSyncs
/// count from (0: all count) and the warning to give, if any.
pub fn frames_from<'a>(
    packets: impl Iterator<Item = (u64, PacketRef<'a>)>,
) -> (u64, Option<String>) {
    let mut stray = 0u64;
    for (offset, p) in packets {
        match p {
            PacketRef::VSync(_) => stray += 1,
            PacketRef::TraceBegin if stray > 0 => {
                return (offset, Some(stray_warning(stray, offset)))
            }
            PacketRef::TraceBegin => return (0, None),
            _ => {}
        }
    }
    (0, None)
}

/// The warning for `n` VSyncs before the trace begin at `offset`.
fn stray_warning(n: u64, offset: u64) -> String {
    format!(
        "{n} VSync{} before the trace begin at byte 0x{offset:x}: not frame marks (frames are \
         numbered from the trace begin, as DuckStation's player, which refuses such a dump, \
         would number them)",
        if n == 1 { "" } else { "s" }
    )
}

/// True when `data` starts with a dump's magic (its first 10 bytes, `PSXGPUDUMP`, so a dump of
/// an unknown version is recognised and refused by name).
pub fn has_magic(data: &[u8]) -> bool {
    data.starts_with(&MAGIC_PREFIX[..10])
}

/// True when `data` looks like recorded GPU input of the binary kind: a dump's magic, or a
/// zstd/xz stream, which [`crate::capture::input::Input`] reads as a dump or a text stream by
/// what it decodes to.
pub fn looks_like_dump(data: &[u8]) -> bool {
    has_magic(data) || Compression::detect(data).is_some()
}

/// Parses a whole dump held in memory, plain or compressed (detected by content).
pub fn parse(data: &[u8]) -> Result<Dump> {
    let compression = Compression::detect(data);
    let mut dump = match compression {
        // Decoded as a stream, capped like a plain file's size.
        Some(c) => collect(PacketReader::new(
            c.decoder(data, crate::read::MAX_FILE_SIZE),
        )?)?,
        // A plain dump's words are known: room for all of them at once.
        None => collect_into(PacketReader::new(data)?, data.len() / 4)?,
    };
    dump.compression = compression;
    Ok(dump)
}

/// Reads every packet of `reader` into a [`Dump`].
pub fn collect<R: Read>(reader: PacketReader<R>) -> Result<Dump> {
    collect_into(reader, 0)
}

/// [`collect`] into a store with room for `words` words.
fn collect_into<R: Read>(mut reader: PacketReader<R>, words: usize) -> Result<Dump> {
    let mut entries = Entries::with_capacity(reader.magic().len() as u64, words);
    while reader.read_into(&mut entries)? {}
    let mut warnings = reader.take_warnings();
    let (frames_from, stray) = frames_from(entries.iter().map(|e| (e.offset, e.packet)));
    warnings.extend(stray);
    Ok(Dump {
        magic: reader.magic(),
        entries,
        warnings,
        compression: None,
        frames_from,
    })
}

#[cfg(test)]
mod tests;
