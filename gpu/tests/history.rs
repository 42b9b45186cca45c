//! Pixel history ([`Gpu::watch`]): which commands touched a halfword, in order, and what each
//! computed there.

use gpu::trace::Part;
use gpu::Gpu;
use gpu::Outcome;

fn xy(x: u32, y: u32) -> u32 {
    (y << 16) | x
}

/// Two overlapping triangles over (2, 2): both listed in command order, the second's value
/// last; a pixel only the first covers lists only the first.
#[test]
fn two_overlapping_triangles_are_both_listed_the_second_last() {
    for threads in [1, 0, 3] {
        let mut g = Gpu::new();
        g.set_threads(gpu::Threads::from_count(threads));
        g.set_parallel_min_load(0);
        g.watch(&[(2, 2), (0, 0)]);
        g.gp0_words(&[0xe300_0000, 0xe407_ffff]);
        g.gp0_words(&[0x2000_00ff, xy(0, 0), xy(8, 0), xy(0, 8)]);
        g.gp0_words(&[0x2000_ff00, xy(1, 1), xy(6, 1), xy(1, 6)]);
        let events = g.history().to_vec();
        let at = |x, y| events.iter().filter(move |e| (e.x, e.y) == (x, y));
        let mine: Vec<_> = at(2, 2).collect();
        assert_eq!(mine.len(), 2, "threads {threads}: {events:?}");
        assert_eq!((mine[0].command, mine[0].word), (2, 2));
        assert_eq!((mine[1].command, mine[1].word), (3, 6));
        assert_eq!((mine[0].before, mine[0].after), (0, 0x001f));
        assert_eq!((mine[1].before, mine[1].after), (0x001f, 0x03e0));
        assert_eq!(mine[1].words[0], 0x2000_ff00);
        assert!(mine
            .iter()
            .all(|e| e.outcome == Outcome::Written && e.agrees()));
        let corner: Vec<_> = at(0, 0).collect();
        assert_eq!(corner.len(), 1);
        assert_eq!(g.vram()[2 * 1024 + 2], 0x03e0);
    }
}

/// A textured sprite over a watched texel: the UV and the texel it fetched; a transparent
/// texel is listed as not written; an upload over the pixel is listed too.
#[test]
fn textured_pixels_report_uv_texel_and_transfers() {
    let mut g = Gpu::new();
    g.watch(&[(1, 0), (2, 0)]);
    // 15-bit page at x = 640: texels (640, 0) = 0x1234, (641, 0) = 0 (transparent).
    g.gp0_words(&[0xe300_0000, 0xe407_ffff, 0xe100_000a | (2 << 7)]);
    g.gp0_words(&[0xa000_0000, 640, 0x0001_0002, 0x0000_1234]);
    g.gp0_words(&[0xa000_0000, xy(2, 0), 0x0001_0001, 0x0000_7fff]);
    // Raw textured 2x1 sprite at (1, 0), UV (0, 0).
    g.gp0_words(&[0x6500_0000, xy(1, 0), 0, 0x0001_0002]);
    let events = g.history().to_vec();
    let at = |x| events.iter().filter(|e| e.x == x).collect::<Vec<_>>();
    let one = at(1);
    assert_eq!(one.len(), 1, "{events:?}");
    let hit = one[0].hit.expect("a primitive");
    assert_eq!((hit.interp.uv, hit.texel), (Some((0, 0)), Some(0x1234)));
    assert_eq!(one[0].after, 0x1234);
    let two = at(2);
    assert_eq!(two.len(), 2, "{events:?}");
    assert_eq!((two[0].part, two[0].after), (Part::Upload, 0x7fff));
    assert_eq!(two[1].outcome, Outcome::Transparent);
    assert_eq!((two[1].before, two[1].after), (0x7fff, 0x7fff));
    assert_eq!(two[1].hit.and_then(|h| h.texel), Some(0));
}
