/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The vendors' list prices by model and date, and what a request cost at them. */
#define G_LOG_DOMAIN "Assay-Llm"

#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "assay-json.h"
#include "assay-prices.h"

#define ASSAY_PRICE_CURRENCY "USD"
#define ASSAY_PRICE_UNIT     "per 1M tokens"

struct _AssayPriceTable
{
  GPtrArray *prices;    /* AssayPrice*, sorted by model then since */
  char      *updated;
  char      *note;
};

G_DEFINE_BOXED_TYPE (AssayPriceTable, assay_price_table, assay_price_table_ref, assay_price_table_unref)

AssayPrice *
assay_price_copy (const AssayPrice *price)
{
  AssayPrice *copy;

  g_return_val_if_fail (price != NULL, NULL);

  copy = g_new (AssayPrice, 1);
  *copy = *price;
  copy->model = g_strdup (price->model);
  copy->since = g_strdup (price->since);
  return copy;
}

void
assay_price_free (AssayPrice *price)
{
  if (price == NULL)
    return;
  g_free (price->model);
  g_free (price->since);
  g_free (price);
}

static void
assay_price_table_clear (AssayPriceTable *self)
{
  g_ptr_array_unref (self->prices);
  g_free (self->updated);
  g_free (self->note);
}

AssayPriceTable *
assay_price_table_new (void)
{
  AssayPriceTable *self = g_atomic_rc_box_new0 (AssayPriceTable);

  self->prices = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_price_free);
  return self;
}

AssayPriceTable *
assay_price_table_ref (AssayPriceTable *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_atomic_rc_box_acquire (self);
}

void
assay_price_table_unref (AssayPriceTable *self)
{
  g_return_if_fail (self != NULL);

  g_atomic_rc_box_release_full (self, (GDestroyNotify) assay_price_table_clear);
}

/* The same model is named "openai/gpt-4.1" by routers and "gpt-4.1" by OpenAI. */
static const char *
assay_price_table_strip_provider (const char *model)
{
  if (g_str_has_prefix (model, "openai/"))
    return model + strlen ("openai/");
  if (g_str_has_prefix (model, "anthropic/"))
    return model + strlen ("anthropic/");
  return model;
}

/* Exactly "YYYY-MM-DD" and a day of the calendar: dates are compared as strings. */
static gboolean
assay_price_table_is_date (const char *text)
{
  guint year, month, day;

  if (text == NULL || strlen (text) != 10 || text[4] != '-' || text[7] != '-')
    return FALSE;
  for (guint i = 0; i < 10; i++)
    if (i != 4 && i != 7 && !g_ascii_isdigit (text[i]))
      return FALSE;
  year = (guint) g_ascii_strtoull (text, NULL, 10);
  month = (guint) g_ascii_strtoull (text + 5, NULL, 10);
  day = (guint) g_ascii_strtoull (text + 8, NULL, 10);
  return year >= 1 && g_date_valid_dmy ((GDateDay) day, (GDateMonth) month, (GDateYear) year);
}

static int
assay_price_table_compare (gconstpointer a,
                           gconstpointer b)
{
  const AssayPrice *pa = *(const AssayPrice * const *) a;
  const AssayPrice *pb = *(const AssayPrice * const *) b;
  int by_model = strcmp (pa->model, pb->model);

  if (by_model != 0)
    return by_model;
  /* An entry without a date is in force from the beginning, so it comes first. */
  if (pa->since == NULL || pb->since == NULL)
    return (pa->since != NULL) - (pb->since != NULL);
  return strcmp (pa->since, pb->since);
}

typedef enum
{
  ASSAY_PRICE_NUMBER_OK,
  ASSAY_PRICE_NUMBER_ABSENT,
  ASSAY_PRICE_NUMBER_BAD,
} AssayPriceNumber;

/* json-glib reads "8" as an integer and "8.0" as a double: both are prices. Anything but a
 * finite number from 0 to under ASSAY_PRICE_MAX is refused, so a typo never becomes a cost. */
static AssayPriceNumber
assay_price_table_read_number (JsonObject *entry,
                               const char *member,
                               double     *value)
{
  JsonNode *node = json_object_get_member (entry, member);
  double number;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return ASSAY_PRICE_NUMBER_ABSENT;
  if (!JSON_NODE_HOLDS_VALUE (node))
    return ASSAY_PRICE_NUMBER_BAD;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    number = (double) json_node_get_int (node);
  else if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    number = json_node_get_double (node);
  else
    return ASSAY_PRICE_NUMBER_BAD;
  if (!isfinite (number) || number < 0 || number >= ASSAY_PRICE_MAX)
    return ASSAY_PRICE_NUMBER_BAD;
  *value = number;
  return ASSAY_PRICE_NUMBER_OK;
}

