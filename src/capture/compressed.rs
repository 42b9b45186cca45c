//! Compressed GPU dumps as DuckStation writes them (`.psxgpu.zst` by default, `.psxgpu.xz` on
//! request), and compressed text streams: recognised by content, decoded as a stream (what it
//! decodes to is told apart by its first bytes, [`peek`]), and written on request.
//!
//! Crates: `ruzstd` (zstd) and `lzma-rust2` (xz), both pure Rust, both with streaming readers,
//! so a replay decodes a dump as it plays and never holds it whole.
//!
//! Limits, so a hostile file costs bounded memory and reports where it went wrong:
//! - every error names the byte of the *compressed* input the decoder had read up to;
//! - the decoded size is capped (the caller's `cap`, by default [`MaxDecoded::Relative`]: a
//!   multiple of the compressed size that real recordings stay far below): a decompression bomb
//!   stops there;
//! - zstd windows above [`MAX_WINDOW`] and xz dictionaries needing more than [`MAX_WINDOW`]
//!   are refused before anything is allocated for them.

use std::cell::Cell;
use std::io::{self, BufRead, Read};
use std::path::Path;
use std::rc::Rc;

use crate::read::{ErrorKind, LoadError};

/// Largest zstd window / xz dictionary accepted: 64 MiB (zstd's level-19 default is 8 MiB,
/// xz's `-9` 64 MiB).
pub const MAX_WINDOW: u64 = 64 << 20;

/// Decoded bytes allowed per compressed byte ([`MaxDecoded::Relative`]). A recording that
/// repeats one scene compresses a few thousand to one, while a run of zero bytes, what a bomb
/// holds, compresses tens of thousands to one (zstd's RLE blocks); the limit sits between, with
/// room above real recordings.
pub const MAX_RATIO: u64 = 8192;

/// Decoded bytes always allowed, whatever the compressed size: a small file never trips the
/// relative limit.
pub const MIN_DECODED: u64 = 64 << 20;

/// How many bytes a compressed input may decode to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MaxDecoded {
    /// [`MAX_RATIO`] times the compressed size, and at least [`MIN_DECODED`].
    #[default]
    Relative,
    /// This many bytes (`--max-decoded`).
    Bytes(u64),
}

impl MaxDecoded {
    /// The limit for an input of `compressed` bytes.
    pub fn for_input(self, compressed: u64) -> u64 {
        match self {
            MaxDecoded::Relative => compressed.saturating_mul(MAX_RATIO).max(MIN_DECODED),
            MaxDecoded::Bytes(n) => n,
        }
    }

    /// What the limit is, for an error message.
    fn what(self) -> &'static str {
        match self {
            MaxDecoded::Relative => {
                "decompressed bytes (8192 times the compressed size; --max-decoded sets another)"
            }
            MaxDecoded::Bytes(_) => "decompressed bytes (--max-decoded)",
        }
    }
}

/// A compression format, by the magic its files start with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// Zstandard: `28 B5 2F FD`.
    Zstd,
    /// xz: `FD 37 7A 58 5A 00`.
    Xz,
}

