#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The bundle's statement check (src/core/sources/assay_sql_check.py) against Assay's own
(assay_sql_check_read_only, through tests/sql-check-verdicts.c), statement by statement,
in every dialect and MySQL sql_mode: the same verdict, and for an accepted statement the
same text sent. No database server.

The corpus: every statement of the C unit tests (tests/test-sources.c, with the verdict they
expect, which both must give); the spellings and writes of the server tests
(tests/sources/test_sources.py); variants of all of them (case, blanks, comments, a
trailing statement, parentheses, names quoted and in Unicode escapes); lexer edges; and
random statements made of SQL's tricky pieces (seeded).

    test_sql_check_port.py SQL_CHECK_VERDICTS PORT.py TEST_SOURCES.c TEST_SOURCES.py

Prints TAP."""
import ast
import importlib.util
import random
import re
import subprocess
import sys

VERDICTS, PORT, C_TESTS, PY_TESTS = sys.argv[1:5]

spec = importlib.util.spec_from_file_location("assay_sql_check", PORT)
port = importlib.util.module_from_spec(spec)
spec.loader.exec_module(port)

DIALECTS = ("postgresql", "mysql", "sqlite")
C_DIALECTS = {"ASSAY_SQL_POSTGRESQL": ("postgresql",), "ASSAY_SQL_MYSQL": ("mysql",),
              "ASSAY_SQL_SQLITE": ("sqlite",), "all[i]": DIALECTS}
# MySQL's sql_mode: (backslash escapes, "…" is a string), every combination.
MYSQL_MODES = ((True, True), (False, True), (True, False), (False, False))
number = 0
failed = 0


def report(ok, name, detail=""):
    global number, failed
    number += 1
    failed += not ok
    print("%s %d - %s" % ("ok" if ok else "not ok", number, name))
    if not ok and detail:
        for line in detail.splitlines()[:60]:
            print("# " + line)
    sys.stdout.flush()


def syntaxes(dialect):
    if dialect == "mysql":
        return [("mysql",) + mode for mode in MYSQL_MODES]
    return [(dialect, False, False)]


def c_unescape(literal):
    out = bytearray()
    raw = literal.encode("utf-8")
    i = 0
    while i < len(raw):
        if raw[i] == 0x5C:
            out += {b"n": b"\n", b"t": b"\t", b"\\": b"\\", b'"': b'"', b"'": b"'"}[raw[i + 1:i + 2]]
            i += 2
        else:
            out.append(raw[i])
            i += 1
    return bytes(out)


def c_cases():
    """(dialects, statement, accepted?) of every assert_accepted / assert_refused."""
    text = open(C_TESTS, encoding="utf-8").read()
    found = []
    for match in re.finditer(r'assert_(accepted|refused) \(([\w\[\]]+),\s*((?:"(?:[^"\\]|\\.)*"\s*)+),', text):
        literal = b"".join(c_unescape(piece) for piece in re.findall(r'"((?:[^"\\]|\\.)*)"', match.group(3)))
        found.append((C_DIALECTS[match.group(2)], literal, match.group(1) == "accepted"))
    return found


def py_cases():
    """(dialects, statement) of the server tests' spellings and writes."""
    tree = ast.parse(open(PY_TESTS, encoding="utf-8").read())
    labels = {"Postgres": ("postgresql",), "MariaDB": ("mysql",), "SQLite": ("sqlite",)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name in labels:
            for item in node.body:
                if isinstance(item, ast.Assign) and item.targets[0].id in ("spelled", "dialect_write",
                                                                         "sleep_sql", "no_locks"):
                    value = ast.literal_eval(item.value)
                    for sql in value if isinstance(value, list) else [value]:
                        if sql is not None:
                            found.append((labels[node.name], sql.encode()))
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in ("writes", "JOIN_SQL") and isinstance(node.value, (ast.List, ast.Constant)):
            items = node.value.elts if isinstance(node.value, ast.List) else [node.value]
            for item in items:
                pieces = item.elts if isinstance(item, ast.Tuple) else [item]
                for piece in pieces[-1:]:
                    if isinstance(piece, ast.Constant) and isinstance(piece.value, str):
                        found.append((DIALECTS, piece.value.encode()))
    return found


FUNCTION_CALL = re.compile(rb"([A-Za-z_][A-Za-z0-9_]*)(\s*\()")


def variants(sql):
    """SQL spelled otherwise: what the check must read through."""
    out = [sql.upper(), sql.lower(), sql.swapcase(), b"  \n\t" + sql + b" \n", sql + b";", sql + b" ; ;",
           sql + b"; DELETE FROM t", sql + b";\n-- done", b"(" + sql + b")",
           sql.replace(b" ", b"\n\t "), sql.replace(b" ", b" /* x */ "), sql.replace(b" ", b"/**/"),
           sql.replace(b" ", b" -- c\n"), sql.replace(b" ", b" # c\n"), b"/* lead */ " + sql,
           b"-- lead\n" + sql, b"# lead\n" + sql, sql + b" /* trail", sql + b" '", sql.replace(b"(", b" /*c*/ (")]
    for match in FUNCTION_CALL.finditer(sql):
        name, rest = match.group(1), match.group(2)
        head, tail = sql[:match.start()], sql[match.end():]
        escaped = b"".join(b"\\%04x" % c if i % 2 == 0 else bytes([c]) for i, c in enumerate(name))
        for spelled in (b'"' + name + b'"', b"`" + name + b"`", b"[" + name + b"]", b'"' + name.upper() + b'"',
                        b'U&"' + escaped + b'"', b'u&"\\+' + b"%06x" % name[0] + name[1:] + b'"',
                        b'U&"' + name + b'"', b"U & \"" + name + b'"', b"pg_catalog." + name,
                        b'"pg_catalog".' + name, b"mysql.`" + name + b"`", b"main." + name):
            out.append(head + spelled + rest + tail)
    return out


EDGES = [
    b"SELECT E'\\\\'' ; DROP'", b"SELECT e'\\''; DELETE FROM t", b"SELECT x'\\'; DELETE FROM t; --'",
    b"SELECT 'a\\\\'; DELETE FROM t", b'SELECT "a\\"; DELETE FROM t; "', b"SELECT 1 /* a /* b */ ; DELETE */",
    b"SELECT 5--3 FROM t", b"SELECT 5 --3\n; DELETE FROM t", b"SELECT 1 --\tx\n", b"SELECT 1 --", b"SELECT 1 #; DROP",
    b"SELECT $1, $$;$$", b"SELECT $a$ ; $b$ ; $a$", b"SELECT $a $ ; DELETE FROM t", b"SELECT a$b$c FROM t",
    b"SELECT $\xc3\xa9$;$\xc3\xa9$", b"SELECT $$", b"SELECT 1e+5, 1e-5, 1.e5, .5e+1-1, 0x1F, 1_000",
    b"SELECT @a := 1", b"SELECT @a:=1", b"SELECT @a : = 1", b"SELECT a::int FROM t", b"SELECT a :=1",
    b"SELECT NEXT VALUE FOR s", b"SELECT next value for s", b"SELECT next, value FROM t",
    b"SELECT * FROM t FOR KEY SHARE", b"SELECT * FROM t for no key update", b"SELECT * FROM t FOR UPDATE OF t",
    b"SELECT t.for, t.update FROM t", b"SELECT lock FROM t", b"SELECT lock(1)", b"SELECT t.lock FROM t",
    b"SELECT replace('a', 'b', 'c')", b"SELECT replace FROM t", b"SELECT t.into FROM t", b"SELECT 1 INTO @x",
    b"SELECT * FROM t PROCEDURE ANALYSE()", b"SELECT t.procedure FROM t", b"SELECT insert('abc', 1, 1, 'x')",
    b"SELECT insert FROM t", b"SELECT uescape FROM t", b"SELECT U&\"\\0061\" UESCAPE '!' FROM t",
    b"SELECT U&\"\\\\pg_read_file\"(1)", b"SELECT U&\"\\0000\"(1)", b"SELECT U&\"\\D800\"(1)",
    b"SELECT U&\"\\+110000\"(1)", b"SELECT U&\"\\+00007\"(1)", b"SELECT U&\"\\007\"(1)", b"SELECT U&\"\\00\"(1)",
    b"SELECT U&\"\\+0000700g_sleep\"(1)", b"SELECT U&\"ab\"\"c\"(1)", b"SELECT U&'\\0070'(1)",
    b"SELECT \"pg_read_file\"\"\"(1)", b"SELECT \"\"(1)", b"SELECT [a]]b](1)", b"SELECT [](1)",
    b"SELECT `load``file`(1)", b"SELECT `` (1)", b"SELECT pg_advisory_" + b"x" * 70 + b"(1)",
    b"SELECT " + b"x" * 63 + b"(1)", b"SELECT dblink" + b"\xc3\xa9" * 40 + b"(1)",
    b"SELECT \xc3\xa9t\xc3\xa9 FROM t", b"SELECT \xff FROM t", b"SELECT '\xc3' FROM t", b"SELECT \xed\xa0\x80",
    b"SELECT 1 /*! DELETE */", b"SELECT 1 /*M!1 x */", b"SELECT 1 /*m! x */", b"SELECT 1 /* ! */",
    b"SELECT 1 /*+ hint */", b"SELECT 1 /**/", b"SELECT 1 */", b"SELECT 1 /", b"SELECT 1 -", b"/* x */",
    b";", b";;", b"; SELECT 1", b"SELECT 1;;;", b"SELECT 1;  ;  -- x\n;", b"((SELECT 1))", b"(( ", b"()",
    b"(DELETE FROM t)", b"TABLE t", b"table t", b"VALUES (1)", b"values(1)", b"WITH RECURSIVE a AS (SELECT 1) SELECT 1",
    b"SHOW TABLES", b"EXPLAIN SELECT 1", b"DESCRIBE t", b"START TRANSACTION", b"XA START 'x'", b"RESET ALL",
    b"UNLOCK TABLES", b"INSTALL PLUGIN x", b"SECURITY LABEL ON t IS 'x'", b"IMPORT FOREIGN SCHEMA x",
    b"1", b"'x'", b"\"SELECT\" 1", b"`SELECT` 1", b"[SELECT] 1", b"SELECT\x0b1\x0c", b"SELECT\x001",
    b"SELECT pg_sleep(1), pg_catalog.set_config('a', 'b', true)", b"SELECT set_config FROM t",
    b"SELECT pg_catalog.set_config FROM t", b"SELECT t.pg_read_file(1) FROM t", b"SELECT x.\"lo_export\"(1)",
    b"SELECT pg_ls_dir('.')", b"SELECT pg_stat_reset()", b"SELECT pg_stat_reset_shared('x')",
    b"SELECT pg_stat_activity FROM t", b"SELECT GET_LOCK('a', 1)", b"SELECT is_free_lock('a')",
    b"SELECT readfile('x')", b"SELECT fts3_tokenizer('x')", b"SELECT edit('x')", b"SELECT nextval('s')",
    b"SELECT setval('s', 1)", b"SELECT * FROM t WHERE a = 'it''s'; ", b"SELECT 'a''; DELETE FROM t; --'",
    b"SELECT \"a\"\"; DELETE FROM t; --\"", b"SELECT `a``; DELETE FROM t; --`", b"SELECT [a; DELETE FROM t; --]",
]

PIECES = [b"SELECT ", b"select", b" ", b" ", b"\n", b"'", b'"', b"`", b"[", b"]", b"$", b"$a$", b"$$", b"--", b"-",
          b"#", b"/*", b"*/", b"/*!", b"!", b"M", b";", b"(", b")", b".", b",", b"E", b"e", b"U", b"&", b"\\",
          b"+", b"0070", b"00", b"pg_advisory_lock", b"get_lock", b"load_extension", b"pg_catalog", b"FOR",
          b"UPDATE", b"SHARE", b"INTO", b"DELETE", b"LOCK", b"REPLACE", b":", b"=", b"1", b"1e", b"x", b"t",
          b"\xc3\xa9", b"UESCAPE", b"WITH", b"VALUES", b"TABLE", b"NEXT", b"VALUE", b"PROCEDURE", b"FROM",
          b"dblink", b"set_config", b"insert", b"@a"]


def fuzz(seed, count):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        head = rng.choice([b"SELECT ", b"SELECT ", b"(SELECT ", b"WITH a AS (SELECT ", b"VALUES (", b"TABLE ", b""])
        out.append(head + b"".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14))))
    return out


