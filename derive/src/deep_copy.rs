//! `#[derive(DeepCopy)]`: `rkb_runtime::DeepCopy` with a field-wise `deep_copy_into` that calls
//! `clone_from` per field, so strings, vectors and options in the target keep their allocations.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, Index};

use crate::doc_markers::MarkerLine;

pub fn expand(input: &DeriveInput, lines: &[MarkerLine]) -> syn::Result<TokenStream> {
    if let Some(off) = lines
        .iter()
        .find(|l| crate::library::disables_deep_copy(&l.text))
    {
        return Err(syn::Error::new(
            off.span,
            "this type derives DeepCopy but its marker turns deep copy generation off",
        ));
    }
    let ident = &input.ident;
    let (impl_g, ty_g, where_g) = input.generics.split_for_impl();
    let body = match &input.data {
        Data::Struct(s) => {
            let fields: Vec<TokenStream> = match &s.fields {
                Fields::Named(f) => f
                    .named
                    .iter()
                    .map(|f| {
                        let n = f.ident.as_ref().expect("named");
                        quote!(::std::clone::Clone::clone_from(&mut out.#n, &self.#n);)
                    })
                    .collect(),
                Fields::Unnamed(f) => (0..f.unnamed.len())
                    .map(|i| {
                        let i = Index::from(i);
                        quote!(::std::clone::Clone::clone_from(&mut out.#i, &self.#i);)
                    })
                    .collect(),
                Fields::Unit => Vec::new(),
            };
            quote! {
                fn deep_copy_into(&self, out: &mut Self) {
                    #(#fields)*
                }
            }
        }
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
