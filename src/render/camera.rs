//! The camera: a yaw/pitch orbit around the model's centre, auto-framed by default (a 3/4 view),
//! turned into the GTE's RT (rotation), TR (translation) and H (projection plane distance).

use crate::math::{cross, dot3};

/// Default yaw in degrees: a 3/4 view from the model's front-right.
pub const DEFAULT_YAW: f32 = 35.0;
/// Default pitch in degrees (camera above, looking down).
pub const DEFAULT_PITCH: f32 = 15.0;
/// Default horizontal field of view in degrees.
pub const DEFAULT_FOV: f32 = 50.0;

/// Where the camera sits, in the model's own units and degrees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Rotation around +Y; 0 looks at the model's front (from +Z).
    pub yaw: f32,
    /// Elevation; positive looks down on the model.
    pub pitch: f32,
    /// Distance from the framing centre in model units; `None` = fit the model.
    pub distance: Option<f32>,
    /// Horizontal field of view (degrees, 1–170); maps to H = (width/2) / tan(fov/2).
    pub fov: f32,
}

impl Default for View {
    fn default() -> Self {
        View {
            yaw: DEFAULT_YAW,
            pitch: DEFAULT_PITCH,
            distance: None,
            fov: DEFAULT_FOV,
        }
    }
}

/// A 3×3 rotation, rows = camera right, down, forward in model space (the GTE's camera space has
/// Y pointing down the screen).
pub type Basis = [[f32; 3]; 3];

impl View {
    /// The camera basis for this yaw/pitch.
    pub fn basis(&self) -> Basis {
        let (sy, cy) = crate::math::sin_cos(self.yaw.to_radians());
        let (sp, cp) = crate::math::sin_cos(self.pitch.to_radians());
        // Direction from the centre to the camera.
        let dir = [sy * cp, sp, cy * cp];
        let f = [-dir[0], -dir[1], -dir[2]];
        // right = f × up(0,1,0), normalised (never degenerate: pitch is clamped below 90).
        let r = normalize([-f[2], 0.0, f[0]]);
        // up = right × f; down = -up.
        let u = cross(r, f);
        [r, [-u[0], -u[1], -u[2]], f]
    }

    /// The same basis in [`crate::scene::PoseRequest::camera`]'s convention (right, up,
    /// forward).
    pub fn pose_camera(&self) -> Basis {
        pose_basis(self.basis())
    }

    /// tan of half the horizontal and vertical fields of view for a `width`×`height` screen.
    pub fn half_tans(&self, width: u32, height: u32) -> (f32, f32) {
        let tx = crate::math::tan(self.fov.clamp(1.0, 170.0).to_radians() / 2.0);
        (tx, tx * height as f32 / width as f32)
    }

    /// H: the projection plane distance in pixels (GTE control register 26).
    pub fn h(&self, width: u32, height: u32) -> u16 {
        let (tx, _) = self.half_tans(width, height);
        ((width as f32 / 2.0) / tx).round().clamp(1.0, 65535.0) as u16
    }

    /// The distance at which every point of `points` (relative to `centre`) fits on screen,
    /// with a 6% margin.
    pub fn fit_distance(
        &self,
        centre: [f32; 3],
        points: &[[f32; 3]],
        width: u32,
        height: u32,
    ) -> f32 {
        let b = self.basis();
        let (tx, ty) = self.half_tans(width, height);
        let mut d: f32 = 0.0;
        for p in points {
            let q = [p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]];
            let x = dot3(b[0], q).abs() * 1.06;
            let y = dot3(b[1], q).abs() * 1.06;
            let z = dot3(b[2], q);
            d = d
                .max(x / tx - z)
                .max(y / ty - z)
                .max(z.abs() + f32::EPSILON);
        }
        // Points all at the centre (a lone emitter) give no distance: one model unit away.
        if d.is_finite() && d > 1e-6 {
            d
        } else {
            1.0
        }
    }
}

/// The basis of a camera at `eye` looking at `target` with world +Y up (rows right, down,
/// forward, as [`View::basis`]).
pub fn look_at(eye: [f32; 3], target: [f32; 3]) -> Basis {
    let f = normalize([target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]]);
    // Straight up or down: any right will do.
    let r = if f[0].abs() < 1e-6 && f[2].abs() < 1e-6 {
        [1.0, 0.0, 0.0]
    } else {
        normalize([-f[2], 0.0, f[0]])
    };
    let u = cross(r, f);
    [r, [-u[0], -u[1], -u[2]], f]
}

/// A basis in [`crate::scene::PoseRequest::camera`]'s convention (right, up, forward).
pub fn pose_basis([r, d, f]: Basis) -> Basis {
    [r, [-d[0], -d[1], -d[2]], f]
}

fn normalize(v: [f32; 3]) -> [f32; 3] {
    let l = dot3(v, v).sqrt();
    if l > 0.0 {
        [v[0] / l, v[1] / l, v[2] / l]
    } else {
        [1.0, 0.0, 0.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaw_zero_looks_down_minus_z() {
        let v = View {
            yaw: 0.0,
            pitch: 0.0,
            ..View::default()
        };
        let b = v.basis();
        let near = |a: [f32; 3], e: [f32; 3]| a.iter().zip(e).all(|(x, y)| (x - y).abs() < 1e-6);
        assert!(near(b[0], [1.0, 0.0, 0.0]), "{:?}", b[0]);
        assert!(near(b[1], [0.0, -1.0, 0.0]), "{:?}", b[1]);
        assert!(near(b[2], [0.0, 0.0, -1.0]), "{:?}", b[2]);
        assert_eq!(v.h(320, 240), 343);
    }

    #[test]
    fn fitting_keeps_points_in_view() {
        let v = View::default();
        let pts = [[1.0, 2.0, 0.5], [-1.0, -2.0, -0.5], [0.3, 0.0, 3.0]];
        let d = v.fit_distance([0.0; 3], &pts, 320, 240);
        let b = v.basis();
        let (tx, ty) = v.half_tans(320, 240);
        for p in pts {
            let z = dot3(b[2], p) + d;
            assert!(dot3(b[0], p).abs() / z <= tx && dot3(b[1], p).abs() / z <= ty);
        }
    }

    #[test]
    fn a_lone_point_is_seen_from_one_model_unit() {
        let v = View::default();
        assert_eq!(v.fit_distance([1.0; 3], &[[1.0; 3]], 320, 240), 1.0);
    }
}
