//! Writes the small-triangle stream of `benches/common/gpu_workload.rs` (100,000 random textured
//! gouraud triangles, ~70 px each) as a text stream and a GPUDUMP, so the same words can be
//! replayed here (`psxrender replay FILE --repeat 10`) and in an emulator's GPU.
//!
//! `cargo run --release --example small_tris -- small_tris.txt small_tris.psxgpu [COUNT]`

use gpu::XorShift as Rng;
use psxrender::capture::dump::{VSyncTime, Writer};
use psxrender::output::write_atomic;

#[path = "../benches/common/gpu_workload.rs"]
#[allow(dead_code)]
mod workload;

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(text), Some(dump)) = (args.first(), args.get(1)) else {
        eprintln!("usage: small_tris OUT.txt OUT.psxgpu [COUNT]");
        return std::process::ExitCode::from(2);
    };
    let count = args.get(2).and_then(|c| c.parse().ok()).unwrap_or(100_000);
    let (words, area) = workload::small_triangles(&mut Rng::new(0x5a11_7415), count);
    let mut t = format!("# {count} small textured gouraud triangles, {area} px\ngp1 00000000\n");
    let mut w = Writer::new();
    w.gp1(0);
    for &x in &words {
        t.push_str(&format!("gp0 {x:08x}\n"));
    }
    w.gp0_words(&words);
    w.vsync(VSyncTime::None);
    for (path, bytes) in [(text, t.into_bytes()), (dump, w.finish())] {
        if let Err(e) = write_atomic(std::path::Path::new(path), &bytes) {
            eprintln!("error: {path}: {e}");
            return std::process::ExitCode::from(3);
        }
    }
    println!("{count} triangles, {} words, {area} px", words.len());
    std::process::ExitCode::SUCCESS
}
