//! Texture feedback and the texture cache as pixel grids: primitives that sample what they or
//! earlier primitives drew, through the 2 KB texture cache and the CLUT cache. Each grid shows
//! a pixel's 5-bit red as a base-32 digit (`v` = 31, `0` = drawn with no red, `.` = 0000h),
//! drawn serially, on all cores and on 3 threads (all must agree), with the batches' parallel
//! path forced on.

use gpu::Gpu;
use gpu::TexelSource;

const RED: u32 = 0x001f;

fn xy(x: u32, y: u32) -> u32 {
    (y << 16) | x
}

/// Drawing area: all of VRAM; no offset.
const SETUP: [u32; 3] = [0xe300_0000, 0xe407_ffff, 0xe500_0000];

/// The top-left `w`×`h` of VRAM after `words`, as red digits, equal at every thread count.
fn red_grid(words: &[u32], w: usize, h: usize) -> Vec<String> {
    let mut pictures: Vec<Vec<String>> = Vec::new();
    for threads in [1, 0, 3] {
        let mut gpu = Gpu::new();
        gpu.set_threads(gpu::Threads::from_count(threads));
        gpu.set_parallel_min_load(0);
        gpu.gp0_words(&SETUP);
        gpu.gp0_words(words);
        let vram = gpu.vram();
        let digit = |p: u16| match p {
            0 => '.',
            _ => char::from_digit((p & 31) as u32, 32).unwrap_or('?'),
        };
        pictures.push(
            (0..h)
                .map(|y| (0..w).map(|x| digit(vram[y * 1024 + x])).collect())
                .collect(),
        );
    }
    assert_eq!(pictures[0], pictures[1], "all cores differ from serial");
    assert_eq!(pictures[0], pictures[2], "3 threads differ from serial");
    pictures.remove(0)
}

fn check(words: &[u32], expected: &[&str]) {
    let got = red_grid(words, expected[0].len(), expected.len());
    assert_eq!(got, expected, "\ngot:\n{}", got.join("\n"));
}

/// A 15-bit raw-textured triangle in its own texture page (page 0), each pixel sampling the
/// texel 4 columns to its left: the red texels at x 0–3 reach the whole triangle, because each
/// pixel's texel was drawn by the same triangle a moment before (read from VRAM on a cache
/// miss, or filled into the entry after it was drawn). Sampling VRAM as it was before the
/// triangle would stop the red at x = 7.
#[test]
fn a_triangle_sampling_its_own_page_reads_its_own_pixels() {
    let mut words = vec![0xe100_0100];
    words.extend([0xa000_0000, xy(0, 0), xy(4, 8)]);
    words.extend((0..16).map(|_| RED | RED << 16));
    // GP0(25h): raw textured triangle; (4,0) uv (0,0), (20,0) uv (16,0), (4,8) uv (0,8);
    // the page word selects 15-bit page 0.
    words.extend([
        0x2500_0000,
        xy(4, 0),
        0,
        xy(20, 0),
        0x0100 << 16 | 16,
        xy(4, 8),
        8 << 8,
    ]);
    check(
        &words,
        &[
            "vvvvvvvvvvvvvvvvvvvv....",
            "vvvvvvvvvvvvvvvvvv......",
            "vvvvvvvvvvvvvvvv........",
            "vvvvvvvvvvvvvv..........",
            "vvvvvvvvvvvv............",
            "vvvvvvvvvv..............",
            "vvvvvvvv................",
            "vvvvvv..................",
            "........................",
        ],
    );
}

/// The words of a render-to-texture: a 15-bit page at x = 64 whose texels (64–67, 0) are red
/// are sampled (row 0: red), then drawn over in green by an untextured rectangle, then sampled
/// again (row 1), with `between` in between.
fn render_to_texture(between: &[u32]) -> Vec<u32> {
    // Raw textured 4x1 sprite at (0, y), UV (0, 0).
    let sprite = |y: u32| [0x6500_0000, xy(0, y), 0, xy(4, 1)];
    let mut words = vec![0xe100_0101];
    words.extend([
        0xa000_0000,
        xy(64, 0),
        xy(4, 1),
        RED | RED << 16,
        RED | RED << 16,
    ]);
    words.extend(sprite(0));
    // GP0(60h): green 4x1 rectangle over the texels.
    words.extend([0x6000_ff00, xy(64, 0), xy(4, 1)]);
    words.extend(between);
    words.extend(sprite(1));
    words
}

/// Without a page change the texture cache still holds the red texels the first sprite
/// fetched: the second sprite draws them (stale), though VRAM holds green.
#[test]
fn render_to_texture_without_a_page_change_samples_the_stale_cache() {
    check(&render_to_texture(&[]), &["vvvv", "vvvv", "...."]);
}

