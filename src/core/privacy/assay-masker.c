/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Masked columns: every distinct value gets a placeholder, and every text bound for the
 * model is rewritten before it leaves.
 *
 * Finding 100,000 values in 100 KB of output must cost a few milliseconds. Each form of a
 * value (a "key": the value as written, or as Python prints it) is kept in a hash table by
 * its FNV-1a hash, and so is the hash of each of its first PREFIX_HASHED prefixes. A walk
 * from a token start extends the running hash one byte at a time while the prefix is known,
 * remembering the longest whole key that ends on a token boundary; most walks stop after a
 * byte or two. */
#define G_LOG_DOMAIN "Assay-Privacy"

#include "config.h"

#include <glib/gi18n-lib.h>

#include <math.h>
#include <string.h>

#include "assay-csv-value.h"
#include "assay-masker.h"

#define PREFIX_HASHED 48
#define PANDAS_MAX_COLWIDTH 50
#define MIN_LINE      10
#define FNV_OFFSET    G_GUINT64_CONSTANT (14695981039346656037)
#define FNV_PRIME     G_GUINT64_CONSTANT (1099511628211)

/* U+27E8 and U+27E9, the brackets of a placeholder. */
#define OPEN_BRACKET  "\xe2\x9f\xa8"
#define CLOSE_BRACKET "\xe2\x9f\xa9"
#define BRACKET_LEN   3
#define MAX_LABEL     256

typedef struct
{
  char       *dataset;
  char       *column;
  char       *label;        /* what the placeholder says: the column, or dataset:column */
  GHashTable *numbers;      /* the value's text → its number, to find a repeat */
  GArray     *values;       /* guint32 value index, by number - 1 */
  gboolean    done;         /* read from a dataset */
} Column;

typedef struct
{
  guint32 column;
  guint32 number;           /* from 1 */
  guint32 offset;           /* the text as written, in the arena */
  guint32 length;
} Value;

typedef struct
{
  guint64 hash;
  guint32 offset;           /* the key's text, in the arena */
  guint32 length;
  guint32 value;
} Key;

struct _AssayMasker
{
  GObject     parent_instance;

  GPtrArray  *columns;      /* Column* */
  GString    *arena;        /* the values' and keys' text */
  GArray     *values;       /* Value */
  GArray     *keys;         /* Key */
  guint32    *key_slots;    /* open addressing: key index + 1, 0 empty */
  gsize       n_key_slots;  /* a power of two */
  guint64    *prefix_slots; /* prefix hashes, 0 empty */
  gsize       n_prefix_slots;
  gsize       n_prefixes;
  guint8      first_bytes[256];
  gsize       max_key_length;
  gsize       max_bytes;
  gboolean    full;         /* the memory cap was reached */
  guint64     too_long;     /* values not masked for their length */
  char       *warning;
  guint       last_count;
};

G_DEFINE_FINAL_TYPE (AssayMasker, assay_masker, G_TYPE_OBJECT)

/* ---- modes ------------------------------------------------------------------------------- */

static const char * const mode_names[] = { "full", "masked", "schema" };

const char *
assay_privacy_mode_to_string (AssayPrivacyMode mode)
{
  g_return_val_if_fail ((guint) mode < G_N_ELEMENTS (mode_names), "full");
  return mode_names[mode];
}

gboolean
assay_privacy_mode_from_string (const char       *text,
                                AssayPrivacyMode *mode)
{
  for (guint i = 0; i < G_N_ELEMENTS (mode_names); i++)
    if (g_strcmp0 (text, mode_names[i]) == 0)
      {
        *mode = (AssayPrivacyMode) i;
        return TRUE;
      }
  return FALSE;
}

const char *
assay_privacy_mode_get_label (AssayPrivacyMode mode)
{
  switch (mode)
    {
    case ASSAY_PRIVACY_MASKED:
      return _("Masked columns");
    case ASSAY_PRIVACY_SCHEMA:
      return _("Schema only");
    case ASSAY_PRIVACY_FULL:
    default:
      return _("Full");
    }
}

/* ---- the object -------------------------------------------------------------------------- */

static void
assay_masker_column_free (gpointer data)
{
  Column *column = data;

  g_free (column->dataset);
  g_free (column->column);
  g_free (column->label);
  g_hash_table_unref (column->numbers);
  g_array_unref (column->values);
  g_free (column);
}

static void
assay_masker_finalize (GObject *object)
{
  AssayMasker *self = ASSAY_MASKER (object);

  g_ptr_array_unref (self->columns);
  g_string_free (self->arena, TRUE);
  g_array_unref (self->values);
  g_array_unref (self->keys);
  g_free (self->key_slots);
  g_free (self->prefix_slots);
  g_free (self->warning);

  G_OBJECT_CLASS (assay_masker_parent_class)->finalize (object);
}

static void
assay_masker_class_init (AssayMaskerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = assay_masker_finalize;
}

static void
assay_masker_init (AssayMasker *self)
{
  self->columns = g_ptr_array_new_with_free_func (assay_masker_column_free);
  self->arena = g_string_new (NULL);
  self->values = g_array_new (FALSE, FALSE, sizeof (Value));
  self->keys = g_array_new (FALSE, FALSE, sizeof (Key));
  self->max_bytes = ASSAY_MASKER_MAX_BYTES;
}

void
assay_masker_set_max_bytes (AssayMasker *self,
                            gsize        max_bytes)
{
  g_return_if_fail (ASSAY_IS_MASKER (self));
  self->max_bytes = max_bytes;
}

