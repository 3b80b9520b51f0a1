/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Preview"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-app-types.h"
#include "assay-column-profile-panel.h"
#include "assay-column-sparkline.h"

struct _AssayColumnProfilePanel
{
  GtkWidget    parent_instance;

  GtkLabel    *column_title;
  GtkWidget   *column_grid;
  GtkLabel    *type_value;
  GtkLabel    *nulls_value;
  GtkLabel    *distinct_value;
  GtkLabel    *min_value;
  GtkLabel    *max_value;
  GtkLabel    *mean_value;
  GtkWidget   *top_title;
  GtkGrid     *top_grid;
  AssayColumnSparkline *histogram;
  GtkLabel    *encoding_value;
  GtkLabel    *delimiter_value;
  GtkLabel    *quote_value;
  GtkLabel    *decimal_value;
  GtkLabel    *thousands_value;
  GtkLabel    *header_value;
  GtkLabel    *line_endings_value;
  GtkBox      *warnings_box;
  GtkDropDown *encoding_dropdown;
  GtkDropDown *delimiter_dropdown;
  GtkDropDown *decimal_dropdown;
  GtkDropDown *header_dropdown;
  GtkImage    *mask_icon;
  GtkSwitch   *mask_switch;

  gboolean     has_dialect;
  char        *column_name;    /* the column shown, or NULL */
  gboolean     masked;
  gboolean     showing_mask;   /* the switch is set from "masked", not by the analyst */
};

G_DEFINE_FINAL_TYPE (AssayColumnProfilePanel, assay_column_profile_panel, GTK_TYPE_WIDGET)

enum {
  APPLY,
  MASK_TOGGLED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

enum {
  PROP_0,
  PROP_MASKED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The dropdowns' choices, in the order of the .ui file; index 0 is "Automatic". */
static const char * const encodings[] = {
  NULL, "utf-8", "windows-1252", "iso-8859-1", "iso-8859-15", "windows-1250", "windows-1251",
  "koi8-r", "ibm866", "utf-16le", "utf-16be", "shift_jis", "gb18030",
};
static const char delimiters[] = { 0, ',', ';', '\t', '|', ':', ' ' };
static const char decimals[] = { 0, '.', ',' };

static char *
assay_column_profile_panel_format_count (guint64 n)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  GString *out = g_string_new (NULL);
  gsize len = strlen (digits);

  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

static char *
assay_column_profile_panel_format_member (JsonObject *object,
                                          const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node) || !JSON_NODE_HOLDS_VALUE (node))
    return g_strdup ("—");
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
    case G_TYPE_DOUBLE:
      return g_strdup_printf ("%.6g", json_node_get_double (node));
    case G_TYPE_STRING:
      return g_strdup (json_node_get_string (node));
    case G_TYPE_BOOLEAN:
      return g_strdup (json_node_get_boolean (node) ? "true" : "false");
    default:
      return g_strdup ("—");
    }
}

static const char *
assay_column_profile_panel_describe_char (char c)
{
  switch (c)
    {
    case ',': return _("comma ( , )");
    case ';': return _("semicolon ( ; )");
    case '\t': return _("tab");
    case '|': return _("pipe ( | )");
    case ':': return _("colon ( : )");
    case ' ': return _("space");
    case '.': return _("point ( . )");
    case '"': return _("double quote ( \" )");
    case '\'': return _("single quote ( ' )");
    default: return NULL;
    }
}

static void
assay_column_profile_panel_clear_top_values (AssayColumnProfilePanel *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->top_grid))) != NULL)
    gtk_grid_remove (self->top_grid, child);
}

