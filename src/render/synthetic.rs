//! The renderer's own synthetic model: a small textured, lit, animated robot built from boxes and
//! a latitude/longitude sphere head. It exercises every path (quads and triangles, two textures,
//! a two-sided semi-transparent part, flat and smooth normals, an animation) without any game
//! file, and its `detail` knob sets the polygon count for benchmarks.

use std::f32::consts::{PI, TAU};

use crate::math;
use crate::scene::{
    AnimationInfo, Blend, Face, FaceTexture, Model, PoseRequest, PosedMesh, RgbaImage, Shading,
    Texture, Vertex,
};

/// The robot. `detail` is the head's longitude segment count (latitude = half).
#[derive(Clone, Debug)]
pub struct Robot {
    detail: u32,
}

/// One walk cycle, frames at 30 fps.
pub const WALK_FRAMES: u32 = 30;

impl Robot {
    /// A robot with a head of `detail` (clamped 6–128) segments around.
    pub fn new(detail: u32) -> Robot {
        Robot {
            detail: detail.clamp(6, 128),
        }
    }

    /// Polygons drawn (before culling).
    pub fn polygon_count(&self) -> usize {
        let d = self.detail as usize;
        6 * 6 + d * (d / 2) + 1
    }
}

impl Default for Robot {
    fn default() -> Self {
        Robot::new(16)
    }
}

fn checker() -> RgbaImage {
    let mut pixels = Vec::with_capacity(64 * 64);
    for y in 0..64u32 {
        for x in 0..64u32 {
            let c = if (x / 8 + y / 8) % 2 == 0 {
                [200, 60, 40, 255]
            } else {
                [230, 200, 80, 255]
            };
            // A dark border so box edges read.
            let edge = x < 2 || y < 2 || x > 61 || y > 61;
            pixels.push(if edge { [40, 30, 30, 255] } else { c });
        }
    }
    RgbaImage {
        width: 64,
        height: 64,
        pixels,
    }
}

fn face_texture() -> RgbaImage {
    let (w, h) = (128u32, 64u32);
    let mut pixels = Vec::with_capacity((w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            // u = 0.5 faces +Z (the front): eyes at u ≈ 0.45/0.55, v ≈ 0.4; a mouth at v ≈ 0.65.
            let (u, v) = (x as f32 / w as f32, y as f32 / h as f32);
            let eye = |cu: f32| ((u - cu) * 4.0).powi(2) + (v - 0.42).powi(2) < 0.004;
            let mouth = (u - 0.5).abs() < 0.06 && (v - 0.66).abs() < 0.03;
            let stripe = ((u * 16.0) as u32).is_multiple_of(2);
            pixels.push(if eye(0.45) || eye(0.55) {
                [20, 20, 90, 255]
            } else if mouth {
                [120, 10, 10, 255]
            } else if stripe {
                [170, 190, 200, 255]
            } else {
                [150, 170, 185, 255]
            });
        }
    }
    RgbaImage {
        width: w,
        height: h,
        pixels,
    }
}

fn glow() -> RgbaImage {
    let mut pixels = Vec::with_capacity(32 * 32);
    for y in 0..32 {
        for x in 0..32 {
            let d =
                (((x as f32 - 15.5).powi(2) + (y as f32 - 15.5).powi(2)).sqrt() / 16.0).min(1.0);
            let a = ((1.0 - d) * 255.0) as u8;
            pixels.push([90, 200, 255, a]);
        }
    }
    RgbaImage {
        width: 32,
        height: 32,
        pixels,
    }
}

struct Builder {
    mesh: PosedMesh,
}

type Xf = dyn Fn([f32; 3]) -> [f32; 3];

impl Builder {
    fn vertex(&mut self, p: [f32; 3], n: [f32; 3]) -> u32 {
        self.mesh.vertices.push(Vertex {
            position: p,
            normal: n,
        });
        (self.mesh.vertices.len() - 1) as u32
    }

