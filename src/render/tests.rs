//! The renderer's unit tests: UVs, framebuffer placement, display sizes.

use super::display::place_framebuffer;
use super::faces::image_uvs;
use super::*;
use crate::scene::{PosedMesh, VramImage};

#[test]
fn uvs_shift_by_whole_repeats() {
    let uv = [[1.25, -0.5], [1.75, 0.0], [2.0, 0.5], [0.0; 2]];
    let t = image_uvs(&uv, 3, [64, 128]);
    assert_eq!(t[0], [16, 64]);
    assert_eq!(t[1], [48, 128]);
    assert_eq!(t[2], [63, 192]);
    let t = image_uvs(
        &[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
        4,
        [256, 64],
    );
    assert_eq!(t, [[0, 0], [255, 0], [0, 63], [255, 63]]);
}

#[test]
fn framebuffer_avoids_model_images() {
    let img = VramImage {
        x: 0,
        y: 0,
        width: 64,
        height: 64,
        data: vec![0; 64 * 64],
    };
    let r = place_framebuffer(320, 240, &[img]).unwrap();
    assert_eq!((r.x, r.y), (0, 272));
}

#[test]
fn sizes_must_be_ps1_modes() {
    struct Empty;
    impl Model for Empty {
        fn format(&self) -> &'static str {
            "test"
        }
        fn animations(&self) -> Vec<crate::scene::AnimationInfo> {
            Vec::new()
        }
        fn pose(&self, _: &PoseRequest) -> PosedMesh {
            PosedMesh::default()
        }
        fn info(&self) -> String {
            String::new()
        }
        fn facts(&self) -> serde_json::Value {
            serde_json::json!({ "format": "test" })
        }
        fn warnings(&self) -> Vec<String> {
            Vec::new()
        }
    }
    let opts = RenderOptions {
        width: 300,
        ..RenderOptions::default()
    };
    assert!(matches!(
        Renderer::new(&Empty, &opts),
        Err(RenderError::BadSize { .. })
    ));
}
