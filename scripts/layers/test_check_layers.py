"""Tests of the layer check: each planted fault is found, and a clean tree passes."""

import os
import tempfile
import textwrap
import unittest

import check_layers

TABLE = """
| path | layer |
|---|---|
| `gpu-runtime/src/error.rs` | 0 ground |
| `gpu-runtime/src/backend/` | 1 backends |
| `gpu-runtime/src/host/` | 2 host |
| `gpu-runtime/src/lib.rs` | 3 top |
"""

CLEAN = {
    "lib.rs": "mod error;\nmod backend;\nmod host;\npub use host::api::Api;\n",
    "error.rs": "pub struct GpuError;\n",
    "backend/mod.rs": "pub(crate) mod cuda;\n",
    "backend/cuda.rs": "use crate::error::GpuError;\npub fn launch() -> GpuError { GpuError }\n",
    "host/mod.rs": "pub(crate) mod api;\n",
    "host/api.rs": textwrap.dedent(
        """\
        use crate::{backend::cuda, error::GpuError};
        /// `crate::lib` in a comment is not an import; nor is "crate::lib" in a string.
        pub struct Api;
        pub fn go() -> GpuError { cuda::launch() }
        #[cfg(test)]
        mod tests {
            use super::*; // this file itself, not host/mod.rs
        }
        """
    ),
}


def tree(files: dict) -> str:
    root = tempfile.mkdtemp()
    with open(os.path.join(root, "ARCHITECTURE.md"), "w") as f:
        f.write(TABLE)
    for rel, text in files.items():
        path = os.path.join(root, "gpu-runtime", "src", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return root


def findings_with(rel: str, code: str) -> list:
    """The check's findings on the clean tree with `code` added to file `rel`."""
    files = dict(CLEAN)
    files[rel] += code
    return check_layers.check(tree(files))


class CheckLayers(unittest.TestCase):
    def test_clean_tree_passes(self):
        self.assertEqual(check_layers.check(tree(CLEAN)), [])

    def test_upward_import_in_a_use_group_is_found(self):
        files = dict(CLEAN)
        files["backend/cuda.rs"] += "use crate::{error::GpuError as E, host::api::{self, Api}};\n"
        found = check_layers.check(tree(files))
        self.assertTrue(
            any("backend/cuda.rs:3: imports crate::host::api" in f and "layer 2" in f for f in found),
            found,
        )

    def test_upward_path_outside_use_is_found(self):
        found = findings_with("backend/cuda.rs", "fn f() { let _ = crate::host::api::go(); }\n")
        self.assertTrue(any("imports crate::host::api::go" in f for f in found), found)

    def test_super_path_resolves_from_the_module(self):
        found = findings_with("backend/mod.rs", "fn f() { super::host::api::go(); }\n")
        self.assertTrue(any("backend/mod.rs:2: imports super::host::api" in f for f in found), found)

    def test_paths_in_generated_code_are_not_imports(self):
        generated = textwrap.dedent(
            """\
            fn emit() -> TokenStream {
                let inner = quote::quote! { use crate::host::api::Api; };
                quote_spanned! {span=> mod k { use super::*; #inner } }
            }
            """
        )
        self.assertEqual(findings_with("backend/cuda.rs", generated), [])

    def test_a_path_after_a_quote_is_still_found(self):
        code = "fn f() { let _ = quote!([crate::x]); crate::host::api::go(); }\n"
        found = findings_with("backend/cuda.rs", code)
        self.assertTrue(any("imports crate::host::api::go" in f for f in found), found)

    def test_cycle_across_folders_is_found(self):
        files = dict(CLEAN)
        files["host/api.rs"] += "use crate::backend::cuda::launch;\n"
        files["backend/cuda.rs"] += "use crate::host::api::Api;\n"
        # Both in one layer, so only the cycle is at fault.
        table = TABLE.replace("| `gpu-runtime/src/host/` | 2 host |", "| `gpu-runtime/src/host/` | 1 host |")
        root = tree(files)
        with open(os.path.join(root, "ARCHITECTURE.md"), "w") as f:
            f.write(table)
        found = check_layers.check(root)
        self.assertTrue(any("import cycle across folders" in f for f in found), found)
        self.assertFalse(any("imports" in f for f in found), found)

    def test_a_701_line_file_is_found(self):
        files = dict(CLEAN)
        files["error.rs"] = "pub struct GpuError;\n" + "// filler\n" * 700
        found = check_layers.check(tree(files))
        self.assertIn("gpu-runtime/src/error.rs: 701 lines (at most 700)", found)

    def test_a_700_line_file_passes(self):
        files = dict(CLEAN)
        files["error.rs"] = "pub struct GpuError;\n" + "// filler\n" * 699
        self.assertEqual(check_layers.check(tree(files)), [])

    def test_a_121_line_function_is_found(self):
        files = dict(CLEAN)
        body = "    let _x = '{'; // a brace in a char and a comment: {\n" * 119
        files["error.rs"] += "fn long() {\n" + body + "}\n"
        found = check_layers.check(tree(files))
        self.assertTrue(any("fn long is 121 lines" in f for f in found), found)

    def test_a_file_outside_the_table_is_found(self):
        files = dict(CLEAN)
        files["stray.rs"] = "pub fn f() {}\n"
        found = check_layers.check(tree(files))
        self.assertIn("gpu-runtime/src/stray.rs: no layer in ARCHITECTURE.md's table", found)


if __name__ == "__main__":
    unittest.main()
