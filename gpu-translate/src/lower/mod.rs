//! Lowering: a body, as syn parsed it, into the kernel IR with inference variables.
//!
//! Rule: every construct is either lowered with its meaning intact or reported, on its own
//! tokens, with what to write instead. Lowering continues after an error so that every
//! mistake in a body is reported at once. Types are inferred as lowering goes (see
//! `infer.rs`); what they must permit is checked afterwards, by `check`.
//!
//! The lowerer is split by what it lowers: statements (`stmt.rs`), expressions
//! (`expr.rs`), casts (`cast.rs`), places and indices (`place.rs`), calls of every kind (`call.rs`), complex
//! numbers' constructors, methods and fields (`complex.rs`), the methods and associated
//! functions of structs (`methods.rs`), standard functions called by path
//! (`std_paths.rs`: `f32::max(a, b)`, `cmp::min`, `f64::from`), array declarations
//! (`array.rs`), the tensor cores' operations (`mma.rs`), the language's fixed names (`tables.rs`), and what to write instead of a
//! method kernels lack (`advice.rs`).

mod advice;
mod array;
mod call;
mod cast;
mod closures;
mod complex;
mod const_arrays;
mod control;
mod data_enums;
mod expr;
mod lend;
mod math;
mod methods;
mod mma;
mod option;
mod place;
mod print;
mod std_paths;
mod stmt;
mod structs;
pub(crate) mod tables;
mod traits;
mod try_from;
mod tuple;

use crate::names::unraw;
use gpu_contract::check_names;
use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::diagnostics::Diagnostics;
use crate::infer::{TypeError, TypeTable};
use crate::ir::{self, ArrayVar, Local, Param, SliceParam, Ty, VarId, VarKind};
use crate::names::NameAllocator;
use crate::parse::signature::{KernelSignature, ParamShape};

pub use tables::device_c_name;

type Expr = ir::Expr<Ty>;
type Block = ir::Block<Ty>;
type Stmt = ir::Stmt<Ty>;
type Place = ir::Place<Ty>;

/// A lowered body with the table of its inference variables.
pub struct Lowered {
    /// The IR, types not yet final.
    pub kernel: ir::Kernel<Ty>,
    /// The inference variables.
    pub types: TypeTable,
}

#[derive(Clone, Copy)]
enum Binding {
    Local(VarId),
    Slice(ir::SliceId),
    Array(ir::ArrayId),
    /// An `Option` local (`option.rs`): its flag and its value.
    Option(VarId, VarId),
}

/// What a value expression may be: at the top of a `let`, an assignment or a value block
/// it may contain statements (an `if` with statements in its branches); inside an operand
/// it must be a pure expression, so C can evaluate it in place.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Position {
    Top,
    Operand,
}

struct Lowerer<'a> {
    sig: &'a KernelSignature,
    diags: &'a mut Diagnostics,
    types: TypeTable,
    names: NameAllocator,
    k: ir::Kernel<Ty>,
    scopes: Vec<Vec<(String, Binding)>>,
    loop_depth: usize,
    /// The enclosing loops' labels, innermost last (`None` for a loop without one).
    labels: Vec<Option<ir::Label>>,
    /// Locals whose `let` failed: already reported, so their uses are not.
    poisoned: Vec<VarId>,
    /// Whether the kernel is `unchecked`: every access is.
    unchecked: bool,
    /// The block size `launch_bounds` fixes, which a tensor-core accumulator is spread over.
    launch_threads: Option<u32>,
    /// The dtype parameters' names, for messages.
    generic_names: Vec<String>,
    /// How many shared arrays have been declared (each gets its own site).
    shared_sites: usize,
    /// How many `unsafe` blocks the code being lowered is inside.
    unsafe_depth: usize,
    /// Whether `self` may be read whole here, in a method taking `&mut self`: as a method's
    /// receiver, a field's base or `*self`.
    self_value: bool,
    /// Locals declared without a value (`let mut r;`) that a later assignment in their block
    /// gives an `Option` (`r = Some(i);`, as a `loop`'s `break Some(i)` desugars): they are
    /// declared as `Option` locals (`option.rs`).
    late_options: Vec<String>,
    /// The names that are references (`x: &mut f32` parameters, `r` of `let r = &mut acc;`)
    /// and the local each names: `*x` is that local, and `x` passed on lends it again.
    references: Vec<(String, VarId)>,
    /// A device function's closure parameters: each one's local and its index in the
    /// signature's closures.
    closure_params: Vec<(VarId, usize)>,
    /// How many closures passed to device functions the code being lowered is inside.
    lambda_depth: usize,
}

