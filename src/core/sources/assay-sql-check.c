/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The statement check of run_sql. A lexer that reads SQL the way each server does (quotes
 * and their escapes, nested comments in PostgreSQL, dollar quoting, MySQL's executable
 * comments), then rules over the tokens outside quotes and comments: one statement, a
 * query as its first word, no word that writes, locks or reaches outside the database.
 *
 * The check is the first of two walls: the query also runs in a read-only transaction with
 * a statement timeout. The check refuses early, in words the model can act on, and closes
 * what a read-only transaction lets through (settings, locks, server files, other
 * servers). Its errors are for the model and never translated.
 *
 * assay_sql_check.py beside this file is the same check in Python, for the bundle's
 * analysis.py: change both (test-sql-check-port compares them statement by statement). */
#define G_LOG_DOMAIN "Assay-Sources"

#include "config.h"

#include <string.h>

#include "assay-source-types.h"
#include "assay-sql-check.h"

#define MAX_SQL_BYTES (1024 * 1024)

typedef enum
{
  TOKEN_WORD,
  TOKEN_QUOTED,          /* a quoted identifier */
  TOKEN_STRING,
  TOKEN_DOLLAR,          /* PostgreSQL's $tag$…$tag$ */
  TOKEN_NUMBER,
  TOKEN_SYMBOL,
  TOKEN_SEMICOLON,
  TOKEN_LINE_COMMENT,
  TOKEN_BLOCK_COMMENT,
} TokenKind;

typedef struct
{
  TokenKind kind;
  gsize     start;
  gsize     end;
  char      quote;       /* of a string or a quoted identifier */
  gboolean  escapes;     /* a string where a backslash escapes */
  gsize     tag;         /* a dollar quote's tag length, "$" to "$" */
} Token;

void
assay_sql_syntax_init (AssaySqlSyntax  *syntax,
                       AssaySqlDialect  dialect)
{
  syntax->dialect = dialect;
  syntax->backslash_escapes = dialect == ASSAY_SQL_MYSQL;
  syntax->double_quoted_strings = dialect == ASSAY_SQL_MYSQL;
}

static gboolean
is_identifier_start (guchar c)
{
  return g_ascii_isalpha (c) || c == '_' || c >= 0x80;
}

static gboolean
is_identifier_char (guchar c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '$' || c >= 0x80;
}

static void
refuse (GError     **error,
        const char  *format,
        ...) G_GNUC_PRINTF (2, 3);

static void
refuse (GError     **error,
        const char  *format,
        ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, ASSAY_SOURCE_ERROR, ASSAY_SOURCE_ERROR_REFUSED, message);
}

/* The end of a quoted run that began at START (the opening QUOTE), or 0 when unterminated.
 * A doubled QUOTE stands for one; with ESCAPES a backslash takes the next byte. */
static gsize
scan_quoted (const char *sql,
             gsize       length,
             gsize       start,
             char        quote,
             gboolean    escapes)
{
  for (gsize i = start + 1; i < length; i++)
    {
      if (escapes && sql[i] == '\\')
        {
          i++;
          continue;
        }
      if (sql[i] == quote)
        {
          if (i + 1 < length && sql[i + 1] == quote)
            {
              i++;
              continue;
            }
          return i + 1;
        }
    }
  return 0;
}

/* The tag of a dollar quote at START ("$" or "$tag$"), its length, or 0. */
static gsize
scan_dollar_tag (const char *sql,
                 gsize       length,
                 gsize       start)
{
  gsize i = start + 1;

  if (i < length && sql[i] == '$')
    return 2;
  if (i >= length || !is_identifier_start ((guchar) sql[i]))
    return 0;
  for (i++; i < length && (g_ascii_isalnum (sql[i]) || sql[i] == '_' || (guchar) sql[i] >= 0x80); i++)
    ;
  if (i < length && sql[i] == '$')
    return i + 1 - start;
  return 0;
}

