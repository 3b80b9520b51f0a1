/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "Assay-Preview"

#include "config.h"

#include <glib/gi18n.h>

#include "assay-app-types.h"
#include "assay-data-preview.h"

struct _AssayDataPreview
{
  GtkWidget                parent_instance;

  AdwFlap                 *flap;
  AdwTabBar               *tab_bar;
  AdwTabView              *tab_view;
  GtkStack                *content_stack;
  GtkToggleButton         *panel_button;
  AssayColumnProfilePanel *panel;

  AssayDatasetPage        *watched;   /* the page the panel shows */
};

G_DEFINE_FINAL_TYPE (AssayDataPreview, assay_data_preview, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SHOW_PANEL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  MASK_TOGGLED,
  TABLE_MASK_TOGGLED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
assay_data_preview_update_panel (AssayDataPreview *self)
{
  AssayDatasetPage *page = self->watched;
  AssayDataset *dataset;
  int column;

  gtk_widget_set_visible (GTK_WIDGET (self->panel), TRUE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->panel_button), TRUE);
  if (page == NULL)
    {
      assay_column_profile_panel_set_column (self->panel, NULL, NULL, 0);
      assay_column_profile_panel_set_masked (self->panel, FALSE);
      assay_column_profile_panel_set_dialect (self->panel, NULL, NULL);
      return;
    }
  dataset = assay_dataset_page_get_dataset (page);
  /* A database's page shows its own schema: the panel profiles a table's column and tells how
   * a text file is read, neither of which it has. */
  {
    gboolean database = dataset != NULL && assay_dataset_is_database (dataset);

    gtk_widget_set_visible (GTK_WIDGET (self->panel), !database);
    gtk_widget_set_sensitive (GTK_WIDGET (self->panel_button), !database);
    if (database)
      return;
  }
  column = assay_dataset_page_get_selected_column (page);
  assay_column_profile_panel_set_column (self->panel, dataset,
                                         column >= 0 ? assay_dataset_page_get_column_name (page, column) : NULL,
                                         column >= 0 ? column : 0);
  assay_column_profile_panel_set_masked (self->panel,
                                         column >= 0 &&
                                         assay_dataset_page_get_column_masked (page,
                                                                               assay_dataset_page_get_column_name (page, column)));
  assay_column_profile_panel_set_dialect (self->panel, assay_dataset_page_get_dialect (page),
                                          dataset != NULL ? assay_dataset_get_warnings (dataset) : NULL);
}

static void
assay_data_preview_watch_page (AssayDataPreview *self,
                               AssayDatasetPage *page)
{
  if (self->watched == page)
    return;
  if (self->watched != NULL)
    g_signal_handlers_disconnect_by_data (self->watched, self);
  g_set_weak_pointer (&self->watched, page);
  if (page != NULL)
    {
      g_signal_connect_swapped (page, "notify::dataset", G_CALLBACK (assay_data_preview_update_panel), self);
      g_signal_connect_swapped (page,
                                "notify::selected-column",
                                G_CALLBACK (assay_data_preview_update_panel),
                                self);
      g_signal_connect_swapped (page, "notify::state", G_CALLBACK (assay_data_preview_update_panel), self);
    }
  assay_column_profile_panel_set_correction (self->panel,
                                             page != NULL ? assay_dataset_page_get_override (page) : NULL);
  assay_data_preview_update_panel (self);
}

static void
assay_data_preview_selected_page_changed (AssayDataPreview *self)
{
  AdwTabPage *tab = adw_tab_view_get_selected_page (self->tab_view);

  assay_data_preview_watch_page (self,
                                 tab != NULL ? ASSAY_DATASET_PAGE (adw_tab_page_get_child (tab)) : NULL);
  gtk_stack_set_visible_child_name (self->content_stack,
                                    adw_tab_view_get_n_pages (self->tab_view) > 0 ? "tabs" : "empty");
}

static void
assay_data_preview_panel_apply (AssayDataPreview      *self,
                                const AssayCsvDialect *override)
{
  if (self->watched != NULL)
    assay_dataset_page_reopen (self->watched, override);
}

static void
assay_data_preview_table_mask_toggled (AssayDatasetPage *page,
                                       const char       *table,
                                       const char       *column,
                                       gboolean          masked,
                                       AssayDataPreview *self)
{
  g_signal_emit (self, signals[TABLE_MASK_TOGGLED], 0, assay_dataset_page_get_path (page), table, column, masked);
}

/* The panel's switch: the window decides, and sets the masked columns it keeps. */
static void
assay_data_preview_panel_mask_toggled (AssayDataPreview *self,
                                       const char       *column,
                                       gboolean          masked)
{
  if (self->watched != NULL)
    g_signal_emit (self, signals[MASK_TOGGLED], 0, assay_dataset_page_get_path (self->watched), column, masked);
  /* Unless told otherwise meanwhile, the switch shows what holds. */
  assay_data_preview_update_panel (self);
}

