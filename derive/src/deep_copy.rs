//! `#[derive(DeepCopy)]`: `rkb_runtime::DeepCopy` with a field-wise `deep_copy_into`, so the
//! target's strings, vectors and nested API types keep their allocations.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, Index};

use crate::doc_markers::MarkerLine;

pub fn expand(input: &DeriveInput, lines: &[MarkerLine]) -> syn::Result<TokenStream> {
    // Malformed markers are reported where the kind's markers are read (rkb-manifests), not here.
    let turns_off = |l: &&MarkerLine| {
        crate::doc_markers::parse_with_library(l)
            .ok()
            .flatten()
            .is_some_and(|m| m.disables_deep_copy())
    };
    if let Some(off) = lines.iter().find(turns_off) {
        return Err(syn::Error::new(
            off.span,
            "this type derives DeepCopy but its marker turns deep copy generation off",
        ));
    }
    let ident = &input.ident;
    let (impl_g, ty_g, where_g) = input.generics.split_for_impl();
    let body = match &input.data {
        Data::Struct(s) => deep_copy_into(&s.fields),
        // Enums: variants differ in shape, so a plain clone is the honest copy.
        Data::Enum(_) => TokenStream::new(),
        Data::Union(_) => {
            return Err(syn::Error::new_spanned(
                ident,
                "DeepCopy cannot be derived for unions",
            ));
        }
    };
    Ok(quote! {
        impl #impl_g ::rkb_runtime::DeepCopy for #ident #ty_g #where_g {
            #body
        }
    })
}

/// `deep_copy_into` copying field by field: nested `DeepCopy` types recurse, other fields use
/// `clone_from` (the runtime's `deep_copy::__field` picks). Shared with `#[derive(Kind)]`.
pub fn deep_copy_into(fields: &Fields) -> TokenStream {
    let field = quote!(::rkb_runtime::deep_copy::__field);
    let copies: Vec<TokenStream> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let member = match &f.ident {
                Some(n) => quote!(#n),
                None => {
                    let i = Index::from(i);
                    quote!(#i)
                }
            };
            quote!((&#field::Src(&self.#member)).copy_into(&mut out.#member);)
        })
        .collect();
    quote! {
        fn deep_copy_into(&self, out: &mut Self) {
            #[allow(unused_imports)]
            use #field::{ViaClone as _, ViaDeepCopy as _};
            #(#copies)*
        }
    }
}
