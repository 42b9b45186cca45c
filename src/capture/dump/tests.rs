//! Round trips and hand-built dumps: both magics, every packet type, truncation and limits.

use super::*;
use crate::read::ErrorKind;

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
    let back: Vec<Packet> = dump.packets().map(|p| p.to_packet()).collect();
    assert_eq!(back, packets);
    assert_eq!(dump.frames(), 3);
    assert!(
        dump.summary()
            .contains("trace begins after 3 state-restore GP0 words and 2 GP1 words"),
        "{}",
        dump.summary()
    );
    assert_eq!(dump.entries.iter().next().unwrap().offset, 16);
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
    let offsets: Vec<u64> = dump.entries.iter().map(|e| e.offset).collect();
    assert_eq!(offsets, [14, 30]);
    assert_eq!(
        dump.packets().map(|p| p.to_packet()).collect::<Vec<_>>(),
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
}

/// A recording cut inside a packet plays the complete packets before it, with a warning naming
/// the byte; a packet without the word its type needs, or a string too long to read, is
/// skipped with a warning. None of them refuses the dump.
#[test]
fn cuts_and_impossible_packets_are_warnings() {
    let read = |data: &[u8]| {
        let dump = parse(data).unwrap();
        let packets: Vec<Packet> = dump.packets().map(|p| p.to_packet()).collect();
        (packets, dump.warnings)
    };
    // A payload running past the end.
    let mut data = encode(&[Packet::TraceBegin]).unwrap();
    data.extend_from_slice(&0x00FF_FFFFu32.to_le_bytes());
    data.extend_from_slice(&[0; 9]);
    let (packets, warnings) = read(&data);
    assert_eq!(packets, [Packet::TraceBegin]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with("the recording is cut at byte 0x21: the packet at byte 0x14"),
        "{warnings:?}"
    );
    // A partial header at the end.
    let mut data = encode(&[Packet::TraceBegin]).unwrap();
    data.extend_from_slice(&[1, 2]);
    let (packets, warnings) = read(&data);
    assert_eq!(packets, [Packet::TraceBegin]);
    assert!(
        warnings[0].contains("cut at byte 0x16: the packet header at byte 0x14 needs 4 bytes, 2"),
        "{warnings:?}"
    );
    // A discard and a read-back without their counts, and an absurd string, read whole.
    let mut data = MAGIC_SPEC.to_vec();
    for w in [0x0300_0000u32, 0x0400_0000, 0x1200_2000] {
        data.extend_from_slice(&w.to_le_bytes());
    }
    data.extend_from_slice(&vec![0x41; 0x2000 * 4]);
    data.extend_from_slice(&0x0200_0000u32.to_le_bytes());
    let (packets, warnings) = read(&data);
    assert_eq!(packets, [Packet::VSync(VSyncTime::None)]);
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(
        warnings[0].contains("0x10 (type 0x03): no payload word"),
        "{warnings:?}"
    );
    assert!(
        warnings[2].contains("a string of 8192 words"),
        "{warnings:?}"
    );
}

#[test]
fn odd_payloads_are_warnings() {
    let mut data = MAGIC_SPEC.to_vec();
    for w in [0x0500_0001u32, 9, 0x0200_0003, 1, 2, 3, 0x0300_0002, 4, 5] {
        data.extend_from_slice(&w.to_le_bytes());
    }
    let dump = parse(&data).unwrap();
    assert_eq!(dump.warnings.len(), 3, "{:?}", dump.warnings);
    assert_eq!(
        dump.packets().map(|p| p.to_packet()).collect::<Vec<_>>(),
        vec![
            Packet::TraceBegin,
            Packet::VSync(VSyncTime::U64(0x2_0000_0001)),
            Packet::Discard(4)
        ]
    );
}

