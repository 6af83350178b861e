//! User structs: `#[gpu_struct]`, and how their fields reach the kernels that use them.
//!
//! A kernel's attribute sees only its own function, not the definitions of the structs its
//! signature and body name. So `#[gpu_struct] struct Particle { .. }` also defines a
//! macro named `Particle` (in the macro namespace, so `use phys::Particle;` imports it with
//! the type) that hands the struct's fields to a callback. A kernel or device function
//! that names a struct it has no fields for expands to that macro's call, carrying its own
//! tokens; the callback (the expansion step's `expand/structs.rs`) adds the fields and
//! translates, or asks the next struct (a nested one) first. This file parses what those
//! macros carry and the `#[gpu_struct]` definitions themselves. Rule: every struct a kernel uses, nested ones
//! included, must be nameable where the kernel is, by the name its uses write; the struct's
//! macro is `pub(crate)`, so kernels use the structs of their own crate.

use proc_macro2::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::diagnostics::Diagnostics;
use crate::ir::Prim;
use crate::parse::attr::parse_attr;

/// Index of a struct in [`Structs`].
pub type StructId = usize;

/// The type of a struct field's elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldTy {
    /// A dtype.
    Prim(Prim),
    /// Another struct.
    Struct(StructId),
}

/// A field as the struct's definition declares it.
#[derive(Clone, Debug)]
pub struct FieldDef {
    /// Its name.
    pub name: String,
    /// Its elements' type.
    pub ty: FieldTy,
    /// `Some(n)` for a `[T; n]` field.
    pub len: Option<u64>,
}

/// A struct a kernel uses.
#[derive(Clone, Debug)]
pub struct StructDef {
    /// Its name (the last segment of every path that names it).
    pub name: String,
    /// Its C name ([`gpu_contract::struct_layout::c_struct_name`]).
    pub c_name: String,
    /// Its fields, in declaration order (a C-like enum's one field, `value`, of its repr).
    pub fields: Vec<FieldDef>,
    /// A C-like enum's (`#[gpu_enum]`) variants and their values; empty for a struct.
    pub variants: Vec<(String, i64)>,
    /// A `#[gpu_enum]` with data: its variants, in order (the tag is the position); empty
    /// otherwise. Its `fields` are the C struct's: the tag, then every variant's fields
    /// ([`data_field_name`](super::data_enums::data_field_name)).
    pub data: Vec<super::data_enums::DataVariant>,
}

impl StructDef {
    /// The field named `name`, with its index.
    pub fn field(&self, name: &str) -> Option<(usize, &FieldDef)> {
        if self.is_enum() || self.is_data_enum() {
            return None;
        }
        self.fields.iter().enumerate().find(|(_, f)| f.name == name)
    }

    /// Whether it is a C-like enum.
    pub fn is_enum(&self) -> bool {
        !self.variants.is_empty()
    }

    /// Whether it is a `#[gpu_enum]` with data.
    pub fn is_data_enum(&self) -> bool {
        !self.data.is_empty()
    }

    /// A pattern of one of a data enum's variants, for messages: `Shape::Circle(..)` (the
    /// first that holds data).
    pub fn variant_example(&self) -> String {
        let v = self
            .data
            .iter()
            .find(|v| !v.fields.is_empty())
            .or(self.data.first());
        match v {
            Some(v) if super::data_enums::tuple_fields(&v.fields) => {
                format!("{}::{}(..)", self.name, v.name)
            }
            Some(v) if !v.fields.is_empty() => format!("{}::{} {{ .. }}", self.name, v.name),
            Some(v) => format!("{}::{}", self.name, v.name),
            None => self.name.clone(),
        }
    }

