/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Data"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <gio/gio.h>
#include <string.h>
#include <zlib.h>

#include "assay-xlsx.h"

#define MAX_ENTRIES       65536
#define MAX_PART_BYTES    (8 * 1024 * 1024)
#define SHEET_HEAD_BYTES  (64 * 1024)
#define MAX_SHEETS        1024

typedef struct
{
  const guchar *data;
  gsize         len;
  gsize         cd_offset;
  gsize         cd_size;
  guint         n_entries;
} Zip;

static inline guint
assay_xlsx_get16 (const guchar *p)
{
  return p[0] | (p[1] << 8);
}

static inline guint32
assay_xlsx_get32 (const guchar *p)
{
  return (guint32) p[0] | ((guint32) p[1] << 8) | ((guint32) p[2] << 16) | ((guint32) p[3] << 24);
}

gboolean
assay_xlsx_looks_like_zip (const char *data,
                           gsize       len)
{
  return len >= 4 && memcmp (data, "PK\x03\x04", 4) == 0;
}

static gboolean
assay_xlsx_zip_open (Zip          *zip,
                     const char   *data,
                     gsize         len,
                     GError      **error)
{
  const guchar *d = (const guchar *) data;
  gsize min_start = len > 22 + 65535 ? len - 22 - 65535 : 0;

  zip->data = d;
  zip->len = len;
  if (len < 22)
    goto bad;
  for (gsize i = len - 22 + 1; i-- > min_start;)
    {
      if (assay_xlsx_get32 (d + i) == 0x06054b50)
        {
          zip->n_entries = assay_xlsx_get16 (d + i + 10);
          zip->cd_size = assay_xlsx_get32 (d + i + 12);
          zip->cd_offset = assay_xlsx_get32 (d + i + 16);
          if (zip->cd_offset > i || zip->cd_size > i - zip->cd_offset || zip->n_entries > MAX_ENTRIES)
            goto bad;
          return TRUE;
        }
    }
bad:
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("this is not a readable Excel workbook: the zip directory is missing or damaged "
                 "(ZIP64 and split archives are not supported)"));
  return FALSE;
}

/* Finds NAME and inflates at most LIMIT bytes of it (stored or deflate only). */
static GBytes *
assay_xlsx_zip_read (Zip         *zip,
                     const char  *name,
                     gsize        limit,
                     GError     **error)
{
  gsize p = zip->cd_offset;
  gsize end = zip->cd_offset + zip->cd_size;
  gsize name_len = strlen (name);

  for (guint i = 0; i < zip->n_entries; i++)
    {
      const guchar *e;
      guint method, n, extra, comment;
      guint32 csize, usize, local;

      if (p + 46 > end)
        break;
      e = zip->data + p;
      if (assay_xlsx_get32 (e) != 0x02014b50)
        break;
      method = assay_xlsx_get16 (e + 10);
      csize = assay_xlsx_get32 (e + 20);
      usize = assay_xlsx_get32 (e + 24);
      n = assay_xlsx_get16 (e + 28);
      extra = assay_xlsx_get16 (e + 30);
      comment = assay_xlsx_get16 (e + 32);
      local = assay_xlsx_get32 (e + 42);
      if (p + 46 + n + extra + comment > end)
        break;
      if (n == name_len && memcmp (e + 46, name, n) == 0)
        {
          const guchar *l;
          gsize start;
          GByteArray *out;

          if ((gsize) local + 30 > zip->len)
            break;
          l = zip->data + local;
          if (assay_xlsx_get32 (l) != 0x04034b50)
            break;
          start = (gsize) local + 30 + assay_xlsx_get16 (l + 26) + assay_xlsx_get16 (l + 28);
          if (start > zip->len || csize > zip->len - start)
            break;
          if (method == 0)
            return g_bytes_new (zip->data + start, MIN (MIN (csize, usize), limit));
          if (method != 8)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("the workbook part %s uses an unsupported compression method (%u)"), name, method);
              return NULL;
            }
          {
            z_stream z = { 0 };
            guchar buffer[16384];
            int r = Z_OK;

            if (inflateInit2 (&z, -MAX_WBITS) != Z_OK)
              break;
            out = g_byte_array_new ();
            z.next_in = (Bytef *) zip->data + start;
            z.avail_in = csize;
            while (r == Z_OK && out->len < limit)
              {
                z.next_out = buffer;
                z.avail_out = sizeof buffer;
                r = inflate (&z, Z_NO_FLUSH);
                if (r != Z_OK && r != Z_STREAM_END)
                  break;
                g_byte_array_append (out, buffer, sizeof buffer - z.avail_out);
                if (z.avail_out == sizeof buffer && r == Z_OK && z.avail_in == 0)
                  break;
              }
            inflateEnd (&z);
            if (r != Z_OK && r != Z_STREAM_END)
              {
                g_byte_array_unref (out);
                g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                             _("the workbook part %s is damaged (inflate failed)"), name);
                return NULL;
              }
            if (out->len > limit)
              g_byte_array_set_size (out, limit);
            return g_byte_array_free_to_bytes (out);
          }
        }
      p += 46 + n + extra + comment;
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
               _("the archive has no readable %s: it is not an Excel workbook (.xlsx)"), name);
  return NULL;
}

typedef struct
{
  GPtrArray  *sheets;   /* AssayXlsxSheet */
  GPtrArray  *ids;      /* relationship id per sheet */
  GHashTable *targets;  /* relationship id → part */
  char       *dimension;
} ParseState;

