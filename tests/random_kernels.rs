//! Random kernels against the translator's contract: it never panics, everything it
//! accepts compiles with NVRTC (with checked indices, and as `unchecked`), and everything
//! it rejects carries an error located on the user's tokens.
//!
//! Two sources of cases: a generator of kernels in the language (typed expressions,
//! statements, nesting, casts, loops, atomics; one in ten on the tensor cores) that should
//! mostly be accepted, and a
//! mutator that deletes, repeats, swaps and replaces tokens of generated kernels, which
//! mostly produces mistakes. Seeded and reproducible: `GPU_FUZZ_SEED` picks the seed,
//! `GPU_FUZZ_CASES` the number of cases (10,000 by default; more for a longer run).

use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::str::FromStr;

use gpu_translate::translate_kernel;
use proc_macro2::TokenStream;
use quote::quote;

/// SplitMix64: small, seedable and good enough to pick grammar productions.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    F32,
    F64,
    I32,
    U32,
    Usize,
    Bool,
}

const NUMERIC: [Ty; 5] = [Ty::F32, Ty::F64, Ty::I32, Ty::U32, Ty::Usize];

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::Usize => "usize",
            Ty::Bool => "bool",
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    fn is_int(self) -> bool {
        matches!(self, Ty::I32 | Ty::U32 | Ty::Usize)
    }
}

/// Generates one kernel in the language, tracking the variables in scope and their types
/// so that most kernels type-check.
struct Generator<'r> {
    rng: &'r mut Rng,
    vars: Vec<(String, Ty, bool)>,
    fresh: usize,
    depth: usize,
}

