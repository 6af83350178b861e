//! A program as Rust source: the kernel's attribute and function, every operation
//! parenthesised, as `kernels.rs` and the run-time translation take it.

use std::fmt::Write as _;

use super::*;

impl Program {
    /// The kernel's attribute arguments.
    pub fn attribute(&self) -> String {
        format!("fmad = false, overflow_checks = {}", self.checks)
    }

    /// The kernel as Rust: `fn name(xi32: &[i32], .., oi: &mut [u64], of: &mut [f64])`.
    pub fn function(&self, name: &str) -> String {
        let mut s = String::new();
        let params: Vec<String> = INPUTS
            .iter()
            .map(|t| format!("x{0}: &[{0}]", t.name()))
            .collect();
        let generics = match self.konst {
            Some(k) => format!("<const K: {}>", k.ty().name()),
            None => String::new(),
        };
        let _ = writeln!(
            s,
            "pub fn {name}{generics}({}, oi: &mut [u64], of: &mut [f64]) {{",
            params.join(", ")
        );
        s.push_str("    let i = grid_1d();\n    if i < oi.len() {\n");
        for t in INPUTS {
            let _ = writeln!(s, "        let a_{0}: {0} = x{0}[i];", t.name());
            if self.sub_inputs {
                let _ = writeln!(
                    s,
                    "        let b_{0}: {0} = diff_first(&x{0}[i..]);",
                    t.name()
                );
            }
        }
        for stmt in &self.stmts {
            s.push_str(&self.stmt_source(stmt));
        }
        let _ = writeln!(s, "        oi[i] = ({}) as u64;", show(&self.out_int));
        let _ = writeln!(s, "        of[i] = ({}) as f64;", show(&self.out_float));
        s.push_str("    }\n}\n");
        s
    }

    fn stmt_source(&self, stmt: &Stmt) -> String {
        let t = |v: usize| self.vars[v].name();
        match stmt {
            Stmt::Let { var, value } => {
                format!("        let v{var}: {} = {};\n", t(*var), show(value))
            }
            Stmt::Assert(cond) => format!("        assert!({});\n", show(cond)),
            Stmt::LetLent {
                var,
                init,
                value,
                more,
            } => format!(
                "        let mut v{var}: {ty} = {};\n        diff_xor_into(&mut v{var}, {});\n        let r{var} = &mut v{var};\n        *r{var} ^= {};\n",
                show(init),
                show(value),
                show(more),
                ty = t(*var),
            ),
            Stmt::LetLoopValue { var, count, value } => format!(
                "        let mut c{var}: u32 = 0u32;\n        let v{var}: {ty} = loop {{\n            if c{var} >= (({}) % 4u32) {{\n                break ({});\n            }}\n            c{var} += 1u32;\n        }};\n",
                show(count),
                show(value),
                ty = t(*var),
            ),
            Stmt::LetLabelled(l) => format!(
                "        let mut v{var}: {ty} = {};\n        'l{var}: for j{} in 0u32..(({}) % 3u32) {{\n            for j{} in 0u32..(({}) % 3u32) {{\n                if {} {{\n                    break 'l{var};\n                }}\n                if {} {{\n                    continue 'l{var};\n                }}\n                v{var} = {};\n            }}\n        }}\n",
                show(&l.init),
                l.outer,
                show(&l.outer_count),
                l.inner,
                show(&l.inner_count),
                show(&l.brk),
                show(&l.cont),
                show(&l.body),
                var = l.var,
                ty = t(l.var),
            ),
            Stmt::LetIter {
                var,
                elems,
                init,
                elem,
                how: IterHow::Fold,
                body,
            } => format!(
                "        let t{var}: [{ty}; 3] = [{}, {}, {}];\n        let v{var}: {ty} = t{var}.iter().copied().fold({}, |v{var}, v{elem}| {});\n",
                show(&elems[0]),
                show(&elems[1]),
                show(&elems[2]),
                show(init),
                show(body),
                ty = t(*var),
            ),
            Stmt::LetIter {
                var,
                elems,
                init,
                elem,
                how,
                body,
            } => format!(
                "        let mut t{var}: [{ty}; 3] = [{}; 3];\n        t{var}[1] = {};\n        t{var}[2] = {};\n        let mut v{var}: {ty} = {};\n        for &v{elem} in t{var}.iter(){} {{\n            v{var} = {};\n        }}\n",
                show(&elems[0]),
                show(&elems[1]),
                show(&elems[2]),
                show(init),
                how.source(),
                show(body),
                ty = t(*var),
            ),
            Stmt::LetIf {
                var,
                init,
                cond,
                then,
                els,
            } => format!(
                "        let mut v{var}: {} = {};\n        if {} {{\n            v{var} = {};\n        }} else {{\n            v{var} = {};\n        }}\n",
                t(*var),
                show(init),
                show(cond),
                show(then),
                show(els)
            ),
            Stmt::LetLoop {
                var,
                init,
                loop_var,
                count,
                stepped,
                shape,
                body,
            } => {
                let c = show(count);
                let range = match stepped {
                    None => match shape {
                        Shape::Upto => format!("0u32..(({c}) % 4u32)"),
                        Shape::ToMax => format!("(u32::MAX - (({c}) % 4u32))..=u32::MAX"),
                        Shape::Rev => format!("(0u32..(({c}) % 4u32)).rev()"),
                        Shape::InclusiveRev => format!("(0u32..=(({c}) % 4u32)).rev()"),
                    },
                    Some((end, step)) => format!(
                        "((({}) % 8u32)..(({}) % 16u32)).step_by((({}) % 3u32) as usize)",
                        show(count),
                        show(end),
                        show(step)
                    ),
                };
                format!(
                    "        let mut v{var}: {} = {};\n        for j{loop_var} in {range} {{\n            v{var} = {};\n        }}\n",
                    t(*var),
                    show(init),
                    show(body)
                )
            }
        }
    }

