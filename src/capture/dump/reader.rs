//! Packets read one at a time from any byte stream, checked for structure as they arrive.
//!
//! Where the spec is silent, the reader does what DuckStation's player does (gpu_dump.cpp, read
//! for facts): an input that ends inside a packet (a recording cut by a crash or a full disk)
//! gives the complete packets before it and a warning naming the byte; a packet of a known type
//! without the word its type needs is skipped with a warning. Neither refuses the dump.

use std::collections::VecDeque;
use std::io::{self, Read};

use super::{
    Entries, Entry, Magic, Packet, PacketRef, PacketType, FORMAT, MAGIC_PREFIX, MAGIC_SHORT,
    MAGIC_SPEC, MAX_EMPTY_RUN, MAX_STRING_WORDS, MAX_WARNINGS,
};
use crate::read::{ErrorKind, LoadError, Result};

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
    /// Warnings met, listed or not.
    warned: u64,
    /// Unlisted warnings already reported by [`Self::take_warnings`].
    unlisted_told: u64,
    /// Room for one chunk of a payload on its way to words.
    chunk: Vec<u8>,
    /// Where the input ends inside a packet, if it does.
    cut_at: Option<u64>,
    /// Packets in a row so far without a payload word.
    empty_run: u64,
    /// Packets read ahead ([`Self::next_entry`]), to be given before any other.
    ahead: VecDeque<Entry>,
    /// Whether VSyncs are frame marks from here on: a trace begin was met, or none came near.
    frames_decided: bool,
}

/// Most payload bytes read ahead for a trace begin after a VSync that precedes every trace
/// begin ([`PacketReader::next_entry`]): a state restore is about 1 MiB (the VRAM).
pub const LOOKAHEAD: usize = 16 << 20;

/// Bytes a packet's words hold (about: strings count their text).
fn payload_bytes(p: &Packet) -> usize {
    match p {
        Packet::Gp0(w) | Packet::Gp1(w) => 4 * w.len(),
        Packet::Unknown { payload, .. } => 4 * payload.len(),
        Packet::GameId(s) | Packet::VideoFormat(s) | Packet::Comment(s) => s.len(),
        _ => 4,
    }
}

/// What became of a packet's payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Payload {
    /// Read whole and kept.
    Kept,
    /// Read whole and skipped with a warning.
    Skipped,
    /// The input ended inside it (a warning says where).
    Cut,
}

/// Bytes of payload read at a time: a whole number of words.
const CHUNK: usize = 16 << 10;

