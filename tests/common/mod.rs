//! Helpers shared by the integration tests: finding `../shared`, exact golden images, and the
//! frame delays of a GIF.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/<sub>` beside the checkout (or under `PSXRENDER_SHARED`). A test that calls this
/// carries `#[cfg_attr(no_shared, ignore = "needs ../shared/…")]`: `build.rs` sets `no_shared`
/// when the directory is missing (and fails the build then if `CI=true`), so such a test shows
/// as ignored rather than passing untested. A missing file inside a present `../shared` fails.
pub fn shared(sub: &str) -> PathBuf {
    let p = Path::new(env!("PSXRENDER_SHARED_DIR")).join(sub);
    assert!(
        p.exists(),
        "{} is missing (the rest of ../shared is there)",
        p.display()
    );
    p
}

/// Compares an RGB8 image with `tests/golden/<name>.png`, exactly. On a mismatch writes
/// `target/golden-out/<name>.{actual,diff}.png` and fails. With `PSXRENDER_BLESS=1` writes the
/// golden instead (look at it first!).
pub fn assert_golden(name: &str, width: u32, height: u32, rgb: &[u8]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let golden = root.join("tests/golden").join(format!("{name}.png"));
    if std::env::var("PSXRENDER_BLESS").as_deref() == Ok("1") {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        psxrender::output::save_png_rgb(&golden, width, height, rgb).unwrap();
        eprintln!("blessed {}", golden.display());
        return;
    }
    let expected = match image::open(&golden) {
        Ok(img) => img.to_rgb8(),
        Err(e) => panic!(
            "golden {} unreadable ({e}); render it, look at it, then bless with PSXRENDER_BLESS=1",
            golden.display()
        ),
    };
    let out = root.join("target/golden-out");
    let same_size = expected.width() == width && expected.height() == height;
    if same_size && expected.as_raw() == rgb {
        return;
    }
    std::fs::create_dir_all(&out).unwrap();
    let actual_path = out.join(format!("{name}.actual.png"));
    psxrender::output::save_png_rgb(&actual_path, width, height, rgb).unwrap();
    if same_size {
        let mut diff = Vec::with_capacity(rgb.len());
        let mut count = 0;
        for (a, e) in rgb.chunks(3).zip(expected.as_raw().chunks(3)) {
            if a == e {
                diff.extend(a.iter().map(|c| c / 4));
            } else {
                count += 1;
                diff.extend([255, 0, 255]);
            }
        }
        psxrender::output::save_png_rgb(
            &out.join(format!("{name}.diff.png")),
            width,
            height,
            &diff,
        )
        .unwrap();
        panic!(
            "{name}: {count} pixels differ from the golden; see {}",
            out.display()
        );
    }
    panic!(
        "{name}: size {width}x{height} but golden is {}x{}; see {}",
        expected.width(),
        expected.height(),
        actual_path.display()
    );
}

/// The delay of each frame of the GIF at `path`, in whole milliseconds.
pub fn gif_delays_ms(path: &Path) -> Vec<u32> {
    let file = std::fs::File::open(path).unwrap();
    let g = image::codecs::gif::GifDecoder::new(std::io::BufReader::new(file)).unwrap();
    let frames = image::AnimationDecoder::into_frames(g).collect_frames();
    (frames.unwrap().iter())
        .map(|f| {
            let (n, d) = f.delay().numer_denom_ms();
            n / d
        })
        .collect()
}