static gboolean
assay_price_table_read_price (JsonObject  *entry,
                              const char  *member,
                              gboolean     required,
                              double      *value,
                              const char  *source,
                              guint        number,
                              const char  *model,
                              GError     **error)
{
  switch (assay_price_table_read_number (entry, member, value))
    {
    case ASSAY_PRICE_NUMBER_OK:
      return TRUE;
    case ASSAY_PRICE_NUMBER_ABSENT:
      if (!required)
        {
          *value = -1;
          return TRUE;
        }
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: entry %u (“%s”) has no “%s” price"), source, number, model, member);
      return FALSE;
    case ASSAY_PRICE_NUMBER_BAD:
    default:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: entry %u (“%s”): “%s” must be a price in US dollars per million tokens, "
                     "at least 0 and below %g"),
                   source, number, model, member, ASSAY_PRICE_MAX);
      return FALSE;
    }
}

/* Reads one entry of "models"; NUMBER counts from 1, as the analyst would. */
static AssayPrice *
assay_price_table_read_entry (JsonNode    *node,
                              const char  *source,
                              guint        number,
                              GError     **error)
{
  g_autoptr(AssayPrice) price = g_new0 (AssayPrice, 1);
  JsonObject *entry;
  JsonNode *since;
  const char *name;
  g_autofree char *model = NULL;
  glong length;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: entry %u of “models” is not an object"), source, number);
      return NULL;
    }
  entry = json_node_get_object (node);

  name = assay_json_get_string (entry, "model");
  if (name != NULL && g_utf8_validate (name, -1, NULL))
    {
      /* A name typed in Preferences with a space around it, or as a router writes it, would
       * otherwise never match. */
      g_autofree char *stripped = g_strstrip (g_strdup (name));

      model = g_strdup (assay_price_table_strip_provider (stripped));
    }
  length = model != NULL ? g_utf8_strlen (model, -1) : 0;
  for (const char *c = model; c != NULL && *c != '\0'; c = g_utf8_next_char (c))
    if (g_unichar_iscntrl (g_utf8_get_char (c)))
      length = 0;
  if (length < 1 || length > ASSAY_PRICE_MODEL_MAX)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: entry %u has no model name (“model”, 1 to %d characters)"),
                   source, number, ASSAY_PRICE_MODEL_MAX);
      return NULL;
    }

  since = json_object_get_member (entry, "since");
  if (since != NULL && !JSON_NODE_HOLDS_NULL (since))
    {
      const char *date = assay_json_get_string (entry, "since");

      if (!assay_price_table_is_date (date))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("%s: entry %u (“%s”): “since” must be a date written YYYY-MM-DD"),
                       source, number, model);
          return NULL;
        }
      price->since = g_strdup (date);
    }

  if (!assay_price_table_read_price (entry, "input", TRUE, &price->input, source, number, model, error) ||
      !assay_price_table_read_price (entry, "cached_input", FALSE, &price->cached_input, source, number, model, error) ||
      !assay_price_table_read_price (entry, "cache_write", FALSE, &price->cache_write, source, number, model, error) ||
      !assay_price_table_read_price (entry, "output", TRUE, &price->output, source, number, model, error))
    return NULL;

  price->model = g_steal_pointer (&model);
  return g_steal_pointer (&price);
}

