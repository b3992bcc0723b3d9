"""Every file torchir writes treats the names, paths, targets and file names of its input as data.

tests/data/make_hostile_program.py rewrites the zoo's mlp into programs whose node names, value
names, module paths and class names, stack traces, a custom op's target and string argument, and
file name hold quotes, triple quotes, backslashes, newlines, markup, CSV separators, formula
starters, Python code that would touch PLANTED if it ran, and a byte that is not UTF-8. Each check
below feeds them to one writer and parses what it wrote in that writer's own language (XML, DOT by
Graphviz itself, JSON, CSV, Python), then looks for every hostile text it shows, intact, as data.

usage: check_writers.py --torchir BIN --fixtures DIR --out DIR [--only CHECK,CHECK...] [--no-child-leak-check]

What "intact" means per language (a writer that cannot hold a character says so in one way):
  - any language: bytes that are not UTF-8 (only a file's name holds them) become U+FFFD, as
    `bytes.decode("utf-8", "replace")` does, except where the text must stay a path (a repro's STEM);
  - JSON (layout --format json, table/info/check/run/compare --json): the exact text. Strict: no bare
    NaN/Infinity. The IR JSON (convert) follows pytorch-ir, whose json.dump writes bare NaN: it is
    read with json.loads' defaults;
  - XML (layout --format svg): the exact text, except the characters XML 1.0 has no way to hold
    (C0 controls other than tab, newline and carriage return), which become U+FFFD; a carriage
    return must come back as one (written `&#13;`: a raw one is read as a newline);
  - DOT (layout --format dot): each label, as Graphviz reads it (`dot -Tjson0`, then the label's own
    escapes: `\\` a backslash, `\n` `\l` line breaks, `\r` a carriage return), is the text; no
    node other than the writer's own exists and Graphviz warns about nothing;
  - CSV (compare --csv): the same number of columns on every row, the text intact, except that a
    text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return (what a spreadsheet takes
    for a formula: OWASP's "CSV injection") starts with a single quote put before it. Number cells
    are never changed (a negative number starts with `-`);
  - Python (extract's OUT.py): it parses (ast.parse, so it is UTF-8), calls nothing named system,
    its docstring holds the part and file names as one line (control characters and bytes that are
    not UTF-8 as `\\xNN`, newlines as `\\n`), STEM is the output's name exactly (os.fsdecode: the
    script finds its files by it), and running it exits 0 without creating PLANTED.
Plain-text outputs (table without --json, ...) are for people and are not parsed. Capture files
are checked by CaptureFileTest.
"""
import argparse
import ast
import csv
import html.parser
import io
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
MAKER = HERE.parent / "data" / "make_hostile_program.py"


class Failure(Exception):
    pass


CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


# ------------------------------------------------------------------ what a writer should show
def shown(s):
    """A str that may hold surrogate escapes (a file's name) as UTF-8 text shows it: U+FFFD."""
    return os.fsencode(s).decode("utf-8", "replace") if isinstance(s, str) else s.decode("utf-8", "replace")


_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_shown(s):
    return _XML_ILLEGAL.sub("\ufffd", shown(s))


def one_line(s):
    """program/OneLine.h's oneLine, and bytes that are not UTF-8 as \\xNN: how a repro's docstring
    shows a name."""
    data = os.fsencode(s) if isinstance(s, str) else s
    out = []
    for ch in data.decode("utf-8", "surrogateescape"):
        c = ord(ch)
        if ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif c < 0x20 or c == 0x7F:
            out.append(f"\\x{c:02x}")
        elif 0xDC80 <= c <= 0xDCFF:
            out.append(f"\\x{c - 0xDC00:02x}")
        else:
            out.append(ch)
    return "".join(out)


CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_shown(s):
    s = shown(s)
    return "'" + s if s.startswith(CSV_FORMULA_START) else s


def last_dotted(s):
    return s.rsplit(".", 1)[-1]


# ------------------------------------------------------------------ parsing, strictly
def strict_json(data, what):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Failure(f"{what}: not UTF-8: {e}")

    def bare(token):
        raise ValueError(f"bare {token}")

    try:
        return json.loads(text, parse_constant=bare)
    except ValueError as e:
        raise Failure(f"{what}: not strict JSON: {e}")


