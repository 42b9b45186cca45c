//! What the NWN MDL loaders say about broken files: a binary pointer leading past the end is
//! reported where the pointer lies (not where it leads), and an ASCII node hanging under itself
//! or on a parent cycle is named as such.

mod common;

use psxrender::formats::nwn::{self, mdl::Mdl, writer};
use psxrender::formats::LoadError;

/// Model data starts at byte 12; the model header's root node pointer is at +0x48 in it.
const ROOT_POINTER: usize = 12 + 0x48;

fn parse(data: &[u8]) -> (Result<Mdl, LoadError>, Vec<String>) {
    let mut warnings = Vec::new();
    let r = nwn::parse(data, &mut warnings);
    (r, warnings)
}

fn with_word(data: &[u8], at: usize, v: u32) -> Vec<u8> {
    let mut d = data.to_vec();
    d[at..at + 4].copy_from_slice(&v.to_le_bytes());
    d
}

#[test]
fn a_root_pointer_past_the_end_is_reported_where_the_pointer_lies() {
    let data = writer::build(&writer::sample_model());
    parse(&data).0.expect("the unpatched model loads");
    let bad = with_word(&data, ROOT_POINTER, 0xFFFF_FFFF);
    let e = parse(&bad)
        .0
        .expect_err("a root node past the end must not load");
    assert_eq!(e.offset, ROOT_POINTER as u64, "{e}");
    let msg = e.to_string();
    for part in [
        &format!("past the end of the {}-byte file", data.len()),
        "node part number (4 bytes at byte 0x100000027 = model data 0xc + pointer 0xffffffff + 0x1c)",
        "reached through the root node pointer at byte 0x54",
    ] {
        assert!(msg.contains(part), "{part:?} not in {msg}");
    }
}

/// Sets every 4-byte word of `data` in turn to 0xFFFFFFFF (a pointer or a count far past the
/// end of any file) and checks that each refusal names the changed word, or the word before it:
/// an array's pointer, when the word changed is the array's count beside it.
fn every_word_maxed_is_reported_at_itself(name: &str, data: &[u8]) -> usize {
    let mut refused = 0;
    for at in (0..data.len() - 3).step_by(4) {
        let Err(e) = parse(&with_word(data, at, 0xFFFF_FFFF)).0 else {
            continue;
        };
        refused += 1;
        let at = at as u64;
        assert!(
            e.offset == at || e.offset + 4 == at,
            "{name}: word at 0x{at:x} maxed, error reported at 0x{:x}: {e}",
            e.offset
        );
        assert!(!e.to_string().contains("truncated"), "{name} 0x{at:x}: {e}");
    }
    refused
}

#[test]
fn every_pointer_of_a_built_model_past_the_end_is_reported_at_the_pointer() {
    let data = writer::build(&writer::sample_model());
    let refused = every_word_maxed_is_reported_at_itself("sample model", &data);
    // The model's root and animation pointers, three nodes' child arrays, controller arrays,
    // the face array and the vertex pointers at least.
    assert!(refused >= 12, "only {refused} words refused");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/samples/nwn")]
fn every_pointer_of_it_torch_000_past_the_end_is_reported_at_the_pointer() {
    let data = std::fs::read(common::shared("samples/nwn/it_torch_000.mdl")).unwrap();
    let refused = every_word_maxed_is_reported_at_itself("it_torch_000", &data);
    assert!(refused >= 80, "only {refused} words refused");
    // The finding as reported: its root node pointer maxed.
    let e = parse(&with_word(&data, ROOT_POINTER, 0xFFFF_FFFF))
        .0
        .unwrap_err();
    assert_eq!(e.offset, ROOT_POINTER as u64, "{e}");
    assert!(e.to_string().contains("root node pointer"), "{e}");
}

#[test]
fn a_child_pointer_leading_near_the_end_names_the_child_pointer_and_the_field() {
    let data = writer::build(&writer::sample_model());
    let word = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().unwrap()) as usize;
    // The root's first child pointer: the root's children array holds it.
    let root = 12 + word(ROOT_POINTER);
    let child_at = 12 + word(root + 0x48);
    // A node 16 bytes before the end: its part number (+0x1C) is already past the end.
    let near_end = (data.len() - 12 - 16) as u32;
    let e = parse(&with_word(&data, child_at, near_end)).0.unwrap_err();
    assert_eq!(e.offset, child_at as u64, "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains(&format!(
            "node part number (4 bytes at byte 0x{:x} = model data 0xc + pointer 0x{near_end:x} \
             + 0x1c), reached through the child node pointer at byte 0x{child_at:x}",
            data.len() - 16 + 0x1C
        )),
        "{msg}"
    );
}