/* SOURCE names the text in messages: the file's name, or "price table". */
static gboolean
assay_price_table_load_named (AssayPriceTable  *self,
                              const char       *json,
                              gssize            length,
                              const char       *source,
                              GError          **error)
{
  g_autoptr(GPtrArray) parsed = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_price_free);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *copy = NULL;
  JsonObject *object;
  JsonNode *member;
  JsonArray *models;
  const char *updated, *currency, *unit, *note;

  if (length >= 0)
    {
      /* assay_json_from_untrusted() reads up to a NUL: a NUL inside would hide the rest. */
      if (memchr (json, '\0', length) != NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("%s is not a price table: it holds a NUL byte"), source);
          return FALSE;
        }
      json = copy = g_strndup (json, length);
    }

  root = assay_json_from_untrusted (json, &local_error);
  if (root == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s is not valid JSON: %s"), source, local_error->message);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s is not a price table (a JSON object with a “models” list)"), source);
      return FALSE;
    }
  object = json_node_get_object (root);

  member = json_object_get_member (object, "updated");
  updated = assay_json_get_string (object, "updated");
  if (member != NULL && !JSON_NODE_HOLDS_NULL (member) && !assay_price_table_is_date (updated))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: “updated” must be a date written YYYY-MM-DD"), source);
      return FALSE;
    }
  /* Figures in another currency or per another count would be read wrong by a factor, so
   * a table that says so is refused rather than converted. */
  member = json_object_get_member (object, "currency");
  currency = assay_json_get_string (object, "currency");
  if (member != NULL && g_strcmp0 (currency, ASSAY_PRICE_CURRENCY) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: the prices must be in US dollars (“currency”: “%s”)"),
                   source, ASSAY_PRICE_CURRENCY);
      return FALSE;
    }
  member = json_object_get_member (object, "unit");
  unit = assay_json_get_string (object, "unit");
  if (member != NULL && g_strcmp0 (unit, ASSAY_PRICE_UNIT) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: the prices must be per million tokens (“unit”: “%s”)"),
                   source, ASSAY_PRICE_UNIT);
      return FALSE;
    }
  note = assay_json_get_string (object, "note");

  models = assay_json_get_array (object, "models");
  if (models == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s is not a price table: it has no “models” list"), source);
      return FALSE;
    }
  for (guint i = 0; i < json_array_get_length (models); i++)
    {
      AssayPrice *price = assay_price_table_read_entry (json_array_get_element (models, i),
                                                        source, i + 1, error);

      if (price == NULL)
        return FALSE;
      g_ptr_array_add (parsed, price);
    }

  /* Everything was read: only now is the table changed, so a refused text changes nothing. */
  for (guint i = 0; i < parsed->len; i++)
    {
      AssayPrice *price = g_ptr_array_index (parsed, i);
      gboolean replaced = FALSE;

      for (guint j = 0; j < self->prices->len && !replaced; j++)
        {
          AssayPrice *held = g_ptr_array_index (self->prices, j);

          if (g_str_equal (held->model, price->model) && g_strcmp0 (held->since, price->since) == 0)
            {
              assay_price_free (held);
              self->prices->pdata[j] = g_steal_pointer (&parsed->pdata[i]);
              replaced = TRUE;
            }
        }
      if (!replaced)
        g_ptr_array_add (self->prices, g_steal_pointer (&parsed->pdata[i]));
    }
  g_ptr_array_sort (self->prices, assay_price_table_compare);

  /* The user's overrides come second and must not pass for the shipped table's date. */
  if (self->updated == NULL && updated != NULL)
    self->updated = g_strdup (updated);
  if (self->note == NULL && note != NULL)
    self->note = g_strdup (note);
  return TRUE;
}

