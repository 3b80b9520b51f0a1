# SPDX-License-Identifier: GPL-3.0-or-later
"""The statement check of Assay's run_sql (src/core/sources/assay-sql-check.c), in Python.

A reproducible bundle ships this file beside analysis.py, which applies it to each SQL
cell's statement before it asks a database again (--requery, --db): SQL that Assay would
never have sent (a session.json edited by someone, a bundle built from one) is refused
before the database sees it. The rules are the C code's, token for token: change both
(tests/test-sql-check-port.py runs them side by side). Standard library only.

    check_read_only(sql, dialect, backslash_escapes=None, double_quoted_strings=None)

returns the statement without its ";" and what follows it, or raises Refused saying why.
DIALECT is "postgresql", "mysql" (MySQL and MariaDB) or "sqlite"; for MySQL the two flags
come from the server's sql_mode (syntax_of_sql_mode), by default as the server runs."""

POSTGRESQL = "postgresql"
MYSQL = "mysql"
SQLITE = "sqlite"

MAX_SQL_BYTES = 1024 * 1024

WORD, QUOTED, STRING, DOLLAR, NUMBER, SYMBOL, SEMICOLON, LINE_COMMENT, BLOCK_COMMENT = range(9)

SPACE = b" \t\n\v\f\r"
DIGITS = b"0123456789"
HEX = b"0123456789abcdefABCDEF"
LETTERS = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Refused(Exception):
    """A statement that is not one query that only reads."""


class Token:
    __slots__ = ("kind", "start", "end", "quote", "escapes", "tag")

    def __init__(self, kind, start, end, quote=0, escapes=False, tag=0):
        self.kind = kind
        self.start = start
        self.end = end
        self.quote = quote
        self.escapes = escapes
        self.tag = tag


def syntax_of_sql_mode(sql_mode):
    """MySQL's (backslash_escapes, double_quoted_strings) under SQL_MODE, as Assay reads them."""
    if isinstance(sql_mode, bytes):
        sql_mode = sql_mode.decode("utf-8", "replace")
    if sql_mode is None:
        return True, True
    return "NO_BACKSLASH_ESCAPES" not in sql_mode, "ANSI_QUOTES" not in sql_mode


def _is_alnum(c):
    return c in LETTERS or c in DIGITS


def _is_identifier_start(c):
    return c in LETTERS or c == 0x5F or c >= 0x80


def _is_identifier_char(c):
    return _is_alnum(c) or c == 0x5F or c == 0x24 or c >= 0x80


def _scan_quoted(s, start, quote, escapes):
    """The end of a quoted run that began at START (the opening QUOTE), or 0 when unterminated.
    A doubled QUOTE stands for one; with ESCAPES a backslash takes the next byte."""
    n = len(s)
    i = start + 1
    while i < n:
        if escapes and s[i] == 0x5C:
            i += 2
            continue
        if s[i] == quote:
            if i + 1 < n and s[i + 1] == quote:
                i += 2
                continue
            return i + 1
        i += 1
    return 0


def _scan_dollar_tag(s, start):
    """The length of a dollar quote's tag at START ("$" to "$"), or 0."""
    n = len(s)
    i = start + 1
    if i < n and s[i] == 0x24:
        return 2
    if i >= n or not _is_identifier_start(s[i]):
        return 0
    i += 1
    while i < n and (_is_alnum(s[i]) or s[i] == 0x5F or s[i] >= 0x80):
        i += 1
    if i < n and s[i] == 0x24:
        return i + 1 - start
    return 0


def _line_end(s, i):
    newline = s.find(b"\n", i)
    return newline if newline >= 0 else len(s)