#[test]
fn section_sizes_past_the_end_are_reported_at_their_own_word() {
    let data = writer::build(&writer::sample_model());
    let e = parse(&with_word(&data, 8, 0xFFFF_FFFF)).0.unwrap_err();
    assert_eq!(e.offset, 8, "{e}");
    assert!(
        e.to_string().contains("raw data of 4294967295 bytes"),
        "{e}"
    );
    let e = parse(&with_word(&data, 4, 0xFFFF_FFFF)).0.unwrap_err();
    assert_eq!(e.offset, 4, "{e}");
    assert!(
        e.to_string().contains("model data of 4294967295 bytes"),
        "{e}"
    );
}

/// An ASCII model: root `m`, then `nodes` as (name, parent), then a trimesh `t` under `under`.
fn ascii(nodes: &[(&str, &str)], under: &str) -> String {
    let mut s =
        String::from("newmodel m\nbeginmodelgeom m\nnode dummy m\n  parent NULL\nendnode\n");
    for (name, parent) in nodes {
        s += &format!("node dummy {name}\n  parent {parent}\nendnode\n");
    }
    s += &format!(
        "node trimesh t\n  parent {under}\n  verts 3\n    0 0 0\n    1 0 0\n    0 1 0\n  \
         faces 1\n    0 1 2 1 0 0 0 1\nendnode\nendmodelgeom m\ndonemodel m\n"
    );
    s
}

#[test]
fn a_node_naming_itself_as_parent_is_said_to_do_so() {
    let text = ascii(&[("a", "a")], "a");
    let (mdl, warnings) = parse(text.as_bytes());
    let mdl = mdl.unwrap();
    let line = text.find("node dummy a").unwrap();
    assert_eq!(
        warnings,
        [format!(
            "node 'a' (line at byte 0x{line:x}) names itself as its parent; treated as a root"
        )]
    );
    // Treated as a root, it keeps its child.
    let names: Vec<&str> = mdl.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["m", "a", "t"]);
    assert_eq!(mdl.nodes[1].parent, None);
}

#[test]
fn a_missing_parent_is_still_reported_as_not_found() {
    let text = ascii(&[("a", "nowhere")], "m");
    let (mdl, warnings) = parse(text.as_bytes());
    mdl.unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("node 'a' (line at byte 0x")
            && warnings[0].contains("parent 'nowhere' not found"),
        "{warnings:?}"
    );
}

#[test]
fn a_two_node_parent_cycle_is_named_with_what_it_drops() {
    let text = ascii(&[("a", "b"), ("b", "a")], "a");
    let (mdl, warnings) = parse(text.as_bytes());
    let mdl = mdl.unwrap();
    let line = text.find("node dummy a").unwrap();
    assert_eq!(
        warnings,
        [format!(
            "parent cycle 'a' → 'b' → 'a' (each node names the next as its parent; the line of \
             'a' is at byte 0x{line:x}): no root leads to these 2 nodes, so they and the 1 node \
             under them are dropped"
        )]
    );
    let names: Vec<&str> = mdl.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["m"]);
}

#[test]
fn many_parent_cycles_are_listed_up_to_a_limit_then_counted() {
    // Ten 2-cycles, the first with a 3-node chain hanging under it, and one 12-node cycle.
    let mut nodes: Vec<(String, String)> = Vec::new();
    for i in 0..10 {
        nodes.push((format!("x{i}"), format!("y{i}")));
        nodes.push((format!("y{i}"), format!("x{i}")));
    }
    nodes.push(("u0".into(), "x0".into()));
    nodes.push(("u1".into(), "u0".into()));
    for i in 0..12 {
        nodes.push((format!("c{i}"), format!("c{}", (i + 1) % 12)));
    }
    let refs: Vec<(&str, &str)> = nodes
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let text = ascii(&refs, "u1");
    let (mdl, warnings) = parse(text.as_bytes());
    assert_eq!(mdl.unwrap().nodes.len(), 1);
    assert_eq!(warnings.len(), 9, "{warnings:#?}");
    assert!(
        warnings[0].starts_with("parent cycle 'x0' → 'y0' → 'x0' (")
            && warnings[0].ends_with("so they and the 3 nodes under them are dropped"),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[7].starts_with("parent cycle 'x7' → 'y7' → 'x7' ("),
        "{}",
        warnings[7]
    );
    // The two 2-cycles and the 12-node cycle past the eighth are counted, not listed.
    assert_eq!(
        warnings[8],
        "3 more parent cycles: their 16 nodes and the 0 nodes under them are dropped"
    );
}

#[test]
fn a_long_parent_cycle_is_listed_in_part() {
    let nodes: Vec<(String, String)> = (0..12)
        .map(|i| (format!("c{i}"), format!("c{}", (i + 1) % 12)))
        .collect();
    let refs: Vec<(&str, &str)> = nodes
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let (mdl, warnings) = parse(ascii(&refs, "m").as_bytes());
    assert_eq!(mdl.unwrap().nodes.len(), 2);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(
            "parent cycle 'c0' → 'c1' → 'c2' → 'c3' → 'c4' → 'c5' → 'c6' → 'c7' → … → 'c0' ("
        ) && warnings[0].contains("no root leads to these 12 nodes, so they are dropped"),
        "{}",
        warnings[0]
    );
}
