//! Packets read one at a time from any byte stream, checked for structure as they arrive.

use std::io::{self, Read};

use super::{
    Entries, Entry, Magic, PacketRef, PacketType, FORMAT, MAGIC_PREFIX, MAGIC_SHORT, MAGIC_SPEC,
    MAX_STRING_WORDS, MAX_WARNINGS,
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

    /// The next packet and its offset; `None` at the end of the input.
    pub fn next_entry(&mut self) -> Result<Option<Entry>> {
        let Some((offset, kind, len)) = self.header()? else {
            return Ok(None);
        };
        let mut words = Vec::new();
        self.payload(offset, kind, len, &mut words)?;
        Ok(Some(Entry {
            offset,
            packet: PacketRef::new(kind, &words).to_packet(),
        }))
    }

    /// Reads the next packet into `entries`; false at the end of the input. After an error
    /// `entries` ends with a partial packet and is to be dropped.
    pub(super) fn read_into(&mut self, entries: &mut Entries) -> Result<bool> {
        let Some((offset, kind, len)) = self.header()? else {
            return Ok(false);
        };
        entries.push_header(kind, len);
        self.payload(offset, kind, len, entries.payload())?;
        Ok(true)
    }

    /// The next packet header's offset, type and payload length in words; `None` at the end of
    /// the input. A string longer than [`MAX_STRING_WORDS`] is refused here, before its payload
    /// is read.
    fn header(&mut self) -> Result<Option<(u64, PacketType, usize)>> {
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
        let len = header & 0xFF_FFFF;
        if matches!(
            kind,
            PacketType::GAME_ID | PacketType::VIDEO_FORMAT | PacketType::COMMENT
        ) && u64::from(len) > MAX_STRING_WORDS
        {
            return Err(self.error(
                off,
                ErrorKind::CountTooLarge {
                    what: "string payload words",
                    count: len.into(),
                    max: MAX_STRING_WORDS,
                },
            ));
        }
        Ok(Some((off, kind, len as usize)))
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
    ) -> Result<()> {
        let start = words.len();
        let mut chunk = std::mem::take(&mut self.chunk);
        let read = self.read_words(len, &mut chunk, words);
        self.chunk = chunk;
        if !read? {
            return Err(self.error(
                off,
                ErrorKind::OutOfBounds {
                    what: "packet payload",
                    target: off + 4,
                    len: len as u64 * 4,
                },
            ));
        }
        self.check(off, kind, &words[start..])?;
        if kind.0 <= PacketType::TRACE_BEGIN.0 {
            self.seen_gpu_packet = true;
        }
        Ok(())
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

    /// Refuses a packet that lacks a word its type needs, and warns of odd payload sizes and
    /// unknown types (what [`PacketRef::new`] makes of them is in its docs).
    fn check(&mut self, off: u64, kind: PacketType, payload: &[u32]) -> Result<()> {
        let len = payload.len();
        let seen_gpu_packet = self.seen_gpu_packet;
        let mut warn = |msg: String| self.warn(off, kind, msg);
        let one_word = |warn: &mut dyn FnMut(String)| -> Result<u32> {
            if len > 1 {
                warn(format!("{len} payload words, expected 1; using the first"));
            }
            payload.first().copied().ok_or_else(|| {
                LoadError::invalid(
                    FORMAT,
                    off,
                    format!("packet type 0x{:02x} needs a word", kind.0),
                )
            })
        };
        match kind {
            PacketType::GP0 | PacketType::GP1 => {}
            PacketType::GAME_ID | PacketType::VIDEO_FORMAT | PacketType::COMMENT => {}
            PacketType::VSYNC => {
                if len > 2 {
                    warn(format!(
                        "VSync with {len} payload words; using the first two"
                    ));
                }
            }
            PacketType::DISCARD | PacketType::READBACK => {
                one_word(&mut warn)?;
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
                if one_word(&mut warn)? == 3 {
                    warn("GPU version 3 (2 MiB VRAM): only the first 1 MiB is emulated".into());
                }
            }
            _ => warn(format!("unknown packet type, {len} words skipped")),
        }
        Ok(())
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
