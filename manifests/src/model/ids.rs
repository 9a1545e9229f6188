//! Typed indices into the model's tables: a [`TypeId`] names one of `Model::types`, a [`FileId`] one of
//! `Model::files`, a [`PackageId`] one of `Model::packages`. Each is its own type, so one cannot stand for
//! another, and none does arithmetic: an id is made only where its table is built or walked ([`TypeId::nth`]),
//! and indexes its own table (model/mod.rs implements `Index` for each). Side tables kept beside a table (the
//! uses of each type) are indexed with [`TypeId::index`].

macro_rules! table_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(usize);

        impl $name {
            /// The id of entry `i` of its table.
            #[allow(dead_code, reason = "not every table is built by position")]
            pub(crate) fn nth(i: usize) -> Self {
                $name(i)
            }

            /// The position in its table, for a side table kept beside it.
            pub(crate) fn index(self) -> usize {
                self.0
            }

            /// The ids of a table of `len` entries, in order.
            #[allow(dead_code, reason = "not every table is walked by id")]
            pub(crate) fn all(len: usize) -> impl Iterator<Item = Self> {
                (0..len).map($name)
            }
        }
    };
}

table_id!(
    /// One of the model's types (`Model::types`).
    TypeId
);
table_id!(
    /// One of the model's source files (`Model::files`).
    FileId
);
table_id!(
    /// One of the model's packages, the group/version modules (`Model::packages`).
    PackageId
);

/// `Index` and `IndexMut` of a table (`Vec<item>`) by its id.
macro_rules! index_by {
    ($id:ty, $item:ty) => {
        impl std::ops::Index<$id> for Vec<$item> {
            type Output = $item;
            fn index(&self, id: $id) -> &$item {
                &self[id.index()]
            }
        }

        impl std::ops::IndexMut<$id> for Vec<$item> {
            fn index_mut(&mut self, id: $id) -> &mut $item {
                &mut self[id.index()]
            }
        }
    };
}
pub(crate) use index_by;
