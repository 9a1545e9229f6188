// A package with +kubebuilder:object:generate=false gets no DeepCopy; a kind without +genclient
// gets no typed client, lister or informer.
use rkb_fixture_operator::api::plain::v1::{Plain, PlainClient, PlainLister};
use rkb_runtime::DeepCopy;

fn copy(p: &Plain) -> Plain {
    p.deep_copy()
}

fn main() {}
