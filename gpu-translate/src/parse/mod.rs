//! Parsing: the attribute's options (`attr.rs`) and the function's signature
//! (`signature.rs`), each checked against what the language allows, with every mistake
//! reported on its tokens.

pub mod attr;
pub mod signature;
