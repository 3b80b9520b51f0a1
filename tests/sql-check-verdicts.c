/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assay_sql_check_read_only as a filter, for test-sql-check-port.py: each line of standard
 * input is "DIALECT BACKSLASH_ESCAPES DOUBLE_QUOTED_STRINGS HEX" (postgresql, mysql or
 * sqlite; 0 or 1; 0 or 1; the statement's bytes in hex), each line of standard output
 * "accept HEX" (the statement the check returns) or "refuse MESSAGE". */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "assay-sql-check.h"

static GBytes *
sql_check_verdicts_unhex (const char *hex)
{
  gsize length = strlen (hex);
  GByteArray *bytes = g_byte_array_sized_new (length / 2 + 1);

  if (length % 2 != 0)
    {
      g_byte_array_unref (bytes);
      return NULL;
    }
  for (gsize i = 0; i < length; i += 2)
    {
      int high = g_ascii_xdigit_value (hex[i]);
      int low = g_ascii_xdigit_value (hex[i + 1]);
      guint8 byte;

      if (high < 0 || low < 0)
        {
          g_byte_array_unref (bytes);
          return NULL;
        }
      byte = (guint8) (high * 16 + low);
      g_byte_array_append (bytes, &byte, 1);
    }
  g_byte_array_append (bytes, (const guint8 *) "", 1);
  return g_byte_array_free_to_bytes (bytes);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GIOChannel) input = g_io_channel_unix_new (0);
  g_autofree char *line = NULL;
  gsize terminator = 0;

  g_io_channel_set_encoding (input, NULL, NULL);
  while (g_io_channel_read_line (input, &line, NULL, &terminator, NULL) == G_IO_STATUS_NORMAL)
    {
      g_auto(GStrv) fields = NULL;
      g_autoptr(GBytes) sql = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *statement = NULL;
      AssaySqlSyntax syntax;

      line[terminator] = '\0';
      fields = g_strsplit (line, " ", 4);
      g_clear_pointer (&line, g_free);
      if (g_strv_length (fields) != 4 || (sql = sql_check_verdicts_unhex (fields[3])) == NULL)
        {
          g_printerr ("sql-check-verdicts: a line is DIALECT 0|1 0|1 HEX\n");
          return 2;
        }
      if (g_str_equal (fields[0], "postgresql"))
        assay_sql_syntax_init (&syntax, ASSAY_SQL_POSTGRESQL);
      else if (g_str_equal (fields[0], "mysql"))
        assay_sql_syntax_init (&syntax, ASSAY_SQL_MYSQL);
      else if (g_str_equal (fields[0], "sqlite"))
        assay_sql_syntax_init (&syntax, ASSAY_SQL_SQLITE);
      else
        {
          g_printerr ("sql-check-verdicts: no dialect %s\n", fields[0]);
          return 2;
        }
      syntax.backslash_escapes = g_str_equal (fields[1], "1");
      syntax.double_quoted_strings = g_str_equal (fields[2], "1");

      statement = assay_sql_check_read_only (g_bytes_get_data (sql, NULL), &syntax, &error);
      if (statement != NULL)
        {
          printf ("accept ");
          for (const char *p = statement; *p != '\0'; p++)
            printf ("%02x", (guchar) *p);
          printf ("\n");
        }
      else
        {
          g_strdelimit (error->message, "\n", ' ');
          printf ("refuse %s\n", error->message);
        }
      fflush (stdout);
    }
  return 0;
}
