# SPDX-License-Identifier: GPL-2.0
"""Completes the rust-project.json that kbuild's `rust-analyzer` target writes
for the module: adds the versioning macro crate (gsp/macros, a proc macro the
module's Kbuild builds as libnova_versions.so) as a dependency of nova_core,
and the cfgs and environment the module is compiled with, so that
rust-analyzer expands the versioned modules as the compiler does.

usage: rust-project.py MODULE_DIR
"""

import json
import sys
from pathlib import Path


def main():
    root = Path(sys.argv[1]).resolve()
    path = root / "rust-project.json"
    project = json.loads(path.read_text())
    crates = project["crates"]
    index = {c.get("display_name"): i for i, c in enumerate(crates)}
    missing = [n for n in ("nova_core", "proc_macro2", "quote", "syn") if n not in index]
    if missing:
        raise SystemExit(f"{path}: no crate {', '.join(missing)} (kbuild's rust-analyzer output changed?)")
    sysroot_deps = [d for d in crates[index["syn"]]["deps"] if d["name"] in ("std", "proc_macro")]
    if "nova_versions" not in index:
        crates.append({
            "display_name": "nova_versions",
            "root_module": str(root / "gsp" / "macros" / "src" / "lib.rs"),
            "is_workspace_member": True,
            "edition": "2021",
            "is_proc_macro": True,
            "proc_macro_dylib_path": str(root / "libnova_versions.so"),
            "deps": sysroot_deps + [{"crate": index[n], "name": n}
                                    for n in ("proc_macro2", "quote", "syn")],
            "cfg": [],
            "env": {},
        })
        index["nova_versions"] = len(crates) - 1
    nova = crates[index["nova_core"]]
    if not any(d["name"] == "nova_versions" for d in nova["deps"]):
        nova["deps"].append({"crate": index["nova_versions"], "name": "nova_versions"})
    if "zerocopy_derive_union_into_bytes" not in nova.setdefault("cfg", []):
        nova["cfg"].append("zerocopy_derive_union_into_bytes")
    # Where gsp/fw.rs finds the generated bindings (Kbuild's --env-set): the module is built
    # in place.
    nova.setdefault("env", {})["NOVA_CORE_OBJ"] = str(root)
    path.write_text(json.dumps(project, indent=4) + "\n")


if __name__ == "__main__":
    main()