AssayMasker *
assay_masker_new (void)
{
  return g_object_new (ASSAY_TYPE_MASKER, NULL);
}

/* ---- the tables -------------------------------------------------------------------------- */

static inline guint64
assay_masker_hash_step (guint64 hash,
                        guint8  byte)
{
  return (hash ^ byte) * FNV_PRIME;
}

static guint64
assay_masker_hash (const char *text,
                   gsize       length)
{
  guint64 hash = FNV_OFFSET;

  for (gsize i = 0; i < length; i++)
    hash = assay_masker_hash_step (hash, (guint8) text[i]);
  return hash;
}

/* 0 marks an empty slot. */
static inline guint64
assay_masker_prefix_mark (guint64 hash)
{
  return hash | 1;
}

static void
assay_masker_prefix_insert (AssayMasker *self,
                            guint64      hash)
{
  guint64 mark = assay_masker_prefix_mark (hash);
  gsize mask = self->n_prefix_slots - 1;

  /* Placed by the mark, not the hash: a rehash only has the marks. */
  for (gsize i = mark & mask;; i = (i + 1) & mask)
    {
      if (self->prefix_slots[i] == mark)
        return;
      if (self->prefix_slots[i] == 0)
        {
          self->prefix_slots[i] = mark;
          self->n_prefixes++;
          return;
        }
    }
}

static inline gboolean
assay_masker_prefix_known (AssayMasker *self,
                           guint64      hash)
{
  guint64 mark = assay_masker_prefix_mark (hash);
  gsize mask = self->n_prefix_slots - 1;

  for (gsize i = mark & mask;; i = (i + 1) & mask)
    {
      if (self->prefix_slots[i] == mark)
        return TRUE;
      if (self->prefix_slots[i] == 0)
        return FALSE;
    }
}

static void
assay_masker_key_slot_insert (AssayMasker *self,
                              guint32      index)
{
  const Key *key = &g_array_index (self->keys, Key, index);
  gsize mask = self->n_key_slots - 1;

  for (gsize i = key->hash & mask;; i = (i + 1) & mask)
    if (self->key_slots[i] == 0)
      {
        self->key_slots[i] = index + 1;
        return;
      }
}

static const Key *
assay_masker_find_key (AssayMasker *self,
                       guint64      hash,
                       const char  *text,
                       gsize        length)
{
  gsize mask;

  if (self->n_key_slots == 0)
    return NULL;
  mask = self->n_key_slots - 1;
  for (gsize i = hash & mask;; i = (i + 1) & mask)
    {
      const Key *key;

      if (self->key_slots[i] == 0)
        return NULL;
      key = &g_array_index (self->keys, Key, self->key_slots[i] - 1);
      if (key->hash == hash && key->length == length &&
          memcmp (self->arena->str + key->offset, text, length) == 0)
        return key;
    }
}

static void
assay_masker_grow (AssayMasker *self)
{
  gsize n_keys = self->keys->len;
  gsize wanted_prefixes = self->n_prefixes + PREFIX_HASHED;

  if (self->n_key_slots < 2 * (n_keys + 1))
    {
      gsize n = MAX (self->n_key_slots * 2, 1024);

      while (n < 2 * (n_keys + 1))
        n *= 2;
      g_free (self->key_slots);
      self->key_slots = g_new0 (guint32, n);
      self->n_key_slots = n;
      for (guint32 k = 0; k < n_keys; k++)
        assay_masker_key_slot_insert (self, k);
    }
  if (self->n_prefix_slots < 2 * wanted_prefixes)
    {
      gsize n = MAX (self->n_prefix_slots * 2, 4096);
      g_autofree guint64 *old = self->prefix_slots;
      gsize n_old = self->n_prefix_slots;

      while (n < 2 * wanted_prefixes)
        n *= 2;
      self->prefix_slots = g_new0 (guint64, n);
      self->n_prefix_slots = n;
      self->n_prefixes = 0;
      for (gsize i = 0; i < n_old; i++)
        if (old[i] != 0)
          assay_masker_prefix_insert (self, old[i]);
    }
}

gsize
assay_masker_get_memory (AssayMasker *self)
{
  g_return_val_if_fail (ASSAY_IS_MASKER (self), 0);

  return self->arena->allocated_len +
         self->values->len * sizeof (Value) + self->keys->len * sizeof (Key) +
         self->n_key_slots * sizeof (guint32) + self->n_prefix_slots * sizeof (guint64);
}

static gboolean
assay_masker_is_word_byte (guint8 byte)
{
  return g_ascii_isalnum (byte) || byte == '_' || byte >= 0x80;
}

/* Adds TEXT as a form of VALUE; FALSE when it is there already. */
static gboolean
assay_masker_add_key (AssayMasker *self,
                      guint32      value,
                      const char  *text,
                      gsize        length)
{
  guint64 hash = assay_masker_hash (text, length);
  Key key;

  if (length == 0 || assay_masker_find_key (self, hash, text, length) != NULL)
    return FALSE;

  key.hash = hash;
  key.offset = self->arena->len;
  key.length = length;
  key.value = value;
  g_string_append_len (self->arena, text, length);
  g_array_append_val (self->keys, key);
  assay_masker_grow (self);
  assay_masker_key_slot_insert (self, self->keys->len - 1);

  hash = FNV_OFFSET;
  for (gsize i = 0; i < MIN (length, PREFIX_HASHED); i++)
    {
      hash = assay_masker_hash_step (hash, (guint8) text[i]);
      assay_masker_prefix_insert (self, hash);
    }
  self->first_bytes[(guint8) text[0]] = 1;
  self->max_key_length = MAX (self->max_key_length, length);
  return TRUE;
}

