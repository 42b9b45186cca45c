//! Compressed GPU dumps as DuckStation writes them (`.psxgpu.zst` by default, `.psxgpu.xz` on
//! request), and compressed text streams: recognised by content, decoded as a stream (what it
//! decodes to is told apart by its first bytes, [`peek`]), and written on request.
//!
//! Crates: `ruzstd` (zstd) and `lzma-rust2` (xz), both pure Rust, both with streaming readers,
//! so a replay decodes a dump as it plays and never holds it whole.
//!
//! Limits, so a hostile file costs bounded memory and reports where it went wrong:
//! - every error names the byte of the *compressed* input the decoder had read up to;
//! - the decoded size is capped (the caller's `cap`): a decompression bomb stops there;
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
    /// The compression `data` starts with, if any.
    pub fn detect(data: &[u8]) -> Option<Self> {
        if data.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
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
        Box::new(Decoder::new(self, input, cap))
    }

    /// `data` compressed, with a checksum: zstd at `ruzstd`'s one compressing level (about
    /// zstd's level 1), xz at preset 6 (xz's default).
    pub fn compress(self, data: &[u8]) -> io::Result<Vec<u8>> {
        match self {
            Compression::Zstd => Ok(ruzstd::encoding::compress_to_vec(
                data,
                ruzstd::encoding::CompressionLevel::Fastest,
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
}

impl<R: BufRead> Decoder<R> {
    fn new(kind: Compression, input: R, cap: u64) -> Self {
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
                what: "decompressed bytes",
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