static gboolean
assay_xlsx_local_name_is (const char *element,
                          const char *name)
{
  const char *colon = strrchr (element, ':');
  return g_str_equal (colon != NULL ? colon + 1 : element, name);
}

static const char *
assay_xlsx_attribute (const char **names,
                      const char **values,
                      const char  *local)
{
  for (guint i = 0; names[i] != NULL; i++)
    if (assay_xlsx_local_name_is (names[i], local))
      return values[i];
  return NULL;
}

static void
assay_xlsx_start_element (GMarkupParseContext  *context,
                          const char           *element,
                          const char          **names,
                          const char          **values,
                          gpointer              user_data,
                          GError              **error)
{
  ParseState *state = user_data;

  if (state->sheets != NULL && assay_xlsx_local_name_is (element, "sheet") && state->sheets->len < MAX_SHEETS)
    {
      const char *name = assay_xlsx_attribute (names, values, "name");
      const char *id = NULL;
      AssayXlsxSheet *sheet;

      for (guint i = 0; names[i] != NULL; i++)
        if (g_str_has_suffix (names[i], ":id"))
          id = values[i];
      if (name == NULL)
        return;
      sheet = g_new0 (AssayXlsxSheet, 1);
      sheet->name = g_strdup (name);
      g_ptr_array_add (state->sheets, sheet);
      g_ptr_array_add (state->ids, g_strdup (id != NULL ? id : ""));
    }
  else if (state->targets != NULL && assay_xlsx_local_name_is (element, "Relationship"))
    {
      const char *id = assay_xlsx_attribute (names, values, "Id");
      const char *target = assay_xlsx_attribute (names, values, "Target");
      if (id != NULL && target != NULL)
        g_hash_table_insert (state->targets, g_strdup (id), g_strdup (target));
    }
  else if (assay_xlsx_local_name_is (element, "dimension") && state->dimension == NULL)
    {
      const char *ref = assay_xlsx_attribute (names, values, "ref");
      if (ref != NULL)
        state->dimension = g_strndup (ref, 32);
    }
}

static gboolean
assay_xlsx_parse_xml (GBytes      *bytes,
                      ParseState  *state,
                      gboolean     partial,
                      GError     **error)
{
  static const GMarkupParser parser = { assay_xlsx_start_element, NULL, NULL, NULL, NULL };
  g_autoptr(GMarkupParseContext) context =
    g_markup_parse_context_new (&parser, 0, state, NULL);
  gsize len;
  const char *text = g_bytes_get_data (bytes, &len);

  /* A partial head of a sheet is enough for <dimension>; errors past it do not matter. */
  if (!g_markup_parse_context_parse (context, text, len, error))
    return partial;
  return partial || g_markup_parse_context_end_parse (context, error);
}

void
assay_xlsx_sheet_free (AssayXlsxSheet *sheet)
{
  if (sheet == NULL)
    return;
  g_free (sheet->name);
  g_free (sheet->dimension);
  g_free (sheet);
}

GPtrArray *
assay_xlsx_list_sheets (const char  *data,
                        gsize        len,
                        GError     **error)
{
  Zip zip;
  g_autoptr(GBytes) workbook = NULL;
  g_autoptr(GBytes) rels = NULL;
  g_autoptr(GPtrArray) sheets = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_xlsx_sheet_free);
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) targets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  ParseState state = { sheets, ids, NULL, NULL };
  g_autoptr(GError) local_error = NULL;

  if (!assay_xlsx_zip_open (&zip, data, len, error))
    return NULL;
  workbook = assay_xlsx_zip_read (&zip, "xl/workbook.xml", MAX_PART_BYTES, error);
  if (workbook == NULL)
    return NULL;
  if (!assay_xlsx_parse_xml (workbook, &state, FALSE, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("the workbook's sheet list (xl/workbook.xml) is not valid XML: %s"), local_error->message);
      return NULL;
    }
  if (sheets->len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("the workbook has no sheets"));
      return NULL;
    }

  /* Dimensions, best effort: relationship id → part name → <dimension ref=...>. */
  rels = assay_xlsx_zip_read (&zip, "xl/_rels/workbook.xml.rels", MAX_PART_BYTES, NULL);
  if (rels != NULL)
    {
      ParseState rel_state = { NULL, NULL, targets, NULL };

      assay_xlsx_parse_xml (rels, &rel_state, FALSE, NULL);
      g_free (rel_state.dimension);
      for (guint i = 0; i < sheets->len && i < 64; i++)
        {
          const char *target = g_hash_table_lookup (targets, g_ptr_array_index (ids, i));
          g_autofree char *part = NULL;
          g_autoptr(GBytes) head = NULL;
          ParseState sheet_state = { NULL, NULL, NULL, NULL };

          if (target == NULL || strstr (target, "..") != NULL)
            continue;
          part = target[0] == '/' ? g_strdup (target + 1) : g_strconcat ("xl/", target, NULL);
          head = assay_xlsx_zip_read (&zip, part, SHEET_HEAD_BYTES, NULL);
          if (head == NULL)
            continue;
          assay_xlsx_parse_xml (head, &sheet_state, TRUE, NULL);
          ((AssayXlsxSheet *) g_ptr_array_index (sheets, i))->dimension = sheet_state.dimension;
        }
    }
  return g_steal_pointer (&sheets);
}