/* ---- adding values ----------------------------------------------------------------------- */

guint
assay_masker_add_column (AssayMasker *self,
                         const char  *name,
                         const char  *column)
{
  Column *entry;

  g_return_val_if_fail (ASSAY_IS_MASKER (self), 0);
  g_return_val_if_fail (name != NULL && column != NULL, 0);

  for (guint i = 0; i < self->columns->len; i++)
    {
      entry = g_ptr_array_index (self->columns, i);
      if (g_str_equal (entry->dataset, name) && g_str_equal (entry->column, column))
        return i;
    }

  entry = g_new0 (Column, 1);
  entry->dataset = g_strdup (name);
  entry->column = g_strdup (column);
  entry->numbers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  entry->values = g_array_new (FALSE, FALSE, sizeof (guint32));
  /* The placeholder names the column; a column of that name masked in another dataset
   * makes both say their dataset too. */
  entry->label = g_strndup (column, MAX_LABEL);
  for (guint i = 0; i < self->columns->len; i++)
    {
      Column *other = g_ptr_array_index (self->columns, i);

      if (g_str_equal (other->column, column))
        {
          g_free (entry->label);
          entry->label = g_strdup_printf ("%s:%s", name, column);
          if (!strchr (other->label, ':'))
            {
              g_free (other->label);
              other->label = g_strdup_printf ("%s:%s", other->dataset, other->column);
            }
        }
    }
  g_ptr_array_add (self->columns, entry);
  return self->columns->len - 1;
}

static void
assay_masker_update_warning (AssayMasker *self)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *size = g_format_size (self->max_bytes);

  if (self->full)
    g_string_append_printf (text,
                            _("The masked columns have more distinct values than Assay holds "
                              "(%s of memory): values beyond that are not masked."),
                            size);
  if (self->too_long > 0)
    {
      if (text->len > 0)
        g_string_append_c (text, ' ');
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, self->too_long);

      /* The count as text: a format macro inside the message would hide it from xgettext. */
      g_string_append_printf (text,
                              g_dngettext (GETTEXT_PACKAGE,
                                           "%s value longer than %u bytes is not masked.",
                                           "%s values longer than %u bytes are not masked.",
                                           self->too_long),
                              count, ASSAY_MASKER_MAX_VALUE_BYTES);
    }
  g_free (self->warning);
  self->warning = text->len > 0 ? g_strdup (text->str) : NULL;
}

/* A date or time as pandas, numpy and str () print it, the time of day whole seconds: with
 * a space (Timestamp, str, a table) or a T (isoformat, to_json's ISO dates in milliseconds,
 * numpy's datetime64 in nanoseconds), and to_json's default, milliseconds since 1970. */
static void
assay_masker_add_time_forms (AssayMasker *self,
                             guint32      value,
                             double       seconds)
{
  static const char * const formats[] = {
    "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%S.000", "%Y-%m-%dT%H:%M:%S.000000000",
  };
  g_autoptr(GDateTime) time = NULL;
  char buffer[32];

  if (!isfinite (seconds) || seconds != floor (seconds) || fabs (seconds) > 1e13)
    return;
  time = g_date_time_new_from_unix_utc ((gint64) seconds);
  if (time == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autofree char *shown = g_date_time_format (time, formats[i]);

      if (shown != NULL)
        assay_masker_add_key (self, value, shown, strlen (shown));
    }
  g_snprintf (buffer, sizeof buffer, "%" G_GINT64_FORMAT, (gint64) seconds * 1000);
  assay_masker_add_key (self, value, buffer, strlen (buffer));
}

/* pandas shows a longer string in a table cut to display.max_colwidth (50) characters, the
 * last three "...", after writing its tabs and line breaks as \t, \r and \n: that start
 * of it is the value too, kept as pandas prints it and with those escapes decoded (as the
 * masker reads text with escapes; an escape cut in two keeps its backslash). The 50 count
 * the space pandas puts before a cell (WIDTH 46 of the value show); a cut of 47 is kept for
 * a cell written without it. */
static void
assay_masker_add_cut (AssayMasker *self,
                      guint32      value,
                      const char  *text,
                      gsize        length,
                      glong        width)
{
  g_autoptr(GString) shown = g_string_new (NULL);
  g_autoptr(GString) decoded = g_string_new (NULL);
  const char *end = text + length;
  glong used = 0;
  const char *p;

  for (p = text; p < end; p = g_utf8_next_char (p))
    {
      const char *escape = *p == '\n' ? "\\n" : *p == '\r' ? "\\r" : *p == '\t' ? "\\t" : NULL;
      glong needed = escape != NULL ? 2 : 1;

      if (used + needed > width)
        {
          if (escape != NULL && used + 1 == width)
            {
              g_string_append_c (shown, '\\');
              g_string_append_c (decoded, '\\');
            }
          break;
        }
      if (escape != NULL)
        g_string_append (shown, escape);
      else
        g_string_append_len (shown, p, g_utf8_next_char (p) - p);
      g_string_append_len (decoded, p, g_utf8_next_char (p) - p);
      used += needed;
    }
  if (p >= end)
    return;
  g_string_append (shown, "...");
  g_string_append (decoded, "...");
  assay_masker_add_key (self, value, shown->str, shown->len);
  assay_masker_add_key (self, value, decoded->str, decoded->len);
}

