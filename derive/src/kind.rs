//! `#[derive(Kind)]`: the kube `Resource` impl, `new`, `crd()`, deep copy, and the client-gen
//! family (typed client, lister, informer) of a root kind.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Fields, Ident, Type};

use crate::doc_markers::MarkerLine;
use crate::genclient::{self, GenClient, Method};
use crate::library::Identity;

/// Expands the derive for `input`, whose project facts are `id`.
pub fn expand(
    input: &DeriveInput,
    lines: &[MarkerLine],
    id: &Identity,
) -> syn::Result<TokenStream> {
    let gen_client = genclient::parse(lines)?;
    check_against_identity(&gen_client, id)?;
    let (fields, named) = named_fields(input)?;
    let ident = &input.ident;
    let rt = quote!(::rkb_runtime);
    let resource = resource_impl(ident, id);
    let inherent = inherent_impl(ident, &named, id);
    let deep_copy = if id.deep_copy {
        let body = crate::deep_copy::deep_copy_into(fields);
        quote!(impl #rt::DeepCopy for #ident { #body })
    } else {
        TokenStream::new()
    };
    // `+genclient` with every verb taken away (noVerbs) and no method: no client.
    let wants_client = !gen_client.methods.is_empty() || !gen_client.verbs.is_empty();
    let client = if gen_client.enabled.is_some() && wants_client {
        typed_client(ident, &input.vis, id.namespaced, &gen_client)
    } else {
        TokenStream::new()
    };
    // Rebuilds the deriving crate when a file rkb-manifests read for this kind changes.
    let tracked = id.source_files.iter().map(|f| {
        let path = f.to_string_lossy().into_owned();
        quote!(
            const _: &[u8] = ::std::include_bytes!(#path);
        )
    });
    Ok(quote! {
        #resource
        #inherent
        #deep_copy
        #client
        #(#tracked)*
    })
}

/// The kind's fields and their names and types: a struct with named fields, not generic, with `metadata`.
fn named_fields(input: &DeriveInput) -> syn::Result<(&Fields, Vec<(&Ident, &Type)>)> {
    let not_a_kind = || {
        syn::Error::new_spanned(
            &input.ident,
            "#[derive(Kind)] needs a struct with named fields",
        )
    };
    let Data::Struct(data) = &input.data else {
        return Err(not_a_kind());
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(not_a_kind());
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "#[derive(Kind)] does not support generic kinds",
        ));
    }
    let named: Vec<(&Ident, &Type)> = fields
        .named
        .iter()
        .map(|f| (f.ident.as_ref().expect("named"), &f.ty))
        .collect();
    if !named.iter().any(|(n, _)| *n == "metadata") {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "a kind needs `pub metadata: ObjectMeta` (with `#[serde(default)]`)",
        ));
    }
    Ok((&data.fields, named))
}

