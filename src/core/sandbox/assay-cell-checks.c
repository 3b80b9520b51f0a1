/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Sandbox"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "assay-cell-checks.h"
#include "assay-json.h"

#define MAX_NAME_BYTES 255

static const char * const kind_names[] = { "read", "merge", "drop_duplicates", "dropna" };
static const char * const merge_hows[] = { "inner", "left", "right", "outer", "cross", NULL };

static void
assay_cell_checks_item_free (AssayCheck *check)
{
  g_free (check->file);
  g_free (check->how);
  g_free (check);
}

static void
assay_cell_checks_frame_free (AssayCheckFrame *frame)
{
  g_free (frame->name);
  g_free (frame);
}

/* A Python identifier, which is all a frame's name may be. */
static gboolean
assay_cell_checks_is_identifier (const char *name)
{
  if (name == NULL || *name == '\0' || strlen (name) > MAX_NAME_BYTES || g_ascii_isdigit (*name))
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  return TRUE;
}

static char *
assay_cell_checks_clean_name (const char *name)
{
  g_autofree char *valid = NULL;
  gsize length;

  if (name == NULL || *name == '\0')
    return NULL;
  length = strlen (name);
  valid = g_utf8_make_valid (name, (gssize) MIN (length, MAX_NAME_BYTES));
  /* No control characters (a terminal or a report shows it). */
  for (char *p = valid; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      *p = '?';
  return g_steal_pointer (&valid);
}

static gint64
assay_cell_checks_count (JsonObject *object,
                         const char *member)
{
  gint64 value;

  if (!assay_json_get_int (object, member, &value) || value < 0)
    return -1;
  return value;
}

AssayCellChecks *
assay_cell_checks_from_json (JsonNode *node)
{
  g_autoptr(AssayCellChecks) checks = NULL;
  JsonObject *object;
  JsonArray *items, *files, *frames;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  object = json_node_get_object (node);
  checks = g_new0 (AssayCellChecks, 1);
  checks->items = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_cell_checks_item_free);
  checks->files = g_ptr_array_new_with_free_func (g_free);
  checks->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) assay_cell_checks_frame_free);

  items = assay_json_get_array (object, "items");
  for (guint i = 0; items != NULL && i < json_array_get_length (items) &&
                    checks->items->len < ASSAY_CELL_CHECKS_MAX; i++)
    {
      JsonNode *element = json_array_get_element (items, i);
      const char *kind;
      AssayCheck *check;
      gsize k;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      kind = assay_json_get_string (json_node_get_object (element), "kind");
      for (k = 0; k < G_N_ELEMENTS (kind_names); k++)
        if (g_strcmp0 (kind, kind_names[k]) == 0)
          break;
      if (k == G_N_ELEMENTS (kind_names))
        continue;

      object = json_node_get_object (element);
      check = g_new0 (AssayCheck, 1);
      check->kind = (AssayCheckKind) k;
      check->rows = assay_cell_checks_count (object, "rows");
      check->columns = assay_cell_checks_count (object, "columns");
      check->left = assay_cell_checks_count (object, "left");
      check->right = assay_cell_checks_count (object, "right");
      check->left_unmatched = assay_cell_checks_count (object, "left_unmatched");
      check->right_unmatched = assay_cell_checks_count (object, "right_unmatched");
      check->before = assay_cell_checks_count (object, "before");
      check->bad_lines = assay_cell_checks_count (object, "bad_lines");
      check->many_to_many = -1;
      if (json_object_has_member (object, "many_to_many"))
        check->many_to_many = assay_json_get_boolean_or (object, "many_to_many", FALSE) ? 1 : 0;
      if (check->kind == ASSAY_CHECK_READ)
        check->file = assay_cell_checks_clean_name (assay_json_get_string (object, "file"));
      if (check->kind == ASSAY_CHECK_MERGE && g_strv_contains (merge_hows, assay_json_get_string (object, "how") ?: ""))
        check->how = g_strdup (assay_json_get_string (object, "how"));
      /* A read of no file, a merge without sides: nothing to say. */
      if ((check->kind == ASSAY_CHECK_READ && (check->file == NULL || check->rows < 0)) ||
          (check->kind == ASSAY_CHECK_MERGE && (check->left < 0 || check->right < 0 || check->rows < 0)) ||
          ((check->kind == ASSAY_CHECK_DROP_DUPLICATES || check->kind == ASSAY_CHECK_DROPNA) &&
           (check->before < 0 || check->rows < 0)))
        {
          assay_cell_checks_item_free (check);
          continue;
        }
      g_ptr_array_add (checks->items, check);
    }

  files = assay_json_get_array (json_node_get_object (node), "files");
  for (guint i = 0; files != NULL && i < json_array_get_length (files) &&
                    checks->files->len < ASSAY_CELL_CHECKS_MAX; i++)
    {
      JsonNode *element = json_array_get_element (files, i);
      char *name;

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        continue;
      name = assay_cell_checks_clean_name (json_node_get_string (element));
      if (name != NULL)
        g_ptr_array_add (checks->files, name);
    }

  frames = assay_json_get_array (json_node_get_object (node), "frames");
  for (guint i = 0; frames != NULL && i < json_array_get_length (frames) &&
                    checks->frames->len < ASSAY_CELL_CHECKS_MAX; i++)
    {
      JsonNode *element = json_array_get_element (frames, i);
      JsonObject *item;
      AssayCheckFrame *frame;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      item = json_node_get_object (element);
      if (!assay_cell_checks_is_identifier (assay_json_get_string (item, "name")) ||
          assay_cell_checks_count (item, "rows") < 0 || assay_cell_checks_count (item, "columns") < 0)
        continue;
      frame = g_new0 (AssayCheckFrame, 1);
      frame->name = g_strdup (assay_json_get_string (item, "name"));
      frame->rows = assay_cell_checks_count (item, "rows");
      frame->columns = assay_cell_checks_count (item, "columns");
      g_ptr_array_add (checks->frames, frame);
    }

  if (checks->items->len == 0 && checks->files->len == 0 && checks->frames->len == 0)
    return NULL;
  return g_steal_pointer (&checks);
}