static void
assay_masker_add_cut_form (AssayMasker *self,
                           guint32      value,
                           const char  *text,
                           gsize        length)
{
  glong shown = 0;

  for (const char *p = text; p < text + length; p = g_utf8_next_char (p))
    shown += *p == '\n' || *p == '\r' || *p == '\t' ? 2 : 1;
  /* Cut when the cell (a space and the value) is wider than 50. */
  if (shown + 1 > PANDAS_MAX_COLWIDTH)
    assay_masker_add_cut (self, value, text, length, PANDAS_MAX_COLWIDTH - 4);
  if (shown > PANDAS_MAX_COLWIDTH)
    assay_masker_add_cut (self, value, text, length, PANDAS_MAX_COLWIDTH - 3);
}

/* A multi-line value's lines, each on its own: to_markdown (tabulate) writes a cell's lines
 * on rows of their own. A line shorter than MIN_LINE is not looked for (it would be found in
 * too many places that are not the value). */
static void
assay_masker_add_line_forms (AssayMasker *self,
                             guint32      value,
                             const char  *text,
                             gsize        length)
{
  const char *end = text + length;

  if (memchr (text, '\n', length) == NULL)
    return;
  for (const char *line = text; line < end;)
    {
      const char *next = memchr (line, '\n', end - line);
      const char *stop = next != NULL ? next : end;

      while (line < stop && g_ascii_isspace (*line))
        line++;
      while (stop > line && g_ascii_isspace (stop[-1]))
        stop--;
      if (g_utf8_strlen (line, stop - line) >= MIN_LINE)
        assay_masker_add_key (self, value, line, stop - line);
      line = next != NULL ? next + 1 : end;
    }
}

/* The other ways Python prints the value TEXT: an integer without leading zeros, signs or
 * separators, a float in its shortest form, a date as yyyy-mm-dd, a date or time as pandas
 * prints it, a long string as a table cuts it, the lines of a multi-line one. The escapes
 * of JSON and of Python's repr are not forms: the text is read with them decoded
 * (assay_masker_mask ()). */
static void
assay_masker_add_forms (AssayMasker *self,
                        guint32      value,
                        const char  *text,
                        gsize        length)
{
  static const AssayValueFormat formats[] = {
    { '.', "", 0 },
    { ',', "", 0 },
  };

  assay_masker_add_cut_form (self, value, text, length);
  assay_masker_add_line_forms (self, value, text, length);

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      AssayValue parsed = { 0 };
      guint kinds = assay_value_classify (text, length, &formats[f],
                                          ASSAY_VALUE_INTEGER | ASSAY_VALUE_FLOAT | ASSAY_VALUE_DATE |
                                          ASSAY_VALUE_DATETIME,
                                          &parsed);

      if (kinds & ASSAY_VALUE_INTEGER && fabs (parsed.number) < 9e15)
        {
          char buffer[32];

          g_snprintf (buffer, sizeof buffer, "%" G_GINT64_FORMAT, (gint64) parsed.number);
          assay_masker_add_key (self, value, buffer, strlen (buffer));
          /* pandas prints an integer column with a missing value as floats. */
          g_strlcat (buffer, ".0", sizeof buffer);
          assay_masker_add_key (self, value, buffer, strlen (buffer));
        }
      else if (kinds & ASSAY_VALUE_FLOAT && isfinite (parsed.number))
        {
          char buffer[G_ASCII_DTOSTR_BUF_SIZE];

          g_ascii_dtostr (buffer, sizeof buffer, parsed.number);
          assay_masker_add_key (self, value, buffer, strlen (buffer));
        }
      if (kinds & ASSAY_VALUE_DATE)
        {
          g_autofree char *month_first = NULL;
          g_autofree char *day_first = NULL;

          if (!(parsed.flags & ASSAY_VALUE_SLASH_DATE) || parsed.flags & ASSAY_VALUE_MDY_VALID)
            month_first = assay_value_format_time (parsed.number, FALSE);
          if (parsed.flags & ASSAY_VALUE_SLASH_DATE && parsed.flags & ASSAY_VALUE_DMY_VALID)
            day_first = assay_value_format_time (parsed.number_dmy, FALSE);
          if (month_first != NULL)
            assay_masker_add_key (self, value, month_first, strlen (month_first));
          if (day_first != NULL)
            assay_masker_add_key (self, value, day_first, strlen (day_first));
        }
      /* A time zone moves the time pandas prints: only a local time is followed. */
      if (kinds & (ASSAY_VALUE_DATE | ASSAY_VALUE_DATETIME) && !(parsed.flags & ASSAY_VALUE_HAS_TIMEZONE))
        {
          if (!(parsed.flags & ASSAY_VALUE_SLASH_DATE) || parsed.flags & ASSAY_VALUE_MDY_VALID)
            assay_masker_add_time_forms (self, value, parsed.number);
          if (parsed.flags & ASSAY_VALUE_SLASH_DATE && parsed.flags & ASSAY_VALUE_DMY_VALID)
            assay_masker_add_time_forms (self, value, parsed.number_dmy);
        }
    }
}