/// Frames are numbered from the trace begin: VSyncs before it are not frame marks (with one
/// warning), whether the dump is read whole or as a stream; a dump without a trace begin
/// counts every VSync.
#[test]
fn vsyncs_before_the_trace_begin_are_not_frames() {
    let vsync = Packet::VSync(VSyncTime::None);
    let packets = [
        vsync.clone(),
        Packet::Gp0(vec![1]),
        vsync.clone(),
        Packet::TraceBegin,
        Packet::Gp0(vec![2]),
        vsync.clone(),
    ];
    let bytes = encode(&packets).unwrap();
    let dump = parse(&bytes).unwrap();
    assert_eq!(dump.frames(), 1);
    assert_eq!(dump.frames_from, 16 + 4 + 8 + 4);
    assert_eq!(dump.warnings.len(), 1, "{:?}", dump.warnings);
    assert!(dump.warnings[0].starts_with("2 VSyncs before the trace begin at byte 0x20"));
    let mut reader = PacketReader::new(&bytes[..]).unwrap();
    let mut streamed = Vec::new();
    while let Some(e) = reader.next_entry().unwrap() {
        streamed.push(e.packet);
    }
    assert_eq!(
        streamed,
        dump.packets().map(|p| p.to_packet()).collect::<Vec<_>>()
    );
    assert_eq!(reader.take_warnings(), dump.warnings);
    let without = parse(&encode(&[vsync.clone(), Packet::Gp0(vec![1]), vsync]).unwrap()).unwrap();
    assert_eq!((without.frames(), without.frames_from), (2, 0));
    assert!(without.warnings.is_empty());
}

