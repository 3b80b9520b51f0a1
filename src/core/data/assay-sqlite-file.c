/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SQLite database files as datasets: the header that tells one, what its first 100 bytes
 * promise about its size, and the copy into a session through the online backup API. */
#define G_LOG_DOMAIN "Assay-Data"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>
#include <string.h>

#include "assay-data-text.h"
#include "assay-source.h"
#include "assay-sqlite-file.h"

/* How long a copy waits for a writer that holds the database locked (rollback journal). */
#define BUSY_WAIT_US   (30 * G_USEC_PER_SEC)
#define STEP_PAGES     1024
#define MAX_RESTARTS   4

gboolean
assay_sqlite_file_has_header (const char *data,
                              gsize       len)
{
  return data != NULL && len >= ASSAY_SQLITE_HEADER_LEN &&
         memcmp (data, ASSAY_SQLITE_HEADER, ASSAY_SQLITE_HEADER_LEN) == 0;
}

gboolean
assay_sqlite_file_is_database (const char *path)
{
  char header[ASSAY_SQLITE_HEADER_LEN];
  gssize n = 0;
  int fd;

  g_return_val_if_fail (path != NULL, FALSE);

  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
  if (fd < 0)
    return FALSE;
  while (n < (gssize) sizeof header)
    {
      gssize got = read (fd, header + n, sizeof header - n);

      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        break;
      n += got;
    }
  close (fd);
  return assay_sqlite_file_has_header (header, (gsize) MAX (n, 0));
}

static guint32
read_be32 (const guchar *p)
{
  return ((guint32) p[0] << 24) | ((guint32) p[1] << 16) | ((guint32) p[2] << 8) | p[3];
}

gboolean
assay_sqlite_file_check_header (const char  *data,
                                gsize        len,
                                guint64      file_size,
                                const char  *name,
                                GError     **error)
{
  const guchar *h = (const guchar *) data;
  guint32 page_size;
  guint32 pages;

  g_return_val_if_fail (assay_sqlite_file_has_header (data, len), FALSE);

  if (len < 100 || file_size < 100)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s is an SQLite database cut short: it ends inside its 100-byte header"), name);
      return FALSE;
    }
  page_size = ((guint32) h[16] << 8) | h[17];
  if (page_size == 1)
    page_size = 65536;
  if (page_size < 512 || (page_size & (page_size - 1)) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s starts like an SQLite database but its header is damaged (a page size of %u bytes)"),
                   name, page_size);
      return FALSE;
    }
  /* The page count is kept when the change counter matches "version valid for". */
  pages = read_be32 (h + 28);
  if (pages > 0 && read_be32 (h + 24) == read_be32 (h + 92) &&
      file_size < (guint64) pages * page_size)
    {
      g_autofree char *expected = g_strdup_printf ("%" G_GUINT64_FORMAT, (guint64) pages * page_size);
      g_autofree char *found = g_strdup_printf ("%" G_GUINT64_FORMAT, file_size);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s is an SQLite database cut short: its header says %u pages of %u bytes (%s bytes), "
                     "the file has %s bytes"),
                   name, pages, page_size, expected, found);
      return FALSE;
    }
  if (file_size < page_size)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s is an SQLite database cut short: it ends inside its first page"), name);
      return FALSE;
    }
  return TRUE;
}

char *
assay_sqlite_file_explain_not_database (const char *name,
                                        const char *data,
                                        gsize       len)
{
  g_autofree char *lower = g_ascii_strdown (name, -1);

  if (!g_str_has_suffix (lower, ".db") && !g_str_has_suffix (lower, ".sqlite") &&
      !g_str_has_suffix (lower, ".sqlite3") && !g_str_has_suffix (lower, ".db3"))
    return NULL;
  if (len == 0)
    return g_strdup_printf (_("%s is empty: an SQLite database has at least its header"), name);
  return g_strdup_printf (_("%s does not start with SQLite’s header: it is not an SQLite database, or it is "
                            "encrypted (SQLCipher, SEE), which Assay cannot read"), name);
}