/// `kube::Resource` with the group, version, plural and scope rkb-manifests found for the kind.
fn resource_impl(ident: &Ident, id: &Identity) -> TokenStream {
    let kube = quote!(::rkb_runtime::__private::kube);
    let k8s = quote!(::rkb_runtime::__private::k8s_openapi);
    let kind = ident.to_string();
    let (group, version, plural) = (&id.group, &id.version, &id.plural);
    let api_version = if group.is_empty() {
        version.clone()
    } else {
        format!("{group}/{version}")
    };
    let scope = if id.namespaced {
        quote!(#k8s::NamespaceResourceScope)
    } else {
        quote!(#k8s::ClusterResourceScope)
    };
    quote! {
        impl #kube::Resource for #ident {
            type DynamicType = ();
            type Scope = #scope;
            fn kind(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#kind) }
            fn group(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#group) }
            fn version(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#version) }
            fn api_version(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#api_version) }
            fn plural(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#plural) }
            fn meta(&self) -> &#k8s::apimachinery::pkg::apis::meta::v1::ObjectMeta { &self.metadata }
            fn meta_mut(&mut self) -> &mut #k8s::apimachinery::pkg::apis::meta::v1::ObjectMeta { &mut self.metadata }
        }
    }
}

/// `new(name, spec)` (type_meta filled, metadata.name set, everything else default), `crd()` and `crd_yaml()`.
fn inherent_impl(ident: &Ident, named: &[(&Ident, &Type)], id: &Identity) -> TokenStream {
    let rt = quote!(::rkb_runtime);
    let k8s = quote!(::rkb_runtime::__private::k8s_openapi);
    let spec_ty = named.iter().find(|(n, _)| *n == "spec").map(|(_, t)| *t);
    let inits = named.iter().map(|(n, t)| {
        if *n == "metadata" {
            quote!(metadata: #k8s::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                name: ::std::option::Option::Some(::std::string::ToString::to_string(name)),
                ..::std::default::Default::default()
            })
        } else if *n == "spec" {
            quote!(spec)
        } else if is_type_meta(n, t) {
            quote!(#n: #rt::client::type_meta::<Self>())
        } else {
            quote!(#n: ::std::default::Default::default())
        }
    });
    let (new_args, new_doc) = match spec_ty {
        Some(t) => (
            quote!(name: &str, spec: #t),
            "An object called `name` with `spec`, `apiVersion` and `kind` set.",
        ),
        None => (
            quote!(name: &str),
            "An object called `name`, `apiVersion` and `kind` set.",
        ),
    };
    let crd_yaml = &id.crd_yaml;
    let crd_json = &id.crd_json;
    quote! {
        impl #ident {
            #[doc = #new_doc]
            pub fn new(#new_args) -> Self {
                Self { #(#inits),* }
            }

            /// The CustomResourceDefinition `rkb manifests` writes for this kind.
            pub fn crd() -> #k8s::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
                #rt::__private::serde_json::from_str(#crd_json)
                    .expect("rkb-derive embeds a CRD that rkb-manifests generated and validated")
            }

            /// The CRD as the YAML text `rkb manifests` writes.
            pub fn crd_yaml() -> &'static str {
                #crd_yaml
            }
        }
    }
}

fn is_type_meta(name: &Ident, ty: &Type) -> bool {
    let last = match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    };
    name == "type_meta" || last.as_deref() == Some("TypeMeta")
}

fn check_against_identity(g: &GenClient, id: &Identity) -> syn::Result<()> {
    if let Some(span) = g.non_namespaced
        && id.namespaced
    {
        return Err(syn::Error::new(
            span,
            "`+genclient:nonNamespaced`, but the CRD is Namespaced: controller-gen (and `rkb manifests`) \
             take the scope from `+kubebuilder:resource:scope` only; add `+kubebuilder:resource:scope=Cluster`",
        ));
    }
    if let Some(span) = g.status_source
        && !id.has_status
    {
        return Err(syn::Error::new(
            span,
            "this client would have update_status/apply_status, but the kind has no status \
             subresource: add `+genclient:noStatus` or `+kubebuilder:subresource:status`",
        ));
    }
    Ok(())
}

fn typed_client(
    ident: &Ident,
    vis: &syn::Visibility,
    namespaced: bool,
    g: &GenClient,
) -> TokenStream {
    let rt = quote!(::rkb_runtime);
    let c = quote!(::rkb_runtime::client);
    let kube = quote!(::rkb_runtime::__private::kube);
    let client_ident = format_ident!("{}Client", ident);
    let lister_ident = format_ident!("{}Lister", ident);
    let informer_ident = format_ident!("{}Informer", ident);
    let has = |v: &str| g.verbs.contains(v);

    let constructors = if namespaced {
        quote! {
            /// A client for the objects of `namespace`.
            pub fn new(client: #kube::Client, namespace: &str) -> Self {
                Self { inner: #c::ResourceClient::namespaced(client, namespace) }
            }
            /// A client over all namespaces (list, watch and delete_collection only).
            pub fn all_namespaces(client: #kube::Client) -> Self {
                Self { inner: #c::ResourceClient::all(client) }
            }
        }
    } else {
        quote! {
            /// A client for this cluster-scoped kind.
            pub fn new(client: #kube::Client) -> Self {
                Self { inner: #c::ResourceClient::all(client) }
            }
        }
    };

    let verbs = verb_methods(ident, g);

    let informers = if has("list") && has("watch") {
        let doc_l = format!("The lister of `{ident}` over an informer cache.");
        let doc_i = format!(
            "The informer of `{ident}` (`factory.informer::<{ident}>()` shares one per factory)."
        );
        quote! {
            #[doc = #doc_l]
            #vis type #lister_ident = #rt::lister::Lister<#ident>;
            #[doc = #doc_i]
            #vis type #informer_ident = #rt::informer::Informer<#ident>;
        }
    } else {
        TokenStream::new()
    };

    let doc = format!("The typed client of `{ident}` (client-gen's verbs for this kind).");
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug)]
        #vis struct #client_ident {
            inner: #c::ResourceClient<#ident>,
        }

        impl #client_ident {
            #constructors

            /// Names `field_manager` on writes and server-side apply (default "rkb").
            pub fn with_field_manager(self, field_manager: impl ::std::convert::Into<::std::string::String>) -> Self {
                Self { inner: self.inner.with_field_manager(field_manager) }
            }

            /// The generic client underneath (all verbs, whatever the tags say).
            pub fn inner(&self) -> &#c::ResourceClient<#ident> {
                &self.inner
            }

            #(#verbs)*
        }

        #informers
    }
}

/// The client's methods: one per verb the tags leave (client-gen's names, snake_case), then the `+genclient:method`
/// extensions.
fn verb_methods(ident: &Ident, g: &GenClient) -> Vec<TokenStream> {
    let mut verbs = write_verb_methods(ident, g);
    verbs.extend(read_verb_methods(ident, g));
    verbs.extend(patch_and_apply_verb_methods(ident, g));
    for m in &g.methods {
        verbs.push(extension_method(ident, m));
    }
    verbs
}

/// The verbs the tags leave that create, replace or delete whole objects: create, update, updateStatus, delete,
/// deleteCollection.
fn write_verb_methods(ident: &Ident, g: &GenClient) -> Vec<TokenStream> {
    let c = quote!(::rkb_runtime::client);
    let has = |v: &str| g.verbs.contains(v);
    let mut verbs = Vec::new();
    if has("create") {
        verbs.push(quote! {
            /// Creates `obj`.
            pub async fn create(&self, obj: &#ident, pp: &#c::PostParams) -> ::std::result::Result<#ident, #c::Error> {
                self.inner.create(obj, pp).await
            }
        });
    }
    if has("update") {
        verbs.push(quote! {
            /// Replaces `obj` (guarded by its resourceVersion).
            pub async fn update(&self, obj: &#ident, pp: &#c::PostParams) -> ::std::result::Result<#ident, #c::Error> {
                self.inner.update(obj, pp).await
            }
        });
    }
    if has("updateStatus") {
        verbs.push(quote! {
            /// Replaces the status subresource of `obj`.
            pub async fn update_status(&self, obj: &#ident, pp: &#c::PostParams) -> ::std::result::Result<#ident, #c::Error> {
                self.inner.update_status(obj, pp).await
            }
        });
    }
    if has("delete") {
        verbs.push(quote! {
            /// Deletes the object `name`.
            pub async fn delete(&self, name: &str, dp: &#c::DeleteParams) -> ::std::result::Result<(), #c::Error> {
                self.inner.delete(name, dp).await
            }
        });
    }
    if has("deleteCollection") {
        verbs.push(quote! {
            /// Deletes every object `lp` selects.
            pub async fn delete_collection(&self, dp: &#c::DeleteParams, lp: &#c::ListParams) -> ::std::result::Result<(), #c::Error> {
                self.inner.delete_collection(dp, lp).await
            }
        });
    }
    verbs
}

/// The read verbs the tags leave: get (with `get_opt`), list, watch.
fn read_verb_methods(ident: &Ident, g: &GenClient) -> Vec<TokenStream> {
    let rt = quote!(::rkb_runtime);
    let c = quote!(::rkb_runtime::client);
    let has = |v: &str| g.verbs.contains(v);
    let mut verbs = Vec::new();
    if has("get") {
        verbs.push(quote! {
            /// Reads the object `name`.
            pub async fn get(&self, name: &str) -> ::std::result::Result<#ident, #c::Error> {
                self.inner.get(name).await
            }
            /// Reads the object `name`; `None` when it does not exist.
            pub async fn get_opt(&self, name: &str) -> ::std::result::Result<::std::option::Option<#ident>, #c::Error> {
                self.inner.get_opt(name).await
            }
        });
    }
    if has("list") {
        verbs.push(quote! {
            /// Lists objects.
            pub async fn list(&self, lp: &#c::ListParams) -> ::std::result::Result<#c::ObjectList<#ident>, #c::Error> {
                self.inner.list(lp).await
            }
        });
    }
    if has("watch") {
        verbs.push(quote! {
            /// Watches from `resource_version` (raw stream; informers reconnect, this does not).
            pub async fn watch(&self, wp: &#c::WatchParams, resource_version: &str)
                -> ::std::result::Result<#rt::__private::BoxStream<'static, ::std::result::Result<#c::WatchEvent<#ident>, #c::Error>>, #c::Error> {
                self.inner.watch(wp, resource_version).await
            }
        });
    }
    verbs
}

