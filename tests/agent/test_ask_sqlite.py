#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""An SQLite file as a dataset, end to end: `assay-cli inspect` shows its schema, `assay-cli
ask --data shop.db` against the fake model server (which logs every request) with the real
sandbox: the model is told the schema and how to open the file read-only, its cell runs
pd.read_sql on it and prints the right totals (computed here), the session keeps a hashed copy;
`assay-cli rerun` runs the cell on a new file with the same tables and refuses one whose columns
changed; a WAL database held open by a writer arrives with every committed row; a masked
column's values never reach the model; schema-only mode sends no value.

    test_ask_sqlite.py ASSAY_CLI FAKE_SERVER.py

Prints TAP."""
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ask_harness import call, report, run_case, finish, openai_tool_messages, text_of  # noqa: E402
import ask_harness  # noqa: E402

ask_harness.configure(sys.argv[1], sys.argv[2])
CLI = sys.argv[1]
CONFIG = {"XDG_CONFIG_HOME": tempfile.mkdtemp(prefix="assay-sqlite-config-")}

data_dir = tempfile.mkdtemp(prefix="assay-sqlite-data-")
shop = os.path.join(data_dir, "shop.db")
con = sqlite3.connect(shop)
con.executescript("""
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL, city TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), amount REAL);
""")
emails = ["customer%02d@shop.example" % i for i in range(1, 21)]
con.executemany("INSERT INTO customers VALUES (?, ?, ?)",
                [(i + 1, e, ["Oslo", "Riga", "Tartu"][i % 3]) for i, e in enumerate(emails)])
con.executemany("INSERT INTO orders VALUES (?, ?, ?)",
                [(i, 1 + i % 20, round(10 + (i * 37) % 500 / 4, 2)) for i in range(1, 2001)])
con.commit()
totals = dict(con.execute("SELECT c.city, round(sum(o.amount), 2) FROM orders o JOIN customers c "
                          "ON c.id = o.customer_id GROUP BY c.city").fetchall())
con.close()

# inspect
inspect = subprocess.run([CLI, "inspect", "--json", shop], capture_output=True, text=True)
try:
    described = json.loads(inspect.stdout)
    described = described[0] if isinstance(described, list) else described
    described = described.get("files", [described])[0] if "files" in described else described
except ValueError:
    described = {}
names = sorted(t.get("name") for t in described.get("tables", []))
report(inspect.returncode == 0 and described.get("format") == "sqlite" and names == ["customers", "orders"]
       and "immutable=1" in described.get("connect", ""),
       "inspect: an SQLite file's tables, columns and how to open it", inspect.stdout[:2000] + inspect.stderr)

CODE = """import sqlite3
import pandas as pd
con = sqlite3.connect("file:/data/shop.db?mode=ro&immutable=1", uri=True)
df = pd.read_sql("SELECT c.city, round(sum(o.amount), 2) AS total FROM orders o "
                 "JOIN customers c ON c.id = o.customer_id GROUP BY c.city ORDER BY c.city", con)
print(df.to_csv(index=False), end='')
print(pd.read_sql("SELECT email FROM customers ORDER BY id LIMIT 3", con).to_string())
"""

run = run_case([
    {"flavor": "openai", "turn": {"tool_calls": [call("execute_python", CODE, "totals per city")]}},
    {"flavor": "openai", "turn": {"text": "Oslo has the largest total."}},
], question="Which city orders most?", extra_args=["--data", shop], env_extra=CONFIG)

system = text_of(run.chat_requests()[0]["body"]["messages"][0]["content"]) if run.chat_requests() else ""
report(run.rc == 0 and "an SQLite database, at /data/shop.db" in system
       and "sqlite3.connect('file:/data/shop.db?mode=ro&immutable=1', uri=True)" in system
       and "orders (table, 2,000 rows)" in system and "customer_id INTEGER → customers(id)" in system,
       "ask: the model is told the schema and how to open the file read-only", system[:3000] + run.detail())

tools = [text_of(m.get("content")) for m in openai_tool_messages(run.chat_requests()[-1])] if run.chat_requests() else []
expected = "".join("%s,%s\n" % (city, totals[city]) for city in sorted(totals))
report(len(tools) == 1 and ("city,total\n" + expected) in tools[0],
       "ask: the cell's pd.read_sql on the file gives the totals computed here", "\n".join(tools)[:3000] + "\n" + expected)

record = {}
try:
    with open(os.path.join(run.workdir, "session", "session.json")) as f:
        record = json.load(f)
except (OSError, ValueError):
    pass
datasets = record.get("datasets", [])
copy = os.path.join(run.workdir, "session", "data", "shop.db")
ok = len(datasets) == 1 and os.path.exists(copy)
if ok:
    with open(copy, "rb") as f:
        ok = datasets[0].get("sha256") == hashlib.sha256(f.read()).hexdigest()
report(ok, "ask: the session keeps a copy of the database, hashed", json.dumps(datasets)[:1000])

# Run again on a new file: the tables and columns compared by name and type, the cell run on it.
new_shop = os.path.join(data_dir, "shop-new.db")
con = sqlite3.connect(new_shop)
con.executescript("""
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL, city TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), amount REAL);
INSERT INTO customers VALUES (1, 'x@shop.example', 'Oslo'), (2, 'y@shop.example', 'Riga');
INSERT INTO orders VALUES (1, 1, 10.0), (2, 2, 20.0), (3, 2, 5.5);
""")
con.commit()
con.close()
rerun_out = os.path.join(run.workdir, "rerun")
rerun = subprocess.run([CLI, "rerun", os.path.join(run.workdir, "session"), "--data", "shop.db=" + new_shop,
                        "--out", rerun_out, "--json"], capture_output=True, text=True, env=dict(os.environ, **CONFIG))
rerun_record = {}
try:
    with open(os.path.join(rerun_out, "session.json")) as f:
        rerun_record = json.load(f)
except (OSError, ValueError):
    pass
outputs = json.dumps(rerun_record.get("cells", []), ensure_ascii=False)
report(rerun.returncode == 0 and "Oslo,10.0" in outputs and "Riga,25.5" in outputs,
       "rerun: the cell runs again on a new SQLite file with the same tables", rerun.stdout[-2000:] + rerun.stderr)

changed_shop = os.path.join(data_dir, "shop-changed.db")
con = sqlite3.connect(changed_shop)
con.executescript("""
CREATE TABLE customers (id INTEGER PRIMARY KEY, mail TEXT, city TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount TEXT);
""")
con.commit()
con.close()
refused = subprocess.run([CLI, "rerun", os.path.join(run.workdir, "session"), "--data", "shop.db=" + changed_shop,
                          "--out", os.path.join(run.workdir, "rerun-refused"), "--json"],
                         capture_output=True, text=True, env=dict(os.environ, **CONFIG))
said = refused.stdout + refused.stderr
report(refused.returncode != 0 and "customers.email" in said and "orders.amount" in said,
       "rerun: a new file without a table's column, or with a column of another type, is refused and named",
       said[-2000:])

# A WAL database another program holds open, committed rows still in its WAL and a transaction
# of its own open: the cell reads every committed row, none of the open transaction's.
live = os.path.join(data_dir, "live.db")
writer = sqlite3.connect(live, isolation_level=None)
writer.execute("PRAGMA journal_mode = WAL")
writer.execute("PRAGMA wal_autocheckpoint = 0")
writer.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT)")
writer.executemany("INSERT INTO events VALUES (?, ?)", [(i, "e%d" % i) for i in range(1, 301)])
writer.execute("BEGIN")
writer.execute("INSERT INTO events VALUES (1000, 'uncommitted')")
LIVE_CODE = """import sqlite3
import pandas as pd
con = sqlite3.connect("file:/data/live.db?mode=ro&immutable=1", uri=True)
print('EVENTS', pd.read_sql("SELECT count(*) AS n, max(id) AS top FROM events", con).to_dict('records'))
"""
wal = run_case([
    {"flavor": "openai", "turn": {"tool_calls": [call("execute_python", LIVE_CODE, "count")]}},
    {"flavor": "openai", "turn": {"text": "300 events."}},
], question="How many events?", extra_args=["--data", live], env_extra=CONFIG)
writer.execute("ROLLBACK")
writer.close()
tools = [text_of(m.get("content")) for m in openai_tool_messages(wal.chat_requests()[-1])] if wal.chat_requests() else []
report(wal.rc == 0 and len(tools) == 1 and "EVENTS [{'n': 300, 'top': 300}]" in tools[0],
       "ask: a WAL database held open by a writer arrives with every committed row",
       "\n".join(tools)[:2000] + wal.detail())

# Masked: the emails never leave the machine, whatever printed them.
masked = run_case([
    {"flavor": "openai", "turn": {"tool_calls": [call("execute_python", CODE, "totals per city")]}},
    {"flavor": "openai", "turn": {"text": "Done."}},
], question="Which city orders most?", extra_args=["--data", shop, "--mask", "shop.db.customers:email"],
    env_extra=CONFIG)
bodies = [json.dumps(r["body"], ensure_ascii=False) for r in masked.chat_requests()]
leaks = [e for e in emails if any(e in b for b in bodies)]
tools = [text_of(m.get("content")) for m in openai_tool_messages(masked.chat_requests()[-1])] if masked.chat_requests() else []
report(masked.rc == 0 and len(bodies) == 2 and not leaks and any("⟨email" in t for t in tools)
       and "⟨email" in bodies[0],
       "masked: no email of customers reaches the model; placeholders in the summary and the output",
       "%r\n%s" % (leaks, masked.detail()))

# Schema only: no value at all.
schema = run_case([
    {"flavor": "openai", "turn": {"text": "Look at orders."}},
], question="What is in it?", extra_args=["--data", shop, "--privacy", "schema"], env_extra=CONFIG)
bodies = [json.dumps(r["body"], ensure_ascii=False) for r in schema.chat_requests()]
report(schema.rc == 0 and len(bodies) == 1 and "email TEXT" in bodies[0]
       and not any(v in bodies[0] for v in emails + ["Oslo", "Riga", "Tartu"]),
       "schema: the tables and columns, no value", (bodies[0][:3000] if bodies else "") + schema.detail())

# A file that is no database but is named like one is refused in words.
bad = os.path.join(data_dir, "broken.db")
with open(bad, "wb") as f:
    f.write(os.urandom(8192))
inspect = subprocess.run([CLI, "inspect", bad], capture_output=True, text=True)
report(inspect.returncode != 0 and "encrypted" in (inspect.stdout + inspect.stderr),
       "inspect: a file named like a database that is none is refused in words", inspect.stdout + inspect.stderr)

finish()