gboolean
assay_masker_add_value (AssayMasker *self,
                        guint        column,
                        const char  *text,
                        gsize        length)
{
  Column *entry;
  Value value;
  guint32 index;
  g_autofree char *copy = NULL;

  g_return_val_if_fail (ASSAY_IS_MASKER (self), FALSE);
  g_return_val_if_fail (column < self->columns->len, FALSE);

  if (self->full)
    return FALSE;
  /* The value as a cell shows it: without the spaces around it. */
  while (length > 0 && g_ascii_isspace (*text))
    text++, length--;
  while (length > 0 && g_ascii_isspace (text[length - 1]))
    length--;
  if (length == 0 || assay_value_is_null (text, length))
    return TRUE;
  if (length > ASSAY_MASKER_MAX_VALUE_BYTES)
    {
      self->too_long++;
      assay_masker_update_warning (self);
      return TRUE;
    }
  if (memchr (text, '\0', length) != NULL || !g_utf8_validate (text, length, NULL))
    return TRUE;

  entry = g_ptr_array_index (self->columns, column);
  copy = g_strndup (text, length);
  if (g_hash_table_contains (entry->numbers, copy))
    return TRUE;
  if (assay_masker_get_memory (self) + 4 * length + 256 > self->max_bytes)
    {
      self->full = TRUE;
      assay_masker_update_warning (self);
      return FALSE;
    }

  index = self->values->len;
  value.column = column;
  value.number = entry->values->len + 1;
  value.offset = self->arena->len;
  value.length = length;
  g_string_append_len (self->arena, text, length);
  g_array_append_val (self->values, value);
  g_array_append_val (entry->values, index);
  g_hash_table_insert (entry->numbers, g_steal_pointer (&copy), GUINT_TO_POINTER (value.number));

  /* A value already masked in another column keeps its first placeholder. */
  assay_masker_add_key (self, index, text, length);
  assay_masker_add_forms (self, index, text, length);
  return TRUE;
}

static gboolean
assay_masker_collect_cb (const char *value,
                         gsize       length,
                         gpointer    user_data)
{
  gpointer *data = user_data;

  return assay_masker_add_value (data[0], GPOINTER_TO_UINT (data[1]), value, length);
}

gboolean
assay_masker_add_dataset_column (AssayMasker   *self,
                                 const char    *name,
                                 AssayDataset  *dataset,
                                 const char    *column,
                                 GCancellable  *cancellable,
                                 GError       **error)
{
  int index;
  guint entry_index;
  Column *entry;
  gpointer data[2];

  g_return_val_if_fail (ASSAY_IS_MASKER (self), FALSE);
  g_return_val_if_fail (ASSAY_IS_DATASET (dataset), FALSE);

  if (assay_dataset_is_database (dataset))
    {
      /* A database's column is masked as a connection's: NAME is "DATABASE.TABLE". */
      g_autofree char *basename = g_path_get_basename (assay_dataset_get_path (dataset));
      const char *table = assay_dataset_get_mask_table (dataset, basename, name);

      index = table != NULL ? assay_dataset_find_table_column (dataset, table, column) : -1;
    }
  else
    index = assay_dataset_find_column (dataset, column);
  if (index < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("%s has no column “%s” to mask"), name, column);
      return FALSE;
    }
  if (assay_dataset_is_workbook (dataset))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s is a workbook: Assay masks columns of delimited text files"), name);
      return FALSE;
    }
  entry_index = assay_masker_add_column (self, name, column);
  entry = g_ptr_array_index (self->columns, entry_index);
  if (entry->done)
    return TRUE;
  data[0] = self;
  data[1] = GUINT_TO_POINTER (entry_index);
  if (!assay_dataset_foreach_value (dataset, (guint) index, assay_masker_collect_cb, data,
                                    cancellable, error))
    return FALSE;
  entry->done = TRUE;
  return TRUE;
}

guint
assay_masker_get_n_columns (AssayMasker *self)
{
  g_return_val_if_fail (ASSAY_IS_MASKER (self), 0);
  return self->columns->len;
}

guint
assay_masker_get_n_values (AssayMasker *self)
{
  g_return_val_if_fail (ASSAY_IS_MASKER (self), 0);
  return self->values->len;
}

gboolean
assay_masker_has_column (AssayMasker *self,
                         const char  *dataset,
                         const char  *column)
{
  g_return_val_if_fail (ASSAY_IS_MASKER (self), FALSE);

  for (guint i = 0; i < self->columns->len; i++)
    {
      Column *entry = g_ptr_array_index (self->columns, i);

      if (g_str_equal (entry->dataset, dataset) && g_str_equal (entry->column, column))
        return TRUE;
    }
  return FALSE;
}

const char *
assay_masker_get_warning (AssayMasker *self)
{
  g_return_val_if_fail (ASSAY_IS_MASKER (self), NULL);
  return self->warning;
}

guint
assay_masker_get_last_count (AssayMasker *self)
{
  g_return_val_if_fail (ASSAY_IS_MASKER (self), 0);
  return self->last_count;
}

/* ---- masking ----------------------------------------------------------------------------- */

/* Whether the character ending at END (exclusive) is a letter, digit or '_'. */
static gboolean
assay_masker_word_before (const char *text,
                          const char *at)
{
  const char *prev;

  if (at == text)
    return FALSE;
  if ((guint8) at[-1] < 0x80)
    return assay_masker_is_word_byte ((guint8) at[-1]);
  prev = g_utf8_find_prev_char (text, at);
  return prev != NULL && g_unichar_isalnum (g_utf8_get_char_validated (prev, at - prev));
}

static gboolean
assay_masker_word_at (const char *at,
                      const char *end)
{
  gunichar c;

  if (at >= end)
    return FALSE;
  if ((guint8) *at < 0x80)
    return assay_masker_is_word_byte ((guint8) *at);
  c = g_utf8_get_char_validated (at, end - at);
  return c != (gunichar) -1 && c != (gunichar) -2 && g_unichar_isalnum (c);
}