/// The partial-write verbs the tags leave: patch (and patch_status when updateStatus is left too), apply,
/// applyStatus.
fn patch_and_apply_verb_methods(ident: &Ident, g: &GenClient) -> Vec<TokenStream> {
    let rt = quote!(::rkb_runtime);
    let c = quote!(::rkb_runtime::client);
    let has = |v: &str| g.verbs.contains(v);
    let mut verbs = Vec::new();
    if has("patch") {
        verbs.push(quote! {
            /// Patches the object `name`.
            pub async fn patch<P: #rt::__private::Serialize + ::std::fmt::Debug>(&self, name: &str, pp: &#c::PatchParams, patch: &#c::Patch<P>)
                -> ::std::result::Result<#ident, #c::Error> {
                self.inner.patch(name, pp, patch).await
            }
        });
        if has("updateStatus") {
            verbs.push(quote! {
                /// Patches the status subresource of `name`.
                pub async fn patch_status<P: #rt::__private::Serialize + ::std::fmt::Debug>(&self, name: &str, pp: &#c::PatchParams, patch: &#c::Patch<P>)
                    -> ::std::result::Result<#ident, #c::Error> {
                    self.inner.patch_status(name, pp, patch).await
                }
            });
        }
    }
    if has("apply") {
        verbs.push(quote! {
            /// Server-side apply of `config` (the object or a partial JSON value with metadata.name).
            pub async fn apply<P: #rt::__private::Serialize>(&self, config: &P, opts: &#c::ApplyOptions) -> ::std::result::Result<#ident, #c::Error> {
                self.inner.apply(config, opts).await
            }
        });
    }
    if has("applyStatus") {
        verbs.push(quote! {
            /// Server-side apply to the status subresource.
            pub async fn apply_status<P: #rt::__private::Serialize>(&self, config: &P, opts: &#c::ApplyOptions) -> ::std::result::Result<#ident, #c::Error> {
                self.inner.apply_status(config, opts).await
            }
        });
    }
    verbs
}