/// Lower the body of the function whose signature is `sig`.
pub fn lower(
    sig: &KernelSignature,
    body: &syn::Block,
    unchecked: bool,
    launch_threads: Option<u32>,
    diags: &mut Diagnostics,
) -> Lowered {
    let mut names = NameAllocator::default();
    let generic_c_names: Vec<String> = sig
        .generics
        .iter()
        .map(|g| names.fresh(&unraw(&g.ident)))
        .collect();
    let closure_c_names: Vec<String> = sig
        .closures
        .iter()
        .map(|c| names.fresh(&format!("{}_fn", unraw(&c.ident))))
        .collect();
    // Device functions live beside the kernels in one C++ program: a prefix of their own
    // keeps them clear of locals, builtins and each other's parameters.
    let c_name = if let Some(s) = sig.method_of {
        crate::names::method_c_name(&sig.structs[s].name, &unraw(&sig.ident))
    } else if let Some(p) = sig.self_dtype {
        // Named by its C type: `u64`'s and `usize`'s are one function in C, which the
        // runtime refuses to hold twice.
        crate::names::method_c_name(&p.c_name().replace(' ', "_"), &unraw(&sig.ident))
    } else if sig.device {
        device_c_name(&unraw(&sig.ident))
    } else {
        names.fresh(&unraw(&sig.ident))
    };
    let mut l = Lowerer {
        sig,
        diags,
        types: TypeTable::with_structs(sig.structs.iter().map(|s| s.name.clone()).collect()),
        names,
        k: ir::Kernel {
            c_name,
            generic_c_names,
            closure_c_names,
            device_calls: Vec::new(),
            arrays: Vec::new(),
            locals: Vec::new(),
            slices: Vec::new(),
            consts: Vec::new(),
            prints: 0,
            params: Vec::new(),
            ret: sig.ret,
            ret_tuple: sig.ret_tuple.clone(),
            body: Block::default(),
            waits: false,
            cooperative: false,
            unsafe_calls: false,
            literal_calls: Vec::new(),
            tensor_cores: false,
            check_names: Vec::new(),
            fast_path: Vec::new(),
        },
        scopes: vec![Vec::new()],
        loop_depth: 0,
        labels: Vec::new(),
        poisoned: Vec::new(),
        unchecked,
        launch_threads,
        generic_names: sig.generics.iter().map(|g| g.ident.to_string()).collect(),
        shared_sites: 0,
        self_value: false,
        unsafe_depth: 0,
        late_options: Vec::new(),
        references: Vec::new(),
        closure_params: Vec::new(),
        lambda_depth: 0,
    };
    l.declare_params();
    l.declare_tables(body);
    l.k.body = l.lower_body(body);
    Lowered {
        kernel: l.k,
        types: l.types,
    }
}