#[test]
fn vram_restore_is_a_full_upload() {
    let mut vram = vec![0u16; 1024 * 512];
    vram[0] = 0x1234;
    vram[1] = 0x8765;
    let mut w = Writer::new();
    w.restore_vram(&vram);
    let dump = parse(&w.finish()).unwrap();
    let Some(PacketRef::Gp0(words)) = dump.packets().next() else {
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

/// A header-only packet is held as its one header word, and each has its own offset.
#[test]
fn held_packets_cost_their_file_words() {
    let mut data = MAGIC_SPEC.to_vec();
    for w in [0u32, 0, 0x0000_0001, 7, 0x0200_0000] {
        data.extend_from_slice(&w.to_le_bytes());
    }
    let dump = parse(&data).unwrap();
    let offsets: Vec<u64> = dump.entries.iter().map(|e| e.offset).collect();
    assert_eq!(offsets, [16, 20, 24, 32]);
    assert_eq!(dump.entries.len(), 4);
    let mut words = Vec::new();
    dump.entries.write_to(&mut words);
    assert_eq!(words, data[16..], "held as the file's words");
    assert_eq!(dump.to_spec_bytes(), data);
}

/// Past [`MAX_WARNINGS`] odd packets, one line says how many more there were.
#[test]
fn warnings_stop_at_the_cap() {
    let mut data = MAGIC_SPEC.to_vec();
    for _ in 0..MAX_WARNINGS + 5 {
        data.extend_from_slice(&0x7f00_0000u32.to_le_bytes());
    }
    let mut reader = PacketReader::new(&data[..]).unwrap();
    while reader.next_entry().unwrap().is_some() {}
    let w = reader.take_warnings();
    assert_eq!(w.len(), MAX_WARNINGS + 1);
    assert!(w[MAX_WARNINGS].starts_with("5 more odd packets"), "{w:?}");
    assert!(reader.take_warnings().is_empty(), "told once");
}

/// The file's words after a magic of `skip` bytes.
fn words_after(bytes: &[u8], skip: usize) -> Vec<u32> {
    bytes[skip..]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A capture in DuckStation's form is laid out as its recorder lays one out (gpu_dump.cpp,
/// read for facts): the 14-byte magic, then GPU version 1, game ID, video format and comment
/// packets (strings NUL-padded to a word, a whole-word string followed by a zero word), the
/// restore with one-word GP1 packets and the VRAM upload sized 0, trace begin, and VSyncs of two
/// words.
#[test]
fn duckstation_captures_have_its_header_and_packet_order() {
    let vram = vec![0x1234u16; 1024 * 512];
    // GP1(08h) mode 1 (320 wide) with bit 3 set: PAL.
    let setup = [0x0300_0000, 0x0800_0009];
    let frames: [&[u32]; 2] = [&[0xE100_0000, 0xE200_0000], &[0xE300_0000]];
    let bytes = capture(Form::DuckStation, "abc", &vram, &setup, &frames);
    assert_eq!(&bytes[..14], b"PSXGPUDUMPv1\0\0");
    let w = words_after(&bytes, 14);
    let head = [
        0x0600_0001,
        DUCKSTATION_GPU_VERSION,
        0x1000_0002,
        u32::from_le_bytes(*b"UNKN"),
        u32::from_le_bytes(*b"OWN\0"),
        0x1100_0001,
        u32::from_le_bytes(*b"PAL\0"),
        0x1200_0001,
        u32::from_le_bytes(*b"abc\0"),
        0x0100_0001,
        0,
        0x0100_0001,
        0x0300_0000,
        0x0100_0001,
        0x0800_0009,
        3 + 512 * 1024 / 2,
        0xA000_0000,
        0,
        0,
        0x1234_1234,
    ];
    assert_eq!(w[..head.len()], head, "got {:08x?}", &w[..head.len()]);
    let trace = 15 + 1 + 3 + 512 * 1024 / 2;
    // PAL fields: 33868800 / 50 cycles each.
    let tail = [
        0x0500_0000,
        0x0000_0002,
        0xE100_0000,
        0xE200_0000,
        0x0200_0002,
        0,
        0,
        0x0000_0001,
        0xE300_0000,
        0x0200_0002,
        677_376,
        0,
    ];
    assert_eq!(w[trace..], tail, "got {:08x?}", &w[trace..]);
    // An NTSC string of a whole word is followed by a zero word, as DuckStation pads it.
    let ntsc = capture(Form::DuckStation, "", &vram, &[], &[]);
    assert_eq!(words_after(&ntsc, 14)[5..8], [0x1100_0002, 0x4353_544E, 0]);
}

/// What DuckStation's player checks before it plays (gpu_dump.cpp: the 14-byte magic, a trace
/// begin, no VSync or second trace begin before it, a VSync after it; it drops GP1 packets that
/// are not one word): our DuckStation-form writers pass, and the spec form does not.
#[test]
fn duckstation_form_passes_its_players_checks() {
    fn opens_in_duckstation(bytes: &[u8]) -> Result<(), String> {
        if !bytes.starts_with(MAGIC_SHORT) {
            return Err("header".into());
        }
        let dump = parse(bytes).map_err(|e| e.to_string())?;
        let (mut begun, mut frames) = (false, 0);
        for p in dump.packets() {
            match p {
                PacketRef::TraceBegin if begun => return Err("second trace begin".into()),
                PacketRef::TraceBegin => begun = true,
                PacketRef::VSync(_) if !begun => return Err("VSync first".into()),
                PacketRef::VSync(_) => frames += 1,
                PacketRef::Gp1(w) if w.len() != 1 => return Err("GP1 packet length".into()),
                _ => {}
            }
        }
        match (begun, frames) {
            (false, _) => Err("no trace begin".into()),
            (_, 0) => Err("no frame".into()),
            _ => Ok(()),
        }
    }
    let vram = vec![0u16; 16];
    let frame: [&[u32]; 1] = [&[0xE100_0000]];
    let ours = capture(Form::DuckStation, "c", &vram, &[0x0800_0001], &frame);
    assert_eq!(opens_in_duckstation(&ours), Ok(()));
    let spec = capture(Form::Spec, "c", &vram, &[0x0800_0001], &frame);
    assert_eq!(opens_in_duckstation(&spec), Err("header".into()));
    let packets = [Packet::Gp1(vec![1, 2]), Packet::VSync(VSyncTime::None)];
    let rewritten = encode_as(
        Form::DuckStation,
        &[&[Packet::TraceBegin], &packets[..]].concat(),
    );
    assert_eq!(opens_in_duckstation(&rewritten.unwrap()), Ok(()));
}

/// Both forms read back to the same GPU words: the two VRAM-restore size words and the two
/// VSync payloads are all the forms differ in, past the header.
#[test]
fn both_forms_round_trip_to_the_same_words() {
    let vram: Vec<u16> = (0..1024 * 512u32).map(|i| (i * 7) as u16).collect();
    let frames: [&[u32]; 2] = [&[0xE100_0001, 0xE200_0002], &[]];
    let gp0 = |bytes: &[u8]| -> Vec<u32> {
        let dump = parse(bytes).unwrap();
        let mut out = Vec::new();
        for p in dump.packets() {
            if let PacketRef::Gp0(w) = p {
                out.extend_from_slice(w);
            }
        }
        out
    };
    let duck = gp0(&capture(Form::DuckStation, "", &vram, &[], &frames));
    let spec = gp0(&capture(Form::Spec, "", &vram, &[], &frames));
    assert_eq!(duck[..2], spec[..2]);
    assert_eq!((duck[2], spec[2]), (0, 0x0200_0400));
    assert!(duck[3..] == spec[3..]);
}