    /// The C field (index and definition) holding field `field` of variant `variant`, or
    /// the tag's for `field` [`TAG_FIELD`](super::data_enums::TAG_FIELD) and no variant.
    pub fn data_field(&self, variant: Option<&str>, field: &str) -> Option<(usize, &FieldDef)> {
        let c = match variant {
            Some(v) => super::data_enums::data_field_name(v, field),
            None => field.to_owned(),
        };
        self.fields.iter().enumerate().find(|(_, f)| f.name == c)
    }

    /// The value of variant `name` of a C-like enum.
    pub fn variant(&self, name: &str) -> Option<i64> {
        self.variants
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }
}

/// The structs known to a translation, each once.
pub type Structs = Vec<StructDef>;

/// Names that are never structs: the runtime's own types, which have their own messages.
const NOT_STRUCTS: &[&str] = &[
    "Array2",
    "Array3",
    "DeviceArray",
    "DeviceArray2",
    "DeviceArray3",
    "Vec",
    "String",
    "Self",
    "Option",
    "Box",
    // Traits, whose functions a kernel may name (`Float::max`), are no structs either.
    "Float",
    "Int",
    "Num",
    "MmaOperand",
    "Dtype",
    "Element",
    "Default",
];

/// The struct named `name` in `structs`.
pub fn struct_named(structs: &[StructDef], name: &str) -> Option<StructId> {
    structs.iter().position(|s| s.name == name)
}

/// Whether `path` could name a struct: one without generic arguments whose last segment
/// starts with a capital letter and is not a dtype or one of the runtime's types. Among
/// generic arguments (`as_const_arg`), where a constant can stand (`shared_array::<f32,
/// TILE>()`), the name must also have a lowercase letter: an all-capitals name there is a
/// constant. A type in any other place (`p: P`, `&[Vec3]`, `P { .. }`) is never one.
fn struct_candidate(path: &syn::Path, as_const_arg: bool) -> Option<String> {
    let last = path.segments.last()?;
    if !last.arguments.is_none() || path.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    let name = crate::names::unraw(&last.ident);
    let capital = name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && (!as_const_arg || name.chars().any(|c| c.is_ascii_lowercase()));
    let named_type = Prim::from_rust_name(&name).is_some()
        || matches!(name.as_str(), "Complex32" | "Complex64" | "Complex");
    (capital && !named_type && !NOT_STRUCTS.contains(&name.as_str())).then_some(name)
}