/* A key may start at AT: not inside a word or a number ("17" in "2017" or "1.17"). */
static gboolean
assay_masker_starts_token (const char *text,
                           const char *at)
{
  if (!assay_masker_is_word_byte ((guint8) *at))
    return TRUE;
  if (assay_masker_word_before (text, at))
    return FALSE;
  if (g_ascii_isdigit (*at) && at - text >= 2 && (at[-1] == '.' || at[-1] == ',') &&
      g_ascii_isdigit (at[-2]))
    return FALSE;
  return TRUE;
}

static gboolean
assay_masker_ends_token (const char *at,
                         const char *end)
{
  if (!assay_masker_is_word_byte ((guint8) at[-1]))
    return TRUE;
  if (assay_masker_word_at (at, end))
    return FALSE;
  /* A number cut before its decimals is not the number. */
  if (g_ascii_isdigit (at[-1]) && end - at >= 2 && (at[0] == '.' || at[0] == ',') &&
      g_ascii_isdigit (at[1]))
    return FALSE;
  return TRUE;
}

/* The length of a placeholder at AT, or 0. */
static gsize
assay_masker_placeholder_at (const char *at,
                             const char *end,
                             const char **label,
                             gsize       *label_length,
                             guint64     *number)
{
  const char *p = at + BRACKET_LEN;
  const char *space = NULL;
  const char *limit = MIN (end, at + BRACKET_LEN + MAX_LABEL + 24);

  if (end - at < 2 * BRACKET_LEN + 3 || memcmp (at, OPEN_BRACKET, BRACKET_LEN) != 0)
    return 0;
  for (; p + BRACKET_LEN <= limit; p++)
    {
      if (memcmp (p, CLOSE_BRACKET, BRACKET_LEN) == 0)
        break;
      if (*p == ' ')
        space = p;
      if (*p == '\n')
        return 0;
    }
  if (p + BRACKET_LEN > limit || space == NULL || space + 1 >= p)
    return 0;
  for (const char *d = space + 1; d < p; d++)
    if (!g_ascii_isdigit (*d))
      return 0;
  *label = at + BRACKET_LEN;
  *label_length = space - *label;
  *number = g_ascii_strtoull (space + 1, NULL, 10);
  return p + BRACKET_LEN - at;
}

static void
assay_masker_append_placeholder (AssayMasker *self,
                                 GString     *out,
                                 guint32      value_index)
{
  const Value *value = &g_array_index (self->values, Value, value_index);
  const Column *column = g_ptr_array_index (self->columns, value->column);

  g_string_append_printf (out, OPEN_BRACKET "%s %u" CLOSE_BRACKET, column->label, value->number);
}

/* Replaces every key found in SCAN (LENGTH bytes) in SOURCE: SCAN is SOURCE itself when MAP
 * is NULL, else a decoded copy of it whose byte I stands for SOURCE's byte MAP[I]. */
static void
assay_masker_replace (AssayMasker  *self,
                      const char   *scan,
                      gsize         length,
                      const char   *source,
                      const gsize  *map,
                      GString      *out)
{
  const char *end = scan + length;
  const char *p = scan;
  gsize copied = 0;

  while (p < end)
    {
      const char *label;
      gsize label_length, skip;
      guint64 number, hash;
      const Key *best = NULL;
      gsize best_length = 0;
      gsize limit;

      /* A placeholder already there stays as it is: its number is not a value. */
      if ((guint8) *p == 0xe2 && (skip = assay_masker_placeholder_at (p, end, &label, &label_length, &number)) > 0)
        {
          p += skip;
          continue;
        }
      if (!self->first_bytes[(guint8) *p] || !assay_masker_starts_token (scan, p))
        {
          p++;
          continue;
        }

      limit = MIN ((gsize) (end - p), self->max_key_length);
      hash = FNV_OFFSET;
      for (gsize i = 0; i < limit; i++)
        {
          const Key *key;

          hash = assay_masker_hash_step (hash, (guint8) p[i]);
          if (i < PREFIX_HASHED && !assay_masker_prefix_known (self, hash))
            break;
          if (assay_masker_ends_token (p + i + 1, end) &&
              (key = assay_masker_find_key (self, hash, p, i + 1)) != NULL)
            {
              best = key;
              best_length = i + 1;
            }
        }
      if (best == NULL)
        {
          p++;
          continue;
        }
      {
        gsize from = map != NULL ? map[p - scan] : (gsize) (p - scan);

        g_string_append_len (out, source + copied, from - copied);
        assay_masker_append_placeholder (self, out, best->value);
        self->last_count++;
        p += best_length;
        copied = map != NULL ? map[p - scan] : (gsize) (p - scan);
      }
    }
  g_string_append (out, source + copied);
}

static int
assay_masker_hex (const char *at,
                  guint       digits)
{
  int number = 0;

  for (guint i = 0; i < digits; i++)
    {
      if (!g_ascii_isxdigit (at[i]))
        return -1;
      number = number * 16 + g_ascii_xdigit_value (at[i]);
    }
  return number;
}

/* The character the escape at AT (a backslash) stands for, in JSON or a Python string's
 * repr; its length in *LENGTH. 0 for none (an unknown escape, a NUL, a lone surrogate). */