impl<R: Read> PacketReader<R> {
    /// Reads and checks the magic.
    pub fn new(input: R) -> Result<Self> {
        let mut p = PacketReader {
            input,
            off: 0,
            magic: Magic::Spec,
            seen_gpu_packet: false,
            warnings: Vec::new(),
            warned: 0,
            unlisted_told: 0,
            chunk: vec![0; CHUNK],
            cut_at: None,
            empty_run: 0,
            ahead: VecDeque::new(),
            frames_decided: false,
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

    /// The warnings gathered since the last call (odd payload sizes, unknown types); the
    /// first [`MAX_WARNINGS`] of the dump, then once a line saying how many more there were.
    /// Where the recording is cut is always listed.
    pub fn take_warnings(&mut self) -> Vec<String> {
        let mut out = std::mem::take(&mut self.warnings);
        let unlisted = self.warned.saturating_sub(MAX_WARNINGS as u64);
        if unlisted > self.unlisted_told {
            out.push(format!(
                "{} more odd packets not listed (only the first {MAX_WARNINGS} are)",
                unlisted - self.unlisted_told
            ));
            self.unlisted_told = unlisted;
        }
        out
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

    /// Where the recording was cut (the byte it ends at), when it ends inside a packet.
    pub fn cut_at(&self) -> Option<u64> {
        self.cut_at
    }

    /// The next packet and its offset; `None` at the end of the input (or where it was cut).
    /// Frames are numbered as [`super::frames_from`] says: at a VSync before any trace begin,
    /// the packets after it are read ahead (at most [`LOOKAHEAD`] payload bytes) to see whether
    /// a trace begin follows; if one does, the VSyncs before it are dropped with a warning.
    pub fn next_entry(&mut self) -> Result<Option<Entry>> {
        if let Some(e) = self.ahead.pop_front() {
            return Ok(Some(e));
        }
        let Some(e) = self.read_entry()? else {
            return Ok(None);
        };
        match e.packet {
            Packet::TraceBegin => self.frames_decided = true,
            Packet::VSync(_) if !self.frames_decided => {
                self.ahead.push_back(e);
                self.look_for_trace_begin()?;
                return Ok(self.ahead.pop_front());
            }
            _ => {}
        }
        Ok(Some(e))
    }

    /// Reads ahead into `self.ahead` until a trace begin, the end of the input or
    /// [`LOOKAHEAD`] payload bytes; at a trace begin, drops the VSyncs read ahead before it.
    fn look_for_trace_begin(&mut self) -> Result<()> {
        let mut bytes = 0usize;
        while bytes <= LOOKAHEAD {
            let Some(e) = self.read_entry()? else {
                return Ok(());
            };
            if e.packet == Packet::TraceBegin {
                self.frames_decided = true;
                let before = self.ahead.len();
                self.ahead.retain(|e| !matches!(e.packet, Packet::VSync(_)));
                let stray = (before - self.ahead.len()) as u64;
                self.warnings.push(super::stray_warning(stray, e.offset));
                self.ahead.push_back(e);
                return Ok(());
            }
            bytes += payload_bytes(&e.packet);
            self.ahead.push_back(e);
        }
        // No trace begin near: every VSync counts, as in a dump without one.
        self.frames_decided = true;
        Ok(())
    }

    /// The next packet as it is in the file.
    fn read_entry(&mut self) -> Result<Option<Entry>> {
        let mut words = Vec::new();
        loop {
            let Some((offset, kind, len)) = self.header()? else {
                return Ok(None);
            };
            words.clear();
            match self.payload(offset, kind, len, &mut words)? {
                Payload::Kept => {
                    return Ok(Some(Entry {
                        offset,
                        packet: PacketRef::new(kind, &words).to_packet(),
                    }))
                }
                Payload::Skipped => {}
                Payload::Cut => return Ok(None),
            }
        }
    }

    /// Reads the next packet into `entries` (a packet skipped with a warning adds nothing);
    /// false at the end of the input (or where it was cut).
    pub(super) fn read_into(&mut self, entries: &mut Entries) -> Result<bool> {
        let Some((offset, kind, len)) = self.header()? else {
            return Ok(false);
        };
        let mark = entries.mark();
        entries.push_header(kind, len);
        let read = self.payload(offset, kind, len, entries.payload());
        if !matches!(read, Ok(Payload::Kept)) {
            entries.rollback(mark);
        }
        Ok(read? != Payload::Cut)
    }

    /// The next packet header's offset, type and payload length in words; `None` at the end of
    /// the input or where it was cut. A string longer than [`MAX_STRING_WORDS`] is skipped with
    /// a warning here, its payload read past without being kept.
    fn header(&mut self) -> Result<Option<(u64, PacketType, usize)>> {
        loop {
            let off = self.off;
            let mut header = [0u8; 4];
            match self.fill(&mut header)? {
                0 => return Ok(None),
                4 => {}
                n => {
                    self.cut(off, None, 4, n as u64);
                    return Ok(None);
                }
            }
            let header = u32::from_le_bytes(header);
            let kind = PacketType((header >> 24) as u8);
            let len = header & 0xFF_FFFF;
            self.empty_run = if len == 0 { self.empty_run + 1 } else { 0 };
            if self.empty_run > MAX_EMPTY_RUN {
                return Err(self.error(
                    off,
                    ErrorKind::CountTooLarge {
                        what: "packets in a row without a payload word",
                        count: self.empty_run,
                        max: MAX_EMPTY_RUN,
                    },
                ));
            }
            let string = matches!(
                kind,
                PacketType::GAME_ID | PacketType::VIDEO_FORMAT | PacketType::COMMENT
            );
            if !string || u64::from(len) <= MAX_STRING_WORDS {
                return Ok(Some((off, kind, len as usize)));
            }
            self.warn(
                off,
                kind,
                format!("a string of {len} words (at most {MAX_STRING_WORDS} read): skipped"),
            );
            let bytes = u64::from(len) * 4;
            let got = self.skip(bytes)?;
            if got < bytes {
                self.cut(off, Some(kind), 4 + bytes, 4 + got);
                return Ok(None);
            }
        }
    }

    /// Reads past `bytes` bytes of input without keeping them; the bytes there were.
    fn skip(&mut self, bytes: u64) -> Result<u64> {
        let mut chunk = std::mem::take(&mut self.chunk);
        let mut done = 0;
        let result = loop {
            let want = (bytes - done).min(chunk.len() as u64) as usize;
            if want == 0 {
                break Ok(done);
            }
            match self.fill(&mut chunk[..want]) {
                Ok(got) => {
                    done += got as u64;
                    if got < want {
                        break Ok(done);
                    }
                }
                Err(e) => break Err(e),
            }
        };
        self.chunk = chunk;
        result
    }

    /// Notes that the input ends inside the packet at `off` (`kind` unknown when its header
    /// is cut), which needs `need` bytes and has `have`: a warning that is always listed, as
    /// DuckStation's player plays the complete packets before such a cut.
    fn cut(&mut self, off: u64, kind: Option<PacketType>, need: u64, have: u64) {
        let end = off + have;
        self.cut_at = Some(end);
        let what = match kind {
            Some(k) => format!("the packet at byte 0x{off:x} (type 0x{:02x})", k.0),
            None => format!("the packet header at byte 0x{off:x}"),
        };
        self.warnings.push(format!(
            "the recording is cut at byte 0x{end:x}: {what} needs {need} bytes, {have} are \
             there; the packets before it are played"
        ));
    }

    /// Appends the `len` payload words of the packet whose header is at `off` to `words`, and
    /// checks them ([`Self::check`]). They are read a chunk at a time, so a length the input
    /// cannot back costs only the bytes that arrive.
    fn payload(
        &mut self,
        off: u64,
        kind: PacketType,
        len: usize,
        words: &mut Vec<u32>,
    ) -> Result<Payload> {
        let start = words.len();
        let mut chunk = std::mem::take(&mut self.chunk);
        let read = self.read_words(len, &mut chunk, words);
        self.chunk = chunk;
        if !read? {
            let have = self.off - off;
            self.cut(off, Some(kind), 4 + 4 * len as u64, have);
            return Ok(Payload::Cut);
        }
        if !self.check(off, kind, &words[start..]) {
            return Ok(Payload::Skipped);
        }
        if kind.0 <= PacketType::TRACE_BEGIN.0 {
            self.seen_gpu_packet = true;
        }
        Ok(Payload::Kept)
    }

    /// Appends `len` words read through `chunk` to `words`; false when the input ends first.
    fn read_words(&mut self, len: usize, chunk: &mut [u8], words: &mut Vec<u32>) -> Result<bool> {
        let mut left = len * 4;
        while left > 0 {
            // `left` and the chunk are whole words, so a short read means the input ended.
            let want = left.min(chunk.len());
            let got = self.fill(&mut chunk[..want])?;
            words.extend(
                chunk[..got]
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            );
            if got < want {
                return Ok(false);
            }
            left -= want;
        }
        Ok(true)
    }

    /// Warns of odd payload sizes and unknown types (what [`PacketRef::new`] makes of them is
    /// in its docs); false for a packet to skip: one that lacks the word its type needs.
    fn check(&mut self, off: u64, kind: PacketType, payload: &[u32]) -> bool {
        let len = payload.len();
        let seen_gpu_packet = self.seen_gpu_packet;
        let mut warn = |msg: String| self.warn(off, kind, msg);
        let needs_word = matches!(
            kind,
            PacketType::DISCARD | PacketType::READBACK | PacketType::GPU_VERSION
        );
        if needs_word && len == 0 {
            // DuckStation's player passes over such a packet too.
            warn("no payload word, where its type needs one: skipped".into());
            return false;
        }
        if needs_word && len > 1 {
            warn(format!("{len} payload words, expected 1; using the first"));
        }
        match kind {
            PacketType::GP0 | PacketType::GP1 => {}
            PacketType::GAME_ID | PacketType::VIDEO_FORMAT | PacketType::COMMENT => {}
            PacketType::DISCARD | PacketType::READBACK => {}
            PacketType::VSYNC => {
                if len > 2 {
                    warn(format!(
                        "VSync with {len} payload words; using the first two"
                    ));
                }
            }
            PacketType::TRACE_BEGIN => {
                if len != 0 {
                    warn(format!("trace begin with {len} payload words, expected 0"));
                }
            }
            PacketType::GPU_VERSION => {
                if seen_gpu_packet {
                    warn("GPU version after GPU packets (the spec allows it only before)".into());
                }
                if payload[0] == 3 {
                    warn("GPU version 3 (2 MiB VRAM): only the first 1 MiB is emulated".into());
                }
            }
            _ => warn(format!("unknown packet type, {len} words skipped")),
        }
        true
    }

    /// Records a warning about the packet at `off`; past [`MAX_WARNINGS`], only counts it.
    fn warn(&mut self, off: u64, kind: PacketType, msg: String) {
        self.warned += 1;
        if self.warned <= MAX_WARNINGS as u64 {
            self.warnings.push(format!(
                "packet at byte 0x{off:x} (type 0x{:02x}): {msg}",
                kind.0
            ));
        }
    }
}
