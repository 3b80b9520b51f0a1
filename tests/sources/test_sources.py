#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Databases end to end, against a real server this test starts itself (PostgreSQL 15 or
MariaDB in a temporary folder, or an SQLite file), with the real sandbox and the fake model
server (tests/llm/fake_llm_server.py, which logs every request):

- `inspect --db`: tables, views, columns, keys, foreign keys, row estimates, comments, sample
  values; --db-tables; schema-only; a table that is not there.
- A question that needs a join, answered through run_sql; the result in the kernel, the query
  in the record; the session resumed without the database, its DataFrame from the cache.
- Writes refused, logged in as a role that could write: INSERT, DROP, SET TRANSACTION READ
  WRITE, COMMIT; DELETE, COPY … TO PROGRAM (SELECT … INTO OUTFILE, ATTACH), two statements,
  a data-modifying WITH, and a function that writes (refused by the read-only transaction);
  the database checked unchanged.
- The statement timeout; the row cap; Stop (SIGINT) during a long query, the query then gone
  from the server (pg_stat_activity, the process list).
- A refused connection and a wrong password: plain messages, exit 7; no password anywhere in
  the output, the session folder or what the model was sent, also when the URL holds one.
- Types checked from inside the kernel: NULLs in integer columns (Int64 with <NA>),
  numeric(20,4) as exact Decimals, timestamptz, date, bool, text with newlines and Cyrillic.
- The reproducible bundle: the kept result, or analysis.py --requery / --db asking again; an
  edited SQL cell refused by the bundle's statement check before the database is asked.
- A masked column never reaches the model (its samples and the printed result are
  placeholders); schema-only mode sends no value.

    test_sources.py postgresql|mariadb|sqlite ASSAY_CLI FAKE_SERVER.py

