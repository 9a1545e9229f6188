//! The type of a field, alias or newtype as the model keeps it: just what schema generation looks at,
//! in owned data. syn's trees hold proc-macro2 tokens, which cannot leave the thread that parsed them;
//! this can, so files are parsed and walked on several threads.

/// A type expression, with references, parentheses and invisible groups looked through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeExpr {
    /// A path without a qualified self (`String`, `Vec<T>`, `k8s_openapi::...::Quantity`): its
    /// identifiers, and the type arguments of its last segment.
    Path {
        segments: Vec<String>,
        args: Vec<TypeExpr>,
    },
    /// `[T; N]` or `[T]`.
    List(Box<TypeExpr>),
    /// Anything else (tuples, function pointers, trait objects...), as written; reported when a CRD
    /// uses it.
    Other(String),
}

impl TypeExpr {
    /// Converts syn's tree.
    pub fn from_syn(ty: &syn::Type) -> Self {
        match ty {
            syn::Type::Path(p) if p.qself.is_none() => {
                let segments = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                let args = match p.path.segments.last().map(|s| &s.arguments) {
                    Some(syn::PathArguments::AngleBracketed(a)) => a
                        .args
                        .iter()
                        .filter_map(|g| match g {
                            syn::GenericArgument::Type(t) => Some(Self::from_syn(t)),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                Self::Path { segments, args }
            }
            syn::Type::Reference(r) => Self::from_syn(&r.elem),
            syn::Type::Paren(p) => Self::from_syn(&p.elem),
            syn::Type::Group(g) => Self::from_syn(&g.elem),
            syn::Type::Array(a) => Self::List(Box::new(Self::from_syn(&a.elem))),
            syn::Type::Slice(s) => Self::List(Box::new(Self::from_syn(&s.elem))),
            other => Self::Other(quote::ToTokens::to_token_stream(other).to_string()),
        }
    }

    /// `Option<...>` (by its last segment, as serde's `Option` detection does).
    pub fn is_option(&self) -> bool {
        matches!(self, Self::Path { segments, .. } if segments.last().is_some_and(|s| s == "Option"))
    }

    /// The type as Rust spells it, for messages.
    pub fn to_rust(&self) -> String {
        match self {
            Self::Path { segments, args } if args.is_empty() => segments.join("::"),
            Self::Path { segments, args } => {
                let args: Vec<String> = args.iter().map(Self::to_rust).collect();
                format!("{}<{}>", segments.join("::"), args.join(", "))
            }
            Self::List(elem) => format!("[{}]", elem.to_rust()),
            Self::Other(text) => text.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TypeExpr;

    fn expr(src: &str) -> TypeExpr {
        TypeExpr::from_syn(&syn::parse_str(src).expect("a type"))
    }

    #[test]
    fn paths_keep_segments_and_last_arguments() {
        assert_eq!(
            expr("::std::collections::BTreeMap<String, Vec<i32>>"),
            TypeExpr::Path {
                segments: vec!["std".into(), "collections".into(), "BTreeMap".into()],
                args: vec![
                    expr("String"),
                    TypeExpr::Path {
                        segments: vec!["Vec".into()],
                        args: vec![expr("i32")],
                    },
                ],
            }
        );
        assert!(expr("Option<Box<X>>").is_option());
        assert!(!expr("Box<Option<X>>").is_option());
    }

    #[test]
    fn references_and_groups_are_looked_through_and_others_kept_as_text() {
        assert_eq!(expr("&'static (str)"), expr("str"));
        assert_eq!(expr("[u8; 4]"), TypeExpr::List(Box::new(expr("u8"))));
        assert_eq!(expr("&[u8]"), TypeExpr::List(Box::new(expr("u8"))));
        assert_eq!(expr("(i32, String)").to_rust(), "(i32 , String)");
        assert_eq!(expr("HashMap<i32, X>").to_rust(), "HashMap<i32, X>");
    }
}
