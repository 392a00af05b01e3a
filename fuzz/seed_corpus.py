#!/usr/bin/env python3
"""Builds the fuzz targets' seed corpora from this repository's own inputs.

Usage: seed_corpus.py OUT_DIR. Writes OUT_DIR/<target>/<sha1> files (content-addressed, so a
rerun adds nothing twice): the golden cases' and examples' JSON and YAML, the test logs, the
hand-written seeds in fuzz/seeds/, and inputs derived from them (watch lines, HTTP requests,
patches). Inputs larger than MAX_BYTES are skipped: the fuzzers run with a -max_len below it.
"""
import hashlib
import json
import pathlib
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = ["test/golden", "test/testdata", "examples", "deploy"]
MAX_BYTES = 64 * 1024
PER_TARGET = 400  # enough variety; more only slows each run's first pass


def files(*suffixes):
    for source in SOURCES:
        for path in sorted((ROOT / source).rglob("*")):
            if path.is_file() and path.suffix in suffixes and path.stat().st_size <= MAX_BYTES:
                yield path


def load_yaml_documents(path):
    try:
        return [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]
    except (yaml.YAMLError, UnicodeDecodeError):
        return []


def expressions(value):
    """Every string under an `expression` key (thresholds, node health, when clauses)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "expression" and isinstance(item, str):
                yield item
            else:
                yield from expressions(item)
    elif isinstance(value, list):
        for item in value:
            yield from expressions(item)


class Corpus:
    def __init__(self, out):
        self.out = pathlib.Path(out)
        self.counts = {}

    def add(self, target, data):
        if isinstance(data, str):
            data = data.encode()
        if len(data) > MAX_BYTES or self.counts.get(target, 0) >= PER_TARGET:
            return
        directory = self.out / target
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / hashlib.sha1(data).hexdigest()
        if not path.exists():
            path.write_bytes(data)
            self.counts[target] = self.counts.get(target, 0) + 1


def k8s_objects():
    """Objects with a kind from the repository's YAML and JSON files, in file order."""
    for path in files(".yaml", ".yml"):
        yield from load_yaml_documents(path)
    for path in files(".json"):
        try:
            value = json.loads(path.read_text())
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(value, dict) and "kind" in value:
            yield value


def main():
    corpus = Corpus(sys.argv[1])
    for target_dir in sorted((ROOT / "fuzz/seeds").iterdir()):
        for seed in sorted(target_dir.iterdir()):
            corpus.add(target_dir.name, seed.read_bytes())
    for path in files(".json"):
        corpus.add("json", path.read_bytes())
    for path in files(".yaml", ".yml"):
        corpus.add("yaml", path.read_bytes())
        if path.parts[-2] in ("examples", "invalid") or "validation" in str(path):
            corpus.add("api_kinds", path.read_bytes())
    for path in files(".yaml"):
        if any(d.get("apiVersion", "").startswith("nvcre.nvidia.com/") for d in load_yaml_documents(path)):
            corpus.add("api_kinds", path.read_bytes())
    for path in files(".log"):
        for profile in range(5):  # the first byte picks the shipped LogProfile
            corpus.add("measure_logs", bytes([profile]) + path.read_bytes())
    objects = list(k8s_objects())
    for i, obj in enumerate(objects[:200]):
        text = json.dumps(obj, separators=(",", ":"), default=str)
        event = "ADDED" if i % 3 else "MODIFIED"
        rv = json.dumps({"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": str(i)}}})
        corpus.add("watch_stream", bytes([1 + i % 64]) + f'{{"type":"{event}","object":{text}}}\n{rv}\n'.encode())
        corpus.add("json", text)
        path = "/apis/" + obj.get("apiVersion", "v1") if "/" in obj.get("apiVersion", "v1") else "/api/v1"
        plural = obj.get("kind", "thing").lower() + "s"
        corpus.add("sim_http", f"POST {path}/namespaces/default/{plural}?fieldManager=fuzz HTTP/1.1\r\n"
                   f"Host: x\r\nContent-Type: application/json\r\nContent-Length: {len(text)}\r\n\r\n{text}")
        # The first byte picks patch type, target object, dry-run (see fuzz_sim_patch.cpp).
        patch = {k: v for k, v in obj.items() if k in ("metadata", "spec", "status", "data")}
        corpus.add("sim_patch", bytes([i % 256]) + json.dumps(patch, default=str).encode())
    corpus.add("sim_patch", b"\x01" + json.dumps([{"op": "replace", "path": "/spec/nodes/0", "value": "n"},
                                                   {"op": "test", "path": "/metadata/name", "value": "cert"},
                                                   {"op": "move", "from": "/data/a", "path": "/data/z"}]).encode())
    corpus.add("sim_patch", b"\x03apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {c: '3'}\n")
    corpus.add("sim_patch", b"\x02{\"metadata\":{\"$setElementOrder/finalizers\":[],\"labels\":null}}")
    for obj in objects:
        for expression in expressions(obj):
            corpus.add("cel", expression)
    for target, count in sorted(corpus.counts.items()):
        print(f"seed-corpus: {target}: {count} new inputs")


if __name__ == "__main__":
    main()