/// The visitor of [`missing_structs`].
struct Finder<'a> {
    known: &'a [String],
    generics: Vec<String>,
    out: Vec<(String, syn::Path)>,
    /// How deep inside generic arguments (`::<..>`) the visit is.
    generic_args: usize,
}
impl Finder<'_> {
    fn note(&mut self, path: &syn::Path) {
        let Some(name) = struct_candidate(path, self.generic_args > 0) else {
            return;
        };
        if self.generics.contains(&name)
            || self.known.contains(&name)
            || self.out.iter().any(|(n, _)| *n == name)
        {
            return;
        }
        self.out.push((name, path.clone()));
    }
    /// The struct `path` names (`Pair { .. }`, `geo::Pair { .. }`), or the enum of the
    /// variant it names (`Shape::Rect { .. }`: a type's name is capitalised, a
    /// module's not).
    fn note_struct_or_variant(&mut self, path: &syn::Path) {
        let n = path.segments.len();
        let in_type = n >= 2
            && crate::names::unraw(&path.segments[n - 2].ident)
                .starts_with(|c: char| c.is_ascii_uppercase());
        if in_type {
            let mut owner = path.clone();
            owner.segments.pop();
            owner.segments.pop_punct();
            self.note(&owner);
        } else {
            self.note(path);
        }
    }
}
impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_type_path(&mut self, t: &'ast syn::TypePath) {
        if t.qself.is_none() {
            self.note(&t.path);
        }
        syn::visit::visit_type_path(self, t);
    }
    // `P::new(x, y)` (an associated function of the struct `P`) and `Op::Add` (a variant
    // of the enum `Op`); not `Grid::N`, a constant (upper case) of whatever `Grid` is.
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        let n = p.path.segments.len();
        let lower = p.path.segments.last().is_some_and(|l| {
            crate::names::unraw(&l.ident)
                .chars()
                .any(|c| c.is_ascii_lowercase())
        });
        if p.qself.is_none() && n >= 2 && lower {
            let mut owner = p.path.clone();
            owner.segments.pop();
            owner.segments.pop_punct();
            self.note(&owner);
        }
        syn::visit::visit_expr_path(self, p);
    }
    fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
        if e.qself.is_none() {
            self.note_struct_or_variant(&e.path);
        }
        syn::visit::visit_expr_struct(self, e);
    }
    fn visit_pat_struct(&mut self, p: &'ast syn::PatStruct) {
        if p.qself.is_none() {
            self.note_struct_or_variant(&p.path);
        }
        syn::visit::visit_pat_struct(self, p);
    }
    // `Shape::Circle(r)`: the enum `Shape` (never `Some(x)`, a path of one segment).
    fn visit_pat_tuple_struct(&mut self, p: &'ast syn::PatTupleStruct) {
        if p.qself.is_none() && p.path.segments.len() >= 2 {
            self.note_struct_or_variant(&p.path);
        }
        syn::visit::visit_pat_tuple_struct(self, p);
    }
    fn visit_angle_bracketed_generic_arguments(
        &mut self,
        a: &'ast syn::AngleBracketedGenericArguments,
    ) {
        self.generic_args += 1;
        syn::visit::visit_angle_bracketed_generic_arguments(self, a);
        self.generic_args -= 1;
    }
    // `Option<P>`'s argument is a type, even in capitals (`Option<RGB>`).
    fn visit_path_segment(&mut self, s: &'ast syn::PathSegment) {
        if s.ident != "Option" {
            return syn::visit::visit_path_segment(self, s);
        }
        if let syn::PathArguments::AngleBracketed(a) = &s.arguments {
            for arg in &a.args {
                self.visit_generic_argument(arg);
            }
        }
    }
    // Nested items are refused elsewhere; their types are not the kernel's.
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    // The arguments of the macros kernels take (`assert!(c == Op::Add)`,
    // `println!("{}", p.x)`, `matches!(op, Op::Add)`): syn leaves macro bodies as
    // tokens, and the desugar step, which opens them, comes after the fetch.
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        use syn::parse::Parser;
        let exprs = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(args) = exprs.parse2(m.tokens.clone()) {
            args.iter().for_each(|e| self.visit_expr(e));
        } else if let Ok((e, p)) = (|input: syn::parse::ParseStream<'_>| {
            let e: syn::Expr = input.parse()?;
            input.parse::<syn::Token![,]>()?;
            let p = syn::Pat::parse_multi_with_leading_vert(input)?;
            let _: proc_macro2::TokenStream = input.parse()?;
            Ok((e, p))
        })
        .parse2(m.tokens.clone())
        {
            self.visit_expr(&e);
            self.visit_pat(&p);
        }
    }
}

/// The paths of the structs `f` names (in its signature and body) that are not among
/// `known`, each once, in the order they are met. Its dtype parameters are not structs.
pub fn missing_structs(f: &syn::ItemFn, known: &[String]) -> Vec<syn::Path> {
    let generics = f
        .sig
        .generics
        .type_params()
        .map(|p| p.ident.to_string())
        .collect();
    let mut finder = Finder {
        known,
        generics,
        out: Vec::new(),
        generic_args: 0,
    };
    finder.visit_signature(&f.sig);
    finder.visit_block(&f.block);
    finder.out.into_iter().map(|(_, p)| p).collect()
}

/// A field's type as the struct's definition writes it, resolved against the dtypes; a
/// name that is no dtype is a struct (fetched later).
#[derive(Clone, Debug)]
pub(crate) enum WrittenTy {
    Prim(Prim),
    Struct(syn::Path),
}