static gunichar
assay_masker_escape_at (const char *at,
                        gsize      *length)
{
  int high, low;

  *length = 2;
  switch (at[1])
    {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case 'b': return '\b';
    case 'f': return '\f';
    case '"': case '\'': case '\\': case '/':
      return (gunichar) at[1];
    case 'x':
      high = assay_masker_hex (at + 2, 2);
      *length = 4;
      return high > 0 ? (gunichar) high : 0;
    case 'U':
      high = assay_masker_hex (at + 2, 8);
      *length = 10;
      return high > 0 && g_unichar_validate ((gunichar) high) ? (gunichar) high : 0;
    case 'u':
      high = assay_masker_hex (at + 2, 4);
      *length = 6;
      if (high < 0xd800 || high > 0xdfff)
        return high > 0 ? (gunichar) high : 0;
      /* JSON writes a character past U+FFFF as a surrogate pair. */
      if (high > 0xdbff || at[6] != '\\' || at[7] != 'u' || (low = assay_masker_hex (at + 8, 4)) < 0xdc00 ||
          low > 0xdfff)
        return 0;
      *length = 12;
      return 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00);
    default:
      return 0;
    }
}

/* TEXT with the escapes of JSON and Python's repr, and SQL's doubled quotes, decoded; *MAP (one more than the copy's
 * length) gives the offset in TEXT of each of its bytes. */
static char *
assay_masker_decode (const char  *text,
                     gsize        length,
                     gsize      **map,
                     gsize       *decoded_length)
{
  GString *out = g_string_sized_new (length);
  gsize *offsets = g_new (gsize, length + 1);

  for (gsize i = 0; i < length;)
    {
      gsize escape_length = 0;
      gunichar c = text[i] == '\\' && i + 1 < length ? assay_masker_escape_at (text + i, &escape_length) : 0;

      /* SQL doubles a quote inside a literal: a database's error quotes it so. */
      if (text[i] == '\'' && text[i + 1] == '\'')
        c = '\'', escape_length = 2;

      if (c == 0)
        {
          offsets[out->len] = i;
          g_string_append_c (out, text[i]);
          i++;
          continue;
        }
      for (gsize start = out->len, n = (g_string_append_unichar (out, c), out->len); start < n; start++)
        offsets[start] = i;
      i += escape_length;
    }
  offsets[out->len] = length;
  *map = offsets;
  *decoded_length = out->len;
  return g_string_free (out, FALSE);
}

char *
assay_masker_mask (AssayMasker *self,
                   const char  *text)
{
  GString *out;
  gsize length;

  g_return_val_if_fail (ASSAY_IS_MASKER (self), NULL);

  self->last_count = 0;
  if (text == NULL)
    return g_strdup ("");
  if (self->keys->len == 0)
    return g_strdup (text);

  length = strlen (text);
  out = g_string_sized_new (length + 64);
  /* Text with backslashes (or doubled quotes) is read first with the escapes of JSON and
   * Python's repr decoded (to_json's \u00fc and \/, repr's and pandas' \n; SQL's ''), then
   * as it is (a value that holds a backslash, printed as it is). */
  if (memchr (text, '\\', length) != NULL || strstr (text, "''") != NULL)
    {
      g_autofree gsize *map = NULL;
      gsize decoded_length;
      g_autofree char *decoded = assay_masker_decode (text, length, &map, &decoded_length);
      g_autoptr(GString) first = g_string_sized_new (length + 64);

      assay_masker_replace (self, decoded, decoded_length, text, map, first);
      assay_masker_replace (self, first->str, first->len, first->str, NULL, out);
    }
  else
    assay_masker_replace (self, text, length, text, NULL, out);
  return g_string_free (out, FALSE);
}

/* ---- a dataset's samples ----------------------------------------------------------------- */

typedef struct
{
  AssayMasker *masker;
  char        *name;
} Samples;

static void
assay_masker_samples_free (gpointer data)
{
  Samples *samples = data;

  g_object_unref (samples->masker);
  g_free (samples->name);
  g_free (samples);
}

/* A masked column's value as its placeholder; one the masker does not hold (past the cap)
 * as the column's name in brackets, which stands for no value. */
static char *
assay_masker_mask_sample_cb (const char *column,
                             const char *value,
                             gpointer    user_data)
{
  Samples *samples = user_data;
  AssayMasker *self = samples->masker;
  gsize length = strlen (value);
  g_autofree char *copy = NULL;

  for (guint i = 0; i < self->columns->len; i++)
    {
      Column *entry = g_ptr_array_index (self->columns, i);
      guint number;

      if (!g_str_equal (entry->dataset, samples->name) || !g_str_equal (entry->column, column))
        continue;
      while (length > 0 && g_ascii_isspace (*value))
        value++, length--;
      while (length > 0 && g_ascii_isspace (value[length - 1]))
        length--;
      copy = g_strndup (value, length);
      number = GPOINTER_TO_UINT (g_hash_table_lookup (entry->numbers, copy));
      if (number == 0)
        return g_strdup_printf (OPEN_BRACKET "%s" CLOSE_BRACKET, entry->label);
      {
        g_autoptr(GString) out = g_string_new (NULL);

        assay_masker_append_placeholder (self, out, g_array_index (entry->values, guint32, number - 1));
        return g_string_free (g_steal_pointer (&out), FALSE);
      }
    }
  return NULL;
}

void
assay_masker_mask_samples (AssayMasker  *self,
                           AssayDataset *dataset,
                           const char   *name)
{
  Samples *samples;

  g_return_if_fail (ASSAY_IS_MASKER (self));
  g_return_if_fail (ASSAY_IS_DATASET (dataset));
  g_return_if_fail (name != NULL);

  samples = g_new0 (Samples, 1);
  samples->masker = g_object_ref (self);
  samples->name = g_strdup (name);
  assay_dataset_set_mask_func (dataset, assay_masker_mask_sample_cb, samples, assay_masker_samples_free);
}

/* ---- unmasking --------------------------------------------------------------------------- */