def ask_c(jobs):
    lines = "".join("%s %d %d %s\n" % (d, b, q, sql.hex()) for (d, b, q), sql in jobs)
    done = subprocess.run([VERDICTS], input=lines.encode(), capture_output=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit("Bail out! sql-check-verdicts failed: " + done.stderr.decode("utf-8", "replace"))
    verdicts = []
    for line in done.stdout.decode("utf-8", "replace").split("\n")[:-1]:
        word, _, rest = line.partition(" ")
        verdicts.append((True, bytes.fromhex(rest)) if word == "accept" else (False, rest))
    if len(verdicts) != len(jobs):
        raise SystemExit("Bail out! %d verdicts for %d statements" % (len(verdicts), len(jobs)))
    return verdicts


def ask_python(syntax, sql):
    try:
        return True, port.check_read_only(sql, *syntax).encode("utf-8")
    except port.Refused as exc:
        return False, str(exc)


def compare(name, cases):
    """CASES: (dialects, statement); every dialect and MySQL mode, C against Python."""
    jobs = [(syntax, sql) for dialects, sql in cases for dialect in dialects for syntax in syntaxes(dialect)
            if b"\0" not in sql]   # a C string ends at its first NUL: the port refuses it
    verdicts = ask_c(jobs)
    differ = []
    accepted = 0
    for (syntax, sql), (c_ok, c_what) in zip(jobs, verdicts):
        py_ok, py_what = ask_python(syntax, sql)
        accepted += c_ok
        if c_ok != py_ok or (c_ok and c_what != py_what):
            differ.append("%s %r\n  C: %s %r\n  Python: %s %r" % (syntax, sql, "accept" if c_ok else "refuse",
                                                                c_what, "accept" if py_ok else "refuse", py_what))
    report(not differ and len(jobs) > 0,
           "%s: the same verdict and statement in C and Python (%d checks, %d accepted, %d refused)"
           % (name, len(jobs), accepted, len(jobs) - accepted), "\n".join(differ[:20]))
    return jobs


units = c_cases()
report(len(units) >= 80, "the C unit tests' statements read (%d)" % len(units))
wrong = ["%s %r: expected %s" % (syntax, sql, "accept" if expected else "refuse")
         for dialects, sql, expected in units for dialect in dialects
         for syntax in syntaxes(dialect)[:1] if ask_python(syntax, sql)[0] != expected]
report(not wrong, "the port gives the verdict the C unit tests expect of Assay's check", "\n".join(wrong))
compare("the C unit tests", [(d, sql) for d, sql, _ in units])
servers = py_cases()
report(len(servers) >= 15, "the server tests' spellings and writes read (%d)" % len(servers))
compare("the server tests' spellings and writes", servers)
base = [(d, sql) for d, sql, _ in units] + servers + [(DIALECTS, sql) for sql in EDGES]
compare("lexer edges", [(DIALECTS, sql) for sql in EDGES])
compare("variants (case, blanks, comments, a second statement, quoted and escaped names)",
        [(DIALECTS, variant) for _, sql in base for variant in variants(sql)])
compare("random statements of SQL's tricky pieces", [(DIALECTS, sql) for sql in fuzz(33, 4000)])

# The port refuses what the C check never sees: text a C string cannot carry.
refused = [sql for sql in ("SELECT 1\0; DELETE FROM t", "SELECT '\ud800'")
           if ask_python(("postgresql", False, False), sql)[0]]
report(not refused, "the port refuses a NUL byte and text that is not UTF-8", repr(refused))

print("1..%d" % number)
sys.exit(1 if failed else 0)