void
assay_column_profile_panel_set_column (AssayColumnProfilePanel *self,
                                       AssayDataset            *dataset,
                                       const char              *name,
                                       guint                    column)
{
  g_autoptr(JsonObject) profile = NULL;
  GtkLabel *values[] = { self->type_value, self->nulls_value, self->distinct_value,
                         self->min_value, self->max_value, self->mean_value };

  g_return_if_fail (ASSAY_IS_COLUMN_PROFILE_PANEL (self));

  if (g_strcmp0 (self->column_name, name) != 0)
    {
      g_free (self->column_name);
      self->column_name = g_strdup (name);
    }
  /* A column can be masked before its profile is ready: the switch needs its name only. */
  gtk_widget_set_sensitive (GTK_WIDGET (self->mask_switch), name != NULL);
  gtk_label_set_label (self->column_title, name != NULL ? name : _("No column"));
  assay_column_profile_panel_clear_top_values (self);
  assay_column_sparkline_set_values (self->histogram, NULL, 0);
  if (dataset != NULL)
    profile = assay_dataset_get_column_json (dataset, column);
  if (profile == NULL)
    {
      const char *text = dataset == NULL && name != NULL ? _("Profiling…") : "—";

      for (guint i = 0; i < G_N_ELEMENTS (values); i++)
        gtk_label_set_label (values[i], i == 0 ? text : "—");
      gtk_widget_set_visible (self->top_title, FALSE);
      return;
    }

  {
    g_autofree char *type = assay_column_profile_panel_format_member (profile, "type");
    guint64 nulls = json_object_get_int_member_with_default (profile, "nulls", 0);
    guint64 rows = assay_dataset_get_n_rows (dataset);
    g_autofree char *nulls_text = assay_column_profile_panel_format_count (nulls);
    g_autofree char *nulls_label = g_strdup_printf ("%s (%.1f%%)", nulls_text,
                                                    rows > 0 ? 100.0 * nulls / rows : 0.0);
    g_autofree char *distinct = assay_column_profile_panel_format_count (json_object_get_int_member_with_default (profile, "distinct", 0));
    g_autofree char *distinct_label = g_strdup_printf ("%s%s",
                                                       json_object_get_boolean_member_with_default (profile,
                                                                                                    "distinct_exact",
                                                                                                    TRUE) ? "" : "≈ ",
                                                       distinct);
    g_autofree char *min = assay_column_profile_panel_format_member (profile, "min");
    g_autofree char *max = assay_column_profile_panel_format_member (profile, "max");
    g_autofree char *mean = assay_column_profile_panel_format_member (profile, "mean");

    gtk_label_set_label (self->type_value, type);
    gtk_label_set_label (self->nulls_value, nulls_label);
    gtk_label_set_label (self->distinct_value, distinct_label);
    gtk_label_set_label (self->min_value, min);
    gtk_label_set_label (self->max_value, max);
    gtk_label_set_label (self->mean_value, mean);
  }

  if (json_object_has_member (profile, "top") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (profile, "top")))
    {
      JsonArray *top = json_object_get_array_member (profile, "top");
      guint n = json_array_get_length (top);
      g_autofree double *counts = g_new0 (double, MAX (n, 1));

      for (guint i = 0; i < n; i++)
        {
          JsonNode *node = json_array_get_element (top, i);
          JsonObject *entry;
          GtkWidget *value, *count;
          g_autofree char *count_text = NULL;

          if (!JSON_NODE_HOLDS_OBJECT (node))
            continue;
          entry = json_node_get_object (node);
          counts[i] = json_object_get_int_member_with_default (entry, "count", 0);
          count_text = assay_column_profile_panel_format_count ((guint64) counts[i]);
          value = gtk_label_new (json_object_get_string_member_with_default (entry, "value", ""));
          gtk_label_set_xalign (GTK_LABEL (value), 0);
          gtk_label_set_ellipsize (GTK_LABEL (value), PANGO_ELLIPSIZE_END);
          gtk_widget_set_hexpand (value, TRUE);
          count = gtk_label_new (count_text);
          gtk_label_set_xalign (GTK_LABEL (count), 1);
          gtk_widget_add_css_class (count, "numeric");
          gtk_grid_attach (self->top_grid, value, 0, i, 1, 1);
          gtk_grid_attach (self->top_grid, count, 1, i, 1, 1);
        }
      gtk_widget_set_visible (self->top_title, n > 0);
      if (n > 0)
        assay_column_sparkline_set_values (self->histogram, counts, n);
    }

  if (json_object_has_member (profile, "histogram") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (profile, "histogram")))
    {
      JsonArray *histogram = json_object_get_array_member (profile, "histogram");
      guint n = json_array_get_length (histogram);

      if (n > 0)
        {
          g_autofree double *bins = g_new0 (double, n);

          for (guint i = 0; i < n; i++)
            {
              JsonNode *node = json_array_get_element (histogram, i);
              bins[i] = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_double (node) : 0;
            }
          assay_column_sparkline_set_values (self->histogram, bins, n);
        }
    }
}