/// A struct's fields as the callback carries them: `struct Name { a: f32, b: [u32; 2] }`;
/// a C-like enum's repr and variants: `enum Op: u8 { Add = 0, Mul = 4 }` (its one field
/// `value` of the repr); a data enum's variants (`parse/data_enums.rs`).
pub(crate) struct Carried {
    pub name: syn::Ident,
    pub fields: Vec<(syn::Ident, WrittenTy, Option<u64>)>,
    pub variants: Vec<(syn::Ident, i64)>,
    /// A `#[gpu_enum]` with data: its variants (`fields` are then its C struct's).
    pub data: Vec<super::data_enums::CarriedVariant>,
}

/// A field type of a `#[gpu_struct]`: a dtype, a struct, or an array of either with a
/// literal length.
pub(crate) fn field_type(ty: &syn::Type) -> Result<(WrittenTy, Option<u64>), syn::Error> {
    const HELP: &str = "a #[gpu_struct] field is a dtype (f32 f64 f16 bf16 i8 i16 i32 i64 u8 \
                        u16 u32 u64 usize isize bool Complex32 Complex64) or another \
                        #[gpu_struct]";
    match ty {
        syn::Type::Array(a) => {
            let len = match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) => n.base10_parse::<u64>().ok().filter(|n| *n > 0),
                _ => None,
            };
            let Some(len) = len else {
                return Err(syn::Error::new(
                    a.len.span(),
                    "write an array field's length as a positive integer literal (`[f32; 3]`)",
                ));
            };
            match field_type(&a.elem)? {
                (t, None) => Ok((t, Some(len))),
                (_, Some(_)) => Err(syn::Error::new(
                    a.elem.span(),
                    "arrays of arrays are not struct fields; flatten it (`[f32; 9]`) or make the \
                     inner array a #[gpu_struct]",
                )),
            }
        }
        syn::Type::Path(p) if p.qself.is_none() => {
            if let Some(crate::ir::Ty::Prim(prim)) =
                crate::parse::signature::resolve_type_name(ty, &[], &[])
            {
                return Ok((WrittenTy::Prim(prim), None));
            }
            match struct_candidate(&p.path, false) {
                Some(_) => Ok((WrittenTy::Struct(p.path.clone()), None)),
                None => Err(syn::Error::new(ty.span(), HELP)),
            }
        }
        _ => Err(syn::Error::new(ty.span(), HELP)),
    }
}

impl Parse for Carried {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        if input.peek(syn::Token![enum]) {
            input.parse::<syn::Token![enum]>()?;
            let name: syn::Ident = input.parse()?;
            if !input.peek(syn::Token![:]) {
                return super::data_enums::parse_carried(name, input);
            }
            input.parse::<syn::Token![:]>()?;
            let repr: syn::Type = input.parse()?;
            let (repr, _) = field_type(&repr)?;
            let body;
            syn::braced!(body in input);
            let mut variants = Vec::new();
            while !body.is_empty() {
                let v: syn::Ident = body.parse()?;
                body.parse::<syn::Token![=]>()?;
                let negative = body.parse::<Option<syn::Token![-]>>()?.is_some();
                let n: syn::LitInt = body.parse()?;
                let magnitude = n.base10_parse::<i128>()?;
                let value: i64 = (if negative { -magnitude } else { magnitude })
                    .try_into()
                    .map_err(|_| syn::Error::new(n.span(), "an enum value within 64 bits"))?;
                variants.push((v, value));
                if !body.is_empty() {
                    body.parse::<syn::Token![,]>()?;
                }
            }
            let value = syn::Ident::new("value", name.span());
            return Ok(Carried {
                name,
                fields: vec![(value, repr, None)],
                variants,
                data: Vec::new(),
            });
        }
        input.parse::<syn::Token![struct]>()?;
        let name: syn::Ident = input.parse()?;
        // `struct Name;`: a `#[gpu_struct]` that was refused (its error already reported):
        // no fields, which a valid one never has.
        if input.parse::<Option<syn::Token![;]>>()?.is_some() {
            return Ok(Carried {
                name,
                fields: Vec::new(),
                variants: Vec::new(),
                data: Vec::new(),
            });
        }
        let body;
        syn::braced!(body in input);
        let fields =
            syn::punctuated::Punctuated::<syn::Field, syn::Token![,]>::parse_terminated_with(
                &body,
                syn::Field::parse_named,
            )?;
        let mut out = Vec::new();
        for f in fields {
            let (ty, len) = field_type(&f.ty)?;
            let ident = f
                .ident
                .ok_or_else(|| syn::Error::new(f.ty.span(), "a named field"))?;
            out.push((ident, ty, len));
        }
        Ok(Carried {
            name,
            fields: out,
            variants: Vec::new(),
            data: Vec::new(),
        })
    }
}

