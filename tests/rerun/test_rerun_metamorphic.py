#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`assay-cli rerun`, metamorphic: a number of the answer follows its label, or goes stale.

Usage: test_rerun_metamorphic.py ASSAY_CLI        (run it with /usr/bin/python3: it needs pandas)

For each shape a first and a second CSV are written by hand (plain csv module, explicit rows), a
recorded transcript answers a question about the first one (`ask --provider recorded`, the cell
running for real in bubblewrap), and the session is run again on the second one (`rerun`). The
answer was written from a template whose slots we know the label of ("West's revenue"), so every
number the new answer holds at the place of a traced number is checked against what pandas computes
on the SECOND file for that label. A number must be either

  right: equal to pandas' truth at the precision it is written, or
  stale: its `changes[]` entry says `"stale": true`, the new answer keeps the old text, and the
         new session's provenance does not mark it `found: true`.

Anything else (typically another row's value, marked as traced) is the failure. The shapes:
  1 lines sorted by value, another ranking;  2 a DataFrame sorted by value, two columns;
  3 a category that disappears;  4 a new category on top;  5 a label that is itself a value
  ("Top customer: NAME with AMOUNT");  6 the control: same order, only values change.
Each `changes[]` entry must also name its anchor in a non-empty `label`.

Prints TAP; exits non-zero on any failure. KEEP=1 keeps the temporary folder.
"""

import csv
import json
import math
import os
import re
import shutil
import string
import subprocess
import sys
import tempfile

import pandas as pd

# ---- the data, written by hand ------------------------------------------------------------


def split_cents(total_cents, n):
    """n positive amounts in cents that add up to total_cents, not all equal."""
    base = total_cents // n
    amounts = [base] * n
    amounts[0] += total_cents - base * n
    # Make the rows differ (and stay positive), keeping the sum.
    for i in range(0, n - 1, 2):
        shift = min(1700 + 37 * i, amounts[i + 1] // 3)
        amounts[i] += shift
        amounts[i + 1] -= shift
    assert sum(amounts) == total_cents and all(a > 0 for a in amounts), amounts
    return amounts


def write_orders_csv(path, groups, key="region"):
    """groups: [(label, total as a string with 2 decimals, number of orders)]; rows interleaved."""
    per_group = []
    for label, total, n in groups:
        cents = int(round(float(total) * 100))
        per_group.append([(label, c) for c in split_cents(cents, n)])
    rows, order_id = [], 1000
    while any(per_group):
        for queue in per_group:
            if queue:
                label, cents = queue.pop(0)
                order_id += 1
                rows.append([f"o{order_id}", label, f"{cents // 100}.{cents % 100:02d}"])
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["order_id", key, "amount"])
        writer.writerows(rows)


# ---- what pandas says on a file -----------------------------------------------------------


def revenue(df):
    return df.groupby("region")["amount"].sum()


def orders(df):
    return df.groupby("region")["order_id"].count().astype(float)


def customer_total(df):
    return df.groupby("customer")["amount"].sum()


MEASURES = {"revenue": revenue, "orders": orders, "customer_total": customer_total}

# ---- the cells ----------------------------------------------------------------------------

CELL_SORTED_LINES = """import pandas as pd
df = pd.read_csv('/data/sales.csv')
rev = df.groupby('region')['amount'].sum().sort_values(ascending=False)
for region, r in rev.items():
    print(f"{region}: {r:.2f}")
"""

CELL_DATAFRAME = """import pandas as pd
df = pd.read_csv('/data/sales.csv')
summary = (df.groupby('region')
             .agg(revenue=('amount', 'sum'), orders=('order_id', 'count'))
             .sort_values('revenue', ascending=False))
print(summary.round(2).to_string())
"""

CELL_TOP_CUSTOMER = """import pandas as pd
df = pd.read_csv('/data/customers.csv')
totals = df.groupby('customer')['amount'].sum().sort_values(ascending=False)
name, amount = totals.index[0], totals.iloc[0]
print(f"Top customer: {name} with {amount:.2f}")
"""

# ---- the shapes ---------------------------------------------------------------------------
# first/second: [(label, total, orders)]. slots: template key -> (label, measure, anchors), the
# anchors being the words one of which a change's `label` must contain. Values of the first and
# the second file never coincide, so a stale (old) text cannot be found again by chance.

SHAPES = [
    {
        "id": 1,
        "name": "lines sorted by value, another ranking",
        "dataset": "sales.csv",
        "key": "region",
        "cell": CELL_SORTED_LINES,
        "question": "Which region sells most?",
        "first": [("North", "10488.25", 12), ("West", "8629.75", 10), ("South", "7311.45", 9), ("East", "5120.65", 7)],
        "second": [("North", "8012.45", 11), ("West", "11204.35", 13), ("South", "6650.95", 8), ("East", "9876.15", 10)],
        "answer": "North sells most with {North} \u2014 then West with {West}, South with {South} and East with {East}.",
        "slots": {r: (r, "revenue", [r]) for r in ("North", "West", "South", "East")},
    },
    {
        "id": 2,
        "name": "a DataFrame sorted by value (to_string), two columns",
        "dataset": "sales.csv",
        "key": "region",
        "cell": CELL_DATAFRAME,
        "question": "Revenue and orders per region?",
        "first": [("North", "10488.25", 14), ("West", "8629.75", 11), ("South", "7311.45", 9), ("East", "5120.65", 7)],
        "second": [("East", "12345.65", 13), ("South", "9988.35", 10), ("North", "6543.21", 8), ("West", "4321.09", 6)],
        "answer": ("North leads with revenue {North_revenue} from {North_orders} orders; West follows with "
                   "{West_revenue} from {West_orders} orders, and East has {East_revenue} over {East_orders} orders."),
        "slots": {f"{r}_{m}": (r, m, [r]) for r in ("North", "West", "East") for m in ("revenue", "orders")},
    },
    {
        "id": 3,
        "name": "a category that disappears",
        "dataset": "sales.csv",
        "key": "region",
        "cell": CELL_SORTED_LINES,
        "question": "Which region sells most?",
        "first": [("North", "9100.35", 8), ("South", "7200.55", 7), ("West", "5300.15", 6), ("East", "3400.85", 5)],
        "second": [("North", "9650.45", 8), ("West", "5875.25", 6), ("East", "3980.65", 5)],
        "answer": "North leads with {North}, South follows with {South}, then West with {West} and East with {East}.",
        "slots": {r: (r, "revenue", [r]) for r in ("North", "South", "West", "East")},
    },
    {
        "id": 4,
        "name": "a new category on top",
        "dataset": "sales.csv",
        "key": "region",
        "cell": CELL_SORTED_LINES,
        "question": "Which region sells most?",
        "first": [("North", "8800.15", 8), ("West", "6600.35", 7), ("East", "4400.55", 6)],
        "second": [("Central", "12500.75", 9), ("North", "8900.25", 8), ("West", "6700.45", 7), ("East", "4500.65", 6)],
        "answer": "North leads with {North}, West has {West} and East has {East}.",
        "slots": {r: (r, "revenue", [r]) for r in ("North", "West", "East")},
    },
    {
        "id": 5,
        "name": "a label that is itself a value (the top customer changes)",
        "dataset": "customers.csv",
        "key": "customer",
        "cell": CELL_TOP_CUSTOMER,
        "question": "Who is the top customer?",
        "first": [("Alice", "5230.45", 6), ("Bob", "4100.15", 5), ("Carol", "2950.35", 4)],
        "second": [("Bob", "6120.55", 6), ("Alice", "4870.25", 5), ("Carol", "3010.65", 4)],
        "answer": "The top customer is Alice, with {Alice} spent.",
        # The answer's number stands next to "Alice": Alice's total, whoever is on top now.
        "slots": {"Alice": ("Alice", "customer_total", ["Alice", "Top customer"])},
        "stale_expected": True,  # the line now names Bob: Alice's number can only go stale
    },
    {
        "id": 6,
        "name": "control: same order, only values change",
        "dataset": "sales.csv",
        "key": "region",
        "cell": CELL_SORTED_LINES,
        "question": "Which region sells most?",
        "first": [("North", "7400.35", 8), ("West", "6300.45", 7), ("South", "5200.55", 6), ("East", "4100.65", 5)],
        "second": [("North", "7900.15", 8), ("West", "6800.25", 7), ("South", "5700.35", 6), ("East", "4600.45", 5)],
        "answer": "North leads with {North}, then West with {West}, South with {South} and East with {East}.",
        "slots": {r: (r, "revenue", [r]) for r in ("North", "West", "South", "East")},
        "control": True,
    },
    {
        "id": 7,
        "name": "a category that disappears while its old value is printed under another label",
        "dataset": "sales.csv",
        "key": "region",
        "cell": CELL_SORTED_LINES,
        "question": "Which region sells most?",
        # South goes; West now sells exactly what South sold: South's old text is printed again,
        # on West's line, and must not be vouched for as South's.
        "first": [("North", "9100.35", 8), ("South", "7200.55", 7), ("West", "5300.15", 6)],
        "second": [("North", "9650.45", 8), ("West", "7200.55", 7)],
        "answer": "North leads with {North}, South follows with {South}, then West with {West}.",
        "slots": {r: (r, "revenue", [r]) for r in ("North", "South", "West")},
    },
]

# Whether the rows the answer relied on changed order, came or went: the new session then
# says so in its notes (words such as "most" or "top" may no longer hold).
REORDERED = {1: True, 2: True, 3: True, 4: True, 5: True, 6: False, 7: True}

# ---- helpers ------------------------------------------------------------------------------


def template_parts(template):
    """[(literal, key or None)] of a str.format template."""
    return [(lit, key) for lit, key, _, _ in string.Formatter().parse(template)]


def fill(template, values):
    return template.format(**values)


def slot_spans(template, answer):
    """{key: (start, end, text)} in characters: where the answer holds each slot of the template,
    its literal text unchanged; None when the answer does not follow the template."""
    parts = template_parts(template)
    pattern, keys = "", []
    for lit, key in parts:
        pattern += re.escape(lit)
        if key is not None:
            pattern += r"(.+?)"
            keys.append(key)
    m = re.fullmatch(pattern, answer, re.DOTALL)
    if m is None:
        return None
    return {key: (m.start(i + 1), m.end(i + 1), m.group(i + 1)) for i, key in enumerate(keys)}


def parse_number(text):
    """(value, decimals) of a number as the answer writes it, or None."""
    t = text.strip().replace("\u2212", "-").replace(",", "").replace("\u202f", "").replace("\u00a0", "")
    m = re.fullmatch(r"[-+]?\d+(?:\.(\d+))?", t)
    if m is None:
        return None
    return float(t), len(m.group(1) or "")


def equal_at_precision(text, truth):
    parsed = parse_number(text)
    if parsed is None or truth is None or (isinstance(truth, float) and math.isnan(truth)):
        return False
    value, decimals = parsed
    return abs(value - truth) <= 0.5 * 10 ** -decimals + 1e-9


def char_span(answer, number):
    """The provenance number's span in characters (the record may count bytes or characters)."""
    start, end, text = number.get("start"), number.get("end"), number.get("text")
    if not isinstance(start, int) or not isinstance(end, int):
        return None
    raw = answer.encode("utf-8")
    try:
        if raw[start:end].decode("utf-8") == text:
            return len(raw[:start].decode("utf-8")), len(raw[:end].decode("utf-8"))
    except UnicodeDecodeError:
        pass
    if answer[start:end] == text:
        return start, end
    return None


def answer_numbers(session):
    """The provenance numbers of the session's final answer, with their spans in characters."""
    messages = session.get("messages") or []
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=None)
    entries = session.get("provenance") or []
    mine = [e for e in entries if e.get("message") == last] or entries
    out = []
    for entry in mine:
        for number in entry.get("numbers") or []:
            out.append((char_span(session.get("answer") or "", number), number))
    return out


