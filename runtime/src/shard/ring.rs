//! The hash ring: which member of a shard ring an object key belongs to.
//!
//! Contract: [`Ring::assign`] is a pure function of the key and the set of member names (not their order, not the
//! process: the hash is FNV-1a 64 written here, not std's randomly seeded one), so every sharder that knows the same
//! members assigns the same way. Each member stands at [`VIRTUAL_NODES`] points of the ring; a key belongs to the
//! member of the first point at or after the key's hash (wrapping). When a member joins, only keys that now fall
//! before one of its points move, all to it; when one leaves, only its keys move. With 3 members each holds a third
//! of the keys within a few percent (the unit tests bound it over 3,000 keys).

use std::collections::BTreeSet;

/// Points per member: enough that 3 members split keys within about 10% of a third each.
pub const VIRTUAL_NODES: usize = 256;

/// FNV-1a 64 of `bytes`, finished with a mixer (murmur3's fmix64): FNV alone leaves the high bits of short keys
/// that differ in their last byte ("member-1/7", "member-1/8") close together, and the ring orders points by value.
pub fn hash(bytes: &[u8]) -> u64 {
    let mut h = fnv1a(bytes);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// FNV-1a 64 (Fowler, Noll, Vo): the offset basis, then per byte xor and multiply by the FNV prime.
fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |h, b| (h ^ u64::from(*b)).wrapping_mul(PRIME))
}

/// The members of a ring, placed at their points.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ring {
    /// (point, index into `members`), sorted by point, then by member name for equal points.
    points: Vec<(u64, usize)>,
    /// The member names, sorted.
    members: Vec<String>,
}

impl Ring {
    /// The ring of these members (duplicates count once).
    pub fn new<S: AsRef<str>>(members: impl IntoIterator<Item = S>) -> Self {
        let members: Vec<String> = members
            .into_iter()
            .map(|m| m.as_ref().to_string())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut points: Vec<(u64, usize)> = members
            .iter()
            .enumerate()
            .flat_map(|(index, member)| {
                (0..VIRTUAL_NODES).map(move |n| (hash(format!("{member}/{n}").as_bytes()), index))
            })
            .collect();
        // Members are sorted, so equal points order by name: the same members give the same ring.
        points.sort_unstable();
        Self { points, members }
    }

    /// The member `key` belongs to; None when the ring has no members.
    pub fn assign(&self, key: &str) -> Option<&str> {
        let h = hash(key.as_bytes());
        let at = self.points.partition_point(|(point, _)| *point < h);
        let (_, member) = self.points.get(at).or_else(|| self.points.first())?;
        Some(&self.members[*member])
    }

    /// The members, sorted.
    pub fn members(&self) -> &[String] {
        &self.members
    }

    /// Whether the ring has no members.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn keys() -> Vec<String> {
        // As the sharder names objects: namespace/name, in the shapes users create them.
        (0..3000)
            .map(|i| format!("team-{}/app-{i}", i % 7))
            .collect()
    }

    fn shares(ring: &Ring, keys: &[String]) -> HashMap<String, usize> {
        let mut shares = HashMap::new();
        for key in keys {
            *shares
                .entry(ring.assign(key).unwrap().to_string())
                .or_default() += 1;
        }
        shares
    }

    #[test]
    fn the_hash_is_fnv1a_64_mixed_and_pinned() {
        // The published FNV-1a 64 test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        // The whole hash pinned: a change of it would move objects of every ring on an upgrade.
        assert_eq!(format!("{:#x}", hash(b"ns/name")), "0x583da219d8b531d0");
    }

    #[test]
    fn assignment_is_stable_and_independent_of_member_order() {
        let a = Ring::new(["replica-a", "replica-b", "replica-c"]);
        let b = Ring::new(["replica-c", "replica-a", "replica-b", "replica-a"]);
        assert_eq!(a, b);
        for key in keys() {
            assert_eq!(a.assign(&key), b.assign(&key), "{key}");
        }
        assert_eq!(Ring::new(Vec::<String>::new()).assign("ns/x"), None);
        assert_eq!(Ring::new(["solo"]).assign("ns/x"), Some("solo"));
    }

    #[test]
    fn three_members_share_3000_keys_within_10_percent_of_a_third() {
        let ring = Ring::new([
            "operator-7d9f-abcde",
            "operator-7d9f-fghij",
            "operator-7d9f-klmno",
        ]);
        let shares = shares(&ring, &keys());
        assert_eq!(shares.len(), 3, "{shares:?}");
        for (member, share) in &shares {
            assert!(
                (900..=1100).contains(share),
                "{member}: {share} of 3000 ({shares:?})"
            );
        }
    }

    #[test]
    fn a_joining_member_takes_keys_from_the_others_and_nothing_else_moves() {
        let keys = keys();
        let before = Ring::new(["a-0", "a-1", "a-2"]);
        let after = Ring::new(["a-0", "a-1", "a-2", "a-3"]);
        let mut moved = 0;
        for key in &keys {
            let (old, new) = (before.assign(key).unwrap(), after.assign(key).unwrap());
            if old != new {
                assert_eq!(
                    new, "a-3",
                    "{key} moved from {old} to {new}, not to the new member"
                );
                moved += 1;
            }
        }
        // About a quarter moves: the new member's fair share, not a reshuffle.
        assert!((600..=900).contains(&moved), "{moved} of 3000 moved");
    }

    #[test]
    fn a_leaving_member_gives_up_its_keys_and_nothing_else_moves() {
        let keys = keys();
        let before = Ring::new(["a-0", "a-1", "a-2"]);
        let after = Ring::new(["a-0", "a-2"]);
        for key in &keys {
            let (old, new) = (before.assign(key).unwrap(), after.assign(key).unwrap());
            if old != "a-1" {
                assert_eq!(old, new, "{key} moved though its member stayed");
            }
        }
    }
}
