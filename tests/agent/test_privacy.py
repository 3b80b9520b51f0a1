#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What leaves the machine: `assay-cli ask` on the reference sales case against the fake model
servers (which log every request they receive), with the real sandbox.

- Masked columns: no distinct value of customer_id or product appears in any request body,
  whatever route printed it (print(df.head()), value_counts(), to_string(), f-strings, lists,
  a DataFrame result, a traceback), while the analyst's record has the real values; the
  model's placeholders run as the real values; the totals are right (computed here).
- Schema-only mode: no value of the dataset in any request; the model gets statuses, error
  types and DataFrame shapes.
- Cost: OpenAI and Anthropic usage (cached reads, cache writes) priced by the shipped table
  for a server that is not on loopback (this machine's own non-loopback address), a local one
  costing nothing, and a budget that stops the next request.

    test_privacy.py ASSAY_CLI FAKE_SERVER.py MAKE_SALES_CSV.py

Prints TAP."""
import csv
import json
import os
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ask_harness import call, report, run_case, finish, openai_tool_messages, text_of  # noqa: E402
import ask_harness  # noqa: E402

ask_harness.configure(sys.argv[1], sys.argv[2])
CLI = sys.argv[1]
MAKE_SALES = sys.argv[3]
# The shipped prices only: not the overrides of whoever runs the tests.
CONFIG = {"XDG_CONFIG_HOME": tempfile.mkdtemp(prefix="assay-privacy-config-")}

data_dir = tempfile.mkdtemp(prefix="assay-privacy-data-")
sales = os.path.join(data_dir, "sales.csv")
subprocess.run([sys.executable, MAKE_SALES, sales], check=True)

with open(sales, newline="", encoding="utf-8") as f:
    rows = list(csv.DictReader(f))


def distinct(column):
    seen, order = set(), []
    for row in rows:
        value = (row[column] or "").strip()
        if value and value not in seen:
            seen.add(value)
            order.append(value)
    return order


customers = distinct("customer_id")
products = distinct("product")
first_customer = customers[0]


def placeholder(column, value):
    return "⟨%s %d⟩" % (column, distinct(column).index(value) + 1)


def amount(text):
    try:
        return float(text.replace(" ", "").strip())
    except ValueError:
        return None


# The totals per product the cells must print, computed here from the file (duplicates and
# all, as the cell does).
totals = {}
for row in rows:
    value = amount(row["amount"] or "")
    if value is not None and (row["product"] or "").strip():
        totals[row["product"].strip()] = totals.get(row["product"].strip(), 0.0) + value
top3 = sorted(totals.items(), key=lambda item: -item[1])[:3]


def bodies(run):
    return [json.dumps(r["body"], ensure_ascii=False) for r in run.chat_requests()]


def leaked(run, values):
    found = []
    for n, body in enumerate(bodies(run)):
        for value in values:
            if value in body:
                found.append("request %d holds %r" % (n + 1, value))
                break
    return found


def session_json(run):
    path = os.path.join(run.workdir, "session", "session.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def cell_texts(record):
    """Each cell's code and the text of all its outputs, as the analyst's record has them."""
    cells = []
    for cell in record.get("cells", []):
        parts = []
        for output in cell.get("outputs", []):
            for key in ("text", "traceback", "evalue"):
                value = output.get(key)
                parts.append("".join(value) if isinstance(value, list) else (value or ""))
            for value in (output.get("data") or {}).values():
                parts.append("".join(value) if isinstance(value, list) else str(value))
        cells.append((cell.get("code") or "", "\n".join(parts)))
    return cells


def requests_record(run):
    listed = subprocess.run([CLI, "session", "requests", "--json", os.path.join(run.workdir, "session")],
                            capture_output=True, text=True)
    try:
        return json.loads(listed.stdout)
    except ValueError:
        return {"unparsable": listed.stdout + listed.stderr}


def kept_requests(record):
    if isinstance(record, dict):
        return record.get("requests", [])
    return record if isinstance(record, list) else []


ROUTES = """import pandas as pd
df = pd.read_csv('/data/sales.csv')
print(df.head())
vc = df['product'].value_counts()
print(vc.head(5))
print(vc.head(3).to_string())
c = df['customer_id'].dropna().iloc[0]
print(f"first customer: {c}")
print(list(df['customer_id'].dropna().unique()[:5]))
df[['customer_id', 'product']].head(3)
"""
PLACEHOLDER_CODE = ("n = int((df['customer_id'] == %s).sum())\nprint('ROWS', n)\nprint('NAME', %s)\n"
                    % (placeholder("customer_id", first_customer), placeholder("product", products[0])))
FAILING = "raise KeyError(df['customer_id'].dropna().iloc[1])\n"
TOTALS = """amt = pd.to_numeric(df['amount'].astype(str).str.replace(' ', '').str.strip(), errors='coerce')
tot = amt.groupby(df['product'].str.strip()).sum().sort_values(ascending=False)
print(tot.head(3).round(2).to_string())
"""

# 1. Masked columns, every route.
masked = run_case([
    {"flavor": "openai", "turn": {"tool_calls": [call("execute_python", ROUTES, "look")]}},
    {"flavor": "openai", "turn": {"tool_calls": [call("execute_python", PLACEHOLDER_CODE, "one customer"),
                                                  call("execute_python", FAILING, "fail")]}},
    {"flavor": "openai", "turn": {"text": "Now the totals, %s among them." % placeholder("product", products[0]),
                                  "tool_calls": [call("execute_python", TOTALS, "totals")]}},
    {"flavor": "openai", "turn": {"text": "The best seller by revenue is %s." % placeholder("product", top3[0][0])}},
], question="Which product earns most? Also check customer %s." % first_customer,
    extra_args=["--data", sales, "--mask", "sales.csv:customer_id", "--mask", sales + ":product"])

problems = leaked(masked, customers + products)
report(masked.rc == 0 and len(masked.chat_requests()) == 4 and not problems,
       "masked: no customer_id or product value in any of the requests",
       "\n".join(problems[:20]) + "\n" + masked.detail())

tools = [text_of(m.get("content")) for m in openai_tool_messages(masked.chat_requests()[-1])]
system = masked.chat_requests()[0]["body"]["messages"][0]["content"] if masked.chat_requests() else ""
report(len(tools) == 4 and "⟨customer_id " in tools[0] and "⟨product " in tools[0]
       and "⟨product " in text_of(system) and "placeholder" in text_of(system)
       and masked.chat_requests()[0]["body"]["messages"][1]["content"].endswith(
           "check customer %s." % placeholder("customer_id", first_customer)),
       "masked: outputs, the dataset summary and the question reach the model with placeholders",
       "\n---\n".join(tools)[:4000] + "\n" + text_of(system)[:2000])

record = session_json(masked) if masked.rc == 0 else {}
cells = cell_texts(record)
expected_rows = sum(1 for row in rows if (row["customer_id"] or "").strip() == first_customer)
ok = len(cells) == 4
if ok:
    routes_out, placeholder_cell, failing_cell, totals_cell = cells
    ok = (first_customer in routes_out[1] and products[0] in routes_out[1]
          and "first customer: %s" % customers[0] in routes_out[1])
    ok = ok and repr(first_customer) in placeholder_cell[0] and repr(products[0]) in placeholder_cell[0]
    ok = ok and ("ROWS %d" % expected_rows) in placeholder_cell[1] and ("NAME %s" % products[0]) in placeholder_cell[1]
    ok = ok and customers[1] in failing_cell[1]
report(ok, "masked: the analyst's record has the real values; placeholders in code ran as the values "
           "(%d rows of %s)" % (expected_rows, first_customer),
       json.dumps(cells, ensure_ascii=False)[:4000])

ok = len(cells) == 4
detail = cells[3][1] if ok else ""
for name, total in top3:
    line = [l for l in detail.splitlines() if l.startswith(name)]
    ok = ok and len(line) == 1 and abs(float(line[0][len(name):].strip()) - round(total, 2)) < 0.006
report(ok, "masked: the totals per product are right (computed here from the file)",
       detail + "\nexpected %r" % top3)

answer = (masked.json or {}).get("answer") or ""
# The streamed text (placeholders cut across pieces) is shown unmasked too.
report(answer == "The best seller by revenue is %s." % top3[0][0]
       and ("Now the totals, %s among them." % products[0]) in masked.err and "⟨" not in masked.err,
       "masked: the answer's placeholder is the real product for the analyst, streamed too", answer + masked.err[-1500:])

kept = kept_requests(requests_record(masked))
report(len(kept) == 4 and all(k.get("mode") == "masked" for k in kept)
       and (masked.json or {}).get("privacy") == "masked",
       "masked: the request record says which mode was in force", json.dumps(kept)[:2000])

# A session that sent values cannot be made schema-only afterwards.
refused = subprocess.run([CLI, "ask", "--resume", os.path.join(masked.workdir, "session"),
                          "--privacy", "schema", "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1",
                          "again?"], capture_output=True, text=True)
report(refused.returncode == 2 and "schema-only" in refused.stderr,
       "masked: a session that sent values refuses schema-only mode", refused.stderr)

# 2. Schema-only mode: nothing of the data, only statuses, error types and shapes.
SCHEMA_CODE = ("import pandas as pd\ndf = pd.read_csv('/data/sales.csv')\nprint(df.head(20))\n"
               "print(df.describe(include='all'))\nby = df.groupby('product').size().reset_index()\nby\n")
schema = run_case([
    {"flavor": "anthropic", "turn": {"tool_calls": [call("execute_python", SCHEMA_CODE, "look")]}},
    {"flavor": "anthropic", "turn": {"tool_calls": [call("execute_python",
                                                         "raise ValueError(df['product'].iloc[0])", "fail")]}},
    {"flavor": "anthropic", "turn": {"text": "The counts per product are in the cell's output."}},
], provider="anthropic", question="How many events per product?",
    extra_args=["--data", sales, "--privacy", "schema"])

values = set()
for row in rows:
    for column, value in row.items():
        value = (value or "").strip()
        # Short amounts such as "39" could be any number (a time in ms); all the longer
        # values, and every text value, are looked for.
        if len(value) >= 5 or (column != "amount" and value):
            values.add(value)
values.discard("visit")   # the stage names are words the prompt may use
for stage in ("cart", "checkout", "purchase"):
    values.discard(stage)
problems = leaked(schema, sorted(values, key=len, reverse=True))
report(schema.rc == 0 and len(schema.chat_requests()) == 3 and not problems,
       "schema: no value of the dataset in any request", "\n".join(problems[:20]) + "\n" + schema.detail())

results = []
for request in schema.chat_requests():
    for message in request["body"].get("messages", []):
        if isinstance(message.get("content"), list):
            results += [text_of(b.get("content")) for b in message["content"] if b.get("type") == "tool_result"]
system = text_of(schema.chat_requests()[0]["body"].get("system")) if schema.chat_requests() else ""
report(len(results) >= 2 and "DataFrames made: df (%s rows × 5 columns), by (" % format(len(rows), ",") in results[0]
       and "Error type: ValueError" in results[-1] and "customer_id (" in system and "Schema-only mode" in system,
       "schema: the model gets the columns, statuses, error types and DataFrame shapes",
       "\n---\n".join(results)[:3000] + "\n" + system[:2000])
kept = kept_requests(requests_record(schema))
report(len(kept) == 3 and all(k.get("mode") == "schema" for k in kept),
       "schema: the request record says schema", json.dumps(kept)[:1000])


# 3. Cost: the shipped prices for a server that is not on loopback.
def remote_address():
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout.split()
    except OSError:
        out = []
    for address in out:
        if ":" not in address and not address.startswith("127."):
            return address, False
    # No other address: give loopback's interface one (the suite runs as root in CI).
    address = "198.51.100.77"
    subprocess.run(["ip", "addr", "add", address + "/32", "dev", "lo"], capture_output=True)
    return address, True


address, added = remote_address()
try:
    sock = socket.socket()
    sock.bind((address, 0))
    sock.close()
    bindable = True
except OSError:
    bindable = False
report(bindable, "cost: this machine has a non-loopback address to serve from (%s)" % address)

openai_usage = {"input": 120000, "cached": 100000, "output": 2500}
cost_run = run_case([
    {"flavor": "openai", "turn": {"tool_calls": [call("execute_python", "print(6*7)")], "usage": openai_usage}},
    {"flavor": "openai", "turn": {"text": "It is 42.", "usage": openai_usage}},
], bind=address, model="gpt-4.1", env_extra=CONFIG)
kept = kept_requests(requests_record(cost_run))
# gpt-4.1: $2.00 input, $0.50 cached input, $8.00 output per million tokens:
# 20,000 × 2.00 + 100,000 × 0.50 + 2,500 × 8.00 = 110,000 per million = $0.11 a request.
report(cost_run.rc == 0 and len(kept) == 2 and all(abs(k.get("cost_usd", -1) - 0.11) < 1e-9 for k in kept)
       and abs((cost_run.json or {}).get("cost_usd", -1) - 0.22) < 1e-9
       and "Sent to %s" % address in cost_run.err,
       "cost: OpenAI usage with cached tokens costs $0.11 a request ($0.22 the session)",
       json.dumps(kept)[:1000] + cost_run.detail())

anthropic_usage = {"input": 10000, "cached": 40000, "cache_write": 10000, "output": 1500}
anthropic_run = run_case([
    {"flavor": "anthropic", "turn": {"text": "It is 42.", "usage": anthropic_usage}},
], provider="anthropic", bind=address, model="claude-sonnet-4-5", env_extra=CONFIG)
kept = kept_requests(requests_record(anthropic_run))
# claude-sonnet-4-5: $3.00 input, $0.30 cache reads, $3.75 cache writes, $15.00 output:
# 10,000 × 3 + 40,000 × 0.30 + 10,000 × 3.75 + 1,500 × 15 = 102,000 per million = $0.102.
report(anthropic_run.rc == 0 and len(kept) == 1 and abs(kept[0].get("cost_usd", -1) - 0.102) < 1e-9
       and kept[0].get("input_tokens") == 60000 and kept[0].get("cache_write_tokens") == 10000,
       "cost: Anthropic usage with cache reads and writes costs $0.102", json.dumps(kept)[:1000]
       + anthropic_run.detail())

local_run = run_case([{"flavor": "openai", "turn": {"text": "It is 42.", "usage": openai_usage}}], model="gpt-4.1",
                     env_extra=CONFIG)
kept = kept_requests(requests_record(local_run))
report(local_run.rc == 0 and len(kept) == 1 and kept[0].get("cost_usd") == 0 and kept[0].get("input_tokens") == 120000,
       "cost: a server on this computer costs nothing, its tokens still counted", json.dumps(kept)[:1000])

budget_run = run_case([
    {"flavor": "openai", "turn": {"tool_calls": [call("execute_python", "print(6*7)")], "usage": openai_usage}},
    {"flavor": "openai", "turn": {"tool_calls": [call("execute_python", "print(7*8)")], "usage": openai_usage}},
    {"flavor": "openai", "turn": {"text": "Done.", "usage": openai_usage}},
], bind=address, model="gpt-4.1", extra_args=["--budget", "0.10"], env_extra=CONFIG)
record = session_json(budget_run) if os.path.exists(os.path.join(budget_run.workdir, "session", "session.json")) else {}
report(budget_run.rc == 9 and len(budget_run.chat_requests()) == 1 and record.get("status") == "budget"
       and "budget" in budget_run.err and len(record.get("cells", [])) == 1,
       "cost: a budget of $0.10 stops before the second request; the session is saved",
       budget_run.detail())

unpriced_run = run_case([{"flavor": "openai", "turn": {"text": "It is 42."}}], bind=address, model="no-such-model",
                        extra_args=["--budget", "1"], env_extra=CONFIG)
report(unpriced_run.rc == 9 and len(unpriced_run.chat_requests()) == 0 and "no price" in unpriced_run.err,
       "cost: with a budget, a model of unknown price is not asked", unpriced_run.detail())

if added:
    subprocess.run(["ip", "addr", "del", address + "/32", "dev", "lo"], capture_output=True)
finish()