static void
assay_column_profile_panel_show_mask (AssayColumnProfilePanel *self)
{
  self->showing_mask = TRUE;
  gtk_switch_set_active (self->mask_switch, self->masked);
  self->showing_mask = FALSE;
  gtk_widget_set_visible (GTK_WIDGET (self->mask_icon), self->masked);
}

void
assay_column_profile_panel_set_masked (AssayColumnProfilePanel *self,
                                       gboolean                 masked)
{
  g_return_if_fail (ASSAY_IS_COLUMN_PROFILE_PANEL (self));

  masked = !!masked;
  /* The switch may show the analyst's flip that was refused: it goes back either way. */
  if (self->masked != masked)
    {
      self->masked = masked;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MASKED]);
    }
  assay_column_profile_panel_show_mask (self);
}

gboolean
assay_column_profile_panel_get_masked (AssayColumnProfilePanel *self)
{
  g_return_val_if_fail (ASSAY_IS_COLUMN_PROFILE_PANEL (self), FALSE);
  return self->masked;
}

const char *
assay_column_profile_panel_get_column_name (AssayColumnProfilePanel *self)
{
  g_return_val_if_fail (ASSAY_IS_COLUMN_PROFILE_PANEL (self), NULL);
  return self->column_name;
}

/* The analyst flipped the switch: whoever keeps the masked columns decides, and sets
 * "masked" to what holds then. */
static void
assay_column_profile_panel_mask_switch_cb (AssayColumnProfilePanel *self)
{
  gboolean active = gtk_switch_get_active (self->mask_switch);

  if (self->showing_mask || self->column_name == NULL || active == self->masked)
    return;
  g_signal_emit (self, signals[MASK_TOGGLED], 0, self->column_name, active);
}

static void
assay_column_profile_panel_update_actions (AssayColumnProfilePanel *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "panel.apply", self->has_dialect);
}

void
assay_column_profile_panel_set_dialect (AssayColumnProfilePanel *self,
                                        const AssayCsvDialect   *dialect,
                                        GPtrArray               *warnings)
{
  GtkWidget *child;

  g_return_if_fail (ASSAY_IS_COLUMN_PROFILE_PANEL (self));

  self->has_dialect = dialect != NULL;
  assay_column_profile_panel_update_actions (self);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->warnings_box))) != NULL)
    gtk_box_remove (self->warnings_box, child);

  if (dialect == NULL)
    {
      GtkLabel *labels[] = { self->encoding_value, self->delimiter_value, self->quote_value,
                             self->decimal_value, self->thousands_value, self->header_value,
                             self->line_endings_value };
      for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
        gtk_label_set_label (labels[i], "—");
    }
  else
    {
      g_autofree char *encoding = g_strdup_printf ("%s%s", dialect->encoding,
                                                   dialect->bom_len > 0 ? _(" (with BOM)") : "");
      const char *delimiter = assay_column_profile_panel_describe_char (dialect->delimiter);
      g_autofree char *other = g_strdup_printf ("“%c”", dialect->delimiter);
      const char *thousands = dialect->thousands[0] == '\0' ? _("none") :
                              g_str_equal (dialect->thousands, "\xC2\xA0") ? _("no-break space") :
                              g_str_equal (dialect->thousands, "\xE2\x80\xAF") ? _("narrow no-break space") :
                              g_str_equal (dialect->thousands, ",") ? _("comma ( , )") :
                              g_str_equal (dialect->thousands, ".") ? _("point ( . )") :
                              g_str_equal (dialect->thousands, " ") ? _("space") : dialect->thousands;

      gtk_label_set_label (self->encoding_value, encoding);
      gtk_label_set_label (self->delimiter_value, delimiter != NULL ? delimiter : other);
      gtk_label_set_label (self->quote_value,
                           assay_column_profile_panel_describe_char (dialect->quote) != NULL ? assay_column_profile_panel_describe_char (dialect->quote) : "—");
      gtk_label_set_label (self->decimal_value,
                           dialect->decimal == ',' ? _("comma ( , )") : _("point ( . )"));
      gtk_label_set_label (self->thousands_value, thousands);
      gtk_label_set_label (self->header_value, dialect->header ? _("first row") : _("none"));
      gtk_label_set_label (self->line_endings_value,
                           dialect->line_ending == NULL ? "—" :
                           g_str_equal (dialect->line_ending, "\r\n") ? _("CRLF (Windows)") :
                           g_str_equal (dialect->line_ending, "\r") ? _("CR (old Mac)") : _("LF (Unix)"));
    }

  for (guint i = 0; warnings != NULL && i < warnings->len; i++)
    {
      GtkWidget *label = gtk_label_new (g_ptr_array_index (warnings, i));

      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_add_css_class (label, "warning");
      gtk_box_append (self->warnings_box, label);
    }
}