def _lex(s, dialect, backslash_escapes, double_quoted_strings):
    n = len(s)
    tokens = []
    i = 0
    while i < n:
        c = s[i]
        token = Token(SYMBOL, i, i + 1)
        if c in SPACE:
            i += 1
            continue
        if c == 0x2D and i + 1 < n and s[i + 1] == 0x2D and \
                (dialect != MYSQL or i + 2 >= n or s[i + 2] <= 0x20):
            token.kind = LINE_COMMENT
            token.end = _line_end(s, i)
        elif c == 0x23 and dialect == MYSQL:
            token.kind = LINE_COMMENT
            token.end = _line_end(s, i)
        elif c == 0x2F and i + 1 < n and s[i + 1] == 0x2A:
            depth = 1
            j = i + 2
            # MySQL and MariaDB run what the executable comments (slash-star-bang) hold.
            if dialect == MYSQL and ((j < n and s[j] == 0x21) or
                                     (j + 1 < n and s[j] == 0x4D and s[j + 1] == 0x21)):
                raise Refused("Executable comments (/*! … */) are refused: write the SQL itself.")
            while j < n and depth > 0:
                if s[j] == 0x2A and j + 1 < n and s[j + 1] == 0x2F:
                    depth -= 1
                    j += 2
                elif dialect == POSTGRESQL and s[j] == 0x2F and j + 1 < n and s[j + 1] == 0x2A:
                    depth += 1
                    j += 2
                else:
                    j += 1
            if depth > 0:
                raise Refused("The SQL has a /* comment that is never closed.")
            token.kind = BLOCK_COMMENT
            token.end = j
        elif c == 0x27 or (c == 0x22 and dialect == MYSQL and double_quoted_strings):
            escapes = False
            if dialect == MYSQL:
                escapes = backslash_escapes
            elif dialect == POSTGRESQL and tokens:
                # E'…' (right after the E): C-style escapes.
                last = tokens[-1]
                escapes = (last.kind == WORD and last.end == i and last.end - last.start == 1
                           and s[last.start] in b"Ee")
            token.kind = STRING
            token.quote = c
            token.escapes = escapes
            token.end = _scan_quoted(s, i, c, escapes)
            if token.end == 0:
                raise Refused("The SQL has a string (%s…) that is never closed." % chr(c))
        elif c == 0x22 or (c == 0x60 and dialect != POSTGRESQL):
            token.kind = QUOTED
            token.quote = c
            token.end = _scan_quoted(s, i, c, False)
            if token.end == 0:
                raise Refused("The SQL has a quoted name (%s…) that is never closed." % chr(c))
        elif c == 0x5B and dialect == SQLITE:
            close = s.find(b"]", i)
            if close < 0:
                raise Refused("The SQL has a [name] that is never closed.")
            token.kind = QUOTED
            token.quote = c
            token.end = close + 1
        elif c == 0x24 and dialect == POSTGRESQL and _scan_dollar_tag(s, i) > 0:
            tag = _scan_dollar_tag(s, i)
            close = s.find(s[i:i + tag], i + tag)
            if close < 0:
                raise Refused("The SQL has a dollar-quoted string (%s…) that is never closed."
                              % s[i:i + tag].decode("utf-8", "replace"))
            token.kind = DOLLAR
            token.tag = tag
            token.end = close + tag
        elif c in DIGITS or (c == 0x2E and i + 1 < n and s[i + 1] in DIGITS):
            j = i + 1
            while j < n and (_is_alnum(s[j]) or s[j] == 0x2E or s[j] == 0x5F or
                             (s[j] in b"+-" and s[j - 1] in b"eE")):
                j += 1
            token.kind = NUMBER
            token.end = j
        elif _is_identifier_start(c):
            j = i + 1
            while j < n and _is_identifier_char(s[j]):
                j += 1
            token.kind = WORD
            token.end = j
        elif c == 0x3B:
            token.kind = SEMICOLON
        tokens.append(token)
        i = token.end
    return tokens


def _word(s, token):
    """The word of TOKEN upper-cased (at most 63 bytes), or "" for another token."""
    if token is None or token.kind != WORD:
        return ""
    return s[token.start:token.start + min(token.end - token.start, 63)].upper().decode("latin-1")