impl Compression {
    /// The compression `data` starts with, if any. A zstd stream may start with a skippable
    /// frame (magic `0x184D2A50`–`0x184D2A5F`, RFC 8878 §3.1.2), as `pzstd` writes.
    pub fn detect(data: &[u8]) -> Option<Self> {
        let skippable = data
            .get(..4)
            .is_some_and(|m| u32::from_le_bytes([m[0], m[1], m[2], m[3]]) & !0xF == 0x184D_2A50);
        if skippable || data.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
            Some(Compression::Zstd)
        } else if data.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0x00]) {
            Some(Compression::Xz)
        } else {
            None
        }
    }

    /// The compression an output file name asks for: `.zst` or `.xz` at its end.
    pub fn for_output(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()? {
            e if e.eq_ignore_ascii_case("zst") => Some(Compression::Zstd),
            e if e.eq_ignore_ascii_case("xz") => Some(Compression::Xz),
            _ => None,
        }
    }

    /// `zstd` or `xz`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
        }
    }

    /// The format name its errors carry.
    fn format(self) -> &'static str {
        match self {
            Compression::Zstd => "zstd stream",
            Compression::Xz => "xz stream",
        }
    }

    /// A reader of the decoded bytes of `input`, refusing to decode more than `cap` bytes.
    /// Errors while reading come out as `io::Error`s carrying a [`LoadError`] at the offset of
    /// the compressed input (see [`carried`]).
    pub fn decoder<'a, R: BufRead + 'a>(self, input: R, cap: u64) -> Box<dyn Read + 'a> {
        Box::new(Decoder::new(self, input, cap, "decompressed bytes"))
    }

    /// [`Compression::decoder`] of an input of `compressed` bytes, limited as `max` says.
    pub fn limited<'a, R: BufRead + 'a>(
        self,
        input: R,
        compressed: u64,
        max: MaxDecoded,
    ) -> Box<dyn Read + 'a> {
        Box::new(Decoder::new(
            self,
            input,
            max.for_input(compressed),
            max.what(),
        ))
    }

    /// `data` compressed, with a checksum: zstd at `ruzstd`'s one compressing level (about
    /// zstd's level 1) as one frame that states its content size (DuckStation's reader
    /// allocates by it and refuses a frame without one), xz at preset 6 (xz's default).
    pub fn compress(self, data: &[u8]) -> io::Result<Vec<u8>> {
        match self {
            Compression::Zstd => Ok(with_content_size(
                ruzstd::encoding::compress_to_vec(
                    data,
                    ruzstd::encoding::CompressionLevel::Fastest,
                ),
                data.len() as u64,
            )),
            Compression::Xz => {
                let mut out = Vec::new();
                let options = lzma_rust2::XzOptions::with_preset(6);
                let mut w = lzma_rust2::XzWriter::new(&mut out, options)?;
                io::Write::write_all(&mut w, data)?;
                w.finish()?;
                Ok(out)
            }
        }
    }
}

/// The zstd frame `frame` with its header stating `size` as the content size (RFC 8878
/// §3.1.1.1), when its header states none yet and has no dictionary ID (what `ruzstd` writes:
/// magic, descriptor, window descriptor); any other frame is returned as it is. The field is 4
/// bytes (descriptor flag 2) for sizes below 4 GiB, else 8 (flag 3); the single-segment flag
/// stays clear, so the window descriptor stays.
fn with_content_size(mut frame: Vec<u8>, size: u64) -> Vec<u8> {
    const DESCRIPTOR: usize = 4;
    let Some(&descriptor) = frame.get(DESCRIPTOR) else {
        return frame;
    };
    // Bits 7-6 content size flag, 5 single segment, 1-0 dictionary ID flag.
    if descriptor & 0b1110_0011 != 0 {
        return frame;
    }
    let (flag, field) = match u32::try_from(size) {
        Ok(small) => (2u8, small.to_le_bytes().to_vec()),
        Err(_) => (3, size.to_le_bytes().to_vec()),
    };
    frame[DESCRIPTOR] = descriptor | flag << 6;
    // After the magic, the descriptor and the window descriptor.
    let at = DESCRIPTOR + 2;
    frame.splice(at..at, field);
    frame
}

/// Writes a dump's `bytes` to `path` whole or not at all, compressed when the name ends `.zst`
/// or `.xz` (the packets are the same bytes either way).
pub fn write_dump(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match Compression::for_output(path) {
        Some(c) => crate::output::write_atomic(path, &c.compress(bytes)?),
        None => crate::output::write_atomic(path, bytes),
    }
}

/// The first `n` bytes `input` gives (fewer if it ends first), and `input` with them put back
/// in front: a look at what a decoder decodes to without decoding it twice.
pub fn peek<'a>(
    mut input: Box<dyn Read + 'a>,
    n: usize,
) -> io::Result<(Vec<u8>, Box<dyn Read + 'a>)> {
    let mut head = Vec::with_capacity(n);
    (&mut input).take(n as u64).read_to_end(&mut head)?;
    let again = io::Cursor::new(head.clone()).chain(input);
    Ok((head, Box::new(again)))
}

/// The [`LoadError`] a decoder's `io::Error` carries, if it carries one.
pub fn carried(e: &io::Error) -> Option<&LoadError> {
    e.get_ref()?.downcast_ref::<LoadError>()
}

