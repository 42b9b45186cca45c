//! Property tests: any register file × every command word never panics (debug assertions and
//! overflow checks are on in the test profile), and the register file keeps its invariants.

use gte::{Gte, Op};
use proptest::prelude::*;

/// Register values biased towards the edges where saturation and overflow live.
fn reg_value() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        prop::sample::select(vec![
            0,
            1,
            0x7FFF,
            0x8000,
            0xFFFF,
            0x7FFF_7FFF,
            0x8000_8000,
            0x7FFF_FFFF,
            0x8000_0000,
            0xFFFF_FFFF,
        ]),
    ]
}

proptest! {
    // 100k random register files per run; each runs all 64 opcodes (22 documented + 42
    // undocumented) with the random high command bits (sf, lm, mx, v, cv, fake number).
    #![proptest_config(ProptestConfig { cases: 100_000, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn every_command_on_any_registers(regs in prop::array::uniform32(reg_value()),
                                      ctrl in prop::array::uniform32(reg_value()),
                                      high in any::<u32>()) {
        let mut gte = Gte::new();
        for (r, &v) in regs.iter().enumerate() {
            gte.write_data(r, v);
        }
        for (r, &v) in ctrl.iter().enumerate() {
            gte.write_control(r, v);
        }
        let before = gte.clone();
        for opcode in 0..64u32 {
            let mut g = before.clone();
            g.execute(high & !0x3F | opcode);
            let flag = g.read_control(31);
            prop_assert_eq!(flag & 0xFFF, 0, "FLAG bits 0..11 read zero");
            prop_assert_eq!(flag >> 31, u32::from(flag & 0x7F87_E000 != 0));
            if Op::from_opcode(opcode).is_none() {
                prop_assert_eq!(&g, &before, "undocumented opcodes change nothing");
            }
            for r in [7usize, 16, 17, 18, 19] {
                prop_assert!(g.read_data(r) <= 0xFFFF, "OTZ/SZn zero-extend");
            }
            prop_assert!(g.read_data(29) <= 0x7FFF);
        }
    }
}
