//! Closures passed to device functions in C: the caller's closure as a C++ lambda,
//! `[&](float v) -> float { .. }`, capturing by reference (Rust's capture for a closure the
//! callee calls while the caller waits: reads see the caller's locals, `FnMut` writes
//! reach them, and the fault note is the caller's); a `move` closure copies the locals it
//! assigns (`[&, n](..) mutable`), so its changes stay its own. The callee is a template
//! over the lambda's type (`emit_cuda::function`'s `typename F`), and `f(x)` calls it.

use super::Emitter;
use crate::ir::{Expr, Lambda, RTy, VarId};

impl Emitter<'_> {
    /// The lambda for closure `l`; its body is written as any block, one level in.
    pub(super) fn lambda(&mut self, l: &Lambda<RTy>) -> String {
        let params: Vec<String> = l
            .params
            .iter()
            .map(|&v| {
                let local = &self.k.locals[v];
                format!("{} {}", self.c_type(local.ty), local.c_name)
            })
            .collect();
        let captures = if l.by_copy {
            let own: Vec<String> = l
                .assigned_captures()
                .into_iter()
                .map(|v| format!(", {}", self.k.locals[v].c_name))
                .collect();
            format!("[&{}]", own.concat())
        } else {
            "[&]".to_owned()
        };
        let mutable = if l.by_copy { " mutable" } else { "" };
        let ret = match l.ret {
            Some(RTy::Opaque) => String::new(),
            Some(t) => format!(" -> {}", self.c_type(t)),
            None => " -> void".to_owned(),
        };
        // The body goes to a buffer of its own; the statement around it is being written.
        let outer = std::mem::take(&mut self.out);
        let indent = self.depth;
        self.depth += 1;
        self.in_lambda += 1;
        self.block_contents(&l.body);
        if let Some(tail) = &l.body.tail {
            self.return_value(tail);
        }
        self.in_lambda -= 1;
        self.depth = indent;
        let body = std::mem::replace(&mut self.out, outer);
        let close = "    ".repeat(indent);
        format!(
            "{captures}({}){mutable}{ret} {{\n{body}{close}}}",
            params.join(", ")
        )
    }

    /// `f(x)` of the closure parameter `f`.
    pub(super) fn closure_call(&mut self, f: VarId, args: &[Expr<RTy>]) -> String {
        let vals: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
        format!("{}({})", self.k.locals[f].c_name, vals.join(", "))
    }
}
