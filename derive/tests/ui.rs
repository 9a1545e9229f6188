//! Compile-fail tests of the derive: what must not compile, and the errors users then see.

#[test]
fn compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    // Cases that need a project to read (tags checked against the CRD): fixture-ui/src/api/ui/v1/mod.rs.
    t.compile_fail("tests/fixture-ui/src/api/ui/v1/identity_errors.rs");
    t.compile_fail("tests/fixture-ui/src/api/ui/v1/verb_tags.rs");
}
