//! Writes in the simulator's body: `place = value` and `place op= value` to an element of a
//! view, a field of one, an element of an array field, or a local array's element, each
//! rewritten to the call that writes only that part, the value evaluated first (Rust's
//! order).

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use super::{member_name, Rewriter};
use crate::lower::tables::PlaceStep;

/// A step of a written place, rewritten: a member, or an index held in a hidden local
/// with the check's name.
enum PathStep {
    Member(syn::Member),
    Index(syn::Ident, String),
}

impl Rewriter {
    /// `place = value`, rewritten, or `None` where the place is plain Rust (then
    /// visited in place).
    pub(super) fn assign(&mut self, a: &mut syn::ExprAssign) -> Option<syn::Expr> {
        self.visit_expr_mut(&mut a.right);
        let (value, span) = (&a.right, a.left.span());
        if let Some(write) = self.array_field_assign(&a.left, None, value) {
            Some(write)
        } else if let Some((base, mut index)) = self.view_index(&a.left) {
            self.visit_expr_mut(&mut index);
            let write = quote_spanned!(span=> #base.set(#index, __gpu_value));
            Some(value_first(span, value, write))
        } else if let Some((base, mut index, path)) = self.view_field(&a.left) {
            // The field alone is written: other threads may write the others.
            self.visit_expr_mut(&mut index);
            let write = quote_spanned!(span=>
                #base.set_field_by(#index, |__gpu_e| &mut __gpu_e.#(#path).*, __gpu_value));
            Some(value_first(span, value, write))
        } else if let Some(place) = self.local_access(&a.left, true) {
            Some(value_first(
                span,
                value,
                quote_spanned!(span=> *#place = __gpu_value),
            ))
        } else if let Some((base, mut index)) = self.unchecked_place(&a.left) {
            self.visit_expr_mut(&mut index);
            let write = quote_spanned!(span=> #base.get_unchecked_mut(#index).set(__gpu_value));
            Some(value_first(span, value, write))
        } else {
            self.visit_expr_mut(&mut a.left);
            None
        }
    }

    /// `place op= value`, rewritten, or `None` where the place is plain Rust (then visited
    /// in place).
    pub(super) fn compound_assign(&mut self, b: &mut syn::ExprBinary) -> Option<syn::Expr> {
        self.visit_expr_mut(&mut b.right);
        let op = compound_to_binary(&b.op);
        if let Some(write) = self.array_field_assign(&b.left, op.clone(), &b.right) {
            return Some(write);
        }
        let place = self
            .view_index(&b.left)
            .map(|p| (p, false))
            .or_else(|| self.unchecked_place(&b.left).map(|p| (p, true)));
        match (place, op) {
            (Some(((base, index), unchecked)), Some(op)) => {
                let mut index = index;
                self.visit_expr_mut(&mut index);
                let value = &b.right;
                let span = b.left.span();
                Some(if unchecked {
                    syn::parse_quote_spanned!(span=> {
                        let __gpu_value = #value;
                        let __gpu_element = #base.get_unchecked_mut(#index);
                        __gpu_element.set(__gpu_element.get() #op __gpu_value)
                    })
                } else {
                    syn::parse_quote_spanned!(span=> {
                        let __gpu_value = #value;
                        let __gpu_index = #index;
                        #base.set(__gpu_index, #base.get(__gpu_index) #op __gpu_value)
                    })
                })
            }
            (None, Some(op)) if self.view_field(&b.left).is_some() => {
                let (base, index, path) = self.view_field(&b.left)?;
                let mut index = index;
                self.visit_expr_mut(&mut index);
                let value = &b.right;
                let span = b.left.span();
                Some(syn::parse_quote_spanned!(span=> {
                    let __gpu_value = #value;
                    let __gpu_index = #index;
                    #base.set_field_by(
                        __gpu_index,
                        |__gpu_e| &mut __gpu_e.#(#path).*,
                        #base.get(__gpu_index).#(#path).* #op __gpu_value,
                    )
                }))
            }
            (None, Some(_)) => match self.local_access(&b.left, true) {
                Some(place) => {
                    let value = &b.right;
                    let span = b.left.span();
                    let assign = compound_token(&b.op);
                    Some(syn::parse_quote_spanned!(span=> {
                        let __gpu_value = #value;
                        *#place #assign __gpu_value
                    }))
                }
                None => {
                    self.visit_expr_mut(&mut b.left);
                    None
                }
            },
            _ => {
                self.visit_expr_mut(&mut b.left);
                None
            }
        }
    }

    /// `x.f[k].. = v` or `x.f[k].. op= v` (`op` the binary operator of a compound
    /// assignment), where `f` is an array field of a struct: the whole assignment,
    /// rewritten; `None` when `place` names no element of an array field. `value` is
    /// already rewritten. In an element of a view (`ps[i].f[k].y`) only the part's bytes
    /// are written, as for any field of a view's element. Evaluation order is Rust's: the
    /// value, then the element's index, then the field indices from the inside out.
    fn array_field_assign(
        &mut self,
        place: &syn::Expr,
        op: Option<TokenStream>,
        value: &syn::Expr,
    ) -> Option<syn::Expr> {
        let (steps, root) = crate::lower::tables::place_steps(place);
        if !steps.iter().any(|s| matches!(s, PlaceStep::Index(_))) {
            return None;
        }
        let span = place.span();
        let k = self.krate.clone();
        // Each field index into a hidden local, and the path in terms of them.
        let mut lets = Vec::new();
        let mut path = Vec::new();
        let mut last_member = String::new();
        for step in steps {
            match step {
                PlaceStep::Member(m) => {
                    last_member = member_name(m);
                    path.push(PathStep::Member(m.clone()));
                }
                PlaceStep::Index(index) => {
                    let mut index = index.clone();
                    self.visit_expr_mut(&mut index);
                    let name = quote::format_ident!("__gpu_k{}", lets.len(), span = span);
                    lets.push(quote_spanned!(span=> let #name = #index;));
                    let label = gpu_contract::check_names::array_field(&last_member);
                    path.push(PathStep::Index(name, label));
                }
            }
        }
        // One span for every hidden name: the user's tokens may come through a struct's
        // macro, whose call site is another hygiene context.
        let writable = |base: TokenStream| -> TokenStream {
            path.iter().fold(base, |at, step| match step {
                PathStep::Member(m) => quote_spanned!(span=> #at.#m),
                PathStep::Index(i, label) => quote_spanned!(span=>
                    (*#k::__private::local_mut(&mut #at, #i, #label))),
            })
        };
        let readable = |base: TokenStream| -> TokenStream {
            path.iter().fold(base, |at, step| match step {
                PathStep::Member(m) => quote_spanned!(span=> #at.#m),
                PathStep::Index(i, label) => quote_spanned!(span=>
                    (*#k::__private::local_ref(&#at, #i, #label))),
            })
        };
        if let Some((view, element)) = self.view_index(root) {
            let mut element = element;
            self.visit_expr_mut(&mut element);
            let new = match &op {
                Some(op) => {
                    let old = readable(quote_spanned!(span=> #view.get(__gpu_index)));
                    quote_spanned!(span=> #old #op __gpu_value)
                }
                None => quote_spanned!(span=> __gpu_value),
            };
            let part = writable(quote_spanned!(span=> (*__gpu_e)));
            return Some(syn::parse_quote_spanned!(span=> {
                let __gpu_value = #value;
                let __gpu_index = #element;
                // The element's index is checked before the field's, as in Rust.
                let _ = #view.element(__gpu_index);
                #(#lets)*
                #view.set_field_by(__gpu_index, |__gpu_e| &mut #part, #new)
            }));
        }
        let root = match self.local_access(root, true) {
            Some(access) => quote_spanned!(span=> (*#access)),
            None => {
                let mut root = root.clone();
                self.visit_expr_mut(&mut root);
                quote_spanned!(span=> #root)
            }
        };
        let part = writable(root);
        let assign = match &op {
            Some(op) => quote_spanned!(span=> *__gpu_place = *__gpu_place #op __gpu_value),
            None => quote_spanned!(span=> *__gpu_place = __gpu_value),
        };
        Some(syn::parse_quote_spanned!(span=> {
            let __gpu_value = #value;
            #(#lets)*
            let __gpu_place = &mut #part;
            #assign
        }))
    }
}

/// `{ let __gpu_value = value; write }`, spanned at the place: the value is evaluated
/// before the place's index, as Rust evaluates them.
fn value_first(span: Span, value: &syn::Expr, write: TokenStream) -> syn::Expr {
    syn::parse_quote_spanned!(span=> {
        let __gpu_value = #value;
        #write
    })
}

/// The compound assignment token of `op` (`+=`), spanned as written.
fn compound_token(op: &syn::BinOp) -> TokenStream {
    quote!(#op)
}

/// The binary operator of a compound assignment (`+=` gives `+`).
pub(super) fn compound_to_binary(op: &syn::BinOp) -> Option<TokenStream> {
    use syn::BinOp as B;
    let span = op.span();
    Some(match op {
        B::AddAssign(_) => quote_spanned!(span=> +),
        B::SubAssign(_) => quote_spanned!(span=> -),
        B::MulAssign(_) => quote_spanned!(span=> *),
        B::DivAssign(_) => quote_spanned!(span=> /),
        B::RemAssign(_) => quote_spanned!(span=> %),
        B::BitAndAssign(_) => quote_spanned!(span=> &),
        B::BitOrAssign(_) => quote_spanned!(span=> |),
        B::BitXorAssign(_) => quote_spanned!(span=> ^),
        B::ShlAssign(_) => quote_spanned!(span=> <<),
        B::ShrAssign(_) => quote_spanned!(span=> >>),
        _ => return None,
    })
}
