//! Rules of particle motion only some formats have (NWN's, as rollnw applies them): the floor
//! particles bounce off or splat on.

use super::Particle;
use crate::math::{lerp3, scale3};

/// What a particle does where it meets the floor (NWN `bounce` with `bounce_co`, `splat`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Floor {
    /// Its velocity mirrored in the floor and scaled by the coefficient.
    Bounce(f32),
    /// It dies where it lands.
    Splat,
}

/// The floor is the model's ground plane, scene y = 0 (NWN z = 0): the plane rollnw's
/// particle collision is tested against (`tests/render_particles.cpp`, its flat ground). A
/// particle whose step from `before` to its position now (scene space, `base_y` added to both
/// heights: an attached emitter's origin) ends on the other side of the plane is put back on
/// it where the step met it, then bounced or killed. A step from the plane itself away from
/// it does not meet it (rollnw's test floor would hit it again, holding a bounced particle
/// on the floor).
pub(super) fn meet_floor(floor: Floor, base_y: f32, before: [f32; 3], p: &mut Particle) {
    let (y0, y1) = (base_y + before[1], base_y + p.position[1]);
    if !((y0 >= 0.0 && y1 < 0.0) || (y0 < 0.0 && y1 > 0.0)) {
        return;
    }
    p.position = lerp3(before, p.position, y0 / (y0 - y1));
    p.position[1] = -base_y;
    match floor {
        Floor::Splat => {
            p.velocity = [0.0; 3];
            p.age = p.life;
        }
        Floor::Bounce(k) => {
            p.velocity[1] = -p.velocity[1];
            p.velocity = scale3(p.velocity, k);
        }
    }
}
