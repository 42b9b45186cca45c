//! The GPU bench's triangle workload, shared by `benches/gpu.rs` and `examples/tris.rs`
//! (the same frame for callgrind).

use gpu::XorShift as Rng;

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

/// The small-triangle stream: what real PS1 frames are made of. Set-up (drawing area 640×480,
/// random texels over x 640..1024 of all of VRAM, whose rows 480..512 hold 32 CLUTs), then `n`
/// random textured gouraud triangles (GP0 34h–37h: raw or modulated, opaque or
/// semi-transparent), each vertex within ±16 px of a random centre in 640×480, on random 4, 8
/// and 15bpp pages (inside the uploaded texels, as a game's textures are) with random CLUTs and
/// blend modes, UVs following the positions from a random
/// origin; about every 500 triangles, a block of E1 (dither, blend mode), E2 (texture window),
/// E5 (offset within ±8) and E6 (mask bits). Returns the words and the triangles' total area.
pub fn small_triangles(rng: &mut Rng, n: usize) -> (Vec<u32>, u64) {
    let mut w = vec![
        0xe300_0000,
        0xe400_0000 | (479 << 10) | 639,
        0xe500_0000,
        0xe100_0200,
    ];
    w.extend([0xa000_0000, 640, (512 << 16) | 384]);
    w.extend((0..384 * 512 / 2).map(|_| rng.next_u32()));
    let mut area = 0u64;
    for _ in 0..n {
        if rng.below(500) == 0 {
            let offset = |r: &mut Rng| (r.below(17) as i32 - 8) as u32 & 0x7ff;
            let window = if rng.below(3) == 0 {
                rng.next_u32() & 0xf_ffff
            } else {
                0
            };
            w.extend([
                0xe100_0000 | (rng.next_u32() & 0x260),
                0xe200_0000 | window,
                0xe500_0000 | (offset(rng) << 11) | offset(rng),
                0xe600_0000 | (rng.below(4) & if rng.below(4) == 0 { 3 } else { 1 }),
            ]);
        }
        let (cx, cy) = (rng.below(640) as i32, rng.below(480) as i32);
        let p: Vec<(i32, i32)> = (0..3)
            .map(|_| {
                (
                    cx + rng.below(33) as i32 - 16,
                    cy + rng.below(33) as i32 - 16,
                )
            })
            .collect();
        let cross = (p[1].0 - p[0].0) as i64 * (p[2].1 - p[0].1) as i64
            - (p[2].0 - p[0].0) as i64 * (p[1].1 - p[0].1) as i64;
        area += cross.unsigned_abs() / 2;
        let op = 0x34 + rng.below(4);
        let depth = rng.below(3);
        // Pages lie in the uploaded texels, x 640–1023: 64, 128 or 256 halfwords wide.
        let page_x = 10 + rng.below([6, 5, 3][depth as usize]);
        let page = page_x | (rng.below(2) << 4) | (rng.below(4) << 5) | (depth << 7);
        // CLUTs of 16 or 256 entries that end inside the row, as a game's do.
        let clut =
            ((480 + rng.below(32)) << 6) | (640 / 16 + rng.below([16, 9, 16][depth as usize]));
        let (u0, v0) = (rng.below(224) as i32, rng.below(224) as i32);
        w.push((op << 24) | (rng.next_u32() & 0xff_ffff));
        for (k, &(x, y)) in p.iter().enumerate() {
            if k > 0 {
                w.push(rng.next_u32() & 0xff_ffff);
            }
            w.push(((y as u32 & 0xffff) << 16) | (x as u32 & 0xffff));
            let attr = match k {
                0 => clut,
                1 => page,
                _ => 0,
            };
            let (u, v) = ((u0 + x - cx + 16) as u32, (v0 + y - cy + 16) as u32);
            w.push((attr << 16) | ((v & 0xff) << 8) | (u & 0xff));
        }
    }
    (w, area)
}