def _name(s, code, index):
    """(NAME, UNREADABLE): a name as the server reads it, upper-cased (at most 63 bytes): a word;
    a quoted identifier without its quotes; PostgreSQL's U&"…" with its \\XXXX and \\+XXXXXX
    escapes read. NAME is None for any other token, or a U&"…" whose escapes cannot be read
    (then UNREADABLE)."""
    token = code[index]
    if token.kind == WORD:
        return _word(s, token), False
    if token.kind != QUOTED:
        return None, False

    # U&"…": the word U and "&" right before it, no space between.
    unicode = False
    if token.quote == 0x22 and index >= 2:
        amp = code[index - 1]
        u = code[index - 2]
        unicode = (amp.kind == SYMBOL and s[amp.start] == 0x26 and amp.end == token.start
                   and u.kind == WORD and u.end == amp.start and u.end - u.start == 1
                   and s[u.start] in b"Uu")

    text = bytearray()
    close = 0x5D if token.quote == 0x5B else token.quote
    i = token.start + 1
    while i + 1 < token.end:
        if s[i] == close and token.quote != 0x5B and i + 2 < token.end and s[i + 1] == close:
            text.append(close)
            i += 2
        elif unicode and s[i] == 0x5C:
            plus = s[i + 1] == 0x2B
            digits = 6 if plus else 4
            start = i + 2 if plus else i + 1
            if s[i + 1] == 0x5C:
                text.append(0x5C)
                i += 2
                continue
            if start + digits >= token.end:
                return None, True
            value = 0
            for d in range(digits):
                if s[start + d] not in HEX:
                    return None, True
                value = value * 16 + int(chr(s[start + d]), 16)
            if value == 0 or value >= 0x110000 or (value & 0xFFFFF800) == 0xD800:
                return None, True
            text += chr(value).encode("utf-8")
            i = start + digits
        else:
            text.append(s[i])
            i += 1
    return bytes(text[:63]).upper().decode("latin-1"), False


def _is_symbol(s, token, symbol):
    return token is not None and token.kind == SYMBOL and s[token.start] == ord(symbol)


# Functions that change settings, write, read or list server files, take locks, signal
# other sessions, advance sequences or reach other servers; and prefixes of such names.
POSTGRESQL_FUNCTIONS = frozenset((
    "SET_CONFIG", "LO_IMPORT", "LO_EXPORT", "LO_UNLINK", "LO_CREATE", "LO_CREAT", "LO_OPEN",
    "LO_PUT", "LO_FROM_BYTEA", "LO_TRUNCATE", "LO_TRUNCATE64", "LOWRITE",
    "PG_READ_FILE", "PG_READ_BINARY_FILE", "PG_STAT_FILE", "PG_FILE_WRITE", "PG_FILE_RENAME",
    "PG_FILE_UNLINK", "PG_FILE_SYNC", "PG_LOGDIR_LS",
    "PG_TERMINATE_BACKEND", "PG_CANCEL_BACKEND", "PG_RELOAD_CONF", "PG_ROTATE_LOGFILE",
    "PG_PROMOTE", "PG_SWITCH_WAL", "PG_CREATE_RESTORE_POINT", "PG_START_BACKUP", "PG_STOP_BACKUP",
    "PG_BACKUP_START", "PG_BACKUP_STOP", "PG_NOTIFY", "PG_IMPORT_SYSTEM_COLLATIONS",
    "PG_LOG_BACKEND_MEMORY_CONTEXTS", "NEXTVAL", "SETVAL", "TXID_CURRENT", "PG_CURRENT_XACT_ID",
    "QUERY_TO_XML", "QUERY_TO_XMLSCHEMA", "QUERY_TO_XML_AND_XMLSCHEMA", "CURSOR_TO_XML",
    "CURSOR_TO_XMLSCHEMA", "PG_PREWARM",
))
POSTGRESQL_FUNCTION_PREFIXES = (
    "DBLINK", "PG_LS_", "PG_ADVISORY_", "PG_TRY_ADVISORY_", "PG_CREATE_", "PG_DROP_",
    "PG_REPLICATION_", "PG_LOGICAL_", "PG_STAT_RESET", "PG_WAL_REPLAY_", "PG_COPY_",
)
MYSQL_FUNCTIONS = frozenset((
    "LOAD_FILE", "GET_LOCK", "RELEASE_LOCK", "RELEASE_ALL_LOCKS", "MASTER_POS_WAIT",
    "SOURCE_POS_WAIT", "MASTER_GTID_WAIT", "SYS_EXEC", "SYS_EVAL", "NEXTVAL", "SETVAL",
))
SQLITE_FUNCTIONS = frozenset((
    "LOAD_EXTENSION", "READFILE", "WRITEFILE", "EDIT", "FTS3_TOKENIZER",
))

