//! Every frame of a capture in one pass: the input is read packet by packet (a compressed dump
//! is decoded as it plays), and at each frame mark in the range asked for the caller gets the
//! GPU to take its picture, so memory stays at one packet and one frame whatever the capture's
//! length.
//!
//! Numbering: frame N is what the TV shows at the (N+1)-th frame mark (a dump's VSync, a
//! stream's `frame` line), the mark that ends the N-th frame's drawing; `replay --frame N+1`
//! stops at the same place. A renderer's `--frames A..B --dump-gp0` capture therefore replays
//! frame N to its own frame N.

use std::fs::File;
use std::io::{BufReader, Read};
use std::ops::Range;
use std::path::{Path, PathBuf};

use gpu::Gpu;

use crate::capture::compressed::{self, Compression, MaxDecoded};
use crate::capture::dump::{self, Packet, PacketReader, PacketRef, Summary};
use crate::capture::input::{Cursor, Input};
use crate::capture::replay;
use crate::read::LoadError;

/// Packets of an input, one at a time.
pub enum Packets {
    /// A dump, read from its file (or decoder) as it plays, summed up as it goes.
    Dump(PacketReader<Box<dyn Read>>, Summary),
    /// A text stream (read whole, size capped: streams are hand-made), its packets from
    /// `next`.
    Stream {
        /// The stream.
        input: Input,
        /// Where the next packet is.
        next: Cursor,
    },
}

impl Packets {
    /// The next packet; consecutive GP0 lines of a stream come as one packet.
    pub fn next_packet(&mut self) -> Result<Option<Packet>, LoadError> {
        match self {
            Packets::Dump(r, sum) => {
                let packet = r.next_entry()?.map(|e| e.packet);
                if let Some(p) = &packet {
                    sum.add(&PacketRef::from(p));
                }
                Ok(packet)
            }
            Packets::Stream { input, next } => Ok(input.packet_at(*next).map(|((_, p), after)| {
                *next = after;
                p.to_packet()
            })),
        }
    }

    /// Warnings met so far (odd dump packets); each is handed out once.
    pub fn take_warnings(&mut self) -> Vec<String> {
        match self {
            Packets::Dump(r, _) => r.take_warnings(),
            Packets::Stream { .. } => Vec::new(),
        }
    }
}

/// An input opened for playing.
pub struct Opened {
    /// Its packets.
    pub packets: Packets,
    /// The compression of the file, if any.
    pub compression: Option<Compression>,
}

/// Opens `path`: a GPU dump (plain, zstd or xz, by content) is read as it plays, a compressed
/// one decoding to at most what `max` allows for its size; a text stream (also plain or
/// compressed: told apart from a dump by what it decodes to) is read whole, size capped. Errors
/// name the file.
pub fn open(path: &Path, max: MaxDecoded) -> Result<Opened, LoadError> {
    let in_file = |e: LoadError| e.in_file(path);
    let io = |e: std::io::Error| match compressed::carried(&e) {
        Some(carried) => carried.clone().in_file(path),
        None => LoadError::io("GPU stream", path, &e),
    };
    let file = File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    let mut file = BufReader::new(file);
    let head = std::io::BufRead::fill_buf(&mut file).map_err(io)?;
    let compression = Compression::detect(head);
    let reader: Box<dyn Read> = match compression {
        Some(c) => c.limited(file, size, max),
        None => Box::new(file),
    };
    let (head, reader) = compressed::peek(reader, dump::MAGIC_PREFIX.len()).map_err(io)?;
    if !dump::has_magic(&head) {
        let input = Input::load(path)?;
        if let Input::Dump(_) = input {
            // The head said "not a dump", and load sniffs the same bytes.
            return Err(in_file(LoadError::invalid(
                "GPU stream",
                0,
                "changed while being read",
            )));
        }
        return Ok(Opened {
            packets: Packets::Stream {
                input,
                next: Cursor::default(),
            },
            compression,
        });
    }
    let packets = Packets::Dump(
        PacketReader::new(reader).map_err(in_file)?,
        Summary::default(),
    );
    Ok(Opened {
        packets,
        compression,
    })
}

impl Opened {
    /// What `replay` says of the input: a dump's [`Summary`] of the packets read so far, or a
    /// text stream's summary.
    pub fn summary(&self) -> String {
        match &self.packets {
            Packets::Dump(r, sum) => sum.text(r.magic(), self.compression),
            Packets::Stream { input, .. } => input.summary(),
        }
    }
}

/// Plays the whole of `packets` on `gpu`, drawing up to frame mark `frame` (`None`: all of it)
/// and reading the rest without drawing, so [`Opened::summary`] counts the whole input; the
/// frame marks drawn, or why the frame asked for is not there.
pub fn run_to(
    packets: &mut Packets,
    gpu: &mut Gpu,
    frame: Option<u64>,
) -> Result<Result<u64, replay::ReplayError>, LoadError> {
    let mut marks = 0u64;
    let mut drawing = frame != Some(0);
    while let Some(packet) = packets.next_packet()? {
        if !drawing {
            marks += u64::from(matches!(packet, Packet::VSync(_)));
        } else if replay::apply(gpu, &packet) {
            marks += 1;
            drawing = frame != Some(marks);
        }
    }
    Ok(match frame {
        Some(requested) if requested > marks => Err(replay::ReplayError::FrameOutOfRange {
            requested,
            available: marks,
        }),
        Some(requested) => Ok(requested),
        None => Ok(marks),
    })
}

/// Why playing stopped early.
#[derive(Debug)]
pub enum PlayError<E> {
    /// The input is bad (the error names where).
    Input(LoadError),
    /// The input ended before frame `range.end - 1`.
    TooShort {
        /// The frames asked for.
        range: Range<u64>,
        /// The frame marks the input has.
        marks: u64,
    },
    /// The caller's picture-taking failed.
    Output(E),
}

impl<E: std::fmt::Display> std::fmt::Display for PlayError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayError::Input(e) => write!(f, "{e}"),
            PlayError::TooShort { range, marks } => write!(
                f,
                "frames {}..{} asked for, but the input has {marks} frame marks (frames 0..{marks})",
                range.start, range.end
            ),
            PlayError::Output(e) => write!(f, "{e}"),
        }
    }
}

/// Plays `packets` on `gpu` from the start and calls `shot(n, gpu)` at the frame mark that ends
/// each frame `n` in `range`; stops after the last one (the rest of the input is not read).
/// `progress(marks)` is told each frame mark passed.
pub fn play<E>(
    packets: &mut Packets,
    gpu: &mut Gpu,
    range: Range<u64>,
    mut shot: impl FnMut(u64, &mut Gpu) -> Result<(), E>,
    mut progress: impl FnMut(u64),
) -> Result<(), PlayError<E>> {
    let mut marks = 0u64;
    while marks < range.end {
        let Some(packet) = packets.next_packet().map_err(PlayError::Input)? else {
            return Err(PlayError::TooShort { range, marks });
        };
        if replay::apply(gpu, &packet) {
            if range.contains(&marks) {
                shot(marks, gpu).map_err(PlayError::Output)?;
            }
            marks += 1;
            progress(marks);
        }
    }
    Ok(())
}

/// `DIR/frame_0012.png`: where frame `n` of a sequence goes (at least 4 digits, so names sort).
pub fn numbered(dir: &Path, n: u64, ext: &str) -> PathBuf {
    dir.join(format!("frame_{n:04}.{ext}"))
}