    /// An axis-aligned box `centre ± half`, each side a flat-shaded textured quad, through `xf`
    /// (a rotation about a pivot; normals get the same rotation minus the translation).
    fn cuboid(&mut self, centre: [f32; 3], half: [f32; 3], xf: &Xf, texture: usize) {
        let axes: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
            ([0., 0., 1.], [1., 0., 0.], [0., 1., 0.]),
            ([0., 0., -1.], [-1., 0., 0.], [0., 1., 0.]),
            ([1., 0., 0.], [0., 0., -1.], [0., 1., 0.]),
            ([-1., 0., 0.], [0., 0., 1.], [0., 1., 0.]),
            ([0., 1., 0.], [1., 0., 0.], [0., 0., -1.]),
            ([0., -1., 0.], [1., 0., 0.], [0., 0., 1.]),
        ];
        let origin = xf([0.0; 3]);
        for (n, u, v) in axes {
            let at = |su: f32, sv: f32| {
                [0, 1, 2].map(|a| centre[a] + half[a] * (n[a] + su * u[a] + sv * v[a]))
            };
            let nx = xf(n);
            let nn = [0, 1, 2].map(|a| nx[a] - origin[a]);
            // Z order: bottom-left, bottom-right, top-left, top-right.
            let corners = [at(-1., -1.), at(1., -1.), at(-1., 1.), at(1., 1.)];
            let ids = corners.map(|c| self.vertex(xf(c), nn));
            self.mesh.faces.push(Face {
                vertices: ids,
                corners: 4,
                colors: [[128; 3]; 4],
                texture: FaceTexture::Image {
                    texture,
                    uv: [[0., 1.], [1., 1.], [0., 0.], [1., 0.]],
                },
                blend: Blend::Opaque,
                two_sided: false,
            });
        }
    }

    fn sphere(&mut self, centre: [f32; 3], r: f32, segs: u32, texture: usize) {
        let rings = segs / 2;
        let mut grid = Vec::new();
        for i in 0..=rings {
            let th = PI * i as f32 / rings as f32;
            for j in 0..=segs {
                let ph = TAU * j as f32 / segs as f32 - PI;
                let ((st, ct), (sp, cp)) = (math::sin_cos(th), math::sin_cos(ph));
                let n = [st * sp, ct, st * cp];
                grid.push(self.vertex([0, 1, 2].map(|a| centre[a] + r * n[a]), n));
            }
        }
        let at = |i: u32, j: u32| grid[(i * (segs + 1) + j) as usize];
        for i in 0..rings {
            for j in 0..segs {
                let uv = |ii: u32, jj: u32| [jj as f32 / segs as f32, ii as f32 / rings as f32];
                let (tl, tr, bl, br) = ((i, j), (i, j + 1), (i + 1, j), (i + 1, j + 1));
                let (verts, uvs, corners) = if i + 1 == rings {
                    // Bottom cap: bottom-left is the pole.
                    (
                        [bl, tr, tl, tl],
                        [uv(bl.0, bl.1), uv(tr.0, tr.1), uv(tl.0, tl.1), [0.; 2]],
                        3,
                    )
                } else {
                    ([bl, br, tl, tr], [bl, br, tl, tr].map(|(a, b)| uv(a, b)), 4)
                };
                self.mesh.faces.push(Face {
                    vertices: verts.map(|(a, b)| at(a, b)),
                    corners,
                    colors: [[128; 3]; 4],
                    texture: FaceTexture::Image { texture, uv: uvs },
                    blend: Blend::Opaque,
                    two_sided: false,
                });
            }
        }
    }
}

/// Rotation by `angle` about the X axis through `pivot`.
fn swing(pivot: [f32; 3], angle: f32) -> impl Fn([f32; 3]) -> [f32; 3] {
    let (s, c) = math::sin_cos(angle);
    move |p| {
        let (y, z) = (p[1] - pivot[1], p[2] - pivot[2]);
        [p[0], pivot[1] + y * c - z * s, pivot[2] + y * s + z * c]
    }
}