gboolean
assay_price_table_load_data (AssayPriceTable  *self,
                             const char       *json,
                             gssize            length,
                             GError          **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (json != NULL || length == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return assay_price_table_load_named (self, json != NULL ? json : "", length, _("price table"), error);
}

gboolean
assay_price_table_load_file (AssayPriceTable  *self,
                             const char       *path,
                             GError          **error)
{
  g_autofree char *contents = NULL;
  g_autofree char *display = NULL;
  gsize length;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* GLib's message names the file already. */
  if (!g_file_get_contents (path, &contents, &length, error))
    return FALSE;
  display = g_filename_display_name (path);
  return assay_price_table_load_named (self, contents, (gssize) length, display, error);
}

AssayPriceTable *
assay_price_table_new_shipped (GError **error)
{
  g_autoptr(AssayPriceTable) self = assay_price_table_new ();
  const char *path = g_getenv ("ASSAY_PRICES_FILE");

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (path == NULL || path[0] == '\0')
    path = ASSAY_PKGDATADIR "/prices.json";
  if (!assay_price_table_load_file (self, path, error))
    return NULL;
  return g_steal_pointer (&self);
}

char *
assay_price_table_get_user_path (void)
{
  return g_build_filename (g_get_user_config_dir (), "assay", "prices.json", NULL);
}

AssayPriceTable *
assay_price_table_new_default (GError **error)
{
  g_autoptr(AssayPriceTable) self = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *user_path = assay_price_table_get_user_path ();

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = assay_price_table_new_shipped (error);
  if (self == NULL)
    return NULL;
  if (!assay_price_table_load_file (self, user_path, &local_error))
    {
      if (!g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
    }
  return g_steal_pointer (&self);
}

/* TIME's day in UTC as "YYYY-MM-DD", in DATE (11 bytes). */
static void
assay_price_table_format_day (gint64  time,
                              char   *date)
{
  g_autoptr(GDateTime) when = NULL;
  g_autofree char *text = NULL;

  if (time == 0)
    time = g_get_real_time ();
  when = g_date_time_new_from_unix_utc (time / G_USEC_PER_SEC);
  if (when != NULL)
    text = g_date_time_format (when, "%Y-%m-%d");
  /* Beyond what GDateTime holds, the first or the last day still orders correctly. */
  if (text == NULL || strlen (text) != 10)
    g_strlcpy (date, time < 0 ? "0001-01-01" : "9999-12-31", 11);
  else
    g_strlcpy (date, text, 11);
}

const AssayPrice *
assay_price_table_lookup (AssayPriceTable *self,
                          const char      *model,
                          gint64           time)
{
  const char *name = NULL;
  gsize name_length = 0;
  const AssayPrice *in_force = NULL;
  const AssayPrice *earliest = NULL;
  char date[11];

  g_return_val_if_fail (self != NULL, NULL);

  if (model == NULL)
    return NULL;
  model = assay_price_table_strip_provider (model);
  if (model[0] == '\0')
    return NULL;

  for (guint i = 0; i < self->prices->len; i++)
    {
      const AssayPrice *price = g_ptr_array_index (self->prices, i);
      gsize length = strlen (price->model);

      if (g_str_equal (price->model, model))
        {
          name = price->model;
          break;
        }
      /* "gpt-4.1-mini-2025-04-14" is a snapshot of "gpt-4.1-mini", which is longer than
       * "gpt-4.1": the longest name wins. */
      if (length > name_length && strncmp (model, price->model, length) == 0 && model[length] == '-')
        {
          name = price->model;
          name_length = length;
        }
    }
  if (name == NULL)
    return NULL;

  assay_price_table_format_day (time, date);
  /* The entries of one name are sorted by date, the undated one first. */
  for (guint i = 0; i < self->prices->len; i++)
    {
      const AssayPrice *price = g_ptr_array_index (self->prices, i);

      if (!g_str_equal (price->model, name))
        continue;
      if (earliest == NULL)
        earliest = price;
      if (price->since == NULL || strcmp (price->since, date) <= 0)
        in_force = price;
    }
  /* A request older than the table's first date is still best priced at that date. */
  return in_force != NULL ? in_force : earliest;
}

double
assay_price_cost (const AssayPrice      *price,
                  const AssayTokenUsage *usage)
{
  gint64 input, cached, written, output, uncached;
  double cached_price, write_price;

  g_return_val_if_fail (usage != NULL, -1);

  if (price == NULL || (usage->input_tokens < 0 && usage->output_tokens < 0))
    return -1;

  input = MAX (usage->input_tokens, 0);
  cached = MAX (usage->cached_input_tokens, 0);
  written = MAX (usage->cache_write_tokens, 0);
  output = MAX (usage->output_tokens, 0);
  /* Counts from a server that do not add up must not make a negative cost. */
  uncached = MAX (input - cached - written, 0);
  cached_price = price->cached_input >= 0 ? price->cached_input : price->input;
  write_price = price->cache_write >= 0 ? price->cache_write : price->input;

  return ((double) uncached * price->input +
          (double) cached * cached_price +
          (double) written * write_price +
          (double) output * price->output) / 1e6;
}

/* The shortest text that reads back as VALUE, with at least two decimals as prices are
 * written ("8.00", "0.075"), and never a decimal comma whatever the locale. */
static void
assay_price_table_append_number (GString *json,
                                 double   value)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (text, sizeof text, "%.2f", value);
  if (g_ascii_strtod (text, NULL) != value)
    for (int digits = 1; digits <= 17; digits++)
      {
        char format[8];

        g_snprintf (format, sizeof format, "%%.%dg", digits);
        g_ascii_formatd (text, sizeof text, format, value);
        if (g_ascii_strtod (text, NULL) == value)
          break;
      }
  g_string_append (json, text);
}

static void
assay_price_table_append_string (GString    *json,
                                 const char *text)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), text);
  g_autofree char *quoted = json_to_string (node, FALSE);

  g_string_append (json, quoted);
}