static void
assay_cell_checks_add_count (JsonBuilder *builder,
                             const char  *member,
                             gint64       value)
{
  if (value < 0)
    return;
  json_builder_set_member_name (builder, member);
  json_builder_add_int_value (builder, value);
}

JsonNode *
assay_cell_checks_to_json (const AssayCellChecks *checks)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (checks != NULL, NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "items");
  json_builder_begin_array (builder);
  for (guint i = 0; i < checks->items->len; i++)
    {
      const AssayCheck *check = g_ptr_array_index (checks->items, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder, kind_names[check->kind]);
      if (check->file != NULL)
        {
          json_builder_set_member_name (builder, "file");
          json_builder_add_string_value (builder, check->file);
        }
      if (check->how != NULL)
        {
          json_builder_set_member_name (builder, "how");
          json_builder_add_string_value (builder, check->how);
        }
      assay_cell_checks_add_count (builder, "rows", check->rows);
      assay_cell_checks_add_count (builder, "columns", check->columns);
      assay_cell_checks_add_count (builder, "left", check->left);
      assay_cell_checks_add_count (builder, "right", check->right);
      assay_cell_checks_add_count (builder, "left_unmatched", check->left_unmatched);
      assay_cell_checks_add_count (builder, "right_unmatched", check->right_unmatched);
      assay_cell_checks_add_count (builder, "before", check->before);
      assay_cell_checks_add_count (builder, "bad_lines", check->bad_lines);
      if (check->many_to_many >= 0)
        {
          json_builder_set_member_name (builder, "many_to_many");
          json_builder_add_boolean_value (builder, check->many_to_many == 1);
        }
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "files");
  json_builder_begin_array (builder);
  for (guint i = 0; i < checks->files->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (checks->files, i));
  json_builder_end_array (builder);
  if (checks->frames != NULL && checks->frames->len > 0)
    {
      json_builder_set_member_name (builder, "frames");
      json_builder_begin_array (builder);
      for (guint i = 0; i < checks->frames->len; i++)
        {
          const AssayCheckFrame *frame = g_ptr_array_index (checks->frames, i);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "name");
          json_builder_add_string_value (builder, frame->name);
          assay_cell_checks_add_count (builder, "rows", frame->rows);
          assay_cell_checks_add_count (builder, "columns", frame->columns);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
    }
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

AssayCellChecks *
assay_cell_checks_copy (const AssayCellChecks *checks)
{
  g_autoptr(JsonNode) node = NULL;

  if (checks == NULL)
    return NULL;
  node = assay_cell_checks_to_json (checks);
  return assay_cell_checks_from_json (node);
}

void
assay_cell_checks_free (AssayCellChecks *checks)
{
  if (checks == NULL)
    return;
  g_clear_pointer (&checks->items, g_ptr_array_unref);
  g_clear_pointer (&checks->files, g_ptr_array_unref);
  g_clear_pointer (&checks->frames, g_ptr_array_unref);
  g_free (checks);
}

/* ---- in words ------------------------------------------------------------------------- */

/* Translated for the analyst, never for the model; N_() marks the text for xgettext. */
#define TEXT(text) (for_model ? (text) : g_dgettext (GETTEXT_PACKAGE, text))