static void
assay_data_preview_page_state_changed (AssayDatasetPage *page,
                                       GParamSpec       *pspec,
                                       AdwTabPage       *tab)
{
  const char *state = assay_dataset_page_get_state (page);

  adw_tab_page_set_loading (tab, g_str_equal (state, "loading"));
  adw_tab_page_set_needs_attention (tab, g_str_equal (state, "error"));
}

static void
assay_data_preview_dispose (GObject *object)
{
  AssayDataPreview *self = ASSAY_DATA_PREVIEW (object);

  assay_data_preview_watch_page (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), ASSAY_TYPE_DATA_PREVIEW);

  G_OBJECT_CLASS (assay_data_preview_parent_class)->dispose (object);
}

static void
assay_data_preview_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  AssayDataPreview *self = ASSAY_DATA_PREVIEW (object);

  switch (prop_id)
    {
    case PROP_SHOW_PANEL:
      g_value_set_boolean (value, assay_data_preview_get_show_panel (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_data_preview_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  AssayDataPreview *self = ASSAY_DATA_PREVIEW (object);

  switch (prop_id)
    {
    case PROP_SHOW_PANEL:
      assay_data_preview_set_show_panel (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
assay_data_preview_ensure_style (void)
{
  static gboolean done;
  g_autoptr(GtkCssProvider) provider = NULL;

  if (done || gdk_display_get_default () == NULL)
    return;
  done = TRUE;
  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (provider, "/org/assay/Assay/assay-preview.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  /* The masked-column mark, where no GtkApplication added the app's icons (the demo, tests). */
  gtk_icon_theme_add_resource_path (gtk_icon_theme_get_for_display (gdk_display_get_default ()),
                                    "/org/assay/Assay/icons");
}

static void
assay_data_preview_class_init (AssayDataPreviewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = assay_data_preview_dispose;
  object_class->get_property = assay_data_preview_get_property;
  object_class->set_property = assay_data_preview_set_property;

  properties[PROP_SHOW_PANEL] =
    g_param_spec_boolean ("show-panel", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* ::mask-toggled (const char *path, const char *column, gboolean masked): the analyst
   * asked that COLUMN of the file at PATH be masked, or no longer; the caller records it and
   * calls assay_data_preview_set_masked_columns (). */
  signals[MASK_TOGGLED] = g_signal_new ("mask-toggled", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                                        G_TYPE_STRING, G_TYPE_STRING, G_TYPE_BOOLEAN);
  /* ::table-mask-toggled (const char *path, const char *table, const char *column, gboolean
   * masked): the same for a column of a table of the SQLite database at PATH; the caller
   * gives assay_data_preview_set_masked_columns () "TABLE.COLUMN" names. */
  signals[TABLE_MASK_TOGGLED] = g_signal_new ("table-mask-toggled", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                              0, NULL, NULL, NULL, G_TYPE_NONE, 4,
                                              G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_BOOLEAN);

  g_type_ensure (ASSAY_TYPE_COLUMN_PROFILE_PANEL);
  g_type_ensure (ASSAY_TYPE_DATASET_PAGE);
  assay_app_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, "/org/assay/Assay/ui/assay-data-preview.ui");
  gtk_widget_class_bind_template_child (widget_class, AssayDataPreview, flap);
  gtk_widget_class_bind_template_child (widget_class, AssayDataPreview, tab_bar);
  gtk_widget_class_bind_template_child (widget_class, AssayDataPreview, tab_view);
  gtk_widget_class_bind_template_child (widget_class, AssayDataPreview, content_stack);
  gtk_widget_class_bind_template_child (widget_class, AssayDataPreview, panel_button);
  gtk_widget_class_bind_template_child (widget_class, AssayDataPreview, panel);
  gtk_widget_class_set_css_name (widget_class, "datapreview");
}

static void
assay_data_preview_init (AssayDataPreview *self)
{
  assay_data_preview_ensure_style ();
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_add_css_class (GTK_WIDGET (self), "assay-preview");
  g_object_bind_property (self->flap, "reveal-flap", self->panel_button, "active",
                          G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);
  g_signal_connect_object (self->flap, "notify::reveal-flap",
                           G_CALLBACK (g_object_notify_by_pspec), self, G_CONNECT_SWAPPED);
  g_signal_connect_swapped (self->tab_view,
                            "notify::selected-page",
                            G_CALLBACK (assay_data_preview_selected_page_changed),
                            self);
  g_signal_connect_swapped (self->panel, "apply", G_CALLBACK (assay_data_preview_panel_apply), self);
  g_signal_connect_swapped (self->panel,
                            "mask-toggled",
                            G_CALLBACK (assay_data_preview_panel_mask_toggled),
                            self);
  assay_data_preview_selected_page_changed (self);
}

GtkWidget *
assay_data_preview_new (void)
{
  return g_object_new (ASSAY_TYPE_DATA_PREVIEW, NULL);
}

AssayDatasetPage *
assay_data_preview_get_page (AssayDataPreview *self,
                             const char       *path)
{
  g_return_val_if_fail (ASSAY_IS_DATA_PREVIEW (self), NULL);
  for (int i = 0; i < adw_tab_view_get_n_pages (self->tab_view); i++)
    {
      AssayDatasetPage *page = ASSAY_DATASET_PAGE (adw_tab_page_get_child (adw_tab_view_get_nth_page (self->tab_view, i)));

      if (g_strcmp0 (assay_dataset_page_get_path (page), path) == 0)
        return page;
    }
  return NULL;
}

gboolean
assay_data_preview_select_file (AssayDataPreview *self,
                                const char       *path)
{
  AssayDatasetPage *page;

  g_return_val_if_fail (ASSAY_IS_DATA_PREVIEW (self), FALSE);
  page = assay_data_preview_get_page (self, path);
  if (page == NULL)
    return FALSE;
  adw_tab_view_set_selected_page (self->tab_view, adw_tab_view_get_page (self->tab_view, GTK_WIDGET (page)));
  return TRUE;
}

AssayDatasetPage *
assay_data_preview_add_file (AssayDataPreview *self,
                             const char       *path)
{
  AssayDatasetPage *page;
  AdwTabPage *tab;
  g_autofree char *title = NULL;

  g_return_val_if_fail (ASSAY_IS_DATA_PREVIEW (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  page = assay_data_preview_get_page (self, path);
  if (page != NULL)
    {
      adw_tab_view_set_selected_page (self->tab_view,
                                      adw_tab_view_get_page (self->tab_view, GTK_WIDGET (page)));
      return page;
    }
  page = ASSAY_DATASET_PAGE (assay_dataset_page_new (path));
  tab = adw_tab_view_append (self->tab_view, GTK_WIDGET (page));
  title = g_path_get_basename (path);
  adw_tab_page_set_title (tab, title);
  adw_tab_page_set_tooltip (tab, path);
  g_signal_connect_object (page, "notify::state", G_CALLBACK (assay_data_preview_page_state_changed), tab, 0);
  g_signal_connect_object (page, "table-mask-toggled", G_CALLBACK (assay_data_preview_table_mask_toggled), self, 0);
  assay_data_preview_page_state_changed (page, NULL, tab);
  adw_tab_view_set_selected_page (self->tab_view, tab);
  assay_data_preview_selected_page_changed (self);
  return page;
}

void
assay_data_preview_remove_file (AssayDataPreview *self,
                                const char       *path)
{
  AssayDatasetPage *page;

  g_return_if_fail (ASSAY_IS_DATA_PREVIEW (self));
  page = assay_data_preview_get_page (self, path);
  if (page == NULL)
    return;
  adw_tab_view_close_page (self->tab_view, adw_tab_view_get_page (self->tab_view, GTK_WIDGET (page)));
  assay_data_preview_selected_page_changed (self);
}

void
assay_data_preview_set_files (AssayDataPreview   *self,
                              const char * const *paths)
{
  g_return_if_fail (ASSAY_IS_DATA_PREVIEW (self));

  while (adw_tab_view_get_n_pages (self->tab_view) > 0)
    adw_tab_view_close_page (self->tab_view, adw_tab_view_get_nth_page (self->tab_view, 0));
  for (guint i = 0; paths != NULL && paths[i] != NULL; i++)
    assay_data_preview_add_file (self, paths[i]);
  if (adw_tab_view_get_n_pages (self->tab_view) > 0)
    adw_tab_view_set_selected_page (self->tab_view, adw_tab_view_get_nth_page (self->tab_view, 0));
  assay_data_preview_selected_page_changed (self);
}

guint
assay_data_preview_get_n_files (AssayDataPreview *self)
{
  g_return_val_if_fail (ASSAY_IS_DATA_PREVIEW (self), 0);
  return adw_tab_view_get_n_pages (self->tab_view);
}

AssayDatasetPage *
assay_data_preview_get_selected_page (AssayDataPreview *self)
{
  g_return_val_if_fail (ASSAY_IS_DATA_PREVIEW (self), NULL);
  return self->watched;
}

AssayColumnProfilePanel *
assay_data_preview_get_panel (AssayDataPreview *self)
{
  g_return_val_if_fail (ASSAY_IS_DATA_PREVIEW (self), NULL);
  return self->panel;
}

void
assay_data_preview_set_show_panel (AssayDataPreview *self,
                                   gboolean          show_panel)
{
  g_return_if_fail (ASSAY_IS_DATA_PREVIEW (self));
  adw_flap_set_reveal_flap (self->flap, show_panel);
}

gboolean
assay_data_preview_get_show_panel (AssayDataPreview *self)
{
  g_return_val_if_fail (ASSAY_IS_DATA_PREVIEW (self), FALSE);
  return adw_flap_get_reveal_flap (self->flap);
}

void
assay_data_preview_set_masked_columns (AssayDataPreview   *self,
                                       const char         *path,
                                       const char * const *columns)
{
  AssayDatasetPage *page;

  g_return_if_fail (ASSAY_IS_DATA_PREVIEW (self));
  g_return_if_fail (path != NULL);

  page = assay_data_preview_get_page (self, path);
  if (page == NULL)
    return;
  assay_dataset_page_set_masked_columns (page, columns);
  if (page == self->watched)
    assay_data_preview_update_panel (self);
}