static void
set_sqlite_error (GError    **error,
                  const char *path,
                  sqlite3    *db,
                  int         rc)
{
  const char *reason = db != NULL ? sqlite3_errmsg (db) : sqlite3_errstr (rc);

  if (rc == SQLITE_NOTADB)
    reason = _("the file is not a database, or it is encrypted");
  else if (rc == SQLITE_CORRUPT)
    reason = _("the database is damaged or cut short");
  else if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
    reason = _("another program kept it locked for writing; try again when it is done");
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot copy %s into the session: %s"), path, reason);
}

gboolean
assay_sqlite_file_backup (const char    *source,
                          const char    *destination,
                          GCancellable  *cancellable,
                          GError       **error)
{
  sqlite3 *from = NULL;
  sqlite3 *to = NULL;
  sqlite3_backup *backup = NULL;
  gint64 busy_since = 0;
  int last_remaining = -1;
  guint restarts = 0;
  gboolean ok = FALSE;
  int rc;

  g_return_val_if_fail (source != NULL && destination != NULL, FALSE);

  /* Read-only, so the original is never touched; not immutable, so a WAL file's committed
   * pages are read and another program's locks respected. */
  rc = sqlite3_open_v2 (source, &from, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL);
  if (rc != SQLITE_OK)
    {
      set_sqlite_error (error, source, from, rc);
      goto out;
    }
  sqlite3_db_config (from, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
  sqlite3_db_config (from, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
  rc = sqlite3_open_v2 (destination, &to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL);
  if (rc != SQLITE_OK)
    {
      set_sqlite_error (error, source, to, rc);
      goto out;
    }
  backup = sqlite3_backup_init (to, "main", from, "main");
  if (backup == NULL)
    {
      set_sqlite_error (error, source, to, sqlite3_errcode (to));
      goto out;
    }
  for (;;)
    {
      /* A write by another program restarts the copy; one that keeps writing gets a copy
       * made in a single step, which holds one read transaction throughout. */
      rc = sqlite3_backup_step (backup, restarts > MAX_RESTARTS ? -1 : STEP_PAGES);
      if (rc == SQLITE_DONE)
        break;
      if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
        {
          if (busy_since == 0)
            busy_since = g_get_monotonic_time ();
          else if (g_get_monotonic_time () - busy_since > BUSY_WAIT_US)
            {
              set_sqlite_error (error, source, NULL, rc);
              goto out;
            }
          g_usleep (20 * 1000);
        }
      else if (rc != SQLITE_OK)
        {
          set_sqlite_error (error, source, from, rc);
          goto out;
        }
      else
        {
          int remaining = sqlite3_backup_remaining (backup);

          busy_since = 0;
          if (last_remaining >= 0 && remaining > last_remaining)
            restarts++;
          last_remaining = remaining;
        }
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        goto out;
    }
  rc = sqlite3_backup_finish (backup);
  backup = NULL;
  if (rc != SQLITE_OK)
    {
      set_sqlite_error (error, source, to, rc);
      goto out;
    }
  /* The copy of a WAL database says WAL in its header: a rollback journal instead, so the
   * sandbox's read-only folder never needs a -wal or -shm file beside it. */
  sqlite3_close_v2 (to);
  to = NULL;
  rc = sqlite3_open_v2 (destination, &to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_exec (to, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    {
      set_sqlite_error (error, source, to, rc);
      goto out;
    }
  ok = TRUE;

out:
  if (backup != NULL)
    sqlite3_backup_finish (backup);
  sqlite3_close_v2 (to);
  sqlite3_close_v2 (from);
  if (!ok)
    {
      g_autofree char *journal = g_strconcat (destination, "-journal", NULL);
      g_autofree char *wal = g_strconcat (destination, "-wal", NULL);
      g_autofree char *shm = g_strconcat (destination, "-shm", NULL);

      g_unlink (journal);
      g_unlink (wal);
      g_unlink (shm);
    }
  return ok;
}

char *
assay_sqlite_file_sandbox_uri (const char *name)
{
  /* SQLite decodes %HH in a URI's path; "?", "#" and "%" must be escaped. */
  g_autofree char *escaped = g_uri_escape_string (name, "!$&'()*+,;=:@", TRUE);

  return g_strdup_printf ("file:/data/%s?mode=ro&immutable=1", escaped);
}

AssaySourceSchema *
assay_sqlite_file_read_schema (const char    *path,
                               GCancellable  *cancellable,
                               GError       **error)
{
  g_autofree char *absolute = g_canonicalize_filename (path, NULL);
  g_autofree char *escaped = g_uri_escape_string (absolute, "/", FALSE);
  g_autofree char *url = g_strconcat ("sqlite://", escaped, NULL);
  g_autoptr(AssaySource) source = assay_source_new ("dataset", url, error);
  AssaySourceSchema *schema;

  if (source == NULL)
    return NULL;
  schema = assay_source_describe_sync (source, ASSAY_SCHEMA_DEFAULT_SAMPLES, cancellable, error);
  assay_source_close (source);
  return schema;
}

static int
rows_progress (void *data)
{
  return g_cancellable_is_cancelled (data);
}

GPtrArray *
assay_sqlite_file_read_rows (const char    *path,
                             const char    *table,
                             guint          max_rows,
                             GStrv         *column_names,
                             GCancellable  *cancellable,
                             GError       **error)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_autofree char *quoted = assay_sql_quote_identifier (ASSAY_SQL_SQLITE, table);
  g_autofree char *sql = g_strdup_printf ("SELECT * FROM %s LIMIT %u", quoted, max_rows);
  g_autoptr(GCancellable) never = cancellable == NULL ? g_cancellable_new () : NULL;
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  int rc, n = 0;

  g_return_val_if_fail (path != NULL && table != NULL, NULL);

  rc = sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, NULL);
  if (rc == SQLITE_OK)
    {
      sqlite3_db_config (db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
      sqlite3_db_config (db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
      sqlite3_db_config (db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
      sqlite3_progress_handler (db, 1000, rows_progress, cancellable != NULL ? cancellable : never);
      rc = sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL);
    }
  if (rc == SQLITE_OK)
    {
      n = sqlite3_column_count (stmt);
      if (column_names != NULL)
        {
          *column_names = g_new0 (char *, n + 1);
          for (int i = 0; i < n; i++)
            (*column_names)[i] = assay_data_sanitize (sqlite3_column_name (stmt, i), -1, 200);
        }
      while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
        {
          char **row = g_new0 (char *, n + 1);

          for (int i = 0; i < n; i++)
            switch (sqlite3_column_type (stmt, i))
              {
              case SQLITE_NULL:
                row[i] = g_strdup ("");
                break;
              case SQLITE_BLOB:
                row[i] = g_strdup_printf (_("(%d bytes)"), sqlite3_column_bytes (stmt, i));
                break;
              default:
                row[i] = assay_data_sanitize ((const char *) sqlite3_column_text (stmt, i),
                                              sqlite3_column_bytes (stmt, i), 200);
                break;
              }
          g_ptr_array_add (rows, row);
        }
    }
  if (rc != SQLITE_DONE)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        ;
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot read the rows of %s: %s"), table,
                     db != NULL ? sqlite3_errmsg (db) : sqlite3_errstr (rc));
      if (column_names != NULL)
        g_clear_pointer (column_names, g_strfreev);
      sqlite3_finalize (stmt);
      sqlite3_close_v2 (db);
      return NULL;
    }
  sqlite3_finalize (stmt);
  sqlite3_close_v2 (db);
  return g_steal_pointer (&rows);
}
