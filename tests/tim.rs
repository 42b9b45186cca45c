//! TIM reader/writer: facts about every sample in shared/samples/tim (read in place), round
//! trips at every depth, and a bad-input corpus (truncations, random flips).

mod common;

use psxrender::formats::tim::{rgba15, Tim, TimDepth};

struct Fact {
    file: &'static str,
    depth: TimDepth,
    /// CLUT rectangle (x, y, w, h) in VRAM halfwords.
    clut: Option<(u16, u16, u16, u16)>,
    /// Image rectangle (x, y, w, h) in VRAM halfwords.
    image: (u16, u16, u16, u16),
    /// Pixel size.
    pixels: (u32, u32),
    /// The raw sample (CLUT index or 15-bit colour) and its colour at pixel (5, 7).
    raw_5_7: u16,
    colour_5_7: u16,
}

// Source of the numbers: the block headers and data of each file, decoded by hand (python
// struct) — see shared/samples/SOURCES.md for the files' origin.
const FACTS: [Fact; 6] = [
    Fact {
        file: "ball16c.tim",
        depth: TimDepth::Bpp4,
        clut: Some((960, 272, 16, 1)),
        image: (960, 256, 4, 16),
        pixels: (16, 16),
        raw_5_7: 0x6,
        colour_5_7: 0xe338,
    },
    Fact {
        file: "cube16.tim",
        depth: TimDepth::Bpp15,
        clut: None,
        image: (0, 256, 128, 128),
        pixels: (128, 128),
        raw_5_7: 0x73be,
        colour_5_7: 0x73be,
    },
    Fact {
        file: "lamelotl16c.tim",
        depth: TimDepth::Bpp4,
        clut: Some((640, 506, 16, 1)),
        image: (832, 0, 48, 256),
        pixels: (192, 256),
        raw_5_7: 0x0,
        colour_5_7: 0x0,
    },
    // Its image block length field says 268 for a 16396-byte block: ignored.
    Fact {
        file: "texture.tim",
        depth: TimDepth::Bpp8,
        clut: Some((768, 0, 256, 1)),
        image: (768, 1, 64, 128),
        pixels: (128, 128),
        raw_5_7: 0x14,
        colour_5_7: 0x0821,
    },
    Fact {
        file: "texture64.tim",
        depth: TimDepth::Bpp4,
        clut: Some((0, 480, 16, 1)),
        image: (640, 256, 16, 64),
        pixels: (64, 64),
        raw_5_7: 0x3,
        colour_5_7: 0x5fe0,
    },
    // Flags 0x0028f609: junk above bit 3, masked.
    Fact {
        file: "tiles_256.tim",
        depth: TimDepth::Bpp8,
        clut: Some((0, 480, 256, 1)),
        image: (640, 0, 128, 256),
        pixels: (256, 256),
        raw_5_7: 0x3a,
        colour_5_7: 0x8000,
    },
];

fn rect(v: &psxrender::scene::VramImage) -> (u16, u16, u16, u16) {
    (v.x, v.y, v.width, v.height)
}

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(common::shared(&format!("samples/tim/{name}"))).unwrap()
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/tim")]
fn sample_facts() {
    let mut bad = Vec::new();
    for f in &FACTS {
        let data = sample(f.file);
        let (t, len) = Tim::parse_with_len(&data).unwrap_or_else(|e| panic!("{}: {e}", f.file));
        let got = (
            t.depth,
            t.clut.as_ref().map(rect),
            rect(&t.image),
            (t.pixel_width(), u32::from(t.image.height)),
            t.raw_pixel(5, 7),
            len,
        );
        let want = (f.depth, f.clut, f.image, f.pixels, f.raw_5_7, data.len());
        if got != want {
            bad.push(format!("{}: got {got:x?}\n   want {want:x?}", f.file));
        }
        let rgba = t.to_rgba(0);
        assert_eq!((rgba.width, rgba.height), f.pixels);
        let px = rgba.pixels[7 * rgba.width as usize + 5];
        if px != rgba15(f.colour_5_7) {
            bad.push(format!(
                "{}: pixel (5,7) {px:?}, want 0x{:04x} = {:?}",
                f.file,
                f.colour_5_7,
                rgba15(f.colour_5_7)
            ));
        }
        // Writing fixes the untrusted block lengths and masks the flags; the pixels stay.
        let back = Tim::parse(&t.write()).unwrap();
        assert_eq!(back, t, "{}", f.file);
    }
    assert!(bad.is_empty(), "mismatches:\n{}", bad.join("\n"));
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/tim")]
fn samples_truncated_at_every_offset_fail_with_an_offset() {
    for f in ["ball16c.tim", "texture64.tim"] {
        let data = sample(f);
        for len in 0..data.len() {
            let e = Tim::parse(&data[..len]).expect_err("a truncated TIM must not load");
            assert!(e.offset < data.len() as u64, "{f} len {len}: {e}");
        }
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/tim")]
fn samples_with_random_flips_never_panic() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for f in &FACTS {
        let data = sample(f.file);
        for _ in 0..200 {
            let mut d = data.clone();
            // Flip within the headers more often than in pixel data.
            let span = if next() % 2 == 0 {
                48.min(d.len())
            } else {
                d.len()
            };
            let i = (next() % span as u64) as usize;
            d[i] ^= 1 << (next() % 8);
            if let Ok(t) = Tim::parse(&d) {
                let img = t.to_rgba(0);
                assert_eq!(img.pixels.len() as u32, img.width * img.height);
            }
        }
    }
}

#[test]
fn bad_magic_and_huge_rectangles_are_refused() {
    let e = Tim::parse(b"\x11\0\0\0\0\0\0\0").unwrap_err();
    assert_eq!(e.offset, 0);
    // A 1024x512 rectangle claimed by a 20-byte file: refused before allocating.
    let mut d = vec![0x10, 0, 0, 0, 2, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0];
    d.extend_from_slice(&1024u16.to_le_bytes());
    d.extend_from_slice(&512u16.to_le_bytes());
    let e = Tim::parse(&d).unwrap_err();
    assert_eq!(e.offset, 16, "{e}");
}
