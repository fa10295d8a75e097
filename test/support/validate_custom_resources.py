"""Validates custom resources against the schemas their operators publish in their CRDs.

Usage: python validate_custom_resources.py <crd-dir> <manifests.yaml>

kubernetes-validate knows the Kubernetes API's own kinds only. For each manifest whose apiVersion
and kind a CRD of <crd-dir> defines, this checks the object against that version's
openAPIV3Schema, strictly: an object schema that lists its properties refuses any other (unless it
says x-kubernetes-preserve-unknown-fields), as the API server would prune them silently, so a
misspelt field would be lost without a word. A manifest of a kind no CRD here defines is an error.
Prints one line per object (OK or ERROR with the field's path) and exits 1 when any is in error.
Runs in the kubernetes-validate virtualenv, which brings jsonschema and PyYAML.
"""
import copy
import pathlib
import sys

import jsonschema
import yaml


def strict(schema):
    """The schema with additionalProperties false wherever properties are listed and nothing else is allowed."""
    schema = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            if (
                node.get("type") == "object"
                and "properties" in node
                and "additionalProperties" not in node
                and not node.get("x-kubernetes-preserve-unknown-fields")
            ):
                node["additionalProperties"] = False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return schema


def load_schemas(crd_dir):
    schemas = {}
    for path in sorted(pathlib.Path(crd_dir).glob("*.yaml")):
        for crd in yaml.safe_load_all(path.read_text()):
            if not crd or crd.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for version in crd["spec"]["versions"]:
                if version.get("served"):
                    schemas[(f"{group}/{version['name']}", kind)] = strict(version["schema"]["openAPIV3Schema"])
    return schemas


def main():
    schemas = load_schemas(sys.argv[1])
    failed = False
    for manifest in yaml.safe_load_all(pathlib.Path(sys.argv[2]).read_text()):
        if not manifest:
            continue
        key = (manifest.get("apiVersion"), manifest.get("kind"))
        name = f"{key[1]}/{manifest.get('metadata', {}).get('name')}"
        schema = schemas.get(key)
        if schema is None:
            print(f"ERROR {name}: no CRD here defines {key[0]} {key[1]}")
            failed = True
            continue
        # metadata is the API server's ObjectMeta, not described by the CRD's schema.
        body = {k: v for k, v in manifest.items() if k != "metadata"}
        errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(body), key=lambda e: list(e.path))
        for error in errors:
            print(f"ERROR {name}: {'.'.join(str(p) for p in error.path) or '(root)'}: {error.message}")
        failed = failed or bool(errors)
        if not errors:
            print(f"OK {name} against {key[0]} {key[1]}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
