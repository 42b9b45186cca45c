//! GP0 words: field newtypes, packet assembly and decoding.

pub mod assembler;
pub mod decode;
pub mod fields;