def provenance_at(numbers, span):
    """The provenance numbers overlapping a slot's character span."""
    s, e = span
    return [n for sp, n in numbers if sp is not None and sp[0] < e and s < sp[1]]


def run(args, timeout=120):
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return -1, e.stdout or "", f"timed out after {timeout} s"


# ---- TAP ----------------------------------------------------------------------------------


class Tap:
    def __init__(self, planned):
        self.n = 0
        self.failed = 0
        print(f"1..{planned}", flush=True)

    def report(self, name, ok, diagnostics=(), skip=None):
        self.n += 1
        if skip is not None:
            print(f"ok {self.n} - {name} # SKIP {skip}", flush=True)
            return
        print(f"{'ok' if ok else 'not ok'} {self.n} - {name}", flush=True)
        if not ok:
            self.failed += 1
        for line in diagnostics:
            for sub in str(line).splitlines() or [""]:
                print(f"# {sub}", flush=True)


def tests_of(shape):
    names = ["setup: ask on the first file traces every number of the answer",
             "rerun on the second file succeeds",
             "every number is right (pandas on the second file, for its label) or stale",
             "no number carries another label's value"]
    if shape.get("control"):
        names.append("control: nothing stale, every number updated to the new value")
    names.append("every changes[] entry names its anchor in a non-empty `label`")
    names.append("the new session says the ranking may have changed exactly when its rows moved, came or went")
    return [f"shape {shape['id']} ({shape['name']}): {n}" for n in names]


