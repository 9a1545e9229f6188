//! rkb's derive macros (see docs/architecture.md). Generated code names runtime items only through
//! `::rkb_runtime::...`, so operators depend on rkb-runtime alone.
//!
//! `#[derive(Kind)]` reads the kind's group, version, plural, scope and CRD through rkb-manifests
//! (the library behind `rkb manifests`), with the crate being compiled as the project root.

use std::path::{Path, PathBuf};

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

mod deep_copy;
mod doc_markers;
mod genclient;
mod kind;
mod library;

/// A root kind (`+kubebuilder:object:root=true`): `kube::Resource`, `new(name, spec)`, `crd()`,
/// `crd_yaml()`, `rkb_runtime::DeepCopy`, and with `+genclient` a typed `<Kind>Client`,
/// `<Kind>Lister` and `<Kind>Informer`. client-gen's tags shape the client: `nonNamespaced`, `noVerbs`,
/// `noStatus`, `readonly`, `onlyVerbs`, `skipVerbs`, and `method=Name,verb=..,subresource=..,input=..,result=..`
/// with any verb client-gen allows there (get, list, watch, create, update, patch, apply, delete,
/// deleteCollection; a subresource with get, create, update, patch and apply), input and result naming Rust types.
#[proc_macro_derive(Kind)]
pub fn derive_kind(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let lines = doc_markers::marker_lines(&input.attrs);
    let Some(manifest_dir) = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from) else {
        return syn::Error::new_spanned(
            &input.ident,
            "CARGO_MANIFEST_DIR is not set; build with cargo",
        )
        .to_compile_error()
        .into();
    };
    // The file being compiled picks between same-named kinds of different versions. rustc names it relative to its
    // working directory, which is the workspace root for a workspace member, not the crate: make it absolute here.
    let file = proc_macro::Span::call_site()
        .local_file()
        .and_then(|f| std::path::absolute(f).ok());
    let root = library::project_root(&manifest_dir, file.as_deref());
    let id = match library::identity(
        &root,
        &input.ident.to_string(),
        file.as_deref().map(Path::new),
    ) {
        Ok(id) => id,
        Err(msg) => {
            // Report marker errors first: they are the likelier cause and point at a line.
            if let Err(e) = genclient::parse(&lines) {
                return e.to_compile_error().into();
            }
            return syn::Error::new_spanned(&input.ident, msg)
                .to_compile_error()
                .into();
        }
    };
    kind::expand(&input, &lines, &id)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `rkb_runtime::DeepCopy` for a non-root API type (spec, status, nested structs).
#[proc_macro_derive(DeepCopy)]
pub fn derive_deep_copy(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    let lines = doc_markers::marker_lines(&input.attrs);
    deep_copy::expand(&input, &lines)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
