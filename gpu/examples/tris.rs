//! The `benches/gpu.rs` triangle workload for instruction counting (`valgrind --tool=callgrind
//! target/release/examples/tris [threads] [frames]`, `TRIS_DITHER=1` to dither): frames of 4000 random textured gouraud triangles.

use gpu::rng::XorShift as Rng;
use gpu::Gpu;

#[path = "../../benches/common/gpu_workload.rs"]
mod workload;
use workload::{setup_words, triangles};

fn main() {
    let threads = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let mut rng = Rng::new(0x1234_5678_9abc_def1);
    let setup = setup_words(&mut rng);
    let (tris, area) = triangles(&mut rng, 4000);
    let mut gpu = Gpu::new();
    gpu.set_threads(threads);
    gpu.gp0_words(&setup);
    if std::env::var_os("TRIS_DITHER").is_some() {
        gpu.gp0_words(&[0xe100_0200]);
    }
    let frames: usize = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    for _ in 0..frames {
        gpu.gp0_words(&tris);
        gpu.vram();
    }
    let sum = gpu
        .vram()
        .iter()
        .fold(0u64, |s, &p| s.wrapping_mul(31).wrapping_add(p as u64));
    println!("area {area} px, vram hash {sum:016x}");
}