impl Model for Robot {
    fn format(&self) -> &'static str {
        "synthetic"
    }

    fn animations(&self) -> Vec<AnimationInfo> {
        vec![AnimationInfo {
            name: "walk".into(),
            frames: WALK_FRAMES,
            duration_ms: WALK_FRAMES * 1000 / 30,
        }]
    }

    fn pose(&self, request: &PoseRequest) -> PosedMesh {
        let t = (request.frame % WALK_FRAMES) as f32 / WALK_FRAMES as f32;
        let a = math::sin(TAU * t) * 0.6;
        let mut b = Builder {
            mesh: PosedMesh {
                textures: vec![
                    Texture {
                        name: "checker".into(),
                        image: checker().into(),
                    },
                    Texture {
                        name: "face".into(),
                        image: face_texture().into(),
                    },
                    Texture {
                        name: "glow".into(),
                        image: glow().into(),
                    },
                ],
                shading: Shading::Lit,
                ..PosedMesh::default()
            },
        };
        let id = |p: [f32; 3]| p;
        b.cuboid([0.0, 1.2, 0.0], [0.35, 0.45, 0.2], &id, 0);
        b.cuboid(
            [-0.5, 1.2, 0.0],
            [0.1, 0.4, 0.1],
            &swing([0.0, 1.6, 0.0], a),
            0,
        );
        b.cuboid(
            [0.5, 1.2, 0.0],
            [0.1, 0.4, 0.1],
            &swing([0.0, 1.6, 0.0], -a),
            0,
        );
        b.cuboid(
            [-0.18, 0.4, 0.0],
            [0.12, 0.4, 0.12],
            &swing([0.0, 0.8, 0.0], -a),
            0,
        );
        b.cuboid(
            [0.18, 0.4, 0.0],
            [0.12, 0.4, 0.12],
            &swing([0.0, 0.8, 0.0], a),
            0,
        );
        b.cuboid([0.0, 1.7, 0.0], [0.08, 0.06, 0.08], &id, 0);
        b.sphere([0.0, 2.05, 0.0], 0.3, self.detail, 1);
        // A two-sided, alpha-blended glow disc hovering above the head, bobbing.
        let y = 2.55 + 0.05 * math::cos(TAU * t);
        let ids =
            [[-0.3, y, -0.3], [0.3, y, -0.3], [-0.3, y, 0.3]].map(|p| b.vertex(p, [0.0, 1.0, 0.0]));
        b.mesh.faces.push(Face {
            vertices: [ids[0], ids[1], ids[2], ids[2]],
            corners: 3,
            colors: [[128; 3]; 4],
            texture: FaceTexture::Image {
                texture: 2,
                uv: [[0., 0.], [1., 0.], [0., 1.], [0.; 2]],
            },
            blend: Blend::Alpha,
            two_sided: true,
        });
        b.mesh
    }

    fn info(&self) -> String {
        format!(
            "synthetic robot: {} polygons, 3 textures, animation \"walk\" ({WALK_FRAMES} frames)\n",
            self.polygon_count()
        )
    }

    fn facts(&self) -> serde_json::Value {
        serde_json::json!({
            "format": self.format(),
            "polygons": self.polygon_count(),
            "textures": 3,
            "animations": [{ "name": "walk", "frames": WALK_FRAMES }],
        })
    }

    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_index_their_vertices_and_count_matches() {
        let r = Robot::new(24);
        let m = r.pose(&PoseRequest::default());
        assert_eq!(m.faces.len(), r.polygon_count());
        let n = m.vertices.len() as u32;
        assert!(m
            .faces
            .iter()
            .all(|f| f.vertices[..f.corners as usize].iter().all(|&i| i < n)));
    }
}