impl Generator<'_> {
    /// A kernel on the tensor cores, with its `launch_bounds` attribute: the tile
    /// operations where every thread arrives, a random shape, synchronous or asynchronous
    /// copies, and random statements after the product.
    fn tile_kernel(&mut self, name: &str) -> (String, String) {
        let (bm, bn, threads) = *self.rng.pick(&[
            (16, 16, 32),
            (32, 32, 64),
            (64, 64, 128),
            (128, 64, 128),
            (64, 128, 256),
        ]);
        let bk = *self.rng.pick(&[16, 32]);
        let (dtype, op) = *self
            .rng
            .pick(&[("bf16", "mma"), ("f16", "mma"), ("f32", "mma_tf32")]);
        let copy = *self.rng.pick(&["copy_tile", "copy_tile_async"]);
        let wait = if copy == "copy_tile_async" {
            "        wait_tiles(0);\n"
        } else {
            ""
        };
        self.vars = vec![
            ("i".into(), Ty::Usize, false),
            ("n".into(), Ty::I32, false),
            ("x".into(), Ty::F64, false),
            ("s".into(), Ty::F32, false),
        ];
        let mut out = format!(
            "fn {name}(ta: &DeviceArray2<{dtype}>, tb: &DeviceArray2<{dtype}>, a: &[f32], \
             b: &mut [f32], d: &[f64], u: &mut [u32], n: i32, x: f64, s: f32) {{\n    \
             let i = grid_1d();\n    \
             let mut sa = shared_array_2d::<{dtype}, {bm}, {bk}>();\n    \
             let mut sb = shared_array_2d::<{dtype}, {bk}, {bn}>();\n    \
             let mut acc = mma_acc::<{bm}, {bn}>();\n    \
             for k0 in (0..ta.cols()).step_by({bk}) {{\n        \
             {copy}(&mut sa, ta, block_idx().y as usize * {bm}, k0);\n        \
             {copy}(&mut sb, tb, k0, block_idx().x as usize * {bn});\n{wait}        \
             sync_threads();\n        {op}(&mut acc, &sa, &sb);\n        sync_threads();\n    }}\n"
        );
        let count = 1 + self.rng.below(4);
        out.push_str(&self.stmts(count));
        out.push_str(
            "    for e in 0..acc.len() {\n        if i < b.len() {\n            \
             b[i] += acc[e] * (acc.row(e) + acc.col(e)) as f32;\n        }\n    }\n}\n",
        );
        (out, format!("launch_bounds({threads})"))
    }

    fn kernel(&mut self, name: &str) -> String {
        self.vars = vec![
            ("i".into(), Ty::Usize, false),
            ("n".into(), Ty::I32, false),
            ("x".into(), Ty::F64, false),
            ("s".into(), Ty::F32, false),
        ];
        let mut out = format!(
            "fn {name}(a: &[f32], b: &mut [f32], d: &[f64], u: &mut [u32], n: i32, x: f64, \
             s: f32) {{\n    let i = grid_1d();\n"
        );
        let count = 1 + self.rng.below(6);
        out.push_str(&self.stmts(count));
        out.push_str("}\n");
        out
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    /// One to `max` statements in a new scope.
    fn some_stmts(&mut self, max: usize) -> String {
        let count = 1 + self.rng.below(max);
        self.stmts(count)
    }

    /// `count` statements in a new scope.
    fn stmts(&mut self, count: usize) -> String {
        let scope = self.vars.len();
        let mut out = String::new();
        for _ in 0..count {
            out.push_str(&self.stmt());
            out.push('\n');
        }
        self.vars.truncate(scope);
        out
    }

    fn stmt(&mut self) -> String {
        let nested = self.depth < 3;
        match self.rng.below(if nested { 11 } else { 4 }) {
            0 | 1 => {
                let ty = if self.rng.chance(15) {
                    Ty::Bool
                } else {
                    *self.rng.pick(&NUMERIC)
                };
                let name = self.fresh("v");
                let mutable = self.rng.chance(50);
                // `let v: f64 = x.into();` of an `f32`: the annotation gives `into` its type.
                let widened = ty == Ty::F64 && self.rng.chance(25);
                let value = if widened {
                    format!("({}).into()", self.expr(Ty::F32))
                } else {
                    self.expr(ty)
                };
                let annotation = if widened || self.rng.chance(50) {
                    format!(": {}", ty.name())
                } else {
                    String::new()
                };
                self.vars.push((name.clone(), ty, mutable));
                let m = if mutable { "mut " } else { "" };
                format!("let {m}{name}{annotation} = {value};")
            }
            2 => {
                let mutable: Vec<(String, Ty)> = self
                    .vars
                    .iter()
                    .filter(|v| v.2)
                    .map(|v| (v.0.clone(), v.1))
                    .collect();
                if mutable.is_empty() {
                    return self.store();
                }
                let (name, ty) = self.rng.pick(&mutable).clone();
                let op = if ty == Ty::Bool {
                    "="
                } else {
                    *self.rng.pick(&["=", "+=", "-=", "*="])
                };
                format!("{name} {op} {};", self.expr(ty))
            }
            3 => self.store(),
            4 => {
                let cond = self.expr(Ty::Bool);
                self.depth += 1;
                let then = self.some_stmts(3);
                let otherwise = if self.rng.chance(50) {
                    format!(" else {{\n{}}}", self.some_stmts(2))
                } else {
                    String::new()
                };
                self.depth -= 1;
                format!("if {cond} {{\n{then}}}{otherwise}")
            }
            5 => {
                let j = self.fresh("j");
                let end = self.rng.below(9);
                let range = if self.rng.chance(30) {
                    format!("(0..{end}).step_by({})", 1 + self.rng.below(3))
                } else {
                    format!("0..{end}")
                };
                self.depth += 1;
                let scope = self.vars.len();
                self.vars.push((j.clone(), Ty::I32, false));
                let body = self.some_stmts(3);
                self.vars.truncate(scope);
                self.depth -= 1;
                format!("for {j} in {range} {{\n{body}}}")
            }
            6 => {
                let value = self.expr(Ty::U32);
                let op = self
                    .rng
                    .pick(&["atomic_add", "atomic_max", "atomic_min", "atomic_or"]);
                format!("if i < u.len() {{ {op}(u, i, {value}); }}")
            }
            // A closure bound to a local, capturing what the body reads, called twice.
            9 => {
                let c = self.fresh("c");
                let t = self.fresh("t");
                let r = self.fresh("r");
                let inside = self.expr(Ty::F32);
                let x = self.expr(Ty::F32);
                format!(
                    "let {c} = |{t}: f32| {t} * ({inside}) + 1.0;\n\
                     let {r} = {c}({x});\n\
                     if i < b.len() {{ b[i] = {r} - {c}(s); }}"
                )
            }
            // `Option`: a checked operation read by `match`, `if let` or `let .. else`.
            8 => {
                let o = self.fresh("o");
                let s = self.fresh("s");
                let ty = *self.rng.pick(&[Ty::I32, Ty::U32, Ty::Usize]);
                let op = self.rng.pick(&["add", "sub", "mul", "div", "rem"]);
                let (x, y) = (self.expr(ty), self.expr(ty));
                let value = self.expr(Ty::F32);
                let read = match self.rng.below(3) {
                    0 => format!(
                        "match {o} {{ Some({s}) if {s} > 3 => {{ if i < b.len() {{ b[i] = {s} as f32; }} }} \
                         Some(_) => {{}} None => {{ if i < b.len() {{ b[i] = {value}; }} }} }}"
                    ),
                    1 => format!(
                        "if let Some({s}) = {o} {{ if i < b.len() {{ b[i] = {s} as f32 + {value}; }} }}"
                    ),
                    _ => format!(
                        "let Some({s}) = {o} else {{ return; }};\nif i < b.len() {{ b[i] = {s} as f32; }}"
                    ),
                };
                format!("let {o} = ({x}).checked_{op}({y});\n{read}")
            }
            7 => {
                let w = self.fresh("w");
                let limit = self.rng.below(5);
                self.depth += 1;
                let body = self.some_stmts(2);
                self.depth -= 1;
                format!("let mut {w} = 0i32;\nwhile {w} < {limit} {{\n{body}{w} += 1;\n}}")
            }
            _ => {
                let acc = self.fresh("acc");
                let len = 1 + self.rng.below(4);
                let value = self.expr(Ty::F32);
                // A literal (its elements any expressions, one or two dimensions) or a
                // repeated value.
                let declared = match self.rng.below(3) {
                    0 => format!("[0.0f32; {len}]"),
                    1 => {
                        let elems: Vec<String> = (0..len).map(|_| self.expr(Ty::F32)).collect();
                        format!("[{}]", elems.join(", "))
                    }
                    _ => {
                        let rows: Vec<String> = (0..2)
                            .map(|_| {
                                let row: Vec<String> =
                                    (0..len).map(|_| self.expr(Ty::F32)).collect();
                                format!("[{}]", row.join(", "))
                            })
                            .collect();
                        let row = self.rng.below(2);
                        return format!(
                            "let mut {acc} = [{}];\n{acc}[{row}][{}] = {value};\n\
                             if i < b.len() {{ b[i] = {acc}[1][0] + {acc}[0][{}]; }}",
                            rows.join(", "),
                            self.rng.below(len),
                            self.rng.below(len)
                        );
                    }
                };
                format!(
                    "let mut {acc} = {declared};\n{acc}[{}] = {value};\n\
                     if i < b.len() {{ b[i] = {acc}[0]; }}",
                    self.rng.below(len)
                )
            }
        }
    }

    /// A guarded write of an `f32` into `b`.
    fn store(&mut self) -> String {
        let value = self.expr(Ty::F32);
        format!("if i < b.len() {{ b[i] = {value}; }}")
    }

    fn literal(&mut self, ty: Ty) -> String {
        let suffix = |rng: &mut Rng| {
            if rng.chance(40) {
                ty.name()
            } else {
                ""
            }
        };
        match ty {
            Ty::F32 | Ty::F64 => {
                let v = (self.rng.below(2000) as f64 - 1000.0) / 8.0;
                let text = format!("{v:?}");
                let text = text.trim_start_matches('-').to_owned();
                let s = suffix(self.rng);
                if v < 0.0 {
                    format!("(-{text}{s})")
                } else {
                    format!("{text}{s}")
                }
            }
            Ty::I32 => {
                let v = self.rng.below(200) as i64 - 100;
                let s = suffix(self.rng);
                if v < 0 {
                    format!("(-{}{s})", -v)
                } else {
                    format!("{v}{s}")
                }
            }
            Ty::U32 | Ty::Usize => {
                let v = self.rng.below(100);
                format!("{v}{}", suffix(self.rng))
            }
            Ty::Bool => self.rng.pick(&["true", "false"]).to_string(),
        }
    }

    fn leaf(&mut self, ty: Ty) -> String {
        let vars: Vec<String> = self
            .vars
            .iter()
            .filter(|v| v.1 == ty)
            .map(|v| v.0.clone())
            .collect();
        // Atomics as values: with reads of the same arrays in one expression they need
        // Rust's order of evaluation in C (temporaries), which NVRTC must accept too.
        let reads: &[&str] = match ty {
            Ty::F32 => &[
                "a[i % a.len()]",
                "b[i % b.len()]",
                "atomic_add(b, i % b.len(), 0.5f32)",
            ],
            Ty::F64 => &["d[i % d.len()]"],
            Ty::U32 => &[
                "u[i % u.len()]",
                "thread_idx().x",
                "block_dim().x",
                "atomic_add(u, i % u.len(), 1u32)",
            ],
            Ty::Usize => &["a.len()", "grid_1d()"],
            _ => &[],
        };
        match self.rng.below(3) {
            0 if !vars.is_empty() => self.rng.pick(&vars).clone(),
            1 if !reads.is_empty() => self.rng.pick(reads).to_string(),
            _ => self.literal(ty),
        }
    }

    fn expr(&mut self, ty: Ty) -> String {
        if self.depth > 5 || self.rng.chance(35) {
            return self.leaf(ty);
        }
        self.depth += 1;
        let e = self.compound(ty);
        self.depth -= 1;
        e
    }

    fn compound(&mut self, ty: Ty) -> String {
        if ty == Ty::Bool {
            return match self.rng.below(4) {
                0 | 1 => {
                    let operand = *self.rng.pick(&NUMERIC);
                    let op = self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                    format!("({} {op} {})", self.expr(operand), self.expr(operand))
                }
                2 => {
                    let op = self.rng.pick(&["&&", "||"]);
                    format!("({} {op} {})", self.expr(Ty::Bool), self.expr(Ty::Bool))
                }
                _ => format!("!{}", self.expr(Ty::Bool)),
            };
        }
        match self.rng.below(6) {
            0 | 1 => {
                let mut ops = vec!["+", "-", "*", "/"];
                if ty.is_int() {
                    ops.extend(["%", "&", "|", "^"]);
                }
                let op = self.rng.pick(&ops);
                format!("({} {op} {})", self.expr(ty), self.expr(ty))
            }
            2 => {
                let from = *self.rng.pick(&NUMERIC);
                format!("({} as {})", self.expr(from), ty.name())
            }
            3 => {
                let cond = self.expr(Ty::Bool);
                format!(
                    "(if {cond} {{ {} }} else {{ {} }})",
                    self.expr(ty),
                    self.expr(ty)
                )
            }
            4 if ty.is_float() => {
                let unary = [
                    "sqrt",
                    "abs",
                    "sin",
                    "cos",
                    "exp",
                    "ln",
                    "floor",
                    "tanh",
                    "signum",
                    "fract",
                    "to_degrees",
                    "exp_m1",
                    "ln_1p",
                    "asinh",
                ];
                match self.rng.below(5) {
                    0 => format!("{}.{}()", self.paren(ty), self.rng.pick(&unary)),
                    3 => format!("{}::from_bits({}.to_bits() ^ 1)", ty.name(), self.paren(ty)),
                    1 => {
                        let m = self.rng.pick(&[
                            "min",
                            "max",
                            "powf",
                            "atan2",
                            "hypot",
                            "rem_euclid",
                            "div_euclid",
                        ]);
                        format!("{}.{m}({})", self.paren(ty), self.expr(ty))
                    }
                    2 => format!("{}.powi({})", self.paren(ty), self.expr(Ty::I32)),
                    _ => format!(
                        "{}.mul_add({}, {})",
                        self.paren(ty),
                        self.expr(ty),
                        self.expr(ty)
                    ),
                }
            }
            4 => match self.rng.below(3) {
                0 => format!("{}.pow(({}) as u32 & 7)", self.paren(ty), self.expr(ty)),
                1 => format!(
                    "({}.abs_diff({}) as {})",
                    self.paren(ty),
                    self.expr(ty),
                    ty.name()
                ),
                _ => {
                    let m = self.rng.pick(&[
                        "min",
                        "max",
                        "saturating_add",
                        "saturating_sub",
                        "rem_euclid",
                        "div_euclid",
                    ]);
                    format!("{}.{m}({})", self.paren(ty), self.expr(ty))
                }
            },
            _ if matches!(ty, Ty::F32 | Ty::F64 | Ty::I32) => format!("(-{})", self.expr(ty)),
            _ => self.leaf(ty),
        }
    }

    /// An expression as a method receiver; an untyped literal gets a cast, since Rust
    /// cannot call a method on `{float}` (`2.0.sqrt()`).
    fn paren(&mut self, ty: Ty) -> String {
        let e = self.expr(ty);
        let literal = e
            .trim_start_matches(['(', '-'])
            .starts_with(|c: char| c.is_ascii_digit());
        if literal {
            format!("({e} as {})", ty.name())
        } else {
            format!("({e})")
        }
    }
}

