//! Packets read one at a time from any byte stream, checked for structure as they arrive.

use std::io::{self, Read};

use super::{
    Entry, Magic, Packet, PacketType, VSyncTime, FORMAT, MAGIC_PREFIX, MAGIC_SHORT, MAGIC_SPEC,
    MAX_STRING_WORDS,
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