    /// The whole item, attribute included.
    /// The turbofish that gives the const parameter its value: `::<7u32>`,
    /// `::<{ -7i32 }>`, or nothing.
    pub fn const_args(&self) -> String {
        let Some(k) = self.konst else {
            return String::new();
        };
        let lit = k.literal();
        match lit.strip_prefix('(').and_then(|l| l.strip_suffix(')')) {
            Some(negative) => format!("::<{{ {negative} }}>"),
            None => format!("::<{lit}>"),
        }
    }

    pub fn item(&self, name: &str) -> String {
        format!(
            "#[gpu_kernel({})]\n{}",
            self.attribute(),
            self.function(name)
        )
    }
}

/// `e` in Rust, every operation in parentheses.
fn show(e: &Expr) -> String {
    let t = e.ty.name();
    match &e.kind {
        Kind::Input => format!("a_{t}"),
        Kind::SubInput => format!("b_{t}"),
        Kind::Var(v) => format!("v{v}"),
        Kind::LoopVar(j) => format!("j{j}"),
        Kind::Lit(v) => v.literal(),
        Kind::ConstParam(_) => "K".to_owned(),
        Kind::Bin(op, a, b) => {
            let (a, b) = (show(a), show(b));
            match op {
                Bin::Min => format!("({a}).min({b})"),
                Bin::Max => format!("({a}).max({b})"),
                Bin::SatAdd => format!("({a}).saturating_add({b})"),
                Bin::SatSub => format!("({a}).saturating_sub({b})"),
                Bin::SatMul => format!("({a}).saturating_mul({b})"),
                Bin::RemEuclid => format!("({a}).rem_euclid({b})"),
                Bin::DivEuclid => format!("({a}).div_euclid({b})"),
                Bin::Pow => format!("({a}).pow(({b}) as u32 & 7)"),
                Bin::AbsDiff => format!("(({a}).abs_diff({b}) as {t})"),
                _ => {
                    let o = match op {
                        Bin::Add => "+",
                        Bin::Sub => "-",
                        Bin::Mul => "*",
                        Bin::Div => "/",
                        Bin::Rem => "%",
                        Bin::And => "&",
                        Bin::Or => "|",
                        _ => "^",
                    };
                    format!("({a} {o} {b})")
                }
            }
        }
        Kind::Shift(left, a, b) => {
            format!(
                "({} {} {})",
                show(a),
                if *left { "<<" } else { ">>" },
                show(b)
            )
        }
        Kind::Cmp(op, a, b) => {
            let o = match op {
                Cmp::Lt => "<",
                Cmp::Le => "<=",
                Cmp::Gt => ">",
                Cmp::Ge => ">=",
                Cmp::Eq => "==",
                Cmp::Ne => "!=",
            };
            format!("({} {o} {})", show(a), show(b))
        }
        Kind::Logic(and, a, b) => {
            format!(
                "({} {} {})",
                show(a),
                if *and { "&&" } else { "||" },
                show(b)
            )
        }
        Kind::Not(a) => format!("(!{})", show(a)),
        Kind::Neg(a) => format!("(-{})", show(a)),
        Kind::Abs(a) => format!("({}).abs()", show(a)),
        Kind::Sqrt(a) => format!("({}).sqrt()", show(a)),
        Kind::Cast(a) => format!("(({}) as {t})", show(a)),
        Kind::If(c, a, b) => format!("(if {} {{ {} }} else {{ {} }})", show(c), show(a), show(b)),
        Kind::Match(s, arms, default) => {
            let arms: String = arms
                .iter()
                .map(|(p, e)| format!("{} => {}, ", p.source(), show(e)))
                .collect();
            format!("(match {} {{ {arms}_ => {} }})", show(s), show(default))
        }
        Kind::CheckedOr(op, a, b, d) => {
            let name = match op {
                Bin::Add => "add",
                Bin::Sub => "sub",
                Bin::Mul => "mul",
                Bin::Div => "div",
                _ => "rem",
            };
            format!(
                "({}).checked_{name}({}).unwrap_or({})",
                show(a),
                show(b),
                show(d)
            )
        }
        Kind::Tri(s) => format!(
            "((match ({} % 3u32) {{ 0u32 => DiffTri::Low, 1u32 => DiffTri::Mid, _ => \
             DiffTri::High }}) as {t})",
            show(s)
        ),
        Kind::PairMixed(a, b) => {
            format!(
                "(0i64 | DiffPair {{ a: {}, b: {} }}.mixed())",
                show(a),
                show(b)
            )
        }
        Kind::OptionArg(x, d, true) => {
            format!("(0{t} | diff_or(Some({}), {}))", show(x), show(d))
        }
        Kind::OptionArg(_, d, false) => format!("(0{t} | diff_or(None, {}))", show(d)),
        Kind::Variant(s, x, y) => format!(
            "((0i64 | diff_unshape(diff_shape({s}, ({}) as i64, ({}) as i64), {s})) as {t})",
            show(x),
            show(y),
            s = show(s)
        ),
        // `0 |` types the result, which a kernel does not see through a call.
        Kind::TraitMix(x, k, false) => format!("(0{t} | ({}).diff_mix({}))", show(x), show(k)),
        Kind::TraitMix(x, k, true) => format!("(0{t} | diff_mixed({}, {}))", show(x), show(k)),
        Kind::TryFrom(x, d) => format!("{t}::try_from({}).unwrap_or({})", show(x), show(d)),
        Kind::ClosureArg(x, k, by_impl) => format!(
            "(0{t} | diff_apply{}({}, |c: {t}| c ^ ({})))",
            if *by_impl { "_impl" } else { "" },
            show(x),
            show(k)
        ),
        Kind::PairNew(a, b) => format!("(0i64 | DiffPair::new({}, {}).b)", show(a), show(b)),
        Kind::Matches(s, p) => format!("matches!(({} % 8u32), {})", show(s), p.source()),
        Kind::TableGet(s, d) => format!(
            "DIFF_TABLE_{}.get((({}) % 8u32) as usize).copied().unwrap_or({})",
            t.to_uppercase(),
            show(s),
            show(d)
        ),
        Kind::Table(s) => format!(
            "(DIFF_TABLE_{}[(({}) % 6u32) as usize] * {})",
            t.to_uppercase(),
            show(s),
            super::Value::U64(1).cast(e.ty).literal()
        ),
    }
}
