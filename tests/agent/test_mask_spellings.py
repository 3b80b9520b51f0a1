#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Masked values in every spelling a program prints them (issue 33): `assay-cli ask` with the
real sandbox against the fake model server (which logs every request body), on a CSV made
here whose masked columns hold each shape of value: non-ASCII names, URLs, e-mails,
multi-line notes, datetimes, zero-padded codes, long strings. Scripted cells print them every
way: print of a frame and of a series, to_json, to_dict, json.dumps, the repr of a list,
to_markdown, describe, value_counts, f-strings, tracebacks, SQL errors (sqlite3's, a literal's
quotes doubled), and the answer's numbers go through the number check.

Each value's spellings are computed here with Python alone (json, repr, datetime), not with
Assay's code: as written, JSON-escaped (\\uXXXX, \\/), repr-escaped, a line break as a literal
\\n or as a space (the dataset summary), pandas' cut of a long string, a datetime with a space
or a T, in milliseconds, nanoseconds or since 1970. None may appear in any request body; the
analyst's record must have them (each route did print values).

    test_mask_spellings.py ASSAY_CLI FAKE_SERVER.py

Prints TAP."""
import calendar
import csv
import datetime
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ask_harness import call, report, run_case, finish, openai_tool_messages, text_of  # noqa: E402
import ask_harness  # noqa: E402

ask_harness.configure(sys.argv[1], sys.argv[2])

COLUMNS = {
    "name": ["Jürgen Großmann", "Zoë Ødegård", "Siobhán O'Briain", "Łukasz Żółćkiewicz"],
    "url": ["https://shop.example.org/u/jgross?ref=a1", "https://shop.example.org/u/zoe-odegard",
            "https://shop.example.org/u/siobhan/x", "https://shop.example.org/u/lukasz-z"],
    "email": ["jurgen.gross+vip@example.net", "zoe.odegard@example.net", "siobhan.obriain@example.net",
              "lukasz.zolc@example.net"],
    "note": ["Called twice about the parcel\nAsked for a refund by mail",
             "Prefers calls after lunchtime\nNever on Mondays, says Zoë",
             "Moved to Galway in March\nNew address still pending",
             "Customer since the very first launch\nSend samples before invoices"],
    "when": ["1984-03-05T08:15:00", "1991-11-23T17:40:05", "2003-07-14T23:59:59", "1999-12-31T06:07:08"],
    "code": ["0047113", "0052209", "0061357", "0070001"],
    "long": ["Account history: opened at branch 17 of the northern region, migrated twice, audit A",
             "Account history: opened online during the spring campaign, flagged once for review B",
             "Account history: transferred from a partner bank after the merger of the two firms C",
             "Account history: reopened after a dormant period of six years, identity checked D"],
    # Never printed by a cell: the model names it in its answer, the number check quotes it.
    "ref": ["000777123", "000777124", "000777125", "000777126"],
}
MASKED = list(COLUMNS)
AMOUNTS = ["12.5", "40", "7.25", "19"]

data_dir = tempfile.mkdtemp(prefix="assay-spellings-")
path = os.path.join(data_dir, "people.csv")
with open(path, "w", newline="", encoding="utf-8") as f:
    writer = csv.writer(f)
    writer.writerow(MASKED + ["amount"])
    for i in range(4):
        writer.writerow([COLUMNS[c][i] for c in MASKED] + [AMOUNTS[i]])


def time_spellings(text):
    when = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S")
    iso = when.isoformat()
    return [text, str(when), iso + ".000", iso + ".000000000",
            str(calendar.timegm(when.timetuple()) * 1000)]


def spellings(column, value):
    found = {value, json.dumps(value)[1:-1], json.dumps(value)[1:-1].replace("/", "\\/"),
             repr(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}
    if "\n" in value:
        # to_markdown writes each line of a cell on a row of its own.
        found |= {value.replace("\n", "\\n"), value.replace("\n", " ")}
        found |= {line for line in value.split("\n") if len(line) >= 10}
    if len(value) > 30:
        # pandas cuts a long string at 50 characters, the summary at 30: the start is the value.
        found.add(value.replace("\n", "\\n")[:30])
        found.add(value.replace("\n", " ")[:30])
    if "'" in value:
        found.add(value.replace("'", "''"))   # in an SQL literal
    if column == "when":
        found |= set(time_spellings(value))
    if column in ("code", "ref"):
        found.add(str(int(value)))
    return sorted(found, key=len, reverse=True)


ALL = [(c, v, s) for c in MASKED for v in COLUMNS[c] for s in spellings(c, v)]
SHOWN = [c for c in MASKED if c != "ref"]


def placeholder(column, value):
    return "⟨%s %d⟩" % (column, COLUMNS[column].index(value) + 1)


SETUP = ("import pandas as pd, json, sqlite3\n"
         "df = pd.read_csv('/data/people.csv', dtype={'code': str, 'ref': str}, parse_dates=['when'])\n"
         "cols = %r\n" % SHOWN)
# Each way of printing, as a cell of its own (a traceback ends its cell).
ROUTES = [
    ("print of a frame", SETUP + "print(df[cols])\nprint(pd.read_csv('/data/people.csv')[cols])\n"),
    ("print of a series", "for c in cols:\n    print(df[c])\n"),
    ("to_json", "print(df[cols].to_json())\nprint(df[cols].to_json(orient='records', date_format='iso'))\n"),
    ("to_dict", "print(df[cols].to_dict())\nprint(df[cols].to_dict('records'))\n"),
    ("json.dumps", "print(json.dumps(df[cols].astype(str).to_dict('records')))\n"
                   "print(json.dumps(df['name'].tolist(), ensure_ascii=False))\n"),
    ("repr of a list", "for c in cols:\n    print(df[c].tolist())\nprint(list(df['when'].values))\n"),
    ("to_markdown", "print(df[cols].to_markdown())\n"),
    ("describe", "print(df[cols].describe(include='all'))\nfor c in cols:\n    print(df[c].describe())\n"),
    ("value_counts", "for c in cols:\n    print(df[c].value_counts())\n"),
    ("f-strings", "for _, r in df.iterrows():\n"
                  "    print(f\"{r['name']} <{r['email']}> {r['url']} at {r['when']} code {r['code']}: {r['note']!r}\")\n"
                  "    print(f\"{r['long']} | {r['note']}\")\n"),
    ("a traceback", "raise KeyError(df['note'].iloc[0], df['name'].iloc[0], df['when'].iloc[0], df['url'].iloc[0])\n"),
    ("a traceback with str", "raise ValueError(f\"bad row: {df['email'].iloc[1]} {df['code'].iloc[1]} "
                             "{df['when'].iloc[1]} {df['long'].iloc[1]}\")\n"),
    ("SQL errors", "con = sqlite3.connect(':memory:')\ncon.execute('create table t(x)')\n"
                   "for c in cols:\n"
                   "    for v in df[c].astype(str):\n"
                   "        try:\n"
                   "            con.execute(\"select x from t where x = '\" + v)\n"
                   "        except sqlite3.Error as e:\n"
                   "            print(e)\n"
                   "        try:\n"
                   "            con.execute(\"select '\" + v.replace(\"'\", \"''\"))\n"
                   "        except sqlite3.Error as e:\n"
                   "            print(e)\n"
                   "con.execute(\"select x from t where x = '\" + df['name'].iloc[2])\n"),
]

turns = []
for start in range(0, len(ROUTES), 4):
    turns.append({"flavor": "openai", "turn": {"tool_calls": [call("execute_python", code, name)
                                                               for name, code in ROUTES[start:start + 4]]}})
# The answer names values the model knows by their placeholders; the number check quotes the
# reference no cell printed.
ANSWER = "Customer %s (reference %s) came at %s." % (placeholder("code", "0052209"), placeholder("ref", "000777124"),
                                                     placeholder("when", "1991-11-23T17:40:05"))
turns.append({"flavor": "openai", "turn": {"text": ANSWER}})
turns.append({"flavor": "openai", "turn": {"text": "Checked: reference %s." % placeholder("ref", "000777124")}})

run = run_case(turns, question="Who are these customers?", check_numbers=True,
               extra_args=["--data", path] + sum((["--mask", "people.csv:" + c] for c in MASKED), []))


def strings_of(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from strings_of(value)
    elif isinstance(node, list):
        for value in node:
            yield from strings_of(value)


def body_texts(request):
    body = request["body"]
    return [json.dumps(body), json.dumps(body, ensure_ascii=False)] + list(strings_of(body))


requests = run.chat_requests()
leaks = []
for n, request in enumerate(requests):
    texts = body_texts(request)
    for column, value, spelling in ALL:
        if any(spelling in text for text in texts):
            leaks.append("request %d: %s %r as %r" % (n + 1, column, value, spelling))
report(run.rc == 0 and len(requests) >= 5 and not leaks,
       "no masked value in any spelling in any of the %d request bodies" % len(requests),
       run.detail()[-1500:] + "\n" + "\n".join(sorted(set(leaks))[:30]))

# Which routes leaked, named by the tool output that holds the spelling.
outputs = {}
if requests:
    for message, (name, _) in zip(openai_tool_messages(requests[-1]), ROUTES):
        outputs[name] = text_of(message.get("content"))
for name, _ in ROUTES:
    text = outputs.get(name, "")
    found = sorted({"%s %r" % (c, s) for c, v, s in ALL if s in text})
    report(name in outputs and not found and "⟨" in text,
           "%s: its output reaches the model with placeholders and no value" % name,
           "\n".join(found[:20]) + "\n" + text[:3000])

system = text_of(requests[0]["body"]["messages"][0]["content"]) if requests else ""
found = sorted({"%s %r" % (c, s) for c, v, s in ALL if s in system})
report(not found and "⟨note " in system and "⟨name " in system,
       "the dataset summary shows the samples as placeholders (a multi-line note, a long string)",
       "\n".join(found) + "\n" + system[-3000:])

checks = [m for r in requests for m in r["body"].get("messages", [])
          if m.get("role") == "user" and "appear in no" in text_of(m.get("content"))]
found = sorted({"%s %r" % (c, s) for m in checks for c, v, s in ALL if s in text_of(m.get("content"))})
report(len(checks) >= 1 and not found and "⟨ref 2⟩" in text_of(checks[0].get("content")),
       "the number check's message names the masked reference by its placeholder",
       "\n".join(found) + "\n" + "\n".join(text_of(m.get("content")) for m in checks)[:2000])

# The analyst's record: every route printed values (so the check above could fail).
record = {}
session = os.path.join(run.workdir, "session", "session.json")
if os.path.exists(session):
    with open(session, encoding="utf-8") as f:
        record = json.load(f)


def output_text(cell):
    parts = []
    for output in cell.get("outputs", []):
        for key in ("text", "traceback", "evalue"):
            value = output.get(key)
            parts.append("".join(value) if isinstance(value, list) else (value or ""))
        for value in (output.get("data") or {}).values():
            parts.append("".join(value) if isinstance(value, list) else str(value))
    return "\n".join(parts)


cells = record.get("cells", [])
missing = []
for (name, _), cell in zip(ROUTES, cells):
    text = output_text(cell)
    shown = {c for c, v, s in ALL if s in text}
    if not shown:
        missing.append("%s printed no value:\n%s" % (name, text[:800]))
report(len(cells) == len(ROUTES) and not missing,
       "the analyst's record has the real values from every route",
       "\n".join(missing)[:4000] + "\ncells: %d" % len(cells))
answer = (run.json or {}).get("answer") or ""
report("0777124" in answer and "⟨" not in answer, "the analyst's answer has the real reference", answer)
finish()
