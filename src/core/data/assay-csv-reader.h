/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define ASSAY_CSV_MAX_FIELDS (1u << 20)

typedef enum
{
  ASSAY_CSV_FIELD_QUOTED = 1 << 0,
  /* The span is raw text with quotes or escapes in it: decode before use. */
  ASSAY_CSV_FIELD_ENCODED = 1 << 1,
} AssayCsvFieldFlags;

/* A field is a span of the buffer: no copy is made while reading. */
typedef struct
{
  gsize start;
  gsize len;
  guint flags;
} AssayCsvField;

/* A zero-copy tokenizer over UTF-8 (or ASCII-compatible) bytes with pandas' rules: records
 * end at \n, \r\n or \r outside quotes; blank and whitespace-only lines are skipped; a
 * quote only opens a field at its start; text after a closing quote joins the field. */
typedef struct
{
  const char    *data;
  gsize          len;
  gsize          pos;
  char           delimiter;
  char           quote;           /* 0: quotes are ordinary characters */
  gboolean       backslash_escape;

  guint64        line;            /* 1-based line of pos */
  guint64        record_line;     /* line where the last record started */
  gsize          record_start;
  guint64        blank_lines;     /* blank lines skipped so far */
  guint64        blank_run;       /* blank lines since the last record */

  guint8         stops[256];      /* delimiter, \n and \r end an unquoted field */

  AssayCsvField *fields;
  guint          n_fields;
  guint          fields_alloc;
} AssayCsvReader;

void     assay_csv_reader_init   (AssayCsvReader *reader,
                                  const char     *data,
                                  gsize           len,
                                  char            delimiter,
                                  char            quote,
                                  gboolean        backslash_escape);
void     assay_csv_reader_clear  (AssayCsvReader *reader);

/* Reads the next record into reader->fields. FALSE at the end (ERROR unset) or on malformed
 * input (ERROR set, G_IO_ERROR_INVALID_DATA, saying where). */
gboolean assay_csv_reader_next   (AssayCsvReader  *reader,
                                  GError         **error);

/* Appends the decoded text of FIELD to OUT and returns a pointer to it (valid until OUT
 * changes); for plain fields returns the span itself without copying. */
const char *assay_csv_reader_field_text (const AssayCsvReader *reader,
                                         const AssayCsvField  *field,
                                         GString              *scratch,
                                         gsize                *len);

G_END_DECLS
