//! Recorded GPU input as `info` reports it: what the words do ([`Census`]) and, for a dump,
//! its header and information packets.

use serde::Serialize;

use std::path::Path;

use crate::capture::census::{Census, Tally};
use crate::capture::compressed::MaxDecoded;
use crate::capture::dump::{self, Magic, PacketRef, Summary};
use crate::capture::input::{Input, STREAM_FORMAT};
use crate::capture::sequence::{self, Packets};
use crate::read::LoadError;

/// A GPU dump's or text stream's facts.
#[derive(Clone, Debug, Serialize)]
pub struct GpuFacts {
    /// "GPUDUMP" or "GPU text stream".
    pub format: &'static str,
    /// GPUDUMP: which magic.
    pub magic: Option<&'static str>,
    /// The file's compression (`zstd`, `xz`), if any.
    pub compression: Option<&'static str>,
    /// GPUDUMP: packets.
    pub packets: Option<usize>,
    /// GPUDUMP: comment, game ID, video format and GPU version packets, as text.
    pub notes: Vec<String>,
    /// What the words do.
    pub census: Census,
    /// Odd but readable packets.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

impl GpuFacts {
    /// The facts of `input`: its census, and for a dump its magic, compression, packets and
    /// notes.
    pub fn of(input: Input) -> GpuFacts {
        let census = Census::of(&input);
        match &input {
            Input::Stream { .. } | Input::Text(_) => GpuFacts {
                format: STREAM_FORMAT,
                magic: None,
                compression: input.compression().map(|c| c.name()),
                packets: None,
                notes: Vec::new(),
                census,
                warnings: Vec::new(),
            },
            Input::Dump(d) => {
                let mut sum = Summary::default();
                d.packets().for_each(|p| sum.add(&p));
                GpuFacts {
                    format: dump::FORMAT,
                    magic: Some(magic_name(d.magic)),
                    compression: d.compression.map(|c| c.name()),
                    packets: Some(d.entries.len()),
                    notes: sum.notes().to_vec(),
                    census,
                    warnings: d.warnings.clone(),
                }
            }
        }
    }

    /// The facts of the recorded input in `path`, a dump read as a stream (so a recording of
    /// any length is described in the memory of one packet; a compressed one decoding to at
    /// most what `max` allows), a text stream whole.
    pub fn load(path: &Path, max: MaxDecoded) -> Result<GpuFacts, LoadError> {
        let opened = sequence::open(path, max)?;
        let compression = opened.compression.map(|c| c.name());
        let (magic, mut packets) = match opened.packets {
            Packets::Stream { input, .. } => return Ok(GpuFacts::of(input)),
            Packets::Dump(r, _) => (r.magic(), r),
        };
        let (mut tally, mut sum) = (Tally::default(), Summary::default());
        while let Some(e) = packets.next_entry().map_err(|e| e.in_file(path))? {
            let p = PacketRef::from(&e.packet);
            tally.add(&p);
            sum.add(&p);
        }
        Ok(GpuFacts {
            format: dump::FORMAT,
            magic: Some(magic_name(magic)),
            compression,
            packets: Some(sum.packets() as usize),
            notes: sum.notes().to_vec(),
            census: tally.finish(),
            warnings: packets.take_warnings(),
        })
    }
}

fn magic_name(m: Magic) -> &'static str {
    match m {
        Magic::Spec => "16-byte spec magic (PSXGPUDUMPv1r1)",
        Magic::Short => "14-byte DuckStation magic (PSXGPUDUMPv1)",
    }
}