# ---- one shape ----------------------------------------------------------------------------


def fmt(x):
    return "None (label absent)" if x is None else repr(round(float(x), 6))


def run_shape(cli, work, shape, tap):
    names = iter(tests_of(shape))
    sid = shape["id"]
    base = os.path.join(work, f"shape{sid}")
    os.makedirs(os.path.join(base, "first"))
    os.makedirs(os.path.join(base, "second"))
    first = os.path.join(base, "first", shape["dataset"])
    second = os.path.join(base, "second", shape["dataset"])
    write_orders_csv(first, shape["first"], shape["key"])
    write_orders_csv(second, shape["second"], shape["key"])
    df1 = pd.read_csv(first)
    df2 = pd.read_csv(second)

    # The truth on the first file writes the original answer (and checks the rows written).
    def truth(df, key):
        label, measure, _ = shape["slots"][key]
        series = MEASURES[measure](df)
        return float(series[label]) if label in series.index else None

    # The original answer quotes the first file's numbers as written in the shape; pandas on the
    # rows written must agree with them.
    spec = {label: (total, str(n)) for label, total, n in shape["first"]}
    old_texts, data_diag = {}, []
    for key, (label, measure, _) in shape["slots"].items():
        old_texts[key] = spec[label][1] if measure == "orders" else spec[label][0]
        if not equal_at_precision(old_texts[key], truth(df1, key)):
            data_diag.append(f"first file: {label} {measure} is {fmt(truth(df1, key))}, not {old_texts[key]}")
    for label, total, n in shape["second"]:
        got = float(MEASURES["customer_total" if shape["key"] == "customer" else "revenue"](df2)[label])
        if not equal_at_precision(total, got):
            data_diag.append(f"second file: {label} totals {fmt(got)}, not {total}")
    old_answer = fill(shape["answer"], old_texts)

    transcript = {
        "format": "assay-transcript",
        "model": "recorded-rerun-metamorphic",
        "turns": [
            {"text": "Computing it from the file.",
             "tool_calls": [{"id": "call_1", "name": "execute_python",
                             "arguments": {"code": shape["cell"], "description": shape["name"]}}]},
            {"text": old_answer},
        ],
    }
    tpath = os.path.join(base, "transcript.json")
    with open(tpath, "w") as f:
        json.dump(transcript, f, ensure_ascii=False, indent=1)
    s1, s2 = os.path.join(base, "s1"), os.path.join(base, "s2")

    # 1: setup.
    diag = list(data_diag)
    code, out, err = run([cli, "ask", "--backend", "bwrap", "--provider", "recorded", "--transcript", tpath,
                          "--data", first, "--yes", "--out", s1, shape["question"]])
    setup_ok = not data_diag and code == 0 and os.path.exists(os.path.join(s1, "session.json"))
    if not setup_ok:
        diag += [f"ask exited {code}", "stderr:", err[-3000:]]
    else:
        sess1 = json.load(open(os.path.join(s1, "session.json")))
        if sess1.get("answer") != old_answer:
            setup_ok = False
            diag.append(f"S1 answer {sess1.get('answer')!r} is not the transcript's {old_answer!r}")
        else:
            spans1 = slot_spans(shape["answer"], old_answer)
            nums1 = answer_numbers(sess1)
            for key, (s, e, text) in spans1.items():
                found = [n for n in provenance_at(nums1, (s, e)) if n.get("found") is True]
                if not found:
                    setup_ok = False
                    diag.append(f"S1: {key} = {text} is not traced (found: true) in S1's provenance")
    tap.report(next(names), setup_ok, diag)
    if not setup_ok:
        for name in names:
            tap.report(name, True, skip="setup failed")
        return

    # 2: the rerun.
    code, out, err = run([cli, "rerun", s1, "--backend", "bwrap", "--data", f"{shape['dataset']}={second}",
                          "--out", s2, "--json"])
    rerun_ok = code == 0 and os.path.exists(os.path.join(s2, "session.json"))
    diag = [] if rerun_ok else [f"rerun exited {code}", "stderr:", err[-3000:]]
    sess2 = json.load(open(os.path.join(s2, "session.json"))) if os.path.exists(os.path.join(s2, "session.json")) else None
    spans2 = slot_spans(shape["answer"], sess2.get("answer") or "") if sess2 else None
    if rerun_ok and spans2 is None:
        rerun_ok = False
        diag.append(f"S2's answer does not keep the original wording around its numbers: {sess2.get('answer')!r}")
    tap.report(next(names), rerun_ok, diag)
    if not rerun_ok:
        for name in names:
            tap.report(name, True, skip="rerun failed")
        return

    changes = sess2.get("changes") or []
    nums2 = answer_numbers(sess2)
    # Each slot's changes[] entry: the next one (in order) whose before_text is the slot's old text.
    entry_of, used, cursor = {}, set(), 0
    for key in spans1:
        for j in range(cursor, len(changes)):
            if j not in used and changes[j].get("before_text") == old_texts[key]:
                entry_of[key] = j
                used.add(j)
                cursor = j + 1
                break

    verdicts = {}  # key -> (verdict, lines)
    for key, (s, e, text) in spans2.items():
        label, measure, _ = shape["slots"][key]
        t = truth(df2, key)
        prov = provenance_at(nums2, (s, e))
        traced = [n for n in prov if n.get("found") is True]
        entry = changes[entry_of[key]] if key in entry_of else None
        right = equal_at_precision(text, t)
        stale_reasons = []
        if entry is None:
            stale_reasons.append("no changes[] entry for it")
        elif entry.get("stale") is not True:
            stale_reasons.append(f"changes[{entry_of[key]}].stale is {entry.get('stale')!r}")
        if text != old_texts[key]:
            stale_reasons.append(f"the text changed from {old_texts[key]!r}")
        if traced:
            stale_reasons.append("S2's provenance has it found: true at " + "; ".join(
                f"cell {n.get('cell')} line {n.get('line')} {n.get('line_text')!r}" for n in traced))
        stale = not stale_reasons
        series = MEASURES[measure](df2)
        others = [str(o) for o, v in series.items() if o != label and equal_at_precision(text, float(v))]
        where = ("traced to " + "; ".join(f"{n.get('line_text')!r}" for n in traced)) if traced else "not traced"
        info = (f"label {label!r} ({measure}): written {text}, pandas on the second file: {fmt(t)}; "
                f"was {old_texts[key]}; changes[]: "
                + (json.dumps(entry, ensure_ascii=False) if entry else "none") + f"; S2 provenance: {where}")
        verdicts[key] = {"right": right, "stale": stale, "info": info, "others": others,
                         "why_not_stale": stale_reasons, "label": label}

    # 3: right or stale.
    bad = [v for v in verdicts.values() if not v["right"] and not v["stale"]]
    diag = []
    for v in bad:
        diag.append("neither right nor stale: " + v["info"])
        diag.append("  not stale because: " + "; ".join(v["why_not_stale"]))
        if v["others"]:
            diag.append(f"  that is the value of {', '.join(v['others'])}, not of {v['label']}")
    tap.report(next(names), not bad, diag)
    # Allowed, but worth seeing: a number gone stale though its label is still in the new file.
    for v in verdicts.values():
        if v["stale"] and not v["right"] and "None (label absent)" not in v["info"] and not shape.get("stale_expected"):
            print("# note: stale although its label is still there: " + v["info"], flush=True)

    # 4: never another label's value (marked stale or not: a stale number keeps its old text).
    wrong = [v for v in verdicts.values() if not v["right"] and not v["stale"] and v["others"]]
    tap.report(next(names), not wrong,
               [f"{v['label']}'s number holds the value of {', '.join(v['others'])}: {v['info']}" for v in wrong])

    # 5 (control): nothing stale, all right, each entry not stale.
    if shape.get("control"):
        diag = []
        for key, v in verdicts.items():
            if not v["right"]:
                diag.append("not updated to the new value: " + v["info"])
        stale_entries = [c for c in changes if c.get("stale") is not False]
        if stale_entries:
            diag.append("changes[] entries not stale: false: " + json.dumps(stale_entries, ensure_ascii=False))
        if len(changes) != len(spans1):
            diag.append(f"{len(changes)} changes[] entries for {len(spans1)} numbers")
        tap.report(next(names), not diag, diag)

    # 6: labels.
    diag = []
    slot_of_entry = {j: key for key, j in entry_of.items()}
    for j, c in enumerate(changes):
        label = c.get("label")
        key = slot_of_entry.get(j)
        anchors = shape["slots"][key][2] if key else []
        if not isinstance(label, str) or not label.strip():
            diag.append(f"changes[{j}] ({c.get('before_text')} -> {c.get('after_text')}"
                        + (f", the number of {anchors[0]}" if anchors else "") + f"): no non-empty label, has {label!r}")
        elif anchors and not any(a.lower() in label.lower() for a in anchors):
            diag.append(f"changes[{j}] ({c.get('before_text')} -> {c.get('after_text')}): label {label!r} "
                        f"names none of {anchors}")
    missing = [k for k in spans1 if k not in entry_of]
    if missing:
        diag.append("no changes[] entry for the numbers of: " + ", ".join(missing))
    tap.report(next(names), not diag, diag)

    # 7: the order note.
    notes = (sess2 or {}).get("rerun_notes") or []
    said = any("another order" in n for n in notes)
    tap.report(next(names), said == REORDERED[shape["id"]],
               [] if said == REORDERED[shape["id"]] else [f"expected the note: {REORDERED[shape['id']]}, notes: {notes!r}"])


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    cli = os.path.abspath(sys.argv[1])
    tap = Tap(sum(len(tests_of(s)) for s in SHAPES))
    work = tempfile.mkdtemp(prefix="assay-rerun-metamorphic-")
    try:
        for shape in SHAPES:
            try:
                run_shape(cli, work, shape, tap)
            except Exception:  # a crash in the harness fails what is left of the shape
                import traceback
                left = len(tests_of(shape)) - (tap.n - sum(len(tests_of(s)) for s in SHAPES if s["id"] < shape["id"]))
                for i in range(left):
                    tap.report(f"shape {shape['id']}: harness error", False,
                               traceback.format_exc().splitlines() if i == 0 else [])
    finally:
        if os.environ.get("KEEP"):
            print(f"# kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