/// A `BufRead` that counts the bytes its user consumed, readable from outside through a shared
/// cell (the decoders own their input).
struct Counted<R> {
    input: R,
    consumed: Rc<Cell<u64>>,
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.input.read(buf)?;
        self.consumed.set(self.consumed.get() + n as u64);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.input.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.consumed.set(self.consumed.get() + amt as u64);
        self.input.consume(amt);
    }
}

/// A zstd stream: one or more frames (RFC 8878 §3), skippable frames passed over, each frame's
/// content checksum checked when it has one (`ruzstd` leaves that to the caller).
struct ZstdFrames<R: BufRead> {
    input: R,
    decoder: ruzstd::decoding::FrameDecoder,
    in_frame: bool,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(input: R) -> Self {
        let mut decoder = ruzstd::decoding::FrameDecoder::new();
        decoder.set_max_window_size(MAX_WINDOW);
        ZstdFrames {
            input,
            decoder,
            in_frame: false,
        }
    }

    /// Checks the finished frame's content checksum.
    fn end_frame(&mut self) -> io::Result<()> {
        self.in_frame = false;
        let d = &self.decoder;
        match (d.get_checksum_from_data(), d.get_calculated_checksum()) {
            (Some(stored), Some(computed)) if stored != computed => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("content checksum {stored:08x}, but the data's is {computed:08x}"),
            )),
            _ => Ok(()),
        }
    }

    /// Starts the next frame; false at the end of the input.
    fn start_frame(&mut self) -> io::Result<bool> {
        use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
        loop {
            if self.input.fill_buf()?.is_empty() {
                return Ok(false);
            }
            match self.decoder.reset(&mut self.input) {
                Ok(()) => {
                    self.in_frame = true;
                    return Ok(true);
                }
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    let want = u64::from(length);
                    let skipped = io::copy(&mut (&mut self.input).take(want), &mut io::sink())?;
                    if skipped < want {
                        return Err(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            "skippable frame cut short",
                        ));
                    }
                }
                Err(e @ FrameDecoderError::WindowSizeTooBig { .. }) => {
                    return Err(io::Error::new(io::ErrorKind::OutOfMemory, e))
                }
                Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e)),
            }
        }
    }
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use ruzstd::decoding::BlockDecodingStrategy;
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.in_frame {
                while self.decoder.can_collect() == 0 && !self.decoder.is_finished() {
                    let decoded = self
                        .decoder
                        .decode_blocks(&mut self.input, BlockDecodingStrategy::UptoBlocks(1));
                    if let Err(e) = decoded {
                        let kind = match self.input.fill_buf().map(<[u8]>::is_empty) {
                            Ok(true) => io::ErrorKind::UnexpectedEof,
                            _ => io::ErrorKind::InvalidData,
                        };
                        return Err(io::Error::new(kind, e));
                    }
                }
                let n = self.decoder.read(buf)?;
                if n > 0 {
                    return Ok(n);
                }
                self.end_frame()?;
            }
            if !self.start_frame()? {
                return Ok(0);
            }
        }
    }
}

enum Inner<R: BufRead> {
    Zstd(Box<ZstdFrames<Counted<R>>>),
    Xz(Box<lzma_rust2::XzReader<Counted<R>>>),
}

/// Decoded bytes of a compressed input, with the limits of the module docs.
struct Decoder<R: BufRead> {
    kind: Compression,
    inner: Inner<R>,
    consumed: Rc<Cell<u64>>,
    produced: u64,
    cap: u64,
    /// What the cap counts, for its error.
    capped: &'static str,
}

impl<R: BufRead> Decoder<R> {
    fn new(kind: Compression, input: R, cap: u64, capped: &'static str) -> Self {
        let consumed = Rc::new(Cell::new(0));
        let counted = Counted {
            input,
            consumed: consumed.clone(),
        };
        let inner = match kind {
            Compression::Zstd => Inner::Zstd(Box::new(ZstdFrames::new(counted))),
            Compression::Xz => Inner::Xz(Box::new(lzma_rust2::XzReader::new_mem_limit(
                counted,
                true,
                (MAX_WINDOW / 1024 + 1024) as u32,
            ))),
        };
        Decoder {
            kind,
            inner,
            consumed,
            produced: 0,
            cap,
            capped,
        }
    }