impl Lowerer<'_> {
    /// Bind each parameter: an array parameter to its C names (pointer and extents) and
    /// check names, a scalar to a local.
    fn declare_params(&mut self) {
        for p in &self.sig.params {
            let rust_name = unraw(&p.ident);
            match p.shape {
                ParamShape::Slice {
                    mutable,
                    elem,
                    rank,
                } => {
                    let c_name = self.names.fresh(&rust_name);
                    let extents: Vec<String> = match rank {
                        1 => vec![self.names.fresh(&format!("{rust_name}_len"))],
                        2 => ["rows", "cols"]
                            .iter()
                            .map(|e| self.names.fresh(&format!("{rust_name}_{e}")))
                            .collect(),
                        _ => (0..rank)
                            .map(|k| self.names.fresh(&format!("{rust_name}_dim{k}")))
                            .collect(),
                    };
                    // A device function's arrays are checked under the caller's names.
                    let check_id = self.k.check_names.len();
                    if !self.sig.device {
                        for axis in 0..rank {
                            self.k
                                .check_names
                                .push(check_names::parameter_axis(&rust_name, rank, axis));
                        }
                    }
                    let site_c_name = if self.sig.device {
                        self.names.fresh(&format!("{rust_name}_site"))
                    } else {
                        String::new()
                    };
                    self.k.slices.push(SliceParam {
                        rust_name: rust_name.clone(),
                        c_name,
                        extents,
                        elem,
                        mutable,
                        check_id,
                        site_c_name,
                    });
                    let id = self.k.slices.len() - 1;
                    self.bind(rust_name, Binding::Slice(id));
                    self.k.params.push(Param::Slice(id));
                }
                ParamShape::Scalar {
                    ty,
                    mutable,
                    by_ref,
                } => {
                    let var = self.declare(&rust_name, ty, p.ident.span(), mutable);
                    if by_ref {
                        self.references.push((rust_name.clone(), var));
                    }
                    self.k.params.push(Param::Scalar(var));
                }
                ParamShape::Option { ty } => {
                    let (some, value) = self.option_locals(&rust_name, ty, p.ident.span());
                    let pair = self.declare_hidden(
                        &format!("{rust_name}_opt"),
                        Ty::Prim(crate::ir::Prim::Bool),
                        p.ident.span(),
                    );
                    self.bind(rust_name, Binding::Option(some, value));
                    self.k.params.push(Param::Option(some, value, pair));
                }
                ParamShape::Closure { index } => {
                    self.declare_closure_param(rust_name, index, p.ident.span())
                }
            }
        }
    }

    /// The body, as a unit block; a device function's final value (a value or a tuple)
    /// becomes its `return`.
    fn lower_body(&mut self, body: &syn::Block) -> Block {
        match (self.sig.ret, body.stmts.last()) {
            // A device function whose body ends in its value.
            (Some(ret), Some(syn::Stmt::Expr(e, None))) if !tables::is_statement_like(e) => {
                match self.value_block(body, Position::Top) {
                    Some((mut block, ty)) => {
                        self.unify(ret, ty, body.span());
                        if let Some(tail) = block.tail.take() {
                            block.stmts.push(Stmt::ReturnValue(tail));
                        }
                        block
                    }
                    None => Block::default(),
                }
            }
            // A device function returning a tuple whose body ends in it: `return` it.
            (None, Some(syn::Stmt::Expr(e, None)))
                if !self.sig.ret_tuple.is_empty() && !tables::is_statement_like(e) =>
            {
                let mut body = body.clone();
                returning_tail(&mut body);
                self.unit_block(&body)
            }
            _ => self.unit_block(body),
        }
    }
}

