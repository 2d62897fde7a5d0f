//! The Rust snippets of this repository's README files, compiled and run
//! as this crate's doctests: `cargo test -p megaco-readme --doc`.
//!
//! A snippet that cannot run here says why beside it (`rust,no_run` with a
//! sentence, or `rust,ignore` with its reason); every other one runs. This
//! crate is not published: it reads the README files from the repository.
#![forbid(unsafe_code)]

/// The repository's README.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct Readme;

/// The `megaco` crate's README.
#[cfg(doctest)]
#[doc = include_str!("../../megaco/README.md")]
pub struct MegacoReadme;