static guint
assay_column_profile_panel_index_of_encoding (const char *encoding)
{
  for (guint i = 1; encoding != NULL && i < G_N_ELEMENTS (encodings); i++)
    if (g_ascii_strcasecmp (encodings[i], encoding) == 0)
      return i;
  return 0;
}

void
assay_column_profile_panel_set_correction (AssayColumnProfilePanel *self,
                                           const AssayCsvDialect   *override)
{
  guint delimiter = 0, decimal = 0;

  g_return_if_fail (ASSAY_IS_COLUMN_PROFILE_PANEL (self));

  for (guint i = 1; override != NULL && i < G_N_ELEMENTS (delimiters); i++)
    if (delimiters[i] == override->delimiter)
      delimiter = i;
  for (guint i = 1; override != NULL && i < G_N_ELEMENTS (decimals); i++)
    if (decimals[i] == override->decimal)
      decimal = i;
  gtk_drop_down_set_selected (self->encoding_dropdown,
                              override != NULL ? assay_column_profile_panel_index_of_encoding (override->encoding) : 0);
  gtk_drop_down_set_selected (self->delimiter_dropdown, delimiter);
  gtk_drop_down_set_selected (self->decimal_dropdown, decimal);
  gtk_drop_down_set_selected (self->header_dropdown,
                              override == NULL || override->header == ASSAY_CSV_HEADER_DETECT ? 0 :
                              override->header ? 1 : 2);
}

void
assay_column_profile_panel_get_correction (AssayColumnProfilePanel *self,
                                           AssayCsvDialect         *override)
{
  guint encoding, delimiter, decimal, header;

  g_return_if_fail (ASSAY_IS_COLUMN_PROFILE_PANEL (self));

  assay_csv_dialect_init_override (override);
  encoding = gtk_drop_down_get_selected (self->encoding_dropdown);
  delimiter = gtk_drop_down_get_selected (self->delimiter_dropdown);
  decimal = gtk_drop_down_get_selected (self->decimal_dropdown);
  header = gtk_drop_down_get_selected (self->header_dropdown);
  if (encoding < G_N_ELEMENTS (encodings))
    override->encoding = g_strdup (encodings[encoding]);
  if (delimiter < G_N_ELEMENTS (delimiters))
    override->delimiter = delimiters[delimiter];
  if (decimal < G_N_ELEMENTS (decimals))
    override->decimal = decimals[decimal];
  if (header == 1 || header == 2)
    override->header = header == 1;
}

void
assay_column_profile_panel_apply (AssayColumnProfilePanel *self)
{
  AssayCsvDialect override;

  g_return_if_fail (ASSAY_IS_COLUMN_PROFILE_PANEL (self));

  assay_column_profile_panel_get_correction (self, &override);
  g_signal_emit (self, signals[APPLY], 0, &override);
  assay_csv_dialect_clear_override (&override);
}