/* The value a placeholder stands for, or NULL. */
static const Value *
assay_masker_lookup (AssayMasker *self,
                     const char  *label,
                     gsize        label_length,
                     guint64      number)
{
  for (guint i = 0; i < self->columns->len; i++)
    {
      Column *column = g_ptr_array_index (self->columns, i);

      if (strlen (column->label) == label_length && memcmp (column->label, label, label_length) == 0)
        {
          if (number < 1 || number > column->values->len)
            return NULL;
          return &g_array_index (self->values, Value,
                                 g_array_index (column->values, guint32, number - 1));
        }
    }
  return NULL;
}

char *
assay_masker_unmask (AssayMasker *self,
                     const char  *text)
{
  GString *out;
  const char *end;
  const char *copied;
  const char *p;

  g_return_val_if_fail (ASSAY_IS_MASKER (self), NULL);

  if (text == NULL)
    return NULL;
  end = text + strlen (text);
  out = g_string_sized_new (end - text);
  copied = text;
  for (p = text; (p = memchr (p, 0xe2, end - p)) != NULL;)
    {
      const char *label;
      gsize label_length, length;
      guint64 number;
      const Value *value;

      length = assay_masker_placeholder_at (p, end, &label, &label_length, &number);
      if (length == 0 || (value = assay_masker_lookup (self, label, label_length, number)) == NULL)
        {
          p++;
          continue;
        }
      g_string_append_len (out, copied, p - copied);
      g_string_append_len (out, self->arena->str + value->offset, value->length);
      p += length;
      copied = p;
    }
  g_string_append_len (out, copied, end - copied);
  return g_string_free (out, FALSE);
}

/* Whether TEXT is a number Python reads as one: no leading zeros, no separators. */
static gboolean
assay_masker_is_python_number (const char *text,
                               gsize       length)
{
  gsize i = 0;
  gboolean dot = FALSE;
  gsize digits = 0;

  if (length > 0 && text[0] == '-')
    i++;
  if (i < length && text[i] == '0' && i + 1 < length && g_ascii_isdigit (text[i + 1]))
    return FALSE;
  for (; i < length; i++)
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

/* VALUE inside a string literal closed by QUOTE (raw: no escapes work there). */
static void
assay_masker_append_escaped (GString    *out,
                             const char *value,
                             gsize       length,
                             char        quote,
                             gboolean    raw)
{
  for (gsize i = 0; i < length; i++)
    {
      guint8 c = (guint8) value[i];

      if (raw)
        {
          g_string_append_c (out, c == '\n' || c == '\r' ? ' ' : (char) c);
          continue;
        }
      if (c == '\\' || c == (guint8) quote)
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) c);
        }
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else
        g_string_append_c (out, (char) c);
    }
}

char *
assay_masker_unmask_code (AssayMasker *self,
                          const char  *code)
{
  GString *out;
  const char *end;
  const char *p;
  char quote = 0;         /* inside a string literal closed by it */
  gboolean triple = FALSE;
  gboolean raw = FALSE;
  gboolean comment = FALSE;

  g_return_val_if_fail (ASSAY_IS_MASKER (self), NULL);

  if (code == NULL)
    return NULL;
  end = code + strlen (code);
  out = g_string_sized_new (end - code);
  for (p = code; p < end;)
    {
      const char *label;
      gsize label_length, length;
      guint64 number;
      const Value *value;

      if ((guint8) *p == 0xe2 &&
          (length = assay_masker_placeholder_at (p, end, &label, &label_length, &number)) > 0 &&
          (value = assay_masker_lookup (self, label, label_length, number)) != NULL)
        {
          const char *text = self->arena->str + value->offset;

          if (comment)
            g_string_append_len (out, text, value->length);
          else if (quote != 0)
            assay_masker_append_escaped (out, text, value->length, quote, raw);
          else if (assay_masker_is_python_number (text, value->length))
            g_string_append_len (out, text, value->length);
          else
            {
              g_string_append_c (out, '\'');
              assay_masker_append_escaped (out, text, value->length, '\'', FALSE);
              g_string_append_c (out, '\'');
            }
          p += length;
          continue;
        }

      if (comment)
        {
          if (*p == '\n')
            comment = FALSE;
        }
      else if (quote != 0)
        {
          if (*p == '\\' && !raw && p + 1 < end)
            {
              g_string_append_len (out, p, 2);
              p += 2;
              continue;
            }
          if (*p == quote)
            {
              if (!triple)
                quote = 0;
              else if (end - p >= 3 && p[1] == quote && p[2] == quote)
                {
                  g_string_append_len (out, p, 3);
                  p += 3;
                  quote = 0;
                  continue;
                }
            }
          else if (*p == '\n' && !triple)
            quote = 0;   /* an unterminated literal ends at the line's end */
        }
      else if (*p == '#')
        comment = TRUE;
      else if (*p == '\'' || *p == '"')
        {
          /* The prefix letters just before the quote: r, b, f, u in any case and order. */
          raw = FALSE;
          for (const char *q = p - 1; q >= code && strchr ("rRbBfFuU", *q) != NULL && *q != '\0'; q--)
            {
              if (*q == 'r' || *q == 'R')
                raw = TRUE;
              if (q == code || !g_ascii_isalnum (q[-1]))
                break;
            }
          quote = *p;
          triple = end - p >= 3 && p[1] == quote && p[2] == quote;
          if (triple)
            {
              g_string_append_len (out, p, 3);
              p += 3;
              continue;
            }
        }
      g_string_append_c (out, *p);
      p++;
    }
  return g_string_free (out, FALSE);
}
