//! The 11 `hwtests/gpu-images`: each stream replayed from power-on must reproduce the
//! console's VRAM capture exactly (bits 0–14; `lines` ignores its `mask.txt` rectangles).
//! Every case runs serial, on all cores and at `Pool(n)` for n = 2 to 64 (every batch in bands,
//! each n's plan drawn on at most one thread per core).
mod common;

use std::path::Path;

use gpu::{Gpu, VRAM_HEIGHT, VRAM_WIDTH};
use psxrender::hwtest::conformance::replay;
use psxrender::hwtest::stream::parse;

/// VRAM from the PNG: `r5 = R>>3, g5 = G>>3, b5 = B>>3` (FORMAT.md §3).
fn expected_vram(dir: &Path) -> Vec<u16> {
    let img = image::open(dir.join("expected.png")).unwrap().to_rgb8();
    assert_eq!((img.width(), img.height()), (1024, 512));
    img.pixels()
        .map(|p| (p[0] as u16 >> 3) | ((p[1] as u16 >> 3) << 5) | ((p[2] as u16 >> 3) << 10))
        .collect()
}

/// `rect X Y W H` lines of `mask.txt`, as a per-pixel ignore map.
fn ignored(dir: &Path) -> Vec<bool> {
    let mut ign = vec![false; VRAM_WIDTH * VRAM_HEIGHT];
    let Ok(text) = std::fs::read_to_string(dir.join("mask.txt")) else {
        return ign;
    };
    for line in text.lines() {
        let f: Vec<usize> = line
            .split_whitespace()
            .skip(1)
            .filter_map(|s| s.parse().ok())
            .collect();
        if line.starts_with("rect") && f.len() == 4 {
            for y in f[1]..f[1] + f[3] {
                for x in f[0]..f[0] + f[2] {
                    ign[(y % VRAM_HEIGHT) * VRAM_WIDTH + x % VRAM_WIDTH] = true;
                }
            }
        }
    }
    ign
}

fn check(name: &str) {
    let dir = common::shared(&format!("hwtests/gpu-images/{name}"));
    let text = std::fs::read_to_string(dir.join("stream.txt")).unwrap();
    let items: Vec<_> = parse(&text).unwrap().into_iter().map(|l| l.item).collect();
    let expected = expected_vram(&dir);
    let ign = ignored(&dir);
    let mut outputs = Vec::new();
    for threads in [1, 0, 2, 3, 5, 8, 16, 33, 64] {
        let mut gpu = Gpu::new();
        gpu.set_threads(gpu::Threads::from_count(threads));
        gpu.set_parallel_min_load(0);
        replay(&mut gpu, &items);
        let vram = gpu.vram().to_vec();
        let mut bad = 0;
        for (i, (&got, &exp)) in vram.iter().zip(&expected).enumerate() {
            if ign[i] || got & 0x7fff == exp {
                continue;
            }
            bad += 1;
            if bad <= 200 {
                println!(
                    "{name} threads={threads}: ({}, {}) expected {exp:04x}, got {:04x}",
                    i % VRAM_WIDTH,
                    i / VRAM_WIDTH,
                    got & 0x7fff
                );
            }
        }
        if bad > 200 {
            println!("{name} threads={threads}: ... {} more", bad - 200);
        }
        assert_eq!(bad, 0, "{name} threads={threads}: {bad} pixels differ");
        outputs.push(vram);
    }
    assert!(
        outputs.iter().all(|o| *o == outputs[0]),
        "{name}: serial, all cores and the pools differ (mask bits included)"
    );
}

macro_rules! image_tests {
    ($($f:ident => $name:literal),* $(,)?) => {
        $(
            #[test]
            #[cfg_attr(no_shared, ignore = "needs ../shared/hwtests/gpu-images")]
            fn $f() { check($name); }
        )*
    };
}

image_tests! {
    triangle => "triangle",
    quad => "quad",
    transparency => "transparency",
    lines => "lines",
    rectangles => "rectangles",
    texture_overflow => "texture-overflow",
    texture_flip => "texture-flip",
    clut_cache => "clut-cache",
    clipping => "clipping",
    uv_interpolation => "uv-interpolation",
    vram_to_vram_overlap => "vram-to-vram-overlap",
}