/// What the callback carries: the attribute that asked (`kernel`, `device` or
/// `elementwise`), its options, its function, and the structs fetched so far.
pub(crate) struct Callback {
    pub which: syn::Ident,
    pub attr: TokenStream,
    pub item: TokenStream,
    pub structs: Vec<Carried>,
}

impl Parse for Callback {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let which: syn::Ident = input.parse()?;
        let attr;
        syn::parenthesized!(attr in input);
        let item;
        syn::braced!(item in input);
        let mut structs = Vec::new();
        while !input.is_empty() {
            structs.push(input.parse()?);
        }
        Ok(Callback {
            which,
            attr: attr.parse()?,
            item: item.parse()?,
            structs,
        })
    }
}

/// Structs as their macros carry them, resolved (for tests and tools).
pub fn parse_structs(tokens: TokenStream) -> Result<Structs, Diagnostics> {
    struct All(Vec<Carried>);
    impl Parse for All {
        fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
            let mut v = Vec::new();
            while !input.is_empty() {
                v.push(input.parse()?);
            }
            Ok(All(v))
        }
    }
    let mut diags = Diagnostics::default();
    match syn::parse2::<All>(tokens) {
        Ok(all) => {
            let s = resolve_carried(&all.0, &mut diags);
            if diags.is_empty() {
                Ok(s)
            } else {
                Err(diags)
            }
        }
        Err(e) => {
            diags.error(e.span(), e.to_string());
            Err(diags)
        }
    }
}

/// The carried structs as the translator's table.
pub(crate) fn resolve_carried(carried: &[Carried], diags: &mut Diagnostics) -> Structs {
    let mut out: Structs = carried
        .iter()
        .map(|s| StructDef {
            name: crate::names::unraw(&s.name),
            c_name: gpu_contract::struct_layout::c_struct_name(&crate::names::unraw(&s.name)),
            fields: Vec::new(),
            variants: s
                .variants
                .iter()
                .map(|(v, n)| (crate::names::unraw(v), *n))
                .collect(),
            data: s
                .data
                .iter()
                .map(|v| super::data_enums::DataVariant {
                    name: crate::names::unraw(&v.name),
                    fields: v.fields.iter().map(|(f, _)| f.clone()).collect(),
                })
                .collect(),
        })
        .collect();
    for (i, s) in carried.iter().enumerate() {
        if out[..i].iter().any(|o| o.name == out[i].name) {
            diags.error(
                s.name.span(),
                format!(
                    "two structs named `{}` are used together; rename one",
                    s.name
                ),
            );
        }
        let fields = s
            .fields
            .iter()
            .filter_map(|(f, ty, len)| {
                let ty = match ty {
                    WrittenTy::Prim(p) => FieldTy::Prim(*p),
                    WrittenTy::Struct(p) => {
                        let name = p.segments.last()?.ident.to_string();
                        FieldTy::Struct(struct_named(&out, &name)?)
                    }
                };
                Some(FieldDef {
                    name: crate::names::unraw(f),
                    ty,
                    len: *len,
                })
            })
            .collect();
        out[i].fields = fields;
    }
    out
}

