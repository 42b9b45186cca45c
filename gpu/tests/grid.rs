//! Hand-made pixel grids: tiny primitives drawn into black VRAM, compared with ASCII pictures
//! (`#` = drawn, `.` = untouched; or a pixel's red component as one base-32 digit) so a rule
//! change shows exactly which pixel moved.

use gpu::Gpu;

/// Draws `words` serially, on all cores and on 3 threads, checks all agree, and
/// returns the top-left `w`×`h` corner as a picture (`#` drawn, `.` not).
fn draw(words: &[u32], w: usize, h: usize) -> Vec<String> {
    picture(words, w, h, |p| if p != 0 { '#' } else { '.' })
}

/// Like [`draw`], with each drawn pixel's 5-bit red as a base-32 digit (`0`–`9`, `a`–`v`).
fn draw_red(words: &[u32], w: usize, h: usize) -> Vec<String> {
    picture(words, w, h, |p| match p {
        0 => '.',
        _ => char::from_digit((p & 31) as u32, 32).unwrap_or('?'),
    })
}

fn picture(words: &[u32], w: usize, h: usize, pixel: impl Fn(u16) -> char) -> Vec<String> {
    let mut pictures = Vec::new();
    for threads in [1, 0, 3] {
        let mut gpu = Gpu::new();
        gpu.set_threads(gpu::Threads::from_count(threads));
        gpu.set_parallel_min_load(0);
        gpu.gp0_words(&[0xe300_0000, 0xe407_ffff, 0xe500_0000, 0xe100_0000]);
        gpu.gp0_words(words);
        let vram = gpu.vram();
        let pic: Vec<String> = (0..h)
            .map(|y| (0..w).map(|x| pixel(vram[y * 1024 + x])).collect())
            .collect();
        pictures.push(pic);
    }
    assert_eq!(pictures[0], pictures[1], "all cores differ from serial");
    assert_eq!(pictures[0], pictures[2], "3 threads differ from serial");
    pictures.remove(0)
}

fn check(words: &[u32], expected: &[&str]) {
    compare(draw(words, expected[0].len(), expected.len()), expected);
}

fn check_red(words: &[u32], expected: &[&str]) {
    compare(draw_red(words, expected[0].len(), expected.len()), expected);
}

fn compare(got: Vec<String>, expected: &[&str]) {
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

/// A line rising by exactly half a row per step lands on the row toward its end point at each
/// tie, as a falling one does: the walk starts just above Y's pixel centre when Y steps up.
/// Source: the emulator reference (its random streams' polylines); the hardware captures pass
/// either way.
#[test]
fn a_lines_y_ties_round_toward_its_end_point() {
    let rising = [0x4000_0000 | WHITE, xy(0, 2), xy(4, 0)];
    check(&rising, &["...##", ".##..", "#....", "....."]);
    let falling = [0x4000_0000 | WHITE, xy(0, 0), xy(4, 2)];
    check(&falling, &["#....", ".##..", "...##", "....."]);
}

/// A vertical line is walked from its top end, whichever end the command gives first: gouraud
/// red 25 at (0, 6) to 0 at (0, 0), dithered, steps down from 0 by 25/6 (truncated), so row 3
/// holds 12 (+3 dither: 5-bit 1), where walking up from 25 gives 13 (5-bit 2).
/// Source: the emulator reference (all-1204, pixel (129, 125)); the hardware captures pass
/// either way.
#[test]
fn a_vertical_line_is_walked_top_down() {
    let words = [0xe100_0200, 0x5000_0000 | 25, xy(0, 6), 0, xy(0, 0)];
    // Red 0 is black: drawn pixels of red 0 read as '.'.
    check_red(&words, &[".", ".", ".", "1", "1", "2", "2"]);
}

/// Attributes are evaluated from the leftmost vertex; when v0 and v1 tie, from v1. Gouraud red
/// 145 at (0, 0), 18 at (0, 3), 111 at (4, 0): from v1, pixel (3, 0) is 5-bit red 14 (from v0, 15).
#[test]
fn core_vertex_tie_of_v0_and_v1_goes_to_v1() {
    let words = [0x3000_0000 | 145, xy(0, 0), 18, xy(0, 3), 111, xy(4, 0)];
    check_red(&words, &["ihge.", "cba..", "76...", "....."]);
}

/// When v0 is left of v1 and v2 ties with v0, the attributes are evaluated from v0 even though
/// v2 is above it. Gouraud red 70 at (0, 5), 140 at (4, 2), 102 at (0, 0): from v0, pixel
/// (1, 3) is 5-bit red 11 (from v2, 12).
#[test]
fn core_vertex_tie_of_v0_and_v2_stays_with_v0() {
    let words = [0x3000_0000 | 70, xy(0, 5), 140, xy(4, 2), 102, xy(0, 0)];
    check_red(
        &words,
        &[".....", "cd...", "bcef.", "abd..", "9b...", "....."],
    );
}

/// Pixel coordinates are 11-bit: a triangle whose vertices plus the drawing offset lie below
/// -1024 is drawn 2048 to the right (here at the origin), as the emulator reference draws it.
#[test]
fn a_triangle_below_minus_1024_wraps_to_the_right() {
    check(
        &[
            0xe500_0400, // X offset -1024
            0x2000_0000 | WHITE,
            xy(-1024, 0),
            xy(-1020, 0),
            xy(-1024, 4),
        ],
        &["####..", "###...", "##....", "#.....", "......"],
    );
}

/// Whether a triangle is too wide to draw is decided before wrapping: vertices at 1012 and
/// -1030 (1018 once wrapped) are 2042 columns apart, so nothing is drawn, as in the emulator
/// reference.
#[test]
fn a_triangle_1024_wide_only_before_wrapping_is_not_drawn() {
    let mut gpu = Gpu::new();
    gpu.gp0_words(&[0xe300_0000, 0xe407_ffff, 0xe500_0000 | (2048 - 10)]);
    gpu.gp0_words(&[0x2000_0000 | WHITE, xy(1022, 0), xy(-1020, 1), xy(1022, 8)]);
    assert!(gpu.vram().iter().all(|&p| p == 0));
}
