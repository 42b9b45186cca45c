//! Hand-made pixel grids: tiny primitives drawn into black VRAM, compared with ASCII pictures
//! (`#` = drawn, `.` = untouched) so a fill-rule change shows exactly which pixel moved.

use gpu::Gpu;

/// Draws `words` serially, on all cores and on a pool of 3 threads, checks all agree, and
/// returns the top-left `w`×`h` corner as a picture.
fn draw(words: &[u32], w: usize, h: usize) -> Vec<String> {
    let mut pictures = Vec::new();
    for threads in [1, 0, 3] {
        let mut gpu = Gpu::new();
        gpu.set_threads(threads);
        gpu.gp0_words(&[0xe300_0000, 0xe407_ffff, 0xe500_0000, 0xe100_0000]);
        gpu.gp0_words(words);
        let vram = gpu.vram();
        let pic: Vec<String> = (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| if vram[y * 1024 + x] != 0 { '#' } else { '.' })
                    .collect()
            })
            .collect();
        pictures.push(pic);
    }
    assert_eq!(pictures[0], pictures[1], "all cores differ from serial");
    assert_eq!(pictures[0], pictures[2], "a pool of 3 differs from serial");
    pictures.remove(0)
}

fn check(words: &[u32], expected: &[&str]) {
    let got = draw(words, expected[0].len(), expected.len());
    let mut bad = Vec::new();
    for (y, (g, e)) in got.iter().zip(expected).enumerate() {
        for (x, (gc, ec)) in g.chars().zip(e.chars()).enumerate() {
            if gc != ec {
                bad.push(format!("({x}, {y}) expected {ec} got {gc}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{}\ngot:\n{}",
        bad.join("\n"),
        got.join("\n")
    );
}

const WHITE: u32 = 0x00ff_ffff;

fn xy(x: i32, y: i32) -> u32 {
    ((y as u32 & 0xffff) << 16) | (x as u32 & 0xffff)
}

#[test]
fn right_triangle_excludes_right_and_bottom_edges() {
    check(
        &[0x2000_0000 | WHITE, xy(0, 0), xy(4, 0), xy(0, 4)],
        &["####..", "###...", "##....", "#.....", "......"],
    );
}

#[test]
fn quad_splits_without_gaps_or_overlap() {
    check(
        &[0x2800_0000 | WHITE, xy(1, 1), xy(5, 1), xy(1, 4), xy(5, 4)],
        &["......", ".####.", ".####.", ".####.", "......"],
    );
}

#[test]
fn degenerate_triangle_draws_nothing() {
    check(
        &[0x2000_0000 | WHITE, xy(0, 0), xy(2, 2), xy(4, 4)],
        &[".....", ".....", ".....", ".....", "....."],
    );
}

#[test]
fn line_draws_both_end_points() {
    // Minor-axis ties (Y = 1.0 at x = 1, 2.0 at x = 3) round up, as phase 2 shows.
    check(
        &[0x4000_0000 | WHITE, xy(0, 0), xy(4, 2)],
        &["#....", ".##..", "...##", "....."],
    );
}

#[test]
fn polyline_stops_at_terminator() {
    check(
        &[
            0x4800_0000 | WHITE,
            xy(0, 0),
            xy(3, 0),
            xy(3, 2),
            0x5555_5555,
            // After the terminator this is a new, 1-word command (a no-op).
            xy(0, 3),
        ],
        &["####.", "...#.", "...#.", "....."],
    );
}

#[test]
fn rectangle_clipped_by_drawing_area() {
    check(
        &[
            0xe300_0000 | (1 << 10) | 1,
            0xe400_0000 | (3 << 10) | 4,
            0x6000_0000 | WHITE,
            xy(0, 0),
            xy(6, 6),
        ],
        &["......", ".####.", ".####.", ".####.", "......"],
    );
}

#[test]
fn fill_rounds_x_down_and_width_up_to_16() {
    let mut gpu = Gpu::new();
    gpu.gp0_words(&[0x0200_00ff, xy(20, 1), xy(1, 1)]);
    let v = gpu.vram();
    let row: Vec<bool> = (0..40).map(|x| v[1024 + x] != 0).collect();
    assert!(row[16..32].iter().all(|&d| d), "{row:?}");
    assert!(!row[15] && !row[32], "{row:?}");
    assert_eq!(v[1024 + 16], 0x001f);
}

#[test]
fn drawing_offset_moves_vertices() {
    check(
        &[0xe500_0000 | (1 << 11) | 2, 0x6800_0000 | WHITE, xy(0, 0)],
        &["....", "..#.", "...."],
    );
}