static void
assay_price_table_append_member (GString    *json,
                                 const char *name,
                                 double      value)
{
  g_string_append_printf (json, ", \"%s\": ", name);
  assay_price_table_append_number (json, value);
}

/* Written by hand, one entry a line as in data/prices.json: the analyst may edit the file,
 * and json-glib would write 0.075 as 0.074999999999999997. */
char *
assay_price_table_to_json (AssayPriceTable *self)
{
  GString *json;

  g_return_val_if_fail (self != NULL, NULL);

  json = g_string_new ("{\n");
  if (self->updated != NULL)
    {
      g_string_append (json, "  \"updated\": ");
      assay_price_table_append_string (json, self->updated);
      g_string_append (json, ",\n");
    }
  g_string_append (json, "  \"currency\": \"" ASSAY_PRICE_CURRENCY "\",\n");
  g_string_append (json, "  \"unit\": \"" ASSAY_PRICE_UNIT "\",\n");
  if (self->note != NULL)
    {
      g_string_append (json, "  \"note\": ");
      assay_price_table_append_string (json, self->note);
      g_string_append (json, ",\n");
    }
  g_string_append (json, "  \"models\": [");
  for (guint i = 0; i < self->prices->len; i++)
    {
      const AssayPrice *price = g_ptr_array_index (self->prices, i);

      g_string_append (json, i == 0 ? "\n    {\"model\": " : ",\n    {\"model\": ");
      assay_price_table_append_string (json, price->model);
      if (price->since != NULL)
        {
          g_string_append (json, ", \"since\": ");
          assay_price_table_append_string (json, price->since);
        }
      assay_price_table_append_member (json, "input", price->input);
      if (price->cached_input >= 0)
        assay_price_table_append_member (json, "cached_input", price->cached_input);
      if (price->cache_write >= 0)
        assay_price_table_append_member (json, "cache_write", price->cache_write);
      assay_price_table_append_member (json, "output", price->output);
      g_string_append_c (json, '}');
    }
  g_string_append (json, self->prices->len > 0 ? "\n  ]\n}\n" : "]\n}\n");
  return g_string_free (json, FALSE);
}

gboolean
assay_price_table_save_user (const char  *json,
                             GError     **error)
{
  g_autoptr(AssayPriceTable) check = assay_price_table_new ();
  g_autofree char *path = assay_price_table_get_user_path ();
  g_autofree char *folder = g_path_get_dirname (path);
  g_autofree char *display = g_filename_display_name (path);

  g_return_val_if_fail (json != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!assay_price_table_load_named (check, json, -1, display, error))
    return FALSE;
  if (g_mkdir_with_parents (folder, 0700) != 0)
    {
      int saved_errno = errno;
      g_autofree char *folder_display = g_filename_display_name (folder);

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("Could not create the folder %s: %s"), folder_display, g_strerror (saved_errno));
      return FALSE;
    }
  return g_file_set_contents_full (path, json, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
}

GPtrArray *
assay_price_table_get_prices (AssayPriceTable *self)
{
  GPtrArray *prices;

  g_return_val_if_fail (self != NULL, NULL);

  prices = g_ptr_array_new_full (self->prices->len, (GDestroyNotify) assay_price_free);
  for (guint i = 0; i < self->prices->len; i++)
    g_ptr_array_add (prices, assay_price_copy (g_ptr_array_index (self->prices, i)));
  return prices;
}

const char *
assay_price_table_get_updated (AssayPriceTable *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->updated;
}

char *
assay_price_format_cost (double usd)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  char *dot;
  gsize length;

  if (!isfinite (usd) || usd < 0)
    return g_strdup ("—");
  if (usd == 0)
    return g_strdup ("$0");
  /* Four decimals would print "$0.0000", which reads as free. */
  if (usd < 0.0001)
    return g_strdup ("<$0.0001");
  if (usd >= 1)
    {
      g_ascii_formatd (text, sizeof text, "%.2f", usd);
      return g_strconcat ("$", text, NULL);
    }
  /* Below a dollar the fractions of a cent matter: up to four decimals, at least two. */
  g_ascii_formatd (text, sizeof text, "%.4f", usd);
  dot = strchr (text, '.');
  length = strlen (text);
  while (dot != NULL && length > (gsize) (dot - text) + 3 && text[length - 1] == '0')
    text[--length] = '\0';
  return g_strconcat ("$", text, NULL);
}
