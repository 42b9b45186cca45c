//! `compare A_DIR B_DIR --html OUT/`: the sequence comparison as a static report a CI job can
//! publish — `OUT/index.html` and its pictures, opened from disk with no server and no
//! script: per frame A, B and the difference (`--diff`'s picture), the counts, and the first
//! and worst differing frames named at the top. The pictures are PNGs of the 15-bit values
//! compared (raw VRAM files shown as their 1024×512 picture).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use psxrender::capture::compare::{self, Capture, Options};
use psxrender::capture::pairs::{self, Outcome, Summary};
use psxrender::output::{bgr555_to_rgb, save_png_rgb, write_atomic};

/// Text as HTML (element content and attribute values).
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn save_capture(path: &Path, c: &Capture) -> Result<(), String> {
    let rgb: Vec<u8> = c.pixels.iter().flat_map(|&p| bgr555_to_rgb(p)).collect();
    save_png_rgb(path, c.width, c.height, &rgb).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes the report of the frames in `outcomes` (every frame number of either sequence, in
/// order) into the folder `out`.
pub fn write(
    out: &Path,
    a: (&Path, &BTreeMap<u64, PathBuf>),
    b: (&Path, &BTreeMap<u64, PathBuf>),
    opts: &Options,
    outcomes: &[(u64, Outcome)],
    summary: &Summary,
) -> Result<(), String> {
    let pics = out.join("frames");
    std::fs::create_dir_all(&pics).map_err(|e| format!("cannot make {}: {e}", pics.display()))?;
    let mut rows = String::new();
    for (n, outcome) in outcomes {
        let mut cells = [String::new(), String::new(), String::new()];
        let (ca, cb) = (a.1.get(n), b.1.get(n));
        let load = |p: &PathBuf| Capture::load(p).map_err(|e| e.to_string());
        if let Some(p) = ca {
            let name = format!("a_{n:04}.png");
            save_capture(&pics.join(&name), &load(p)?)?;
            cells[0] = format!("<img src=\"frames/{name}\" alt=\"A frame {n}\">");
        }
        if let Some(p) = cb {
            let name = format!("b_{n:04}.png");
            save_capture(&pics.join(&name), &load(p)?)?;
            cells[1] = format!("<img src=\"frames/{name}\" alt=\"B frame {n}\">");
        }
        let (class, words) = match outcome {
            Outcome::Compared(r) if r.passed() => ("equal", "equal".to_string()),
            Outcome::Compared(_) => {
                let (ca, cb) = (load(ca.expect("compared"))?, load(cb.expect("compared"))?);
                let aligned = compare::align(ca, cb).map_err(|e| e.to_string())?;
                let d = compare::diff_image(&aligned.a, &aligned.b, opts);
                let name = format!("diff_{n:04}.png");
                save_png_rgb(&pics.join(&name), d.width, d.height, &d.rgb)
                    .map_err(|e| e.to_string())?;
                cells[2] = format!("<img src=\"frames/{name}\" alt=\"difference, frame {n}\">");
                let line = pairs::line(*n, outcome).unwrap_or_default();
                ("different", line)
            }
            Outcome::OnlyInA => ("unpaired", "only in A".to_string()),
            Outcome::OnlyInB => ("unpaired", "only in B".to_string()),
        };
        let _ = writeln!(
            rows,
            "<tr id=\"frame-{n}\" class=\"{class}\"><th>{n}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            cells[0],
            cells[1],
            cells[2],
            esc(&words)
        );
    }
    let first = match summary.first_difference {
        Some(n) => format!("first differing frame: <a href=\"#frame-{n}\">{n}</a>"),
        None => "first differing frame: none".to_string(),
    };
    // A paragraph of its own: #first-difference names differing frames only.
    let alone = summary.first_unpaired.map_or(String::new(), |n| {
        format!("<p id=\"first-unpaired\">first frame only one sequence has: <a href=\"#frame-{n}\">{n}</a></p>\n")
    });
    let verdict = if summary.passed() {
        "EQUAL"
    } else {
        "DIFFERENT"
    };
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
<title>psxrender compare: {verdict}</title>\n<style>\n\
body{{font:14px system-ui,sans-serif;background:#16161d;color:#e4e4ee;margin:1em}}\n\
img{{image-rendering:pixelated;max-width:320px;display:block}}\n\
table{{border-collapse:collapse}} td,th{{border-bottom:1px solid #333;padding:.3em;vertical-align:top;text-align:left}}\n\
tr.different th,tr.different td:last-child{{color:#ff6b8b}} tr.unpaired td:last-child{{color:#ffcf6b}}\n\
pre{{background:#0e0e14;padding:.5em}} a{{color:#7fb0ff}}\n</style></head><body>\n\
<h1>{verdict}</h1>\n<p id=\"first-difference\">{first}</p>\n{alone}\
<p>A: <code>{}</code> ({} pictures)<br>B: <code>{}</code> ({} pictures)</p>\n\
<pre id=\"summary\">{}</pre>\n\
<table><thead><tr><th>frame</th><th>A</th><th>B</th><th>difference</th><th></th></tr></thead><tbody>\n{rows}</tbody></table>\n\
<p>Made by <code>psxrender compare --html</code>: pixels compared in 15-bit space; in a difference picture matching pixels are dimmed, differing ones magenta (yellow within the tolerance).</p>\n\
</body></html>\n",
        esc(&a.0.display().to_string()),
        a.1.len(),
        esc(&b.0.display().to_string()),
        b.1.len(),
        esc(&summary.to_string()),
    );
    let index = out.join("index.html");
    write_atomic(&index, html.as_bytes()).map_err(|e| format!("{}: {e}", index.display()))
}
