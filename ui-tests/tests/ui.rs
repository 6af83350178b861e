//! Compile-time diagnostics of `#[gpu_kernel]` and `launch!`: one case per mistake, named
//! after it, in topic folders; each `.stderr` is the exact message a user sees. The `pass`
//! cases prove that what should compile does (and runs on the simulator).
//!
//! Refresh the expected output after an intended change with `TRYBUILD=overwrite`, then
//! review the diff like code.

#[test]
fn diagnostics() {
    let t = trybuild::TestCases::new();
    t.compile_fail("cases/signature/*.rs");
    t.compile_fail("cases/attribute/*.rs");
    t.compile_fail("cases/body/*.rs");
    t.compile_fail("cases/launch/*.rs");
    t.compile_fail("cases/host/*.rs");
    t.compile_fail("cases/structs/*.rs");
    t.compile_fail("cases/methods/*.rs");
    t.compile_fail("cases/enums/*.rs");
    t.compile_fail("cases/tensor_cores/*.rs");
    t.compile_fail("cases/options/*.rs");
    t.compile_fail("cases/closures/*.rs");
    t.compile_fail("cases/foreign/*.rs");
    t.compile_fail("cases/globals/*.rs");
    t.compile_fail("cases/traits/*.rs");
    t.pass("cases/pass/*.rs");
}
