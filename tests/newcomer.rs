//! What a newcomer's first mistakes get: one clear line naming the option or file, the exit
//! code the README gives, and no output half written.

mod cli_run;
mod common;

use cli_run::{psxrender, tmp};
use common::shared;

#[test]
fn a_negative_frame_is_named_as_such() {
    let out = tmp("newcomer", "neg.png");
    let (code, t) = psxrender([
        "demo".as_ref(),
        out.as_os_str(),
        "--frame".as_ref(),
        "-1".as_ref(),
    ]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("frames count from 0 (the first), not -1"), "{t}");
    assert!(!out.exists());
    // Every command's --frame reads a frame number the same way.
    for command in ["replay", "view"] {
        let (code, t) = psxrender([command, "in.txt", "--frame", "-1"]);
        assert_eq!(code, Some(2), "{command}: {t}");
        assert!(
            t.contains("frames count from 0 (the first), not -1"),
            "{command}: {t}"
        );
    }
}

#[test]
fn the_last_frame_number_is_not_called_an_empty_range() {
    let out = tmp("newcomer", "last.png");
    for command in ["demo", "replay"] {
        let (code, t) = psxrender([
            command.as_ref(),
            out.as_os_str(),
            "--frames".as_ref(),
            "4294967295..=4294967295".as_ref(),
        ]);
        assert_eq!(code, Some(2), "{command}: {t}");
        assert!(
            t.contains("a range reaches frame 4294967294 at most") && !t.contains("empty range"),
            "{command}: {t}"
        );
    }
    assert!(!out.exists());
}

#[test]
fn no_arguments_lists_only_the_commands_a_user_types() {
    let (code, t) = psxrender(std::iter::empty::<&str>());
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("  batch "), "{t}");
    assert!(!t.contains("batch-job"), "{t}");
}

#[test]
fn view_without_a_model_offers_the_demo() {
    let (code, t) = psxrender(["view"]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("<MODEL|--demo>"), "{t}");
}

#[test]
fn texture_checks_every_output_before_writing_any() {
    use psxrender::formats::tim::{Tim, TimDepth};
    use psxrender::scene::VramImage;
    let tim = tmp("newcomer", "white.tim");
    let white = Tim {
        depth: TimDepth::Bpp15,
        clut: None,
        image: VramImage {
            x: 640,
            y: 0,
            width: 4,
            height: 4,
            data: vec![0x7fff; 16],
        },
    };
    std::fs::write(&tim, white.write()).unwrap();
    let png = tmp("newcomer", "white-side.png");
    let _ = std::fs::remove_file(&png);
    let bad_tim = "/nonexistent-dir/x.tim";
    let args = [
        "texture".as_ref(),
        tim.as_os_str(),
        png.as_os_str(),
        "--tim".as_ref(),
        bad_tim.as_ref(),
    ];
    let (code, t) = psxrender(args);
    assert_eq!(code, Some(3), "{t}");
    assert!(
        t.contains(bad_tim) && t.contains("(nothing was written)"),
        "{t}"
    );
    assert!(
        !png.exists(),
        "texture wrote {} before failing",
        png.display()
    );
    // Written, each is reported.
    let (code, t) = psxrender(["texture".as_ref(), tim.as_os_str(), png.as_os_str()]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains(&format!("wrote {}", png.display())), "{t}");
}