static gboolean
lex (const char            *sql,
     gsize                  length,
     const AssaySqlSyntax  *syntax,
     GArray                *tokens,
     GError               **error)
{
  AssaySqlDialect dialect = syntax->dialect;
  gsize i = 0;

  while (i < length)
    {
      guchar c = (guchar) sql[i];
      Token token = { TOKEN_SYMBOL, i, i + 1, 0, FALSE, 0 };

      if (g_ascii_isspace (c))
        {
          i++;
          continue;
        }

      if (c == '-' && i + 1 < length && sql[i + 1] == '-' &&
          (dialect != ASSAY_SQL_MYSQL || i + 2 >= length || (guchar) sql[i + 2] <= ' '))
        {
          const char *newline = memchr (sql + i, '\n', length - i);

          token.kind = TOKEN_LINE_COMMENT;
          token.end = newline != NULL ? (gsize) (newline - sql) : length;
        }
      else if (c == '#' && dialect == ASSAY_SQL_MYSQL)
        {
          const char *newline = memchr (sql + i, '\n', length - i);

          token.kind = TOKEN_LINE_COMMENT;
          token.end = newline != NULL ? (gsize) (newline - sql) : length;
        }
      else if (c == '/' && i + 1 < length && sql[i + 1] == '*')
        {
          guint depth = 1;
          gsize j = i + 2;

          /* MySQL and MariaDB run what the executable comments (slash-star-bang) hold. */
          if (dialect == ASSAY_SQL_MYSQL &&
              (( j < length && sql[j] == '!') || (j + 1 < length && sql[j] == 'M' && sql[j + 1] == '!')))
            {
              refuse (error, "Executable comments (/*! … */) are refused: write the SQL itself.");
              return FALSE;
            }
          while (j < length && depth > 0)
            {
              if (sql[j] == '*' && j + 1 < length && sql[j + 1] == '/')
                {
                  depth--;
                  j += 2;
                }
              else if (dialect == ASSAY_SQL_POSTGRESQL && sql[j] == '/' && j + 1 < length && sql[j + 1] == '*')
                {
                  depth++;
                  j += 2;
                }
              else
                j++;
            }
          if (depth > 0)
            {
              refuse (error, "The SQL has a /* comment that is never closed.");
              return FALSE;
            }
          token.kind = TOKEN_BLOCK_COMMENT;
          token.end = j;
        }
      else if (c == '\'' ||
               (c == '"' && dialect == ASSAY_SQL_MYSQL && syntax->double_quoted_strings))
        {
          gboolean escapes = FALSE;

          if (dialect == ASSAY_SQL_MYSQL)
            escapes = syntax->backslash_escapes;
          else if (dialect == ASSAY_SQL_POSTGRESQL && tokens->len > 0)
            {
              /* E'…' (right after the E): C-style escapes. */
              const Token *last = &g_array_index (tokens, Token, tokens->len - 1);

              escapes = last->kind == TOKEN_WORD && last->end == i && last->end - last->start == 1 &&
                        (sql[last->start] == 'E' || sql[last->start] == 'e');
            }
          token.kind = TOKEN_STRING;
          token.quote = (char) c;
          token.escapes = escapes;
          token.end = scan_quoted (sql, length, i, (char) c, escapes);
          if (token.end == 0)
            {
              refuse (error, "The SQL has a string (%c…) that is never closed.", c);
              return FALSE;
            }
        }
      else if (c == '"' || (c == '`' && dialect != ASSAY_SQL_POSTGRESQL))
        {
          token.kind = TOKEN_QUOTED;
          token.quote = (char) c;
          token.end = scan_quoted (sql, length, i, (char) c, FALSE);
          if (token.end == 0)
            {
              refuse (error, "The SQL has a quoted name (%c…) that is never closed.", c);
              return FALSE;
            }
        }
      else if (c == '[' && dialect == ASSAY_SQL_SQLITE)
        {
          const char *close = memchr (sql + i, ']', length - i);

          if (close == NULL)
            {
              refuse (error, "The SQL has a [name] that is never closed.");
              return FALSE;
            }
          token.kind = TOKEN_QUOTED;
          token.quote = '[';
          token.end = close - sql + 1;
        }
      else if (c == '$' && dialect == ASSAY_SQL_POSTGRESQL && scan_dollar_tag (sql, length, i) > 0)
        {
          gsize tag = scan_dollar_tag (sql, length, i);
          const char *close = NULL;

          for (gsize j = i + tag; j + tag <= length; j++)
            if (sql[j] == '$' && memcmp (sql + j, sql + i, tag) == 0)
              {
                close = sql + j;
                break;
              }
          if (close == NULL)
            {
              refuse (error, "The SQL has a dollar-quoted string (%.*s…) that is never closed.", (int) tag, sql + i);
              return FALSE;
            }
          token.kind = TOKEN_DOLLAR;
          token.tag = tag;
          token.end = close - sql + tag;
        }
      else if (g_ascii_isdigit (c) || (c == '.' && i + 1 < length && g_ascii_isdigit (sql[i + 1])))
        {
          gsize j = i + 1;

          while (j < length && (g_ascii_isalnum (sql[j]) || sql[j] == '.' || sql[j] == '_' ||
                                ((sql[j] == '+' || sql[j] == '-') && (sql[j - 1] == 'e' || sql[j - 1] == 'E'))))
            j++;
          token.kind = TOKEN_NUMBER;
          token.end = j;
        }
      else if (is_identifier_start (c))
        {
          gsize j = i + 1;

          while (j < length && is_identifier_char ((guchar) sql[j]))
            j++;
          token.kind = TOKEN_WORD;
          token.end = j;
        }
      else if (c == ';')
        token.kind = TOKEN_SEMICOLON;

      g_array_append_val (tokens, token);
      i = token.end;
    }
  return TRUE;
}

