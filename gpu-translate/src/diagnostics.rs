//! Errors are collected, not thrown: a user with three mistakes sees three errors, each
//! on its own tokens.

use proc_macro2::{Span, TokenStream};

/// The errors of one expansion.
#[derive(Default, Debug)]
pub struct Diagnostics {
    errors: Vec<syn::Error>,
}

impl Diagnostics {
    /// Report `message` on `span`.
    pub fn error(&mut self, span: Span, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// Report `message` on every token of `tokens` (a type, an item), not only its first.
    pub fn error_on(&mut self, tokens: impl quote::ToTokens, message: impl std::fmt::Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// How many errors so far.
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The messages, for tests.
    pub fn messages(&self) -> Vec<String> {
        self.errors.iter().map(|e| e.to_string()).collect()
    }

    /// Each message with the line and column where its span starts, for tests.
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