Prints TAP."""
import ast
import gzip
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "agent"))
import dbservers  # noqa: E402
from ask_harness import call, report, run_case, finish, openai_tool_messages, text_of  # noqa: E402
import ask_harness  # noqa: E402

KIND, CLI, SERVER = sys.argv[1], sys.argv[2], sys.argv[3]
ask_harness.configure(CLI, SERVER)
CONFIG = {"XDG_CONFIG_HOME": tempfile.mkdtemp(prefix="assay-sources-config-")}
JOIN_SQL = ("SELECT c.city, sum(i.quantity * i.unit_price) AS revenue FROM customers c "
            "JOIN orders o ON o.customer_id = c.id JOIN order_items i ON i.order_id = o.id "
            "GROUP BY c.city ORDER BY revenue DESC")


def sql_call(sql, name, description="query", database=None):
    arguments = {"sql": sql, "name": name, "description": description}
    if database:
        arguments["database"] = database
    return {"name": "run_sql", "arguments": json.dumps(arguments)}


def turn(*calls, text=""):
    return {"flavor": "openai", "turn": {"text": text, "tool_calls": list(calls)}}


def answer(text="Done."):
    return {"flavor": "openai", "turn": {"text": text}}


def session_record(run):
    path = os.path.join(run.workdir, "session", "session.json")
    return json.load(open(path)) if os.path.exists(path) else {}


def tool_texts(run):
    """The tool results the model was sent, in order (the last request holds them all)."""
    chats = run.chat_requests()
    return [text_of(m.get("content")) for m in openai_tool_messages(chats[-1])] if chats else []


def folder_text(folder):
    """Everything under FOLDER as text, compressed request bodies opened."""
    found = []
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            try:
                data = open(path, "rb").read()
                if name.endswith(".gz"):
                    data = gzip.decompress(data)
            except OSError:
                continue
            found.append(data.decode("utf-8", "replace"))
    return "\n".join(found)


# ---- the three targets ---------------------------------------------------------------------

class Postgres:
    label = "postgresql"
    dialect_write = "COPY (SELECT * FROM orders) TO PROGRAM 'touch /tmp/assay-pwned'"
    # Refused functions spelled so that a check of bare names misses them (issue 33).
    spelled = ["SELECT pg_catalog.pg_advisory_lock(4242)",
               'SELECT "pg_catalog"."pg_advisory_lock"(4243)',
               'SELECT U&"\\0070g_advisory_lock"(4244)',
               "SELECT pg_catalog.pg_read_file('/etc/hostname')"]
    no_locks = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
    sleep_sql = "SELECT pg_sleep(120)"
    slow_sql = "SELECT pg_sleep(30)"

    def __init__(self):
        self.server = dbservers.PostgresServer()
        self.server.start()
        dbservers.pg_shop(self.server)
        self.password = dbservers.READER_PASSWORD

    def url(self, user="reader", password=None, tcp=True):
        return self.server.url(user, tcp=tcp, password=password)

    def env(self, password=None, user="reader"):
        if password is None:
            password = dbservers.READER_PASSWORD if user == "reader" else dbservers.OWNER_PASSWORD
        return {"PGPASSWORD": password}

    def scalar(self, sql):
        return self.server.psql(sql, db="shop")

    execute = scalar

    def running(self, needle):
        return int(self.scalar("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                               "AND pid <> pg_backend_pid() AND query LIKE '%%%s%%'" % needle))

    def refused_url(self):
        return "postgresql://reader@127.0.0.1:%d/shop" % dbservers.free_port()

    def stop(self):
        self.server.stop()


class MariaDB:
    label = "mariadb"
    dialect_write = "SELECT * FROM orders INTO OUTFILE '/tmp/assay-pwned'"
    spelled = ["SELECT `GET_LOCK`('assay-lock', 10)", "SELECT `Get_Lock` ('assay-lock', 10)",
               "SELECT `load_file`('/etc/hostname')"]
    no_locks = "SELECT 1 - IS_FREE_LOCK('assay-lock')"
    sleep_sql = "SELECT count(*) FROM events a JOIN events b ON a.note < b.note"
    slow_sql = sleep_sql

    def __init__(self):
        self.server = dbservers.MariaDBServer()
        self.server.start()
        dbservers.mariadb_shop(self.server)
        self.password = dbservers.READER_PASSWORD

    def url(self, user="reader", password=None, tcp=True):
        return self.server.url(user, tcp=tcp, password=password)

    def env(self, password=None, user="reader"):
        if password is None:
            password = dbservers.READER_PASSWORD if user == "reader" else dbservers.OWNER_PASSWORD
        return {"MYSQL_PWD": password}

    def scalar(self, sql):
        return self.server.sql(sql, db="shop")

    execute = scalar

    def running(self, needle):
        return int(self.scalar("SELECT count(*) FROM information_schema.processlist WHERE command = 'Query' "
                               "AND id <> CONNECTION_ID() AND info LIKE '%%%s%%'" % needle))

    def refused_url(self):
        return "mariadb://reader@127.0.0.1:%d/shop" % dbservers.free_port()

    def stop(self):
        self.server.stop()


class SQLite:
    label = "sqlite"
    dialect_write = "ATTACH DATABASE '/tmp/assay-pwned.db' AS pwned"
    spelled = ['SELECT "load_extension"(\'/tmp/assay-pwned\')', "SELECT [load_extension]('/tmp/assay-pwned')"]
    no_locks = None
    sleep_sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
    slow_sql = sleep_sql

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="assay-sqlite-")
        os.chmod(self.dir, 0o755)
        self.path = os.path.join(self.dir, "shop.db")
        dbservers.sqlite_shop(self.path)
        self.password = None

    def url(self, user="reader", password=None, tcp=True):
        return "sqlite://" + self.path

    def env(self, password=None, user="reader"):
        return {}

    def scalar(self, sql):
        con = sqlite3.connect("file:%s?mode=ro" % self.path, uri=True)
        try:
            return str(con.execute(sql).fetchone()[0])
        finally:
            con.close()

    def execute(self, sql):
        con = sqlite3.connect(self.path)
        try:
            con.execute(sql)
            con.commit()
        finally:
            con.close()

    def running(self, needle):
        return 0

    def refused_url(self):
        return "sqlite://" + os.path.join(self.dir, "missing.db")

    def digest(self):
        return hashlib.sha256(open(self.path, "rb").read()).hexdigest()

    def stop(self):
        shutil.rmtree(self.dir, ignore_errors=True)


TYPES_CHECK = {
    "postgresql": r'''
import decimal
import pandas as pd
t = typed.set_index("id")
assert str(t["maybe"].dtype) == "Int64", t.dtypes
assert t.loc[2, "maybe"] is pd.NA and t.loc[4, "maybe"] is pd.NA and t.loc[3, "maybe"] == -2147483648
for row, text in ((1, "1234567890123456.1234"), (2, "-0.0001"), (3, "9999999999999999.9999")):
    value = t.loc[row, "amount"]
    assert isinstance(value, decimal.Decimal) and value == decimal.Decimal(text) and str(value) == text, value
assert t.loc[4, "amount"] is None
assert str(t["at"].dtype) == "datetime64[ns, UTC]", t["at"].dtype
assert t.loc[1, "at"] == pd.Timestamp("2024-03-31 21:59:59.123456", tz="UTC")
assert t.loc[4, "at"] == pd.Timestamp("2262-01-01", tz="UTC") and pd.isna(t.loc[3, "at"])
assert str(t["day"].dtype) == "datetime64[ns]"
assert t.loc[1, "day"] == pd.Timestamp("2024-02-29") and t.loc[4, "day"] == pd.Timestamp("1677-12-31")
assert pd.isna(t.loc[3, "day"])
assert str(t["ok"].dtype) == "boolean"
assert t.loc[1, "ok"] == True and t.loc[2, "ok"] == False and t.loc[3, "ok"] is pd.NA
assert t.loc[1, "note"] == "two\nlines" and t.loc[2, "note"] == "Привет, мир"
assert t.loc[3, "note"] is None and t.loc[4, "note"] == ""
print("TYPES OK")
''',
    "mariadb": r'''
import decimal
import pandas as pd
t = typed.set_index("id")
assert str(t["maybe"].dtype) == "Int64", t.dtypes
assert t.loc[2, "maybe"] is pd.NA and t.loc[3, "maybe"] == -2147483648
for row, text in ((1, "1234567890123456.1234"), (2, "-0.0001"), (3, "9999999999999999.9999")):
    value = t.loc[row, "amount"]
    assert isinstance(value, decimal.Decimal) and str(value) == text, value
assert str(t["at"].dtype) == "datetime64[ns, UTC]", t["at"].dtype
assert t.loc[1, "at"] == pd.Timestamp("2024-03-31 21:59:59.123456", tz="UTC") and pd.isna(t.loc[3, "at"])
assert str(t["day"].dtype) == "datetime64[ns]" and t.loc[1, "day"] == pd.Timestamp("2024-02-29")
assert str(t["ok"].dtype) == "boolean" and t.loc[1, "ok"] == True and t.loc[3, "ok"] is pd.NA
assert t.loc[1, "note"] == "two\nlines" and t.loc[2, "note"] == "Привет, мир" and t.loc[3, "note"] is None
assert str(t["big"].dtype) == "UInt64" and t.loc[1, "big"] == 18446744073709551615 and t.loc[3, "big"] is pd.NA
print("TYPES OK")
''',
    "sqlite": r'''
import pandas as pd
t = typed.set_index("id")
assert str(t["maybe"].dtype) == "Int64", t.dtypes
assert t.loc[2, "maybe"] is pd.NA and t.loc[3, "maybe"] == -2147483648
assert str(t["amount"].dtype) == "float64" and t.loc[1, "amount"] == 1.5 and pd.isna(t.loc[4, "amount"])
assert str(t["at"].dtype) == "datetime64[ns]" and t.loc[1, "at"] == pd.Timestamp("2024-03-31 21:59:59.123456")
assert str(t["day"].dtype) == "datetime64[ns]" and t.loc[1, "day"] == pd.Timestamp("2024-02-29")
assert str(t["ok"].dtype) == "boolean" and t.loc[1, "ok"] == True and t.loc[3, "ok"] is pd.NA
assert t.loc[1, "note"] == "two\nlines" and t.loc[2, "note"] == "Привет, мир" and t.loc[3, "note"] is None
assert t.loc[1, "raw"] == b"\x00\xff" and t.loc[3, "raw"] == b"" and t.loc[2, "raw"] is None
print("TYPES OK")
''',
}


def cli(args, env_extra=None, timeout=300):
    env = dict(os.environ)
    for k in ("PGPASSWORD", "MYSQL_PWD"):
        env.pop(k, None)
    env.update(CONFIG)
    env.update(env_extra or {})
    return subprocess.run([CLI] + args, capture_output=True, text=True, env=env, timeout=timeout)


def ask(target, responses, extra=(), env_extra=None, url=None, user="reader", question="Which city brings the most?"):
    env = dict(CONFIG)
    env.update(target.env(user=user) if env_extra is None else env_extra)
    return run_case(responses, question=question, env_extra=env,
                    extra_args=["--db", "shop=" + (url or target.url(user))] + list(extra))


# Logins that can do more than read, each with the power the server names, and how it got it.
PRIVILEGED = {
    "postgresql": [
        ("boss", "CREATE ROLE boss LOGIN SUPERUSER PASSWORD '%s'", "superuser"),
        ("signaller", "CREATE ROLE ops NOLOGIN; GRANT pg_signal_backend TO ops; "
                      "CREATE ROLE signaller LOGIN PASSWORD '%s' IN ROLE ops", "member of pg_signal_backend"),
        ("filer", "CREATE ROLE filer LOGIN PASSWORD '%s' IN ROLE pg_read_server_files",
         "member of pg_read_server_files"),
        ("heir", "CREATE ROLE heir LOGIN PASSWORD '%s' IN ROLE boss", "member of boss"),
    ],
    "mariadb": [
        ("filer", "CREATE USER 'filer'@'%%' IDENTIFIED BY '%s'; GRANT FILE ON *.* TO 'filer'@'%%'; "
                  "GRANT SELECT ON shop.* TO 'filer'@'%%'", "FILE"),
        ("watcher", "CREATE USER 'watcher'@'%%' IDENTIFIED BY '%s'; GRANT PROCESS ON *.* TO 'watcher'@'%%'; "
                    "GRANT SELECT ON shop.* TO 'watcher'@'%%'",
         "PROCESS"),
        ("everyreader", "CREATE USER 'everyreader'@'%%' IDENTIFIED BY '%s'; "
                        "GRANT SELECT ON *.* TO 'everyreader'@'%%'", "SELECT"),
        ("roled", "CREATE ROLE filing; GRANT FILE ON *.* TO filing; "
                  "CREATE USER 'roled'@'%%' IDENTIFIED BY '%s'; GRANT filing TO 'roled'@'%%'; "
                  "SET DEFAULT ROLE filing FOR 'roled'@'%%'; GRANT SELECT ON shop.* TO 'roled'@'%%'", "FILE"),
    ],
}


def check_privileged_logins(target):
    """Each login that can do more than read is refused when it connects, naming what it can
    do; --accept-risk lets it in and the record keeps the acceptance under the analyst's seal;
    run again honours the seal and refuses a record whose acceptance was edited."""
    password = "Pr1v-S3cret-pw"
    for user, sql, power in PRIVILEGED[KIND]:
        target.scalar(sql % password)
    env = target.env(password=password)
    for user, _, power in PRIVILEGED[KIND]:
        r = cli(["inspect", "--db", target.url(user)], env)
        report(r.returncode == 7 and "can do more than read" in r.stderr and power in r.stderr
               and password not in r.stdout + r.stderr,
               "inspect --db as %s: refused, naming “%s”" % (user, power), r.stdout[-2000:] + r.stderr)
    r = cli(["inspect", "--db", target.url(PRIVILEGED[KIND][0][0]), "--accept-risk"], env)
    report(r.returncode == 0 and "- orders (table" in r.stdout, "inspect --db --accept-risk: the login is used",
           r.stdout[-2000:] + r.stderr)
    r = cli(["inspect", "--db", target.url()], target.env())
    report(r.returncode == 0 and "can do more" not in r.stderr, "a login that only reads connects as before",
           r.stderr)

    user, _, power = PRIVILEGED[KIND][0]
    refused = ask(target, [turn(sql_call("SELECT count(*) AS n FROM orders", "n")), answer("Counted.")],
                  env_extra=env, url=target.url(user))
    report(refused.rc == 7 and "can do more than read" in refused.err and not refused.chat_requests(),
           "ask --db with a privileged login: refused before anything goes to the model, exit 7",
           refused.detail())
    accepted = ask(target, [turn(sql_call("SELECT count(*) AS n FROM orders", "n")), answer("Counted.")],
                   env_extra=env, url=target.url(user), extra=["--db-accept-risk", "shop"])
    record = session_record(accepted)
    risk = (record.get("sources") or [{}])[0].get("accepted_risk") or {}
    report(accepted.rc == 0 and [c["status"] for c in accepted.cells()] == ["ok"] and "risk accepted" in accepted.err
           and power in accepted.err and power in risk.get("powers", "") and len(risk.get("seal", "")) == 64,
           "ask --db-accept-risk: the login is used, said on stderr, the acceptance recorded and sealed",
           json.dumps(risk) + accepted.detail())

    session_dir = os.path.join(accepted.workdir, "session")
    again = cli(["rerun", "--backend", "bwrap", "--out", os.path.join(accepted.workdir, "again"), session_dir], env)
    report(again.returncode == 0 and "risk accepted" in again.stderr,
           "run again: the recorded acceptance lets the same login in", again.stdout[-2000:] + again.stderr)
    # Someone edits what was accepted: the seal no longer matches, the login is refused.
    path = os.path.join(session_dir, "session.json")
    edited = json.load(open(path))
    edited["sources"][0]["accepted_risk"]["powers"] = power + ", everything"
    json.dump(edited, open(path, "w"))
    tampered = cli(["rerun", "--backend", "bwrap", "--out", os.path.join(accepted.workdir, "tampered"),
                    session_dir], env)
    report(tampered.returncode == 9 and "can do more than read" in tampered.stderr
           and not os.path.exists(os.path.join(accepted.workdir, "tampered", "queries")),
           "run again with an edited acceptance: the login is refused, nothing is queried",
           tampered.stdout[-2000:] + tampered.stderr)


target = {"postgresql": Postgres, "mariadb": MariaDB, "sqlite": SQLite}[KIND]()
try:
    # ---- inspect --db -----------------------------------------------------------------------
    r = cli(["inspect", "--db", target.url()], target.env())
    out = r.stdout
    report(r.returncode == 0 and "- customers (table" in out and "- events (table" in out
           and "customer_id" in out and "→ customers(id)" in out and "→ orders(id)" in out
           and "primary key" in out and "'Customer " in out and "e.g." in out
           and ("1,000,000 rows" in out or "about " in out)
           and (KIND == "sqlite" or "People who bought something" in out),
           "inspect --db: tables, columns, keys, foreign keys, row estimates, comments, samples",
           out + r.stderr)
    if KIND == "postgresql":
        report("- big_spenders (view)" in out and "Contact address, private" in out,
               "inspect --db: views and column comments", out)
    r = cli(["inspect", "--db", target.url(), "--db-tables", "customers,orders", "--schema-only"], target.env())
    report(r.returncode == 0 and "- orders (table" in r.stdout and "- events" not in r.stdout
           and "e.g." not in r.stdout and "2 tables" in r.stdout,
           "inspect --db --db-tables --schema-only: the picked tables, no values", r.stdout + r.stderr)
    r = cli(["inspect", "--db", target.url(), "--db-tables", "nope"], target.env())
    report(r.returncode == 2 and "no table or view “nope”" in r.stderr, "inspect --db: a table that is not there",
           r.stdout + r.stderr)
    r = cli(["inspect", "--db", target.url(), "--json"], target.env())
    try:
        tables = {t["name"]: t for t in json.loads(r.stdout)["tables"]}
        ok = (tables["orders"]["foreign_keys"][0]["table"] == "customers"
              and any(c["primary_key"] for c in tables["customers"]["columns"]))
    except (ValueError, KeyError, IndexError):
        ok = False
    report(r.returncode == 0 and ok, "inspect --db --json: the schema as JSON", r.stdout[:3000] + r.stderr)

    # ---- a question that needs a join -------------------------------------------------------
    rows = [line.split("|") for line in target.scalar(
        "SELECT c.city || '|' || sum(i.quantity * i.unit_price) FROM customers c JOIN orders o ON o.customer_id = c.id "
        "JOIN order_items i ON i.order_id = o.id GROUP BY c.city ORDER BY sum(i.quantity * i.unit_price) DESC"
        if KIND != "mariadb" else
        "SELECT CONCAT(c.city, '|', sum(i.quantity * i.unit_price)) FROM customers c JOIN orders o "
        "ON o.customer_id = c.id JOIN order_items i ON i.order_id = o.id GROUP BY c.city "
        "ORDER BY sum(i.quantity * i.unit_price) DESC").splitlines()] if KIND != "sqlite" else None
    if KIND == "sqlite":
        con = sqlite3.connect(target.path)
        rows = [list(map(str, row)) for row in con.execute(JOIN_SQL)]
        con.close()
    top_city, top_revenue = rows[0][0], float(rows[0][1])
    r = ask(target, [turn(sql_call(JOIN_SQL, "by_city", "revenue by city")),
                     turn(call("execute_python", "top = by_city.iloc[0]\nprint(top['city'], float(top['revenue']))")),
                     answer("%s brings the most: %.2f." % (top_city, top_revenue))])
    cells = r.cells()
    tools = tool_texts(r)
    first = r.chat_requests()[0]["body"] if r.chat_requests() else {}
    system = text_of(first.get("messages", [{}])[0].get("content"))
    record = session_record(r)
    report(r.rc == 0 and len(cells) == 2 and cells[0].get("kind") == "sql" and cells[0]["status"] == "ok"
           and cells[0]["query"]["rows"] == len(rows) and cells[0]["query"]["frame"] == "by_city"
           and cells[1]["status"] == "ok" and top_city in r.out,
           "ask: a join answered through run_sql, the DataFrame used by the next cell", r.detail())
    report(len(tools) == 2 and "The query ran on shop" in tools[0]
           and "%d rows × 2 columns" % len(rows) in tools[0] and "`by_city`" in tools[0] and top_city in tools[0]
           and "%s %s" % (top_city, top_revenue) in tools[1],
           "ask: the query's result and its columns go back to the model", "\n---\n".join(tools))
    report('Database "shop"' in system and "run_sql" in system and "→ customers(id)" in system
           and any(t.get("function", {}).get("name") == "run_sql" for t in first.get("tools", [])),
           "ask: the schema is in the system prompt and run_sql is offered", system[:4000])
    cached = os.path.join(r.workdir, "session", "queries", "c1.aqr")
    report(os.path.exists(cached) and record.get("sources", [{}])[0].get("name") == "shop"
           and record["cells"][0].get("kind") == "sql" and record["cells"][0]["query"]["result"] == "queries/c1.aqr"
           and record["cells"][0]["query"]["columns"][0]["name"] == "city",
           "ask: the record keeps the query, its rows and columns and the cached result",
           json.dumps(record.get("cells", [])[:1])[:3000])

    # Resumed without the database: the DataFrame comes back from the cached result.
    transcript = os.path.join(r.workdir, "resume.json")
    json.dump({"format": "assay-transcript", "turns": [
        {"tool_calls": [{"name": "execute_python",
                         "arguments": {"code": "print('restored', len(by_city), by_city.iloc[0]['city'])"}}]},
        {"text": "Still there."}]}, open(transcript, "w"))
    resumed = cli(["ask", "--provider", "recorded", "--transcript", transcript, "--yes", "--no-check-numbers",
                   "--resume", os.path.join(r.workdir, "session"), "And again?"])
    report(resumed.returncode == 0 and "restored %d %s" % (len(rows), top_city) in resumed.stderr,
           "ask --resume: the query's DataFrame restored from the cached result, without the database",
           resumed.stdout + resumed.stderr)

    # ---- the reproducible bundle: the query's result kept, or the database asked again ----
    def bundle(name, *flags):
        path = os.path.join(r.workdir, name + ".zip")
        done = cli(["export", os.path.join(r.workdir, "session"), "--format", "bundle", "-o", path] + list(flags))
        folder = os.path.join(r.workdir, name)
        if done.returncode == 0:
            with zipfile.ZipFile(path) as archive:
                archive.extractall(folder)
        tops = os.listdir(folder) if os.path.isdir(folder) else []
        return done, os.path.join(folder, tops[0]) if len(tops) == 1 else folder

    def analysis(top, *args, env_extra=None):
        env = {k: v for k, v in os.environ.items() if k not in ("PGPASSWORD", "MYSQL_PWD")}
        env.update(env_extra or {})
        # Debian's Python, whose pandas, psycopg2 and MySQLdb the README names.
        return subprocess.run(["/usr/bin/python3", "analysis.py", "--data-dir", "data"] + list(args),
                              cwd=top, capture_output=True, text=True, env=env, timeout=300)

    done, with_data = bundle("bundle", "--with-data")
    script = open(os.path.join(with_data, "analysis.py")).read() if done.returncode == 0 else ""
    readme = open(os.path.join(with_data, "README.md")).read() if done.returncode == 0 else ""
    sums = open(os.path.join(with_data, "datasets.sha256")).read() if done.returncode == 0 else ""
    kept = os.path.join(with_data, "queries", "cell-1.aqr")
    report(done.returncode == 0 and os.path.isfile(kept) and os.path.isfile(os.path.join(with_data, "assay_frames.py"))
           and open(kept, "rb").read() == open(cached, "rb").read()
           and "queries/cell-1.aqr" in sums and "--requery" in readme and "--db shop=URL" in readme
           and (target.password is None or target.password not in script + readme),
           "bundle --with-data: the SQL cell's result kept in queries/ with its loader, its hash listed, "
           "the README says how to ask again (no password)", done.stderr + readme)
    ran = analysis(with_data)
    report(ran.returncode == 0 and "%d rows × 2 columns" % len(rows) in ran.stdout
           and "%s %s" % (top_city, top_revenue) in ran.stdout,
           "bundle: analysis.py loads the kept result, the next cell prints the same answer",
           ran.stdout + ran.stderr)
    notebook = json.load(open(os.path.join(with_data, "notebook.ipynb"))) if done.returncode == 0 else {}
    code_cells = [c for c in notebook.get("cells", []) if c.get("cell_type") == "code"]
    first_code = next(("".join(c["source"]) for c in code_cells if "assay_frames" in "".join(c["source"])), "")
    report('assay_frames.load("queries/cell-1.aqr")' in first_code and "by_city =" in first_code
           and not any("JOIN orders" in "".join(c["source"]) for c in code_cells)
           and any("```" in "".join(c["source"]) and "JOIN orders" in "".join(c["source"])
                   for c in notebook.get("cells", []) if c.get("cell_type") == "markdown"),
           "bundle: the notebook shows the SQL and loads its result instead of running SQL as Python",
           first_code)
    done, without = bundle("bundle-nodata")
    ran = analysis(without)
    report(done.returncode == 0 and not os.path.exists(os.path.join(without, "queries"))
           and ran.returncode == 1 and "cell c1 reads the result of a query on the database shop" in ran.stderr
           and "--db shop=URL" in ran.stderr and "Traceback" not in ran.stderr,
           "bundle without data: the SQL cell says plainly how to get its result (exit 1)", ran.stderr)
    html_path = os.path.join(r.workdir, "report.html")
    done = cli(["export", os.path.join(r.workdir, "session"), "--format", "html", "-o", html_path])
    html = open(html_path).read() if done.returncode == 0 else ""
    report("SQL on the database shop: %d rows, loaded as the DataFrame by_city." % len(rows) in html,
           "report: the SQL cell says its database, its rows and its DataFrame", done.stderr + html[:2000])
    ran = analysis(with_data, "--db", "nope=" + target.url())
    report(ran.returncode == 2 and "queried no database nope" in ran.stderr,
           "bundle: --db with a name the analysis never queried is refused", ran.stderr)

    # ---- run again: the queries asked again of the database, the answer's number re-read ----
    extra = 1000
    target.execute("INSERT INTO orders (id, customer_id, placed_at, status) SELECT 999001, min(id), "
                   "'2024-01-01 00:00:00', 'paid' FROM customers WHERE city = '%s'" % top_city)
    target.execute("INSERT INTO order_items (order_id, product_id, quantity, unit_price) "
                   "SELECT 999001, min(id), 1, %d FROM products" % extra)
    rerun_dir = os.path.join(r.workdir, "rerun")
    again = cli(["rerun", "--backend", "bwrap", "--out", rerun_dir, os.path.join(r.workdir, "session")], target.env())
    rerun_record = json.load(open(os.path.join(rerun_dir, "session.json"))) if os.path.exists(
        os.path.join(rerun_dir, "session.json")) else {}
    rerun_cells = rerun_record.get("cells", [])
    new_top = "%.2f" % (top_revenue + extra)
    report(again.returncode == 0 and rerun_cells and rerun_cells[0].get("kind") == "sql"
           and rerun_cells[0]["status"] == "ok" and rerun_cells[0]["query"]["rows"] == len(rows)
           and rerun_cells[0]["query"]["result"] == "queries/c1.aqr"
           and os.path.exists(os.path.join(rerun_dir, "queries", "c1.aqr"))
           and any("brings the most: %s." % new_top in text_of(m.get("content", m.get("text")))
                   for m in rerun_record.get("messages", []) if isinstance(m, dict))
           and new_top in again.stdout and rerun_record.get("sources", [{}])[0].get("name") == "shop"
           and (target.password is None or target.password not in folder_text(rerun_dir) + again.stdout + again.stderr),
           "rerun: the session's query asked again of the database (where it was queried), the answer's number "
           "re-read (%s → %s)" % ("%.2f" % top_revenue, new_top),
           again.stdout + again.stderr + json.dumps(rerun_record.get("answer")))
    # ---- a resumed session asked its queries again on request (ask --resume --requery) ----
    requery_dir = os.path.join(r.workdir, "requery-session")
    shutil.copytree(os.path.join(r.workdir, "session"), requery_dir)
    cache_before = open(os.path.join(requery_dir, "queries", "c1.aqr"), "rb").read()
    script = os.path.join(r.workdir, "requery-script.json")
    json.dump({"responses": [
        turn(call("execute_python", "print('again', len(by_city), by_city.iloc[0]['city'], "
                                    "float(by_city.iloc[0]['revenue']))")),
        answer("Fresh.")]}, open(script, "w"))
    log = os.path.join(r.workdir, "requery-requests.jsonl")
    server = subprocess.Popen([sys.executable, SERVER, script, log], stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())
        env = dict(target.env())
        env.update({"OPENAI_API_KEY": "sk-test-requery", "ASSAY_LLM_RETRY_SCALE": "0.01"})
        resumed = cli(["ask", "--provider", "openai", "--base-url", "http://127.0.0.1:%d/v1" % port,
                       "--model", "test-model", "--yes", "--no-check-numbers", "--backend", "bwrap",
                       "--resume", requery_dir, "--requery", "Is it still so?"], env)
    finally:
        server.kill()
        server.wait()
    bodies = [json.loads(line)["body"] for line in open(log) if line.strip()] if os.path.exists(log) else []
    system = text_of(bodies[0]["messages"][0]["content"]) if bodies and bodies[0].get("messages") else ""
    report(resumed.returncode == 0 and "The query of cell c1 was asked again: %d rows." % len(rows) in resumed.stderr
           and resumed.stderr.count("Restoring the session") == 1
           and "again %d %s %s" % (len(rows), top_city, top_revenue + extra) in resumed.stderr
           and "The query of cell c1 was asked again of shop" in system and "when it first ran" in system
           and open(os.path.join(requery_dir, "queries", "c1.aqr"), "rb").read() == cache_before,
           "ask --resume --requery: the query asked again of the database (the new row counted), the model "
           "told, the session's cached result unchanged", resumed.stdout + resumed.stderr + system[-600:])
    resumed = cli(["ask", "--provider", "recorded", "--transcript", transcript, "--yes", "--no-check-numbers",
                   "--requery", "Again?"])
    report(resumed.returncode == 2 and "give --resume DIR" in resumed.stderr,
           "ask --requery without --resume is a usage error", resumed.stderr)

    ran = analysis(with_data, "--requery", env_extra=target.env())
    report(ran.returncode == 0 and "asked shop again" in ran.stderr
           and "%s %s" % (top_city, top_revenue + extra) in ran.stdout,
           "bundle: analysis.py --requery asks the database again at its recorded address (%s → %s)"
           % (top_revenue, top_revenue + extra), ran.stdout + ran.stderr)
    # A bundle made from a session.json whose SQL cell was edited: analysis.py applies Assay's
    # statement check before it asks the database, and refuses what Assay would never send.
    before_orders = target.scalar("SELECT count(*) FROM orders")
    for label, edited_sql in (("a refused function", target.spelled[0]),
                              ("a second statement", JOIN_SQL + "; DELETE FROM orders")):
        edited_dir = os.path.join(r.workdir, "edited-session")
        shutil.rmtree(edited_dir, ignore_errors=True)
        shutil.copytree(os.path.join(r.workdir, "session"), edited_dir)
        edited = json.load(open(os.path.join(edited_dir, "session.json")))
        edited["cells"][0]["code"] = edited_sql
        json.dump(edited, open(os.path.join(edited_dir, "session.json"), "w"))
        path = os.path.join(r.workdir, "edited.zip")
        done = cli(["export", edited_dir, "--format", "bundle", "--with-data", "-o", path])
        folder = os.path.join(r.workdir, "edited")
        shutil.rmtree(folder, ignore_errors=True)
        if done.returncode == 0:
            with zipfile.ZipFile(path) as archive:
                archive.extractall(folder)
        tops = os.listdir(folder) if os.path.isdir(folder) else []
        top = os.path.join(folder, tops[0]) if len(tops) == 1 else folder
        script = open(os.path.join(top, "analysis.py")).read() if done.returncode == 0 else ""
        cells = next((ast.literal_eval(node.value) for node in ast.parse(script).body
                      if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "CELLS"), [])
        ran = analysis(top, "--requery", env_extra=target.env())
        locks = target.scalar(target.no_locks) if target.no_locks else "0"
        report(done.returncode == 0 and any(c[0] == "c1" and c[2] == edited_sql for c in cells)
               and os.path.isfile(os.path.join(top, "assay_sql_check.py"))
               and ran.returncode == 1 and "cell c1 failed: the SQL of cell c1 is refused by Assay's statement check, "
               "so the database shop was not asked" in ran.stderr
               and "asked shop again" not in ran.stderr and "Traceback" not in ran.stderr
               and str(locks).strip() == "0" and target.scalar("SELECT count(*) FROM orders") == before_orders,
               "bundle: analysis.py --requery refuses an edited SQL cell (%s) before it asks the database "
               "(exit 1, the cell named; no lock, no change)" % label, done.stderr + ran.stdout + ran.stderr)
        if KIND != "mariadb":
            # PostgreSQL and SQLite are not even connected to (MySQL first reads its sql_mode).
            ran = analysis(top, "--db", "shop=" + target.refused_url(), env_extra=target.env())
            report(ran.returncode == 1 and "refused by Assay's statement check" in ran.stderr,
                   "bundle: --db refuses the edited SQL cell (%s) before it connects" % label, ran.stderr)
    ran = analysis(without, "--db", "shop=" + target.url(), env_extra=target.env())
    report(ran.returncode == 0 and "%s %s" % (top_city, top_revenue + extra) in ran.stdout,
           "bundle without data: --db NAME=URL asks the database there", ran.stdout + ran.stderr)
    again = cli(["rerun", "--backend", "bwrap", "--db", "shop=" + target.refused_url(),
                 "--out", rerun_dir + "-refused", os.path.join(r.workdir, "session")], target.env())
    report(again.returncode == 9 and "Cannot connect to the database shop" in again.stderr
           and not os.path.exists(os.path.join(rerun_dir + "-refused", "session.json")),
           "rerun --db to a database that refuses: a plain message, exit 9, nothing run", again.stderr)

    # ---- writes refused ----------------------------------------------------------------------
    before_orders = target.scalar("SELECT count(*) FROM orders")
    before_counter = target.scalar("SELECT n FROM counters")
    digest = target.digest() if KIND == "sqlite" else None
    writes = [
        ("INSERT", "INSERT INTO orders (id, customer_id, placed_at, status) VALUES (999999, 1, '2024-01-01', 'x')"),
        ("DROP", "DROP TABLE order_items"),
        ("SET TRANSACTION", "SET TRANSACTION READ WRITE"),
        ("COMMIT; DELETE", "COMMIT; DELETE FROM orders"),
        ("dialect write", target.dialect_write),
        ("two statements", "SELECT 1; SELECT 2"),
        ("data-modifying WITH", "WITH gone AS (DELETE FROM orders RETURNING id) SELECT count(*) FROM gone"),
        ("hidden in a comment and a string", "SELECT 1 /* ; */, ';' ; DELETE FROM orders"),
    ]
    calls = [sql_call(sql, "w%d" % i) for i, (_, sql) in enumerate(writes)]
    if KIND != "sqlite":
        calls.append(sql_call("SELECT bump() AS n", "bumped"))
    r = ask(target, [turn(*calls), answer("Nothing written.")], user="owner")
    tools = tool_texts(r)
    refused = [i for i, text in enumerate(tools[:len(writes)]) if "refused" in text and "Nothing ran" in text]
    report(r.rc == 0 and len(refused) == len(writes),
           "writes refused by the check (%s), logged in as a role that may write" % ", ".join(w[0] for w in writes),
           "\n---\n".join(tools) + r.detail())
    if KIND != "sqlite":
        bump = tools[-1] if len(tools) == len(calls) else ""
        report(("read-only" in bump or "READ ONLY" in bump) and [c["status"] for c in r.cells()] == ["error"],
               "a function that writes passes the check and is refused by the read-only transaction", bump)
    after_ok = (target.scalar("SELECT count(*) FROM orders") == before_orders
                and target.scalar("SELECT n FROM counters") == before_counter
                and int(target.scalar("SELECT count(*) FROM order_items")) > 0
                and not os.path.exists("/tmp/assay-pwned") and not os.path.exists("/tmp/assay-pwned.db"))
    if KIND == "sqlite":
        after_ok = after_ok and target.digest() == digest
    report(after_ok, "the database is unchanged after the refused writes",
           "orders %s → %s" % (before_orders, target.scalar("SELECT count(*) FROM orders")))

    # ---- refused functions, however spelled (issue 33) ------------------------------------------
    calls = [sql_call(sql, "f%d" % i) for i, sql in enumerate(target.spelled)]
    r = ask(target, [turn(*calls), answer("Nothing ran.")], user="owner")
    tools = tool_texts(r)
    refused = [i for i, text in enumerate(tools[:len(calls)]) if "is refused" in text and "Nothing ran" in text]
    locks = target.scalar(target.no_locks) if target.no_locks else "0"
    report(r.rc == 0 and len(refused) == len(calls) and str(locks).strip() == "0",
           "functions refused however spelled: schema-qualified, quoted, in Unicode escapes; no lock is held",
           "locks: %s\n" % locks + "\n---\n".join(tools) + r.detail())

    # ---- logins that can do more than read (issue 33) --------------------------------------------
    if KIND != "sqlite":
        check_privileged_logins(target)

    # ---- the statement timeout and the row cap -----------------------------------------------
    began = time.monotonic()
    r = ask(target, [turn(sql_call(target.slow_sql, "slow")), answer("Too slow.")], extra=["--db-timeout", "1"])
    tools = tool_texts(r)
    report(r.rc == 0 and [c["status"] for c in r.cells()] == ["timeout"] and tools
           and "statement timeout (1 s)" in tools[0] and time.monotonic() - began < 60,
           "the statement timeout stops the query and tells the model", "\n".join(tools) + r.detail())
    r = ask(target, [turn(sql_call("SELECT * FROM events", "events")), answer("Too many.")],
            extra=["--db-max-rows", "1000"])
    tools = tool_texts(r)
    report(r.rc == 0 and [c["status"] for c in r.cells()] == ["limit"] and tools
           and "more than 1000 rows" in tools[0] and "nothing was loaded" in tools[0],
           "the row cap refuses a larger result and tells the model", "\n".join(tools) + r.detail())

    # ---- types, checked in the kernel -----------------------------------------------------------
    r = ask(target, [turn(sql_call("SELECT * FROM typed ORDER BY id", "typed")),
                     turn(call("execute_python", TYPES_CHECK[KIND])), answer("Typed.")])
    outputs = "".join(o.get("text", "") for c in session_record(r).get("cells", []) for o in c.get("outputs", []))
    report(r.rc == 0 and [c["status"] for c in r.cells()] == ["ok", "ok"] and "TYPES OK" in outputs,
           "types round-trip: Int64 with <NA>, exact numerics, time zones, dates, booleans, text",
           outputs[-3000:] + r.detail())

    # ---- Stop during a long query --------------------------------------------------------------
    work = tempfile.mkdtemp(prefix="assay-sources-stop-")
    transcript = os.path.join(work, "t.json")
    json.dump({"format": "assay-transcript", "turns": [
        {"tool_calls": [{"name": "run_sql", "arguments": {"sql": target.sleep_sql, "name": "long"}}]},
        {"text": "unreachable"}]}, open(transcript, "w"))
    env = dict(os.environ)
    env.update(CONFIG)
    env.update(target.env())
    proc = subprocess.Popen([CLI, "ask", "--provider", "recorded", "--transcript", transcript, "--yes",
                             "--no-check-numbers", "--out", os.path.join(work, "session"), "--db-timeout", "300",
                             "--db", "shop=" + target.url(), "Wait"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    needle = target.sleep_sql[:30]
    deadline = time.monotonic() + 120
    seen = False
    while time.monotonic() < deadline and proc.poll() is None:
        if KIND == "sqlite":
            record_path = os.path.join(work, "session", "session.json")
            try:
                seen = any(c.get("status") == "running" for c in json.load(open(record_path)).get("cells", []))
            except (OSError, ValueError):
                seen = False
        else:
            seen = target.running(needle) > 0
        if seen:
            break
        time.sleep(0.1)
    if seen and KIND == "sqlite":
        time.sleep(0.5)
    stopped_at = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    gone = False
    while time.monotonic() < stopped_at + 30:
        if target.running(needle) == 0:
            gone = True
            break
        time.sleep(0.1)
    record = json.load(open(os.path.join(work, "session", "session.json")))
    statuses = [c.get("status") for c in record.get("cells", []) + record.get("interrupted_cells", [])]
    report(seen and proc.returncode == 6 and gone and time.monotonic() - stopped_at < 30 and "cancelled" in statuses,
           "Stop during a long query cancels it on the server (it is gone from the server's activity)",
           "seen=%s rc=%s gone=%s statuses=%s\n%s" % (seen, proc.returncode, gone, statuses, err[-3000:]))
    # ---- refused connections, wrong passwords, and no password anywhere -------------------------
    r = cli(["ask", "--provider", "recorded", "--transcript", transcript, "--yes", "--db", "shop=" + target.refused_url(),
             "--out", tempfile.mkdtemp(prefix="assay-sources-refused-") + "/s", "Q"], target.env())
    report(r.returncode == 7 and "Cannot connect to the database shop" in r.stderr
           and r.stderr.count("\n") < 12 and "Traceback" not in r.stderr,
           "a refused connection: a plain message, exit 7", r.stderr)
    if KIND != "sqlite":
        wrong = "Wr0ng-pw-%d" % os.getpid()
        out_dir = tempfile.mkdtemp(prefix="assay-sources-wrong-")
        r = cli(["ask", "--provider", "recorded", "--transcript", transcript, "--yes", "--db", "shop=" + target.url(),
                 "--out", out_dir + "/s", "Q"], target.env(password=wrong))
        texts = r.stdout + r.stderr + folder_text(out_dir)
        report(r.returncode == 7 and "refused the login" in r.stderr and wrong not in texts
               and target.password not in texts,
               "a wrong password: a plain message, exit 7, no password printed or saved", r.stderr)
        shutil.rmtree(out_dir, ignore_errors=True)

        # The password in the URL itself: used, and found nowhere afterwards.
        r = ask(target, [turn(sql_call("SELECT count(*) AS n FROM customers", "n")), answer("200 customers.")],
                env_extra={}, url=target.url(password=target.password))
        everything = r.out + r.err + folder_text(os.path.join(r.workdir, "session")) + json.dumps(r.requests)
        sources = session_record(r).get("sources", [{}])
        report(r.rc == 0 and [c["status"] for c in r.cells()] == ["ok"] and target.password not in everything
               and "@" in sources[0].get("url", "") and ":" + target.password not in sources[0].get("url", ""),
               "a password in the URL connects and appears nowhere: output, session folder, requests to the model",
               r.detail())

    # ---- what the model may see ----------------------------------------------------------------
    r = ask(target, [turn(sql_call("SELECT id, email FROM customers ORDER BY id LIMIT 3", "contacts")),
                     answer("Three contacts.")], extra=["--mask", "shop.customers:email"])
    bodies = json.dumps([q["body"] for q in r.chat_requests()], ensure_ascii=False)
    outputs = "".join(o.get("text", "") for c in session_record(r).get("cells", []) for o in c.get("outputs", []))
    report(r.rc == 0 and "c1@example.com" not in bodies and "c2@example.com" not in bodies
           and "⟨email " in bodies and "c1@example.com" in outputs,
           "a masked column: placeholders in the samples and the result sent; the analyst's record has the values",
           bodies[:3000] + r.detail())
    r = ask(target, [turn(sql_call("SELECT name, city FROM customers ORDER BY id LIMIT 3", "names")),
                     answer("Three names.")], extra=["--privacy", "schema"])
    bodies = json.dumps([q["body"] for q in r.chat_requests()], ensure_ascii=False)
    report(r.rc == 0 and "Customer 1" not in bodies and "— e.g." not in bodies and "Lisbon" not in bodies
           and "names" in bodies and "3 rows" in bodies,
           "schema-only: no sample and no value of a result reaches the model, its shape does",
           "\n".join(w for w in ("Customer 1", "— e.g.", "Lisbon", "names", "3 rows") if (w in bodies) != (w in ("names", "3 rows")))
           + "\n" + "\n---\n".join(tool_texts(r)) + r.detail())
    shutil.rmtree(work, ignore_errors=True)
finally:
    target.stop()
finish()