static gboolean
token_is_code (const Token *token)
{
  return token->kind != TOKEN_LINE_COMMENT && token->kind != TOKEN_BLOCK_COMMENT;
}

/* The word of TOKEN upper-cased (at most 63 bytes), or "" for another token. */
static void
token_word (const char  *sql,
            const Token *token,
            char         word[64])
{
  gsize n = token->kind == TOKEN_WORD ? MIN (token->end - token->start, 63) : 0;

  for (gsize i = 0; i < n; i++)
    word[i] = g_ascii_toupper (sql[token->start + i]);
  word[n] = '\0';
}

/* A name as the server reads it, upper-cased (at most 63 bytes): a word; a quoted identifier
 * without its quotes ("a""b", `a``b`, [a]); PostgreSQL's U&"…" with its \XXXX and \+XXXXXX
 * escapes read. FALSE for any other token, or a U&"…" whose escapes cannot be read (then
 * *UNREADABLE). Dotted names are read part by part: the caller sees the last. */
static gboolean
token_name (const char  *sql,
            GArray      *code,
            guint        index,
            char         name[64],
            gboolean    *unreadable)
{
  const Token *token = &g_array_index (code, Token, index);
  g_autoptr(GString) text = NULL;
  gboolean unicode = FALSE;

  *unreadable = FALSE;
  if (token->kind == TOKEN_WORD)
    {
      token_word (sql, token, name);
      return TRUE;
    }
  if (token->kind != TOKEN_QUOTED)
    return FALSE;

  /* U&"…": the word U and "&" right before it, no space between. */
  if (token->quote == '"' && index >= 2)
    {
      const Token *amp = &g_array_index (code, Token, index - 1);
      const Token *u = &g_array_index (code, Token, index - 2);

      unicode = amp->kind == TOKEN_SYMBOL && sql[amp->start] == '&' && amp->end == token->start &&
                u->kind == TOKEN_WORD && u->end == amp->start && u->end - u->start == 1 &&
                (sql[u->start] == 'U' || sql[u->start] == 'u');
    }

  text = g_string_new (NULL);
  for (gsize i = token->start + 1; i + 1 < token->end; i++)
    {
      char close = token->quote == '[' ? ']' : token->quote;

      if (sql[i] == close && token->quote != '[' && i + 2 < token->end && sql[i + 1] == close)
        {
          g_string_append_c (text, close);
          i++;
        }
      else if (unicode && sql[i] == '\\')
        {
          guint digits = i + 1 < token->end && sql[i + 1] == '+' ? 6 : 4;
          gsize from = sql[i + 1] == '+' ? i + 2 : i + 1;
          gunichar c = 0;

          if (i + 1 < token->end && sql[i + 1] == '\\')
            {
              g_string_append_c (text, '\\');
              i++;
              continue;
            }
          if (from + digits >= token->end)
            {
              *unreadable = TRUE;
              return FALSE;
            }
          for (guint d = 0; d < digits; d++)
            {
              if (!g_ascii_isxdigit (sql[from + d]))
                {
                  *unreadable = TRUE;
                  return FALSE;
                }
              c = c * 16 + g_ascii_xdigit_value (sql[from + d]);
            }
          if (!g_unichar_validate (c) || c == 0)
            {
              *unreadable = TRUE;
              return FALSE;
            }
          g_string_append_unichar (text, c);
          i = from + digits - 1;
        }
      else
        g_string_append_c (text, sql[i]);
    }
  {
    gsize n = MIN (text->len, 63);

    for (gsize i = 0; i < n; i++)
      name[i] = g_ascii_toupper (text->str[i]);
    name[n] = '\0';
  }
  return TRUE;
}