static void
assay_column_profile_panel_apply_action (GtkWidget  *widget,
                                         const char *action_name,
                                         GVariant   *parameter)
{
  assay_column_profile_panel_apply (ASSAY_COLUMN_PROFILE_PANEL (widget));
}

static void
assay_column_profile_panel_dispose (GObject *object)
{
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (object), ASSAY_TYPE_COLUMN_PROFILE_PANEL);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (assay_column_profile_panel_parent_class)->dispose (object);
}

static void
assay_column_profile_panel_finalize (GObject *object)
{
  AssayColumnProfilePanel *self = ASSAY_COLUMN_PROFILE_PANEL (object);

  g_free (self->column_name);

  G_OBJECT_CLASS (assay_column_profile_panel_parent_class)->finalize (object);
}

static void
assay_column_profile_panel_get_property (GObject    *object,
                                         guint       prop_id,
                                         GValue     *value,
                                         GParamSpec *pspec)
{
  AssayColumnProfilePanel *self = ASSAY_COLUMN_PROFILE_PANEL (object);

  switch (prop_id)
    {
    case PROP_MASKED:
      g_value_set_boolean (value, self->masked);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_column_profile_panel_set_property (GObject      *object,
                                         guint         prop_id,
                                         const GValue *value,
                                         GParamSpec   *pspec)
{
  AssayColumnProfilePanel *self = ASSAY_COLUMN_PROFILE_PANEL (object);

  switch (prop_id)
    {
    case PROP_MASKED:
      assay_column_profile_panel_set_masked (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_column_profile_panel_class_init (AssayColumnProfilePanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_column_profile_panel_dispose;
  object_class->finalize = assay_column_profile_panel_finalize;
  object_class->get_property = assay_column_profile_panel_get_property;
  object_class->set_property = assay_column_profile_panel_set_property;

  /* Whether the column shown is masked (its values never reach the model). */
  properties[PROP_MASKED] =
    g_param_spec_boolean ("masked", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* ::apply (const AssayCsvDialect *override): the analyst asked to re-read the file. */
  signals[APPLY] = g_signal_new ("apply", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                 0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
  /* ::mask-toggled (const char *column, gboolean masked): the analyst flipped "Never Send
   * Values to the Model"; "masked" changes only when it is set. */
  signals[MASK_TOGGLED] = g_signal_new ("mask-toggled", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_BOOLEAN);

  g_type_ensure (ASSAY_TYPE_COLUMN_SPARKLINE);
  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/assay/Assay/ui/assay-column-profile-panel.ui");
#define BIND(name) gtk_widget_class_bind_template_child (widget_class, AssayColumnProfilePanel, name)
  BIND (column_title);
  BIND (column_grid);
  BIND (type_value);
  BIND (nulls_value);
  BIND (distinct_value);
  BIND (min_value);
  BIND (max_value);
  BIND (mean_value);
  BIND (top_title);
  BIND (top_grid);
  BIND (histogram);
  BIND (encoding_value);
  BIND (delimiter_value);
  BIND (quote_value);
  BIND (decimal_value);
  BIND (thousands_value);
  BIND (header_value);
  BIND (line_endings_value);
  BIND (warnings_box);
  BIND (encoding_dropdown);
  BIND (delimiter_dropdown);
  BIND (decimal_dropdown);
  BIND (header_dropdown);
  BIND (mask_icon);
  BIND (mask_switch);
#undef BIND
  gtk_widget_class_bind_template_callback (widget_class, assay_column_profile_panel_mask_switch_cb);
  gtk_widget_class_install_action (widget_class,
                                   "panel.apply",
                                   NULL,
                                   assay_column_profile_panel_apply_action);
  gtk_widget_class_set_css_name (widget_class, "columnprofilepanel");
}

static void
assay_column_profile_panel_init (AssayColumnProfilePanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  assay_column_profile_panel_set_column (self, NULL, NULL, 0);
  assay_column_profile_panel_set_dialect (self, NULL, NULL);
}

GtkWidget *
assay_column_profile_panel_new (void)
{
  return g_object_new (ASSAY_TYPE_COLUMN_PROFILE_PANEL, NULL);
}
