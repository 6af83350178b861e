//! Parsing: the attribute's options (`attr.rs`) and the function's signature
//! (`signature.rs`), each checked against what the language allows, with every mistake
//! reported on its tokens.

use proc_macro2::TokenStream;

pub mod attr;
pub(crate) mod bounds;
pub mod closure_params;
pub mod data_enums;
pub(crate) mod option_params;
pub mod signature;
pub mod structs;
pub mod types;

use syn::visit_mut::{self, VisitMut};

/// Parse the function an attribute is on, with the invisible groups a `macro_rules!`
/// fragment leaves around a type (`$t:ty`) removed, so a kernel written by a macro reads
/// as the same kernel written out. (Expressions keep theirs: a group there is a
/// precedence, and the translator looks through it.)
pub fn item_fn(item: TokenStream) -> syn::Result<syn::ItemFn> {
    let mut f: syn::ItemFn = syn::parse2(item)?;
    Ungroup.visit_item_fn_mut(&mut f);
    Ok(f)
}

struct Ungroup;

impl VisitMut for Ungroup {
    fn visit_type_mut(&mut self, t: &mut syn::Type) {
        while let syn::Type::Group(g) = t {
            *t = (*g.elem).clone();
        }
        visit_mut::visit_type_mut(self, t);
    }
}