#[test]
fn replay_checks_every_output_and_names_its_input_in_a_frame_error() {
    let stream = tmp("newcomer", "one-frame.txt");
    std::fs::write(&stream, "gp0 02000000\ngp0 00000000\ngp0 00010001\nframe\n").unwrap();
    let display = tmp("newcomer", "one-frame-display.png");
    let _ = std::fs::remove_file(&display);
    let (code, t) = psxrender([
        "replay".as_ref(),
        stream.as_os_str(),
        "--display".as_ref(),
        display.as_os_str(),
        "--vram-raw".as_ref(),
        "/nonexistent-dir/v.bin".as_ref(),
    ]);
    assert_eq!(code, Some(3), "{t}");
    assert!(
        !display.exists(),
        "replay wrote {} before failing",
        display.display()
    );
    let (code, t) = psxrender([
        "replay".as_ref(),
        stream.as_os_str(),
        "--frame".as_ref(),
        "5".as_ref(),
    ]);
    assert_eq!(code, Some(2), "{t}");
    let named = format!(
        "{}: frame 5 asked for, but the input has 1 frame mark (",
        stream.display()
    );
    assert!(t.contains(&named), "{t}");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/m2")]
fn model_options_and_files_the_user_names_are_never_silently_dropped() {
    let rabbit = shared("samples/m2/Rabbit2.m2");
    let out = tmp("newcomer", "rabbit.png");
    // An option for another format: a warning naming it, and the render goes on.
    let (code, t) = psxrender([
        rabbit.as_os_str(),
        out.as_os_str(),
        "--ff9-kind".as_ref(),
        "field".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{t}");
    assert!(
        t.contains("warning: --ff9-kind is for FF9 models; this is an M2 model, so it is ignored"),
        "{t}"
    );
    // A texture file the user names that is not there: an error naming it, nothing written.
    let _ = std::fs::remove_file(&out);
    let missing = tmp("newcomer", "no-such-skin.blp");
    let given = format!("11={}", missing.display());
    let (code, t) = psxrender([
        rabbit.as_os_str(),
        out.as_os_str(),
        "--texture".as_ref(),
        given.as_ref(),
    ]);
    assert_eq!(code, Some(2), "{t}");
    assert!(
        t.contains(&format!("{}: cannot read BLP2 file", missing.display())),
        "{t}"
    );
    assert!(!out.exists());
    // Whole-file refusals carry no byte offset: there is no byte to point at.
    let (code, t) = psxrender(["texture".as_ref(), rabbit.as_os_str(), out.as_os_str()]);
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("this is an M2 model, not an image"), "{t}");
    let (code, t) = psxrender([
        rabbit.as_os_str(),
        out.as_os_str(),
        "--skin".as_ref(),
        "timber".as_ref(),
    ]);
    assert_eq!(code, Some(2), "{t}");
    assert!(
        t.contains("--skin timber: no such skin; the skins found are 0: rabbitskin2_default.blp"),
        "{t}"
    );
    assert!(!t.contains("at byte"), "{t}");
}

#[test]
fn an_output_that_is_the_input_is_not_written_over() {
    let model = tmp("newcomer", "demo-self.ff9");
    let bytes = psxrender::formats::ff9::demo_character();
    std::fs::write(&model, &bytes).unwrap();
    // Through another spelling of the same path, too.
    let again = model.parent().unwrap().join(".").join("demo-self.ff9");
    let (code, t) = psxrender([model.as_os_str(), again.as_os_str()]);
    assert_eq!(code, Some(3), "{t}");
    assert!(
        t.contains("is the input") && t.contains("(nothing was written)"),
        "{t}"
    );
    assert_eq!(
        std::fs::read(&model).unwrap(),
        bytes,
        "the model was written over"
    );
    let (code, t) = psxrender([
        "replay".as_ref(),
        model.as_os_str(),
        "--dump".as_ref(),
        model.as_os_str(),
    ]);
    assert_eq!(code, Some(3), "{t}");
    assert_eq!(
        std::fs::read(&model).unwrap(),
        bytes,
        "replay wrote over its input"
    );
}

#[test]
fn a_flood_of_warnings_shows_the_first_hundred_and_a_count() {
    // 150 meshes, each naming a texture that is not there: 150 warnings.
    let mut text =
        String::from("newmodel w\nbeginmodelgeom w\nnode dummy w\n  parent NULL\nendnode\n");
    for i in 0..150 {
        text.push_str(&format!(
            "node trimesh m{i}\n  parent w\n  bitmap missing{i}\n  verts 3\n    0 0 0\n    1 0 0\n    0 1 0\n\
             tverts 1\n    0 0 0\n  faces 1\n    0 1 2 1 0 0 0 1\nendnode\n"
        ));
    }
    text.push_str("endmodelgeom w\ndonemodel w\n");
    let model = tmp("newcomer", "missing-textures.mdl");
    std::fs::write(&model, text).unwrap();
    let out = tmp("newcomer", "missing-textures.png");
    let (code, t) = psxrender([model.as_os_str(), out.as_os_str()]);
    assert_eq!(code, Some(0), "{t}");
    let shown = t
        .lines()
        .filter(|l| l.starts_with("warning: texture 'missing"))
        .count();
    assert_eq!(shown, 100, "{t}");
    assert!(
        t.contains("warning: … and 50 more warnings, not shown"),
        "{t}"
    );
}

#[test]
fn a_decoder_refusal_claims_no_byte_offset_it_does_not_know() {
    // A TGA whose colour map (65535 entries of 24 bits) runs far past its 34 bytes.
    let mut tga = vec![0u8; 34];
    tga[1] = 1; // colour-mapped
    tga[2] = 1;
    tga[5..7].copy_from_slice(&65535u16.to_le_bytes());
    tga[7] = 24;
    tga[12..14].copy_from_slice(&4u16.to_le_bytes());
    tga[14..16].copy_from_slice(&4u16.to_le_bytes());
    tga[16] = 8;
    let path = tmp("newcomer", "cmap.tga");
    std::fs::write(&path, &tga).unwrap();
    let out = tmp("newcomer", "cmap-side.png");
    let (code, t) = psxrender(["texture".as_ref(), path.as_os_str(), out.as_os_str()]);
    assert_eq!(code, Some(2), "{t}");
    assert!(
        t.contains("colour map of 65535 entries (196605 bytes from byte 0x12) runs past the end of the 34-byte file"),
        "{t}"
    );
    // A PNG cut short: the decoder says what, not where.
    let png = tmp("newcomer", "cut.png");
    psxrender::output::save_png_rgb(&png, 64, 64, &[7u8; 64 * 64 * 3]).unwrap();
    let bytes = std::fs::read(&png).unwrap();
    std::fs::write(&png, &bytes[..bytes.len() - 20]).unwrap();
    let (code, t) = psxrender(["texture".as_ref(), png.as_os_str(), out.as_os_str()]);
    assert_eq!(code, Some(2), "{t}");
    assert!(
        t.contains("PNG cannot be decoded: ") && !t.contains("at byte"),
        "{t}"
    );
}

#[test]
fn a_sheet_render_gives_its_skin_note_once_and_says_what_it_wrote() {
    let rabbit = shared("samples/m2/Rabbit2.m2");
    let out = tmp("newcomer", "rabbit-sheet.png");
    let (code, t) = psxrender([
        rabbit.as_os_str(),
        out.as_os_str(),
        "--sheet".as_ref(),
        "auto".as_ref(),
        "--frames".as_ref(),
        "0..4".as_ref(),
        "--yaw-steps".as_ref(),
        "2".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{t}");
    assert_eq!(
        t.matches("skin 0 of 1 found beside the model").count(),
        1,
        "{t}"
    );
    assert_eq!(t.matches("note:").count(), 1, "{t}");
    assert!(t.contains("wrote "), "{t}");
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(out.with_extension("json"));
}