static gboolean
token_is_symbol (const char  *sql,
                 const Token *token,
                 char         symbol)
{
  return token != NULL && token->kind == TOKEN_SYMBOL && sql[token->start] == symbol;
}

static gboolean
word_in (const char        *word,
         const char *const *list)
{
  for (guint i = 0; list[i] != NULL; i++)
    if (strcmp (word, list[i]) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
word_has_prefix_in (const char        *word,
                    const char *const *list)
{
  for (guint i = 0; list[i] != NULL; i++)
    if (g_str_has_prefix (word, list[i]))
      return TRUE;
  return FALSE;
}

/* Functions that change settings, write, read or list server files, take locks, signal
 * other sessions, advance sequences or reach other servers. Upper case; a trailing "*"
 * would be a prefix, so prefixes have their own lists. */
static const char *const postgresql_functions[] = {
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
  NULL
};
static const char *const postgresql_function_prefixes[] = {
  "DBLINK", "PG_LS_", "PG_ADVISORY_", "PG_TRY_ADVISORY_", "PG_CREATE_", "PG_DROP_",
  "PG_REPLICATION_", "PG_LOGICAL_", "PG_STAT_RESET", "PG_WAL_REPLAY_", "PG_COPY_",
  NULL
};
static const char *const mysql_functions[] = {
  "LOAD_FILE", "GET_LOCK", "RELEASE_LOCK", "RELEASE_ALL_LOCKS", "MASTER_POS_WAIT",
  "SOURCE_POS_WAIT", "MASTER_GTID_WAIT", "SYS_EXEC", "SYS_EVAL", "NEXTVAL", "SETVAL",
  NULL
};
static const char *const sqlite_functions[] = {
  "LOAD_EXTENSION", "READFILE", "WRITEFILE", "EDIT", "FTS3_TOKENIZER",
  NULL
};
static const char *const no_prefixes[] = { NULL };

/* Words that start the statements people try instead of a query, with why they are refused. */
static const char *
refusal_for_first_word (const char *word)
{
  static const char *const transaction[] = {
    "BEGIN", "START", "COMMIT", "ROLLBACK", "END", "ABORT", "SAVEPOINT", "RELEASE", "XA", NULL
  };
  static const char *const writes[] = {
    "INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT", "REPLACE", "CREATE", "DROP", "ALTER",
    "TRUNCATE", "GRANT", "REVOKE", "RENAME", "COMMENT", "REINDEX", "VACUUM", "CLUSTER",
    "REFRESH", "ANALYZE", "OPTIMIZE", "REPAIR", "IMPORT", "SECURITY", NULL
  };

  if (word_in (word, transaction))
    return "Transaction control (BEGIN, COMMIT, ROLLBACK, SET TRANSACTION, …) is refused: each run_sql "
           "call runs in a read-only transaction of its own.";
  if (g_str_equal (word, "SET") || g_str_equal (word, "RESET"))
    return "SET and RESET are refused: the session's settings (the read-only transaction, the statement "
           "timeout) are Assay's. A setting can be read in a query (current_setting('name') in PostgreSQL, "
           "@@name in MySQL).";
  if (g_str_equal (word, "COPY"))
    return "COPY is refused: it reads and writes files and programs. Write a SELECT; its result arrives "
           "as a DataFrame.";
  if (g_str_equal (word, "DO") || g_str_equal (word, "CALL") || g_str_equal (word, "EXECUTE") ||
      g_str_equal (word, "PREPARE") || g_str_equal (word, "DEALLOCATE") || g_str_equal (word, "HANDLER"))
    return "Running procedures and code blocks (DO, CALL, EXECUTE, PREPARE) is refused: write one SELECT.";
  if (g_str_equal (word, "LOAD") || g_str_equal (word, "ATTACH") || g_str_equal (word, "DETACH") ||
      g_str_equal (word, "PRAGMA") || g_str_equal (word, "INSTALL") || g_str_equal (word, "UNINSTALL"))
    return "LOAD, ATTACH, DETACH and PRAGMA are refused: the query reads the database it was given, as it "
           "is. (SQLite's table-valued pragma functions, e.g. SELECT * FROM pragma_table_info('t'), are "
           "queries.)";
  if (g_str_equal (word, "LOCK") || g_str_equal (word, "UNLOCK"))
    return "Locking tables is refused: the query only reads.";
  if (word_in (word, writes))
    return "Writes and schema changes are refused: run_sql only reads (one SELECT, WITH … SELECT or "
           "VALUES). Compute what you need in the query or in Python on the DataFrame.";
  return NULL;
}

char *
assay_sql_check_read_only (const char            *sql,
                           const AssaySqlSyntax  *syntax,
                           GError               **error)
{
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (Token));
  g_autoptr(GArray) code = g_array_new (FALSE, FALSE, sizeof (Token));
  const char *const *functions;
  const char *const *prefixes;
  gsize length;
  guint end;
  char word[64];
  char first[64] = "";

  g_return_val_if_fail (sql != NULL, NULL);
  g_return_val_if_fail (syntax != NULL, NULL);

  length = strlen (sql);
  if (length > MAX_SQL_BYTES)
    {
      refuse (error, "The SQL is longer than %u bytes.", (guint) MAX_SQL_BYTES);
      return NULL;
    }
  if (!g_utf8_validate (sql, length, NULL))
    {
      refuse (error, "The SQL is not valid UTF-8.");
      return NULL;
    }
  if (memchr (sql, '\0', length) != NULL)
    {
      refuse (error, "The SQL holds a NUL byte.");
      return NULL;
    }
  if (!lex (sql, length, syntax, all, error))
    return NULL;
  for (guint i = 0; i < all->len; i++)
    if (token_is_code (&g_array_index (all, Token, i)))
      g_array_append_val (code, g_array_index (all, Token, i));

  /* One statement: at most one ";", and only at the end. */
  for (end = 0; end < code->len && g_array_index (code, Token, end).kind != TOKEN_SEMICOLON; end++)
    ;
  for (guint i = end + 1; i < code->len; i++)
    if (g_array_index (code, Token, i).kind != TOKEN_SEMICOLON)
      {
        refuse (error, "The SQL holds more than one statement: run_sql runs exactly one query per call "
                       "(make separate calls, or join the queries with WITH or UNION).");
        return NULL;
      }
  if (end == 0)
    {
      refuse (error, "The SQL is empty: give one SELECT.");
      return NULL;
    }

  /* A query: SELECT, WITH … SELECT, VALUES, TABLE (PostgreSQL), maybe in parentheses. */
  for (guint i = 0; i < end; i++)
    {
      const Token *token = &g_array_index (code, Token, i);

      if (token_is_symbol (sql, token, '('))
        continue;
      token_word (sql, token, first);
      break;
    }
  if (!(g_str_equal (first, "SELECT") || g_str_equal (first, "WITH") || g_str_equal (first, "VALUES") ||
        (g_str_equal (first, "TABLE") && syntax->dialect == ASSAY_SQL_POSTGRESQL)))
    {
      const char *why = refusal_for_first_word (first);

      if (why != NULL)
        refuse (error, "%s", why);
      else if (*first != '\0')
        refuse (error, "%s statements are refused: run_sql runs one query that only reads (SELECT, "
                       "WITH … SELECT or VALUES).", first);
      else
        refuse (error, "The SQL does not start with a query: run_sql runs one SELECT, WITH … SELECT or "
                       "VALUES.");
      return NULL;
    }

  switch (syntax->dialect)
    {
    case ASSAY_SQL_POSTGRESQL:
      functions = postgresql_functions;
      prefixes = postgresql_function_prefixes;
      break;
    case ASSAY_SQL_MYSQL:
      functions = mysql_functions;
      prefixes = no_prefixes;
      break;
    case ASSAY_SQL_SQLITE:
    default:
      functions = sqlite_functions;
      prefixes = no_prefixes;
      break;
    }

  for (guint i = 0; i < end; i++)
    {
      const Token *token = &g_array_index (code, Token, i);
      const Token *previous = i > 0 ? &g_array_index (code, Token, i - 1) : NULL;
      const Token *next = i + 1 < end ? &g_array_index (code, Token, i + 1) : NULL;
      gboolean called = token_is_symbol (sql, next, '(');
      gboolean qualified = token_is_symbol (sql, previous, '.');
      char next_word[64] = "";

      /* MySQL's user variables: @a := … assigns. */
      if (syntax->dialect == ASSAY_SQL_MYSQL && token_is_symbol (sql, token, ':') &&
          next != NULL && token_is_symbol (sql, next, '=') && next->start == token->end)
        {
          refuse (error, "Assigning variables (:=) is refused: the query only reads.");
          return NULL;
        }
      /* A function is known by its name however it is written: quoted, in Unicode escapes,
       * after its schema (pg_catalog.lo_export, `get_lock`, U&"\0070g_read_file"). */
      if (called)
        {
          gboolean unreadable = FALSE;

          if (token_name (sql, code, i, word, &unreadable) &&
              (word_in (word, functions) || word_has_prefix_in (word, prefixes)))
            {
              g_autofree char *name = g_ascii_strdown (word, -1);

              refuse (error, "The function %s() is refused: it changes settings, writes, reads server files, "
                             "takes locks or reaches another server. The query may only read the database's "
                             "tables.", name);
              return NULL;
            }
          if (unreadable)
            {
              refuse (error, "A name in U&\"…\" escapes that cannot be read is refused: write the name plainly.");
              return NULL;
            }
        }
      if (token->kind != TOKEN_WORD || qualified)
        continue;
      token_word (sql, token, word);
      if (next != NULL)
        token_word (sql, next, next_word);

      /* Another escape character for U&: the names it spells are not read here. */
      if (syntax->dialect == ASSAY_SQL_POSTGRESQL && g_str_equal (word, "UESCAPE"))
        {
          refuse (error, "UESCAPE is refused: write names and strings plainly.");
          return NULL;
        }

      if (g_str_equal (word, "FOR") &&
          (g_str_equal (next_word, "UPDATE") || g_str_equal (next_word, "SHARE") ||
           g_str_equal (next_word, "NO") || g_str_equal (next_word, "KEY")))
        {
          refuse (error, "Locking clauses (FOR UPDATE, FOR SHARE, …) are refused: the query only reads "
                         "and takes no locks.");
          return NULL;
        }
      if (g_str_equal (word, "LOCK") && !called)
        {
          refuse (error, "Locking clauses (LOCK IN SHARE MODE, …) are refused: the query only reads "
                         "and takes no locks.");
          return NULL;
        }
      if ((g_str_equal (word, "INSERT") || g_str_equal (word, "UPDATE") || g_str_equal (word, "DELETE") ||
           g_str_equal (word, "MERGE") || g_str_equal (word, "UPSERT") ||
           (g_str_equal (word, "REPLACE") && syntax->dialect != ASSAY_SQL_POSTGRESQL)) && !called)
        {
          refuse (error, "Writes are refused (%s): run_sql only reads. Data-modifying WITH clauses are "
                         "writes too.", word);
          return NULL;
        }
      if (g_str_equal (word, "INTO"))
        {
          refuse (error, "SELECT … INTO is refused: it writes (a new table, a file or variables). The result "
                         "of the query arrives as a DataFrame; drop the INTO.");
          return NULL;
        }
      if (g_str_equal (word, "PROCEDURE") && syntax->dialect == ASSAY_SQL_MYSQL)
        {
          refuse (error, "SELECT … PROCEDURE is refused: write the query alone.");
          return NULL;
        }
      if (syntax->dialect == ASSAY_SQL_MYSQL && g_str_equal (word, "NEXT") && g_str_equal (next_word, "VALUE"))
        {
          refuse (error, "NEXT VALUE FOR advances a sequence, which writes: refused.");
          return NULL;
        }
    }

  {
    const Token *first_token = &g_array_index (code, Token, 0);
    const Token *last_token = &g_array_index (code, Token, end - 1);

    return g_strndup (sql + first_token->start, last_token->end - first_token->start);
  }
}

/* ---- unmasking --------------------------------------------------------------------------- */

#define OPEN_BRACKET  "\xe2\x9f\xa8"
#define CLOSE_BRACKET "\xe2\x9f\xa9"

static gboolean
looks_like_number (const char *text)
{
  gsize i = 0, digits = 0;
  gboolean dot = FALSE;

  if (text[0] == '-')
    i++;
  if (text[i] == '0' && g_ascii_isdigit (text[i + 1]))
    return FALSE;
  for (; text[i] != '\0'; i++)
    {
      if (g_ascii_isdigit (text[i]))
        digits++;
      else if (text[i] == '.' && !dot)
        dot = TRUE;
      else
        return FALSE;
    }
  return digits > 0;
}

typedef enum
{
  CONTEXT_CODE,
  CONTEXT_STRING,
  CONTEXT_RAW,      /* dollar-quoted: nothing can be escaped */
  CONTEXT_COMMENT,
} Context;

static void
append_escaped (GString    *out,
                const char *value,
                char        quote,
                gboolean    escapes,
                Context     context)
{
  for (const char *p = value; *p != '\0'; p++)
    {
      if (context == CONTEXT_COMMENT && (*p == '\n' || *p == '\r'))
        g_string_append_c (out, ' ');
      else if (context == CONTEXT_COMMENT && p[0] == '*' && p[1] == '/')
        g_string_append (out, "* ");
      else if (context == CONTEXT_STRING && *p == quote)
        {
          g_string_append_c (out, quote);
          g_string_append_c (out, quote);
        }
      else if (context == CONTEXT_STRING && escapes && *p == '\\')
        g_string_append (out, "\\\\");
      else
        g_string_append_c (out, *p);
    }
}

/* TEXT (a piece of SQL in CONTEXT) with its placeholders replaced. */
static void
append_unmasked (GString         *out,
                 AssayMasker     *masker,
                 const char      *text,
                 gsize            length,
                 Context          context,
                 const Token     *token,
                 const AssaySqlSyntax *syntax)
{
  const char *end = text + length;
  const char *p = text;

  while (p < end)
    {
      const char *open = g_strstr_len (p, end - p, OPEN_BRACKET);
      const char *close;
      g_autofree char *placeholder = NULL;
      g_autofree char *value = NULL;

      if (open == NULL)
        break;
      close = g_strstr_len (open, MIN (end - open, 300), CLOSE_BRACKET);
      if (close == NULL)
        break;
      close += strlen (CLOSE_BRACKET);
      placeholder = g_strndup (open, close - open);
      value = assay_masker_unmask (masker, placeholder);
      g_string_append_len (out, p, open - p);
      if (g_str_equal (value, placeholder))
        g_string_append (out, placeholder);
      else if (context == CONTEXT_CODE)
        {
          if (looks_like_number (value))
            g_string_append (out, value);
          else
            {
              g_string_append_c (out, '\'');
              append_escaped (out, value, '\'',
                              syntax->dialect == ASSAY_SQL_MYSQL && syntax->backslash_escapes, CONTEXT_STRING);
              g_string_append_c (out, '\'');
            }
        }
      else
        append_escaped (out, value, token != NULL ? token->quote : 0, token != NULL && token->escapes, context);
      p = close;
    }
  g_string_append_len (out, p, end - p);
}

char *
assay_sql_unmask (AssayMasker          *masker,
                  const char           *sql,
                  const AssaySqlSyntax *syntax)
{
  g_autoptr(GArray) tokens = g_array_new (FALSE, FALSE, sizeof (Token));
  GString *out;
  gsize length, copied = 0;

  g_return_val_if_fail (sql != NULL, NULL);

  if (masker == NULL || strstr (sql, OPEN_BRACKET) == NULL)
    return g_strdup (sql);
  length = strlen (sql);
  /* SQL that does not lex is unmasked as plain text: the check refuses it anyway. */
  if (!lex (sql, length, syntax, tokens, NULL))
    return assay_masker_unmask (masker, sql);

  out = g_string_sized_new (length);
  for (guint i = 0; i < tokens->len; i++)
    {
      const Token *token = &g_array_index (tokens, Token, i);

      /* What lies between tokens and the words and symbols themselves are code: a
       * placeholder's brackets and its space split it across tokens. */
      if (token->kind == TOKEN_STRING || token->kind == TOKEN_QUOTED)
        {
          Context context = CONTEXT_STRING;

          append_unmasked (out, masker, sql + copied, token->start + 1 - copied, CONTEXT_CODE, NULL, syntax);
          append_unmasked (out, masker, sql + token->start + 1, token->end - token->start - 2,
                           token->quote == '[' ? CONTEXT_RAW : context, token, syntax);
          g_string_append_c (out, sql[token->end - 1]);
          copied = token->end;
        }
      else if (token->kind == TOKEN_DOLLAR)
        {
          append_unmasked (out, masker, sql + copied, token->start + token->tag - copied, CONTEXT_CODE, NULL, syntax);
          append_unmasked (out, masker, sql + token->start + token->tag, token->end - token->start - 2 * token->tag,
                           CONTEXT_RAW, token, syntax);
          g_string_append_len (out, sql + token->end - token->tag, token->tag);
          copied = token->end;
        }
      else if (token->kind == TOKEN_LINE_COMMENT || token->kind == TOKEN_BLOCK_COMMENT)
        {
          append_unmasked (out, masker, sql + copied, token->start - copied, CONTEXT_CODE, NULL, syntax);
          append_unmasked (out, masker, sql + token->start, token->end - token->start, CONTEXT_COMMENT, token, syntax);
          copied = token->end;
        }
    }
  append_unmasked (out, masker, sql + copied, length - copied, CONTEXT_CODE, NULL, syntax);
  return g_string_free (out, FALSE);
}

char *
assay_sql_quote_identifier (AssaySqlDialect  dialect,
                            const char      *name)
{
  char quote = dialect == ASSAY_SQL_MYSQL ? '`' : '"';
  GString *out = g_string_new (NULL);

  g_string_append_c (out, quote);
  for (const char *p = name; *p != '\0'; p++)
    {
      if (*p == quote)
        g_string_append_c (out, quote);
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, quote);
  return g_string_free (out, FALSE);
}
