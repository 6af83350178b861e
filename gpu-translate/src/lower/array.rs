//! Arrays declared in a body: shared arrays (`shared_array::<T, N>()`,
//! `shared_array_2d::<T, R, C>()`, `dynamic_shared_array::<T>()`), local arrays
//! (`[v; N]`, `[[v; C]; R]`), and the vector accesses `load4`/`store4`.
//!
//! Sizes are literals here, or for shared arrays `usize` module constants; whether they
//! fit the GPU (48 KB of static shared memory a block, the per-thread limit for local
//! arrays) is checked once types are final, and for a size that is a module constant by
//! rustc, once the constant's value is known (`emit_rust::consts`).

use crate::names::unraw;
use syn::spanned::Spanned;

use super::tables::{call_name, const_usize, strip_parens};
use super::{Expr, Lowerer, Position, Stmt};
use crate::ir::{ArrayVar, Dim, ExprKind, Prim, Space, Target, Ty};
use crate::parse::signature::{resolve_type_name, scalar_type};

/// The largest extent of one axis of a local array.
const LOCAL_AXIS_MAX: u64 = 1 << 16;

impl Lowerer<'_> {
    /// `let mut tile = shared_array::<f32, 256>();`, `let mut acc = [0.0f32; 8];`, ...
    pub(super) fn let_array(
        &mut self,
        pi: &syn::PatIdent,
        init: &syn::Expr,
        annotation: Option<&syn::Type>,
        out: &mut Vec<Stmt>,
    ) {
        if let syn::Expr::Array(a) = strip_parens(init) {
            self.array_literal(pi, a, annotation, out);
            return;
        }
        let rust_name = unraw(&pi.ident);
        let declared = match strip_parens(init) {
            syn::Expr::Call(c) if call_name(c).as_deref() == Some("load4") => self.vector_load(c),
            syn::Expr::Call(c)
                if self.refused_in_lambda(c.span(), "an array shared by the block") =>
            {
                None
            }
            syn::Expr::Call(c) if call_name(c).as_deref() == Some("mma_acc") => {
                self.mma_acc_declaration(c)
            }
            syn::Expr::Call(c) => self.shared_declaration(c),
            syn::Expr::Repeat(_) => self.local_array(init),
            other => {
                self.err(
                    other.span(),
                    "an array in a kernel is `shared_array::<T, N>()`, `shared_array_2d::<T, R, C>()`, \
                     `dynamic_shared_array::<T>()` or a local `[value; N]`",
                );
                None
            }
        };
        let Some((mut array, value)) = declared else {
            self.declare_poisoned(&rust_name, pi.ident.span());
            return;
        };
        array.span = init.span();
        if let Some(t) = annotation {
            self.check_array_annotation(t, &array);
        }
        let id = self.add_array(&rust_name, array);
        self.bind(rust_name, super::Binding::Array(id));
        out.push(Stmt::DeclareArray(id, value));
    }

    fn check_array_annotation(&mut self, t: &syn::Type, array: &ArrayVar<Ty>) {
        let mut dims = Vec::new();
        let mut ty = t;
        while let syn::Type::Array(a) = ty {
            dims.push(const_usize(&a.len));
            ty = &a.elem;
        }
        let elem = resolve_type_name(ty, &self.sig.generics, &self.sig.structs);
        let ok = array.space == Space::Local
            && dims
                .iter()
                .map(|d| d.unwrap_or(u64::MAX))
                .eq(array.dims.iter().map(|d| d.literal().unwrap_or(u64::MAX)));
        match elem {
            Some(e) if ok => self.unify(e, array.elem, t.span()),
            _ => self.err(t.span(), "this type does not match the array's value"),
        }
    }

    /// The generic arguments of `shared_array::<T, N>()` and friends.
    fn shared_declaration(&mut self, c: &syn::ExprCall) -> Option<(ArrayVar<Ty>, Option<Expr>)> {
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        let seg = p.path.segments.last()?;
        let name = seg.ident.to_string();
        if !c.args.is_empty() {
            self.err(c.args.span(), format!("`{name}` takes no arguments"));
            return None;
        }
        let args: Vec<&syn::GenericArgument> = match &seg.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().collect(),
            _ => Vec::new(),
        };
        let (space, dim_count) = match name.as_str() {
            "shared_array" => (Space::Shared, 1),
            "shared_array_2d" => (Space::Shared, 2),
            "dynamic_shared_array" => (Space::DynamicShared, 0),
            _ => {
                self.err(c.func.span(), "expected `shared_array::<T, N>()`, `shared_array_2d::<T, R, C>()` or `dynamic_shared_array::<T>()`");
                return None;
            }
        };
        if args.len() != 1 + dim_count {
            let form = match dim_count {
                0 => "dynamic_shared_array::<T>()",
                1 => "shared_array::<T, N>()",
                _ => "shared_array_2d::<T, ROWS, COLS>()",
            };
            self.err(
                seg.span(),
                format!("write `{form}` with the element type and constant sizes"),
            );
            return None;
        }
        let elem = match args[0] {
            syn::GenericArgument::Type(t) => {
                scalar_type(t, &self.sig.generics, &self.sig.structs, self.diags)?
            }
            other => {
                self.err(other.span(), "expected the element type");
                return None;
            }
        };
        let mut dims = Vec::new();
        for a in &args[1..] {
            // `TPB` parses as a type argument, `{ TPB }` as a block.
            let named = match a {
                syn::GenericArgument::Type(syn::Type::Path(t)) if t.qself.is_none() => {
                    Some(syn::Expr::Path(syn::ExprPath {
                        attrs: Vec::new(),
                        qself: None,
                        path: t.path.clone(),
                    }))
                }
                syn::GenericArgument::Const(syn::Expr::Block(b)) => {
                    match b.block.stmts.as_slice() {
                        [syn::Stmt::Expr(e, None)] => Some(e.clone()),
                        _ => None,
                    }
                }
                syn::GenericArgument::Const(e @ syn::Expr::Path(_)) => Some(e.clone()),
                _ => None,
            };
            let named = named.and_then(|e| match &e {
                syn::Expr::Path(p) if self.names_module_const(p) => {
                    Some(self.module_const_id(p, None))
                }
                _ => None,
            });
            if let Some(c) = named {
                let ty = self.k.consts[c].ty;
                self.unify(ty, Ty::Prim(Prim::Usize), a.span());
                dims.push(Dim::Const(c));
                continue;
            }
            let value = match a {
                syn::GenericArgument::Const(e) => const_usize(e),
                _ => None,
            };
            match value {
                Some(v) if v > 0 => dims.push(Dim::Lit(v)),
                _ => {
                    self.err(
                        a.span(),
                        "a shared array's size must be an integer literal greater than 0, a \
                         `usize` constant (`const TPB: usize = 16;`) or a kernel's `const N: \
                         usize` (a size computed from one, `{ N + 1 }`, is another const \
                         parameter); for a size known only at launch use \
                         `dynamic_shared_array::<T>()`",
                    );
                    return None;
                }
            }
        }
        Some((ArrayVar::declared(elem, dims, space), None))
    }

    /// The array of a `load4`/`store4`: a 1-D array parameter (`&mut` to store) or a 1-D
    /// shared array, static or dynamic (whose declaration the translator aligns to 16
    /// bytes).
    fn vector_target(&mut self, arg: &syn::Expr, store: bool) -> Option<(Target, Ty)> {
        let t = self.target(arg)?;
        let ok = match t {
            Target::Slice(s) => {
                self.k.slices[s].rank() == 1 && (!store || self.k.slices[s].mutable)
            }
            Target::Array(a) => {
                let arr = &self.k.arrays[a];
                match arr.space {
                    Space::Shared => arr.dims.len() == 1,
                    Space::DynamicShared => true,
                    Space::Local | Space::Table | Space::Global => false,
                }
            }
        };
        if !ok {
            let what = if store {
                "`store4` writes"
            } else {
                "`load4` reads"
            };
            let mutable = if store {
                "`&mut [T]` parameter"
            } else {
                "array parameter"
            };
            self.err(
                arg.span(),
                format!(
                    "{what} a 1-D {mutable} or a 1-D shared array (`shared_array::<T, N>()`, \
                     `dynamic_shared_array::<T>()`); index a 2-D tile as a 1-D shared array \
                     (`tile[r * C + c]`)"
                ),
            );
            return None;
        }
        let elem = match t {
            Target::Slice(s) => self.k.slices[s].elem,
            Target::Array(a) => self.k.arrays[a].elem,
        };
        Some((t, elem))
    }

    /// `load4(array, vector)`: a local `[T; 4]` filled by one vector load.
    fn vector_load(&mut self, c: &syn::ExprCall) -> Option<(ArrayVar<Ty>, Option<Expr>)> {
        if c.args.len() != 2 {
            self.err(c.span(), "`load4` takes (array, vector index)");
            return None;
        }
        let (target, elem) = self.vector_target(&c.args[0], false)?;
        let index = self.usize_index(&c.args[1], self.default_check())?;
        Some((
            ArrayVar::declared(elem, vec![Dim::Lit(4)], Space::Local),
            Some(Expr {
                kind: ExprKind::Load4(target, Box::new(index)),
                ty: elem,
                span: c.span(),
            }),
        ))
    }

    /// `store4(array, vector, x, y, z, w)`.
    pub(super) fn vector_store(&mut self, c: &syn::ExprCall) -> Option<Stmt> {
        if c.args.len() != 6 {
            self.err(c.span(), "`store4` takes (array, vector index, x, y, z, w)");
            return None;
        }
        let (target, elem) = self.vector_target(&c.args[0], true)?;
        let index = self.usize_index(&c.args[1], self.default_check())?;
        let mut values = Vec::new();
        for a in c.args.iter().skip(2) {
            let v = self.expr(a, Position::Operand)?;
            self.unify(elem, v.ty, v.span);
            values.push(v);
        }
        Some(Stmt::Store4(target, index, values))
    }

    /// `let v = [a, b, c];` (`[[a, b], [c, d]]`, up to 3 dimensions): each element
    /// computed once into a temporary, left to right, as in Rust; the array declared as
    /// the first repeated, then each other element assigned.
    fn array_literal(
        &mut self,
        pi: &syn::PatIdent,
        a: &syn::ExprArray,
        annotation: Option<&syn::Type>,
        out: &mut Vec<Stmt>,
    ) {
        let mut dims = Vec::new();
        let mut leaves = Vec::new();
        if !self.literal_shape(a, 0, &mut dims, &mut Vec::new(), &mut leaves) {
            self.declare_poisoned(&unraw(&pi.ident), pi.ident.span());
            return;
        }
        if leaves.is_empty() {
            return;
        }
        // Each element into a temporary first, in order, then the array from them: an
        // element that names an outer binding of the array's own name (`let v = [v, 1.0];`)
        // reads it, as in Rust, before the name is the array's.
        let name = &pi.ident;
        let temps: Vec<syn::Ident> = (0..leaves.len())
            .map(|k| syn::Ident::new(&format!("__gpu_lit_{}_{k}", unraw(name)), name.span()))
            .collect();
        for ((_, leaf), t) in leaves.iter().zip(&temps) {
            let s: syn::Stmt = syn::parse_quote_spanned!(leaf.span()=> let #t = #leaf;);
            self.stmt(&s, out);
        }
        let first = &temps[0];
        let mut seed: syn::Expr = syn::parse_quote_spanned!(a.span()=> #first);
        for &n in dims.iter().rev() {
            let n = proc_macro2::Literal::u64_unsuffixed(n);
            seed = syn::parse_quote_spanned!(a.span()=> [#seed; #n]);
        }
        self.let_array(pi, &seed, annotation, out);
        for ((at, leaf), t) in leaves.iter().zip(&temps).skip(1) {
            let idx = at.iter().map(|&i| proc_macro2::Literal::u64_unsuffixed(i));
            let s: syn::Stmt = syn::parse_quote_spanned!(leaf.span()=> #name #([#idx])* = #t;);
            self.stmt(&s, out);
        }
    }

    /// Reads the shape of a (nested) array literal at `depth` into `dims`, and its
    /// elements with their indices into `leaves`; false (reported) when it is empty, too
    /// deep, ragged, or too long.
    fn literal_shape<'e>(
        &mut self,
        a: &'e syn::ExprArray,
        depth: usize,
        dims: &mut Vec<u64>,
        at: &mut Vec<u64>,
        leaves: &mut Vec<(Vec<u64>, &'e syn::Expr)>,
    ) -> bool {
        let n = a.elems.len() as u64;
        if n == 0 {
            self.err(
                a.span(),
                "an empty array has no element to give its type; a local array has 1 to \
                 65536 elements on each axis",
            );
            return false;
        }
        if n > LOCAL_AXIS_MAX || depth >= 3 {
            self.err(
                a.span(),
                format!(
                    "an array literal in a kernel has at most 3 dimensions of at most \
                     {LOCAL_AXIS_MAX} elements; for more, declare `[value; N]` and fill it"
                ),
            );
            return false;
        }
        match dims.get(depth) {
            None => dims.push(n),
            Some(&d) if d == n => {}
            Some(&d) => {
                self.err(
                    a.span(),
                    format!(
                        "this row has {n} element{} where the first has {d}: the rows of an \
                         array have one length",
                        if n == 1 { "" } else { "s" }
                    ),
                );
                return false;
            }
        }
        for (i, e) in a.elems.iter().enumerate() {
            // Rows below: the first element of the whole literal decides how deep it goes.
            let nested = dims.len() > depth + 1;
            at.push(i as u64);
            let ok = match strip_parens(e) {
                syn::Expr::Array(inner) if nested || i == 0 && leaves.is_empty() => {
                    self.literal_shape(inner, depth + 1, dims, at, leaves)
                }
                syn::Expr::Array(_) | syn::Expr::Repeat(_) => {
                    self.err(
                        e.span(),
                        "the elements of an array literal are all arrays of one length or \
                         all values: write each row out (`[[1, 2], [3, 4]]`)",
                    );
                    false
                }
                _ if nested => {
                    self.err(e.span(), "this element should be a row like the first one");
                    false
                }
                _ => {
                    leaves.push((at.clone(), e));
                    true
                }
            };
            at.pop();
            if !ok {
                return false;
            }
        }
        true
    }

    /// `[v; N]` or `[[v; C]; R]`.
    fn local_array(&mut self, init: &syn::Expr) -> Option<(ArrayVar<Ty>, Option<Expr>)> {
        let mut dims = Vec::new();
        let mut e = strip_parens(init);
        while let syn::Expr::Repeat(r) = e {
            // `[v; TPB]`, `[v; BM]`: a module constant or a const parameter, whose size
            // rustc checks once it is known (`emit_rust::consts`).
            if let syn::Expr::Path(p) = strip_parens(&r.len) {
                if self.names_module_const(p) {
                    let c = self.module_const_id(p, None);
                    self.unify(self.k.consts[c].ty, Ty::Prim(Prim::Usize), r.len.span());
                    dims.push(Dim::Const(c));
                    e = strip_parens(&r.expr);
                    continue;
                }
            }
            match const_usize(&r.len) {
                Some(n) if n > 0 && n <= LOCAL_AXIS_MAX => dims.push(Dim::Lit(n)),
                _ => {
                    self.err(
                        r.len.span(),
                        format!(
                            "a local array's length must be an integer literal from 1 to \
                             {LOCAL_AXIS_MAX}, a `usize` constant (`TILE`) or a kernel's \
                             `const N: usize` (a length computed from one, `N * 2`, is another \
                             const parameter, as in Rust)"
                        ),
                    );
                    return None;
                }
            }
            e = strip_parens(&r.expr);
        }
        if dims.len() > 3 {
            self.err(init.span(), "local arrays have at most 3 dimensions");
            return None;
        }
        let value = self.expr(e, Position::Operand)?;
        Some((
            ArrayVar::declared(value.ty, dims, Space::Local),
            Some(value),
        ))
    }
}

impl ArrayVar<Ty> {
    /// An array as declared, before the lowerer names it.
    pub(super) fn declared(elem: Ty, dims: Vec<Dim>, space: Space) -> Self {
        ArrayVar {
            rust_name: String::new(),
            c_name: String::new(),
            len_c_name: String::new(),
            elem,
            dims,
            space,
            site: 0,
            check_id: 0,
            span: proc_macro2::Span::call_site(),
            tile: crate::ir::TileUse::default(),
        }
    }
}