/// Tokens a mutation may insert: the language's own, and mistakes users make.
const VOCABULARY: &[&str] = &[
    "&",
    "*",
    "as",
    "f16",
    "bf16",
    "i64",
    "u64",
    "u8",
    "match",
    "loop",
    "break",
    "continue",
    "return",
    "let",
    "mut",
    ";",
    ",",
    ".",
    "0",
    "1.5",
    "-1",
    "true",
    "a",
    "b",
    "u",
    "d",
    "i",
    "len",
    "sqrt",
    "grid_1d",
    "sync_threads",
    "shared_array",
    "::",
    "<",
    ">",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "+",
    "-",
    "/",
    "%",
    "==",
    "!",
    "||",
    "&&",
    "..",
    "step_by",
    "Vec",
    "unsafe",
    "'a",
    "\"s\"",
    "x",
    "s",
    "n",
    "T",
    "f32",
    "usize",
    "atomic_add",
    "<<",
    "?",
];

/// The source cut into tokens (identifiers, numbers, punctuation, whitespace kept apart).
fn pieces(src: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in src.chars() {
        if c.is_alphanumeric()
            || c == '_'
            || (c == '.' && word.starts_with(|d: char| d.is_ascii_digit()))
        {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        out.push(c.to_string());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn mutate(rng: &mut Rng, src: &str) -> String {
    let mut p = pieces(src);
    let tokens: Vec<usize> = (0..p.len()).filter(|&k| !p[k].trim().is_empty()).collect();
    for _ in 0..1 + rng.below(3) {
        let k = *rng.pick(&tokens);
        match rng.below(4) {
            0 => p[k] = String::new(),
            1 => p[k] = format!("{} {}", p[k], p[k]),
            2 => {
                let other = *rng.pick(&tokens);
                p.swap(k, other);
            }
            _ => p[k] = format!(" {} ", rng.pick(VOCABULARY)),
        }
    }
    p.concat()
}

#[derive(Default)]
struct Tally {
    accepted: Vec<(String, String)>,
    /// The bounds-checked C of each accepted kernel (what `bounds_check` compiles).
    accepted_checked: Vec<(String, String)>,
    rejected: usize,
    /// Accepted, but calling a (here undefined) device function: left to rustc.
    deferred: usize,
    unlexable: usize,
    /// A few rejections, to explain a low acceptance rate.
    samples: Vec<String>,
}

/// Translates one case: panics become test failures naming the case, errors must be
/// located inside the source, and accepted kernels are kept for NVRTC.
fn run_case(src: &str, attr: &str, name: &str, tally: &mut Tally) {
    let attr = TokenStream::from_str(attr).expect("the generator's attributes lex");
    let Ok(tokens) = TokenStream::from_str(src) else {
        // Unbalanced delimiters and the like never reach a macro: rustc's lexer stops them.
        tally.unlexable += 1;
        return;
    };
    let lines = src.lines().count();
    let both = catch_unwind(AssertUnwindSafe(|| {
        (
            translate_kernel(attr.clone(), tokens.clone()),
            translate_kernel(
                if attr.is_empty() {
                    quote!(unchecked)
                } else {
                    quote!(#attr, unchecked)
                },
                tokens,
            ),
        )
    }));
    let result = both.map(|(checked, unchecked)| match (checked, unchecked) {
        (Ok(c), Ok(u)) => Ok((c, u)),
        (Err(d), _) | (_, Err(d)) => Err(d),
    });
    match result {
        Err(_) => panic!("the translator panicked on:\n{src}"),
        // A call of a name the kernel language does not know is taken as a device-function
        // call, which rustc resolves (and rejects when there is no `#[gpu_device]` of that
        // name): such a kernel never reaches NVRTC on its own.
        Ok(Ok((t, _))) if t.device_calls > 0 => tally.deferred += 1,
        Ok(Ok((checked, unchecked))) => {
            let consts = constant_definitions(&checked);
            tally
                .accepted
                .push((src.to_owned(), format!("{consts}{}", unchecked.c)));
            tally
                .accepted_checked
                .push((src.to_owned(), format!("{consts}{}", checked.c)));
        }
        Ok(Err(diags)) => {
            let located = diags.located();
            assert!(!located.is_empty(), "rejected with no error:\n{src}");
            for (message, at) in located {
                assert!(
                    at.line >= 1 && at.line <= lines,
                    "error `{message}` for {name} is not located on the source \
                     (line {}):\n{src}",
                    at.line
                );
            }
            if tally.samples.len() < 5 {
                tally.samples.push(format!("{:?}\n{src}", diags.messages()));
            }
            tally.rejected += 1;
        }
    }
}

/// What the runtime defines at specialisation for the module constants a kernel names (an
/// upper-case name the generator made up is one): each its C name with a value of its
/// type.
fn constant_definitions(t: &gpu_translate::Translated) -> String {
    t.consts
        .iter()
        .map(|(_, c_name, ty)| {
            let c_ty = gpu_runtime::def::DtypeKind::from_rust_name(ty)
                .unwrap_or_else(|| panic!("a constant of type {ty}"))
                .c_name();
            format!("static constexpr {c_ty} {c_name} = ({c_ty})1;\n")
        })
        .collect()
}

/// NVRTC compiles the accepted kernels in batches sharing one prelude, on every core; a
/// failing batch is retried kernel by kernel to name the culprit.
fn compile_all(accepted: &[(String, String)]) -> usize {
    // As a kernel's options define it when it is specialised; checked, the larger code.
    let prelude = format!(
        "#define GT_OVERFLOW_CHECKS 1\n{}",
        gpu_runtime::__private::full_prelude()
    );
    let batches: Vec<&[(String, String)]> = accepted.chunks(250).collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, batches.len().max(1));
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (batches, prelude) = (&batches, &prelude);
                scope.spawn(move || {
                    batches
                        .iter()
                        .skip(t)
                        .step_by(threads)
                        .map(|batch| compile_batch(prelude, batch))
                        .sum::<usize>()
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .sum()
    })
}

/// One batch through NVRTC; a failure names the kernel NVRTC rejects alone, if one does.
fn compile_batch(prelude: &str, batch: &[(String, String)]) -> usize {
    let mut unit = prelude.to_owned();
    for (_, c) in batch {
        writeln!(unit, "{c}").unwrap();
    }
    if let Err(log) = gpu_runtime::__private::nvrtc_accepts(&unit, "sm_90") {
        assert!(!log.starts_with("no NVRTC"), "{log}");
        for (rust, c) in batch {
            if let Err(log) =
                gpu_runtime::__private::nvrtc_accepts(&format!("{prelude}{c}"), "sm_90")
            {
                panic!("NVRTC rejects what the macro accepted:\n{rust}\n--- C ---\n{c}\n--- log ---\n{log}");
            }
        }
        panic!("NVRTC rejects a batch whose kernels compile alone:\n{log}");
    }
    batch.len()
}

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn random_kernels_are_accepted_and_compile_or_rejected_with_located_errors() {
    if !gpu_runtime::__private::nvrtc_or_skip(
        "random_kernels_are_accepted_and_compile_or_rejected_with_located_errors",
    )
    .expect("NVRTC")
    {
        return;
    }
    let seed = setting("GPU_FUZZ_SEED", 0x5eed_6b65_726e_656c);
    let cases = setting("GPU_FUZZ_CASES", 10_000) as usize;
    let mut rng = Rng(seed);
    let mut tally = Tally::default();
    let mut generated = Tally::default();
    let mut translated = 0;
    let mut k = 0;
    while translated < cases {
        k += 1;
        let name = format!("k{k}");
        let mut g = Generator {
            rng: &mut rng,
            vars: Vec::new(),
            fresh: 0,
            depth: 0,
        };
        // One kernel in ten on the tensor cores.
        let (src, attr) = if k % 10 < 2 {
            g.tile_kernel(&name)
        } else {
            (g.kernel(&name), String::new())
        };
        // Half the cases are generated kernels as they are, half are mutations of them.
        if k % 2 == 0 {
            run_case(&src, &attr, &name, &mut generated);
            translated += 1;
        } else {
            // Mutate until the result lexes (unbalanced delimiters never reach a macro).
            for _ in 0..20 {
                let mutated = mutate(&mut rng, &src);
                let before = tally.unlexable;
                run_case(&mutated, &attr, &name, &mut tally);
                if tally.unlexable == before {
                    translated += 1;
                    break;
                }
            }
        }
    }
    let gen_total = generated.accepted.len() + generated.rejected + generated.deferred;
    // The generator writes the language: nearly all of it must be accepted, or the
    // test would only be exercising error paths.
    assert!(
        generated.accepted.len() * 100 >= gen_total * 90,
        "only {} of {gen_total} generated kernels were accepted; for example:\n{}",
        generated.accepted.len(),
        generated.samples.join("\n")
    );
    let gen_accepted = generated.accepted.len();
    tally.accepted.append(&mut generated.accepted);
    tally
        .accepted_checked
        .append(&mut generated.accepted_checked);
    let compiled = compile_all(&tally.accepted);
    let compiled_checked = compile_all(&tally.accepted_checked);
    eprintln!(
        "seed {seed:#x}: {translated} cases ({gen_total} generated, {} of them accepted; {} \
         mutated, {} more mutations did not lex), {compiled} accepted and compiled by NVRTC (and \
         {compiled_checked} with checked indices), {} \
         rejected with located errors, {} calling unknown functions (left to rustc)",
        gen_accepted,
        translated - gen_total,
        tally.unlexable,
        tally.rejected + generated.rejected,
        tally.deferred
    );
}