/// A `#[gpu_struct]` as written, checked: the struct, the runtime's path its attribute
/// names, whether it is `#[repr(C)]` already, and its fields as the callback carries them.
pub(crate) struct GpuStructDef {
    pub item: syn::ItemStruct,
    pub krate: syn::Path,
    pub has_repr_c: bool,
    pub fields: Carried,
}

/// Why a `#[gpu_struct]` is not translated: it is no struct, or one with mistakes (in the
/// diagnostics).
pub(crate) enum NotTranslated {
    NotAStruct(syn::Error),
    Invalid(Box<syn::ItemStruct>),
}

/// Parse and check a `#[gpu_struct]`: one `#[repr(C)]` at most and no other repr, no
/// generics, named fields (at least one), each a dtype, another struct or an array of
/// either.
pub(crate) fn parse_gpu_struct(
    attr: TokenStream,
    item: TokenStream,
    diags: &mut Diagnostics,
) -> Result<GpuStructDef, NotTranslated> {
    let parsed = parse_attr(
        attr,
        &[gpu_contract::options::OptionKey::Crate],
        "#[gpu_struct]",
        diags,
    );
    let krate: syn::Path = parsed
        .crate_path
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::gpu_runtime));
    let s: syn::ItemStruct = syn::parse2(item).map_err(|e| {
        NotTranslated::NotAStruct(syn::Error::new(
            e.span(),
            "#[gpu_struct] applies to a struct with named fields: \
             `#[gpu_struct] #[derive(Clone, Copy)] struct Particle { x: f32, mass: f32 }`",
        ))
    })?;
    let errors_before = diags.len();
    if !s.generics.params.is_empty() {
        diags.error(
            s.generics.span(),
            "a #[gpu_struct] is not generic; write one struct per dtype (`ParticleF32`, \
             `ParticleF64`)",
        );
    }
    let has_repr_c = repr_c(&s, diags);
    let syn::Fields::Named(named) = &s.fields else {
        diags.error(
            s.fields.span(),
            "a #[gpu_struct] has named fields (tuple and unit structs are not supported \
             yet): `struct Particle { x: f32, y: f32 }`",
        );
        return Err(NotTranslated::Invalid(Box::new(s)));
    };
    if named.named.is_empty() {
        diags.error(s.ident.span(), "a #[gpu_struct] has at least one field");
    }
    let mut carried = Vec::new();
    for f in &named.named {
        match (field_type(&f.ty), &f.ident) {
            (Ok((ty, len)), Some(ident)) => carried.push((ident.clone(), ty, len)),
            (Err(e), _) => diags.error(e.span(), e.to_string()),
            (Ok(_), None) => {}
        }
    }
    if diags.len() > errors_before {
        return Err(NotTranslated::Invalid(Box::new(s)));
    }
    let name = s.ident.clone();
    Ok(GpuStructDef {
        item: s,
        krate,
        has_repr_c,
        fields: Carried {
            name,
            fields: carried,
            variants: Vec::new(),
            data: Vec::new(),
        },
    })
}

/// Whether `s` is `#[repr(C)]`; any other repr is an error.
fn repr_c(s: &syn::ItemStruct, diags: &mut Diagnostics) -> bool {
    let mut has_repr_c = false;
    for a in &s.attrs {
        if a.path().is_ident("repr") {
            let mut ok = true;
            let _ = a.parse_nested_meta(|m| {
                if m.path.is_ident("C") {
                    has_repr_c = true;
                } else {
                    ok = false;
                }
                Ok(())
            });
            if !ok {
                diags.error(
                    a.span(),
                    "a #[gpu_struct] is `#[repr(C)]` and nothing else (packed and aligned \
                     layouts differ between Rust and C); remove this repr",
                );
            }
        }
    }
    has_repr_c
}
