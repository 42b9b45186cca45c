//! The same pixels on every platform (issue 66): every transcendental function on the way to
//! pixels comes from `src/math.rs` (the `libm` crate), never from the platform's maths library
//! through `f32::sin` and friends, whose last bit differs between glibc, macOS and Windows.
//! `math.rs`'s own unit test pins the values; this one keeps the calls in that one place.

use std::path::{Path, PathBuf};

/// Methods of `f32`/`f64` that call the platform's maths library (square roots and `powi` do
/// not: IEEE 754 rounds `sqrt` exactly, `powi` is multiplication).
const PLATFORM: [&str; 22] = [
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sin_cos", "sinh", "cosh", "tanh",
    "asinh", "acosh", "atanh", "exp", "exp2", "exp_m1", "ln", "ln_1p", "log2", "log10", "powf",
];

/// Files allowed a platform call, with why it draws no pixel.
const ALLOWED: [(&str, &str); 1] = [(
    "src/capture/compare.rs",
    "the PSNR compare prints is a figure of merit, not a pixel",
)];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "tests") {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs")
            && p.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(p);
        }
    }
}

/// The calls of a platform function in `text` before its unit tests, as `line: text`.
fn platform_calls(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        for f in PLATFORM {
            let dotted = format!(".{f}(");
            let pathed = [format!("f32::{f}("), format!("f64::{f}(")];
            if code.contains(&dotted) || pathed.iter().any(|p| code.contains(p.as_str())) {
                found.push(format!("{}: {}", n + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn transcendentals_on_the_way_to_pixels_come_from_math_rs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "gpu/src", "gte/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 50, "{} files", files.len());
    let mut wrong = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "src/math.rs" || ALLOWED.iter().any(|(a, _)| *a == rel) {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        wrong.extend(
            platform_calls(&text)
                .into_iter()
                .map(|c| format!("{rel}:{c}")),
        );
    }
    assert!(
        wrong.is_empty(),
        "platform maths on the way to pixels (use psxrender::math):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_scan_sees_each_spelling() {
    let text = "let a = x.sin();\nlet b = f64::powf(x, y);\n// y.cos() in a comment\n\
                let c = x.sqrt();\n#[cfg(test)]\nmod tests { fn t() { x.tan(); } }\n";
    assert_eq!(
        platform_calls(text),
        ["1: let a = x.sin();", "2: let b = f64::powf(x, y);"]
    );
}
