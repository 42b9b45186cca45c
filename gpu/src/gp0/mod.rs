//! GP0 words: field newtypes and packet decoding.

pub mod decode;
pub mod fields;