def strings_of(doc):
    """Every string (keys too) of a JSON document."""
    if isinstance(doc, str):
        yield doc
    elif isinstance(doc, dict):
        for k, v in doc.items():
            yield k
            yield from strings_of(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from strings_of(v)


def expect_in(texts, expected, what):
    """`expected` inside one of `texts`, whole."""
    texts = list(texts)
    if any(expected in t for t in texts):
        return
    head = expected[:6]
    near = [t for t in texts if head in t][:3]
    raise Failure(f"{what}: {expected!r} is not there intact" + (f"; nearest: {near!r}" if near else ""))


def dot_label(raw):
    """A DOT label as Graphviz draws it (escString): \\\\ a backslash, \\n and \\l line breaks, \\r
    a carriage return; \\N \\G \\E \\H \\T \\L are Graphviz's substitutions (kept as markers that no
    text equals)."""
    out, i = [], 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            n = raw[i + 1]
            out.append({"n": "\n", "l": "\n", "r": "\r"}.get(n, f"<subst \\{n}>" if n in "NGEHTL" else n))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


# ------------------------------------------------------------------ the checks
class Context:
    def __init__(self, a):
        self.torchir = a.torchir
        self.env = dict(os.environ)
        if a.no_child_leak_check:  # as check_repros.py: LeakSanitizer's tracer crashes now and then in a child
            options = [o for o in self.env.get("ASAN_OPTIONS", "").split(":") if o and not o.startswith("detect_leaks=")]
            self.env["ASAN_OPTIONS"] = ":".join(options + ["detect_leaks=0"])
        self.out = a.out
        self.work = a.out / "cwd"  # every process runs here: PLANTED would appear here
        self.made = a.out / "programs"
        self.plan = json.loads((self.made / "hostile.json").read_text())
        self.program = str(self.made / self.plan["program"])
        self.custom = str(self.made / self.plan["custom_program"])
        self.inputs = self.plan["inputs"]
        self.nodes = self.plan["node_names"]
        self.modules = self.plan["modules"]
        self.c = self.plan["custom"]
        # a second file with the same program, another hostile name: compare's reference
        self.reference = str(self.made / os.fsdecode(b'=ref \xfe "b" <&>.pt2'))
        shutil.copyfile(self.program, self.reference)

    def torchir_run(self, *args, codes=(0,)):
        r = subprocess.run([self.torchir, *map(str, args)], cwd=self.work, capture_output=True, env=self.env)
        if r.returncode not in codes:
            err = r.stderr.decode("utf-8", "replace").strip().splitlines()
            raise Failure(f"torchir {args[0]} exited {r.returncode} (expected {codes}): "
                          f"{err[-1] if err else '(no message)'}")
        return r

    def shown_everywhere(self, program):
        """What a drawing of `program` shows: the input's name, the module with two ops (fc1) by
        path and class, the one-op module (fc2) by path, and the custom op's target."""
        out = [self.nodes["x"], self.modules["fc1"]["path"], last_dotted(self.modules["fc1"]["class"]),
               self.modules["fc2"]["path"]]
        if program == self.custom:
            out.append(f"{self.c['namespace']}.{self.c['op']}")
        return out


FOLDS = [[], ["--expand", "all"], ["--expand", "0"]]


@check
def layout_svg_is_xml_with_names_as_text(ctx):
    allowed = {"svg", "rect", "text", "path", "polygon", "circle"}
    for program in (ctx.program, ctx.custom):
        for fold in FOLDS:
            what = " ".join(["layout --format svg", *fold, repr(Path(program).name)])
            data = ctx.torchir_run("layout", program, "--format", "svg", *fold).stdout
            try:
                root = ET.fromstring(data)
            except ET.ParseError as e:
                line = data.splitlines()[e.position[0] - 1] if e.position[0] <= len(data.splitlines()) else b""
                raise Failure(f"{what}: not XML: {e}: line {line[:160]!r}")
            tags = {el.tag.split("}")[-1] for el in root.iter()}
            if not tags <= allowed:
                raise Failure(f"{what}: elements a name made: {sorted(tags - allowed)}")
            texts = [el.text or "" for el in root.iter()] + [v for el in root.iter() for v in el.attrib.values()]
            for name in ctx.shown_everywhere(program):
                expect_in(texts, xml_shown(name), what)


@check
def layout_json_is_strict_json_with_names(ctx):
    for program in (ctx.program, ctx.custom):
        for fold in FOLDS:
            what = " ".join(["layout --format json", *fold, repr(Path(program).name)])
            doc = strict_json(ctx.torchir_run("layout", program, "--format", "json", *fold).stdout, what)
            for name in ctx.shown_everywhere(program):
                expect_in(strings_of(doc), shown(name), what)


def graphviz_reads(ctx, dot_file, what):
    """Graphviz's own reading of a DOT file: its objects (name, label as drawn)."""
    r = subprocess.run(["dot", "-Tjson0", str(dot_file)], capture_output=True)
    err = r.stderr.decode("utf-8", "replace").strip()
    if r.returncode != 0 or err:
        raise Failure(f"{what}: Graphviz: exit {r.returncode}: {err[:400]}")
    try:
        doc = json.loads(r.stdout.decode("utf-8"), strict=False)  # Graphviz writes control characters raw
    except (UnicodeDecodeError, ValueError) as e:
        raise Failure(f"{what}: Graphviz's JSON of it does not read: {e}")
    return [(o["name"], dot_label(o.get("label", ""))) for o in doc.get("objects", [])], len(doc.get("edges", []))


@check
def layout_dot_is_read_by_graphviz_with_names_in_labels(ctx):
    for program in (ctx.program, ctx.custom):
        what = f"layout --format dot {Path(program).name!r}"
        out = ctx.work / "flat.dot"
        ctx.torchir_run("layout", program, "--format", "dot", "-o", out)
        objects, _ = graphviz_reads(ctx, out, what)
        strange = [n for n, _ in objects if not re.fullmatch(r"(op|in|out)\d+", n)]
        if strange:
            raise Failure(f"{what}: nodes a label made: {strange!r}")
        labels = [label for _, label in objects]
        expect_in(labels, "input " + shown(ctx.nodes["x"]), what)
        expect_in(labels, shown(ctx.modules["fc2"]["path"]), what)
        if program == ctx.custom:
            expect_in(labels, f"{ctx.c['namespace']}.{ctx.c['op']}", what)


@check
def layout_dot_weights_as_nodes_labels_are_node_names(ctx):
    for program in (ctx.program, ctx.custom):
        what = f"layout --format dot --weights-as-nodes {Path(program).name!r}"
        out = ctx.work / "nodes.dot"
        ctx.torchir_run("layout", program, "--format", "dot", "--weights-as-nodes", "-o", out)
        objects, edges = graphviz_reads(ctx, out, what)
        strange = [n for n, _ in objects if not re.fullmatch(r"n\d+", n)]
        if strange:
            raise Failure(f"{what}: nodes a label made: {strange!r}")
        rows = strict_json(ctx.torchir_run("table", program, "--json").stdout, "table --json")
        if len(objects) != len(rows):
            raise Failure(f"{what}: {len(objects)} nodes, the program has {len(rows)}")
        labels = {label for _, label in objects}
        names = list(ctx.nodes.values()) + ([ctx.c["node"]] if program == ctx.custom else [])
        missing = [n for n in names if shown(n) not in labels]
        if missing:
            raise Failure(f"{what}: no label is exactly {missing[0]!r}; labels: {sorted(labels)!r}")


@check
def table_json_is_strict_json_with_names(ctx):
    for program in (ctx.program, ctx.custom):
        what = f"table --json {Path(program).name!r}"
        rows = strict_json(ctx.torchir_run("table", program, "--json").stdout, what)
        names = [r["name"] for r in rows]
        for n in list(ctx.nodes.values()) + ([ctx.c["node"]] if program == ctx.custom else []):
            if n not in names:
                raise Failure(f"{what}: no row named {n!r}; names: {names!r}")
        if program == ctx.custom:
            expect_in([r["target"] for r in rows], f"{ctx.c['namespace']}.{ctx.c['op']}", what)
            expect_in([r["kwargs"] for r in rows], repr(ctx.c["string"]), what)


@check
def info_json_is_strict_json_with_names(ctx):
    what = "info --json"
    doc = strict_json(ctx.torchir_run("info", ctx.program, "--json").stdout, what)
    if doc.get("model_name") != ctx.plan["model_name"]:
        raise Failure(f"{what}: model_name {doc.get('model_name')!r}, expected {ctx.plan['model_name']!r}")
    if ctx.nodes["x"] not in doc.get("input_shapes", {}):
        raise Failure(f"{what}: input_shapes has no {ctx.nodes['x']!r}: {list(doc.get('input_shapes', {}))!r}")
    if ctx.nodes["linear_1"] not in doc.get("output_shapes", {}):
        raise Failure(f"{what}: output_shapes has no {ctx.nodes['linear_1']!r}")


@check
def check_json_is_strict_json_with_names_and_file(ctx):
    for program, code in ((ctx.program, 0), (ctx.custom, 1)):
        what = f"check --json {Path(program).name!r}"
        doc = strict_json(ctx.torchir_run("check", program, "--json", codes=(code,)).stdout, what)
        if doc.get("file") != shown(program):
            raise Failure(f"{what}: file {doc.get('file')!r}, expected {shown(program)!r}")
        if program == ctx.custom:
            expect_in([p.get("node", "") for p in doc.get("problems", [])], ctx.c["node"], what)


@check
def run_json_is_strict_json_with_names(ctx):
    what = "run --json --trace"
    doc = strict_json(ctx.torchir_run("run", ctx.program, "--inputs", ctx.inputs, "--json", "--trace").stdout, what)
    names = [t.get("name") for t in doc.get("trace", [])]
    for key in ("linear", "relu", "linear_1"):
        if ctx.nodes[key] not in names:
            raise Failure(f"{what}: the trace names no {ctx.nodes[key]!r}: {names!r}")
    what = "run --json (a node that fails)"
    doc = strict_json(ctx.torchir_run("run", ctx.custom, "--inputs", ctx.inputs, "--json", codes=(1,)).stdout, what)
    texts = list(strings_of(doc.get("diagnosis", {})))
    expect_in(texts, ctx.c["node"], what)
    expect_in(texts, ctx.plan["stack_trace"], what)


@check
def compare_json_is_strict_json_with_names_and_file(ctx):
    for reference in ([], [ctx.reference]):
        what = "compare --json" + (" against another file" if reference else "")
        doc = strict_json(ctx.torchir_run("compare", ctx.program, *reference, "--inputs", ctx.inputs, "--json").stdout, what)
        names = [n.get("name") for n in doc.get("nodes", [])]
        for key in ("linear", "relu", "linear_1"):
            if ctx.nodes[key] not in names:
                raise Failure(f"{what}: no node {ctx.nodes[key]!r}: {names!r}")
        if reference:
            expect_in([doc.get("reference") or ""], shown(ctx.reference), what)


@check
def compare_csv_reads_back_with_names_and_no_formulas(ctx):
    out = ctx.work / "compare.csv"
    what = "compare --csv"
    ctx.torchir_run("compare", ctx.program, "--inputs", ctx.inputs, "--csv", out)
    data = out.read_bytes()
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    except (UnicodeDecodeError, csv.Error) as e:
        raise Failure(f"{what}: does not read as CSV: {e}")
    header = rows[0]
    bad = [i for i, r in enumerate(rows) if len(r) != len(header)]
    if bad:
        raise Failure(f"{what}: row {bad[0]} has {len(rows[bad[0]])} cells, the header {len(header)}: {rows[bad[0]]!r}")
    col = {name: i for i, name in enumerate(header)}
    got = [r[col["name"]] for r in rows[1:]]
    for key in ("linear", "relu", "linear_1"):
        want = csv_shown(ctx.nodes[key])
        if want not in got:
            raise Failure(f"{what}: no name cell {want!r} (the name, a formula start quoted with a leading '); names: {got!r}")
    for r in rows[1:]:
        for name in ("name", "op", "b_name", "problem"):
            cell = r[col[name]]
            if cell.startswith(CSV_FORMULA_START):
                raise Failure(f"{what}: cell {name} starts a formula: {cell!r}")


class _Page(html.parser.HTMLParser):
    """An HTML page's tags, attribute values and text, as a browser's parser reads them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.texts = set(), []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.texts.extend(v for _, v in attrs if v)

    def handle_data(self, data):
        self.texts.append(data)


@check
def compare_report_is_html_with_names_as_text(ctx):
    out = ctx.work / "report.html"
    what = "compare --report"
    ctx.torchir_run("compare", ctx.program, ctx.reference, "--inputs", ctx.inputs, "--report", out, codes=(0, 1))
    try:
        text = out.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise Failure(f"{what}: not UTF-8: {e}")
    page = _Page()
    page.feed(text)
    page.close()
    allowed = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "table", "thead", "tbody", "tr",
               "th", "td", "div", "span", "svg", "g", "rect", "text", "path", "polygon", "circle", "line", "code",
               "small", "b", "em", "ul", "li", "title", "section", "details", "summary"}
    if not page.tags <= allowed:
        raise Failure(f"{what}: elements a name made: {sorted(page.tags - allowed)}")
    joined = "\n".join(page.texts)
    for key in ("linear", "relu", "linear_1"):
        if xml_shown(ctx.nodes[key]) not in joined:
            raise Failure(f"{what}: no text {xml_shown(ctx.nodes[key])!r}")


@check
def convert_ir_json_reads_with_names(ctx):
    out = ctx.work / "hostile.ir.json"
    what = "convert"
    ctx.torchir_run("convert", ctx.program, "-o", out)
    try:
        doc = json.loads(out.read_bytes().decode("utf-8"))  # pytorch-ir's json.dump: bare NaN allowed
    except (UnicodeDecodeError, ValueError) as e:
        raise Failure(f"{what}: not JSON: {e}")
    names = [n.get("name") for n in doc.get("nodes", [])]
    for key in ("linear", "relu", "linear_1"):
        if ctx.nodes[key] not in names:
            raise Failure(f"{what}: no IR node {ctx.nodes[key]!r}: {names!r}")
    expect_in(strings_of(doc), ctx.nodes["x"], what)
    if doc.get("model_name") != ctx.plan["model_name"]:
        raise Failure(f"{what}: model_name {doc.get('model_name')!r}, expected {ctx.plan['model_name']!r}")


def names_called(tree):
    return {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} | \
           {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


@check
def extract_repro_script_is_python_with_names_as_data(ctx):
    parts = [("--node", ctx.nodes["linear"]), ("--node", ctx.nodes["relu"]), ("--node", ctx.nodes["linear_1"]),
             ("--module", ctx.modules["fc1"]["path"]), ("--module", ctx.modules["fc2"]["path"])]
    repros = ctx.out / "repros"
    repros.mkdir(exist_ok=True)
    program_name = os.fsencode(Path(ctx.program).name)
    for i, (kind, part) in enumerate(parts):
        stem = b"%d =out \xff \"q\" ''' \"\"\"; import os; os.system('touch PLANTED'); \"\"\" \\" % i
        pt2 = repros / os.fsdecode(stem + b".pt2")
        what = f"extract {kind} {part!r}"
        ctx.torchir_run("extract", ctx.program, kind, part, "--inputs", ctx.inputs, "-o", pt2, "--threads", "1")
        py = pt2.with_suffix(".py")
        source = py.read_bytes()
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError) as e:
            raise Failure(f"{what}: {py.name!r} is not Python: {e}")
        if "system" in names_called(tree):
            raise Failure(f"{what}: {py.name!r} calls something named system: a name became code")
        doc = ast.get_docstring(tree, clean=False) or ""
        describe = ("node '" if kind == "--node" else "module '") + part + "'"
        for text in (describe, program_name, stem):
            if one_line(text) not in doc:
                raise Failure(f"{what}: the docstring does not hold {one_line(text)!r} as one line: {doc[:300]!r}")
        stems = [n.value.value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
                 and any(isinstance(t, ast.Name) and t.id == "STEM" for t in n.targets)]
        if stems != [os.fsdecode(stem)]:
            raise Failure(f"{what}: STEM is {stems!r}, expected [{os.fsdecode(stem)!r}]")
        run_dir = ctx.work / f"repro{i}"
        run_dir.mkdir(exist_ok=True)
        r = subprocess.run([sys.executable, str(py)], cwd=run_dir, capture_output=True)
        planted = list(ctx.out.rglob("PLANTED"))
        if planted:
            raise Failure(f"{what}: running {py.name!r} made {planted[0]}")
        if r.returncode != 0 or b"equal to torchir's bit for bit" not in r.stdout:
            err = r.stderr.decode("utf-8", "replace").strip().splitlines()
            raise Failure(f"{what}: python {py.name!r} exited {r.returncode}: {err[-1] if err else r.stdout[-300:]!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchir", required=True)
    ap.add_argument("--fixtures", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--only", help="these checks alone (comma-separated names)")
    ap.add_argument("--no-child-leak-check", action="store_true", help="torchir without LeakSanitizer (sanitizer build)")
    a = ap.parse_args()
    a.torchir = str(Path(a.torchir).resolve())
    a.out = a.out.resolve()
    shutil.rmtree(a.out, ignore_errors=True)
    (a.out / "cwd").mkdir(parents=True)
    r = subprocess.run([sys.executable, str(MAKER), str(a.fixtures), str(a.out / "programs")], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL make_hostile_program.py exited {r.returncode}: {r.stderr.strip()[-600:]}")
        return 1
    ctx = Context(a)
    only = set(a.only.split(",")) if a.only else None
    failures = []
    for fn in CHECKS:
        if only and fn.__name__ not in only:
            continue
        try:
            fn(ctx)
            print(f"ok    {fn.__name__}")
        except Failure as e:
            failures.append(fn.__name__)
            print(f"FAIL  {fn.__name__}: {e}")
    planted = list(a.out.rglob("PLANTED"))
    if planted:
        failures.append("planted")
        print(f"FAIL  a name ran as code: {planted[0]} exists")
    print(f"{len(failures)} check(s) failed" if failures else "every writer kept the strangers' text as data")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
