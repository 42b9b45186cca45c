//! Tells the tests what the machine lacks, so a test that cannot run shows as "ignored (needs
//! …)" instead of passing without testing anything:
//!
//! - `cfg(no_shared)`: `../shared` (hardware-test data and game samples, beside the checkout;
//!   `PSXRENDER_SHARED` overrides the place) is missing. With `CI=true` that fails the build
//!   instead: CI must run every test.
//! - `cfg(no_pcsxredux_vectors)`: the optional `hwtests/gte/pcsxredux.txt` is not in it.
//! - `cfg(no_xvfb)`: `xvfb-run`, `xwd` or `xdotool` is not on `PATH`, which the preview window's
//!   tests need (looked up when this script runs; `PATH` is not watched, since it differs between
//!   shells and editors and each change would rebuild the crate: after installing them,
//!   `touch build.rs`). With `CI=true` it is never set: those tests run, and fail without them.
//! - `cfg(no_browser)`: no `node` on `PATH`, no `/usr/bin/chromium`, or no
//!   `tests/browser/node_modules/playwright-core` for the browser tests of `psxrender serve`
//!   (`.ci/run` installs all three; with `CI=true` it is never set, and the test fails if they
//!   are missing).
//!
//! The tests find the data through `env!("PSXRENDER_SHARED_DIR")`, set here, so the build and
//! the tests agree on one directory.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rustc-check-cfg=cfg(no_shared)");
    println!("cargo::rustc-check-cfg=cfg(no_pcsxredux_vectors)");
    println!("cargo::rustc-check-cfg=cfg(no_xvfb)");
    println!("cargo::rustc-check-cfg=cfg(no_browser)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=PSXRENDER_SHARED");
    println!("cargo::rerun-if-env-changed=CI");

    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let shared = match std::env::var_os("PSXRENDER_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => manifest.join("../shared"),
    };
    println!("cargo::rustc-env=PSXRENDER_SHARED_DIR={}", shared.display());
    if shared.is_dir() {
        // Removing it later must re-run this script (a present directory is watched for
        // changes; a missing path would make cargo re-run the script, and rebuild the crate, on
        // every build, so it is only watched while it exists).
        println!("cargo::rerun-if-changed={}", shared.display());
    } else {
        if std::env::var("CI").as_deref() == Ok("true") {
            eprintln!(
                "{} is missing and CI=true: the tests that need it would not run",
                shared.display()
            );
            std::process::exit(1);
        }
        println!("cargo::rustc-cfg=no_shared");
        println!(
            "cargo::warning={} not found: tests that need it are ignored (after adding it, \
             `touch build.rs` so they run)",
            shared.display()
        );
    }

    if !shared.join("hwtests/gte/pcsxredux.txt").is_file() {
        println!("cargo::rustc-cfg=no_pcsxredux_vectors");
    }
    let ci = std::env::var("CI").as_deref() == Ok("true");
    if !ci && !["xvfb-run", "xwd", "xdotool"].into_iter().all(on_path) {
        println!("cargo::rustc-cfg=no_xvfb");
    }
    let browser = on_path("node")
        && Path::new("/usr/bin/chromium").is_file()
        && manifest
            .join("tests/browser/node_modules/playwright-core")
            .is_dir();
    if !ci && !browser {
        println!("cargo::rustc-cfg=no_browser");
    }
}

/// Whether an executable named `name` is in one of `PATH`'s directories.
fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|d| Path::new(&d).join(name).is_file())
    })
}