TRANSACTION_WORDS = frozenset((
    "BEGIN", "START", "COMMIT", "ROLLBACK", "END", "ABORT", "SAVEPOINT", "RELEASE", "XA",
))
WRITE_WORDS = frozenset((
    "INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT", "REPLACE", "CREATE", "DROP", "ALTER",
    "TRUNCATE", "GRANT", "REVOKE", "RENAME", "COMMENT", "REINDEX", "VACUUM", "CLUSTER",
    "REFRESH", "ANALYZE", "OPTIMIZE", "REPAIR", "IMPORT", "SECURITY",
))


def _refusal_for_first_word(word):
    """Why the statements people try instead of a query are refused, or None."""
    if word in TRANSACTION_WORDS:
        return "Transaction control (BEGIN, COMMIT, ROLLBACK, SET TRANSACTION, …) is refused."
    if word in ("SET", "RESET"):
        return "SET and RESET are refused: the session's settings are not the query's to change."
    if word == "COPY":
        return "COPY is refused: it reads and writes files and programs."
    if word in ("DO", "CALL", "EXECUTE", "PREPARE", "DEALLOCATE", "HANDLER"):
        return "Running procedures and code blocks (DO, CALL, EXECUTE, PREPARE) is refused: one SELECT only."
    if word in ("LOAD", "ATTACH", "DETACH", "PRAGMA", "INSTALL", "UNINSTALL"):
        return "LOAD, ATTACH, DETACH and PRAGMA are refused: the query reads the database it was given."
    if word in ("LOCK", "UNLOCK"):
        return "Locking tables is refused: the query only reads."
    if word in WRITE_WORDS:
        return "Writes and schema changes are refused: the query only reads (one SELECT, WITH … SELECT or VALUES)."
    return None


