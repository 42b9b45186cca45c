//! `psxrender compare` end to end on synthetic captures: exit codes, expansions, upscales,
//! raw VRAM, masks and the diff image.

mod cli_run;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use psxrender::output::save_png_rgb;

fn tmp(name: &str) -> PathBuf {
    cli_run::tmp("compare_cli", name)
}

fn compare(a: &Path, b: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let args = [OsStr::new("compare"), a.as_os_str(), b.as_os_str()];
    cli_run::psxrender(args.into_iter().chain(extra.iter().map(OsStr::new)))
}

/// A 64×48 picture of 15-bit pixels: a gradient touching every channel value.
fn picture() -> Vec<u16> {
    (0..64 * 48u32).map(|i| (i * 41 % 0x8000) as u16).collect()
}

fn save(name: &str, w: u32, h: u32, px: &[u16], widen: fn(u16) -> u8) -> PathBuf {
    let rgb: Vec<u8> = px
        .iter()
        .flat_map(|&p| [widen(p & 31), widen(p >> 5 & 31), widen(p >> 10 & 31)])
        .collect();
    let path = tmp(name);
    save_png_rgb(&path, w, h, &rgb).unwrap();
    path
}

fn shift(c: u16) -> u8 {
    (c << 3) as u8
}

fn replicate(c: u16) -> u8 {
    psxrender::output::expand5(c)
}

#[test]
fn identical_and_differently_expanded_pictures_are_equal() {
    let px = picture();
    let a = save("a-shift.png", 64, 48, &px, shift);
    let b = save("b-replicate.png", 64, 48, &px, replicate);
    let (code, t) = compare(&a, &a, &[]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("identical: 3072 (100.0000%)"), "{t}");
    assert!(t.contains("PSNR: infinite"), "{t}");
    let (code, t) = compare(&a, &b, &[]);
    assert_eq!(code, Some(0), "{t}");
    assert!(
        t.contains("channels c<<3") && t.contains("channels (c<<3)|(c>>2)"),
        "{t}"
    );
}

#[test]
fn one_pixel_off_fails_and_is_located() {
    let px = picture();
    let mut off = px.clone();
    off[10 * 64 + 7] ^= 0x0400; // blue channel differs by 1 (5-bit)
    let a = save("one-a.png", 64, 48, &px, replicate);
    let b = save("one-b.png", 64, 48, &off, replicate);
    let diff = tmp("one-diff.png");
    let (code, t) = compare(&a, &b, &["--diff", diff.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{t}");
    assert!(t.contains("identical: 3071 "), "{t}");
    assert!(t.contains("largest channel error: 1 "), "{t}");
    assert!(
        t.contains("differences within x 7..7, y 10..10 (1x1)"),
        "{t}"
    );
    let d = image::open(&diff).unwrap().to_rgb8();
    assert_eq!(d.get_pixel(7, 10).0, [255, 0, 255]);
    assert_ne!(d.get_pixel(8, 10).0, [255, 0, 255]);
    let (code, t) = compare(&a, &b, &["--tolerance", "1"]);
    assert_eq!(code, Some(0), "{t}");
    // A mask file covering the pixel makes it equal too.
    let mask = tmp("one-mask.txt");
    std::fs::write(&mask, "# the odd pixel\nrect 7 10 1 1\n").unwrap();
    let (code, t) = compare(&a, &b, &["--mask", mask.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{t}");
}

#[test]
fn an_unwritable_diff_image_is_an_error_exit_2() {
    let px = picture();
    let a = save("w-a.png", 64, 48, &px, replicate);
    let nowhere = tmp("no-such-dir").join("sub").join("diff.png");
    let (code, t) = compare(&a, &a, &["--diff", nowhere.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("cannot write"), "{t}");
    assert!(!nowhere.exists());
}

#[test]
fn integer_upscales_are_detected() {
    let px = picture();
    let a = save("up-a.png", 64, 48, &px, shift);
    let px = &px;
    for k in [2u32, 3, 4] {
        let big: Vec<u16> = (0..48 * k)
            .flat_map(|y| (0..64 * k).map(move |x| px[((y / k) * 64 + x / k) as usize]))
            .collect();
        let b = save(&format!("up-{k}x.png"), 64 * k, 48 * k, &big, replicate);
        let (code, t) = compare(&b, &a, &[]);
        assert_eq!(code, Some(0), "{k}x: {t}");
        assert!(t.contains(&format!("undid a {k}x{k} upscale")), "{t}");
    }
    let odd = save("up-odd.png", 65, 48, &vec![0; 65 * 48], shift);
    let (code, t) = compare(&a, &odd, &[]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("sizes differ: 64x48 vs 65x48"), "{t}");
}

#[test]
fn raw_vram_compares_with_its_png() {
    let mut raw = vec![0u8; 1 << 20];
    let mut px = vec![0u16; 1024 * 512];
    for (i, p) in px.iter_mut().enumerate() {
        *p = (i as u32 * 7 % 0x10000) as u16;
        raw[i * 2..i * 2 + 2].copy_from_slice(&p.to_le_bytes());
    }
    let bin = tmp("vram.bin");
    std::fs::write(&bin, &raw).unwrap();
    let png = save("vram.png", 1024, 512, &px, shift);
    let (code, t) = compare(&bin, &png, &[]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("raw VRAM 1024x512"), "{t}");
    // Two raw files differing only in mask bits: equal, with the mask count reported.
    raw[1] ^= 0x80;
    let bin2 = tmp("vram2.bin");
    std::fs::write(&bin2, &raw).unwrap();
    let (code, t) = compare(&bin, &bin2, &[]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("mask bit (15) differs in 1 pixels"), "{t}");
}

#[test]
fn unreadable_inputs_exit_2() {
    let junk = tmp("junk.bin");
    std::fs::write(&junk, b"not an image").unwrap();
    let a = save("ok.png", 4, 4, &[0; 16], shift);
    let (code, t) = compare(&a, &junk, &[]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("junk.bin") && t.contains("at byte 0x0"), "{t}");
    let (code, t) = compare(&a, &tmp("missing.png"), &[]);
    assert_eq!(code, Some(2), "{t}");
    let bad_mask = tmp("bad-mask.txt");
    std::fs::write(&bad_mask, "rect 1 2\n").unwrap();
    let (code, t) = compare(&a, &a, &["--mask", bad_mask.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{t}");
}
