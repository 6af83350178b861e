//! The tensor cores' operations in the simulator's body: called through the runtime's own
//! path (`gpu_runtime::lang::mma`), so the simulator runs what the GPU runs whatever else
//! the kernel's module names `mma` (a plain function, a `use`).

use crate::ir::TILE_FUNCTIONS;

/// `mma(..)` as `krate::lang::mma(..)` (turbofish kept); any other expression unchanged.
pub(super) fn qualify(e: &mut syn::Expr, krate: &syn::Path) {
    let syn::Expr::Call(c) = e else {
        return;
    };
    let syn::Expr::Path(p) = &mut *c.func else {
        return;
    };
    if p.qself.is_some() || p.path.segments.len() != 1 {
        return;
    }
    let seg = p.path.segments[0].clone();
    if TILE_FUNCTIONS.contains(&seg.ident.to_string().as_str()) {
        p.path = syn::parse_quote_spanned!(seg.ident.span()=> #krate::lang::#seg);
    }
}
