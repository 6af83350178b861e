//! Helpers shared by the translator's test files (each uses some of them).
#![allow(dead_code)]

use gpu_translate::{translate_device, translate_kernel, Translated};
use proc_macro2::TokenStream;
use quote::quote;

/// The C of a kernel translated as `unchecked`.
pub fn c(item: TokenStream) -> String {
    translate_kernel(quote!(unchecked), item)
        .unwrap_or_else(|e| panic!("translation failed: {:?}", e.messages()))
        .c
}

/// The C of a kernel with checked indices (the default).
pub fn checked(item: TokenStream) -> Translated {
    translate_kernel(TokenStream::new(), item)
        .unwrap_or_else(|e| panic!("translation failed: {:?}", e.messages()))
}

/// The C of a device function.
pub fn device(item: TokenStream) -> Result<String, Vec<String>> {
    translate_device(item)
        .map(|t| t.c)
        .map_err(|d| d.messages())
}

pub fn errors(item: TokenStream) -> Vec<String> {
    match translate_kernel(TokenStream::new(), item) {
        Ok(t) => panic!("expected errors, got:\n{}", t.c),
        Err(e) => e.messages(),
    }
}

/// The kernel's main entry and, with a fast path, its fully checked entry.
pub fn entries(t: &Translated) -> (&str, Option<&str>) {
    match t.c.find("gt_checked_") {
        Some(at) => {
            let start = t.c[..at].rfind("extern").expect("an entry");
            (&t.c[..start], Some(&t.c[start..]))
        }
        None => (&t.c, None),
    }
}