def check_read_only(sql, dialect, backslash_escapes=None, double_quoted_strings=None):
    """SQL (str or UTF-8 bytes) checked as assay_sql_check_read_only does: one statement that
    only reads. Returns the statement without its ";" and what follows; raises Refused."""
    if dialect not in (POSTGRESQL, MYSQL, SQLITE):
        raise ValueError("unknown SQL dialect %r" % (dialect,))
    if backslash_escapes is None:
        backslash_escapes = dialect == MYSQL
    if double_quoted_strings is None:
        double_quoted_strings = dialect == MYSQL
    if isinstance(sql, str):
        try:
            s = sql.encode("utf-8")
        except UnicodeEncodeError:
            raise Refused("The SQL is not valid UTF-8.") from None
    else:
        s = bytes(sql)
    if len(s) > MAX_SQL_BYTES:
        raise Refused("The SQL is longer than %d bytes." % MAX_SQL_BYTES)
    try:
        s.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("The SQL is not valid UTF-8.") from None
    if b"\0" in s:
        raise Refused("The SQL holds a NUL byte.")
    code = [t for t in _lex(s, dialect, backslash_escapes, double_quoted_strings)
            if t.kind not in (LINE_COMMENT, BLOCK_COMMENT)]

    # One statement: at most one ";", and only at the end.
    end = next((i for i, t in enumerate(code) if t.kind == SEMICOLON), len(code))
    if any(t.kind != SEMICOLON for t in code[end + 1:]):
        raise Refused("The SQL holds more than one statement: exactly one query is run.")
    if end == 0:
        raise Refused("The SQL is empty.")

    # A query: SELECT, WITH … SELECT, VALUES, TABLE (PostgreSQL), maybe in parentheses.
    first = ""
    for token in code[:end]:
        if _is_symbol(s, token, "("):
            continue
        first = _word(s, token)
        break
    if not (first in ("SELECT", "WITH", "VALUES") or (first == "TABLE" and dialect == POSTGRESQL)):
        why = _refusal_for_first_word(first)
        if why is not None:
            raise Refused(why)
        if first:
            raise Refused("%s statements are refused: only one query that reads is run "
                          "(SELECT, WITH … SELECT or VALUES)." % first)
        raise Refused("The SQL does not start with a query (SELECT, WITH … SELECT or VALUES).")

    if dialect == POSTGRESQL:
        functions, prefixes = POSTGRESQL_FUNCTIONS, POSTGRESQL_FUNCTION_PREFIXES
    elif dialect == MYSQL:
        functions, prefixes = MYSQL_FUNCTIONS, ()
    else:
        functions, prefixes = SQLITE_FUNCTIONS, ()

    for i in range(end):
        token = code[i]
        previous = code[i - 1] if i > 0 else None
        following = code[i + 1] if i + 1 < end else None
        called = _is_symbol(s, following, "(")
        qualified = _is_symbol(s, previous, ".")

        # MySQL's user variables: @a := … assigns.
        if dialect == MYSQL and _is_symbol(s, token, ":") and _is_symbol(s, following, "=") \
                and following.start == token.end:
            raise Refused("Assigning variables (:=) is refused: the query only reads.")
        # A function is known by its name however it is written: quoted, in Unicode escapes,
        # after its schema.
        if called:
            name, unreadable = _name(s, code, i)
            if name is not None and (name in functions or name.startswith(prefixes)):
                raise Refused("The function %s() is refused: it changes settings, writes, reads server "
                              "files, takes locks or reaches another server." % name.lower())
            if unreadable:
                raise Refused("A name in U&\"…\" escapes that cannot be read is refused.")
        if token.kind != WORD or qualified:
            continue
        word = _word(s, token)
        next_word = _word(s, following)

        if dialect == POSTGRESQL and word == "UESCAPE":
            raise Refused("UESCAPE is refused: write names and strings plainly.")
        if word == "FOR" and next_word in ("UPDATE", "SHARE", "NO", "KEY"):
            raise Refused("Locking clauses (FOR UPDATE, FOR SHARE, …) are refused: the query takes no locks.")
        if word == "LOCK" and not called:
            raise Refused("Locking clauses (LOCK IN SHARE MODE, …) are refused: the query takes no locks.")
        if (word in ("INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT")
                or (word == "REPLACE" and dialect != POSTGRESQL)) and not called:
            raise Refused("Writes are refused (%s): the query only reads; data-modifying WITH clauses "
                          "are writes too." % word)
        if word == "INTO":
            raise Refused("SELECT … INTO is refused: it writes (a new table, a file or variables).")
        if word == "PROCEDURE" and dialect == MYSQL:
            raise Refused("SELECT … PROCEDURE is refused.")
        if dialect == MYSQL and word == "NEXT" and next_word == "VALUE":
            raise Refused("NEXT VALUE FOR advances a sequence, which writes: refused.")

    return s[code[0].start:code[end - 1].end].decode("utf-8")
