//! Errors are collected, not thrown: a user with three mistakes sees three errors, each
//! on its own tokens.

use proc_macro2::{Span, TokenStream};

#[derive(Default)]
pub struct Diagnostics {
    errors: Vec<syn::Error>,
}

impl Diagnostics {
    pub fn error(&mut self, span: Span, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    pub fn len(&self) -> usize {
        self.errors.len()
    }

    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The messages, for tests.
    #[cfg(test)]
    pub fn messages(&self) -> Vec<String> {
        self.errors.iter().map(|e| e.to_string()).collect()
    }

    /// Each message with the line and column where its span starts, for tests.
    #[cfg(test)]
    pub fn located(&self) -> Vec<(String, proc_macro2::LineColumn)> {
        self.errors
            .iter()
            .map(|e| (e.to_string(), e.span().start()))
            .collect()
    }

    /// One `compile_error!` per error, each spanned on its tokens.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.errors
            .iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }
}