    fn error(&self, kind: ErrorKind) -> io::Error {
        io::Error::other(LoadError::new(
            self.kind.format(),
            self.consumed.get(),
            kind,
        ))
    }
}

impl<R: BufRead> Read for Decoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Never more than one byte past the cap, so a bomb stops there.
        let room = (self.cap - self.produced.min(self.cap)).saturating_add(1);
        let len = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        let result = match &mut self.inner {
            Inner::Zstd(z) => z.read(&mut buf[..len]),
            Inner::Xz(x) => x.read(&mut buf[..len]),
        };
        let n = match result {
            Ok(n) => n,
            Err(e) => {
                let name = self.kind.name();
                let msg = match e.kind() {
                    io::ErrorKind::UnexpectedEof => format!("truncated {name} data ({e})"),
                    io::ErrorKind::OutOfMemory => format!(
                        "{name} data needs a window above the {} MiB allowed ({e})",
                        MAX_WINDOW >> 20
                    ),
                    _ => format!("corrupt {name} data ({e})"),
                };
                return Err(self.error(ErrorKind::Invalid(msg)));
            }
        };
        self.produced += n as u64;
        if self.produced > self.cap {
            return Err(self.error(ErrorKind::CountTooLarge {
                what: self.capped,
                count: self.produced,
                max: self.cap,
            }));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_names_by_extension() {
        let data: Vec<u8> = (0..50_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for c in [Compression::Zstd, Compression::Xz] {
            let packed = c.compress(&data).unwrap();
            assert_eq!(Compression::detect(&packed), Some(c));
            let mut back = Vec::new();
            c.decoder(&packed[..], u64::MAX)
                .read_to_end(&mut back)
                .unwrap();
            assert!(back == data, "{}", c.name());
        }
        assert_eq!(
            Compression::for_output(Path::new("a.psxgpu.ZST")),
            Some(Compression::Zstd)
        );
        assert_eq!(
            Compression::for_output(Path::new("a.psxgpu.xz")),
            Some(Compression::Xz)
        );
        assert_eq!(Compression::for_output(Path::new("a.psxgpu")), None);
    }

    /// Our zstd frames state their content size (DuckStation's reader needs it), read back by
    /// `ruzstd`'s own header parser; they still decode to the data.
    #[test]
    fn zstd_frames_carry_their_content_size() {
        for len in [0usize, 5, 300_000] {
            let data: Vec<u8> = (0..len).map(|i| (i % 7) as u8).collect();
            let packed = Compression::Zstd.compress(&data).unwrap();
            // Descriptor bits 7-6: a 4-byte content size after the window descriptor.
            assert_eq!(packed[4] >> 6, 2, "{len}");
            assert_eq!(packed[6..10], (len as u32).to_le_bytes());
            let mut header = ruzstd::decoding::FrameDecoder::new();
            header.reset(&packed[..]).unwrap();
            assert_eq!(header.content_size(), len as u64);
            let mut back = Vec::new();
            Compression::Zstd
                .decoder(&packed[..], u64::MAX)
                .read_to_end(&mut back)
                .unwrap();
            assert!(back == data, "{len}");
        }
        let big = with_content_size(vec![0x28, 0xB5, 0x2F, 0xFD, 0x04, 0x38, 9], 5 << 30);
        assert_eq!(big[4], 0xC4);
        assert_eq!(big[6..14], (5u64 << 30).to_le_bytes());
        assert_eq!(big[14], 9);
    }

    /// A zstd frame header asking for a 1 GiB window (descriptor 0xA0: 2^(10+20)) is refused
    /// before anything is allocated for it, at the compressed offset reached.
    #[test]
    fn huge_windows_are_refused() {
        let frame = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0xA0, 0, 0, 0, 0];
        let e = Compression::Zstd
            .decoder(&frame[..], u64::MAX)
            .read(&mut [0; 16])
            .unwrap_err();
        let load = carried(&e).expect("a LoadError");
        assert_eq!(load.format, "zstd stream");
        assert!(load.offset <= frame.len() as u64, "{load}");
        assert!(
            load.to_string().contains("window above the 64 MiB"),
            "{load}"
        );
    }
}