/// A texture page change (to page 0 and back, GP0(E1h)) empties the texture cache: the second
/// sprite reads the green VRAM holds (fresh). So does a GP0(01h), and a polygon whose page
/// word changes the page.
#[test]
fn render_to_texture_after_a_page_change_samples_what_was_drawn() {
    check(
        &render_to_texture(&[0xe100_0100, 0xe100_0101]),
        &["vvvv", "0000"],
    );
    check(&render_to_texture(&[0x0100_0000]), &["vvvv", "0000"]);
    // A raw textured triangle far away whose page word sets page 0, then E1 back to page 1.
    let tri = [
        0x2500_0000,
        xy(900, 500),
        0,
        xy(901, 500),
        0x0100 << 16,
        xy(900, 501),
        0,
    ];
    let mut between = tri.to_vec();
    between.push(0xe100_0101);
    check(&render_to_texture(&between), &["vvvv", "0000"]);
    // A fill (blue) over the texels leaves the cache as it is: still the stale red.
    let fill = [0x02ff_0000, xy(64, 0), xy(16, 1)];
    check(&render_to_texture(&fill), &["vvvv", "vvvv"]);
}

/// The CLUT cache keeps the entries of the CLUT it loaded when a primitive draws over them:
/// a 4-bit sprite (texel index 1) keeps drawing the old red entry while its CLUT key stays
/// the same, draws the green VRAM now holds once another key was loaded in between.
#[test]
fn a_clut_drawn_over_while_cached_keeps_its_old_entries() {
    // 4-bit page at x = 640: texel (0, 0) is index 1. CLUT at (0, 500): entry 1 red.
    let mut words = vec![0xe100_000a];
    words.extend([0xa000_0000, xy(640, 0), xy(1, 1), 1]);
    words.extend([0xa000_0000, xy(0, 500), xy(2, 1), RED << 16]);
    let clut = |x: u32| ((500 << 6) | (x / 16)) << 16;
    // GP0(6Dh): raw textured 1x1 sprite at (x, 0), UV (0, 0).
    let sprite = |x: u32, c: u32| [0x6d00_0000, xy(x, 0), c];
    words.extend(sprite(0, clut(0)));
    // Green over the CLUT's 16 entries.
    words.extend([0x6000_ff00, xy(0, 500), xy(16, 1)]);
    words.extend(sprite(1, clut(0)));
    // Another CLUT (entry 1 is 0000h: transparent), then the first again: reloaded.
    words.extend(sprite(2, clut(16)));
    words.extend(sprite(3, clut(0)));
    check(&words, &["vv.0"]);
}

/// The pixel history of the stale pixel says its texel came from the texture cache and which
/// command filled the entry; the fresh one, from VRAM.
#[test]
fn history_names_the_cache_entry_a_stale_texel_came_from() {
    for between in [&[][..], &[0xe100_0100, 0xe100_0101][..]] {
        let mut g = Gpu::new();
        g.watch(&[(0, 1)]);
        g.gp0_words(&SETUP);
        g.gp0_words(&render_to_texture(between));
        let events = g.history().to_vec();
        assert_eq!(events.len(), 1, "{events:?}");
        let e = &events[0];
        // Commands: 3 setup, E1, upload, sprite (5), rectangle, `between`, sprite.
        let want = match between.is_empty() {
            true => (TexelSource::Cache { filled: Some(5) }, RED as u16),
            false => (TexelSource::Vram, 0x03e0),
        };
        assert_eq!((e.texel_source, e.after), (Some(want.0), want.1), "{e:?}");
        assert!(e.agrees());
    }
}

/// The CLUT cache after an 8-bit load serves a 4-bit primitive with the entries it holds even
/// though VRAM changed under them (the console: gpu-images/clut-cache row 152), and an 8-bit
/// primitive after that loads them again (the emulator reference's wide streams).
#[test]
fn an_8_bit_clut_serves_4_bits_then_loads_again_for_8() {
    // Page at x = 640: halfword (640, 0) = 0x0101, so a 4-bit texel (0, 0) and an 8-bit one
    // are both index 1. CLUT at (0, 500): entry 1 red.
    let mut words = vec![0xa000_0000, xy(640, 0), xy(1, 1), 0x0101];
    words.extend([0xa000_0000, xy(0, 500), xy(2, 1), RED << 16]);
    let clut = (500 << 6) << 16;
    let sprite = |x: u32| [0x6d00_0000, xy(x, 0), clut];
    words.push(0xe100_008a); // 8-bit
    words.extend(sprite(0));
    words.extend([0x6000_ff00, xy(0, 500), xy(16, 1)]); // green over the CLUT
    words.push(0xe100_000a); // 4-bit: the entries held
    words.extend(sprite(1));
    words.push(0xe100_008a); // 8-bit: loaded again
    words.extend(sprite(2));
    check(&words, &["vv0"]);
}