/* 45,162 for the model; the locale's grouping for the analyst. */
static char *
assay_cell_checks_number (gint64   value,
                          gboolean for_model)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GINT64_FORMAT, value);
  GString *grouped;
  gsize n;

  if (!for_model)
    return g_strdup_printf ("%'" G_GINT64_FORMAT, value);
  n = strlen (digits);
  grouped = g_string_new (NULL);
  for (gsize i = 0; i < n; i++)
    {
      if (i > 0 && (n - i) % 3 == 0)
        g_string_append_c (grouped, ',');
      g_string_append_c (grouped, digits[i]);
    }
  return g_string_free (grouped, FALSE);
}

static void
assay_cell_checks_describe_one (GString          *text,
                                const AssayCheck *check,
                                gboolean          for_model)
{
  g_autofree char *rows = assay_cell_checks_number (check->rows, for_model);

  switch (check->kind)
    {
    case ASSAY_CHECK_READ:
      {
        g_autofree char *columns = assay_cell_checks_number (MAX (check->columns, 0), for_model);

        g_string_append_printf (text, TEXT (N_("read %s (rows: %s, columns: %s)")), check->file, rows, columns);
        if (check->bad_lines > 0)
          {
            g_autofree char *bad = assay_cell_checks_number (check->bad_lines, for_model);
            g_string_append (text, ", ");
            g_string_append_printf (text, TEXT (N_("lines not read: %s")), bad);
          }
      }
      break;
    case ASSAY_CHECK_MERGE:
      {
        g_autofree char *left = assay_cell_checks_number (check->left, for_model);
        g_autofree char *right = assay_cell_checks_number (check->right, for_model);

        g_string_append_printf (text, TEXT (N_("merge (%s): rows %s and %s → %s")),
                                check->how != NULL ? check->how : "inner", left, right, rows);
        if (check->left_unmatched > 0 || check->right_unmatched > 0)
          {
            g_autofree char *lu = assay_cell_checks_number (MAX (check->left_unmatched, 0), for_model);
            g_autofree char *ru = assay_cell_checks_number (MAX (check->right_unmatched, 0), for_model);

            g_string_append (text, ", ");
            g_string_append_printf (text, TEXT (N_("rows whose key the other side lacks: %s left, %s right")), lu, ru);
          }
        if (check->many_to_many == 1)
          {
            g_string_append (text, ", ");
            g_string_append (text, TEXT (N_("keys repeated on both sides (many-to-many)")));
          }
      }
      break;
    case ASSAY_CHECK_DROP_DUPLICATES:
    case ASSAY_CHECK_DROPNA:
      {
        g_autofree char *before = assay_cell_checks_number (check->before, for_model);
        g_autofree char *removed = assay_cell_checks_number (MAX (check->before - check->rows, 0), for_model);

        g_string_append_printf (text, TEXT (N_("%s: rows %s → %s (removed: %s)")),
                                check->kind == ASSAY_CHECK_DROPNA ? "dropna" : "drop_duplicates",
                                before, rows, removed);
      }
      break;
    default:
      break;
    }
}

char *
assay_cell_checks_describe (const AssayCellChecks *checks,
                            gboolean               for_model)
{
  GString *text;

  if (checks == NULL)
    return NULL;
  text = g_string_new (NULL);
  for (guint i = 0; i < checks->items->len; i++)
    {
      if (text->len > 0)
        g_string_append (text, "; ");
      assay_cell_checks_describe_one (text, g_ptr_array_index (checks->items, i), for_model);
    }
  if (checks->files->len > 0)
    {
      g_autoptr(GString) names = g_string_new (NULL);

      for (guint i = 0; i < checks->files->len; i++)
        g_string_append_printf (names, "%s/data/%s", i > 0 ? ", " : "", (char *) g_ptr_array_index (checks->files, i));
      if (text->len > 0)
        g_string_append (text, "; ");
      g_string_append_printf (text, TEXT (N_("opened %s")), names->str);
    }
  if (text->len == 0)
    {
      g_string_free (text, TRUE);
      return NULL;
    }
  return g_string_free (text, FALSE);
}

char *
assay_cell_checks_describe_frames (const AssayCellChecks *checks)
{
  GString *text;

  if (checks == NULL || checks->frames == NULL || checks->frames->len == 0)
    return NULL;
  text = g_string_new (NULL);
  for (guint i = 0; i < checks->frames->len; i++)
    {
      const AssayCheckFrame *frame = g_ptr_array_index (checks->frames, i);
      g_autofree char *rows = assay_cell_checks_number (frame->rows, TRUE);
      g_autofree char *columns = assay_cell_checks_number (frame->columns, TRUE);

      g_string_append_printf (text, "%s%s (%s rows × %s columns)", i > 0 ? ", " : "", frame->name, rows, columns);
    }
  return g_string_free (text, FALSE);
}