/// `body` with its final value returned: `return (a, b);`, and a final `if`/`else` or
/// block returning from each of its branches (so each branch's tuple is a `return`).
fn returning_tail(body: &mut syn::Block) {
    if !matches!(body.stmts.last(), Some(syn::Stmt::Expr(_, None))) {
        return;
    }
    let Some(syn::Stmt::Expr(tail, None)) = body.stmts.pop() else {
        return;
    };
    let stmt = match tail {
        syn::Expr::If(mut i) if i.else_branch.is_some() => {
            returning_tail(&mut i.then_branch);
            if let Some((_, e)) = &mut i.else_branch {
                match &mut **e {
                    syn::Expr::Block(b) => returning_tail(&mut b.block),
                    syn::Expr::If(_) => {
                        let mut wrapper = syn::Block {
                            brace_token: Default::default(),
                            stmts: vec![syn::Stmt::Expr((**e).clone(), None)],
                        };
                        returning_tail(&mut wrapper);
                        **e = syn::Expr::Block(syn::ExprBlock {
                            attrs: Vec::new(),
                            label: None,
                            block: wrapper,
                        });
                    }
                    _ => {}
                }
            }
            syn::Stmt::Expr(syn::Expr::If(i), None)
        }
        syn::Expr::Block(mut b) if b.label.is_none() => {
            returning_tail(&mut b.block);
            syn::Stmt::Expr(syn::Expr::Block(b), None)
        }
        // A tail that already leaves the function (`return (b, a)`, a `loop`) stays.
        tail @ (syn::Expr::Return(_) | syn::Expr::Loop(_)) => syn::Stmt::Expr(tail, None),
        tail => {
            let span = tail.span();
            syn::Stmt::Expr(
                syn::parse_quote_spanned!(span=> return #tail),
                Some(syn::Token![;](span)),
            )
        }
    };
    body.stmts.push(stmt);
}

impl Lowerer<'_> {
    fn err(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.diags.error(span, msg);
    }

    fn bind(&mut self, name: String, b: Binding) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name, b));
        }
    }

    fn declare(&mut self, rust_name: &str, ty: Ty, span: Span, mutable: bool) -> VarId {
        let c_name = self.names.fresh(rust_name);
        self.k.locals.push(Local {
            rust_name: rust_name.to_owned(),
            c_name,
            ty,
            span,
            mutable,
        });
        let id = self.k.locals.len() - 1;
        self.bind(rust_name.to_owned(), Binding::Local(id));
        id
    }

    /// A local the translation needs but the body cannot name (it is bound to no name).
    fn declare_hidden(&mut self, rust_name: &str, ty: Ty, span: Span) -> VarId {
        let c_name = self.names.fresh(rust_name);
        self.k.locals.push(Local {
            rust_name: rust_name.to_owned(),
            c_name,
            ty,
            span,
            mutable: false,
        });
        self.k.locals.len() - 1
    }

    /// Bind `name` to a local whose declaration failed (already reported), so its uses
    /// are not reported again.
    fn declare_poisoned(&mut self, name: &str, span: Span) {
        let ty = self.types.fresh(VarKind::Any);
        let var = self.declare(name, ty, span, true);
        self.poisoned.push(var);
    }

    /// The local the reference named `name` names, where `name` is one in scope here (not a
    /// later binding of the same name).
    fn reference(&self, name: &str) -> Option<VarId> {
        let Some(Binding::Local(v)) = self.lookup(name) else {
            return None;
        };
        self.references
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .and_then(|&(_, w)| (w == v).then_some(v))
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, b)| *b)
    }

    fn unify(&mut self, a: Ty, b: Ty, span: Span) {
        if let Err(e) = self.types.unify(a, b) {
            self.type_error(&e, span);
        }
    }

    fn type_error(&mut self, e: &TypeError, span: Span) {
        let msg = self.types.explain(e, &self.generic_names);
        self.err(span, msg);
    }

    fn describe(&mut self, t: Ty) -> String {
        self.types.describe(t, &self.generic_names)
    }

    /// Declare an array found in the body, with its C names and check.
    fn add_array(&mut self, rust_name: &str, mut array: ArrayVar<Ty>) -> ir::ArrayId {
        array.rust_name = rust_name.to_owned();
        array.c_name = self.names.fresh(rust_name);
        if array.space == ir::Space::DynamicShared {
            array.len_c_name = self.names.fresh(&format!("{rust_name}_len"));
        }
        if matches!(array.space, ir::Space::Table | ir::Space::Global) {
            // Data of the whole program: unique among every function's names.
            array.c_name = format!("gt_t{}_{}", self.k.arrays.len(), self.k.c_name);
        } else if array.space != ir::Space::Local {
            array.site = self.shared_sites;
            self.shared_sites += 1;
        }
        array.check_id = self.k.check_names.len();
        self.k.check_names.push(match array.space {
            ir::Space::Local => check_names::local_array(rust_name),
            ir::Space::Table => check_names::const_table(rust_name),
            ir::Space::Global => check_names::device_global(rust_name),
            _ => check_names::shared_array(rust_name),
        });
        self.k.arrays.push(array);
        self.k.arrays.len() - 1
    }

    /// The check an access needs by default.
    fn default_check(&self) -> ir::Check {
        if self.unchecked {
            ir::Check::Unchecked
        } else {
            ir::Check::Required
        }
    }
}
