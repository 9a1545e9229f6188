//! Compile-fail tests of the derive: what must not compile, and the errors users then see.

#[test]
fn compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
