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
        dump.packets().map(|p| p.to_packet()).collect::<Vec<_>>(),
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