fn extension_method(ident: &Ident, m: &Method) -> TokenStream {
    let c = quote!(::rkb_runtime::client);
    let rt = quote!(::rkb_runtime);
    let name = Ident::new(&genclient::snake_case(&m.name), Span::call_site());
    let result = m
        .result
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(#ident));
    let input = m.input.clone().unwrap_or_else(|| syn::parse_quote!(#ident));
    let sub = match &m.subresource {
        Some(s) => quote!(::std::option::Option::Some(#s)),
        None => quote!(::std::option::Option::None),
    };
    let doc = format!(
        "`+genclient:method={}` ({}{}).",
        m.name,
        m.verb,
        m.subresource
            .as_ref()
            .map(|s| format!(" on subresource `{s}`"))
            .unwrap_or_default()
    );
    match m.verb {
        "get" => quote! {
            #[doc = #doc]
            pub async fn #name(&self, name: &str) -> ::std::result::Result<#result, #c::Error> {
                self.inner.request_get(name, #sub).await
            }
        },
        // As client-gen: a create on a subresource names its object; a create on the collection does not.
        "create" => match &m.subresource {
            Some(s) => quote! {
                #[doc = #doc]
                pub async fn #name(&self, name: &str, input: &#input, pp: &#c::PostParams) -> ::std::result::Result<#result, #c::Error> {
                    self.inner.request_create(::std::option::Option::Some((name, #s)), input, pp).await
                }
            },
            None => quote! {
                #[doc = #doc]
                pub async fn #name(&self, input: &#input, pp: &#c::PostParams) -> ::std::result::Result<#result, #c::Error> {
                    self.inner.request_create(::std::option::Option::None, input, pp).await
                }
            },
        },
        "update" => quote! {
            #[doc = #doc]
            pub async fn #name(&self, name: &str, input: &#input, pp: &#c::PostParams) -> ::std::result::Result<#result, #c::Error> {
                self.inner.request_update(name, #sub, input, pp).await
            }
        },
        "list" => quote! {
            #[doc = #doc]
            pub async fn #name(&self, lp: &#c::ListParams) -> ::std::result::Result<#c::ObjectList<#result>, #c::Error> {
                self.inner.request_list(lp).await
            }
        },
        "watch" => quote! {
            #[doc = #doc]
            pub async fn #name(&self, wp: &#c::WatchParams, resource_version: &str)
                -> ::std::result::Result<#rt::__private::BoxStream<'static, ::std::result::Result<#c::WatchEvent<#result>, #c::Error>>, #c::Error> {
                self.inner.request_watch(wp, resource_version).await
            }
        },
        "delete" => quote! {
            #[doc = #doc]
            pub async fn #name(&self, name: &str, dp: &#c::DeleteParams) -> ::std::result::Result<(), #c::Error> {
                self.inner.request_delete(name, dp).await
            }
        },
        "deleteCollection" => quote! {
            #[doc = #doc]
            pub async fn #name(&self, dp: &#c::DeleteParams, lp: &#c::ListParams) -> ::std::result::Result<(), #c::Error> {
                self.inner.request_delete_collection(dp, lp).await
            }
        },
        // As create: on a subresource the object is named; otherwise `input` names itself (metadata.name).
        "apply" => match &m.subresource {
            Some(s) => quote! {
                #[doc = #doc]
                pub async fn #name(&self, name: &str, input: &#input, opts: &#c::ApplyOptions) -> ::std::result::Result<#result, #c::Error> {
                    self.inner.request_apply(::std::option::Option::Some((name, #s)), input, opts).await
                }
            },
            None => quote! {
                #[doc = #doc]
                pub async fn #name(&self, input: &#input, opts: &#c::ApplyOptions) -> ::std::result::Result<#result, #c::Error> {
                    self.inner.request_apply(::std::option::Option::None, input, opts).await
                }
            },
        },
        _ => quote! {
            #[doc = #doc]
            pub async fn #name<P: #rt::__private::Serialize + ::std::fmt::Debug>(&self, name: &str, pp: &#c::PatchParams, patch: &#c::Patch<P>)
                -> ::std::result::Result<#result, #c::Error> {
                self.inner.request_patch(name, #sub, pp, patch).await
            }
        },
    }
}
