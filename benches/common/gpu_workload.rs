//! The GPU bench's triangle workload, shared by `benches/gpu.rs` and `gpu/examples/tris.rs`
//! (the same frame for callgrind).

use gpu::rng::XorShift as Rng;

/// Texture pages at x = 640.. (4/8/15 bpp) and CLUTs on row 500 from x = 512: uploaded once.
pub fn setup_words(rng: &mut Rng) -> Vec<u32> {
    let mut w = vec![0xe300_0000, 0xe407_ffff, 0xe500_0000, 0xe100_0000];
    // 384×256 of random texels at (640, 0).
    w.extend([0xa000_0000, 640, (256 << 16) | 384]);
    w.extend((0..384 * 256 / 2).map(|_| rng.next_u32() | 0x0001_0001));
    // 256-entry CLUT at (512, 500).
    w.extend([0xa000_0000, (500 << 16) | 512, (1 << 16) | 256]);
    w.extend((0..128).map(|_| rng.next_u32() | 0x0001_0001));
    w
}

/// `n` random textured gouraud triangles drawn in x 0..576, y 0..448, and their total area
/// (≈ pixels drawn).
pub fn triangles(rng: &mut Rng, n: usize) -> (Vec<u32>, u64) {
    let mut w = Vec::new();
    let mut area = 0u64;
    for i in 0..n {
        let (ox, oy) = (rng.below(576 - 64), rng.below(448 - 64));
        let p: Vec<(u32, u32)> = (0..3)
            .map(|_| (ox + rng.below(64), oy + rng.below(64)))
            .collect();
        let cross = (p[1].0 as i64 - p[0].0 as i64) * (p[2].1 as i64 - p[0].1 as i64)
            - (p[2].0 as i64 - p[0].0 as i64) * (p[1].1 as i64 - p[0].1 as i64);
        area += cross.unsigned_abs() / 2;
        let semi = if i % 4 == 0 { 0x0200_0000 } else { 0 };
        // Texture pages 10 (4bpp), 11 (8bpp), 12 (15bpp) in turn.
        let depth = (i % 3) as u32;
        let page = (10 + depth) | (depth << 7);
        let clut = (500 << 6) | (512 / 16);
        w.push(0x3400_0000 | semi | (rng.next_u32() & 0xff_ffff));
        // UVs follow the positions (about one texel per pixel, as models map textures) from a
        // random origin in the page.
        let (u0, v0) = (rng.below(192), rng.below(192));
        for (k, (x, y)) in p.iter().enumerate() {
            if k > 0 {
                w.push(rng.next_u32() & 0xff_ffff);
            }
            w.push((y << 16) | x);
            let attr = match k {
                0 => clut,
                1 => page,
                _ => 0,
            };
            let (u, v) = (u0 + x - ox, v0 + y - oy);
            w.push((attr << 16) | (v << 8) | u);
        }
    }
    (w, area)
}
